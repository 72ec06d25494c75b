#!/bin/bash
# tracefs-state.sh [TRACEFS]: print the tracefs settings darc-record may touch, one
# "file: content" line each, so that a before/after diff shows what was left changed:
# current_tracer, tracing_on, the pid filters, graph functions and depth, every option,
# kprobe_events, uprobe_events, dynamic_events, the enabled events, every event filter
# that is set, the clock, the buffer sizes, and the instances.
t=${1:-/sys/kernel/tracing}
show() {
	local f=$1
	[ -e "$t/$f" ] || return 0
	printf '%s: %s\n' "$f" "$(tr '\n' '|' 2>/dev/null <"$t/$f")"
}
for f in current_tracer tracing_on set_ftrace_pid set_event_pid set_graph_function \
	set_graph_notrace max_graph_depth kprobe_events uprobe_events dynamic_events set_event \
	trace_clock buffer_size_kb buffer_percent saved_cmdlines_size; do
	show "$f"
done
for f in "$t"/options/*; do show "options/${f##*/}"; done
# event filters that are set (grep -L would list the files still at "none")
grep -rL --include=filter -x none "$t/events" 2>/dev/null | sed "s|^$t/||" | sort |
	while read -r f; do show "$f"; done
printf 'instances: %s\n' "$(ls "$t/instances" 2>/dev/null | tr '\n' ' ')"
