/* SPDX-License-Identifier: MIT */
/*
 * trust: a database is untrusted input. A darc database attached to a bug
 * report may hold triggers, views or indexes of its own, or darc's tables
 * and views redefined (a view `call` as an endless recursive query, a
 * trigger that runs on darc's own inserts): every connection darc opens to
 * an existing database is defensive (SQLITE_DBCONFIG_DEFENSIVE, no trusted
 * schema, no triggers), and a database is used only when every object in
 * its schema is one darc makes, defined as darc defines it for this schema
 * version (tables.sql, views.sql, indexes.sql, call-indexes.sql, the indexes
 * a report command makes on demand, and the statistics ANALYZE keeps).
 */
#ifndef DARC_TRUST_H
#define DARC_TRUST_H

#include <sqlite3.h>

#include "err-msg.h"

/*
 * The indexes a report command makes once, when it first needs them (never
 * darc analyze), by name: their DDL; and call_fnode_incl, which no darc
 * makes since analyze/report/rdb.c's rdb_func_indexed() but a database may
 * have. NULL for another name.
 */
const char *trust_lazy_index_sql(const char *name);

/*
 * Open @path with sqlite3_open_v2() @flags, defensively (see above), in
 * *@out. 0, or -1 with @err set (*@out closed and NULL).
 */
int trust_open(const char *path, int flags, sqlite3 **out, struct err_msg *err);

/*
 * Is the schema of @sql (open on @path) darc's own, object by object? 0, or
 * -1 with @err naming the first object that is not ("'x.db': not darc's
 * schema: view call is not darc's").
 */
int trust_check_schema(sqlite3 *sql, const char *path, struct err_msg *err);

#endif
