// SPDX-License-Identifier: MIT
/*
 * darc export: a database as files other tools open. Folded stacks
 * (flamegraph.pl, speedscope): the weights are summed in SQL per (task,
 * fnode), so only the fnode tree and the function names are held. Trace
 * Event Format JSON (Perfetto, chrome://tracing, speedscope): the calls are
 * read thread by thread in the order of entry (SQLite sorts them, spilling
 * to temporary files, or reads index call_task_entry when there is one) and
 * the thread's open calls wait on a stack for their E event; the intervals
 * follow, as X events.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "progress.h"
#include "report.h"
#include "vis.h"
#include "jtext.h"

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
	sqlite3 *sql;	  /* the database's read connection (schema/read.h) */
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
	for (int64_t i = 0; n->func && i < n->nfunc; i++)
		free(n->func[i]);
	free(n->func);
	free(n->parent);
	free(n->fn_func);
	free(n->stack);
}

/* The integer that query @q gives (0 if none). */
static int64_t one_int(sqlite3 *sql, const char *q)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (sqlite3_prepare_v2(sql, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
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
	sqlite3_stmt *st;
	int rc;

	n->nfunc = one_int(n->sql, "SELECT max(id) FROM func") + 1;
	n->func = calloc(n->nfunc, sizeof(*n->func));
	if (!n->func || sqlite3_prepare_v2(n->sql, "SELECT id, name FROM func", -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id >= 0 && id < n->nfunc && !n->func[id] &&
		    !(n->func[id] = conv(rdb_text(st, 1))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_fnodes(struct names *n)
{
	sqlite3_stmt *st;
	int rc;

	n->nfnode = one_int(n->sql, "SELECT max(id) FROM fnode") + 1;
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
static void folded_sql(const struct ropt *o, const struct export_opts *x, bool owner, char *q,
		       size_t n)
{
	static const char *const root[] = {[EXPORT_ROOT_NONE] = "NULL",
					   [EXPORT_ROOT_COMM] = "coalesce(t.comm, '?')",
					   [EXPORT_ROOT_TID] =
					       "coalesce(t.comm, '?') || '-' || c.task_id"};
	static const char *const kinds[XM_METRICS] = {
	    [XM_PREEMPT] = "w.kind = 0", [XM_BLOCKED] = "w.kind = 1", [XM_OFFCPU] = "1"};
	const struct rsel *s = &o->sel;
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

static int export_folded(FILE *out, struct rdb *db, const struct ropt *o,
			 const struct export_opts *x, bool owner, struct fmt_err *err)
{
	struct names n = {.sql = rdb_sql(db), .path = rdb_path(db)};
	sqlite3_stmt *st = NULL;
	char q[1536];
	int rc = -1;

	if (x->off_cpu && x->metric != XM_BLOCKED && x->metric != XM_PREEMPT &&
	    x->metric != XM_OFFCPU)
		return fmt_errf(err, n.path,
				"--off-cpu weighs blocked, preempt or offcpu time, not %s",
				export_metric_name(x->metric));
	folded_sql(o, x, owner, q, sizeof(q));
	if (load_funcs(&n, stored_name) || load_fnodes(&n) ||
	    sqlite3_prepare_v2(n.sql, q, -1, &st, NULL) != SQLITE_OK ||
	    (sqlite3_bind_parameter_count(st) && rdb_bind_filters(st, &o->sel, rdb_t_first(db)))) {
		fmt_errf(err, n.path, "cannot read the stacks: %s", rdb_why(n.sql));
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
		 : fmt_errf(err, n.path, "cannot read the stacks: %s", rdb_why(n.sql));
out:
	sqlite3_finalize(st);
	names_release(&n);
	return rc;
}

/* ---- Trace Event Format ---------------------------------------------------- */

struct ccall { /* a call, as its B and E events show it */
	int64_t id, func, cpu; /* call.id, func.id, the CPU of its entry */
	int64_t t_entry, t_exit, flags; /* ns, and call.flags */
	int64_t ns[7]; /* incl, excl, children, irq, softirq, preempt, blocked */
};

struct track { /* a thread of the JSON: a task's calls, or a CPU's irq calls */
	int64_t pid, tid; /* the JSON's: the task's, or ids from SYNTH for a CPU's irq calls */
	char *name;	/* JSON string */
	bool named;	/* its M events are written */
	bool off_named; /* those of its sibling: the task's off-CPU or the CPU's interrupts */
	struct ccall *open; /* its calls begun and not yet ended, outermost first */
	int nopen, cap;
};

/* A Trace Event Format export being written. */
struct chrome {
	FILE *out;
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
	bool in_profile;   /* a profile's events are open */
	int nprofile;	   /* profiles begun */
	int active;	   /* the one speedscope opens on: the traced program's */
	int64_t want_tid;  /* its task */
	int64_t at0, at1;  /* the open profile's first and last event */
	struct progress pg; /* "darc: export: 1.2 M calls" on a terminal */
};

static const char *const part_name[7] = {"incl_ns",    "excl_ns",    "children_ns", "irq_ns",
					 "softirq_ns", "preempt_ns", "blocked_ns"};

/* @v ns in microseconds, the ns as decimals. */
static const char *usec(int64_t v, char *buf, size_t n)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	snprintf(buf, n, "%s%" PRIu64 ".%03u", v < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
	return buf;
}

static void event_start(struct chrome *c)
{
	fputs(c->first ? "\n" : ",\n", c->out);
	c->first = false;
}

static void meta(struct chrome *c, int64_t pid, int64_t tid, const char *what, const char *name,
		 const char *suffix)
{
	event_start(c);
	fprintf(c->out,
		"{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"name\":\"%s\","
		"\"args\":{\"name\":%.*s%s\"}}",
		pid, tid, what, (int)strlen(name) - 1, name, suffix);
}

static struct track *task_track(struct chrome *c, int64_t tid)
{
	int lo = 0, hi = c->ntask - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (c->task[mid].tid == tid)
			return &c->task[mid];
		if (c->task[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/* --speedscope: close the open profile, with the span of its events. */
static void profile_end(struct chrome *c)
{
	if (!c->in_profile)
		return;
	fprintf(c->out, "],\"startValue\":%" PRId64 ",\"endValue\":%" PRId64 "}",
		c->at0 == INT64_MIN ? 0 : c->at0, c->at0 == INT64_MIN ? 0 : c->at1);
	c->in_profile = false;
}

/* --speedscope: the profile of @t's calls (each track's calls come together). */
static void profile_begin(struct chrome *c, const struct track *t)
{
	char tid[32];

	profile_end(c);
	snprintf(tid, sizeof(tid), t->pid == SYNTH ? "" : " [%" PRId64 "]", t->tid);
	fprintf(c->out, "%s\n{\"type\":\"evented\",\"name\":%.*s%s\",\"unit\":\"nanoseconds\","
		"\"events\":[", c->nprofile ? "," : "", (int)strlen(t->name) - 1, t->name, tid);
	if (t->pid != SYNTH && t->tid == c->want_tid)
		c->active = c->nprofile;
	c->nprofile++;
	c->in_profile = true;
	c->first = true;
	c->at0 = INT64_MIN;
}

/* The M events of a track the first time it is used (@off: its off-CPU track). */
static void name_track(struct chrome *c, struct track *t, bool off)
{
	if (off ? t->off_named : t->named)
		return;
	if (c->ss) {
		profile_begin(c, t);
		t->named = true;
		return;
	}
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

static void call_event(struct chrome *c, struct track *t, const struct ccall *k, bool begin)
{
	char ts[32];

	event_start(c);
	if (c->ss) {
		int64_t at = (begin ? k->t_entry : k->t_exit) - c->t0;
		fprintf(c->out, "{\"type\":\"%c\",\"frame\":%" PRId64 ",\"at\":%" PRId64 "}",
			begin ? 'O' : 'C', k->func, at);
		if (c->at0 == INT64_MIN)
			c->at0 = at;
		c->at1 = at;
		return;
	}
	fprintf(c->out,
		"{\"ph\":\"%c\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%s,\"cat\":\"call\","
		"\"name\":%s,\"args\":{\"call\":%" PRId64 ",\"cpu\":%" PRId64,
		begin ? 'B' : 'E', t->pid, t->tid,
		usec((begin ? k->t_entry : k->t_exit) - c->t0, ts, 32), func_name(&c->n, k->func),
		k->id, k->cpu);
	for (int i = 0; i < 7; i++)
		fprintf(c->out, ",\"%s\":%" PRId64, part_name[i], k->ns[i]);
	if (k->flags) {
		fputs(",\"flags\":\"", c->out);
		for (int b = 0, sep = 0; b < 8; b++)
			if (k->flags & (1 << b))
				fprintf(c->out, "%s%s", sep++ ? "|" : "",
					c->flag[b] ? c->flag[b] : "?");
		fputc('"', c->out);
	}
	fputs("}}", c->out);
}

/* Close @t's open calls that ended by @t_entry (all with INT64_MAX), but not @keep. */
static void pop_until(struct chrome *c, struct track *t, int64_t t_entry, int64_t keep)
{
	while (t->nopen && t->open[t->nopen - 1].t_exit <= t_entry &&
	       t->open[t->nopen - 1].id != keep)
		call_event(c, t, &t->open[--t->nopen], false);
}

static int push_call(struct chrome *c, struct track *t, const struct ccall *k, int64_t parent)
{
	pop_until(c, t, k->t_entry, parent);
	if (t->nopen && k->t_exit > t->open[t->nopen - 1].t_exit) {
		c->unnested++; /* times that cannot nest (a damaged recording): left out */
		return 0;
	}
	if (t->nopen == t->cap) {
		struct ccall *a = realloc(t->open, (2 * t->cap + 16) * sizeof(*a));
		if (!a)
			return -1;
		t->open = a;
		t->cap = 2 * t->cap + 16;
	}
	t->open[t->nopen++] = *k;
	name_track(c, t, false);
	call_event(c, t, k, true);
	c->calls++;
	return 0;
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
	sqlite3_stmt *st;
	int rc, n = 0;

	c->ntask = (int)one_int(c->n.sql, "SELECT count(*) FROM task");
	c->task = calloc(c->ntask + 1, sizeof(*c->task));
	if (!c->task || sqlite3_prepare_v2(c->n.sql,
					   "SELECT tid, coalesce(pid, tid), coalesce(comm, '?')"
					   " FROM task ORDER BY tid",
					   -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < c->ntask) {
		struct track *t = &c->task[n++];
		t->tid = sqlite3_column_int64(st, 0);
		t->pid = sqlite3_column_int64(st, 1);
		if (!(t->name = json_text(rdb_text(st, 2))))
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	c->ntask = n;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static int load_flags(struct chrome *c)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(c->n.sql, "SELECT bit, name FROM call_flag", -1, &st, NULL))
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t bit = sqlite3_column_int64(st, 0);
		for (int b = 0; b < 8; b++)
			if (bit == 1 << b && !c->flag[b])
				c->flag[b] = strdup(rdb_text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}

/* Prepare @q (with a %s for the filters on @task_col and @time_col) and bind @o's filters. */
static sqlite3_stmt *prepare(struct chrome *c, struct rdb *db, const struct ropt *o, const char *q,
			     const char *task_col, const char *time_col)
{
	char filter[320], sql[1536];
	sqlite3_stmt *st;

	rdb_filter_sql(task_col, time_col, filter, sizeof(filter));
	snprintf(sql, sizeof(sql), q, filter);
	if (sqlite3_prepare_v2(c->n.sql, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (rdb_bind_filters(st, &o->sel, rdb_t_first(db))) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static void read_call(sqlite3_stmt *st, struct ccall *k)
{
	k->id = sqlite3_column_int64(st, 0);
	k->func = sqlite3_column_int64(st, 2);
	k->cpu = sqlite3_column_int64(st, 3);
	k->t_entry = sqlite3_column_int64(st, 4);
	k->t_exit = sqlite3_column_int64(st, 5);
	k->flags = sqlite3_column_int64(st, 6);
	for (int i = 0; i < 7; i++)
		k->ns[i] = sqlite3_column_int64(st, 8 + i);
}

/*
 * The calls of the tasks' threads (@irq false: ordered by task and entry) or
 * of the CPUs' irq threads (ordered by CPU and entry), so that one thread's
 * stack is open at a time: an E is written when a later call begins after
 * its exit, or when the thread ends.
 */
static int chrome_calls(struct chrome *c, struct rdb *db, const struct ropt *o, bool owner,
			bool irq)
{
	char q[1024];
	sqlite3_stmt *st;
	struct track *t = NULL;
	int64_t tkey = 0;
	int rc;

	snprintf(q, sizeof(q),
		 "SELECT c.id, c.task_id, c.func_id, c.cpu, c.t_entry, c.t_exit, c.flags,"
		 " coalesce(c.parent_id, 0), c.incl_ns, c.excl_ns, c.children_ns, c.irq_ns,"
		 " c.softirq_ns, c.preempt_ns, c.blocked_ns, " COMPLETE " FROM call c"
		 " WHERE c.flags & 56 %s 0 AND %%s%s ORDER BY c.%s, c.t_entry, c.depth, c.id",
		 irq ? "!=" : "=", owner ? " AND c.fnode_id IN sel_fnode" : "",
		 irq ? "cpu" : "task_id");
	if (!(st = prepare(c, db, o, q, "c.task_id", "c.t_entry")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ccall k;
		int64_t key;
		if (!sqlite3_column_int(st, 15)) {
			c->incomplete++; /* no time to show it at: left out */
			continue;
		}
		read_call(st, &k);
		key = irq ? k.cpu : sqlite3_column_int64(st, 1);
		if (!t ||
		    key != tkey) { /* the next thread: close the last (irq_track() may move it) */
			if (t)
				pop_until(c, t, INT64_MAX, 0);
			t = irq ? irq_track(c, key) : task_track(c, key);
			tkey = key;
		}
		if (t && push_call(c, t, &k, sqlite3_column_int64(st, 7))) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (!(c->calls & 0xfff) && progress_due(&c->pg))
			progress_show(&c->pg, "%.1f M calls", c->calls / 1e6);
	}
	sqlite3_finalize(st);
	if (t)
		pop_until(c, t, INT64_MAX, 0);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* One X event: @name_json a JSON string, @args the members of args (text). */
static void x_event(struct chrome *c, int64_t pid, int64_t tid, int64_t t0, int64_t t1,
		    const char *cat, const char *name_json, const char *args)
{
	char a[32], b[32];

	event_start(c);
	fprintf(c->out,
		"{\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%s,\"dur\":%s,"
		"\"cat\":\"%s\",\"name\":%s,\"args\":{%s}}",
		pid, tid, usec(t0 - c->t0, a, 32), usec(t1 - t0, b, 32), cat, name_json, args);
}

static int chrome_off_cpu(struct chrome *c, struct rdb *db, const struct ropt *o, bool owner)
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
	if (!(st = prepare(c, db, o, q, "s.task_id", "s.t_out")))
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

static int chrome_irqs(struct chrome *c, struct rdb *db, const struct ropt *o, bool owner)
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
	if (!(st = prepare(c, db, o, q, "i.task_id", "i.t_start")))
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

static void chrome_release(struct chrome *c)
{
	progress_end(&c->pg);
	for (int i = 0; i < c->ntask; i++) {
		free(c->task[i].name);
		free(c->task[i].open);
	}
	for (int i = 0; i < c->nirq; i++) {
		free(c->irq[i].name);
		free(c->irq[i].open);
	}
	for (int b = 0; b < 8; b++)
		free(c->flag[b]);
	free(c->task);
	free(c->irq);
	names_release(&c->n);
}

/*
 * The task speedscope opens on: the traced program's, the one whose entry
 * points (system calls, user functions) took the most time; else the one
 * whose root calls did.
 */
static int64_t traced_task(sqlite3 *sql)
{
	return one_int(sql, "SELECT c.task_id FROM call c JOIN func f ON f.id = c.func_id"
			    " WHERE c.depth = 0 AND c.flags & 56 = 0 AND " COMPLETE
			    " GROUP BY c.task_id ORDER BY max(f.kind IN (1, 3)) DESC,"
			    " sum(c.incl_ns) DESC LIMIT 1");
}

/* speedscope's head: its schema and the recording; the profiles follow. */
static void speedscope_head(struct chrome *c, const char *src)
{
	c->want_tid = traced_task(c->n.sql);
	fprintf(c->out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			"\"exporter\":\"darc " DARC_VERSION "\",\"name\":%s,\"profiles\":[", src);
}

/* speedscope's tail: the profile it opens on, and the frames by func.id. */
static void speedscope_tail(struct chrome *c)
{
	profile_end(c);
	fprintf(c->out, "],\n\"activeProfileIndex\":%d,\"shared\":{\"frames\":[", c->active);
	for (int64_t i = 0; i < c->n.nfunc; i++)
		fprintf(c->out, "%s{\"name\":%s}", i ? "," : "",
			c->n.func[i] ? c->n.func[i] : "\"?\"");
	fputs("]}}\n", c->out);
}

/*
 * The calls as a timeline: Trace Event Format JSON (@ss false: B and E
 * events, off-CPU and interrupt intervals as X events), or speedscope's own
 * format (@ss: a profile of O and C events per task, and per CPU's
 * interrupt calls, frames shared by function, so that its left-heavy and
 * sandwich views add up the calls of a function).
 */
static int export_timeline(FILE *out, struct rdb *db, const struct ropt *o, bool owner, bool ss,
			   struct fmt_err *err)
{
	struct chrome c = {.out = out,
			   .n = {.sql = rdb_sql(db), .path = rdb_path(db)},
			   .t0 = rdb_t_first(db),
			   .first = true,
			   .ss = ss};
	char *src = json_text(rdb_source(db));
	int rc = -1;

	if (!src || load_funcs(&c.n, json_text) || load_tasks(&c) || load_flags(&c)) {
		fmt_errf(err, c.n.path, "cannot read the functions and tasks: %s",
			 rdb_why(c.n.sql));
		goto out;
	}
	if (ss)
		speedscope_head(&c, src);
	else
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	progress_start(&c.pg, "export", true);
	if (chrome_calls(&c, db, o, owner, false) || chrome_calls(&c, db, o, owner, true) ||
	    (!ss && (chrome_off_cpu(&c, db, o, owner) || chrome_irqs(&c, db, o, owner)))) {
		fmt_errf(err, c.n.path, "cannot read the calls: %s", rdb_why(c.n.sql));
		goto out;
	}
	if (ss)
		speedscope_tail(&c);
	else
		fprintf(out,
			"\n],\n\"otherData\":{\"source\":%s,\"t0_ns\":%" PRId64
			",\"calls\":%" PRId64 ",\"left_out_incomplete\":%" PRId64
			",\"left_out_not_nested\":%" PRId64 "}}\n",
			src, c.t0, c.calls, c.incomplete, c.unnested);
	rc = 0;
out:
	free(src);
	chrome_release(&c);
	return rc;
}

int report_export(FILE *out, struct rdb *db, const struct ropt *o, const struct export_opts *x,
		  struct fmt_err *err)
{
	const struct rsel *s = &o->sel;
	bool owner = s->func || s->fnode || s->path;
	int rc;

	if (x->metric < 0 || x->metric >= XM_METRICS)
		return fmt_errf(err, rdb_path(db), "bad metric");
	/*
	 * Each page is read once: a small cache, and no map of the file, keep the
	 * memory bounded (SQLite's sorter spills to temporary files beyond the
	 * cache); on 3 M calls, 29 MB at the peak instead of 175 MB, and no slower.
	 */
	sqlite3_exec(rdb_sql(db), "PRAGMA mmap_size = 0; PRAGMA cache_size = -8192", NULL, NULL,
		     NULL);
	if (owner && rdb_select_fnodes(db, s, err) < 0)
		return -1;
	rc = x->format == EXPORT_FOLDED ? export_folded(out, db, o, x, owner, err)
					: export_timeline(out, db, o, owner,
							  x->format == EXPORT_SPEEDSCOPE, err);
	if (!rc && (fflush(out) || ferror(out)))
		rc = fmt_errf(err, rdb_path(db), "cannot write the export");
	return rc;
}
