-- hist_violations catches buckets that do not add up to the owner's calls:
-- one too many for function 3 (owner_kind 0), one missing for fnode 6.
UPDATE hist SET count = 2 WHERE owner_kind = 0 AND owner_id = 3 AND bucket = 12;
DELETE FROM hist WHERE owner_kind = 1 AND owner_id = 6;
INSERT INTO hist VALUES (1, 6, 0, 2, 19, 2);
SELECT * FROM hist_violations ORDER BY owner_kind, owner_id, metric, resolution;
