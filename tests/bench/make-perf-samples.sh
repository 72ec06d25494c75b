#!/bin/bash
# Regenerates samples/host-*.perf.data on this host (root, tracepoints; run
# by hand, never by CI): perf record of sched, raw_syscalls and irq
# tracepoints around small dd workloads, in file mode, pipe mode, and with a
# one-page buffer so that records are lost. Prints the samples/README.md lines.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
s=$top/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ev="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking -e sched:sched_process_fork
    -e sched:sched_process_exec -e sched:sched_process_exit -e raw_syscalls:sys_enter
    -e raw_syscalls:sys_exit -e irq:*"
w1="dd if=/dev/zero of=/dev/null bs=4k count=100 2>/dev/null & dd if=/dev/urandom of=$tmp/x bs=4k count=40 conv=fsync 2>/dev/null; wait; sleep 0.01"
w2="dd if=/dev/zero of=/dev/null bs=4k count=30 2>/dev/null; ls / >/dev/null"
# shellcheck disable=SC2086
perf record -q -o "$s/host-tracepoints.perf.data" $ev -- sh -c "$w1"
# shellcheck disable=SC2086
perf record -q -o - $ev -- sh -c "$w2" >"$s/host-pipe.perf.data"
# How much is lost varies with the load and the buffer: with one page the
# kernel mostly cannot even write LOST records (only perf's closing
# LOST_SAMPLES totals tell); with four pages, retry until a LOST record.
lost() { perf report -i "$1" --stats 2>/dev/null | awk '/ LOST events/{print $3}'; }
rec_lost() { # PAGES FILE
	perf record -q -m "$1" -o "$2" -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
		-- dd if=/dev/zero of=/dev/null bs=1 count=1500 2>/dev/null
}
for try in 1 2 3 4 5 6 7 8 9 10; do
	rec_lost 1 "$s/host-lostsamples.perf.data"
	[ -z "$(lost "$s/host-lostsamples.perf.data")" ] && break
done
for try in 1 2 3 4 5 6 7 8 9 10; do
	rec_lost 4 "$s/host-lost.perf.data"
	[ "$(lost "$s/host-lost.perf.data")" -ge 1 ] 2>/dev/null && break
done
rm -f "$s"/host-*.perf.data.old # perf record keeps the previous file as FILE.old
chmod 644 "$s"/host-*.perf.data
ver=$(perf --version)
host="this project's dev host ($(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r), $(nproc) CPUs), $ver"
n() { perf script -i "$1" 2>/dev/null | wc -l; }
echo "host-tracepoints.perf.data: perf.data (file mode), recorded $(date +%F) on $host: \`perf record $(printf '%s ' $ev)-- sh -c '$w1'\` (\$tmp is a temporary directory); $(n "$s/host-tracepoints.perf.data") events, 0 lost. Made by tests/bench/make-perf-samples.sh."
echo "host-pipe.perf.data: perf.data in pipe mode (\`perf record -o - ... > FILE\`), same events as host-tracepoints.perf.data, workload \`sh -c '$w2'\`; $(n "$s/host-pipe.perf.data") events. Made by tests/bench/make-perf-samples.sh."
ls=$(perf script -i "$s/host-lostsamples.perf.data" -D 2>/dev/null | awk -F: '/PERF_RECORD_LOST_SAMPLES/{n+=$NF} END{print n}')
echo "host-lost.perf.data: perf.data with lost records: \`perf record -m 4 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -- dd if=/dev/zero of=/dev/null bs=1 count=1500\` (a four-page buffer), recorded until the kernel wrote a LOST record; $(n "$s/host-lost.perf.data") events, $(lost "$s/host-lost.perf.data") LOST records (and perf record's closing LOST_SAMPLES totals, which count the same losses again). Made by tests/bench/make-perf-samples.sh."
echo "host-lostsamples.perf.data: as host-lost.perf.data with \`-m 1\` (one page): nearly everything is lost and the kernel wrote no LOST record, only perf record's closing LOST_SAMPLES totals ($ls samples) tell; $(n "$s/host-lostsamples.perf.data") events. Made by tests/bench/make-perf-samples.sh."
