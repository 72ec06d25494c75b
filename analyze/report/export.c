// SPDX-License-Identifier: MIT
/*
 * darc export: a database as files other tools open. Folded stacks
 * (flamegraph.pl, speedscope): the weights are summed in SQL per (task,
 * fnode), so only the fnode tree and the function names are held. Trace
 * Event Format JSON (Perfetto, chrome://tracing, speedscope): the calls are
 * read each task's in the order of entry (export-calls.h), one X event each, a
 * call that does not nest in the thread's open calls left out; the
 * intervals follow, as X events too. speedscope's format wants each thread's
 * events together: they wait per thread, in memory and then in a temporary
 * file, and are written thread by thread at the end. Perfetto's protobuf:
 * perfetto.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "export-calls.h"
#include "export.h"
#include "jtext.h"
#include "perfetto.h"
#include "progress.h"
#include "vis.h"

#define SYNTH 4194304 /* PID_MAX_LIMIT: the ids of darc's own tracks start here */
#define COMPLETE "c.incl_ns IS NOT NULL AND c.flags & 3 = 0"

static const struct {
	const char *name, *call, *fnode; /* per call (view call c), per fnode (table fnode f) */
} metrics[XM_METRICS] = {
    [XM_EXCL] = {"excl", "c.excl_ns", "f.excl_ns"},
    [XM_INCL] = {"incl", "c.incl_ns - c.children_ns", "f.incl_ns - f.children_ns"},
    [XM_CALLS] = {"calls", "1", "f.calls"},
    [XM_IRQ] = {"irq", "c.irq_ns", "f.irq_ns"},
    [XM_SOFTIRQ] = {"softirq", "c.softirq_ns", "f.softirq_ns"},
    [XM_PREEMPT] = {"preempt", "c.preempt_ns", "f.preempt_ns"},
    [XM_BLOCKED] = {"blocked", "c.blocked_ns", "f.blocked_ns"},
    [XM_OFFCPU] = {"offcpu", "c.preempt_ns + c.blocked_ns", "f.preempt_ns + f.blocked_ns"},
};

const char *export_metric_name(int m)
{
	return m >= 0 && m < XM_METRICS ? metrics[m].name : "?";
}

int export_metric_of(const char *name)
{
	for (int m = 0; m < XM_METRICS; m++)
		if (!strcmp(name, metrics[m].name))
			return m;
	return -1;
}

/* ---- what every export holds in memory: names and the fnode tree ---------- */

struct names {
	sqlite3 *sql;	  /* the database's read connection (rdb.h) */
	const char *path; /* the database, for messages */
	char **func;	  /* by func.id: the name as stored (folded) or as a JSON string */
	int64_t nfunc;
	int64_t *parent; /* by fnode.id: parent fnode (0 for a root), and its function */
	int64_t *fn_func;
	int64_t nfnode;
	int64_t *stack; /* scratch: one path's fnodes */
	int64_t nstack;
};

static void names_release(struct names *n)
{
	export_names_free(n->func, n->nfunc);
	free(n->parent);
	free(n->fn_func);
	free(n->stack);
}

/* A function's name as stored (caller frees): folded stacks escape it as they print it. */
static char *stored_name(const char *s)
{
	return strdup(s ? s : "?");
}

/* @s as a JSON string with its quotes (caller frees; jtext.h: a name that is no UTF-8 escaped). */
static char *json_text(const char *s)
{
	json_t *j = jtext(s ? s : "");
	char *out;

	out = j ? json_dumps(jtext_clean(j), JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	return out;
}

static int load_funcs(struct names *n, char *(*conv)(const char *))
{
	return export_load_names(n->sql, conv, &n->func, &n->nfunc);
}

static int load_fnodes(struct names *n)
{
	sqlite3_stmt *st;
	int rc;

	n->nfnode = export_one_int(n->sql, "SELECT max(id) FROM fnode") + 1;
	n->parent = calloc(n->nfnode, sizeof(*n->parent));
	n->fn_func = calloc(n->nfnode, sizeof(*n->fn_func));
	if (!n->parent || !n->fn_func ||
	    sqlite3_prepare_v2(n->sql, "SELECT id, coalesce(parent_id, 0), func_id FROM fnode", -1,
			       &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id > 0 && id < n->nfnode) {
			n->parent[id] = sqlite3_column_int64(st, 1);
			n->fn_func[id] = sqlite3_column_int64(st, 2);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char *func_name(const struct names *n, int64_t id)
{
	return id >= 0 && id < n->nfunc && n->func[id] ? n->func[id] : "?";
}

/* ---- folded stacks --------------------------------------------------------- */

/* Print fnode @id's path from its root, frames joined by ';'. 0, or -1 out of memory. */
static int print_path(FILE *out, struct names *n, int64_t id)
{
	int64_t depth = 0;

	for (int64_t f = id; f > 0 && f < n->nfnode && depth <= n->nfnode; f = n->parent[f]) {
		if (depth == n->nstack) {
			int64_t *s = realloc(n->stack, (2 * depth + 16) * sizeof(*s));
			if (!s)
				return -1;
			n->stack = s;
			n->nstack = 2 * depth + 16;
		}
		n->stack[depth++] = f;
	}
	if (!depth)
		fputs("?", out);
	while (depth--) {
		vis_put(out, func_name(n, n->fn_func[n->stack[depth]]), VIS_FOLDED);
		if (depth)
			fputc(';', out);
	}
	return 0;
}

/* The folded query: rows (root frame or NULL, fnode id, last frame or NULL, weight). */
static void folded_sql(const struct report_options *o, const struct export_opts *x, bool owner,
		       char *q, size_t n)
{
	static const char *const root[] = {[EXPORT_ROOT_NONE] = "NULL",
					   [EXPORT_ROOT_COMM] = "coalesce(t.comm, '?')",
					   [EXPORT_ROOT_TID] =
					       "coalesce(t.comm, '?') || '-' || c.task_id"};
	static const char *const kinds[XM_METRICS] = {
	    [XM_PREEMPT] = "w.kind = 0", [XM_BLOCKED] = "w.kind = 1", [XM_OFFCPU] = "1"};
	const struct call_selection *s = &o->sel;
	char filter[320];
	const char *sel = owner ? " AND c.fnode_id IN sel_fnode" : "";

	rdb_filter_sql("c.task_id", "c.t_entry", filter, sizeof(filter));
	if (x->off_cpu)
		snprintf(q, n,
			 "SELECT %s, c.fnode_id, w.category, sum(w.ns) FROM wait w"
			 " JOIN call c ON c.id = w.call_id LEFT JOIN task t ON t.tid = c.task_id"
			 " WHERE %s AND w.ns IS NOT NULL AND " COMPLETE " AND %s%s"
			 " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
			 root[x->root], kinds[x->metric], filter, sel);
	else if (x->root == EXPORT_ROOT_NONE && !s->task && !s->comm && s->t_lo == INT64_MIN &&
		 s->t_hi == INT64_MAX) /* the fnode table's sums: no call is read */
		snprintf(q, n, "SELECT NULL, f.id, NULL, %s FROM fnode f WHERE 1%s ORDER BY f.id",
			 metrics[x->metric].fnode, owner ? " AND f.id IN sel_fnode" : "");
	else
		snprintf(q, n,
			 "SELECT %s, c.fnode_id, NULL, sum(%s) FROM call c"
			 " LEFT JOIN task t ON t.tid = c.task_id WHERE " COMPLETE " AND %s%s"
			 " GROUP BY 1, 2 ORDER BY 1, 2",
			 root[x->root], metrics[x->metric].call, filter, sel);
}

static int export_folded(FILE *out, struct rdb *db, const struct report_options *o,
			 const struct export_opts *x, bool owner, struct err_msg *err)
{
	struct names n = {.sql = rdb_sql(db), .path = rdb_path(db)};
	sqlite3_stmt *st = NULL;
	char q[1536];
	int rc = -1;

	if (x->off_cpu && x->metric != XM_BLOCKED && x->metric != XM_PREEMPT &&
	    x->metric != XM_OFFCPU)
		return err_setf(err, n.path,
				"--off-cpu weighs blocked, preempt or offcpu time, not %s",
				export_metric_name(x->metric));
	folded_sql(o, x, owner, q, sizeof(q));
	if (load_funcs(&n, stored_name) || load_fnodes(&n) ||
	    sqlite3_prepare_v2(n.sql, q, -1, &st, NULL) != SQLITE_OK ||
	    (sqlite3_bind_parameter_count(st) && rdb_bind_filters(st, &o->sel, rdb_t_first(db)))) {
		err_setf(err, n.path, "cannot read the stacks: %s", rdb_why(n.sql));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t w = sqlite3_column_int64(st, 3);
		if (w <= 0)
			continue;
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			vis_put(out, rdb_text(st, 0), VIS_FOLDED);
			fputc(';', out);
		}
		if (print_path(out, &n, sqlite3_column_int64(st, 1)))
			break;
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			fputs(";[", out);
			vis_put(out, rdb_text(st, 2), VIS_FOLDED);
			fputc(']', out);
		}
		fprintf(out, " %" PRId64 "\n", w);
	}
	rc = rc == SQLITE_DONE
		 ? 0
		 : err_setf(err, n.path, "cannot read the stacks: %s", rdb_why(n.sql));
out:
	sqlite3_finalize(st);
	names_release(&n);
	return rc;
}

/* ---- Trace Event Format ---------------------------------------------------- */

/* --speedscope: a track's events wait here until its profile is written (one per track). */
struct ssev {
	int64_t at;	    /* ns from the recording's first event */
	int64_t frame_open; /* func.id << 1 | 1 for an open event, 0 for a close */
};
#define SPOOL_BLOCK 2048 /* events a track holds in memory before they go to the spool file */

struct spooled {
	struct ssev *ev; /* the latest, in memory */
	int n, cap;
	long *block; /* where earlier ones lie in the spool file, SPOOL_BLOCK each */
	int nblock, blockcap;
};

struct track { /* a thread of the JSON: a task's calls, or a CPU's irq calls */
	int64_t tid, pid; /* the JSON's: the task's, or ids from SYNTH for a CPU's irq calls */
	char *name;	/* JSON string */
	bool named;	/* its M events are written */
	bool off_named; /* those of its sibling: the task's off-CPU or the CPU's interrupts */
	struct xstack st; /* its calls begun and not yet ended */
	struct spooled sp; /* --speedscope: its events so far */
};

/* A Trace Event Format export being written. */
struct chrome {
	struct obuf *ob;
	struct names n;
	int64_t t0; /* the recording's first event: time 0 of the JSON */
	struct track *task; /* by task, sorted by tid */
	int ntask;
	struct track *irq; /* by CPU: the irq calls' tracks */
	int nirq;
	char *flag[8]; /* call_flag names by bit */
	bool first;    /* no event written yet (no comma before the next) */
	int64_t calls, incomplete, unnested; /* written; left out: no time, cannot nest */
	/* --speedscope: one evented profile per track, frames by func.id */
	bool ss;
	FILE *spool;	   /* the tracks' events beyond what they hold in memory */
	int nprofile;	   /* profiles written */
	int active;	   /* the one speedscope opens on: the traced program's */
	int64_t want_tid;  /* its task */
	struct progress pg; /* "darc: export: 1.2 M calls" on a terminal */
};

static const char *const part_name[7] = {"incl_ns",    "excl_ns",    "children_ns", "irq_ns",
					 "softirq_ns", "preempt_ns", "blocked_ns"};

static void event_start(struct chrome *c)
{
	export_out_str(c->ob, c->first ? "\n" : ",\n");
	c->first = false;
}

/* @s, a JSON string with its quotes, without the closing one (so a suffix can follow). */
static void open_string(struct obuf *o, const char *s)
{
	export_out_mem(o, s, strlen(s) - 1);
}

static void meta(struct chrome *c, int64_t pid, int64_t tid, const char *what, const char *name,
		 const char *suffix)
{
	struct obuf *o = c->ob;

	event_start(c);
	export_out_str(o, "{\"ph\":\"M\",\"pid\":");
	export_out_i64(o, pid);
	export_out_str(o, ",\"tid\":");
	export_out_i64(o, tid);
	export_out_str(o, ",\"name\":\"");
	export_out_str(o, what);
	export_out_str(o, "\",\"args\":{\"name\":");
	open_string(o, name);
	export_out_str(o, suffix);
	export_out_str(o, "\"}}");
}

static struct track *task_track(struct chrome *c, int64_t tid)
{
	return bsearch(&tid, c->task, c->ntask, sizeof(*c->task), export_by_tid);
}

/* The M events of a track the first time it is used (@off: its off-CPU track). */
static void name_track(struct chrome *c, struct track *t, bool off)
{
	if (off ? t->off_named : t->named)
		return;
	if (!t->named && !t->off_named) {
		const struct track *leader = task_track(c, t->pid);
		meta(c, t->pid, t->pid, "process_name",
		     t->pid == SYNTH ? "\"interrupts\"" : (leader ? leader : t)->name, "");
	}
	if (off) {
		meta(c, t->pid, 2 * SYNTH + t->tid, "thread_name", t->name, " off-CPU");
		t->off_named = true;
	} else {
		meta(c, t->pid, t->tid, "thread_name", t->name, "");
		t->named = true;
	}
}

/* --speedscope: keep event @e of @t, its oldest ones moved to the spool file. 0 or -1. */
static int spool_event(struct chrome *c, struct spooled *sp, struct ssev e)
{
	if (sp->n == SPOOL_BLOCK) {
		if (!c->spool && !(c->spool = tmpfile()))
			return -1;
		if (sp->nblock == sp->blockcap) {
			long *b = realloc(sp->block, (2 * sp->blockcap + 8) * sizeof(*b));
			if (!b)
				return -1;
			sp->block = b;
			sp->blockcap = 2 * sp->blockcap + 8;
		}
		if (fseek(c->spool, 0, SEEK_END) ||
		    (sp->block[sp->nblock++] = ftell(c->spool)) < 0 ||
		    fwrite(sp->ev, sizeof(*sp->ev), SPOOL_BLOCK, c->spool) != SPOOL_BLOCK)
			return -1;
		sp->n = 0;
	}
	if (sp->n == sp->cap) {
		int cap = sp->cap ? 2 * sp->cap : 64;
		struct ssev *a = realloc(sp->ev, (cap > SPOOL_BLOCK ? SPOOL_BLOCK : cap) * sizeof(*a));
		if (!a)
			return -1;
		sp->ev = a;
		sp->cap = cap > SPOOL_BLOCK ? SPOOL_BLOCK : cap;
	}
	sp->ev[sp->n++] = e;
	return 0;
}

/* A call's args: its id, CPU, the parts of its latency that are not 0 (dur is incl_ns), flags. */
static void call_args(struct chrome *c, const struct xcall *k)
{
	struct obuf *o = c->ob;

	export_out_str(o, ",\"args\":{\"call\":");
	export_out_i64(o, k->id);
	export_out_str(o, ",\"cpu\":");
	export_out_i64(o, k->cpu);
	for (int i = 1; i < 7; i++) {
		if (!k->ns[i])
			continue;
		export_out_str(o, ",\"");
		export_out_str(o, part_name[i]);
		export_out_str(o, "\":");
		export_out_i64(o, k->ns[i]);
	}
	if (k->flags) {
		export_out_str(o, ",\"flags\":\"");
		for (int b = 0, sep = 0; b < 8; b++)
			if (k->flags & (1 << b)) {
				export_out_str(o, sep++ ? "|" : "");
				export_out_str(o, c->flag[b] ? c->flag[b] : "?");
			}
		export_out_str(o, "\"");
	}
	export_out_str(o, "}}");
}

/*
 * Call @k begins (@begin) or ends on @t: --speedscope keeps an O or C
 * event; the JSON writes one X event, with its duration, as it begins.
 */
static int call_event(struct chrome *c, struct track *t, const struct xcall *k, bool begin)
{
	struct obuf *o = c->ob;

	if (c->ss)
		return spool_event(c, &t->sp,
				   (struct ssev){(begin ? k->t_entry : k->t_exit) - c->t0,
						 begin ? k->func << 1 | 1 : k->func << 1});
	if (!begin)
		return 0;
	event_start(c);
	export_out_str(o, "{\"ph\":\"X\",\"pid\":");
	export_out_i64(o, t->pid);
	export_out_str(o, ",\"tid\":");
	export_out_i64(o, t->tid);
	export_out_str(o, ",\"ts\":");
	export_out_usec(o, k->t_entry - c->t0);
	export_out_str(o, ",\"dur\":");
	export_out_usec(o, k->ns[0]);
	export_out_str(o, ",\"cat\":\"call\",\"name\":");
	export_out_str(o, func_name(&c->n, k->func));
	call_args(c, k);
	return 0;
}

/* export_stack_end: @k ends on track @t. */
static int call_end(void *c, void *t, const struct xcall *k)
{
	return call_event(c, t, k, false);
}

static int push_call(struct chrome *c, struct track *t, const struct xcall *k)
{
	int rc = export_stack_push(&t->st, k, call_end, c, t);

	if (rc <= 0) {
		c->unnested += !rc; /* times that cannot nest (a damaged recording): left out */
		return rc;
	}
	if (!c->ss)
		name_track(c, t, false);
	c->calls++;
	return call_event(c, t, k, true);
}

static struct track *irq_track(struct chrome *c, int64_t cpu)
{
	struct track *a;
	char name[48];

	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= c->nirq) {
		a = realloc(c->irq, (cpu + 1) * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + c->nirq, 0, (cpu + 1 - c->nirq) * sizeof(*a));
		for (int i = c->nirq; i <= cpu; i++) {
			snprintf(name, sizeof(name), "\"cpu %d irq calls\"", i);
			a[i].pid = SYNTH;
			a[i].tid = SYNTH + 2 * i + 1;
			a[i].name = strdup(name);
		}
		c->irq = a;
		c->nirq = (int)cpu + 1;
	}
	return c->irq[cpu].name ? &c->irq[cpu] : NULL;
}

static int load_tasks(struct chrome *c)
{
	struct xtask *x;
	int rc = export_load_tasks(c->n.sql, json_text, &x, &c->ntask);

	c->task = calloc(c->ntask + 1, sizeof(*c->task));
	for (int i = 0; i < c->ntask; i++) {
		if (c->task)
			c->task[i] = (struct track){.pid = x[i].pid, .tid = x[i].tid, .name = x[i].name};
		else
			free(x[i].name);
	}
	free(x);
	if (!c->task)
		c->ntask = 0;
	return rc || !c->task ? -1 : 0;
}

/* Close every track's open calls, at the end. */
static int pop_all(struct chrome *c)
{
	for (int i = 0; i < c->ntask; i++)
		if (export_stack_pop(&c->task[i].st, INT64_MAX, 0, call_end, c, &c->task[i]))
			return -1;
	for (int i = 0; i < c->nirq; i++)
		if (export_stack_pop(&c->irq[i].st, INT64_MAX, 0, call_end, c, &c->irq[i]))
			return -1;
	return 0;
}

/*
 * The calls, each task's in the order of entry, each on its thread: a
 * task's, or its CPU's for a call in interrupt context. Each thread keeps
 * its open calls on a stack, which a call must nest in: speedscope's C
 * event waits there until a later call of the thread begins after its
 * exit, or the end.
 */
static int chrome_calls(struct chrome *c, struct rdb *db, const struct report_options *o,
			bool owner)
{
	struct xstream s;
	struct xcall k;
	int rc;

	if (export_stream_open(&s, db, o, owner, &c->pg))
		return -1;
	while ((rc = export_stream_next(&s, &k)) == 1) {
		struct track *t;
		if (!k.complete) {
			c->incomplete++; /* no time to show it at: left out */
			continue;
		}
		t = k.irq ? irq_track(c, k.cpu) : task_track(c, k.task);
		if (t && push_call(c, t, &k)) {
			rc = -1;
			break;
		}
		if (!(c->calls & 0xfff) && progress_due(&c->pg))
			progress_show(&c->pg, "%.1f M calls", c->calls / 1e6);
	}
	export_stream_close(&s);
	return rc || pop_all(c) ? -1 : 0;
}

/* One X event: @name_json a JSON string, @args the members of args (text). */
static void x_event(struct chrome *c, int64_t pid, int64_t tid, int64_t t0, int64_t t1,
		    const char *cat, const char *name_json, const char *args)
{
	struct obuf *o = c->ob;

	event_start(c);
	export_out_str(o, "{\"ph\":\"X\",\"pid\":");
	export_out_i64(o, pid);
	export_out_str(o, ",\"tid\":");
	export_out_i64(o, tid);
	export_out_str(o, ",\"ts\":");
	export_out_usec(o, t0 - c->t0);
	export_out_str(o, ",\"dur\":");
	export_out_usec(o, t1 - t0);
	export_out_str(o, ",\"cat\":\"");
	export_out_str(o, cat);
	export_out_str(o, "\",\"name\":");
	export_out_str(o, name_json);
	export_out_str(o, ",\"args\":{");
	export_out_str(o, args);
	export_out_str(o, "}}");
}

static int chrome_off_cpu(struct chrome *c, struct rdb *db, const struct report_options *o,
			  bool owner)
{
	char q[1024], args[256];
	sqlite3_stmt *st;
	int rc;

	snprintf(q, sizeof(q),
		 "SELECT s.task_id, k.name, s.t_out, s.t_in, s.state, s.cpu_out, s.cpu_in,"
		 " coalesce(s.call_id, 0), coalesce(s.wakeup_id, 0) FROM sched_interval s"
		 " JOIN sched_kind k USING (kind) WHERE s.t_in IS NOT NULL AND %%s%s ORDER BY s.id",
		 owner ? " AND s.call_id IN (SELECT id FROM call_base WHERE fnode_id IN sel_fnode)"
		       : "");
	if (!(st = export_prepare(db, o, q, "s.task_id", "s.t_out")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct track *t = task_track(c, sqlite3_column_int64(st, 0));
		char name[40];
		if (!t)
			continue;
		snprintf(name, sizeof(name), "\"%s\"", rdb_text(st, 1));
		snprintf(args, sizeof(args),
			 "\"state\":%lld,\"cpu_out\":%lld,\"cpu_in\":%lld,\"call\":%lld,"
			 "\"wakeup\":%lld",
			 sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
			 sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 7),
			 sqlite3_column_int64(st, 8));
		name_track(c, t, true);
		x_event(c, t->pid, 2 * SYNTH + t->tid, sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3), "off-cpu", name, args);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int chrome_irqs(struct chrome *c, struct rdb *db, const struct report_options *o, bool owner)
{
	char q[1024], args[256], *name;
	sqlite3_stmt *st;
	int rc;

	snprintf(
	    q, sizeof(q),
	    "SELECT i.cpu, k.name || coalesce(' ' || i.irq, '') || coalesce(' ' || i.name, ''),"
	    " i.t_start, i.t_end, i.task_id, coalesce(i.call_id, 0), k.name"
	    " FROM irq_interval i JOIN irq_kind k USING (kind) WHERE i.t_end IS NOT NULL AND"
	    " %%s%s ORDER BY i.cpu, i.t_start",
	    owner ? " AND i.call_id IN (SELECT id FROM call_base WHERE fnode_id IN sel_fnode)"
		  : "");
	if (!(st = export_prepare(db, o, q, "i.task_id", "i.t_start")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cpu = sqlite3_column_int64(st, 0);
		struct track *t = irq_track(c, cpu);
		if (!t || !(name = json_text(rdb_text(st, 1)))) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (!t->off_named) {
			char tn[48];
			snprintf(tn, sizeof(tn), "\"cpu %d interrupts\"", (int)cpu);
			name_track(c, t, false); /* the process's name, once */
			meta(c, SYNTH, SYNTH + 2 * cpu, "thread_name", tn, "");
			t->off_named = true;
		}
		snprintf(args, sizeof(args), "\"kind\":\"%s\",\"task\":%lld,\"call\":%lld",
			 rdb_text(st, 6), sqlite3_column_int64(st, 4),
			 sqlite3_column_int64(st, 5));
		x_event(c, SYNTH, SYNTH + 2 * cpu, sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3), "irq", name, args);
		free(name);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void track_release(struct track *t)
{
	free(t->name);
	free(t->st.open);
	free(t->sp.ev);
	free(t->sp.block);
}

static void chrome_release(struct chrome *c)
{
	progress_end(&c->pg);
	for (int i = 0; i < c->ntask; i++)
		track_release(&c->task[i]);
	for (int i = 0; i < c->nirq; i++)
		track_release(&c->irq[i]);
	for (int b = 0; b < 8; b++)
		free(c->flag[b]);
	free(c->task);
	free(c->irq);
	if (c->spool)
		fclose(c->spool);
	names_release(&c->n);
}

/*
 * The task speedscope opens on: the traced program's, the one whose entry
 * points (system calls, user functions) took the most time; else the one
 * whose root calls did.
 */
static int64_t traced_task(sqlite3 *sql)
{
	return export_one_int(sql, "SELECT c.task_id FROM call c JOIN func f ON f.id = c.func_id"
				   " WHERE c.depth = 0 AND c.flags & 56 = 0 AND " COMPLETE
				   " GROUP BY c.task_id ORDER BY max(f.kind IN (1, 3)) DESC,"
				   " sum(c.incl_ns) DESC LIMIT 1");
}

/* speedscope's head: its schema and the recording; the profiles follow. */
static void speedscope_head(struct chrome *c, const char *src)
{
	c->want_tid = traced_task(c->n.sql);
	export_out_str(c->ob, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		      "\"exporter\":\"darc " DARC_VERSION "\",\"name\":");
	export_out_str(c->ob, src);
	export_out_str(c->ob, ",\"profiles\":[");
}

/* --speedscope: @n events of a profile; *@at0 and *@at1 the first and last times. */
static void ss_events(struct chrome *c, const struct ssev *e, int n, int64_t *at0, int64_t *at1)
{
	struct obuf *o = c->ob;

	for (int i = 0; i < n; i++) {
		event_start(c);
		export_out_str(o, e[i].frame_open & 1 ? "{\"type\":\"O\",\"frame\":"
					      : "{\"type\":\"C\",\"frame\":");
		export_out_i64(o, e[i].frame_open >> 1);
		export_out_str(o, ",\"at\":");
		export_out_i64(o, e[i].at);
		export_out_str(o, "}");
		if (*at0 == INT64_MIN)
			*at0 = e[i].at;
		*at1 = e[i].at;
	}
}

/* --speedscope: the profile of @t's calls, from the spool file and its memory. 0 or -1. */
static int ss_profile(struct chrome *c, const struct track *t)
{
	struct ssev *blk = NULL;
	int64_t at0 = INT64_MIN, at1 = 0;
	char tid[32];

	if (!t->sp.n && !t->sp.nblock)
		return 0;
	if (t->sp.nblock && !(blk = malloc(SPOOL_BLOCK * sizeof(*blk))))
		return -1;
	snprintf(tid, sizeof(tid), t->pid == SYNTH ? "" : " [%" PRId64 "]", t->tid);
	export_out_str(c->ob, c->nprofile ? ",\n{\"type\":\"evented\",\"name\":"
				  : "\n{\"type\":\"evented\",\"name\":");
	open_string(c->ob, t->name);
	export_out_str(c->ob, tid);
	export_out_str(c->ob, "\",\"unit\":\"nanoseconds\",\"events\":[");
	if (t->pid != SYNTH && t->tid == c->want_tid)
		c->active = c->nprofile;
	c->nprofile++;
	c->first = true;
	for (int b = 0; b < t->sp.nblock; b++) {
		if (fseek(c->spool, t->sp.block[b], SEEK_SET) ||
		    fread(blk, sizeof(*blk), SPOOL_BLOCK, c->spool) != SPOOL_BLOCK) {
			free(blk);
			return -1;
		}
		ss_events(c, blk, SPOOL_BLOCK, &at0, &at1);
	}
	free(blk);
	ss_events(c, t->sp.ev, t->sp.n, &at0, &at1);
	export_out_str(c->ob, "],\"startValue\":");
	export_out_i64(c->ob, at0 == INT64_MIN ? 0 : at0);
	export_out_str(c->ob, ",\"endValue\":");
	export_out_i64(c->ob, at0 == INT64_MIN ? 0 : at1);
	export_out_str(c->ob, "}");
	return 0;
}

/* speedscope's tail: the profiles, the one it opens on, and the frames by func.id. */
static int speedscope_tail(struct chrome *c)
{
	for (int i = 0; i < c->ntask; i++)
		if (ss_profile(c, &c->task[i]))
			return -1;
	for (int i = 0; i < c->nirq; i++)
		if (ss_profile(c, &c->irq[i]))
			return -1;
	export_out_str(c->ob, "],\n\"activeProfileIndex\":");
	export_out_i64(c->ob, c->active);
	export_out_str(c->ob, ",\"shared\":{\"frames\":[");
	for (int64_t i = 0; i < c->n.nfunc; i++) {
		export_out_str(c->ob, i ? ",{\"name\":" : "{\"name\":");
		export_out_str(c->ob, c->n.func[i] ? c->n.func[i] : "\"?\"");
		export_out_str(c->ob, "}");
	}
	export_out_str(c->ob, "]}}\n");
	return 0;
}

static void chrome_tail(struct chrome *c, const char *src)
{
	struct obuf *o = c->ob;

	export_out_str(o, "\n],\n\"otherData\":{\"source\":");
	export_out_str(o, src);
	export_out_str(o, ",\"t0_ns\":");
	export_out_i64(o, c->t0);
	export_out_str(o, ",\"calls\":");
	export_out_i64(o, c->calls);
	export_out_str(o, ",\"left_out_incomplete\":");
	export_out_i64(o, c->incomplete);
	export_out_str(o, ",\"left_out_not_nested\":");
	export_out_i64(o, c->unnested);
	export_out_str(o, "}}\n");
}

/*
 * The calls as a timeline: Trace Event Format JSON (@ss false: B and E
 * events, off-CPU and interrupt intervals as X events), or speedscope's own
 * format (@ss: a profile of O and C events per task, and per CPU's
 * interrupt calls, frames shared by function, so that its left-heavy and
 * sandwich views add up the calls of a function).
 */
static int export_timeline(FILE *out, struct rdb *db, const struct report_options *o, bool owner,
			   bool ss, struct err_msg *err)
{
	struct chrome c = {.ob = malloc(sizeof(*c.ob)),
			   .n = {.sql = rdb_sql(db), .path = rdb_path(db)},
			   .t0 = rdb_t_first(db),
			   .first = true,
			   .ss = ss};
	char *src = json_text(rdb_source(db));
	int rc = -1;

	progress_start(&c.pg, "export", true);
	if (!c.ob || !src || load_funcs(&c.n, json_text) || load_tasks(&c) || export_load_flags(c.n.sql, c.flag)) {
		err_setf(err, c.n.path, "cannot read the functions and tasks: %s",
			 rdb_why(c.n.sql));
		goto out;
	}
	c.ob->out = out;
	c.ob->n = 0;
	if (ss)
		speedscope_head(&c, src);
	else
		export_out_str(c.ob, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	if (chrome_calls(&c, db, o, owner) ||
	    (!ss && (chrome_off_cpu(&c, db, o, owner) || chrome_irqs(&c, db, o, owner)))) {
		err_setf(err, c.n.path, "cannot read the calls: %s", rdb_why(c.n.sql));
		goto out;
	}
	if (ss && speedscope_tail(&c)) {
		err_setf(err, c.n.path, "cannot spool the calls to a temporary file: %s",
			 strerror(errno));
		goto out;
	}
	if (!ss)
		chrome_tail(&c, src);
	export_out_flush(c.ob);
	rc = 0;
out:
	free(src);
	free(c.ob);
	chrome_release(&c);
	return rc;
}

int export_report(FILE *out, struct rdb *db, const struct report_options *o,
		  const struct export_opts *x, struct err_msg *err)
{
	const struct call_selection *s = &o->sel;
	bool owner = s->func || s->fnode || s->path;
	int rc;

	if (x->metric < 0 || x->metric >= XM_METRICS)
		return err_setf(err, rdb_path(db), "bad metric");
	/*
	 * Each page is read once: a small cache, and no map of the file, keep the
	 * memory bounded.
	 */
	sqlite3_exec(rdb_sql(db), "PRAGMA mmap_size = 0; PRAGMA cache_size = -8192", NULL, NULL,
		     NULL);
	if (owner && rdb_select_fnodes(db, s, err) < 0)
		return -1;
	rc = x->format == EXPORT_FOLDED	 ? export_folded(out, db, o, x, owner, err)
	     : x->format == EXPORT_PERFETTO ? perfetto_export(out, db, o, owner, err)
					    : export_timeline(out, db, o, owner,
							      x->format == EXPORT_SPEEDSCOPE, err);
	if (!rc && (fflush(out) || ferror(out)))
		rc = err_setf(err, rdb_path(db), "cannot write the export");
	return rc;
}
