/* SPDX-License-Identifier: MIT */
/*
 * show: profiles and peaks as text (the log2 histogram form of bcc's tools,
 * with the peaks marked) and as JSON, for the report commands.
 */
#ifndef DARC_SHOW_H
#define DARC_SHOW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "read.h"

/* What is shown, for titles and JSON. */
struct show_ctx {
	const char *what;      /* "vfs_read" */
	const char *recording; /* the recording's path */
	const char *metric;    /* "incl" */
	const char *unit;      /* "ns" or "cycles" */
	int resolution;	       /* buckets per octave */
	const struct rprofile_info *info;
	const struct peak_params *pp; /* how the peaks were found, or NULL if given */
};

/* Bucket @b's range at @resolution: values lo..hi (the first bucket holds 0 too). */
void show_bucket_range(int b, int resolution, uint64_t *lo, uint64_t *hi);

/* @v in @unit for people: "812ns", "6.1us", "1.50ms", "2.1s"; "15.2k" cycles. */
const char *show_amount(double v, const char *unit, char *buf, size_t n);

/* The histogram, one line per bucket from the first non-empty to the last, peaks numbered. */
void show_hist_text(FILE *out, const struct show_ctx *c, const struct profile *p,
		    const struct peak *pk, int npk);

/* The peaks, one line each. */
void show_peaks_text(FILE *out, const struct show_ctx *c, const struct peak *pk, int npk);

/* Histogram and peaks as one JSON object (new reference). */
json_t *show_hist_json(const struct show_ctx *c, const struct profile *p, const struct peak *pk,
		       int npk);

/* The peaks as a JSON array (new reference). */
json_t *show_peaks_json(const struct show_ctx *c, const struct profile *p, const struct peak *pk,
			int npk);

/* A time-lapse: one line per window, the counts per bucket in columns. */
void show_timelapse_text(FILE *out, const struct show_ctx *c, const struct profile *rows,
			 int nrows, int64_t t0, int64_t interval);

/* The same as JSON (new reference). */
json_t *show_timelapse_json(const struct show_ctx *c, const struct profile *rows, int nrows,
			    int64_t t0, int64_t interval);

/* Print @j to @out, indented, with a newline; 0, or -1 on a write error. */
int show_json(FILE *out, json_t *j);
/* show_json() of @j, which may be NULL (not made): 0, or -1 with @err saying which. */
int show_json_to(FILE *out, json_t *j, struct fmt_err *err);

#endif
