// SPDX-License-Identifier: MIT
/*
 * bench-db: how fast schema/db.c writes call rows.
 *
 *	bench-db [-n ROWS] [-o DB] [-k] [-i]
 *
 * Writes ROWS (default 2800000) synthetic call rows, shaped like a pread
 * storm's syscalls (a root syscall, then vfs_read, then a filesystem read
 * at depth 2; 1 to 3 calls a root, durations spread over 3 octaves with a
 * slow tail), through db_put_call() and db_finish() into DB (default
 * /tmp/bench-db.db), with ids in order of entry handed over in order of
 * completion, as the analysis does. Prints the time of the whole write, the
 * share spent producing rows vs waiting for the writer thread, the CPU
 * time of the other threads (the writer, and SQLite's sort helpers in
 * db_finish), peak RSS and the file size. -i then times the call indexes
 * on their own (drop, re-create) to split db_finish. -k keeps DB.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double process_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A latency around @base ns: 1x to 8x, and one in 1000 up to 1000x. */
static int64_t latency(int64_t base)
{
	uint64_t r = xorshift();
	int64_t ns = base + (int64_t)(r % (uint64_t)(7 * base));

	if (r % 1000 == 0)
		ns *= 1 + (int64_t)((r >> 20) % 1000);
	return ns;
}

struct gen {
	int64_t next_id, t;
	long rows, left;
};

/*
 * One root call with its subtree; the rows go out children first (order of
 * completion), the ids are in order of entry. Returns -1 if a put failed.
 */
static int put_tree(struct db *db, struct gen *g)
{
	struct call_rec c[3];
	int depth = 1 + (int)(xorshift() % 3), n = 0;
	int64_t task = 1000 + (int64_t)(xorshift() % 2), cpu = task % 2;

	if (depth > g->left)
		depth = (int)g->left;
	for (int d = 0; d < depth; d++) {
		c[d] = (struct call_rec){
		    .id = g->next_id++,
		    .task_id = task,
		    .func_id = 1 + d,
		    .parent_id = d ? c[d - 1].id : DARC_NULL,
		    .fnode_id = 1 + d,
		    .interrupted_id = DARC_NULL,
		    .depth = d,
		    .cpu = (int32_t)cpu,
		    .t_entry = g->t + 50 * d,
		    .flags = 0,
		};
	}
	for (int d = 0; d < depth; d++)
		c[d].last_id = c[depth - 1].id;
	/* from the innermost out: each call holds its child plus its own time */
	for (int d = depth - 1; d >= 0; d--) {
		struct call_rec *x = &c[d];
		int64_t child = d + 1 < depth ? c[d + 1].incl_ns : 0;
		int64_t own = latency(200), blocked = 0, irq = 0;

		if (xorshift() % 100 == 0)
			irq = latency(1000);
		if (d == depth - 1 && xorshift() % 50 == 0)
			blocked = latency(20000);
		x->excl_ns = own;
		x->children_ns = child;
		x->irq_ns = irq;
		x->softirq_ns = 0;
		x->preempt_ns = 0;
		x->blocked_ns = blocked;
		x->incl_ns = own + child + irq + blocked;
		x->t_exit = x->t_entry + x->incl_ns;
		if (db_put_call(db, x) < 0)
			return -1;
		n++;
	}
	g->t = c[0].t_exit + 300;
	g->rows += n;
	g->left -= n;
	return 0;
}

/* The tasks, functions and fnodes the calls refer to (the fnodes without sums). */
static int put_names(struct db *db)
{
	static const char *const names[] = {"pread64", "vfs_read", "ext4_file_read_iter"};
	int ret = 0;

	for (int i = 0; i < 2; i++)
		ret |= db_put_task(
		    db, &(struct task_rec){.tid = 1000 + i, .pid = 1000, .comm = "storm"});
	for (int d = 0; d < 3; d++) {
		ret |= db_put_func(db, &(struct func_rec){.id = 1 + d,
							  .name = names[d],
							  .kind = d ? FUNC_KERNEL : FUNC_SYSCALL,
							  .addr = DARC_NULL,
							  .p50_ns = DARC_NULL,
							  .p90_ns = DARC_NULL,
							  .p99_ns = DARC_NULL,
							  .p999_ns = DARC_NULL});
		ret |= db_put_fnode(db, &(struct fnode_rec){
					    .id = 1 + d,
					    .parent_id = d ? d : DARC_NULL,
					    .func_id = 1 + d,
					    .depth = d,
					    .max_ns = DARC_NULL,
					    .p50_ns = DARC_NULL,
					    .p90_ns = DARC_NULL,
					    .p99_ns = DARC_NULL,
					    .p999_ns = DARC_NULL,
					});
	}
	return ret ? -1 : 0;
}

/* Time each index of table call alone, with db.c's settings: drop it, create it again. */
static int time_indexes(const char *path)
{
	sqlite3 *s;
	sqlite3_stmt *st = NULL;
	char *names[16], *sqls[16];
	int n = 0, ret = -1;

	if (sqlite3_open(path, &s) != SQLITE_OK)
		goto out;
	if (sqlite3_exec(s,
			 "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
			 "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -4096; BEGIN",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s,
			       "SELECT name, sql FROM sqlite_schema WHERE type = 'index'"
			       " AND tbl_name = 'call_base' AND sql IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (n < 16 && sqlite3_step(st) == SQLITE_ROW) {
		names[n] = strdup((const char *)sqlite3_column_text(st, 0));
		sqls[n++] = strdup((const char *)sqlite3_column_text(st, 1));
	}
	for (int i = 0; i < n; i++) {
		char drop[128];
		double t0;

		snprintf(drop, sizeof(drop), "DROP INDEX %s", names[i]);
		if (sqlite3_exec(s, drop, NULL, NULL, NULL) != SQLITE_OK)
			goto out;
		t0 = now(CLOCK_MONOTONIC);
		if (sqlite3_exec(s, sqls[i], NULL, NULL, NULL) != SQLITE_OK)
			goto out;
		printf("  index %-16s %.2f s\n", names[i], now(CLOCK_MONOTONIC) - t0);
	}
	ret = sqlite3_exec(s, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
out:
	if (ret < 0)
		fprintf(stderr, "bench-db: '%s': %s\n", path, sqlite3_errmsg(s));
	for (int i = 0; i < n; i++) {
		free(names[i]);
		free(sqls[i]);
	}
	sqlite3_finalize(st);
	sqlite3_close(s);
	return ret;
}

/* -n ROWS, -o DB, -k (keep it), -i (time the indexes, keeping it): 0, or -1 after the usage. */
static int options(int argc, char **argv, long *rows, const char **path, bool *keep, bool *indexes)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:o:ki")) != -1) {
		switch (opt) {
		case 'n':
			*rows = atol(optarg);
			break;
		case 'o':
			*path = optarg;
			break;
		case 'k':
			*keep = true;
			break;
		case 'i':
			*indexes = true;
			*keep = true;
			break;
		default:
			fprintf(stderr, "usage: bench-db [-n ROWS] [-o DB] [-k] [-i]\n");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = "/tmp/bench-db.db";
	struct gen g = {.next_id = 1, .t = 1000000000};
	long rows = 2800000;
	bool keep = false, indexes = false;
	double t0, t1, t2, cpu0, cpu1, cpu_put, all_cpu;
	struct err_msg err;
	struct rusage ru;
	struct stat st;
	struct db *db;

	if (options(argc, argv, &rows, &path, &keep, &indexes))
		return 2;
	g.left = rows;
	t0 = now(CLOCK_MONOTONIC);
	cpu0 = now(CLOCK_THREAD_CPUTIME_ID);
	db = db_create(path, false, &err);
	if (!db) {
		fprintf(stderr, "bench-db: %s\n", err.msg);
		return 1;
	}
	if (put_names(db) < 0)
		goto fail;
	while (g.left > 0)
		if (put_tree(db, &g) < 0)
			goto fail;
	t1 = now(CLOCK_MONOTONIC);
	cpu1 = now(CLOCK_THREAD_CPUTIME_ID);
	cpu_put = cpu1 - cpu0;
	if (db_finish(db, &err) < 0) {
		fprintf(stderr, "bench-db: %s\n", err.msg);
		return 1;
	}
	t2 = now(CLOCK_MONOTONIC);
	all_cpu = process_cpu();
	getrusage(RUSAGE_SELF, &ru);
	stat(path, &st);

	printf("rows:       %ld calls, db_put_call + db_finish, sqlite %s\n", g.rows,
	       sqlite3_libversion());
	printf("total:      %.2f s (%.2f M rows/s)\n", t2 - t0, g.rows / (t2 - t0) / 1e6);
	printf("  puts:     %.2f s wall, of which the producer's CPU %.2f s"
	       " (the rest: waiting for the writer)\n",
	       t1 - t0, cpu_put);
	printf("  finish:   %.2f s wall (last blocks, indexes, commit, close, fsync, rename)\n",
	       t2 - t1);
	printf("cpu:        %.2f s in all; main thread %.2f s, writer and sort helpers %.2f s\n",
	       all_cpu, now(CLOCK_THREAD_CPUTIME_ID) - cpu0,
	       all_cpu - (now(CLOCK_THREAD_CPUTIME_ID) - cpu0));
	printf("peak RSS:   %.1f MiB\n", ru.ru_maxrss / 1024.0);
	printf("file:       %.1f MiB (%.1f bytes a row)\n", st.st_size / 1048576.0,
	       (double)st.st_size / g.rows);
	if (indexes && time_indexes(path) < 0)
		return 1;
	if (!keep)
		unlink(path);
	return 0;
fail:
	db_finish(db, &err);
	fprintf(stderr, "bench-db: %s\n", err.msg);
	return 1;
}
