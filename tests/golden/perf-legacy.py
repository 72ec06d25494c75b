#!/usr/bin/env python3
"""darc on a perf.data of version 1 (magic "PERFFILE", the legacy format of
old perf, which no perf here writes): made by hand from the format (the
104-byte header of version 2 with the old magic, event attributes of 64
bytes as perf's ABI0, no records), as Debian's perf 6.1 still opens
("legacy perf.data format ... ABI0 perf.data file detected"). darc does not
read it: `darc analyze` and `darc info` must refuse it in one line that names
the file and the format ("perf.data version 1 (magic PERFFILE"), exit 2,
rather than call it a wrong magic.

Usage: perf-legacy.py DARC. Exit 0 pass, 1 fail.
"""
import os
import struct
import subprocess
import sys
import tempfile


def legacy_header():
    """magic, header size, attribute size (64-byte attr + its ids section),
    the attrs, data and event_types sections (all empty, at the header's
    end), then the 256-bit feature bitmap, all zero."""
    return (b"PERFFILE" + struct.pack("<QQ", 104, 64 + 16)
            + struct.pack("<QQ", 104, 0) * 3 + bytes(32))


def main():
    darc = sys.argv[1]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "legacy.perf.data")
        with open(path, "wb") as f:
            f.write(legacy_header())
        for cmd in (["analyze", "-o", os.path.join(tmp, "x.db"), path], ["info", path]):
            p = subprocess.run([darc] + cmd, capture_output=True, text=True)
            lines = p.stderr.splitlines()
            ok = (p.returncode == 2 and len(lines) == 1 and path in lines[0]
                  and "perf.data version 1 (magic PERFFILE" in lines[0])
            print(f"{'PASS' if ok else 'FAIL'}: darc {cmd[0]} of a PERFFILE perf.data:"
                  f" exit {p.returncode}: {p.stderr.strip()}")
            bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
