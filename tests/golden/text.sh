#!/bin/bash
# The ftrace text reader (issue 14, part 2), on committed samples:
#
# 1. samples/text/: ONE function_graph trace of the VM lab saved as trace.dat
#    and as text five ways (tests/vm/make-text-samples.sh). darc analyze of
#    each text must give the trace.dat's analysis to the printed precision
#    (text-vs-dat.py: ftree paths and calls, incl_ns, incl histograms bucket
#    by bucket; with printed times also excl/irq/softirq/preempt/blocked),
#    and the values it prints (return values, arguments, return addresses:
#    values-vs-dat.py) as the trace.dat's. The same on 7.3's
#    function_graph options (fg73*: funcgraph-args, -tail and -proc); with
#    duration off refused at its first call; with sleep-time off each
#    function's time is the sum of the durations trace-cmd prints.
# 2. The same on `trace-cmd report` (-l -t, and plain) of every samples/vm-*
#    and vm73-* recording (7.3: funcgraph-args, block requests printed with
#    their I/O priority), where trace-cmd is installed (else skipped).
# 3. darc info says "format: ftrace text" and what the text lacks; darc dump
#    reads the texts; the event counts equal the trace.dat's.
# 4. Hand-made texts of every construct (tests/golden/text/*.txt) dump as
#    tests/golden/expected/text-*.dump; bad input gets "FILE: line N: ..."
#    and a non-zero exit (also in the forms of tests/golden/text-forms.sh:
#    function tracer, stack frames, -R fields, system calls), and other
#    files are not taken for text.
#
# Usage: text.sh DARC [--update]   (--update rewrites the expected dumps)
set -u
darc=${1:?usage: text.sh DARC [--update]}
update=${2:-}
. "$(dirname "$0")/text-lib.sh"

# compare BIN.db TEXT KIND: analyze TEXT, compare with BIN.db
compare() {
	local db=$1 text=$2 kind=$3 name
	name=$(basename "$text")
	if ! "$darc" analyze -q -f -o "$tmp/t.db" "$text" 2>"$tmp/err"; then
		not_ok "darc analyze $name: $(cat "$tmp/err")"
		return
	fi
	# and the values the text prints, as the trace.dat's (values-vs-dat.py)
	if out=$(python3 "$here/text-vs-dat.py" "$db" "$tmp/t.db" "$kind" &&
		python3 "$here/values-vs-dat.py" "$db" "$tmp/t.db" auto); then
		ok "$name as $kind: $out"
	else
		not_ok "$name as $kind: $out"
	fi
}

# 1. the VM lab's trace, as trace.dat and as text
"$darc" analyze -q -f -o "$tmp/dat.db" "$st/preads.dat" || not_ok "darc analyze preads.dat"
compare "$tmp/dat.db" "$st/preads-report-lt.txt" ns-flags
compare "$tmp/dat.db" "$st/preads-report.txt" us
compare "$tmp/dat.db" "$st/preads-abstime.txt" us
compare "$tmp/dat.db" "$st/preads-default.txt" none
compare "$tmp/dat.db" "$st/preads-lat.txt" none
# trace_pipe prints what trace does, without the header
grep -v '^#' "$st/preads-default.txt" >"$tmp/preads-pipe.txt"
compare "$tmp/dat.db" "$tmp/preads-pipe.txt" none

# 7.3's function_graph options (make-text-samples.sh --kernel 7.3 --fgopt):
# funcgraph-args ("f(regs=0x...) {") by default and with funcgraph-tail and
# -proc ("} /* f */", the task column), against fg73.dat
"$darc" analyze -q -f -o "$tmp/fg73.db" "$st/fg73.dat" || not_ok "darc analyze fg73.dat"
compare "$tmp/fg73.db" "$st/fg73-args.txt" none
compare "$tmp/fg73.db" "$st/fg73-tail.txt" none
# duration, cpu and overhead off, abstime on: no call's time but from the
# next line's; refused at the first call or return line (the first entry
# "f() {" has its time)
n=$(grep -nE '^ *[0-9]+\.[0-9]+ \|  +(\}|[^ /].*\);)' "$st/fg73-bare.txt" | head -1 | cut -d: -f1)
out=$("$darc" dump "$st/fg73-bare.txt" 2>&1 >/dev/null)
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
	grep -q "^darc: '$st/fg73-bare.txt': line $n: .*funcgraph-duration off" <<<"$out" &&
	ok "fg73-bare.txt refused at line $n: ${out#*line $n: }" ||
	not_ok "fg73-bare.txt: exit $rc, '$out' (line $n expected)"
# funcgraph-irqs 0 and sleep-time 0: the printed durations leave out the
# time a call slept, which the trace.dat's entry and exit times hold. So
# the text's calls are the trace.dat's, and each function's inclusive time
# is the sum of the durations trace-cmd prints from the trace.dat's
# calltime and rettime (not darc's analysis of the trace.dat: wall times).
"$darc" analyze -q -f -o "$tmp/q.db" "$st/fg73-quiet.dat" &&
	"$darc" analyze -q -f -o "$tmp/qt.db" "$st/fg73-quiet.txt" ||
	not_ok "darc analyze fg73-quiet"
fcalls() { sqlite3 "$1" "SELECT f.name, count(*) ${2:-} FROM call c JOIN func f ON f.id = c.func_id
	GROUP BY 1 ORDER BY 1"; }
fcalls "$tmp/q.db" >"$tmp/q.calls"
[ -s "$tmp/q.calls" ] && [ "$(fcalls "$tmp/qt.db")" = "$(cat "$tmp/q.calls")" ] &&
	ok "fg73-quiet.txt: the trace.dat's calls ($(wc -l <"$tmp/q.calls") functions)" ||
	not_ok "fg73-quiet.txt: calls differ from fg73-quiet.dat's"
if command -v trace-cmd >/dev/null; then
	# each task's open calls in a stack: a return closes its last entry
	trace-cmd report "$st/fg73-quiet.dat" 2>/dev/null | awk '
	/ funcgraph_(entry|exit): / {
		pid = $1; sub(/.*-/, "", pid)
		split($0, p, "|"); body = p[2]; gsub(/^ +| +$/, "", body)
		ns = 0; if (match(p[1], /[0-9.]+ us/)) ns = substr(p[1], RSTART, RLENGTH - 3) * 1000
		f = body; sub(/\(.*/, "", f)
		if (body ~ /\{$/) { open[pid, ++depth[pid]] = f; next }
		if (body ~ /^\}/) f = open[pid, depth[pid]--]
		n[f]++; sum[f] += ns
	}
	END { for (f in n) printf "%s|%d|%.0f\n", f, n[f], sum[f] }' | sort >"$tmp/q.printed"
	fcalls "$tmp/qt.db" ", sum(c.incl_ns)" >"$tmp/qt.incl"
	[ -s "$tmp/q.printed" ] && cmp -s "$tmp/q.printed" "$tmp/qt.incl" &&
		ok "fg73-quiet.txt: each function's time, the durations trace-cmd prints of fg73-quiet.dat" ||
		not_ok "fg73-quiet.txt: times differ from trace-cmd's: $(diff "$tmp/q.printed" "$tmp/qt.incl" | head -4 | tr '\n' ' ')"
else
	echo "skip: trace-cmd is not installed: fg73-quiet.txt's times unchecked"
	skip=$((skip + 1))
fi

# the comparison can fail: another trace's text is not this one
"$darc" analyze -q -f -o "$tmp/other.db" "$here/text/report-opts.txt" &&
	if python3 "$here/text-vs-dat.py" "$tmp/dat.db" "$tmp/other.db" us >/dev/null; then
		not_ok "text-vs-dat.py takes another trace for preads.dat"
	else
		ok "text-vs-dat.py tells another trace from preads.dat"
	fi

# 2. trace-cmd report of the other VM recordings
if command -v trace-cmd >/dev/null; then
	# vm73-*: 7.3's, with funcgraph-args and block requests' I/O priority
	for f in "$top"/samples/vm-*-v7.dat "$top"/samples/vm73-*-v7.dat; do
		n=$(basename "$f" .dat)
		"$darc" analyze -q -f -o "$tmp/$n.db" "$f" || { not_ok "darc analyze $n"; continue; }
		trace-cmd report -l -t "$f" >"$tmp/$n-lt.txt" 2>/dev/null
		compare "$tmp/$n.db" "$tmp/$n-lt.txt" ns-flags
		trace-cmd report "$f" >"$tmp/$n.txt" 2>/dev/null
		compare "$tmp/$n.db" "$tmp/$n.txt" us
	done
else
	echo "skip: trace-cmd is not installed: no report texts of samples/vm-*.dat"
	skip=$((skip + 1))
fi

# 3. darc info and darc dump on the texts
names "$st/preads.dat" "$tmp/want"
for t in "$st"/preads-*.txt; do
	n=$(basename "$t")
	info=$("$darc" info "$t" 2>&1)
	if grep -qx 'format:       ftrace text' <<<"$info" &&
		grep -q '^lacks:        kallsyms' <<<"$info"; then
		ok "darc info $n: format and lacks"
	else
		not_ok "darc info $n: $(head -5 <<<"$info")"
	fi
	# softirq_raise is kept by name only (system "text"); everything else as recorded
	if ! names "$t" "$tmp/got.raw"; then
		: # said
	elif sed 's/text:softirq_raise/irq:softirq_raise/' "$tmp/got.raw" | sort >"$tmp/got" &&
		[ -s "$tmp/want" ] && diff -q "$tmp/want" "$tmp/got" >/dev/null; then
		ok "$n: the trace.dat's events, by name and count"
	else
		not_ok "$n: events by name differ: $(diff "$tmp/want" "$tmp/got" | head -4 | tr '\n' ' ')"
	fi
	lines=$("$darc" dump "$t" | grep -vc '^cpus=')
	total=$("$darc" info "$t" | awk '/^events:/ { print $2 }')
	[ "$lines" = "$total" ] && ok "darc dump $n: $lines events" ||
		not_ok "darc dump $n: $lines lines for $total events"
done
grep -q '^lacks:.*absolute times' <(cd "$st" && "$darc" info preads-default.txt) &&
	ok "cat trace without funcgraph-abstime lacks absolute times" ||
	not_ok "preads-default.txt does not say it lacks absolute times"
grep -q '^lacks:.*irq context flags.*softirq taken to end at each softirq_exit' \
	<(cd "$st" && "$darc" info preads-default.txt) &&
	ok "a text without the latency flags says where its softirq time ends" ||
	not_ok "preads-default.txt does not say that its softirq time ends at softirq_exit"
grep -q '^lacks:.*irq context flags' <(cd "$st" && "$darc" info preads-lat.txt) &&
	not_ok "preads-lat.txt (latency-format) says it lacks irq flags" ||
	ok "latency-format text has the irq flags"

# 4. hand-made constructs, and bad input
for t in "$here"/text/*.txt; do
	n=$(basename "$t" .txt)
	exp=$here/expected/text-$n.dump
	act=$( (cd "$here/text" && "$darc" dump "$n.txt" && "$darc" info "$n.txt") 2>&1)
	[ "$update" = --update ] && printf '%s\n' "$act" >"$exp"
	if [ -f "$exp" ] && [ "$act" = "$(cat "$exp")" ]; then
		ok "text/$n.txt dumps as expected/text-$n.dump"
	else
		not_ok "text/$n.txt: dump differs from expected/text-$n.dump"
		diff <(printf '%s\n' "$act") "$exp" | head -10
	fi
done

# bad FILE LINE TEXT: darc dump of TEXT fails with "'FILE': line LINE: ..."
bad() {
	local line=$1
	shift
	printf '%s\n' "$@" >"$tmp/bad.txt"
	out=$("$darc" dump "$tmp/bad.txt" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
		grep -q "^darc: '$tmp/bad.txt': line $line: " <<<"$out"; then
		ok "bad input, line $line: $out"
	else
		not_ok "bad input, line $line: exit $rc, '$out'"
	fi
}
hdr='# tracer: function_graph'
bad 3 "$hdr" ' 0)   1.000 us    |  a();' ' 0)   hello world'
bad 2 "$hdr" ' 0)               |  a();'
bad 3 "$hdr" ' 0)               |  a() {' ' 0)   1.5 ms   |  }'
bad 2 "$hdr" ' 0)               |  /* not closed'
bad 3 'cpus=1' '  bash-1 [000] 1.0: funcgraph_entry:     |  a() {' '  bash-1 [000] 1.1: sched_switch: nonsense'
bad 2 'cpus=2' '  bash-1 [000] 1.000: sched_wakeup: comm=x pid=y'
bad 3 "$hdr" '  123.5 |  0)   1.000 us    |  a();' '  0)   1.000 us    |  b();'
bad 3 '# tracer: function' '  a-1 [000] ..... 1.0: <stack trace>' ' => f+0xz/0x10'
bad 2 '# tracer: nop' '  a-1 [000] ..... 1.0: sys_read(fd: 3'
# the forms of text-forms.sh's samples, a line spoilt in each
sed '30s/.*/    vm-workload-132     [000] .....     6.968914: what is this/' "$st/func-cat.txt" \
	>"$tmp/b.txt"
bad 30 "$(cat "$tmp/b.txt")"
sed '14i \ => vfs_read' "$st/func-cat.txt" >"$tmp/b.txt" # a frame after a sched_switch
bad 14 "$(cat "$tmp/b.txt")"
n=$(grep -n 'sched_switch: *prev_comm' "$st/host-events-raw.txt" | sed -n 5p | cut -d: -f1)
sed "${n}s/prev_state=[0-9]*/prev_state=x/" "$st/host-events-raw.txt" >"$tmp/b.txt" # -R
bad "$n" "$(cat "$tmp/b.txt")"
n=$(grep -n 'vfs_read(.*count=0x' "$st/func73-args.txt" | sed -n 2p | cut -d: -f1) # func-args
sed -E "${n}s/count=0x/count=0xq/" "$st/func73-args.txt" >"$tmp/b.txt"
bad "$n" "$(cat "$tmp/b.txt")"
# a system call printed with other fields than its first line
n=$(grep -n 'sys_openat(' "$st/host-events-cat.txt" | sed -n 2p | cut -d: -f1)
sed -E "${n}s/, flags: (0x)?[0-9a-f]+,/,/" "$st/host-events-cat.txt" >"$tmp/b.txt"
bad "$n" "$(cat "$tmp/b.txt")"
for f in "$top/README.md" "$top/samples/README.md" "$here/text-vs-dat.py" /bin/sh; do
	out=$("$darc" info "$f" 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && grep -q "not a trace.dat, perf.data or ftrace text file" <<<"$out" &&
		ok "$(basename "$f") is not taken for a recording" ||
		not_ok "$(basename "$f"): exit $rc, $out"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
