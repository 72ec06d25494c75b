#!/usr/bin/env python3
"""check.py DARC [KIND]: darc against the trace-cmd that made or read each
trace.dat of the matrix (samples/matrix, see tests/matrix/README.md), and
against trace-cmd 3.1.6 on samples/*.dat.

Each samples/matrix/NAME.dat comes with NAME.TOOL.report.xz, the output of
`trace-cmd report -R -t NAME.dat` by trace-cmd TOOL (316 = 3.1.6, 331 =
3.3.1, 34 = 3.4), stored so that the check runs where the tool cannot be
had; where it can (this host's trace-cmd; tests/vm/fetch-tool.sh's cache,
offline), the tool is also run now and must print the stored text.

KIND (default all) chooses what is checked, one failure kind each:
  all        every matrix file: `darc dump --like V` equals tool V's report line
             for line (trace-cmd's lines that a newline inside a string
             broke joined, escaped as darc escapes them); a file whose timestamps are no
             nanoseconds is refused by `darc analyze` in one line naming
             its clock and TSC2NSEC; `darc info --json` has every option of
             the file (as read here from the file) and lists every one it
             did not apply in 'options_not_applied' and in the text's
             "not applied:" lines
  samples    samples/*.dat: `darc dump --like 3.1` against this host's
             trace-cmd 3.1.6 (skipped without it), and their options as above
  tsc2nsec   the x86-tsc recordings with TSC2NSEC: darc dump's times (its
             default form) are the report's
  timeshift  the files with a TIME_SHIFT option: the same
  offset     the recordings made with --date and --ts-offset: the same
  rawclock   the x86-tsc, counter and uptime recordings without TSC2NSEC: darc
             analyze refuses them in one line naming the clock and the
             option; darc dump prints their counts as the report does
  options    the file with a GUEST and an unknown option: darc info shows
             the guest and lists the unknown option as not applied
Exit 0 when all agree, 1 otherwise, 77 when there is nothing to check.
"""
import json
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

darc = os.path.realpath(sys.argv[1])
kind = sys.argv[2] if len(sys.argv) > 2 else "all"
top = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
mdir = os.path.join(top, "samples", "matrix")
LIKE = {"316": "3.1", "331": "3.3", "34": "3.4"}
SUITE = {"331": "trixie", "34": "sid"}
fails = 0
checked = 0


def check(ok, what):
    global fails, checked
    checked += 1
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
    return ok


def escape(text):
    """darc's escapes of control bytes and the backslash (fmt/vis.c)."""
    named = {"\n": "\\n", "\t": "\\t", "\\": "\\\\", "\r": "\\r", "\x1b": "\\e"}
    return "".join(named.get(c, c if c >= " " and c != "\x7f" else "\\x%02x" % ord(c))
                   for c in text)


HEAD = re.compile(r"^(\S+: +)?.*-\d+ +\[\d+\](-0x[0-9a-f]+)? *\d+(\.\d+)?: ")


def one_line(report):
    """trace-cmd's lines, those a newline inside a string broke joined."""
    lines = report.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for i, line in enumerate(lines):
        if i == 0 or not out or HEAD.match(line) or re.match(r"^(\S+: )?CPU:\d+ \[", line):
            out.append(line)
        else:
            out[-1] += "\n" + line
    return [out[0]] + [escape(x) for x in out[1:]] if out else []


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, errors="replace")


def tool_cmd(label):
    """The trace-cmd of @label runnable here, or None."""
    if label == "316":
        tc = shutil.which("trace-cmd")
        ok = tc and "3.1.6" in run(tc, "--version").stdout
        return tc if ok else None
    fetch = os.path.join(top, "tests", "vm", "fetch-tool.sh")
    r = run(fetch, "--offline", "trace-cmd", SUITE[label])
    return r.stdout.strip() if r.returncode == 0 else None


def stored_reports(dat):
    """{tool: report text} stored beside @dat."""
    base = dat[:-4]
    reps = {}
    for label in LIKE:
        p = "%s.%s.report.xz" % (base, label)
        if os.path.exists(p):
            reps[label] = lzma.open(p, "rt", errors="replace").read()
    return reps


def compare(dat, label, report):
    """darc dump --like V of @dat against tool @label's @report."""
    name = os.path.basename(dat)
    d = run(darc, "dump", "--like", LIKE[label], dat)
    if not check(d.returncode == 0, "%s: darc dump --like %s runs" % (name, LIKE[label])):
        print("  " + d.stderr.strip())
        return
    want, got = one_line(report), d.stdout.split("\n")[:-1]
    same = want == got
    check(same, "%s: darc dump --like %s = trace-cmd %s report -R -t (%d lines)"
          % (name, LIKE[label], label, len(want)))
    if not same:
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                print("  line %d\n  trace-cmd: %s\n  darc:      %s" % (i + 1, a, b))
                break
        else:
            print("  %d lines against %d" % (len(want), len(got)))


def times(lines):
    """The timestamp of each event line."""
    out = []
    for line in lines:
        m = re.match(r"^(?:\S+: +)?.*-\d+ +\[\d+\](?:-0x[0-9a-f]+)? *(\d+(?:\.\d+)?): (\S+)", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def compare_times(dat, label, report):
    """darc dump's (default form) timestamps and event names against @report's."""
    d = run(darc, "dump", dat)
    want, got = times(one_line(report)), times(d.stdout.split("\n"))
    ok = want == got and len(want) > 0
    check(ok, "%s: darc dump's %d times = trace-cmd %s's" % (os.path.basename(dat), len(got), label))
    if not ok:
        for a, b in zip(want, got):
            if a != b:
                print("  trace-cmd: %s %s\n  darc:      %s %s" % (a + b))
                break


# ---- the options of a file, read here -----------------------------------

def v6_option_ids(b):
    """The option ids of a v6 file: after the tracing data, a walk that needs
    the sizes of its parts."""
    p = 10 + 2 + 2 + 4 + 12  # magic, "6\0", endian, long, page size, "header_page"
    p += 8 + struct.unpack_from("<Q", b, p)[0] + 13  # header_page, "header_event"
    p += 8 + struct.unpack_from("<Q", b, p)[0]
    n = struct.unpack_from("<I", b, p)[0]  # ftrace formats
    p += 4
    for _ in range(n):
        p += 8 + struct.unpack_from("<Q", b, p)[0]
    nsys = struct.unpack_from("<I", b, p)[0]
    p += 4
    for _ in range(nsys):
        p = b.index(b"\0", p) + 1
        n = struct.unpack_from("<I", b, p)[0]
        p += 4
        for _ in range(n):
            p += 8 + struct.unpack_from("<Q", b, p)[0]
    p += 4 + struct.unpack_from("<I", b, p)[0]  # kallsyms
    p += 4 + struct.unpack_from("<I", b, p)[0]  # printk
    p += 8 + struct.unpack_from("<Q", b, p)[0]  # cmdlines
    p += 4  # cpus
    ids = []
    if b[p:p + 10] != b"options  \0":
        return ids
    p += 10
    while True:
        oid = struct.unpack_from("<H", b, p)[0]
        if oid == 0:
            return ids
        size = struct.unpack_from("<I", b, p + 2)[0]
        ids.append(oid)
        p += 6 + size


def v7_option_ids(b):
    """The option ids of a v7 file, section after section (None: a section
    compressed in a way Python cannot read here)."""
    p = 10 + 2 + 2 + 4
    comp_end = b.index(b"\0", p)
    comp = b[p:comp_end].decode()
    p = b.index(b"\0", comp_end + 1) + 1
    off = struct.unpack_from("<Q", b, p)[0]
    ids, seen = [], set()
    while off and off not in seen:
        seen.add(off)
        _, flags, _, size = struct.unpack_from("<HHIQ", b, off)
        data = b[off + 16:off + 16 + size]
        if flags & 1:
            if comp != "zlib":
                return None
            csize, usize = struct.unpack_from("<II", data, 0)
            data = zlib.decompress(data[8:8 + csize])
        q, off = 0, 0
        while q + 6 <= len(data):
            oid, size = struct.unpack_from("<HI", data, q)
            if oid == 0:
                off = struct.unpack_from("<Q", data, q + 6)[0]
                break
            ids.append(oid)
            q += 6 + size
    return ids


def check_options(dat):
    """darc info has every option of @dat, and says which it did not apply."""
    name = os.path.basename(dat)
    b = open(dat, "rb").read()
    ids = v6_option_ids(b) if b[10:12] == b"6\0" else v7_option_ids(b)
    info = run(darc, "info", "--json", dat)
    text = run(darc, "info", dat).stdout
    if not check(info.returncode == 0, "%s: darc info --json runs" % name):
        return
    ts = json.loads(info.stdout).get("timestamps", {})
    opts = ts.get("options", [])
    if ids is not None:
        check([o["id"] for o in opts] == ids,
              "%s: darc info's options are the file's %d (%s)"
              % (name, len(ids), " ".join(str(i) for i in ids)))
    ignored = [o for o in opts if o["use"] == "not applied"]
    listed = ts.get("options_not_applied", [])
    lines = re.findall(r"^not applied:  option (\S+) \(id (\d+)\)", text, re.M)
    check([o["id"] for o in listed] == [o["id"] for o in ignored] and
          [int(i) for _, i in lines] == [o["id"] for o in ignored],
          "%s: the %d options not applied are listed (JSON and text)" % (name, len(ignored)))


def check_refused(dat, clock):
    """darc analyze refuses @dat in one line naming @clock and TSC2NSEC."""
    name = os.path.basename(dat)
    with tempfile.TemporaryDirectory() as tmp:
        r = run(darc, "analyze", "-o", os.path.join(tmp, "x.db"), dat)
    msg = r.stderr.strip()
    check(r.returncode == 2 and "\n" not in msg and clock in msg and "TSC2NSEC" in msg
          and name in msg,
          "%s: darc analyze refuses it in one line naming %s and TSC2NSEC (exit %d: %s)"
          % (name, clock, r.returncode, msg[:200]))


def matrix_files():
    if not os.path.isdir(mdir):
        return []
    return sorted(os.path.join(mdir, f) for f in os.listdir(mdir) if f.endswith(".dat"))


def live(dat, label, tools, report):
    """The tool, where it runs here, still prints the stored report."""
    tc = tools.get(label)
    if not tc:
        return
    r = run(tc, "report", "-R", "-t", dat)
    check(r.stdout == report, "%s: trace-cmd %s run now prints the stored report"
          % (os.path.basename(dat), label))


def check_all(files):
    tools = {label: tool_cmd(label) for label in LIKE}
    for dat in files:
        reps = stored_reports(dat)
        check(len(reps) > 0, "%s: has a stored report" % os.path.basename(dat))
        for label, rep in sorted(reps.items()):
            live(dat, label, tools, rep)
            compare(dat, label, rep)
        info = json.loads(run(darc, "info", "--json", dat).stdout or "{}")
        ts = info.get("timestamps", {})
        if ts.get("unit") == "counts":
            check_refused(dat, ts.get("trace_clock", "?"))
        check_options(dat)


def check_samples():
    """samples/*.dat against this host's trace-cmd 3.1.6, and their options."""
    tc = tool_cmd("316")
    if not tc:
        print("skip: trace-cmd 3.1.6 is not here: samples/*.dat not compared")
        return
    sdir = os.path.join(top, "samples")
    for dat in sorted(os.path.join(sdir, f) for f in os.listdir(sdir) if f.endswith(".dat")):
        if "print" in dat:  # its texts end in newlines: tests/golden/dump-print.py
            continue
        compare(dat, "316", run(tc, "report", "-R", "-t", dat).stdout)
        check_options(dat)


def main():
    files = matrix_files()
    pick = {"tsc2nsec": "tsc2nsec", "timeshift": "shift", "offset": "(date|tsoffset)",
            "rawclock": "-(tsc|counter|uptime)-", "options": "guest"}
    if kind == "all":
        check_all(files)
    elif kind == "samples":
        check_samples()
    elif kind in pick:
        chosen = [f for f in files if re.search(pick[kind], os.path.basename(f))]
        check(len(chosen) > 0, "%s: the matrix has such files (%d)" % (kind, len(chosen)))
        for dat in chosen:
            reps = stored_reports(dat)
            for label, rep in sorted(reps.items()):
                # 3.3 on print the flags and a whole count without a space
                # between them: read the times of 3.1's lines
                if kind != "rawclock" or label == "316":
                    compare_times(dat, label, rep)
            if kind == "rawclock":
                clock = next((c for c in ("counter", "uptime") if c in dat), "x86-tsc")
                check_refused(dat, clock)
            if kind == "options":
                text = run(darc, "info", dat).stdout
                check(re.search(r"^guest: .*'vm1'.*2 vCPUs", text, re.M) is not None,
                      "%s: darc info shows the GUEST option" % os.path.basename(dat))
                check(re.search(r"^not applied:  option unknown \(id 77\)", text, re.M)
                      is not None, "%s: darc info lists option 77 as not applied"
                      % os.path.basename(dat))
    else:
        sys.exit("check.py: unknown kind %s" % kind)
    print("%d passed, %d failed" % (checked - fails, fails))
    sys.exit(1 if fails else (0 if checked else 77))


main()
