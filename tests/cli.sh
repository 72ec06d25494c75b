#!/bin/bash
# The command line: exit statuses, --help, and one-line errors that name the
# file for every kind of bad input.
set -u
darc=${1:?usage: cli.sh DARC}
darc=$(realpath "$darc") || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
here=$(cd "$(dirname "$0")" && pwd)
sample="$here/../samples/host-tracepoints-v7.dat"

# expect STATUS 'PATTERN' CMD...: the exit status, and stderr's one line matching PATTERN
expect() {
	local want=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	local lines
	lines=$(wc -l <"$tmp/err")
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: $* exited $got, expected $want: $(head -3 "$tmp/err")"
		fail=$((fail + 1))
	elif [ -n "$pat" ] && { [ "$lines" -ne 1 ] || ! grep -qE "$pat" "$tmp/err"; }; then
		echo "FAIL: $*: stderr is not one line matching '$pat': $(cat "$tmp/err")"
		fail=$((fail + 1))
	else
		echo "ok: $* -> $got"
		pass=$((pass + 1))
	fi
}

expect 2 '' "$darc"
expect 0 '' "$darc" --help
expect 0 '' "$darc" info --help
expect 0 '' "$darc" dump --help
expect 2 "^darc: unknown command 'frobnicate'" "$darc" frobnicate
expect 2 '' "$darc" info
expect 2 '' "$darc" info --bogus "$sample"
expect 2 "^darc: '$tmp/none.dat': cannot open: No such file" "$darc" info "$tmp/none.dat"
: >"$tmp/empty.dat"
expect 2 "^darc: '$tmp/empty.dat': empty file$" "$darc" info "$tmp/empty.dat"
printf 'hello world, not a trace\n' >"$tmp/text.dat"
expect 2 "^darc: '$tmp/text.dat': not a trace.dat, perf.data or ftrace text file" "$darc" info "$tmp/text.dat"
printf '\027\010\104tracing9\0' >"$tmp/v9.dat"
expect 2 "unsupported trace.dat version '9'" "$darc" dump "$tmp/v9.dat"
head -c 100000 "$sample" >"$tmp/cut.dat"
expect 2 "^darc: '$tmp/cut.dat': .*truncated" "$darc" info "$tmp/cut.dat"
expect 2 "a directory, not a recording" "$darc" info "$tmp"
# special files are answered at once, never waited on or read whole ([19]): a FIFO as
# the recording (every command), and inside a uftrace.data directory a FIFO, a link to
# /dev/zero and a sparse 3 GB file where uftrace's files belong
mkfifo "$tmp/fifo.dat"
for c in info dump analyze "hist --func vfs_read" "peaks --func vfs_read" explain io \
	"export --folded -o $tmp/x.folded" "paths --func vfs_read"; do
	# shellcheck disable=SC2086 # the command's words
	expect 2 "^darc: '$tmp/fifo.dat': a FIFO, not a regular file$" timeout 10 "$darc" $c "$tmp/fifo.dat"
done
uft=$(dirname "$sample")/uftrace/pg.data
special_uftrace() { # NAME what-to-put-there EXPECTED
	rm -rf "$tmp/u.data" && cp -r "$uft" "$tmp/u.data" && rm -f "$tmp/u.data/$1" && eval "$2"
	expect 2 "^darc: '$tmp/u.data/$1': $3" timeout 10 "$darc" info "$tmp/u.data"
}
special_uftrace info 'mkfifo "$tmp/u.data/info"' "a FIFO, not a regular file$"
special_uftrace task.txt 'mkfifo "$tmp/u.data/task.txt"' "a FIFO, not a regular file$"
map=$(cd "$uft" && ls sid-*.map)
special_uftrace "$map" 'ln -s /dev/zero "$tmp/u.data/$map"' "a character device, not a regular file$"
special_uftrace 10161.dat 'ln -s /dev/zero "$tmp/u.data/10161.dat"' "a character device, not a regular file$"
special_uftrace info 'truncate -s 3G "$tmp/u.data/info"' "3221225472 bytes, more than the 1048576 a uftrace info file may have$"
special_uftrace task.txt 'truncate -s 3G "$tmp/u.data/task.txt"' "3221225472 bytes, more than the 268435456 a uftrace task file may have$"
special_uftrace workload-pg.sym 'mkfifo "$tmp/u.data/workload-pg.sym"' "a FIFO, not a regular file$"
# task.txt cut short or missing a field: refused with its line, as uftrace refuses it
for line in 'SESS ti' 'TASK timestamp=1.2 tid=5' 'FORK timestamp=1.2 pid=5'; do
	special_uftrace task.txt "printf '%s' '$line' >\"\$tmp/u.data/task.txt\"" \
		"line 1: a ${line%% *} line without its"
done
rm -rf "$tmp/u.data"
expect 0 '' "$darc" info "$sample"
expect 0 '' "$darc" info --json "$sample"
if ! "$darc" info --json "$sample" | grep -q '"events": 6615'; then
	echo "FAIL: darc info --json does not count 6615 events"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
# darc analyze: a database for a good recording; for a bad one, no database
expect 0 '' "$darc" analyze -q -o "$tmp/ok.db" "$sample"
if [ -s "$tmp/ok.db" ] && [ -z "$(ls "$tmp" | grep -v -e '^ok.db$' -e '^out$' -e '^err$' -e '\.dat$')" ]; then
	echo "ok: analyze wrote ok.db and nothing else"
	pass=$((pass + 1))
else
	echo "FAIL: analyze left: $(ls "$tmp")"
	fail=$((fail + 1))
fi
expect 2 "^darc: '$tmp/cut.dat': .*truncated" "$darc" analyze -q -o "$tmp/cut.db" "$tmp/cut.dat"
expect 2 "^darc: '$tmp/empty.dat': empty file$" "$darc" analyze -o "$tmp/empty.db" "$tmp/empty.dat"
if ls "$tmp" | grep -q -e '^cut.db' -e '^empty.db'; then
	echo "FAIL: a failed analysis left a database: $(ls "$tmp")"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
expect 2 "^darc: '$tmp/no/such/dir/x.db': cannot" "$darc" analyze -o "$tmp/no/such/dir/x.db" "$sample"
# a v7 recording whose kallsyms section does not decompress: the analysis loads
# it at its first kernel address, info after the events; both say so
fg7="$here/../samples/vm-preads-v7.dat"
koff=$(trace-cmd dump --sections "$fg7" 2>&1 | sed -n 's/.*Section 19 @ \([0-9]*\) .*"kallsyms".*/\1/p')
if [ -n "$koff" ]; then
	python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(int(sys.argv[2]) + 40, int(sys.argv[2]) + 400, 7):
    d[i] ^= 0x5a
open(sys.argv[3], "wb").write(d)' "$fg7" "$koff" "$tmp/badksyms.dat"
	expect 2 "^darc: '$tmp/badksyms.dat': kallsyms section at offset $koff does not decompress$" \
		"$darc" info "$tmp/badksyms.dat"
	expect 2 "^darc: '$tmp/badksyms.dat': kallsyms section at offset $koff does not decompress$" \
		"$darc" analyze -q -o "$tmp/badksyms.db" "$tmp/badksyms.dat"
	[ -e "$tmp/badksyms.db" ] && { echo "FAIL: a failed analysis left badksyms.db"; fail=$((fail + 1)); }
else
	echo "FAIL: no kallsyms section found in $fg7 (trace-cmd dump --sections)"
	fail=$((fail + 1))
fi
expect 2 "bad --top" "$darc" analyze --top x "$sample"
# a number past int is refused, not wrapped by a cast (4294967296 was --top 0)
expect 2 "bad --top '4294967296': a number from 0 to 2147483647" \
	"$darc" analyze --top 4294967296 -o "$tmp/wrap.db" "$sample"
expect 2 "bad --max-depth '4294967297': a number from 0 to 2147483647" \
	"$darc" analyze --max-depth 4294967297 -o "$tmp/wrap.db" "$sample"
if ! "$darc" analyze --json -o "$tmp/j.db" "$sample" | grep -q '"calls": 1510'; then
	echo "FAIL: darc analyze --json does not count 1510 calls"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

# the output never destroys what it is pointed at
same=$tmp/same.dat
cp "$sample" "$same"
expect 2 "^darc: '$same': is a file this command reads: not overwritten$" \
	"$darc" analyze -q -o "$same" "$same"
ln -s "$same" "$tmp/link.db"
ln "$same" "$tmp/hard.db"
expect 2 "is a file this command reads" "$darc" analyze -q -o "$tmp/link.db" "$same"
expect 2 "is a file this command reads" "$darc" analyze -q -f -o "$tmp/hard.db" "$same"
cmp -s "$same" "$sample" && [ -L "$tmp/link.db" ] && pass=$((pass + 1)) ||
	{ echo "FAIL: the recording was changed"; fail=$((fail + 1)); }
expect 2 "^darc: '/dev/null': exists and is not a regular file: not replaced$" \
	"$darc" analyze -q -o /dev/null "$same"
expect 2 "^darc: '$tmp': is a directory: not replaced" "$darc" analyze -q -o "$tmp" "$same"
[ -c /dev/null ] && pass=$((pass + 1)) || { echo "FAIL: /dev/null replaced"; fail=$((fail + 1)); }
echo "notes" >"$tmp/notes.txt"
expect 2 "^darc: '$tmp/notes.txt': exists and is not a darc database: not replaced \(--force replaces it\)$" \
	"$darc" analyze -q -o "$tmp/notes.txt" "$same"
grep -q notes "$tmp/notes.txt" && pass=$((pass + 1)) ||
	{ echo "FAIL: notes.txt replaced"; fail=$((fail + 1)); }
expect 0 '' "$darc" analyze -q -f -o "$tmp/notes.txt" "$same"
expect 0 '' "$darc" analyze -q -o "$tmp/notes.txt" "$same" # a darc database now: replaced

# a signal ends the analysis with the conventional status and no temporary file
if command -v python3 >/dev/null && command -v trace-cmd >/dev/null; then
	trace-cmd convert --file-version 6 -i "$here/../samples/vm-zeroread-v7.dat" \
		-o "$tmp/zr6.dat" >/dev/null 2>&1 &&
		python3 "$here/bench/repeat-v6.py" "$tmp/zr6.dat" "$tmp/big.dat" 40 >/dev/null
	set -m # else a background job starts with SIGINT ignored (and darc keeps it so)
	for sig in INT TERM HUP; do
		# stopped once its temporary database is made (wfile.c's test hook):
		# polling for the file raced with an analysis that ended first
		env --default-signal=INT,TERM,HUP DARC_TEST_WFILE_STOP=1 "$darc" analyze -q -o "$tmp/sig.db" "$tmp/big.dat" 2>/dev/null &
		p=$!
		for _ in $(seq 100); do
			[ "$(ps -o state= -p $p 2>/dev/null | tr -d ' ')" = T ] && break
			sleep 0.1
		done
		kill -$sig $p
		kill -CONT $p
		rc=147 # wait also returns when the job stops (128 + SIGSTOP)
		while [ $rc -eq 147 ]; do
			wait $p
			rc=$?
		done
		want=$((128 + $(kill -l $sig)))
		if [ $rc = $want ] && ! ls "$tmp" | grep -q '^sig.db'; then
			echo "ok: SIG$sig during an analysis: status $rc, no file left"
			pass=$((pass + 1))
		else
			echo "FAIL: SIG$sig during an analysis: status $rc (want $want), left: $(ls "$tmp" | grep sig.db)"
			fail=$((fail + 1))
		fi
	done
	set +m
else
	echo "note: no python3 or trace-cmd: the signal cases are not run"
fi

# a full stdout is an error, not silent loss
if [ -w /dev/full ]; then
	expect 2 "cannot write the output" sh -c '"$0" dump "$1" >/dev/full' "$darc" "$sample"
fi
# error messages are made of initialised text ([19] item 4): an export of a database
# whose table task is gone, to stdout and to a file, says what SQLite said
"$darc" analyze -q -o "$tmp/notask.db" "$sample" && sqlite3 "$tmp/notask.db" "DROP TABLE task"
expect 2 "^darc: '$tmp/notask.db': not darc's schema: it has no table task$" \
	"$darc" export "$tmp/notask.db" --chrome -o -
expect 2 "^darc: '$tmp/notask.db': not darc's schema: it has no table task$" \
	"$darc" export "$tmp/notask.db" --chrome -o "$tmp/notask.json"
# a database is reused only for the recording it was made from ([19] item 6): a copy of
# another recording's database, newer than the recording, is remade, not read as its analysis
cp "$sample" "$tmp/ida.dat" && cp "$(dirname "$sample")/vm-preads-v7.dat" "$tmp/idb.dat"
"$darc" hist --func vfs_read "$tmp/idb.dat" >/dev/null 2>&1
"$darc" hist --func sched_switch "$tmp/ida.dat" >/dev/null 2>&1
cp "$tmp/ida.db" "$tmp/idb.db" && touch "$tmp/idb.db"
expect 0 "^darc hist: analyzing '$tmp/idb.dat' into '$tmp/idb.db' first \(it was made from another recording: " \
	"$darc" hist --func vfs_read "$tmp/idb.dat"
if ! grep -q "400 calls" "$tmp/out"; then
	echo "FAIL: darc hist of idb.dat after its database was replaced: $(head -1 "$tmp/out")"
	fail=$((fail + 1))
fi
expect 0 "^darc hist: reading '$tmp/idb.db' \(the analysis of '$tmp/idb.dat'\)$" \
	"$darc" hist --func vfs_read "$tmp/idb.dat"
# a pipe that closes early ends darc quietly (SIGPIPE, nothing on stderr)
"$darc" analyze -q -o "$tmp/good.db" "$sample"
for c in "dump $sample" "dump --pretty $sample" "export --chrome $tmp/good.db"; do
	# shellcheck disable=SC2086 # the command's words
	"$darc" $c 2>"$tmp/pipe.err" | head -c 1 >/dev/null
	if [ -s "$tmp/pipe.err" ]; then
		echo "FAIL: darc $c | head: stderr: $(head -c 200 "$tmp/pipe.err")"
		fail=$((fail + 1))
	else
		echo "ok: darc $c | head: quiet"
		pass=$((pass + 1))
	fi
done
# the search's options are read one way by every command that searches ([23] item 2):
# explain refused none of these (500% ran the search and failed "out of memory?")
for c in "paths --root vfs_read" explain; do
	for o in "maxcount-pct 500" "maxcount-pct 0" "min-bucket 99" "max-depth 5000" "max-depth -1" \
		"mode foo"; do
		# shellcheck disable=SC2086 # the command's words
		expect 2 "^darc ${c%% *}: bad --${o% *} '${o#* }': " "$darc" $c "$tmp/good.db" --$o
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
