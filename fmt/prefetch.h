/* SPDX-License-Identifier: MIT */
/*
 * prefetch: decompresses the chunks of every compressed CPU stream of a
 * trace.dat v7 file ahead of the reader, on a second thread, so that zstd
 * runs on the other core while the reader walks pages.
 */
#ifndef DARC_PREFETCH_H
#define DARC_PREFETCH_H

#include <stdint.h>

#include "fmt.h"

/*
 * Give the file's pages in [@from, @to) back to the page cache: the reader has
 * read them and will not again, so they need not count in its memory.
 */
void fmt_release_pages(const uint8_t *from, const uint8_t *to);

/*
 * Fault in the next window of the file from @from (at most up to @end) and
 * set *@upto to its end: the reader walks mapped pages without a page fault
 * each, and only a window at a time counts in its memory.
 */
void fmt_map_ahead(const uint8_t *from, const uint8_t *end, const uint8_t **upto);

struct prefetch;

/* One compressed stream: its chunk list (count, then size-prefixed chunks). */
struct prefetch_src {
	const uint8_t *data;
	uint64_t len;
	int cpu; /* for messages */
};

/*
 * Start decompressing @n streams with algorithm @algo. @path names the file
 * in messages, @swap says the numbers need byte swapping. Returns NULL and
 * fills @err on failure. Release with prefetch_stop().
 */
struct prefetch *prefetch_start(const char *path, const char *algo, bool swap,
				const struct prefetch_src *srcs, int n, const uint8_t *file_base,
				struct fmt_err *err);

/*
 * Hand the next decompressed chunk of stream @i to the caller, releasing the
 * one it had. The chunk stays valid until the next call for the same stream.
 * Returns 1 with data and len set, 0 when the stream has no more chunks, -1
 * with @err filled when the data is corrupt.
 */
int prefetch_next(struct prefetch *p, int i, const uint8_t **data, uint32_t *len,
		  struct fmt_err *err);

/* Stop the thread and release everything. Accepts NULL. */
void prefetch_stop(struct prefetch *p);

#endif
