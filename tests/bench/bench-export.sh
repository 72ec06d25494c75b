#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Export benchmark: darc export's time and peak RSS, every mode, on a small
# database (a sample) and on the function_graph bench recordings' (made by
# mkrec-vm.sh: OUT_DIR/bench-fg-v7.dat, and bench-fgappend4-v7.dat when there),
# analyzed here first. Memory must not grow with the calls: the folded stacks
# are summed in SQL, the JSON's calls read thread by thread.
#
# usage: bench-export.sh [DARC [OUT_DIR]]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export LC_ALL=C

darc=${1:-${DARC:-$repo_dir/build/analyze/darc}}
out=${2:-${BENCH_OUT:-$repo_dir/build/bench}}
[[ -x $darc ]] || die "no darc at '$darc' (build first, or pass its path)"
[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (apt-get install time)"
need_cmd sqlite3
work=$(mktemp -d /tmp/darc-bench-export.XXXXXX)
trap 'rm -rf "$work"' EXIT

dbs=()
"$darc" analyze -q -o "$work/small.db" "$repo_dir/samples/vm-fsyncread-v7.dat"
dbs+=("$work/small.db")
for rec in bench-fg-v7 bench-fgappend4-v7; do
	[[ -f $out/$rec.dat ]] || { note "no $out/$rec.dat (tests/bench/mkrec-vm.sh): skipped"; continue; }
	"$darc" analyze -q -o "$work/$rec.db" "$out/$rec.dat"
	dbs+=("$work/$rec.db")
done
printf '%-22s %9s %-36s %8s %10s %14s\n' database calls mode seconds "peak RSS" "output bytes"
for db in "${dbs[@]}"; do
	calls=$(sqlite3 "$db" 'SELECT count(*) FROM call_base')
	for mode in "--folded" "--folded --root tid" "--folded --off-cpu --metric offcpu" "--chrome"; do
		# shellcheck disable=SC2086
		/usr/bin/time -f '%e %M' -o "$work/time.txt" "$darc" export "$db" $mode -o "$work/out" ||
			die "darc export $db $mode failed"
		read -r secs rss <"$work/time.txt"
		printf '%-22s %9s %-36s %8s %7s MB %14s\n' "$(basename "$db")" "$calls" "$mode" "$secs" \
			"$((rss / 1024))" "$(stat -c %s "$work/out")"
	done
done
