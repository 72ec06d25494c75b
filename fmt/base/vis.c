// SPDX-License-Identifier: MIT
#include "vis.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RING 8

/* The length of the UTF-8 character at @s if it prints as it is, else 0. */
static size_t utf8_char(const unsigned char *s)
{
	/* the least code point of each length: shorter forms are overlong; 0xa0 leaves out C1 */
	static const uint32_t least[5] = {0, 0, 0xa0, 0x800, 0x10000};
	size_t n = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	uint32_t c;

	if (!n)
		return 0;
	c = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* the NUL at the end stops here too */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	return c < least[n] || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff ? 0 : n;
}

int vis_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : *p < 0xc2 ? 0 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : *p < 0xf5 ? 4 : 0;
		uint32_t c;

		if (!n)
			return 0;
		c = n == 1 ? *p : *p & (0x7f >> n);
		for (size_t i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (p[i] & 0x3f);
		}
		if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xd800 && c < 0xe000) ||
		    c > 0x10ffff)
			return 0;
		p += n;
	}
	return 1;
}

/* Does @s hold a digit and then only digits and dots to its end? */
static int count_tail(const char *s)
{
	if (*s < '0' || *s > '9')
		return 0;
	return !s[strspn(s, "0123456789.")];
}

/*
 * The next piece of @s: either NULL with *n bytes that print as they are,
 * or the escape of its first byte (*n = 1), written in @buf when it has no
 * name of its own.
 */
static const char *piece(const char *s, unsigned flags, size_t *n, char buf[8])
{
	static const char *const named[0x20] = {
	    ['\a'] = "\\a", ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n",
	    ['\v'] = "\\v", ['\f'] = "\\f", ['\r'] = "\\r", [0x1b] = "\\e"};
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0, u;

	for (;;) {
		unsigned char c = p[k];
		if (c >= 0x20 && c < 0x7f && c != '\\' &&
		    !((flags & VIS_FOLDED) && (c == ';' || (c == ' ' && count_tail(s + k + 1)))))
			k++;
		else if (c >= 0x80 && (u = utf8_char(p + k)))
			k += u;
		else
			break;
	}
	*n = k ? k : 1;
	if (k)
		return NULL;
	if (*p == '\\')
		return "\\\\";
	if (*p < 0x20 && named[*p])
		return named[*p];
	snprintf(buf, 8, "\\x%02x", *p);
	return buf;
}

void vis_put(FILE *out, const char *s, unsigned flags)
{
	char buf[8];
	size_t n;

	if (!s)
		s = "(null)";
	for (; *s; s += n) {
		const char *e = piece(s, flags, &n, buf);
		if (e)
			fputs(e, out);
		else
			fwrite(s, 1, n, out);
	}
}

const char *vis(const char *s)
{
	static struct {
		char *p;
		size_t cap;
	} ring[RING];
	static unsigned next;
	char buf[8], *o;
	size_t n, len = 0;
	int plain = 1;

	if (!s)
		return "(null)";
	for (const char *q = s; *q; q += n) {
		const char *e = piece(q, 0, &n, buf);
		len += e ? strlen(e) : n;
		plain = plain && !e;
	}
	if (plain)
		return s;
	next = (next + 1) % RING;
	if (ring[next].cap <= len) {
		char *p = realloc(ring[next].p, len + 1);
		if (!p)
			return "?";
		ring[next].p = p;
		ring[next].cap = len + 1;
	}
	o = ring[next].p;
	for (const char *q = s; *q; q += n) {
		const char *e = piece(q, 0, &n, buf);
		memcpy(o, e ? e : q, e ? strlen(e) : n);
		o += e ? strlen(e) : n;
	}
	*o = 0;
	return ring[next].p;
}
