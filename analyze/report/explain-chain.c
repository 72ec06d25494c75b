// SPDX-License-Identifier: MIT
#include "explain-chain.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Is step @s the one of (@parent, @kind, @tid, @what)? Interrupts are told apart by name. */
static int same(const struct chain_step *s, int parent, int kind, int64_t tid, const char *what)
{
	if (s->parent != parent || s->kind != kind || s->tid != tid)
		return 0;
	if (kind != CH_IRQ && kind != CH_SOFTIRQ)
		return 1;
	return !s->what == !what && (!what || !strcmp(s->what, what));
}

/* The step (@parent, @kind, @tid) of @r, added if new: its index, or -1 when out of memory. */
static int step(struct chain_result *r, int parent, int kind, int64_t tid, const char *what,
		int64_t call)
{
	for (int i = 0; i < r->n; i++)
		if (same(&r->v[i], parent, kind, tid, what)) {
			if (!r->v[i].what) { /* a waker's function, where one wake-up has it */
				r->v[i].what = what;
				r->v[i].call = call;
			}
			return i;
		}
	if (GROW(r->v, r->n, r->cap, 16))
		return -1;
	r->v[r->n] = (struct chain_step){parent, kind, tid, what, 0, 0, 0, what ? call : 0, 0};
	return r->n++;
}

/* Add @ns (and @n) to step (@parent, @kind, @tid); its index, or -1. */
static int put(struct chain_result *r, int parent, int kind, int64_t tid, const char *what,
	       double ns, int64_t n)
{
	int i = ns > 0 || n ? step(r, parent, kind, tid, what, 0) : -2;

	if (i >= 0) {
		r->v[i].ns += ns;
		r->v[i].n += n;
	}
	return i == -2 ? 0 : i;
}

/*
 * @ns more of disk step @i ended by a wake-up in interrupt @what: the step
 * is named by the interrupt that ended most of it (two queues of one disk,
 * say). 0, or -1 when out of memory.
 */
static int disk_what(struct chain_result *r, int i, const char *what, double ns)
{
	struct chain_what *t = NULL;

	for (int k = 0; k < r->nw && !t; k++)
		if (r->w[k].step == i && !strcmp(r->w[k].what, what))
			t = &r->w[k];
	if (!t) {
		if (GROW(r->w, r->nw, r->wcap, 8))
			return -1;
		t = &r->w[r->nw++];
		*t = (struct chain_what){i, what, 0};
	}
	t->ns += ns;
	if (t->ns > r->v[i].what_ns) {
		r->v[i].what = what;
		r->v[i].what_ns = t->ns;
	}
	return 0;
}

/* One walk: the result and where the intervals come from. */
struct walk {
	struct chain_result *r;
	const struct chain_source *src;
};

static int task_time(struct walk *w, int parent, int64_t tid, int64_t lo, int64_t hi, int depth);

/*
 * The part [@lo, @hi) of a sleep that @o ended, under step @parent: to the
 * task that woke it (and on into that task's time), or to what else ended it.
 */
static int ended(struct walk *w, int parent, const struct chain_off *o, int64_t lo, int64_t hi,
		 int depth)
{
	int kind = o->end, i;

	if (hi <= lo)
		return 0;
	if (kind == CH_WAKER && depth >= CH_DEPTH)
		kind = CH_DEEPER;
	i = put(w->r, parent, kind, kind == CH_WAKER ? o->waker : 0, o->what, (double)(hi - lo),
		kind == CH_DISK ? o->bios : 1);
	if (i < 0)
		return -1;
	if (kind == CH_DISK && o->what)
		return disk_what(w->r, i, o->what, (double)(hi - lo));
	if (kind != CH_WAKER)
		return 0;
	if (o->what && w->r->v[i].what == o->what && !w->r->v[i].call)
		w->r->v[i].call = o->call;
	if (o->lag > w->r->v[i].lag)
		w->r->v[i].lag = o->lag;
	return task_time(w, i, o->waker, lo, hi, depth + 1);
}

/* The last of @v[0..n) (sorted by t_out) that went off CPU before @t, or -1. */
static int last_before(const struct chain_off *v, int n, int64_t t)
{
	int lo = 0, hi = n - 1, at = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (v[mid].t_out < t) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at;
}

/* Off-CPU interval @o of a waker, its part [@a, @b): preempted, or a sleep and its run delay. */
static int off_part(struct walk *w, int parent, const struct chain_off *o, int64_t a, int64_t b,
		    int depth)
{
	int64_t wake = o->t_wake < b ? o->t_wake : b;

	if (o->preempted)
		return put(w->r, parent, CH_PREEMPT, 0, NULL, (double)(b - a), 0) < 0 ? -1 : 0;
	if (wake < a)
		wake = a;
	if (put(w->r, parent, CH_DELAY, 0, NULL, (double)(b - wake), 0) < 0)
		return -1;
	return ended(w, parent, o, a, wake, depth);
}

/*
 * Task @tid's time over [@lo, @hi), the time it took to wake the sleeper,
 * under its step @parent: walked back from @hi, running between its
 * off-CPU intervals, each of those preempted or asleep (followed).
 */
static int task_time(struct walk *w, int parent, int64_t tid, int64_t lo, int64_t hi, int depth)
{
	const struct chain_off *v;
	int n = w->src->offs(w->src->ctx, tid, &v), k;
	int gap = n > 0 && w->src->unseen ? w->src->unseen(w->src->ctx, tid, lo, hi) : 0;
	int64_t cursor = hi;

	if (n < 0 || gap < 0)
		return -1;
	/* nothing of it is recorded, or not all its switches then: not known what it did */
	if (!n || gap)
		return put(w->r, parent, CH_UNSEEN, 0, NULL, (double)(hi - lo), 0) < 0 ? -1 : 0;
	for (k = last_before(v, n, cursor); cursor > lo && k >= 0; k--) {
		int64_t in = v[k].t_in < cursor ? v[k].t_in : cursor;
		int64_t out = v[k].t_out > lo ? v[k].t_out : lo;
		if (in < lo)
			break;
		if (put(w->r, parent, CH_RUN, 0, NULL, (double)(cursor - in), 0) < 0 ||
		    off_part(w, parent, &v[k], out, in, depth))
			return -1;
		cursor = out;
	}
	return put(w->r, parent, CH_RUN, 0, NULL, (double)(cursor - lo), 0) < 0 ? -1 : 0;
}

int chain_add_sleep(struct chain_result *r, const struct chain_source *src,
		    const struct chain_off *s)
{
	struct walk w = {r, src};
	int64_t wake = s->t_wake < s->t_in ? s->t_wake : s->t_in;

	if (wake < s->t_out)
		wake = s->t_out;
	if (s->t_in != INT64_MAX && put(r, -1, CH_DELAY, 0, NULL, (double)(s->t_in - wake), 0) < 0)
		return -1;
	return ended(&w, -1, s, s->t_out, wake, 0);
}

int chain_top(const struct chain_result *r, int parent)
{
	int best = -1;

	for (int i = 0; i < r->n; i++)
		if (r->v[i].parent == parent && r->v[i].kind != CH_DELAY &&
		    (best < 0 || r->v[i].ns > r->v[best].ns))
			best = i;
	return best;
}

void chain_release(struct chain_result *r)
{
	free(r->v);
	free(r->w);
	memset(r, 0, sizeof(*r));
}
