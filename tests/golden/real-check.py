#!/usr/bin/env python3
"""One recording's checks of tests/golden/real.sh: darc explain's JSON and text
against real-truth.py's truth (computed from `trace-cmd report`, never from
darc). Prints one ok/FAIL line with the figures, and one line per failed check
starting with its letter; exit 0 pass, 1 fail.

Usage: real-check.py SAMPLE ENTRY WHERE WAKER TRUTH.json EXPLAIN.json EXPLAIN.txt [KEPT.json]

TRUTH.json is real-truth.py's output with --range of darc's slow buckets;
KEPT.json, the truth as committed (tests/golden/expected/real/), must say the
same as TRUTH.json (the first cause, its share within 0.005, the chain).
The checks (the truth's first cause: its largest, or one within 0.05 of it):
  (a) darc's first subject is ENTRY;
  (b) its first cause is of the truth's kind (a sleep as 'blocked' or 'io'),
      on the truth's path: darc's path is the start of the truth's, and goes
      past the call where the truth's first cause and any other sleep site of
      10% or more part; 'calls a wait running' when darc says 'self' at a
      path where the truth has more sleep at or below it than running there;
  (c) its share within 0.15 of the truth's for darc's path over darc's own
      slow buckets;
  (d) for a sleep, its waker: the truth's (the task by name and tid, the
      interrupt by number or handler, a timer softirq as 'timer'); where the
      truth's waker is an interrupt whose irq event is not in the recording
      (or no wake-up event is), darc must name no interrupt and no task;
  (e) the chain: every recorded task or interrupt behind the waker in the
      truth's chain is named in darc's cause, and no interrupt the recording
      does not show behind it;
  (f) the text holds the first cause's sentence of the JSON;
  (k) (of the truth, not of darc) what the workload knows: the truth has a
      sleep of 5% or more in WHERE (its lock, its file's wait), whose main
      waker matches the regular expression WAKER.
"""
import json
import re
import sys

TIE = 0.05
SHARE = 0.15
KINDS = {"blocked": {"blocked", "io"}, "running": {"self"}, "preempt": {"preempt"},
         "irq": {"irq", "softirq"}, "overhead": {"overhead"}}
SPLIT = 0.10


def funcs(path, subject):
    fs = [p for p in path or [] if not (p.startswith("[") and p.endswith("]"))]
    return fs[1:] if fs and fs[0] == subject else fs


def on_path(fs, t):
    return fs == t["stack"][:len(fs)]


def parting(t, causes):
    """How deep a path must go to tell the first cause t from the other sleep
    sites of SPLIT or more: past their common start."""
    deep = 0
    for o in causes:
        if o is t or o["category"] != "blocked" or o["share"] < SPLIT:
            continue
        k = 0
        while k < min(len(t["stack"]), len(o["stack"])) and t["stack"][k] == o["stack"][k]:
            k += 1
        deep = max(deep, k + 1)
    return deep


def check_cause(c, tr, subject, bad):
    """(b): the truth's cause darc's first cause names, or None."""
    causes = tr["causes"]
    top = [x for x in causes if x["share"] >= causes[0]["share"] - TIE]
    fs = funcs(c.get("path"), subject)
    for t in top:
        if c.get("kind") not in KINDS.get(t["category"], ()):
            continue
        if t["category"] in ("preempt", "irq"):
            return t
        if on_path(fs, t) and len(fs) >= min(parting(t, causes), len(t["stack"])):
            return t
    waits = sum(x["share"] for x in causes if x["category"] == "blocked" and on_path(fs, x))
    runs = sum(x["share"] for x in causes if x["category"] == "running" and x["stack"] == fs)
    if c.get("kind") == "self" and waits > runs:
        bad.append("(b) calls a wait running: darc 'self' at %s, where the truth has %.0f%% "
                   "blocked (at or below it) and %.0f%% running" % (
                       ">".join(fs), 100 * waits, 100 * runs))
    else:
        bad.append("(b) first cause %s at %s; the truth's: %s" % (
            c.get("kind"), ">".join(fs), "; ".join(
                "%s at %s %.0f%%" % (x["category"], ">".join(x["stack"]), 100 * x["share"])
                for x in top)))
    return None


def share_at(c, rng, subject):
    """The truth's share, over darc's slow buckets, of the time of darc's kind at
    darc's path (its own code for 'self', at or below it for a sleep)."""
    fs = funcs(c.get("path"), subject)
    kind = c.get("kind")
    cat = next((k for k, v in KINDS.items() if kind in v), None)
    ns = sum(p["ns"] for p in rng["parts"] if p["category"] == cat and (
        cat in ("preempt", "irq") or (p["stack"] == fs if kind == "self"
                                      else p["stack"][:len(fs)] == fs)))
    return ns / rng["ns"] if rng["ns"] else 0.0


IRQ_NAME = re.compile(r"irq (\d+)|\(([\w.-]+)\)")


def names(link):
    """The words that name a chain link in darc's answer (lower case)."""
    if link["kind"] == "task":
        return ["%s [%d]" % (link["who"].lower(), t) for t in link["tids"]]
    if link["kind"] == "irq":
        m = re.match(r"irq (\d+) \((.*)\)", link["who"])
        return ["irq %s" % m.group(1), m.group(2).lower()] if m else [link["who"].lower()]
    if link["kind"] == "softirq":
        vec = link["who"].split()[-1].lower()
        return ["timer"] if vec in ("timer", "hrtimer") else [vec]
    return []


def check_waker(c, t, bad, figs):
    """(d) and (e) for the sleep t darc's cause c names."""
    chain = t.get("chain") or []
    who = str(c.get("who") or "")
    said = json.dumps(c).lower()
    figs.append("truth's chain: %s (%.0f%% of it)" % (
        " <- ".join(l["who"] + ("" if l["recorded"] else " (not recorded)") for l in chain),
        100 * t.get("chain_share", 0)))
    if not chain:
        return
    first = chain[0]
    if not first["recorded"]:
        if re.search(r"irq \d+|\[\d+\]|virtio|timer", who, re.I):
            bad.append("(d) names a waker whose event is not in the recording: %r (the truth: %s)"
                       % (who, first["who"]))
    else:
        wakers = [w["who"] for w in t["wakers"] if w["share"] >= t["wakers"][0]["share"] - 0.1]
        if first["who"] in wakers and not any(n in who.lower() for n in names(first)):
            bad.append("(d) woken by %r; the truth: %s (%s)" % (
                who or None, first["who"], ", ".join(names(first)) or first["kind"]))
    for link in chain[1:]:
        if link["recorded"] and names(link) and not any(n in said for n in names(link)):
            bad.append("(e) misses the chain: %s behind %s is not named" % (
                link["who"], first["who"]))
        if not link["recorded"] and link["kind"] in ("irq", "softirq", "unknown"):
            shown = {n for l in chain if l["recorded"] for n in names(l)}
            extra = [m.group(0) for m in re.finditer(r"irq \d+", said) if m.group(0) not in shown]
            if extra:
                bad.append("(e) names %s behind %s, which the recording does not show" % (
                    extra[0], first["who"]))
            break


def same_truth(fresh, kept):
    """Does the truth computed now say what the committed one says?"""
    a, b = fresh["slow"]["causes"][0], kept["slow"]["causes"][0]
    if (a["category"], a["stack"]) != (b["category"], b["stack"]) or \
            abs(a["share"] - b["share"]) > 0.005:
        return "first cause %s at %s %.3f, committed %s at %s %.3f" % (
            a["category"], ">".join(a["stack"]), a["share"],
            b["category"], ">".join(b["stack"]), b["share"])
    ca = [l["who"] for l in a.get("chain") or []]
    cb = [l["who"] for l in b.get("chain") or []]
    return None if ca == cb else "chain %s, committed %s" % (ca, cb)


def knows(truth, where, waker):
    """(k): a sleep in WHERE of 5% or more, woken mainly by WAKER."""
    for c in truth["slow"]["causes"]:
        if c["category"] == "blocked" and where in c["stack"] and c["share"] >= 0.05 and \
                c["wakers"] and re.search(waker, c["wakers"][0]["who"]):
            return None
    return "(k) the truth has no sleep of 5%% or more in %s woken by /%s/" % (where, waker)


def check(entry, truth, ex, text, kept, known):
    figs, bad = [], []
    k = knows(truth, *known)
    if k:
        bad.append(k)
    if kept is not None:
        diff = same_truth(truth, kept)
        if diff:
            bad.append("(truth) differs from the committed truth: " + diff)
    subs = ex.get("subjects") or [] if isinstance(ex, dict) else []
    s = next((x for x in subs if x.get("func") == entry), None)
    if not subs or subs[0].get("func") != entry:
        bad.append("(a) first subject %s, not %s" % (subs[0].get("func") if subs else None, entry))
    tr = truth["slow"]
    t0 = tr["causes"][0]
    figs.append("truth: %d of %d calls slow, %s at %s %.0f%%" % (
        tr["calls"], truth["calls"], t0["category"], ">".join(t0["stack"]), 100 * t0["share"]))
    if s is None or not s.get("causes"):
        return figs, bad + ["(b) no cause for %s" % entry]
    c = s["causes"][0]
    figs.append("darc: %s at %s %.0f%%, who %s" % (
        c.get("kind"), ">".join(funcs(c.get("path"), entry)), 100 * (c.get("share") or 0),
        c.get("who")))
    t = check_cause(c, tr, entry, bad)
    if "range" in truth and truth["range"]["ns"]:
        share = share_at(c, truth["range"], entry)
        figs.append("truth over darc's buckets: %.0f%%" % (100 * share))
        if abs((c.get("share") or 0) - share) > SHARE:
            bad.append("(c) share %.2f, the truth's %.2f over darc's slow buckets" % (
                c.get("share") or 0, share))
    else:
        bad.append("(c) no slow buckets in darc's JSON, or no truth's call in them")
    if t is not None and t["category"] == "blocked":
        check_waker(c, t, bad, figs)
    elif t0["category"] == "blocked":
        check_waker(c, t0, bad, figs)
    if c.get("sentence") and c["sentence"] not in text:
        bad.append("(f) the text does not hold the first cause's sentence")
    return figs, bad


def main(argv):
    if len(argv) not in (8, 9):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    sample, entry, where, waker, tpath, jpath, xpath = argv[1:8]
    try:
        with open(tpath) as f:
            truth = json.load(f)
        with open(jpath) as f:
            ex = json.load(f)
        with open(xpath) as f:
            text = f.read()
        kept = None
        if len(argv) == 9:
            with open(argv[8]) as f:
                kept = json.load(f)
        figs, bad = check(entry, truth, ex, text, kept, (where, waker))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        print("FAIL %s: %s: %s" % (sample, type(e).__name__, e))
        print("   (x) the check could not run")
        return 1
    print("\n   ".join(["%s %s: %s" % ("FAIL" if bad else "ok", sample, "; ".join(figs))] + bad))
    return int(bool(bad))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
