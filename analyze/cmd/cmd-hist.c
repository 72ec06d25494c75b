// SPDX-License-Identifier: MIT
/*
 * darc hist: the OSprof latency histogram of the calls asked for, with its
 * peaks; --interval: one per time window.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report.h"

static const char usage_head[] =
	"usage: darc hist [options] DB|RECORDING (--func F | --fnode ID | --path 'a>b>c')\n\n"
	"The latency histogram of the calls you choose, in log2 buckets (OSprof's\n"
	"profile): per bucket its count, share of the calls, mean latency and share\n"
	"of the total latency, and the peaks, numbered from left to right (each a\n"
	"different way through the code: cache hit, disk, lock, interrupt...).\n"
	"Given a recording, darc analyzes it into RECORDING.db first (and reuses\n"
	"that while it is newer than the recording).\n\n";
static const char usage_tail[] =
	OPTION_HELP_PLOT
	"      --interval D     one histogram per time window of D (e.g. 100ms, 2s):\n"
	"                       OSprof's time-lapse profile, shows periodic behaviour\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc hist trace.db --func vfs_read\n"
	"  darc hist trace.dat --func __x64_sys_pread64 --json\n"
	"  darc hist trace.db --path '__x64_sys_pread64>vfs_read>ext4_file_read_iter' --metric excl\n"
	"  darc hist trace.db --func vfs_read --interval 500ms\n";

enum { OPT_INTERVAL = OPTION_LAST };

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct err_msg *err)
{
	int64_t *interval = args;

	if (c == OPT_INTERVAL && !options_duration(arg, interval) && *interval > 0)
		return 0;
	return err_setf(err, NULL, "a duration expected (e.g. 100ms)");
}

static int run(struct cmd_ctx *ctx, void *args)
{
	int64_t interval = *(int64_t *)args;

	return interval ? report_timelapse(stdout, ctx->db[0], &ctx->o, interval, &ctx->err)
			: report_hist(stdout, ctx->db[0], &ctx->o, &ctx->err);
}

static const struct option opts[] = {
	OPTION_SHARED_OPTIONS,
	OPTION_PLOT_OPTIONS,
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static int64_t interval; /* --interval: one profile per window of this many ns */

const struct cmd cmd_hist = {
	.usage_head = usage_head, .usage_mid = options_help, .usage_tail = usage_tail,
	.opts = opts, .take = own_option, .run = run, .args = &interval, .nargs = 1,
};
