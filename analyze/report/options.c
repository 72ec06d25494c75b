// SPDX-License-Identifier: MIT
#include "number.h"
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wfile.h"
#include "jtext.h"

const char options_help[] =
    "which calls (one of):\n" OPTION_HELP_CALLS
    "how:\n"
    "      --metric M       incl (default), excl, irq, softirq, preempt, blocked: the\n"
    "                       latency, or one part of it (schema/README.md, view call)\n"
    "      --resolution R   buckets per octave, 1 (OSprof's, default) to 4\n"
    "      --unit U         ns (default) or cycles, with --cpu-mhz N: the papers' unit\n"
    "peaks (log2 buckets): by default the humps a person sees, each valley between\n"
    "  two 3 standard deviations of the counts deep (or an empty octave); or:\n"
    "      --prominence P   on log2(count + 1): a peak rises at least P above the\n"
    "                       valleys beside it (2: four times the count)\n"
    "      --smooth W       with --prominence: average W buckets first (odd; 1: none)\n"
    "      --peaks LO-HI,.. use these bucket ranges as the peaks instead\n"
    "      --json           print JSON\n";

void options_init(struct report_options *o)
{
	*o = (struct report_options){
	    .sel = RSEL_INIT, .pp = PEAK_PARAMS_DEFAULT, .search = SEARCH_PARAMS_DEFAULT};
}

void options_release(struct report_options *o)
{
	free(o->peaks);
	o->peaks = NULL;
}

int options_duration(const char *s, int64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e9}};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v * units[i].ns > 9e18)
				return -1;
			*ns = (int64_t)llround(v * units[i].ns);
			return 0;
		}
	return -1;
}

/* "LO-HI" with durations (the range of --time). */
static int time_range(struct call_selection *sel, const char *arg)
{
	char lo[64];
	const char *dash = strchr(arg, '-');

	if (!dash || dash - arg >= (long)sizeof(lo))
		return -1;
	snprintf(lo, sizeof(lo), "%.*s", (int)(dash - arg), arg);
	if ((lo[0] && options_duration(lo, &sel->t_lo)) ||
	    (dash[1] && options_duration(dash + 1, &sel->t_hi)))
		return -1;
	return sel->t_lo < sel->t_hi ? 0 : -1;
}

/* "12-14,20-22": bucket ranges, in increasing order and apart. */
static int peak_list(struct report_options *o, const char *arg)
{
	const char *p = arg;

	free(o->peaks);
	o->peaks = NULL;
	o->npeaks = 0;
	while (*p) {
		int lo, hi, n;
		void *a;
		if (sscanf(p, "%d-%d%n", &lo, &hi, &n) != 2 || lo < 0 || hi < lo || hi > 256 ||
		    (o->npeaks && lo <= o->peaks[o->npeaks - 1].hi))
			return -1;
		a = realloc(o->peaks, (o->npeaks + 1) * sizeof(*o->peaks));
		if (!a)
			return -1;
		o->peaks = a;
		o->peaks[o->npeaks++] = (struct peak){.lo = lo, .hi = hi};
		p += n;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return o->npeaks ? 0 : -1;
}

/* The search's options (OPTION_SEARCH_OPTIONS): NULL, or what was expected. */
static const char *take_search(struct search_params *sp, int c, const char *arg)
{
	double v;

	switch (c) {
	case OPTION_MAX_DEPTH:
		if (number_real(arg, 0, 1000, &v))
			return "a number of levels, 0 to 1000";
		sp->max_depth = (int)v;
		return NULL;
	case OPTION_MAXCOUNT_PCT:
		return number_real(arg, 0.001, 100, &sp->maxcount_pct)
			   ? "a percentage above 0, up to 100"
			   : NULL;
	case OPTION_MIN_BUCKET:
		if (number_real(arg, 0, 62, &v))
			return "a log2 bucket, 0 to 62";
		sp->min_bucket = (int)v;
		return NULL;
	case OPTION_MODE:
		sp->mode = !strcmp(arg, "max") ? SEARCH_MAX : !strcmp(arg, "sum") ? SEARCH_SUM : -1;
		return sp->mode < 0 ? "max or sum" : NULL;
	}
	return "";
}

/* The options that take a number: NULL, or what was expected. */
static const char *take_number(struct report_options *o, int c, const char *arg)
{
	double v;

	switch (c) {
	case OPTION_FNODE:
		if (number_real(arg, 1, 9e18, &v) || v != (int64_t)v)
			return "an fnode id (1 or more)";
		o->sel.fnode = (int64_t)v;
		return NULL;
	case OPTION_CALL:
		if (number_real(arg, 1, 9e18, &v) || v != (int64_t)v)
			return "a call id (1 or more)";
		o->call = (int64_t)v;
		return NULL;
	case OPTION_RESOLUTION:
		if (number_real(arg, 1, 4, &v) || v != (int)v)
			return "1, 2, 3 or 4 buckets per octave";
		o->sel.resolution = (int)v;
		return NULL;
	case OPTION_TASK:
		if (number_real(arg, 1, 4194304, &v) || v != (int)v)
			return "a thread id (1 to 4194304)";
		o->sel.task = (int64_t)v;
		return NULL;
	case OPTION_CPU_MHZ:
		return number_real(arg, 1, 1e6, &o->cpu_mhz) ? "a clock rate in MHz (1 to 1000000)"
							     : NULL;
	case OPTION_PROMINENCE:
		o->pp.rule = PEAK_PROMINENCE;
		return number_real(arg, 0, 64, &o->pp.prominence) ? "a number from 0 to 64" : NULL;
	case OPTION_SMOOTH:
		if (number_real(arg, 1, 15, &v) || v != (int)v || !((int)v & 1))
			return "an odd number of buckets, 1 to 15";
		o->pp.rule = PEAK_PROMINENCE;
		o->pp.smooth = (int)v;
		return NULL;
	}
	return take_search(&o->search, c, arg);
}

int options_take(struct report_options *o, int c, const char *arg, struct err_msg *err)
{
	const char *bad = NULL;

	if (c < OPTION_FUNC || c >= OPTION_LAST)
		return 0;
	switch (c) {
	case OPTION_FUNC:
		o->sel.func = arg;
		break;
	case OPTION_PATH:
		o->sel.path = arg;
		break;
	case OPTION_COMM:
		o->sel.comm = arg;
		break;
	case OPTION_METRIC:
		if ((o->sel.metric = rdb_metric_of(arg)) < 0)
			bad = "incl, excl, irq, softirq, preempt or blocked";
		break;
	case OPTION_TIME:
		if (time_range(&o->sel, arg))
			bad = "a window LO-HI of durations, LO below HI (e.g. 0.5-2, 100ms-1.5s)";
		break;
	case OPTION_UNIT:
		if (!strcmp(arg, "cycles"))
			o->cycles = true;
		else if (strcmp(arg, "ns"))
			bad = "ns or cycles";
		break;
	case OPTION_PEAKS:
		if (peak_list(o, arg))
			bad = "bucket ranges LO-HI in increasing order, apart (e.g. 12-14,20-22)";
		break;
	case OPTION_JSON:
		o->json = true;
		break;
	case OPTION_SVG:
		o->svg = arg;
		break;
	case OPTION_FORCE:
		o->force = true;
		break;
	default:
		bad = take_number(o, c, arg);
	}
	if (bad) {
		err_setf(err, NULL, "%s", bad);
		return -1;
	}
	return 1;
}

int options_check(struct report_options *o, bool need_selection, struct err_msg *err)
{
	int n = !!o->sel.func + !!o->sel.fnode + !!o->sel.path;

	if (n > 1)
		return err_setf(err, NULL, "--func, --fnode and --path each choose the calls:"
					   " give one of them");
	if (need_selection && !n)
		return err_setf(err, NULL, "say which calls: one of --func, --fnode or --path");
	if (o->sel.task && o->sel.comm)
		return err_setf(err, NULL, "--task and --comm do not go together");
	if (o->npeaks && o->pp.rule != PEAK_SEEN)
		return err_setf(err, NULL, "--peaks gives the peaks, --prominence and --smooth find"
					   " them: give one");
	if (o->cycles != (o->cpu_mhz > 0))
		return err_setf(err, NULL,
				"--unit cycles needs --cpu-mhz N, and --cpu-mhz needs it");
	o->sel.scale = o->cycles ? o->cpu_mhz / 1000 : 1.0;
	return 0;
}

const char *options_name(const struct option *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->val == c)
			return opts->name;
	return NULL;
}

/* "bad --top '0': a positive number": the option of code @c by its long name. */
static void bad_argument(const struct option *opts, int c, const char *arg, struct err_msg *err)
{
	char what[sizeof(err->msg)];
	const char *name = options_name(opts, c);

	snprintf(what, sizeof(what), "%s", err->msg);
	if (name)
		err_setf(err, NULL, "bad --%s '%.200s'%s%.200s", name, arg, what[0] ? ": " : "",
			 what);
	else
		err_setf(err, NULL, "bad -%c '%.200s'%s%.200s", c, arg, what[0] ? ": " : "", what);
}

/* The option getopt did not know, as given: "--peek" (without "=ARG"), "-x". */
static void unknown(int argc, char **argv, struct err_msg *err)
{
	const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (optopt)
		err_setf(err, NULL, "-%c", optopt);
	else
		err_setf(err, NULL, "%.*s", (int)strcspn(a, "="), a);
}

/* The option getopt found without its argument, by name: "--func", "-o". */
static void no_argument_of(const struct option *opts, struct err_msg *err)
{
	const char *name = options_name(opts, optopt);

	if (name)
		err_setf(err, NULL, "--%s", name);
	else
		err_setf(err, NULL, "-%c", optopt);
}

int options_parse_short(int argc, char **argv, const char *shortopts, const struct option *opts,
			struct report_options *o,
			int (*own)(void *ctx, int c, const char *arg, struct err_msg *err),
			void *ctx, struct err_msg *err)
{
	char sopts[64];
	int c, rc;

	err->msg[0] = 0;
	/* ':' first: a missing argument is told from an unknown option; darc says both */
	snprintf(sopts, sizeof(sopts), ":%s", shortopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, opts, NULL)) != -1) {
		if (c == 'h')
			return OPTION_HELP;
		if (c == '?' && optopt && options_name(opts, optopt) &&
		    !strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '=')) {
			/* "--json=1": a known option given an argument it does not take */
			err_setf(err, NULL, "--%s takes no argument", options_name(opts, optopt));
			return OPTION_BAD;
		}
		if (c == '?') {
			unknown(argc, argv, err);
			return OPTION_UNKNOWN;
		}
		if (c == ':') {
			no_argument_of(opts, err);
			return OPTION_NOARG;
		}
		err->msg[0] = 0;
		rc = options_take(o, c, optarg, err);
		if (!rc)
			rc = own && !own(ctx, c, optarg, err) ? 1 : -1;
		if (rc < 0) {
			/* a bad argument is named here, the same way for every option */
			if (optarg)
				bad_argument(opts, c, optarg, err);
			return OPTION_BAD;
		}
	}
	return OPTION_OK;
}

void options_filters_json(const struct report_options *o, json_t *j)
{
	if (o->sel.task)
		json_object_set_new(j, "task", json_integer(o->sel.task));
	if (o->sel.comm)
		json_object_set_new(j, "comm", jtext(o->sel.comm));
	if (o->sel.t_lo != INT64_MIN || o->sel.t_hi != INT64_MAX)
		json_object_set_new(j, "time_ns", json_pack("[II]", (json_int_t)o->sel.t_lo,
							    (json_int_t)o->sel.t_hi));
	if (o->cycles)
		json_object_set_new(j, "cpu_mhz", json_real(o->cpu_mhz));
}

int options_write_svg(const struct report_options *o, int (*fn)(void *ctx, FILE *f), void *ctx,
		   struct err_msg *err)
{
	return wfile_write(o->svg, &wfile_svg, o->force, fn, ctx, err);
}

const char *options_unit(const struct report_options *o)
{
	return o->cycles ? "cycles" : "ns";
}

int options_peaks(const struct report_options *o, const struct profile *p, struct peak **pk)
{
	if (!o->npeaks)
		return profile_peaks(p, &o->pp, pk);
	*pk = malloc(o->npeaks * sizeof(**pk));
	if (!*pk)
		return -1;
	memcpy(*pk, o->peaks, o->npeaks * sizeof(**pk));
	profile_peak_stats(p, *pk, o->npeaks);
	return o->npeaks;
}
