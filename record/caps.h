/* SPDX-License-Identifier: MIT */
/*
 * caps.c: what the kernel allows, checked before anything is touched.
 */
#ifndef DARC_REC_CAPS_H
#define DARC_REC_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "err-msg.h"
#include "rec.h"

/* Add a printf-style note; out of memory drops it. */
void caps_note(struct rec_notes *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void caps_notes_free(struct rec_notes *l);

/* What this kernel and tracefs allow. */
struct rec_caps {
	const char *dir;     /* tracefs mount point */
	bool mounted_by_us;  /* darc-record mounted tracefs (and unmounts it) */
	bool instances;	     /* instances/ exists */
	bool function_graph; /* listed in available_tracers */
	bool kprobes;	     /* kprobe_events exists */
	bool uprobes;	     /* uprobe_events exists */
	bool set_event_pid;  /* set_event_pid exists */
	bool set_ftrace_pid; /* set_ftrace_pid exists */
	char *clocks;	     /* trace_clock contents */
	char **tracers;	     /* available_tracers */
	/* what only --check reads (caps_more) */
	char **systems;	      /* the event systems (events/SYS) */
	char **instances_now; /* the instances that exist now */
	char *options;	      /* trace_options: "name" or "noname" lines */
	char *current_tracer;
	pid_t lock_pid;	    /* the top-level lock's holder, 0 if in another pid namespace */
	bool lock_held;
	char lock_who[192]; /* who holds it, in words */
};

/*
 * Find tracefs (mounting it if it is not mounted, noted in @c) and look at
 * what it offers. Returns -1 with @err when there is no tracefs to be had.
 */
int caps_probe(struct rec_caps *c, struct err_msg *err);

/* The rest of what --check tells: event systems, instances, options, the
   current tracer, the top-level lock's holder. */
void caps_more(struct rec_caps *c);

/* Unmount tracefs if caps_probe() mounted it; release @c. */
void caps_release(struct rec_caps *c);

/*
 * Check @o against @c. Each thing missing becomes one line in @missing,
 * naming it and the options that need it; @works gets one line saying what
 * still works. With o->best_effort, the options that cannot work are taken
 * out of @o (and listed in o->dropped) instead. Returns the number of
 * problems left (0: the recording can go ahead).
 */
int caps_check(const struct rec_caps *c, struct rec_opts *o, struct rec_notes *missing,
	       struct rec_notes *works);

/* Whether clock @name is offered in trace_clock. */
bool caps_has_clock(const struct rec_caps *c, const char *name);

/*
 * What the events of @o on this kernel (@c) will leave out of the wake-ups
 * evidence, in the analysis's words (wake-words.h), as a sentence into
 * @buf: no irq events at all; irq events pid-filtered (a kernel without
 * instances) or filtered by --filter, so that the interrupts of idle CPUs
 * (or others) are not in the recording. NULL when nothing is left out (or
 * no wake-up is recorded).
 */
const char *caps_wake_warning(const struct rec_caps *c, const struct rec_opts *o, char *buf,
			      size_t size);

#endif
