#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Analysis benchmark, in one run: darc analyze (full database written)
# against trace-cmd report and trace-cmd report --profile on the tracepoint
# bench recording (v7, made or reused by mkrec.sh) and on the two
# function_graph recordings mkrec-vm.sh makes in the VM lab (two writers
# appending to one ext4 file; mixed cached, O_DIRECT and readahead reads),
# with where darc's time goes (DARC_TIMING) and SQLite's own floor for the
# same rows (sqlite-wall.c); parse rates (darc info); darc analyze's peak RSS
# at 1x and 4x the events (NO_X4=1 skips it).
#
# usage: bench-analyze.sh [DARC [OUT_DIR]]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
need_cmd trace-cmd
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
mkdir -p "$out"
bash "$bench_dir/mkrec.sh" "$out" >"$out/mkrec.log" 2>&1 ||
	die "mkrec.sh failed: $(tail -n 1 "$out/mkrec.log")"
# measure NAME CMD...: wall seconds and peak RSS (KiB) of CMD, best wall of 3
declare -A secs
measure() {
	local name=$1 best='' rss='' i w m
	shift
	for ((i = 0; i < ${RUNS:-3}; i++)); do
		/usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" ||
			die "$name failed: $(head -n 1 "$out/err.txt")"
		read -r w m <"$out/time.txt"
		if [[ -z $best ]] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
			rss=$m
		fi
	done
	printf '%-34s %8s s %9s KiB  %s M events/s\n' "$name" "$best" "$rss" \
		"$(awk -v n="$n" -v s="$best" 'BEGIN { printf "%.2f", n / s / 1e6 }')"
	secs[$name]=$best
}

# compare FILE: the three tools on FILE, and darc's ratios
compare() {
	f=$1
	n=$("$darc" info "$f" | awk '/^events:/ { print $2 }')
	cat "$f" >/dev/null
	echo "  $f: $(stat -c %s "$f") bytes, $n events"
	echo
	RUNS=1 measure "trace-cmd report" trace-cmd report "$f"
	measure "trace-cmd report --profile" trace-cmd report --profile "$f"
	measure "darc analyze" "$darc" analyze -q -o "$out/bench.db" "$f"
	rows=$(sqlite3 "$out/bench.db" 'SELECT count(*), count(parent_id) FROM call_base' 2>/dev/null |
		tr '|' ' ' || echo '? ?')
	set -- $rows
	echo "  (darc wrote $(stat -c %s "$out/bench.db") bytes, $1 call rows, $2 with a parent)"
	[[ ${INDEXES:-1} == 1 ]] &&
		measure "darc analyze --indexes" "$darc" analyze -q --indexes -o "$out/bench.db" "$f"
	echo
	awk -v a="${secs[trace-cmd report]}" -v p="${secs[trace-cmd report --profile]}" \
		-v d="${secs[darc analyze]}" \
		'BEGIN { printf "darc analyze vs trace-cmd report: %.1fx; vs trace-cmd report --profile: %.1fx\n", a / d, p / d }'
}

echo "analysis benchmark, $(date -u '+%Y-%m-%d %H:%M') UTC, Linux $(uname -r), $(nproc) CPUs"
echo
echo "tracepoint bench (raw_syscalls, sched, irq: flat calls, made by mkrec.sh):"
compare "$out/bench-v7.dat"
n1=$n

# the function_graph recordings (deep call trees), made in the VM lab by
# mkrec-vm.sh (a few minutes; skipped, and said so, when the lab cannot run)
rc=0
bash "$bench_dir/mkrec-vm.sh" "$out" >"$out/mkrec-vm.log" 2>&1 || rc=$?
[[ $rc == 0 || $rc == 77 ]] || die "mkrec-vm.sh failed: $(tail -n 1 "$out/mkrec-vm.log")"
for fg in bench-fgappend-v7.dat bench-fgmix-v7.dat; do
	if [[ -s $out/$fg ]]; then
		echo
		echo "function_graph recording $fg (VM lab, mkrec-vm.sh):"
		INDEXES=0 compare "$out/$fg"
		# where darc's time goes: the writer thread's CPU by table, SQLite's own floor
		DARC_TIMING=1 "$darc" analyze -q -o "$out/bench.db" "$out/$fg" 2>&1 >/dev/null |
			sed 's/^darc: /  /'
		build_c "$out/sqlite-wall" "$bench_dir/sqlite-wall.c" -Wno-unused-parameter -lsqlite3
		"$out/sqlite-wall" "$out/bench.db" "$out/wall.db" | sed 's/^/  /'
	else
		echo
		echo "(no $out/$fg: the VM lab could not make it, see $out/mkrec-vm.log)"
	fi
done
n=$n1

# parse rates: darc info (every event read and merged in time order, nothing decoded)
echo
echo "parse rates (darc info, best of 3):"
for f in bench-v7.dat bench-v6.dat bench-fgappend-v7.dat bench-fgmix-v7.dat; do
	[[ -s $out/$f ]] || continue
	n=$("$darc" info "$out/$f" | awk '/^events:/ { print $2 }')
	RUNS=3 measure "darc info $f" "$darc" info "$out/$f"
done
n=$n1

# peak_rss FILE: darc analyze's peak RSS (KiB) and wall seconds on FILE
peak_rss() {
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$darc" analyze -q -o "$out/bench4.db" "$1" >/dev/null ||
		die "darc analyze $1 failed"
	rm -f "$out/bench4.db"
	read -r w m <"$out/time.txt"
	echo "$m $w $("$darc" info "$1" | awk '/^events:/ { print $2 }')"
}
# rss_line NAME FILE1 FILE4: peak RSS at 1x and 4x the events
rss_line() {
	local a b
	read -r m1 w1 e1 <<<"$(peak_rss "$2")"
	read -r m4 w4 e4 <<<"$(peak_rss "$3")"
	echo "peak RSS, $1: 1x ($e1 events) $m1 KiB in $w1 s; 4x ($e4 events) $m4 KiB in $w4 s:" \
		"$(awk -v a="$m1" -v b="$m4" 'BEGIN { printf "%.2fx", b / a }') the memory for" \
		"$(awk -v a="$e1" -v b="$e4" 'BEGIN { printf "%.1fx", b / a }') the events"
}

# memory: 1x against 4x. The tracepoint 4x recording is the v6 bench file
# repeated four times, each copy shifted in time (repeat-v6.py): no root or
# tracefs needed. (Absolute time stamps inside pages are not shifted, so a
# few hundred calls see time run backwards and come out flagged 'clamped'.)
# The function_graph one is a VM-lab recording of 4 times the appends.
if [[ ${NO_X4:-0} != 1 ]]; then
	echo
	need_cmd python3
	x4=$out/bench-x4-v6.dat
	if [[ ! -s $x4 ]]; then
		python3 "$bench_dir/repeat-v6.py" "$out/bench-v6.dat" "$x4" 4 >/dev/null ||
			die "cannot make the 4x recording"
	fi
	rss_line "tracepoints (v6)" "$out/bench-v6.dat" "$x4"
	[[ -s $out/bench-fgappend4-v7.dat ]] &&
		rss_line "function_graph appends" "$out/bench-fgappend-v7.dat" "$out/bench-fgappend4-v7.dat"
fi
