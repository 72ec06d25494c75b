#!/usr/bin/env python3
"""add-options.py IN.dat OUT.dat KIND: a copy of a real trace.dat v7 with
options that no recording of the lab can have, put in front of its own.

A guest's TIME_SHIFT and a host's GUEST option come from trace-cmd's agent
(a host recording its guests over vsock or the network, with a time
synchronisation); the lab's qemu runs under TCG without vsock or a network,
so these options are written here, into a copy of a recording the real
trace-cmd made, and the real trace-cmd of each version reads the copy: its
report is what darc must print. The copy's header points at a new options
section holding the new options, whose DONE option points on to the file's
own first options section (so a compressed file's sections are left as
they are).

KIND (the samples tests/matrix/MANIFEST names):
  shift-interp  TIME_SHIFT, interpolated: per CPU three samples over the
                file's span, the host's clock running at 0.342 of the
                guest's (scaling 1468896094 with 32 fraction bits) and
                offsets that differ between the CPUs and grow with time
  shift-step    TIME_SHIFT, not interpolated: the same samples
  shift-one     TIME_SHIFT with one sample per CPU (an offset, no scaling)
  shift-v2      TIME_SHIFT without the fraction bits (trace-cmd before 3.0:
                scaling 1)
  guest         GUEST (a host's file: guest 'vm1', two vCPUs) and an option
                of an id no trace-cmd knows (77), which darc lists
The CPUs and the span are read from the file by `trace-cmd report -t`
(the host's).
"""
import re
import struct
import subprocess
import sys

SCALING, FRACTION = 1468896094, 32  # 1468896094 / 2**32 = 0.342


def span(path):
    out = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True,
                         check=True, text=True).stdout
    ts = [round(float(m) * 1e9) for m in re.findall(r" (\d+\.\d{9}): ", out)]
    return int(re.match(r"cpus=(\d+)", out).group(1)), min(ts), max(ts)


def option(oid, payload):
    return struct.pack("<HI", oid, len(payload)) + payload


def time_shift(cpus, first, last, kind):
    n = 1 if kind == "shift-one" else 3
    times = [first + (last - first) * i // max(n - 1, 1) - 1000 * (i == 0) for i in range(n)]
    body = struct.pack("<QII", 0x1234ABCD5678EF01, 0 if kind == "shift-step" else 1, cpus)
    for cpu in range(cpus):
        offsets = [-(7_000_000 + 250_000 * cpu) + 40_000 * i * (cpu + 1) for i in range(n)]
        scaling = 1 if kind in ("shift-one", "shift-v2") else SCALING
        body += struct.pack("<I", n)
        body += b"".join(struct.pack("<q", t) for t in times)
        body += b"".join(struct.pack("<q", o) for o in offsets)
        body += b"".join(struct.pack("<q", scaling) for _ in range(n))
    if kind != "shift-v2":
        for cpu in range(cpus):
            frac = 0 if kind == "shift-one" else FRACTION
            body += b"".join(struct.pack("<q", frac) for _ in range(n))
    return option(12, body)


def guest():
    body = b"vm1\0" + struct.pack("<QI", 0x1234ABCD5678EF01, 2)
    body += struct.pack("<IIII", 0, 4242, 1, 4243)
    return option(13, body) + option(77, b"an option of no known id\0")


def main():
    src, dst, kind = sys.argv[1:4]
    data = bytearray(open(src, "rb").read())
    if data[10:12] != b"7\0" or data[12] != 0:
        sys.exit("add-options.py: %s is no little-endian trace.dat v7" % src)
    pos = 12 + 1 + 1 + 4
    for _ in range(2):  # compression name and version
        pos = data.index(0, pos) + 1
    first = struct.unpack_from("<Q", data, pos)[0]
    opts = guest() if kind == "guest" else time_shift(*span(src), kind)
    opts += option(0, struct.pack("<Q", first))
    strid = struct.unpack_from("<I", data, first + 4)[0]
    section = struct.pack("<HHIQ", 0, 0, strid, len(opts)) + opts
    struct.pack_into("<Q", data, pos, len(data))
    open(dst, "wb").write(bytes(data) + section)


main()
