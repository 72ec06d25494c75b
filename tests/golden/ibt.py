#!/usr/bin/env python3
"""Function names on IBT kernels (x86 CONFIG_X86_KERNEL_IBT, arm64 BTI).

There function_graph reports a function past its entry preamble (endbr64:
the symbol's address + 4), and a kprobe on a function sits there too. This
check makes such a recording from a 6.1 one without changing a byte of its
events: every kallsyms address of a v6 sample is lowered by 4 (the same
width, so the file stays valid), so each traced address is now its
function's start + 4. darc must name and pair everything as before: the
same functions with the same calls, the same complete/without-entry counts.

    ibt.py DARC
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "..", "samples", "vm-odirect-v6.dat")


def shifted(src, dst, by):
    data = bytearray(open(src, "rb").read())
    first = re.search(rb"[0-9a-f]{16} [A-Za-z] \S+\n", data)
    if not first:
        sys.exit("FAIL: no kallsyms text in %s" % src)
    size = int.from_bytes(data[first.start() - 4:first.start()], "little")
    start, end = first.start(), first.start() + size

    def lower(m):
        v = int(m.group(1), 16)
        return b"%016x" % (v - by if v >= by else v) + m.group(2)

    text = re.sub(rb"(?m)^([0-9a-f]{16})( )", lower, bytes(data[start:end]))
    assert len(text) == size
    data[start:end] = text
    open(dst, "wb").write(data)


def aliases(src):
    """Each kallsyms name -> one name of its address (symbols may share one)."""
    by_addr, canon = {}, {}
    for m in re.finditer(rb"(?m)^([0-9a-f]{16}) [A-Za-z] (\S+)", open(src, "rb").read()):
        by_addr.setdefault(m.group(1), []).append(m.group(2).decode(errors="replace"))
    for names in by_addr.values():
        for n in names:
            canon[n] = min(names)
    return canon


def analyze(darc, rec, db):
    out = subprocess.run([darc, "analyze", "-o", db, "--json", rec], capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit("FAIL: darc analyze %s: %s" % (rec, out.stderr.strip()))
    summary = json.loads(out.stdout)
    with sqlite3.connect(db) as c:
        funcs = c.execute("SELECT func, calls FROM func_summary ORDER BY func").fetchall()
    keys = [k for k in summary if k.startswith("calls") or k in ("fnodes", "functions")]
    return {k: summary[k] for k in keys}, funcs


def main():
    darc = sys.argv[1]
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        ibt = os.path.join(tmp, "ibt.dat")
        shifted(SAMPLE, ibt, 4)
        canon = aliases(SAMPLE)
        want = analyze(darc, SAMPLE, os.path.join(tmp, "a.db"))
        got = analyze(darc, ibt, os.path.join(tmp, "b.db"))
        # two names of one address are one function, whichever is shown
        want = want[0], sorted((canon.get(f, f), n) for f, n in want[1])
        got = got[0], sorted((canon.get(f, f), n) for f, n in got[1])
        if want[0] != got[0]:
            print("FAIL: the counts differ past the preamble: %s vs %s" % (want[0], got[0]))
            fail += 1
        unnamed = [f for f, _ in got[1] if f.startswith("0x")]
        if unnamed:
            print("FAIL: %d functions have no name, e.g. %s" % (len(unnamed), unnamed[:3]))
            fail += 1
        if want[1] != got[1]:
            lost = sorted(set(want[1]) - set(got[1]))[:5]
            print("FAIL: functions differ (%d vs %d), e.g. %s" % (len(want[1]), len(got[1]), lost))
            fail += 1
    print("ibt: %d functions named past their preamble as at their start: %s"
          % (len(got[1]), "FAIL" if fail else "ok"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
