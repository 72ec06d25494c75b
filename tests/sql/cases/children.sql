-- children_violations catches a children_ns that is not the sum of the
-- children's incl_ns, and a complete call with a child of unknown incl_ns.
UPDATE call SET children_ns = 8000, excl_ns = 1800 WHERE id = 2;
UPDATE call SET t_exit = NULL, incl_ns = NULL, excl_ns = NULL, flags = 2 WHERE id = 9;
SELECT * FROM children_violations ORDER BY id;
SELECT count(*) AS identity FROM identity_violations;
