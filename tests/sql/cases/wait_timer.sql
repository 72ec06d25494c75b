-- One classification per sleep: four identical 2 us sleeps of task 300, each
-- ended from interrupt context. 11 and 12 by a hard interrupt that no event
-- names (an hrtimer's expiry, a remote wake-up's IPI or a disk's completion
-- of a recording without those events: it does not say which); a timer's
-- handler hit traced code during 12 only, so only 12 has an interrupt
-- episode named after it. Both are 'unknown interrupt': what ended the
-- sleep is the wake-up's, never a guess, and whether the graph happened to
-- see an interrupt does not change it. 13, by the TIMER softirq: 'timed
-- out'; 14, by a named device interrupt with no bio of the task completing:
-- 'ended by hardware'; 15, by an IPI's vector: 'remote wake-up'.
INSERT INTO irq_interval VALUES
	(10, 1, 0, NULL, '__sysvec_apic_timer_interrupt', 13900, 14100, 200, NULL);
INSERT INTO wakeup VALUES
	(11, 300, 12000, 200, 1, 1, NULL, NULL),
	(12, 300, 14000, 200, 1, 1, NULL, NULL),
	(13, 300, 16000, 200, 1, 2, NULL, 'TIMER'),
	(14, 300, 18000, 200, 1, 1, NULL, 'eth0'),
	(15, 300, 20000, 0, 1, 1, NULL, 'call_function_single_entry');
INSERT INTO sched_interval VALUES
	(11, 300, 1, 1, 1, 1, 10000, 12100, NULL, 11),
	(12, 300, 1, 1, 1, 1, 12000, 14100, NULL, 12),
	(13, 300, 1, 1, 1, 1, 14000, 16100, NULL, 13),
	(14, 300, 1, 1, 1, 1, 16000, 18100, NULL, 14),
	(15, 300, 1, 1, 1, 1, 18000, 20100, NULL, 15);
SELECT id, waker_ctx, category FROM wait WHERE task_id = 300 ORDER BY id;
