-- SPDX-License-Identifier: MIT
-- darc schema: the optional indexes on table call, built by db_finish() when
-- asked (darc analyze --indexes). Each costs 0.6 to 0.9 s per 2.8 M calls.

CREATE INDEX call_func ON call(func_id);			-- the calls of a function
CREATE INDEX call_fnode ON call(fnode_id);			-- the calls on a path
CREATE INDEX call_task_entry ON call(task_id, t_entry);	-- a task's timeline
