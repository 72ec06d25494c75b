// SPDX-License-Identifier: MIT
#include "pipeline.h"
#include "reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "config.h"
#include "bio.h"
#include "db.h"
#include "decode.h"
#include "ftree.h"
#include "funcs.h"
#include "progress.h"
#include "file.h"
#include "tracer-cost.h"
#include "along-check.h"
#include "trust.h"
#include "vis.h"

struct run {
	struct db *db;
	struct fmt_reader *r;
	struct funcs *fs;
	struct decoder *dec;
	struct ftree *ft;
	const char *path, *dbpath;
	int max_depth;
	int64_t calls_stored, events;
	uint64_t t_first, t_last;
	struct pipeline_loss *loss;
	int nloss;
	struct bios *bios;
	struct cost_est *tc; /* the tracer's cost, estimated from the recording */
};

static int put_call(void *ctx, const struct call_rec *c)
{
	struct run *run = ctx;

	if (run->max_depth >= 0 && c->depth >= run->max_depth)
		return db_skip_call(run->db, c->id);
	run->calls_stored++;
	return db_put_call(run->db, c);
}

static int put_irq(void *ctx, const struct irq_rec *r)
{
	return db_put_irq(((struct run *)ctx)->db, r);
}

static int put_sched(void *ctx, const struct sched_rec *r)
{
	return db_put_sched(((struct run *)ctx)->db, r);
}

static int put_wakeup(void *ctx, const struct wakeup_rec *r)
{
	return db_put_wakeup(((struct run *)ctx)->db, r);
}

static int put_gap(void *ctx, const struct gap_rec *r)
{
	return db_put_gap(((struct run *)ctx)->db, r);
}

static int put_probe(void *ctx, const struct probe_rec *r)
{
	return db_put_probe(((struct run *)ctx)->db, r);
}

static int put_bio(void *ctx, const struct bio_rec *b)
{
	return db_put_bio(((struct run *)ctx)->db, b);
}

static int put_task(void *ctx, int32_t tid)
{
	struct run *run = ctx;
	struct task_rec t = {tid, DARC_NULL,
			     tep_data_comm_from_pid(fmt_reader_tep(run->r), tid)};

	return db_put_task(run->db, &t);
}

struct hist_ctx {
	struct db *db;
	struct hist_rec h;
};

static int put_bucket(void *ctx, int resolution, int bucket, uint64_t count)
{
	struct hist_ctx *hc = ctx;

	hc->h.resolution = resolution;
	hc->h.bucket = bucket;
	hc->h.count = (int64_t)count;
	return db_put_hist(hc->db, &hc->h);
}

/* put_bucket() at resolution 1 (hist_each()'s callback). */
static int put_bucket1(void *ctx, int bucket, uint64_t count)
{
	return put_bucket(ctx, 1, bucket, count);
}

/*
 * One distribution at resolution 1, and at 2 to 4 when @all. Those are four
 * times the rows of resolution 1, which most reports never read: a report
 * makes them from the calls when it needs them (analyze/report/rdb.c,
 * rdb_hist_resolution()), unless the calls are not all stored (--max-depth).
 */
static int put_hist(struct db *db, int owner_kind, int64_t owner, int metric, const struct hist *h,
		    bool all)
{
	struct hist_ctx hc = {db, {owner_kind, owner, metric, 0, 0, 0}};

	return (all ? hist_each_all(h, put_bucket, &hc) : hist_each(h, 1, put_bucket1, &hc)) ? -1
											       : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read the recording once more for what the decoder must know beforehand. */
static int prescan(struct decoder *dec, const char *path, struct err_msg *err)
{
	struct fmt_reader *r = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, err);
	int rc = r ? decode_prescan(dec, r, err) : -1;

	fmt_reader_close(r);
	return rc;
}

/* read_events(): a system call's name came too late, make the pass again (decode.h) */
#define AGAIN (-1)

/*
 * Open the recording and make the stages; the system calls' names learnt in
 * the pass when @names_in_pass (decode_needs_prescan()). PIPELINE_OK or
 * another status.
 */
static int open_stages(struct run *run, const struct ftree_sink *sink, bool names_in_pass,
		       struct err_msg *err)
{
	const struct fmt_info *info;

	run->r = fmt_reader_open(run->path, FMT_OPEN_NO_KALLSYMS, err);
	if (!run->r)
		return PIPELINE_INPUT;
	info = fmt_reader_info(run->r);
	if (info->ts_not_ns) /* durations in a clock's own counts: refused, not guessed */
		return err_setf(err, run->path, "its timestamps are %s: darc analyzes nanoseconds "
				"only (darc dump and darc info read the file)", info->ts_not_ns),
		       PIPELINE_INPUT;
	run->fs = funcs_new();
	run->dec = run->fs ? decode_new(run->r, run->fs,
					 decode_syscall_abi(info->uname, info->long_size,
							info->big_endian))
			   : NULL;
	run->ft = run->dec ? ftree_new(sink) : NULL;
	if (run->ft) /* put_tree()'s resolutions */
		ftree_excl_resolution(run->ft, run->max_depth >= 0 ? 4 : 1);
	run->bios = run->ft ? bios_new(put_bio, run) : NULL;
	run->tc = run->bios ? cost_est_new() : NULL;
	if (!run->tc)
		return err_setf(err, NULL, "out of memory"), PIPELINE_ANALYSIS;
	if (decode_needs_prescan(run->dec, names_in_pass) && prescan(run->dec, run->path, err))
		return PIPELINE_INPUT;
	return PIPELINE_OK;
}

/* Remember where and when events were lost (the event after the loss). 0 or -1. */
static int note_loss(struct run *run, const struct fmt_event *ev)
{
	struct pipeline_loss *l = NULL;

	for (int i = 0; i < run->nloss && !l; i++)
		if (run->loss[i].cpu == ev->cpu)
			l = &run->loss[i];
	if (!l) {
		void *p = realloc(run->loss, (run->nloss + 1) * sizeof(*run->loss));
		if (!p)
			return -1;
		run->loss = p;
		l = &run->loss[run->nloss++];
		*l = (struct pipeline_loss){ev->cpu, 0, 0, ev->ts, ev->ts};
	}
	l->marks++;
	if (ev->missed != FMT_MISSED_UNKNOWN)
		l->lost += (int64_t)ev->missed;
	l->last_t = ev->ts;
	return 0;
}

/* The writer failed: db_finish() says why, and leaves no database. */
static int writer_failed(struct run *run, struct err_msg *err)
{
	if (!db_finish(run->db, err)) {
		err_setf(err, run->dbpath, "cannot write the database");
		unlink(run->dbpath);
	}
	run->db = NULL;
	return PIPELINE_ANALYSIS;
}

/*
 * A stage failed at @what (on the recording's account): when it was the
 * database that failed underneath (a full disk), say that instead.
 */
static int stage_failed(struct run *run, const char *what, struct err_msg *err)
{
	if (db_failed(run->db))
		return writer_failed(run, err);
	err_setf(err, run->path, "%s", what);
	return PIPELINE_ANALYSIS;
}

/* Is probe event @a a uprobe's (for the tracer's cost)? */
static bool probe_is_user(const struct run *run, const struct analysis_event *a)
{
	const struct func_rec *f;

	if (a->kind != EVENT_PROBE_ENTRY && a->kind != EVENT_PROBE_RETURN)
		return false;
	f = a->probe.func_id > 0 && a->probe.func_id <= funcs_count(run->fs)
		? funcs_get(run->fs, a->probe.func_id)
		: NULL;
	return f && f->kind == FUNC_UPROBE;
}

/* Every event through decode and ftree. PIPELINE_OK or another status. */
static int read_events(struct run *run, struct progress *pg, struct err_msg *err)
{
	struct fmt_event ev;
	struct analysis_event a;
	int n;

	while ((n = fmt_reader_next(run->r, &ev, err)) > 0) {
		/* the earliest and latest times (a damaged page may be out of order) */
		if (!run->events++ || ev.ts < run->t_first)
			run->t_first = ev.ts;
		if (ev.ts > run->t_last)
			run->t_last = ev.ts;
		if (ev.missed && note_loss(run, &ev)) {
			err_setf(err, NULL, "out of memory");
			return PIPELINE_ANALYSIS;
		}
		if (decode(run->dec, &ev, &a)) {
			err_setf(err, NULL, "%s", decode_error(run->dec));
			return PIPELINE_INPUT;
		}
		if (decode_names_late(run->dec)) {
			progress_end(pg);
			return AGAIN;
		}
		if (ftree_feed(run->ft, &a))
			return stage_failed(run, ftree_error(run->ft), err);
		if (cost_est_feed(run->tc, &a, probe_is_user(run, &a))) {
			err_setf(err, NULL, "out of memory");
			return PIPELINE_ANALYSIS;
		}
		if (a.kind == EVENT_PROBE_ENTRY && strstr(a.probe.event, "submit_bio"))
			bios_probe(run->bios, a.pid, a.probe.args);
		if (a.kind >= EVENT_BLK_QUEUE && a.kind <= EVENT_BLK_COMPLETE &&
		    bios_feed(run->bios, &a, ftree_current_call(run->ft, a.cpu, a.pid, a.flags)))
			return stage_failed(run, "cannot write a bio", err);
		if (!(run->events & 0xffff) && progress_due(pg))
			progress_show(pg, "%.1f M events", run->events / 1e6);
	}
	progress_end(pg);
	if (n < 0)
		return PIPELINE_INPUT;
	if (ftree_finish(run->ft))
		return stage_failed(run, ftree_error(run->ft), err);
	if (bios_finish(run->bios))
		return stage_failed(run, "cannot write a bio", err);
	return PIPELINE_OK;
}

/* What only the end knows: functions, tasks, the ftree and its histograms. 0 or -1. */
static int put_tree(struct run *run)
{
	bool all = run->max_depth >= 0; /* some calls not stored: every resolution now */

	for (int64_t f = 1; f <= funcs_count(run->fs); f++) {
		struct func_rec fr = *funcs_get(run->fs, f);
		const struct quant *q = ftree_func_quant(run->ft, f);
		const struct hist *h;

		fr.p50_ns = q ? q->p[QUANT_P50] : DARC_NULL;
		fr.p90_ns = q ? q->p[QUANT_P90] : DARC_NULL;
		fr.p99_ns = q ? q->p[QUANT_P99] : DARC_NULL;
		fr.p999_ns = q ? q->p[QUANT_P999] : DARC_NULL;
		if (db_put_func(run->db, &fr))
			return -1;
		for (int m = METRIC_INCL; m <= METRIC_EXCL; m++)
			if ((h = ftree_func_hist(run->ft, f, m)) &&
			    put_hist(run->db, OWNER_FUNC, f, m, h, all))
				return -1;
	}
	if (ftree_each_task(run->ft, put_task, run))
		return -1;
	for (int i = 0; i < ftree_nnodes(run->ft); i++) {
		const struct ftree_node *nd = ftree_node(run->ft, i);
		if (db_put_fnode(run->db, &nd->rec) ||
		    put_hist(run->db, OWNER_FNODE, nd->rec.id, METRIC_INCL, &nd->incl, all) ||
		    put_hist(run->db, OWNER_FNODE, nd->rec.id, METRIC_EXCL, &nd->excl, all))
			return -1;
	}
	return 0;
}

/* Lost events counted and pages that reported them, over every buffer and CPU. */
static void count_lost(struct fmt_reader *r, int64_t *lost, int64_t *marks)
{
	const struct fmt_info *info = fmt_reader_info(r);

	*lost = *marks = 0;
	for (int b = 0; b < info->nbuffers; b++)
		for (int i = 0; i < info->buffers[b].ncpus; i++) {
			const struct fmt_cpu_stats *s = fmt_reader_cpu_stats(r, b, i);
			*lost += s->lost;
			*marks += s->lost_marks;
		}
}

/*
 * What the recording lacks, into @buf: its format's (info.lacks), then what
 * the analysis takes from events whose format was refused and that it
 * dropped ("off-CPU time (sched:sched_switch's format refused)"), so that
 * the reports say it too. NULL when it lacks nothing.
 */
static const char *recording_lacks(const struct fmt_info *info, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	if (info->lacks)
		len = (size_t)snprintf(buf, n, "%s", info->lacks);
	for (int i = 0; i < info->nrefused && len < n; i++) {
		const struct fmt_refused *x = &info->refused[i];
		const char *gives = decode_event_gives(x->event);
		if (x->events && gives)
			len += (size_t)snprintf(buf + len, n - len, "%s%s (%s's format refused)",
						len ? ", " : "", gives, x->event);
	}
	return buf[0] ? buf : NULL;
}

/*
 * One warning on stderr for each refused format whose events the reader
 * dropped (those with none dropped nothing): the event, why, how many, and
 * what the analysis lacks for it.
 */
static void say_refused(const char *path, const struct fmt_info *info)
{
	for (int i = 0; i < info->nrefused; i++) {
		const struct fmt_refused *x = &info->refused[i];
		const char *gives = decode_event_gives(x->event);
		if (!x->events)
			continue;
		fprintf(stderr, "darc: warning: '%s': %" PRIu64 " events of ", vis(path),
			x->events);
		vis_put(stderr, x->event, 0);
		fprintf(stderr, " (id %d) dropped: its format is refused (%s)%s%s\n", x->id, x->why,
			gives ? "; the analysis has no " : "", gives ? gives : "");
	}
}

/* The one row of table recording. 0 or -1. */
static int put_recording(struct run *run)
{
	const struct fmt_info *info = fmt_reader_info(run->r);
	char fmtname[64], opt[128], lacks[1024];
	int64_t lost, marks;
	struct fmt_file_identity id;
	struct err_msg ierr;
	char *cost = cost_est_json(run->tc, decode_manifest(run->dec),
				 !strncmp(info->format, "uftrace", 7) ? TC_GRAPH_UFTRACE : NULL);
	int rc;

	count_lost(run->r, &lost, &marks);
	/* what tells this recording from another, for reusing the database (setup.c) */
	if (fmt_file_identity(run->path, &id, &ierr))
		id = (struct fmt_file_identity){(uint64_t)DARC_NULL, DARC_NULL, ""};
	snprintf(fmtname, sizeof(fmtname), "%s v%d (%s)", info->format, info->version,
		 info->compression);
	snprintf(opt, sizeof(opt), "{\"max_depth\": %d}", run->max_depth);
	struct recording_rec rr = {run->path,
				   fmtname,
				   info->uname,
				   info->clock,
				   info->cpus,
				   run->events ? (int64_t)run->t_first : DARC_NULL,
				   run->events ? (int64_t)run->t_last : DARC_NULL,
				   run->events,
				   lost,
				   marks,
				   info->manifest_json,
				   DARC_VERSION,
				   opt,
				   recording_lacks(info, lacks, sizeof(lacks)),
				   (int64_t)id.size,
				   id.mtime_ns,
				   id.hash[0] ? id.hash : NULL,
				   cost};
	rc = db_put_recording(run->db, &rr);
	free(cost);
	return rc;
}

/*
 * A recording darc-record --along made: whether its workload is the one the
 * database it followed saw, in one line (a warning when not; along-check.h).
 */
static void say_along(const char *dbpath, const char *manifest)
{
	sqlite3 *sql = NULL;
	struct err_msg err;
	char msg[1024];
	int r;

	if (!manifest || !strstr(manifest, "\"along\":{"))
		return;
	if (trust_open(dbpath, SQLITE_OPEN_READONLY, &sql, &err)) {
		fprintf(stderr, "darc: along: cannot compare the profiles: %s\n", err.msg);
		return;
	}
	r = along_check(sql, manifest, msg, sizeof(msg));
	if (r >= 0)
		fprintf(stderr, "darc: %s%s\n", r ? "warning: " : "", msg);
	sqlite3_close(sql);
}

/* Hand the stages to @res, or free them. */
static void finish_run(struct run *run, struct pipeline_result *res, double t0)
{
	if (res) {
		res->ft = run->ft;
		res->fs = run->fs;
		res->events = run->events;
		res->calls_stored = run->calls_stored;
		res->t_first = run->t_first;
		res->t_last = run->t_last;
		if (run->r)
			count_lost(run->r, &res->lost, &res->lost_marks);
		res->seconds = now() - t0;
		res->loss = run->loss;
		res->nloss = run->nloss;
	} else {
		ftree_free(run->ft);
		funcs_free(run->fs);
		free(run->loss);
	}
	decode_free(run->dec);
	bios_free(run->bios);
	cost_est_free(run->tc);
	fmt_reader_close(run->r);
}

/*
 * DARC_TIMING=1: the wall seconds since @t0 at the end of stage @what, and
 * the CPU seconds of this thread (the reading, decoding and call trees) so
 * far, on stderr: on a shared machine the CPU time says more.
 */
static void timing(const char *what, double t0)
{
	static int on = -1;
	struct timespec ts;

	if (on < 0)
		on = getenv("DARC_TIMING") != NULL;
	if (!on)
		return;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	fprintf(stderr, "darc: %-30s at %.3f s (this thread: %.3f s CPU)\n", what, now() - t0,
		ts.tv_sec + ts.tv_nsec / 1e9);
}

/*
 * The recording's size, which sets its database's page size
 * (db_create_sized()): a file's bytes; a directory's (uftrace.data) or
 * anything else's taken as big.
 */
static uint64_t input_size(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : DB_BIG;
}

/* pipeline_run(), the system calls' names learnt in the pass when @names_in_pass. */
static int run_once(const char *rec, const char *dbpath, const struct pipeline_opts *o,
		    bool names_in_pass, struct pipeline_result *res, struct err_msg *err)
{
	struct run run = {.path = rec, .dbpath = dbpath};
	struct ftree_sink sink = {&run, put_call, put_irq, put_sched, put_wakeup, put_probe, put_gap};
	double t0 = now();
	int rc;

	run.max_depth = o->max_depth;
	if (res)
		memset(res, 0, sizeof(*res));
	rc = open_stages(&run, &sink, names_in_pass, err);
	if (rc == PIPELINE_OK && !(run.db = db_create_sized(dbpath, o->force, input_size(rec), err)))
		rc = PIPELINE_INPUT; /* the output cannot be made: a usage error */
	if (rc == PIPELINE_OK) {
		db_set_call_indexes(run.db, o->indexes);
		struct progress pg;
		progress_start(&pg, "analyze", o->progress);
		rc = read_events(&run, &pg, err);
		if (rc == PIPELINE_OK)
			say_refused(rec, fmt_reader_info(run.r));
		timing("events read, calls built", t0);
	}
	if (rc == PIPELINE_OK && (put_tree(&run) || put_recording(&run)))
		rc = writer_failed(&run, err);
	timing("ftree and histograms queued", t0);
	if (rc == PIPELINE_OK) {
		/* the rest of the rows, the indexes, and the rename */
		if (db_finish(run.db, err))
			rc = PIPELINE_ANALYSIS;
		else
			say_along(dbpath, fmt_reader_info(run.r)->manifest_json);
		run.db = NULL;
		timing("database finished", t0);
	}
	if (rc == AGAIN)
		timing("a system call named late: again", t0);
	db_abort(run.db);
	finish_run(&run, rc == PIPELINE_OK ? res : NULL, t0);
	return rc;
}

int pipeline_run(const char *rec, const char *dbpath, const struct pipeline_opts *o,
		 struct pipeline_result *res, struct err_msg *err)
{
	static const struct pipeline_opts defaults = PIPELINE_OPTS_INIT;
	int rc;

	o = o ? o : &defaults;
	rc = run_once(rec, dbpath, o, true, res, err);
	/* rare: named by the table before the recording said otherwise */
	return rc == AGAIN ? run_once(rec, dbpath, o, false, res, err) : rc;
}

void pipeline_result_release(struct pipeline_result *res)
{
	if (!res)
		return;
	ftree_free(res->ft);
	funcs_free(res->fs);
	free(res->loss);
	memset(res, 0, sizeof(*res));
}

char *pipeline_db_path(const char *rec)
{
	const char *base = rec, *dot = NULL;
	size_t len = strlen(rec), n;
	char *out;

	/* a directory given with its slash (uftrace.data/): its name, not a file in it */
	while (len > 1 && rec[len - 1] == '/')
		len--;
	for (size_t i = 0; i < len; i++)
		if (rec[i] == '/')
			base = rec + i + 1;
		else if (rec[i] == '.')
			dot = rec + i;
	n = dot && dot > base ? (size_t)(dot - rec) : len;
	out = malloc(n + 4);

	if (out)
		snprintf(out, n + 4, "%.*s.db", (int)n, rec);
	return out;
}
