// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/tracer-cost.c: the estimate from function_graph
 * events, the JSON the analysis stores, the share of a call and its shift
 * in OSprof buckets, and the same read back from a database the writer made.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hist.h"
#include "rows.h"
#include "tracer-cost.h"
#include "tracer-shift.h"
#include "along-check.h"
#include "db.h"
#include "search-db.h"
#include "unit-run.h"

/* ---- buckets, share, shift ---- */

/*
 * The estimate's histograms bucket a duration by hist_fine() (48 an
 * octave, 3 to a bucket), for floor(16 log2 ns): the same, at least for
 * every ns below 2^20 and at each bucket's edges up to 2^27.
 */
START_TEST(test_bucket_edges)
{
	for (int64_t ns = 1; ns < 1 << 20; ns++)
		ck_assert_int_eq(hist_fine((uint64_t)ns) / 3, (int)floor(16 * log2((double)ns)));
	for (int k = 16 * 20; k < 16 * 27; k++) {
		int64_t edge = (int64_t)ceil(exp2(k / 16.0));
		for (int64_t ns = edge - 2; ns <= edge + 2; ns++)
			ck_assert_int_eq(hist_fine((uint64_t)ns) / 3,
					 (int)floor(16 * log2((double)ns)));
	}
}
END_TEST

START_TEST(test_shift)
{
	/* 1000 ns is bucket 9 at one bucket an octave (512 <= ns < 1024) */
	ck_assert_int_eq(cost_bucket(1000, 1), 9);
	ck_assert_int_eq(cost_bucket(1000, 4), 39);
	ck_assert_int_eq(cost_bucket(0.5, 1), 0);
	ck_assert_int_eq(cost_shift(1000, 0, 1), 0);
	ck_assert_int_eq(cost_shift(1000, 400, 1), 0);  /* 600: still bucket 9 */
	ck_assert_int_eq(cost_shift(1000, 600, 1), 1);  /* 400: bucket 8 */
	ck_assert_int_eq(cost_shift(1000, 999, 1), 9);  /* 1 ns: bucket 0 */
	ck_assert_int_eq(cost_shift(1000, 5000, 1), 9); /* more than all of it: 1 ns */
	ck_assert_int_eq(cost_shift(1000, 600, 4), 5);  /* 39 - floor(4 log2 400) = 39 - 34 */
	ck_assert_int_eq(cost_shift(1000, NAN, 1), 0);
}
END_TEST

START_TEST(test_share)
{
	struct cost_cost c;
	struct cost_counts k = {{0}};

	cost_unknown(&c);
	k.n[TC_FGRAPH] = 10;
	k.n[TC_KPROBE] = 2;
	k.n[TC_TRACEPOINT] = 4;
	k.self_fgraph = true;
	ck_assert(cost_share(&c, &k) == 0); /* nothing known: no share */
	c.ns[TC_FGRAPH] = 100;
	c.ns[TC_KPROBE] = 50;
	c.ns[TC_TRACEPOINT] = 10;
	c.own_ns = 40;
	ck_assert_double_eq_tol(cost_share(&c, &k), 1000 + 100 + 40 + 40, 1e-9);
	k.self_fgraph = false;
	c.ns[TC_KPROBE] = NAN; /* an unknown one counts nothing */
	ck_assert_double_eq_tol(cost_share(&c, &k), 1000 + 40, 1e-9);
}
END_TEST

/* ---- the estimate ---- */

static struct analysis_event fg(int kind, int cpu, int64_t func, int depth, int64_t t)
{
	struct analysis_event a = {.kind = kind, .t = t, .cpu = cpu, .pid = 7};

	a.fg.func_id = func;
	a.fg.depth = depth;
	a.fg.calltime = a.fg.rettime = a.fg.dur = a.fg.retval = DARC_NULL;
	return a;
}

/* A leaf call of @func from @t to @t + @dur on @cpu: its entry and its exit. */
static void leaf(struct cost_est *e, int cpu, int64_t func, int64_t t, int64_t dur)
{
	struct analysis_event in = fg(EVENT_FG_ENTRY, cpu, func, 2, t),
			      out = fg(EVENT_FG_EXIT, cpu, func, 2, t + dur);

	out.fg.calltime = t;
	out.fg.rettime = t + dur;
	out.fg.dur = dur;
	ck_assert_int_eq(cost_est_feed(e, &in, false), 0);
	ck_assert_int_eq(cost_est_feed(e, &out, false), 0);
}

/*
 * Two functions called in turn, 40 times: 3 (an empty one, 500 ns) and 4
 * (1500 ns), 300 ns from one's return to the next call; and calls of 5 whose
 * entry and exit are not adjacent (an event between), never a leaf.
 */
static struct cost_est *fed(void)
{
	struct cost_est *e = cost_est_new();
	struct analysis_event sw = {.kind = EVENT_SWITCH, .cpu = 1, .t = 5};
	int64_t t = 1000000;

	ck_assert_ptr_nonnull(e);
	for (int i = 0; i < 40; i++) {
		leaf(e, 0, 3, t, 500);
		leaf(e, 0, 4, t + 800, 1500);
		t += 2600; /* 300 ns after 4's return: 3 again */
	}
	for (int i = 0; i < 40; i++) {
		struct analysis_event in = fg(EVENT_FG_ENTRY, 1, 5, 1, t),
				      out = fg(EVENT_FG_EXIT, 1, 5, 1, t + 50);
		out.fg.calltime = t;
		out.fg.rettime = t + 50;
		out.fg.dur = 50;
		ck_assert_int_eq(cost_est_feed(e, &in, false), 0);
		ck_assert_int_eq(cost_est_feed(e, &sw, false), 0);
		ck_assert_int_eq(cost_est_feed(e, &out, false), 0);
		t += 1000;
	}
	return e;
}

START_TEST(test_estimate)
{
	struct cost_est *e = fed();
	double own, gap;
	int64_t nown, ngap;

	cost_est_get(e, 20, &own, &gap, &nown, &ngap);
	ck_assert_int_eq(nown, 80); /* 3 and 4, not 5 */
	ck_assert_int_eq(ngap, 79); /* every call but the first follows a sibling's return */
	ck_assert_double_eq_tol(own, 500, 500 * 0.025);
	ck_assert_double_eq_tol(gap, 300, 300 * 0.025);
	cost_est_get(e, 50, &own, &gap, &nown, &ngap); /* too few calls of each */
	ck_assert(isnan(own) && isnan(gap));
	cost_est_free(e);
}
END_TEST

START_TEST(test_est_json)
{
	struct cost_est *e = fed();
	struct analysis_event k = {.kind = EVENT_PROBE_ENTRY, .cpu = 0};
	char *j, *p;
	json_t *m;

	ck_assert_int_eq(cost_est_feed(e, &k, false), 0);
	j = cost_est_json(e, NULL, NULL);
	/* 500 ns inside the empty function, 300 between calls: 800 */
	ck_assert_ptr_nonnull(p = strstr(j, "\"function_graph\":{\"ns\":"));
	ck_assert_double_eq_tol(strtod(p + strlen("\"function_graph\":{\"ns\":"), NULL), 800,
				800 * 0.025);
	ck_assert_ptr_nonnull(strstr(j, "\"source\":\"estimated\""));
	ck_assert_ptr_nonnull(strstr(j, "\"kprobe\":{\"ns\":null,\"source\":\"unknown\",\"events\":1}"));
	ck_assert_ptr_nonnull(strstr(j, "\"tracepoint\":{\"ns\":null"));
	free(j);
	/* darc-record's measured costs win, the estimate stays beside */
	m = json_loads("{\"tracer_cost\":{\"ns\":{\"function_graph\":1234.5,"
		       "\"kprobe\":77,\"uprobe\":-3}}}",
		       0, NULL);
	ck_assert_ptr_nonnull(m);
	j = cost_est_json(e, m, NULL);
	json_decref(m);
	ck_assert_ptr_nonnull(strstr(j, "\"function_graph\":{\"ns\":1234.5,\"source\":\"measured\""));
	ck_assert_ptr_nonnull(strstr(j, "\"kprobe\":{\"ns\":77.0,\"source\":\"measured\",\"events\":1}"));
	ck_assert_ptr_null(strstr(j, "uprobe")); /* a negative cost is no cost */
	free(j);
	cost_est_free(e);
	e = cost_est_new();
	ck_assert_ptr_null(cost_est_json(e, NULL, NULL)); /* no tracing mechanism at all */
	cost_est_free(e);
}
END_TEST

/* ---- from a database ---- */

static char dir[64], target[128];

static void setup(void)
{
	strcpy(dir, "/tmp/darc-tc-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/tc.db", dir);
}

static void teardown(void)
{
	unlink(target);
	rmdir(dir);
}

/* The fnode of a call of @func under @parent (put_rows()'s fnodes: 1 the roots of
   function 1, 4 function 1 under them, 2 and 3 functions 2 and 3 under them). */
static int64_t fnode_of(int64_t func, int64_t parent)
{
	return parent == DARC_NULL ? 1 : func == 1 ? 4 : func;
}

static struct call_rec call(int64_t id, int64_t task, int64_t func, int64_t parent, int64_t last,
			    int64_t incl)
{
	struct call_rec c = {.id = id, .last_id = last, .task_id = task, .func_id = func,
			     .parent_id = parent, .fnode_id = fnode_of(func, parent),
			     .interrupted_id = DARC_NULL,
			     .depth = parent == DARC_NULL ? 0 : 1, .cpu = 0, .t_entry = id * 10,
			     .t_exit = id * 10 + incl, .incl_ns = incl, .excl_ns = incl};
	return c;
}

/* Functions 1 vfs_read (kernel), 2 pread64 (a system call), 3 app_func (a uprobe pair), and
   the fnodes of fnode_of(). */
static void put_funcs(struct db *db)
{
	struct func_rec f[] = {{1, "vfs_read", FUNC_KERNEL, DARC_NULL, NULL, 0},
			       {2, "pread64", FUNC_SYSCALL, 17, NULL, 0},
			       {3, "app_func", FUNC_UPROBE, DARC_NULL, "/bin/app", 0}};

	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
		ck_assert_int_eq(db_put_func(db, &f[i]), 0);
	/* a call's function and depth are its fnode's (call_base holds neither) */
	for (int64_t k = 1; k <= 4; k++)
		ck_assert_int_eq(db_put_fnode(db, &(struct fnode_rec){.id = k,
			.parent_id = k == 1 ? DARC_NULL : 1, .func_id = k == 4 ? 1 : k,
			.depth = k > 1, .p50_ns = DARC_NULL, .p90_ns = DARC_NULL, .p99_ns = DARC_NULL,
			.p999_ns = DARC_NULL}), 0);
}

/*
 * Function 1 (kernel) is called twice by task 100: call 1 (900 ns) holds
 * calls 2, 4 and 5 of its task (2 kernel, 4 a system call, 5 a uprobe
 * pair), a kprobe hit, a blocked interval and an interrupt; call 3 of task
 * 200 runs meanwhile on another CPU. Call 6 (100 us) holds nothing.
 */
static void put_rows(struct db *db, const char *cost, const char *manifest)
{
	struct call_rec c[] = {call(1, 100, 1, DARC_NULL, 5, 900), call(2, 100, 1, 1, 2, 10),
			       call(3, 200, 1, DARC_NULL, 3, 10), call(4, 100, 2, 1, 4, 10),
			       call(5, 100, 3, 1, 5, 10), call(6, 100, 1, DARC_NULL, 6, 100000)};
	struct probe_rec p = {1, 35, 0, 100, 1, "kprobes:submit_bio", PROBE_POINT, CTX_TASK, 4, NULL};
	struct probe_rec p2 = {2, 36, 1, 200, 1, "kprobes:submit_bio", PROBE_POINT, CTX_TASK, 3, NULL};
	struct sched_rec s = {1, 100, SCHED_BLOCKED, 2, 0, 0, 20, 30, 2, DARC_NULL};
	struct irq_rec irq = {1, 0, IRQ_HARD, 11, "virtio", 40, 45, 100, 5};
	struct task_rec t[] = {{100, 100, "fio"}, {200, 200, "trace-cmd"}, {300, 300, "darc-record"},
			       {401, 400, "worker"}};
	struct recording_rec r = {.source = "x.dat", .cpus = 2, .t_first = DARC_NULL,
				  .t_last = DARC_NULL, .source_size = DARC_NULL,
				  .source_mtime_ns = DARC_NULL, .manifest = manifest,
				  .tracer_cost = cost};

	put_funcs(db);
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++)
		ck_assert_int_eq(db_put_call(db, &c[i]), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++)
		ck_assert_int_eq(db_put_task(db, &t[i]), 0);
	ck_assert_int_eq(db_put_probe(db, &p), 0);
	ck_assert_int_eq(db_put_probe(db, &p2), 0);
	ck_assert_int_eq(db_put_sched(db, &s), 0);
	ck_assert_int_eq(db_put_irq(db, &irq), 0);
	ck_assert_int_eq(db_put_recording(db, &r), 0);
}

static struct rdb *make_db(const char *cost, const char *manifest)
{
	struct err_msg err;
	struct db *db = db_create(target, true, &err);
	struct rdb *r;

	ck_assert_msg(db, "%s", err.msg);
	put_rows(db, cost, manifest);
	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
	r = rdb_open(target, &err);
	ck_assert_msg(r, "%s", err.msg);
	return r;
}

static const char cost_json[] =
    "{\"function_graph\":{\"ns\":100,\"source\":\"measured\",\"own_ns\":40},"
    "\"kprobe\":{\"ns\":50,\"source\":\"measured\"},\"uretprobe\":{\"ns\":1000},"
    "\"tracepoint\":{\"ns\":10,\"source\":\"measured\"},\"uprobe\":{\"ns\":\"x\"}}";

/* The shift of vfs_read's calls at @resolution, metric @metric, into @t. */
static void shift_of(struct rdb *db, int metric, int resolution, struct tracer_shift *t)
{
	struct call_selection sel = RSEL_INIT;
	struct err_msg err;

	sel.func = "vfs_read";
	sel.metric = metric;
	sel.resolution = resolution;
	ck_assert_msg(tracer_shift_load(db, &sel, INT64_MIN, INT64_MAX, t, &err) == 0, "%s",
		      err.msg);
}

static const struct cost_bucket *bucket(const struct tracer_shift *t, int b)
{
	for (int i = 0; i < t->n; i++)
		if (t->b[i].bucket == b)
			return &t->b[i];
	ck_abort_msg("no bucket %d", b);
	return NULL;
}

START_TEST(test_load_counts)
{
	struct rdb *db = make_db(cost_json, NULL);
	struct tracer_shift t;
	const struct cost_bucket *b;

	shift_of(db, RM_INCL, 1, &t);
	ck_assert(t.cost.ns[TC_FGRAPH] == 100 && !t.cost.estimated[TC_FGRAPH] &&
		  t.cost.own_ns == 40);
	ck_assert(t.cost.ns[TC_KPROBE] == 50 && t.cost.ns[TC_TRACEPOINT] == 10);
	ck_assert(t.cost.ns[TC_URETPROBE] == 1000 && t.cost.estimated[TC_URETPROBE]); /* no source */
	ck_assert(isnan(t.cost.ns[TC_UPROBE]) && isnan(t.cost.ns[TC_KRETPROBE]));
	/* call 1 (900 ns, bucket 9): 2 (kernel: 100), 4 (syscall: 2 events), 5 (uprobe
	   pair: its return probe, 1000), the kprobe hit in 4 (50), blocked in 2 (4
	   events), the interrupt of 5 (2 events): 8 tracepoint events (80), itself
	   (own 40); not call 3 of another task: 1270, more than its latency, so all
	   of it, and it falls from bucket 9 to bucket 0 */
	b = bucket(&t, 9);
	ck_assert_int_eq(b->calls, 1);
	ck_assert_double_eq_tol(b->share_ns, 900, 1e-9);
	ck_assert_int_eq(b->shift_max, 9);
	tracer_shift_release(&t);
	/* its own time: its direct kernel child (100 - 40 outside it), itself (40), what
	   is charged to call 1 itself: nothing */
	shift_of(db, RM_EXCL, 1, &t);
	ck_assert_double_eq_tol(t.b[t.n - 1].share_ns + 0, 40, 1e-9); /* call 6: own only */
	tracer_shift_release(&t);
	rdb_close(db);
}
END_TEST

START_TEST(test_hist_shift)
{
	static const char small[] = "{\"function_graph\":{\"ns\":100,\"own_ns\":40},"
				    "\"tracepoint\":{\"ns\":10}}";
	struct rdb *db = make_db(small, NULL);
	struct tracer_shift t;
	const struct cost_bucket *b;
	json_t *j;

	shift_of(db, RM_INCL, 1, &t);
	/* calls 1 (900 ns, bucket 9; share 100 + 80 + 40 = 220: 680, still 9),
	   2 and 3 (10 ns, bucket 3; own 40 is more than all of it: 1 ns, bucket 0),
	   6 (100 us, bucket 16; own 40: no shift) */
	ck_assert_int_eq(t.n, 3);
	b = bucket(&t, 3);
	ck_assert_int_eq(b->calls, 2);
	ck_assert_int_eq(b->shifted, 2);
	ck_assert_int_eq(tracer_shift_of(&t, b), 3);
	b = bucket(&t, 9);
	ck_assert_int_eq(b->shifted, 0);
	ck_assert_double_eq_tol(b->share_ns, 220, 1e-9);
	ck_assert_int_eq(tracer_shift_of(&t, b), 0);
	ck_assert_int_eq(bucket(&t, 16)->shift_max, 0);
	j = tracer_shift_bucket_json(&t, 9);
	ck_assert_double_eq_tol(json_number_value(json_object_get(j, "share")), 220.0 / 900, 1e-9);
	json_decref(j);
	j = tracer_shift_range_json(&t, 3, 9);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "shifted_calls")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(j, "buckets_shifted")), 1);
	json_decref(j);
	ck_assert(json_is_null(tracer_shift_bucket_json(&t, 4)));
	tracer_shift_release(&t);
	/* at 4 buckets an octave the 220 ns of call 1 are two: 39 -> 37 */
	shift_of(db, RM_INCL, 4, &t);
	b = bucket(&t, 39);
	ck_assert_int_eq(tracer_shift_of(&t, b), 2);
	ck_assert_int_eq(b->shifted, 1);
	tracer_shift_release(&t);
	/* blocked time: no share defined */
	shift_of(db, RM_BLOCKED, 1, &t);
	ck_assert(!t.valued && t.n == 0);
	tracer_shift_release(&t);
	rdb_close(db);
}
END_TEST

/* A second selection priced from what the first read of the database (rdb_memo()). */
START_TEST(test_shift_again)
{
	struct rdb *db = make_db(cost_json, NULL), *fresh;
	struct tracer_shift a, b;

	shift_of(db, RM_INCL, 2, &a);
	shift_of(db, RM_EXCL, 1, &b); /* another metric between */
	tracer_shift_release(&b);
	shift_of(db, RM_INCL, 2, &b);
	ck_assert_int_eq(a.n, b.n);
	ck_assert_int_gt(a.n, 0);
	ck_assert_mem_eq(a.b, b.b, a.n * sizeof(*a.b));
	tracer_shift_release(&b);
	rdb_close(db);
	fresh = rdb_open(target, &(struct err_msg){""});
	ck_assert_ptr_nonnull(fresh);
	shift_of(fresh, RM_INCL, 2, &b);
	ck_assert_int_eq(a.n, b.n);
	ck_assert_mem_eq(a.b, b.b, a.n * sizeof(*a.b));
	tracer_shift_release(&a);
	tracer_shift_release(&b);
	rdb_close(fresh);
}
END_TEST

/*
 * Eight calls of vfs_read by task 100, call 3 of them holding 1-3 callees
 * (vfs_read, pread64, app_func by turns), and a call of task 200 inside
 * each; their kinds counted into @want (kernel, syscall, kprobe, uprobe).
 */
static struct rdb *make_roots_db(uint32_t want[8][4], int64_t first[8], int64_t last[8])
{
	struct err_msg err;
	struct db *db = db_create(target, true, &err);
	struct recording_rec r = {.source = "x.dat", .cpus = 2, .t_first = DARC_NULL,
				  .t_last = DARC_NULL, .source_size = DARC_NULL,
				  .source_mtime_ns = DARC_NULL, .tracer_cost = cost_json};
	struct rdb *rd;
	int64_t id = 1;

	ck_assert_msg(db, "%s", err.msg);
	memset(want, 0, 8 * sizeof(*want));
	put_funcs(db);
	for (int i = 0; i < 8; i++) {
		int kids = i % 3 + 1;
		struct call_rec c;

		first[i] = id;
		last[i] = id + kids + 1;
		c = call(id, 100, 1, DARC_NULL, last[i], 900 + 1000 * i);
		ck_assert_int_eq(db_put_call(db, &c), 0);
		for (int c = 0; c < kids; c++) {
			int func = (i + c) % 3 + 1;
			struct call_rec k = call(id + 1 + c, 100, func, first[i], id + 1 + c, 10);

			ck_assert_int_eq(db_put_call(db, &k), 0);
			want[i][func == 1 ? FUNC_KERNEL : func == 2 ? FUNC_SYSCALL : FUNC_UPROBE]++;
		}
		c = call(last[i], 200, 1, DARC_NULL, last[i], 10);
		ck_assert_int_eq(db_put_call(db, &c), 0);
		id = last[i] + 1;
	}
	ck_assert_int_eq(db_put_task(db, &(struct task_rec){100, 100, "fio"}), 0);
	ck_assert_int_eq(db_put_task(db, &(struct task_rec){200, 200, "cat"}), 0);
	ck_assert_int_eq(db_put_recording(db, &r), 0);
	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
	rd = rdb_open(target, &err);
	ck_assert_msg(rd, "%s", err.msg);
	return rd;
}

/*
 * The shift priced from the counts a search made as it read the calls
 * (tracer_shift_prime(), on one thread or two) is the one priced from the
 * calls read again; each f0 call is counted by kind, not itself nor another
 * task's call among its ids.
 */
START_TEST(test_shift_counted)
{
	uint32_t want[8][4];
	int64_t first[8], last[8];
	struct rdb *db = make_roots_db(want, first, last), *fresh;
	struct call_selection sel = RSEL_INIT;
	struct tracer_shift a, b;
	struct rsearch rs;
	struct err_msg err;
	const uint32_t *n;

	shift_of(db, RM_INCL, 1, &a); /* the subtrees read by the pricing */
	ck_assert_int_gt(a.n, 3);
	ck_assert_ptr_null(search_db_kinds_of(db, first[0], last[0], 100));
	rdb_close(db);
	sel.func = "vfs_read";
	for (int two = 0; two < 2; two++) {
		search_db_share_min = two ? 1 : 1 << 30;
		fresh = rdb_open(target, &err);
		ck_assert_msg(fresh, "%s", err.msg);
		tracer_shift_prime(fresh, &sel);
		ck_assert_msg(search_db_load(fresh, &sel, 0, 61, &rs, &err) == 0, "%s", err.msg);
		search_db_release(&rs);
		for (int i = 0; i < 8; i++) {
			n = search_db_kinds_of(fresh, first[i], last[i], 100);
			ck_assert_msg(n && !memcmp(n, want[i], sizeof(want[i])),
				      "f0 call %d (two threads: %d): not counted as it is", i, two);
		}
		ck_assert_ptr_null(search_db_kinds_of(fresh, first[0], last[0] - 1, 100));
		shift_of(fresh, RM_INCL, 1, &b);
		ck_assert_int_eq(a.n, b.n);
		ck_assert_mem_eq(a.b, b.b, a.n * sizeof(*a.b));
		tracer_shift_release(&b);
		rdb_close(fresh);
	}
	search_db_share_min = 100000;
	tracer_shift_release(&a);
}
END_TEST

static int released;

static void release(void *p)
{
	released += *(int *)p;
}

/* rdb_memo(): kept by key until rdb_close(), which releases each; a key once. */
START_TEST(test_memo)
{
	struct rdb *db = make_db(NULL, NULL);
	static int one = 1, ten = 10;

	released = 0;
	ck_assert_ptr_null(rdb_memo(db, "a"));
	ck_assert_int_eq(rdb_memo_keep(db, "a", &one, release), 0);
	ck_assert_int_eq(rdb_memo_keep(db, "a", &ten, release), -1);
	ck_assert_ptr_eq(rdb_memo(db, "a"), &one);
	for (int i = 1; i < RDB_MEMOS; i++)
		ck_assert_int_eq(rdb_memo_keep(db, i == 1 ? "b" : i == 2 ? "c" : "d", &ten, release), 0);
	ck_assert_int_eq(rdb_memo_keep(db, "e", &ten, release), -1);
	ck_assert_ptr_null(rdb_memo(db, "e"));
	ck_assert_int_eq(released, 0);
	rdb_close(db);
	ck_assert_int_eq(released, 1 + 10 * (RDB_MEMOS - 1));
}
END_TEST

/*
 * rdb_memo_zeroed(): the value kept under a key, else a new zeroed one kept
 * there (released at rdb_close()); NULL when no more can be kept.
 */
START_TEST(test_memo_zeroed)
{
	struct rdb *db = make_db(NULL, NULL);
	static int one = 1;
	int64_t *z;

	ck_assert_int_eq(rdb_memo_keep(db, "a", &one, release), 0);
	ck_assert_ptr_eq(rdb_memo_zeroed(db, "a", sizeof(*z), free), &one);
	z = rdb_memo_zeroed(db, "b", 4 * sizeof(*z), free);
	ck_assert_ptr_nonnull(z);
	ck_assert(!z[0] && !z[3]);
	z[3] = 7;
	ck_assert_ptr_eq(rdb_memo_zeroed(db, "b", 4 * sizeof(*z), free), z);
	ck_assert_ptr_eq(rdb_memo(db, "b"), z);
	for (int i = 2; i < RDB_MEMOS; i++)
		ck_assert_ptr_nonnull(rdb_memo_zeroed(db, i == 2 ? "c" : "d", 8, free));
	ck_assert_ptr_null(rdb_memo_zeroed(db, "e", 8, free));
	ck_assert_ptr_null(rdb_memo(db, "e"));
	released = 0;
	rdb_close(db);
	ck_assert_int_eq(released, 1);
}
END_TEST

START_TEST(test_recorder_task)
{
	struct rdb *db = make_db(NULL, "{\"recorder\":{\"pid\":400}}");
	struct tracer_shift t;
	char who[32] = "";

	shift_of(db, RM_INCL, 1, &t); /* no tracer_cost: all unknown, nothing shifted */
	ck_assert(isnan(t.cost.ns[TC_FGRAPH]) && isnan(t.cost.own_ns) && !t.stored && !t.n);
	tracer_shift_release(&t);
	ck_assert_int_eq(tracer_shift_recorder_task(db, 100, who, sizeof(who)), 0);
	ck_assert_int_eq(tracer_shift_recorder_task(db, 200, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "trace-cmd");
	ck_assert_int_eq(tracer_shift_recorder_task(db, 300, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "darc-record");
	/* a thread of the manifest's recorder pid, whatever its name */
	ck_assert_int_eq(tracer_shift_recorder_task(db, 401, who, sizeof(who)), 1);
	ck_assert_int_eq(tracer_shift_recorder_task(db, 999, who, sizeof(who)), 0);
	rdb_close(db);
}
END_TEST

/* ---- along-check: a --along recording's workload against its database's ---- */

START_TEST(test_along_check)
{
	struct err_msg err;
	struct db *db = db_create(target, true, &err);
	struct func_rec f = {1, "__x64_sys_pread64", FUNC_KERNEL, DARC_NULL, NULL, 0};
	struct fnode_rec n = {.id = 1, .parent_id = DARC_NULL, .func_id = 1, .calls = 100};
	struct hist_rec h[] = {{OWNER_FNODE, 1, 0, 1, 15, 50}, {OWNER_FNODE, 1, 0, 1, 19, 50}};
	char msg[1024];
	sqlite3 *s;

	ck_assert_msg(db, "%s", err.msg);
	ck_assert_int_eq(db_put_func(db, &f), 0);
	ck_assert_int_eq(db_put_fnode(db, &n), 0);
	for (size_t i = 0; i < sizeof(h) / sizeof(*h); i++)
		ck_assert_int_eq(db_put_hist(db, &h[i]), 0);
	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(sqlite3_open_v2(target, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* the same shape one bucket higher there (more was traced): as there */
	ck_assert_int_eq(along_check(s, "{\"along\":{\"db\":\"a.db\",\"profile\":[{\"path\":"
				     "\"__x64_sys_pread64\",\"hist\":{\"16\":48,\"20\":52}}]}}",
				     msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "100 calls here, 100 there") &&
		      strstr(msg, "a bucket lower: the workload is as there"), "%s", msg);
	/* all of them slow there: changed */
	ck_assert_int_eq(along_check(s, "{\"along\":{\"db\":\"a.db\",\"profile\":[{\"path\":"
				     "\"__x64_sys_pread64\",\"hist\":{\"19\":100}}]}}",
				     msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, "the workload changed"), "%s", msg);
	/* five times the calls there: changed */
	ck_assert_int_eq(along_check(s, "{\"along\":{\"db\":\"a.db\",\"profile\":[{\"path\":"
				     "\"__x64_sys_pread64\",\"hist\":{\"15\":250,\"19\":250}}]}}",
				     msg, sizeof(msg)), 1);
	/* an entry point that is not here; and none at all */
	ck_assert_int_eq(along_check(s, "{\"along\":{\"db\":\"a.db\",\"profile\":[{\"path\":"
				     "\"x > y\",\"hist\":{\"10\":5}}]}}", msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, "x > y: no calls here, 5 there"), "%s", msg);
	ck_assert_int_eq(along_check(s, "{\"along\":null}", msg, sizeof(msg)), -1);
	sqlite3_close(s);
}
END_TEST

/*
 * The profiles of a real pair: the dio workload under darc-record -g in the
 * 5.10 guest, then under --along (less traced: the cached reads two buckets
 * faster, the disk reads one). The same workload: bucket by bucket 36%
 * apart at best (the total variation distance said it changed), 27% by
 * the cumulative shares.
 */
START_TEST(test_along_check_real)
{
	static const int64_t before[][2] = {{17, 1},  {18, 52}, {19, 4}, {20, 12},
					    {21, 38}, {22, 32}, {23, 11}};
	static const int64_t after[][2] = {{16, 9},  {17, 52}, {18, 10}, {19, 6},
					   {20, 11}, {21, 11}, {22, 38}, {23, 13}};
	struct err_msg err;
	struct db *db = db_create(target, true, &err);
	struct func_rec f = {1, "__x64_sys_pread64", FUNC_KERNEL, DARC_NULL, NULL, 0};
	struct fnode_rec n = {.id = 1, .parent_id = DARC_NULL, .func_id = 1, .calls = 150};
	char msg[1024], manifest[1024];
	size_t at;
	sqlite3 *s;

	ck_assert_msg(db, "%s", err.msg);
	ck_assert_int_eq(db_put_func(db, &f), 0);
	ck_assert_int_eq(db_put_fnode(db, &n), 0);
	for (size_t i = 0; i < sizeof(after) / sizeof(*after); i++) {
		struct hist_rec h = {OWNER_FNODE, 1, 0, 1, (int)after[i][0], after[i][1]};
		ck_assert_int_eq(db_put_hist(db, &h), 0);
	}
	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
	at = snprintf(manifest, sizeof(manifest), "{\"along\":{\"db\":\"dio.db\",\"profile\":"
			    "[{\"path\":\"__x64_sys_pread64\",\"hist\":{");
	for (size_t i = 0; i < sizeof(before) / sizeof(*before); i++)
		at += snprintf(manifest + at, sizeof(manifest) - at, "%s\"%lld\":%lld",
			       i ? "," : "", (long long)before[i][0], (long long)before[i][1]);
	snprintf(manifest + at, sizeof(manifest) - at, "}}]}}");
	ck_assert_int_eq(sqlite3_open_v2(target, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(along_check(s, manifest, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "27% apart with this one a bucket lower: the workload is as there"),
		      "%s", msg);
	ck_assert_int_eq(along_check(s, NULL, msg, sizeof(msg)), -1);
	sqlite3_close(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tracer-cost");
	TCase *t = tcase_create("pure"), *d = tcase_create("db");

	tcase_add_test(t, test_bucket_edges);
	tcase_add_test(t, test_shift);
	tcase_add_test(t, test_share);
	tcase_add_test(t, test_estimate);
	tcase_add_test(t, test_est_json);
	tcase_add_checked_fixture(d, setup, teardown);
	tcase_add_test(d, test_load_counts);
	tcase_add_test(d, test_hist_shift);
	tcase_add_test(d, test_recorder_task);
	tcase_add_test(d, test_shift_again);
	tcase_add_test(d, test_shift_counted);
	tcase_add_test(d, test_memo);
	tcase_add_test(d, test_memo_zeroed);
	tcase_add_test(d, test_along_check);
	tcase_add_test(d, test_along_check_real);
	suite_add_tcase(s, t);
	suite_add_tcase(s, d);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
