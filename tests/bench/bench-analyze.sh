#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Analysis benchmark: darc analyze (full database written) against trace-cmd
# report and trace-cmd report --profile, in one run, on the bench recording
# (v7, made or reused by mkrec.sh); and darc analyze's peak RSS on the 1x
# recording and on one 4 times as large (see below; NO_X4=1 skips it). When
# OUT_DIR/bench-fg-v7.dat exists (mkrec-vm.sh: function_graph in the VM lab,
# so call trees, not only roots), the same comparison on it too.
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
compare "$out/bench-v7.dat"
n1=$n

# the same on the function_graph recording (call trees), when it has been
# made (tests/bench/mkrec-vm.sh: the VM lab, several minutes)
if [[ -s $out/bench-fg-v7.dat ]]; then
	echo
	echo "function_graph recording (made in the VM lab by mkrec-vm.sh):"
	INDEXES=0 compare "$out/bench-fg-v7.dat"
else
	echo
	echo "(no $out/bench-fg-v7.dat: tests/bench/mkrec-vm.sh makes it, for a run on call trees)"
fi
n=$n1

# memory: 1x against 4x. The 4x recording is the v6 bench file repeated four
# times, each copy shifted in time (repeat-v6.py): no root or tracefs needed.
# (Absolute time stamps inside pages are not shifted, so a few hundred calls
# see time run backwards and come out flagged 'clamped'.)
if [[ ${NO_X4:-0} != 1 ]]; then
	need_cmd python3
	x4=$out/bench-x4-v6.dat
	if [[ ! -s $x4 ]]; then
		python3 "$bench_dir/repeat-v6.py" "$out/bench-v6.dat" "$x4" 4 >/dev/null ||
			die "cannot make the 4x recording"
	fi
	n4=$("$darc" info "$x4" | awk '/^events:/ { print $2 }')
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$darc" analyze -q -o "$out/bench4.db" "$x4" >/dev/null
	read -r w4 m4 <"$out/time.txt"
	/usr/bin/time -f '%e %M' -o "$out/time.txt" "$darc" analyze -q -o "$out/bench.db" \
		"$out/bench-v6.dat" >/dev/null
	read -r w1 m1 <"$out/time.txt"
	rm -f "$out/bench4.db"
	echo
	echo "peak RSS (v6): 1x ($n events) $m1 KiB in $w1 s; 4x ($n4 events) $m4 KiB in $w4 s:" \
		"$(awk -v a="$m1" -v b="$m4" 'BEGIN { printf "%.2fx", b / a }') the memory for" \
		"$(awk -v a="$n" -v b="$n4" 'BEGIN { printf "%.1fx", b / a }') the events"
fi
