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

/* Print "darc: MESSAGE" to stderr (one line). */
void darc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
