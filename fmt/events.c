// SPDX-License-Identifier: MIT
/*
 * The event formats of a recording, whatever its format: indexed when the
 * reader opens it (fmt_events_add_format()), parsed by libtraceevent on first use
 * (fmt_events_format()), after screens for what would crash libtraceevent;
 * and records shorter than their format, padded (fmt_events_pad()).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "events.h"
#include "fmt.h"
#include "grow.h"

int fmt_events_init_tep(struct fmt_reader *r, struct err_msg *err)
{
	/* calloc: pages of zeros are only touched (faulted in) where an id is set */
	r->format_of_id = calloc(65536, sizeof(*r->format_of_id));
	r->ev_of_id = calloc(65536, sizeof(*r->ev_of_id));
	r->ev_done = calloc(65536, 1);
	r->ev_min_size = calloc(65536, sizeof(*r->ev_min_size));
	r->ev_full_size = calloc(65536, sizeof(*r->ev_full_size));
	r->tep = tep_alloc();
	if (!r->format_of_id || !r->ev_of_id || !r->ev_done || !r->ev_min_size || !r->ev_full_size || !r->tep)
		return FAIL("out of memory");
	tep_set_file_bigendian(r->tep, r->info.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									       : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, r->info.long_size);
	tep_set_page_size(r->tep, r->info.page_size);
	return 0;
}

void fmt_events_free(struct fmt_reader *r)
{
	free(r->formats);
	free(r->info.refused);
	free(r->format_of_id);
	free(r->ev_of_id);
	free(r->ev_min_size);
	free(r->ev_full_size);
	free(r->pad);
	free(r->ev_done);
	if (r->tep)
		tep_free(r->tep);
}

int fmt_events_add_format(struct fmt_reader *r, const char *sys, const char *p, uint64_t n,
		   struct err_msg *err)
{
	struct fmt_format *f;
	const char *name, *id, *end;
	long v;

	end = p + (n < 1024 ? n : 1024);
	name = memmem(p, end - p, "name: ", 6);
	id = memmem(p, end - p, "\nID: ", 5);
	if (!name || !id)
		return 0; /* not a format libtraceevent could use either */
	name += 6;
	v = strtol(id + 5, NULL, 10);
	if (v < 0 || v > 65535)
		return 0; /* common_type is 16 bits: no event can carry this id */
	if (GROW(r->formats, r->nformats, r->formats_cap, 256))
		return FAIL("out of memory");
	f = &r->formats[r->nformats];
	f->sys = sys;
	f->text = p;
	f->len = n;
	f->name = name;
	f->name_len = strcspn(name, "\n");
	if (name + f->name_len > end)
		return 0;
	f->id = v;
	if (!r->format_of_id[v])
		r->format_of_id[v] = r->nformats + 1;
	r->nformats++;
	r->info.nevent_formats++;
	return 0;
}

/*
 * Screens for what crashes libtraceevent 1.7 in a print fmt's arguments
 * (outside its strings) and no kernel format has (found by fuzzing the
 * perf.data reader): a character its tokenizer makes no token of ('$', '@',
 * '#', '`', '\\'), a member of an indexed element ("]->", "] .x"), an
 * index followed by '[' or ']' (a second dimension, a stray ']'),
 * a lone '=' (an assignment: NULL dereference), and a '/' or '%'
 * whose divisor is not a nonzero number or a sizeof(): the parser folds
 * constant operands and divides by zero (SIGFPE), and tep_print_event
 * divides by a field's value, or by "(1-1)", as the record has it (SIGFPE;
 * the kernel divides by neither), and such a divisor followed by a '*', '/'
 * or '%' (the parser folds "8/2/4" as 8/(2/4) and "8/4*0" as 8/(4*0):
 * SIGFPE; no kernel format chains them), and two names in a row that do not end a cast or sizeof
 * ("? x : long REC->y", a type where a value goes: SIGSEGV), and a ';'
 * (after a ?: it is read past the end: "1 ? 2 : 4;"), and a "->" on
 * anything but REC ("1 ? 2 : n->x", SIGSEGV; the kernel's are "REC->x" and
 * "(REC)->x"), and a '{' that does not start an element of a list after
 * a ',' ("REC->a[2]{ REC->b": SIGSEGV; the kernel's braces are the
 * { value, "name" } pairs of __print_flags and __print_symbolic). These are
 * screens, not a grammar: libtraceevent's parser still trusts the print fmt.
 */
static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * At @p in a print fmt's arguments: false where a name starts that another
 * name follows, and the names (and '*'s) then do not end at a ')', as a
 * cast's type or sizeof's do ("(unsigned long)", "sizeof(struct x *)").
 */
static bool two_names_ok(const char *p, const char *end)
{
	const char *q = p;

	if (!(isalpha((unsigned char)*p) || *p == '_') || name_char(p[-1]))
		return true;
	while (q < end && name_char(*q))
		q++;
	if (q == end || !isspace((unsigned char)*q))
		return true;
	while (q < end && isspace((unsigned char)*q))
		q++;
	if (q == end || !(isalpha((unsigned char)*q) || *q == '_'))
		return true;
	while (q < end && (name_char(*q) || isspace((unsigned char)*q) || *q == '*'))
		q++;
	return q < end && *q == ')';
}

/* Whether sizeof's name ends at @p and its '(' follows ("sizeofpid" is a name). */
static bool sizeof_call(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p < end && *p == '(';
}

/*
 * Whether the divisor at @q (a number or a sizeof(), up to @end) is the last
 * operand of its '*', '/' and '%' chain: no such operator follows it.
 */
static bool divisor_last(const char *q, const char *end)
{
	if (end - q >= 6 && !memcmp(q, "sizeof", 6)) {
		q = memchr(q, ')', end - q);
		q = q ? q + 1 : end;
	} else {
		while (q < end && name_char(*q))
			q++;
	}
	while (q < end && isspace((unsigned char)*q))
		q++;
	return q == end || !strchr("*/%", *q);
}

/* Whether the "->" at @p follows REC or (REC), after @text's start. */
static bool on_rec(const char *text, const char *p)
{
	if (p - text >= 4 && !memcmp(p - 4, "REC)", 4))
		p--;
	return p - text >= 3 && !memcmp(p - 3, "REC", 3) && !(p - text > 3 && name_char(p[-4]));
}

/* Whether the last character before @p, after @text's start, that is not a space is a ','. */
static bool after_comma(const char *text, const char *p)
{
	while (p > text && isspace((unsigned char)p[-1]))
		p--;
	return p > text && p[-1] == ',';
}

/* The first of the screens above that @text breaks, in words, or NULL. */
static const char *print_args_why(const char *text, size_t len)
{
	const char *p = memmem(text, len, "print fmt:", 10), *end = text + len;
	bool str = false, indexed = false; /* after an outermost index's ']' */
	int depth = 0;			   /* of [ ] outside strings */

	for (p = p ? p + 10 : NULL; p && p < end; p++) {
		const char *q = p + 1;
		if (str) {
			if (*p == '\\' && p + 1 < end)
				p++; /* an escaped character */
			else
				str = *p != '"';
			continue;
		}
		str = *p == '"';
		if (*p == '[' || *p == ']') {
			if (indexed || (*p == ']' && !depth))
				return "a second index, or a stray ']', in its print args";
			depth += *p == '[' ? 1 : -1;
			indexed = *p == ']' && !depth;
		} else if (!isspace((unsigned char)*p)) {
			/* a member of an indexed element: '.', "->" */
			if (indexed && (*p == '.' || (*p == '-' && q < end && *q == '>')))
				return "a member of an indexed element in its print args";
			indexed = false;
		}
		if (!two_names_ok(p, end))
			return "two names in a row in its print args";
		if (*p == '-' && q < end && *q == '>' && !on_rec(text, p))
			return "a '->' on something other than REC in its print args";
		if (*p == '{' && !after_comma(text, p))
			return "a '{' that starts no list element in its print args";
		if (*p && strchr("$@#`\\;", *p))
			return "a '$', '@', '#', '`', '\\' or ';' in its print args";
		if (*p == ']' && end - p >= 3 && !memcmp(p, "]->", 3))
			return "a member of an indexed element in its print args";
		/* an assignment: only ==, !=, <= and >= are the kernel's */
		if (*p == '=' && !strchr("=!<>", p[-1]) && !(q < end && *q == '='))
			return "an assignment in its print args";
		if (*p != '/' && *p != '%')
			continue;
		while (q < end && *q == ' ')
			q++;
		if (!((end - q >= 6 && !memcmp(q, "sizeof", 6) && sizeof_call(q + 6, end)) ||
		      (q < end && *q >= '1' && *q <= '9')))
			return "a divisor that is no nonzero number or sizeof() in its print args";
		if (!divisor_last(q, end))
			return "a divisor followed by '*', '/' or '%' in its print args";
	}
	return NULL;
}

/*
 * The name a "field:TYPE NAME[N];" line of a format declares, at @p (after
 * "field:"), up to @end; its length in *@n, or NULL if there is none.
 */
static const char *field_name(const char *p, const char *end, size_t *n)
{
	const char *semi = memchr(p, ';', end - p), *q;

	if (!semi)
		return NULL;
	q = semi;
	if (q > p && q[-1] == ']')
		while (q > p && *q != '[')
			q--;
	*n = 0;
	while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) {
		q--;
		(*n)++;
	}
	return *n ? q : NULL;
}

/*
 * Screens for what crashes libtraceevent 1.7's format parser (found by
 * fuzzing) and the kernel never writes: a control character or a byte
 * past ASCII (its tokenizer returns no token, then compares it), no print
 * fmt (a text cut short: a '[' as its last token is compared the same way),
 * and a REC->NAME in the print fmt that is no field of the format. Returns
 * the rule the text breaks, in words, or NULL.
 */
static const char *format_why(const char *text, size_t len)
{
	const char *end = text + len, *pf = memmem(text, len, "print fmt:", 10), *p;
	const char *names[256];
	size_t lens[256];
	int n = 0;

	for (p = text; p < end && *p; p++)
		if (((unsigned char)*p < ' ' && *p != '\t' && *p != '\n') ||
		    (unsigned char)*p >= 0x7f)
			return "a control character or a byte past ASCII";
	if (!pf)
		return "no print fmt";
	for (p = text; (p = memmem(p, pf - p, "field:", 6)); p += 6) {
		if (n == 256)
			return "more than 256 fields";
		names[n] = field_name(p + 6, pf, &lens[n]);
		if (!names[n])
			return "a field without a name";
		n++;
	}
	for (p = pf; (p = memmem(p, end - p, "REC->", 5)); ) {
		const char *q = p += 5;
		int i;
		while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		for (i = 0; i < n && (lens[i] != (size_t)(q - p) || memcmp(names[i], p, lens[i]));
		     i++)
			;
		if (i == n)
			return "a REC->name in its print args that is no field of it";
	}
	return NULL;
}

/*
 * The bytes @ev's fixed fields take, past the last of them (a dynamic one's
 * 4-byte locator), into *@full; returns those a record needs: as many, or
 * where the last field starts when it is an array, which the kernel may cut
 * (kernel_stack's caller[8] holds as many frames as it has).
 */
static uint16_t fixed_size(const struct tep_event *ev, uint16_t *full)
{
	const struct tep_format_field *last = NULL;
	unsigned end = 0;

	for (int common = 0; common < 2; common++)
		for (const struct tep_format_field *f = common ? ev->format.common_fields
							   : ev->format.fields;
		     f; f = f->next)
			if ((unsigned)f->offset + (unsigned)f->size > end) {
				end = (unsigned)f->offset + (unsigned)f->size;
				last = f;
			}
	*full = end > 65535 ? 65535 : (uint16_t)end;
	if (last && (last->flags & TEP_FIELD_IS_ARRAY) && !(last->flags & TEP_FIELD_IS_DYNAMIC))
		end = (unsigned)last->offset;
	return end > 65535 ? 65535 : (uint16_t)end;
}

/*
 * Format @i refused for @why: noted in r->info.refused, where its events are
 * counted as they are read (fmt_events_count_refused()), so that what was
 * dropped is said. Out of memory, it goes unnoted, as the reading fails soon.
 */
static void refuse(struct fmt_reader *r, int i, const char *why)
{
	struct fmt_format *f = &r->formats[i];
	struct fmt_refused *x;

	if (GROW(r->info.refused, r->info.nrefused, r->refused_cap, 8))
		return;
	x = &r->info.refused[r->info.nrefused++];
	snprintf(x->event, sizeof(x->event), "%s:%.*s", f->sys, (int)f->name_len, f->name);
	x->id = f->id;
	x->why = why;
	x->events = 0;
	f->refused = r->info.nrefused;
}

void fmt_events_count_refused(struct fmt_reader *r, int id)
{
	int i = r->format_of_id[id] - 1;

	if (i >= 0 && r->formats[i].refused)
		r->info.refused[r->formats[i].refused - 1].events++;
}

struct tep_event *fmt_events_format(struct fmt_reader *r, int id)
{
	struct tep_event *ev = NULL;
	struct tep_format_field *type, *pid;
	const struct fmt_format *f;
	const char *why;
	size_t len;
	int i;

	if (r->ev_done[id])
		return r->ev_of_id[id];
	r->ev_done[id] = 1;
	i = r->format_of_id[id] - 1;
	if (i < 0)
		return NULL;
	f = &r->formats[i];
	/* the text ends at a NUL: libtraceevent's tokenizer makes no token of one */
	len = strnlen(f->text, f->len);
	why = print_args_why(f->text, len);
	if (!why)
		why = format_why(f->text, len);
	if (!why && tep_parse_event(r->tep, f->text, len, f->sys))
		why = "libtraceevent could not parse it";
	ev = why ? NULL : tep_find_event(r->tep, id);
	if (!ev) {
		refuse(r, i, why ? why : "libtraceevent found no event of its id in it");
		return NULL;
	}
	type = tep_find_common_field(ev, "common_type");
	pid = tep_find_common_field(ev, "common_pid");
	if (!type || type->offset != 0 || type->size != 2 || !pid || pid->offset != 4 ||
	    pid->size != 4) {
		r->bad_layout = true;
		return NULL;
	}
	r->ev_min_size[id] = fixed_size(ev, &r->ev_full_size[id]);
	r->ev_of_id[id] = ev;
	return ev;
}

int fmt_events_pad(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	size_t full = r->ev_full_size[ev->type];

	if (r->bad_layout)
		return FAIL("unsupported event layout: common_type/common_pid not at offsets 0/4");
	if (ev->size < r->ev_min_size[ev->type])
		return FAIL("cpu %d: a %s record of %u bytes, where its format's fields take %u",
			    ev->cpu, ev->event->name, ev->size, r->ev_min_size[ev->type]);
	if (full > r->pad_cap) {
		uint8_t *p = realloc(r->pad, full);
		if (!p)
			return FAIL("out of memory");
		r->pad = p;
		r->pad_cap = full;
	}
	memcpy(r->pad, ev->data, ev->size);
	memset(r->pad + ev->size, 0, full - ev->size);
	ev->data = r->pad;
	return 0;
}

struct tep_event *fmt_events_find(struct fmt_reader *r, const char *sys, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < r->nformats; i++) {
		const struct fmt_format *f = &r->formats[i];
		if (f->name_len == n && !memcmp(f->name, name, n) && (!sys || !strcmp(f->sys, sys)))
			return fmt_events_format(r, f->id);
	}
	return NULL;
}

int fmt_events_each_format(struct fmt_reader *r, const char *needle,
			   int (*fn)(void *ctx, struct tep_event *ev), void *ctx)
{
	size_t n = strlen(needle);

	for (int i = 0; i < r->nformats; i++) {
		const struct fmt_format *f = &r->formats[i];
		struct tep_event *ev;
		int rc;

		if (!memmem(f->text, f->len, needle, n) || r->format_of_id[f->id] != i + 1)
			continue;
		ev = fmt_events_format(r, f->id);
		if (ev && (rc = fn(ctx, ev)))
			return rc;
	}
	return 0;
}
