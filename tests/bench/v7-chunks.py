#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the compressed flyrecord chunks of a trace.dat v7 file, one after the
other, as one multi-frame zstd (or zlib) stream, so that `zstd -d` can be timed
on exactly the data a reader of the file decompresses.

usage: v7-chunks.py TRACE_DAT OUT

Where each CPU's data lies comes from `trace-cmd dump --options` (its
"id, data offset and size" lines); each CPU's data is a 32-bit chunk count,
then per chunk its compressed and uncompressed sizes (32 bits each) and its
compressed bytes. Prints the chunks, and the compressed and uncompressed bytes.
"""
import re
import struct
import subprocess
import sys


def cpu_data(path):
    out = subprocess.run(["trace-cmd", "dump", "--options", "-i", path],
                         capture_output=True, text=True, check=True).stdout
    spans = re.findall(r"^\s*\d+ (\d+)\s+(\d+)\s+\[id, data offset and size\]", out, re.M)
    if not spans:
        sys.exit(f"v7-chunks.py: {path}: no flyrecord CPU data in trace-cmd dump --options")
    return sorted({(int(o), int(s)) for o, s in spans})


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: v7-chunks.py TRACE_DAT OUT")
    path, out = sys.argv[1:]
    data = open(path, "rb").read()
    chunks = csum = usum = 0
    with open(out, "wb") as w:
        for off, size in cpu_data(path):
            end = off + 4 + size  # the size trace-cmd records leaves out the count
            (count,) = struct.unpack_from("<I", data, off)
            p = off + 4
            for _ in range(count):
                cs, us = struct.unpack_from("<II", data, p)
                p += 8
                if p + cs > end:
                    sys.exit(f"v7-chunks.py: {path}: a chunk runs past its CPU's data")
                w.write(data[p:p + cs])
                p += cs
                chunks += 1
                csum += cs
                usum += us
    print(chunks, csum, usum)


main()
