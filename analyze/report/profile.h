/* SPDX-License-Identifier: MIT */
/*
 * profile: an OSprof latency profile (counts per log bucket), its peaks, and
 * the ways to compare two profiles (analyze/METHODS.md sections 4-6). Plain
 * arithmetic on arrays: no database, no I/O, so every rule has unit tests.
 */
#ifndef DARC_PROFILE_H
#define DARC_PROFILE_H

#include <stdint.h>

/* Counts per bucket: bucket lo + i holds count[i], i < n. */
struct profile {
	int resolution;	 /* buckets per octave, 1..4: bucket b = floor(r * log2(ns)) */
	int lo, n;
	uint64_t *count; /* [n] */
	double *lat_ns;	 /* [n] latency summed per bucket, or NULL (then midpoints) */
	int64_t *max_ns; /* [n] largest value per bucket, or NULL */
};

/*
 * How peaks are found. One rule for every command (darc hist, peaks, paths,
 * diff's group methods, io --bios and explain): the peaks a person sees
 * (profile_peaks_seen(), below). --prominence or --smooth choose the other,
 * OSprof-style rule on y = log2(count + 1) of each bucket:
 *  1. smooth y with a centred moving average of @smooth buckets (1: none);
 *  2. cut the profile before every local minimum of y (the bucket at the
 *     bottom of a valley begins the hump on its right);
 *  3. while some cut's valley is shallower than @prominence, that is, the
 *     lower of the two humps' highest y minus the valley's y is less than
 *     it, remove the shallowest cut (its two humps are one);
 *  4. trim empty buckets from both ends of each hump; drop empty humps.
 * Peaks are numbered 1, 2, ... from left to right. A prominence of 2 means
 * a hump must rise to four times the count (+1) of the valley beside it.
 */
enum peak_rule {
	PEAK_SEEN = 0,	     /* the peaks a person sees (the default) */
	PEAK_PROMINENCE = 1, /* log-count prominence, @prominence and @smooth */
};

struct peak_params {
	int rule;	   /* enum peak_rule */
	double prominence; /* PEAK_PROMINENCE: log2 units, default 2.0 */
	int smooth;	   /* PEAK_PROMINENCE: odd window in buckets, default 1 */
};
#define PEAK_PARAMS_DEFAULT {PEAK_SEEN, 2.0, 1}

struct peak {
	int lo, hi;	    /* bucket range, inclusive */
	uint64_t calls;	    /* sum of the counts */
	double lat_ns;	    /* latency in it (lat_ns, or count x bucket midpoint) */
	double share_calls; /* of the profile's calls, 0..1 */
	double share_lat;   /* of the profile's latency, 0..1 */
	int64_t max_ns;	    /* largest value in it, if the profile knows (else 0) */
};

/*
 * The peaks of @p by @pp's rule into @out (allocated, the caller frees it;
 * NULL if none). Returns their number, or -1 when out of memory or @pp is
 * out of range.
 */
int profile_peaks(const struct profile *p, const struct peak_params *pp, struct peak **out);

/*
 * The peaks a person sees (the default rule), on the counts themselves:
 *  1. cut before every local minimum of the counts;
 *  2. a cut at an empty octave (as many empty buckets as the resolution)
 *     always holds; another holds when the lower of its two humps' tops
 *     rises over the valley by 3 standard deviations, sqrt(top + valley),
 *     and to twice the valley's count (183 over 65 holds; 3 over 1 does
 *     not); the weakest cut that does not hold goes first, until all hold;
 *  3. empty buckets are trimmed off each hump's ends;
 *  4. a tiny peak (fewer calls than 5 or 0.5% of all, whichever is more,
 *     and under 5% of the latency) is folded into its nearer neighbour; a
 *     slow outlier that holds much of the latency stays a peak of its own.
 * Returns the number of peaks (into @out, allocated), or -1 out of memory.
 */
int profile_peaks_seen(const struct profile *p, struct peak **out);

/* Fill calls, latency and shares of peaks whose lo and hi are set (e.g. given by the user). */
void profile_peak_stats(const struct profile *p, struct peak *pk, int npk);

/* Total calls and latency of @p. */
uint64_t profile_calls(const struct profile *p);
double profile_latency(const struct profile *p);

/* The latency a bucket stands for when only its count is known: 1.5 x its lower edge. */
double profile_midpoint(int bucket, int resolution);

/* Ways to compare profile A (the reference) with B, each a difference in percent. */
enum cmp_method {
	CMP_TOTOPS,    /* |sum a - sum b| / sum a */
	CMP_TOTLAT,    /* the same on latency estimated as count x 2^(bucket/r) */
	CMP_CHISQUARE, /* chi-square on counts over non-empty buckets, as a probability */
	CMP_EMD,       /* earth mover's distance of the normalised profiles, x 100 */
	CMP_GROUPOPS,  /* 100 if the peaks differ, else calls per peak compared */
	CMP_GROUPLAT,  /* likewise, latency per peak */
	CMP_METHODS
};

/* "totops", "emd", ...; and back (-1 if unknown). */
const char *profile_cmp_method_name(int method);
int profile_cmp_method_of(const char *name);

/*
 * The difference of @b from @a by @method, in percent (0 = the same). The two
 * must have the same resolution. @pp is for the GROUP methods' peaks. NaN if
 * @a is empty (nothing to compare with) or memory ran out.
 */
double profile_compare(const struct profile *a, const struct profile *b, int method,
		       const struct peak_params *pp);

/*
 * The chi-square distribution's CDF: the probability that a chi-square
 * variable with @dof degrees of freedom is below @x.
 */
double profile_chi2_cdf(double x, double dof);

#endif
