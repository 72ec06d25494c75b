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

#include "rows.h"

#define TC_BPO 16		 /* histogram buckets per octave */
#define TC_NB (27 * TC_BPO)	 /* 1 ns .. 2^27 ns (134 ms) */
#define TC_MIN_SAMPLES 20	 /* a function's median needs this many calls */
#define TC_MAX_NS 1e9		 /* no traced call costs a second: a stored value beyond is not used */

const char *const tc_mech_names[TC_NMECH] = {
    "function_graph", "kprobe", "kretprobe", "uprobe", "uretprobe", "tracepoint",
};

void tc_cost_unknown(struct tc_cost *c)
{
	for (int m = 0; m < TC_NMECH; m++) {
		c->ns[m] = NAN;
		c->estimated[m] = false;
	}
	c->own_ns = NAN;
}

/* ---- the estimate ---- */

/* One function's leaf durations and the gaps before its calls. */
struct fhist {
	uint32_t leaf[TC_NB], gap[TC_NB];
	uint32_t nleaf, ngap;
};

/* The last two function_graph events of a CPU ([0] the last). */
struct cpu_state {
	int kind[2];	    /* AEV_FG_ENTRY, AEV_FG_EXIT, or AEV_OTHER for anything else */
	int64_t func[2];
	int depth[2];
	int64_t rettime[2]; /* exits: the return's time, else DARC_NULL */
};

struct tc_est {
	struct fhist **f; /* by func id, NULL where none seen */
	int64_t nf;
	struct cpu_state *cpu; /* by CPU number */
	int ncpu;
	int64_t events[TC_NMECH]; /* events of each mechanism in the recording */
};

struct tc_est *tc_est_new(void)
{
	return calloc(1, sizeof(struct tc_est));
}

void tc_est_free(struct tc_est *e)
{
	if (!e)
		return;
	for (int64_t i = 0; i < e->nf; i++)
		free(e->f[i]);
	free(e->f);
	free(e->cpu);
	free(e);
}

static int hbucket(int64_t ns)
{
	int b = ns < 1 ? 0 : (int)floor(TC_BPO * log2((double)ns));

	return b < 0 ? 0 : b >= TC_NB ? TC_NB - 1 : b;
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
static struct fhist *fhist_of(struct tc_est *e, int64_t id)
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

static struct cpu_state *cpu_of(struct tc_est *e, int cpu)
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
static int fg_exit(struct tc_est *e, const struct cpu_state *c, const struct aev *a)
{
	struct fhist *f;

	if (c->kind[0] != AEV_FG_ENTRY || c->func[0] != a->fg.func_id ||
	    c->depth[0] != a->fg.depth || a->fg.bad_time || a->fg.dur == DARC_NULL ||
	    a->fg.dur < 0)
		return 0;
	if (!(f = fhist_of(e, a->fg.func_id)))
		return -1;
	f->leaf[hbucket(a->fg.dur)]++;
	f->nleaf++;
	if (c->kind[1] == AEV_FG_EXIT && c->depth[1] == a->fg.depth &&
	    c->rettime[1] != DARC_NULL && a->fg.calltime != DARC_NULL &&
	    a->fg.calltime >= c->rettime[1]) {
		f->gap[hbucket(a->fg.calltime - c->rettime[1])]++;
		f->ngap++;
	}
	return 0;
}

int tc_est_feed(struct tc_est *e, const struct aev *a, bool user)
{
	struct cpu_state *c = cpu_of(e, a->cpu);
	bool fg = a->kind == AEV_FG_ENTRY || a->kind == AEV_FG_EXIT;

	if (!c)
		return a->cpu < 0 || a->cpu > 65535 ? 0 : -1;
	if (a->kind == AEV_FG_EXIT) {
		e->events[TC_FGRAPH]++; /* calls: one exit each */
		if (fg_exit(e, c, a))
			return -1;
	} else if (a->kind == AEV_PROBE_ENTRY) {
		e->events[user ? TC_UPROBE : TC_KPROBE]++;
	} else if (a->kind == AEV_PROBE_RETURN) {
		e->events[user ? TC_URETPROBE : TC_KRETPROBE]++;
	} else if (a->kind != AEV_FG_ENTRY) {
		e->events[TC_TRACEPOINT]++;
	}
	c->kind[1] = c->kind[0];
	c->func[1] = c->func[0];
	c->depth[1] = c->depth[0];
	c->rettime[1] = c->rettime[0];
	c->kind[0] = fg ? a->kind : AEV_OTHER;
	c->func[0] = fg ? a->fg.func_id : 0;
	c->depth[0] = fg ? a->fg.depth : -1;
	c->rettime[0] = a->kind == AEV_FG_EXIT ? a->fg.rettime : DARC_NULL;
	return 0;
}

void tc_est_get(const struct tc_est *e, int min, double *own, double *gap, int64_t *nown,
		int64_t *ngap)
{
	*own = *gap = NAN;
	*nown = *ngap = 0;
	for (int64_t i = 0; i < e->nf; i++) {
		const struct fhist *f = e->f[i];
		double m;
		if (!f)
			continue;
		*nown += f->nleaf;
		*ngap += f->ngap;
		if (f->nleaf >= (uint32_t)min && ((m = hmedian(f->leaf, f->nleaf)) < *own || isnan(*own)))
			*own = m;
		if (f->ngap >= (uint32_t)min && ((m = hmedian(f->gap, f->ngap)) < *gap || isnan(*gap)))
			*gap = m;
	}
}

/* darc-record's measured cost of mechanism @m in @manifest's tracer_cost, or NAN. */
static double measured(json_t *manifest, int m)
{
	json_t *v = json_object_get(
	    json_object_get(json_object_get(manifest, "tracer_cost"), "ns"), tc_mech_names[m]);

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
static json_t *fgraph_json(const struct tc_est *e, double meas)
{
	double own, gap, est;
	int64_t nown, ngap;
	json_t *o;

	tc_est_get(e, TC_MIN_SAMPLES, &own, &gap, &nown, &ngap);
	est = isnan(own) ? NAN : isnan(gap) ? own : own + gap;
	o = json_pack("{sosssososososIsI}", "ns", num(isnan(meas) ? est : meas), "source",
		      !isnan(meas) ? "measured" : !isnan(est) ? "estimated" : "unknown",
		      "own_ns", num(own), "estimated_ns", num(est), "leaf_ns", num(own), "gap_ns",
		      num(gap), "leaf_calls", (json_int_t)nown, "gaps", (json_int_t)ngap);
	if (isnan(meas) && !isnan(est))
		json_object_set_new(
		    o, "note",
		    json_string(isnan(gap) ? "the fastest leaf calls only: a lower bound"
					   : "the fastest leaf calls' median plus the median gap "
					     "between sibling calls"));
	return o;
}

char *tc_est_json(const struct tc_est *e, const char *manifest)
{
	json_t *m = manifest ? json_loads(manifest, 0, NULL) : NULL, *o = json_object();
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
		json_object_set_new(o, tc_mech_names[k], v);
	}
	s = any ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
	json_decref(o);
	json_decref(m);
	return s;
}

/* ---- share and shift ---- */

double tc_share(const struct tc_cost *c, const struct tc_counts *k)
{
	double s = 0;

	for (int m = 0; m < TC_NMECH; m++)
		if (!isnan(c->ns[m]) && k->n[m] > 0)
			s += k->n[m] * c->ns[m];
	if (k->self_fgraph && !isnan(c->own_ns))
		s += c->own_ns;
	return s;
}

int tc_bucket(double ns, int resolution)
{
	return (int)floor(resolution * log2(ns < 1 ? 1 : ns));
}

int tc_shift(double ns, double share, int resolution)
{
	int d;

	if (!(share > 0))
		return 0;
	d = tc_bucket(ns, resolution) - tc_bucket(ns - share, resolution);
	return d > 0 ? d : 0;
}

/* ---- from a database ---- */

/* One mechanism's object of recording.tracer_cost into @c (its values checked). */
static void load_one(struct tc_cost *c, int m, json_t *o)
{
	json_t *ns = json_object_get(o, "ns"), *own = json_object_get(o, "own_ns");
	const char *src = json_string_value(json_object_get(o, "source"));

	if (json_is_number(ns) && json_number_value(ns) >= 0 && json_number_value(ns) < TC_MAX_NS) {
		c->ns[m] = json_number_value(ns);
		c->estimated[m] = !src || strcmp(src, "measured");
	}
	if (m == TC_FGRAPH && json_is_number(own) && json_number_value(own) >= 0 &&
	    json_number_value(own) < TC_MAX_NS)
		c->own_ns = json_number_value(own);
}

int tc_load(sqlite3 *db, struct tc_cost *c, struct fmt_err *err)
{
	sqlite3_stmt *st = NULL;
	json_t *j = NULL;
	int rc;

	tc_cost_unknown(c);
	if (sqlite3_prepare_v2(db, "SELECT tracer_cost FROM recording LIMIT 1", -1, &st, NULL))
		return fmt_errf(err, NULL, "cannot read the tracer's cost: %s", sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		j = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
	for (int m = 0; m < TC_NMECH && json_is_object(j); m++)
		load_one(c, m, json_object_get(j, tc_mech_names[m]));
	json_decref(j);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fmt_errf(err, NULL, "cannot read the tracer's cost: %s", sqlite3_errmsg(db));
	return 0;
}

/* Something charged to a call: a probe hit, a sched interval, an interrupt. */
struct charge {
	int64_t call_id, task;
	int mech;   /* enum tc_mech */
	int events; /* how many of its events */
};

struct tc_ctx {
	sqlite3 *db;
	sqlite3_stmt *self, *below;
	struct charge *ch; /* by call_id */
	int64_t nch;
};

static int by_call(const void *a, const void *b)
{
	const struct charge *x = a, *y = b;

	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

/*
 * The charges of one table: @sql yields (call_id, task, mech, events) rows.
 * The mechanism of a probe point is told by its function (a uprobe's or
 * not) and its event's name (a return probe ends in "__return" or "_ret").
 */
static int load_charges(struct tc_ctx *x, const char *sql, struct fmt_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL))
		return fmt_errf(err, NULL, "cannot read what the tracer did: %s",
				sqlite3_errmsg(x->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct charge *p;
		int mech = sqlite3_column_int(st, 2);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL || mech < 0 || mech >= TC_NMECH)
			continue;
		if (!(x->nch & (x->nch + 1)) || !x->ch) { /* grow at 2^k - 1 */
			p = realloc(x->ch, (x->nch + 1) * 2 * sizeof(*p));
			if (!p)
				break;
			x->ch = p;
		}
		x->ch[x->nch++] = (struct charge){sqlite3_column_int64(st, 0),
						  sqlite3_column_int64(st, 1), mech,
						  sqlite3_column_int(st, 3)};
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fmt_errf(err, NULL, "cannot read what the tracer did: %s",
				rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(x->db));
	return 0;
}

static const char charges_sql[][400] = {
    /* probe points (the pairs are calls, counted with the calls) */
    "SELECT p.call_id, p.task_id, CASE WHEN coalesce(f.kind, 0) = 3 THEN"
    " (CASE WHEN p.event LIKE '%\\_\\_return' ESCAPE '\\' OR p.event LIKE '%\\_ret' ESCAPE '\\'"
    " THEN 4 ELSE 3 END) ELSE (CASE WHEN p.event LIKE '%\\_\\_return' ESCAPE '\\' OR p.event"
    " LIKE '%\\_ret' ESCAPE '\\' THEN 2 ELSE 1 END) END, 1 FROM probe_hit p"
    " LEFT JOIN func f ON f.id = p.func_id WHERE p.role = 0",
    /* off CPU: sched_switch out and in; blocked also sched_waking and sched_wakeup */
    "SELECT call_id, task_id, 5, CASE WHEN kind = 1 THEN 4 ELSE 2 END FROM sched_interval",
    /* interrupts: their entry and exit events */
    "SELECT call_id, task_id, 5, 2 FROM irq_interval",
};

struct tc_ctx *tc_ctx_new(sqlite3 *db, struct fmt_err *err)
{
	struct tc_ctx *x = calloc(1, sizeof(*x));

	if (!x) {
		fmt_errf(err, NULL, "out of memory");
		return NULL;
	}
	x->db = db;
	if (sqlite3_prepare_v2(db,
			       "SELECT b.task_id, b.last_id, coalesce(f.kind, -1) FROM call_base b"
			       " LEFT JOIN func f ON f.id = b.func_id WHERE b.id = ?",
			       -1, &x->self, NULL) ||
	    sqlite3_prepare_v2(db,
			       "SELECT coalesce(f.kind, -1), count(*) FROM call_base b"
			       " LEFT JOIN func f ON f.id = b.func_id"
			       " WHERE b.id > ?1 AND b.id <= ?2 AND b.task_id = ?3 GROUP BY 1",
			       -1, &x->below, NULL)) {
		fmt_errf(err, NULL, "cannot read the calls: %s", sqlite3_errmsg(db));
		tc_ctx_free(x);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(charges_sql) / sizeof(*charges_sql); i++)
		if (load_charges(x, charges_sql[i], err)) {
			tc_ctx_free(x);
			return NULL;
		}
	qsort(x->ch, x->nch, sizeof(*x->ch), by_call);
	return x;
}

void tc_ctx_free(struct tc_ctx *x)
{
	if (!x)
		return;
	sqlite3_finalize(x->self);
	sqlite3_finalize(x->below);
	free(x->ch);
	free(x);
}

/* Add the calls of kind @kind (func.kind), @n of them, to @k. */
static void count_kind(struct tc_counts *k, int kind, int64_t n)
{
	switch (kind) {
	case FUNC_KERNEL:
		k->n[TC_FGRAPH] += n;
		break;
	case FUNC_SYSCALL: /* sys_enter and sys_exit */
		k->n[TC_TRACEPOINT] += 2 * n;
		break;
	/* a probe pair: one trap at entry for both probes, one at return; a return
	   probe alone costs both traps (calib.c measures it so): about the pair */
	case FUNC_KPROBE:
		k->n[TC_KRETPROBE] += n;
		break;
	case FUNC_UPROBE:
		k->n[TC_URETPROBE] += n;
		break;
	}
}

/* The charges to calls @lo .. @hi of task @task into @k. */
static void count_charges(const struct tc_ctx *x, int64_t lo, int64_t hi, int64_t task,
			  struct tc_counts *k)
{
	int64_t a = 0, b = x->nch;

	while (a < b) { /* the first charge at @lo or after */
		int64_t m = a + (b - a) / 2;
		if (x->ch[m].call_id < lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < x->nch && x->ch[a].call_id <= hi; a++)
		if (x->ch[a].task == task)
			k->n[x->ch[a].mech] += x->ch[a].events;
}

int tc_call_counts(struct tc_ctx *x, int64_t id, struct tc_counts *k, struct fmt_err *err)
{
	int64_t task, last;
	int rc, kind;

	memset(k, 0, sizeof(*k));
	sqlite3_reset(x->self);
	sqlite3_bind_int64(x->self, 1, id);
	rc = sqlite3_step(x->self);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 /* no such call: nothing traced in it */
					 : fmt_errf(err, NULL, "cannot read call %lld: %s",
						    (long long)id, sqlite3_errmsg(x->db));
	task = sqlite3_column_int64(x->self, 0);
	last = sqlite3_column_int64(x->self, 1);
	kind = sqlite3_column_int(x->self, 2);
	k->self_fgraph = kind == FUNC_KERNEL;
	sqlite3_reset(x->below);
	sqlite3_bind_int64(x->below, 1, id);
	sqlite3_bind_int64(x->below, 2, last < id ? id : last);
	sqlite3_bind_int64(x->below, 3, task);
	while ((rc = sqlite3_step(x->below)) == SQLITE_ROW)
		count_kind(k, sqlite3_column_int(x->below, 0), sqlite3_column_int64(x->below, 1));
	if (rc != SQLITE_DONE)
		return fmt_errf(err, NULL, "cannot read the calls below call %lld: %s",
				(long long)id, sqlite3_errmsg(x->db));
	count_charges(x, id, last < id ? id : last, task, k);
	return 0;
}

/* The buckets being summed: by bucket number from @lo, with the latencies. */
struct tc_sums {
	struct tc_bucket *b;
	double *lat; /* the latencies summed, per bucket */
	int lo, n;
};

/* Add one call of latency @ns and tracer share @share to @s. -1: no memory. */
static int add_call(struct tc_sums *s, double ns, double share, int resolution)
{
	int b = tc_bucket(ns, resolution), i, sh = tc_shift(ns, share, resolution);

	if (!s->n || b < s->lo || b >= s->lo + s->n) {
		int lo = !s->n || b < s->lo ? b : s->lo;
		int hi = !s->n || b >= s->lo + s->n ? b + 1 : s->lo + s->n;
		struct tc_bucket *nb = calloc(hi - lo, sizeof(*nb));
		double *nl = calloc(hi - lo, sizeof(*nl));
		if (!nb || !nl) {
			free(nb);
			free(nl);
			return -1;
		}
		for (i = 0; i < s->n; i++) {
			nb[s->lo - lo + i] = s->b[i];
			nl[s->lo - lo + i] = s->lat[i];
		}
		free(s->b);
		free(s->lat);
		s->b = nb;
		s->lat = nl;
		s->lo = lo;
		s->n = hi - lo;
	}
	i = b - s->lo;
	s->b[i].bucket = b;
	s->b[i].calls++;
	s->b[i].share_ns += share;
	s->lat[i] += ns;
	s->b[i].shifted += sh > 0;
	if (sh > s->b[i].shift_max)
		s->b[i].shift_max = sh;
	return 0;
}

/* The sums made means, the empty buckets dropped: into *@out, *@n. */
static int finish_sums(struct tc_sums *s, int resolution, struct tc_bucket **out, int *n)
{
	int k = 0;

	for (int i = 0; i < s->n; i++) {
		struct tc_bucket *b = &s->b[i];
		double mean;
		if (!b->calls)
			continue;
		mean = s->lat[i] / b->calls;
		b->share = s->lat[i] > 0 ? b->share_ns / s->lat[i] : 0;
		b->share_ns /= b->calls;
		b->shift = tc_shift(mean, b->share_ns, resolution);
		s->b[k++] = *b;
	}
	free(s->lat);
	*out = s->b;
	*n = k;
	return 0;
}

int tc_hist_shift(sqlite3 *db, const struct tc_cost *c, int owner_kind, int64_t owner_id,
		  int metric, int resolution, struct tc_bucket **out, int *n,
		  struct fmt_err *err)
{
	struct tc_sums s = {0};
	struct tc_ctx *x;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (metric != 0 || resolution < 1 || resolution > 4 || owner_kind < 0 || owner_kind > 1)
		return fmt_errf(err, NULL, "the tracer's share is known for incl_ns at resolution "
				"1 to 4, of a func or an fnode");
	if (!(x = tc_ctx_new(db, err)))
		return -1;
	if (sqlite3_prepare_v2(db,
			       owner_kind ? "SELECT id, incl_ns FROM call_base WHERE fnode_id = ?"
					    " AND incl_ns IS NOT NULL ORDER BY id"
					  : "SELECT id, incl_ns FROM call_base WHERE func_id = ?"
					    " AND incl_ns IS NOT NULL ORDER BY id",
			       -1, &st, NULL)) {
		rc = fmt_errf(err, NULL, "cannot read the calls: %s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, owner_id);
	while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tc_counts k;
		double ns = (double)sqlite3_column_int64(st, 1);
		rc = tc_call_counts(x, sqlite3_column_int64(st, 0), &k, err);
		if (!rc && add_call(&s, ns, tc_share(c, &k), resolution))
			rc = fmt_errf(err, NULL, "out of memory");
	}
	if (rc == SQLITE_DONE)
		rc = finish_sums(&s, resolution, out, n);
	else if (rc > 0)
		rc = fmt_errf(err, NULL, "cannot read the calls: %s", sqlite3_errmsg(db));
out:
	if (rc) {
		free(s.b);
		free(s.lat);
	}
	sqlite3_finalize(st);
	tc_ctx_free(x);
	return rc ? -1 : 0;
}

/* The manifest's recorder pid (darc-record's own), or 0. */
static int64_t recorder_pid(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t pid = 0;

	if (sqlite3_prepare_v2(db, "SELECT manifest FROM recording LIMIT 1", -1, &st, NULL))
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		json_t *m = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		json_t *p = json_object_get(json_object_get(m, "recorder"), "pid");
		pid = json_is_integer(p) ? json_integer_value(p) : 0;
		json_decref(m);
	}
	sqlite3_finalize(st);
	return pid;
}

int tc_recorder_task(sqlite3 *db, int64_t tid, char *who, size_t n, struct fmt_err *err)
{
	sqlite3_stmt *st;
	int64_t rec = recorder_pid(db), pid = DARC_NULL;
	const char *comm = "", *name = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT pid, comm FROM task WHERE tid = ?", -1, &st, NULL))
		return fmt_errf(err, NULL, "cannot read the tasks: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, tid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		pid = sqlite3_column_type(st, 0) == SQLITE_NULL ? DARC_NULL
								 : sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) == SQLITE_TEXT)
			comm = (const char *)sqlite3_column_text(st, 1);
	}
	/* trace-cmd's readers are trace-cmd (no pid of its own is recorded) */
	if (!strcmp(comm, "trace-cmd"))
		name = "trace-cmd";
	else if (!strncmp(comm, "darc-record", 11) || (rec > 0 && (tid == rec || pid == rec)))
		name = "darc-record";
	if (name)
		snprintf(who, n, "%s", name);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fmt_errf(err, NULL, "cannot read the tasks: %s", sqlite3_errmsg(db));
	return name != NULL;
}
