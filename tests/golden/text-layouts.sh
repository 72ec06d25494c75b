#!/bin/bash
# The ftrace text layouts of issue 17 that darc refused, each against the
# trace.dat it was printed from (samples/text/, see samples/README.md):
#
# 1. trace-cmd report -R of function_graph traces: "funcgraph_entry:
#    func=NAME depth=N" and "funcgraph_exit: func=NAME depth=N overrun=0
#    calltime=HEX rettime=HEX" (3.1.6), with "func=NAME (0xADDR)" and the
#    flags column "[001]-0x2d" (3.3.1, 3.4). Stored copies of fg.dat (6.1)
#    and fg73.dat (7.3, funcgraph-args: " args=ARRAY[]"), and, where
#    tests/vm/fetch-tool.sh can run trixie's 3.3.1 and sid's 3.4 here,
#    each version's -R and -R -t of samples/vm-odirect-v6.dat (kprobes,
#    block) and vm73-preads-v7.dat made now. darc analyze of each gives the
#    trace.dat's calls (text-vs-dat.py: paths, calls, incl time bucket by
#    bucket; probes, bios), darc dump its events (dump-vs-dat.py: names,
#    tasks, flags where printed, every field, calltime and rettime).
# 2. the TGID column (record-tgid): "sh-131 (    131) [000]", 6.1 and 7.3.
# 3. system call events as the kernels print them: 6.1's bare hex ("fd: b,
#    count: 1000"), 7.3's openat ("dfd: 4294967196, filename: 198154880
#    \"/dev/null\", flags: O_WRONLY|O_CREAT|O_TRUNC, mode: 0666"), with
#    clone, ioctl, wait4, close, pread64; and trace-cmd report and -R of the
#    same (7.3's "flags=577 mode=666 __filename_val=/dev/null"); probes on
#    system calls (sys*probe*): eprobes ("openat_e: (syscalls.sys_enter_openat)
#    dfd=0xffffff9c path=\"/x\" flags=0x0"), and on 7.3 fprobes ("pread_x:
#    (do_syscall_64+0xc4/0x560 <- __x64_sys_pread64) ret=4096") and kprobes
#    ("pread_k: (__x64_sys_pread64+0x4/0xc0) regs=0x...").
# 4. a buffer that overran: "# entries-in-buffer/entries-written: 868/7673"
#    (6.1) and "540/7500" (7.3) are lost events as the trace.dat's (CPU,
#    count, marks; darc analyze says "lost N events" and the recording's
#    lost_events); trace-cmd report's "CPU:0 [6805 EVENTS DROPPED]" too.
# 5. what is still not read is refused in one line naming the file, the
#    line and the form.
# (funcgraph-retval's BTF "ret=true"/"ret=false": tests/golden/text/
# fgopt-btf.txt in text.sh; no kernel here prints it.)
#
# Usage: text-layouts.sh DARC
set -u
darc=${1:?usage: text-layouts.sh DARC}
. "$(dirname "$0")/text-lib.sh"
skipped() { echo "skip: $*"; skip=$((skip + 1)); }

# calls DAT TEXT KIND: darc analyze of TEXT gives DAT's (text-vs-dat.py KIND)
calls() {
	local n out
	n=$(basename "$2")
	"$darc" analyze -q -f -o "$tmp/dat.db" "$1" || { not_ok "darc analyze $(basename "$1")"; return; }
	if ! "$darc" analyze -q -f -o "$tmp/text.db" "$2" 2>"$tmp/err"; then
		not_ok "darc analyze $n: $(cat "$tmp/err")"
		return
	fi
	out=$(python3 "$here/text-vs-dat.py" "$tmp/dat.db" "$tmp/text.db" "$3" &&
		python3 "$here/values-vs-dat.py" "$tmp/dat.db" "$tmp/text.db" auto) &&
		ok "$n: the calls of $(basename "$1"): $(head -1 <<<"$out" | cut -d: -f2-3)" ||
		not_ok "$n against $(basename "$1"): $out"
}

# raw DAT TEXT VERSION TIMES: -R's layout of trace-cmd VERSION (TIMES: ns or us) read as DAT
raw() {
	local dat=$1 text=$2 v=$3 times=$4 n form
	n=$(basename "$text")
	# the layout is the one claimed: 3.3 on print the address and the flags
	case $v in
	3.1.6) form='\[[0-9]{3}\] +[0-9.]+: funcgraph_exit: +func=[^ (]+ depth=' ;;
	*) form='\[[0-9]{3}\]-0x[0-9a-f]+ +[0-9.]+: funcgraph_exit: +func=[^ ]+ \(0x[0-9a-f]+\) depth=' ;;
	esac
	[ "$times" = ns ] && form=${form/'[0-9.]+:'/'[0-9]+\.[0-9]{9}:'}
	grep -qE "$form.* calltime=[0-9a-f]+ rettime=[0-9a-f]+$" "$text" ||
		{ not_ok "$n: not trace-cmd $v's -R layout"; return; }
	calls "$dat" "$text" us
	# probes: the text's made-up addresses (the analysis compares their functions)
	same_events "$dat" "$text" $([ "$times" = ns ] && echo 1 || echo 1000) __probe_ip __probe_func \
		__probe_ret_ip
}

# 1. report -R of function_graph
raw "$st/fg.dat" "$st/fg-raw316.txt" 3.1.6 us
raw "$st/fg.dat" "$st/fg-raw34.txt" 3.4 ns
raw "$st/fg73.dat" "$st/fg73-raw316.txt" 3.1.6 ns
raw "$st/fg73.dat" "$st/fg73-raw331.txt" 3.3.1 us
raw "$st/fg73.dat" "$st/fg73-raw34.txt" 3.4 ns
# and made now by each version, where it runs here
tools=()
command -v trace-cmd >/dev/null && tools+=("3.1.6=$(command -v trace-cmd)")
for s in trixie=3.3.1 sid=3.4; do
	if t=$("$top/tests/vm/fetch-tool.sh" trace-cmd "${s%=*}" 2>"$tmp/err"); then
		tools+=("${s#*=}=$t")
	else
		skipped "trace-cmd ${s#*=} (${s%=*}) cannot be had here: $(tail -1 "$tmp/err")"
	fi
done
for tv in "${tools[@]}"; do
	v=${tv%%=*} tc=${tv#*=}
	"$tc" --version 2>&1 | grep -q "version $v" || { not_ok "$tc is not trace-cmd $v"; continue; }
	for d in vm-odirect-v6 vm73-preads-v7; do
		"$tc" report -R "$top/samples/$d.dat" >"$tmp/$d-R-$v.txt" 2>/dev/null
		"$tc" report -R -t "$top/samples/$d.dat" >"$tmp/$d-Rt-$v.txt" 2>/dev/null
		raw "$top/samples/$d.dat" "$tmp/$d-R-$v.txt" "$v" us
		raw "$top/samples/$d.dat" "$tmp/$d-Rt-$v.txt" "$v" ns
	done
done

# 2. the TGID column, and 3. system call events: 6.1 (sys) and 7.3 (sys73)
for k in "" 73; do
	d=$st/sys$k.dat
	grep -qE '^ +sh-[0-9]+ +\( +[0-9]+\) \[[0-9]{3}\] ' "$st/sys$k-tgid.txt" &&
		grep -qE '^# +TASK-PID +TGID +CPU#' "$st/sys$k-tgid.txt" ||
		not_ok "sys$k-tgid.txt has no TGID column"
	same_events "$d" "$st/sys$k-tgid.txt" 1000 __syscall_nr
	same_events "$d" "$st/sys$k-cat.txt" 1000 __syscall_nr
	if command -v trace-cmd >/dev/null; then
		trace-cmd report "$d" >"$tmp/sys$k-report.txt" 2>/dev/null
		trace-cmd report -R "$d" >"$tmp/sys$k-raw.txt" 2>/dev/null
		same_events "$d" "$tmp/sys$k-report.txt" 1000 __syscall_nr
		same_events "$d" "$tmp/sys$k-raw.txt" 1000
	fi
	# probes (made-up addresses: the functions are compared by the analysis)
	same_events "$st/sys${k}probe.dat" "$st/sys${k}probe-cat.txt" 1000 __probe_ip __probe_func \
		__probe_ret_ip
	calls "$st/sys${k}probe.dat" "$st/sys${k}probe-cat.txt" us
done
grep -qE '^ +vm-workload-[0-9]+ +\[[0-9]{3}\] [^ ]+ +[0-9.]+: openat_e: \(syscalls.sys_enter_openat\) dfd=0x[0-9a-f]+ path="[^"]*" flags=0x' \
	"$st/sysprobe-cat.txt" &&
	grep -qE ': pread_x: \(do_syscall_64\+0x[0-9a-f]+/0x[0-9a-f]+ <- __x64_sys_pread64\) ret=' \
		"$st/sys73probe-cat.txt" &&
	grep -qE ': pread_k: \(__x64_sys_pread64\+0x[0-9a-f]+/0x[0-9a-f]+\) regs=0x' "$st/sys73probe-cat.txt" &&
	ok "sysprobe-cat.txt has 6.1's eprobes, sys73probe-cat.txt 7.3's fprobes and kprobes" ||
	not_ok "sysprobe-cat.txt or sys73probe-cat.txt is not of the form described"
grep -q "^ *sh-[0-9]* *\[[0-9]*\] [.a-zA-Z0-9]* *[0-9.]*: sys_close(fd: b)$" "$st/sys-cat.txt" &&
	grep -q 'sys_openat(dfd: 4294967196, filename: [0-9]* "/dev/null", flags: O_WRONLY|O_CREAT|O_TRUNC, mode: 0666)' "$st/sys73-cat.txt" &&
	ok "sys-cat.txt prints 6.1's bare hex, sys73-cat.txt 7.3's openat" ||
	not_ok "sys-cat.txt or sys73-cat.txt is not of the form described"

# 4. a buffer that overran: the header's overwritten entries are lost events
# lost FILE: darc info's per-CPU lines "cpu N EVENTS events, lost L in M marks"
lost() { "$darc" info "$1" | sed -n 's/^  \(cpu .* marks\).*/\1/p'; }
for o in overrun overrun73; do
	lost "$st/$o.dat" >"$tmp/want"
	lost "$st/$o.txt" >"$tmp/got"
	grep -q 'lost [1-9]' "$tmp/want" && cmp -s "$tmp/want" "$tmp/got" &&
		ok "$o.txt: $(grep 'lost [1-9]' "$tmp/got"), as $o.dat" ||
		not_ok "$o.txt: lost events $(tr '\n' ' ' <"$tmp/got"), $o.dat's $(tr '\n' ' ' <"$tmp/want")"
	n=$(sed -n 's|^# entries-in-buffer/entries-written: \([0-9]*\)/\([0-9]*\) .*|\2 - \1|p' "$st/$o.txt")
	"$darc" analyze -f -o "$tmp/o.db" "$st/$o.txt" >"$tmp/o.out" 2>&1
	grep -q "^lost $((n)) events: cpu" "$tmp/o.out" &&
		[ "$(sqlite3 "$tmp/o.db" 'SELECT lost_events FROM recording')" = $((n)) ] &&
		ok "darc analyze $o.txt: lost $((n)) events (written $n), in the database too" ||
		not_ok "darc analyze $o.txt: $(grep -i lost "$tmp/o.out") (want $((n)))"
	same_events "$st/$o.dat" "$st/$o.txt" 1000 caller __syscall_nr
	if command -v trace-cmd >/dev/null; then
		trace-cmd report "$st/$o.dat" >"$tmp/$o-report.txt" 2>/dev/null
		grep -q '^CPU:[0-9]* \[[0-9]* EVENTS DROPPED\]$' "$tmp/$o-report.txt" &&
			lost "$tmp/$o-report.txt" >"$tmp/got" && cmp -s "$tmp/want" "$tmp/got" &&
			ok "trace-cmd report of $o.dat: its 'EVENTS DROPPED' line lost as the trace.dat's" ||
			not_ok "trace-cmd report of $o.dat: lost $(tr '\n' ' ' <"$tmp/got")"
	fi
done

# 5. still not read: one line, the file, the line, the form
# bad LINE WHAT TEXT...: darc dump of the lines TEXT fails at LINE, saying WHAT
bad() {
	local line=$1 what=$2 out rc
	shift 2
	printf '%s\n' "$@" >"$tmp/bad.txt"
	out=$("$darc" dump "$tmp/bad.txt" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
		grep -q "^darc: '$tmp/bad.txt': line $line: .*$what" <<<"$out" &&
		ok "refused, line $line: ${out#*: line }" || not_ok "line $line: exit $rc, '$out'"
}
r='     vm-workload-161   [000]    66.883778975:'
e="$r funcgraph_entry:       func=f depth=0"
bad 3 'funcgraph_entry: fields after depth other than "args=ARRAY\[\]"' cpus=1 "$e" \
	"$r funcgraph_entry:       func=g depth=1 args=ARRAY[01, 02]"
bad 3 'funcgraph_exit: "overrun=N calltime=HEX rettime=HEX" expected' cpus=1 "$e" \
	"$r funcgraph_exit:        func=f depth=0 overrun=0 calltime=10"
bad 3 "fgraph_retaddr_entry's raw fields (-R): not supported" cpus=1 "$e" \
	"$r fgraph_retaddr_entry:  func=g depth=1 retaddr=0xffffffff8a653d60"
bad 3 'bad retval' cpus=1 "$e" \
	"$r funcgraph_exit:        func=f retval=-1 depth=0 overrun=0 calltime=1 rettime=2"
bad 3 'bad TGID column' '# tracer: nop' \
	'              sh-131     (    131) [000] ...1.    97.734545: sys_close(fd: b)' \
	'              sh-131     (  x  ) [000] ...1.    97.734933: sys_close -> 0x0'
bad 2 "cannot read openat's fields" '# tracer: nop' \
	'  sh-1 [000] ..... 1.0: sys_openat(dfd: 4294967196, filename: 1 "/x", flags: O_RDONLY|X_FOO)'

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
