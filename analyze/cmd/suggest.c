// SPDX-License-Identifier: MIT
/*
 * suggest: what darc says when a name on the command line names nothing in
 * the database, before any report runs: the closest function ("did you
 * mean"), task name or busiest tasks, the recording's span when --time
 * misses it, and that a selection whose parts all exist holds no call. Every
 * command that reads a database goes through suggest_check_selection(), so each
 * says it the same way and with the same exit status.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rdb.h"
#include "suggest.h"

int suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	int *d, best;

	if (n > 200 || m > 200)
		return 1000;
	d = malloc((n + 1) * (m + 1) * sizeof(*d));
	if (!d)
		return 1000;
#define D(i, j) d[(i) * (m + 1) + (j)]
	for (size_t i = 0; i <= n; i++)
		D(i, 0) = (int)i;
	for (size_t j = 0; j <= m; j++)
		D(0, j) = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int v = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
			if (D(i - 1, j) + 1 < v)
				v = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			/* a transposition ("raed") is one slip of the fingers, not two */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	best = D(n, m);
#undef D
	free(d);
	return best;
}

int suggest_close(const char *word)
{
	size_t n = strlen(word);

	return n <= 3 ? 1 : n <= 10 ? 2 : 3;
}

/* The system call prefixes a kernel gives its entry points. */
static const char *const sys_prefixes[] = {"__x64_sys_", "__arm64_sys_", "__ia32_sys_",
					   "__se_sys_", "__do_sys_", "sys_"};

/* @name without a system call prefix. */
static const char *sys_base(const char *name)
{
	for (size_t i = 0; i < sizeof(sys_prefixes) / sizeof(sys_prefixes[0]); i++)
		if (!strncmp(name, sys_prefixes[i], strlen(sys_prefixes[i])))
			return name + strlen(sys_prefixes[i]);
	return name;
}

/*
 * The closest of the names @q returns (one text column) to @word, into
 * @best: one with @word as its system call (pread64 -> __x64_sys_pread64)
 * first, else the nearest by edit distance if close. "" if none.
 */
static void closest_name(sqlite3 *s, const char *q, const char *word, bool syscalls,
			 char *best, size_t n)
{
	sqlite3_stmt *st;
	int bd = suggest_close(word) + 1;

	best[0] = 0;
	if (sqlite3_prepare_v2(s, q, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = rdb_text(st, 0);
		int d;
		if (!name)
			continue;
		if (syscalls && sys_base(name) != name && !strcmp(sys_base(name), sys_base(word))) {
			snprintf(best, n, "%s", name);
			break;
		}
		d = suggest_distance(word, name);
		if (d < bd) {
			bd = d;
			snprintf(best, n, "%s", name);
		}
	}
	sqlite3_finalize(st);
}

/* Does @q, with text @s1 or integer @i1 as ?1, give a row? */
static bool exists(sqlite3 *s, const char *q, const char *s1, int64_t i1)
{
	sqlite3_stmt *st;
	bool yes;

	if (sqlite3_prepare_v2(s, q, -1, &st, NULL) != SQLITE_OK)
		return true; /* let the report say what is wrong with the database */
	if (s1)
		sqlite3_bind_text(st, 1, s1, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, i1);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* "no function 'x' in DB; did you mean y?" */
static int no_name(struct rdb *db, const char *what, const char *list_sql, const char *name,
		   bool syscalls, struct err_msg *err)
{
	char best[256];

	closest_name(rdb_sql(db), list_sql, name, syscalls, best, sizeof(best));
	if (best[0])
		return err_setf(err, rdb_path(db), "no %s '%s'; did you mean %s?", what, name,
				best);
	return err_setf(err, rdb_path(db), "no %s '%s' (and none with a name close to it)", what,
			name);
}

/* "no task 99999 in DB; its busiest tasks: 1201 (fio), ..." */
static int no_task(struct rdb *db, int64_t tid, struct err_msg *err)
{
	static const char q[] = "SELECT t.tid, t.comm FROM (SELECT task_id, count(*) n FROM call_base"
				" GROUP BY task_id) JOIN task t ON t.tid = task_id ORDER BY n DESC"
				" LIMIT 4";
	char list[256] = "";
	size_t len = 0;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW && len < sizeof(list) - 64) {
			const char *comm = rdb_text(st, 1);
			len += snprintf(list + len, sizeof(list) - len, "%s%" PRId64 " (%.40s)",
					len ? ", " : "", (int64_t)sqlite3_column_int64(st, 0),
					comm ? comm : "?");
		}
		sqlite3_finalize(st);
	}
	if (!list[0])
		return err_setf(err, rdb_path(db), "no task %" PRId64 " (no task has calls)", tid);
	return err_setf(err, rdb_path(db), "no task %" PRId64 "; the tasks with the most calls: %s",
			tid, list);
}

/* "1.5s", "140.87ms", "3ns": a duration as --time takes it, in the largest unit under it. */
static const char *secs(int64_t ns, char *buf, size_t n)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
	size_t i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && llabs(ns) < units[i].ns)
		i++;
	snprintf(buf, n, "%g%s", ns / units[i].ns, units[i].unit);
	return buf;
}

/* --time misses the recording: say its span. */
static int time_outside(struct rdb *db, const struct call_selection *sel, struct err_msg *err)
{
	sqlite3_stmt *st;
	int64_t span = -1;
	char a[32], b[32], c[32];

	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT t_last - t_first FROM recording", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		span = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (span < 0 || (sel->t_lo <= span && sel->t_hi > 0))
		return 0;
	return err_setf(
	    err, rdb_path(db), "--time %s-%s is outside the recording, which spans 0-%s",
	    sel->t_lo == INT64_MIN ? "" : secs(sel->t_lo, a, sizeof(a)),
	    sel->t_hi == INT64_MAX ? "" : secs(sel->t_hi, b, sizeof(b)), secs(span, c, sizeof(c)));
}

/* Every part names something, but together they hold no call: say which parts. */
static int none_together(struct rdb *db, const struct call_selection *sel, struct err_msg *err)
{
	char filter[320], q[512], what[200] = "", *p = what, a[32], b[32];
	sqlite3_stmt *st;
	bool any = true;

	rdb_filter_sql("c.task_id", "c.t_entry", filter, sizeof(filter));
	snprintf(q, sizeof(q), "SELECT 1 FROM call_base c WHERE %s AND %s LIMIT 1",
		 sel->func    ? "c.fnode_id IN (SELECT n.id FROM fnode n JOIN func f ON"
				" f.id = n.func_id WHERE f.name = ?6)"
		 : sel->fnode ? "c.fnode_id = ?7"
			      : "1",
		 filter);
	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return 0;
	rdb_bind_filters(st, sel, rdb_t_first(db));
	sqlite3_bind_text(st, 6, sel->func ? sel->func : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, sel->fnode);
	any = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	if (any)
		return 0;
	if (sel->task)
		p += snprintf(p, 40, " of task %" PRId64, sel->task);
	if (sel->comm)
		p += snprintf(p, 80, " of tasks named '%.60s'", sel->comm);
	if (sel->t_lo != INT64_MIN || sel->t_hi != INT64_MAX)
		snprintf(p, sizeof(what) - (size_t)(p - what), " in --time %s-%s",
			 sel->t_lo == INT64_MIN ? "" : secs(sel->t_lo, a, sizeof(a)),
			 sel->t_hi == INT64_MAX ? "" : secs(sel->t_hi, b, sizeof(b)));
	if (sel->func)
		return err_setf(err, rdb_path(db), "no call of %s%s", sel->func, what);
	if (sel->fnode)
		return err_setf(err, rdb_path(db), "no call of fnode %" PRId64 "%s", sel->fnode,
				what);
	return err_setf(err, rdb_path(db), "no call%s", what);
}

/* "no call 999999; its calls are 1 to 1510" */
static int no_call(struct rdb *db, int64_t id, struct err_msg *err)
{
	sqlite3_stmt *st;
	int64_t last = 0;

	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT max(id) FROM call_base", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			last = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (!last)
		return err_setf(err, rdb_path(db),
				"no call %" PRId64 " (the database has no calls)", id);
	return err_setf(err, rdb_path(db), "no call %" PRId64 "; its calls are 1 to %" PRId64, id,
			last);
}

int suggest_check_selection(struct rdb *db, const struct report_options *o, bool calls,
			    struct err_msg *err)
{
	const struct call_selection *sel = &o->sel;
	bool window = sel->t_lo != INT64_MIN || sel->t_hi != INT64_MAX;
	sqlite3 *s = rdb_sql(db);

	if (sel->func && !exists(s, "SELECT 1 FROM func WHERE name = ?1", sel->func, 0))
		return no_name(db, "function", "SELECT name FROM func", sel->func, true, err);
	if (sel->comm && !exists(s, "SELECT 1 FROM task WHERE comm = ?1", sel->comm, 0))
		return no_name(db, "task named", "SELECT DISTINCT comm FROM task", sel->comm,
			       false, err);
	if (sel->task && !exists(s, "SELECT 1 FROM task WHERE tid = ?1", NULL, sel->task))
		return no_task(db, sel->task, err);
	if (o->call && !exists(s, "SELECT 1 FROM call_base WHERE id = ?1", NULL, o->call))
		return no_call(db, o->call, err);
	if (window && time_outside(db, sel, err))
		return -1;
	/* a path's calls are rdb.c's to find (its names normalised there) */
	if (calls && !sel->path && (sel->task || sel->comm || window))
		return none_together(db, sel, err);
	return 0;
}
