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
"$darc" diff "$tmp/od.db" "$tmp/zr.db" --svg "$tmp/diff-default.svg" >/dev/null

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
    # the colours' key: from 0 to the most a cell has, each box the colour of such a cell
    key = [(int(r.get("data-count")), r.get("fill")) for r in by("legend")]
    most = max(int(r.get("data-count")) for r in by("cell"))
    assert key[0][0] == 0 and key[-1][0] == most and len(key) >= 2, key
    colour = {int(r.get("data-count")): r.get("fill") for r in by("cell")}
    assert all(colour.get(n, f) == f for n, f in key), (key, colour)
    texts = [t.text for t in root.iter(ns + "text")]
    assert "window start, s from the recording's start" in texts, texts
else:  # diff: both sides' bars
    sides = {r.get("data-side") for r in by("bar")}
    assert sides == {"0", "1"}, sides
PY
}
check "hist --svg: XML with one bar per non-empty bucket and the peaks shaded, as --json says" \
	svgcheck hist "$tmp/hist.svg" "$tmp/hist.json"
check "hist --interval --svg: a heat map cell per window and bucket, the counts adding up, a colour key from 0 to the most, the time axis named" \
	svgcheck heat "$tmp/heat.svg" "$tmp/heat.json"
check "diff --svg: the pair's two histograms" svgcheck diff "$tmp/diff.svg"
check "diff --svg without --pair: the first ranked pair both recordings have, two histograms" \
	svgcheck diff "$tmp/diff-default.svg"

# a real browser draws them: not blank, the bars in their colour
if [ -z "$browser" ]; then
	echo "skip: no chromium: the plots are not rendered ($pass passed, $fail failed)"
	[ $fail = 0 ] && exit 77
	exit 1
fi
pngcheck() { # PNG: not blank, and dark bar pixels (#264653) present
	python3 "$here/png.py" "$1" --colour 264653 --min-colour-px 500
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
