/* SPDX-License-Identifier: MIT */
/*
 * report: darc hist, hist --interval, peaks and diff over the shared library
 * (rdb.h, profile, show), report.c. Each prints to @out and returns 0, or -1
 * with @err set.
 */
#ifndef DARC_REPORT_H
#define DARC_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rdb.h"
#include "options.h"
#include <stdbool.h>
#include "diff.h"

/* darc hist: the histogram of @o's selection with its peaks (text or JSON). */
int report_hist(FILE *out, struct rdb *db, const struct report_options *o, struct err_msg *err);

/* darc hist --interval: one histogram per window of @interval_ns. */
int report_timelapse(FILE *out, struct rdb *db, const struct report_options *o, int64_t interval_ns,
		     struct err_msg *err);

/* darc peaks: the peaks of @o's selection, stored in table peak; @explain adds OSprof's aids. */
int report_peaks(FILE *out, struct rdb *db, const struct report_options *o, int explain,
		 struct err_msg *err);

/* darc diff: the pairs of @a and @b ranked, and the top @show of them side by side. */
int report_diff(FILE *out, struct rdb *a, struct rdb *b, const struct diff_opts *o, int show,
		bool json, struct err_msg *err);

#endif
