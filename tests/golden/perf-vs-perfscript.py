#!/usr/bin/env python3
"""darc dump against perf script, event for event, on every perf sample.

Usage: perf-vs-perfscript.py DARC [FILE...]   (default: samples/*.perf.data)

Also darc analyze against perf script: perf probe makes an entry event NAME
and a return event NAME__return; each return is paired, per thread, with the
latest unpaired entry of the same name in perf script's output, and those
calls (function, thread, entry time, duration in ns) must be exactly darc
analyze's calls of these functions.

Both print each event with its print format; per event the time (ns), cpu,
pid, task name, event name and fields must agree, in the same order. Lost
events: the sum of darc's 'EVENTS DROPPED' counts must equal the sum of
perf's PERF_RECORD_LOST counts (perf script --show-lost-events), or when
there are none, of perf record's closing PERF_RECORD_LOST_SAMPLES totals;
darc dump's 'EVENTS DROPPED' marks may only show fewer (a loss after a CPU's
last event has no event to mark). Exits 77
when perf is not installed, 1 on any difference. Also: the recordings in
REFUSE (no tracepoints) and damaged copies of every sample (byte-swapped
magic, cut at 1/8 .. 7/8) must be refused with one line naming the file,
and a copy of each file-mode sample with every round's records reversed
must read exactly as the sample does.
"""
import glob
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

DARC_RE = re.compile(r'^\s*(.*)-(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}): (\S+): ?(.*)$')
PERF_RE = re.compile(r'^\s*(.*?)\s+(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s?(.*)$')
LOST_D = re.compile(r'^CPU:(\d+) \[(\d+) EVENTS DROPPED\]$')
LOST_P = re.compile(r'PERF_RECORD_LOST lost (\d+)')
LOST_S = re.compile(r'PERF_RECORD_LOST_SAMPLES: .*lost samples :(\d+)')


def norm(m, perf):
    comm, pid, cpu, sec, ns, name, fields = m.groups()
    if perf:
        name = name.split(':', 1)[-1]
    if comm in ('<idle>', 'swapper') and pid == '0':
        comm = 'swapper'
    return (int(sec) * 10**9 + int(ns), int(cpu), int(pid), comm, name,
            ' '.join(fields.split()))


def darc_events(darc, f):
    out = subprocess.run([darc, 'dump', '--pretty', f], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    evs, lost = [], 0
    for line in out[1:]:
        m = LOST_D.match(line)
        if m:
            lost += int(m.group(2))
            continue
        m = DARC_RE.match(line)
        if not m:
            raise SystemExit(f'FAIL: {f}: darc line not understood: {line}')
        evs.append(norm(m, False))
    return evs, lost


# a sample of an event that is no tracepoint (cpu-clock), as -F trace:... leaves it
OTHER_P = re.compile(r'\d\.\d{9}:\s+(?:\d+\s+)?[\w.-]+:\s')


def perf_events(f):
    out = subprocess.run(['perf', 'script', '-i', f, '--ns', '--show-lost-events',
                          '-F', 'trace:comm,tid,cpu,time,event,trace'],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    evs, lost = [], 0
    for line in out:
        m = LOST_P.search(line)
        if m:
            lost += int(m.group(1))
            continue
        m = PERF_RE.match(line)
        if not m and OTHER_P.search(line):
            continue  # darc reads tracepoints only (and counts these, info-skipped.py)
        if not m:
            raise SystemExit(f'FAIL: {f}: perf script line not understood: {line}')
        evs.append(norm(m, True))
    if not lost:
        dump = subprocess.run(['perf', 'script', '-i', f, '-D'], capture_output=True,
                              text=True, check=True).stdout.splitlines()
        lost = sum(int(m.group(1)) for m in map(LOST_S.search, dump) if m)
    return evs, lost


def darc_lost(darc, f):
    out = subprocess.run([darc, 'info', f], capture_output=True, text=True,
                         check=True).stdout
    return sum(int(n) for n in re.findall(r' lost (\d+) in ', out))


def compare(darc, f):
    d, dmarks = darc_events(darc, f)
    dl = darc_lost(darc, f)
    p, pl = perf_events(f)
    bad = [i for i, (a, b) in enumerate(zip(d, p)) if a != b]
    name = os.path.basename(f)
    if bad or len(d) != len(p) or dl != pl or dmarks > dl:
        print(f'FAIL: {name}: darc {len(d)} events, perf script {len(p)}; '
              f'{len(bad)} differ; lost darc {dl} ({dmarks} marked), perf {pl}')
        for i in bad[:5]:
            print(f'  #{i}\n    darc: {d[i]}\n    perf: {p[i]}')
        return False
    print(f'ok: {name}: {len(d)} events agree with perf script '
          f'(time, cpu, pid, comm, event, fields); {dl} lost on both, '
          f'{dmarks} of them marked on a next event')
    return True


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


def calls(darc, f):
    """darc analyze's probe calls are the entry/return pairs of perf script."""
    p = perf_calls(f)
    if not p:
        return True
    d = darc_calls(darc, f, {c[0] for c in p})
    name = os.path.basename(f)
    if p == d:
        print(f'ok: {name}: darc analyze has the {len(p)} calls paired from perf script '
              f'({", ".join(sorted({c[0] for c in p}))}): same thread, entry time, duration')
        return True
    print(f'FAIL: {name}: {len(p)} calls paired from perf script, {len(d)} in darc')
    for x, y in [(x, y) for x, y in zip(p, d) if x != y][:5]:
        print(f'  perf {x}\n  darc {y}')
    return False


# Recordings darc must refuse, and what its one-line message must say.
REFUSE = {'host-cpuclock.perf.data': 'no tracing data (HEADER_TRACING_DATA, as a section or a record)'}


def refuse(darc, f, want):
    """darc dump fails on f with exit 2 and one line naming f and want."""
    r = subprocess.run([darc, 'dump', f], capture_output=True, text=True)
    lines = r.stderr.splitlines()
    ok = r.returncode == 2 and len(lines) == 1 and f in lines[0] and want in lines[0]
    print(f'{"ok" if ok else "FAIL"}: {os.path.basename(f)} refused: {r.stderr.strip()!r}')
    return ok


def reversed_rounds(b):
    """A file-mode perf.data with each round's samples in reverse order.

    The other records stay where they are: perf synthesizes the FORK and
    COMM records of the tasks it finds at start with the same time (0), and
    only the file order says which comes first. A LOST record stays right
    before the record after it: the kernel gives it that record's time, and
    only the file order says which comes first.
    """
    doff, dsize = struct.unpack_from('<QQ', b, 40)
    out, rnd, o, glue = [], [], doff, b''

    def flush():
        samples = [r for t, r in rnd if t == 9][::-1]
        out.extend(samples.pop(0) if t == 9 else r for t, r in rnd)

    while o < doff + dsize:
        typ, size = struct.unpack_from('<I2xH', b, o)
        if typ == 2:  # LOST
            glue += b[o:o + size]
            o += size
            continue
        rnd.append((typ, glue + b[o:o + size]))
        glue = b''
        if typ == 68:  # FINISHED_ROUND
            flush()
            rnd = []
        o += size
    flush()
    return b[:doff] + b''.join(out) + glue + b[doff + dsize:]


def unordered(darc, files, tmp):
    """Within a round records may come in any order: darc sorts them."""
    ok = True
    for f in files:
        b = open(f, 'rb').read()
        if struct.unpack_from('<Q', b, 8)[0] != 104:
            continue  # pipe mode
        g = os.path.join(tmp, 'rev-' + os.path.basename(f))
        open(g, 'wb').write(reversed_rounds(b))
        want = subprocess.run([darc, 'dump', f], capture_output=True, text=True).stdout
        got = subprocess.run([darc, 'dump', g], capture_output=True, text=True).stdout
        if got != want:
            print(f'FAIL: {os.path.basename(f)} with its rounds reversed reads differently')
            ok = False
    print(f'{"ok" if ok else "FAIL"}: file-mode samples with each round reversed read the same')
    return ok


def damaged(darc, files, tmp):
    """Cut and byte-swapped copies: refused with one line, never a crash."""
    ok = True
    for f in files:
        b = open(f, 'rb').read()
        cases = [('be', b'2ELIFREP' + b[8:], 'big-endian perf.data is not supported')]
        cases += [(f'cut{n}', b[:len(b) * n // 8], 'truncated') for n in range(1, 8)]
        for tag, data, want in cases:
            g = os.path.join(tmp, f'{tag}-{os.path.basename(f)}')
            open(g, 'wb').write(data)
            r = subprocess.run([darc, 'dump', g], capture_output=True, text=True)
            if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or g not in r.stderr:
                print(f'FAIL: {tag} copy of {os.path.basename(f)}: exit {r.returncode}, '
                      f'{r.stderr.strip()!r}')
                ok = False
    print(f'{"ok" if ok else "FAIL"}: byte-swapped and cut copies refused with one line each')
    return ok


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    darc = os.path.realpath(sys.argv[1])
    top = os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..')
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(top, 'samples', '*.perf.data')))
    if not shutil.which('perf'):
        print('skip: perf is not installed')
        return 77
    if not files:
        print('skip: no perf samples')
        return 77
    good = [f for f in files if os.path.basename(f) not in REFUSE]
    ok = sum(compare(darc, f) and calls(darc, f) for f in good)
    ok += sum(refuse(darc, f, REFUSE[os.path.basename(f)]) for f in files
              if os.path.basename(f) in REFUSE)
    with tempfile.TemporaryDirectory() as tmp:
        ok += damaged(darc, good, tmp)
        ok += unordered(darc, good, tmp)
    n = len(files) + 2
    print(f'{ok} passed, {n - ok} failed')
    return 0 if ok == n else 1


if __name__ == '__main__':
    sys.exit(main())
