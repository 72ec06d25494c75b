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
#include "fmt.h"
#include "ftree.h"
#include "funcs.h"
#include "pipeline.h"

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
	"                       extension, plus .db); written to a temporary file and\n"
	"                       renamed at the end. An existing DB is replaced only\n"
	"                       when it is a darc database, never the recording itself\n"
	"  -f, --force          replace an existing DB even if it is not a darc database\n"
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
		{"force", no_argument, NULL, 'f'},
		{"top", required_argument, NULL, 't'},
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
		{"json", no_argument, NULL, OPT_JSON},
		{"indexes", no_argument, NULL, OPT_INDEXES},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct pipeline_opts po = PIPELINE_OPTS_INIT;
	struct pipeline_result res;
	char *out = NULL, *end;
	const char *path;
	int c, top = 10, rc = EXIT_INPUT;
	bool json = false, quiet = false, force = false;
	struct fmt_err err;

	po.progress = isatty(2);
	while ((c = getopt_long(argc, argv, "o:t:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
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
			po.max_depth = (int)strtol(optarg, &end, 10);
			if (*end || po.max_depth < 0) {
				darc_error("bad --max-depth '%s': a number expected", optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_INDEXES:
			po.indexes = true;
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
	c = pipeline_check_output(path, out, force, &err);
	if (c) {
		darc_error("%s%s", err.msg, c == -2 ? " (--force replaces it)" : "");
		goto out;
	}
	rc = pipeline_run(path, out, &po, quiet ? NULL : &res, &err);
	if (rc != PIPELINE_OK) {
		darc_error("%s", err.msg);
		goto out;
	}
	if (!quiet) {
		summary(res.ft, res.fs, out, top, json, res.events, res.seconds);
		pipeline_result_release(&res);
	}
	rc = EXIT_OK;
out:
	free(out);
	return rc;
}
