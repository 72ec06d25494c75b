/* SPDX-License-Identifier: MIT */
/*
 * hist: latency distributions. Each keeps counts in fine logarithmic buckets
 * (48 per octave), from which the OSprof log2 histograms at resolutions 1..4
 * follow exactly (48 is a multiple of 1, 2, 3 and 4) and quantiles within
 * 1.5%. Memory grows with the range of latencies seen, not their number.
 */
#ifndef DARC_HIST_H
#define DARC_HIST_H

#include <stdint.h>

#define HIST_FINE 48 /* fine buckets per octave */

struct hist {
	uint32_t *counts; /* counts[i] for bucket lo + i */
	int lo, n;	  /* range of buckets allocated */
	uint64_t total;	  /* values added */
	uint64_t min, max;
	int div;	  /* fine buckets in a bucket: 0 or 1, fine (the default); a divisor
			     of HIST_FINE for a coarse one (hist_coarse()) */
};

/* An empty histogram (all zero): also what zero-initialised memory is. */
#define HIST_INIT {0}

/*
 * OSprof bucket of @ns at @resolution buckets per octave (1..4):
 * floor(resolution * log2(ns)), with ns < 1 counted as 1 (bucket 0).
 */
int hist_bucket(uint64_t ns, int resolution);

/*
 * Make the empty @h coarse: buckets of @div fine ones (a divisor of
 * HIST_FINE), enough for the OSprof resolutions r whose buckets are whole
 * ones of them (HIST_FINE / r a multiple of @div: 48 for resolution 1 alone,
 * 4 for 1 to 4), in a 48th (a 4th) of the memory; no quantile then.
 */
void hist_coarse(struct hist *h, int div);

/* Add one value. Returns 0, or -1 when out of memory. */
int hist_add(struct hist *h, uint64_t ns);

/* The fine bucket of @ns: floor(HIST_FINE * log2(ns)), 0 for ns < 2. */
int hist_fine(uint64_t ns);

/* hist_add() of @ns whose fine bucket, hist_fine(@ns), is known: @fine. */
int hist_add_at(struct hist *h, int fine, uint64_t ns);

/*
 * hist_add_at() in two halves, for a caller that counts many histograms at
 * once and puts their counts in later, in an order that keeps each
 * histogram's memory together: hist_note() the value (total, min, max),
 * hist_count_at() its fine bucket. 0, or -1 when out of memory.
 */
void hist_note(struct hist *h, uint64_t ns);
int hist_count_at(struct hist *h, int fine);

/*
 * Add every value of @src to @dst (as if hist_add()ed one by one): an empty
 * @dst takes @src's buckets' size. 0, or -1 (memory, or buckets of two sizes).
 */
int hist_merge(struct hist *dst, const struct hist *src);

/*
 * Visit the non-empty OSprof buckets at @resolution in increasing order.
 * @fn returns nonzero to stop; hist_each returns that value or 0 (-1 for a
 * resolution a coarse @h does not hold).
 */
int hist_each(const struct hist *h, int resolution,
	      int (*fn)(void *ctx, int bucket, uint64_t count), void *ctx);

/*
 * hist_each() at resolutions 1, 2, 3 and 4 in turn, in one pass over the
 * fine buckets (most are empty): @fn gets the resolution too.
 */
int hist_each_all(const struct hist *h,
		  int (*fn)(void *ctx, int resolution, int bucket, uint64_t count), void *ctx);

/*
 * The @q quantile (0 < q <= 1) of the values added: the geometric middle of
 * the fine bucket holding it, clamped to [min, max]; 0 when empty (and for
 * a coarse histogram, which cannot tell it within 1.5%).
 */
uint64_t hist_quantile(const struct hist *h, double q);

/*
 * The exact quantiles darc stores (fnode, func) and prints (darc hist): p50,
 * p90, p99 and p99.9, each the nearest rank, the ceil(n * q)-th smallest of
 * the n values (the smallest value with at least that share of the values
 * at or below it: SQL gets the same with row_number()), and the largest.
 */
enum { QUANT_P50, QUANT_P90, QUANT_P99, QUANT_P999, NQUANT };
/* Each quantile in thousandths: 500, 900, 990, 999. */
extern const int hist_quant_permille[NQUANT];
/* Its name: "p50", "p90", "p99", "p99.9". */
extern const char *const hist_quant_name[NQUANT];

struct quant {
	int64_t p[NQUANT]; /* by QUANT_* */
	int64_t max;
};

/*
 * The quantiles of @v[0..@n), @n > 0, into @q: by selection (Hoare's FIND,
 * linear on average), which may reorder @v; for many values, within the few
 * buckets of a first counting pass that hold the ranks.
 */
void hist_quant_exact(int64_t *v, int64_t n, struct quant *q);

/* Release the counts; the histogram is empty again. Accepts NULL. */
void hist_release(struct hist *h);

#endif
