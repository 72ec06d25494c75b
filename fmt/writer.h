/* SPDX-License-Identifier: MIT */
/*
 * fmt_writer: writes a trace.dat version 7 file, the layout trace-cmd 3.x
 * writes, so that `trace-cmd report` and KernelShark open it and darc's
 * reader (fmt_reader_open) reads it back.
 *
 * The file is built in a temporary file next to the destination and renamed
 * over it by fmt_writer_finish(); fmt_writer_free() without a finish removes
 * it, so a failed or interrupted write never leaves a partial file under the
 * destination's name.
 *
 * Metadata (header_page/header_event, event formats, kallsyms, printk
 * formats, saved cmdlines) is held until the first trace buffer is added or
 * the file is finished, then written as zstd-compressed sections. The ring
 * buffer data of each CPU is streamed from a file descriptor (the raw pages
 * trace_pipe_raw gives) in compressed chunks of a few pages, so a recording
 * of any size passes through a fixed amount of memory.
 *
 * Every function that can fail takes a struct err_msg and fills it with a
 * one-line message naming the file; nothing here prints or exits.
 */
#ifndef DARC_FMT_WRITER_H
#define DARC_FMT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "err-msg.h"
#include "wfile.h"

struct fmt_writer;

/* What fmt_writer_create() writes, for wfile_check() before a long recording. */
extern const struct wfile_kind fmt_writer_kind;

/* How to write the file. Zero fields take the defaults. */
struct fmt_writer_params {
	int page_size;		 /* ring-buffer (sub-buffer) page size; default getpagesize() */
	int long_size;		 /* the traced user space's long; default sizeof(long) */
	const char *compression; /* "zstd" (default when built with zstd) or "none" */
	int level;		 /* zstd level; default 3 */
	int chunk_pages;	 /* pages per compressed data chunk; default 10 (as trace-cmd) */
	bool force;		 /* replace an existing file (never an input: wfile.h) */
};

/* One CPU's data for fmt_writer_add_buffer(). */
struct fmt_writer_cpu {
	int cpu; /* CPU number */
	int fd;	 /* raw ring-buffer pages from the current offset to EOF (read only) */
};

/* What fmt_writer_add_buffer() stored for one CPU. */
struct fmt_writer_cpu_stats {
	uint64_t pages;	     /* whole pages stored */
	uint64_t bytes;	     /* their uncompressed size */
	uint64_t stored;     /* bytes in the file (compressed, with chunk headers) */
	uint64_t tail_bytes; /* bytes after the last whole page, left out */
};

/*
 * Start writing the trace.dat file that will be named @path. @params may be
 * NULL for the defaults. Returns NULL and fills @err on failure. The caller
 * releases the writer with fmt_writer_free(), after fmt_writer_finish() or
 * instead of it.
 */
struct fmt_writer *fmt_writer_create(const char *path, const struct fmt_writer_params *params,
				     struct err_msg *err);

/* Release @w; if it was not finished, remove the temporary file. Accepts NULL. */
void fmt_writer_free(struct fmt_writer *w);

/*
 * Set the ring-buffer layout: the contents of tracefs events/header_page and
 * events/header_event. Required before the first buffer or the finish.
 */
int fmt_writer_set_headers(struct fmt_writer *w, const char *header_page, size_t page_len,
			   const char *header_event, size_t event_len, struct err_msg *err);

/*
 * Add the format of one event (the text of tracefs events/SYS/NAME/format).
 * System "ftrace" goes to the ftrace formats, any other to the event formats
 * grouped by system. The text is copied.
 */
int fmt_writer_add_format(struct fmt_writer *w, const char *system, const char *text, size_t len,
			  struct err_msg *err);

/* The text blobs; each replaces an earlier one and is copied. */
int fmt_writer_set_kallsyms(struct fmt_writer *w, const char *text, size_t len,
			    struct err_msg *err);
int fmt_writer_set_printk(struct fmt_writer *w, const char *text, size_t len, struct err_msg *err);
int fmt_writer_set_cmdlines(struct fmt_writer *w, const char *text, size_t len,
			    struct err_msg *err);

/*
 * Add option @id (FMT_OPT_* of tracedat-ids.h: UNAME, VERSION, TRACECLOCK,
 * CPUSTAT, CPUCOUNT, PROCMAPS, FMT_OPT_DARC_MANIFEST, ...) with @len bytes of
 * @data, copied. Options added before the first buffer go to the options
 * section written before the data, later ones to the last options section.
 * The BUFFER and section options are the writer's own: adding one fails.
 */
int fmt_writer_add_option(struct fmt_writer *w, uint16_t id, const void *data, size_t len,
			  struct err_msg *err);

/* Add a NUL-terminated string option (UNAME, VERSION, ...), with its NUL. */
int fmt_writer_add_option_str(struct fmt_writer *w, uint16_t id, const char *s,
			      struct err_msg *err);

/*
 * Store a trace buffer: @name ("" for the top one) with timestamps of @clock,
 * and for each of the @ncpus CPUs the raw pages read from cpus[i].fd to its
 * end (read with read(2) from the current offset), compressed chunk by chunk.
 * A partial page at the end of a file is left out and counted in @stats
 * (optional, [ncpus]). The first call writes the metadata sections first.
 */
int fmt_writer_add_buffer(struct fmt_writer *w, const char *name, const char *clock, int ncpus,
			  const struct fmt_writer_cpu *cpus, struct fmt_writer_cpu_stats *stats,
			  struct err_msg *err);

/*
 * Write what is pending (metadata if no buffer was added, the last options
 * section, the section descriptions), flush the file to disk and rename it
 * to its destination. Returns 0, or -1 with @err filled (the temporary file
 * is then removed by fmt_writer_free()).
 */
int fmt_writer_finish(struct fmt_writer *w, struct err_msg *err);

/* Bytes written to the file so far. */
uint64_t fmt_writer_size(const struct fmt_writer *w);

#endif
