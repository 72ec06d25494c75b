#!/bin/bash
# What darc analyze prints (issue [4], section 5), checked on the samples:
#   - the split is over each function's whole subtree: on vm-cpuhog, whose
#     reads were preempted deep inside, vfs_read's preempt share is over 40%;
#     on vm-odirect, vfs_read's blocked time is at least schedule's;
#   - the parts add up to the total, and the header says which split it is;
#   - the tracer's own functions are marked (func.overhead) and left out of
#     the summary unless --all;
#   - lost events are counted, placed (per CPU, when) and the calls across
#     them named, in text and JSON (a copy of a sample with the "events
#     missed" bit set in one page header).
# Usage: summary.sh DARC. Exit 0 pass, 1 fail, 77 without python3/sqlite3/trace-cmd.
set -u
darc=$(realpath "${1:?usage: summary.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
for c in python3 sqlite3 trace-cmd; do
	command -v $c >/dev/null || { echo "skip: $c not installed"; exit 77; }
done
tmp=$(mktemp -d /tmp/darc-summary.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {
	local what=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
		echo "ok: $what"
	else
		fail=$((fail + 1))
		echo "FAIL: $what"
	fi
}

# jq-like: run python on the JSON summary of $1 with expression $2 (True/False)
jtrue() {
	"$darc" analyze --json --top 40 ${3:-} -o "$tmp/j.db" "$1" | python3 -c "
import json, sys
j = json.load(sys.stdin)
f = {x['func']: x for x in j['top']}
sys.exit(0 if ($2) else 1)"
}

check "cpuhog: vfs_read's subtree preempt share is over 40%" \
	jtrue "$samples/vm-cpuhog-v7.dat" "f['vfs_read']['preempt_ns'] > 0.4 * f['vfs_read']['incl_ns']"
check "odirect: vfs_read's blocked time is at least schedule's" \
	jtrue "$samples/vm-odirect-v7.dat" \
	"f['vfs_read']['blocked_ns'] >= f['schedule']['blocked_ns'] > 10000000"
check "the subtree parts of every function add up to its total" \
	jtrue "$samples/vm-odirect-v7.dat" "j['split'] == 'subtree' and all(
	x['self_ns'] + x['callees_ns'] + x['irq_ns'] + x['softirq_ns'] + x['preempt_ns'] +
	x['blocked_ns'] == x['incl_ns'] for x in j['top'])"
"$darc" analyze -o "$tmp/t.db" "$samples/vm-zeroread-v7.dat" >"$tmp/t.txt"
check "the text says the split is over the whole subtree" grep -q "each split over its whole subtree" "$tmp/t.txt"

# the tracer's own functions
check "kprobe_ftrace_handler is marked overhead in func" \
	[ "$(sqlite3 "$tmp/t.db" "SELECT overhead FROM func WHERE name = 'kprobe_ftrace_handler'")" = 1 ]
check "vfs_read is not" [ "$(sqlite3 "$tmp/t.db" "SELECT overhead FROM func WHERE name = 'vfs_read'")" = 0 ]
check "the summary leaves the tracer out" jtrue "$samples/vm-zeroread-v7.dat" \
	"'kprobe_ftrace_handler' not in f and 'vfs_read' in f"
check "--all shows it" jtrue "$samples/vm-zeroread-v7.dat" "'kprobe_ftrace_handler' in f" --all

# lost events: set RB_MISSED_EVENTS in the commit word of page 5 of the busiest CPU
trace-cmd convert --file-version 6 -i "$samples/vm-odirect-v7.dat" -o "$tmp/v6.dat" >/dev/null 2>&1
python3 - "$tmp/v6.dat" "$tmp/lost.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
psize = struct.unpack_from('<I', d, 14)[0]
pos = d.rfind(b'flyrecord\x00')
cpus = []  # (offset, size) per CPU until the table ends
while len(cpus) < 64:
    off, size = struct.unpack_from('<QQ', d, pos + 10 + 16 * len(cpus))
    if off % psize or size % psize or off + size > len(d):
        break
    cpus.append((off, size))
off, size = max(cpus, key=lambda c: c[1])  # the busiest CPU
assert size >= 6 * psize, "too few pages"
page = off + 5 * psize
d[page + 8 + 3] |= 0x80  # commit bit 31: events were missed before this page
open(sys.argv[2], 'wb').write(d)
PY
"$darc" analyze -o "$tmp/lost.db" "$tmp/lost.dat" >"$tmp/lost.txt"
check "lost events: the text counts them, per CPU, with when" \
	grep -qE "^lost events \(not counted\): cpu [0-9]+: events \(not counted\) at 1 point, [0-9.]+ \.\. [0-9.]+ s" "$tmp/lost.txt"
check "lost events: the calls open across the loss are named" \
	grep -qE "^[1-9][0-9]* calls were open across a loss: kept, flagged gap" "$tmp/lost.txt"
"$darc" analyze --json -o "$tmp/lost.db" "$tmp/lost.dat" | python3 -c '
import json, sys
l = json.load(sys.stdin)["loss"]
assert l["lost_marks"] == 1 and len(l["per_cpu"]) == 1 and l["calls_across_loss"] > 0, l
' && check "lost events: JSON" true || check "lost events: JSON" false
echo "$pass passed, $fail failed"
[ $fail = 0 ]
