// SPDX-License-Identifier: MIT
/*
 * db: writes one analysis into a new SQLite database (see db.h).
 *
 * The producer (the analysis) copies each row into the current block (calls
 * in a compact form, the other tables' rows as they are); a full block goes
 * to a queue that one writer thread drains inside one transaction, a table
 * at a time (having first made the database itself, while the producer
 * starts reading): one INSERT ... SELECT from a virtual table over the block's
 * rows of that table. The calls, nearly every row, do not go through SQLite:
 * the writer encodes them (call_base and call_extra) as b-tree pages itself
 * (btree.h), in order of id, and db_finish() puts those pages into the file
 * once SQLite is done with it. Calls finish in no order of id (a parent
 * after its children); a window puts them back in order first; the few that
 * come too late for it (a call open while WINDOW others began) are merged
 * in at the end. At most MAX_BLOCKS blocks exist, so memory stays bounded
 * and a producer that outruns the writer waits for a free block. The
 * database is a fresh file nobody else sees until db_finish() renames it,
 * so SQLite runs with no journal, no syncs and an exclusive lock. The
 * indexes of schema/indexes.sql are made with the tables, and kept up by
 * the writer thread as the rows come (none is on the calls, and each has
 * only a few places rows go in: by CPU, task or event, then time), not
 * built after the load on the producer's time; call-indexes.sql's, when
 * asked, are built after the load.
 */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "btree.h"
#include "columns.h"
#include "image.h"
#include "schema.h"
#include "trust.h"

#define BLOCK_ROWS 4096	       /* calls in a block */
#define OTHER_ROWS 1024	       /* rows of the other tables in a block */
#define EXTRA_ROWS 512	       /* calls with a call_extra part in a block */
#define HIST_ROWS 2048	       /* histogram buckets in a block */
/*
 * The producer's block, plus up to 63 queued or being written (about 0.5 MB
 * each, made only as the writer falls behind): on a machine that other work
 * shares the writer thread stops for a while now and then, and with 4 blocks
 * the producer waited for it 1.06 s of a 5.7 s analysis (vm-odirect-v6
 * repeated 600 times; 32 blocks: 0.12 s, 64: 0.01 s, peak RSS 38 -> 55 MB).
 */
#define MAX_BLOCKS 64
#define CHUNK_SIZE (16 * 1024) /* string space of a block, grown by chunks */
#define WINDOW 4096	       /* calls held to be written in order of id (a power of 2) */
#define SYNC_BLOCKS 64	       /* blocks written (some 10 MB) between two background syncs */

/* a window slot: nothing yet, a call, one with a call_extra part, an id not stored */
enum { SLOT_EMPTY, SLOT_CALL, SLOT_CALL_EXTRA, SLOT_SKIP };

/*
 * Bulk-load settings: nothing to roll back or recover (the file is renamed
 * into place only when complete), so no journal and no syncs until
 * db_finish(). Measured on 2.8 M call rows (tests/bench/bench-db.c): 64 KiB
 * pages load and index fastest; a large page cache buys nothing (the load
 * only appends) and costs RSS; the index sorts are faster in temporary files
 * (temp_store=FILE, the default) than in memory, and keep RSS flat; SQLite's
 * sorter helper threads (PRAGMA threads) made CREATE INDEX slower. The page
 * size is the template's (image.h): 64 KiB, but 4 KiB for a recording of
 * less than DB_BIG bytes, whose analysis was mostly the writing and syncing
 * of the 3 MiB that the empty schema takes in 64 KiB pages (db_create_sized()).
 */
/*
 * The page file's first pages, left for SQLite's (8 MiB: its empty schema
 * takes 2.8): beyond them, leaves are moved out at the end, short of them,
 * the last leaves moved in (btree.h).
 */
#define RESERVE_PAGES 128
static const char pragmas_sql[] = "PRAGMA auto_vacuum = NONE;" /* no pointer-map pages: btree.h */
				  "PRAGMA journal_mode = OFF;"
				  "PRAGMA synchronous = OFF;"
				  "PRAGMA locking_mode = EXCLUSIVE;"
				  "PRAGMA cache_size = -4096;" /* KiB */
				  "PRAGMA temp_store = FILE;";

/* Statistics for the query planner, from a sample of each index (cheap). */
static const char analyze_sql[] = "PRAGMA analysis_limit = 1000; ANALYZE;";

enum row_kind {
	ROW_CALL,
	ROW_TASK,
	ROW_FUNC,
	ROW_FNODE,
	ROW_HIST,
	ROW_IRQ,
	ROW_SCHED,
	ROW_WAKEUP,
	ROW_GAP,
	ROW_PROBE,
	ROW_BIO,
	ROW_RECORDING,
	ROW_CALL_VALUE,	 /* a call's return value, arguments, return address */
	ROW_CALL_EXTRA,	 /* not a row kind of its own: the call_extra part of a ROW_CALL */
	ROW_KINDS
};

/*
 * A call as it waits in a block for the writer: call_base's columns in one
 * cache line (the writer reads what the producer wrote on the other core,
 * so every line counts). The whole call_rec follows in the block's extras
 * when it has a call_extra part.
 */
struct queued_call {
	int64_t id, parent_id, t_entry, incl_ns, children_ns;
	int64_t retval; /* DARC_NULL if not recorded */
	int32_t task_id, fnode_id, cpu;
	uint32_t last_delta; /* last_id - id */
};

/* What call_value holds of a call (only a few recordings have it). */
struct call_value_rec {
	int64_t id;
	const char *args, *retaddr;
};

/*
 * A table whose rows the writer puts into b-tree pages itself (btree.h),
 * in order of id (a call that came too late for the window is merged in by
 * btree_finish()).
 */
enum { PAGED_CALLS, PAGED_EXTRAS, NPAGED };
struct paged {
	const char *table; /* call_base, call_extra */
	int ncols;
	struct btree *tree;
};

struct row {
	union {
		/* named after their tables, for FIELD() */
		struct call_value_rec call_value;
		struct task_rec task;
		struct func_rec func;
		struct fnode_rec fnode;
		struct hist_rec hist;
		struct irq_rec irq_interval;
		struct sched_rec sched_interval;
		struct wakeup_rec wakeup;
		struct gap_rec sched_gap;
		struct probe_rec probe_hit;
		struct bio_rec bio;
		struct recording_rec recording;
	};
	int kind; /* enum row_kind */
};

/*
 * Where each column's value lies in its row's record: in the member of the
 * same name of the record named after its table in struct row (a column of
 * columns.h without one does not compile), read as the member's C type says:
 * int64_t (DARC_NULL is NULL), int, uint32_t, const char * (NULL is NULL) or
 * char[] (as it is, or "" for NULL: below). call_base's rows are queued_calls, read
 * by call_column(); call_extra's are call_recs.
 */
enum { F_I64 = 1, F_INT, F_U32, F_STR, F_CHARS };

struct field {
	uint8_t type;	 /* F_* */
	bool empty_null; /* F_CHARS: "" is NULL */
	int16_t off;	 /* the member's offset in the record */
	int16_t neg;	 /* NULL when the int32 member at this offset is negative; -1: never */
};

#define FIELD_TYPE(m)                                                                              \
	_Generic((m), int64_t: F_I64, int: F_INT, uint32_t: F_U32, const char *: F_STR,         \
		 char *: F_CHARS)
/* column @col is member @m of the record type @rec */
#define FIELD_IN(col, rec, m) [col] = {FIELD_TYPE(((rec *)0)->m), false, offsetof(rec, m), -1},
#define ROW_FIELD(t, n, type) FIELD_IN(COL_##t##_##n, struct row, t.n)
#define EXTRA_FIELD(t, n, type) FIELD_IN(COL_##t##_##n, struct call_rec, n)
/* the fields of a table's columns (the X-macro @LIST of columns.h) */
#define FIELDS(LIST, X) ((const struct field[]){LIST(X)})

/*
 * The columns NULL on a condition of their own: a CPU of -1 (not seen), the
 * context of a completion not seen, "" for no handler or no bio address.
 */
static const struct {
	int kind, col;
	int16_t neg; /* as field.neg; -1: "" is NULL */
} null_rules[] = {
    {ROW_SCHED, COL_sched_interval_cpu_in, offsetof(struct sched_rec, cpu_in)},
    {ROW_GAP, COL_sched_gap_cpu, offsetof(struct gap_rec, cpu)},
    {ROW_BIO, COL_bio_queue_cpu, offsetof(struct bio_rec, queue_cpu)},
    {ROW_BIO, COL_bio_complete_cpu, offsetof(struct bio_rec, complete_cpu)},
    {ROW_BIO, COL_bio_complete_ctx, offsetof(struct bio_rec, complete_cpu)},
    {ROW_BIO, COL_bio_ptr, -1},
    {ROW_WAKEUP, COL_wakeup_handler, -1},
};

/*
 * How each kind's rows go in: into @table (its columns from columns.h), all
 * the rows of a block in one statement, from the virtual table darc_@table_rows
 * over them (below); @tail ends the statement.
 */
static const struct {
	const char *table, *tail;
	const struct field *fields;
	bool one_row; /* rowid 1: a second put replaces the first */
} inserts[ROW_KINDS] = {
    [ROW_CALL] = {"call_base"},
    [ROW_CALL_EXTRA] = {"call_extra", NULL, FIELDS(CALL_EXTRA_COLUMNS, EXTRA_FIELD)},
    /* a task seen again keeps what it knew, and takes what is new (the WHERE
       tells SQLite's parser that ON CONFLICT is no join's ON) */
    [ROW_TASK] = {"task",
		  " WHERE true ON CONFLICT(tid) DO UPDATE SET pid = coalesce(excluded.pid, pid),"
		  " comm = coalesce(excluded.comm, comm)",
		  FIELDS(TASK_COLUMNS, ROW_FIELD)},
    [ROW_FUNC] = {"func", NULL, FIELDS(FUNC_COLUMNS, ROW_FIELD)},
    [ROW_FNODE] = {"fnode", NULL, FIELDS(FNODE_COLUMNS, ROW_FIELD)},
    [ROW_HIST] = {"hist", NULL, FIELDS(HIST_COLUMNS, ROW_FIELD)},
    [ROW_IRQ] = {"irq_interval", NULL, FIELDS(IRQ_INTERVAL_COLUMNS, ROW_FIELD)},
    [ROW_SCHED] = {"sched_interval", NULL, FIELDS(SCHED_INTERVAL_COLUMNS, ROW_FIELD)},
    [ROW_WAKEUP] = {"wakeup", NULL, FIELDS(WAKEUP_COLUMNS, ROW_FIELD)},
    [ROW_GAP] = {"sched_gap", NULL, FIELDS(SCHED_GAP_COLUMNS, ROW_FIELD)},
    [ROW_PROBE] = {"probe_hit", NULL, FIELDS(PROBE_HIT_COLUMNS, ROW_FIELD)},
    [ROW_BIO] = {"bio", NULL, FIELDS(BIO_COLUMNS, ROW_FIELD)},
    [ROW_CALL_VALUE] = {"call_value", NULL, FIELDS(CALL_VALUE_COLUMNS, ROW_FIELD)},
    [ROW_RECORDING] = {"recording", NULL, FIELDS(RECORDING_COLUMNS, ROW_FIELD), true},
};

/* Kind @k's INSERT, made from inserts[] and columns.h: sqlite3_free() it; NULL if out of memory. */
static char *insert_sql(int k)
{
	const struct columns_table *t = columns_table(inserts[k].table);
	const bool one = inserts[k].one_row;
	char *cols = columns_list(t);
	sqlite3_str *s = sqlite3_str_new(NULL);

	sqlite3_str_appendf(s, "INSERT%s INTO %s(%s%s) SELECT %s* FROM darc_%s_rows%s",
			    one ? " OR REPLACE" : "", t->name, one ? "rowid, " : "", cols,
			    one ? "1, " : "", t->name, inserts[k].tail ? inserts[k].tail : "");
	sqlite3_free(cols);
	if (!cols) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

/* String space: the rows' strings point into a block's chunks. */
struct chunk {
	struct chunk *next;
	size_t size, used;
	char data[];
};

struct block {
	struct block *next;		 /* in the queue or the free list */
	unsigned n, ncalls, nextras, nhists; /* rows, calls, extras and buckets used */
	struct chunk *chunks;		 /* newest first */
	struct row rows[OTHER_ROWS];	 /* of the other tables, in order */
	struct queued_call calls[BLOCK_ROWS];	 /* in order */
	int64_t extras[EXTRA_ROWS][CALL_EXTRA_NCOLS]; /* call_extra's rows of the calls */
	struct hist_rec hists[HIST_ROWS];   /* histogram buckets */
};

/*
 * The rows of one statement of the writer: rows lo .. hi-1 of the array at
 * @base, whose elements are @stride bytes apart; with @idx, row i is
 * element idx[i].
 */
struct row_src {
	const char *base;
	size_t stride;
	const uint16_t *idx;
	int lo, hi;
};

struct db {
	bool call_indexes; /* build schema/call-indexes.sql too */
	char *path; /* the target */
	struct wfile *wf; /* the file SQLite writes, copied into pages' at the end */
	const char *tmp;  /* its name */
	struct wfile *pages; /* the page file (btree.h): the calls' pages, then the database,
				renamed to path at the end */
	struct pagefile *pf;
	sqlite3 *sql;
	sqlite3_stmt *insert[ROW_KINDS];
	struct block *cur;			  /* the producer's block, NULL once handed over */
	/* the writer's, on cache lines of their own (the producer writes nearby) */
	struct {
		struct row_src src; /* the rows the virtual tables show now */
		struct paged paged[NPAGED]; /* call_base's and call_extra's pages, made here */
		uint16_t order[OTHER_ROWS]; /* a block's rows, grouped by kind (group_rows()) */
	} __attribute__((aligned(64)));
	struct vt_aux {
		struct db *db;
		int kind;
	} vt[ROW_KINDS]; /* each virtual table's */

	/* The producer's window: calls are finished in no order of id (a parent
	   after its children), but SQLite appends rows fastest in order. A call
	   waits here until every call with a smaller id has been passed on, or
	   until its id is WINDOW ahead of the oldest one still open; that one is
	   then passed on when it finishes, out of order. */
	struct {
		struct queued_call *win; /* WINDOW slots, by id % WINDOW: as queued */
		int64_t (*win_extra)[CALL_EXTRA_NCOLS]; /* and call_extra's columns */
		uint8_t *win_state;	 /* SLOT_* */
		int64_t win_next;	 /* the smallest id not passed on yet */
	} __attribute__((aligned(64)));

	pthread_mutex_t lock;	   /* guards what follows */
	pthread_cond_t ready;	   /* to the writer: a block is queued, or closing */
	pthread_cond_t space;	   /* to the producer: a block is free, or failed */
	struct block *head, *tail; /* the queue, oldest first */
	struct block *free;
	int nblocks;	     /* blocks allocated */
	bool closing;	     /* no more blocks will come */
	bool discard;	     /* db_abort: drop what is queued */
	struct err_msg werr; /* why the writer failed */

	/* DARC_TIMING=1: the writer's CPU seconds by table, printed at the end, and
	   the producer's waits for a free block */
	bool timing;
	const struct image *image; /* the template it starts from: its page size */
	double cpu_by_kind[ROW_KINDS];
	double producer_wait; /* wall seconds the producer waited for a free block */
	long producer_waits;
	long rows_by_kind[ROW_KINDS];

	atomic_bool failed; /* sticky; also read without the lock */
	pthread_t writer;
	bool writer_started;
	bool mutex_ready;
};

/* Record the first failure (@e, writer or producer) and wake a waiting producer. */
static void fail(struct db *db, const struct err_msg *e)
{
	pthread_mutex_lock(&db->lock);
	if (!atomic_load(&db->failed)) {
		db->werr = *e;
		atomic_store(&db->failed, true);
	}
	pthread_cond_broadcast(&db->space);
	pthread_mutex_unlock(&db->lock);
}

static void fail_oom(struct db *db)
{
	struct err_msg e = {""};

	err_setf(&e, db->path, "out of memory");
	fail(db, &e);
}

/* SQLite's message for the last failure on the connection, with errno if any. */
static void sql_errf(struct db *db, struct err_msg *err, const char *what)
{
	int e = sqlite3_system_errno(db->sql);

	/* SQLite keeps no errno for a full disk (ENOSPC) */
	if (!e && sqlite3_errcode(db->sql) == SQLITE_FULL)
		e = ENOSPC;
	if (e)
		err_setf(err, db->path, "%s: %s", what, strerror(e));
	else
		err_setf(err, db->path, "%s: %s", what, sqlite3_errmsg(db->sql));
}

static struct block *block_new(void)
{
	struct block *b = malloc(sizeof(*b));

	if (b) {
		b->next = NULL;
		b->n = b->ncalls = b->nextras = b->nhists = 0;
		b->chunks = NULL;
	}
	return b;
}

/* Empty @b for reuse: keep one ordinary chunk, free the rest. */
static void block_reset(struct block *b)
{
	struct chunk *c = b->chunks, *keep = NULL;

	while (c) {
		struct chunk *next = c->next;

		if (!keep && c->size == CHUNK_SIZE) {
			keep = c;
			keep->used = 0;
			keep->next = NULL;
		} else {
			free(c);
		}
		c = next;
	}
	b->chunks = keep;
	b->n = b->ncalls = b->nextras = b->nhists = 0;
	b->next = NULL;
}

static void block_free(struct block *b)
{
	if (b) {
		block_reset(b);
		free(b->chunks);
		free(b);
	}
}

/* Copy @s into @b's string space; NULL stays NULL. -1 when out of memory. */
static int copy_str(struct block *b, const char **s)
{
	size_t len;
	struct chunk *c = b->chunks;

	if (!*s)
		return 0;
	len = strlen(*s) + 1;
	if (!c || c->size - c->used < len) {
		size_t size = len > CHUNK_SIZE ? len : CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return -1;
		c->size = size;
		c->used = 0;
		c->next = b->chunks;
		b->chunks = c;
	}
	memcpy(c->data + c->used, *s, len);
	*s = c->data + c->used;
	c->used += len;
	return 0;
}

/*
 * Queue the producer's full block and take a free one, waiting for the writer
 * when MAX_BLOCKS are in use. -1 once anything failed.
 */
static int next_block(struct db *db)
{
	struct block *b = db->cur;
	bool alloc = false;

	db->cur = NULL;
	pthread_mutex_lock(&db->lock);
	if (db->tail)
		db->tail->next = b;
	else
		db->head = b;
	db->tail = b;
	pthread_cond_signal(&db->ready);
	if (db->timing && !db->free && db->nblocks >= MAX_BLOCKS) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		while (!db->free && db->nblocks >= MAX_BLOCKS && !atomic_load(&db->failed))
			pthread_cond_wait(&db->space, &db->lock);
		clock_gettime(CLOCK_MONOTONIC, &b);
		db->producer_wait += b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9;
		db->producer_waits++;
	}
	while (!db->free && db->nblocks >= MAX_BLOCKS && !atomic_load(&db->failed))
		pthread_cond_wait(&db->space, &db->lock);
	if (!atomic_load(&db->failed)) {
		if (db->free) {
			db->cur = db->free;
			db->free = db->cur->next;
			db->cur->next = NULL;
		} else {
			db->nblocks++;
			alloc = true;
		}
	}
	pthread_mutex_unlock(&db->lock);
	if (alloc) {
		db->cur = block_new();
		if (!db->cur)
			fail_oom(db);
	}
	return db->cur ? 0 : -1;
}

/* A free row of kind @kind in the producer's block, or NULL once failed. */
static inline struct row *row_slot(struct db *db, int kind)
{
	struct row *r;

	if (atomic_load_explicit(&db->failed, memory_order_relaxed))
		return NULL;
	if (db->cur->n == OTHER_ROWS && next_block(db) < 0)
		return NULL;
	r = &db->cur->rows[db->cur->n++];
	r->kind = kind;
	return r;
}

/* Does @c need a row in call_extra (schema/tables.sql)? */
static bool call_has_extra(const struct call_rec *c)
{
	return c->incl_ns == DARC_NULL || c->interrupted_id != DARC_NULL || c->flags ||
	       c->irq_ns || c->softirq_ns || c->preempt_ns || c->blocked_ns;
}

/* @v in a queued_call's 32 bits (INT32_MIN for NULL); *@bad when it does not fit. */
static inline int32_t queued_int32(int64_t v, bool *bad)
{
	if (v == DARC_NULL)
		return INT32_MIN;
	if (v <= INT32_MIN || v > INT32_MAX)
		*bad = true;
	return (int32_t)v;
}

static inline int64_t unq32(int32_t v)
{
	return v == INT32_MIN ? DARC_NULL : v;
}

/*
 * Does the writer refuse call @c (@bad: an id beyond the queue's 32 bits)?
 * Then why is recorded. What SQLite's NOT NULL would refuse is refused here:
 * the calls do not go through SQLite (btree.h).
 */
static bool call_refused(struct db *db, const struct call_rec *c, bool bad)
{
	struct err_msg e; /* filled only here, when refused: a call is no time to clear 512 bytes */

	if (!bad && c->last_id >= c->id && c->last_id - c->id <= UINT32_MAX &&
	    c->task_id != DARC_NULL && c->fnode_id != DARC_NULL)
		return false;
	if (bad || c->last_id < c->id || c->last_id - c->id > UINT32_MAX)
		err_setf(&e, db->path,
			 "call %" PRId64 ": a task or fnode id or a subtree beyond 32 bits", c->id);
	else
		err_setf(&e, db->path,
			 "cannot write to table call_base: NOT NULL constraint failed:"
			 " call_base.%s",
			 c->task_id == DARC_NULL ? "task_id" : "fnode_id");
	fail(db, &e);
	return true;
}

/* The integer in field @f of the record at @rec (DARC_NULL stays NULL). */
static int64_t field_i64(const char *rec, const struct field *f)
{
	int64_t v;
	int32_t i;
	uint32_t u;

	switch (f->type) {
	case F_INT:
		memcpy(&i, rec + f->off, sizeof(i));
		return i;
	case F_U32:
		memcpy(&u, rec + f->off, sizeof(u));
		return u;
	default:
		memcpy(&v, rec + f->off, sizeof(v));
		return v;
	}
}

/*
 * @c as the writer takes it: *@q, and call_extra's columns into @extra
 * when it has a call_extra part (*@has). 0, or -1 when refused (failed).
 */
static int call_queued(struct db *db, const struct call_rec *c, struct queued_call *q,
		       int64_t extra[CALL_EXTRA_NCOLS], bool *has)
{
	static const struct field extra_fields[] = {CALL_EXTRA_COLUMNS(EXTRA_FIELD)};
	bool bad = false;

	*q = (struct queued_call){
	    .id = c->id,
	    .parent_id = c->parent_id,
	    .t_entry = c->t_entry,
	    .incl_ns = c->incl_ns,
	    .children_ns = c->children_ns,
	    .retval = c->has_retval ? c->retval : DARC_NULL,
	    .task_id = queued_int32(c->task_id, &bad),
	    .fnode_id = queued_int32(c->fnode_id, &bad),
	    .cpu = c->cpu,
	    .last_delta = (uint32_t)(c->last_id - c->id),
	};
	if (call_refused(db, c, bad))
		return -1;
	*has = call_has_extra(c);
	if (*has) /* call_extra's columns: irq_ns .. flags are never NULL */
		for (int col = 0; col < CALL_EXTRA_NCOLS; col++)
			extra[col] = field_i64((const char *)c, &extra_fields[col]);
	return 0;
}

/* Queue call @q, with call_extra's columns @extra (NULL: none), for the writer. 0 or -1. */
static int put_call_row(struct db *db, const struct queued_call *q, const int64_t *extra)
{
	struct block *b;

	if (atomic_load_explicit(&db->failed, memory_order_relaxed))
		return -1;
	if ((db->cur->ncalls == BLOCK_ROWS || (extra && db->cur->nextras == EXTRA_ROWS)) &&
	    next_block(db) < 0)
		return -1;
	b = db->cur;
	b->calls[b->ncalls++] = *q;
	if (extra)
		memcpy(b->extras[b->nextras++], extra, sizeof(b->extras[0]));
	return 0;
}

/*
 * darc_TABLE_rows: an eponymous virtual table per kind of row, over the rows
 * of that kind in the block being written (db->src), so that one INSERT ...
 * SELECT writes them all. It saves, per row, a statement's start and end and
 * a sqlite3_bind_* per column. One module serves every kind: its table's
 * columns come from columns.h, their values from the kind's fields.
 */
struct rows_vtab {
	sqlite3_vtab base;
	struct db *db;
	int kind;
	struct field fields[]; /* the kind's, null_rules applied (none for call_base) */
};

struct rows_cursor {
	sqlite3_vtab_cursor base;
	int i, hi;	 /* the current row, and the end */
	const char *rec; /* the current row's record (a queued_call for calls) */
	const struct row_src *src;
	const struct field *fields; /* the kind's */
};

/* @v's fields: its kind's, with their null_rules. */
static void vtab_fields(struct rows_vtab *v, const struct field *f, int ncols)
{
	memcpy(v->fields, f, ncols * sizeof(*f));
	for (size_t i = 0; i < sizeof(null_rules) / sizeof(*null_rules); i++) {
		struct field *r = &v->fields[null_rules[i].col];

		if (null_rules[i].kind != v->kind)
			continue;
		if (null_rules[i].neg < 0)
			r->empty_null = true;
		else
			r->neg = null_rules[i].neg;
	}
}

/* Declare the virtual table of the kind @aux (a vt_aux) with its table's columns (columns.h). */
static int rows_connect(sqlite3 *sql, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **vtab, char **errmsg)
{
	const struct vt_aux *a = aux;
	const struct columns_table *t = columns_table(inserts[a->kind].table);
	const struct field *f = inserts[a->kind].fields;
	char *cols = columns_list(t);
	char *decl = cols ? sqlite3_mprintf("CREATE TABLE x(%s)", cols) : NULL;
	int rc = decl ? sqlite3_declare_vtab(sql, decl) : SQLITE_NOMEM;
	struct rows_vtab *v;

	sqlite3_free(cols);
	sqlite3_free(decl);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc64(sizeof(*v) + (f ? t->ncols : 0) * sizeof(*f));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = a->db;
	v->kind = a->kind;
	if (f)
		vtab_fields(v, f, t->ncols);
	*vtab = &v->base;
	return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *vtab)
{
	sqlite3_free(vtab);
	return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
	info->estimatedCost = BLOCK_ROWS;
	info->estimatedRows = BLOCK_ROWS;
	return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **cur)
{
	struct rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*cur = &c->base;
	return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Point @c at its row i (if any). */
static void cursor_at(struct rows_cursor *c)
{
	const struct row_src *src = c->src;

	if (c->i < c->hi)
		c->rec = src->base + src->stride * (src->idx ? src->idx[c->i] : c->i);
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		       sqlite3_value **argv)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;
	const struct rows_vtab *v = (const struct rows_vtab *)cur->pVtab;

	c->src = &v->db->src;
	c->fields = v->fields;
	c->i = c->src->lo;
	c->hi = c->src->hi;
	cursor_at(c);
	return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	c->i++;
	cursor_at(c);
	return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
	const struct rows_cursor *c = (const struct rows_cursor *)cur;

	return c->i >= c->hi;
}

/* Column @col of darc_call_base_rows (columns.h: CALL_BASE_COLUMNS). */
static int64_t call_column(const struct queued_call *c, int col)
{
	switch (col) {
	case COL_call_base_id:
		return c->id;
	case COL_call_base_task_id:
		return unq32(c->task_id);
	case COL_call_base_parent_id:
		return c->parent_id;
	case COL_call_base_fnode_id:
		return unq32(c->fnode_id);
	case COL_call_base_cpu:
		return c->cpu;
	case COL_call_base_t_entry:
		return c->t_entry;
	case COL_call_base_incl_ns:
		return c->incl_ns;
	case COL_call_base_children_ns:
		return c->children_ns;
	case COL_call_base_last_id:
		return c->id + c->last_delta;
	case COL_call_base_retval:
		return c->retval;
	}
	return DARC_NULL;
}

static void result_i64(sqlite3_context *ctx, int64_t v)
{
	if (v == DARC_NULL)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
}

/*
 * Field @f of the record at @rec. The strings live in the block until the
 * statement is done: SQLITE_STATIC.
 */
static void field_result(sqlite3_context *ctx, const char *rec, const struct field *f)
{
	const char *p = rec + f->off, *s = NULL;
	int64_t v = DARC_NULL;
	int32_t i;
	uint32_t u;
	bool null = f->neg >= 0 && (memcpy(&i, rec + f->neg, sizeof(i)), i < 0);

	switch (null ? 0 : f->type) {
	case F_I64:
		memcpy(&v, p, sizeof(v));
		break;
	case F_INT:
		memcpy(&i, p, sizeof(i));
		v = i;
		break;
	case F_U32:
		memcpy(&u, p, sizeof(u));
		v = u;
		break;
	case F_STR:
		memcpy(&s, p, sizeof(s));
		break;
	case F_CHARS:
		s = f->empty_null && !*p ? NULL : p;
	}
	if (s)
		sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
	else
		result_i64(ctx, v); /* NULL unless a number was read */
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct rows_cursor *c = (const struct rows_cursor *)cur;

	field_result(ctx, c->rec, &c->fields[col]);
	return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct rows_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .xConnect = rows_connect, /* no xCreate: eponymous only, nothing in the file */
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

/* Record why @table could not be written, from the connection's last error. */
static int write_failed(struct db *db, const char *table)
{
	struct err_msg e = {""};
	char what[64];

	snprintf(what, sizeof(what), "cannot write to table %s", table);
	sql_errf(db, &e, what);
	fail(db, &e);
	return -1;
}

/* The rows @src of @kind, through its virtual table, in one statement. 0, or -1 (recorded). */
static int write_rows(struct db *db, int kind, struct row_src src)
{
	sqlite3_stmt *s = db->insert[kind];
	int rc;

	db->src = src;
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : write_failed(db, inserts[kind].table);
}

/* The first @n elements of the array @a, as a row_src. */
#define ARRAY_SRC(a, n) ((struct row_src){(const char *)(a), sizeof(*(a)), NULL, 0, (int)(n)})

/* call_base's columns of @c, in columns.h's order. */
static void call_values(const struct queued_call *c, int64_t v[CALL_BASE_NCOLS])
{
	for (int col = 0; col < CALL_BASE_NCOLS; col++)
		v[col] = call_column(c, col);
}

/* Row @v (its id first) onto @p's pages. 0, or -1 (recorded). */
static int put_paged(struct db *db, struct paged *p, const int64_t *v)
{
	struct err_msg e; /* btree_append() fills it when it fails */

	if (btree_append(p->tree, v[0], v, &e)) {
		fail(db, &e);
		return -1;
	}
	return 0;
}

/* The calls of block @b, and their call_extra rows, onto the pages. 0, or -1 (recorded). */
static int write_calls(struct db *db, const struct block *b)
{
	int64_t v[CALL_BASE_NCOLS];

	for (unsigned i = 0; i < b->ncalls; i++) {
		call_values(&b->calls[i], v);
		if (put_paged(db, &db->paged[PAGED_CALLS], v))
			return -1;
	}
	return 0;
}

static int write_extras(struct db *db, const struct block *b)
{
	for (unsigned i = 0; i < b->nextras; i++)
		if (put_paged(db, &db->paged[PAGED_EXTRAS], b->extras[i]))
			return -1;
	return 0;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* With DARC_TIMING: charge the CPU time since *@t to table @kind. */
static void charge(struct db *db, int kind, long rows, double *t)
{
	double now;

	if (!db->timing)
		return;
	now = thread_cpu();
	db->cpu_by_kind[kind] += now - *t;
	db->rows_by_kind[kind] += rows;
	*t = now;
}

/*
 * Group the rows of @b by kind in db->order, each kind's in the order they
 * were put, so that each table gets its rows in that order (a statement a
 * table changes no table's content): kind k's are order[from[k] .. from[k + 1]).
 */
static void group_rows(struct db *db, const struct block *b, unsigned from[ROW_KINDS + 1])
{
	unsigned at[ROW_KINDS + 1] = {0};

	for (unsigned i = 0; i < b->n; i++)
		at[b->rows[i].kind + 1]++;
	for (int k = 0; k < ROW_KINDS; k++)
		at[k + 1] += at[k];
	memcpy(from, at, sizeof(at));
	for (unsigned i = 0; i < b->n; i++)
		db->order[at[b->rows[i].kind]++] = (uint16_t)i;
}

/* Insert the rows of @b, a statement a table; on failure record why and return -1. */
static int write_block(struct db *db, const struct block *b)
{
	unsigned from[ROW_KINDS + 1];
	double t = db->timing ? thread_cpu() : 0;
	int rc = 0;

	group_rows(db, b, from);
	for (int k = 0; k < ROW_KINDS && rc == 0; k++) {
		struct row_src src = ARRAY_SRC(b->rows, from[k + 1]);

		if (from[k] == from[k + 1])
			continue;
		src.idx = db->order;
		src.lo = from[k];
		rc = write_rows(db, k, src);
		charge(db, k, from[k + 1] - from[k], &t);
	}
	if (rc == 0) {
		rc = write_calls(db, b);
		charge(db, ROW_CALL, b->ncalls, &t);
	}
	if (rc == 0 && b->nextras) {
		rc = write_extras(db, b);
		charge(db, ROW_CALL_EXTRA, b->nextras, &t);
	}
	if (rc == 0 && b->nhists) {
		rc = write_rows(db, ROW_HIST, ARRAY_SRC(b->hists, b->nhists));
		charge(db, ROW_HIST, b->nhists, &t);
	}
	return rc;
}

static void print_timing(const struct db *db)
{
	for (int i = 0; i < NPAGED; i++)
		fprintf(stderr, "darc: writer: %-14s %9lld rows in pages, %lld of them late\n",
			db->paged[i].table, (long long)btree_rows(db->paged[i].tree),
			(long long)btree_late(db->paged[i].tree));
	for (int k = 0; k < ROW_KINDS; k++)
		if (db->rows_by_kind[k])
			fprintf(stderr, "darc: writer: %-14s %9ld rows %7.3f s CPU (%.2f us a row)\n",
				inserts[k].table, db->rows_by_kind[k], db->cpu_by_kind[k],
				db->cpu_by_kind[k] * 1e6 / db->rows_by_kind[k]);
	fprintf(stderr, "darc: writer: whole thread %.3f s CPU; the producer waited for it %ld"
			" times, %.3f s\n", thread_cpu(), db->producer_waits, db->producer_wait);
}

static int exec(struct db *db, const char *sql, const char *what, struct err_msg *err);
static int prepare_inserts(struct db *db, struct err_msg *err);

/* The empty database of the schema (made at build time: schema.h) into the empty file. 0 or -1. */
static int write_template(struct db *db, struct err_msg *err)
{
	int fd = open(db->tmp, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	int rc = fd < 0 || image_write(db->image, fd) < 0 ? -1 : 0;

	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	return rc ? err_setf(err, db->path, "cannot write '%s': %s", db->tmp, strerror(errno)) : 0;
}

/*
 * The database itself, made by the writer thread while the producer starts
 * reading: the empty database of the schema, SQLite, the bulk-load
 * settings, the inserts. 0, or -1 (recorded: the producer's next put fails,
 * db_finish() says why).
 */
static int db_setup(struct db *db)
{
	struct err_msg e = {""};

	if (write_template(db, &e) < 0) {
		fail(db, &e);
		return -1;
	}
	/* one thread at a time uses the connection: no SQLite mutexes needed */
	if (sqlite3_open_v2(db->tmp, &db->sql,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		if (!db->sql)
			err_setf(&e, db->path, "cannot open '%s': out of memory", db->tmp);
		else
			sql_errf(db, &e, "cannot open the database");
		fail(db, &e);
		return -1;
	}
	if (exec(db, pragmas_sql, "cannot set up the database", &e) < 0 ||
	    exec(db, "BEGIN", "cannot begin writing", &e) < 0 || prepare_inserts(db, &e) < 0) {
		fail(db, &e);
		return -1;
	}
	return 0;
}

/* The writer thread: make the database, then write queued blocks until closing and the queue is empty. */
static void *writer_main(void *arg)
{
	struct db *db = arg;
	unsigned written = 0;

	db_setup(db); /* a failure is in db->failed: the blocks are only given back */

	for (;;) {
		struct block *b;
		bool skip;

		pthread_mutex_lock(&db->lock);
		while (!db->head && !db->closing)
			pthread_cond_wait(&db->ready, &db->lock);
		b = db->head;
		if (b) {
			db->head = b->next;
			if (!db->head)
				db->tail = NULL;
		}
		skip = db->discard;
		pthread_mutex_unlock(&db->lock);
		if (!b)
			break;
		if (!skip && !atomic_load(&db->failed)) {
			write_block(db, b);
			/* what SQLite has written goes to the disk meanwhile, not all
			   at the fsync before the rename */
			if (++written % SYNC_BLOCKS == 0)
				wfile_sync_ahead(db->pages);
		}
		block_reset(b);
		pthread_mutex_lock(&db->lock);
		b->next = db->free;
		db->free = b;
		pthread_cond_signal(&db->space);
		pthread_mutex_unlock(&db->lock);
	}
	if (db->timing)
		print_timing(db);
	return NULL;
}

/* Hand over the producer's block (unless @discard) and wait for the writer to end. */
static void stop_writer(struct db *db, bool discard)
{
	if (!db->writer_started)
		return;
	pthread_mutex_lock(&db->lock);
	if (db->cur && (db->cur->n || db->cur->ncalls) && !discard) {
		if (db->tail)
			db->tail->next = db->cur;
		else
			db->head = db->cur;
		db->tail = db->cur;
		db->cur = NULL;
	}
	db->closing = true;
	db->discard = discard;
	pthread_cond_signal(&db->ready);
	pthread_mutex_unlock(&db->lock);
	pthread_join(db->writer, NULL);
	db->writer_started = false;
}

/* Close SQLite, remove the temporary file (unless renamed), free everything. */
static void db_free(struct db *db)
{
	struct block *b;

	for (int i = 0; i < ROW_KINDS; i++)
		sqlite3_finalize(db->insert[i]);
	sqlite3_close_v2(db->sql);
	wfile_abort(db->wf); /* unless done with: then NULL */
	wfile_abort(db->pages); /* unless renamed: then NULL */
	block_free(db->cur);
	while ((b = db->head)) {
		db->head = b->next;
		block_free(b);
	}
	while ((b = db->free)) {
		db->free = b->next;
		block_free(b);
	}
	if (db->mutex_ready) {
		pthread_mutex_destroy(&db->lock);
		pthread_cond_destroy(&db->ready);
		pthread_cond_destroy(&db->space);
	}
	for (int i = 0; i < NPAGED; i++)
		btree_free(db->paged[i].tree);
	btree_pagefile_free(db->pf);
	free(db->win);
	free(db->win_extra);
	free(db->win_state);
	free(db->path);
	free(db);
}

const struct wfile_kind db_kind = {"a darc database", db_is_darc};

int db_check_output(const char *path, bool force, struct err_msg *err)
{
	return wfile_check(path, &db_kind, force, err);
}

/*
 * The temporary file beside the target (wfile). SQLite opens it by name, so
 * our descriptor is closed first: closing it later would drop SQLite's locks.
 */
static int create_tmp(struct db *db, bool force, struct err_msg *err)
{
	db->wf = wfile_create(db->path, &db_kind, force, err);
	if (!db->wf)
		return -1;
	db->tmp = wfile_tmp(db->wf);
	return wfile_close_fd(db->wf, err);
}

/* Run @sql on the connection; on failure fill @err with "@what: why". */
static int exec(struct db *db, const char *sql, const char *what, struct err_msg *err)
{
	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	sql_errf(db, err, what);
	return -1;
}

/* Register each kind's virtual table (darc_TABLE_rows), and prepare its INSERT. 0 or -1. */
static int prepare_inserts(struct db *db, struct err_msg *err)
{
	for (int k = 0; k < ROW_KINDS; k++) {
		bool paged = k == ROW_CALL || k == ROW_CALL_EXTRA; /* pages of their own (btree.h) */
		char *name = paged ? NULL : sqlite3_mprintf("darc_%s_rows", inserts[k].table);
		char *sql = name ? insert_sql(k) : NULL;
		int rc = sql ? SQLITE_OK : SQLITE_NOMEM;

		if (paged)
			continue;
		db->vt[k].db = db;
		db->vt[k].kind = k;
		if (rc == SQLITE_OK)
			rc = sqlite3_create_module_v2(db->sql, name, &rows_module, &db->vt[k], NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT,
						&db->insert[k], NULL);
		sqlite3_free(name);
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			sql_errf(db, err, "cannot prepare an insert");
			return -1;
		}
	}
	return 0;
}

/*
 * The page file (a second temporary file beside the target, which the
 * database becomes) and the tables whose rows go into it as pages. 0, or -1.
 */
static int make_trees(struct db *db, bool force, struct err_msg *err)
{
	static const struct {
		const char *table;
		int ncols;
	} tables[NPAGED] = {{"call_base", CALL_BASE_NCOLS}, {"call_extra", CALL_EXTRA_NCOLS}};

	db->pages = wfile_create(db->path, &db_kind, force, err);
	if (!db->pages)
		return -1;
	db->pf = btree_pagefile_new(wfile_fd(db->pages), db->path, db->image->page_size, RESERVE_PAGES,
			      BTREE_PENDING_BYTE);
	for (int i = 0; i < NPAGED && db->pf; i++) {
		db->paged[i].table = tables[i].table;
		db->paged[i].ncols = tables[i].ncols;
		db->paged[i].tree = btree_new(db->pf, tables[i].table, tables[i].ncols);
		if (!db->paged[i].tree)
			return err_setf(err, db->path, "out of memory");
	}
	return db->pf ? 0 : err_setf(err, db->path, "out of memory");
}

struct db *db_create(const char *path, bool force, struct err_msg *err)
{
	return db_create_sized(path, force, DB_BIG, err);
}

struct db *db_create_sized(const char *path, bool force, uint64_t input_bytes,
			   struct err_msg *err)
{
	struct db *db = calloc(1, sizeof(*db));
	int ret = -1;

	if (!db || !(db->path = strdup(path))) {
		err_setf(err, path, "out of memory");
		free(db);
		return NULL;
	}
	db->image = input_bytes < DB_BIG ? &image_small : &image_big;
	atomic_init(&db->failed, false);
	db->win_next = 1;
	db->win = malloc(WINDOW * sizeof(*db->win));
	db->win_extra = malloc(WINDOW * sizeof(*db->win_extra));
	db->win_state = calloc(WINDOW, sizeof(*db->win_state));
	if (!db->win || !db->win_extra || !db->win_state) {
		err_setf(err, path, "out of memory");
		goto out;
	}
	if (pthread_mutex_init(&db->lock, NULL) || pthread_cond_init(&db->ready, NULL) ||
	    pthread_cond_init(&db->space, NULL)) {
		err_setf(err, path, "cannot initialise the writer's lock");
		goto out;
	}
	db->mutex_ready = true;
	if (create_tmp(db, force, err) < 0 || make_trees(db, force, err) < 0)
		goto out;
	db->cur = block_new();
	if (!db->cur) {
		err_setf(err, path, "out of memory");
		goto out;
	}
	db->nblocks = 1;
	db->timing = getenv("DARC_TIMING") != NULL;
	if (wfile_thread_create(&db->writer, writer_main, db)) {
		err_setf(err, path, "cannot start the writer thread");
		goto out;
	}
	db->writer_started = true;
	ret = 0;
out:
	if (ret < 0) {
		db_free(db);
		return NULL;
	}
	return db;
}

/* Queue a copy of @rec as a row of @kind: the row (to copy its strings), or NULL once failed. */
static inline struct row *put(struct db *db, int kind, const void *rec, size_t size)
{
	struct row *r = row_slot(db, kind);

	if (r)
		memcpy(r, rec, size); /* into the union, at the start of the row */
	return r;
}

/* Copy the string *@s into the producer's block. 0, or -1 when out of memory. */
static int own_str(struct db *db, const char **s)
{
	if (copy_str(db->cur, s) == 0)
		return 0;
	fail_oom(db);
	return -1;
}

/* Move the window past win_next: its call (if any) goes on. 0, or -1 once failed. */
static int window_pass(struct db *db)
{
	size_t k = (size_t)db->win_next++ % WINDOW;
	int state = db->win_state[k];

	db->win_state[k] = SLOT_EMPTY;
	return state == SLOT_CALL	  ? put_call_row(db, &db->win[k], NULL)
	       : state == SLOT_CALL_EXTRA ? put_call_row(db, &db->win[k], db->win_extra[k])
					  : 0;
}

/*
 * Pass on the calls of the window from win_next up to @upto (excluded), in
 * order; a call still open there goes on when it ends, out of order.
 */
static int window_flush(struct db *db, int64_t upto)
{
	while (db->win_next < upto)
		if (window_pass(db) < 0)
			return -1;
	return 0;
}

/*
 * The window slot for call @id, made free; -1 when @id is behind the window
 * or already in it (then it goes on at once).
 */
static long window_slot(struct db *db, int64_t id)
{
	size_t k = (size_t)id % WINDOW;

	if (id < db->win_next || id < 1)
		return -1;
	if (id - db->win_next >= WINDOW && window_flush(db, id - WINDOW + 1) < 0)
		return -1;
	return db->win_state[k] == SLOT_EMPTY ? (long)k : -1;
}

/* Pass on the calls from win_next on that are now in order. */
static int window_advance(struct db *db)
{
	while (db->win_state[(size_t)db->win_next % WINDOW] != SLOT_EMPTY)
		if (window_pass(db) < 0)
			return -1;
	return 0;
}

/*
 * The call_value row of @c, if it has one: written now, while its strings
 * live (call_value's rows need no order). 0, or -1 once failed.
 */
static int put_value_row(struct db *db, const struct call_rec *c)
{
	struct call_value_rec v = {c->id, c->args, c->retaddr};
	struct row *r;

	if (!c->args && !c->retaddr)
		return 0;
	r = put(db, ROW_CALL_VALUE, &v, sizeof(v));
	return r ? own_str(db, &r->call_value.args) | own_str(db, &r->call_value.retaddr) : -1;
}

int db_put_call(struct db *db, const struct call_rec *c)
{
	long k = window_slot(db, c->id);
	int64_t extra[CALL_EXTRA_NCOLS];
	struct queued_call q;
	bool has;

	if (atomic_load_explicit(&db->failed, memory_order_relaxed) || put_value_row(db, c) ||
	    call_queued(db, c, &q, extra, &has))
		return -1;
	if (k < 0) /* too late for the window, or the same id again: btree_finish() judges */
		return put_call_row(db, &q, has ? extra : NULL);
	/* the window holds the queued form (64 bytes), not the call_rec (176) */
	db->win[k] = q;
	if (has)
		memcpy(db->win_extra[k], extra, sizeof(extra));
	db->win_state[k] = has ? SLOT_CALL_EXTRA : SLOT_CALL;
	return window_advance(db);
}

int db_skip_call(struct db *db, int64_t id)
{
	long k = window_slot(db, id);

	if (atomic_load_explicit(&db->failed, memory_order_relaxed))
		return -1;
	if (k < 0)
		return 0;
	db->win_state[k] = SLOT_SKIP;
	return window_advance(db);
}

int db_put_task(struct db *db, const struct task_rec *t)
{
	struct row *r = put(db, ROW_TASK, t, sizeof(*t));

	return r ? own_str(db, &r->task.comm) : -1;
}

int db_put_func(struct db *db, const struct func_rec *f)
{
	struct row *r = put(db, ROW_FUNC, f, sizeof(*f));

	return r ? own_str(db, &r->func.name) | own_str(db, &r->func.module) : -1;
}

int db_put_fnode(struct db *db, const struct fnode_rec *n)
{
	return put(db, ROW_FNODE, n, sizeof(*n)) ? 0 : -1;
}

int db_put_hist(struct db *db, const struct hist_rec *h)
{
	if (atomic_load_explicit(&db->failed, memory_order_relaxed))
		return -1;
	if (db->cur->nhists == HIST_ROWS && next_block(db) < 0)
		return -1;
	db->cur->hists[db->cur->nhists++] = *h;
	return 0;
}

int db_put_irq(struct db *db, const struct irq_rec *i)
{
	struct row *r = put(db, ROW_IRQ, i, sizeof(*i));

	return r ? own_str(db, &r->irq_interval.name) : -1;
}

int db_put_sched(struct db *db, const struct sched_rec *sc)
{
	return put(db, ROW_SCHED, sc, sizeof(*sc)) ? 0 : -1;
}

int db_put_wakeup(struct db *db, const struct wakeup_rec *w)
{
	return put(db, ROW_WAKEUP, w, sizeof(*w)) ? 0 : -1;
}

int db_put_gap(struct db *db, const struct gap_rec *g)
{
	return put(db, ROW_GAP, g, sizeof(*g)) ? 0 : -1;
}

int db_put_probe(struct db *db, const struct probe_rec *p)
{
	struct row *r = put(db, ROW_PROBE, p, sizeof(*p));

	return r ? own_str(db, &r->probe_hit.event) | own_str(db, &r->probe_hit.args) : -1;
}

int db_put_bio(struct db *db, const struct bio_rec *b)
{
	return put(db, ROW_BIO, b, sizeof(*b)) ? 0 : -1;
}

int db_put_recording(struct db *db, const struct recording_rec *rec)
{
	struct row *r = put(db, ROW_RECORDING, rec, sizeof(*rec));
	struct recording_rec *c;

	if (!r)
		return -1;
	c = &r->recording;
	return own_str(db, &c->source) | own_str(db, &c->format) | own_str(db, &c->kernel) |
	       own_str(db, &c->clock) | own_str(db, &c->manifest) | own_str(db, &c->darc_version) |
	       own_str(db, &c->options) | own_str(db, &c->lacks) | own_str(db, &c->source_hash) |
	       own_str(db, &c->tracer_cost);
}

void db_set_call_indexes(struct db *db, bool on)
{
	db->call_indexes = on;
}

/* With DARC_TIMING: the wall time since the last step of db_finish(). */
static void step_done(const struct db *db, const char *what, double *t)
{
	struct timespec ts;
	double now;

	if (!db->timing)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	if (*t)
		fprintf(stderr, "darc: finish: %-24s %.3f s\n", what, now - *t);
	*t = now;
}

/* The root page of table @name, 0 if none (or SQLite fails). */
static uint32_t root_page(struct db *db, const char *name)
{
	sqlite3_stmt *st;
	uint32_t root = 0;

	if (sqlite3_prepare_v2(db->sql, "SELECT rootpage FROM sqlite_schema WHERE type = 'table'"
				       " AND name = ?1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		root = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return root;
}

/* Each paged table's root page into @root, and the file's pages into *@npages. 0 or -1. */
static int file_layout(struct db *db, uint32_t root[NPAGED], uint32_t *npages,
		       struct err_msg *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	for (int i = 0; i < NPAGED; i++)
		if ((root[i] = root_page(db, db->paged[i].table)) < 2)
			return err_setf(err, db->path, "cannot find the root page of table %s",
					db->paged[i].table);
	if (sqlite3_prepare_v2(db->sql, "PRAGMA page_count", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*npages = (uint32_t)sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc ? (sql_errf(db, err, "cannot count its pages"), -1) : 0;
}

/* Close the connection. 0, or -1 with @err set. */
static int close_sql(struct db *db, struct err_msg *err)
{
	int rc = sqlite3_close(db->sql);

	if (rc == SQLITE_OK)
		db->sql = NULL;
	return rc == SQLITE_OK ? 0 : (sql_errf(db, err, "cannot close the database"), -1);
}

/*
 * The statistics ANALYZE would give the paged tables, empty for SQLite until
 * their pages go in: the number of rows of each (it has no index). 0 or -1.
 */
static int paged_stats(struct db *db, struct err_msg *err)
{
	for (int i = 0; i < NPAGED; i++) {
		const struct paged *p = &db->paged[i];
		int64_t n = btree_rows(p->tree);
		char *sql = sqlite3_mprintf("INSERT INTO sqlite_stat1 VALUES ('%q', NULL, '%lld')",
					    p->table, (long long)n);
		int rc = !n ? 0 : sql ? exec(db, sql, "cannot analyze the tables", err) : -1;

		sqlite3_free(sql);
		if (rc)
			return sql ? -1 : err_setf(err, db->path, "out of memory");
	}
	return 0;
}

/*
 * The page file made whole: SQLite's pages in its head, the trees' pages
 * placed and built (btree.h). 0, or -1 with @err set.
 */
static int place_pages(struct db *db, int sql_fd, const uint32_t root[NPAGED], uint32_t npages,
		       struct err_msg *err)
{
	if (btree_pagefile_head(db->pf, sql_fd, npages, err) < 0)
		return -1;
	for (int i = 0; i < NPAGED; i++)
		if (btree_place(db->paged[i].tree, root[i], err) < 0)
			return -1;
	for (int i = 0; i < NPAGED; i++)
		if (btree_build(db->paged[i].tree, root[i], err) < 0)
			return -1;
	return btree_pagefile_finish(db->pf, err);
}

/*
 * What SQLite writes before the pages of the calls go in: the idle task's
 * row, the statistics (ANALYZE's, and the paged tables' rows counted),
 * committed and closed; then its pages into the page file, which becomes
 * the database (place_pages()). 0, or -1 with @err set.
 */
static int finish_pages(struct db *db, struct err_msg *err)
{
	uint32_t root[NPAGED], npages = 0;
	int fd, rc;

	/* calls interrupted on an idle CPU belong to tid 0: give it a row */
	if (exec(db, "INSERT OR IGNORE INTO task(tid, pid, comm) VALUES (0, 0, '<idle>')",
		 "cannot write to table task", err) < 0 ||
	    exec(db, analyze_sql, "cannot analyze the tables", err) < 0 ||
	    paged_stats(db, err) < 0 || file_layout(db, root, &npages, err) < 0 ||
	    exec(db, "COMMIT", "cannot commit", err) < 0 || close_sql(db, err) < 0)
		return -1;
	fd = open(db->tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_setf(err, db->path, "cannot open '%s' again: %s", db->tmp,
				strerror(errno));
	rc = place_pages(db, fd, root, npages, err);
	close(fd);
	/* SQLite's own file is done with; the page file is the database now */
	wfile_abort(db->wf);
	db->wf = NULL;
	db->tmp = wfile_tmp(db->pages);
	return rc ? rc : wfile_close_fd(db->pages, err); /* SQLite may open it (--indexes) */
}

/*
 * With --indexes, the database again, calls and all: the indexes on the
 * calls and their statistics, committed and closed. 0, or -1 with @err set.
 */
static int finish_calls(struct db *db, struct err_msg *err)
{
	if (!db->call_indexes)
		return 0;
	if (sqlite3_open_v2(db->tmp, &db->sql,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK)
		return sql_errf(db, err, "cannot open the database again"), -1;
	if (exec(db, pragmas_sql, "cannot set up the database", err) < 0 ||
	    exec(db, "BEGIN", "cannot begin writing", err) < 0 ||
	    exec(db, schema_call_indexes_sql, "cannot create the indexes", err) < 0 ||
	    exec(db, "PRAGMA analysis_limit = 1000; ANALYZE call_base", "cannot analyze the tables",
		 err) < 0 ||
	    exec(db, "COMMIT", "cannot commit", err) < 0)
		return -1;
	return close_sql(db, err);
}

int db_finish(struct db *db, struct err_msg *err)
{
	struct err_msg e = {""};
	double t = 0;
	int ret = -1, rc;

	if (!db)
		return err_setf(err, NULL, "no database to finish");
	step_done(db, "", &t);
	window_flush(db, db->win_next + WINDOW); /* a failure is in db->failed */
	stop_writer(db, false);
	step_done(db, "the writer's last blocks", &t);
	if (atomic_load(&db->failed)) {
		e = db->werr;
		goto out;
	}
	for (int i = 0; i < ROW_KINDS; i++) {
		sqlite3_finalize(db->insert[i]);
		db->insert[i] = NULL;
	}
	if (finish_pages(db, &e) < 0)
		goto out;
	step_done(db, "ANALYZE, the calls' pages", &t);
	if (finish_calls(db, &e) < 0)
		goto out;
	step_done(db, "the indexes on the calls", &t);
	/* synchronous=OFF never synced: wfile_commit() syncs before the rename */
	rc = wfile_commit(db->pages, &e);
	db->pages = NULL; /* committed or removed */
	db->tmp = NULL;
	if (rc < 0)
		goto out;
	step_done(db, "fsync, rename", &t);
	ret = 0;
out:
	if (ret < 0 && err)
		*err = e;
	db_free(db);
	return ret;
}

bool db_failed(const struct db *db)
{
	return db && atomic_load(&((struct db *)db)->failed);
}

void db_abort(struct db *db)
{
	if (!db)
		return;
	stop_writer(db, true);
	db_free(db);
}

/*
 * Does @path start with SQLite's header? 1 yes (its first 100 bytes in @h,
 * if not NULL), 0 no, -1 unreadable (errno set).
 */
static int sqlite_header(const char *path, unsigned char h[100])
{
	unsigned char buf[100];
	struct stat st;
	/* without blocking: a FIFO is no database, and the reader says what it is */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	h = h ? h : buf;
	n = read(fd, h, 100);
	close(fd);
	return n == 100 && !memcmp(h, "SQLite format 3", 16);
}

int db_sqlite_header(const char *path)
{
	return sqlite_header(path, NULL);
}

int db_is_darc(const char *path)
{
	static const char q[] = "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
				" AND name IN ('recording', 'func', 'fnode', 'hist')";
	sqlite3 *sql = NULL;
	sqlite3_stmt *st = NULL;
	unsigned char h[100];
	int rc = sqlite_header(path, h);

	if (rc <= 0)
		return rc;
	/* big-endian at 68; SQLite's header is 100 bytes whatever the page size */
	if (btree_get32(h + 68) == DB_APPLICATION_ID)
		return 1;
	rc = 0;
	struct err_msg ignore;

	if (!trust_open(path, SQLITE_OPEN_READONLY, &sql, &ignore) &&
	    sqlite3_prepare_v2(sql, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		rc = sqlite3_column_int(st, 0) == 4;
	sqlite3_finalize(st);
	sqlite3_close(sql);
	return rc;
}
