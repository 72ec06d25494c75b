-- fnode_violations catches an fnode whose counts or sums differ from its calls.
UPDATE fnode SET calls = 3 WHERE id = 4;
DELETE FROM call WHERE id = 5;
UPDATE fnode SET max_ns = 9999 WHERE id = 1;
UPDATE fnode SET max_excl_ns = 1799 WHERE id = 2;
SELECT * FROM fnode_violations ORDER BY id;
