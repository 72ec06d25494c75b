#!/bin/bash
# darc explain on the samples where issue 18's failures show (each check
# fails on the code before it):
#   (1) wake-up chains (vm-chain, vm73-chain: A reads a pipe B writes, B one C
#       writes, C sleeps 2 ms): the first cause says the chain, A's waker B,
#       then B's C, then C's timer, as the raw tables say (explain-chain.py
#       works the chain out from sched_interval and wakeup, without darc's
#       walk); vm73-chain's reads, one hump, get an answer (the body), and
#       the three trace-cmd tasks' finish_task_switch, fragments of a task
#       switch at the recording's start, are no subject;
#   (2) no waker guessed: no cause of any sample is woken by "timer
#       (hardirq)"; host-explainapp (no irq events) says the interrupt is not
#       named and what to record;
#   (3) one peak rule: every slow peak explain names is a peak of darc peaks;
#   (4) names: io_schedule_timeout, never the marker __sched_text_start;
#   (5) a preemption says where in the path it hit (vm-cpuhog).
# Usage: explain-chain.sh DARC. Exit 0 pass, 1 fail, 77 no python3/sqlite3.
set -u
darc=$(realpath "${1:?usage: explain-chain.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../../samples
for c in python3 sqlite3; do
	command -v $c >/dev/null || { echo "skip: $c not installed"; exit 77; }
done
tmp=$(mktemp -d /tmp/darc-explain-chain.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for s in vm-chain-v7 vm73-chain-v7 vm-zeroread-v7 vm-getrandom-v7 vm-cpuhog-v7 vm-fsyncread-v7 \
	vm-stat-v7 host-explainapp-v7; do
	cp "$samples/$s.dat" "$tmp/" || exit 1
	if ! "$darc" explain "$tmp/$s.dat" --json >"$tmp/$s.json" 2>"$tmp/$s.err" ||
		! "$darc" explain "$tmp/$s.db" >"$tmp/$s.txt" 2>>"$tmp/$s.err"; then
		echo "FAIL $s: darc explain exits non-zero: $(head -n 1 "$tmp/$s.err")"
		fail=1
		continue
	fi
	python3 "$here/explain-chain.py" "$darc" "$s" "$tmp/$s.db" "$tmp/$s.json" "$tmp/$s.txt" ||
		fail=1
done
exit $fail
