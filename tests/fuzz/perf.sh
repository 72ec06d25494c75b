#!/bin/bash
# The perf.data reader under libFuzzer (suite 'fuzz'): builds fuzz-perf.c and
# fmt/ (libfuzzer.sh), seeds it with the perf samples cut small by
# perf-seeds.py (file and pipe mode) and the inputs that once crashed it
# (perf-regress/), and runs it for BUDGET (libfuzzer.sh's fz_run: N runs from a fixed seed, or Ns seconds).
#
#   perf.sh SRC BUILD [BUDGET [WORK [LIBFUZZER ARGS...]]]
#
# Exit 77 when clang or libFuzzer is missing.
set -u
. "$(dirname "$0")/libfuzzer.sh"
fz_init perf "${1:-}" "${2:-}" "${4:-}"
if ! python3 "$here/perf-seeds.py" "$work/corpus" "$src"/samples/*.perf.data; then
	echo "FAIL: cannot make the seeds"
	exit 1
fi
fz_run "${3:-20000}" 32768 20 "${@:5}"
