-- SPDX-License-Identifier: MIT
-- darc schema: the indexes. db_finish() creates them after the load: keeping
-- them up to date row by row made the load slower than sorting once at the
-- end. On the calls (call_base) each one costs about 0.3 to 0.9 s per 2.8 M rows here
-- (tests/bench/bench-db.c -i prints them), most of db_finish(). So only the
-- one recursive tree queries need is always built; call-indexes.sql has the
-- others, built when darc analyze is given --indexes (a full scan of call_base
-- takes about 0.12 s per 2.8 M rows without them).

-- the children of a call (roots have none to find: partial, and cheaper)
CREATE INDEX call_parent ON call_base(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX fnode_parent ON fnode(parent_id);
CREATE INDEX fnode_func ON fnode(func_id);
CREATE INDEX func_name ON func(name);
CREATE INDEX hist_by_owner ON hist(owner_kind, owner_id);
CREATE INDEX irq_interval_cpu ON irq_interval(cpu, t_start);
CREATE INDEX irq_interval_call ON irq_interval(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX sched_interval_task ON sched_interval(task_id, t_out);
CREATE INDEX sched_interval_call ON sched_interval(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX wakeup_task ON wakeup(task_id, t);
