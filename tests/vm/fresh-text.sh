#!/bin/bash
# fresh-text.sh DARC: a NEW function_graph trace of the VM lab (make-text-
# samples.sh --out, 20 preads of each kind), saved as trace.dat and as the
# five texts; darc analyze of each text must give the trace.dat's analysis
# (tests/golden/text-vs-dat.py), as tests/golden/text.sh checks on the
# committed samples/text/. Then a new trace of system calls (--sys): the
# kernel's `cat trace` of them, with the TGID column, and of probes on them
# (eprobes, kprobes, fprobes where the kernel has them) must hold the
# trace.dat's events (tests/golden/dump-vs-dat.py), as text-layouts.sh
# checks on the committed sys* samples, on $DARC_VM_KERNEL (default 6.1);
# the function_graph trace is 6.1's whatever the kernel. A text gives a
# call's start as its entry event's time, a few us after the trace.dat's
# calltime under emulation: text-vs-dat.py allows each interrupt that delay
# (a fresh 6.1 trace once had a softirq's irq and excl 1123 ns off, and 7.3's
# `trace-cmd report -l -t` 781 ns, against 1 us allowed before).
# Exit 0 pass, 1 fail, 77 skip (the lab or trace-cmd cannot run here).
set -u
darc=$(realpath "${1:?usage: fresh-text.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/make-text-samples.sh" --out "$tmp" 20 >"$tmp/make.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -20 "$tmp/make.log"
	[ "$rc" -eq 77 ] && { echo "skip: the VM lab or trace-cmd cannot run here"; exit 77; }
	echo "FAIL: make-text-samples.sh failed ($rc)"
	exit 1
fi
fail=0
"$darc" analyze -q -f -o "$tmp/dat.db" "$tmp/preads.dat" || exit 1
for v in report-lt:ns-flags report:us abstime:us default:none lat:none; do
	t=$tmp/preads-${v%%:*}.txt
	if "$darc" analyze -q -f -o "$tmp/t.db" "$t" &&
		out=$(python3 "$here/../golden/text-vs-dat.py" "$tmp/dat.db" "$tmp/t.db" "${v##*:}"); then
		echo "ok: fresh $(basename "$t"): $out"
	else
		echo "FAIL: fresh $(basename "$t"): ${out:-darc analyze failed}"
		fail=1
	fi
done
# the system calls' texts, fresh
"$here/make-text-samples.sh" --out "$tmp/sys" --kernel "${DARC_VM_KERNEL:-6.1}" --sys \
	>"$tmp/sys.log" 2>&1 ||
	{ tail -20 "$tmp/sys.log"; echo "FAIL: make-text-samples.sh --sys failed"; exit 1; }
for dat in "$tmp"/sys/sys*.dat; do
	for t in "${dat%.dat}"-*.txt; do
		[ -f "$t" ] || continue
		"$darc" dump "$dat" >"$tmp/dat.dump" && "$darc" dump "$t" >"$tmp/t.dump" 2>"$tmp/err" &&
			out=$(python3 "$here/../golden/dump-vs-dat.py" "$tmp/dat.dump" "$tmp/t.dump" 1000 \
				__syscall_nr __probe_ip __probe_func __probe_ret_ip) &&
			echo "ok: fresh $(basename "$t"): $out, as $(basename "$dat")" ||
			{ echo "FAIL: fresh $(basename "$t"): ${out:-$(cat "$tmp/err")}"; fail=1; }
	done
done
exit $fail
