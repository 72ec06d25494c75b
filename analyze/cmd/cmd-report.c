// SPDX-License-Identifier: MIT
/*
 * darc report: the recording as one self-contained HTML page
 * (report/page.c), written whole or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "number.h"
#include "page.h"
#include "wfile.h"

static const char usage_head[] =
    "usage: darc report [options] DB|RECORDING -o FILE.html\n\n"
    "The recording as one HTML page, to open first and to attach to a bug\n"
    "report: it needs nothing else (no network, no other file) and opens in\n"
    "any browser. Given a recording, darc analyzes it into RECORDING.db\n"
    "first (and reuses that).\n\n"
    "The page holds the recording's summary (format and tool, kernel, clock,\n"
    "CPUs, span, tasks, events, lost events, the busiest tasks); for each of\n"
    "the entry points darc explain ranks first, its log2 latency histogram\n"
    "with the peaks explain reads (a bar's count on hover; a click on a peak\n"
    "opens its search), explain's sentences, the search tree of each slow\n"
    "part (collapsible), a flame graph of the slow part's calls (summed by\n"
    "call path; a frame's time on hover, a click zooms in), and its time lapse\n"
    "as a heat map (calls per latency bucket and time window); the traced\n"
    "program's longest waits with the chains behind them, and, where the\n"
    "recording has bios, the I/O layers of the slowest calls of the entry\n"
    "point with the most latency and each device's times. It summarises:\n"
    "trees, flame graphs and plots, never every call.\n"
    "Running it stores darc explain's answers, as darc explain does.\n\n"
    "  -o FILE            the page (written whole, or not at all)\n"
    "      --top N        that many entry points (default 3, at most 16)\n"
    "      --force        replace FILE even if it is not an HTML page (never a file\n"
    "                     the command reads)\n";
static const char usage_tail[] =
    "  -h, --help\n\n"
    "examples:\n"
    "  darc report trace.dat -o trace.html\n"
    "  darc report trace.db --top 5 -o trace.html\n";

enum { OPT_TOP = OPTION_LAST };

struct args {
	const char *out;
	int top;
};

static int own_option(struct cmd_ctx *ctx, void *args, int c, const char *arg,
		      struct err_msg *err)
{
	struct args *a = args;
	long long v;

	if (c == 'o') {
		a->out = arg;
		return 0;
	}
	if (c != OPT_TOP)
		return -1;
	if (number_int(arg, &v) || v < 1 || v > 16)
		return err_setf(err, NULL, "a number from 1 to 16");
	a->top = (int)v;
	return 0;
}

static int check(struct cmd_ctx *ctx, void *args)
{
	if (!((struct args *)args)->out) {
		err_setf(&ctx->err, NULL, "say where the page goes: -o FILE.html");
		return OPTION_BAD;
	}
	return OPTION_OK;
}

struct job {
	struct rdb *db;
	const struct report_options *o;
	int top;
	struct err_msg err;
	int rc;
};

static int write_page(void *ctx, FILE *f)
{
	struct job *j = ctx;

	j->rc = page_report(f, j->db, j->o, j->top, &j->err);
	return j->rc;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct args *a = args;
	struct job j = {ctx->db[0], &ctx->o, a->top, {""}, 0};
	struct err_msg werr = {""};
	int rc = wfile_write(a->out, &wfile_html, ctx->o.force, write_page, &j, &werr);

	/* the file failed (not the page), or never opened: its error */
	ctx->err = rc == -1 || (rc && !j.rc) ? werr : j.err;
	return rc;
}

static const struct option opts[] = {
	{"top", required_argument, NULL, OPT_TOP},
	{"force", no_argument, NULL, OPTION_FORCE},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {NULL, 3};

const struct cmd cmd_report = {
	.usage_head = usage_head, .usage_mid = "", .usage_tail = usage_tail,
	.opts = opts, .shortopts = "ho:", .take = own_option, .check = check, .run = run,
	.args = &args, .nargs = 1,
};
