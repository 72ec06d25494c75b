// SPDX-License-Identifier: MIT
/*
 * The bundle's manifest: one JSON object (jansson) saying how the recording
 * was made and what it holds beyond the events: darc-record's command line
 * and options, probes, graph roots, target pids and command, start and stop
 * times (wall clock and CLOCK_MONOTONIC, to place the trace clock), lost
 * events per buffer and CPU, the host, the targets' maps and the build-ids
 * of the files they mapped. `darc info` prints it.
 *
 * Also the JSON darc-record --json prints: --check's facts, and the summary
 * of a recording (what the text summary says, and the events per CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "along.h"
#include "calib.h"
#include "caps.h"
#include "config.h"
#include "manifest.h"
#include "probes.h"
#include "rec.h"
#include "target.h"
#include "uprobe.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strings(char **v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* A time as {"sec": ..., "nsec": ..., "iso": ...} (iso only for the wall clock). */
static json_t *when(const struct timespec *ts, bool wall)
{
	json_t *o =
	    json_pack("{sIsI}", "sec", (json_int_t)ts->tv_sec, "nsec", (json_int_t)ts->tv_nsec);

	if (wall) {
		char iso[64];
		struct tm tm;
		gmtime_r(&ts->tv_sec, &tm);
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(iso + strlen(iso), sizeof(iso) - strlen(iso), ".%09ldZ", ts->tv_nsec);
		json_object_set_new(o, "iso", json_string(iso));
	}
	return o;
}

static const char *probe_kind(enum rec_probe_type t)
{
	static const char *const n[] = {"kprobe", "kretprobe", "uprobe", "uretprobe"};
	return n[t];
}

static json_t *probes(const struct rec_opts *o)
{
	json_t *a = json_array();

	for (int i = 0; i < o->nprobes; i++) {
		const struct rec_probe *p = &o->probes[i];
		json_t *j = json_pack("{ssssssssso}", "type", probe_kind(p->type), "spec", p->spec,
				      "system", probe_group(p->type), "event", p->event, "args",
				      p->args ? json_string(p->args) : json_null());
		if (p->file) {
			char id[128];
			json_object_set_new(j, "file", json_string(p->file));
			json_object_set_new(j, "offset", json_integer((json_int_t)p->offset));
			if (!uprobe_build_id(p->file, id, sizeof(id)))
				json_object_set_new(j, "build_id", json_string(id));
		} else {
			json_object_set_new(j, "where", json_string(p->where));
		}
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *graph(const struct rec_opts *o)
{
	if (!o->ngraph && !o->nnotrace && !o->max_depth && o->sleep_time < 0 && o->graph_irqs < 0)
		return json_null();
	return json_pack("{soso sisoso}", "roots", strings(o->graph_roots, o->ngraph), "notrace",
			 strings(o->notrace, o->nnotrace), "max_depth", o->max_depth, "sleep_time",
			 o->sleep_time < 0 ? json_null() : json_boolean(o->sleep_time), "irqs",
			 o->graph_irqs < 0 ? json_null() : json_boolean(o->graph_irqs));
}

static json_t *events(const struct rec_opts *o)
{
	json_t *a = json_array();

	for (int i = 0; i < o->nevents; i++) {
		const struct rec_event *e = &o->events[i];
		char name[256];
		snprintf(name, sizeof(name), "%s%s%s", e->sys, e->name ? ":" : "",
			 e->name ? e->name : "");
		json_array_append_new(a, json_pack("{sssosb}", "event", name, "filter",
						   str_or_null(e->filter), "pid_filtered",
						   !e->unfiltered));
	}
	return a;
}

static json_t *buffers(const struct rec_result *r, json_int_t *lost_total)
{
	json_t *a = json_array();

	for (int b = 0; b < r->nbuffers; b++) {
		const struct rec_buffer_result *br = &r->buffers[b];
		json_t *cpus = json_array(), *evs = json_array();

		for (int i = 0; i < br->nevents; i++) {
			char name[256];
			snprintf(name, sizeof(name), "%s:%s", br->event_sys[i], br->event_name[i]);
			json_array_append_new(evs, json_string(name));
		}
		for (int i = 0; i < br->ncpus; i++) {
			const struct rec_cpu_result *c = &br->cpus[i];
			json_int_t lost = c->overrun + c->dropped + c->commit_overrun;
			*lost_total += lost;
			json_array_append_new(
			    cpus, json_pack("{sisIsIsIsIsIsIsIsIsIsI}", "cpu", c->cpu, "bytes",
					    (json_int_t)c->bytes, "pages", (json_int_t)c->pages,
					    "overrun", (json_int_t)c->overrun, "dropped",
					    (json_int_t)c->dropped, "commit_overrun",
					    (json_int_t)c->commit_overrun, "lost", lost, "events",
					    (json_int_t)c->events, "lost_marked",
					    (json_int_t)c->lost_marked, "lost_marks",
					    (json_int_t)c->lost_marks, "lost_uncounted",
					    (json_int_t)c->lost_uncounted));
		}
		json_array_append_new(a, json_pack("{sssosbsoso}", "name", br->name, "instance",
						   str_or_null(br->instance), "pid_filtered",
						   br->pid_filtered, "events", evs, "cpus", cpus));
	}
	return a;
}

/* The targets' maps, and the build-id of every file they mapped. */
static void maps(const struct target *t, json_t *m)
{
	json_t *procs = json_array(), *ids = json_object();

	for (int i = 0; i < target_nmaps(t); i++) {
		pid_t pid;
		const char *comm, *text;

		target_map(t, i, &pid, &comm, &text);
		json_array_append_new(procs,
				      json_pack("{sissso}", "pid", (int)pid, "comm", comm, "maps",
						text ? json_string(text) : json_null()));
		for (const char *l = text; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			const char *path = strchr(l, '/');
			const char *nl = strchr(l, '\n');
			char file[4096], id[128];

			if (!path || (nl && path > nl))
				continue;
			snprintf(file, sizeof(file), "%.*s",
				 (int)(nl ? nl - path : (long)strlen(path)), path);
			if (json_object_get(ids, file))
				continue;
			json_object_set_new(ids, file,
					    uprobe_build_id(file, id, sizeof(id)) ? json_null()
									       : json_string(id));
		}
	}
	json_object_set_new(m, "processes", procs);
	json_object_set_new(m, "build_ids", ids);
}

/* The threads' thread group ids (saved_tgids lines where TID != TGID). */
static json_t *tgids(const char *text)
{
	json_t *o = json_object();

	for (const char *l = text; l && *l;) {
		int tid, tgid;
		char key[16];

		if (sscanf(l, "%d %d", &tid, &tgid) == 2 && tid != tgid && tgid > 0) {
			snprintf(key, sizeof(key), "%d", tid);
			json_object_set_new(o, key, json_integer(tgid));
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return o;
}

static json_t *command(const struct rec_opts *o)
{
	json_t *a;

	if (!o->command)
		return json_null();
	a = json_array();
	for (int i = 0; o->command[i]; i++)
		json_array_append_new(a, json_string(o->command[i]));
	return a;
}

/* The target's pids and how the command ended, into @tgt. */
static void outcome(const struct target *t, const struct rec_result *r, json_t *tgt)
{
	const pid_t *p;
	int n = target_pids(t, &p);
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(p[i]));
	json_object_set_new(tgt, "pids", a);
	if (r->target_status >= 0 && WIFEXITED(r->target_status))
		json_object_set_new(tgt, "exit_code", json_integer(WEXITSTATUS(r->target_status)));
	else if (r->target_status >= 0 && WIFSIGNALED(r->target_status))
		json_object_set_new(tgt, "killed_by_signal",
				    json_integer(WTERMSIG(r->target_status)));
}

static json_t *host(void)
{
	struct utsname u;
	char name[256] = "";

	uname(&u);
	gethostname(name, sizeof(name) - 1);
	return json_pack("{sssssssssssisi}", "hostname", name, "sysname", u.sysname, "release",
			 u.release, "version", u.version, "machine", u.machine, "cpus",
			 (int)sysconf(_SC_NPROCESSORS_CONF), "online_cpus",
			 (int)sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * The tracer's cost as measured (calib.c): "ns" by mechanism (what darc
 * info shows as tracer_cost_ns), and how each was measured or why not.
 * null when not measured (--no-calibrate).
 */
static json_t *tracer_cost(const struct rec_calib *c)
{
	json_t *ns, *how;

	if (!c->done)
		return json_null();
	ns = json_object();
	how = json_object();
	for (int m = 0; m < MECH_N; m++) {
		const struct rec_cost *k = &c->m[m];
		if (!k->asked)
			continue;
		if (k->measured) {
			json_object_set_new(ns, calib_mech_names[m], json_real(k->ns));
			json_object_set_new(how, calib_mech_names[m],
					    json_pack("{sfsfsf}", "ns", k->ns, "calls_per_iteration",
						      k->calls, "loop_ns", k->loop_ns));
		} else {
			json_object_set_new(how, calib_mech_names[m],
					    json_pack("{ss}", "not_measured", k->why ?: "?"));
		}
	}
	return json_pack("{sosssisfsfsfso}", "ns", ns, "method",
			 "a loop of getppid() (uprobes: of an empty function of darc-record's) "
			 "timed untraced and traced by each mechanism, the fastest of 7 rounds; "
			 "the extra time per traced call",
			 "cpu", c->cpu, "base_ns", c->base_ns, "user_base_ns", c->user_base_ns,
			 "seconds", c->seconds, "mechanisms", how);
}

/* --along: the database, and what was traced from it. */
static json_t *along(const struct rec_opts *o)
{
	const struct rec_along *a = o->along_info;
	json_t *p;

	if (!a)
		return json_null();
	p = a->profile_json ? json_loads(a->profile_json, 0, NULL) : NULL;
	return json_pack("{sssososo sisisisiso}", "db", a->db, "source", str_or_null(a->source),
			 "roots", strings(a->roots, a->nroots), "functions",
			 strings(a->funcs, a->nfuncs), "on_paths", a->npath, "callees",
			 a->nfuncs - a->npath, "callees_left_out", a->elsewhere, "not_traceable",
			 a->nskipped, "profile", p ? p : json_null());
}

char *manifest_json(const struct rec_opts *o, const struct target *t, const struct rec_result *r)
{
	json_t *m = json_object(), *tgt;
	json_int_t lost = 0;
	char *s;

	json_object_set_new(m, "format", json_string("darc-bundle"));
	json_object_set_new(m, "version", json_integer(1));
	json_object_set_new(m, "tool", json_string("darc-record " DARC_VERSION));
	json_object_set_new(m, "command_line", strings(o->argv, o->argc));
	json_object_set_new(m, "host", host());
	json_object_set_new(m, "clock", json_string(r->clock));
	json_object_set_new(m, "page_size", json_integer(r->page_size));
	json_object_set_new(m, "options",
			    json_pack("{sisfsbsbso}", "buffer_size_kb",
				      o->buffer_kb ? o->buffer_kb : REC_DEFAULT_BUFFER_KB,
				      "duration", o->duration, "best_effort", o->best_effort,
				      "no_instance", o->no_instance, "events", events(o)));
	json_object_set_new(m, "graph", graph(o));
	json_object_set_new(m, "functions",
			    json_pack("{soso}", "filter", strings(o->ftrace_filter, o->nftrace_filter),
				      "notrace", strings(o->ftrace_notrace, o->nftrace_notrace)));
	json_object_set_new(m, "along", along(o));
	json_object_set_new(m, "tracer_cost", tracer_cost(&r->cost));
	json_object_set_new(m, "recorder", json_pack("{sis[s]}", "pid", (int)getpid(), "comms",
						     "darc-record"));
	json_object_set_new(m, "probes", probes(o));
	if (r->top_before)
		json_object_set_new(m, "top_buffer",
				    json_pack("{ss ss sb}", "before", r->top_before, "after",
					      r->top_after ? r->top_after : "?", "expanded",
					      r->top_expanded));
	tgt = json_pack("{so}", "command", command(o));
	outcome(t, r, tgt);
	maps(t, tgt);
	json_object_set_new(tgt, "tgids", tgids(r->tgids));
	json_object_set_new(m, "target", tgt);
	json_object_set_new(m, "start",
			    json_pack("{soso}", "realtime", when(&r->start_real, true), "monotonic",
				      when(&r->start_mono, false)));
	json_object_set_new(m, "stop",
			    json_pack("{sososs}", "realtime", when(&r->stop_real, true),
				      "monotonic", when(&r->stop_mono, false), "reason",
				      r->stop_reason));
	json_object_set_new(m, "buffers", buffers(r, &lost));
	json_object_set_new(m, "lost_events", json_integer(lost));
	json_object_set_new(m, "recorder_cpu_s",
			    json_pack("{sfsf}", "user", r->cpu_user, "system", r->cpu_sys));
	json_object_set_new(m, "dropped_options", strings(o->dropped.v, o->dropped.n));
	s = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	return s;
}

/* "local [global] counter": each name, and the one in brackets (in use). */
static json_t *clocks(const char *text, json_t **in_use)
{
	json_t *a = json_array();

	*in_use = json_null();
	for (const char *p = text; p && *p;) {
		size_t n;
		bool sel;

		p += strspn(p, " \n");
		sel = *p == '[';
		p += sel;
		n = strcspn(p, " ]\n");
		if (!n)
			break;
		json_array_append_new(a, json_stringn(p, n));
		if (sel) {
			json_decref(*in_use);
			*in_use = json_stringn(p, n);
		}
		p += n + (p[n] == ']');
	}
	return a;
}

static json_t *list(char **v)
{
	json_t *a = json_array();

	for (int i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* trace_options' lines ("name" set, "noname" not) as {name: set}. */
static json_t *options(const char *text)
{
	json_t *o = json_object();

	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		bool off = n > 2 && !strncmp(l, "no", 2);
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)(n - 2 * off), l + 2 * off);
		if (n)
			json_object_set_new(o, name, json_boolean(!off));
		l += n + (l[n] == '\n');
	}
	return o;
}

char *manifest_caps_json(const struct rec_caps *c, const char *wake_warning)
{
	json_t *in_use, *j = json_pack(
	    "{ss sb sb so so ss sb sb sb sb sb so}", "tracefs", c->dir, "mounted_for_check",
	    c->mounted_by_us, "instances", c->instances, "instances_now", list(c->instances_now),
	    "tracers", list(c->tracers), "current_tracer",
	    c->current_tracer ? c->current_tracer : "", "function_graph", c->function_graph,
	    "kprobes", c->kprobes, "uprobes", c->uprobes, "pid_filter", c->set_event_pid,
	    "function_pid_filter", c->set_ftrace_pid, "event_systems", list(c->systems));
	char *s;

	if (!j)
		return NULL;
	json_object_set_new(j, "clocks", clocks(c->clocks, &in_use));
	json_object_set_new(j, "clock", in_use);
	json_object_set_new(j, "options", options(c->options));
	json_object_set_new(j, "top_level_lock",
			    c->lock_held ? json_pack("{sisb ss}", "pid", (int)c->lock_pid,
						     "held", true, "holder", c->lock_who)
					 : json_pack("{sb}", "held", false));
	json_object_set_new(j, "wake_warning", wake_warning ? json_string(wake_warning) : json_null());
	s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

char *manifest_summary_json(const struct rec_opts *o, const struct target *t,
			    const struct rec_result *r)
{
	json_t *j = json_object(), *bufs, *probe_events = json_array();
	json_int_t lost = 0, events = 0, bytes = 0;
	char *s;

	bufs = buffers(r, &lost);
	for (int b = 0; b < r->nbuffers; b++)
		for (int i = 0; i < r->buffers[b].ncpus; i++) {
			events += r->buffers[b].cpus[i].events;
			bytes += r->buffers[b].cpus[i].bytes;
		}
	for (int i = 0; i < o->nprobes; i++) {
		char name[256];
		snprintf(name, sizeof(name), "%s:%s", probe_group(o->probes[i].type),
			 o->probes[i].event);
		json_array_append_new(probe_events, json_string(name));
	}
	json_object_set_new(j, "bundle", json_string(o->output));
	json_object_set_new(j, "events", json_integer(events));
	json_object_set_new(j, "bytes", json_integer(bytes));
	json_object_set_new(j, "lost_events", json_integer(lost));
	json_object_set_new(j, "stop_reason", json_string(r->stop_reason));
	json_object_set_new(j, "duration_s", json_real(seconds(&r->start_mono, &r->stop_mono)));
	json_object_set_new(j, "command", command(o));
	outcome(t, r, j);
	json_object_set_new(j, "probes", probe_events);
	json_object_set_new(j, "buffers", bufs);
	json_object_set_new(j, "recorder_cpu_s",
			    json_pack("{sfsf}", "user", r->cpu_user, "system", r->cpu_sys));
	json_object_set_new(j, "tracer_cost", tracer_cost(&r->cost));
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}
