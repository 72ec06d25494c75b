#!/bin/bash
# Live recording of tests/live/explain-app.c, the user program of darc
# explain's golden test (tests/golden/explain.sh): `explain-app N LOG` runs
# handle() N times, each calling compute() (about 0.1 ms of CPU), every 10th
# also flush_log() (a write and an fsync of LOG) and every 25th also backoff()
# (nanosleep of 3 ms). Recorded by darc-record with uprobes + uretprobes on
# main, handle, compute, flush_log and backoff (-U), raw_syscalls and the
# sched events, as tests/live/uprobe-syscalls.sh records its target. The
# program runs under SCHED_FIFO (chrt -f 10) so that the other tasks of a busy
# machine do not preempt it: its slow calls are then made of the fsyncs and
# the sleeps only, the answer tests/golden/explain.sh expects.
# Checks: every call of the five functions complete, their counts as the
# program makes them, each backoff holding a nanosleep of 3 ms or more spent
# blocked, each flush_log an fsync; then tests/golden/explain-truth.py on it
# must name backoff's sleep as handle's largest cause (the log on tmpfs where
# there is one: its fsyncs then cost no disk time that other work sets).
# Skips (77) without root, tracefs, uprobes, raw_syscalls, sqlite3 or SCHED_FIFO (chrt).
# With --sample FILE it writes FILE, as samples/host-explainapp-v7.dat was
# made: the app copied to a temporary directory (the path in the manifest
# says nothing of this checkout), /proc/kallsyms hidden from darc-record (no
# event here has a kernel address), the log on the same file system as /tmp.
# Usage: explain-app.sh DARC_RECORD DARC APP [--sample FILE]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
[ -d "$tfs/events/raw_syscalls" ] || live_skip "no raw_syscalls events"
chrt -f 10 true 2>/dev/null || live_skip "cannot run a task under SCHED_FIFO (chrt -f 10)"
command -v sqlite3 >/dev/null || live_skip "no sqlite3"
sample=
[ "${4:-}" = --sample ] && sample=${5:?--sample needs a FILE}
N=500

cp "$target" "$work/explain-app"
# The log's fsyncs on tmpfs where there is one: on a disk they take what the
# machine's other writers leave (20 ms each behind a writer of 100 MB), and
# 50 of them then outweigh backoff's 20 sleeps of 3 ms, so the truth below
# would name the disk's load, not the program (this check failed so on a
# loaded host). The sample (--sample) keeps its log beside /tmp, as it was made.
log=$work/app.log
[ -z "$sample" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && log=/dev/shm/darc-explain-app.$$.log
: >"$work/kallsyms"
out=${sample:-$work/app.dat}
unshare -m --propagation private bash -c \
	'mount --bind "$1" /proc/kallsyms && shift && exec "$@"' _ "$work/kallsyms" \
	"$rec" -q -f -o "$out" --no-default-events -e raw_syscalls \
	-e sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_process_exec,sched:sched_process_exit \
	-U "$work/explain-app:main,handle,compute,flush_log,backoff" \
	-- chrt -f 10 "$work/explain-app" $N "$log"
check "darc-record of explain-app $N exits 0" [ $? -eq 0 ]
rm -f "$log"
state_same "after the recording"

db=$work/app.db
"$darc" analyze -o "$db" "$out" >/dev/null 2>"$work/analyze.err"
check "darc analyze of it exits 0" [ $? -eq 0 ]
q() { sqlite3 "$db" "$1"; }
calls() { # FUNC: its complete calls
	q "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
	   WHERE f.name = '$1' AND c.incl_ns IS NOT NULL AND c.flags = 0"
}
for fn in main:1 handle:$N compute:$N flush_log:$((N / 10)) backoff:$((N / 25)); do
	n=$(calls "${fn%%:*}")
	check "${fn%%:*}: $n complete calls, ${fn#*:} made" [ "$n" = "${fn#*:}" ]
done
# Where another task ran on the CPU while the app slept, this kernel (6.18, with
# set_event_pid) may record the switch out and not the switch back in: then the
# sleep cannot be told from the recording (darc keeps no interval for it: a
# known gap). The sleep checks below need every switch-in; the recording is
# checked for them first, and they are skipped, said, where one is missing.
app=$("$darc" dump "$out" | grep -m1 -o 'explain-app-[0-9]*' | cut -d- -f3)
outs=$("$darc" dump "$out" | grep -c "sched_switch: prev_comm=[^ ]* prev_pid=$app ")
ins=$("$darc" dump "$out" | grep -c "sched_switch: .* next_pid=$app ")
if [ "$ins" -lt "$outs" ]; then
	echo "note: the recording has $outs switches of the app out and $ins in: the kernel" \
		"left some out, so the sleep checks are not made (a known gap of darc-record)"
	summary
	exit $?
fi
# each backoff: a nanosleep (clock_nanosleep in glibc) of 3 ms or more, nearly all of it
# blocked (entering and leaving the call runs a few microseconds)
n=$(q "SELECT count(*) FROM call b JOIN func fb ON fb.id = b.func_id
	WHERE fb.name = 'backoff' AND EXISTS (SELECT 1 FROM call s JOIN func fs ON fs.id = s.func_id
		WHERE s.id BETWEEN b.id + 1 AND b.last_id AND fs.name LIKE '%nanosleep%'
		AND s.incl_ns >= 3000000 AND s.blocked_ns >= 2900000)")
check "$n of $((N / 25)) backoff calls sleep 3 ms in a nanosleep, blocked" [ "$n" = $((N / 25)) ]
n=$(q "SELECT count(*) FROM call b JOIN func fb ON fb.id = b.func_id
	WHERE fb.name = 'flush_log' AND EXISTS (SELECT 1 FROM call s JOIN func fs ON fs.id = s.func_id
		WHERE s.id BETWEEN b.id + 1 AND b.last_id AND fs.name LIKE '%fsync%')")
check "$n of $((N / 10)) flush_log calls hold an fsync" [ "$n" = $((N / 10)) ]
top=$(python3 "$here/../golden/explain-truth.py" "$db" handle |
	python3 -c 'import json,sys; c=json.load(sys.stdin)["causes"][0]; print(c["category"], c["function"])')
# backoff's sleep, named by backoff, or by clock_nanosleep where backoff holds 90%
# of handle's children's time and the truth looks through it (explain-truth.py's
# split_level(): so with the log's fsyncs on tmpfs); only backoff sleeps.
case $top in "blocked backoff" | "blocked clock_nanosleep") ok=0 ;; *) ok=1 ;; esac
check "the truth's first cause of handle's slow calls: $top" [ $ok -eq 0 ]
summary
