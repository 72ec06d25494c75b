// SPDX-License-Identifier: MIT
/*
 * darc diff: two recordings' latency profiles compared, function by function
 * and path by path, the most different first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"
#include "rows.h"

static const char usage_text[] =
	"usage: darc diff [options] A B\n\n"
	"Compare the latency profiles of two recordings (or their databases): before\n"
	"and after a fix, 1 process vs N. Every function (by name) and every call path\n"
	"of either is paired with its namesake in the other; pairs with few calls\n"
	"and little latency on both sides are pruned; the rest are rated by OSprof's\n"
	"methods, in percent (0: the same), and ranked by one of them:\n"
	"  totops     difference in the number of calls\n"
	"  totlat     difference in total latency (count x 2^bucket)\n"
	"  chisquare  chi-square test on the counts, as a probability of differing\n"
	"  emd        earth mover's distance of the normalised profiles, x 100:\n"
	"             100 = every call moved one bucket (the default)\n"
	"  groupops   100 if the peaks differ in number or place, else calls per peak\n"
	"  grouplat   likewise, latency per peak\n\n"
	"  -m, --method M       rank by M (default emd)\n"
	"  -t, --threshold T    a pair differs at a score of T or more (defaults:\n"
	"                       emd 50, chisquare 99.9, the others 20)\n"
	"      --metric M       incl (default) or excl\n"
	"      --resolution R   buckets per octave, 1 (default) to 4\n"
	"      --kind K         func, path, or all (default)\n"
	"      --min-calls N    prune pairs with fewer calls than N, or under P% of\n"
	"      --min-share P    their recording's latency, on both sides (20, 1)\n"
	"      --show N         print the N most different pairs side by side (3)\n"
	"      --json           print JSON: every pair with every method's score\n"
	"      --svg FILE       plot one pair's two histograms (SVG), the first ranked\n"
	"                       that both recordings have\n"
	"      --pair NAME      ... or this function or path\n"
	"      --force          replace FILE even if it is not an SVG plot\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc diff before.dat after.dat\n"
	"  darc diff one-writer.db two-writers.db --kind func --method chisquare\n";

enum { OPT_METRIC = 300, OPT_RESOLUTION, OPT_KIND, OPT_MIN_CALLS, OPT_MIN_SHARE, OPT_SHOW,
       OPT_JSON, OPT_SVG, OPT_PAIR, OPT_FORCE };

struct args {
	struct diff_opts o;
	int show;
	bool json, threshold_given, show_given;
};

static int number(const char *arg, double lo, double hi, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end != arg && !*end && *v >= lo && *v <= hi ? 0 : -1;
}

/* What option @c takes, for "bad --kind 'x': func, path or all". */
static const char *expected(int c)
{
	switch (c) {
	case 'm':
		return "totops, totlat, chisquare, emd, groupops or grouplat";
	case 't':
		return "a score from 0 up";
	case OPT_METRIC:
		return "incl or excl";
	case OPT_RESOLUTION:
		return "1, 2, 3 or 4 buckets per octave";
	case OPT_KIND:
		return "func, path or all";
	case OPT_MIN_SHARE:
		return "a percentage, 0 to 100";
	}
	return "a count, 0 or more";
}

/* Take option @c; 0, or -1 with @err saying what was expected. */
static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	struct args *a = args;
	double v = 0;
	int rc = 0;

	switch (c) {
	case 'm':
		rc = (a->o.method = profile_cmp_method_of(arg)) < 0 ? -1 : 0;
		break;
	case 't':
		rc = number(arg, 0, 1e9, &a->o.threshold);
		a->threshold_given = true;
		break;
	case OPT_METRIC:
		a->o.metric = !strcmp(arg, "incl") ? RM_INCL : !strcmp(arg, "excl") ? RM_EXCL : -1;
		rc = a->o.metric < 0 ? -1 : 0;
		break;
	case OPT_RESOLUTION:
		rc = number(arg, 1, 4, &v) || v != (int)v ? -1 : (a->o.resolution = (int)v, 0);
		break;
	case OPT_KIND:
		a->o.kind = !strcmp(arg, "func") ? OWNER_FUNC : !strcmp(arg, "path") ? OWNER_FNODE
						   : !strcmp(arg, "all")  ? -1 : -2;
		rc = a->o.kind == -2 ? -1 : 0;
		break;
	case OPT_MIN_CALLS:
		rc = number(arg, 0, 1e12, &v) ? -1 : (a->o.min_calls = (int)v, 0);
		break;
	case OPT_MIN_SHARE:
		rc = number(arg, 0, 100, &v) ? -1 : (a->o.min_share = v / 100, 0);
		break;
	case OPT_SHOW:
		rc = number(arg, 0, 1000, &v) ? -1 : (a->show = (int)v, 0);
		a->show_given = true;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_SVG:
		a->o.svg = arg;
		break;
	case OPT_PAIR:
		a->o.pair = arg;
		break;
	case OPT_FORCE:
		a->o.force = true;
		break;
	default:
		return -1;
	}
	if (rc)
		err_setf(err, NULL, "%s", expected(c));
	return rc;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	if (a->json && a->show_given)
		return err_setf(&ctx->err, NULL,
				"--json prints every pair: --show is for the text"),
		       OPTION_BAD;
	if (!a->o.svg && (a->o.pair || a->o.force))
		return err_setf(&ctx->err, NULL,
				"--pair and --force are for the plot: give --svg FILE"),
		       OPTION_BAD;
	if (!a->threshold_given)
		a->o.threshold = diff_default_threshold(a->o.method);
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	return report_diff(stdout, ctx->db[0], ctx->db[1], &a->o, a->show, a->json, &ctx->err);
}

static const struct option opts[] = {
	{"method", required_argument, NULL, 'm'},
	{"threshold", required_argument, NULL, 't'},
	{"metric", required_argument, NULL, OPT_METRIC},
	{"resolution", required_argument, NULL, OPT_RESOLUTION},
	{"kind", required_argument, NULL, OPT_KIND},
	{"min-calls", required_argument, NULL, OPT_MIN_CALLS},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"show", required_argument, NULL, OPT_SHOW},
	{"json", no_argument, NULL, OPT_JSON},
	{"svg", required_argument, NULL, OPT_SVG},
	{"pair", required_argument, NULL, OPT_PAIR},
	{"force", no_argument, NULL, OPT_FORCE},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {{CMP_EMD, 0, RM_INCL, 1, -1, 20, 0.01, PEAK_PARAMS_DEFAULT}, 3};

const struct cmd cmd_diff = {
	.usage_head = usage_text, .opts = opts, .shortopts = "m:t:h", .take = take,
	.check = check, .run = run, .args = &args, .nargs = 2,
};
