/* SPDX-License-Identifier: MIT */
/*
 * svg: OSprof's plots as self-contained SVG (no script, no external file):
 * a latency profile as bars on a log scale with its peaks shaded and
 * numbered, two profiles side by side (darc diff), and a time-lapse profile
 * as a heat map. Elements carry classes and data attributes (bar, peak,
 * cell) so that tests can read them back.
 */
#ifndef DARC_SVG_H
#define DARC_SVG_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/*
 * The profile @p (and @q beside it in another colour, or NULL) as bars:
 * x the buckets from the first to the last non-empty one, labelled with their
 * lower edge in @unit ("ns" or "cycles"); y the count on a log scale; the
 * peaks @pk[0..npk) shaded and numbered. @title and @subtitle head it.
 * Returns 0, or -1 when writing failed.
 */
int svg_hist(FILE *out, const struct profile *p, const struct profile *q, const struct peak *pk,
	     int npk, const char *title, const char *subtitle, const char *unit);

/*
 * The time-lapse profile @rows[0..nrows) (one per window of @interval_ns from
 * @t0_ns, all with the same buckets) as a heat map: x the buckets, y the
 * windows (labelled with their start, from the recording's), the colour
 * the count (log scale), whose key is right of the plot. Returns 0, or -1.
 */
int svg_heatmap(FILE *out, const struct profile *rows, int nrows, int64_t t0_ns,
		int64_t interval_ns, const char *title, const char *unit);

#endif
