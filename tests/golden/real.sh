#!/bin/bash
# darc explain on realistic cases, against a truth computed without darc
# (issue 18, item 8). Each samples/real-CASE-REC.dat is one workload of
# tests/vm/workload.c recorded in the VM lab (tests/vm/make-real-samples.sh)
# by trace-cmd record (REC tc), trace-cmd record -F -c (tcF: the interrupts
# that hit an idle CPU are not in it) or darc-record (darc). The truth is
# real-truth.py's, from `trace-cmd report` of the recording: where the slow
# calls of the entry point spent their time (blocked, preempted, in
# interrupts, running, per call path), who ended each sleep (task, interrupt,
# or an interrupt whose event is not in the recording) and the chain of
# waiting tasks behind it. real-check.py holds darc explain --json and its
# text to it, checks (a)-(f) (see real-check.py): the entry point first, the
# first cause's kind and path (never a wait called running), its share
# within 0.15, the waker (never one the recording does not show), the chain,
# the text; and (k) the truth itself against what the workload knows. The committed truth, tests/golden/expected/real/NAME.truth.json,
# must be what real-truth.py computes now (a check of the truth itself).
#
# Known failures: tests/golden/expected/real-xfail.txt lists the checks that
# fail on today's darc, one 'SAMPLE LETTER why' a line. They are printed as
# XFAIL and do not fail the test; a failure not listed fails it, and so does
# a listed one that passes (XPASS: take it off the list). DARC_REAL_STRICT=1
# fails on every failure.
#
# The samples and their truth files are made by tests/vm/make-real-samples.sh.
# Usage: real.sh DARC. Exit 0 pass, 1 fail, 77 without trace-cmd (the truth
# needs trace-cmd report).
set -u
darc=$(realpath "${1:?usage: real.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../../samples
kept=$here/expected/real
xfail=$here/expected/real-xfail.txt
command -v trace-cmd >/dev/null || { echo "skip: trace-cmd not installed"; exit 77; }
tmp=$(mktemp -d /tmp/darc-real.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# CASE ENTRY WHERE WAKER: the cases (tests/vm/guest-real.sh), their entry
# points, and what the workload knows: where its calls sleep (its lock, its
# file's wait) and who ends the sleeps (a regular expression on the truth's
# waker), which the truth must show (check k)
cases="jsync __x64_sys_fdatasync jbd2_log_wait_commit ^jbd2/
mmapfault handle_mm_fault filemap_read_folio ^irq|interrupt
flock __x64_sys_flock locks_lock_inode_wait ^vm-workload$
dirty __x64_sys_write balance_dirty_pages TIMER|interrupt
chain3 __x64_sys_read eventfd_read ^vm-workload$"

# one recording: darc explain, the truth over darc's buckets, the checks
one() {
	local name=$1 entry=$2 where=$3 waker=$4 followed=$5 dir=$tmp/$1 lo hi
	mkdir "$dir" && cp "$samples/$name.dat" "$dir/" || return 1
	if ! "$darc" explain "$dir/$name.dat" --json >"$dir/explain.json" 2>"$dir/err"; then
		echo "FAIL $name: darc explain --json exits non-zero: $(head -n 1 "$dir/err")"
		echo "   (a) no answer"
		return 1
	fi
	"$darc" explain "$dir/$name.dat" >"$dir/explain.txt" 2>>"$dir/err"
	read -r lo hi < <(python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1])).get("subjects", []) if x.get("func") == sys.argv[2]]
sl = s[0].get("slow") or {} if s else {}
print(sl.get("lo", 0), sl.get("hi", 0))' "$dir/explain.json" "$entry")
	python3 "$here/real-truth.py" "$dir/$name.dat" "$entry" --followed "$followed" \
		--range "${lo:-0}" "${hi:-0}" >"$dir/truth.json" || return 1
	python3 "$here/real-check.py" "$name" "$entry" "$where" "$waker" "$dir/truth.json" \
		"$dir/explain.json" \
		"$dir/explain.txt" "$kept/$name.truth.json"
}

: >"$tmp/out"
while read -r c entry where waker; do
	for rec in tc tcF darc; do
		name=real-$c-$rec
		if [ ! -f "$samples/$name.dat" ]; then
			printf 'FAIL %s: no sample\n   (x) no sample\n' "$name" | tee -a "$tmp/out"
			continue
		fi
		followed=vm-workload
		[ $rec != tc ] || followed=all
		one "$name" "$entry" "$where" "$waker" "$followed" | tee -a "$tmp/out"
	done
done <<<"$cases"

# the failures against the list of known ones
fails=$(awk '$1 == "ok" || $1 == "FAIL" { s = $2; sub(/:$/, "", s); next }
	$1 ~ /^\([a-z]+\)$/ { l = $1; gsub(/[()]/, "", l); print s, l }' "$tmp/out" | sort -u)
known=$(grep -v '^#' "$xfail" 2>/dev/null | awk 'NF { print $1, $2 }' | sort -u)
new=$(comm -23 <(echo "$fails") <(echo "$known") | grep .)
gone=$(comm -13 <(echo "$fails") <(echo "$known") | grep .)
echo "real: $(echo "$fails" | grep -c .) failed checks, $(echo "$known" | grep -c .) known" \
	"(expected/real-xfail.txt):"
comm -12 <(echo "$fails") <(echo "$known") | while read -r s l; do
	echo "XFAIL $s ($l): $(awk -v s="$s" -v l="$l" '$1 == s && $2 == l { $1 = $2 = ""; print substr($0, 3); exit }' "$xfail")"
done
rc=0
if [ -n "$new" ]; then
	echo "$new" | sed 's/^/FAIL, not a known failure: /'
	rc=1
fi
if [ -n "$gone" ]; then
	echo "$gone" | sed 's/^/XPASS, passes now (take it off real-xfail.txt): /'
	rc=1
fi
if [ "${DARC_REAL_STRICT:-0}" = 1 ] && [ -n "$fails" ]; then
	rc=1
fi
exit $rc
