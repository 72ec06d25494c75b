#!/bin/bash
# Fails when a test script or C test under tests/ is not named in
# tests/meson.build: an unregistered test never runs, so it must not exist.
set -u
dir=${1:?usage: check-registered.sh TESTS_DIR}
build="$dir/meson.build"
# helpers that suites call, not suites themselves
helpers="golden/cmp-report.sh golden/text-lib.sh golden/check-analyze.sh vm/guest-perf.sh vm/make-perf-samples.sh vm/vm.sh vm/fetch-kernel.sh vm/fetch-tool.sh vm/guest-record.sh vm/make-samples.sh vm/check-recording.sh vm/guest-darc-record.sh vm/guest-text.sh vm/make-text-samples.sh vm/guest-real.sh vm/make-real-samples.sh
unit/tdat.c vm/workload.c fuzz/fuzz-perf.c fuzz/fuzz-text.c
vm/explain-record.sh vm/explain-guest.sh vm/explain-workload.c vm/guest-overhead.sh vm/host-lib.sh
fuzz/fuzz-tracedat.c fuzz/fuzz-uftrace.c fuzz/libfuzzer.sh
matrix/record.sh matrix/edit.sh matrix/guest-matrix.sh"
fail=0 n=0
while IFS= read -r f; do
	rel=${f#"$dir"/}
	case $rel in bench/*) continue ;; esac # benchmarks are run by hand, never by CI
	n=$((n + 1))
	if grep -qF "'$rel'" "$build"; then continue; fi
	if printf '%s\n' $helpers | grep -qxF "$rel"; then continue; fi
	echo "FAIL: tests/$rel is not registered in tests/meson.build"
	fail=$((fail + 1))
done < <(find "$dir" -name '*.sh' -o -name 'test_*.c' -o -name '*.c' | sort)
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
