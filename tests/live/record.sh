#!/bin/bash
# Live test of darc-record on this machine (root + tracefs + uprobes; skips with 77
# otherwise): record tests/live/target.c with uprobes on its functions plus the read/write
# system calls, sched and irq; check that darc and trace-cmd read the bundle, that
# darc info shows the manifest, that tracefs is as before after every run (normal end,
# SIGINT, --duration with -p, --no-instance, kill -9 then --reset), that an existing
# output is never overwritten without --force, the capability messages, and
# tracefs not mounted (mounted for the run, or one line if it cannot be).
# Usage: record.sh DARC_RECORD DARC TARGET
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"
N=25
syscalls=syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,syscalls:sys_exit_write

# 1. a command from start to end
out=$work/cmd.dat
"$rec" -q -o "$out" -e "$syscalls" -U "$target:run,ping" -- "$target" $N 2>"$work/cmd.err"
check "darc-record COMMAND exits 0" [ $? -eq 0 ]
check "the bundle exists" [ -s "$out" ]
state_same "after a command" "$out"
"$darc" info "$out" >"$work/info.txt"
check "darc info reads the bundle" [ $? -eq 0 ]
check "darc info summarises the manifest" grep -q '^manifest: *darc-record ' "$work/info.txt"
check "darc info names the target's pid" \
	grep -qx "target pids: *$(jget "$out" 'm["target"]["pids"][0]')" "$work/info.txt"
"$darc" dump "$out" >"$work/dump.txt"
check "darc dump reads every event" [ $? -eq 0 ]
check "uprobe run: 1 entry" [ "$(nevents "$out" darc_uprobes:run)" = 1 ]
check "uprobe run__return: 1" [ "$(nevents "$out" darc_uprobes:run__return)" = 1 ]
check "uprobe ping: $N entries" [ "$(nevents "$out" darc_uprobes:ping)" = $N ]
# two functions of libc under a perturbed heap: darc-record once crashed in
# libtracefs's tracefs_dynevent_get() as soon as one probe of the group existed
libc=$(ldd /bin/echo | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
MALLOC_PERTURB_=135 "$rec" -q -o "$work/libc.dat" -U "$libc:getpid,write" -- /bin/echo hi \
	>/dev/null 2>"$work/libc.err"
check "-U LIBC:getpid,write with MALLOC_PERTURB_: exit 0" [ $? -eq 0 ]
check "-U LIBC:getpid,write: write recorded" [ "$(nevents "$work/libc.dat" darc_uprobes:write)" -ge 1 ]
state_same "after the libc uprobes" "$work/libc.dat"
check "uprobe ping__return: $N" [ "$(nevents "$out" darc_uprobes:ping__return)" = $N ]
check "sys_enter_write: at least $N" [ "$(nevents "$out" syscalls:sys_enter_write)" -ge $N ]
check "sys_enter_read: at least $N" [ "$(nevents "$out" syscalls:sys_enter_read)" -ge $N ]
check "sched events recorded" [ "$(nevents "$out" sched:sched_process_exit)" -ge 1 ]
check "the manifest names 4 probes" [ "$(jget "$out" 'len(m["probes"])')" = 4 ]
check "the manifest has the command's exit code 0" [ "$(jget "$out" 'm["target"].get("exit_code")')" = 0 ]
check "the manifest says the target exited" [ "$(jget "$out" 'm["stop"]["reason"]')" = "target exited" ]
check "the manifest has a build-id for the target" \
	[ -n "$(jget "$out" "m['probes'][0].get('build_id','')")" ]
check "irq events are in the unfiltered buffer" \
	[ "$(jget "$out" "[b['pid_filtered'] for b in m['buffers'] if 'irq:irq_handler_entry' in b['events']]")" = "[False]" ]
check "the pid-filtered buffer has the uprobes" \
	[ "$(jget "$out" "'darc_uprobes:ping' in m['buffers'][0]['events'] and m['buffers'][0]['pid_filtered']")" = True ]
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$out" >"$work/report.txt" 2>"$work/report.err"
	check "trace-cmd report reads the bundle" [ $? -eq 0 ]
	check "trace-cmd report shows the $N pings" [ "$(grep -c ' ping: ' "$work/report.txt")" = $N ]
	check "trace-cmd report shows the writes" [ "$(grep -c ' sys_enter_write: ' "$work/report.txt")" -ge $N ]
else
	echo "note: trace-cmd is not installed: 'trace-cmd report' checks skipped"
fi

# 1b. in its own instances darc-record writes no top-level tracefs file but the
# probe definitions: a top-level write (even a 0 to an event's enable file,
# which libtracefs makes when it removes a probe by force) allocates the
# top-level ring buffer of a box where nothing traced yet
if command -v strace >/dev/null; then
	# (in a sanitizer build: LeakSanitizer cannot stop a traced process's threads)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=openat -o "$work/strace.txt" \
		"$rec" -q -f -o "$work/st.dat" -e "$syscalls" -U "$target:run,ping" -- "$target" 2
	grep -E 'O_WRONLY|O_RDWR' "$work/strace.txt" | grep -o '"/sys/kernel/tracing/[^"]*"' |
		grep -v -e '/instances/' -e '/dynamic_events"' -e '/uprobe_events"' \
			-e '/kprobe_events"' | sort -u >"$work/top-writes.txt"
	check "instance mode writes no top-level tracefs file: $(tr '\n' ' ' <"$work/top-writes.txt")" \
		[ ! -s "$work/top-writes.txt" ]
	state_same "after the strace run" "$work/st.dat"
else
	echo "note: no strace: the top-level write check is not run"
fi

# 2. an existing output is not overwritten, unless --force
cp "$out" "$work/copy.dat"
"$rec" -q -o "$out" -e "$syscalls" -- "$target" 1 2>"$work/exists.err"
check "an existing output: exit 2" [ $? -eq 2 ]
check "an existing output: untouched" cmp -s "$out" "$work/copy.dat"
check "an existing output: the message names it" grep -q "'$out': exists: not replaced (--force replaces it)" "$work/exists.err"
"$rec" -q -f -o "$out" -e "$syscalls" -- "$target" 1
check "--force overwrites" [ $? -eq 0 ] && ! cmp -s "$out" "$work/copy.dat"
state_same "after --force" "$out"

# 3. SIGINT in the middle of a recording
out=$work/sigint.dat
"$rec" -q -o "$out" -e "$syscalls" -U "$target:run,ping" -- "$target" 100000 5 &
rp=$!
live_pids="$rp"
# the command is held (a child named darc-record) until tracing is on, after the
# tracer's cost is measured: 1.5 s of pings from when it runs
for _ in $(seq 100); do
	c=$(cat /proc/$rp/task/$rp/children 2>/dev/null)
	[ -n "$c" ] && [ "$(cat "/proc/${c%% *}/comm" 2>/dev/null)" != darc-record ] && break
	sleep 0.1
done
sleep 1.5
live_pids="$live_pids $(cat /proc/$rp/task/$rp/children 2>/dev/null)"
kill -INT $rp
wait $rp
check "SIGINT: darc-record exits 0" [ $? -eq 0 ]
live_pids=
"$darc" info "$out" >/dev/null
check "SIGINT: darc info reads the bundle" [ $? -eq 0 ]
"$darc" dump "$out" >/dev/null
check "SIGINT: darc dump reads the bundle" [ $? -eq 0 ]
check "SIGINT: pings recorded" [ "$(nevents "$out" darc_uprobes:ping)" -gt 10 ]
check "SIGINT: the manifest says so" [ "$(jget "$out" 'm["stop"]["reason"]')" = SIGINT ]
check "SIGINT: the command was ended (SIGTERM)" \
	[ "$(jget "$out" 'm["target"].get("killed_by_signal")')" = 15 ]
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$out" >/dev/null 2>&1
	check "SIGINT: trace-cmd report reads the bundle" [ $? -eq 0 ]
fi
state_same "after SIGINT" "$out"

# 4. -p PID with --duration (the process keeps running)
"$target" 100000 5 &
tp=$!
live_pids="$tp"
out=$work/pid.dat
"$rec" -q -o "$out" -e "$syscalls" -U "$target:ping" -p $tp -d 1
check "-p PID -d 1: exit 0" [ $? -eq 0 ]
check "-p PID: the process is still running" kill -0 $tp
kill $tp
wait $tp 2>/dev/null
live_pids=
check "-p PID: pings recorded" [ "$(nevents "$out" darc_uprobes:ping)" -gt 10 ]
check "-p PID: stopped by the duration" [ "$(jget "$out" 'm["stop"]["reason"]')" = duration ]
check "-p PID: its maps are in the manifest" \
	[ "$(jget "$out" "any('$target' in (p['maps'] or '') for p in m['target']['processes'])")" = True ]
state_same "after -p" "$out"

# 5. the top-level buffer (--no-instance): saved and restored
out=$work/top.dat
"$rec" -q --no-instance -o "$out" -e "$syscalls" -U "$target:ping" -- "$target" $N
check "--no-instance: exit 0" [ $? -eq 0 ]
check "--no-instance: pings recorded" [ "$(nevents "$out" darc_uprobes:ping)" = $N ]
state_same "after --no-instance" "$out" no-instance

# 6. kill -9, then --reset puts everything back (instance and top-level runs)
for mode in "" --no-instance; do
	"$rec" -q $mode -o "$work/killed.dat" -e "$syscalls" -U "$target:ping" -- "$target" 1000 5 &
	rp=$!
	live_pids="$live_pids $rp"
	sleep 1
	# its command outlives it: killed at the end of the suite
	live_pids="$live_pids $(cat /proc/$rp/task/$rp/children 2>/dev/null)"
	kill -9 $rp
	wait $rp 2>/dev/null
	check "kill -9 ${mode:-(instance)}: no bundle" [ ! -e "$work/killed.dat" ]
	"$rec" --reset 2>"$work/reset.err"
	check "--reset after kill -9 ${mode:-(instance)}: exit 0" [ $? -eq 0 ]
	check "--reset removed the page files" [ -z "$(ls -A "$work" | grep '^\.darc-record')" ]
	state_same "after kill -9 ${mode:-(instance)} and --reset"
done
"$rec" --reset 2>"$work/reset.err"
check "--reset with nothing to do: exit 0" [ $? -eq 0 ]
check "--reset with nothing to do says so" grep -q "nothing to reset" "$work/reset.err"

# 7. what this kernel cannot do is named, with what still works
if ! grep -qw function_graph "$tfs/available_tracers"; then
	"$rec" -q -o "$work/g.dat" -g vfs_read -- "$target" 1 2>"$work/caps.err"
	check "-g without function_graph: exit 1" [ $? -eq 1 ]
	check "-g: the message names function_graph" grep -q "function_graph tracer is not available" "$work/caps.err"
	check "-g: the message says what works" grep -q "works here: tracepoints" "$work/caps.err"
	check "-g: no output" [ ! -e "$work/g.dat" ]
	"$rec" -q --best-effort -o "$work/g.dat" -g vfs_read -e "$syscalls" -- "$target" 1 2>/dev/null
	check "-g --best-effort: records the rest" [ $? -eq 0 ] && [ -s "$work/g.dat" ]
	check "-g --best-effort: the manifest lists what was left out" \
		[ "$(jget "$work/g.dat" 'len(m["dropped_options"])')" = 1 ]
fi
if [ ! -e "$tfs/kprobe_events" ]; then
	"$rec" -q -o "$work/k.dat" --kprobe 'vfs_read count=%dx' -- "$target" 1 2>"$work/caps.err"
	check "--kprobe without kprobe_events: exit 1" [ $? -eq 1 ]
	check "--kprobe: the message names kprobes" grep -q "kprobes are not available" "$work/caps.err"
fi
# 8. tracefs not mounted: darc-record mounts it for the run and unmounts it
# after; where it cannot be mounted, one line says so. Both in a private
# mount namespace, so the machine's own mount is never touched.
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private sh -c '
		umount "$1" || exit 3
		"$2" --check >"$3/nm-check.txt" 2>&1 || exit 4
		grep -c tracefs /proc/mounts >"$3/nm-after-check.txt"
		"$2" -q -o "$3/nm.dat" -e sched:sched_switch -- "$4" 2 || exit 5
		grep -c tracefs /proc/mounts >"$3/nm-after-rec.txt"
		mount -t tmpfs none /sys/kernel || exit 6
		"$2" -q -o "$3/nm2.dat" -e sched:sched_switch -- "$4" 1 2>"$3/nm2.err"
		echo $? >"$3/nm2.rc"
		exit 0' sh "$tfs" "$rec" "$work" "$target"
	rc=$?
	check "not mounted: the namespace is set up (status $rc)" [ $rc -eq 0 ]
	check "not mounted: --check mounts tracefs and says so" \
		grep -q "(mounted for this check)" "$work/nm-check.txt"
	check "not mounted: unmounted again after --check" [ "$(cat "$work/nm-after-check.txt")" = 0 ]
	"$darc" info "$work/nm.dat" >/dev/null 2>&1
	check "not mounted: the recording is read by darc" [ $? -eq 0 ]
	check "not mounted: unmounted again after the recording" \
		[ "$(cat "$work/nm-after-rec.txt")" = 0 ]
	check "cannot mount: exit 1" [ "$(cat "$work/nm2.rc")" = 1 ]
	check "cannot mount: one line says so" \
		[ "$(wc -l <"$work/nm2.err")" = 1 ] && grep -q "no tracefs: it is not mounted and cannot be mounted" "$work/nm2.err"
	check "cannot mount: no output" [ ! -e "$work/nm2.dat" ]
	state_same "after the mount namespace tests"
else
	echo "note: no unshare -m here: the tracefs-not-mounted cases are not run"
fi
"$rec" -q -o "$work/u.dat" -U "$target:no_such_function" -- "$target" 1 2>"$work/u.err"
check "--ufunc on a missing function: exit 2" [ $? -eq 2 ]
check "--ufunc on a missing function: named" grep -q "no function 'no_such_function'" "$work/u.err"
state_same "at the end"
summary
