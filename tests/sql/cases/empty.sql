-- Every view works on an analysis with no rows (no division by zero, no error).
DELETE FROM recording; DELETE FROM task; DELETE FROM func; DELETE FROM call;
DELETE FROM fnode; DELETE FROM hist; DELETE FROM irq_interval;
DELETE FROM sched_interval; DELETE FROM wakeup;
SELECT (SELECT count(*) FROM fnode_path) AS fnode_path,
	(SELECT count(*) FROM call_path) AS call_path,
	(SELECT count(*) FROM slowest_calls) AS slowest_calls,
	(SELECT count(*) FROM hot_paths) AS hot_paths,
	(SELECT count(*) FROM func_summary) AS func_summary,
	(SELECT count(*) FROM off_cpu) AS off_cpu,
	(SELECT count(*) FROM irq_summary) AS irq_summary,
	(SELECT count(*) FROM hist_range) AS hist_range,
	(SELECT count(*) FROM identity_violations) AS identity,
	(SELECT count(*) FROM children_violations) AS children,
	(SELECT count(*) FROM fnode_violations) AS fnode,
	(SELECT count(*) FROM hist_violations) AS hist;
