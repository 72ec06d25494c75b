// SPDX-License-Identifier: MIT
/*
 * --along DB: record again, tracing only where the analysis in DB looked.
 * DARC kept its probes' cost down by instrumenting only the functions on
 * the root-cause path found so far, one level deeper each run; this is the
 * same for function_graph: the entry points of DB's searches (darc paths)
 * and explanations (darc explain) become the graph roots, and the function
 * filter (set_ftrace_filter) holds the functions on the paths those found,
 * from the entry point down, and the functions they call directly (the next
 * level to look at). function_graph then traces those alone; the rest of
 * the kernel runs unpatched.
 *
 * The entry points' latency profiles in DB go into the manifest, so that
 * the analysis of the new recording can tell whether the workload is still
 * the one DB saw (as DARC's resume compared its profiles across runs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>
#include <tracefs.h>

#include "read.h"
#include "rec.h"
#include "rows.h"

/* A function name kept (once) in @v of @n; -1 when out of memory. */
static int add_name(char ***v, int *n, const char *name)
{
	char **p;

	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p || !(p[*n] = strdup(name)))
		return -1;
	*v = p;
	(*n)++;
	return 0;
}

/* What along_read works with. */
struct walk {
	sqlite3 *sql;
	sqlite3_stmt *node;    /* an fnode's parent, function name and kind */
	sqlite3_stmt *callees; /* an fnode's children that are kernel functions */
	char **path;	       /* the functions on the paths (kernel ones) */
	int npath;
	char **callee; /* the functions they call */
	int ncallee;
	char **roots;
	int nroots;
	json_t *profiles; /* the entry points' profiles */
};

/* fnode @id's parent (0 for none), function name (copied into @name) and kind. */
static int node(struct walk *w, int64_t id, int64_t *parent, char *name, size_t n, int *kind)
{
	int rc;

	sqlite3_reset(w->node);
	sqlite3_bind_int64(w->node, 1, id);
	rc = sqlite3_step(w->node);
	if (rc != SQLITE_ROW)
		return -1;
	*parent = sqlite3_column_int64(w->node, 0);
	snprintf(name, n, "%s",
		 sqlite3_column_text(w->node, 1) ? (const char *)sqlite3_column_text(w->node, 1)
						 : "");
	*kind = sqlite3_column_int(w->node, 2);
	return 0;
}

/* A kernel function's name as set_ftrace_filter takes it (not an address). */
static bool traceable_name(const char *name, int kind)
{
	return kind == FUNC_KERNEL && name[0] && strncmp(name, "0x", 2) && !strchr(name, ' ');
}

/*
 * Path node @id, under entry point fnode @entry: it and its ancestors up to
 * the entry go on the path, the topmost kernel function among them is a
 * graph root, and its direct kernel callees are added.
 */
static int walk_node(struct walk *w, int64_t id, int64_t entry)
{
	char name[512], top[512] = "";
	int64_t parent, cur = id;
	int kind, rc = 0;

	for (int guard = 0; cur > 0 && guard < 10000; guard++) {
		if (node(w, cur, &parent, name, sizeof(name), &kind))
			break;
		if (traceable_name(name, kind)) {
			rc |= add_name(&w->path, &w->npath, name);
			snprintf(top, sizeof(top), "%s", name);
		}
		if (cur == entry)
			break;
		cur = parent;
	}
	if (top[0])
		rc |= add_name(&w->roots, &w->nroots, top);
	sqlite3_reset(w->callees);
	sqlite3_bind_int64(w->callees, 1, id);
	while (sqlite3_step(w->callees) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(w->callees, 0);
		if (c && traceable_name(c, FUNC_KERNEL))
			rc |= add_name(&w->callee, &w->ncallee, c);
	}
	return rc;
}

/* The path of fnode @id from its root, "a > b > c", into @out. */
static void path_of(struct walk *w, int64_t id, char *out, size_t n)
{
	char name[512], tmp[4096];
	int64_t parent;
	int kind;

	out[0] = 0;
	for (int guard = 0; id > 0 && guard < 200 && !node(w, id, &parent, name, sizeof(name), &kind);
	     guard++, id = parent) {
		snprintf(tmp, sizeof(tmp), "%s%s%s", name, out[0] ? " > " : "", out);
		snprintf(out, n, "%s", tmp);
	}
}

/* Entry point fnode @entry's profile (incl_ns, one bucket an octave) and first cause. */
static void add_profile(struct walk *w, int64_t entry, int64_t search)
{
	sqlite3_stmt *st;
	json_t *hist = json_object();
	char path[4096], key[16];

	path_of(w, entry, path, sizeof(path));
	if (!sqlite3_prepare_v2(w->sql,
				"SELECT bucket, count FROM hist WHERE owner_kind = 1 AND "
				"owner_id = ? AND metric = 0 AND resolution = 1 ORDER BY bucket",
				-1, &st, NULL)) {
		sqlite3_bind_int64(st, 1, entry);
		while (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(key, sizeof(key), "%d", sqlite3_column_int(st, 0));
			json_object_set_new(hist, key, json_integer(sqlite3_column_int64(st, 1)));
		}
		sqlite3_finalize(st);
	}
	json_array_append_new(w->profiles, json_pack("{sssIsIso}", "path", path, "fnode",
						     (json_int_t)entry, "search",
						     (json_int_t)search, "hist", hist));
}

/* Each search: its entry point, and its winners' fnodes walked. */
static int walk_searches(struct walk *w, struct fmt_err *err)
{
	/* explain's subjects first (their entry point is the subject's fnode), then
	   any search (its f0 is node 0's fnode) */
	static const char sql[] =
	    "SELECT s.id, coalesce(e.fnode_id, (SELECT fnode_id FROM search_path p"
	    " WHERE p.search_id = s.id AND p.node = 0)), p.fnode_id FROM search s"
	    " LEFT JOIN explain_subject e ON e.search_id = s.id"
	    " JOIN search_path p ON p.search_id = s.id AND p.fnode_id IS NOT NULL"
	    " ORDER BY e.search_id IS NULL, s.id, p.node";
	sqlite3_stmt *st;
	int64_t last_entry = -1;
	int rc = 0, n = 0;

	if (sqlite3_prepare_v2(w->sql, sql, -1, &st, NULL))
		return fmt_errf(err, NULL, "cannot read its searches: %s", sqlite3_errmsg(w->sql));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t entry = sqlite3_column_int64(st, 1);
		if (entry != last_entry && sqlite3_column_type(st, 1) != SQLITE_NULL)
			add_profile(w, entry, sqlite3_column_int64(st, 0));
		last_entry = entry;
		rc = walk_node(w, sqlite3_column_int64(st, 2), entry);
		n++;
	}
	sqlite3_finalize(st);
	if (rc)
		return fmt_errf(err, NULL, "out of memory");
	if (!n)
		return fmt_errf(err, NULL, "no search or explanation in it: run 'darc explain' "
				"or 'darc paths' on it first");
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The function names of available_filter_functions (@text: "name" or "name
 * [module]" lines; cut in place), sorted into *@names. Their number, or -1.
 */
static int avail_names(char *text, char ***names)
{
	int n = 0, cap = 0;

	*names = NULL;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		l[strcspn(l, " \t")] = 0;
		if (n == cap) {
			char **p = realloc(*names, (cap = cap ? 2 * cap : 4096) * sizeof(*p));
			if (!p)
				return -1;
			*names = p;
		}
		(*names)[n++] = l;
		l = nl ? nl + 1 : NULL;
	}
	qsort(*names, n, sizeof(char *), by_name);
	return n;
}

/* Keep in @v only the names in sorted @avail; the number dropped. */
static int keep_available(char **v, int *n, char **avail, int navail)
{
	int k = 0, dropped = 0;

	for (int i = 0; i < *n; i++) {
		if (bsearch(&v[i], avail, navail, sizeof(char *), by_name)) {
			v[k++] = v[i];
		} else {
			free(v[i]);
			dropped++;
		}
	}
	*n = k;
	return dropped;
}

/* Leave out what this kernel cannot trace; its tracefs unreadable: keep all. */
static void check_available(struct walk *w, struct rec_along *a)
{
	char *text = tracefs_instance_file_read(NULL, "available_filter_functions", NULL);
	char **avail;
	int n = text ? avail_names(text, &avail) : -1;

	if (n > 0) {
		a->nskipped = keep_available(w->path, &w->npath, avail, n) +
			      keep_available(w->callee, &w->ncallee, avail, n);
		keep_available(w->roots, &w->nroots, avail, n);
	}
	if (n >= 0)
		free(avail);
	free(text);
}

/* The paths' functions, then their callees not on a path, into @a. */
static int collect(struct walk *w, struct rec_along *a)
{
	int rc = 0;

	for (int i = 0; i < w->npath; i++)
		rc |= add_name(&a->funcs, &a->nfuncs, w->path[i]);
	a->npath = a->nfuncs;
	for (int i = 0; i < w->ncallee; i++)
		rc |= add_name(&a->funcs, &a->nfuncs, w->callee[i]);
	a->roots = w->roots;
	a->nroots = w->nroots;
	w->roots = NULL;
	w->nroots = 0;
	a->profile_json = json_dumps(w->profiles, JSON_COMPACT);
	return rc || !a->profile_json ? -1 : 0;
}

static void free_names(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int prepare(struct walk *w, struct fmt_err *err)
{
	if (sqlite3_prepare_v2(w->sql,
			       "SELECT coalesce(n.parent_id, 0), f.name, f.kind FROM fnode n"
			       " JOIN func f ON f.id = n.func_id WHERE n.id = ?",
			       -1, &w->node, NULL) ||
	    sqlite3_prepare_v2(w->sql,
			       "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id"
			       " WHERE n.parent_id = ? AND f.kind = 0 ORDER BY n.id",
			       -1, &w->callees, NULL))
		return fmt_errf(err, NULL, "cannot read its call tree: %s", sqlite3_errmsg(w->sql));
	return 0;
}

int along_read(const char *path, struct rec_along *a, struct fmt_err *err)
{
	struct fmt_err e = {""};
	struct rdb *db = rdb_open(path, &e);
	struct walk w = {.profiles = json_array()};
	int rc = -1;

	memset(a, 0, sizeof(*a));
	if (!db) {
		fmt_errf(err, NULL, "--along: %s", e.msg);
		json_decref(w.profiles);
		return -1;
	}
	w.sql = rdb_sql(db);
	a->db = strdup(path);
	a->source = strdup(rdb_source(db));
	if (prepare(&w, &e) || walk_searches(&w, &e))
		fmt_errf(err, path, "--along: %s", e.msg);
	else if (check_available(&w, a), !w.nroots)
		fmt_errf(err, path, "--along: its paths hold no kernel function %s: record "
			 "DB's recording with function_graph (-g) first",
			 a->nskipped ? "this kernel can trace" : "");
	else if (collect(&w, a))
		fmt_errf(err, NULL, "out of memory");
	else
		rc = 0;
	sqlite3_finalize(w.node);
	sqlite3_finalize(w.callees);
	free_names(w.path, w.npath);
	free_names(w.callee, w.ncallee);
	free_names(w.roots, w.nroots);
	json_decref(w.profiles);
	rdb_close(db);
	return rc;
}

int along_apply(struct rec_opts *o, const struct rec_along *a)
{
	char **g = realloc(o->graph_roots, (o->ngraph + a->nroots) * sizeof(char *));
	char **f = g ? realloc(o->ftrace_filter,
			       (o->nftrace_filter + a->nfuncs) * sizeof(char *))
		     : NULL;

	if (g)
		o->graph_roots = g;
	if (f)
		o->ftrace_filter = f;
	if (!g || !f)
		return -1;
	for (int i = 0; i < a->nroots; i++)
		o->graph_roots[o->ngraph++] = strdup(a->roots[i]);
	for (int i = 0; i < a->nfuncs; i++)
		o->ftrace_filter[o->nftrace_filter++] = strdup(a->funcs[i]);
	return 0;
}

void along_free(struct rec_along *a)
{
	free(a->db);
	free(a->source);
	free_names(a->roots, a->nroots);
	free_names(a->funcs, a->nfuncs);
	free(a->profile_json);
	memset(a, 0, sizeof(*a));
}
