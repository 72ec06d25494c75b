-- Facts about samples/vm-fsyncread-v7.dat, checked by tests/golden/check-analyze.sh
-- against vm-fsyncread-v7.sql.out. The recording: function_graph rooted at
-- __x64_sys_pread64 (99 calls: 48 O_DIRECT, 48 cached, 3 buffered cold), plain
-- kprobes on submit_bio and bio_endio with no return probe (issue [4]: such a
-- hit must not open a call, or every pread64 after it becomes its child).

-- every pread64 call is a root, complete
SELECT count(*) AS pread64_calls, sum(c.parent_id IS NULL) AS roots,
	sum(c.flags & 3 != 0) AS incomplete
FROM call c JOIN func f ON f.id = c.func_id WHERE f.name = '__x64_sys_pread64';

-- the roots in task context are the graph's root only (the others ran in irq context)
SELECT f.name, count(*) AS roots
FROM call c JOIN func f ON f.id = c.func_id
WHERE c.parent_id IS NULL AND c.flags & 56 = 0
GROUP BY f.name ORDER BY f.name;

-- every probe hit is a point; the workload's own submissions before its
-- first pread64 (its writes and fsyncs) are in no call
SELECT p.event, p.role, count(*) AS hits, sum(p.call_id IS NULL) AS outside_calls,
	sum(p.t < (SELECT min(t_entry) FROM call c JOIN func f ON f.id = c.func_id
		   WHERE f.name = '__x64_sys_pread64') AND t.comm = 'vm-workload') AS workload_before_reads
FROM probe_hit p JOIN task t ON t.tid = p.task_id
GROUP BY p.event, p.role ORDER BY p.event;

-- submissions inside the reads, by the function that called submit_bio
SELECT pf.name AS caller, count(*) AS submit_bio_hits
FROM probe_hit p JOIN call c ON c.id = p.call_id JOIN call pc ON pc.id = c.parent_id
JOIN func pf ON pf.id = pc.func_id
WHERE p.event = 'kprobes:submit_bio'
GROUP BY pf.name ORDER BY pf.name;

-- each bio submitted by the workload completes (bio_endio with the same pointer after it)
SELECT count(*) AS workload_bios,
	sum(EXISTS (SELECT 1 FROM probe_hit e WHERE e.event = 'kprobes:bio_endio' AND e.t > s.t
		    AND json_extract(e.args, '$.bio') = json_extract(s.args, '$.bio'))) AS completed
FROM probe_hit s JOIN task t ON t.tid = s.task_id
WHERE s.event = 'kprobes:submit_bio' AND t.comm = 'vm-workload';
