/* SPDX-License-Identifier: MIT */
/*
 * columns: the columns of every table darc writes rows into, each list once,
 * in the order of the table's CREATE TABLE in tables.sql, as X-macros:
 * X(table, column, SQL type). db.c makes its INSERT statements, its
 * virtual tables' declarations and the numbers it binds and reads columns
 * by from these lists; the reports make theirs with columns_prepare_insert().
 * tests/unit/test_db.c checks each list against the CREATE TABLE.
 */
#ifndef DARC_COLUMNS_H
#define DARC_COLUMNS_H

#include <sqlite3.h>

#define CALL_BASE_COLUMNS(X)                                                                       \
	X(call_base, id, INTEGER)                                                                  \
	X(call_base, task_id, INTEGER)                                                             \
	X(call_base, parent_id, INTEGER)                                                           \
	X(call_base, fnode_id, INTEGER)                                                            \
	X(call_base, cpu, INTEGER)                                                                 \
	X(call_base, t_entry, INTEGER)                                                             \
	X(call_base, incl_ns, INTEGER)                                                             \
	X(call_base, children_ns, INTEGER)                                                         \
	X(call_base, last_id, INTEGER)                                                             \
	X(call_base, retval, INTEGER)

#define CALL_EXTRA_COLUMNS(X)                                                                      \
	X(call_extra, id, INTEGER)                                                                 \
	X(call_extra, t_exit, INTEGER)                                                             \
	X(call_extra, interrupted_id, INTEGER)                                                     \
	X(call_extra, irq_ns, INTEGER)                                                             \
	X(call_extra, softirq_ns, INTEGER)                                                         \
	X(call_extra, preempt_ns, INTEGER)                                                         \
	X(call_extra, blocked_ns, INTEGER)                                                         \
	X(call_extra, flags, INTEGER)

#define CALL_VALUE_COLUMNS(X)                                                                      \
	X(call_value, id, INTEGER)                                                                 \
	X(call_value, args, TEXT)                                                                  \
	X(call_value, retaddr, TEXT)

#define TASK_COLUMNS(X)                                                                            \
	X(task, tid, INTEGER)                                                                      \
	X(task, pid, INTEGER)                                                                      \
	X(task, comm, TEXT)

#define FUNC_COLUMNS(X)                                                                            \
	X(func, id, INTEGER)                                                                       \
	X(func, name, TEXT)                                                                        \
	X(func, kind, INTEGER)                                                                     \
	X(func, addr, INTEGER)                                                                     \
	X(func, module, TEXT)                                                                      \
	X(func, overhead, INTEGER)                                                                  \
	X(func, p50_ns, INTEGER)                                                                   \
	X(func, p90_ns, INTEGER)                                                                   \
	X(func, p99_ns, INTEGER)                                                                   \
	X(func, p999_ns, INTEGER)

#define FNODE_COLUMNS(X)                                                                           \
	X(fnode, id, INTEGER)                                                                      \
	X(fnode, parent_id, INTEGER)                                                               \
	X(fnode, func_id, INTEGER)                                                                 \
	X(fnode, depth, INTEGER)                                                                   \
	X(fnode, calls, INTEGER)                                                                   \
	X(fnode, incl_ns, INTEGER)                                                                 \
	X(fnode, excl_ns, INTEGER)                                                                 \
	X(fnode, children_ns, INTEGER)                                                             \
	X(fnode, irq_ns, INTEGER)                                                                  \
	X(fnode, softirq_ns, INTEGER)                                                              \
	X(fnode, preempt_ns, INTEGER)                                                              \
	X(fnode, blocked_ns, INTEGER)                                                              \
	X(fnode, max_ns, INTEGER)                                                                  \
	X(fnode, max_excl_ns, INTEGER)                                                             \
	X(fnode, p50_ns, INTEGER)                                                                  \
	X(fnode, p90_ns, INTEGER)                                                                  \
	X(fnode, p99_ns, INTEGER)                                                                  \
	X(fnode, p999_ns, INTEGER)                                                                 \
	X(fnode, incomplete, INTEGER)

#define HIST_COLUMNS(X)                                                                            \
	X(hist, owner_kind, INTEGER)                                                               \
	X(hist, owner_id, INTEGER)                                                                 \
	X(hist, metric, INTEGER)                                                                   \
	X(hist, resolution, INTEGER)                                                               \
	X(hist, bucket, INTEGER)                                                                   \
	X(hist, count, INTEGER)

#define IRQ_INTERVAL_COLUMNS(X)                                                                    \
	X(irq_interval, id, INTEGER)                                                               \
	X(irq_interval, cpu, INTEGER)                                                              \
	X(irq_interval, kind, INTEGER)                                                             \
	X(irq_interval, irq, INTEGER)                                                              \
	X(irq_interval, name, TEXT)                                                                \
	X(irq_interval, t_start, INTEGER)                                                          \
	X(irq_interval, t_end, INTEGER)                                                            \
	X(irq_interval, task_id, INTEGER)                                                          \
	X(irq_interval, call_id, INTEGER)

#define SCHED_INTERVAL_COLUMNS(X)                                                                  \
	X(sched_interval, id, INTEGER)                                                             \
	X(sched_interval, task_id, INTEGER)                                                        \
	X(sched_interval, kind, INTEGER)                                                           \
	X(sched_interval, state, INTEGER)                                                          \
	X(sched_interval, cpu_out, INTEGER)                                                        \
	X(sched_interval, cpu_in, INTEGER)                                                         \
	X(sched_interval, t_out, INTEGER)                                                          \
	X(sched_interval, t_in, INTEGER)                                                           \
	X(sched_interval, call_id, INTEGER)                                                        \
	X(sched_interval, wakeup_id, INTEGER)

#define SCHED_GAP_COLUMNS(X)                                                                       \
	X(sched_gap, id, INTEGER)                                                                  \
	X(sched_gap, task_id, INTEGER)                                                             \
	X(sched_gap, cpu, INTEGER)                                                                 \
	X(sched_gap, t_from, INTEGER)                                                              \
	X(sched_gap, t_to, INTEGER)

#define WAKEUP_COLUMNS(X)                                                                          \
	X(wakeup, id, INTEGER)                                                                     \
	X(wakeup, task_id, INTEGER)                                                                \
	X(wakeup, t, INTEGER)                                                                      \
	X(wakeup, waker_tid, INTEGER)                                                              \
	X(wakeup, waker_cpu, INTEGER)                                                              \
	X(wakeup, ctx, INTEGER)                                                                    \
	X(wakeup, waker_call_id, INTEGER)                                                          \
	X(wakeup, handler, TEXT)

#define PROBE_HIT_COLUMNS(X)                                                                       \
	X(probe_hit, id, INTEGER)                                                                  \
	X(probe_hit, t, INTEGER)                                                                   \
	X(probe_hit, cpu, INTEGER)                                                                 \
	X(probe_hit, task_id, INTEGER)                                                             \
	X(probe_hit, func_id, INTEGER)                                                             \
	X(probe_hit, event, TEXT)                                                                  \
	X(probe_hit, role, INTEGER)                                                                \
	X(probe_hit, ctx, INTEGER)                                                                 \
	X(probe_hit, call_id, INTEGER)                                                             \
	X(probe_hit, args, TEXT)

#define BIO_COLUMNS(X)                                                                             \
	X(bio, id, INTEGER)                                                                        \
	X(bio, dev, INTEGER)                                                                       \
	X(bio, sector, INTEGER)                                                                    \
	X(bio, nr_sector, INTEGER)                                                                 \
	X(bio, op, TEXT)                                                                           \
	X(bio, t_queue, INTEGER)                                                                   \
	X(bio, t_getrq, INTEGER)                                                                   \
	X(bio, t_insert, INTEGER)                                                                  \
	X(bio, t_issue, INTEGER)                                                                   \
	X(bio, t_complete, INTEGER)                                                                \
	X(bio, task_id, INTEGER)                                                                   \
	X(bio, call_id, INTEGER)                                                                   \
	X(bio, queue_cpu, INTEGER)                                                                 \
	X(bio, complete_cpu, INTEGER)                                                              \
	X(bio, complete_ctx, INTEGER)                                                              \
	X(bio, error, INTEGER)                                                                     \
	X(bio, flags, INTEGER)                                                                     \
	X(bio, ptr, TEXT)

#define RECORDING_COLUMNS(X)                                                                       \
	X(recording, source, TEXT)                                                                 \
	X(recording, format, TEXT)                                                                 \
	X(recording, kernel, TEXT)                                                                 \
	X(recording, clock, TEXT)                                                                  \
	X(recording, cpus, INTEGER)                                                                \
	X(recording, t_first, INTEGER)                                                             \
	X(recording, t_last, INTEGER)                                                              \
	X(recording, events, INTEGER)                                                              \
	X(recording, lost_events, INTEGER)                                                         \
	X(recording, lost_marks, INTEGER)                                                          \
	X(recording, manifest, TEXT)                                                               \
	X(recording, darc_version, TEXT)                                                           \
	X(recording, options, TEXT)                                                                \
	X(recording, lacks, TEXT)                                                                  \
	X(recording, source_size, INTEGER)                                                         \
	X(recording, source_mtime_ns, INTEGER)                                                     \
	X(recording, source_hash, TEXT)                                                            \
	X(recording, tracer_cost, TEXT)

/*
 * The tables the report commands store their results in (through
 * analyze/report/rdb.c's rdb_store()), in the same form.
 */
#define PEAK_COLUMNS(X)                                                                            \
	X(peak, owner_kind, INTEGER)                                                               \
	X(peak, owner_id, INTEGER)                                                                 \
	X(peak, metric, INTEGER)                                                                   \
	X(peak, resolution, INTEGER)                                                               \
	X(peak, params, TEXT)                                                                      \
	X(peak, number, INTEGER)                                                                   \
	X(peak, lo, INTEGER)                                                                       \
	X(peak, hi, INTEGER)                                                                       \
	X(peak, calls, INTEGER)                                                                    \
	X(peak, share_calls, REAL)                                                                 \
	X(peak, share_latency, REAL)                                                               \
	X(peak, mean, REAL)                                                                        \
	X(peak, max, INTEGER)

#define SEARCH_COLUMNS(X)                                                                          \
	X(search, id, INTEGER)                                                                     \
	X(search, f0, TEXT)                                                                        \
	X(search, owner_kind, INTEGER)                                                             \
	X(search, owner_id, INTEGER)                                                               \
	X(search, peak, INTEGER)                                                                   \
	X(search, lo, INTEGER)                                                                     \
	X(search, hi, INTEGER)                                                                     \
	X(search, calls, INTEGER)                                                                  \
	X(search, params, TEXT)                                                                    \
	X(search, created, TEXT)

#define SEARCH_PATH_COLUMNS(X)                                                                     \
	X(search_path, search_id, INTEGER)                                                         \
	X(search_path, node, INTEGER)                                                              \
	X(search_path, parent, INTEGER)                                                            \
	X(search_path, depth, INTEGER)                                                             \
	X(search_path, kind, TEXT)                                                                 \
	X(search_path, fnode_id, INTEGER)                                                          \
	X(search_path, name, TEXT)                                                                 \
	X(search_path, maxcount, INTEGER)                                                          \
	X(search_path, calls, INTEGER)                                                             \
	X(search_path, total_ns, REAL)                                                             \
	X(search_path, share, REAL)                                                                \
	X(search_path, status, TEXT)

#define SEARCH_CANDIDATE_COLUMNS(X)                                                                \
	X(search_candidate, search_id, INTEGER)                                                    \
	X(search_candidate, node, INTEGER)                                                         \
	X(search_candidate, kind, TEXT)                                                            \
	X(search_candidate, fnode_id, INTEGER)                                                     \
	X(search_candidate, name, TEXT)                                                            \
	X(search_candidate, maxcount, INTEGER)                                                     \
	X(search_candidate, total_ns, REAL)                                                        \
	X(search_candidate, winner, INTEGER)

#define EXPLAIN_SUBJECT_COLUMNS(X)                                                                 \
	X(explain_subject, search_id, INTEGER)                                                     \
	X(explain_subject, rank, INTEGER)                                                          \
	X(explain_subject, part, INTEGER)                                                          \
	X(explain_subject, func, TEXT)                                                             \
	X(explain_subject, fnode_id, INTEGER)                                                      \
	X(explain_subject, kind, TEXT)                                                             \
	X(explain_subject, calls, INTEGER)                                                         \
	X(explain_subject, total_ns, REAL)                                                         \
	X(explain_subject, how, TEXT)                                                              \
	X(explain_subject, lo, INTEGER)                                                            \
	X(explain_subject, hi, INTEGER)                                                            \
	X(explain_subject, slow_calls, INTEGER)                                                    \
	X(explain_subject, slow_ns, REAL)                                                          \
	X(explain_subject, share, REAL)                                                            \
	X(explain_subject, body_lo, INTEGER)                                                       \
	X(explain_subject, body_hi, INTEGER)                                                       \
	X(explain_subject, body_calls, INTEGER)                                                    \
	X(explain_subject, body_ns, REAL)                                                          \
	X(explain_subject, title, TEXT)

#define EXPLAIN_CAUSE_COLUMNS(X)                                                                   \
	X(explain_cause, search_id, INTEGER)                                                       \
	X(explain_cause, rank, INTEGER)                                                            \
	X(explain_cause, path, TEXT)                                                               \
	X(explain_cause, kind, TEXT)                                                               \
	X(explain_cause, ns, REAL)                                                                 \
	X(explain_cause, share, REAL)                                                              \
	X(explain_cause, votes, INTEGER)                                                           \
	X(explain_cause, who, TEXT)                                                                \
	X(explain_cause, sentence, TEXT)

#define IO_LAYER_COLUMNS(X)                                                                        \
	X(io_layer, call_id, INTEGER)                                                              \
	X(io_layer, layer, TEXT)                                                                   \
	X(io_layer, ns, INTEGER)

/* COL_table_column: a column's number in its list (0, 1, ...); PARAM_: as ?N. */
#define COL_ENUM(t, n, type) COL_##t##_##n,
enum { CALL_BASE_COLUMNS(COL_ENUM) CALL_BASE_NCOLS };
enum { CALL_EXTRA_COLUMNS(COL_ENUM) CALL_EXTRA_NCOLS };
enum { CALL_VALUE_COLUMNS(COL_ENUM) CALL_VALUE_NCOLS };
enum { TASK_COLUMNS(COL_ENUM) TASK_NCOLS };
enum { FUNC_COLUMNS(COL_ENUM) FUNC_NCOLS };
enum { FNODE_COLUMNS(COL_ENUM) FNODE_NCOLS };
enum { HIST_COLUMNS(COL_ENUM) HIST_NCOLS };
enum { IRQ_INTERVAL_COLUMNS(COL_ENUM) IRQ_INTERVAL_NCOLS };
enum { SCHED_INTERVAL_COLUMNS(COL_ENUM) SCHED_INTERVAL_NCOLS };
enum { SCHED_GAP_COLUMNS(COL_ENUM) SCHED_GAP_NCOLS };
enum { WAKEUP_COLUMNS(COL_ENUM) WAKEUP_NCOLS };
enum { PROBE_HIT_COLUMNS(COL_ENUM) PROBE_HIT_NCOLS };
enum { BIO_COLUMNS(COL_ENUM) BIO_NCOLS };
enum { RECORDING_COLUMNS(COL_ENUM) RECORDING_NCOLS };
enum { PEAK_COLUMNS(COL_ENUM) PEAK_NCOLS };
enum { SEARCH_COLUMNS(COL_ENUM) SEARCH_NCOLS };
enum { SEARCH_PATH_COLUMNS(COL_ENUM) SEARCH_PATH_NCOLS };
enum { SEARCH_CANDIDATE_COLUMNS(COL_ENUM) SEARCH_CANDIDATE_NCOLS };
enum { EXPLAIN_SUBJECT_COLUMNS(COL_ENUM) EXPLAIN_SUBJECT_NCOLS };
enum { EXPLAIN_CAUSE_COLUMNS(COL_ENUM) EXPLAIN_CAUSE_NCOLS };
enum { IO_LAYER_COLUMNS(COL_ENUM) IO_LAYER_NCOLS };
#undef COL_ENUM
#define PARAM(t, n) (COL_##t##_##n + 1)

/* A table's columns by name and declared type, in order. */
struct columns_table {
	const char *name;
	const char *const *cols;
	const char *const *types;
	int ncols;
};

/* Every table of the lists above, NULL-terminated (columns.c). */
extern const struct columns_table columns_tables[];

/* The one named @name, or NULL. */
const struct columns_table *columns_table(const char *name);

/* "a, b, c": @t's columns, for an INSERT or a declaration (sqlite3_free it), or NULL. */
char *columns_list(const struct columns_table *t);

/*
 * Prepare on @sql "INSERT INTO @table(every column) VALUES (?1, ?2, ...)", the
 * parameters in the order of its list (PARAM()). An SQLite result code.
 */
int columns_prepare_insert(sqlite3 *sql, const char *table, sqlite3_stmt **st);

#endif
