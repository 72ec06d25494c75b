#!/bin/bash
# Regenerates samples/vm-probes.perf.data (run by hand): tests/vm/guest-perf.sh
# in the VM lab records one workload with perf record and again with
# trace-cmd record, same events (perf probe kprobes and uprobes, sched).
# Copies the perf recording to samples/, prints its samples/README.md line,
# and prints the workload's calls in darc analyze of both recordings.
# Usage: make-perf-samples.sh DARC [WORKDIR]
set -eu
darc=$(realpath "${1:?usage: make-perf-samples.sh DARC [WORKDIR]}")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${2:-$(mktemp -d)}
rm -rf "${work:?}/r"
"$here/vm.sh" --out "$work/r" --add "$(command -v perf)" --add "$(command -v trace-cmd)" \
	--timeout 500 --script "$here/guest-perf.sh" -- 48
cp "$work/r/perf-odirect.perf.data" "$top/samples/vm-probes.perf.data"
chmod 644 "$top/samples/vm-probes.perf.data"
kernel=$(sed -n 's/^kernel \([^;]*\);.*/\1/p' "$work/r/probes.cmd")
counts=$(perf script -i "$top/samples/vm-probes.perf.data" -F event 2>/dev/null |
	sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
echo "vm-probes.perf.data: perf.data (file mode), vm-workload odirect (O_DIRECT and cached 4 KiB preads, 48 rounds) in the VM lab (kernel $kernel under qemu TCG, tests/vm/README.md); probes made by perf probe: \`$(sed -n 2p "$work/r/probes.cmd")\`, \`$(sed -n 3p "$work/r/probes.cmd")\`; command: \`$(cat "$work/r/perf-odirect.cmd")\`; the same workload was then recorded by \`$(cat "$work/r/tc-odirect.cmd")\` for comparison (not committed). $counts. Made by tests/vm/make-perf-samples.sh."
# The workload's calls in each: function, count, log2(ns) histogram, mean.
for f in "$work/r/perf-odirect.perf.data" "$work/r/tc-odirect.dat"; do
	"$darc" analyze -f -o "$work/$(basename "$f").db" "$f" >/dev/null
	echo "$(basename "$f"):"
	sqlite3 "$work/$(basename "$f").db" "SELECT f.name, count(*),
		(SELECT group_concat(b || ':' || n, ' ') FROM (SELECT
			CAST(log2(c2.incl_ns) AS INT) b, count(*) n FROM call c2
			JOIN task t2 ON t2.tid = c2.task_id
			WHERE c2.func_id = f.id AND t2.comm LIKE 'vm-work%' GROUP BY b)),
		'mean ' || round(avg(c.incl_ns) / 1000.0, 1) || ' us'
		FROM call c JOIN func f ON f.id = c.func_id JOIN task t ON t.tid = c.task_id
		WHERE t.comm LIKE 'vm-work%' GROUP BY f.id" | sed 's/^/  /'
done
