#!/usr/bin/env python3
"""Where the slow calls of a function spent their time, computed from a darc
database's raw tables (call, func, sched_interval, irq_interval, wakeup, task)
without darc's search: the truth tests/golden/explain.sh holds darc explain to.

Usage: explain-truth.py DB SUBJECT [--range LO HI [RES]]

SUBJECT's calls are its complete outermost calls (not those inside another
call of it). Its slow calls are those above a threshold chosen by a plain
rule: where the latencies form two humps (Otsu's split of their log2 leaves
10% of the calls or more on each side, the sides' means 2 octaves apart or
more), the upper hump; else the lower of
  - the first obvious gap above the body: scanning the sorted latencies from
    the 40th percentile up, the first step to a latency twice the one before
    whose calls above are 3 or more or hold 10% of the latency, and
  - max(90th percentile, twice the median),
or, with --range, those whose histogram bucket floor(RES * log2(ns)) is in
LO..HI (RES 1 unless given): the slow part darc chose, to check its shares.

Each slow call's latency is split by time: the task's off-CPU intervals
(sched_interval: preempted or blocked; blocked is 'io' when the wake-up came
from an interrupt other than a timer's) and its interrupt intervals
(irq_interval: irq or softirq), clipped to the call, are placed at the
innermost call whose window holds them; the rest of each call is its
running time. Every part is charged to the outermost child of SUBJECT it
happened in (SUBJECT itself for its own code), per category: 'blocked', 'io'
and 'running' (the tracer's own functions' running time: 'overhead'), while
preemption, hard and soft interrupts ('irq') and overhead are each counted as
a whole. A child that is a wrapper (one child of its own holds 90% or more of
the time in its children, as ksys_write in write) is looked through: its
children count as the subject's (split_level()). For each cause the 'chain' is the
descent from that child through the calls that hold more than half of the
cause's time, and 'who' the waker (blocked, io), the tasks that ran meanwhile
(preempt) or the handler (irq) that took most of it.

Prints one JSON object: the subject, its slow part, the causes largest
first, each {category, function, ns, share (of the slow calls' latency),
chain, who}, and the parts they are made of, {category, stack, ns}, at each
call path below SUBJECT (hard and soft interrupts apart, the tracer's code
as running). Exit 0, or 1 with one line naming the problem.
"""
import json
import math
import sqlite3
import sys
from bisect import bisect_right
from collections import defaultdict

TIMER_HANDLERS = ("TIMER", "HRTIMER", "RCU", "SCHED", "local_timer", "hrtimer")


def fail(msg):
    print("explain-truth.py: " + msg, file=sys.stderr)
    sys.exit(1)


def load_calls(db):
    """Every call as a dict, by id, and the children of each, in entry order."""
    calls, kids = {}, defaultdict(list)
    q = """SELECT c.id, f.name, c.parent_id, c.task_id, c.t_entry, c.incl_ns, c.last_id, c.depth
	       FROM call c JOIN func f ON f.id = c.func_id ORDER BY c.id"""
    for cid, name, parent, task, t0, incl, last, depth in db.execute(q):
        calls[cid] = {"id": cid, "name": name, "parent": parent, "task": task, "t0": t0,
                      "incl": incl, "last": last, "depth": depth}
        if parent is not None:
            kids[parent].append(cid)
    return calls, kids


def subject_calls(calls, name):
    """SUBJECT's complete calls that are not inside another call of it."""
    out = []
    for c in calls.values():
        if c["name"] != name or c["incl"] is None or c["t0"] is None:
            continue
        p = c["parent"]
        while p is not None and calls[p]["name"] != name:
            p = calls[p]["parent"]
        if p is None:
            out.append(c)
    return out


def two_humps(v):
    """Otsu's split of the sorted latencies v on a log2 scale: the latency below
    which the lower class ends, when each class holds 10% of the calls or more
    and their means are 2 octaves apart or more (two humps); else None."""
    n = len(v)
    lg = [math.log2(max(x, 1)) for x in v]
    total, left, best = sum(lg), 0.0, (0.0, None)
    for i in range(1, n):
        left += lg[i - 1]
        w0, w1 = i / n, (n - i) / n
        m0, m1 = left / i, (total - left) / (n - i)
        score = w0 * w1 * (m1 - m0) ** 2
        if score > best[0]:
            best = (score, i, m1 - m0)
    if best[1] is None:
        return None
    i, apart = best[1], best[2]
    return v[i - 1] if min(i, n - i) >= 0.1 * n and apart >= 2 else None


def threshold(lat):
    """The latency above which a call is slow (see the module's comment), and how."""
    v = sorted(lat)
    n, total = len(v), sum(v)
    split = two_humps(v)
    if split is not None:
        return split, "two humps (Otsu on log2)"
    median = v[(n - 1) // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    p90 = v[min(n - 1, math.ceil(0.9 * n) - 1)]
    high, how = max(p90, 2 * median), "max(p90, 2*median)"
    # scan upwards: the first gap whose upper side counts
    tail = total - sum(v[: int(0.4 * n) + 1])
    for i in range(int(0.4 * n), n - 1):
        if v[i + 1] >= 2 * v[i] and (n - 1 - i >= 3 or tail >= 0.1 * total):
            if v[i] < high:
                return v[i], "gap above the body"
            break
        tail -= v[i + 1]
    return high, how


def bucket(ns, res):
    return math.floor(res * math.log2(max(ns, 1)))


def pieces_of(db, task, t0, t1):
    """The task's off-CPU and interrupt time in [t0, t1): (start, end, category, who)."""
    out = []
    q = """SELECT s.kind, s.t_out, coalesce(s.t_in, ?), s.cpu_out, w.ctx, w.handler, wt.comm, w.waker_tid
	       FROM sched_interval s LEFT JOIN wakeup w ON w.id = s.wakeup_id
	       LEFT JOIN task wt ON wt.tid = w.waker_tid
	       WHERE s.task_id = ? AND s.t_out < ? AND coalesce(s.t_in, ?) > ?"""
    for kind, t_out, b, cpu, ctx, handler, comm, wtid in db.execute(q, (t1, task, t1, t1, t0)):
        a, b = max(t_out, t0), min(b, t1)
        if kind == 0:
            out.append((a, b, "preempt", ran_meanwhile(db, cpu, t_out, task)))
        elif ctx in (1, 2) and handler and not handler.startswith(TIMER_HANDLERS):
            out.append((a, b, "io", handler))
        elif ctx in (1, 2):
            out.append((a, b, "blocked", "timer" if handler else "interrupt"))
        else:
            out.append((a, b, "blocked", "%s [%s]" % (comm, wtid) if wtid is not None else None))
    q = """SELECT kind, name, t_start, t_end FROM irq_interval
	       WHERE task_id = ? AND t_start < ? AND t_end > ?"""
    for kind, name, a, b in db.execute(q, (task, t1, t0)):
        out.append((max(a, t0), min(b, t1), "softirq" if kind == 1 else "irq", name))
    return out


def ran_meanwhile(db, cpu, t_out, task):
    """The task the scheduler switched in on CPU when task was switched out at t_out."""
    q = """SELECT s.task_id, t.comm FROM sched_interval s LEFT JOIN task t ON t.tid = s.task_id
	       WHERE s.cpu_in = ? AND s.t_in BETWEEN ? AND ? AND s.task_id != ?
	       ORDER BY s.t_in LIMIT 1"""
    row = db.execute(q, (cpu, t_out, t_out + 1000, task)).fetchone()
    return "%s [%s]" % (row[1], row[0]) if row else None


def stack_at(calls, kids, root, t):
    """The calls from root down to the innermost one whose window holds time t."""
    path = [root]
    while True:
        ks = [k for k in kids.get(path[-1]["id"], ()) if calls[k]["t0"] is not None]
        starts = [calls[k]["t0"] for k in ks]
        i = bisect_right(starts, t) - 1
        if i < 0:
            return path
        k = calls[ks[i]]
        if k["incl"] is None or t >= k["t0"] + k["incl"]:
            return path
        path.append(k)


def split_call(db, calls, kids, s, acc):
    """Add call s's latency, split as the module's comment says, to acc[(category, stack)]."""
    t1 = s["t0"] + s["incl"]
    here = defaultdict(int)  # call id -> off-CPU and interrupt ns placed at it
    for a, b, cat, who in pieces_of(db, s["task"], s["t0"], t1):
        if b <= a:
            continue
        st = stack_at(calls, kids, s, (a + b) // 2)
        acc[(cat, tuple(c["name"] for c in st[1:]))].append((b - a, who))
        here[st[-1]["id"]] += b - a
    todo = [(s, ())]
    while todo:
        c, names = todo.pop()
        run = c["incl"] - here[c["id"]]
        for k in kids.get(c["id"], ()):
            kc = calls[k]
            if kc["incl"] is None:
                continue
            run -= kc["incl"]
            todo.append((kc, names + (kc["name"],)))
        acc[("running", names)].append((run, None))


def split_level(acc):
    """The call path below the subject where its slow time splits: down through
    each call one of whose children holds 90% or more of the time spent in its
    children (a wrapper: ksys_write in write, vfs_fstatat in newfstatat)."""
    level = ()
    while True:
        kids = defaultdict(int)
        for (_, st), v in acc.items():
            if len(st) > len(level) and st[: len(level)] == level:
                kids[st[len(level)]] += sum(x for x, _ in v)
        if not kids:
            return level
        name, ns = max(kids.items(), key=lambda x: x[1])
        if ns < 0.9 * sum(kids.values()):
            return level
        level += (name,)


def causes(acc, subject, slow_ns, overhead):
    """acc's parts summed per cause: blocked, io and running per child at the
    split level (or the function itself, above it); preempt, irq (hard and
    soft) and the tracer's overhead each as a whole, under the function that
    holds most of it."""
    level = split_level(acc)

    def unit(st):  # the call below the path shared with level (or its end)
        k = next((i for i, (a, b) in enumerate(zip(st, level)) if a != b), min(len(st), len(level)))
        return st[k] if k < len(st) else st[-1] if st else subject

    by = defaultdict(lambda: defaultdict(int))  # cause -> stack -> ns
    who = defaultdict(lambda: defaultdict(int))
    for (cat, st), v in acc.items():
        if cat == "softirq":
            cat = "irq"
        if cat == "running" and st and st[-1] in overhead:
            cat = "overhead"
        key = (cat, unit(st) if cat in ("blocked", "io", "running") else None)
        for ns, w in v:
            by[key][st] += ns
            if w:
                who[key][w] += ns
    out = []
    for key, stacks in by.items():
        cat, top = key
        ns = sum(stacks.values())
        if top is None:
            tops = defaultdict(int)
            for st, v in stacks.items():
                tops[unit(st)] += v
            top = max(tops.items(), key=lambda x: x[1])[0]
        out.append({"category": cat, "function": top, "ns": ns,
                    "share": round(ns / slow_ns, 4) if slow_ns else 0,
                    "chain": chain(stacks, ns),
                    "who": max(who[key].items(), key=lambda x: x[1])[0] if who[key] else None})
    out.sort(key=lambda c: -c["ns"])
    return out


def parts(acc):
    """Every category's ns at each call path below the subject (its own code: [])."""
    out = [{"category": cat, "stack": list(st), "ns": sum(ns for ns, _ in v)}
           for (cat, st), v in acc.items()]
    return sorted(out, key=lambda p: -p["ns"])


def chain(stacks, ns):
    """Descend while one function holds more than half of the cause's time."""
    path = []
    while True:
        nxt = defaultdict(int)
        for st, v in stacks.items():
            if len(st) > len(path) and list(st[: len(path)]) == path:
                nxt[st[len(path)]] += v
        if not nxt:
            return path
        name, v = max(nxt.items(), key=lambda x: x[1])
        if v * 2 <= ns:
            return path
        path.append(name)


def main(argv):
    if len(argv) not in (3, 6, 7) or (len(argv) > 3 and argv[3] != "--range"):
        fail("usage: explain-truth.py DB SUBJECT [--range LO HI [RES]]")
    path, subject = argv[1], argv[2]
    try:
        rng = [int(x) for x in argv[4:]] if len(argv) > 3 else None
    except ValueError:
        fail("--range: LO, HI and RES must be integers")
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        calls, kids = load_calls(db)
    except sqlite3.Error as e:
        fail("%s: not a darc database (%s)" % (path, e))
    subj = subject_calls(calls, subject)
    if not subj:
        fail("%s: no complete call of %s" % (path, subject))
    total = sum(c["incl"] for c in subj)
    if rng:
        res = rng[2] if len(rng) == 3 else 1
        slow = [c for c in subj if rng[0] <= bucket(c["incl"], res) <= rng[1]]
        how, limit = "range %d-%d at resolution %d" % (rng[0], rng[1], res), None
    else:
        limit, how = threshold([c["incl"] for c in subj])
        slow = [c for c in subj if c["incl"] > limit]
    slow_ns = sum(c["incl"] for c in slow)
    overhead = {r[0] for r in db.execute("SELECT name FROM func WHERE overhead = 1")}
    acc = defaultdict(list)
    for s in slow:
        split_call(db, calls, kids, s, acc)
    print(json.dumps({"subject": subject, "calls": len(subj), "total_ns": total,
                      "slow": {"rule": how, "threshold_ns": limit, "calls": len(slow),
                               "ns": slow_ns, "share": round(slow_ns / total, 4) if total else 0},
                      "causes": causes(acc, subject, slow_ns, overhead),
                      "parts": parts(acc)}, indent=1))


if __name__ == "__main__":
    main(sys.argv)
