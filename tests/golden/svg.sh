#!/bin/bash
# The plots darc writes (--svg), on the samples: each parsed as XML, its bars
# and peak shading checked against darc's own JSON of the same histogram, and
# each rendered by a real browser (headless Chromium): the screenshot must not
# be blank, and the bars must be drawn in their colour.
# Usage: svg.sh DARC. Exit 0 pass, 1 fail, 77 without python3 or chromium.
set -u
darc=$(realpath "${1:?usage: svg.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
browser=$(command -v chromium || command -v chromium-browser || true)
tmp=$(mktemp -d /tmp/darc-svg.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {
	local what=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok: $what"; else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

cp "$samples/vm-odirect-v7.dat" "$tmp/od.dat"
"$darc" analyze -q -o "$tmp/od.db" "$tmp/od.dat" || exit 1
"$darc" analyze -q -o "$tmp/zr.db" "$samples/vm-zeroread-v7.dat" || exit 1
"$darc" hist "$tmp/od.db" --func vfs_read --json --svg "$tmp/hist.svg" >"$tmp/hist.json"
"$darc" hist "$tmp/od.db" --func vfs_read --interval 10ms --json --svg "$tmp/heat.svg" >"$tmp/heat.json"
"$darc" diff "$tmp/od.db" "$tmp/zr.db" --kind func --pair vfs_read --svg "$tmp/diff.svg" >/dev/null

# XML, and what it holds against the JSON of the same command
svgcheck() { # KIND SVG JSON
	python3 - "$@" <<'PY'
import json, sys, xml.etree.ElementTree as E
kind, svg, js = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(svg).getroot()
rects = [r for r in root.iter(ns + "rect")]
by = lambda c: [r for r in rects if r.get("class") == c]
if kind == "hist":
    j = json.load(open(js))
    want = {b["bucket"]: b["count"] for b in j["buckets"] if b["count"]}
    got = {int(r.get("data-bucket")): int(r.get("data-count")) for r in by("bar")}
    assert got == want, (got, want)
    peaks = [(int(r.get("data-lo")), int(r.get("data-hi"))) for r in by("peak")]
    assert peaks == [(p["lo"], p["hi"]) for p in j["peaks"]] and peaks, peaks
    assert all(float(r.get("height")) > 0 for r in by("bar"))
elif kind == "heat":
    j = json.load(open(js))
    want = sum(len(w["counts"]) for w in j["windows"])
    assert len(by("cell")) == want > 0, (len(by("cell")), want)
    got = sum(int(r.get("data-count")) for r in by("cell"))
    assert got == sum(sum(w["counts"]) for w in j["windows"]) == j["calls"], got
else:  # diff: both sides' bars
    sides = {r.get("data-side") for r in by("bar")}
    assert sides == {"0", "1"}, sides
PY
}
check "hist --svg: XML with one bar per non-empty bucket and the peaks shaded, as --json says" \
	svgcheck hist "$tmp/hist.svg" "$tmp/hist.json"
check "hist --interval --svg: a heat map cell per window and bucket, the counts adding up" \
	svgcheck heat "$tmp/heat.svg" "$tmp/heat.json"
check "diff --svg: the pair's two histograms" svgcheck diff "$tmp/diff.svg"

# a real browser draws them: not blank, the bars in their colour
if [ -z "$browser" ]; then
	echo "skip: no chromium: the plots are not rendered ($pass passed, $fail failed)"
	[ $fail = 0 ] && exit 77
	exit 1
fi
pngcheck() { # PNG: not blank, and dark bar pixels (#264653) present
	python3 - "$1" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
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
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, None, []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
px = [tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]
nonwhite = sum(1 for p in px if p != (255, 255, 255))
bar = sum(1 for p in px if abs(p[0] - 0x26) < 12 and abs(p[1] - 0x46) < 12 and abs(p[2] - 0x53) < 12)
assert nonwhite > 0.02 * len(px), "blank: %d of %d pixels not white" % (nonwhite, len(px))
assert bar > 500, "no bar drawn: %d bar pixels" % bar
print("%d of %d pixels drawn, %d in the bars' colour" % (nonwhite, len(px), bar))
PY
}
for p in hist diff; do
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--screenshot="$tmp/$p.png" --window-size=900,480 "file://$tmp/$p.svg" >/dev/null 2>&1
	check "$p.svg renders in Chromium, not blank: $(pngcheck "$tmp/$p.png" 2>&1 | tail -1)" \
		pngcheck "$tmp/$p.png"
done
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--screenshot="$tmp/heat.png" --window-size=900,480 "file://$tmp/heat.svg" >/dev/null 2>&1
check "heat.svg renders in Chromium" test -s "$tmp/heat.png"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
