/* SPDX-License-Identifier: MIT */
/*
 * setup.c: what every command needs before it runs (the options they all
 * share the shape of, the recording or databases they open) and after.
 */
#ifndef DARC_SETUP_H
#define DARC_SETUP_H

#include "err-msg.h"

struct cmd;
struct rdb;

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

/* Print "darc: MESSAGE" to stderr (one line). */
void setup_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
