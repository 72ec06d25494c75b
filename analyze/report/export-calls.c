// SPDX-License-Identifier: MIT
/*
 * What darc's exports share (export-calls.h): the calls streamed in the order of
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

#include "export-calls.h"

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

/* Each task's latest entry so far, by task id (open addressing, a power of two of slots). */
struct entry_max {
	int64_t *tid, *t;
	bool *used;
	size_t cap, n;
};

static void entry_max_free(struct entry_max *m)
{
	free(m->tid);
	free(m->t);
	free(m->used);
}

/* Where @tid's latest entry is kept (INT64_MIN when new). NULL out of memory. */
static int64_t *entry_max_slot(struct entry_max *m, int64_t tid)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct entry_max g = {calloc(cap, 8), calloc(cap, 8), calloc(cap, 1), cap, 0};
		if (!g.tid || !g.t || !g.used) {
			entry_max_free(&g);
			return NULL;
		}
		for (i = 0; i < m->cap; i++)
			if (m->used[i])
				*entry_max_slot(&g, m->tid[i]) = m->t[i];
		entry_max_free(m);
		*m = g;
	}
	i = (size_t)((uint64_t)tid * 0x9e3779b97f4a7c15u >> 20) & (m->cap - 1);
	while (m->used[i] && m->tid[i] != tid)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i]) {
		m->used[i] = true;
		m->tid[i] = tid;
		m->t[i] = INT64_MIN;
		m->n++;
	}
	return &m->t[i];
}

/* Call_base's row under @b into @k (the columns of export_stream_open()'s query). */
static void base_row(sqlite3_stmt *b, struct xcall *k)
{
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
	k->has_entry = sqlite3_column_type(b, 7) != SQLITE_NULL;
	k->complete = k->has_entry && sqlite3_column_type(b, 8) != SQLITE_NULL;
	k->t_exit = k->t_entry + k->ns[0];
}

/* Call_extra's columns under @e from column @c on (t_exit, the four parts, flags) into @k. */
static void extra_row(sqlite3_stmt *e, int c, struct xcall *k)
{
	if (sqlite3_column_type(e, c) == SQLITE_NULL)
		k->complete = false; /* no exit */
	k->t_exit = sqlite3_column_int64(e, c);
	for (int i = 0; i < 4; i++)
		k->ns[3 + i] = sqlite3_column_int64(e, c + 1 + i);
	k->flags = sqlite3_column_int64(e, c + 5);
}

/* What follows from the columns: the call's own time, complete, in interrupt context. */
static void finish_call(struct xcall *k)
{
	k->ns[1] = k->ns[0] - k->ns[2] - k->ns[3] - k->ns[4] - k->ns[5] - k->ns[6];
	k->complete = k->complete && !(k->flags & 3); /* view call: no_entry, no_exit */
	k->irq = k->flags & 56;
}

/* Call_extra's row of call @id into @k, if it has one (the stream is at or before it). */
static int extra_of(struct xstream *s, int64_t id, struct xcall *k)
{
	int rc = SQLITE_ROW;

	while (s->extra_row && sqlite3_column_int64(s->extra, 0) < id)
		s->extra_row = (rc = sqlite3_step(s->extra)) == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (s->extra_row && sqlite3_column_int64(s->extra, 0) == id)
		extra_row(s->extra, 1, k);
	return 0;
}

/* Keep late call @k (its call_extra row looked up by id). 0 or -1. */
static int keep_late(struct xstream *s, sqlite3_stmt *one, struct xcall *k)
{
	struct late *l = &s->late;
	int rc;

	if (l->n == l->cap) {
		struct xcall *a = realloc(l->by_time, (2 * l->cap + 16) * sizeof(*a));
		if (!a)
			return -1;
		l->by_time = a;
		l->cap = 2 * l->cap + 16;
	}
	sqlite3_reset(one);
	sqlite3_bind_int64(one, 1, k->id);
	if ((rc = sqlite3_step(one)) == SQLITE_ROW)
		extra_row(one, 0, k);
	else if (rc != SQLITE_DONE)
		return -1;
	finish_call(k);
	l->by_time[l->n++] = *k;
	return 0;
}

static int by_task_time(const void *a, const void *b)
{
	const struct xcall *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->t_entry != y->t_entry)
		return x->t_entry < y->t_entry ? -1 : 1;
	return (x->t_exit < y->t_exit) - (x->t_exit > y->t_exit); /* the outer first */
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The late calls ordered: by task and entry, their ids sorted, each task's cursor at its first. */
static int order_late(struct late *l)
{
	if (!l->n)
		return 0;
	l->id = malloc(l->n * sizeof(*l->id));
	l->next = malloc(l->n * sizeof(*l->next));
	if (!l->id || !l->next)
		return -1;
	qsort(l->by_time, l->n, sizeof(*l->by_time), by_task_time);
	for (int i = 0; i < l->n; i++) {
		l->id[i] = l->by_time[i].id;
		l->next[i] = i && l->by_time[i - 1].task == l->by_time[i].task ? l->next[i - 1] : i;
	}
	qsort(l->id, l->n, sizeof(*l->id), by_value);
	return 0;
}

/* Does @sel choose calls by task, comm or time (else every call: no filter to evaluate)? */
static bool filtered(const struct call_selection *sel)
{
	return sel->task || sel->comm || sel->t_lo != INT64_MIN || sel->t_hi != INT64_MAX;
}

sqlite3_stmt *export_prepare(struct rdb *db, const struct report_options *o, const char *q,
			     const char *task_col, const char *time_col)
{
	char filter[320] = "1", sql[2048];
	sqlite3_stmt *st;

	if (filtered(&o->sel))
		rdb_filter_sql(task_col, time_col, filter, sizeof(filter));
	snprintf(sql, sizeof(sql), q, filter);
	if (sqlite3_prepare_v2(rdb_sql(db), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (filtered(&o->sel) && rdb_bind_filters(st, &o->sel, rdb_t_first(db)) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

#define FNODE_JOIN "LEFT JOIN fnode n ON n.id = b.fnode_id"

/*
 * Prepare "SELECT @cols FROM call_base b WHERE @where ORDER BY b.id", @o's
 * filters bound. A call's function and depth are its fnode's (n.func_id,
 * n.depth: call_base stores neither); SQLite drops the join where unused.
 */
static sqlite3_stmt *select_base(struct rdb *db, const struct report_options *o, bool owner,
				 const char *cols, const char *where)
{
	char q[1024];

	snprintf(q, sizeof(q), "SELECT %s FROM call_base b " FNODE_JOIN " WHERE %%s AND %s%s ORDER BY b.id", cols,
		 where, owner ? " AND b.fnode_id IN sel_fnode" : "");
	return export_prepare(db, o, q, "b.task_id", "b.t_entry");
}

#define BASE_COLS                                                                         \
	"b.id, b.task_id, n.func_id, coalesce(b.parent_id, 0), b.fnode_id, n.depth, b.cpu," \
	" b.t_entry, b.incl_ns, b.children_ns"

/*
 * The first read: the late calls (an entry before the latest entry of
 * their task so far, in the order of ids), each then read whole by id.
 */
static int find_late(struct xstream *s, struct rdb *db, const struct report_options *o, bool owner)
{
	struct entry_max m = {0};
	sqlite3_stmt *st = select_base(db, o, owner, "b.task_id, b.t_entry, b.id",
				       "b.t_entry IS NOT NULL");
	sqlite3_stmt *one = NULL, *row = NULL;
	struct xcall k;
	int rc = SQLITE_ERROR;
	int64_t n = 0, *t;

	if (!st || sqlite3_prepare_v2(rdb_sql(db),
				      "SELECT t_exit, irq_ns, softirq_ns, preempt_ns, blocked_ns,"
				      " flags FROM call_extra WHERE id = ?1",
				      -1, &one, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(rdb_sql(db), "SELECT " BASE_COLS " FROM call_base b " FNODE_JOIN
			       " WHERE b.id = ?1",
			       -1, &row, NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t task = sqlite3_column_int64(st, 0), entry = sqlite3_column_int64(st, 1);
		if (s->pg && !(++n & 0xffff) && progress_due(s->pg))
			progress_show(s->pg, "%.1f M calls ordered", n / 1e6);
		if (!(t = entry_max_slot(&m, task))) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (entry >= *t) {
			*t = entry;
			continue;
		}
		sqlite3_reset(row);
		sqlite3_bind_int64(row, 1, sqlite3_column_int64(st, 2));
		if (sqlite3_step(row) != SQLITE_ROW) {
			rc = SQLITE_ERROR;
			break;
		}
		base_row(row, &k);
		if (keep_late(s, one, &k)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(one);
	sqlite3_finalize(row);
	entry_max_free(&m);
	return rc == SQLITE_DONE ? order_late(&s->late) : -1;
}

int export_stream_open(struct xstream *s, struct rdb *db, const struct report_options *o,
		       bool owner, struct progress *pg)
{
	*s = (struct xstream){.pg = pg};
	if (!(s->base = select_base(db, o, owner, BASE_COLS, "1")) || find_late(s, db, o, owner) ||
	    sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT id, t_exit, irq_ns, softirq_ns, preempt_ns, blocked_ns,"
			       " flags FROM call_extra ORDER BY id",
			       -1, &s->extra, NULL) != SQLITE_OK) {
		export_stream_close(s);
		return -1;
	}
	s->extra_row = sqlite3_step(s->extra) == SQLITE_ROW;
	return 0;
}

/* The next call of the read in the order of ids, the late ones left out: 1, 0 at the end, -1. */
static int next_by_id(struct xstream *s, struct xcall *k)
{
	struct late *l = &s->late;
	int rc;

	while ((rc = sqlite3_step(s->base)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s->base, 0);
		while (l->at_id < l->n && l->id[l->at_id] < id)
			l->at_id++;
		if (l->at_id < l->n && l->id[l->at_id] == id)
			continue; /* given out in its place */
		base_row(s->base, k);
		if (extra_of(s, id, k))
			return -1;
		finish_call(k);
		return 1;
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The index in by_time of task @task's next late call not given out, or -1. */
static int late_of(const struct late *l, int64_t task)
{
	int lo = 0, hi = l->n - 1, first = -1;

	while (lo <= hi) { /* the task's first */
		int mid = (lo + hi) / 2;
		if (l->by_time[mid].task >= task) {
			first = mid;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (first < 0 || l->by_time[first].task != task)
		return -1;
	first = l->next[first];
	return first < l->n && l->by_time[first].task == task ? first : -1;
}

/* Give out late call @i (the next of its task). */
static void give_late(struct late *l, int i, struct xcall *k)
{
	int g = i;

	while (g > 0 && l->by_time[g - 1].task == l->by_time[i].task)
		g--;
	*k = l->by_time[i];
	l->next[g] = i + 1;
}

int export_stream_next(struct xstream *s, struct xcall *k)
{
	struct late *l = &s->late;
	int i;

	if (!s->pending_set && !s->done && l->n) { /* read ahead: late calls may go first */
		int rc = next_by_id(s, &s->pending);
		if (rc < 0)
			return -1;
		s->pending_set = rc == 1;
		s->done = rc == 0;
	} else if (!l->n) {
		return next_by_id(s, k);
	}
	if (!s->pending_set) { /* the end: the late calls that no call of their task followed */
		for (; s->rest < l->n; s->rest++)
			if ((i = late_of(l, l->by_time[s->rest].task)) == s->rest) {
				give_late(l, i, k);
				return 1;
			}
		return 0;
	}
	i = s->pending.has_entry ? late_of(l, s->pending.task) : -1;
	if (i >= 0 && (l->by_time[i].t_entry < s->pending.t_entry ||
		       (l->by_time[i].t_entry == s->pending.t_entry &&
			l->by_time[i].t_exit >= s->pending.t_exit))) {
		give_late(l, i, k);
		return 1;
	}
	*k = s->pending;
	s->pending_set = false;
	return 1;
}

void export_stream_close(struct xstream *s)
{
	sqlite3_finalize(s->base);
	sqlite3_finalize(s->extra);
	s->base = s->extra = NULL;
	free(s->late.by_time);
	free(s->late.next);
	free(s->late.id);
	memset(&s->late, 0, sizeof(s->late));
}

/* ---- each thread's open calls --------------------------------------------- */

int export_stack_pop(struct xstack *s, int64_t t, int64_t keep, export_stack_end end, void *x,
		     void *track)
{
	while (s->n && s->open[s->n - 1].t_exit <= t && s->open[s->n - 1].id != keep)
		if (end(x, track, &s->open[--s->n]))
			return -1;
	return 0;
}

int export_stack_push(struct xstack *s, const struct xcall *k, export_stack_end end, void *x,
		      void *track)
{
	if (export_stack_pop(s, k->t_entry, k->parent, end, x, track))
		return -1;
	if (s->n && k->t_exit > s->open[s->n - 1].t_exit)
		return 0;
	if (s->n == s->cap) {
		struct xcall *a = realloc(s->open, (2 * s->cap + 16) * sizeof(*a));
		if (!a)
			return -1;
		s->open = a;
		s->cap = 2 * s->cap + 16;
	}
	s->open[s->n++] = *k;
	return 1;
}

/* ---- the output buffer ----------------------------------------------------- */

void export_out_flush(struct obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->out);
	o->n = 0;
}

void export_out_mem(struct obuf *o, const void *p, size_t n)
{
	if (o->n + n > sizeof(o->b)) {
		export_out_flush(o);
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

void export_out_i64(struct obuf *o, int64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *p;

	p = digits(v < 0 ? -(uint64_t)v : (uint64_t)v, e);
	if (v < 0)
		*--p = '-';
	export_out_mem(o, p, e - p);
}

void export_out_usec(struct obuf *o, int64_t v)
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
	export_out_mem(o, p, e - p);
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

/* ---- tasks and call flags ---------------------------------------------------- */

int export_load_tasks(sqlite3 *sql, char *(*conv)(const char *), struct xtask **tasks, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = (int)export_one_int(sql, "SELECT count(*) FROM task");
	struct xtask *a = calloc(cap + 1, sizeof(*a));

	*tasks = a;
	*n = 0;
	if (!a || sqlite3_prepare_v2(sql,
				     "SELECT tid, coalesce(pid, tid), coalesce(comm, '?') FROM task"
				     " ORDER BY tid",
				     -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap) {
		struct xtask *t = &a[(*n)++];
		t->tid = sqlite3_column_int64(st, 0);
		t->pid = sqlite3_column_int64(st, 1);
		if (!(t->name = conv(rdb_text(st, 2))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

int export_by_tid(const void *tid, const void *element)
{
	int64_t a = *(const int64_t *)tid, b = *(const int64_t *)element;

	return (a > b) - (a < b);
}

int export_load_flags(sqlite3 *sql, char *flag[8])
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(sql, "SELECT bit, name FROM call_flag", -1, &st, NULL))
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t bit = sqlite3_column_int64(st, 0);
		for (int b = 0; b < 8; b++)
			if (bit == 1 << b && !flag[b])
				flag[b] = strdup(rdb_text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}
