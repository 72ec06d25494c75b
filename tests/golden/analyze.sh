#!/bin/bash
# The analysis on every sample: check-analyze.sh (every number adds up, and
# function_graph durations equal trace-cmd's). Usage: analyze.sh DARC
set -u
darc=${1:?usage: analyze.sh DARC}
darc=$(realpath "$darc") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0
for f in "$here"/../../samples/*.dat; do
	"$here/check-analyze.sh" "$darc" "$f"
	case $? in 0) pass=$((pass + 1)) ;; 77) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 77
