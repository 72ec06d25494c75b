/* SPDX-License-Identifier: MIT */
/*
 * tracer-shift: what the tracer's own cost does to a profile, read from a
 * database (analyze/tracer-cost.h says what the cost is and how it is
 * known). For each call of a selection: what was traced inside it (its
 * traced descendants, the probe hits, system call, scheduler and interrupt
 * events charged to it), priced at recording.tracer_cost, is the tracer's
 * share of its latency; the OSprof buckets that share moved it up is its
 * shift. Summed per bucket of the profile, that says which buckets the
 * tracer's cost shifts by a bucket or more (DARC's Tables 8.2 and 8.3).
 * darc hist, peaks and explain show it beside the measured profile, never
 * instead of it.
 *
 * Also: which tasks are the recorder's own (trace-cmd's reader threads,
 * darc-record), so that explain can name the recorder's doing apart from
 * the workload's causes.
 */
#ifndef DARC_TRACER_SHIFT_H
#define DARC_TRACER_SHIFT_H

#include <jansson.h>
#include <stdio.h>

#include "rdb.h"
#include "tracer-cost.h"

/* One bucket of a profile, with the tracer's share of its calls. */
struct cost_bucket {
	int bucket;	 /* at the profile's resolution */
	int64_t calls;	 /* complete calls in it */
	double lat_ns;	 /* their value, summed (in the selection's unit) */
	double share_ns; /* the tracer's share of it, summed */
	int64_t shifted; /* calls that untraced would be at least one bucket lower */
	int shift_max;	 /* the most any of its calls moves */
};

/* The tracer's cost of a database and its shift of one selection's profile. */
struct tracer_shift {
	struct cost_cost cost; /* by mechanism (NAN: not known) */
	json_t *stored;	     /* recording.tracer_cost as stored, or NULL: none used */
	bool valued;	     /* the metric has a share (incl and excl; not irq, blocked, ...) */
	int resolution;	     /* the profile's */
	double scale;	     /* the selection's unit per ns (cycles) */
	struct cost_bucket *b; /* the buckets with calls, lowest first */
	int n;
};

/*
 * The shift of @sel's complete calls into @t, bucket by bucket of @sel's
 * metric: every call between @lo and @hi ns (INT64_MIN, INT64_MAX: all).
 * With nothing known of the tracer's cost, or a metric the tracer's share
 * is not defined for, @t has no buckets. 0, or -1 with @err set.
 */
int tracer_shift_load(struct rdb *db, const struct call_selection *sel, int64_t lo, int64_t hi,
		struct tracer_shift *t, struct err_msg *err);

/*
 * Before searches of @sel's kind whose calls tracer_shift_load() prices
 * after them (explain): the searches count each call's subtree as they
 * read it (search_db_count_kinds()), and the pricing takes those counts
 * rather than reading the subtrees again. Nothing when the metric has no
 * share, no cost is known, or what the tracer did cannot be read.
 */
void tracer_shift_prime(struct rdb *db, const struct call_selection *sel);

/* Free what tracer_shift_load() allocated. */
void tracer_shift_release(struct tracer_shift *t);

/* How many buckets lower bucket @b's mean latency falls without its mean share. */
int tracer_shift_of(const struct tracer_shift *t, const struct cost_bucket *b);

/*
 * Bucket @bucket's shift as JSON: {"share_ns" (mean per call), "share" (of
 * the bucket's latency), "shift" (of its mean, in buckets), "shifted_calls",
 * "shift_max"}; null when the cost is unknown or the bucket empty.
 */
json_t *tracer_shift_bucket_json(const struct tracer_shift *t, int bucket);

/* The same summed over buckets @lo..@hi (a peak, a slow part), with "buckets" shifted. */
json_t *tracer_shift_range_json(const struct tracer_shift *t, int lo, int hi);

/* The costs used, by mechanism: {"function_graph": {"ns", "source"}, ...}, or null. */
json_t *tracer_shift_cost_json(const struct tracer_shift *t);

/* "function_graph 2.50us (estimated from the recording), kprobe not known" into @buf. */
void tracer_shift_cost_words(const struct tracer_shift *t, char *buf, size_t n);

/*
 * Two lines for the text reports: the cost by mechanism and how it is known,
 * then the buckets it shifts by a bucket or more (at @indent). Nothing when
 * the recording used no mechanism darc knows.
 */
void tracer_shift_text(FILE *out, const struct tracer_shift *t, const char *unit,
		       const char *indent);

/*
 * Is task @tid the recorder's own? Then @who gets what it is: "trace-cmd"
 * (its threads: the reader per CPU and the one that started the command)
 * or "darc-record" (by name, or a thread of the manifest's recorder pid).
 * 1 yes, 0 no.
 */
int tracer_shift_recorder_task(struct rdb *db, int64_t tid, char *who, size_t n);

#endif
