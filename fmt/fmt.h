/* SPDX-License-Identifier: MIT */
/*
 * fmt: recording formats.
 *
 * A reader opens one recording and yields a single time-ordered stream of
 * raw events, merged across CPUs and trace buffers (instances). Decoding a
 * field is left to libtraceevent (fmt_reader_tep() and the event's
 * struct tep_event), so a consumer pays only for the fields it reads.
 *
 * Every function that can fail takes a struct err_msg and fills it with a
 * one-line message that names the file and what is wrong; nothing here
 * prints or exits.
 *
 * This header holds the types a reader yields; reader.h declares the
 * reader's functions (reader.c), events.h the event formats' (events.c).
 */
#ifndef DARC_FMT_H
#define DARC_FMT_H

#include <stdbool.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

/* Lost events before an event whose count the kernel did not record. */
#define FMT_MISSED_UNKNOWN UINT64_MAX

/*
 * One event, as stored in the ring buffer. The pointers stay valid until the
 * next call of fmt_reader_next() (they point into the mapped file or a
 * decompressed chunk); copy what must live longer.
 */
struct fmt_event {
	uint64_t ts;		 /* timestamp, ns (or clock ticks), offsets applied */
	const void *data;	 /* the record: common fields then the event's own */
	uint32_t size;		 /* bytes at data */
	uint16_t cpu;		 /* CPU the event was recorded on */
	uint16_t buffer;	 /* index into fmt_info.buffers */
	int32_t pid;		 /* common_pid */
	uint16_t type;		 /* common_type, the event id */
	uint8_t flags;		 /* common_flags (TRACE_FLAG_*: irq context bits) */
	uint8_t preempt;	 /* common_preempt_count */
	struct tep_event *event; /* the event's format, NULL for an unknown id */
	uint64_t missed;	 /* events lost on this cpu just before this one:
				    0 none, FMT_MISSED_UNKNOWN if not counted */
};

/* Bits of common_flags (the kernel's enum trace_flag_type). */
enum {
	FMT_FLAG_IRQS_OFF = 0x01,
	FMT_FLAG_NEED_RESCHED = 0x04,
	FMT_FLAG_HARDIRQ = 0x08,
	FMT_FLAG_SOFTIRQ = 0x10,
	FMT_FLAG_PREEMPT_RESCHED = 0x20,
	FMT_FLAG_NMI = 0x40,
	FMT_FLAG_BH_OFF = 0x80,
};

/* One trace buffer: the top instance ("") or a named one. */
struct fmt_buffer {
	char *name;	  /* "" for the top instance */
	char *clock;	  /* trace clock of its timestamps, e.g. "local" */
	int ncpus;	  /* CPUs with data in this buffer */
	int *cpu_ids;	  /* [ncpus] the CPU number of each */
	uint64_t *bytes;  /* [ncpus] stored data bytes per CPU (as in the file) */
	char *cpustats;	  /* per_cpu stats text saved at record time, or NULL */
};

/* Which options of a trace.dat file darc used (fmt_info.options). */
enum fmt_option_use {
	FMT_OPTION_APPLIED, /* read and acted on (a clock, a conversion, metadata) */
	FMT_OPTION_SHOWN,   /* read and shown by darc info, not needed to read events */
	FMT_OPTION_IGNORED, /* not applied: darc info lists it, with why */
};

/* One option of a trace.dat file, in file order, and what darc did with it. */
struct fmt_option {
	uint16_t id;		  /* trace-cmd's option id */
	const char *name;	  /* its name ("TSC2NSEC"), or "unknown" */
	enum fmt_option_use use;
	char note[200];		  /* what it said, or why it was not applied */
};

/*
 * An event format the reader refused: one a screen of fmt/events.c finds
 * would crash libtraceevent, or that libtraceevent cannot parse. Its
 * events are yielded with no format (fmt_event.event NULL).
 */
struct fmt_refused {
	char event[160];  /* "system:name", as the format names them */
	int id;		  /* its id (common_type) */
	const char *why;  /* the rule its text breaks, or what failed, in words */
	uint64_t events;  /* its events yielded so far */
};

/* What a recording says about itself. Owned by the reader. */
struct fmt_info {
	const char *path;
	const char *format;	     /* "trace.dat" */
	int version;		     /* file format version: 6 or 7 */
	bool big_endian;	     /* file byte order */
	int long_size;		     /* user-space long size of the traced box */
	int page_size;		     /* ring-buffer page size */
	const char *compression;     /* "none", "zstd" or "zlib" */
	const char *compression_ver; /* as written by the recorder, or "" */
	const char *uname;	     /* kernel/host, or NULL if not saved */
	const char *tracer_version;  /* recording tool's version, or NULL */
	const char *clock;	     /* clock of the first buffer with data */
	int cpus;		     /* CPUs of the traced machine */
	int nbuffers;
	struct fmt_buffer *buffers;
	uint64_t kallsyms_bytes;
	uint64_t printk_bytes;
	uint64_t cmdlines_bytes;
	int nevent_formats;	   /* formats parsed (ftrace + systems) */
	int unknown_options;	   /* options skipped because unknown */
	int bad_lines;		   /* malformed kallsyms/printk/cmdline lines skipped */
	/* perf.data: what the reader passes over, counted as it reads */
	uint64_t skipped_samples;  /* samples of events that are no tracepoint with RAW data */
	uint64_t skipped_records;  /* records not needed (MMAP, EXIT, simpleperf's own...) */
	int64_t ts_offset;	   /* ns added to every timestamp (OFFSET and DATE options) */
	const char *trace_clock;   /* the kernel trace clock the events were stamped
				      with ("x86-tsc" where clock says "tsc2nsec"), or NULL */
	const char *ts_conv;	   /* how the timestamps were brought to ns, one
				      line ("x86-tsc counts converted to ns by
				      TSC2NSEC (mult M, shift S)"), or NULL: as read */
	const char *ts_not_ns;	   /* why the timestamps are no nanoseconds ("x86-tsc
				      counts, not nanoseconds, and no TSC2NSEC
				      option to convert them"), or NULL:
				      analysis refuses such a file, dump and info
				      show the counts */
	bool ts_report_secs;	   /* trace-cmd report prints them as seconds (its
				      IN_USECS rule), else as raw counts */
	struct fmt_option *options; /* trace.dat: every option, in file order */
	int noptions;
	const char *manifest_json; /* darc manifest, NULL unless a darc bundle */
	bool latency_text;	   /* the file holds text (latency) data only */
	bool user_funcs;	   /* function_graph records name user functions (uftrace) */
	const char *lacks;	   /* what this format cannot tell, comma-separated
				      ("kallsyms, lost events"), or NULL */
	const char *skipped;	   /* what the reader passed over on purpose, counted
				      ("2 '##### CPU N buffer started' lines"), or NULL */
	/* the formats refused so far: formats are parsed when first needed
	   (an event of theirs read, or looked for), so at the end of the
	   events every format with an event is here or parsed */
	struct fmt_refused *refused;
	int nrefused;
};

/* An open recording (reader.h); its fields are fmt/backend.h's. */
struct fmt_reader;

/* Flags of fmt_reader_open(). */
enum {
	FMT_OPEN_NO_KALLSYMS = 1 << 0, /* parse kallsyms only when asked, with
					  fmt_reader_load_kallsyms() (they are only
					  needed to name kernel functions) */
	FMT_OPEN_SERIAL = 1 << 1,      /* read in the calling thread only, no
					  reading threads: the same work in the
					  same order every run (the fuzz targets) */
};

/*
 * A function's parameter as the recording names it: ftrace text prints the
 * arguments function_graph saved (funcgraph-args) with the names and types
 * the kernel's BTF gives; a trace.dat keeps only the argument registers.
 */
struct fmt_param {
	const char *name; /* "" where the text printed no name */
	int slots;	  /* argument registers it takes (a struct may take two) */
	char kind;	  /* 'd' printed as a signed number, 'x' in hex */
};

/* Lost-event marks seen so far on (buffer, cpu index), and events read. */
struct fmt_cpu_stats {
	uint64_t events;      /* events yielded */
	uint64_t lost;	      /* sum of counted lost events */
	uint64_t lost_marks;  /* pages that said events were lost */
	uint64_t lost_uncounted; /* marks without a count */
	uint64_t pages;	      /* ring-buffer pages walked */
};

#endif
