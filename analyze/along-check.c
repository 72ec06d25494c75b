// SPDX-License-Identifier: MIT
/*
 * along-check: is a recording made with darc-record --along DB still of the
 * workload DB saw? DARC, resuming its search in a new run, compared the
 * entry point's profile with the last run's and warned when the workload
 * had changed. Here the manifest holds DB's profiles of the entry points
 * (incl_ns, one bucket an octave) and the new analysis has its own: each
 * pair is compared as distributions by the largest difference of their
 * cumulative shares (Kolmogorov-Smirnov's distance: 0 the same, 1 nothing
 * in common), the new one allowed to sit up to two buckets lower (less is
 * traced, so less of the tracer's cost is in it; and not by the same amount
 * in every bucket, which a distance bucket by bucket would count against
 * it: five runs of the lab's dio workload were 0.13 to 0.27 apart by this
 * measure, 0.23 to 0.36 by the total variation distance).
 */
#include "along-check.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define ALONG_NB 64	   /* buckets of one an octave: up to 2^64 ns */
#define ALONG_MAX_KS 0.3   /* a larger distance: the workload changed */
#define ALONG_MAX_RATIO 2. /* so did it when the calls differ by more than this factor */

/* fnode @path's incl_ns histogram at resolution 1 in @sql into @h; its calls. */
static int64_t new_hist(sqlite3 *sql, const char *path, double *h)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(sql,
			       "SELECT bucket, count FROM hist WHERE owner_kind = 1 AND metric = 0"
			       " AND resolution = 1 AND owner_id = (SELECT id FROM fnode_path"
			       " WHERE path = ? LIMIT 1)",
			       -1, &st, NULL))
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int b = sqlite3_column_int(st, 0);
		int64_t c = sqlite3_column_int64(st, 1);
		if (b >= 0 && b < ALONG_NB && c > 0) {
			h[b] += c;
			n += c;
		}
	}
	sqlite3_finalize(st);
	return n;
}

/* The manifest's histogram {"bucket": count} into @h; its calls. */
static int64_t old_hist(json_t *hist, double *h)
{
	const char *key;
	json_t *v;
	int64_t n = 0;

	json_object_foreach(hist, key, v) {
		long b = strtol(key, NULL, 10);
		if (b >= 0 && b < ALONG_NB && json_is_integer(v) && json_integer_value(v) > 0) {
			h[b] += (double)json_integer_value(v);
			n += json_integer_value(v);
		}
	}
	return n;
}

/* The distance of @p (of @np calls) and @q (@nq) with q moved up @s buckets. */
static double ks(const double *p, int64_t np, const double *q, int64_t nq, int s)
{
	double cp = 0, cq = 0, d = 0;

	for (int b = 0; b < ALONG_NB; b++) {
		cp += p[b] / np;
		cq += b - s >= 0 ? q[b - s] / nq : 0;
		d = fabs(cp - cq) > d ? fabs(cp - cq) : d;
	}
	return d;
}

/* One entry point: a sentence into @msg; 1 when changed, 0 the same, -1 nothing to compare. */
static int check_one(sqlite3 *sql, json_t *prof, const char *db, char *msg, size_t n)
{
	const char *path = json_string_value(json_object_get(prof, "path"));
	double p[ALONG_NB] = {0}, q[ALONG_NB] = {0}, best = 1;
	int64_t np = old_hist(json_object_get(prof, "hist"), p), nq;
	int shift = 0;
	bool same;

	if (!path || np <= 0)
		return -1;
	nq = new_hist(sql, path, q);
	if (nq <= 0) {
		snprintf(msg, n, "along '%s': %s: no calls here, %lld there: the workload "
			 "changed, or it ran another way", db, path, (long long)np);
		return 1;
	}
	for (int s = 0; s <= 2; s++) {
		double d = ks(p, np, q, nq, s);
		if (d < best) {
			best = d;
			shift = s;
		}
	}
	same = best <= ALONG_MAX_KS && np <= nq * ALONG_MAX_RATIO && nq <= np * ALONG_MAX_RATIO;
	snprintf(msg, n, "along '%s': %s: %lld calls here, %lld there, latency profiles %.0f%% "
		 "apart%s: %s", db, path, (long long)nq, (long long)np, best * 100,
		 shift == 2 ? " with this one two buckets lower" : shift ? " with this one a bucket "
									     "lower" : "",
		 same ? "the workload is as there"
		      : "the workload changed, as far as its entry point shows");
	return same ? 0 : 1;
}

int along_check(sqlite3 *sql, const char *manifest, char *msg, size_t n)
{
	json_t *m = manifest ? json_loads(manifest, 0, NULL) : NULL;
	json_t *a = json_object_get(m, "along"), *prof = json_object_get(a, "profile"), *v;
	const char *db = json_string_value(json_object_get(a, "db"));
	char one[1024];
	size_t i;
	int worst = -1;

	msg[0] = 0;
	/* one line: the first entry point that changed, else the first compared */
	json_array_foreach(prof, i, v) {
		int r = check_one(sql, v, db ? db : "?", one, sizeof(one));
		if (r > worst) {
			snprintf(msg, n, "%s", one);
			worst = r;
		}
	}
	json_decref(m);
	return worst;
}
