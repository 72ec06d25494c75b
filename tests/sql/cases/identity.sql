-- identity_violations catches the parts of a complete call exceeding its
-- incl_ns (excl_ns, what is left, goes below zero) and a part below zero even
-- when the sum is right; incomplete calls are not checked.
UPDATE call_base SET children_ns = 3900 WHERE id = 3;
UPDATE call_extra SET preempt_ns = 2100 WHERE id = 5;
UPDATE call_extra SET irq_ns = -100, blocked_ns = 2100 WHERE id = 6;
UPDATE call_extra SET irq_ns = 99999 WHERE id = 10;
SELECT * FROM identity_violations ORDER BY id;
