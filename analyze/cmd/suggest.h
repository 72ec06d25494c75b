/* SPDX-License-Identifier: MIT */
/*
 * suggest.c: what a mistyped name or an empty selection is close to, for
 * the one-line refusals of the commands.
 */
#ifndef DARC_SUGGEST_H
#define DARC_SUGGEST_H

#include <stdbool.h>

#include "err-msg.h"

struct rdb;
struct report_options;

/* The edit distance of @a and @b, a transposition counting one. */
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

#endif
