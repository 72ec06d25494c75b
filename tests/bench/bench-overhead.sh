#!/bin/bash
# bench-overhead.sh: what recording costs the workload, in the VM lab (issue
# [21]). The dio workload (N O_DIRECT and N cached 4 KiB preads,
# tests/vm/workload.c) run untraced, under trace-cmd record -p
# function_graph -g __x64_sys_pread64, under darc-record -g
# __x64_sys_pread64, and under darc-record --along the analysis of that
# recording (each with the bio kprobes and sched, irq and block events),
# one run each, in one boot (tests/vm/guest-overhead.sh bench).
#
#   tests/bench/bench-overhead.sh DARC DARC_RECORD [N] [--keep DIR]
#
# Prints a table: the wall time of the whole command (set-up, the
# recording, the write-out: what the user waits for), the workload's own
# time (timed by the shell that ran it, traced with it), the events
# recorded and the function_graph calls among them, and the tracer's cost
# per traced call as the recording knows it (darc-record's measured,
# trace-cmd's estimated). DARC_VM_KERNEL picks the kernel (vm.sh).
# Software emulation (TCG) exaggerates every ratio: the figures say how
# the recorders compare, not what they cost on hardware.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM=$HERE/../vm
DARC=$(realpath "${1:?usage: bench-overhead.sh DARC DARC_RECORD [N] [--keep DIR]}")
REC=$(realpath "${2:?usage: bench-overhead.sh DARC DARC_RECORD [N] [--keep DIR]}")
N=${3:-75}
KEEP=
[ "${4:-}" = --keep ] && KEEP=${5:-}
TRACE_CMD=$(command -v trace-cmd) || { echo "bench-overhead: no trace-cmd" >&2; exit 77; }
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" && WORK=$(cd "$KEEP" && pwd) && rm -rf "$WORK/vm"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-overhead.XXXXXX") || exit 1
	trap 'rm -rf "$WORK"' EXIT
fi
"$VM/vm.sh" --out "$WORK/vm" --add "$REC=/usr/local/bin/darc-record" \
	--add "$DARC=/usr/local/bin/darc" --add "$TRACE_CMD" --timeout 600 \
	--script "$VM/guest-overhead.sh" -- bench "$N" || exit
V=$WORK/vm

# NAME FILE: "events calls cost" of a recording ("- - -" for none)
counts() {
	[ -n "$2" ] || { echo "- - -"; return; }
	"$DARC" info --json "$V/$2" | python3 -c '
import json, sys
i = json.load(sys.stdin)
fg = i["events_by_name"].get("ftrace:funcgraph_exit", 0)
c = (i["tracer_cost"] or {}).get("function_graph") or {}
print(i["events"], fg, "%.2f us (%s)" % (c["ns"] / 1000, c["source"]) if c.get("ns") else "-")'
}
kern=$(sed -n 's/^vm-init: ready: \([^,]*\),.*/\1/p' "$V/vm-console.log")
echo "dio workload: $N O_DIRECT + $N cached 4 KiB preads; kernel $kern under qemu TCG"
echo
echo "| run | wall (s) | workload (s) | events | function_graph calls | cost of a traced call |"
echo "|-----|---------:|-------------:|-------:|--------:|------|"
while read -r name wall work; do
	case $name in
	untraced) file= ;; trace-cmd) file=tc.dat ;; darc-record) file=dio.dat ;; along) file=along.dat ;;
	esac
	read -r ev calls cost <<<"$(counts "$name" "$file")"
	label=$name
	case $name in
	trace-cmd) label='trace-cmd record -p function_graph -g' ;;
	darc-record) label='darc-record -g' ;;
	along) label='darc-record --along' ;;
	esac
	echo "| $label | $wall | $work | $ev | $calls | $cost |"
done <"$V/times.txt"
grep "^darc-record: along" "$V/along.log" | sed 's/^/    /'
grep "^darc: along\|^darc: warning: along" "$V/along.explain" | sed 's/^/    /'
