#!/usr/bin/env python3
"""percentiles.py DARC: the exact percentiles darc analyze stores (issue 34)
against a window query over the calls.

For each sample below, every function (table func, view func_summary) and
every fnode (table fnode, view hot_paths) must carry p50_ns, p90_ns, p99_ns
and p999_ns equal to the nearest rank of its complete calls' incl_ns (the
ceil(n q)-th smallest, by row_number() over view call), and the largest as
max_incl_ns / max_ns; NULL where it has no complete call. darc hist must
print the same numbers for a function (text and --json), and for a
selection by task the ones of that task's calls; darc analyze --json's
summary the function's. uftrace's fi.data has a recursion (fib): one
function over several fnodes, whose calls are gathered.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SAMPLES = ["vm-preads-v7.dat", "vm-append1-v7.dat", "real-chain3-darc.dat",
           "host-pair.perf.data", "uftrace/fi.data"]
PERMILLE = {"p50_ns": 500, "p90_ns": 900, "p99_ns": 990, "p999_ns": 999}
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def run(*args):
    r = subprocess.run([darc, *args], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("FAIL: darc %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def window(db, key, where="1"):
    """{key value: {p50_ns.., max}} by the window query, complete calls only."""
    rows = db.execute(
        "SELECT %s, incl_ns, row_number() OVER (PARTITION BY %s ORDER BY incl_ns),"
        " count(*) OVER (PARTITION BY %s) FROM call"
        " WHERE incl_ns IS NOT NULL AND flags & 3 = 0 AND %s" % (key, key, key, where))
    want = {}
    for k, ns, rank, n in rows:
        w = want.setdefault(k, {"max": 0})
        for col, pm in PERMILLE.items():
            if rank == (n * pm + 999) // 1000:
                w[col] = ns
        w["max"] = max(w["max"], ns)
    return want


def stored(db, sql):
    return {r[0]: dict(zip(list(PERMILLE) + ["max"], r[1:])) for r in db.execute(sql)}


def compare(name, got, want):
    """Every owner with calls as the window query says; the others all NULL."""
    bad = [k for k in set(got) | set(want)
           if (got.get(k) if k in want else None) != want.get(k)
           and not (k not in want and all(v is None for k2, v in got[k].items()
                                          if k2 != "max"))]
    check(not bad and want, "%s: %d owners as the window query%s" % (
        name, len(want), "; differ: %s" % [(k, got.get(k), want.get(k)) for k in bad[:3]]
        if bad else ""))


def hist_line(q):
    return "percentiles: " + ", ".join(
        "%s %s" % (n, amount(q[c])) for n, c in
        (("p50", "p50_ns"), ("p90", "p90_ns"), ("p99", "p99_ns"), ("p99.9", "p999_ns"))) + \
        ", max " + amount(q["max"])


def amount(v):
    div, i = 1, 0
    while i < 3 and v >= div * 1000:
        div, i = div * 1000, i + 1
    if i == 0:
        return "%.0fns" % v
    return "%.*f%s" % (2 if v / div < 10 else 1, v / div, ["ns", "us", "ms", "s"][i])


def one(tmp, sample):
    dat = os.path.join(tmp, os.path.basename(sample))
    if os.path.isdir(os.path.join(top, "samples", sample)):
        shutil.copytree(os.path.join(top, "samples", sample), dat)
    else:
        shutil.copy(os.path.join(top, "samples", sample), dat)
    dbp = os.path.join(tmp, os.path.basename(sample) + ".db")
    summary = json.loads(run("analyze", "--json", "--top", "1000", "--all", "-o", dbp, dat))
    db = sqlite3.connect(dbp)
    funcs = window(db, "func_id")
    compare(sample + ": func", stored(
        db, "SELECT f.id, f.p50_ns, f.p90_ns, f.p99_ns, f.p999_ns, s.max_incl_ns"
        " FROM func f JOIN func_summary s ON s.func_id = f.id"), funcs)
    compare(sample + ": fnode", stored(
        db, "SELECT id, p50_ns, p90_ns, p99_ns, p999_ns, max_ns FROM fnode"),
        window(db, "fnode_id"))
    compare(sample + ": hot_paths", stored(
        db, "SELECT fnode_id, p50_ns, p90_ns, p99_ns, p999_ns, max_ns FROM hot_paths"),
        window(db, "fnode_id"))
    several = db.execute("SELECT count(*) FROM (SELECT func_id FROM fnode WHERE calls > 0"
                         " GROUP BY func_id HAVING count(*) > 1)").fetchone()[0]
    names = dict(db.execute("SELECT id, name FROM func"))
    # the slowest function, and one called from several places, through darc hist
    fid = db.execute("SELECT func_id FROM func_summary WHERE calls > 0 ORDER BY"
                     " (SELECT count(*) FROM fnode n WHERE n.func_id = func_summary.func_id"
                     " AND n.calls > 0) DESC, total_incl_ns DESC LIMIT 1").fetchone()[0]
    func = names[fid]
    j = json.loads(run("hist", dbp, "--func", func, "--json"))["percentiles"]
    want = funcs[fid]
    check(j == {"p50": want["p50_ns"], "p90": want["p90_ns"], "p99": want["p99_ns"],
                "p999": want["p999_ns"], "max": want["max"]},
          "%s: hist --func %s --json: %s (%d fnodes call it in the recording's %d"
          " functions called from several places)" % (sample, func, j, db.execute(
              "SELECT count(*) FROM fnode WHERE func_id = ? AND calls > 0",
              (fid,)).fetchone()[0], several))
    text = run("hist", dbp, "--func", func)
    check(hist_line(want) in text.splitlines(), "%s: hist --func %s prints '%s'" %
          (sample, func, hist_line(want)))
    tid = db.execute("SELECT task_id FROM call WHERE func_id = ? AND incl_ns IS NOT NULL"
                     " AND flags & 3 = 0 GROUP BY task_id ORDER BY count(*), task_id"
                     " LIMIT 1", (fid,)).fetchone()[0]
    j = json.loads(run("hist", dbp, "--func", func, "--task", str(tid), "--json"))
    w = window(db, "func_id", "task_id = %d" % tid)[fid]
    check(j["percentiles"] == {"p50": w["p50_ns"], "p90": w["p90_ns"], "p99": w["p99_ns"],
                               "p999": w["p999_ns"], "max": w["max"]},
          "%s: hist --func %s --task %d: %s, that task's calls" % (sample, func, tid,
                                                                   j["percentiles"]))
    bad = [f["func"] for f in summary["top"] if f["p50_ns"] != funcs[
        [k for k, v in names.items() if v == f["func"]][0]]["p50_ns"] or
        f["p999_ns"] != funcs[[k for k, v in names.items() if v == f["func"]][0]]["p999_ns"]]
    check(summary["top"] and not bad, "%s: analyze --json: %d functions' p50_ns and p999_ns"
          " as func's%s" % (sample, len(summary["top"]), " (not: %s)" % bad if bad else ""))
    return several


with tempfile.TemporaryDirectory(prefix="darc-pct.") as tmp:
    several = sum(one(tmp, s) for s in SAMPLES)
check(several > 0, "%d functions called from several fnodes (their calls gathered)" % several)
print("%s: %d failed" % ("FAIL" if fails else "PASS", fails))
sys.exit(1 if fails else 0)
