#!/usr/bin/env python3
"""info-skipped.py DARC: what darc passes over on purpose is counted in darc
info (issue 22), never silently.

For every samples/*.perf.data that darc reads, this script walks the
records itself (file mode: the data section; pipe mode: everything after the
16-byte header) and counts those darc has no use for: the kernel's records
other than SAMPLE, COMM, FORK, LOST and LOST_SAMPLES (types below 64: MMAP,
EXIT, THROTTLE...) and simpleperf's own (32768 and up). Its count must be
the one darc info prints as "records not needed". The samples of events
that are no tracepoint (samples/host-mixed.perf.data: cpu-clock sampled
beside sched_switch) must be counted as perf script counts them (skipped
without perf). JSON (darc info --json) must hold the same counts.
"""
import collections
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
USED = {2, 3, 7, 9, 13}  # LOST, COMM, FORK, SAMPLE, LOST_SAMPLES
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def not_needed(buf):
    """Records darc does not need, walked here from the file's own sizes."""
    hsize, = struct.unpack_from("<Q", buf, 8)
    if hsize == 16:
        pos, end = 16, len(buf)
    else:
        pos, size = struct.unpack_from("<QQ", buf, 40)
        end = pos + size
    n = 0
    while pos < end:
        rtype, misc, size = struct.unpack_from("<IHH", buf, pos)
        if rtype >= 32768:
            size |= misc << 16
        step = size
        if rtype == 66 and size <= 16:  # perf's tracing data follows its record
            data, = struct.unpack_from("<I", buf, pos + 8)
            step += (data + 7) & ~7
        n += (rtype < 64 and rtype not in USED) or (rtype >= 32768 and rtype != 32777)
        pos += step
    return n


for f in sorted(glob.glob(os.path.join(top, "samples", "*.perf.data"))):
    name = os.path.basename(f)
    p = subprocess.run([darc, "info", f], capture_output=True, text=True)
    if p.returncode != 0:
        continue  # refused: perf-vs-perfscript.py checks why
    want = not_needed(open(f, "rb").read())
    m = re.search(r"(\d+) records not needed", p.stdout)
    got = int(m.group(1)) if m else 0
    check(got == want, "%s: %d records not needed, walked here: %d" % (name, got, want))
    j = json.loads(subprocess.run([darc, "info", "--json", f], capture_output=True,
                                  text=True).stdout)
    check(j["skipped"]["records"] == want, "%s: the JSON says %d" % (name, j["skipped"]["records"]))

mixed = os.path.join(top, "samples", "host-mixed.perf.data")
p = subprocess.run([darc, "info", mixed], capture_output=True, text=True)
m = re.search(r"(\d+) samples of events that are no tracepoint", p.stdout)
got = int(m.group(1)) if m else 0
if shutil.which("perf"):
    ps = subprocess.run(["perf", "script", "-i", mixed, "-F", "event"], capture_output=True,
                        text=True).stdout
    events = collections.Counter(l.strip().rstrip(":") for l in ps.splitlines() if l.strip())
    want = sum(n for e, n in events.items() if ":" not in e)
    check(want > 0 and got == want,
          "host-mixed: %d samples of other events skipped, perf script has %d" % (got, want))
    m = re.search(r"^events: +(\d+)$", p.stdout, re.M)
    tp = sum(n for e, n in events.items() if ":" in e)
    check(m and int(m.group(1)) == tp, "host-mixed: %s tracepoint events, perf script has %d"
          % (m.group(1) if m else "?", tp))
else:
    print("skip: perf not installed (host-mixed's samples against perf script)")
sys.exit(1 if fails else 0)
