#!/bin/bash
# uftrace-matrix.sh: darc against uftrace itself, recording by recording,
# for every uftrace version a user may bring (0.13 of bookworm, 0.17 of
# trixie, 0.19 of sid) and the options that change what it writes.
#
#   tests/matrix/uftrace-matrix.sh record [VERSION...]
#	Builds samples/uftrace/matrix/mx.c with -pg and with
#	-finstrument-functions, records every cell below with uftrace VERSION
#	(0.13 0.17 0.19; all by default) into
#	samples/uftrace/matrix/vVERSION/CELL.data, and saves beside it what
#	that uftrace says of it: CELL.report (`uftrace report`), CELL.task
#	(`uftrace report --task --no-event`) and CELL.replay (`uftrace replay`),
#	or, for a cell darc refuses, CELL.refused (the words its one error line
#	must hold). The .sym files of libraries are dropped where uftrace's
#	texts stay the same without them (they weigh 100-400 KB).
#   tests/matrix/uftrace-matrix.sh check DARC
#	For every uftrace recording under samples/ (a directory with a
#	uftrace info file): darc analyze, then tests/golden/uftrace-vs-tool.py
#	against the saved texts; where the uftrace that made it can be run here
#	(this host's, or a cached one of tests/vm/fetch-tool.sh --offline), its
#	texts are made again and must be the saved ones. Prints the table
#	(version x cell: identical, refused with its message, or MISMATCH).
#
# uftrace 0.13 is Debian bookworm's (this host's /usr/bin/uftrace when it is
# that version, else fetch-tool.sh's), 0.17 trixie's, 0.19 sid's. A
# fetched uftrace records with its own libmcount, which needs its own
# glibc: the program is then linked with that release's loader
# (--dynamic-linker) and library path (DT_RPATH), so that libmcount, which
# uftrace preloads into it, finds the libraries it was built with.
# uftrace -k (kernel functions) and kernel events (-E ...@kernel) need
# function_graph, which this host's kernel does not offer: not in the
# matrix (uftrace says "kernel tracing disabled" and records without).
#
# Exit: 0 all cells as expected, 1 a mismatch, 2 usage, 77 (check) no python3.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mdir=$top/samples/uftrace/matrix
VERSIONS="0.13 0.17 0.19"

# CELL BUILD MODE EXPECT OPTIONS...: EXPECT is "same" or the words of darc's refusal
CELLS=(
	"threads-pg|pg|threads|same|"
	"threads-fi|fi|threads|same|"
	"fork|pg|fork|same|"
	"exec|pg|exec|same|"
	"fork-fi|fi|fork|same|"
	"args|pg|args|same|-A add@arg1,arg2 -R add@retval"
	"auto-args|pg|args|same|-a"
	"sdt-event|pg|sdt|same|-E mx:tick"
	"read-event|pg|sdt|same|-T tick@read=proc/statm"
	"no-event|pg|threads|same|--no-event"
	"depth|pg|threads|same|-D 3"
	"estimate-return|pg|threads|--estimate-return (-e)|-e"
)

die() { echo "uftrace-matrix.sh: $*" >&2; exit 2; }

# suite_of VERSION: the Debian release whose uftrace is VERSION
suite_of() {
	case $1 in
	0.13) echo bookworm ;; 0.17) echo trixie ;; 0.19) echo sid ;; *) return 1 ;;
	esac
}

# tool_of VERSION [--offline]: the command that runs uftrace VERSION here
tool_of() {
	local s
	if command -v uftrace >/dev/null &&
		uftrace --version 2>/dev/null | grep -q "^uftrace v$1 "; then
		command -v uftrace
		return
	fi
	s=$(suite_of "$1") || return 1
	"$top/tests/vm/fetch-tool.sh" ${2:-} uftrace "$s" 2>/dev/null
}

# texts TOOL DIR OUT: what uftrace says of DIR, into OUT.report, OUT.task, OUT.replay
texts() {
	local t=$1 d=$2 o=$3 q=(--no-pager --color=no)
	"$t" report "${q[@]}" -d "$d" >"$o.report" 2>/dev/null &&
		"$t" report "${q[@]}" --task --no-event -d "$d" >"$o.task" 2>/dev/null &&
		"$t" replay "${q[@]}" -d "$d" >"$o.replay" 2>/dev/null
}

# build TOOL TMP: mx-pg and mx-fi for TOOL, in TMP
build() {
	local tool=$1 tmp=$2 root ld="" ldflags=() f
	root=$(dirname "$tool")/root
	if [ -d "$root" ]; then # a fetched uftrace: its own glibc for its libmcount
		for f in "$root/usr/lib64/ld-linux-x86-64.so.2" "$root/lib64/ld-linux-x86-64.so.2"; do
			[ -e "$f" ] && { ld=$f; break; }
		done
		[ -n "$ld" ] || die "no loader in $root"
		ldflags=(-Wl,--dynamic-linker="$ld" -Wl,--disable-new-dtags
			-Wl,-rpath,"$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu")
	fi
	gcc -O1 -pg -pthread "${ldflags[@]}" -o "$tmp/mx-pg" "$mdir/mx.c" &&
		gcc -O1 -finstrument-functions -pthread "${ldflags[@]}" -o "$tmp/mx-fi" "$mdir/mx.c"
}

# trim DIR TOOL: drop the libraries' .sym files if uftrace's texts stay the same
trim() {
	local d=$1 tool=$2 keep=$1.keep
	texts "$tool" "$d" "$d.before" || return 1
	rm -rf "$keep" && mkdir "$keep" &&
		find "$d" -maxdepth 1 -name '*.sym' ! -name 'mx-*.sym' -exec mv {} "$keep" \;
	if ! texts "$tool" "$d" "$d.after" ||
		! cmp -s "$d.before.report" "$d.after.report" ||
		! cmp -s "$d.before.replay" "$d.after.replay" ||
		! cmp -s "$d.before.task" "$d.after.task"; then
		echo "  (library symbols kept: uftrace's texts change without them)"
		mv "$keep"/* "$d"/ 2>/dev/null
	fi
	rm -rf "$keep" "$d".before.* "$d".after.*
}

# record_version VERSION: every cell with that uftrace
record_version() {
	local v=$1 tool tmp out cell build mode expect opts libmcount=()
	tool=$(tool_of "$v") || die "no uftrace $v here (tests/vm/fetch-tool.sh uftrace $(suite_of "$v"))"
	tmp=$(mktemp -d /tmp/uftrace-matrix.XXXXXX) || exit 1
	out=$mdir/v$v
	build "$tool" "$tmp" || die "cannot build mx.c for uftrace $v"
	[ -d "$(dirname "$tool")/root" ] &&
		libmcount=(--libmcount-path="$(dirname "$tool")/root/usr/lib/x86_64-linux-gnu/uftrace")
	mkdir -p "$out"
	for c in "${CELLS[@]}"; do
		IFS='|' read -r cell build mode expect opts <<<"$c"
		echo "uftrace $v $cell: uftrace record $opts ./mx-$build $mode"
		rm -rf "$out/$cell".*
		# shellcheck disable=SC2086 # OPTIONS are words
		(cd "$tmp" && rm -rf "$cell.data" &&
			"$tool" record "${libmcount[@]}" -d "$cell.data" $opts "./mx-$build" "$mode" \
				>/dev/null 2>"$cell.err") || { cat "$tmp/$cell.err"; die "uftrace $v $cell failed"; }
		trim "$tmp/$cell.data" "$tool" || die "uftrace $v cannot read its $cell.data"
		cp -r "$tmp/$cell.data" "$out/"
		if [ "$expect" = same ]; then
			texts "$tool" "$out/$cell.data" "$out/$cell" || die "uftrace $v: no texts of $cell"
		else
			printf '%s\n' "$expect" >"$out/$cell.refused"
		fi
	done
	rm -rf "$tmp"
}

# version_of DIR: the uftrace version that wrote DIR (0.13), from its info
version_of() {
	tr -d '\0' <"$1/info" | sed -n 's/^uftrace_version:v\([0-9.]*\) .*/\1/p'
}

# check_one DARC DIR: prints the cell's result; 1 on a mismatch
check_one() {
	local darc=$1 d=$2 base=${2%.data} v tool err rc tmp=$3 res
	v=$(version_of "$d")
	"$darc" analyze -o "$tmp/x.db" "$d" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ -f "$base.refused" ]; then
		err=$(cat "$tmp/err")
		if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$(cat "$base.refused")" "$tmp/err"; then
			echo "refused: ${err#*\': }"
			return 0
		fi
		echo "MISMATCH: expected a one-line refusal with \"$(cat "$base.refused")\", got rc $rc: $err"
		return 1
	fi
	if [ $rc -ne 0 ]; then
		echo "MISMATCH: darc analyze failed: $(cat "$tmp/err")"
		return 1
	fi
	res=$(python3 "$top/tests/golden/uftrace-vs-tool.py" "$tmp/x.db" "$base.report" "$base.task" "$base.replay")
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "MISMATCH (saved texts):"
		echo "$res" | head -n 8
		return 1
	fi
	res=identical
	if tool=$(tool_of "$v" --offline) && texts "$tool" "$d" "$tmp/live"; then
		for k in report task replay; do
			cmp -s "$tmp/live.$k" "$base.$k" ||
				{ echo "MISMATCH: uftrace $v's $k today differs from $base.$k"; return 1; }
		done
		res="identical (live with uftrace $v too)"
	fi
	echo "$res"
}

tmp=
check_all() {
	local darc fail=0 d res cell
	darc=$(realpath "${1:?usage: uftrace-matrix.sh check DARC}") || exit 2
	command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
	tmp=$(mktemp -d /tmp/uftrace-matrix.XXXXXX) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	printf '%-8s %-36s %s\n' version recording result
	while IFS= read -r d; do
		[ -f "$d/info" ] && head -c 7 "$d/info" | grep -q 'Ftrace!' || continue
		cell=${d#"$top/samples/"}
		res=$(check_one "$darc" "$d" "$tmp") || fail=$((fail + 1))
		printf '%-8s %-36s %s\n' "$(version_of "$d")" "${cell%.data}" "$res"
	done < <(find "$top/samples" -type d -name '*.data' | sort)
	echo "$fail mismatch(es)"
	[ $fail -eq 0 ]
}

case ${1:-} in
record)
	shift
	[ $# -gt 0 ] || set -- $VERSIONS
	for v in "$@"; do suite_of "$v" >/dev/null || die "unknown version $v ($VERSIONS)"; done
	for v in "$@"; do record_version "$v"; done
	;;
check) check_all "${2:-}" ;;
*) die "usage: uftrace-matrix.sh record [VERSION...] | check DARC" ;;
esac
