#!/usr/bin/env python3
"""darc's analysis of a uftrace recording against the texts of the uftrace
that recorded it (the same version).

Usage: uftrace-vs-tool.py DB REPORT TASK REPLAY

REPORT is `uftrace report`, TASK `uftrace report --task --no-event`, REPLAY
`uftrace replay` of the recording (all with --no-pager --color=no).
Checked, from their text alone:
  - per function (uftrace's linux:* rows aside), REPORT: its calls are
    darc's complete calls, and those of its unfinished ones (an entry
    without exit, an exit without entry) that uftrace gives an end to (not
    a call that exec() ended: replay counts that one, below); its total
    and self time are
    func_summary's total_incl_ns and total_excl_ns to the digits printed,
    for a function without unfinished calls (uftrace makes up an end for
    those, darc leaves them out of its times);
  - per task, TASK: the same tasks; its "Num funcs" is the task's calls in
    darc; its self time (the task's calls' self times, scheduled-out time
    left out) is the sum of their excl_ns, for a task without unfinished
    calls;
  - per task and function, REPLAY: the calls replay shows (a leaf line, an
    opening line, or a closing line with no opening, as a forked child's
    return from fork()) are darc's calls of that task and function, and the
    durations it prints of the finished ones add up to their incl_ns, to the
    digits printed.
Prints one line per mismatch; exit 0 pass, 1 fail.
"""
import collections
import re
import sqlite3
import sys

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}
T = r"([\d.]+)\s+(ns|us|ms|s|m)"
ROW = re.compile(r"^\s*" + T + r"\s+" + T + r"\s+(\d+)\s+(.+?)\s*$")
TASK_ROW = re.compile(r"^\s*" + T + r"\s+" + T + r"\s+(\d+)\s+(\d+)\s+(.*?)\s*$")
REPLAY = re.compile(r"^\s*(?:" + T + r")?\s*\[\s*(\d+)\] \| (.*?)\s*$")
CLOSE = re.compile(r"^\}(?: = .*?;)? /\* (.+) \*/$")


def ns(value, unit):
    """A time uftrace printed, as ns, and its last digit's step: uftrace cuts
    (1.923919 ms prints as 1.923 ms), so the time is in [value, value + step)."""
    digits = len(value.split(".")[1]) if "." in value else 0
    return float(value) * UNITS[unit], UNITS[unit] / 10**digits


def parse_report(path):
    funcs = {}
    for line in open(path):
        m = ROW.match(line)
        if m and not m.group(6).startswith("linux:"):
            funcs[m.group(6)] = (ns(*m.group(1, 2)), ns(*m.group(3, 4)), int(m.group(5)))
    return funcs


def parse_task(path):
    tasks = {}
    for line in open(path):
        m = TASK_ROW.match(line)
        if m:
            tasks[int(m.group(5))] = (ns(*m.group(3, 4)), int(m.group(6)))
    return tasks


def parse_replay(path):
    """{(tid, func): [calls, finished ns, rounding]} from replay's lines."""
    calls = collections.defaultdict(lambda: [0, 0.0, 0.0])
    depth = collections.Counter()  # per task, the calls replay opened and has not closed
    for line in open(path):
        m = REPLAY.match(line)
        if not m:
            continue
        tid, body = int(m.group(3)), m.group(4).strip()
        c = CLOSE.match(body)
        if body.startswith("/*") or (body.startswith("}") and not c):
            continue  # an event
        k = calls[(tid, c.group(1) if c else body.split("(")[0])]
        if c and not depth[tid]:
            # an exit without entry (a forked child's return from fork()):
            # one call, not finished here (uftrace 0.17 on prints a time it
            # makes up for it; darc has no entry time)
            k[0] += 1
            continue
        if c:
            depth[tid] -= 1
        elif body.endswith("{"):
            depth[tid] += 1
            k[0] += 1
            continue
        else:
            k[0] += 1  # a leaf
        if m.group(1):
            t, step = ns(m.group(1), m.group(2))
            k[1] += t
            k[2] += step
    return calls


class Check:
    def __init__(self, db):
        self.con = sqlite3.connect(db)
        self.bad = 0

    def fail(self, msg):
        self.bad += 1
        print("  mismatch:", msg)

    def near(self, got, want, step):
        """@got (ns) printed as @want, cut to @step (1 ns slack for float sums)."""
        return got is not None and want - 1 <= got <= want + step + 1

    def report(self, path):
        want = parse_report(path)
        got = {r[0]: r[1:] for r in self.con.execute(
            "SELECT func, calls, incomplete, total_incl_ns, total_excl_ns FROM func_summary")}
        if not want:
            self.fail(f"no function rows in {path}")
        for name, ((total, tol_t), (self_, tol_s), calls) in sorted(want.items()):
            g = got.get(name)
            if not g:
                self.fail(f"{name}: in uftrace report, not in darc's func_summary")
                continue
            if g[1]:
                # unfinished calls: report counts those it gives an end,
                # not one that exec() ended (replay shows it: checked there)
                if not g[0] <= calls <= g[0] + g[1]:
                    self.fail(f"{name}: {g[0]} calls + {g[1]} unfinished, uftrace report"
                              f" says {calls}")
                continue
            if g[0] != calls:
                self.fail(f"{name}: {g[0]} calls, uftrace report says {calls}")
            if not self.near(g[2], total, tol_t):
                self.fail(f"{name}: total {g[2]} ns, uftrace report says {total:.0f} (cut to {tol_t:.0f} ns)")
            if not self.near(g[3], self_, tol_s):
                self.fail(f"{name}: self {g[3]} ns, uftrace report says {self_:.0f} (cut to {tol_s:.0f} ns)")
        for name in sorted(set(got) - set(want)):
            if got[name][0]:  # (an unfinished call only: as above)
                self.fail(f"{name}: in darc's func_summary, not in uftrace report")
        return len(want)

    def tasks(self, path):
        want = parse_task(path)
        got = {r[0]: r[1:] for r in self.con.execute(
            "SELECT task_id, count(*), sum(incl_ns IS NULL), sum(excl_ns) FROM call"
            " GROUP BY task_id")}
        if not want:
            self.fail(f"no task rows in {path}")
        if set(want) != set(got):
            self.fail(f"tasks: uftrace {sorted(want)}, darc {sorted(got)}")
        for tid, ((self_, tol), n) in sorted(want.items()):
            g = got.get(tid)
            if not g:
                continue
            if g[1]:
                continue  # unfinished calls: uftrace's task rows count and time them its own way
            if g[0] != n:
                self.fail(f"task {tid}: {g[0]} calls in darc, uftrace report --task says {n}")
            if not self.near(g[2], self_, tol):
                self.fail(f"task {tid}: self {g[2]} ns, uftrace report --task says"
                          f" {self_:.0f} (cut to {tol:.0f} ns)")
        return len(want)

    def replay(self, path):
        want = parse_replay(path)
        got = {(r[0], r[1]): r[2:] for r in self.con.execute(
            "SELECT c.task_id, f.name, count(*), sum(c.incl_ns) FROM call c"
            " JOIN func f ON f.id = c.func_id GROUP BY 1, 2")}
        if not want:
            self.fail(f"no calls in {path}")
        for key in sorted(set(want) | set(got)):
            n, t, tol = want.get(key, (0, 0.0, 0.0))
            g = got.get(key, (0, None))
            if g[0] != n:
                self.fail(f"task {key[0]} {key[1]}: {g[0]} calls in darc, {n} in uftrace replay")
            elif n and t and not self.near(g[1], t, tol):
                self.fail(f"task {key[0]} {key[1]}: finished calls {g[1]} ns in darc,"
                          f" {t:.0f} (cut to {tol:.0f} ns) in uftrace replay")
        return sum(v[0] for v in want.values())


def main():
    db, report, task, replay = sys.argv[1:5]
    c = Check(db)
    nf = c.report(report)
    nt = c.tasks(task)
    nc = c.replay(replay)
    print(f"  {nf} functions, {nt} tasks, {nc} calls:"
          f" {'mismatch' if c.bad else 'as uftrace report, report --task and replay say'}")
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main())
