# The steps the libFuzzer suites share (perf.sh, text.sh, tracedat.sh), sourced.
#
#   fz_init NAME SRC BUILD [WORK]   (exits 77 without clang's libFuzzer)
#   ... put seeds in $work/corpus ...
#   fz_run SECS MAX_LEN TIMEOUT [LIBFUZZER ARGS...]   (exits with the verdict)
#
# fz_init builds tests/fuzz/fuzz-NAME.c with every reader in fmt/ (not the
# writer) under clang -fsanitize=fuzzer,address,undefined into WORK (default:
# a temporary directory, removed at exit) and copies the inputs that once
# crashed the reader (tests/fuzz/NAME-regress/crash-*, each fixed) into the
# corpus, so every run replays them first. fz_run runs libFuzzer for SECS
# seconds; any crash, sanitizer report or leak of ours fails, the input kept
# in WORK/crash-* (leak-*, timeout-*). A longer campaign keeps its WORK and
# may pass libFuzzer more arguments after it:
#   nice tests/fuzz/tracedat.sh . build 7200 /tmp/fz-tracedat -runs=10000000

fz_init() {
	name=$1
	src=$(realpath "${2:?usage: $name.sh SRC BUILD [SECONDS [WORK]]}") || exit 1
	build=$(realpath "${3:?usage: $name.sh SRC BUILD [SECONDS [WORK]]}") || exit 1
	work=${4:-}
	here=$src/tests/fuzz
	cc=$(command -v clang || command -v clang-14) || { echo "skip: no clang"; exit 77; }
	if [ -z "$work" ]; then
		work=$(mktemp -d)
		trap 'rm -rf "$work"' EXIT
	fi
	mkdir -p "$work/corpus" && work=$(realpath "$work") || exit 1
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' \
		>"$work/probe.c"
	if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null; then
		echo "skip: $cc cannot link -fsanitize=fuzzer (libFuzzer missing)"
		exit 77
	fi
	local flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
	flags="$flags -fno-omit-frame-pointer -D_GNU_SOURCE -std=gnu11"
	# shellcheck disable=SC2046,SC2086 # word splitting of the lists is wanted
	if ! "$cc" $flags -I"$build" -I"$src/fmt" "$here/fuzz-$name.c" \
		$(ls "$src"/fmt/*.c | grep -v writer.c) \
		$(pkg-config --cflags --libs libtraceevent libzstd zlib) -lpthread \
		-o "$work/fuzz-$name" 2>"$work/build.log"; then
		cat "$work/build.log"
		echo "FAIL: cannot build the fuzz target"
		exit 1
	fi
	if [ -d "$here/$name-regress" ]; then
		cp "$here/$name-regress"/crash-* "$work/corpus/" || exit 1
	fi
}

fz_run() {
	local secs=$1 max_len=$2 timeout=$3 dict=() rc
	shift 3
	[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
	export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
	export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	cd "$work" || exit 1
	"./fuzz-$name" -max_total_time="$secs" -max_len="$max_len" -timeout="$timeout" \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" "${dict[@]}" \
		"$@" corpus 2>"$work/fuzz.log"
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
		awk '{ print $2 }') executions in $(grep -o 'in [0-9]* second' "$work/fuzz.log" |
		awk '{ print $2 }')s, no crash"
	exit 0
}
