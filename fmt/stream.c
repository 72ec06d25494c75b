// SPDX-License-Identifier: MIT
/*
 * The event stream of a trace.dat file: each CPU's ring-buffer pages walked
 * with kbuffer, straight from the mapping or from decompressed chunks, and
 * the CPUs merged by time with a binary heap.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decomp.h"
#include "tracedat.h"

#define COMMIT_MASK ((1ULL << 27) - 1)
#define MISSING_STORED (1ULL << 30)
#define MAX_CHUNK_BYTES (1ULL << 28) /* one decompressed data chunk */

/* ---- the event stream --------------------------------------------------- */

/*
 * Decompress the stream's next chunk into s->chunk. Returns 1 with pages set,
 * 0 when no chunks are left, -1 on corruption.
 */
static int next_chunk(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	uint32_t csize, usize;
	const uint8_t *cdata;

	if (!s->chunks_left)
		return 0;
	csize = rd_u32(&s->chunks);
	usize = rd_u32(&s->chunks);
	cdata = rd_bytes(&s->chunks, csize);
	if (!cdata)
		return FAIL("cpu %d: compressed chunk past the end of its data: truncated",
			    s->cpu);
	if (usize > MAX_CHUNK_BYTES)
		return FAIL("cpu %d: absurd chunk size %u", s->cpu, usize);
	if (usize > s->chunk_cap) {
		free(s->chunk);
		s->chunk = malloc(usize);
		if (!s->chunk) {
			s->chunk_cap = 0;
			return FAIL("out of memory for a %u-byte chunk", usize);
		}
		s->chunk_cap = usize;
	}
	if (decomp_run(r->dc, cdata, csize, s->chunk, usize))
		return FAIL("cpu %d: a %u-byte compressed chunk at offset %" PRIu64
			    " does not decompress",
			    s->cpu, csize, (uint64_t)(cdata - r->map));
	s->chunks_left--;
	s->pages = s->chunk;
	s->pages_len = usize;
	s->page_off = 0;
	return 1;
}

/*
 * Load the stream's next non-empty page and its first event.
 * Returns 1 with s->data set, 0 at the end of the stream, -1 on corruption.
 */
static int next_page(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	const uint32_t psize = r->info.page_size;

	for (;;) {
		const uint8_t *page;
		uint64_t commit;
		int missed;

		if (s->page_off >= s->pages_len) {
			int rc = s->compressed ? next_chunk(r, s, err) : 0;
			if (rc <= 0)
				return rc;
			continue;
		}
		if (s->pages_len - s->page_off < psize)
			return FAIL("cpu %d: data ends in the middle of a page: truncated", s->cpu);
		page = s->pages + s->page_off;
		s->page_off += psize;
		commit = r->kernel_long == 8 ? *(const uint64_t *)(page + 8)
					     : *(const uint32_t *)(page + 8);
		if (r->swap)
			commit = r->kernel_long == 8 ? __builtin_bswap64(commit)
						     : __builtin_bswap32((uint32_t)commit);
		if ((commit & COMMIT_MASK) > psize - r->page_hdr ||
		    ((commit & MISSING_STORED) &&
		     (commit & COMMIT_MASK) + r->kernel_long > psize - r->page_hdr))
			return FAIL("cpu %d: corrupt page header at offset %" PRIu64
				    " (commit %#" PRIx64 ")",
				    s->cpu,
				    s->compressed ? (uint64_t)(s->page_off - psize)
						  : (uint64_t)(page - r->map),
				    commit);
		s->st.pages++;
		if (kbuffer_load_subbuffer(s->kbuf, (void *)page) < 0)
			return FAIL("cpu %d: cannot load a page", s->cpu);
		s->page = page;
		s->page_end = page + r->page_hdr + (commit & COMMIT_MASK);
		missed = kbuffer_missed_events(s->kbuf);
		if (missed) {
			s->st.lost_marks++;
			if (missed < 0) {
				s->st.lost_uncounted++;
				s->missed = FMT_MISSED_UNKNOWN;
			} else {
				s->st.lost += missed;
				s->missed = missed;
			}
		}
		s->data = kbuffer_read_event(s->kbuf, &s->ts);
		if (s->data)
			return 1;
	}
}

/* Check the current event lies inside its page and holds the common header. */
static int check_event(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	int size = kbuffer_event_size(s->kbuf);
	const uint8_t *d = s->data;

	if (size < 8 || d < s->page || d + size > s->page_end)
		return FAIL("cpu %d: corrupt event record (%d bytes) in a page", s->cpu, size);
	return 0;
}

/* Advance stream @s. Returns 1 with an event, 0 at its end, -1 on corruption. */
static int stream_advance(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	int rc;

	s->missed = 0;
	if (s->page) {
		s->data = kbuffer_next_event(s->kbuf, &s->ts);
		if (s->data)
			return check_event(r, s, err) ? -1 : 1;
	}
	rc = next_page(r, s, err);
	if (rc <= 0)
		return rc;
	return check_event(r, s, err) ? -1 : 1;
}

static inline bool stream_less(const struct stream *a, const struct stream *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->buffer != b->buffer)
		return a->buffer < b->buffer;
	return a->cpu < b->cpu;
}

static void heap_down(struct fmt_reader *r, int i)
{
	int *h = r->heap;
	int n = r->nheap;

	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < n && stream_less(&r->streams[h[l]], &r->streams[h[m]]))
			m = l;
		if (l + 1 < n && stream_less(&r->streams[h[l + 1]], &r->streams[h[m]]))
			m = l + 1;
		if (m == i)
			return;
		int t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

int fmt_streams_init(struct fmt_reader *r, struct fmt_err *err)
{
	enum kbuffer_long_size ls = r->kernel_long == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	enum kbuffer_endian en = r->info.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;

	r->heap = calloc(r->nstreams + 1, sizeof(int));
	if (!r->heap)
		return FAIL("out of memory");
	for (int i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		s->kbuf = kbuffer_alloc(ls, en);
		if (!s->kbuf)
			return FAIL("out of memory");
		if (tep_is_old_format(r->tep))
			kbuffer_set_old_format(s->kbuf);
		if (s->compressed) {
			s->chunks = rd_init(s->src, s->src_len, r->swap);
			s->chunks_left = rd_u32(&s->chunks);
			if (s->chunks.bad && s->src_len)
				return FAIL("cpu %d: truncated chunk count", s->cpu);
			if (s->chunks_left > s->src_len / 8)
				return FAIL("cpu %d: absurd chunk count %u", s->cpu,
					    s->chunks_left);
		} else {
			s->pages = s->src;
			s->pages_len = s->src_len;
		}
	}
	return 0;
}

int fmt_reader_next(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err)
{
	struct stream *s;
	const uint8_t *d;
	int rc;

	if (!r->started) {
		r->started = true;
		r->nheap = 0;
		for (int i = 0; i < r->nstreams; i++) {
			rc = stream_advance(r, &r->streams[i], err);
			if (rc < 0)
				return -1;
			if (rc)
				r->heap[r->nheap++] = i;
		}
		for (int i = r->nheap / 2 - 1; i >= 0; i--)
			heap_down(r, i);
	} else if (r->cur >= 0) {
		rc = stream_advance(r, &r->streams[r->cur], err);
		if (rc < 0)
			return -1;
		if (!rc)
			r->heap[0] = r->heap[--r->nheap];
		heap_down(r, 0);
	}
	if (!r->nheap) {
		r->cur = -1;
		return 0;
	}
	r->cur = r->heap[0];
	s = &r->streams[r->cur];
	d = s->data;
	ev->ts = s->ts + r->info.ts_offset;
	ev->data = d;
	ev->size = kbuffer_event_size(s->kbuf);
	ev->cpu = s->cpu;
	ev->buffer = s->buffer;
	{
		uint16_t type;
		int32_t pid;
		memcpy(&type, d, 2);
		memcpy(&pid, d + 4, 4);
		if (r->swap) {
			type = __builtin_bswap16(type);
			pid = (int32_t)__builtin_bswap32((uint32_t)pid);
		}
		ev->type = type;
		ev->pid = pid;
	}
	ev->flags = d[2];
	ev->preempt = d[3];
	ev->event = fmt_event_format(r, ev->type);
	if (r->bad_layout)
		return FAIL("unsupported event layout: common_type/common_pid not at offsets 0/4");
	ev->missed = s->missed;
	s->st.events++;
	return 1;
}
