/* SPDX-License-Identifier: MIT */
/* Internal to fmt/: the trace.dat ids and the reader's shared steps. */
#ifndef DARC_TRACEDAT_H
#define DARC_TRACEDAT_H

#include <stdint.h>

#include "fmt.h"
#include "kmod.h"

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

#include <stdbool.h>

#include "rd.h"

struct decomp;

/* An event format found in the file, parsed by libtraceevent when first needed. */
struct fmt_format {
	const char *sys;  /* system name (NUL-terminated) */
	const char *text; /* the format file's text */
	uint32_t len;
	const char *name; /* "name: " value inside text, not NUL-terminated */
	uint32_t name_len;
	int id;
};

/* A stream in the merge heap, with its sort key at hand. */
struct heap_ent {
	unsigned long long ts;
	uint32_t order; /* buffer << 16 | cpu: ties go to the lower */
	int stream;
};

/* One CPU of one buffer: a sequence of ring-buffer pages. */
struct stream {
	int buffer;	/* index into info.buffers */
	int cpu;	/* CPU number */
	int index;	/* CPU index within the buffer */
	/* where the data lives */
	const uint8_t *src; /* pages, or the chunk list when compressed */
	uint64_t src_len;
	bool compressed;			  /* src is a chunk list */
	const struct prefetch_chunk *chunk; /* what prefetch.c read ahead, being merged */
	uint32_t irec, imark;		  /* the next record and lost-events mark in it */
	/* the current event */
	void *data;
	uint32_t size;
	unsigned long long ts;
	uint64_t missed; /* lost events before the current one */
	struct fmt_cpu_stats st;
};

struct fmt_reader;

/*
 * A reader of another format than trace.dat (fmt_backends[], backends.c),
 * chosen by content. open() gets the mapped file (r->map, r->file_len) and
 * fills r->tep, r->info and r->be_priv; it may fill r->formats (through
 * fmt_add_format()) so that fmt_reader_find_event() works, and r->streams
 * (one per CPU, only ->buffer, ->index, ->cpu and ->st used) for
 * fmt_reader_cpu_stats(). next() yields events as fmt_reader_next() does.
 * close() frees r->be_priv only.
 */
struct fmt_backend {
	const char *name;
	bool (*probe)(const uint8_t *p, uint64_t len); /* is this file mine? */
	int (*open)(struct fmt_reader *r, struct fmt_err *err);
	int (*next)(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err);
	void (*close)(struct fmt_reader *r);
	/* optional: fmt_reader_func_params() */
	bool (*func_params)(const struct fmt_reader *r, uint64_t addr,
			    const struct fmt_param **p, int *n);
};

/* The backends, NULL-terminated (backends.c). */
extern const struct fmt_backend *const fmt_backends[];

struct fmt_reader {
	const struct fmt_backend *be; /* NULL for trace.dat */
	void *be_priv;
	char *path;
	unsigned flags; /* FMT_OPEN_* */
	int fd;
	uint8_t *map; /* the file, followed by MAP_SLACK bytes of zeros */
	uint64_t file_len;
	size_t map_total;
	bool swap;
	struct tep_handle *tep;
	struct decomp *dc;
	struct fmt_info info;
	int kernel_long; /* size of the kernel's long (page header commit) */
	int page_hdr;	 /* bytes of page header before the events */
	/* streams and their merge heap */
	struct stream *streams;
	int nstreams;
	struct heap_ent *heap; /* min-heap of streams on (ts, order) */
	struct prefetch *prefetch; /* decompresses compressed streams ahead */
	int nheap;
	int cur; /* stream whose event was returned last, or -1 */
	bool started;
	/* event formats, indexed at open and parsed on first use */
	struct fmt_format *formats;
	int nformats, formats_cap;
	int32_t *format_of_id;	   /* [65536] index into formats + 1, 0 none */
	struct tep_event **ev_of_id; /* [65536] parsed formats */
	uint8_t *ev_done;	   /* [65536] 1 once ev_of_id[id] is final */
	uint16_t *ev_min_size;	   /* [65536] bytes a record needs: its fixed fields but a
				      trailing array, which may be cut (kernel_stack's caller[8]) */
	uint16_t *ev_full_size;	   /* [65536] bytes its fixed fields take */
	uint8_t *pad;		   /* a short record, padded with zeros to its full size */
	size_t pad_cap;
	bool bad_layout;	   /* a format's common fields are not where read */
	const uint8_t *ksyms;	   /* v6: kallsyms text in the mapping, parsed lazily */
	uint64_t ksyms_len;
	bool ksyms_done;	   /* kallsyms parsed (or there are none) */
	struct kmod_map kmods;	   /* the modules of the module symbols */
	uint8_t **kept;		   /* decompressed sections formats point into */
	int nkept;
	/* v7: sections found by options */
	uint64_t sec_off[FMT_SEC_MAX];
	/* owned strings and buffers */
	char *uname, *tracer_version, *manifest, *compression_ver;
	char *cpustats_top;
	int buffers_cap;
};


#define FAIL(...) fmt_errf(err, r->path, __VA_ARGS__)

/* Take an option both versions share (uname, version, cpustat, ...). */
int fmt_handle_option(struct fmt_reader *r, uint16_t id, const uint8_t *p, uint32_t n,
		      struct fmt_err *err);

/*
 * The format of event @id, parsed on first use; NULL if the file has none
 * (or libtraceevent cannot parse it). Sets r->bad_layout when the format's
 * common fields are not where the reader takes type and pid from.
 */
struct tep_event *fmt_event_format(struct fmt_reader *r, int id);
/*
 * Whether @ev (its format set) is a record libtraceevent must not read as
 * it is: common fields not at 0 and 4 (r->bad_layout), or a record shorter
 * than its format's fixed fields (it would read past the record).
 */
static inline bool fmt_event_short(const struct fmt_reader *r, const struct fmt_event *ev)
{
	return r->bad_layout || (ev->event && ev->size < r->ev_full_size[ev->type]);
}

/*
 * Such an event: a record whose only the trailing array is cut (as the
 * kernel writes kernel_stack) gets a copy padded with zeros (ev->data; its
 * size stays); anything shorter is an error. 0, or -1 with @err set.
 */
int fmt_event_pad(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err);

/*
 * Allocate the libtraceevent handle and the format tables, for the byte
 * order, long size and page size already in r->info. 0 or -1.
 */
int fmt_init_tep(struct fmt_reader *r, struct fmt_err *err);

/*
 * Parse the metadata trace.dat v6 and perf.data's HEADER_TRACING_DATA share:
 * header_page/header_event, ftrace and event formats, kallsyms, printk
 * formats and cmdlines. 0 or -1.
 */
struct rd;
int fmt_parse_tracing_data(struct fmt_reader *r, struct rd *d, struct fmt_err *err);

/*
 * Index the event format text @p (@n bytes, which must outlive the reader) of
 * system @sys; parsed on first use. Texts without a name or id are skipped.
 */
int fmt_add_format(struct fmt_reader *r, const char *sys, const char *p, uint64_t n,
		   struct fmt_err *err);

/* Prepare the per-CPU streams once the metadata is read. */
int fmt_streams_init(struct fmt_reader *r, struct fmt_err *err);

#endif
