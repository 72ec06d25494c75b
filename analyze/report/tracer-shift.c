// SPDX-License-Identifier: MIT
/*
 * tracer-shift: the tracer's share of each call of a selection, summed per
 * bucket (tracer-shift.h says what and why).
 *
 * What is charged to a call, for its latency (incl): every call of its task
 * among the ids of its subtree (its function_graph descendants, the system
 * calls and probe pairs below it, and the calls of the interrupts it took
 * while they ran), the probe hits inside it, and two tracepoint events a
 * preemption (sched_switch out and in) or an interrupt (entry and exit),
 * four a sleep (sched_waking and sched_wakeup too). For its own time
 * (excl): its direct function_graph children (each for the part of its
 * hooks outside its own duration) and what is charged to the call itself.
 */
#include "tracer-shift.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rows.h"
#include "search-db.h"
#include "show.h"
#include "vis.h"

#define TC_MAX_NS 1e9 /* no traced call costs a second: a stored value beyond is not used */

/* ---- the costs ---- */

/* One mechanism's object of recording.tracer_cost into @c (its values checked). */
static void load_one(struct cost_cost *c, int m, json_t *o)
{
	json_t *ns = json_object_get(o, "ns"), *own = json_object_get(o, "own_ns");
	const char *src = json_string_value(json_object_get(o, "source"));

	if (json_is_number(ns) && json_number_value(ns) >= 0 && json_number_value(ns) < TC_MAX_NS) {
		c->ns[m] = json_number_value(ns);
		c->estimated[m] = !src || strcmp(src, "measured");
	}
	if (m == TC_FGRAPH && json_is_number(own) && json_number_value(own) >= 0 &&
	    json_number_value(own) < TC_MAX_NS)
		c->own_ns = json_number_value(own);
}

/* recording.tracer_cost of @db into @t (nothing when absent or not JSON). */
static int load_cost(struct rdb *db, struct tracer_shift *t, struct err_msg *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	cost_unknown(&t->cost);
	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT tracer_cost FROM recording LIMIT 1", -1, &st,
			       NULL))
		return err_setf(err, rdb_path(db), "cannot read the tracer's cost: %s",
				rdb_why(rdb_sql(db)));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		t->stored = json_loads(rdb_text(st, 0), 0, NULL);
	if (!json_is_object(t->stored)) {
		json_decref(t->stored);
		t->stored = NULL;
	}
	for (int m = 0; m < TC_NMECH && t->stored; m++)
		load_one(&t->cost, m, json_object_get(t->stored, cost_mech_names[m]));
	if (t->stored && json_object_get(t->stored, TC_GRAPH_UFTRACE)) /* uftrace's hooks */
		load_one(&t->cost, TC_FGRAPH, json_object_get(t->stored, TC_GRAPH_UFTRACE));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return err_setf(err, rdb_path(db), "cannot read the tracer's cost: %s",
				rdb_why(rdb_sql(db)));
	return 0;
}

/* Is any cost known? */
static bool any_cost(const struct cost_cost *c)
{
	for (int m = 0; m < TC_NMECH; m++)
		if (!isnan(c->ns[m]))
			return true;
	return false;
}

/* ---- what is charged to a call ---- */

/* Something charged to a call: a probe hit, a sched interval, an interrupt. */
struct charge {
	int64_t call_id, task;
	int mech;   /* enum cost_mech */
	int events; /* how many of its events */
};

/* An fnode's func.kind (-1: no such function). */
struct fnode_kind {
	int64_t id;
	int kind;
};

/*
 * What the tracer did in the whole recording: every fnode's kind and every
 * probe hit, sched and irq interval charged to a call. Read once a database
 * and kept with it (rdb_memo()): explain prices each subject's calls, and
 * read all of it again for each subject.
 */
struct traced {
	struct fnode_kind *fk;	/* every fnode's kind, sorted by id */
	int64_t nfk;
	int fk_cap;
	signed char *dense;	/* the same by id, 0..3 or -1, for the search's loads; or NULL */
	int64_t ndense;
	struct charge *ch;	/* sorted by call_id */
	int64_t nch;
	int ch_cap;
};

#define TRACED_MEMO "tracer-shift: traced"

/* What counting the calls works with. */
struct counter {
	struct rdb *db;
	sqlite3 *sql;
	sqlite3_stmt *below;	/* the fnodes of a task's calls in an id range, counted */
	sqlite3_stmt *kids;	/* of a call's direct children */
	struct cost_counts *k;	/* where count_fnode() counts them */
	struct traced *d;	/* the database's, or NULL */
	bool own;		/* @d not kept with the database: freed with @x */
};

static int by_call(const void *a, const void *b)
{
	const struct charge *x = a, *y = b;

	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

/*
 * Probe points (a pair is a call, counted with the calls): a uprobe's when
 * its function is one (func.kind 3), a return probe's when its event ends
 * in "__return" (darc-record's, perf's) or "_ret" (the lab's kretprobes).
 */
#define RETURN_EVENT                                                                              \
	"(p.event LIKE '%\\_\\_return' ESCAPE '\\' OR p.event LIKE '%\\_ret' ESCAPE '\\')"
static const char *const charges_sql[] = {
    "SELECT p.call_id, p.task_id, CASE WHEN coalesce(f.kind, 0) = 3 THEN (CASE WHEN "
    RETURN_EVENT " THEN 4 ELSE 3 END) ELSE (CASE WHEN " RETURN_EVENT " THEN 2 ELSE 1 END)"
    " END, 1 FROM probe_hit p LEFT JOIN func f ON f.id = p.func_id WHERE p.role = 0",
    /* off CPU: sched_switch out and in; a sleep also sched_waking and sched_wakeup */
    "SELECT call_id, task_id, 5, CASE WHEN kind = 1 THEN 4 ELSE 2 END FROM sched_interval",
    /* interrupts: their entry and exit events */
    "SELECT call_id, task_id, 5, 2 FROM irq_interval",
};

/* The rows of @query (one of charges_sql) on @sql into @d. 0, or -1 with @err. */
static int load_charges(sqlite3 *sql, struct traced *d, const char *query, struct err_msg *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(sql, query, -1, &st, NULL))
		return err_setf(err, NULL, "cannot read what the tracer did: %s", rdb_why(sql));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int mech = sqlite3_column_int(st, 2);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		if (GROW(d->ch, d->nch, d->ch_cap, 64))
			break;
		d->ch[d->nch++] = (struct charge){sqlite3_column_int64(st, 0),
						  sqlite3_column_int64(st, 1), mech,
						  sqlite3_column_int(st, 3)};
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return err_setf(err, NULL, "cannot read what the tracer did: %s",
				rc == SQLITE_ROW ? "out of memory" : rdb_why(sql));
	return 0;
}

static void traced_free(void *p)
{
	struct traced *d = p;

	if (d) {
		free(d->fk);
		free(d->dense);
		free(d->ch);
		free(d);
	}
}

static void counter_free(struct counter *x)
{
	sqlite3_finalize(x->below);
	sqlite3_finalize(x->kids);
	rdb_row_sink(x->sql, "darc_count_fnode", 1, NULL, NULL); /* it points into @x */
	if (x->own)
		traced_free(x->d);
}

/*
 * Every fnode's func.kind into @d, by id: a call's kind is looked up here
 * rather than joined in SQL, two lookups a call in every subtree counted.
 * 0, or -1 with @err.
 */
static int load_kinds(sqlite3 *sql, struct traced *d, struct err_msg *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(sql,
			       "SELECT n.id, coalesce(f.kind, -1) FROM fnode n"
			       " LEFT JOIN func f ON f.id = n.func_id ORDER BY n.id",
			       -1, &st, NULL))
		return err_setf(err, NULL, "cannot read the call trees: %s", rdb_why(sql));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (GROW(d->fk, d->nfk, d->fk_cap, 64))
			break;
		d->fk[d->nfk++] = (struct fnode_kind){sqlite3_column_int64(st, 0),
						      sqlite3_column_int(st, 1)};
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return err_setf(err, NULL, "cannot read the call trees: %s",
				rc == SQLITE_ROW ? "out of memory" : rdb_why(sql));
	return 0;
}

/*
 * The first of the @n elements of @size bytes at @base whose int64 key (at
 * byte @off of each, ascending) is @key or more: @n if none.
 */
static int64_t first_at(const void *base, int64_t n, size_t size, size_t off, int64_t key)
{
	int64_t a = 0, b = n, k;

	while (a < b) {
		int64_t m = a + (b - a) / 2;
		memcpy(&k, (const char *)base + m * size + off, sizeof(k));
		if (k < key)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Fnode @id's func.kind: -1 for an fnode not in the table (as the join gave). */
static int kind_of(const struct traced *d, int64_t id)
{
	int64_t a;

	if (id >= 1 && id <= d->nfk && d->fk[id - 1].id == id)
		return d->fk[id - 1].kind; /* ids 1, 2, ...: where darc puts them */
	a = first_at(d->fk, d->nfk, sizeof(*d->fk), offsetof(struct fnode_kind, id), id);
	return a < d->nfk && d->fk[a].id == id ? d->fk[a].kind : -1;
}

/* Add @n calls of func.kind @kind to @k: what their tracing cost. */
static void count_kind(struct cost_counts *k, int kind, int64_t n)
{
	switch (kind) {
	case FUNC_KERNEL:
		k->n[TC_FGRAPH] += n;
		break;
	case FUNC_SYSCALL: /* sys_enter and sys_exit */
		k->n[TC_TRACEPOINT] += 2 * n;
		break;
	/* a probe pair: its entry trap serves both probes; a return probe alone
	   costs both traps (calib.c measures it so), which is about the pair's */
	case FUNC_KPROBE:
		k->n[TC_KRETPROBE] += n;
		break;
	case FUNC_UPROBE:
		k->n[TC_URETPROBE] += n;
		break;
	}
}

/*
 * The aggregate darc_count_fnode(fnode_id): each call of a subtree counted
 * into x->k by its fnode's kind inside SQLite's scan, rather than stepped
 * out to here a row (a peak's subtrees hold millions of calls).
 */
static void count_fnode(sqlite3_context *cx, int argc, sqlite3_value **v)
{
	struct counter *x = sqlite3_user_data(cx);
	int ck = kind_of(x->d, sqlite3_value_int64(v[0]));

	(void)argc;
	if (!x->k->excl || ck == FUNC_KERNEL)
		count_kind(x->k, ck, 1);
}

/*
 * Every fnode's kind by id, for the search's loads to count the calls
 * with (search_db_count_kinds()); none when the ids are not those darc
 * gives (1, 2, ...: a table of the largest's size).
 */
static void make_dense(struct traced *d)
{
	int64_t top = d->nfk ? d->fk[d->nfk - 1].id : 0;

	if (top < 1 || top > 4 * d->nfk + 1024 || !(d->dense = malloc(top + 1)))
		return;
	memset(d->dense, -1, top + 1);
	for (int64_t i = 0; i < d->nfk; i++)
		if (d->fk[i].id >= 0 && d->fk[i].kind >= FUNC_KERNEL && d->fk[i].kind <= FUNC_UPROBE)
			d->dense[d->fk[i].id] = (signed char)d->fk[i].kind;
	d->ndense = top + 1;
}

/*
 * What the tracer did in @db: kept with it (rdb_memo()), read once; *@own
 * when it could not be kept (the caller frees it). NULL with @err set.
 */
static struct traced *traced_of(struct rdb *db, bool *own, struct err_msg *err)
{
	struct traced *d = rdb_memo(db, TRACED_MEMO);
	sqlite3 *sql = rdb_sql(db);

	*own = false;
	if (d)
		return d;
	if (!(d = calloc(1, sizeof(*d)))) {
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	if (load_kinds(sql, d, err))
		goto fail;
	for (size_t i = 0; i < sizeof(charges_sql) / sizeof(*charges_sql); i++)
		if (load_charges(sql, d, charges_sql[i], err))
			goto fail;
	if (d->nch) /* none: d->ch is NULL, which qsort() must not be given */
		qsort(d->ch, d->nch, sizeof(*d->ch), by_call);
	make_dense(d);
	*own = rdb_memo_keep(db, TRACED_MEMO, d, traced_free) != 0;
	return d;
fail:
	traced_free(d);
	return NULL;
}

static int counter_init(struct counter *x, struct rdb *db, struct err_msg *err)
{
	memset(x, 0, sizeof(*x));
	x->db = db;
	x->sql = rdb_sql(db);
	if (rdb_row_sink(x->sql, "darc_count_fnode", 1, count_fnode, x) ||
	    sqlite3_prepare_v2(x->sql,
			       "SELECT darc_count_fnode(b.fnode_id) FROM call_base b"
			       " WHERE b.id > ?1 AND b.id <= ?2 AND b.task_id = ?3",
			       -1, &x->below, NULL) ||
	    sqlite3_prepare_v2(x->sql,
			       "SELECT darc_count_fnode(b.fnode_id) FROM call_base b"
			       " WHERE b.id > ?1 AND b.id <= ?2 AND b.parent_id = ?1",
			       -1, &x->kids, NULL))
		return err_setf(err, rdb_path(db), "cannot read the calls: %s", rdb_why(x->sql));
	x->d = traced_of(db, &x->own, err);
	return x->d ? 0 : -1;
}

/* The charges to calls @lo .. @hi of task @task into @k. */
static void count_charges(const struct counter *x, int64_t lo, int64_t hi, int64_t task,
			  struct cost_counts *k)
{
	const struct traced *d = x->d;
	int64_t a = first_at(d->ch, d->nch, sizeof(*d->ch), offsetof(struct charge, call_id), lo);

	for (; a < d->nch && d->ch[a].call_id <= hi; a++)
		if (d->ch[a].task == task)
			k->n[d->ch[a].mech] += d->ch[a].events;
}

/* What was traced inside call @id (of @task, subtree to @last, func.kind @kind) into @k. */
static int count_call(struct counter *x, int64_t id, int64_t last, int64_t task, int kind,
		      bool excl, struct cost_counts *k)
{
	sqlite3_stmt *st = excl ? x->kids : x->below;
	const uint32_t *n = excl ? NULL : search_db_kinds_of(x->db, id, last, task);
	int rc;

	memset(k, 0, sizeof(*k));
	k->self_fgraph = kind == FUNC_KERNEL;
	k->excl = excl;
	if (last < id)
		last = id;
	if (n) { /* the search that just read the subtree counted it */
		for (int i = FUNC_KERNEL; i <= FUNC_UPROBE; i++)
			count_kind(k, i, n[i]);
		count_charges(x, id, last, task, k);
		return 0;
	}
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, last);
	if (!excl)
		sqlite3_bind_int64(st, 3, task);
	x->k = k;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	count_charges(x, id, excl ? id : last, task, k);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- per bucket ---- */

/* Bucket @b of @t, made (zeroed) if new; NULL when out of memory. */
static struct cost_bucket *bucket_at(struct tracer_shift *t, int b)
{
	int i = 0;

	while (i < t->n && t->b[i].bucket < b)
		i++;
	if (i < t->n && t->b[i].bucket == b)
		return &t->b[i];
	if (!(t->n & (t->n + 1))) { /* 0, 1, 3, 7, ...: full */
		struct cost_bucket *p = realloc(t->b, (t->n + 1) * 2 * sizeof(*p));
		if (!p)
			return NULL;
		t->b = p;
	}
	memmove(&t->b[i + 1], &t->b[i], (t->n - i) * sizeof(*t->b));
	t->n++;
	t->b[i] = (struct cost_bucket){.bucket = b};
	return &t->b[i];
}

/* One call of value @v (the selection's unit) and tracer share @share ns into @t. */
static int add_call(struct tracer_shift *t, double v, double share)
{
	double s = share * t->scale;
	int sh = cost_shift(v, s, t->resolution);
	struct cost_bucket *b = bucket_at(t, cost_bucket(v, t->resolution));

	if (!b)
		return -1;
	b->calls++;
	b->lat_ns += v;
	b->share_ns += s < v ? s : v;
	b->shifted += sh > 0;
	if (sh > b->shift_max)
		b->shift_max = sh;
	return 0;
}

/* Every call in sr_root, counted and priced, into @t. */
static int add_selected(struct rdb *db, struct tracer_shift *t, bool excl, struct err_msg *err)
{
	struct counter x;
	sqlite3_stmt *st = NULL;
	int rc = counter_init(&x, db, err);

	if (!rc && sqlite3_prepare_v2(rdb_sql(db),
				      /* sr_root outside: else SQLite may scan every call and
					 look each up in it (3.7 M lookups for 33 K calls) */
				      "SELECT c.id, c.last_id, c.task_id, coalesce(f.kind, -1),"
				      " c.incl_ns, c.excl_ns FROM sr_root r CROSS JOIN call c"
				      " ON c.id = r.id LEFT JOIN func f ON f.id = c.func_id"
				      " ORDER BY r.id",
				      -1, &st, NULL))
		rc = err_setf(err, rdb_path(db), "cannot read the calls: %s", rdb_why(rdb_sql(db)));
	while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cost_counts k;
		double v = (double)sqlite3_column_int64(st, excl ? 5 : 4) * t->scale;
		rc = count_call(&x, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
				sqlite3_column_int64(st, 2), sqlite3_column_int(st, 3), excl, &k);
		if (rc)
			break;
		if (add_call(t, v, cost_share(&t->cost, &k))) {
			rc = err_setf(err, NULL, "out of memory");
			break;
		}
	}
	if (rc > 0 && rc != SQLITE_DONE)
		rc = err_setf(err, rdb_path(db), "cannot read the calls: %s", rdb_why(rdb_sql(db)));
	else if (rc == SQLITE_DONE)
		rc = 0;
	sqlite3_finalize(st);
	counter_free(&x);
	return rc;
}

void tracer_shift_prime(struct rdb *db, const struct call_selection *sel)
{
	struct tracer_shift t = {0};
	struct err_msg ignore;
	struct traced *d;
	bool known, own;

	if (sel->metric != RM_INCL)
		return;
	known = !load_cost(db, &t, &ignore) && any_cost(&t.cost);
	json_decref(t.stored);
	if (!known || !(d = traced_of(db, &own, &ignore)))
		return;
	if (own) /* not kept: nothing to count with past this call */
		traced_free(d);
	else if (d->dense)
		search_db_count_kinds(db, d->dense, d->ndense);
}

int tracer_shift_load(struct rdb *db, const struct call_selection *sel, int64_t lo, int64_t hi,
		struct tracer_shift *t, struct err_msg *err)
{
	memset(t, 0, sizeof(*t));
	t->resolution = sel->resolution;
	t->scale = sel->scale > 0 ? sel->scale : 1;
	t->valued = sel->metric == RM_INCL || sel->metric == RM_EXCL;
	if (load_cost(db, t, err))
		return -1;
	if (!t->valued || !any_cost(&t->cost))
		return 0;
	if (rdb_select_calls(db, sel, lo, hi, err) < 0 ||
	    add_selected(db, t, sel->metric == RM_EXCL, err)) {
		tracer_shift_release(t);
		return -1;
	}
	return 0;
}

void tracer_shift_release(struct tracer_shift *t)
{
	json_decref(t->stored);
	free(t->b);
	memset(t, 0, sizeof(*t));
}

int tracer_shift_of(const struct tracer_shift *t, const struct cost_bucket *b)
{
	return b->calls ? cost_shift(b->lat_ns / b->calls, b->share_ns / b->calls, t->resolution)
			: 0;
}

static const struct cost_bucket *find(const struct tracer_shift *t, int bucket)
{
	for (int i = 0; i < t->n; i++)
		if (t->b[i].bucket == bucket)
			return &t->b[i];
	return NULL;
}

json_t *tracer_shift_bucket_json(const struct tracer_shift *t, int bucket)
{
	const struct cost_bucket *b = find(t, bucket);

	if (!b || !b->calls)
		return json_null();
	return json_pack("{sf sf si sI si}", "share_ns", b->share_ns / b->calls, "share",
			 b->lat_ns > 0 ? b->share_ns / b->lat_ns : 0.0, "shift",
			 tracer_shift_of(t, b), "shifted_calls", (json_int_t)b->shifted,
			 "shift_max", b->shift_max);
}

json_t *tracer_shift_range_json(const struct tracer_shift *t, int lo, int hi)
{
	struct cost_bucket sum = {0};
	json_t *shifted = json_array();

	for (int i = 0; i < t->n; i++) {
		const struct cost_bucket *b = &t->b[i];
		if (b->bucket < lo || b->bucket > hi)
			continue;
		sum.calls += b->calls;
		sum.lat_ns += b->lat_ns;
		sum.share_ns += b->share_ns;
		sum.shifted += b->shifted;
		sum.shift_max = b->shift_max > sum.shift_max ? b->shift_max : sum.shift_max;
		if (tracer_shift_of(t, b) > 0)
			json_array_append_new(shifted, json_integer(b->bucket));
	}
	if (!sum.calls) {
		json_decref(shifted);
		return json_null();
	}
	return json_pack("{sf sf sI si so}", "share_ns", sum.share_ns / sum.calls, "share",
			 sum.lat_ns > 0 ? sum.share_ns / sum.lat_ns : 0.0, "shifted_calls",
			 (json_int_t)sum.shifted, "shift_max", sum.shift_max, "buckets_shifted",
			 shifted);
}

json_t *tracer_shift_cost_json(const struct tracer_shift *t)
{
	json_t *o;
	const char *k;
	json_t *v;

	if (!t->stored)
		return json_null();
	o = json_object();
	json_object_foreach(t->stored, k, v)
		json_object_set_new(o, k,
				    json_pack("{sOsO}", "ns", json_object_get(v, "ns") ?: json_null(),
					      "source",
					      json_object_get(v, "source") ?: json_null()));
	return o;
}

void tracer_shift_cost_words(const struct tracer_shift *t, char *buf, size_t n)
{
	const char *k, *sep = "";
	json_t *v;
	size_t at = 0;

	buf[0] = 0;
	json_object_foreach(t->stored, k, v) {
		json_t *ns = json_object_get(v, "ns");
		const char *src = json_string_value(json_object_get(v, "source"));
		char a[32];
		json_t *est = json_object_get(v, "estimated_ns");
		bool meas = src && !strcmp(src, "measured");
		char b[32];
		if (json_is_number(ns) && meas && json_is_number(est)) /* the graph's: both */
			at += snprintf(buf + at, at < n ? n - at : 0,
				       "%s%s %s (measured; %s estimated from the recording)", sep,
				       vis(k), show_amount(json_number_value(ns), "ns", a, sizeof(a)),
				       show_amount(json_number_value(est), "ns", b, sizeof(b)));
		else if (json_is_number(ns))
			at += snprintf(buf + at, at < n ? n - at : 0, "%s%s %s (%s)", sep, vis(k),
				       show_amount(json_number_value(ns), "ns", a, sizeof(a)),
				       meas ? "measured" : "estimated from the recording");
		else
			at += snprintf(buf + at, at < n ? n - at : 0, "%s%s not known", sep, vis(k));
		sep = ", ";
	}
}

void tracer_shift_text(FILE *out, const struct tracer_shift *t, const char *unit,
		       const char *indent)
{
	char words[1024];
	int shown = 0;

	if (!t->stored)
		return;
	tracer_shift_cost_words(t, words, sizeof(words));
	fprintf(out, "%sthe tracer's cost a traced call: %s\n", indent, words);
	if (!t->valued || !any_cost(&t->cost)) {
		fprintf(out, "%s  its share is not known for this %s\n", indent,
			t->valued ? "recording" : "metric (only for incl and excl)");
		return;
	}
	for (int i = 0; i < t->n; i++) {
		const struct cost_bucket *b = &t->b[i];
		int sh = tracer_shift_of(t, b);
		if (sh < 1)
			continue;
		if (!shown++)
			fprintf(out, "%sthe buckets it shifts by a bucket or more (untraced, their "
				     "calls would be lower):\n", indent);
		fprintf(out, "%s  bucket %d: %.0f%% of its latency is the tracer's; its mean "
			     "%d bucket%s lower, %lld of %lld calls lower\n",
			indent, b->bucket, b->lat_ns > 0 ? 100 * b->share_ns / b->lat_ns : 0.0, sh,
			sh == 1 ? "" : "s", (long long)b->shifted, (long long)b->calls);
	}
	if (!shown)
		fprintf(out, "%s  it shifts no bucket by a bucket or more\n", indent);
}

/* ---- the recorder's own tasks ---- */

/* The manifest's recorder pid (darc-record's own), or 0. */
static int64_t recorder_pid(struct rdb *db)
{
	sqlite3_stmt *st;
	int64_t pid = 0;

	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT manifest FROM recording LIMIT 1", -1, &st,
			       NULL))
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		json_t *m = json_loads(rdb_text(st, 0), 0, NULL);
		json_t *p = json_object_get(json_object_get(m, "recorder"), "pid");
		pid = json_is_integer(p) ? json_integer_value(p) : 0;
		json_decref(m);
	}
	sqlite3_finalize(st);
	return pid;
}

int tracer_shift_recorder_task(struct rdb *db, int64_t tid, char *who, size_t n)
{
	sqlite3_stmt *st;
	int64_t rec = recorder_pid(db), pid = -1;
	const char *name = NULL;
	char comm[64] = "";

	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT pid, comm FROM task WHERE tid = ?", -1, &st,
			       NULL))
		return 0;
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			pid = sqlite3_column_int64(st, 0);
		snprintf(comm, sizeof(comm), "%s", rdb_text(st, 1));
	}
	sqlite3_finalize(st);
	if (!strcmp(comm, "trace-cmd"))
		name = "trace-cmd";
	else if (!strncmp(comm, "darc-record", 11) || (rec > 0 && (tid == rec || pid == rec)))
		name = "darc-record";
	if (name)
		snprintf(who, n, "%s", name);
	return name != NULL;
}
