// SPDX-License-Identifier: MIT
#include "search.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The input, indexed for the search. */
struct idx {
	const struct sr_input *in;
	int *root;	       /* [ncalls] index of the f0 call above each call */
	int *kid, *kid_at;     /* children of call i: kid[kid_at[i] .. kid_at[i + 1]) */
	int *irq_at;	       /* interrupts of call i: irqs[irq_at[i] .. irq_at[i + 1]) (sorted) */
	struct sr_irq *irqs;
	int64_t *exo;	       /* [ncalls] irq + softirq + preempt over the subtree */
	int64_t *pre;	       /* [ncalls] preemption over the subtree */
	int64_t *ovh;	       /* [ncalls] tracer overhead over the subtree (also in exo) */
	int *roots;	       /* the f0 calls */
	int nroots;
	int *by_fnode;	       /* call indices sorted by (fnode, root) */
};

/* The candidates of one node, keyed by (kind, id). */
struct cset {
	struct sr_cand *v; /* v[0..n), room for cap */
	int n, cap;
};

/* Per f0 call, the value of every candidate (a scratch row). */
struct row {
	int *cand;   /* index into the cset */
	double *val; /* the candidate's value in this call, beside cand */
	int n, cap;
};

static int64_t value(const struct idx *x, int i)
{
	return x->in->calls[i].incl - x->exo[i];
}

static int bucket(double v)
{
	return v >= 1 ? (int)floor(log2(v)) : 0;
}

/* ---- indexing ---------------------------------------------------------------- */

static int cmp_irq(const void *a, const void *b)
{
	const struct sr_irq *x = a, *y = b;
	return x->call - y->call;
}

static const struct idx *sort_ctx;

static int cmp_by_fnode(const void *a, const void *b)
{
	const struct sr_call *c = sort_ctx->in->calls;
	int i = *(const int *)a, j = *(const int *)b;

	if (c[i].fnode != c[j].fnode)
		return c[i].fnode < c[j].fnode ? -1 : 1;
	return sort_ctx->root[i] != sort_ctx->root[j] ? sort_ctx->root[i] - sort_ctx->root[j] : i - j;
}

/* Children lists, and the calls in an order where parents come first. */
static int index_tree(struct idx *x, int *order)
{
	int n = x->in->ncalls, head = 0, tail = 0;
	int *fill = calloc(n + 1, sizeof(*fill));

	if (!fill)
		return -1;
	for (int i = 0; i < n; i++)
		if (x->in->calls[i].parent >= 0)
			x->kid_at[x->in->calls[i].parent + 1]++;
	for (int i = 0; i < n; i++)
		x->kid_at[i + 1] += x->kid_at[i];
	for (int i = 0; i < n; i++) {
		int p = x->in->calls[i].parent;
		if (p >= 0)
			x->kid[x->kid_at[p] + fill[p]++] = i;
		else
			order[tail++] = x->roots[x->nroots++] = i;
	}
	while (head < tail) {
		int i = order[head++];
		for (int k = x->kid_at[i]; k < x->kid_at[i + 1]; k++) {
			x->root[x->kid[k]] = x->root[i];
			order[tail++] = x->kid[k];
		}
	}
	free(fill);
	return tail == n ? 0 : -1; /* a parent outside the input, or a cycle */
}

/*
 * Exogenous time over every subtree, children before parents. A call of
 * the tracer's own code is exogenous as a whole; the interrupts and
 * preemption in it stay what they are (they would have hit the code
 * anyway), the rest of it is tracer overhead.
 */
static void sum_subtrees(struct idx *x, const int *order)
{
	const struct sr_call *c = x->in->calls;

	for (int k = x->in->ncalls - 1; k >= 0; k--) {
		int i = order[k], p = c[i].parent;
		x->exo[i] += c[i].irq + c[i].softirq + c[i].preempt;
		x->pre[i] += c[i].preempt;
		if (p < 0)
			continue;
		x->exo[p] += c[i].overhead ? c[i].incl : x->exo[i];
		x->pre[p] += x->pre[i];
		x->ovh[p] += x->ovh[i] + (c[i].overhead ? c[i].incl - x->exo[i] : 0);
	}
}

static int index_irqs(struct idx *x)
{
	int n = x->in->ncalls;

	x->irqs = malloc((x->in->nirqs + 1) * sizeof(*x->irqs));
	if (!x->irqs)
		return -1;
	if (x->in->nirqs) /* in->irqs may be NULL then: UB for memcpy even at 0 bytes */
		memcpy(x->irqs, x->in->irqs, x->in->nirqs * sizeof(*x->irqs));
	qsort(x->irqs, x->in->nirqs, sizeof(*x->irqs), cmp_irq);
	for (int k = 0, i = 0; i <= n; i++) {
		while (k < x->in->nirqs && x->irqs[k].call < i)
			k++;
		x->irq_at[i] = k;
	}
	return 0;
}

static void idx_free(struct idx *x)
{
	free(x->root);
	free(x->kid);
	free(x->kid_at);
	free(x->irq_at);
	free(x->irqs);
	free(x->exo);
	free(x->pre);
	free(x->ovh);
	free(x->roots);
	free(x->by_fnode);
}

static int idx_build(struct idx *x, const struct sr_input *in)
{
	int n = in->ncalls, rc = -1;
	int *order = malloc((n + 1) * sizeof(*order));

	memset(x, 0, sizeof(*x));
	x->in = in;
	x->root = calloc(n + 1, sizeof(*x->root));
	x->kid = calloc(n + 1, sizeof(*x->kid));
	x->kid_at = calloc(n + 2, sizeof(*x->kid_at));
	x->irq_at = calloc(n + 2, sizeof(*x->irq_at));
	x->exo = calloc(n + 1, sizeof(*x->exo));
	x->pre = calloc(n + 1, sizeof(*x->pre));
	x->ovh = calloc(n + 1, sizeof(*x->ovh));
	x->roots = calloc(n + 1, sizeof(*x->roots));
	x->by_fnode = calloc(n + 1, sizeof(*x->by_fnode));
	if (order && x->root && x->kid && x->kid_at && x->irq_at && x->exo && x->pre && x->ovh &&
	    x->roots && x->by_fnode) {
		for (int i = 0; i < n; i++)
			x->root[i] = x->by_fnode[i] = i;
		if (!index_tree(x, order) && !index_irqs(x)) {
			sum_subtrees(x, order);
			sort_ctx = x;
			qsort(x->by_fnode, n, sizeof(int), cmp_by_fnode);
			rc = 0;
		}
	}
	free(order);
	return rc;
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
	cs->v[cs->n] = (struct sr_cand){.node = node, .kind = kind, .id = id};
	return cs->n++;
}

/* Add @v to candidate @c in the row (once per candidate: max or sum as @mode says). */
static int row_add(struct row *r, int c, double v, int mode)
{
	if (c < 0)
		return -1;
	for (int i = 0; i < r->n; i++)
		if (r->cand[i] == c) {
			r->val[i] = mode == SR_SUM ? r->val[i] + v : fmax(r->val[i], v);
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
	return kind == SR_PREEMPT ? won & 1 : id < 63 && (won >> (id + 1) & 1);
}

/* Interrupts by source over the subtree of call @i, into the row. */
static int add_irqs(const struct idx *x, struct cset *cs, struct row *r, int node, int i,
		    uint64_t won)
{
	for (int k = x->irq_at[i]; k < x->irq_at[i + 1]; k++) {
		int s = x->irqs[k].source;
		int kind = x->in->source_soft && x->in->source_soft[s] ? SR_SOFTIRQ : SR_IRQ;
		if (!won_above(won, kind, s) &&
		    row_add(r, cand(cs, node, kind, s), x->irqs[k].ns, SR_SUM))
			return -1;
	}
	for (int k = x->kid_at[i]; k < x->kid_at[i + 1]; k++)
		if (add_irqs(x, cs, r, node, x->kid[k], won))
			return -1;
	return 0;
}

/*
 * The candidates of node instance(s) @inst[0..n) of one f0 call into row @r:
 * children, interrupts, preemption, blocked and self.
 */
static int fill_row(const struct idx *x, const struct sr_params *p, struct cset *cs, int node,
		    const int *inst, int n, uint64_t won, struct row *r)
{
	const struct sr_call *c = x->in->calls;
	double v = 0, kids = 0, blocked = 0, pre = 0;
	int rc = 0;

	r->n = 0;
	for (int k = 0; k < n && !rc; k++) {
		int i = inst[k];
		v += value(x, i);
		blocked += c[i].blocked;
		pre += x->pre[i];
		for (int j = x->kid_at[i]; j < x->kid_at[i + 1] && !rc; j++)
			if (!c[x->kid[j]].overhead)
				rc = row_add(r, cand(cs, node, SR_FNODE, c[x->kid[j]].fnode),
				     value(x, x->kid[j]), p->mode);
		rc = rc ? rc : add_irqs(x, cs, r, node, i, won);
	}
	for (int k = 0; k < r->n; k++)
		if (cs->v[r->cand[k]].kind == SR_FNODE)
			kids += r->val[k];
	if (rc || (!won_above(won, SR_PREEMPT, 0) &&
		   row_add(r, cand(cs, node, SR_PREEMPT, 0), pre, SR_SUM)) ||
	    row_add(r, cand(cs, node, SR_BLOCKED, 0), blocked, SR_SUM) ||
	    row_add(r, cand(cs, node, SR_SELF, 0), fmax(v - kids - blocked, 0), SR_SUM))
		return -1;
	return 0;
}

/* One vote of one f0 call: the largest candidate and all in its log2 bucket. */
static void vote(struct cset *cs, const struct row *r)
{
	double top = 0;

	for (int k = 0; k < r->n; k++) {
		top = fmax(top, r->val[k]);
		cs->v[r->cand[k]].total_ns += r->val[k];
	}
	if (top < 1)
		return;
	for (int k = 0; k < r->n; k++)
		if (r->val[k] >= 1 && bucket(r->val[k]) == bucket(top))
			cs->v[r->cand[k]].maxcount++;
}

/* ---- the search ---------------------------------------------------------------- */

/* One search under way: its input, parameters and result. */
struct search {
	const struct idx *x;
	const struct sr_params *p;
	struct sr_result *out;
	double f0_total; /* the latency of the f0 calls, summed */
	int ncalls;	 /* the f0 calls */
	uint64_t won; /* exogenous winners on the path above (won_above()) */
	struct row row;
	int *inst; /* scratch: one f0 call's instances of a node */
};

static int add_node(struct search *s, const struct sr_node *n)
{
	struct sr_result *o = s->out;
	void *v = realloc(o->nodes, (o->nnodes + 1) * sizeof(*o->nodes));

	if (!v)
		return -1;
	o->nodes = v;
	o->nodes[o->nnodes] = *n;
	return o->nnodes++;
}

static int keep_cands(struct search *s, const struct cset *cs)
{
	struct sr_result *o = s->out;
	void *v = realloc(o->cands, (o->ncands + cs->n + 1) * sizeof(*o->cands));

	if (!v)
		return -1;
	o->cands = v;
	memcpy(o->cands + o->ncands, cs->v, cs->n * sizeof(*cs->v));
	o->ncands += cs->n;
	return 0;
}

/* The votes of one f0 call's instances inst[0..m) of node @node. */
static int vote_call(struct search *s, int node, int m, struct cset *cs)
{
	const struct idx *x = s->x;

	for (int j = 0; j < m; j++)
		s->out->nodes[node].overhead_ns += x->ovh[s->inst[j]];
	if (s->p->mode == SR_MAX) /* the largest instance stands for them */
		for (int j = 1; j < m; j++)
			if (value(x, s->inst[j]) > value(x, s->inst[0]))
				s->inst[0] = s->inst[j];
	if (fill_row(x, s->p, cs, node, s->inst, s->p->mode == SR_MAX ? 1 : m, s->won, &s->row))
		return -1;
	vote(cs, &s->row);
	return 0;
}

/*
 * Vote at node @node (fnode @fnode): every f0 call's instances of it,
 * grouped; at f0 (node 0), every f0 call whatever its fnode, once.
 */
static int vote_node(struct search *s, int node, int64_t fnode, struct cset *cs)
{
	const struct idx *x = s->x;
	const int *b = x->by_fnode;
	int n = x->in->ncalls;

	for (int k = 0; node == 0 && k < x->nroots; k++) {
		s->inst[0] = x->roots[k];
		if (vote_call(s, node, 1, cs))
			return -1;
	}
	for (int k = 0; node > 0 && k < n;) {
		int m = 0, root = x->root[b[k]];
		if (x->in->calls[b[k]].fnode != fnode) {
			k++;
			continue;
		}
		while (k < n && x->in->calls[b[k]].fnode == fnode && x->root[b[k]] == root)
			s->inst[m++] = b[k++];
		if (vote_call(s, node, m, cs))
			return -1;
	}
	return 0;
}

static int search_node(struct search *s, int node, int64_t fnode);

/* Make the winners of @cs children of @node, and search the fnodes among them. */
static int follow(struct search *s, int node, struct cset *cs)
{
	int best = 0, depth = s->out->nodes[node].depth + 1;
	uint64_t above = s->won;

	for (int i = 0; i < cs->n; i++)
		best = cs->v[i].maxcount > best ? cs->v[i].maxcount : best;
	/* what wins here from outside the code is not sought again below */
	for (int i = 0; i < cs->n && best; i++) {
		const struct sr_cand *c = &cs->v[i];
		if (c->maxcount >= best * s->p->maxcount_pct / 100 && c->maxcount)
			s->won |= c->kind == SR_PREEMPT			      ? 1
				  : (c->kind == SR_IRQ || c->kind == SR_SOFTIRQ) && c->id < 63
				      ? (uint64_t)2 << c->id
				      : 0;
	}
	for (int i = 0; i < cs->n && best; i++) {
		struct sr_cand *c = &cs->v[i];
		struct sr_node w = {node, depth, c->kind, c->id, c->maxcount, s->ncalls, c->total_ns,
				    s->f0_total > 0 ? c->total_ns / s->f0_total : 0, SR_FOUND};
		int k;
		if (c->maxcount < best * s->p->maxcount_pct / 100)
			continue;
		c->winner = 1;
		if (c->kind == SR_FNODE)
			w.status = c->total_ns / s->ncalls < exp2(s->p->min_bucket) ? SR_MIN_BUCKET
				   : depth >= s->p->max_depth		     ? SR_MAX_DEPTH
									     : SR_GOING;
		k = add_node(s, &w);
		if (k < 0 || (w.status == SR_GOING && search_node(s, k, c->id)))
			return -1;
	}
	s->won = above;
	return 0;
}

static int search_node(struct search *s, int node, int64_t fnode)
{
	struct cset cs = {0};
	int rc = vote_node(s, node, fnode, &cs);

	if (!rc)
		rc = follow(s, node, &cs);
	if (!rc)
		rc = keep_cands(s, &cs);
	free(cs.v);
	return rc;
}

int sr_search(const struct sr_input *in, const struct sr_params *p, struct sr_result *out)
{
	struct idx x;
	struct search s = {&x, p, out};
	struct sr_node f0 = {-1, 0, SR_FNODE, 0, 0, 0, 0, 1, SR_GOING};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (p->max_depth < 0 || !(p->maxcount_pct > 0 && p->maxcount_pct <= 100) ||
	    p->min_bucket < 0 || p->min_bucket > 62 || (p->mode != SR_MAX && p->mode != SR_SUM))
		return -1;
	if (idx_build(&x, in))
		goto out;
	s.inst = malloc((in->ncalls + 1) * sizeof(*s.inst));
	if (!s.inst)
		goto out;
	for (int k = 0; k < x.nroots; k++)
		s.f0_total += in->calls[x.roots[k]].incl;
	s.ncalls = f0.maxcount = f0.ncalls = x.nroots;
	f0.total_ns = s.f0_total;
	f0.id = x.nroots ? in->calls[x.roots[0]].fnode : 0;
	rc = add_node(&s, &f0) < 0 ? -1 : 0;
	if (!rc && x.nroots)
		rc = search_node(&s, 0, f0.id);
out:
	free(s.inst);
	free(s.row.cand);
	free(s.row.val);
	idx_free(&x);
	if (rc)
		sr_release(out);
	return rc;
}

void sr_release(struct sr_result *r)
{
	free(r->nodes);
	free(r->cands);
	memset(r, 0, sizeof(*r));
}

const char *sr_kind_name(int kind)
{
	static const char *const n[] = {"fnode", "self", "irq", "softirq", "preemption",
					"blocked"};
	return kind >= 0 && kind <= SR_BLOCKED ? n[kind] : "?";
}

const char *sr_status_name(int status)
{
	static const char *const n[] = {"", "root cause found", "maximum depth reached",
					"below min_bucket", "root cause found"};
	return status >= 0 && status <= SR_NO_CHILDREN ? n[status] : "?";
}
