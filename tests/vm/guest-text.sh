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
#   guest-text.sh [N [PART...]]   N preads of each kind (default 12); the
#     PARTs (default preads): preads (the above), func (the function
#     tracer), fgopt (function_graph's options), annot (buffer annotations),
#     sys (system call events, print-tgid, probes on system calls);
#     see each PART_text below
#
# Reading `trace` does not consume the buffer, and the funcgraph-* print
# options only change how it is printed, so the texts and the .dat hold the
# same events.  The exit status is non-zero if anything failed.

set -e

T=/sys/kernel/tracing
S=${SCRATCH:?}
N=${1:-12}

say() { echo "guest-text: $*"; }
# for the .cmd files (its --version also prints its usage, one line of
# which has the word "version")
tc_version() { echo "trace-cmd $(trace-cmd --version 2>&1 | grep -m1 '^trace-cmd version')"; }
opt() { echo "$2" >"$T/options/$1"; }

# set_ftrace_filter FUNC...: the functions the kernel can trace, one write
# each (one name it does not know fails the whole write: EINVAL); the names
# taken go to $OUT/filter.txt
set_filter() {
	: >"$OUT/filter.txt"
	for f in "$@"; do
		if echo "$f" >>$T/set_ftrace_filter 2>/dev/null; then
			echo "$f" >>"$OUT/filter.txt"
		else
			say "set_ftrace_filter: $f is not traceable on $(uname -r), left out"
		fi
	done
	[ -s "$OUT/filter.txt" ] || { say "no function of the filter is traceable"; exit 1; }
}

# trace-cmd extract of the buffer into $OUT/$1.dat
extract() {
	trace-cmd extract -o "$OUT/$1.dat" >"$OUT/extract.log" 2>&1 ||
		{ cat "$OUT/extract.log"; say "trace-cmd extract failed"; exit 1; }
}

# kallsyms as trace-cmd sees it: the functions text $1 names (and the
# trampoline the stacks start in), a bind mount, to keep the .dat small;
# every address the texts resolve is still resolved the same
small_kallsyms() {
	umount /proc/kallsyms 2>/dev/null || true
	awk 'NR == FNR { for (i = 1; i <= NF; i++) { w = $i; sub(/^(<-|\()/, "", w)
			sub(/[+(].*/, "", w); want[w] = 1 }; next }
		($3 in want) || $3 == "ftrace_trampoline"' "$1" /proc/kallsyms >/tmp/kallsyms.small
	mount --bind /tmp/kallsyms.small /proc/kallsyms ||
		{ say "cannot bind-mount over /proc/kallsyms"; exit 1; }
}

# The function tracer with func_stack_trace, filtered to a few functions of
# the pread path (each hit a function event and a kernel_stack event), the
# same buffer saved as `cat trace` (default, then sym-offset) and as
# trace.dat:  func-cat.txt, func-offset.txt, func.dat, func.cmd; and with
# latency-format (func-lat.txt: the latency tracers' line form, which the
# reader refuses).  Where the
# kernel has func-args (6.15 on, CONFIG_FUNCTION_TRACE_ARGS) it is on: each
# function event holds the argument registers, printed "func(a=0x1, ...)".
func_text() {
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	set_filter __x64_sys_pread64 vfs_read submit_bio blk_mq_start_request
	echo function >$T/current_tracer
	opt func_stack_trace 1
	ls $T/options >"$OUT/func-options.txt"
	echo 1 >$T/events/sched/sched_switch/enable
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload preads "$S/cold" "$S/warm" "$N"
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/func-cat.txt"
	opt sym-offset 1
	cat $T/trace >"$OUT/func-offset.txt"
	opt sym-offset 0
	opt latency-format 1
	cat $T/trace >"$OUT/func-lat.txt"
	opt latency-format 0
	small_kallsyms "$OUT/func-cat.txt"
	extract func
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "current_tracer function, func_stack_trace 1, set_ftrace_filter" \
			"$(tr '\n' ' ' <"$OUT/filter.txt")(buffer 4096 KiB)"
		echo "events sched_switch; trace-cmd saw a /proc/kallsyms of the" \
			"$(wc -l </tmp/kallsyms.small) symbols the texts name"
		echo "vm-workload preads cold(16 MiB) warm(1 MiB) $N"
		tc_version
	} >"$OUT/func.cmd"
	umount /proc/kallsyms
	opt func_stack_trace 0
	! grep -qx func-args "$OUT/func-options.txt" || func_args_text
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	events_off
	wc -c "$OUT"/func*
}

# func-args (6.15 on, CONFIG_FUNCTION_TRACE_ARGS; the kernel refuses it
# beside func_stack_trace: EINVAL): a second trace of the same filter, each
# function event with the argument registers, "func(a=0x1, ...) <-parent":
# func-args.txt (`cat trace`), func-args.dat
func_args_text() {
	# trace-cmd extract reset the tracer, the filter and the events
	set_filter $(cat "$OUT/filter.txt")
	echo function >$T/current_tracer
	opt func-args 1
	echo 1 >$T/events/sched/sched_switch/enable
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload preads "$S/cold" "$S/warm" "$N"
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/func-args.txt"
	# one run saved a trace of the nop tracer here (sched_switch alone)
	head -1 "$OUT/func-args.txt" | grep -qx '# tracer: function' ||
		{ say "func-args.txt: $(head -1 "$OUT/func-args.txt"), not the function tracer"; exit 1; }
	small_kallsyms "$OUT/func-args.txt"
	extract func-args
	umount /proc/kallsyms
	echo "func-args: the same with func-args 1 and func_stack_trace 0" >>"$OUT/func.cmd"
	opt func-args 0
}

events_off() {
	echo 0 >$T/events/enable
}

# function_graph with the options of the kernel, one trace printed with
# each print option (fg.dat, fg-*.txt; fgopt.cmd): graph rooted at
# __x64_sys_pread64, depth 4, sched_switch; funcgraph-args where the kernel
# has it (7.3; recorded: each entry holds the argument registers).
#   fg-args.txt    the defaults (with funcgraph-args: "func(a=0x1) {")
#   fg-tail.txt    funcgraph-tail ("} /* func */") and funcgraph-proc
#   fg-bare.txt    funcgraph-duration, -cpu and -overhead off, -abstime on
# Then a second trace with the options that change what is recorded:
# funcgraph-irqs 0 (no interrupts in the graph) and sleep-time 0 (a call's
# time without the time its task slept): fg-quiet.txt and fg-quiet.dat.
# graph-time only changes the function profiler's times: not here.
fgopt_text() {
	local args=
	grep -qw function_graph $T/available_tracers ||
		{ say "function_graph is not available in this kernel"; exit 1; }
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	graph_setup
	[ -e $T/options/funcgraph-args ] && opt funcgraph-args 1 && args="funcgraph-args 1, "
	graph_run fg-args
	opt funcgraph-tail 1
	opt funcgraph-proc 1
	cat $T/trace >"$OUT/fg-tail.txt"
	opt funcgraph-tail 0
	opt funcgraph-proc 0
	opt funcgraph-duration 0
	opt funcgraph-cpu 0
	opt funcgraph-overhead 0
	opt funcgraph-abstime 1
	cat $T/trace >"$OUT/fg-bare.txt"
	opt funcgraph-duration 1
	opt funcgraph-cpu 1
	opt funcgraph-overhead 1
	opt funcgraph-abstime 0
	small_kallsyms "$OUT/fg-args.txt"
	extract fg
	umount /proc/kallsyms
	graph_setup
	opt funcgraph-irqs 0
	opt sleep-time 0
	graph_run fg-quiet
	small_kallsyms "$OUT/fg-quiet.txt"
	extract fg-quiet
	umount /proc/kallsyms
	opt funcgraph-irqs 1
	opt sleep-time 1
	[ -z "$args" ] || opt funcgraph-args 0
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "current_tracer function_graph, ${args}set_graph_function __x64_sys_pread64," \
			"max_graph_depth 4, buffer 4096 KiB; events sched_switch"
		echo "fg-quiet: the same with funcgraph-irqs 0 and sleep-time 0"
		echo "vm-workload preads cold(16 MiB) warm(1 MiB) $N (each trace)"
		tc_version
	} >"$OUT/fgopt.cmd"
	echo nop >$T/current_tracer
	echo >$T/set_graph_function
	events_off
	wc -c "$OUT"/fg*
}

# the graph of fgopt_text; again after trace-cmd extract (which resets the
# tracer and the events)
graph_setup() {
	echo __x64_sys_pread64 >$T/set_graph_function
	echo 4 >$T/max_graph_depth
	echo function_graph >$T/current_tracer
	echo 1 >$T/events/sched/sched_switch/enable
}

# a trace of the preads workload into the cleared buffer, `cat trace` of it
# with the options set now into $OUT/$1.txt
graph_run() {
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload preads "$S/cold" "$S/warm" "$N"
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/$1.txt"
}

# The annotations of real recordings (annot.cmd):
#   overrun.txt, overrun.dat: sched, irq and raw_syscalls events of the
#     cpuhog workload into a 16 KiB buffer that overruns: `cat trace` then
#     says "##### CPU N buffer started ####" where a CPU's events start
#     after the other's (the kernel annotates a buffer that lost events);
#   cpu0.dat: sched events with tracing_cpumask 1 (CPU 0 only): CPU 1
#     recorded nothing, `trace-cmd report` says "CPU 1 is empty".
annot_events() {
	for e in sched/sched_switch sched/sched_wakeup sched/sched_waking irq raw_syscalls; do
		echo 1 >"$T/events/$e/enable"
	done
}

annot_text() {
	echo 0 >$T/tracing_on
	echo 16 >$T/buffer_size_kb
	annot_events
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload cpuhog "$S/warm" 200 64
	vm-workload preads "$S/cold" "$S/warm" "$N"
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/overrun.txt"
	grep -q '^##### CPU' "$OUT/overrun.txt" || say "warning: overrun.txt has no '##### CPU' line"
	cat $T/per_cpu/cpu*/stats >"$OUT/overrun-stats.txt"
	small_kallsyms "$OUT/overrun.txt"
	extract overrun
	annot_events
	echo 1 >$T/tracing_cpumask
	echo 1408 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/tracing_on
	taskset 1 vm-workload preads "$S/cold" "$S/warm" 4 2>/dev/null ||
		vm-workload preads "$S/cold" "$S/warm" 4
	echo 0 >$T/tracing_on
	extract cpu0
	umount /proc/kallsyms
	echo 3 >$T/tracing_cpumask
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "overrun: events sched_switch sched_wakeup sched_waking irq raw_syscalls, buffer 16 KiB;" \
			"vm-workload cpuhog warm(1 MiB) 200 64, then preads cold warm $N"
		echo "cpu0: the same events, tracing_cpumask 1, buffer 1408 KiB; vm-workload preads cold warm 4"
		tc_version
	} >"$OUT/annot.cmd"
	events_off
	wc -c "$OUT"/overrun* "$OUT"/cpu0*
}

# System calls as text (sys.cmd): every syscalls event of the comms sh and
# vm-workload into a 256 KiB buffer, one short run (a fork of sh: clone; a
# "test -t": ioctl; the workload's openat, pread64, close), then the same
# buffer saved as:
#   sys-cat.txt    `cat trace`: "sys_openat(dfd: 0xffffff9c, ...)",
#                  "sys_openat -> 0x3"
#   sys-tgid.txt   the same with the TGID column: "COMM-PID (TGID) [CPU]"
#                  and its header line (the option record-tgid, once
#                  print-tgid)
#   sys.dat        `trace-cmd extract`
# and, where the kernel has them (dynamic_events: eprobes 5.15 on, fprobes
# 6.5 on), probes on the same system calls with named arguments, a second
# trace: sysprobe-cat.txt and sysprobe.dat (eprobes on sys_enter_openat,
# with the path as a string, and sys_enter_pread64: "openat_e:
# (syscalls.sys_enter_openat) dfd=0xffffff9c path=\"/x\" flags=0x0"; an
# fprobe on __x64_sys_pread64 and its return: "pread_f: (__x64_sys_pread64)
# regs=0x...", "pread_x: (__x64_sys_pread64 <- do_syscall_64+0x..) ret=0x1000";
# a kprobe and a kretprobe on it: "pread_k: (__x64_sys_pread64+0x0/0xb0)").
sys_events() {
	for s in openat pread64 close ioctl clone clone3 wait4 exit_group; do
		for d in enter exit; do
			e=$T/events/syscalls/sys_${d}_$s
			[ -d "$e" ] || continue
			echo 'comm == "sh" || comm == "vm-workload"' >"$e/filter"
			echo 1 >"$e/enable"
		done
	done
}

sys_run() {
	echo >$T/trace
	echo 1 >$T/tracing_on
	sh -c "test -t 1; vm-workload preads $S/cold $S/warm 2 >/dev/null"
	echo 0 >$T/tracing_on
}

sys_text() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo 256 >$T/buffer_size_kb
	sys_events
	# the TGID column: print-tgid (4.13) became record-tgid (4.14 on),
	# which also fills the pid-to-tgid map the column is printed from: on
	# while recording, off for the plain text
	tgid=record-tgid
	[ -e $T/options/$tgid ] || tgid=print-tgid
	opt $tgid 1
	sys_run
	opt $tgid 0
	cat $T/trace >"$OUT/sys-cat.txt"
	opt $tgid 1
	cat $T/trace >"$OUT/sys-tgid.txt"
	opt $tgid 0
	small_kallsyms "$OUT/sys-cat.txt"
	extract sys
	umount /proc/kallsyms
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "sys: events syscalls sys_enter_/sys_exit_ openat pread64 close ioctl clone" \
			"clone3 wait4 exit_group (those the kernel has), filter comm sh or vm-workload," \
			"buffer 256 KiB; sh -c 'test -t 1; vm-workload preads cold warm 2'"
		echo "sys-tgid.txt: the same buffer with $tgid 1"
		tc_version
	} >"$OUT/sys.cmd"
	events_off
	if [ -e $T/dynamic_events ]; then sysprobe_text; else say "no dynamic_events"; fi
	wc -c "$OUT"/sys*
}

# dyn KIND DEFINITION...: each definition into dynamic_events; KIND added
# to $kinds if all were taken, else the kernel's error_log said
dyn() {
	local kind=$1 d
	shift
	for d in "$@"; do
		echo "$d" >>$T/dynamic_events 2>/dev/null && continue
		say "dynamic_events refused '$d': $(tail -2 $T/error_log 2>/dev/null | tr '\n' ' ')"
		return 0
	done
	kinds="$kinds $kind"
}

# eprobes, fprobes and kprobes on system calls: each kind the kernel's README names
sysprobe_text() {
	kinds=
	echo >$T/dynamic_events
	# the README's syntax lines: "e[:[<group>/][<event>]] <attached-group>..."
	grep -q '^[[:space:]]*e\[:\[' $T/README &&
		dyn eprobe 'e:sysprobe/openat_e syscalls.sys_enter_openat dfd=$dfd path=+0($filename):ustring flags=$flags' \
			'e:sysprobe/pread_e syscalls.sys_enter_pread64 fd=$fd count=$count pos=$pos'
	grep -q '^[[:space:]]*f\[:\[' $T/README &&
		dyn fprobe 'f:sysprobe/pread_f __x64_sys_pread64 regs=$arg1' \
			'f:sysprobe/pread_x __x64_sys_pread64%return ret=$retval'
	[ -e $T/kprobe_events ] &&
		dyn kprobe 'p:sysprobe/pread_k __x64_sys_pread64 regs=%di' \
			'r:sysprobe/pread_r __x64_sys_pread64 ret=$retval'
	[ -n "$kinds" ] || { say "no eprobe, fprobe or kprobe taken by this kernel"; return 0; }
	cat $T/dynamic_events >"$OUT/sysprobe-events.txt"
	echo 'comm == "vm-workload"' >$T/events/sysprobe/filter 2>/dev/null || true
	echo 1 >$T/events/sysprobe/enable
	echo >$T/trace
	echo 1 >$T/tracing_on
	vm-workload preads "$S/cold" "$S/warm" 2 >/dev/null
	echo 0 >$T/tracing_on
	cat $T/trace >"$OUT/sysprobe-cat.txt"
	small_kallsyms "$OUT/sysprobe-cat.txt"
	extract sysprobe
	umount /proc/kallsyms
	echo 0 >$T/events/sysprobe/enable
	echo >$T/dynamic_events
	echo "sysprobe:$kinds: $(tr '\n' ';' <"$OUT/sysprobe-events.txt")" \
		"filter comm vm-workload; vm-workload preads cold warm 2" >>"$OUT/sys.cmd"
}

preads_text() {
	grep -qw function_graph $T/available_tracers ||
		{ say "function_graph is not available in this kernel"; exit 1; }
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
	extract preads
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		echo "set_graph_function __x64_sys_pread64, max_graph_depth 6, buffer 8192 KiB"
		echo "events sched_switch sched_wakeup sched_waking irq irq_vectors"
		echo "vm-workload preads cold(16 MiB) warm(1 MiB) $N"
		tc_version
	} >"$OUT/preads.cmd"
	wc -c "$OUT"/preads*
	echo nop >$T/current_tracer
	echo >$T/set_graph_function
	events_off
}

vm-workload prepare "$S/cold" 16 cold
vm-workload prepare "$S/warm" 1 warm
sync
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- preads
for m in "$@"; do
	case $m in
	preads | func | fgopt | annot | sys) "${m}_text" ;;
	*) say "unknown part $m"; exit 2 ;;
	esac
done
say done
