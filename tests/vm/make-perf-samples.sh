#!/bin/bash
# Regenerates samples/vm-probes.perf.data and samples/vm-probes-v7.dat (run
# by hand): tests/vm/guest-perf.sh in the VM lab records one run of a
# workload with perf record and with trace-cmd at once, same events (perf
# probe kprobes and uprobes, sched). Copies both to samples/, prints their
# samples/README.md lines, and prints the workload's calls in darc analyze
# of both (tests/golden/perf-vs-tracedat.py checks them exactly).
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
cp "$work/r/tc-odirect.dat" "$top/samples/vm-probes-v7.dat"
chmod 644 "$top/samples/vm-probes.perf.data" "$top/samples/vm-probes-v7.dat"
kernel=$(sed -n 's/^kernel \([^;]*\);.*/\1/p' "$work/r/probes.cmd")
counts=$(perf script -i "$top/samples/vm-probes.perf.data" -F event 2>/dev/null |
	sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
tc=$(tr '\n' ';' <"$work/r/tc-odirect.cmd" | sed 's/;$//; s/;/; /g')
echo "vm-probes.perf.data: perf.data (file mode), vm-workload odirect (O_DIRECT and cached 4 KiB preads, 48 rounds) in the VM lab (kernel $kernel under qemu TCG, tests/vm/README.md); probes made by perf probe: \`$(sed -n 2p "$work/r/probes.cmd")\`, \`$(sed -n 3p "$work/r/probes.cmd")\`; command: \`$(cat "$work/r/perf-odirect.cmd")\`. $counts. The same run is in vm-probes-v7.dat. Made by tests/vm/make-perf-samples.sh."
echo "vm-probes-v7.dat: the run of vm-probes.perf.data, recorded at the same time by ftrace: \`$tc\` (trace-cmd $(trace-cmd --version 2>&1 | awk '/version/ {print $3; exit}'), perf's clock). Its uprobes are copies of perf probe's in group tc_vm (\`$(sed -n 4p "$work/r/probes.cmd")\`): a uprobe serves perf or ftrace, not both. $(trace-cmd report --stat "$top/samples/vm-probes-v7.dat" >/dev/null 2>&1; "$darc" info "$top/samples/vm-probes-v7.dat" | awk '/^events:/{print $2}') events. Made by tests/vm/make-perf-samples.sh."
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
