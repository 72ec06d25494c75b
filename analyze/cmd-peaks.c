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

enum { OPT_EXPLAIN = ROPT_LAST };

static int own_option(void *ctx, int c, const char *arg, struct fmt_err *err)
{
	*(int *)ctx = 1;
	return 0;
}

int cmd_peaks(int argc, char **argv)
{
	static const struct option opts[] = {
		ROPT_OPTIONS,
		{"explain", no_argument, NULL, OPT_EXPLAIN},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct ropt o;
	struct rdb *db = NULL;
	struct fmt_err err;
	int explain = 0, rc;

	ropt_init(&o);
	rc = ropt_parse(argc, argv, opts, &o, own_option, &explain, true, &err);
	if (rc == ROPT_OK && optind != argc - 1)
		rc = ROPT_USAGE;
	if (rc != ROPT_OK) {
		ropt_release(&o);
		return cmd_usage(rc, &err, usage_head, ropt_help, usage_tail);
	}
	db = ropt_open_db(argv[optind], "peaks", &err);
	rc = db && !report_peaks(stdout, db, &o, explain, &err) ? EXIT_OK : EXIT_INPUT;
	if (rc)
		darc_error("%s", err.msg);
	rdb_close(db);
	ropt_release(&o);
	return rc;
}
