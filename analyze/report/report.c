// SPDX-License-Identifier: MIT
#include "report.h"

#include <stdint.h>
#include <stdlib.h>

#include "show.h"

/* What the show functions need to know about @o's profile. */
static struct show_ctx ctx_of(struct rdb *db, const struct ropt *o,
			      const struct rprofile_info *info)
{
	return (struct show_ctx){.what = info->what,
				 .recording = rdb_source(db),
				 .metric = rmetric_name(o->sel.metric),
				 .unit = ropt_unit(o),
				 .resolution = o->sel.resolution,
				 .info = info,
				 .pp = o->npeaks ? NULL : &o->pp};
}

/* Print @j (consumed); 0 or -1. */
static int put_json(FILE *out, json_t *j, struct fmt_err *err)
{
	int rc = j ? show_json(out, j) : -1;

	json_decref(j);
	return rc ? fmt_errf(err, NULL, "cannot write the output") : 0;
}

int report_hist(FILE *out, struct rdb *db, const struct ropt *o, struct fmt_err *err)
{
	struct profile p;
	struct rprofile_info info;
	struct peak *pk = NULL;
	struct show_ctx c;
	int npk, rc = 0;

	if (rprofile_load(db, &o->sel, &p, &info, err))
		return -1;
	c = ctx_of(db, o, &info);
	npk = ropt_peaks(o, &p, &pk);
	if (npk < 0)
		rc = fmt_errf(err, NULL, "out of memory");
	else if (o->json)
		rc = put_json(out, show_hist_json(&c, &p, pk, npk), err);
	else
		show_hist_text(out, &c, &p, pk, npk);
	free(pk);
	free(info.what);
	rprofile_release(&p);
	return rc;
}

int report_timelapse(FILE *out, struct rdb *db, const struct ropt *o, int64_t interval_ns,
		     struct fmt_err *err)
{
	struct profile *rows = NULL, p;
	struct rprofile_info info;
	struct show_ctx c;
	int64_t t0;
	int nrows, rc = 0;

	/* the title and totals come from the whole selection */
	if (rprofile_load(db, &o->sel, &p, &info, err))
		return -1;
	rprofile_release(&p);
	if (rprofile_timelapse(db, &o->sel, interval_ns, &rows, &nrows, &t0, err)) {
		free(info.what);
		return -1;
	}
	c = ctx_of(db, o, &info);
	if (o->json)
		rc = put_json(out, show_timelapse_json(&c, rows, nrows, t0, interval_ns), err);
	else
		show_timelapse_text(out, &c, rows, nrows, t0, interval_ns);
	for (int i = 0; i < nrows; i++)
		rprofile_release(&rows[i]);
	free(rows);
	free(info.what);
	return rc;
}

/* How the peaks were had, and of which calls, as table peak's params (caller frees). */
static char *peak_params(const struct ropt *o)
{
	json_t *j = json_object();
	char *s;

	if (o->npeaks) {
		json_t *a = json_array();
		for (int k = 0; k < o->npeaks; k++)
			json_array_append_new(a, json_pack("[ii]", o->peaks[k].lo, o->peaks[k].hi));
		json_object_set_new(j, "given", a);
	} else {
		json_object_set_new(j, "prominence", json_real(o->pp.prominence));
		json_object_set_new(j, "smooth", json_integer(o->pp.smooth));
	}
	if (o->sel.task)
		json_object_set_new(j, "task", json_integer(o->sel.task));
	if (o->sel.comm)
		json_object_set_new(j, "comm", json_string(o->sel.comm));
	if (o->sel.t_lo != INT64_MIN || o->sel.t_hi != INT64_MAX)
		json_object_set_new(j, "time_ns", json_pack("[II]", (json_int_t)o->sel.t_lo,
							    (json_int_t)o->sel.t_hi));
	if (o->cycles)
		json_object_set_new(j, "cpu_mhz", json_real(o->cpu_mhz));
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
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
			fprintf(out, "%s %s (%lld)", i ? "," : " as often:", names[i],
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

int report_peaks(FILE *out, struct rdb *db, const struct ropt *o, int explain,
		 struct fmt_err *err)
{
	struct profile p;
	struct rprofile_info info;
	struct peak *pk = NULL;
	struct show_ctx c;
	char *params = NULL;
	int npk, rc = 0;

	if (rprofile_load(db, &o->sel, &p, &info, err))
		return -1;
	c = ctx_of(db, o, &info);
	npk = ropt_peaks(o, &p, &pk);
	params = peak_params(o);
	if (npk < 0 || !params)
		rc = fmt_errf(err, NULL, "out of memory");
	else if (rdb_store_peaks(db, &o->sel, params, pk, npk, err))
		rc = -1;
	else if (o->json)
		rc = put_json(out, show_peaks_json(&c, &p, pk, npk), err);
	else {
		fprintf(out, "%s: %s latency (%s), %llu calls; recording %s\n", c.what, c.metric,
			c.unit, (unsigned long long)info.calls, c.recording);
		show_peaks_text(out, &c, pk, npk);
		if (explain)
			explain_text(out, db, &c, pk, npk);
	}
	free(params);
	free(pk);
	free(info.what);
	rprofile_release(&p);
	return rc;
}
