/* SPDX-License-Identifier: MIT */
/*
 * pipeline: a recording in, a darc database out. Reads the recording
 * (fmt/), decodes its events, rebuilds the call trees with the latency
 * decomposition (ftree) and writes every row (db), atomically. darc analyze
 * is this plus a summary; the report commands run it when given a recording.
 */
#ifndef DARC_PIPELINE_H
#define DARC_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "err-msg.h"

struct ftree;
struct funcs;

struct pipeline_opts {
	int max_depth;	 /* store call rows only for depth < this; -1: all */
	bool indexes;	 /* also build schema/call-indexes.sql */
	bool progress;	 /* a progress line on stderr (a terminal) */
	bool force;	 /* replace an existing file that is not a darc database */
};
#define PIPELINE_OPTS_INIT {-1, false, false, false}

/* What a run leaves for a summary. Release with pipeline_result_release(). */
struct pipeline_result {
	struct ftree *ft;  /* the call trees and their statistics */
	struct funcs *fs;  /* the functions */
	int64_t events;
	int64_t calls_stored;
	uint64_t t_first, t_last; /* first and last event, ns */
	int64_t lost, lost_marks; /* lost events counted, and pages that said so */
	struct pipeline_loss {	  /* per CPU with lost events: where and when */
		int cpu;
		int64_t marks;	  /* events that came after a loss */
		int64_t lost;	  /* events lost there, as counted (0: not counted) */
		uint64_t first_t, last_t; /* the first and last event after a loss */
	} *loss;
	int nloss;
	double seconds;
};

/* Exit-status-like results of pipeline_run(). */
enum {
	PIPELINE_OK = 0,
	PIPELINE_ANALYSIS = 1, /* the analysis or the database failed */
	PIPELINE_INPUT = 2,    /* the recording is unreadable or damaged */
};

/*
 * Analyze the recording @rec into a new database at @db (written to a
 * temporary file and renamed at the end: nothing is left on failure).
 * @o may be NULL (defaults). With @res non-NULL, what the summary needs is
 * left there. Returns PIPELINE_OK, or another PIPELINE_* with @err filled.
 */
int pipeline_run(const char *rec, const char *db, const struct pipeline_opts *o,
		 struct pipeline_result *res, struct err_msg *err);

/*
 * Where the database of recording @rec goes unless the user names it: beside
 * the recording, its name without the extension plus ".db" (dir/x.dat ->
 * dir/x.db; dir/x -> dir/x.db). Caller frees; NULL when out of memory.
 */
char *pipeline_db_path(const char *rec);

/* Release what pipeline_run() left in @res. Accepts an empty one. */
void pipeline_result_release(struct pipeline_result *res);

#endif
