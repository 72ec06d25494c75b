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
#   make-text-samples.sh [--out DIR] [--kernel K] --fgopt --annot [N]:
#     function_graph's options (fgK.dat, fgK-{args,tail,bare}.txt,
#     fgK-quiet.{dat,txt}, fgK.cmd) and the buffer annotations of real
#     recordings (overrunK.dat, overrunK.txt: `cat trace` of a buffer that
#     overran, "##### CPU N buffer started ####"; onecpuK.dat and
#     onecpuK-report.txt: trace-cmd report of a trace with one CPU empty,
#     "CPU 1 is empty"; annotK.cmd); parts can be combined in one boot
#   --sys: system call events (sysK.dat, sysK-cat.txt: "sys_openat(dfd:
#     ...)" and "sys_openat -> 0x3"; sysK-tgid.txt: the same with
#     print-tgid; sysK.cmd) and, where the kernel has them, eprobes and
#     fprobes on system calls (sysKprobe.dat, sysKprobe-cat.txt)
#
# --kernel K boots that kernel (tests/vm/vm.sh --kernel); the samples of a
# kernel other than 6.1 carry its series in their names (func73*, fg73*).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/samples/text
kernel=6.1 parts=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--kernel) kernel=${2:?--kernel needs a kernel}; shift 2 ;;
	--func | --fgopt | --annot | --sys) parts+=("${1#--}"); shift ;;
	*) break ;;
	esac
done
n=${1:-40}
k=
[ "$kernel" = 6.1 ] || k=${kernel//./}
tc=$(command -v trace-cmd) || { echo "make-text-samples: trace-cmd is needed" >&2; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# no_timer_check: a loaded host sometimes makes 7.3's boot-time timer check fail
"$here/vm.sh" --kernel "$kernel" --append no_timer_check --out "$work/r" --add "$tc" \
	--timeout 500 --script "$here/guest-text.sh" -- "$n" "${parts[@]}" || exit $?
mkdir -p "$out"
# take FROM TO: a result of the guest into the samples
take() { cp "$work/r/$1" "$out/$2"; }
report() { trace-cmd report "$@" 2>/dev/null; }
for part in "${parts[@]}"; do
	case $part in
	func)
		take func.dat "func$k.dat"
		[ ! -f "$work/r/func-args.dat" ] || take func-args.dat "func$k-args.dat"
		take func.cmd "func$k.cmd"
		for t in cat offset lat args; do
			[ -f "$work/r/func-$t.txt" ] || continue
			take "func-$t.txt" "func$k-$t.txt"
		done
		report "$out/func$k.dat" >"$out/func$k-report.txt"
		report -R "$out/func$k.dat" >"$out/func$k-raw.txt"
		;;
	fgopt)
		take fgopt.cmd "fg$k.cmd"
		for f in fg.dat fg-args.txt fg-tail.txt fg-bare.txt fg-quiet.dat fg-quiet.txt; do
			take "$f" "fg$k${f#fg}"
		done
		;;
	annot)
		take overrun.dat "overrun$k.dat"
		take overrun.txt "overrun$k.txt"
		take cpu0.dat "onecpu$k.dat"
		take annot.cmd "annot$k.cmd"
		report "$out/onecpu$k.dat" >"$out/onecpu$k-report.txt"
		;;
	sys)
		for f in sys.dat sys.cmd sys-cat.txt sys-tgid.txt sysprobe.dat sysprobe-cat.txt; do
			[ ! -f "$work/r/$f" ] || take "$f" "${f/sys/sys$k}"
		done
		;;
	esac
done
if [ ${#parts[@]} -gt 0 ]; then
	ls -l "$out"/*"$k"*
	exit 0
fi
for f in preads.dat preads.cmd preads-default.txt preads-abstime.txt preads-lat.txt; do
	cp "$work/r/$f" "$out/$f"
done
trace-cmd report "$out/preads.dat" >"$out/preads-report.txt" 2>/dev/null
trace-cmd report -l -t "$out/preads.dat" >"$out/preads-report-lt.txt" 2>/dev/null
ls -l "$out"
