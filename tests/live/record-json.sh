#!/bin/bash
# Live test of darc-record --json (issue 25): --check --json must parse and say what
# tracefs itself says (available_tracers, the event systems, trace_clock, trace_options,
# current_tracer, the probe files) and what --check's text says; a recording's --json
# summary (the last line of stdout, after the command's own output) must agree with
# `darc info --json` of the bundle it wrote (events, per CPU; lost events and marks) and
# with its manifest (pids, exit status, probes, lost events, the tracer's cost measured),
# with -q leaving stderr without the text summary; --no-calibrate measures nothing.
# --check and the recorder's start warn when the events chosen leave out what names
# the wakers (no irq events, a filter on them). Skips (77) without root, tracefs or
# uprobes.
# Usage: record-json.sh DARC_RECORD DARC TARGET
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
live_init "$@"

"$rec" --check --json >"$work/check.json"
check "--check --json exits 0" [ $? -eq 0 ]
"$rec" --check >"$work/check.txt"
check "--check exits 0" [ $? -eq 0 ]
python3 - "$work/check.json" "$work/check.txt" "$tfs" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
text = {}
for line in open(sys.argv[2]):
    key, _, value = line.partition(":")
    text[key.strip()] = value.strip()
tfs = sys.argv[3]
def read(name):
    with open(os.path.join(tfs, name)) as f:
        return f.read()
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
check(j["tracefs"] == tfs == text["tracefs"], "tracefs: %s" % j["tracefs"])
check(j["tracers"] == read("available_tracers").split(), "tracers = available_tracers")
check(text["tracers"].split() == j["tracers"], "tracers: the text says the same")
check(j["current_tracer"] == read("current_tracer").strip() == text["current tracer"],
      "current tracer: %s" % j["current_tracer"])
check(j["function_graph"] == ("function_graph" in j["tracers"]) and
      text["function_graph"].startswith("yes" if j["function_graph"] else "no"),
      "function_graph: %s" % j["function_graph"])
for key, f, label in (("kprobes", "kprobe_events", "kprobes"),
                      ("uprobes", "uprobe_events", "uprobes"),
                      ("pid_filter", "set_event_pid", "pid filter"),
                      ("function_pid_filter", "set_ftrace_pid", "function pids")):
    have = os.path.exists(os.path.join(tfs, f))
    check(j[key] == have and text[label].startswith("yes" if have else "no"),
          "%s: %s (%s %s)" % (key, j[key], f, "exists" if have else "missing"))
ev = os.path.join(tfs, "events")
systems = {d for d in os.listdir(ev) if os.path.exists(os.path.join(ev, d, "enable"))}
check(set(j["event_systems"]) == systems and len(j["event_systems"]) == len(systems),
      "event systems: the %d directories of events/ with an enable file" % len(systems))
check(text["event systems"].split() == j["event_systems"], "event systems: the text says the same")
clocks = read("trace_clock").split()
check(j["clocks"] == [c.strip("[]") for c in clocks] and
      "[%s]" % j["clock"] in clocks and text["trace clocks"].split() == clocks,
      "trace clocks: %s, in use %s" % (len(clocks), j["clock"]))
opts = read("trace_options").split()
want = {o[2:] if o.startswith("no") else o: not o.startswith("no") for o in opts}
check(j["options"] == want and text["trace options"].split() == opts,
      "trace options: %d, as trace_options and the text say" % len(opts))
inst = sorted(os.listdir(os.path.join(tfs, "instances")))
# another live suite may start or end an instance meanwhile: its own darc- ones only
check(j["instances"] and text["instances"].startswith("yes") and
      [i for i in inst if not i.startswith("darc-")] ==
      sorted(i for i in j["instances_now"] if not i.startswith("darc-")),
      "instances: as instances/ holds")
lock = j["top_level_lock"]
check(lock["held"] == text["top-level lock"].startswith("held") and
      (not lock["held"] or str(lock["pid"]) in text["top-level lock"] or lock["pid"] == 0),
      "top-level lock: %s, as the text says" % ("held" if lock["held"] else "free"))
sys.exit(1 if fails else 0)
PY
check "--check --json agrees with tracefs and the text" [ $? -eq 0 ]

# --check weighs the events the options would record for what they leave out of
# the evidence that names wakers, in the analysis's words (fmt/wake-words.h), and
# the recorder warns of it at its start: no irq events, or a filter on them
wake_line() { sed -n 's/^wake-ups: *//p' "$1"; }
wake_json() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["wake_warning"])' "$1"; }
check "--check: the default events name what ends sleeps" eval \
	'wake_line "$work/check.txt" | grep -q "^named by the irq events" && [ "$(wake_json "$work/check.json")" = None ]'
"$rec" --check --no-default-events -e sched >"$work/noirq.txt"
"$rec" --check --json --no-default-events -e sched >"$work/noirq.json"
check "--check --no-default-events -e sched: no irq events, what ends a sleep cannot be named" eval \
	'wake_line "$work/noirq.txt" | grep -q "^warning: the recording will have no irq events.*cannot be named (record irq and irq_vectors events" &&
	 [ "$(wake_json "$work/noirq.json")" = "$(wake_line "$work/noirq.txt" | sed "s/^warning: //")" ]'
"$rec" --check -e irq:irq_handler_entry --filter 'irq == 1' >"$work/irqf.txt"
check "--check with a filter on irq events: the interrupts it leaves out" eval \
	'wake_line "$work/irqf.txt" | grep -q "^warning: the filter .irq == 1. of irq:irq_handler_entry leaves interrupts out"'
"$rec" -q -o "$work/noirq.dat" --no-default-events -e sched -- true 2>"$work/noirq.err"
check "a recording without irq events: warned at its start" eval \
	'[ -s "$work/noirq.dat" ] && grep -q "^darc-record: warning: the recording will have no irq events" "$work/noirq.err"'

# a recording: the target prints nothing, so stdout is the summary alone
N=15
out=$work/json.dat
"$rec" -q --json -o "$out" -U "$target:run,ping" \
	-e syscalls:sys_enter_write,syscalls:sys_exit_write -- "$target" $N \
	>"$work/summary.out" 2>"$work/summary.err"
check "darc-record -q --json exits 0" [ $? -eq 0 ]
state_same "after the recording"
check "-q --json: no text summary on stderr" eval '! grep -q "wrote" "$work/summary.err"'
check "--json: one line on stdout" [ "$(wc -l <"$work/summary.out")" = 1 ]
"$darc" info --json "$out" >"$work/info.json"
python3 - "$work/summary.out" "$work/info.json" "$out" "$N" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
info = json.load(open(sys.argv[2]))
m = info["manifest"]
n = int(sys.argv[4])
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
check(s["bundle"] == sys.argv[3], "bundle: the -o file")
check(s["events"] == info["events"] > 0, "events: %d, as darc info counts" % s["events"])
bi = {b["name"]: {c["cpu"]: c for c in b["cpus"]} for b in info["buffers"]}
pairs = [(b["name"], c, bi.get(b["name"], {}).get(c["cpu"])) for b in s["buffers"]
         for c in b["cpus"]]
check(all(i is not None for _, _, i in pairs) and
      len(pairs) == sum(len(v) for v in bi.values()), "the same buffers and CPUs as darc info")
for name, c, i in pairs:
    if i is None:
        continue
    # (bytes differ: the summary's are the pages', darc info's those stored, compressed)
    check(c["events"] == i["events"] and c["lost_marked"] == i["lost"] and
          c["lost_marks"] == i["lost_marks"] and c["overrun"] == i["overrun"],
          "buffer '%s' cpu %d: %d events, lost %d in %d marks (overrun %d); darc info: "
          "%d, %d in %d (%s)" % (name, c["cpu"], c["events"], c["lost_marked"],
                                 c["lost_marks"], c["overrun"], i["events"], i["lost"],
                                 i["lost_marks"], i["overrun"]))
check(s["lost_events"] == m["lost_events"] ==
      sum(c["overrun"] + c["dropped"] + c["commit_overrun"] for b in s["buffers"]
          for c in b["cpus"]), "lost events: %d, as the manifest says" % s["lost_events"])
check(s["pids"] == m["target"]["pids"] and s["exit_code"] == 0 == m["target"]["exit_code"],
      "pids %s, exit 0" % s["pids"])
want = ["%s:%s" % (p["system"], p["event"]) for p in m["probes"]]
check(s["probes"] == want and len(want) == 4, "probes: %s" % ", ".join(want))
# the workload's own counts: run once, ping N times, a write per ping
ev = info["events_by_name"]
check(ev.get("darc_uprobes:ping") == n and ev.get("darc_uprobes:run") == 1,
      "the bundle holds run 1 and ping %d" % n)
check(s["stop_reason"] == "target exited" and s["duration_s"] > 0, "stopped: target exited")
# the tracer's cost measured before recording: uprobes, uretprobes, the tracepoints
c = m["tracer_cost"]
check(s["tracer_cost"] == c and sorted(c["ns"]) == ["tracepoint", "uprobe", "uretprobe"] and
      all(v > 0 for v in c["ns"].values()) and
      all(c["mechanisms"][k]["calls_per_iteration"] >= 1 for k in c["ns"]),
      "tracer_cost measured: %s" % c["ns"])
check(sorted(info["tracer_cost_ns"]) == sorted(c["ns"]) and  # to 0.1 ns
      all(abs(info["tracer_cost_ns"][k] - v) <= 0.05 for k, v in c["ns"].items()) and
      all(v["source"] == "measured" for v in info["tracer_cost"].values()),
      "darc info --json: tracer_cost_ns %s, measured" % info["tracer_cost_ns"])
sys.exit(1 if fails else 0)
PY
check "the --json summary agrees with darc info --json" [ $? -eq 0 ]

# --no-calibrate: nothing measured, and darc info says so
"$rec" -q --no-calibrate -o "$work/nocal.dat" -U "$target:run,ping" -- "$target" 3 >/dev/null 2>&1
check "darc-record --no-calibrate exits 0" [ $? -eq 0 ]
check "--no-calibrate: no tracer cost in the manifest, darc info says it was not measured" \
	eval '"$darc" info --json "$work/nocal.dat" | python3 -c "import json, sys; i = json.load(sys.stdin); sys.exit(i[\"manifest\"][\"tracer_cost\"] is not None or i[\"tracer_cost_ns\"] is not None)" &&
	"$darc" info "$work/nocal.dat" | grep -q "^tracer cost:  not measured (darc-record --no-calibrate)"'
state_same "after the recording without calibration"
summary
