// SPDX-License-Identifier: MIT
#include "prefetch.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decomp.h"
#include "rd.h"

#define NSLOT 4			     /* chunks decompressed ahead per stream */
#define MAX_CHUNK_BYTES (1ULL << 28) /* one decompressed chunk */

struct slot {
	uint8_t *buf;
	uint64_t cap;
	uint32_t len;
};

struct pstream {
	struct rd chunks;	  /* producer's cursor over the chunk list */
	uint32_t left;		  /* chunks not yet decompressed */
	unsigned head, tail;	  /* consumer's next slot, producer's next slot */
	int holds;		  /* the consumer holds slot head-1 */
	int failed;		  /* the producer stopped on an error */
	int cpu;
	const uint8_t *released; /* compressed data before this was given back */
	struct fmt_err err;
	struct slot slots[NSLOT];
};

struct prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a slot was freed, or stop */
	pthread_cond_t ready; /* a chunk was produced */
	int stop;
	int n;
	const char *path;
	const uint8_t *base; /* the file, for offsets in messages */
	struct decomp *dc;
	struct pstream *s;
};

void fmt_release_pages(const uint8_t *from, const uint8_t *to)
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
#define MAP_WINDOW (4u << 20)

void fmt_map_ahead(const uint8_t *from, const uint8_t *end, const uint8_t **upto)
{
	static uintptr_t psz;
	uintptr_t a, b;

	if (!psz)
		psz = (uintptr_t)sysconf(_SC_PAGESIZE);
	b = (uintptr_t)from + MAP_WINDOW < (uintptr_t)end ? (uintptr_t)from + MAP_WINDOW
							    : (uintptr_t)end;
	a = (uintptr_t)from & ~(psz - 1);
	/* an older kernel says EINVAL: then pages fault in one by one, as usual */
	if (b > a)
		madvise((void *)a, ((b - a) + psz - 1) & ~(psz - 1), MADV_POPULATE_READ);
	*upto = (const uint8_t *)b;
}

#define RELEASE_BATCH (4u << 20) /* release read file pages 4 MiB at a time */

/* Decompress the next chunk of @s into slot @sl (no lock held). */
static int produce(struct prefetch *p, struct pstream *s, struct slot *sl)
{
	uint32_t csize = rd_u32(&s->chunks), usize = rd_u32(&s->chunks);
	const uint8_t *cdata = rd_bytes(&s->chunks, csize);

	if (cdata && (size_t)(cdata - s->released) > RELEASE_BATCH) {
		fmt_release_pages(s->released, cdata);
		s->released = cdata;
	}

	if (!cdata)
		return fmt_errf(&s->err, p->path,
				"cpu %d: compressed chunk past the end of its data: truncated",
				s->cpu);
	if (usize > MAX_CHUNK_BYTES || usize == 0)
		return fmt_errf(&s->err, p->path, "cpu %d: absurd chunk size %u", s->cpu, usize);
	if (usize > sl->cap) {
		free(sl->buf);
		sl->buf = malloc(usize);
		sl->cap = sl->buf ? usize : 0;
		if (!sl->buf)
			return fmt_errf(&s->err, p->path, "out of memory for a %u-byte chunk",
					usize);
	}
	if (decomp_run(p->dc, cdata, csize, sl->buf, usize))
		return fmt_errf(&s->err, p->path,
				"cpu %d: a %u-byte compressed chunk at offset %" PRIu64
				" does not decompress",
				s->cpu, csize, (uint64_t)(cdata - p->base));
	sl->len = usize;
	return 0;
}

/* The stream that most needs a chunk: fewest queued, with room and chunks left. */
static struct pstream *pick(struct prefetch *p)
{
	struct pstream *best = NULL;
	unsigned queued = NSLOT;

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

static void *worker(void *arg)
{
	struct prefetch *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pstream *s;
		struct slot *sl;
		int rc;

		while (!p->stop && !(s = pick(p)))
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		/* slot tail is free: tail - head < NSLOT, and head-1 is the held one */
		sl = &s->slots[s->tail % NSLOT];
		pthread_mutex_unlock(&p->lock);
		rc = produce(p, s, sl);
		pthread_mutex_lock(&p->lock);
		if (rc)
			s->failed = 1;
		else {
			s->left--;
			s->tail++;
		}
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct prefetch *prefetch_start(const char *path, const char *algo, bool swap,
				const struct prefetch_src *srcs, int n, const uint8_t *file_base,
				struct fmt_err *err)
{
	struct prefetch *p = calloc(1, sizeof(*p));

	if (!p) {
		fmt_errf(err, path, "out of memory");
		return NULL;
	}
	p->path = path;
	p->base = file_base;
	p->n = n;
	p->s = calloc(n ? n : 1, sizeof(*p->s));
	p->dc = decomp_new(algo);
	if (!p->s || !p->dc) {
		fmt_errf(err, path, p->s ? "cannot decompress '%s'" : "out of memory", algo);
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		struct pstream *s = &p->s[i];
		s->cpu = srcs[i].cpu;
		s->chunks = rd_init(srcs[i].data, srcs[i].len, swap);
		s->released = srcs[i].data;
		s->left = rd_u32(&s->chunks);
		if (s->chunks.bad) {
			fmt_errf(err, path, "cpu %d: truncated chunk count", s->cpu);
			goto fail;
		}
		if (s->left > srcs[i].len / 8) {
			fmt_errf(err, path, "cpu %d: absurd chunk count %u", s->cpu, s->left);
			goto fail;
		}
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->ready, NULL);
	if (pthread_create(&p->thread, NULL, worker, p)) {
		fmt_errf(err, path, "cannot start the decompression thread");
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->work);
		pthread_cond_destroy(&p->ready);
		goto fail;
	}
	return p;
fail:
	decomp_free(p->dc);
	free(p->s);
	free(p);
	return NULL;
}

int prefetch_next(struct prefetch *p, int i, const uint8_t **data, uint32_t *len,
		  struct fmt_err *err)
{
	struct pstream *s = &p->s[i];
	int rc;

	pthread_mutex_lock(&p->lock);
	if (s->holds) {
		s->holds = 0;
		s->head++;
		pthread_cond_signal(&p->work);
	}
	while (s->head == s->tail && s->left && !s->failed)
		pthread_cond_wait(&p->ready, &p->lock);
	if (s->head != s->tail) {
		struct slot *sl = &s->slots[s->head % NSLOT];
		*data = sl->buf;
		*len = sl->len;
		s->holds = 1;
		rc = 1;
	} else if (s->failed) {
		*err = s->err;
		rc = -1;
	} else {
		rc = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

void prefetch_stop(struct prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->ready);
	for (int i = 0; i < p->n; i++)
		for (int k = 0; k < NSLOT; k++)
			free(p->s[i].slots[k].buf);
	decomp_free(p->dc);
	free(p->s);
	free(p);
}
