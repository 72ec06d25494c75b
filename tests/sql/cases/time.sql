-- time_violations catches calls that cannot be true of the recording
-- (t_first 1000, t_last 30000): one starting 2 s before the first event, one
-- ending after the last, one longer than the span; a call starting 0.5 s
-- before the first event (known from function_graph's calltime) is fine.
UPDATE call_base SET t_entry = 1000 - 2000000000, incl_ns = 2000000000 + 2000 WHERE id = 8;
UPDATE call_base SET incl_ns = 40000 WHERE id = 9;
UPDATE call_base SET t_entry = 1000 - 500000000 WHERE id = 1;
SELECT * FROM time_violations ORDER BY id;
