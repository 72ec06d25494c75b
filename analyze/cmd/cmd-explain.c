// SPDX-License-Identifier: MIT
/*
 * darc explain: the recording's entry points, each one's slow part with its
 * causes ranked by the time they cost, a sentence each (report/explain-db.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "explain-db.h"
#include "number.h"

static const char usage_head[] =
	"usage: darc explain [options] DB|RECORDING\n\n"
	"The answer to start with: why the recording's entry points are slow when\n"
	"they are, in a sentence per cause. Given a recording, darc analyzes it into\n"
	"RECORDING.db first.\n\n"
	"Subjects are the entry points: the roots of the call trees (the system\n"
	"calls, the -g functions, the probe pairs traced) and, in a user program\n"
	"traced with uprobes, the outermost functions called twice or more. The\n"
	"tracer's own functions and interrupt handlers are not subjects, nor is a\n"
	"function that runs only inside another subject (its time is in the\n"
	"subject's causes).\n\n"
	"Each subject's slow part: when its latency profile has two peaks or more\n"
	"(darc peaks' peaks), the peak above the body (the peak with the most\n"
	"calls) with the most latency, and any other above it holding 5% of the\n"
	"latency; with one peak, the tail, the buckets above the\n"
	"one holding the 90th percentile of the calls, contrasted with the body\n"
	"below it. Where nothing is slower than the rest (no peak above the body,\n"
	"a tail under 5% of the latency), the body itself, \"typical calls\": where\n"
	"a typical call spends its time. Every subject gets an answer; subjects are\n"
	"ranked by the latency of the part explained.\n\n"
	"The slow part is searched as darc paths searches a peak (and stored as a\n"
	"search), and a callee that loses the vote but holds 5% of the time is\n"
	"followed too; every path of the tree to a leaf is a cause, and so is a\n"
	"runner-up of 5% or more. Causes are listed by the time they cost, largest\n"
	"first; those under 5% of the slow part are left out. A sentence reads:\n\n"
	"  read(): typical calls (bucket 24, 200 calls, 100% of its latency):\n"
	"  waiting for data in a pipe (vfs_read > pipe_read), 96% of that time,\n"
	"  woken by producer [138] (pipe_write), which waited for the disk (88% of\n"
	"  its time): 200 bios\n\n"
	"that is: the subject; which calls (log2 buckets of ns: 24 is 16.8 ms ..\n"
	"33.6 ms) and their share of the subject's latency; what the calls did in\n"
	"that time (waiting, preempted, interrupted by, running in, waiting for the\n"
	"disk) with the functions where, the thing waited for in plain words only\n"
	"for well-known functions (mutex_lock, a futex, the ext4 journal, page\n"
	"writeback, balance_dirty_pages, ...); the share of the part's latency; who\n"
	"ended the wait, followed into that task's own time over it (what it ran,\n"
	"what it waited for) down to CPU, a device, a timer or an interrupt; or\n"
	"who preempted the task. Where the recording cannot tell what ended a wait\n"
	"(an interrupt no event names), the sentence says so and what to record.\n"
	"Subjects and causes are stored in tables explain_subject and explain_cause.\n\n"
	"      --top N          that many subjects (default 3)\n"
	"      --verbose        each slow part's search tree too, as darc paths prints it\n"
	"      --maxcount-pct P, --max-depth N, --min-bucket B, --mode M: as darc paths\n";
static const char usage_calls[] =
	"which calls of the subjects (all by default):\n"
	"      --task TID, --comm NAME, --time LO-HI: as darc paths\n"
	"      --json           print JSON\n";
static const char usage_tail[] =
	"  -h, --help\n\n"
	"--json prints {\"schema\", \"command\", \"subjects\": [...]} (every field:\n"
	"analyze/JSON.md in darc's source): per subject func, title, kind\n"
	"(syscall, user, root), calls, total_ns, slow {how (peak, tail, body), lo,\n"
	"hi, calls, ns, share, tail_share for a body}, body {lo, hi, calls, ns} or null, search (its id), causes [{path,\n"
	"kind, ns, share, votes, who, sentence}], nodes (as darc paths --json), and\n"
	"more [...] for further slow parts.\n\n"
	"examples:\n"
	"  darc explain trace.db\n"
	"  darc explain trace.dat --top 1 --json\n"
	"  darc explain trace.db --top 1 --verbose\n";

enum { OPT_TOP = OPTION_LAST, OPT_VERBOSE };

struct args {
	int top;
	bool verbose;
};

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct err_msg *err)
{
	struct args *a = args;
	double v;

	if (c == OPT_VERBOSE) {
		a->verbose = true;
		return 0;
	}
	if (c != OPT_TOP)
		return -1;
	if (number_real(arg, 1, 64, &v))
		return err_setf(err, NULL, "a number from 1 to 64");
	a->top = (int)v;
	return 0;
}

/* explain picks its subjects and reads them one way: the options that choose otherwise are not its */
static int check(struct cmd_ctx *ctx, void *args)
{
	const struct report_options *o = &ctx->o;

	if (o->sel.func || o->sel.fnode || o->sel.path || o->npeaks) {
		err_setf(&ctx->err, NULL,
			 "explain chooses its subjects and their slow parts: --func,"
			 " --fnode, --path and --peaks are darc paths'");
		return OPTION_BAD;
	}
	if (o->sel.metric != RM_INCL || o->sel.resolution != 1 || o->cycles ||
	    o->pp.rule != PEAK_SEEN) {
		err_setf(&ctx->err, NULL, "explain reads the latency in ns at resolution 1 with the"
					  " peaks a person sees: --metric, --resolution, --unit,"
					  " --prominence and --smooth are darc peaks'");
		return OPTION_BAD;
	}
	return OPTION_OK;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;

	return explain_report(stdout, ctx->db[0], &ctx->o, &ctx->o.search, a->top, a->verbose,
			      &ctx->err);
}

static const struct option opts[] = {
	OPTION_SHARED_OPTIONS,
	OPTION_SEARCH_OPTIONS,
	{"top", required_argument, NULL, OPT_TOP},
	{"verbose", no_argument, NULL, OPT_VERBOSE},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {3, false};

const struct cmd cmd_explain = {
	.usage_head = usage_head, .usage_mid = usage_calls, .usage_tail = usage_tail,
	.opts = opts, .take = own_option, .check = check, .run = run, .args = &args,
	.nargs = 1,
};
