// SPDX-License-Identifier: MIT
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ftree.h"
#include "funcs.h"
#include "jtext.h"
#include "setup.h"
#include "show.h"
#include "vis.h"

/* One function's totals over the subtrees of its outermost fnodes. */
struct ftot {
	int64_t func, calls, incl, self, callees, irq, softirq, preempt, blocked, max;
};

/* The parts of one fnode's subtree, summed. */
struct part {
	int64_t excl, irq, softirq, preempt, blocked;
};

static int by_incl(const void *a, const void *b)
{
	const struct ftot *x = a, *y = b;

	if (x->incl != y->incl)
		return x->incl < y->incl ? 1 : -1;
	return (x->func > y->func) - (x->func < y->func);
}

/* Every fnode's subtree sums (a parent's id is below its children's). */
static struct part *subtree_parts(const struct ftree *ft)
{
	int n = ftree_nnodes(ft);
	struct part *p = calloc(n + 1, sizeof(*p));

	for (int i = n - 1; p && i >= 0; i--) {
		const struct fnode_rec *r = &ftree_node(ft, i)->rec;
		struct part *s = &p[i];
		s->excl += r->excl_ns;
		s->irq += r->irq_ns;
		s->softirq += r->softirq_ns;
		s->preempt += r->preempt_ns;
		s->blocked += r->blocked_ns;
		if (r->parent_id != DARC_NULL && r->parent_id >= 1 && r->parent_id <= n) {
			struct part *q = &p[r->parent_id - 1];
			q->excl += s->excl;
			q->irq += s->irq;
			q->softirq += s->softirq;
			q->preempt += s->preempt;
			q->blocked += s->blocked;
		}
	}
	return p;
}

/* Is fnode @i below another fnode of its own function (recursion)? */
static bool nested(const struct ftree *ft, int i)
{
	const struct fnode_rec *r = &ftree_node(ft, i)->rec;
	int64_t f = r->func_id, up = r->parent_id;

	while (up != DARC_NULL && up >= 1 && up <= ftree_nnodes(ft)) {
		const struct fnode_rec *q = &ftree_node(ft, up - 1)->rec;
		if (q->func_id == f)
			return true;
		up = q->parent_id;
	}
	return false;
}

/* Per-function totals, sorted by inclusive latency; NULL when out of memory. */
static struct ftot *totals(const struct ftree *ft, const struct funcs *fs)
{
	int64_t nf = funcs_count(fs);
	struct ftot *t = calloc(nf + 1, sizeof(*t));
	struct part *p = subtree_parts(ft);

	for (int64_t f = 0; t && f <= nf; f++)
		t[f].func = f;
	for (int i = 0; t && p && i < ftree_nnodes(ft); i++) {
		const struct fnode_rec *r = &ftree_node(ft, i)->rec;
		struct ftot *x = &t[r->func_id];
		x->calls += r->calls;
		x->max = r->max_ns > x->max ? r->max_ns : x->max;
		if (nested(ft, i))
			continue; /* counted in its outer call's subtree */
		x->incl += r->incl_ns;
		x->self += r->excl_ns;
		x->callees += p[i].excl - r->excl_ns;
		x->irq += p[i].irq;
		x->softirq += p[i].softirq;
		x->preempt += p[i].preempt;
		x->blocked += p[i].blocked;
	}
	if (t && p)
		qsort(t, nf + 1, sizeof(*t), by_incl);
	free(p);
	return p ? t : (free(t), NULL);
}

static int hist_json(void *ctx, int bucket, uint64_t count)
{
	char k[16];

	snprintf(k, sizeof(k), "%d", bucket);
	json_object_set_new(ctx, k, json_integer((json_int_t)count));
	return 0;
}

struct hist_line {
	char *p;
	size_t left;
};

static int hist_text(void *ctx, int bucket, uint64_t count)
{
	struct hist_line *l = ctx;
	int n = snprintf(l->p, l->left, " %d:%" PRIu64, bucket, count);

	if (n < 0 || (size_t)n >= l->left)
		return 1;
	l->p += n;
	l->left -= n;
	return 0;
}

static json_t *func_json(const struct ftot *x, const struct func_rec *fr, const struct hist *h,
			 const struct quant *q)
{
	json_t *f = json_pack("{so sI sI sI sI sI sI sI sI sI}", "func", jtext(fr->name), "calls",
			      (json_int_t)x->calls, "incl_ns", (json_int_t)x->incl, "self_ns",
			      (json_int_t)x->self, "callees_ns", (json_int_t)x->callees, "irq_ns",
			      (json_int_t)x->irq, "softirq_ns", (json_int_t)x->softirq, "preempt_ns",
			      (json_int_t)x->preempt, "blocked_ns", (json_int_t)x->blocked, "max_ns",
			      (json_int_t)x->max);
	json_t *hb = json_object();

	if (q) { /* exact (ftree.c), as table func has them */
		json_object_set_new(f, "p50_ns", json_integer(q->p[QUANT_P50]));
		json_object_set_new(f, "p90_ns", json_integer(q->p[QUANT_P90]));
		json_object_set_new(f, "p99_ns", json_integer(q->p[QUANT_P99]));
		json_object_set_new(f, "p999_ns", json_integer(q->p[QUANT_P999]));
	}
	if (h)
		hist_each(h, 1, hist_json, hb);
	json_object_set_new(f, "hist_log2_ns", hb);
	return f;
}

static void func_text(FILE *out, int rank, const struct ftot *x, const struct func_rec *fr,
		      const struct hist *h)
{
	char line[1024] = "";
	struct hist_line hl = {line, sizeof(line)};

	if (h)
		hist_each(h, 1, hist_text, &hl);
	fprintf(out, "%3d. %-32s %9" PRId64 " calls  total %12.1f  mean %10.1f  max %10.1f\n", rank,
		vis(fr->name), x->calls, x->incl / 1e3, x->incl / 1e3 / (x->calls ? x->calls : 1),
		x->max / 1e3);
	fprintf(out, "     self %.1f  callees %.1f  irq %.1f  softirq %.1f  preempt %.1f  "
		     "blocked %.1f\n",
		x->self / 1e3, x->callees / 1e3, x->irq / 1e3, x->softirq / 1e3, x->preempt / 1e3,
		x->blocked / 1e3);
	fprintf(out, "     log2(ns) buckets:%s\n", line);
}

/* "19336 events" or "events (how many: not counted)". */
static const char *lost_amount(int64_t lost, char *buf, size_t n)
{
	if (lost)
		snprintf(buf, n, "%" PRId64 " events", lost);
	else
		snprintf(buf, n, "events (not counted)");
	return buf;
}

/* What was lost, per CPU, as text. */
static void loss_text(FILE *out, const struct pipeline_result *res, const struct ftree_stats *st)
{
	char amount[64];

	if (!res->nloss && !res->lost)
		return;
	fprintf(out, "lost %s", lost_amount(res->lost, amount, sizeof(amount)));
	for (int i = 0; i < res->nloss; i++) {
		const struct pipeline_loss *l = &res->loss[i];
		fprintf(out, "%s cpu %d: %s at %" PRId64 " point%s, %.6f .. %.6f s", i ? ";" : ":",
			l->cpu, lost_amount(l->lost, amount, sizeof(amount)), l->marks,
			l->marks == 1 ? "" : "s", (l->first_t - res->t_first) / 1e9,
			(l->last_t - res->t_first) / 1e9);
	}
	fprintf(out, "\n%" PRId64 " calls were open across a loss: kept, flagged gap, and left "
		     "out of the histograms and totals\n",
		st->gap);
}

static json_t *loss_json(const struct pipeline_result *res, const struct ftree_stats *st)
{
	json_t *a = json_array();

	for (int i = 0; i < res->nloss; i++) {
		const struct pipeline_loss *l = &res->loss[i];
		json_array_append_new(a, json_pack("{si sI sI sI sI}", "cpu", l->cpu, "lost",
						   (json_int_t)l->lost, "points", (json_int_t)l->marks,
						   "first_ns", (json_int_t)(l->first_t - res->t_first),
						   "last_ns", (json_int_t)(l->last_t - res->t_first)));
	}
	return json_pack("{sI sI sI so}", "lost_events", (json_int_t)res->lost, "lost_marks",
			 (json_int_t)res->lost_marks, "calls_across_loss", (json_int_t)st->gap,
			 "per_cpu", a);
}

static json_t *head_json(const struct pipeline_result *res, const char *db)
{
	const struct ftree_stats *st = ftree_stats(res->ft);

	return json_pack("{so sI sf sI sI sI sI sI sI sI si sI sI sI sI sI so}", "database", jtext(db),
			 "events", (json_int_t)res->events, "seconds", res->seconds, "calls",
			 (json_int_t)st->calls, "complete", (json_int_t)st->complete, "no_entry",
			 (json_int_t)st->no_entry, "no_exit", (json_int_t)st->no_exit, "gap",
			 (json_int_t)st->gap, "clamped", (json_int_t)st->clamped, "irq_calls",
			 (json_int_t)st->irq_calls, "fnodes", ftree_nnodes(res->ft), "functions",
			 (json_int_t)funcs_count(res->fs), "tasks", (json_int_t)st->tasks,
			 "irq_intervals", (json_int_t)st->irq_intervals, "sched_intervals",
			 (json_int_t)st->sched_intervals, "wakeups", (json_int_t)st->wakeups, "loss",
			 loss_json(res, st));
}

static void head_text(FILE *out, const struct pipeline_result *res, const char *db)
{
	const struct ftree_stats *st = ftree_stats(res->ft);

	fprintf(out, "%s: %" PRId64 " events in %.2f s: %" PRId64 " calls (%" PRId64
		     " complete, %" PRId64 " without entry, %" PRId64 " without exit, %" PRId64
		     " across lost events), %d fnodes, %" PRId64 " functions, %" PRId64 " tasks\n",
		vis(db), res->events, res->seconds, st->calls, st->complete, st->no_entry,
		st->no_exit, st->gap, ftree_nnodes(res->ft), funcs_count(res->fs), st->tasks);
	fprintf(out, "intervals: %" PRId64 " irq, %" PRId64 " off-cpu, %" PRId64 " wake-ups, %" PRId64
		     " probe hits\n",
		st->irq_intervals, st->sched_intervals, st->wakeups, st->probe_hits);
	loss_text(out, res, st);
}

const char *summary_no_calls_hint(const struct pipeline_result *res)
{
	if (ftree_stats(res->ft)->calls)
		return NULL;
	return "the recording has no function_graph, system call or paired probe events, so no "
	       "calls: record with darc-record -g FUNC (function_graph), -e raw_syscalls (system "
	       "calls), --kprobe with --kretprobe, or -U BIN:FUNC (user functions)";
}

void summary_print(FILE *out, const struct pipeline_result *res, const char *rec, const char *db,
		   const struct summary_opts *o)
{
	struct ftot *t = totals(res->ft, res->fs);
	int64_t nf = funcs_count(res->fs), hidden = 0;
	json_t *j = o->json ? head_json(res, db) : NULL, *top = json_array();

	(void)rec;
	if (!o->json)
		head_text(out, res, db);
	for (int64_t i = 0; t && i <= nf; i++)
		hidden += t[i].calls && funcs_get(res->fs, t[i].func) &&
			  funcs_get(res->fs, t[i].func)->overhead && !o->all;
	if (!o->json && o->top > 0 && t && t[0].calls)
		fprintf(out, "\ntop functions by total inclusive latency (us), each split over its "
			     "whole subtree%s:\n",
			hidden ? " (the tracer's own functions left out: --all shows them)" : "");
	for (int64_t i = 0, shown = 0; t && i <= nf && shown < o->top && t[i].calls; i++) {
		const struct func_rec *fr = funcs_get(res->fs, t[i].func);
		const struct hist *h = ftree_func_hist(res->ft, t[i].func, METRIC_INCL);
		if (!fr || (fr->overhead && !o->all))
			continue;
		shown++;
		if (o->json)
			json_array_append_new(top, func_json(&t[i], fr, h,
							     ftree_func_quant(res->ft, t[i].func)));
		else
			func_text(out, (int)shown, &t[i], fr, h);
	}
	if (j) {
		json_object_set_new(j, "split", json_string("subtree"));
		json_object_set_new(j, "top", top);
		struct err_msg e;
		if (show_json_to(out, "analyze", NULL, j, &e))
			setup_error("%s", e.msg);
		json_decref(j);
	} else {
		json_decref(top);
	}
	free(t);
}
