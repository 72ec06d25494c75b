// SPDX-License-Identifier: MIT
#include "explain-chain.h"
#include "explain-wake.h"
#include "grow.h"
#include "jtext.h"
#include "paths.h"
#include "waits.h"
#include "wake-words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/*
 * An off-CPU interval (si: sched_interval) and what ended it (k: its
 * wake-up): 0 t_out, 1 t_in, 2 preempted, 3 the wake-up, 4 its context, 5
 * the waking task, 6 the waker's innermost function, 7 the waker's CPU, 8
 * the task's bios completed in it, 9 the interrupt as a label ("irq 25
 * (virtio0-req.0)"), 10 its handler, 11 a bio of the task queued in the
 * 100 ms before it and never completed in the recording, 12 the task, 13
 * no wake-up recorded, 14 the waker's innermost call. An interrupt is the
 * handler running at the wake-up,
 * else the innermost interrupt episode then on that CPU (irq-episode.h).
 */
#define EPISODE(what)                                                                           \
	"(SELECT " what " FROM irq_interval i WHERE i.id = irq_episode(k.waker_cpu, k.t))"
#define OFF_COLS                                                                                \
	"si.t_out, coalesce(si.t_in, 9223372036854775807), si.kind = 0,"                        \
	" coalesce(k.t, si.t_in, 9223372036854775807), k.ctx, k.waker_tid, wf.name,"           \
	" k.waker_cpu, (SELECT count(*) FROM bio b WHERE b.task_id = si.task_id"                \
	" AND b.t_complete >= si.t_out AND b.t_complete <= k.t),"                               \
	" CASE WHEN k.ctx = 2 THEN 'softirq ' || k.handler"                                     \
	" WHEN k.handler IS NOT NULL THEN coalesce('irq ' || (SELECT hn.irq FROM hn"             \
	" WHERE hn.name = k.handler) || ' ', '')"                                               \
	" || '(' || k.handler || ')' ELSE " EPISODE("coalesce('irq ' || i.irq || ' ', '') || '(' || i.name || ')'") " END,"                                     \
	" coalesce(k.handler, " EPISODE("i.name") "), EXISTS (SELECT 1 FROM bio b"                        \
	" WHERE b.task_id = si.task_id AND b.t_complete IS NULL"                                \
	" AND b.t_queue BETWEEN si.t_out - 100000000 AND si.t_out), si.task_id, k.id IS NULL,"   \
	" k.waker_call_id"
#define OFF_JOINS                                                                               \
	" LEFT JOIN wakeup k ON k.id = si.wakeup_id"                                            \
	" LEFT JOIN call_base wc ON wc.id = k.waker_call_id"                                   \
	" LEFT JOIN fnode wn ON wn.id = wc.fnode_id LEFT JOIN func wf ON wf.id = wn.func_id"

/* The sleeps of the search's calls at fnode ?1 (-1: of the f0 calls themselves). */
static const char sleeps_fmt[] =
    "WITH " PATHS_HANDLER_IRQS " SELECT " OFF_COLS " FROM sched_interval si JOIN sr_sub s ON s.id = si.call_id"
    OFF_JOINS " WHERE si.kind = 1 AND (s.fnode = ?1 OR (?1 = -1 AND s.parent IS NULL))"
    " ORDER BY si.t_out";
/* A task's times off CPU that the recording does not show. */
static const char gaps_sql[] =
    "SELECT t_from, coalesce(t_to, 9223372036854775807) FROM sched_gap WHERE task_id = ?1"
    " ORDER BY t_from";
/* A task's off-CPU intervals. */
static const char task_fmt[] =
    "WITH " PATHS_HANDLER_IRQS " SELECT " OFF_COLS " FROM sched_interval si" OFF_JOINS " WHERE si.task_id = ?1"
    " ORDER BY si.t_out";

/*
 * Kernel functions that wake another task: a call of one by another task,
 * begun on another CPU just before a remote wake-up, is what queued it; and
 * of a waker's calls open at a wake-up, the outermost of them names it.
 */
#define WAKING_FUNCS                                                                            \
	"('futex_wake', 'futex_wake_op', 'futex_requeue', 'wake_up_q', 'wake_up_process',"     \
	" 'wake_up_state', 'try_to_wake_up', '__wake_up', '__wake_up_common',"                 \
	" '__wake_up_common_lock', '__wake_up_sync_key', '__wake_up_locked_key', 'complete',"  \
	" 'complete_all', 'pipe_write', '__mutex_unlock_slowpath', 'rwsem_wake', 'up',"        \
	" 'up_read', 'up_write', 'ttwu_queue_wakelist', '__smp_call_single_queue',"            \
	" 'send_call_function_single_ipi')"
/*
 * (The waking functions' fnodes first, few, each call joined to them, the
 * calls outside: call_base has no index by fnode. Joining every call to
 * its fnode and function took half again as long on a million calls.)
 */
static const char wakers_sql[] =
    "WITH w(id, name) AS MATERIALIZED (SELECT n.id, f.name FROM fnode n"
    "  JOIN func f ON f.id = n.func_id WHERE f.name IN " WAKING_FUNCS ")"
    " SELECT c.t_entry, c.cpu, c.task_id, w.name FROM call_base c CROSS JOIN w"
    " ON w.id = c.fnode_id WHERE c.t_entry IS NOT NULL ORDER BY c.t_entry";
/*
 * Whether any waking function was traced: if none was (a filtered
 * function_graph, often), no call is read for them (wakers_sql scans every
 * call even then: 0.17 s of darc explain's 0.66 s on bench-v6's 2.8 M).
 */
static const char waking_traced_sql[] =
    "SELECT EXISTS (SELECT 1 FROM fnode n JOIN func f ON f.id = n.func_id"
    " WHERE f.name IN " WAKING_FUNCS ")";
/*
 * The calls open in a waker at a wake-up, innermost first: each function,
 * whether it wakes tasks, and whether it is the tracer's own (a tracepoint's
 * iterator, as __traceiter_sched_waking, names nothing the code did).
 */
static const char waker_calls_sql[] =
    "WITH RECURSIVE up(id, parent, d) AS (SELECT id, parent_id, 0 FROM call_base WHERE id = ?1"
    " UNION ALL SELECT c.id, c.parent_id, up.d + 1 FROM up JOIN call_base c ON c.id = up.parent)"
    " SELECT f.name, f.name IN " WAKING_FUNCS ", f.overhead OR f.name LIKE '\\_\\_traceiter\\_%'"
    " ESCAPE '\\' OR f.name LIKE 'trace\\_%' ESCAPE '\\'"
    " FROM up JOIN call_base c ON c.id = up.id JOIN fnode n ON n.id = c.fnode_id"
    " JOIN func f ON f.id = n.func_id ORDER BY up.d";

/* A call of a waking function. */
struct waker_call {
	int64_t t, cpu, task;
	const char *name;
};

/* A task's intervals, loaded once. */
struct task_offs {
	int64_t tid;
	struct chain_off *v;
	int n;
	int64_t *gap; /* its sched_gaps: from, to (INT64_MAX: not seen again), by from */
	int ngap;
};

/* One cause's walk over the database: what it loaded, and what it could not name. */
struct wload {
	struct rdb *db;
	struct task_offs *t;
	int nt, tcap;
	char **str; /* the names the intervals point to, each once */
	int nstr, scap;
	struct waker_call *wc; /* the waking calls, by time; loaded when first needed */
	int nwc, wccap;
	bool wc_loaded;
	int64_t unknown, idle, pending; /* intervals ended unnamed; on idle CPUs; after a lost bio */
	int lossy; /* the recording lost events: -1 not asked yet, 0 no, 1 yes */
	bool failed;
};

/* Of a cause's own sleeps: those an interrupt the recording does not name ended. */
struct unnamed {
	int64_t wakeups, idle, pending; /* as struct wload's */
};

/* @s kept as long as @l (each name once), or NULL. */
static const char *intern(struct wload *l, const char *s)
{
	if (!s)
		return NULL;
	for (int i = 0; i < l->nstr; i++)
		if (!strcmp(l->str[i], s))
			return l->str[i];
	if (GROW(l->str, l->nstr, l->scap, 16) || !(l->str[l->nstr] = strdup(s))) {
		l->failed = true;
		return NULL;
	}
	return l->str[l->nstr++];
}

static bool timer_name(const char *h)
{
	return h && (!strcmp(h, "TIMER") || !strcmp(h, "HRTIMER") || strstr(h, "timer"));
}

/* An IPI's vector: a wake-up another CPU queued, carried out here. */
static bool ipi_name(const char *h)
{
	return h && (strstr(h, "call_function") || strstr(h, "reschedule"));
}

static int load_waker_calls(struct wload *l)
{
	sqlite3_stmt *st;
	bool traced;
	int rc;

	l->wc_loaded = true;
	if (sqlite3_prepare_v2(rdb_sql(l->db), waking_traced_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	traced = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return -1;
	if (!traced)
		return 0;
	if (sqlite3_prepare_v2(rdb_sql(l->db), wakers_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(l->wc, l->nwc, l->wccap, 64))
		l->wc[l->nwc++] = (struct waker_call){
		    sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		    sqlite3_column_int64(st, 2), intern(l, (const char *)sqlite3_column_text(st, 3))};
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The waking call that queued a remote wake-up of task @woken at @t on CPU
 * @cpu: the latest begun by another task on another CPU within
 * WAKE_REMOTE_SLACK before it; NULL if none.
 */
static const struct waker_call *remote(struct wload *l, int64_t woken, int64_t cpu, int64_t t)
{
	int lo = 0, hi;

	if (!l->wc_loaded && load_waker_calls(l))
		l->failed = true;
	for (hi = l->nwc; lo < hi;) { /* the first begun after t */
		int mid = (lo + hi) / 2;
		if (l->wc[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int k = lo - 1; k >= 0 && l->wc[k].t >= t - WAKE_REMOTE_SLACK; k--)
		if (l->wc[k].task != woken && l->wc[k].cpu != cpu)
			return &l->wc[k];
	return NULL;
}

/*
 * What ended a sleep that no task in task context ended: a timer, a softirq
 * or a named interrupt by its event; a remote wake-up (an IPI, or the idle
 * task acting for another CPU) by the waking call that queued it; else an
 * interrupt the recording does not name.
 */
static void not_by_task(struct wload *l, sqlite3_stmt *st, struct chain_off *o)
{
	const char *handler = (const char *)sqlite3_column_text(st, 10);
	int ctx = sqlite3_column_int(st, 4);
	const struct waker_call *w;

	if (ctx != 0 && timer_name(handler)) {
		o->end = CH_TIMER;
		o->what = intern(l, handler);
	} else if (handler && (ctx == 2 || (ctx == 1 && !ipi_name(handler)))) {
		o->end = ctx == 2 ? CH_SOFTIRQ : CH_IRQ;
		o->what = intern(l, (const char *)sqlite3_column_text(st, 9));
	} else if (ctx != 2 && (w = remote(l, sqlite3_column_int64(st, 12),
					   sqlite3_column_int64(st, 7), o->t_wake))) {
		o->end = CH_WAKER;
		o->waker = w->task;
		o->what = w->name;
		o->lag = o->t_wake - w->t;
	} else {
		o->end = CH_UNKNOWN;
		o->what = intern(l, handler ? (const char *)sqlite3_column_text(st, 9) : NULL);
		l->unknown++;
		l->idle += sqlite3_column_int64(st, 5) == 0;
		l->pending += sqlite3_column_int(st, 11);
	}
}

/* The row of OFF_COLS at @st as an interval, what ended it classified. */
static struct chain_off row_off(struct wload *l, sqlite3_stmt *st)
{
	struct chain_off o = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
			   sqlite3_column_int(st, 2), sqlite3_column_int64(st, 3), CH_NOWAKE};

	if (o.preempted || sqlite3_column_int(st, 13))
		return o;
	if ((o.bios = sqlite3_column_int64(st, 8)) > 0) {
		o.end = CH_DISK; /* and the interrupt that carried the wake-up, where named */
		if (sqlite3_column_int(st, 4) != 0)
			o.what = intern(l, (const char *)sqlite3_column_text(st, 9));
	} else if (sqlite3_column_int(st, 4) == 0 && sqlite3_column_int64(st, 5) != 0) {
		o.end = CH_WAKER;
		o.waker = sqlite3_column_int64(st, 5);
		o.what = intern(l, (const char *)sqlite3_column_text(st, 6));
		o.call = sqlite3_column_int64(st, 14);
	} else {
		not_by_task(l, st, &o);
	}
	return o;
}

/* The rows of @sql (?1 = @arg) as intervals into *@v. Their number, or -1. */
static int load_offs(struct wload *l, const char *sql, int64_t arg, struct chain_off **v)
{
	sqlite3_stmt *st;
	int n = 0, cap = 0, rc;

	*v = NULL;
	if (sqlite3_prepare_v2(rdb_sql(l->db), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, arg);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(*v, n, cap, 64))
		(*v)[n++] = row_off(l, st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE && !l->failed ? n : -1;
}

/* Task @tid's sched_gaps into @t. 0, or -1. */
static int load_gaps(struct wload *l, int64_t tid, struct task_offs *t)
{
	sqlite3_stmt *st;
	int cap = 0, rc;

	if (sqlite3_prepare_v2(rdb_sql(l->db), gaps_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, tid);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(t->gap, 2 * t->ngap + 1, cap, 16)) {
		t->gap[2 * t->ngap] = sqlite3_column_int64(st, 0);
		t->gap[2 * t->ngap++ + 1] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Task @tid's intervals and gaps, from the database once; NULL on failure. */
static struct task_offs *task_of(struct wload *l, int64_t tid)
{
	struct task_offs *t;

	for (int i = 0; i < l->nt; i++)
		if (l->t[i].tid == tid)
			return &l->t[i];
	if (GROW(l->t, l->nt, l->tcap, 8))
		return NULL;
	t = &l->t[l->nt];
	*t = (struct task_offs){tid, NULL, 0, NULL, 0};
	t->n = load_offs(l, task_fmt, tid, &t->v);
	if (t->n < 0 || load_gaps(l, tid, t)) {
		free(t->v);
		free(t->gap);
		return NULL;
	}
	l->nt++;
	return t;
}

/* chain_source.offs: task @tid's intervals. */
static int task_offs(void *ctx, int64_t tid, const struct chain_off **out)
{
	struct task_offs *t = task_of(ctx, tid);

	if (!t)
		return -1;
	*out = t->v;
	return t->n;
}

/* Did the recording lose events (where a switch may have gone)? -1 if it cannot tell. */
static int lossy(struct wload *l)
{
	sqlite3_stmt *st;

	if (l->lossy >= 0)
		return l->lossy;
	if (sqlite3_prepare_v2(rdb_sql(l->db), "SELECT coalesce(lost_events, 0) +"
			       " coalesce(lost_marks, 0) > 0 FROM recording", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	l->lossy = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return l->lossy;
}

/*
 * chain_source.unseen: are switches of task @tid missing over [@lo, @hi)? In
 * a recording that lost no events a sched_gap means a pid filter that does
 * not follow the task: none of its time is known, whatever the times (a
 * window without a gap of it shows only that no other task's event came on
 * its CPU). With lost events, the gaps that meet the window.
 */
static int task_unseen(void *ctx, int64_t tid, int64_t lo, int64_t hi)
{
	struct wload *l = ctx;
	struct task_offs *t = task_of(l, tid);
	int lost = lossy(l);

	if (!t || lost < 0)
		return -1;
	if (!lost)
		return t->ngap > 0;
	for (int k = 0; k < t->ngap && t->gap[2 * k] < hi; k++)
		if (t->gap[2 * k + 1] > lo)
			return 1;
	return 0;
}

static void wload_free(struct wload *l)
{
	for (int i = 0; i < l->nt; i++) {
		free(l->t[i].v);
		free(l->t[i].gap);
	}
	for (int i = 0; i < l->nstr; i++)
		free(l->str[i]);
	free(l->t);
	free(l->str);
	free(l->wc);
}

/* ---- the answer ---- */

static const char *kind_name(int kind)
{
	static const char *const n[] = {"waker",   "running", "preempted", "run delay",
					"disk",	   "timer",   "irq",	   "softirq",
					"unknown", "no wake-up", "unseen", "deeper"};
	return kind >= 0 && kind <= CH_DEEPER ? n[kind] : "?";
}

/* "comm [tid]" of task @tid. */
static json_t *task_name(struct rdb *db, int64_t tid)
{
	sqlite3_stmt *st;
	char buf[128];

	snprintf(buf, sizeof(buf), "tid [%lld]", (long long)tid);
	if (sqlite3_prepare_v2(rdb_sql(db), "SELECT comm FROM task WHERE tid = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tid);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(buf, sizeof(buf), "%s [%lld]", sqlite3_column_text(st, 0),
				 (long long)tid);
		sqlite3_finalize(st);
	}
	return jtext(buf);
}

/*
 * What a waker was doing when it woke the sleeper, from its call @call: the
 * outermost of its open calls that wakes tasks (futex_wake, not the
 * try_to_wake_up inside it), else its innermost that is not the tracer's
 * own. NULL if none; the result is in @buf.
 */
static const char *waker_function(struct rdb *db, int64_t call, char *buf, size_t size)
{
	sqlite3_stmt *st;
	bool found = false, waking = false;

	if (!call || sqlite3_prepare_v2(rdb_sql(db), waker_calls_sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, call);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (sqlite3_column_int(st, 1) || (!found && !sqlite3_column_int(st, 2))) {
			snprintf(buf, size, "%s", name);
			found = true;
			waking |= sqlite3_column_int(st, 1);
		}
		if (waking && !sqlite3_column_int(st, 1))
			break; /* above the waking functions: the caller's business */
	}
	sqlite3_finalize(st);
	return found ? buf : NULL;
}

/* Step @i of @r as JSON, its share of @of ns. */
static json_t *step_json(struct rdb *db, const struct chain_result *r, int i, double of)
{
	const struct chain_step *s = &r->v[i];
	json_t *j = json_pack("{ss sI sf sf}", "kind", kind_name(s->kind), "n", (json_int_t)s->n,
			      "ns", s->ns, "share", of > 0 ? s->ns / of : 0.0);
	char fn[256];
	const char *what = s->call ? waker_function(db, s->call, fn, sizeof(fn)) : s->what;

	if (s->kind == CH_WAKER)
		json_object_set_new(j, "who", task_name(db, s->tid));
	if (what)
		json_object_set_new(j, "what", jtext(what));
	if (s->lag)
		json_object_set_new(j, "lag_ns", json_integer(s->lag));
	return j;
}

/*
 * The other parts of the last waker's time beside its largest, @top, of
 * WAKE_ALSO or more of it (@of ns), largest first, each marked "also": what
 * else it did, so that a disk wait of 18% is named beside its 41% preempted.
 */
static void also_json(struct rdb *db, const struct chain_result *r, int top, double of, json_t *a)
{
	int v[16], n = 0; /* at most 1 / WAKE_ALSO of them can hold WAKE_ALSO each */

	for (int k = 0; k < r->n && n < 16; k++)
		if (k != top && r->v[k].parent == r->v[top].parent && r->v[k].kind != CH_DELAY &&
		    r->v[k].ns >= WAKE_ALSO * of && of > 0)
			v[n++] = k;
	for (int i = 1; i < n; i++) /* largest first */
		for (int j = i; j > 0 && r->v[v[j]].ns > r->v[v[j - 1]].ns; j--) {
			int t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		json_t *j = step_json(db, r, v[i], of);
		json_object_set_new(j, "also", json_true());
		json_array_append_new(a, j);
	}
}

/*
 * The chain: the top ender, then down the largest part of each waker's
 * time; at the last waker, its other large parts too (also_json()).
 */
static json_t *chain_json(struct rdb *db, const struct chain_result *r)
{
	json_t *a = json_array();
	double of = 0;
	int i;

	for (int k = 0; k < r->n; k++)
		of += r->v[k].parent < 0 ? r->v[k].ns : 0;
	for (i = chain_top(r, -1); i >= 0; i = r->v[i].kind == CH_WAKER ? chain_top(r, i) : -1) {
		json_array_append_new(a, step_json(db, r, i, of));
		if (r->v[i].kind != CH_WAKER && r->v[i].parent >= 0)
			also_json(db, r, i, of, a);
		of = r->v[i].ns;
	}
	return a;
}

/*
 * The chain and the whole split; what the recording lacks where the sleeps
 * (@u), or a waker's waits, ended in interrupts it does not name.
 */
static json_t *answer(struct rdb *db, const struct wload *l, const struct unnamed *u,
		      const struct chain_result *r)
{
	struct unnamed all = {l->unknown, l->idle, l->pending};
	json_t *steps = json_array(), *j;

	for (int i = 0; i < r->n; i++) {
		json_t *s = step_json(db, r, i, 0);
		json_object_del(s, "share");
		json_object_set_new(s, "parent", json_integer(r->v[i].parent));
		json_array_append_new(steps, s);
	}
	j = json_pack("{so so}", "chain", chain_json(db, r), "steps", steps);
	if (!u->wakeups) /* the sleeps' own enders are known: a waker's may not be */
		u = &all;
	if (u->wakeups)
		json_object_set_new(j, "unknown",
				    json_pack("{sI sI sI ss}", "wakeups", (json_int_t)u->wakeups,
					      "idle", (json_int_t)u->idle, "pending_bios",
					      (json_int_t)u->pending, "advice",
					      waits_unnamed_advice(db, u->idle * 2 > u->wakeups)));
	return j;
}

json_t *wake_chain(struct rdb *db, int64_t sleeper)
{
	struct wload l = {.db = db, .lossy = -1};
	struct chain_source src = {task_offs, &l, task_unseen};
	struct chain_result r = {0};
	struct chain_off *v;
	json_t *j = NULL;
	int n = load_offs(&l, sleeps_fmt, sleeper, &v), rc = n > 0 ? 0 : -1;
	struct unnamed own = {l.unknown, l.idle, l.pending};

	for (int k = 0; !rc && k < n; k++)
		rc = chain_add_sleep(&r, &src, &v[k]);
	if (!rc && !l.failed)
		j = answer(db, &l, &own, &r);
	free(v);
	chain_release(&r);
	wload_free(&l);
	return j;
}

/* ---- what a recording holds to name wakers (darc info) ---- */

enum { EV_UNSEEN, EV_OTHER, EV_WAKEUP, EV_IRQ, EV_VECTOR };

/* The kind of event @system:@name for the tally. */
static uint8_t event_kind(const char *system, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!system || !name)
		return EV_OTHER;
	if (!strcmp(system, "sched") && (!strcmp(name, "sched_waking") || !strcmp(name, "sched_wakeup")))
		return EV_WAKEUP;
	if (!strcmp(system, "irq") && !strcmp(name, "irq_handler_entry"))
		return EV_IRQ;
	if (!strcmp(system, "irq_vectors") && n > 6 && !strcmp(name + n - 6, "_entry"))
		return EV_VECTOR;
	return EV_OTHER;
}

void wake_evidence_add(struct wake_evidence *e, uint16_t type, const char *system,
		       const char *name, int32_t pid, uint8_t flags)
{
	/* common_flags: 0x08 hard interrupt, 0x10 softirq (a softirq on irq exit may show both) */
	bool hard = (flags & 0x08) && !(flags & 0x10);

	if (e->kind[type] == EV_UNSEEN)
		e->kind[type] = event_kind(system, name);
	switch (e->kind[type]) {
	case EV_WAKEUP:
		e->hard += hard;
		e->hard_idle += hard && !pid;
		break;
	case EV_VECTOR:
	case EV_IRQ:
		e->irqs++;
		e->irqs_idle += !pid;
		break;
	}
}

const char *wake_evidence_warning(const struct wake_evidence *e, char *buf, size_t size)
{
	if (!e->hard)
		return NULL;
	if (!e->irqs)
		snprintf(buf, size, "%llu wake-ups came from hard interrupts, and the recording has"
			 " " WAKE_NO_IRQ ": what ended those sleeps " WAKE_UNNAMED " ("
			 WAKE_RECORD_IRQ ")", (unsigned long long)e->hard);
	else if (e->hard_idle && !e->irqs_idle)
		snprintf(buf, size, WAKE_IDLE " are not in the recording (a pid filter, such as"
			 " trace-cmd record -F or -P): the %llu wake-ups they made " WAKE_UNNAMED
			 " (" WAKE_EVERY_CPU ")", (unsigned long long)e->hard_idle);
	else
		return NULL;
	return buf;
}
