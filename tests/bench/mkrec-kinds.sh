#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Makes the recordings bench-profile.sh races on besides the samples: each
# kind of workload recorded as a user would record it, by trace-cmd in the
# VM lab (tests/vm/guest-record.sh user-KIND: function_graph rooted at the
# system call, depth unlimited, sched, irq and block events, not
# pid-filtered), about a million events each:
#
#	61-append.dat	 6.1, two writers appending 4 KiB to one file (650 each,
#			 on two vCPUs of multi-threaded TCG)
#	61-preads.dat	 6.1, O_DIRECT and cached 4 KiB preads (1600 rounds)
#	61-stat.dat	 6.1, stat() of a path 16 directories deep (2000)
#	61-getrandom.dat 6.1, 16 KiB getrandom() beside a CPU hog (650)
#	61-zeroread.dat	 6.1, read(fd, buf, 0) (30000)
#	73-append.dat, 73-preads.dat: the same two on Debian's 7.3 (one host
#			 thread: the writers take turns)
#
# and, with HOST=1 (root and tracefs), the host's pread storm of mkrec.sh
# (raw_syscalls, sched and irq, 5 M events or more: bench-v7.dat,
# bench-v6.dat). They go to the VM lab's cache (bench/ in $DARC_VM_CACHE,
# else ~/.cache/darc-vm), outside the repository: recorded once (some 40
# minutes), then reused; FORCE=1 records again. Prints the directory.
#
# usage: mkrec-kinds.sh    (exits 77 when the VM lab cannot run here)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cache=${DARC_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/darc-vm}/bench
darc=${DARC:-$repo_dir/build/analyze/darc}
need_cmd trace-cmd
[[ -x $darc ]] || die "no darc at '$darc' (build first)"
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/darc-kinds.XXXXXX")
trap 'rm -rf "$work"' EXIT

# boot KERNEL ACCEL WORKLOAD:N...: one VM run of guest-record.sh for the
# workloads whose recording is missing; each lands in $cache/SERIES-KIND.dat
boot() {
	local kernel=$1 accel=$2 w kind rc=0 n try
	local -a todo=()
	shift 2
	for w in "$@"; do
		kind=${w%%:*}
		[[ -s $cache/${kernel/./}-$kind.dat && ${FORCE:-0} != 1 ]] || todo+=("user-$w")
	done
	[[ ${#todo[@]} -gt 0 ]] || return 0
	note "recording ${todo[*]} on $kernel"
	# multi-threaded TCG sometimes hangs the guest in ftrace's code
	# patching (tests/vm/README.md, Quirks): a second try
	for try in 1 2; do
		rm -rf "$work/vm"
		rc=0
		DARC_VM_ACCEL=$accel "$repo_dir/tests/vm/vm.sh" --kernel "$kernel" --out "$work/vm" \
			--add "$(command -v trace-cmd)" --timeout 5000 --out-mib 2048 \
			--script "$repo_dir/tests/vm/guest-record.sh" -- "${todo[@]}" \
			>"$work/vm.log" 2>&1 || rc=$?
		[[ $rc != 0 && $rc != 77 ]] || break
		cp "$work/vm/vm-console.log" "$cache/failed-$kernel-$try.log" 2>/dev/null || true
		note "the VM run on $kernel failed (status $rc), try $try: $(tail -n 1 "$work/vm.log")"
	done
	if [[ $rc == 77 ]]; then
		note "the VM lab cannot run here: $(tail -n 1 "$work/vm.log")"
		exit 77
	fi
	[[ $rc == 0 ]] || die "the VM run on $kernel failed twice (status $rc), console in $cache/failed-$kernel-*.log"
	for w in "${todo[@]}"; do
		kind=${w#user-}
		kind=${kind%%:*}
		n=$("$darc" info "$work/vm/user-$kind.dat" | awk '/^events:/ { print $2 }')
		[[ $n -ge 100000 ]] || die "$w on $kernel: only $n events"
		cp "$work/vm/user-$kind.cmd" "$cache/${kernel/./}-$kind.cmd"
		mv "$work/vm/user-$kind.dat" "$cache/${kernel/./}-$kind.dat"
		note "${kernel/./}-$kind.dat: $n events"
	done
}

# the two writers run in parallel to contend: multi-threaded TCG, on 6.1 (7.3
# panics there in ftrace's code patching, twice in two tries: one host thread)
boot 6.1 tcg append:650
boot 6.1 tcg,thread=single preads:1600 stat:2000 getrandom:650 zeroread:30000
boot 7.3 tcg,thread=single append:650 preads:1600
if [[ ${HOST:-0} == 1 ]]; then
	bash "$bench_dir/mkrec.sh" "$cache" >"$work/mkrec.log" 2>&1 ||
		die "mkrec.sh failed: $(tail -n 1 "$work/mkrec.log")"
fi
echo "$cache"
