/* SPDX-License-Identifier: MIT */
/*
 * along-check: a recording darc-record --along DB made, against DB: is the
 * workload the one DB saw (its entry points' latency profiles, which the
 * manifest holds)?
 */
#ifndef DARC_ALONG_CHECK_H
#define DARC_ALONG_CHECK_H

#include <sqlite3.h>
#include <stddef.h>

/*
 * Compare the profiles in @manifest (JSON; its "along") with the analysis in
 * @sql, a sentence in @msg: 1 when the workload changed (the first entry
 * point that says so), 0 when it did not, -1 when there is nothing to
 * compare (no --along, no profile; @msg empty).
 */
int along_check(sqlite3 *sql, const char *manifest, char *msg, size_t n);

#endif
