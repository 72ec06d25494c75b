// SPDX-License-Identifier: MIT
#include "profile.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

double profile_midpoint(int bucket, int resolution)
{
	return 1.5 * exp2((double)bucket / resolution);
}

static double bucket_lat(const struct profile *p, int i)
{
	return p->lat_ns ? p->lat_ns[i] : p->count[i] * profile_midpoint(p->lo + i, p->resolution);
}

uint64_t profile_calls(const struct profile *p)
{
	uint64_t s = 0;

	for (int i = 0; i < p->n; i++)
		s += p->count[i];
	return s;
}

double profile_latency(const struct profile *p)
{
	double s = 0;

	for (int i = 0; i < p->n; i++)
		s += bucket_lat(p, i);
	return s;
}

void profile_peak_stats(const struct profile *p, struct peak *pk, int npk)
{
	uint64_t calls = profile_calls(p);
	double lat = profile_latency(p);

	for (int k = 0; k < npk; k++) {
		pk[k].calls = 0;
		pk[k].lat_ns = 0;
		pk[k].max_ns = 0;
		for (int b = pk[k].lo; b <= pk[k].hi; b++) {
			int i = b - p->lo;
			if (i < 0 || i >= p->n)
				continue;
			pk[k].calls += p->count[i];
			pk[k].lat_ns += bucket_lat(p, i);
			if (p->max_ns && p->max_ns[i] > pk[k].max_ns)
				pk[k].max_ns = p->max_ns[i];
		}
		pk[k].share_calls = calls ? (double)pk[k].calls / calls : 0;
		pk[k].share_lat = lat > 0 ? pk[k].lat_ns / lat : 0;
	}
}

/* y = log2(count + 1), averaged over a window of @w buckets. */
static double *log_counts(const struct profile *p, int w)
{
	double *raw = malloc(p->n * sizeof(*raw)), *y = malloc(p->n * sizeof(*y));
	int h = w / 2;

	if (!raw || !y) {
		free(raw);
		free(y);
		return NULL;
	}
	for (int i = 0; i < p->n; i++)
		raw[i] = log2((double)p->count[i] + 1);
	for (int i = 0; i < p->n; i++) {
		double s = 0;
		int m = 0;
		for (int j = i - h; j <= i + h; j++)
			if (j >= 0 && j < p->n) {
				s += raw[j];
				m++;
			}
		y[i] = s / m;
	}
	free(raw);
	return y;
}

/* The humps: cut[k] is the first bucket index of hump k (cut[0] = 0). */
struct humps {
	int *cut;    /* [n] */
	double *top; /* highest y of each hump */
	int n;	     /* humps */
};

/* Cut before every local minimum of @y (the first bucket of a flat bottom). */
static int cut_at_minima(const double *y, int n, struct humps *h)
{
	h->cut = malloc((n + 1) * sizeof(*h->cut));
	h->top = malloc((n + 1) * sizeof(*h->top));
	if (!h->cut || !h->top)
		return -1;
	h->n = 0;
	h->cut[h->n] = 0;
	h->top[h->n++] = y[0];
	for (int i = 1; i < n; i++) {
		int next = i + 1 < n ? i + 1 : i;
		if (y[i] < y[i - 1] && y[i] <= y[next] && i + 1 < n) {
			h->cut[h->n] = i;
			h->top[h->n++] = y[i];
		} else if (y[i] > h->top[h->n - 1]) {
			h->top[h->n - 1] = y[i];
		}
	}
	return 0;
}

/* Merge the humps around the shallowest valley while it is below @prominence. */
static void merge_shallow(const double *y, struct humps *h, double prominence)
{
	while (h->n > 1) {
		int best = -1;
		double depth = 0;
		for (int k = 1; k < h->n; k++) {
			double lower = fmin(h->top[k - 1], h->top[k]);
			double d = lower - y[h->cut[k]];
			if (best < 0 || d < depth) {
				best = k;
				depth = d;
			}
		}
		if (depth >= prominence)
			return;
		h->top[best - 1] = fmax(h->top[best - 1], h->top[best]);
		memmove(&h->cut[best], &h->cut[best + 1], (h->n - best - 1) * sizeof(*h->cut));
		memmove(&h->top[best], &h->top[best + 1], (h->n - best - 1) * sizeof(*h->top));
		h->n--;
	}
}

/* The humps as peaks, empty buckets trimmed off their ends. */
static int humps_to_peaks(const struct profile *p, const struct humps *h, struct peak **out)
{
	struct peak *pk = calloc(h->n ? h->n : 1, sizeof(*pk));
	int n = 0;

	if (!pk)
		return -1;
	for (int k = 0; k < h->n; k++) {
		int a = h->cut[k], b = k + 1 < h->n ? h->cut[k + 1] - 1 : p->n - 1;
		while (a <= b && !p->count[a])
			a++;
		while (b >= a && !p->count[b])
			b--;
		if (a > b)
			continue;
		pk[n].lo = p->lo + a;
		pk[n].hi = p->lo + b;
		n++;
	}
	profile_peak_stats(p, pk, n);
	if (!n) {
		free(pk);
		pk = NULL;
	}
	*out = pk;
	return n;
}

int profile_peaks(const struct profile *p, const struct peak_params *pp, struct peak **out)
{
	struct humps h = {0};
	double *y;
	int rc = -1;

	*out = NULL;
	if (pp->rule == PEAK_SEEN)
		return profile_peaks_seen(p, out);
	if (pp->rule != PEAK_PROMINENCE || pp->smooth < 1 || pp->smooth % 2 == 0 ||
	    !(pp->prominence >= 0))
		return -1;
	if (p->n <= 0 || !profile_calls(p))
		return 0;
	y = log_counts(p, pp->smooth);
	if (y && !cut_at_minima(y, p->n, &h)) {
		merge_shallow(y, &h, pp->prominence);
		rc = humps_to_peaks(p, &h, out);
	}
	free(h.cut);
	free(h.top);
	free(y);
	return rc;
}

/* ---- the peaks a person sees (the default rule) ----------------------------- */

/*
 * Is the valley at cut @k of @h real? Hump tops and the valley are counts.
 * Forced by an empty octave (@r empty buckets at resolution @r); else the
 * lower top must rise over the valley by three standard deviations of the
 * two counts (Poisson: sqrt(top + valley)) and to twice the valley. The
 * margin it has, in those deviations, is in *@z.
 */
static bool valley_holds(const struct profile *p, const double *c, const struct humps *h, int k,
			 double *z)
{
	double lo = fmin(h->top[k - 1], h->top[k]), v = c[h->cut[k]];
	int empty = 0;

	for (int i = h->cut[k]; i < p->n && !p->count[i]; i++)
		empty++;
	*z = (lo - v) / sqrt(lo + v + 1e-9);
	return empty >= p->resolution || (*z >= 3 && lo >= 2 * v);
}

/* Merge the humps around the weakest valley that does not hold, until all hold. */
static void merge_unreal(const struct profile *p, const double *c, struct humps *h)
{
	for (;;) {
		int worst = -1;
		double zmin = 0, z;
		for (int k = 1; k < h->n; k++)
			if (!valley_holds(p, c, h, k, &z) && (worst < 0 || z < zmin)) {
				worst = k;
				zmin = z;
			}
		if (worst < 0)
			return;
		h->top[worst - 1] = fmax(h->top[worst - 1], h->top[worst]);
		memmove(&h->cut[worst], &h->cut[worst + 1], (h->n - worst - 1) * sizeof(*h->cut));
		memmove(&h->top[worst], &h->top[worst + 1], (h->n - worst - 1) * sizeof(*h->top));
		h->n--;
	}
}

/* A tiny peak: fewer calls than 5 or 0.5% of all (the more), and under 5% of the latency. */
static bool tiny(const struct peak *q, uint64_t calls)
{
	return (double)q->calls < fmax(5, 0.005 * calls) && q->share_lat < 0.05;
}

/* Fold each tiny peak into its nearer neighbour (by empty buckets between). */
static int fold_tiny(const struct profile *p, struct peak *pk, int n)
{
	uint64_t calls = profile_calls(p);

	for (int k = 0; n > 1 && k < n;) {
		int into;
		if (!tiny(&pk[k], calls)) {
			k++;
			continue;
		}
		into = k == 0		      ? 1
		       : k == n - 1	      ? k - 1
		       : pk[k].lo - pk[k - 1].hi <= pk[k + 1].lo - pk[k].hi ? k - 1
									      : k + 1;
		pk[into].lo = pk[into].lo < pk[k].lo ? pk[into].lo : pk[k].lo;
		pk[into].hi = pk[into].hi > pk[k].hi ? pk[into].hi : pk[k].hi;
		memmove(&pk[k], &pk[k + 1], (n - k - 1) * sizeof(*pk));
		n--;
		profile_peak_stats(p, pk, n);
		k = 0; /* a merge changes the shares: look again */
	}
	return n;
}

int profile_peaks_seen(const struct profile *p, struct peak **out)
{
	struct humps h = {0};
	double *c = NULL;
	int n = -1;

	*out = NULL;
	if (p->n <= 0 || !profile_calls(p))
		return 0;
	c = malloc(p->n * sizeof(*c));
	if (c) {
		for (int i = 0; i < p->n; i++)
			c[i] = (double)p->count[i];
		if (!cut_at_minima(c, p->n, &h)) {
			merge_unreal(p, c, &h);
			n = humps_to_peaks(p, &h, out);
		}
	}
	if (n > 1)
		n = fold_tiny(p, *out, n);
	free(h.cut);
	free(h.top);
	free(c);
	return n;
}

/* ---- comparison --------------------------------------------------------- */

static const char *const method_names[CMP_METHODS] = {
    [CMP_TOTOPS] = "totops", [CMP_TOTLAT] = "totlat",	  [CMP_CHISQUARE] = "chisquare",
    [CMP_EMD] = "emd",	     [CMP_GROUPOPS] = "groupops", [CMP_GROUPLAT] = "grouplat",
};

const char *profile_cmp_method_name(int method)
{
	return method >= 0 && method < CMP_METHODS ? method_names[method] : "?";
}

int profile_cmp_method_of(const char *name)
{
	for (int m = 0; m < CMP_METHODS; m++)
		if (!strcmp(name, method_names[m]))
			return m;
	return -1;
}

/* Count of @p at bucket @b (0 outside it). */
static uint64_t at(const struct profile *p, int b)
{
	return b >= p->lo && b < p->lo + p->n ? p->count[b - p->lo] : 0;
}

static double rel_diff(double a, double b)
{
	return a > 0 ? fabs(a - b) / a * 100 : NAN;
}

/* The lower regularised incomplete gamma function P(s, x). */
static double gamma_p(double s, double x)
{
	double sum, term, f, c, d, del;

	if (x <= 0)
		return 0;
	if (x < s + 1) { /* the series */
		sum = term = 1 / s;
		for (int k = 1; k < 1000 && fabs(term) > fabs(sum) * 1e-15; k++) {
			term *= x / (s + k);
			sum += term;
		}
		return sum * exp(-x + s * log(x) - lgamma(s));
	}
	/* the continued fraction for Q = 1 - P (Lentz) */
	f = 1e-300;
	c = f;
	d = 0;
	for (int k = 1; k < 1000; k++) {
		double an = k == 1 ? 1 : -(k - 1) * (k - 1 - s), bn = x + 2 * k - 1 - s;
		d = bn + an * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = bn + an / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1 / d;
		del = c * d;
		f *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return 1 - exp(-x + s * log(x) - lgamma(s)) * f;
}

double profile_chi2_cdf(double x, double dof)
{
	return dof > 0 ? gamma_p(dof / 2, x / 2) : (x > 0 ? 1 : 0);
}

/* chi-square over the buckets where either profile has calls; dof = those - 1 */
static double chisquare(const struct profile *a, const struct profile *b, int lo, int hi)
{
	double chi2 = 0;
	int used = 0;

	for (int k = lo; k <= hi; k++) {
		double n = at(a, k), m = at(b, k);
		if (n + m > 0) {
			chi2 += (n - m) * (n - m) / (n + m);
			used++;
		}
	}
	return 100 * profile_chi2_cdf(chi2, used - 1);
}

/* Greedy 1-D earth mover's distance of the two normalised profiles, x 100. */
static double emd(const struct profile *a, const struct profile *b, int lo, int hi)
{
	double na = profile_calls(a), nb = profile_calls(b), carry = 0, d = 0;

	if (!nb)
		return 100 * (hi - lo + 1); /* all of A's mass has nowhere to go */
	for (int k = lo; k <= hi; k++) {
		carry += at(a, k) / na - at(b, k) / nb;
		d += fabs(carry);
	}
	return 100 * d;
}

/* Do the peaks of A and B lie at the same places (each pair overlapping)? */
static bool same_places(const struct peak *pa, const struct peak *pb, int n)
{
	for (int k = 0; k < n; k++)
		if (pa[k].hi < pb[k].lo || pb[k].hi < pa[k].lo)
			return false;
	return true;
}

/* Per peak, |A - B| summed, over A's sum, in percent: calls, or latency if @lat. */
static double per_peak(const struct peak *pa, const struct peak *pb, int n, bool lat)
{
	double sa = 0, sd = 0;

	for (int k = 0; k < n; k++) {
		double x = lat ? pa[k].lat_ns : pa[k].calls;
		double y = lat ? pb[k].lat_ns : pb[k].calls;
		sa += x;
		sd += fabs(x - y);
	}
	return sa > 0 ? 100 * sd / sa : NAN;
}

/* 100 when the two have different peaks (number or places), else per_peak(). */
static double group(const struct profile *a, const struct profile *b, bool lat,
		    const struct peak_params *pp)
{
	struct peak *pa = NULL, *pb = NULL;
	int na = profile_peaks(a, pp, &pa), nb = profile_peaks(b, pp, &pb);
	double d = 100;

	if (na < 0 || nb < 0)
		d = NAN;
	else if (na == nb && same_places(pa, pb, na))
		d = per_peak(pa, pb, na, lat);
	free(pa);
	free(pb);
	return d;
}

double profile_compare(const struct profile *a, const struct profile *b, int method,
		       const struct peak_params *pp)
{
	int lo = a->lo < b->lo ? a->lo : b->lo;
	int hi = a->lo + a->n > b->lo + b->n ? a->lo + a->n - 1 : b->lo + b->n - 1;
	double sa = 0, sb = 0;

	if (!profile_calls(a) || a->resolution != b->resolution)
		return NAN;
	switch (method) {
	case CMP_TOTOPS:
		return rel_diff(profile_calls(a), profile_calls(b));
	case CMP_TOTLAT:
		for (int k = lo; k <= hi; k++) {
			sa += at(a, k) * exp2((double)k / a->resolution);
			sb += at(b, k) * exp2((double)k / a->resolution);
		}
		return rel_diff(sa, sb);
	case CMP_CHISQUARE:
		return chisquare(a, b, lo, hi);
	case CMP_EMD:
		return emd(a, b, lo, hi);
	case CMP_GROUPOPS:
	case CMP_GROUPLAT:
		return group(a, b, method == CMP_GROUPLAT, pp);
	}
	return NAN;
}
