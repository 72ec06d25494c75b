/* SPDX-License-Identifier: MIT */
/*
 * summary: what darc analyze prints when it is done: the counts, what was
 * lost, and the functions with the most latency, each split over its whole
 * subtree (its own CPU time, its callees', interrupts, preemption, sleep).
 */
#ifndef DARC_SUMMARY_H
#define DARC_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "pipeline.h"

struct summary_opts {
	int top;   /* functions listed */
	bool json; /* one JSON object instead of text */
	bool all;  /* the tracer's own functions too */
};

/* Print the summary of the run @res that wrote database @db from recording @rec. */
void summary_print(FILE *out, const struct pipeline_result *res, const char *rec, const char *db,
		   const struct summary_opts *o);

/*
 * A note for stderr when the recording yields no calls: what it lacks and
 * which darc-record options add it; NULL when there are calls.
 */
const char *summary_no_calls_hint(const struct pipeline_result *res);

#endif
