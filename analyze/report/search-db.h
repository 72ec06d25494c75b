/* SPDX-License-Identifier: MIT */
/*
 * search-db: a root-cause search's input read from a darc database (the f0
 * calls of one peak, their subtrees streamed a call at a time into the
 * search's compact tree, and the interrupts charged to them), and its
 * result written back (tables search, search_path,
 * search_candidate), with the names people read.
 */
#ifndef DARC_SEARCH_DB_H
#define DARC_SEARCH_DB_H

#include <jansson.h>

#include "rdb.h"
#include "search.h"

struct rsearch {
	struct search_tree tree; /* what search.c reads */
	char **sources;	     /* [nsources] "irq 11 (virtio0-requests)", "softirq TIMER", ... */
	int *soft;	     /* [nsources] */
	int nsources;
	int nroots;
};

/*
 * search_db_load() reads the later half of a peak's f0 calls on a second
 * thread when their ranges hold this many calls or more (100000; tests
 * set it).
 */
extern int search_db_share_min;

/* The values of buckets @lo..@hi of @sel, as search_db_load() selects them: [*@lo_ns, *@hi_ns). */
void search_db_range(const struct call_selection *sel, int lo, int hi, int64_t *lo_ns,
		     int64_t *hi_ns);

/*
 * Before the searches of @n ranges @pk of @sel (and anything else that
 * selects their calls again, as explain's tracer shift does): their calls
 * read from the calls at once (rdb_preselect_calls), each search's load
 * then taking its own from them. End with rdb_preselect_end(). 0, or -1
 * with @err set.
 */
int search_db_preselect(struct rdb *db, const struct call_selection *sel, const struct peak *pk,
			int n, struct err_msg *err);

/*
 * Load the complete calls of @sel whose value lies in buckets @lo..@hi
 * (resolution 1: [2^lo, 2^(hi+1)) ns) with their subtrees. 0, or -1 with
 * @err set. Release with search_db_release().
 */
int search_db_load(struct rdb *db, const struct call_selection *sel, int lo, int hi,
		   struct rsearch *rs, struct err_msg *err);
void search_db_release(struct rsearch *rs);

/*
 * Count each f0 call's subtree by its functions' kinds as search_db_load()
 * reads it: the calls of its task among the ids of its subtree, itself
 * not, by @kind[fnode id] (enum func_kind, 0..3; -1 none of them) for ids
 * below @n. The tracer's share (tracer-shift.c) asks that of the calls a
 * search has just read, and read them all again for it. @kind is the
 * caller's and outlives @db's searches; NULL stops the counting.
 */
void search_db_count_kinds(struct rdb *db, const signed char *kind, int64_t n);

/*
 * The last search's count of f0 call @id (its subtree to @last, of task
 * @task), four numbers by func kind; NULL if it was not one of its f0 calls
 * or nothing was counted.
 */
const uint32_t *search_db_kinds_of(struct rdb *db, int64_t id, int64_t last, int64_t task);

/*
 * The functions from below fnode @above down to fnode @to, which lies in
 * its subtree (a JSON array of names; empty when @to is @above).
 */
json_t *search_db_chain(struct rdb *db, int64_t above, int64_t to);

/* The name of node or candidate (@kind, @id): a function, a source (caller frees). */
char *search_db_name(struct rdb *db, const struct rsearch *rs, int kind, int64_t id);

/*
 * Store @r as a new search of @f0 (the selection's title) over [@lo, @hi]
 * (@peak: its number, or 0 for a range given) with @params (JSON), in a
 * transaction on a second, writable connection. Sets *@id. 0, or -1.
 */
int search_db_store(struct rdb *db, const struct call_selection *sel, const char *f0, int peak,
		    int lo, int hi, const char *params, const struct rsearch *rs,
		    const struct search_result *r, int64_t *id, struct err_msg *err);

#endif
