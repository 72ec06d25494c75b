#!/bin/bash
# tracer-cost.sh: the tracer's own cost, measured, shown and cut, on a real
# kernel (the VM lab; issue [21]).
#
#   tests/vm/tracer-cost.sh DARC DARC_RECORD [--keep DIR]
#
# In the guest (guest-overhead.sh test): darc-record records the dio
# workload (O_DIRECT and cached 4 KiB preads) with function_graph rooted at
# __x64_sys_pread64 and the bio kprobes; darc explain analyzes it there;
# darc-record --along records the workload again along the paths that
# analysis found; darc-record -l/--ftrace-notrace records it with a plain
# function filter. On the host:
#   - the bundle holds the tracer's cost measured by mechanism (manifest),
#     and darc info --json shows it as tracer_cost_ns;
#   - darc hist --json has tracer_shift in every bucket with calls;
#   - --along said how many functions it traces, holds at most a third of
#     the events of the first recording, only functions of the list it
#     printed, and its explain names the first recording's first cause
#     (function, kind, path);
#   - -l traced only the functions given (and the graph root), not the one
#     --ftrace-notrace names, and tracefs' filters are empty afterwards;
#   - trace-cmd pinned with the stat workload to one CPU: explain names its
#     reader's preemptions as the recorder's own, apart from the causes, and
#     darc info shows the graph's cost estimated from the recording.
# Exit status: 0 pass, 1 fail, 77 skip (no qemu, kernel, python3, sqlite3).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG=tracer-cost
# shellcheck source=host-lib.sh
. "$HERE/host-lib.sh"

DARC=${1:-}
REC=${2:-}
KEEP=
[ "${3:-}" = --keep ] && KEEP=${4:-}
[ -x "$DARC" ] && [ -x "$REC" ] || skip "usage: tracer-cost.sh DARC DARC_RECORD"
DARC=$(realpath "$DARC")
REC=$(realpath "$REC")
command -v python3 >/dev/null || skip "python3 not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
TRACE_CMD=$(command -v trace-cmd) || skip "trace-cmd not installed"
work_dir "$KEEP"
run_vm --add "$REC=/usr/local/bin/darc-record" --add "$DARC=/usr/local/bin/darc" \
	--add "$TRACE_CMD" --timeout 600 --script "$HERE/guest-overhead.sh" -- test 75
py() { python3 -c "$@"; }

# 1. the cost measured at record time, in the bundle, shown by darc info
"$DARC" info --json "$V/dio.dat" >"$WORK/info.json" || fail "darc info failed"
check "the manifest holds the measured cost of function_graph, kprobe and tracepoint" py '
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]["tracer_cost"]
print(json.dumps(m, indent=1))
for k in ("function_graph", "kprobe", "tracepoint"):
    assert m["mechanisms"][k]["ns"] > 0 and m["ns"][k] == m["mechanisms"][k]["ns"], k
assert m["mechanisms"]["function_graph"]["calls_per_iteration"] >= 1
' "$WORK/info.json"
check "darc info --json: tracer_cost_ns by mechanism, measured" py '
import json, sys
i = json.load(open(sys.argv[1]))
print(i["tracer_cost_ns"], i["tracer_cost"])
assert set(i["tracer_cost_ns"]) == {"function_graph", "kprobe", "tracepoint"}
assert all(v["source"] == "measured" for v in i["tracer_cost"].values())
' "$WORK/info.json"
check "darc info says it" grep -q \
	"^tracer cost:  function_graph [0-9]* ns, .* a traced call, measured by darc-record" \
	<("$DARC" info "$V/dio.dat")

# 2. darc hist --json with tracer_shift per bucket
"$DARC" hist --json "$V/dio.db" --func __x64_sys_pread64 >"$WORK/hist.json" ||
	fail "darc hist failed"
check "darc hist --json: tracer_shift in every bucket with calls, tracer_cost beside" py '
import json, sys
h = json.load(open(sys.argv[1]))
print(h["tracer_cost"])
for b in h["buckets"]:
    print(b["bucket"], b["count"], b["tracer_shift"])
    assert (b["tracer_shift"] is None) == (b["count"] == 0), b
    if b["count"]:
        assert 0 < b["tracer_shift"]["share"] <= 1 and b["tracer_shift"]["share_ns"] > 0
assert h["tracer_cost"]["function_graph"]["source"] == "measured"
assert all("tracer_shift" in p for p in h["peaks"])
' "$WORK/hist.json"

# 3. --along: fewer events, the functions it said, the same cause
events() { "$DARC" info --json "$1" | py 'import json, sys; print(json.load(sys.stdin)["events"])'; }
e_dio=$(events "$V/dio.dat")
e_along=$(events "$V/along.dat")
say "events: darc-record -g $e_dio, --along $e_along"
check "--along said how many functions it traces" \
	grep -q "^darc-record: along '.*dio.db': tracing [0-9]* functions: [0-9]* on the paths found" \
	"$V/along.log"
check "--along recorded at most a third of the events ($e_along of $e_dio)" \
	test $((e_along * 3)) -le "$e_dio"
check "--along traced only the functions of its list (and interrupts' none)" py '
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
listed = set(json.loads(db.execute("SELECT manifest FROM recording").fetchone()[0])["along"]["functions"])
seen = {r[0] for r in db.execute("SELECT DISTINCT f.name FROM call_base c JOIN func f ON f.id = c.func_id WHERE f.kind = 0")}
print(len(listed), "listed,", len(seen), "traced; not listed:", sorted(seen - listed))
assert seen and seen <= listed
' "$V/along.db"
# (not who ended a wait: the virtqueue, so the interrupt, is the reading CPU's)
causes() { # DB: the causes of the first subject, one a line: function, kind, path
	"$DARC" explain --json "$1" | py '
import json, sys
s = json.load(sys.stdin)["subjects"][0]
for c in s["causes"]:
    print(s["func"], c["kind"], " > ".join(c["path"]))'
}
c_dio=$(causes "$V/dio.db" | head -1)
causes "$V/along.db" >"$WORK/along.causes"
say "first cause: '$c_dio'; along's: $(tr '\n' ';' <"$WORK/along.causes")"
# (its rank may differ: with less traced, fewer reads sleep under emulation, whose
# virtio completions can come before the reader reaches schedule())
check "the explain of --along names the first cause of the first recording" \
	grep -qxF -- "$c_dio" "$WORK/along.causes"
check "the analysis of --along compared its profile with the database's" \
	grep -q "^darc: \(warning: \)\?along '.*dio.db': __x64_sys_pread64: .* apart.*: the workload" \
	"$V/along.explain"

# 4. a plain function filter
"$DARC" analyze -q -o "$WORK/filter.db" "$V/filter.dat" >/dev/null || fail "darc analyze filter.dat"
check "-l/--ftrace-notrace traced only the functions given and the root" py '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
seen = {r[0] for r in db.execute("SELECT DISTINCT f.name FROM call_base c JOIN func f ON f.id = c.func_id WHERE f.kind = 0")}
print(sorted(seen))
assert seen == {"__x64_sys_pread64", "vfs_read", "ext4_file_read_iter"}, seen
' "$WORK/filter.db"
check "tracefs' function filters are empty again" py '
import sys
text = open(sys.argv[1]).read().split("\n")
bad = [l for l in text if l and not l.startswith("#")]
assert not bad, bad
' "$V/filters-after.txt"

# 5. the recorder's own doing: trace-cmd's reader preempting the workload
"$DARC" explain --json "$V/tcstat.dat" >"$WORK/tcstat.json" 2>"$WORK/tcstat.err" ||
	fail "darc explain tcstat.dat: $(cat "$WORK/tcstat.err")"
check "explain names trace-cmd's preemptions as the recorder's own, not as causes" py '
import json, sys
found = False
for s in json.load(open(sys.argv[1]))["subjects"]:
    for p in [s] + s.get("more", []):
        for c in p["causes"]:
            print("cause:", c["sentence"])
            assert "trace-cmd" not in str(c.get("who")), c
        for r in p["recorder"]:
            print("recorder:", r["sentence"], "/", r["recorder"])
            if r["kind"] == "preempt" and "trace-cmd" in str(r["who"]):
                found = True
assert found
' "$WORK/tcstat.json"
check "darc info: the graph's cost of trace-cmd's recording, estimated" py '
import json, sys
i = json.load(sys.stdin)
c = i["tracer_cost"]["function_graph"]
print(c)
assert c["source"] == "estimated" and c["ns"] > 0 and i["tracer_cost_ns"]["function_graph"] == c["ns"]
' < <("$DARC" info --json "$V/tcstat.dat")

[ $failed = 0 ] || fail "$failed checks failed"
say "pass"
