/* SPDX-License-Identifier: MIT */
/* The darc subcommands: one file each, all reached through darc.c's table. */
#ifndef DARC_CMD_H
#define DARC_CMD_H

/* Exit statuses shared by every subcommand. */
enum {
	EXIT_OK = 0,
	EXIT_ANALYSIS = 1, /* the input was read but the analysis failed */
	EXIT_INPUT = 2,	   /* bad usage or unreadable/corrupt input */
};

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_peaks(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_paths(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_waits(int argc, char **argv);
int cmd_io(int argc, char **argv);
int cmd_export(int argc, char **argv);

struct fmt_err;
/*
 * The end of a report command that did not run, by ropt_parse()'s result
 * @how: its usage on stdout (ROPT_HELP, EXIT_OK) or stderr (ROPT_USAGE), or
 * the error in @err (ROPT_BAD); the parts of the usage text are printed in
 * order. Returns the exit status.
 */
int cmd_usage(int how, const struct fmt_err *err, const char *head, const char *mid,
	      const char *tail);

/* Print "darc: MESSAGE" to stderr (one line). */
void darc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
