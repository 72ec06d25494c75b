// SPDX-License-Identifier: MIT
/*
 * The event stream of a trace.dat file: prefetch.c reads each CPU's pages
 * ahead on up to two threads (decompressing, walking them with kbuffer);
 * here the CPUs' events are merged by time with a binary heap.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "events.h"
#include "fmt.h"
#include "prefetch.h"
#include "tdclock.h"
#include "tdstream.h"

/* A stream in the merge heap, with its sort key at hand. */
struct tdstream_ent {
	unsigned long long ts;
	uint32_t order; /* buffer << 16 | cpu: ties go to the lower */
	int stream;
};

/* Advance stream @s. Returns 1 with an event, 0 at its end, -1 on corruption. */
static int stream_advance(struct fmt_reader *r, struct stream *s, struct err_msg *err)
{
	const struct tdstream *t = r->be_priv;
	const struct prefetch_chunk *c = s->chunk;

	s->missed = 0;
	while (!c || s->irec == c->nrec) {
		int rc;

		if (c && c->failed) {
			*err = c->err;
			return -1;
		}
		rc = prefetch_next(t->prefetch, (int)(s - r->streams), &s->chunk, err);
		if (rc <= 0)
			return rc;
		c = s->chunk;
		s->irec = s->imark = 0;
		s->st.pages += c->st.pages;
		s->st.lost += c->st.lost;
		s->st.lost_marks += c->st.lost_marks;
		s->st.lost_uncounted += c->st.lost_uncounted;
	}
	if (s->imark < c->nmark && c->marks[s->imark].rec == s->irec)
		s->missed = c->marks[s->imark++].missed;
	/* merged on the times trace-cmd prints: a guest's CPUs shifted apart */
	s->ts = tdclock_ts(t->clk, c->recs[s->irec].ts, s->cpu);
	s->size = c->recs[s->irec].size;
	s->data = (void *)(c->base + c->recs[s->irec].off);
	s->irec++;
	return 1;
}

static inline bool ent_less(const struct tdstream_ent *a, const struct tdstream_ent *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->order < b->order;
}

static inline void heap_down(struct tdstream_ent *h, int n, int i)
{
	struct tdstream_ent e = h[i];

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

int tdstream_init(struct tdstream *t, struct fmt_reader *r, const struct tdclock *clk,
		  struct err_msg *err)
{
	struct page_conf conf = {
	    .page_size = r->info.page_size,
	    .kernel_long = r->kernel_long,
	    .page_hdr = r->page_hdr,
	    .swap = r->swap,
	    .big_endian = r->info.big_endian,
	    .old_format = tep_is_old_format(r->tep),
	    .serial = r->flags & FMT_OPEN_SERIAL,
	};
	struct prefetch_src *srcs;

	t->clk = clk;
	t->cur = -1;

	t->heap = calloc(r->nstreams + 1, sizeof(*t->heap));
	srcs = calloc(r->nstreams + 1, sizeof(*srcs));
	if (!t->heap || !srcs) {
		free(srcs);
		return FAIL("out of memory");
	}
	for (int i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		srcs[i] = (struct prefetch_src){s->src, s->src_len, s->compressed, s->cpu};
	}
	t->prefetch =
	    prefetch_start(r->path, r->info.compression, &conf, srcs, r->nstreams, r->map, err);
	free(srcs);
	return t->prefetch ? 0 : -1;
}

void tdstream_stop(struct tdstream *t)
{
	prefetch_stop(t->prefetch);
	free(t->heap);
}

static inline struct tep_event *event_format(struct fmt_reader *r, int id)
{
	return r->ev_done[id] ? r->ev_of_id[id] : fmt_events_format(r, id);
}

int tdstream_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	struct tdstream *t = r->be_priv;
	struct stream *s;
	const uint8_t *d;
	int rc;

	if (t->cur >= 0) {
		s = &r->streams[t->cur];
		rc = stream_advance(r, s, err);
		if (rc < 0)
			return -1;
		if (rc) {
			t->heap[0].ts = s->ts;
		} else {
			t->heap[0] = t->heap[--t->nheap];
		}
		if (t->nheap > 1)
			heap_down(t->heap, t->nheap, 0);
	} else if (!t->started) {
		t->started = true;
		t->nheap = 0;
		for (int i = 0; i < r->nstreams; i++) {
			s = &r->streams[i];
			rc = stream_advance(r, s, err);
			if (rc < 0)
				return -1;
			if (rc)
				t->heap[t->nheap++] = (struct tdstream_ent){
					s->ts, (uint32_t)s->buffer << 16 | (uint32_t)s->cpu, i};
		}
		for (int i = t->nheap / 2 - 1; i >= 0; i--)
			heap_down(t->heap, t->nheap, i);
	}
	if (!t->nheap) {
		t->cur = -1;
		return 0;
	}
	t->cur = t->heap[0].stream;
	s = &r->streams[t->cur];
	d = s->data;
	ev->ts = s->ts;
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
	if (__builtin_expect(fmt_event_short(r, ev), 0) && fmt_events_pad(r, ev, err))
		return -1;
	ev->missed = s->missed;
	s->st.events++;
	return 1;
}
