#!/bin/bash
# The uftrace.data reader under libFuzzer (suite 'fuzz'): builds
# fuzz-uftrace.c and fmt/ (libfuzzer.sh), seeds it with the uftrace samples
# as archives of their files, cut small (uftrace-seeds.py), and the inputs
# that once crashed it (uftrace-regress/), and runs it for BUDGET
# (libfuzzer.sh's fz_run: N runs from a fixed seed, or Ns seconds).
#
#   uftrace.sh SRC BUILD [BUDGET [WORK [LIBFUZZER ARGS...]]]
#
# Exit 77 when clang or libFuzzer is missing.
set -u
. "$(dirname "$0")/libfuzzer.sh"
fz_init uftrace "${1:-}" "${2:-}" "${4:-}"
# each run's directory in memory where there is a tmpfs, removed with $work
dirs=$work/dirs
if [ -w /dev/shm ]; then
	dirs=$(mktemp -d /dev/shm/fuzz-uftrace.XXXXXX) || exit 1
	fz_tmp+=("$dirs")
fi
mkdir -p "$dirs" && export FUZZ_UFTRACE_DIR=$dirs || exit 1
if ! python3 "$here/uftrace-seeds.py" "$work/corpus" $(find "$src/samples" -name '*.data' -type d | sort) >/dev/null; then
	echo "FAIL: cannot make the seeds"
	exit 1
fi
fz_run "${3:-20000}" 65536 20 "${@:5}"
