// SPDX-License-Identifier: MIT
#include "hist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Fine bucket of x >= 1: 48 * floor(log2 x) + the number of thresholds
 * 2^(j/48), j = 1..47, that the mantissa reaches. thr[j] = ceil(2^(63 + j/48)),
 * compared with the mantissa shifted to bit 63, so no floating point per value.
 * The thresholds are 1.45% apart, so the mantissa's next TOP_BITS bits (steps
 * of 0.1%) name a first guess, first[], at most one threshold short.
 */
#define TOP_BITS 10
static uint64_t thr[HIST_FINE];
static uint8_t first[1 << TOP_BITS];

__attribute__((constructor)) static void init_thr(void)
{
	for (int j = 1; j < HIST_FINE; j++)
		thr[j] = (uint64_t)ceill(exp2l(63.0L + (long double)j / HIST_FINE));
	thr[0] = 1;
	for (int i = 0, j = 0; i < 1 << TOP_BITS; i++) {
		uint64_t m = 1ULL << 63 | (uint64_t)i << (63 - TOP_BITS);

		while (j < HIST_FINE - 1 && thr[j + 1] <= m)
			j++;
		first[i] = (uint8_t)j; /* the largest j with thr[j] <= the slot's lowest m */
	}
}

static int fine_bucket(uint64_t x)
{
	int e, j;
	uint64_t m;

	if (x <= 1)
		return 0;
	e = 63 - __builtin_clzll(x);
	m = x << (63 - e);
	j = first[(m >> (63 - TOP_BITS)) & ((1 << TOP_BITS) - 1)];
	while (j < HIST_FINE - 1 && thr[j + 1] <= m)
		j++;
	return e * HIST_FINE + j;
}

int hist_bucket(uint64_t ns, int resolution)
{
	return fine_bucket(ns) / (HIST_FINE / resolution);
}

/* Fine buckets in a bucket of @h. */
static inline int div_of(const struct hist *h)
{
	return h->div > 1 ? h->div : 1;
}

void hist_coarse(struct hist *h, int div)
{
	h->div = div;
}

/* Room in @h for bucket @b (of @h's size). */
static int grow(struct hist *h, int b)
{
	const int octave = HIST_FINE / div_of(h);
	int lo = h->n ? (b < h->lo ? b : h->lo) : b;
	int hi = h->n ? (b >= h->lo + h->n ? b + 1 : h->lo + h->n) : b + 1;
	uint32_t *c;

	/* grow by whole octaves so a spreading distribution reallocates rarely */
	lo -= lo % octave;
	hi += (octave - hi % octave) % octave;
	c = calloc(hi - lo, sizeof(*c));
	if (!c)
		return -1;
	if (h->n)
		memcpy(c + (h->lo - lo), h->counts, h->n * sizeof(*c));
	free(h->counts);
	h->counts = c;
	h->lo = lo;
	h->n = hi - lo;
	return 0;
}

int hist_fine(uint64_t ns)
{
	return fine_bucket(ns);
}

int hist_add(struct hist *h, uint64_t ns)
{
	return hist_add_at(h, fine_bucket(ns), ns);
}

int hist_count_at(struct hist *h, int fine)
{
	int b = fine / div_of(h); /* fine >= 0: floor */

	if (!h->n || b < h->lo || b >= h->lo + h->n)
		if (grow(h, b))
			return -1;
	h->counts[b - h->lo]++;
	return 0;
}

void hist_note(struct hist *h, uint64_t ns)
{
	if (!h->total || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->total++;
}

int hist_add_at(struct hist *h, int fine, uint64_t ns)
{
	if (hist_count_at(h, fine))
		return -1;
	hist_note(h, ns);
	return 0;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	int hi = src->lo + src->n - 1;

	if (!src->total)
		return 0;
	if (!dst->n && !dst->total)
		dst->div = src->div;
	if (div_of(dst) != div_of(src))
		return -1;
	if ((!dst->n || src->lo < dst->lo) && grow(dst, src->lo))
		return -1;
	if (hi >= dst->lo + dst->n && grow(dst, hi))
		return -1;
	for (int i = 0; i < src->n; i++)
		dst->counts[src->lo + i - dst->lo] += src->counts[i];
	if (!dst->total || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->total += src->total;
	return 0;
}

int hist_each(const struct hist *h, int resolution,
	      int (*fn)(void *ctx, int bucket, uint64_t count), void *ctx)
{
	const int m = HIST_FINE / resolution, d = div_of(h); /* fine buckets per OSprof bucket */
	uint64_t acc = 0;
	int cur = 0, rc;

	if (m % d)
		return -1;
	for (int i = 0; i < h->n; i++) {
		int b = (h->lo + i) * d / m; /* fine >= 0, so this is floor */
		if (!h->counts[i])
			continue;
		if (acc && b != cur) {
			if ((rc = fn(ctx, cur, acc)))
				return rc;
			acc = 0;
		}
		cur = b;
		acc += h->counts[i];
	}
	return acc ? fn(ctx, cur, acc) : 0;
}

/* hist_each_all()'s @fn with its resolution, for hist_each(). */
struct each_at {
	int (*fn)(void *ctx, int resolution, int bucket, uint64_t count);
	void *ctx;
	int resolution;
};

static int each_at(void *ctx, int bucket, uint64_t count)
{
	const struct each_at *a = ctx;

	return a->fn(a->ctx, a->resolution, bucket, count);
}

int hist_each_all(const struct hist *h,
		  int (*fn)(void *ctx, int resolution, int bucket, uint64_t count), void *ctx)
{
	int fine[512], nz = 0, rc = 0, d = div_of(h);
	uint64_t count[512];

	if ((HIST_FINE / 3) % d || (HIST_FINE / 4) % d)
		return -1; /* a coarse histogram without every resolution */
	for (int i = 0; i < h->n; i++) {
		if (!h->counts[i])
			continue;
		if (nz == 512) /* a histogram this spread: the long way */
			goto slow;
		fine[nz] = (h->lo + i) * d;
		count[nz++] = h->counts[i];
	}
	for (int r = 1; r <= 4 && !rc; r++) {
		const int m = HIST_FINE / r; /* fine buckets per OSprof bucket */
		uint64_t acc = 0;
		int cur = 0;

		for (int k = 0; k < nz && !rc; k++) {
			int b = fine[k] / m; /* fine >= 0, so this is floor */
			if (acc && b != cur) {
				rc = fn(ctx, r, cur, acc);
				acc = 0;
			}
			cur = b;
			acc += count[k];
		}
		if (!rc && acc)
			rc = fn(ctx, r, cur, acc);
	}
	return rc;
slow:
	for (int r = 1; r <= 4 && !rc; r++) {
		struct each_at a = {fn, ctx, r};
		rc = hist_each(h, r, each_at, &a);
	}
	return rc;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->total || div_of(h) > 1)
		return 0;
	rank = (uint64_t)ceil(q * h->total);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < h->n; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			double v = exp2((h->lo + i + 0.5) / HIST_FINE);
			uint64_t u = v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
			return u < h->min ? h->min : u > h->max ? h->max : u;
		}
	}
	return h->max;
}

const int hist_quant_permille[NQUANT] = {500, 900, 990, 999};
const char *const hist_quant_name[NQUANT] = {"p50", "p90", "p99", "p99.9"};

/*
 * Put the @k-th smallest of @v[@l..@r] at @v[@k], the smaller ones before
 * it and the larger after (Wirth's form of Hoare's FIND; the middle of three
 * as the pivot, so that sorted input, the common case of a function's
 * calls, is halved at every step).
 */
static void select_kth(int64_t *v, int64_t l, int64_t r, int64_t k)
{
	while (l < r) {
		int64_t a = v[l], b = v[l + (r - l) / 2], c = v[r];
		int64_t x = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		int64_t i = l, j = r;

		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			r = j;
	}
}

/* The quantiles and maximum of @v[0..@n) by selection alone (@n >= 1). */
static void quant_select(int64_t *v, int64_t n, struct quant *q)
{
	int64_t from = 0;

	/* each rank at or above the last: select within what lies above it */
	for (int i = 0; i < NQUANT; i++) {
		int64_t k = (n * hist_quant_permille[i] + 999) / 1000 - 1;
		select_kth(v, from, n - 1, k);
		q->p[i] = v[k];
		from = k;
	}
	select_kth(v, from, n - 1, n - 1);
	q->max = v[n - 1];
}

/*
 * A bucket of @v, non-decreasing with @v: 0 for v <= 0, v itself below 64,
 * then 64 buckets an octave (the 6 bits after its top one: 1.1% wide).
 */
#define QB_SUB 6
#define QB_N ((1 << QB_SUB) + (63 - QB_SUB) * (1 << QB_SUB))
static inline unsigned qbucket(int64_t v)
{
	int msb;

	if (v < 1 << QB_SUB)
		return v <= 0 ? 0 : (unsigned)v;
	msb = 63 - __builtin_clzll((uint64_t)v);
	return (1u << QB_SUB) + (unsigned)(msb - QB_SUB) * (1u << QB_SUB) +
	       (unsigned)((v >> (msb - QB_SUB)) & ((1 << QB_SUB) - 1));
}

/* Fewer values than this are selected from directly. */
#define QB_MIN 16384

/*
 * Many values: one pass counts them by bucket (qbucket() keeps the order, so
 * a rank's bucket and its rank within follow from the counts), a second
 * gathers the buckets that hold a wanted rank (at most NQUANT), and the
 * selection runs on those alone. On bench-v6's 2.8 M calls of one fnode:
 * 34 ms before, 21 ms now (in the analysis, its fresh memory included).
 * 0, or -1 when out of memory.
 */
static int quant_buckets(const int64_t *v, int64_t n, struct quant *q)
{
	int64_t *cnt = calloc(QB_N, sizeof(*cnt)), *g = NULL, k[NQUANT], at[NQUANT + 1];
	int64_t fill[NQUANT], below = 0, size = 0, max = v[0];
	int want[NQUANT], in[NQUANT], nb = 0, rc = -1;
	unsigned b = 0;

	if (!cnt)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		cnt[qbucket(v[i])]++;
		max = v[i] > max ? v[i] : max;
	}
	/* each rank's bucket and its rank there (the ranks do not decrease) */
	for (int i = 0; i < NQUANT; i++) {
		k[i] = (n * hist_quant_permille[i] + 999) / 1000 - 1;
		while (below + cnt[b] <= k[i])
			below += cnt[b++];
		if (!nb || want[nb - 1] != (int)b)
			want[nb++] = (int)b;
		k[i] -= below;
		in[i] = nb - 1;
	}
	for (int j = 0; j < nb; j++) {
		at[j] = fill[j] = size;
		size += cnt[want[j]];
		cnt[want[j]] = -1 - j; /* from here on: the bucket's place in g */
	}
	at[nb] = size;
	g = malloc(size * sizeof(*g));
	if (g) {
		for (int64_t i = 0; i < n; i++) {
			int64_t c = cnt[qbucket(v[i])];

			if (c < 0)
				g[fill[-1 - c]++] = v[i];
		}
		for (int i = 0; i < NQUANT; i++) {
			int64_t *w = g + at[in[i]];

			select_kth(w, 0, at[in[i] + 1] - at[in[i]] - 1, k[i]);
			q->p[i] = w[k[i]];
		}
		q->max = max;
		rc = 0;
	}
	free(g);
	free(cnt);
	return rc;
}

void hist_quant_exact(int64_t *v, int64_t n, struct quant *q)
{
	if (n < QB_MIN || quant_buckets(v, n, q)) /* short of memory: in place */
		quant_select(v, n, q);
}

void hist_release(struct hist *h)
{
	if (!h)
		return;
	free(h->counts);
	*h = (struct hist){0};
}
