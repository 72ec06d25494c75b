#!/usr/bin/env python3
"""One sample's checks of tests/golden/explain.sh: darc explain's JSON and text
against explain-truth.py's truth on the database darc wrote. Prints one
ok/FAIL line with the figures; exit 0 pass, 1 fail.

Usage: explain-check.py SAMPLE DB SUBJECT EXPLAIN.json EXPLAIN.txt
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIE = 0.05  # causes this close to the largest are as large, within what a recording tells
SHARE = 0.15
# the truth's categories and the kinds of the contract that say the same
KINDS = {"blocked": {"blocked", "io"}, "io": {"io", "blocked"}, "running": {"self"},
         "preempt": {"preempt"}, "irq": {"irq", "softirq"}, "overhead": {"overhead", "self"}}


def truth(db, subject, rng=None):
    cmd = [sys.executable, os.path.join(HERE, "explain-truth.py"), db, subject]
    if rng:
        cmd += ["--range", str(rng[0]), str(rng[1])]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise ValueError(out.stderr.strip() or "explain-truth.py failed")
    return json.loads(out.stdout)


def funcs(path):
    """The functions of a cause's path, without the [blocked]-style markers."""
    return [p for p in path if not (p.startswith("[") and p.endswith("]"))]


def same(cause, t, subject):
    """Does darc's cause name the truth's cause t: its kind, and its function on
    the path, or a path that starts inside the truth's chain and follows it (or,
    for preemption and interrupts, no function at all)?"""
    if cause.get("kind") not in KINDS[t["category"]]:
        return False
    fs = funcs(cause.get("path") or [])
    if fs and fs[0] == subject:
        fs = fs[1:]
    if t["function"] in fs:
        return True
    if not fs and t["category"] in ("preempt", "irq"):
        return True  # the truth counts these as wholes: a path of the kind alone says that
    ch = t["chain"]
    if not fs or fs[0] not in ch:
        return False
    i = ch.index(fs[0])
    return all(a == b for a, b in zip(fs, ch[i:]))


def at_path(cause, tr, subject):
    """The truth's share of the slow part's latency at darc's path exactly: the
    running time of the calls at its end ('self'), or the time of its kind at
    or below it: darc's arithmetic, whatever the granularity of its causes."""
    fs = funcs(cause.get("path") or [])
    if fs and fs[0] == subject:
        fs = fs[1:]
    cats = {k for k, v in KINDS.items() if cause.get("kind") in v} - {"overhead"}
    if cause.get("kind") == "self":
        cats = {"running"}
    cats |= {"softirq"} if "irq" in cats else set()
    ns = sum(p["ns"] for p in tr["parts"] if p["category"] in cats and (
        p["stack"] == fs if cause.get("kind") == "self" else p["stack"][:len(fs)] == fs))
    return ns / tr["slow"]["ns"] if tr["slow"]["ns"] else 0.0


def first_sentence(text):
    """The first cause's sentence: the first line given as an item ('- ...') after
    the first subject's header, else the line after that header."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return next((l for l in lines[1:] if l.startswith("- ")), lines[1] if len(lines) > 1 else "")


def check(db, subject, ex, text):
    """The figures and the failures, as two lists of strings."""
    figs, bad = [], []
    if not isinstance(ex, dict):
        return figs, ["the JSON is not an object with subjects"]
    subs = ex.get("subjects") or []
    if not subs:
        return figs, ["no subject"]
    s = subs[0]
    figs.append("first subject %s" % s.get("func"))
    # (e) a sleep's waker is a task that woke it or the interrupt that did, never the
    # task an interrupt happened to hit (the idle task wakes nobody in task context)
    for c in s.get("causes") or []:
        if c.get("kind") in ("blocked", "io") and str(c.get("who")).endswith(" [0]"):
            bad.append("(e) woken by %s" % c.get("who"))
    if s.get("func") != subject:
        bad.append("(a) first subject %s, not %s" % (s.get("func"), subject))
    t = truth(db, subject)
    tc = t["causes"]
    if not tc:
        return figs, bad + ["the truth finds no slow call of %s" % subject]
    figs.append("truth: %d slow calls (%s), %s %s %.0f%%" % (
        t["slow"]["calls"], t["slow"]["rule"], tc[0]["category"], tc[0]["function"],
        100 * tc[0]["share"]))
    causes = s.get("causes") or []
    if not causes:
        return figs, bad + ["(b) no cause"]
    c = causes[0]
    figs.append("darc: %s %s %.0f%%" % (c.get("kind"), ">".join(c.get("path") or []),
                                        100 * (c.get("share") or 0)))
    top = [x for x in tc if x["share"] >= tc[0]["share"] - TIE]
    match = next((x for x in top if same(c, x, subject)), None)
    if s.get("func") == subject and not match:
        bad.append("(b) first cause is not the truth's largest (%s)" %
                   ", ".join("%s %s" % (x["category"], x["function"]) for x in top))
    ns = [x.get("ns") or 0 for x in causes]
    if any(a < b for a, b in zip(ns, ns[1:])):
        bad.append("(c) causes not in decreasing ns: %s" % ns)
    slow = s.get("slow") or {}
    if "lo" in slow and "hi" in slow and match:
        tr = truth(db, subject, (slow["lo"], slow["hi"]))
        m = next((x for x in tr["causes"] if same(c, x, subject)), None)
        share = m["share"] if m else 0.0
        figs.append("truth over buckets %s-%s: %.0f%% (%.0f%% at darc's path itself)" % (
            slow["lo"], slow["hi"], 100 * share, 100 * at_path(c, tr, subject)))
        # darc may name a finer cause inside the truth's largest category (stat: the
        # path walk's own time, inside vfs_statx's running time): then its share must be
        # the truth's at darc's own path
        at = at_path(c, tr, subject)
        if abs((c.get("share") or 0) - share) > SHARE and abs((c.get("share") or 0) - at) > SHARE:
            bad.append("(c) share %.2f, the truth's %.2f (%.2f at darc's path)" % (
                c.get("share") or 0, share, at))
    elif match:
        bad.append("(c) no slow bucket range in the JSON")
    sentence = first_sentence(text)
    # that function, or one below it on its chain or on the path (b) accepted
    t0 = match or tc[0]
    below = t0["chain"] + (funcs(c.get("path") or []) if match else [])
    names = [t0["function"]] + [f for f in dict.fromkeys(below)
                                if f not in (t0["function"], subject, "schedule")]
    if t0["category"] in ("preempt", "irq") and t0["who"]:
        names.append(t0["who"].split(" [")[0])  # for these wholes, who took the time
    if not any(n in sentence for n in names):
        bad.append("(d) the first sentence names none of %s: %r" % (names, sentence[:200]))
    return figs, bad


def main(argv):
    if len(argv) != 6:
        print("usage: explain-check.py SAMPLE DB SUBJECT EXPLAIN.json EXPLAIN.txt",
              file=sys.stderr)
        return 1
    sample, db, subject, js, txt = argv[1:]
    try:
        with open(js) as f:
            ex = json.load(f)
        with open(txt) as f:
            text = f.read()
        figs, bad = check(db, subject, ex, text)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print("FAIL %s: %s" % (sample, e))
        return 1
    print("%s %s: %s" % ("FAIL" if bad else "ok", sample, "; ".join(figs)))
    for b in bad:
        print("   " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
