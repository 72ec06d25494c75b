#!/bin/bash
# make-real-samples.sh: regenerate samples/real-*.dat, the realistic cases
# of darc explain's truth test (tests/golden/real.sh), their truth files
# (tests/golden/expected/real/*.truth.json) and their lines in
# samples/README.md.
#
#   tests/vm/make-real-samples.sh [--keep DIR | --from DIR] [CASE...]
#
# Boots the VM lab once (Debian's 6.1 by default, DARC_VM_KERNEL as vm.sh
# says) with trace-cmd and darc-record (build/record/darc-record, or
# $DARC_RECORD) and runs guest-real.sh, which records each CASE (default:
# all five, jsync mmapfault flock dirty chain3) three ways: trace-cmd record
# (tc), trace-cmd record -F -c (tcF) and darc-record (darc), with a
# /proc/kallsyms trimmed to the functions the cases call. Then, on the host:
# every recording must weigh under 1 MB (3 MB together for the case) and
# pass check-recording.sh; its README line says how many of its calls the
# trimmed kallsyms may misname (guest-real.sh's unknown-names.txt); the truth of each is computed by
# tests/golden/real-truth.py (from trace-cmd report, --brief) into
# tests/golden/expected/real/NAME.truth.json. --keep DIR keeps the VM's
# output there; --from DIR uses what an earlier --keep kept. About 15
# minutes on a 2-core host (function_graph takes 20-40 s to switch on under
# TCG, 16 times). Exit 0 ok, 1 failure, 77 when the lab cannot run here.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SAMPLES=$TOP/samples
TRUTH=$TOP/tests/golden/expected/real
KEEP=
FROM=
MAX_ONE=$((1000 * 1000))
MAX_CASE=$((3 * 1000 * 1000))

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=$2; shift 2 ;;
	--from) FROM=$2; KEEP=$2; shift 2 ;;
	-h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "make-real-samples: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(jsync mmapfault flock dirty chain3)
msg() { echo "make-real-samples: $*" >&2; }
TRACE_CMD=$(command -v trace-cmd) || { msg "trace-cmd not found"; exit 77; }
REC=${DARC_RECORD:-$TOP/build/record/darc-record}
[ -n "$FROM" ] || [ -x "$REC" ] || { msg "no darc-record at $REC (build it, or set DARC_RECORD)"; exit 77; }

WORK=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/darc-real.XXXXXX")}
[ -n "$KEEP" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"

start=$SECONDS
if [ -z "$FROM" ]; then
	rm -rf "${WORK:?}/vm"
	"$HERE/vm.sh" --out "$WORK/vm" --add "$REC=/usr/local/bin/darc-record" --add "$TRACE_CMD" \
		--timeout 2400 --script "$HERE/guest-real.sh" -- "${CASES[@]}" ||
		{ rc=$?; msg "the VM run failed (status $rc)"; exit "$rc"; }
	# the darc-record that recorded: the last commit that changed record/
	git -C "$TOP" log -1 --format=%h -- record/ >"$WORK/vm/darc-record.commit"
fi
vm_s=$((SECONDS - start))
# the calls of a recording that the trimmed kallsyms may misname, in words
misnamed() {
	local names n all
	names=$(sed -n "s/^$1: //p" "$WORK/vm/unknown-names.txt" | paste -sd '|')
	all=$("$TRACE_CMD" report -R "$2" 2>/dev/null | grep -c ' funcgraph_entry:')
	n=0
	[ -z "$names" ] || n=$("$TRACE_CMD" report -R "$2" 2>/dev/null |
		grep -cE " funcgraph_entry: +func=($names) ")
	if [ "$n" = 0 ]; then
		echo "every one of its $all graph entries is of a function the first run called"
	else
		echo "$n of its $all graph entries $([ "$n" = 1 ] && echo is || echo are) of functions the first run did not call, named after the symbol before them (as ${names//|/, })"
	fi
}

# case -> entry point and what the workload does, for the README lines
declare -A ENTRY=([jsync]=__x64_sys_fdatasync [mmapfault]=handle_mm_fault
	[flock]=__x64_sys_flock [dirty]=__x64_sys_write [chain3]=__x64_sys_read)
declare -A WHAT=(
	[jsync]="24 rounds of a 4 KiB append to one file and fdatasync of it (each needs a journal commit), 1 ms apart, while a second process appends 256 KiB chunks to another file and starts their writeback at once (sync_file_range): the commits queue behind the writer's data"
	[mmapfault]="40 rounds of a read of one byte at a random page of a cold 32 MiB file mapped with MADV_RANDOM (no readahead: a major fault reading one page) and one of a cached 8 MiB mapped file (minor faults, or none where fault-around mapped the page)"
	[flock]="three processes (not pinned, 2 vCPUs) on one file's flock, 30 rounds each of LOCK_EX, 40000 rounds of arithmetic holding it, LOCK_UN, 10000 rounds outside it"
	[dirty]="4 MiB of 128 KiB buffered writes to a new file with vm.dirty_bytes lowered to 32 KiB and vm.dirty_background_bytes to 16 KiB: the writer is throttled in balance_dirty_pages; ext4_da_write_begin and ext4_da_write_end not traced (-n), so that the per-page calls do not swamp the recording"
	[chain3]="three threads, 30 rounds: the main one reads an eventfd, which the second writes once its futex wait ends (and some arithmetic), whose futex the third wakes after a 4 KiB pwrite to a cached 8 MiB file and fdatasync: a chain of three waiting tasks ending at the disk"
)
declare -A HOW=(
	[tc]="trace-cmd record, every task"
	[tcF]="trace-cmd record -F -c: the workload and its children or threads only, so interrupts that hit another task (the idle one) are not in it"
	[darc]="darc-record: its sched events filtered on the workload's pids (its default set), irq and block events of every task in a second buffer"
)

mkdir -p "$TRUTH"
: >"$WORK/readme-lines"
kinfo=$(sed -n 's/^uname: //p' "$WORK/vm/guest-info.txt")
krel=$(awk '{ print $3 }' <<<"$kinfo")
kver=$(sed -n 's/.*Debian \([^ ]*\) .*/\1/p' <<<"$kinfo")
tcver=$({ "$TRACE_CMD" --version 2>&1 || true; } | sed -n 's/.*trace-cmd version \([^ ]*\).*/\1/p')
qver=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
for c in "${CASES[@]}"; do
	sum=0
	for r in tc tcF darc; do
		f=$WORK/vm/$c-$r.dat
		size=$(stat -c %s "$f")
		sum=$((sum + size))
		[ "$size" -lt "$MAX_ONE" ] || { msg "$c-$r.dat is too big: $size bytes"; exit 1; }
		counts=$("$HERE/check-recording.sh" --summary --require funcgraph,sched_switch,sched_wakeup "$f") ||
			{ msg "$c-$r.dat does not pass check-recording.sh"; exit 1; }
		# "total=N lost=N a=N ..." -> "N events, N lost: a N, ..."
		counts=$(tr ' ' '\n' <<<"$counts" | awk -F= '$1 == "total" { t = $2; next }
			$1 == "lost" { l = $2; next } $2 > 0 { s = s (s ? ", " : "") $1 " " $2 }
			END { printf "%d events (trace-cmd report -R), %d lost: %s", t, l, s }')
		followed=vm-workload
		[ $r != tc ] || followed=all
		python3 "$TOP/tests/golden/real-truth.py" --brief "$f" "${ENTRY[$c]}" \
			--followed "$followed" >"$WORK/$c-$r.truth.json" ||
			{ msg "no truth for $c-$r.dat"; exit 1; }
		cmd=$(tail -n 1 "$WORK/vm/$c-$r.cmd" | sed 's|/out/||')
		ks=$(sed -n 's/^kallsyms: //p' "$WORK/vm/$c-$r.cmd")
		dirty=$(sed -n 's/^vm.dirty_bytes \([1-9][0-9]*\) vm.dirty_background_bytes \([0-9]*\)/, vm.dirty_bytes \1, vm.dirty_background_bytes \2/p' \
			"$WORK/vm/$c-$r.cmd")
		# shellcheck disable=SC2016 # backquotes are Markdown
		printf 'real-%s-%s.dat: %s; %s. Made %s by tests/vm/make-real-samples.sh (guest-real.sh): %s inside a qemu %s guest (-accel tcg,thread=single, 2 vCPUs, 1 GiB) running Debian kernel %s (%s, cmdline `console=ttyS0 preempt=full tsc=reliable panic=-1`), workload tests/vm/workload.c on an ext4 virtio-blk scratch disk%s; /proc/kallsyms as the recorder saw it: %s (a copy bind-mounted over it), %s; command: `%s`; %s. Its truth: tests/golden/expected/real/real-%s-%s.truth.json (tests/golden/real-truth.py).\n' \
			"$c" "$r" "${WHAT[$c]}" "${HOW[$r]}" "$(date +%F)" \
			"$([ $r = darc ] && echo "darc-record (record/ as of commit $(cat "$WORK/vm/darc-record.commit"))" || echo "trace-cmd $tcver record")" \
			"$qver" "$krel" "$kver" "$dirty" "$ks" "$(misnamed "$c-$r" "$f")" "$cmd" "$counts" "$c" "$r" \
			>>"$WORK/readme-lines"
	done
	[ "$sum" -lt "$MAX_CASE" ] || { msg "$c's recordings are too big together: $sum bytes"; exit 1; }
done

for c in "${CASES[@]}"; do
	for r in tc tcF darc; do
		cp "$WORK/vm/$c-$r.dat" "$SAMPLES/real-$c-$r.dat"
		cp "$WORK/$c-$r.truth.json" "$TRUTH/real-$c-$r.truth.json"
	done
done
readme=$SAMPLES/README.md
pat=$(printf '%s\n' "${CASES[@]}" | sed 's/.*/^real-&-/' | paste -sd '|')
grep -Ev "$pat" "$readme" >"$WORK/readme" || true
cat "$WORK/readme-lines" >>"$WORK/readme"
cat "$WORK/readme" >"$readme"
ls -l "$SAMPLES"/real-*.dat
msg "done in $((SECONDS - start))s (VM run ${vm_s}s)"
