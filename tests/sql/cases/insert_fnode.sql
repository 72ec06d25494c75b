-- A call's function and depth are its fnode's (call_base stores neither):
-- an insert into view call that agrees with its fnode goes in, and shows
-- them; one that names another function is refused.
INSERT INTO call VALUES (11, 100, 2, 8, 2, NULL, 1, 1, 20150, 20250, 100, 100, 0, 0, 0, 0, 0, 0, 11, 0);
SELECT id, func_id, depth, fnode_id, retval FROM call WHERE id = 11;
INSERT INTO call VALUES (12, 100, 3, 8, 2, NULL, 1, 1, 20300, 20400, 100, 100, 0, 0, 0, 0, 0, 0, 12, 0);
