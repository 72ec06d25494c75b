/* SPDX-License-Identifier: MIT */
/*
 * The darc commands: one file each, all reached through commands.c's table,
 * whose flags say what a command needs before it runs (git's RUN_SETUP):
 * setup.c parses the options every command shares the shape of, opens the
 * recording or the databases its arguments name, and closes them after. A
 * command file holds its usage, its options and one library call.
 *
 * This header holds what they share; commands.h, setup.h and suggest.h
 * declare those files' functions.
 */
#ifndef DARC_CMD_H
#define DARC_CMD_H

#include <getopt.h>

#include "err-msg.h"
#include "options.h"

struct fmt_reader;
struct rdb;

/* Exit statuses shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_ANALYSIS = 1, /* the input was read but the analysis failed */
	EXIT_INPUT = 2,	   /* bad usage or unreadable/corrupt input */
};

/* What a command needs set up (commands.c's table). */
enum {
	/* its arguments are DB|RECORDING: each opened as a darc database, a recording
	   analyzed into RECORDING.db first (the pipeline), into ctx->db[] */
	CMD_NEEDS_DB = 1 << 0,
	/* its argument is a recording, opened into ctx->reader */
	CMD_NEEDS_RECORDING = 1 << 1,
	/* with CMD_NEEDS_RECORDING: without the kernel's symbols (it reads no address) */
	CMD_NO_KALLSYMS = 1 << 2,
	/* one of --func, --fnode or --path must be given (options_check) */
	CMD_SELECTION = 1 << 3,
};

/* What a command runs with: its options read, its inputs open. */
struct cmd_ctx {
	const char *name;	   /* "peaks": for messages */
	struct report_options o;   /* the report options (options.h), defaults if it takes none */
	char **args;		   /* the arguments after the options */
	int nargs;		   /* how many: struct cmd's nargs */
	struct rdb *db[2];	   /* CMD_NEEDS_DB: the databases of args[0], args[1] */
	struct fmt_reader *reader; /* CMD_NEEDS_RECORDING: args[0]'s */
	struct err_msg err;	   /* why run() failed, or empty */
};

/* A command: its usage, options and library call (its name and flags: commands.c's table). */
struct cmd {
	/* its usage: head, the middle (options_help for the report options, or ""), tail */
	const char *usage_head, *usage_mid, *usage_tail;
	const struct option *opts; /* {0}-ended, with {"help", ..., 'h'} */
	const char *shortopts;	   /* getopt's, NULL for "h" */
	/*
	 * Option @c of its own (with @arg) into @args, or into ctx->o: 0, or
	 * nonzero (with @err set: a bad value, said; else its usage). NULL: none.
	 */
	int (*take)(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err);
	/*
	 * What is left to check once the options are read (NULL: nothing): OPTION_OK,
	 * OPTION_USAGE or OPTION_BAD with ctx->err set. The number of arguments is
	 * checked after it.
	 */
	int (*check)(struct cmd_ctx *ctx, void *args);
	/*
	 * The command itself (one library call), with @ctx set up: 0, or nonzero
	 * for EXIT_INPUT, with ctx->err saying why (else it said so itself).
	 */
	int (*run)(struct cmd_ctx *ctx, void *args);
	void *args;  /* its options' values, with their defaults */
	int nargs;   /* the arguments it takes after its options: 1, or 2 (diff) */
};

extern const struct cmd cmd_analyze, cmd_info, cmd_dump, cmd_hist, cmd_peaks, cmd_diff,
	cmd_paths, cmd_explain, cmd_waits, cmd_io, cmd_report, cmd_export;

#endif
