-- A function whose calls are all incomplete: counted, with NULL sums and means.
SELECT func, calls, incomplete, total_incl_ns, mean_incl_ns, max_incl_ns, children_ns
FROM func_summary WHERE func = 'read';
DELETE FROM call WHERE id IN (1, 8);
SELECT func, calls, incomplete, total_incl_ns, mean_incl_ns, max_incl_ns, children_ns
FROM func_summary WHERE func = 'read';
