#!/bin/bash
# The ftrace text reader under libFuzzer (suite 'fuzz'): builds fuzz-text.c
# and fmt/ (libfuzzer.sh), seeds a corpus from the text samples
# (samples/text/*.txt cut into pieces of at most 8 KiB, each keeping its
# file's header, and tests/golden/text/), and runs it for BUDGET (libfuzzer.sh's fz_run: N runs from a fixed seed, or Ns seconds).
#
#   text.sh SRC BUILD [BUDGET [WORK [LIBFUZZER ARGS...]]]
#
# Exit 77 when clang or libFuzzer is missing.
set -u
. "$(dirname "$0")/libfuzzer.sh"
fz_init text "${1:-}" "${2:-}" "${4:-}"
# seeds: pieces of the samples, each with its first (header) lines
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
fz_run "${3:-20000}" 16384 10 "${@:5}"
