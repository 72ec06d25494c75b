/* SPDX-License-Identifier: MIT */
/*
 * darc dump --like VERSION: a line as that trace-cmd's `report -R -t`
 * prints it, with the libtraceevent its Debian release pairs it with.
 */
#ifndef DARC_DUMP_LIKE_H
#define DARC_DUMP_LIKE_H

#include <stdbool.h>
#include <stddef.h>

#include "fmt.h"

struct tep_handle;
struct trace_seq;

/* The forms dump prints. */
enum dump_form {
	DUMP_DARC, /* darc's own: 3.1's fields, one space between columns */
	DUMP_31,   /* trace-cmd 3.0 to 3.2 (Debian 12: 3.1.6, libtraceevent 1.7) */
	DUMP_33,   /* trace-cmd 3.3 and 3.4 (Debian 13: 3.3.1, sid: 3.4; libtraceevent
		      1.8.4 on): a flags column, "name (0xaddress)" for a function */
};

/* The form of --like @v ("3.1", "3.4.0", ...), or -1 for a version of no known form. */
int dump_like_parse(const char *v);

/* The time of @ev as trace-cmd's report -t prints it, with its column's padding. */
void dump_like_time(const struct fmt_info *info, const struct fmt_event *ev, char *buf,
		    size_t n);

/*
 * @ev's fields into @seq as report -R prints them in @form (DUMP_31 or
 * DUMP_33), after its name, padded to trace-cmd's column.
 */
void dump_like_fields(struct tep_handle *tep, const struct fmt_event *ev, enum dump_form form,
		      struct trace_seq *seq);

#endif
