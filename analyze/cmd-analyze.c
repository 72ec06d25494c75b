// SPDX-License-Identifier: MIT
/*
 * darc analyze: a recording in, an SQLite database out (the ftree, every
 * call with its latency decomposition, the intervals behind it, and the
 * histograms), and a summary of the functions with the most latency.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <traceevent/event-parse.h>

#include "cmd.h"
#include "config.h"
#include "fmt.h"
#include "ftree.h"
#include "funcs.h"
#include "write.h"
#include "pipeline.h"
#include "summary.h"

static const char usage_text[] =
	"usage: darc analyze [options] RECORDING\n\n"
	"Rebuild every task's call tree from a recording (function_graph, kprobe\n"
	"and uprobe pairs, system calls), split each call's latency into\n"
	"  incl = excl + children + irq + softirq + preempt + blocked  (ns)\n"
	"and write it all to an SQLite database: view call (every call), fnode\n"
	"(the ftree: a function per call path), hist (OSprof log2 histograms),\n"
	"irq_interval, sched_interval, wakeup, task, func, recording. See\n"
	"schema/README.md for the tables and views. Then print the functions with\n"
	"the most inclusive latency.\n\n"
	"  -o, --output DB      database to write (default: beside RECORDING, its name\n"
	"                       without the extension plus .db: dir/x.dat -> dir/x.db,\n"
	"                       where every command looks for it); written to a\n"
	"                       temporary file and renamed at the end. An existing DB\n"
	"                       is replaced only when it is a darc database, never a\n"
	"                       file the command reads nor one that is not regular\n"
	"  -f, --force          replace an existing DB even if it is not a darc database\n"
	"  -t, --top N          functions in the summary (default 10)\n"
	"      --max-depth N    store call rows only for depth < N (the ftree,\n"
	"                       histograms and totals still count every call)\n"
	"      --indexes        also index the calls by function, fnode and task\n"
	"                       (faster queries on big recordings; about 2 s more\n"
	"                       per 2.8 M calls). A call's children are always\n"
	"                       indexed\n"
	"      --json           print the summary as JSON\n"
	"      --all            the tracer's own functions in the summary too (probe\n"
	"                       handlers, ftrace: func.overhead; left out by default)\n"
	"  -q, --quiet          no summary\n"
	"  -h, --help\n\n"
	"example:\n"
	"  darc analyze trace.dat -o trace.db\n"
	"  sqlite3 -header trace.db \"SELECT * FROM slowest_calls WHERE func = 'vfs_read' LIMIT 5\"\n";

enum { OPT_MAX_DEPTH = 300, OPT_JSON, OPT_INDEXES, OPT_ALL };

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'f'},
		{"top", required_argument, NULL, 't'},
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
		{"json", no_argument, NULL, OPT_JSON},
		{"all", no_argument, NULL, OPT_ALL},
		{"indexes", no_argument, NULL, OPT_INDEXES},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct pipeline_opts po = PIPELINE_OPTS_INIT;
	struct pipeline_result res;
	char *out = NULL, *end;
	const char *path;
	int c, top = 10, rc = EXIT_INPUT;
	bool json = false, quiet = false, force = false, all = false;
	struct fmt_err err;

	po.progress = isatty(2);
	while ((c = getopt_long(argc, argv, "o:t:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'o':
			free(out);
			out = strdup(optarg);
			break;
		case 't':
			top = (int)strtol(optarg, &end, 10);
			if (*end || top < 0) {
				darc_error("bad --top '%s': a number expected", optarg);
				goto out;
			}
			break;
		case OPT_MAX_DEPTH:
			po.max_depth = (int)strtol(optarg, &end, 10);
			if (*end || po.max_depth < 0) {
				darc_error("bad --max-depth '%s': a number expected", optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_INDEXES:
			po.indexes = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(out);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		goto out;
	}
	path = argv[optind];
	if (!out && !(out = pipeline_db_path(path))) {
		darc_error("out of memory");
		goto out;
	}
	wfile_note_input(path);
	if (db_check_output(out, force, &err)) {
		darc_error("%s", err.msg);
		goto out;
	}
	po.force = force;
	rc = pipeline_run(path, out, &po, quiet ? NULL : &res, &err);
	if (rc != PIPELINE_OK) {
		darc_error("%s", err.msg);
		goto out;
	}
	if (!quiet) {
		struct summary_opts so = {top, json, all};
		const char *hint = summary_no_calls_hint(&res);
		summary_print(stdout, &res, path, out, &so);
		if (hint)
			fprintf(stderr, "darc: note: '%s': %s\n", path, hint);
		pipeline_result_release(&res);
	}
	rc = EXIT_OK;
out:
	free(out);
	return rc;
}
