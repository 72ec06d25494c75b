/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: an event's raw fields as trace-cmd report -R prints them
 * (text-raw.c), into a record.
 */
#ifndef DARC_TEXT_RAW_H
#define DARC_TEXT_RAW_H

#include "text-line.h"

/*
 * An event's raw fields ("prev_pid=12 prev_state=64 ...", trace-cmd report
 * -R; text-raw.c) into @rec (@cap bytes, zeroed first) in the layout of
 * format @ev. A field printed as a symbol is given an address by @sym. The
 * record's size, or -1 if the fields are not @ev's, each a value.
 */
struct tep_event;
typedef bool (*traw_sym)(void *ctx, struct text_span name, uint64_t *addr);
int traw_record(struct tep_event *ev, struct text_span text, uint8_t *rec, int cap, traw_sym sym,
		void *ctx);

#endif
