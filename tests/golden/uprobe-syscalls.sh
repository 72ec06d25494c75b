#!/bin/bash
# System calls in a uprobe recording (issue 20): tests/live/target.c run as
# `live-target N 0 signal` (main > run > ping x N, each ping a write, a read
# and a signal to itself), recorded with raw_syscalls and uprobes +
# uretprobes on main, run and ping. On x86-64 since Linux 6.11 each
# uretprobe return runs the uretprobe system call (sys_enter id 335), whose
# sys_exit says id -1, and so does rt_sigreturn's. darc analyze must find:
#   - no call across lost events (none were lost), none without entry or
#     exit in main's run, every user-function call complete;
#   - each ping's write, read and rt_sigreturn complete, under it;
#   - no call of the uretprobe or uprobe system call, nor of a number
#     darc cannot name.
# --trap: the recording must hold the uretprobe system call, one per
# uretprobe return (the default sample does; tests/live/uprobe-syscalls.sh
# asks it of a kernel that has the call). --uprobe-trap: it must hold the
# uprobe system call too (x86-64's optimized uprobes: the sample's target
# functions start with a 5-byte nop). --text: the same checks on
# `trace-cmd report` of it (the ftrace text reader), where trace-cmd is
# installed.
# Usage: uprobe-syscalls.sh DARC [RECORDING [--trap] [--uprobe-trap] [--text]];
# the default RECORDING is samples/host-uretprobe-v7.dat, with all three.
# Exit 0 pass, 1 fail, 77 without sqlite3.
set -u
darc=$(realpath "${1:?usage: uprobe-syscalls.sh DARC [RECORDING [OPTION...]]}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
rec=${2:-$here/../../samples/host-uretprobe-v7.dat}
trap_wanted= text_wanted= utrap_wanted=
for o in "${@:3}"; do
	case $o in
	--trap) trap_wanted=$o ;;
	--text) text_wanted=$o ;;
	--uprobe-trap) utrap_wanted=$o ;;
	esac
done
[ $# -ge 2 ] || trap_wanted=--trap text_wanted=--text utrap_wanted=--uprobe-trap
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d /tmp/darc-usys.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$here/../live/lib.sh" # for check and summary only: nothing here needs root
pass=0 fail=0
q() { sqlite3 "$tmp/a.db" "$1"; }

# check_rec FILE: the checks listed above, on darc analyze of FILE
check_rec() {
	local rec=$1 n user inside traps utraps returns s
	"$darc" analyze -o "$tmp/a.db" "$rec" >"$tmp/a.txt" 2>"$tmp/a.err"
	check "darc analyze $(basename "$rec") exits 0" [ $? -eq 0 ]
	echo "   $(head -n 1 "$tmp/a.txt")"
	check "it says no call was across lost events" grep -q ", 0 across lost events)" "$tmp/a.txt"
	check "no call is flagged gap" [ "$(q "SELECT count(*) FROM call WHERE flags & 4")" = 0 ]

	# the user functions (func.kind 3): main and run once, ping N times, all complete
	user="SELECT f.name, count(*), sum(c.flags = 0 AND c.incl_ns IS NOT NULL) FROM call c
		JOIN func f ON f.id = c.func_id WHERE f.kind = 3 GROUP BY 1 ORDER BY 1"
	n=$(q "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
		WHERE f.kind = 3 AND f.name = 'ping'")
	printf '%s\n' "main|1|1" "ping|$n|$n" "run|1|1" >"$tmp/want"
	q "$user" >"$tmp/got"
	check "every user-function call is complete (main 1, run 1, ping $n)" \
		diff -u "$tmp/want" "$tmp/got"
	check "ping was called" [ "$n" -gt 0 ]
	inside="FROM call c, call m JOIN func mf ON mf.id = m.func_id
		WHERE mf.kind = 3 AND mf.name = 'main' AND c.id BETWEEN m.id AND m.last_id"
	check "no call in main's run lacks its entry or exit" [ "$(q "SELECT count(*) $inside
		AND c.task_id = m.task_id AND c.flags & 3")" = 0 ]
	for s in write read rt_sigreturn; do
		check "each ping's $s is complete, under it" [ "$(q "SELECT count(*) FROM call c
			JOIN func f ON f.id = c.func_id JOIN call p ON p.id = c.parent_id
			JOIN func pf ON pf.id = p.func_id WHERE f.name = '$s' AND f.kind = 1
			AND pf.name = 'ping' AND c.flags = 0 AND c.incl_ns IS NOT NULL")" = "$n" ]
	done
	check "no call of the probes' own system calls, nor of an unnamed number" \
		[ "$(q "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id WHERE f.kind = 1
			AND (f.name IN ('uretprobe', 'uprobe') OR f.name LIKE 'syscall\_%' ESCAPE '\')")" = 0 ]

	"$darc" dump "$rec" >"$tmp/dump.txt"
	traps=$(grep -c ' sys_enter: id=335 ' "$tmp/dump.txt")
	utraps=$(grep -c ' sys_enter: id=336 ' "$tmp/dump.txt")
	returns=$(q "SELECT count(*) FROM probe_hit WHERE role = 2")
	echo "   the recording: $traps uretprobe and $utraps uprobe system calls, $returns uretprobe hits"
	if [ "$trap_wanted" = --trap ]; then
		check "each uretprobe return ran the uretprobe system call" \
			[ "$traps" -gt 0 -a "$traps" = "$returns" ]
	fi
	if [ "$utrap_wanted" = --uprobe-trap ]; then
		check "uprobes were entered through the uprobe system call" [ "$utraps" -gt 0 ]
	fi
}

check_rec "$rec"
if [ "$text_wanted" = --text ]; then
	if command -v trace-cmd >/dev/null; then
		trace-cmd report "$rec" >"$tmp/report.txt" 2>/dev/null
		check "trace-cmd report $(basename "$rec") exits 0" [ $? -eq 0 ]
		check_rec "$tmp/report.txt"
	else
		echo "note: no trace-cmd: its text of $(basename "$rec") is not checked"
	fi
fi
summary
