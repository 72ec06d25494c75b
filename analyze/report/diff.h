/* SPDX-License-Identifier: MIT */
/*
 * diff: two recordings' profiles side by side. Every function (by name) and
 * every fnode (by call path) of either database is paired with its
 * namesake in the other, pairs too small to matter are pruned, and the rest
 * rated by OSprof's methods (profile.h), the chosen one ranking them.
 */
#ifndef DARC_DIFF_H
#define DARC_DIFF_H

#include <stdbool.h>

#include "profile.h"
#include "rdb.h"

struct diff_opts {
	int method;	   /* enum cmp_method ranking the pairs (default CMP_EMD) */
	double threshold;  /* a pair differs when its score reaches this (percent) */
	int metric;	   /* RM_INCL or RM_EXCL (the stored histograms) */
	int resolution;	   /* 1..4 */
	int kind;	   /* OWNER_FUNC, OWNER_FNODE, or -1 for both */
	int min_calls;	   /* prune a pair with fewer calls on both sides ... */
	double min_share;  /* ... and less than this share of its recording's latency */
	struct peak_params pp; /* for the GROUP methods */
	const char *svg;   /* write the plot of one pair here, or NULL */
	const char *pair;  /* that pair's function name or path (NULL: the first ranked) */
	bool force;	   /* replace svg even if it is not an SVG plot */
};

/* The default threshold of each method, in percent (see README.md, darc diff). */
double diff_default_threshold(int method);

struct dset;

/* One pair; a side missing from a recording has a NULL profile and an infinite score. */
struct diff_pair {
	int kind;		     /* OWNER_FUNC or OWNER_FNODE */
	const char *key;	     /* function name or call path */
	const struct profile *a, *b; /* owned by the result */
	uint64_t calls_a, calls_b;
	double lat_a, lat_b;	     /* total latency, ns */
	double scores[CMP_METHODS];
	double score;		     /* scores[method] */
};

struct diff_result {
	struct dset *sets;	 /* [2]: A's and B's profiles */
	struct diff_pair *pairs; /* rated, highest score first */
	int npairs;
	int pruned;		 /* pairs left out as too small */
	int above;		 /* pairs at or above the threshold */
};

/* Pair, prune and rate; release with diff_release(). 0, or -1 with @err set. */
int diff_run(struct rdb *a, struct rdb *b, const struct diff_opts *o, struct diff_result *r,
	     struct err_msg *err);

void diff_release(struct diff_result *r);

#endif
