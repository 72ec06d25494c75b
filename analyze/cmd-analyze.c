// SPDX-License-Identifier: MIT
/*
 * darc analyze: a recording in, an SQLite database out (the ftree, every
 * call with its latency decomposition, the intervals behind it, and the
 * histograms), and a summary of the functions with the most latency.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <traceevent/event-parse.h>

#include "cmd.h"
#include "config.h"
#include "db.h"
#include "decode.h"
#include "fmt.h"
#include "ftree.h"
#include "funcs.h"

static const char usage_text[] =
	"usage: darc analyze [options] RECORDING\n\n"
	"Rebuild every task's call tree from a recording (function_graph, kprobe\n"
	"and uprobe pairs, system calls), split each call's latency into\n"
	"  incl = excl + children + irq + softirq + preempt + blocked  (ns)\n"
	"and write it all to an SQLite database: view call (every call), fnode\n"
	"(the ftree: a function per call path), hist (OSprof log2 histograms),\n"
	"irq_interval, sched_interval, wakeup, task, func, recording. See\n"
	"schema/README.md for the tables and views. Then print the functions with\n"
	"the most inclusive latency.\n\n"
	"  -o, --output DB      database to write (default: RECORDING without its\n"
	"                       extension, plus .db); replaced atomically\n"
	"  -t, --top N          functions in the summary (default 10)\n"
	"      --max-depth N    store call rows only for depth < N (the ftree,\n"
	"                       histograms and totals still count every call)\n"
	"      --indexes        also index the calls by function, fnode and task\n"
	"                       (faster queries on big recordings; about 2 s more\n"
	"                       per 2.8 M calls). A call's children are always\n"
	"                       indexed\n"
	"      --json           print the summary as JSON\n"
	"  -q, --quiet          no summary\n"
	"  -h, --help\n\n"
	"example:\n"
	"  darc analyze trace.dat -o trace.db\n"
	"  sqlite3 trace.db 'select * from slowest_calls limit 10'\n";

enum { OPT_MAX_DEPTH = 300, OPT_JSON, OPT_INDEXES };

struct run {
	struct db *db;
	struct fmt_reader *r;
	struct funcs *fs;
	int max_depth;
	int64_t calls_stored;
};

static int put_call(void *ctx, const struct call_rec *c)
{
	struct run *run = ctx;

	if (run->max_depth >= 0 && c->depth >= run->max_depth)
		return db_skip_call(run->db, c->id);
	run->calls_stored++;
	return db_put_call(run->db, c);
}

static int put_irq(void *ctx, const struct irq_rec *r)
{
	return db_put_irq(((struct run *)ctx)->db, r);
}

static int put_sched(void *ctx, const struct sched_rec *r)
{
	return db_put_sched(((struct run *)ctx)->db, r);
}

static int put_wakeup(void *ctx, const struct wakeup_rec *r)
{
	return db_put_wakeup(((struct run *)ctx)->db, r);
}

static int put_probe(void *ctx, const struct probe_rec *r)
{
	return db_put_probe(((struct run *)ctx)->db, r);
}

static int put_task(void *ctx, int32_t tid)
{
	struct run *run = ctx;
	struct task_rec t = {tid, DARC_NULL,
			     tep_data_comm_from_pid(fmt_reader_tep(run->r), tid)};

	return db_put_task(run->db, &t);
}

struct hist_ctx {
	struct db *db;
	struct hist_rec h;
};

static int put_bucket(void *ctx, int bucket, uint64_t count)
{
	struct hist_ctx *hc = ctx;

	hc->h.bucket = bucket;
	hc->h.count = (int64_t)count;
	return db_put_hist(hc->db, &hc->h);
}

/* All four resolutions of one distribution. */
static int put_hist(struct db *db, int owner_kind, int64_t owner, int metric, const struct hist *h)
{
	struct hist_ctx hc = {db, {owner_kind, owner, metric, 0, 0, 0}};

	for (int r = 1; r <= 4; r++) {
		hc.h.resolution = r;
		if (hist_each(h, r, put_bucket, &hc))
			return -1;
	}
	return 0;
}

/* Read the recording once more for what the decoder must know beforehand. */
static int prescan(struct decoder *dec, const char *path, struct fmt_err *err)
{
	struct fmt_reader *r = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, err);
	int rc = r ? decoder_prescan(dec, r, err) : -1;

	fmt_reader_close(r);
	return rc;
}

/* Default database name: the recording's name without extension, plus .db. */
static char *default_output(const char *rec)
{
	const char *base = strrchr(rec, '/');
	const char *dot;
	char *out;
	size_t n;

	base = base ? base + 1 : rec;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	out = malloc(n + 4);
	if (out)
		snprintf(out, n + 4, "%.*s.db", (int)n, base);
	return out;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Per-function totals for the summary, summed over the function's fnodes. */
struct ftot {
	int64_t func, calls, incl, excl, children, irq, softirq, preempt, blocked, max;
};

static int by_incl(const void *a, const void *b)
{
	const struct ftot *x = a, *y = b;
	return x->incl != y->incl ? (x->incl < y->incl ? 1 : -1) : (x->func > y->func) - (x->func < y->func);
}

struct hist_line {
	char *p;
	size_t left;
};

static int hist_text(void *ctx, int bucket, uint64_t count)
{
	struct hist_line *l = ctx;
	int n = snprintf(l->p, l->left, " %d:%" PRIu64, bucket, count);

	if (n < 0 || (size_t)n >= l->left)
		return 1;
	l->p += n;
	l->left -= n;
	return 0;
}

static int hist_json(void *ctx, int bucket, uint64_t count)
{
	char k[16];

	snprintf(k, sizeof(k), "%d", bucket);
	json_object_set_new(ctx, k, json_integer((json_int_t)count));
	return 0;
}

static void summary(struct ftree *ft, struct funcs *fs, const char *db, int top, bool json,
		    int64_t events, double secs)
{
	int64_t nf = funcs_count(fs);
	struct ftot *t = calloc(nf + 1, sizeof(*t));
	const struct ftree_stats *st = ftree_stats(ft);
	json_t *o = NULL, *arr = NULL;

	if (!t)
		return;
	for (int64_t f = 0; f <= nf; f++)
		t[f].func = f;
	for (int i = 0; i < ftree_nnodes(ft); i++) {
		const struct fnode_rec *n = &ftree_node(ft, i)->rec;
		struct ftot *x = &t[n->func_id];
		x->calls += n->calls;
		x->incl += n->incl_ns;
		x->excl += n->excl_ns;
		x->children += n->children_ns;
		x->irq += n->irq_ns;
		x->softirq += n->softirq_ns;
		x->preempt += n->preempt_ns;
		x->blocked += n->blocked_ns;
		if (n->max_ns > x->max)
			x->max = n->max_ns;
	}
	qsort(t, nf + 1, sizeof(*t), by_incl);
	if (json) {
		o = json_object();
		arr = json_array();
		json_object_set_new(o, "database", json_string(db));
		json_object_set_new(o, "events", json_integer(events));
		json_object_set_new(o, "seconds", json_real(secs));
		json_object_set_new(o, "calls", json_integer(st->calls));
		json_object_set_new(o, "complete", json_integer(st->complete));
		json_object_set_new(o, "no_entry", json_integer(st->no_entry));
		json_object_set_new(o, "no_exit", json_integer(st->no_exit));
		json_object_set_new(o, "gap", json_integer(st->gap));
		json_object_set_new(o, "clamped", json_integer(st->clamped));
		json_object_set_new(o, "irq_calls", json_integer(st->irq_calls));
		json_object_set_new(o, "fnodes", json_integer(ftree_nnodes(ft)));
		json_object_set_new(o, "functions", json_integer(nf));
		json_object_set_new(o, "tasks", json_integer(st->tasks));
		json_object_set_new(o, "irq_intervals", json_integer(st->irq_intervals));
		json_object_set_new(o, "sched_intervals", json_integer(st->sched_intervals));
		json_object_set_new(o, "wakeups", json_integer(st->wakeups));
		json_object_set_new(o, "lost_event_marks", json_integer(st->gaps));
	} else {
		printf("%s: %" PRId64 " events in %.2f s: %" PRId64 " calls (%" PRId64
		       " complete, %" PRId64 " without entry, %" PRId64 " without exit, %" PRId64
		       " across lost events), %d fnodes, %" PRId64 " functions, %" PRId64
		       " tasks\n",
		       db, events, secs, st->calls, st->complete, st->no_entry, st->no_exit, st->gap,
		       ftree_nnodes(ft), nf, st->tasks);
		printf("intervals: %" PRId64 " irq, %" PRId64 " off-cpu, %" PRId64 " wake-ups\n\n",
		       st->irq_intervals, st->sched_intervals, st->wakeups);
		if (top > 0 && t[0].calls)
			printf("top functions by total inclusive latency (us):\n");
	}
	for (int i = 0; i < top && i <= nf && t[i].calls; i++) {
		const struct ftot *x = &t[i];
		const struct func_rec *fr = funcs_get(fs, x->func);
		const struct hist *h = ftree_func_hist(ft, x->func, METRIC_INCL);
		if (json) {
			json_t *f = json_object(), *hb = json_object();
			json_object_set_new(f, "func", json_string(fr->name));
			json_object_set_new(f, "calls", json_integer(x->calls));
			json_object_set_new(f, "incl_ns", json_integer(x->incl));
			json_object_set_new(f, "excl_ns", json_integer(x->excl));
			json_object_set_new(f, "children_ns", json_integer(x->children));
			json_object_set_new(f, "irq_ns", json_integer(x->irq));
			json_object_set_new(f, "softirq_ns", json_integer(x->softirq));
			json_object_set_new(f, "preempt_ns", json_integer(x->preempt));
			json_object_set_new(f, "blocked_ns", json_integer(x->blocked));
			json_object_set_new(f, "max_ns", json_integer(x->max));
			if (h) {
				json_object_set_new(f, "p50_ns", json_integer(hist_quantile(h, .5)));
				json_object_set_new(f, "p99_ns", json_integer(hist_quantile(h, .99)));
				hist_each(h, 1, hist_json, hb);
			}
			json_object_set_new(f, "hist_log2_ns", hb);
			json_array_append_new(arr, f);
		} else {
			char line[1024];
			struct hist_line hl = {line, sizeof(line)};
			line[0] = 0;
			if (h)
				hist_each(h, 1, hist_text, &hl);
			printf("%3d. %-32s %9" PRId64 " calls  total %12.1f  mean %10.1f  max %10.1f\n",
			       i + 1, fr->name, x->calls, x->incl / 1e3,
			       x->incl / 1e3 / (x->calls ? x->calls : 1), x->max / 1e3);
			printf("     excl %.1f  children %.1f  irq %.1f  softirq %.1f  preempt %.1f  "
			       "blocked %.1f\n",
			       x->excl / 1e3, x->children / 1e3, x->irq / 1e3, x->softirq / 1e3,
			       x->preempt / 1e3, x->blocked / 1e3);
			printf("     log2(ns) buckets:%s\n", line);
		}
	}
	if (json) {
		json_object_set_new(o, "top", arr);
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
	}
	free(t);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"top", required_argument, NULL, 't'},
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
		{"json", no_argument, NULL, OPT_JSON},
		{"indexes", no_argument, NULL, OPT_INDEXES},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct run run = {.max_depth = -1};
	struct ftree_sink sink = {&run, put_call, put_irq, put_sched, put_wakeup, put_probe};
	struct ftree *ft = NULL;
	struct decoder *dec = NULL;
	char *out = NULL, *end;
	const char *path;
	int c, top = 10, rc = EXIT_INPUT;
	bool json = false, quiet = false, indexes = false, tty = isatty(2);
	struct fmt_err err;
	struct fmt_event ev;
	struct aev a;
	int64_t events = 0;
	uint64_t t_first = 0, t_last = 0;
	double t0 = now(), next_progress = t0 + 0.5;

	while ((c = getopt_long(argc, argv, "o:t:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			free(out);
			out = strdup(optarg);
			break;
		case 't':
			top = (int)strtol(optarg, &end, 10);
			if (*end || top < 0) {
				darc_error("bad --top '%s': a number expected", optarg);
				goto out;
			}
			break;
		case OPT_MAX_DEPTH:
			run.max_depth = (int)strtol(optarg, &end, 10);
			if (*end || run.max_depth < 0) {
				darc_error("bad --max-depth '%s': a number expected", optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_INDEXES:
			indexes = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(out);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		goto out;
	}
	path = argv[optind];
	if (!out && !(out = default_output(path))) {
		darc_error("out of memory");
		goto out;
	}
	run.r = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, &err);
	if (!run.r) {
		darc_error("%s", err.msg);
		goto out;
	}
	run.fs = funcs_new();
	{
		const struct fmt_info *info = fmt_reader_info(run.r);
		dec = run.fs ? decoder_new(run.r, run.fs, syscall_abi_of(info->uname)) : NULL;
	}
	ft = dec ? ftree_new(&sink) : NULL;
	if (!ft) {
		darc_error("out of memory");
		goto out;
	}
	if (decoder_needs_prescan(dec) && prescan(dec, path, &err)) {
		darc_error("%s", err.msg);
		goto out;
	}
	run.db = db_create(out, &err);
	if (!run.db) {
		darc_error("%s", err.msg);
		goto out;
	}
	db_set_call_indexes(run.db, indexes);
	rc = EXIT_ANALYSIS;
	for (;;) {
		int n = fmt_reader_next(run.r, &ev, &err);
		if (n < 0) {
			darc_error("%s", err.msg);
			rc = EXIT_INPUT;
			goto fail;
		}
		if (!n)
			break;
		if (!events++)
			t_first = ev.ts;
		t_last = ev.ts;
		if (decode(dec, &ev, &a)) {
			darc_error("%s", decoder_error(dec));
			rc = EXIT_INPUT;
			goto fail;
		}
		if (ftree_feed(ft, &a)) {
			darc_error("'%s': %s", path, ftree_error(ft));
			goto fail;
		}
		if (tty && !(events & 0xffff) && now() > next_progress) {
			next_progress = now() + 0.5;
			fprintf(stderr, "\rdarc: analyze: %.1f M events, %.1f s", events / 1e6,
				now() - t0);
		}
	}
	if (tty && now() - t0 > 0.5)
		fprintf(stderr, "\r\033[K");
	if (ftree_finish(ft)) {
		darc_error("'%s': %s", path, ftree_error(ft));
		goto fail;
	}
	/* what only the end knows: functions, tasks, the ftree, histograms, the recording */
	for (int64_t f = 1; f <= funcs_count(run.fs); f++) {
		const struct hist *h;
		if (db_put_func(run.db, funcs_get(run.fs, f)))
			goto dbfail;
		for (int m = METRIC_INCL; m <= METRIC_EXCL; m++)
			if ((h = ftree_func_hist(ft, f, m)) && put_hist(run.db, OWNER_FUNC, f, m, h))
				goto dbfail;
	}
	if (ftree_each_task(ft, put_task, &run))
		goto dbfail;
	for (int i = 0; i < ftree_nnodes(ft); i++) {
		const struct ftree_node *nd = ftree_node(ft, i);
		if (db_put_fnode(run.db, &nd->rec) ||
		    put_hist(run.db, OWNER_FNODE, nd->rec.id, METRIC_INCL, &nd->incl) ||
		    put_hist(run.db, OWNER_FNODE, nd->rec.id, METRIC_EXCL, &nd->excl))
			goto dbfail;
	}
	{
		const struct fmt_info *info = fmt_reader_info(run.r);
		char fmtname[64], opt[128];
		int64_t lost = 0, marks = 0;
		for (int b = 0; b < info->nbuffers; b++)
			for (int i = 0; i < info->buffers[b].ncpus; i++) {
				const struct fmt_cpu_stats *s = fmt_reader_cpu_stats(run.r, b, i);
				lost += s->lost;
				marks += s->lost_marks;
			}
		snprintf(fmtname, sizeof(fmtname), "%s v%d (%s)", info->format, info->version,
			 info->compression);
		snprintf(opt, sizeof(opt), "{\"max_depth\": %d}", run.max_depth);
		struct recording_rec rr = {path,
					   fmtname,
					   info->uname,
					   info->clock,
					   info->cpus,
					   events ? (int64_t)t_first : DARC_NULL,
					   events ? (int64_t)t_last : DARC_NULL,
					   events,
					   lost,
					   marks,
					   info->manifest_json,
					   DARC_VERSION,
					   opt};
		if (db_put_recording(run.db, &rr))
			goto dbfail;
	}
	if (db_finish(run.db, &err)) {
		run.db = NULL;
		darc_error("%s", err.msg);
		goto fail;
	}
	run.db = NULL;
	if (!quiet)
		summary(ft, run.fs, out, top, json, events, now() - t0);
	rc = EXIT_OK;
	goto out;
dbfail:
	/* the writer failed: db_finish says why, and leaves no database */
	if (db_finish(run.db, &err)) {
		darc_error("%s", err.msg);
	} else {
		darc_error("'%s': cannot write the database", out);
		unlink(out);
	}
	run.db = NULL;
fail:
	db_abort(run.db);
out:
	ftree_free(ft);
	decoder_free(dec);
	funcs_free(run.fs);
	fmt_reader_close(run.r);
	free(out);
	return rc;
}
