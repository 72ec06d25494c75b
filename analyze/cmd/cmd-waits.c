// SPDX-License-Identifier: MIT
/*
 * darc waits: where a task's waiting went, wait by wait, following each
 * wake-up to the waker's own wait (RSP's wake-up chains).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "number.h"
#include "waits.h"

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
	"  darc waits trace.db --task 162\n";

/* --task and --call are the shared ones (ctx->o: checked against the database by setup) */
enum { OPT_TOP = 300, OPT_JSON, OPT_SLACK };

struct args {
	struct waits_sel ws;
	bool json;
};

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	struct args *a = args;
	long long v;

	if (c == OPT_JSON) {
		a->json = true;
		return 0;
	}
	if (c == OPT_SLACK)
		return options_duration(arg, &a->ws.slack_ns) || a->ws.slack_ns < 0
			       ? err_setf(err, NULL, "a duration such as 1ms")
			       : 0;
	if (number_int(arg, &v) || v < 1)
		return err_setf(err, NULL, "a positive number");
	a->ws.top = v > 1000 ? 1000 : (int)v;
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	a->ws.task = ctx->o.sel.task;
	a->ws.call = ctx->o.call;
	if (a->ws.task && a->ws.call)
		return err_setf(&ctx->err, NULL,
				"--task and --call each choose the waits: give one"),
		       OPTION_BAD;
	if (!a->ws.task && !a->ws.call)
		return err_setf(&ctx->err, NULL, "say whose waits: one of --task or --call"),
		       OPTION_BAD;
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	return waits_report(stdout, ctx->db[0], &a->ws, a->json, &ctx->err);
}

static const struct option opts[] = {
	{"task", required_argument, NULL, OPTION_TASK},
	{"call", required_argument, NULL, OPTION_CALL},
	{"top", required_argument, NULL, OPT_TOP},
	{"json", no_argument, NULL, OPT_JSON},
	{"slack", required_argument, NULL, OPT_SLACK},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {{0, 0, 10, WAITS_SLACK_DEFAULT}, false};

const struct cmd cmd_waits = {
	.usage_head = usage_text, .opts = opts, .take = take, .check = check, .run = run,
	.args = &args, .nargs = 1,
};
