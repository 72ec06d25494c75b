#!/usr/bin/env python3
# text-vs-dat.py BIN.db TEXT.db KIND: darc analyze of a trace.dat (BIN) and
# of the text of the SAME trace (TEXT) must give the same analysis, to the
# precision the text prints. Helper of tests/golden/text.sh.
#
# KIND says what the text prints:
#   ns-flags  times in ns and the latency flags (trace-cmd report -l -t)
#   us        times rounded to the us, no flags (trace-cmd report, funcgraph-abstime)
#   none      no times at all (the default `cat trace`, latency-format)
#
# Always exact (durations are printed in ns below 10 ms; a call of 10 ms or
# more is printed to 10 ns or coarser, which the tolerance allows):
#   - the ftree: the same fnode paths, and the same call count on each;
#   - per function and per fnode: calls, and incl_ns within the precision
#     the durations are printed to;
#   - the incl_ns histograms, bucket by bucket, of every function and fnode,
#     but for a call of 10 ms or more within its printed precision of a
#     bucket edge: either bucket may hold it (a fresh recording on a busy
#     host has such calls; the committed samples have none).
# A probe pair's call (kprobe/uprobe and its return) has no printed
# duration: its times are its events', to the ns with ns-flags but to the
# us with us. There it is allowed 1 us, and a histogram bucket may differ
# by at most the calls that 1 us could move across one of its edges.
# Always: the probe hits, and the bios (all, queued, completed, with a
# submit_bio pointer); with times, their total queue-to-completion time
# within 1 %.
# With times (ns-flags, us): each fnode's blocked, preempt, irq, softirq and
# excl time within TOL per call (1 us for ns-flags, 25 us for us) or 2 % of
# its incl_ns, plus what the text cannot know of its interrupts (shifts()).
# Without times those parts are not knowable and are only printed, as are
# the excl histograms' differing buckets.
import sqlite3
import sys


def prec(ns):
    """What a printed duration of ns is precise to (trace_print_graph_duration)."""
    return 1 if ns < 10**7 else 10 if ns < 10**8 else 100 if ns < 10**9 else 1000


FACTOR = {1: [1.0], 2: [1.0, 2 ** 0.5], 3: [1.0, 2 ** (1 / 3), 2 ** (2 / 3)],
          4: [1.0, 2 ** 0.25, 2 ** 0.5, 2 ** 0.75]}


def edge(res, b):
    """The lowest ns of bucket b at res buckets per octave (the hist_range view)."""
    x = (1 << (b // res)) * FACTOR[res][b % res]
    return int(x) + (x > int(x))


def bucket(res, ns):
    b = max(0, int(res * (ns.bit_length() - 1)))
    while edge(res, b + 1) <= ns:
        b += 1
    while b > 0 and edge(res, b) > ns:
        b -= 1
    return b


# A text prints io_schedule_timeout as the section marker at its address
# (__sched_text_start: the kernel's own lookup finds the marker); darc names
# the function from a trace.dat's kallsyms, which a text does not have.
MARKERS = {"__sched_text_start": "io_schedule_timeout"}


def shifts(bdb, tdb, paths):
    """What a text cannot know of where an interrupt began and ended, per fnode.

    A trace.dat's call starts at its funcgraph_exit's calltime; the text prints
    the funcgraph_entry event's time, which the ring buffer took a little
    later (the tracer's own delay: 1-5 us under the lab's emulation), and the
    call ends its printed duration after that. An interrupt's part of the call
    it interrupted runs from its first root call's start to its last root's
    end, each later by that root's own delay, so the part (and the call's
    excl) may differ by up to the larger delay: each root's delay is allowed
    to the fnode of the call it interrupted. An interrupt that came within a
    call's delay of its start or end interrupted that call in one and its
    parent in the other: then the root's whole part may move between the
    two, and is allowed to both fnodes. The delays are
    the text's starts less the trace.dat's, call by call (both number the
    calls alike); a text that starts a call earlier than its calltime, or 1 ms
    later, fails."""
    q = ("SELECT c.id, f.name, c.t_entry, c.parent_id, c.interrupted_id, c.fnode_id, "
         "c.incl_ns FROM call c JOIN func f ON f.id = c.func_id ORDER BY c.id")
    b = sqlite3.connect(bdb).execute(q).fetchall()
    t = sqlite3.connect(tdb).execute(q).fetchall()
    if [r[:2] for r in b] != [r[:2] for r in t]:
        return {}, []  # other calls: the ftree's checks say so
    fnode = {r[0]: r[5] for r in b}
    parent = {r[0]: r[3] for r in b}
    span = {rb[0]: (rb[2], rb[6], rt[2]) for rb, rt in zip(b, t)}

    def in_delay(at, child):
        """Is @at within @child's delay (and 1 us) of its start or its end?"""
        start, incl, text_start = span[child]
        if None in (start, incl, text_start):
            return False
        late = text_start - start
        return any(e - 1000 <= at <= e + late + 1000 for e in (start, start + incl))

    extra, bad = {}, []
    for rb, rt in zip(b, t):
        if rb[2] is None or rt[2] is None:
            continue
        d = rt[2] - rb[2]
        if not -1000 <= d <= 10**6:
            bad.append(f"call {rb[0]} ({rb[1]}) starts {d} ns after the trace.dat's")
        if rb[3] is None and rb[4] is not None:
            p = paths[fnode[rb[4]]]
            extra[p] = extra.get(p, 0) + abs(d)
            o = rt[4]  # the call the text says it interrupted: the parent or a child
            if o in fnode and (parent.get(o) == rb[4] or parent.get(rb[4]) == o) and \
                    in_delay(rb[2], o if parent.get(o) == rb[4] else rb[4]):
                for k in (p, paths[fnode[o]]):
                    extra[k] = extra.get(k, 0) + (rb[6] or 0)
    return extra, bad[:3]


def load(db, probe_prec=0):
    c = sqlite3.connect(db)
    names = {i: MARKERS.get(n, n) for i, n in c.execute("SELECT id, name FROM func")}
    cols = "id, parent_id, func_id, calls, incl_ns, excl_ns, irq_ns, softirq_ns, " \
           "preempt_ns, blocked_ns"
    rows = {r[0]: r for r in c.execute(f"SELECT {cols} FROM fnode")}
    paths = {}

    def path(i):
        if i not in paths:
            r = rows[i]
            paths[i] = (path(r[1]) + "/" if r[1] is not None else "") + names[r[2]]
        return paths[i]

    nodes = {path(i): r for i, r in rows.items()}
    tol, loose = {}, {}
    for fnode, fname, incl, probe in c.execute(
            "SELECT c.fnode_id, f.name, c.incl_ns, EXISTS (SELECT 1 FROM probe_hit p "
            "WHERE p.call_id = c.id AND p.role = 1) FROM call c JOIN func f "
            "ON f.id = c.func_id WHERE c.incl_ns IS NOT NULL"):
        fname = MARKERS.get(fname, fname)
        p = probe_prec if probe else prec(incl)
        tol[path(fnode)] = tol.get(path(fnode), 0) + p
        if p > 1:  # known to p ns only: each bucket it may be in may gain it
            for res in FACTOR:
                lo, hi = bucket(res, max(1, incl - p)), bucket(res, incl + p)
                for b in range(lo, hi + 1) if lo != hi else ():
                    for key in ((0, fname), (1, path(fnode))):
                        k = key[:1] + (key[1], 0, res, b)
                        loose[k] = loose.get(k, 0) + 1
    funcs = {}
    for name, n, incl in c.execute(
            "SELECT f.name, sum(n.calls), sum(n.incl_ns) FROM fnode n JOIN func f "
            "ON f.id = n.func_id GROUP BY f.name"):
        funcs[MARKERS.get(name, name)] = (n, incl or 0)
    hist = {}
    for kind, oid, metric, res, b, n in c.execute(
            "SELECT owner_kind, owner_id, metric, resolution, bucket, count FROM hist"):
        owner = names[oid] if kind == 0 else path(oid)
        hist[(kind, owner, metric, res, b)] = n
    bios = c.execute("SELECT count(*), count(t_queue), count(t_complete), count(ptr), "
                     "coalesce(sum(t_complete - t_queue), 0) FROM bio").fetchone()
    hits = c.execute("SELECT count(*) FROM probe_hit").fetchone()[0]
    return nodes, tol, funcs, hist, bios, hits, loose, paths


def main():
    bdb, tdb, kind = sys.argv[1:4]
    b, tol, bf, bh, bb, bp, loose, bpaths = load(bdb, 1000 if kind == "us" else 0)
    t, _, tf, th, tb, tp, _, _ = load(tdb)
    bad = []
    late, bad_late = shifts(bdb, tdb, bpaths) if kind in ("ns-flags", "us") else ({}, [])
    if set(b) != set(t):
        bad.append(f"fnode paths differ: only in the trace.dat {sorted(set(b) - set(t))[:3]}, "
                   f"only in the text {sorted(set(t) - set(b))[:3]}")
    both = sorted(set(b) & set(t))
    calls = [p for p in both if b[p][3] != t[p][3]]
    if calls:
        bad.append(f"{len(calls)} fnodes with other call counts, e.g. {calls[0]}: "
                   f"{b[calls[0]][3]} vs {t[calls[0]][3]}")
    incl = [p for p in both if abs((b[p][4] or 0) - (t[p][4] or 0)) > tol.get(p, 0)]
    if incl:
        bad.append(f"{len(incl)} fnodes with incl_ns beyond the printed precision, e.g. "
                   f"{incl[0]}: {b[incl[0]][4]} vs {t[incl[0]][4]}")
    fdiff = [f for f in set(bf) | set(tf) if bf.get(f, (0, 0))[0] != tf.get(f, (0, 0))[0]]
    if fdiff:
        bad.append(f"{len(fdiff)} functions with other call counts, e.g. {sorted(fdiff)[0]}")
    if bp != tp:
        bad.append(f"probe hits: {bp} vs {tp}")
    if bb[:4] != tb[:4]:
        bad.append(f"bios (all, queued, completed, with a pointer): {bb[:4]} vs {tb[:4]}")
    if kind != "none" and abs(bb[4] - tb[4]) > 0.01 * bb[4]:
        bad.append(f"bios' total queue-to-completion time: {bb[4]} vs {tb[4]} ns")
    maxd = max([abs((b[p][4] or 0) - (t[p][4] or 0)) for p in both] or [0])
    keys0 = {k for k in set(bh) | set(th) if k[2] == 0}
    h0 = sorted(k for k in keys0 if abs(bh.get(k, 0) - th.get(k, 0)) > loose.get(k, 0))
    if h0:
        bad.append(f"{len(h0)} of {len(keys0)} incl_ns histogram buckets differ, e.g. {h0[0]}: "
                   f"{bh.get(h0[0], 0)} vs {th.get(h0[0], 0)}")
    keys1 = {k for k in set(bh) | set(th) if k[2] == 1}
    h1 = [k for k in keys1 if bh.get(k, 0) != th.get(k, 0)]
    parts = ["excl", "irq", "softirq", "preempt", "blocked"]
    worst = {}
    for p in both:
        for i, name in enumerate(parts):
            d = abs((b[p][5 + i] or 0) - (t[p][5 + i] or 0))
            if d > worst.get(name, (0, ""))[0]:
                worst[name] = (d, p)
    if kind in ("ns-flags", "us"):
        per_call = 1000 if kind == "ns-flags" else 25000
        for p in both:
            allow = max(per_call * b[p][3], 0.02 * (b[p][4] or 0)) + late.get(p, 0)
            for i, name in enumerate(parts):
                d = abs((b[p][5 + i] or 0) - (t[p][5 + i] or 0))
                if d > allow:
                    bad.append(f"{p}: {name} {b[p][5 + i]} vs {t[p][5 + i]} "
                               f"(allowed {allow:.0f} ns)")
    bad += bad_late
    print(f"{kind}: {len(both)} fnodes, {sum(r[3] for r in b.values())} calls, "
          f"{len(bf)} functions, {bp} probe hits, {bb[0]} bios: paths and calls equal: "
          f"{not bad[:2]}; max |d incl_ns| per "
          f"fnode {maxd} ns; incl hist buckets {len(keys0)} differ {len(h0)}; excl hist "
          f"buckets {len(keys1)} differ {len(h1)}; largest part differences: " +
          ", ".join(f"{k} {v[0]} ns" for k, v in sorted(worst.items())))
    for m in bad[:20]:
        print("  FAIL:", m)
    return 1 if bad else 0


sys.exit(main())
