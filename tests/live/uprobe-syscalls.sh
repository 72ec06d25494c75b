#!/bin/bash
# Live test of system calls in a uprobe recording (issue 20), on this machine's
# kernel: the README's recipe, darc-record -e raw_syscalls -U BIN:main,..., of
# tests/live/target.c (`live-target N 0 signal`: main > run > ping x N, each
# ping a write, a read and a signal to itself, whose handler returns through
# rt_sigreturn), and the same run recorded by perf record with perf probe's
# uprobes where perf is installed. On x86-64 since Linux 6.11 each uretprobe
# return runs the uretprobe system call, whose sys_exit says id -1, as
# rt_sigreturn's does; NOP5_TARGET, the same program built so that each
# function starts with a 5-byte nop, lets a kernel that optimizes uprobes
# (x86-64, Linux 6.18 does) enter them through the uprobe system call, whose
# exit says -1 as well. tests/golden/uprobe-syscalls.sh checks each recording
# (--trap there: each uretprobe return must have run the call, on a kernel that
# has it): no call across lost events, every user call complete, no call of
# the uretprobe or uprobe system call. Skips (77) without root, tracefs,
# uprobes or raw_syscalls; the perf part is left out without perf.
# With --sample FILE it also writes FILE, as samples/host-uretprobe-v7.dat was
# made: NOP5_TARGET's run (TARGET's without it) with darc-record's default
# events left out but sched's, and /proc/kallsyms hidden from darc-record (no
# event here has a kernel address); then checks it the same way.
# Usage: uprobe-syscalls.sh DARC_RECORD DARC TARGET [NOP5_TARGET] [--sample FILE]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
[ -d "$tfs/events/raw_syscalls" ] || live_skip "no raw_syscalls events"
nop5= sample=
shift 3
while [ $# -gt 0 ]; do
	case $1 in
	--sample) sample=${2:?--sample needs a FILE} && shift ;;
	*) nop5=$1 ;;
	esac
	shift
done
check_rec() { "$here/../golden/uprobe-syscalls.sh" "$darc" "$1" $trap_opt; }
N=20

# the uretprobe system call: x86-64, Linux 6.11 on
IFS=. read -r major minor _ <<<"$(uname -r)"
trap_opt= expect="not expected"
if [ "$(uname -m)" = x86_64 ] && { [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 11 ]; }; }; then
	trap_opt=--trap expect=expected
fi
echo "kernel $(uname -r) $(uname -m): the uretprobe system call is $expect"

# record BIN OUT [OPTION...]: darc-record's recording of `BIN N 0 signal`, with
# raw_syscalls and -U BIN:main,run,ping
record() {
	local bin=$1 out=$2
	shift 2
	"$rec" -q -o "$out" -e raw_syscalls "$@" -U "$bin:main,run,ping" -- "$bin" $N 0 signal
}

out=$work/recipe.dat
record "$target" "$out"
check "darc-record -e raw_syscalls -U ... exits 0" [ $? -eq 0 ]
state_same "after the recording" "$out"
check "darc analyze of it: system calls and user calls whole" check_rec "$out"

if [ -n "$nop5" ]; then
	record "$nop5" "$work/nop5.dat"
	check "darc-record of $(basename "$nop5") exits 0" [ $? -eq 0 ]
	state_same "after the recording" "$work/nop5.dat"
	n=$("$darc" dump "$work/nop5.dat" | grep -c ' sys_enter: id=336 ')
	echo "   the kernel entered the uprobes through the uprobe system call $n times"
	check "darc analyze of it: system calls and user calls whole" check_rec "$work/nop5.dat"
fi

if [ -n "$sample" ]; then
	: >"$work/kallsyms"
	cp "${nop5:-$target}" "$work/live-target" # the path in the manifest says nothing of this checkout
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
