/* SPDX-License-Identifier: MIT */
/*
 * How a trace.dat's timestamps become the ones trace-cmd report prints
 * (tdclock.c): the clock options, read in file order, and the conversion of
 * each event's raw timestamp.
 */
#ifndef DARC_TDCLOCK_H
#define DARC_TDCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct fmt_reader;
struct fmt_option;
struct err_msg;

/*
 * One TimeShift sample of a guest's CPU: from guest time @time on, the
 * host's clock is the guest's times @scaling >> @fraction, plus @offset.
 */
struct tdclock_sample {
	int64_t time;	  /* guest clock, when the sample was taken */
	int64_t offset;	  /* host minus guest, then */
	int64_t scaling;  /* guest-to-host rate, a fixed-point number ... */
	int64_t fraction; /* ... with this many fraction bits */
};

/* The TimeShift samples of one guest CPU, sorted by time, no two at one time. */
struct tdclock_shift_cpu {
	struct tdclock_sample *s;
	uint32_t n;
};

/*
 * How a trace.dat's timestamps become the ones trace-cmd report prints
 * (tdclock.c): the options that say so, read in file order.
 */
struct tdclock {
	char *clock;	     /* the trace clock in use, "[name]" of TRACECLOCK */
	char *clock_list;    /* TRACECLOCK's whole text, as written */
	bool have_clockopt;  /* a TRACECLOCK option was read (v6: then the clock
				after the CPU table counts too) */
	bool in_usecs;	     /* trace-cmd's IN_USECS: seconds, else raw counts */
	uint32_t mult, shift; /* TSC2NSEC: ns = counts * mult >> shift; mult 0: none */
	int64_t tsc_offset;  /* TSC2NSEC's offset (trace-cmd's reader does not add it) */
	bool shift_on;	     /* TIME_SHIFT read: guest times shifted to the host's */
	uint64_t shift_peer; /* the host's trace id */
	uint32_t shift_flags; /* bit 0: interpolate between samples */
	int shift_ncpus;
	struct tdclock_shift_cpu *shift_cpu; /* [shift_ncpus] */
	int64_t date_us;     /* DATE: microseconds to the wall clock (summed) */
	int64_t offset_ns;   /* OFFSET: nanoseconds (summed) */
	int64_t add_ns;	     /* both, in ns: added to every converted timestamp */
	bool active;	     /* something to compute per event */
	char *conv;	     /* fmt_info.ts_conv */
	char *not_ns;	     /* fmt_info.ts_not_ns */
	char *guests;	     /* the GUEST options, described, "; "-separated */
};

/* Read clock option @id (TRACECLOCK, TSC2NSEC, TIME_SHIFT, DATE, OFFSET, GUEST). */
int tdclock_option(struct fmt_reader *r, struct tdclock *c, uint16_t id, const uint8_t *p,
		    uint32_t n, struct fmt_option *o, struct err_msg *err);

/* The clock named after a v6 file's top CPU table, "[name]" (@p, @n bytes). */
void tdclock_v6_name(struct tdclock *c, const char *p, uint64_t n);

/* Once the options are read: fill @r's info (ts_conv, ts_not_ns, ...). 0 or -1. */
int tdclock_finish(struct fmt_reader *r, struct tdclock *c, const char *buffer_clock,
		    struct err_msg *err);

/* Free what the clock options allocated. */
void tdclock_free(struct tdclock *c);

/* The guest CPU @cpu's timestamp @ts on the host's clock (TimeShift). */
uint64_t tdclock_host_sync(const struct tdclock *c, uint64_t ts, int cpu);

/* Multiply by a 32-bit @mul and shift right by @shift, as the kernel's helper. */
uint64_t tdclock_mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned shift);

/* Raw timestamp @ts of CPU @cpu as trace-cmd report prints it: shifted, scaled, offset. */
static inline uint64_t tdclock_ts(const struct tdclock *c, uint64_t ts, int cpu)
{
	if (!c->active)
		return ts;
	if (c->shift_on)
		ts = tdclock_host_sync(c, ts, cpu);
	if (c->mult)
		ts = tdclock_mul_u64_u32_shr(ts, c->mult, c->shift);
	return ts + (uint64_t)c->add_ns;
}

#endif
