#!/bin/bash
# check-analyze.sh DARC FILE: analyze FILE and check that every number adds
# up: the latency identity on every call, children_ns against the children's
# rows, fnode totals against their calls, histogram sums against call counts
# (the schema's *_violations views must all be empty), and every
# function_graph call's incl_ns against the duration trace-cmd report prints
# for it (the two sorted lists of durations must be identical), every probe
# event against trace-cmd report -R (time, event, fetch args: table
# probe_hit), and, where tests/golden/expected/NAME.sql exists, its queries
# against NAME.sql.out (sqlite3 -header, a file of facts checked by hand).
# Exit 0 agree, 1 differ, 77 sqlite3 or trace-cmd missing.
set -u
darc=${1:?usage: check-analyze.sh DARC FILE}
darc=$(realpath "$darc") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
file=${2:?usage: check-analyze.sh DARC FILE}
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 not installed"; exit 77; }
command -v trace-cmd >/dev/null || { echo "skip: trace-cmd not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
db=$tmp/a.db
name=$(basename "$file")

if ! "$darc" analyze -q -o "$db" "$file" 2>"$tmp/err"; then
	echo "FAIL: darc analyze $name: $(cat "$tmp/err")"
	exit 1
fi
fail=0
for v in identity_violations children_violations subtree_violations fnode_violations hist_violations time_violations; do
	n=$(sqlite3 "$db" "SELECT count(*) FROM $v")
	if [ "$n" != 0 ]; then
		echo "FAIL: $name: $v has $n rows:"
		sqlite3 -header "$db" "SELECT * FROM $v LIMIT 5"
		fail=1
	fi
done
# each call's blocked and preempted time is the sum of the sched intervals
# that name it (but for calls clamped where the clock went backwards)
sums="WITH s AS (SELECT call_id, sum(CASE kind WHEN 1 THEN t_in - t_out END) b,
		sum(CASE kind WHEN 0 THEN t_in - t_out END) p FROM sched_interval
		WHERE call_id IS NOT NULL AND t_in IS NOT NULL GROUP BY call_id)"
bad="FROM call c LEFT JOIN s ON s.call_id = c.id WHERE c.flags & 64 = 0
	AND (c.blocked_ns != coalesce(s.b, 0) OR c.preempt_ns != coalesce(s.p, 0))"
n=$(sqlite3 "$db" "$sums SELECT count(*) $bad")
if [ "$n" != 0 ]; then
	echo "FAIL: $name: $n calls whose blocked_ns or preempt_ns is not their sched intervals' sum:"
	# what a rare case needs to be understood from the log alone: the call,
	# its parent and children, and every off-CPU interval of its task near it
	sqlite3 -header "$db" "$sums SELECT c.id, c.task_id, c.parent_id, c.depth, c.func_id,
		c.t_entry, c.t_exit, c.flags, c.blocked_ns, s.b, c.preempt_ns, s.p $bad LIMIT 3"
	sqlite3 -header "$db" "$sums, x AS (SELECT c.id, c.task_id, c.t_entry, c.t_exit $bad LIMIT 3)
		SELECT 'call' AS what, k.id, k.parent_id, k.func_id, k.t_entry, k.t_exit, k.flags,
			k.blocked_ns, k.preempt_ns FROM x JOIN call k ON k.id = x.id
			OR k.id = (SELECT parent_id FROM call WHERE id = x.id) OR k.parent_id = x.id
		UNION ALL SELECT 'off', i.call_id, i.kind, i.cpu_out, i.t_out, i.t_in, i.cpu_in, i.state,
			i.t_in - i.t_out FROM x JOIN sched_interval i ON i.task_id = x.task_id
			AND i.t_in >= x.t_entry - 1000000 AND i.t_out <= x.t_exit + 1000000"
	fail=1
fi
# the traced entry points (kernel functions rooting two or more function_graph
# calls in task context: a -g function) are named, and every call of theirs is
# complete: an unnamed address (IBT's +4) or a call without entry or exit
# (an irq entry not recognised) is a reading error, not the recording's. But
# a task's first root call may have begun before the recording, and its last
# may end after it (then its open callees have no exit either, and it is
# marked a gap: a child's time is not known; samples/real-dirty-tc.dat ends
# inside trace-cmd's own write); and a kretprobe may miss a return
# (maxactive): kprobe pairs are not checked here
graph="NOT EXISTS (SELECT 1 FROM probe_hit p WHERE p.call_id = call.id AND p.role = 1)"
n=$(sqlite3 "$db" "WITH r AS (SELECT func_id FROM call WHERE depth = 0 AND flags & 56 = 0
		AND $graph GROUP BY func_id HAVING count(*) >= 2),
	c AS (SELECT call.*, row_number() OVER (PARTITION BY task_id ORDER BY t_entry, id) k,
		count(*) OVER (PARTITION BY task_id) n FROM call WHERE depth = 0 AND flags & 56 = 0
		AND $graph)
	SELECT f.name || ': ' || count(*) || ' calls, ' || sum(c.flags & 7 != 0) || ' incomplete'
	FROM c JOIN r ON r.func_id = c.func_id JOIN func f ON f.id = c.func_id
	WHERE f.kind = 0 GROUP BY f.id
	HAVING sum((c.flags & 4 != 0 AND NOT (c.flags & 2 != 0 AND c.k = c.n))
		OR (c.flags & 1 != 0 AND c.k > 1)
		OR (c.flags & 2 != 0 AND c.k < c.n)) > 0 OR f.name LIKE '0x%'")
if [ -n "$n" ]; then
	echo "FAIL: $name: entry points unnamed or with incomplete calls: $n"
	sqlite3 -header "$db" "SELECT c.id, c.task_id, f.name, c.flags, c.t_entry, c.incl_ns
		FROM call c JOIN func f ON f.id = c.func_id WHERE c.depth = 0 AND c.flags & 7 != 0
		AND c.flags & 56 = 0 AND f.kind = 0 LIMIT 5"
	fail=1
fi
calls=$(sqlite3 "$db" "SELECT count(*) FROM call")
if [ "$calls" -eq 0 ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM func")" -ne 0 ]; then
	echo "FAIL: $name: functions but no calls"
	fail=1
fi

# function_graph durations: darc's incl_ns of complete kernel-function calls,
# trace-cmd's printed "N.NNN us" (rettime - calltime), as two sorted lists
# (a kprobe pair on a function's start is a kernel-function call too: not these)
sqlite3 "$db" "SELECT c.incl_ns FROM call c JOIN func f ON f.id = c.func_id
	WHERE f.kind = 0 AND c.incl_ns IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM probe_hit p WHERE p.call_id = c.id AND p.role = 1)" |
	sort -n >"$tmp/darc.dur"
trace-cmd report "$file" 2>/dev/null | grep -E 'funcgraph_(entry|exit):' |
	grep -oE '[0-9]+\.[0-9]{3} us' | sed 's/ us//; s/\.//; s/^0*\([0-9]\)/\1/' |
	sort -n >"$tmp/tc.dur"
nd=$(wc -l <"$tmp/darc.dur")
nt=$(wc -l <"$tmp/tc.dur")
if ! cmp -s "$tmp/darc.dur" "$tmp/tc.dur"; then
	echo "FAIL: $name: function_graph durations differ ($nd from darc, $nt from trace-cmd):"
	diff "$tmp/darc.dur" "$tmp/tc.dur" | head -10
	fail=1
fi
# modules: every kernel function's func.module against the "[mod]" of its
# address in the kallsyms trace-cmd dumps ('-' for the kernel proper)
nm=0
if trace-cmd dump --kallsyms "$file" >"$tmp/ks" 2>/dev/null; then
	sqlite3 "$db" "SELECT printf('%x', addr), coalesce(module, '-') FROM func
		WHERE kind = 0 AND addr IS NOT NULL" | sort >"$tmp/darc.mod"
	awk -F'|' 'NR == FNR {
			if ($0 ~ /^[0-9a-f]+ /) {
				split($0, w, /[ \t]+/)
				a = w[1]; sub(/^0+/, "", a)
				m = "-"
				if (match($0, /\t\[[^]]+\]$/))
					m = substr($0, RSTART + 2, RLENGTH - 3)
				if (!(a in mod))
					mod[a] = m
			}
			next
		}
		{ print $1 "|" (($1 in mod) ? mod[$1] : "-") }' "$tmp/ks" "$tmp/darc.mod" |
		sort >"$tmp/tc.mod"
	nm=$(grep -vc '|-$' "$tmp/darc.mod")
	if ! cmp -s "$tmp/darc.mod" "$tmp/tc.mod"; then
		echo "FAIL: $name: func.module differs from trace-cmd's kallsyms:"
		diff "$tmp/darc.mod" "$tmp/tc.mod" | head -10
		fail=1
	fi
fi
# probe hits: "ns event arg=value ..." from both, in time order
sqlite3 "$db" "SELECT p.t || ' ' || substr(p.event, instr(p.event, ':') + 1) ||
	coalesce((SELECT group_concat(' ' || key || '=' || value, '') FROM json_each(p.args)), '')
	FROM probe_hit p ORDER BY p.id" >"$tmp/darc.probe"
trace-cmd report -R -t "$file" 2>/dev/null | awk '/ __probe_(ip|func)=/ {
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				break
		t = $i; sub(/:$/, "", t); sub(/\./, "", t); sub(/^0+/, "", t)
		ev = $(i + 1); sub(/:$/, "", ev)
		line = t " " ev
		for (k = i + 2; k <= NF; k++)
			if ($k !~ /^__probe_/)
				line = line " " $k
		print line
	}' >"$tmp/tc.probe"
np=$(wc -l <"$tmp/darc.probe")
if ! cmp -s "$tmp/darc.probe" "$tmp/tc.probe"; then
	echo "FAIL: $name: probe_hit differs from trace-cmd's probe events ($np from darc," \
		"$(wc -l <"$tmp/tc.probe") from trace-cmd):"
	diff "$tmp/darc.probe" "$tmp/tc.probe" | head -10
	fail=1
fi
# facts about this sample, checked by hand once (see the .sql file)
facts=$here/expected/${name%.dat}.sql
if [ -f "$facts" ]; then
	sqlite3 -header "$db" <"$facts" >"$tmp/facts.out" 2>&1
	if ! cmp -s "$tmp/facts.out" "$facts.out"; then
		echo "FAIL: $name: $(basename "$facts") differs from $(basename "$facts").out:"
		diff "$tmp/facts.out" "$facts.out" | head -20
		fail=1
	fi
fi
[ "$fail" -eq 0 ] || exit 1
echo "ok: $name: $calls calls add up; $nd function_graph durations equal trace-cmd's;" \
	"$np probe hits equal trace-cmd's; $nm functions in modules"
