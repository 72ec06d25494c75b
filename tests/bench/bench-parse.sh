#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Parse benchmark: darc's walker against its peers, in one run, on the same
# v6 and v7 recordings (made or reused by mkrec.sh).
#
# usage: bench-parse.sh [DARC [OUT_DIR]]
#
#   DARC     the darc binary (default: $DARC, else build/darc or
#            build/analyze/darc of this checkout); when it does not exist the
#            peers are still measured and the table says darc is missing
#   OUT_DIR  where the recordings and tcmd-iter live (default: $BENCH_OUT,
#            else build/bench of this checkout)
#
# For each file version it times, wall clock, whole process:
#   tcmd-iter FILE                 libtracecmd's tracecmd_iterate_events, best of 3
#   trace-cmd report FILE >/dev/null                                     once
#   darc info FILE                 darc's walker, best of 3
# and prints tool, version, events, seconds, M events/s, then darc's speedup
# over tcmd-iter. tcmd-iter's count is the reference: trace-cmd report's
# events column is that count, and darc's count (its "events: N" line, see
# events_in) must equal it, else the script fails.
# Recording the files (first run only) needs root and tracefs, see mkrec.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-}}
if [[ -z $darc ]]; then
	darc=$repo_dir/build/darc
	[[ -x $darc ]] || [[ ! -x $repo_dir/build/analyze/darc ]] || darc=$repo_dir/build/analyze/darc
fi
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
runs=3

mkdir -p "$out" || die "cannot create '$out'"
need_cmd trace-cmd
bash "$bench_dir/mkrec.sh" "$out" >"$out/mkrec.log" 2>&1 ||
	die "mkrec.sh failed: $(tail -n 1 "$out/mkrec.log")"
build_tcmd_iter "$out"

# timed OUTFILE ERRFILE CMD...: run CMD with stdout to OUTFILE and stderr to
# ERRFILE and print its wall-clock seconds; fails if CMD fails.
timed() {
	local outfile=$1 errfile=$2 t0 t1
	shift 2
	t0=$EPOCHREALTIME
	"$@" >"$outfile" 2>"$errfile" || return
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# best_of OUTFILE ERRFILE CMD...: print the fastest of $runs runs of timed.
best_of() {
	local i t best=
	for ((i = 0; i < runs; i++)); do
		t=$(timed "$@") || return
		best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b ? a : b) }')
	done
	echo "$best"
}

# events_in FILE: the event count in a tool's output, the first match of, in
# this order: a line "events: N" (or "events = N"), "events=N" anywhere, "N events".
events_in() {
	tr -d ',' <"$1" | awk '
		function num(s) { gsub(/[^0-9]/, "", s); return s }
		{ line = tolower($0) }
		a == "" && match(line, /^[ \t]*events?[ \t]*[:=][ \t]*[0-9]+/) { a = num(substr(line, RSTART, RLENGTH)) }
		b == "" && match(line, /events?=[0-9]+/) { b = num(substr(line, RSTART, RLENGTH)) }
		c == "" && match(line, /[0-9]+[ \t]+events?([^a-z]|$)/) { c = num(substr(line, RSTART, RLENGTH)) }
		END { print (a != "" ? a : b != "" ? b : c) }'
}

rate() {
	awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else print "-" }'
}

rows=()
row() {
	rows+=("$(printf '%-18s %-4s %10s %9s %11s' "$@")")
}

have_darc=0
[[ -x $darc ]] && have_darc=1
status=0
declare -A peer_s darc_s

cat "$out/bench-v6.dat" "$out/bench-v7.dat" >/dev/null # page cache
for v in 6 7; do
	f=$out/bench-v$v.dat
	s=$(best_of "$out/tcmd-iter.out" "$out/tcmd-iter.err" "$out/tcmd-iter" "$f") ||
		die "tcmd-iter failed on '$f': $(head -n 1 "$out/tcmd-iter.err")"
	n=$(events_in "$out/tcmd-iter.out")
	peer_s[$v]=$s
	row tcmd-iter "v$v" "$n" "$s" "$(rate "$n" "$s")"

	s=$(timed /dev/null "$out/report.err" trace-cmd report "$f") ||
		die "trace-cmd report failed on '$f': $(head -n 1 "$out/report.err")"
	row "trace-cmd report" "v$v" "$n" "$s" "$(rate "$n" "$s")"

	if [[ $have_darc -eq 1 ]]; then
		if s=$(best_of "$out/darc.out" "$out/darc.err" "$darc" info "$f"); then
			d=$(events_in "$out/darc.out")
			darc_s[$v]=$s
			row "darc info" "v$v" "${d:-?}" "$s" "$(rate "${d:-0}" "$s")"
			if [[ $d != "$n" ]]; then
				note "darc info counts ${d:-no} events in '$f', tcmd-iter counts $n"
				status=1
			fi
		else
			row "darc info" "v$v" failed - -
			note "darc info failed on '$f': $(head -n 1 "$out/darc.err")"
			status=1
		fi
	fi
done

echo "parse benchmark, $(date -u '+%Y-%m-%d %H:%M') UTC, Linux $(uname -r), $(nproc) CPUs"
echo "  $out/bench-v6.dat: $(stat -c %s "$out/bench-v6.dat") bytes; $out/bench-v7.dat: $(stat -c %s "$out/bench-v7.dat") bytes"
echo "  seconds: wall clock of the whole process, best of $runs (trace-cmd report: one run, output to /dev/null)"
echo
printf '%-18s %-4s %10s %9s %11s\n' tool file events seconds "M events/s"
printf '%s\n' "${rows[@]}"
echo
if [[ $have_darc -eq 0 ]]; then
	echo "darc: missing (no executable '$darc'; pass it as the first argument or in \$DARC): peers only"
else
	for v in 6 7; do
		if [[ -n ${darc_s[$v]:-} ]]; then
			echo "darc info vs tcmd-iter on v$v: $(awk -v p="${peer_s[$v]}" -v d="${darc_s[$v]}" \
				'BEGIN { if (d > 0) printf "%.2fx", p / d; else print "-" }') (tcmd-iter seconds / darc seconds)"
		fi
	done
fi
exit "$status"
