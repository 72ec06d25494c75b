#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Regenerates samples/host-tracepoints-v7.dat (trace.dat v7, zstd) and its v6
# copy samples/host-tracepoints-v6.dat: a small recording of THIS host's
# sched, irq, block, raw_syscalls and read/pread64/openat syscall tracepoints
# around a small I/O workload (fsync writes, O_DIRECT reads, cold buffered
# reads and cold preads of a 2 MB file), and rewrites their "host-" lines in
# samples/README.md.
#
# usage: make-host-sample.sh [OUT_DIR]      (default: samples/ of this checkout)
#
# Needs root and tracefs. Events are enabled by hand in the top-level buffer
# and saved with `trace-cmd extract` (trace-cmd record cannot enable ftrace on
# these hosts); every tracefs setting is restored on exit. The syscall events
# are filtered to the workload's commands (dd, cat, storm) so that other
# processes' syscalls do not swamp the file; sched, irq and block are
# system-wide. /proc/kallsyms is replaced, for trace-cmd only (a bind mount in
# a private mount namespace), by the sched/irq/block/vfs/syscall text symbols
# of this kernel: the full table (5 MB) would not fit the v6 copy in 3 MB, and
# none of these events carries a kernel address.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out_dir=${1:-$repo_dir/samples}
max_bytes=3000000
v7_name=host-tracepoints-v7.dat
v6_name=host-tracepoints-v6.dat

syscall_events=(
	raw_syscalls
	syscalls/sys_enter_read syscalls/sys_exit_read
	syscalls/sys_enter_pread64 syscalls/sys_exit_pread64
	syscalls/sys_enter_openat syscalls/sys_exit_openat
)
events=(
	sched/sched_switch sched/sched_wakeup sched/sched_waking
	sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit
	irq/irq_handler_entry irq/irq_handler_exit
	irq/softirq_entry irq/softirq_exit irq/softirq_raise
	block
	"${syscall_events[@]}"
)
workload_comms='comm == "dd" || comm == "cat" || comm == "storm"'
ksyms_re=' [Tt] (_stext|_etext|_text|__x64_sys_|ksys_|vfs_|filemap_|ext4_|jbd2_|blk_|bio_|submit_bio|virtblk_|vp_|irq_|handle_irq|__do_softirq|handle_softirqs|sched_|schedule|__schedule|try_to_wake_up)'

tf_setup
[[ -d $out_dir ]] || die "output directory '$out_dir' does not exist"
need_cmd dd cat unshare mount uname date
work=$(mktemp -d /var/tmp/darc-sample.XXXXXX) || die "cannot create a work directory in /var/tmp"
cleanup() {
	tf_restore
	tf_unmount
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_storm "$work"
build_tcmd_iter "$work"
grep -E "$ksyms_re" /proc/kallsyms | grep -v '\[' >"$work/kallsyms" || die "cannot read /proc/kallsyms"

# The workload: files on the root file system (ext4 on a virtio disk here).
workload() {
	local f=$work/data i
	dd if=/dev/zero of="$f" bs=64k count=32 conv=fsync status=none
	for i in 1 2 3 4; do
		dd if=/dev/zero of="$f" bs=4k count=1 seek=$((i * 64)) conv=notrunc,fsync status=none
	done
	dd if="$f" of=/dev/null bs=4k count=64 iflag=direct status=none
	dd if="$f" iflag=nocache count=0 status=none # drop this file's pages only
	cat "$f" >/dev/null
	dd if="$f" iflag=nocache count=0 status=none
	"$work/storm" "$f" 1 128 4096 >/dev/null
	sleep 0.1
}

tf_save
tf_prepare 8192
tf_enable "${events[@]}"
tf_filter "$workload_comms" "${syscall_events[@]}"
echo 1 >"$T/tracing_on"
workload
echo 0 >"$T/tracing_on"
tf_disable

tf_no_loss "$work/stats"
tc_extract "$work/kallsyms" "$work/$v7_name" "$work/extract.log" --compression zstd
tf_restore

is_v7_zstd "$work/$v7_name" || die "trace-cmd extract did not write a zstd-compressed v7 file"
to_v6 "$work/$v7_name" "$work/$v6_name" "$work/convert.log"

"$work/tcmd-iter" -s "$work/$v7_name" >"$work/counts7" || die "tcmd-iter cannot read the v7 file"
"$work/tcmd-iter" "$work/$v6_name" >"$work/counts6" || die "tcmd-iter cannot read the v6 file"
n7=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' "$work/counts7")
n6=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' "$work/counts6")
[[ $n7 == "$n6" ]] || die "v7 has $n7 events but its v6 copy has $n6"
for f in "$v7_name" "$v6_name"; do
	size=$(stat -c %s "$work/$f")
	[[ $size -lt $max_bytes ]] || die "$f is $size bytes, over $max_bytes"
done

mv -f "$work/$v7_name" "$out_dir/$v7_name"
mv -f "$work/$v6_name" "$out_dir/$v6_name"

day=$(date -u +%Y-%m-%d)
os=$(awk -F= '$1 == "PRETTY_NAME" { gsub(/"/, "", $2); print $2 }' /etc/os-release)
kernel=$(uname -r)
ncpu=$(nproc)
tcv=$(trace-cmd --version 2>&1 | awk '/version/ && v == "" { v = $3 } END { print v }') || true # exits 255
nks=$(wc -l <"$work/kallsyms")
line7="$v7_name: recorded $day on this project's dev host ($os, Linux $kernel, $ncpu CPUs) by tests/bench/make-host-sample.sh: tracepoints enabled by hand in tracefs (sched_switch/wakeup/waking/process_fork/exec/exit, irq_handler_entry/exit, softirq_entry/exit/raise, all block, raw_syscalls, syscalls read/pread64/openat enter+exit; syscall events filtered to comm dd|cat|storm) around dd fsync writes, dd O_DIRECT reads, cold cat and cold pread (tests/bench/storm.c) of a 2 MB file on ext4/virtio-blk, saved with 'trace-cmd extract --compression zstd' (trace-cmd $tcv): v7, zstd, $n7 events, 0 lost; kallsyms trimmed to $nks sched/irq/block/vfs/syscall symbols so the v6 copy fits in 3 MB."
line6="$v6_name: the same recording as $v7_name, converted by 'trace-cmd convert --file-version 6' (v6, uncompressed, $n6 events)."

readme=$out_dir/README.md
tmp=$(mktemp "$readme.XXXXXX")
{
	if [[ -f $readme ]]; then
		grep -v -E '^host-tracepoints-v[67]\.dat' "$readme" || true
	fi
	printf '%s\n' "$line7" "$line6"
} >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$readme"

echo "$out_dir/$v7_name: $(stat -c %s "$out_dir/$v7_name") bytes, $n7 events"
echo "$out_dir/$v6_name: $(stat -c %s "$out_dir/$v6_name") bytes, $n6 events"
echo "per-CPU (cpu overrun commit_overrun dropped entries):"
sed 's/^/  /' "$work/stats"
echo "events per name:"
grep -v '^tcmd-iter:' "$work/counts7" | sed 's/^/  /'
