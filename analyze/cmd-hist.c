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
	ROPT_HELP_PLOT
	"      --interval D     one histogram per time window of D (e.g. 100ms, 2s):\n"
	"                       OSprof's time-lapse profile, shows periodic behaviour\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc hist trace.db --func vfs_read\n"
	"  darc hist trace.dat --func __x64_sys_pread64 --json\n"
	"  darc hist trace.db --path '__x64_sys_pread64>vfs_read>ext4_file_read_iter' --metric excl\n"
	"  darc hist trace.db --func vfs_read --interval 500ms\n";

enum { OPT_INTERVAL = ROPT_LAST };

static int own_option(void *ctx, int c, const char *arg, struct fmt_err *err)
{
	int64_t *interval = ctx;

	if (c == OPT_INTERVAL && !ropt_duration(arg, interval) && *interval > 0)
		return 0;
	return fmt_errf(err, NULL, "bad --interval '%s': a duration expected (e.g. 100ms)", arg);
}

int cmd_hist(int argc, char **argv)
{
	static const struct option opts[] = {
		ROPT_OPTIONS,
		ROPT_PLOT_OPTIONS,
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct ropt o;
	struct rdb *db = NULL;
	struct fmt_err err;
	int64_t interval = 0;
	int rc;

	ropt_init(&o);
	rc = ropt_parse(argc, argv, opts, &o, own_option, &interval, true, &err);
	if (rc == ROPT_OK && optind != argc - 1)
		rc = ROPT_USAGE;
	if (rc != ROPT_OK) {
		ropt_release(&o);
		return cmd_usage(rc, &err, usage_head, ropt_help, usage_tail);
	}
	db = ropt_open_db(argv[optind], "hist", &err);
	rc = db && !(interval ? report_timelapse(stdout, db, &o, interval, &err)
			      : report_hist(stdout, db, &o, &err))
		     ? EXIT_OK
		     : EXIT_INPUT;
	if (rc)
		darc_error("%s", err.msg);
	rdb_close(db);
	ropt_release(&o);
	return rc;
}
