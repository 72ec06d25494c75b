/* SPDX-License-Identifier: MIT */
/*
 * tracer-cost: how much of a latency is the tracer's own.
 *
 * Every traced call costs time: function_graph's entry and exit hooks (with
 * their ring-buffer writes), a probe's trap and handler, a tracepoint's
 * event. A call's measured latency holds that cost once for each traced
 * call below it (and for part of its own hooks), so a call with many traced
 * descendants looks slower than it is, and its latency can land one or more
 * OSprof buckets higher than untraced (DARC measured this per mechanism and
 * bucket; OSprof and DROPS corrected for their tracers').
 *
 * The cost of one traced call per mechanism comes from darc-record's
 * calibration (its manifest's tracer_cost: measured on the recording's box),
 * or, for function_graph in any recording, is estimated from the recording
 * itself (cost_est): the median duration of the fastest leaf function (an
 * entry and its exit, adjacent on a CPU) is the part of the hooks inside a
 * call's own duration (own_ns); the median gap from one sibling's return to
 * the next one's call is the rest (the exit hook's tail and the entry
 * hook's head); the two add up to the cost of one traced call (ns). The
 * analysis stores both in recording.tracer_cost (JSON, schema/README.md).
 *
 * For the reports: cost_share() makes what was traced inside a call the
 * tracer's share of its latency, and cost_shift() the OSprof buckets that
 * share moved the call up; report/tracer-shift.h reads a database's costs
 * and counts, bucket by bucket.
 */
#ifndef DARC_TRACER_COST_H
#define DARC_TRACER_COST_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "event.h"
#include "err-msg.h"

/* The mechanisms, in darc-record's manifest's names. */
enum cost_mech { TC_FGRAPH, TC_KPROBE, TC_KRETPROBE, TC_UPROBE, TC_URETPROBE, TC_TRACEPOINT,
	       TC_NMECH };
extern const char *const cost_mech_names[TC_NMECH]; /* "function_graph", "kprobe", ... */

/* What one traced call costs, by mechanism (a recording's, or a database's). */
struct cost_cost {
	double ns[TC_NMECH];	  /* one traced call: function_graph's entry and exit, a
				     probe's hit, a tracepoint's event; NAN: not known */
	bool estimated[TC_NMECH]; /* from the recording itself, not measured */
	double own_ns;		  /* function_graph: the part of a call's own hooks inside
				     its own measured duration (NAN: not known) */
};

/* Every cost unknown. */
void cost_unknown(struct cost_cost *c);

/* ---- estimating from a recording ---- */

struct cost_est;

/* A new estimator; NULL when out of memory. */
struct cost_est *cost_est_new(void);

/*
 * Feed every analysis event of the recording in order (@user: a probe event
 * is a uprobe's). -1 when out of memory, else 0.
 */
int cost_est_feed(struct cost_est *e, const struct analysis_event *a, bool user);

/*
 * The recording's costs as the JSON recording.tracer_cost holds: darc-record's
 * measured ones from @manifest (parsed, or NULL) and the estimate, one
 * object by mechanism; the graph's calls named @graph (TC_GRAPH_UFTRACE for
 * a uftrace recording, whose entries and exits are uftrace's mcount hooks;
 * NULL: function_graph). Caller frees; NULL when the recording used no
 * tracing mechanism darc knows, or out of memory.
 */
#define TC_GRAPH_UFTRACE "uftrace"
char *cost_est_json(const struct cost_est *e, const json_t *manifest, const char *graph);

void cost_est_free(struct cost_est *e);

/*
 * The median of the fastest function's leaf calls (own) and of the gaps
 * between sibling calls (gap), ns, each NAN when fewer than @min samples
 * of any function; the counts they rest on in *@nown and *@ngap.
 */
void cost_est_get(const struct cost_est *e, int min, double *own, double *gap, int64_t *nown,
		int64_t *ngap);

/* ---- the share of one call, and its shift ---- */

/* What was traced inside one call: events of each mechanism. */
struct cost_counts {
	int64_t n[TC_NMECH]; /* function_graph: traced calls below it (descendants and the
				calls of interrupts it took), probes: hits, tracepoint: events */
	bool self_fgraph;    /* the call itself is a function_graph call (own_ns counts) */
	bool excl;	     /* counted for the call's own time (excl_ns): n[TC_FGRAPH] are
				its direct children, of whose hooks only the part outside
				their own durations (ns - own_ns) is in it */
};

/* The tracer's share of the call's latency, ns: what @k cost at @c's prices (unknown: 0). */
double cost_share(const struct cost_cost *c, const struct cost_counts *k);

/* The OSprof bucket of @ns at @resolution buckets per octave (ns < 1 counts as 1). */
int cost_bucket(double ns, int resolution);

/* How many buckets lower @ns falls without @share (0: none; never negative). */
int cost_shift(double ns, double share, int resolution);

#endif
