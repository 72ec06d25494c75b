#!/usr/bin/env python3
"""Is a screenshot drawn? Decodes a PNG (8-bit RGB or RGBA, any filter) with
zlib alone and checks it is not blank: the share of pixels that are not the
background (the most common colour) and how many colours there are; with
--colour, how many pixels are near that colour.

usage: png.py PNG [--top ROW] [--min-drawn SHARE] [--min-colours N]
              [--colour RRGGBB --min-colour-px N]
(--top: only the rows from ROW down count, e.g. below a toolbar.)
Prints one line of counts; exit 1 (and says why) if the picture falls short.
"""
import argparse
import collections
import struct
import sys
import zlib


def pixels(path, top):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos + 8])
        c = d[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", c[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif t == b"IDAT":
            idat += c
        pos += 12 + n
    raw, stride, prev = zlib.decompress(idat), w * bpp, None
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i] if prev else 0
            c = prev[i - bpp] if prev and i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        for i in range(0, stride if y >= top else 0, bpp):
            yield tuple(line[i:i + 3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--min-drawn", type=float, default=0.02)
    ap.add_argument("--min-colours", type=int, default=1)
    ap.add_argument("--colour")
    ap.add_argument("--min-colour-px", type=int, default=500)
    a = ap.parse_args()
    count = collections.Counter(pixels(a.png, a.top))
    total = sum(count.values())
    bg, nbg = count.most_common(1)[0]
    drawn = total - nbg
    msg = "%s%d of %d pixels drawn on %s, %d colours" % ("below row %d: " % a.top if a.top else "", drawn, total, "#%02x%02x%02x" % bg,
                                                          len(count))
    bad = []
    if drawn < a.min_drawn * total:
        bad.append("blank: under %g%% of the pixels drawn" % (100 * a.min_drawn))
    if len(count) < a.min_colours:
        bad.append("under %d colours" % a.min_colours)
    if a.colour:
        want = [int(a.colour[i:i + 2], 16) for i in (0, 2, 4)]
        near = sum(n for p, n in count.items() if all(abs(p[k] - want[k]) < 12 for k in range(3)))
        msg += ", %d in #%s" % (near, a.colour)
        if near < a.min_colour_px:
            bad.append("under %d pixels in #%s" % (a.min_colour_px, a.colour))
    print(msg + ("; " + "; ".join(bad) if bad else ""))
    sys.exit(1 if bad else 0)


main()
