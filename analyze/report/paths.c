// SPDX-License-Identifier: MIT
/*
 * darc paths: for each peak of f0, DARC's search (search.c) on its calls
 * (search-db.c), stored, and printed as indented chains with the runners-up,
 * where interrupts and preemption hit, and who woke a blocked winner.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "grow.h"
#include "jtext.h"
#include "paths.h"
#include "search-db.h"
#include "show.h"
#include "vis.h"

/*
 * Up to 3 rows of @sql (?1 bound to @arg, else to @num) as {role, what,
 * times, ns, text} into @j; @role says how the row bears on the node: the
 * function an interrupt or preemption "hit", what a sleep was "woken by",
 * the task that "ran instead" of a preempted call. With @first, the first
 * row's text too (a new string; untouched if no row or NULL text). 0, or -1
 * if the query failed.
 */
static int top_rows(struct rdb *db, const char *sql, const char *role, const char *arg,
		    int64_t num, json_t *j, char **first)
{
	sqlite3_stmt *st;
	char amount[32];
	int rc, n = 0;

	if (sqlite3_prepare_v2(rdb_sql(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 1, num);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *row = json_pack("{ss so sI sI ss}", "role", role, "what",
					jtext(rdb_text(st, 0)), "times",
					(json_int_t)sqlite3_column_int64(st, 1), "ns",
					(json_int_t)sqlite3_column_int64(st, 2), "text",
					show_amount(sqlite3_column_double(st, 2), "ns", amount,
						    sizeof(amount)));
		if (sqlite3_column_count(st) > 3) /* where: the fnode it hit */
			json_object_set_new(row, "fnode", json_integer(sqlite3_column_int64(st, 3)));
		json_array_append_new(j, row);
		if (first && !n++ && sqlite3_column_text(st, 0) &&
		    !(*first = strdup(rdb_text(st, 0)))) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char irq_hits_sql[] =
    "SELECT f.name, count(*), sum(i.t_end - i.t_start) FROM sr_sub s"
    " CROSS JOIN irq_interval i ON i.call_id = s.id JOIN call_base c ON c.id = i.call_id"
    " JOIN fnode cn ON cn.id = c.fnode_id JOIN func f ON f.id = cn.func_id WHERE i.t_end IS NOT NULL AND ?1 ="
    " CASE WHEN i.kind = 1 THEN 'softirq ' || coalesce(i.name, '?')"
    " WHEN i.irq IS NOT NULL THEN 'irq ' || i.irq || ' (' || coalesce(i.name, '?') || ')'"
    " ELSE 'interrupt ' || coalesce(i.name, '?') END"
    " GROUP BY f.name ORDER BY 3 DESC LIMIT 3";
/* The calls a preemption hit, by fnode: where in the path. */
static const char preempt_hits_sql[] =
    "SELECT f.name, count(*), sum(si.t_in - si.t_out), c.fnode_id FROM sr_sub s"
    " CROSS JOIN sched_interval si ON si.call_id = s.id JOIN call_base c ON c.id = si.call_id"
    " JOIN fnode cn ON cn.id = c.fnode_id JOIN func f ON f.id = cn.func_id WHERE si.kind = 0 AND si.t_in IS NOT NULL AND ?1 = ?1"
    " GROUP BY c.fnode_id ORDER BY 3 DESC LIMIT 3";
/*
 * The tasks switched in on the CPU a preempted call left, while it was off
 * it (sched_switch: their off-CPU intervals ending there and then); each
 * runs until its next switch-out or the call's return to the CPU.
 */
const char paths_ran_instead_sql[] =
    "SELECT coalesce(t.comm, 'tid') || ' [' || o.task_id || ']', count(DISTINCT si.id),"
    " sum(min(coalesce((SELECT min(n.t_out) FROM sched_interval n WHERE n.task_id = o.task_id"
    " AND n.t_out >= o.t_in), si.t_in), si.t_in) - o.t_in)"
    " FROM sr_sub s CROSS JOIN sched_interval si ON s.id = si.call_id"
    " CROSS JOIN sched_interval o ON o.cpu_in = si.cpu_out AND o.t_in >= si.t_out"
    " AND o.t_in < si.t_in AND o.task_id != si.task_id LEFT JOIN task t ON t.tid = o.task_id"
    " WHERE si.kind = 0 AND si.t_in IS NOT NULL AND ?1 = ?1"
    " GROUP BY o.task_id ORDER BY 3 DESC LIMIT 3";
/*
 * Who ended the sleeps of node fnode ?1 (-1: of f0's calls themselves). A
 * task by its name and tid; an interrupt by itself, never by the task it
 * happened to interrupt: a timer (the sleep's category in view wait is
 * 'timed out', the one rule for every report) by the function that ran it,
 * a hard interrupt by the handler running at the wake-up (wakeup.handler;
 * else the innermost interrupt episode then on that CPU, irq-episode.h)
 * with its number,
 * a softirq by its vector; a hard interrupt that nothing names as what it
 * is: never guessed to be the timer. A handler's number is that of its
 * first interval (irq_interval has no index by name: hn holds them, read
 * once, where a lookup a sleep scanned the intervals, 65 of darc paths'
 * 146 ms on 30 000 sleeps).
 */
const char paths_wakers_sql[] =
    "WITH " PATHS_HANDLER_IRQS
    " SELECT CASE WHEN k.ctx = 0 THEN coalesce(t.comm, 'tid') || ' [' || k.waker_tid || ']'"
    " WHEN wt.category = 'timed out' THEN 'timer (' || coalesce(wf.name, k.handler, x.name) || ')'"
    " WHEN k.ctx = 2 THEN coalesce('softirq ' || k.handler,"
    " 'a softirq the recording does not name')"
    " WHEN k.handler IS NOT NULL THEN coalesce('irq ' || (SELECT hn.irq FROM hn"
    " WHERE hn.name = k.handler) || ' ', '')"
    " || '(' || k.handler || ')'"
    " ELSE coalesce((SELECT 'irq ' || coalesce(i.irq || ' ', '') || '(' || i.name || ')'"
    " FROM irq_interval i WHERE i.id = irq_episode(k.waker_cpu, k.t)),"
    " CASE k.ctx WHEN 1 THEN 'an interrupt the recording does not name' ELSE x.name END)"
    " END, count(*), sum(si.t_in - si.t_out)"
    " FROM sched_interval si JOIN sr_sub s ON s.id = si.call_id"
    " JOIN wakeup k ON k.id = si.wakeup_id"
    " JOIN wakeup_ctx x ON x.ctx = k.ctx JOIN wait wt ON wt.id = si.id"
    " LEFT JOIN task t ON t.tid = k.waker_tid"
    " LEFT JOIN call_base wc ON wc.id = k.waker_call_id LEFT JOIN fnode wn ON wn.id = wc.fnode_id"
    " LEFT JOIN func wf ON wf.id = wn.func_id"
    " WHERE si.kind = 1 AND (s.fnode = ?1 OR (?1 = -1 AND s.parent IS NULL))"
    " GROUP BY 1 ORDER BY 3 DESC LIMIT 3";

/*
 * The fnode whose own sleeps blocked node @i is: its parent's, or below a
 * node at max_depth the one that holds most of them (-1: f0's, which may be
 * several).
 */
static int64_t sleeper(const struct search_result *r, int i)
{
	int p = r->nodes[i].parent;

	if (r->nodes[i].at)
		return r->nodes[i].at;
	return p > 0 ? r->nodes[p].id : -1;
}

/*
 * The first row of paths_wakers_sql for each sleeper of the current search
 * (rdb_search_gen()): the details of a blocked node ask it, and explain
 * asks it again of the same sleeper to name who woke it (paths_woken_by()),
 * 80 ms a time on 3.7 M calls. NULL: no row, or its text NULL.
 */
struct woken {
	int64_t gen;
	struct woken_row {
		int64_t fnode;
		char *who;
	} *v;
	int n, cap;
};

#define WOKEN_MEMO "paths: woken by"

static void woken_clear(struct woken *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i].who);
	w->n = 0;
}

static void woken_free(void *p)
{
	struct woken *w = p;

	woken_clear(w);
	free(w->v);
	free(w);
}

/* @db's, for its current search (made if none, emptied if of another); NULL if none can be. */
static struct woken *woken_of(struct rdb *db)
{
	struct woken *w = rdb_memo_zeroed(db, WOKEN_MEMO, sizeof(*w), woken_free);

	if (w && w->gen != rdb_search_gen(db)) { /* of another search (or new: nothing in it) */
		woken_clear(w);
		w->gen = rdb_search_gen(db);
	}
	return w;
}

void paths_woken_keep(struct rdb *db, int64_t fnode, const char *who)
{
	struct woken *w = woken_of(db);
	char *copy = who ? strdup(who) : NULL;

	if (!w || (who && !copy) || GROW(w->v, w->n, w->cap, 8)) {
		free(copy);
		return; /* not kept: asked again */
	}
	w->v[w->n++] = (struct woken_row){fnode, copy};
}

bool paths_woken_by(struct rdb *db, int64_t fnode, char **who)
{
	struct woken *w = woken_of(db);

	*who = NULL;
	for (int i = 0; w && i < w->n; i++)
		if (w->v[i].fnode == fnode) {
			if (w->v[i].who && !(*who = strdup(w->v[i].who)))
				return false;
			return true;
		}
	return false;
}

/* Where an exogenous winner hit, who ran instead, or who woke a blocked one (an array). */
static json_t *details(struct rdb *db, const struct search_result *r, int i, const char *name)
{
	const struct search_node *n = &r->nodes[i];
	json_t *j = json_array();

	if (n->kind == SEARCH_IRQ || n->kind == SEARCH_SOFTIRQ)
		top_rows(db, irq_hits_sql, "hit", name, 0, j, NULL);
	else if (n->kind == SEARCH_PREEMPT) {
		json_t *d;
		size_t k;
		top_rows(db, preempt_hits_sql, "hit", NULL, 0, j, NULL);
		json_array_foreach(j, k, d) /* the functions from below f0 down to it */
			json_object_set_new(d, "path",
					    search_db_chain(db, r->nodes[0].id,
							    json_integer_value(json_object_get(d, "fnode"))));
		top_rows(db, paths_ran_instead_sql, "ran instead", NULL, 0, j, NULL);
	} else if (n->kind == SEARCH_BLOCKED && n->parent >= 0) {
		char *who = NULL;
		if (!top_rows(db, paths_wakers_sql, "woken by", NULL, sleeper(r, i), j, &who))
			paths_woken_keep(db, sleeper(r, i), who);
		free(who);
	}
	return j;
}

static int by_votes(const void *a, const void *b)
{
	const struct search_cand *x = a, *y = b;
	return x->maxcount != y->maxcount ? y->maxcount - x->maxcount
					  : (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
}

/*
 * DARC's continuation of a blocking wait into the I/O that ended it: the
 * bios that completed during the sleeps of fnode @fnode (-1: f0's own)
 * whose wake-up a bio completion made (in the completion's context, on its
 * CPU, after it), their time by stage (queue, device, completion to
 * wake-up, run delay) and the one that dominates. A sleep that a timer or
 * another task ended gets none, whatever I/O the same calls did elsewhere.
 * NULL if no such bio. (Bio d is w's bio: only those completed in the sleep
 * can be its, and the index finds them from the search's sleeps, rather
 * than bio_wait's sleep looked up for every bio of the recording.)
 */
static json_t *io_detail(struct rdb *db, int64_t fnode)
{
	static const char q[] =
	    "SELECT count(*), sum(w.queue_ns), sum(w.device_ns), sum(w.wakeup_ns),"
	    " sum(w.run_delay_ns) FROM sr_sub s CROSS JOIN sched_interval si ON si.call_id = s.id"
	    " CROSS JOIN bio d ON d.task_id = si.task_id AND d.t_complete >= si.t_out"
	    " AND d.t_complete <= coalesce(si.t_in, 9223372036854775807)"
	    " CROSS JOIN bio_wait w ON w.bio_id = d.id AND w.sched_id = si.id"
	    " JOIN wakeup k ON k.id = si.wakeup_id"
	    " WHERE (s.fnode = ?1 OR (?1 = -1 AND s.parent IS NULL)) AND EXISTS (SELECT 1"
	    " FROM bio b WHERE b.task_id = si.task_id AND b.complete_cpu = k.waker_cpu"
	    " AND b.complete_ctx = k.ctx AND b.t_complete BETWEEN si.t_out AND k.t)";
	static const char *const stage[] = {"queue", "device", "completion to wake-up",
					    "run delay"};
	sqlite3_stmt *st;
	json_t *j = NULL;

	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, fnode);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
		double v[4], total = 0;
		int top = 0;
		json_t *stages = json_object();
		for (int k = 0; k < 4; k++) {
			v[k] = sqlite3_column_double(st, k + 1);
			total += v[k];
			top = v[k] > v[top] ? k : top;
			json_object_set_new(stages, stage[k], json_real(v[k]));
		}
		j = json_pack("{sI so ss sf}", "bios", (json_int_t)sqlite3_column_int64(st, 0),
			      "stages_ns", stages, "dominant", stage[top], "dominant_share",
			      total > 0 ? v[top] / total : 0.0);
	}
	sqlite3_finalize(st);
	return j;
}

/* @ns as a share of the peak's latency (f0's, node 0). */
static double peak_share(const struct search_result *r, double ns)
{
	return r->nnodes && r->nodes[0].total_ns > 0 ? ns / r->nodes[0].total_ns : 0;
}

/* The candidates weighed at node @i that did not win, most votes first (up to 3). */
static json_t *runners_up(struct rdb *db, const struct rsearch *rs, const struct search_result *r,
			  int i)
{
	struct search_cand *c = malloc((r->ncands + 1) * sizeof(*c));
	json_t *j = json_array();
	int n = 0;

	for (int k = 0; c && k < r->ncands; k++)
		if (r->cands[k].node == i && !r->cands[k].winner &&
		    (r->cands[k].maxcount > 0 ||
		     peak_share(r, r->cands[k].total_ns) >= SEARCH_RUNNER_UP_SHARE))
			c[n++] = r->cands[k];
	if (c)
		qsort(c, n, sizeof(*c), by_votes);
	/* the three with the most votes, and any other that holds its share of the time */
	for (int k = 0; k < n; k++) {
		if (k >= 3 && peak_share(r, c[k].total_ns) < SEARCH_RUNNER_UP_SHARE)
			continue;
		char *name = search_db_name(db, rs, c[k].kind, c[k].id);
		json_array_append_new(
		    j, json_pack("{ss so si sf sf}", "kind", search_kind_name(c[k].kind), "name",
				 jtext(name), "maxcount", c[k].maxcount, "total_ns", c[k].total_ns,
				 "share", peak_share(r, c[k].total_ns)));
		free(name);
	}
	free(c);
	return j;
}

/* The search tree as JSON: nodes with their winners' details and runners-up. */
static json_t *tree_json(struct rdb *db, const struct rsearch *rs, const struct search_result *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nnodes; i++) {
		const struct search_node *n = &r->nodes[i];
		char *name = search_db_name(db, rs, n->kind, n->id);
		json_t *o = json_pack("{si si si ss so si si sf sf ss}", "node", i, "parent",
				      n->parent, "depth", n->depth, "kind",
				      search_kind_name(n->kind), "name", jtext(name), "maxcount",
				      n->maxcount, "calls", n->ncalls, "total_ns", n->total_ns,
				      "share", n->share, "status", search_status_name(n->status));
		if (n->kind == SEARCH_FNODE)
			json_object_set_new(o, "fnode", json_integer(n->id));
		if (n->by_time) /* it lost the vote: a path for its share of the time */
			json_object_set_new(o, "by_time", json_true());
		if (n->at) { /* a part below the depth limit: the functions down to where */
			json_object_set_new(o, "at", json_integer(n->at));
			json_object_set_new(o, "below",
					    search_db_chain(db, r->nodes[n->parent].id, n->at));
		}
		if (n->overhead_ns > 0) { /* the tracer's own handlers: shown, never a cause */
			json_object_set_new(o, "overhead_ns", json_real(n->overhead_ns));
			json_object_set_new(o, "overhead_share",
					    json_real(peak_share(r, n->overhead_ns)));
		}
		json_object_set_new(o, "details", details(db, r, i, name));
		if (n->kind == SEARCH_BLOCKED) {
			json_t *io = io_detail(db, sleeper(r, i));
			if (io)
				json_object_set_new(o, "io", io);
		}
		json_object_set_new(o, "runners_up", runners_up(db, rs, r, i));
		json_array_append_new(a, o);
		free(name);
	}
	return a;
}

/* "waited on 200 bios: device 71% (59.5ms), ..." */
static void io_text(FILE *out, json_t *io, int indent)
{
	const char *keys[] = {"queue", "device", "completion to wake-up", "run delay"};
	json_t *st = json_object_get(io, "stages_ns");
	double total = 0;
	char amount[32];

	for (int k = 0; k < 4; k++)
		total += json_real_value(json_object_get(st, keys[k]));
	fprintf(out, "%*sthe I/O it waited for: %lld bios; %s %.0f%%", indent, "",
		json_integer_value(json_object_get(io, "bios")),
		json_string_value(json_object_get(io, "dominant")),
		100 * json_real_value(json_object_get(io, "dominant_share")));
	for (int k = 0; k < 4; k++) {
		double v = json_real_value(json_object_get(st, keys[k]));
		fprintf(out, "%s %s %s (%.0f%%)", k ? "," : ";", keys[k],
			show_amount(v, "ns", amount, sizeof(amount)), total > 0 ? 100 * v / total : 0);
	}
	fputc('\n', out);
}

/* A node's details, tracer overhead and runners-up ("down_write 422 votes, 40.9%"). */
static void node_text(FILE *out, json_t *n, int indent)
{
	size_t k;
	json_t *x, *ru = json_object_get(n, "runners_up");

	if (json_array_size(json_object_get(n, "below"))) {
		fprintf(out, "%*sin", indent, "");
		json_array_foreach(json_object_get(n, "below"), k, x)
			fprintf(out, "%s%s", k ? " > " : " ", vis(json_string_value(x)));
		fputc('\n', out);
	}
	json_array_foreach(json_object_get(n, "details"), k, x) {
		long long t = json_integer_value(json_object_get(x, "times"));
		fprintf(out, "%*s%s %s, %lld time%s, %s\n", indent, "",
			json_string_value(json_object_get(x, "role")),
			vis(json_string_value(json_object_get(x, "what"))), t, t == 1 ? "" : "s",
			vis(json_string_value(json_object_get(x, "text"))));
	}
	/* at f0, and below only where it weighs (1% of the peak) */
	if ((x = json_object_get(n, "overhead_share")) &&
	    (!json_integer_value(json_object_get(n, "depth")) || json_real_value(x) >= 0.01))
		fprintf(out, "%*stracer overhead %.1f%% (its own handlers: not a cause)\n", indent,
			"", 100 * json_real_value(x));
	if ((x = json_object_get(n, "io")))
		io_text(out, x, indent);
	if (json_array_size(ru))
		fprintf(out, "%*srunners-up:", indent, "");
	json_array_foreach(ru, k, x) {
		long long v = json_integer_value(json_object_get(x, "maxcount"));
		fprintf(out, "%s %s %lld vote%s, %.1f%%", k ? ";" : "",
			vis(json_string_value(json_object_get(x, "name"))), v, v == 1 ? "" : "s",
			100 * json_real_value(json_object_get(x, "share")));
	}
	if (json_array_size(ru))
		fputc('\n', out);
}

/* One line per node, indented by depth, its details and runners-up below it. */
void paths_tree_text(FILE *out, json_t *nodes)
{
	size_t i;
	json_t *n;

	json_array_foreach(nodes, i, n) {
		int depth = json_integer_value(json_object_get(n, "depth"));
		const char *status = json_string_value(json_object_get(n, "status"));
		fprintf(out, "%*s%-*s %5.1f%%  maxcount %lld/%lld%s%s%s\n", 2 * depth, "",
			40 - 2 * depth > 8 ? 40 - 2 * depth : 8,
			vis(json_string_value(json_object_get(n, "name"))),
			100 * json_real_value(json_object_get(n, "share")),
			json_integer_value(json_object_get(n, "maxcount")),
			json_integer_value(json_object_get(n, "calls")),
			json_is_true(json_object_get(n, "by_time")) ? "  followed for its time" : "",
			*status ? "  " : "", status);
		node_text(out, n, 2 * depth + 4);
	}
}

/* The search's parameters and the calls' filters, as JSON text (caller frees). */
static char *params_json(const struct report_options *o, const struct search_params *sp)
{
	json_t *j =
	    json_pack("{si sf si ss}", "max_depth", sp->max_depth, "maxcount_pct", sp->maxcount_pct,
		      "min_bucket", sp->min_bucket, "mode", sp->mode == SEARCH_SUM ? "sum" : "max");
	char *s;

	if (sp->branch_pct > 0)
		json_object_set_new(j, "branch_pct", json_real(sp->branch_pct));
	options_filters_json(o, j);
	s = json_dumps(jtext_clean(j), JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return s;
}

/* Search one peak (@number, or 0 for a range given) and add its answer to @all. */
int paths_search(struct rdb *db, const struct report_options *o, const struct search_params *sp,
		 const char *what, int number, const struct peak *pk, json_t *all,
		 struct err_msg *err)
{
	struct rsearch rs;
	struct search_result r = {0};
	char *params = params_json(o, sp);
	int64_t id = 0;
	int rc = -1;

	if (!params)
		return err_setf(err, NULL, "out of memory");
	if (!search_db_load(db, &o->sel, pk->lo, pk->hi, &rs, err)) {
		int failed = search_run_tree(&rs.tree, sp, &r);
		json_t *flame = o->flame ? flame_json(db, &rs.tree) : NULL;
		search_tree_release(&rs.tree); /* searched: its memory is the details' */
		if (failed)
			err_setf(err, NULL, "the search failed (out of memory?)");
		else if (!search_db_store(db, &o->sel, what, number, pk->lo, pk->hi, params, &rs,
					  &r, &id, err)) {
			json_t *one = json_pack("{sI si si si si so}", "search", (json_int_t)id, "peak",
						number, "lo", pk->lo, "hi", pk->hi, "calls", rs.nroots,
						"nodes", tree_json(db, &rs, &r));
			if (flame)
				json_object_set(one, "flame", flame);
			json_array_append_new(all, one);
			rc = 0;
		}
		json_decref(flame);
	}
	search_release(&r);
	search_db_release(&rs);
	free(params);
	return rc;
}

/* The text of all the peaks' answers. */
static void paths_text(FILE *out, const char *what, const struct report_options *o,
		       const struct search_params *sp, json_t *all)
{
	size_t i;
	json_t *p;

	json_array_foreach(all, i, p) {
		char a[32], b[32];
		int lo = json_integer_value(json_object_get(p, "lo"));
		int hi = json_integer_value(json_object_get(p, "hi"));
		int number = json_integer_value(json_object_get(p, "peak"));
		uint64_t lo_v, hi_v, x;
		/* the buckets' values at the selection's resolution (bucket 65 at 3: 3.3ms) */
		show_bucket_range(lo, o->sel.resolution, &lo_v, &x);
		show_bucket_range(hi, o->sel.resolution, &x, &hi_v);
		fprintf(out, "%s%s", i ? "\n" : "", vis(what));
		if (number)
			fprintf(out, ", peak %d", number);
		fprintf(out,
			" (buckets %d-%d, %s .. %s): %lld calls; search %lld (max_depth %d,"
			" maxcount %g%%, min_bucket %d, mode %s)\n",
			lo, hi, show_amount(lo_v, options_unit(o), a, sizeof(a)),
			show_amount(hi_v + 1, options_unit(o), b, sizeof(b)),
			json_integer_value(json_object_get(p, "calls")),
			json_integer_value(json_object_get(p, "search")), sp->max_depth,
			sp->maxcount_pct, sp->min_bucket, sp->mode == SEARCH_SUM ? "sum" : "max");
		paths_tree_text(out, json_object_get(p, "nodes"));
	}
}

/*
 * Search every peak of @o's selection (or peak @peak, or the ranges given)
 * into @all (a JSON array, one object per peak searched); *@what gets the
 * selection's title (caller frees). 0, or -1 with @err set.
 */
static int paths_collect(struct rdb *db, const struct report_options *o,
			 const struct search_params *sp, int peak, json_t *all, char **what,
			 struct err_msg *err)
{
	struct profile p;
	struct rdb_profile_info info;
	struct peak *pk = NULL;
	int npk, rc = 0;

	*what = NULL;
	/*
	 * The peaks a person sees fold a tiny peak by its share of the latency:
	 * on the calls' own latency, as darc peaks finds them, not on bucket
	 * midpoints (a 5.0 ms call is 4.4% of vm-preads' pread64, its midpoint
	 * 6.3%: folded by the one, a peak of its own by the other)
	 */
	if ((o->pp.rule == PEAK_SEEN && !o->npeaks ? rdb_profile_load_keep : rdb_profile_load_hist)(
		db, &o->sel, &p, &info, err))
		return -1;
	npk = options_peaks(o, &p, &pk);
	if (npk < 0)
		rc = err_setf(err, NULL, "out of memory");
	else if (peak > npk)
		rc = err_setf(err, rdb_path(db), "%s has %d peak%s, not %d", info.what, npk,
			      npk == 1 ? "" : "s", peak);
	else if (!peak && npk > 1 && (!o->sel.func || !rdb_func_indexed(db))) /* one scan for all */
		rc = search_db_preselect(db, &o->sel, pk, npk, err);
	for (int k = 0; !rc && k < npk; k++)
		if (!peak || peak == k + 1)
			rc = paths_search(db, o, sp, info.what, o->npeaks ? 0 : k + 1, &pk[k], all,
					  err);
	rdb_preselect_end(db);
	rdb_kept_end(db);
	*what = info.what;
	free(pk);
	rdb_profile_release(&p);
	return rc;
}

int paths_report(FILE *out, struct rdb *db, const struct report_options *o,
		 const struct search_params *sp, int peak, struct err_msg *err)
{
	json_t *all = json_array();
	char *what;
	int rc = paths_collect(db, o, sp, peak, all, &what, err);

	if (!rc && o->json)
		rc = show_json_to(out, "paths", "searches", all, err);
	else if (!rc)
		paths_text(out, what, o, sp, all);
	json_decref(all);
	free(what);
	return rc;
}
