/* SPDX-License-Identifier: MIT */
/*
 * session.c: the tracefs instances and settings, set up and restored.
 */
#ifndef DARC_REC_SESSION_H
#define DARC_REC_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

#include "err-msg.h"
#include "rec.h"

struct rec_caps;
struct sess;
struct tracefs_instance;

/* One trace buffer of the session. */
struct sess_buffer {
	const char *name;	       /* its name in the bundle: "" or "unfiltered" */
	struct tracefs_instance *inst; /* NULL: the top level */
	bool pid_filtered;
	int nevents; /* events enabled in it */
	char **event_sys, **event_name;
};

/*
 * Create the instances the options need (darc-PID for pid-filtered events,
 * darc-PID-all for unfiltered ones), or use the top level where instances
 * cannot do what is asked (noted in @notes). Nothing is enabled yet.
 */
struct sess *sess_create(const struct rec_opts *o, const struct rec_caps *c,
			 struct rec_notes *notes, struct err_msg *err);

/* Does @o ask for function_graph (-g, -n, -l, --max-depth, its options)? */
bool sess_graph(const struct rec_opts *o);

/* The buffers' own settings: tracing off, clock, size, watermark, fork options. */
int sess_setup_buffers(struct sess *s, const struct rec_opts *o, struct err_msg *err);

/* Configure events, filters, probes' events, function_graph (after sess_setup_buffers). */
int sess_setup(struct sess *s, const struct rec_opts *o, struct err_msg *err);

/*
 * Write @val to @file of buffer @k (0: the pid-filtered one, 1: the
 * unfiltered one), a top-level file saved first for restoring (appended
 * to with @append). 0, or -1 with @err (which may be NULL).
 */
int sess_put(struct sess *s, int k, const char *file, const char *val, bool append,
	     struct err_msg *err);

/* The tracefs instance of buffer @k (NULL: the top level). */
struct tracefs_instance *sess_instance(struct sess *s, int k);

/* Filter the pid-filtered buffer on @pids (follow forks). */
int sess_set_pids(struct sess *s, const pid_t *pids, int n, struct err_msg *err);

/* tracing_on in every buffer of the session (1 or 0). */
int sess_tracing(struct sess *s, int on, struct err_msg *err);

/* Disable all events and the tracer (before the last reads). */
void sess_quiesce(struct sess *s);

/* The buffers (1 or 2), valid until sess_free(). */
int sess_buffers(struct sess *s, struct sess_buffer **b);

/*
 * Undo everything in tracefs: restore the top level's files, remove the
 * instances. The buffers stay readable (names, events) until sess_free().
 */
void sess_restore(struct sess *s);

/*
 * The top-level buffer_size_kb before darc-record touched anything and now
 * (both owned by @s; after sess_restore(), "now" is the final state), and
 * whether it went from unallocated ("7 (expanded: 1408)") to allocated: the
 * kernel does that on the first use of tracing (on 6.1 any event enabled,
 * even in an instance), and it cannot be undone.
 */
bool sess_top_buffer(struct sess *s, const char **before, const char **now);

/* sess_restore() if not done, remove the undo log, and release @s. Accepts NULL. */
void sess_free(struct sess *s);

/* Log page file directory @dir in the undo log (for --reset after a kill). */
void sess_note_dir(struct sess *s, const char *dir);

#endif
