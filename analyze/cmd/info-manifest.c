// SPDX-License-Identifier: MIT
/*
 * darc info's summary of a darc-record manifest. The manifest keeps the
 * thread group of every thread the kernel had seen (saved_tgids: about a
 * thousand on a busy host), so that a thread can be placed in its process;
 * of those, the summary names only the target's: its pids, the processes
 * darc-record saw it make, and their threads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <traceevent/event-parse.h>

#include "info-manifest.h"
#include "vis.h"

#define MAX_THREADS_SHOWN 32 /* the rest are counted: --json has them */

/* The command line, words separated by spaces (each escaped). */
static void print_command(json_t *tgt)
{
	json_t *cmd = json_object_get(tgt, "command"), *w, *code, *sig;
	size_t i;

	if (!json_is_array(cmd))
		return;
	printf("command:     ");
	json_array_foreach(cmd, i, w) {
		const char *word = json_is_string(w) ? json_string_value(w) : "?";
		/* quoted as a shell would need it, so that the words stay apart */
		bool q = !*word || strpbrk(word, " \t\"$;&|<>()*?[]~#`\\");
		printf(q && !strchr(word, '\'') ? " '%s'" : " %s", vis(word));
	}
	code = json_object_get(tgt, "exit_code");
	sig = json_object_get(tgt, "killed_by_signal");
	if (json_is_integer(code))
		printf(" (exit %" JSON_INTEGER_FORMAT ")", json_integer_value(code));
	else if (json_is_integer(sig))
		printf(" (killed by signal %" JSON_INTEGER_FORMAT ")", json_integer_value(sig));
	else
		printf(" (still running when the recording ended)");
	putchar('\n');
}

/* Is @pid among the target's processes (@pids, then the processes seen)? */
static bool is_target(json_t *pids, json_t *procs, json_int_t pid)
{
	size_t i;
	json_t *v;

	json_array_foreach(pids, i, v)
		if (json_integer_value(v) == pid)
			return true;
	json_array_foreach(procs, i, v)
		if (json_integer_value(json_object_get(v, "pid")) == pid)
			return true;
	return false;
}

static int by_value(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return (x > y) - (x < y);
}

/* Add @tid to @v (of @n) unless there. */
static void add_tid(json_int_t *v, size_t *n, json_int_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == tid)
			return;
	v[(*n)++] = tid;
}

/* The target's threads: its processes, and the threads whose group is one. */
static void print_threads(json_t *tgt, struct tep_handle *tep)
{
	json_t *pids = json_object_get(tgt, "pids"), *procs = json_object_get(tgt, "processes");
	json_t *tgids = json_object_get(tgt, "tgids"), *v;
	size_t cap = json_array_size(pids) + json_array_size(procs) + json_object_size(tgids);
	json_int_t *tids = malloc((cap ? cap : 1) * sizeof(*tids));
	size_t n = 0, i;
	const char *key;

	if (!tids)
		return;
	json_array_foreach(pids, i, v)
		add_tid(tids, &n, json_integer_value(v));
	json_array_foreach(procs, i, v)
		add_tid(tids, &n, json_integer_value(json_object_get(v, "pid")));
	json_object_foreach(tgids, key, v)
		if (is_target(pids, procs, json_integer_value(v)))
			add_tid(tids, &n, strtoll(key, NULL, 10));
	qsort(tids, n, sizeof(*tids), by_value);
	printf("threads:      %zu of the target", n);
	if (json_object_size(tgids))
		printf(" (the manifest places %zu threads of the host: --json)",
		       json_object_size(tgids));
	putchar('\n');
	for (i = 0; i < n && i < MAX_THREADS_SHOWN; i++)
		printf("  %8" JSON_INTEGER_FORMAT "  %s\n", tids[i],
		       vis(tep_data_comm_from_pid(tep, (int)tids[i])));
	if (n > MAX_THREADS_SHOWN)
		printf("  ... and %zu more\n", n - MAX_THREADS_SHOWN);
	free(tids);
}

/* The events of probe @p in the recording (@counts by event type id). */
static uint64_t probe_events(json_t *p, struct tep_handle *tep, const uint64_t *counts)
{
	const char *sys = json_string_value(json_object_get(p, "system"));
	const char *ev = json_string_value(json_object_get(p, "event"));
	struct tep_event *e = sys && ev ? tep_find_event_by_name(tep, sys, ev) : NULL;

	return e ? counts[e->id] : 0;
}

/* Probes by kind: the events of the kind, then of each probe. */
static void print_probes(json_t *probes, struct tep_handle *tep, const uint64_t *counts)
{
	static const char *const kinds[] = {"kprobe", "kretprobe", "uprobe", "uretprobe"};
	size_t i;
	json_t *p;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		const char *sep = ": ";
		uint64_t total = 0;
		int n = 0;
		char label[16];

		json_array_foreach(probes, i, p)
			if (json_is_string(json_object_get(p, "event")) &&
			    !strcmp(json_string_value(json_object_get(p, "type")) ?: "", kinds[k])) {
				total += probe_events(p, tep, counts);
				n++;
			}
		if (!n)
			continue;
		snprintf(label, sizeof(label), "%ss:", kinds[k]);
		printf("%-14s%" PRIu64 " events", label, total);
		json_array_foreach(probes, i, p)
			if (json_is_string(json_object_get(p, "event")) &&
			    !strcmp(json_string_value(json_object_get(p, "type")) ?: "", kinds[k])) {
				printf("%s%s %" PRIu64, sep,
				       vis(json_string_value(json_object_get(p, "event"))),
				       probe_events(p, tep, counts));
				sep = ", ";
			}
		putchar('\n');
	}
}

/* The mechanisms darc-record could not measure, and why: one line each. */
static void print_not_measured(json_t *how)
{
	const char *key;
	json_t *v;

	json_object_foreach(how, key, v)
		if (json_is_string(json_object_get(v, "not_measured")))
			printf("tracer cost:  %s not measured: %s\n", vis(key),
			       vis(json_string_value(json_object_get(v, "not_measured"))));
}

void info_manifest(const char *text, struct tep_handle *tep, const uint64_t *counts)
{
	json_t *m = json_loads(text, 0, NULL), *tgt, *pids, *v, *stop;
	size_t i;

	if (!json_is_object(m)) {
		printf("manifest:     not JSON (%zu bytes; --json shows it)\n", strlen(text));
		json_decref(m);
		return;
	}
	tgt = json_object_get(m, "target");
	stop = json_object_get(m, "stop");
	printf("manifest:     %s (--json shows it whole)\n",
	       vis(json_string_value(json_object_get(m, "tool")) ?: "?"));
	print_command(tgt);
	pids = json_object_get(tgt, "pids");
	printf("target pids: ");
	json_array_foreach(pids, i, v)
		printf(" %" JSON_INTEGER_FORMAT, json_integer_value(v));
	printf("%s\n", json_array_size(pids) ? "" : " none");
	if (json_is_string(json_object_get(stop, "reason")))
		printf("stopped:      %s\n", vis(json_string_value(json_object_get(stop, "reason"))));
	print_probes(json_object_get(m, "probes"), tep, counts);
	if (json_is_null(json_object_get(m, "tracer_cost"))) /* bundles before it have none */
		printf("tracer cost:  not measured (darc-record --no-calibrate)\n");
	print_not_measured(json_object_get(json_object_get(m, "tracer_cost"), "mechanisms"));
	print_threads(tgt, tep);
	json_decref(m);
}
