// SPDX-License-Identifier: MIT
/*
 * darc: the analyzer's entry point. One table of subcommands; each returns
 * its exit status, and main fails if stdout could not be written.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "write.h"
#include "ropt.h"
#include "vis.h"
#include "wfile.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd commands[] = {
	{"analyze", cmd_analyze, "call trees, latency decomposition and histograms into SQLite"},
	{"info", cmd_info, "what a recording holds: format, kernel, CPUs, span, events, losses"},
	{"dump", cmd_dump, "every event, one line each, in time order"},
	{"hist", cmd_hist, "the latency histogram (log2 buckets) of a function, with its peaks"},
	{"peaks", cmd_peaks, "the peaks of a latency histogram, stored for later commands"},
	{"diff", cmd_diff, "two recordings' latency profiles compared, most different first"},
	{"paths", cmd_paths, "the root-cause path of each peak of a function (DARC), stored"},
	{"explain", cmd_explain, "the slowest functions with several peaks, each peak's root cause"},
	{"waits", cmd_waits, "a task's waits, each followed to the waker's own wait"},
	{"io", cmd_io, "requests split into layers to the ns; bio stage histograms; irqs per thread"},
	{"export", cmd_export, "folded stacks (flame graphs) or Trace Event JSON (Perfetto, speedscope)"},
};

void darc_error(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* messages quote names from recordings: escaped, and one line whatever they hold */
	fputs("darc: ", stderr);
	vis_put(stderr, msg, 0);
	fputc('\n', stderr);
}

int cmd_usage(int how, const struct fmt_err *err, const char *head, const char *mid,
	      const char *tail)
{
	FILE *f = how == ROPT_HELP ? stdout : stderr;

	if (how == ROPT_BAD) {
		darc_error("%s", err->msg);
		return EXIT_INPUT;
	}
	fprintf(f, "%s%s%s", head, mid, tail);
	return how == ROPT_HELP ? EXIT_OK : EXIT_INPUT;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: darc <command> [options] [args]\n\n"
		   "darc finds the root causes of latency peaks in Linux traces.\n"
		   "Recordings: trace.dat (trace-cmd v6/v7), darc bundles and ftrace text\n"
		   "(function_graph output of cat trace or trace-cmd report).\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'darc <command> --help' explains a command.\n"
		   "exit status: 0 success, 1 analysis failed, 2 bad usage or input\n");
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
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		rc = commands[i].fn(argc - 1, argv + 1);
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
