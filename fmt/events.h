/* SPDX-License-Identifier: MIT */
/*
 * events.c: the event formats of a recording, indexed when it is opened and
 * parsed by libtraceevent when first needed.
 */
#ifndef DARC_EVENTS_H
#define DARC_EVENTS_H

#include <stdint.h>

#include "err-msg.h"

struct fmt_event;
struct fmt_reader;
struct tep_event;

/*
 * The format of event SYS:NAME (any system if @sys is NULL), parsed on first
 * use, or NULL if the recording has none. Owned by the reader.
 */
struct tep_event *fmt_events_find(struct fmt_reader *r, const char *sys, const char *name);

/*
 * Call @fn with the format of every event of the recording whose format text
 * contains @needle (e.g. a field name), parsed now; stops at, and returns, a
 * nonzero return of @fn. Formats libtraceevent cannot parse are skipped.
 */
int fmt_events_each_format(struct fmt_reader *r, const char *needle,
			   int (*fn)(void *ctx, struct tep_event *ev), void *ctx);

/*
 * Allocate the libtraceevent handle and the format tables, for the byte
 * order, long size and page size already in r->info. 0 or -1.
 */
int fmt_events_init_tep(struct fmt_reader *r, struct err_msg *err);

/* Free what fmt_events_init_tep() and fmt_events_add_format() allocated. */
void fmt_events_free(struct fmt_reader *r);

/*
 * Index the event format text @p (@n bytes, which must outlive the reader) of
 * system @sys; parsed on first use. Texts without a name or id are skipped.
 */
int fmt_events_add_format(struct fmt_reader *r, const char *sys, const char *p, uint64_t n,
		   struct err_msg *err);

/*
 * The format of event @id, parsed on first use; NULL if the file has none
 * or it is refused (a screen of events.c, or libtraceevent, cannot parse
 * it: then noted in r->info.refused). Sets r->bad_layout when the format's
 * common fields are not where the reader takes type and pid from.
 */
struct tep_event *fmt_events_format(struct fmt_reader *r, int id);

/*
 * Count one more event of id @id, which came without a format: in
 * r->info.refused when its format was refused (fmt_reader_next()).
 */
void fmt_events_count_refused(struct fmt_reader *r, int id);

/*
 * Such an event: a record whose only the trailing array is cut (as the
 * kernel writes kernel_stack) gets a copy padded with zeros (ev->data; its
 * size stays); anything shorter is an error. 0, or -1 with @err set.
 */
int fmt_events_pad(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err);

#endif
