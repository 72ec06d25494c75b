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
#include "rdb.h"

/* What is shown, for titles and JSON. */
struct show_ctx {
	const char *what;      /* "vfs_read" */
	const char *recording; /* the recording's path */
	const char *metric;    /* "incl" */
	const char *unit;      /* "ns" or "cycles" */
	int resolution;	       /* buckets per octave */
	const struct rdb_profile_info *info;
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

/*
 * The exact quantiles of the calls (rdb_profile_load()'s info): a line
 * "percentiles: p50 .., p90 .., p99 .., p99.9 .., max ..", or as field
 * "percentiles" {p50, p90, p99, p999, max} (null without a call) added to
 * @j, which is returned (NULL stays NULL).
 */
void show_quant_text(FILE *out, const struct show_ctx *c);
json_t *show_with_quant(const struct show_ctx *c, json_t *j);

/* A time-lapse: one line per window, the counts per bucket in columns. */
void show_timelapse_text(FILE *out, const struct show_ctx *c, const struct profile *rows,
			 int nrows, int64_t t0, int64_t interval);

/* The same as JSON (new reference). */
json_t *show_timelapse_json(const struct show_ctx *c, const struct profile *rows, int nrows,
			    int64_t t0, int64_t interval);

/*
 * The version of the JSON every --json prints, in its field "schema"
 * (analyze/JSON.md lists the fields of each command's): a version adds
 * fields, a change of a field's name, type or meaning is the next one.
 */
#define SHOW_JSON_SCHEMA "darc-json/1"

/*
 * What --json of @command prints for @payload: {"schema", "command", then
 * @payload's fields} for an object, {"schema", "command", @key: @payload}
 * for anything else (an array). A new reference; NULL when @payload is NULL
 * or memory ran out. @payload is not consumed.
 */
json_t *show_contract(const char *command, const char *key, json_t *payload);

/* Print @j to @out, indented, with a newline; 0, or -1 on a write error. */
int show_json(FILE *out, json_t *j);
/*
 * show_json() of show_contract(@command, @key, @j); @j may be NULL (not
 * made) and is not consumed: 0, or -1 with @err saying which.
 */
int show_json_to(FILE *out, const char *command, const char *key, json_t *j,
		 struct err_msg *err);

#endif
