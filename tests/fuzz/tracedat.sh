#!/bin/bash
# The trace.dat reader under libFuzzer (suite 'fuzz'): builds fuzz-tracedat.c
# and fmt/ (libfuzzer.sh), seeds it with small copies of the trace.dat samples
# (tracedat-seeds.py: v6, v7 uncompressed, zstd and zlib, with an instance,
# with options, big-endian; pages from the start and the middle) and the
# inputs that once crashed it (tracedat-regress/), and runs it for BUDGET
# (libfuzzer.sh's fz_run: N runs from a fixed seed, or Ns seconds).
#
#   tracedat.sh SRC BUILD [BUDGET [WORK [LIBFUZZER ARGS...]]]
#
# Exit 77 when clang or libFuzzer is missing.
set -u
. "$(dirname "$0")/libfuzzer.sh"
fz_init tracedat "${1:-}" "${2:-}" "${4:-}"
if ! python3 "$here/tracedat-seeds.py" "$work/corpus" "$src"/samples/*.dat \
	"$src"/samples/text/*.dat; then
	echo "FAIL: cannot make the seeds"
	exit 1
fi
fz_run "${3:-20000}" 65536 20 "${@:5}"
