/* SPDX-License-Identifier: MIT */
/*
 * waits: darc waits, the longest waits with their chains (waits.c).
 */
#ifndef DARC_WAITS_H
#define DARC_WAITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdb.h"

/* Which waits darc waits shows, and how far apart a chain's links may be. */
struct waits_sel {
	int64_t task, call; /* the waits of this task, or inside this call */
	int top;	    /* the longest this many */
	int64_t slack_ns;   /* a waker's wait ended at most this long before its wake-up */
};
#define WAITS_SLACK_DEFAULT 1000000 /* 1 ms, as view wait's parent_id */

/* The longest waits @ws selects, each with its chain (darc waits --json's array), or NULL. */
json_t *waits_json(struct rdb *db, const struct waits_sel *ws, struct err_msg *err);

/* darc waits: the longest waits @ws selects, each with its chain. */
int waits_report(FILE *out, struct rdb *db, const struct waits_sel *ws, bool json,
		 struct err_msg *err);

/*
 * Why the recording of @db cannot name the hard interrupts that woke its
 * tasks, and what to record: a sentence. @idle: the wake-ups were on idle
 * CPUs.
 */
const char *waits_unnamed_advice(struct rdb *db, bool idle);

#endif
