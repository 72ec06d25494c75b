#!/usr/bin/env python3
"""names.py DARC: names from a recording reach text output escaped.

A traced process names itself, and function, irq and host names come from the
recording too: an ESC sequence, BEL, CR or LF in one must not reach the
terminal raw through any text output (info, dump, analyze's summary, hist,
peaks, diff, paths, explain, waits, io --irqs, export --folded, error
messages), while JSON output keeps the exact name. Two recordings carry such
names:
  - samples/vm-odirect-v6.dat (uncompressed) with same-length substitutions:
    the workload's comm, a kernel function, an irq handler and the host name;
  - an ftrace text in trace-cmd report form made here: a comm, its waker's
    comm, two functions (one with a byte that is not UTF-8) and an irq handler.
Every text output must hold no control byte but LF, no DEL, no byte outside
valid UTF-8 and no C1 control, and must show each name it prints in escaped
form; every JSON output must hold the exact name.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

darc = os.path.realpath(sys.argv[1])
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
fails = passes = 0


def check(ok, what):
    global fails, passes
    print(("ok: " if ok else "FAIL: ") + what)
    if ok:
        passes += 1
    else:
        fails += 1


def run(*args, rc=0):
    p = subprocess.run([darc] + [a if isinstance(a, bytes) else str(a) for a in args],
                       capture_output=True)
    if p.returncode != rc:
        check(False, f"darc {args[0]}: exit {p.returncode}: {p.stderr[:300]!r}")
    return p.stdout, p.stderr


# a control byte but LF, DEL, a C1 control (alone or as UTF-8) or a byte outside UTF-8
RAW = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]")


def raw_bytes(data):
    """The first raw control or non-UTF-8 byte sequence of data (with context), or None."""
    m = RAW.search(data)
    if m:
        return data[max(0, m.start() - 20):m.end() + 20]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return data[max(0, e.start - 20):e.end + 20]
    m = re.search("[\x80-\x9f]", text)
    return text[max(0, m.start() - 20):m.end() + 20].encode() if m else None


def text_out(what, args, shows=(), rc=0):
    """Run a text command: nothing raw on stdout or stderr, each of @shows in it."""
    out, err = run(*args, rc=rc)
    bad = raw_bytes(out + err)
    check(bad is None, f"{what}: no raw control bytes" + (f" (found {bad!r})" if bad else ""))
    for s in shows:
        check(s in out + err, f"{what}: shows {s.decode(errors='backslashreplace')[:60]}")


def strings(j):
    if isinstance(j, str):
        yield j
    elif isinstance(j, dict):
        for k, v in j.items():
            yield k
            yield from strings(v)
    elif isinstance(j, list):
        for v in j:
            yield from strings(v)


def json_out(what, args, names):
    """Run a JSON command: valid JSON whose strings hold each of @names exactly."""
    out, _ = run(*args)
    try:
        all_strings = list(strings(json.loads(out)))
    except ValueError as e:
        check(False, f"{what}: not JSON: {e}")
        return
    for n in names:
        check(any(n.decode() in s for s in all_strings), f"{what}: holds {n!r} exactly")


def vis(name, folded=False):
    """The escaped form darc prints (the test's own statement of the rules)."""
    named = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0a: b"\\n", 0x0b: b"\\v",
             0x0c: b"\\f", 0x0d: b"\\r", 0x1b: b"\\e", 0x5c: b"\\\\"}
    out = b""
    i = 0
    while i < len(name):
        c = name[i]
        u = utf8_len(name, i)
        if c in named:
            out += named[c]
        # C0, DEL, ';' in folded stacks, the C1 CSI as UTF-8, and every byte that is
        # not part of a valid UTF-8 character
        elif (c < 0x20 or c == 0x7f or (folded and c == 0x3b) or
              name[i:i + 2] == b"\xc2\x9b" or (c >= 0x80 and not u)):
            out += b"\\x%02x" % c
        elif u > 1:
            out += name[i:i + u]
            i += u
            continue
        else:
            out += bytes([c])
        i += 1
    return out


def utf8_len(b, i):
    """The length of the valid UTF-8 character at b[i], 0 if there is none."""
    for n in (1, 2, 3, 4):
        try:
            b[i:i + n].decode("utf-8")
            return n
        except UnicodeDecodeError:
            continue
    return 0


tmp = tempfile.mkdtemp()

# ---- 1. a trace.dat: same-length substitutions in an uncompressed sample ----
COMM = b"\x1b[31m\a\r\n;\\x"          # for vm-workload: ESC, BEL, CR, LF, ';', backslash
FUNC = b"ext4\x1b]0;pwn\a\\;\xc2\x9b2Jx"  # for ext4_file_read_iter: OSC title, C1 as UTF-8
IRQ = b"virtio0\x1b[2J\n;"             # for virtio0-req.1
HOST = b"(\x1b[0m)"                    # for the host name (none)
data = open(os.path.join(top, "samples", "vm-odirect-v6.dat"), "rb").read()
for old, new in ((b"vm-workload", COMM), (b"ext4_file_read_iter", FUNC),
                 (b"virtio0-req.1", IRQ), (b"(none)", HOST)):
    assert len(old) == len(new) and data.count(old), old
    data = data.replace(old, new)
dat = os.path.join(tmp, "names.dat")
open(dat, "wb").write(data)
db = os.path.join(tmp, "names.db")
orig = os.path.join(tmp, "orig.db")
run("analyze", "-q", "-f", "-o", orig, os.path.join(top, "samples", "vm-odirect-v6.dat"))
CMDLINE = COMM[:COMM.index(b"\n")]  # saved_cmdlines is a text: the comm stops at its LF

text_out("info names.dat", ["info", dat], [vis(HOST)])
text_out("dump names.dat", ["dump", dat], [vis(CMDLINE) + b"-162", vis(FUNC)])
text_out("dump --pretty names.dat", ["dump", "--pretty", dat],
         [b"[" + vis(COMM) + b"]", b"name=" + vis(IRQ)])
text_out("analyze names.dat", ["analyze", "-f", "-o", db, dat], [vis(FUNC)])
text_out("hist", ["hist", db, "--func", FUNC], [vis(FUNC) + b": incl latency"])
text_out("peaks --explain", ["peaks", db, "--func", FUNC, "--explain"], [vis(FUNC)])
text_out("diff", ["diff", orig, db, "--show", "1"], [vis(FUNC) + b" (only in B)"])
text_out("paths", ["paths", db, "--func", "vfs_read"], [vis(FUNC)])
text_out("explain", ["explain", db, "--verbose"], [vis(FUNC)])
text_out("waits", ["waits", db, "--task", "162"], [vis(CMDLINE) + b" [162]"])
text_out("io --irqs", ["io", db, "--irqs"], [b" " + vis(CMDLINE) + b" "])
text_out("export --folded --root comm", ["export", db, "--folded", "--root", "comm"],
         [vis(CMDLINE, True) + b";", b";" + vis(FUNC, True) + b";"])
text_out("export --folded --off-cpu", ["export", db, "--folded", "--off-cpu", "--root", "tid"],
         [vis(CMDLINE, True) + b"-162;"])
json_out("info --json", ["info", "--json", dat], [HOST])
json_out("analyze --json", ["analyze", "-f", "--json", "-o", db, dat], [FUNC])
json_out("hist --json", ["hist", db, "--func", FUNC, "--json"], [FUNC])
json_out("paths --json", ["paths", db, "--func", "vfs_read", "--json"], [FUNC])
json_out("explain --json", ["explain", db, "--json"], [FUNC])
json_out("waits --json", ["waits", db, "--task", "162", "--json"], [CMDLINE])
json_out("io --irqs --json", ["io", db, "--irqs", "--json"], [CMDLINE])
json_out("export --chrome", ["export", db, "--chrome"], [FUNC, CMDLINE, IRQ])

# ---- 2. an ftrace text (trace-cmd report form) ----
TCOMM = b"sh\x1b[31m\a\r;\\x"   # CR mid-line: the reader keeps it
WAKER = b"wk\x1b]0;t\a"
TFUNC = b"do\x7f\xc2\x9b\\it"   # the text reader refuses control bytes in function names
LEAF = b"leaf\x9b1m"           # a lone C1 CSI: not UTF-8
TIRQ = b"eth\x1b[2J;0"
lines = [b"cpus=2"]
t = 5.0


def line(comm, pid, flags, ev, rest, dt=1e-6):
    global t
    lines.append(b"  %s-%d    [001] %s  %.6f: %s: %s" % (comm, pid, flags, t, ev, rest))
    t += dt


for i in range(16):  # 8 fast calls, 8 slow ones (an interrupt, then a sleep)
    slow = i % 2
    line(TCOMM, 77, b"....", b"funcgraph_entry", b"                  |  %s() {" % TFUNC)
    line(TCOMM, 77, b"....", b"funcgraph_entry", b"       1.000 us   |    %s();" % LEAF, 2e-6)
    if slow:
        line(TCOMM, 77, b"d.h.", b"irq_handler_entry", b"irq=25 name=" + TIRQ, 4e-4)
        line(TCOMM, 77, b"d.h.", b"irq_handler_exit", b"irq=25 ret=handled")
        line(TCOMM, 77, b"d...", b"sched_switch", b"prev_comm=%s prev_pid=77 prev_prio=120 "
             b"prev_state=D ==> next_comm=%s next_pid=88 next_prio=120" % (TCOMM, WAKER), 3e-4)
        line(WAKER, 88, b"d...", b"sched_wakeup", b"comm=%s pid=77 prio=120 target_cpu=001" % TCOMM)
        line(WAKER, 88, b"d...", b"sched_switch", b"prev_comm=%s prev_pid=88 prev_prio=120 "
             b"prev_state=S ==> next_comm=%s next_pid=77 next_prio=120" % (WAKER, TCOMM))
    line(TCOMM, 77, b"....", b"funcgraph_exit",
         b"       %s |  }" % (b"! 800.000 us" if slow else b"  5.000 us "), 1e-3)
txt = os.path.join(tmp, "names.txt")
open(txt, "wb").write(b"\n".join(lines) + b"\n")
tdb = os.path.join(tmp, "text.db")

text_out("info names.txt", ["info", txt])
text_out("dump names.txt", ["dump", txt], [vis(TCOMM) + b"-77", vis(TFUNC), vis(LEAF)])
text_out("analyze names.txt", ["analyze", "-f", "-o", tdb, txt], [vis(TFUNC), vis(LEAF)])
text_out("hist (text)", ["hist", tdb, "--func", TFUNC], [vis(TFUNC) + b": incl latency"])
text_out("paths (text)", ["paths", tdb, "--func", TFUNC],
         [b"irq 25 (" + vis(TIRQ) + b")", b"woken by " + vis(WAKER)])
text_out("explain (text)", ["explain", tdb], [b"1. " + vis(TFUNC)])
text_out("waits (text)", ["waits", tdb, "--task", "77"],
         [vis(TCOMM) + b" [77]", b"woken by " + vis(WAKER) + b" [88]"])
text_out("io --irqs (text)", ["io", tdb, "--irqs"], [b" " + vis(TCOMM) + b" "])
text_out("export --folded (text)", ["export", tdb, "--folded", "--root", "comm"],
         [vis(TCOMM, True) + b";" + vis(TFUNC, True) + b";" + vis(LEAF, True) + b" "])
# an error message quoting a probe's name from the text
bad = os.path.join(tmp, "bad.txt")
open(bad, "wb").write(b"cpus=1\n" + b"".join(
    b"  sh-1 [000] 1.00%d: vf\x1b[5m\a: (ffffffff89f669e0) %s=0x2000\n" % (i, f)
    for i, f in ((0, b"count"), (1, b"size"))))
text_out("an error quoting a probe name", ["dump", bad],
         [b"probe vf\\e[5m\\a's fields differ"], rc=2)
json_out("waits --json (text)", ["waits", tdb, "--task", "77", "--json"], [TCOMM, WAKER])
json_out("paths --json (text)", ["paths", tdb, "--func", TFUNC, "--json"], [TFUNC, TIRQ])
json_out("io --irqs --json (text)", ["io", tdb, "--irqs", "--json"], [TCOMM])

# ---- 3. names that are bytes ([19] item 2): not UTF-8, empty, 64 KiB ----
# JSON holds only UTF-8: a name that is not is given escaped (as text output
# gives it), and every output stays valid; explain is never silent.
FF = b"vfs_rea\xff"                  # a kallsyms-like name with a byte that is not UTF-8
LONG = b"deep_" + b"x" * 65531       # a 64 KiB name
FFCOMM = b"w\xfe\xff"
lines = [b"cpus=2"]
t = 5.0
for i in range(16):
    slow = i % 2
    line(FFCOMM, 90, b"....", b"funcgraph_entry", b"                  |  %s() {" % FF)
    line(FFCOMM, 90, b"....", b"funcgraph_entry", b"       1.000 us   |    %s();" % LONG, 2e-6)
    if slow:
        line(FFCOMM, 90, b"d...", b"sched_switch", b"prev_comm=%s prev_pid=90 prev_prio=120 "
             b"prev_state=D ==> next_comm=swapper next_pid=0 next_prio=120" % FFCOMM, 3e-4)
        line(b"swapper", 0, b"d...", b"sched_wakeup", b"comm=%s pid=90 prio=120 target_cpu=001"
             % FFCOMM)
        line(b"swapper", 0, b"d...", b"sched_switch", b"prev_comm=swapper prev_pid=0 "
             b"prev_prio=120 prev_state=R ==> next_comm=%s next_pid=90 next_prio=120" % FFCOMM)
    line(FFCOMM, 90, b"....", b"funcgraph_exit",
         b"       %s |  }" % (b"! 800.000 us" if slow else b"  5.000 us "), 1e-3)
btxt = os.path.join(tmp, "bytes.txt")
open(btxt, "wb").write(b"\n".join(lines) + b"\n")
bdb = os.path.join(tmp, "bytes.db")
text_out("analyze bytes.txt", ["analyze", "-f", "-o", bdb, btxt], [vis(FF)])
text_out("hist (bytes)", ["hist", bdb, "--func", FF], [vis(FF) + b": incl latency"])
text_out("explain (bytes): not silent", ["explain", bdb], [b"1. " + vis(FF)])
text_out("paths (bytes): the root line", ["paths", bdb, "--func", FF], [vis(FF) + b" "])
text_out("export --folded (bytes)", ["export", bdb, "--folded"], [vis(FF, True) + b";"])


def json_escaped(what, args, names):
    """Valid JSON (as Python's parser, strict about UTF-8, reads it), holding each name's
    escaped form (vis) where it is no UTF-8, else the name."""
    out, _ = run(*args)
    try:
        all_strings = list(strings(json.loads(out.decode("utf-8"))))
    except ValueError as e:
        check(False, f"{what}: not JSON: {e}")
        return
    for n in names:
        want = n.decode() if is_utf8(n) else vis(n).decode()
        check(any(want in s for s in all_strings), f"{what}: holds {want[:40]!r}")


def is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


for what, args in (("hist --json", ["hist", bdb, "--func", FF, "--json"]),
                   ("peaks --json", ["peaks", bdb, "--func", FF, "--json"]),
                   ("paths --json", ["paths", bdb, "--func", FF, "--json"]),
                   ("explain --json", ["explain", bdb, "--json"]),
                   ("waits --json", ["waits", bdb, "--task", "90", "--json"]),
                   ("export --chrome", ["export", bdb, "--chrome"]),
                   ("export --speedscope", ["export", bdb, "--speedscope"]),
                   ("analyze --json", ["analyze", "-f", "--json", "-o", bdb, btxt]),
                   ("info --json", ["info", "--json", btxt])):
    # peaks and waits print arrays of numbers and comms, info the file's own fields
    json_escaped(what + " (bytes)", args,
                 [] if what.split()[0] in ("info", "peaks", "waits") else [FF])
json_escaped("waits --json (bytes): the comm", ["waits", bdb, "--task", "90", "--json"], [FFCOMM])
json_escaped("export --chrome (bytes): 64 KiB", ["export", bdb, "--chrome"], [LONG])
# the same byte in a uftrace symbol file: explain and paths name it
udir = os.path.join(tmp, "u.data")
shutil.copytree(os.path.join(top, "samples", "uftrace", "pg.data"), udir)
sym = os.path.join(udir, "workload-pg.sym")
data = open(sym, "rb").read()
assert data.count(b" request\n") == 1
open(sym, "wb").write(data.replace(b" request\n", b" reques\xff\n"))
UFF = b"reques\xff"
udb = os.path.join(tmp, "u.db")
text_out("analyze u.data (bytes)", ["analyze", "-f", "-o", udb, udir], [])
text_out("explain (uftrace bytes): not silent", ["explain", udb, "--top", "9"], [vis(UFF)])
text_out("paths (uftrace bytes): the root line", ["paths", udb, "--func", UFF], [vis(UFF) + b" "])
json_escaped("explain --json (uftrace bytes)", ["explain", udb, "--json", "--top", "9"], [UFF])
svg = os.path.join(tmp, "bytes.svg")
run("hist", bdb, "--func", FF, "--svg", svg)
try:
    import xml.etree.ElementTree as ET
    ET.parse(svg)
    body = open(svg, "rb").read()
    check(vis(FF) in body or b"vfs_rea&#" in body, "hist --svg (bytes): valid XML naming it")
except Exception as e:  # noqa: BLE001
    check(False, f"hist --svg (bytes): not valid XML: {e}")

subprocess.run(["rm", "-rf", tmp])
print(f"{passes} passed, {fails} failed")
sys.exit(1 if fails else 0)
