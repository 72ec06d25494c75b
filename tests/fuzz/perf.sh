#!/bin/bash
# The perf.data reader under libFuzzer (clang -fsanitize=fuzzer,address):
# builds tests/fuzz/fuzz-perf.c with fmt/'s sources, seeds it with the perf
# samples (cut small by perf-seeds.py) and runs it for SECS seconds. Skips (77) without clang's libFuzzer.
# Usage: perf.sh SRCDIR BUILDDIR [SECS [EXTRA LIBFUZZER ARGS...]]
set -u
src=${1:?usage: perf.sh SRCDIR BUILDDIR [SECS]} build=${2:?} secs=${3:-60}
shift $(($# < 3 ? $# : 3))
src=$(realpath "$src") build=$(realpath "$build") || exit 1
out=$build/fuzz-perf
mkdir -p "$out/corpus"
cc=$(command -v clang || command -v clang-14) || { echo "skip: no clang"; exit 77; }
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer -o "$out/probe" "$out/probe.c" 2>/dev/null; then
	echo "skip: $cc has no libFuzzer"
	exit 77
fi
# the reader's sources (the trace.dat parts too: perf.c shares their steps)
srcs=$(ls "$src"/fmt/*.c | grep -v writer.c)
if ! "$cc" -g -O1 -D_GNU_SOURCE -std=gnu11 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/fmt" -I"$build" \
	-o "$out/fuzz-perf" "$src/tests/fuzz/fuzz-perf.c" $srcs \
	-ltraceevent -lzstd -lz -lpthread; then
	echo "FAIL: cannot build the fuzz target"
	exit 1
fi
# seeds: the samples cut small (perf-seeds.py), in file and pipe mode, and
# the inputs that crashed the reader once (perf-regress/, each fixed)
cp "$src"/tests/fuzz/perf-regress/crash-* "$out/corpus/" || exit 1
if ! python3 "$src/tests/fuzz/perf-seeds.py" "$out/corpus" "$src"/samples/*.perf.data; then
	echo "FAIL: cannot make the seeds"
	exit 1
fi
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$out" || exit 1
"$out/fuzz-perf" -max_total_time="$secs" -max_len=32768 -timeout=20 -rss_limit_mb=2048 \
	-artifact_prefix="$out/" -print_final_stats=1 "$@" "$out/corpus" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && echo "ok: no crash in ${secs}s" || echo "FAIL: the fuzzer found a crash (rc $rc), see $out/crash-*"
exit "$rc"
