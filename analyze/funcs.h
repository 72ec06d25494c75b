/* SPDX-License-Identifier: MIT */
/*
 * funcs: the function table. Gives each function (kernel function, system
 * call, probed function) a small integer id the first time it is named.
 */
#ifndef DARC_FUNCS_H
#define DARC_FUNCS_H

#include <stdint.h>

#include "rows.h"

struct funcs;

/* An empty table, or NULL when out of memory. */
struct funcs *funcs_new(void);

/*
 * The id of the function of @kind called @name (copied) at @addr
 * (DARC_NULL if none), created on first use: ids are 1, 2, ...
 * Functions are the same when kind and name are. Returns -1 when out of memory.
 */
int64_t funcs_id(struct funcs *fs, int kind, const char *name, int64_t addr, const char *module);

/* Number of functions; they have ids 1..funcs_count(). */
int64_t funcs_count(const struct funcs *fs);

/* The row of function @id (1-based), or NULL. */
const struct func_rec *funcs_get(const struct funcs *fs, int64_t id);

/*
 * Is kernel function @name the tracer's own code (kprobe and uprobe
 * handlers, the ftrace and ring-buffer machinery)? Its time is the cost of
 * tracing, not of the workload: summaries leave it out by default.
 */
int funcs_tracer_overhead(const char *name);

/* Release the table. Accepts NULL. */
void funcs_free(struct funcs *fs);

#endif
