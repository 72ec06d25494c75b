// SPDX-License-Identifier: MIT
/*
 * sqlite-wall: how fast SQLite itself can take darc's call rows, the wall
 * darc analyze's database writing is measured against.
 *
 *	sqlite-wall DARC_DB [OUT_DB]
 *
 * Reads the call_base rows of DARC_DB (a database darc analyze wrote) into
 * memory, then inserts the same rows into a fresh OUT_DB (default
 * /tmp/sqlite-wall.db) several ways, each in one transaction with darc's
 * bulk-load settings (no journal, no syncs, exclusive lock, 64 KiB pages),
 * and prints the wall and CPU seconds each takes:
 *
 *	prepared	INSERT ... VALUES (?, ...): bind, step, reset a row
 *	vtab		INSERT ... SELECT from a virtual table over the rows, 4096
 *			at a time (what darc does)
 *
 * with all columns, with the children index (call_parent) kept during the
 * load, and with fewer columns. Single-threaded: the time is SQLite's own.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define NCOL 10
#define RUN 4096

static int64_t (*rows)[NCOL];
static long nrows;
static int ncols;  /* columns the current load inserts */
static long lo, hi; /* the virtual table shows rows [lo, hi) */

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite-wall: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
	exit(1);
}

static void load(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	long cap = 1 << 20;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(db, path);
	if (sqlite3_prepare_v2(db, "SELECT id, task_id, parent_id, fnode_id, cpu, t_entry,"
				   " incl_ns, children_ns, last_id, retval FROM call_base ORDER BY id",
			       -1, &s, NULL) != SQLITE_OK)
		die(db, path);
	rows = malloc(cap * sizeof(*rows));
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (nrows == cap)
			rows = realloc(rows, (cap *= 2) * sizeof(*rows));
		if (!rows)
			die(NULL, "out of memory");
		for (int c = 0; c < NCOL; c++)
			rows[nrows][c] = sqlite3_column_type(s, c) == SQLITE_NULL
						 ? INT64_MIN
						 : sqlite3_column_int64(s, c);
		nrows++;
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* --- a virtual table over rows[lo, hi), its first ncols columns ----------- */

struct cur {
	sqlite3_vtab_cursor base;
	long i;
};

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **vt, char **err)
{
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9)");

	*vt = sqlite3_malloc(sizeof(**vt));
	memset(*vt, 0, sizeof(**vt));
	return rc;
}

static int vt_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int vt_best(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	info->estimatedRows = RUN;
	return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **c)
{
	*c = sqlite3_malloc(sizeof(struct cur));
	memset(*c, 0, sizeof(struct cur));
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *c, int idx, const char *s, int argc, sqlite3_value **v)
{
	((struct cur *)c)->i = lo;
	return SQLITE_OK;
}

static int vt_next(sqlite3_vtab_cursor *c)
{
	((struct cur *)c)->i++;
	return SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *c)
{
	return ((struct cur *)c)->i >= hi;
}

static int vt_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	int64_t v = rows[((struct cur *)c)->i][col];

	if (v == INT64_MIN)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *r)
{
	*r = ((struct cur *)c)->i;
	return SQLITE_OK;
}

static const sqlite3_module module = {
    .xConnect = vt_connect, .xBestIndex = vt_best, .xDisconnect = vt_disconnect,
    .xOpen = vt_open, .xClose = vt_close, .xFilter = vt_filter, .xNext = vt_next,
    .xEof = vt_eof, .xColumn = vt_column, .xRowid = vt_rowid};

/* --- the loads ------------------------------------------------------------ */

static sqlite3 *fresh(const char *path, bool index)
{
	static const char *const names[NCOL] = {"id INTEGER PRIMARY KEY", "task_id", "parent_id",
						"fnode_id", "cpu", "t_entry", "incl_ns",
						"children_ns", "last_id", "retval"};
	char sql[1024] = "CREATE TABLE call_base(";
	sqlite3 *db;

	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		die(db, path);
	for (int c = 0; c < ncols; c++)
		strcat(strcat(sql, names[c]), c + 1 < ncols ? ", " : ");");
	if (sqlite3_exec(db,
			 "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF;"
			 " PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
			 " PRAGMA cache_size = -4096;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    (index && sqlite3_exec(db, "CREATE INDEX call_parent ON call_base(parent_id)"
				       " WHERE parent_id IS NOT NULL",
				   NULL, NULL, NULL) != SQLITE_OK) ||
	    sqlite3_create_module(db, "rows", &module, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		die(db, path);
	return db;
}

static void insert_sql(char *sql, bool vtab)
{
	strcpy(sql, "INSERT INTO call_base VALUES (");
	if (vtab)
		strcpy(sql, "INSERT INTO call_base SELECT ");
	for (int c = 0; c < ncols; c++) {
		char col[8];

		snprintf(col, sizeof(col), vtab ? "c%d" : "?", c);
		strcat(strcat(sql, col), c + 1 < ncols ? ", " : "");
	}
	strcat(sql, vtab ? " FROM rows" : ")");
}

static void step(sqlite3 *db, sqlite3_stmt *s)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		die(db, "insert");
	sqlite3_reset(s);
}

static double run(const char *path, const char *name, int cols, bool vtab, bool index)
{
	char sql[512];
	sqlite3 *db;
	sqlite3_stmt *s;
	double t0, c0;

	ncols = cols;
	db = fresh(path, index);
	insert_sql(sql, vtab);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		die(db, sql);
	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (lo = 0; vtab && lo < nrows; lo = hi) {
		hi = lo + RUN < nrows ? lo + RUN : nrows;
		step(db, s);
	}
	for (long i = 0; !vtab && i < nrows; i++) {
		for (int c = 0; c < cols; c++)
			if (rows[i][c] == INT64_MIN)
				sqlite3_bind_null(s, c + 1);
			else
				sqlite3_bind_int64(s, c + 1, rows[i][c]);
		step(db, s);
	}
	sqlite3_finalize(s);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		die(db, "commit");
	t0 = clock_s(CLOCK_MONOTONIC) - t0;
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	sqlite3_close(db);
	printf("  %-44s %6.3f s wall %6.3f s CPU  %5.2f us a row\n", name, t0, c0,
	       c0 * 1e6 / nrows);
	return t0;
}

int main(int argc, char **argv)
{
	const char *out = argc > 2 ? argv[2] : "/tmp/sqlite-wall.db";

	if (argc < 2) {
		fprintf(stderr, "usage: sqlite-wall DARC_DB [OUT_DB]\n");
		return 2;
	}
	load(argv[1]);
	printf("SQLite %s inserting the %ld call_base rows of %s:\n", sqlite3_libversion(), nrows,
	       argv[1]);
	run(out, "prepared, 10 columns, children index", 10, false, true);
	run(out, "prepared, 10 columns", 10, false, false);
	run(out, "vtab, 10 columns, children index", 10, true, true);
	run(out, "vtab, 10 columns", 10, true, false);
	run(out, "vtab, 8 columns", 8, true, false);
	run(out, "vtab, 4 columns", 4, true, false);
	unlink(out);
	return 0;
}
