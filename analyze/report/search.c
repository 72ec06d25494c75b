// SPDX-License-Identifier: MIT
#include "search.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* A call still open while a tree is built: its sums so far. */
struct search_open {
	int idx;
	int64_t key, incl, exo, pre, ovh, blocked;
	int overhead;
};

/* The tree, indexed for the search. */
struct idx {
	const struct search_tree *t;
	int *by_fnode; /* call indices sorted by (fnode, f0 call, rank) */
};

/* The candidates of one node, keyed by (kind, id). */
struct cset {
	struct search_cand *v; /* v[0..n), room for cap */
	int n, cap;
};

/* Per f0 call, the value of every candidate (a scratch row). */
struct row {
	int *cand;   /* index into the cset */
	double *val; /* the candidate's value in this call, beside cand */
	int n, cap;
};

static const struct search_textra no_extra = {0};

static int64_t value(const struct idx *x, int i)
{
	return x->t->calls[i].value;
}

static const struct search_textra *extra(const struct search_tree *t, int i)
{
	return t->calls[i].extra < 0 ? &no_extra : &t->extras[t->calls[i].extra];
}

static int bucket(double v)
{
	return v >= 1 ? (int)floor(log2(v)) : 0;
}

/* ---- building ---------------------------------------------------------------- */

/*
 * Close the innermost open call: its subtree is complete. A call of the
 * tracer's own code is exogenous as a whole; the interrupts and preemption
 * in it stay what they are (they would have hit the code anyway), the rest
 * of it is tracer overhead.
 */
static int close_call(struct search_tree *t)
{
	const struct search_open o = t->open[--t->nopen];
	struct search_tcall *c = &t->calls[o.idx];

	c->value = o.incl - o.exo;
	c->last = t->ncalls - 1;
	if (!t->nopen || o.overhead || o.pre || o.blocked || o.ovh) {
		if (GROW(t->extras, t->nextras, t->xcap, 1024))
			return -1;
		c->extra = t->nextras;
		t->extras[t->nextras++] =
		    (struct search_textra){o.incl, o.pre, o.blocked, o.ovh, o.overhead};
	}
	if (t->nopen) {
		struct search_open *p = &t->open[t->nopen - 1];
		p->exo += o.overhead ? o.incl : o.exo;
		p->pre += o.pre;
		p->ovh += o.ovh + (o.overhead ? o.incl - o.exo : 0);
	}
	return 0;
}

int search_tree_add(struct search_tree *t, int level, int64_t key, int64_t fnode, int64_t incl,
		    int64_t exo, int64_t preempt, int64_t blocked, int overhead)
{
	if (level < 0 || level > t->nopen)
		return -1;
	while (t->nopen > level)
		if (close_call(t))
			return -1;
	if (GROW(t->calls, t->ncalls, t->cap, 1024) || GROW(t->open, t->nopen, t->ocap, 64) ||
	    (!level && GROW(t->roots, t->nroots, t->rcap, 256)))
		return -1;
	if (!level)
		t->roots[t->nroots++] = t->ncalls;
	t->calls[t->ncalls] = (struct search_tcall){0, fnode, t->ncalls, -1};
	t->open[t->nopen++] =
	    (struct search_open){t->ncalls, key, incl, exo, preempt, 0, blocked, overhead};
	return t->ncalls++;
}

int search_tree_find(const struct search_tree *t, int64_t key)
{
	for (int k = t->nopen - 1; k >= 0; k--)
		if (t->open[k].key == key)
			return k + 1;
	return -1;
}

int search_tree_end(struct search_tree *t)
{
	while (t->nopen)
		if (close_call(t))
			return -1;
	return 0;
}

int search_tree_append(struct search_tree *t, const struct search_tree *b)
{
	int off = t->ncalls, xoff = t->nextras;

	if (t->nopen || b->nopen || GROW(t->calls, t->ncalls + b->ncalls, t->cap, 1024) ||
	    GROW(t->extras, t->nextras + b->nextras, t->xcap, 1024) ||
	    GROW(t->roots, t->nroots + b->nroots, t->rcap, 256) ||
	    GROW(t->irqs, t->nirqs + b->nirqs, t->icap, 256))
		return -1;
	for (int i = 0; i < b->ncalls; i++) {
		struct search_tcall c = b->calls[i];
		c.last += off;
		c.extra = c.extra < 0 ? -1 : c.extra + xoff;
		t->calls[t->ncalls++] = c;
	}
	memcpy(t->extras + t->nextras, b->extras, b->nextras * sizeof(*b->extras));
	t->nextras += b->nextras;
	for (int i = 0; i < b->nroots; i++)
		t->roots[t->nroots++] = b->roots[i] + off;
	for (int i = 0; i < b->nirqs; i++) {
		t->irqs[t->nirqs] = b->irqs[i];
		t->irqs[t->nirqs++].call += off;
	}
	return 0;
}

void search_tree_release(struct search_tree *t)
{
	free(t->calls);
	free(t->extras);
	free(t->roots);
	free(t->irqs);
	free(t->open);
	memset(t, 0, sizeof(*t));
}

/* ---- indexing ---------------------------------------------------------------- */

/* The f0 call (its rank in t->roots) whose subtree holds call @i. */
static int root_of(const struct search_tree *t, int i)
{
	int lo = 0, hi = t->nroots - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (t->roots[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The first interrupt of t->irqs charged to call @i or after it. */
static int irq_from(const struct search_tree *t, int i)
{
	int lo = 0, hi = t->nirqs;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (t->irqs[mid].call < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct search_tree *sort_tree;

/* By fnode, then f0 call (preorder keeps each one's calls together), then rank. */
static int cmp_by_fnode(const void *a, const void *b)
{
	const struct search_tree *t = sort_tree;
	int i = *(const int *)a, j = *(const int *)b;

	if (t->calls[i].fnode != t->calls[j].fnode)
		return t->calls[i].fnode < t->calls[j].fnode ? -1 : 1;
	if (!t->order)
		return i - j;
	if (root_of(t, i) != root_of(t, j))
		return root_of(t, i) - root_of(t, j);
	return t->order[i] - t->order[j];
}

/*
 * by_fnode without a comparison sort where the fnode ids are dense (they
 * are a database's row ids): counted by fnode, each fnode's calls in
 * index order. 0, or 1 where the ids are too spread out for it.
 */
static int count_by_fnode(struct idx *x, const struct search_tree *t)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	int *at;

	for (int i = 0; i < t->ncalls; i++) {
		lo = t->calls[i].fnode < lo ? t->calls[i].fnode : lo;
		hi = t->calls[i].fnode > hi ? t->calls[i].fnode : hi;
	}
	if (t->order || !t->ncalls || hi - lo > 4 * (int64_t)t->ncalls + 1024)
		return 1;
	at = calloc(hi - lo + 2, sizeof(*at));
	if (!at)
		return 1;
	for (int i = 0; i < t->ncalls; i++)
		at[t->calls[i].fnode - lo + 1]++;
	for (int64_t f = 0; f < hi - lo + 1; f++)
		at[f + 1] += at[f];
	for (int i = 0; i < t->ncalls; i++)
		x->by_fnode[at[t->calls[i].fnode - lo]++] = i;
	free(at);
	return 0;
}

static int idx_build(struct idx *x, const struct search_tree *t)
{
	x->t = t;
	x->by_fnode = malloc((t->ncalls + 1) * sizeof(*x->by_fnode));
	if (!x->by_fnode)
		return -1;
	if (!count_by_fnode(x, t))
		return 0;
	for (int i = 0; i < t->ncalls; i++)
		x->by_fnode[i] = i;
	sort_tree = t;
	qsort(x->by_fnode, t->ncalls, sizeof(int), cmp_by_fnode);
	return 0;
}

/* ---- candidates ---------------------------------------------------------------- */

/* The candidate (@kind, @id) of @cs, added if new; its index or -1. */
static int cand(struct cset *cs, int node, int kind, int64_t id)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].kind == kind && cs->v[i].id == id)
			return i;
	if (cs->n == cs->cap) {
		int cap = cs->cap ? 2 * cs->cap : 16;
		void *v = realloc(cs->v, cap * sizeof(*cs->v));
		if (!v)
			return -1;
		cs->v = v;
		cs->cap = cap;
	}
	cs->v[cs->n] = (struct search_cand){.node = node, .kind = kind, .id = id};
	return cs->n++;
}

/* Add @v to candidate @c in the row (once per candidate: max or sum as @mode says). */
static int row_add(struct row *r, int c, double v, int mode)
{
	if (c < 0)
		return -1;
	for (int i = 0; i < r->n; i++)
		if (r->cand[i] == c) {
			r->val[i] = mode == SEARCH_SUM ? r->val[i] + v : fmax(r->val[i], v);
			return 0;
		}
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		void *a = realloc(r->cand, cap * sizeof(*r->cand));
		void *b = a ? realloc(r->val, cap * sizeof(*r->val)) : NULL;
		if (a)
			r->cand = a;
		if (!b)
			return -1;
		r->val = b;
		r->cap = cap;
	}
	r->cand[r->n] = c;
	r->val[r->n++] = v;
	return 0;
}

/*
 * Exogenous causes that already won above the node: found once, at the
 * highest level, not again on every level below (bit 0 preemption, then
 * one bit per interrupt source, up to 63).
 */
static bool won_above(uint64_t won, int kind, int64_t id)
{
	return kind == SEARCH_PREEMPT ? won & 1 : id < 63 && (won >> (id + 1) & 1);
}

/* Interrupts by source over the subtree of call @i, into the row. */
static int add_irqs(const struct idx *x, struct cset *cs, struct row *r, int node, int i,
		    uint64_t won)
{
	const struct search_tree *t = x->t;

	for (int k = irq_from(t, i); k < t->nirqs && t->irqs[k].call <= t->calls[i].last; k++) {
		int s = t->irqs[k].source;
		int kind = t->source_soft && t->source_soft[s] ? SEARCH_SOFTIRQ : SEARCH_IRQ;
		if (!won_above(won, kind, s) &&
		    row_add(r, cand(cs, node, kind, s), t->irqs[k].ns, SEARCH_SUM))
			return -1;
	}
	return 0;
}

/*
 * The candidates of node instance(s) @inst[0..n) of one f0 call into row @r:
 * children (each fnode's calls summed, or with @mode SEARCH_MAX its largest),
 * interrupts, preemption, blocked and self. Self is the instances' value less
 * all their children's and their own sleep, whatever @mode: a child's calls
 * that do not stand for it in the vote are still its time, never the
 * caller's own code (locks_lock_inode_wait's sleeps in schedule() but the
 * longest, filemap_map_pages' 16 calls of do_set_pte).
 */
static int fill_row(const struct idx *x, int mode, struct cset *cs, int node, const int *inst,
		    int n, uint64_t won, struct row *r)
{
	const struct search_tcall *c = x->t->calls;
	double v = 0, kids = 0, blocked = 0, pre = 0;
	int rc = 0;

	r->n = 0;
	for (int k = 0; k < n && !rc; k++) {
		int i = inst[k];
		v += value(x, i);
		blocked += extra(x->t, i)->blocked;
		pre += extra(x->t, i)->pre;
		for (int j = i + 1; j <= c[i].last && !rc; j = c[j].last + 1) {
			if (extra(x->t, j)->overhead)
				continue;
			kids += value(x, j);
			rc =
			    row_add(r, cand(cs, node, SEARCH_FNODE, c[j].fnode), value(x, j), mode);
		}
		rc = rc ? rc : add_irqs(x, cs, r, node, i, won);
	}
	if (rc ||
	    (!won_above(won, SEARCH_PREEMPT, 0) &&
	     row_add(r, cand(cs, node, SEARCH_PREEMPT, 0), pre, SEARCH_SUM)) ||
	    row_add(r, cand(cs, node, SEARCH_BLOCKED, 0), blocked, SEARCH_SUM) ||
	    row_add(r, cand(cs, node, SEARCH_SELF, 0), fmax(v - kids - blocked, 0), SEARCH_SUM))
		return -1;
	return 0;
}

/* The time of one f0 call's candidates, into their totals. */
static void tally(struct cset *cs, const struct row *r)
{
	for (int k = 0; k < r->n; k++)
		cs->v[r->cand[k]].total_ns += r->val[k];
}

/* One vote of one f0 call: the largest candidate and all in its log2 bucket. */
static void vote(struct cset *cs, const struct row *r)
{
	double top = 0;

	for (int k = 0; k < r->n; k++)
		top = fmax(top, r->val[k]);
	if (top < 1)
		return;
	for (int k = 0; k < r->n; k++)
		if (r->val[k] >= 1 && bucket(r->val[k]) == bucket(top))
			cs->v[r->cand[k]].maxcount++;
}

/* ---- the search ---------------------------------------------------------------- */

/* Below a node at max_depth: one fnode of its subtree, its sleep and its CPU time. */
struct at_sum {
	int64_t fnode;
	double blocked, cpu;
};

/* One search under way: its input, parameters and result. */
struct search {
	const struct idx *x;
	const struct search_params *p;
	struct search_result *out;
	double f0_total; /* the latency of the f0 calls, summed */
	int ncalls;	 /* the f0 calls */
	uint64_t won; /* exogenous winners on the path above (won_above()) */
	struct row row;
	int *inst; /* scratch: one f0 call's instances of a node */
	struct at_sum *at; /* below_limit(): the fnodes below the node, summed */
	int nat, atcap;
};

/* The function that weighs one f0 call's instances inst[0..m) of a node. */
typedef int (*per_call_fn)(struct search *s, int node, int m, struct cset *cs);

static int add_node(struct search *s, const struct search_node *n)
{
	struct search_result *o = s->out;
	void *v = realloc(o->nodes, (o->nnodes + 1) * sizeof(*o->nodes));

	if (!v)
		return -1;
	o->nodes = v;
	o->nodes[o->nnodes] = *n;
	return o->nnodes++;
}

static int keep_cands(struct search *s, const struct cset *cs)
{
	struct search_result *o = s->out;
	void *v = realloc(o->cands, (o->ncands + cs->n + 1) * sizeof(*o->cands));

	if (!v)
		return -1;
	o->cands = v;
	memcpy(o->cands + o->ncands, cs->v, cs->n * sizeof(*cs->v));
	o->ncands += cs->n;
	return 0;
}

/*
 * The instances of one f0 call that stand for a node in its vote, of
 * inst[0..m): all of them with mode sum; with mode max the largest, swapped
 * to inst[0]. Their number.
 */
static int standing(struct search *s, int m)
{
	if (s->p->mode != SEARCH_MAX)
		return m;
	for (int j = 1; j < m; j++)
		if (value(s->x, s->inst[j]) > value(s->x, s->inst[0])) {
			int keep = s->inst[0];
			s->inst[0] = s->inst[j];
			s->inst[j] = keep;
		}
	return m ? 1 : 0;
}

/*
 * The time and the votes of one f0 call's instances inst[0..m) of node
 * @node: the time of every instance and every call of each child (the
 * shares say where the time went), the votes as the mode weighs them.
 */
static int vote_call(struct search *s, int node, int m, struct cset *cs)
{
	const struct idx *x = s->x;

	for (int j = 0; j < m; j++)
		s->out->nodes[node].overhead_ns += extra(x->t, s->inst[j])->ovh;
	if (fill_row(x, SEARCH_SUM, cs, node, s->inst, m, s->won, &s->row))
		return -1;
	tally(cs, &s->row);
	if (s->p->mode == SEARCH_MAX &&
	    fill_row(x, SEARCH_MAX, cs, node, s->inst, standing(s, m), s->won, &s->row))
		return -1;
	vote(cs, &s->row);
	return 0;
}

/* @fnode's sums below a node at max_depth (added if new), or NULL when out of memory. */
static struct at_sum *at_sum(struct search *s, int64_t fnode)
{
	for (int k = 0; k < s->nat; k++)
		if (s->at[k].fnode == fnode)
			return &s->at[k];
	if (GROW(s->at, s->nat, s->atcap, 16))
		return NULL;
	s->at[s->nat] = (struct at_sum){fnode, 0, 0};
	return &s->at[s->nat++];
}

/*
 * The sleep and the CPU time of every call in call @i's subtree (not the
 * tracer's own), summed into *@blocked and *@cpu and, with @at, by fnode
 * into s->at: a call's CPU time is its value less its children's and its
 * own sleep.
 */
static int subtree_parts(struct search *s, int i, bool at, double *blocked, double *cpu)
{
	const struct search_tcall *c = s->x->t->calls;

	for (int j = i; j <= c[i].last;) {
		double b = (double)extra(s->x->t, j)->blocked, kids = 0, own;
		struct at_sum *a;
		if (extra(s->x->t, j)->overhead) {
			j = c[j].last + 1;
			continue;
		}
		for (int k = j + 1; k <= c[j].last; k = c[k].last + 1)
			kids += extra(s->x->t, k)->overhead ? 0 : (double)value(s->x, k);
		own = fmax((double)value(s->x, j) - kids - b, 0);
		if (at) {
			if (!(a = at_sum(s, c[j].fnode)))
				return -1;
			a->blocked += b;
			a->cpu += own;
		}
		*blocked += b;
		*cpu += own;
		j++;
	}
	return 0;
}

/*
 * The parts of instances inst[0..n) of a node at max_depth, as candidates
 * into s->row: the sleeps of their whole subtrees, their CPU time, the
 * preemption and the interrupts inside them (@at: by fnode into s->at too).
 */
static int below_row(struct search *s, int node, int n, bool at, struct cset *cs)
{
	double blocked = 0, cpu = 0, pre = 0;

	s->row.n = 0;
	for (int k = 0; k < n; k++) {
		pre += extra(s->x->t, s->inst[k])->pre;
		if (subtree_parts(s, s->inst[k], at, &blocked, &cpu) ||
		    add_irqs(s->x, cs, &s->row, node, s->inst[k], s->won))
			return -1;
	}
	if ((!won_above(s->won, SEARCH_PREEMPT, 0) &&
	     row_add(&s->row, cand(cs, node, SEARCH_PREEMPT, 0), pre, SEARCH_SUM)) ||
	    row_add(&s->row, cand(cs, node, SEARCH_BLOCKED, 0), blocked, SEARCH_SUM) ||
	    row_add(&s->row, cand(cs, node, SEARCH_SELF, 0), cpu, SEARCH_SUM))
		return -1;
	return 0;
}

/*
 * One f0 call's instances of a node at max_depth: the time of all of them,
 * the votes of those that stand for the node.
 */
static int below_call(struct search *s, int node, int m, struct cset *cs)
{
	if (below_row(s, node, m, true, cs))
		return -1;
	tally(cs, &s->row);
	if (s->p->mode == SEARCH_MAX && below_row(s, node, standing(s, m), false, cs))
		return -1;
	vote(cs, &s->row);
	return 0;
}

/*
 * Vote at node @node (fnode @fnode): every f0 call's instances of it,
 * grouped, weighed by @fn; at f0 (node 0), every f0 call whatever its
 * fnode, once.
 */
static int vote_node(struct search *s, int node, int64_t fnode, struct cset *cs, per_call_fn fn)
{
	const struct search_tree *t = s->x->t;
	const int *b = s->x->by_fnode;
	int n = t->ncalls, k = 0, hi = n;

	for (int r = 0; node == 0 && r < t->nroots; r++) {
		s->inst[0] = t->roots[r];
		if (fn(s, node, 1, cs))
			return -1;
	}
	if (node == 0)
		return 0;
	while (k < hi) { /* the first of @fnode */
		int mid = (k + hi) / 2;
		if (t->calls[b[mid]].fnode < fnode)
			k = mid + 1;
		else
			hi = mid;
	}
	while (k < n && t->calls[b[k]].fnode == fnode) {
		int m = 0, end = t->calls[t->roots[root_of(t, b[k])]].last;
		while (k < n && t->calls[b[k]].fnode == fnode && b[k] <= end)
			s->inst[m++] = b[k++];
		if (fn(s, node, m, cs))
			return -1;
	}
	return 0;
}

static int walk_node(struct search *s, int node, int64_t fnode);

/* The node of candidate @c under node @parent, at @depth and @level, with @status. */
static struct search_node node_of(const struct search *s, const struct search_cand *c, int parent,
				  int depth, int status, int level)
{
	double share = s->f0_total > 0 ? c->total_ns / s->f0_total : 0;

	return (struct search_node){parent,    depth,	    c->kind, c->id,  c->maxcount,
				    s->ncalls, c->total_ns, share,   status, level};
}

/* The most votes in @cs. */
static int most_votes(const struct cset *cs)
{
	int best = 0;

	for (int i = 0; i < cs->n; i++)
		best = cs->v[i].maxcount > best ? cs->v[i].maxcount : best;
	return best;
}

/* The fnode below a node at max_depth that holds most of its sleep (@kind blocked) or CPU. */
static int64_t most_at(const struct search *s, int kind)
{
	int64_t at = 0;
	double top = 0;

	for (int k = 0; k < s->nat; k++) {
		double v = kind == SEARCH_BLOCKED ? s->at[k].blocked : s->at[k].cpu;
		if (v > top) {
			top = v;
			at = s->at[k].fnode;
		}
	}
	return at;
}

/*
 * Node @node (fnode @fnode) stopped at max_depth: its time below, as what
 * it is. Each part that won its votes, or holds 5% of the node's time,
 * becomes a node of status SEARCH_BELOW under it; a sleep and the CPU time
 * name the fnode that holds most of them (at).
 */
static int below_limit(struct search *s, int node, int64_t fnode)
{
	struct cset cs = {0};
	int rc, best;

	s->nat = 0;
	rc = vote_node(s, node, fnode, &cs, below_call);
	best = most_votes(&cs);
	for (int i = 0; !rc && i < cs.n; i++) {
		struct search_cand *c = &cs.v[i];
		const struct search_node *up = &s->out->nodes[node];
		struct search_node w = node_of(s, c, node, up->depth + 1, SEARCH_BELOW, up->level);
		if (c->total_ns <= 0 || (c->maxcount < best * s->p->maxcount_pct / 100 &&
					 c->total_ns < 0.05 * up->total_ns))
			continue;
		c->winner = 1;
		if (c->kind == SEARCH_BLOCKED || c->kind == SEARCH_SELF)
			w.at = most_at(s, c->kind);
		rc = add_node(s, &w) < 0 ? -1 : 0;
	}
	rc = rc ? rc : keep_cands(s, &cs);
	free(cs.v);
	return rc;
}

/* The level of max_depth a winner of node @node with @ns takes: its parent's if it wraps it. */
static int level_of(const struct search *s, int node, double ns)
{
	const struct search_node *up = &s->out->nodes[node];

	return up->level + (ns >= SEARCH_WRAP * up->total_ns && ns > 0 ? 0 : 1);
}

/* Make the winners of @cs children of @node, and search the fnodes among them. */
static int follow(struct search *s, int node, struct cset *cs)
{
	int best = most_votes(cs), depth = s->out->nodes[node].depth + 1;
	uint64_t above = s->won;

	/* what wins here from outside the code is not sought again below */
	for (int i = 0; i < cs->n && best; i++) {
		const struct search_cand *c = &cs->v[i];
		if (c->maxcount >= best * s->p->maxcount_pct / 100 && c->maxcount)
			s->won |=
			    c->kind == SEARCH_PREEMPT ? 1
			    : (c->kind == SEARCH_IRQ || c->kind == SEARCH_SOFTIRQ) && c->id < 63
				? (uint64_t)2 << c->id
				: 0;
	}
	for (int i = 0; i < cs->n && best; i++) {
		struct search_cand *c = &cs->v[i];
		struct search_node w =
		    node_of(s, c, node, depth, SEARCH_FOUND, level_of(s, node, c->total_ns));
		int k;
		if (c->maxcount < best * s->p->maxcount_pct / 100 || !c->maxcount) {
			if (c->kind != SEARCH_FNODE || s->p->branch_pct <= 0 ||
			    c->total_ns < s->p->branch_pct / 100 * s->f0_total)
				continue;
			w.by_time = 1; /* lost the vote, holds its share of the time */
		}
		c->winner = 1;
		if (c->kind == SEARCH_FNODE)
			w.status = c->total_ns / s->ncalls < exp2(s->p->min_bucket)
				       ? SEARCH_MIN_BUCKET
				   : w.level >= s->p->max_depth ? SEARCH_MAX_DEPTH
								: SEARCH_GOING;
		k = add_node(s, &w);
		if (k < 0 || (w.status == SEARCH_GOING && walk_node(s, k, c->id)) ||
		    (w.status == SEARCH_MAX_DEPTH && below_limit(s, k, c->id)))
			return -1;
	}
	s->won = above;
	return 0;
}

static int walk_node(struct search *s, int node, int64_t fnode)
{
	struct cset cs = {0};
	int rc = vote_node(s, node, fnode, &cs, vote_call);

	if (!rc)
		rc = follow(s, node, &cs);
	if (!rc)
		rc = keep_cands(s, &cs);
	free(cs.v);
	return rc;
}

int search_run_tree(const struct search_tree *t, const struct search_params *p,
		    struct search_result *out)
{
	struct idx x = {0};
	struct search s = {&x, p, out};
	struct search_node f0 = {-1, 0, SEARCH_FNODE, 0, 0, 0, 0, 1, SEARCH_GOING};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (p->max_depth < 0 || !(p->maxcount_pct > 0 && p->maxcount_pct <= 100) ||
	    !(p->branch_pct >= 0 && p->branch_pct <= 100) || p->min_bucket < 0 ||
	    p->min_bucket > 62 || (p->mode != SEARCH_MAX && p->mode != SEARCH_SUM))
		return -1;
	if (t->nopen || idx_build(&x, t))
		goto out;
	s.inst = malloc((t->ncalls + 1) * sizeof(*s.inst));
	if (!s.inst)
		goto out;
	for (int k = 0; k < t->nroots; k++)
		s.f0_total += extra(t, t->roots[k])->incl;
	s.ncalls = f0.maxcount = f0.ncalls = t->nroots;
	f0.total_ns = s.f0_total;
	f0.id = t->nroots ? t->calls[t->roots[0]].fnode : 0;
	rc = add_node(&s, &f0) < 0 ? -1 : 0;
	if (!rc && t->nroots)
		rc = walk_node(&s, 0, f0.id);
out:
	free(s.inst);
	free(s.at);
	free(s.row.cand);
	free(s.row.val);
	free(x.by_fnode);
	if (rc)
		search_release(out);
	return rc;
}

/* Children lists of @in: kid[kid_at[i] .. kid_at[i + 1]), in input order. -1 on a bad parent. */
static int in_children(const struct search_input *in, int *kid, int *kid_at)
{
	int n = in->ncalls;

	for (int i = 0; i < n; i++) {
		int p = in->calls[i].parent;
		if (p >= n || p < -1)
			return -1;
		if (p >= 0)
			kid_at[p + 1]++;
	}
	for (int i = 0; i < n; i++)
		kid_at[i + 1] += kid_at[i];
	for (int i = 0, *fill = kid_at; i < n; i++) /* kid_at shifted by one, then back */
		if (in->calls[i].parent >= 0)
			kid[fill[in->calls[i].parent]++] = i;
	for (int i = n; i > 0; i--)
		kid_at[i] = kid_at[i - 1];
	kid_at[0] = 0;
	return 0;
}

/* @in's calls into @t in preorder (f0 calls and children in input order); pos[i]: where. */
static int in_tree(const struct search_input *in, struct search_tree *t, int *pos, int *rank)
{
	int n = in->ncalls, top = 0, rc = 0;
	int *kid = malloc((n + 1) * sizeof(int)), *kid_at = calloc(n + 2, sizeof(int));
	int *stack = malloc((n + 1) * sizeof(int)), *level = malloc((n + 1) * sizeof(int));

	rc = kid && kid_at && stack && level ? in_children(in, kid, kid_at) : -1;
	for (int i = n - 1; !rc && i >= 0; i--)
		if (in->calls[i].parent < 0)
			level[i] = 0, stack[top++] = i;
	while (!rc && top > 0) {
		int i = stack[--top];
		const struct search_call *c = &in->calls[i];
		pos[i] = search_tree_add(t, level[i], i, c->fnode, c->incl,
					 c->irq + c->softirq + c->preempt, c->preempt, c->blocked,
					 c->overhead);
		rc = pos[i] < 0 ? -1 : 0;
		if (!rc)
			rank[pos[i]] = i;
		for (int k = kid_at[i + 1] - 1; !rc && k >= kid_at[i]; k--)
			level[kid[k]] = level[i] + 1, stack[top++] = kid[k];
	}
	if (!rc && (search_tree_end(t) || t->ncalls != n))
		rc = -1; /* out of memory, or a cycle */
	free(kid);
	free(kid_at);
	free(stack);
	free(level);
	return rc;
}

/* @in's interrupts into @t, by the call's place in preorder, each call's in input order. */
static int in_irqs(const struct search_input *in, struct search_tree *t, const int *pos)
{
	int n = in->ncalls, *at = calloc(n + 2, sizeof(int));

	t->irqs = malloc((in->nirqs + 1) * sizeof(*t->irqs));
	if (!at || !t->irqs) {
		free(at);
		return -1;
	}
	for (int k = 0; k < in->nirqs; k++)
		if (in->irqs[k].call >= 0 && in->irqs[k].call < n)
			at[pos[in->irqs[k].call] + 1]++;
	for (int i = 0; i < n; i++)
		at[i + 1] += at[i];
	for (int k = 0; k < in->nirqs; k++)
		if (in->irqs[k].call >= 0 && in->irqs[k].call < n) {
			int i = pos[in->irqs[k].call];
			t->irqs[at[i]] = in->irqs[k];
			t->irqs[at[i]++].call = i;
			t->nirqs++;
		}
	free(at);
	return 0;
}

int search_run(const struct search_input *in, const struct search_params *p,
	       struct search_result *out)
{
	struct search_tree t = {0};
	int n = in->ncalls, rc = -1;
	int *pos = malloc((n + 1) * sizeof(int)), *rank = malloc((n + 1) * sizeof(int));

	memset(out, 0, sizeof(*out));
	if (!pos || !rank || in_tree(in, &t, pos, rank) || in_irqs(in, &t, pos))
		goto out;
	t.nsources = in->nsources;
	t.source_soft = in->source_soft;
	t.order = rank;
	rc = search_run_tree(&t, p, out);
out:
	free(pos);
	free(rank);
	search_tree_release(&t);
	return rc;
}

void search_release(struct search_result *r)
{
	free(r->nodes);
	free(r->cands);
	memset(r, 0, sizeof(*r));
}

const char *search_kind_name(int kind)
{
	static const char *const n[] = {"fnode", "self", "irq", "softirq", "preemption",
					"blocked"};
	return kind >= 0 && kind <= SEARCH_BLOCKED ? n[kind] : "?";
}

const char *search_status_name(int status)
{
	static const char *const n[] = {"",
					"root cause found",
					"maximum depth reached",
					"below min_bucket",
					"root cause found",
					"below the depth limit"};
	return status >= 0 && status <= SEARCH_BELOW ? n[status] : "?";
}
