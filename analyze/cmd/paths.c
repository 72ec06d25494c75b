// SPDX-License-Identifier: MIT
/*
 * darc paths: the root-cause path of each peak of a function's latency
 * profile (DARC's search), stored for replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

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
	"      --max-depth N    levels below F (default 10)\n"
	"      --maxcount-pct P winners need P% of the most votes (default 97; lower\n"
	"                       it to see causes of a minority of the calls)\n"
	"      --min-bucket B   stop below 2^B ns (default 6)\n"
	"      --mode M         max (DARC's: a callee's longest call) or sum (all)\n";
static const char usage_tail[] =
	"  -h, --help\n\n"
	"examples:\n"
	"  darc paths trace.db --root __x64_sys_pread64\n"
	"  darc paths trace.db --root vfs_read --peak 2 --maxcount-pct 50 --json\n";

enum { OPT_ROOT = ROPT_LAST, OPT_PEAK, OPT_RANGE, OPT_MAX_DEPTH, OPT_PCT, OPT_MIN_BUCKET,
       OPT_MODE };

struct args {
	struct sr_params sp;
	int peak;
};

static int number(const char *arg, double lo, double hi, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end != arg && !*end && *v >= lo && *v <= hi ? 0 : -1;
}

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct fmt_err *err)
{
	struct args *a = args;
	double v;
	int rc = 0;

	switch (c) {
	case OPT_ROOT:
		return ropt_take(&ctx->o, ROPT_FUNC, arg, err) == 1 ? 0 : -1;
	case OPT_RANGE:
		return ropt_take(&ctx->o, ROPT_PEAKS, arg, err) == 1 ? 0 : -1;
	case OPT_PEAK:
		rc = number(arg, 1, 1000, &v) ? -1 : (a->peak = (int)v, 0);
		break;
	case OPT_MAX_DEPTH:
		rc = number(arg, 0, 1000, &v) ? -1 : (a->sp.max_depth = (int)v, 0);
		break;
	case OPT_PCT:
		rc = number(arg, 0.001, 100, &a->sp.maxcount_pct);
		break;
	case OPT_MIN_BUCKET:
		rc = number(arg, 0, 62, &v) ? -1 : (a->sp.min_bucket = (int)v, 0);
		break;
	case OPT_MODE:
		a->sp.mode = !strcmp(arg, "max") ? SR_MAX : !strcmp(arg, "sum") ? SR_SUM : -1;
		rc = a->sp.mode < 0 ? -1 : 0;
		break;
	default:
		return -1;
	}
	return rc ? fmt_errf(err, NULL, "bad argument '%s' of an option", arg) : 0;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	return report_paths(stdout, ctx->db[0], &ctx->o, &a->sp, a->peak, &ctx->err);
}

static const struct option opts[] = {
	ROPT_OPTIONS,
	{"root", required_argument, NULL, OPT_ROOT},
	{"peak", required_argument, NULL, OPT_PEAK},
	{"range", required_argument, NULL, OPT_RANGE},
	{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
	{"maxcount-pct", required_argument, NULL, OPT_PCT},
	{"min-bucket", required_argument, NULL, OPT_MIN_BUCKET},
	{"mode", required_argument, NULL, OPT_MODE},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {SR_PARAMS_DEFAULT, 0};

const struct cmd cmd_paths = {
	.usage_head = usage_head, .usage_mid = ropt_help, .usage_tail = usage_tail,
	.opts = opts, .take = own_option, .run = run, .args = &args, .nargs = 1,
};
