#!/usr/bin/env python3
"""Check a darc export --chrome file against the database it came from.

usage: chrome-check.py [--subset] JSON DB

- the file is valid JSON (json.load), an object with traceEvents;
- a call is an X event (cat "call"); per thread (pid, tid) they come in the
  order of their ts and nest: each ends before the one it lies in ends;
- every complete call of the database is there once, on its task's thread
  (irq calls on their CPU's), its dur its incl_ns exactly (the timestamps
  read as decimals, not floats), its args its columns (a part of its
  latency that is 0 left out);
- the X events of the off-CPU and interrupt tracks are the database's
  intervals, durations exact.
With --subset (an export of some calls: --func, --comm, --time), every call
and interval in the file must be the database's, but not every one be there.
Prints one line of counts; exit 1 with the first problems on failure.
"""
import collections
import decimal
import json
import sqlite3
import sys

D = decimal.Decimal
PARTS = ["incl_ns", "excl_ns", "children_ns", "irq_ns", "softirq_ns", "preempt_ns", "blocked_ns"]
SYNTH = 4194304
problems = []


def bad(msg):
    problems.append(msg)
    if len(problems) > 20:
        fail()


def fail():
    for p in problems[:20]:
        print("FAIL:", p)
    sys.exit(1)


def ns(us):  # a ts or dur in us (Decimal) -> integer ns
    v = us * 1000
    if v != v.to_integral_value():
        bad("timestamp %s is not a whole ns" % us)
    return int(v)


def main():
    subset = sys.argv[1] == "--subset"
    path, dbpath = sys.argv[1 + subset], sys.argv[2 + subset]
    with open(path, encoding="utf-8") as f:
        j = json.load(f, parse_float=D)
    assert isinstance(j, dict) and isinstance(j["traceEvents"], list), "no traceEvents"
    db = sqlite3.connect("file:%s?mode=ro" % dbpath, uri=True)
    t0 = db.execute("SELECT t_first FROM recording").fetchone()[0]
    if j["otherData"]["t0_ns"] != t0:
        bad("t0_ns %s, recording.t_first %s" % (j["otherData"]["t0_ns"], t0))

    stacks = collections.defaultdict(list)  # per thread: the ends of the calls open
    last = collections.defaultdict(lambda: None)
    seen = {}  # call id -> (pid, tid, t_entry, t_exit, args)
    xs = collections.Counter()
    names = {}
    threads = set()
    for e in j["traceEvents"]:
        ph, key = e["ph"], (e["pid"], e["tid"])
        if ph == "M":
            names[(e["name"],) + key] = e["args"]["name"]
            continue
        if ph != "X":
            bad("unexpected ph %s" % ph)
            continue
        t, d = ns(D(e["ts"])), ns(D(e["dur"]))
        threads.add(key)
        if e["cat"] != "call":
            xs[(e["cat"], key[1], t + t0, d)] += 1
            continue
        if last[key] is not None and t < last[key]:
            bad("%s: call %s at %s before %s" % (key, e["args"].get("call"), t, last[key]))
        last[key] = t
        s = stacks[key]
        while s and s[-1] <= t and not (d == 0 and s[-1] == t):
            s.pop()
        if s and t + d > s[-1]:
            bad("%s: call %s ends at %s, after the call it lies in (%s)"
                % (key, e["args"].get("call"), t + d, s[-1]))
        s.append(t + d)
        cid = e["args"]["call"]
        if cid in seen:
            bad("call %d twice" % cid)
        seen[cid] = (key, t + t0, t + d + t0, e["args"], e["name"])

    q = ("SELECT c.id, c.task_id, coalesce(t.pid, c.task_id), c.cpu, c.t_entry, c.t_exit, "
         "c.flags, f.name, " + ", ".join("c." + p for p in PARTS) +
         " FROM call c JOIN func f ON f.id = c.func_id LEFT JOIN task t ON t.tid = c.task_id"
         " WHERE c.incl_ns IS NOT NULL AND c.flags & 3 = 0")
    calls = 0
    for row in db.execute(q):
        cid, tid, pid, cpu, te, tx, flags, name = row[:8]
        calls += 1
        if cid not in seen:
            if not subset:
                bad("call %d (%s) missing" % (cid, name))
            continue
        key, b, e, args, ename = seen.pop(cid)
        want = (SYNTH, SYNTH + 2 * cpu + 1) if flags & 56 else (pid, tid)
        if key != want:
            bad("call %d on thread %s, not %s" % (cid, key, want))
        if (b, e, ename) != (te, tx, name):
            bad("call %d: %s %d..%d in the file, %s %d..%d in the database"
                % (cid, ename, b, e, name, te, tx))
        if e - b != row[8]:
            bad("call %d: duration %d, incl_ns %d" % (cid, e - b, row[8]))
        for p, v in zip(PARTS[1:], row[9:]):
            if args.get(p, 0) != v or (p in args and v == 0):
                bad("call %d: %s %s, the database %s" % (cid, p, args.get(p), v))
        if args["cpu"] != cpu or ("flags" in args) != bool(flags):
            bad("call %d: cpu or flags differ" % cid)
    if seen:
        bad("%d calls not in the database, e.g. %s" % (len(seen), list(seen)[:3]))

    want = collections.Counter()
    for tid, a, b in db.execute("SELECT task_id, t_out, t_in FROM sched_interval"
                                " WHERE t_in IS NOT NULL"):
        want[("off-cpu", 2 * SYNTH + tid, a, b - a)] += 1
    for cpu, a, b in db.execute("SELECT cpu, t_start, t_end FROM irq_interval"
                                " WHERE t_end IS NOT NULL"):
        want[("irq", SYNTH + 2 * cpu, a, b - a)] += 1
    if subset:
        want &= xs
        calls = sum(1 for e in j["traceEvents"] if e["ph"] == "X" and e["cat"] == "call")
    if xs != want:
        bad("intervals: %d in the file, %d in the database; e.g. %s"
            % (sum(xs.values()), sum(want.values()), list((xs - want) + (want - xs))[:3]))
    if problems:
        fail()
    print("%d calls nest and last their incl_ns, %d intervals, %d threads"
          % (calls, sum(xs.values()), len(threads)))


main()
