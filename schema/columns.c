// SPDX-License-Identifier: MIT
/* columns: the lists of columns.h as data, for SQL made at run time. */
#include "columns.h"

#include <sqlite3.h>
#include <string.h>

/* Every table of columns.h with its list. */
#define DB_TABLES(T)                                                                               \
	T(recording, RECORDING_COLUMNS)                                                            \
	T(task, TASK_COLUMNS)                                                                      \
	T(func, FUNC_COLUMNS)                                                                      \
	T(call_base, CALL_BASE_COLUMNS)                                                            \
	T(call_extra, CALL_EXTRA_COLUMNS)                                                          \
	T(call_value, CALL_VALUE_COLUMNS)                                                          \
	T(fnode, FNODE_COLUMNS)                                                                    \
	T(hist, HIST_COLUMNS)                                                                      \
	T(irq_interval, IRQ_INTERVAL_COLUMNS)                                                      \
	T(sched_interval, SCHED_INTERVAL_COLUMNS)                                                  \
	T(sched_gap, SCHED_GAP_COLUMNS)                                                            \
	T(wakeup, WAKEUP_COLUMNS)                                                                  \
	T(probe_hit, PROBE_HIT_COLUMNS)                                                            \
	T(bio, BIO_COLUMNS)                                                                        \
	T(peak, PEAK_COLUMNS)                                                                      \
	T(search, SEARCH_COLUMNS)                                                                  \
	T(search_path, SEARCH_PATH_COLUMNS)                                                        \
	T(search_candidate, SEARCH_CANDIDATE_COLUMNS)                                              \
	T(explain_subject, EXPLAIN_SUBJECT_COLUMNS)                                                \
	T(explain_cause, EXPLAIN_CAUSE_COLUMNS)                                                    \
	T(io_layer, IO_LAYER_COLUMNS)

#define COL_NAME(t, n, type) #n,
#define COL_TYPE(t, n, type) #type,
#define TABLE_ARRAYS(t, LIST)                                                                      \
	static const char *const t##_cols[] = {LIST(COL_NAME)};                                   \
	static const char *const t##_types[] = {LIST(COL_TYPE)};
DB_TABLES(TABLE_ARRAYS)

#define TABLE_ENTRY(t, LIST) {#t, t##_cols, t##_types, sizeof(t##_cols) / sizeof(t##_cols[0])},
const struct columns_table columns_tables[] = {DB_TABLES(TABLE_ENTRY){NULL, NULL, NULL, 0}};

const struct columns_table *columns_table(const char *name)
{
	for (const struct columns_table *t = columns_tables; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

char *columns_list(const struct columns_table *t)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	for (int i = 0; i < t->ncols; i++)
		sqlite3_str_appendf(s, "%s%s", i ? ", " : "", t->cols[i]);
	return sqlite3_str_finish(s);
}

int columns_prepare_insert(sqlite3 *sql, const char *table, sqlite3_stmt **st)
{
	const struct columns_table *t = columns_table(table);
	char *cols = t ? columns_list(t) : NULL;
	sqlite3_str *q = sqlite3_str_new(NULL);
	char *text;
	int rc;

	sqlite3_str_appendf(q, "INSERT INTO %s(%s) VALUES (", table, cols ? cols : "");
	for (int i = 0; t && i < t->ncols; i++)
		sqlite3_str_appendf(q, "%s?%d", i ? ", " : "", i + 1);
	sqlite3_str_appendall(q, ")");
	text = sqlite3_str_finish(q);
	rc = !t ? SQLITE_MISUSE : cols && text ? sqlite3_prepare_v2(sql, text, -1, st, NULL)
					       : SQLITE_NOMEM;
	sqlite3_free(cols);
	sqlite3_free(text);
	return rc;
}
