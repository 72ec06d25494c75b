/* SPDX-License-Identifier: MIT */
/*
 * calib.c: the cost of one traced call per mechanism, measured before recording.
 */
#ifndef DARC_REC_CALIB_H
#define DARC_REC_CALIB_H

#include "rec.h"

struct sess;

/* The tracing mechanisms whose cost is measured. */
enum rec_mech { MECH_FGRAPH, MECH_KPROBE, MECH_KRETPROBE, MECH_UPROBE, MECH_URETPROBE,
		MECH_TRACEPOINT, MECH_N };
extern const char *const calib_mech_names[MECH_N]; /* "function_graph", "kprobe", ... */

/* The cost of one mechanism. */
struct rec_cost {
	bool asked;	 /* the recording uses it */
	bool measured;	 /* and it was measured: */
	double ns;	 /* one traced call (function_graph: entry and exit; a probe: a hit) */
	double calls;	 /* traced calls (events) per loop iteration */
	double loop_ns;	 /* one loop iteration, traced */
	const char *why; /* not measured: why */
};

/* What the calibration found. */
struct rec_calib {
	bool done;
	int cpu;	     /* the CPU it ran on */
	double base_ns;	     /* one getppid() untraced */
	double user_base_ns; /* one call of the empty user function untraced */
	double seconds;	     /* the calibration's own time */
	struct rec_cost m[MECH_N];
};

/*
 * Measure the cost of each mechanism @o uses, in @s's pid-filtered buffer,
 * after sess_setup_buffers() and before sess_setup(); function_graph is left
 * on. What cannot be measured is said in @c (why) and @notes.
 */
void calib_run(struct sess *s, const struct rec_opts *o, struct rec_calib *c,
	       struct rec_notes *notes);

#endif
