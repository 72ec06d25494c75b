/* SPDX-License-Identifier: MIT */
/*
 * bytes: bounds-checked reading of little- or big-endian numbers and strings
 * from a byte range. A read past the end sets ->bad and yields zeros, so a
 * parser can read a whole header and check once.
 */
#ifndef DARC_BYTES_H
#define DARC_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *base; /* start of the range (offsets are relative to it) */
	const uint8_t *p;    /* next byte */
	const uint8_t *end;  /* one past the last byte */
	bool swap;	     /* the data's byte order differs from the host's */
	bool bad;	     /* a read went past the end */
};

/*
 * A reader of the @len bytes at @base. A NULL @base (no data, as a record
 * with no payload gives) is an empty range whatever @len says: no pointer
 * is formed from it, which C leaves undefined even for an offset of 0.
 */
static inline struct rd rd_init(const void *base, uint64_t len, bool swap)
{
	const uint8_t *b = base;
	struct rd r = {b, b, b ? b + len : b, swap, false};
	return r;
}

static inline uint64_t rd_left(const struct rd *r)
{
	return (uint64_t)(r->end - r->p);
}

static inline uint64_t rd_pos(const struct rd *r)
{
	return (uint64_t)(r->p - r->base);
}

/* Move to offset @off from the base; sets ->bad if outside the range. */
static inline void rd_seek(struct rd *r, uint64_t off)
{
	if (off > (uint64_t)(r->end - r->base)) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p = r->base + off;
}

/* Return a pointer to the next @n bytes and skip them, or NULL (->bad set). */
static inline const uint8_t *rd_bytes(struct rd *r, uint64_t n)
{
	const uint8_t *q = r->p;

	if (r->bad || n > rd_left(r)) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	r->p += n;
	return q;
}

#define RD_NUM(bits)                                                                               \
	static inline uint##bits##_t rd_u##bits(struct rd *r)                                      \
	{                                                                                          \
		uint##bits##_t v;                                                                  \
		const uint8_t *q = rd_bytes(r, sizeof(v));                                         \
		if (!q)                                                                            \
			return 0;                                                                  \
		memcpy(&v, q, sizeof(v));                                                          \
		return r->swap ? rd_swap##bits(v) : v;                                             \
	}

static inline uint16_t rd_swap16(uint16_t v)
{
	return __builtin_bswap16(v);
}
static inline uint32_t rd_swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}
static inline uint64_t rd_swap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

RD_NUM(16)
RD_NUM(32)
RD_NUM(64)

/*
 * A NUL-terminated string inside the range, or NULL (->bad set) if no NUL
 * comes before the end. Skips past the NUL.
 */
static inline const char *rd_str(struct rd *r)
{
	const uint8_t *nul;

	if (r->bad)
		return NULL;
	nul = memchr(r->p, 0, rd_left(r));
	if (!nul) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = nul + 1;
	return s;
}

#endif
