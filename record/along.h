/* SPDX-License-Identifier: MIT */
/*
 * along.c: --along DB: the functions on the paths a darc analysis found.
 */
#ifndef DARC_REC_ALONG_H
#define DARC_REC_ALONG_H

#include "err-msg.h"
#include "rec.h"

/* What --along took from the database. */
struct rec_along {
	char *db;	    /* its path */
	char *source;	    /* the recording it analyzed */
	char **roots;	    /* graph roots: the entry points' kernel functions */
	int nroots;
	char **funcs;	    /* every function traced: roots, path nodes, their callees */
	int nfuncs;
	int npath;	    /* of them on the paths */
	int nskipped;	    /* functions of the paths this kernel cannot trace */
	int elsewhere;	    /* callees left out: they run mostly elsewhere */
	char *profile_json; /* the entry points' latency profiles in the database (JSON) */
};

/*
 * Read database @path: the entry points and paths its searches and
 * explanations found, their functions and direct callees into @a. Functions
 * this kernel cannot trace (not in available_filter_functions) are left out
 * and counted. 0, or -1 with @err.
 */
int along_read(const char *path, struct rec_along *a, struct err_msg *err);

/* Put @a's functions into @o (graph roots, function filter). */
int along_apply(struct rec_opts *o, const struct rec_along *a);

void along_free(struct rec_along *a);

#endif
