#!/bin/bash
# bench-record.sh: darc-record under a system call storm, on this host, tracepoints only.
#
#   tests/bench/bench-record.sh DARC_RECORD DARC [THREADS [PREADS [BUFFERS_KB...]]]
#
# Runs storm (tests/bench/storm.c: THREADS threads, default 2, one per CPU, each doing
# PREADS cached 4 KiB preads, default 1000000) once untraced, then under
#   darc-record -e raw_syscalls -b KB -- storm ...
# for each buffer size (default: darc-record's default, then 1024 and 256 KB per CPU),
# and prints per run: events recorded, events/s over the recording, events lost (the
# recorder's overrun counts and the lost-event marks in the pages), darc-record's own CPU
# time while recording (all its threads; the storm is a child, not counted) and in all
# (with the bundle written), the bundle size and how much the storm slowed down.
# Root only; darc-record restores tracefs itself.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rec=${1:?usage: bench-record.sh DARC_RECORD DARC [THREADS [PREADS [BUFFERS_KB...]]]}
darc=${2:?usage: bench-record.sh DARC_RECORD DARC [THREADS [PREADS [BUFFERS_KB...]]]}
threads=${3:-2}
preads=${4:-1000000}
shift $(($# > 4 ? 4 : $#))
buffers=("${@:-default}")
[ $# -gt 0 ] || buffers=(default 1024 256)
[ "$(id -u)" -eq 0 ] || die "needs root (tracefs)"
[ -x "$rec" ] || die "no darc-record at '$rec' (build it: ninja -C build)"
[ -x "$darc" ] || die "no darc at '$darc'"
need_cmd python3

work=$(mktemp -d /tmp/darc-bench-record.XXXXXX)
trap 'rm -rf "$work"' EXIT
build_c "$work/storm" "$bench_dir/storm.c" -pthread
dd if=/dev/zero of="$work/file" bs=1M count=64 status=none
cat "$work/file" >/dev/null

# storm's own report: "storm: N preads of B bytes on T threads in S s"
storm_secs() { sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$1"; }

"$work/storm" "$work/file" "$threads" "$preads" >"$work/base.txt"
base=$(storm_secs "$work/base.txt")
echo "host: $(uname -r), $(nproc) CPUs; storm: $threads threads x $preads cached 4 KiB preads"
printf 'untraced storm: %s s, %.2f M preads/s\n' "$base" \
	"$(python3 -c "print($threads * $preads / $base / 1e6)")"
echo
printf '%-9s %10s %11s %8s %14s %12s %9s %8s\n' buffer events "events/s" lost \
	"rec CPU (rec)" "rec CPU all" bundle slowdown
for kb in "${buffers[@]}"; do
	out=$work/storm-$kb.dat
	opt=()
	[ "$kb" = default ] || opt=(-b "$kb")
	"$rec" -o "$out" "${opt[@]}" -e raw_syscalls -- \
		"$work/storm" "$work/file" "$threads" "$preads" >"$work/storm-$kb.txt" 2>"$work/rec-$kb.err" ||
		die "darc-record failed: $(tail -1 "$work/rec-$kb.err")"
	all=$(sed -n 's/.*recording, \([0-9.]*\) s in all$/\1/p' "$work/rec-$kb.err")
	secs=$(storm_secs "$work/storm-$kb.txt")
	"$darc" info --json "$out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
m = d['manifest']
span = (m['stop']['monotonic']['sec'] - m['start']['monotonic']['sec']) + \
       (m['stop']['monotonic']['nsec'] - m['start']['monotonic']['nsec']) / 1e9
marks = sum(c['lost'] for b in d['buffers'] for c in b['cpus'])
lost = max(m['lost_events'], marks)
cpu = m['recorder_cpu_s']
print('%-9s %10d %9.2f M %8d %5.2f+%-5.2f s %10s s %7.1f MB %7.2fx' % (
    '$kb', d['events'], d['events'] / span / 1e6, lost, cpu['user'], cpu['system'],
    '$all', $(stat -c %s "$out") / 1e6, $secs / $base))
"
done
echo
echo "events/s: events in the bundle / recording time (start to stop, manifest);"
echo "lost: the larger of the per-CPU overrun counts and the lost-event marks;"
echo "rec CPU (rec): darc-record's user+system CPU while recording; all: with the bundle"
echo "written (zstd); slowdown: storm time traced / untraced."
