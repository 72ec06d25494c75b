#!/usr/bin/env python3
"""Where the slow calls of an entry point spent their time, and who ended
their waits, computed from `trace-cmd report` of the recording alone: the
truth tests/golden/real.sh holds darc explain to, independent of darc.

Usage: real-truth.py [--brief] RECORDING ENTRY [--followed all|COMM] [--range LO HI]

Reads `trace-cmd report -t -l -O fgraph:tailprint RECORDING` (nanosecond
times, the latency flags that say whether an event ran in a hard or soft
interrupt, the name of each function at its exit) and `trace-cmd dump
--cmd-lines` (the tasks' names). Per task it replays the function graph,
sched_switch, sched_waking and the irq events in time order, and splits
each call of ENTRY (not inside another) into
  - 'blocked': off the CPU after switching out in a sleeping state, at the
    call path where it switched out; its waker is the task or interrupt of
    the first sched_waking (else sched_wakeup) of the task before it ran
    again: an interrupt by the latency flags of that event (h: hard, s:
    soft) and by the irq_handler_entry or softirq_entry open on that CPU
    then ('irq 25 (virtio0-req.0)', 'softirq TIMER'), or 'an interrupt
    whose handler is not in the recording' when the flags say interrupt and
    no irq event is open (with trace-cmd -F the interrupts that hit an idle
    CPU are not recorded); a task by name and tid, with what it was
    running then (its graph's path, when it is graphed);
  - 'preempt': off the CPU after switching out runnable (R, R+);
  - 'irq': in a hard or soft interrupt on its CPU (the irq events, or
    graph entries whose flags say interrupt);
  - 'overhead': running in the tracer's own functions (TRACER: the
    tracepoint iterator __traceiter_sched_switch that schedule() calls,
    probe handlers), which are no place in the paths either;
  - 'running': the rest, at the call path it ran in.
The waker chain of a sleep follows a waking task back: when that task (one
the recorder followed: --followed all, or the tasks named COMM) was off the
CPU itself for 25% or more of the sleep before it woke the sleeper, its own
sleep's waker is the next link (recursively), else the chain ends in 'the
CPU' (it was running, or runnable). A link whose task the recorder did not
follow ends it with 'not recorded'.

The slow calls are those above explain-truth.py's threshold (two humps, or
the first gap above the body, or max(p90, 2*median)), or where no call is
above it (a few calls), the slowest tenth; with --range, also
those whose floor(log2(ns)) is in LO..HI (darc's slow buckets), under
"range". Causes: each sleep site (the path at switch-out) a cause of its
own, preemption and interrupts each one cause, running time per path; each
with its share of the slow calls' latency. Prints one JSON object (--brief:
without the calls' latencies and the parts the causes are made of, as the
committed truth files hold it); exit 0, or 1 with one line naming the problem.
"""
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # explain-truth.py is loaded as a module: no __pycache__ in the tree
LINE = re.compile(r"^\s*(.*?)-(\d+)\s+(\d+)(\S+)\s+(\d+)\.(\d+): (\w+):\s*(.*)$")
GRAPH = re.compile(r"^(?:[+!#*@$]\s*)?(?:(\d+\.\d+) us)?\s*\|\s*(.*?)\s*$")
# the scheduler's own functions, where every sleep ends: not a place of its own
SCHED = re.compile(r"^(__)?(schedule|io_schedule|preempt_schedule)|^__sched_text_start$|"
                   r"^schedule_(timeout|hrtimeout|preempt_disabled)|^io_schedule_timeout$")
# the tracer's own functions (the tracepoint's iterator that records sched_switch
# inside schedule, probe handlers): their time is the tracer's, not a place
TRACER = re.compile(r"^(__traceiter_|trace_event_raw_event_|perf_trace_|ftrace_|function_graph_|"
                    r"prepare_ftrace_return|trace_graph_|ring_buffer_|rb_|trace_buffer_|"
                    r"tracing_gen_ctx|k(ret)?probe_|u(ret)?probe_)")
CHAIN_OVERLAP = 0.25
SOFT_TIMER = ("TIMER", "HRTIMER")


def fail(msg):
    print("real-truth.py: " + msg, file=sys.stderr)
    sys.exit(1)


def explain_truth():
    """tests/golden/explain-truth.py as a module: its rule for the slow calls."""
    spec = importlib.util.spec_from_file_location("explain_truth",
                                                  os.path.join(HERE, "explain-truth.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if out.returncode:
        fail("%s failed: %s" % (" ".join(cmd[:2]), (out.stderr.strip() or "?").splitlines()[-1]))
    return out.stdout


def comms(path):
    """pid -> name, from the recording's saved command lines."""
    out = {0: "<idle>"}
    for line in run(["trace-cmd", "dump", "--cmd-lines", "-i", path]).splitlines():
        m = re.match(r"^(\d+) (.+)$", line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


class Task:
    """One task's state as the replay goes."""

    def __init__(self, pid):
        self.pid = pid
        self.stack = []      # [name, irq?] of each open graph frame, outermost first
        self.off = None      # while off the CPU: dict(t, state, stack, wake)
        self.irq = 0         # interrupts open on its CPU while it is current
        self.last = 0        # time up to which its call's time is placed
        self.call = None     # the open call of the entry point: dict(t0, parts, sleeps)
        self.sleeps = []     # its past off-CPU intervals (for the chains through it)


class Replay:
    """The replay of one recording (see the module's comment)."""

    def __init__(self, entry, names, followed):
        self.entry, self.names, self.followed = entry, names, followed
        self.tasks = {}
        self.cpu_irq = defaultdict(list)  # cpu -> open interrupts, innermost last
        self.calls = []
        self.irq_seen = False

    def task(self, pid):
        if pid not in self.tasks:
            self.tasks[pid] = Task(pid)
        return self.tasks[pid]

    def is_followed(self, pid):
        return self.followed == "all" or self.names.get(pid) == self.followed

    def path(self, t):
        """The task's call path below the entry point: no interrupt's frames,
        nothing from the tracer's own frames down."""
        out = []
        for name, irq in t.stack[1:]:
            if TRACER.match(name):
                break
            if not irq:
                out.append(name)
        return tuple(out)

    def account(self, t, now):
        """Place task t's time since t.last in its open call."""
        c = t.call
        if c is not None and now > t.last:
            if t.off:
                key = (t.off["cat"], t.off["stack"])
            elif t.irq > 0 or (t.stack and t.stack[-1][1]):
                key = ("irq", ())
            elif any(TRACER.match(f[0]) for f in t.stack):
                key = ("overhead", ())
            else:
                key = ("running", self.path(t))
            c["parts"][key] += now - t.last
        t.last = max(t.last, now)

    def graph(self, t, now, ctx, rest):
        m = GRAPH.match(rest)
        if not m:
            return
        dur, body = m.group(1), m.group(2)
        irq = ctx in "hHs"
        self.account(t, now)
        if body.startswith("}"):
            name = body.strip("}/* ")
            while t.stack:
                f = t.stack.pop()
                if f[0] == name:
                    break
            if not t.stack and t.call is not None:
                t.call["ns"] = int(round(float(dur) * 1000)) if dur else now - t.call["t0"]
                self.calls.append(t.call)
                t.call = None
            return
        name = body.rstrip("{;() ").rstrip("(")
        if not t.stack and name != self.entry:
            return  # a root that is not the entry point (another -g function)
        if not t.stack:
            t.call = {"pid": t.pid, "t0": now, "parts": defaultdict(int), "sleeps": []}
        if body.endswith("{"):
            t.stack.append([name, irq])
            return
        ns = int(round(float(dur) * 1000)) if dur else 0
        t.stack.append([name, irq])
        self.account(t, now + ns)  # a leaf: running (or interrupt) all along
        t.stack.pop()
        if not t.stack and t.call is not None:
            t.call["ns"] = ns
            self.calls.append(t.call)
            t.call = None

    def switch(self, now, cpu, rest):
        m = re.match(r"^.*:(\d+) \[-?\d+\] (\S+) ==> .*:(\d+) \[-?\d+\]$", rest)
        if not m:
            return
        prev, state, nxt = self.task(int(m.group(1))), m.group(2), self.task(int(m.group(3)))
        self.account(prev, now)
        prev.off = {"t": now, "state": state, "wake": None, "stack": self.path(prev),
                    "cat": "preempt" if state.startswith("R") else "blocked"}
        prev.irq = 0
        self.account(nxt, now)
        if nxt.off:
            s = dict(nxt.off, t_in=now)
            nxt.sleeps.append(s)
            if nxt.call is not None:
                nxt.call["sleeps"].append(s)
        nxt.off = None

    def waking(self, pid, now, cpu, ctx, rest):
        m = re.search(r"pid=(\d+)", rest) or re.search(r":(\d+) \[", rest)
        t = self.tasks.get(int(m.group(1))) if m else None
        if t is None or t.off is None or t.off["wake"] is not None:
            return
        t.off["wake"] = {"t": now, "links": self.waker(pid, now, cpu, ctx, t.off["t"])}

    def waker(self, pid, now, cpu, ctx, since):
        """The chain of a sleep that began at since and that pid's code ended at now."""
        if ctx in "hHs":
            kind = "softirq" if ctx == "s" else "irq"
            opened = [n for k, n in self.cpu_irq[cpu] if k == kind]
            return [{"kind": kind, "name": opened[-1] if opened else None,
                     "recorded": bool(opened)}]
        w = self.tasks.get(pid)
        link = {"kind": "task", "name": self.names.get(pid, "<...>"), "tid": pid,
                "recorded": True, "doing": list(self.path(w)) if w and w.stack else []}
        if not self.is_followed(pid):
            return [link, {"kind": "unknown", "name": None, "recorded": False}]
        # its own time off the CPU while the sleeper slept: the longest sleep
        # of it there, and its preemptions
        span, blocked, preempt, longest = now - since, 0, 0, None
        for s in reversed(w.sleeps if w else []):
            if s["t_in"] <= since:
                break
            d = min(s["t_in"], now) - max(s["t"], since)
            if s["cat"] == "preempt":
                preempt += d
                continue
            blocked += d
            if longest is None or d > longest[0]:
                longest = (d, s)
        if span > 0 and blocked >= CHAIN_OVERLAP * span:
            s = longest[1]
            if s["wake"] is None:
                return [link, {"kind": "unknown", "name": None, "recorded": False}]
            return [link] + s["wake"]["links"][:4]
        if span > 0 and preempt >= CHAIN_OVERLAP * span:
            return [link, {"kind": "cpu", "name": "runnable (preempted)", "recorded": True}]
        return [link, {"kind": "cpu", "name": "running", "recorded": True}]

    def irq(self, event, pid, now, cpu, rest):
        t = self.task(pid)
        self.account(t, now)
        kind = "softirq" if event.startswith("softirq") else "irq"
        if event.endswith("_entry"):
            t.irq += 1
            if event == "irq_handler_entry":
                m = re.match(r"irq=(\d+) name=(\S+)", rest)
                name = "irq %s (%s)" % m.groups() if m else "irq"
                self.irq_seen = True
            elif kind == "irq":
                name = event[:-len("_entry")]  # a vector: local_timer, reschedule...
            else:
                m = re.search(r"action=(\w+)", rest)
                name = "softirq %s" % (m.group(1) if m else "?")
            self.cpu_irq[cpu].append((kind, name))
            return
        t.irq = max(0, t.irq - 1)
        opened = self.cpu_irq[cpu]
        for i in range(len(opened) - 1, -1, -1):
            if opened[i][0] == kind:
                del opened[i]
                break

    def line(self, line):
        m = LINE.match(line)
        if not m:
            return
        _, pid, cpu, flags, sec, frac, event, rest = m.groups()
        now = int(sec) * 10 ** 9 + int(frac.ljust(9, "0")[:9])
        pid, cpu = int(pid), int(cpu)
        ctx = flags[2] if len(flags) > 2 else "."
        if event in ("funcgraph_entry", "funcgraph_exit"):
            self.graph(self.task(pid), now, ctx, rest)
        elif event == "sched_switch":
            self.switch(now, cpu, rest)
        elif event in ("sched_waking", "sched_wakeup"):
            self.waking(pid, now, cpu, ctx, rest)
        elif event in ("irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit"):
            self.irq(event, pid, now, cpu, rest)
        elif ctx in "hH" and re.match(r"^\w+_(entry|exit)$", event):
            self.irq(event, pid, now, cpu, rest)  # irq_vectors: local_timer_entry...


def label(link):
    """A chain link in words: what the checker looks for in darc's answer."""
    if link["kind"] == "task":
        return link["name"]
    if link["kind"] in ("irq", "softirq"):
        return link["name"] or "an interrupt not in the recording"
    if link["kind"] == "cpu":
        return "the CPU (%s)" % link["name"]
    return "not recorded"


def blocked_detail(sleeps, ns):
    """The wakers of one sleep site: by first link, the dominant chain, run delay."""
    first, chains, tids, delay = defaultdict(int), defaultdict(int), defaultdict(set), 0
    for s in sleeps:
        d = s["t_in"] - s["t"]
        links = s["wake"]["links"] if s["wake"] else [{"kind": "none", "name": None,
                                                         "recorded": False}]
        if s["wake"]:
            delay += s["t_in"] - s["wake"]["t"]
        first[label(links[0]) if s["wake"] else "no wake-up in the recording"] += d
        key = tuple((label(x), x["kind"], x["recorded"]) for x in links)
        chains[key] += d
        for i, x in enumerate(links):
            if "tid" in x:
                tids[(key, i)].add(x["tid"])
    ns = sum(first.values()) or ns  # the sleeps' own total (the parts may clip a little)
    top = max(chains.items(), key=lambda x: x[1]) if chains else ((), 0)
    chain = [{"who": who, "kind": kind, "recorded": rec,
              "tids": sorted(tids.get((top[0], i), ()))}
             for i, (who, kind, rec) in enumerate(top[0])]
    return {"wakers": [{"who": k, "share": round(v / ns, 4)} for k, v in
                       sorted(first.items(), key=lambda x: -x[1])],
            "chain": chain, "chain_share": round(top[1] / ns, 4) if ns else 0,
            "run_delay_share": round(delay / ns, 4) if ns else 0}


def causes(calls):
    """The slow calls' time per cause, largest first (see the module's comment)."""
    slow_ns = sum(c["ns"] for c in calls)
    by, where, sleeps = defaultdict(int), defaultdict(lambda: defaultdict(int)), defaultdict(list)
    for c in calls:
        for (cat, st), ns in c["parts"].items():
            key = (cat, st) if cat in ("blocked", "running") else (cat, ())
            by[key] += ns
            where[key][st] += ns
        for s in c["sleeps"]:
            if s["cat"] == "blocked":
                sleeps[s["stack"]].append(s)
    out = []
    for (cat, st), ns in sorted(by.items(), key=lambda x: -x[1]):
        if not st:
            st = max(where[(cat, st)].items(), key=lambda x: x[1])[0]
        fns = [f for f in st if not SCHED.match(f)]
        cause = {"category": cat, "stack": list(st), "where": fns[-1] if fns else None,
                 "ns": ns, "share": round(ns / slow_ns, 4) if slow_ns else 0}
        if cat == "blocked":
            cause.update(blocked_detail(sleeps[st], ns))
        out.append(cause)
    return out


def summary(calls, how, limit):
    """One slow set's truth: its calls, its causes (the first six and any of 3% or
    more), the time per category, all as shares of the slow calls' latency."""
    ns = sum(c["ns"] for c in calls)
    cs = causes(calls)
    cats = defaultdict(int)
    for c in cs:
        cats[c["category"]] += c["ns"]
    return {"rule": how, "threshold_ns": limit, "calls": len(calls), "ns": ns,
            "categories": {k: round(v / ns, 4) for k, v in cats.items()} if ns else {},
            "causes": [c for i, c in enumerate(cs) if i < 6 or c["share"] >= 0.03],
            "parts": [{"category": cat, "stack": list(st), "ns": v}
                      for (cat, st), v in sorted(parts_of(calls).items(), key=lambda x: -x[1])]}


def parts_of(calls):
    out = defaultdict(int)
    for c in calls:
        for key, v in c["parts"].items():
            out[key] += v
    return out


def main(argv):
    args = argv[1:]
    followed, rng, brief = "all", None, "--brief" in args
    args = [a for a in args if a != "--brief"]
    if "--followed" in args:
        i = args.index("--followed")
        followed = args[i + 1]
        del args[i:i + 2]
    if "--range" in args:
        i = args.index("--range")
        try:
            rng = (int(args[i + 1]), int(args[i + 2]))
        except (IndexError, ValueError):
            fail("--range LO HI: two integers")
        del args[i:i + 3]
    if len(args) != 2:
        fail("usage: real-truth.py [--brief] RECORDING ENTRY [--followed all|COMM] "
             "[--range LO HI]")
    path, entry = args
    if not os.path.isfile(path):
        fail("%s: no such file" % path)
    rp = Replay(entry, comms(path), followed)
    report = run(["trace-cmd", "report", "-t", "-l", "-O", "fgraph:tailprint", path])
    for line in report.splitlines():
        rp.line(line)
    calls = rp.calls
    if not calls:
        fail("%s: no complete call of %s" % (path, entry))
    limit, how = explain_truth().threshold([c["ns"] for c in calls])
    slow = [c for c in calls if c["ns"] > limit]
    if not slow:  # max(p90, 2*median) above every call of a few: the slowest tenth
        lat = sorted(c["ns"] for c in calls)
        limit, how = lat[-math.ceil(0.1 * len(lat))], "the slowest tenth (no call above %s)" % how
        slow = [c for c in calls if c["ns"] >= limit]
    out = {"recording": os.path.basename(path), "entry": entry, "followed": followed,
           "irq_events": rp.irq_seen, "calls": len(calls),
           "total_ns": sum(c["ns"] for c in calls),
           "latencies_ns": sorted(c["ns"] for c in calls),
           "slow": summary(slow, how, limit)}
    if rng:
        sel = [c for c in calls if rng[0] <= math.floor(math.log2(max(c["ns"], 1))) <= rng[1]]
        out["range"] = summary(sel, "buckets %d-%d" % rng, None)
    if brief:
        del out["latencies_ns"]
        for part in ("slow", "range"):
            out.get(part, {}).pop("parts", None)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv)
