// SPDX-License-Identifier: MIT
/*
 * darc peaks: the peaks of a latency profile, each with its range, calls,
 * shares, mean and max; stored in table peak. --explain: OSprof's aids.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report.h"

static const char usage_head[] =
	"usage: darc peaks [options] DB|RECORDING (--func F | --fnode ID | --path 'a>b>c')\n\n"
	"Find the peaks of the latency profile of the calls you choose (see darc\n"
	"hist), numbered from left to right, each with its bucket range, calls,\n"
	"share of the calls and of the latency, mean and maximum; and store them in\n"
	"the database's table peak (with how they were found) for later commands and\n"
	"SQL. Given a recording, darc analyzes it into RECORDING.db first.\n\n";
static const char usage_tail[] =
	"      --explain        OSprof's aids: the functions called as often as each\n"
	"                       peak holds calls, and for two neighbouring peaks the\n"
	"                       wait lock contention would give\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc peaks trace.db --func __x64_sys_pread64 --explain\n"
	"  darc peaks trace.db --func vfs_read --prominence 1 --json\n"
	"  darc peaks trace.db --func vfs_read --peaks 12-14,20-23\n";

enum { OPT_EXPLAIN = OPTION_LAST };

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	*(int *)args = 1; /* --explain, its only option */
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	if (*(int *)args && ctx->o.json)
		return err_setf(&ctx->err, NULL, "--explain's aids are text: not with --json"),
		       OPTION_BAD;
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	return report_peaks(stdout, ctx->db[0], &ctx->o, *(int *)args, &ctx->err);
}

static const struct option opts[] = {
	OPTION_SHARED_OPTIONS,
	{"explain", no_argument, NULL, OPT_EXPLAIN},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static int explain;

const struct cmd cmd_peaks = {
	.usage_head = usage_head, .usage_mid = options_help, .usage_tail = usage_tail,
	.opts = opts, .take = take, .check = check, .run = run, .args = &explain, .nargs = 1,
};
