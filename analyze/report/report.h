/* SPDX-License-Identifier: MIT */
/*
 * report: the answers the report commands print, one function each over the
 * shared library (rdb.h, profile, show). Each prints to @out and returns 0, or
 * -1 with @err set.
 */
#ifndef DARC_REPORT_H
#define DARC_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rdb.h"
#include "options.h"
#include <stdbool.h>

/* darc hist: the histogram of @o's selection with its peaks (text or JSON). */
int report_hist(FILE *out, struct rdb *db, const struct ropt *o, struct fmt_err *err);

/* darc hist --interval: one histogram per window of @interval_ns. */
int report_timelapse(FILE *out, struct rdb *db, const struct ropt *o, int64_t interval_ns,
		     struct fmt_err *err);

/* darc peaks: the peaks of @o's selection, stored in table peak; @explain adds OSprof's aids. */
int report_peaks(FILE *out, struct rdb *db, const struct ropt *o, int explain,
		 struct fmt_err *err);

#endif

#include "diff.h"

/* darc diff: the pairs of @a and @b ranked, and the top @show of them side by side. */
int report_diff(FILE *out, struct rdb *a, struct rdb *b, const struct diff_opts *o, int show,
		bool json, struct fmt_err *err);

#include "search.h"

/*
 * darc report: one self-contained HTML page of the recording (page.c): its
 * summary, each entry point's histogram, explanation, search trees, flame
 * graph and time lapse, the longest waits and the I/O layers. @top entry
 * points. 0, or -1 with @err set.
 */
int report_page(FILE *out, struct rdb *db, const struct ropt *o, int top, struct fmt_err *err);

/*
 * darc paths: DARC's root-cause search for every peak of @o's selection (or
 * peak @peak only, or the ranges @o gives), each stored in tables search,
 * search_path and search_candidate, printed as indented chains (or JSON).
 */
int report_paths(FILE *out, struct rdb *db, const struct ropt *o, const struct search_params *sp,
		 int peak, struct fmt_err *err);

/*
 * For darc explain (explain-db.c), the parts of darc paths it shares: search
 * @o's calls in buckets @pk->lo..@pk->hi (peak @number, 0 for a range),
 * store the search, and append {"search", "peak", "lo", "hi", "calls",
 * "nodes"} to @all; print a search's nodes as darc paths does.
 */
#include <jansson.h>
#include "profile.h"
int paths_search(struct rdb *db, const struct ropt *o, const struct search_params *sp,
		 const char *what, int number, const struct peak *pk, json_t *all,
		 struct fmt_err *err);
void paths_tree_text(FILE *out, json_t *nodes);
/*
 * Who ended the sleeps of fnode ?1 within the current search's calls (-1:
 * f0's own), one row each, most time first: a task as "comm [tid]", an
 * interrupt as the interrupt ("timer (...)", "irq N (handler)", "softirq
 * X"), never the task it happened to hit; then the count and the time.
 */
extern const char paths_wakers_sql[];
/*
 * The tasks that ran on the CPU a call of the current search left when it was
 * preempted, most time first: "comm [tid]", the count and the time.
 */
extern const char paths_ran_instead_sql[];

/*
 * darc explain: the recording's entry points (the roots of its call trees,
 * and a user program's outermost functions called more than once; not the
 * tracer's own, not interrupt handlers), ranked by the latency of their
 * slow part (explain.h); the @top of them each with the search of its slow
 * part, stored, and the causes it names, largest first, one sentence each
 * (with @verbose the search tree too). Stored in explain_subject and
 * explain_cause.
 */
int report_explain(FILE *out, struct rdb *db, const struct ropt *o, const struct search_params *sp,
		   int top, bool verbose, struct fmt_err *err);
/*
 * What darc explain prints, as its JSON's "subjects" array (stored too):
 * NULL with @err set. *@nsubjects: the entry points there were.
 */
json_t *explain_collect(struct rdb *db, const struct ropt *o, const struct search_params *sp,
			int top, int *nsubjects, struct fmt_err *err);

/* Which waits darc waits shows, and how far apart a chain's links may be. */
struct waits_sel {
	int64_t task, call; /* the waits of this task, or inside this call */
	int top;	    /* the longest this many */
	int64_t slack_ns;   /* a waker's wait ended at most this long before its wake-up */
};
#define WAITS_SLACK_DEFAULT 1000000 /* 1 ms, as view wait's parent_id */

/* The longest waits @ws selects, each with its chain (darc waits --json's array), or NULL. */
json_t *waits_json(struct rdb *db, const struct waits_sel *ws, struct fmt_err *err);

/* darc waits: the longest waits @ws selects, each with its chain. */
int report_waits(FILE *out, struct rdb *db, const struct waits_sel *ws, bool json,
		 struct fmt_err *err);

/* darc io --bios: per device, log2 histograms of the bios' queue, device and total times. */
int report_bios(FILE *out, struct rdb *db, bool json, struct fmt_err *err);

/* darc io --irqs: the @top (thread, interrupt kind) pairs by interrupt time. */
int report_irqs(FILE *out, struct rdb *db, int top, bool json, struct fmt_err *err);

/* A layer map of the user's: function glob -> layer, the first match wins. */
struct io_rules {
	struct io_rule {
		char *glob;
		int layer;
	} *r;
	int n;
};

/*
 * Read @path's rules, a line "GLOB LAYER" each ('#' begins a comment; the
 * layer one of vfs, fs, page cache, copy, block, driver, scheduler, other).
 * 0, or -1 with @err naming the file and line. io_rules_free() them.
 */
int io_rules_load(const char *path, struct io_rules *rules, struct fmt_err *err);
void io_rules_free(struct io_rules *rules);

/*
 * darc io: the @top slowest calls of @func (or call @call) split into
 * layers, @rules (or NULL) before the default map.
 */
int report_io(FILE *out, struct rdb *db, const struct io_rules *rules, const char *func,
	      int64_t call, int top, bool json, struct fmt_err *err);

/*
 * darc io alone: the @top entry points (roots of the call trees) by latency,
 * each with the layers of its 20 slowest calls summed, and each device's bios.
 */
int report_io_overview(FILE *out, struct rdb *db, const struct io_rules *rules, int top,
		       bool json, struct fmt_err *err);

/*
 * darc io's entry points: the @top roots of the call trees by latency, each
 * with the layers of its @per slowest calls summed (a JSON array), or NULL.
 */
json_t *io_entries_json(struct rdb *db, const struct io_rules *rules, int top, int per,
			struct fmt_err *err);

/* Each device's bios: count, mean queue time, device time p50/p90/max (JSON array), and as text. */
json_t *io_devices_json(struct rdb *db);
void io_devices_text(FILE *out, json_t *devs);

/* What darc export writes. */
enum { EXPORT_FOLDED, EXPORT_CHROME, EXPORT_SPEEDSCOPE, EXPORT_PERFETTO };
/* --folded's weights: a part of each call's latency (schema/README.md, view call), or a count. */
enum export_metric {
	XM_EXCL,    /* excl_ns: the call's own CPU time (the default) */
	XM_INCL,    /* incl_ns - children_ns: so that a frame's width is its incl_ns */
	XM_CALLS,   /* 1 per complete call */
	XM_IRQ,     /* irq_ns */
	XM_SOFTIRQ, /* softirq_ns */
	XM_PREEMPT, /* preempt_ns */
	XM_BLOCKED, /* blocked_ns */
	XM_OFFCPU,  /* preempt_ns + blocked_ns */
	XM_METRICS
};
const char *export_metric_name(int m); /* "excl", ... */
int export_metric_of(const char *name); /* -1 if unknown */
/* --folded's root frame. */
enum { EXPORT_ROOT_NONE, EXPORT_ROOT_COMM, EXPORT_ROOT_TID };

struct export_opts {
	int format;	/* EXPORT_FOLDED, EXPORT_CHROME, EXPORT_SPEEDSCOPE or EXPORT_PERFETTO */
	int metric;	/* --folded: enum export_metric */
	bool off_cpu;	/* --folded: off-CPU stacks (sched_interval), the wait's kind last */
	int root;	/* --folded: EXPORT_ROOT_*: a first frame naming the task */
};
#define EXPORT_OPTS_INIT {EXPORT_FOLDED, XM_EXCL, false, EXPORT_ROOT_NONE}

/* Does @db hold findings of darc explain (for export --perfetto's tracks)? */
bool export_has_findings(struct rdb *db);

/*
 * darc export: the complete calls @o selects (the subtrees of its function,
 * fnode or call path; of its task or comm; entered in its time window) to
 * @out as folded stacks (one line per distinct stack and its weight summed in
 * SQL), as Trace Event Format JSON (an X event per call, each task's read in
 * the order of entry; off-CPU and interrupt intervals as X events on tracks
 * of their own), speedscope's JSON or Perfetto's protobuf (perfetto.c).
 * Memory grows with the functions, fnodes, tasks and the calls open at
 * once, not with the calls.
 */
int report_export(FILE *out, struct rdb *db, const struct ropt *o, const struct export_opts *x,
		  struct fmt_err *err);
