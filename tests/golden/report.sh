#!/bin/bash
# The report commands (darc hist, darc peaks) on the samples:
#   - the histogram of a function equals one computed here, independently,
#     from the calltime/rettime of its funcgraph_exit events in
#     'trace-cmd report -R' (log2 buckets of rettime - calltime);
#   - text output against tests/golden/expected/report/*.txt (paths normalised);
#   - JSON: counts add up to the calls, shares to 1, peaks cover their buckets;
#   - peaks are stored in table peak, a second run with other parameters beside
#     the first; a recording is analyzed once, then its database reused;
#   - bad selections and options: exit 2 and one line.
# Usage: report.sh DARC [--update]. Exit 0 pass, 1 fail, 77 no trace-cmd/sqlite3/python3.
set -u
darc=$(realpath "${1:?usage: report.sh DARC [--update]}") || exit 1
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
exp=$here/expected/report
for c in trace-cmd sqlite3 python3; do
	command -v $c >/dev/null || { echo "skip: $c not installed"; exit 77; }
done
tmp=$(mktemp -d /tmp/darc-report.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL: $1"; }

# golden NAME CMD...: the output of CMD against expected/report/NAME.txt
golden() {
	local name=$1 out
	shift
	out=$("$@" 2>&1 | sed "s|$tmp/|TMP/|g")
	if [ "$update" = --update ]; then
		printf '%s\n' "$out" >"$exp/$name.txt"
	fi
	if [ "$out" = "$(cat "$exp/$name.txt" 2>/dev/null)" ]; then
		ok "$name matches expected/report/$name.txt"
	else
		not_ok "$name differs from expected/report/$name.txt:"
		diff <(printf '%s\n' "$out") "$exp/$name.txt" | head -20
	fi
}

# 1. a recording is analyzed once, beside it, then reused
cp "$samples/vm-odirect-v7.dat" "$tmp/od.dat"
"$darc" hist "$tmp/od.dat" --func vfs_read >"$tmp/h1.txt" 2>"$tmp/h1.err"
[ $? = 0 ] && grep -q "analyzing '$tmp/od.dat' into '$tmp/od.db' first" "$tmp/h1.err" &&
	[ -s "$tmp/od.db" ] && ok "a recording is analyzed into RECORDING.db first" ||
	not_ok "hist on a recording: $(cat "$tmp/h1.err")"
"$darc" hist "$tmp/od.dat" --func vfs_read >"$tmp/h2.txt" 2>"$tmp/h2.err"
grep -q "reading '$tmp/od.db'" "$tmp/h2.err" && cmp -s "$tmp/h1.txt" "$tmp/h2.txt" &&
	ok "its database is reused while newer" || not_ok "not reused: $(cat "$tmp/h2.err")"
db=$tmp/od.db

# 2. the histograms against trace-cmd's own durations, for every function_graph
#    function of the O_DIRECT and zero-read samples with at least 20 calls
cp "$samples/vm-zeroread-v7.dat" "$tmp/zr.dat"
"$darc" analyze -q -o "$tmp/zr.db" "$tmp/zr.dat" || not_ok "analyze zeroread"
for s in od zr; do
	trace-cmd report -R "$tmp/$s.dat" 2>/dev/null | python3 -c '
import re, sys, collections
h = collections.defaultdict(collections.Counter)
for line in sys.stdin:
    m = re.search(r"funcgraph_exit: +func=(\S+) .*calltime=([0-9a-f]+) rettime=([0-9a-f]+)", line)
    if m:
        d = int(m.group(3), 16) - int(m.group(2), 16)
        h[m.group(1)][max(d, 1).bit_length() - 1] += 1
for f, c in sorted(h.items()):
    if sum(c.values()) >= 20:
        print(f, " ".join("%d:%d" % kv for kv in sorted(c.items())))
' >"$tmp/$s.tc"
	n=0 bad=0
	while read -r f want; do
		# libtraceevent names io_schedule_timeout by the section marker at its
		# address; darc names the function (kallsyms has both, type T)
		[ "$f" = __sched_text_start ] && f=io_schedule_timeout
		got=$("$darc" hist "$tmp/$s.db" --func "$f" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(" ".join("%d:%d" % (b["bucket"], b["count"]) for b in j["buckets"] if b["count"]))')
		n=$((n + 1))
		if [ "$got" != "$want" ]; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "    $s $f: darc $got; trace-cmd $want"
		fi
	done <"$tmp/$s.tc"
	[ $n -gt 10 ] && [ $bad = 0 ] && ok "$s: $n functions' histograms equal trace-cmd's durations" ||
		not_ok "$s: $bad of $n histograms differ from trace-cmd's durations"
done

# 3. text and JSON forms
golden hist-vfs_read "$darc" hist "$db" --func vfs_read
golden hist-excl-r2 "$darc" hist "$db" --path 'vfs_read>ext4_file_read_iter' --metric excl --resolution 2
golden hist-interval "$darc" hist "$db" --func vfs_read --interval 20ms
golden peaks-explain "$darc" peaks "$db" --func vfs_read --explain
golden hist-zeroread "$darc" hist "$tmp/zr.db" --func vfs_read
"$darc" hist "$db" --func vfs_read --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
b = j["buckets"]
assert sum(x["count"] for x in b) == j["calls"] == 103, "counts"
assert abs(sum(x["share_calls"] for x in b) - 1) < 1e-9, "shares of calls"
assert abs(sum(x["share_latency"] for x in b) - 1) < 1e-9, "shares of latency"
for p in j["peaks"]:
    inside = [x for x in b if p["lo"] <= x["bucket"] <= p["hi"]]
    assert all(x["peak"] == p["peak"] for x in inside), "peak marks"
    assert sum(x["count"] for x in inside) == p["calls"], "peak calls"
assert [p["peak"] for p in j["peaks"]] == list(range(1, len(j["peaks"]) + 1)), "numbering"
' && ok "hist --json adds up" || not_ok "hist --json does not add up"

# 4. peaks are stored, each way of finding them beside the others
"$darc" peaks "$db" --func vfs_read --prominence 1 >/dev/null &&
	"$darc" peaks "$db" --func vfs_read --peaks 14-17,18-22 --json >"$tmp/given.json" ||
	not_ok "darc peaks failed"
got=$(sqlite3 "$db" "SELECT params, number, lo, hi, calls FROM peak p JOIN func f
	ON p.owner_kind = 0 AND f.id = p.owner_id WHERE f.name = 'vfs_read' ORDER BY params, number")
want='{"given":[[14,17],[18,22]]}|1|14|17|48
{"given":[[14,17],[18,22]]}|2|18|22|55
{"prominence":1.0,"smooth":1}|1|14|17|48
{"prominence":1.0,"smooth":1}|2|18|22|55
{"rule":"seen"}|1|14|17|48
{"rule":"seen"}|2|18|22|55'
[ "$got" = "$want" ] && ok "peaks stored in table peak, one set per way of finding them" ||
	{ not_ok "table peak:"; echo "$got"; }

# 5. darc diff: a recording against itself differs nowhere; against another
#    workload, the JSON is consistent and the text golden
"$darc" diff "$db" "$db" >"$tmp/same.txt" &&
	grep -q "nothing differs at or above the threshold" "$tmp/same.txt" &&
	ok "diff of a recording with itself: nothing differs" ||
	{ not_ok "diff of a recording with itself:"; head -5 "$tmp/same.txt"; }
golden diff-od-zr "$darc" diff "$db" "$tmp/zr.db" --kind func --show 2
"$darc" diff "$db" "$tmp/zr.db" --json | python3 -c '
import json, math, sys
j = json.load(sys.stdin)
r = j["ranked"]
assert j["method"] == "emd" and len(r) == j["pairs"], "pairs"
s = [x["scores"]["emd"] if x["scores"]["emd"] is not None else math.inf for x in r]
assert s == sorted(s, reverse=True), "ranked by emd"
assert sum(1 for v in s if v >= j["threshold"]) == j["differ"], "differ"
assert all((x["only_in"] != "") == (x["scores"]["emd"] is None) for x in r), "only_in"
' && ok "diff --json is ranked and consistent" || not_ok "diff --json"

# 6. darc paths: the disk peak of the O_DIRECT reads goes down the direct-I/O
#    path to its blocking wait (woken from hardirq); the cache peak down the
#    page-cache path; the slow zero-byte reads end at the first level in the
#    timer interrupt. Stored, replayed with other parameters, without the recording.
golden paths-odirect "$darc" paths "$db" --root vfs_read
cp "$tmp/zr.db" "$tmp/zr-alone.db"
golden paths-zeroread "$darc" paths "$tmp/zr-alone.db" --root vfs_read --range 17-19
"$darc" paths "$db" --root vfs_read --peak 2 --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert len(j) == 1 and j[0]["peak"] == 2, "one peak"
n = j[0]["nodes"]
names = [x["name"] for x in n]
assert names[:3] == ["vfs_read", "ext4_file_read_iter", "iomap_dio_rw"], names
leaf = n[-1]
assert leaf["kind"] == "blocked" and leaf["status"] == "root cause found", leaf
# woken by the disk interrupt (virtio-blk), named as itself, not as the task it hit
assert leaf["details"][0]["what"].startswith("irq "), leaf["details"]
assert "(virtio0-req" in leaf["details"][0]["what"], leaf["details"]
assert "schedule" in names and "__iomap_dio_rw" in names, names
' && ok "paths: the disk peak ends in the direct-I/O path's blocking wait, woken from hardirq" ||
	not_ok "paths: the disk peak"
# each O_DIRECT read submits one bio and sleeps until it completes: the
# bios under the disk peak's wait are those of the sleeps a disk interrupt
# ended, one each, not every bio the peak's calls submitted (on a copy: the
# count of stored searches is checked below)
cp "$db" "$tmp/od-at.db"
"$darc" paths "$tmp/od-at.db" --root vfs_read --peak 2 --json | python3 -c '
import json, sys
n = json.load(sys.stdin)[0]["nodes"]
leaf = n[-1]
disk = sum(d["times"] for d in leaf["details"] if "(virtio0-req" in d["what"])
assert disk > 40 and leaf["io"]["bios"] == disk, (leaf["io"], leaf["details"])
# every runner-up has its share of the peak beside its votes
for x in n:
    for r in x["runners_up"]:
        assert abs(r["share"] - r["total_ns"] / n[0]["total_ns"]) < 1e-9, r
' && ok "paths: the bios under a wait are those of the sleeps a bio completion ended" ||
	not_ok "paths: the bios under the disk peak's wait"
# a recording's own kprobe handlers (func.overhead) are no node of any path:
# tracer overhead, shown at f0
over=$(sqlite3 "$db" "SELECT group_concat(name, ',') FROM func WHERE overhead")
"$darc" paths "$tmp/od-at.db" --root vfs_read --json | python3 -c '
import json, sys
over = set(sys.argv[1].split(","))
assert "kprobe_ftrace_handler" in over, over
a = json.load(sys.stdin)
for p in a:
    names = [x["name"] for x in p["nodes"]]
    assert not over & set(names), names
    assert not any(r["name"] in over for x in p["nodes"] for r in x["runners_up"]), p
assert a[0]["nodes"][0]["overhead_share"] > 0, a[0]["nodes"][0]
' "$over" && ok "paths: the tracer's own handlers end no path, shown as tracer overhead" ||
	not_ok "paths: tracer overhead"
"$darc" paths "$db" --root vfs_read --peak 1 --json | python3 -c '
import json, sys
n = json.load(sys.stdin)[0]["nodes"]
names = [x["name"] for x in n]
assert "filemap_read" in names and "iomap_dio_rw" not in names, names
' && ok "paths: the cache peak goes down the page-cache path" || not_ok "paths: the cache peak"
"$darc" paths "$tmp/zr-alone.db" --root vfs_read --range 17-19 --json | python3 -c '
import json, sys
n = json.load(sys.stdin)[0]["nodes"]
assert n[1]["depth"] == 1 and n[1]["kind"] == "irq", n[1]
assert n[1]["name"] == "interrupt __sysvec_apic_timer_interrupt", n[1]["name"]
' && ok "paths: slow zero-byte reads end at the first level in the timer interrupt" ||
	not_ok "paths: the zero-byte reads"
# (a chain of wrappers costs no depth: ext4_file_read_iter, __iomap_dio_rw and
# the scheduler's functions each hold nearly all of their caller's time, so
# depth 2 is blk_io_schedule; below it, its sleep is reported as such, in
# schedule, not as blk_io_schedule's own time)
"$darc" paths "$db" --root vfs_read --peak 2 --maxcount-pct 50 --max-depth 2 >/dev/null
got=$(sqlite3 "$db" "SELECT count(*), count(DISTINCT params), sum(peak = 2) FROM search")
[ "$got" = "5|2|3" ] && ok "searches are stored side by side (5 searches, 2 parameter sets)" ||
	not_ok "table search: $got"
got=$(sqlite3 "$db" "SELECT p.name || ' ' || p.status || coalesce(' ' || f.name, '')
	FROM search_path p LEFT JOIN fnode n ON n.id = p.fnode_id LEFT JOIN func f ON f.id = n.func_id
	WHERE search_id = (SELECT max(id) FROM search) AND status != '' ORDER BY node LIMIT 2")
[ "$got" = "blk_io_schedule maximum depth reached blk_io_schedule"$'\n'"blocked below the depth limit schedule" ] &&
	ok "a replay with --max-depth 2 stops there, its sleep below reported as a sleep in schedule" ||
	not_ok "replay with --max-depth 2: $got"

# 7. On the VM-lab recordings made for these commands (samples/README.md):
#    O_DIRECT + cached preads: two peaks of the read system call, whose ranges
#    hold the calls trace-cmd's own durations put there; two recordings of that
#    workload differ nowhere; 1 vs 2 O_APPEND writers: the write path first;
#    the disk peak's path ends in its blocking wait, the cache peak's in filemap_read.
if [ -f "$samples/vm-preads-v7.dat" ]; then
	for s in vm-preads-v7 vm-preads2-v7 vm-append1-v7 vm-append2-v7; do
		"$darc" analyze -q -o "$tmp/$s.db" "$samples/$s.dat" || not_ok "analyze $s"
	done
	trace-cmd report -R "$samples/vm-preads-v7.dat" 2>/dev/null | python3 -c '
import re, sys, collections
c = collections.Counter()
for line in sys.stdin:
    m = re.search(r"funcgraph_exit: +func=__x64_sys_pread64 .*calltime=([0-9a-f]+) rettime=([0-9a-f]+)", line)
    if m:
        c[max(int(m.group(2), 16) - int(m.group(1), 16), 1).bit_length() - 1] += 1
print(" ".join("%d:%d" % kv for kv in sorted(c.items())))' >"$tmp/preads.tc"
	"$darc" peaks "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 --json | python3 -c '
import json, sys
tc = dict(map(int, kv.split(":")) for kv in open(sys.argv[1]).read().split())
p = json.load(sys.stdin)
assert len(p) == 2, "%d peaks" % len(p)
for q in p:
    want = sum(n for b, n in tc.items() if q["lo"] <= b <= q["hi"])
    assert q["calls"] == want, (q, want)
assert p[0]["hi"] < min(b for b in tc if tc[b] and b > p[0]["hi"]) <= p[1]["lo"], p
assert p[0]["calls"] + p[1]["calls"] == sum(tc.values()) == 400
' "$tmp/preads.tc" && ok "vm-preads: two peaks of pread64, holding the calls of trace-cmd's durations ($(cat "$tmp/preads.tc"))" ||
		not_ok "vm-preads: the peaks of pread64 against trace-cmd ($(cat "$tmp/preads.tc"))"
	"$darc" diff "$tmp/vm-preads-v7.db" "$tmp/vm-preads2-v7.db" >"$tmp/same-work.txt" &&
		grep -q "nothing differs at or above the threshold" "$tmp/same-work.txt" &&
		ok "diff of two recordings of the same workload: nothing above the threshold" ||
		{ not_ok "diff of two recordings of the same workload:"; head -8 "$tmp/same-work.txt"; }
	"$darc" diff "$tmp/vm-append1-v7.db" "$tmp/vm-append2-v7.db" --kind path --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranked"]
assert r[0]["key"].startswith("__x64_sys_write > "), r[0]["key"]
assert "down_write" in r[0]["key"], r[0]["key"]
' && ok "diff of 1 vs 2 writers: the write path (its down_write) first" ||
		not_ok "diff of 1 vs 2 writers: not the write path first"
	"$darc" paths "$tmp/vm-preads-v7.db" --root __x64_sys_pread64 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 2
cache = [n["name"] for n in a[0]["nodes"]]
disk = [n["name"] for n in a[1]["nodes"]]
assert "filemap_read" in cache and "iomap_dio_rw" not in cache, cache
assert "iomap_dio_rw" in disk and disk[-1] == "blocked", disk
assert a[1]["nodes"][-1]["details"][0]["what"].startswith("irq ")
assert "(virtio0-req" in a[1]["nodes"][-1]["details"][0]["what"]
io = a[1]["nodes"][-1]["io"]  # the continuation into the bios that ended the wait
assert io["bios"] == 200 and io["dominant"] == "device", io
# no left shift: every node counts f0's calls in the peak, chosen by f0's range
for p in a:
    assert all(n["calls"] == p["calls"] for n in p["nodes"]), p["calls"]
' && ok "vm-preads paths: cache peak down filemap_read, disk peak down iomap_dio_rw to its wait; every level counts f0's calls of the peak" ||
		not_ok "vm-preads paths"
	"$darc" explain "$tmp/vm-preads-v7.db" --top 1 --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["subjects"]
assert len(s) == 1 and s[0]["func"] == "__x64_sys_pread64" and s[0]["kind"] == "syscall", s
# 200 O_DIRECT preads (the disk) beside 200 cached ones: the disk peak is the
# slow part, the cached one the body, the wait for the disk the first cause
assert s[0]["slow"]["how"] == "peak" and s[0]["slow"]["lo"] > s[0]["body"]["hi"], s[0]["slow"]
assert s[0]["slow"]["calls"] >= 200 and s[0]["body"]["calls"] >= 195, (s[0]["slow"], s[0]["body"])
c = s[0]["causes"][0]
assert c["kind"] == "io" and c["path"][-1] == "[blocked]" and c["sentence"].startswith("pread64(): slow peak"), c
' && ok "explain: the system call first, its disk peak against the cached one, the disk wait its first cause" || not_ok "explain"
	# bios (issue [7]): each of the 200 O_DIRECT preads submitted one bio, in its
	# own call tree, completed in hardirq; no bio without its submission
	got=$(sqlite3 "$tmp/vm-preads-v7.db" "WITH RECURSIVE up(bio, id, parent) AS (
		SELECT b.id, c.id, c.parent_id FROM bio b JOIN call c ON c.id = b.call_id
		UNION ALL SELECT up.bio, c.id, c.parent_id FROM up JOIN call c ON c.id = up.parent)
		SELECT count(DISTINCT up.id) || ' ' || count(*) FROM up JOIN call r ON r.id = up.id
		JOIN func f ON f.id = r.func_id WHERE up.parent IS NULL AND f.name = '__x64_sys_pread64';
		SELECT count(*) || ' ' || sum(complete_ctx = 1) || ' ' || sum(flags) FROM bio")
	[ "$got" = "200 200"$'\n'"200 200 0" ] &&
		ok "vm-preads bios: 200, each submitted in its own pread64, completed in hardirq" ||
		not_ok "vm-preads bios: $got"
	# the kprobe pointers give the same links as the tracepoint keys
	# (vm-fsyncread: plain kprobes on submit_bio and bio_endio with the bio)
	"$darc" analyze -q -o "$tmp/fs.db" "$samples/vm-fsyncread-v7.dat"
	got=$(sqlite3 "$tmp/fs.db" "SELECT count(*) || ' ' || sum((SELECT min(e.t) FROM probe_hit e
		WHERE e.event = 'kprobes:bio_endio' AND json_extract(e.args, '\$.bio') = b.ptr
		AND e.t >= b.t_queue) BETWEEN b.t_complete AND b.t_complete + 1000000) || ' ' ||
		(SELECT count(*) FROM probe_hit WHERE event = 'kprobes:submit_bio')
		FROM bio b WHERE b.ptr IS NOT NULL AND b.t_complete IS NOT NULL")
	set -- $got
	[ $# = 3 ] && [ "$1" -gt 50 ] && [ "$1" = "$2" ] && [ "$1" = "$3" ] &&
		ok "vm-fsyncread: every submit_bio pointer names a bio whose bio_endio comes with its completion ($got)" ||
		not_ok "vm-fsyncread: pointers and keys ($got)"
	# the recording the issue names (kprobes with the bio pointer too): at
	# resolution 3 the pread64 peak that holds the most latency (the disk
	# reads; one slower call of 3.8 ms is a peak of its own, 10% of the
	# latency, as a person sees it) ends in its wait, continued into the bios
	# that ended it, the device stage named; every pread64 adds up
	"$darc" paths "$tmp/fs.db" --root __x64_sys_pread64 --resolution 3 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
last = max(a, key=lambda p: p["nodes"][0]["total_ns"])["nodes"][-1]
assert last["name"] == "blocked" and last["io"]["dominant"] == "device", last
' && ok "vm-fsyncread paths: the disk peak continues into its bios and names the device" ||
		not_ok "vm-fsyncread paths into the bios"
	"$darc" io "$tmp/fs.db" --func __x64_sys_pread64 --top 1000 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 99 and all(r["adds_up"] for r in a), len(a)
assert sum("device" in r["layers"] for r in a) == 51
' && ok "vm-fsyncread io: 99 pread64s add up exactly, the 51 with a bio have a device part" ||
		not_ok "vm-fsyncread io layers"
	# ... and link each bio to the same pread64: the one open when its key was
	# queued (bio.call_id) is the one its submit_bio pointer was seen in
	got=$(sqlite3 "$tmp/fs.db" "WITH RECURSIVE up(start, id, parent) AS (
		SELECT c.id, c.id, c.parent_id FROM call c WHERE c.id IN (SELECT call_id FROM bio
			UNION SELECT call_id FROM probe_hit WHERE event = 'kprobes:submit_bio')
		UNION ALL SELECT up.start, c.id, c.parent_id FROM up JOIN call c ON c.id = up.parent),
		root(start, rid) AS (SELECT start, id FROM up WHERE parent IS NULL)
		SELECT count(*) || ' ' || sum(rb.rid = rp.rid) || ' ' ||
			count(DISTINCT CASE WHEN f.name = '__x64_sys_pread64' THEN rb.rid END)
		FROM bio b JOIN probe_hit p ON p.event = 'kprobes:submit_bio'
			AND json_extract(p.args, '\$.bio') = b.ptr
			AND p.t = (SELECT max(q.t) FROM probe_hit q WHERE q.event = 'kprobes:submit_bio'
				AND json_extract(q.args, '\$.bio') = b.ptr AND q.t <= b.t_queue)
		JOIN root rb ON rb.start = b.call_id JOIN root rp ON rp.start = p.call_id
		JOIN call rc ON rc.id = rb.rid JOIN func f ON f.id = rc.func_id")
	want=$(trace-cmd report -i "$samples/vm-fsyncread-v7.dat" 2>/dev/null | awk '
		/funcgraph_entry:.*__x64_sys_pread64\(\) \{/ { open[$1] = 1; bio[$1] = 0 }
		/block_bio_queue:/ && open[$1] && !bio[$1] { bio[$1] = 1; n++ }
		/funcgraph_exit:.*__x64_sys_pread64/ { open[$1] = 0 }
		END { print n }')
	set -- $got
	[ $# = 3 ] && [ "$1" = "$2" ] && [ "$3" = "$want" ] &&
		ok "vm-fsyncread: keys and pointers link each bio to the same pread64 ($1 bios, $3 preads as trace-cmd)" ||
		not_ok "vm-fsyncread: bio to pread64 links ($got; trace-cmd: $want preads with a bio)"
	# wake-up chains: the workload's fsyncs wait on the journal thread, whose
	# own wait just before was for its bios (two levels, the right categories)
	pid=$(sqlite3 "$tmp/fs.db" "SELECT tid FROM task WHERE comm = 'vm-workload'")
	"$darc" waits "$tmp/fs.db" --task "$pid" --top 3 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 3
for w in a:
    assert w["category"] == "waiting on another task", w
    assert w["waker_comm"].startswith("jbd2"), w
    b = w["behind"]
    assert b["comm"].startswith("jbd2") and b["category"] == "blocking I/O", b
' && ok "vm-fsyncread waits: fsync waits on jbd2, whose wait behind it was blocking I/O" ||
		not_ok "vm-fsyncread waits"
	# layers (ReLayTracer): every pread64 split into layers adding up to its
	# latency to the nanosecond; the 200 disk reads have a device part
	"$darc" io "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 --top 1000 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 400 and all(r["adds_up"] and r["layers_sum_ns"] == r["incl_ns"] for r in a)
assert sum("device" in r["layers"] for r in a) == 200
' && ok "vm-preads io: 400 requests, each one's layers add up exactly; 200 with a device part" ||
		not_ok "vm-preads io layers"
	got=$(sqlite3 "$tmp/vm-preads-v7.db" "SELECT count(*) || ' ' || sum(s = incl_ns) FROM
		(SELECT c.incl_ns, sum(l.ns) AS s FROM io_layer l JOIN call c ON c.id = l.call_id
		GROUP BY l.call_id)")
	[ "$got" = "400 400" ] && ok "io_layer: the 400 requests stored, each adding up" ||
		not_ok "io_layer: $got"
	# a layer map of the user's comes first: '*' to block takes all CPU time
	printf '# everything\n*   block  \n' >"$tmp/layers.txt"
	"$darc" io "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 --top 3 --json >"$tmp/l0.json"
	"$darc" io "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 --top 3 --json \
		--layers "$tmp/layers.txt" | python3 -c '
import json, sys
cpu = ("vfs", "fs", "page cache", "copy", "block", "driver", "scheduler", "other")
a, d = json.load(sys.stdin), json.load(open(sys.argv[1]))
for r, r0 in zip(a, d):
    assert r["adds_up"] and set(r["layers"]) & set(cpu) == {"block"}, r
    assert r["layers"]["block"] == sum(r0["layers"].get(k, 0) for k in cpu), (r, r0)
' "$tmp/l0.json" && ok "io --layers: a map of the user's comes first ('*' block takes all CPU time)" ||
		not_ok "io --layers"
	printf 'ext4_* disk\n' >"$tmp/bad-layers.txt"
	got=$("$darc" io "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 \
		--layers "$tmp/bad-layers.txt" 2>&1)
	[ $? = 2 ] && [[ $got == *bad-layers.txt*"line 1"* ]] && ok "io --layers: a bad line named" ||
		not_ok "io --layers bad line: $got"
	# biolatency-style histograms: the device stage, once per request, bucket
	# for bucket as trace-cmd's own block_rq_issue -> block_rq_complete pairs
	for d in vm-preads-v7 fs; do
		rec=$samples/${d/#fs/vm-fsyncread-v7}.dat
		"$darc" io "$tmp/$d.db" --bios --json >"$tmp/bios.json" &&
			got=$(python3 "$here/bio-vs-trace-cmd.py" "$rec" "$tmp/bios.json") &&
			ok "io --bios $d: device stage as trace-cmd's requests ($got)" ||
			not_ok "io --bios $d: $got"
	done
	# 'timed out' waits are exactly those ended by a wake-up inside trace-cmd's
	# TIMER/HRTIMER softirq (not merely in an interrupt episode that ran one)
	for d in vm-preads-v7 fs; do
		rec=$samples/${d/#fs/vm-fsyncread-v7}.dat
		got=$(python3 "$here/timer-vs-trace-cmd.py" "$rec" "$tmp/$d.db") &&
			ok "wait 'timed out' $d: as trace-cmd's timer softirqs ($got)" ||
			not_ok "wait 'timed out' $d: $got"
	done
	# a wake-up chain two levels deep (vm-chain: A reads a pipe B writes
	# after reading a pipe C writes after each 2 ms nanosleep): A's waits
	# are behind B's, which are behind C's, which time out; C's timer
	# wake-ups are those trace-cmd shows in the local timer interrupt
	"$darc" analyze -q -o "$tmp/chain.db" "$samples/vm-chain-v7.dat"
	a=$(sqlite3 "$tmp/chain.db" "SELECT min(tid) FROM task WHERE comm = 'vm-workload'")
	"$darc" waits "$tmp/chain.db" --task "$a" --top 1000 --json | python3 -c '
import json, sys
a, first = json.load(sys.stdin), int(sys.argv[1])
def chain(w):
    out = []
    while w:
        out.append((w["task"] - first, w["category"], w.get("waker", 0) - first))
        w = w.get("behind")
    return out
full = [w for w in a if chain(w) == [(0, "waiting on another task", 1),
        (1, "waiting on another task", 2), (2, "timed out", -first)]]
assert all(w["category"] == "waiting on another task" for w in a
           if w["category"] != "preempted"), a  # the last one: waitpid, ended by C
assert len(full) >= 90, (len(full), [chain(w) for w in a][:5])
print(len(full))' "$a" >"$tmp/chain.out" &&
		ok "vm-chain waits: A behind B behind C, C timed out ($(cat "$tmp/chain.out") of 100 rounds)" ||
		not_ok "vm-chain waits: $(cat "$tmp/chain.out")"
	# --slack: a link is the waker's wait ended at most that long before;
	# B runs for more than a microsecond before it writes, so 1us links nothing
	n=$("$darc" waits "$tmp/chain.db" --task "$a" --top 1000 --slack 1us --json |
		python3 -c 'import json, sys; print(sum("behind" in w for w in json.load(sys.stdin)))')
	[ "$n" = 0 ] && ok "waits --slack 1us: no chains" || not_ok "waits --slack 1us: $n chains"
	got=$(python3 "$here/timer-vs-trace-cmd.py" "$samples/vm-chain-v7.dat" "$tmp/chain.db") &&
		ok "wait 'timed out' vm-chain: as trace-cmd's local timer interrupts ($got)" ||
		not_ok "wait 'timed out' vm-chain: $got"
	# the per-thread interrupt table accounts for every interrupt interval
	got=$("$darc" io "$tmp/fs.db" --irqs --top 1000 --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
print(sum(r["count"] for r in a), sum(r["total_ns"] for r in a))')
	want=$(sqlite3 "$tmp/fs.db" "SELECT count(*) || ' ' || sum(t_end - t_start) FROM irq_interval
		WHERE t_end IS NOT NULL")
	[ -n "$got" ] && [ "$got" = "$want" ] && ok "io --irqs: every interrupt interval, per thread ($got)" ||
		not_ok "io --irqs: $got, want $want"
	# at a finer resolution, a search takes exactly the calls of each peak
	"$darc" peaks "$tmp/vm-preads-v7.db" --func __x64_sys_pread64 --resolution 3 --json \
		>"$tmp/p3.json"
	"$darc" paths "$tmp/vm-preads-v7.db" --root __x64_sys_pread64 --resolution 3 --json |
		python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
a = json.load(sys.stdin)
assert [(x["lo"], x["hi"], x["calls"]) for x in a] == [(x["lo"], x["hi"], x["calls"]) for x in p], (a, p)
' "$tmp/p3.json" && ok "paths at resolution 3 search exactly each peak's calls" ||
		not_ok "paths at resolution 3"
	# a CPU-bound system call beside a CPU hog (preempt=full): its slow peak
	# ends at the first level in preemption; stat() of a deep path in the walk
	cp "$samples/vm-getrandom-v7.dat" "$samples/vm-stat-v7.dat" "$tmp/"
	"$darc" paths "$tmp/vm-getrandom-v7.dat" --root __x64_sys_getrandom --json \
		2>/dev/null | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 2, len(a)
slow = a[-1]["nodes"]
assert slow[1]["depth"] == 1 and slow[1]["kind"] == "preemption", slow[1]
assert slow[1]["status"] == "root cause found"
assert a[0]["nodes"][-1]["kind"] == "self", a[0]["nodes"][-1]
' && ok "vm-getrandom: the slow peak ends at the first level in preemption" ||
		not_ok "vm-getrandom paths"
	# the preempted calls name the task that ran meanwhile: the CPU hog, a
	# task of its own (forked), not the caller, for nearly all of that time
	caller=$(sqlite3 "$tmp/vm-getrandom-v7.db" "SELECT DISTINCT c.task_id FROM call c
		JOIN func f ON f.id = c.func_id WHERE f.name = '__x64_sys_getrandom'")
	"$darc" paths "$tmp/vm-getrandom-v7.db" --root __x64_sys_getrandom --peak 2 --json |
		python3 -c '
import json, sys
pre = json.load(sys.stdin)[0]["nodes"][1]
ran = [d for d in pre["details"] if d["role"] == "ran instead"]
assert ran and ran[0]["what"].startswith("vm-workload ["), pre["details"]
assert ran[0]["what"] != "vm-workload [%s]" % sys.argv[1], (ran, sys.argv[1])
assert ran[0]["ns"] >= 0.9 * pre["total_ns"], (ran[0], pre["total_ns"])
' "$caller" && ok "vm-getrandom: preemption names the task that ran instead (the hog)" ||
		not_ok "vm-getrandom: who ran instead"
	"$darc" paths "$tmp/vm-stat-v7.dat" --root __x64_sys_newfstatat --json \
		2>/dev/null | python3 -c '
import json, sys
n = json.load(sys.stdin)[0]["nodes"]
names = [x["name"] for x in n]
assert any(x.startswith("link_path_walk") for x in names), names
assert names[-1] == "self" and names[-2].startswith("link_path_walk"), names
' && ok "vm-stat: stat() of a deep path ends in the path walk (link_path_walk)" ||
		not_ok "vm-stat paths"
else
	echo "note: no vm-preads sample: the profile checks on VM-lab recordings are not run"
fi

# 7b. who ended a sleep, on an ftrace text made here: 8 calls of slow() by
#    task sl-77 sleep 2 ms while git-1764 runs on the CPU; the even ones end
#    in a hard interrupt no event names (a timer's expiry, say, but the text
#    has no event that tells), the odd ones by the disk's irq 25. Each is
#    named as what the recording shows, never guessed to be the timer, and
#    never as git, the task the interrupt happened to hit.
python3 - "$tmp/wake.txt" <<'PY'
import sys
lines, t = [b"cpus=2"], 5.0
def line(comm, pid, flags, ev, rest, dt=1e-6):
    global t
    lines.append(b"  %s-%d    [001] %s  %.6f: %s: %s" % (comm, pid, flags, t, ev, rest))
    t += dt
for i in range(8):
    line(b"sl", 77, b"....", b"funcgraph_entry", b"                  |  slow() {")
    line(b"sl", 77, b"d...", b"sched_switch", b"prev_comm=sl prev_pid=77 prev_prio=120 "
         b"prev_state=S ==> next_comm=git next_pid=1764 next_prio=120", 2e-3)
    if i % 2:
        line(b"git", 1764, b"d.h.", b"irq_handler_entry", b"irq=25 name=virtio0-requests")
    line(b"git", 1764, b"d.h.", b"sched_wakeup", b"comm=sl pid=77 prio=120 target_cpu=001")
    if i % 2:
        line(b"git", 1764, b"d.h.", b"irq_handler_exit", b"irq=25 ret=handled")
    line(b"git", 1764, b"d...", b"sched_switch", b"prev_comm=git prev_pid=1764 prev_prio=120 "
         b"prev_state=R ==> next_comm=sl next_pid=77 next_prio=120")
    line(b"sl", 77, b"....", b"funcgraph_exit", b"! 2010.000 us |  }", 1e-3)
open(sys.argv[1], "wb").write(b"\n".join(lines) + b"\n")
PY
"$darc" paths "$tmp/wake.txt" --func slow --json 2>/dev/null | python3 -c '
import json, sys
leaf = json.load(sys.stdin)[0]["nodes"][-1]
got = sorted((d["role"], d["what"], d["times"]) for d in leaf["details"])
assert leaf["kind"] == "blocked", leaf
assert got == [("woken by", "an interrupt the recording does not name", 4),
               ("woken by", "irq 25 (virtio0-requests)", 4)], got
' && ok "paths: a device interrupt named as itself, an unnamed one as unnamed, neither as the task it hit" ||
	not_ok "paths: who ended a sleep"

# 8. mistakes: exit 2, one line naming the problem
bad() {
	local what=$1
	shift
	"$darc" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$what" "$tmp/err" &&
		ok "darc $*: exit 2, '$what'" ||
		{ not_ok "darc $*: exit $rc:"; head -3 "$tmp/err"; }
}
bad "no function 'nope'" hist "$db" --func nope
bad "say which calls" hist "$db"
bad "each choose the calls" peaks "$db" --func a --fnode 2
bad "no fnode 999999" peaks "$db" --fnode 999999
bad "no call path 'x > y'" hist "$db" --path 'x>y'
bad "bad --resolution '7': 1, 2, 3 or 4" hist "$db" --func vfs_read --resolution 7
bad "bad --interval" hist "$db" --func vfs_read --interval soon
bad "not a trace.dat, perf.data or ftrace text file" hist "$samples/README.md" --func vfs_read
echo hello >"$tmp/x.db"
bad "too short for a recording" hist "$tmp/x.db" --func vfs_read
cp "$samples/vm-zeroread-v7.dat" "$tmp/x.dat"
bad "exists and is not a darc database" hist "$tmp/x.dat" --func vfs_read
bad "cpu-mhz" hist "$db" --func vfs_read --unit cycles
bad "bad --method 'fast'" diff "$db" "$db" --method fast
bad "No such file" diff "$db" "$tmp/none.db"
bad "has 2 peaks, not 3" paths "$db" --root vfs_read --peak 3
bad "bad --mode 'half'" paths "$db" --root vfs_read --mode half
echo "$pass passed, $fail failed"
[ $fail = 0 ]
