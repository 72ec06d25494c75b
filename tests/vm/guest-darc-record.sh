#!/bin/sh
# guest-darc-record.sh: runs INSIDE the VM (busybox sh), started by
# tests/vm/record-e2e.sh with darc-record and trace-cmd added. Records the
# O_DIRECT workload twice, once with darc-record and once with trace-cmd
# (function_graph rooted at __x64_sys_pread64, the pread syscall's entry,
# kprobes on submit_bio/bio_endio with the bio pointer, block, sched and irq
# events; darc-record also a uprobe and uretprobe on the workload's libc
# pread64, which trace-cmd cannot make), and saves the tracefs state
# before and after darc-record runs. First, on the freshly booted kernel (its
# top-level ring buffer not allocated yet: "7 (expanded: 1408)"), a
# tracepoint-only recording in darc-record's own instances. Writes to $OUT:
#   state-fresh.txt, tp.dat, tp.log, state-tp.txt   that first recording
#   darc.dat, darc.log     darc-record's bundle and output
#   tc.dat, tc.log         trace-cmd's recording of the same workload
#   state-before.txt, state-after.txt   the tracefs files darc-record touches
#   check.txt              darc-record --check
set -e
T=/sys/kernel/tracing
S=${SCRATCH:?}
say() { echo "guest-darc-record: $*"; }

# every file darc-record may change, and the instances and probes present
state() {
	for f in current_tracer tracing_on trace_clock buffer_size_kb set_ftrace_pid \
		set_event_pid set_graph_function set_graph_notrace max_graph_depth trace_options \
		kprobe_events uprobe_events set_event set_ftrace_filter set_ftrace_notrace; do
		# buffer_size_kb as it reads: "7 (expanded: 1408)" on a fresh boot
		[ -e "$T/$f" ] && { echo "== $f"; sort "$T/$f"; }
	done
	echo "== instances"
	ls $T/instances
	echo "== enabled events"
	grep -l '^1' $T/events/*/*/enable 2>/dev/null | sort || true
}

vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
sync

# the fresh kernel: instance-mode tracepoints only
state >"$OUT/state-fresh.txt"
say "darc-record, tracepoints on a fresh kernel"
if ! darc-record -o "$OUT/tp.dat" -e sched:sched_switch -e raw_syscalls \
	-- /bin/busybox ls / >"$OUT/tp.log" 2>&1; then
	cat "$OUT/tp.log"
	say "darc-record (tracepoints) failed"
	exit 1
fi
state >"$OUT/state-tp.txt"

darc-record --check >"$OUT/check.txt" 2>&1 || true
state >"$OUT/state-before.txt"
say "darc-record"
# shellcheck disable=SC2016 # $retval is for the kernel
if ! darc-record -o "$OUT/darc.dat" -q -b 8192 -g __x64_sys_pread64 --max-depth 8 \
	--kprobe 'submit_bio bio=%di' --kprobe 'bio_endio bio=%di' \
	-U /usr/local/bin/vm-workload:pread64 -e block -e irq -e irq_vectors -e raw_syscalls \
	-- vm-workload odirect "$S/cold" "$S/warm" 24 >"$OUT/darc.log" 2>&1; then
	cat "$OUT/darc.log"
	say "darc-record failed"
	exit 1
fi
state >"$OUT/state-after.txt"
cat "$OUT/darc.log"

say "trace-cmd"
echo 'p:submit_bio submit_bio bio=%di' >$T/kprobe_events
echo 'p:bio_endio bio_endio bio=%di' >>$T/kprobe_events
if ! trace-cmd record -o "$OUT/tc.dat" -b 8192 -p function_graph -g __x64_sys_pread64 \
	--max-graph-depth 8 -e kprobes -e block -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_waking -e irq -e irq_vectors \
	vm-workload odirect "$S/cold" "$S/warm" 24 >"$OUT/tc.log" 2>&1; then
	cat "$OUT/tc.log"
	say "trace-cmd record failed"
	exit 1
fi
echo >$T/kprobe_events
say "done"
