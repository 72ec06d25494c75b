#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Two darc binaries on every sample: their databases (dbcanon.py: the calls
# through view call, every call's return value, arguments and return
# address, the histograms, every other table) and the output and exit
# status of every report command (analyze's summary, explain, hist and
# peaks at resolutions 1-4, paths, io, waits, export, diff) must be the
# same, but for what a schema change moves (dbcanon.py reads each schema
# its own way). Prints one line per sample and the first lines of each
# difference; exits 1 if any.
#
# usage: compare-bins.sh OLD_DARC NEW_DARC [OUT_DIR]   (ONLY=REGEX: the samples
#        whose path matches)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

old=$(realpath "${1:?usage: compare-bins.sh OLD_DARC NEW_DARC [OUT_DIR]}")
new=$(realpath "${2:?usage: compare-bins.sh OLD_DARC NEW_DARC [OUT_DIR]}")
out=${3:-$repo_dir/build/compare}
need_cmd python3 sqlite3
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")

samples=("$repo_dir"/samples/*.dat "$repo_dir"/samples/*.perf.data "$repo_dir"/samples/uftrace/*
	"$repo_dir"/samples/text/*.txt "$repo_dir"/samples/text/*.dat)

# cmd DIR NAME ARG...: run darc (the one $bin says) with ARGs in DIR; its
# status, output and errors in DIR/NAME.txt
cmd() {
	local dir=$1 name=$2 rc=0
	shift 2
	(cd "$dir" && "$bin" "$@" >"$name.out" 2>"$name.err") || rc=$?
	{
		echo "\$ darc $*"
		echo "status $rc"
		# the time an analysis took is the one thing that may differ
		sed -E 's/ events in [0-9.]+ s: / events in (time) s: /' "$dir/$name.out"
		echo "-- stderr"
		cat "$dir/$name.err"
	} >"$dir/$name.txt"
	rm -f "$dir/$name.out" "$dir/$name.err"
}

# pick DB SQL: the first value SQL selects, or empty
pick() {
	sqlite3 "$1" "$2" 2>/dev/null | head -n 1
}

# reports DIR PREV_DB: every report command on DIR/s.db
reports() {
	local d=$1 prev=$2 root kfn task r
	root=$(pick "$d/s.db" "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id
		WHERE n.parent_id IS NULL GROUP BY f.id ORDER BY sum(n.calls) DESC, f.name LIMIT 1")
	kfn=$(pick "$d/s.db" "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id
		WHERE n.parent_id IS NOT NULL GROUP BY f.id ORDER BY sum(n.calls) DESC, f.name LIMIT 1")
	task=$(pick "$d/s.db" "SELECT task_id FROM call GROUP BY task_id ORDER BY count(*) DESC,
		task_id LIMIT 1")
	cmd "$d" explain explain s.db
	cmd "$d" explain-json explain s.db --json
	for f in $root $kfn; do
		for r in 1 2 3 4; do
			cmd "$d" "hist-$f-$r" hist s.db --func "$f" --resolution "$r"
			cmd "$d" "hist-excl-$f-$r" hist s.db --func "$f" --metric excl --resolution "$r"
			cmd "$d" "peaks-$f-$r" peaks s.db --func "$f" --resolution "$r" --json
		done
		cmd "$d" "hist-json-$f" hist s.db --func "$f" --json
		cmd "$d" "peaks-explain-$f" peaks s.db --func "$f" --explain
		cmd "$d" "io-$f" io s.db --func "$f"
	done
	if [[ -n $root ]]; then
		cmd "$d" paths paths s.db --root "$root"
		cmd "$d" paths-json paths s.db --root "$root" --peak 1 --json
		cmd "$d" paths-r3 paths s.db --root "$root" --resolution 3
		cmd "$d" paths-sum paths s.db --root "$root" --mode sum
		cmd "$d" paths-fnode paths s.db --fnode 1
	fi
	cmd "$d" io io s.db
	cmd "$d" io-bios io s.db --bios
	cmd "$d" io-irqs io s.db --irqs
	[[ -z $task ]] || cmd "$d" waits waits s.db --task "$task"
	cmd "$d" folded export s.db --folded
	cmd "$d" folded-off export s.db --folded --off-cpu
	cmd "$d" folded-tid export s.db --folded --root tid
	cmd "$d" chrome export s.db --chrome
	cmd "$d" speedscope export s.db --speedscope
	# diff reads every profile from table hist: this makes resolutions 2-4 where they are made
	# on demand, for hist-all.txt below
	for r in 2 3 4; do
		cmd "$d" "diff-self-$r" diff s.db s.db --resolution "$r"
	done
	if [[ -n $prev ]]; then
		cp "$prev" "$d/prev.db"
		cmd "$d" diff diff s.db prev.db
		cmd "$d" diff-r2 diff s.db prev.db --resolution 2 --json
	fi
}

# one SIDE BIN SAMPLE: analyze SAMPLE with BIN and run the reports, in $out/SIDE/NAME
one() {
	local side=$1 sample=$2 d
	bin=$3
	d=$out/$side/$name
	mkdir -p "$d"
	cmd "$d" analyze analyze -o s.db "$sample"
	[[ -f $d/s.db ]] || return 0
	python3 "$bench_dir/dbcanon.py" "$d/s.db" >"$d/db.txt"
	reports "$d" "${prev_db[$side]:-}"
	# the histograms again, every resolution (made on demand by now)
	python3 "$bench_dir/dbcanon.py" "$d/s.db" --all-resolutions | sed -n '/^== hist$/,/^== /p' \
		>"$d/hist-all.txt"
	sqlite3 "$d/s.db" 'PRAGMA integrity_check' >"$d/integrity.txt" 2>&1
	prev_db[$side]=$d/s.db
}

declare -A prev_db=()
fail=0
for s in "${samples[@]}"; do
	[[ -e $s ]] || continue
	[[ -z ${ONLY:-} || $s =~ $ONLY ]] || continue
	name=${s#"$repo_dir"/samples/}
	name=${name//\//_}
	one old "$s" "$old"
	one new "$s" "$new"
	if grep -qvx ok "$out/new/$name/integrity.txt" 2>/dev/null; then
		echo "FAIL: $name: integrity_check: $(head -n 2 "$out/new/$name/integrity.txt")"
		fail=$((fail + 1))
	fi
	if diff -r "$out/old/$name" "$out/new/$name" -x '*.db' -x '*.db-*' >"$out/$name.diff"; then
		echo "same: $name"
		rm -f "$out/$name.diff"
	else
		echo "DIFFERENT: $name ($out/$name.diff)"
		head -n 20 "$out/$name.diff"
		fail=$((fail + 1))
	fi
done
echo "$fail samples differ"
[[ $fail == 0 ]]
