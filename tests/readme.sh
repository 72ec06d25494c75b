#!/bin/bash
# Every command of README.md written with a "$ " prompt is run, in order, in a
# scratch directory where trace.dat is samples/vm-fsyncread-v7.dat, the other
# samples sit under their own names (and under samples/), and ./app is a
# program with symbols (tests/live/target.c). Each must exit 0; where the
# README shows output under the command (up to a blank line or the next
# command), the output (stdout and stderr) must be that, or begin with it when
# the shown output ends in a line "...". darc-record commands run only as root
# with tracefs (else they are skipped, and said so). Then the examples of
# every darc subcommand's --help, which must exit 0.
# Usage: readme.sh DARC DARC_RECORD APP. Exit 0 pass, 1 fail, 77 no sqlite3.
set -u
darc=$(realpath "${1:?usage: readme.sh DARC DARC_RECORD APP}") || exit 1
rec=$(realpath "$2" 2>/dev/null || echo "")
app=$(realpath "$3") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }
tmp=$(mktemp -d /tmp/darc-readme.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/samples"
ln -s "$darc" "$tmp/bin/darc"
[ -n "$rec" ] && ln -s "$rec" "$tmp/bin/darc-record"
cp "$top"/samples/*.dat "$tmp/samples/"
cp "$top"/samples/*.dat "$tmp/"
cp "$top/samples/vm-fsyncread-v7.dat" "$tmp/trace.dat"
cp "$app" "$tmp/app"
printf '# the layer map of darc io --help\next4_file_* page cache\n' >"$tmp/my-layers.txt"
can_record=0
[ "$(id -u)" = 0 ] && [ -n "$rec" ] && "$rec" --check >/dev/null 2>&1 && can_record=1
pass=0 fail=0 skip=0

# run CMD WANT: CMD in the scratch directory; WANT the output shown ("" if none)
run() {
	local cmd=$1 want=$2 got rc
	got=$(cd "$tmp" && PATH="$tmp/bin:$PATH" bash -c "$cmd" 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		fail=$((fail + 1))
		echo "FAIL: \$ $cmd: exit $rc"
		printf '%s\n' "$got" | head -5 | sed 's/^/    /'
		return
	fi
	if [ -n "$want" ]; then
		if [ "$(tail -n 1 <<<"$want")" = "..." ]; then
			want=$(sed '$d' <<<"$want")
			got=$(head -n "$(wc -l <<<"$want")" <<<"$got")
		fi
		if [ "$got" != "$want" ]; then
			fail=$((fail + 1))
			echo "FAIL: \$ $cmd: the output differs from README.md's:"
			diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -10 | sed 's/^/    /'
			return
		fi
	fi
	pass=$((pass + 1))
	echo "ok: \$ $cmd"
}

# the "$ " commands of README.md, each with the output shown under it
cmd="" want=""
flush() {
	[ -z "$cmd" ] && return
	if [[ $cmd == darc-record* ]] && [ $can_record = 0 ]; then
		skip=$((skip + 1))
		echo "skip: \$ $cmd (needs root, tracefs and darc-record)"
	else
		run "$cmd" "$want"
	fi
	cmd="" want=""
}
while IFS= read -r line; do
	if [[ $line == "    \$ "* ]]; then
		flush
		cmd=${line#    \$ }
	elif [ -n "$cmd" ] && [[ $line == "    "* ]]; then
		want+="${want:+$'\n'}${line#    }"
	else
		flush
	fi
done <"$top/README.md"
flush

# the examples of every subcommand's --help
cp "$tmp/vm-odirect-v7.dat" "$tmp/before.dat"
cp "$tmp/vm-odirect-v6.dat" "$tmp/after.dat"
"$darc" analyze -q -o "$tmp/one-writer.db" "$tmp/vm-odirect-v7.dat"
"$darc" analyze -q -o "$tmp/two-writers.db" "$tmp/vm-zeroread-v7.dat"
for sub in $("$darc" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]+ / { print $1 }'); do
	"$darc" "$sub" --help | awk '/^examples?:/ { on = 1; next } on && /^  (darc|sqlite3) / {
		sub(/^  /, ""); print }' >"$tmp/ex.txt"
	while IFS= read -r ex; do
		run "$ex" ""
	done <"$tmp/ex.txt"
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
