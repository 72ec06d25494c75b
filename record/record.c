// SPDX-License-Identifier: MIT
/*
 * One recording, start to finish:
 *
 *   check the kernel -> create the instances (or take the top-level lock)
 *   -> create probes -> fork the command (held) -> set up the instances ->
 *   start the per-CPU readers -> tracing on, release the command -> wait
 *   for the command, the pids, --duration or a signal, with a status line a
 *   second on a terminal -> tracing off, drain the readers -> read the
 *   metadata -> restore tracefs, remove probes -> store the page files in
 *   the bundle and put it in place.
 *
 * Every way out after tracefs was touched goes through the same teardown,
 * so tracefs is restored whether the recording worked or not; a failed
 * recording leaves no output file.
 */
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "bundle.h"
#include "calib.h"
#include "caps.h"
#include "manifest.h"
#include "probes.h"
#include "rec.h"
#include "record.h"
#include "session.h"
#include "stream.h"
#include "target.h"
#include "writer.h"

#define TICK_MS 100 /* how often targets are checked and their maps snapshotted */

static void print_notes(const struct rec_notes *l, const char *prefix)
{
	for (int i = 0; i < l->n; i++)
		fprintf(stderr, "darc-record: %s%s\n", prefix, l->v[i]);
}

static double since(const struct timespec *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - a->tv_sec) + (now.tv_nsec - a->tv_nsec) / 1e9;
}

/* Lost events so far in every buffer (overruns + dropped), and bytes not read yet. */
static uint64_t lost_now(struct sess_buffer *bufs, int nbuf, const struct rec_result *r,
			 uint64_t *pending)
{
	uint64_t n = 0;

	*pending = 0;
	for (int k = 0; k < nbuf; k++)
		for (int i = 0; i < r->buffers[k].ncpus; i++) {
			struct rec_cpu_result c = {0};
			free(bundle_cpu_stats(bufs[k].inst, r->buffers[k].cpus[i].cpu, &c));
			n += c.overrun + c.dropped + c.commit_overrun;
			*pending += c.pending;
		}
	return n;
}

/* "darc-record: 12 s, 3.4 MB, 0.3 MB/s, 0 lost": the data moved or waiting in the buffers. */
static void status_line(struct stream **st, struct sess_buffer *bufs, int nbuf,
			const struct rec_result *r, double t)
{
	uint64_t bytes = 0, pending, lost = lost_now(bufs, nbuf, r, &pending);

	for (int k = 0; k < nbuf; k++)
		bytes += stream_bytes(st[k]);
	bytes += pending;
	fprintf(stderr, "\rdarc-record: %.0f s, %.1f MB, %.1f MB/s, %llu lost   ", t, bytes / 1e6,
		t > 0 ? bytes / 1e6 / t : 0.0, (unsigned long long)lost);
}

/* darc-record's CPU time so far, all threads (not the command: it is a child). */
static void cpu_time(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The CPUs of the machine (per_cpu/cpuN of the instance exist for each possible one). */
static int list_cpus(struct tracefs_instance *inst, int **cpus)
{
	int max = sysconf(_SC_NPROCESSORS_CONF), n = 0;

	*cpus = calloc(max > 0 ? max : 1, sizeof(int));
	for (int c = 0; *cpus && c < max; c++) {
		char d[64];
		snprintf(d, sizeof(d), "per_cpu/cpu%d", c);
		if (tracefs_dir_exists(inst, d))
			(*cpus)[n++] = c;
	}
	return n;
}

/* Lay out the result's buffers and CPUs. */
static int layout(struct rec_result *r, struct sess_buffer *bufs, int nbuf, int *const *cpus,
		  const int *ncpus)
{
	r->buffers = calloc(nbuf > 0 ? nbuf : 1, sizeof(*r->buffers));
	if (!r->buffers)
		return -1;
	r->nbuffers = nbuf;
	for (int k = 0; k < nbuf; k++) {
		struct rec_buffer_result *b = &r->buffers[k];
		b->name = bufs[k].name;
		b->instance = bufs[k].inst ? tracefs_instance_get_name(bufs[k].inst) : NULL;
		b->pid_filtered = bufs[k].pid_filtered;
		b->nevents = bufs[k].nevents;
		b->event_sys = bufs[k].event_sys;
		b->event_name = bufs[k].event_name;
		b->ncpus = ncpus[k];
		b->cpus = calloc(ncpus[k] ? ncpus[k] : 1, sizeof(*b->cpus));
		if (!b->cpus)
			return -1;
		for (int i = 0; i < ncpus[k]; i++)
			b->cpus[i].cpu = cpus[k][i];
	}
	return 0;
}

/* A directory for the page files next to the output (same file system). */
static char *page_dir(const char *output, struct err_msg *err)
{
	char *copy = strdup(output), *dir;

	if (!copy) {
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	if (asprintf(&dir, "%s/.darc-record.XXXXXX", dirname(copy)) < 0)
		dir = NULL;
	free(copy);
	if (!dir || !mkdtemp(dir)) {
		err_setf(err, output, "cannot make a directory for the trace data next to it: %s",
			 strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* Wait for the end; returns why it ended. */
static const char *wait_end(const struct rec_opts *o, int sfd, struct target *t, struct stream **st,
			    struct sess_buffer *bufs, int nbuf, const struct rec_result *r,
			    int *sig)
{
	struct timespec start;
	bool tty = isatty(2) && !o->quiet;
	int ticks = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd p = {.fd = sfd, .events = POLLIN};
		struct signalfd_siginfo si;

		if (poll(&p, 1, TICK_MS) > 0 && read(sfd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo != SIGCHLD) {
			*sig = si.ssi_signo;
			return si.ssi_signo == SIGINT	 ? "SIGINT"
			       : si.ssi_signo == SIGTERM ? "SIGTERM"
							 : "SIGHUP";
		}
		if (target_done(t))
			return "target exited";
		target_snapshot(t);
		if (o->duration > 0 && since(&start) >= o->duration)
			return "duration";
		if (tty && ++ticks % (1000 / TICK_MS) == 0)
			status_line(st, bufs, nbuf, r, since(&start));
	}
}

/* What became of the top-level ring buffer, into @r (for the manifest) and said. */
static void top_buffer_report(struct sess *s, struct rec_result *r, bool quiet)
{
	const char *before, *now;

	r->top_expanded = sess_top_buffer(s, &before, &now);
	r->top_before = strdup(before);
	r->top_after = strdup(now);
	if (r->top_expanded && !quiet)
		fprintf(stderr,
			"darc-record: note: the top-level ring buffer was unallocated ('%s' KB per "
			"CPU) and is allocated now ('%s'), as on any first use of tracing on this "
			"kernel; it cannot be shrunk back\n",
			before, now);
}

/* What one recording holds while it runs: record_run's steps share it, and
   run_free gives it all back, whichever step failed. */
struct run {
	struct rec_caps caps;
	struct rec_notes missing, works, notes;
	struct err_msg err;
	struct target *t;
	struct sess *s;
	struct sess_buffer *bufs;
	int nbuf;
	struct stream *st[2];
	int *cpus[2], ncpus[2];
	struct bundle *b;
	struct rec_result r;
	int sfd, sig;
	int reserved; /* the output's reservation (wfile_reserve()), -1 for none */
	char *dir, *extra;
	bool touched; /* tracefs may have been changed: probes are removed */
};

/* The options against what the kernel can do. 0, or -1 (said) to stop. */
static int check_options(struct rec_opts *o, struct run *x)
{
	char buf[512];

	if (!o->clock) /* comparable across CPUs, and with CLOCK_MONOTONIC */
		o->clock = x->r.clock = caps_has_clock(&x->caps, "mono") ? "mono" : "global";
	if (caps_check(&x->caps, o, &x->missing, &x->works)) {
		print_notes(&x->missing, "");
		print_notes(&x->works, "");
		fprintf(stderr, "darc-record: rerun without the options above, or with "
				"--best-effort to record what is possible\n");
		return -1;
	}
	print_notes(&x->missing, "warning: left out (--best-effort): ");
	if (caps_wake_warning(&x->caps, o, buf, sizeof(buf)))
		fprintf(stderr, "darc-record: warning: %s\n", buf);
	if (o->nevents == 0 && o->nprobes == 0 && !o->ngraph) {
		fprintf(stderr, "darc-record: nothing to record: no event, probe or graph "
				"function is available\n");
		return -1;
	}
	return 0;
}

/* The signals that end a recording, read from a descriptor in wait_end. */
static int take_signals(struct run *x)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	x->sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (x->sfd < 0) {
		fprintf(stderr, "darc-record: cannot take signals: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The session, probes and target, and a reader per CPU of each buffer:
   everything up to tracing on. 0, or -1 with x->err. */
static int set_up(struct rec_opts *o, struct run *x)
{
	const pid_t *pids;
	int n;

	x->dir = page_dir(o->output, &x->err);
	if (!x->dir)
		return -1;
	x->touched = true;
	/* the session first: it takes the top-level lock before anything is made */
	x->s = sess_create(o, &x->caps, &x->notes, &x->err);
	if (!x->s)
		return -1;
	sess_note_dir(x->s, x->dir);
	print_notes(&x->notes, "");
	caps_notes_free(&x->notes);
	if (probes_create(o, &x->err))
		return -1;
	x->t = target_create(o->command, o->pids, o->npids, &x->err);
	if (!x->t)
		return -1;
	if (sess_setup_buffers(x->s, o, &x->err))
		return -1;
	if (!o->no_calibrate) {
		calib_run(x->s, o, &x->r.cost, &x->notes);
		print_notes(&x->notes, "");
		caps_notes_free(&x->notes);
	}
	if (sess_setup(x->s, o, &x->err))
		return -1;
	n = target_pids(x->t, &pids);
	if (sess_set_pids(x->s, pids, n, &x->err))
		return -1;
	x->nbuf = sess_buffers(x->s, &x->bufs);
	for (int k = 0; k < x->nbuf; k++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "buffer%d", k);
		x->ncpus[k] = list_cpus(x->bufs[k].inst, &x->cpus[k]);
		if (!x->cpus[k]) {
			err_setf(&x->err, NULL, "out of memory");
			return -1;
		}
		x->st[k] = stream_start(x->bufs[k].inst, x->dir, tag, x->cpus[k], x->ncpus[k],
					&x->err);
		if (!x->st[k])
			return -1;
	}
	if (layout(&x->r, x->bufs, x->nbuf, x->cpus, x->ncpus)) {
		err_setf(&x->err, NULL, "out of memory");
		return -1;
	}
	x->r.page_size = stream_page_size(x->st[0]);
	return 0;
}

/* Tracing on until the recording ends, then off, with every reader drained.
   0, or -1 with x->err. */
static int record(const struct rec_opts *o, struct run *x)
{
	struct rec_result *r = &x->r;

	clock_gettime(CLOCK_REALTIME, &r->start_real);
	clock_gettime(CLOCK_MONOTONIC, &r->start_mono);
	if (sess_tracing(x->s, 1, &x->err) || target_release(x->t, &x->err))
		return -1;
	if (!o->quiet)
		fprintf(stderr, "darc-record: recording to '%s'%s\n", o->output,
			o->command ? "" : "; Ctrl-C ends it");
	r->stop_reason = wait_end(o, x->sfd, x->t, x->st, x->bufs, x->nbuf, r, &x->sig);
	clock_gettime(CLOCK_REALTIME, &r->stop_real);
	clock_gettime(CLOCK_MONOTONIC, &r->stop_mono);
	cpu_time(&r->cpu_user, &r->cpu_sys);
	if (isatty(2) && !o->quiet)
		fputc('\n', stderr);

	/* stop: tracing off, then the readers drain what is left */
	sess_tracing(x->s, 0, NULL);
	/* a command ends with its recording (SIGTERM: it may ignore SIGINT) */
	if (strcmp(r->stop_reason, "target exited"))
		target_kill(x->t, SIGTERM);
	/* a command told to stop gets a second to do so, for its exit status */
	for (int i = 0; i < 100 && !target_done(x->t); i++)
		usleep(10000);
	r->target_status = target_status(x->t);
	for (int k = 0; k < x->nbuf; k++)
		if (stream_stop(x->st[k], &x->err))
			return -1;
	return 0;
}

/* The bundle: its metadata, tracefs restored, then its page files stored.
   0, or -1 with x->err. */
static int store(struct rec_opts *o, struct run *x)
{
	sess_quiesce(x->s);
	x->extra = target_cmdlines(x->t);
	x->b = bundle_begin(o->output, o->force, x->bufs, x->nbuf, x->extra, &x->r,
			    x->r.page_size, &x->err);
	if (!x->b)
		return -1;
	/* tracefs back as it was before the data is stored (that can take a while) */
	sess_restore(x->s);
	probes_destroy(o);
	top_buffer_report(x->s, &x->r, o->quiet);
	return bundle_finish(x->b, x->st, &x->r, o, x->t, &x->err) ? -1 : 0;
}

/* What one traced call cost, measured before the recording (calib.c), in one line. */
static void report_cost(const struct rec_calib *c)
{
	const char *sep = "";

	if (!c->done)
		return;
	fprintf(stderr, "darc-record: the tracer's cost per traced call:");
	for (int m = 0; m < MECH_N; m++) {
		if (!c->m[m].asked)
			continue;
		if (c->m[m].measured)
			fprintf(stderr, "%s %s %.0f ns", sep, calib_mech_names[m], c->m[m].ns);
		else
			fprintf(stderr, "%s %s not measured (%s)", sep, calib_mech_names[m],
				c->m[m].why ? c->m[m].why : "?");
		sep = ",";
	}
	fprintf(stderr, " (measured in %.2f s on CPU %d; in the manifest)\n", c->seconds, c->cpu);
}

/* What was written and lost, and what recording cost. */
static void report_totals(const struct rec_opts *o, const struct rec_result *r, int nbuf)
{
	uint64_t bytes = 0, lost = 0, events = 0;
	double u, sy;

	for (int k = 0; k < nbuf; k++)
		for (int i = 0; i < r->buffers[k].ncpus; i++) {
			struct rec_cpu_result *c = &r->buffers[k].cpus[i];
			bytes += c->bytes;
			events += c->events;
			lost += c->overrun + c->dropped + c->commit_overrun;
			if (c->overrun + c->dropped + c->commit_overrun)
				fprintf(stderr,
					"darc-record: warning: buffer '%s' cpu %d lost %llu "
					"events (--buffer-size may help)\n",
					r->buffers[k].name, c->cpu,
					(unsigned long long)(c->overrun + c->dropped +
							     c->commit_overrun));
		}
	cpu_time(&u, &sy);
	fprintf(stderr,
		"darc-record: wrote '%s': %llu events, %.1f MB of trace data, %llu lost (%s)\n",
		o->output, (unsigned long long)events, bytes / 1e6, (unsigned long long)lost,
		r->stop_reason);
	fprintf(stderr,
		"darc-record: its own CPU time: %.2f s user + %.2f s system while "
		"recording, %.2f s in all\n",
		r->cpu_user, r->cpu_sys, u + sy);
	report_cost(&r->cost);
}

/* The teardown every way out shares: tracefs restored, probes removed. */
static void run_free(struct rec_opts *o, struct run *x)
{
	for (int k = 0; k < 2; k++)
		if (x->st[k])
			stream_stop(x->st[k], NULL);
	sess_free(x->s);
	if (x->touched)
		probes_destroy(o);
	bundle_free(x->b);
	for (int k = 0; k < 2; k++) {
		stream_free(x->st[k]);
		free(x->cpus[k]);
	}
	if (x->dir)
		rmdir(x->dir);
	target_free(x->t);
	caps_release(&x->caps);
	for (int k = 0; k < x->r.nbuffers; k++)
		free(x->r.buffers[k].cpus);
	free(x->r.buffers);
	free(x->r.tgids);
	free(x->r.top_before);
	free(x->r.top_after);
	free(x->dir);
	free(x->extra);
	if (x->sfd >= 0)
		close(x->sfd);
	wfile_release(o->output, x->reserved); /* after the bundle's rename */
	caps_notes_free(&x->missing);
	caps_notes_free(&x->works);
	caps_notes_free(&x->notes);
}

int record_run(struct rec_opts *o)
{
	struct run x = {.err = {.msg = ""}, .r = {.target_status = -1, .clock = o->clock},
			.sfd = -1, .reserved = -1};
	int rc = REC_FAILED;

	if (geteuid() != 0) {
		fprintf(stderr, "darc-record: must run as root: tracefs needs it\n");
		return REC_FAILED;
	}
	/* the bundle never replaces a probed binary, nor (without --force) anything */
	for (int i = 0; i < o->nprobes; i++)
		if (o->probes[i].file)
			wfile_note_input(o->probes[i].file);
	if (wfile_check(o->output, &fmt_writer_kind, o->force, &x.err)) {
		fprintf(stderr, "darc-record: %s\n", x.err.msg);
		return REC_USAGE;
	}
	/* the output is this session's from the start: a second darc-record on the
	   same -o fails here, before it touches tracefs (the recording comes first) */
	x.reserved = wfile_reserve(o->output, &x.err);
	if (x.reserved < 0) {
		fprintf(stderr, "darc-record: %s\n", x.err.msg);
		return REC_FAILED;
	}
	if (caps_probe(&x.caps, &x.err)) {
		fprintf(stderr, "darc-record: %s\n", x.err.msg);
		wfile_release(o->output, x.reserved);
		return REC_FAILED;
	}
	if (check_options(o, &x) || take_signals(&x))
		goto out;
	if (set_up(o, &x) || record(o, &x) || store(o, &x)) {
		fprintf(stderr, "darc-record: %s\n", x.err.msg);
		goto out;
	}
	if (!o->quiet)
		report_totals(o, &x.r, x.nbuf);
	rc = REC_OK;
	if (o->json) {
		char *j = manifest_summary_json(o, x.t, &x.r);
		if (j)
			printf("%s\n", j);
		else
			fprintf(stderr, "darc-record: out of memory for the JSON summary\n");
		free(j);
	}
out:
	run_free(o, &x);
	return rc;
}
