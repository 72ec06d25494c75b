// SPDX-License-Identifier: MIT
/*
 * The tracefs side of a recording: darc-record's own instances (darc-PID for
 * the pid-filtered events, darc-PID-all for the unfiltered ones), or the
 * top-level buffer where an instance cannot do what is asked (function_graph
 * on kernels that only allow it at the top level, or whose instances lack
 * the graph's filter files, --no-instance, no instances at all).
 *
 * Every top-level file is read before its first write and written back, in
 * reverse order, when the session is freed; instances are simply removed.
 * A session that uses the top level holds the top-level lock (lock.c) from
 * before its first write there until after its last.
 *
 * For the case where darc-record is killed (kill -9) an undo log,
 * /run/darc-record.PID.undo, holds the saved top-level values and the page
 * file directory as NUL-separated (key, value) pairs; 'darc-record --reset'
 * replays the logs of dead recorders (undo.c). A clean exit removes it.
 * Keys are tracefs file names, relative to wherever tracefs is mounted when
 * the log is replayed; the page file directory is an absolute path, since
 * --reset runs from any directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "caps.h"
#include "lock.h"
#include "probes.h"
#include "rec.h"
#include "session.h"
#include "undo.h"

/* A top-level file as it was before darc-record wrote it. */
struct saved {
	char *file;
	char *value;
};

struct sess {
	struct sess_buffer buf[2];
	int nbuf;
	struct tracefs_instance *own[2]; /* instances created (and removed) */
	int nown;
	struct saved *saved;
	int nsaved;
	bool graph;   /* function_graph is set in buf[0] */
	bool removed; /* sess_restore() ran */
	char *top_before, *top_now; /* top-level buffer_size_kb: at the start, and now */
	int top_default; /* its "(expanded: N)" while unallocated, else 0 */
	int undo;     /* the undo log, -1 if it could not be made */
	char *undo_path;
	int lock; /* the top-level lock (lock.c) while the top level is used, else -1 */
};

/* Append (@key, @value) to the undo log. */
static void log_undo(struct sess *s, const char *key, const char *value)
{
	size_t k = strlen(key) + 1, v = strlen(value) + 1;
	char *rec = malloc(k + v);

	if (s->undo < 0 || !rec) {
		free(rec);
		return;
	}
	memcpy(rec, key, k);
	memcpy(rec + k, value, v);
	if (write(s->undo, rec, k + v) < 0) {
		/* nothing to be done: the log only helps --reset */
	}
	free(rec);
}

void sess_note_dir(struct sess *s, const char *dir)
{
	char *abs = realpath(dir, NULL);

	/* a directory that is not there (no realpath) leaves nothing to remove */
	if (abs)
		log_undo(s, REC_UNDO_DIR_KEY, abs);
	free(abs);
}

static const char *where(struct tracefs_instance *inst)
{
	return inst ? tracefs_instance_get_name(inst) : "top level";
}

/* Remember top-level file @file before it is first written. */
static int save_top(struct sess *s, const char *file, struct err_msg *err)
{
	char *v;
	void *n;

	for (int i = 0; i < s->nsaved; i++)
		if (!strcmp(s->saved[i].file, file))
			return 0;
	v = tracefs_instance_file_read(NULL, file, NULL);
	/* libtracefs gives NULL for an empty file too */
	if (!v && tracefs_file_exists(NULL, file))
		v = strdup("");
	if (!v)
		return err_setf(err, NULL, "cannot read tracefs '%s': %s", file, strerror(errno));
	n = realloc(s->saved, (s->nsaved + 1) * sizeof(*s->saved));
	if (!n) {
		free(v);
		return err_setf(err, NULL, "out of memory");
	}
	s->saved = n;
	s->saved[s->nsaved].file = strdup(file);
	s->saved[s->nsaved].value = v;
	if (!s->saved[s->nsaved].file) {
		free(v);
		return err_setf(err, NULL, "out of memory");
	}
	s->nsaved++;
	log_undo(s, file, v);
	return 0;
}

/* A file of function names: set_graph_function, set_ftrace_filter, ... */
static bool function_list(const char *file)
{
	return !strcmp(file, "set_graph_function") || !strcmp(file, "set_graph_notrace") ||
	       !strcmp(file, "set_ftrace_filter") || !strcmp(file, "set_ftrace_notrace");
}

/*
 * Write @val to @file of @inst (append instead of replace if @append),
 * saving a top-level file first. The error names the file and, when the
 * kernel logged one, its reason. A function name goes with a newline: the
 * kernel parses a name left without one only when the file is closed, and
 * then drops an unknown one silently (6.1: 'darc-record -g typo' graphed
 * every function).
 */
/*
 * Write @val to @file of @inst (append instead of replace if @append),
 * saving a top-level file first. The error names the file and, when the
 * kernel logged one, its reason.
 */
static int put(struct sess *s, struct tracefs_instance *inst, const char *file, const char *val,
	       bool append, struct err_msg *err)
{
	char *line = NULL;
	int rc;

	if (!inst && save_top(s, file, err))
		return -1;
	if (*val && function_list(file) && asprintf(&line, "%s\n", val) < 0)
		return err_setf(err, NULL, "out of memory");
	rc = append ? tracefs_instance_file_append(inst, file, line ? line : val)
		    : tracefs_instance_file_write(inst, file, line ? line : val);
	free(line);
	if (rc < 0 && errno == EINVAL && *val && function_list(file))
		return err_setf(err, NULL, "cannot trace function '%s' (%s): this kernel has none "
				"of that name in available_filter_functions", val, file);
	if (rc < 0) {
		int e = errno;
		char *why = tracefs_error_last(inst);
		err_setf(err, NULL, "cannot write '%s' to tracefs %s '%s': %s%s%s", val,
			 where(inst), file, strerror(e), why ? ": " : "", why ? why : "");
		free(why);
		return -1;
	}
	return 0;
}



/* The top-level buffer_size_kb as it reads now (caller frees), or NULL. */
static char *top_size(void)
{
	char *v = tracefs_instance_file_read(NULL, "buffer_size_kb", NULL);
	size_t n = v ? strlen(v) : 0;

	while (n && v[n - 1] == '\n')
		v[--n] = 0;
	return v;
}

/*
 * After setup: on kernels where resizing any buffer marks the top-level one
 * as sized (6.1: the instance's buffer_size_kb), an unallocated top-level
 * buffer is left at its boot size of a few KB for good, and every later
 * user of it gets that. Give it the size its first use would give it.
 */
static void top_fix(struct sess *s)
{
	char *now = top_size();
	char num[32];

	/* a size darc-record set itself (--no-instance -b) is the user's to have */
	for (int i = 0; i < s->nsaved; i++)
		if (!strcmp(s->saved[i].file, "buffer_size_kb")) {
			free(now);
			return;
		}
	if (s->top_default && now && !undo_expanded_kb(now) &&
	    strtol(now, NULL, 10) < s->top_default) {
		snprintf(num, sizeof(num), "%d", s->top_default);
		tracefs_instance_file_write(NULL, "buffer_size_kb", num); /* not undone */
	}
	free(now);
}

bool sess_top_buffer(struct sess *s, const char **before, const char **now)
{
	free(s->top_now);
	s->top_now = top_size();
	*before = s->top_before ? s->top_before : "?";
	*now = s->top_now ? s->top_now : "?";
	return s->top_default && s->top_now && !undo_expanded_kb(s->top_now);
}


static struct tracefs_instance *make_instance(struct sess *s, const char *suffix,
					      struct err_msg *err)
{
	char name[64];
	struct tracefs_instance *inst;

	snprintf(name, sizeof(name), REC_INSTANCE_PREFIX "%d%s", (int)getpid(), suffix);
	if (tracefs_instance_exists(name)) {
		err_setf(err, NULL,
			 "tracefs instance '%s' exists already (left by a killed "
			 "darc-record? 'darc-record --reset' removes it)",
			 name);
		return NULL;
	}
	inst = tracefs_instance_create(name);
	if (!inst) {
		err_setf(err, NULL, "cannot create tracefs instance '%s': %s", name,
			 strerror(errno));
		return NULL;
	}
	s->own[s->nown++] = inst;
	/* a new instance traces at once: nothing until darc-record says so */
	tracefs_instance_file_write(inst, "tracing_on", "0");
	return inst;
}

/*
 * The top level is one session's at a time (lock.c). Taken, it warns of
 * what killed sessions left there: this one starts from that.
 */
static int take_top(struct sess *s, struct rec_notes *notes, struct err_msg *err)
{
	char who[256];
	int rc = lock_top("recording in the top-level buffer", &s->lock, who, sizeof(who), err);

	if (rc > 0)
		return err_setf(err, NULL,
				"tracefs is in use by %s: two recordings in the top-level buffer "
				"would undo each other's settings; wait for it to end (its lock, "
				"%s, is released when it exits, even by kill -9)",
				who, REC_LOCK_PATH);
	if (rc < 0)
		return -1;
	undo_leftovers(notes);
	return 0;
}

static bool instance_has_tracer(struct tracefs_instance *inst, const char *tracer)
{
	char *t = tracefs_instance_file_read(inst, "available_tracers", NULL);
	bool found = false;

	for (char *w = t ? strtok(t, " \n") : NULL; w; w = strtok(NULL, " \n"))
		if (!strcmp(w, tracer))
			found = true;
	free(t);
	return found;
}

/*
 * What instance @inst lacks for the function graph @o asks for, or NULL.
 * An instance may list function_graph and still lack the graph's filter
 * files (6.12 and 7.3 as Debian builds them have no set_graph_function,
 * set_graph_notrace or max_graph_depth in instances); without them it would
 * graph every function. So the files are probed, not the kernel's version.
 */
static const char *instance_graph_lacks(struct tracefs_instance *inst, const struct rec_opts *o)
{
	const struct {
		bool needed;
		const char *file;
	} need[] = {
	    {o->ngraph > 0, "set_graph_function"},
	    {o->nnotrace > 0, "set_graph_notrace"},
	    {o->max_depth > 0, "max_graph_depth"},
	    {o->sleep_time >= 0, "options/sleep-time"},
	    {o->graph_irqs >= 0, "options/funcgraph-irqs"},
	    {o->nftrace_filter > 0, "set_ftrace_filter"},
	    {o->nftrace_notrace > 0, "set_ftrace_notrace"},
	};

	if (!instance_has_tracer(inst, "function_graph"))
		return "function_graph tracer";
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (need[i].needed && !tracefs_file_exists(inst, need[i].file))
			return need[i].file;
	return NULL;
}

static int put_if(struct sess *s, struct tracefs_instance *in, const char *file, const char *val,
		  struct err_msg *err);

bool sess_graph(const struct rec_opts *o)
{
	return o->ngraph || o->nnotrace || o->max_depth || o->sleep_time >= 0 ||
	       o->graph_irqs >= 0 || o->nftrace_filter || o->nftrace_notrace;
}

int sess_put(struct sess *s, int k, const char *file, const char *val, bool append,
	     struct err_msg *err)
{
	return put(s, s->buf[k].inst, file, val, append, err);
}

struct tracefs_instance *sess_instance(struct sess *s, int k)
{
	return s->buf[k].inst;
}

/* Append each of @v to @file, one write each: a name this kernel lacks fails alone. */
static int put_list(struct sess *s, const char *file, char **v, int n, struct err_msg *err)
{
	for (int i = 0; i < n; i++)
		if (put(s, s->buf[0].inst, file, v[i], true, err))
			return -1;
	return 0;
}

/*
 * The function filters of @o (set_ftrace_filter: -l, --along and the graph
 * roots; set_ftrace_notrace), written before function_graph is switched on
 * (a change of them while it is on patches the kernel's code again). Both
 * are cleared first, also with no filter asked for: a filter left in the
 * top level (by another tool, or the calibration) would trace less than
 * asked without a word.
 */
static int graph_filters(struct sess *s, const struct rec_opts *o, struct err_msg *err)
{
	struct tracefs_instance *in = s->buf[0].inst;

	if (put_if(s, in, "set_ftrace_filter", "", err) ||
	    put_if(s, in, "set_ftrace_notrace", "", err))
		return -1;
	if (!o->nftrace_filter && !o->nftrace_notrace)
		return 0;
	/* the graph's roots are traced only if the filter has them too */
	return put_list(s, "set_ftrace_filter", o->ftrace_filter, o->nftrace_filter, err) ||
			       put_list(s, "set_ftrace_filter", o->graph_roots, o->ngraph, err) ||
			       put_list(s, "set_ftrace_notrace", o->ftrace_notrace,
					o->nftrace_notrace, err)
		   ? -1
		   : 0;
}

struct sess *sess_create(const struct rec_opts *o, const struct rec_caps *c,
			 struct rec_notes *notes, struct err_msg *err)
{
	struct sess *s = calloc(1, sizeof(*s));
	bool graph = sess_graph(o);
	bool unfiltered = false;
	struct tracefs_instance *main = NULL;

	if (!s) {
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	s->undo = -1;
	s->lock = -1;
	if (asprintf(&s->undo_path, REC_UNDO_DIR "/darc-record.%d.undo", (int)getpid()) < 0) {
		s->undo_path = NULL;
		err_setf(err, NULL, "out of memory");
		goto fail;
	}
	lock_run_dir();
	s->undo = open(s->undo_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	s->top_before = top_size();
	s->top_default = (int)undo_expanded_kb(s->top_before);
	for (int i = 0; i < o->nevents; i++)
		unfiltered |= o->events[i].unfiltered;
	if (!o->no_instance && c->instances) {
		main = make_instance(s, "", err);
		if (!main)
			goto fail;
		const char *lacks = graph ? instance_graph_lacks(main, o) : NULL;
		if (lacks) {
			caps_note(notes,
				  "this kernel's instances have no %s: recording the function "
				  "graph in the top-level buffer (restored on exit)",
				  lacks);
			tracefs_instance_destroy(main);
			tracefs_instance_free(main);
			s->nown = 0;
			main = NULL;
		}
	} else if (!o->no_instance) {
		caps_note(notes, "this kernel has no tracefs instances: recording in the top-level "
				"buffer (restored on exit)");
	}
	/* before anything is written at the top level */
	if (!main && take_top(s, notes, err))
		goto fail;
	s->graph = graph;
	s->buf[0] = (struct sess_buffer){.name = "", .inst = main, .pid_filtered = true};
	s->nbuf = 1;
	if (unfiltered) {
		if (c->instances) {
			struct tracefs_instance *all = make_instance(s, "-all", err);
			if (!all)
				goto fail;
			s->buf[1] =
			    (struct sess_buffer){.name = REC_UNFILTERED_BUFFER, .inst = all};
			s->nbuf = 2;
		} else {
			caps_note(notes, "no instances: irq and block events are pid-filtered too");
		}
	}
	return s;
fail:
	sess_free(s);
	return NULL;
}

/* Note event SYS:NAME as enabled in @b (for its format in the bundle). */
static int note_event(struct sess_buffer *b, const char *sys, const char *name, struct err_msg *err)
{
	void *a = realloc(b->event_sys, (b->nevents + 1) * sizeof(char *));
	void *n = a ? realloc(b->event_name, (b->nevents + 1) * sizeof(char *)) : NULL;

	if (a)
		b->event_sys = a;
	if (n)
		b->event_name = n;
	if (!a || !n)
		return err_setf(err, NULL, "out of memory");
	b->event_sys[b->nevents] = strdup(sys);
	b->event_name[b->nevents] = strdup(name);
	b->nevents++;
	return 0;
}

static int enable_event(struct sess *s, struct sess_buffer *b, const char *sys, const char *name,
			const char *filter, struct err_msg *err)
{
	char file[512];

	for (int i = 0; i < b->nevents; i++)
		if (!strcmp(b->event_sys[i], sys) && !strcmp(b->event_name[i], name))
			return 0;
	if (filter) {
		snprintf(file, sizeof(file), "events/%s/%s/filter", sys, name);
		if (put(s, b->inst, file, filter, false, err))
			return -1;
	}
	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, name);
	if (put(s, b->inst, file, "1", false, err))
		return -1;
	return note_event(b, sys, name, err);
}

static int setup_events(struct sess *s, const struct rec_opts *o, struct err_msg *err)
{
	for (int i = 0; i < o->nevents; i++) {
		const struct rec_event *e = &o->events[i];
		struct sess_buffer *b = e->unfiltered && s->nbuf > 1 ? &s->buf[1] : &s->buf[0];
		char **names;
		int rc = 0;

		if (e->name) {
			if (enable_event(s, b, e->sys, e->name, e->filter, err))
				return -1;
			continue;
		}
		/* a whole system: each event by itself, so each can be restored */
		names = tracefs_system_events(NULL, e->sys);
		for (int k = 0; names && names[k] && !rc; k++)
			rc = enable_event(s, b, e->sys, names[k], e->filter, err);
		tracefs_list_free(names);
		if (rc)
			return -1;
	}
	for (int i = 0; i < o->nprobes; i++)
		if (enable_event(s, &s->buf[0], probe_group(o->probes[i].type), o->probes[i].event,
				 NULL, err))
			return -1;
	return 0;
}

/* Write @val to @file where it exists: a filter an instance may lack, asked for by nobody. */
static int put_if(struct sess *s, struct tracefs_instance *in, const char *file, const char *val,
		  struct err_msg *err)
{
	return tracefs_file_exists(in, file) ? put(s, in, file, val, false, err) : 0;
}

/*
 * The graph's filters, cleared first (the top level's may hold anything).
 * sess_create() put the graph where every file asked for exists.
 */
static int setup_graph(struct sess *s, const struct rec_opts *o, struct err_msg *err)
{
	struct tracefs_instance *in = s->buf[0].inst;
	char num[32];

	if (graph_filters(s, o, err) || put_if(s, in, "set_graph_function", "", err) ||
	    put_if(s, in, "set_graph_notrace", "", err))
		return -1;
	for (int i = 0; i < o->ngraph; i++)
		if (put(s, in, "set_graph_function", o->graph_roots[i], true, err))
			return -1;
	for (int i = 0; i < o->nnotrace; i++)
		if (put(s, in, "set_graph_notrace", o->notrace[i], true, err))
			return -1;
	snprintf(num, sizeof(num), "%d", o->max_depth);
	if (o->max_depth ? put(s, in, "max_graph_depth", num, false, err)
			 : put_if(s, in, "max_graph_depth", num, err))
		return -1;
	if (o->sleep_time >= 0 &&
	    put(s, in, "options/sleep-time", o->sleep_time ? "1" : "0", false, err))
		return -1;
	if (o->graph_irqs >= 0 &&
	    put(s, in, "options/funcgraph-irqs", o->graph_irqs ? "1" : "0", false, err))
		return -1;
	if (tracefs_file_exists(in, "options/function-fork") &&
	    put(s, in, "options/function-fork", "1", false, err))
		return -1;
	return put(s, in, "current_tracer", "function_graph", false, err);
}

int sess_setup_buffers(struct sess *s, const struct rec_opts *o, struct err_msg *err)
{
	char num[32];

	for (int i = 0; i < s->nbuf; i++) {
		struct tracefs_instance *in = s->buf[i].inst;

		if (put(s, in, "tracing_on", "0", false, err) ||
		    put(s, in, "trace_clock", o->clock, false, err))
			return -1;
		/* the top level's size is the user's unless asked otherwise */
		if (in || o->buffer_kb) {
			snprintf(num, sizeof(num), "%d",
				 o->buffer_kb ? o->buffer_kb : REC_DEFAULT_BUFFER_KB);
			if (put(s, in, "buffer_size_kb", num, false, err))
				return -1;
		}
		snprintf(num, sizeof(num), "%d", REC_BUFFER_PERCENT);
		if (tracefs_file_exists(in, "buffer_percent") &&
		    put(s, in, "buffer_percent", num, false, err))
			return -1;
		if (s->buf[i].pid_filtered && tracefs_file_exists(in, "options/event-fork") &&
		    put(s, in, "options/event-fork", "1", false, err))
			return -1;
		if (in && tracefs_file_exists(in, "options/record-tgid"))
			tracefs_instance_file_write(in, "options/record-tgid", "1");
		/* the top level may hold the user's old events: they are not ours */
		if (!in && tracefs_instance_file_clear(NULL, "trace") < 0)
			return err_setf(err, NULL, "cannot clear the top-level buffer: %s",
					strerror(errno));
	}
	return 0;
}

int sess_setup(struct sess *s, const struct rec_opts *o, struct err_msg *err)
{
	if (setup_events(s, o, err))
		return -1;
	if (s->graph && setup_graph(s, o, err))
		return -1;
	/* what a calibration left in the buffer (it clears it; a last event may come) */
	tracefs_instance_file_clear(s->buf[0].inst, "trace");
	top_fix(s);
	return 0;
}

int sess_set_pids(struct sess *s, const pid_t *pids, int n, struct err_msg *err)
{
	size_t cap = 16 * (n + 1), len = 0;
	char *list = malloc(cap);
	int rc = 0;

	if (!list)
		return err_setf(err, NULL, "out of memory");
	list[0] = 0;
	for (int i = 0; i < n; i++)
		len += snprintf(list + len, cap - len, "%s%d", i ? " " : "", (int)pids[i]);
	rc = put(s, s->buf[0].inst, "set_event_pid", list, false, err);
	if (!rc && s->graph && tracefs_file_exists(s->buf[0].inst, "set_ftrace_pid"))
		rc = put(s, s->buf[0].inst, "set_ftrace_pid", list, false, err);
	free(list);
	return rc;
}

int sess_tracing(struct sess *s, int on, struct err_msg *err)
{
	for (int i = 0; i < s->nbuf; i++)
		if (put(s, s->buf[i].inst, "tracing_on", on ? "1" : "0", false, err))
			return -1;
	return 0;
}

void sess_quiesce(struct sess *s)
{
	for (int i = 0; i < s->nbuf; i++) {
		struct tracefs_instance *in = s->buf[i].inst;

		tracefs_instance_file_write(in, "tracing_on", "0");
		if (in) {
			tracefs_instance_file_write(in, "events/enable", "0");
			if (s->graph && i == 0)
				tracefs_instance_file_write(in, "current_tracer", "nop");
		}
	}
}

int sess_buffers(struct sess *s, struct sess_buffer **b)
{
	*b = s->buf;
	return s->nbuf;
}

void sess_restore(struct sess *s)
{
	if (!s)
		return;
	/* the top level, newest first: tracing_on (saved first) comes back last */
	for (int i = s->nsaved - 1; i >= 0; i--) {
		undo_restore(s->saved[i].file, s->saved[i].value);
		free(s->saved[i].file);
		free(s->saved[i].value);
	}
	free(s->saved);
	s->saved = NULL;
	s->nsaved = 0;
	for (int i = 0; i < s->nown; i++) {
		if (s->removed)
			break;
		tracefs_instance_file_write(s->own[i], "tracing_on", "0");
		tracefs_instance_file_write(s->own[i], "events/enable", "0");
		tracefs_instance_destroy(s->own[i]);
	}
	s->removed = true;
}





void sess_free(struct sess *s)
{
	if (!s)
		return;
	sess_restore(s);
	if (s->lock >= 0) /* after the last top-level write */
		close(s->lock);
	if (s->undo >= 0) {
		close(s->undo);
		unlink(s->undo_path);
	}
	free(s->undo_path);
	free(s->top_before);
	free(s->top_now);
	for (int i = 0; i < s->nown; i++)
		tracefs_instance_free(s->own[i]);
	for (int i = 0; i < s->nbuf; i++) {
		for (int k = 0; k < s->buf[i].nevents; k++) {
			free(s->buf[i].event_sys[k]);
			free(s->buf[i].event_name[k]);
		}
		free(s->buf[i].event_sys);
		free(s->buf[i].event_name);
	}
	free(s);
}
