/* SPDX-License-Identifier: MIT */
/*
 * explain: the rules of darc explain that need no database, so each has unit
 * tests: which part of a subject's profile is slow (and what it is
 * contrasted with), the causes a search tree names, and the sentence that
 * says each cause.
 */
#ifndef DARC_EXPLAIN_H
#define DARC_EXPLAIN_H

#include <jansson.h>

#include "profile.h"

/* A tail under this share of the subject's latency is not worth a section. */
#define EXPLAIN_TAIL_MIN 0.05
/* Another slow peak is a part of its own when it holds this share of the latency too. */
#define EXPLAIN_PEAK_LARGE 0.05
/* Causes under this share of the slow part are dropped (unless nothing else). */
#define EXPLAIN_CAUSE_MIN 0.05

enum { SLOW_PEAK, SLOW_TAIL, SLOW_BODY };

struct slow_part {
	int how;	  /* SLOW_PEAK, SLOW_TAIL, or SLOW_BODY (nothing slow: the body itself) */
	int number;	  /* the peak's number (1, 2, ... left to right), 0 for a tail */
	struct peak slow; /* its buckets, calls, latency and share of it */
	struct peak body; /* what it is contrasted with; calls 0 when nothing */
};

/*
 * The slow parts of @p, the costliest first, up to @max into @out:
 *  - two peaks or more (profile_peaks_seen()): the body is the peak with the
 *    most calls, or the fastest peak with at least half as many (cached
 *    reads beside as many disk reads are the body); the slow part is the peak above the body with the most
 *    latency, and every other peak above it that holds EXPLAIN_PEAK_LARGE
 *    of the latency is one more;
 *  - one peak (or none above the body): the tail, the buckets above the one
 *    that holds the 90th percentile of the calls, against the body below,
 *    when it holds EXPLAIN_TAIL_MIN of the latency or more;
 *  - else, nothing slower than the rest: the body itself (SLOW_BODY), where a
 *    typical call spends its time, with *@tail_share the tail's share (0
 *    when the 90th percentile is in the last bucket).
 * Every profile with calls has an answer. Returns how many (0 only for an
 * empty profile), or -1 when out of memory.
 */
int explain_slow_parts(const struct profile *p, struct slow_part *out, int max,
		       double *tail_share);

/*
 * The causes a search tree names (@nodes as darc paths --json gives them),
 * the largest first: one per leaf of the tree (a path from below f0 to it),
 * one per runner-up that cost more than the cause the winners at its level
 * lead to ("follow": {"fnode": the level's fnode, "name": the runner-up}
 * when it is a function whose own cause the caller looks up), and where a
 * path ends in a function's part (self, blocked, ...), its other parts of
 * EXPLAIN_CAUSE_MIN or more ("wakers_of": {"fnode"} for a blocked one, whose
 * wakers the caller looks up). An interrupt source or preemption weighed at
 * several levels is one cause, the outermost. Each {"path", "kind",
 * "ns", "share" (of f0's latency in the peak), "votes", "who"}. Causes under
 * EXPLAIN_CAUSE_MIN are dropped unless that leaves none.
 */
json_t *explain_causes(json_t *nodes);

/* The same, neither ranked nor the small ones dropped (explain_rank_causes() does). */
json_t *explain_causes_unranked(json_t *nodes);

/* Keep @causes' largest first, dropping the small ones as explain_causes() does. */
void explain_rank_causes(json_t *causes);

/* A part's kind for JSON and table explain_subject: "peak", "tail", "body". */
const char *explain_how(int how);

/* A part's kind in a sentence: "slow peak", "slow tail", "typical calls". */
const char *explain_part_name(int how);

/* "write()" for __x64_sys_write, "ping()" for ping. (Caller frees.) */
char *explain_title(const char *func);

/* "syscall", "user" or "root", from func.kind and the name. */
const char *explain_kind(const char *func, int func_kind);

/*
 * The sentence that says @cause of @title's slow part @sp (whose share of
 * the subject's latency is @sp->slow.share_lat): "write(): slow peak
 * (buckets 21-24, 110 calls, 38% of its latency): waiting for ... (a > b),
 * 71% of that time, woken by writer [212]". (Caller frees.)
 */
char *explain_sentence(const char *title, const struct slow_part *sp, json_t *cause);

#endif
