// SPDX-License-Identifier: MIT
/*
 * image: the empty databases of darc's schema that template.c made at build
 * time (schema_template[] and schema_template_small[]: runs of zeros and the
 * bytes between), written into a file or a buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "schema.h"

/* The varint at *@p (7 bits a byte, low first), *@p moved past it. */
static unsigned long get_varint(const unsigned char **p)
{
	unsigned long v = 0;
	int shift = 0;

	do
		v |= (unsigned long)(**p & 0x7f) << shift, shift += 7;
	while (*(*p)++ & 0x80);
	return v;
}

const struct image image_big = {schema_template, &schema_template_len, &schema_template_size,
				 65536};
const struct image image_small = {schema_template_small, &schema_template_small_len,
				   &schema_template_small_size, 4096};

/* @fn on each run of bytes (@n at offset @off) of @im; the first nonzero return. */
static int each_run(const struct image *im,
		    int (*fn)(void *ctx, unsigned long off, const unsigned char *p, unsigned long n),
		    void *ctx)
{
	const unsigned char *p = im->runs, *end = p + *im->len;
	unsigned long off = 0;

	while (p < end) {
		unsigned long zeros = get_varint(&p), n = get_varint(&p);
		int rc;

		off += zeros;
		if (n && (rc = fn(ctx, off, p, n)))
			return rc;
		p += n;
		off += n;
	}
	return 0;
}

static int to_file(void *ctx, unsigned long off, const unsigned char *p, unsigned long n)
{
	int fd = *(int *)ctx;

	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		off += (unsigned long)w;
		n -= (unsigned long)w;
	}
	return 0;
}

int image_write(const struct image *im, int fd)
{
	if (ftruncate(fd, (off_t)*im->size) < 0)
		return -1;
	return each_run(im, to_file, &fd);
}

static int to_buffer(void *ctx, unsigned long off, const unsigned char *p, unsigned long n)
{
	memcpy((unsigned char *)ctx + off, p, n);
	return 0;
}

void image_fill(const struct image *im, void *buf)
{
	memset(buf, 0, *im->size);
	each_run(im, to_buffer, buf);
}
