#!/bin/sh
# guest-record.sh: runs INSIDE the VM (busybox sh), started by tests/vm/vm.sh
# with trace-cmd added (--add "$(command -v trace-cmd)").  Makes one
# trace-cmd recording per workload named on the command line:
#
#   guest-record.sh [--quick] [--file-version N] [--compression C]
#                   [--text-kallsyms] WORKLOAD...
#
# WORKLOAD is odirect, zeroread, cpuhog, getrandom (16 KiB getrandom beside a
# CPU hog), stat (a deep path), chain (a pipe wake-up chain) (see workload.c), fsyncread (writes +
# fsync, then odirect's reads, graph rooted at __x64_sys_pread64 with plain
# kprobes on submit_bio/bio_endio and no return probes), preads (O_DIRECT and
# cached 4 KiB preads, graph rooted at __x64_sys_pread64, no kprobes; run it
# twice, or as preads2, for a second recording of the same workload),
# append1 / append2 (1 or 2 writer processes appending 4 KiB writes to one
# O_APPEND file, graph rooted at __x64_sys_write, sched events only, no
# kprobes), or fgbench[:N]:
# a long zeroread (N reads, default 200000: some 6 M events) for
# tests/bench/mkrec-vm.sh, which also records fgappend[:N] (2 writers
# appending N 4 KiB writes each to one ext4 file, graph rooted at ksys_write,
# depth unlimited) and fgmix[:N] (N rounds of mixread: O_DIRECT, cached and
# sequential buffered preads with readahead, graph rooted at
# __x64_sys_pread64, depth unlimited, block, sched and irq events).  --quick
# makes shorter runs (for tests).  --text-kallsyms gives trace-cmd a
# /proc/kallsyms of the text symbols only (a bind mount): 7.3's has 216 k
# symbols, 1.9 MB compressed in every recording, of which the data symbols
# name nothing a trace refers to.  For each workload W it writes to $OUT:
#   W.dat   the recording
#   W.cmd   the exact commands used (kprobe definitions, trace-cmd command)
#   W.log   trace-cmd's output
# and once: guest-info.txt (kernel, command line, what tracing supports).
#
# The exit status is non-zero if anything failed.

set -e

T=/sys/kernel/tracing
S=${SCRATCH:?}
QUICK=0
FILE_VERSION=
COMPRESSION=
TEXT_KALLSYMS=0

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--file-version) FILE_VERSION=$2; shift 2 ;;
	--compression) COMPRESSION=$2; shift 2 ;;
	--text-kallsyms) TEXT_KALLSYMS=1; shift ;;
	-*) echo "guest-record: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "guest-record: no workload given" >&2; exit 2; }

say() { echo "guest-record: $*"; }

grep -qw function_graph $T/available_tracers ||
	{ say "function_graph is not available in this kernel"; exit 1; }
[ -e $T/kprobe_events ] ||
	{ say "kprobe_events is not available in this kernel"; exit 1; }

# --- kprobes: bio submission/completion, and entry/return of vfs_read -------
# shellcheck disable=SC2016 # $retval is for the kernel, not the shell
KPROBES='p:submit_bio submit_bio bio=%di
p:bio_endio bio_endio bio=%di
p:vfs_read vfs_read count=%dx
r:vfs_read_ret vfs_read ret=$retval'

# only submission and completion: no return probe, so every hit is a point
KPROBES_BIO='p:submit_bio submit_bio bio=%di
p:bio_endio bio_endio bio=%di'

# set_kprobes DEFS: kprobe_events holds exactly DEFS (one per line) afterwards
set_kprobes() {
	KP=$1
	echo >$T/kprobe_events
	while read -r line; do
		[ -n "$line" ] || continue
		echo "$line" >>$T/kprobe_events || { say "cannot add kprobe '$line'"; exit 1; }
	done <<EOF
$KP
EOF
}
set_kprobes "$KPROBES"

# --- what this kernel can do --------------------------------------------
{
	echo "uname: $(uname -a)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(nproc)"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "trace_clock: $(cat $T/trace_clock)"
	echo "tracers: $(cat $T/available_tracers)"
	echo "kprobe_events: $(tr '\n' ';' <$T/kprobe_events)"
	echo "uprobe_events: $([ -e $T/uprobe_events ] && echo yes || echo no)"
	echo "funcgraph-args: $([ -e $T/options/funcgraph-args ] && echo yes || echo no)"
	for s in irq irq_vectors block sched kprobes; do
		echo "events/$s: $([ -d $T/events/$s ] && echo yes || echo no)"
	done
	echo "trace-cmd: $(trace-cmd --version 2>&1 | grep version)"
	dmesg | grep -E 'tsc:|clocksource:|Dynamic Preempt' || true
} >"$OUT/guest-info.txt"
cat "$OUT/guest-info.txt"

if [ "$TEXT_KALLSYMS" = 1 ]; then
	# functions (t, T, weak w, W), IBT's __pfx_ padding symbols among them
	grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms >/tmp/kallsyms.text
	KALLSYMS="$(wc -l </tmp/kallsyms.text) of $(wc -l </proc/kallsyms) symbols, the text ones (t, T, w, W)"
	mount --bind /tmp/kallsyms.text /proc/kallsyms ||
		{ say "cannot bind-mount over /proc/kallsyms"; exit 1; }
	say "kallsyms for trace-cmd: $KALLSYMS"
fi

# --- data files on the scratch ext4 disk ----------------------------------
if [ "$QUICK" = 1 ]; then
	N_ODIRECT=32 N_ZERO=2000 N_HOG=2 HOG_MIB=8 N_PREADS=50 N_APPEND=50
else
	N_ODIRECT=48 N_ZERO=2000 N_HOG=3 HOG_MIB=16 N_PREADS=200 N_APPEND=300
fi
vm-workload prepare "$S/cold" 64 cold
vm-workload prepare "$S/warm" 4 warm
vm-workload prepare "$S/big" "$HOG_MIB" warm
sync

# Common trace-cmd options: function_graph rooted at vfs_read, the kprobes,
# block, scheduling and interrupt events, 8 MiB per-CPU buffers.
EVENTS="-e kprobes -e block -e sched:sched_switch -e sched:sched_wakeup
	-e sched:sched_waking -e irq -e irq_vectors"
REC_OPTS=
# the graph's arguments too where the kernel records them (7.3 does; 6.1 and 6.12 cannot)
[ ! -e $T/options/funcgraph-args ] || REC_OPTS="-O funcgraph-args"
[ -z "$FILE_VERSION" ] || REC_OPTS="$REC_OPTS --file-version $FILE_VERSION"
[ -z "$COMPRESSION" ] || REC_OPTS="$REC_OPTS --compression $COMPRESSION"

# record NAME [trace-cmd options] COMMAND...: function_graph rooted at
# $GRAPH (default vfs_read), events $EVENTS, the kprobes set_kprobes last set
record() {
	name=$1
	shift
	# shellcheck disable=SC2086 # word splitting of option lists is wanted
	set -- trace-cmd record -o "$OUT/$name.dat" $REC_OPTS -b 8192 \
		-p function_graph -g "${GRAPH:-vfs_read}" $EVENTS "$@"
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		[ "$TEXT_KALLSYMS" = 0 ] || echo "kallsyms: $KALLSYMS"
		[ -z "$KP" ] || echo "$KP" | sed "s|^|echo '|; s|\$|' >> $T/kprobe_events|"
		echo "$*"
	} >"$OUT/$name.cmd"
	say "$name: $*"
	start=$(cut -d' ' -f1 /proc/uptime)
	if ! "$@" >"$OUT/$name.log" 2>&1; then
		cat "$OUT/$name.log"
		say "$name: trace-cmd record failed"
		exit 1
	fi
	end=$(cut -d' ' -f1 /proc/uptime)
	say "$name: done in $(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')s," \
		"$(wc -c <"$OUT/$name.dat") bytes"
	tail -n 20 "$OUT/$name.log"
}

# user_record KIND[:N]: one recording of workload KIND as a user would make
# it (see user-* below), N rounds: user-KIND.dat. KIND is append (two
# writers appending 4 KiB to one file), preads (O_DIRECT and cached 4 KiB
# preads), stat (a path 16 directories deep), getrandom (16 KiB beside a CPU
# hog on CPU 0) or zeroread (read(fd, buf, 0)).
user_record() {
	kind=${1%%:*}
	n=${1#"$kind"}
	n=${n#:}
	set_kprobes ""
	case $kind in
	append) g=__x64_sys_write cmd="append $S/user-appended 2 ${n:-650} 4096" ;;
	preads) g=__x64_sys_pread64 cmd="preads $S/cold $S/warm ${n:-400}" ;;
	stat) g=__x64_sys_newfstatat cmd="stat $S/user-deep 16 ${n:-2000}" ;;
	getrandom) g=__x64_sys_getrandom cmd="getrandom ${n:-1500} 16384 hog" ;;
	zeroread) g=__x64_sys_read cmd="zeroread $S/warm ${n:-20000}" ;;
	*) say "unknown user workload $kind"; exit 2 ;;
	esac
	[ "$kind" != getrandom ] || vm-workload getrandom 1 16 alone
	# trace-cmd's defaults: no funcgraph-args, the file version it writes
	saved_opts=$REC_OPTS
	REC_OPTS=
	# shellcheck disable=SC2086 # $cmd is the workload's words
	GRAPH=$g EVENTS="-e sched -e irq -e block" record "user-$kind" vm-workload $cmd
	REC_OPTS=$saved_opts
	set_kprobes "$KPROBES"
}

for w in "$@"; do
	case $w in
	odirect)
		# Not filtered by pid: bio completions run in interrupt context
		# of whatever task is on the CPU (often idle), and a pid filter
		# would drop them.
		record odirect --max-graph-depth 8 \
			vm-workload odirect "$S/cold" "$S/warm" "$N_ODIRECT"
		;;
	fsyncread)
		# the kprobes fire in the task before its first pread64, outside
		# the graph's roots; not pid-filtered, for the completions
		set_kprobes "$KPROBES_BIO"
		GRAPH=__x64_sys_pread64 EVENTS="-e kprobes -e block -e sched -e irq" \
			record fsyncread --max-graph-depth 8 \
			vm-workload fsyncread "$S/cold" "$S/warm" "$S/written" "$N_ODIRECT"
		set_kprobes "$KPROBES"
		;;
	preads | preads2)
		# no kprobes; not pid-filtered, for the completions in irq context.
		# Once, an unrecorded run first: the first pass over the O_DIRECT
		# offsets (the same each run) is slower on the host's storage than
		# later ones, which made preads and preads2 differ.
		if [ -z "${PREADS_WARMED:-}" ]; then
			vm-workload preads "$S/cold" "$S/warm" "$N_PREADS"
			PREADS_WARMED=1
		fi
		set_kprobes ""
		GRAPH=__x64_sys_pread64 EVENTS="-e sched -e irq -e block" \
			record "$w" --max-graph-depth 6 \
			vm-workload preads "$S/cold" "$S/warm" "$N_PREADS"
		set_kprobes "$KPROBES"
		;;
	append1 | append2)
		# writers contend for the file's inode lock (down_write in
		# ext4_buffered_write_iter) when there are two, each pinned to
		# its own vCPU; that needs vCPUs that really run in parallel
		# (multi-threaded TCG: DARC_VM_ACCEL=tcg on the host, see
		# make-samples.sh).  -F -c follows the workload and its forked
		# writers only.
		set_kprobes ""
		GRAPH=__x64_sys_write EVENTS="-e sched" \
			record "$w" --max-graph-depth 6 -F -c \
			vm-workload append "$S/appended" "${w#append}" "$N_APPEND" 4096
		set_kprobes "$KPROBES"
		;;
	getrandom)
		# CPU-bound system calls of 16 KiB beside a CPU hog on CPU 0:
		# the slow ones are preempted inside the kernel (preempt=full)
		# (one call first, unrecorded: the first getrandom of a fresh boot
		# may wait for the entropy pool)
		vm-workload getrandom 1 16 alone
		set_kprobes ""
		GRAPH=__x64_sys_getrandom EVENTS="-e sched" \
			record getrandom --max-graph-depth 2 -F -c \
			vm-workload getrandom "${N_GETRANDOM:-1500}" 16384 hog
		set_kprobes "$KPROBES"
		;;
	stat)
		# stat() of a file 16 directories deep: the path walk
		set_kprobes ""
		GRAPH=__x64_sys_newfstatat EVENTS="-e sched -e irq" \
			record stat --max-graph-depth 6 -F \
			vm-workload stat "$S/deep" 16 "${N_STAT:-400}"
		set_kprobes "$KPROBES"
		;;
	chain)
		# three processes over two pipes: the first waits on the second,
		# which waits on the third, whose 2 ms sleeps time out (a wake-up
		# chain two levels deep); not pid-filtered, for the timer
		# interrupts on idle CPUs that end the sleeps
		set_kprobes ""
		GRAPH=__x64_sys_read EVENTS="-e sched -e irq -e irq_vectors" \
			record chain --max-graph-depth 3 \
			vm-workload chain "${N_CHAIN:-100}" 2000
		set_kprobes "$KPROBES"
		;;
	zeroread)
		record zeroread --max-graph-depth 8 -F \
			vm-workload zeroread "$S/warm" "$N_ZERO"
		;;
	cpuhog)
		record cpuhog --max-graph-depth 6 -F -c \
			vm-workload cpuhog "$S/big" "$N_HOG" 1024
		;;
	fgbench | fgbench:*)
		n=${w#fgbench}
		n=${n#:}
		record fgbench --max-graph-depth 8 -F \
			vm-workload zeroread "$S/warm" "${n:-200000}"
		;;
	fgappend | fgappend:*)
		n=${w#fgappend}
		n=${n#:}
		set_kprobes ""
		GRAPH=ksys_write EVENTS="-e sched" \
			record fgappend -F -c \
			vm-workload append "$S/appended" 2 "${n:-4000}" 4096
		set_kprobes "$KPROBES"
		;;
	fgmix | fgmix:*)
		n=${w#fgmix}
		n=${n#:}
		set_kprobes ""
		GRAPH=__x64_sys_pread64 EVENTS="-e sched -e irq -e block" \
			record fgmix \
			vm-workload mixread "$S/cold" "$S/warm" "${n:-2000}"
		set_kprobes "$KPROBES"
		;;
	user-*)
		# as a user records, for tests/bench/bench-profile.sh: the graph
		# rooted at the system call, depth unlimited, sched, irq and
		# block events, not pid-filtered, no kprobes
		user_record "${w#user-}"
		;;
	*)
		say "unknown workload $w"
		exit 2
		;;
	esac
done
echo >$T/kprobe_events
