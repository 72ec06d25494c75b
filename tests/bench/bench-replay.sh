#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Replay benchmark (issue [15]): how the cost of a replay grows with the
# recording. samples/vm-odirect-v6.dat (function_graph, O_DIRECT reads) is
# repeated BASE, 4 BASE and 16 BASE times (repeat-v6.py; BASE 38 makes the
# largest about 8 M events), and on each: darc analyze, with trace-cmd
# report --profile on the same file as the peer; then, each on a fresh copy
# of the database, darc paths --root vfs_read --peak 2 (its slow O_DIRECT
# reads; the first makes the indexes a replay uses, the second is a replay)
# and darc explain. Prints wall seconds and peak RSS of every run,
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

# timed NAME CMD...: one run of CMD; prints its wall and CPU seconds and peak
# RSS, and its CPU time over the analysis's ($ta, once set): on a machine
# that other work shares, CPU time says more than wall time.
timed() {
	local name=$1 t u s rss
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out/time.txt" "$@" >"$out/replay.out" 2>"$out/err.txt" ||
		die "$name failed: $(head -n 1 "$out/err.txt")"
	read -r t u s rss <"$out/time.txt"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	awk -v k="$k" -v n="$events" -v name="$name" -v t="$t" -v c="$cpu" -v r="$rss" \
		-v a="${ta:-}" 'BEGIN {
		printf "%-5s %9s  %-28s %7.2f %7.2f %8.0f", k "x", n, name, t, c, r / 1024
		if (a != "") printf " %9.2f", c / a
		printf "\n" }'
}

# the sample's events (each copy holds as many)
"$darc" analyze -q -o "$out/replay-1.db" "$src" || die "cannot analyze $src"
per_copy=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
	"SELECT events FROM recording").fetchone()[0])' "$out/replay-1.db")
rm -f "$out/replay-1.db"

printf 'replay benchmark, %s, %s, %s CPUs\n' "$(date -u '+%F %H:%M UTC')" "$(uname -sr)" \
	"$(nproc)"
printf '%-5s %9s  %-28s %7s %7s %8s %9s\n' scale events command "wall s" "cpu s" "peak MB" \
	"/ analyze"
for k in 1 4 16; do
	dat=$out/replay-x$k.dat db=$out/replay-x$k.db
	python3 "$bench_dir/repeat-v6.py" "$src" "$dat" $((k * base)) >/dev/null ||
		die "repeat-v6.py failed for $k"
	rm -f "$db"
	events=$((k * base * per_copy))
	ta=
	timed "darc analyze" "$darc" analyze -q -o "$db" "$dat"
	ta=$cpu
	timed "trace-cmd report --profile" trace-cmd report --profile "$dat"
	cp "$db" "$out/replay.db"
	timed "darc paths --peak 2 (first)" "$darc" paths "$out/replay.db" --root vfs_read --peak 2
	timed "darc paths --peak 2 (again)" "$darc" paths "$out/replay.db" --root vfs_read --peak 2
	cp "$db" "$out/replay.db"
	timed "darc explain" "$darc" explain "$out/replay.db"
	rm -f "$dat" "$out/replay.db"
done
echo "(targets at 16x: paths within the analysis time, explain within 3 times it, both under 200 MB)"
