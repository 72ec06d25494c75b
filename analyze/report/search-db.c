// SPDX-License-Identifier: MIT
#include "search-db.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "grow.h"
#include "hist.h"
#include "rows.h"

/* sr_sub: the roots (sr_root) first, as roots; then their descendants */
static const char sub_init_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS sr_sub(id INTEGER PRIMARY KEY, parent INTEGER);"
    "DELETE FROM sr_sub;"
    "INSERT INTO sr_sub SELECT id, NULL FROM sr_root";
static const char roots_sql[] =
    "SELECT b.id, b.last_id, b.task_id FROM sr_root r JOIN call_base b ON b.id = r.id";
/* a root's range of ids: its descendants, and other tasks' calls and interrupts */
static const char range_sql[] =
    "SELECT id, parent_id FROM call_base WHERE id BETWEEN ?1 + 1 AND ?2 AND task_id = ?3"
    " AND parent_id IS NOT NULL";
static const char sub_add_sql[] = "INSERT OR IGNORE INTO sr_sub VALUES (?1, ?2)";

static const char calls_sql[] =
    "SELECT s.id, s.parent, c.fnode_id, coalesce(c.incl_ns, 0), c.irq_ns, c.softirq_ns,"
    " c.preempt_ns, c.blocked_ns, f.overhead FROM sr_sub s JOIN call c ON c.id = s.id"
    " JOIN func f ON f.id = c.func_id ORDER BY s.id";

static const char irqs_sql[] =
    "SELECT i.call_id, i.kind, i.irq, i.name, i.t_end - i.t_start FROM irq_interval i"
    " JOIN sr_sub s ON s.id = i.call_id WHERE i.t_end IS NOT NULL ORDER BY i.call_id";

static int fail(struct rdb *db, struct fmt_err *err, const char *what)
{
	return fmt_errf(err, rdb_path(db), "cannot read %s: %s", what,
			rdb_why(rdb_sql(db)));
}

/* Index of @id in the sorted @ids[0..n), or -1. */
static int find_id(const int64_t *ids, int n, int64_t id)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (ids[mid] == id)
			return mid;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Index of call @id in the sorted ids, or -1. */
static int index_of(const struct rsearch *rs, int64_t id)
{
	return find_id(rs->ids, rs->in.ncalls, id);
}

static int load_calls(struct rdb *db, struct rsearch *rs, struct fmt_err *err)
{
	sqlite3_stmt *st;
	int64_t *parent_ids = NULL;
	int n = 0, cap = 0, capp = 0, rc;

	if (sqlite3_prepare_v2(rdb_sql(db), calls_sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, "the calls");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int c2 = cap, c3 = capp;
		if (GROW(rs->calls, n, cap, 1024) || GROW(rs->ids, n, c2, 1024) ||
		    GROW(parent_ids, n, c3, 1024))
			break;
		capp = c3;
		rs->ids[n] = sqlite3_column_int64(st, 0);
		parent_ids[n] = sqlite3_column_type(st, 1) == SQLITE_NULL
				    ? -1
				    : sqlite3_column_int64(st, 1);
		rs->calls[n] = (struct sr_call){-1, sqlite3_column_int64(st, 2),
						sqlite3_column_int64(st, 3),
						sqlite3_column_int64(st, 4),
						sqlite3_column_int64(st, 5),
						sqlite3_column_int64(st, 6),
						sqlite3_column_int64(st, 7),
						sqlite3_column_int(st, 8)};
		n++;
	}
	sqlite3_finalize(st);
	rs->in.ncalls = n;
	for (int i = 0; i < n; i++) {
		rs->calls[i].parent = parent_ids[i] < 0 ? -1 : index_of(rs, parent_ids[i]);
		rs->nroots += rs->calls[i].parent < 0;
	}
	free(parent_ids);
	return rc == SQLITE_DONE ? 0 : fail(db, err, "the calls");
}

/* The source index of interrupt (@kind, @irq, @name), added if new; -1 when out of memory. */
static int source(struct rsearch *rs, int *cap, int kind, sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 3);
	char label[160];

	if (kind == IRQ_SOFT)
		snprintf(label, sizeof(label), "softirq %s", name ? name : "?");
	else if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		snprintf(label, sizeof(label), "irq %lld (%s)", sqlite3_column_int64(st, 2),
			 name ? name : "?");
	else
		snprintf(label, sizeof(label), "interrupt %s", name ? name : "?");
	for (int i = 0; i < rs->in.nsources; i++)
		if (!strcmp(rs->sources[i], label))
			return i;
	{
		int c2 = *cap;
		if (GROW(rs->sources, rs->in.nsources, *cap, 16) ||
		    GROW(rs->soft, rs->in.nsources, c2, 16))
			return -1;
	}
	rs->sources[rs->in.nsources] = strdup(label);
	rs->soft[rs->in.nsources] = kind == IRQ_SOFT;
	return rs->sources[rs->in.nsources] ? rs->in.nsources++ : -1;
}

static int load_irqs(struct rdb *db, struct rsearch *rs, struct fmt_err *err)
{
	sqlite3_stmt *st;
	int n = 0, cap = 0, scap = 0, rc;

	if (sqlite3_prepare_v2(rdb_sql(db), irqs_sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, "the interrupts");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int call = index_of(rs, sqlite3_column_int64(st, 0));
		int s = source(rs, &scap, sqlite3_column_int(st, 1), st);
		if (s < 0 || GROW(rs->irqs, n, cap, 256))
			break;
		if (call >= 0)
			rs->irqs[n++] = (struct sr_irq){call, s, sqlite3_column_int64(st, 4)};
	}
	sqlite3_finalize(st);
	rs->in.nirqs = n;
	return rc == SQLITE_DONE ? 0 : fail(db, err, "the interrupts");
}

/*
 * The first ns value of bucket @b at @sel's resolution (and unit: cycles
 * are ns times sel->scale): where the selection of a peak's calls begins.
 */
static int64_t bucket_start(int b, const struct rsel *sel)
{
	double scale = sel->scale > 0 ? sel->scale : 1;
	int64_t v = (int64_t)(exp2((double)b / sel->resolution) / scale) - 2;

	if (v < 1)
		v = 1;
	if (scale == 1)
		while (hist_bucket((uint64_t)v, sel->resolution) < b)
			v++;
	return v;
}

/*
 * Add the descendants of root @id to sr_sub: one pass over its range of ids,
 * keeping a call whose parent is kept (parents come first). @buf holds the
 * subtree's ids so far, in order.
 */
static int add_subtree(sqlite3_stmt *range, sqlite3_stmt *add, int64_t id, int64_t last,
		       int64_t task, int64_t **buf, int *cap)
{
	int n = 0, rc;

	(*buf)[n++] = id;
	sqlite3_bind_int64(range, 1, id);
	sqlite3_bind_int64(range, 2, last);
	sqlite3_bind_int64(range, 3, task);
	while ((rc = sqlite3_step(range)) == SQLITE_ROW) {
		int64_t c = sqlite3_column_int64(range, 0), p = sqlite3_column_int64(range, 1);

		if (find_id(*buf, n, p) < 0)
			continue;
		if (GROW(*buf, n, *cap, 1024))
			return SQLITE_NOMEM;
		(*buf)[n++] = c;
		sqlite3_bind_int64(add, 1, c);
		sqlite3_bind_int64(add, 2, p);
		sqlite3_step(add);
		if (sqlite3_reset(add) != SQLITE_OK)
			return sqlite3_reset(add);
	}
	sqlite3_reset(range);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* sr_sub: every call under the roots in sr_root, each with its parent. */
static int fill_subtrees(struct rdb *db, struct fmt_err *err)
{
	sqlite3 *sql = rdb_sql(db);
	sqlite3_stmt *roots = NULL, *range = NULL, *add = NULL;
	int64_t *buf = malloc(1024 * sizeof(*buf));
	int cap = 1024, rc = SQLITE_NOMEM;

	if (buf && sqlite3_exec(sql, sub_init_sql, NULL, NULL, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(sql, roots_sql, -1, &roots, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(sql, range_sql, -1, &range, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(sql, sub_add_sql, -1, &add, NULL) == SQLITE_OK) {
		while ((rc = sqlite3_step(roots)) == SQLITE_ROW &&
		       (rc = add_subtree(range, add, sqlite3_column_int64(roots, 0),
					 sqlite3_column_int64(roots, 1),
					 sqlite3_column_int64(roots, 2), &buf, &cap)) == SQLITE_OK)
			;
	}
	sqlite3_finalize(roots);
	sqlite3_finalize(range);
	sqlite3_finalize(add);
	free(buf);
	return rc == SQLITE_DONE ? 0 : fail(db, err, "the subtrees");
}

int rsearch_load(struct rdb *db, const struct rsel *sel, int lo, int hi, struct rsearch *rs,
		 struct fmt_err *err)
{
	int64_t lo_ns = lo > 0 ? bucket_start(lo, sel) : INT64_MIN;
	int64_t hi_ns = hi + 1 < 62 * sel->resolution ? bucket_start(hi + 1, sel) : INT64_MAX;

	memset(rs, 0, sizeof(*rs));
	if (rdb_select_calls(db, sel, lo_ns, hi_ns, err) < 0)
		return -1;
	if (fill_subtrees(db, err))
		return -1;
	if (load_calls(db, rs, err) || load_irqs(db, rs, err))
		return -1;
	rs->in.calls = rs->calls;
	rs->in.irqs = rs->irqs;
	rs->in.source_soft = rs->soft;
	return 0;
}

void rsearch_release(struct rsearch *rs)
{
	for (int i = 0; i < rs->in.nsources; i++)
		free(rs->sources[i]);
	free(rs->sources);
	free(rs->soft);
	free(rs->calls);
	free(rs->ids);
	free(rs->irqs);
	memset(rs, 0, sizeof(*rs));
}

char *rsearch_name(struct rdb *db, const struct rsearch *rs, int kind, int64_t id)
{
	sqlite3_stmt *st;
	char *name = NULL;

	if ((kind == SR_IRQ || kind == SR_SOFTIRQ) && id >= 0 && id < rs->in.nsources)
		return strdup(rs->sources[id]);
	if (kind != SR_FNODE)
		return strdup(sr_kind_name(kind));
	if (sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id"
			       " WHERE n.id = ?1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			name = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	return name ? name : strdup("?");
}

/* ---- storing ------------------------------------------------------------------ */

static int insert_search(sqlite3 *w, const struct rsel *sel, const char *f0, int peak, int lo,
			 int hi, int nroots, const char *params, int64_t owner[2])
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	/* a function's searches are its own; a path's, its fnode's */
	if (sqlite3_prepare_v2(w,
			       "INSERT INTO search(f0, owner_kind, owner_id, peak, lo, hi, calls,"
			       " params, created) VALUES (?1, ?2, CASE ?2 WHEN 0 THEN (SELECT"
			       " func_id FROM fnode WHERE id = ?3) ELSE ?3 END, ?4, ?5, ?6, ?7, ?8,"
			       " ?9)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, f0, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, owner[0]);
	sqlite3_bind_int64(st, 3, owner[1]);
	if (peak > 0)
		sqlite3_bind_int(st, 4, peak);
	sqlite3_bind_int(st, 5, lo);
	sqlite3_bind_int(st, 6, hi);
	sqlite3_bind_int(st, 7, nroots);
	sqlite3_bind_text(st, 8, params, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, when, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	(void)sel;
	return rc;
}

static int insert_nodes(sqlite3 *w, struct rdb *db, const struct rsearch *rs,
			const struct sr_result *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (db_prepare_insert(w, "search_path", &st) != SQLITE_OK)
		return -1;
	for (int i = 0; i < r->nnodes && !rc; i++) {
		const struct sr_node *n = &r->nodes[i];
		char *name = rsearch_name(db, rs, n->kind, n->id);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, PARAM(search_path, search_id), id);
		sqlite3_bind_int(st, PARAM(search_path, node), i);
		if (n->parent >= 0)
			sqlite3_bind_int(st, PARAM(search_path, parent), n->parent);
		else
			sqlite3_bind_null(st, PARAM(search_path, parent));
		sqlite3_bind_int(st, PARAM(search_path, depth), n->depth);
		sqlite3_bind_text(st, PARAM(search_path, kind), sr_kind_name(n->kind), -1,
				  SQLITE_STATIC);
		if (n->kind == SR_FNODE)
			sqlite3_bind_int64(st, PARAM(search_path, fnode_id), n->id);
		else
			sqlite3_bind_null(st, PARAM(search_path, fnode_id));
		sqlite3_bind_text(st, PARAM(search_path, name), name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, PARAM(search_path, maxcount), n->maxcount);
		sqlite3_bind_int(st, PARAM(search_path, calls), n->ncalls);
		sqlite3_bind_double(st, PARAM(search_path, total_ns), n->total_ns);
		sqlite3_bind_double(st, PARAM(search_path, share), n->share);
		sqlite3_bind_text(st, PARAM(search_path, status), sr_status_name(n->status), -1,
				  SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		free(name);
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_cands(sqlite3 *w, struct rdb *db, const struct rsearch *rs,
			const struct sr_result *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (db_prepare_insert(w, "search_candidate", &st) != SQLITE_OK)
		return -1;
	for (int i = 0; i < r->ncands && !rc; i++) {
		const struct sr_cand *c = &r->cands[i];
		char *name = rsearch_name(db, rs, c->kind, c->id);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, PARAM(search_candidate, search_id), id);
		sqlite3_bind_int(st, PARAM(search_candidate, node), c->node);
		sqlite3_bind_text(st, PARAM(search_candidate, kind), sr_kind_name(c->kind), -1,
				  SQLITE_STATIC);
		if (c->kind == SR_FNODE)
			sqlite3_bind_int64(st, PARAM(search_candidate, fnode_id), c->id);
		else
			sqlite3_bind_null(st, PARAM(search_candidate, fnode_id));
		sqlite3_bind_text(st, PARAM(search_candidate, name), name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, PARAM(search_candidate, maxcount), c->maxcount);
		sqlite3_bind_double(st, PARAM(search_candidate, total_ns), c->total_ns);
		sqlite3_bind_int(st, PARAM(search_candidate, winner), c->winner);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		free(name);
	}
	sqlite3_finalize(st);
	return rc;
}

/* One search to store: its row of search, then its paths and candidates. */
struct search_job {
	struct rdb *db;
	const struct rsel *sel;	 /* the calls searched */
	const char *f0, *params; /* f0's title; the parameters as JSON text */
	int peak, lo, hi;	 /* the peak's number and bucket range */
	const struct rsearch *rs; /* the input, for the names of what it found */
	const struct sr_result *r;
	int64_t *id; /* out: search.id given */
};

static int put_search(sqlite3 *w, void *ctx)
{
	const struct search_job *j = ctx;
	int64_t owner[2] = {j->sel->func ? OWNER_FUNC : OWNER_FNODE,
			    j->r->nnodes ? j->r->nodes[0].id : 0};

	if (insert_search(w, j->sel, j->f0, j->peak, j->lo, j->hi, j->rs->nroots, j->params, owner))
		return -1;
	*j->id = sqlite3_last_insert_rowid(w);
	return insert_nodes(w, j->db, j->rs, j->r, *j->id) ||
	       insert_cands(w, j->db, j->rs, j->r, *j->id);
}

int rsearch_store(struct rdb *db, const struct rsel *sel, const char *f0, int peak, int lo,
		  int hi, const char *params, const struct rsearch *rs, const struct sr_result *r,
		  int64_t *id, struct fmt_err *err)
{
	struct search_job j = {db, sel, f0, params, peak, lo, hi, rs, r, id};

	return rdb_store(db, "search", put_search, &j, err);
}
