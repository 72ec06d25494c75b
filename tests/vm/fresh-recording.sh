#!/bin/bash
# fresh-recording.sh: end-to-end test of darc on recordings nobody has seen.
# Boots the VM lab (Debian's stock kernel under qemu TCG), makes NEW
# trace-cmd recordings of the same kinds as samples/vm-*.dat (function_graph
# + kprobes + block + sched + irq + irq_vectors; the O_DIRECT one also on 8
# CPUs), converts to v6, checks
# them with trace-cmd on the host, then runs
# tests/golden/cmp-report.sh and check-analyze.sh DARC FILE on each.
#
#   tests/vm/fresh-recording.sh [--keep DIR] [--lab-only] [DARC]
#
# DARC defaults to $DARC.  --lab-only makes and checks the recordings
# without darc (to test the lab itself).  --keep DIR keeps the recordings.
# Exit status: 0 pass, 1 fail, 77 skip (no darc, qemu, kernel or trace-cmd).

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CMP=$TOP/tests/golden/cmp-report.sh
CHECK=$TOP/tests/golden/check-analyze.sh
KEEP=
LAB_ONLY=0
DARC_BIN=${DARC:-}

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=$2; shift 2 ;;
	--lab-only) LAB_ONLY=1; shift ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fresh-recording: unknown option $1" >&2; exit 2 ;;
	*) DARC_BIN=$1; shift ;;
	esac
done

say() { echo "fresh-recording: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

if [ "$LAB_ONLY" = 0 ]; then
	[ -n "$DARC_BIN" ] || skip "no darc binary given (argument or \$DARC)"
	[ -x "$DARC_BIN" ] || skip "darc binary not found: $DARC_BIN"
	DARC_BIN=$(realpath "$DARC_BIN")
	[ -f "$CMP" ] || skip "$CMP not found"
fi
TRACE_CMD=$(command -v trace-cmd) || skip "trace-cmd not installed on the host"

if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" || fail "cannot create $KEEP"
	WORK=$(cd "$KEEP" && pwd)
	rm -rf "$WORK/vm"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-fresh.XXXXXX") || fail "mktemp"
	trap 'rm -rf "$WORK"' EXIT
fi

start=$SECONDS
rc=0
"$HERE/vm.sh" --out "$WORK/vm" --add "$TRACE_CMD" --timeout 300 \
	--script "$HERE/guest-record.sh" -- --quick odirect zeroread cpuhog || rc=$?
case $rc in
0) ;;
77) skip "the VM lab cannot run here (see above)" ;;
*) fail "the VM run failed (status $rc; console log: $WORK/vm/vm-console.log)" ;;
esac
say "VM boot + 3 recordings took $((SECONDS - start))s"

"$TRACE_CMD" convert --file-version 6 -i "$WORK/vm/odirect.dat" \
	-o "$WORK/vm/odirect-v6.dat" >"$WORK/convert.log" 2>&1 ||
	{ cat "$WORK/convert.log"; fail "trace-cmd convert --file-version 6 failed"; }

# The lab itself: trace-cmd must read each recording, with the right events.
all=funcgraph,kprobe,kretprobe,sched_switch,irq,irq_vectors
check() {
	"$HERE/check-recording.sh" --require "$1" "$2" || fail "$2 is not a good recording"
}
check "$all,bio,block,irq_handler,sched_wakeup" "$WORK/vm/odirect.dat"
check "$all,bio,block,irq_handler,sched_wakeup" "$WORK/vm/odirect-v6.dat"
check "$all" "$WORK/vm/zeroread.dat"
check "$all,sched_wakeup" "$WORK/vm/cpuhog.dat"

if [ "$LAB_ONLY" = 1 ]; then
	say "PASS (lab only) in $((SECONDS - start))s"
	exit 0
fi

# Eight CPUs: more streams than the reader reads ahead in full for (and
# some CPUs with no events at all).
start8=$SECONDS
rc=0
"$HERE/vm.sh" --out "$WORK/vm8" --smp 8 --add "$TRACE_CMD" --timeout 300 \
	--script "$HERE/guest-record.sh" -- --quick odirect || rc=$?
[ "$rc" = 0 ] || fail "the 8-CPU VM run failed (status $rc; console log: $WORK/vm8/vm-console.log)"
"$TRACE_CMD" convert --file-version 6 -i "$WORK/vm8/odirect.dat" \
	-o "$WORK/vm8/odirect-v6.dat" >"$WORK/convert8.log" 2>&1 ||
	{ cat "$WORK/convert8.log"; fail "trace-cmd convert --file-version 6 failed (8 CPUs)"; }
check "$all,bio,block" "$WORK/vm8/odirect.dat"
mkdir -p "$WORK/vm/8cpus"
mv "$WORK/vm8/odirect.dat" "$WORK/vm/8cpus/odirect.dat"
mv "$WORK/vm8/odirect-v6.dat" "$WORK/vm/8cpus/odirect-v6.dat"
say "8-CPU VM boot + recording took $((SECONDS - start8))s"

failed=0 skipped=0 passed=0
for f in odirect.dat odirect-v6.dat zeroread.dat cpuhog.dat 8cpus/odirect.dat 8cpus/odirect-v6.dat; do
	# the dump against trace-cmd, then the analysis: every number adds up
	for check in "$CMP" "$CHECK"; do
		rc=0
		bash "$check" "$DARC_BIN" "$WORK/vm/$f" || rc=$?
		case $rc in
		0) passed=$((passed + 1)) ;;
		77) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)); say "$(basename "$check") fails on fresh $f" ;;
		esac
	done
done
say "$passed passed, $failed failed, $skipped skipped in $((SECONDS - start))s"
[ "$failed" = 0 ] || { [ -n "$KEEP" ] || say "(use --keep DIR to keep the recordings)"; exit 1; }
[ "$passed" -gt 0 ] || exit 77
exit 0
