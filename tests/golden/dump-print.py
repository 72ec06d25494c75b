#!/usr/bin/env python3
"""dump-print.py DARC: one event, one line in darc dump (issue 22).

samples/host-print-v7.dat holds seven trace_marker texts, each one write(2)
(tests/bench/make-print-sample.sh lists them). The kernel ends each text
with a newline (adding one where the writer did not); trace-cmd report ends
the event's line there, and so must darc dump, while any other control byte,
a newline inside the text included, is escaped (\\n, \\t, \\\\), so no event
ever takes two lines. Checked two ways:
  1. against the texts written: darc dump's buf= of each event, in order, is
     the text less its one last newline, escaped here by this script's own
     escaping;
  2. against trace-cmd report -R: its lines, joined where a newline inside a
     text broke one (a line that is not an event's), then escaped the same
     way, equal darc dump's (timestamps, comm-pid, cpu, event, fields), with
     whitespace runs folded as tests/golden/cmp-report.sh does.
"""
import os
import re
import shutil
import subprocess
import sys

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sample = os.path.join(top, "samples", "host-print-v7.dat")
written = [b"hello\n", b"no newline", b"one\ntwo\n", b"end\n\n", b"tab\there",
           b"back\\slash", "caf\u00e9\n".encode()]
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def escape(text):
    """C escapes for control bytes and the backslash; UTF-8 kept."""
    named = {"\n": "\\n", "\t": "\\t", "\\": "\\\\", "\r": "\\r", "\x1b": "\\e"}
    return "".join(named.get(c, c if c >= " " and c != "\x7f" else "\\x%02x" % ord(c))
                   for c in text)


def fold(line):
    return re.sub(r"\s+", " ", line).strip()


dump = subprocess.run([darc, "dump", sample], capture_output=True, check=True).stdout
lines = dump.decode().split("\n")
check(lines[-1] == "", "darc dump ends in a newline")
events = lines[1:-1]
check(len(events) == len(written), "%d lines for %d events" % (len(events), len(written)))
for text, line in zip(written, events):
    want = text.decode()
    want = escape(want[:-1] if want.endswith("\n") else want)
    got = line.split(" buf=", 1)[-1]
    check(got == want, "buf=%s (written %r)" % (got, text))

if not shutil.which("trace-cmd"):
    print("skip: trace-cmd not installed")
    sys.exit(1 if fails else 0)
tc = subprocess.run(["trace-cmd", "report", "-R", "-t", sample], capture_output=True,
                    check=True).stdout.decode()
head = re.compile(r"^\S+: +\S+-\d+ +\[\d+\] \d+\.\d+: ")
joined = []
for line in tc.split("\n")[1:-1]:
    if head.match(line) or not joined:
        joined.append(line)
    else:
        joined[-1] += "\n" + line
tc_lines = [fold(escape(e)) for e in joined]
check(tc_lines == [fold(e) for e in events],
      "darc dump equals trace-cmd report -R, its texts escaped (%d events)" % len(tc_lines))
if tc_lines != [fold(e) for e in events]:
    for a, b in zip(tc_lines, events):
        if a != fold(b):
            print("  trace-cmd: %s\n  darc:      %s" % (a, fold(b)))
sys.exit(1 if fails else 0)
