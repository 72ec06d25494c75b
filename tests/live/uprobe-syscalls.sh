#!/bin/bash
# Live test of system calls in a uprobe recording (issue 20), on this machine's
# kernel: the README's recipe, darc-record -e raw_syscalls -U BIN:main,..., of
# tests/live/target.c (`live-target N 0 signal`: main > run > ping x N, each
# ping a write, a read and a signal to itself, whose handler returns through
# rt_sigreturn), and the same run recorded by perf record with perf probe's
# uprobes where perf is installed. On x86-64 since Linux 6.11 each uretprobe
# return runs the uretprobe system call, whose sys_exit says id -1, as
# rt_sigreturn's does. tests/golden/uprobe-syscalls.sh checks each recording
# (--trap there: each uretprobe return must have run the call, on a kernel that
# has it): no call across lost events, every user call complete, no call of
# the uretprobe system call. Skips (77) without root, tracefs, uprobes or
# raw_syscalls; the perf part is left out without perf.
# With --sample FILE it also writes FILE: the recording samples/host-uretprobe-v7.dat
# is (darc-record's default events left out but sched's, /proc/kallsyms hidden
# from it: no event here has a kernel address), then checks it the same way.
# Usage: uprobe-syscalls.sh DARC_RECORD DARC TARGET [--sample FILE]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
[ -d "$tfs/events/raw_syscalls" ] || live_skip "no raw_syscalls events"
check_rec() { "$here/../golden/uprobe-syscalls.sh" "$darc" "$1" $trap_opt; }
N=20

# the uretprobe system call: x86-64, Linux 6.11 on
IFS=. read -r major minor _ <<<"$(uname -r)"
trap_opt= expect="not expected"
if [ "$(uname -m)" = x86_64 ] && { [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 11 ]; }; }; then
	trap_opt=--trap expect=expected
fi
echo "kernel $(uname -r) $(uname -m): the uretprobe system call is $expect"

out=$work/recipe.dat
"$rec" -q -o "$out" -e raw_syscalls -U "$target:main,run,ping" -- "$target" $N 0 signal
check "darc-record -e raw_syscalls -U ... exits 0" [ $? -eq 0 ]
state_same "after the recording" "$out"
check "darc analyze of it: system calls and user calls whole" check_rec "$out"

if [ "${4:-}" = --sample ]; then
	sample=${5:?--sample needs a FILE}
	: >"$work/kallsyms"
	cp "$target" "$work/live-target" # the path in the sample's manifest says nothing of this checkout
	unshare -m --propagation private bash -c \
		'mount --bind "$1" /proc/kallsyms && shift && exec "$@"' _ "$work/kallsyms" \
		"$rec" -q -f -o "$sample" --no-default-events -e raw_syscalls \
		-e sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_process_exec,sched:sched_process_exit \
		-U "$work/live-target:main,run,ping" -- "$work/live-target" $N 0 signal
	check "the sample $sample is recorded" [ $? -eq 0 ]
	check "the sample checks" check_rec "$sample"
fi

# perf record of the same: raw_syscalls and perf probe's uprobes (group darc_live)
if command -v perf >/dev/null; then
	cleanup_perf() { perf probe -q -d 'darc_live:*' >/dev/null 2>&1; }
	trap 'cleanup_perf; live_cleanup' EXIT
	pd=$work/recipe.perf.data
	probes=()
	for f in main run ping; do
		probes+=(-a "darc_live:$f=$f" -a "darc_live:$f=$f%return") # perf adds __return
	done
	if perf probe -q -x "$target" "${probes[@]}" 2>"$work/probe.err"; then
		perf record -q -o "$pd" -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
			-e 'darc_live:*' -- "$target" $N 0 signal 2>"$work/perf.err"
		check "perf record exits 0" [ $? -eq 0 ]
		check "darc analyze of perf.data: system calls and user calls whole" check_rec "$pd"
	else
		echo "note: perf probe cannot put uprobes here ($(tail -n 1 "$work/probe.err")): no perf part"
	fi
	cleanup_perf
	state_same "after perf"
fi
summary
