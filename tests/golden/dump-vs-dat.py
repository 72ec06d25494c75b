#!/usr/bin/env python3
# dump-vs-dat.py DAT.dump TEXT.dump PREC [SKIP...]: `darc dump` of a text
# (TEXT) and of the trace.dat it was printed from (DAT) must hold the same
# events. Helper of tests/golden/text-forms.sh.
#
# Per CPU, in order (a text keeps each CPU's order; across CPUs events of
# the same printed time may be printed in either order), event by event:
#   - the same event name and task (pid);
#   - the same time to the printed precision: PREC ns (1000 for the us the
#     kernel and trace-cmd print, which they round to);
#   - every field the text's event has, the trace.dat's value, except the
#     fields named in SKIP ("caller": stack frames the text names, which
#     get made-up addresses; "__syscall_nr": not printed but by -R;
#     "parent_ip": trace-cmd's function plugin prints none) and the "text"
#     field of the events the reader keeps by name only; "R+" in SKIP:
#     prev_state may lack the preempted bit (256) that trace-cmd's sched
#     plugin (libtraceevent 1.7) does not print ("R" for "R+"); a raw
#     kernel_stack's caller array as far as the trace.dat's record goes;
#     a number printed in another base by the trace.dat's format (7.3's
#     openat: flags in decimal, mode in octal digits) as the same number.
# With --pretty dumps (the frames' names): a kernel_stack's frames, each
# the trace.dat's name, or an address one side could not name (the kernel
# prints the trampoline's address; trace-cmd's kallsyms names it); SKIP
# "stacks" then says to compare no other event's fields.
import re
import sys

LINE = re.compile(r"^(?:\S+: )?\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{6,9}): ([^:]+): ?(.*)$")
KEY = re.compile(r" (?=[A-Za-z_][A-Za-z0-9_]*=)")


def cut_frames(a, b):
    """A kernel_stack's caller=ARRAY[..] (-R) as far as the trace.dat's record
    goes: the kernel cuts caller[8] to the frames it has; darc pads the rest
    with zeros, trace-cmd prints whatever memory follows the record."""
    if not (a.startswith("ARRAY[") and b.startswith("ARRAY[")):
        return a, b
    xa, xb = a[6:-1].split(", "), b[6:-1].split(", ")
    n = 0
    while n + 8 <= len(xa) and any(x != "00" for x in xa[n:n + 8]):
        n += 8
    return xa[:n], xb[:n]


def load(path):
    cpus = {}
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("cpus=") or line.startswith("CPU:"):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit(f"{path}:{n}: not a darc dump line: {line[:80]}")
            frac = m.group(5).ljust(9, "0")
            ts = int(m.group(4)) * 10**9 + int(frac)
            cpus.setdefault(int(m.group(3)), []).append(
                (ts, m.group(6), int(m.group(2)), m.group(7), n))
    return cpus


def fields(s):
    out = {}
    for item in KEY.split(s):
        k, _, v = item.partition("=")
        out[k] = v
    return out


def number(v, octal=False):
    """A printed number: 0x hex, decimal (octal digits with octal), else None."""
    try:
        return int(v, 16) if v.startswith("0x") else int(v, 8 if octal else 10)
    except ValueError:
        return None


def same_value(k, a, b):
    """The same field value: the same text, or the same number where the
    text's format prints it otherwise (7.3's sys_enter_openat prints flags in
    decimal and mode in octal digits, the text's format every argument in
    hex)."""
    if a == b:
        return True
    if a is None:
        return False
    x, y = number(a, octal=(k == "mode")), number(b)
    return x is not None and x == y


def frames(s):
    """The names of a --pretty kernel_stack: '\\t=> name\\n' each."""
    return [f for f in s.replace("\\n", "\n").replace("\\t=> ", "").split("\n") if f]


def main():
    dat, text, prec = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
    skip = set(sys.argv[4:])
    bad = []
    if sorted(dat) != sorted(text):
        bad.append(f"CPUs differ: {sorted(dat)} and {sorted(text)}")
    n = 0
    for cpu in sorted(set(dat) & set(text)):
        d, t = dat[cpu], text[cpu]
        if len(d) != len(t):
            bad.append(f"cpu {cpu}: {len(d)} events in the trace.dat, {len(t)} in the text")
        for a, b in zip(d, t):
            n += 1
            where = f"cpu {cpu}, text line {b[4]} (dat line {a[4]})"
            if a[1] != b[1] or a[2] != b[2]:
                bad.append(f"{where}: {b[1]} of {b[2]}, the trace.dat has {a[1]} of {a[2]}")
                break  # out of step from here on
            if 2 * abs(a[0] - b[0]) > prec:
                bad.append(f"{where}: {b[1]} at {b[0]}, the trace.dat's at {a[0]}")
            if a[1] == "kernel_stack" and "\\t=> " in b[3]:
                fa, fb = frames(a[3]), frames(b[3])
                if len(fa) != len(fb) or any(
                        x != y and not x.startswith("0x") and not y.startswith("0x")
                        for x, y in zip(fa, fb)):
                    bad.append(f"{where}: frames {fb}, the trace.dat's {fa}")
                continue
            if "stacks" in skip:
                continue  # --pretty dumps: the frames only
            if b[3].startswith("text="):
                continue  # kept by name: its printed fields as one string
            fa, fb = fields(a[3]), fields(b[3])
            if ("R+" in skip and a[1] == "sched_switch" and fa.get("prev_state") == "256"
                    and fb.get("prev_state") == "0"):
                fa["prev_state"] = "0"
            if a[1] == "kernel_stack" and "caller" in fa and "caller" in fb:
                fa["caller"], fb["caller"] = cut_frames(fa["caller"], fb["caller"])
            for k, v in fb.items():
                if k not in skip and not same_value(k, fa.get(k), v):
                    bad.append(f"{where}: {b[1]}'s {k}={v}, the trace.dat's {fa.get(k)}")
    for b in bad[:10]:
        print(b)
    if bad:
        print(f"{len(bad)} differences")
        sys.exit(1)
    print(f"{n} events alike")


main()
