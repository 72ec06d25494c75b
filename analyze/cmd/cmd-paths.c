// SPDX-License-Identifier: MIT
/*
 * darc paths: the root-cause path of each peak of a function's latency
 * profile (DARC's search), stored for replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "number.h"
#include "paths.h"

static const char usage_head[] =
	"usage: darc paths [options] DB|RECORDING --root F\n\n"
	"For each peak of F's latency profile (see darc peaks), walk down F's call\n"
	"tree and name the path that causes it (DARC): at each level, for every call\n"
	"of F in the peak, the candidates are the function's own time, each callee\n"
	"(its longest call within F's call, less the interrupts and preemption in\n"
	"it), each interrupt and softirq and preemption over the whole subtree, and\n"
	"the function's own blocked time; the largest and all in its log2 bucket get\n"
	"a vote; the ones with at least P% of the most votes win, and the path goes\n"
	"on into a winning callee until the function itself, an interrupt,\n"
	"preemption or a blocking wait wins. Each search is stored in the database\n"
	"(tables search, search_path, search_candidate): run it again with another\n"
	"peak or threshold without the recording.\n\n"
	"      --root F         the function to start from (like --func)\n"
	"      --peak N         only peak N (default: every peak)\n"
	"      --range LO-HI    search this bucket range instead of the peaks\n"
	OPTION_HELP_SEARCH;
static const char usage_tail[] =
	"  -h, --help\n\n"
	"examples:\n"
	"  darc paths trace.db --root __x64_sys_pread64\n"
	"  darc paths trace.db --root vfs_read --peak 2 --maxcount-pct 50 --json\n";

enum { OPT_ROOT = OPTION_LAST, OPT_PEAK, OPT_RANGE };

struct args {
	int peak;
	const char *root;   /* --root F: F, also in the selection's func */
	bool func_before;   /* --func came before --root */
};

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct err_msg *err)
{
	struct args *a = args;
	double v;

	switch (c) {
	case OPT_ROOT:
		a->func_before = ctx->o.sel.func && !a->root;
		a->root = arg;
		return options_take(&ctx->o, OPTION_FUNC, arg, err) == 1 ? 0 : -1;
	case OPT_RANGE:
		return options_take(&ctx->o, OPTION_PEAKS, arg, err) == 1 ? 0 : -1;
	case OPT_PEAK:
		if (number_real(arg, 1, 1000, &v))
			return err_setf(err, NULL, "a peak's number, 1 or more");
		a->peak = (int)v;
		return 0;
	}
	return -1;
}

/* The options that would each be ignored by the other: refused. */
static int check(struct cmd_ctx *ctx, void *args)
{
	const struct args *a = args;
	const struct call_selection *sel = &ctx->o.sel;

	if (a->root && (a->func_before || sel->func != a->root))
		return err_setf(&ctx->err, NULL, "--root and --func both name the function to start"
						 " from: give one"),
		       OPTION_BAD;
	if (a->peak && ctx->o.npeaks)
		return err_setf(&ctx->err, NULL, "--peak N picks a peak found, --range (or --peaks)"
						 " gives the buckets: give one"),
		       OPTION_BAD;
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	return paths_report(stdout, ctx->db[0], &ctx->o, &ctx->o.search, a->peak, &ctx->err);
}

static const struct option opts[] = {
	OPTION_SHARED_OPTIONS,
	{"root", required_argument, NULL, OPT_ROOT},
	{"peak", required_argument, NULL, OPT_PEAK},
	{"range", required_argument, NULL, OPT_RANGE},
	OPTION_SEARCH_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {0, NULL, false};

const struct cmd cmd_paths = {
	.usage_head = usage_head, .usage_mid = options_help, .usage_tail = usage_tail,
	.opts = opts, .take = own_option, .check = check, .run = run, .args = &args, .nargs = 1,
};
