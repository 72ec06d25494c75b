#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Regenerates samples/host-pair.perf.data and samples/host-pair-v7.dat (run by
# hand, as root, on a host with tracefs): ONE run of a small dd workload
# recorded by perf record and by ftrace at the same time, with the same
# tracepoints (sched, raw_syscalls, irq) on the same clock (trace_clock perf,
# perf record's default). tests/golden/perf-vs-tracedat.py checks that darc
# analyze gives both the same calls, durations and attributions.
#
# usage: make-perf-pair.sh [OUT_DIR]      (default: samples/ of this checkout)
#
# ftrace's side is enabled by hand in tracefs and saved by trace-cmd extract
# (trace-cmd record cannot enable ftrace on these hosts), with /proc/kallsyms
# trimmed for trace-cmd as in make-host-sample.sh: none of these events
# carries a kernel address. Every tracefs setting is restored on exit.
# raw_syscalls are filtered to comm dd in both, sched and irq are
# system-wide in both (perf record -a).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out_dir=${1:-$repo_dir/samples}
perf_name=host-pair.perf.data
tc_name=host-pair-v7.dat
filter='comm == "dd"'
events=(sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_process_fork
	sched/sched_process_exec sched/sched_process_exit raw_syscalls/sys_enter
	raw_syscalls/sys_exit irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry
	irq/softirq_exit irq/softirq_raise)
perf_ev=()
for e in "${events[@]}"; do
	perf_ev+=(-e "${e/\//:}")
	[[ $e == raw_syscalls/* ]] && perf_ev+=(--filter "$filter")
done

tf_setup
need_cmd perf trace-cmd dd unshare mount
work=$(mktemp -d /var/tmp/darc-pair.XXXXXX) || die "cannot create a work directory in /var/tmp"
clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")
cleanup() {
	echo "$clock" >"$T/trace_clock" || true
	tf_restore
	tf_unmount
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
grep -E ' [Tt] (_stext|_etext|_text|__x64_sys_|ksys_|vfs_|irq_|handle_irq|sched_|schedule)' \
	/proc/kallsyms | grep -v '\[' >"$work/kallsyms" || die "cannot read /proc/kallsyms"

# dd copies in two tasks at once: one CPU-bound, one writing to the disk with fsync
w="dd if=/dev/zero of=/dev/null bs=4k count=100 2>/dev/null & dd if=/dev/urandom of=$work/x bs=4k count=40 conv=fsync 2>/dev/null; wait"
tf_save
tf_prepare 8192
echo perf >"$T/trace_clock" || die "this kernel's trace_clock has no 'perf' clock"
tf_enable "${events[@]}"
tf_filter "$filter" raw_syscalls/sys_enter raw_syscalls/sys_exit
echo 1 >"$T/tracing_on"
perf record -q -a -o "$work/$perf_name" "${perf_ev[@]}" -- sh -c "$w"
echo 0 >"$T/tracing_on"
tf_disable
tf_no_loss "$work/stats"
tc_extract "$work/kallsyms" "$work/$tc_name" "$work/extract.log"

chmod 644 "$work/$perf_name" "$work/$tc_name"
mv -f "$work/$perf_name" "$work/$tc_name" "$out_dir/"
host="this project's dev host ($(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r), $(nproc) CPUs)"
np=$(perf script -i "$out_dir/$perf_name" 2>/dev/null | wc -l)
nt=$(trace-cmd report "$out_dir/$tc_name" 2>/dev/null | grep -vc '^ *cpus=')
echo "$perf_name: perf.data (file mode), recorded $(date -u +%F) on $host, $(perf --version): \`perf record -a ${perf_ev[*]} -- sh -c '$w'\` (\$work is a temporary directory), while ftrace recorded the same run into $tc_name; $np events. Made by tests/bench/make-perf-pair.sh."
echo "$tc_name: the run of $perf_name as ftrace saw it at the same time: the same tracepoints enabled by hand in tracefs (raw_syscalls filtered to $filter), trace_clock perf, saved by trace-cmd extract ($(trace-cmd --version 2>&1 | awk '/version/ {print $3; exit}')) with kallsyms trimmed to $(wc -l <"$work/kallsyms") symbols; $nt events. Made by tests/bench/make-perf-pair.sh."
