/* SPDX-License-Identifier: MIT */
/*
 * commands.c: the table of the commands, their names and what each needs.
 */
#ifndef DARC_COMMANDS_H
#define DARC_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

struct cmd;

/* The command named @name and, in *@flags, what it needs (CMD_*); or NULL. */
const struct cmd *commands_find(const char *name, unsigned *flags);

/* Each command's line of darc --help, "  NAME     what it does", to @f. */
void commands_list(FILE *f);

/*
 * The commands but @except whose options include --@name, as "explain, io
 * and waits", into @buf ("" if none): for "unknown option" (setup.c).
 */
void commands_having_option(const char *name, const char *except, char *buf, size_t n);

#endif
