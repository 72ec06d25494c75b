// SPDX-License-Identifier: MIT
/*
 * Unit tests of schema/btree.c: rows written as SQLite's b-tree pages into a
 * page file, a database SQLite made copied into its head, then read back by
 * SQLite and checked by its own PRAGMA integrity_check. Small pages (512
 * bytes) make deep trees of few rows, and SQLite's lock-byte page is moved
 * (SQLITE_TESTCTRL_PENDING_BYTE) to page 201, where these trees pass over
 * it; SQLite's database is larger than the head left for it, or smaller.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "btree.h"
#include "rows.h"
#include "unit-run.h"

#define PS 512
#define PENDING (PS * 200) /* in page 201 */

static char dir[64], path[128], sql_path[128];
static uint32_t reserve = 64; /* pages of the head: SQLite makes 6 here */

static void setup(void)
{
	strcpy(dir, "/tmp/darc-btree-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	snprintf(sql_path, sizeof(sql_path), "%s/sql.db", dir);
}

static void teardown(void)
{
	unlink(path);
	unlink(sql_path);
	rmdir(dir);
}

/* Row @id's columns a, b, c: big, small (-1, 0, 1) and negative or NULL. */
static void row(int64_t id, int64_t v[4])
{
	v[0] = id;
	v[1] = id * 1000003;
	v[2] = id % 3 - 1;
	v[3] = id % 5 ? -(id << 40) : DARC_NULL;
}

/* One integer from @sql on the database. */
static int64_t one(sqlite3 *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	ck_assert_int_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The rows of ids @ids[0 .. n-1], in that order, into table t of a database
 * SQLite made with a table before and after it, the page file at @path. 0,
 * or -1 with @err set.
 */
static int put(const int64_t *ids, int n, struct err_msg *err)
{
	sqlite3 *s;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), sql_fd;
	struct pagefile *pf = btree_pagefile_new(fd, path, PS, reserve, PENDING);
	struct btree *t = btree_new(pf, "t", 4);
	uint32_t root, npages;
	int64_t v[4];
	int rc = 0;

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < n && !rc; i++) {
		row(ids[i], v);
		rc = btree_append(t, ids[i], v, err);
	}
	unlink(sql_path);
	ck_assert_int_eq(sqlite3_open(sql_path, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, "PRAGMA page_size = 512; CREATE TABLE a(x);"
					 " CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c);"
					 " CREATE TABLE z(x); INSERT INTO a VALUES (1); INSERT INTO z"
					 " VALUES (2)", NULL, NULL, NULL), SQLITE_OK);
	root = (uint32_t)one(s, "SELECT rootpage FROM sqlite_schema WHERE name = 't'");
	npages = (uint32_t)one(s, "PRAGMA page_count");
	ck_assert_int_eq(sqlite3_close(s), SQLITE_OK);
	sql_fd = open(sql_path, O_RDONLY);
	ck_assert_int_ge(sql_fd, 0);
	if (!rc)
		rc = btree_pagefile_head(pf, sql_fd, npages, err) || btree_place(t, root, err) ||
		     btree_build(t, root, err) || btree_pagefile_finish(pf, err) ? -1 : 0;
	close(sql_fd);
	close(fd);
	btree_free(t);
	btree_pagefile_free(pf);
	return rc;
}

/* SQLite reads back the rows of ids 1 .. @n, but those where @gone(id), and finds all sound. */
static void check_rows(int n, int (*gone)(int64_t id))
{
	sqlite3 *s;
	sqlite3_stmt *st;
	int64_t want = 1, v[4];

	ck_assert_int_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(s, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT id, a, b, c FROM t ORDER BY id", -1, &st,
					    NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		while (gone && gone(want))
			want++;
		row(want++, v);
		for (int c = 0; c < 4; c++)
			if (v[c] == DARC_NULL)
				ck_assert_int_eq(sqlite3_column_type(st, c), SQLITE_NULL);
			else
				ck_assert_int_eq(sqlite3_column_int64(st, c), v[c]);
	}
	sqlite3_finalize(st);
	while (gone && gone(want))
		want++;
	ck_assert_int_eq(want, n + 1);
	/* the tables around it are whole */
	ck_assert_int_eq(one(s, "SELECT (SELECT x FROM a) * 10 + (SELECT x FROM z)"), 12);
	sqlite3_close(s);
}

/* 1, 2, ... @n into @ids. */
static int64_t *ids_upto(int n)
{
	int64_t *ids = malloc(n * sizeof(*ids));

	for (int i = 0; i < n; i++)
		ids[i] = i + 1;
	return ids;
}

/*
 * Many rows in order: three levels of pages, over the lock-byte page; a head
 * SQLite outgrows (its last pages' leaves moved out), fills, or leaves room
 * in (the last leaves moved in).
 */
START_TEST(test_in_order)
{
	struct err_msg err;
	int64_t *ids = ids_upto(20000);
	const uint32_t heads[] = {2, 6, 64, 500};

	for (size_t i = 0; i < sizeof(heads) / sizeof(*heads); i++) {
		reserve = heads[i];
		ck_assert_msg(put(ids, 20000, &err) == 0, "%s", err.msg);
		check_rows(20000, NULL);
	}
	reserve = 64;
	free(ids);
}
END_TEST

/* Each of a few rows a page of its own: every interior page has two children or more. */
START_TEST(test_few)
{
	struct err_msg err;
	int64_t *ids = ids_upto(3);

	for (int n = 1; n <= 3; n++) {
		ck_assert_msg(put(ids, n, &err) == 0, "%s", err.msg);
		check_rows(n, NULL);
		unlink(path);
	}
	free(ids);
}
END_TEST

/* The pages of the database at @path. */
static int64_t pages(void)
{
	sqlite3 *s;
	int64_t n;

	ck_assert_int_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	n = one(s, "PRAGMA page_count");
	sqlite3_close(s);
	return n;
}

static int every_37th(int64_t id)
{
	return id % 37 == 0 && id > 10000;
}

/*
 * Rows that come after larger ones (every 37th withheld, then given in
 * reverse): merged in, into the slack of their leaves (no more pages than
 * in order, but for a few).
 */
START_TEST(test_late)
{
	struct err_msg err;
	int64_t *ids = ids_upto(20000), in_order;
	int n = 0;

	ck_assert_msg(put(ids, 20000, &err) == 0, "%s", err.msg);
	in_order = pages();

	for (int64_t id = 1; id <= 20000; id++)
		if (!every_37th(id))
			ids[n++] = id;
	for (int64_t id = 20000; id >= 1; id--)
		if (every_37th(id))
			ids[n++] = id;
	for (reserve = 2; reserve <= 500; reserve += 498) {
		ck_assert_msg(put(ids, n, &err) == 0, "%s", err.msg);
		check_rows(20000, NULL);
		ck_assert_int_le(pages(), in_order + 3);
	}
	reserve = 64;
	free(ids);
}
END_TEST

/* A late row in a tree of one leaf; a table of late rows only but its first. */
START_TEST(test_late_small)
{
	struct err_msg err;
	int64_t one_leaf[] = {1, 3, 2}, reverse[200];

	ck_assert_msg(put(one_leaf, 3, &err) == 0, "%s", err.msg);
	check_rows(3, NULL);
	unlink(path);
	for (int i = 0; i < 200; i++)
		reverse[i] = 200 - i;
	ck_assert_msg(put(reverse, 200, &err) == 0, "%s", err.msg);
	check_rows(200, NULL);
}
END_TEST

/*
 * 500 late rows in the range of one leaf (all of 101..600 after 1000): they
 * go over into the next leaves and a few at the end, and the tree takes no
 * more pages than in order, but for those few.
 */
START_TEST(test_late_cluster)
{
	struct err_msg err;
	int64_t *ids = ids_upto(3000), *late = malloc(3000 * sizeof(*late));
	int64_t in_order;
	int n = 0;

	ck_assert_msg(put(ids, 3000, &err) == 0, "%s", err.msg);
	in_order = pages();
	for (int64_t id = 1; id <= 3000; id++)
		if (id <= 100 || id > 600)
			late[n++] = id;
	for (int64_t id = 101; id <= 600; id++)
		late[n++] = id;
	ck_assert_msg(put(late, n, &err) == 0, "%s", err.msg);
	check_rows(3000, NULL);
	ck_assert_int_le(pages(), in_order + 3);
	free(ids);
	free(late);
}
END_TEST

/* A rowid twice: refused as SQLite refuses it, at once when it follows itself. */
START_TEST(test_twice)
{
	struct err_msg err;
	int64_t again[] = {1, 2, 3, 4, 2}, next[] = {1, 2, 2};

	ck_assert_int_eq(put(again, 5, &err), -1);
	ck_assert_msg(strstr(err.msg, "UNIQUE constraint failed: t.id"), "%s", err.msg);
	unlink(path);
	ck_assert_int_eq(put(next, 3, &err), -1);
	ck_assert_msg(strstr(err.msg, "UNIQUE constraint failed: t.id"), "%s", err.msg);
}
END_TEST

static Suite *btree_suite(void)
{
	Suite *s = suite_create("btree");
	TCase *tc = tcase_create("pages");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_in_order);
	tcase_add_test(tc, test_few);
	tcase_add_test(tc, test_late);
	tcase_add_test(tc, test_late_small);
	tcase_add_test(tc, test_late_cluster);
	tcase_add_test(tc, test_twice);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* SQLite's lock-byte page where these small trees reach it (before any database opens) */
	sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, PENDING);
	return unit_run(btree_suite());
}
