// SPDX-License-Identifier: MIT
/*
 * darc: the analyzer's entry point. It finds the command in the table
 * (commands.c) and runs it with what it needs set up (setup.c); each returns
 * its exit status, and main fails if stdout could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cmd.h"
#include "commands.h"
#include "config.h"
#include "setup.h"
#include "wfile.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: darc <command> [options] [args]\n\n"
		   "darc finds the root causes of latency peaks in Linux traces.\n"
		   "Recordings: trace.dat (trace-cmd v6/v7), darc bundles, perf.data,\n"
		   "ftrace text (cat trace, trace_pipe, trace-cmd report) and uftrace.data.\n\n"
		   "commands:\n");
	commands_list(f);
	fprintf(f, "\n'darc <command> --help' explains a command.\n"
		   "exit status: 0 success, 1 analysis failed, 2 bad usage or input, and a\n"
		   "selection that names nothing in the recording or holds no call (--func,\n"
		   "--task, --comm, --time, --call): each said in one line on stderr\n");
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;
	unsigned flags;
	int rc;

	/* a file being written is removed if a signal ends darc (wfile.h) */
	wfile_catch_signals();
	/*
	 * SQLite's count of its memory takes one lock for the whole process at
	 * every allocation and free: the threads that write and read the
	 * database in parallel would wait on it. darc never asks for the count.
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);

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
	cmd = commands_find(argv[1], &flags);
	if (!cmd) {
		setup_error("unknown command '%s' (see 'darc --help')", argv[1]);
		return EXIT_INPUT;
	}
	rc = setup_run(cmd, argv[1], flags, argc - 1, argv + 1);
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "darc: cannot write the output: %s\n", strerror(errno));
		return rc ? rc : EXIT_INPUT;
	}
	return rc;
}
