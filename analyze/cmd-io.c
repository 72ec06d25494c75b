// SPDX-License-Identifier: MIT
/*
 * darc io: requests (calls of a function, or one call) split into layers,
 * their I/O included, adding up to the nanosecond.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report.h"

static const char usage_text[] =
	"usage: darc io [options] DB|RECORDING (--func F | --call ID)\n\n"
	"The slowest requests (complete calls of F, a system call say, or the call\n"
	"ID) with their latency split into layers, ReLayTracer's way: each call's\n"
	"own CPU time to the layer of its function (vfs, fs, page cache, copy, block,\n"
	"driver, scheduler; a function no pattern names takes its caller's layer),\n"
	"interrupts, preemption, and each sleep split by the bio that ended it into\n"
	"block queue, device, completion to wake-up and run delay (the rest of a\n"
	"sleep is other wait). The layers add up to the request's latency exactly,\n"
	"and darc checks that they do.\n\n"
	"      --func F         the slowest calls of F\n"
	"      --call ID        this call (call.id)\n"
	"      --top N          how many (default 5)\n"
	"      --json           print JSON\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc io trace.db --func __x64_sys_pread64 --top 3\n";

enum { OPT_FUNC = 300, OPT_CALL, OPT_TOP, OPT_JSON };

int cmd_io(int argc, char **argv)
{
	static const struct option opts[] = {
		{"func", required_argument, NULL, OPT_FUNC},
		{"call", required_argument, NULL, OPT_CALL},
		{"top", required_argument, NULL, OPT_TOP},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *func = NULL;
	int64_t call = 0;
	int top = 5, c, rc = EXIT_INPUT;
	bool json = false;
	char *end;
	struct fmt_err err = {""};
	struct rdb *db = NULL;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		long long v = 1;
		if (c == OPT_CALL || c == OPT_TOP) {
			v = strtoll(optarg, &end, 10);
			if (*end || v < 1) {
				darc_error("bad argument '%s' of an option", optarg);
				return EXIT_INPUT;
			}
		}
		if (c == 'h') {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (c == OPT_FUNC) {
			func = optarg;
		} else if (c == OPT_CALL) {
			call = v;
		} else if (c == OPT_TOP) {
			top = v > 1000 ? 1000 : (int)v;
		} else if (c == OPT_JSON) {
			json = true;
		} else {
			fputs(usage_text, stderr);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1 || !func == !call) {
		if (optind == argc - 1)
			darc_error("say which requests: one of --func or --call");
		else
			fputs(usage_text, stderr);
		return EXIT_INPUT;
	}
	db = ropt_open_db(argv[optind], "io", &err);
	if (db && !report_io(stdout, db, func, call, top, json, &err))
		rc = EXIT_OK;
	else
		darc_error("%s", err.msg);
	rdb_close(db);
	return rc;
}
