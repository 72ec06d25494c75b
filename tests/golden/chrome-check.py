#!/usr/bin/env python3
"""Check a darc export --chrome file against the database it came from.

usage: chrome-check.py [--subset] JSON DB

- the file is valid JSON (json.load), an object with traceEvents;
- per thread (pid, tid), B and E events nest: each E closes the B on top of
  its thread's stack (same name and call id, same args), timestamps never go
  back, nothing is left open;
- every complete call of the database is there once, on its task's thread
  (irq calls on their CPU's), and E.ts - B.ts is its incl_ns exactly (the
  timestamps read as decimals, not floats), its args its columns;
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

    stacks = collections.defaultdict(list)
    last = collections.defaultdict(lambda: None)
    seen = {}  # call id -> (pid, tid, t_entry, t_exit, args)
    xs = collections.Counter()
    names = {}
    for e in j["traceEvents"]:
        ph, key = e["ph"], (e["pid"], e["tid"])
        if ph == "M":
            names[(e["name"],) + key] = e["args"]["name"]
            continue
        t = ns(D(e["ts"]))
        if last[key] is not None and t < last[key]:
            bad("%s: ts %s before %s" % (key, t, last[key]))
        if ph == "B":
            stacks[key].append(e)
            last[key] = t
        elif ph == "E":
            if not stacks[key]:
                bad("%s: E of %s with nothing open" % (key, e["name"]))
                continue
            b = stacks[key].pop()
            if b["name"] != e["name"] or b["args"] != e["args"]:
                bad("%s: E %s %s closes B %s %s" % (key, e["name"], e["args"].get("call"),
                                                   b["name"], b["args"].get("call")))
            cid = b["args"]["call"]
            if cid in seen:
                bad("call %d twice" % cid)
            seen[cid] = (key, ns(D(b["ts"])) + t0, t + t0, b["args"], b["name"])
            last[key] = t
        elif ph == "X":
            xs[(e["cat"], key[1], t + t0, ns(D(e["dur"])))] += 1
            last[key] = t
        else:
            bad("unexpected ph %s" % ph)
    for key, s in stacks.items():
        if s:
            bad("%s: %d calls left open" % (key, len(s)))

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
        for p, v in zip(PARTS, row[8:]):
            if args[p] != v:
                bad("call %d: %s %s, the database %s" % (cid, p, args[p], v))
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
        calls = len(j["traceEvents"]) and sum(1 for e in j["traceEvents"] if e["ph"] == "B")
    if xs != want:
        bad("intervals: %d in the file, %d in the database; e.g. %s"
            % (sum(xs.values()), sum(want.values()), list((xs - want) + (want - xs))[:3]))
    if problems:
        fail()
    print("%d calls nest and last their incl_ns, %d intervals, %d threads"
          % (calls, sum(xs.values()), len(last)))


main()
