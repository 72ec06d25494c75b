/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat format (trace-cmd's file, versions 6 and 7): the option and
 * section ids its reader (tracedat.c) and writer (writer.c) share, and the
 * reader's own state, which tracedat.c keeps and stream.c merges the CPUs with.
 */
#ifndef DARC_TRACEDAT_H
#define DARC_TRACEDAT_H

#include <stdbool.h>
#include <stdint.h>

/* Option ids (trace-cmd's enum tracecmd_file_options) and v7 section ids. */
enum {
	FMT_OPT_DONE = 0,
	FMT_OPT_DATE = 1,
	FMT_OPT_CPUSTAT = 2,
	FMT_OPT_BUFFER = 3,
	FMT_OPT_TRACECLOCK = 4,
	FMT_OPT_UNAME = 5,
	FMT_OPT_HOOK = 6,
	FMT_OPT_OFFSET = 7,
	FMT_OPT_CPUCOUNT = 8,
	FMT_OPT_VERSION = 9,
	FMT_OPT_PROCMAPS = 10,
	FMT_OPT_TRACEID = 11,
	FMT_OPT_TIME_SHIFT = 12,
	FMT_OPT_GUEST = 13,
	FMT_OPT_TSC2NSEC = 14,
	FMT_OPT_STRINGS = 15,
	FMT_OPT_HEADER_INFO = 16,
	FMT_OPT_FTRACE_EVENTS = 17,
	FMT_OPT_EVENT_FORMATS = 18,
	FMT_OPT_KALLSYMS = 19,
	FMT_OPT_PRINTK = 20,
	FMT_OPT_CMDLINES = 21,
	FMT_OPT_BUFFER_TEXT = 22,
	/* darc's own: the bundle manifest (JSON), unknown to trace-cmd */
	FMT_OPT_DARC_MANIFEST = 0x4441,
};

enum {
	FMT_SEC_OPTIONS = 0,
	FMT_SEC_HEADER_INFO = FMT_OPT_HEADER_INFO,
	FMT_SEC_FTRACE_EVENTS = FMT_OPT_FTRACE_EVENTS,
	FMT_SEC_EVENT_FORMATS = FMT_OPT_EVENT_FORMATS,
	FMT_SEC_KALLSYMS = FMT_OPT_KALLSYMS,
	FMT_SEC_PRINTK = FMT_OPT_PRINTK,
	FMT_SEC_CMDLINES = FMT_OPT_CMDLINES,
	FMT_SEC_MAX = 32,
};

#define FMT_SEC_FL_COMPRESS 1

/*
 * One TimeShift sample of a guest's CPU: from guest time @time on, the
 * host's clock is the guest's times @scaling >> @fraction, plus @offset.
 */
struct td_sample {
	int64_t time;	  /* guest clock, when the sample was taken */
	int64_t offset;	  /* host minus guest, then */
	int64_t scaling;  /* guest-to-host rate, a fixed-point number ... */
	int64_t fraction; /* ... with this many fraction bits */
};

/* The TimeShift samples of one guest CPU, sorted by time, no two at one time. */
struct td_shift_cpu {
	struct td_sample *s;
	uint32_t n;
};

/*
 * How a trace.dat's timestamps become the ones trace-cmd report prints
 * (tdclock.c): the options that say so, read in file order.
 */
struct td_clock {
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
	struct td_shift_cpu *shift_cpu; /* [shift_ncpus] */
	int64_t date_us;     /* DATE: microseconds to the wall clock (summed) */
	int64_t offset_ns;   /* OFFSET: nanoseconds (summed) */
	int64_t add_ns;	     /* both, in ns: added to every converted timestamp */
	bool active;	     /* something to compute per event */
	char *conv;	     /* fmt_info.ts_conv */
	char *not_ns;	     /* fmt_info.ts_not_ns */
	char *guests;	     /* the GUEST options, described, "; "-separated */
};

/* Read clock option @id (TRACECLOCK, TSC2NSEC, TIME_SHIFT, DATE, OFFSET, GUEST). */
int td_clock_option(struct fmt_reader *r, struct td_clock *c, uint16_t id, const uint8_t *p,
		    uint32_t n, struct fmt_option *o, struct fmt_err *err);

/* The clock named after a v6 file's top CPU table, "[name]" (@p, @n bytes). */
void td_clock_v6_name(struct td_clock *c, const char *p, uint64_t n);

/* Once the options are read: fill @r's info (ts_conv, ts_not_ns, ...). 0 or -1. */
int td_clock_finish(struct fmt_reader *r, struct td_clock *c, const char *buffer_clock,
		    struct fmt_err *err);

/* Free what the clock options allocated. */
void td_clock_free(struct td_clock *c);

/* The guest CPU @cpu's timestamp @ts on the host's clock (TimeShift). */
uint64_t td_clock_host_sync(const struct td_clock *c, uint64_t ts, int cpu);

/* Multiply by a 32-bit @mul and shift right by @shift, as the kernel's helper. */
uint64_t td_mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned shift);

/* Raw timestamp @ts of CPU @cpu as trace-cmd report prints it: shifted, scaled, offset. */
static inline uint64_t td_clock_ts(const struct td_clock *c, uint64_t ts, int cpu)
{
	if (!c->active)
		return ts;
	if (c->shift_on)
		ts = td_clock_host_sync(c, ts, cpu);
	if (c->mult)
		ts = td_mul_u64_u32_shr(ts, c->mult, c->shift);
	return ts + (uint64_t)c->add_ns;
}

struct decomp;
struct prefetch;
struct heap_ent;
struct fmt_reader;
struct fmt_event;
struct fmt_err;

/* The trace.dat reader's state: its fmt_reader's be_priv. */
struct tracedat {
	struct decomp *dc;	       /* v7: how its sections and chunks are compressed */
	uint64_t sec_off[FMT_SEC_MAX]; /* v7: sections found by options */
	uint8_t **kept;		       /* decompressed sections formats point into */
	int nkept;
	int buffers_cap;
	/* owned strings */
	char *manifest, *compression_ver;
	char *cpustats_top;
	struct td_clock clk; /* how timestamps become trace-cmd's (tdclock.c) */
	int options_cap;     /* of r->info.options */
	/* the streams' merge (stream.c) */
	struct heap_ent *heap;	   /* min-heap of streams on (ts, order) */
	struct prefetch *prefetch; /* decompresses compressed streams ahead */
	int nheap;
	int cur; /* stream whose event was returned last, or -1 */
	bool started;
};

/* Start reading the streams ahead, once the metadata is read (stream.c). 0 or -1. */
int fmt_streams_init(struct fmt_reader *r, struct fmt_err *err);

/* The next event of the streams merged by time, as fmt_reader_next() (stream.c). */
int fmt_streams_next(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err);

/* Stop reading ahead and free the merge (stream.c). */
void fmt_streams_stop(struct tracedat *t);

#endif
