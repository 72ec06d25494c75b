// SPDX-License-Identifier: MIT
/*
 * What darc's exports share (export.h): the calls streamed in the order of
 * their ids, a hand-made output buffer, and the function names.
 *
 * The calls come from call_base and call_extra read side by side, both in
 * the order of their ids, as a merge: view call's LEFT JOIN looks every
 * call up in call_extra (half the time of an export), and ordering the
 * calls by task made SQLite sort them all before the first row (tens of
 * seconds of silence on a large database).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

int64_t export_one_int(sqlite3 *sql, const char *q)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (sqlite3_prepare_v2(sql, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- the calls, by id ------------------------------------------------------ */

int xstream_open(struct xstream *s, struct rdb *db, const struct ropt *o, bool owner)
{
	char filter[320], q[1024];

	*s = (struct xstream){0};
	rdb_filter_sql("b.task_id", "b.t_entry", filter, sizeof(filter));
	snprintf(q, sizeof(q),
		 "SELECT b.id, b.task_id, b.func_id, coalesce(b.parent_id, 0), b.fnode_id,"
		 " b.depth, b.cpu, b.t_entry, b.incl_ns, b.children_ns FROM call_base b"
		 " WHERE %s%s ORDER BY b.id",
		 filter, owner ? " AND b.fnode_id IN sel_fnode" : "");
	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &s->base, NULL) != SQLITE_OK ||
	    rdb_bind_filters(s->base, &o->sel, rdb_t_first(db)) != SQLITE_OK ||
	    sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT id, t_exit, irq_ns, softirq_ns, preempt_ns, blocked_ns,"
			       " flags FROM call_extra ORDER BY id",
			       -1, &s->extra, NULL) != SQLITE_OK) {
		xstream_close(s);
		return -1;
	}
	s->extra_row = sqlite3_step(s->extra) == SQLITE_ROW;
	return 0;
}

/* Call_extra's row of call @id into @k, if it has one (the stream is at or before it). */
static int extra_of(struct xstream *s, int64_t id, struct xcall *k)
{
	int rc = SQLITE_ROW;

	while (s->extra_row && sqlite3_column_int64(s->extra, 0) < id)
		s->extra_row = (rc = sqlite3_step(s->extra)) == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (!s->extra_row || sqlite3_column_int64(s->extra, 0) != id)
		return 0;
	if (sqlite3_column_type(s->extra, 1) == SQLITE_NULL)
		k->complete = false; /* no exit */
	k->t_exit = sqlite3_column_int64(s->extra, 1);
	for (int i = 0; i < 4; i++)
		k->ns[3 + i] = sqlite3_column_int64(s->extra, 2 + i);
	k->flags = sqlite3_column_int64(s->extra, 6);
	return 0;
}

int xstream_next(struct xstream *s, struct xcall *k)
{
	sqlite3_stmt *b = s->base;
	int rc = sqlite3_step(b);

	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	memset(k, 0, sizeof(*k));
	k->id = sqlite3_column_int64(b, 0);
	k->task = sqlite3_column_int64(b, 1);
	k->func = sqlite3_column_int64(b, 2);
	k->parent = sqlite3_column_int64(b, 3);
	k->fnode = sqlite3_column_int64(b, 4);
	k->depth = sqlite3_column_int64(b, 5);
	k->cpu = sqlite3_column_int64(b, 6);
	k->t_entry = sqlite3_column_int64(b, 7);
	k->ns[0] = sqlite3_column_int64(b, 8);
	k->ns[2] = sqlite3_column_int64(b, 9);
	k->complete = sqlite3_column_type(b, 7) != SQLITE_NULL &&
		      sqlite3_column_type(b, 8) != SQLITE_NULL;
	k->t_exit = k->t_entry + k->ns[0];
	if (extra_of(s, k->id, k))
		return -1;
	k->ns[1] = k->ns[0] - k->ns[2] - k->ns[3] - k->ns[4] - k->ns[5] - k->ns[6];
	k->complete = k->complete && !(k->flags & 3); /* view call: no_entry, no_exit */
	k->irq = k->flags & 56;
	return 1;
}

void xstream_close(struct xstream *s)
{
	sqlite3_finalize(s->base);
	sqlite3_finalize(s->extra);
	s->base = s->extra = NULL;
}

/* ---- the output buffer ----------------------------------------------------- */

void ob_flush(struct obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->out);
	o->n = 0;
}

void ob_mem(struct obuf *o, const void *p, size_t n)
{
	if (o->n + n > sizeof(o->b)) {
		ob_flush(o);
		if (n > sizeof(o->b)) {
			fwrite(p, 1, n, o->out);
			return;
		}
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

/* Digits of @v, right-aligned in @end[-20..0); returns where they start. */
static char *digits(uint64_t v, char *end)
{
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

void ob_i64(struct obuf *o, int64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *p;

	p = digits(v < 0 ? -(uint64_t)v : (uint64_t)v, e);
	if (v < 0)
		*--p = '-';
	ob_mem(o, p, e - p);
}

void ob_usec(struct obuf *o, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char buf[32], *e = buf + sizeof(buf), *p;

	e[-1] = '0' + a % 10;
	e[-2] = '0' + a / 10 % 10;
	e[-3] = '0' + a / 100 % 10;
	e[-4] = '.';
	p = digits(a / 1000, e - 4);
	if (v < 0)
		*--p = '-';
	ob_mem(o, p, e - p);
}

/* ---- function names -------------------------------------------------------- */

void export_names_free(char **names, int64_t n)
{
	for (int64_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int export_load_names(sqlite3 *sql, char *(*conv)(const char *), char ***names, int64_t *n)
{
	sqlite3_stmt *st;
	char **a;
	int64_t len = export_one_int(sql, "SELECT max(id) FROM func") + 1;
	int rc;

	*names = NULL;
	*n = 0;
	if (len < 1 || !(a = calloc(len, sizeof(*a))))
		return -1;
	*names = a;
	*n = len;
	if (sqlite3_prepare_v2(sql, "SELECT id, name FROM func", -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id >= 0 && id < len && !a[id] && !(a[id] = conv(rdb_text(st, 1))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
