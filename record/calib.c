// SPDX-License-Identifier: MIT
/*
 * What one traced call costs on this box, for each mechanism the recording
 * uses, measured before the recording starts (DARC measured its probes'
 * cost per call the same way; OSprof and DROPS corrected for theirs):
 *
 *   a loop of getppid() system calls (or, for uprobes, of calls of an empty
 *   function of darc-record's own) is timed untraced, then with one
 *   mechanism at a time tracing what the loop does: a kprobe and a
 *   kretprobe on the system call's kernel function, a uprobe and uretprobe
 *   on the empty function, raw_syscalls:sys_enter (a tracepoint), and
 *   function_graph on the system call's function alone. The extra time per
 *   iteration, over the events the ring buffer took per iteration, is the
 *   cost of one traced call (function_graph: of one call, entry and exit).
 *   A traced call in a loop of system calls meets the tracer's code and data
 *   otherwise than a run of traced calls does, so this may differ from the
 *   estimate from the recording's own calls (tracer-cost.h; in the lab's
 *   emulation by a factor of up to 3 either way); both are kept.
 *
 * The loop runs in darc-record's main thread, pinned to the CPU it is on,
 * with the buffer's pid filters on darc-record alone, in the recording's own
 * buffer before its events are enabled; each configuration is timed in
 * CALIB_ROUNDS rounds of about CALIB_ROUND_NS and the fastest round counts
 * (the others met interrupts or another task; under emulation, the host
 * taking the CPU away); the untraced loop is timed again before each
 * mechanism, and its fastest round so far is the base. Everything it
 * enables it disables, its probes it removes, and the buffer is cleared
 * after it.
 *
 * A mechanism that cannot be measured (its probe cannot be made) is left
 * out with the reason; calibration never fails a recording.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "bundle.h"
#include "calib.h"
#include "caps.h"
#include "manifest.h"
#include "probes.h"
#include "rec.h"
#include "session.h"

#define CALIB_ROUNDS 15
#define CALIB_ROUND_NS 1.5e6 /* a round's length to aim for: short, so that some
				 rounds run without an interruption on a busy box */
#define CALIB_TRIAL 16	   /* iterations timed to size a round */
#define CALIB_MIN_ITER 32
#define CALIB_MAX_ITER 200000

const char *const calib_mech_names[MECH_N] = {
    "function_graph", "kprobe", "kretprobe", "uprobe", "uretprobe", "tracepoint",
};

/* The kernel's name of getppid's system call function, by architecture and age (for kprobes). */
static const char *const sys_getppid_names[] = {
    "__x64_sys_getppid", "__arm64_sys_getppid", "__riscv_sys_getppid", "__s390x_sys_getppid",
    "sys_getppid",
};
/* ... and as function_graph's filters know it: one of its aliases (6.1: __do_sys_getppid) */
#define GETPPID_GLOB "*sys_getppid"

/* The empty function the uprobes are put on: a call and a return, nothing else. */
__attribute__((noinline, used)) void calib_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* What one calibration is working with. */
struct cal {
	struct sess *s;
	struct tracefs_instance *inst; /* the recording's pid-filtered buffer (NULL: top level) */
	int cpu;		       /* where the loop runs */
	char tid[16];		       /* darc-record's main thread, for the pid filters */
	struct rec_calib *c;
	struct rec_notes *notes;
	double kbase, ubase; /* the fastest untraced loop so far: getppid(), the user function */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* @n iterations of the loop; the wall time of one (ns). */
static double loop(bool user, long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		if (user)
			calib_target();
		else
			syscall(SYS_getppid);
	return (now_ns() - t0) / n;
}

/*
 * Time the loop: a trial sizes the rounds, then the fastest of
 * CALIB_ROUNDS rounds. *@iters gets every iteration run (the trial's too),
 * for the events per iteration. Returns ns per iteration.
 */
static double timed(bool user, long *iters)
{
	double trial = loop(user, CALIB_TRIAL), best = 0;
	long n = trial > 0 ? (long)(CALIB_ROUND_NS / trial) : CALIB_MAX_ITER;

	n = n < CALIB_MIN_ITER ? CALIB_MIN_ITER : n > CALIB_MAX_ITER ? CALIB_MAX_ITER : n;
	*iters = CALIB_TRIAL;
	for (int r = 0; r < CALIB_ROUNDS; r++) {
		double t = loop(user, n);
		if (!r || t < best)
			best = t;
		*iters += n;
	}
	return best;
}

/* Events written to the buffer on the loop's CPU: entries + overrun (stats). */
static uint64_t written(const struct cal *x)
{
	struct rec_cpu_result c = {0};
	char *st = bundle_cpu_stats(x->inst, x->cpu, &c);

	free(st);
	return c.entries + c.overrun;
}

static void clear(const struct cal *x)
{
	tracefs_instance_file_clear(x->inst, "trace");
}

/*
 * Time the loop with tracing on, and make mechanism @m's cost of it: the
 * time over @base per iteration, divided by the traced calls per iteration
 * (events per iteration over @per_call events a call).
 */
static void measure(struct cal *x, int m, bool user, int per_call)
{
	struct rec_cost *k = &x->c->m[m];
	uint64_t before;
	long iters;
	double t, base;

	clear(x);
	before = written(x);
	if (sess_put(x->s, 0, "tracing_on", "1", false, NULL)) {
		k->why = "cannot turn tracing on";
		return;
	}
	t = timed(user, &iters);
	sess_put(x->s, 0, "tracing_on", "0", false, NULL);
	k->calls = (double)(written(x) - before) / per_call / iters;
	clear(x);
	if (k->calls < 0.5) { /* nothing was traced: no cost to divide */
		k->why = "the loop's calls were not traced";
		return;
	}
	base = user ? x->ubase : x->kbase;
	k->ns = t > base ? (t - base) / k->calls : 0;
	k->loop_ns = t;
	k->measured = true;
}

/* Enable or disable event SYS:NAME in the buffer, not saved for restoring (ours, removed). */
static int event_on(const struct cal *x, const char *sys, const char *name, bool on)
{
	char file[256];

	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, name);
	return tracefs_instance_file_write(x->inst, file, on ? "1" : "0") < 0 ? -1 : 0;
}

/* A probe of type @t at @where (kernel symbol, or offset in file @file), made. */
static struct tracefs_dynevent *make_probe(enum rec_probe_type t, const char *event,
					   const char *where, const char *file, uint64_t off)
{
	const char *g = probe_group(t);
	struct tracefs_dynevent *d =
	    t == PROBE_KPROBE	   ? tracefs_kprobe_alloc(g, event, where, NULL)
	    : t == PROBE_KRETPROBE ? tracefs_kretprobe_alloc(g, event, where, NULL, 0)
	    : t == PROBE_UPROBE	   ? tracefs_uprobe_alloc(g, event, file, off, NULL)
				   : tracefs_uretprobe_alloc(g, event, file, off, NULL);

	if (d && tracefs_dynevent_create(d)) {
		tracefs_dynevent_free(d);
		d = NULL;
	}
	return d;
}

/* Where calib_target is in darc-record's file: its path and offset. */
static int self_offset(char *path, size_t n, uint64_t *off)
{
	uintptr_t a = (uintptr_t)&calib_target;
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4352];
	int rc = -1;

	while (f && rc && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pgoff;
		char file[4097] = "";
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4096s", &lo, &hi, &pgoff, file) == 4 &&
		    a >= lo && a < hi && file[0] == '/') {
			snprintf(path, n, "%s", file);
			*off = a - lo + pgoff;
			rc = 0;
		}
	}
	if (f)
		fclose(f);
	return rc;
}

/* Mechanism @m (a probe type @t) on the loop's function: made, timed, removed. */
static void probe_cost(struct cal *x, int m, enum rec_probe_type t)
{
	bool user = t == PROBE_UPROBE || t == PROBE_URETPROBE;
	char event[64], file[4097] = "";
	struct tracefs_dynevent *d = NULL;
	uint64_t off = 0;

	snprintf(event, sizeof(event), "darc_calib_%s_%d", calib_mech_names[m], (int)getpid());
	if (user && self_offset(file, sizeof(file), &off)) {
		x->c->m[m].why = "darc-record's own code is not in a file";
		return;
	}
	for (size_t i = 0; !d && i < (user ? 1 : sizeof(sys_getppid_names) / sizeof(char *)); i++)
		d = make_probe(t, event, user ? NULL : sys_getppid_names[i], file, off);
	if (!d) {
		x->c->m[m].why = "its probe cannot be made";
		return;
	}
	if (event_on(x, probe_group(t), event, true))
		x->c->m[m].why = "its probe's event cannot be enabled";
	else
		measure(x, m, user, 1);
	event_on(x, probe_group(t), event, false);
	probe_destroy(d);
	tracefs_dynevent_free(d);
}

/* The tracepoint: raw_syscalls:sys_enter, one event per getppid(). */
static void tracepoint_cost(struct cal *x)
{
	struct rec_cost *k = &x->c->m[MECH_TRACEPOINT];

	if (sess_put(x->s, 0, "events/raw_syscalls/sys_enter/enable", "1", false, NULL)) {
		k->why = "raw_syscalls:sys_enter cannot be enabled";
		return;
	}
	measure(x, MECH_TRACEPOINT, false, 1);
	sess_put(x->s, 0, "events/raw_syscalls/sys_enter/enable", "0", false, NULL);
}

/*
 * function_graph on getppid's kernel function alone: set_ftrace_filter
 * patches only it (so switching the tracer on and off is quick, and the
 * time added is the traced calls' alone, not the check every patched
 * function makes), rooted there, on darc-record's thread. Everything is
 * taken away again: the recording sets function_graph up afresh.
 */
static void graph_cost(struct cal *x)
{
	struct rec_cost *k = &x->c->m[MECH_FGRAPH];
	struct err_msg err = {""};

	if (sess_put(x->s, 0, "set_ftrace_filter", GETPPID_GLOB, false, &err) ||
	    sess_put(x->s, 0, "set_graph_function", GETPPID_GLOB, false, &err)) {
		caps_note(x->notes, "calibration: %s", err.msg);
		k->why = "no system call function to root the graph at";
	} else if ((tracefs_file_exists(x->inst, "max_graph_depth") &&
		    sess_put(x->s, 0, "max_graph_depth", "0", false, &err)) ||
		   (tracefs_file_exists(x->inst, "set_ftrace_pid") &&
		    sess_put(x->s, 0, "set_ftrace_pid", x->tid, false, &err)) ||
		   sess_put(x->s, 0, "current_tracer", "function_graph", false, &err)) {
		caps_note(x->notes, "calibration: %s", err.msg);
		k->why = "function_graph cannot be set up";
	} else {
		measure(x, MECH_FGRAPH, false, 2); /* an entry and an exit event a call */
	}
	sess_put(x->s, 0, "current_tracer", "nop", false, NULL);
	sess_put(x->s, 0, "set_graph_function", "", false, NULL);
	sess_put(x->s, 0, "set_ftrace_filter", "", false, NULL);
}

/* The mechanisms @o uses, marked as asked for in @c. */
static void asked(const struct rec_opts *o, struct rec_calib *c)
{
	c->m[MECH_FGRAPH].asked = sess_graph(o);
	c->m[MECH_TRACEPOINT].asked = o->nevents > 0;
	for (int i = 0; i < o->nprobes; i++)
		c->m[o->probes[i].type == PROBE_KPROBE	   ? MECH_KPROBE
		     : o->probes[i].type == PROBE_KRETPROBE ? MECH_KRETPROBE
		     : o->probes[i].type == PROBE_UPROBE    ? MECH_UPROBE
							    : MECH_URETPROBE]
		    .asked = true;
}

/* The loop on one CPU (the one it is on), the old affinity into @old. */
static int pin(int *cpu, cpu_set_t *old)
{
	cpu_set_t one;

	*cpu = sched_getcpu();
	if (*cpu < 0 || sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(*cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/* The untraced loops timed again, the fastest so far kept (*@first: the first time). */
static void rebase(struct cal *x, bool *first)
{
	long iters;
	double k = timed(false, &iters), u = timed(true, &iters);

	x->kbase = *first || k < x->kbase ? k : x->kbase;
	x->ubase = *first || u < x->ubase ? u : x->ubase;
	*first = false;
}

void calib_run(struct sess *s, const struct rec_opts *o, struct rec_calib *c,
	       struct rec_notes *notes)
{
	struct cal x = {.s = s, .inst = sess_instance(s, 0), .c = c, .notes = notes};
	double t0 = now_ns();
	cpu_set_t old;
	bool first = true;

	memset(c, 0, sizeof(*c));
	asked(o, c);
	if (pin(&x.cpu, &old)) {
		caps_note(notes, "calibration left out: cannot stay on one CPU: %s",
			  strerror(errno));
		return;
	}
	c->cpu = x.cpu;
	snprintf(x.tid, sizeof(x.tid), "%d", (int)gettid());
	if (sess_put(s, 0, "set_event_pid", x.tid, false, NULL))
		caps_note(notes, "calibration: the events are not filtered on darc-record");
	if (c->m[MECH_TRACEPOINT].asked) {
		rebase(&x, &first);
		tracepoint_cost(&x);
	}
	for (int m = MECH_KPROBE; m <= MECH_URETPROBE; m++)
		if (c->m[m].asked) {
			rebase(&x, &first);
			probe_cost(&x, m, (enum rec_probe_type)(m - MECH_KPROBE));
		}
	if (c->m[MECH_FGRAPH].asked) {
		rebase(&x, &first);
		graph_cost(&x);
	}
	clear(&x);
	sched_setaffinity(0, sizeof(old), &old);
	c->base_ns = x.kbase;
	c->user_base_ns = x.ubase;
	c->seconds = (now_ns() - t0) / 1e9;
	c->done = true;
}
