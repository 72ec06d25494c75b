/* SPDX-License-Identifier: MIT */
/*
 * paths: darc paths, DARC's root-cause search for each peak (paths.c).
 */
#ifndef DARC_PATHS_H
#define DARC_PATHS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "options.h"
#include "profile.h"
#include "search.h"

/*
 * darc paths: DARC's root-cause search for every peak of @o's selection (or
 * peak @peak only, or the ranges @o gives), each stored in tables search,
 * search_path and search_candidate, printed as indented chains (or JSON).
 */
int paths_report(FILE *out, struct rdb *db, const struct report_options *o,
		 const struct search_params *sp, int peak, struct err_msg *err);

/*
 * For darc explain (explain-db.c), the parts of darc paths it shares: search
 * @o's calls in buckets @pk->lo..@pk->hi (peak @number, 0 for a range),
 * store the search, and append {"search", "peak", "lo", "hi", "calls",
 * "nodes"} to @all; print a search's nodes as darc paths does.
 */
int paths_search(struct rdb *db, const struct report_options *o, const struct search_params *sp,
		 const char *what, int number, const struct peak *pk, json_t *all,
		 struct err_msg *err);
void paths_tree_text(FILE *out, json_t *nodes);
/*
 * Who ended the sleeps of fnode ?1 within the current search's calls (-1:
 * f0's own), one row each, most time first: a task as "comm [tid]", an
 * interrupt as the interrupt ("timer (...)", "irq N (handler)", "softirq
 * X"), never the task it happened to hit; then the count and the time.
 */
extern const char paths_wakers_sql[];

/*
 * The first row's text of paths_wakers_sql for sleeper @fnode, if the
 * current search's details asked it already: true, with *@who a new
 * string (NULL if no row, or its text NULL). false (*@who NULL): ask it.
 */
bool paths_woken_by(struct rdb *db, int64_t fnode, char **who);
/* Keep @who (copied; NULL: no row) as sleeper @fnode's first row in the current search. */
void paths_woken_keep(struct rdb *db, int64_t fnode, const char *who);

/*
 * A CTE of each hard interrupt handler's name and number, that of its first
 * interval (irq_interval has no index by name: a lookup a sleep scanned the
 * intervals): "(SELECT hn.irq FROM hn WHERE hn.name = ...)" after
 * "WITH " PATHS_HANDLER_IRQS.
 */
#define PATHS_HANDLER_IRQS                                                                       \
	"hn AS MATERIALIZED (SELECT name, irq FROM irq_interval WHERE id IN"                     \
	" (SELECT min(id) FROM irq_interval WHERE kind = 0 AND irq IS NOT NULL GROUP BY name))"
/*
 * The tasks that ran on the CPU a call of the current search left when it was
 * preempted, most time first: "comm [tid]", the count and the time.
 */
extern const char paths_ran_instead_sql[];

#endif
