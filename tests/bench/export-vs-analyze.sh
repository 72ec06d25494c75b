#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The exports against the analysis they export ([20] item 3): the 611 K-call
# database of samples/vm-odirect-v6.dat repeated N times (repeat-v6.py,
# default 100), analyzed here, then each timeline export of it (--chrome,
# --speedscope, --perfetto) and darc report, one run each: wall and CPU
# seconds, peak RSS, bytes, and the wall and CPU times as multiples of the
# analysis's. An export should take no longer than the analysis; darc
# report runs darc explain's searches, which take longer.
#
# usage: export-vs-analyze.sh [DARC [N]]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
copies=${2:-100}
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
need_cmd python3 sqlite3
work=$(mktemp -d /tmp/darc-export-vs-analyze.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 "$bench_dir/repeat-v6.py" "$repo_dir/samples/vm-odirect-v6.dat" "$work/rec.dat" "$copies" \
	>/dev/null
# timed NAME OUT CMD...: one run of CMD, which writes OUT; its row (wall time
# against the analysis's), the wall seconds left in $secs
timed() {
	local name=$1 out=$2 user sys rss
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" 2>"$work/err.txt" ||
		die "$name failed: $(tail -n 2 "$work/err.txt")"
	read -r secs user sys rss <"$work/time.txt"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf("%.2f", u + s) }')
	printf '%-22s %8s %8s %8s %7s MB %12s %9s %9s\n' "$name" "$secs" "$user" "$sys" \
		"$((rss / 1024))" "$(stat -c %s "$out")" "$(ratio "$secs" "${analyze:-$secs}")" \
		"$(ratio "$cpu" "${analyze_cpu:-$cpu}")"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf("%.2f", (b > 0) ? a / b : 0) }'; }
# the wall time on a busy machine is mostly waiting: the CPU time (user + sys) beside it
printf '%-22s %8s %8s %8s %10s %12s %9s %9s\n' "" wall user sys "peak RSS" bytes "x wall" \
	"x CPU"
analyze= analyze_cpu=
timed "analyze" "$work/rec.db" "$darc" analyze -q -o "$work/rec.db" "$work/rec.dat"
analyze=$secs analyze_cpu=$cpu
calls=$(sqlite3 "$work/rec.db" 'SELECT count(*) FROM call_base')
for mode in chrome speedscope perfetto; do
	timed "export --$mode" "$work/out.$mode" "$darc" export "$work/rec.db" "--$mode" \
		-o "$work/out.$mode"
done
timed "report (explains too)" "$work/report.html" "$darc" report "$work/rec.db" \
	-o "$work/report.html"
echo "($calls calls; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
