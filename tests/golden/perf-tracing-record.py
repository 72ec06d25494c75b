#!/usr/bin/env python3
"""perf-tracing-record.py DARC: perf.data whose tracepoint formats come as a
record of the data section, as simpleperf writes them (issue 22).

perf record keeps the tracing data (the formats, trace.dat v6's metadata) in
the HEADER_TRACING_DATA feature section of a file, and as a
PERF_RECORD_HEADER_TRACING_DATA record (type 66, the data after the record)
in pipe mode. simpleperf (Android) writes it as a record at the start of the
data section of a file, the data inside the record after a u32 size, padded
to 64 bytes: older versions with type 66 (so under 64 KiB: no kallsyms,
which simpleperf keeps in records of its own), newer ones with its own type
32777 (SIMPLE_PERF_RECORD_TRACING_DATA, the 32-bit size split over misc, the
high half, and size; here with the original's kallsyms, over 64 KiB). This script makes such files from
samples/host-tracepoints.perf.data: the feature section is removed (its bit
and its index entry), the record put first in the data section, and every
offset after it moved. darc must read them as the original: the same dump,
event for event, and the same counts in darc info; and a record whose size
says more data than it holds must be one error naming its offset and type.
"""
import os
import struct
import subprocess
import sys
import tempfile

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
orig = os.path.join(top, "samples", "host-tracepoints.perf.data")
HEADER_TRACING_DATA = 1
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def tracing_record(data, rtype):
    """simpleperf's record: header, u32 size, the data padded to 64 bytes."""
    body = struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 64)
    size = 8 + len(body)
    if rtype >= 32768:
        head = struct.pack("<IHH", rtype, size >> 16, size & 0xffff)
    else:
        assert size < 65536, "tracing data too large for a perf record"
        head = struct.pack("<IHH", rtype, 0, size)
    return head + body


def no_kallsyms(td):
    """Tracing data (trace.dat v6's metadata) with an empty kallsyms and
    no saved cmdlines after the printk formats, as simpleperf's
    (it keeps kernel symbols and task names in records of its own)."""
    pos = 10
    pos = td.index(b"\0", pos) + 1 + 2 + 4  # version, endian, long size, page size
    for _ in range(2):  # header_page, header_event: name, u64 size, text
        pos = td.index(b"\0", pos) + 1
        pos += 8 + struct.unpack_from("<Q", td, pos)[0]
    n, = struct.unpack_from("<I", td, pos)  # ftrace formats
    pos += 4
    for _ in range(n):
        pos += 8 + struct.unpack_from("<Q", td, pos)[0]
    systems, = struct.unpack_from("<I", td, pos)
    pos += 4
    for _ in range(systems):
        pos = td.index(b"\0", pos) + 1
        n, = struct.unpack_from("<I", td, pos)
        pos += 4
        for _ in range(n):
            pos += 8 + struct.unpack_from("<Q", td, pos)[0]
    ks, = struct.unpack_from("<I", td, pos)
    pk, = struct.unpack_from("<I", td, pos + 4 + ks)
    printk = td[pos + 4 + ks:pos + 8 + ks + pk]
    return td[:pos] + struct.pack("<I", 0) + printk + struct.pack("<Q", 0)


def simpleperf_layout(buf, rtype, lie=0, damage=None):
    """@buf with its tracing data moved from the feature section into a record
    of type @rtype at the start of the data section; @lie bytes more claimed;
    @damage(data) changes the tracing data first."""
    hsize, = struct.unpack_from("<Q", buf, 8)
    assert hsize == 104, "not a file-mode perf.data"
    doff, dsize = struct.unpack_from("<QQ", buf, 40)
    bits = int.from_bytes(buf[72:104], "little")
    assert bits >> HEADER_TRACING_DATA & 1, "no HEADER_TRACING_DATA section"
    feats = [b for b in range(256) if bits >> b & 1]
    index = doff + dsize
    secs = {f: struct.unpack_from("<QQ", buf, index + 16 * i) for i, f in enumerate(feats)}
    off, size = secs[HEADER_TRACING_DATA]
    td = buf[off:off + size]
    if damage:
        td = damage(td)
    rec = bytearray(tracing_record(td if rtype >= 32768 else no_kallsyms(td), rtype))
    if lie:
        struct.pack_into("<I", rec, 8, len(rec) + lie)
    data = bytes(rec) + buf[doff:doff + dsize]
    rest = [f for f in feats if f != HEADER_TRACING_DATA]
    out = bytearray(buf[:doff]) + data
    pos = len(out) + 16 * len(rest)
    idx, blobs = b"", b""
    for f in rest:
        o, n = secs[f]
        idx += struct.pack("<QQ", pos + len(blobs), n)
        blobs += buf[o:o + n]
    out += idx + blobs
    struct.pack_into("<QQ", out, 40, doff, len(data))
    bits &= ~(1 << HEADER_TRACING_DATA)
    out[72:104] = bits.to_bytes(32, "little")
    return bytes(out)


def run(*args):
    p = subprocess.run([darc] + list(args), capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def counts(info):
    lines = info.decode().split("\n")
    i = lines.index("events by name:") if "events by name:" in lines else len(lines)
    return lines[i:]


buf = open(orig, "rb").read()
rc, want_dump, err = run("dump", orig)
check(rc == 0, "darc dump of the original (%s)" % err.strip())
rc, want_info, _ = run("info", orig)
with tempfile.TemporaryDirectory() as tmp:
    for rtype, what in ((32777, "simpleperf (type 32777)"), (66, "older simpleperf (type 66)")):
        path = os.path.join(tmp, "sp%d.perf.data" % rtype)
        open(path, "wb").write(simpleperf_layout(buf, rtype))
        rc, dump, err = run("dump", path)
        check(rc == 0 and dump == want_dump,
              "%s: darc dump equals the original's (%d lines)%s"
              % (what, dump.count(b"\n"), "" if rc == 0 else ": " + err.strip()))
        rc, info, err = run("info", path)
        check(rc == 0 and counts(info) == counts(want_info) and counts(info),
              "%s: darc info counts the same events" % what)
    path = os.path.join(tmp, "bad.perf.data")
    open(path, "wb").write(simpleperf_layout(buf, 32777, lie=1 << 20))
    rc, _, err = run("info", path)
    doff, = struct.unpack_from("<Q", buf, 40)
    check(rc != 0 and err.count("\n") == 1 and "offset %d" % doff in err and "32777" in err,
          "a record claiming more data than it holds: one error naming offset and type "
          "(%s)" % err.strip())
    # damaged formats: the error says they were in that record
    where = "tracing data record at offset %d (type 32777)" % doff
    for what, damage in (("a bad magic", lambda td: b"\0" + td[1:]),
                         ("formats cut short", lambda td: td[:len(td) // 2])):
        open(path, "wb").write(simpleperf_layout(buf, 32777, damage=damage))
        rc, _, err = run("info", path)
        check(rc != 0 and err.count("\n") == 1 and where in err,
              "%s in the record: one error naming it (%s)" % (what, err.strip()))
sys.exit(1 if fails else 0)
