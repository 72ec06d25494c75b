#!/usr/bin/env python3
"""refused.py DARC: an event whose format darc refuses is never dropped
silently. darc info names it ("sched:sched_switch (format refused: WHY)")
with its count, where it said "unknown:ID"; darc analyze warns on stderr,
one line a refused format, with the file, the event, its id, why, how many
events were dropped and what the analysis then lacks, and keeps that in
the database (recording.lacks) for the reports.

Inputs: the fuzz input crash-d5099c6884b0b7 (sched_switch's print args hold
"80%22222220%1", a divisor followed by '%', refused by a screen of
fmt/events.c), and two samples edited here at the same length: the
trace.dat v6 with "REC->prev_pid" made "REC->prev_pix" (a REC->name that is
no field, another screen), and the perf.data with "name: sched_switch" made
"name: (ched_switch" (libtraceevent itself cannot parse it). Their dropped
counts must be the unedited samples' sched_switch counts, and the edited
trace.dat's off-CPU intervals, which the unedited one has, must be gone.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def info(path):
    p = subprocess.run([darc, "info", path], capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else ""


def count_of(text, label):
    """The count of the 'events by name' line whose label is @label."""
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[1] == label and parts[0].isdigit():
            return int(parts[0])
    return None


def analyze(path, db):
    """darc analyze's stderr, and the database's lacks and off-CPU intervals."""
    p = subprocess.run([darc, "analyze", "-q", "-o", db, path], capture_output=True,
                       text=True)
    if p.returncode != 0 or not os.path.exists(db):
        return p.stderr, "(no database)", None
    con = sqlite3.connect(db)
    lacks = con.execute("SELECT lacks FROM recording").fetchone()[0]
    nsched = con.execute("SELECT count(*) FROM sched_interval").fetchone()[0]
    con.close()
    return p.stderr, lacks, nsched


def edited(src, old, new, dst):
    """@src with @old made @new in sched_switch's format (the same length: the
    sizes around it hold)."""
    data = open(src, "rb").read()
    at = data.find(b"name: sched_switch\n")
    end = data.find(b"print fmt:", at)
    end = data.find(b"\n", end)
    assert len(old) == len(new) and at >= 0 and old in data[at:end], (src, old)
    open(dst, "wb").write(data[:at] + data[at:end].replace(old, new, 1) + data[end:])


def warning(path, n, event, fid, why, lacks):
    return ("darc: warning: '%s': %d events of %s (id %d) dropped: its format is refused "
            "(%s)%s" % (path, n, event, fid, why,
                        "; the analysis has no " + lacks if lacks else ""))


def case(name, path, n, event, fid, why, lacks, tmp, base_lacks=None):
    """darc info's line, its JSON, and darc analyze's warning and lacks for
    @path, whose format lacks @base_lacks."""
    label = "%s (format refused: %s)" % (event, why)
    got = count_of(info(path), label)
    check(got == n, "%s: info says '%s' %s times, want %d" % (name, label, got, n))
    j = json.loads(subprocess.run([darc, "info", "--json", path], capture_output=True,
                                  text=True).stdout or "{}")
    want = {"event": event, "id": fid, "why": why, "events": n}
    check(want in j.get("refused_formats", []),
          "%s: info --json refused_formats holds %s" % (name, want))
    err, db_lacks, nsched = analyze(path, os.path.join(tmp, name + ".db"))
    line = warning(path, n, event, fid, why, lacks)
    check(line in err.splitlines(), "%s: analyze warns '%s' (stderr: %r)" % (name, line, err))
    want_lacks = ", ".join(x for x in (base_lacks, lacks and "%s (%s's format refused)"
                                       % (lacks, event)) if x) or None
    check(db_lacks == want_lacks,
          "%s: recording.lacks is %r, want %r" % (name, db_lacks, want_lacks))
    return nsched


DIVISOR = "a divisor followed by '*', '/' or '%' in its print args"
NOFIELD = "a REC->name in its print args that is no field of it"
with tempfile.TemporaryDirectory() as tmp:
    crash = os.path.join(top, "tests", "fuzz", "tracedat-regress", "crash-d5099c6884b0b7")
    nsched = case("crash-d5099c6884b0b7", crash, 26, "sched:sched_switch", 310, DIVISOR,
                  "off-CPU time", tmp)
    check(nsched == 0, "crash-d5099c6884b0b7: %s off-CPU intervals" % nsched)

    v6 = os.path.join(top, "samples", "host-tracepoints-v6.dat")
    n = count_of(info(v6), "sched:sched_switch")
    err, lacks, before = analyze(v6, os.path.join(tmp, "v6.db"))
    check(n and before and "warning" not in err and lacks is None,
          "host-tracepoints-v6: %s sched_switch events, %s off-CPU intervals, no warning"
          " (%r), lacks %r" % (n, before, err, lacks))
    v6x = os.path.join(tmp, "v6-nofield.dat")
    edited(v6, b"REC->prev_pid,", b"REC->prev_pix,", v6x)
    after = case("v6-nofield", v6x, n or 0, "sched:sched_switch", 372, NOFIELD,
                 "off-CPU time", tmp)
    check(after == 0, "v6-nofield: %s off-CPU intervals, %s before" % (after, before))

    perf = os.path.join(top, "samples", "host-tracepoints.perf.data")
    n = count_of(info(perf), "sched:sched_switch")
    err, perf_lacks, _ = analyze(perf, os.path.join(tmp, "perf.db"))
    check(n and "warning" not in err,
          "host-tracepoints.perf.data: %s sched_switch events, no warning (%r)" % (n, err))
    perfx = os.path.join(tmp, "name.perf.data")
    edited(perf, b"name: sched_switch", b"name: (ched_switch", perfx)
    case("perf-name", perfx, n or 0, "sched:(ched_switch", 372,
         "libtraceevent could not parse it", None, tmp, perf_lacks)
sys.exit(1 if fails else 0)
