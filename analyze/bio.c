// SPDX-License-Identifier: MIT
#include "bio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct bios {
	int (*put)(void *ctx, const struct bio_rec *b);
	void *ctx;
	struct pending {	/* a submit_bio probe's address, for the task's next bio */
		int32_t pid;
		char ptr[24];
	} pend[16];		/* a few tasks at a time; the oldest is forgotten */
	int npend;
	struct bio_rec *live; /* submitted, not completed: few at a time */
	int n, cap;
	int64_t next_id, written;
};

struct bios *bios_new(int (*put)(void *ctx, const struct bio_rec *b), void *ctx)
{
	struct bios *b = calloc(1, sizeof(*b));

	if (b) {
		b->put = put;
		b->ctx = ctx;
	}
	return b;
}

static int ctx_of(uint8_t flags)
{
	return flags & EVENT_F_NMI ? CTX_NMI : flags & EVENT_F_HARDIRQ ? CTX_HARDIRQ
					 : flags & EVENT_F_SOFTIRQ ? CTX_SOFTIRQ : CTX_TASK;
}

/* A row for a bio not seen before (its times unknown). */
static struct bio_rec fresh(const struct analysis_event *e)
{
	struct bio_rec r = {.dev = e->blk.dev, .sector = e->blk.sector,
			    .nr_sector = e->blk.nr_sector, .t_queue = DARC_NULL,
			    .t_getrq = DARC_NULL, .t_insert = DARC_NULL, .t_issue = DARC_NULL,
			    .t_complete = DARC_NULL, .call_id = DARC_NULL, .queue_cpu = -1,
			    .complete_cpu = -1};

	snprintf(r.op, sizeof(r.op), "%s", e->blk.rwbs ? e->blk.rwbs : "");
	return r;
}

/* Write live bio @i and drop it. */
static int emit(struct bios *b, int i)
{
	struct bio_rec r = b->live[i];

	b->live[i] = b->live[--b->n];
	b->written++;
	return b->put(b->ctx, &r);
}

/* The live bio that starts at (dev, sector), or -1. */
static int find(const struct bios *b, int64_t dev, int64_t sector)
{
	for (int i = 0; i < b->n; i++)
		if (b->live[i].dev == dev && b->live[i].sector == sector)
			return i;
	return -1;
}

void bios_probe(struct bios *b, int32_t pid, const char *args)
{
	const char *p = args ? strstr(args, "\"bio\":\"0x") : NULL;
	struct pending *q;
	size_t n;

	if (!p)
		return;
	p += 7;
	n = strcspn(p, "\"");
	if (n >= sizeof(q->ptr))
		return;
	for (q = b->pend; q < b->pend + b->npend && q->pid != pid; q++)
		;
	if (q == b->pend + b->npend) {
		if (b->npend == 16) /* forget the oldest */
			memmove(b->pend, b->pend + 1, 15 * sizeof(*q));
		else
			b->npend++;
		q = &b->pend[b->npend - 1];
	}
	q->pid = pid;
	memcpy(q->ptr, p, n);
	q->ptr[n] = 0;
}

/* The address a submit_bio probe left for task @pid's next bio, into @ptr. */
static void take_pending(struct bios *b, int32_t pid, char *ptr, size_t len)
{
	for (int i = 0; i < b->npend; i++)
		if (b->pend[i].pid == pid) {
			snprintf(ptr, len, "%s", b->pend[i].ptr);
			b->pend[i] = b->pend[--b->npend];
			return;
		}
}

static int queue(struct bios *b, const struct analysis_event *e, int64_t call)
{
	int i = find(b, e->blk.dev, e->blk.sector);
	struct bio_rec r = fresh(e);

	take_pending(b, e->pid, r.ptr, sizeof(r.ptr));
	if (i >= 0) { /* submitted again before it completed: its end was lost */
		b->live[i].flags |= BIO_LOST;
		if (emit(b, i))
			return -1;
	}
	if (GROW(b->live, b->n, b->cap, 64))
		return -1;
	r.id = ++b->next_id;
	r.t_queue = e->t;
	r.task_id = e->pid;
	r.call_id = call;
	r.queue_cpu = e->cpu;
	b->live[b->n++] = r;
	return 0;
}

/* Does live bio @r lie in the request range of @e? */
static int in_range(const struct bio_rec *r, const struct analysis_event *e)
{
	return r->dev == e->blk.dev && r->sector >= e->blk.sector &&
	       r->sector < e->blk.sector + (e->blk.nr_sector > 0 ? e->blk.nr_sector : 1);
}

/* Set a stage time of every live bio the request covers (once). */
static void stage(struct bios *b, const struct analysis_event *e)
{
	for (int i = 0; i < b->n; i++) {
		struct bio_rec *r = &b->live[i];
		if (!in_range(r, e))
			continue;
		if (e->kind == EVENT_BLK_INSERT && r->t_insert == DARC_NULL)
			r->t_insert = e->t;
		else if (e->kind == EVENT_BLK_ISSUE && r->t_issue == DARC_NULL)
			r->t_issue = e->t;
		else if (e->kind == EVENT_BLK_REQUEUE)
			r->flags |= BIO_REQUEUED;
	}
}

/* The request of @e completed: every live bio in its range with it. */
static int complete(struct bios *b, const struct analysis_event *e)
{
	int done = 0;

	for (int i = 0; i < b->n;) {
		struct bio_rec *r = &b->live[i];
		if (!in_range(r, e)) {
			i++;
			continue;
		}
		r->t_complete = e->t;
		r->complete_cpu = e->cpu;
		r->complete_ctx = ctx_of(e->flags);
		r->error = e->blk.error;
		done++;
		if (emit(b, i))
			return -1;
	}
	if (!done && !e->blk.bio_level) { /* its submission was not recorded */
		struct bio_rec r = fresh(e);
		r.id = ++b->next_id;
		r.t_complete = e->t;
		r.complete_cpu = e->cpu;
		r.complete_ctx = ctx_of(e->flags);
		r.error = e->blk.error;
		r.flags = BIO_NO_QUEUE;
		b->written++;
		return b->put(b->ctx, &r);
	}
	return 0;
}

int bios_feed(struct bios *b, const struct analysis_event *e, int64_t call)
{
	int i;

	switch (e->kind) {
	case EVENT_BLK_QUEUE:
		return queue(b, e, call);
	case EVENT_BLK_MERGE:
	case EVENT_BLK_GETRQ:
		i = find(b, e->blk.dev, e->blk.sector);
		if (i >= 0 && e->kind == EVENT_BLK_MERGE)
			b->live[i].flags |= BIO_MERGED;
		else if (i >= 0 && b->live[i].t_getrq == DARC_NULL)
			b->live[i].t_getrq = e->t;
		return 0;
	case EVENT_BLK_INSERT:
	case EVENT_BLK_ISSUE:
	case EVENT_BLK_REQUEUE:
		stage(b, e);
		return 0;
	case EVENT_BLK_COMPLETE:
		return complete(b, e);
	}
	return 0;
}

int bios_finish(struct bios *b)
{
	while (b->n) {
		b->live[b->n - 1].flags |= BIO_NO_COMPLETE;
		if (emit(b, b->n - 1))
			return -1;
	}
	return 0;
}

int64_t bios_count(const struct bios *b)
{
	return b->written;
}

void bios_free(struct bios *b)
{
	if (!b)
		return;
	free(b->live);
	free(b);
}
