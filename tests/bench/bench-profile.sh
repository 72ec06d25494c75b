#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# darc against trace-cmd's profile (issue [22]), in one run: on every
# function_graph and tracepoint recording in samples/ (the trace.dat files),
# on the fresh VM-lab recordings of each kind of workload (mkrec-kinds.sh:
# two writers, preads, stat, getrandom beside a CPU hog, zero-byte reads; in
# the VM lab's cache, made once) and on samples/vm-odirect-v6.dat repeated
# 600 times (repeat-v6.py), it runs in turn
#
#	A  trace-cmd report --profile FILE
#	B  darc analyze -q -o DB FILE		(the full database written)
#	C  darc explain FILE			(the analysis included: time to
#						 the first answer)
#
# ROUNDS times (default 3), A B C A B C ..., the file in the page cache,
# and prints one table: each one's median wall and median CPU (user + sys)
# seconds, and trace-cmd's over darc analyze's (how many times faster darc
# is), with the machine's load average before and after. With BEFORE=OLD_DARC
# an older darc's B and C take their turns too (A B' C' B C ...) and a
# second table, before, comes first: both from the same run, against the
# same trace-cmd runs. Then where darc analyze's time goes on the
# recording slowest for it (DARC_TIMING=1: its stages and the writer's CPU
# by table), and the replay of issue [22]: on the 600 copies,
# darc analyze, then darc paths --root vfs_read --peak 2 on its database, a
# first run and a second (the older darc's too). On a machine that other
# work shares, CPU time says more than wall time; the turns keep a drift of
# the machine's speed from favouring either side.
#
# usage: bench-profile.sh [DARC [OUT_DIR]]   (ONLY=REGEX: the recordings
#        whose name matches; NO_KINDS=1: the samples only; NO_REPEAT=1:
#        without the 600 copies; BEFORE=OLD_DARC: the older darc beside)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
rounds=${ROUNDS:-3}
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
darc=$(realpath "$darc")
before=${BEFORE:-}
[[ -z $before || -x $before ]] || die "no darc at BEFORE='$before'"
[[ -z $before ]] || before=$(realpath "$before")
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number, not '$rounds'"
need_cmd trace-cmd python3
mkdir -p "$out/profile"
work=$(mktemp -d "$out/profile/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
build_c "$work/cputime" "$bench_dir/cputime.c"

# the recordings: samples' trace.dat files, then the fresh ones
recs=("$repo_dir"/samples/*.dat)
if [[ ${NO_KINDS:-0} != 1 ]]; then
	rc=0
	kinds=$(bash "$bench_dir/mkrec-kinds.sh" 2>"$work/kinds.log") || rc=$?
	[[ $rc == 0 || $rc == 77 ]] || die "mkrec-kinds.sh failed: $(tail -n 1 "$work/kinds.log")"
	if [[ $rc == 0 ]]; then
		recs+=("$kinds"/*.dat)
	else
		note "no fresh recordings: $(tail -n 1 "$work/kinds.log")"
	fi
fi
if [[ ${NO_REPEAT:-0} != 1 ]]; then
	rep=$out/profile/odirect-x600-v6.dat
	[[ -s $rep ]] || python3 "$bench_dir/repeat-v6.py" "$repo_dir/samples/vm-odirect-v6.dat" \
		"$rep" 600 >/dev/null || die "repeat-v6.py failed"
	recs+=("$rep")
fi

# run1 CMD...: one run; sets wall and cpu (user + system seconds), or both
# to "fails" (said on stderr: trace-cmd's profile refuses a recording
# without a function or system call, samples/host-print-v7.dat)
run1() {
	if "$work/cputime" "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt"; then
		read -r wall cpu <"$work/time.txt"
	else
		note "$* failed: $(head -n 1 "$work/err.txt")"
		wall=fails cpu=fails
	fi
}

# median V...: the middle value (the lower middle of an even count); "fails"
# if any run failed
median() {
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } /fails/ { f = 1 } END { print f ? "fails" : v[int((NR + 1) / 2)] }'
}

# analyze_explain DARC TAG: one run of DARC analyze and of DARC explain
# (the analysis included) on $f; appends to TAG's arrays
analyze_explain() {
	local d=$1 t=$2
	rm -f "$work/b.db"
	run1 "$d" analyze -q -o "$work/b.db" "$f"
	eval "${t}bw+=(\"\$wall\") ${t}bc+=(\"\$cpu\")"
	rm -f "$work/rec.db"
	run1 "$d" explain "$work/rec.dat"
	eval "${t}cw+=(\"\$wall\") ${t}cc+=(\"\$cpu\")"
}

# row NAME EVENTS AW AC BW BC CW CC: a table's row from the medians
row() {
	awk -v n="$1" -v e="$2" -v aw="$3" -v ac="$4" -v bw="$5" -v bc="$6" -v cw="$7" -v cc="$8" '
		function t(w, c) { return w == "fails" ? "fails" : sprintf("%.3f / %.3f", w, c) }
		function x(a, b, c, d) {
			return a == "fails" || b == "fails" ? "-" : sprintf("%.2fx / %.2fx", a / b, c / d)
		}
		BEGIN { printf "| %s | %d | %s | %s | %s | %s | %s |\n", n, e, t(aw, ac), t(bw, bc),
			x(aw, bw, ac, bc), t(cw, cc), x(aw, cw, ac, cc) }'
}

# race FILE: appends the table's row for FILE to $work/after.md (and the
# older darc's to $work/before.md)
race() {
	local f=$1 name events i a
	local -a aw=() ac=() bw=() bc=() cw=() cc=() obw=() obc=() ocw=() occ=()
	name=$(basename "$f")
	[[ $f == "$repo_dir"/samples/* ]] && name="samples/$name"
	events=$("$darc" info "$f" | awk '/^events:/ { print $2 }')
	# darc explain writes RECORDING.db beside the recording: a link in $work
	ln -sf "$(realpath "$f")" "$work/rec.dat"
	cat "$f" >/dev/null
	for ((i = 0; i < rounds; i++)); do
		run1 trace-cmd report --profile "$f"
		aw+=("$wall") ac+=("$cpu")
		[[ -z $before ]] || analyze_explain "$before" o
		analyze_explain "$darc" ""
	done
	rm -f "$work/b.db" "$work/rec.db"
	a=$(median "${aw[@]}")
	b=$(median "${bw[@]}")
	# the slowest for darc analyze, for where its time goes (below)
	if [[ $b != fails ]] && awk -v b="$b" -v s="$slowest_wall" 'BEGIN { exit !(b > s) }'; then
		slowest=$f slowest_wall=$b
	fi
	row "$name" "$events" "$a" "$(median "${ac[@]}")" "$(median "${bw[@]}")" \
		"$(median "${bc[@]}")" "$(median "${cw[@]}")" "$(median "${cc[@]}")" >>"$work/after.md"
	[[ -z $before ]] ||
		row "$name" "$events" "$a" "$(median "${ac[@]}")" "$(median "${obw[@]}")" \
			"$(median "${obc[@]}")" "$(median "${ocw[@]}")" "$(median "${occ[@]}")" \
			>>"$work/before.md"
}

echo "darc against trace-cmd report --profile, $(date -u '+%F %H:%M UTC'), $(uname -sr)," \
	"$(nproc) CPUs, $rounds rounds in turn, medians; darc $("$darc" --version 2>&1 | head -n 1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
slowest='' slowest_wall=0
: >"$work/after.md"
: >"$work/before.md"
for f in "${recs[@]}"; do
	[[ -z ${ONLY:-} || $f =~ $ONLY ]] || continue
	race "$f"
done
# table TITLE FILE
table() {
	echo
	echo "$1"
	echo
	echo "| recording | events | trace-cmd --profile, wall / CPU s | darc analyze, wall / CPU s" \
		"| faster, wall / CPU | darc explain, wall / CPU s | explain faster, wall / CPU |"
	echo "|---|---|---|---|---|---|---|"
	cat "$2"
}
[[ -z $before ]] || table "before: $before" "$work/before.md"
table "${before:+after: }$darc" "$work/after.md"
# replay [22] item 3: the first darc paths on a fresh analysis of the 600
# copies, and a second, against the analysis (in turn, medians)
replay() {
	local d=$1 i
	local -a aw=() ac=() fw=() fc=() sw=() sc=()
	for ((i = 0; i < rounds; i++)); do
		rm -f "$work/r.db"
		run1 "$d" analyze -q -o "$work/r.db" "$rep"
		aw+=("$wall") ac+=("$cpu")
		run1 "$d" paths "$work/r.db" --root vfs_read --peak 2
		fw+=("$wall") fc+=("$cpu")
		run1 "$d" paths "$work/r.db" --root vfs_read --peak 2
		sw+=("$wall") sc+=("$cpu")
	done
	rm -f "$work/r.db"
	echo "replay, $(basename "$rep"), $d: darc analyze $(median "${aw[@]}") s wall /" \
		"$(median "${ac[@]}") s CPU; darc paths --root vfs_read --peak 2, first run" \
		"$(median "${fw[@]}") / $(median "${fc[@]}"), again $(median "${sw[@]}") /" \
		"$(median "${sc[@]}")"
}

# where darc analyze's time goes on the slowest recording for it: its
# stages, the writer's CPU by table (DARC_TIMING, one more run)
if [[ -n $slowest ]]; then
	echo
	echo "where the time goes, darc analyze $(basename "$slowest") (DARC_TIMING=1, one run):"
	rm -f "$work/t.db"
	DARC_TIMING=1 "$darc" analyze -q -o "$work/t.db" "$slowest" 2>&1 >/dev/null | sed 's/^/    /'
	rm -f "$work/t.db"
fi
echo
if [[ ${NO_REPEAT:-0} != 1 ]]; then
	[[ -z $before ]] || replay "$before"
	replay "$darc"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
