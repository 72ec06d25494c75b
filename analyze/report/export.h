/* SPDX-License-Identifier: MIT */
/*
 * export: darc export's formats and metrics, and the call (export.c).
 */
#ifndef DARC_EXPORT_H
#define DARC_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

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
int export_report(FILE *out, struct rdb *db, const struct report_options *o,
		  const struct export_opts *x, struct err_msg *err);

#endif
