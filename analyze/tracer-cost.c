// SPDX-License-Identifier: MIT
/*
 * tracer-cost: the tracer's own share of a latency (tracer-cost.h says what
 * and why). The estimate keeps, per function, log-scale histograms of its
 * leaf calls' durations and of the gaps before it from a returning sibling,
 * 16 buckets an octave (medians within 2.2%); the function with the smallest
 * median is the one nearest to an empty function, whose whole duration is
 * the tracer's.
 */
#include "tracer-cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hist.h"
#include "rows.h"


#define TC_BPO 16		 /* histogram buckets per octave */
#define TC_NB (27 * TC_BPO)	 /* 1 ns .. 2^27 ns (134 ms) */
#define TC_MIN_SAMPLES 20	 /* a function's median needs this many calls */
#define TC_MAX_NS 1e9		 /* no traced call costs a second: a stored value beyond is not used */

const char *const cost_mech_names[TC_NMECH] = {
    "function_graph", "kprobe", "kretprobe", "uprobe", "uretprobe", "tracepoint",
};

void cost_unknown(struct cost_cost *c)
{
	for (int m = 0; m < TC_NMECH; m++) {
		c->ns[m] = NAN;
		c->estimated[m] = false;
	}
	c->own_ns = NAN;
}

/* ---- the estimate ---- */

/*
 * One function's leaf durations and the gaps before its calls. Their counts
 * are summed at the end (hcount()): a count beside the buckets would be one
 * more cache line written per leaf call, on the analysis' busiest thread.
 */
struct fhist {
	uint32_t leaf[TC_NB], gap[TC_NB];
};

/* The last two function_graph events of a CPU ([0] the last). */
struct cpu_state {
	int kind[2]; /* EVENT_FG_ENTRY, EVENT_FG_EXIT, or EVENT_OTHER for anything else */
	int64_t func[2];
	int depth[2];
	int64_t rettime[2]; /* exits: the return's time, else DARC_NULL */
};

struct cost_est {
	struct fhist **f; /* by func id, NULL where none seen */
	int64_t nf;
	struct cpu_state *cpu; /* by CPU number */
	int ncpu;
	int64_t events[TC_NMECH]; /* events of each mechanism in the recording */
};

struct cost_est *cost_est_new(void)
{
	return calloc(1, sizeof(struct cost_est));
}

void cost_est_free(struct cost_est *e)
{
	if (!e)
		return;
	for (int64_t i = 0; i < e->nf; i++)
		free(e->f[i]);
	free(e->f);
	free(e->cpu);
	free(e);
}

_Static_assert(HIST_FINE % TC_BPO == 0, "a bucket is whole fine buckets");

/*
 * floor(TC_BPO log2 ns), clamped: one call in a few events, so without
 * floating point (hist_fine()'s 48 buckets an octave, 3 to one of these;
 * the same for every ns below 2^27, tried one by one).
 */
static int hbucket(int64_t ns)
{
	int b = ns < 1 ? 0 : hist_fine((uint64_t)ns) / (HIST_FINE / TC_BPO);

	return b >= TC_NB ? TC_NB - 1 : b;
}

/* The samples in histogram @h. */
static uint32_t hcount(const uint32_t *h)
{
	uint32_t n = 0;

	for (int b = 0; b < TC_NB; b++)
		n += h[b];
	return n;
}

/* The median of histogram @h of @n samples: its bucket's geometric middle. */
static double hmedian(const uint32_t *h, uint32_t n)
{
	uint64_t sum = 0;

	for (int b = 0; b < TC_NB; b++)
		if ((sum += h[b]) * 2 >= n)
			return exp2((b + 0.5) / TC_BPO);
	return NAN;
}

/* Function @id's histograms, made on first use; NULL when out of memory. */
static struct fhist *fhist_of(struct cost_est *e, int64_t id)
{
	if (id < 0 || id > (1 << 24))
		return NULL;
	if (id >= e->nf) {
		int64_t n = id + 256;
		struct fhist **p = realloc(e->f, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + e->nf, 0, (n - e->nf) * sizeof(*p));
		e->f = p;
		e->nf = n;
	}
	if (!e->f[id])
		e->f[id] = calloc(1, sizeof(struct fhist));
	return e->f[id];
}

static struct cpu_state *cpu_of(struct cost_est *e, int cpu)
{
	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= e->ncpu) {
		int n = cpu + 8;
		struct cpu_state *p = realloc(e->cpu, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + e->ncpu, 0, (n - e->ncpu) * sizeof(*p));
		e->cpu = p;
		e->ncpu = n;
	}
	return &e->cpu[cpu];
}

/* A function_graph exit: a leaf call when its entry came just before on
   the CPU, and a gap when a sibling's exit came before that. -1: no memory. */
static int fg_exit(struct cost_est *e, const struct cpu_state *c, const struct analysis_event *a)
{
	struct fhist *f;

	if (c->kind[0] != EVENT_FG_ENTRY || c->func[0] != a->fg.func_id ||
	    c->depth[0] != a->fg.depth || a->fg.bad_time || a->fg.dur == DARC_NULL ||
	    a->fg.dur < 0)
		return 0;
	if (!(f = fhist_of(e, a->fg.func_id)))
		return -1;
	f->leaf[hbucket(a->fg.dur)]++;
	if (c->kind[1] == EVENT_FG_EXIT && c->depth[1] == a->fg.depth &&
	    c->rettime[1] != DARC_NULL && a->fg.calltime != DARC_NULL &&
	    a->fg.calltime >= c->rettime[1]) {
		f->gap[hbucket(a->fg.calltime - c->rettime[1])]++;
	}
	return 0;
}

int cost_est_feed(struct cost_est *e, const struct analysis_event *a, bool user)
{
	struct cpu_state *c = cpu_of(e, a->cpu);
	bool fg = a->kind == EVENT_FG_ENTRY || a->kind == EVENT_FG_EXIT;

	if (!c)
		return a->cpu < 0 || a->cpu > 65535 ? 0 : -1;
	if (a->kind == EVENT_FG_EXIT) {
		e->events[TC_FGRAPH]++; /* calls: one exit each */
		if (fg_exit(e, c, a))
			return -1;
	} else if (a->kind == EVENT_PROBE_ENTRY) {
		e->events[user ? TC_UPROBE : TC_KPROBE]++;
	} else if (a->kind == EVENT_PROBE_RETURN) {
		e->events[user ? TC_URETPROBE : TC_KRETPROBE]++;
	} else if (a->kind != EVENT_FG_ENTRY) {
		e->events[TC_TRACEPOINT]++;
	}
	c->kind[1] = c->kind[0];
	c->func[1] = c->func[0];
	c->depth[1] = c->depth[0];
	c->rettime[1] = c->rettime[0];
	c->kind[0] = fg ? a->kind : EVENT_OTHER;
	c->func[0] = fg ? a->fg.func_id : 0;
	c->depth[0] = fg ? a->fg.depth : -1;
	c->rettime[0] = a->kind == EVENT_FG_EXIT ? a->fg.rettime : DARC_NULL;
	return 0;
}

void cost_est_get(const struct cost_est *e, int min, double *own, double *gap, int64_t *nown,
		int64_t *ngap)
{
	*own = *gap = NAN;
	*nown = *ngap = 0;
	for (int64_t i = 0; i < e->nf; i++) {
		const struct fhist *f = e->f[i];
		uint32_t nl, ng; /* its leaf calls and gaps */
		double m;
		if (!f)
			continue;
		*nown += nl = hcount(f->leaf);
		*ngap += ng = hcount(f->gap);
		if (nl >= (uint32_t)min && ((m = hmedian(f->leaf, nl)) < *own || isnan(*own)))
			*own = m;
		if (ng >= (uint32_t)min && ((m = hmedian(f->gap, ng)) < *gap || isnan(*gap)))
			*gap = m;
	}
}

/* darc-record's measured cost of mechanism @m in @manifest's tracer_cost, or NAN. */
static double measured(const json_t *manifest, int m)
{
	json_t *v = json_object_get(json_object_get(json_object_get(manifest, "tracer_cost"), "ns"),
				    cost_mech_names[m]);

	return json_is_number(v) && json_number_value(v) >= 0 &&
		       json_number_value(v) < TC_MAX_NS
		   ? json_number_value(v)
		   : NAN;
}

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 10) / 10);
}

/* function_graph's object: measured or estimated, with the estimate's parts. */
static json_t *fgraph_json(const struct cost_est *e, double meas)
{
	double own, gap, est;
	int64_t nown, ngap;
	json_t *o;

	cost_est_get(e, TC_MIN_SAMPLES, &own, &gap, &nown, &ngap);
	est = isnan(own) ? NAN : isnan(gap) ? own : own + gap;
	o = json_pack("{sosssosososIsI}", "ns", num(isnan(meas) ? est : meas), "source",
		      !isnan(meas) ? "measured" : !isnan(est) ? "estimated" : "unknown",
		      "own_ns", num(own), "estimated_ns", num(est), "gap_ns", num(gap),
		      "leaf_calls", (json_int_t)nown, "gaps", (json_int_t)ngap);
	if (isnan(meas) && !isnan(est))
		json_object_set_new(
		    o, "note",
		    json_string(isnan(gap) ? "the fastest leaf calls only: a lower bound"
					   : "the fastest leaf calls' median plus the median gap "
					     "between sibling calls"));
	return o;
}

char *cost_est_json(const struct cost_est *e, const json_t *m, const char *graph)
{
	json_t *o = json_object();
	bool any = false;
	char *s;

	for (int k = 0; k < TC_NMECH; k++) {
		double meas = measured(m, k);
		json_t *v;
		if (!e->events[k] && isnan(meas))
			continue;
		any = true;
		v = k == TC_FGRAPH ? fgraph_json(e, meas)
				   : json_pack("{soss}", "ns", num(meas), "source",
					       isnan(meas) ? "unknown" : "measured");
		json_object_set_new(v, "events", json_integer(e->events[k]));
		json_object_set_new(o, k == TC_FGRAPH && graph ? graph : cost_mech_names[k], v);
	}
	s = any ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
	json_decref(o);
	return s;
}

/* ---- share and shift ---- */

double cost_share(const struct cost_cost *c, const struct cost_counts *k)
{
	double s = 0;

	for (int m = 0; m < TC_NMECH; m++) {
		double ns = c->ns[m];
		if (m == TC_FGRAPH && k->excl) /* a child's hooks outside its duration */
			ns = isnan(c->own_ns) ? NAN : ns > c->own_ns ? ns - c->own_ns : 0;
		if (!isnan(ns) && k->n[m] > 0)
			s += k->n[m] * ns;
	}
	if (k->self_fgraph && !isnan(c->own_ns))
		s += c->own_ns;
	return s;
}

int cost_bucket(double ns, int resolution)
{
	return (int)floor(resolution * log2(ns < 1 ? 1 : ns));
}

int cost_shift(double ns, double share, int resolution)
{
	int d;

	if (!(share > 0))
		return 0;
	d = cost_bucket(ns, resolution) - cost_bucket(ns - share, resolution);
	return d > 0 ? d : 0;
}
