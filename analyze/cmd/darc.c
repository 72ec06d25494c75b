// SPDX-License-Identifier: MIT
/*
 * darc: the analyzer's entry point. One table of commands with what each
 * needs set up (setup.c does it); each returns its exit status, and main
 * fails if stdout could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "wfile.h"

/*
 * Every command, with what it needs set up before it runs (CMD_*, cmd.h);
 * its file (cmd/NAME.c) holds its usage, its options and its library call.
 */
static const struct command {
	const char *name;
	const struct cmd *cmd;
	unsigned flags;
	const char *help;
} commands[] = {
	{"analyze", &cmd_analyze, 0, "call trees, latency decomposition and histograms into SQLite"},
	{"info", &cmd_info, CMD_NEEDS_RECORDING | CMD_NO_KALLSYMS,
	 "what a recording holds: format, kernel, CPUs, span, events, losses"},
	{"dump", &cmd_dump, CMD_NEEDS_RECORDING, "every event, one line each, in time order"},
	{"hist", &cmd_hist, CMD_NEEDS_DB | CMD_SELECTION,
	 "the latency histogram (log2 buckets) of a function, with its peaks"},
	{"peaks", &cmd_peaks, CMD_NEEDS_DB | CMD_SELECTION,
	 "the peaks of a latency histogram, stored for later commands"},
	{"diff", &cmd_diff, CMD_NEEDS_DB,
	 "two recordings' latency profiles compared, most different first"},
	{"paths", &cmd_paths, CMD_NEEDS_DB | CMD_SELECTION,
	 "the root-cause path of each peak of a function (DARC), stored"},
	{"explain", &cmd_explain, CMD_NEEDS_DB,
	 "start here: the traced entry points' slow parts, their causes by time"},
	{"waits", &cmd_waits, CMD_NEEDS_DB, "a task's waits, each followed to the waker's own wait"},
	{"io", &cmd_io, CMD_NEEDS_DB,
	 "requests split into layers to the ns; bio stage histograms; irqs per thread"},
	{"report", &cmd_report, CMD_NEEDS_DB,
	 "the recording as one HTML page: histograms, causes, trees, flame graphs"},
	{"export", &cmd_export, CMD_NEEDS_DB,
	 "folded stacks (flame graphs), Trace Event JSON, speedscope or Perfetto traces"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void cmd_having_option(const char *name, const char *except, char *buf, size_t n)
{
	const char *have[NCOMMANDS];
	size_t k = 0, len = 0;

	for (size_t i = 0; i < NCOMMANDS; i++)
		for (const struct option *o = commands[i].cmd->opts;
		     o->name && strcmp(commands[i].name, except); o++)
			if (!strcmp(o->name, name)) {
				have[k++] = commands[i].name;
				break;
			}
	buf[0] = 0;
	for (size_t i = 0; i < k && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i + 1 < k ? ", " : " and ",
				have[i]);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: darc <command> [options] [args]\n\n"
		   "darc finds the root causes of latency peaks in Linux traces.\n"
		   "Recordings: trace.dat (trace-cmd v6/v7), darc bundles, perf.data,\n"
		   "ftrace text (cat trace, trace_pipe, trace-cmd report) and uftrace.data.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'darc <command> --help' explains a command.\n"
		   "exit status: 0 success, 1 analysis failed, 2 bad usage or input, and a\n"
		   "selection that names nothing in the recording or holds no call (--func,\n"
		   "--task, --comm, --time, --call): each said in one line on stderr\n");
}

int main(int argc, char **argv)
{
	int rc;

	/* a file being written is removed if a signal ends darc (wfile.h) */
	wfile_catch_signals();

	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return fflush(stdout) ? EXIT_INPUT : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("darc %s\n", DARC_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		rc = cmd_run(commands[i].cmd, commands[i].name, commands[i].flags, argc - 1,
			     argv + 1);
		if (fflush(stdout) || ferror(stdout)) {
			if (errno != EPIPE)
				fprintf(stderr, "darc: cannot write the output: %s\n",
					strerror(errno));
			return rc ? rc : EXIT_INPUT;
		}
		return rc;
	}
	darc_error("unknown command '%s' (see 'darc --help')", argv[1]);
	return EXIT_INPUT;
}
