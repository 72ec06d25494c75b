// SPDX-License-Identifier: MIT
#include "jtext.h"
#include "report.h"
#include "rows.h"
#include "show.h"
#include "svg.h"
#include "tracer-shift.h"
#include "vis.h"
#include "wfile.h"

#include <stdint.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* What the show functions need to know about @o's profile. */
static struct show_ctx ctx_of(struct rdb *db, const struct report_options *o,
			      const struct rdb_profile_info *info)
{
	return (struct show_ctx){.what = info->what,
				 .recording = rdb_source(db),
				 .metric = rdb_metric_name(o->sel.metric),
				 .unit = options_unit(o),
				 .resolution = o->sel.resolution,
				 .info = info,
				 .pp = o->npeaks ? NULL : &o->pp};
}

/* Print @j (consumed) as @command's output (show_json_to()); 0 or -1. */
static int put_json(FILE *out, const char *command, const char *key, json_t *j,
		    struct err_msg *err)
{
	int rc = show_json_to(out, command, key, j, err);

	json_decref(j);
	return rc;
}

/* What svg_hist() needs, for options_write_svg(). */
struct hist_svg {
	const struct profile *p, *q; /* the profile; a second one over it (diff), or NULL */
	const struct peak *pk;	     /* its peaks, shaded: pk[0..npk) */
	int npk;
	const struct show_ctx *c;    /* the selection, the unit and the names, for the title */
	const char *subtitle; /* or NULL: the calls, resolution and peaks */
};

static int write_hist_svg(void *ctx, FILE *f)
{
	const struct hist_svg *h = ctx;
	char title[512], sub[256];

	snprintf(title, sizeof(title), "%s (%s)", h->c->what, h->c->recording);
	snprintf(sub, sizeof(sub), "%s latency, %llu calls, %d bucket%s per octave, %d peak%s",
		 h->c->metric, (unsigned long long)(h->c->info ? h->c->info->calls : 0),
		 h->c->resolution, h->c->resolution == 1 ? "" : "s", h->npk,
		 h->npk == 1 ? "" : "s");
	return svg_hist(f, h->p, h->q, h->pk, h->npk, title, h->subtitle ? h->subtitle : sub,
			h->c->unit);
}

/* Each peak of array @peaks ({"lo", "hi", ...}) with its "tracer_shift". */
static void peaks_shift_json(json_t *peaks, const struct tracer_shift *t)
{
	json_t *q;
	size_t k;

	json_array_foreach(peaks, k, q) json_object_set_new(
	    q, "tracer_shift",
	    tracer_shift_range_json(t, json_integer_value(json_object_get(q, "lo")),
				    json_integer_value(json_object_get(q, "hi"))));
}

/* darc hist's JSON @o with the tracer's cost, and its shift per bucket and peak. */
static json_t *hist_shift_json(json_t *o, const struct tracer_shift *t)
{
	json_t *b;
	size_t k;

	json_object_set_new(o, "tracer_cost", tracer_shift_cost_json(t));
	json_array_foreach(json_object_get(o, "buckets"), k, b)
		json_object_set_new(
		    b, "tracer_shift",
		    tracer_shift_bucket_json(t, json_integer_value(json_object_get(b, "bucket"))));
	peaks_shift_json(json_object_get(o, "peaks"), t);
	return o;
}

/* A selection's profile with its peaks and the tracer's shift: what hist and peaks show. */
struct shown {
	struct profile p;
	struct rdb_profile_info info;
	struct tracer_shift t;
	struct peak *pk; /* options_peaks()'s */
	int npk;	 /* how many, or -1 when out of memory */
	struct show_ctx c;
};

/* Load @x for @o's selection: 0, or -1 with @err set (nothing held). */
static int shown_load(struct rdb *db, const struct report_options *o, struct shown *x,
		      struct err_msg *err)
{
	if (rdb_profile_load(db, &o->sel, &x->p, &x->info, err))
		return -1;
	if (tracer_shift_load(db, &o->sel, INT64_MIN, INT64_MAX, &x->t, err)) {
		free(x->info.what);
		rdb_profile_release(&x->p);
		return -1;
	}
	x->c = ctx_of(db, o, &x->info);
	x->pk = NULL;
	x->npk = options_peaks(o, &x->p, &x->pk);
	return 0;
}

static void shown_release(struct shown *x)
{
	tracer_shift_release(&x->t);
	free(x->pk);
	free(x->info.what);
	rdb_profile_release(&x->p);
}

int report_hist(FILE *out, struct rdb *db, const struct report_options *o, struct err_msg *err)
{
	struct shown x;
	int rc = 0;

	if (shown_load(db, o, &x, err))
		return -1;
	if (x.npk < 0)
		rc = err_setf(err, NULL, "out of memory");
	else if (o->json) {
		json_t *j = show_with_quant(&x.c, show_hist_json(&x.c, &x.p, x.pk, x.npk));
		rc = put_json(out, "hist", NULL, hist_shift_json(j, &x.t), err);
	} else {
		show_hist_text(out, &x.c, &x.p, x.pk, x.npk);
		show_quant_text(out, &x.c);
		tracer_shift_text(out, &x.t, x.c.unit, "");
	}
	if (!rc && o->svg) {
		struct hist_svg h = {&x.p, NULL, x.pk, x.npk, &x.c, NULL};
		rc = options_write_svg(o, write_hist_svg, &h, err);
	}
	shown_release(&x);
	return rc;
}

/* What svg_heatmap() needs: one profile per time window. */
struct heat_svg {
	const struct profile *rows; /* rows[0..nrows), one per window */
	int nrows;
	int64_t t0, interval; /* the first window's start and each one's length, ns */
	const struct show_ctx *c;
};

static int write_heat_svg(void *ctx, FILE *f)
{
	const struct heat_svg *h = ctx;
	char title[512];

	snprintf(title, sizeof(title), "%s (%s): %s latency over time", h->c->what,
		 h->c->recording, h->c->metric);
	return svg_heatmap(f, h->rows, h->nrows, h->t0, h->interval, title, h->c->unit);
}

int report_timelapse(FILE *out, struct rdb *db, const struct report_options *o, int64_t interval_ns,
		     struct err_msg *err)
{
	struct profile *rows = NULL, p;
	struct rdb_profile_info info;
	struct show_ctx c;
	int64_t t0;
	int nrows, rc = 0;

	/* the title and totals come from the whole selection */
	if (rdb_profile_load(db, &o->sel, &p, &info, err))
		return -1;
	rdb_profile_release(&p);
	if (rdb_profile_timelapse(db, &o->sel, interval_ns, &rows, &nrows, &t0, err)) {
		free(info.what);
		return -1;
	}
	c = ctx_of(db, o, &info);
	if (o->json)
		rc = put_json(out, "hist", NULL,
			      show_with_quant(&c, show_timelapse_json(&c, rows, nrows, t0, interval_ns)),
			      err);
	else
		show_timelapse_text(out, &c, rows, nrows, t0, interval_ns);
	if (!rc && o->svg) {
		struct heat_svg h = {rows, nrows, t0, interval_ns, &c};
		rc = options_write_svg(o, write_heat_svg, &h, err);
	}
	for (int i = 0; i < nrows; i++)
		rdb_profile_release(&rows[i]);
	free(rows);
	free(info.what);
	return rc;
}

/* How the peaks were had, and of which calls, as table peak's params (caller frees). */
static char *peak_params(const struct report_options *o)
{
	json_t *j = json_object();
	char *s;

	if (o->npeaks) {
		json_t *a = json_array();
		for (int k = 0; k < o->npeaks; k++)
			json_array_append_new(a, json_pack("[ii]", o->peaks[k].lo, o->peaks[k].hi));
		json_object_set_new(j, "given", a);
	} else if (o->pp.rule == PEAK_SEEN) {
		json_object_set_new(j, "rule", json_string("seen"));
	} else {
		json_object_set_new(j, "prominence", json_real(o->pp.prominence));
		json_object_set_new(j, "smooth", json_integer(o->pp.smooth));
	}
	options_filters_json(o, j);
	s = json_dumps(jtext_clean(j), JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return s;
}

/*
 * OSprof's aids for reading peaks: which functions were called as often as a
 * peak holds calls (a peak of 51 reads beside 51 submit_bio calls: those
 * reads went to the disk), and for two neighbouring peaks the wait that lock
 * contention would give: mean(left) x calls(right) / calls(left).
 */
static void explain_text(FILE *out, struct rdb *db, const struct show_ctx *c,
			 const struct peak *pk, int npk)
{
	char *names[3], amount[32];
	int64_t counts[3];

	for (int k = 0; k < npk; k++) {
		int n = rdb_funcs_with_calls(db, pk[k].calls, 0.05, names, counts, 3);
		fprintf(out, "  peak %d holds %llu calls;", k + 1, (unsigned long long)pk[k].calls);
		if (!n)
			fprintf(out, " no function was called as often (within 5%%)");
		for (int i = 0; i < n; i++) {
			fprintf(out, "%s %s (%lld)", i ? "," : " as often:", vis(names[i]),
				(long long)counts[i]);
			free(names[i]);
		}
		fputc('\n', out);
	}
	for (int k = 0; k + 1 < npk; k++) {
		double est = pk[k].calls ? pk[k].lat_ns / pk[k].calls * pk[k + 1].calls / pk[k].calls
					 : 0;
		fprintf(out, "  peaks %d and %d: if %d waited on a lock held for %d's time, "
			     "mean(%d) x calls(%d) / calls(%d) = %s\n",
			k + 1, k + 2, k + 2, k + 1, k + 1, k + 2, k + 1,
			show_amount(est, c->unit, amount, sizeof(amount)));
	}
}

int report_peaks(FILE *out, struct rdb *db, const struct report_options *o, int explain,
		 struct err_msg *err)
{
	struct shown x;
	char *params = NULL;
	int rc = 0;

	if (shown_load(db, o, &x, err))
		return -1;
	params = peak_params(o);
	if (x.npk < 0 || !params)
		rc = err_setf(err, NULL, "out of memory");
	else if (rdb_store_peaks(db, &o->sel, params, x.pk, x.npk, err))
		rc = -1;
	else if (o->json) {
		json_t *j = show_peaks_json(&x.c, &x.p, x.pk, x.npk);
		peaks_shift_json(j, &x.t);
		rc = put_json(out, "peaks", "peaks", j, err);
	} else {
		fprintf(out, "%s: %s latency (%s), %llu calls; recording %s\n", vis(x.c.what),
			x.c.metric, x.c.unit, (unsigned long long)x.info.calls, vis(x.c.recording));
		show_peaks_text(out, &x.c, x.pk, x.npk);
		tracer_shift_text(out, &x.t, x.c.unit, "");
		if (explain)
			explain_text(out, db, &x.c, x.pk, x.npk);
	}
	free(params);
	shown_release(&x);
	return rc;
}

/* ---- darc diff ------------------------------------------------------------- */

static const char *kind_name(int kind)
{
	return kind == OWNER_FUNC ? "func" : "path";
}

static const char *score_text(double v, char *buf, size_t n)
{
	if (isinf(v))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.1f", v);
	return buf;
}

/* One side of a pair in a line: calls and mean. */
static void side_text(FILE *out, uint64_t calls, double lat)
{
	char m[32];

	fprintf(out, " %9" PRIu64 " %9s", calls,
		calls ? show_amount(lat / calls, "ns", m, sizeof(m)) : "-");
}

/* The two histograms of @d in columns: range, count A, count B, two bars. */
static void side_by_side(FILE *out, const struct diff_pair *d)
{
	const struct profile *p[2] = {d->a, d->b};
	uint64_t most = 1;
	int lo = 1 << 30, hi = -1;

	for (int s = 0; s < 2; s++)
		for (int i = 0; p[s] && i < p[s]->n; i++)
			if (p[s]->count[i]) {
				int b = p[s]->lo + i;
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
				most = p[s]->count[i] > most ? p[s]->count[i] : most;
			}
	fprintf(out, "%23s : %9s %9s  %-22s %-22s\n", "ns", "A", "B", "A", "B");
	for (int b = lo; b <= hi; b++) {
		uint64_t c[2], rlo, rhi;
		char range[64];
		for (int s = 0; s < 2; s++) {
			int i = p[s] ? b - p[s]->lo : -1;
			c[s] = p[s] && i >= 0 && i < p[s]->n ? p[s]->count[i] : 0;
		}
		show_bucket_range(b, d->a ? d->a->resolution : d->b->resolution, &rlo, &rhi);
		snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, rlo, rhi);
		fprintf(out, "%23s : %9" PRIu64 " %9" PRIu64 "  |%-20.*s| |%-20.*s|\n", range, c[0],
			c[1], (int)(c[0] * 20 / most), "********************",
			(int)(c[1] * 20 / most), "********************");
	}
}

static void diff_text(FILE *out, struct rdb *a, struct rdb *b, const struct diff_opts *o,
		      const struct diff_result *r, int show)
{
	char sc[32];

	fprintf(out, "A: %s\nB: %s\n", vis(rdb_source(a)), vis(rdb_source(b)));
	fprintf(out,
		"%d pairs rated by %s (threshold %g), %d pruned (fewer than %d calls or "
		"under %g%% of the latency on both sides): %d differ\n",
		r->npairs, profile_cmp_method_name(o->method), o->threshold, r->pruned,
		o->min_calls, 100 * o->min_share, r->above);
	if (!r->above)
		fprintf(out, "nothing differs at or above the threshold\n");
	fprintf(out, "\n%4s %9s %4s %9s %9s %9s %9s  %s\n", "rank",
		profile_cmp_method_name(o->method), "kind", "calls A", "mean A", "calls B",
		"mean B", "function or path");
	for (int k = 0; k < r->npairs && k < (show > 10 ? show : 10); k++) {
		const struct diff_pair *d = &r->pairs[k];
		fprintf(out, "%4d %9s %4s", k + 1, score_text(d->score, sc, sizeof(sc)),
			kind_name(d->kind));
		side_text(out, d->calls_a, d->lat_a);
		side_text(out, d->calls_b, d->lat_b);
		fprintf(out, "  %s%s\n", vis(d->key),
			!d->a ? " (only in B)" : !d->b ? " (only in A)" : "");
	}
	for (int k = 0; k < r->npairs && k < show && k < r->above; k++) {
		fprintf(out, "\n%d. %s %s: %s %s\n", k + 1, kind_name(r->pairs[k].kind),
			vis(r->pairs[k].key), profile_cmp_method_name(o->method),
			score_text(r->pairs[k].score, sc, sizeof(sc)));
		side_by_side(out, &r->pairs[k]);
	}
}

static json_t *pair_json(const struct diff_pair *d)
{
	json_t *o = json_pack("{ss so sI sI sf sf}", "kind", kind_name(d->kind), "key", jtext(d->key),
			      "calls_a", (json_int_t)d->calls_a, "calls_b", (json_int_t)d->calls_b,
			      "latency_a", d->lat_a, "latency_b", d->lat_b);
	json_t *s = json_object();

	for (int m = 0; m < CMP_METHODS; m++)
		json_object_set_new(s, profile_cmp_method_name(m),
				    isfinite(d->scores[m]) ? json_real(d->scores[m]) : json_null());
	json_object_set_new(o, "scores", s);
	json_object_set_new(o, "only_in", json_string(!d->a ? "B" : !d->b ? "A" : ""));
	return o;
}

/*
 * The plot of the pair @o names, or else of the first ranked that both
 * recordings have (a function only one side has is a histogram beside
 * nothing), or the first ranked when none is on both: A's bars beside B's.
 */
static int diff_svg(struct rdb *a, struct rdb *b, const struct diff_opts *o,
		    const struct diff_result *r, struct err_msg *err)
{
	const struct diff_pair *d = NULL;
	char what[512], rec[1024], sub[256];

	for (int k = 0; k < r->npairs && !d; k++)
		if (o->pair ? !strcmp(r->pairs[k].key, o->pair)
			    : r->pairs[k].calls_a && r->pairs[k].calls_b)
			d = &r->pairs[k];
	if (!d && !o->pair && r->npairs)
		d = &r->pairs[0];
	if (!d)
		return err_setf(err, NULL,
				o->pair ? "no pair '%s' to plot (pruned?)" : "no pair to plot",
				o->pair);
	snprintf(what, sizeof(what), "%s: A (dark) vs B", d->key);
	snprintf(rec, sizeof(rec), "A %s, B %s", rdb_source(a), rdb_source(b));
	snprintf(sub, sizeof(sub), "%s latency: A %llu calls, B %llu calls; %s %.1f",
		 o->metric == RM_EXCL ? "excl" : "incl", (unsigned long long)d->calls_a,
		 (unsigned long long)d->calls_b, profile_cmp_method_name(o->method), d->score);
	{
		struct show_ctx c = {.what = what, .recording = rec,
				     .metric = o->metric == RM_EXCL ? "excl" : "incl", .unit = "ns",
				     .resolution = o->resolution};
		struct hist_svg h = {d->a, d->b, NULL, 0, &c, sub};
		return wfile_write(o->svg, &wfile_svg, o->force, write_hist_svg, &h, err);
	}
}

int report_diff(FILE *out, struct rdb *a, struct rdb *b, const struct diff_opts *o, int show,
		bool json, struct err_msg *err)
{
	struct diff_result r;
	int rc = 0;

	if (diff_run(a, b, o, &r, err)) {
		diff_release(&r);
		return -1;
	}
	if (o->svg && diff_svg(a, b, o, &r, err)) {
		diff_release(&r);
		return -1;
	}
	if (json) {
		json_t *j =
		    json_pack("{so so ss sf si si si so}", "a", jtext(rdb_source(a)), "b",
			      jtext(rdb_source(b)), "method", profile_cmp_method_name(o->method),
			      "threshold", o->threshold, "pairs", r.npairs, "pruned", r.pruned,
			      "differ", r.above, "ranked", json_array());
		for (int k = 0; k < r.npairs; k++)
			json_array_append_new(json_object_get(j, "ranked"), pair_json(&r.pairs[k]));
		rc = put_json(out, "diff", NULL, j, err);
	} else {
		diff_text(out, a, b, o, &r, show);
	}
	diff_release(&r);
	return rc;
}
