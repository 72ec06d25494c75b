/* SPDX-License-Identifier: MIT */
/*
 * manifest.c: the bundle's JSON manifest, --check's and the summary's JSON (jansson).
 */
#ifndef DARC_REC_MANIFEST_H
#define DARC_REC_MANIFEST_H

#include <time.h>

#include "calib.h"
#include "rec.h"

struct rec_caps;
struct target;

/* What the recording did, for the manifest. */
struct rec_cpu_result {
	int cpu;
	uint64_t bytes, pages;
	uint64_t overrun, dropped, commit_overrun; /* from per_cpu/cpuN/stats */
	uint64_t entries;			   /* events in the ring buffer now (stats) */
	uint64_t pending;			   /* bytes still in the ring buffer */
	/* in the pages stored, as a reader of the bundle counts them */
	uint64_t events, lost_marked, lost_marks, lost_uncounted;
};

struct rec_buffer_result {
	const char *name;
	const char *instance; /* tracefs instance, or NULL for the top level */
	bool pid_filtered;
	int nevents;
	char **event_sys, **event_name;
	int ncpus;
	struct rec_cpu_result *cpus;
};

struct rec_result {
	struct timespec start_real, start_mono, stop_real, stop_mono;
	const char *stop_reason; /* "target exited", "SIGINT", "duration", ... */
	int target_status;	 /* waitpid status of the command, -1 if none */
	int nbuffers;
	struct rec_buffer_result *buffers;
	const char *clock;
	int page_size;
	double cpu_user, cpu_sys; /* darc-record's own CPU time (s) until the stop */
	char *tgids;		  /* saved_tgids ("TID TGID" lines), or NULL */
	/* the top-level ring buffer's size before and after (buffer_size_kb) */
	char *top_before, *top_after;
	bool top_expanded; /* it was unallocated, and is allocated now */
	struct rec_calib cost; /* the tracer's cost, measured before the recording */
};

/* The manifest as a JSON text (caller frees), or NULL when out of memory. */
char *manifest_json(const struct rec_opts *o, const struct target *t, const struct rec_result *r);

/* --check's facts as an indented JSON text (caller frees), or NULL; "wake_warning":
   @wake_warning, or null (caps_wake_warning()). */
char *manifest_caps_json(const struct rec_caps *c, const char *wake_warning);

/* The recording's summary as a one-line JSON text (caller frees), or NULL. */
char *manifest_summary_json(const struct rec_opts *o, const struct target *t,
			    const struct rec_result *r);

#endif
