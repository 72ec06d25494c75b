// SPDX-License-Identifier: MIT
/*
 * darc diff: the profiles of two recordings, paired by function name and by
 * call path, rated by one of OSprof's methods, the tiny ones pruned.
 */
#include "diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "show.h"

/* One profile of one recording: a function or a call path. */
struct dprof {
	int kind;	 /* OWNER_FUNC or OWNER_FNODE */
	char *key;	 /* function name or path */
	struct profile p; /* of the metric diff compares, at its resolution */
	uint64_t calls;	 /* complete calls */
	double lat;	 /* total latency of the complete calls, ns */
};

/* One recording's profiles, of functions and of call paths. */
struct dset {
	struct dprof *v; /* v[0..n), room for cap */
	int n, cap;
	double total; /* latency of the roots: what the recording spent in calls */
};

static const char profiles_sql[] =
    "SELECT 0, f.name, h.bucket, h.count, s.total_incl_ns"
    " FROM hist h JOIN func f ON f.id = h.owner_id JOIN func_summary s ON s.func_id = f.id"
    " WHERE h.owner_kind = 0 AND h.metric = ?1 AND h.resolution = ?2"
    " UNION ALL "
    "SELECT 1, p.path, h.bucket, h.count, n.incl_ns"
    " FROM hist h JOIN fnode_path p ON p.id = h.owner_id JOIN fnode n ON n.id = h.owner_id"
    " WHERE h.owner_kind = 1 AND h.metric = ?1 AND h.resolution = ?2"
    " ORDER BY 1, 2, 3";

static int cmp_dprof(const void *a, const void *b)
{
	const struct dprof *x = a, *y = b;

	return x->kind != y->kind ? x->kind - y->kind : strcmp(x->key, y->key);
}

static void dset_free(struct dset *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->v[i].key);
		free(s->v[i].p.count);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* A new profile for (@kind, @key) at the end of @s, or NULL. */
static struct dprof *dset_add(struct dset *s, int kind, const char *key, int resolution)
{
	struct dprof *d;

	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 256;
		void *v = realloc(s->v, cap * sizeof(*s->v));
		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	d = &s->v[s->n];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->key = strdup(key);
	d->p.resolution = resolution;
	d->p.count = calloc(64 * 4 + 1, sizeof(*d->p.count));
	if (!d->key || !d->p.count) {
		free(d->key);
		free(d->p.count);
		return NULL;
	}
	s->n++;
	return d;
}

/* Every function's and path's profile of @db at @metric and @resolution. */
static int load_set(struct rdb *db, int metric, int resolution, struct dset *s,
		    struct err_msg *err)
{
	sqlite3_stmt *st;
	struct dprof *d = NULL;
	int rc;

	if (rdb_hist_resolution(db, resolution, err))
		return -1;
	if (sqlite3_prepare_v2(rdb_sql(db), profiles_sql, -1, &st, NULL) != SQLITE_OK)
		return err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
	sqlite3_bind_int(st, 1, metric);
	sqlite3_bind_int(st, 2, resolution);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(st, 0), b = sqlite3_column_int(st, 2);
		const char *key = rdb_text(st, 1);
		if (!d || d->kind != kind || strcmp(d->key, key)) {
			if (!(d = dset_add(s, kind, key, resolution)))
				break;
			d->lat = sqlite3_column_double(st, 4);
		}
		if (b >= 0 && b <= 64 * 4) {
			d->p.count[b] += sqlite3_column_int64(st, 3);
			d->calls += sqlite3_column_int64(st, 3);
			d->p.n = b + 1 > d->p.n ? b + 1 : d->p.n;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return err_setf(err, rdb_path(db), "cannot read the profiles");
	s->total = 0;
	for (int i = 0; i < s->n; i++)
		if (s->v[i].kind == OWNER_FNODE && !strstr(s->v[i].key, " > "))
			s->total += s->v[i].lat;
	qsort(s->v, s->n, sizeof(*s->v), cmp_dprof);
	return 0;
}

/*
 * Too small to rate on this side: few calls, or little of the recording's
 * latency (a pair is pruned when both sides are: a millisecond's shift of a
 * microsecond function moves its profile, not the workload).
 */
static bool tiny(const struct dprof *d, const struct dset *s, const struct diff_opts *o)
{
	return !d || d->calls < (uint64_t)o->min_calls ||
	       (s->total > 0 && d->lat / s->total < o->min_share);
}

static int cmp_score(const void *a, const void *b)
{
	const struct diff_pair *x = a, *y = b;

	double lx = fmax(x->lat_a, x->lat_b), ly = fmax(y->lat_a, y->lat_b);

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (lx != ly) /* alike (e.g. both only on one side): the more latency first */
		return lx < ly ? 1 : -1;
	return x->kind != y->kind ? x->kind - y->kind : strcmp(x->key, y->key);
}

/* Rate pair (@a, @b) into @out; a profile only one side has scores infinity. */
static void rate(const struct dprof *a, const struct dprof *b, const struct diff_opts *o,
		 struct diff_pair *out)
{
	static const struct profile none = {.resolution = 1};
	const struct profile *pa = a ? &a->p : &none, *pb = b ? &b->p : &none;

	out->kind = a ? a->kind : b->kind;
	out->key = a ? a->key : b->key;
	out->a = a ? &a->p : NULL;
	out->b = b ? &b->p : NULL;
	out->calls_a = a ? a->calls : 0;
	out->calls_b = b ? b->calls : 0;
	out->lat_a = a ? a->lat : 0;
	out->lat_b = b ? b->lat : 0;
	for (int m = 0; m < CMP_METHODS; m++)
		out->scores[m] = a && b ? profile_compare(pa, pb, m, &o->pp) : INFINITY;
	out->score = out->scores[o->method];
	if (isnan(out->score))
		out->score = 0;
}

/* Pair the two sorted sets, prune, rate. */
static int pair_up(const struct dset *sa, const struct dset *sb, const struct diff_opts *o,
		   struct diff_result *r)
{
	int i = 0, j = 0;

	r->pairs = calloc(sa->n + sb->n + 1, sizeof(*r->pairs));
	if (!r->pairs)
		return -1;
	while (i < sa->n || j < sb->n) {
		int c = i >= sa->n ? 1 : j >= sb->n ? -1 : cmp_dprof(&sa->v[i], &sb->v[j]);
		const struct dprof *a = c <= 0 ? &sa->v[i++] : NULL;
		const struct dprof *b = c >= 0 ? &sb->v[j++] : NULL;
		if (tiny(a, sa, o) && tiny(b, sb, o)) {
			r->pruned++;
			continue;
		}
		if (o->kind >= 0 && (a ? a->kind : b->kind) != o->kind)
			continue;
		rate(a, b, o, &r->pairs[r->npairs++]);
	}
	qsort(r->pairs, r->npairs, sizeof(*r->pairs), cmp_score);
	for (int k = 0; k < r->npairs; k++)
		r->above += r->pairs[k].score >= o->threshold;
	return 0;
}

int diff_run(struct rdb *a, struct rdb *b, const struct diff_opts *o, struct diff_result *r,
	     struct err_msg *err)
{
	memset(r, 0, sizeof(*r));
	r->sets = calloc(2, sizeof(struct dset));
	if (!r->sets)
		return err_setf(err, NULL, "out of memory");
	if (load_set(a, o->metric, o->resolution, &r->sets[0], err) ||
	    load_set(b, o->metric, o->resolution, &r->sets[1], err))
		return -1;
	if (pair_up(&r->sets[0], &r->sets[1], o, r))
		return err_setf(err, NULL, "out of memory");
	return 0;
}

void diff_release(struct diff_result *r)
{
	if (r->sets) {
		dset_free(&r->sets[0]);
		dset_free(&r->sets[1]);
	}
	free(r->sets);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}

double diff_default_threshold(int method)
{
	static const double t[CMP_METHODS] = {
	    [CMP_TOTOPS] = 20, [CMP_TOTLAT] = 20, [CMP_CHISQUARE] = 99.9,
	    [CMP_EMD] = 50,    [CMP_GROUPOPS] = 20, [CMP_GROUPLAT] = 20,
	};
	return method >= 0 && method < CMP_METHODS ? t[method] : 50;
}
