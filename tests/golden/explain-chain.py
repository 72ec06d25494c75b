#!/usr/bin/env python3
"""One sample's checks of tests/golden/explain-chain.sh. The truth of a wake-up
chain is worked out here from the database's raw tables (sched_interval,
wakeup), not by darc's walk: the sleeps of the first cause's calls, the
waker that holds the most of their time, then that waker's own time over
those sleeps, split by what ended its own off-CPU intervals, and so on.
Prints ok/FAIL lines; exit 0 pass, 1 fail.

Usage: explain-chain.py DARC SAMPLE DB EXPLAIN.json EXPLAIN.txt
"""
import json
import sqlite3
import subprocess
import sys


def comm(db, tid):
    row = db.execute("SELECT comm FROM task WHERE tid = ?", (tid,)).fetchone()
    return "%s [%d]" % (row[0] if row else "tid", tid)


def sleeps_of(db, fnode, lo, hi):
    """The sleeps in the calls of root fnode @fnode whose latency lies in
    buckets lo..hi: (t_out, wake, ender) with ender ('task', tid) or
    ('irq', handler)."""
    rows = db.execute(
        "SELECT s.t_out, k.t, k.ctx, k.waker_tid, k.handler FROM call_base r"
        " JOIN call_base c ON c.id BETWEEN r.id AND r.last_id AND c.task_id = r.task_id"
        " JOIN sched_interval s ON s.call_id = c.id AND s.kind = 1"
        " JOIN wakeup k ON k.id = s.wakeup_id"
        " WHERE r.fnode_id = ? AND r.incl_ns >= ? AND r.incl_ns < ?",
        (fnode, 1 << lo, 1 << (hi + 1))).fetchall()
    return [(a, b, ("task", w) if ctx == 0 and w else ("irq", h)) for a, b, ctx, w, h in rows]


def split(db, tid, windows):
    """Task @tid's time over @windows [(lo, hi)], by what it was: ('task', t)
    or ('irq', h) for its sleeps' enders (and the parts of the windows each
    holds), 'running' for the rest (its delays and preemptions apart)."""
    by, parts = {}, {}
    total = sum(h - l for l, h in windows)
    off = 0
    for lo, hi in windows:
        for t_out, t_in, kind, wake, ctx, waker, handler in db.execute(
                "SELECT s.t_out, coalesce(s.t_in, 1e30), s.kind, coalesce(k.t, s.t_in), k.ctx,"
                " k.waker_tid, k.handler FROM sched_interval s LEFT JOIN wakeup k"
                " ON k.id = s.wakeup_id WHERE s.task_id = ? AND s.t_out < ?"
                " AND coalesce(s.t_in, 1e30) > ?", (tid, hi, lo)):
            a, b = max(t_out, lo), min(t_in, hi)
            off += b - a
            if kind == 0:
                by[("preempted", None)] = by.get(("preempted", None), 0) + b - a
                continue
            e = min(max(wake, a), b)
            by[("delay", None)] = by.get(("delay", None), 0) + b - e
            key = ("task", waker) if ctx == 0 and waker else ("irq", handler)
            by[key] = by.get(key, 0) + e - a
            parts.setdefault(key, []).append((a, e))
    by[("running", None)] = total - off
    return by, parts


def truth_chain(db, subject, part):
    """[(kind, who)] down the largest part at each level."""
    sl = sleeps_of(db, subject["fnode"], part["lo"], part["hi"])
    by, parts = {}, {}
    for t_out, wake, key in sl:
        by[key] = by.get(key, 0) + wake - t_out
        parts.setdefault(key, []).append((t_out, wake))
    chain = []
    for _ in range(8):
        if not by:
            break
        top = max((k for k in by if k[0] != "delay"), key=by.get)
        chain.append(top)
        if top[0] != "task":
            break
        by, parts = split(db, top[1], parts[top])
    return chain


def check_chain(db, s, c, sentence, bad):
    want = truth_chain(db, s, s["slow"])
    said = []
    for kind, who in want:
        if kind == "task":
            said.append(comm(db, who))
        elif kind == "irq" and who and "timer" in who:
            said.append("a timer")
        elif kind == "running":
            said.append("which was running")
        else:
            said.append(kind)
    at = 0
    for i, w in enumerate(said):
        k = sentence.find(w, at)
        if k < 0:
            bad.append("(1) the sentence does not say %r (level %d of the truth %s): %s"
                       % (w, i + 1, said, sentence))
            return said
        at = k + len(w)
    return said


def main(argv):
    darc, sample, dbpath, jpath, tpath = argv[1:6]
    db = sqlite3.connect(dbpath)
    ex = json.load(open(jpath))
    text = open(tpath).read()
    subs = ex["subjects"]
    bad, figs = [], []
    if not subs:
        print("FAIL %s: no subject" % sample)
        return 1
    for s in subs:  # (2) never a guessed waker
        for c in s.get("causes", []):
            if "timer (hardirq)" in (c.get("who") or "") + c.get("sentence", ""):
                bad.append("(2) a guessed timer: %s" % c["sentence"])
    if sample in ("vm-chain-v7", "vm73-chain-v7"):
        s = subs[0]
        c = next((x for x in s["causes"] if x["kind"] == "blocked"), None)
        if any(x["func"].startswith("finish_task_switch") for x in subs):
            bad.append("(1) a fragment of a task switch is a subject")
        if sample == "vm73-chain-v7" and s["slow"]["how"] != "body":
            bad.append("(1) vm73-chain's one hump: %s, not the body" % s["slow"]["how"])
        if not c:
            bad.append("(1) no wait among the causes")
        else:
            figs.append("chain %s" % check_chain(db, s, c, c["sentence"], bad))
    if sample == "host-explainapp-v7":
        c = next(x for x in subs[0]["causes"] if x["kind"] == "blocked")
        if "does not name" not in c["sentence"] or "record irq" not in c["sentence"]:
            bad.append("(2) the unnamed interrupt not said: %s" % c["sentence"])
    for s in subs:  # (3) explain's slow peaks are darc peaks' peaks
        if s["slow"]["how"] != "peak":
            continue
        out = subprocess.run([darc, "peaks", dbpath, "--fnode", str(s["fnode"]), "--json"],
                             capture_output=True, text=True)
        pk = [(p["lo"], p["hi"]) for p in json.loads(out.stdout)]
        if (s["slow"]["lo"], s["slow"]["hi"]) not in pk:
            bad.append("(3) %s's slow peak %d-%d is no peak of darc peaks %s"
                       % (s["func"], s["slow"]["lo"], s["slow"]["hi"], pk))
        else:
            figs.append("%s peak %d-%d" % (s["title"], s["slow"]["lo"], s["slow"]["hi"]))
    if sample == "vm-fsyncread-v7":  # (4) a function's name, not a section marker's
        names = {r[0] for r in db.execute("SELECT name FROM func")}
        if "__sched_text_start" in names or "io_schedule_timeout" not in names:
            bad.append("(4) __sched_text_start named, io_schedule_timeout not")
    if sample == "vm-cpuhog-v7":  # (5) where in the path the preemption hit
        c = subs[0]["causes"][0]
        if c["kind"] != "preempt" or " > " not in c["sentence"].split("preempted in")[-1]:
            bad.append("(5) no path for the preemption: %s" % c["sentence"])
    if "\n" not in text:
        bad.append("no text output")
    for b in bad:
        print("FAIL %s: %s" % (sample, b))
    if not bad:
        print("ok %s: %s" % (sample, "; ".join(figs) or "checked"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
