#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Makes the function_graph benchmark recordings. This host cannot run
# function_graph, so the VM lab (tests/vm: Debian's stock kernel under qemu
# TCG, 2 vCPUs) records them with trace-cmd (tests/vm/guest-record.sh):
#
#	OUT_DIR/bench-fgappend-v7.dat	two writers appending 4 KiB writes to
#		one ext4 file, each on its own vCPU (contention on the inode
#		lock), -g ksys_write, depth unlimited, sched events, -F -c:
#		about 1.6 M events, call trees 20 deep
#	OUT_DIR/bench-fgappend4-v7.dat	the same with 4 times the writes (peak
#		RSS at 4x the events)
#	OUT_DIR/bench-fgmix-v7.dat	mixed reads: O_DIRECT random, cached
#		random, and sequential buffered preads that readahead serves
#		from the disk, -g __x64_sys_pread64, depth unlimited, sched,
#		irq and block events, not pid-filtered: about 1.8 M events
#	OUT_DIR/bench-fg-v7.dat		a long zeroread (read(fd, buf, 0)) with
#		--max-graph-depth 8 and the kprobes, block, sched and irq events:
#		about 6.6 M events, shallow trees (only with ZEROREAD=1)
#
# usage: mkrec-vm.sh [OUT_DIR]   (default: $BENCH_OUT, else build/bench)
#
# An existing recording is reused (delete it, or set FORCE=1, to record
# again). Each is checked to hold at least its minimum of events. Takes a few
# minutes; exits 77 when the VM lab cannot run here.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out=${1:-${BENCH_OUT:-$repo_dir/build/bench}}
darc=${DARC:-$repo_dir/build/analyze/darc}
need_cmd trace-cmd
[[ -x $darc ]] || die "no darc at '$darc' (build first)"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/darc-fgbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# record FILE WORKLOAD ACCEL MIN_EVENTS: one VM run of guest-record.sh
record() {
	local file=$out/$1 w=$2 accel=$3 min=$4 rc=0 n name
	if [[ -s $file && ${FORCE:-0} != 1 ]]; then
		note "reusing $file"
		return 0
	fi
	name=${w%%:*}
	rm -rf "$work/vm"
	DARC_VM_ACCEL=$accel "$repo_dir/tests/vm/vm.sh" --out "$work/vm" \
		--add "$(command -v trace-cmd)" --timeout 3000 --out-mib 1024 \
		--script "$repo_dir/tests/vm/guest-record.sh" -- "$w" >"$work/vm.log" 2>&1 || rc=$?
	if [[ $rc == 77 ]]; then
		note "the VM lab cannot run here: $(tail -n 1 "$work/vm.log")"
		exit 77
	fi
	[[ $rc == 0 && -s $work/vm/$name.dat ]] ||
		die "the VM run for $w failed (status $rc): $(tail -n 1 "$work/vm.log")"
	n=$("$darc" info "$work/vm/$name.dat" | awk '/^events:/ { print $2 }')
	[[ $n -ge $min ]] ||
		die "$w: the recording has $n events, fewer than $min"
	mv "$work/vm/$name.dat" "$file.tmp"
	mv "$file.tmp" "$file"
	note "$file: $n events"
}

# the writers must run in parallel to contend: multi-threaded TCG
record bench-fgappend-v7.dat fgappend:1000 tcg 1000000
record bench-fgappend4-v7.dat fgappend:4000 tcg 4000000
record bench-fgmix-v7.dat fgmix:1500 tcg,thread=single 1000000
if [[ ${ZEROREAD:-0} == 1 ]]; then
	record bench-fg-v7.dat fgbench:"${FGBENCH_READS:-200000}" tcg,thread=single 5000000
fi
