#!/bin/bash
# The golden suite: every sample through darc, checked against trace-cmd
# (dump and counts) and against the committed expected output of 'darc info'.
# Usage: run.sh DARC [--update]   (--update rewrites the expected files)
set -u
darc=${1:?usage: run.sh DARC [--update]}
darc=$(realpath "$darc") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
update=${2:-}
fail=0 pass=0 skip=0

for f in "$top"/samples/*.dat; do
	name=$(basename "$f" .dat)
	# 1. dump and counts against trace-cmd
	out=$("$here/cmp-report.sh" "$darc" "$f")
	rc=$?
	echo "$out"
	case $rc in 0) pass=$((pass + 1)) ;; 77) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
	# 2. darc info against its expected text (the path is the only variable part)
	exp="$here/expected/$name.info"
	act=$(cd "$top" && "$darc" info "samples/$name.dat" 2>&1)
	if [ "$update" = --update ]; then
		mkdir -p "$here/expected"
		printf '%s\n' "$act" >"$exp"
	fi
	if [ -f "$exp" ] && [ "$act" = "$(cat "$exp")" ]; then
		echo "ok: darc info $name.dat matches expected/$name.info"
		pass=$((pass + 1))
	else
		echo "FAIL: darc info $name.dat differs from expected/$name.info:"
		diff <(printf '%s\n' "$act") "$exp" | head -20
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 77
