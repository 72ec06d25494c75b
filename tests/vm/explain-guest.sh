#!/bin/sh
# explain-guest.sh: runs INSIDE the VM (busybox sh), started by
# tests/vm/explain-record.sh with trace-cmd and explain-workload added.
# Records the workloads of darc explain's wake-up checks with trace-cmd, each
# twice: pid-filtered (-F -c, as the issue's recordings: the idle CPUs'
# interrupts are not in them) and on every CPU (the truth of who woke whom).
#   pipe-F.dat, pipe-all.dat    explain-workload pipe (consumer, producer, disk)
#   futex-F.dat, futex-all.dat  explain-workload futex 4 threads
#   pipe-rec.dat                the pipe with darc-record (when it was added)
# Each W.dat with W.cmd (the command) and W.log (trace-cmd's output) in $OUT.
set -e
S=${SCRATCH:?}
N=${1:-100}
say() { echo "explain-guest: $*"; }

vm-workload prepare $S/cold 32 cold
rec() { # NAME WORKLOAD-ARGS...: with -F -c, then on every CPU
	name=$1
	shift
	for how in F all; do
		[ $how = F ] && filt="-F -c" || filt=""
		echo 3 >/proc/sys/vm/drop_caches
		cmd="trace-cmd record -o $OUT/$name-$how.dat -b 8192 -p function_graph $G -e sched -e irq -e irq_vectors -e block --max-graph-depth 10 $filt explain-workload $*"
		echo "$cmd" >$OUT/$name-$how.cmd
		say "$cmd"
		$cmd >$OUT/$name-$how.log 2>&1 || { cat $OUT/$name-$how.log; exit 1; }
	done
}
G_PIPE="-g __x64_sys_read -g __x64_sys_pread64"
G=$G_PIPE
rec pipe pipe $S/cold $N
G="-g __x64_sys_futex"
rec futex futex 4 $N
# and with darc-record, when it was added: the pipe recording
if command -v darc-record >/dev/null; then
	echo 3 >/proc/sys/vm/drop_caches
	cmd="darc-record -q -f -o $OUT/pipe-rec.dat $G_PIPE -- explain-workload pipe $S/cold $N"
	echo "$cmd" >$OUT/pipe-rec.cmd
	$cmd >$OUT/pipe-rec.log 2>&1 || { cat $OUT/pipe-rec.log; exit 1; }
fi
ls -l $OUT
