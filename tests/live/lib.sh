#!/bin/bash
# lib.sh: shared by the live suites (sourced). Skips (exit 77) when this machine cannot
# run them: not root, no tracefs to be had, no uprobe_events, darc-record not built.
# Defines ok/bad/summary, $work (a scratch directory removed on exit), $state (before/after
# snapshots of tracefs) and run_target_bg.

live_skip() {
	echo "SKIP: $*"
	exit 77
}

live_init() { # DARC_RECORD DARC TARGET
	rec=$1 darc=$2 target=$3
	[ "$(id -u)" -eq 0 ] || live_skip "needs root (tracefs)"
	[ -x "$rec" ] || live_skip "darc-record was not built (no libtracefs?): $rec"
	[ -x "$darc" ] || live_skip "no darc binary: $darc"
	[ -x "$target" ] || live_skip "no live target binary: $target"
	tfs=/sys/kernel/tracing
	mounted_here=0
	if ! grep -q " $tfs tracefs " /proc/mounts; then
		mount -t tracefs nodev "$tfs" 2>/dev/null ||
			live_skip "no tracefs: it is not mounted and cannot be mounted at $tfs"
		mounted_here=1
	fi
	[ -e "$tfs/uprobe_events" ] || live_skip "this kernel has no uprobe_events"
	[ -d "$tfs/events/syscalls/sys_enter_write" ] || live_skip "no syscalls events"
	work=$(mktemp -d /tmp/darc-live.XXXXXX)
	trap live_cleanup EXIT
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	"$here/tracefs-state.sh" "$tfs" >"$work/state.before"
	pass=0 fail=0
}

live_cleanup() {
	# processes this suite started, by pid
	for p in ${live_pids:-}; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$work"
	[ "$mounted_here" = 1 ] && umount "$tfs" 2>/dev/null
	return 0
}

ok() {
	echo "ok: $*"
	pass=$((pass + 1))
}

bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# Did only the top-level buffer change, from unallocated ("7 (expanded: N)") to
# its default N (a page's rounding more), as BUNDLE's manifest says darc-record
# saw, on a run where the kernel allocates it: with --no-instance (events
# enabled at the top level), or before Linux 6.7 (an event enabled anywhere)?
allocated_as_said() { # BUNDLE MODE
	local was now n major minor
	was=$(diff "$work/state.before" "$work/state.now" | sed -n 's/^< buffer_size_kb: //p')
	now=$(diff "$work/state.before" "$work/state.now" | sed -n 's/^> buffer_size_kb: //p')
	[ "$(diff "$work/state.before" "$work/state.now" | grep -c '^[<>]')" = 2 ] || return 1
	n=$(sed -n 's/.*(expanded: \([0-9]*\)).*/\1/p' <<<"$was")
	now=${now%|}
	[ -n "$n" ] && [ "$now" -ge "$n" ] 2>/dev/null && [ "$now" -lt $((n + 16)) ] || return 1
	IFS=. read -r major minor _ <<<"$(uname -r)"
	[ "$2" = no-instance ] || [ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 7 ]; } ||
		return 1
	[ "$(jget "$1" 'm["top_buffer"]["expanded"]')" = True ]
}

# tracefs as it was when the suite started? With BUNDLE [MODE], the one change
# allowed is the kernel's own allocation of the top-level buffer (see above),
# which must be what the bundle's manifest says; it is the new normal after.
state_same() { # WHEN [BUNDLE [MODE]]
	"$here/tracefs-state.sh" "$tfs" >"$work/state.now"
	if diff "$work/state.before" "$work/state.now" >"$work/state.diff"; then
		ok "tracefs restored ($1)"
	elif [ -n "${2:-}" ] && allocated_as_said "$2" "${3:-instance}"; then
		ok "tracefs restored ($1), but for the top-level buffer, which the kernel allocated," \
			"as darc-record says"
		cp "$work/state.now" "$work/state.before"
	else
		bad "tracefs changed ($1):"
		sed 's/^/    /' "$work/state.diff"
	fi
}

# the manifest of bundle FILE as JSON (darc info --json has it as an object)
manifest() {
	"$darc" info --json "$1" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["manifest"]))'
}

# jget FILE EXPR: evaluate a Python expression on the manifest m
jget() {
	manifest "$1" | python3 -c "import json,sys; m=json.load(sys.stdin); print($2)"
}

# nevents FILE SYSTEM:NAME: how many such events the bundle holds (darc info --json)
nevents() {
	"$darc" info --json "$1" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['events_by_name'].get('$2', 0))"
}

summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
