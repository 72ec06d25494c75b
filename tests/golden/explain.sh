#!/bin/bash
# darc explain with no options on recordings of known workloads (issue 21, Must
# show 1): it must start with the traced entry point and name the cause the
# workload puts there, by time. The truth is tests/golden/explain-truth.py's,
# computed from the database's raw tables without darc's search. Per sample:
#   (a) the first subject is the entry point the recording traced;
#   (b) its first cause is the truth's largest (kind and function: the path
#       holds the function, or starts on the truth's chain below it and
#       follows it; preemption and interrupts, which the truth counts as
#       wholes, may have no function; a cause within 0.05 of the largest
#       counts as largest too);
#   (c) causes in decreasing ns; the first cause's share within 0.15 of the
#       truth's for it, the truth computed over darc's own slow buckets (the
#       truth's share at darc's path itself is printed too: darc's arithmetic);
#   (d) the text's first sentence names that function (or one below it on the
#       truth's chain, or on the path (b) accepted; for preemption and
#       interrupts, or the task or handler that took the time).
# The samples and their workloads (samples/README.md):
#   vm-getrandom   getrandom beside a CPU hog on one CPU, preempt=full: preempted
#   vm-zeroread    zero-byte reads hit by timer interrupts: irq
#   vm-append2     two writers on one file: the inode lock (down_write)
#   vm-odirect     O_DIRECT and cached preads: the cold ones wait for the disk
#   vm-preads      the same through pread64
#   vm-stat        stat of a path 16 directories deep: the path walk
#   vm73-preads    vm-preads on Linux 7.3 (IBT names; TCG makes submission CPU-bound)
#   host-explainapp  tests/live/explain-app.c: backoff's 3 ms sleep, then fsync
# Usage: explain.sh DARC. Exit 0 pass, 1 fail.
set -u
darc=$(realpath "${1:?usage: explain.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../../samples
tmp=$(mktemp -d /tmp/darc-explain.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
while read -r sample subject; do
	dir=$tmp/${sample%.dat}
	mkdir "$dir" && cp "$samples/$sample" "$dir/" || exit 1
	if ! "$darc" explain "$dir/$sample" --json >"$dir/explain.json" 2>"$dir/err"; then
		echo "FAIL $sample: darc explain --json exits non-zero: $(head -n 1 "$dir/err")"
		fail=1
		continue
	fi
	"$darc" explain "$dir/$sample" >"$dir/explain.txt" 2>>"$dir/err"
	db=$(ls -t "$dir"/*.db 2>/dev/null | head -n 1)
	if [ -z "$db" ]; then
		echo "FAIL $sample: darc explain left no database beside it"
		fail=1
		continue
	fi
	python3 "$here/explain-check.py" "$sample" "$db" "$subject" "$dir/explain.json" \
		"$dir/explain.txt" || fail=1
done <<'LIST'
vm-getrandom-v7.dat __x64_sys_getrandom
vm-zeroread-v7.dat vfs_read
vm-append2-v7.dat __x64_sys_write
vm-odirect-v7.dat vfs_read
vm-preads-v7.dat __x64_sys_pread64
vm-stat-v7.dat __x64_sys_newfstatat
vm73-preads-v7.dat __x64_sys_pread64
host-explainapp-v7.dat handle
LIST
exit $fail
