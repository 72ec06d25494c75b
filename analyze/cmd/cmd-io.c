// SPDX-License-Identifier: MIT
/*
 * darc io: requests (calls of a function, or one call) split into layers,
 * their I/O included, adding up to the nanosecond.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "io-bios.h"
#include "io-layers.h"
#include "number.h"

static const char usage_text[] =
	"usage: darc io [options] DB|RECORDING [--func F | --call ID | --bios | --irqs]\n\n"
	"The slowest requests (complete calls of F, a system call say, or the call\n"
	"ID) with their latency split into layers, ReLayTracer's way: each call's\n"
	"own CPU time to the layer of its function (vfs, fs, page cache, copy, block,\n"
	"driver, scheduler; a function no pattern names takes its caller's layer),\n"
	"interrupts, preemption, and each sleep split by the bio that ended it into\n"
	"block queue, device, completion to wake-up and run delay (the rest of a\n"
	"sleep is other wait). The layers add up to the request's latency exactly,\n"
	"and darc checks that they do. Each request's layers are stored in table\n"
	"io_layer of the database (schema/README.md), replacing earlier ones.\n\n"
	"With --bios, per device, biolatency-style log2 histograms of the bios'\n"
	"queue (submitted to issued), device (issued to completed, once per request\n"
	"as biolatency: merged bios left out) and total times\n"
	"with their peaks; with --irqs, ReLayTracer's table of how often and how long\n"
	"each thread was interrupted, per kind (hardirq, softirq, ...).\n\n"
	"With none of them, an overview: the entry points (the roots of the call\n"
	"trees, as darc explain's subjects) by total latency, each with the layers\n"
	"of its 20 slowest calls summed, and per device its bios' mean queue time\n"
	"and device time (p50, p90, max); nothing is stored.\n\n"
	"      --func F         the slowest calls of F\n"
	"      --call ID        this call (call.id)\n"
	"      --bios           histograms of the bio stages per device\n"
	"      --irqs           interrupt counts and time per thread\n"
	"      --layers FILE    your layer map first: lines 'GLOB LAYER' (# comments),\n"
	"                       e.g. 'ext4_file_read_iter page cache'\n"
	"      --top N          how many (default 5; --irqs: 20; the overview's entry\n"
	"                       points: 3)\n"
	"      --json           print JSON\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc io trace.db\n"
	"  darc io trace.db --func __x64_sys_pread64 --top 3\n"
	"  darc io trace.db --func __x64_sys_pread64 --layers my-layers.txt\n"
	"  darc io trace.db --bios\n"
	"  darc io trace.db --irqs --json\n";

/* --func and --call are the shared ones (ctx->o: checked against the database by setup) */
enum { OPT_TOP = 300, OPT_JSON, OPT_BIOS, OPT_IRQS, OPT_LAYERS };

struct io_args {
	const char *func, *layers;
	int64_t call;
	int what, top; /* what: 0 (requests), OPT_BIOS or OPT_IRQS */
	int reports;   /* --bios and --irqs given */
	bool json;
};

static int show(struct rdb *db, const struct io_args *a, struct err_msg *err)
{
	struct io_rules rules = {0};
	int rc;

	if (a->what == OPT_BIOS)
		return io_bios_report(stdout, db, a->json, err);
	if (a->what == OPT_IRQS)
		return io_irqs_report(stdout, db, a->top ? a->top : 20, a->json, err);
	if (a->layers && io_rules_load(a->layers, &rules, err))
		return -1;
	if (!a->func && !a->call)
		rc = io_overview_report(stdout, db, &rules, a->top ? a->top : 3, a->json, err);
	else
		rc = io_report(stdout, db, &rules, a->func, a->call, a->top ? a->top : 5, a->json,
			       err);
	io_rules_free(&rules);
	return rc;
}

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	struct io_args *a = args;
	long long v = 1;

	if (c == OPT_TOP) {
		if (number_int(arg, &v) || v < 1)
			return err_setf(err, NULL, "a positive number");
		a->top = v > 1000 ? 1000 : (int)v;
	} else if (c == OPT_LAYERS) {
		a->layers = arg;
	} else if (c == OPT_JSON) {
		a->json = true;
	} else {
		a->reports += a->what != c;
		a->what = c; /* OPT_BIOS or OPT_IRQS */
	}
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	struct io_args *a = args;

	a->func = ctx->o.sel.func;
	a->call = ctx->o.call;
	if (!!a->func + !!a->call + a->reports > 1)
		return err_setf(&ctx->err, NULL, "--func, --call, --bios and --irqs are each a"
						 " report of their own: give one"),
		       OPTION_BAD;
	if (a->what == OPT_BIOS && a->top)
		return err_setf(&ctx->err, NULL, "--bios shows every device: --top is for --func,"
						 " --call and --irqs"),
		       OPTION_BAD;
	if (a->what && a->layers)
		return err_setf(&ctx->err, NULL,
				"--layers is for the requests of --func and --call"),
		       OPTION_BAD;
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	return show(ctx->db[0], args, &ctx->err);
}

static const struct option opts[] = {
	{"func", required_argument, NULL, OPTION_FUNC},
	{"call", required_argument, NULL, OPTION_CALL},
	{"top", required_argument, NULL, OPT_TOP},
	{"json", no_argument, NULL, OPT_JSON},
	{"bios", no_argument, NULL, OPT_BIOS},
	{"irqs", no_argument, NULL, OPT_IRQS},
	{"layers", required_argument, NULL, OPT_LAYERS},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct io_args args;

const struct cmd cmd_io = {
	.usage_head = usage_text, .opts = opts, .take = take, .check = check, .run = run,
	.args = &args, .nargs = 1,
};
