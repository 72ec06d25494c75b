#!/usr/bin/env python3
"""repeat-v6.py IN.dat OUT.dat N: a trace.dat v6 whose per-CPU data is IN's
repeated N times, each copy shifted in time past the previous one (page
header timestamps moved; events inside pages are deltas). For memory
benchmarks at N times the events without recording again. Top buffer only."""
import struct, sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
assert data[:10] == b'\x17\x08\x44tracing' and data[10:12] == b'6\x00', 'not a v6 trace.dat'
psize = struct.unpack_from('<I', data, 14)[0]
# the CPU table follows the last "flyrecord\0" whose entries are page aligned
pos = data.rfind(b'flyrecord\x00', 0, 1 << 30)
ncpu = None
for cand in range(1, 4097):
    ok = True
    for i in range(cand):
        off, size = struct.unpack_from('<QQ', data, pos + 10 + 16 * i)
        if off % psize or size % psize or off + size > len(data):
            ok = False
            break
    if not ok:
        ncpu = cand - 1
        break
table = [struct.unpack_from('<QQ', data, pos + 10 + 16 * i) for i in range(ncpu)]
first = min(struct.unpack_from('<Q', data, o)[0] for o, s in table if s)
last = max(struct.unpack_from('<Q', data, o + s - psize)[0] for o, s in table if s)
span = last - first + 1000000000  # each copy starts 1 s after the previous ends
head_end = max(pos + 10 + 16 * ncpu, 0)
out = bytearray(data[:min(o for o, s in table)])
newtab = []
for o, s in table:
    start = len(out)
    for k in range(n):
        chunk = bytearray(data[o:o + s])
        for p in range(0, s, psize):
            ts = struct.unpack_from('<Q', chunk, p)[0]
            struct.pack_into('<Q', chunk, p, ts + k * span)
        out += chunk
    newtab.append((start, s * n))
for i, (o, s) in enumerate(newtab):
    struct.pack_into('<QQ', out, pos + 10 + 16 * i, o, s)
open(dst, 'wb').write(out)
print(f'{dst}: {ncpu} cpus, {n} copies, {len(out)} bytes')
