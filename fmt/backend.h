/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: what every format's reader implements (struct
 * fmt_backend) and shares (struct fmt_reader). The event formats are
 * events.h's, the tracing data tracing-data.h's.
 */
#ifndef DARC_BACKEND_H
#define DARC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err-msg.h"
#include "fmt.h"
#include "kmod.h"
#include "ksyms.h"

/* An event format found in the file, parsed by libtraceevent when first needed. */
struct fmt_format {
	const char *sys;  /* system name (NUL-terminated) */
	const char *text; /* the format file's text */
	uint32_t len;
	const char *name; /* "name: " value inside text, not NUL-terminated */
	uint32_t name_len;
	int id;
	int refused; /* index into info.refused + 1 once refused, else 0 */
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
 * The reader of one format (fmt_backends[], backends.c), chosen by
 * content. open() gets the mapped file (r->map, r->file_len) and
 * fills r->tep, r->info and r->be_priv; it may fill r->formats (through
 * fmt_events_add_format()) so that fmt_events_find() works, and r->streams
 * (one per CPU, only ->buffer, ->index, ->cpu and ->st used) for
 * fmt_reader_cpu_stats(). next() yields events as fmt_reader_next() does.
 * close() frees r->be_priv only.
 */
struct fmt_backend {
	const char *name;
	bool (*probe)(const uint8_t *p, uint64_t len); /* is this file mine? */
	int (*open)(struct fmt_reader *r, struct err_msg *err);
	int (*next)(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err);
	void (*close)(struct fmt_reader *r);
	/* optional: fmt_reader_load_kallsyms() of kallsyms not in r->ksyms */
	int (*load_kallsyms)(struct fmt_reader *r, struct err_msg *err);
	/* optional: fmt_reader_clock_ts() (else times are taken as they are) */
	uint64_t (*clock_ts)(const struct fmt_reader *r, uint64_t raw, int cpu);
	/* optional: fmt_reader_func_params() */
	bool (*func_params)(const struct fmt_reader *r, uint64_t addr,
			    const struct fmt_param **p, int *n);
};

/* The backends, NULL-terminated (backends.c). */
extern const struct fmt_backend *const fmt_backends[];

struct fmt_reader {
	const struct fmt_backend *be; /* the format's reader */
	void *be_priv;
	char *path;
	unsigned flags; /* FMT_OPEN_* */
	int fd;
	uint8_t *map; /* the file, followed by MAP_SLACK bytes of zeros (reader.c) */
	uint64_t file_len;
	size_t map_total;
	bool swap;
	struct tep_handle *tep;
	struct fmt_info info;
	int kernel_long; /* size of the kernel's long (page header commit) */
	int page_hdr;	 /* bytes of page header before the events */
	/* one per CPU of each buffer, in order of buffer, then CPU index */
	struct stream *streams;
	int nstreams;
	/* event formats, indexed at open and parsed on first use */
	struct fmt_format *formats;
	int nformats, formats_cap;
	int refused_cap;	   /* room in info.refused */
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
	struct ksyms ksyms_tab;	   /* kallsyms' functions, libtraceevent's resolver */
	/* owned strings */
	char *uname, *tracer_version;
};

/* err_setf() naming the reader's file: for functions with @r and @err at hand */
#define FAIL(...) err_setf(err, r->path, __VA_ARGS__)

/*
 * Whether @ev (its format set) is a record libtraceevent must not read as
 * it is: common fields not at 0 and 4 (r->bad_layout), or a record shorter
 * than its format's fixed fields (it would read past the record).
 */
static inline bool fmt_event_short(const struct fmt_reader *r, const struct fmt_event *ev)
{
	return r->bad_layout || (ev->event && ev->size < r->ev_full_size[ev->type]);
}

#endif
