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
	"usage: darc io [options] DB|RECORDING (--func F | --call ID | --bios | --irqs)\n\n"
	"The slowest requests (complete calls of F, a system call say, or the call\n"
	"ID) with their latency split into layers, ReLayTracer's way: each call's\n"
	"own CPU time to the layer of its function (vfs, fs, page cache, copy, block,\n"
	"driver, scheduler; a function no pattern names takes its caller's layer),\n"
	"interrupts, preemption, and each sleep split by the bio that ended it into\n"
	"block queue, device, completion to wake-up and run delay (the rest of a\n"
	"sleep is other wait). The layers add up to the request's latency exactly,\n"
	"and darc checks that they do. Each request's layers are stored in table\n"
	"io_layer of the database (schema/README.md), replacing earlier ones.\n\n"
	"With --bios, per device, biolatency-style log2 histograms of the bios'\n"
	"queue (submitted to issued), device (issued to completed, once per request\n"
	"as biolatency: merged bios left out) and total times\n"
	"with their peaks; with --irqs, ReLayTracer's table of how often and how long\n"
	"each thread was interrupted, per kind (hardirq, softirq, ...).\n\n"
	"      --func F         the slowest calls of F\n"
	"      --call ID        this call (call.id)\n"
	"      --bios           histograms of the bio stages per device\n"
	"      --irqs           interrupt counts and time per thread\n"
	"      --layers FILE    your layer map first: lines 'GLOB LAYER' (# comments),\n"
	"                       e.g. 'ext4_file_read_iter page cache'\n"
	"      --top N          how many (default 5; --irqs: 20)\n"
	"      --json           print JSON\n"
	"  -h, --help\n\n"
	"examples:\n"
	"  darc io trace.db --func __x64_sys_pread64 --top 3\n"
	"  darc io trace.db --func __x64_sys_pread64 --layers my-layers.txt\n"
	"  darc io trace.db --bios\n"
	"  darc io trace.db --irqs --json\n";

enum { OPT_FUNC = 300, OPT_CALL, OPT_TOP, OPT_JSON, OPT_BIOS, OPT_IRQS, OPT_LAYERS };

struct io_args {
	const char *func, *layers;
	int64_t call;
	int what, top; /* what: 0 (requests), OPT_BIOS or OPT_IRQS */
	bool json;
};

static int show(struct rdb *db, const struct io_args *a, struct fmt_err *err)
{
	struct io_rules rules = {0};
	int rc;

	if (a->what == OPT_BIOS)
		return report_bios(stdout, db, a->json, err);
	if (a->what == OPT_IRQS)
		return report_irqs(stdout, db, a->top ? a->top : 20, a->json, err);
	if (a->layers && io_rules_load(a->layers, &rules, err))
		return -1;
	rc = report_io(stdout, db, &rules, a->func, a->call, a->top ? a->top : 5, a->json, err);
	io_rules_free(&rules);
	return rc;
}

/* One option into @a: 0, 1 for --help, -1 when bad. */
static int take(int c, struct io_args *a)
{
	long long v = 1;
	char *end;

	if (c == OPT_CALL || c == OPT_TOP) {
		v = strtoll(optarg, &end, 10);
		if (*end || v < 1)
			return darc_error("bad argument '%s' of an option", optarg), -1;
	}
	if (c == 'h')
		return 1;
	else if (c == OPT_FUNC)
		a->func = optarg;
	else if (c == OPT_LAYERS)
		a->layers = optarg;
	else if (c == OPT_CALL)
		a->call = v;
	else if (c == OPT_TOP)
		a->top = v > 1000 ? 1000 : (int)v;
	else if (c == OPT_JSON)
		a->json = true;
	else if ((c == OPT_BIOS || c == OPT_IRQS) && a->what && a->what != c)
		return darc_error("--bios and --irqs are two reports: ask for one"), -1;
	else if (c == OPT_BIOS || c == OPT_IRQS)
		a->what = c;
	else
		return fputs(usage_text, stderr), -1;
	return 0;
}

int cmd_io(int argc, char **argv)
{
	static const struct option opts[] = {
		{"func", required_argument, NULL, OPT_FUNC},
		{"call", required_argument, NULL, OPT_CALL},
		{"top", required_argument, NULL, OPT_TOP},
		{"json", no_argument, NULL, OPT_JSON},
		{"bios", no_argument, NULL, OPT_BIOS},
		{"irqs", no_argument, NULL, OPT_IRQS},
		{"layers", required_argument, NULL, OPT_LAYERS},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct io_args a = {0};
	int c, t, rc = EXIT_INPUT;
	struct fmt_err err = {""};
	struct rdb *db = NULL;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((t = take(c, &a)))
			return t > 0 ? (fputs(usage_text, stdout), EXIT_OK) : EXIT_INPUT;
	if (optind != argc - 1 || (!!a.func + !!a.call + !!a.what) != 1) {
		if (optind == argc - 1)
			darc_error("say what to show: one of --func, --call, --bios or --irqs");
		else
			fputs(usage_text, stderr);
		return EXIT_INPUT;
	}
	db = ropt_open_db(argv[optind], "io", &err);
	if (db && !show(db, &a, &err))
		rc = EXIT_OK;
	else
		darc_error("%s", err.msg);
	rdb_close(db);
	return rc;
}
