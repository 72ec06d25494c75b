#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check darc io --bios against trace-cmd: pair each block_rq_issue with the
next block_rq_complete of the same (device, sector, size) in `trace-cmd
report -t` (ns times), bucket issue-to-complete by log2 and compare with the
device-stage histogram darc printed as JSON. usage: bio-vs-trace-cmd.py
RECORDING DARC-JSON; exit 0 when every bucket's count is the same."""
import json
import re
import sys
from collections import Counter

from tcreport import events

RQ = re.compile(r"(\d+),(\d+) \S+ .*?(\d+) \+ (\d+)")


def trace_cmd_device_buckets(dat):
    live, buckets = {}, Counter()
    for _, t, ev, rest in events(dat):
        m = RQ.match(rest) if ev in ("block_rq_issue", "block_rq_complete") else None
        if not m:
            continue
        key = m.groups()
        if ev == "block_rq_issue":
            live[key] = t
        elif key in live:
            d = t - live.pop(key)
            buckets[d.bit_length() - 1 if d > 0 else 0] += 1
    return buckets


def main():
    want = trace_cmd_device_buckets(sys.argv[1])
    hists = [x["hist"] for x in json.load(open(sys.argv[2]))["stages"] if x["stage"] == "device"]
    got = Counter()
    for h in hists:
        got.update({b["bucket"]: b["count"] for b in h["buckets"] if b["count"]})
    if got != want or not want:
        print("trace-cmd:", sorted(want.items()), "darc:", sorted(got.items()))
        return 1
    print(sum(want.values()), "requests")
    return 0


sys.exit(main())
