#!/bin/bash
# The text reader's coverage-guided fuzz run (suite 'fuzz'): builds
# fuzz-text.c and fmt/ with clang -fsanitize=fuzzer,address,undefined,
# seeds a corpus from the text samples (samples/text/*.txt cut into pieces
# of at most 8 KiB, each keeping its file's header, and tests/golden/text/),
# and runs libFuzzer for SECONDS (default 60). Any crash, sanitizer report
# or leak of ours fails; the crashing input is kept in WORK/crash-*.
#
#   text.sh SRC BUILD [SECONDS [WORK]]
#
# SRC is the source tree, BUILD the meson build directory (its config.h).
# WORK (default: a temporary directory, removed) keeps the binary and the
# corpus for a longer campaign:
#   nice tests/fuzz/text.sh . build 3600 /tmp/fz   # then /tmp/fz/fuzz-text ...
# Exit 77 when clang or libFuzzer is missing.
set -u
src=$(realpath "${1:?usage: text.sh SRC BUILD [SECONDS [WORK]]}")
build=$(realpath "${2:?usage: text.sh SRC BUILD [SECONDS [WORK]]}")
secs=${3:-60}
work=${4:-}
cc=$(command -v clang || command -v clang-14) || { echo "skip: no clang"; exit 77; }
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/corpus"
here=$src/tests/fuzz

# 1. libFuzzer present?
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$work/probe.c"
if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null; then
	echo "skip: $cc cannot link -fsanitize=fuzzer (libFuzzer missing)"
	exit 77
fi

# 2. the target: the reader with the sanitizers and coverage
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
flags="$flags -fno-omit-frame-pointer -D_GNU_SOURCE -std=gnu11"
# every reader in fmt/ (backends.c names them all), not the writer
srcs=$(ls "$src"/fmt/*.c | grep -v writer.c)
# shellcheck disable=SC2086 # word splitting of the lists is wanted
if ! "$cc" $flags -I"$build" -I"$src/fmt" "$here/fuzz-text.c" $srcs \
	$(pkg-config --cflags --libs libtraceevent libzstd zlib) -lpthread \
	-o "$work/fuzz-text" 2>"$work/build.log"; then
	cat "$work/build.log"
	echo "FAIL: cannot build the fuzz target"
	exit 1
fi

# 3. seeds: pieces of the samples, each with its first (header) lines
n=0
for f in "$src"/samples/text/*.txt "$src"/tests/golden/text/*.txt; do
	head -c 8192 "$f" >"$work/corpus/seed-$n"
	n=$((n + 1))
	lines=$(wc -l <"$f")
	for at in $((lines / 3)) $((2 * lines / 3)); do
		[ "$at" -gt 20 ] || continue
		{ head -n 4 "$f"; tail -n +"$at" "$f" | head -c 6000; } >"$work/corpus/seed-$n"
		n=$((n + 1))
	done
done

# 4. run
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$work" || exit 1
./fuzz-text -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/" corpus 2>"$work/fuzz.log"
rc=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|SUMMARY' \
	"$work/fuzz.log" | head -20
if [ "$rc" -ne 0 ]; then
	tail -40 "$work/fuzz.log"
	echo "FAIL: the fuzzer found a problem (exit $rc); inputs: $(ls "$work"/crash-* \
		"$work"/leak-* "$work"/timeout-* 2>/dev/null | tr '\n' ' ')"
	exit 1
fi
echo "ok: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/fuzz.log" |
	awk '{ print $2 }') executions in ${secs}s, no crash"
