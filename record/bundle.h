/* SPDX-License-Identifier: MIT */
/*
 * bundle.c: metadata from tracefs + page files -> trace.dat v7 (fmt/writer).
 */
#ifndef DARC_REC_BUNDLE_H
#define DARC_REC_BUNDLE_H

#include <stdbool.h>

#include "err-msg.h"
#include "rec.h"

struct bundle;
struct rec_cpu_result;
struct rec_result;
struct sess_buffer;
struct stream;
struct target;
struct tracefs_instance;

/*
 * Start the bundle @path and read, while tracefs still holds them, its
 * metadata: header_page/header_event, the ftrace formats, the formats of
 * the events recorded in @bufs, kallsyms, printk formats, saved cmdlines
 * plus @extra_cmdlines, and each CPU's stats (into @r, which must have its
 * buffers and CPUs laid out). Nothing is in place under @path until
 * bundle_finish().
 */
struct bundle *bundle_begin(const char *path, bool force, struct sess_buffer *bufs, int nbuf,
			    const char *extra_cmdlines, struct rec_result *r, int page_size,
			    struct err_msg *err);

/*
 * Store each buffer's page files from @streams (counts into @r), then the
 * manifest made from @o, @t and @r, and put the file in place.
 */
int bundle_finish(struct bundle *b, struct stream **streams, struct rec_result *r,
		  const struct rec_opts *o, const struct target *t, struct err_msg *err);

/* Release @b; an unfinished bundle leaves no file. Accepts NULL. */
void bundle_free(struct bundle *b);

/*
 * Read per_cpu/cpuN/stats of @inst (NULL: top level) into @c's overrun,
 * dropped and commit overrun counts. Returns the text as trace-cmd stores it
 * ("CPU: N\n" + stats; caller frees), or NULL if it cannot be read.
 */
char *bundle_cpu_stats(struct tracefs_instance *inst, int cpu, struct rec_cpu_result *c);

#endif
