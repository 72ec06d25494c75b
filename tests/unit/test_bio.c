// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/bio.c: hand-built block event sequences in, bio rows
 * out: a completion on another CPU in irq context, merged bios, a key reused
 * before its completion, a requeue, a completion with no submission, and a
 * bio still open at the end.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bio.h"
#include "unit-run.h"

#define MAXB 16
static struct bio_rec rows[MAXB];
static int nrows;
static struct bios *b;

static int put(void *ctx, const struct bio_rec *r)
{
	ck_assert_int_lt(nrows, MAXB);
	rows[nrows++] = *r;
	return 0;
}

static void setup(void)
{
	nrows = 0;
	b = bios_new(put, NULL);
	ck_assert_ptr_nonnull(b);
}

static void teardown(void)
{
	bios_free(b);
}

/* A block event: kind, time, cpu, pid, flags, sector, sectors. */
static void ev(int kind, int64_t t, int cpu, int pid, uint8_t flags, int64_t sector, int nr)
{
	struct analysis_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.t = t;
	e.cpu = cpu;
	e.pid = pid;
	e.flags = flags;
	e.blk.dev = (254 << 20) | 0;
	e.blk.sector = sector;
	e.blk.nr_sector = nr;
	e.blk.rwbs = "R";
	ck_assert_int_eq(bios_feed(b, &e, pid ? 1000 + pid : DARC_NULL), 0);
}

static const struct bio_rec *row_at(int64_t sector)
{
	for (int i = 0; i < nrows; i++)
		if (rows[i].sector == sector)
			return &rows[i];
	ck_abort_msg("no bio at sector %lld", (long long)sector);
	return NULL;
}

/* Submitted on CPU 0, completed in hardirq on CPU 1: every stage, the submitting call. */
START_TEST(test_other_cpu)
{
	ev(EVENT_BLK_QUEUE, 100, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_GETRQ, 110, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_INSERT, 120, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_ISSUE, 130, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_COMPLETE, 900, 1, 0, EVENT_F_HARDIRQ, 800, 8);
	ck_assert_int_eq(bios_finish(b), 0);
	ck_assert_int_eq(nrows, 1);
	ck_assert_int_eq(rows[0].t_queue, 100);
	ck_assert_int_eq(rows[0].t_getrq, 110);
	ck_assert_int_eq(rows[0].t_insert, 120);
	ck_assert_int_eq(rows[0].t_issue, 130);
	ck_assert_int_eq(rows[0].t_complete, 900);
	ck_assert_int_eq(rows[0].task_id, 7);
	ck_assert_int_eq(rows[0].call_id, 1007);
	ck_assert_int_eq(rows[0].queue_cpu, 0);
	ck_assert_int_eq(rows[0].complete_cpu, 1);
	ck_assert_int_eq(rows[0].complete_ctx, CTX_HARDIRQ);
	ck_assert_int_eq(rows[0].flags, 0);
	ck_assert_str_eq(rows[0].op, "R");
}
END_TEST

/* A back merge and a front merge: one request of 24 sectors completes all three. */
START_TEST(test_merged)
{
	ev(EVENT_BLK_QUEUE, 100, 0, 7, 0, 808, 8);
	ev(EVENT_BLK_GETRQ, 101, 0, 7, 0, 808, 8);
	ev(EVENT_BLK_QUEUE, 102, 0, 7, 0, 816, 8);
	ev(EVENT_BLK_MERGE, 103, 0, 7, 0, 816, 8);
	ev(EVENT_BLK_QUEUE, 104, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_MERGE, 105, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_ISSUE, 110, 0, 7, 0, 800, 24);
	ev(EVENT_BLK_COMPLETE, 500, 0, 0, EVENT_F_HARDIRQ, 800, 24);
	ck_assert_int_eq(nrows, 3);
	ck_assert_int_eq(row_at(808)->flags, 0);
	ck_assert_int_eq(row_at(816)->flags, BIO_MERGED);
	ck_assert_int_eq(row_at(800)->flags, BIO_MERGED);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rows[i].t_issue, 110);
		ck_assert_int_eq(rows[i].t_complete, 500);
	}
}
END_TEST

/* A key submitted again before it completed: the first is lost, the second completes. */
START_TEST(test_key_reused)
{
	ev(EVENT_BLK_QUEUE, 100, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_QUEUE, 200, 0, 8, 0, 800, 8);
	ev(EVENT_BLK_ISSUE, 210, 0, 8, 0, 800, 8);
	ev(EVENT_BLK_COMPLETE, 300, 1, 0, EVENT_F_SOFTIRQ, 800, 8);
	ck_assert_int_eq(nrows, 2);
	ck_assert_int_eq(rows[0].flags, BIO_LOST);
	ck_assert_int_eq(rows[0].task_id, 7);
	ck_assert(rows[0].t_complete == DARC_NULL);
	ck_assert_int_eq(rows[1].flags, 0);
	ck_assert_int_eq(rows[1].task_id, 8);
	ck_assert_int_eq(rows[1].complete_ctx, CTX_SOFTIRQ);
	ck_assert_int_lt(rows[0].id, rows[1].id);
}
END_TEST

/* A requeue keeps the first issue and says so. */
START_TEST(test_requeue)
{
	ev(EVENT_BLK_QUEUE, 100, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_ISSUE, 110, 0, 7, 0, 800, 8);
	ev(EVENT_BLK_REQUEUE, 150, 0, 0, 0, 800, 8);
	ev(EVENT_BLK_ISSUE, 160, 0, 0, 0, 800, 8);
	ev(EVENT_BLK_COMPLETE, 400, 0, 0, EVENT_F_HARDIRQ, 800, 8);
	ck_assert_int_eq(nrows, 1);
	ck_assert_int_eq(rows[0].flags, BIO_REQUEUED);
	ck_assert_int_eq(rows[0].t_issue, 110);
}
END_TEST

/* A completion with no submission, and a bio still open at the end. */
START_TEST(test_missing_ends)
{
	ev(EVENT_BLK_COMPLETE, 50, 1, 0, EVENT_F_HARDIRQ, 64, 8);
	ev(EVENT_BLK_QUEUE, 100, 0, 7, 0, 800, 8);
	ck_assert_int_eq(bios_finish(b), 0);
	ck_assert_int_eq(nrows, 2);
	ck_assert_int_eq(row_at(64)->flags, BIO_NO_QUEUE);
	ck_assert(row_at(64)->t_queue == DARC_NULL);
	ck_assert_int_eq(row_at(64)->t_complete, 50);
	ck_assert_int_eq(row_at(800)->flags, BIO_NO_COMPLETE);
	ck_assert(row_at(800)->t_complete == DARC_NULL);
	ck_assert_int_eq(bios_count(b), 2);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("lifetimes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_other_cpu);
	tcase_add_test(tc, test_merged);
	tcase_add_test(tc, test_key_reused);
	tcase_add_test(tc, test_requeue);
	tcase_add_test(tc, test_missing_ends);
	return unit_run(unit_suite("bio", tc));
}
