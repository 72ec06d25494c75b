// SPDX-License-Identifier: MIT
#include "prefetch.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "decomp.h"
#include "grow.h"
#include "bytes.h"
#include "wfile.h"

#define NSLOT 8			     /* chunks read ahead per stream, at most */
#define SLOTS_ALL 32		     /* and in all, when there are many streams */
#define MAX_CHUNK_BYTES (1ULL << 28) /* one decompressed chunk */
#define RUN_BYTES (256u << 10)	     /* pages of an uncompressed stream per chunk */
#define COMMIT_MASK ((1ULL << 27) - 1)
#define MISSING_STORED (1ULL << 30)

struct slot {
	uint8_t *buf; /* decompressed pages */
	uint64_t cap;
	struct fmt_rec *recs;
	int rcap;
	struct fmt_mark *marks;
	int mcap;
	const uint8_t *from, *to; /* uncompressed: the file's pages it covers */
	const uint8_t *cdata;	  /* compressed: the chunk, NULL past the data's end */
	uint32_t csize, usize;	  /* and its sizes */
	const uint8_t *rel_from, *rel_to; /* compressed data to give back first */
	uint64_t pending;	  /* lost events of a page with no event yet to carry them */
	bool ready;		  /* produced: the consumer may take it */
	struct prefetch_chunk c;
};

struct pstream {
	bool compressed;
	struct rd chunks;	 /* compressed: the producer's cursor over the chunk list */
	const uint8_t *pages;	 /* uncompressed: the stream's pages */
	uint64_t len, off;	 /* and how far the producer is */
	uint32_t left;		 /* chunks not yet produced */
	unsigned head, tail;	 /* consumer's next slot, next slot to claim */
	int holds;		 /* the consumer holds slot head */
	int failed;		 /* a chunk failed: no more are claimed (its slot says why) */
	int cpu;
	uint64_t carry;		 /* consumer: lost events no chunk's event has carried yet */
	const uint8_t *released; /* the file's data before this was given back: compressed
				    chunks by the producers, pages by the reader */
	struct slot slots[NSLOT];
};

/* A producer thread, with what it cannot share. */
struct worker {
	pthread_t thread;
	struct prefetch *p;
	struct kbuffer *kbuf;
	struct decomp *dc;
	bool started;
};

#define MAX_WORKERS 2

struct prefetch {
	struct worker w[MAX_WORKERS];
	int nworkers;
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a queue is half empty, or stop */
	pthread_cond_t ready; /* a chunk was produced */
	int stop;
	int idle;	 /* producers waiting for room */
	int waiting;	 /* the consumer waits for a chunk */
	bool ready_init; /* the lock and conditions exist */
	int n;
	int nslot; /* chunks read ahead per stream: NSLOT, fewer for many streams */
	const char *path;
	const uint8_t *base; /* the file, for offsets in messages */
	struct page_conf conf;
	struct pstream *s;
};

void prefetch_release_pages(const uint8_t *from, const uint8_t *to)
{
	static uintptr_t psz;
	uintptr_t a, b;

	if (!psz)
		psz = (uintptr_t)sysconf(_SC_PAGESIZE);
	a = ((uintptr_t)from + psz - 1) & ~(psz - 1);
	b = (uintptr_t)to & ~(psz - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* Fault in the file's pages [@from, @to) in one go, not one fault a page. */
static void map_in(const uint8_t *from, const uint8_t *to)
{
	/* not cached in a static: the workers call this at once (a data race) */
	uintptr_t psz = (uintptr_t)sysconf(_SC_PAGESIZE), a, b = (uintptr_t)to;

	a = (uintptr_t)from & ~(psz - 1);
	/* an older kernel says EINVAL: then pages fault in one by one, as usual */
	if (b > a)
		madvise((void *)a, ((b - a) + psz - 1) & ~(psz - 1), MADV_POPULATE_READ);
}

#define RELEASE_BATCH (4u << 20) /* release read file pages 4 MiB at a time */

/*
 * Whether the file's data read from @released to @to is a batch to give
 * back: a few MiB at a time, as each madvise flushes the TLBs of every CPU.
 */
static inline bool release_due(const uint8_t *released, const uint8_t *to)
{
	return (size_t)(to - released) >= RELEASE_BATCH;
}

#define WFAIL(...) (err_setf(&c->err, p->path, __VA_ARGS__), c->failed = true, -1)

/* Hand slot @sl's @n records and @nm marks to its chunk (they may have moved). */
static void done(struct slot *sl, uint32_t n, uint32_t nm)
{
	sl->c.recs = sl->recs;
	sl->c.nrec = n;
	sl->c.marks = sl->marks;
	sl->c.nmark = nm;
}

/* Record @n (@ts, at @d, @size bytes) of slot @sl, after a mark if events were lost before it. */
static int add_rec(struct slot *sl, uint32_t *n, uint32_t *nm, unsigned long long ts,
		   uint32_t off, uint32_t size)
{
	if (sl->pending) {
		if (GROW(sl->marks, *nm, sl->mcap, 16))
			return -1;
		sl->marks[(*nm)++] = (struct fmt_mark){*n, sl->pending};
		sl->pending = 0;
	}
	if (GROW(sl->recs, *n, sl->rcap, 1024))
		return -1;
	sl->recs[(*n)++] = (struct fmt_rec){ts, off, size};
	return 0;
}

static inline uint32_t le32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The events of one page as kbuffer reads them (kbuffer_load_subbuffer, then
 * kbuffer_next_event and kbuffer_event_size), inline: libtraceevent's calls
 * for each record were a third of parsing a zstd v7 file. Only for a page
 * of our byte order and 8-byte longs (fast_pages()) with events of @size
 * bytes of data. 1 when done, 0 (nothing recorded) where a record is not
 * plainly sound: then kbuffer reads the page, and says what is wrong.
 */
static int walk_page(struct slot *sl, const uint8_t *page, const uint8_t *base, uint32_t size,
		     uint32_t avail, uint32_t *n, uint32_t *nm)
{
	const uint8_t *data = page + 16;
	unsigned long long ts, pending = sl->pending;
	uint32_t next = 0, n0 = *n, nm0 = *nm;

	memcpy(&ts, page, 8);
	while (next < size) {
		uint32_t h, type, p = next + 4, len;
		uint64_t delta, msb = 0;

		if (next > avail - 8)
			goto odd; /* a header and its length word stay inside the page */
		/* where the next header is depends on this one's length: without
		   a hint, each header of a page of large records (raw_syscalls'
		   sys_enter: 68 bytes) waits for memory in turn; bench-v6: darc
		   info 0.47 -> 0.22 s CPU (a hint past the mapping does no harm) */
		__builtin_prefetch(data + next + 512);
		h = le32_at(data + next);
		type = h & 0x1f;
		delta = h >> 5;
		switch (type) {
		case 29: /* padding: its length follows */
			len = le32_at(data + p);
			ts += delta;
			break;
		case 31: /* an absolute time stamp: the top bits stay */
			msb = ts & 0xf800000000000000ULL;
			/* fall through */
		case 30: /* a time extend */
			delta = ((uint64_t)le32_at(data + p) << 27) + delta;
			p += 4;
			len = 0;
			ts = type == 31 ? (delta | msb) : ts + delta;
			break;
		case 0: /* a long event: its length follows, itself included */
			len = le32_at(data + p);
			if (len < 4)
				goto odd;
			len = (len - 4 + 3) & ~3u;
			p += 4;
			ts += delta;
			break;
		default:
			len = type * 4;
			ts += delta;
		}
		if (len > avail || p + len > avail)
			goto odd;
		next = p + len;
		if (type >= 29)
			continue;
		if (len < 8 || p + len > size)
			goto odd; /* walk() names the corrupt record */
		if (add_rec(sl, n, nm, ts, (uint32_t)(data + p - base), len))
			return -1;
	}
	return 1;
odd:
	*n = n0;
	*nm = nm0;
	sl->pending = pending;
	return 0;
}

/* Whether walk_page() can read the pages of @cf. */
static bool fast_pages(const struct page_conf *cf)
{
	const uint16_t one = 1;

	return !cf->swap && *(const uint8_t *)&one && !cf->old_format && cf->kernel_long == 8 &&
	       cf->page_hdr == 16 && cf->page_size > 16;
}

/*
 * The events the kernel lost before a page (@missed, kbuffer's: -1 some, not
 * how many), counted in slot @sl and held for its page's first event.
 */
static void count_missed(int missed, struct slot *sl)
{
	struct prefetch_chunk *c = &sl->c;

	if (!missed)
		return;
	c->st.lost_marks++;
	if (missed < 0) {
		c->st.lost_uncounted++;
		sl->pending = FMT_MISSED_UNKNOWN;
	} else {
		c->st.lost += missed;
		sl->pending = missed;
	}
}

/*
 * Walk the @len bytes of pages at @base into slot @sl's records: each page's
 * header checked, its events read by kbuffer and each one's size checked.
 * On corruption the records before it stand, and the slot says why.
 */
static int walk(struct worker *w, struct pstream *s, struct slot *sl, const uint8_t *base,
		uint64_t len)
{
	struct prefetch *p = w->p;
	const struct page_conf *cf = &p->conf;
	struct prefetch_chunk *c = &sl->c;
	uint32_t n = 0, nm = 0;
	const bool fast = fast_pages(cf);

/* the records so far stand; then the error */
#define STOP(...) (done(sl, n, nm), WFAIL(__VA_ARGS__))
	c->base = base;
	for (uint64_t off = 0; off < len; off += cf->page_size) {
		const uint8_t *page = base + off, *end;
		unsigned long long ts;
		uint64_t commit;
		void *d;

		if (len - off < cf->page_size) {
			return STOP("cpu %d: data ends in the middle of a page: truncated", s->cpu);
		}
		{
			/* the file places pages at any offset: no aligned load */
			struct rd h = rd_init(page + 8, cf->kernel_long, cf->swap);
			commit = cf->kernel_long == 8 ? rd_u64(&h) : rd_u32(&h);
		}
		/* where the page is, for errors: in the file, or in its chunk */
		const char *in = s->compressed ? "chunk" : "file";
		uint64_t at = s->compressed ? off : (uint64_t)(page - p->base);

		if ((commit & COMMIT_MASK) > cf->page_size - cf->page_hdr ||
		    ((commit & MISSING_STORED) &&
		     (commit & COMMIT_MASK) + cf->kernel_long > cf->page_size - cf->page_hdr)) {
			return STOP("cpu %d: corrupt page header at %s offset %" PRIu64
				     " (commit %#" PRIx64 ")",
				     s->cpu, in, at, commit);
		}
		c->st.pages++;
		if (kbuffer_load_subbuffer(w->kbuf, (void *)page) < 0) {
			return STOP("cpu %d: cannot load the page at %s offset %" PRIu64, s->cpu, in,
				    at);
		}
		end = page + cf->page_hdr + (commit & COMMIT_MASK);
		count_missed(kbuffer_missed_events(w->kbuf), sl);
		if (fast) {
			int rc = walk_page(sl, page, base, (uint32_t)(commit & COMMIT_MASK),
					   cf->page_size - 16, &n, &nm);

			if (rc < 0)
				return STOP("out of memory");
			if (rc)
				continue;
		}
		for (d = kbuffer_read_event(w->kbuf, &ts); d; d = kbuffer_next_event(w->kbuf, &ts)) {
			int size = kbuffer_event_size(w->kbuf);

			if (size < 8 || (const uint8_t *)d < page || (const uint8_t *)d + size > end) {
				return STOP("cpu %d: corrupt event record (%d bytes) in the page at "
					    "%s offset %" PRIu64,
					    s->cpu, size, in, at);
			}
			if (add_rec(sl, &n, &nm, ts, (uint32_t)((const uint8_t *)d - base),
				    (uint32_t)size))
				return STOP("out of memory");
		}
	}
	done(sl, n, nm);
	return 0;
#undef STOP
}

/*
 * Take stream @s's next chunk for slot @sl (lock held): where its pages or its
 * compressed bytes are, so that another producer can take the one after it
 * at once. The chunks of a stream are produced in parallel, and handed to
 * the reader in order.
 */
static void claim(struct prefetch *p, struct pstream *s, struct slot *sl)
{
	memset(&sl->c, 0, sizeof(sl->c)); /* no records until walk() hands them over */
	sl->from = sl->to = sl->cdata = sl->rel_from = sl->rel_to = NULL;
	sl->pending = 0;
	sl->ready = false;
	s->tail++;
	if (!s->compressed) {
		uint64_t len = s->len - s->off < RUN_BYTES ? s->len - s->off : RUN_BYTES;

		if (len >= p->conf.page_size)
			len -= len % p->conf.page_size; /* whole pages */
		else
			len = s->len - s->off; /* less than a page left: walk() says so */
		sl->from = s->pages + s->off;
		sl->to = sl->from + len;
		s->off += len;
		s->left = s->off < s->len;
		return;
	}
	sl->csize = rd_u32(&s->chunks);
	sl->usize = rd_u32(&s->chunks);
	sl->cdata = rd_bytes(&s->chunks, sl->csize);
	s->left = sl->cdata ? s->left - 1 : 0; /* past the end: produce() says so */
	if (sl->cdata && release_due(s->released, sl->cdata)) {
		sl->rel_from = s->released;
		sl->rel_to = s->released = sl->cdata;
	}
}

/* Produce slot @sl of @s, claimed (no lock held). -1 if @s must stop. */
static int produce(struct worker *w, struct pstream *s, struct slot *sl)
{
	struct prefetch *p = w->p;
	struct prefetch_chunk *c = &sl->c;

	if (!s->compressed) {
		map_in(sl->from, sl->to);
		return walk(w, s, sl, sl->from, (uint64_t)(sl->to - sl->from));
	}
	if (sl->rel_to)
		prefetch_release_pages(sl->rel_from, sl->rel_to);
	if (!sl->cdata)
		return WFAIL("cpu %d: compressed chunk past the end of its data: truncated", s->cpu);
	if (sl->usize > MAX_CHUNK_BYTES || sl->usize == 0)
		return WFAIL("cpu %d: absurd chunk size %u", s->cpu, sl->usize);
	if (sl->usize > sl->cap) {
		free(sl->buf);
		sl->buf = malloc(sl->usize);
		sl->cap = sl->buf ? sl->usize : 0;
		if (!sl->buf)
			return WFAIL("out of memory for a %u-byte chunk", sl->usize);
	}
	if (decomp_run(w->dc, sl->cdata, sl->csize, sl->buf, sl->usize))
		return WFAIL("cpu %d: a %u-byte compressed chunk at offset %" PRIu64
			     " does not decompress",
			     s->cpu, sl->csize, (uint64_t)(sl->cdata - p->base));
	return walk(w, s, sl, sl->buf, sl->usize);
}

/* The stream that most needs a chunk: fewest claimed ahead, with room and chunks left. */
static struct pstream *pick(struct prefetch *p)
{
	struct pstream *best = NULL;
	unsigned queued = (unsigned)p->nslot;

	for (int i = 0; i < p->n; i++) {
		struct pstream *s = &p->s[i];
		unsigned q = s->tail - s->head;
		if (s->left && !s->failed && q < queued) {
			best = s;
			queued = q;
		}
	}
	return best;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct prefetch *p = w->p;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pstream *s = NULL;
		struct slot *sl;
		int rc;

		while (!p->stop && !(s = pick(p))) {
			p->idle++; /* every queue is full: sleep until one is half empty */
			pthread_cond_wait(&p->work, &p->lock);
			p->idle--;
		}
		if (p->stop)
			break;
		/* slot tail is free: tail - head < nslot, and head is the held one */
		sl = &s->slots[s->tail % p->nslot];
		claim(p, s, sl);
		if (p->idle && pick(p))
			pthread_cond_signal(&p->work); /* there is more: a second producer */
		pthread_mutex_unlock(&p->lock);
		rc = produce(w, s, sl);
		pthread_mutex_lock(&p->lock);
		sl->ready = true; /* a failed chunk too: its records come first, then why */
		if (rc)
			s->failed = 1;
		if (p->waiting)
			pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Stream @s of @src: its pages, or its chunk list's count checked. 0 or -1. */
static int init_stream(struct prefetch *p, struct pstream *s, const struct prefetch_src *src,
		       struct err_msg *err)
{
	s->cpu = src->cpu;
	s->compressed = src->compressed;
	s->released = src->data;
	if (!s->compressed) {
		s->pages = src->data;
		s->len = src->len;
		s->left = s->len > 0;
		return 0;
	}
	s->chunks = rd_init(src->data, src->len, p->conf.swap);
	s->left = rd_u32(&s->chunks);
	if (s->chunks.bad)
		return err_setf(err, p->path, "cpu %d: truncated chunk count", s->cpu);
	if (s->left > src->len / 8)
		return err_setf(err, p->path, "cpu %d: absurd chunk count %u", s->cpu, s->left);
	return 0;
}

/* The producers' kbuffers and decompressors (not yet their threads). 0 or -1. */
static int init_workers(struct prefetch *p, const char *algo, bool compressed,
			struct err_msg *err)
{
	const struct page_conf *conf = &p->conf;
	/* a producer per stream, up to one per CPU, at most MAX_WORKERS (one, and
	   no thread, for a serial reader: see prefetch_next()) */
	long cpus = conf->serial ? 1 : sysconf(_SC_NPROCESSORS_ONLN);

	p->nworkers = p->n < 1 ? 1 : p->n < MAX_WORKERS ? p->n : MAX_WORKERS;
	if (cpus > 0 && cpus < p->nworkers)
		p->nworkers = (int)cpus;
	for (int i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->w[i];

		w->p = p;
		w->kbuf = kbuffer_alloc(conf->kernel_long == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					conf->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!w->kbuf)
			return err_setf(err, p->path, "out of memory");
		if (conf->old_format)
			kbuffer_set_old_format(w->kbuf);
		if (compressed && !(w->dc = decomp_new(algo)))
			return err_setf(err, p->path, "cannot decompress '%s'",
					algo ? algo : "(none)");
	}
	return 0;
}

struct prefetch *prefetch_start(const char *path, const char *algo, const struct page_conf *conf,
				const struct prefetch_src *srcs, int n, const uint8_t *file_base,
				struct err_msg *err)
{
	struct prefetch *p = calloc(1, sizeof(*p));
	bool compressed = false;

	if (!p) {
		err_setf(err, path, "out of memory");
		return NULL;
	}
	p->path = path;
	p->base = file_base;
	p->conf = *conf;
	p->n = n;
	p->nslot = n > 0 && SLOTS_ALL / n < NSLOT ? SLOTS_ALL / n : NSLOT;
	if (p->nslot < 2)
		p->nslot = 2;
	p->s = calloc(n ? n : 1, sizeof(*p->s));
	if (!p->s) {
		err_setf(err, path, "out of memory");
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		if (init_stream(p, &p->s[i], &srcs[i], err))
			goto fail;
		compressed |= srcs[i].compressed;
	}
	if (init_workers(p, algo, compressed, err))
		goto fail;
	if (conf->serial)
		return p; /* no lock, no thread: prefetch_next() produces */
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->ready, NULL);
	p->ready_init = true;
	for (int i = 0; i < p->nworkers; i++) {
		if (wfile_thread_create(&p->w[i].thread, worker_main, &p->w[i])) {
			err_setf(err, path, "cannot start a reading thread");
			goto fail;
		}
		p->w[i].started = true;
	}
	return p;
fail:
	prefetch_stop(p);
	return NULL;
}

/*
 * Lost events that a chunk's last pages reported with no event after them
 * are carried by the next event of the stream, which may be in a chunk that
 * another producer walked: the reader, taking chunks in order, puts the
 * carried count on the first record of slot @sl (as one producer walking the
 * pages in turn would have), unless the chunk's own pages report a loss
 * before that record. 0, or -1 when out of memory.
 */
static int carry_over(struct pstream *s, struct slot *sl)
{
	struct prefetch_chunk *c = &sl->c;
	bool own_first = c->nmark && c->marks[0].rec == 0;

	if (!c->nrec) {
		if (sl->pending)
			s->carry = sl->pending;
		return 0;
	}
	if (s->carry && !own_first) {
		uint32_t nm = c->nmark;

		if (GROW(sl->marks, nm, sl->mcap, 16))
			return -1;
		memmove(sl->marks + 1, sl->marks, c->nmark * sizeof(*sl->marks));
		sl->marks[0] = (struct fmt_mark){0, s->carry};
		done(sl, c->nrec, c->nmark + 1);
	}
	s->carry = sl->pending;
	return 0;
}

/*
 * prefetch_next() of a serial reader: the next chunk of @s produced here, by
 * the one worker, when the reader asks for it (no lock: no other thread).
 */
static int next_serial(struct prefetch *p, struct pstream *s, const struct prefetch_chunk **c,
		       struct err_msg *err)
{
	struct slot *sl;

	if (s->holds) {
		s->holds = 0;
		s->head++;
	}
	sl = &s->slots[s->head % p->nslot];
	if (s->head == s->tail && s->left && !s->failed) {
		claim(p, s, sl);
		if (produce(&p->w[0], s, sl))
			s->failed = 1;
		sl->ready = true;
	}
	if (s->head == s->tail)
		return s->failed ? err_setf(err, p->path, "cpu %d: read past a failure", s->cpu)
				 : 0;
	*c = &sl->c;
	s->holds = 1;
	return carry_over(s, sl) ? err_setf(err, p->path, "out of memory") : 1;
}

int prefetch_next(struct prefetch *p, int i, const struct prefetch_chunk **c,
		  struct err_msg *err)
{
	struct pstream *s = &p->s[i];
	struct slot *sl;
	int rc;

	if (s->holds && !s->compressed) {
		struct slot *old = &s->slots[s->head % p->nslot];
		/* the reader is done with these pages of the file */
		if (release_due(s->released, old->to)) {
			prefetch_release_pages(s->released, old->to);
			s->released = old->to;
		}
	}
	if (p->conf.serial)
		return next_serial(p, s, c, err);
	pthread_mutex_lock(&p->lock);
	if (s->holds) {
		s->holds = 0;
		s->head++;
		/* wake a producer for several chunks at a time, not one each */
		if (p->idle && s->tail - s->head <= (unsigned)p->nslot / 2)
			pthread_cond_signal(&p->work);
	}
	sl = &s->slots[s->head % p->nslot];
	while (s->head == s->tail ? s->left && !s->failed : !sl->ready) {
		p->waiting++;
		pthread_cond_wait(&p->ready, &p->lock);
		p->waiting--;
	}
	if (s->head != s->tail) {
		*c = &sl->c;
		s->holds = 1;
		rc = 1;
	} else if (s->failed) {
		rc = err_setf(err, p->path, "cpu %d: read past a failure", s->cpu);
	} else {
		rc = 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (rc == 1 && carry_over(s, sl))
		rc = err_setf(err, p->path, "out of memory");
	return rc;
}

void prefetch_stop(struct prefetch *p)
{
	if (!p)
		return;
	if (p->ready_init) {
		pthread_mutex_lock(&p->lock);
		p->stop = 1;
		pthread_cond_broadcast(&p->work);
		pthread_mutex_unlock(&p->lock);
		for (int i = 0; i < p->nworkers; i++)
			if (p->w[i].started)
				pthread_join(p->w[i].thread, NULL);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->work);
		pthread_cond_destroy(&p->ready);
	}
	for (int i = 0; i < p->nworkers; i++) {
		kbuffer_free(p->w[i].kbuf);
		decomp_free(p->w[i].dc);
	}
	for (int i = 0; p->s && i < p->n; i++)
		for (int k = 0; k < NSLOT; k++) {
			free(p->s[i].slots[k].buf);
			free(p->s[i].slots[k].recs);
			free(p->s[i].slots[k].marks);
		}
	free(p->s);
	free(p);
}
