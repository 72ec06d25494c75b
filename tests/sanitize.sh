#!/bin/bash
# sanitize.sh CMD [ARG...]: runs one test of a sanitizer build (meson test
# --setup sanitize, which build.sh sanitize uses) with every ASan, LSan and
# UBSan report written to a file rather than to stderr, and fails the test
# when any process of it left a report. The suites run darc through scripts
# that compare its output, pipe it, or expect it to fail on bad input: a
# report on stderr with exit status 1 would be lost in some of them. (gcc's
# ASan and UBSan runtimes must be linked statically, as build.sh sanitize
# does: as two shared libraries, UBSan ignores log_path.)
set -u
logs=$(mktemp -d "${TMPDIR:-/tmp}/darc-san.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
# halt_on_error: the first report ends the process (UBSan's too, as the build
# passes -fno-sanitize-recover=all). No leak is suppressed: libtracefs's
# tracefs_instances() leaks the regex it is given, so darc-record gives none.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
"$@"
rc=$?
reports=("$logs"/*)
if [ -e "${reports[0]}" ]; then
	for f in "${reports[@]}"; do
		echo "== $(basename "$f"):"
		cat "$f"
	done >&2
	echo "sanitize.sh: FAIL: ${#reports[@]} sanitizer report(s) from $* (status $rc)" >&2
	exit 1
fi
exit $rc
