/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat reader's state (tracedat.c): the file's sections, its clock
 * (tdclock.h) and its CPUs' merge (tdstream.h).
 */
#ifndef DARC_TRACEDAT_H
#define DARC_TRACEDAT_H

#include <stdbool.h>
#include <stdint.h>

#include "tdclock.h"
#include "tracedat-ids.h"
#include "tdstream.h"

struct decomp;

/*
 * The trace.dat reader's state: its fmt_reader's be_priv. It begins with
 * the merge of its CPUs' streams, so that be_priv is the merge's too
 * (tdstream_next() is the backend's next).
 */
struct tracedat {
	struct tdstream merge;	       /* first: the streams' merge (tdstream.c) */
	struct decomp *dc;	       /* v7: how its sections and chunks are compressed */
	uint64_t sec_off[FMT_SEC_MAX]; /* v7: sections found by options */
	uint8_t **kept;		       /* decompressed sections formats point into */
	int nkept;
	int buffers_cap;
	/* owned strings */
	char *manifest, *compression_ver;
	char *cpustats_top;
	struct tdclock clk; /* how timestamps become trace-cmd's (tdclock.c) */
	int options_cap;     /* of r->info.options */
};

#endif
