/* SPDX-License-Identifier: MIT */
/*
 * flame: the calls a search loaded (the f0 calls of one slow part with
 * their subtrees, search.h's search_tree) summed by fnode, as the tree of a
 * flame graph for darc report's page. A call weighs its value (its latency
 * less the interrupts, preemption and tracer overhead in it), so a frame
 * is never narrower than its children together. Bounded: the FLAME_MAX
 * heaviest fnodes over FLAME_MIN of the whole (a parent weighs at least its
 * child, so every frame's callers are kept); the rest is its caller's own.
 */
#ifndef DARC_FLAME_H
#define DARC_FLAME_H

#include <jansson.h>

#include "rdb.h"
#include "search.h"

#define FLAME_MAX 300
#define FLAME_MIN 0.002

/*
 * {"total": ns, "calls": the f0 calls, "tree": [{"n": name, "v": ns, "c":
 * calls, "k": [children]}]}, or NULL out of memory.
 */
json_t *flame_json(struct rdb *db, const struct search_tree *t);

#endif
