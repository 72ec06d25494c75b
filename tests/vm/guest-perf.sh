#!/bin/sh
# guest-perf.sh: runs INSIDE the VM (busybox sh), started by tests/vm/vm.sh
# with perf and trace-cmd added (--add /usr/bin/perf --add trace-cmd), by
# tests/vm/make-perf-samples.sh.  The same workload (vm-workload odirect:
# O_DIRECT and cached preads) is recorded twice with the same events, once by
# perf record and once by trace-cmd record: kprobe + kretprobe on vfs_read
# and uprobe + uretprobe on the workload's pread64, made by perf probe, and
# sched_switch/wakeup/waking, system-wide both times (perf record -a; trace-cmd
# record without -F).  Writes to $OUT: perf-odirect.perf.data,
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
perf probe -l >>"$OUT/probes.log" 2>&1
cat "$OUT/probes.log"
vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
sync
vm-workload odirect "$S/cold" "$S/warm" "$N" # unrecorded: warms up what can be
EV="probe:vfs_read probe:vfs_read__return probe_vm:pread64 probe_vm:pread64__return
sched:sched_switch sched:sched_wakeup sched:sched_waking"
PE= TE=
for e in $EV; do PE="$PE -e $e" TE="$TE -e $e"; done
# shellcheck disable=SC2086
run perf-odirect perf record -a -o "$OUT/perf-odirect.perf.data" $PE -- $W odirect "$S/cold" "$S/warm" "$N"
# shellcheck disable=SC2086
run tc-odirect trace-cmd record -o "$OUT/tc-odirect.dat" $TE $W odirect "$S/cold" "$S/warm" "$N"
ls -la "$OUT"
