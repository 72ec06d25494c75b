#!/bin/bash
# darc on uftrace recordings (issue 25): samples/uftrace/{pg,fi}.data, the
# program samples/uftrace/workload.c built with -pg and with
# -finstrument-functions and recorded by uftrace 0.13 (samples/README.md),
# and, where uftrace and gcc are installed, the same recorded here now.
# For each:
#   - darc analyze against `uftrace report` and `uftrace dump` of it
#     (golden/uftrace-check.py): every function's calls, total and self
#     time, every call's thread, depth and times, every switch out; the
#     samples' texts were saved with them, fresh ones are made by uftrace;
#   - darc explain: request()'s slow calls wait (blocked in nap), compute()'s
#     run in spin (CPU: never waiting), as the program does;
#   - hist, peaks, paths and diff run on it and name the function asked.
# `darc analyze DIR/` writes DIR.db. Then damaged copies: each gives one error line naming the damaged file.
# Then one check per way darc once failed on uftrace's recordings (issue 17).
# Usage: uftrace.sh DARC. Exit 0 pass, 1 fail, 77 without python3 or sqlite3.
set -u
darc=$(realpath "${1:?usage: uftrace.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../../samples/uftrace
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d /tmp/darc-uftrace.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$here/../live/lib.sh" # for check and summary only: nothing here needs root
pass=0 fail=0

# explain_says DB FUNC YES NO: FUNC's cause sentence holds every word of YES, none of NO
explain_says() {
	local line w
	line=$(grep "^  - $2(): " "$tmp/explain.txt") || return 1
	for w in $3; do [[ $line == *"$w"* ]] || return 1; done
	for w in $4; do [[ $line != *"$w"* ]] || return 1; done
}

# check_rec NAME DIR REPORT DUMP
check_rec() {
	local name=$1 rec=$2 db=$tmp/$1.db
	echo "$name:"
	"$darc" analyze -o "$db" "$rec" >"$tmp/a.txt" 2>"$tmp/a.err"
	check "darc analyze $name exits 0" [ $? -eq 0 ]
	check "$name: calls, times and switches as uftrace report and dump say" \
		python3 "$here/uftrace-check.py" "$db" "$3" "$4"
	"$darc" explain "$db" >"$tmp/explain.txt" 2>&1
	sed -n 's/^  - /   /p' "$tmp/explain.txt"
	check "$name: explain says request() waits in nap" explain_says "$db" request "waiting nap" ""
	check "$name: explain says compute() runs in spin, never waits" \
		explain_says "$db" compute "spin" "waiting blocked"
	check "$name: hist, peaks and paths of request name it" \
		bash -c '"$1" hist --func request "$2" | grep -q "^request: incl latency" &&
			 "$1" peaks --func request "$2" | grep -q "peak" &&
			 "$1" paths --func request "$2" | grep -q "^request, peak"' _ "$darc" "$db"
}

check_rec pg "$samples/pg.data" "$samples/pg.report" "$samples/pg.dump"
check_rec fi "$samples/fi.data" "$samples/fi.report" "$samples/fi.dump"
check "diff of the two samples compares request and compute" \
	bash -c '"$1" diff "$2" "$3" | grep -q " request$"' _ "$darc" "$tmp/pg.db" "$tmp/fi.db"

if command -v uftrace >/dev/null && command -v gcc >/dev/null; then
	for kind in pg fi; do
		flag=-pg
		[ $kind = fi ] && flag=-finstrument-functions
		gcc -O1 $flag -pthread -o "$tmp/workload-$kind" "$samples/workload.c" &&
		(cd "$tmp" && uftrace record -d "new-$kind.data" "./workload-$kind") &&
		uftrace report -d "$tmp/new-$kind.data" >"$tmp/new-$kind.report" &&
		uftrace dump -d "$tmp/new-$kind.data" >"$tmp/new-$kind.dump"
		check "uftrace records workload.c built with $flag here" [ $? -eq 0 ] &&
			check_rec "new-$kind" "$tmp/new-$kind.data" "$tmp/new-$kind.report" \
				"$tmp/new-$kind.dump"
	done
else
	echo "note: no uftrace or gcc here: the committed samples only"
fi

# a directory named with its slash, as shells complete it: DIR.db beside it
cp -r "$samples/pg.data" "$tmp/slash.data"
"$darc" analyze "$tmp/slash.data/" >/dev/null 2>&1
check "darc analyze DIR/ writes DIR.db beside DIR, not DIR/.db" \
	[ -f "$tmp/slash.db" -a ! -e "$tmp/slash.data/.db" ]

# damage NAME FILE COMMAND...: a copy of pg.data with COMMAND run on FILE in
# it gives one error line naming FILE, exit 2
damage() {
	local what=$1 file=$2 d=$tmp/bad.data
	shift 2
	rm -rf "$d" && cp -r "$samples/pg.data" "$d" && (cd "$d" && "$@")
	"$darc" analyze -o "$tmp/bad.db" "$d" >/dev/null 2>"$tmp/bad.err"
	local rc=$?
	echo "   $what: $(cat "$tmp/bad.err")"
	check "$what: exit 2, one line naming $file" \
		[ $rc -eq 2 -a "$(wc -l <"$tmp/bad.err")" = 1 ] && grep -q "$file" "$tmp/bad.err"
}
tid=$(cd "$samples/pg.data" && ls -S [0-9]*.dat | head -n 1)
echo "damaged copies:"
damage "a thread's file cut in a record" "$tid" truncate -s -5 "$tid"
damage "a record's magic changed" "$tid" \
	bash -c 'printf "\377" | dd of="$1" bs=1 seek=24 conv=notrunc status=none' _ "$tid"
damage "info cut in its header" info truncate -s 20 info
damage "task.txt missing" task.txt rm task.txt
damage "the session's map missing" ".map" bash -c 'rm sid-*.map'
damage "perf-cpu0.dat cut in a record" perf-cpu0.dat truncate -s -3 perf-cpu0.dat

# What darc once got wrong, one check each (samples/uftrace/matrix, made by
# tests/matrix/uftrace-matrix.sh; golden-uftrace-matrix compares all of it):
m=$samples/matrix
echo "failure kinds:"
# calls NAME DB TID: the calls of NAME by thread TID in DB
calls() { sqlite3 "$2" "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
	WHERE f.name = '$1' AND c.task_id = $3"; }
# a child with a FORK line and no TASK line in task.txt was dropped with its calls
child=$(sed -n 's/^FORK .* pid=\([0-9]*\) ppid=.*/\1/p' "$m/v0.13/fork.data/task.txt")
"$darc" analyze -o "$tmp/fork.db" "$m/v0.13/fork.data" >/dev/null 2>&1
check "a forked child that never execs (FORK line only): its 30 work() calls are read" \
	[ "$(calls work "$tmp/fork.db" "$child")" = 30 ]
# info's thread list (the files uftrace reads) must be task.txt's
rm -rf "$tmp/nofork.data" && cp -r "$m/v0.13/fork.data" "$tmp/nofork.data" &&
	sed -i '/^FORK /d' "$tmp/nofork.data/task.txt"
"$darc" analyze -o "$tmp/nofork.db" "$tmp/nofork.data" >/dev/null 2>"$tmp/nofork.err"
rc=$?
echo "   FORK line removed: $(cat "$tmp/nofork.err")"
check "a thread of info's taskinfo:tids without its task.txt line: exit 2, one line" \
	[ $rc -eq 2 -a "$(wc -l <"$tmp/nofork.err")" = 1 ] &&
	grep -q "thread $child of taskinfo:tids has no TASK or FORK line" "$tmp/nofork.err"
# uftrace -e writes exits at times it makes up
"$darc" analyze -o "$tmp/est.db" "$m/v0.19/estimate-return.data" >/dev/null 2>"$tmp/est.err"
rc=$?
check "uftrace -e (--estimate-return) refused in one line" \
	[ $rc -eq 2 -a "$(wc -l <"$tmp/est.err")" = 1 ] && grep -q -- "--estimate-return" "$tmp/est.err"
# uftrace 0.19's argument data once read as a record after it
"$darc" analyze -o "$tmp/args.db" "$m/v0.19/args.data" >/dev/null 2>&1
main=$(sed -n 's/^TASK .* tid=\([0-9]*\) .*/\1/p' "$m/v0.19/args.data/task.txt")
check "uftrace 0.19 -A/-R data passed over: add()'s 8 calls read" [ "$(calls add "$tmp/args.db" "$main")" = 8 ]
summary
