// SPDX-License-Identifier: MIT
/*
 * irq_episode(cpu, t) against the query it replaces (irq-episode.h), on an
 * in-memory irq_interval: fixed cases (nesting, an end not seen, two begun
 * together, unnamed and soft ones, NULL arguments), then every time from
 * -1 to 400 on intervals a fixed-seed generator nests and overlaps.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "irq-episode.h"
#include "unit-run.h"

static const char reference_sql[] =
    "SELECT (SELECT id FROM irq_interval i WHERE i.cpu = ?1 AND i.kind = 0 AND i.name != ''"
    " AND i.t_start <= ?2 AND (i.t_end IS NULL OR i.t_end >= ?2)"
    " ORDER BY i.t_start DESC, i.id DESC LIMIT 1), irq_episode(?1, ?2)";

static sqlite3 *open_db(void)
{
	sqlite3 *s;

	ck_assert_int_eq(sqlite3_open(":memory:", &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s,
				      "CREATE TABLE irq_interval (id INTEGER PRIMARY KEY, cpu INTEGER"
				      " NOT NULL, kind INTEGER NOT NULL, irq INTEGER, name TEXT,"
				      " t_start INTEGER, t_end INTEGER, task_id INTEGER, call_id"
				      " INTEGER)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(irq_episode_register(s), SQLITE_OK);
	return s;
}

static void add(sqlite3 *s, int64_t id, int cpu, int kind, const char *name, int64_t start,
		int64_t end)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_prepare_v2(s, "INSERT INTO irq_interval VALUES (?1, ?2, ?3, NULL,"
					   " ?4, ?5, ?6, NULL, NULL)", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, cpu);
	sqlite3_bind_int(st, 3, kind);
	if (name)
		sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, start);
	if (end >= 0) /* else NULL: its end not seen */
		sqlite3_bind_int64(st, 6, end);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* Both answers at (@cpu, @t) (NULL as -1); the number of times they differ. */
static int differ(sqlite3 *s, sqlite3_stmt *st, int cpu, int64_t t, int64_t *got)
{
	int64_t ref, fn;

	sqlite3_reset(st);
	sqlite3_bind_int(st, 1, cpu);
	sqlite3_bind_int64(st, 2, t);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ref = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	fn = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
	if (got)
		*got = fn;
	if (ref != fn)
		fprintf(stderr, "cpu %d t %lld: query %lld, irq_episode %lld\n", cpu, (long long)t,
			(long long)ref, (long long)fn);
	(void)s;
	return ref != fn;
}

START_TEST(test_fixed)
{
	sqlite3 *s = open_db();
	/* cpu, time, the interval (-1: none) */
	static const int64_t want[][3] = {{0, 22, 3}, {0, 27, 2}, {0, 45, 1}, {0, 101, -1},
					  {0, 1000000, 7}, {1, 6, 8}, {2, 50, -1}};
	sqlite3_stmt *st;
	int64_t got;
	int bad = 0;

	add(s, 1, 0, 0, "outer", 10, 100);   /* holds 2 and 3 */
	add(s, 2, 0, 0, "inner", 20, 30);
	add(s, 3, 0, 0, "twin", 20, 25);     /* begun with 2: the greater id first */
	add(s, 4, 0, 0, "", 40, 50);	     /* unnamed: never */
	add(s, 5, 0, 1, "TIMER", 60, 70);    /* softirq: never */
	add(s, 6, 0, 0, NULL, 80, 90);	     /* no name: never */
	add(s, 7, 0, 0, "open", 200, -1);    /* end not seen: holds every later time */
	add(s, 8, 1, 0, "other cpu", 5, 300);
	ck_assert_int_eq(sqlite3_prepare_v2(s, reference_sql, -1, &st, NULL), SQLITE_OK);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bad += differ(s, st, (int)want[i][0], want[i][1], &got);
		ck_assert_int_eq(got, want[i][2]);
	}
	for (int64_t t = 0; t <= 310; t++)
		bad += differ(s, st, 0, t, NULL) + differ(s, st, 1, t, NULL);
	ck_assert_int_eq(bad, 0);
	/* NULL arguments hold nothing, as in the query */
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT irq_episode(NULL, 22) IS NULL"
					   " AND irq_episode(0, NULL) IS NULL", -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(s);
}
END_TEST

START_TEST(test_generated)
{
	sqlite3 *s = open_db();
	sqlite3_stmt *st;
	uint32_t x = 12345; /* a fixed seed: one tree, one result */
	int bad = 0;

	ck_assert_int_eq(sqlite3_exec(s, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	for (int id = 1; id <= 300; id++) {
		int64_t start, len;
		x = x * 1103515245u + 12345u;
		start = (x >> 8) % 400;
		x = x * 1103515245u + 12345u;
		len = (x >> 8) % 7 == 0 ? 120 : (x >> 8) % 12; /* mostly short, some long */
		x = x * 1103515245u + 12345u;
		add(s, id, (int)((x >> 8) % 3), (x >> 12) % 9 == 0, (x >> 16) % 11 ? "h" : "",
		    start, (x >> 20) % 53 == 0 ? -1 : start + len);
	}
	ck_assert_int_eq(sqlite3_exec(s, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(s, reference_sql, -1, &st, NULL), SQLITE_OK);
	for (int cpu = 0; cpu < 4; cpu++)
		for (int64_t t = -1; t <= 600; t++)
			bad += differ(s, st, cpu, t, NULL);
	ck_assert_int_eq(bad, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("irq_episode");

	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_generated);
	return unit_run(unit_suite("irq_episode", tc));
}
