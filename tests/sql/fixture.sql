-- SPDX-License-Identifier: MIT
-- The database the SQL tests and schema/README.md's examples run on: one
-- small analysis made by hand, with numbers easy to check.
--
-- Task 100 (fio) on CPU 0 calls read(), which calls vfs_read, which calls
-- ext4_file_read_iter twice. The first one calls walk, which recurses once
-- (walk > walk: one fnode per level); a softirq (TIMER) hits it. The second
-- one takes a hard irq (virtio0-requests, whose handler is call 7), blocks
-- until an irq on idle CPU 1 wakes it, resumes on CPU 1, and is preempted
-- once. Then a second read() on CPU 1, and a third one still open when the
-- recording ends (no_exit). Task 200 (kworker/1:2) blocks and never runs
-- again. Times in ns:
--
--   1 read                  1000 .. 11000   incl 10000 = excl 200 + children 9800
--   2  vfs_read             1100 .. 10900   9800 = 800 + 9000
--   3   ext4_file_read_iter 1200 ..  5200   4000 = 700 + 3000 + softirq 300
--   4    walk               1300 ..  4300   3000 = 1000 + 2000
--   5     walk              1400 ..  3400   2000 = 1600 + preempt 400
--   6   ext4_file_read_iter 5500 .. 10500   5000 = 1500 + irq 1000 + preempt 500 + blocked 2000
--   7 handle_irq_event      6000 ..  7000   1000 = 1000 (hardirq, interrupted call 6)
--   8 read                 20000 .. 22000   2000 = 200 + 1800
--   9  vfs_read            20100 .. 21900   1800 = 1800
--  10 read                 30000 .. ?       unknown (no_exit)
--
-- Plain kprobes (no return probes): ext4_file_read_iter (call 6) submits a
-- bio at 5600; the virtio irq (call 7) ends it at 6500 on CPU 0; a second
-- bio submitted at 20500 in vfs_read (call 9) never completes.

INSERT INTO recording VALUES ('fixture.dat', 'trace.dat v7 (zstd)', 'Linux 6.1.0-56-amd64',
	'local', 2, 1000, 30000, 64, 0, 0, NULL, '0.1.0', '{}', NULL, NULL, NULL, NULL, NULL);

INSERT INTO task VALUES (0, 0, '<idle>'), (100, 100, 'fio'), (200, 200, 'kworker/1:2');

-- id, name, kind, addr, module, overhead, p50_ns, p90_ns, p99_ns, p999_ns (the
-- quantiles of the complete calls' incl_ns: of two calls, p50 is the smaller)
INSERT INTO func VALUES
	(1, 'read', 1, NULL, NULL, 0, 2000, 10000, 10000, 10000),
	(2, 'vfs_read', 0, 0xffffffff81300000, NULL, 0, 1800, 9800, 9800, 9800),
	(3, 'ext4_file_read_iter', 0, 0xffffffffc0400000, 'ext4', 0, 4000, 5000, 5000, 5000),
	(4, 'walk', 0, NULL, NULL, 0, 2000, 3000, 3000, 3000),
	(5, 'handle_irq_event', 0, NULL, NULL, 0, 1000, 1000, 1000, 1000),
	(6, 'submit_bio', 0, 0xffffffff81500000, NULL, 0, NULL, NULL, NULL, NULL),
	(7, 'bio_endio', 0, 0xffffffff81500800, NULL, 0, NULL, NULL, NULL, NULL),
	(8, 'kprobe_ftrace_handler', 0, 0xffffffff81100000, NULL, 1, NULL, NULL, NULL, NULL);

-- id, parent_id, func_id, depth, calls, incl_ns, excl_ns, children_ns, irq_ns, softirq_ns,
-- preempt_ns, blocked_ns, max_ns, max_excl_ns, p50_ns, p90_ns, p99_ns, p999_ns, incomplete
INSERT INTO fnode VALUES
	(1, NULL, 1, 0, 2, 12000, 400, 11600, 0, 0, 0, 0, 10000, 200, 2000, 10000, 10000, 10000, 1),
	(2, 1, 2, 1, 2, 11600, 2600, 9000, 0, 0, 0, 0, 9800, 1800, 1800, 9800, 9800, 9800, 0),
	(3, 2, 3, 2, 2, 9000, 2200, 3000, 1000, 300, 500, 2000, 5000, 1500, 4000, 5000, 5000, 5000, 0),
	(4, 3, 4, 3, 1, 3000, 1000, 2000, 0, 0, 0, 0, 3000, 1000, 3000, 3000, 3000, 3000, 0),
	(5, 4, 4, 4, 1, 2000, 1600, 0, 0, 0, 400, 0, 2000, 1600, 2000, 2000, 2000, 2000, 0),
	(6, NULL, 5, 0, 1, 1000, 1000, 0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000, 1000, 0);

-- id, task_id, func_id, parent_id, fnode_id, interrupted_id, depth, cpu, t_entry, t_exit,
-- incl_ns, excl_ns, children_ns, irq_ns, softirq_ns, preempt_ns, blocked_ns, flags, last_id,
-- retval (the reads, and vfs_read under funcgraph-retval: the second read found
-- nothing to read, -EAGAIN). A call's func_id and depth are its fnode's (above).
INSERT INTO call VALUES
	(1, 100, 1, NULL, 1, NULL, 0, 0, 1000, 11000, 10000, 200, 9800, 0, 0, 0, 0, 0, 6, 4096),
	(2, 100, 2, 1, 2, NULL, 1, 0, 1100, 10900, 9800, 800, 9000, 0, 0, 0, 0, 0, 6, 4096),
	(3, 100, 3, 2, 3, NULL, 2, 0, 1200, 5200, 4000, 700, 3000, 0, 300, 0, 0, 0, 5, NULL),
	(4, 100, 4, 3, 4, NULL, 3, 0, 1300, 4300, 3000, 1000, 2000, 0, 0, 0, 0, 0, 5, NULL),
	(5, 100, 4, 4, 5, NULL, 4, 0, 1400, 3400, 2000, 1600, 0, 0, 0, 400, 0, 0, 5, NULL),
	(6, 100, 3, 2, 3, NULL, 2, 0, 5500, 10500, 5000, 1500, 0, 1000, 0, 500, 2000, 0, 6, NULL),
	(7, 100, 5, NULL, 6, 6, 0, 0, 6000, 7000, 1000, 1000, 0, 0, 0, 0, 0, 8, 7, NULL),
	(8, 100, 1, NULL, 1, NULL, 0, 1, 20000, 22000, 2000, 200, 1800, 0, 0, 0, 0, 0, 9, -11),
	(9, 100, 2, 8, 2, NULL, 1, 1, 20100, 21900, 1800, 1800, 0, 0, 0, 0, 0, 0, 9, -11),
	(10, 100, 1, NULL, 1, NULL, 0, 1, 30000, NULL, NULL, NULL, 0, 0, 0, 0, 0, 2, 10, NULL);

-- The arguments and return address of the first vfs_read (funcgraph-args and
-- -retaddr).
INSERT INTO call_value VALUES
	(2, '{"file":"0xffff888004a12300","buf":"0x7ffd1000","count":"0x1000","pos":"0xffffc90000637e98"}',
		'ksys_read+0x73');

-- owner_kind, owner_id, metric, resolution, bucket, count: incl_ns at resolution 1 for
-- every function (owner_kind 0) and fnode (1); fnode 3 also excl_ns, and incl_ns at 4.
INSERT INTO hist VALUES
	(0, 1, 0, 1, 10, 1), (0, 1, 0, 1, 13, 1),
	(0, 2, 0, 1, 10, 1), (0, 2, 0, 1, 13, 1),
	(0, 3, 0, 1, 11, 1), (0, 3, 0, 1, 12, 1),
	(0, 4, 0, 1, 10, 1), (0, 4, 0, 1, 11, 1),
	(0, 5, 0, 1, 9, 1),
	(1, 1, 0, 1, 10, 1), (1, 1, 0, 1, 13, 1),
	(1, 2, 0, 1, 10, 1), (1, 2, 0, 1, 13, 1),
	(1, 3, 0, 1, 11, 1), (1, 3, 0, 1, 12, 1),
	(1, 3, 1, 1, 9, 1), (1, 3, 1, 1, 10, 1),
	(1, 3, 0, 4, 47, 1), (1, 3, 0, 4, 49, 1),
	(1, 4, 0, 1, 11, 1),
	(1, 5, 0, 1, 10, 1),
	(1, 6, 0, 1, 9, 1);

-- id, cpu, kind, irq, name, t_start, t_end, task_id, call_id
INSERT INTO irq_interval VALUES
	(1, 0, 1, 1, 'TIMER', 4500, 4800, 100, 3),
	(2, 0, 0, 11, 'virtio0-requests', 6000, 7000, 100, 6),
	(3, 1, 0, 11, 'virtio0-requests', 9100, 9180, 0, NULL);

-- id, task_id, kind, state, cpu_out, cpu_in, t_out, t_in, call_id, wakeup_id
INSERT INTO sched_interval VALUES
	(1, 100, 0, 0, 0, 0, 2000, 2400, 5, NULL),
	(2, 100, 1, 1, 0, 1, 7200, 9200, 6, 1),
	(3, 100, 0, 0, 1, 1, 9600, 10100, 6, NULL),
	(4, 200, 1, 1, 1, NULL, 26000, NULL, NULL, NULL);

-- id, task_id, t, waker_tid, waker_cpu, ctx, waker_call_id, handler
INSERT INTO wakeup VALUES (1, 100, 9150, 0, 1, 1, NULL, 'virtio0-req.0');

-- id, t, cpu, task_id, func_id, event, role, ctx, call_id, args
INSERT INTO probe_hit VALUES
	(1, 5600, 0, 100, 6, 'kprobes:submit_bio', 0, 0, 6, '{"bio":"0xffff888004a1b000"}'),
	(2, 6500, 0, 100, 7, 'kprobes:bio_endio', 0, 1, 7, '{"bio":"0xffff888004a1b000"}'),
	(3, 20500, 1, 100, 6, 'kprobes:submit_bio', 0, 0, 9, '{"bio":"0xffff888004a1c800"}');

-- darc peaks --func ext4_file_read_iter: two peaks, default parameters
-- owner_kind, owner_id, metric, resolution, params, number, lo, hi, calls, share_calls,
-- share_latency, mean, max
INSERT INTO peak VALUES
	(0, 3, 0, 1, '{"prominence":2.0,"smooth":1}', 1, 11, 11, 1, 0.5, 0.444, 4000, 4000),
	(0, 3, 0, 1, '{"prominence":2.0,"smooth":1}', 2, 12, 12, 1, 0.5, 0.556, 5000, 5000);

-- darc paths --root read --peak 2: the slow read (call 1, bucket 13) goes down
-- vfs_read and ext4_file_read_iter to a blocking wait; the TIMER softirq in
-- the other ext4_file_read_iter call was weighed and lost.
INSERT INTO search VALUES (1, 'read', 0, 1, 2, 13, 13, 1,
	'{"max_depth":10,"maxcount_pct":97.0,"min_bucket":6,"mode":"max"}', '2026-11-23T06:00:00Z');
-- search_id, node, parent, depth, kind, fnode_id, name, maxcount, calls, total_ns, share, status
INSERT INTO search_path VALUES
	(1, 0, NULL, 0, 'fnode', 1, 'read', 1, 1, 10000, 1.0, ''),
	(1, 1, 0, 1, 'fnode', 2, 'vfs_read', 1, 1, 9800, 0.98, ''),
	(1, 2, 1, 2, 'fnode', 3, 'ext4_file_read_iter', 1, 1, 4500, 0.45, ''),
	(1, 3, 2, 3, 'blocked', NULL, 'blocked', 1, 1, 2000, 0.2, 'root cause found');
-- search_id, node, kind, fnode_id, name, maxcount, total_ns, winner
INSERT INTO search_candidate VALUES
	(1, 0, 'fnode', 2, 'vfs_read', 1, 9800, 1), (1, 0, 'self', NULL, 'self', 0, 200, 0),
	(1, 1, 'fnode', 3, 'ext4_file_read_iter', 1, 4500, 1),
	(1, 1, 'softirq', NULL, 'softirq TIMER', 0, 300, 0), (1, 1, 'self', NULL, 'self', 0, 800, 0),
	(1, 2, 'blocked', NULL, 'blocked', 1, 2000, 1), (1, 2, 'self', NULL, 'self', 0, 1500, 0);

-- The bio that ext4_file_read_iter (call 6) submitted at 5600
-- (device 254:0, sector 800): issued at 5700, completed at 9140 by the virtio irq
-- on idle CPU 1, whose wake-up (9150) ended the sleep of task 100 (7200 .. 9200);
-- and the one vfs_read (call 9) submitted at 20500, never completed.
-- id, dev, sector, nr_sector, op, t_queue, t_getrq, t_insert, t_issue, t_complete,
-- task_id, call_id, queue_cpu, complete_cpu, complete_ctx, error, flags
INSERT INTO bio VALUES
	(1, 266338304, 800, 8, 'R', 5600, 5610, NULL, 5700, 9140, 100, 6, 0, 1, 1, 0, 0,
		'0xffff888004a1b000'),
	(2, 266338304, 1600, 8, 'R', 20500, 20510, NULL, 20600, NULL, 100, 9, 1, NULL, NULL, 0, 8,
		'0xffff888004a1c800');

-- darc io of call 6 (5000 ns): its layers add up
INSERT INTO io_layer VALUES (6, 'device', 3000), (6, 'fs', 1500), (6, 'vfs', 500);
