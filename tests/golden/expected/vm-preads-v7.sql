-- Facts about samples/vm-preads-v7.dat, checked by tests/golden/check-analyze.sh
-- against vm-preads-v7.sql.out. The recording: function_graph rooted at
-- __x64_sys_pread64 (depth 6), 200 O_DIRECT 4 KiB preads of a cold file (disk
-- reads) alternating with 200 buffered 4 KiB preads of a cached file. pread64's
-- latency histogram has two peaks: cache hits (2^15 ns) and disk reads (2^18 ns).
-- The log2 buckets are computed here from incl_ns with a table of powers of two
-- (no log2(): not every SQLite has the math functions).

-- every pread64 call is a root, complete
SELECT count(*) AS pread64_calls, sum(c.parent_id IS NULL) AS roots,
	sum(c.flags & 3 != 0) AS incomplete
FROM call c JOIN func f ON f.id = c.func_id WHERE f.name = '__x64_sys_pread64';

-- the log2 histogram of pread64's incl_ns (bucket b: 2^b <= incl_ns < 2^(b+1)),
-- split into O_DIRECT reads (iomap_dio_rw under ext4_file_read_iter under
-- vfs_read) and the others (the cached reads)
WITH RECURSIVE pow(k, p) AS (SELECT 0, 1 UNION ALL SELECT k + 1, p * 2 FROM pow WHERE k < 40),
pread AS (SELECT c.id, c.incl_ns FROM call c JOIN func f ON f.id = c.func_id
	  WHERE f.name = '__x64_sys_pread64'),
dio AS (SELECT DISTINCT r.id FROM call d JOIN func f ON f.id = d.func_id
	JOIN call e ON e.id = d.parent_id JOIN call v ON v.id = e.parent_id
	JOIN call r ON r.id = v.parent_id
	WHERE f.name = 'iomap_dio_rw'),
b AS (SELECT (SELECT max(k) FROM pow WHERE p <= pread.incl_ns) AS bucket,
	     pread.id IN dio AS odirect
      FROM pread)
SELECT bucket, count(*) AS calls, sum(odirect) AS odirect, sum(NOT odirect) AS cached
FROM b GROUP BY bucket ORDER BY bucket;

-- each group's extremes (the first calls of the run are slow, probably because code
-- run for the first time is translated by qemu TCG then)
WITH pread AS (SELECT c.id, c.incl_ns FROM call c JOIN func f ON f.id = c.func_id
	       WHERE f.name = '__x64_sys_pread64'),
dio AS (SELECT DISTINCT r.id FROM call d JOIN func f ON f.id = d.func_id
	JOIN call e ON e.id = d.parent_id JOIN call v ON v.id = e.parent_id
	JOIN call r ON r.id = v.parent_id
	WHERE f.name = 'iomap_dio_rw')
SELECT sum(id IN dio) AS odirect_calls, sum(id NOT IN dio) AS cached_calls,
	max(CASE WHEN id NOT IN dio THEN incl_ns END) AS cached_max_ns,
	min(CASE WHEN id IN dio THEN incl_ns END) AS odirect_min_ns
FROM pread;

-- darc's own histogram (hist: func owner, incl_ns, 1 bucket per octave) is the same
WITH RECURSIVE pow(k, p) AS (SELECT 0, 1 UNION ALL SELECT k + 1, p * 2 FROM pow WHERE k < 40),
mine AS (SELECT (SELECT max(k) FROM pow WHERE p <= c.incl_ns) AS bucket, count(*) AS n
	 FROM call c JOIN func f ON f.id = c.func_id
	 WHERE f.name = '__x64_sys_pread64' GROUP BY 1),
darc AS (SELECT h.bucket, h.count AS n FROM hist h JOIN func f ON f.id = h.owner_id
	 WHERE h.owner_kind = 0 AND h.metric = 0 AND h.resolution = 1
	   AND f.name = '__x64_sys_pread64')
SELECT (SELECT count(*) FROM (SELECT * FROM mine EXCEPT SELECT * FROM darc))
     + (SELECT count(*) FROM (SELECT * FROM darc EXCEPT SELECT * FROM mine)) AS buckets_differing;

-- the workload sleeps inside pread64 only in O_DIRECT reads (waiting for the disk)
WITH dio AS (SELECT DISTINCT r.id FROM call d JOIN func f ON f.id = d.func_id
	JOIN call e ON e.id = d.parent_id JOIN call v ON v.id = e.parent_id
	JOIN call r ON r.id = v.parent_id
	WHERE f.name = 'iomap_dio_rw'),
root AS (SELECT c.id, c.task_id, c.t_entry, c.t_exit, c.id IN dio AS odirect
	 FROM call c JOIN func f ON f.id = c.func_id WHERE f.name = '__x64_sys_pread64')
SELECT count(*) AS blocked_in_pread64, count(DISTINCT r.id) AS reads_that_slept,
	sum(r.odirect) AS in_odirect_reads
FROM sched_interval s JOIN task t ON t.tid = s.task_id
JOIN root r ON r.task_id = s.task_id AND r.t_entry <= s.t_out AND s.t_out < r.t_exit
WHERE s.kind = 1 AND t.comm = 'vm-workload';
