// SPDX-License-Identifier: MIT
/*
 * darc waits: a task's (or a call's) longest waits, each with the chain of
 * waits behind it: the waker's own wait that ended within the slack before
 * the wake-up (view wait's parent_id, with a slack of the user's).
 */
#include <stdlib.h>
#include <string.h>

#include "explain-wake.h"
#include "jtext.h"
#include "show.h"
#include "vis.h"
#include "waits.h"

#define CHAIN_MAX 8

static const char wait_sql[] =
    "SELECT w.id, w.task_id, coalesce(t.comm, '?'), w.category, w.ns, w.run_delay_ns,"
    " w.waker_tid, coalesce(k.comm, ''), (SELECT p.id FROM sched_interval p"
    "   WHERE w.kind = 1 AND w.waker_ctx = 0 AND w.waker_tid != 0 AND p.task_id = w.waker_tid"
    "   AND p.kind = 1 AND p.t_in <= w.t_wakeup AND p.t_in >= w.t_wakeup - ?2"
    "   ORDER BY p.t_in DESC LIMIT 1), w.t_out"
    " FROM wait w LEFT JOIN task t ON t.tid = w.task_id LEFT JOIN task k ON k.tid = w.waker_tid"
    " WHERE w.id = ?1";
static const char roots_sql[] =
    "WITH RECURSIVE sub(id, last_id) AS (SELECT id, last_id FROM call_base WHERE id = ?2"
    " UNION ALL SELECT b.id, b.last_id FROM sub JOIN call_base b"
    " ON b.id BETWEEN sub.id + 1 AND sub.last_id AND b.parent_id = sub.id)"
    " SELECT w.id FROM wait w WHERE w.ns IS NOT NULL AND"
    " ((?1 != 0 AND w.task_id = ?1) OR (?2 != 0 AND w.call_id IN (SELECT id FROM sub)))"
    " ORDER BY w.ns DESC LIMIT ?3";

/* Wait @id as JSON, with its chain below it (@depth levels at most). */
static json_t *wait_json(sqlite3 *sql, int64_t id, int64_t slack, int depth)
{
	sqlite3_stmt *st;
	json_t *j = NULL;
	int64_t parent = 0;

	if (sqlite3_prepare_v2(sql, wait_sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, slack);
	if (sqlite3_step(st) == SQLITE_ROW) {
		j = json_pack("{sI sI so so sI sI sI so sI}", "wait", (json_int_t)id, "task",
			      (json_int_t)sqlite3_column_int64(st, 1), "comm",
			      jtext(rdb_text(st, 2)), "category",
			      jtext(rdb_text(st, 3)), "ns",
			      (json_int_t)sqlite3_column_int64(st, 4), "run_delay_ns",
			      (json_int_t)sqlite3_column_int64(st, 5), "waker",
			      (json_int_t)sqlite3_column_int64(st, 6), "waker_comm",
			      jtext(rdb_text(st, 7)), "t_out",
			      (json_int_t)sqlite3_column_int64(st, 9));
		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			parent = sqlite3_column_int64(st, 8);
	}
	sqlite3_finalize(st);
	if (j && parent && parent != id && depth > 1) {
		json_t *p = wait_json(sql, parent, slack, depth - 1);
		if (p)
			json_object_set_new(j, "behind", p);
	}
	return j;
}

static void wait_text(FILE *out, json_t *w, int indent)
{
	char ns[32], rd[32];

	for (; w; w = json_object_get(w, "behind"), indent += 2) {
		fprintf(out, "%*s%s %s [%lld] %s, %s", indent, "", indent ? "behind it:" : "",
			vis(json_string_value(json_object_get(w, "comm"))),
			json_integer_value(json_object_get(w, "task")),
			vis(json_string_value(json_object_get(w, "category"))),
			show_amount(json_integer_value(json_object_get(w, "ns")), "ns", ns,
				    sizeof(ns)));
		if (json_integer_value(json_object_get(w, "waker")))
			fprintf(out, ", woken by %s [%lld]",
				vis(json_string_value(json_object_get(w, "waker_comm"))),
				json_integer_value(json_object_get(w, "waker")));
		fprintf(out, ", run delay %s\n",
			show_amount(json_integer_value(json_object_get(w, "run_delay_ns")), "ns", rd,
				    sizeof(rd)));
	}
}

json_t *waits_json(struct rdb *db, const struct waits_sel *ws, struct err_msg *err)
{
	sqlite3_stmt *st;
	json_t *all = json_array();

	if (sqlite3_prepare_v2(rdb_sql(db), roots_sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(all);
		err_setf(err, rdb_path(db), "%s", rdb_why(rdb_sql(db)));
		return NULL;
	}
	sqlite3_bind_int64(st, 1, ws->task);
	sqlite3_bind_int64(st, 2, ws->call);
	sqlite3_bind_int(st, 3, ws->top);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *w = wait_json(rdb_sql(db), sqlite3_column_int64(st, 0), ws->slack_ns,
				      CHAIN_MAX);
		if (w)
			json_array_append_new(all, w);
	}
	sqlite3_finalize(st);
	return all;
}

int waits_report(FILE *out, struct rdb *db, const struct waits_sel *ws, bool json,
		 struct err_msg *err)
{
	json_t *all = waits_json(db, ws, err);
	int rc = 0;

	if (!all)
		return -1;
	if (json) {
		rc = show_json_to(out, "waits", "waits", all, err);
	} else {
		size_t i;
		json_t *w;
		if (!json_array_size(all))
			fprintf(out, "no wait of that %s\n", ws->task ? "task" : "call");
		json_array_foreach(all, i, w) {
			fprintf(out, "%zu.", i + 1);
			wait_text(out, w, 0);
		}
	}
	json_decref(all);
	return rc;
}

const char *waits_unnamed_advice(struct rdb *db, bool idle)
{
	/* episodes the context bits alone found have no name: no event of their own */
	if (!rdb_count(db, "SELECT count(*) FROM irq_interval WHERE kind = 0 AND name != ''"))
		return "the recording has no irq events: record irq and irq_vectors events";
	if (idle && !rdb_count(db, "SELECT count(*) FROM irq_interval WHERE kind = 0"
				  " AND name != '' AND task_id = 0"))
		return "the interrupts of idle CPUs are not in the recording, as with a pid"
		       " filter such as trace-cmd record -F or -P: record them on every CPU";
	/* irq_vectors' events name their episodes (local_timer_entry, ...) */
	if (!rdb_count(db, "SELECT count(*) FROM irq_interval WHERE kind = 0"
			  " AND name LIKE '%\\_entry' ESCAPE '\\'"))
		return "no event names the system vectors, the local timer and the IPIs:"
		       " record irq_vectors events";
	return "no irq event names it";
}
