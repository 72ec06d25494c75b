-- hist_range's bounds agree with the bucket definition floor(r * log2(ns)):
-- every bucket of resolutions 1 to 4 up to 2^40 ns, each checked at its bounds
-- (lo_ns is in it, lo_ns - 1 and hi_ns are not), and the buckets tile the line.
-- Some small buckets hold no integer at all (lo_ns = hi_ns): at resolution 4,
-- [2^(1/4), 2^(2/4)) = [1.19, 1.41) for one.
DELETE FROM hist;
WITH RECURSIVE r(r) AS (VALUES (1), (2), (3), (4)),
b(b) AS (SELECT 0 UNION ALL SELECT b + 1 FROM b WHERE b < 159)
INSERT INTO hist SELECT 1, 1, 0, r, b, 1 FROM r, b WHERE b < 40 * r;
SELECT count(*) AS buckets, sum(lo_ns = hi_ns) AS empty,
	sum(lo_ns < hi_ns AND CAST(floor(resolution * log2(lo_ns)) AS INTEGER) != bucket)
		AS lo_outside,
	sum(lo_ns > 1 AND CAST(floor(resolution * log2(lo_ns - 1)) AS INTEGER) = bucket)
		AS below_inside,
	sum(CAST(floor(resolution * log2(hi_ns)) AS INTEGER) = bucket) AS hi_inside
FROM hist_range;
SELECT count(*) AS gaps FROM hist_range a JOIN hist_range b
	ON b.resolution = a.resolution AND b.bucket = a.bucket + 1 WHERE b.lo_ns != a.hi_ns;
SELECT resolution, bucket, lo_ns, hi_ns FROM hist_range
WHERE bucket IN (0, 1, 10, 39) ORDER BY resolution, bucket;
SELECT resolution, group_concat(bucket, ' ') AS empty_buckets
FROM (SELECT resolution, bucket FROM hist_range WHERE lo_ns = hi_ns ORDER BY resolution, bucket)
GROUP BY resolution;
