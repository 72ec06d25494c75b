#!/bin/bash
# Progress lines (analyze/progress.h) on long runs: darc analyze, the analysis
# a report command makes first, and export --chrome/--speedscope each show
# "darc: WHAT: N ..." on a terminal (run under script(1); DARC_PROGRESS_DELAY=0
# shows the first line at once instead of after half a second) and erase it;
# with stderr not a terminal, nothing. The output itself stays whole.
#
#   progress.sh DARC SRC
set -u
darc=$(realpath "$1") src=$(realpath "$2")
command -v script >/dev/null || { echo "skip: no script(1) (bsdutils)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$src/tests/bench/repeat-v6.py" "$src/samples/vm-odirect-v6.dat" rec.dat 10 >/dev/null ||
	exit 1
cp rec.dat other.dat
fails=0
# tty NAME PATTERN CMD: CMD on a terminal prints PATTERN, then erases the line
tty() {
	local name=$1 pattern=$2 out
	shift 2
	out=$(DARC_PROGRESS_DELAY=0 script -qec "$*" /dev/null | cat -v)
	if grep -qE "\\^Mdarc: $pattern, [0-9.]+ s\\^\\[\\[K" <<<"$out" &&
		grep -qF '^M^[[K' <<<"$out"; then
		echo "ok: $name"
	else
		echo "FAIL: $name: $(head -c 300 <<<"$out")"
		fails=$((fails + 1))
	fi
}
tty "darc analyze on a terminal" "analyze: [0-9.]+ M events" \
	"$darc analyze -q -o rec.db rec.dat"
tty "darc hist's analysis first, on a terminal" "analyze: [0-9.]+ M events" \
	"$darc hist other.dat --func vfs_read >hist.txt"
grep -q '^vfs_read: incl latency' hist.txt || { echo "FAIL: hist's output: $(head -2 hist.txt)"; fails=$((fails + 1)); }
tty "darc export --chrome on a terminal" "export: [0-9.]+ M calls" \
	"$darc export rec.db --chrome -o rec.json"
tty "darc export --speedscope on a terminal" "export: [0-9.]+ M calls" \
	"$darc export rec.db --speedscope -o rec.ss.json"
for f in rec.json rec.ss.json; do
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" ||
		{ echo "FAIL: $f is not whole JSON"; fails=$((fails + 1)); }
done
# not a terminal: no progress text at all
rm -f other.db
DARC_PROGRESS_DELAY=0 "$darc" hist other.dat --func vfs_read >/dev/null 2>err.txt
DARC_PROGRESS_DELAY=0 "$darc" export rec.db --chrome >/dev/null 2>>err.txt
if grep -q 'darc: analyze:\|darc: export:' err.txt; then
	echo "FAIL: progress text without a terminal: $(cat -v err.txt | head -3)"
	fails=$((fails + 1))
else
	echo "ok: no progress text when stderr is not a terminal"
fi
[ "$fails" -eq 0 ] && echo PASS
