/* SPDX-License-Identifier: MIT */
/*
 * prefetch: reads every CPU stream of a trace.dat file ahead of the reader,
 * on a second thread. For each stream it takes the next run of ring-buffer
 * pages (a compressed chunk of a v7 file, decompressed; or the next pages of
 * the mapping), walks them with kbuffer, checks them, and hands the reader
 * a chunk: the events' times, places and sizes in order, and the pages'
 * lost-event marks. The reader is left to merge the CPUs by time, so zstd
 * and kbuffer run on the other core.
 */
#ifndef DARC_PREFETCH_H
#define DARC_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "err-msg.h"
#include "fmt.h"

/*
 * Give the file's pages in [@from, @to) back to the page cache: the reader has
 * read them and will not again, so they need not count in its memory.
 */
void prefetch_release_pages(const uint8_t *from, const uint8_t *to);

struct prefetch;

/* How the ring-buffer pages are laid out (from the file's header_page). */
struct page_conf {
	uint32_t page_size;
	int kernel_long; /* size of the commit field: 4 or 8 */
	int page_hdr;	 /* bytes before the events: timestamp and commit */
	bool swap;	 /* the file's byte order is not ours */
	bool big_endian; /* the file's byte order */
	bool old_format; /* kbuffer's old page format */
	bool serial;	 /* no reading threads: each chunk produced by the reader
			    when it asks for it (FMT_OPEN_SERIAL) */
};

/* One stream: its pages, or its chunk list (count, then size-prefixed chunks). */
struct prefetch_src {
	const uint8_t *data;
	uint64_t len;
	bool compressed;
	int cpu; /* for messages */
};

/* One event of a chunk. */
struct fmt_rec {
	uint64_t ts;
	uint32_t off;  /* of its record, from the chunk's base */
	uint32_t size; /* of its record */
};

/* Events were lost just before record @rec. */
struct fmt_mark {
	uint32_t rec;
	uint64_t missed; /* how many, or FMT_MISSED_UNKNOWN */
};

/* What the reader gets: valid until its next prefetch_next() on the stream. */
struct prefetch_chunk {
	const uint8_t *base;
	const struct fmt_rec *recs;
	uint32_t nrec;
	const struct fmt_mark *marks; /* in order of rec */
	uint32_t nmark;
	struct fmt_cpu_stats st;  /* pages and lost events of this chunk (events: 0) */
	bool failed;		  /* after its records, the stream is corrupt: */
	struct err_msg err;	  /* why */
};

/* Start reading the @n streams @srcs (none is fine) of the file @file_base. */
struct prefetch *prefetch_start(const char *path, const char *algo, const struct page_conf *conf,
				const struct prefetch_src *srcs, int n, const uint8_t *file_base,
				struct err_msg *err);

/*
 * The next chunk of stream @i, in *@c; the previous one is given back. 1, or
 * 0 at the stream's end, or -1 with @err (the data cannot be read).
 */
int prefetch_next(struct prefetch *p, int i, const struct prefetch_chunk **c,
		  struct err_msg *err);

/* Stop the thread and free everything. Accepts NULL. */
void prefetch_stop(struct prefetch *p);

#endif
