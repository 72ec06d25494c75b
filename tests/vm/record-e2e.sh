#!/bin/bash
# record-e2e.sh: darc-record end to end on a real kernel (the VM lab).
#
#   tests/vm/record-e2e.sh DARC DARC_RECORD [--keep DIR]
#
# In the guest, darc-record records the O_DIRECT workload with function_graph
# rooted at __x64_sys_pread64 (a syscall entry), kprobes on submit_bio and bio_endio with the bio
# pointer, and block/sched/irq events; trace-cmd records the same workload.
# darc-record also puts a uprobe and a uretprobe on the workload's pread64, with
# raw_syscalls (6.11+: the uretprobe system call, its exit id -1: no lost events).
# On the host: trace-cmd report reads the bundle; darc reads it event for
# event as trace-cmd does (cmp-report.sh); every number of its analysis adds
# up (check-analyze.sh); darc analyze finds the same functions on the same
# paths from both recordings, and vfs_read with its kprobe'd block I/O in
# each; tracefs in the guest is as it was before darc-record ran (but for a
# top-level ring buffer that the kernel allocated, which the manifest says).
# Exit status: 0 pass, 1 fail, 77 skip (no qemu, kernel, trace-cmd, sqlite3).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=record-e2e
# shellcheck source=host-lib.sh
. "$HERE/host-lib.sh"

DARC=${1:-}
REC=${2:-}
KEEP=
[ "${3:-}" = --keep ] && KEEP=${4:-}
if [ ! -x "$DARC" ] || [ ! -x "$REC" ]; then
	skip "usage: record-e2e.sh DARC DARC_RECORD"
fi
DARC=$(realpath "$DARC")
REC=$(realpath "$REC")
TRACE_CMD=$(command -v trace-cmd) || skip "trace-cmd not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
work_dir "$KEEP"
start=$SECONDS
# at a fixed guest path: the guest mounts a tmpfs on /tmp, which would hide
# a build tree under /tmp at its own path
run_vm --add "$REC=/usr/local/bin/darc-record" --add "$TRACE_CMD" --timeout 200 \
	--script "$HERE/guest-darc-record.sh"

check "trace-cmd report reads the bundle" "$TRACE_CMD" report "$V/darc.dat"
check "darc dump agrees with trace-cmd report -R on the bundle" \
	bash "$TOP/tests/golden/cmp-report.sh" "$DARC" "$V/darc.dat"
check "the analysis of the bundle adds up" \
	bash "$TOP/tests/golden/check-analyze.sh" "$DARC" "$V/darc.dat"
check "the analysis of trace-cmd's recording adds up" \
	bash "$TOP/tests/golden/check-analyze.sh" "$DARC" "$V/tc.dat"
check "darc info shows the manifest" sh -c "'$DARC' info '$V/darc.dat' | grep -q '^manifest:'"
# a sanitizer build's darc-record reports on its stderr in the guest, out of
# tests/sanitize.sh's reach (and --check's status is not looked at)
no_reports() { ! grep -E '^==[0-9]+==|: runtime error: ' "$@"; }
check "no sanitizer report from darc-record in the guest" \
	no_reports "$V/tp.log" "$V/darc.log" "$V/check.txt"

# tracefs after a recording is as before it, but for the top-level ring buffer: a
# fresh kernel's is unallocated ("7 (expanded: 1408)"), and a recording that uses
# it (or, on 6.1, any recording) makes the kernel allocate it at that default,
# which cannot be undone. Then darc-record says so in the manifest, and on its
# output unless -q. Never left at its boot size.
top_size() { sed -n '/^== buffer_size_kb$/{n;p}' "$1"; }
# (the kernel rounds a size up to whole pages: 1408 reads back as 1410)
as_before_or_default() { # BEFORE AFTER DEFAULT
	[ "$2" = "$1" ] || { [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -lt $(($3 + 16)) ]; }
}
same_tracefs() { # WHAT BEFORE.txt AFTER.txt BUNDLE [LOG]
	local what=$1 b=$V/$2 a=$V/$3 bundle=$V/$4 log=${5:+$V/$5} before after default top
	before=$(top_size "$b")
	after=$(top_size "$a")
	default=$(sed -n 's/.*(expanded: \([0-9]*\)).*/\1/p' <<<"$before")
	top=$("$DARC" info --json "$bundle" | python3 -c '
import json, sys
t = json.load(sys.stdin)["manifest"]["top_buffer"]
print(t["before"], "|", t["after"], "|", t["expanded"])')
	say "$what: top-level buffer_size_kb '$before' before, '$after' after; manifest: $top"
	check "$what: the top-level buffer is as it was or at its default (${default:-none})" \
		as_before_or_default "$before" "$after" "${default:-0}"
	if [ "$after" != "$before" ]; then
		check "$what: the manifest says it was allocated" test "$top" = "$before | $after | True"
		[ -z "$log" ] ||
			check "$what: darc-record said so" grep -q "top-level ring buffer was unallocated" "$log"
	else
		check "$what: the manifest says it was not touched" test "$top" = "$before | $before | False"
	fi
	check "$what: nothing else of tracefs changed" \
		diff <(sed '/^== buffer_size_kb$/,+1d' "$b") <(sed '/^== buffer_size_kb$/,+1d' "$a")
}
check "a fresh boot's top-level buffer is unallocated" grep -q expanded "$V/state-fresh.txt"
same_tracefs "tracepoints in instances" state-fresh.txt state-tp.txt tp.dat tp.log
same_tracefs "the graph recording" state-before.txt state-after.txt darc.dat

# the same calls: the paths of function_graph calls under the syscall, with
# how many calls took each, from both recordings (in darc-record's, the
# syscall is under the pread64 uprobe)
paths() { # FILE NAME -> "calls<TAB>path" of kernel functions from the syscall down, by path
	"$DARC" analyze -q -o "$WORK/$2.db" "$1" >/dev/null || return 1
	sqlite3 -separator '	' "$WORK/$2.db" "SELECT sum(n.calls),
		substr(path, instr(path, '__x64_sys_pread64')) q
		FROM fnode_path p JOIN fnode n ON n.id = p.id JOIN func f ON f.id = n.func_id
		WHERE f.kind = 0 AND instr(p.path, '__x64_sys_pread64') > 0 AND n.calls > 0
		GROUP BY q ORDER BY q"
}
paths "$V/darc.dat" darc >"$WORK/darc.paths" || fail "darc analyze failed on the bundle"
paths "$V/tc.dat" tc >"$WORK/tc.paths" || fail "darc analyze failed on trace-cmd's recording"
n_darc=$(wc -l <"$WORK/darc.paths")
n_tc=$(wc -l <"$WORK/tc.paths")
common=$(comm -12 <(cut -f2 "$WORK/darc.paths") <(cut -f2 "$WORK/tc.paths") | wc -l)
# of each recording's calls, the share on paths the other one has too
shares=$(awk -F'\t' 'FNR == 1 { side++ } { calls[side, $2] = $1; total[side] += $1 }
	END {
		for (k in calls) {
			split(k, p, SUBSEP)
			if ((3 - p[1], p[2]) in calls)
				on[p[1]] += calls[k]
		}
		printf "%.2f %.2f\n", total[1] ? on[1] / total[1] : 0, total[2] ? on[2] / total[2] : 0
	}' "$WORK/darc.paths" "$WORK/tc.paths")
reads_darc=$(sqlite3 "$WORK/darc.db" "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
	WHERE f.name = 'vfs_read' AND c.incl_ns IS NOT NULL")
reads_tc=$(sqlite3 "$WORK/tc.db" "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
	WHERE f.name = 'vfs_read' AND c.incl_ns IS NOT NULL")
say "call paths under __x64_sys_pread64: $n_darc from darc-record, $n_tc from trace-cmd, $common common;" \
	"the calls on common paths: $shares; complete vfs_read calls: $reads_darc and $reads_tc"
# the workload is the same, the runs are not: the main paths must agree. A
# rare path (an interrupt, a reclaim) comes in one run and not the other, so
# the paths are weighed by their calls: 90% of each side's on common paths
check "both recordings hold the workload's vfs_read calls" \
	test "$reads_darc" -ge 24 -a "$reads_tc" -ge 24
check "the call paths agree (90% of the calls on paths both have)" \
	awk -v s="$shares" -v a="$n_darc" 'BEGIN { split(s, f, " "); exit !(a > 5 && f[1] >= 0.9 && f[2] >= 0.9) }'
bios=$("$DARC" dump "$V/darc.dat" | grep -c ': submit_bio:.*bio=0x')
check "the bundle holds submit_bio kprobes with the bio pointer ($bios)" test "$bios" -gt 0
# (the user function, the system call raw_syscalls names, its graph root)
nested=$(sqlite3 "$WORK/darc.db" "SELECT count(*) FROM fnode_path
	WHERE path = 'pread64 > pread64 > __x64_sys_pread64'")
check "the system calls nest in the pread64 uprobe's calls" test "$nested" = 1
# 24 rounds of an O_DIRECT and a cached pread, and a buffered one every 16th
ups=$("$DARC" dump "$V/darc.dat" | grep -c ': pread64: ')
urets=$("$DARC" dump "$V/darc.dat" | grep -c ': pread64__return: ')
check "the bundle holds the workload's pread64 uprobes ($ups) and uretprobes ($urets)" \
	test "$ups" -ge 48 -a "$urets" = "$ups"
# raw_syscalls beside the uprobes: on 6.11+ each uretprobe returns through the
# uretprobe system call and its sys_exit says id -1; none of it is a lost event
gaps=$(sqlite3 "$WORK/darc.db" "SELECT count(*) FROM call WHERE flags & 4")
broken=$(sqlite3 "$WORK/darc.db" "SELECT count(*) FROM call c JOIN func f ON f.id = c.func_id
	WHERE f.name = 'pread64' AND c.flags & 7 != 0")
check "no call across lost events ($gaps), every pread64 uprobe call complete ($broken not)" \
	test "$gaps" = 0 -a "$broken" = 0
total=$((failed))
[ "$total" -eq 0 ] || fail "$failed checks failed (use --keep DIR to keep the files)"
say "PASS in $((SECONDS - start))s"
