#!/usr/bin/env python3
"""Small seeds for the trace.dat fuzz target (tests/fuzz/tracedat.sh).

Usage: tracedat-seeds.py OUTDIR SAMPLE.dat...

Each sample (v6 or v7, any compression) is read whole and rewritten small:
the formats of the events its kept pages hold, a few lines of kallsyms,
printk formats and cmdlines, its plain options (uname, version, clock,
cpustat, ...), and a few ring-buffer pages per CPU (from the start, and from
the middle of the recording). Each piece is written as trace-cmd would lay
it out, several ways: v6, v6 with a second buffer (an instance), v7
uncompressed, v7 zstd, v7 zlib, v7 with an instance, and v6 and v7 zstd in
the other byte order (page and event headers, common_type and common_pid
swapped; the events' own fields stay as recorded), so that the fuzzer starts
from every path of the reader with inputs of a few KiB.
"""
import ctypes
import ctypes.util
import os
import struct
import sys
import zlib

MAGIC = b'\x17\x08\x44tracing'
OPT_DONE, OPT_BUFFER, OPT_STRINGS = 0, 3, 15
SEC_IDS = (16, 17, 18, 19, 20, 21)  # header info, ftrace, events, kallsyms, printk, cmdlines
PLAIN_OPTS = (1, 2, 4, 5, 7, 8, 9, 11, 14)  # date cpustat clock uname offset cpucount version...


class Zstd:
    """libzstd through ctypes (python3 has no zstd module of its own)."""

    def __init__(self):
        name = ctypes.util.find_library('zstd') or 'libzstd.so.1'
        self.lib = ctypes.CDLL(name)
        self.lib.ZSTD_compressBound.restype = ctypes.c_size_t
        self.lib.ZSTD_compress.restype = ctypes.c_size_t
        self.lib.ZSTD_decompress.restype = ctypes.c_size_t
        self.lib.ZSTD_isError.restype = ctypes.c_uint
        self.lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
        self.lib.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                           ctypes.c_size_t, ctypes.c_int]
        self.lib.ZSTD_decompress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                             ctypes.c_size_t]

    def compress(self, b):
        cap = self.lib.ZSTD_compressBound(len(b))
        out = ctypes.create_string_buffer(cap)
        n = self.lib.ZSTD_compress(out, cap, b, len(b), 3)
        if self.lib.ZSTD_isError(n):
            raise ValueError('zstd compress failed')
        return out.raw[:n]

    def decompress(self, b, usize):
        out = ctypes.create_string_buffer(max(usize, 1))
        n = self.lib.ZSTD_decompress(out, usize, b, len(b))
        if self.lib.ZSTD_isError(n) or n != usize:
            raise ValueError('zstd decompress failed')
        return out.raw[:usize]


ZSTD = Zstd()
CODECS = {
    'zstd': (ZSTD.compress, ZSTD.decompress),
    'zlib': (zlib.compress, lambda b, n: zlib.decompress(b)),
}


class Rd:
    def __init__(self, b, off=0, end='<'):
        self.b, self.o, self.e = b, off, end

    def num(self, fmt):
        v = struct.unpack_from(self.e + fmt, self.b, self.o)[0]
        self.o += struct.calcsize(fmt)
        return v

    def bytes(self, n):
        v = self.b[self.o:self.o + n]
        if len(v) != n:
            raise ValueError('truncated')
        self.o += n
        return v

    def str(self):
        e = self.b.index(b'\0', self.o)
        v = self.b[self.o:e]
        self.o = e + 1
        return v


class Trace:
    """What a sample holds, with its first buffer's pages decompressed."""

    def header_info(self, d):
        d.bytes(12)
        self.header_page = d.bytes(d.num('Q'))
        d.bytes(13)
        self.header_event = d.bytes(d.num('Q'))

    def formats(self, d):
        self.ftrace = [d.bytes(d.num('Q')) for _ in range(d.num('I'))]

    def systems(self, d):
        self.events = []
        for _ in range(d.num('I')):
            name = d.str()
            self.events.append((name, [d.bytes(d.num('Q')) for _ in range(d.num('I'))]))

    def kallsyms(self, d):
        self.ksyms = d.bytes(d.num('I'))

    def printk(self, d):
        self.printks = d.bytes(d.num('I'))

    def cmdlines(self, d):
        self.cmds = d.bytes(d.num('Q'))

    def __init__(self, b):
        if b[:10] != MAGIC:
            raise ValueError('not a trace.dat')
        d = Rd(b, 10)
        self.version = int(d.str())
        self.endian = '>' if d.bytes(1) == b'\1' else '<'
        self.lsize = d.bytes(1)[0]
        d.e = self.endian
        self.psize = d.num('I')
        self.opts, self.cpus, self.clock = [], [], b'local'
        if self.version == 6:
            self.read_v6(b, d)
        else:
            self.read_v7(b, d)
        hp = self.header_page
        self.klong = 4 if b'commit;\toffset:8;\tsize:4;' in hp else 8

    def read_v6(self, b, d):
        for step in (self.header_info, self.formats, self.systems, self.kallsyms,
                     self.printk, self.cmdlines):
            step(d)
        ncpu = d.num('I')
        tag = d.bytes(10)
        if tag == b'options  \0':
            while True:
                oid = d.num('H')
                if oid == OPT_DONE:
                    break
                body = d.bytes(d.num('I'))
                if oid in PLAIN_OPTS:
                    self.opts.append((oid, body))
            tag = d.bytes(10)
        for cpu in range(ncpu):
            off, size = d.num('Q'), d.num('Q')
            self.cpus.append((cpu, b[off:off + size]))

    def section(self, b, off):
        d = Rd(b, off, self.endian)
        d.num('H')
        flags = d.num('H')
        d.num('I')
        body = d.bytes(d.num('Q'))
        if flags & 1:
            c = Rd(body, 0, self.endian)
            csize, usize = c.num('I'), c.num('I')
            body = self.codec[1](c.bytes(csize), usize)
        return Rd(body, 0, self.endian)

    def read_v7(self, b, d):
        self.comp = d.str().decode()
        d.str()
        self.codec = CODECS.get(self.comp)
        off, secs, buf = d.num('Q'), {}, None
        while off:
            o, off = self.section(b, off), 0
            while True:
                oid, body = o.num('H'), o.bytes(o.num('I'))
                if oid == OPT_DONE:
                    off = struct.unpack(self.endian + 'Q', body[:8])[0]
                    break
                if oid in SEC_IDS:
                    secs[oid] = struct.unpack(self.endian + 'Q', body[:8])[0]
                elif oid == OPT_BUFFER and buf is None:
                    buf = body
                elif oid in PLAIN_OPTS:
                    self.opts.append((oid, body))
        steps = (self.header_info, self.formats, self.systems, self.kallsyms,
                 self.printk, self.cmdlines)
        for sid, step in zip(SEC_IDS, steps):
            step(self.section(b, secs[sid]))
        self.read_buffer_v7(b, Rd(buf, 0, self.endian))

    def read_buffer_v7(self, b, o):
        doff = o.num('Q')
        o.str()
        self.clock = o.str()
        o.num('I')
        flags = struct.unpack_from(self.endian + 'H', b, doff + 2)[0]
        for _ in range(o.num('I')):
            cpu, off, size = o.num('I'), o.num('Q'), o.num('Q')
            if not flags & 1:
                self.cpus.append((cpu, b[off:off + size]))
                continue
            c, pages = Rd(b, off, self.endian), b''
            for _ in range(c.num('I')):
                csize, usize = c.num('I'), c.num('I')
                pages += self.codec[1](c.bytes(csize), usize)
            self.cpus.append((cpu, pages))


def page_events(t, page):
    """(absolute time, record bytes) of each event of one ring-buffer page."""
    hdr = 8 + t.klong
    ts, commit = struct.unpack_from(t.endian + ('QQ' if t.klong == 8 else 'QI'), page, 0)
    o, end = hdr, min(hdr + (commit & ((1 << 27) - 1)), len(page))
    while o + 8 <= end:
        w, arg = struct.unpack_from(t.endian + 'II', page, o)
        tl, delta = (w & 31, w >> 5) if t.endian == '<' else (w >> 27, w & ((1 << 27) - 1))
        size = 4 + arg if tl in (0, 29) else 8 if tl >= 30 else 4 + 4 * tl
        if size < 8 or o + size > end:
            return
        if tl == 30:
            ts += (arg << 27) + delta
        elif tl == 31:
            ts = (arg << 27) + delta
        elif tl != 29:
            ts += delta
            yield ts, page[o:o + size]
        o += size


def event_id(t, rec):
    w = struct.unpack_from(t.endian + 'I', rec, 0)[0]
    tl = w & 31 if t.endian == '<' else w >> 27
    return struct.unpack_from(t.endian + 'H', rec, 8 if tl == 0 else 4)[0]


def with_delta(t, rec, delta, e):
    """Record @rec with time delta @delta, in byte order @e: its header, its
    length and its common_type and common_pid (the rest stays as recorded)."""
    w = struct.unpack_from(t.endian + 'I', rec, 0)[0]
    tl = w & 31 if t.endian == '<' else w >> 27
    w = tl | delta << 5 if e == '<' else tl << 27 | delta
    out = bytearray(struct.pack(e + 'I', w) + rec[4:])
    data = 4
    if tl == 0:
        struct.pack_into(e + 'I', out, 4, struct.unpack_from(t.endian + 'I', rec, 4)[0])
        data = 8
    for fmt, at in (('H', data), ('i', data + 4)):
        if at + struct.calcsize(fmt) <= len(rec):
            struct.pack_into(e + fmt, out, at, struct.unpack_from(t.endian + fmt, rec, at)[0])
    return bytes(out)


def repack(t, events, psize, npages, e):
    """@events in at most @npages pages of @psize bytes and byte order @e
    (deltas recomputed), and how many of them fit."""
    hdr, out, i = 8 + t.klong, b'', 0
    for _ in range(npages):
        if i == len(events):
            break
        base, body = events[i][0], b''
        prev = base
        while i < len(events):
            ts, rec = events[i]
            delta = ts - prev
            ext = b''
            if delta >= 1 << 27:  # a time extend record carries the high bits
                lo, hi = delta & ((1 << 27) - 1), delta >> 27
                w = 30 | lo << 5 if e == '<' else 30 << 27 | lo
                ext, delta = struct.pack(e + 'II', w, hi), 0
            if hdr + len(body) + len(ext) + len(rec) > psize:
                break
            body += ext + with_delta(t, rec, delta, e)
            prev = ts
            i += 1
        out += struct.pack(e + ('QQ' if t.klong == 8 else 'QI'), base, len(body))
        out += body + b'\0' * (psize - hdr - len(body))
    return out, i


def fmt_id(text):
    for line in text.split(b'\n'):
        if line.startswith(b'ID: '):
            return int(line[4:])
    return -1


def lines(b, n):
    return b''.join(l + b'\n' for l in b.split(b'\n')[:n] if l)


class Piece:
    """
    A small copy of a Trace: the events of @npages pages per CPU from page
    @first, in pages of @psize bytes (the sample's own, or smaller ones they
    are packed into, so that a piece is small and still holds a few pages),
    in byte order @e ('<' or '>'; another than the sample's needs repacking).
    """

    def __init__(self, t, first, npages, psize, e=None):
        self.t, self.psize, self.e = t, psize, e or t.endian
        self.cpus = []
        ids = set()
        for cpu, pages in t.cpus:
            total = len(pages) // t.psize
            f = min(first, max(total - npages, 0))
            kept = pages[f * t.psize:(f + npages) * t.psize]
            if psize != t.psize or self.e != t.endian:
                evs = [ev for i in range(0, len(kept), t.psize)
                       for ev in page_events(t, kept[i:i + t.psize])]
                kept, n = repack(t, evs, psize, npages, self.e)
                ids |= {event_id(t, rec) for _, rec in evs[:n]}
            else:
                for i in range(0, len(kept), psize):
                    ids |= {event_id(t, rec) for _, rec in page_events(t, kept[i:i + psize])}
            self.cpus.append((cpu, kept))
        self.ftrace = [f for f in t.ftrace if fmt_id(f) in ids]
        self.events = [(s, k) for s, k in
                       ((s, [f for f in fl if fmt_id(f) in ids]) for s, fl in t.events) if k]
        # a few kallsyms, with module ones (kmod.c) if any
        ks = t.ksyms.split(b'\n')
        mods = [l for l in ks if b'\t[' in l][:6]
        self.ksyms = lines(b'\n'.join(ks[:24] + mods), 40)
        self.printk = lines(t.printks, 12)
        self.cmds = lines(t.cmds, 6)
        old = b'size:%d;' % (t.psize - 8 - t.klong)
        self.header_page = t.header_page.replace(old, b'size:%d;' % (psize - 8 - t.klong))

    def u(self, fmt, *v):
        return struct.pack(self.e + fmt, *v)

    def header_info(self):
        return (b'header_page\0' + self.u('Q', len(self.header_page)) + self.header_page +
                b'header_event\0' + self.u('Q', len(self.t.header_event)) + self.t.header_event)

    def ftrace_sec(self):
        return self.u('I', len(self.ftrace)) + b''.join(self.u('Q', len(f)) + f
                                                        for f in self.ftrace)

    def events_sec(self):
        out = self.u('I', len(self.events))
        for s, fl in self.events:
            out += s + b'\0' + self.u('I', len(fl))
            out += b''.join(self.u('Q', len(f)) + f for f in fl)
        return out

    def meta(self):
        """Header info, formats, kallsyms, printk, cmdlines: v7's section bodies."""
        return [self.header_info(), self.ftrace_sec(), self.events_sec(),
                self.u('I', len(self.ksyms)) + self.ksyms,
                self.u('I', len(self.printk)) + self.printk,
                self.u('Q', len(self.cmds)) + self.cmds]

    def plain_opts(self):
        """The sample's plain options, their numbers in this piece's byte order."""
        out = b''
        for oid, body in self.t.opts:
            fmt = {8: 'I', 11: 'Q', 14: 'IIQ'}.get(oid)
            if fmt and len(body) >= struct.calcsize(fmt):
                n = struct.calcsize(fmt)
                body = self.u(fmt, *struct.unpack_from(self.t.endian + fmt, body)) + body[n:]
            out += self.opt(oid, body)
        return out

    def opt(self, oid, body):
        return self.u('HI', oid, len(body)) + body

    def start(self, version):
        t = self.t
        return (MAGIC + str(version).encode() + b'\0' + (b'\1' if self.e == '>' else b'\0') +
                bytes([t.lsize]) + self.u('I', self.psize))

    def align(self, n):
        return -n % self.psize

    def v6(self, instance):
        """v6: metadata inline, options, the CPU table, page-aligned data."""
        t = self.t
        ncpu = len(self.cpus)
        head = self.start(6) + b''.join(self.meta()) + self.u('I', ncpu) + b'options  \0'
        opts = self.plain_opts()
        inst_opt = lambda off: self.opt(OPT_BUFFER, self.u('Q', off) + b'inst\0')
        table_len = 10 + 16 * ncpu
        pre = len(head) + len(opts) + (len(inst_opt(0)) if instance else 0) + 2
        data_at = pre + table_len
        data_at += self.align(data_at)
        offs, o = [], data_at
        for _, pages in self.cpus:
            offs.append(o)
            o += len(pages)
        inst_at = o
        inst_data = inst_at + table_len + self.align(inst_at + table_len)
        out = head + opts + (inst_opt(inst_at) if instance else b'') + self.u('H', OPT_DONE)
        out += b'flyrecord\0' + b''.join(self.u('QQ', offs[i], len(p))
                                         for i, (_, p) in enumerate(self.cpus))
        out += b'\0' * self.align(len(out)) + b''.join(p for _, p in self.cpus)
        if instance:
            o = inst_data
            out += b'flyrecord\0'
            for _, p in self.cpus:
                out += self.u('QQ', o, len(p))
                o += len(p)
            out += b'\0' * self.align(len(out)) + b''.join(p for _, p in self.cpus)
        return out

    def section(self, sid, body, comp, size=0):
        """Section @sid of @body; @size pads it (the reader skips a compressed one's tail)."""
        flags = 0
        if comp:
            body = self.u('II', len(c := CODECS[comp][0](body)), len(body)) + c
            flags = 1
        body += b'\0' * (size - 16 - len(body))
        return self.u('HHIQ', sid, flags, 0, len(body)) + body

    def flyrecord(self, at, comp):
        """A buffer's data section at file offset @at: its bytes and CPU table."""
        body, table = b'', []
        hdr = 16
        if not comp:
            hdr += self.align(at + hdr)
        for cpu, pages in self.cpus:
            if comp:
                chunks = [pages[i:i + self.psize] for i in range(0, len(pages), self.psize)]
                data = self.u('I', len(chunks))
                for ch in chunks:
                    c = CODECS[comp][0](ch)
                    data += self.u('II', len(c), len(ch)) + c
                table.append((cpu, at + hdr + len(body), len(data) - 4))
            else:
                data = pages
                table.append((cpu, at + hdr + len(body), len(data)))
            body += data
        sec = self.u('HHIQ', OPT_BUFFER, 1 if comp else 0, 0, len(body))
        return sec + b'\0' * (hdr - 16) + body, table

    def buffer_opt(self, name, at, table):
        body = self.u('Q', at) + name + b'\0' + self.t.clock + b'\0'
        body += self.u('II', self.psize, len(table))
        body += b''.join(self.u('IQQ', *e) for e in table)
        return self.opt(OPT_BUFFER, body)

    def v7(self, comp, instance):
        """v7: metadata sections, the data, two chained options sections, strings."""
        name = (comp or 'none').encode()
        out = self.start(7) + name + b'\0' + (b'1.5.4\0' if comp else b'\0')
        opt_at = len(out)
        out += self.u('Q', 0)  # the first options section's offset, set at the end
        secs = []
        for sid, body in zip(SEC_IDS, self.meta()):
            secs.append(len(out))
            out += self.section(sid, body, comp)
        bopts = b''
        for n in [b''] + ([b'inst'] if instance else []):
            d, table = self.flyrecord(len(out), comp)
            bopts += self.buffer_opt(n, len(out), table)
            out += d
        first = b''.join(self.opt(sid, self.u('Q', o)) for sid, o in zip(SEC_IDS, secs))
        first += self.plain_opts()
        first_at = len(out)
        # the chained offset can change the compressed size: pad to the larger
        size = len(self.section(0, first + self.opt(OPT_DONE, self.u('Q', 0)), comp)) + 64
        sec = self.section(0, first + self.opt(OPT_DONE, self.u('Q', first_at + size)), comp,
                           size)
        if len(sec) != size:
            return None
        out += sec + self.section(0, bopts + self.opt(OPT_DONE, self.u('Q', 0)), comp)
        out += self.section(OPT_STRINGS, b'options\0headers\0flyrecord\0', comp)
        return out[:opt_at] + self.u('Q', first_at) + out[opt_at + 8:]


def variants(t):
    """(suffix, bytes) of each small copy of @t (none of a file without CPU data)."""
    if not t.cpus:
        return
    total = max(len(p) for _, p in t.cpus) // t.psize
    # the first events in 512-byte pages, every layout
    p = Piece(t, 0, 3, 512)
    yield 'a-v6', p.v6(False)
    yield 'a-v6-inst', p.v6(True)
    yield 'a-v7-inst', p.v7('zstd', True)
    for comp in (None, 'zstd', 'zlib'):
        yield 'a-v7-%s' % (comp or 'none'), p.v7(comp, False)
    # and big-endian, as a big-endian machine writes it
    p = Piece(t, 0, 3, 512, '>' if t.endian == '<' else '<')
    yield 'a-v6-swap', p.v6(False)
    yield 'a-v7-zstd-swap', p.v7('zstd', False)
    # a page from the middle as recorded, compressed as trace-cmd would
    p = Piece(t, total // 2, 1, t.psize)
    yield 'm-v6', p.v6(False)
    yield 'm-v7-zstd', p.v7('zstd', False)


def main():
    outdir = sys.argv[1]
    for f in sys.argv[2:]:
        t = Trace(open(f, 'rb').read())
        base = os.path.basename(f).replace('.dat', '')
        if not t.cpus:
            continue  # its events all in an instance (host-print): no top-buffer pages to cut
        for suffix, b in variants(t):
            if b is not None:
                open(os.path.join(outdir, '%s-%s.dat' % (base, suffix)), 'wb').write(b)


if __name__ == '__main__':
    main()
