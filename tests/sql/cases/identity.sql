-- identity_violations catches a part that is off, and a negative part even
-- when the sum is right; incomplete calls are not checked.
UPDATE call SET excl_ns = 600 WHERE id = 3;
UPDATE call SET excl_ns = -100, preempt_ns = 2100 WHERE id = 5;
UPDATE call SET excl_ns = 5 WHERE id = 10;
SELECT * FROM identity_violations ORDER BY id;
