#!/bin/bash
# function_graph with the options of current kernels (issue 20): the return
# value (funcgraph-retval, -retval-hex), the arguments (funcgraph-args) and
# the return address (funcgraph-retaddr), in trace.dat and in text.
#
# 1. fgopt-dat (golden/fgopt-dat.c) writes one traced openat() as trace.dat
#    in each layout of those events, with what darc must store of each call
#    (NAME.want): darc dump must equal trace-cmd report -R on each
#    (cmp-report.sh), darc analyze must store those values (call.retval,
#    table call_value), and view call_error must name the error codes.
# 2. Texts of the same events: what the kernel prints (text/fgopt-kernel.txt:
#    the three options; text/fgopt-hex.txt: funcgraph-retval-hex with
#    funcgraph-proc and -abstime), what a trace-cmd that knows the options
#    prints (text/fgopt-report.txt), and what the installed trace-cmd prints
#    of each file: the same calls (text-vs-dat.py) and the values each text
#    prints (values-vs-dat.py).
# Usage: fgopt.sh DARC FGOPT_DAT
set -u
darc=$(realpath "${1:?usage: fgopt.sh DARC FGOPT_DAT}") || exit 1
gen=$(realpath "${2:?usage: fgopt.sh DARC FGOPT_DAT}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0 skip=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
not_ok() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }

"$gen" "$tmp" || { echo "FAIL: fgopt-dat"; exit 1; }
values() {
	sqlite3 -separator '|' -nullvalue '' "$1" "SELECT f.name, c.retval, v.args, v.retaddr
		FROM call c JOIN func f ON f.id = c.func_id
		LEFT JOIN call_value v ON v.id = c.id ORDER BY c.id"
}

# 1. the trace.dat files
for f in "$tmp"/*.dat; do
	n=$(basename "$f" .dat)
	out=$("$here/cmp-report.sh" "$darc" "$f")
	rc=$?
	echo "$out"
	case $rc in 0) pass=$((pass + 1)) ;; 77) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
	if ! "$darc" analyze -q -f -o "$tmp/$n.db" "$f" 2>"$tmp/err"; then
		not_ok "darc analyze $n.dat: $(cat "$tmp/err")"
		continue
	fi
	if diff <(values "$tmp/$n.db") "$tmp/$n.want" >"$tmp/diff"; then
		ok "$n.dat: every call's values as recorded ($(grep -c . "$tmp/$n.want") calls)"
	else
		not_ok "$n.dat: the stored values differ from the recorded ones:"
		head -6 "$tmp/diff"
	fi
done
# the retval recordings fail with -EACCES: the system call and the kernel
# functions, also may_open's int -13 (a 32-bit register)
want="openat|syscall|-EACCES __x64_sys_openat|kernel|-EACCES do_sys_openat2|kernel|-EACCES do_filp_open|kernel|-EACCES path_openat|kernel|-EACCES may_open|kernel|-EACCES"
got=$(sqlite3 "$tmp/fgopt-retval.db" "SELECT func, kind, error FROM call_error ORDER BY id" | tr '\n' ' ')
[ "$got" = "$want " ] && ok "call_error names the error codes" ||
	not_ok "call_error: '$got', want '$want'"

# 2. the texts: TEXT KIND WHAT DAT: TEXT has the calls of DAT.dat, printed
#    as KIND says (none, us, ns-flags: text-vs-dat.py), and the values WHAT
#    says it prints (values-vs-dat.py)
text() {
	local out=
	"$darc" analyze -q -f -o "$tmp/t.db" "$1" 2>"$tmp/err" &&
		out=$(python3 "$here/text-vs-dat.py" "$tmp/$4.db" "$tmp/t.db" "$2" &&
			python3 "$here/values-vs-dat.py" "$tmp/$4.db" "$tmp/t.db" "$3") ||
		{ not_ok "$(basename "$1") against $4.dat: $(cat "$tmp/err") $out"; return; }
	ok "$(basename "$1"): the calls and $3 of $4.dat: $out"
}
text "$here/text/fgopt-kernel.txt" none retval,args,retaddr fgopt-all
text "$here/text/fgopt-hex.txt" us retval fgopt-all
text "$here/text/fgopt-report.txt" us retval,args,retfunc fgopt-all
if command -v trace-cmd >/dev/null; then
	# trace-cmd 3.1 prints the system call's return, and fgraph_retaddr_entry
	# in its print format ("--> func (2) <- caller"), nothing else of the options
	for d in "fgopt-retval sysret" "fgopt-retaddr retfunc" "fgopt-args -" "fgopt-all retfunc"; do
		set -- $d
		trace-cmd report -t "$tmp/$1.dat" >"$tmp/$1-report.txt" 2>/dev/null
		text "$tmp/$1-report.txt" ns-flags "$2" "$1"
	done
else
	echo "skip: trace-cmd is not installed: no report texts"
	skip=$((skip + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
