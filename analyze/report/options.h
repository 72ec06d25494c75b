/* SPDX-License-Identifier: MIT */
/*
 * options: the options every report command shares (struct report_options: which calls,
 * which metric, which unit, which peaks), parsed one way for all of them.
 */
#ifndef DARC_OPTIONS_H
#define DARC_OPTIONS_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>

#include "profile.h"
#include "rdb.h"
#include "search.h"

/* Long-only option codes of the shared options (above 255, below a command's own). */
enum {
	OPTION_FUNC = 400,
	OPTION_FNODE,
	OPTION_PATH,
	OPTION_METRIC,
	OPTION_RESOLUTION,
	OPTION_TASK,
	OPTION_COMM,
	OPTION_TIME,
	OPTION_UNIT,
	OPTION_CPU_MHZ,
	OPTION_PEAKS,
	OPTION_PROMINENCE,
	OPTION_SMOOTH,
	OPTION_JSON,
	OPTION_SVG,
	OPTION_FORCE,
	OPTION_CALL,
	OPTION_MAX_DEPTH,
	OPTION_MAXCOUNT_PCT,
	OPTION_MIN_BUCKET,
	OPTION_MODE,
	OPTION_LAST
};

/* The entries of struct option for the options that choose calls (see OPTION_HELP_CALLS). */
#define OPTION_CALL_OPTIONS                                                                       \
	{"func", required_argument, NULL, OPTION_FUNC},                                           \
	    {"fnode", required_argument, NULL, OPTION_FNODE},                                     \
	    {"path", required_argument, NULL, OPTION_PATH},                                       \
	    {"task", required_argument, NULL, OPTION_TASK},                                       \
	    {"comm", required_argument, NULL, OPTION_COMM},                                       \
	    {"time", required_argument, NULL, OPTION_TIME}

/* The entries of struct option for the shared options, to copy into a command's table. */
#define OPTION_SHARED_OPTIONS                                                                      \
	OPTION_CALL_OPTIONS, {"metric", required_argument, NULL, OPTION_METRIC},                   \
	    {"resolution", required_argument, NULL, OPTION_RESOLUTION},                            \
	    {"unit", required_argument, NULL, OPTION_UNIT},                                        \
	    {"cpu-mhz", required_argument, NULL, OPTION_CPU_MHZ},                                  \
	    {"peaks", required_argument, NULL, OPTION_PEAKS},                                      \
	    {"prominence", required_argument, NULL, OPTION_PROMINENCE},                            \
	    {"smooth", required_argument, NULL, OPTION_SMOOTH},                                    \
	    {"json", no_argument, NULL, OPTION_JSON}

/* The plot's options (darc hist), after OPTION_SHARED_OPTIONS; help in OPTION_HELP_PLOT. */
#define OPTION_PLOT_OPTIONS                                                                       \
	{"svg", required_argument, NULL, OPTION_SVG}, {"force", no_argument, NULL, OPTION_FORCE}
#define OPTION_HELP_PLOT                                                                          \
	"      --svg FILE       also write the plot to FILE (SVG: a browser shows it)\n"           \
	"      --force          replace FILE even if it is not an SVG plot (never a\n"            \
	"                       file the command reads)\n"

/*
 * The search's options (struct search_params), after OPTION_SHARED_OPTIONS in the table of
 * every command that searches (darc paths, darc explain): parsed and checked
 * here for all of them (options_take()); help in OPTION_HELP_SEARCH.
 */
#define OPTION_SEARCH_OPTIONS                                                                     \
	{"max-depth", required_argument, NULL, OPTION_MAX_DEPTH},                                 \
	    {"maxcount-pct", required_argument, NULL, OPTION_MAXCOUNT_PCT},                       \
	    {"min-bucket", required_argument, NULL, OPTION_MIN_BUCKET},                           \
	    {"mode", required_argument, NULL, OPTION_MODE}
#define OPTION_HELP_SEARCH                                                                        \
	"      --max-depth N    levels below F (default 10)\n"                                  \
	"      --maxcount-pct P winners need P% of the most votes (default 97; lower\n"         \
	"                       it to see causes of a minority of the calls)\n"                 \
	"      --min-bucket B   stop below 2^B ns (default 6)\n"                                \
	"      --mode M         max (DARC's: a callee's longest call) or sum (all)\n"

/* The help lines of OPTION_CALL_OPTIONS, under a command's own heading. */
#define OPTION_HELP_CALLS                                                                         \
	"      --func F         a function (kernel function, system call, probe, user function)\n" \
	"      --fnode ID       one node of the ftree (SELECT * FROM hot_paths shows them)\n"      \
	"      --path 'a>b>c'   the function at the end of a call path from a root\n"            \
	"  and of them:\n"                                                                      \
	"      --task TID       one task's calls;  --comm NAME  the calls of tasks named NAME\n" \
	"      --time LO-HI     calls entered in this window, from the recording's first\n"      \
	"                       event (e.g. 0.5-2, 100ms-1.5s; s without a unit)\n"

/* Their help text, for a command's usage. */
extern const char options_help[];

struct report_options {
	struct call_selection sel;
	struct peak_params pp;
	struct peak *peaks; /* --peaks LO-HI,...: given ranges (owned), else NULL */
	int npeaks;
	bool json;
	const char *svg;    /* --svg FILE: also write a plot there */
	bool force;	    /* --force: replace a file of another kind there */
	int64_t call;	    /* --call ID (io, waits): one call, or 0 */
	bool cycles;	    /* --unit cycles */
	double cpu_mhz;
	bool flame;	    /* darc report: each search's calls as a flame graph too (flame.h) */
	struct search_params
	    search; /* OPTION_SEARCH_OPTIONS: the search's (SEARCH_PARAMS_DEFAULT) */
};

/*
 * Defaults: incl latency at resolution 1 in ns, peaks found with the default
 * parameters, the search's default parameters.
 */
void options_init(struct report_options *o);
void options_release(struct report_options *o);

/*
 * Take option @c with argument @arg if it is a shared one: 1 taken, 0 not
 * a shared option, -1 a bad argument (@err says what was expected, e.g. "a
 * positive number": options_parse_short() puts the option's name before it).
 */
int options_take(struct report_options *o, int c, const char *arg, struct err_msg *err);

/* What options_parse_short() found. */
enum {
	OPTION_OK = 0,
	OPTION_HELP = 1,
	OPTION_USAGE = 2,	  /* the usage is wrong in a way the caller says */
	OPTION_BAD = 3,	  /* @err says why */
	OPTION_UNKNOWN = 4, /* an unknown option: @err holds it as given ("--peek") */
	OPTION_NOARG = 5,	  /* an option without its argument: @err holds its name */
};

/*
 * getopt_long over @argv with short options @shortopts (which must have "h",
 * e.g. "ho:") and @opts (OPTION_SHARED_OPTIONS, the command's own, and
 * "help"): shared options go to @o, the command's to @own (0 taken, -1 a bad
 * argument: @err says what was expected, or is empty); options_check() is the
 * caller's, once it has checked the operands. OPTION_OK (optind is at them), OPTION_HELP,
 * OPTION_UNKNOWN, OPTION_NOARG, or OPTION_BAD: @err says why, a bad argument as "bad --top '0': a
 * positive number" (the option named by its long name).
 */
int options_parse_short(int argc, char **argv, const char *shortopts, const struct option *opts,
			struct report_options *o,
			int (*own)(void *ctx, int c, const char *arg, struct err_msg *err),
			void *ctx, struct err_msg *err);

/* After parsing: check the options agree (one selection, --cpu-mhz with cycles). 0 or -1. */
int options_check(struct report_options *o, bool need_selection, struct err_msg *err);

/* Add the calls' filters of @o (task, comm, time_ns, cpu_mhz) to JSON object @j. */
void options_filters_json(const struct report_options *o, json_t *j);

/*
 * Write the plot of --svg through @fn(@ctx, f), whole or not at all
 * (wfile_write(): never over an input, --force for a file that is not an
 * SVG). 0, or -1 with @err set.
 */
int options_write_svg(const struct report_options *o, int (*fn)(void *ctx, FILE *f), void *ctx,
		   struct err_msg *err);

/* The long name of the option of code @c in @opts ("func"), or NULL. */
const char *options_name(const struct option *opts, int c);

/* The unit name of @o's values: "ns" or "cycles". */
const char *options_unit(const struct report_options *o);

/*
 * "1.5ms" -> 1500000: a duration (ns, us, ms, s; seconds without a unit).
 * 0 or -1 (not a duration).
 */
int options_duration(const char *s, int64_t *ns);

/*
 * The peaks of @p: the ones given with --peaks (their statistics filled from
 * @p), or found. *@pk is allocated (free it); returns their number or -1.
 */
int options_peaks(const struct report_options *o, const struct profile *p, struct peak **pk);

#endif
