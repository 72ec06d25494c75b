// SPDX-License-Identifier: MIT
/*
 * darc's table of commands: each one's name, file (cmd/cmd-NAME.c), what it
 * needs set up (setup.c does it) and its line in darc --help.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "commands.h"

/*
 * Every command, with what it needs set up before it runs (CMD_*, cmd.h);
 * its file (cmd/cmd-NAME.c) holds its usage, its options and its library call.
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

void commands_having_option(const char *name, const char *except, char *buf, size_t n)
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

const struct cmd *commands_find(const char *name, unsigned *flags)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name)) {
			*flags = commands[i].flags;
			return commands[i].cmd;
		}
	return NULL;
}

void commands_list(FILE *f)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
}
