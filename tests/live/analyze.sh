#!/bin/bash
# Live test of the user->kernel call tree: darc-record records tests/live/target.c with
# uprobes and uretprobes on run() and ping() plus the read/write system calls, and
# `darc analyze` must rebuild, for the target's task,
#   run (1 call, depth 0) > ping (N, depth 1) > write (N, depth 2), read (N, depth 2)
# in its SQLite output (tables call and func). Skips (77) without root, tracefs or
# uprobes, or when this darc has no analyze command.
# Usage: analyze.sh DARC_RECORD DARC TARGET
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
"$darc" analyze --help >/dev/null 2>&1 || live_skip "this darc has no 'analyze' command"
command -v sqlite3 >/dev/null || live_skip "no sqlite3 to query the database"
N=20
out=$work/tree.dat
"$rec" -q -o "$out" -U "$target:run,ping" \
	-e syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,syscalls:sys_exit_write \
	-- "$target" $N
check "darc-record exits 0" [ $? -eq 0 ]
state_same "after the recording"
"$darc" analyze -q "$out" -o "$work/tree.db"
check "darc analyze exits 0" [ $? -eq 0 ]
pid=$(jget "$out" 'm["target"]["pids"][0]')
# the complete calls of the target's task under run (the loader's reads come before it):
# function, depth, parent function, count
sqlite3 -separator ' ' "$work/tree.db" "
	select f.name, c.depth, coalesce(pf.name, '-'), count(*)
	from call c join func f on f.id = c.func_id
	left join call p on p.id = c.parent_id left join func pf on pf.id = p.func_id
	where c.task_id = $pid and c.t_entry is not null and c.t_exit is not null
		and (c.depth > 0 or f.name = 'run')
	group by 1, 2, 3 order by 2, 1" >"$work/tree.txt"
printf '%s\n' "run 0 - 1" "ping 1 run $N" "read 2 ping $N" "write 2 ping $N" >"$work/want.txt"
if diff "$work/want.txt" "$work/tree.txt" >"$work/tree.diff"; then
	ok "the user->kernel call tree of the target (run > ping > read, write)"
else
	bad "the user->kernel call tree of the target: want (function depth parent calls) / got:"
	sed 's/^/    /' "$work/tree.diff"
	n=$(sqlite3 "$work/tree.db" "select count(*) from call c join func f on f.id = c.func_id
		where f.kind = 3")
	[ "$n" = 0 ] && echo "    (no uprobe call at all: darc analyze did not take the uprobe" \
		"events as the task's; the kernel may record them with common_flags 0xff)"
fi
kinds=$(sqlite3 "$work/tree.db" "select group_concat(distinct f.kind) from func f
	where f.name in ('run', 'ping')")
check "run and ping are user functions (func.kind 3, uprobe)" [ "$kinds" = 3 ]
mods=$(sqlite3 "$work/tree.db" "select group_concat(distinct coalesce(f.module, 'NULL')) from func f
	where f.name in ('run', 'ping')")
check "run and ping's module is the target's binary, from the manifest" \
	[ "$mods" = "$(realpath "$target")" ]
# the uprobe pairs come from the manifest: every hit is a probe_hit row, entries and returns
roles=$(sqlite3 "$work/tree.db" "select group_concat(role || ':' || n, ' ') from (select role,
	count(*) n from probe_hit where event like 'darc_uprobes:%' group by role order by role)")
check "the uprobe pairs' hits are probe_hit rows, each an entry or return ($roles)" \
	[ "$roles" = "1:$((N + 1)) 2:$((N + 1))" ]
state_same "after the analysis"

# darc-record's default events alone (scheduling, interrupts, block) hold no calls:
# darc analyze says what is missing and which option adds it
"$rec" -q -o "$work/nocalls.dat" -- "$target" 1
"$darc" analyze -o "$work/nocalls.db" "$work/nocalls.dat" >/dev/null 2>"$work/nocalls.err"
check "a recording without calls: exit 0" [ $? -eq 0 ]
check "a recording without calls: one note naming what adds them" \
	[ "$(wc -l <"$work/nocalls.err")" = 1 ] &&
	grep -q "no function_graph, system call or paired probe events.*-g FUNC.*-e raw_syscalls" "$work/nocalls.err"
summary
