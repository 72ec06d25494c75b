// SPDX-License-Identifier: MIT
/*
 * darc io: per request (one call of a function, a system call say), its
 * latency split into layers, ReLayTracer's way, exactly: each call's own CPU
 * time goes to the layer of its function (a function no pattern names takes
 * its caller's), interrupts and preemption to their own, and each sleep is
 * split by the bio that ended it into its queue, device, completion-to-wake-up
 * and run-delay parts (the rest of a sleep is "other wait"). The layers add up
 * to the request's latency, to the nanosecond.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "grow.h"
#include "io-bios.h"
#include "io-layers.h"
#include "jtext.h"
#include "show.h"

enum { L_VFS, L_FS, L_CACHE, L_COPY, L_BLOCK, L_DRIVER, L_SCHED, L_OTHER, L_IRQ, L_PREEMPT,
       L_QUEUE, L_DEVICE, L_WAKE, L_RUNDELAY, L_WAIT, NLAYER };

static const char *const layer_name[NLAYER] = {
    "vfs",	"fs",	  "page cache", "copy",	    "block",	  "driver",
    "scheduler", "other", "irq",	"preempted", "block queue", "device",
    "completion to wake-up", "run delay", "other wait"};

/* The default map: function glob -> layer; the first match wins. */
static const struct {
	const char *glob;
	int layer;
} default_map[] = {
    {"__x64_sys_*", L_VFS}, {"ksys_*", L_VFS}, {"vfs_*", L_VFS}, {"rw_verify_area", L_VFS},
    {"security_*", L_VFS}, {"fsnotify*", L_VFS}, {"*fdget*", L_VFS}, {"ext4_*", L_FS},
    {"jbd2*", L_FS}, {"iomap_*", L_FS}, {"__iomap_*", L_FS}, {"xfs_*", L_FS}, {"btrfs_*", L_FS},
    {"filemap_*", L_CACHE}, {"folio_*", L_CACHE}, {"page_cache_*", L_CACHE},
    {"*readahead*", L_CACHE}, {"workingset_*", L_CACHE}, {"*copy_page_to_iter*", L_COPY},
    {"*copy_page_from_iter*", L_COPY}, {"_copy_*", L_COPY}, {"copy_user*", L_COPY},
    {"submit_bio*", L_BLOCK}, {"blk_*", L_BLOCK}, {"__blk_*", L_BLOCK}, {"bio_*", L_BLOCK},
    {"virtio*", L_DRIVER}, {"virtblk*", L_DRIVER}, {"nvme*", L_DRIVER}, {"scsi*", L_DRIVER},
    {"*schedule*", L_SCHED}, {"__sched_text_start", L_SCHED}, {"finish_task_switch*", L_SCHED},
};

/* The layer of @func: the user's rules first, then the default map, else @inherited. */
static int layer_of(const struct io_rules *rules, const char *func, int inherited)
{
	for (int i = 0; rules && i < rules->n; i++)
		if (!fnmatch(rules->r[i].glob, func, 0))
			return rules->r[i].layer;
	for (size_t i = 0; i < sizeof(default_map) / sizeof(default_map[0]); i++)
		if (!fnmatch(default_map[i].glob, func, 0))
			return default_map[i].layer;
	return inherited;
}

void io_rules_free(struct io_rules *rules)
{
	for (int i = 0; i < rules->n; i++)
		free(rules->r[i].glob);
	free(rules->r);
	rules->r = NULL;
	rules->n = 0;
}

/* A CPU layer by name ("page cache"), or -1: the others come from the events. */
static int layer_named(const char *name)
{
	for (int i = 0; i <= L_OTHER; i++)
		if (!strcmp(layer_name[i], name))
			return i;
	return -1;
}

/* One line "GLOB LAYER" (the layer may hold spaces) into @rules; 1 if blank. */
static int rule_line(char *line, struct io_rules *rules, int *cap)
{
	char *glob = line + strspn(line, " \t"), *name;
	size_t n;
	int layer;

	line[strcspn(line, "#\n")] = 0;
	if (!*glob)
		return 1;
	name = glob + strcspn(glob, " \t");
	if (*name)
		*name++ = 0;
	name += strspn(name, " \t");
	for (n = strlen(name); n && (name[n - 1] == ' ' || name[n - 1] == '\t'); n--)
		name[n - 1] = 0;
	layer = layer_named(name);
	if (layer < 0 || GROW(rules->r, rules->n, *cap, 16))
		return -1;
	rules->r[rules->n].glob = strdup(glob);
	rules->r[rules->n].layer = layer;
	return rules->r[rules->n++].glob ? 0 : -1;
}

int io_rules_load(const char *path, struct io_rules *rules, struct err_msg *err)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int cap = 0, no = 0, rc = 0;

	rules->r = NULL;
	rules->n = 0;
	if (!f)
		return err_setf(err, path, "%s", strerror(errno));
	while (!rc && fgets(line, sizeof(line), f)) {
		no++;
		if (rule_line(line, rules, &cap) < 0)
			rc = err_setf(err, path,
				      "line %d: not 'GLOB LAYER' with a layer of vfs, fs, "
				      "page cache, copy, block, driver, scheduler, other",
				      no);
	}
	if (!rc && ferror(f))
		rc = err_setf(err, path, "%s", strerror(errno));
	fclose(f);
	if (rc)
		io_rules_free(rules);
	return rc;
}

static const char subtree_sql[] =
    "WITH RECURSIVE sub(id, last_id, depth) AS (SELECT id, last_id, 0 FROM call_base"
    " WHERE id = ?1 UNION ALL SELECT b.id, b.last_id, sub.depth + 1 FROM sub JOIN call_base b"
    " ON b.id BETWEEN sub.id + 1 AND sub.last_id AND b.parent_id = sub.id)"
    " SELECT c.id, c.parent_id, f.name, c.excl_ns, c.irq_ns + c.softirq_ns, c.preempt_ns,"
    " c.blocked_ns FROM sub JOIN call c ON c.id = sub.id JOIN func f ON f.id = c.func_id"
    " ORDER BY sub.depth, c.id";

/* The sleeps in the call's time with the bio each ended (the last one). */
static const char sleeps_sql[] =
    "SELECT s.t_out, s.t_in, b.t_queue, b.t_issue, b.t_complete, w.t"
    " FROM sched_interval s LEFT JOIN wakeup w ON w.id = s.wakeup_id"
    " LEFT JOIN bio b ON b.id = (SELECT max(b2.id) FROM bio b2 WHERE b2.task_id = s.task_id"
    "   AND b2.t_complete >= s.t_out AND b2.t_complete <= coalesce(w.t, s.t_in))"
    " WHERE s.kind = 1 AND s.task_id = (SELECT task_id FROM call WHERE id = ?1)"
    " AND s.t_out >= (SELECT t_entry FROM call WHERE id = ?1)"
    " AND s.t_in <= (SELECT t_exit FROM call WHERE id = ?1)";

/* Overlap of [a, b) with [lo, hi), 0 if either end is unknown. */
static int64_t overlap(int64_t a, int64_t b, int64_t lo, int64_t hi, bool known)
{
	int64_t x = a > lo ? a : lo, y = b < hi ? b : hi;

	return known && y > x ? y - x : 0;
}

static int64_t col(sqlite3_stmt *st, int i, bool *known)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		*known = false;
		return 0;
	}
	return sqlite3_column_int64(st, i);
}

/* Split the calls' sleep time: the stages of the bios that ended the sleeps. */
static int split_sleeps(sqlite3 *sql, int64_t call, int64_t *l)
{
	sqlite3_stmt *st;
	int64_t blocked = l[L_WAIT];

	if (sqlite3_prepare_v2(sql, sleeps_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, call);
	while (sqlite3_step(st) == SQLITE_ROW) {
		bool k = true;
		int64_t out = col(st, 0, &k), in = col(st, 1, &k), part[4];
		int64_t q = col(st, 2, &k), is = col(st, 3, &k), c = col(st, 4, &k);
		int64_t w = sqlite3_column_type(st, 5) == SQLITE_NULL ? c : sqlite3_column_int64(st, 5);
		if (!k)
			continue; /* no bio ended it: other wait */
		part[0] = overlap(q, is, out, in, true);
		part[1] = overlap(is, c, out, in, true);
		part[2] = overlap(c, w, out, in, true);
		part[3] = overlap(w, in, out, in, true);
		for (int i = 0; i < 4; i++) {
			int64_t v = part[i] < blocked ? part[i] : blocked; /* never more than slept */
			l[L_QUEUE + i] += v;
			blocked -= v;
		}
	}
	sqlite3_finalize(st);
	l[L_WAIT] = blocked;
	return 0;
}

/* The layers of call @id into @l (ns); its incl_ns into *incl. 0 or -1. */
static int layers(sqlite3 *sql, const struct io_rules *rules, int64_t id, int64_t *l,
		  int64_t *incl)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	int *lay = NULL, n = 0, cap = 0;

	memset(l, 0, NLAYER * sizeof(*l));
	*incl = 0;
	if (sqlite3_prepare_v2(sql, subtree_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t parent = sqlite3_column_int64(st, 1), inherited = L_OTHER;
		int cap2 = cap;
		if (GROW(ids, n, cap, 256) || GROW(lay, n, cap2, 256))
			break;
		for (int k = n - 1; k >= 0 && n; k--) /* parents come before (by depth) */
			if (ids[k] == parent) {
				inherited = lay[k];
				break;
			}
		ids[n] = sqlite3_column_int64(st, 0);
		lay[n] = layer_of(rules, rdb_text(st, 2), (int)inherited);
		l[lay[n]] += sqlite3_column_int64(st, 3);
		l[L_IRQ] += sqlite3_column_int64(st, 4);
		l[L_PREEMPT] += sqlite3_column_int64(st, 5);
		l[L_WAIT] += sqlite3_column_int64(st, 6);
		n++;
	}
	sqlite3_finalize(st);
	free(ids);
	free(lay);
	*incl = 0;
	for (int i = 0; i < NLAYER; i++)
		*incl += l[i];
	return n ? split_sleeps(sql, id, l) : -1;
}

/*
 * What call @id returned, into @o: "retval" (the number; call_base.retval)
 * and, for an error code, "error" (its name, "-EAGAIN"). Nothing if not recorded.
 */
static void returned_json(sqlite3 *sql, int64_t id, json_t *o)
{
	static const char q[] =
	    "SELECT c.retval, CASE WHEN c.retval BETWEEN -4095 AND -1 THEN"
	    " '-' || coalesce(e.name, -c.retval) END FROM call_base c"
	    " LEFT JOIN errno_name e ON e.code = -c.retval WHERE c.id = ?1 AND c.retval IS NOT NULL";
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(sql, q, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		json_object_set_new(o, "retval", json_integer(sqlite3_column_int64(st, 0)));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			json_object_set_new(o, "error",
					    jtext(rdb_text(st, 1)));
	}
	sqlite3_finalize(st);
}

static json_t *request_json(sqlite3 *sql, const struct io_rules *rules, int64_t id,
			    int64_t want)
{
	int64_t l[NLAYER], sum;
	json_t *o, *a = json_object();

	if (layers(sql, rules, id, l, &sum)) {
		json_decref(a);
		return NULL;
	}
	for (int i = 0; i < NLAYER; i++)
		if (l[i])
			json_object_set_new(a, layer_name[i], json_integer(l[i]));
	o = json_pack("{sI sI sI sb so}", "call", (json_int_t)id, "incl_ns", (json_int_t)want,
		      "layers_sum_ns", (json_int_t)sum, "adds_up", sum == want, "layers", a);
	if (o)
		returned_json(sql, id, o);
	return o;
}

static void request_text(FILE *out, json_t *r)
{
	const char *k;
	json_t *v;
	char a[32];
	double incl = json_integer_value(json_object_get(r, "incl_ns"));
	json_t *ret = json_object_get(r, "retval"), *error = json_object_get(r, "error");

	fprintf(out, "call %lld: %s", json_integer_value(json_object_get(r, "call")),
		show_amount(incl, "ns", a, sizeof(a)));
	if (error) /* the error code's name; the number in JSON */
		fprintf(out, ", returned %s", json_string_value(error));
	else if (ret)
		fprintf(out, ", returned %lld", json_integer_value(ret));
	fprintf(out, "%s\n",
		json_is_true(json_object_get(r, "adds_up")) ? " (the layers add up exactly)"
							     : " (the layers do NOT add up)");
	json_object_foreach(json_object_get(r, "layers"), k, v)
		fprintf(out, "  %-22s %10s %5.1f%%\n", k,
			show_amount(json_integer_value(v), "ns", a, sizeof(a)),
			incl > 0 ? 100 * json_integer_value(v) / incl : 0);
}

/* The requests @ctx (a JSON array) into table io_layer, replacing their earlier rows. */
static int put_layers(sqlite3 *w, void *ctx)
{
	json_t *all = ctx, *r, *v;
	sqlite3_stmt *del = NULL, *ins = NULL;
	const char *k;
	size_t i;
	int bad = sqlite3_prepare_v2(w, "DELETE FROM io_layer WHERE call_id = ?1", -1, &del, NULL) ||
		  columns_prepare_insert(w, "io_layer", &ins);

	json_array_foreach(all, i, r) {
		json_int_t id = json_integer_value(json_object_get(r, "call"));
		if (bad)
			break;
		sqlite3_bind_int64(del, 1, id);
		bad = sqlite3_step(del) != SQLITE_DONE;
		sqlite3_reset(del);
		json_object_foreach(json_object_get(r, "layers"), k, v) {
			sqlite3_bind_int64(ins, 1, id);
			sqlite3_bind_text(ins, 2, k, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ins, 3, json_integer_value(v));
			bad = bad || sqlite3_step(ins) != SQLITE_DONE;
			sqlite3_reset(ins);
		}
	}
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return bad;
}

static int store_layers(struct rdb *db, json_t *all, struct err_msg *err)
{
	return rdb_store(db, "layers", put_layers, all, err);
}

/* @q prepared on @db, with an empty array for its rows in *@all; NULL with @err set. */
static sqlite3_stmt *prepare(struct rdb *db, const char *q, json_t **all, struct err_msg *err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK) {
		err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
		return NULL;
	}
	if (!(*all = json_array())) {
		sqlite3_finalize(st);
		err_setf(err, rdb_path(db), "out of memory");
		return NULL;
	}
	return st;
}

/* The @top slowest complete calls of @func (or call @call alone), each with its layers: a JSON array. */
static json_t *requests(struct rdb *db, const struct io_rules *rules, const char *func,
			int64_t call, int top, struct err_msg *err)
{
	static const char pick[] =
	    "SELECT c.id, c.incl_ns FROM call c JOIN func f ON f.id = c.func_id"
	    " WHERE (?1 != 0 AND c.id = ?1) OR (?1 = 0 AND f.name = ?2 AND c.incl_ns IS NOT NULL"
	    " AND c.flags & 3 = 0) ORDER BY c.incl_ns DESC LIMIT ?3";
	json_t *all;
	sqlite3_stmt *st = prepare(db, pick, &all, err);

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, call);
	sqlite3_bind_text(st, 2, func ? func : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, top);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *one = request_json(rdb_sql(db), rules, sqlite3_column_int64(st, 0),
					   sqlite3_column_int64(st, 1));
		if (one)
			json_array_append_new(all, one);
	}
	sqlite3_finalize(st);
	return all;
}

int io_report(FILE *out, struct rdb *db, const struct io_rules *rules, const char *func,
	      int64_t call, int top, bool json, struct err_msg *err)
{
	json_t *all = requests(db, rules, func, call, top, err), *r;
	size_t i;
	int rc = 0;

	if (!all)
		return -1;
	if (!json_array_size(all))
		rc = err_setf(err, rdb_path(db), "no complete call %s",
			      func ? func : "with that id");
	else if (store_layers(db, all, err))
		rc = -1;
	else if (json)
		rc = show_json_to(out, "io", "requests", all, err);
	else
		json_array_foreach(all, i, r) {
			fprintf(out, "%s", i ? "\n" : "");
			request_text(out, r);
		}
	json_decref(all);
	return rc;
}

/*
 * The entry points: the functions at the roots of the call trees, by their
 * total latency; not the tracer's own, nor those whose calls mostly ran in
 * interrupt context (as darc explain's subjects).
 */
static const char entries_sql[] =
    "WITH irq(id, n) AS (SELECT b.fnode_id, count(*) FROM call_extra e"
    "  JOIN call_base b ON b.id = e.id JOIN fnode bn ON bn.id = b.fnode_id"
    "  WHERE e.flags & 24 AND bn.depth = 0 GROUP BY b.fnode_id)"
    " SELECT f.name, sum(fn.calls), sum(fn.incl_ns) FROM fnode fn JOIN func f ON f.id = fn.func_id"
    " LEFT JOIN irq ON irq.id = fn.id WHERE fn.parent_id IS NULL AND NOT f.overhead"
    " AND coalesce(irq.n, 0) * 2 <= fn.calls GROUP BY f.name HAVING sum(fn.calls) > 0"
    " ORDER BY 3 DESC, 1 LIMIT ?1";

/* The layers of @reqs summed into one object, by layer name. */
static json_t *layers_summed(json_t *reqs)
{
	json_t *sum = json_object(), *r, *v;
	const char *k;
	size_t i;

	json_array_foreach(reqs, i, r) {
		json_object_foreach(json_object_get(r, "layers"), k, v) {
			json_int_t had = json_integer_value(json_object_get(sum, k));
			json_object_set_new(sum, k, json_integer(had + json_integer_value(v)));
		}
	}
	return sum;
}

/* One entry point in text: its calls, latency, and its slowest calls' layers, largest first. */
static void entry_text(FILE *out, json_t *e)
{
	json_t *l = json_object_get(e, "layers"), *v;
	double total = 0;
	const char *k, *shown[NLAYER];
	int n = 0;
	char a[32];

	fprintf(out, "%s: %lld calls, %s in all; its %lld slowest:\n",
		json_string_value(json_object_get(e, "func")),
		json_integer_value(json_object_get(e, "calls")),
		show_amount(json_integer_value(json_object_get(e, "total_ns")), "ns", a, sizeof(a)),
		json_integer_value(json_object_get(e, "requests")));
	json_object_foreach(l, k, v)
		total += json_integer_value(v);
	while (n < NLAYER) { /* largest first: a selection over a dozen layers */
		const char *best = NULL;
		json_int_t bv = -1;
		json_object_foreach(l, k, v) {
			bool done = false;
			for (int i = 0; i < n; i++)
				done = done || !strcmp(shown[i], k);
			if (!done && json_integer_value(v) > bv) {
				bv = json_integer_value(v);
				best = k;
			}
		}
		if (!best)
			break;
		shown[n++] = best;
		fprintf(out, "  %-22s %10s %5.1f%%\n", best, show_amount(bv, "ns", a, sizeof(a)),
			total > 0 ? 100 * bv / total : 0);
	}
}

json_t *io_entries_json(struct rdb *db, const struct io_rules *rules, int top, int per,
			struct err_msg *err)
{
	json_t *all;
	sqlite3_stmt *st = prepare(db, entries_sql, &all, err);

	if (!st)
		return NULL;
	sqlite3_bind_int(st, 1, top);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f = rdb_text(st, 0);
		json_t *reqs = requests(db, rules, f, 0, per, err);
		if (!reqs)
			break;
		json_array_append_new(all, json_pack("{so sI sI sI so}", "func", jtext(f), "calls",
						     (json_int_t)sqlite3_column_int64(st, 1),
						     "total_ns",
						     (json_int_t)sqlite3_column_int64(st, 2),
						     "requests", (json_int_t)json_array_size(reqs),
						     "layers", layers_summed(reqs)));
		json_decref(reqs);
	}
	sqlite3_finalize(st);
	return all;
}

int io_overview_report(FILE *out, struct rdb *db, const struct io_rules *rules, int top,
		       bool json, struct err_msg *err)
{
	json_t *e = io_entries_json(db, rules, top, 20, err), *d, *r;
	size_t i;
	int rc = 0;

	if (!e)
		return -1;
	d = io_devices_json(db);
	if (json) {
		json_t *o = json_pack("{sO sO}", "entry_points", e, "devices", d);
		rc = show_json_to(out, "io", NULL, o, err);
		json_decref(o);
	} else {
		fprintf(out, "The entry points (roots of the call trees) by total latency, each with"
			     " the layers\nof its slowest calls summed (darc io --func F: call by"
			     " call):\n\n");
		json_array_foreach(e, i, r)
			entry_text(out, r);
		if (!json_array_size(e))
			fprintf(out, "no entry point has complete calls\n");
		io_devices_text(out, d);
	}
	json_decref(e);
	json_decref(d);
	return rc;
}
