#!/bin/sh
# guest-text.sh: runs INSIDE the VM (busybox sh), started by tests/vm/vm.sh
# with trace-cmd added.  One function_graph trace of the preads workload,
# set up by hand through tracefs the way guest-record.sh's preads recording
# is (graph rooted at __x64_sys_pread64, depth 6, sched + irq + irq_vectors
# events), then the SAME buffer saved three ways as text and once as binary:
#
#   preads-default.txt   `cat trace` with the default options
#   preads-abstime.txt   `cat trace` with funcgraph-abstime and funcgraph-proc
#   preads-lat.txt       `cat trace` with latency-format (the irq-info column)
#   preads.dat           `trace-cmd extract` of the buffer afterwards
#
#   guest-text.sh [N]    N preads of each kind (default 12)
#   guest-text.sh N func  the function tracer instead (func_text below)
#
# Reading `trace` does not consume the buffer, and the funcgraph-* print
# options only change how it is printed, so the texts and the .dat hold the
# same events.  The exit status is non-zero if anything failed.

set -e

T=/sys/kernel/tracing
S=${SCRATCH:?}
N=${1:-12}

say() { echo "guest-text: $*"; }
opt() { echo "$2" >"$T/options/$1"; }

# The function tracer with func_stack_trace, filtered to a few functions of
# the pread path (each hit a function event and a kernel_stack event), the
# same buffer saved as `cat trace` (default, then sym-offset) and as
# trace.dat:  func-cat.txt, func-offset.txt, func.dat, func.cmd.
func_text() {
	vm-workload prepare "$S/cold" 16 cold
	vm-workload prepare "$S/warm" 1 warm
	sync
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	printf '%s\n' __x64_sys_pread64 vfs_read submit_bio blk_mq_start_request >$T/set_ftrace_filter
	echo function >$T/current_tracer
	opt func_stack_trace 1
	echo 1 >$T/events/sched/sched_switch/enable
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload preads "$S/cold" "$S/warm" "$N"
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/func-cat.txt"
	opt sym-offset 1
	cat $T/trace >"$OUT/func-offset.txt"
	opt sym-offset 0
	# kallsyms as trace-cmd sees it: the functions the texts name (and
	# the trampoline the stacks start in), a bind mount, to keep func.dat
	# small; every address the texts resolve is still resolved the same
	awk 'NR == FNR { for (i = 1; i <= NF; i++) { w = $i; sub(/^<-/, "", w)
			sub(/\+.*/, "", w); want[w] = 1 }; next }
		($3 in want) || $3 == "ftrace_trampoline"' "$OUT/func-cat.txt" /proc/kallsyms \
		>/tmp/kallsyms.func
	mount --bind /tmp/kallsyms.func /proc/kallsyms ||
		{ say "cannot bind-mount over /proc/kallsyms"; exit 1; }
	trace-cmd extract -o "$OUT/func.dat" >"$OUT/extract.log" 2>&1 ||
		{ cat "$OUT/extract.log"; say "trace-cmd extract failed"; exit 1; }
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "current_tracer function, func_stack_trace 1, set_ftrace_filter" \
			"__x64_sys_pread64 vfs_read submit_bio blk_mq_start_request, buffer 4096 KiB"
		echo "events sched_switch; trace-cmd saw a /proc/kallsyms of the" \
			"$(wc -l </tmp/kallsyms.func) symbols the texts name"
		echo "vm-workload preads cold(16 MiB) warm(1 MiB) $N"
		echo "trace-cmd $(trace-cmd --version 2>&1 | grep version)"
	} >"$OUT/func.cmd"
	opt func_stack_trace 0
	echo nop >$T/current_tracer
	wc -c "$OUT"/func*
	say done
	exit 0
}
[ "${2:-}" = func ] && func_text

grep -qw function_graph $T/available_tracers ||
	{ say "function_graph is not available in this kernel"; exit 1; }

vm-workload prepare "$S/cold" 16 cold
vm-workload prepare "$S/warm" 1 warm
sync

echo 0 >$T/tracing_on
echo 8192 >$T/buffer_size_kb
echo __x64_sys_pread64 >$T/set_graph_function
echo 6 >$T/max_graph_depth
echo function_graph >$T/current_tracer
for e in sched/sched_switch sched/sched_wakeup sched/sched_waking irq irq_vectors; do
	echo 1 >"$T/events/$e/enable"
done
echo >$T/trace
echo 1 >$T/tracing_on
vm-workload preads "$S/cold" "$S/warm" "$N"
echo 0 >$T/tracing_on

cat $T/trace >"$OUT/preads-default.txt"
opt funcgraph-abstime 1
opt funcgraph-proc 1
cat $T/trace >"$OUT/preads-abstime.txt"
opt funcgraph-abstime 0
opt funcgraph-proc 0
opt latency-format 1
cat $T/trace >"$OUT/preads-lat.txt"
opt latency-format 0
trace-cmd extract -o "$OUT/preads.dat" >"$OUT/extract.log" 2>&1 ||
	{ cat "$OUT/extract.log"; say "trace-cmd extract failed"; exit 1; }
{
	echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
	echo "set_graph_function __x64_sys_pread64, max_graph_depth 6, buffer 8192 KiB"
	echo "events sched_switch sched_wakeup sched_waking irq irq_vectors"
	echo "vm-workload preads cold(16 MiB) warm(1 MiB) $N"
	echo "trace-cmd $(trace-cmd --version 2>&1 | grep version)"
} >"$OUT/preads.cmd"
wc -c "$OUT"/preads*
echo nop >$T/current_tracer
say done
