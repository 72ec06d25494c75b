// SPDX-License-Identifier: MIT
/*
 * What the kernel allows, found before anything is touched: tracefs, the
 * function_graph tracer, kprobe_events, uprobe_events, instances, the pid
 * filters, every event asked for. A missing piece is reported with the
 * options that need it and what still works; --best-effort drops those
 * options instead (and the manifest says which).
 */
#include <errno.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <tracefs.h>

#include "caps.h"
#include "lock.h"
#include "rec.h"
#include "wake-words.h"

void caps_note(struct rec_notes *l, const char *fmt, ...)
{
	va_list ap;
	char *s;
	void *v;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	if (!v) {
		free(s);
		return;
	}
	l->v = v;
	l->v[l->n++] = s;
}

void caps_notes_free(struct rec_notes *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Is a tracefs mounted anywhere? */
static bool tracefs_mounted(void)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "tracefs"))
			found = true;
	endmntent(f);
	return found;
}

static bool top_file(const char *name)
{
	return tracefs_file_exists(NULL, name);
}

int caps_probe(struct rec_caps *c, struct err_msg *err)
{
	bool was = tracefs_mounted();
	char **tracers;

	memset(c, 0, sizeof(*c));
	/* libtracefs mounts tracefs when it is not mounted */
	c->dir = tracefs_tracing_dir();
	if (!c->dir || !top_file("trace_pipe"))
		return err_setf(err, NULL,
				"no tracefs: it is not mounted and cannot be mounted at "
				"/sys/kernel/tracing (%s)",
				errno ? strerror(errno) : "kernel without CONFIG_FTRACE?");
	c->mounted_by_us = !was && tracefs_mounted();
	c->instances = tracefs_dir_exists(NULL, "instances");
	tracers = c->tracers = tracefs_tracers(NULL);
	for (int i = 0; tracers && tracers[i]; i++)
		if (!strcmp(tracers[i], "function_graph"))
			c->function_graph = true;
	c->kprobes = top_file("kprobe_events");
	c->uprobes = top_file("uprobe_events");
	c->set_event_pid = top_file("set_event_pid");
	c->set_ftrace_pid = top_file("set_ftrace_pid");
	c->clocks = tracefs_instance_file_read(NULL, "trace_clock", NULL);
	return 0;
}

/* The words of tracefs file @name as a libtracefs list, or NULL. */
static char **words(const char *name)
{
	char *text = tracefs_instance_file_read(NULL, name, NULL), *save = NULL;
	char **v = NULL;

	for (char *w = text ? strtok_r(text, " \n", &save) : NULL; w;
	     w = strtok_r(NULL, " \n", &save)) {
		char **n = tracefs_list_add(v, w);
		if (!n)
			break;
		v = n;
	}
	free(text);
	return v;
}

void caps_more(struct rec_caps *c)
{
	/* all of available_tracers (tracefs_tracers leaves out nop) */
	char **all = words("available_tracers");

	if (all) {
		tracefs_list_free(c->tracers);
		c->tracers = all;
	}
	c->systems = tracefs_event_systems(NULL);
	c->instances_now = c->instances ? tracefs_instances(NULL) : NULL;
	c->options = tracefs_instance_file_read(NULL, "trace_options", NULL);
	c->current_tracer = tracefs_instance_file_read(NULL, "current_tracer", NULL);
	if (c->current_tracer)
		c->current_tracer[strcspn(c->current_tracer, "\n")] = 0;
	c->lock_held = lock_holder(&c->lock_pid, c->lock_who, sizeof(c->lock_who));
}

void caps_release(struct rec_caps *c)
{
	if (c->mounted_by_us && c->dir)
		umount2(c->dir, MNT_DETACH);
	free(c->clocks);
	tracefs_list_free(c->tracers);
	tracefs_list_free(c->systems);
	tracefs_list_free(c->instances_now);
	free(c->options);
	free(c->current_tracer);
	memset(c, 0, sizeof(*c));
}

bool caps_has_clock(const struct rec_caps *c, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = c->clocks; p && *p;) {
		p += strspn(p, " [\n");
		if (!strncmp(p, name, n) && strchr(" ]\n", p[n] ? p[n] : ' '))
			return true;
		p += strcspn(p, " ]\n");
		p += strspn(p, "]");
	}
	return false;
}

static bool event_exists(const struct rec_event *e)
{
	char path[512];

	if (e->name)
		snprintf(path, sizeof(path), "events/%s/%s", e->sys, e->name);
	else
		snprintf(path, sizeof(path), "events/%s", e->sys);
	return tracefs_dir_exists(NULL, path);
}

static void free_strings(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Take probes of the types in @mask out of @o. */
static void drop_probes(struct rec_opts *o, unsigned mask)
{
	int k = 0;

	for (int i = 0; i < o->nprobes; i++) {
		struct rec_probe *p = &o->probes[i];
		if (mask & (1u << p->type)) {
			caps_note(&o->dropped, "probe '%s'", p->spec);
			free(p->spec);
			free(p->where);
			free(p->args);
			free(p->event);
			free(p->file);
			continue;
		}
		o->probes[k++] = *p;
	}
	o->nprobes = k;
}

static int count_probes(const struct rec_opts *o, enum rec_probe_type a, enum rec_probe_type b)
{
	int n = 0;

	for (int i = 0; i < o->nprobes; i++)
		n += o->probes[i].type == a || o->probes[i].type == b;
	return n;
}

/* The events that this kernel lacks leave o->events (a default one
   silently); the number of those that are a problem (-e, no --best-effort). */
static int check_events(struct rec_opts *o, struct rec_notes *missing)
{
	int k = 0, problems = 0;

	for (int i = 0; i < o->nevents; i++) {
		struct rec_event *e = &o->events[i];
		if (event_exists(e)) {
			o->events[k++] = *e;
			continue;
		}
		if (!e->is_default) {
			caps_note(missing,
				 "event '%s%s%s' does not exist on this kernel "
				 "(see available_events): -e needs an existing event",
				 e->sys, e->name ? ":" : "", e->name ? e->name : "");
			if (o->best_effort)
				caps_note(&o->dropped, "event '%s%s%s'", e->sys,
					 e->name ? ":" : "", e->name ? e->name : "");
			else
				problems++;
		}
		free(e->sys);
		free(e->name);
		free(e->filter);
	}
	o->nevents = k;
	return problems;
}

int caps_check(const struct rec_caps *c, struct rec_opts *o, struct rec_notes *missing,
	       struct rec_notes *works)
{
	int problems = 0;
	bool graph =
	    o->ngraph || o->nnotrace || o->max_depth || o->sleep_time >= 0 || o->graph_irqs >= 0;
	char have[256] = "";

	if (graph && !c->function_graph) {
		if (o->best_effort) {
			caps_note(&o->dropped, "function_graph (-g, -n, -l, --ftrace-notrace, "
						  "--along, --max-depth, graph options)");
			free_strings(o->graph_roots, o->ngraph);
			free_strings(o->notrace, o->nnotrace);
			free_strings(o->ftrace_filter, o->nftrace_filter);
			free_strings(o->ftrace_notrace, o->nftrace_notrace);
			o->graph_roots = o->notrace = o->ftrace_filter = o->ftrace_notrace = NULL;
			o->ngraph = o->nnotrace = o->nftrace_filter = o->nftrace_notrace = 0;
			o->max_depth = 0;
			o->sleep_time = o->graph_irqs = -1;
		} else {
			problems++;
		}
		caps_note(
		    missing,
		    "the function_graph tracer is not available here (not in available_tracers): "
		    "-g, -n, -l, --ftrace-notrace, --along, --max-depth, --sleep-time and "
		    "--graph-irqs need it");
	}
	if (count_probes(o, PROBE_KPROBE, PROBE_KRETPROBE) && !c->kprobes) {
		if (o->best_effort)
			drop_probes(o, 1u << PROBE_KPROBE | 1u << PROBE_KRETPROBE);
		else
			problems++;
		caps_note(missing, "kprobes are not available here (no kprobe_events in tracefs): "
				  "--kprobe and --kretprobe need them");
	}
	if (count_probes(o, PROBE_UPROBE, PROBE_URETPROBE) && !c->uprobes) {
		if (o->best_effort)
			drop_probes(o, 1u << PROBE_UPROBE | 1u << PROBE_URETPROBE);
		else
			problems++;
		caps_note(missing, "uprobes are not available here (no uprobe_events in tracefs): "
				  "--uprobe, --uretprobe and --ufunc need them");
	}
	if ((o->npids || o->command) && !c->set_event_pid) {
		problems++; /* no pid filter: nothing sensible to fall back to */
		caps_note(missing, "the event pid filter is not available here (no set_event_pid): "
				  "-p and COMMAND need it");
	}
	if (!caps_has_clock(c, o->clock)) {
		problems++;
		caps_note(missing,
			 "trace clock '%s' is not offered here (trace_clock: %s): --clock "
			 "takes one of those",
			 o->clock, c->clocks ? c->clocks : "unreadable");
	}
	problems += check_events(o, missing);
	/* what works, in the options' words */
	if (tracefs_dir_exists(NULL, "events"))
		strcat(have, "tracepoints (-e)");
	if (c->uprobes)
		strcat(have, ", uprobes (--uprobe, --uretprobe, --ufunc)");
	if (c->kprobes)
		strcat(have, ", kprobes (--kprobe, --kretprobe)");
	if (c->function_graph)
		strcat(have, ", function_graph (-g, -n, --max-depth)");
	if (c->set_event_pid)
		strcat(have, ", the pid filter (-p, COMMAND)");
	if (c->instances)
		strcat(have, ", instances");
	caps_note(works, "works here: %s", have[0] == ',' ? have + 2 : have);
	return problems;
}

/* Is @e (a system or one event) one of @sys's events @name (NULL: any)? */
static bool event_is(const struct rec_event *e, const char *sys, const char *name)
{
	return !strcmp(e->sys, sys) && (!e->name || !name || !strcmp(e->name, name));
}

/* Does @e name interrupts: irq_handler_entry, or an irq_vectors entry? */
static bool names_irqs(const struct rec_event *e)
{
	size_t n = e->name ? strlen(e->name) : 0;

	return event_is(e, "irq", "irq_handler_entry") ||
	       (!strcmp(e->sys, "irq_vectors") && (!n || (n > 6 && !strcmp(e->name + n - 6, "_entry"))));
}

const char *caps_wake_warning(const struct rec_caps *c, const struct rec_opts *o, char *buf,
			      size_t size)
{
	const struct rec_event *irq = NULL;
	bool wakeups = false;

	for (int i = 0; i < o->nevents; i++) {
		const struct rec_event *e = &o->events[i];
		wakeups |= event_is(e, "sched", "sched_waking") || event_is(e, "sched", "sched_wakeup");
		if (names_irqs(e) && (!irq || (irq->filter && !e->filter)))
			irq = e;
	}
	if (!wakeups)
		return NULL;
	if (!irq)
		snprintf(buf, size, "the recording will have " WAKE_NO_IRQ " (no irq or irq_vectors"
			 " among the events): what ends a sleep in a hard interrupt " WAKE_UNNAMED
			 " (" WAKE_RECORD_IRQ ": -e irq -e irq_vectors)");
	else if (!c->instances)
		snprintf(buf, size, WAKE_IDLE " will not be in the recording (this kernel has no"
			 " tracefs instances, so irq events are pid-filtered too): what ends a sleep"
			 " in them " WAKE_UNNAMED " (" WAKE_EVERY_CPU ", with a recorder that does not"
			 " filter them by pid)");
	else if (irq->filter)
		snprintf(buf, size, "the filter '%s' of %s%s%s leaves interrupts out of the"
			 " recording (" WAKE_IDLE ", say): what ends a sleep in them " WAKE_UNNAMED
			 " (" WAKE_RECORD_IRQ " without a filter)", irq->filter, irq->sys,
			 irq->name ? ":" : "", irq->name ? irq->name : "");
	else
		return NULL;
	return buf;
}
