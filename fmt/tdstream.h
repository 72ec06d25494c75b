/* SPDX-License-Identifier: MIT */
/*
 * The event stream of a trace.dat file (tdstream.c): its CPUs' events,
 * read ahead by prefetch.c, merged by time.
 */
#ifndef DARC_TDSTREAM_H
#define DARC_TDSTREAM_H

#include <stdbool.h>

struct fmt_reader;
struct fmt_event;
struct err_msg;
struct tdclock;

/* The merge's state: the first member of the reader's be_priv (struct tracedat). */
struct tdstream {
	struct tdstream_ent *heap;  /* min-heap of streams on (ts, order) */
	struct prefetch *prefetch;  /* decompresses compressed streams ahead */
	const struct tdclock *clk; /* how raw timestamps become trace-cmd's */
	int nheap;
	int cur;		    /* stream whose event was returned last, or -1 */
	bool started;
};

/*
 * Start reading @r's streams ahead into @m, once the metadata is read, with
 * timestamps converted by @clk. 0 or -1.
 */
int tdstream_init(struct tdstream *m, struct fmt_reader *r, const struct tdclock *clk,
		  struct err_msg *err);

/*
 * The next event of the streams merged by time, as fmt_reader_next(): @r's
 * be_priv begins with its struct tdstream.
 */
int tdstream_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err);

/* Stop reading ahead and free the merge. */
void tdstream_stop(struct tdstream *m);

#endif
