/* SPDX-License-Identifier: MIT */
/*
 * db: writes one analysis into a new SQLite database.
 *
 * The rows are queued and written by a thread of db's own, so the analysis
 * runs on one core and SQLite on the other. The database is built in a
 * temporary file next to the target and renamed over it only by
 * db_finish(), so a failed or interrupted run never leaves a file that looks
 * complete.
 */
#ifndef DARC_DB_H
#define DARC_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "err-msg.h"
#include "rows.h"
#include "wfile.h"

struct db;

/*
 * Create the database that will become @path: a temporary file in the same
 * directory (wfile: never over an input, a non-regular file or, without
 * @force, a file that is not a darc database), into which the writer thread
 * puts the schema (the .sql files of schema/) while the caller goes on.
 * Returns NULL and fills @err (naming @path) when the file cannot be made; a
 * failure of SQLite after that fails the next db_put_*(), and db_finish()
 * says why. Finish with db_finish() or db_abort().
 */
struct db *db_create(const char *path, bool force, struct err_msg *err);

/*
 * db_create() for a recording of @input_bytes: below DB_BIG, a database of
 * 4 KiB pages (schema/image.h says why); db_create() is for DB_BIG.
 */
#define DB_BIG (4ULL << 20)
struct db *db_create_sized(const char *path, bool force, uint64_t input_bytes,
			   struct err_msg *err);

/* What db_create() checks of @path first: wfile_check() as a darc database. */
int db_check_output(const char *path, bool force, struct err_msg *err);

/*
 * Also build the optional indexes on the calls (schema/call-indexes.sql)
 * at db_finish(): faster queries by function, path or task, for about 2 s
 * per 2.8 M calls. Off by default.
 */
void db_set_call_indexes(struct db *db, bool on);

/*
 * Queue one row. The record is copied (strings too), so the caller may reuse
 * it. Returns 0, or -1 if the writer has failed (see db_finish for why).
 */
int db_put_call(struct db *db, const struct call_rec *c);
/* Call @id will not be put (not stored): calls after it need not wait for it. */
int db_skip_call(struct db *db, int64_t id);
int db_put_task(struct db *db, const struct task_rec *t);
int db_put_func(struct db *db, const struct func_rec *f);
int db_put_fnode(struct db *db, const struct fnode_rec *n);
int db_put_hist(struct db *db, const struct hist_rec *h);
int db_put_irq(struct db *db, const struct irq_rec *i);
int db_put_sched(struct db *db, const struct sched_rec *s);
int db_put_wakeup(struct db *db, const struct wakeup_rec *w);
int db_put_gap(struct db *db, const struct gap_rec *g);
int db_put_probe(struct db *db, const struct probe_rec *p);
int db_put_bio(struct db *db, const struct bio_rec *b);
int db_put_recording(struct db *db, const struct recording_rec *r);

/*
 * Write what is queued, create the indexes, close, and rename the temporary
 * file to the target. Returns 0, or -1 with @err filled (and no target
 * written). Frees @db either way.
 */
int db_finish(struct db *db, struct err_msg *err);

/* Has the writer failed (db_finish() says why)? */
bool db_failed(const struct db *db);

/* Stop writing, remove the temporary file, free @db. Accepts NULL. */
void db_abort(struct db *db);

/* The SQLite header's application_id of darc's databases: 'darc' (tables.sql sets it) */
#define DB_APPLICATION_ID 0x64617263

/*
 * Is @path a database darc wrote (an SQLite file with darc's tables, of any
 * schema version)? 1 yes, 0 no, -1 cannot tell (unreadable: errno set).
 * darc's application_id in the header says yes at once; a file without it
 * (a darc before it set one) is asked for its tables.
 */
int db_is_darc(const char *path);

/* Does @path start with SQLite's header? 1 yes, 0 no, -1 unreadable (errno set). */
int db_sqlite_header(const char *path);

#endif
