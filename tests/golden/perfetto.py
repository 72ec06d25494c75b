#!/usr/bin/env python3
"""darc export --perfetto against Perfetto's schema and the database.

usage: perfetto.py DARC

On samples with calls, sleeps, wake-ups and interrupts (analyzed here, and
explained with darc explain so that the trace carries its findings), the
export is decoded by `protoc --decode=perfetto.protos.Trace` with Perfetto's
own message definitions (tests/perfetto/trace-subset.proto, taken from
google/perfetto), and:
  - protoc reads it whole, and finds no field the schema lacks;
  - every track is described before an event uses it, every interned
    function name before a slice names it by iid;
  - per track, the slices nest (each end closes the slice on top of its
    track's stack), and nothing is left open;
  - the call slices are the database's complete calls, as many, each once,
    on its task's thread (interrupt-context calls on their CPU's track),
    named by its function, lasting its incl_ns exactly, its latency parts
    as annotations;
  - the thread states are the off-CPU intervals' (out in their state,
    runnable at the wake-up, running again on the CPU they came back on);
  - every wake-up flow has its start and its end, one per wake-up that
    ended a sleep;
  - the interrupts are the irq intervals;
  - darc explain's slow calls are marked darc.slow, as many as the slow
    parts hold, and each slow part's slice carries its causes' sentences.
Exit 0 pass, 1 fail, 77 without protoc or sqlite3's module.
"""
import collections
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")
PROTO_DIR = os.path.join(HERE, "..", "perfetto")
THREAD, IRQ, IRQ_CALLS, FINDING = 2, 3, 4, 7
STATE = {"TASK_STATE_RUNNABLE": "R", "TASK_STATE_RUNNING": "Running",
         "TASK_STATE_INTERRUPTIBLE_SLEEP": "S", "TASK_STATE_UNINTERRUPTIBLE_SLEEP": "D",
         "TASK_STATE_STOPPED": "T", "TASK_STATE_DEAD": "Z"}
PARTS = ["excl_ns", "children_ns", "irq_ns", "softirq_ns", "preempt_ns", "blocked_ns"]
failures = 0


def ok(msg):
    print("ok:", msg)


def not_ok(msg, problems=()):
    global failures
    failures += 1
    print("FAIL:", msg)
    for p in list(problems)[:8]:
        print("   ", p)


def parse(text):
    """protoc's text format as nested dicts: each field a list of values."""
    root, stack = collections.defaultdict(list), []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if line.endswith("{"):
            child = collections.defaultdict(list)
            cur[line[:-1].strip()].append(child)
            stack.append(cur)
            cur = child
        elif line == "}":
            cur = stack.pop()
        elif line:
            key, _, value = line.partition(": ")
            if value.startswith('"'):
                value = value[1:-1].encode("latin-1").decode("unicode_escape").encode(
                    "latin-1").decode("utf-8")
            elif re.fullmatch(r"-?\d+", value):
                value = int(value)
            cur[key].append(value)
    return root


def one(msg, key, default=None):
    v = msg.get(key)
    return v[0] if v else default


def decode(path):
    r = subprocess.run(["protoc", "--proto_path=" + PROTO_DIR, "--decode=perfetto.protos.Trace",
                        "trace-subset.proto"], stdin=open(path, "rb"), capture_output=True,
                       text=True, encoding="latin-1")
    return r.returncode, r.stdout, r.stderr


def check_sample(darc, tmp, sample):
    db = os.path.join(tmp, sample + ".db")
    out = os.path.join(tmp, sample + ".pftrace")
    subprocess.run([darc, "analyze", "-q", "-o", db, os.path.join(SAMPLES, sample + ".dat")],
                   check=True)
    subprocess.run([darc, "explain", db, "--top", "2"], check=True, stdout=subprocess.DEVNULL)
    r = subprocess.run([darc, "export", db, "--perfetto", "-o", out], capture_output=True,
                       text=True)
    if r.returncode:
        not_ok("%s: export --perfetto exit %d: %s" % (sample, r.returncode, r.stderr))
        return
    rc, text, err = decode(out)
    unknown = [l for l in text.splitlines() if re.match(r"\s*\d+[:{ ]", l)]
    if rc or unknown:
        not_ok("%s: protoc --decode=perfetto.protos.Trace: exit %d %s" % (sample, rc, err),
               unknown)
        return
    packets = parse(text)["packet"]
    ok("%s: protoc decodes %d packets, every field in Perfetto's schema" % (sample, len(packets)))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    check_trace(sample, con, packets)


def check_trace(sample, con, packets):
    described, names, problems = set(), {}, []
    open_ = collections.defaultdict(list)  # track -> stack of begun slices
    slices = []  # (track, name, begin ts, end ts, annotations, categories)
    instants, states, flows = [], [], collections.defaultdict(list)
    for p in packets:
        for d in p.get("interned_data", []):
            for n in d.get("event_names", []):
                names[one(n, "iid")] = one(n, "name")
        for t in p.get("track_descriptor", []):
            described.add(one(t, "uuid"))
        for s in p.get("generic_kernel_task_state_event", []):
            states.append((one(p, "timestamp"), one(s, "tid"), STATE[one(s, "state")],
                           one(s, "cpu")))
        for e in p.get("track_event", []):
            track, ts = one(e, "track_uuid"), one(p, "timestamp")
            if track not in described:
                problems.append("track %d used before it is described" % track)
            if "name_iid" in e and one(e, "name_iid") not in names:
                problems.append("name iid %d used before it is interned" % one(e, "name_iid"))
            name = names.get(one(e, "name_iid")) if "name_iid" in e else one(e, "name")
            kind = one(e, "type")
            ann = {}
            for a in e.get("debug_annotations", []):
                key = one(a, "name") or annotation_name(packets, one(a, "name_iid"))
                ann[key] = one(a, "int_value", one(a, "string_value"))
            if kind == "TYPE_SLICE_BEGIN":
                open_[track].append((name, ts, ann, tuple(e.get("category_iids", []))))
            elif kind == "TYPE_SLICE_END":
                if not open_[track]:
                    problems.append("track %d: an end with nothing open" % track)
                    continue
                name, t0, ann, cats = open_[track].pop()
                slices.append((track, name, t0, ts, ann, cats))
            elif kind == "TYPE_INSTANT":
                instants.append((track, ts, name))
                for f in e.get("flow_ids", []):
                    flows[f].append("start")
                for f in e.get("terminating_flow_ids", []):
                    flows[f].append("end")
    problems += ["track %d: %d slices left open" % (t, len(s)) for t, s in open_.items() if s]
    if problems:
        not_ok("%s: tracks, names and nesting" % sample, problems)
    else:
        ok("%s: %d slices nest on their tracks, every track and name given before use"
           % (sample, len(slices)))
    check_calls(sample, con, slices)
    check_states(sample, con, states, flows)
    check_irqs(sample, con, slices)
    check_findings(sample, con, slices)


ANNOTATION_NAMES = {}


def annotation_name(packets, iid):
    if not ANNOTATION_NAMES:
        for n in packets[0]["interned_data"][0]["debug_annotation_names"]:
            ANNOTATION_NAMES[one(n, "iid")] = one(n, "name")
    return ANNOTATION_NAMES[iid]


def check_calls(sample, con, slices):
    got = collections.Counter()
    for track, name, t0, t1, ann, cats in slices:
        if track % 8 in (THREAD, IRQ_CALLS):
            parts = tuple(ann.get(p, 0) for p in PARTS)
            got[(track, name, t0, t1, ann.get("call"), ann.get("cpu"), parts)] += 1
    want = collections.Counter()
    q = ("SELECT c.id, c.task_id, c.cpu, c.t_entry, c.t_exit, c.flags, f.name, "
         + ", ".join("c." + p for p in PARTS) +
         " FROM call c JOIN func f ON f.id = c.func_id"
         " WHERE c.incl_ns IS NOT NULL AND c.flags & 3 = 0")
    for cid, tid, cpu, t0, t1, flags, name, *parts in con.execute(q):
        track = (cpu * 8 + IRQ_CALLS) if flags & 56 else (tid * 8 + THREAD)
        want[(track, name, t0, t1, cid, cpu, tuple(parts))] += 1
    if got == want:
        ok("%s: %d call slices, the database's %d complete calls, each on its track, named,"
           " lasting its incl_ns, its parts annotated" % (sample, sum(got.values()),
                                                        sum(want.values())))
    else:
        not_ok("%s: call slices %d, complete calls %d" % (sample, sum(got.values()),
                                                         sum(want.values())),
               ["only in the trace: %s" % (x,) for x in list(got - want)[:3]] +
               ["only in the database: %s" % (x,) for x in list(want - got)[:3]])


def check_states(sample, con, states, flows):
    want = collections.Counter()
    wakes = 0
    for tid, kind, state, cpu_out, cpu_in, t_out, t_in, wt, waker in con.execute(
            "SELECT s.task_id, s.kind, s.state, s.cpu_out, s.cpu_in, s.t_out, s.t_in, w.t,"
            " w.ctx != 0 OR w.waker_tid IN (SELECT tid FROM task)"
            " FROM sched_interval s LEFT JOIN wakeup w ON w.id = s.wakeup_id"):
        if kind == 0:
            out = "R"
        elif state is None:
            continue
        else:
            out = ("D" if state & 130 else "S" if state & 1 else "T" if state & 76 else "Z")
        want[(t_out, tid, out, cpu_out)] += 1
        if wt is not None and out != "R":
            want[(wt, tid, "R", cpu_out if cpu_in is None else cpu_in)] += 1
        if t_in is not None:
            want[(t_in, tid, "Running", cpu_in)] += 1
            wakes += wt is not None and bool(waker)
    got = collections.Counter(states)
    if got == want:
        ok("%s: %d thread states, the off-CPU intervals' (out, woken, running again)"
           % (sample, len(states)))
    else:
        not_ok("%s: thread states differ from sched_interval's" % sample,
               ["only in the trace: %s" % (x,) for x in list(got - want)[:3]] +
               ["only in the database: %s" % (x,) for x in list(want - got)[:3]])
    whole = sum(1 for f in flows.values() if sorted(f) == ["end", "start"])
    if whole == len(flows) == wakes:
        ok("%s: %d wake-up flows, each from its waker to the woken task (%d wake-ups ended"
           " a sleep)" % (sample, whole, wakes))
    else:
        not_ok("%s: %d flows, %d whole; %d wake-ups ended a sleep"
               % (sample, len(flows), whole, wakes))


def check_irqs(sample, con, slices):
    got = collections.Counter((t // 8, name, t0, t1) for t, name, t0, t1, *_ in slices
                              if t % 8 == IRQ)
    want = collections.Counter(con.execute(
        "SELECT i.cpu, k.name || coalesce(' ' || i.irq, '') || coalesce(' ' || i.name, ''),"
        " i.t_start, i.t_end FROM irq_interval i JOIN irq_kind k USING (kind)"
        " WHERE i.t_end IS NOT NULL"))
    if got == want:
        ok("%s: %d interrupts on their CPUs' tracks" % (sample, sum(got.values())))
    else:
        not_ok("%s: interrupts %d, irq intervals %d" % (sample, sum(got.values()),
                                                       sum(want.values())))


def check_findings(sample, con, slices):
    slow = sum(1 for *_, cats in slices if 2 in cats)
    want = 0
    for fnode, lo, hi in con.execute("SELECT fnode_id, lo, hi FROM explain_subject"):
        want += con.execute("SELECT count(*) FROM call WHERE fnode_id = ? AND incl_ns IS NOT NULL"
                            " AND flags & 3 = 0 AND incl_ns >= ? AND incl_ns < ?",
                            (fnode, 1 << lo if lo else 0, 1 << (hi + 1))).fetchone()[0]
    causes = sorted(v for t, _, _, _, ann, _ in slices if t % 8 == FINDING
                    for v in ann.values())
    sentences = sorted(r[0] for r in con.execute("SELECT sentence FROM explain_cause"))
    if slow == want > 0 and causes == sentences:
        ok("%s: %d slow calls marked darc.slow, %d causes on the findings' tracks"
           % (sample, slow, len(causes)))
    else:
        not_ok("%s: %d calls marked slow, %d in the slow parts; %d causes, %d sentences"
               % (sample, slow, want, len(causes), len(sentences)))


def main():
    darc = os.path.abspath(sys.argv[1])
    if not shutil.which("protoc"):
        print("skip: no protoc (apt-get install protobuf-compiler)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="darc-perfetto.") as tmp:
        for sample in ["vm-fsyncread-v7", "vm-chain-v7", "vm-odirect-v7", "vm-cpuhog-v7"]:
            ANNOTATION_NAMES.clear()
            check_sample(darc, tmp, sample)
    print("%s" % ("FAIL: %d" % failures if failures else "all passed"))
    sys.exit(1 if failures else 0)


main()
