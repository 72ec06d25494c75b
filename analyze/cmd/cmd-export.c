// SPDX-License-Identifier: MIT
/*
 * darc export: the calls as folded stacks (flame graphs) or as Trace Event
 * Format JSON (timelines), for the tools people already use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "perfetto.h"
#include "vis.h"
#include "wfile.h"

static const char usage_head[] =
    "usage: darc export [options] DB|RECORDING (--folded | --chrome | --speedscope |\n"
    "                   --perfetto) [-o FILE]\n\n"
    "The calls of a darc database in the formats of other tools. Given a\n"
    "recording, darc analyzes it into RECORDING.db first (and reuses that).\n\n"
    "  --folded   folded stacks, one line per call path: 'root;child;leaf WEIGHT',\n"
    "             for flamegraph.pl, inferno, speedscope... The weight of a path\n"
    "             is summed over its complete calls (fnode table, or the calls\n"
    "             when --task, --comm, --time or --root ask for them):\n"
    "      --metric M   excl (default): the calls' own CPU time, excl_ns;\n"
    "                   incl: incl_ns - children_ns, so each frame is as wide as its\n"
    "                   incl_ns; calls: how many; irq, softirq, preempt, blocked:\n"
    "                   that part of the latency; offcpu: preempt + blocked\n"
    "      --off-cpu    off-CPU stacks: the sleeps (sched_interval) of each call\n"
    "                   path, each path ending in a frame naming the wait's kind\n"
    "                   ([blocking I/O], [timed out], ...; view wait); --metric\n"
    "                   blocked (default), preempt or offcpu\n"
    "      --root R     a first frame naming the task: comm, or tid (comm-tid);\n"
    "                   none (default)\n"
    "  --chrome   Trace Event Format JSON, for Perfetto (https://ui.perfetto.dev)\n"
    "             and chrome://tracing: an X event per complete call on its\n"
    "             task's thread (ts and dur in us, ns as decimals, from the\n"
    "             recording's first event), its id, CPU, flags and the parts of\n"
    "             its latency that are not 0 as args; each task's off-CPU\n"
    "             intervals on a thread of its own, and each CPU's interrupts\n"
    "             in a process 'interrupts'\n"
    "  --speedscope  speedscope's own JSON (https://speedscope.app): a timeline\n"
    "             per task of its complete calls, frames named by function, so\n"
    "             its left-heavy and sandwich views add up each function's\n"
    "             calls; it opens on the traced program's busiest task\n"
    "  --perfetto  Perfetto's own trace format (protobuf), for ui.perfetto.dev and\n"
    "             trace_processor: a track per process and thread, a slice per\n"
    "             complete call (its id, CPU, flags and latency parts as\n"
    "             arguments); the thread states (sleeping S or D, runnable, running\n"
    "             on a CPU) from the off-CPU intervals; each wake-up that ended a\n"
    "             sleep as a flow from the waker; the interrupts, a track per CPU;\n"
    "             and the findings darc explain stored: a track per slow part with\n"
    "             its causes, its calls marked (category darc.slow)\n"
    "  -o FILE    write FILE (whole, or not at all) instead of stdout\n"
    "Calls whose entry or exit the recording lacks are left out (their time is\n"
    "unknown).\n\n"
    "which calls (default all; the subtrees of):\n" OPTION_HELP_CALLS;
static const char usage_tail[] =
    "  -h, --help\n\n"
    "view:\n"
    "    darc export run.db --folded | flamegraph.pl > fg.svg\n"
    "    darc export run.db --chrome -o run.json; then open it in ui.perfetto.dev\n"
    "    darc export run.db --speedscope -o run.speedscope.json; speedscope\n"
    "    run.speedscope.json ('npm install -g speedscope'), or drop the file on\n"
    "    https://speedscope.app (also reads --folded)\n"
    "    darc explain run.db; darc export run.db --perfetto -o run.pftrace; then open\n"
    "    it in ui.perfetto.dev, or query it with trace_processor\n\n"
    "examples:\n"
    "  darc export trace.db --folded -o trace.folded\n"
    "  darc export trace.db --folded --metric incl --root comm --func __x64_sys_pread64\n"
    "  darc export trace.db --folded --off-cpu\n"
    "  darc export trace.dat --chrome --time 0-100ms -o trace.json\n";

enum { OPT_FOLDED = OPTION_LAST, OPT_CHROME, OPT_SPEEDSCOPE, OPT_PERFETTO, OPT_METRIC, OPT_OFF_CPU,
       OPT_ROOT };

struct args {
	struct export_opts x;
	const char *out;
	bool metric_given;
	int formats;
};

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct err_msg *err)
{
	struct args *a = args;

	switch (c) {
	case OPT_FOLDED:
	case OPT_CHROME:
	case OPT_SPEEDSCOPE:
	case OPT_PERFETTO:
		a->x.format = c == OPT_FOLDED	    ? EXPORT_FOLDED
			      : c == OPT_CHROME     ? EXPORT_CHROME
			      : c == OPT_SPEEDSCOPE ? EXPORT_SPEEDSCOPE
						    : EXPORT_PERFETTO;
		a->formats++;
		return 0;
	case OPT_METRIC:
		a->metric_given = true;
		if ((a->x.metric = export_metric_of(arg)) >= 0)
			return 0;
		return err_setf(err, NULL,
				"excl, incl, calls, irq, softirq, preempt, blocked or offcpu");
	case OPT_OFF_CPU:
		a->x.off_cpu = true;
		return 0;
	case OPT_ROOT:
		a->x.root = !strcmp(arg, "none")   ? EXPORT_ROOT_NONE
			    : !strcmp(arg, "comm") ? EXPORT_ROOT_COMM
			    : !strcmp(arg, "tid")  ? EXPORT_ROOT_TID
						   : -1;
		return a->x.root >= 0 ? 0
				      : err_setf(err, NULL, "none, comm or tid");
	case 'o':
		a->out = arg;
		return 0;
	}
	return -1;
}

/* What is left to check once the options are read. 0 or -1 with @err set. */
static int check_args(struct args *a, struct err_msg *err)
{
	if (a->formats != 1)
		return err_setf(err, NULL,
				a->formats ? "--folded, --chrome, --speedscope and --perfetto exclude each"
					     " other"
					   : "say what to write: --folded, --chrome, --speedscope or"
					     " --perfetto");
	if (a->x.format != EXPORT_FOLDED && (a->metric_given || a->x.off_cpu || a->x.root))
		return err_setf(err, NULL, "--metric, --off-cpu and --root are --folded's");
	if (a->x.off_cpu && !a->metric_given)
		a->x.metric = XM_BLOCKED;
	if (a->x.off_cpu && a->x.metric != XM_BLOCKED && a->x.metric != XM_PREEMPT &&
	    a->x.metric != XM_OFFCPU)
		return err_setf(err, NULL,
				"--off-cpu weighs blocked, preempt or offcpu time, not %s",
				export_metric_name(a->x.metric));
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	if (ctx->o.force && !((struct args *)args)->out)
		return err_setf(&ctx->err, NULL, "--force replaces the file of -o: give -o FILE"),
		       OPTION_BAD;
	return check_args(args, &ctx->err) ? OPTION_BAD : OPTION_OK;
}

struct job {
	struct rdb *db;
	const struct report_options *o;
	const struct export_opts *x;
	struct err_msg err;
	int rc;
};

static int write_export(void *ctx, FILE *f)
{
	struct job *j = ctx;

	j->rc = export_report(f, j->db, j->o, j->x, &j->err);
	return j->rc;
}

/* The export on stdout, or in the file of -o (wfile: never over an input or another kind of file). */
static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;
	struct job j = {ctx->db[0], &ctx->o, &a->x, {""}, 0};
	struct err_msg werr = {""};
	int rc;

	if (!a->out) {
		rc = export_report(stdout, ctx->db[0], &ctx->o, &a->x, &ctx->err);
	} else {
		rc = wfile_write(a->out,
				 a->x.format == EXPORT_FOLDED	  ? &wfile_folded
				 : a->x.format == EXPORT_PERFETTO ? &wfile_perfetto
								  : &wfile_json,
				 ctx->o.force, write_export, &j, &werr);
		/* the file failed (not the export), or never opened: its error */
		ctx->err = rc == -1 || (rc && !j.rc) ? werr : j.err;
	}
	if (!rc && a->x.format == EXPORT_PERFETTO && !perfetto_has_findings(ctx->db[0]))
		fprintf(stderr, "darc export: '%s' holds no findings of darc explain: run 'darc"
				" explain' on it first to have them in the trace\n",
			vis(rdb_path(ctx->db[0])));
	return rc;
}

static const struct option opts[] = {
	OPTION_CALL_OPTIONS,
	{"folded", no_argument, NULL, OPT_FOLDED},
	{"chrome", no_argument, NULL, OPT_CHROME},
	{"speedscope", no_argument, NULL, OPT_SPEEDSCOPE},
	{"perfetto", no_argument, NULL, OPT_PERFETTO},
	{"metric", required_argument, NULL, OPT_METRIC},
	{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
	{"root", required_argument, NULL, OPT_ROOT},
	{"force", no_argument, NULL, OPTION_FORCE},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {.x = EXPORT_OPTS_INIT};

const struct cmd cmd_export = {
	.usage_head = usage_head, .usage_mid = "", .usage_tail = usage_tail,
	.opts = opts, .shortopts = "ho:", .take = own_option, .check = check, .run = run,
	.args = &args, .nargs = 1,
};
