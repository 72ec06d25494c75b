#!/bin/sh
# guest-real.sh: runs INSIDE the VM (busybox sh), started by
# tests/vm/make-real-samples.sh with trace-cmd and darc-record added.
# Records realistic cases for darc explain's truth (tests/golden/real.sh),
# each three ways:
#
#   guest-real.sh [--no-trim] CASE...
#
#   CASE-tc.dat     trace-cmd record, every task (no -F)
#   CASE-tcF.dat    trace-cmd record -F -c (the workload and its children
#                   only: the interrupts that hit an idle CPU are missing)
#   CASE-darc.dat   darc-record (sched events filtered on the workload's
#                   pids, irq and block events of every task)
#   CASE-*.cmd      the exact commands, CASE-*.log their output
#
# All three: function_graph rooted at the case's entry point (-g), its
# depth limit and notrace functions, sched, irq and block events, 8 MiB
# per-CPU buffers. The cases (vm-workload's subcommands, tests/vm/workload.c):
#   jsync      fdatasync of a small file while another process writes 256 KiB
#              chunks and starts their writeback (journal commits behind a writer)
#   mmapfault  faults on a cold file mapped with MADV_RANDOM, beside minor
#              faults on a cached one (handle_mm_fault)
#   flock      three processes on one flock, two vCPUs
#   dirty      4 MiB of buffered writes with vm.dirty_bytes lowered to 32 KiB
#              (dirty throttling in balance_dirty_pages)
#   chain3     an eventfd reader woken by a thread that waits on a futex for a
#              thread that writes and fdatasyncs 4 KiB: three waiting tasks
#
# To keep the files small, trace-cmd and darc-record see a /proc/kallsyms
# (a copy bind-mounted over it) that holds only the functions the cases
# call: first each case is recorded once with the whole kallsyms and the
# function names of its graph are taken from `trace-cmd report -R`; the copy
# keeps those symbols, those at the same addresses, the symbol right after
# each (so that no other function's address falls into a kept one's range:
# it would be named after the kept one), and _text/_stext/_etext. A
# function that the first run did not call is named after the symbol before
# it, one of those "right after" symbols: the names of a kept recording that
# the first run did not call are listed in $OUT/unknown-names.txt (a few
# calls in thousands: scheduler and interrupt paths that run by chance).
# --no-trim keeps the whole kallsyms and skips the first runs.
set -e
S=${SCRATCH:?}
TRIM=1
[ "${1:-}" != --no-trim ] || { TRIM=0; shift; }
[ $# -gt 0 ] || { echo "guest-real: no case given" >&2; exit 2; }
say() { echo "guest-real: $*"; }

# the case's entry point, graph depth, notrace functions and command
case_def() {
	NOTRACE=
	case $1 in
	jsync) ENTRY=__x64_sys_fdatasync DEPTH=10
		CMD="vm-workload jsync $S/big $S/small 24" ;;
	mmapfault) ENTRY=handle_mm_fault DEPTH=10
		CMD="vm-workload mmapfault $S/cold $S/warm 40" ;;
	flock) ENTRY=__x64_sys_flock DEPTH=8
		CMD="vm-workload flock $S/lock 3 30 40000" ;;
	dirty) ENTRY=__x64_sys_write DEPTH=10
		NOTRACE="ext4_da_write_begin ext4_da_write_end"
		CMD="vm-workload dirty $S/dirty 4 128" ;;
	chain3) ENTRY=__x64_sys_read DEPTH=8
		CMD="vm-workload chain3 $S/chainfile 30" ;;
	*) say "unknown case $1"; exit 2 ;;
	esac
}

# the same state before every run: nothing dirty, the cold file out of the
# page cache and the warm ones in it; the dirty case's limits only for it.
# (`reset CASE light`, in the first run, under the graph of write(): the cold
# file dropped by itself, not the whole page cache by drop_caches, whose
# write would put every page it frees into the graph.)
reset() {
	sync
	if [ "${2:-}" = light ]; then
		vm-workload drop "$S/cold"
	else
		echo 3 >/proc/sys/vm/drop_caches
		cat "$S/warm" "$S/chainfile" >/dev/null
	fi
	if [ "$1" = dirty ]; then
		echo 16384 >/proc/sys/vm/dirty_background_bytes
		echo 32768 >/proc/sys/vm/dirty_bytes
	else
		echo 10 >/proc/sys/vm/dirty_background_ratio
		echo 20 >/proc/sys/vm/dirty_ratio
	fi
}

# the -n options of the function names in $1 (one word each, for word splitting)
notrace() { for f in $1; do printf '%s ' -n "$f"; done; }

# tc NAME FILTER: trace-cmd record of the case into $OUT/NAME.dat (FILTER:
# the options of -F or nothing)
tc() {
	name=$1
	shift
	# shellcheck disable=SC2046,SC2086 # option lists split into words
	set -- trace-cmd record -o "$OUT/$name.dat" -b 8192 -p function_graph -g "$ENTRY" \
		--max-graph-depth "$DEPTH" $(notrace "$NOTRACE") -e sched -e irq -e block "$@" $CMD
	run "$name" "$@"
}

# dr NAME: darc-record of the case into $OUT/NAME.dat
dr() {
	name=$1
	# shellcheck disable=SC2046,SC2086 # option lists split into words
	set -- darc-record -o "$OUT/$name.dat" -q -b 8192 -g "$ENTRY" --max-depth "$DEPTH" \
		$(notrace "$NOTRACE") -- $CMD
	run "$name" "$@"
}

# run NAME COMMAND...: one recording, its .cmd and .log
run() {
	name=$1
	shift
	{
		echo "kernel $(uname -r); cmdline $(cat /proc/cmdline)"
		[ "$TRIM" = 0 ] || echo "kallsyms: $KALLSYMS"
		echo "vm.dirty_bytes $(cat /proc/sys/vm/dirty_bytes)" \
			"vm.dirty_background_bytes $(cat /proc/sys/vm/dirty_background_bytes)"
		echo "$*"
	} >"$OUT/$name.cmd"
	"$@" >"$OUT/$name.log" 2>&1 ||
		{ cat "$OUT/$name.log"; say "$name: the recording failed"; exit 1; }
	say "$name: $(wc -c <"$OUT/$name.dat") bytes"
}

# the function names of a recording's graph, one a line
graph_names() {
	trace-cmd report -R -i "$1" 2>/dev/null |
		sed -n 's/.* funcgraph_entry: *func=\([^ ]*\) .*/\1/p' | sort -u
}

# /tmp/kallsyms.trim from /tmp/names (see the comment at the top)
trim_kallsyms() {
	sort /proc/kallsyms >/tmp/kallsyms.sorted
	awk -v names=/tmp/names '
		BEGIN { while ((getline n <names) > 0) want[n] = 1 }
		FNR == NR { if ($3 in want) keep[$1] = 1; next }
		$1 != cur { bound = (cur in keep) && !($1 in keep); cur = $1 }
		($1 in keep) || bound || $3 == "_text" || $3 == "_stext" || $3 == "_etext"
	' /tmp/kallsyms.sorted /tmp/kallsyms.sorted >/tmp/kallsyms.trim
	KALLSYMS="$(wc -l </tmp/kallsyms.trim) of $(wc -l </proc/kallsyms) symbols: the functions the cases call and the symbol after each"
	mount --bind /tmp/kallsyms.trim /proc/kallsyms ||
		{ say "cannot bind-mount over /proc/kallsyms"; exit 1; }
	say "kallsyms for the recorders: $KALLSYMS"
}

{
	echo "uname: $(uname -a)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "cpus: $(nproc)"
	echo "trace-cmd: $(trace-cmd --version 2>&1 | grep 'trace-cmd version')"
	echo "darc-record: $(darc-record --version 2>&1 | head -n 1)"
} >"$OUT/guest-info.txt"
cat "$OUT/guest-info.txt"

vm-workload prepare "$S/cold" 32 cold
vm-workload prepare "$S/warm" 8 warm
vm-workload prepare "$S/chainfile" 8 warm

if [ "$TRIM" = 1 ]; then
	# one recording of every case, so that function_graph is switched on
	# once (patching every function takes 20-40 s under TCG)
	entries='' notraced='' all=
	for c in "$@"; do
		case_def "$c"
		entries="$entries -g $ENTRY"
		notraced="$notraced $NOTRACE"
		all="$all
reset $c light
$CMD"
	done
	{ sed -n '/^reset() {$/,/^}$/p' "$0"; echo "$all"; } >/tmp/all.sh
	# shellcheck disable=SC2046,SC2086 # option lists split into words
	trace-cmd record -o /tmp/first.dat -b 8192 -p function_graph $entries \
		--max-graph-depth 12 $(notrace "$notraced") \
		-e sched -e irq -e block env S="$S" sh /tmp/all.sh >/tmp/first.log 2>&1 ||
		{ cat /tmp/first.log; say "the first run failed"; exit 1; }
	graph_names /tmp/first.dat >/tmp/names
	say "the first run: $(wc -c </tmp/first.dat) bytes, $(wc -l </tmp/names) functions"
	rm -f /tmp/first.dat
	trim_kallsyms
fi

: >"$OUT/unknown-names.txt"
for c in "$@"; do
	case_def "$c"
	for how in tc tcF darc; do
		reset "$c"
		case $how in
		tc) tc "$c-tc" ;;
		tcF) tc "$c-tcF" -F -c ;;
		darc) dr "$c-darc" ;;
		esac
		[ "$TRIM" = 0 ] || graph_names "$OUT/$c-$how.dat" | grep -vxF -f /tmp/names |
			sed "s/^/$c-$how: /" >>"$OUT/unknown-names.txt" || true
	done
done
reset none
if [ -s "$OUT/unknown-names.txt" ]; then
	say "functions the first runs did not call (named after a neighbour):"
	cat "$OUT/unknown-names.txt"
fi
say "done"
