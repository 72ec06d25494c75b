// SPDX-License-Identifier: MIT
/*
 * Unit tests of a wait followed to what ended it across tasks: the walk of
 * analyze/report/explain-chain.c on made-up timelines (each task's
 * off-CPU intervals), and explain-wake.c on a database built here: a remote
 * wake-up traced to the call that queued it, and an interrupt the
 * recording does not name said as such, with what to record, never the
 * timer.
 */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "explain-chain.h"
#include "explain-wake.h"
#include "rdb.h"
#include "unit-run.h"

#define MS 1000000
#define NEVER INT64_MAX

/* The timelines of tasks 1..4: each task's off-CPU intervals, by t_out. */
static struct chain_off offs[5][16];
static int noffs[5];

static int source(void *ctx, int64_t tid, const struct chain_off **out)
{
	(void)ctx;
	*out = offs[tid];
	return tid >= 0 && tid < 5 ? noffs[tid] : 0;
}

/* Task 3's switches are not all in the recording (a pid filter): the walk's unseen(). */
static int unseen(void *ctx, int64_t tid, int64_t lo, int64_t hi)
{
	(void)ctx;
	(void)lo;
	(void)hi;
	return tid == 3;
}

static const struct chain_source src = {source, NULL, NULL};
static const struct chain_source src_filtered = {source, NULL, unseen};

static void reset(void)
{
	memset(offs, 0, sizeof(offs));
	memset(noffs, 0, sizeof(noffs));
}

/* Task @tid asleep [@out, @in), woken at @wake by what @end says (@who: the task, or bios). */
static struct chain_off *sleep_of(int tid, int64_t out, int64_t in, int64_t wake, int end,
			       int64_t who)
{
	struct chain_off *o = &offs[tid][noffs[tid]++];

	*o = (struct chain_off){out, in, 0, wake, end, end == CH_WAKER ? who : 0,
			     end == CH_DISK ? who : 0, NULL, 0};
	return o;
}

/* The step of @r under @parent of @kind (and task @tid for a waker), or -1. */
static int find(const struct chain_result *r, int parent, int kind, int64_t tid)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].parent == parent && r->v[i].kind == kind && r->v[i].tid == tid)
			return i;
	return -1;
}

/* The ns of the steps under @parent, summed: each step's time is split exactly below it. */
static double under(const struct chain_result *r, int parent)
{
	double ns = 0;

	for (int i = 0; i < r->n; i++)
		ns += r->v[i].parent == parent ? r->v[i].ns : 0;
	return ns;
}

/*
 * The pipe: a consumer (task 1) asleep in pipe_read for 25 ms,
 * woken by the producer (task 2), which itself slept 21.5 ms of that for
 * the disk (its O_DIRECT read), sat 0.5 ms runnable after its wake-up, and
 * ran the rest (to read and write the pipe). The consumer's wait is the
 * producer's, and behind it the disk's.
 */
START_TEST(test_walk_pipe)
{
	struct chain_result r = {0};
	struct chain_off *s;
	int p, d;

	reset();
	s = sleep_of(1, 0, 25 * MS, 24900000, CH_WAKER, 2);
	s->what = "pipe_write";
	sleep_of(2, 1 * MS, 23 * MS, 22500000, CH_DISK, 1);
	ck_assert_int_eq(chain_add_sleep(&r, &src, s), 0);
	p = chain_top(&r, -1);
	ck_assert_int_ge(p, 0);
	ck_assert_int_eq(r.v[p].kind, CH_WAKER);
	ck_assert_int_eq(r.v[p].tid, 2);
	ck_assert_str_eq(r.v[p].what, "pipe_write");
	ck_assert_double_eq(r.v[p].ns, 24900000);
	ck_assert_double_eq(r.v[find(&r, -1, CH_DELAY, 0)].ns, 100000); /* the consumer's run delay */
	d = chain_top(&r, p);
	ck_assert_int_eq(r.v[d].kind, CH_DISK);
	ck_assert_double_eq(r.v[d].ns, 21500000);
	ck_assert_int_eq(r.v[d].n, 1);
	ck_assert_double_eq(r.v[find(&r, p, CH_DELAY, 0)].ns, 500000);
	ck_assert_double_eq(r.v[find(&r, p, CH_RUN, 0)].ns, 1 * MS + 1900000);
	ck_assert_double_eq(under(&r, p), r.v[p].ns);
	ck_assert_double_eq(under(&r, -1), 25 * MS);
	chain_release(&r);
}
END_TEST

/*
 * vm-chain's rounds: A (1) reads a pipe B (2) writes, B reads one C (3)
 * writes, C sleeps 2 ms (a timer) before each write: A's wait is B's, B's
 * is C's, C's the timer's. And a waker preempted for a while, one whose
 * time the recording does not show.
 */
START_TEST(test_walk_three)
{
	struct chain_result r = {0};
	struct chain_off *s;
	int b, c, t;

	reset();
	s = sleep_of(1, 0, 3 * MS, 2900000, CH_WAKER, 2);
	sleep_of(2, 100000, 2800000, 2700000, CH_WAKER, 3);
	sleep_of(3, 200000, 2400000, 2300000, CH_TIMER, 0)->what = "local_timer_entry";
	offs[3][noffs[3]++] = (struct chain_off){2450000, 2550000, 1, NEVER, 0, 0, 0, NULL, 0};
	ck_assert_int_eq(chain_add_sleep(&r, &src, s), 0);
	b = chain_top(&r, -1);
	ck_assert_int_eq(r.v[b].tid, 2);
	c = chain_top(&r, b);
	ck_assert_int_eq(r.v[c].kind, CH_WAKER);
	ck_assert_int_eq(r.v[c].tid, 3);
	ck_assert_double_eq(r.v[c].ns, 2600000); /* B asleep from 0.1 until C woke it at 2.7 */
	t = chain_top(&r, c);
	ck_assert_int_eq(r.v[t].kind, CH_TIMER);
	ck_assert_str_eq(r.v[t].what, "local_timer_entry");
	ck_assert_double_eq(r.v[t].ns, 2100000);
	ck_assert_double_eq(r.v[find(&r, c, CH_PREEMPT, 0)].ns, 100000);
	ck_assert_double_eq(under(&r, c), r.v[c].ns);
	chain_release(&r);

	/* a waker with nothing recorded: its time is not known, not "running" */
	reset();
	s = sleep_of(1, 0, 3 * MS, 3 * MS, CH_WAKER, 4);
	ck_assert_int_eq(chain_add_sleep(&r, &src, s), 0);
	ck_assert_int_eq(chain_top(&r, chain_top(&r, -1)), find(&r, 0, CH_UNSEEN, 0));
	ck_assert_int_eq(find(&r, 0, CH_RUN, 0), -1);
	chain_release(&r);

	/*
	 * a waker whose switches are not all recorded (C behind a pid filter):
	 * its time is not known either, though some intervals of it are there
	 * (the timer that ended one of its sleeps is no part of the chain)
	 */
	reset();
	s = sleep_of(1, 0, 3 * MS, 2900000, CH_WAKER, 2);
	sleep_of(2, 100000, 2800000, 2700000, CH_WAKER, 3);
	sleep_of(3, 200000, 2400000, 2300000, CH_TIMER, 0)->what = "local_timer_entry";
	ck_assert_int_eq(chain_add_sleep(&r, &src_filtered, s), 0);
	c = chain_top(&r, chain_top(&r, -1));
	ck_assert_int_eq(r.v[c].tid, 3);
	t = chain_top(&r, c);
	ck_assert_int_eq(r.v[t].kind, CH_UNSEEN);
	ck_assert_double_eq(r.v[t].ns, r.v[c].ns);
	ck_assert_int_eq(find(&r, c, CH_TIMER, 0), -1);
	chain_release(&r);
}
END_TEST

/*
 * Task 1 asleep until @wake, woken by task 2, which waited for the disk three
 * times ([from, to) each, @ends[k][0..1]), woken in irq 25 or 26
 * (@ends[k][2]): the disk step of its time, in *@r.
 */
static const struct chain_step *disk_of(struct chain_result *r, int64_t wake,
					const int64_t ends[3][3])
{
	struct chain_off *s = sleep_of(1, 0, wake, wake, CH_WAKER, 2);

	for (int k = 0; k < 3; k++)
		sleep_of(2, ends[k][0], ends[k][1], ends[k][1], CH_DISK, 1)->what =
		    ends[k][2] == 25 ? "irq 25 (virtio0-req.0)" : "irq 26 (virtio0-req.1)";
	ck_assert_int_eq(chain_add_sleep(r, &src, s), 0);
	return &r->v[chain_top(r, chain_top(r, -1))];
}

/* A disk wait is named by the interrupt that ended most of it (two queues of one disk). */
START_TEST(test_walk_disk_irq)
{
	static const int64_t two[3][3] = {{0, 1 * MS, 25}, {2 * MS, 5 * MS, 26}, {6 * MS, 7 * MS, 25}};
	static const int64_t three[3][3] = {{0, 2 * MS, 25}, {3 * MS, 5 * MS, 26},
					    {6 * MS, 8 * MS, 25}};
	struct chain_result r = {0};
	const struct chain_step *d;

	reset();
	d = disk_of(&r, 8 * MS, two);
	ck_assert_int_eq(d->kind, CH_DISK);
	ck_assert_double_eq(d->ns, 5 * MS);
	ck_assert_int_eq(d->n, 3);
	ck_assert_str_eq(d->what, "irq 26 (virtio0-req.1)"); /* 3 ms of 5, the last seen first */
	chain_release(&r);
	reset();
	d = disk_of(&r, 10 * MS, three);
	ck_assert_str_eq(d->what, "irq 25 (virtio0-req.0)"); /* 4 ms of 6 */
	chain_release(&r);
}
END_TEST

/* Two tasks waking each other back and forth: followed CH_DEPTH deep, then no further. */
START_TEST(test_walk_depth)
{
	struct chain_result r = {0};
	struct chain_off *s;
	int i, depth = 0;

	reset();
	for (int k = 0; k < 12; k++) /* each sleeps 1..10 ms less 0.1 ms a round */
		sleep_of(1 + k % 2, k * 100000, 10 * MS - k * 100000, 10 * MS - k * 100000 - 1,
			 CH_WAKER, 2 - k % 2);
	s = &offs[1][0];
	ck_assert_int_eq(chain_add_sleep(&r, &src, s), 0);
	for (i = chain_top(&r, -1); i >= 0 && r.v[i].kind == CH_WAKER; i = chain_top(&r, i))
		depth++;
	ck_assert_int_eq(depth, CH_DEPTH);
	ck_assert_int_eq(r.v[i].kind, CH_DEEPER);
	chain_release(&r);
}
END_TEST

/* ---- explain-wake.c on a database ---- */

static char path[64];
static struct db *w;

/* A call, and its fnode (a call's function and depth are its fnode's: schema 14). */
static void put_call(int64_t id, int64_t task, int64_t func, int64_t parent, int64_t fnode,
		     int cpu, int64_t t0, int64_t t1, int64_t blocked)
{
	int32_t depth = parent == DARC_NULL ? 0 : 1;

	ck_assert_int_eq(db_put_fnode(w, &(struct fnode_rec){.id = fnode, .parent_id = depth ?
		fnode - 1 : DARC_NULL, .func_id = func, .depth = depth}), 0);
	ck_assert_int_eq(db_put_call(w, &(struct call_rec){.id = id, .task_id = task,
		.func_id = func, .parent_id = parent, .last_id = parent == DARC_NULL ? id + 1 : id,
		.fnode_id = fnode, .interrupted_id = DARC_NULL, .cpu = cpu, .t_entry = t0,
		.t_exit = t1, .incl_ns = t1 - t0, .blocked_ns = blocked, .excl_ns = t1 - t0 - blocked,
		.retval = DARC_NULL}), 0);
}

/*
 * The futex waits in a trace-cmd -F recording: a waiter (101) in
 * futex_wait_queue asleep 1 ms, woken at 1.9 ms in a hard interrupt on its
 * idle CPU 0 that no event names (the idle CPU's events are filtered out);
 * the holder (102), on CPU 1, entered futex_wake 77 us before. With
 * @waker_call false there is no such call, and with @irqs the recording
 * has interrupt events, but none of an idle CPU.
 */
static struct rdb *futex_db(bool waker_call, bool irqs)
{
	struct err_msg err;
	struct rdb *db;

	snprintf(path, sizeof(path), "/tmp/darc-unit-XXXXXX");
	close(mkstemp(path));
	w = db_create(path, true, &err);
	ck_assert_msg(w, "%s", err.msg);
	ck_assert_int_eq(db_put_task(w, &(struct task_rec){101, 100, "waiter"}), 0);
	ck_assert_int_eq(db_put_task(w, &(struct task_rec){102, 100, "holder"}), 0);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){1, "__x64_sys_futex", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){2, "futex_wait_queue", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){3, "futex_wake", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	put_call(1, 101, 1, DARC_NULL, 1, 0, 900000, 2100000, 0);
	put_call(2, 101, 2, 1, 2, 0, 950000, 2050000, 1 * MS);
	if (waker_call) {
		put_call(3, 102, 1, DARC_NULL, 3, 1, 1800000, 1900000, 0);
		put_call(4, 102, 3, 3, 4, 1, 1823000, 1850000, 0);
	}
	ck_assert_int_eq(db_put_wakeup(w, &(struct wakeup_rec){1, 101, 1900000, 0, 0, CTX_HARDIRQ,
								 DARC_NULL, ""}), 0);
	ck_assert_int_eq(db_put_sched(w, &(struct sched_rec){1, 101, SCHED_BLOCKED, 1, 0, 0, 1 * MS,
							       2 * MS, 2, 1}), 0);
	if (irqs) /* an interrupt of the holder's: events there are, but none of idle CPUs */
		ck_assert_int_eq(db_put_irq(w, &(struct irq_rec){1, 1, IRQ_HARD, 25, "virtio0-req.0",
								  1700000, 1710000, 102, DARC_NULL}), 0);
	ck_assert_msg(db_finish(w, &err) == 0, "%s", err.msg);
	db = rdb_open(path, &err);
	ck_assert_msg(db, "%s", err.msg);
	/* the search's calls: the waiter's futex call and its sleeping callee, by fnode */
	ck_assert_int_eq(sqlite3_exec(rdb_sql(db), "CREATE TEMP TABLE sr_sub(id INTEGER PRIMARY KEY,"
					" parent INTEGER, fnode INTEGER NOT NULL);"
					" INSERT INTO sr_sub SELECT id, parent_id, fnode_id"
					" FROM call WHERE id IN (1, 2)",
				      NULL, NULL, NULL), SQLITE_OK);
	return db;
}

/* The category view wait gives the waiter's sleep. */
static const char *category(struct rdb *db)
{
	static char buf[64];
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_prepare_v2(rdb_sql(db), "SELECT category FROM wait WHERE id = 1",
					    -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static void done(struct rdb *db)
{
	rdb_close(db);
	unlink(path);
}

/* The remote wake-up through an IPI: traced to the holder's futex_wake, 77 us before. */
START_TEST(test_wake_remote)
{
	struct rdb *db = futex_db(true, false);
	json_t *j = wake_chain(db, 2), *first;

	ck_assert_ptr_nonnull(j);
	first = json_array_get(json_object_get(j, "chain"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(first, "kind")), "waker");
	ck_assert_str_eq(json_string_value(json_object_get(first, "who")), "holder [102]");
	ck_assert_str_eq(json_string_value(json_object_get(first, "what")), "futex_wake");
	ck_assert_int_eq(json_integer_value(json_object_get(first, "lag_ns")), 77000);
	ck_assert_ptr_null(json_object_get(j, "unknown"));
	json_decref(j);
	done(db);
}
END_TEST

/*
 * No call queued it, and the recording holds no interrupt of an idle CPU:
 * an interrupt it does not name, said with what to record, not a timer;
 * and with no interrupt events at all, that.
 */
START_TEST(test_wake_unknown)
{
	struct rdb *db = futex_db(false, true);
	json_t *j = wake_chain(db, 2), *first, *u;
	const char *advice;

	ck_assert_ptr_nonnull(j);
	first = json_array_get(json_object_get(j, "chain"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(first, "kind")), "unknown");
	ck_assert_ptr_null(json_object_get(first, "who"));
	u = json_object_get(j, "unknown");
	ck_assert_int_eq(json_integer_value(json_object_get(u, "wakeups")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(u, "idle")), 1);
	advice = json_string_value(json_object_get(u, "advice"));
	ck_assert_ptr_nonnull(strstr(advice, "idle CPUs are not in the recording"));
	ck_assert_ptr_null(strstr(advice, "timer"));
	json_decref(j);
	done(db);
	db = futex_db(false, false);
	j = wake_chain(db, 2);
	advice = json_string_value(json_object_get(json_object_get(j, "unknown"), "advice"));
	ck_assert_str_eq(advice, "the recording has no irq events: record irq and irq_vectors events");
	ck_assert_str_eq(category(db), "unknown interrupt"); /* view wait: not 'timed out' */
	json_decref(j);
	done(db);
}
END_TEST

/*
 * darc info's warning: wake-ups from hard interrupts with no irq event to
 * name them; then, irq events there are, but none of an idle CPU while
 * wake-ups came from interrupts there (trace-cmd -F); then nothing to say.
 */
START_TEST(test_evidence)
{
	static struct wake_evidence e;
	char buf[256];

	memset(&e, 0, sizeof(e));
	ck_assert_ptr_null(wake_evidence_warning(&e, buf, sizeof(buf)));
	wake_evidence_add(&e, 5, "sched", "sched_waking", 0, 0x08); /* on an idle CPU, in an irq */
	wake_evidence_add(&e, 5, "sched", "sched_waking", 33, 0x18); /* a softirq on irq exit */
	wake_evidence_add(&e, 6, "sched", "sched_switch", 0, 0x08);
	ck_assert_int_eq(e.hard, 1);
	ck_assert_ptr_nonnull(wake_evidence_warning(&e, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "1 wake-ups came from hard interrupts, and the recording"
					  " has no irq events"));
	wake_evidence_add(&e, 7, "irq", "irq_handler_entry", 33, 0x08); /* a task's, not idle's */
	ck_assert_ptr_nonnull(wake_evidence_warning(&e, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "interrupts of idle CPUs are not in the recording"));
	wake_evidence_add(&e, 8, "irq_vectors", "local_timer_entry", 0, 0x08);
	ck_assert_ptr_null(wake_evidence_warning(&e, buf, sizeof(buf)));
	ck_assert_int_eq(e.irqs_idle, 1);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("chain");

	tcase_add_test(tc, test_walk_pipe);
	tcase_add_test(tc, test_walk_three);
	tcase_add_test(tc, test_walk_disk_irq);
	tcase_add_test(tc, test_walk_depth);
	tcase_add_test(tc, test_wake_remote);
	tcase_add_test(tc, test_wake_unknown);
	tcase_add_test(tc, test_evidence);
	return unit_run(unit_suite("chain", tc));
}
