/* SPDX-License-Identifier: MIT */
/*
 * export-calls.h: what darc's exports share (export.c: folded stacks, Trace Event
 * JSON, speedscope; perfetto.c: Perfetto's protobuf). The calls are read in
 * the order of their ids, from call_base and call_extra side by side: no
 * sort, no join, no index needed, so the read costs what two scans of the
 * table cost (the first finds the few calls whose id does not follow their
 * entry, export-calls.c). Each task's calls come in the order of their
 * entries, so an export keeps each thread's open calls on a stack of its own.
 */
#ifndef DARC_EXPORT_CALLS_H
#define DARC_EXPORT_CALLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdb.h"
#include "options.h"
#include "progress.h"

/* A call as the exports read it (view call's columns, schema/README.md). */
struct xcall {
	int64_t id, task, func, fnode,
	    parent; /* call.id, task_id, func_id, fnode_id, parent_id or 0 */
	int64_t cpu, depth;		       /* the CPU of its entry; 0 for a root */
	int64_t t_entry, t_exit, flags;	       /* ns, and call.flags */
	int64_t ns[7]; /* incl, excl, children, irq, softirq, preempt, blocked */
	bool has_entry; /* t_entry is known */
	bool complete; /* entry and exit recorded: it has a time */
	bool irq;      /* run in interrupt context (flags & 56): on its CPU's track */
};

/*
 * The calls whose entry comes before that of a call of their task with a
 * lower id: ids are given at entry, but a call whose entry the recording
 * lacks gets its id at its exit (function_graph's calltime gives its
 * entry), and calltime may move an entry earlier. Rare (one call in
 * thousands), and given out just before the first call of their task that
 * entered after them.
 */
struct late {
	struct xcall *by_time; /* sorted by task, entry, the outer first */
	int *next;	       /* at a task's first: the index of its next not given out */
	int64_t *id;	       /* their ids, sorted: skipped by the read by id */
	int n, cap, at_id;     /* how many, allocated; id's next to skip */
};

/* The calls of a selection: each task's in the order of their entries. */
struct xstream {
	sqlite3_stmt *base, *extra; /* call_base (filtered), call_extra: both by id */
	bool extra_row;		    /* extra stands on a row */
	struct late late;
	struct xcall pending; /* read ahead by id, while late calls of its task go first */
	bool pending_set, done; /* pending holds a call; the read by id is over */
	int rest;		/* at the end: by_time's next late call to give out */
	struct progress *pg;	/* the first read's progress, or NULL */
};

/*
 * Open the stream of the calls @o selects (@owner: the subtrees of the
 * fnodes in temp table sel_fnode, rdb_select_fnodes()), reading them once
 * for the late ones (@pg shows it). 0, or -1 (SQLite's error on
 * rdb_sql(@db), or out of memory).
 */
int export_stream_open(struct xstream *s, struct rdb *db, const struct report_options *o,
		       bool owner, struct progress *pg);
/* The next call into @k: 1, 0 at the end, -1 on an error. */
int export_stream_next(struct xstream *s, struct xcall *k);
void export_stream_close(struct xstream *s);

/*
 * A thread's calls begun and not yet ended, outermost first: a call must
 * nest in them (end before the innermost it begins in ends).
 */
struct xstack {
	struct xcall *open;
	int n, cap;
};
/* What an export does when a call of its thread @track ends (@x: the export). 0 or -1. */
typedef int (*export_stack_end)(void *x, void *track, const struct xcall *k);

/* End @s's calls that ended by @t (all with INT64_MAX), but not call @keep, through @end. */
int export_stack_pop(struct xstack *s, int64_t t, int64_t keep, export_stack_end end, void *x,
		     void *track);
/*
 * End what ended before @k begins, then open @k: 1; 0 when @k does not nest
 * (a damaged recording: the caller leaves it out and counts it); -1.
 */
int export_stack_push(struct xstack *s, const struct xcall *k, export_stack_end end, void *x,
		      void *track);

/* An output buffer: formatting by hand, written in large blocks (fprintf was most of the time). */
struct obuf {
	FILE *out;
	size_t n;	      /* bytes in b */
	char b[1 << 16];
};

void export_out_flush(struct obuf *o);
void export_out_mem(struct obuf *o, const void *p, size_t n);
static inline void export_out_str(struct obuf *o, const char *s)
{
	export_out_mem(o, s, __builtin_strlen(s));
}
void export_out_i64(struct obuf *o, int64_t v);
/* @v ns as microseconds with the ns as three decimals ("12.034"). */
void export_out_usec(struct obuf *o, int64_t v);

/*
 * Prepare @q, whose %s is replaced by the filters of @o (--task, --comm,
 * --time) on @task_col and @time_col, and bind them; "1" when @o has none.
 * NULL on an error (SQLite's, on rdb_sql(@db)).
 */
sqlite3_stmt *export_prepare(struct rdb *db, const struct report_options *o, const char *q,
			     const char *task_col, const char *time_col);

/* The integer that query @q gives (0 if none). */
int64_t export_one_int(sqlite3 *sql, const char *q);

/*
 * Function names by func.id, each converted by @conv (which returns a new
 * string, or NULL out of memory): *@names (free each and the array with
 * export_names_free()) of *@n entries, NULL where no function has the id.
 * 0, or -1.
 */
int export_load_names(sqlite3 *sql, char *(*conv)(const char *), char ***names, int64_t *n);
void export_names_free(char **names, int64_t n);

/* A task as the exports read it (table task), sorted by tid. */
struct xtask {
	int64_t tid, pid; /* pid: the tid where the recording lacks it */
	char *name;	  /* its comm, converted (caller frees) */
};

/*
 * Every task, by tid, into *@tasks (*@n of them; free each name and the
 * array), each comm converted by @conv (NULL out of memory). 0, or -1.
 */
int export_load_tasks(sqlite3 *sql, char *(*conv)(const char *), struct xtask **tasks, int *n);
/* bsearch()'s comparison of a tid with an element whose first member is its tid (int64_t). */
int export_by_tid(const void *tid, const void *element);
/* call_flag's names by bit, into @flag (strdup'ed; NULL where none). 0, or -1. */
int export_load_flags(sqlite3 *sql, char *flag[8]);


#endif
