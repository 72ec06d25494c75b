/* SPDX-License-Identifier: MIT */
/*
 * page: darc report's HTML page (page.c).
 */
#ifndef DARC_PAGE_H
#define DARC_PAGE_H

#include <stdio.h>

#include "options.h"

/*
 * darc report: one self-contained HTML page of the recording (page.c): its
 * summary, each entry point's histogram, explanation, search trees, flame
 * graph and time lapse, the longest waits and the I/O layers. @top entry
 * points. 0, or -1 with @err set.
 */
int page_report(FILE *out, struct rdb *db, const struct report_options *o, int top,
		struct err_msg *err);

#endif
