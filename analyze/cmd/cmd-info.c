// SPDX-License-Identifier: MIT
/*
 * darc info: what a recording holds. It walks every event (counting them
 * per event name and per CPU), so it also checks the whole file and doubles
 * as the parse benchmark.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <traceevent/event-parse.h>

#include "cmd.h"
#include "decode.h"
#include "explain-wake.h"
#include "fmt.h"
#include "funcs.h"
#include "info-manifest.h"
#include "jtext.h"
#include "reader.h"
#include "show.h"
#include "tracer-cost.h"
#include "vis.h"

static const char usage_text[] =
	"usage: darc info [--json] FILE\n\n"
	"Show what a recording holds: format and version, compression, kernel,\n"
	"clock, CPUs, trace buffers, time span, events per event name, and lost\n"
	"events per CPU (marks in the ring-buffer pages, and the overrun counts\n"
	"the recorder saved), and what the reader passed over on purpose (options\n"
	"of unknown type, malformed metadata lines; perf.data samples of events\n"
	"that are no tracepoint, records not needed), counted; and a warning when\n"
	"what ended its tasks' sleeps cannot be named (wake-ups from interrupts no\n"
	"recorded event names). An event whose format darc refused (one that would\n"
	"crash libtraceevent, or that it cannot parse) is named with why.\n"
	"Every event is read, so a corrupt file fails here.\n\n"
	"  --json   one JSON object on stdout, for scripts\n"
	"  -h, --help\n";

struct count {
	uint64_t n;
	uint16_t type;
};

static int by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (int)x->type - (int)y->type;
}

/* The format of id @type that the reader refused, or NULL. */
static const struct fmt_refused *refused_of(const struct fmt_info *info, uint16_t type)
{
	for (int i = 0; i < info->nrefused; i++)
		if (info->refused[i].id == type)
			return &info->refused[i];
	return NULL;
}

static const char *event_label(struct tep_handle *tep, uint16_t type, char *buf, size_t n)
{
	struct tep_event *e = tep_find_event(tep, type);

	if (e)
		snprintf(buf, n, "%s:%s", e->system, e->name);
	else
		snprintf(buf, n, "unknown:%u", type);
	return buf;
}

/*
 * The events of id @type as the text names them: event_label(), or, where
 * its format was refused, "sched:sched_switch (format refused: WHY)".
 */
static void print_event_label(struct fmt_reader *r, uint16_t type)
{
	const struct fmt_refused *x = refused_of(fmt_reader_info(r), type);
	char label[256];

	if (!x) {
		fputs(vis(event_label(fmt_reader_tep(r), type, label, sizeof(label))), stdout);
		return;
	}
	fputs(vis(x->event), stdout);
	printf(" (format refused: %s)", x->why);
}

/* The "overrun: N" line of a CPU's saved stats, or -1. */
static int64_t stats_overrun(const char *stats, int cpu)
{
	char key[32];
	const char *p;

	if (!stats)
		return -1;
	snprintf(key, sizeof(key), "CPU: %d\n", cpu);
	p = strstr(stats, key);
	if (!p)
		return -1;
	p = strstr(p, "overrun: ");
	return p ? strtoll(p + 9, NULL, 10) : -1;
}

/* What the reader passed over on purpose, counted: one line, if anything. */
static void print_skipped(const struct fmt_info *info)
{
	const char *sep = "";

	if (!info->unknown_options && !info->bad_lines && !info->skipped_samples &&
	    !info->skipped_records && !info->skipped)
		return;
	printf("skipped:      ");
	if (info->skipped) { /* the text reader's own account */
		printf("%s", info->skipped);
		sep = ", ";
	}
	if (info->unknown_options) {
		printf("%d options of unknown type", info->unknown_options);
		sep = ", ";
	}
	if (info->bad_lines) {
		printf("%s%d malformed kallsyms/printk/cmdline lines", sep, info->bad_lines);
		sep = ", ";
	}
	if (info->skipped_samples) {
		printf("%s%" PRIu64 " samples of events that are no tracepoint with RAW data", sep,
		       info->skipped_samples);
		sep = ", ";
	}
	if (info->skipped_records)
		printf("%s%" PRIu64 " records not needed (MMAP, EXIT, ...)", sep,
		       info->skipped_records);
	putchar('\n');
}

static const char *const option_use[] = {"applied", "shown", "not applied"};

/*
 * How the timestamps were brought to ns, or why they are not ns, and the
 * options not applied: lines only where there is something to say.
 */
static void print_clock(const struct fmt_info *info)
{
	if (info->ts_not_ns)
		printf("timestamps:   %s (analysis refuses the file)\n", info->ts_not_ns);
	if (info->ts_conv)
		printf("timestamps:   %s\n", info->ts_conv);
	if (!info->ts_report_secs && !info->ts_not_ns)
		printf("timestamps:   ns; trace-cmd report prints them as counts (it takes clock "
		       "%s for no time)\n", vis(info->trace_clock));
	for (int i = 0; i < info->noptions; i++) {
		const struct fmt_option *o = &info->options[i];

		if (!strcmp(o->name, "GUEST") && o->use == FMT_OPTION_SHOWN)
			printf("guest:        %s\n", vis(o->note));
		if (o->use == FMT_OPTION_IGNORED)
			printf("not applied:  option %s (id %u): %s\n", o->name, o->id, vis(o->note));
	}
}

/* The clock, the conversions and every option with what darc did with it, as JSON. */
static json_t *clock_json(const struct fmt_info *info)
{
	json_t *opts = json_array(), *ign = json_array();

	for (int i = 0; i < info->noptions; i++) {
		const struct fmt_option *o = &info->options[i];

		json_array_append_new(opts, json_pack("{s:i, s:s, s:s, s:o}", "id", o->id, "name",
						      o->name, "use", option_use[o->use], "note",
						      jtext(o->note)));
		if (o->use == FMT_OPTION_IGNORED)
			json_array_append_new(ign, json_pack("{s:i, s:s, s:o}", "id", o->id, "name",
							     o->name, "why", jtext(o->note)));
	}
	return json_pack("{s:o, s:s, s:o, s:o, s:b, s:I, s:o, s:o}", "trace_clock",
			 info->trace_clock ? jtext(info->trace_clock) : json_null(), "unit",
			 info->ts_not_ns ? "counts" : "ns", "conversion",
			 info->ts_conv ? jtext(info->ts_conv) : json_null(), "not_ns",
			 info->ts_not_ns ? jtext(info->ts_not_ns) : json_null(),
			 "report_seconds", info->ts_report_secs, "offset_ns",
			 (json_int_t)info->ts_offset, "options", opts, "options_not_applied", ign);
}

/* Every event of the recording, counted by type, with the first and last time. */
struct tally {
	uint64_t *counts; /* by event type: 65536 */
	uint64_t total, first, last;
	struct count *sorted; /* the types seen, most events first */
	int nsorted;
	struct wake_evidence *wake; /* what names the wakers (explain-wake.h) */
	/* the graph tracer's cost a call, estimated from its entries and exits */
	struct funcs *fs;
	struct decoder *dec; /* NULL once it failed (then failed says why) */
	char *failed;	     /* the decoder's error: damaged kallsyms, out of memory */
	struct cost_est *tc;
	uint8_t *graph; /* by event type: 0 not looked at, 1 a graph entry or exit, 2 not */
};

/* Is event type @ev one of function_graph's (or uftrace's) entries and exits? */
static bool graph_event(struct tally *t, const struct fmt_event *ev)
{
	if (!t->graph[ev->type]) {
		const char *name = ev->event ? ev->event->name : "";
		t->graph[ev->type] = !strcmp(name, "funcgraph_entry") ||
					     !strcmp(name, "fgraph_retaddr_entry") ||
					     !strcmp(name, "funcgraph_exit")
					 ? 1
					 : 2;
	}
	return t->graph[ev->type] == 1;
}

/*
 * Feed @ev to the estimate: a graph event decoded, any other as an event
 * between them (an entry and an exit are a leaf call only when adjacent).
 * The decoder reads the kallsyms at the first kernel address, and fails
 * where the analysis would (a damaged section): info fails with its words.
 */
static void estimate(struct tally *t, const struct fmt_event *ev)
{
	struct analysis_event a = {
	    .kind = EVENT_OTHER, .cpu = ev->cpu, .pid = ev->pid, .t = (int64_t)ev->ts};

	if (!t->dec)
		return;
	if ((graph_event(t, ev) && decode(t->dec, ev, &a)) || cost_est_feed(t->tc, &a, false)) {
		t->failed = strdup(decode_error(t->dec));
		decode_free(t->dec);
		t->dec = NULL;
	}
}

/* The decoder and estimator of @t for @r. 0, or -1 (out of memory). */
static int estimate_init(struct tally *t, struct fmt_reader *r)
{
	const struct fmt_info *info = fmt_reader_info(r);

	t->graph = calloc(65536, 1);
	t->fs = funcs_new();
	t->tc = cost_est_new();
	t->dec = t->fs ? decode_new(r, t->fs, decode_syscall_abi(info->uname, info->long_size,
							       info->big_endian))
		       : NULL;
	return t->graph && t->fs && t->tc && t->dec ? 0 : -1;
}

/*
 * The tracer's cost a traced call, by mechanism: darc-record's measured ones
 * (the manifest's) and the graph's estimated from the recording where not
 * measured, each {"ns", "source", ...} (tracer-cost.h); null when the
 * recording used none. *@ns gets the numbers alone, by mechanism.
 */
static json_t *cost_json(const struct tally *t, const struct fmt_info *info, json_t **ns)
{
	char *s = t->dec ? cost_est_json(t->tc, decode_manifest(t->dec),
				       !strncmp(info->format, "uftrace", 7) ? TC_GRAPH_UFTRACE
									  : NULL)
			 : NULL;
	json_t *o = s ? json_loads(s, 0, NULL) : NULL, *v;
	const char *k;
	void *tmp;

	free(s);
	*ns = json_object();
	json_object_foreach_safe(o, tmp, k, v) {
		const char *src = json_string_value(json_object_get(v, "source"));
		bool graph = !strcmp(k, cost_mech_names[TC_FGRAPH]) || !strcmp(k, TC_GRAPH_UFTRACE);
		if (!graph && (!src || strcmp(src, "measured"))) {
			json_object_del(o, k); /* info tells other events apart by name only */
			continue;
		}
		if (!graph)
			json_object_del(v, "events");
		if (json_is_number(json_object_get(v, "ns")))
			json_object_set(*ns, k, json_object_get(v, "ns"));
	}
	return o && json_object_size(o) ? o : (json_decref(o), json_null());
}

/*
 * "tracer cost:  function_graph 5308 ns, kprobe 3012 ns a traced call,
 * measured by darc-record (function_graph estimated from the recording:
 * 3871 ns)", or "... 1583 ns a traced call, estimated from the recording
 * (how)", or "function_graph not known: ...".
 */
static void print_cost(const struct tally *t, const struct fmt_info *info)
{
	json_t *ns, *o = cost_json(t, info, &ns), *v;
	const char *k, *sep = "", *est_key = NULL;
	json_t *est = NULL;

	json_decref(ns);
	if (!json_is_object(o))
		return;
	printf("tracer cost:  ");
	json_object_foreach(o, k, v) { /* the measured ones first */
		const char *src = json_string_value(json_object_get(v, "source"));
		if (src && !strcmp(src, "measured")) {
			printf("%s%s %.0f ns", sep, vis(k), json_number_value(json_object_get(v, "ns")));
			sep = ", ";
			if (json_is_number(json_object_get(v, "estimated_ns")))
				est_key = k, est = json_object_get(v, "estimated_ns");
		}
	}
	if (*sep)
		printf(" a traced call, measured by darc-record");
	if (est)
		printf(" (%s estimated from the recording: %.0f ns)", vis(est_key),
		       json_number_value(est));
	json_object_foreach(o, k, v) { /* then the graph's, when not measured */
		const char *src = json_string_value(json_object_get(v, "source"));
		if (src && !strcmp(src, "measured"))
			continue;
		if (json_is_number(json_object_get(v, "ns")))
			printf("%s%s %.0f ns a traced call, estimated from the recording (%s)",
			       *sep ? "; " : "", vis(k), json_number_value(json_object_get(v, "ns")),
			       json_string_value(json_object_get(v, "note")) ?: "");
		else
			printf("%s%s not known: too few leaf calls of any one function to "
			       "estimate it from", *sep ? "; " : "", vis(k));
	}
	putchar('\n');
	json_decref(o);
}

static void estimate_free(struct tally *t)
{
	free(t->failed);
	decode_free(t->dec);
	funcs_free(t->fs);
	cost_est_free(t->tc);
	free(t->graph);
}

/* Read every event of @r into @t. 0, or -1 with @err set. */
static int count_events(struct fmt_reader *r, struct tally *t, struct err_msg *err)
{
	struct fmt_event ev;
	int n;

	t->counts = calloc(65536, sizeof(*t->counts));
	t->sorted = malloc(sizeof(*t->sorted) * 65536);
	t->wake = calloc(1, sizeof(*t->wake));
	if (!t->counts || !t->sorted || !t->wake || estimate_init(t, r))
		return err_setf(err, NULL, "out of memory");
	while ((n = fmt_reader_next(r, &ev, err)) > 0) {
		if (!t->total)
			t->first = ev.ts;
		t->last = ev.ts;
		t->total++;
		t->counts[ev.type]++;
		wake_evidence_add(t->wake, ev.type, ev.event ? ev.event->system : NULL,
				  ev.event ? ev.event->name : NULL, ev.pid, ev.flags);
		estimate(t, &ev);
	}
	if (n < 0)
		return -1;
	for (int type = 0; type < 65536; type++)
		if (t->counts[type])
			t->sorted[t->nsorted++] = (struct count){t->counts[type], (uint16_t)type};
	qsort(t->sorted, t->nsorted, sizeof(*t->sorted), by_count);
	return 0;
}

/* The buffers of @r with each CPU's events, losses and overruns, as JSON. */
static json_t *buffers_json(struct fmt_reader *r)
{
	const struct fmt_info *info = fmt_reader_info(r);
	json_t *bufs = json_array();

	for (int b = 0; b < info->nbuffers; b++) {
		const struct fmt_buffer *fb = &info->buffers[b];
		json_t *bo = json_object(), *cpus = json_array();
		json_object_set_new(bo, "name", jtext(fb->name));
		json_object_set_new(bo, "clock", jtext(fb->clock));
		for (int i = 0; i < fb->ncpus; i++) {
			const struct fmt_cpu_stats *st = fmt_reader_cpu_stats(r, b, i);
			json_t *co = json_object();
			int64_t ov = stats_overrun(fb->cpustats, fb->cpu_ids[i]);
			json_object_set_new(co, "cpu", json_integer(fb->cpu_ids[i]));
			json_object_set_new(co, "bytes", json_integer(fb->bytes[i]));
			json_object_set_new(co, "events", json_integer(st ? st->events : 0));
			json_object_set_new(co, "lost", json_integer(st ? st->lost : 0));
			json_object_set_new(co, "lost_marks", json_integer(st ? st->lost_marks : 0));
			json_object_set_new(co, "lost_uncounted",
					    json_integer(st ? st->lost_uncounted : 0));
			json_object_set_new(co, "overrun", ov < 0 ? json_null() : json_integer(ov));
			json_array_append_new(cpus, co);
		}
		json_object_set_new(bo, "cpus", cpus);
		json_array_append_new(bufs, bo);
	}
	return bufs;
}

/* What the reader passed over on purpose, counted, as JSON. */
static json_t *skipped_json(const struct fmt_info *info)
{
	return json_pack("{s:i, s:i, s:I, s:I, s:o}", "unknown_options", info->unknown_options,
			 "bad_metadata_lines", info->bad_lines, "samples",
			 (json_int_t)info->skipped_samples, "records",
			 (json_int_t)info->skipped_records, "text",
			 info->skipped ? jtext(info->skipped) : json_null());
}

/* The formats the reader refused, each with its events (their id's in events_by_name). */
static json_t *refused_json(const struct fmt_info *info)
{
	json_t *a = json_array();

	for (int i = 0; i < info->nrefused; i++) {
		const struct fmt_refused *x = &info->refused[i];
		json_array_append_new(a, json_pack("{s:o, s:i, s:s, s:I}", "event", jtext(x->event),
						   "id", x->id, "why", x->why, "events",
						   (json_int_t)x->events));
	}
	return a;
}

static int print_json(struct fmt_reader *r, const struct tally *t, struct err_msg *err)
{
	const struct fmt_info *info = fmt_reader_info(r);
	json_t *o = json_object(), *ev_o = json_object(), *ns, *cost = cost_json(t, info, &ns);
	char label[256];
	int rc;

	json_object_set_new(o, "file", jtext(info->path));
	json_object_set_new(o, "format", jtext(info->format));
	json_object_set_new(o, "version", json_integer(info->version));
	json_object_set_new(o, "big_endian", json_boolean(info->big_endian));
	json_object_set_new(o, "long_size", json_integer(info->long_size));
	json_object_set_new(o, "page_size", json_integer(info->page_size));
	json_object_set_new(o, "compression", jtext(info->compression));
	json_object_set_new(o, "compression_version", jtext(info->compression_ver));
	json_object_set_new(o, "uname", info->uname ? jtext(info->uname) : json_null());
	json_object_set_new(o, "tracer_version",
			    info->tracer_version ? jtext(info->tracer_version) : json_null());
	json_object_set_new(o, "clock", jtext(info->clock));
	json_object_set_new(o, "timestamps", clock_json(info));
	json_object_set_new(o, "cpus", json_integer(info->cpus));
	json_object_set_new(o, "events", json_integer(t->total));
	json_object_set_new(o, "first_ts", json_integer(t->first));
	json_object_set_new(o, "last_ts", json_integer(t->last));
	json_object_set_new(o, "span_ns", json_integer(t->last - t->first));
	json_object_set_new(o, "event_formats", json_integer(info->nevent_formats));
	json_object_set_new(o, "unknown_options", json_integer(info->unknown_options));
	json_object_set_new(o, "skipped", skipped_json(info));
	json_object_set_new(o, "lacks", info->lacks ? jtext(info->lacks) : json_null());
	for (int i = 0; i < t->nsorted; i++)
		json_object_set_new(ev_o,
				    event_label(fmt_reader_tep(r), t->sorted[i].type, label,
						sizeof(label)),
				    json_integer(t->sorted[i].n));
	json_object_set_new(o, "events_by_name", ev_o);
	if (info->nrefused)
		json_object_set_new(o, "refused_formats", refused_json(info));
	/* explain's evidence of who ended a sleep (explain-wake.h) */
	json_object_set_new(o, "warning", wake_evidence_warning(t->wake, label, sizeof(label))
						  ? json_string(label) : json_null());
	json_object_set_new(o, "buffers", buffers_json(r));
	/* by mechanism: darc-record's measured, or the graph's estimated from the recording */
	json_object_set_new(o, "tracer_cost_ns", json_is_object(cost) ? ns : json_null());
	json_object_set_new(o, "tracer_cost", cost);
	if (!json_is_object(cost))
		json_decref(ns);
	if (info->manifest_json) {
		json_t *m = json_loads(info->manifest_json, 0, NULL);
		json_object_set_new(o, "manifest", m ? m : jtext(info->manifest_json));
	}
	rc = show_json_to(stdout, "info", NULL, o, err);
	json_decref(o);
	return rc;
}

/* Each buffer of @r, and its CPUs' events, losses and overruns, as text. */
static void print_buffers(struct fmt_reader *r)
{
	const struct fmt_info *info = fmt_reader_info(r);

	for (int b = 0; b < info->nbuffers; b++) {
		const struct fmt_buffer *fb = &info->buffers[b];
		printf("buffer:       %s%s%s, %d cpus, clock %s\n", *fb->name ? "'" : "",
		       *fb->name ? vis(fb->name) : "top", *fb->name ? "'" : "", fb->ncpus,
		       vis(fb->clock));
		for (int i = 0; i < fb->ncpus; i++) {
			const struct fmt_cpu_stats *st = fmt_reader_cpu_stats(r, b, i);
			int64_t ov = stats_overrun(fb->cpustats, fb->cpu_ids[i]);
			printf("  cpu %-4d %10" PRIu64 " events, lost %" PRIu64 " in %" PRIu64
			       " marks",
			       fb->cpu_ids[i], st->events, st->lost, st->lost_marks);
			if (st->lost_uncounted)
				printf(" (%" PRIu64 " uncounted)", st->lost_uncounted);
			if (ov >= 0)
				printf(", overrun %" PRId64 " at record time", ov);
			putchar('\n');
		}
	}
}

static void print_text(struct fmt_reader *r, struct tally *t)
{
	const struct fmt_info *info = fmt_reader_info(r);
	char label[256];

	printf("file:         %s\n", vis(info->path));
	if (info->version) /* a binary format */
		printf("format:       %s v%d, %s-endian, %d-byte long, %d-byte pages\n",
		       info->format, info->version, info->big_endian ? "big" : "little",
		       info->long_size, info->page_size);
	else
		printf("format:       %s\n", info->format);
	printf("compression:  %s%s%s\n", vis(info->compression), *info->compression_ver ? " " : "",
	       vis(info->compression_ver));
	printf("kernel:       %s\n", info->uname ? vis(info->uname) : "(not recorded)");
	if (info->tracer_version)
		printf("recorded by:  %s\n", vis(info->tracer_version));
	if (info->lacks)
		printf("lacks:        %s (the format does not record them)\n", info->lacks);
	printf("clock:        %s\n", vis(info->clock));
	print_clock(info);
	printf("cpus:         %d\n", info->cpus);
	printf("events:       %" PRIu64 "\n", t->total);
	print_skipped(info);
	if (t->total && info->ts_not_ns) /* counts of a clock, no seconds */
		printf("time span:    %" PRIu64 " .. %" PRIu64 " (%" PRIu64 " %s counts)\n",
		       t->first, t->last, t->last - t->first, vis(info->trace_clock));
	else if (t->total)
		printf("time span:    %" PRIu64 ".%09" PRIu64 " .. %" PRIu64 ".%09" PRIu64
		       " (%.6f s)\n",
		       t->first / 1000000000, t->first % 1000000000, t->last / 1000000000,
		       t->last % 1000000000, (t->last - t->first) / 1e9);
	print_buffers(r);
	if (info->manifest_json)
		info_manifest(info->manifest_json, fmt_reader_tep(r), t->counts);
	print_cost(t, info);
	printf("events by name:\n");
	for (int i = 0; i < t->nsorted; i++) {
		printf("  %12" PRIu64 "  ", t->sorted[i].n);
		print_event_label(r, t->sorted[i].type);
		putchar('\n');
	}
	/* explain's evidence of who ended a sleep (explain-wake.h) */
	if (wake_evidence_warning(t->wake, label, sizeof(label)))
		printf("warning:      %s\n", label);
}

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
{
	*(bool *)args = true; /* --json, its only option */
	return 0;
}

static int run(struct cmd_ctx *ctx, void *args)
{
	struct tally t = {0};
	int rc = count_events(ctx->reader, &t, &ctx->err);

	/* and the kallsyms, left for later at open: a damaged section fails here too
	   (or already did, as the graph's events were decoded) */
	if (!rc && t.failed)
		rc = err_setf(&ctx->err, NULL, "%s", t.failed);
	if (!rc)
		rc = fmt_reader_load_kallsyms(ctx->reader, &ctx->err);
	if (!rc && *(bool *)args)
		rc = print_json(ctx->reader, &t, &ctx->err);
	else if (!rc)
		print_text(ctx->reader, &t);
	free(t.sorted);
	free(t.counts);
	free(t.wake);
	estimate_free(&t);
	return rc;
}

static const struct option opts[] = {
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static bool json;

const struct cmd cmd_info = {
	.usage_head = usage_text, .opts = opts, .shortopts = "jh", .take = take, .run = run,
	.args = &json, .nargs = 1,
};
