#!/bin/bash
# check-recording.sh: check on the host that trace-cmd reads a VM lab
# recording and that it holds the kinds of events it should.
#
#   tests/vm/check-recording.sh [--require LIST] [--summary] FILE...
#
# LIST is comma-separated, from: funcgraph, kprobe, kretprobe, bio (the
# submit_bio and bio_endio kprobes), block, sched_switch, sched_wakeup,
# irq (irq_handler_* or softirq_*), irq_handler, irq_vectors (local timer
# and other vector events).  Default: funcgraph,kprobe,sched_switch,irq_vectors.
#
# Prints one line per file with the file version, size and event counts
# (raw events, as `trace-cmd report -R` lists them; a function_graph leaf is
# one entry plus one exit).  --summary prints only the compact count list.
# Exit status: 0 if all files pass, 1 if not, 77 if trace-cmd is missing.

set -euo pipefail

REQUIRE=funcgraph,kprobe,sched_switch,irq_vectors
SUMMARY=0
while [ $# -gt 0 ]; do
	case $1 in
	--require) REQUIRE=$2; shift 2 ;;
	--summary) SUMMARY=1; shift ;;
	-h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "check-recording: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: check-recording.sh [--require LIST] FILE..." >&2; exit 2; }
command -v trace-cmd >/dev/null 2>&1 || { echo "check-recording: trace-cmd not found" >&2; exit 77; }

fail=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "$f: missing" >&2
		fail=1
		continue
	fi
	err=$(mktemp)
	# Count raw events by name and by class.
	if ! counts=$(trace-cmd report -R "$f" 2>"$err" | awk '
		{
			name = ""
			for (i = 1; i < NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) { name = $(i + 1); arg = $(i + 2); break }
			if (name == "") {
				if ($0 ~ /LOST|DROPPED/) lost++
				next
			}
			sub(/:$/, "", name)
			n[name]++
			total++
			if (name ~ /^funcgraph_/) c["funcgraph"]++
			else if (arg ~ /^__probe_ip=/) { c["kprobe"]++; kp[name]++ }
			else if (arg ~ /^__probe_func=/) { c["kretprobe"]++; kp[name]++ }
			else if (name ~ /^block_/) c["block"]++
			else if (name ~ /^(irq_handler_|softirq_|tasklet_)/) c["irq"]++
			else if (arg ~ /^vector=/) c["irq_vectors"]++
		}
		END {
			printf "total=%d lost=%d", total, lost
			printf " funcgraph_entry=%d funcgraph_exit=%d", n["funcgraph_entry"], n["funcgraph_exit"]
			printf " kprobe=%d kretprobe=%d", c["kprobe"], c["kretprobe"]
			for (k in kp) printf " %s=%d", k, kp[k]
			printf " block=%d block_rq_issue=%d block_rq_complete=%d", c["block"], n["block_rq_issue"], n["block_rq_complete"]
			printf " sched_switch=%d sched_wakeup=%d sched_waking=%d", n["sched_switch"], n["sched_wakeup"], n["sched_waking"]
			printf " irq=%d irq_handler_entry=%d softirq_entry=%d", c["irq"], n["irq_handler_entry"], n["softirq_entry"]
			printf " irq_vectors=%d local_timer_entry=%d\n", c["irq_vectors"], n["local_timer_entry"]
		}'); then
		echo "$f: trace-cmd report failed:" >&2
		sed 's/^/    /' "$err" >&2
		rm -f "$err"
		fail=1
		continue
	fi
	if [ -s "$err" ]; then
		echo "$f: warnings from trace-cmd report:" >&2
		sed 's/^/    /' "$err" | head -n 5 >&2
	fi
	rm -f "$err"

	get() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<" $counts"; }
	missing=()
	IFS=, read -r -a reqs <<<"$REQUIRE"
	for r in "${reqs[@]}"; do
		case $r in
		funcgraph) v=$(( $(get funcgraph_entry) > 0 && $(get funcgraph_exit) > 0 )) ;;
		kprobe|kretprobe|block|irq|irq_vectors|sched_switch|sched_wakeup)
			v=$(( $(get "$r") > 0 )) ;;
		bio) v=$(( $(get submit_bio || echo 0) + 0 > 0 && $(get bio_endio || echo 0) + 0 > 0 )) ;;
		irq_handler) v=$(( $(get irq_handler_entry) > 0 )) ;;
		*) echo "check-recording: unknown requirement $r" >&2; exit 2 ;;
		esac
		[ "$v" = 1 ] || missing+=("$r")
	done
	if [ "$(get lost)" != 0 ]; then
		missing+=("no lost events (lost=$(get lost))")
	fi

	version=$(trace-cmd dump --summary -i "$f" 2>/dev/null |
		awk '/\[Version\]/ { v = $1 } /\[Compression algorithm\]/ { c = $1 }
			END { printf "v%s%s", v, c ? " " c : "" }')
	size=$(stat -c %s "$f")
	if [ "$SUMMARY" = 1 ]; then
		echo "$counts"
	else
		echo "$f: $version, $size bytes: $counts"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		echo "$f: FAIL: missing: ${missing[*]}" >&2
		fail=1
	fi
done
exit "$fail"
