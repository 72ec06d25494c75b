#!/usr/bin/env python3
"""darc analyze on perf.data against calls paired from perf script.

Usage: perf-analyze.py DARC [FILE...]   (default: samples/*.perf.data with
probe events)

perf probe makes an entry event NAME and a return event NAME__return. Here
each return is paired, per thread, with the latest unpaired entry of the
same name in perf script's output; every such call (function, thread,
entry time, duration in ns) must be a call of darc analyze's database, and
darc must have no other probe call. Exits 77 without perf, sqlite3 or a
sample with probes; 1 on any difference.
"""
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

LINE = re.compile(r'^\s*(-?\d+)\s+(\d+)\.(\d{9}):\s+(\S+):')


def perf_calls(f):
    out = subprocess.run(['perf', 'script', '-i', f, '--ns', '-F', 'tid,time,event'],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    open_, calls = {}, []
    for line in out:
        m = LINE.match(line)
        if not m:
            raise SystemExit(f'FAIL: {f}: perf script line not understood: {line}')
        tid, ts, ev = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)), m.group(4)
        name = ev.split(':', 1)[-1]
        if name.endswith('__return'):
            stack = open_.get((tid, name[:-8]))
            if stack:
                t0 = stack.pop()
                calls.append((name[:-8], tid, t0, ts - t0))
        else:
            open_.setdefault((tid, name), []).append(ts)
    return sorted(calls)


def darc_calls(darc, f, names):
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, 'a.db')
        subprocess.run([darc, 'analyze', '-o', db, f], capture_output=True, check=True)
        con = sqlite3.connect(db)
        rows = con.execute('SELECT f.name, c.task_id, c.t_entry, c.incl_ns FROM call c '
                           'JOIN func f ON f.id = c.func_id').fetchall()
        con.close()
    return sorted(r for r in rows if r[0] in names)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    darc = os.path.realpath(sys.argv[1])
    top = os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..')
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(top, 'samples', '*.perf.data')))
    if not shutil.which('perf'):
        print('skip: perf is not installed')
        return 77
    ok = n = 0
    for f in files:
        if 'cpuclock' in f:
            continue  # no tracepoints: darc refuses it (perf-vs-perfscript.py)
        p = perf_calls(f)
        if not p:
            continue
        n += 1
        d = darc_calls(darc, f, {c[0] for c in p})
        name = os.path.basename(f)
        if p == d:
            funcs = sorted({c[0] for c in p})
            print(f'ok: {name}: darc analyze has the {len(p)} calls paired from perf script '
                  f'({", ".join(funcs)}): same thread, entry time and duration')
            ok += 1
        else:
            print(f'FAIL: {name}: {len(p)} calls paired from perf script, {len(d)} in darc')
            for a, b in [(a, b) for a, b in zip(p, d) if a != b][:5]:
                print(f'  perf {a}\n  darc {b}')
    if not n:
        print('skip: no perf sample with probe events')
        return 77
    print(f'{ok} passed, {n - ok} failed')
    return 0 if ok == n else 1


if __name__ == '__main__':
    sys.exit(main())
