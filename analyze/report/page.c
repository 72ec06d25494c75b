// SPDX-License-Identifier: MIT
/*
 * darc report: the recording as one HTML page that needs nothing else (no
 * network, no other file), to open first and to attach to a bug report.
 * Everything the page shows is one JSON object in it (the recording's
 * summary; darc explain's subjects with their search trees, causes and a
 * flame graph of each slow part's calls; each subject's histogram and
 * time lapse as the SVG plots darc hist draws; the traced program's longest
 * waits with their chains; the I/O layers), which the page's script
 * (page/script.js) lays out. Bounded: trees, flame graphs and plots are
 * summaries, never every call.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "explain-db.h"
#include "export-calls.h"
#include "io-bios.h"
#include "io-layers.h"
#include "jtext.h"
#include "page.h"
#include "progress.h"
#include "show.h"
#include "svg.h"
#include "waits.h"

/* page/head.html, page/style.css, page/script.js (embedded by schema/embed.c -p page) */
extern const char page_head_html[], page_style_css[], page_script_js[];

#define HEAT_WINDOWS 40 /* the time lapse's rows: the recording's span in this many windows */
#define TOP_TASKS 8
#define TOP_WAITS 5
/* the I/O layers of the entry point with the most latency, of its IO_CALLS slowest calls: darc io's
   subtree queries take seconds a call on a database of a million calls */
#define IO_ENTRIES 1
#define IO_CALLS 3

/* A stage of the work, said on a terminal from the start (progress.h). */
#define STAGE(pg, ...)                                  \
	do {                                            \
		if ((pg)->on)                           \
			progress_show((pg), __VA_ARGS__); \
	} while (0)

/* The first row of @q as a JSON object of its columns (named as in @q), or NULL. */
static json_t *row_json(struct rdb *db, const char *q)
{
	sqlite3_stmt *st;
	json_t *o = NULL;

	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		o = json_object();
		for (int i = 0; o && i < sqlite3_column_count(st); i++) {
			int t = sqlite3_column_type(st, i);
			json_object_set_new(o, sqlite3_column_name(st, i),
					    t == SQLITE_NULL	  ? json_null()
					    : t == SQLITE_INTEGER ? json_integer(sqlite3_column_int64(st, i))
					    : t == SQLITE_FLOAT	  ? json_real(sqlite3_column_double(st, i))
								  : jtext(rdb_text(st, i)));
		}
	}
	sqlite3_finalize(st);
	return o;
}

/* Which tool made a recording of @format (recording.format), a bundle being darc-record's. */
static const char *tool_of(const char *format, bool manifest)
{
	if (!strncmp(format, "trace.dat", 9))
		return manifest ? "darc-record" : "trace-cmd";
	if (!strncmp(format, "perf.data", 9))
		return "perf";
	if (!strncmp(format, "uftrace", 7))
		return "uftrace";
	if (!strncmp(format, "ftrace text", 11))
		return "ftrace (text)";
	return "?";
}

/* The recording: what table recording says, the counts, the busiest tasks. */
static json_t *recording_json(struct rdb *db)
{
	json_t *r = row_json(db, "SELECT source, format, kernel, clock, cpus, t_first, t_last,"
				 " t_last - t_first AS span_ns, events, lost_events, lost_marks,"
				 " lacks, darc_version, manifest IS NOT NULL AS bundle,"
				 " (SELECT count(*) FROM task) AS tasks,"
				 " (SELECT count(*) FROM func) AS functions,"
				 " (SELECT count(*) FROM call_base) AS calls,"
				 " (SELECT count(*) FROM bio) AS bios FROM recording");
	json_t *tasks = json_array();
	sqlite3_stmt *st;

	if (!r || !tasks) {
		json_decref(r);
		json_decref(tasks);
		return NULL;
	}
	json_t *format = json_object_get(r, "format");

	json_object_set_new(r, "tool",
			    jtext(tool_of(json_is_string(format) ? json_string_value(format) : "",
					  json_integer_value(json_object_get(r, "bundle")))));
	if (sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT b.task_id, coalesce(t.comm, '?'), count(*) FROM call_base b"
			       " LEFT JOIN task t ON t.tid = b.task_id GROUP BY b.task_id"
			       " ORDER BY 3 DESC, 1 LIMIT ?1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, TOP_TASKS);
		while (sqlite3_step(st) == SQLITE_ROW)
			json_array_append_new(tasks,
					      json_pack("{sI so sI}", "tid",
							(json_int_t)sqlite3_column_int64(st, 0), "comm",
							jtext(rdb_text(st, 1)), "calls",
							(json_int_t)sqlite3_column_int64(st, 2)));
		sqlite3_finalize(st);
	}
	json_object_set_new(r, "busiest", tasks);
	return r;
}

/* What an SVG plot is drawn from, for svg_string(). */
struct plot {
	const struct profile *p; /* the histogram, or the time lapse's rows */
	const struct peak *pk;
	int n;			 /* peaks, or rows */
	int64_t t0, interval;	 /* the time lapse's */
	const char *title, *subtitle;
};

static int draw_hist(FILE *f, const struct plot *x)
{
	return svg_hist(f, x->p, NULL, x->pk, x->n, x->title, x->subtitle, "ns");
}

static int draw_heat(FILE *f, const struct plot *x)
{
	return svg_heatmap(f, x->p, x->n, x->t0, x->interval, x->title, "ns");
}

/* The plot @draw makes of @x, as a JSON string; null if it could not be made. */
static json_t *svg_string(int (*draw)(FILE *, const struct plot *), const struct plot *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *s = NULL;

	if (f) {
		int rc = draw(f, x);
		if (!fclose(f) && !rc)
			s = json_stringn_nocheck(buf, len);
	}
	free(buf);
	return s ? s : json_null();
}

/* Subject @s's selection: its fnode, one bucket an octave (explain's). */
static struct call_selection subject_sel(const struct report_options *o, json_t *s)
{
	struct call_selection sel = o->sel;

	sel.func = NULL;
	sel.path = NULL;
	sel.fnode = json_integer_value(json_object_get(s, "fnode"));
	sel.resolution = 1;
	return sel;
}

/*
 * Subject @s's histogram with the peaks explain reads ({"lo", "count",
 * "lat_ns", "peaks": [[lo, hi]...], "svg"}), into @s as "hist".
 */
static int add_hist(struct rdb *db, const struct report_options *o, json_t *s, struct err_msg *err)
{
	struct call_selection sel = subject_sel(o, s);
	struct rdb_profile_info info;
	struct profile p;
	struct peak *pk = NULL;
	json_t *h, *count = json_array(), *lat = json_array(), *peaks = json_array();
	char title[256];
	int npk;

	if (rdb_profile_load(db, &sel, &p, &info, err))
		return -1;
	npk = profile_peaks_seen(&p, &pk);
	for (int i = 0; i < p.n; i++) {
		json_array_append_new(count, json_integer((json_int_t)p.count[i]));
		json_array_append_new(lat, json_real(p.lat_ns ? p.lat_ns[i] : 0));
	}
	for (int k = 0; k < npk; k++)
		json_array_append_new(peaks, json_pack("[ii]", pk[k].lo, pk[k].hi));
	snprintf(title, sizeof(title), "%s: latency of its %" PRIu64 " calls",
		 json_string_value(json_object_get(s, "title")), info.calls);
	h = json_pack("{si so so so so}", "lo", p.lo, "count", count, "lat_ns", lat, "peaks", peaks,
		      "svg",
		      svg_string(draw_hist, &(struct plot){&p, pk, npk > 0 ? npk : 0, 0, 0, title,
							  "log2 buckets; the peaks darc explain"
							  " sees, numbered; a bar's count on hover"}));
	json_object_set_new(s, "hist", h);
	free(pk);
	free(info.what);
	rdb_profile_release(&p);
	return npk < 0 ? err_setf(err, NULL, "out of memory") : 0;
}

/* Subject @s's time lapse over windows of @interval ns, into @s as "heat" ({"interval_ns", "svg"}). */
static int add_heat(struct rdb *db, const struct report_options *o, json_t *s, int64_t interval,
		    struct err_msg *err)
{
	struct call_selection sel = subject_sel(o, s);
	struct profile *rows = NULL;
	int64_t t0;
	int nrows;
	char title[256];

	if (rdb_profile_timelapse(db, &sel, interval, &rows, &nrows, &t0, err))
		return -1;
	snprintf(title, sizeof(title), "%s: its calls over time",
		 json_string_value(json_object_get(s, "title")));
	json_object_set_new(s, "heat",
			    json_pack("{sI si so}", "interval_ns", (json_int_t)interval, "windows",
				      nrows,
				      "svg",
				      svg_string(draw_heat, &(struct plot){rows, NULL, nrows, t0,
									   interval, title, NULL})));
	for (int i = 0; i < nrows; i++)
		rdb_profile_release(&rows[i]);
	free(rows);
	return 0;
}

/*
 * The traced program's longest waits with their chains: those of the task
 * whose entry points took the most time (explain's first subject's, if its
 * calls are one task's), as darc waits gives them.
 */
static json_t *waits_of(struct rdb *db)
{
	struct waits_sel ws = {0, 0, TOP_WAITS, WAITS_SLACK_DEFAULT};
	struct err_msg err = {""};

	ws.task = export_one_int(rdb_sql(db),
				 "SELECT c.task_id FROM call_base c JOIN fnode fn ON fn.id = c.fnode_id"
				 " WHERE fn.parent_id IS NULL AND c.incl_ns IS NOT NULL"
				 " AND c.task_id IN (SELECT task_id FROM sched_interval)"
				 " GROUP BY c.task_id ORDER BY sum(c.incl_ns) DESC LIMIT 1");
	return ws.task ? waits_json(db, &ws, &err) : json_array();
}

/* @a, or an empty array where it could not be had (the page says there is none). */
static json_t *or_empty(json_t *a)
{
	return a ? a : json_array();
}

/* The page's data: the recording, each subject with its plots, the waits, the I/O. */
static json_t *page_data(struct rdb *db, const struct report_options *o, int top,
			 struct progress *pg, struct err_msg *err)
{
	struct report_options x = *o;
	struct search_params sp = SEARCH_PARAMS_DEFAULT;
	json_t *d = json_pack("{ss so}", "darc", DARC_VERSION, "recording", recording_json(db));
	json_t *subjects, *s;
	int64_t span = json_integer_value(json_object_get(json_object_get(d, "recording"), "span_ns"));
	int nsubjects;
	size_t k;

	x.flame = true;
	STAGE(pg, "explaining the entry points");
	if (!d || !(subjects = explain_db_collect(db, &x, &sp, top, &nsubjects, err))) {
		json_decref(d);
		return NULL;
	}
	json_object_set_new(d, "subjects", subjects);
	json_object_set_new(d, "entry_points", json_integer(nsubjects));
	json_array_foreach(subjects, k, s) {
		STAGE(pg, "plotting %zu of %zu", k + 1, json_array_size(subjects));
		if (add_hist(db, o, s, err) ||
		    add_heat(db, o, s, span > HEAT_WINDOWS ? span / HEAT_WINDOWS : 1, err)) {
			json_decref(d);
			return NULL;
		}
	}
	STAGE(pg, "waits and I/O");
	json_object_set_new(d, "waits", or_empty(waits_of(db)));
	json_object_set_new(d, "io", json_pack("{so so}", "entry_points",
					       or_empty(io_entries_json(db, NULL, IO_ENTRIES, IO_CALLS, err)),
					       "devices", or_empty(io_devices_json(db))));
	return d;
}

int page_report(FILE *out, struct rdb *db, const struct report_options *o, int top,
		struct err_msg *err)
{
	struct progress pg;
	json_t *d;
	char *text;

	progress_start(&pg, "report", true);
	pg.next = pg.t0; /* each stage said from the start */
	d = page_data(db, o, top, &pg, err);
	progress_end(&pg);
	if (!d)
		return -1;
	text = json_dumps(jtext_clean(d), JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(d);
	if (!text)
		return err_setf(err, NULL, "cannot make the page's data: out of memory");
	fputs(page_head_html, out);
	fprintf(out, "<style>\n%s</style>\n</head>\n<body>\n<div id=\"darc-errors\"></div>\n"
		     "<main id=\"page\"></main>\n"
		     "<script type=\"application/json\" id=\"darc-data\">",
		page_style_css);
	/*
	 * Every '<' (only ever in a string) as \u003c: no "</script>" ends the
	 * data early, and no "<!--" with a "<script" after it (a name can hold
	 * anything) sends the HTML parser past the data's end.
	 */
	for (const char *p = text; *p; p++)
		if (*p == '<')
			fputs("\\u003c", out);
		else
			fputc(*p, out);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", page_script_js);
	free(text);
	return ferror(out) ? err_setf(err, NULL, "cannot write the page") : 0;
}
