// SPDX-License-Identifier: MIT
#include "irq-episode.h"

#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

/* One named hard-interrupt interval. */
struct episode {
	int64_t cpu, start;
	int64_t end;   /* INT64_MAX: its end not seen */
	int64_t reach; /* the latest end of this CPU's intervals up to this one */
	int64_t id;
};

/* A connection's intervals, sorted by CPU, start and id; read at the first call. */
struct episodes {
	struct episode *v;
	int n, cap;
	int state; /* 0 not read yet, 1 read, -1 could not be read */
};

static const char episodes_sql[] =
    "SELECT cpu, t_start, coalesce(t_end, 9223372036854775807), id FROM irq_interval"
    " WHERE kind = 0 AND name != '' AND t_start IS NOT NULL ORDER BY cpu, t_start, id";

static int load(struct episodes *e, sqlite3 *sql)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(sql, episodes_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct episode *p;
		if (GROW(e->v, e->n, e->cap, 256)) {
			rc = SQLITE_NOMEM;
			break;
		}
		p = &e->v[e->n];
		p->cpu = sqlite3_column_int64(st, 0);
		p->start = sqlite3_column_int64(st, 1);
		p->end = sqlite3_column_int64(st, 2);
		p->id = sqlite3_column_int64(st, 3);
		p->reach = e->n && p[-1].cpu == p->cpu && p[-1].reach > p->end ? p[-1].reach : p->end;
		e->n++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The index after the last interval at or before (@cpu, @t) in the sort order. */
static int upper(const struct episodes *e, int64_t cpu, int64_t t)
{
	int lo = 0, hi = e->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct episode *p = &e->v[mid];
		if (p->cpu < cpu || (p->cpu == cpu && p->start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void irq_episode(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct episodes *e = sqlite3_user_data(ctx);
	int64_t cpu, t;

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
		return; /* NULL: a NULL or non-integer CPU or time holds no interval */
	if (!e->state)
		e->state = load(e, sqlite3_context_db_handle(ctx)) ? -1 : 1;
	if (e->state < 0) {
		sqlite3_result_error(ctx, "irq_episode: cannot read irq_interval", -1);
		return;
	}
	cpu = sqlite3_value_int64(argv[0]);
	t = sqlite3_value_int64(argv[1]);
	for (int i = upper(e, cpu, t) - 1; i >= 0 && e->v[i].cpu == cpu && e->v[i].reach >= t; i--)
		if (e->v[i].end >= t) {
			sqlite3_result_int64(ctx, e->v[i].id);
			return;
		}
}

static void episodes_free(void *p)
{
	struct episodes *e = p;

	free(e->v);
	free(e);
}

int irq_episode_register(sqlite3 *sql)
{
	struct episodes *e = calloc(1, sizeof(*e));

	if (!e)
		return SQLITE_NOMEM;
	return sqlite3_create_function_v2(sql, "irq_episode", 2,
					  SQLITE_UTF8 | SQLITE_DIRECTONLY, e, irq_episode,
					  NULL, NULL, episodes_free);
}
