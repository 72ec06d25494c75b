#!/bin/sh
# guest-matrix.sh: runs INSIDE the VM (busybox sh), started by
# tests/matrix/record.sh through tests/vm/vm.sh with the trace-cmd builds
# added.  Records the matrix's cells of one kernel with each tool:
#
#   guest-matrix.sh KSERIES LABEL=TRACE-CMD...
#
# KSERIES is 61, 61c or 73 (which cells: the clocks, compressions and file
# versions on 6.1; the other clocks on 6.1; function_graph's funcgraph-args
# and funcgraph-retval on 7.3), each LABEL=TRACE-CMD a tool (316=/usr/bin/trace-cmd, 34=the sid
# wrapper...).  Every cell is one short `trace-cmd record`: function_graph
# on five functions of read(2) (set_ftrace_filter, so the trace names no
# other function), sched_switch, sched_wakeup and the irq events, around
# `dd bs=4096 count=8` of /dev/zero; trace-cmd sees a /proc/kallsyms of
# those five functions and the symbols after them (a bind mount), so the
# file stays small.  For each cell C of tool L it leaves in $OUT:
#   L-C.dat  the recording        L-C.cmd  the command line, the tool's version
#   L-C.log  trace-cmd's output   (a cell the tool or kernel cannot make
#   leaves L-C.skip saying why)
# The exit status is non-zero only if the lab itself failed.

T=/sys/kernel/tracing
KS=${1:?usage: guest-matrix.sh 61|73 LABEL=TRACE-CMD...}
shift

say() { echo "guest-matrix: $*"; }

FUNCS="__x64_sys_read ksys_read vfs_read read_zero __x64_sys_write"

# /proc/kallsyms as trace-cmd sees it: FUNCS and, for each, the next
# symbol (so an address past a function's start still falls inside it)
small_kallsyms() {
	umount /proc/kallsyms 2>/dev/null
	awk -v want="$FUNCS" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) k[w[i]] = 1 }
		next_too { print; next_too = 0 }
		($3 in k) { print; next_too = 1 }' /proc/kallsyms >/tmp/kallsyms.small
	mount --bind /tmp/kallsyms.small /proc/kallsyms ||
		{ say "cannot bind-mount over /proc/kallsyms"; exit 1; }
}

# cell TOOLLABEL TOOL NAME ARGS...: one recording, named LABEL-NAME
cell() {
	l=$1 tc=$2 name=$3
	shift 3
	f=$OUT/$l-$name
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	: >$T/set_ftrace_filter
	echo local >$T/trace_clock
	for o in funcgraph-args funcgraph-retval; do
		[ -e $T/options/$o ] && echo 0 >$T/options/$o
	done
	{
		echo "tool: $("$tc" --version 2>&1 | grep -m1 'version')"
		echo "kernel: $(uname -r)"
		echo "command: trace-cmd record -o $l-$name.dat $*" \
			"-p function_graph $(for x in $FUNCS; do printf -- '-l %s ' $x; done)" \
			"-e sched:sched_switch -e sched:sched_wakeup -e irq" \
			"dd if=/dev/zero of=/dev/null bs=4096 count=8"
	} >"$f.cmd"
	# shellcheck disable=SC2046 # one -l per function
	if ! "$tc" record -o "$f.dat" "$@" -p function_graph \
		$(for x in $FUNCS; do printf -- '-l %s ' $x; done) \
		-e sched:sched_switch -e sched:sched_wakeup -e irq \
		dd if=/dev/zero of=/dev/null bs=4096 count=8 >"$f.log" 2>&1; then
		{ echo "trace-cmd record failed:"; tail -5 "$f.log"; } >"$f.skip"
		rm -f "$f.dat"
		say "$l-$name: $(tr '\n' ' ' <"$f.skip")"
		return 0
	fi
	say "$l-$name: $(wc -c <"$f.dat") bytes"
}

# Does the tool take option $2? (3.1.6 is built without zlib, ...)
has_zlib() { "$1" list -c 2>/dev/null | grep -q zlib; }

cells61() {
	l=$1 tc=$2
	z=zlib
	has_zlib "$tc" || z=none
	cell "$l" "$tc" local-v6 --file-version 6 -C local
	cell "$l" "$tc" local-v7-$z --file-version 7 --compression $z -C local
	cell "$l" "$tc" mono-v7-zstd --file-version 7 --compression zstd -C mono
	cell "$l" "$tc" tsc2nsec-v7-zstd --file-version 7 --compression zstd -C x86-tsc --tsc2nsec
	cell "$l" "$tc" tsc2nsec-v6 --file-version 6 -C x86-tsc --tsc2nsec
	cell "$l" "$tc" tsc-v7 --file-version 7 --compression none -C x86-tsc
	cell "$l" "$tc" counter-v7 --file-version 7 --compression none -C counter
	cell "$l" "$tc" boot-v7 --file-version 7 --compression none -C boot
	cell "$l" "$tc" date-v7 --file-version 7 --compression none -C local --date
	cell "$l" "$tc" tsoffset-v6 --file-version 6 -C local --ts-offset 1000000000
}

# the other clocks: each nanoseconds but uptime (jiffies), which trace-cmd
# prints as seconds all the same
cellsclk() {
	l=$1 tc=$2
	for c in global perf mono_raw tai uptime; do
		cell "$l" "$tc" $c-v7 --file-version 7 --compression none -C $c
	done
}

cells73() {
	l=$1 tc=$2
	cell "$l" "$tc" fg-v7-zstd --file-version 7 --compression zstd -C local
	cell "$l" "$tc" fgargs-v7-zstd --file-version 7 --compression zstd -C local \
		-O funcgraph-args
	cell "$l" "$tc" fgretval-v7-zstd --file-version 7 --compression zstd -C local \
		-O funcgraph-retval
	cell "$l" "$tc" fgboth-v6 --file-version 6 -C local -O funcgraph-args -O funcgraph-retval
}

grep -qw function_graph $T/available_tracers ||
	{ say "function_graph is not available in this kernel"; exit 1; }
small_kallsyms
cat $T/trace_clock >"$OUT/trace_clock-$KS.txt"
for t in "$@"; do
	l=${t%%=*} tc=${t#*=}
	"$tc" --version 2>&1 | grep -q "version" || { say "$l: $tc does not run here"; exit 1; }
	case $KS in
	61) cells61 "$l" "$tc" ;;
	61c) cellsclk "$l" "$tc" ;;
	73) cells73 "$l" "$tc" ;;
	*) say "unknown kernel series $KS"; exit 2 ;;
	esac
done
umount /proc/kallsyms
exit 0
