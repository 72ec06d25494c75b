// SPDX-License-Identifier: MIT
#include <errno.h>
#include "show.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "vis.h"
#include "jtext.h"
#define BAR 40 /* width of the distribution column */

void show_bucket_range(int b, int resolution, uint64_t *lo, uint64_t *hi)
{
	*lo = b ? (uint64_t)ceil(exp2((double)b / resolution)) : 0;
	*hi = (uint64_t)ceil(exp2((double)(b + 1) / resolution)) - 1;
	if (*hi < *lo)
		*hi = *lo;
}

const char *show_amount(double v, const char *unit, char *buf, size_t n)
{
	static const char *const ns_units[] = {"ns", "us", "ms", "s"};
	static const char *const counts[] = {"", "k", "M", "G"};
	bool cycles = !strcmp(unit, "cycles");
	double div = 1;
	int i = 0;

	while (i < 3 && v >= div * 1000) {
		div *= 1000;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%.0f%s", v, cycles ? "" : "ns");
	else
		snprintf(buf, n, "%.*f%s", v / div < 10 ? 2 : 1, v / div,
			 cycles ? counts[i] : ns_units[i]);
	return buf;
}

/* The number of the peak holding bucket @b, or 0. */
static int peak_of(const struct peak *pk, int npk, int b)
{
	for (int k = 0; k < npk; k++)
		if (b >= pk[k].lo && b <= pk[k].hi)
			return k + 1;
	return 0;
}

static void title(FILE *out, const struct show_ctx *c)
{
	fprintf(out, "%s: %s latency (%s), %" PRIu64 " calls", vis(c->what), c->metric, c->unit,
		c->info->calls);
	if (c->info->skipped)
		fprintf(out, " (%" PRIu64 " incomplete left out)", c->info->skipped);
	fprintf(out, "; recording %s\n", vis(c->recording));
}

/* One bucket's line: peak number, range, count, shares, mean, bar. */
static void bucket_line(FILE *out, const struct show_ctx *c, const struct profile *p, int i,
			int peak, uint64_t most)
{
	uint64_t lo, hi, n = p->count[i], calls = profile_calls(p);
	double lat = profile_latency(p);
	int w = most ? (int)(n * BAR / most) : 0;
	char num[16] = "", range[64], mean[32] = "";

	if (peak)
		snprintf(num, sizeof(num), "%d", peak);
	show_bucket_range(p->lo + i, p->resolution, &lo, &hi);
	snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, lo, hi);
	if (n)
		show_amount(p->lat_ns[i] / n, c->unit, mean, sizeof(mean));
	fprintf(out, "%4s %23s : %-8" PRIu64 " %6.1f%% %9s %6.1f%%  |%.*s%*s|\n", num, range, n,
		calls ? 100.0 * n / calls : 0, mean, lat > 0 ? 100 * p->lat_ns[i] / lat : 0, w,
		"****************************************", BAR - w, "");
}

void show_hist_text(FILE *out, const struct show_ctx *c, const struct profile *p,
		    const struct peak *pk, int npk)
{
	uint64_t most = 0;

	title(out, c);
	for (int i = 0; i < p->n; i++)
		most = p->count[i] > most ? p->count[i] : most;
	fprintf(out, "peak %23s : %-8s %7s %9s %7s  distribution\n", c->unit, "count", "calls",
		"mean", "latency");
	for (int i = 0; i < p->n; i++)
		bucket_line(out, c, p, i, peak_of(pk, npk, p->lo + i), most);
	show_peaks_text(out, c, pk, npk);
}

/* How the peaks were found: "(valleys of 3 deviations...)", "(prominence 2, ...)", "as given". */
static void peaks_header(FILE *out, const struct show_ctx *c, int npk)
{
	if (c->pp && c->pp->rule == PEAK_SEEN)
		fprintf(out, "%d peak%s (valleys of 3 deviations or an empty octave):\n", npk,
			npk == 1 ? "" : "s");
	else if (c->pp)
		fprintf(out, "%d peak%s (prominence %g, smoothing %d):\n", npk, npk == 1 ? "" : "s",
			c->pp->prominence, c->pp->smooth);
	else
		fprintf(out, "%d peak%s as given:\n", npk, npk == 1 ? "" : "s");
}

void show_peaks_text(FILE *out, const struct show_ctx *c, const struct peak *pk, int npk)
{
	char a[32], b[32], mean[32], max[32];

	peaks_header(out, c, npk);
	for (int k = 0; k < npk; k++) {
		const struct peak *q = &pk[k];
		uint64_t lo, hi, x;
		show_bucket_range(q->lo, c->resolution, &lo, &x);
		show_bucket_range(q->hi, c->resolution, &x, &hi);
		fprintf(out, "  %d: buckets %d-%d (%s .. %s): %" PRIu64 " calls (%.1f%%), %.1f%% of "
			     "the latency, mean %s, max %s\n",
			k + 1, q->lo, q->hi, show_amount(lo, c->unit, a, sizeof(a)),
			show_amount(hi + 1, c->unit, b, sizeof(b)), q->calls, 100 * q->share_calls,
			100 * q->share_lat,
			show_amount(q->calls ? q->lat_ns / q->calls : 0, c->unit, mean, sizeof(mean)),
			show_amount(q->max_ns, c->unit, max, sizeof(max)));
	}
}

/* One peak as JSON. */
static json_t *peak_json(const struct show_ctx *c, const struct peak *q, int k)
{
	uint64_t lo, hi, x;

	show_bucket_range(q->lo, c->resolution, &lo, &x);
	show_bucket_range(q->hi, c->resolution, &x, &hi);
	return json_pack("{si si si sI sI sI sf sf sf sf sI}", "peak", k + 1, "lo", q->lo, "hi",
			 q->hi, "lo_value", (json_int_t)lo, "hi_value", (json_int_t)hi, "calls",
			 (json_int_t)q->calls, "share_calls", q->share_calls, "share_latency",
			 q->share_lat, "latency", q->lat_ns, "mean",
			 q->calls ? q->lat_ns / q->calls : 0.0, "max", (json_int_t)q->max_ns);
}

json_t *show_peaks_json(const struct show_ctx *c, const struct profile *p, const struct peak *pk,
			int npk)
{
	json_t *a = json_array();

	(void)p;
	for (int k = 0; k < npk; k++)
		json_array_append_new(a, peak_json(c, &pk[k], k));
	return a;
}

void show_quant_text(FILE *out, const struct show_ctx *c)
{
	char a[32];

	if (!c->info->calls)
		return;
	fprintf(out, "percentiles:");
	for (int i = 0; i < NQUANT; i++)
		fprintf(out, " %s %s,", hist_quant_name[i],
			show_amount(c->info->quant.p[i], c->unit, a, sizeof(a)));
	fprintf(out, " max %s\n", show_amount(c->info->quant.max, c->unit, a, sizeof(a)));
}

json_t *show_with_quant(const struct show_ctx *c, json_t *j)
{
	static const char *const key[NQUANT] = {"p50", "p90", "p99", "p999"};
	const struct quant *q = &c->info->quant;
	json_t *o = json_object();

	for (int i = 0; i < NQUANT; i++)
		json_object_set_new(o, key[i], c->info->calls ? json_integer(q->p[i]) : json_null());
	json_object_set_new(o, "max", c->info->calls ? json_integer(q->max) : json_null());
	if (j)
		json_object_set_new(j, "percentiles", o);
	else
		json_decref(o);
	return j;
}

/* The head every JSON answer starts with: what, where, how. */
static json_t *head_json(const struct show_ctx *c)
{
	json_t *o = json_pack("{so so ss ss si}", "what", jtext(c->what), "recording", jtext(c->recording),
			      "metric", c->metric, "unit", c->unit, "resolution", c->resolution);

	if (c->info) {
		json_object_set_new(o, "calls", json_integer((json_int_t)c->info->calls));
		json_object_set_new(o, "incomplete_left_out",
				    json_integer((json_int_t)c->info->skipped));
	}
	if (c->pp && c->pp->rule == PEAK_SEEN)
		json_object_set_new(o, "peak_params", json_pack("{ss}", "rule", "seen"));
	else if (c->pp)
		json_object_set_new(o, "peak_params",
				    json_pack("{ss sf si}", "rule", "prominence", "prominence",
					      c->pp->prominence, "smooth", c->pp->smooth));
	return o;
}

static json_t *buckets_json(const struct profile *p, const struct peak *pk, int npk)
{
	uint64_t calls = profile_calls(p);
	double lat = profile_latency(p);
	json_t *a = json_array();

	for (int i = 0; i < p->n; i++) {
		uint64_t lo, hi, n = p->count[i];
		int k = peak_of(pk, npk, p->lo + i);
		show_bucket_range(p->lo + i, p->resolution, &lo, &hi);
		json_array_append_new(
		    a, json_pack("{si sI sI sI sf sf sf so}", "bucket", p->lo + i, "lo_value",
				 (json_int_t)lo, "hi_value", (json_int_t)hi, "count", (json_int_t)n,
				 "share_calls", calls ? (double)n / calls : 0.0, "mean",
				 n ? p->lat_ns[i] / n : 0.0, "share_latency",
				 lat > 0 ? p->lat_ns[i] / lat : 0.0, "peak",
				 k ? json_integer(k) : json_null()));
	}
	return a;
}

json_t *show_hist_json(const struct show_ctx *c, const struct profile *p, const struct peak *pk,
		       int npk)
{
	json_t *o = head_json(c);

	json_object_set_new(o, "buckets", buckets_json(p, pk, npk));
	json_object_set_new(o, "peaks", show_peaks_json(c, p, pk, npk));
	return o;
}

void show_timelapse_text(FILE *out, const struct show_ctx *c, const struct profile *rows,
			 int nrows, int64_t t0, int64_t interval)
{
	const struct profile *r0 = nrows ? &rows[0] : NULL;

	fprintf(out, "%s: %s latency (%s) per %.3g s window; counts per log2 bucket\n",
		vis(c->what), c->metric, c->unit, interval / 1e9);
	fprintf(out, "%10s", "t (s)");
	for (int i = 0; r0 && i < r0->n; i++)
		fprintf(out, " %6d", r0->lo + i);
	fputc('\n', out);
	for (int w = 0; w < nrows; w++) {
		fprintf(out, "%10.3f", (t0 + (double)w * interval) / 1e9);
		for (int i = 0; i < rows[w].n; i++)
			fprintf(out, " %6" PRIu64, rows[w].count[i]);
		fputc('\n', out);
	}
}

json_t *show_timelapse_json(const struct show_ctx *c, const struct profile *rows, int nrows,
			    int64_t t0, int64_t interval)
{
	json_t *o = head_json(c), *a = json_array();

	json_object_set_new(o, "interval_ns", json_integer(interval));
	json_object_set_new(o, "first_bucket", json_integer(nrows ? rows[0].lo : 0));
	for (int w = 0; w < nrows; w++) {
		json_t *counts = json_array();
		for (int i = 0; i < rows[w].n; i++)
			json_array_append_new(counts, json_integer((json_int_t)rows[w].count[i]));
		json_array_append_new(a, json_pack("{sI so}", "t_ns", (json_int_t)(t0 + w * interval),
						   "counts", counts));
	}
	json_object_set_new(o, "windows", a);
	return o;
}

int show_json(FILE *out, json_t *j)
{
	int rc = json_dumpf(jtext_clean(j), out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	fputc('\n', out);
	return rc || ferror(out) ? -1 : 0;
}

json_t *show_contract(const char *command, const char *key, json_t *payload)
{
	json_t *o;

	if (!payload)
		return NULL;
	o = json_pack("{ss ss}", "schema", SHOW_JSON_SCHEMA, "command", command);
	if (o && json_is_object(payload)) /* the payload's fields after these two */
		json_object_update_missing(o, payload);
	else if (o)
		json_object_set(o, key, payload);
	return o;
}

int show_json_to(FILE *out, const char *command, const char *key, json_t *j,
		 struct err_msg *err)
{
	json_t *all = show_contract(command, key, j);
	int rc = 0;

	if (!all) /* every name goes through jtext(): only memory can be missing */
		return err_setf(err, NULL, "cannot make the JSON output: out of memory");
	if (show_json(out, all))
		rc = err_setf(err, NULL, "cannot write the JSON output%s: %s",
			      out == stdout ? " to standard output" : "",
			      errno ? strerror(errno) : "I/O error");
	json_decref(all);
	return rc;
}
