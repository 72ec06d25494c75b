/* SPDX-License-Identifier: MIT */
/*
 * The darc commands: one file each, all reached through commands.c's table,
 * whose flags say what a command needs before it runs (git's RUN_SETUP):
 * setup.c parses the options every command shares the shape of, opens the
 * recording or the databases its arguments name, and closes them after. A
 * command file holds its usage, its options and one library call.
 */
#ifndef DARC_CMD_H
#define DARC_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "fmt.h"
#include "options.h"

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

/*
 * Run @cmd, named @name, with what @flags (CMD_*) say it needs, on its
 * command line (argv[0] is its name): setup, run, teardown. The exit status.
 */
int setup_run(const struct cmd *cmd, const char *name, unsigned flags, int argc, char **argv);

/*
 * The database of @path for command @prog: @path itself when it is a darc
 * database, else the analysis of recording @path in RECORDING.db, made
 * first (through the pipeline) unless one newer than the recording is
 * there. NULL, with @err set, when neither can be had.
 */
struct rdb *setup_open_db(const char *path, const char *prog, struct err_msg *err);

/* commands.c: the command named @name and, in *@flags, what it needs (CMD_*); or NULL. */
const struct cmd *commands_find(const char *name, unsigned *flags);

/* Each command's line of darc --help, "  NAME     what it does", to @f. */
void commands_list(FILE *f);

/*
 * The commands but @except whose options include --@name, as "explain, io
 * and waits", into @buf ("" if none): for "unknown option" (setup.c).
 */
void commands_having_option(const char *name, const char *except, char *buf, size_t n);

/* suggest.c: the edit distance of @a and @b, a transposition counting one. */
int suggest_distance(const char *a, const char *b);

/* The largest distance from @word at which a name is a slip for it. */
int suggest_close(const char *word);

/*
 * Does what @o selects (--func, --task, --comm, --time, --call) name
 * something in @db, and (with @calls: its filters choose calls, not waits)
 * hold calls together? 0, or -1 with @err saying what is missing and what
 * @db has instead (a close name, its tasks, its span): every command that
 * reads a database asks this before it runs.
 */
int suggest_check_selection(struct rdb *db, const struct report_options *o, bool calls,
			    struct err_msg *err);

/* Print "darc: MESSAGE" to stderr (one line). */
void setup_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
