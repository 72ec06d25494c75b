#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the 'timed out' waits of a darc database against trace-cmd: the
sched_waking events that `trace-cmd report -t` shows inside a TIMER or
HRTIMER softirq (between its softirq_entry and softirq_exit on that CPU) or
inside the local timer interrupt (local_timer_entry/exit, where expired
hrtimers run) are the timer's wake-ups. Every wait that one of them ended must be 'timed
out', and every 'timed out' wait must have been ended by one of them.
usage: timer-vs-trace-cmd.py RECORDING DB; exit 0 when both hold."""
import re
import sqlite3
import sys

from tcreport import events


def timer_wakeups(dat):
    in_timer, woken = {}, set()
    for cpu, t, ev, rest in events(dat):
        if ev == "softirq_entry":
            in_timer[cpu] = bool(re.search(r"\[action=(HR)?TIMER\]", rest))
        elif ev == "local_timer_entry":
            in_timer[cpu] = True
        elif ev in ("softirq_exit", "local_timer_exit"):
            in_timer[cpu] = False
        elif ev == "sched_waking" and in_timer.get(cpu):
            woken.add((int(re.search(r"pid=(\d+)", rest)[1]), t))
    return woken


def main():
    woken = timer_wakeups(sys.argv[1])
    db = sqlite3.connect(sys.argv[2])
    waits = set(db.execute("SELECT task_id, t_wakeup, category FROM wait"
                           " WHERE t_wakeup IS NOT NULL AND kind = 1"))
    ended = {(p, t): c for p, t, c in waits if (p, t) in woken}
    timed = {(p, t) for p, t, c in waits if c == "timed out"}
    wrong = [k for k, c in ended.items() if c != "timed out"] + sorted(timed - set(ended))
    if wrong or not ended:
        print("trace-cmd's timer wake-ups:", len(ended), "disagreeing:", wrong[:5])
        return 1
    print(len(ended), "timer wake-ups")
    return 0


sys.exit(main())
