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
expect 2 "^darc: '$tmp/text.dat': not a trace.dat file" "$darc" info "$tmp/text.dat"
printf '\027\010\104tracing9\0' >"$tmp/v9.dat"
expect 2 "unsupported trace.dat version '9'" "$darc" dump "$tmp/v9.dat"
head -c 100000 "$sample" >"$tmp/cut.dat"
expect 2 "^darc: '$tmp/cut.dat': .*truncated" "$darc" info "$tmp/cut.dat"
expect 2 "not a regular file" "$darc" info "$tmp"
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
expect 2 "bad --top" "$darc" analyze --top x "$sample"
if ! "$darc" analyze --json -o "$tmp/j.db" "$sample" | grep -q '"calls": 1510'; then
	echo "FAIL: darc analyze --json does not count 1510 calls"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

# a full stdout is an error, not silent loss
if [ -w /dev/full ]; then
	expect 2 "cannot write the output" sh -c '"$0" dump "$1" >/dev/full' "$darc" "$sample"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
