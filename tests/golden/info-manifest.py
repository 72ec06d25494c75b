#!/usr/bin/env python3
"""info-manifest.py DARC: darc info summarises a darc-record manifest (issue 25).

For every samples/*.dat whose darc info --json holds a manifest, this script
works out from the manifest itself which threads are the target's: its pids,
the processes darc-record saw, and every thread whose thread group (the
manifest's tgids, which cover the whole host) is one of those. darc info's
text must list exactly those under "threads:", none of the host's others,
with the command, its exit, the target's pids and each probe's event count
(events_by_name of darc info --json) as the manifest says, and no line as
long as the manifest (which it printed whole before).
"""
import glob
import json
import os
import re
import subprocess
import sys

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
fails = 0
seen = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def target_threads(t):
    procs = set(t["pids"]) | {p["pid"] for p in t["processes"]}
    return procs | {int(tid) for tid, tgid in t["tgids"].items() if tgid in procs}


for path in sorted(glob.glob(os.path.join(top, "samples", "*.dat"))):
    j = json.loads(subprocess.run([darc, "info", "--json", path], capture_output=True,
                                  check=True).stdout)
    m = j.get("manifest")
    if not isinstance(m, dict):
        continue
    seen += 1
    name = os.path.basename(path)
    text = subprocess.run([darc, "info", path], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    t = m["target"]
    want = target_threads(t)
    # the thread lines: "  TID  COMM" after "threads:", up to "events by name:"
    at = next(i for i, l in enumerate(text) if l.startswith("threads:"))
    listed = []
    for line in text[at + 1:]:
        got = re.match(r"^\s+(\d+)\s+(\S.*)$", line)
        if not got:
            break
        listed.append(int(got.group(1)))
    n = re.match(r"threads:\s+(\d+) of the target", text[at])
    check(n and int(n.group(1)) == len(want) and sorted(listed) == sorted(want) and
          listed == sorted(listed),
          "%s: the target's %d threads %s, listed in order" % (name, len(want), sorted(want)))
    others = {int(k) for k in t["tgids"]} | {int(v) for v in t["tgids"].values()}
    others -= want
    # the host's other threads: hundreds on a development host, a few in the VM
    # lab's guest (samples/real-*-darc.dat: only the tasks that ran while it recorded)
    check(len(others) > (100 if name.startswith("host-") else 0) and not others & set(listed),
          "%s: none of the host's %d other threads" % (name, len(others)))
    comms = {p["pid"]: p["comm"] for p in t["processes"]}
    check(all(re.search(r"^\s+%d\s+%s$" % (pid, re.escape(c)), "\n".join(text), re.M)
              for pid, c in comms.items()), "%s: the processes' names %s" % (name, comms))
    pids = next(l for l in text if l.startswith("target pids:")).split()[2:]
    check([int(p) for p in pids] == t["pids"], "%s: target pids %s" % (name, t["pids"]))
    cmd = next(l for l in text if l.startswith("command:"))
    check(all(w in cmd for w in t["command"]) and
          cmd.endswith("(exit %d)" % t["exit_code"]),
          "%s: the command and its exit %d" % (name, t["exit_code"]))
    for p in m["probes"]:
        kind = p["type"] + "s:"
        line = next((l for l in text if l.startswith(kind)), "")
        n = j["events_by_name"].get("%s:%s" % (p["system"], p["event"]), 0)
        check(re.search(r"[:,] %s %d(,|$)" % (re.escape(p["event"]), n), line),
              "%s: %s %s, %d events" % (name, p["type"], p["event"], n))
    longest = max(len(l) for l in text)
    check(longest < 400 and longest < len(json.dumps(m)) / 10,
          "%s: the longest line %d characters (the manifest: %d)" %
          (name, longest, len(json.dumps(m))))

check(seen >= 2, "%d samples with a manifest" % seen)
sys.exit(1 if fails else 0)
