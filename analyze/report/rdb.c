// SPDX-License-Identifier: MIT
#include "rdb.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "grow.h"
#include "hist.h"
#include "irq-episode.h"
#include "rows.h"
#include "schema.h"
#include "trust.h"
#include "wfile.h"

#define NBUCKETS (64 * 4 + 1) /* every bucket of a 64-bit ns value at resolution 4 */
#define MAX_WINDOWS 100000

/*
 * The calls a profile leaves out for their flags (call_extra.flags & 3: a
 * call_flag that makes its times unsure), by id, read once: a profile of
 * incl_ns then reads call_base alone and asks here, where the view call
 * looked every call up in call_extra (2.8 M calls: 0.5 s to 0.2 s).
 */
struct flagged {
	int64_t *id; /* sorted */
	int n, cap;
	int state; /* 0 not read, 1 read, -1 could not be read: the view is used */
};

struct rdb {
	sqlite3 *sql; /* opened read-only; holds the selections' temp tables (sr_root, ...) */
	char *path;
	char *source; /* rdb_source(): read once */
	sqlite3 *w; /* the read-write connection, once opened (writer()) */
	bool side;  /* read-only: results go to temp tables of sql (rdb_store()) */
	/* rdb_preselect_calls(): the calls of @sel in [lo, hi), in table sr_pre */
	struct {
		bool on;
		struct call_selection sel;
		int64_t lo, hi, scans;
	} pre;
	/* rdb_profile_load_keep(): every complete call of a selection, by id, and its incl_ns */
	struct {
		struct kept {
			struct call_selection sel;
			struct kept_call {
				int64_t id, incl;
			} *v;
			int64_t n;
		} *e;
		int n, cap;
		int64_t calls; /* in all of them: at most KEPT_MAX */
	} kept;
	int64_t splits; /* profiles read on two connections (rdb_split_scans()) */
	struct flagged flagged; /* flagged_of() */
	/* what sr_root holds: rdb_select_calls(@sel, @lo, @hi), @n calls (its strings copied) */
	struct {
		bool valid;
		struct call_selection sel;
		int64_t lo, hi, n;
	} root;
	/* rdb_memo(): what a report reads once of the database, whatever it selects */
	struct {
		const char *key;
		void *p;
		void (*release)(void *p);
	} memo[RDB_MEMOS];
	int nmemo;
	int64_t search_gen; /* rdb_search_gen(): sr_sub made anew this many times */
};

/* The most calls the selections kept hold together (16 bytes each). */
#define KEPT_MAX (4 << 20)

static const char *const metric_names[RM_METRICS] = {"incl",	"excl",	   "irq",
						     "softirq", "preempt", "blocked"};

const char *rdb_metric_name(int m)
{
	return m >= 0 && m < RM_METRICS ? metric_names[m] : "?";
}

int rdb_metric_of(const char *name)
{
	for (int m = 0; m < RM_METRICS; m++)
		if (!strcmp(name, metric_names[m]))
			return m;
	return -1;
}

/* One integer from @q, or @dflt when it yields no row or fails. */
static int64_t query_int(sqlite3 *sql, const char *q, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(sql, q, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char darc_tables_sql[] = "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
				      " AND name IN ('recording', 'func', 'fnode', 'hist')";

const char *rdb_why(sqlite3 *s)
{
	int e = s ? sqlite3_system_errno(s) : 0;

	/* SQLite keeps no errno for a full disk; "not an error" would say nothing */
	if (!e && s && sqlite3_errcode(s) == SQLITE_FULL)
		e = ENOSPC;
	if (e)
		return strerror(e);
	if (s && sqlite3_errcode(s) == SQLITE_OK)
		return "failed (SQLite gave no reason)";
	return sqlite3_errmsg(s);
}

/*
 * @path opened read-only into *@sql, untrusted: defensive, and used only
 * if its tables, version and schema are darc's own (trust.h). 0, or -1 with
 * @err set (*@sql, if not NULL, for the caller to close).
 */
static int open_checked(const char *path, sqlite3 **sql, struct err_msg *err)
{
	int64_t v;

	if (trust_open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, sql, err))
		return -1;
	if (query_int(*sql, darc_tables_sql, 0) != 4) {
		err_setf(err, path, "not a darc database (an SQLite file without darc's tables)");
		return -1;
	}
	v = query_int(*sql, "PRAGMA user_version", -1);
	if (v != schema_version)
		return err_setf(err, path,
				"a darc database of schema version %lld; this darc reads version %d:"
				" analyze the recording again",
				(long long)v, schema_version);
	return trust_check_schema(*sql, path, err);
}

static void row_sink_end(sqlite3_context *cx)
{
	sqlite3_result_null(cx);
}

int rdb_row_sink(sqlite3 *sql, const char *name, int nargs,
		 void (*row)(sqlite3_context *cx, int argc, sqlite3_value **v), void *ctx)
{
	return row ? sqlite3_create_function(sql, name, nargs, SQLITE_UTF8 | SQLITE_DIRECTONLY,
					     ctx, NULL, row, row_sink_end)
		   : sqlite3_create_function(sql, name, nargs, SQLITE_UTF8, NULL, NULL, NULL,
					     NULL);
}

sqlite3 *rdb_open_reader(struct rdb *db, struct err_msg *err)
{
	sqlite3 *sql = NULL;

	if (open_checked(db->path, &sql, err)) {
		sqlite3_close(sql);
		return NULL;
	}
	sqlite3_busy_timeout(sql, 2000);
	return sql;
}

struct rdb *rdb_open(const char *path, struct err_msg *err)
{
	struct rdb *db = calloc(1, sizeof(*db));

	if (!db || !(db->path = strdup(path))) {
		err_setf(err, path, "out of memory");
		goto fail;
	}
	wfile_note_input(path);
	switch (db_sqlite_header(path)) {
	case -1:
		err_setf(err, path, "%s", strerror(errno));
		goto fail;
	case 0:
		err_setf(err, path, "not a darc database (not an SQLite file)");
		goto fail;
	}
	if (open_checked(path, &db->sql, err))
		goto fail;
	if (irq_episode_register(db->sql) != SQLITE_OK) {
		err_setf(err, path, "cannot open: %s", sqlite3_errmsg(db->sql));
		goto fail;
	}
	sqlite3_busy_timeout(db->sql, 2000);
	/* reports scan the calls: map the file rather than copy it page by page */
	sqlite3_exec(db->sql, "PRAGMA mmap_size = 4294967296; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY", NULL,
		     NULL, NULL);
	return db;
fail:
	rdb_close(db);
	return NULL;
}

static void root_forget(struct rdb *db);

void rdb_close(struct rdb *db)
{
	if (!db)
		return;
	rdb_preselect_end(db);
	rdb_kept_end(db);
	root_forget(db);
	free(db->flagged.id);
	for (int i = 0; i < db->nmemo; i++)
		db->memo[i].release(db->memo[i].p);
	sqlite3_close(db->w);
	sqlite3_close(db->sql);
	free(db->path);
	free(db->source);
	free(db);
}

sqlite3 *rdb_sql(const struct rdb *db)
{
	return db->sql;
}

int64_t rdb_count(struct rdb *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

void *rdb_memo(const struct rdb *db, const char *key)
{
	for (int i = 0; i < db->nmemo; i++)
		if (!strcmp(db->memo[i].key, key))
			return db->memo[i].p;
	return NULL;
}

int rdb_memo_keep(struct rdb *db, const char *key, void *p, void (*release)(void *p))
{
	if (db->nmemo == RDB_MEMOS || rdb_memo(db, key))
		return -1;
	db->memo[db->nmemo++] = (typeof(db->memo[0])){key, p, release};
	return 0;
}

void *rdb_memo_zeroed(struct rdb *db, const char *key, size_t size, void (*release)(void *p))
{
	void *p = rdb_memo(db, key);

	if (!p && (p = calloc(1, size)) && rdb_memo_keep(db, key, p, release)) {
		free(p);
		p = NULL;
	}
	return p;
}

int64_t rdb_search_gen(const struct rdb *db)
{
	return db->search_gen;
}

void rdb_search_new(struct rdb *db)
{
	db->search_gen++;
}

const char *rdb_path(const struct rdb *db)
{
	return db->path;
}

const char *rdb_source(struct rdb *db)
{
	sqlite3_stmt *st;

	if (db->source)
		return db->source;
	if (sqlite3_prepare_v2(db->sql, "SELECT source FROM recording", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			db->source = strdup(rdb_text(st, 0));
		sqlite3_finalize(st);
	}
	return db->source ? db->source : "";
}

/* ---- selections ------------------------------------------------------------ */

/* "a > b>c " -> "a > b > c", the form of view fnode_path (caller frees). */
static char *norm_path(const char *in)
{
	char *out = malloc(3 * strlen(in) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = in; *p; p++) {
		if (*p == '>') {
			while (o > out && o[-1] == ' ')
				o--;
			o += sprintf(o, " > ");
			while (p[1] == ' ')
				p++;
		} else if (*p != ' ' || o > out) {
			*o++ = *p;
		}
	}
	while (o > out && o[-1] == ' ')
		o--;
	*o = 0;
	return out;
}

void rdb_filter_sql(const char *task_col, const char *time_col, char *buf, size_t n)
{
	snprintf(buf, n,
		 "(?2 = 0 OR %s = ?2)"
		 " AND (?3 IS NULL OR %s IN (SELECT tid FROM task WHERE comm = ?3))"
		 " AND (?4 IS NULL OR %s >= ?4) AND (?5 IS NULL OR %s < ?5)",
		 task_col, task_col, time_col, time_col);
}

/* The fnodes of the function named ?1: its calls are the calls of these. */
#define FUNC_FNODES "SELECT n.id FROM fnode n JOIN func f ON f.id = n.func_id WHERE f.name = ?1"

/* The WHERE clause of view call c for @sel (parameters ?1 owner, ?2 task, ?3 comm, ?4 ?5 time). */
static void where_sql(const struct call_selection *sel, char *buf, size_t n)
{
	const char *owner = sel->func	 ? "c.fnode_id IN (" FUNC_FNODES ")"
			    : sel->fnode ? "c.fnode_id = ?1"
					 : "c.fnode_id IN (SELECT id FROM fnode_path WHERE path = ?1)";
	char filter[320];

	rdb_filter_sql("c.task_id", "c.t_entry", filter, sizeof(filter));
	snprintf(buf, n, "%s AND %s", owner, filter);
}

const char *rdb_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

int64_t rdb_t_first(struct rdb *db)
{
	return query_int(db->sql, "SELECT t_first FROM recording", 0);
}

bool rdb_made_from(struct rdb *db, const struct fmt_file_identity *id)
{
	sqlite3_stmt *st = NULL;
	bool same = false;

	if (sqlite3_prepare_v2(db->sql, "SELECT source_size, source_mtime_ns, source_hash FROM"
				       " recording", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 2) == SQLITE_TEXT)
		same = (uint64_t)sqlite3_column_int64(st, 0) == id->size &&
		       sqlite3_column_int64(st, 1) == id->mtime_ns &&
		       !strcmp(rdb_text(st, 2), id->hash);
	sqlite3_finalize(st);
	return same;
}

int rdb_bind_filters(sqlite3_stmt *st, const struct call_selection *sel, int64_t t0)
{
	int rc = sqlite3_bind_int64(st, 2, sel->task);

	rc |= sel->comm ? sqlite3_bind_text(st, 3, sel->comm, -1, SQLITE_TRANSIENT)
			: sqlite3_bind_null(st, 3);
	rc |= sel->t_lo != INT64_MIN ? sqlite3_bind_int64(st, 4, t0 + sel->t_lo)
				     : sqlite3_bind_null(st, 4);
	rc |= sel->t_hi != INT64_MAX ? sqlite3_bind_int64(st, 5, t0 + sel->t_hi)
				     : sqlite3_bind_null(st, 5);
	return rc;
}

static int bind_sel(sqlite3_stmt *st, const struct call_selection *sel, const char *path,
		    int64_t t0)
{
	int rc = sel->func    ? sqlite3_bind_text(st, 1, sel->func, -1, SQLITE_TRANSIENT)
		 : sel->fnode ? sqlite3_bind_int64(st, 1, sel->fnode)
			      : sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);

	return rc | rdb_bind_filters(st, sel, t0);
}

/* A title for the selection (caller frees), or NULL with @err set if it names nothing. */
static char *sel_what(struct rdb *db, const struct call_selection *sel, const char *path,
		      struct err_msg *err)
{
	char q[256], *what = NULL;
	sqlite3_stmt *st;

	if (sel->func)
		snprintf(q, sizeof(q), "SELECT ?1 FROM func WHERE name = ?1 LIMIT 1");
	else if (sel->fnode)
		snprintf(q, sizeof(q), "SELECT 'fnode ' || id || ' (' || path || ')' "
				       "FROM fnode_path WHERE id = ?1");
	else
		snprintf(q, sizeof(q), "SELECT path FROM fnode_path WHERE path = ?1 LIMIT 1");
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK) {
		err_setf(err, db->path, "%s", rdb_why(db->sql));
		return NULL;
	}
	if (sel->fnode)
		sqlite3_bind_int64(st, 1, sel->fnode);
	else
		sqlite3_bind_text(st, 1, sel->func ? sel->func : path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		what = strdup(rdb_text(st, 0));
	else if (sel->func)
		err_setf(err, db->path, "no function '%s'", sel->func);
	else if (sel->fnode)
		err_setf(err, db->path, "no fnode %lld", (long long)sel->fnode);
	else
		err_setf(err, db->path, "no call path '%s' (paths start at a root)", path);
	sqlite3_finalize(st);
	return what;
}

/* ---- profiles -------------------------------------------------------------- */

/* A profile over every possible bucket (trimmed later). */
static int profile_alloc(struct profile *p, int resolution)
{
	p->resolution = resolution;
	p->lo = 0;
	p->n = NBUCKETS;
	p->count = calloc(NBUCKETS, sizeof(*p->count));
	p->lat_ns = calloc(NBUCKETS, sizeof(*p->lat_ns));
	p->max_ns = calloc(NBUCKETS, sizeof(*p->max_ns));
	return p->count && p->lat_ns && p->max_ns ? 0 : -1;
}

/* Keep buckets [lo, lo + n) of @p only. */
static void profile_cut(struct profile *p, int lo, int n)
{
	memmove(p->count, p->count + (lo - p->lo), n * sizeof(*p->count));
	if (p->lat_ns)
		memmove(p->lat_ns, p->lat_ns + (lo - p->lo), n * sizeof(*p->lat_ns));
	if (p->max_ns)
		memmove(p->max_ns, p->max_ns + (lo - p->lo), n * sizeof(*p->max_ns));
	p->lo = lo;
	p->n = n;
}

/* The non-empty extent of @p: [*lo, *hi]; an empty profile gives [0, -1]. */
static void profile_extent(const struct profile *p, int *lo, int *hi)
{
	*lo = 0;
	*hi = -1;
	for (int i = 0; i < p->n; i++)
		if (p->count[i]) {
			if (*hi < 0)
				*lo = p->lo + i;
			*hi = p->lo + i;
		}
}

void rdb_profile_release(struct profile *p)
{
	free(p->count);
	free(p->lat_ns);
	free(p->max_ns);
	p->count = NULL;
	p->lat_ns = NULL;
	p->max_ns = NULL;
	p->n = 0;
}

/* A value in the unit of @sel: ns, or cycles. */
static int64_t scaled(const struct call_selection *sel, int64_t ns)
{
	return sel->scale > 0 && sel->scale != 1 ? (int64_t)(ns * sel->scale + 0.5) : ns;
}

static void profile_add(struct profile *p, int64_t v)
{
	int b = hist_bucket(v > 0 ? (uint64_t)v : 0, p->resolution);

	p->count[b]++;
	p->lat_ns[b] += v;
	if (v > p->max_ns[b])
		p->max_ns[b] = v;
}

int rdb_profile_values(sqlite3_stmt *st, int resolution, struct profile *p, uint64_t *skipped)
{
	int lo, hi, rc;

	*skipped = 0;
	if (profile_alloc(p, resolution)) {
		rdb_profile_release(p);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			++*skipped;
		else
			profile_add(p, sqlite3_column_int64(st, 0));
	profile_extent(p, &lo, &hi);
	profile_cut(p, lo, hi - lo + 1);
	if (rc != SQLITE_DONE)
		rdb_profile_release(p);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int by_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The flagged calls, when a query of @sel's calls reads call_base alone
 * (its metric incl_ns: the others are in call_extra); else NULL, and the
 * view call gives the flags. Read on the first call (on @db's own thread).
 */
static const struct flagged *flagged_of(struct rdb *db, const struct call_selection *sel)
{
	struct flagged *f = &db->flagged;
	sqlite3_stmt *st;
	int rc = SQLITE_ERROR;

	if (sel->metric != RM_INCL || f->state < 0)
		return NULL;
	if (f->state > 0)
		return f;
	if (sqlite3_prepare_v2(db->sql, "SELECT id FROM call_extra WHERE flags & 3 != 0", -1, &st,
			       NULL) == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(f->id, f->n, f->cap, 64))
			f->id[f->n++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_DONE) {
		free(f->id);
		*f = (struct flagged){.state = -1};
		return NULL;
	}
	if (f->n) /* none: f->id is NULL, which qsort() must not be given */
		qsort(f->id, f->n, sizeof(*f->id), by_id);
	f->state = 1;
	return f;
}

/*
 * Whether call @id is complete: @complete (the query's own test), and not
 * flagged when @f (flagged_of()) says the query read call_base alone.
 */
static bool is_complete(const struct flagged *f, bool complete, int64_t id)
{
	return complete && (!f || !f->n || !bsearch(&id, f->id, f->n, sizeof(*f->id), by_id));
}

/*
 * Prepare the selection's query on connection @sql: metric value, t_entry,
 * complete, id and fnode of every selected call, in order of t_entry; of
 * those of the fnodes @fnodes[@n] instead of @sel's own when @n > 0; of ids
 * in [@id_lo, @id_hi) unless that is every id (INT64_MIN, INT64_MAX).
 * With @sink, the aggregate @sink(value, complete, id, fnode) of @sql's
 * (rdb_row_sink()) takes the calls inside one step, in the table's order
 * of id: a profile, its quantiles and the calls it keeps do not depend on
 * the order (sorting 2.8 M calls by time was a third of darc explain on
 * bench-v6), and stepping out to the caller a row cost more than the rest.
 */
static sqlite3_stmt *sel_query_on(struct rdb *db, sqlite3 *sql,
				  const struct call_selection *sel, const char *path, int64_t t0,
				  const int64_t *fnodes, int n, int64_t id_lo, int64_t id_hi,
				  const char *sink, struct err_msg *err)
{
	static const char *const col[RM_METRICS] = {"incl_ns",	  "excl_ns",	"irq_ns",
						    "softirq_ns", "preempt_ns", "blocked_ns"};
	sqlite3_str *q = sqlite3_str_new(sql);
	char where[512], filter[320], *text;
	sqlite3_stmt *st = NULL;
	bool ranged = id_lo != INT64_MIN || id_hi != INT64_MAX;

	if (sink) /* its arguments */
		sqlite3_str_appendf(q, "SELECT %s(c.%s, ", sink, col[sel->metric]);
	else
		sqlite3_str_appendf(q, "SELECT c.%s, c.t_entry, ", col[sel->metric]);
	if (flagged_of(db, sel)) /* the flags asked of flagged_of() a call (is_complete()) */
		sqlite3_str_appendf(q, "c.incl_ns IS NOT NULL, c.id, c.fnode_id%s FROM call_base c"
				       " WHERE ", sink ? ")" : "");
	else
		sqlite3_str_appendf(q, "c.incl_ns IS NOT NULL AND c.flags & 3 = 0, c.id, c.fnode_id%s"
				       " FROM call c WHERE ", sink ? ")" : "");
	if (n > 0) {
		rdb_filter_sql("c.task_id", "c.t_entry", filter, sizeof(filter));
		for (int i = 0; i < n; i++)
			sqlite3_str_appendf(q, "%s%lld", i ? ", " : "c.fnode_id IN (",
					    (long long)fnodes[i]);
		sqlite3_str_appendf(q, ") AND %s", filter);
	} else {
		where_sql(sel, where, sizeof(where));
		sqlite3_str_appendall(q, where);
	}
	if (ranged)
		sqlite3_str_appendall(q, " AND c.id >= ?6 AND c.id < ?7");
	if (!sink)
		sqlite3_str_appendall(q, " ORDER BY c.t_entry");
	text = sqlite3_str_finish(q);
	if (!text) {
		err_setf(err, db->path, "out of memory");
		return NULL;
	}
	if (sqlite3_prepare_v2(sql, text, -1, &st, NULL) != SQLITE_OK) {
		err_setf(err, db->path, "%s", rdb_why(sql));
		st = NULL;
	} else if (bind_sel(st, sel, path, t0) ||
		   (ranged && (sqlite3_bind_int64(st, 6, id_lo) || sqlite3_bind_int64(st, 7, id_hi)))) {
		err_setf(err, db->path, "%s", rdb_why(sql));
		sqlite3_finalize(st);
		st = NULL;
	}
	sqlite3_free(text);
	return st;
}

/* The selection's calls in order of time, for a time-lapse. */
static sqlite3_stmt *sel_query(struct rdb *db, const struct call_selection *sel, const char *path,
			       int64_t t0, struct err_msg *err)
{
	return sel_query_on(db, db->sql, sel, path, t0, NULL, 0, INT64_MIN, INT64_MAX, NULL, err);
}

/*
 * Check @sel and make its title (@info->what, @info->t0), and its path
 * normalised into *@path (caller frees). 0, or -1 with @err set.
 */
static int sel_check(struct rdb *db, const struct call_selection *sel,
		     struct rdb_profile_info *info, char **path, struct err_msg *err)
{
	*path = sel->path ? norm_path(sel->path) : NULL;
	memset(info, 0, sizeof(*info));
	if (sel->metric < 0 || sel->metric >= RM_METRICS || sel->resolution < 1 ||
	    sel->resolution > 4 || (!sel->func && !sel->fnode && !sel->path))
		err_setf(err, db->path, "bad selection");
	else if (sel->path && !*path)
		err_setf(err, db->path, "out of memory");
	else if ((info->what = sel_what(db, sel, *path, err)))
		info->t0 = rdb_t_first(db);
	if (info->what)
		return 0;
	free(*path);
	*path = NULL;
	return -1;
}

/* Check @sel, make its title and statement. */
static sqlite3_stmt *sel_begin(struct rdb *db, const struct call_selection *sel,
			       struct rdb_profile_info *info, struct err_msg *err)
{
	char *path;
	sqlite3_stmt *st = NULL;

	if (!sel_check(db, sel, info, &path, err))
		st = sel_query(db, sel, path, info->t0, err);
	free(path);
	return st;
}

static bool same_sel(const struct call_selection *a, const struct call_selection *b);

/* Whether kept call @c's incl_ns lies in [@lo, @hi). */
static bool kept_in(const struct kept_call *c, int64_t lo, int64_t hi)
{
	return c->incl >= lo && c->incl < hi;
}

/* The calls kept for @sel, or NULL. */
static const struct kept *kept_of(const struct rdb *db, const struct call_selection *sel)
{
	for (int i = 0; i < db->kept.n; i++)
		if (same_sel(&db->kept.e[i].sel, sel))
			return &db->kept.e[i];
	return NULL;
}

/* @n calls @v of @sel kept (taken over: freed here if not kept), in place of any kept before. */
static void keep_calls(struct rdb *db, const struct call_selection *sel, struct kept_call *v,
		       int64_t n)
{
	struct kept *old = (struct kept *)kept_of(db, sel);

	if (old) {
		db->kept.calls -= old->n;
		free(old->v);
		*old = db->kept.e[--db->kept.n];
	}
	if (db->kept.calls + n > KEPT_MAX || GROW(db->kept.e, db->kept.n, db->kept.cap, 4)) {
		free(v);
		return;
	}
	db->kept.e[db->kept.n++] = (struct kept){*sel, v, n};
	db->kept.calls += n;
}

void rdb_kept_end(struct rdb *db)
{
	for (int i = 0; i < db->kept.n; i++)
		free(db->kept.e[i].v);
	free(db->kept.e);
	memset(&db->kept, 0, sizeof(db->kept));
}

/* One selection's profile as its calls come (profile_row(), load_end()). */
struct loading {
	const struct call_selection *sel;
	const struct flagged *flagged; /* flagged_of() */
	struct profile *p;
	struct rdb_profile_info *info;
	bool keep;		/* its calls' ids kept (incl_ns only) */
	char *path;		/* sel->path normalised */
	int64_t *v;		/* the values, for the quantiles */
	struct kept_call *k;	/* with keep: the calls */
	int cap, kcap;
};

/* Start @l: @sel checked, its title in @info, @p allocated, its path in @l. 0, or -1 with @err set. */
static int load_begin(struct rdb *db, struct loading *l, const struct call_selection *sel,
		      struct profile *p, struct rdb_profile_info *info, bool keep,
		      struct err_msg *err)
{
	*l = (struct loading){sel, flagged_of(db, sel), p, info, keep && sel->metric == RM_INCL};
	memset(p, 0, sizeof(*p));
	if (sel_check(db, sel, info, &l->path, err))
		return -1;
	if (!profile_alloc(p, sel->resolution))
		return 0;
	rdb_profile_release(p);
	free(info->what);
	info->what = NULL;
	free(l->path);
	return err_setf(err, db->path, "out of memory");
}

/* Call @id, of metric value @raw and @complete or not, into @l. SQLITE_ROW, or SQLITE_NOMEM. */
static int load_value(struct loading *l, int64_t raw, bool complete, int64_t id)
{
	int64_t x = scaled(l->sel, raw);
	struct rdb_profile_info *info = l->info;

	if (!complete) {
		info->skipped++;
		return SQLITE_ROW;
	}
	if (GROW(l->v, info->calls, l->cap, 1024) ||
	    (l->keep && GROW(l->k, info->calls, l->kcap, 1024)))
		return SQLITE_NOMEM;
	if (l->keep)
		l->k[info->calls] = (struct kept_call){id, raw};
	l->v[info->calls++] = x;
	profile_add(l->p, x);
	info->total_ns += x;
	if (x > info->max_ns)
		info->max_ns = x;
	return SQLITE_ROW;
}

/* Which of @fnodes[@n] is @fnode: its index, or -1. */
static int fnode_index(const int64_t *fnodes, int n, int64_t fnode)
{
	for (int i = 0; i < n; i++)
		if (fnodes[i] == fnode)
			return i;
	return -1;
}

#define PROFILE_SINK "darc_profile_row"
#define SPLIT_SINK "darc_split_row"

/* The loads a profile's calls go to: @l[0], or by fnode @l[@n] of @fnodes[@n] when @n > 0. */
struct profile_sink {
	struct loading *l;
	const int64_t *fnodes;
	int n;
	int failed; /* SQLITE_OK, or SQLITE_NOMEM */
};

/* The aggregate darc_profile_row(value, complete, id, fnode): a call into its load. */
static void profile_row(sqlite3_context *cx, int argc, sqlite3_value **v)
{
	struct profile_sink *ps = sqlite3_user_data(cx);
	int i = ps->n > 0 ? fnode_index(ps->fnodes, ps->n, sqlite3_value_int64(v[3])) : 0;
	int64_t id = sqlite3_value_int64(v[2]);

	(void)argc;
	if (ps->failed || i < 0)
		return;
	if (load_value(&ps->l[i], sqlite3_value_int64(v[0]),
		       is_complete(ps->l[i].flagged, sqlite3_value_int(v[1]), id), id) != SQLITE_ROW) {
		ps->failed = SQLITE_NOMEM;
		sqlite3_result_error_nomem(cx);
	}
}

/*
 * Run @st (NULL: it could not be made), a query whose aggregate @name of
 * connection @sql takes its rows (*@failed: the aggregate's own failure),
 * then finalize it and drop @name. SQLITE_DONE, or the failure.
 */
static int sink_run(sqlite3 *sql, const char *name, sqlite3_stmt *st, const int *failed)
{
	int rc = st ? sqlite3_step(st) : SQLITE_ERROR;

	if (rc == SQLITE_ROW) /* the aggregate's one row */
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	rdb_row_sink(sql, name, 4, NULL, NULL); /* it points into the caller's */
	return *failed ? *failed : rc;
}

int64_t rdb_split_min = 1000000;

/*
 * A profile's calls read on two connections at once, each over half the
 * ids: every call is read (call_base has no index by fnode), 0.2 s on the
 * 3.67 M calls of vm-odirect-v6 repeated 600 times. The second half's rows
 * come after the first's: the profile, its quantiles and the calls kept do
 * not depend on their order. Below rdb_split_min calls, one connection:
 * opening a second costs some ms.
 */
struct split {
	pthread_t thread;
	bool started;
	sqlite3 *sql; /* the second connection, and its statement */
	sqlite3_stmt *st;
	int64_t mid; /* it reads ids from here on; INT64_MAX when not split */
	int rc;	     /* its query's: SQLITE_DONE, or the failure */
	int failed;  /* split_row()'s own failure */
	const struct flagged *flagged; /* flagged_of(), read before the thread starts */
	struct split_row {
		int64_t raw, id, fnode;
		bool complete;
	} *rows;
	int nrows, cap;
};

/* The aggregate darc_split_row(value, complete, id, fnode): a call of the second half into @sp. */
static void split_row(sqlite3_context *cx, int argc, sqlite3_value **v)
{
	struct split *sp = sqlite3_user_data(cx);
	int64_t id = sqlite3_value_int64(v[2]);

	(void)argc;
	if (sp->failed)
		return;
	if (GROW(sp->rows, sp->nrows, sp->cap, 1024)) {
		sp->failed = SQLITE_NOMEM;
		sqlite3_result_error_nomem(cx);
		return;
	}
	sp->rows[sp->nrows++] = (struct split_row){
	    sqlite3_value_int64(v[0]), id, sqlite3_value_int64(v[3]),
	    is_complete(sp->flagged, sqlite3_value_int(v[1]), id)};
}

/* The second half's query on connection @sql (NULL: not made), run into @sp. */
static int split_collect(struct split *sp, sqlite3 *sql, sqlite3_stmt *st)
{
	return sink_run(sql, SPLIT_SINK, st, &sp->failed);
}

/*
 * The second half's query on connection @sql (the split's own, or @db's
 * when that failed), its rows to @sp; NULL if it cannot be made.
 */
static sqlite3_stmt *split_query(struct rdb *db, struct split *sp, sqlite3 *sql,
				 const struct call_selection *sel, const char *path, int64_t t0,
				 const int64_t *fnodes, int n)
{
	struct err_msg ignore;

	if (rdb_row_sink(sql, SPLIT_SINK, 4, split_row, sp) != SQLITE_OK)
		return NULL;
	return sel_query_on(db, sql, sel, path, t0, fnodes, n, sp->mid, INT64_MAX, SPLIT_SINK,
			    &ignore);
}

static void *split_main(void *arg)
{
	struct split *sp = arg;

	sp->rc = split_collect(sp, sp->sql, sp->st);
	sp->st = NULL; /* finalized */
	return NULL;
}

/*
 * The selection's query (sel_query_on()'s arguments) on @db's connection,
 * for the first half of the ids when the recording has rdb_split_min calls
 * or more: then @sp's thread reads the second half on a connection of its
 * own. NULL with @err set (split_end() is still due).
 */
static sqlite3_stmt *split_begin(struct rdb *db, struct split *sp,
				 const struct call_selection *sel, const char *path, int64_t t0,
				 const int64_t *fnodes, int n, struct profile_sink *ps,
				 struct err_msg *err)
{
	int64_t top = query_int(db->sql, "SELECT max(id) FROM call_base", 0);
	struct err_msg ignore;

	*sp = (struct split){.mid = INT64_MAX, .flagged = flagged_of(db, sel)};
	if (top >= rdb_split_min && (sp->sql = rdb_open_reader(db, &ignore))) {
		sp->mid = top / 2 + 1;
		sp->st = split_query(db, sp, sp->sql, sel, path, t0, fnodes, n);
		sp->started = sp->st && !pthread_create(&sp->thread, NULL, split_main, sp);
		if (!sp->started) { /* all on this connection */
			sqlite3_finalize(sp->st);
			sqlite3_close(sp->sql);
			*sp = (struct split){.mid = INT64_MAX, .flagged = sp->flagged};
		}
		db->splits += sp->started;
	}
	if (rdb_row_sink(db->sql, PROFILE_SINK, 4, profile_row, ps) != SQLITE_OK) {
		err_setf(err, db->path, "%s", rdb_why(db->sql));
		return NULL;
	}
	return sel_query_on(db, db->sql, sel, path, t0, fnodes, n, INT64_MIN, sp->mid, PROFILE_SINK,
			    err);
}

/*
 * The second half's rows into @l (routed by fnode among @fnodes[@n] when @n
 * > 0), once its thread is done; read again on @db's connection if its own
 * failed. @rc is the first half's: SQLITE_DONE, else the halves are only
 * ended. Returns the whole's: SQLITE_DONE, or the failure.
 */
static int split_end(struct rdb *db, struct split *sp, int rc, struct loading *l,
		     const struct call_selection *sel, const char *path, int64_t t0,
		     const int64_t *fnodes, int n)
{
	if (sp->started) {
		pthread_join(sp->thread, NULL);
		sqlite3_finalize(sp->st);
		sqlite3_close(sp->sql);
		if (rc == SQLITE_DONE && sp->rc != SQLITE_DONE) { /* busy, or memory */
			sp->nrows = 0;
			sp->failed = SQLITE_OK;
			rc = split_collect(sp, db->sql,
					   split_query(db, sp, db->sql, sel, path, t0, fnodes, n));
		}
	}
	for (int r = 0; rc == SQLITE_DONE && r < sp->nrows; r++) {
		const struct split_row *w = &sp->rows[r];
		int i = n > 0 ? fnode_index(fnodes, n, w->fnode) : 0;

		if (i >= 0 && load_value(&l[i], w->raw, w->complete, w->id) != SQLITE_ROW)
			rc = SQLITE_NOMEM;
	}
	free(sp->rows);
	*sp = (struct split){.mid = INT64_MAX};
	return rc;
}

/* End @l after its last row (@rc SQLITE_DONE) or a failure. 0, or -1 with @err set. */
static int load_end(struct rdb *db, struct loading *l, int rc, struct err_msg *err)
{
	struct rdb_profile_info *info = l->info;
	int lo, hi;

	if (rc == SQLITE_DONE && info->calls)
		hist_quant_exact(l->v, info->calls, &info->quant);
	free(l->v);
	free(l->path);
	l->v = NULL;
	l->path = NULL;
	if (rc != SQLITE_DONE) {
		free(l->k);
		l->k = NULL;
		rdb_profile_release(l->p);
		free(info->what);
		info->what = NULL;
		return err_setf(err, db->path, "%s",
				rc == SQLITE_NOMEM ? "out of memory" : rdb_why(db->sql));
	}
	if (l->keep)
		keep_calls(db, l->sel, l->k, (int64_t)info->calls);
	l->k = NULL;
	profile_extent(l->p, &lo, &hi);
	profile_cut(l->p, lo, hi - lo + 1);
	return 0;
}

/* The profile of @sel's calls; with @keep, their ids kept in @db->kept (incl_ns only). */
static int profile_load(struct rdb *db, const struct call_selection *sel, struct profile *p,
			struct rdb_profile_info *info, bool keep, struct err_msg *err)
{
	struct loading l;
	struct profile_sink ps = {&l, NULL, 0, SQLITE_OK};
	struct split sp;
	int rc;

	if (load_begin(db, &l, sel, p, info, keep, err))
		return -1;
	rc = sink_run(db->sql, PROFILE_SINK,
		      split_begin(db, &sp, sel, l.path, info->t0, NULL, 0, &ps, err), &ps.failed);
	rc = split_end(db, &sp, rc, &l, sel, l.path, info->t0, NULL, 0);
	return load_end(db, &l, rc, err);
}

int rdb_profile_load(struct rdb *db, const struct call_selection *sel, struct profile *p,
		     struct rdb_profile_info *info, struct err_msg *err)
{
	return profile_load(db, sel, p, info, false, err);
}

int rdb_profile_load_keep(struct rdb *db, const struct call_selection *sel, struct profile *p,
			  struct rdb_profile_info *info, struct err_msg *err)
{
	return profile_load(db, sel, p, info, true, err);
}

int rdb_profiles_load_keep(struct rdb *db, const struct call_selection *sel, const int64_t *fnodes,
			   int n, struct profile *p, struct rdb_profile_info *info,
			   struct err_msg *err)
{
	struct call_selection *sels = calloc(n > 0 ? n : 1, sizeof(*sels));
	struct loading *l = calloc(n > 0 ? n : 1, sizeof(*l));
	struct split sp = {.mid = INT64_MAX};
	struct profile_sink ps = {l, fnodes, n, SQLITE_OK};
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR, ready = 0;
	bool said;

	if (!sels || !l || sel->func || sel->path) {
		free(sels);
		free(l);
		return err_setf(err, db->path, sels && l ? "bad selection" : "out of memory");
	}
	for (; ready < n; ready++) {
		sels[ready] = *sel;
		sels[ready].fnode = fnodes[ready];
		if (load_begin(db, &l[ready], &sels[ready], &p[ready], &info[ready], true, err))
			break;
	}
	if (ready == n && n > 0)
		st = split_begin(db, &sp, &sels[0], NULL, info[0].t0, fnodes, n, &ps, err);
	/* a failure of load_begin() or of the query said why already; of a row, the first
	   load_end() says it */
	said = !st;
	if (ready == n && n > 0) {
		rc = sink_run(db->sql, PROFILE_SINK, st, &ps.failed);
		rc = split_end(db, &sp, rc, l, &sels[0], NULL, info[0].t0, fnodes, n);
	}
	for (int i = 0; i < ready; i++) {
		struct err_msg e;

		if (load_end(db, &l[i], rc, said ? &e : err))
			said = true;
	}
	free(l);
	free(sels);
	return rc == SQLITE_DONE || n == 0 ? 0 : -1;
}

/* Row @i of a time-lapse, grown as windows come. */
static struct profile *window(struct profile **rows, int *nrows, int i, int resolution)
{
	struct profile *r;

	if (i >= MAX_WINDOWS)
		return NULL;
	if (i >= *nrows) {
		r = realloc(*rows, (i + 1) * sizeof(*r));
		if (!r)
			return NULL;
		*rows = r;
		for (int k = *nrows; k <= i; k++) {
			*nrows = k + 1;
			if (profile_alloc(&r[k], resolution))
				return NULL;
		}
	}
	return &(*rows)[i];
}

/* Cut every row to the buckets any of them uses. */
static void rows_cut(struct profile *rows, int nrows)
{
	int lo = NBUCKETS, hi = -1, a, b;

	for (int i = 0; i < nrows; i++) {
		profile_extent(&rows[i], &a, &b);
		if (b >= 0 && a < lo)
			lo = a;
		if (b > hi)
			hi = b;
	}
	for (int i = 0; i < nrows; i++)
		profile_cut(&rows[i], hi >= 0 ? lo : 0, hi >= 0 ? hi - lo + 1 : 0);
}

int rdb_profile_timelapse(struct rdb *db, const struct call_selection *sel, int64_t interval_ns,
			  struct profile **rows, int *nrows, int64_t *t0, struct err_msg *err)
{
	struct rdb_profile_info info;
	sqlite3_stmt *st;
	int64_t start = 0;
	const struct flagged *flagged;
	int rc;

	*rows = NULL;
	*nrows = 0;
	if (interval_ns <= 0)
		return err_setf(err, db->path, "bad interval");
	st = sel_begin(db, sel, &info, err);
	free(info.what);
	if (!st)
		return -1;
	flagged = flagged_of(db, sel); /* read by sel_begin()'s query already */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t v = scaled(sel, sqlite3_column_int64(st, 0)), t = sqlite3_column_int64(st, 1);
		struct profile *w;
		if (!is_complete(flagged, sqlite3_column_int(st, 2), sqlite3_column_int64(st, 3)))
			continue;
		if (!*nrows)
			start = t;
		w = window(rows, nrows, (int)((t - start) / interval_ns), sel->resolution);
		if (!w) {
			rc = SQLITE_NOMEM;
			break;
		}
		profile_add(w, v);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (int i = 0; i < *nrows; i++)
			rdb_profile_release(&(*rows)[i]);
		free(*rows);
		*rows = NULL;
		*nrows = 0;
		return err_setf(err, db->path,
				rc == SQLITE_NOMEM ? "too many time windows (at most %d)"
						   : "cannot read the calls (%d)",
				rc == SQLITE_NOMEM ? MAX_WINDOWS : rc);
	}
	rows_cut(*rows, *nrows);
	*t0 = start - info.t0;
	return 0;
}

/* The owner (hist_owner kind and id) of @sel's calls for table peak. 0 or -1. */
static int sel_owner(struct rdb *db, const struct call_selection *sel, int *kind, int64_t *id)
{
	char *path = sel->path ? norm_path(sel->path) : NULL;
	sqlite3_stmt *st;
	int rc = -1;

	*kind = sel->func ? OWNER_FUNC : OWNER_FNODE;
	if (sel->fnode) {
		*id = sel->fnode;
		return 0;
	}
	if (sqlite3_prepare_v2(db->sql,
			       sel->func ? "SELECT min(id) FROM func WHERE name = ?1"
					 : "SELECT min(id) FROM fnode_path WHERE path = ?1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, sel->func ? sel->func : path, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			*id = sqlite3_column_int64(st, 0);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	free(path);
	return rc;
}

static const char peak_delete_sql[] =
    "DELETE FROM peak WHERE owner_kind = ?1 AND owner_id = ?2 AND metric = ?3"
    " AND resolution = ?4 AND params = ?5";
static const char peak_insert_sql[] =
    "INSERT INTO peak(owner_kind, owner_id, metric, resolution, params, number, lo, hi, calls,"
    " share_calls, share_latency, mean, max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
    " ?11, ?12, ?13)";

/* Run @sql on @w with the owner's five keys, and for each peak its fields when @pk. */
static int peak_rows(sqlite3 *w, const char *sql, const int64_t key[4], const char *params,
		     const struct peak *pk, int npk)
{
	sqlite3_stmt *st;
	int rc = SQLITE_OK;

	if (sqlite3_prepare_v2(w, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int k = 0; k < (pk ? npk : 1) && rc == SQLITE_OK; k++) {
		sqlite3_reset(st);
		for (int i = 0; i < 4; i++)
			sqlite3_bind_int64(st, i + 1, key[i]);
		sqlite3_bind_text(st, 5, params, -1, SQLITE_STATIC);
		if (pk) {
			const struct peak *q = &pk[k];
			sqlite3_bind_int(st, 6, k + 1);
			sqlite3_bind_int(st, 7, q->lo);
			sqlite3_bind_int(st, 8, q->hi);
			sqlite3_bind_int64(st, 9, (int64_t)q->calls);
			sqlite3_bind_double(st, 10, q->share_calls);
			sqlite3_bind_double(st, 11, q->share_lat);
			sqlite3_bind_double(st, 12, q->calls ? q->lat_ns / q->calls : 0);
			sqlite3_bind_int64(st, 13, q->max_ns);
		}
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

/* The tables darc stores results in after the analysis (schema/tables.sql). */
static const char *const result_tables[] = {"peak",	       "search",	  "search_path",
					    "search_candidate", "io_layer",	  "explain_subject",
					    "explain_cause",	"hist"};

/*
 * The database cannot be written: give the read connection temp tables of
 * the same names and contents, which shadow the stored ones for this run
 * (nothing reads them through a view), and say once that nothing is stored.
 */
static int side_tables(struct rdb *db, const char *what, struct err_msg *err)
{
	static const char q[] = "SELECT substr(sql, 14) FROM main.sqlite_schema"
				" WHERE type = 'table' AND name = ?1 AND sql LIKE 'CREATE TABLE %'";
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return err_setf(err, db->path, "cannot read the schema: %s", rdb_why(db->sql));
	for (size_t i = 0; i < sizeof(result_tables) / sizeof(*result_tables) && !rc; i++) {
		char *sql = NULL;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, result_tables[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW)
			continue; /* an older schema without it: nothing to shadow */
		sql = sqlite3_mprintf("CREATE TEMP TABLE %s; INSERT INTO temp.\"%w\" SELECT * FROM"
				      " main.\"%w\"", rdb_text(st, 0),
				      result_tables[i], result_tables[i]);
		if (!sql || sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
			rc = err_setf(err, db->path, "cannot keep the %s in memory: %s", what,
				      rdb_why(db->sql));
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	if (!rc) {
		db->side = true;
		fprintf(stderr, "darc: '%s' is read-only: results are kept for this run only, not"
				" stored\n", db->path);
	}
	return rc;
}

/* Did the writable connection fail because the database (or its directory) is read-only? */
static bool read_only(sqlite3 *w)
{
	int e = w ? sqlite3_errcode(w) & 0xff : SQLITE_CANTOPEN;

	return e == SQLITE_READONLY || e == SQLITE_CANTOPEN || e == SQLITE_PERM ||
	       e == SQLITE_AUTH || (w && sqlite3_db_readonly(w, "main") == 1);
}

/*
 * The one way the reports write to their database (the results of
 * rdb_store(), the indexes of rdb_make_indexes()): a read-write connection,
 * opened on first use and kept until rdb_close(). NULL when the database
 * cannot be written: *@failed is then the failed connection, to say why
 * and close.
 */
static sqlite3 *writer(struct rdb *db, sqlite3 **failed)
{
	sqlite3 *w = NULL;

	*failed = NULL;
	if (db->w)
		return db->w;
	struct err_msg ignore;

	if (!trust_open(db->path, SQLITE_OPEN_READWRITE, &w, &ignore) &&
	    sqlite3_db_readonly(w, "main") == 0)
		return db->w = w;
	*failed = w;
	return NULL;
}

/* @fn in one transaction on @w: 0, or -1 (rolled back). */
static int store_on(sqlite3 *w, const char *begin, const char *commit, const char *rollback,
		    int (*fn)(sqlite3 *w, void *ctx), void *ctx)
{
	if (sqlite3_exec(w, begin, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (!fn(w, ctx) && sqlite3_exec(w, commit, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	sqlite3_exec(w, rollback, NULL, NULL, NULL);
	return -1;
}

int rdb_store(struct rdb *db, const char *what, int (*fn)(sqlite3 *w, void *ctx), void *ctx,
	      struct err_msg *err)
{
	sqlite3 *failed, *w;
	int rc = -1;

	if (!db->side) {
		w = writer(db, &failed);
		if (w && !store_on(w, "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", fn, ctx))
			rc = 0;
		else if (!read_only(w ? w : failed))
			err_setf(err, db->path, "cannot store the %s: %s", what,
				 rdb_why(w ? w : failed));
		else if (!side_tables(db, what, err))
			rc = 1; /* below, on the side */
		sqlite3_close(failed);
		if (rc <= 0)
			return rc;
	}
	if (store_on(db->sql, "SAVEPOINT store", "RELEASE store", "ROLLBACK TO store; RELEASE store",
		     fn, ctx))
		return err_setf(err, db->path, "cannot keep the %s in memory: %s", what,
				rdb_why(db->sql));
	return 0;
}

/* A run of darc peaks to store in table peak, replacing one with the same key. */
struct peaks_job {
	int64_t key[4];	    /* owner_kind, owner_id, metric, resolution */
	const char *params; /* how they were found, JSON text */
	const struct peak *pk;
	int npk;
};

static int put_peaks(sqlite3 *w, void *ctx)
{
	struct peaks_job *j = ctx;

	return peak_rows(w, peak_delete_sql, j->key, j->params, NULL, 0) ||
	       peak_rows(w, peak_insert_sql, j->key, j->params, j->pk, j->npk);
}

int rdb_store_peaks(struct rdb *db, const struct call_selection *sel, const char *params,
		    const struct peak *pk, int npk, struct err_msg *err)
{
	struct peaks_job j = {{0, 0, sel->metric, sel->resolution}, params, pk, npk};
	int kind;

	if (sel_owner(db, sel, &kind, &j.key[1]))
		return err_setf(err, db->path, "cannot store the peaks: no owner for them");
	j.key[0] = kind;
	return rdb_store(db, "peaks", put_peaks, &j, err);
}

int rdb_funcs_with_calls(struct rdb *db, uint64_t calls, double tolerance, char **names,
			 int64_t *counts, int max)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db->sql,
			       "SELECT func, calls FROM func_summary WHERE calls BETWEEN ?1 AND ?2"
			       " ORDER BY abs(calls - ?3), func LIMIT ?4",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)(calls * (1 - tolerance)));
	sqlite3_bind_int64(st, 2, (int64_t)(calls * (1 + tolerance) + 0.5));
	sqlite3_bind_int64(st, 3, (int64_t)calls);
	sqlite3_bind_int(st, 4, max);
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		names[n] = strdup(rdb_text(st, 0));
		counts[n] = sqlite3_column_int64(st, 1);
		if (names[n])
			n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* darc_bucket(V, R): the bucket of V ns at resolution R, as the analysis counts it (hist.h). */
static void bucket_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_int(ctx, hist_bucket((uint64_t)sqlite3_value_int64(argv[0]),
					    sqlite3_value_int(argv[1])));
}

/*
 * The histograms at resolution ?1 of every fnode (incl_ns, then excl_ns, of
 * its complete calls), then of every function (the sums of its fnodes'), as
 * darc analyze makes those at resolution 1.
 */
static const char *const hist_make_sql[] = {
    "INSERT INTO hist SELECT 1, b.fnode_id, 0, ?1, darc_bucket(b.incl_ns, ?1), count(*)"
    " FROM call_base b WHERE b.incl_ns IS NOT NULL AND NOT EXISTS (SELECT 1 FROM call_extra x"
    " WHERE x.id = b.id AND x.flags & 3) GROUP BY 2, 5",
    "INSERT INTO hist SELECT 1, b.fnode_id, 1, ?1, darc_bucket(b.incl_ns - b.children_ns"
    " - coalesce(x.irq_ns + x.softirq_ns + x.preempt_ns + x.blocked_ns, 0), ?1), count(*)"
    " FROM call_base b LEFT JOIN call_extra x ON x.id = b.id"
    " WHERE b.incl_ns IS NOT NULL AND coalesce(x.flags, 0) & 3 = 0 GROUP BY 2, 5",
    "INSERT INTO hist SELECT 0, n.func_id, h.metric, ?1, h.bucket, sum(h.count) FROM hist h"
    " JOIN fnode n ON n.id = h.owner_id WHERE h.owner_kind = 1 AND h.resolution = ?1"
    " GROUP BY 2, 3, 5",
};

static int put_hist_resolution(sqlite3 *w, void *ctx)
{
	int resolution = *(const int *)ctx;

	if (sqlite3_create_function(w, "darc_bucket", 2,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
				    bucket_fn, NULL, NULL) != SQLITE_OK)
		return -1;
	for (size_t i = 0; i < sizeof(hist_make_sql) / sizeof(*hist_make_sql); i++) {
		sqlite3_stmt *st;
		int rc;

		if (sqlite3_prepare_v2(w, hist_make_sql[i], -1, &st, NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_int(st, 1, resolution);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	return 0;
}

int rdb_hist_resolution(struct rdb *db, int resolution, struct err_msg *err)
{
	char q[80];

	snprintf(q, sizeof(q), "SELECT EXISTS (SELECT 1 FROM hist WHERE resolution = %d)",
		 resolution);
	if (resolution < 2 || resolution > 4 || query_int(db->sql, q, 0))
		return 0;
	if (query_int(db->sql, "SELECT max(id) FROM call_base", 0) > 500000) /* a while */
		fprintf(stderr, "darc: making the histograms at resolution %d of '%s' (once)\n",
			resolution, db->path);
	return rdb_store(db, "histograms", put_hist_resolution, &resolution, err);
}

int rdb_profile_load_hist(struct rdb *db, const struct call_selection *sel, struct profile *p,
			  struct rdb_profile_info *info, struct err_msg *err)
{
	static const char q[] =
	    "SELECT h.bucket, sum(h.count) FROM hist h WHERE h.metric = ?2 AND h.resolution = ?3"
	    " AND ((?4 = 0 AND h.owner_kind = 0 AND h.owner_id IN (SELECT id FROM func WHERE name = ?1))"
	    " OR (?4 = 1 AND h.owner_kind = 1 AND h.owner_id = ?1)"
	    " OR (?4 = 2 AND h.owner_kind = 1 AND h.owner_id IN (SELECT id FROM fnode_path WHERE"
	    " path = ?1))) GROUP BY h.bucket";
	char *path = sel->path ? norm_path(sel->path) : NULL;
	sqlite3_stmt *st = NULL;
	int lo, hi, rc = -1;

	memset(p, 0, sizeof(*p));
	if (sel->task || sel->comm || sel->t_lo != INT64_MIN || sel->t_hi != INT64_MAX ||
	    (sel->scale > 0 && sel->scale != 1) || sel->metric > RM_EXCL)
		return rdb_profile_load(db, sel, p, info, err);
	memset(info, 0, sizeof(*info));
	if (rdb_hist_resolution(db, sel->resolution, err))
		goto out;
	if (!(info->what = sel_what(db, sel, path, err)) || profile_alloc(p, sel->resolution) ||
	    sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK) {
		if (info->what)
			err_setf(err, db->path, "cannot read the histogram");
		goto out;
	}
	if (sel->fnode)
		sqlite3_bind_int64(st, 1, sel->fnode);
	else
		sqlite3_bind_text(st, 1, sel->func ? sel->func : path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, sel->metric);
	sqlite3_bind_int(st, 3, sel->resolution);
	sqlite3_bind_int(st, 4, sel->func ? 0 : sel->fnode ? 1 : 2);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int b = sqlite3_column_int(st, 0);
		if (b >= 0 && b < NBUCKETS) {
			p->count[b] += sqlite3_column_int64(st, 1);
			info->calls += sqlite3_column_int64(st, 1);
		}
	}
	free(p->lat_ns); /* counts only: midpoints stand for the latency */
	free(p->max_ns);
	p->lat_ns = NULL;
	p->max_ns = NULL;
	info->t0 = rdb_t_first(db);
	profile_extent(p, &lo, &hi);
	profile_cut(p, lo, hi - lo + 1);
	rc = 0;
out:
	sqlite3_finalize(st);
	free(path);
	if (rc)
		rdb_profile_release(p);
	return rc;
}

/*
 * Is there an index of the calls by fnode (call_fnode_incl, made by a darc
 * of schema 14 before this one, or by the user; call_fnode, --indexes)?
 * None is made: making call_fnode_incl cost 2.5 times an analysis of 3.7 M
 * calls, a scan of the calls for a function's peak a seventh of one (so a
 * replay's first run stays within the analysis's time, issue [22]).
 */
bool rdb_func_indexed(struct rdb *db)
{
	static const char have[] = "SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
				   " AND name IN ('call_fnode_incl', 'call_fnode')";

	return query_int(db->sql, have, 0) > 0;
}

void rdb_make_indexes(struct rdb *db, const char *const *names, int n)
{
	sqlite3 *failed, *w = writer(db, &failed);
	int rc;

	sqlite3_close(failed);
	/* one transaction: one sync of the file for all of them */
	if (!w || sqlite3_exec(w, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return;
	rc = SQLITE_OK;
	for (int i = 0; rc == SQLITE_OK && i < n; i++) {
		const char *ddl = trust_lazy_index_sql(names[i]);
		if (ddl)
			rc = sqlite3_exec(w, ddl, NULL, NULL, NULL);
	}
	sqlite3_exec(w, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
}

/*
 * Insert into @table(id, last_id, task_id[, incl_ns]) the complete calls of
 * @sel whose value lies in [@lo, @hi): a scan of the calls (by an index of
 * a function's calls where there is one). How many, or -1 with @err set.
 */
static int64_t select_into(struct rdb *db, const char *table, bool with_incl,
			   const struct call_selection *sel, int64_t lo, int64_t hi,
			   struct err_msg *err)
{
	static const char *const col[RM_METRICS] = {"incl_ns",	  "excl_ns",	"irq_ns",
						    "softirq_ns", "preempt_ns", "blocked_ns"};
	char *path = sel->path ? norm_path(sel->path) : NULL;
	const char *cols = with_incl ? "c.id, c.last_id, c.task_id, c.incl_ns"
				     : "c.id, c.last_id, c.task_id";
	char where[512], q[1200];
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	where_sql(sel, where, sizeof(where));
	if (sel->metric == RM_INCL && sel->func && rdb_func_indexed(db))
		/* the function's calls in the range by the index, then their rows in order of
		   id: straight from the index they are in order of latency, a page read a row */
		snprintf(q, sizeof(q),
			 "INSERT INTO %s SELECT %s FROM call_base c"
			 " WHERE c.id IN (SELECT id FROM call_base WHERE fnode_id IN (" FUNC_FNODES
			 ") AND incl_ns >= ?6 AND incl_ns < ?7) AND %s AND NOT"
			 " EXISTS (SELECT 1 FROM call_extra e WHERE e.id = c.id AND e.flags & 3)",
			 table, cols, where);
	else if (sel->metric == RM_INCL) /* call_base alone: one plain scan (no call_extra join) */
		snprintf(q, sizeof(q),
			 "INSERT INTO %s SELECT %s FROM call_base c WHERE %s"
			 " AND c.incl_ns >= ?6 AND c.incl_ns < ?7 AND NOT EXISTS (SELECT 1 FROM"
			 " call_extra e WHERE e.id = c.id AND e.flags & 3)",
			 table, cols, where);
	else
		snprintf(q, sizeof(q),
			 "INSERT INTO %s SELECT %s FROM call c WHERE %s"
			 " AND c.incl_ns IS NOT NULL AND c.flags & 3 = 0 AND c.%s >= ?6 AND c.%s < ?7",
			 table, cols, where, col[sel->metric], col[sel->metric]);
	db->pre.scans++;
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK ||
	    bind_sel(st, sel, path, rdb_t_first(db)) || sqlite3_bind_int64(st, 6, lo) ||
	    sqlite3_bind_int64(st, 7, hi) || sqlite3_step(st) != SQLITE_DONE)
		err_setf(err, db->path, "cannot select the calls: %s", rdb_why(db->sql));
	else
		n = sqlite3_changes(db->sql);
	sqlite3_finalize(st);
	free(path);
	return n;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether @a and @b select the same calls, by the same value. */
static bool same_sel(const struct call_selection *a, const struct call_selection *b)
{
	return same_str(a->func, b->func) && a->fnode == b->fnode && same_str(a->path, b->path) &&
	       a->metric == b->metric && a->task == b->task && same_str(a->comm, b->comm) &&
	       a->t_lo == b->t_lo && a->t_hi == b->t_hi;
}

/*
 * Into sr_root, the calls kept by rdb_profile_load_keep() whose incl_ns lies
 * in [@lo, @hi), each by its id: no scan of the calls. How many, or -1.
 */
static int64_t select_kept(struct rdb *db, const struct kept *kp, int64_t lo, int64_t hi,
			   struct err_msg *err)
{
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	int rc = SQLITE_OK;

	/* one transaction, not one a row (each takes the file's lock and checks its header) */
	if (sqlite3_exec(db->sql, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->sql,
			       "INSERT INTO sr_root SELECT id, last_id, task_id FROM call_base"
			       " WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	for (int64_t i = 0; rc == SQLITE_OK && i < kp->n; i++) {
		if (!kept_in(&kp->v[i], lo, hi))
			continue;
		sqlite3_bind_int64(st, 1, kp->v[i].id);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = SQLITE_ERROR;
		else
			n += sqlite3_changes(db->sql);
		if (sqlite3_reset(st) != SQLITE_OK)
			rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_OK && sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	if (rc != SQLITE_OK)
		err_setf(err, db->path, "cannot select the calls: %s", rdb_why(db->sql));
	sqlite3_finalize(st);
	if (rc != SQLITE_OK && !sqlite3_get_autocommit(db->sql))
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	return rc == SQLITE_OK ? n : -1;
}

/* Table sr_root made, or emptied. 0, or -1 with @err. */
static int empty_root(struct rdb *db, struct err_msg *err)
{
	if (sqlite3_exec(db->sql,
			 "CREATE TEMP TABLE IF NOT EXISTS sr_root(id INTEGER PRIMARY KEY, last_id,"
			 " task_id);" /* the range of a call's subtree, for the search */
			 "DELETE FROM sr_root",
			 NULL, NULL, NULL) != SQLITE_OK)
		return err_setf(err, db->path, "cannot select the calls: %s", rdb_why(db->sql));
	return 0;
}

/* sr_root's rows no longer known (root_keep()). */
static void root_forget(struct rdb *db)
{
	if (db->root.valid) {
		free((char *)db->root.sel.func);
		free((char *)db->root.sel.path);
		free((char *)db->root.sel.comm);
	}
	memset(&db->root, 0, sizeof(db->root));
}

/* sr_root holds the @n calls of @sel in [@lo, @hi) (kept only if its strings can be copied). */
static void root_keep(struct rdb *db, const struct call_selection *sel, int64_t lo, int64_t hi,
		      int64_t n)
{
	struct call_selection *c = &db->root.sel;

	root_forget(db);
	*c = *sel;
	c->func = sel->func ? strdup(sel->func) : NULL;
	c->path = sel->path ? strdup(sel->path) : NULL;
	c->comm = sel->comm ? strdup(sel->comm) : NULL;
	db->root.lo = lo;
	db->root.hi = hi;
	db->root.n = n;
	db->root.valid = true;
	if ((sel->func && !c->func) || (sel->path && !c->path) || (sel->comm && !c->comm))
		root_forget(db);
}

static int64_t select_calls(struct rdb *db, const struct call_selection *sel, int64_t lo,
			    int64_t hi, struct err_msg *err);

/*
 * Into sr_root, as select_calls() makes it; nothing done when it holds
 * those calls already (explain prices the tracer's share of the calls its
 * search just took: 33 000 of them looked up again on the 600 copies).
 */
int64_t rdb_select_calls(struct rdb *db, const struct call_selection *sel, int64_t lo, int64_t hi,
			 struct err_msg *err)
{
	int64_t n;

	if (db->root.valid && db->root.lo == lo && db->root.hi == hi &&
	    same_sel(&db->root.sel, sel))
		return db->root.n;
	root_forget(db);
	if ((n = select_calls(db, sel, lo, hi, err)) >= 0)
		root_keep(db, sel, lo, hi, n);
	return n;
}

/* sr_root made anew: the calls of @sel in [@lo, @hi). How many, or -1 with @err set. */
static int64_t select_calls(struct rdb *db, const struct call_selection *sel, int64_t lo,
			    int64_t hi, struct err_msg *err)
{
	const struct kept *kp;
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	if (empty_root(db, err))
		return -1;
	if ((kp = kept_of(db, sel)))
		return select_kept(db, kp, lo, hi, err);
	if (!db->pre.on || !same_sel(&db->pre.sel, sel) || lo < db->pre.lo || hi > db->pre.hi)
		return select_into(db, "sr_root", false, sel, lo, hi, err);
	/* from the calls preselected: no scan */
	if (sqlite3_prepare_v2(db->sql,
			       "INSERT INTO sr_root SELECT id, last_id, task_id FROM sr_pre"
			       " WHERE incl_ns >= ?1 AND incl_ns < ?2",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, lo) || sqlite3_bind_int64(st, 2, hi) ||
	    sqlite3_step(st) != SQLITE_DONE)
		err_setf(err, db->path, "cannot select the calls: %s", rdb_why(db->sql));
	else
		n = sqlite3_changes(db->sql);
	sqlite3_finalize(st);
	return n;
}

int64_t rdb_preselect_calls(struct rdb *db, const struct call_selection *sel, int64_t lo,
			    int64_t hi, struct err_msg *err)
{
	const struct kept *kp;
	int64_t n;

	if ((kp = kept_of(db, sel))) {
		/* kept already: rdb_select_calls() takes them from there */
		n = 0;
		for (int64_t i = 0; i < kp->n; i++)
			n += kept_in(&kp->v[i], lo, hi);
		return n;
	}
	rdb_preselect_end(db);
	if (sel->metric != RM_INCL)
		return 0; /* sr_pre holds incl_ns: other values are selected each time */
	if (sqlite3_exec(db->sql,
			 "CREATE TEMP TABLE IF NOT EXISTS sr_pre(id INTEGER PRIMARY KEY, last_id,"
			 " task_id, incl_ns); DELETE FROM sr_pre",
			 NULL, NULL, NULL) != SQLITE_OK)
		return err_setf(err, db->path, "cannot select the calls: %s", rdb_why(db->sql));
	n = select_into(db, "sr_pre", true, sel, lo, hi, err);
	if (n >= 0)
		db->pre = (typeof(db->pre)){true, *sel, lo, hi, db->pre.scans};
	return n;
}

void rdb_preselect_end(struct rdb *db)
{
	if (db->pre.on)
		sqlite3_exec(db->sql, "DELETE FROM sr_pre", NULL, NULL, NULL);
	db->pre.on = false;
}

int64_t rdb_select_scans(const struct rdb *db)
{
	return db->pre.scans;
}

int64_t rdb_split_scans(const struct rdb *db)
{
	return db->splits;
}

int64_t rdb_select_fnodes(struct rdb *db, const struct call_selection *sel, struct err_msg *err)
{
	static const char q[] =
	    "INSERT INTO sel_fnode(id) WITH RECURSIVE sub(id) AS ("
	    " SELECT id FROM fnode WHERE (?2 = 0 AND func_id IN (SELECT id FROM func WHERE name = ?1))"
	    " OR (?2 = 1 AND id = ?1) OR (?2 = 2 AND id IN (SELECT id FROM fnode_path WHERE path = ?1))"
	    " UNION SELECT f.id FROM fnode f JOIN sub ON f.parent_id = sub.id) SELECT id FROM sub";
	char *path = sel->path ? norm_path(sel->path) : NULL, *what = NULL;
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	if (sel->path && !path) {
		err_setf(err, db->path, "out of memory");
		goto out;
	}
	if (!(what = sel_what(db, sel, path, err)))
		goto out;
	if (sqlite3_exec(db->sql,
			 "CREATE TEMP TABLE IF NOT EXISTS sel_fnode(id INTEGER PRIMARY KEY);"
			 "DELETE FROM sel_fnode",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK) {
		err_setf(err, db->path, "cannot select the fnodes: %s", rdb_why(db->sql));
		goto out;
	}
	if (sel->fnode)
		sqlite3_bind_int64(st, 1, sel->fnode);
	else
		sqlite3_bind_text(st, 1, sel->func ? sel->func : path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, sel->func ? 0 : sel->fnode ? 1 : 2);
	if (sqlite3_step(st) != SQLITE_DONE)
		err_setf(err, db->path, "cannot select the fnodes: %s", rdb_why(db->sql));
	else
		n = sqlite3_changes(db->sql);
out:
	sqlite3_finalize(st);
	free(what);
	free(path);
	return n;
}
