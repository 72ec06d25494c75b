# SPDX-License-Identifier: MIT
"""The events of a recording as trace-cmd reads them, for the checks that
compare darc with trace-cmd: (cpu, t in ns, event name, the rest of the line)."""
import re
import subprocess

LINE = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}): (\w+):\s+(.*)")


def events(dat):
    out = subprocess.run(["trace-cmd", "report", "-t", "-i", dat], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        m = LINE.search(line)
        if m:
            yield int(m[1]), int(m[2]) * 10**9 + int(m[3]), m[4], m[5]
