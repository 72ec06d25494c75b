// SPDX-License-Identifier: MIT
/*
 * darc analyze: a recording in, an SQLite database out (the ftree, every
 * call with its latency decomposition, the intervals behind it, and the
 * histograms), and a summary of the functions with the most latency.
 */
#include <inttypes.h>
#include <limits.h>
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
#include "err-msg.h"
#include "ftree.h"
#include "funcs.h"
#include "number.h"
#include "pipeline.h"
#include "summary.h"

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
	"  -o, --output DB      database to write (default: beside RECORDING, its name\n"
	"                       without the extension plus .db: dir/x.dat -> dir/x.db,\n"
	"                       where every command looks for it); written to a\n"
	"                       temporary file and renamed at the end. An existing DB\n"
	"                       is replaced only when it is a darc database, never a\n"
	"                       file the command reads nor one that is not regular\n"
	"  -f, --force          replace an existing DB even if it is not a darc database\n"
	"  -t, --top N          functions in the summary (default 10)\n"
	"      --max-depth N    store call rows only for depth < N (the ftree,\n"
	"                       histograms and totals still count every call)\n"
	"      --indexes        also index the calls by function, fnode and task\n"
	"                       (faster queries on big recordings; about 2 s more\n"
	"                       per 2.8 M calls). A call's children are always\n"
	"                       indexed\n"
	"      --json           print the summary as JSON\n"
	"      --all            the tracer's own functions in the summary too (probe\n"
	"                       handlers, ftrace: func.overhead; left out by default)\n"
	"  -q, --quiet          no summary\n"
	"  -h, --help\n\n"
	"example:\n"
	"  darc analyze trace.dat -o trace.db\n"
	"  sqlite3 -header trace.db \"SELECT * FROM slowest_calls WHERE func = 'vfs_read' LIMIT 5\"\n";

enum { OPT_MAX_DEPTH = 300, OPT_JSON, OPT_INDEXES, OPT_ALL };

struct args {
	struct pipeline_opts po;
	const char *out; /* -o: the database, else the one beside the recording */
	struct summary_opts so;
	bool quiet, force;
	bool summary_given; /* --top, --json or --all: the summary's, which -q drops */
};

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	struct args *a = args;
	long long v;

	a->summary_given |= c == 't' || c == OPT_JSON || c == OPT_ALL;
	switch (c) {
	case 'f':
		a->force = true;
		break;
	case 'o':
		a->out = arg;
		break;
	case 't':
	case OPT_MAX_DEPTH: {
		int *n = c == 't' ? &a->so.top : &a->po.max_depth;

		if (number_int(arg, &v) || v < 0 || v > INT_MAX) /* not wrapped by the cast */
			return err_setf(err, NULL, "a number from 0 to %d expected", INT_MAX);
		*n = (int)v;
		break;
	}
	case OPT_JSON:
		a->so.json = true;
		break;
	case OPT_ALL:
		a->so.all = true;
		break;
	case OPT_INDEXES:
		a->po.indexes = true;
		break;
	case 'q':
		a->quiet = true;
		break;
	default:
		return -1;
	}
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	const struct args *a = args;

	if (a->quiet && a->summary_given)
		return err_setf(&ctx->err, NULL, "--top, --json and --all shape the summary that -q"
						 " leaves out: give one or the other"),
		       OPTION_BAD;
	return OPTION_OK;
}

/* Analyze the recording into the database, then say what it holds (summary.c). */
static int analyze(const char *path, const char *out, struct args *a, struct err_msg *err)
{
	struct pipeline_result res;
	const char *hint;

	wfile_note_input(path);
	if (db_check_output(out, a->force, err))
		return -1;
	a->po.force = a->force;
	a->po.progress = true; /* where stderr is a terminal */
	if (pipeline_run(path, out, &a->po, a->quiet ? NULL : &res, err) != PIPELINE_OK)
		return -1;
	if (a->quiet)
		return 0;
	hint = summary_no_calls_hint(&res);
	summary_print(stdout, &res, path, out, &a->so);
	if (hint)
		fprintf(stderr, "darc: note: '%s': %s\n", path, hint);
	pipeline_result_release(&res);
	return 0;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;
	char *out = a->out ? strdup(a->out) : pipeline_db_path(ctx->args[0]);
	int rc;

	if (!out)
		return err_setf(&ctx->err, NULL, "out of memory");
	rc = analyze(ctx->args[0], out, a, &ctx->err);
	free(out);
	return rc;
}

static const struct option opts[] = {
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{"top", required_argument, NULL, 't'},
	{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
	{"json", no_argument, NULL, OPT_JSON},
	{"all", no_argument, NULL, OPT_ALL},
	{"indexes", no_argument, NULL, OPT_INDEXES},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {.po = PIPELINE_OPTS_INIT, .so = {10, false, false}};

const struct cmd cmd_analyze = {
	.usage_head = usage_text, .opts = opts, .shortopts = "o:t:fqh", .take = take,
	.check = check, .run = run, .args = &args, .nargs = 1,
};
