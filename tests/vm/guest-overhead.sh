#!/bin/sh
# guest-overhead.sh: runs INSIDE the VM (busybox sh), started by
# tests/bench/bench-overhead.sh and tests/vm/tracer-cost.sh with darc,
# darc-record and trace-cmd added. The dio workload (vm-workload preads:
# N O_DIRECT 4 KiB preads of a cold file alternating with N cached ones),
# run the same way four times:
#
#   untraced      the workload alone
#   trace-cmd     trace-cmd record -p function_graph -g __x64_sys_pread64,
#                 the bio kprobes, sched, irq and block events
#   darc-record   darc-record -g __x64_sys_pread64 with the same kprobes (its
#                 default events: sched, irq, block)
#   along         darc-record --along of the darc-record run's analysis
#                 (darc explain in the guest), the same kprobes
#
# each with the wall time of the whole command (recording set-up and
# write-out included: what the user waits for) and of the workload itself
# (darc-record's manifest: its start and stop; trace-cmd and untraced: the
# workload's own run, timed around it), then darc explain of the along
# recording. Writes to $OUT: times.txt ("NAME WALL_S"), dio.dat, dio.db,
# along.dat, along.db, tc.dat, the explains' text (*.explain) and logs.
#
#   guest-overhead.sh [N]      (N: preads of each kind, default 75)
set -e
S=${SCRATCH:?}
N=${1:-75}
T=/sys/kernel/tracing
say() { echo "guest-overhead: $*"; }

# seconds since boot, to the ns where busybox date has %N, else /proc/uptime's 10 ms
now() {
	t=$(date +%s.%N 2>/dev/null)
	case $t in *N* | "") cut -d' ' -f1 /proc/uptime ;; *) echo "$t" ;; esac
}
timed() { # NAME CMD...: the wall time of CMD into times.txt
	name=$1
	shift
	t0=$(now)
	"$@"
	t1=$(now)
	echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >>"$OUT/times.txt"
}

vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
sync
: >"$OUT/times.txt"
W="vm-workload preads $S/cold $S/warm $N"
KP1='submit_bio bio=%di'
KP2='bio_endio bio=%di'

say "untraced"
# a first run fills the caches the way the traced ones find them
$W
echo 3 >/proc/sys/vm/drop_caches
vm-workload prepare "$S/warm" 4 warm
timed untraced $W

say "trace-cmd"
echo "p:submit_bio $KP1" >$T/kprobe_events
echo "p:bio_endio $KP2" >>$T/kprobe_events
timed trace-cmd trace-cmd record -q -o "$OUT/tc.dat" -b 8192 -p function_graph \
	-g __x64_sys_pread64 -e kprobes -e block -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_waking -e irq $W >"$OUT/tc.log" 2>&1
echo >$T/kprobe_events

say "darc-record -g"
timed darc-record darc-record -o "$OUT/dio.dat" -b 8192 -g __x64_sys_pread64 \
	--kprobe "$KP1" --kprobe "$KP2" -- $W >"$OUT/dio.log" 2>&1
cat "$OUT/dio.log"
say "darc explain (in the guest)"
darc explain "$OUT/dio.dat" >"$OUT/dio.explain" 2>&1 || {
	cat "$OUT/dio.explain"
	exit 1
}

say "darc-record --along"
timed along darc-record -o "$OUT/along.dat" -b 8192 --along "$OUT/dio.db" \
	--kprobe "$KP1" --kprobe "$KP2" -- $W >"$OUT/along.log" 2>&1
cat "$OUT/along.log"
darc explain "$OUT/along.dat" >"$OUT/along.explain" 2>&1 || {
	cat "$OUT/along.explain"
	exit 1
}
cat "$OUT/times.txt"
say "done"
