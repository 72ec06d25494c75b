// SPDX-License-Identifier: MIT
/*
 * The event stream of a trace.dat file: each CPU's ring-buffer pages walked
 * with kbuffer, straight from the mapping or from chunks that prefetch.c
 * decompresses ahead, and the CPUs merged by time with a binary heap.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "prefetch.h"
#include "tracedat.h"

#define COMMIT_MASK ((1ULL << 27) - 1)
#define MISSING_STORED (1ULL << 30)

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
			uint32_t len;
			int rc;

			if (!s->compressed)
				return 0;
			rc = prefetch_next(r->prefetch, s->zindex, &s->pages, &len, err);
			if (rc <= 0)
				return rc;
			s->pages_len = len;
			s->page_off = 0;
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
			return FAIL("cpu %d: corrupt page header at %s offset %" PRIu64
				    " (commit %#" PRIx64 ")",
				    s->cpu, s->compressed ? "chunk" : "file",
				    s->compressed ? (uint64_t)(s->page_off - psize)
						  : (uint64_t)(page - r->map),
				    commit);
		s->st.pages++;
		if (kbuffer_load_subbuffer(s->kbuf, (void *)page) < 0)
			return FAIL("cpu %d: cannot load a page", s->cpu);
		/* pages walked in the mapping are not needed again: release them */
		if (!s->compressed && page >= s->mapped) {
			/* map the next window in one go: one fault instead of one a page */
			fmt_map_ahead(page, s->pages + s->pages_len, &s->mapped);
			fmt_release_pages(s->kept, page);
			s->kept = page;
		}
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

/* Take the size of the current event; check it lies in its page's data. */
static int check_event(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	int size = kbuffer_event_size(s->kbuf);
	const uint8_t *d = s->data;

	if (size < 8 || d < s->page || d + size > s->page_end)
		return FAIL("cpu %d: corrupt event record (%d bytes) in a page", s->cpu, size);
	s->size = size;
	return 0;
}

/* Advance stream @s. Returns 1 with an event, 0 at its end, -1 on corruption. */
static int stream_advance(struct fmt_reader *r, struct stream *s, struct fmt_err *err)
{
	s->missed = 0;
	if (!s->page || !(s->data = kbuffer_next_event(s->kbuf, &s->ts))) {
		int rc = next_page(r, s, err);
		if (rc <= 0)
			return rc;
	}
	return check_event(r, s, err) ? -1 : 1;
}

static inline bool ent_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->order < b->order;
}

static inline void heap_down(struct heap_ent *h, int n, int i)
{
	struct heap_ent e = h[i];

	for (;;) {
		int l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = (l + 1 < n && ent_less(&h[l + 1], &h[l])) ? l + 1 : l;
		if (!ent_less(&h[m], &e))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

int fmt_streams_init(struct fmt_reader *r, struct fmt_err *err)
{
	enum kbuffer_long_size ls = r->kernel_long == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	enum kbuffer_endian en = r->info.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;
	struct prefetch_src *srcs;
	int nz = 0;

	r->heap = calloc(r->nstreams + 1, sizeof(*r->heap));
	srcs = calloc(r->nstreams + 1, sizeof(*srcs));
	if (!r->heap || !srcs) {
		free(srcs);
		return FAIL("out of memory");
	}
	for (int i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		s->kbuf = kbuffer_alloc(ls, en);
		if (!s->kbuf) {
			free(srcs);
			return FAIL("out of memory");
		}
		if (tep_is_old_format(r->tep))
			kbuffer_set_old_format(s->kbuf);
		if (s->compressed) {
			s->zindex = nz;
			srcs[nz++] = (struct prefetch_src){s->src, s->src_len, s->cpu};
		} else {
			s->pages = s->src;
			s->pages_len = s->src_len;
			s->kept = s->mapped = s->src;
		}
	}
	if (nz) {
		r->prefetch = prefetch_start(r->path, r->info.compression, r->swap, srcs, nz, r->map,
					     err);
		if (!r->prefetch) {
			free(srcs);
			return -1;
		}
	}
	free(srcs);
	return 0;
}

static inline struct tep_event *event_format(struct fmt_reader *r, int id)
{
	return r->ev_done[id] ? r->ev_of_id[id] : fmt_event_format(r, id);
}

int fmt_reader_next(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err)
{
	struct stream *s;
	const uint8_t *d;
	int rc;

	if (r->cur >= 0) {
		s = &r->streams[r->cur];
		rc = stream_advance(r, s, err);
		if (rc < 0)
			return -1;
		if (rc) {
			r->heap[0].ts = s->ts;
		} else {
			r->heap[0] = r->heap[--r->nheap];
		}
		if (r->nheap > 1)
			heap_down(r->heap, r->nheap, 0);
	} else if (!r->started) {
		r->started = true;
		r->nheap = 0;
		for (int i = 0; i < r->nstreams; i++) {
			s = &r->streams[i];
			rc = stream_advance(r, s, err);
			if (rc < 0)
				return -1;
			if (rc)
				r->heap[r->nheap++] = (struct heap_ent){
					s->ts, (uint32_t)s->buffer << 16 | (uint32_t)s->cpu, i};
		}
		for (int i = r->nheap / 2 - 1; i >= 0; i--)
			heap_down(r->heap, r->nheap, i);
	}
	if (!r->nheap) {
		r->cur = -1;
		return 0;
	}
	r->cur = r->heap[0].stream;
	s = &r->streams[r->cur];
	d = s->data;
	ev->ts = s->ts + r->info.ts_offset;
	ev->data = d;
	ev->size = s->size;
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
	ev->event = event_format(r, ev->type);
	if (r->bad_layout)
		return FAIL("unsupported event layout: common_type/common_pid not at offsets 0/4");
	ev->missed = s->missed;
	s->st.events++;
	return 1;
}
