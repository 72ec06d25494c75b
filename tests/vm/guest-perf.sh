#!/bin/sh
# guest-perf.sh: runs INSIDE the VM (busybox sh), started by tests/vm/vm.sh
# with perf and trace-cmd added (--add /usr/bin/perf --add trace-cmd), by
# tests/vm/make-perf-samples.sh.  One run of a workload (vm-workload odirect:
# O_DIRECT and cached preads) is recorded by perf record and by trace-cmd at
# the same time, with the same events: kprobe + kretprobe on vfs_read
# and uprobe + uretprobe on the workload's pread64, made by perf probe, and
# sched_switch/wakeup/waking, system-wide both (perf record -a; trace-cmd
# start without -F).  Writes to $OUT: perf-odirect.perf.data,
# tc-odirect.dat, *.cmd (the commands) and *.log.
set -e
S=${SCRATCH:?}
N=${1:-48}
W=/usr/local/bin/vm-workload
say() { echo "guest-perf: $*"; }
run() { # NAME COMMAND...: run, log to $OUT/NAME.log, record the command
	name=$1
	shift
	echo "$*" >>"$OUT/$name.cmd"
	say "$*"
	"$@" >>"$OUT/$name.log" 2>&1 || { cat "$OUT/$name.log"; say "failed: $*"; exit 1; }
}
echo "kernel $(uname -r); cmdline $(cat /proc/cmdline); $(perf --version)" >"$OUT/probes.cmd"
# shellcheck disable=SC2016 # $retval is perf probe's, not the shell's
run probes perf probe -a vfs_read -a 'vfs_read%return $retval'
run probes perf probe -x $W -a pread64 -a 'pread64%return $retval'
# A uprobe serves ftrace or perf, not both at once (EINTR): trace-cmd gets
# copies of perf probe's, same definitions in group tc_vm.
U=/sys/kernel/tracing/uprobe_events
sed -n 's,^\([pr]\):probe_vm/,\1:tc_vm/,p' $U >"$OUT/tc-uprobes"
cat "$OUT/tc-uprobes" >>$U
echo "uprobe_events += $(tr "\n" ";" <"$OUT/tc-uprobes" | sed "s/;$//; s/;/; /g")" >>"$OUT/probes.cmd"
perf probe -l >>"$OUT/probes.log" 2>&1
cat "$OUT/probes.log"
vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
sync
vm-workload odirect "$S/cold" "$S/warm" "$N" # unrecorded: warms up what can be
# vfs_read only in the workload: perf record's own start-up reads thousands of
# files while ftrace is already on (and would overrun its buffer).
F='comm == "vm-workload"'
SCHED="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking"
# Both at once, on the same run: trace-cmd start arms the ftrace ring buffer
# on perf's clock (-C perf: local_clock, perf record's default), perf record
# runs the workload, then trace-cmd extract saves what ftrace saw.
# shellcheck disable=SC2086
run tc-odirect trace-cmd start -C perf -e tc_vm:pread64 -e tc_vm:pread64__return \
	-e probe:vfs_read -f "$F" -e probe:vfs_read__return -f "$F" $SCHED
# shellcheck disable=SC2086
run perf-odirect perf record -a -o "$OUT/perf-odirect.perf.data" \
	-e probe_vm:pread64 -e probe_vm:pread64__return \
	-e probe:vfs_read --filter "$F" -e probe:vfs_read__return --filter "$F" $SCHED \
	-- $W odirect "$S/cold" "$S/warm" "$N"
run tc-odirect trace-cmd stop
run tc-odirect trace-cmd extract -o "$OUT/tc-odirect.dat"
ls -la "$OUT"
