-- SPDX-License-Identifier: MIT
-- darc schema: the views, for the common questions. Each one is documented in
-- schema/README.md with an example query and its rows, which tests/sql checks.

-- Every fnode with its call path, function names from the root down:
-- 'read > vfs_read > ext4_file_read_iter'.
CREATE VIEW fnode_path AS
WITH RECURSIVE p(id, parent_id, func_id, func, depth, path) AS (
	SELECT n.id, n.parent_id, n.func_id, f.name, n.depth, f.name
	FROM fnode n JOIN func f ON f.id = n.func_id
	WHERE n.parent_id IS NULL
	UNION ALL
	SELECT n.id, n.parent_id, n.func_id, f.name, n.depth, p.path || ' > ' || f.name
	FROM p JOIN fnode n ON n.parent_id = p.id JOIN func f ON f.id = n.func_id
)
SELECT id, parent_id, func_id, func, depth, path FROM p;

-- Every call with its function's name, its task's comm, its fnode's path and
-- its flags by name ('no_exit|gap'; NULL when none).
CREATE VIEW call_path AS
SELECT c.id, c.task_id, t.comm, c.func_id, f.name AS func, c.fnode_id, p.path,
	c.parent_id, c.interrupted_id, c.depth, c.cpu, c.t_entry, c.t_exit,
	c.incl_ns, c.excl_ns, c.children_ns, c.irq_ns, c.softirq_ns, c.preempt_ns, c.blocked_ns,
	c.flags, (SELECT group_concat(name, '|') FROM call_flag WHERE c.flags & bit) AS flag_names
FROM call c
JOIN func f ON f.id = c.func_id
LEFT JOIN task t ON t.tid = c.task_id
LEFT JOIN fnode_path p ON p.id = c.fnode_id;

-- The complete calls of every function, slowest first, with their path and
-- their decomposition. Ask for one function: WHERE func = 'vfs_read' LIMIT 10
-- (with --indexes, index call_fnode finds its calls).
CREATE VIEW slowest_calls AS
SELECT f.name AS func, c.id, c.task_id, c.cpu, c.t_entry, c.incl_ns, c.excl_ns,
	c.children_ns, c.irq_ns, c.softirq_ns, c.preempt_ns, c.blocked_ns, c.flags, p.path
FROM func f
JOIN call c ON c.func_id = f.id
LEFT JOIN fnode_path p ON p.id = c.fnode_id
WHERE c.incl_ns IS NOT NULL
ORDER BY f.name, c.incl_ns DESC, c.id;

-- The calls that returned an error code (-4095..-1: a system call's return,
-- or a kernel function's under funcgraph-retval), with the code's name.
CREATE VIEW call_error AS
SELECT c.id, c.task_id, f.name AS func, k.name AS kind, c.retval,
	'-' || coalesce(e.name, -c.retval) AS error, c.t_entry, c.incl_ns
FROM call_base c
JOIN fnode n ON n.id = c.fnode_id
JOIN func f ON f.id = n.func_id
LEFT JOIN func_kind k ON k.kind = f.kind
LEFT JOIN errno_name e ON e.code = -c.retval
WHERE c.retval BETWEEN -4095 AND -1
ORDER BY c.id;

-- The fnodes by total inclusive time, with their path and decomposition.
CREATE VIEW hot_paths AS
SELECT n.id AS fnode_id, p.path, p.func, n.depth, n.calls, n.incomplete, n.incl_ns,
	n.excl_ns, n.children_ns, n.irq_ns, n.softirq_ns, n.preempt_ns, n.blocked_ns,
	n.max_ns, n.p50_ns, n.p90_ns, n.p99_ns, n.p999_ns
FROM fnode n
JOIN fnode_path p ON p.id = n.id
ORDER BY n.incl_ns DESC, n.id;

-- Per function, over its complete calls (incomplete ones are only counted):
-- calls, totals, means (integer ns, rounded down) and maxima of incl_ns and
-- excl_ns, and where the rest of the time went; NULL sums and means for a
-- function with no complete call. A recursive function's nested calls count
-- at every level, as in OSprof. Summed from the ftree (fnode), so it is
-- quick on any recording and counts calls darc analyze --max-depth did not
-- store; the exact quantiles of incl_ns (p50, p90, p99, p99.9) are func's.
CREATE VIEW func_summary AS
SELECT f.id AS func_id, f.name AS func, k.name AS kind, s.calls, s.incomplete,
	s.total_incl_ns, s.total_incl_ns / s.calls AS mean_incl_ns, s.max_incl_ns,
	s.total_excl_ns, s.total_excl_ns / s.calls AS mean_excl_ns, s.max_excl_ns,
	s.children_ns, s.irq_ns, s.softirq_ns, s.preempt_ns, s.blocked_ns,
	f.p50_ns, f.p90_ns, f.p99_ns, f.p999_ns
FROM (SELECT func_id, sum(calls) AS calls, sum(incomplete) AS incomplete,
		CASE WHEN sum(calls) > 0 THEN sum(incl_ns) END AS total_incl_ns,
		CASE WHEN sum(calls) > 0 THEN max(max_ns) END AS max_incl_ns,
		CASE WHEN sum(calls) > 0 THEN sum(excl_ns) END AS total_excl_ns,
		CASE WHEN sum(calls) > 0 THEN max(max_excl_ns) END AS max_excl_ns,
		CASE WHEN sum(calls) > 0 THEN sum(children_ns) END AS children_ns,
		CASE WHEN sum(calls) > 0 THEN sum(irq_ns) END AS irq_ns,
		CASE WHEN sum(calls) > 0 THEN sum(softirq_ns) END AS softirq_ns,
		CASE WHEN sum(calls) > 0 THEN sum(preempt_ns) END AS preempt_ns,
		CASE WHEN sum(calls) > 0 THEN sum(blocked_ns) END AS blocked_ns
	FROM fnode GROUP BY func_id) s
JOIN func f ON f.id = s.func_id
LEFT JOIN func_kind k ON k.kind = f.kind
ORDER BY s.total_incl_ns DESC, f.id;

-- Every off-CPU interval with the call it interrupted and, for a blocked one,
-- who woke the task: tid, comm, context, CPU and innermost call.
CREATE VIEW off_cpu AS
SELECT s.id, s.task_id, t.comm, k.name AS kind, s.state, s.cpu_out, s.cpu_in,
	s.t_out, s.t_in, s.t_in - s.t_out AS ns, s.call_id, f.name AS func,
	w.waker_tid, wt.comm AS waker_comm, x.name AS waker_ctx, w.waker_cpu,
	wf.name AS waker_func
FROM sched_interval s
LEFT JOIN task t ON t.tid = s.task_id
LEFT JOIN sched_kind k ON k.kind = s.kind
LEFT JOIN call c ON c.id = s.call_id
LEFT JOIN func f ON f.id = c.func_id
LEFT JOIN wakeup w ON w.id = s.wakeup_id
LEFT JOIN task wt ON wt.tid = w.waker_tid
LEFT JOIN wakeup_ctx x ON x.ctx = w.ctx
LEFT JOIN call wc ON wc.id = w.waker_call_id
LEFT JOIN func wf ON wf.id = wc.func_id;

-- Interrupt time per handler: how often, how long in total and at most, and
-- how many of the intervals interrupted a call.
CREATE VIEW irq_summary AS
SELECT k.name AS kind, i.irq, i.name, count(*) AS count,
	sum(i.t_end - i.t_start) AS total_ns, max(i.t_end - i.t_start) AS max_ns,
	count(i.call_id) AS in_calls
FROM irq_interval i
LEFT JOIN irq_kind k ON k.kind = i.kind
GROUP BY i.kind, i.irq, i.name
ORDER BY total_ns DESC, i.kind, i.irq, i.name;

-- The histogram buckets with their bounds: the integer latencies ns in the
-- bucket are lo_ns <= ns < hi_ns (bucket 0 holds ns = 0 too).
CREATE VIEW hist_range AS
WITH step(resolution, step, factor) AS (VALUES
	(1, 0, 1.0),
	(2, 0, 1.0), (2, 1, 1.4142135623730951),
	(3, 0, 1.0), (3, 1, 1.2599210498948732), (3, 2, 1.5874010519681994),
	(4, 0, 1.0), (4, 1, 1.189207115002721), (4, 2, 1.4142135623730951),
	(4, 3, 1.681792830507429)),
b AS (
	SELECT h.*, (1 << (h.bucket / h.resolution)) * lo.factor AS lo,
		(1 << ((h.bucket + 1) / h.resolution)) * hi.factor AS hi
	FROM hist h
	JOIN step lo ON lo.resolution = h.resolution AND lo.step = h.bucket % h.resolution
	JOIN step hi ON hi.resolution = h.resolution AND hi.step = (h.bucket + 1) % h.resolution)
SELECT o.name AS owner, b.owner_id, m.name AS metric, b.resolution, b.bucket,
	CAST(b.lo AS INTEGER) + (b.lo > CAST(b.lo AS INTEGER)) AS lo_ns,
	CAST(b.hi AS INTEGER) + (b.hi > CAST(b.hi AS INTEGER)) AS hi_ns,
	b.count
FROM b
LEFT JOIN hist_owner o ON o.owner_kind = b.owner_kind
LEFT JOIN hist_metric m ON m.metric = b.metric;

-- Checks. Each must return no rows on a database darc wrote.

-- Complete calls whose parts do not add up: incl_ns != excl_ns + children_ns +
-- irq_ns + softirq_ns + preempt_ns + blocked_ns (a part NULL or negative
-- counts as a violation too).
CREATE VIEW identity_violations AS
SELECT id, func_id, incl_ns,
	excl_ns + children_ns + irq_ns + softirq_ns + preempt_ns + blocked_ns AS parts_ns,
	excl_ns, children_ns, irq_ns, softirq_ns, preempt_ns, blocked_ns
FROM call
WHERE incl_ns IS NOT NULL
	AND (incl_ns IS NOT excl_ns + children_ns + irq_ns + softirq_ns + preempt_ns + blocked_ns
	     OR min(excl_ns, children_ns, irq_ns, softirq_ns, preempt_ns, blocked_ns) < 0);

-- Complete calls whose children_ns is not the sum of their children's incl_ns
-- (a child of unknown incl_ns in a complete call is a violation too). Calls
-- flagged gap or clamped are not checked: events were lost while they were
-- open (a child's time may be unknown, or have come after them), or time ran
-- backwards and their parts were trimmed to fit.
CREATE VIEW children_violations AS
SELECT c.id, c.func_id, c.children_ns, coalesce(s.incl_ns, 0) AS children_sum_ns, s.unknown
FROM call c
LEFT JOIN (SELECT parent_id, sum(incl_ns) AS incl_ns, count(*) - count(incl_ns) AS unknown
	   FROM call WHERE parent_id IS NOT NULL GROUP BY parent_id) s ON s.parent_id = c.id
WHERE c.incl_ns IS NOT NULL AND c.flags & 68 = 0
	AND (c.children_ns IS NOT coalesce(s.incl_ns, 0) OR coalesce(s.unknown, 0) > 0);

-- Calls outside their parent's range of ids (call_base.last_id), or whose
-- range does not hold their own id.
CREATE VIEW subtree_violations AS
SELECT c.id, c.parent_id, c.last_id, p.id + 1 AS range_first, p.last_id AS range_last
FROM call_base c
LEFT JOIN call_base p ON p.id = c.parent_id
WHERE c.last_id < c.id
	OR (c.parent_id IS NOT NULL AND (p.id IS NULL OR c.id <= p.id OR c.last_id > p.last_id));

-- Fnodes whose counts and sums differ from those of their call rows (complete:
-- incl_ns known and neither no_entry nor no_exit). (Not a bug when the
-- analysis was told to store only some calls.)
CREATE VIEW fnode_violations AS
WITH k AS (
	SELECT fnode_id, incl_ns, excl_ns, incl_ns IS NOT NULL AND flags & 3 = 0 AS ok
	FROM call WHERE fnode_id IS NOT NULL),
c AS (
	SELECT fnode_id, sum(ok) AS calls, count(*) - sum(ok) AS incomplete,
		coalesce(sum(incl_ns) FILTER (WHERE ok), 0) AS incl_ns,
		coalesce(sum(excl_ns) FILTER (WHERE ok), 0) AS excl_ns,
		coalesce(max(incl_ns) FILTER (WHERE ok), 0) AS max_ns,
		coalesce(max(excl_ns) FILTER (WHERE ok), 0) AS max_excl_ns
	FROM k GROUP BY fnode_id)
SELECT n.id, n.calls, c.calls AS call_rows, n.incomplete, c.incomplete AS incomplete_rows,
	n.incl_ns, c.incl_ns AS call_incl_ns, n.excl_ns, c.excl_ns AS call_excl_ns,
	n.max_ns, c.max_ns AS call_max_ns, n.max_excl_ns, c.max_excl_ns AS call_max_excl_ns
FROM fnode n
LEFT JOIN c ON c.fnode_id = n.id
WHERE n.calls IS NOT coalesce(c.calls, 0)
	OR n.incomplete IS NOT coalesce(c.incomplete, 0)
	OR coalesce(n.incl_ns, 0) != coalesce(c.incl_ns, 0)
	OR coalesce(n.excl_ns, 0) != coalesce(c.excl_ns, 0)
	OR coalesce(n.max_ns, 0) != coalesce(c.max_ns, 0)
	OR coalesce(n.max_excl_ns, 0) != coalesce(c.max_excl_ns, 0);

-- Histograms whose buckets do not add up to their owner's complete calls
-- (fnode.calls, or the sum over the function's fnodes).
CREATE VIEW hist_violations AS
WITH h AS (
	SELECT owner_kind, owner_id, metric, resolution, sum(count) AS counted
	FROM hist GROUP BY owner_kind, owner_id, metric, resolution),
fc AS (SELECT func_id, sum(calls) AS calls FROM fnode GROUP BY func_id)
SELECT h.owner_kind, h.owner_id, h.metric, h.resolution, h.counted,
	CASE h.owner_kind WHEN 0 THEN fc.calls WHEN 1 THEN n.calls END AS calls
FROM h
LEFT JOIN fnode n ON h.owner_kind = 1 AND n.id = h.owner_id
LEFT JOIN fc ON h.owner_kind = 0 AND fc.func_id = h.owner_id
WHERE h.counted IS NOT CASE h.owner_kind WHEN 0 THEN fc.calls WHEN 1 THEN n.calls END;

-- Calls whose times cannot be true of the recording: longer than its span, or
-- starting or ending outside it. An entry known only from function_graph's
-- calltime may precede the first event by up to 1 s (the call began after
-- tracing started, before the first event was written); nothing ends after
-- the last event. darc flags implausible function_graph times (call_flag
-- bad_time) and does not use them, so this is empty even on a damaged file.
CREATE VIEW time_violations AS
SELECT c.id, c.func_id, c.t_entry, c.t_exit, c.incl_ns, r.t_first, r.t_last
FROM call c, recording r
WHERE c.t_entry < r.t_first - 1000000000 OR c.t_entry > r.t_last
	OR c.t_exit < r.t_first - 1000000000 OR c.t_exit > r.t_last
	OR c.incl_ns < 0 OR c.incl_ns > r.t_last - r.t_first + 1000000000;

-- Each completed bio with the wait it ended: the sleep of its submitting task
-- during which it completed (a blocked interval of sched_interval), the
-- wake-up that ended that sleep, and where the time went, stage by stage:
-- in the block layer's queue (submission to issue), in the device (issue to
-- completion), from the completion to the wake-up, and from the wake-up to
-- the task running again (run delay). NULL where a stage was not seen.
CREATE VIEW bio_wait AS
SELECT b.id AS bio_id, b.call_id, b.task_id, s.id AS sched_id, s.wakeup_id,
	b.t_issue - b.t_queue AS queue_ns,
	b.t_complete - b.t_issue AS device_ns,
	w.t - b.t_complete AS wakeup_ns,
	s.t_in - w.t AS run_delay_ns,
	s.t_in - s.t_out AS slept_ns,
	w.ctx AS waker_ctx
FROM bio b
LEFT JOIN sched_interval s ON s.id = (
	SELECT s2.id FROM sched_interval s2
	WHERE s2.task_id = b.task_id AND s2.kind = 1 AND s2.t_out <= b.t_complete
		AND (s2.t_in IS NULL OR s2.t_in >= b.t_complete)
	ORDER BY s2.t_out DESC LIMIT 1)
LEFT JOIN wakeup w ON w.id = s.wakeup_id
WHERE b.t_complete IS NOT NULL;

-- Every off-CPU interval as a wait (RSP): how it ended and why, and, when a
-- task woke it, the waker's own wait that ended just before (within 1 ms), so
-- that chains of waits can be followed (view wait_chain, darc waits).
-- category: 'preempted' (switched out runnable), 'blocking I/O' (a bio the
-- task submitted completed during it), 'timed out' (woken by a timer: in the
-- TIMER or HRTIMER softirq or a timer vector, as wakeup.handler names it),
-- 'remote wake-up' (in an IPI's vector, call_function or reschedule: a wake-up
-- another CPU queued), 'unknown interrupt' (in a hard interrupt or softirq no
-- event names: the recording lacks the interrupt's events there, and darc
-- does not guess which it was), 'ended by hardware' (woken from another interrupt),
-- 'waiting on another task' (a task woke it), 'unaccounted' (no wake-up seen).
-- Decided by the wake-up alone, so that identical sleeps get one category.
-- run_delay_ns: from the wake-up to running again (scheduler delay).
CREATE VIEW wait AS
SELECT s.id, s.task_id, s.kind, s.t_out, s.t_in, s.t_in - s.t_out AS ns, s.call_id,
	w.id AS wakeup_id, w.t AS t_wakeup, w.waker_tid, w.waker_cpu, w.ctx AS waker_ctx,
	s.t_in - w.t AS run_delay_ns,
	CASE WHEN s.kind = 1 AND w.ctx = 0 AND w.waker_tid != 0 THEN (
		SELECT p.id FROM sched_interval p
		WHERE p.task_id = w.waker_tid AND p.kind = 1 AND p.t_in <= w.t
			AND p.t_in >= w.t - 1000000
		ORDER BY p.t_in DESC LIMIT 1) END AS parent_id,
	CASE
	WHEN s.kind = 0 THEN 'preempted'
	WHEN w.id IS NULL THEN 'unaccounted'
	WHEN EXISTS (SELECT 1 FROM bio b WHERE b.task_id = s.task_id
		     AND b.t_complete >= s.t_out AND b.t_complete <= w.t) THEN 'blocking I/O'
	WHEN w.ctx != 0 AND (w.handler IN ('TIMER', 'HRTIMER') OR w.handler LIKE '%timer%')
		THEN 'timed out'
	WHEN w.ctx = 1 AND (w.handler LIKE '%call_function%' OR w.handler LIKE '%reschedule%')
		THEN 'remote wake-up'
	WHEN w.ctx != 0 AND w.handler IS NULL THEN 'unknown interrupt'
	WHEN w.ctx != 0 THEN 'ended by hardware'
	ELSE 'waiting on another task'
	END AS category
FROM sched_interval s
LEFT JOIN wakeup w ON w.id = s.wakeup_id;
