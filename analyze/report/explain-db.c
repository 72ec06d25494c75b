// SPDX-License-Identifier: MIT
/*
 * darc explain: the recording's entry points, each one's slow part searched
 * (darc paths' search, stored), the causes it names ranked by the time they
 * cost, one sentence each (explain.c), stored in explain_subject and
 * explain_cause.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "explain-db.h"
#include "explain-wake.h"
#include "explain.h"
#include "jtext.h"
#include "paths.h"
#include "search-db.h"
#include "show.h"
#include "tracer-shift.h"
#include "vis.h"

#define MAX_PARTS 3

/* One entry point darc explain explains (a row of explain_subject per slow part). */
struct subject {
	int64_t fnode;	   /* its fnode: the function where the recording entered it */
	char *func, *what; /* the function; the selection's title (search.f0) */
	int func_kind;	   /* func.kind: system call, user function, root */
	uint64_t calls;	   /* its complete calls */
	double total_ns;   /* their latency, summed */
	struct slow_part part[MAX_PARTS]; /* its slow parts, costliest first (explain.h) */
	int nparts;
	double tail_share; /* nparts 0: the tail's share, too small */
};

/*
 * The entry points: root fnodes, and the outermost fnodes of user functions
 * (uprobes) called twice or more; not the tracer's own, not those whose
 * calls ran in interrupt context (mostly), not those called once.
 */
static const char subjects_sql[] =
    "WITH RECURSIVE irq(id, n) AS (SELECT b.fnode_id, count(*) FROM call_extra e"
    "  JOIN call_base b ON b.id = e.id WHERE e.flags & 24 GROUP BY b.fnode_id),"
    " inside(id, under) AS (SELECT id, 0 FROM fnode WHERE parent_id IS NULL"
    "  UNION ALL SELECT c.id, i.under OR (f.kind = 3 AND p.calls >= 2) FROM inside i"
    "  JOIN fnode p ON p.id = i.id JOIN func f ON f.id = p.func_id"
    "  JOIN fnode c ON c.parent_id = i.id)"
    " SELECT fn.id, f.name, f.kind FROM inside i JOIN fnode fn ON fn.id = i.id"
    " JOIN func f ON f.id = fn.func_id LEFT JOIN irq ON irq.id = fn.id"
    " WHERE NOT f.overhead AND fn.calls >= 2 AND coalesce(irq.n, 0) * 2 <= fn.calls"
    " AND (fn.parent_id IS NULL OR (f.kind = 3 AND NOT i.under))"
    " ORDER BY fn.incl_ns DESC, fn.id";

/* The selection of @s's calls: its fnode, at one bucket an octave (the search's). */
static struct call_selection subject_sel(const struct report_options *o, const struct subject *s)
{
	struct call_selection sel = o->sel;

	sel.func = NULL;
	sel.path = NULL;
	sel.fnode = s->fnode;
	sel.resolution = 1;
	return sel;
}

/* @s's profile @p, with @info, into its calls, latency and slow parts (@p released). 0 or -1. */
static int subject_set(struct subject *s, struct profile *p, struct rdb_profile_info *info,
		       struct err_msg *err)
{
	free(s->what);
	s->what = info->what;
	s->calls = profile_calls(p);
	s->total_ns = profile_latency(p);
	s->nparts = explain_slow_parts(p, s->part, MAX_PARTS, &s->tail_share);
	rdb_profile_release(p);
	return s->nparts < 0 ? err_setf(err, NULL, "out of memory") : 0;
}

/* @s's profile and slow parts from the stored histogram's counts (each bucket's latency
   estimated from its midpoint). 0, or -1 with @err set. */
static int subject_profile(struct rdb *db, const struct report_options *o, struct subject *s,
			   struct err_msg *err)
{
	struct call_selection sel = subject_sel(o, s);
	struct profile p;
	struct rdb_profile_info info;

	if (rdb_profile_load_hist(db, &sel, &p, &info, err))
		return -1;
	return subject_set(s, &p, &info, err);
}

/*
 * The profiles and slow parts of subjects @s[@n] from their calls, in one
 * scan of them, each one's calls kept for its slow parts' search and tracer
 * shift. 0, or -1 with @err set.
 */
static int subjects_exact(struct rdb *db, const struct report_options *o, struct subject *s,
			  int n, struct err_msg *err)
{
	struct profile *p = calloc(n > 0 ? n : 1, sizeof(*p));
	struct rdb_profile_info *info = calloc(n > 0 ? n : 1, sizeof(*info));
	int64_t *fnodes = calloc(n > 0 ? n : 1, sizeof(*fnodes));
	struct call_selection sel;
	int rc = 0, i;

	if (!p || !info || !fnodes) {
		rc = err_setf(err, NULL, "out of memory");
	} else if (n > 0) {
		sel = subject_sel(o, &s[0]);
		for (i = 0; i < n; i++)
			fnodes[i] = s[i].fnode;
		i = 0;
		rc = rdb_profiles_load_keep(db, &sel, fnodes, n, p, info, err);
		for (; !rc && i < n; i++)
			rc = subject_set(&s[i], &p[i], &info[i], err); /* takes p[i], info[i].what */
		for (; rc && i < n; i++) { /* those a failure left: none if the load failed */
			rdb_profile_release(&p[i]);
			free(info[i].what);
		}
	}
	free(p);
	free(info);
	free(fnodes);
	return rc;
}

static int by_slow_ns(const void *a, const void *b)
{
	const struct subject *x = a, *y = b;
	double u = x->nparts > 0 ? x->part[0].slow.lat_ns : -1;
	double v = y->nparts > 0 ? y->part[0].slow.lat_ns : -1;

	if (u != v)
		return (u < v) - (u > v);
	return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
}

static void free_subjects(struct subject *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].func);
		free(s[i].what);
	}
	free(s);
}

/*
 * A root fnode whose every call is the first code its task ran in the
 * recording (its first call, and no switch of the task out before it),
 * run as the task came onto its CPU (a wake-up of it before, or another
 * task switched out on that CPU within 1 ms before): the tail of a task
 * switch (finish_task_switch) in a task off CPU when the recording began,
 * whose callers' entries are not in it. Not an entry point anybody traced.
 * (Only a root that is no system call and has no more calls than there are
 * tasks can be one: then its calls are read.)
 */
static const char fragment_sql[] =
    "SELECT count(*), coalesce(sum(NOT EXISTS (SELECT 1 FROM sched_interval i"
    "  WHERE i.task_id = c.task_id AND i.t_out < c.t_entry)"
    "  AND NOT EXISTS (SELECT 1 FROM call_base p WHERE p.task_id = c.task_id AND p.id < c.id"
    "   AND p.parent_id IS NULL)"
    "  AND (EXISTS (SELECT 1 FROM wakeup w WHERE w.task_id = c.task_id AND w.t <= c.t_entry)"
    "   OR EXISTS (SELECT 1 FROM sched_interval o WHERE o.cpu_out = c.cpu"
    "    AND o.task_id != c.task_id AND o.t_out BETWEEN c.t_entry - 1000000 AND c.t_entry))), 0)"
    " FROM call_base c WHERE c.fnode_id = ?1 AND c.incl_ns IS NOT NULL";

/*
 * Is @s such a fragment (@tasks: the recording's tasks)? The count of calls
 * is checked here, not in the query: SQLite scanned every call for a root
 * with more calls than tasks (a condition on no row is not tested first).
 */
static bool fragment(struct rdb *db, const struct subject *s, int64_t tasks)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (strcmp(explain_kind(s->func, s->func_kind), "root") || (int64_t)s->calls > tasks ||
	    sqlite3_prepare_v2(rdb_sql(db), fragment_sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, s->fnode);
	if (sqlite3_step(st) == SQLITE_ROW)
		yes = sqlite3_column_int64(st, 0) > 0 &&
		      sqlite3_column_int64(st, 1) == sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return yes;
}

/*
 * The subjects into *@out, ranked (those without a slow part last), the
 * first @top + 2 on exact latencies, fragments of a task switch left out.
 * Their number, or -1.
 */
static int load_subjects(struct rdb *db, const struct report_options *o, int top,
			 struct subject **out, struct err_msg *err)
{
	struct subject *s = NULL;
	sqlite3_stmt *st;
	int n = 0, cap = 0, rc = 0;
	int64_t tasks;

	if (sqlite3_prepare_v2(rdb_sql(db), subjects_sql, -1, &st, NULL) != SQLITE_OK)
		return err_setf(err, rdb_path(db), "cannot read the call trees: %s",
				rdb_why(rdb_sql(db)));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		if (n == cap) {
			struct subject *t = realloc(s, (cap = 2 * cap + 16) * sizeof(*s));
			if (!t) {
				rc = err_setf(err, NULL, "out of memory");
				break;
			}
			s = t;
		}
		s[n] = (struct subject){.fnode = sqlite3_column_int64(st, 0),
					.func = strdup(rdb_text(st, 1)),
					.func_kind = sqlite3_column_int(st, 2)};
		rc = s[n].func ? subject_profile(db, o, &s[n], err)
				: err_setf(err, NULL, "out of memory");
		n++;
	}
	sqlite3_finalize(st);
	if (rc) {
		free_subjects(s, n);
		return -1;
	}
	/* ranked on estimates; those that may be shown again on their calls' exact latency */
	qsort(s, n, sizeof(*s), by_slow_ns);
	tasks = rdb_count(db, "SELECT count(*) FROM task");
	for (int i = 0; i < n && i < top + 2; i++)
		if (fragment(db, &s[i], tasks)) {
			free(s[i].func);
			free(s[i].what);
			memmove(&s[i], &s[i + 1], (n - i - 1) * sizeof(*s));
			n--, i--;
		}
	rc = subjects_exact(db, o, s, n < top + 2 ? n : top + 2, err);
	if (rc) {
		free_subjects(s, n);
		return -1;
	}
	qsort(s, n, sizeof(*s), by_slow_ns);
	*out = s;
	return n;
}

/* ---- a runner-up followed down to its own cause ---- */

/*
 * The search's calls' parts summed by fnode (sr_part), made once a search,
 * at its first runner-up followed: each one followed reads its subtree's
 * fnodes from it, where each read the search's calls again (a scan of them
 * all, a quarter of a second on a million calls, for every runner-up).
 */
static const char parts_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS sr_part(fnode INTEGER PRIMARY KEY, blocked, preempt, irq,"
    "  softirq, self);"
    "DELETE FROM sr_part;"
    "INSERT INTO sr_part SELECT c.fnode_id, sum(c.blocked_ns), sum(c.preempt_ns), sum(c.irq_ns),"
    "  sum(c.softirq_ns), sum(c.excl_ns) FROM sr_sub s JOIN call c ON c.id = s.id"
    "  GROUP BY c.fnode_id";

/*
 * Its part of the subtree of fnode ?1 inside the search's calls, the largest
 * (fnode, part) first; of equals, the first part (blocked, preempted, irq,
 * softirq, self), then the first fnode.
 */
static const char follow_sql[] =
    "WITH RECURSIVE sub(id) AS (SELECT ?1 UNION ALL SELECT fn.id FROM fnode fn"
    "  JOIN sub ON fn.parent_id = sub.id),"
    " part AS (SELECT * FROM sr_part WHERE fnode IN sub)"
    " SELECT fnode, k, v FROM (SELECT fnode, 0 AS k, blocked AS v FROM part"
    "  UNION ALL SELECT fnode, 1, preempt FROM part UNION ALL SELECT fnode, 2, irq FROM part"
    "  UNION ALL SELECT fnode, 3, softirq FROM part UNION ALL SELECT fnode, 4, self FROM part)"
    " ORDER BY v DESC, k, fnode LIMIT 1";
static const char child_sql[] = "SELECT fn.id FROM fnode fn JOIN func f ON f.id = fn.func_id"
				" WHERE fn.parent_id = ?1 AND f.name = ?2 ORDER BY fn.calls DESC";
/* Who ended the blocked waits of fnode ?1 in the search's calls, most time first. */
static const char overhead_sql[] = "SELECT 1 FROM func WHERE ?1 = ?1 AND name = ?2 AND overhead";

/* The first row's int64 (or text, into a new string) of @sql on (@a, @b text or NULL). */
static int64_t query1(struct rdb *db, const char *sql, int64_t a, int64_t b, const char *text,
		      char **str)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (sqlite3_prepare_v2(rdb_sql(db), sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, a);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		if (str && sqlite3_column_text(st, 0))
			*str = strdup(rdb_text(st, 0));
	}
	sqlite3_finalize(st);
	return v;
}

/*
 * A runner-up function that cost more than the winner at its level: its
 * path goes on down its own subtree, inside the search's calls, to the
 * function and part (blocked, preempted, interrupted, its own time) that
 * hold the most of it.
 */
static bool follow(struct rdb *db, json_t *c, bool *parts)
{
	static const char *const step[] = {"[blocked]", "[preempted]", "[irq]", "[softirq]", NULL};
	static const char *const kind[] = {"blocked", "preempt", "irq", "softirq", "self"};
	json_t *f = json_object_get(c, "follow"), *path = json_object_get(c, "path");
	int64_t child = query1(db, child_sql, json_integer_value(json_object_get(f, "fnode")), 0,
			       json_string_value(json_object_get(f, "name")), NULL);
	sqlite3_stmt *st;
	int64_t at = 0;
	int k = -1;

	if (query1(db, overhead_sql, 0, 0, json_string_value(json_object_get(f, "name")), NULL))
		return false; /* the tracer's own: not a cause */
	if (child && !*parts) /* the search's sums, for this and the next runners-up */
		*parts = sqlite3_exec(rdb_sql(db), parts_sql, NULL, NULL, NULL) == SQLITE_OK;
	if (child && *parts &&
	    sqlite3_prepare_v2(rdb_sql(db), follow_sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, child);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 2) > 0) {
			at = sqlite3_column_int64(st, 0);
			k = sqlite3_column_int(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (k >= 0) {
		json_t *below = search_db_chain(db, child, at);
		json_array_extend(path, below);
		json_decref(below);
		if (step[k])
			json_array_append_new(path, jtext(step[k]));
		json_object_set_new(c, "kind", jtext(kind[k]));
		json_object_set_new(c, "who", json_null());
		if (k == 0) /* who woke it: explain_part() asks */
			json_object_set_new(c, "sleeper", json_integer(at));
	}
	json_object_del(c, "follow");
	return true;
}

/*
 * Who ended the sleeps of blocked cause @c (its "sleeper" fnode): the
 * waker with the most time (paths' rule), and the chain behind them
 * (explain-wake.c), whose first task, where one ended them, is the waker.
 */
static void wakers(struct rdb *db, json_t *c)
{
	int64_t fnode = json_integer_value(json_object_get(c, "sleeper"));
	json_t *ch = wake_chain(db, fnode), *first;
	char *who = NULL;

	if (!paths_woken_by(db, fnode, &who)) /* the details of the search asked it */
		query1(db, paths_wakers_sql, fnode, 0, NULL, &who);
	json_object_set_new(c, "who", who ? jtext(who) : json_null());
	free(who);
	first = json_array_get(json_object_get(ch, "chain"), 0);
	if (json_is_string(json_object_get(first, "who")))
		json_object_set(c, "who", json_object_get(first, "who"));
	else if (first && !strcmp(json_string_value(json_object_get(first, "kind")), "unknown"))
		json_object_set_new(c, "who", json_null()); /* never a guess */
	if (ch)
		json_object_set_new(c, "wake", ch);
	json_object_del(c, "sleeper");
}

/* ---- one subject ---- */

/* The calls of all of @s's slow parts from one read of the calls (search_db_preselect). */
static int preselect_parts(struct rdb *db, const struct report_options *o, const struct subject *s,
			   struct err_msg *err)
{
	struct call_selection sel = subject_sel(o, s);
	struct peak slow[MAX_PARTS];

	for (int k = 0; k < s->nparts; k++)
		slow[k] = s->part[k].slow;
	return search_db_preselect(db, &sel, slow, s->nparts, err);
}

static json_t *range_json(const struct peak *pk)
{
	return json_pack("{si si sI sf}", "lo", pk->lo, "hi", pk->hi, "calls",
			 (json_int_t)pk->calls, "ns", pk->lat_ns);
}

/* ---- the recorder's own doing ---- */

/* The tid of "comm [tid]", or -1. */
static int64_t tid_of(const char *who)
{
	const char *b = who ? strrchr(who, '[') : NULL;

	return b && b[1] >= '0' && b[1] <= '9' ? strtoll(b + 1, NULL, 10) : -1;
}

/* What the recorder's cause @c is ("trace-cmd's threads", ...), or NULL: the workload's. */
static const char *recorder_of(struct rdb *db, json_t *c, char *buf, size_t n)
{
	const char *kind = json_string_value(json_object_get(c, "kind"));
	json_t *path = json_object_get(c, "path");
	const char *last = json_string_value(json_array_get(path, json_array_size(path) - 1));
	int64_t tid = tid_of(json_string_value(json_object_get(c, "who")));
	char who[32], *top = NULL;

	/* a preemption weighed as a runner-up has no details: who ran instead, in
	   the search's calls, is asked here (and said only when it is the recorder) */
	if (kind && !strcmp(kind, "preempt") && tid < 0 &&
	    query1(db, paths_ran_instead_sql, 0, 0, NULL, &top) >= 0 && top &&
	    (tid = tid_of(top)) > 0 && tracer_shift_recorder_task(db, tid, who, sizeof(who)))
		json_object_set_new(c, "who", jtext(top));
	else
		tid = tid_of(json_string_value(json_object_get(c, "who")));
	free(top);

	if (kind && !strcmp(kind, "preempt") && tid > 0 &&
	    tracer_shift_recorder_task(db, tid, who, sizeof(who))) {
		snprintf(buf, n, "%s", !strcmp(who, "trace-cmd") ? "trace-cmd's threads (its "
				  "readers of the trace buffers)" : "darc-record's threads");
		return buf;
	}
	if (last && query1(db, overhead_sql, 0, 0, last, NULL)) {
		snprintf(buf, n, "the tracer's own code (%s)", last);
		return buf;
	}
	return NULL;
}

/* The recorder's causes moved out of @causes, each with "recorder" and its sentence. */
static json_t *recorder_causes(struct rdb *db, const char *title, const struct slow_part *part,
			       json_t *causes)
{
	json_t *out = json_array(), *c;
	char what[128], *sentence;
	const char *r;

	for (size_t k = 0; k < json_array_size(causes);) {
		c = json_array_get(causes, k);
		if (!(r = recorder_of(db, c, what, sizeof(what)))) {
			k++;
			continue;
		}
		json_object_set_new(c, "recorder", jtext(r));
		sentence = explain_sentence(title, part, c);
		json_object_set_new(c, "sentence", jtext(sentence ? sentence : "?"));
		free(sentence);
		json_array_append(out, c);
		json_array_remove(causes, k);
	}
	return out;
}

/*
 * The tracer's hooks in slow part @part of @s: "tracer_shift" of the part
 * into @one, and, when they hold EXPLAIN_CAUSE_MIN of its latency or more,
 * an entry of @rec: {"kind": "tracer", "recorder", "share", "ns", "sentence"}.
 */
static void tracer_hooks(struct rdb *db, const struct report_options *o, const struct subject *s,
			 const struct slow_part *part, json_t *one, json_t *rec)
{
	struct call_selection sel = subject_sel(o, s);
	struct tracer_shift t;
	struct err_msg e;
	int64_t lo = part->slow.lo > 0 ? (int64_t)ceil(exp2(part->slow.lo)) : 0;
	int64_t hi = part->slow.hi < 62 ? (int64_t)ceil(exp2(part->slow.hi + 1)) : INT64_MAX;
	json_t *j;
	double share;
	char *sentence, amount[32], words[512];

	if (tracer_shift_load(db, &sel, lo, hi, &t, &e)) {
		json_object_set_new(one, "tracer_shift", json_null());
		return;
	}
	j = tracer_shift_range_json(&t, part->slow.lo, part->slow.hi);
	share = json_number_value(json_object_get(j, "share"));
	tracer_shift_cost_words(&t, words, sizeof(words));
	if (json_is_object(j) && share >= EXPLAIN_CAUSE_MIN &&
	    asprintf(&sentence, "the tracer's hooks (a traced call: %s): %.0f%% of the latency "
				"of the %s, %s a call; untraced, %lld of its %llu calls would be a "
				"bucket or more lower",
		     words, 100 * share, explain_part_name(part->how),
		     show_amount(json_number_value(json_object_get(j, "share_ns")), "ns", amount,
				 sizeof(amount)),
		     (long long)json_integer_value(json_object_get(j, "shifted_calls")),
		     (unsigned long long)part->slow.calls) >= 0) {
		json_array_append_new(
		    rec,
		    json_pack("{ss ss sf sf so so}", "kind", "tracer", "recorder",
			      "the tracer's hooks", "share", share, "ns",
			      json_number_value(json_object_get(j, "share_ns")) * part->slow.calls,
			      "cost", tracer_shift_cost_json(&t), "sentence", jtext(sentence)));
		free(sentence);
	}
	json_object_set_new(one, "tracer_shift", j);
	tracer_shift_release(&t);
}

/*
 * Search slow part @sp of @s and name its causes: {"slow", "body", "search",
 * "causes", "nodes"} (NULL with @err set).
 */
static json_t *explain_part(struct rdb *db, const struct report_options *o,
			    const struct search_params *sp, const struct subject *s,
			    const struct slow_part *part, struct err_msg *err)
{
	struct report_options x = *o;
	json_t *all = json_array(), *one, *causes, *c, *slow, *nodes, *recorder;
	char *title = explain_title(s->func);
	bool parts = false; /* sr_part made for this search: follow() */
	size_t k;

	x.sel = subject_sel(o, s);
	if (!title || paths_search(db, &x, sp, s->what, part->number, &part->slow, all, err)) {
		json_decref(all);
		free(title);
		return NULL;
	}
	one = json_incref(json_array_get(all, 0));
	json_decref(all);
	json_object_del(one, "peak"); /* "slow" says the range, the subject the calls */
	json_object_del(one, "lo");
	json_object_del(one, "hi");
	json_object_del(one, "calls");
	causes = explain_causes_unranked(json_object_get(one, "nodes"));
	for (k = 0; k < json_array_size(causes);) {
		c = json_array_get(causes, k);
		if (json_object_get(c, "follow") && !follow(db, c, &parts)) {
			json_array_remove(causes, k);
			continue;
		}
		if (json_object_get(c, "sleeper"))
			wakers(db, c);
		k++;
	}
	recorder = recorder_causes(db, title, part, causes);
	explain_rank_causes(causes);
	explain_rank_causes(recorder);
	json_array_foreach(causes, k, c) {
		char *sentence = explain_sentence(title, part, c);
		json_object_set_new(c, "sentence", jtext(sentence ? sentence : "?"));
		free(sentence);
	}
	slow = range_json(&part->slow);
	json_object_set_new(slow, "how", jtext(explain_how(part->how)));
	json_object_set_new(slow, "share", json_real(part->slow.share_lat));
	if (part->how == SLOW_BODY) /* nothing slower: what the tail held */
		json_object_set_new(slow, "tail_share", json_real(s->tail_share));
	json_object_set_new(one, "slow", slow);
	json_object_set_new(one, "body", part->body.calls ? range_json(&part->body) : json_null());
	json_object_set_new(one, "causes", causes);
	tracer_hooks(db, o, s, part, one, recorder);
	json_object_set_new(one, "recorder", recorder);
	nodes = json_incref(json_object_get(one, "nodes")); /* the long tree last */
	json_object_del(one, "nodes");
	json_object_set_new(one, "nodes", nodes);
	free(title);
	return one;
}

/* The subject's JSON: its first slow part's fields, any others in "more". NULL on error. */
static json_t *explain_subject(struct rdb *db, const struct report_options *o,
			       const struct search_params *sp, const struct subject *s,
			       struct err_msg *err)
{
	char *title = explain_title(s->func);
	json_t *j = json_pack("{so so ss sI sI sf}", "func", jtext(s->func), "title", jtext(title ? title : "?"),
			      "kind", explain_kind(s->func, s->func_kind), "fnode",
			      (json_int_t)s->fnode, "calls", (json_int_t)s->calls, "total_ns",
			      s->total_ns);
	json_t *more = json_array();

	free(title);
	if (j && preselect_parts(db, o, s, err)) {
		json_decref(j);
		j = NULL;
	}
	for (int k = 0; j && k < s->nparts; k++) {
		json_t *part = explain_part(db, o, sp, s, &s->part[k], err);
		if (!part) {
			json_decref(j);
			j = NULL;
		} else if (k) {
			json_array_append_new(more, part);
		} else {
			json_object_update(j, part);
			json_decref(part);
		}
	}
	rdb_preselect_end(db);
	if (j && json_array_size(more))
		json_object_set(j, "more", more);
	json_decref(more);
	return j;
}

/* ---- stored ---- */

/* One row of explain_subject (and its causes) to store, from explain's JSON. */
struct store_job {
	json_t *subject, *part; /* the subject, and one of its parts (maybe itself) */
	int rank, number;	/* explain_subject.rank and .part: 1, 2, ... */
};

static void bind_num(sqlite3_stmt *st, int i, json_t *v)
{
	if (json_is_integer(v))
		sqlite3_bind_int64(st, i, json_integer_value(v));
	else if (json_is_number(v))
		sqlite3_bind_double(st, i, json_number_value(v));
	else if (json_is_string(v))
		sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Bind @keys of @obj from parameter @first on. */
static void bind_keys(sqlite3_stmt *st, int first, json_t *obj, const char *const *keys)
{
	for (int k = 0; keys[k]; k++)
		bind_num(st, first + k, json_object_get(obj, keys[k]));
}

static int put_causes(sqlite3 *w, json_int_t search, json_t *causes)
{
	static const char *const keys[] = {"kind", "ns", "share", "votes", "who", "sentence", NULL};
	sqlite3_stmt *st;
	json_t *c;
	size_t k;
	int rc = 0;

	if (columns_prepare_insert(w, "explain_cause", &st) != SQLITE_OK)
		return -1;
	json_array_foreach(causes, k, c) {
		char *path = json_dumps(jtext_clean(json_object_get(c, "path")), JSON_COMPACT);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, search);
		sqlite3_bind_int(st, 2, (int)k + 1);
		sqlite3_bind_text(st, 3, path, -1, SQLITE_TRANSIENT);
		bind_keys(st, 4, c, keys);
		free(path);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

static int put_explain(sqlite3 *w, void *ctx)
{
	static const char *const subj[] = {"func", "fnode", "kind", "calls", "total_ns", NULL};
	static const char *const slow[] = {"how", "lo", "hi", "calls", "ns", "share", NULL};
	static const char *const body[] = {"lo", "hi", "calls", "ns", NULL};
	const struct store_job *j = ctx;
	json_int_t search = json_integer_value(json_object_get(j->part, "search"));
	sqlite3_stmt *st;
	int rc;

	if (columns_prepare_insert(w, "explain_subject", &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, search);
	sqlite3_bind_int(st, 2, j->rank);
	sqlite3_bind_int(st, 3, j->number);
	bind_keys(st, 4, j->subject, subj);
	bind_keys(st, 9, json_object_get(j->part, "slow"), slow);
	bind_keys(st, 15, json_object_get(j->part, "body"), body);
	sqlite3_bind_text(st, 19, json_string_value(json_object_get(j->subject, "title")), -1,
			  SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc || put_causes(w, search, json_object_get(j->part, "causes"));
}

/* Store subject @j (ranked @rank) and each of its slow parts. */
static int store_subject(struct rdb *db, json_t *j, int rank, struct err_msg *err)
{
	struct store_job job = {j, j, rank, 1};
	json_t *part;
	size_t k;

	if (rdb_store(db, "explanation", put_explain, &job, err))
		return -1;
	json_array_foreach(json_object_get(j, "more"), k, part) {
		job.part = part;
		job.number = (int)k + 2;
		if (rdb_store(db, "explanation", put_explain, &job, err))
			return -1;
	}
	return 0;
}

/* ---- printed ---- */

/* "buckets 21-24 (110 calls, 46.1ms)" of range @r (a "slow" or "body" object). */
static void range_text(FILE *out, json_t *r)
{
	int lo = json_integer_value(json_object_get(r, "lo"));
	int hi = json_integer_value(json_object_get(r, "hi"));
	long long calls = json_integer_value(json_object_get(r, "calls"));
	char a[32], b[32], t[32];

	fprintf(out, "bucket%s %d", lo == hi ? "" : "s", lo);
	if (hi != lo)
		fprintf(out, "-%d", hi);
	fprintf(out, " (%s .. %s: %lld call%s, %s)", show_amount(exp2(lo), "ns", a, sizeof(a)),
		show_amount(exp2(hi + 1), "ns", b, sizeof(b)), calls, calls == 1 ? "" : "s",
		show_amount(json_number_value(json_object_get(r, "ns")), "ns", t, sizeof(t)));
}

/* One slow part: its header, its sentences, with @verbose its search tree. */
static void part_text(FILE *out, json_t *s, json_t *part, bool verbose)
{
	json_t *slow = json_object_get(part, "slow"), *body = json_object_get(part, "body"), *c;
	size_t k;

	json_t *tail = json_object_get(slow, "tail_share");
	const char *how = json_string_value(json_object_get(slow, "how"));

	fprintf(out, "  %s: ", explain_part_name(!strcmp(how, "peak")   ? SLOW_PEAK
						 : !strcmp(how, "tail") ? SLOW_TAIL
									: SLOW_BODY));
	range_text(out, slow);
	fprintf(out, ", %.0f%% of its latency", 100 * json_number_value(json_object_get(slow, "share")));
	if (tail && json_number_value(tail) > 0) /* the body itself: nothing slower matters */
		fprintf(out, "; nothing slower (the calls above the 90th percentile hold %.1f%% of"
			     " it)", 100 * json_number_value(tail));
	else if (tail)
		fprintf(out, "; nothing slower");
	if (json_is_object(body)) {
		fprintf(out, "; body: ");
		range_text(out, body);
	}
	fprintf(out, "; search %lld\n", json_integer_value(json_object_get(part, "search")));
	json_array_foreach(json_object_get(part, "causes"), k, c)
		fprintf(out, "  - %s\n", vis(json_string_value(json_object_get(c, "sentence"))));
	if (json_array_size(json_object_get(part, "recorder")))
		fprintf(out, "  the recorder's own doing, apart from the causes:\n");
	json_array_foreach(json_object_get(part, "recorder"), k, c) {
		fprintf(out, "  - %s", vis(json_string_value(json_object_get(c, "sentence"))));
		if (strcmp(json_string_value(json_object_get(c, "kind")), "tracer"))
			fprintf(out, ": %s, the recorder's own",
				vis(json_string_value(json_object_get(c, "recorder"))));
		fputc('\n', out);
	}
	if (verbose)
		paths_tree_text(out, json_object_get(part, "nodes"));
	(void)s;
}

static void subject_text(FILE *out, json_t *s, int rank, bool verbose)
{
	char t[32];
	json_t *part;
	size_t k;

	fprintf(out, "%s%d. %s: %s %s, %lld calls, %s in all\n", rank > 1 ? "\n" : "", rank,
		vis(json_string_value(json_object_get(s, "title"))),
		json_string_value(json_object_get(s, "kind")),
		vis(json_string_value(json_object_get(s, "func"))),
		json_integer_value(json_object_get(s, "calls")),
		show_amount(json_number_value(json_object_get(s, "total_ns")), "ns", t, sizeof(t)));
	part_text(out, s, s, verbose);
	json_array_foreach(json_object_get(s, "more"), k, part)
		part_text(out, s, part, verbose);
}

json_t *explain_db_collect(struct rdb *db, const struct report_options *o,
			   const struct search_params *given, int top, int *nsubjects,
			   struct err_msg *err)
{
	/* every cause above the threshold: a callee that holds its share is a path too */
	struct search_params by_time = *given, *sp = &by_time;
	struct subject *s = NULL;
	json_t *all = json_array();
	int n, rc;

	/*
	 * Scans of every call, then searches: the memory map, or a big cache,
	 * would keep their pages in memory, beside the searches' own
	 */
	sqlite3_exec(rdb_sql(db), "PRAGMA mmap_size = 0; PRAGMA cache_size = -4096", NULL, NULL,
		     NULL);
	by_time.branch_pct = 100 * EXPLAIN_CAUSE_MIN;
	tracer_shift_prime(db, &o->sel); /* each part's searches count what its tracer_hooks price */
	n = load_subjects(db, o, top, &s, err);
	rc = n < 0 || !all ? -1 : 0;

	for (int i = 0; !rc && i < n && i < top && s[i].nparts > 0; i++) {
		json_t *j = explain_subject(db, o, sp, &s[i], err);
		rc = !j || store_subject(db, j, i + 1, err) ? -1 : 0;
		if (j)
			json_array_append_new(all, j);
	}
	free_subjects(s, n > 0 ? n : 0);
	*nsubjects = n;
	if (rc) {
		json_decref(all);
		return NULL;
	}
	return all;
}

int explain_report(FILE *out, struct rdb *db, const struct report_options *o,
		   const struct search_params *given, int top, bool verbose, struct err_msg *err)
{
	json_t *all, *x;
	size_t k;
	int n, rc = 0;

	if (!(all = explain_db_collect(db, o, given, top, &n, err)))
		return -1;
	if (o->json) {
		json_t *j = json_pack("{sO}", "subjects", all);
		rc = show_json_to(out, "explain", NULL, j, err);
		json_decref(j);
	} else {
		json_array_foreach(all, k, x)
			subject_text(out, x, (int)k + 1, verbose);
		if (!json_array_size(all))
			fprintf(out, "%s\n", n ? "no entry point has complete calls among those selected"
					       : "no entry point called twice or more");
	}
	json_decref(all);
	return rc;
}
