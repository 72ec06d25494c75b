// SPDX-License-Identifier: MIT
/*
 * darc waits: where a task's waiting went, wait by wait, following each
 * wake-up to the waker's own wait (RSP's wake-up chains).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report.h"

static const char usage_text[] =
	"usage: darc waits [options] DB|RECORDING (--task TID | --call ID)\n\n"
	"The longest waits of a task (or of a call and its callees), each with what\n"
	"ended it and, when another task woke it, that task's own wait just before\n"
	"(within 1 ms), and so on: the chain of waits (view wait). Categories:\n"
	"preempted, blocking I/O (a bio of the task completed during it), timed out,\n"
	"ended by hardware (an interrupt woke it), waiting on another task,\n"
	"unaccounted (no wake-up seen); each with its run delay (wake-up to running).\n\n"
	"      --task TID       the waits of this task\n"
	"      --call ID        the waits inside this call (call.id)\n"
	"      --top N          the N longest (default 10)\n"
	"      --slack DURATION a waker's own wait belongs to the chain when it\n"
	"                       ended at most this long before the wake-up\n"
	"                       (default 1ms; e.g. 200us, 5ms)\n"
	"      --json           print JSON\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc waits trace.db --task 1234\n";

enum { OPT_TASK = 300, OPT_CALL, OPT_TOP, OPT_JSON, OPT_SLACK };

int cmd_waits(int argc, char **argv)
{
	static const struct option opts[] = {
		{"task", required_argument, NULL, OPT_TASK},
		{"call", required_argument, NULL, OPT_CALL},
		{"top", required_argument, NULL, OPT_TOP},
		{"json", no_argument, NULL, OPT_JSON},
		{"slack", required_argument, NULL, OPT_SLACK},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct waits_sel ws = {0, 0, 10, WAITS_SLACK_DEFAULT};
	int c, rc = EXIT_INPUT;
	bool json = false;
	char *end;
	struct fmt_err err = {""};
	struct rdb *db = NULL;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (c == OPT_JSON) {
			json = true;
		} else if (c == OPT_SLACK) {
			if (ropt_duration(optarg, &ws.slack_ns) || ws.slack_ns < 0) {
				darc_error("bad --slack '%s': a duration such as 1ms", optarg);
				return EXIT_INPUT;
			}
		} else if (c == OPT_TASK || c == OPT_CALL || c == OPT_TOP) {
			long long v = strtoll(optarg, &end, 10);
			if (*end || v < 1) {
				darc_error("bad argument '%s' of an option", optarg);
				return EXIT_INPUT;
			}
			if (c == OPT_TASK)
				ws.task = v;
			else if (c == OPT_CALL)
				ws.call = v;
			else
				ws.top = v > 1000 ? 1000 : (int)v;
		} else {
			fputs(usage_text, stderr);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1 || !ws.task == !ws.call) {
		if (optind == argc - 1)
			darc_error("say whose waits: one of --task or --call");
		else
			fputs(usage_text, stderr);
		return EXIT_INPUT;
	}
	db = ropt_open_db(argv[optind], "waits", &err);
	if (db && !report_waits(stdout, db, &ws, json, &err))
		rc = EXIT_OK;
	else
		darc_error("%s", err.msg);
	rdb_close(db);
	return rc;
}
