#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Replay benchmark (issue [15]): how the cost of a replay grows with the
# recording. samples/vm-odirect-v6.dat (function_graph, O_DIRECT reads) is
# repeated BASE, 4 BASE and 16 BASE times (repeat-v6.py; BASE 38 makes the
# largest about 8 M events), and on each: darc analyze, with trace-cmd
# report --profile on the same file as the peer; then, each on a fresh copy
# of the database, darc paths --root vfs_read --peak 2 (its slow O_DIRECT
# reads) and darc explain. Prints wall seconds and peak RSS of every run,
# from one run, and each replay's time over the analysis's.
#
# usage: bench-replay.sh [DARC [OUT_DIR]]   (BASE=n to change the scale)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
base=${BASE:-38}
src=$repo_dir/samples/vm-odirect-v6.dat
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
[[ $base =~ ^[1-9][0-9]*$ ]] || die "BASE must be a positive number, not '$base'"
need_cmd python3 trace-cmd
mkdir -p "$out"

# timed CMD...: one run of CMD; its wall seconds and peak RSS (KiB) into $t, $rss
timed() {
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" >"$out/replay.out" 2>"$out/err.txt" ||
		die "$* failed: $(head -n 1 "$out/err.txt")"
	read -r t rss <"$out/time.txt"
}

printf 'replay benchmark, %s, %s, %s CPUs\n' "$(date -u '+%F %H:%M UTC')" "$(uname -sr)" \
	"$(nproc)"
printf '%-5s %9s | %-17s | %-17s | %-17s | %-17s | %s\n' scale events "darc analyze" \
	"report --profile" "paths --peak 2" "explain" "paths, explain / analyze"
for k in 1 4 16; do
	dat=$out/replay-x$k.dat db=$out/replay-x$k.db
	python3 "$bench_dir/repeat-v6.py" "$src" "$dat" $((k * base)) >/dev/null ||
		die "repeat-v6.py failed for $k"
	rm -f "$db"
	timed "$darc" analyze -q -o "$db" "$dat"
	ta=$t ra=$rss
	timed trace-cmd report --profile "$dat"
	tp=$t rp=$rss
	cp "$db" "$out/replay.db"
	timed "$darc" paths "$out/replay.db" --root vfs_read --peak 2
	ts=$t rs=$rss
	cp "$db" "$out/replay.db"
	timed "$darc" explain "$out/replay.db"
	te=$t re=$rss
	events=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT events FROM recording").fetchone()[0])' "$db")
	awk -v k="$k" -v n="$events" -v ta="$ta" -v ra="$ra" -v tp="$tp" -v rp="$rp" \
		-v ts="$ts" -v rs="$rs" -v te="$te" -v re="$re" 'BEGIN {
		printf "%-5s %9d | %6.2f s %6.0f MB | %6.2f s %6.0f MB | %6.2f s %6.0f MB |" \
			" %6.2f s %6.0f MB | %.2f, %.2f\n", k "x", n, ta, ra / 1024, tp, rp / 1024,
			ts, rs / 1024, te, re / 1024, ts / ta, te / ta }'
	rm -f "$dat" "$out/replay.db"
done
echo "(targets at 16x: paths within the analysis time, explain within 3 times it, both under 200 MB)"
