// SPDX-License-Identifier: MIT
/*
 * darc io --bios and --irqs: biolatency-style log2 histograms of each
 * device's bio stages (queue: submitted to issued; device: issued to
 * completed, once per request; total), with their peaks, and ReLayTracer's per-thread
 * interrupt table (how often and how long each thread was interrupted).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "io-bios.h"
#include "jtext.h"
#include "show.h"
#include "vis.h"

static const struct {
	const char *name, *expr, *which;
} stage[] = {
    {"queue", "b.t_issue - b.t_queue", "1"},
    /* per request, as biolatency: a merged bio shares its request's */
    {"device", "b.t_complete - b.t_issue", "b.flags & 1 = 0"},
    {"total", "b.t_complete - b.t_queue", "1"},
};

/* One device's stage as a histogram: text to @out, or JSON appended to @all. */
static int one_stage(FILE *out, struct rdb *db, int64_t dev, int s, json_t *all)
{
	struct peak_params pp = PEAK_PARAMS_DEFAULT;
	struct rdb_profile_info info = {0};
	struct profile p = {0};
	struct peak *pk = NULL;
	sqlite3_stmt *st;
	char q[256], what[64];
	int npk = 0, rc = -1;

	snprintf(q, sizeof(q), "SELECT %s FROM bio b WHERE b.dev = ?1 AND %s ORDER BY b.id",
		 stage[s].expr, stage[s].which);
	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, dev);
	if (rdb_profile_values(st, 1, &p, &info.skipped))
		goto out;
	info.calls = profile_calls(&p);
	snprintf(what, sizeof(what), "bios of device %" PRId64 ":%" PRId64, dev >> 20,
		 dev & 0xfffff);
	info.what = what;
	struct show_ctx c = {what, rdb_path(db), stage[s].name, "ns", 1, &info, &pp};
	npk = info.calls ? profile_peaks(&p, &pp, &pk) : 0;
	if (npk < 0)
		goto out;
	if (all)
		json_array_append_new(all, json_pack("{sI ss so}", "dev", (json_int_t)dev, "stage",
						     stage[s].name, "hist",
						     show_hist_json(&c, &p, pk, npk)));
	else if (info.calls)
		show_hist_text(out, &c, &p, pk, npk);
	else
		fprintf(out, "%s: %s latency: no bio has both times\n", what, stage[s].name);
	rc = 0;
out:
	sqlite3_finalize(st);
	rdb_profile_release(&p);
	free(pk);
	return rc;
}

int io_bios_report(FILE *out, struct rdb *db, bool json, struct err_msg *err)
{
	sqlite3_stmt *st;
	json_t *all = json ? json_array() : NULL;
	int n = 0, rc = 0;

	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT DISTINCT dev FROM bio ORDER BY dev", -1, &st,
			       NULL) != SQLITE_OK)
		return err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
	while (!rc && sqlite3_step(st) == SQLITE_ROW)
		for (int s = 0; !rc && s < 3; s++, n++) {
			if (!json && n)
				fputc('\n', out);
			rc = one_stage(out, db, sqlite3_column_int64(st, 0), s, all);
		}
	sqlite3_finalize(st);
	if (rc)
		rc = err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
	else if (!n)
		rc = err_setf(err, rdb_path(db), "no bios (record block events: block_bio_queue, "
						 "block_rq_issue, block_rq_complete)");
	else if (json)
		rc = show_json_to(out, "io", "stages", all, err);
	json_decref(all);
	return rc;
}

/* The device times (issued to completed, once per request) of device @dev's bios, sorted. */
static int64_t *device_times(struct rdb *db, int64_t dev, int *n)
{
	sqlite3_stmt *st;
	int64_t *v = NULL;
	int cap = 0;

	*n = 0;
	if (sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT b.t_complete - b.t_issue FROM bio b WHERE b.dev = ?1 AND"
			       " b.flags & 1 = 0 AND b.t_complete >= b.t_issue ORDER BY 1",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, dev);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			int64_t *a = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
			if (!a)
				break;
			v = a;
		}
		v[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

json_t *io_devices_json(struct rdb *db)
{
	static const char q[] = "SELECT dev, count(*), avg(t_issue - t_queue) FROM bio"
				" GROUP BY dev ORDER BY dev";
	json_t *all = json_array();
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return all;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(st, 0), *v;
		int n;
		json_t *d = json_pack("{sI sI sf}", "dev", (json_int_t)dev, "bios",
				      (json_int_t)sqlite3_column_int64(st, 1), "queue_mean_ns",
				      sqlite3_column_double(st, 2));
		v = device_times(db, dev, &n);
		json_object_set_new(d, "requests", json_integer(n));
		if (n) {
			json_object_set_new(d, "device_p50_ns", json_integer(v[(n - 1) / 2]));
			json_object_set_new(d, "device_p90_ns", json_integer(v[(n - 1) * 9 / 10]));
			json_object_set_new(d, "device_max_ns", json_integer(v[n - 1]));
		}
		free(v);
		json_array_append_new(all, d);
	}
	sqlite3_finalize(st);
	return all;
}

void io_devices_text(FILE *out, json_t *devs)
{
	char a[32], b[32], c[32], m[32];
	json_t *d;
	size_t i;

	fprintf(out, "\nThe bios per device (darc io --bios: their histograms):\n");
	if (!json_array_size(devs))
		fprintf(out, "no bios (record block events: block_bio_queue, block_rq_issue,"
			     " block_rq_complete)\n");
	json_array_foreach(devs, i, d) {
		json_int_t dev = json_integer_value(json_object_get(d, "dev"));
		fprintf(out, "device %lld:%lld: %lld bios, queued %s on average", dev >> 20,
			dev & 0xfffff, json_integer_value(json_object_get(d, "bios")),
			show_amount(json_real_value(json_object_get(d, "queue_mean_ns")), "ns", m,
				    sizeof(m)));
		if (json_object_get(d, "device_max_ns"))
			fprintf(out, "; %lld requests on the device: p50 %s, p90 %s, max %s",
				json_integer_value(json_object_get(d, "requests")),
				show_amount(json_integer_value(json_object_get(d, "device_p50_ns")),
					    "ns", a, sizeof(a)),
				show_amount(json_integer_value(json_object_get(d, "device_p90_ns")),
					    "ns", b, sizeof(b)),
				show_amount(json_integer_value(json_object_get(d, "device_max_ns")),
					    "ns", c, sizeof(c)));
		fputc('\n', out);
	}
}

static const char irqs_sql[] =
    "SELECT i.task_id, coalesce(t.comm, '?'), coalesce(k.name, '?'), count(*),"
    " sum(i.t_end - i.t_start) AS total, max(i.t_end - i.t_start), count(i.call_id)"
    " FROM irq_interval i LEFT JOIN task t ON t.tid = i.task_id"
    " LEFT JOIN irq_kind k ON k.kind = i.kind WHERE i.t_end IS NOT NULL AND i.t_start IS NOT NULL"
    " GROUP BY i.task_id, i.kind ORDER BY total DESC, i.task_id, i.kind LIMIT ?1";

int io_irqs_report(FILE *out, struct rdb *db, int top, bool json, struct err_msg *err)
{
	sqlite3_stmt *st;
	json_t *all = json_array();
	size_t i;
	json_t *r;
	int rc = 0;
	char a[32], b[32];

	if (sqlite3_prepare_v2(rdb_sql(db), irqs_sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(all);
		return err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
	}
	sqlite3_bind_int(st, 1, top);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(
		    all, json_pack("{sI so so sI sI sI sI}", "tid",
				   (json_int_t)sqlite3_column_int64(st, 0), "comm",
				   jtext(rdb_text(st, 1)), "kind", jtext(rdb_text(st, 2)),
				   "count", (json_int_t)sqlite3_column_int64(st, 3), "total_ns",
				   (json_int_t)sqlite3_column_int64(st, 4), "max_ns",
				   (json_int_t)sqlite3_column_int64(st, 5), "in_calls",
				   (json_int_t)sqlite3_column_int64(st, 6)));
	sqlite3_finalize(st);
	if (!json_array_size(all))
		rc = err_setf(err, rdb_path(db),
			      "no interrupts (record irq events: irq_handler_entry/"
			      "exit, softirq_entry/exit)");
	else if (json)
		rc = show_json_to(out, "io", "irqs", all, err);
	else {
		fprintf(out, "%8s %-16s %-8s %8s %10s %10s %8s\n", "tid", "comm", "kind", "count",
			"total", "max", "in calls");
		json_array_foreach(all, i, r)
			fprintf(out, "%8lld %-16s %-8s %8lld %10s %10s %8lld\n",
				json_integer_value(json_object_get(r, "tid")),
				vis(json_string_value(json_object_get(r, "comm"))),
				vis(json_string_value(json_object_get(r, "kind"))),
				json_integer_value(json_object_get(r, "count")),
				show_amount(json_integer_value(json_object_get(r, "total_ns")), "ns", a,
					    sizeof(a)),
				show_amount(json_integer_value(json_object_get(r, "max_ns")), "ns", b,
					    sizeof(b)),
				json_integer_value(json_object_get(r, "in_calls")));
	}
	json_decref(all);
	return rc;
}
