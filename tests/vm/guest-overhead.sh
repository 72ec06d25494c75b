#!/bin/sh
# guest-overhead.sh: runs INSIDE the VM (busybox sh), started by
# tests/bench/bench-overhead.sh and tests/vm/tracer-cost.sh with darc,
# darc-record (and for the benchmark trace-cmd) added. The dio workload
# (vm-workload preads: N O_DIRECT 4 KiB preads of a cold file alternating
# with N cached ones), run the same way each time:
#
#   untraced      the workload alone                       (bench only)
#   trace-cmd     trace-cmd record -p function_graph -g __x64_sys_pread64
#                 with the bio kprobes, sched, irq and block events (bench only)
#   darc-record   darc-record -g __x64_sys_pread64 with the same kprobes (its
#                 default events: sched, irq, block); then darc explain of it
#                 in the guest (dio.db, beside it)
#   along         darc-record --along dio.db with the same kprobes, and its
#                 darc explain
#   filter        darc-record -g __x64_sys_pread64 -l vfs_read -l rw_verify_area
#                 -l ext4_file_read_iter --ftrace-notrace rw_verify_area: a plain
#                 function filter
#   tcstat        (test only) trace-cmd record of the stat workload, trace-cmd
#                 itself pinned with it to CPU 0 (taskset), a 256 KiB buffer
#                 (test only, N/4 reads of each kind)
#
# For each: the wall time of the whole command (set-up and write-out
# included: what the user waits for) and of the workload itself (timed by
# the shell that runs it, traced with it), into $OUT/times.txt as
# "NAME WALL_S WORKLOAD_S". Writes $OUT/dio.dat, dio.db, along.dat,
# along.db, tc.dat, filter.dat, tcstat.dat, the explains' text (*.explain)
# and logs.
#
#   guest-overhead.sh bench|test [N]      (N: preads of each kind, default 75)
set -e
S=${SCRATCH:?}
MODE=${1:?usage: guest-overhead.sh bench|test [N]}
N=${2:-75}
T=/sys/kernel/tracing
say() { echo "guest-overhead: $*"; }

# seconds since boot, in 10 ms steps
now() { cut -d' ' -f1 /proc/uptime; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# the workload, timed by itself: its seconds into $OUT/NAME.workload
# (/proc/uptime: 10 ms steps; busybox's date has no %N)
cat >/tmp/w.sh <<EOF
#!/bin/sh
read -r t0 x </proc/uptime
vm-workload preads $S/cold $S/warm \$2
read -r t1 x </proc/uptime
awk -v a="\$t0" -v b="\$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$OUT/\$1.workload"
EOF
chmod +x /tmp/w.sh

# NAME N CMD...: CMD's wall time and the workload's (/tmp/w.sh NAME N inside) into times.txt
timed() {
	name=$1
	shift
	t0=$(now)
	"$@" >"$OUT/$name.log" 2>&1 || { cat "$OUT/$name.log"; say "$name failed"; exit 1; }
	t1=$(now)
	echo "$name $(secs "$t0" "$t1") $(cat "$OUT/$name.workload")" >>"$OUT/times.txt"
	cat "$OUT/$name.log"
}

# the caches as each run finds them: the cold file not cached, the warm one cached
fresh() {
	echo 3 >/proc/sys/vm/drop_caches
	vm-workload prepare "$S/warm" 4 warm
}

explain() { # NAME: darc explain of NAME.dat in the guest (NAME.db beside it)
	darc explain "$OUT/$1.dat" >"$OUT/$1.explain" 2>&1 || {
		cat "$OUT/$1.explain"
		say "darc explain $1 failed"
		exit 1
	}
}

vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
sync
: >"$OUT/times.txt"
KP1='submit_bio bio=%di'
KP2='bio_endio bio=%di'

if [ "$MODE" = bench ]; then
	say "untraced"
	/tmp/w.sh warmup "$N" # a first run fills the caches the traced runs find filled
	fresh
	timed untraced /tmp/w.sh untraced "$N"

	say "trace-cmd"
	fresh
	echo "p:submit_bio $KP1" >$T/kprobe_events
	echo "p:bio_endio $KP2" >>$T/kprobe_events
	timed trace-cmd trace-cmd record -q -o "$OUT/tc.dat" -b 8192 -p function_graph \
		-g __x64_sys_pread64 -e kprobes -e block -e sched:sched_switch \
		-e sched:sched_wakeup -e sched:sched_waking -e irq /tmp/w.sh trace-cmd "$N"
	echo >$T/kprobe_events
fi

say "darc-record -g"
fresh
timed darc-record darc-record -o "$OUT/dio.dat" -b 8192 -g __x64_sys_pread64 \
	--kprobe "$KP1" --kprobe "$KP2" -- /tmp/w.sh darc-record "$N"
explain dio

say "darc-record --along"
fresh
timed along darc-record -o "$OUT/along.dat" -b 8192 --along "$OUT/dio.db" \
	--kprobe "$KP1" --kprobe "$KP2" -- /tmp/w.sh along "$N"
explain along

if [ "$MODE" = test ]; then
	say "darc-record -l, --ftrace-notrace"
	fresh
	timed filter darc-record -o "$OUT/filter.dat" -b 8192 -g __x64_sys_pread64 \
		-l vfs_read -l rw_verify_area -l ext4_file_read_iter --ftrace-notrace rw_verify_area \
		-- /tmp/w.sh filter $((N / 4))
	# what the filters left in tracefs afterwards: nothing (restored)
	cat $T/set_ftrace_filter $T/set_ftrace_notrace $T/set_graph_function >"$OUT/filters-after.txt"

	# trace-cmd and the stat workload on one CPU, with a small buffer: its
	# reader of that CPU's buffer can only run by preempting the workload
	# (1000 calls: a call the emulation stalls for half a second, as the host
	# takes the CPU away, must not be a slow part of its own, over 5%)
	say "trace-cmd beside the workload on CPU 0"
	taskset -c 0 trace-cmd record -o "$OUT/tcstat.dat" -b 256 -p function_graph \
		-g __x64_sys_newfstatat -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_waking vm-workload stat "$S/deep" 16 1000 \
		>"$OUT/tcstat.log" 2>&1 || { cat "$OUT/tcstat.log"; say "trace-cmd failed"; exit 1; }
fi
cat "$OUT/times.txt"
say "done"
