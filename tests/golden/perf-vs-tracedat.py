#!/usr/bin/env python3
"""darc analyze of a perf.data and of a trace.dat recorded at the same time.

Usage: perf-vs-tracedat.py DARC [PERF_DATA TRACE_DAT COMM...]
       (default: the sample pairs in PAIRS)

Each pair is one run of a workload recorded by perf record and by ftrace
(trace-cmd extract) at once, with the same events, on the same clock. The
two are not byte-identical copies of one another: every probe hit and
tracepoint fires perf's handler and ftrace's one after the other, so each
event has its own time in each file (microseconds apart under qemu TCG). So
"the same calls, durations and attributions" is checked as:

- the events of each workload task (its own events, and the sched_switch
  that runs it) are the same sequence, by name, in perf script's and
  trace-cmd report's output, once the one started earlier and stopped
  later is cut to the other's run; the gap between the two times of event
  k is its skew s(k);
- darc analyze's calls of these tasks are the same (function, depth, in the
  same order) in both databases; every time darc stored (a call's entry and
  exit; a sched interval's switch-out and switch-in; an irq interval's start
  and end) is the time of an event of its task, and it is the same event k
  in both recordings;
- so each duration differs by exactly the skews of its end events:
  incl(perf) - incl(ftrace) = s(exit) - s(entry), and so on for the blocked,
  preempted, irq and softirq time of every call, to the nanosecond.

The times come from perf script and trace-cmd report, not from darc. Exits
77 without perf or trace-cmd, 1 on any difference.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
PAIRS = [('vm-probes.perf.data', 'vm-probes-v7.dat', ['vm-workload']),
         ('host-pair.perf.data', 'host-pair-v7.dat', ['dd'])]

PERF_RE = re.compile(r'^\s*(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s?(.*)$')
TC_RE = re.compile(r'^\s*.*?-(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s?(.*)$')
NEXT_RE = re.compile(r'==> (?:next_comm=.*? next_pid=(\d+)|.*:(\d+) \[\d+\])')


def events(cmd, regex, f):
    """(time, tid of the task it concerns, name) of every event; a
    sched_switch concerns both tasks."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    evs = []
    for line in out.splitlines():
        m = regex.match(line)
        if not m:
            continue  # headers, cpu lines, lost-event notes
        pid, _, sec, ns, name, rest = m.groups()
        name = name.split(':', 1)[-1]
        ts = int(sec) * 10**9 + int(ns)
        evs.append((ts, int(pid), name))
        n = NEXT_RE.search(rest) if name == 'sched_switch' else None
        if n:
            evs.append((ts, int(n.group(1) or n.group(2)), name + '_in'))
    if not evs:
        raise SystemExit(f'FAIL: {f}: no events read by {cmd[0]}')
    return evs


def per_task(evs, tids):
    """tid -> [(time, name)] in time order (a task's events are in order on
    its CPU in both recordings)."""
    seq = {t: [] for t in tids}
    for ts, tid, name in sorted(evs):
        if tid in seq:
            seq[tid].append((ts, name))
    return seq


def common(a, b, tid):
    """The events both saw: the longest run of one in the other, as the two
    recordings started and stopped at different moments of the run."""
    names = lambda s: [e[1] for e in s]
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    for o in range(len(long_) - len(short) + 1):
        if names(long_[o:o + len(short)]) == names(short):
            w = long_[o:o + len(short)]
            return (short, w) if short is a else (w, short)
    raise SystemExit(f'FAIL: task {tid}: the events of one recording are not a run of '
                     f'the other\'s ({len(a)} and {len(b)})')


def analyze(darc, f, d):
    db = os.path.join(d, os.path.basename(f) + '.db')
    subprocess.run([darc, 'analyze', '-f', '-o', db, f], capture_output=True, check=True)
    return sqlite3.connect(db)


CALLS = '''SELECT c.task_id, f.name, c.depth, c.t_entry, c.t_exit, c.incl_ns, c.id
           FROM call c JOIN func f ON f.id = c.func_id JOIN task t ON t.tid = c.task_id
           WHERE t.comm IN (%s) ORDER BY c.task_id, c.t_entry, c.depth'''
# every attributed interval of a call: (call id, part, start, end)
PARTS = '''SELECT call_id, CASE kind WHEN 0 THEN 'preempt' ELSE 'blocked' END, t_out, t_in
           FROM sched_interval WHERE call_id IS NOT NULL AND t_in IS NOT NULL
           UNION ALL
           SELECT call_id, CASE kind WHEN 1 THEN 'softirq' ELSE 'irq' END, t_start, t_end
           FROM irq_interval WHERE call_id IS NOT NULL'''
TOTALS = 'SELECT id, blocked_ns, preempt_ns, irq_ns, softirq_ns FROM call WHERE id = ?'


def db_calls(con, comms):
    q = CALLS % ','.join('?' * len(comms))
    return con.execute(q, comms).fetchall()


class Side:
    """One recording: its events per task, its database, time -> event k."""

    def __init__(self, name, seq, con, comms):
        self.name, self.seq, self.con = name, seq, con
        self.calls = db_calls(con, comms)
        self.index = {tid: {ts: k for k, (ts, _) in enumerate(s)} for tid, s in seq.items()}

    def event(self, tid, ts, what):
        k = self.index.get(tid, {}).get(ts)
        if k is None:
            raise SystemExit(f'FAIL: {self.name}: {what} at {ts} is no event of task {tid}')
        return k

    def parts(self):
        out = {}
        for cid, part, a, b in self.con.execute(PARTS):
            out.setdefault(cid, []).append((part, a, b))
        return out


def skew(p, t, tid, k):
    return p.seq[tid][k][0] - t.seq[tid][k][0]


def check_calls(p, t):
    """Returns the number of nanosecond-exact durations checked."""
    if [c[:3] for c in p.calls] != [c[:3] for c in t.calls]:
        raise SystemExit(f'FAIL: {p.name} and {t.name}: darc analyze has different calls '
                         f'({len(p.calls)} and {len(t.calls)})')
    pp, tp = p.parts(), t.parts()
    n = 0
    for a, b in zip(p.calls, t.calls):
        tid = a[0]
        ends = []
        for col, what in ((3, 'entry'), (4, 'exit')):
            if a[col] is None and b[col] is None:
                ends.append(None)  # before the recordings began, or after they ended
                continue
            k = p.event(tid, a[col], f'{a[1]} {what}')
            if k != t.event(tid, b[col], f'{b[1]} {what}'):
                raise SystemExit(f'FAIL: {a[1]} of task {tid}: the {what} is event {k} '
                                 f'in {p.name}, another in {t.name}')
            ends.append(k)
        if None in ends:
            if a[5] is not None or b[5] is not None:
                raise SystemExit(f'FAIL: {a[1]} of task {tid}: a duration without an end')
            continue
        want = skew(p, t, tid, ends[1]) - skew(p, t, tid, ends[0])
        if a[5] - b[5] != want:
            raise SystemExit(f'FAIL: {a[1]} of task {tid} at {a[3]}: incl {a[5]} and '
                             f'{b[5]} differ by {a[5] - b[5]}, its events by {want}')
        n += 1 + check_parts(p, t, tid, pp.get(a[6], []), tp.get(b[6], []), a, b)
    return n


def check_parts(p, t, tid, xs, ys, a, b):
    """The attributed intervals of calls a and b are the same events."""
    if sorted(x[0] for x in xs) != sorted(y[0] for y in ys):
        raise SystemExit(f'FAIL: {a[1]} of task {tid} at {a[3]}: attributed intervals '
                         f'{sorted(x[0] for x in xs)} in {p.name}, {sorted(y[0] for y in ys)} '
                         f'in {t.name}')
    want = {}
    for (part, s0, e0), (_, s1, e1) in zip(sorted(xs), sorted(ys)):
        ks = [p.event(tid, s0, part), p.event(tid, e0, part)]
        if ks != [t.event(tid, s1, part), t.event(tid, e1, part)]:
            raise SystemExit(f'FAIL: {a[1]} of task {tid}: a {part} interval is not the '
                             f'same events in both')
        want[part] = want.get(part, 0) + skew(p, t, tid, ks[1]) - skew(p, t, tid, ks[0])
    x = p.con.execute(TOTALS, (a[6],)).fetchone()
    y = t.con.execute(TOTALS, (b[6],)).fetchone()
    for i, part in enumerate(('blocked', 'preempt', 'irq', 'softirq'), 1):
        if x[i] - y[i] != want.get(part, 0):
            raise SystemExit(f'FAIL: {a[1]} of task {tid} at {a[3]}: {part}_ns {x[i]} '
                             f'and {y[i]}: not its intervals\' skew {want.get(part, 0)}')
    return len(xs)


def pair(darc, perf_data, trace_dat, comms, d):
    p_con, t_con = analyze(darc, perf_data, d), analyze(darc, trace_dat, d)
    tids = [r[0] for r in p_con.execute('SELECT tid FROM task WHERE comm IN (%s)'
                                        % ','.join('?' * len(comms)), comms)]
    pe = events(['perf', 'script', '-i', perf_data, '--ns', '-F', 'tid,cpu,time,event,trace'],
                PERF_RE, perf_data)
    te = events(['trace-cmd', 'report', '-t', trace_dat], TC_RE, trace_dat)
    ps, ts = per_task(pe, tids), per_task(te, tids)
    for tid in tids:
        ps[tid], ts[tid] = common(ps[tid], ts[tid], tid)
    p = Side(os.path.basename(perf_data), ps, p_con, comms)
    t = Side(os.path.basename(trace_dat), ts, t_con, comms)
    n = check_calls(p, t)
    sk = sorted(abs(skew(p, t, tid, k)) for tid in tids for k in range(len(ps[tid])))
    print(f'ok: {p.name} and {t.name}: tasks {tids} ({"|".join(comms)}): '
          f'{sum(len(s) for s in ps.values())} events in the same order in both, '
          f'{len(p.calls)} calls the same, {n} durations differ by exactly their '
          f'events\' skew (median {sk[len(sk) // 2]} ns, max {sk[-1]} ns)')


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if not shutil.which('perf') or not shutil.which('trace-cmd'):
        print('skip: perf or trace-cmd is not installed')
        sys.exit(77)
    pairs = [(os.path.join(TOP, 'samples', a), os.path.join(TOP, 'samples', b), c)
             for a, b, c in PAIRS]
    if len(sys.argv) > 4:
        pairs = [(sys.argv[2], sys.argv[3], sys.argv[4:])]
    with tempfile.TemporaryDirectory() as d:
        for perf_data, trace_dat, comms in pairs:
            pair(sys.argv[1], perf_data, trace_dat, comms, d)


if __name__ == '__main__':
    main()
