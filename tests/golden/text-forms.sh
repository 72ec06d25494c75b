#!/bin/bash
# The ftrace text forms people post (issue 22), each against the trace.dat
# it was printed from (samples/text/, see samples/README.md):
#
# 1. host-events.dat: tracepoints with the nop tracer on a 6.18 host (sched,
#    irq, block with the I/O priority, syscalls entry/exit lines, a
#    stacktrace trigger) as `cat trace` ("# tracer: nop"), trace_pipe (the
#    same without the header), `trace-cmd report` (with its instance
#    prefix) and `trace-cmd report -R` (raw fields: prev_state=256, no
#    "==>"); made by tests/bench/make-host-text.sh.
# 2. func.dat: the function tracer with func_stack_trace in the VM lab
#    (6.1) as `cat trace` ("# tracer: function", "func <-parent" and " =>
#    frame" lines), with sym-offset ("func+0x0/0xc0 <-parent+0x5d/0xb0
#    [mod]"), trace-cmd report ("function: func", "=> frame (addr)") and
#    -R; made by tests/vm/make-text-samples.sh --func. The same on 7.3
#    (func73*), and with func-args (func73-args.dat: "func(a=0x1) <-parent").
# 3. overrun73.dat: a 7.3 buffer of tracepoints that overran (540 of 7500
#    events kept) as `cat trace`, with the kernel's "##### CPU 0 buffer
#    started ####" line; made by make-text-samples.sh --kernel 7.3 --annot.
#
# For each: darc dump of the text holds the trace.dat's events, CPU by
# CPU, names, tasks, times to the printed us and every printed field
# (dump-vs-dat.py; stack frames by name with --pretty); darc info counts
# the same events by name (a few kept by name only, system "text"); darc
# analyze gives the same system calls (count, and time within the printed
# precision), and no call tree from the function tracer. Annotation lines
# are counted and skipped; the comparison fails on a text that lost an
# event or a value. (A line of these forms darc cannot read: text.sh.)
#
# Usage: text-forms.sh DARC
set -u
darc=${1:?usage: text-forms.sh DARC}
. "$(dirname "$0")/text-lib.sh"
cmp=$here/dump-vs-dat.py

# same DAT TEXT [SKIP...]: darc dump of TEXT holds DAT's events, times to the printed us
same() {
	local dat=$1 text=$2
	shift 2
	same_events "$dat" "$text" 1000 "$@"
}

# frames DAT TEXT: the stack traces' frames by name (--pretty)
frames() {
	local out
	"$darc" dump --pretty "$1" >"$tmp/dat.pretty" && "$darc" dump --pretty "$2" >"$tmp/text.pretty" &&
		out=$(python3 "$cmp" "$tmp/dat.pretty" "$tmp/text.pretty" 1000 stacks) &&
		ok "$(basename "$2"): stack frames by name: $out" ||
		not_ok "$(basename "$2"): stack frames: $out"
}

# counts DAT TEXT KEPT...: darc info's events by name; KEPT are read by name only
counts() {
	local dat=$1 text=$2 kept
	shift 2
	kept=$(printf '%s|' "$@")
	names "$dat" "$tmp/dat.names" && names "$text" "$tmp/got" || return
	sed -E "s/ [a-z_]+:(${kept%|})\$/ text:\\1/" "$tmp/dat.names" | sort >"$tmp/want"
	if [ -s "$tmp/want" ] && diff -q "$tmp/want" "$tmp/got" >/dev/null; then
		ok "darc info $(basename "$text"): $(wc -l <"$tmp/got") events by name, as the trace.dat's"
	else
		not_ok "darc info $(basename "$text"): $(diff "$tmp/want" "$tmp/got" | head -4 | tr '\n' ' ')"
	fi
}

# calls DB: each function's calls, and their total inclusive time
calls() {
	sqlite3 "$1" "SELECT f.name, count(*), count(c.incl_ns), coalesce(sum(c.incl_ns), 0)
		FROM call c JOIN func f ON f.id = c.func_id GROUP BY 1 ORDER BY 1"
}

# analysis DAT TEXT: the same calls, each within the printed 1 us
analysis() {
	local n
	n=$(basename "$2")
	"$darc" analyze -q -f -o "$tmp/dat.db" "$1" && "$darc" analyze -q -f -o "$tmp/text.db" "$2" ||
		{ not_ok "darc analyze $n"; return; }
	calls "$tmp/dat.db" >"$tmp/dat.calls"
	calls "$tmp/text.db" >"$tmp/text.calls"
	if join -t '|' "$tmp/dat.calls" "$tmp/text.calls" | awk -F'|' -v want="$(wc -l <"$tmp/dat.calls")" '
		{ n++; d = $4 - $7; if (d < 0) d = -d }
		$2 != $5 || $3 != $6 || d > 1000 * $3 { bad = 1 }
		END { exit bad || n != want || n != '"$(wc -l <"$tmp/text.calls")"' }'; then
		ok "darc analyze $n: the trace.dat's calls ($(tr '\n' ' ' <"$tmp/text.calls"))"
	else
		not_ok "darc analyze $n: $(paste -d ' ' "$tmp/dat.calls" "$tmp/text.calls" | head -4)"
	fi
}

# 1. the host's tracepoints
kept=(softirq_raise block_touch_buffer block_dirty_buffer block_plug block_unplug)
grep -v '^#' "$st/host-events-cat.txt" >"$tmp/host-events-pipe.txt"
for t in host-events-cat.txt host-events-pipe.txt host-events-report.txt host-events-raw.txt; do
	f=$st/$t
	[ -f "$f" ] || f=$tmp/$t
	case $t in
	*-raw.txt) same "$st/host-events.dat" "$f" ;; # every field printed, stack addresses too
	*-report.txt) same "$st/host-events.dat" "$f" caller __syscall_nr R+ ;;
	*) same "$st/host-events.dat" "$f" caller __syscall_nr ;;
	esac
	counts "$st/host-events.dat" "$f" "${kept[@]}"
	analysis "$st/host-events.dat" "$f"
done
frames "$st/host-events.dat" "$st/host-events-cat.txt"
head -1 "$st/host-events-cat.txt" | grep -qx '# tracer: nop' &&
	"$darc" info "$st/host-events-cat.txt" | grep -qx 'format:       ftrace text' &&
	ok "'# tracer: nop' is an ftrace text" || not_ok "'# tracer: nop' is not taken for text"

# 2. the function tracer: functions P (func: 6.1, func73: 7.3, whose stacks
#    start at "[FTRACE TRAMPOLINE]")
functions() {
	local p=$1 t f
	grep -v '^#' "$st/$p-cat.txt" >"$tmp/$p-pipe.txt"
	for t in $p-cat.txt $p-offset.txt $p-pipe.txt $p-report.txt $p-raw.txt; do
		f=$st/$t
		[ -f "$f" ] || f=$tmp/$t
		case $t in
		*-raw.txt) same "$st/$p.dat" "$f" ;;
		*-report.txt) same "$st/$p.dat" "$f" caller parent_ip R+ ;;
		*) same "$st/$p.dat" "$f" caller ;;
		esac
		[ "$t" = $p-raw.txt ] || frames "$st/$p.dat" "$f"
		counts "$st/$p.dat" "$f"
		"$darc" analyze -q -f -o "$tmp/f.db" "$f" 2>"$tmp/err" &&
			[ "$(sqlite3 "$tmp/f.db" 'SELECT count(*) FROM call')" = 0 ] &&
			ok "darc analyze $t: no call tree (the function tracer has no exits)" ||
			not_ok "darc analyze $t: $(cat "$tmp/err")"
	done
}
functions func
functions func73
# func-args (7.3): "vfs_read(file=0x..., buf=0x..., count=0x1000, pos=0x...)
# <-parent"; the trace.dat's function events hold the registers in args[],
# which trace-cmd 3.1.6 prints as "args=ARRAY[]" (libtraceevent cannot size
# it), as darc dump does: the events, functions and parents are compared
grep -q '^ *[^ #].*: vfs_read(file=0x[0-9a-f]*, .*) <-__x64_sys_pread64$' "$st/func73-args.txt" &&
	ok "func73-args.txt prints the arguments" || not_ok "func73-args.txt: no 'vfs_read(file=...)' line"
same "$st/func73-args.dat" "$st/func73-args.txt"
counts "$st/func73-args.dat" "$st/func73-args.txt"
grep -q '^ => \[FTRACE TRAMPOLINE\]$' "$st/func73-cat.txt" &&
	ok "func73-cat.txt has 7.3's '[FTRACE TRAMPOLINE]' frames" ||
	not_ok "func73-cat.txt: no '[FTRACE TRAMPOLINE]' frame"

# refused FILE WHAT: darc dump FILE fails with one line naming FILE, the
# first event line (the first not starting with '#') and WHAT
refused() {
	local n out rc
	n=$(grep -vn '^#' "$1" | head -1 | cut -d: -f1)
	out=$("$darc" dump "$1" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
		grep -q "^darc: '$1': line $n: .*$2" <<<"$out" &&
		ok "$(basename "$1"): refused at line $n: ${out##*: }" ||
		not_ok "$(basename "$1"): exit $rc, '$out' (line $n expected)"
}
# latency-format lines (the latency tracers' form, not in Debian's kernels:
# CONFIG_IRQSOFF_TRACER, _PREEMPT_TRACER, _SCHED_TRACER unset), times in us
# since the buffer was reset: one clear error at the first
refused "$st/func73-lat.txt" "latency-format"

# 3. annotations: counted, skipped, nothing else changed.
#    overrun73: `cat trace` of a 7.3 buffer that overran on CPU 0 (16 KiB,
#    7500 events written, 540 kept) and trace-cmd extract of the same
#    buffer: the kernel's own "##### CPU 0 buffer started ####" line. Both
#    hold what the buffer kept after the overrun, the same 540 events (the
#    text's header says 540/7500; the trace.dat its overrun on CPU 0).
o=$st/overrun73
kept=$(sed -n 's|^# entries-in-buffer/entries-written: \([0-9]*\)/7500 .*|\1|p' "$o.txt")
"$darc" info "$o.dat" >"$tmp/o.info"
grep -q '^  cpu 0 .* overrun [1-9][0-9]* at record time' "$tmp/o.info" &&
	grep -qx "events: *$kept" "$tmp/o.info" &&
	ok "overrun73.dat: CPU 0 overran; $kept events, as overrun73.txt's header says" ||
	not_ok "overrun73.dat: no overrun on CPU 0, or not the text's $kept events"
a=$(grep -c '^##### CPU [0-9]* buffer started ####$' "$o.txt")
[ "$a" -ge 1 ] && "$darc" info "$o.txt" | grep -q "^skipped: *$a annotation lines" &&
	ok "overrun73.txt: its $a '##### CPU N buffer started ####' line(s) counted, skipped" ||
	not_ok "overrun73.txt: $a buffer-started lines: $("$darc" info "$o.txt" 2>&1 | grep -i 'skipped\|darc:')"
same "$o.dat" "$o.txt" caller __syscall_nr
counts "$o.dat" "$o.txt" softirq_raise
analysis "$o.dat" "$o.txt"
# trace-cmd 3.1.6 prints no "CPU N is empty" (older ones did): inserted
{
	head -1 "$st/host-events-report.txt"
	echo "CPU 3 is empty"
	echo "##### CPU 1 buffer started ####"
	tail -n +2 "$st/host-events-report.txt"
} >"$tmp/annotated.txt"
"$darc" dump "$st/host-events-report.txt" >"$tmp/plain.dump"
"$darc" dump "$tmp/annotated.txt" >"$tmp/annotated.dump" &&
	cmp -s "$tmp/plain.dump" "$tmp/annotated.dump" &&
	"$darc" info "$tmp/annotated.txt" | grep -q '^skipped: *2 annotation lines' &&
	ok "'CPU N is empty' and '##### CPU N buffer started' lines: counted, skipped" ||
	not_ok "annotation lines: $("$darc" info "$tmp/annotated.txt" 2>&1 | grep -i 'skipped\|darc:')"

# trace_pipe read from within a stack trace: its first frames are counted, skipped
grep -v '^#' "$st/func-cat.txt" >"$tmp/pipe.txt"
first=$(grep -n '^ => ' "$tmp/pipe.txt" | head -1 | cut -d: -f1) # the first stack's first frame
tail -n +$((first + 1)) "$tmp/pipe.txt" >"$tmp/mid.txt"
k=$(awk '!/^ => / { exit } { n++ } END { print n }' "$tmp/mid.txt")
all=$("$darc" info "$st/func.dat" | awk '/^events:/ { print $2 }')
want=$((all - (first - 1))) # each line before the first frame is an event
got=$("$darc" info "$tmp/mid.txt" 2>"$tmp/err" | awk '/^events:/ { print $2 }')
[ "$got" = "$want" ] &&
	"$darc" info "$tmp/mid.txt" | grep -q "^skipped:.* $k stack frames before the first event" &&
	ok "a trace_pipe from within a stack trace: $got events, its first $k frames skipped" ||
	not_ok "a trace_pipe from within a stack trace: $got events for $want; $(cat "$tmp/err")"

# 4. the comparison can fail: a lost event, a changed value
awk '/block_rq_issue/ && !done { done = 1; next } { print }' "$st/host-events-cat.txt" >"$tmp/lost.txt"
"$darc" dump "$st/host-events.dat" >"$tmp/dat.dump"
"$darc" dump "$tmp/lost.txt" >"$tmp/lost.dump"
python3 "$cmp" "$tmp/dat.dump" "$tmp/lost.dump" 1000 caller __syscall_nr >/dev/null &&
	not_ok "a text without one block_rq_issue passes" || ok "a text that lost an event fails"
sed -E '0,/block_rq_complete: 254,0 ([A-Z]+) \(\) [0-9]+/s//block_rq_complete: 254,0 \1 () 12345/' \
	"$st/host-events-cat.txt" >"$tmp/changed.txt"
"$darc" dump "$tmp/changed.txt" >"$tmp/changed.dump"
! cmp -s "$st/host-events-cat.txt" "$tmp/changed.txt" &&
	! python3 "$cmp" "$tmp/dat.dump" "$tmp/changed.dump" 1000 caller __syscall_nr >/dev/null &&
	ok "a text with one sector changed fails" || not_ok "a changed sector passes"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
