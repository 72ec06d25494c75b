#!/bin/bash
# make-samples.sh: regenerate samples/vm-*.dat with trace-cmd record inside
# the VM lab (Debian's stock kernel under qemu TCG), check them, and rewrite
# the "vm-" lines of samples/README.md.
#
#   tests/vm/make-samples.sh [--keep DIR | --from DIR]
#
# --keep DIR keeps the VM's output (recordings, logs, console) in DIR;
# --from DIR skips the VM run and uses the recordings kept in DIR/vm.
#
# Makes, from one boot:
#   vm-odirect-v7.dat   O_DIRECT + buffered reads on ext4/virtio-blk
#   vm-zeroread-v7.dat  read(fd, buf, 0) in a loop
#   vm-cpuhog-v7.dat    big page-cache reads preempted by a CPU hog on CPU 0
#   vm-fsyncread-v7.dat writes + fsync, then vm-odirect's reads; graph rooted
#                       at __x64_sys_pread64, plain kprobes (no return probe)
#                       on submit_bio/bio_endio that also fire outside it
#   vm-odirect-v6.dat   vm-odirect-v7.dat converted to trace.dat v6 on the
#                       host (trace-cmd convert --file-version 6)
# Exit status: 0 ok, 1 failure, 77 when the lab cannot run here.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SAMPLES=$TOP/samples
KEEP=
FROM=
MAX_ONE=$((5 * 1000 * 1000))
MAX_ALL=$((15 * 1000 * 1000))

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=$2; shift 2 ;;
	--from) FROM=$2; KEEP=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "make-samples: unknown argument $1" >&2; exit 2 ;;
	esac
done

msg() { echo "make-samples: $*" >&2; }
TRACE_CMD=$(command -v trace-cmd) || { msg "trace-cmd not found"; exit 77; }

if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	WORK=$(cd "$KEEP" && pwd)
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-samples.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi

start=$SECONDS
if [ -z "$FROM" ]; then
	rm -rf "$WORK/vm"
	rc=0
	"$HERE/vm.sh" --out "$WORK/vm" --add "$TRACE_CMD" --timeout 400 \
		--script "$HERE/guest-record.sh" -- odirect zeroread cpuhog fsyncread || rc=$?
	if [ "$rc" != 0 ]; then
		msg "the VM run failed (status $rc)"
		exit "$rc"
	fi
fi
vm_s=$((SECONDS - start))

"$TRACE_CMD" convert --file-version 6 -i "$WORK/vm/odirect.dat" \
	-o "$WORK/odirect-v6.dat" >"$WORK/convert.log" 2>&1 ||
	{ cat "$WORK/convert.log" >&2; msg "trace-cmd convert failed"; exit 1; }

declare -A SRC=(
	[vm-odirect-v7.dat]=$WORK/vm/odirect.dat
	[vm-zeroread-v7.dat]=$WORK/vm/zeroread.dat
	[vm-cpuhog-v7.dat]=$WORK/vm/cpuhog.dat
	[vm-fsyncread-v7.dat]=$WORK/vm/fsyncread.dat
	[vm-odirect-v6.dat]=$WORK/odirect-v6.dat
)
# shellcheck disable=SC2054 # the commas are inside values
declare -A REQ=(
	[vm-odirect-v7.dat]=funcgraph,kprobe,kretprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler,irq_vectors
	[vm-zeroread-v7.dat]=funcgraph,kprobe,kretprobe,sched_switch,irq,irq_vectors
	[vm-cpuhog-v7.dat]=funcgraph,kprobe,kretprobe,sched_switch,sched_wakeup,irq,irq_vectors
	[vm-fsyncread-v7.dat]=funcgraph,kprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler
	[vm-odirect-v6.dat]=funcgraph,kprobe,kretprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler,irq_vectors
)
NAMES=(vm-odirect-v7.dat vm-zeroread-v7.dat vm-cpuhog-v7.dat vm-fsyncread-v7.dat vm-odirect-v6.dat)

# Check everything before touching samples/.
total=0
declare -A COUNTS
for n in "${NAMES[@]}"; do
	f=${SRC[$n]}
	size=$(stat -c %s "$f")
	total=$((total + size))
	[ "$size" -lt "$MAX_ONE" ] || { msg "$n is too big: $size bytes (limit $MAX_ONE)"; exit 1; }
	COUNTS[$n]=$("$HERE/check-recording.sh" --summary --require "${REQ[$n]}" "$f") ||
		{ msg "$n does not pass the checks"; exit 1; }
done
[ "$total" -lt "$MAX_ALL" ] || { msg "samples too big together: $total bytes (limit $MAX_ALL)"; exit 1; }

mkdir -p "$SAMPLES"
for n in "${NAMES[@]}"; do
	cp "${SRC[$n]}" "$SAMPLES/$n"
done

# --- samples/README.md: replace the lines that start with "vm-" ------------
kinfo=$(sed -n 's/^uname: //p' "$WORK/vm/guest-info.txt")
kcmd=$(sed -n 's/^cmdline: //p' "$WORK/vm/guest-info.txt" | sed 's/ *$//')
krel=$(awk '{ print $3 }' <<<"$kinfo")
kver=$(sed -n 's/.*Debian \([^ ]*\) .*/\1/p' <<<"$kinfo")
tcver=$({ "$TRACE_CMD" --version 2>&1 || true; } | sed -n 's/.*trace-cmd version \([^ ]*\).*/\1/p')
qver=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
accel=$(awk 'p { print; exit } $0 == "-accel" { p = 1 }' "$WORK/vm/vm-qemu.txt")

# The trace-cmd command line, with the guest paths of the run.
cmdline() { tail -n 1 "$WORK/vm/$1.cmd" | sed 's|/out/||'; }
kprobes() { sed -n "s|^echo '\(.*\)' >> .*|\1|p" "$WORK/vm/$1.cmd" | paste -sd ';' | sed 's/;/; /g'; }
common() { echo "Made by tests/vm/make-samples.sh: trace-cmd $tcver record inside a qemu $qver guest (-accel $accel, 2 vCPUs, 1 GiB) running Debian kernel $krel ($kver, cmdline \`$kcmd\`), workload tests/vm/workload.c on an ext4 virtio-blk scratch disk; kprobes written to kprobe_events before recording: \`$(kprobes "$1")\`"; }
# "total=N lost=N a=N ..." -> "N events (trace-cmd report -R), N lost: a N, ..."
counts() {
	tr ' ' '\n' <<<"${COUNTS[$1]}" | awk -F= '
		$1 == "total" { t = $2; next }
		$1 == "lost" { l = $2; next }
		$2 > 0 { s = s (s ? ", " : "") $1 " " $2 }
		END { printf "%d events (trace-cmd report -R), %d lost: %s", t, l, s }'
}
line() {
	local n=$1 what=$2 rec=$3 extra=$4
	# shellcheck disable=SC2016 # backquotes are Markdown
	printf '%s: %s. %s; command: `%s`%s; %s.\n' \
		"$n" "$what" "$(common "$rec")" "$(cmdline "$rec")" "$extra" "$(counts "$n")"
}
{
	line vm-odirect-v7.dat "trace.dat v7 (zstd), O_DIRECT random 4 KiB preads of a cold 64 MiB file mixed with buffered preads of a cached 4 MiB file (and every 16th a buffered pread of the cold file); not pid-filtered, so bio completions in interrupt context are kept" odirect ""
	line vm-zeroread-v7.dat "trace.dat v7 (zstd), read(fd, buf, 0) 2000 times on a cached ext4 file; no block I/O by design" zeroread ""
	line vm-cpuhog-v7.dat "trace.dat v7 (zstd), 1 MiB reads of a cached 16 MiB file (3 passes) while a forked CPU hog spins, both pinned to CPU 0, so the reads are preempted inside the kernel (preempt=full); no block I/O by design" cpuhog ""
	line vm-fsyncread-v7.dat "trace.dat v7 (zstd), eight 16 KiB writes each followed by fsync, then the reads of vm-odirect-v7.dat; function_graph rooted at __x64_sys_pread64 and plain kprobes on submit_bio and bio_endio with no return probe, which also fire in the workload's task before its first pread64 (written data and journal) and in jbd2; not pid-filtered" fsyncread ""
	line vm-odirect-v6.dat "trace.dat v6, the same recording as vm-odirect-v7.dat converted on the host" odirect " then \`trace-cmd convert --file-version 6 -i vm-odirect-v7.dat -o vm-odirect-v6.dat\`"
} >"$WORK/readme-lines"

readme=$SAMPLES/README.md
if [ -f "$readme" ]; then
	grep -v '^vm-' "$readme" >"$WORK/readme" || true
else
	: >"$WORK/readme"
fi
cat "$WORK/readme-lines" >>"$WORK/readme"
cat "$WORK/readme" >"$readme"

for n in "${NAMES[@]}"; do
	printf '%-20s %8d bytes  %s\n' "$n" "$(stat -c %s "$SAMPLES/$n")" "${COUNTS[$n]}"
done
msg "done in $((SECONDS - start))s (VM run ${vm_s}s); total $total bytes in $SAMPLES"
