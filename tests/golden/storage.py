#!/usr/bin/env python3
"""What darc analyze stores, and what a report makes on demand (issue [22]).

A call row holds what only the call knows: call_base has no func_id or
depth (its fnode's: view call shows them) and has the return value
(retval), which on a tracepoint recording of system calls must be each
call's sys_exit value as trace-cmd report prints it, with no call_value
row of its own. On function_graph, tracepoint and probe samples: the analysis stores each
histogram at resolution 1 only (with --max-depth, whose cut calls cannot be
counted again, at every resolution); darc diff at resolution 2, 3 and 4
then makes those from the calls, and every bucket must be what the calls
give: for each fnode and each function, incl_ns and excl_ns of the
complete calls, bucket floor(r * log2(ns)) computed here with integers
(the largest b with 2^b <= ns^r). A read-only database gets them for the
run only, and says so.

    storage.py DARC
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")
NAMES = ["vm-odirect-v6.dat", "vm-getrandom-v7.dat", "host-tracepoints-v7.dat",
         "vm-probes-v7.dat", "real-jsync-tc.dat"]
fails = 0


def check(ok, what):
    global fails
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    fails += not ok


def run(darc, *args):
    out = subprocess.run([darc] + list(args), capture_output=True, text=True)
    if out.returncode:
        sys.exit("FAIL: darc %s: %s" % (" ".join(args), out.stderr.strip()))
    return out


def bucket(ns, r):
    """floor(r * log2(ns)), ns < 1 counted as 1."""
    return (max(ns, 1) ** r).bit_length() - 1


def expected(db, r):
    """Every (owner_kind, owner_id, metric, bucket) -> count, from the calls."""
    want = {}
    for fnode, func, incl, excl in db.execute(
            "SELECT c.fnode_id, c.func_id, c.incl_ns, c.excl_ns FROM call c"
            " WHERE c.incl_ns IS NOT NULL AND c.flags & 3 = 0"):
        for metric, v in ((0, incl), (1, excl)):
            for key in ((1, fnode, metric, bucket(v, r)), (0, func, metric, bucket(v, r))):
                want[key] = want.get(key, 0) + 1
    return want


def stored(db, r):
    return {(k, o, m, b): n for k, o, m, b, n in db.execute(
        "SELECT owner_kind, owner_id, metric, bucket, count FROM hist WHERE resolution = ?",
        (r,))}


def resolutions(path):
    with sqlite3.connect(path) as db:
        return [r for (r,) in db.execute("SELECT DISTINCT resolution FROM hist ORDER BY 1")]


CALL_BASE = ["id", "task_id", "parent_id", "fnode_id", "cpu", "t_entry", "incl_ns",
             "children_ns", "last_id", "retval"]


def exits(rec):
    """(tid, ns) -> the return value of every raw sys_exit, as trace-cmd reports it."""
    out = subprocess.run(["trace-cmd", "report", "-t", rec], capture_output=True, text=True)
    got = {}
    for m in re.finditer(r"-(\d+)\s+\[\d+\]\s+(\d+)\.(\d{9}): sys_exit:\s+NR -?\d+ = (-?\d+)",
                         out.stdout):
        got[(int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)))] = int(m.group(4))
    return got


def values(darc, tmp):
    """The return values of host-tracepoints-v7.dat's system calls."""
    rec = os.path.join(SAMPLES, "host-tracepoints-v7.dat")
    db_path = os.path.join(tmp, "values.db")
    run(darc, "analyze", "-q", "-o", db_path, rec)
    with sqlite3.connect(db_path) as db:
        cols = [r[1] for r in db.execute("PRAGMA table_info(call_base)")]
        check(cols == CALL_BASE, "call_base's columns: %s" % cols)
        n = db.execute("SELECT count(*) FROM call_value").fetchone()[0]
        check(n == 0, "no call_value row for a return value alone (%d)" % n)
        try:
            calls = db.execute("SELECT c.task_id, c.t_exit, c.retval FROM call c"
                               " JOIN func f ON f.id = c.func_id"
                               " WHERE f.kind = 1 AND c.t_exit IS NOT NULL").fetchall()
        except sqlite3.Error as e:
            return check(False, "system calls' return values: %s" % e)
    want = exits(rec)
    bad = [c for c in calls if want.get((c[0], c[1]), "none") != c[2]]
    check(calls and not bad, "%d system calls, each with its sys_exit's value: %d wrong %s"
          % (len(calls), len(bad), bad[:3]))


def replay(darc, tmp):
    """darc paths makes no index (a scan is a fraction of one): the same paths as with one."""
    db_path = os.path.join(tmp, "replay.db")
    run(darc, "analyze", "-q", "-o", db_path, os.path.join(SAMPLES, "vm-odirect-v6.dat"))
    indexed = os.path.join(tmp, "indexed.db")
    shutil.copy(db_path, indexed)
    with sqlite3.connect(indexed) as db:
        db.execute("CREATE INDEX call_fnode_incl ON call_base(fnode_id, incl_ns)")
    outs = [run(darc, "paths", p, "--root", "vfs_read").stdout for p in (db_path, indexed)]
    with sqlite3.connect(db_path) as db:
        made = db.execute("SELECT group_concat(name) FROM sqlite_schema WHERE type = 'index'"
                          " AND tbl_name = 'call_base'").fetchone()[0]
    check(made is None, "darc paths made no index of the calls (%s)" % made)
    check(outs[0] == outs[1] and "peak 2" in outs[0],
          "darc paths gives the same paths by a scan as by an index")


def sample(darc, tmp, name):
    db_path = os.path.join(tmp, name + ".db")
    run(darc, "analyze", "-q", "-o", db_path, os.path.join(SAMPLES, name))
    check(resolutions(db_path) == [1], "%s: the analysis stores resolution 1 only (%s)"
          % (name, resolutions(db_path)))
    for r in (2, 3, 4):
        run(darc, "diff", db_path, db_path, "--resolution", str(r))
        with sqlite3.connect(db_path) as db:
            got, want = stored(db, r), expected(db, r)
        bad = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
        check(want and not bad, "%s: resolution %d made on demand: %d buckets, %d wrong %s"
              % (name, r, len(want), len(bad), sorted(bad)[:3]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    darc = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="darc-storage.")
    try:
        replay(darc, tmp)
        values(darc, tmp)
        for name in NAMES:
            sample(darc, tmp, name)
        cut = os.path.join(tmp, "cut.db")
        run(darc, "analyze", "-q", "--max-depth", "3", "-o", cut,
            os.path.join(SAMPLES, NAMES[0]))
        check(resolutions(cut) == [1, 2, 3, 4],
              "--max-depth 3: every resolution stored (%s)" % resolutions(cut))
        # read-only (another user's file, as golden/read-only.sh does for root): made
        # for the run, said, the file untouched
        ro = os.path.join(tmp, "ro.db")
        run(darc, "analyze", "-q", "-o", ro, os.path.join(SAMPLES, NAMES[0]))
        os.chmod(tmp, 0o755)
        os.chmod(ro, 0o444)
        user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] \
            if os.getuid() == 0 else []
        out = subprocess.run(user + [darc, "diff", ro, ro, "--resolution", "3", "--json"],
                             capture_output=True, text=True)
        check(out.returncode == 0 and "read-only" in out.stderr and resolutions(ro) == [1],
              "read-only: resolution 3 for the run, said, not stored (status %d, %s; %s)"
              % (out.returncode, resolutions(ro), out.stderr.strip()))
    finally:
        shutil.rmtree(tmp)
    print("%d failed" % fails)
    sys.exit(1 if fails else 0)


main()
