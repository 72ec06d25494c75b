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

#include "along.h"
#include "rdb.h"
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
	sqlite3_stmt *node;    /* an fnode's parent and function name */
	sqlite3_stmt *callees; /* an fnode's children that are kernel functions */
	char **path;	       /* the functions on the paths (kernel ones) */
	int npath;
	char **callee; /* the functions they call */
	int ncallee;
	char **roots;
	int nroots;
	json_t *profiles; /* the entry points' profiles */
	int elsewhere;	  /* callees left out: they run mostly elsewhere */
};

/* A kernel function's name as set_ftrace_filter takes it (not an address). */
static bool traceable_name(const char *name)
{
	return name[0] && strncmp(name, "0x", 2) && !strchr(name, ' ');
}

/* The path of fnode @id from its root, "a > b > c" (view fnode_path's form), into @out. */
static void path_of(struct walk *w, int64_t id, char *out, size_t n)
{
	char tmp[4096];

	out[0] = 0;
	for (int guard = 0; id > 0 && guard < 200; guard++) {
		sqlite3_reset(w->node);
		sqlite3_bind_int64(w->node, 1, id);
		if (sqlite3_step(w->node) != SQLITE_ROW)
			break;
		snprintf(tmp, sizeof(tmp), "%s%s%s", rdb_text(w->node, 1), out[0] ? " > " : "", out);
		snprintf(out, n, "%s", tmp);
		id = sqlite3_column_int64(w->node, 0);
	}
}

/* Entry point fnode @entry's profile (incl_ns, one bucket an octave), for along_check. */
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

/*
 * The kernel functions fnode @id calls (the next level to look at), not the
 * tracer's own, and not those that run mostly elsewhere (fewer than half
 * their calls under @id: a lock or RCU helper, whose filter entry would
 * record its calls everywhere under the roots); those are counted.
 */
static int add_callees(struct walk *w, int64_t id)
{
	int rc = 0;

	sqlite3_reset(w->callees);
	sqlite3_bind_int64(w->callees, 1, id);
	while (!rc && sqlite3_step(w->callees) == SQLITE_ROW) {
		if (!traceable_name(rdb_text(w->callees, 0)))
			continue;
		if (sqlite3_column_int64(w->callees, 1) * 2 < sqlite3_column_int64(w->callees, 2))
			w->elsewhere++;
		else
			rc = add_name(&w->callee, &w->ncallee, rdb_text(w->callees, 0));
	}
	return rc;
}

/*
 * Every search's path nodes: each one's kernel function on the path, the
 * outermost ones (no kernel function above them in the search) graph roots,
 * and the callees of the deepest (no fnode below them in the search). A
 * search's node 0 is its entry point, whose profile is kept.
 */
static const char nodes_sql[] =
    "SELECT p.search_id, p.node, p.parent, p.fnode_id, f.name, f.kind = 0 AND NOT f.overhead,"
    " EXISTS (SELECT 1 FROM search_path q WHERE q.search_id = p.search_id"
    "  AND q.parent = p.node AND q.fnode_id IS NOT NULL AND q.kind = 'fnode')"
    " FROM search_path p JOIN fnode n ON n.id = p.fnode_id JOIN func f ON f.id = n.func_id"
    " WHERE p.kind = 'fnode' ORDER BY p.search_id, p.node";

/* Nodes of the current search under a kernel function already (by node number). */
struct covered {
	int64_t search;
	bool *under;
	int n;
};

/* Mark node @node (parent @parent) of search @search; whether a kernel function is above it. */
static int cover(struct covered *c, int64_t search, int node, int parent, bool kernel, bool *above)
{
	if (search != c->search) {
		memset(c->under, 0, c->n * sizeof(bool));
		c->search = search;
	}
	if (node < 0 || node > 100000)
		return 0;
	if (node >= c->n) {
		bool *p = realloc(c->under, (node + 64) * sizeof(bool));
		if (!p)
			return -1;
		memset(p + c->n, 0, (node + 64 - c->n) * sizeof(bool));
		c->under = p;
		c->n = node + 64;
	}
	*above = parent >= 0 && parent < c->n && c->under[parent];
	c->under[node] = *above || kernel;
	return 0;
}

/* One path node (a row of nodes_sql) into @w. */
static int walk_row(struct walk *w, sqlite3_stmt *st, struct covered *c)
{
	int64_t search = sqlite3_column_int64(st, 0), fnode = sqlite3_column_int64(st, 3);
	int node = sqlite3_column_int(st, 1);
	int parent = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
	const char *name = rdb_text(st, 4);
	bool kernel = sqlite3_column_int(st, 5) && traceable_name(name), above = false;
	int rc = cover(c, search, node, parent, kernel, &above);

	if (node == 0)
		add_profile(w, fnode, search);
	if (!rc && kernel)
		rc = add_name(&w->path, &w->npath, name);
	if (!rc && kernel && !above)
		rc = add_name(&w->roots, &w->nroots, name);
	if (!rc && !sqlite3_column_int(st, 6))
		rc = add_callees(w, fnode);
	return rc;
}

/* The functions explain's causes name beyond the search (a runner-up followed down). */
static int walk_causes(struct walk *w)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(w->sql,
			       "SELECT DISTINCT j.value FROM explain_cause c, json_each(c.path) j"
			       " WHERE json_valid(c.path) AND EXISTS (SELECT 1 FROM func f WHERE"
			       " f.name = j.value AND f.kind = 0 AND NOT f.overhead)",
			       -1, &st, NULL))
		return 0; /* an older database: the searches alone */
	while (!rc && sqlite3_step(st) == SQLITE_ROW)
		if (traceable_name(rdb_text(st, 0)))
			rc = add_name(&w->path, &w->npath, rdb_text(st, 0));
	sqlite3_finalize(st);
	return rc;
}

/* Each search's path nodes walked, and explain's causes. */
static int walk_searches(struct walk *w, struct err_msg *err)
{
	struct covered c = {.search = -1};
	sqlite3_stmt *st;
	int rc = 0, n = 0;

	if (sqlite3_prepare_v2(w->sql, nodes_sql, -1, &st, NULL))
		return err_setf(err, NULL, "cannot read its searches: %s", rdb_why(w->sql));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		rc = walk_row(w, st, &c);
		n++;
	}
	sqlite3_finalize(st);
	free(c.under);
	if (!rc)
		rc = walk_causes(w);
	if (rc)
		return err_setf(err, NULL, "out of memory");
	if (!n)
		return err_setf(err, NULL, "no search or explanation in it: run 'darc explain' "
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
	a->elsewhere = w->elsewhere;
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

static int prepare(struct walk *w, struct err_msg *err)
{
	if (sqlite3_prepare_v2(w->sql,
			       "SELECT coalesce(n.parent_id, 0), f.name FROM fnode n"
			       " JOIN func f ON f.id = n.func_id WHERE n.id = ?",
			       -1, &w->node, NULL) ||
	    sqlite3_prepare_v2(w->sql,
			       "SELECT f.name, n.calls, (SELECT sum(m.calls) FROM fnode m"
			       " WHERE m.func_id = f.id) FROM fnode n JOIN func f ON f.id = n.func_id"
			       " WHERE n.parent_id = ? AND f.kind = 0 AND NOT f.overhead ORDER BY n.id",
			       -1, &w->callees, NULL))
		return err_setf(err, NULL, "cannot read its call tree: %s", sqlite3_errmsg(w->sql));
	return 0;
}

int along_read(const char *path, struct rec_along *a, struct err_msg *err)
{
	struct err_msg e = {""};
	struct rdb *db = rdb_open(path, &e);
	struct walk w = {.profiles = json_array()};
	int rc = -1;

	memset(a, 0, sizeof(*a));
	if (!db) {
		err_setf(err, NULL, "--along: %s", e.msg);
		json_decref(w.profiles);
		return -1;
	}
	w.sql = rdb_sql(db);
	a->db = strdup(path);
	a->source = strdup(rdb_source(db));
	if (prepare(&w, &e) || walk_searches(&w, &e))
		err_setf(err, path, "--along: %s", e.msg);
	else if (check_available(&w, a), !w.nroots)
		err_setf(err, path, "--along: its paths hold no kernel function%s: record "
			 "DB's recording with function_graph (-g) first",
			 a->nskipped ? " this kernel can trace" : "");
	else if (collect(&w, a))
		err_setf(err, NULL, "out of memory");
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
