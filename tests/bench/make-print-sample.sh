#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Regenerates samples/host-print-v7.dat: trace_marker texts (ftrace:print
# events) written in a tracefs instance of THIS host and saved with
# `trace-cmd extract -B`, one write(2) each (python3 os.write, so no shell
# splits a text at its newlines):
#
#   "hello\n"        the newline the kernel keeps
#   "no newline"     the kernel adds one
#   "one\ntwo\n"     a newline inside the text
#   "end\n\n"        two at its end
#   "tab\there"      a tab
#   "back\\slash"    a backslash
#   "caf\xc3\xa9\n"  UTF-8
#
# An instance is used, so the top-level buffer (and whoever uses it) is left
# alone; /proc/kallsyms is replaced for trace-cmd by the one symbol these
# events carry (tracing_mark_write) and the kernel text bounds.
# usage: make-print-sample.sh [OUT_DIR]      (default: samples/ of this checkout)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out_dir=${1:-$repo_dir/samples}
name=host-print-v7.dat
inst=darc-print-sample
[[ $(id -u) -eq 0 ]] || die "must run as root (it writes to tracefs)"
need_cmd trace-cmd python3 unshare mount
T=/sys/kernel/tracing
[[ -d $T/instances ]] || die "tracefs is missing (no $T/instances)"
[[ ! -e $T/instances/$inst ]] || die "instance $inst exists already: another run?"
work=$(mktemp -d /var/tmp/darc-sample.XXXXXX) || die "cannot create a work directory in /var/tmp"
cleanup() {
	rmdir "$T/instances/$inst" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$T/instances/$inst" || die "cannot create instance $inst"
grep -E ' [Tt] (tracing_mark_write|_stext|_etext|_text)$' /proc/kallsyms >"$work/kallsyms" ||
	die "cannot read /proc/kallsyms"
python3 - "$T/instances/$inst/trace_marker" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for text in (b"hello\n", b"no newline", b"one\ntwo\n", b"end\n\n", b"tab\there",
             b"back\\slash", "caf\u00e9\n".encode()):
    os.write(fd, text)
os.close(fd)
PY
tc_extract "$work/kallsyms" "$work/$name" "$work/extract.log" -B "$inst" --compression zstd
cp "$work/$name" "$out_dir/$name"
n=$(trace-cmd report "$out_dir/$name" 2>/dev/null | grep -c ' print: ') || true
echo "$prog: wrote $out_dir/$name ($(stat -c %s "$out_dir/$name") bytes, $n print events)"
