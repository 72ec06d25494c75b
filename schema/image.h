/* SPDX-License-Identifier: MIT */
/*
 * image.c: the empty database of the schema (schema.h's templates) written
 * out, for a new database to start from.
 */
#ifndef DARC_IMAGE_H
#define DARC_IMAGE_H

/* An empty database of the schema, with pages of one size. */
struct image {
	const unsigned char *runs;		/* schema.h's runs of it */
	const unsigned long *len, *size;	/* the runs' bytes; the file's */
	int page_size;
};

/*
 * Of 64 KiB pages: a big recording's database (fewer pages for SQLite to
 * walk in a report's scans of millions of calls).
 */
extern const struct image image_big;

/*
 * Of 4 KiB pages: a small recording's database, whose every table still
 * takes a page: 200 KiB to write and sync where 64 KiB pages make 3 MiB
 * (most of a small analysis' time); and the schema a report checks a
 * database against (trust.c).
 */
extern const struct image image_small;

/* Write @im into the empty file @fd. 0, or -1 with errno set. */
int image_write(const struct image *im, int fd);

/* @im into @buf (*@im->size bytes). */
void image_fill(const struct image *im, void *buf);

#endif
