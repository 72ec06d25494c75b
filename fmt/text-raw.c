// SPDX-License-Identifier: MIT
/*
 * Raw fields, as `trace-cmd report -R` prints an event: "name=value" for
 * every field of its format, in the format's order ("prev_state=64" where
 * the kernel would print "D"). Read back field by field into a record of
 * the format the reader registered for the event (see text-raw.h).
 *
 * A value runs to the next field's " name=" (a comm may hold spaces): a
 * number (decimal, or hex with 0x), a string, "ARRAY[f3, 64, ...]" (the
 * bytes of an array), or a symbol (libtraceevent prints a function's
 * address as its name: "ip=vfs_read"), which @sym turns into an address
 * (only in an unsigned long field: an address).
 */
#include "text-raw.h"

#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

/* " NAME=" of the field after @f that is printed (not a common field). */
static const char *next_key(struct tep_format_field *f, const char *s, const char *e)
{
	char key[80];
	int n;

	for (f = f->next; f; f = f->next) {
		const char *q;
		n = snprintf(key, sizeof(key), " %s=", f->name);
		if (n <= 0 || n >= (int)sizeof(key))
			return NULL;
		for (q = s; q + n <= e; q++)
			if (!memcmp(q, key, n))
				return q;
	}
	return e;
}

/* "ARRAY[f3, 64, af]": its bytes into @dst (at most @max). */
static bool array_bytes(struct text_span v, uint8_t *dst, int max)
{
	const char *p = v.p + 6, *e = v.p + v.n - 1;
	int i = 0;

	if (v.n < 7 || memcmp(v.p, "ARRAY[", 6) || e[0] != ']')
		return false;
	while (p < e) {
		const char *q = p;
		uint64_t b;
		while (q < e && *q != ',')
			q++;
		if (i == max || !tline_hex(p, q, &b) || b > 255)
			return false;
		dst[i++] = (uint8_t)b;
		p = q < e ? q + 2 : e;
	}
	return true;
}

/* A number: decimal (maybe negative, up to 2^64 - 1) or 0x hex. */
static bool number(struct text_span v, uint64_t *u)
{
	const char *p = v.p + (v.n && *v.p == '-'), *e = v.p + v.n;

	if (v.n > 2 && v.p[0] == '0' && v.p[1] == 'x')
		return tline_hex(v.p + 2, e, u);
	if (p == e)
		return false;
	for (*u = 0; p < e; p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (*p < '0' || *p > '9' || *u > (UINT64_MAX - d) / 10)
			return false;
		*u = *u * 10 + d;
	}
	if (*v.p == '-')
		*u = -*u;
	return true;
}

/* Field @f's value @v into @rec (@end: where dynamic data goes next). */
static bool put_field(struct tep_format_field *f, struct text_span v, uint8_t *rec, int cap,
		      int *end, traw_sym sym, void *ctx)
{
	uint64_t u;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc = (uint32_t)(v.n + 1) << 16 | (uint32_t)*end;
		if (!(f->flags & TEP_FIELD_IS_STRING) || *end + v.n + 1 > cap || f->size != 4)
			return false;
		memcpy(rec + *end, v.p, v.n);
		*end += v.n + 1;
		memcpy(rec + f->offset, &loc, 4);
		return true;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		memcpy(rec + f->offset, v.p, v.n < f->size - 1 ? v.n : f->size - 1);
		return true;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return array_bytes(v, rec + f->offset, f->size);
	if (f->size < 1 || f->size > 8)
		return false;
	if (!number(v, &u)) { /* a symbol: an address field's, never starting with a digit */
		if (f->size != 8 || (f->flags & TEP_FIELD_IS_SIGNED) || !sym || !v.n ||
		    (*v.p >= '0' && *v.p <= '9') || *v.p == '-' || !sym(ctx, v, &u))
			return false;
	}
	memcpy(rec + f->offset, &u, f->size); /* little-endian, as the formats are */
	return true;
}

int traw_record(struct tep_event *ev, struct text_span text, uint8_t *rec, int cap, traw_sym sym,
		void *ctx)
{
	const char *p = text.p, *e = text.p + text.n;
	struct tep_format_field *f;
	int end = 0;

	for (f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	if (end > cap)
		return -1;
	memset(rec, 0, cap);
	for (f = ev->format.fields; f; f = f->next) {
		size_t n = strlen(f->name);
		const char *v, *ve;

		if (f->size == 0 && p == e)
			break; /* a flexible array the text does not print */
		if ((size_t)(e - p) <= n || memcmp(p, f->name, n) || p[n] != '=')
			return -1;
		v = p + n + 1;
		ve = next_key(f, v, e);
		if (!ve ||
		    !put_field(f, (struct text_span){v, (int)(ve - v)}, rec, cap, &end, sym, ctx))
			return -1;
		p = ve < e ? ve + 1 : e;
	}
	return p == e ? end : -1;
}
