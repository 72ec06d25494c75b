#!/bin/bash
# Bash completion (analyze/man/darc.bash) run in bash as the shell runs it:
# commands and options against the programs' own --help, function names,
# tasks and comms against the database's tables (read here with sqlite3),
# given as the database or as the recording beside it.
#
#   completion.sh SRC DARC DARC_RECORD
set -u
src=$1 darc=$2 record=$3
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3 shell"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../analyze/man/darc.bash
. "$src/analyze/man/darc.bash" || exit 1
fails=0

# complete WORD...: the completions of the last word, sorted
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	case $1 in
	*darc-record) _darc_record ;;
	*) _darc ;;
	esac
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}

# expect WHAT GOT WANT
expect() {
	if [ "$2" != "$3" ] || [ -z "$3" ]; then
		echo "FAIL: $1"
		echo "  got:  $(echo "$2" | head -5 | tr '\n' ' ')"
		echo "  want: $(echo "$3" | head -5 | tr '\n' ' ')"
		fails=$((fails + 1))
	else
		echo "ok: $1 ($(echo "$3" | wc -l) words)"
	fi
}

cp "$src/samples/vm-preads-v7.dat" "$tmp/rec.dat"
"$darc" analyze -q "$tmp/rec.dat" || exit 1
db=$tmp/rec.db

want=$("$darc" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 ~ /^e/ { print $1 }' | sort)
expect "darc e<TAB>: the commands" "$(complete_line "$darc" e)" "$want"
want=$("$darc" paths --help | grep -o -- '--m[a-z-]*' | sort -u)
expect "darc paths DB --m<TAB>: its options" "$(complete_line "$darc" paths "$db" --m)" "$want"
want=$(sqlite3 "$db" "SELECT DISTINCT name FROM func WHERE name GLOB 's*'" | sort)
expect "darc hist DB --func s<TAB>: the database's functions" \
	"$(complete_line "$darc" hist "$db" --func s)" "$want"
want=$(sqlite3 "$db" "SELECT DISTINCT name FROM func WHERE name GLOB '__x64_sys_p*'" | sort)
expect "darc paths REC.dat --root __x64_sys_p<TAB>: from REC.db beside it" \
	"$(complete_line "$darc" paths "$tmp/rec.dat" --root __x64_sys_p)" "$want"
want=$(sqlite3 "$db" "SELECT DISTINCT comm FROM task WHERE comm IS NOT NULL" | sort)
expect "darc explain DB --comm <TAB>: the tasks' names" \
	"$(complete_line "$darc" explain "$db" --comm '')" "$want"
expect "darc hist DB --func no_such_prefix<TAB>: nothing" \
	"$(complete_line "$darc" hist "$db" --func zz_no_such; echo end)" "end"
want=$(printf '%s\n' "$tmp/rec.db" "$tmp/rec.dat" | sort)
expect "darc hist <TAB>: recordings and databases" "$(complete_line "$darc" hist "$tmp/rec.")" "$want"
want=$("$record" --help | grep -o -- '--g[a-z-]*' | sort -u)
expect "darc-record --g<TAB>: its options" "$(complete_line "$record" --g)" "$want"
if [ -r /sys/kernel/tracing/available_events ]; then
	want=$(grep '^sched:sched_sw' /sys/kernel/tracing/available_events | sort)
	expect "darc-record -e sched:sched_sw<TAB>: tracefs's events" \
		"$(complete_line "$record" -e sched:sched_sw)" "$want"
fi
[ "$fails" -eq 0 ] || exit 1
echo "PASS"
