-- children_violations catches a children_ns that is not the sum of the
-- children's incl_ns, and a complete call with a child of unknown incl_ns.
UPDATE call_base SET children_ns = 8000 WHERE id = 2;
DELETE FROM call WHERE id = 9;
INSERT INTO call VALUES (9, 100, 2, 8, 2, NULL, 1, 1, 20100, NULL, NULL, NULL, 0, 0, 0, 0, 0, 2, 9, NULL);
SELECT * FROM children_violations ORDER BY id;
SELECT count(*) AS identity FROM identity_violations;
