#!/usr/bin/env python3
# values-vs-dat.py BIN.db TEXT.db WHAT: the calls' values (call.retval, table call_value)
# of darc analyze of a trace.dat (BIN) and of the text of the same trace
# (TEXT), call by call in order of entry on each CPU (a text without times
# orders the CPUs' calls only among themselves; text-vs-dat.py checks the
# calls are the same). Helper of tests/golden/fgopt.sh.
#
# WHAT, comma-separated, is what the text prints; each must agree, and what
# it does not print must be NULL in TEXT:
#   retval   the return values
#   sysret   those of the system calls only (old trace-cmd prints no others)
#   args     the arguments: the text's values, in order, are the trace.dat's
#            argument registers (a struct's "0x1:0x2" takes two), whatever
#            their names; a signed number is its register as two's complement
#   retaddr  where each call returned to, function and offset
#   retfunc  the function alone (trace-cmd prints no offset)
#   auto     what the text has: each kind of value that some call of TEXT has
import json
import sqlite3
import sys

# A text prints io_schedule_timeout as the section marker at its address
# (__sched_text_start); darc names the function from a trace.dat's kallsyms.
MARKERS = {"__sched_text_start": "io_schedule_timeout"}

Q = ("SELECT f.name, c.retval, v.args, v.retaddr, f.kind = 1 FROM call c"
     " JOIN func f ON f.id = c.func_id LEFT JOIN call_value v ON v.id = c.id ORDER BY c.cpu, c.id")


def registers(args):
    """The register values of an args JSON object, in order."""
    out = []
    for v in json.loads(args).values():
        if isinstance(v, int):
            out.append(v & (2**64 - 1))
        else:
            out += [int(x, 16) for x in v.split(":")]
    return out


def main():
    dat, text, what = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
    a = sqlite3.connect(dat).execute(Q).fetchall()
    b = sqlite3.connect(text).execute(Q).fetchall()
    if "auto" in what:
        what = {"args"} if any(r[2] is not None for r in b) else set()
        if any(r[1] is not None for r in b):
            what.add("retval" if any(r[1] is not None and not r[4] for r in b) else "sysret")
        if any(r[3] is not None for r in b):
            what.add("retaddr" if any("+" in r[3] for r in b if r[3]) else "retfunc")
    bad = []
    if len(a) != len(b):
        bad.append(f"{len(a)} calls in the trace.dat, {len(b)} in the text")
    n = {"retval": 0, "args": 0, "retaddr": 0}
    for (fa, ra, aa, pa, sa), (fb, rb, ab, pb, _) in zip(a, b):
        prints_ret = "retval" in what or ("sysret" in what and sa)
        if fa != MARKERS.get(fb, fb):
            bad.append(f"call {fa} is {fb} in the text")
            continue
        if prints_ret and (rb is None or rb != ra):
            bad.append(f"{fa}: retval {ra} in the trace.dat, {rb} in the text")
        if "args" in what and ab is not None:
            ra_, rb_ = registers(aa) if aa else [], registers(ab)
            if rb_ != ra_[:len(rb_)]:
                bad.append(f"{fa}: args {ab} are not the registers {aa}")
        if "retaddr" in what and pb != pa:
            bad.append(f"{fa}: retaddr {pa} in the trace.dat, {pb} in the text")
        if "retfunc" in what and (pb is None or pa is None or pb != pa.split("+")[0]):
            bad.append(f"{fa}: returns to {pa} in the trace.dat, to {pb} in the text")
        for k, v in (("retval", rb), ("args", ab), ("retaddr", pb)):
            if v is not None:
                n[k] += 1
            prints = {"retval": prints_ret, "args": "args" in what,
                      "retaddr": "retaddr" in what or "retfunc" in what}[k]
            if v is not None and not prints:
                bad.append(f"{fa}: the text does not print {k}, yet it has {v}")
    if "args" in what and not n["args"]:
        bad.append("no call has its arguments in the text")
    what = ",".join(sorted(what)) or "none"
    print(f"{len(b)} calls; with retval {n['retval']}, args {n['args']},"
          f" retaddr {n['retaddr']}: {what} {'agree' if not bad else 'DIFFER'}")
    for m in bad[:10]:
        print("  FAIL:", m)
    return 1 if bad else 0


sys.exit(main())
