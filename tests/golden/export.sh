#!/bin/bash
# darc export on the samples:
#   - --folded: every stack's weight equals the sum the database gives for it,
#     computed here in SQL (sqlite3) from other views (fnode_path, call_path,
#     wait), for every metric, with --root, --comm, --time, --func, --off-cpu;
#     with --metric incl each frame is as wide as its fnode's incl_ns;
#   - --chrome: valid JSON whose X events nest per thread, one per
#     complete call lasting its incl_ns, and the intervals
#     (tests/golden/chrome-check.py), on every sample;
#   - -o writes the file whole or not at all; bad usage and input: exit 2, one line.
# Usage: export.sh DARC. Exit 0 pass, 1 fail, 77 without sqlite3 or python3.
set -u
darc=$(realpath "${1:?usage: export.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
for c in sqlite3 python3; do
	command -v $c >/dev/null || { echo "skip: $c not installed"; exit 77; }
done
tmp=$(mktemp -d /tmp/darc-export.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL: $1"; }

# same WHAT A B: the two stack files hold the same lines, in any order
same() {
	if diff <(sort "$2") <(sort "$3") >"$tmp/diff"; then
		ok "$1 ($(wc -l <"$2") stacks)"
	else
		not_ok "$1: darc's stacks (<) differ from SQL's (>):"
		head -6 "$tmp/diff" | sed 's/^/    /'
	fi
}
# folded_sql DB SQL: the rows of SQL (stack|weight) as folded lines, weights > 0 only
folded_sql() {
	sqlite3 -separator ' ' "$1" "SELECT * FROM ($2) WHERE 2 > 1" | awk '$NF > 0'
}

for s in vm-fsyncread-v7 vm-odirect-v7 vm-cpuhog-v7 vm-preads-v7 vm-chain-v7 host-tracepoints-v7; do
	"$darc" analyze -q -o "$tmp/$s.db" "$samples/$s.dat" || not_ok "analyze $s"
done

# 1. each metric, every fnode: the weight of a stack is its fnode's sum
declare -A expr=([excl]=excl_ns [incl]="incl_ns - children_ns" [calls]=calls [irq]=irq_ns
	[softirq]=softirq_ns [preempt]=preempt_ns [blocked]=blocked_ns
	[offcpu]="preempt_ns + blocked_ns")
for s in vm-fsyncread-v7 vm-odirect-v7 vm-cpuhog-v7 host-tracepoints-v7; do
	for m in excl incl calls irq softirq preempt blocked offcpu; do
		"$darc" export "$tmp/$s.db" --folded --metric $m >"$tmp/got" || not_ok "$s $m: exit $?"
		folded_sql "$tmp/$s.db" "SELECT replace(path, ' > ', ';'), ${expr[$m]}
			FROM hot_paths" >"$tmp/want"
		[ -s "$tmp/want" ] || [ $m = softirq ] || [ $m = irq ] || [ $m = preempt ] ||
			not_ok "$s $m: SQL found no stack"
		same "$s --metric $m: each stack's weight is its fnode's $m" "$tmp/got" "$tmp/want"
	done
done

# 2. the calls themselves: per task (--root tid), of one comm, in a time window
db=$tmp/vm-fsyncread-v7.db
t0=$(sqlite3 "$db" 'SELECT t_first FROM recording')
"$darc" export "$db" --folded --root tid >"$tmp/got"
folded_sql "$db" "SELECT comm || '-' || task_id || ';' || replace(path, ' > ', ';'), sum(excl_ns)
	FROM call_path WHERE incl_ns IS NOT NULL AND flags & 3 = 0 GROUP BY 1" >"$tmp/want"
same "--root tid: the excl_ns of each task's calls by path" "$tmp/got" "$tmp/want"
"$darc" export "$db" --folded --root comm --comm vm-workload --time 100ms-250ms --metric incl \
	>"$tmp/got"
folded_sql "$db" "SELECT comm || ';' || replace(path, ' > ', ';'), sum(incl_ns - children_ns)
	FROM call_path WHERE incl_ns IS NOT NULL AND flags & 3 = 0 AND comm = 'vm-workload'
	AND t_entry >= $t0 + 100000000 AND t_entry < $t0 + 250000000 GROUP BY 1" >"$tmp/want"
[ -s "$tmp/want" ] || not_ok "no call in the window"
same "--comm --time --root comm --metric incl: the calls entered in the window" \
	"$tmp/got" "$tmp/want"
"$darc" export "$db" --folded --func vfs_read --metric calls >"$tmp/got"
folded_sql "$db" "SELECT replace(path, ' > ', ';'), calls FROM hot_paths
	WHERE ' > ' || path || ' > ' LIKE '% > vfs_read > %'" >"$tmp/want"
same "--func vfs_read: the paths through vfs_read, and below it" "$tmp/got" "$tmp/want"

# 3. off-CPU: the sleeps of each path, by the wait's kind (view wait)
for s in vm-fsyncread-v7 vm-chain-v7 vm-preads-v7; do
	for m in blocked offcpu; do
		"$darc" export "$tmp/$s.db" --folded --off-cpu --metric $m >"$tmp/got"
		folded_sql "$tmp/$s.db" "SELECT replace(p.path, ' > ', ';') || ';[' || w.category
			|| ']', sum(w.ns) FROM wait w JOIN call_path p ON p.id = w.call_id
			WHERE w.ns IS NOT NULL AND p.incl_ns IS NOT NULL AND p.flags & 3 = 0
			AND (w.kind = 1 OR '$m' = 'offcpu') GROUP BY 1" >"$tmp/want"
		[ -s "$tmp/want" ] || not_ok "$s: SQL found no sleep"
		same "$s --off-cpu --metric $m: the waits of each path by kind" "$tmp/got" "$tmp/want"
	done
done

# 4. --metric incl: a frame of the flame graph is as wide as its fnode's incl_ns
for s in vm-odirect-v7 vm-cpuhog-v7; do
	"$darc" export "$tmp/$s.db" --folded --metric incl >"$tmp/got"
	sqlite3 -separator ' ' "$tmp/$s.db" "SELECT replace(path, ' > ', ';'), incl_ns FROM hot_paths
		WHERE incl_ns > 0" >"$tmp/want"
	if python3 - "$tmp/got" "$tmp/want" <<'PY'; then
import collections, sys
width = collections.Counter()
for line in open(sys.argv[1]):
    stack, w = line.rsplit(" ", 1)
    frames = stack.split(";")
    for i in range(1, len(frames) + 1):
        width[";".join(frames[:i])] += int(w)
bad = [l for l in open(sys.argv[2]) if width[l.rsplit(" ", 1)[0]] != int(l.rsplit(" ", 1)[1])]
if bad:
    print("".join(bad[:3]), end="")
sys.exit(1 if bad else 0)
PY
		ok "$s --metric incl: every frame's width is its fnode's incl_ns"
	else
		not_ok "$s --metric incl: frame widths differ from incl_ns"
	fi
done

# 5. --chrome on every sample: valid JSON, calls nest per thread, durations are incl_ns
for s in vm-fsyncread-v7 vm-odirect-v7 vm-cpuhog-v7 vm-preads-v7 vm-chain-v7 host-tracepoints-v7; do
	"$darc" export "$tmp/$s.db" --chrome -o "$tmp/$s.json" || not_ok "$s --chrome: exit $?"
	if out=$(python3 "$here/chrome-check.py" "$tmp/$s.json" "$tmp/$s.db" 2>&1); then
		ok "$s --chrome: $out"
	else
		not_ok "$s --chrome: $out"
	fi
done
# some calls: those in the file are the database's, and nest
host=$tmp/host-tracepoints-v7.db
for sel in "$db --time 100ms-110ms" "$db --func ext4_file_read_iter --time 90ms-120ms" \
	"$host --comm storm" "$host --task $(sqlite3 "$host" "SELECT tid FROM task WHERE comm = 'dd' AND tid IN (SELECT task_id FROM call_base) LIMIT 1")"; do
	# shellcheck disable=SC2086
	"$darc" export $sel --chrome -o "$tmp/sel.json" || not_ok "--chrome $sel: exit $?"
	if out=$(python3 "$here/chrome-check.py" --subset "$tmp/sel.json" "${sel%% *}" 2>&1) &&
		! grep -q "^0 calls" <<<"$out"; then
		ok "--chrome ${sel#* }: $out"
	else
		not_ok "--chrome ${sel#* }: $out"
	fi
done
"$darc" export "$db" --chrome --comm vm-workload --func vfs_read >"$tmp/sub.json"
python3 - "$tmp/sub.json" "$db" <<'PY' && ok "--chrome --comm --func: only the subtrees of vfs_read, nested" || not_ok "--chrome --comm --func"
import json, sqlite3, sys
j = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
want = db.execute("SELECT count(*) FROM call_path WHERE incl_ns IS NOT NULL AND flags & 3 = 0"
                  " AND comm = 'vm-workload' AND ' > ' || path || ' > ' LIKE '% > vfs_read > %'"
                  ).fetchone()[0]
b = [e for e in j["traceEvents"] if e["ph"] == "X" and e["cat"] == "call"]
assert len(b) == want == j["otherData"]["calls"] > 0, (len(b), want)
assert b[0]["name"] == "vfs_read", b[0]["name"]
PY

# 6. -o: the whole file or none; errors: exit 2 and one line naming the problem
"$darc" export "$db" --folded -o "$tmp/a.folded" && cmp -s "$tmp/a.folded" <("$darc" export "$db" --folded) &&
	ok "-o FILE holds what stdout gets" || not_ok "-o FILE differs from stdout"
expect_error() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2 rc
	shift 2
	"$darc" export "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err"; then
		ok "$what: exit 2, '$(cat "$tmp/err")'"
	else
		not_ok "$what: exit $rc, '$(cat "$tmp/err")'"
	fi
}
expect_error "no format" "say what to write" "$db"
expect_error "two formats" "exclude each other" "$db" --folded --chrome
expect_error "a bad metric" "bad --metric 'wall'" "$db" --folded --metric wall
expect_error "--chrome with --metric" "are --folded's" "$db" --chrome --metric incl
expect_error "--speedscope with --root" "are --folded's" "$db" --speedscope --root comm
expect_error "--off-cpu with excl" "--off-cpu weighs" "$db" --folded --off-cpu --metric excl
expect_error "a bad --root" "bad --root" "$db" --folded --root pid
expect_error "an unknown function" "no function 'nope'" "$db" --folded --func nope
expect_error "a missing file" "'$tmp/none.db'" "$tmp/none.db" --folded
printf 'not a database' >"$tmp/junk.db"
expect_error "not a database" "'$tmp/junk.db'" "$tmp/junk.db" --chrome
expect_error "an unwritable -o" "cannot create" "$db" --folded -o "$tmp/no/such/dir/x"
ls "$tmp"/no 2>/dev/null && not_ok "a file was left" || ok "no file left behind by a failed -o"
"$darc" export "$db" --folded --func nope -o "$tmp/f.folded" 2>/dev/null
[ ! -e "$tmp/f.folded" ] && [ -z "$(ls "$tmp" | grep 'f.folded.tmp')" ] &&
	ok "a failed export leaves no -o file" || not_ok "a failed export left a file"
"$darc" export --help | grep -q "flamegraph.pl" && ok "--help says how to view it" ||
	not_ok "--help"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
