-- Facts about samples/vm-append2-v7.dat, checked by tests/golden/check-analyze.sh
-- against vm-append2-v7.sql.out. The recording: function_graph rooted at
-- __x64_sys_write (depth 6), -F -c (the workload and its forked writers
-- only); two writers, pinned to CPU 0 and 1 (multi-threaded TCG: the vCPUs
-- run in parallel), each append 300 x 4 KiB to the same O_APPEND file on ext4.
-- Compared with vm-append1-v7.sql, down_write (the inode lock, i_rwsem, taken
-- by ext4_buffered_write_iter) has a second peak (contended, 2^15..2^18 ns)
-- and most writes moved up one bucket.
-- The log2 buckets are computed from incl_ns with a table of powers of two.

-- write calls per writer task: all roots, complete, all to the file (ext4)
SELECT t.comm, count(*) AS write_calls, sum(c.parent_id IS NULL) AS roots,
	sum(c.flags & 3 != 0) AS incomplete,
	sum(EXISTS (SELECT 1 FROM call_base u
		    JOIN call_base v ON v.id BETWEEN u.id + 1 AND u.last_id AND v.parent_id = u.id
		    JOIN call_base e ON e.id BETWEEN v.id + 1 AND v.last_id AND e.parent_id = v.id
		    JOIN fnode en ON en.id = e.fnode_id JOIN func g ON g.id = en.func_id
		    WHERE u.id BETWEEN c.id + 1 AND c.last_id AND u.parent_id = c.id
		      AND g.name = 'ext4_file_write_iter')) AS ext4_writes
FROM call c JOIN func f ON f.id = c.func_id JOIN task t ON t.tid = c.task_id
WHERE f.name = '__x64_sys_write'
GROUP BY c.task_id ORDER BY c.task_id;

-- log2 histograms of incl_ns (bucket b: 2^b <= ns < 2^(b+1)): the write
-- system call, and down_write under ext4_buffered_write_iter
WITH RECURSIVE pow(k, p) AS (SELECT 0, 1 UNION ALL SELECT k + 1, p * 2 FROM pow WHERE k < 40),
b AS (SELECT f.name, (SELECT max(k) FROM pow WHERE p <= c.incl_ns) AS bucket
      FROM call c JOIN func f ON f.id = c.func_id
      WHERE f.name IN ('__x64_sys_write', 'down_write') AND c.incl_ns IS NOT NULL)
SELECT bucket, sum(name = '__x64_sys_write') AS write_calls,
	sum(name = 'down_write') AS down_write_calls
FROM b GROUP BY bucket ORDER BY bucket;

-- down_write calls of 8 us or more (2^13 ns: contended), per writer
SELECT t.comm, c.task_id = (SELECT min(task_id) FROM call x JOIN func g ON g.id = x.func_id
			    WHERE g.name = '__x64_sys_write') AS first_writer,
	count(*) AS down_write_calls, sum(c.incl_ns >= 8192) AS slow,
	sum(CASE WHEN c.incl_ns >= 8192 THEN c.incl_ns END) AS slow_ns
FROM call c JOIN func f ON f.id = c.func_id JOIN task t ON t.tid = c.task_id
WHERE f.name = 'down_write'
GROUP BY c.task_id ORDER BY c.task_id;

-- darc's own histograms (hist: func owner, incl_ns, 1 bucket per octave) are the same
WITH RECURSIVE pow(k, p) AS (SELECT 0, 1 UNION ALL SELECT k + 1, p * 2 FROM pow WHERE k < 40),
mine AS (SELECT f.name, (SELECT max(k) FROM pow WHERE p <= c.incl_ns) AS bucket, count(*) AS n
	 FROM call c JOIN func f ON f.id = c.func_id
	 WHERE f.name IN ('__x64_sys_write', 'down_write') AND c.incl_ns IS NOT NULL
	 GROUP BY 1, 2),
darc AS (SELECT f.name, h.bucket, h.count AS n FROM hist h JOIN func f ON f.id = h.owner_id
	 WHERE h.owner_kind = 0 AND h.metric = 0 AND h.resolution = 1
	   AND f.name IN ('__x64_sys_write', 'down_write'))
SELECT (SELECT count(*) FROM (SELECT * FROM mine EXCEPT SELECT * FROM darc))
     + (SELECT count(*) FROM (SELECT * FROM darc EXCEPT SELECT * FROM mine)) AS buckets_differing;
