#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Replay benchmark (issue [6]): on the function_graph bench recording
# (mkrec-vm.sh: OUT_DIR/bench-fg-v7.dat, made in the VM lab), darc analyze
# once, then darc paths replayed from the database with a new peak and
# threshold; prints both times and the replay's share of the analysis (the
# target: at most 5%), from one run. The first darc paths (all peaks,
# default parameters) is timed too.
#
# usage: bench-paths.sh [DARC [OUT_DIR]]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
fg=$out/bench-fg-v7.dat
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
[[ -s $fg ]] || die "no $fg: make it with tests/bench/mkrec-vm.sh $out"
db=$out/bench-fg-paths.db
rm -f "$db"

# timed NAME CMD...: wall seconds of CMD (one run), printed, into $t
timed() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" >"$out/paths.out" 2>"$out/err.txt" ||
		die "$name failed: $(head -n 1 "$out/err.txt")"
	read -r t rss <"$out/time.txt"
	printf '%-46s %8s s %9s KiB\n' "$name" "$t" "$rss"
}

printf 'replay benchmark, %s, %s, %s CPUs\n  %s: %s bytes\n' "$(date -u '+%F %H:%M UTC')" \
	"$(uname -sr)" "$(nproc)" "$(basename "$fg")" "$(stat -c %s "$fg")"
timed "darc analyze" "$darc" analyze -q -o "$db" "$fg"
t_analyze=$t
calls=$(sqlite3 "$db" "SELECT count(*) FROM call_base")
peaks=$("$darc" peaks "$db" --func vfs_read --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["peaks"]))')
timed "darc paths --root vfs_read (every peak)" "$darc" paths "$db" --root vfs_read
t_first=$t
last=$peaks
timed "darc paths --peak $last --maxcount-pct 50 (replay)" \
	"$darc" paths "$db" --root vfs_read --peak "$last" --maxcount-pct 50 --min-bucket 8
t_replay=$t
in_peak=$(sqlite3 "$db" "SELECT calls FROM search ORDER BY id DESC LIMIT 1")
printf '  (%s calls in the database; vfs_read has %s peaks; the replayed peak holds %s calls)\n' \
	"$calls" "$peaks" "$in_peak"
awk -v r="$t_replay" -v a="$t_analyze" -v f="$t_first" 'BEGIN {
	printf "replay / analyze: %.1f%% (target: at most 5%%); all peaks / analyze: %.1f%%\n",
		100 * r / a, 100 * f / a }'
