/* SPDX-License-Identifier: MIT */
/*
 * ftree: the state machines that turn a time-ordered stream of analysis
 * events into calls with their latency decomposition, the raw intervals
 * (interrupts, off-CPU time, wake-ups) behind it, and the ftree: one node
 * per function per call path, with latency histograms.
 *
 * Every nanosecond of a call lands in exactly one of excl, children, irq,
 * softirq, preempt, blocked: time is charged to the innermost open call of
 * the task, and a child's time is its parent's children_ns.
 */
#ifndef DARC_FTREE_H
#define DARC_FTREE_H

#include "event.h"
#include "hist.h"
#include "rows.h"

/* Where the rows go. Each returns 0, or -1 to stop the analysis. */
struct ftree_sink {
	void *ctx;
	int (*call)(void *ctx, const struct call_rec *c);
	int (*irq)(void *ctx, const struct irq_rec *r);
	int (*sched)(void *ctx, const struct sched_rec *r);
	int (*wakeup)(void *ctx, const struct wakeup_rec *r);
	int (*probe)(void *ctx, const struct probe_rec *r);
	int (*gap)(void *ctx, const struct gap_rec *r); /* may be NULL: not written */
};

struct ftree;

/* A new, empty analysis writing to @sink (copied). NULL when out of memory. */
struct ftree *ftree_new(const struct ftree_sink *sink);

/*
 * The excl_ns histograms (of fnodes and functions) need only resolutions 1
 * to @max (1 to 4), not the fine buckets (none of their quantiles is
 * asked): a 48th of the memory for resolution 1 alone, which each call's
 * exit touches. Before the first event; the default keeps them fine.
 */
void ftree_excl_resolution(struct ftree *ft, int max);

/*
 * Feed the next event (in time order). Returns 0, or -1 when a sink failed
 * or memory ran out (ftree_error() says which).
 */
int ftree_feed(struct ftree *ft, const struct analysis_event *e);

/* Close what is still open at the end of the recording (flagged NO_EXIT). */
int ftree_finish(struct ftree *ft);

/* Why the last call failed. */
const char *ftree_error(const struct ftree *ft);

/* The nodes of the ftree, in id order, with their distributions. */
struct ftree_node {
	struct fnode_rec rec;
	struct hist incl, excl; /* complete calls only */
	/* the complete calls' incl_ns, rec.calls of them, until ftree_finish()
	   has made the quantiles from them (then NULL) */
	int64_t *incl_v;
	int incl_cap;
	/* ftree's guesses of the next child's fnode (index + 1, 0 for none):
	   the first under this one, the one called after this one */
	int first_child, next_sibling;
};

int ftree_nnodes(const struct ftree *ft);
const struct ftree_node *ftree_node(const struct ftree *ft, int i);

/* Per-function distributions (complete calls), indexed by func_id; NULL if none. */
const struct hist *ftree_func_hist(const struct ftree *ft, int64_t func_id, int metric);
/* A function's exact quantiles of incl_ns over its complete calls (after ftree_finish()); NULL if none. */
const struct quant *ftree_func_quant(const struct ftree *ft, int64_t func_id);
int64_t ftree_max_func(const struct ftree *ft);

/* Call @fn with the tid of every task seen; stops at, and returns, a nonzero return. */
int ftree_each_task(const struct ftree *ft, int (*fn)(void *ctx, int32_t tid), void *ctx);

/*
 * The call running now on @cpu for an event of task @pid with @flags: the
 * CPU's innermost irq call in interrupt context, else the task's innermost
 * open call; DARC_NULL if none.
 */
int64_t ftree_current_call(struct ftree *ft, int32_t cpu, int32_t pid, uint8_t flags);

/* Counters for the summary. */
struct ftree_stats {
	int64_t calls, complete, no_entry, no_exit, gap, clamped, irq_calls;
	int64_t irq_intervals, sched_intervals, wakeups, tasks, probe_hits;
	int64_t gaps; /* lost-event marks seen */
	int64_t sched_gaps; /* times a task's switches are not in the recording (sched_gap) */
};
const struct ftree_stats *ftree_stats(const struct ftree *ft);

/* Release everything. Accepts NULL. */
void ftree_free(struct ftree *ft);

#endif
