#!/bin/bash
# Regenerates samples/vm-probes.perf.data (run by hand): tests/vm/guest-perf.sh
# in the VM lab records one workload with perf record and again with
# trace-cmd record, same events (perf probe kprobes and uprobes, sched).
# Copies the perf recording to samples/, prints its samples/README.md line,
# and prints darc analyze's summary of both recordings for comparison.
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
for f in "$work/r/perf-odirect.perf.data" "$work/r/tc-odirect.dat"; do
	"$darc" analyze -f -o "$work/$(basename "$f").db" "$f"
done
