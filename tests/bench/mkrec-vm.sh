#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Makes the function_graph benchmark recording: this host cannot run
# function_graph, so the VM lab (tests/vm, Debian's stock kernel under qemu
# TCG) records the zeroread workload (read(fd, buf, 0) in a loop) with
# `trace-cmd record -p function_graph -g vfs_read --max-graph-depth 8`, plus
# the kprobes, block, sched and irq events of tests/vm/guest-record.sh:
# call trees of depth 1-8, unlike the raw_syscalls bench recording whose
# calls are all roots.
#
#	OUT_DIR/bench-fg-v7.dat	trace.dat v7, zstd
#
# usage: mkrec-vm.sh [OUT_DIR]   (default: $BENCH_OUT, else build/bench)
#
# An existing recording is reused (delete it, or set FORCE=1, to record
# again). FGBENCH_READS (default 200000) sets the reads; the script fails if
# the recording has fewer than MIN_EVENTS (default 5000000) events. Takes
# several minutes (TCG); exits 77 when the VM lab cannot run here.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out=${1:-${BENCH_OUT:-$repo_dir/build/bench}}
reads=${FGBENCH_READS:-200000}
min_events=${MIN_EVENTS:-5000000}
fg=$out/bench-fg-v7.dat
darc=${DARC:-$repo_dir/build/analyze/darc}

if [[ -s $fg && ${FORCE:-0} != 1 ]]; then
	note "reusing $fg"
	exit 0
fi
need_cmd trace-cmd
[[ -x $darc ]] || die "no darc at '$darc' (build first)"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/darc-fgbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

rc=0
"$repo_dir/tests/vm/vm.sh" --out "$work/vm" \
	--add "$(command -v trace-cmd)" --timeout 3000 --out-mib 1024 \
	--script "$repo_dir/tests/vm/guest-record.sh" -- "fgbench:$reads" >"$work/vm.log" 2>&1 || rc=$?
if [[ $rc == 77 ]]; then
	note "the VM lab cannot run here: $(tail -n 1 "$work/vm.log")"
	exit 77
fi
[[ $rc == 0 && -s $work/vm/fgbench.dat ]] ||
	die "the VM run failed (status $rc): $(tail -n 1 "$work/vm.log")"
n=$("$darc" info "$work/vm/fgbench.dat" | awk '/^events:/ { print $2 }')
[[ $n -ge $min_events ]] ||
	die "the recording has $n events, fewer than $min_events (raise FGBENCH_READS)"
mv "$work/vm/fgbench.dat" "$fg.tmp"
mv "$fg.tmp" "$fg"
note "$fg: $n events"
