#!/bin/bash
# The fuzz suite: damaged copies of every sample through the reader built with
# ASan + UBSan (see mutate.c). Usage: run.sh MUTATE [CUTS FLIPS]
set -u
mutate=${1:?usage: run.sh MUTATE [CUTS FLIPS]}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$mutate" ] || { echo "skip: $mutate not built (no sanitizer support)"; exit 77; }
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the format samples (the realistic cases, real-*, are of the same formats)
exec "$mutate" -c "${2:-24}" -f "${3:-24}" "$here"/../../samples/vm*.dat "$here"/../../samples/host-*.dat
