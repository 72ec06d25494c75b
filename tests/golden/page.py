#!/usr/bin/env python3
"""darc report's page, opened in headless Chromium.

usage: page.py DARC [SHOTS_DIR]

On two samples (vm-fsyncread-v7: reads waiting for the disk, with bios;
vm-chain-v7: a chain of three tasks waking each other), darc report writes
one HTML page, which must
  - need nothing else: no element loads a file or an address (no src, no
    href but the page's own anchors, no link, no url() or @import), no
    address at all but SVG's namespace name;
  - hold explain's answer: the subjects and every cause's sentence that
    darc explain --json gives on the same database, each subject's
    histogram counting its complete calls as SQL does;
  - stay small (under 512 KiB: a summary, never every call);
  - be drawn whole by Chromium: the script marks the body
    data-rendered="ok" and no error (the page catches its own and writes
    them into the DOM, which --dump-dom shows); the DOM has the summary,
    an article per subject with its histogram's bars, its causes, its
    search trees, its flame graphs' frames and its heat map's cells, the
    waits where the recording has sleeps, the I/O where it has bios;
  - answer the mouse: a script added to a copy clicks the first peak that
    has a slow part (its search tree opens), moves over a bar (the
    tooltip gives its calls) and clicks a flame graph's frame (it zooms in);
  - make a screenshot that is not blank (png.py: 5% of the pixels drawn,
    20 colours).
A function named '</script><!--<script>x<b>' (names are the recording's):
the page still draws whole, the name as text. Bad usage (no -o, a file of
another kind at -o): exit 2, one line.
Exit 0 pass, 1 fail, 77 without chromium.
"""
import html
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")
failures = 0


def ok(msg):
    print("ok:", msg)


def not_ok(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


class Page(html.parser.HTMLParser):
    """What a page would load, and its data."""

    def __init__(self):
        super().__init__()
        self.loads, self.data, self.in_data = [], "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("link", "iframe", "object", "embed", "img", "base"):
            self.loads.append("<%s>" % tag)
        for k in ("src", "href", "srcset", "action", "data"):
            if k in a and not (k == "href" and (a[k] or "").startswith("#")):
                self.loads.append("%s=%s" % (k, a[k]))
        self.in_data = tag == "script" and a.get("id") == "darc-data"

    def handle_endtag(self, tag):
        self.in_data = False

    def handle_data(self, d):
        if self.in_data:
            self.data += d


def chrome(*args):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    r = subprocess.run(["timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--virtual-time-budget=10000"] + list(args),
                       capture_output=True, text=True)
    return r.stdout


def drawn(dom):
    """Did the page's script mark its body drawn whole, with no error?"""
    body = re.search(r"<body[^>]*>", dom)
    return bool(body) and 'data-rendered="ok"' in body.group(0) and \
        "data-error" not in body.group(0)


def dom_has(dom, what, pattern, n=1):
    got = len(re.findall(pattern, dom))
    return (got >= n), "%s: %d" % (what, got)


def check_page(darc, tmp, sample, shots):
    db = os.path.join(tmp, sample + ".db")
    page = os.path.join(tmp, sample + ".html")
    subprocess.run([darc, "analyze", "-q", "-o", db, os.path.join(SAMPLES, sample + ".dat")],
                   check=True)
    r = subprocess.run([darc, "report", db, "-o", page], capture_output=True, text=True)
    if r.returncode or r.stderr:
        not_ok("%s: darc report: exit %d %s" % (sample, r.returncode, r.stderr))
        return
    text = open(page, encoding="utf-8").read()
    p = Page()
    p.feed(text)
    addresses = set(re.findall(r"[a-z]+://[^\s\"'<>)\\]*", text)) - {"http://www.w3.org/2000/svg"}
    styles = re.findall(r"url\(|@import", text)
    if p.loads or addresses or styles:
        not_ok("%s: the page loads %s %s %s" % (sample, p.loads[:3], sorted(addresses)[:3],
                                               styles[:3]))
    else:
        ok("%s: self-contained (%d bytes, nothing loaded, no address)" % (sample, len(text)))
    if len(text) > 512 * 1024:
        not_ok("%s: %d bytes, over 512 KiB" % (sample, len(text)))
    d = json.loads(p.data)
    check_data(darc, sample, db, d)
    # one run of Chromium on a copy with the mouse's script added: the page as drawn, then clicked
    copy = os.path.join(tmp, sample + "-clicks.html")
    open(copy, "w", encoding="utf-8").write(text.replace("</body>", CLICKS + "</body>"))
    dom = chrome("--dump-dom", "file://" + copy)
    check_dom(sample, dom, d)
    check_clicks(sample, dom)
    png = os.path.join(tmp, sample + ".png")
    chrome("--window-size=1100,2400", "--screenshot=" + png, "file://" + page)
    if shots:
        os.makedirs(shots, exist_ok=True)
        shutil.copy(png, shots)
    r = subprocess.run([sys.executable, os.path.join(HERE, "png.py"), png, "--min-drawn", "0.05",
                        "--min-colours", "20"], capture_output=True, text=True)
    (ok if r.returncode == 0 else not_ok)("%s: screenshot %s" % (sample, r.stdout.strip()))


def sentences(subjects):
    return [[c["sentence"] for p in [s] + s.get("more", []) for c in p["causes"]]
            for s in subjects]


def check_data(darc, sample, db, d):
    r = subprocess.run([darc, "explain", db, "--json"], capture_output=True, text=True, check=True)
    want = json.loads(r.stdout)["subjects"]
    got = d["subjects"]
    if [s["title"] for s in got] == [s["title"] for s in want] and \
            sentences(got) == sentences(want) and got:
        ok("%s: %d subjects and their %d causes as darc explain --json gives them"
           % (sample, len(got), sum(len(x) for x in sentences(got))))
    else:
        not_ok("%s: the page's subjects %s, explain's %s" % (
            sample, [s["title"] for s in got], [s["title"] for s in want]))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    for s in got:
        calls = con.execute("SELECT count(*) FROM call WHERE fnode_id = ? AND incl_ns IS NOT"
                            " NULL AND flags & 3 = 0", (s["fnode"],)).fetchone()[0]
        if sum(s["hist"]["count"]) == calls == s["calls"]:
            ok("%s: %s's histogram counts its %d complete calls" % (sample, s["title"], calls))
        else:
            not_ok("%s: %s's histogram counts %d calls, SQL %d" % (
                sample, s["title"], sum(s["hist"]["count"]), calls))


def check_dom(sample, dom, d):
    if not drawn(dom):
        err = re.search(r'data-error="([^"]*)"', dom)
        not_ok("%s: the page was not drawn whole: %s" % (sample, err.group(1) if err else
                                                           "no data-rendered"))
        return
    n = len(d["subjects"])
    parts = sum(1 + len(s.get("more", [])) for s in d["subjects"])
    causes = sum(len(x) for x in sentences(d["subjects"]))
    checks = [dom_has(dom, "summary", r'<section id="summary"'),
              dom_has(dom, "subjects", r'<article class="subject"', n),
              dom_has(dom, "histogram bars", r'<rect class="bar"', n),
              dom_has(dom, "peaks", r'<rect class="peak"', n),
              dom_has(dom, "causes", r'<li class="cause"', causes),
              dom_has(dom, "search trees", r'<details class="tree"', parts),
              dom_has(dom, "flame graph frames", r'<rect [^>]*class="frame"', parts),
              dom_has(dom, "heat map cells", r'<rect class="cell"', n)]
    if d["waits"]:
        checks.append(dom_has(dom, "waits", r'<li class="wait"', len(d["waits"])))
    if d["recording"]["bios"]:
        checks.append(dom_has(dom, "I/O layers", r'<rect [^>]*class="layer"'))
    bad = [what for good, what in checks if not good]
    if bad:
        not_ok("%s: the DOM lacks %s" % (sample, bad))
    else:
        ok("%s: drawn whole, no script error: %s" % (sample, "; ".join(w for _, w in checks)))


# Added to a copy of the page: the mouse on a peak, a bar and a flame graph's frame (after the
# counts of check_dom(), which only the flame graph's frames change: fewer, never none).
CLICKS = """<script>
window.addEventListener('load', function () {
	var out = {};
	var peak = Array.prototype.find.call(document.querySelectorAll('rect.peak'),
		function (p) { return p.style.cursor === 'pointer'; });
	peak.dispatchEvent(new MouseEvent('click', {bubbles: true}));
	out.tree_open = document.querySelectorAll('details.tree[open]').length;
	var bar = document.querySelector('rect.bar');
	bar.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: 5, clientY: 5}));
	out.tip = document.getElementById('tip').textContent;
	var box = document.querySelector('.flame'), before = box.querySelectorAll('rect').length;
	box.querySelectorAll('rect')[1].dispatchEvent(new MouseEvent('click', {bubbles: true}));
	out.zoom = [before, box.querySelectorAll('rect').length];
	document.body.setAttribute('data-test', JSON.stringify(out));
});
</script>
"""


def check_clicks(sample, dom):
    m = re.search(r'data-test="([^"]*)"', dom)
    t = json.loads(html.unescape(m.group(1))) if m else {}
    zoom = t.get("zoom", [0, 0])
    if t.get("tree_open") == 1 and re.search(r": \d+ calls \(", t.get("tip", "")) and \
            zoom[1] < zoom[0] and drawn(dom):
        ok("%s: a click on a peak opens its tree, a bar shows '%s', a click on a frame zooms"
           " in (%d frames to %d)" % (sample, t["tip"], zoom[0], zoom[1]))
    else:
        not_ok("%s: the page does not answer the mouse: %s" % (sample, m.group(1) if m else dom[-300:]))


HOSTILE = '</script><!--<script>x<b>'


def check_hostile(darc, tmp):
    """A function whose name could end the page's data early: the page still draws whole."""
    db = os.path.join(tmp, "hostile.db")
    page = os.path.join(tmp, "hostile.html")
    shutil.copy(os.path.join(tmp, "vm-chain-v7.db"), db)
    con = sqlite3.connect(db)
    con.execute("UPDATE func SET name = ? WHERE name = '__x64_sys_read'", (HOSTILE,))
    con.commit()
    con.close()
    r = subprocess.run([darc, "report", db, "-o", page], capture_output=True, text=True)
    dom = chrome("--dump-dom", "file://" + page) if r.returncode == 0 else ""
    if drawn(dom) and html.escape(HOSTILE, quote=False) in dom:
        ok("a function named %r: the page draws whole, the name as text" % HOSTILE)
    else:
        not_ok("a function named %r: exit %d, %s" % (HOSTILE, r.returncode,
                                                    r.stderr or dom[-300:]))


def check_usage(darc, tmp):
    db = os.path.join(tmp, "vm-fsyncread-v7.db")
    other = os.path.join(tmp, "other.txt")
    open(other, "w").write("not a page\n")
    for args, want in [([], r"darc report: say where the page goes: -o FILE.html"),
                       (["-o", other], r"not an HTML page: not replaced \(--force replaces it\)")]:
        r = subprocess.run([darc, "report", db] + args, capture_output=True, text=True)
        if r.returncode == 2 and len(r.stderr.splitlines()) == 1 and re.search(want, r.stderr):
            ok("darc report %s: exit 2, '%s'" % (" ".join(args) or "without -o", r.stderr.strip()))
        else:
            not_ok("darc report %s: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))


def main():
    darc = os.path.abspath(sys.argv[1])
    shots = sys.argv[2] if len(sys.argv) > 2 else None
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("skip: no chromium")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="darc-report.") as tmp:
        for sample in ["vm-fsyncread-v7", "vm-chain-v7"]:
            check_page(darc, tmp, sample, shots)
        check_hostile(darc, tmp)
        check_usage(darc, tmp)
    print("FAIL: %d" % failures if failures else "all passed")
    sys.exit(1 if failures else 0)


main()
