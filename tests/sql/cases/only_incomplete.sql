-- A function whose calls are all incomplete (an fnode with no complete call):
-- counted, with NULL sums and means, and no division by zero.
INSERT INTO func VALUES (9, 'epoll_wait', 1, 232, NULL, 0, NULL, NULL, NULL, NULL);
INSERT INTO fnode VALUES (9, NULL, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 3);
SELECT func, calls, incomplete, total_incl_ns, mean_incl_ns, max_incl_ns, max_excl_ns,
	children_ns, irq_ns
FROM func_summary WHERE func IN ('read', 'epoll_wait') ORDER BY func;
