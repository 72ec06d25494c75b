#!/bin/bash
# A command line that corrects (issue 25): for every command, an unknown
# option, a missing argument, a bad argument, conflicting options, the wrong
# number of arguments and a selection that names nothing each get one line
# on stderr that says what is wrong (and what was meant), and exit 2. The
# names expected come from the database (sqlite3), the recording's known
# workload (samples/README.md: vm-preads-v7.dat is vm-workload's preads
# under function_graph rooted at __x64_sys_pread64), or each command's own
# --help; never from darc's error messages.
# Usage: cli-correct.sh DARC. Exit 0 pass, 1 fail, 77 no sqlite3.
set -u
darc=$(realpath "${1:?usage: cli-correct.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }
tmp=$(mktemp -d /tmp/darc-cli-correct.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
not_ok() { echo "FAIL: $1"; fail=$((fail + 1)); }

# bad PATTERN CMD...: exit 2, nothing on stdout, one line on stderr matching PATTERN (grep -E)
bad() {
	local pat=$1
	shift
	"$darc" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -qE -- "$pat" "$tmp/err"; then
		ok "darc $*: $(cat "$tmp/err")"
	else
		not_ok "darc $* (exit $rc, want 2 and one line matching '$pat'): $(head -c 600 "$tmp/err")"
	fi
}
q() { sqlite3 "$db" "$1"; }
# word $1 with two letters swapped, the first unlike pair from letter $2 on: a typing slip
slip() {
	local w=$1 i=${2:-1}
	while [ "${w:i:1}" = "${w:i+1:1}" ]; do i=$((i + 1)); done
	printf '%s%s%s%s' "${w:0:i}" "${w:i+1:1}" "${w:i:1}" "${w:i+2}"
}

cp "$here/../../samples/vm-preads-v7.dat" "$tmp/p.dat"
db=$tmp/p.db
"$darc" analyze -q -o "$db" "$tmp/p.dat" || { echo "FAIL: analyze"; exit 1; }
commands=$("$darc" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ "$(wc -w <<<"$commands")" -ge 11 ] || { echo "FAIL: darc --help lists no commands"; exit 1; }
# the arguments each command takes after its options
operands() {
	case $1 in
	info | dump | analyze) echo "$tmp/p.dat" ;;
	diff) echo "$db $db" ;;
	*) echo "$db" ;;
	esac
}

# 1. every command: unknown options, slips of its own options, missing arguments
for c in $commands; do
	"$darc" "$c" --help >"$tmp/help" || not_ok "darc $c --help"
	grep -q '%%' "$tmp/help" && not_ok "darc $c --help prints a literal %%"
	bad "^darc $c: unknown option '--no-such-option' \(darc $c --help\)$" \
		"$c" --no-such-option $(operands "$c")
	# the longest long option of its help, slipped: darc names it
	opt=$(grep -oE -- '--[a-z][a-z-]{4,}' "$tmp/help" | sort -u | awk '{print length, $0}' |
		sort -rn | head -1 | cut -d' ' -f2)
	opt=${opt#--}
	[ ${#opt} -ge 5 ] &&
		bad "^darc $c: unknown option '--$(slip "$opt" 2)'; did you mean --$opt\?" \
		"$c" "--$(slip "$opt" 2)" $(operands "$c")
	# the common start of two of its help's long options (neither the start
	# of the other): getopt_long refuses it as ambiguous, darc names them all
	amb=$(grep -oE -- '--[a-z][a-z-]+' "$tmp/help" | sort -u | sed 's/^--//' | awk '
		{ o[n++] = $0 }
		END {
			for (i = 0; i < n; i++)
				for (j = i + 1; j < n; j++) {
					a = o[i]; b = o[j]; k = 0
					while (k < length(a) && substr(a, k + 1, 1) == substr(b, k + 1, 1))
						k++
					if (k >= 2 && k < length(a) && k < length(b)) {
						print substr(a, 1, k); exit
					}
				}
		}')
	if [ -n "$amb" ]; then
		want=$(grep -oE -- "--${amb}[a-z-]*" "$tmp/help" | sort -u | tr '\n' ' ')
		"$darc" "$c" "--$amb" $(operands "$c") >/dev/null 2>"$tmp/err"
		rc=$? miss=
		for w in $want; do grep -qF -- "$w" "$tmp/err" || miss="$miss $w"; done
		if [ $rc = 2 ] && grep -q "^darc $c: ambiguous option '--$amb': " "$tmp/err" &&
			[ -z "$miss" ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then
			ok "darc $c --$amb: $(cat "$tmp/err")"
		else
			not_ok "darc $c --$amb (exit $rc; want 2, 'ambiguous option' and$miss): $(cat "$tmp/err")"
		fi
	fi
	# an option with an argument (its help says '--opt WORD'), last, without it
	arg_opt=$(grep -oE -- '--[a-z-]+ [A-Z]+' "$tmp/help" | head -1 | cut -d' ' -f1)
	if [ -n "$arg_opt" ]; then
		bad "^darc $c: $arg_opt needs an argument \(darc $c --help\)$" "$c" $(operands "$c") "$arg_opt"
	fi
	# the wrong number of arguments
	bad "^darc $c: needs .*none given" "$c"
	bad "^darc $c: takes .*'extra' is one too many" "$c" $(operands "$c") extra
done
# an option of other commands: named with those that have it (from their --help)
have=$(for c in $commands; do "$darc" "$c" --help | grep -qE -- '--top\b' && echo "$c"; done)
for c in $have; do
	bad "^darc hist: unknown option '--top' \(an option of darc .*\b$c\b" hist "$db" --func vfs_read --top 3
done
bad "^darc hist: unknown option '--peek'; did you mean --peaks\?" hist "$db" --peek 1-2 --func vfs_read
bad "^darc paths: unknown option '--peek'; did you mean --peak\?" paths "$db" --peek 1 --root vfs_read
bad "^darc hist: --json takes no argument" hist "$db" --func vfs_read --json=1
bad "^darc info: --json takes no argument" info --json=1 "$tmp/p.dat"
bad "^darc hist: unknown option '-x' \(darc hist --help\)$" hist "$db" --func vfs_read -x
bad "^darc diff: needs two recordings or databases, A and B; got one" diff "$db"

# 2. every bad argument names its option
bad "^darc explain: bad --top '0': " explain "$db" --top 0
bad "^darc io: bad --top '0': " io "$db" --func vfs_read --top 0
bad "^darc waits: bad --top 'x': " waits "$db" --task 1 --top x
bad "^darc analyze: bad --top 'x': " analyze --top x "$tmp/p.dat"
bad "^darc dump: bad --limit 'x': " dump -n x "$tmp/p.dat"
bad "^darc hist: bad --resolution '0': " hist "$db" --func vfs_read --resolution 0
bad "^darc hist: bad --time '2-1': " hist "$db" --func vfs_read --time 2-1
bad "^darc peaks: bad --smooth '2': " peaks "$db" --func vfs_read --smooth 2
bad "^darc diff: bad --kind 'x': func, path or all" diff "$db" "$db" --kind x
bad "^darc diff: bad --threshold 'x': " diff -t x "$db" "$db"
bad "^darc paths: bad --peak '0': " paths "$db" --root vfs_read --peak 0
bad "^darc paths: bad --mode 'half': max or sum" paths "$db" --root vfs_read --mode half
bad "^darc export: bad --metric 'x': " export "$db" --folded --metric x
bad "^darc waits: bad --task '0': " waits "$db" --task 0
bad "^darc io: bad --call 'x': " io "$db" --call x

# 3. conflicting options, refused in one line
bad "^darc paths: --root and --func" paths "$db" --root vfs_read --func __x64_sys_pread64
bad "^darc paths: --root and --func" paths "$db" --func __x64_sys_pread64 --root vfs_read
bad "^darc paths: --peak N .*--range" paths "$db" --root vfs_read --peak 1 --range 10-12
bad "^darc (hist|peaks|paths): --func, --fnode and --path" hist "$db" --func vfs_read --fnode 1
bad "^darc peaks: --func, --fnode and --path" peaks "$db" --fnode 1 --path 'a>b'
bad "^darc explain: .*--func" explain "$db" --func vfs_read
bad "^darc explain: unknown option '--svg' \(an option of darc .*hist" explain "$db" --svg "$tmp/x.svg"
bad "^darc paths: unknown option '--svg'" paths "$db" --root vfs_read --svg "$tmp/x.svg"
[ -e "$tmp/x.svg" ] && not_ok "--svg refused, yet a file was written" || ok "no SVG written"
bad "^darc export: --folded, --chrome, --speedscope and --perfetto" export "$db" --folded --chrome
bad "^darc io: --func, --call, --bios and --irqs" io "$db" --func vfs_read --call 1
bad "^darc io: --func, --call, --bios and --irqs" io "$db" --bios --irqs
bad "^darc io: --bios .*--top" io "$db" --bios --top 2
bad "^darc io: --layers" io "$db" --irqs --layers "$tmp/p.dat"
bad "^darc waits: --task and --call" waits "$db" --task 1 --call 1
bad "^darc hist: --task and --comm" hist "$db" --func vfs_read --task 1 --comm x
# options another one would leave unused
bad "^darc analyze: --top, --json and --all .*-q" analyze -q --json -o "$tmp/q.db" "$tmp/p.dat"
bad "^darc analyze: --top, --json and --all .*-q" analyze -q -t 3 -o "$tmp/q.db" "$tmp/p.dat"
[ -e "$tmp/q.db" ] && not_ok "analyze refused, yet wrote q.db" || ok "refused: no q.db"
bad "^darc peaks: --explain.*--json" peaks "$db" --func vfs_read --explain --json
bad "^darc diff: --json .*--show" diff "$db" "$db" --json --show 2
bad "^darc diff: --pair and --force .*--svg" diff "$db" "$db" --pair vfs_read
bad "^darc diff: --pair and --force .*--svg" diff "$db" "$db" --force
bad "^darc hist: --force .*--svg" hist "$db" --func vfs_read --force
bad "^darc export: --force .*-o" export "$db" --folded --force
bad "^darc (hist|peaks): --peaks .*--prominence" peaks "$db" --func vfs_read --peaks 3-5 --prominence 1
bad "^darc hist: --peaks .*--smooth" hist "$db" --func vfs_read --peaks 3-5 --smooth 3
bad "^darc export: --metric, --off-cpu and --root are --folded's" export "$db" --chrome --root comm

# 4. names that name nothing: a close one, from the database
f=$(q "SELECT name FROM func WHERE name = 'vfs_read'")
[ "$f" = vfs_read ] || not_ok "the recording has no vfs_read"
bad "no function 'vfs_raed'; did you mean vfs_read\?" hist "$db" --func vfs_raed
sys=$(q "SELECT name FROM func WHERE name LIKE '%sys\_pread64' ESCAPE '\\'")
[ "$sys" = __x64_sys_pread64 ] || not_ok "the recording's pread64 is '$sys'"
bad "no function 'pread64'; did you mean $sys\?" hist "$db" --func pread64
bad "no function 'pread64'; did you mean $sys\?" io "$db" --func pread64
comm=$(q "SELECT comm FROM task WHERE tid = (SELECT task_id FROM call_base GROUP BY task_id
	ORDER BY count(*) DESC LIMIT 1)")
[ "$comm" = vm-workload ] || not_ok "the busiest task is '$comm', not the workload"
busiest=$(q "SELECT task_id FROM call_base GROUP BY task_id ORDER BY count(*) DESC LIMIT 1")
span_ms=$(q "SELECT (t_last - t_first) / 1000000 FROM recording")
last=$(q "SELECT max(id) FROM call_base")
notask=$(q "SELECT max(tid) + 100000 FROM task")

# 5. empty selections: one line naming it and what the recording has, exit 2 everywhere
for c in hist peaks paths explain export; do
	case $c in
	hist | peaks) sel=(--func vfs_read) ;;
	paths) sel=(--root vfs_read) ;;
	explain) sel=() ;;
	export) sel=(--folded) ;;
	esac
	bad "no task named '$(slip "$comm" 4)'; did you mean $comm\?" "$c" "$db" "${sel[@]}" --comm "$(slip "$comm" 4)"
	bad "no task named 'nosuch'" "$c" "$db" "${sel[@]}" --comm nosuch
	bad "no task $notask; the tasks with the most calls: $busiest \($comm\)" "$c" "$db" "${sel[@]}" --task "$notask"
	bad "--time 100s-200s is outside the recording, which spans 0-$span_ms\.[0-9]*ms" \
		"$c" "$db" "${sel[@]}" --time 100-200
done
bad "no task $notask; the tasks with the most calls: $busiest " waits "$db" --task "$notask"
bad "no call $((last + 1)); its calls are 1 to $last$" io "$db" --call $((last + 1))
bad "no call $((last + 1)); its calls are 1 to $last$" waits "$db" --call $((last + 1))
# parts that exist but hold no call together: the first ns of the recording
# (the first call enters later; sqlite3 says when)
first=$(q "SELECT min(t_entry) - (SELECT t_first FROM recording) FROM call_base WHERE
	func_id IN (SELECT id FROM func WHERE name = 'vfs_read')")
[ "$first" -gt 1 ] && bad "no call of vfs_read in --time 0ns-1ns$" hist "$db" --func vfs_read --time 0-1ns

# 6. a SQLite file that is not darc's
sqlite3 "$tmp/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
bad "'$tmp/other.db': not a darc database" hist "$tmp/other.db" --func vfs_read
bad "'$tmp/other.db': not a darc database" io "$tmp/other.db" --func vfs_read
bad "'$tmp/other.db': not a darc database" explain "$tmp/other.db"
bad "'$tmp/other.db': not a darc database" export "$tmp/other.db" --folded
bad "'$tmp/other.db': not a darc database" diff "$db" "$tmp/other.db"

# 7. darc io alone: an overview, its numbers against sqlite3's; the workload's
# 200 O_DIRECT preads each went to the disk once (samples/README.md)
if command -v python3 >/dev/null; then
	slow=$(q "SELECT sum(incl_ns) FROM (SELECT c.incl_ns FROM call c JOIN func f ON
		f.id = c.func_id WHERE f.name = '$sys' AND c.incl_ns IS NOT NULL AND c.flags & 3 = 0
		ORDER BY c.incl_ns DESC LIMIT 20)")
	roots=$(q "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id WHERE
		n.parent_id IS NULL AND NOT f.overhead GROUP BY f.name ORDER BY sum(n.incl_ns) DESC
		LIMIT 1")
	dmax=$(q "SELECT max(t_complete - t_issue) FROM bio WHERE flags & 1 = 0")
	if "$darc" io "$db" --json >"$tmp/io.json" 2>"$tmp/err" && python3 - "$tmp/io.json" \
		"$roots" "$slow" "$dmax" <<'PY'; then
import json, sys
o = json.load(open(sys.argv[1]))
e, d = o["entry_points"][0], o["devices"]
assert e["func"] == sys.argv[2], (e["func"], sys.argv[2])
assert e["requests"] == 20 and sum(e["layers"].values()) == int(sys.argv[3]), e
assert len(d) == 1 and d[0]["requests"] == 200 and d[0]["bios"] == 200, d
assert d[0]["device_max_ns"] == int(sys.argv[4]), d
PY
		ok "darc io alone: the entry point $roots, its 20 slowest calls' layers add up, 200 disk reads"
	else
		not_ok "darc io alone: $(head -3 "$tmp/err")"
	fi
	"$darc" io "$db" >"$tmp/out" 2>&1 && grep -q "^$sys: 400 calls" "$tmp/out" &&
		grep -q "200 bios" "$tmp/out" && ok "darc io alone, as text" ||
		not_ok "darc io alone, as text: $(head -5 "$tmp/out")"
fi

# darc --help documents the exit status of an empty selection
"$darc" --help | tr '\n' ' ' | grep -q "2 bad usage or input.*selection" &&
	ok "darc --help: exit status 2 for an empty selection" || not_ok "darc --help: exit status"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
