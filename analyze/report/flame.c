// SPDX-License-Identifier: MIT
#include "flame.h"
#include "jtext.h"

#include <stdlib.h>


/* One fnode's calls in the search, summed. */
struct fsum {
	int64_t fnode;
	int64_t v;     /* their values summed */
	int64_t calls;
	json_t *node;  /* its frame, once made */
};

static int by_fnode(const void *a, const void *b)
{
	const struct fsum *x = a, *y = b;

	return (x->fnode > y->fnode) - (x->fnode < y->fnode);
}

/* Heaviest first; of equal weight the caller (the lower fnode id) first. */
static int by_weight(const void *a, const void *b)
{
	const struct fsum *x = a, *y = b;

	if (x->v != y->v)
		return (x->v < y->v) - (x->v > y->v);
	return by_fnode(a, b);
}

/* The calls of @t summed by fnode into *@out (sorted by fnode): how many, or -1. */
static int sum_by_fnode(const struct search_tree *t, struct fsum **out)
{
	struct fsum *s = malloc((t->ncalls + 1) * sizeof(*s));
	int n = 0;

	*out = s;
	if (!s)
		return -1;
	for (int i = 0; i < t->ncalls; i++)
		s[i] = (struct fsum){t->calls[i].fnode, t->calls[i].value, 1, NULL};
	qsort(s, t->ncalls, sizeof(*s), by_fnode);
	for (int i = 0; i < t->ncalls; i++) {
		if (n && s[n - 1].fnode == s[i].fnode) {
			s[n - 1].v += s[i].v;
			s[n - 1].calls++;
		} else {
			s[n++] = s[i];
		}
	}
	return n;
}

/* The frame of kept fnode @x, hung under its parent's frame when that is kept (else a root). */
static void hang(sqlite3_stmt *st, struct fsum *kept, int nkept, struct fsum *x, json_t *roots)
{
	struct fsum key = {0}, *parent = NULL;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, x->fnode);
	if (sqlite3_step(st) == SQLITE_ROW) {
		key.fnode = sqlite3_column_int64(st, 0);
		parent = bsearch(&key, kept, nkept, sizeof(*kept), by_fnode);
	}
	x->node = json_pack("{so sI sI s[]}", "n",
			    jtext(sqlite3_column_type(st, 1) == SQLITE_NULL ? "?" : rdb_text(st, 1)),
			    "v", (json_int_t)x->v, "c", (json_int_t)x->calls, "k");
	if (parent && parent != x && parent->node)
		json_array_append_new(json_object_get(parent->node, "k"), x->node);
	else
		json_array_append_new(roots, x->node);
}

json_t *flame_json(struct rdb *db, const struct search_tree *t)
{
	struct fsum *s;
	int n = sum_by_fnode(t, &s), keep = 0;
	int64_t total = 0;
	sqlite3_stmt *st = NULL;
	json_t *roots = json_array(), *out = NULL;

	for (int r = 0; r < t->nroots; r++)
		total += t->calls[t->roots[r]].value;
	if (n < 0 || !roots ||
	    sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT fn.parent_id, f.name FROM fnode fn JOIN func f"
			       " ON f.id = fn.func_id WHERE fn.id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	qsort(s, n, sizeof(*s), by_weight);
	while (keep < n && keep < FLAME_MAX && (keep == 0 || s[keep].v >= FLAME_MIN * total))
		keep++;
	qsort(s, keep, sizeof(*s), by_fnode);
	for (int i = 0; i < keep; i++) /* in fnode order: a parent's id is below its child's */
		hang(st, s, keep, &s[i], roots);
	out = json_pack("{sI si sO}", "total", (json_int_t)total, "calls", t->nroots, "tree", roots);
out:
	sqlite3_finalize(st);
	json_decref(roots);
	free(s);
	return out;
}
