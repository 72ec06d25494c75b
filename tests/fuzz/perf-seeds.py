#!/usr/bin/env python3
"""Small seeds for the perf.data fuzz target (tests/fuzz/perf.sh).

Usage: perf-seeds.py OUTDIR SAMPLE.perf.data...

Each file-mode sample is rewritten small: its attrs, the first records of
its data (up to about 6 KB), and its features, with the tracing data cut to
the formats of the sampled events (no ftrace formats, kallsyms or printk
formats, three cmdlines). Each is written in file mode and in pipe mode, so
the fuzzer spends its time in the reader rather than in copying metadata.
"""
import os
import shutil
import struct
import sys

F_TRACING = 1
KEEP_FEATS = (1, 3, 4, 5, 6, 7, 11, 23)


def u32(b, o):
    return struct.unpack_from('<I', b, o)[0]


def u64(b, o):
    return struct.unpack_from('<Q', b, o)[0]


def cstr(b, o):
    e = b.index(b'\0', o)
    return b[o:e], e + 1


def small_tracing(t, ids):
    """The tracing data with only the event formats whose ID is in ids."""
    o = 10
    _, o = cstr(t, o)
    o += 6
    head_end = o
    for _ in range(2):  # header_page, header_event
        _, o = cstr(t, o)
        o += 8 + u64(t, o)
    out = t[:o] + struct.pack('<I', 0)  # no ftrace formats
    n = u32(t, o)
    o += 4
    for _ in range(n):
        o += 8 + u64(t, o)
    nsys = u32(t, o)
    o += 4
    systems = []
    for _ in range(nsys):
        name, o = cstr(t, o)
        cnt = u32(t, o)
        o += 4
        fmts = []
        for _ in range(cnt):
            size = u64(t, o)
            text = t[o + 8:o + 8 + size]
            o += 8 + size
            idl = [l for l in text.split(b'\n') if l.startswith(b'ID: ')]
            if idl and int(idl[0][4:]) in ids:
                fmts.append(text)
        if fmts:
            systems.append((name, fmts))
    out += struct.pack('<I', len(systems))
    for name, fmts in systems:
        out += name + b'\0' + struct.pack('<I', len(fmts))
        for f in fmts:
            out += struct.pack('<Q', len(f)) + f
    o += 4 + u32(t, o)  # kallsyms
    o += 4 + u32(t, o)  # printk
    size = u64(t, o)
    cmd = b'\n'.join(t[o + 8:o + 8 + size].split(b'\n')[:3]) + b'\n'
    del head_end
    return out + struct.pack('<I', 0) + struct.pack('<I', 0) + struct.pack('<Q', len(cmd)) + cmd


def parse(b):
    attr_size = u64(b, 16)
    aoff, asize, doff, dsize = u64(b, 24), u64(b, 32), u64(b, 40), u64(b, 48)
    bits = [u64(b, 72 + 8 * i) for i in range(4)]
    attrs = []
    for i in range(asize // attr_size):
        a = b[aoff + i * attr_size:aoff + (i + 1) * attr_size - 16]
        ioff, isz = u64(b, aoff + (i + 1) * attr_size - 16), u64(b, aoff + (i + 1) * attr_size - 8)
        attrs.append((a, b[ioff:ioff + isz]))
    recs, o = [], doff
    while o < doff + dsize and o - doff < 6000:
        size = struct.unpack_from('<H', b, o + 6)[0]
        recs.append(b[o:o + size])
        o += size
    feats, o = {}, doff + dsize
    for fid in range(256):
        if bits[fid // 64] >> (fid % 64) & 1:
            off, size = u64(b, o), u64(b, o + 8)
            o += 16
            if fid in KEEP_FEATS:
                feats[fid] = b[off:off + size]
    ids = {u64(a, 8) for a, _ in attrs if u32(a, 0) == 2}
    if F_TRACING not in feats:
        return None  # no tracepoints: a seed of the refusal is the file itself
    feats[F_TRACING] = small_tracing(feats[F_TRACING], ids)
    return attrs, recs, feats


def file_mode(attrs, recs, feats):
    attr_size = len(attrs[0][0]) + 16
    aoff = 104
    idoff = aoff + attr_size * len(attrs)
    idblob, attrblob = b'', b''
    for a, ids in attrs:
        attrblob += a + struct.pack('<QQ', idoff + len(idblob), len(ids))
        idblob += ids
    doff = idoff + len(idblob)
    data = b''.join(recs)
    bits = [0, 0, 0, 0]
    for fid in feats:
        bits[fid // 64] |= 1 << (fid % 64)
    table_off = doff + len(data)
    body_off = table_off + 16 * len(feats)
    table, bodies = b'', b''
    for fid in sorted(feats):
        table += struct.pack('<QQ', body_off + len(bodies), len(feats[fid]))
        bodies += feats[fid]
    hdr = b'PERFILE2' + struct.pack('<QQ', 104, attr_size)
    hdr += struct.pack('<QQQQQQ', aoff, len(attrblob), doff, len(data), 0, 0)
    hdr += struct.pack('<4Q', *bits)
    return hdr + attrblob + idblob + data + table + bodies


def pipe_mode(attrs, recs, feats):
    out = b'PERFILE2' + struct.pack('<Q', 16)
    for a, ids in attrs:
        out += struct.pack('<IHH', 64, 0, 8 + len(a) + len(ids)) + a + ids
    for fid in sorted(feats):
        if fid == F_TRACING:
            t = feats[fid] + b'\0' * (-len(feats[fid]) % 8)
            out += struct.pack('<IHHI4x', 66, 0, 16, len(t)) + t
        else:
            out += struct.pack('<IHHQ', 80, 0, 16 + len(feats[fid]), fid) + feats[fid]
    return out + b''.join(recs)


def main():
    outdir = sys.argv[1]
    for f in sys.argv[2:]:
        b = open(f, 'rb').read()
        if b[:8] != b'PERFILE2' or u64(b, 8) != 104:
            continue
        parts = parse(b)
        if not parts:
            shutil.copy(f, outdir)
            continue
        name = os.path.basename(f).replace('.perf.data', '')
        open(os.path.join(outdir, name + '-small.perf.data'), 'wb').write(file_mode(*parts))
        open(os.path.join(outdir, name + '-small-pipe.perf.data'), 'wb').write(pipe_mode(*parts))


if __name__ == '__main__':
    main()
