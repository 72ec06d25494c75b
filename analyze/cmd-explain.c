// SPDX-License-Identifier: MIT
/*
 * darc explain: the functions with the most latency and more than one peak,
 * each peak with its root-cause path, in one report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

static const char usage_head[] =
	"usage: darc explain [options] DB|RECORDING\n\n"
	"The answer in one command: for the functions with the most total latency\n"
	"whose latency profile has more than one peak (system calls first, the\n"
	"tracer's own functions left out), every peak with its root-cause path, as\n"
	"darc paths finds them (and stores them). Given a recording, darc analyzes\n"
	"it into RECORDING.db first.\n\n"
	"      --top N          that many functions (default 3)\n"
	"      --maxcount-pct P, --max-depth N, --min-bucket B, --mode M: as darc paths\n";
static const char usage_tail[] =
	"  -h, --help\n\n"
	"examples:\n"
	"  darc explain trace.db\n"
	"  darc explain trace.dat --top 1 --json\n";

enum { OPT_TOP = ROPT_LAST, OPT_MAX_DEPTH, OPT_PCT, OPT_MIN_BUCKET, OPT_MODE };

struct args {
	struct sr_params sp;
	int top;
};

static int own_option(void *ctx, int c, const char *arg, struct fmt_err *err)
{
	struct args *a = ctx;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end)
		v = -1;
	switch (c) {
	case OPT_TOP:
		a->top = (int)v;
		return v >= 1 && v <= 64 ? 0 : fmt_errf(err, NULL, "bad --top '%s' (1 to 64)", arg);
	case OPT_MAX_DEPTH:
		a->sp.max_depth = (int)v;
		break;
	case OPT_PCT:
		a->sp.maxcount_pct = v;
		break;
	case OPT_MIN_BUCKET:
		a->sp.min_bucket = (int)v;
		break;
	case OPT_MODE:
		a->sp.mode = !strcmp(arg, "max") ? SR_MAX : !strcmp(arg, "sum") ? SR_SUM : -1;
		return a->sp.mode < 0 ? fmt_errf(err, NULL, "bad --mode '%s'", arg) : 0;
	default:
		return -1;
	}
	return v >= 0 ? 0 : fmt_errf(err, NULL, "bad argument '%s' of an option", arg);
}

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		ROPT_OPTIONS,
		{"top", required_argument, NULL, OPT_TOP},
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
		{"maxcount-pct", required_argument, NULL, OPT_PCT},
		{"min-bucket", required_argument, NULL, OPT_MIN_BUCKET},
		{"mode", required_argument, NULL, OPT_MODE},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct ropt o;
	struct args a = {SR_PARAMS_DEFAULT, 3};
	struct rdb *db = NULL;
	struct fmt_err err;
	int rc;

	ropt_init(&o);
	rc = ropt_parse(argc, argv, opts, &o, own_option, &a, false, &err);
	if (rc == ROPT_OK && optind != argc - 1)
		rc = ROPT_USAGE;
	if (rc != ROPT_OK) {
		ropt_release(&o);
		return cmd_usage(rc, &err, usage_head, ropt_help, usage_tail);
	}
	db = ropt_open_db(argv[optind], "explain", &err);
	rc = db && !report_explain(stdout, db, &o, &a.sp, a.top, &err) ? EXIT_OK : EXIT_INPUT;
	if (rc)
		darc_error("%s", err.msg);
	rdb_close(db);
	ropt_release(&o);
	return rc;
}
