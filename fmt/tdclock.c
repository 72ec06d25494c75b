// SPDX-License-Identifier: MIT
/*
 * The clocks of a trace.dat file: the options that say which clock stamped
 * the events and how trace-cmd report turns its counts into the times it
 * prints, read here as trace-cmd's reader (3.1 to 3.4) reads them:
 *
 *   TRACECLOCK  the kernel's trace_clock file, "[in use]" bracketed; its
 *               name decides whether report prints seconds or raw counts
 *   TSC2NSEC    mult, shift (and an offset the reader does not add):
 *               ns = counts * mult >> shift, as the kernel's clocksource
 *   TIME_SHIFT  a guest's file: per guest CPU, samples of the host's
 *               clock against the guest's (offset, scaling with fraction
 *               bits), used as they are or interpolated between
 *   DATE        microseconds from the trace clock to the wall clock
 *   OFFSET      nanoseconds added to every timestamp (--ts-offset)
 *   GUEST       a host's file: a guest traced with it (name, trace id,
 *               which host task ran each vCPU); shown, nothing to apply
 *
 * A timestamp is shifted to the host (TIME_SHIFT), then scaled
 * (TSC2NSEC), then offset (DATE, OFFSET): tdclock_ts() in tdclock.h.
 * Whatever cannot be converted to nanoseconds is said in ts_not_ns, which
 * the analysis commands refuse.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bytes.h"
#include "fmt.h"
#include "tdclock.h"
#include "tracedat-ids.h"

#define MAX_SHIFT_CPUS 8192
#define MAX_GUEST_CPUS 8192

/* Clocks the kernel counts in nanoseconds (its trace_clocks[] in_ns). */
static bool clock_in_ns(const char *c)
{
	static const char *const ns[] = {"local", "global", "perf",  "mono",
					 "mono_raw", "boot", "tai"};

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (!strcmp(c, ns[i]))
			return true;
	return false;
}

/*
 * trace-cmd's rule for printing seconds (IN_USECS): the clocks it takes
 * for time, which leaves out boot (in ns all the same) and puts in uptime
 * (jiffies). A TSC2NSEC read before makes any clock seconds.
 */
static void usecs_rule(struct tdclock *c, const char *clock)
{
	if (c->mult)
		return;
	if (strcmp(clock, "local") && strcmp(clock, "global") && strcmp(clock, "uptime") &&
	    strcmp(clock, "perf") && strncmp(clock, "mono", 4) && strcmp(clock, "tsc2nsec") &&
	    strcmp(clock, "tai"))
		c->in_usecs = false;
}

/* The first word of the bracketed entry of @text, or NULL (owned by the caller). */
static char *bracketed(const char *text)
{
	const char *lb = strchr(text, '['), *e;

	if (!lb || (lb > text && lb[-1] != ' '))
		return NULL;
	lb++;
	while (*lb == ' ')
		lb++;
	for (e = lb; *e && *e != ']' && *e != ' ' && *e != '\n'; e++)
		;
	return e > lb ? strndup(lb, (size_t)(e - lb)) : NULL;
}

static int traceclock_option(struct tdclock *c, const uint8_t *p, uint32_t n,
			     struct fmt_option *o)
{
	char *text = strndup((const char *)p, n), *name;

	if (!text)
		return -1;
	c->have_clockopt = true;
	name = bracketed(text);
	free(c->clock_list);
	c->clock_list = text;
	if (!name) {
		snprintf(o->note, sizeof(o->note), "names no clock in use: '%.120s'", text);
		o->use = FMT_OPTION_IGNORED;
		return 0;
	}
	free(c->clock);
	c->clock = name;
	usecs_rule(c, name);
	o->use = FMT_OPTION_APPLIED;
	snprintf(o->note, sizeof(o->note), "clock %.64s", name);
	return 0;
}

void tdclock_v6_name(struct tdclock *c, const char *p, uint64_t n)
{
	char *text = strndup(p, n), *name = text ? bracketed(text) : NULL;

	/* trace-cmd reads it only after a TRACECLOCK option */
	if (c->have_clockopt && name)
		usecs_rule(c, name);
	free(name);
	free(text);
}

/* 0, or -1 with @err set: a shift past 63, which no clock has and no counter survives */
static int tsc2nsec_option(struct fmt_reader *r, struct tdclock *c, const uint8_t *p,
			   uint32_t n, struct fmt_option *o, struct err_msg *err)
{
	struct rd d = rd_init(p, n, r->swap);

	if (n < 16) { /* trace-cmd passes a short one over */
		o->use = FMT_OPTION_IGNORED;
		snprintf(o->note, sizeof(o->note), "%u bytes, shorter than 16: ignored, as "
			 "trace-cmd does", n);
		return 0;
	}
	c->mult = rd_u32(&d);
	c->shift = rd_u32(&d);
	if (c->shift > 63)
		return FAIL("TSC2NSEC option: shift %" PRIu32 " is past 63: the counters cannot be "
			    "scaled to ns", c->shift);
	c->tsc_offset = (int64_t)rd_u64(&d);
	c->in_usecs = true;
	o->use = FMT_OPTION_APPLIED;
	snprintf(o->note, sizeof(o->note), "mult %" PRIu32 ", shift %" PRIu32 ", offset %" PRId64,
		 c->mult, c->shift, c->tsc_offset);
	return 0;
}

/* A sample and its place in the file, for a stable sort. */
struct placed {
	struct tdclock_sample s;
	uint32_t at;
};

static int by_time(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Sort one CPU's samples by time and keep the first of each time, as
 * trace-cmd does (its qsort, glibc's merge sort, keeps the file's order
 * among equal times). 0, or -1 out of memory.
 */
static int shift_sort(struct tdclock_shift_cpu *sc)
{
	struct placed *p = malloc((sc->n ? sc->n : 1) * sizeof(*p));
	uint32_t j = 0;

	if (!p)
		return -1;
	for (uint32_t i = 0; i < sc->n; i++)
		p[i] = (struct placed){sc->s[i], i};
	qsort(p, sc->n, sizeof(*p), by_time);
	for (uint32_t k = 0; k < sc->n; k++)
		if (k == 0 || p[k].s.time != p[k - 1].s.time)
			sc->s[j++] = p[k].s;
	sc->n = j;
	free(p);
	return 0;
}

/* One CPU's count, times, offsets and scalings. 0, or -1 with the option's @d bad. */
static int shift_cpu(struct rd *d, struct tdclock_shift_cpu *sc)
{
	uint32_t n = rd_u32(d);

	if (d->bad || n > rd_left(d) / 24)
		return -1;
	sc->s = calloc(n ? n : 1, sizeof(*sc->s));
	if (!sc->s)
		return -1;
	sc->n = n;
	for (uint32_t i = 0; i < n; i++)
		sc->s[i].time = (int64_t)rd_u64(d);
	for (uint32_t i = 0; i < n; i++)
		sc->s[i].offset = (int64_t)rd_u64(d);
	for (uint32_t i = 0; i < n; i++)
		sc->s[i].scaling = (int64_t)rd_u64(d);
	return d->bad ? -1 : 0;
}

/* The samples after the id and flags: per CPU, then (if there) the fraction bits. */
static int shift_samples(struct tdclock *c, struct rd *d)
{
	uint32_t ncpus = rd_u32(d);

	if (d->bad || ncpus > MAX_SHIFT_CPUS)
		return -1;
	c->shift_cpu = calloc(ncpus ? ncpus : 1, sizeof(*c->shift_cpu));
	if (!c->shift_cpu)
		return -1;
	c->shift_ncpus = (int)ncpus;
	for (uint32_t i = 0; i < ncpus; i++)
		if (shift_cpu(d, &c->shift_cpu[i]))
			return -1;
	if (rd_left(d)) /* trace-cmd 3.0 on: the fraction bits */
		for (uint32_t i = 0; i < ncpus; i++)
			for (uint32_t k = 0; k < c->shift_cpu[i].n; k++) {
				int64_t f = (int64_t)rd_u64(d);
				if (f < 0 || f > 63)
					return -1;
				c->shift_cpu[i].s[k].fraction = f;
			}
	if (d->bad)
		return -1;
	for (uint32_t i = 0; i < ncpus; i++)
		if (shift_sort(&c->shift_cpu[i]))
			return -1;
	return 0;
}

static void shift_free(struct tdclock *c)
{
	for (int i = 0; i < c->shift_ncpus; i++)
		free(c->shift_cpu[i].s);
	free(c->shift_cpu);
	c->shift_cpu = NULL;
	c->shift_ncpus = 0;
	c->shift_on = false;
}

/* The samples, counted, and what trace-cmd does with them, into @buf. */
static void shift_describe(const struct tdclock *c, char *buf, size_t n)
{
	uint64_t total = 0;

	for (int i = 0; i < c->shift_ncpus; i++)
		total += c->shift_cpu[i].n;
	snprintf(buf, n, "%" PRIu64 " samples over %d CPUs, %s, host trace id 0x%" PRIx64, total,
		 c->shift_ncpus, c->shift_flags & 1 ? "interpolated" : "not interpolated",
		 c->shift_peer);
}

static int time_shift_option(struct fmt_reader *r, struct tdclock *c, const uint8_t *p,
			     uint32_t n, struct fmt_option *o, struct err_msg *err)
{
	struct rd d = rd_init(p, n, r->swap);

	if (n < 16) {
		o->use = FMT_OPTION_IGNORED;
		snprintf(o->note, sizeof(o->note), "%u bytes, shorter than 16: ignored, as "
			 "trace-cmd does", n);
		return 0;
	}
	shift_free(c); /* a later one replaces it, as in trace-cmd */
	c->shift_peer = rd_u64(&d);
	c->shift_flags = rd_u32(&d);
	if (shift_samples(c, &d)) {
		shift_free(c);
		return FAIL("TIME_SHIFT option (%u bytes): truncated or absurd samples "
			    "(trace-cmd cannot read this file either)", n);
	}
	c->shift_on = c->shift_ncpus > 0;
	o->use = c->shift_on ? FMT_OPTION_APPLIED : FMT_OPTION_IGNORED;
	if (c->shift_on)
		shift_describe(c, o->note, sizeof(o->note));
	else
		snprintf(o->note, sizeof(o->note), "no CPUs: nothing to shift");
	return 0;
}

/* Append printf text to the GUEST descriptions. */
static void guests_add(struct tdclock *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void guests_add(struct tdclock *c, const char *fmt, ...)
{
	size_t old = c->guests ? strlen(c->guests) : 0;
	char piece[256];
	char *g;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	g = realloc(c->guests, old + strlen(piece) + 1);
	if (!g)
		return;
	strcpy(g + old, piece);
	c->guests = g;
}

/* GUEST: name, trace id, vCPU count, then (vCPU, host pid) pairs. */
static void guest_option(struct fmt_reader *r, struct tdclock *c, const uint8_t *p, uint32_t n,
			 struct fmt_option *o)
{
	size_t len = strnlen((const char *)p, n);
	struct rd d = rd_init(p, n, r->swap);
	uint64_t id;
	uint32_t ncpu;
	int at;

	rd_bytes(&d, len + 1);
	id = rd_u64(&d);
	ncpu = rd_u32(&d);
	if (d.bad || ncpu > MAX_GUEST_CPUS || ncpu > rd_left(&d) / 8) {
		/* trace-cmd drops it too, without a word */
		o->use = FMT_OPTION_IGNORED;
		snprintf(o->note, sizeof(o->note), "malformed (%u bytes): not read", n);
		return;
	}
	at = snprintf(o->note, sizeof(o->note), "guest '%.*s', trace id 0x%" PRIx64 ", %u vCPUs",
		      (int)(len > 64 ? 64 : len), (const char *)p, id, ncpu);
	guests_add(c, "%s'%.*s' (trace id 0x%" PRIx64 "): %u vCPUs", c->guests ? "; " : "",
		   (int)(len > 64 ? 64 : len), (const char *)p, id, ncpu);
	for (uint32_t i = 0; i < ncpu; i++) {
		uint32_t cpu = rd_u32(&d), pid = rd_u32(&d);

		if (at > 0 && (size_t)at < sizeof(o->note))
			at += snprintf(o->note + at, sizeof(o->note) - (size_t)at,
				       "%s vCPU %u host pid %u", i ? "," : ":", cpu, pid);
		if (i < 16)
			guests_add(c, "%s vCPU %u on host pid %u", i ? "," : "", cpu, pid);
	}
	o->use = FMT_OPTION_SHOWN;
}

/* DATE (microseconds, "0x..." text) and OFFSET (nanoseconds), summed as trace-cmd does. */
static void offset_option(struct tdclock *c, uint16_t id, const uint8_t *p, uint32_t n,
			  struct fmt_option *o)
{
	char *s = strndup((const char *)p, n);
	long long v = s ? strtoll(s, NULL, 0) : 0;

	free(s);
	o->use = FMT_OPTION_APPLIED;
	if (id == FMT_OPT_DATE) {
		c->date_us += v;
		c->add_ns += v * 1000;
		snprintf(o->note, sizeof(o->note), "%+lld us to the wall clock", v);
	} else {
		c->offset_ns += v;
		c->add_ns += v;
		snprintf(o->note, sizeof(o->note), "%+lld ns", v);
	}
}

int tdclock_option(struct fmt_reader *r, struct tdclock *c, uint16_t id, const uint8_t *p,
		    uint32_t n, struct fmt_option *o, struct err_msg *err)
{
	switch (id) {
	case FMT_OPT_TRACECLOCK:
		if (traceclock_option(c, p, n, o))
			return FAIL("out of memory");
		return 0;
	case FMT_OPT_TSC2NSEC:
		return tsc2nsec_option(r, c, p, n, o, err);
	case FMT_OPT_TIME_SHIFT:
		return time_shift_option(r, c, p, n, o, err);
	case FMT_OPT_GUEST:
		guest_option(r, c, p, n, o);
		return 0;
	case FMT_OPT_DATE:
	case FMT_OPT_OFFSET:
		offset_option(c, id, p, n, o);
		return 0;
	}
	return 0;
}

/* ---- the arithmetic, as trace-cmd's reader does it ---------------------- */

uint64_t tdclock_mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned shift)
{
	uint64_t lo = (uint32_t)a, hi = a >> 32;
	uint64_t ret = (lo * mul) >> shift;

	if (hi)
		ret += shift <= 32 ? (hi * mul) << (32 - shift) : (hi * mul) >> (shift - 32);
	return ret;
}

/*
 * @ts on the host's clock, from the samples @lo and @hi around it: the
 * offset interpolated between them (or @lo's), the rate of @lo. Signed
 * overflows wrap, as trace-cmd's build does.
 */
static uint64_t correct(uint64_t ts, uint32_t flags, const struct tdclock_sample *lo,
			const struct tdclock_sample *hi)
{
	int64_t cor = lo->offset;

	if (flags & 1) {
		int64_t delta = (int64_t)((uint64_t)hi->time - (uint64_t)lo->time);
		int64_t num = (int64_t)(((uint64_t)ts - (uint64_t)lo->time) *
					((uint64_t)hi->offset - (uint64_t)lo->offset));

		int64_t rounded = (int64_t)((uint64_t)num + (uint64_t)(delta / 2));

		/* x / -1 is -x, wrapped: INT64_MIN / -1 would trap (SIGFPE) */
		if (delta == -1)
			cor = (int64_t)((uint64_t)lo->offset - (uint64_t)rounded);
		else if (delta)
			cor = (int64_t)((uint64_t)lo->offset + (uint64_t)(rounded / delta));
	}
	ts = (ts * (uint64_t)lo->scaling) >> lo->fraction;
	return ts + (uint64_t)cor;
}

uint64_t tdclock_host_sync(const struct tdclock *c, uint64_t ts, int cpu)
{
	const struct tdclock_shift_cpu *sc;
	uint32_t lo, hi;

	if (cpu < 0 || cpu >= c->shift_ncpus)
		return ts;
	sc = &c->shift_cpu[cpu];
	if (sc->n == 0) /* trace-cmd reads past its array: darc leaves it */
		return ts;
	if (sc->n == 1)
		return ts + (uint64_t)sc->s[0].offset;
	if (ts <= (uint64_t)sc->s[0].time)
		return correct(ts, c->shift_flags, &sc->s[0], &sc->s[1]);
	if (ts >= (uint64_t)sc->s[sc->n - 1].time)
		return correct(ts, c->shift_flags, &sc->s[sc->n - 2], &sc->s[sc->n - 1]);
	/* the last sample at or before @ts: then s[lo] <= ts < s[lo + 1] */
	lo = 0;
	hi = sc->n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)sc->s[mid].time <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return correct(ts, c->shift_flags, &sc->s[lo], &sc->s[lo + 1]);
}

/* ---- what it all comes to ------------------------------------------------ */

/* printf to a new string, or NULL. */
static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* The conversion applied, one line, into @buf (empty: none). */
static void describe_conv(const struct tdclock *c, const char *clock, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = 0;
#define PUT(...)                                                                                   \
	do {                                                                                       \
		if (at < n)                                                                        \
			at += (size_t)snprintf(buf + at, n - at, __VA_ARGS__);                     \
	} while (0)
	if (c->shift_on) {
		char d[160];

		shift_describe(c, d, sizeof(d));
		PUT("guest clock shifted to the host's by TIME_SHIFT: %s", d);
	}
	if (c->mult)
		PUT("%s%s counts converted to ns by TSC2NSEC (mult %" PRIu32 ", shift %" PRIu32 ")",
		    at ? "; " : "", clock, c->mult, c->shift);
	if (c->date_us)
		PUT("%s%+" PRId64 " us to the wall clock (DATE)", at ? "; " : "", c->date_us);
	if (c->offset_ns)
		PUT("%s%+" PRId64 " ns (OFFSET)", at ? "; " : "", c->offset_ns);
#undef PUT
}

/* Why @clock's counts are no nanoseconds, or NULL when they are. */
static char *why_not_ns(const struct tdclock *c, const char *clock)
{
	if (c->mult || clock_in_ns(clock))
		return NULL;
	if (!strcmp(clock, "x86-tsc") || !strcmp(clock, "tsc2nsec"))
		return str_printf("x86-tsc counts, not nanoseconds, and no TSC2NSEC option to "
				  "convert them (record with --tsc2nsec)");
	if (!strcmp(clock, "counter"))
		return str_printf("counter clock counts (an event counter, no time), and no "
				  "TSC2NSEC option to convert them");
	if (!strcmp(clock, "uptime"))
		return str_printf("uptime clock ticks (jiffies), not nanoseconds, and no TSC2NSEC "
				  "option to convert them");
	return str_printf("counts of clock '%.64s', of no known unit, and no TSC2NSEC option "
			  "to convert them",
			  clock);
}

int tdclock_finish(struct fmt_reader *r, struct tdclock *c, const char *buffer_clock,
		    struct err_msg *err)
{
	const char *clock = c->clock;
	char conv[512];

	if (!clock) /* no TRACECLOCK: the top buffer's (v7), else trace-cmd's default */
		clock = buffer_clock && *buffer_clock ? buffer_clock : "local";
	if (!strcmp(clock, "tsc2nsec")) /* only trace-cmd's name for converted TSC */
		clock = "x86-tsc";
	r->info.trace_clock = clock;
	describe_conv(c, clock, conv, sizeof(conv));
	c->conv = *conv ? strdup(conv) : NULL;
	c->not_ns = why_not_ns(c, clock);
	if (*conv && !c->conv)
		return FAIL("out of memory");
	c->active = c->shift_on || c->mult || c->add_ns;
	r->info.ts_conv = c->conv;
	r->info.ts_not_ns = c->not_ns;
	r->info.ts_report_secs = c->in_usecs;
	r->info.ts_offset = c->add_ns;
	return 0;
}

void tdclock_free(struct tdclock *c)
{
	shift_free(c);
	free(c->clock);
	free(c->clock_list);
	free(c->conv);
	free(c->not_ns);
	free(c->guests);
}
