-- One classification per sleep: four identical 2 us sleeps of task 300, each
-- ended from interrupt context. 11 and 12 by a hard interrupt that no irq
-- event names (the local timer of a recording without irq_vectors: an
-- hrtimer's expiry); the timer hit traced code during 12 only, so only 12
-- has an interrupt episode named after it. Both are 'timed out': whether the
-- graph happened to see the interrupt does not change what ended the sleep.
-- 13, by the TIMER softirq, too; 14, by a named device interrupt with no
-- bio of the task completing: 'ended by hardware'.
INSERT INTO irq_interval VALUES
	(10, 1, 0, NULL, '__sysvec_apic_timer_interrupt', 13900, 14100, 200, NULL);
INSERT INTO wakeup VALUES
	(11, 300, 12000, 200, 1, 1, NULL, NULL),
	(12, 300, 14000, 200, 1, 1, NULL, NULL),
	(13, 300, 16000, 200, 1, 2, NULL, 'TIMER'),
	(14, 300, 18000, 200, 1, 1, NULL, 'eth0');
INSERT INTO sched_interval VALUES
	(11, 300, 1, 1, 1, 1, 10000, 12100, NULL, 11),
	(12, 300, 1, 1, 1, 1, 12000, 14100, NULL, 12),
	(13, 300, 1, 1, 1, 1, 14000, 16100, NULL, 13),
	(14, 300, 1, 1, 1, 1, 16000, 18100, NULL, 14);
SELECT id, waker_ctx, category FROM wait WHERE task_id = 300 ORDER BY id;
