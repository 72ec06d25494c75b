/* SPDX-License-Identifier: MIT */
/*
 * explain-db: darc explain over a database (explain-db.c).
 */
#ifndef DARC_EXPLAIN_DB_H
#define DARC_EXPLAIN_DB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "options.h"
#include "search.h"

/*
 * darc explain: the recording's entry points (the roots of its call trees,
 * and a user program's outermost functions called more than once; not the
 * tracer's own, not interrupt handlers), ranked by the latency of their
 * slow part (explain.h); the @top of them each with the search of its slow
 * part, stored, and the causes it names, largest first, one sentence each
 * (with @verbose the search tree too). Stored in explain_subject and
 * explain_cause.
 */
int explain_report(FILE *out, struct rdb *db, const struct report_options *o,
		   const struct search_params *sp, int top, bool verbose, struct err_msg *err);
/*
 * What darc explain prints, as its JSON's "subjects" array (stored too):
 * NULL with @err set. *@nsubjects: the entry points there were.
 */
json_t *explain_db_collect(struct rdb *db, const struct report_options *o,
			   const struct search_params *sp, int top, int *nsubjects,
			   struct err_msg *err);

#endif
