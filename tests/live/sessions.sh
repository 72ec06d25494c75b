#!/bin/bash
# Live test of darc-record sessions that meet (root + tracefs; skips with 77 otherwise):
#  1. a second --no-instance session while one runs is refused, in one line naming the
#     first's pid, and leaves tracefs exactly as the first set it; after the first ends
#     tracefs is as the suite found it (two such sessions once both ran, and the one
#     ending last wrote the other's settings back); a session in its own instances runs
#     beside it, unless it wants a probe the first has (the probe groups are shared);
#  2. a --no-instance session killed with SIGKILL leaves no lock behind: the next one
#     runs; --reset while that one runs keeps the killed one's top-level changes (the
#     running one saved them as it found them and writes them back at its end), and
#     --reset after it undoes them;
#  3. --reset from another directory removes the page files of a killed recording
#     whose -o was relative (the undo log once held the relative path).
# Usage: sessions.sh DARC_RECORD DARC TARGET
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
# case 3 runs them from elsewhere (meson gives paths relative to the build directory)
rec=$(realpath "$rec") darc=$(realpath "$darc") target=$(realpath "$target")
syscalls=syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,syscalls:sys_exit_write

# start_bg NAME ARGS...: darc-record ARGS in the background, stderr to $work/NAME.err, its
# pid in $bg; returns when it says it records, or has ended (refused), or after 10 s
start_bg() {
	local name=$1 i
	shift
	"$rec" "$@" 2>"$work/$name.err" &
	bg=$!
	live_pids="${live_pids:-} $bg"
	for i in $(seq 100); do
		grep -qs "recording to" "$work/$name.err" && break
		kill -0 $bg 2>/dev/null || break
		sleep 0.1
	done
	# the command it started outlives a kill -9: killed at the end of the suite
	live_pids="$live_pids $(cat /proc/$bg/task/$bg/children 2>/dev/null)"
}

# stop PID: SIGINT to a darc-record still running; its exit status in $stopped
stop() {
	kill -INT "$1" 2>/dev/null
	wait "$1"
	stopped=$?
}

# same_as FILE WHAT: is tracefs now as snapshot FILE has it?
same_as() {
	"$here/tracefs-state.sh" "$tfs" >"$work/state.cmp"
	if diff "$1" "$work/state.cmp" >"$work/state.diff"; then
		ok "$2"
	else
		bad "$2:"
		sed 's/^/    /' "$work/state.diff"
	fi
}

# 1. two --no-instance sessions at once
start_bg first --no-instance -o "$work/first.dat" -e "$syscalls" -U "$target:ping" \
	-- "$target" 100000 5
first=$bg
check "first --no-instance session records" grep -q "recording to" "$work/first.err"
"$here/tracefs-state.sh" "$tfs" >"$work/state.first"
ls -A "$work" | grep '^\.darc-record' >"$work/pagedirs.first"
# a session in its own instances shares nothing with it but the probe groups
"$rec" -q -o "$work/inst.dat" -e "$syscalls" -- "$target" 3 2>"$work/inst.err"
check "an instance session beside it: exit 0" [ $? -eq 0 ]
same_as "$work/state.first" "the instance session leaves tracefs as the first set it"
"$rec" -q -o "$work/probe.dat" -e "$syscalls" -U "$target:ping" -- "$target" 3 2>"$work/probe.err"
check "an instance session wanting the same probe: exit 1" [ $? -eq 1 ]
check "the same probe: the line says a running darc-record has it: $(cat "$work/probe.err")" \
	grep -q "darc_uprobes:ping exists already: a darc-record running has it" "$work/probe.err"
same_as "$work/state.first" "the refused instance session leaves tracefs as the first set it"
start_bg second --no-instance -o "$work/second.dat" -e "$syscalls" -- "$target" 100000 5
second=$bg
if kill -0 $second 2>/dev/null; then
	bad "a second --no-instance session is refused (it records)"
	same_as "$work/state.first" "the second session leaves tracefs as the first set it"
	stop $first
	stop $second
else
	wait $second
	check "second --no-instance session: exit 1" [ $? -eq 1 ]
	check "second: one line" [ "$(wc -l <"$work/second.err")" = 1 ]
	check "second: the line names the first's pid: $(cat "$work/second.err")" \
		grep -q "tracefs is in use by darc-record session $first (started " "$work/second.err"
	check "second: the line says how the lock is released" \
		grep -q "released when it exits, even by kill -9" "$work/second.err"
	check "second: no output" [ ! -e "$work/second.dat" ]
	check "second: no page files" \
		[ "$(ls -A "$work" | grep '^\.darc-record')" = "$(cat "$work/pagedirs.first")" ]
	same_as "$work/state.first" "the second session leaves tracefs as the first set it"
	# --reset leaves a running session alone, and says so
	"$rec" --reset 2>"$work/reset-live.err"
	check "--reset while a session runs: exit 0" [ $? -eq 0 ]
	check "--reset while a session runs: says it kept its changes" \
		grep -q "kept.*darc-record $first is running" "$work/reset-live.err"
	same_as "$work/state.first" "--reset leaves the running session's tracefs as it set it"
	stop $first
fi
check "first session: exit 0" [ "$stopped" -eq 0 ]
"$darc" info "$work/first.dat" >/dev/null 2>&1
check "first session: darc reads its bundle" [ $? -eq 0 ]
state_same "after the two sessions" "$work/first.dat" no-instance

# 2. kill -9 leaves no lock; --reset waits for the top level to be free
start_bg killed --no-instance -o "$work/killed.dat" -e "$syscalls" -- "$target" 100000 5
killed=$bg
check "a --no-instance session to kill records" grep -q "recording to" "$work/killed.err"
kill -9 $killed
wait $killed 2>/dev/null
start_bg next --no-instance -o "$work/next.dat" -e "$syscalls" -- "$target" 100000 5
next=$bg
check "after kill -9 the next --no-instance session records (no lock left)" \
	grep -q "recording to" "$work/next.err"
check "the next session warns that it starts from the killed one's settings" \
	grep -q "settings of darc-record $killed, which was killed, are still there" "$work/next.err"
"$here/tracefs-state.sh" "$tfs" >"$work/state.next"
"$rec" --reset 2>"$work/reset-busy.err"
check "--reset while the next session runs: exit 0" [ $? -eq 0 ]
check "--reset keeps the killed session's top-level changes while another has the top level" \
	grep -q "kept the top-level changes of darc-record $killed .*darc-record session $next " \
	"$work/reset-busy.err"
# what --reset does remove there: the killed session's instance (unfiltered events)
sed -i "/^instances: /s/darc-$killed-all //" "$work/state.next"
same_as "$work/state.next" "--reset leaves the next session's tracefs as it set it"
stop $next
check "the next session: exit 0" [ "$stopped" -eq 0 ]
"$rec" --reset 2>"$work/reset-after.err"
check "--reset after it: exit 0" [ $? -eq 0 ]
check "--reset after it: restores the killed session's top-level files" \
	grep -q "restored the top-level 'tracing_on'" "$work/reset-after.err"
check "--reset after it: no page files left" [ -z "$(ls -A "$work" | grep '^\.darc-record')" ]
state_same "after kill -9, another session and --reset" "$work/next.dat" no-instance

# 3. a relative -o, killed, and --reset from another directory
mkdir "$work/rel"
abs=$(cd "$work/rel" && pwd -P)
(
	cd "$work/rel" || exit
	start_bg rel -o rel.dat -e "$syscalls" -- "$target" 100000 5
	echo "$bg $live_pids" >"$work/rel.pids"
	kill -9 $bg
	wait $bg 2>/dev/null
)
read -r relpid more <"$work/rel.pids"
live_pids="${live_pids:-} $more"
check "a relative -o, to kill: records" grep -q "recording to" "$work/rel.err"
check "a relative -o, killed: its page files are left" \
	[ -n "$(ls -A "$work/rel" | grep '^\.darc-record')" ]
(cd / && "$rec" --reset) 2>"$work/reset-rel.err"
check "--reset from /: exit 0" [ $? -eq 0 ]
check "--reset from /: the page files of darc-record $relpid are gone" \
	[ -z "$(ls -A "$work/rel" | grep '^\.darc-record')" ]
check "--reset from /: it names their absolute directory" \
	grep -q "removed the page files in '$abs/\.darc-record\.[^/]*'$" "$work/reset-rel.err"
state_same "after a relative -o, kill -9 and --reset from /"

# 4. two sessions on one -o
"$here/tracefs-state.sh" "$tfs" >"$work/state.before4"
start_bg one -o "$work/same.dat" -e "$syscalls" -- "$target" 100000 5
onepid=$bg
check "one -o, the first: records" grep -q "recording to" "$work/one.err"
"$rec" -o "$work/same.dat" -e "$syscalls" -- "$target" 1000 1 2>"$work/two.err"
check "one -o, the second: fails" [ $? -ne 0 ]
check "one -o, the second: one line naming the first's pid" \
	[ "$(cat "$work/two.err")" = "darc-record: '$work/same.dat': another process (pid $onepid) is writing it" ]
check "one -o, the second: printed no 'recording to' and no 'wrote'" \
	sh -c '! grep -q "recording to\|wrote" "$1"' sh "$work/two.err"
stop $onepid
check "one -o, the first: exit 0" [ "$stopped" -eq 0 ]
check "one -o, the first: wrote its bundle" grep -q "wrote" "$work/one.err"
check "one -o: the bundle reads" "$darc" info "$work/same.dat"
check "one -o: no lock file left" [ ! -e "$work/same.dat.lock" ]
same_as "$work/state.before4" "after two sessions on one -o"
summary
