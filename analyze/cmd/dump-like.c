// SPDX-License-Identifier: MIT
/*
 * darc dump --like VERSION: lines as `trace-cmd report -R -t` of that
 * version prints them. What differs between the versions (learnt from
 * their sources and checked against their output, tests/matrix):
 *
 *   - 3.3 on print the event's common_flags after the CPU, "[001]-0x2d";
 *   - their libtraceevent (1.8.4 on) prints a field that the event's
 *     format prints as a function (%ps, %pS, %pf, %pF) as the function's
 *     name followed by its address, "func=vfs_read (0xffffffff8a653d60)",
 *     and an address that names no function as " (0xffff...)"; 1.7's
 *     printed the name alone ("func=vfs_read"), or the address.
 *
 * Everything else is libtraceevent's raw field printing, which darc's
 * build links (1.7 on Debian 12): 3.1's text. The 1.8.4 form is made from
 * it, field by field: the text each field takes is found by printing the
 * fields up to it and up to the one before (libtraceevent prints a field
 * by the conversion its format has for it, which depends on the fields
 * printed before), and a function's name gets its address after it.
 */
#include "dump-like.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

int dump_like_parse(const char *v)
{
	int major, minor;

	if (sscanf(v, "%d.%d", &major, &minor) != 2 || major != 3)
		return -1;
	if (minor <= 2)
		return DUMP_31;
	if (minor <= 4)
		return DUMP_33;
	return -1;
}

void dump_like_time(const struct fmt_info *info, const struct fmt_event *ev, char *buf,
		    size_t n)
{
	/* report -t: " %9.1d:", seconds and nanoseconds; for a clock it takes
	   for no time "%12d:", whose 10^12 divisor overflows libtraceevent's
	   int, so the count is printed whole */
	if (info->ts_report_secs)
		snprintf(buf, n, " %5" PRIu64 ".%09" PRIu64 ":", ev->ts / 1000000000,
			 ev->ts % 1000000000);
	else
		snprintf(buf, n, "%12" PRIu64 ":", ev->ts);
}

/* The argument an argument of the print format stands for, past its casts. */
static const struct tep_print_arg *uncast(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a;
}

/*
 * The fields of @e that its print format prints as functions: a bit per
 * field, in field order. The conversions of the format take its arguments
 * in order ('*' takes one more), as libtraceevent pairs them.
 */
static uint64_t function_fields(const struct tep_event *e)
{
	const struct tep_print_arg *arg = e->print_fmt.args;
	const char *f = e->print_fmt.format;
	uint64_t mask = 0;

	for (; f && *f && arg; f++) {
		bool fn = false;

		if (*f != '%' || f[1] == '%') {
			f += *f == '%';
			continue;
		}
		for (f++; *f && strchr("#hlLzZ.0123456789-*", *f); f++)
			if (*f == '*' && arg)
				arg = arg->next;
		if (!*f || !strchr("pduixXos", *f))
			continue; /* libtraceevent's literal text: no argument taken */
		fn = *f == 'p' && f[1] && strchr("FfSs", f[1]);
		if (fn && uncast(arg) && uncast(arg)->type == TEP_PRINT_FIELD) {
			int k = 0;
			for (const struct tep_format_field *fl = e->format.fields; fl && k < 64;
			     fl = fl->next, k++)
				if (!strcmp(fl->name, uncast(arg)->field.name))
					mask |= 1ULL << k;
		}
		if (arg)
			arg = arg->next;
	}
	return mask;
}

/* The raw text of @e's fields 0 to @k (all of them for k = 63). */
static void fields_upto(struct trace_seq *s, struct tep_record *rec, struct tep_event *e, int k)
{
	trace_seq_reset(s);
	if (k >= 0)
		tep_record_print_selected_fields(s, rec, e, k >= 63 ? ~0ULL : (2ULL << k) - 1);
	trace_seq_terminate(s);
}

/*
 * @text (1.7's rendering of field @fl, @n bytes) as 1.8.4 renders it, into
 * @out: a function's name with its address after it. Unchanged if 1.7's
 * text is no function's rendering.
 */
static void function_text(struct tep_handle *tep, const struct tep_record *rec,
			  const struct tep_format_field *fl, const char *text, size_t n,
			  struct trace_seq *out)
{
	unsigned long long v = 0;
	const char *name;
	char want[64];

	if (fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING) ||
	    tep_read_number_field((struct tep_format_field *)fl, rec->data, &v)) {
		trace_seq_printf(out, "%.*s", (int)n, text);
		return;
	}
	name = tep_find_function(tep, v);
	snprintf(want, sizeof(want), "0x%llx", v);
	if (!name && n == strlen(want) && !memcmp(text, want, n))
		trace_seq_printf(out, " (%s)", want);
	else if (name && n >= strlen(name) && !memcmp(text, name, strlen(name)) &&
		 (n == strlen(name) || text[strlen(name)] == '+'))
		trace_seq_printf(out, "%.*s (%s)", (int)n, text, want);
	else
		trace_seq_printf(out, "%.*s", (int)n, text);
}

/* The raw fields of @rec's event in 1.8.4's form, into @out. */
static void fields_33(struct tep_handle *tep, struct tep_record *rec, struct tep_event *e,
		      uint64_t fnmask, struct trace_seq *out)
{
	struct trace_seq prev, cur;
	int k = 0;

	trace_seq_init(&prev);
	trace_seq_init(&cur);
	fields_upto(&prev, rec, e, -1);
	for (const struct tep_format_field *fl = e->format.fields; fl; fl = fl->next, k++) {
		size_t name_len = strlen(fl->name) + 2; /* " NAME=" */

		fields_upto(&cur, rec, e, k);
		if (k < 64 && fnmask & (1ULL << k) && cur.len >= prev.len + name_len) {
			trace_seq_printf(out, "%.*s", (int)name_len, cur.buffer + prev.len);
			function_text(tep, rec, fl, cur.buffer + prev.len + name_len,
				      cur.len - prev.len - name_len, out);
		} else {
			trace_seq_printf(out, "%.*s", (int)(cur.len - prev.len),
					 cur.buffer + prev.len);
		}
		trace_seq_reset(&prev);
		trace_seq_printf(&prev, "%.*s", (int)cur.len, cur.buffer);
	}
	trace_seq_destroy(&prev);
	trace_seq_destroy(&cur);
}

void dump_like_fields(struct tep_handle *tep, const struct fmt_event *ev, enum dump_form form,
		      struct trace_seq *seq)
{
	static const char spaces[] = "                    "; /* 20: the name's column */
	const char *name = ev->event ? ev->event->name : "(NULL)";
	size_t len = strlen(name);
	struct tep_record rec;
	uint64_t fnmask;

	trace_seq_printf(seq, " %s: %.*s", name, len < 20 ? (int)(20 - len) : 0, spaces);
	if (!ev->event) {
		trace_seq_puts(seq, "[UNKNOWN EVENT]");
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = ev->ts;
	rec.cpu = ev->cpu;
	rec.data = (void *)ev->data;
	rec.size = (int)ev->size;
	fnmask = form == DUMP_33 ? function_fields(ev->event) : 0;
	if (fnmask)
		fields_33(tep, &rec, ev->event, fnmask, seq);
	else
		tep_print_event(tep, seq, &rec, "%s", TEP_PRINT_INFO_RAW);
}
