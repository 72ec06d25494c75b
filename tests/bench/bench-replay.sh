#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Replay benchmark (issue [15]): how the cost of a replay grows with the
# recording. samples/vm-odirect-v6.dat (function_graph, O_DIRECT reads) is
# repeated BASE, 4 BASE and 16 BASE times (repeat-v6.py; BASE 38 makes the
# largest about 8 M events), and on each: darc analyze, with trace-cmd
# report --profile on the same file as the peer; then, each on a fresh copy
# of the database, darc paths --root vfs_read --peak 2 (its slow O_DIRECT
# reads; the first makes the indexes a replay uses, the second is a replay)
# and darc explain. Prints wall seconds, CPU seconds and peak RSS of every
# run, from one run, each replay's CPU time over the analysis's, and how
# much faster darc analyze is than trace-cmd report --profile (the two
# taking turns, best of 3 each). Then the same race on the function_graph
# bench recordings of the VM lab (mkrec-vm.sh: two writers appending, 4
# times the appends, mixed reads; made once, reused; skipped and said so
# where the lab cannot run). Then the 16x recording, converted to zstd v7
# by trace-cmd, is parsed by darc info against zstd -d on the same
# compressed chunks (v7-chunks.py).
#
# usage: bench-replay.sh [DARC [OUT_DIR]]   (BASE=n to change the scale;
#        BEFORE=OLD_DARC times an older darc too, in the same run)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
before=${BEFORE:-}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
base=${BASE:-38}
src=$repo_dir/samples/vm-odirect-v6.dat
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
[[ -z $before || -x $before ]] || die "no darc at BEFORE='$before'"
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
[[ $base =~ ^[1-9][0-9]*$ ]] || die "BASE must be a positive number, not '$base'"
need_cmd python3 trace-cmd zstd
mkdir -p "$out"

# run1 NAME CMD...: one run of CMD, its output kept in replay.out; sets wall,
# cpu (user + system seconds) and rss (KiB)
run1() {
	local name=$1 u s
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out/time.txt" "$@" >"$out/replay.out" 2>"$out/err.txt" ||
		die "$name failed: $(head -n 1 "$out/err.txt")"
	read -r wall u s rss <"$out/time.txt"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

# timed NAME CMD...: one run of CMD; prints its wall and CPU seconds and peak
# RSS, and its CPU time over the analysis's ($ta, once set): on a machine
# that other work shares, CPU time says more than wall time.
timed() {
	run1 "$@"
	awk -v k="$k" -v n="$events" -v name="$1" -v t="$wall" -v c="$cpu" -v r="$rss" \
		-v a="${ta:-}" 'BEGIN {
		printf "%-10s %9s  %-38s %7.2f %7.2f %8.0f", k "x", n, name, t, c, r / 1024
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
printf '%-10s %9s  %-38s %7s %7s %8s %9s\n' recording events command "wall s" "cpu s" "peak MB" \
	"/ analyze"
# runs TAG DARC: DARC's analysis of $dat into $db, then its replays on copies
# of that database; TAG ("" or " (before)") follows each command's name
runs() {
	local tag=$1 bin=$2
	rm -f "$db"
	ta=
	timed "darc analyze$tag" "$bin" analyze -q -o "$db" "$dat"
	ta=$cpu
	cp "$db" "$out/replay.db"
	timed "darc paths --peak 2 (first)$tag" "$bin" paths "$out/replay.db" --root vfs_read --peak 2
	timed "darc paths --peak 2 (again)$tag" "$bin" paths "$out/replay.db" --root vfs_read --peak 2
	cp "$db" "$out/replay.db"
	timed "darc explain$tag" "$bin" explain "$out/replay.db"
	rm -f "$out/replay.db"
}

# turns ARGV_FN NAME...: the commands ARGV_FN names (it sets argv for a
# NAME) taking turns, 3 rounds: this machine's speed drifts by a third over
# minutes, so only runs made side by side compare. Leaves each one's best
# wall time in bw[], that run's CPU time in bc[] and its peak RSS (KiB) in
# br[], in the order of NAMEs.
turns() {
	local fn=$1 i
	shift
	bw=() bc=() br=()
	for _ in 1 2 3; do
		i=0
		for name in "$@"; do
			"$fn" "$name"
			rm -f "$out/turn.db"
			run1 "$name" "${argv[@]}"
			if [[ -z ${bw[$i]:-} ]] || awk -v a="$wall" -v b="${bw[$i]}" 'BEGIN { exit !(a < b) }'; then
				bw[i]=$wall
				bc[i]=$cpu
				br[i]=$rss
			fi
			i=$((i + 1))
		done
	done
	rm -f "$out/turn.db" "$out/replay.out"
}

analyze_argv() {
	case $1 in
	trace-cmd*) argv=(trace-cmd report --profile "$dat") ;;
	*before*) argv=("$before" analyze -q -o "$out/turn.db" "$dat") ;;
	*) argv=("$darc" analyze -q -o "$out/turn.db" "$dat") ;;
	esac
}

# race: the analyses against trace-cmd report --profile (turns), and how
# much faster each is than it
race() {
	local -a names=("trace-cmd report --profile")
	local j
	[[ -z $before ]] || names+=("darc analyze (before)")
	names+=("darc analyze")
	turns analyze_argv "${names[@]}"
	for j in "${!names[@]}"; do
		awk -v k="${label:-${k}x}" -v n="$events" -v name="${names[$j]}" -v t="${bw[$j]}" \
			-v c="${bc[$j]}" -v r="${br[$j]}" -v t0="${bw[0]}" -v c0="${bc[0]}" 'BEGIN {
			printf "%-10s %9s  %-38s %7.2f %7.2f %8.0f", k, n, name " (best of 3)", t, c, r / 1024
			if (name !~ /^trace-cmd/)
				printf "   %.2fx faster than trace-cmd --profile (wall), %.2fx (CPU)", t0 / t, c0 / c
			printf "\n" }'
	done
}

for k in 1 4 16; do
	dat=$out/replay-x$k.dat db=$out/replay-x$k.db
	python3 "$bench_dir/repeat-v6.py" "$src" "$dat" $((k * base)) >/dev/null ||
		die "repeat-v6.py failed for $k"
	events=$((k * base * per_copy))
	[[ -z $before ]] || runs " (before)" "$before"
	runs "" "$darc"
	race
	tc_wall=${bw[0]} # trace-cmd report --profile's best, kept for the 16x floor below
	[[ $k == 16 ]] || rm -f "$dat"
done
echo "(targets at 16x: paths within the analysis time, explain within 3 times it, both under 200 MB)"

# the function_graph bench recordings of the VM lab, the same race
echo
x16=$dat events16=$events
rc=0
bash "$bench_dir/mkrec-vm.sh" "$out" >"$out/mkrec-vm.log" 2>&1 || rc=$?
[[ $rc == 0 || $rc == 77 ]] || die "mkrec-vm.sh failed: $(tail -n 1 "$out/mkrec-vm.log")"
for fg in bench-fgappend-v7 bench-fgappend4-v7 bench-fgmix-v7; do
	dat=$out/$fg.dat
	if [[ ! -s $dat ]]; then
		echo "(no $dat: the VM lab could not make it, see $out/mkrec-vm.log)"
		continue
	fi
	label=${fg#bench-}
	label=${label%-v7}
	events=$("$darc" info "$dat" | awk '/^events:/ { print $2 }')
	race
done
label='' dat=$x16 events=$events16

# SQLite's own floor for the 16x database's call rows, one thread: the time
# no database writer can go under, whatever the analysis does beside it
echo
build_c "$out/sqlite-wall" "$bench_dir/sqlite-wall.c" -Wno-unused-parameter -lsqlite3
"$out/sqlite-wall" "$out/replay-x16.db" "$out/wall.db" >"$out/wall.txt"
sed 's/^/  /' "$out/wall.txt"
rm -f "$out/wall.db"
# what that floor leaves of an analysis 1.5 times as fast as trace-cmd report --profile
awk -v tc="$tc_wall" '/vtab, 10 columns +[0-9]/ { w = $4 } END {
	if (w == "" || tc == "") exit
	printf "  1.5x trace-cmd report --profile at 16x is %.2f s; SQLite alone takes %.2f s of it" \
		" for the call rows (%.0f%%), before any other table, index or event\n",
		tc / 1.5, w, 100 * w / (tc / 1.5) }' "$out/wall.txt"
rm -f "$out/wall.txt"

parse_argv() {
	case $1 in
	zstd*) argv=(zstd -q -d -c "$out/replay-x16.zst") ;;
	*before*) argv=("$before" info "$v7") ;;
	*) argv=("$darc" info "$v7") ;;
	esac
}

# parsing zstd v7: the 16x recording converted by trace-cmd, read by darc
# info (every event read and merged in time order), against zstd -d on the
# same compressed chunks (v7-chunks.py)
echo
v7=$out/replay-x16-v7z.dat
trace-cmd convert --file-version 7 --compression zstd -i "$dat" -o "$v7" >/dev/null 2>&1 ||
	die "trace-cmd convert to zstd v7 failed"
python3 "$bench_dir/v7-chunks.py" "$v7" "$out/replay-x16.zst" >/dev/null ||
	die "v7-chunks.py failed"
rm -f "$dat"
printf 'parsing zstd v7, %s events, taking turns, best of 3:\n' "$events"
printf '  %-40s %7s %7s %9s\n' command "wall s" "cpu s" "M ev/s"
names=()
[[ -z $before ]] || names+=("darc info (v7, zstd) (before)")
names+=("darc info (v7, zstd)" "zstd -d on its chunks")
turns parse_argv "${names[@]}"
for j in "${!names[@]}"; do
	awk -v n="$events" -v name="${names[$j]}" -v t="${bw[$j]}" -v c="${bc[$j]}" 'BEGIN {
		printf "  %-40s %7.2f %7.2f %9.1f\n", name, t, c, n / t / 1e6 }'
done
rm -f "$v7" "$out/replay-x16.zst"
