// SPDX-License-Identifier: MIT
#include "search-db.h"

#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "grow.h"
#include "hist.h"
#include "rows.h"
#include "jtext.h"

/* The peak's f0 calls, in order, each with its subtree's range of ids. */
static const char roots_sql[] = "SELECT id, last_id, task_id FROM sr_root ORDER BY id";
/*
 * An f0 call's range of ids: its descendants in entry order (so a call's
 * parent is open when it comes), and the calls of interrupts in its task.
 */
static const char range_sql[] =
    "SELECT darc_tree_row(id, parent_id, fnode_id, incl_ns) FROM call_base"
    " WHERE id BETWEEN ?1 AND ?2 AND task_id = ?3"; /* a NULL incl_ns reads as 0 */
/* the parts of the few calls that have some (merged in by id: no lookup a call) */
static const char extra_sql[] =
    "SELECT id, irq_ns + softirq_ns + preempt_ns, preempt_ns, blocked_ns FROM call_extra"
    " WHERE id BETWEEN ?1 AND ?2";
static const char irqs_sql[] =
    "SELECT call_id, kind, irq, name, t_end - t_start FROM irq_interval"
    " WHERE call_id BETWEEN ?1 AND ?2 AND t_end IS NOT NULL ORDER BY call_id";
static const char sched_sql[] =
    "SELECT DISTINCT call_id FROM sched_interval WHERE call_id BETWEEN ?1 AND ?2";
/* the fnodes of the tracer's own functions (a call's function is its fnode's) */
static const char overhead_sql[] =
    "SELECT id FROM fnode WHERE func_id IN (SELECT id FROM func WHERE overhead) ORDER BY id";
/*
 * sr_sub: the calls of the search the reports' details join on (paths'
 * interrupts, preemption, wake-ups): its f0 calls (parent NULL) and every
 * call an interrupt or a switch was charged to, not all their calls; with
 * each one's fnode, which the details select by (a lookup of every one of
 * them in call_base: 35 of the 120 ms of the wake-ups of 28 000 sleeps).
 */
static const char sub_init_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS sr_sub(id INTEGER PRIMARY KEY, parent INTEGER,"
    " fnode INTEGER NOT NULL);"
    "DELETE FROM sr_sub";
static const char sub_add_sql[] = "INSERT OR IGNORE INTO sr_sub VALUES (?1, ?2, ?3)";

struct root {
	int64_t id, last, task;
};

struct part {
	int64_t id, exo, pre, blocked;
};

/* A row of sr_sub a load on a thread of its own found, for the main thread to insert. */
struct sub_row {
	int64_t id, parent, fnode; /* parent -1: NULL */
};

/* A peak with fewer calls in its f0 calls' subtrees is loaded on one thread. */
int search_db_share_min = 100000;

/*
 * The load of one search, or of a share of its f0 calls (roots[k0..k1)):
 * statements, and the current f0 call's calls.
 */
struct load {
	sqlite3 *sql;
	struct rsearch *rs;
	sqlite3_stmt *range, *extra, *irqs, *sched, *add; /* add NULL: rows of sr_sub into sub[] */
	struct root *roots; /* all of the search's, shared */
	int nroots, k0, k1;
	int64_t *ovh; /* the fnodes of the tracer's own functions, sorted (shared) */
	int novh;
	struct sub_row *sub;
	int nsub, subcap;
	int64_t *lid, *lpar; /* the current f0 call's calls (in id order) and their parents */
	int *lidx;	     /* and their indices in the tree */
	int nl, lcap, scap;
	const signed char *kind; /* search_db_count_kinds()'s, or NULL */
	int64_t nkind;
	uint32_t (*cnt)[4]; /* with @kind: each of roots[]'s subtree by func kind (shared) */
	struct part *parts; /* the current f0 call's rows of call_extra */
	int nparts, pcap;
	const struct root *cur; /* the f0 call whose range tree_row() is given */
	int64_t skip;		/* the last id of a nested f0 call's subtree, left to its turn */
	int x;			/* the next of parts[] */
	int nx;			/* the next of roots[] after cur that a call may be */
	bool nomem;
};

static int fail(struct rdb *db, struct err_msg *err, const char *what)
{
	return err_setf(err, rdb_path(db), "cannot read %s: %s", what,
			rdb_why(rdb_sql(db)));
}

/* Index of @id in the sorted @ids[0..n), or -1. */
static int find_id(const int64_t *ids, int n, int64_t id)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (ids[mid] == id)
			return mid;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The index of source @label (@soft: a softirq), added if new; -1 when out of memory. */
static int source_of(struct rsearch *rs, int *cap, const char *label, int soft)
{
	for (int i = 0; i < rs->nsources; i++)
		if (!strcmp(rs->sources[i], label))
			return i;
	{
		int c2 = *cap;
		if (GROW(rs->sources, rs->nsources, *cap, 16) ||
		    GROW(rs->soft, rs->nsources, c2, 16))
			return -1;
	}
	rs->sources[rs->nsources] = strdup(label);
	rs->soft[rs->nsources] = soft;
	return rs->sources[rs->nsources] ? rs->nsources++ : -1;
}

/* The source index of interrupt (@kind, @irq, @name), added if new; -1 when out of memory. */
static int source(struct rsearch *rs, int *cap, int kind, sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 3);
	char label[160];

	if (kind == IRQ_SOFT)
		snprintf(label, sizeof(label), "softirq %s", name ? name : "?");
	else if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		snprintf(label, sizeof(label), "irq %lld (%s)", sqlite3_column_int64(st, 2),
			 name ? name : "?");
	else
		snprintf(label, sizeof(label), "interrupt %s", name ? name : "?");
	return source_of(rs, cap, label, kind == IRQ_SOFT);
}

/*
 * The first ns value of bucket @b at @sel's resolution (and unit: cycles
 * are ns times sel->scale): where the selection of a peak's calls begins.
 */
static int64_t bucket_start(int b, const struct call_selection *sel)
{
	double scale = sel->scale > 0 ? sel->scale : 1;
	int64_t v = (int64_t)(exp2((double)b / sel->resolution) / scale) - 2;

	if (v < 1)
		v = 1;
	if (scale == 1)
		while (hist_bucket((uint64_t)v, sel->resolution) < b)
			v++;
	return v;
}

/* The first column (int64) of every row of @sql into *@v. Their number, or -1. */
static int load_ids(sqlite3 *db, const char *sql, int64_t **v)
{
	sqlite3_stmt *st;
	int n = 0, cap = 0, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(*v, n, cap, 64))
		(*v)[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? n : -1;
}

static int load_roots(struct load *l)
{
	sqlite3_stmt *st;
	int cap = 0, rc;

	if (sqlite3_prepare_v2(l->sql, roots_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !GROW(l->roots, l->nroots, cap, 256))
		l->roots[l->nroots++] = (struct root){sqlite3_column_int64(st, 0),
						      sqlite3_column_int64(st, 1),
						      sqlite3_column_int64(st, 2)};
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Call @id (parent @parent, -1 for none) of the current f0 call, tree index @idx. */
static int keep(struct load *l, int64_t id, int64_t parent, int idx)
{
	int c2 = l->lcap, c3 = l->lcap;

	if (idx < 0 || GROW(l->lid, l->nl, l->lcap, 1024) || GROW(l->lpar, l->nl, c2, 1024) ||
	    GROW(l->lidx, l->nl, c3, 1024))
		return -1;
	l->lid[l->nl] = id;
	l->lpar[l->nl] = parent;
	l->lidx[l->nl++] = idx;
	return 0;
}

/* The rows of call_extra in @r's range of ids, in order. */
static int root_parts(struct load *l, const struct root *r)
{
	int rc;

	l->nparts = 0;
	sqlite3_bind_int64(l->extra, 1, r->id);
	sqlite3_bind_int64(l->extra, 2, r->last);
	while ((rc = sqlite3_step(l->extra)) == SQLITE_ROW) {
		if (GROW(l->parts, l->nparts, l->pcap, 64)) {
			rc = SQLITE_NOMEM;
			break;
		}
		l->parts[l->nparts++] = (struct part){sqlite3_column_int64(l->extra, 0),
						      sqlite3_column_int64(l->extra, 1),
						      sqlite3_column_int64(l->extra, 2),
						      sqlite3_column_int64(l->extra, 3)};
	}
	sqlite3_reset(l->extra);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * One call of the current f0 call's range, in order of id: a call whose
 * parent is open is its child; the calls of interrupts (no parent, or one
 * outside) are not; an f0 call nested in it is left, with its subtree, to
 * its own turn (a subtree of its own in the search, as it always was).
 * The aggregate darc_tree_row(id, parent_id, fnode_id, incl_ns): SQLite
 * hands each row over inside its scan, at under half the cost of stepping
 * out to the caller a row (2.6 M calls read for one peak of 8 M events).
 */
static void tree_row(sqlite3_context *cx, int argc, sqlite3_value **v)
{
	struct load *l = sqlite3_user_data(cx);
	const struct root *r = l->cur, *nested;
	int64_t id = sqlite3_value_int64(v[0]), parent = sqlite3_value_int64(v[1]);
	int64_t fnode = sqlite3_value_int64(v[2]);
	struct part p = {id};
	int level = 0;

	(void)argc;
	if (l->nomem)
		return;
	/* every row of the range but the f0 call's own, as the tracer's share counts it */
	if (l->cnt && id != r->id && fnode >= 0 && fnode < l->nkind && l->kind[fnode] >= 0)
		l->cnt[r - l->roots][l->kind[fnode]]++;
	if (id != r->id && (id <= l->skip || sqlite3_value_type(v[1]) == SQLITE_NULL))
		return;
	while (l->nx < l->nroots && l->roots[l->nx].id < id)
		l->nx++;
	if (id != r->id && l->nx < l->nroots && (nested = &l->roots[l->nx])->id == id) {
		l->skip = nested->last;
		return;
	}
	if (id != r->id && (level = search_tree_find(&l->rs->tree, parent)) < 0)
		return;
	while (l->x < l->nparts && l->parts[l->x].id < id)
		l->x++;
	if (l->x < l->nparts && l->parts[l->x].id == id)
		p = l->parts[l->x];
	if (keep(l, id, id == r->id ? -1 : parent,
		 search_tree_add(&l->rs->tree, level, id, fnode, sqlite3_value_int64(v[3]), p.exo,
				 p.pre, p.blocked, find_id(l->ovh, l->novh, fnode) >= 0))) {
		l->nomem = true;
		sqlite3_result_error_nomem(cx);
	}
}

/* The subtree of f0 call @r into the tree (tree_row()). */
static int stream_root(struct load *l, const struct root *r)
{
	sqlite3_stmt *st = l->range;
	int rc;

	if (root_parts(l, r))
		return -1;
	if (l->cnt) /* counted again if the share's thread failed */
		memset(l->cnt[r - l->roots], 0, sizeof(*l->cnt));
	l->nl = 0;
	l->cur = r;
	l->skip = 0;
	l->x = 0;
	l->nx = (int)(r - l->roots) + 1;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, r->last);
	sqlite3_bind_int64(st, 3, r->task);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_reset(st);
	return rc == SQLITE_DONE && !l->nomem ? 0 : -1;
}

/* @row (a call) into sr_sub by statement @add (once). 0 or -1. */
static int sub_insert(sqlite3_stmt *add, const struct sub_row *row)
{
	sqlite3_bind_int64(add, 1, row->id);
	if (row->parent < 0)
		sqlite3_bind_null(add, 2);
	else
		sqlite3_bind_int64(add, 2, row->parent);
	sqlite3_bind_int64(add, 3, row->fnode);
	sqlite3_step(add);
	return sqlite3_reset(add) == SQLITE_OK ? 0 : -1;
}

/* Local call @j into sr_sub, or into sub[] for the main thread to insert. */
static int sub_add(struct load *l, int j)
{
	struct sub_row row = {l->lid[j], l->lpar[j], l->rs->tree.calls[l->lidx[j]].fnode};

	if (l->add)
		return sub_insert(l->add, &row);
	if (GROW(l->sub, l->nsub, l->subcap, 256))
		return -1;
	l->sub[l->nsub++] = row;
	return 0;
}

/* The interrupts and switches charged to the calls of f0 call @r. */
static int root_intervals(struct load *l, const struct root *r)
{
	struct search_tree *t = &l->rs->tree;
	int rc, j;

	sqlite3_bind_int64(l->irqs, 1, r->id);
	sqlite3_bind_int64(l->irqs, 2, r->last);
	while ((rc = sqlite3_step(l->irqs)) == SQLITE_ROW) {
		int s;
		if ((j = find_id(l->lid, l->nl, sqlite3_column_int64(l->irqs, 0))) < 0)
			continue;
		s = source(l->rs, &l->scap, sqlite3_column_int(l->irqs, 1), l->irqs);
		if (s < 0 || GROW(t->irqs, t->nirqs, t->icap, 256) || sub_add(l, j)) {
			rc = SQLITE_NOMEM;
			break;
		}
		t->irqs[t->nirqs++] =
		    (struct search_irq){l->lidx[j], s, sqlite3_column_int64(l->irqs, 4)};
	}
	sqlite3_reset(l->irqs);
	if (rc != SQLITE_DONE || (l->nl && sub_add(l, 0)))
		return -1;
	sqlite3_bind_int64(l->sched, 1, r->id);
	sqlite3_bind_int64(l->sched, 2, r->last);
	while ((rc = sqlite3_step(l->sched)) == SQLITE_ROW)
		if ((j = find_id(l->lid, l->nl, sqlite3_column_int64(l->sched, 0))) >= 0 &&
		    sub_add(l, j))
			break;
	sqlite3_reset(l->sched);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* @l's statements on its connection, and the function that streams the calls. */
static int load_prepare(struct load *l, bool with_sub)
{
	sqlite3 *sql = l->sql;

	return rdb_row_sink(sql, "darc_tree_row", 4, tree_row, l) == SQLITE_OK &&
			       sqlite3_prepare_v2(sql, range_sql, -1, &l->range, NULL) == SQLITE_OK &&
			       sqlite3_prepare_v2(sql, extra_sql, -1, &l->extra, NULL) == SQLITE_OK &&
			       sqlite3_prepare_v2(sql, irqs_sql, -1, &l->irqs, NULL) == SQLITE_OK &&
			       sqlite3_prepare_v2(sql, sched_sql, -1, &l->sched, NULL) == SQLITE_OK &&
			       (!with_sub ||
				sqlite3_prepare_v2(sql, sub_add_sql, -1, &l->add, NULL) == SQLITE_OK)
		   ? 0
		   : -1;
}

/* The f0 calls roots[k0..k1) into @l's tree, closed at the end. */
static int load_share(struct load *l)
{
	int rc = 0;

	for (int k = l->k0; !rc && k < l->k1; k++)
		rc = stream_root(l, &l->roots[k]) || root_intervals(l, &l->roots[k]);
	return rc ? rc : search_tree_end(&l->rs->tree);
}

/* What load_prepare() made, and the current f0 call's arrays. */
static void load_release(struct load *l)
{
	sqlite3_finalize(l->range);
	rdb_row_sink(l->sql, "darc_tree_row", 4, NULL, NULL); /* it points into @l */
	sqlite3_finalize(l->extra);
	sqlite3_finalize(l->irqs);
	sqlite3_finalize(l->sched);
	sqlite3_finalize(l->add);
	free(l->lid);
	free(l->lpar);
	free(l->lidx);
	free(l->parts);
}

/*
 * From here on through a small page cache rather than the memory map or a
 * large cache: the peak's calls, their subtrees and then the details of
 * the answer (the sleeps, their wake-ups and bios, looked up by index) touch
 * pages all over the calls, and the map or a large cache would hold every
 * one in the process's memory until the command ends. A page read again
 * comes from the system's file cache: a copy, cheaper than the memory a
 * large cache first has to fault in (8 M events: 40 K page faults and
 * 1.85 s for darc paths with the 64 MB cache, 25 K and 1.55 s with 4 MB).
 */
static void read_lean(sqlite3 *sql)
{
	sqlite3_exec(sql, "PRAGMA mmap_size = 0; PRAGMA cache_size = -4096", NULL, NULL, NULL);
}

/*
 * A search's later f0 calls loaded on a thread of its own, on a connection
 * of its own, into a tree of its own that the main thread then appends to
 * its own (search_tree_append()): the two halves of a large peak's calls
 * are read at once, on two CPUs.
 */
struct share {
	struct load l;
	struct rsearch rs;
	struct rdb *db;
	pthread_t thread;
	int rc;
};

static void *share_main(void *arg)
{
	struct share *sh = arg;
	struct err_msg ignore;

	sh->rc = -1;
	sh->l.sql = rdb_open_reader(sh->db, &ignore);
	if (!sh->l.sql)
		return NULL;
	read_lean(sh->l.sql);
	if (sqlite3_exec(sh->l.sql, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
	    !load_prepare(&sh->l, false))
		sh->rc = load_share(&sh->l);
	sqlite3_exec(sh->l.sql, "COMMIT", NULL, NULL, NULL);
	load_release(&sh->l); /* not sub[], for share_join() */
	sqlite3_close(sh->l.sql);
	return NULL;
}

/*
 * Where to cut roots[0..n) in two for two threads: the first f0 call of
 * the second half by the calls in their ranges, or n when there are too few
 * calls to be worth a second connection.
 */
static int share_cut(const struct root *roots, int n)
{
	int64_t total = 0, half = 0;

	for (int k = 0; k < n; k++)
		total += roots[k].last - roots[k].id + 1;
	if (total < search_db_share_min)
		return n;
	for (int k = 0; k < n; k++) {
		half += roots[k].last - roots[k].id + 1;
		if (2 * half >= total)
			return k + 1;
	}
	return n;
}

/* @sh's tree, sources and rows of sr_sub appended to @l's (its tree closed). 0 or -1. */
static int share_join(struct load *l, struct share *sh)
{
	struct search_tree *b = &sh->rs.tree;
	int *map = calloc(sh->rs.nsources + 1, sizeof(*map)), rc = 0;

	for (int i = 0; map && i < sh->rs.nsources && !rc; i++)
		rc = (map[i] = source_of(l->rs, &l->scap, sh->rs.sources[i], sh->rs.soft[i])) < 0;
	for (int i = 0; map && !rc && i < b->nirqs; i++)
		b->irqs[i].source = map[b->irqs[i].source];
	rc = rc || !map || search_tree_append(&l->rs->tree, b);
	for (int i = 0; !rc && i < sh->l.nsub; i++)
		rc = sub_insert(l->add, &sh->l.sub[i]) != 0;
	free(map);
	return rc ? -1 : 0;
}

static void share_release(struct share *sh)
{
	free(sh->l.sub);
	search_db_release(&sh->rs);
}

/* search_db_count_kinds()'s table, and the last search's f0 calls counted by it. */
struct kinds {
	const signed char *kind;
	int64_t nkind;
	struct root *roots; /* by id */
	uint32_t (*n)[4];
	int nroots;
};

#define KINDS_MEMO "search-db: subtree kinds"

/* The last search's counts forgotten. */
static void kinds_forget(struct kinds *k)
{
	free(k->roots);
	free(k->n);
	k->roots = NULL;
	k->n = NULL;
	k->nroots = 0;
}

static void kinds_free(void *p)
{
	if (p)
		kinds_forget(p);
	free(p);
}

void search_db_count_kinds(struct rdb *db, const signed char *kind, int64_t n)
{
	struct kinds *k = kind ? rdb_memo_zeroed(db, KINDS_MEMO, sizeof(*k), kinds_free)
			       : rdb_memo(db, KINDS_MEMO);

	if (!k)
		return;
	kinds_forget(k);
	k->kind = kind;
	k->nkind = kind ? n : 0;
}

static int by_root_id(const void *a, const void *b)
{
	const struct root *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

const uint32_t *search_db_kinds_of(struct rdb *db, int64_t id, int64_t last, int64_t task)
{
	const struct kinds *k = rdb_memo(db, KINDS_MEMO);
	const struct root key = {id}, *r;

	if (!k || !k->nroots)
		return NULL;
	r = bsearch(&key, k->roots, k->nroots, sizeof(*k->roots), by_root_id);
	return r && r->last == last && r->task == task ? k->n[r - k->roots] : NULL;
}

static int load_trees(struct load *l, struct rdb *db)
{
	struct share sh = {.db = db};
	struct kinds *km = rdb_memo(db, KINDS_MEMO);
	bool two = false;
	int rc = -1;

	rdb_search_new(db); /* sr_sub's rows change: whatever is kept of it is stale */
	if (km)
		kinds_forget(km);
	if (sqlite3_exec(l->sql, sub_init_sql, NULL, NULL, NULL) == SQLITE_OK &&
	    (l->novh = load_ids(l->sql, overhead_sql, &l->ovh)) >= 0 && !load_roots(l) &&
	    !load_prepare(l, true)) {
		/* without the table, or its memory, nothing is counted: the tracer's
		   share then reads the subtrees again */
		if (km && km->kind && (l->cnt = calloc(l->nroots + 1, sizeof(*l->cnt)))) {
			l->kind = km->kind;
			l->nkind = km->nkind;
		}
		l->k0 = 0;
		l->k1 = share_cut(l->roots, l->nroots);
		if (l->k1 < l->nroots) {
			sh.l = (struct load){.rs = &sh.rs, .roots = l->roots, .nroots = l->nroots,
					     .k0 = l->k1, .k1 = l->nroots, .ovh = l->ovh,
					     .novh = l->novh, .kind = l->kind, .nkind = l->nkind,
					     .cnt = l->cnt};
			two = !pthread_create(&sh.thread, NULL, share_main, &sh);
			if (!two)
				l->k1 = l->nroots;
		}
		rc = load_share(l);
		if (two) {
			pthread_join(sh.thread, NULL);
			if (!rc && sh.rc) { /* it failed (its connection, say): its calls here */
				l->k0 = l->k1;
				l->k1 = l->nroots;
				rc = load_share(l);
			} else if (!rc) {
				rc = share_join(l, &sh);
			}
			share_release(&sh);
		}
	}
	load_release(l);
	if (!rc && l->cnt) { /* the counts, with the f0 calls they are of */
		km->roots = l->roots;
		km->n = l->cnt;
		km->nroots = l->nroots;
	} else {
		free(l->roots);
		free(l->cnt);
	}
	free(l->ovh);
	return rc;
}

/* The subtrees are read once, in order, in one read transaction (not one lock a statement). */
static int load_trees_once(struct load *l, struct rdb *db)
{
	sqlite3 *sql = rdb_sql(db);
	int rc = sqlite3_exec(sql, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? load_trees(l, db) : -1;

	sqlite3_exec(sql, "COMMIT", NULL, NULL, NULL);
	return rc;
}

/*
 * The indexes the details of a search's answer look things up by (bios by
 * task and completion for the sleeps they ended, switch-ins by CPU and time
 * for who ran instead): without them those joins read a table once a row
 * (minutes on millions of calls). darc analyze makes them (indexes.sql); a
 * database of an older darc gets them from its first search, and a
 * read-only one goes without.
 */
static void ensure_indexes(struct rdb *db)
{
	static const char have[] = "SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
				   " AND name IN ('bio_task_complete', 'sched_interval_in')";

	if (rdb_count(db, have) < 2) {
		static const char *const names[] = {"bio_task_complete", "sched_interval_in"};
		rdb_make_indexes(db, names, 2);
	}
}

void search_db_range(const struct call_selection *sel, int lo, int hi, int64_t *lo_ns,
		     int64_t *hi_ns)
{
	*lo_ns = lo > 0 ? bucket_start(lo, sel) : INT64_MIN;
	*hi_ns = hi + 1 < 62 * sel->resolution ? bucket_start(hi + 1, sel) : INT64_MAX;
}

int search_db_preselect(struct rdb *db, const struct call_selection *sel, const struct peak *pk,
			int n, struct err_msg *err)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, a, b;

	if (n < 1)
		return 0;
	for (int k = 0; k < n; k++) {
		search_db_range(sel, pk[k].lo, pk[k].hi, &a, &b);
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	return rdb_preselect_calls(db, sel, lo, hi, err) < 0 ? -1 : 0;
}

int search_db_load(struct rdb *db, const struct call_selection *sel, int lo, int hi,
		   struct rsearch *rs, struct err_msg *err)
{
	int64_t lo_ns, hi_ns;
	struct load l = {.sql = rdb_sql(db), .rs = rs};
	int rc;

	memset(rs, 0, sizeof(*rs));
	search_db_range(sel, lo, hi, &lo_ns, &hi_ns);
	ensure_indexes(db);
	read_lean(rdb_sql(db));
	rc = rdb_select_calls(db, sel, lo_ns, hi_ns, err) < 0 ? -1
	     : load_trees_once(&l, db)			    ? fail(db, err, "the calls")
							    : 0;
	if (rc)
		return -1;
	rs->nroots = rs->tree.nroots;
	rs->tree.nsources = rs->nsources;
	rs->tree.source_soft = rs->soft;
	return 0;
}

void search_db_release(struct rsearch *rs)
{
	for (int i = 0; i < rs->nsources; i++)
		free(rs->sources[i]);
	free(rs->sources);
	free(rs->soft);
	search_tree_release(&rs->tree);
	memset(rs, 0, sizeof(*rs));
}

json_t *search_db_chain(struct rdb *db, int64_t above, int64_t to)
{
	static const char q[] =
	    "WITH RECURSIVE up(id, parent, name, d) AS (SELECT fn.id, fn.parent_id, f.name, 0"
	    "  FROM fnode fn JOIN func f ON f.id = fn.func_id WHERE fn.id = ?1"
	    "  UNION ALL SELECT fn.id, fn.parent_id, f.name, up.d + 1 FROM up"
	    "  JOIN fnode fn ON fn.id = up.parent JOIN func f ON f.id = fn.func_id"
	    "  WHERE up.id != ?2)"
	    " SELECT name FROM up WHERE up.id != ?2 ORDER BY d DESC";
	json_t *a = json_array();
	sqlite3_stmt *st;

	if (to == above || sqlite3_prepare_v2(rdb_sql(db), q, -1, &st, NULL) != SQLITE_OK)
		return a;
	sqlite3_bind_int64(st, 1, to);
	sqlite3_bind_int64(st, 2, above);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(a, jtext(rdb_text(st, 0)));
	sqlite3_finalize(st);
	return a;
}

char *search_db_name(struct rdb *db, const struct rsearch *rs, int kind, int64_t id)
{
	sqlite3_stmt *st;
	char *name = NULL;

	if ((kind == SEARCH_IRQ || kind == SEARCH_SOFTIRQ) && id >= 0 && id < rs->nsources)
		return strdup(rs->sources[id]);
	if (kind != SEARCH_FNODE)
		return strdup(search_kind_name(kind));
	if (sqlite3_prepare_v2(rdb_sql(db),
			       "SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id"
			       " WHERE n.id = ?1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			name = strdup(rdb_text(st, 0));
		sqlite3_finalize(st);
	}
	return name ? name : strdup("?");
}

/* ---- storing ------------------------------------------------------------------ */

static int insert_search(sqlite3 *w, const struct call_selection *sel, const char *f0, int peak,
			 int lo, int hi, int nroots, const char *params, int64_t owner[2])
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	/* a function's searches are its own; a path's, its fnode's */
	if (sqlite3_prepare_v2(w,
			       "INSERT INTO search(f0, owner_kind, owner_id, peak, lo, hi, calls,"
			       " params, created) VALUES (?1, ?2, CASE ?2 WHEN 0 THEN (SELECT"
			       " func_id FROM fnode WHERE id = ?3) ELSE ?3 END, ?4, ?5, ?6, ?7, ?8,"
			       " ?9)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, f0, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, owner[0]);
	sqlite3_bind_int64(st, 3, owner[1]);
	if (peak > 0)
		sqlite3_bind_int(st, 4, peak);
	sqlite3_bind_int(st, 5, lo);
	sqlite3_bind_int(st, 6, hi);
	sqlite3_bind_int(st, 7, nroots);
	sqlite3_bind_text(st, 8, params, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, when, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	(void)sel;
	return rc;
}

static int insert_nodes(sqlite3 *w, struct rdb *db, const struct rsearch *rs,
			const struct search_result *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (columns_prepare_insert(w, "search_path", &st) != SQLITE_OK)
		return -1;
	for (int i = 0; i < r->nnodes && !rc; i++) {
		const struct search_node *n = &r->nodes[i];
		char *name = search_db_name(db, rs, n->kind, n->id);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, PARAM(search_path, search_id), id);
		sqlite3_bind_int(st, PARAM(search_path, node), i);
		if (n->parent >= 0)
			sqlite3_bind_int(st, PARAM(search_path, parent), n->parent);
		else
			sqlite3_bind_null(st, PARAM(search_path, parent));
		sqlite3_bind_int(st, PARAM(search_path, depth), n->depth);
		sqlite3_bind_text(st, PARAM(search_path, kind), search_kind_name(n->kind), -1,
				  SQLITE_STATIC);
		if (n->kind == SEARCH_FNODE || n->at) /* a part below the depth limit: where */
			sqlite3_bind_int64(st, PARAM(search_path, fnode_id),
					   n->kind == SEARCH_FNODE ? n->id : n->at);
		else
			sqlite3_bind_null(st, PARAM(search_path, fnode_id));
		sqlite3_bind_text(st, PARAM(search_path, name), name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, PARAM(search_path, maxcount), n->maxcount);
		sqlite3_bind_int(st, PARAM(search_path, calls), n->ncalls);
		sqlite3_bind_double(st, PARAM(search_path, total_ns), n->total_ns);
		sqlite3_bind_double(st, PARAM(search_path, share), n->share);
		sqlite3_bind_text(st, PARAM(search_path, status), search_status_name(n->status), -1,
				  SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		free(name);
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_cands(sqlite3 *w, struct rdb *db, const struct rsearch *rs,
			const struct search_result *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (columns_prepare_insert(w, "search_candidate", &st) != SQLITE_OK)
		return -1;
	for (int i = 0; i < r->ncands && !rc; i++) {
		const struct search_cand *c = &r->cands[i];
		char *name = search_db_name(db, rs, c->kind, c->id);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, PARAM(search_candidate, search_id), id);
		sqlite3_bind_int(st, PARAM(search_candidate, node), c->node);
		sqlite3_bind_text(st, PARAM(search_candidate, kind), search_kind_name(c->kind), -1,
				  SQLITE_STATIC);
		if (c->kind == SEARCH_FNODE)
			sqlite3_bind_int64(st, PARAM(search_candidate, fnode_id), c->id);
		else
			sqlite3_bind_null(st, PARAM(search_candidate, fnode_id));
		sqlite3_bind_text(st, PARAM(search_candidate, name), name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, PARAM(search_candidate, maxcount), c->maxcount);
		sqlite3_bind_double(st, PARAM(search_candidate, total_ns), c->total_ns);
		sqlite3_bind_int(st, PARAM(search_candidate, winner), c->winner);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		free(name);
	}
	sqlite3_finalize(st);
	return rc;
}

/* One search to store: its row of search, then its paths and candidates. */
struct search_job {
	struct rdb *db;
	const struct call_selection *sel;	 /* the calls searched */
	const char *f0, *params; /* f0's title; the parameters as JSON text */
	int peak, lo, hi;	 /* the peak's number and bucket range */
	const struct rsearch *rs; /* the input, for the names of what it found */
	const struct search_result *r;
	int64_t *id; /* out: search.id given */
};

static int put_search(sqlite3 *w, void *ctx)
{
	const struct search_job *j = ctx;
	int64_t owner[2] = {j->sel->func ? OWNER_FUNC : OWNER_FNODE,
			    j->r->nnodes ? j->r->nodes[0].id : 0};

	if (insert_search(w, j->sel, j->f0, j->peak, j->lo, j->hi, j->rs->nroots, j->params, owner))
		return -1;
	*j->id = sqlite3_last_insert_rowid(w);
	return insert_nodes(w, j->db, j->rs, j->r, *j->id) ||
	       insert_cands(w, j->db, j->rs, j->r, *j->id);
}

int search_db_store(struct rdb *db, const struct call_selection *sel, const char *f0, int peak,
		    int lo, int hi, const char *params, const struct rsearch *rs,
		    const struct search_result *r, int64_t *id, struct err_msg *err)
{
	struct search_job j = {db, sel, f0, params, peak, lo, hi, rs, r, id};

	return rdb_store(db, "search", put_search, &j, err);
}
