// SPDX-License-Identifier: MIT
/* Unit tests of schema/db.c: rows in through db_put_*, read back with SQLite. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "columns.h"
#include "db.h"
#include "image.h"
#include "lazy-indexes.h"
#include "rows.h"
#include "schema.h"
#include "unit-run.h"

static char dir[64];
static char target[128];

static void setup(void)
{
	strcpy(dir, "/tmp/darc-db-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/out.db", dir);
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	chmod(dir, 0700);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The names in @dir, sorted, joined by spaces ("" when empty). */
static const char *dir_list(void)
{
	static char buf[1024];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (buf[0])
				strcat(buf, " ");
			strncat(buf, names[i]->d_name, sizeof(buf) - strlen(buf) - 2);
		}
		free(names[i]);
	}
	free(names);
	return buf;
}

/* The rows of @sql on @path as text: columns joined by '|', rows by '\n', NULL as NULL. */
static const char *query(const char *path, const char *sql)
{
	static char buf[8192];
	sqlite3 *s;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc;

	ck_assert_int_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	rc = sqlite3_prepare_v2(s, sql, -1, &st, NULL);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
	buf[0] = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n)
			n += snprintf(buf + n, sizeof(buf) - n, "\n");
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);

			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "|" : "",
				      sqlite3_column_type(st, i) == SQLITE_NULL ? "NULL" : v);
			ck_assert_uint_lt(n, sizeof(buf));
		}
	}
	ck_assert_msg(rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(s));
	sqlite3_finalize(st);
	sqlite3_close(s);
	return buf;
}

/* A new database for @target; fails the test if it cannot be created. */
static struct db *create(void)
{
	struct err_msg err;
	struct db *db = db_create(target, false, &err);

	ck_assert_msg(db, "%s", err.msg);
	return db;
}

/* db_finish(), which must succeed. */
static void finish(struct db *db)
{
	struct err_msg err;

	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
}

static struct call_rec call(int64_t id, int64_t parent, int64_t t_entry, int64_t incl)
{
	struct call_rec c = {
	    .id = id,
	    .last_id = id,
	    .task_id = 100,
	    .func_id = 1,
	    .parent_id = parent,
	    .fnode_id = 1,
	    .interrupted_id = DARC_NULL,
	    .depth = parent == DARC_NULL ? 0 : 1,
	    .cpu = 1,
	    .t_entry = t_entry,
	    .t_exit = t_entry + incl,
	    .incl_ns = incl,
	    .excl_ns = incl, /* the other parts are 0 */
	};
	return c;
}

/* An fnode of @calls calls of @ns each (all own time), or of none (incomplete). */
static struct fnode_rec fnode(int64_t id, int64_t func, int64_t calls, int64_t ns)
{
	int64_t q = calls ? ns : DARC_NULL;
	struct fnode_rec n = {.id = id, .parent_id = DARC_NULL, .func_id = func, .calls = calls,
			      .incl_ns = ns, .excl_ns = ns, .max_ns = ns, .max_excl_ns = ns,
			      .p50_ns = q, .p90_ns = q, .p99_ns = q, .p999_ns = q,
			      .incomplete = !calls};
	return n;
}

/* The functions, a complete call and an irq call entered before the recording, their fnodes. */
static void put_calls(struct db *db)
{
	struct call_rec c = call(1, DARC_NULL, 1000, 500);
	struct call_rec open = call(2, DARC_NULL, 0, 0);
	struct func_rec f1 = {.id = 1,
			      .name = "vfs_read",
			      .kind = FUNC_KERNEL,
			      .addr = (int64_t)0xffffffff81234560,
			      .module = NULL,
			      .p50_ns = 500, .p90_ns = 500, .p99_ns = 500, .p999_ns = 500};
	struct func_rec f2 = {.id = 2,
			      .name = "my_probe",
			      .kind = FUNC_UPROBE,
			      .addr = DARC_NULL,
			      .module = "/usr/bin/app",
			      .p50_ns = DARC_NULL, .p90_ns = DARC_NULL, .p99_ns = DARC_NULL,
			      .p999_ns = DARC_NULL};
	struct fnode_rec n = fnode(1, 1, 1, 500), n2 = fnode(2, 2, 0, 0);
	struct hist_rec h = {.owner_kind = OWNER_FNODE,
			     .owner_id = 1,
			     .metric = METRIC_EXCL,
			     .resolution = 4,
			     .bucket = 35,
			     .count = 1};

	/* an irq call on idle, entry before the recording */
	open.task_id = 0;
	open.func_id = 2;
	open.fnode_id = 2;
	open.interrupted_id = 1;
	open.cpu = 3;
	open.t_entry = DARC_NULL;
	open.t_exit = 9000000000000;
	open.incl_ns = DARC_NULL;
	open.excl_ns = DARC_NULL;
	open.irq_ns = 7;
	open.flags = CALL_NO_ENTRY | CALL_HARDIRQ;
	ck_assert_int_eq(db_put_func(db, &f1), 0);
	ck_assert_int_eq(db_put_func(db, &f2), 0);
	ck_assert_int_eq(db_put_call(db, &c), 0);
	ck_assert_int_eq(db_put_call(db, &open), 0);
	ck_assert_int_eq(db_put_fnode(db, &n), 0);
	ck_assert_int_eq(db_put_fnode(db, &n2), 0);
	ck_assert_int_eq(db_put_hist(db, &h), 0);
}

/* An interrupt, a sleep and a preemption, a wake-up and a probe hit. */
static void put_intervals(struct db *db)
{
	struct irq_rec irq = {.id = 1,
			      .cpu = 3,
			      .kind = IRQ_HARD,
			      .irq = DARC_NULL,
			      .name = "local_timer",
			      .t_start = 10,
			      .t_end = 17,
			      .task_id = 0,
			      .call_id = DARC_NULL};
	struct sched_rec s1 = {.id = 1,
			       .task_id = 100,
			       .kind = SCHED_BLOCKED,
			       .state = 2,
			       .cpu_out = 1,
			       .cpu_in = 0,
			       .t_out = 100,
			       .t_in = 200,
			       .call_id = 1,
			       .wakeup_id = 1};
	struct sched_rec s2 = {.id = 2,
			       .task_id = 100,
			       .kind = SCHED_PREEMPTED,
			       .state = 0,
			       .cpu_out = 0,
			       .cpu_in = -1,
			       .t_out = 300,
			       .t_in = DARC_NULL,
			       .call_id = DARC_NULL,
			       .wakeup_id = DARC_NULL};
	struct wakeup_rec w = {.id = 1,
			       .task_id = 100,
			       .t = 190,
			       .waker_tid = 0,
			       .waker_cpu = 0,
			       .ctx = CTX_HARDIRQ,
			       .waker_call_id = 2};
	char args[] = "{\"bio\":\"0xffff888001234500\"}";
	struct probe_rec p = {.id = 1, .t = 150, .cpu = 1, .task_id = 100, .func_id = 2,
			      .event = "kprobes:submit_bio", .role = PROBE_POINT,
			      .ctx = CTX_TASK, .call_id = 1, .args = args};

	ck_assert_int_eq(db_put_irq(db, &irq), 0);
	ck_assert_int_eq(db_put_sched(db, &s1), 0);
	ck_assert_int_eq(db_put_sched(db, &s2), 0);
	ck_assert_int_eq(db_put_wakeup(db, &w), 0);
	ck_assert_int_eq(db_put_probe(db, &p), 0);
	args[0] = 'x'; /* copied */
}

/* The rows of every table, as put. */
static void check_rows(void)
{
	ck_assert_str_eq(query(target, "SELECT * FROM recording"),
			 "x.dat|trace.dat v7 (zstd)|Linux 6.1|local|4|5|9000000000000|42|0|0|NULL|"
			 "0.1.0|{}|NULL|123456|1700000000123456789|0123456789abcdef|"
			 "{\"kprobe\":{\"ns\":85.5}}");
	/* tid 0 is added by db_finish when the analysis did not */
	ck_assert_str_eq(query(target, "SELECT * FROM task ORDER BY tid"),
			 "0|0|<idle>\n100|99|fio");
	ck_assert_str_eq(query(target, "SELECT * FROM func ORDER BY id"),
			 "1|vfs_read|0|-2128394912|NULL|0|500|500|500|500\n"
			 "2|my_probe|3|NULL|/usr/bin/app|0|NULL|NULL|NULL|NULL");
	ck_assert_str_eq(query(target, "SELECT * FROM call ORDER BY id"),
			 "1|100|1|NULL|1|NULL|0|1|1000|1500|500|500|0|0|0|0|0|0|1|NULL\n"
			 "2|0|2|NULL|2|1|0|3|NULL|9000000000000|NULL|NULL|0|7|0|0|0|9|2|NULL");
	ck_assert_str_eq(query(target, "SELECT * FROM fnode ORDER BY id"),
			 "1|NULL|1|0|1|500|500|0|0|0|0|0|500|500|500|500|500|500|0\n"
			 "2|NULL|2|0|0|0|0|0|0|0|0|0|0|0|NULL|NULL|NULL|NULL|1");
	ck_assert_str_eq(query(target, "SELECT * FROM hist"), "1|1|1|4|35|1");
	ck_assert_str_eq(query(target, "SELECT * FROM irq_interval"),
			 "1|3|0|NULL|local_timer|10|17|0|NULL");
	ck_assert_str_eq(query(target, "SELECT * FROM sched_interval ORDER BY id"),
			 "1|100|1|2|1|0|100|200|1|1\n2|100|0|0|0|NULL|300|NULL|NULL|NULL");
	ck_assert_str_eq(query(target, "SELECT * FROM wakeup"), "1|100|190|0|0|1|2|NULL");
	ck_assert_str_eq(query(target, "SELECT *, json_extract(args, '$.bio') FROM probe_hit"),
			 "1|150|1|100|2|kprobes:submit_bio|0|0|1|{\"bio\":\"0xffff888001234500\"}|"
			 "0xffff888001234500");
	/* only the incomplete irq call needs a row in call_extra */
	ck_assert_str_eq(query(target, "SELECT * FROM call_extra"), "2|9000000000000|1|7|0|0|0|9");
	/* the types are SQLite's integers and texts, not strings of digits */
	ck_assert_str_eq(
	    query(target, "SELECT typeof(t_exit), typeof(flags) FROM call WHERE id = 2"),
	    "integer|integer");
}

START_TEST(test_every_table)
{
	struct db *db = create();
	char comm[16] = "fio";
	struct task_rec t = {.tid = 100, .pid = 99, .comm = comm};
	struct recording_rec rec = {.source = "x.dat",
				    .format = "trace.dat v7 (zstd)",
				    .kernel = "Linux 6.1",
				    .clock = "local",
				    .cpus = 4,
				    .t_first = 5,
				    .t_last = 9000000000000,
				    .events = 42,
				    .lost_events = 0,
				    .lost_marks = 0,
				    .manifest = NULL,
				    .darc_version = "0.1.0",
				    .options = "{}",
				    .source_size = 123456,
				    .source_mtime_ns = 1700000000123456789,
				    .source_hash = "0123456789abcdef",
				    .tracer_cost = "{\"kprobe\":{\"ns\":85.5}}"};

	ck_assert_int_eq(db_put_recording(db, &rec), 0);
	ck_assert_int_eq(db_put_task(db, &t), 0);
	strcpy(comm, "clobbered"); /* the record was copied */
	put_calls(db);
	put_intervals(db);
	/* the file is not there until db_finish */
	ck_assert_int_ne(access(target, F_OK), 0);
	finish(db);
	ck_assert_str_eq(dir_list(), "out.db");
	ck_assert_str_eq(query(target, "PRAGMA user_version"), "14");
	ck_assert_int_eq(schema_version, 14);
	check_rows();
	/* the indexes exist (the optional ones on call only when asked), and so
	   do the views; the checks find nothing */
	ck_assert_str_eq(query(target, "SELECT group_concat(name) FROM (SELECT name FROM "
				       "sqlite_schema WHERE type = 'index' AND tbl_name = 'call_base' "
				       "ORDER BY name)"),
			 "NULL");
	ck_assert_str_eq(
	    query(target, "SELECT count(*) > 8 FROM sqlite_schema WHERE type = 'index'"), "1");
	ck_assert_str_eq(query(target, "SELECT func, path, flag_names FROM call_path ORDER BY id"),
			 "vfs_read|vfs_read|NULL\nmy_probe|my_probe|no_entry|hardirq");
	ck_assert_str_eq(query(target, "SELECT count(*) FROM identity_violations"), "0");
	ck_assert_str_eq(query(target, "SELECT count(*) FROM children_violations"), "0");
	ck_assert_str_eq(query(target, "SELECT count(*) FROM subtree_violations"), "0");
	ck_assert_str_eq(query(target, "SELECT count(*) FROM fnode_violations"), "0");
}
END_TEST

/*
 * Each column list of columns.h (which the writer's INSERTs are made from) is
 * its table's CREATE TABLE in tables.sql: the same names and declared types,
 * in the same order, none left out.
 */
/* Every object of sqlite_schema, as text, malloc'd. */
static char *schema_text(const char *path)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	sqlite3 *s;
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT type, name, tbl_name, sql FROM sqlite_schema"
					       " ORDER BY type, name", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < 4; i++)
			fprintf(out, "%s%c", sqlite3_column_text(st, i) ?
				(const char *)sqlite3_column_text(st, i) : "NULL", i < 3 ? '|' : '\n');
	sqlite3_finalize(st);
	sqlite3_close(s);
	fclose(out);
	return text;
}

static int by_type_name(const void *a, const void *b)
{
	const struct schema_object *x = a, *y = b;
	int c = strcmp(x->type, y->type);

	return c ? c : strcmp(x->name, y->name);
}

/*
 * The objects template.c listed at build time (schema_objects[], which
 * trust.c checks a database against) are those the schema's files make with
 * call-indexes.sql, the lazy indexes and ANALYZE, each of the same SQL.
 */
START_TEST(test_schema_objects)
{
	struct schema_object *v = malloc(schema_nobjects * sizeof(*v));
	char *text = NULL, *want;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	sqlite3 *s;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(sqlite3_open(target, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_tables_sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_views_sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_indexes_sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_call_indexes_sql, NULL, NULL, NULL), SQLITE_OK);
	for (int i = 0; i < NLAZY; i++)
		ck_assert_int_eq(sqlite3_exec(s, lazy_indexes[i], NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, "ANALYZE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	want = schema_text(target);
	memcpy(v, schema_objects, schema_nobjects * sizeof(*v));
	qsort(v, schema_nobjects, sizeof(*v), by_type_name);
	for (int i = 0; i < schema_nobjects; i++)
		fprintf(out, "%s|%s|%s|%s\n", v[i].type, v[i].name, v[i].tbl,
			v[i].sql ? v[i].sql : "NULL");
	fclose(out);
	ck_assert_str_eq(text, want);
	ck_assert(strstr(text, "index|call_fnode_incl|call_base|CREATE INDEX"));
	ck_assert(strstr(text, "table|sqlite_stat1|"));
	free(want);
	free(text);
	free(v);
	unlink(target);
}
END_TEST

/* The two templates (schema/image.h) and their page sizes: loop tests run each. */
static const struct {
	const struct image *image;
	uint64_t input_bytes; /* a recording's size that takes it (db_create_sized()) */
	const char *page_size;
} sizes[] = {{&image_big, DB_BIG, "65536"}, {&image_small, DB_BIG - 1, "4096"}};

/*
 * Each empty database made at build time (schema/template.c) is the one the
 * schema's files make: the same objects, each of the same SQL, the same
 * rows of the lookup tables, its pages' size, sound.
 */
START_TEST(test_template)
{
	char fresh[160], *want, *got, pragma[64];
	sqlite3 *s;
	int fd = open(target, O_RDWR | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(image_write(sizes[_i].image, fd), 0);
	close(fd);
	snprintf(fresh, sizeof(fresh), "%s/fresh.db", dir);
	snprintf(pragma, sizeof(pragma), "PRAGMA page_size = %s", sizes[_i].page_size);
	ck_assert_int_eq(sqlite3_open(fresh, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, pragma, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_tables_sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_views_sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, schema_indexes_sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	want = schema_text(fresh);
	got = schema_text(target);
	ck_assert_str_eq(got, want);
	ck_assert_uint_gt(strlen(got), 10000);
	free(want);
	free(got);
	ck_assert_str_eq(query(target, "SELECT group_concat(name) FROM (SELECT name FROM errno_name"
				       " WHERE code IN (11, 512) ORDER BY code)"),
			 "EAGAIN,ERESTARTSYS");
	ck_assert_str_eq(query(target, "PRAGMA page_size"), sizes[_i].page_size);
	ck_assert_str_eq(query(target, "PRAGMA user_version"), query(fresh, "PRAGMA user_version"));
	ck_assert_str_eq(query(target, "PRAGMA integrity_check"), "ok");
	unlink(fresh);
}
END_TEST

START_TEST(test_columns_match_schema)
{
	sqlite3_stmt *st0 = NULL;
	sqlite3 *sql;
	int ntables = 0;

	ck_assert_int_eq(sqlite3_open(":memory:", &sql), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sql, schema_tables_sql, NULL, NULL, NULL), SQLITE_OK);
	for (const struct columns_table *t = columns_tables; t->name; t++, ntables++) {
		sqlite3_stmt *st;
		int i = 0;

		ck_assert_ptr_eq(columns_table(t->name), t);
		ck_assert_int_eq(sqlite3_prepare_v2(sql, "SELECT name, type FROM pragma_table_info(?1)",
						    -1, &st, NULL),
				 SQLITE_OK);
		sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
		for (; sqlite3_step(st) == SQLITE_ROW; i++) {
			ck_assert_msg(i < t->ncols, "%s: column %s is not in columns.h", t->name,
				      (const char *)sqlite3_column_text(st, 0));
			ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), t->cols[i]);
			ck_assert_str_eq((const char *)sqlite3_column_text(st, 1), t->types[i]);
		}
		ck_assert_msg(i == t->ncols, "%s: %d columns in tables.sql, %d in columns.h",
			      t->name, i, t->ncols);
		sqlite3_finalize(st);
		/* and the INSERT the reports make of it names them all */
		ck_assert_int_eq(columns_prepare_insert(sql, t->name, &st), SQLITE_OK);
		ck_assert_int_eq(sqlite3_bind_parameter_count(st), t->ncols);
		sqlite3_finalize(st);
	}
	/* the 14 of db.h's db_put_* (call_extra and call_value come with the calls),
	   and the 7 of the reports' results */
	ck_assert_int_eq(ntables, 21);
	ck_assert_ptr_null(columns_table("wait"));
	ck_assert_int_eq(columns_prepare_insert(sql, "wait", &st0), SQLITE_MISUSE);
	sqlite3_close(sql);
}
END_TEST

/* The lookup tables say what rows.h's codes say. */
START_TEST(test_codes_match_model)
{
	struct db *db = create();

	finish(db);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(bit || '=' || name, ' ') FROM call_flag"),
	    "1=no_entry 2=no_exit 4=gap 8=hardirq 16=softirq 32=nmi 64=clamped 128=bad_time");
	ck_assert_int_eq(CALL_NO_ENTRY, 1);
	ck_assert_int_eq(CALL_NO_EXIT, 2);
	ck_assert_int_eq(CALL_GAP, 4);
	ck_assert_int_eq(CALL_HARDIRQ, 8);
	ck_assert_int_eq(CALL_SOFTIRQ, 16);
	ck_assert_int_eq(CALL_NMI, 32);
	ck_assert_int_eq(CALL_CLAMPED, 64);
	ck_assert_int_eq(CALL_BAD_TIME, 128);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(role || '=' || name, ' ') FROM probe_role"),
	    "0=point 1=entry 2=return");
	ck_assert_int_eq(PROBE_POINT, 0);
	ck_assert_int_eq(PROBE_ENTRY, 1);
	ck_assert_int_eq(PROBE_RETURN, 2);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(bit || '=' || name, ' ') FROM bio_flag"),
	    "1=merged 2=requeued 4=no_queue 8=no_complete 16=lost");
	ck_assert_int_eq(BIO_MERGED, 1);
	ck_assert_int_eq(BIO_REQUEUED, 2);
	ck_assert_int_eq(BIO_NO_QUEUE, 4);
	ck_assert_int_eq(BIO_NO_COMPLETE, 8);
	ck_assert_int_eq(BIO_LOST, 16);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(kind || '=' || name, ' ') FROM func_kind"),
	    "0=kernel 1=syscall 2=kprobe 3=uprobe");
	ck_assert_int_eq(FUNC_KERNEL, 0);
	ck_assert_int_eq(FUNC_SYSCALL, 1);
	ck_assert_int_eq(FUNC_KPROBE, 2);
	ck_assert_int_eq(FUNC_UPROBE, 3);
	ck_assert_str_eq(query(target, "SELECT group_concat(owner_kind || '=' || name, ' ') "
				       "FROM hist_owner"),
			 "0=func 1=fnode");
	ck_assert_int_eq(OWNER_FUNC, 0);
	ck_assert_int_eq(OWNER_FNODE, 1);
	ck_assert_str_eq(query(target, "SELECT group_concat(metric || '=' || name, ' ') "
				       "FROM hist_metric"),
			 "0=incl 1=excl 2=irq 3=softirq 4=preempt 5=blocked"); /* rdb.h: RM_* */
	ck_assert_int_eq(METRIC_INCL, 0);
	ck_assert_int_eq(METRIC_EXCL, 1);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(kind || '=' || name, ' ') FROM irq_kind"),
	    "0=hardirq 1=softirq 2=nmi");
	ck_assert_int_eq(IRQ_HARD, 0);
	ck_assert_int_eq(IRQ_SOFT, 1);
	ck_assert_int_eq(IRQ_NMI, 2);
	ck_assert_str_eq(query(target, "SELECT group_concat(kind || '=' || name, ' ') "
				       "FROM sched_kind"),
			 "0=preempted 1=blocked");
	ck_assert_int_eq(SCHED_PREEMPTED, 0);
	ck_assert_int_eq(SCHED_BLOCKED, 1);
	ck_assert_str_eq(
	    query(target, "SELECT group_concat(ctx || '=' || name, ' ') FROM wakeup_ctx"),
	    "0=task 1=hardirq 2=softirq 3=nmi");
	ck_assert_int_eq(CTX_TASK, 0);
	ck_assert_int_eq(CTX_HARDIRQ, 1);
	ck_assert_int_eq(CTX_SOFTIRQ, 2);
	ck_assert_int_eq(CTX_NMI, 3);
}
END_TEST

/*
 * Many blocks' worth of calls, ids out of order, all land exactly once, in
 * a database of either page size: of 4 KiB pages (a recording under DB_BIG
 * bytes), the calls' leaves go on past the pages kept for SQLite's (db.c's
 * RESERVE_PAGES), under interior pages of their own.
 */
START_TEST(test_many_calls)
{
	struct err_msg err;
	struct db *db = db_create_sized(target, false, sizes[_i].input_bytes, &err);
	const int groups = 16667, n = 3 * groups;
	char want[128];

	ck_assert_msg(db, "%s", err.msg);
	/* every third call is a root that completes after its two children */
	for (int i = 1; i < n; i += 3) {
		struct call_rec a = call(i + 1, i, 10 * i + 1, i % 7);
		struct call_rec b = call(i + 2, i, 10 * i + 5, i % 5);
		struct call_rec r = call(i, DARC_NULL, 10 * i, 9);

		ck_assert_int_eq(db_put_call(db, &a), 0);
		ck_assert_int_eq(db_put_call(db, &b), 0);
		ck_assert_int_eq(db_put_call(db, &r), 0);
	}
	finish(db);
	snprintf(want, sizeof(want), "%d|1|%d|%d", n, n, groups);
	ck_assert_str_eq(query(target,
			       "SELECT count(*), min(id), max(id), count(*) - count(parent_id)"
			       " FROM call"),
			 want);
	ck_assert_str_eq(query(target,
			       "SELECT sum(t_entry) = sum(10 * (id - (id - 1) % 3)"
			       " + CASE (id - 1) % 3 WHEN 0 THEN 0 WHEN 1 THEN 1 ELSE 5 END)"
			       " FROM call"),
			 "1");
	ck_assert_str_eq(query(target, "PRAGMA page_size"), sizes[_i].page_size);
	ck_assert_str_eq(query(target, "PRAGMA integrity_check"), "ok");
}
END_TEST

/*
 * The order of writing: a call open while 50,000 others finish (more than
 * db.c's window holds), ids that never come (calls not stored, half of them
 * announced with db_skip_call), the rest in order. Every row lands once,
 * with its own id and values, and its call_extra part where it has one:
 * the late call's and some that waited in the window.
 */
START_TEST(test_calls_out_of_window)
{
	struct db *db = create();
	const int n = 50001;
	int stored = 0;
	char want[128];

	for (int i = 2; i <= n; i++) {
		struct call_rec c = call(i, 1, 10 * i, i % 11);

		if (i % 777 == 0) /* a call_extra part, while in the window */
			c.preempt_ns = i / 777;
		if (i % 1000 == 0) { /* never written; every other one said so */
			if (i % 2000 == 0)
				ck_assert_int_eq(db_skip_call(db, i), 0);
			continue;
		}
		ck_assert_int_eq(db_put_call(db, &c), 0);
		stored++;
	}
	struct call_rec root = call(1, DARC_NULL, 10, 10 * n);
	root.irq_ns = 5; /* and the late one's */
	root.blocked_ns = 77;
	ck_assert_int_eq(db_put_call(db, &root), 0);
	stored++;
	finish(db);
	ck_assert_str_eq(query(target, "SELECT irq_ns, blocked_ns FROM call WHERE id = 1"), "5|77");
	ck_assert_str_eq(query(target, "SELECT count(*), sum(preempt_ns != id / 777)"
				       " FROM call WHERE id % 777 = 0"),
			 "64|0");
	snprintf(want, sizeof(want), "%d|1|%d|0|0", stored, n);
	ck_assert_str_eq(query(target, "SELECT count(*), min(id), max(id),"
				       " sum(t_entry != 10 * id), sum(id % 1000 = 0) FROM call"),
			 want);
	ck_assert_str_eq(query(target, "SELECT sum(incl_ns != CASE id WHEN 1 THEN 500010"
				       " ELSE id % 11 END) FROM call"),
			 "0");
}
END_TEST

/* Strings of any length, a task seen twice, the recording put twice. */
START_TEST(test_strings_and_replacements)
{
	struct db *db = create();
	size_t big = 100000;
	char *manifest = malloc(big + 1);
	struct task_rec t1 = {.tid = 7, .pid = 7, .comm = "before"};
	struct task_rec t2 = {.tid = 7, .pid = DARC_NULL, .comm = "after"};
	struct task_rec t3 = {.tid = 8, .pid = DARC_NULL, .comm = NULL};
	struct recording_rec r = {.source = "first.dat",
				  .cpus = 1,
				  .t_first = DARC_NULL,
				  .t_last = DARC_NULL,
				  .events = 0,
				  .lost_events = 0,
				  .lost_marks = 0};

	memset(manifest, 'm', big);
	manifest[big] = 0;
	ck_assert_int_eq(db_put_recording(db, &r), 0);
	ck_assert_int_eq(db_put_task(db, &t1), 0);
	ck_assert_int_eq(db_put_task(db, &t2), 0);
	ck_assert_int_eq(db_put_task(db, &t3), 0);
	/* enough functions to spill each block's string space */
	for (int i = 1; i <= 20000; i++) {
		char name[64];
		struct func_rec f = {.id = i,
				     .name = name,
				     .kind = FUNC_KERNEL,
				     .addr = i,
				     .module = i % 2 ? NULL : "ext4"};

		snprintf(name, sizeof(name), "function_with_a_long_name_%d", i);
		ck_assert_int_eq(db_put_func(db, &f), 0);
	}
	r.source = "second.dat";
	r.manifest = manifest;
	ck_assert_int_eq(db_put_recording(db, &r), 0);
	finish(db);
	free(manifest);
	ck_assert_str_eq(query(target, "SELECT source, length(manifest), format FROM recording"),
			 "second.dat|100000|NULL");
	ck_assert_str_eq(query(target, "SELECT * FROM task ORDER BY tid"),
			 "0|0|<idle>\n7|7|after\n8|NULL|NULL");
	ck_assert_str_eq(query(target, "SELECT count(*), count(module) FROM func"
				       " WHERE name = 'function_with_a_long_name_' || id"),
			 "20000|10000");
}
END_TEST

/*
 * The columns NULL on a condition of their own (rows.h: a bio's CPU of -1 not
 * seen, its completion context with no completion, "" for no address or no
 * wake-up handler), and call_value's rows, which only some calls have.
 */
START_TEST(test_bios_and_values)
{
	struct db *db = create();
	struct bio_rec done = {.id = 1, .dev = 8 << 20 | 16, .sector = 2048, .nr_sector = 8,
			       .op = "WS", .t_queue = 10, .t_getrq = DARC_NULL,
			       .t_insert = DARC_NULL, .t_issue = 12, .t_complete = 20,
			       .task_id = 100, .call_id = 1, .queue_cpu = 0, .complete_cpu = 3,
			       .complete_ctx = CTX_HARDIRQ, .error = -5, .flags = BIO_MERGED,
			       .ptr = "0xffff888001234500"};
	struct bio_rec open = {.id = 2, .dev = 8 << 20 | 16, .sector = 0, .nr_sector = 1,
			       .op = "R", .t_queue = 30, .t_getrq = DARC_NULL,
			       .t_insert = DARC_NULL, .t_issue = DARC_NULL,
			       .t_complete = DARC_NULL, .task_id = 100, .call_id = DARC_NULL,
			       .queue_cpu = 1, .complete_cpu = -1, .complete_ctx = CTX_TASK,
			       .flags = BIO_NO_COMPLETE};
	struct bio_rec lone = {.id = 3, .dev = 8 << 20 | 16, .sector = 8, .nr_sector = 8,
			       .op = "", .t_queue = DARC_NULL, .t_getrq = DARC_NULL,
			       .t_insert = DARC_NULL, .t_issue = DARC_NULL, .t_complete = 40,
			       .task_id = 0, .call_id = DARC_NULL, .queue_cpu = -1,
			       .complete_cpu = 0, .complete_ctx = CTX_SOFTIRQ, .error = 0,
			       .flags = BIO_NO_QUEUE};
	struct wakeup_rec w1 = {.id = 1, .task_id = 100, .t = 15, .waker_tid = 0, .waker_cpu = 3,
				.ctx = CTX_HARDIRQ, .waker_call_id = DARC_NULL,
				.handler = "virtio0-requests"};
	struct wakeup_rec w2 = {.id = 2, .task_id = 100, .t = 25, .waker_tid = 101,
				.waker_cpu = 1, .ctx = CTX_TASK, .waker_call_id = 2};
	struct call_rec c1 = call(1, DARC_NULL, 1000, 500), c2 = call(2, 1, 1100, 100);
	struct call_rec c3 = call(3, DARC_NULL, 2000, 10);
	static const char *const want[][2] = { /* a query, its rows */
	    {"SELECT * FROM bio ORDER BY id",
	     "1|8388624|2048|8|WS|10|NULL|NULL|12|20|100|1|0|3|1|-5|1|0xffff888001234500\n"
	     "2|8388624|0|1|R|30|NULL|NULL|NULL|NULL|100|NULL|1|NULL|NULL|0|8|NULL\n"
	     "3|8388624|8|8||NULL|NULL|NULL|NULL|40|0|NULL|NULL|0|2|0|4|NULL"},
	    {"SELECT typeof(op) FROM bio WHERE id = 3", "text"},
	    {"SELECT * FROM wakeup ORDER BY id",
	     "1|100|15|0|3|1|NULL|virtio0-requests\n2|100|25|101|1|0|2|NULL"},
	    {"SELECT * FROM call_value ORDER BY id",
	     "1|{\"fd\":3}|ksys_read+0x6d\n2|NULL|vfs_read+0x9c"},
	    /* the return value in the call's own row; none for a call without one */
	    {"SELECT id, retval FROM call_base ORDER BY id", "1|-4\n2|NULL\n3|NULL"},
	};

	c1.last_id = 2;
	c1.has_retval = true, c1.retval = -4;
	c1.args = "{\"fd\":3}", c1.retaddr = "ksys_read+0x6d";
	c2.retaddr = "vfs_read+0x9c"; /* a return address alone: no return value */
	ck_assert(db_put_bio(db, &done) == 0 && db_put_wakeup(db, &w1) == 0 &&
		  db_put_bio(db, &open) == 0);
	/* the child first, as calls finish */
	ck_assert(db_put_call(db, &c2) == 0 && db_put_call(db, &c1) == 0 &&
		  db_put_call(db, &c3) == 0);
	ck_assert(db_put_wakeup(db, &w2) == 0 && db_put_bio(db, &lone) == 0);
	finish(db);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		ck_assert_str_eq(query(target, want[i][0]), want[i][1]);
}
END_TEST

/*
 * Rows of several tables put in turn, over many of db.c's blocks: each
 * table gets all of its own, and a task renamed at every turn keeps the
 * name put last.
 */
START_TEST(test_tables_in_turn)
{
	struct db *db = create();
	const int n = 5000;
	char want[64];

	for (int i = 1; i <= n; i++) {
		char comm[16];
		struct task_rec t = {.tid = 7, .pid = 7, .comm = comm};
		struct irq_rec irq = {.id = i, .cpu = i % 4, .kind = IRQ_SOFT, .irq = 3,
				      .name = "NET_RX", .t_start = 10 * i, .t_end = 10 * i + 5,
				      .task_id = 7, .call_id = DARC_NULL};
		struct sched_rec sc = {.id = i, .task_id = 7, .kind = SCHED_PREEMPTED,
				       .cpu_out = 0, .cpu_in = i % 2 ? 1 : -1, .t_out = 10 * i + 6,
				       .t_in = 10 * i + 8, .call_id = DARC_NULL,
				       .wakeup_id = DARC_NULL};

		snprintf(comm, sizeof(comm), "name%d", i);
		ck_assert_int_eq(db_put_task(db, &t), 0);
		ck_assert_int_eq(db_put_irq(db, &irq), 0);
		ck_assert_int_eq(db_put_sched(db, &sc), 0);
	}
	finish(db);
	snprintf(want, sizeof(want), "7|name%d", n);
	ck_assert_str_eq(query(target, "SELECT tid, comm FROM task WHERE tid = 7"), want);
	snprintf(want, sizeof(want), "%d|%d|0", n, n);
	ck_assert_str_eq(query(target, "SELECT count(*), max(id), sum(t_start != 10 * id"
				       " OR name != 'NET_RX') FROM irq_interval"),
			 want);
	snprintf(want, sizeof(want), "%d|%d|0", n, n / 2);
	ck_assert_str_eq(query(target, "SELECT count(*), count(cpu_in), sum(t_out != 10 * id + 6)"
				       " FROM sched_interval"),
			 want);
}
END_TEST

/* db_set_call_indexes() adds the indexes of schema/call-indexes.sql. */
START_TEST(test_call_indexes)
{
	struct db *db = create();
	struct call_rec c = call(1, DARC_NULL, 0, 1);
	struct err_msg err;

	db_set_call_indexes(db, true);
	ck_assert_int_eq(db_put_call(db, &c), 0);
	ck_assert_msg(db_finish(db, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(query(target, "SELECT group_concat(name) FROM (SELECT name FROM "
				       "sqlite_schema WHERE type = 'index' AND tbl_name = 'call_base' "
				       "ORDER BY name)"),
			 "call_fnode,call_parent,call_task_entry");
}
END_TEST

/* A target that cannot be written: one-line error naming it, no file left. */
START_TEST(test_bad_target)
{
	struct err_msg err;
	char p[256];
	struct db *db;

	snprintf(p, sizeof(p), "%s/missing/out.db", dir);
	db = db_create(p, false, &err);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.msg, p) && strstr(err.msg, "No such file or directory"), "%s",
		      err.msg);
	ck_assert_ptr_null(strchr(err.msg, '\n'));

	/* a directory in the way */
	ck_assert_int_eq(mkdir(target, 0700), 0);
	db = db_create(target, false, &err);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.msg, target) && strstr(err.msg, "is a directory"), "%s", err.msg);
	ck_assert_int_eq(rmdir(target), 0);
	ck_assert_str_eq(dir_list(), "");

	/* a directory it may not write (root may write anywhere: nothing to test) */
	if (geteuid() != 0) {
		ck_assert_int_eq(chmod(dir, 0500), 0);
		db = db_create(target, false, &err);
		ck_assert_ptr_null(db);
		ck_assert_msg(strstr(err.msg, target) && strstr(err.msg, "Permission denied"), "%s",
			      err.msg);
		ck_assert_int_eq(chmod(dir, 0700), 0);
		ck_assert_str_eq(dir_list(), "");
	}
}
END_TEST

/* Run @sql on the database at @path (read-write). */
static void exec_on(const char *path, const char *sql)
{
	sqlite3 *s;

	ck_assert_int_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
			 SQLITE_OK);
	ck_assert_msg(sqlite3_exec(s, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(s));
	sqlite3_close(s);
}

/*
 * darc's databases carry its application_id, and db_is_darc() knows them by
 * it; without it (an older darc's), by their tables; another program's
 * SQLite file is not darc's, unless it claims darc's id.
 */
START_TEST(test_is_darc)
{
	struct db *db = create();
	char id[64];

	finish(db);
	snprintf(id, sizeof(id), "%d", DB_APPLICATION_ID);
	ck_assert_str_eq(query(target, "PRAGMA application_id"), id);
	ck_assert_int_eq(db_is_darc(target), 1);
	exec_on(target, "PRAGMA application_id = 0");
	ck_assert_int_eq(db_is_darc(target), 1);
	exec_on(target, "DROP TABLE hist");
	ck_assert_int_eq(db_is_darc(target), 0);
	unlink(target);
	exec_on(target, "CREATE TABLE t (x)");
	ck_assert_int_eq(db_is_darc(target), 0);
	snprintf(id, sizeof(id), "PRAGMA application_id = %d", DB_APPLICATION_ID);
	exec_on(target, id);
	ck_assert_int_eq(db_is_darc(target), 1);
	unlink(target);
	ck_assert_int_eq(db_is_darc(target), -1);
}
END_TEST

/* db_abort leaves nothing, and an existing target untouched. */
START_TEST(test_abort)
{
	struct db *db = create();
	struct call_rec c = call(1, DARC_NULL, 0, 1);
	struct err_msg err;
	FILE *f;

	for (int i = 0; i < 30000; i++) {
		c.id = c.last_id = i + 1;
		ck_assert_int_eq(db_put_call(db, &c), 0);
	}
	db_abort(db);
	ck_assert_str_eq(dir_list(), "");
	db_abort(NULL);

	f = fopen(target, "w");
	fputs("old", f);
	fclose(f);
	/* not a darc database: kept, unless forced */
	ck_assert_ptr_null(db_create(target, false, &err));
	ck_assert_msg(strstr(err.msg, "not a darc database"), "%s", err.msg);
	db = db_create(target, true, &err);
	ck_assert_msg(db, "%s", err.msg);
	ck_assert_int_eq(db_put_call(db, &c), 0);
	db_abort(db);
	ck_assert_str_eq(dir_list(), "out.db");
	f = fopen(target, "r");
	ck_assert_int_eq(fgetc(f), 'o');
	fclose(f);

	/* and db_finish replaces it */
	db = db_create(target, true, &err);
	ck_assert_msg(db, "%s", err.msg);
	ck_assert_int_eq(db_put_call(db, &c), 0);
	finish(db);
	ck_assert_str_eq(query(target, "SELECT count(*) FROM call"), "1");
	ck_assert_str_eq(dir_list(), "out.db");
}
END_TEST

/* An fnode id that does not fit the queue's 32 bits: refused, said, no file. */
START_TEST(test_id_beyond_32_bits)
{
	struct err_msg err;
	struct db *db = create();
	struct call_rec c = call(1, DARC_NULL, 0, 1);

	c.fnode_id = (int64_t)1 << 40;
	ck_assert_int_eq(db_put_call(db, &c), -1);
	ck_assert_int_eq(db_finish(db, &err), -1);
	ck_assert_msg(strstr(err.msg, target) && strstr(err.msg, "beyond 32 bits"), "%s", err.msg);
	ck_assert_str_eq(dir_list(), "");
}
END_TEST

/* A row SQLite refuses: later puts fail fast, db_finish says why, no file. */
START_TEST(test_writer_failure)
{
	struct err_msg err;
	struct db *db = create();
	struct call_rec c = call(1, DARC_NULL, 0, 1);
	int i, rc = 0;

	ck_assert_int_eq(db_put_call(db, &c), 0);
	ck_assert_int_eq(db_put_call(db, &c), 0); /* the same id again */
	/* the writer sees it once the block is handed over; the producer soon after */
	for (i = 0; i < 1000000 && rc == 0; i++) {
		c.id = c.last_id = i + 2;
		rc = db_put_call(db, &c);
	}
	ck_assert_int_eq(rc, -1);
	ck_assert_int_lt(i, 1000000);
	ck_assert_int_eq(db_put_task(db, &(struct task_rec){.tid = 1, .comm = "x"}), -1);
	ck_assert_int_eq(db_finish(db, &err), -1);
	ck_assert_msg(strstr(err.msg, target) && strstr(err.msg, "call") &&
			  strstr(err.msg, "UNIQUE constraint failed: call_base.id"),
		      "%s", err.msg);
	ck_assert_str_eq(dir_list(), "");

	/* also when the failure is only found by db_finish */
	db = create();
	c.id = c.last_id = 5;
	ck_assert_int_eq(db_put_call(db, &c), 0);
	ck_assert_int_eq(db_put_call(db, &c), 0);
	ck_assert_int_eq(db_finish(db, &err), -1);
	ck_assert_msg(strstr(err.msg, "UNIQUE constraint failed: call_base.id"), "%s", err.msg);
	ck_assert_str_eq(dir_list(), "");
}
END_TEST

static Suite *db_suite(void)
{
	Suite *s = suite_create("db");
	TCase *tc = tcase_create("writer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_every_table);
	tcase_add_test(tc, test_columns_match_schema);
	tcase_add_loop_test(tc, test_template, 0, 2);
	tcase_add_test(tc, test_codes_match_model);
	tcase_add_loop_test(tc, test_many_calls, 0, 2);
	tcase_add_test(tc, test_calls_out_of_window);
	tcase_add_test(tc, test_id_beyond_32_bits);
	tcase_add_test(tc, test_strings_and_replacements);
	tcase_add_test(tc, test_bios_and_values);
	tcase_add_test(tc, test_tables_in_turn);
	tcase_add_test(tc, test_bad_target);
	tcase_add_test(tc, test_call_indexes);
	tcase_add_test(tc, test_is_darc);
	tcase_add_test(tc, test_schema_objects);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_writer_failure);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(db_suite());
}
