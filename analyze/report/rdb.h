/* SPDX-License-Identifier: MIT */
/*
 * rdb: a darc database opened for reading by the report commands, and the
 * questions they all ask of it: which calls a selection means (a function,
 * an fnode or a call path, a task, a time range), and their latency profile.
 */
#ifndef DARC_RDB_H
#define DARC_RDB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "err-msg.h"
#include "file.h"
#include "hist.h"
#include "profile.h"

struct rdb;

/*
 * Open the darc database at @path read-only. NULL, with @err naming the file
 * and the problem, when it is not an SQLite file, not a darc database, or
 * one of another schema version. Release with rdb_close().
 */
struct rdb *rdb_open(const char *path, struct err_msg *err);

/* Close it. Accepts NULL. */
void rdb_close(struct rdb *db);

/* The SQLite handle and the path, owned by @db. */
sqlite3 *rdb_sql(const struct rdb *db);
const char *rdb_path(const struct rdb *db);

/* The first column of @sql's first row, as an integer (a count); 0 if it has none or fails. */
int64_t rdb_count(struct rdb *db, const char *sql);

/*
 * What a report reads of the database once, whatever it selects (a table
 * of every fnode's kind, say), kept with @db for the next selection: the
 * value kept under @key (a string that outlives @db), or NULL.
 */
void *rdb_memo(const struct rdb *db, const char *key);

/*
 * Keep @p under @key until rdb_close(), which calls @release(@p). 0, or -1
 * (the key taken, or RDB_MEMOS kept already): @p is then still the caller's.
 */
#define RDB_MEMOS 4
int rdb_memo_keep(struct rdb *db, const char *key, void *p, void (*release)(void *p));

/*
 * The value kept under @key, or a new one of @size bytes, zeroed, kept
 * there with @release (which frees it, as free() would); NULL when none is
 * kept and none can be.
 */
void *rdb_memo_zeroed(struct rdb *db, const char *key, size_t size, void (*release)(void *p));

/*
 * Which search the temp table sr_sub (search-db.c) holds the calls of: a
 * number that rdb_search_new() changes each time it is made anew, for what
 * is kept of one search's details (rdb_memo()) to be known stale.
 */
int64_t rdb_search_gen(const struct rdb *db);
void rdb_search_new(struct rdb *db);

/* The recording's source path as stored, or "" (owned by @db). */
const char *rdb_source(struct rdb *db);

/* The per-call quantity a profile counts. */
enum rmetric {
	RM_INCL,
	RM_EXCL,
	RM_IRQ,
	RM_SOFTIRQ,
	RM_PREEMPT,
	RM_BLOCKED,
	RM_METRICS
};
const char *rdb_metric_name(int m);  /* "incl", ... */
int rdb_metric_of(const char *name); /* -1 if unknown */

/* Which calls: one of func, fnode, path; optionally a task and a time range. */
struct call_selection {
	const char *func;  /* a function's name */
	int64_t fnode;	   /* or an fnode id (0: none) */
	const char *path;  /* or a call path from a root, "a>b>c" */
	int metric;	   /* enum rmetric */
	int resolution;	   /* 1..4 */
	int64_t task;	   /* a tid, or 0 for any */
	const char *comm;  /* or a task name, or NULL */
	int64_t t_lo, t_hi; /* calls entered in [t_lo, t_hi) ns, relative to the
			       recording's first event; INT64_MIN/INT64_MAX: open */
	double scale;	   /* each value times this (cycles per ns for cycles; 1: ns) */
};
#define RSEL_INIT {NULL, 0, NULL, RM_INCL, 1, 0, NULL, INT64_MIN, INT64_MAX, 1.0}

/* What a profile was made of, for titles and checks. */
struct rdb_profile_info {
	char *what;	  /* "vfs_read", "fnode 12 (read > vfs_read)", ...: owned, free() */
	uint64_t calls;	  /* complete calls selected */
	uint64_t skipped; /* selected calls left out: incomplete (no entry or exit) */
	int64_t max_ns, total_ns; /* in the selection's unit (ns or cycles) */
	int64_t t0;	  /* the recording's first event, ns */
	struct quant quant; /* rdb_profile_load() with calls: their exact quantiles (hist.h), in
			       the selection's unit */
};

/*
 * The profile of the calls @sel selects into @p (arrays allocated: release
 * with rdb_profile_release()) with the exact latency summed per bucket, and
 * @info. Returns 0; -1 with @err set when the selection names nothing
 * ("no function 'x' in DB") or SQLite fails.
 */
int rdb_profile_load(struct rdb *db, const struct call_selection *sel, struct profile *p,
		     struct rdb_profile_info *info, struct err_msg *err);
/*
 * rdb_profile_load(), keeping in @db the ids of the complete calls it read
 * (by incl_ns; other values keep none): rdb_select_calls() and
 * rdb_preselect_calls() of the same selection then take a peak's calls
 * from them, without a second scan of the calls, until rdb_kept_end() or
 * rdb_close(). 16 bytes a call; several selections are kept (explain's
 * subjects), up to 4 M calls in all, beyond which a selection is not.
 */
int rdb_profile_load_keep(struct rdb *db, const struct call_selection *sel, struct profile *p,
			  struct rdb_profile_info *info, struct err_msg *err);
/*
 * rdb_profile_load_keep() of the @n selections that are @sel (no function,
 * no path) but for their fnode, @fnodes[i] (each a different one), in one
 * scan of the calls: each one's profile into @p[i] and what it says into
 * @info[i]. 0, or -1 with @err set and none loaded.
 */
int rdb_profiles_load_keep(struct rdb *db, const struct call_selection *sel, const int64_t *fnodes,
			   int n, struct profile *p, struct rdb_profile_info *info,
			   struct err_msg *err);
/* Forget the calls rdb_profile_load_keep() kept (their memory). */
void rdb_kept_end(struct rdb *db);

/*
 * One profile per time window of @interval_ns from the first selected call
 * to the last: *@rows (allocated, release each and the array) and their
 * number in *@nrows; *@t0 the first window's start, ns since the
 * recording's first event. All rows share the first one's bucket range.
 */
int rdb_profile_timelapse(struct rdb *db, const struct call_selection *sel, int64_t interval_ns,
			  struct profile **rows, int *nrows, int64_t *t0, struct err_msg *err);

/*
 * Store @npk peaks of @sel's profile in table peak, found or given as
 * @params says (JSON text), replacing a former run with the same owner,
 * metric, resolution and params. Opens the database for writing for this.
 * 0, or -1 with @err set (a read-only database, say).
 */
/* Why SQLite connection @s failed, for a message: an errno's text, or SQLite's; never "not an error". */
const char *rdb_why(sqlite3 *s);

/*
 * Store results (@what, for messages: "peaks") by @fn(@w, @ctx) in one
 * transaction: in the database when it can be written, else in temporary
 * tables that shadow the stored ones for the rest of the run (a read-only
 * database: other media, another owner), said once on stderr. @fn returns 0
 * or nonzero. 0, or -1 with @err set.
 */
int rdb_store(struct rdb *db, const char *what, int (*fn)(sqlite3 *w, void *ctx), void *ctx,
	      struct err_msg *err);

int rdb_store_peaks(struct rdb *db, const struct call_selection *sel, const char *params,
		    const struct peak *pk, int npk, struct err_msg *err);

/*
 * The functions whose number of complete calls is within @tolerance (0.05:
 * 5%) of @calls, closest first: up to @max names into @names (each owned by
 * the caller: free()) and their counts into @counts. Returns how many.
 */
int rdb_funcs_with_calls(struct rdb *db, uint64_t calls, double tolerance, char **names,
			 int64_t *counts, int max);

/*
 * The profile (in ns, lat_ns and max_ns exact) of the values statement @st
 * gives in its first column, one per row; rows whose value is NULL are
 * counted in *@skipped. Release @p with rdb_profile_release(). 0, or -1 when
 * SQLite fails or memory runs out.
 */
int rdb_profile_values(sqlite3_stmt *st, int resolution, struct profile *p, uint64_t *skipped);

/*
 * rdb_profile_load() from the stored histograms (table hist) when @sel allows
 * (no task, comm or time filter, ns, incl or excl): counts only (lat_ns and
 * max_ns NULL), with no scan of the calls. Otherwise rdb_profile_load().
 */
int rdb_profile_load_hist(struct rdb *db, const struct call_selection *sel, struct profile *p,
			  struct rdb_profile_info *info, struct err_msg *err);

/*
 * Table hist holds resolution 1 of every profile; @resolution 2 to 4 are
 * made from the calls by the first command that asks (one scan, stored,
 * or kept for this run where the database is read-only), unless the
 * analysis stored them (it did when its calls were cut by --max-depth).
 * 0, or -1 with @err set.
 */
int rdb_hist_resolution(struct rdb *db, int resolution, struct err_msg *err);

/*
 * Put the ids of @sel's complete calls whose value lies in [@lo, @hi) into
 * the temporary table sr_root(id, last_id, task_id) of @db (emptied first). Returns how many,
 * or -1 with @err set.
 */
int64_t rdb_select_calls(struct rdb *db, const struct call_selection *sel, int64_t lo, int64_t hi,
			 struct err_msg *err);

/*
 * One scan for several latency ranges of one selection (explain's slow
 * parts of a subject): keep @sel's complete calls in [@lo, @hi) (incl_ns
 * only: for other values this does nothing) in the temporary table sr_pre,
 * from which rdb_select_calls() then takes any range of @sel inside [@lo,
 * @hi) without reading the calls again, until rdb_preselect_end(). How many,
 * or -1 with @err set.
 */
int64_t rdb_preselect_calls(struct rdb *db, const struct call_selection *sel, int64_t lo,
			    int64_t hi, struct err_msg *err);
void rdb_preselect_end(struct rdb *db);
/* How many times the calls were read for a selection (tests). */
int64_t rdb_select_scans(const struct rdb *db);
/*
 * A profile's calls (rdb_profile_load(), rdb_profiles_load_keep()) are read
 * on two connections at once, half the ids each, in a recording of this
 * many calls or more (tests lower it); how many profiles were (tests).
 */
extern int64_t rdb_split_min;
int64_t rdb_split_scans(const struct rdb *db);

/* The recording's first event, ns (0 if unknown): where --time LO-HI counts from. */
int64_t rdb_t_first(struct rdb *db);

/*
 * Column @i of the row at @st as text: "" where it is NULL. A database is
 * untrusted input (trust.h): a name that darc's schema says is never NULL may
 * be NULL in a file made by hand, and must not reach strdup() or printf().
 */
const char *rdb_text(sqlite3_stmt *st, int i);

/*
 * Was @db made from the recording whose identity is @id (size, mtime and
 * hash, as table recording keeps them)? False when it says nothing.
 */
bool rdb_made_from(struct rdb *db, const struct fmt_file_identity *id);

/*
 * Whether the calls have an index by fnode (one range of it a function's
 * peak): without one, a selection of calls by function reads them all.
 */
bool rdb_func_indexed(struct rdb *db);

/*
 * Register on @sql the aggregate SQL function @name(@nargs arguments) that
 * hands each row to @row(@ctx) inside SQLite's scan, the cheapest way to
 * read millions of rows: `SELECT name(a, b) FROM t WHERE ...`, stepped once
 * (it yields one NULL). SQLITE_DIRECTONLY: no view or trigger of an
 * untrusted database can call it. @row NULL removes it, as its user must
 * before @ctx goes away. An SQLite result code.
 */
int rdb_row_sink(sqlite3 *sql, const char *name, int nargs,
		 void (*row)(sqlite3_context *cx, int argc, sqlite3_value **v), void *ctx);

/*
 * Another read-only connection to @db's file, checked as rdb_open() checks
 * it (a second thread's reads), or NULL with @err set. sqlite3_close() it.
 */
sqlite3 *rdb_open_reader(struct rdb *db, struct err_msg *err);

/*
 * Make the @n indexes @names, ones that a report command makes on demand
 * (trust_lazy_index_sql()), those not there, in one transaction; a
 * database that cannot be written goes without.
 */
void rdb_make_indexes(struct rdb *db, const char *const *names, int n);

/*
 * The task and time filters of a selection as SQL, for a query whose task id
 * is column @task_col and whose time is @time_col: "(?2 = 0 OR ...)" over
 * parameters ?2 (task), ?3 (comm), ?4 and ?5 (time range, ns), which
 * rdb_bind_filters() binds from @sel (@t0: rdb_t_first()). 0 or an SQLite error.
 */
void rdb_filter_sql(const char *task_col, const char *time_col, char *buf, size_t n);
int rdb_bind_filters(sqlite3_stmt *st, const struct call_selection *sel, int64_t t0);

/*
 * The fnodes of @sel's function, fnode or call path and every fnode below
 * them (their subtrees, each once), into the temporary table sel_fnode(id)
 * of @db (emptied first). Returns how many, or -1 with @err set (as
 * rdb_profile_load(): "no function 'x'" when the selection names nothing).
 */
int64_t rdb_select_fnodes(struct rdb *db, const struct call_selection *sel, struct err_msg *err);

/* Free what rdb_profile_load() allocated in @p; @p is empty again. */
void rdb_profile_release(struct profile *p);

#endif
