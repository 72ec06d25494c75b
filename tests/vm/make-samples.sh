#!/bin/bash
# make-samples.sh: regenerate samples/vm-*.dat with trace-cmd record inside
# the VM lab (Debian's stock kernel under qemu TCG), check them, and rewrite
# the "vm-" lines of samples/README.md.
#
#   tests/vm/make-samples.sh [--keep DIR | --from DIR] [--only NAME,...]
#
# --keep DIR keeps the VMs' output (recordings, logs, console) in DIR;
# --from DIR skips the VM runs and uses the recordings kept in DIR/vm and
# DIR/vm-mt.  --only NAME,... (e.g. vm-preads-v7.dat,vm-preads2-v7.dat)
# makes, checks and copies only those samples (the VMs record only their
# workloads) and replaces only their lines in samples/README.md.
#
# Makes, from one boot (single-threaded TCG):
#   vm-odirect-v7.dat   O_DIRECT + buffered reads on ext4/virtio-blk
#   vm-zeroread-v7.dat  read(fd, buf, 0) in a loop
#   vm-cpuhog-v7.dat    big page-cache reads preempted by a CPU hog on CPU 0
#   vm-fsyncread-v7.dat writes + fsync, then vm-odirect's reads; graph rooted
#                       at __x64_sys_pread64, plain kprobes (no return probe)
#                       on submit_bio/bio_endio that also fire outside it
#   vm-odirect-v6.dat   vm-odirect-v7.dat converted to trace.dat v6 on the
#                       host (trace-cmd convert --file-version 6)
#   vm-preads-v7.dat    O_DIRECT (disk) and cached 4 KiB preads, 200 each; graph
#                       rooted at __x64_sys_pread64: two latency peaks
#   vm-preads2-v7.dat   the same workload recorded again, right after (both
#                       after one unrecorded run of it)
# and from a second boot with multi-threaded TCG (DARC_VM_ACCEL=tcg), whose
# vCPUs really run in parallel (under single-threaded TCG two writers on two
# vCPUs hardly ever meet at the lock):
#   vm-append1-v7.dat   one writer appending 300 x 4 KiB to an O_APPEND file
#   vm-append2-v7.dat   two writers (one per vCPU) doing the same to one file:
#                       they contend for its inode lock (down_write)
#
# On another kernel (DARC_VM_KERNEL=6.12 or 7.3, see vm.sh --kernel) the
# samples are named after it, vm612-* or vm73-* instead of vm-*, and without
# --only only vm-odirect-v7.dat, vm-preads-v7.dat and vm-chain-v7.dat are
# made (as vm73-odirect-v7.dat and so on); --only takes either name.  Where
# the kernel has options/funcgraph-args (7.3), the recordings hold the
# functions' arguments too (guest-record.sh).
# Exit status: 0 ok, 1 failure, 77 when the lab cannot run here.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SAMPLES=$TOP/samples
KEEP=
FROM=
MAX_ONE=$((5 * 1000 * 1000))
MAX_ALL=$((15 * 1000 * 1000))
ONLY=

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=$2; shift 2 ;;
	--from) FROM=$2; KEEP=$2; shift 2 ;;
	--only) ONLY=,$2,; shift 2 ;;
	-h|--help) sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "make-samples: unknown argument $1" >&2; exit 2 ;;
	esac
done

msg() { echo "make-samples: $*" >&2; }
# the name prefix of this kernel's samples: vm (6.1), vm612, vm73
KERNEL=${DARC_VM_KERNEL:-6.1}
PREFIX=vm
[ "$KERNEL" = 6.1 ] || PREFIX=vm${KERNEL//./}
case $PREFIX in vm | vm[0-9]*) ;; *) msg "DARC_VM_KERNEL must be a series such as 7.3"; exit 2 ;; esac
# the sample name for this kernel of table name N (vm-...)
out() { echo "$PREFIX-${1#vm-}"; }
# 7.3's kallsyms alone is 1.9 MB compressed in every recording: trace-cmd gets its
# functions only (guest-record.sh); 6.1's samples were made with all of it
GUEST_OPTS=()
[ "$PREFIX" = vm ] || GUEST_OPTS=(--text-kallsyms)
TRACE_CMD=$(command -v trace-cmd) || { msg "trace-cmd not found"; exit 77; }

if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	WORK=$(cd "$KEEP" && pwd)
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-samples.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi

# Each sample: the VM run (vm: single-threaded TCG, vm-mt: multi-threaded)
# and the guest-record.sh workload it comes from.
declare -A RUN=(
	[vm-odirect-v7.dat]=vm/odirect
	[vm-zeroread-v7.dat]=vm/zeroread
	[vm-cpuhog-v7.dat]=vm/cpuhog
	[vm-fsyncread-v7.dat]=vm/fsyncread
	[vm-odirect-v6.dat]=vm/odirect
	[vm-preads-v7.dat]=vm/preads
	[vm-preads2-v7.dat]=vm/preads2
	[vm-append1-v7.dat]=vm-mt/append1
	[vm-append2-v7.dat]=vm-mt/append2
	[vm-getrandom-v7.dat]=vm/getrandom
	[vm-stat-v7.dat]=vm/stat
	[vm-chain-v7.dat]=vm/chain
)
NAMES=(vm-odirect-v7.dat vm-zeroread-v7.dat vm-cpuhog-v7.dat vm-fsyncread-v7.dat
	vm-odirect-v6.dat vm-preads-v7.dat vm-preads2-v7.dat vm-append1-v7.dat
	vm-append2-v7.dat vm-getrandom-v7.dat vm-stat-v7.dat vm-chain-v7.dat)
if [ -z "$ONLY" ] && [ "$PREFIX" != vm ]; then
	ONLY=,vm-odirect-v7.dat,vm-preads-v7.dat,vm-chain-v7.dat,
fi
ONLY=${ONLY//,$PREFIX-/,vm-}
if [ -n "$ONLY" ]; then
	sel=()
	for n in "${NAMES[@]}"; do
		[[ $ONLY != *,$n,* ]] || sel+=("$n")
	done
	for n in ${ONLY//,/ }; do
		[ -n "${RUN[$n]:-}" ] || { msg "--only: no sample $n"; exit 2; }
	done
	NAMES=("${sel[@]}")
fi
# workloads W for run R, in NAMES order, each once
workloads() {
	local n w=" "
	for n in "${NAMES[@]}"; do
		[ "${RUN[$n]%/*}" = "$1" ] || continue
		[[ $w == *" ${RUN[$n]#*/} "* ]] || w="$w${RUN[$n]#*/} "
	done
	echo "$w"
}

start=$SECONDS
if [ -z "$FROM" ]; then
	for r in vm vm-mt; do
		# shellcheck disable=SC2046 # one argument per workload
		set -- $(workloads $r)
		[ $# -gt 0 ] || continue
		rm -rf "${WORK:?}/$r"
		accel=tcg,thread=single
		[ $r = vm ] || accel=tcg
		rc=0
		DARC_VM_ACCEL=$accel "$HERE/vm.sh" --out "$WORK/$r" --add "$TRACE_CMD" \
			--timeout 400 --script "$HERE/guest-record.sh" -- "${GUEST_OPTS[@]}" "$@" || rc=$?
		if [ "$rc" = 1 ] && [ $r = vm-mt ]; then
			# multi-threaded TCG sometimes hangs the guest during
			# ftrace's code patching (tests/vm/README.md, Quirks)
			msg "the VM run ($r, -accel $accel) failed; once more"
			rm -rf "${WORK:?}/$r"
			rc=0
			DARC_VM_ACCEL=$accel "$HERE/vm.sh" --out "$WORK/$r" --add "$TRACE_CMD" \
				--timeout 400 --script "$HERE/guest-record.sh" -- "${GUEST_OPTS[@]}" "$@" || rc=$?
		fi
		if [ "$rc" != 0 ]; then
			msg "the VM run ($r, -accel $accel) failed (status $rc)"
			exit "$rc"
		fi
	done
fi
vm_s=$((SECONDS - start))

if [[ " ${NAMES[*]} " == *" vm-odirect-v6.dat "* ]]; then
	"$TRACE_CMD" convert --file-version 6 -i "$WORK/vm/odirect.dat" \
		-o "$WORK/odirect-v6.dat" >"$WORK/convert.log" 2>&1 ||
		{ cat "$WORK/convert.log" >&2; msg "trace-cmd convert failed"; exit 1; }
fi

declare -A SRC=(
	[vm-odirect-v7.dat]=$WORK/vm/odirect.dat
	[vm-zeroread-v7.dat]=$WORK/vm/zeroread.dat
	[vm-cpuhog-v7.dat]=$WORK/vm/cpuhog.dat
	[vm-fsyncread-v7.dat]=$WORK/vm/fsyncread.dat
	[vm-odirect-v6.dat]=$WORK/odirect-v6.dat
	[vm-preads-v7.dat]=$WORK/vm/preads.dat
	[vm-preads2-v7.dat]=$WORK/vm/preads2.dat
	[vm-append1-v7.dat]=$WORK/vm-mt/append1.dat
	[vm-append2-v7.dat]=$WORK/vm-mt/append2.dat
	[vm-getrandom-v7.dat]=$WORK/vm/getrandom.dat
	[vm-stat-v7.dat]=$WORK/vm/stat.dat
	[vm-chain-v7.dat]=$WORK/vm/chain.dat
)
# shellcheck disable=SC2054 # the commas are inside values
declare -A REQ=(
	[vm-odirect-v7.dat]=funcgraph,kprobe,kretprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler,irq_vectors
	[vm-zeroread-v7.dat]=funcgraph,kprobe,kretprobe,sched_switch,irq,irq_vectors
	[vm-cpuhog-v7.dat]=funcgraph,kprobe,kretprobe,sched_switch,sched_wakeup,irq,irq_vectors
	[vm-fsyncread-v7.dat]=funcgraph,kprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler
	[vm-odirect-v6.dat]=funcgraph,kprobe,kretprobe,bio,block,sched_switch,sched_wakeup,irq,irq_handler,irq_vectors
	[vm-preads-v7.dat]=funcgraph,block,sched_switch,sched_wakeup,irq,irq_handler
	[vm-preads2-v7.dat]=funcgraph,block,sched_switch,sched_wakeup,irq,irq_handler
	[vm-append1-v7.dat]=funcgraph,sched_switch,sched_wakeup
	[vm-append2-v7.dat]=funcgraph,sched_switch,sched_wakeup
	[vm-getrandom-v7.dat]=funcgraph,sched_switch
	[vm-stat-v7.dat]=funcgraph,sched_switch,irq
	[vm-chain-v7.dat]=funcgraph,sched_switch,sched_wakeup,irq,irq_vectors
)

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
[ ${#NAMES[@]} -gt 0 ] || { msg "no samples selected"; exit 2; }

mkdir -p "$SAMPLES"
for n in "${NAMES[@]}"; do
	cp "${SRC[$n]}" "$SAMPLES/$(out "$n")"
done

# --- samples/README.md: replace the lines of these samples ----------------
tcver=$({ "$TRACE_CMD" --version 2>&1 || true; } | sed -n 's/.*trace-cmd version \([^ ]*\).*/\1/p')
qver=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')

# REC is RUN/WORKLOAD (e.g. vm/odirect): its trace-cmd command line, with the
# guest paths of the run; its kprobes; the kernel and qemu of its run
cmdline() { tail -n 1 "$WORK/$1.cmd" | sed 's|/out/||'; }
kprobes() { sed -n "s|^echo '\(.*\)' >> .*|\1|p" "$WORK/$1.cmd" | paste -sd ';' | sed 's/;/; /g'; }
common() {
	local run=$WORK/${1%/*} kinfo kcmd krel kver accel kp ks
	kinfo=$(sed -n 's/^uname: //p' "$run/guest-info.txt")
	kcmd=$(sed -n 's/^cmdline: //p' "$run/guest-info.txt" | sed 's/ *$//')
	krel=$(awk '{ print $3 }' <<<"$kinfo")
	kver=$(sed -n 's/.*Debian \([^ ]*\) .*/\1/p' <<<"$kinfo")
	accel=$(awk 'p { print; exit } $0 == "-accel" { p = 1 }' "$run/vm-qemu.txt")
	kp=$(kprobes "$1")
	# shellcheck disable=SC2016 # backquotes are Markdown
	if [ -n "$kp" ]; then
		kp="kprobes written to kprobe_events before recording: \`$kp\`"
	else
		kp="no kprobes"
	fi
	ks=$(sed -n 's/^kallsyms: //p' "$WORK/$1.cmd")
	[ -z "$ks" ] || kp="$kp; trace-cmd saw a /proc/kallsyms of $ks (a copy bind-mounted over it, to keep the file small)"
	echo "Made by tests/vm/make-samples.sh: trace-cmd $tcver record inside a qemu $qver guest (-accel $accel, 2 vCPUs, 1 GiB) running Debian kernel $krel ($kver, cmdline \`$kcmd\`), workload tests/vm/workload.c on an ext4 virtio-blk scratch disk; $kp"
}
# "total=N lost=N a=N ..." -> "N events (trace-cmd report -R), N lost: a N, ..."
counts() {
	tr ' ' '\n' <<<"${COUNTS[$1]}" | awk -F= '
		$1 == "total" { t = $2; next }
		$1 == "lost" { l = $2; next }
		$2 > 0 { s = s (s ? ", " : "") $1 " " $2 }
		END { printf "%d events (trace-cmd report -R), %d lost: %s", t, l, s }'
}
line() {
	local n=$1 what=$2 rec=${RUN[$1]} extra=$3
	[[ " ${NAMES[*]} " == *" $n "* ]] || return 0
	# shellcheck disable=SC2016 # backquotes are Markdown
	printf '%s: %s. %s; command: `%s`%s; %s.\n' \
		"$(out "$n")" "$what" "$(common "$rec")" "$(cmdline "$rec")" "$extra" "$(counts "$n")"
}
{
	line vm-odirect-v7.dat "trace.dat v7 (zstd), O_DIRECT random 4 KiB preads of a cold 64 MiB file mixed with buffered preads of a cached 4 MiB file (and every 16th a buffered pread of the cold file); not pid-filtered, so bio completions in interrupt context are kept" ""
	line vm-zeroread-v7.dat "trace.dat v7 (zstd), read(fd, buf, 0) 2000 times on a cached ext4 file; no block I/O by design" ""
	line vm-cpuhog-v7.dat "trace.dat v7 (zstd), 1 MiB reads of a cached 16 MiB file (3 passes) while a forked CPU hog spins, both pinned to CPU 0, so the reads are preempted inside the kernel (preempt=full); no block I/O by design" ""
	line vm-fsyncread-v7.dat "trace.dat v7 (zstd), eight 16 KiB writes each followed by fsync, then the reads of vm-odirect-v7.dat; function_graph rooted at __x64_sys_pread64 and plain kprobes on submit_bio and bio_endio with no return probe, which also fire in the workload's task before its first pread64 (written data and journal) and in jbd2; not pid-filtered" ""
	line vm-odirect-v6.dat "trace.dat v6, the same recording as vm-odirect-v7.dat converted on the host" " then \`trace-cmd convert --file-version 6 -i vm-odirect-v7.dat -o vm-odirect-v6.dat\`"
	line vm-preads-v7.dat "trace.dat v7 (zstd), 200 O_DIRECT random 4 KiB preads of a cold 64 MiB file (disk reads) alternating with 200 buffered 4 KiB preads of a cached 4 MiB file (page cache hits), so pread64's latency histogram has two peaks; recorded after one unrecorded run of the same workload (the first pass over the O_DIRECT offsets is slower on the host's storage); function_graph rooted at __x64_sys_pread64 (depth 6); not pid-filtered, so bio completions in interrupt context are kept" ""
	line vm-preads2-v7.dat "trace.dat v7 (zstd), the workload of vm-preads-v7.dat recorded a second time, right after it in the same boot (same offsets: fixed-seed generator); for comparing two recordings of the same workload" ""
	line vm-append1-v7.dat "trace.dat v7 (zstd), one writer process (pinned to CPU 0) appending 300 x 4 KiB writes to an ext4 file opened with O_APPEND; function_graph rooted at __x64_sys_write (depth 6); multi-threaded TCG, the baseline for vm-append2-v7.dat" ""
	line vm-append2-v7.dat "trace.dat v7 (zstd), two writer processes, pinned to CPU 0 and CPU 1, each appending 300 x 4 KiB writes to the same ext4 file opened with O_APPEND (each its own open), started together; they contend for the file's inode lock (down_write in ext4_buffered_write_iter); function_graph rooted at __x64_sys_write (depth 6); multi-threaded TCG, so the two vCPUs run in parallel" ""
	line vm-getrandom-v7.dat "trace.dat v7 (zstd), 1500 getrandom(2) calls of 16 KiB (CPU-bound in the kernel) while a forked CPU hog spins, both pinned to CPU 0, so the slow calls are preempted inside the kernel (preempt=full); one unrecorded getrandom first (a fresh boot's first may wait for entropy); function_graph rooted at __x64_sys_getrandom (depth 2)" ""
	line vm-stat-v7.dat "trace.dat v7 (zstd), 400 stat() calls of a file 16 directories deep on ext4 (the path walk of the DARC dissertation's stat case, on a modern kernel); function_graph rooted at __x64_sys_newfstatat (depth 6)" ""
	line vm-chain-v7.dat "trace.dat v7 (zstd), a wake-up chain: 100 rounds of three processes over two pipes, the first blocked reading from the second, the second from the third, the third sleeping 2 ms (nanosleep) before each write; function_graph rooted at __x64_sys_read (depth 3), sched, irq and irq_vectors events, not pid-filtered" ""
} >"$WORK/readme-lines"

readme=$SAMPLES/README.md
if [ -f "$readme" ]; then
	if [ -n "$ONLY" ]; then
		# drop only the lines of the selected samples
		for n in "${NAMES[@]}"; do out "$n"; done |
			sed 's/$/:/; s/\./\\./g; s/^/^/' >"$WORK/only"
		grep -v -f "$WORK/only" "$readme" >"$WORK/readme" || true
	else
		grep -v "^$PREFIX-" "$readme" >"$WORK/readme" || true
	fi
else
	: >"$WORK/readme"
fi
cat "$WORK/readme-lines" >>"$WORK/readme"
cat "$WORK/readme" >"$readme"

for n in "${NAMES[@]}"; do
	printf '%-20s %8d bytes  %s\n' "$(out "$n")" "$(stat -c %s "$SAMPLES/$(out "$n")")" "${COUNTS[$n]}"
done
msg "done in $((SECONDS - start))s (VM run ${vm_s}s); total $total bytes in $SAMPLES"
