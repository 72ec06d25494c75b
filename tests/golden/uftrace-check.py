#!/usr/bin/env python3
"""darc's analysis of a uftrace recording against uftrace's own output.

Usage: uftrace-check.py DB REPORT DUMP

REPORT is `uftrace report` of the recording, DUMP `uftrace dump` of it.
Checked, from their text alone (neither darc's reader nor its numbers):
  - per function (uftrace's linux:schedule rows aside): calls, total time
    and self time of REPORT equal func_summary's calls, total_incl_ns and
    total_excl_ns, to the digits uftrace prints (its self time leaves out
    the time scheduled out, as darc's excl_ns does);
  - every call: DUMP's [entry] and [exit] lines of each thread, paired by
    nesting, give (tid, function, depth, entry time, exit time), the same
    set as darc's call table (depth and times to the ns);
  - every switch out: DUMP's linux:sched-out events per thread, preempted
    or not, as many as darc's sched_interval rows of that task and kind.
Prints one line per failed check; exit 0 pass, 1 fail.
"""
import collections
import re
import sqlite3
import sys

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}
ROW = re.compile(r"^\s*([\d.]+)\s+(ns|us|ms|s|m)\s+([\d.]+)\s+(ns|us|ms|s|m)\s+(\d+)\s+(.+?)\s*$")
DUMP = re.compile(r"^(\d+)\.(\d{9})\s+(\d+): \[(entry|exit |event)\] (.*?)\((\w+)\)(?: depth: (\d+))?")


def ns(text):
    """A time uftrace printed, as ns, and how far the rounding may take it."""
    value, unit = text
    scale = UNITS[unit]
    digits = len(value.split(".")[1]) if "." in value else 0
    return float(value) * scale, scale / 10**digits


def parse_report(path):
    funcs = {}
    for line in open(path):
        m = ROW.match(line)
        if m and not m.group(6).startswith("linux:"):
            funcs[m.group(6)] = (ns(m.group(1, 2)), ns(m.group(3, 4)), int(m.group(5)))
    return funcs


def parse_dump(path):
    calls, switches = [], collections.Counter()
    stacks = collections.defaultdict(list)
    for line in open(path):
        m = DUMP.match(line)
        if not m:
            continue
        t = int(m.group(1)) * 10**9 + int(m.group(2))
        tid, kind, name = int(m.group(3)), m.group(4), m.group(5)
        if kind == "event":
            if name.startswith("linux:sched-out"):
                switches[(tid, 0 if "pre-empted" in name else 1)] += 1
            continue
        depth = int(m.group(7))
        if kind == "entry":
            stacks[tid].append((name, depth, t))
            continue
        # an exit closes the innermost open call of its function and depth
        st = stacks[tid]
        for i in range(len(st) - 1, -1, -1):
            if st[i][0] == name and st[i][1] == depth:
                calls.append((tid, name, depth, st[i][2], t))
                del st[i:]
                break
    for tid, st in stacks.items():
        calls.extend((tid, n, d, t, None) for n, d, t in st)
    return sorted(calls, key=repr), switches


def main():
    db, report, dump = sys.argv[1:4]
    con = sqlite3.connect(db)
    bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print("  mismatch:", msg)

    want = parse_report(report)
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT func, calls, total_incl_ns, total_excl_ns FROM func_summary")}
    if not want:
        fail(f"no function rows in {report}")
    for name, ((total, tol_t), (self_, tol_s), calls) in sorted(want.items()):
        g = got.get(name)
        if not g:
            fail(f"{name}: in uftrace report, not in darc's func_summary")
            continue
        if g[0] != calls:
            fail(f"{name}: {g[0]} calls, uftrace report says {calls}")
        if g[1] is None or abs(g[1] - total) > tol_t:
            fail(f"{name}: total {g[1]} ns, uftrace report says {total:.0f} (+-{tol_t:.0f})")
        if g[2] is None or abs(g[2] - self_) > tol_s:
            fail(f"{name}: self {g[2]} ns, uftrace report says {self_:.0f} (+-{tol_s:.0f})")
    for name in sorted(set(got) - set(want)):
        fail(f"{name}: in darc's func_summary, not in uftrace report")

    calls, switches = parse_dump(dump)
    mine = sorted(con.execute(
        "SELECT c.task_id, f.name, c.depth, c.t_entry, c.t_exit FROM call c"
        " JOIN func f ON f.id = c.func_id"), key=repr)
    if not calls:
        fail(f"no calls in {dump}")
    extra, missing = set(mine) - set(calls), set(calls) - set(mine)
    for c in sorted(missing, key=repr)[:5]:
        fail(f"call {c} of uftrace dump not in darc's call table")
    for c in sorted(extra, key=repr)[:5]:
        fail(f"call {c} of darc's call table not in uftrace dump")
    if len(calls) != len(mine):
        fail(f"{len(mine)} calls in darc, {len(calls)} in uftrace dump")

    got_sw = collections.Counter({(r[0], r[1]): r[2] for r in con.execute(
        "SELECT task_id, kind, count(*) FROM sched_interval GROUP BY 1, 2")})
    if got_sw != switches:
        fail(f"switches out per (task, preempted 0 / blocked 1): darc {dict(got_sw)},"
             f" uftrace dump {dict(switches)}")
    print(f"  {len(want)} functions, {len(calls)} calls, {sum(switches.values())} switches out:"
          f" {'mismatch' if bad else 'as uftrace says'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
