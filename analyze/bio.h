/* SPDX-License-Identifier: MIT */
/*
 * bio: follows each bio from its submission to its completion through the
 * block tracepoints (block_bio_queue, merges, getrq, rq_insert, rq_issue,
 * rq_requeue, rq_complete / bio_complete), keyed by (device, sector): a key
 * is live only between its submission and its completion (a second
 * submission on a live key ends the first as lost); a request's events
 * cover every live bio in its sector range (merged bios complete with it).
 * Each bio becomes a bio_rec with its stage times, the task and call that
 * submitted it, and where it completed.
 */
#ifndef DARC_BIO_H
#define DARC_BIO_H

#include "event.h"
#include "rows.h"

struct bios;

/* A new tracker writing rows to @put(@ctx, rec) (which returns 0, or -1 to stop). NULL: memory. */
struct bios *bios_new(int (*put)(void *ctx, const struct bio_rec *b), void *ctx);

/*
 * Feed a block event (other kinds are ignored). @call is the call running
 * at the event (ftree_current_call()). 0, or -1 when @put failed or memory ran out.
 */
int bios_feed(struct bios *b, const struct analysis_event *e, int64_t call);

/*
 * A submit_bio probe hit of task @pid with fetch args @args (JSON, e.g.
 * {"bio":"0xffff..."}): the next bio that task submits gets that address,
 * a second key to match it with other probes (bio_endio) by.
 */
void bios_probe(struct bios *b, int32_t pid, const char *args);

/* Write the bios still open, flagged no_complete. 0 or -1. */
int bios_finish(struct bios *b);

/* Bios written so far. */
int64_t bios_count(const struct bios *b);

void bios_free(struct bios *b);

#endif
