// SPDX-License-Identifier: MIT
/*
 * darc-record: record what darc analyzes, on the box where it happens.
 * This file reads the options and hands them to record_run() or reset_run().
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "along.h"
#include "caps.h"
#include "config.h"
#include "manifest.h"
#include "number.h"
#include "probes.h"
#include "rec.h"
#include "record.h"
#include "reset.h"
#include "target.h"

static const char usage_text[] =
    "usage: darc-record [options] (-p PID[,PID...] | [--] COMMAND [ARGS])\n"
    "       darc-record --check | --reset [--force]\n"
    "\n"
    "Records the events darc analyzes into one bundle (trace.dat v7, which\n"
    "'trace-cmd report' also reads). Root only.\n"
    "\n"
    "  -o, --output FILE      the bundle (default darc.dat); never overwritten\n"
    "  -f, --force            overwrite FILE\n"
    "  -p, --pid PID[,PID]    follow these processes (all their threads)\n"
    "  -e, --event SYS[:NAME] tracepoints (repeatable, comma lists); irq, irq_vectors\n"
    "                         and block events are not pid-filtered\n"
    "      --filter EXPR      event filter for the -e before it\n"
    "      --no-default-events  leave out the default set (sched switch/wakeup/\n"
    "                         fork/exec/exit, irq and softirq entry/exit, block)\n"
    "  -g, --graph FUNC       function_graph rooted at FUNC (repeatable, globs)\n"
    "  -n, --notrace FUNC     function_graph leaves FUNC and its calls out (repeatable;\n"
    "                         set_graph_notrace, not trace-cmd's -n)\n"
    "  -l, --ftrace-filter FUNC  trace only these functions (repeatable, globs;\n"
    "                         set_ftrace_filter, trace-cmd's -l); the -g roots are\n"
    "                         added to it\n"
    "      --ftrace-notrace FUNC  never trace FUNC, but its calls (repeatable;\n"
    "                         set_ftrace_notrace, trace-cmd's -n)\n"
    "      --along DB         trace only along the paths the analysis in DB found\n"
    "                         (darc paths, darc explain): their entry points as -g\n"
    "                         roots, the functions on the paths and the ones they\n"
    "                         call, as -l; the rest of the options as for DB's\n"
    "                         recording (give the probes and events again)\n"
    "      --max-depth N      function_graph depth limit\n"
    "      --sleep-time, --no-sleep-time, --graph-irqs, --no-graph-irqs\n"
    "                         function_graph options\n"
    "      --kprobe 'SYM[+OFF] [ARGS]'    kprobe, ARGS as in kprobe_events\n"
    "      --kretprobe 'SYM [ARGS]'       kretprobe ($retval ...)\n"
    "      --uprobe 'BIN:FUNC [ARGS]'     uprobe on a user function by name\n"
    "      --uretprobe 'BIN:FUNC [ARGS]'  its return\n"
    "  -U, --ufunc BIN:FUNC[,FUNC...]     uprobe and uretprobe on each (call trees)\n"
    "  -d, --duration SECS    stop after SECS\n"
    "  -b, --buffer-size KB   ring buffer per CPU (default 4096)\n"
    "  -C, --clock CLOCK      trace clock (default mono, else global)\n"
    "      --best-effort      leave out what this kernel cannot do, and record\n"
    "      --no-calibrate     do not measure the tracer's cost per call first (by\n"
    "                         default, under a second; in the bundle's manifest)\n"
    "      --no-instance      record in the top-level buffer (restored on exit); one\n"
    "                         such recording at a time, by a lock that is released\n"
    "                         when its holder exits, even by kill -9\n"
    "  -q, --quiet            no status line or summary\n"
    "      --json             the summary as one line of JSON on stdout, at the end\n"
    "                         (after the command's own output); with --check, its\n"
    "                         facts as one JSON object\n"
    "      --check            say what this kernel allows (and what the events chosen\n"
    "                         leave out of naming wakers), and exit\n"
    "      --reset            remove what a killed darc-record left in tracefs (not\n"
    "                         what a running one set up: --force removes that too)\n"
    "  -h, --help, -V, --version\n"
    "\n"
    "The recording ends when the command (or every PID) exits, after --duration,\n"
    "or on SIGINT/SIGTERM; the bundle is written and tracefs restored each time.\n"
    "Exit status: 0 recorded, 1 the recording failed or this kernel cannot do\n"
    "what is asked, 2 bad usage (or FILE exists).\n"
    "\n"
    "examples:\n"
    "  darc-record -g '*sys_openat' -- ls /tmp        # function_graph under a syscall\n"
    "  darc-record -p 1234 -d 10 -o app.dat           # follow pid 1234 for 10 s\n"
    "  darc-record -U ./app:main,handle -- ./app      # uprobes on user functions\n"
    "  darc-record -q --json -- make                  # the summary for a script\n"
    "  darc-record --check --json                     # what this kernel allows\n";

enum {
	OPT_FILTER = 300,
	OPT_NO_DEFAULTS,
	OPT_MAX_DEPTH,
	OPT_SLEEP_TIME,
	OPT_NO_SLEEP_TIME,
	OPT_GRAPH_IRQS,
	OPT_NO_GRAPH_IRQS,
	OPT_KPROBE,
	OPT_KRETPROBE,
	OPT_UPROBE,
	OPT_URETPROBE,
	OPT_BEST_EFFORT,
	OPT_NO_INSTANCE,
	OPT_CHECK,
	OPT_RESET,
	OPT_JSON,
	OPT_FTRACE_NOTRACE,
	OPT_ALONG,
	OPT_NO_CALIBRATE,
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, 'f'},
    {"pid", required_argument, NULL, 'p'},
    {"event", required_argument, NULL, 'e'},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"no-default-events", no_argument, NULL, OPT_NO_DEFAULTS},
    {"graph", required_argument, NULL, 'g'},
    {"notrace", required_argument, NULL, 'n'},
    {"ftrace-filter", required_argument, NULL, 'l'},
    {"ftrace-notrace", required_argument, NULL, OPT_FTRACE_NOTRACE},
    {"along", required_argument, NULL, OPT_ALONG},
    {"no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE},
    {"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
    {"sleep-time", no_argument, NULL, OPT_SLEEP_TIME},
    {"no-sleep-time", no_argument, NULL, OPT_NO_SLEEP_TIME},
    {"graph-irqs", no_argument, NULL, OPT_GRAPH_IRQS},
    {"no-graph-irqs", no_argument, NULL, OPT_NO_GRAPH_IRQS},
    {"kprobe", required_argument, NULL, OPT_KPROBE},
    {"kretprobe", required_argument, NULL, OPT_KRETPROBE},
    {"uprobe", required_argument, NULL, OPT_UPROBE},
    {"uretprobe", required_argument, NULL, OPT_URETPROBE},
    {"ufunc", required_argument, NULL, 'U'},
    {"duration", required_argument, NULL, 'd'},
    {"buffer-size", required_argument, NULL, 'b'},
    {"clock", required_argument, NULL, 'C'},
    {"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
    {"no-instance", no_argument, NULL, OPT_NO_INSTANCE},
    {"quiet", no_argument, NULL, 'q'},
    {"check", no_argument, NULL, OPT_CHECK},
    {"json", no_argument, NULL, OPT_JSON},
    {"reset", no_argument, NULL, OPT_RESET},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The defaults: what the analysis needs besides the user's own events. */
static const char *const default_events[] = {
    "sched:sched_switch",	"sched:sched_wakeup",	    "sched:sched_wakeup_new",
    "sched:sched_waking",	"sched:sched_process_fork", "sched:sched_process_exec",
    "sched:sched_process_exit", "irq:irq_handler_entry",    "irq:irq_handler_exit",
    "irq:softirq_entry",	"irq:softirq_exit",	    "block:block_bio_queue",
    "block:block_rq_issue",	"block:block_rq_complete",  "block:block_bio_complete",
};

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "darc-record: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (darc-record --help says more)\n");
	return REC_USAGE;
}

static void *grow(void *v, int n, size_t size)
{
	void *p = realloc(v, (n + 1) * size);

	if (!p) {
		fprintf(stderr, "darc-record: out of memory\n");
		exit(REC_FAILED);
	}
	return p;
}

/* Events whose completions run in other tasks' context: never pid-filtered. */
static bool unfiltered_system(const char *sys)
{
	return !strcmp(sys, "irq") || !strcmp(sys, "irq_vectors") || !strcmp(sys, "block");
}

/* Add "SYS[:NAME]" (or "SYS/NAME") to the events. */
static int add_event(struct rec_opts *o, const char *spec, bool is_default)
{
	struct rec_event *e;
	size_t n = strcspn(spec, ":/");

	if (!n || (spec[n] && !spec[n + 1]) || strpbrk(spec, " \t"))
		return bad_usage("bad event '%s': give SYSTEM or SYSTEM:EVENT", spec);
	for (int i = 0; i < o->nevents; i++)
		if (!strncmp(o->events[i].sys, spec, n) && !o->events[i].sys[n] &&
		    ((!o->events[i].name && !spec[n]) ||
		     (o->events[i].name && spec[n] && !strcmp(o->events[i].name, spec + n + 1)))) {
			o->events[i].is_default &= is_default;
			return 0;
		}
	o->events = grow(o->events, o->nevents, sizeof(*o->events));
	e = &o->events[o->nevents++];
	memset(e, 0, sizeof(*e));
	e->sys = strndup(spec, n);
	e->name = spec[n] ? strdup(spec + n + 1) : NULL;
	e->unfiltered = unfiltered_system(e->sys);
	e->is_default = is_default;
	return 0;
}

static int add_events(struct rec_opts *o, const char *list, int *first)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	*first = o->nevents;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
		rc = add_event(o, t, false);
	free(copy);
	return rc;
}

static int add_probe(struct rec_opts *o, enum rec_probe_type type, const char *spec)
{
	struct err_msg err = {""};

	o->probes = grow(o->probes, o->nprobes, sizeof(*o->probes));
	if (probe_parse(&o->probes[o->nprobes], type, spec, &err)) {
		struct rec_probe *p = &o->probes[o->nprobes];
		free(p->spec);
		free(p->where);
		free(p->args);
		free(p->event);
		free(p->file);
		fprintf(stderr, "darc-record: %s\n", err.msg);
		return REC_USAGE;
	}
	o->nprobes++;
	return 0;
}

/* -U BIN:FUNC[,FUNC...]: an entry and a return probe on each function. */
static int add_ufunc(struct rec_opts *o, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char *funcs, *save = NULL;
	int rc = 0;

	if (!colon || colon == spec || !colon[1])
		return bad_usage("bad --ufunc '%s': give BINARY:FUNCTION[,FUNCTION...]", spec);
	funcs = strdup(colon + 1);
	for (char *f = strtok_r(funcs, ",", &save); f && !rc; f = strtok_r(NULL, ",", &save)) {
		char *one;
		if (asprintf(&one, "%.*s:%s", (int)(colon - spec), spec, f) < 0)
			exit(REC_FAILED);
		rc = add_probe(o, PROBE_UPROBE, one);
		if (!rc)
			rc = add_probe(o, PROBE_URETPROBE, one);
		free(one);
	}
	free(funcs);
	return rc;
}

static int add_pids(struct rec_opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		long long v;

		if (number_int(t, &v) || v <= 0 || v > INT_MAX) {
			rc = bad_usage("bad pid '%s'", t);
			break;
		}
		o->pids = grow(o->pids, o->npids, sizeof(*o->pids));
		o->pids[o->npids++] = v;
	}
	free(copy);
	return rc;
}

static int number(const char *s, const char *what, double lo, double hi, double *v)
{
	if (number_real(s, lo, hi, v)) {
		fprintf(stderr, "darc-record: bad %s '%s' (darc-record --help says more)\n", what,
			s);
		return REC_USAGE;
	}
	return 0;
}

static void free_opts(struct rec_opts *o)
{
	for (int i = 0; i < o->nevents; i++) {
		free(o->events[i].sys);
		free(o->events[i].name);
		free(o->events[i].filter);
	}
	free(o->events);
	for (int i = 0; i < o->nprobes; i++) {
		free(o->probes[i].spec);
		free(o->probes[i].where);
		free(o->probes[i].args);
		free(o->probes[i].event);
		free(o->probes[i].file);
	}
	free(o->probes);
	for (int i = 0; i < o->ngraph; i++)
		free(o->graph_roots[i]);
	free(o->graph_roots);
	for (int i = 0; i < o->nnotrace; i++)
		free(o->notrace[i]);
	free(o->notrace);
	for (int i = 0; i < o->nftrace_filter; i++)
		free(o->ftrace_filter[i]);
	free(o->ftrace_filter);
	for (int i = 0; i < o->nftrace_notrace; i++)
		free(o->ftrace_notrace[i]);
	free(o->ftrace_notrace);
	if (o->along_info) {
		along_free(o->along_info);
		free(o->along_info);
	}
	free(o->pids);
	caps_notes_free(&o->dropped);
}

/* @v's strings on the rest of the line. */
static void print_words(char **v)
{
	for (int i = 0; v && v[i]; i++)
		printf(" %s", v[i]);
	putchar('\n');
}

/*
 * --check: what this kernel allows, one line each (--json: one object), and
 * what the events of @o (the defaults, or those given with it) would leave
 * out of the evidence that names wakers.
 */
static int check(const struct rec_opts *o)
{
	struct rec_caps c;
	struct err_msg err = {""};
	char *s, wake[512];
	const char *warn;

	if (caps_probe(&c, &err)) {
		fprintf(stderr, "darc-record: %s\n", err.msg);
		return REC_FAILED;
	}
	caps_more(&c);
	warn = caps_wake_warning(&c, o, wake, sizeof(wake));
	if (o->json) {
		s = manifest_caps_json(&c, warn);
		if (s)
			puts(s);
		free(s);
		caps_release(&c);
		return s ? REC_OK : REC_FAILED;
	}
	printf("tracefs:        %s%s\n", c.dir, c.mounted_by_us ? " (mounted for this check)" : "");
	printf("instances:      %s, now:", c.instances ? "yes" : "no");
	print_words(c.instances_now);
	printf("tracers:       ");
	print_words(c.tracers);
	printf("current tracer: %s\n", c.current_tracer ? c.current_tracer : "?");
	printf("function_graph: %s\n", c.function_graph ? "yes" : "no (-g, -n, --max-depth)");
	printf("kprobes:        %s\n", c.kprobes ? "yes" : "no (--kprobe, --kretprobe)");
	printf("uprobes:        %s\n", c.uprobes ? "yes" : "no (--uprobe, --uretprobe, --ufunc)");
	printf("pid filter:     %s\n", c.set_event_pid ? "yes" : "no (-p, COMMAND)");
	printf("function pids:  %s\n", c.set_ftrace_pid ? "yes" : "no");
	printf("event systems: ");
	print_words(c.systems);
	printf("trace clocks:   %s", c.clocks ? c.clocks : "?\n");
	printf("trace options: ");
	for (const char *p = c.options; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
		printf(" %.*s", (int)strcspn(p, "\n"), p);
	putchar('\n');
	if (c.lock_held)
		printf("top-level lock: held by %s\n", c.lock_who);
	else
		printf("top-level lock: free\n");
	printf("wake-ups:       %s%s\n", warn ? "warning: " : "",
	       warn ? warn
		    : "named by the irq events of every CPU (the local timer and IPIs by"
		      " irq_vectors events, where -e irq_vectors records them)");
	caps_release(&c);
	return REC_OK;
}

static int reset(bool force)
{
	struct rec_notes notes = {0};
	struct rec_caps c;
	struct err_msg err = {""};
	int left;

	if (caps_probe(&c, &err)) {
		fprintf(stderr, "darc-record: %s\n", err.msg);
		return REC_FAILED;
	}
	left = reset_run(force, &notes);
	for (int i = 0; i < notes.n; i++)
		fprintf(stderr, "darc-record: %s\n", notes.v[i]);
	caps_notes_free(&notes);
	caps_release(&c);
	return left ? REC_FAILED : REC_OK;
}

/* An option saying what to record: events, function_graph, probes, pids.
   REC_OK, REC_USAGE (said), or -1 when @c is none of those. */
static int what_option(struct rec_opts *o, int c, int *last_event)
{
	int rc = 0;
	double v;

	switch (c) {
	case 'p':
		rc = add_pids(o, optarg);
		break;
	case 'e':
		rc = add_events(o, optarg, last_event);
		break;
	case OPT_FILTER:
		if (*last_event < 0)
			return bad_usage("--filter '%s' needs an -e before it", optarg);
		for (int i = *last_event; i < o->nevents; i++) {
			free(o->events[i].filter);
			o->events[i].filter = strdup(optarg);
		}
		break;
	case OPT_NO_DEFAULTS:
		o->no_defaults = true;
		break;
	case 'g':
		o->graph_roots = grow(o->graph_roots, o->ngraph, sizeof(char *));
		o->graph_roots[o->ngraph++] = strdup(optarg);
		break;
	case 'n':
		o->notrace = grow(o->notrace, o->nnotrace, sizeof(char *));
		o->notrace[o->nnotrace++] = strdup(optarg);
		break;
	case 'l':
		o->ftrace_filter = grow(o->ftrace_filter, o->nftrace_filter, sizeof(char *));
		o->ftrace_filter[o->nftrace_filter++] = strdup(optarg);
		break;
	case OPT_FTRACE_NOTRACE:
		o->ftrace_notrace = grow(o->ftrace_notrace, o->nftrace_notrace, sizeof(char *));
		o->ftrace_notrace[o->nftrace_notrace++] = strdup(optarg);
		break;
	case OPT_ALONG:
		o->along = optarg;
		break;
	case OPT_MAX_DEPTH:
		rc = number(optarg, "--max-depth", 1, 1000, &v);
		o->max_depth = v;
		break;
	case OPT_SLEEP_TIME:
	case OPT_NO_SLEEP_TIME:
		o->sleep_time = c == OPT_SLEEP_TIME;
		break;
	case OPT_GRAPH_IRQS:
	case OPT_NO_GRAPH_IRQS:
		o->graph_irqs = c == OPT_GRAPH_IRQS;
		break;
	case OPT_KPROBE:
		rc = add_probe(o, PROBE_KPROBE, optarg);
		break;
	case OPT_KRETPROBE:
		rc = add_probe(o, PROBE_KRETPROBE, optarg);
		break;
	case OPT_UPROBE:
		rc = add_probe(o, PROBE_UPROBE, optarg);
		break;
	case OPT_URETPROBE:
		rc = add_probe(o, PROBE_URETPROBE, optarg);
		break;
	case 'U':
		rc = add_ufunc(o, optarg);
		break;
	default:
		return -1;
	}
	return rc;
}

/* An option saying how to record, or what to do instead (*mode: --check,
   --reset; 'h' after --help or --version, which end the parse). */
static int how_option(struct rec_opts *o, int c, int *mode)
{
	int rc = 0;
	double v;

	switch (c) {
	case 'o':
		o->output = optarg;
		break;
	case 'f':
		o->force = true;
		break;
	case 'd':
		rc = number(optarg, "duration", 0.001, 1e9, &o->duration);
		break;
	case 'b':
		rc = number(optarg, "buffer size", 4, 1 << 30, &v);
		o->buffer_kb = v;
		break;
	case 'C':
		o->clock = optarg;
		break;
	case OPT_BEST_EFFORT:
		o->best_effort = true;
		break;
	case OPT_NO_INSTANCE:
		o->no_instance = true;
		break;
	case OPT_NO_CALIBRATE:
		o->no_calibrate = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_CHECK:
	case OPT_RESET:
		*mode = c;
		break;
	case 'h':
		fputs(usage_text, stdout);
		*mode = 'h';
		break;
	case 'V':
		printf("darc-record %s\n", DARC_VERSION);
		*mode = 'h';
		break;
	default:
		return REC_USAGE;
	}
	return rc;
}

/* --along DB: its paths' functions as graph roots and function filter. */
static int take_along(struct rec_opts *o)
{
	struct err_msg err = {""};

	o->along_info = calloc(1, sizeof(*o->along_info));
	if (!o->along_info)
		exit(REC_FAILED);
	if (along_read(o->along, o->along_info, &err)) {
		fprintf(stderr, "darc-record: %s\n", err.msg);
		return REC_USAGE;
	}
	if (along_apply(o, o->along_info))
		exit(REC_FAILED);
	if (!o->quiet)
		fprintf(stderr,
			"darc-record: along '%s': tracing %d functions: %d on the paths found, "
			"%d they call (%d more they call run mostly elsewhere: left out); graph "
			"roots:",
			o->along, o->along_info->nfuncs, o->along_info->npath,
			o->along_info->nfuncs - o->along_info->npath, o->along_info->elsewhere);
	for (int i = 0; !o->quiet && i < o->along_info->nroots; i++)
		fprintf(stderr, " %s", o->along_info->roots[i]);
	if (!o->quiet)
		fputc('\n', stderr);
	if (!o->quiet && o->along_info->nskipped)
		fprintf(stderr, "darc-record: along: %d functions of the paths are not traceable "
				"on this kernel (not in available_filter_functions): left out\n",
			o->along_info->nskipped);
	return 0;
}

static int parse(struct rec_opts *o, int argc, char **argv, int *mode)
{
	int c, last_event = -1, rc = 0;

	while (!rc && *mode != 'h' &&
	       (c = getopt_long(argc, argv, "+o:fp:e:g:n:l:U:d:b:C:qhV", long_opts, NULL)) != -1) {
		rc = what_option(o, c, &last_event);
		if (rc < 0)
			rc = how_option(o, c, mode);
	}
	if (rc || (*mode && *mode != OPT_CHECK))
		return rc;
	if (!o->no_defaults) /* --check weighs them too: what the options would record */
		for (size_t i = 0; i < sizeof(default_events) / sizeof(*default_events); i++)
			add_event(o, default_events[i], true);
	if (*mode)
		return 0;
	if (optind < argc)
		o->command = argv + optind;
	if (!o->command && !o->npids)
		return bad_usage("%s", "nothing to record: give -p PID or a COMMAND");
	if (o->command && o->npids)
		return bad_usage("%s", "give -p PID or a COMMAND, not both");
	return o->along ? take_along(o) : 0;
}

int main(int argc, char **argv)
{
	struct rec_opts o = {
	    .argc = argc, .argv = argv, .output = "darc.dat", .sleep_time = -1, .graph_irqs = -1};
	int mode = 0, rc;
	sigset_t mask;

	/*
	 * Inherited SIG_IGN would reap the command unseen (SIGCHLD) or make the
	 * recording impossible to stop (a shell starts background jobs with SIGINT
	 * ignored); SIGHUP is left as it is, for nohup.
	 */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/*
	 * A broken pipe (stderr to a closed pipe) must not end the recording
	 * before tracefs is restored and the bundle written: writes fail with
	 * EPIPE instead. The command gets the disposition darc-record was given.
	 */
	target_sigpipe = signal(SIGPIPE, SIG_IGN);
	/* held until the recording loop reads them: a signal never interrupts the setup */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	rc = parse(&o, argc, argv, &mode);
	if (!rc) {
		if (mode == OPT_CHECK)
			rc = check(&o);
		else if (mode == OPT_RESET)
			rc = reset(o.force);
		else if (!mode)
			rc = record_run(&o);
	}
	free_opts(&o);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "darc-record: cannot write to stdout\n");
		rc = REC_FAILED;
	}
	return rc;
}
