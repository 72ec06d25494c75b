# The steps the libFuzzer suites share (perf.sh, text.sh, tracedat.sh, uftrace.sh), sourced.
#
#   fz_init NAME SRC BUILD [WORK]   (exits 77 without clang's libFuzzer)
#   ... put seeds in $work/corpus ...
#   fz_run BUDGET MAX_LEN TIMEOUT [LIBFUZZER ARGS...]   (exits with the verdict)
#
# fz_init builds tests/fuzz/fuzz-NAME.c with every reader in fmt/ and its base (not the
# writer) under clang -fsanitize=fuzzer,address,undefined into WORK (default:
# a temporary directory, removed at exit) and copies the inputs that once
# crashed the reader (tests/fuzz/NAME-regress/crash-*, each fixed) into the
# corpus, so every run replays them first.
#
# fz_run's BUDGET says what kind of run it is:
#   N (a count)    the suite's run, deterministic: every input of the corpus
#                  replayed, then N mutations from a fixed seed (-seed=1,
#                  -reload=0, no time limit, no address space randomisation,
#                  no mutations from compared operands), so that one tree
#                  always gives one result; a timeout is generous (TIMEOUT x 6) so that a loaded
#                  machine does not fail a slow input that a quiet one passes.
#   Ns (seconds)   a campaign: N seconds from a random seed, as libFuzzer's
#                  -max_total_time, for finding new inputs outside CI.
# Any crash, sanitizer report or leak of ours fails, the input kept in
# WORK/crash-* (leak-*, timeout-*); a campaign's finds join
# tests/fuzz/NAME-regress/ once fixed. A campaign keeps its WORK and may pass
# libFuzzer more arguments after it:
#   nice tests/fuzz/tracedat.sh . build 7200s /tmp/fz-tracedat -runs=10000000
# A long campaign may trade AddressSanitizer for speed (about 4 times the
# executions a second): FZ_SANITIZE=undefined builds with UBSan only, and
# glibc keeps its freed memory instead of unmapping it at every input. Replay
# such a campaign's corpus under the default build afterwards (budget 0,
# its corpus as one more directory), so that every input it kept has run under ASan:
#   FZ_SANITIZE=undefined nice tests/fuzz/perf.sh . build 36000s /tmp/fz-perf -runs=8000000
#   nice tests/fuzz/perf.sh . build 0 /tmp/fz-perf-asan /tmp/fz-perf/corpus

fz_init() {
	name=$1
	src=$(realpath "${2:?usage: $name.sh SRC BUILD [SECONDS [WORK]]}") || exit 1
	build=$(realpath "${3:?usage: $name.sh SRC BUILD [SECONDS [WORK]]}") || exit 1
	work=${4:-}
	here=$src/tests/fuzz
	cc=$(command -v clang || command -v clang-14) || { echo "skip: no clang"; exit 77; }
	# what is removed at exit (a suite may add to it): a temporary WORK
	fz_tmp=()
	trap 'rm -rf "${fz_tmp[@]}"' EXIT
	if [ -z "$work" ]; then
		work=$(mktemp -d)
		fz_tmp+=("$work")
	fi
	mkdir -p "$work/corpus" && work=$(realpath "$work") || exit 1
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' \
		>"$work/probe.c"
	if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null; then
		echo "skip: $cc cannot link -fsanitize=fuzzer (libFuzzer missing)"
		exit 77
	fi
	local flags="-g -O1 -fsanitize=fuzzer,${FZ_SANITIZE:-address,undefined}"
	flags="$flags -fno-sanitize-recover=undefined"
	flags="$flags -fno-omit-frame-pointer -D_GNU_SOURCE -std=gnu11"
	# shellcheck disable=SC2046,SC2086 # word splitting of the lists is wanted
	if ! "$cc" $flags -I"$build" -I"$src/fmt" -I"$src/fmt/base" "$here/fuzz-$name.c" \
		$(ls "$src"/fmt/*.c "$src"/fmt/base/*.c | grep -v writer.c) \
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
	local budget=$1 max_len=$2 timeout=$3 dict=() mode=() norand=() rc
	shift 3
	[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
	case $budget in
	*[!0-9]*s | s) echo "FAIL: bad budget '$budget' (N runs, or Ns seconds)"; exit 1 ;;
	*s) mode=(-max_total_time="${budget%s}") ;;
	'' | *[!0-9]*) echo "FAIL: bad budget '$budget' (N runs, or Ns seconds)"; exit 1 ;;
	*) # no comparison operands as mutations (-use_cmp, -use_memmem): the table
	   # libFuzzer keeps of them changed between two runs of one tree
	   mode=(-seed=1 -runs="$budget" -reload=0 -use_cmp=0 -use_memmem=0)
	   timeout=$((timeout * 6))
	   # the same addresses every run: libFuzzer takes operands of comparisons
	   # (pointers among them) into its dictionary, so ASLR would vary the inputs
	   norand=(setarch "$(uname -m)" -R) ;;
	esac
	export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
	export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	if [ "${FZ_SANITIZE:-}" = undefined ]; then
		# without ASan's allocator: no munmap and fresh pages at every input
		export MALLOC_MMAP_THRESHOLD_=268435456 MALLOC_TRIM_THRESHOLD_=268435456
		export MALLOC_TOP_PAD_=268435456
	fi
	cd "$work" || exit 1
	"${norand[@]}" "./fuzz-$name" "${mode[@]}" -max_len="$max_len" -timeout="$timeout" \
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
