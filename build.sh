#!/bin/bash
# build.sh: install what is missing (Debian 12, as root), build darc, and
#   build.sh demo   run darc on a bundled sample recording
#   build.sh test       run every test suite (unit, golden, fuzz, live, vm), then
#                       build.sh sanitize's
#   build.sh sanitize   run them (but fuzz) on a build with ASan + UBSan in ./build-san
#   build.sh vm-all     run the VM suites on each kernel of the lab (6.1, 6.12, 7.3,
#                       5.10, 6.1-rt;
#                       DARC_VM_KERNELS="..." for others; tests/vm/README.md)
#   build.sh            just build
# The build goes to ./build (meson + ninja).
set -euo pipefail
cd "$(dirname "$0")"

build_pkgs="gcc pkg-config meson ninja-build libtraceevent-dev libtracefs-dev libdw-dev
	libelf-dev libjansson-dev libsqlite3-dev libzstd-dev zlib1g-dev check sqlite3"
# the tests compare with trace-cmd, boot a stock kernel under qemu, and run SQL with sqlite3;
# the live suites read darc-record's JSON manifest with python3, and watch its writes with strace;
# the SVG plots and darc report's page are rendered in headless chromium; darc export
# --perfetto's traces are decoded by protoc; darc export's files are opened in
# speedscope there, from the npm registry (Debian's npm, unless an npm is on PATH already,
# e.g. nodesource's nodejs, which Debian's npm would conflict with)
test_pkgs="trace-cmd libtracecmd-dev man-db qemu-system-x86 busybox-static cpio e2fsprogs sqlite3
	apt-utils python3 strace chromium protobuf-compiler"
speedscope=speedscope@1.25.0 # tests/golden/speedscope.sh's, into build/npm

install_missing() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "build.sh: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
		exit 2
	fi
	echo "build.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

mode=${1:-build}
case $mode in
build | demo) install_missing $build_pkgs ;;
test | sanitize | vm-all)
	install_missing $build_pkgs $test_pkgs
	command -v npm >/dev/null || install_missing npm
	;;
*)
	echo "usage: build.sh [build|demo|test|sanitize|vm-all]" >&2
	exit 2
	;;
esac

# suites DIR [SETUP]: meson test in build directory DIR (with test setup SETUP), and a
# line "N passed, N failed, N skipped" for it; the counts add up in passed/failed/skipped
passed=0 failed=0 skipped=0
suites() {
	local dir=$1 setup=${2:-} rc=0
	if [ ! -f "$dir/npm/node_modules/speedscope/dist/release/index.html" ]; then
		npm install --prefix "$dir/npm" --no-audit --no-fund --loglevel=error "$speedscope" >&2 ||
			echo "build.sh: npm install $speedscope failed (the speedscope test will say)" >&2
	fi
	meson test -C "$dir" ${setup:+--setup "$setup"} --print-errorlogs --num-processes 2 || rc=$?
	count "$dir/meson-logs/testlog${setup:+-$setup}.txt" "$dir${setup:+ ($setup)}"
	return $rc
}

# count LOG WHAT: a line "WHAT: N passed, N failed, N skipped" from meson test's LOG, and
# the counts added to passed/failed/skipped
count() {
	local log=$1 ok bad skip
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	bad=$(sed -n 's/^\(Fail\|Timeout\|Unexpected Pass\): *\([0-9]*\).*/\2/p' "$log" |
		awk '{ s += $1 } END { print s + 0 }')
	skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	echo "$2: ${ok:-0} passed, ${bad:-0} failed, ${skip:-0} skipped"
	passed=$((passed + ${ok:-0})) failed=$((failed + ${bad:-0})) skipped=$((skipped + ${skip:-0}))
}

# The VM suites (every test of suite vm but those pinned to one kernel, suite vm-pinned)
# once per kernel, one at a time: each boots its own VMs, and a second would only slow
# the first (the kernels are fetched on first use, tests/vm/fetch-kernel.sh)
vm_all() {
	local k rc=0 start
	for k in ${DARC_VM_KERNELS:-6.1 6.12 7.3 5.10 6.1-rt}; do
		start=$SECONDS
		DARC_VM_KERNEL=$k meson test -C build --suite vm --no-suite vm-pinned \
			--logbase "testlog-vm-$k" --print-errorlogs --num-processes 1 || rc=1
		count "build/meson-logs/testlog-vm-$k.txt" "kernel $k, $((SECONDS - start)) s"
	done
	return $rc
}

# The same suites on darc built with ASan and UBSan (-fno-sanitize-recover: any
# undefined behaviour ends the process), each test under tests/sanitize.sh, which
# fails it on any report. gcc's two runtimes are linked statically, into one: as
# two shared libraries UBSan ignores log_path and reports on stderr, where a
# script that checks only darc's output would never see it.
sanitize() {
	if [ ! -f build-san/build.ninja ]; then
		meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args='-fno-omit-frame-pointer -fno-sanitize-recover=all' \
			-Dc_link_args='-static-libasan -static-libubsan' >/dev/null || return
	fi
	ninja -C build-san >/dev/null || return
	suites build-san sanitize
}

if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null

case $mode in
demo)
	sample=samples/vm-preads-v7.dat
	echo "== darc analyze $sample -o build/demo.db"
	./build/analyze/darc analyze --top 3 -o build/demo.db "$sample"
	echo
	echo "== darc explain build/demo.db --top 1: the system call's slow part and its causes"
	./build/analyze/darc explain build/demo.db --top 1
	echo
	echo "== the 3 slowest vfs_read calls, from the database"
	if command -v sqlite3 >/dev/null; then
		sqlite3 -header -column build/demo.db "SELECT id, incl_ns, excl_ns, children_ns,
			irq_ns, preempt_ns, blocked_ns FROM slowest_calls WHERE func = 'vfs_read' LIMIT 3"
	else
		echo "(install sqlite3 to query build/demo.db)"
	fi
	;;
test)
	rc=0
	suites build || rc=$?
	sanitize || rc=$?
	echo "$passed passed, $failed failed, $skipped skipped"
	exit $rc
	;;
sanitize)
	sanitize
	;;
vm-all)
	rc=0
	vm_all || rc=$?
	echo "$passed passed, $failed failed, $skipped skipped"
	exit $rc
	;;
esac
