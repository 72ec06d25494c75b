#!/usr/bin/env python3
"""Small seeds for the uftrace.data fuzz target (tests/fuzz/uftrace.sh).

Usage: uftrace-seeds.py OUTDIR DIR.data...

Each recording directory becomes one archive of its files in the form
fuzz-uftrace.c reads (NAME NUL, u32 little-endian length, the bytes), cut
small: a symbol file (*.sym) keeps its first and last lines, a data file
(TID.dat, perf-cpu*.dat) its first 4 KiB (whole records of 16 bytes),
the text files (info, task.txt, sid-*.map, default.opts) stay whole. A
second seed of each leaves task.txt out, a third the symbol files.
"""
import os
import struct
import sys


def cut(name, data):
    if name.endswith('.sym'):
        lines = data.splitlines(keepends=True)
        return b''.join(lines[:24] + lines[-4:]) if len(lines) > 28 else data
    if name.endswith('.dat'):
        return data[:4096]
    return data


def archive(files):
    out = bytearray()
    for name, data in files:
        out += name.encode() + b'\0' + struct.pack('<I', len(data)) + data
    return bytes(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for d in sys.argv[2:]:
        files = []
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), 'rb') as f:
                files.append((name, cut(name, f.read())))
        variants = (files,
                    [f for f in files if f[0] != 'task.txt'],
                    [f for f in files if not f[0].endswith('.sym')])
        for v in variants:
            with open(os.path.join(outdir, 'seed-uftrace-%d' % n), 'wb') as f:
                f.write(archive(v))
            n += 1
    print('%d seeds' % n)


if __name__ == '__main__':
    main()
