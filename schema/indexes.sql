-- SPDX-License-Identifier: MIT
-- darc schema: the indexes db_finish() creates after the load. Sorting once
-- at the end is cheaper than keeping an index up to date row by row. On the
-- calls (call_base) each one costs about 0.6 s per 2.8 M rows here
-- (tests/bench/bench-db.c -i prints them), so they are in call-indexes.sql,
-- built when darc analyze is given --indexes (a full scan of call_base takes
-- about 0.12 s per 2.8 M rows without them).

CREATE INDEX fnode_parent ON fnode(parent_id);
CREATE INDEX fnode_func ON fnode(func_id);
CREATE INDEX func_name ON func(name);
CREATE INDEX irq_interval_cpu ON irq_interval(cpu, t_start);
CREATE INDEX irq_interval_call ON irq_interval(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX sched_interval_task ON sched_interval(task_id, t_out);
CREATE INDEX sched_interval_call ON sched_interval(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX sched_gap_task ON sched_gap(task_id, t_from);
CREATE INDEX wakeup_task ON wakeup(task_id, t);
CREATE INDEX probe_hit_event ON probe_hit(event, t);
CREATE INDEX bio_call ON bio(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX probe_hit_call ON probe_hit(call_id) WHERE call_id IS NOT NULL;
-- The bios a task's sleep saw complete (view wait's 'blocking I/O', darc
-- paths' I/O detail) and who ran on a CPU while a call was off it (paths'
-- "ran instead"). darc paths made these two on its first run, in a
-- transaction and a sync of its own: a fifth of the first replay of 8 M
-- events, against a few hundredths of a second kept up here.
CREATE INDEX bio_task_complete ON bio(task_id, t_complete);
CREATE INDEX sched_interval_in ON sched_interval(cpu_in, t_in);
