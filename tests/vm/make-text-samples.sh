#!/bin/bash
# make-text-samples.sh: regenerates samples/text/ (the ftrace text reader's
# samples): one boot of the VM lab runs guest-text.sh, which saves ONE
# function_graph trace of the preads workload three ways as `cat trace`
# text and once as trace.dat (trace-cmd extract of the same buffer); on the
# host `trace-cmd report` of that trace.dat gives the report forms.
#
#   make-text-samples.sh [--out DIR] [N]   N preads of each kind (default 40)
#   make-text-samples.sh [--out DIR] --func [N]   the function tracer's texts:
#     func.dat, func-cat.txt, func-offset.txt (cat trace, sym-offset),
#     func-report.txt and func-raw.txt (trace-cmd report, -R), func.cmd
#
# --out DIR writes there instead of samples/text (tests/vm/fresh-text.sh).
# Writes samples/text/preads.dat, preads-{default,abstime,lat}.txt,
# preads-report.txt (trace-cmd report) and preads-report-lt.txt
# (trace-cmd report -l -t), and preads.cmd (the guest's settings).
# tests/golden/text.sh then compares darc analyze of each text with the
# trace.dat.  About 25 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/samples/text
if [ "${1:-}" = --out ]; then
	out=${2:?--out needs a directory}
	shift 2
fi
func=
if [ "${1:-}" = --func ]; then
	func=func
	shift
fi
n=${1:-40}
tc=$(command -v trace-cmd) || { echo "make-text-samples: trace-cmd is needed" >&2; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/vm.sh" --out "$work/r" --add "$tc" --timeout 300 --script "$here/guest-text.sh" -- "$n" $func ||
	exit $?
mkdir -p "$out"
if [ -n "$func" ]; then
	for f in func.dat func.cmd func-cat.txt func-offset.txt; do
		cp "$work/r/$f" "$out/$f"
	done
	trace-cmd report "$out/func.dat" >"$out/func-report.txt" 2>/dev/null
	trace-cmd report -R "$out/func.dat" >"$out/func-raw.txt" 2>/dev/null
	ls -l "$out"/func*
	exit 0
fi
for f in preads.dat preads.cmd preads-default.txt preads-abstime.txt preads-lat.txt; do
	cp "$work/r/$f" "$out/$f"
done
trace-cmd report "$out/preads.dat" >"$out/preads-report.txt" 2>/dev/null
trace-cmd report -l -t "$out/preads.dat" >"$out/preads-report-lt.txt" 2>/dev/null
ls -l "$out"
