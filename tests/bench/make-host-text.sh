#!/bin/bash
# Makes samples/text/host-*: ONE recording of tracepoints (nop tracer) on
# this host, saved as trace.dat and as the texts people post of it, so that
# the text reader's results can be held against the trace.dat's
# (tests/golden/text-forms.sh). Root and tracefs needed; run by hand.
#
# The events are recorded in a tracefs instance of their own (the top
# buffer is left to whoever uses it): sched_switch/wakeup/waking, irq
# handler and softirq events, every block event, and the openat/pread64/
# fsync system calls of dd and cat, with a stacktrace trigger on
# block_rq_issue (a kernel_stack event after each). Saved as:
#   host-events.dat         trace-cmd extract -B (v7)
#   host-events-cat.txt     cat trace (default options, "# tracer: nop")
#   host-events-report.txt  trace-cmd report
#   host-events-raw.txt     trace-cmd report -R (raw fields)
# Reading trace does not consume the buffer, so all four hold the same
# events. (trace_pipe prints what trace does without the header; extract
# removes the instance, so the test makes the pipe's text from the cat's.)
#
# Usage: make-host-text.sh OUTDIR
set -eu
out=${1:?usage: make-host-text.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
T=/sys/kernel/tracing
inst=darc-text-$$
I=$T/instances/$inst
work=$(mktemp -d /var/tmp/darc-text.XXXXXX)
cleanup() {
	[ -d "$I" ] || { rm -rf "$work"; return; }
	echo 0 >"$I/tracing_on" 2>/dev/null || true
	echo '!stacktrace' >"$I/events/block/block_rq_issue/trigger" 2>/dev/null || true
	echo >"$I/set_event" 2>/dev/null || true
	rmdir "$I" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$I"
echo 0 >"$I/tracing_on" # a new instance traces from the start: not before the filters
echo 2048 >"$I/buffer_size_kb"
for e in sched:sched_switch sched:sched_wakeup sched:sched_waking irq:irq_handler_entry \
	irq:irq_handler_exit irq:softirq_entry irq:softirq_exit irq:softirq_raise 'block:*' \
	syscalls:sys_enter_openat syscalls:sys_exit_openat syscalls:sys_enter_pread64 \
	syscalls:sys_exit_pread64 syscalls:sys_enter_fsync syscalls:sys_exit_fsync; do
	echo "$e" >>"$I/set_event"
done
who='comm == "dd" || comm == "cat"'
for s in openat pread64 fsync; do
	for d in enter exit; do
		echo "$who" >"$I/events/syscalls/sys_${d}_$s/filter"
	done
done
# the host is busy: the scheduler and irq events of dd and cat only
who='comm == "dd" || comm == "cat"'
for e in sched_wakeup sched_waking; do echo "$who" >"$I/events/sched/$e/filter"; done
echo 'prev_comm == "dd" || prev_comm == "cat" || next_comm == "dd" || next_comm == "cat"' \
	>"$I/events/sched/sched_switch/filter"
for e in irq_handler_entry irq_handler_exit softirq_entry softirq_exit softirq_raise; do
	echo "$who" >"$I/events/irq/$e/filter"
done
echo stacktrace >"$I/events/block/block_rq_issue/trigger"
echo >"$I/trace"
echo 1 >"$I/tracing_on"
dd if=/dev/urandom of="$work/f" bs=4k count=8 conv=fsync 2>/dev/null
# a cold read without dropping every cache: the file's own pages
dd if="$work/f" iflag=nocache count=0 2>/dev/null
cat "$work/f" >/dev/null
dd if="$work/f" of=/dev/null bs=4k count=4 iflag=direct 2>/dev/null
sleep 0.05
echo 0 >"$I/tracing_on"
cat "$I/trace" >"$out/host-events-cat.txt"
# kallsyms as trace-cmd sees it: only the functions the stack traces name
# (a bind mount in a mount namespace of its own), to keep the file small
grep -o '^ => [A-Za-z0-9_.]*' "$out/host-events-cat.txt" | cut -c5- | sort -u >"$work/names"
awk 'NR == FNR { want[$1] = 1; next } !/\[/ && ($3 in want)' "$work/names" /proc/kallsyms \
	>"$work/kallsyms"
# shellcheck disable=SC2016 # $0, $1 are the inner bash's
unshare -m --propagation private bash -c \
	'mount --bind "$1" /proc/kallsyms && exec trace-cmd extract -B "$2" --compression zstd -o "$0"' \
	"$out/host-events.dat" "$work/kallsyms" "$inst" >"$work/extract.log" 2>&1 ||
	{ cat "$work/extract.log"; exit 1; }
trace-cmd report "$out/host-events.dat" >"$out/host-events-report.txt"
trace-cmd report -R "$out/host-events.dat" >"$out/host-events-raw.txt"
ls -l "$out"/host-events*
