#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Makes the parse-benchmark recordings: a pread storm (storm.c, 2 threads,
# each pinned to a CPU, pread()ing a cached 1 MB file) recorded on this host
# with raw_syscalls, sched and irq enabled (whole systems) in the top-level
# tracefs buffer, saved by `trace-cmd extract --compression zstd` as
#
#	OUT_DIR/bench-v7.dat	trace.dat v7, zstd
#	OUT_DIR/bench-v6.dat	the same, `trace-cmd convert --file-version 6`
#	OUT_DIR/bench-stats.txt	per-CPU ring-buffer stats at the end of the storm
#	OUT_DIR/bench-counts.txt events per name and totals
#
# usage: mkrec.sh [OUT_DIR]    (default: $BENCH_OUT, else build/bench of this checkout)
#
# Existing recordings are reused (delete them, or set FORCE=1, to record
# again); recording needs root and tracefs. PREADS (preads per thread,
# default 1400000) and BUFFER_KB (per-CPU ring buffer, default 200000) tune
# the size; the script fails if the recording has fewer than MIN_EVENTS
# (default 5000000) events or if the ring buffer lost any event.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out=${1:-${BENCH_OUT:-$repo_dir/build/bench}}
preads=${PREADS:-1400000}
buffer_kb=${BUFFER_KB:-200000}
min_events=${MIN_EVENTS:-5000000}
v7=$out/bench-v7.dat
v6=$out/bench-v6.dat
stats=$out/bench-stats.txt
counts=$out/bench-counts.txt

mkdir -p "$out" || die "cannot create '$out'"
need_cmd trace-cmd

record() {
	tf_setup
	build_storm "$out"
	local data=$out/storm-data lost
	dd if=/dev/urandom of="$data" bs=64k count=16 status=none || die "cannot write '$data'"
	cat "$data" >/dev/null # into the page cache
	rm -f "$v7" "$v6" "$stats" "$counts" "$v7.tmp" "$v6.tmp"
	trap 'tf_restore; tf_unmount' EXIT
	trap 'exit 130' INT TERM

	tf_save
	tf_prepare "$buffer_kb"
	tf_enable raw_syscalls sched irq
	echo 1 >"$T/tracing_on"
	"$out/storm" "$data" 2 "$preads" 4096
	echo 0 >"$T/tracing_on"
	tf_disable
	{
		echo "# per-CPU ring buffer at the end of the storm (buffer_size_kb=$buffer_kb)"
		echo "# cpu overrun commit_overrun dropped entries"
		tf_stats
	} >"$stats"
	lost=$(awk '!/^#/ { n += $2 + $3 + $4 } END { print n + 0 }' "$stats")
	[[ $lost -eq 0 ]] ||
		die "the ring buffer lost $lost events (see $stats); raise BUFFER_KB or lower PREADS"

	trace-cmd extract --compression zstd -o "$v7.tmp" >"$out/extract.log" 2>&1 ||
		die "trace-cmd extract failed: $(tail -n 1 "$out/extract.log")"
	tf_restore
	is_v7_zstd "$v7.tmp" || die "trace-cmd extract did not write a zstd-compressed v7 file"
	to_v6 "$v7.tmp" "$v6.tmp" "$out/convert.log"
	mv -f "$v7.tmp" "$v7"
	mv -f "$v6.tmp" "$v6"
}

# count: events per name of the v7 file, and the totals of both, into $counts.
count() {
	local n7 n6
	build_tcmd_iter "$out"
	"$out/tcmd-iter" -s "$v7" >"$counts.tmp" || die "tcmd-iter cannot read '$v7'"
	"$out/tcmd-iter" "$v6" >>"$counts.tmp" || die "tcmd-iter cannot read '$v6'"
	n7=$(sed -n 's/^tcmd-iter: events=\([0-9]*\).*/\1/p' "$counts.tmp" | sed -n 1p)
	n6=$(sed -n 's/^tcmd-iter: events=\([0-9]*\).*/\1/p' "$counts.tmp" | sed -n 2p)
	{
		grep -v '^tcmd-iter:' "$counts.tmp" | sort -k2
		echo "total v7 $n7"
		echo "total v6 $n6"
		sed -n 's/^tcmd-iter: .*missed=\([0-9]*\).*/missed-in-file \1/p' "$counts.tmp" | sed -n 1p
	} >"$counts"
	rm -f "$counts.tmp"
	[[ $n7 == "$n6" ]] || die "'$v7' has $n7 events but '$v6' has $n6"
}

if [[ ${FORCE:-0} != 1 && -s $v7 && -s $v6 ]]; then
	echo "reusing $v7 and $v6"
else
	record
fi
if ! [[ -s $counts && $counts -nt $v7 && $counts -nt $v6 ]]; then
	count
fi

total=$(awk '$1 == "total" && $2 == "v7" { print $3 }' "$counts")
echo "events per name:"
grep -v -E '^(total|missed)' "$counts" | sed 's/^/  /'
echo "events the file marks as missed (libtracecmd): $(awk '$1 == "missed-in-file" { print $2 }' "$counts")"
for f in "$v7" "$v6"; do
	echo "$f: v$(file_version "$f"), $(stat -c %s "$f") bytes, $total events"
done
is_v7_zstd "$v7" && echo "$v7: zstd-compressed"
if [[ -f $stats ]]; then
	echo "ring buffer at the end of the recording:"
	sed 's/^/  /' "$stats"
fi
[[ $total -ge $min_events ]] || die "only $total events, fewer than $min_events: raise PREADS"
