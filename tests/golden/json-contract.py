#!/usr/bin/env python3
"""json-contract.py DARC: every command's --json held to analyze/JSON.md (issue 34).

The document has one table per output form ("### `darc hist --json`") and
per shared object ("### Object `peak`"), a row per field: `path`, type,
unit, required, meaning. This script runs each form on samples (a battery
that reaches its optional fields: losses, instances, a manifest, given
peaks, wake chains, bios, return values, more slow parts) and checks that

  - every object starts with "schema" (the version the document states)
    and "command" (the command run);
  - every field printed is documented at its place, with a type that
    admits its value (integer, number, string, boolean, object, array,
    null, any, or an object of the document's);
  - every field the document marks required is printed;
  - the document has a section for every command whose --help offers
    --json and for no other, and each section was run here;
  - the document is consistent: a *_ns field has unit ns, a share is a
    number, units and types are from its lists.

Documented fields that no run printed are listed (not a failure: some need
recordings the samples do not have).
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
DOC = os.path.join(top, "analyze", "JSON.md")
BASIC = {"integer", "number", "string", "boolean", "object", "array", "null", "any"}
UNITS = {"", "ns", "share", "count", "bucket", "value", "s", "bytes", "pct"}
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
    return ok


# ---- the document ----

def cells(line):
    """The cells of a table row, split at pipes that are not escaped."""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def parse(text):
    """{scope: {path: row}}: scope 'common', a form ('hist --interval D') or an object."""
    scopes, cur = {"common": {}}, "common"
    for line in text.splitlines():
        m = re.match(r"### `darc (.+) --json`$", line) or re.match(r"### Object `(\w+)`$", line)
        if m:
            cur = m.group(1)
            scopes[cur] = {}
            continue
        if line.startswith("## ") and cur != "common":
            cur = None
        c = cells(line) if line.startswith("|") and cur else []
        if len(c) != 5 or not c[0].startswith("`"):
            continue
        path = c[0].strip("`")
        scopes[cur]["" if path == "." else path] = {
            "types": c[1].split("|"), "unit": c[2], "required": c[3] == "yes", "line": line}
    return scopes


def parent(path):
    if path.endswith("[]"):
        return path[:-2]
    return path.rsplit(".", 1)[0] if "." in path else ""


def doc_checks(scopes):
    for scope, rows in scopes.items():
        for path, r in rows.items():
            bad = [t for t in r["types"] if t not in BASIC and t not in scopes]
            check(not bad, "JSON.md %s `%s`: types %s known" % (scope, path or ".",
                                                                "|".join(r["types"])))
            check(r["unit"] in UNITS, "JSON.md %s `%s`: unit '%s' known" % (scope, path,
                                                                          r["unit"]))
            if path.endswith("_ns") and {"integer", "number"} & set(r["types"]):
                check(r["unit"] == "ns", "JSON.md %s `%s`: unit ns" % (scope, path))
            if r["unit"] == "share":
                check(r["types"] == ["number"], "JSON.md %s `%s`: a share is a number" %
                      (scope, path))
            p = parent(path)
            check(not p or p in rows or (p.endswith("[]") and p[:-2] in rows),
                  "JSON.md %s `%s`: its parent `%s` is documented" % (scope, path, p))


# ---- an output against it ----

class Checker:
    def __init__(self, scopes):
        self.scopes = scopes
        self.seen = set()
        self.errors = []

    def expand(self, specs):
        """Add the objects mixed in (a row whose type names an object) to @specs."""
        out, todo = [], list(specs)
        while todo:
            s = todo.pop(0)
            if s in out:
                continue
            out.append(s)
            row = self.scopes[s[0]].get(s[1])
            for t in row["types"] if row else []:
                if t not in BASIC:
                    todo.append((t, ""))
        return out

    def lookup(self, specs, key):
        for scope, p in specs:
            rows = self.scopes[scope]
            for cand in ((p + "." if p else "") + key, (p + "." if p else "") + "*"):
                if cand in rows:
                    return scope, cand
        return None

    def type_ok(self, v, types):
        t = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
             float: "number", type(None): "null"}[type(v)]
        return any(x == "any" or x == t or (x == "number" and t == "integer") or
                   (x not in BASIC and t == "object") for x in types)

    def value(self, v, spec, where):
        scope, p = spec
        # an array's elements without a row of their own are objects of their fields
        row = self.scopes[scope].get(p, {"types": ["object"]})
        self.seen.add(spec)
        if not self.type_ok(v, row["types"]):
            self.errors.append("%s: %s, documented %s (%s `%s`)" % (
                where, type(v).__name__, "|".join(row["types"]), scope, p))
        elif "any" in row["types"]:
            return
        elif isinstance(v, dict):
            self.obj(v, [spec], where)
        elif isinstance(v, list):
            el = (scope, p + "[]")
            rows = self.scopes[scope]
            for i, x in enumerate(v):
                if el[1] not in rows and not any(k.startswith(el[1] + ".") for k in rows):
                    self.errors.append("%s[]: elements undocumented (%s `%s[]`)" %
                                       (where, scope, p))
                    break
                self.value(x, el, "%s[%d]" % (where, i))

    def obj(self, v, specs, where):
        specs = self.expand(specs)
        for k, x in v.items():
            spec = self.lookup(specs, k)
            if not spec:
                self.errors.append("%s.%s: undocumented (in %s)" % (
                    where, k, ", ".join("%s `%s`" % s for s in specs)))
                continue
            self.value(x, spec, where + "." + k)
        for scope, p in specs:
            for path, row in self.scopes[scope].items():
                if row["required"] and not path.endswith(("[]", "*")) and path and \
                        parent(path) == p and path[len(p) + 1 if p else 0:] not in v:
                    self.errors.append("%s: required `%s` missing (%s)" % (where, path,
                                                                           scope))


# ---- the runs ----

def run(args, tmp):
    r = subprocess.run([darc, *args], capture_output=True, text=True, cwd=tmp)
    if r.returncode:
        check(False, "darc %s exits %d: %s" % (" ".join(args), r.returncode,
                                               r.stderr.strip()[:300]))
        return None
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        check(False, "darc %s: not JSON (%s)" % (" ".join(args), e))
        return None


def battery(tmp):
    """(form, command, args) for every form, on samples copied to @tmp."""
    s = {}
    for name in ("vm-preads-v7.dat", "vm-fsyncread-v7.dat", "vm-odirect-v7.dat",
                 "real-chain3-darc.dat", "real-flock-tcF.dat", "real-mmapfault-darc.dat",
                 "vm-append1-v7.dat", "vm-append2-v7.dat", "host-explainapp-v7.dat",
                 "host-lost.perf.data", "host-pair.perf.data", "text/fg-raw34.txt",
                 "matrix/edit-guest.dat"):
        shutil.copy(os.path.join(top, "samples", name), tmp)
        s[name] = os.path.join(tmp, os.path.basename(name))
    shutil.copytree(os.path.join(top, "samples", "uftrace", "fi.data"),
                    os.path.join(tmp, "fi.data"))
    s["fi.data"] = os.path.join(tmp, "fi.data")
    db = {}
    for name in ("vm-preads-v7.dat", "vm-fsyncread-v7.dat", "vm-odirect-v7.dat",
                 "real-chain3-darc.dat", "real-flock-tcF.dat", "vm-append1-v7.dat",
                 "vm-append2-v7.dat", "host-explainapp-v7.dat"):
        db[name] = s[name].rsplit(".", 1)[0] + ".db"
        subprocess.run([darc, "analyze", "-q", "-o", db[name], s[name]], check=True)
    pre, fs, od, ch, fl, app = (db[n] for n in (
        "vm-preads-v7.dat", "vm-fsyncread-v7.dat", "vm-odirect-v7.dat",
        "real-chain3-darc.dat", "real-flock-tcF.dat", "host-explainapp-v7.dat"))
    return [
        ("analyze", ["analyze", "--json", "-o", "a1.db", s["vm-fsyncread-v7.dat"]]),
        ("analyze", ["analyze", "--json", "--all", "--top", "50", "-o", "a2.db",
                     s["host-lost.perf.data"]]),
        ("info", ["info", "--json", s["real-chain3-darc.dat"]]),
        ("info", ["info", "--json", s["real-mmapfault-darc.dat"]]),
        ("info", ["info", "--json", s["vm-preads-v7.dat"]]),
        ("info", ["info", "--json", s["host-pair.perf.data"]]),
        ("info", ["info", "--json", s["text/fg-raw34.txt"]]),
        ("info", ["info", "--json", s["fi.data"]]),
        ("info", ["info", "--json", s["matrix/edit-guest.dat"]]),
        # sched_switch's format refused (a divisor followed by '%'): refused_formats
        ("info", ["info", "--json", os.path.join(top, "tests", "fuzz", "tracedat-regress",
                                                 "crash-d5099c6884b0b7")]),
        ("hist", ["hist", pre, "--func", "vfs_read", "--json"]),
        ("hist", ["hist", pre, "--func", "vfs_read", "--prominence", "2", "--json"]),
        ("hist", ["hist", pre, "--func", "vfs_read", "--peaks", "14-16,18-22", "--json"]),
        ("hist", ["hist", pre, "--path", "__x64_sys_pread64>vfs_read", "--metric", "excl",
                  "--resolution", "2", "--unit", "cycles", "--cpu-mhz", "2000", "--json"]),
        ("hist --interval D", ["hist", pre, "--func", "vfs_read", "--interval", "50ms",
                               "--json"]),
        ("peaks", ["peaks", pre, "--func", "vfs_read", "--json"]),
        ("peaks", ["peaks", pre, "--func", "vfs_read", "--peaks", "14-16", "--json"]),
        ("diff", ["diff", db["vm-append1-v7.dat"], db["vm-append2-v7.dat"], "--json"]),
        ("paths", ["paths", pre, "--root", "__x64_sys_pread64", "--json"]),
        ("paths", ["paths", od, "--root", "vfs_read", "--json"]),
        ("paths", ["paths", fl, "--root", "__x64_sys_flock", "--maxcount-pct", "10",
                   "--max-depth", "2", "--json"]),
        ("paths", ["paths", pre, "--root", "vfs_read", "--range", "17-19", "--json"]),
        ("explain", ["explain", ch, "--json"]),
        ("explain", ["explain", fs, "--json"]),
        ("explain", ["explain", od, "--json"]),
        ("explain", ["explain", fl, "--json"]),
        ("explain", ["explain", fl, "--max-depth", "2", "--json"]),
        ("explain", ["explain", app, "--json"]),
        ("waits", ["waits", fs, "--task", "162", "--json"]),
        ("waits", ["waits", ch, "--task", "476", "--json"]),
        ("io", ["io", od, "--json"]),
        ("io", ["io", app, "--json"]),
        ("io --func F", ["io", pre, "--func", "__x64_sys_pread64", "--json"]),
        ("io --func F", ["io", app, "--func", "openat", "--top", "20", "--json"]),
        ("io --func F", ["io", od, "--call", "1", "--json"]),
        ("io --bios", ["io", od, "--bios", "--json"]),
        ("io --irqs", ["io", od, "--irqs", "--json"]),
    ]


def json_commands():
    """The commands whose --help offers --json."""
    usage = subprocess.run([darc, "--help"], capture_output=True, text=True).stdout
    names = re.findall(r"^  (\w+) ", usage, re.M)
    return {n for n in names if "--json" in subprocess.run(
        [darc, n, "--help"], capture_output=True, text=True).stdout}


def main():
    text = open(DOC).read()
    scopes = parse(text)
    version = re.search(r"The version is `([^`]+)`", text).group(1)
    forms = [k for k in scopes if k != "common" and
             not re.search(r"### Object `%s`" % re.escape(k), text)]
    heads = re.findall(r"^### (?:`darc (.+) --json`|Object `(\w+)`)$", text, re.M)
    check(len(heads) == len(scopes) - 1, "JSON.md: %d sections, each its own name" % len(heads))
    doc_checks(scopes)
    cmds = json_commands()
    check(cmds == {f.split()[0] for f in forms},
          "JSON.md has a section for each command with --json (%s), and no other (%s)" %
          (" ".join(sorted(cmds)), " ".join(sorted({f.split()[0] for f in forms}))))
    ck = Checker(scopes)
    with tempfile.TemporaryDirectory(prefix="darc-json.") as tmp:
        runs = battery(tmp)
        for form, args in runs:
            j = run(args, tmp)
            if j is None:
                continue
            what = "darc " + " ".join(os.path.basename(a) for a in args)
            if not check(isinstance(j, dict), "%s: an object" % what):
                continue
            check(list(j)[:2] == ["schema", "command"] and j["schema"] == version and
                  j["command"] == args[0], "%s: schema %s, command %s first" % (
                      what, j.get("schema"), j.get("command")))
            ck.errors = []
            ck.obj(j, [("common", ""), (form, "")], "")
            errors = list(dict.fromkeys(re.sub(r"\[\d+\]", "[]", e) for e in ck.errors))
            check(not errors, "%s: as JSON.md's `darc %s --json`%s" % (
                what, form, "".join("\n    " + e for e in errors[:8])))
    check(set(forms) <= {f for f, _ in runs},
          "every form of JSON.md run (%s)" % ", ".join(sorted(set(forms))))
    unseen = sorted("%s `%s`" % (s, p) for s in scopes for p in scopes[s]
                    if (s, p) not in ck.seen and p and not p.endswith("[]"))
    print("documented, printed by no run here: %s" % (", ".join(unseen) or "none"))
    print("%s: %d failed" % ("FAIL" if fails else "PASS", fails))
    return 1 if fails else 0


sys.exit(main())
