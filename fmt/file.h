/* SPDX-License-Identifier: MIT */
/*
 * file: opening a recording's files as untrusted input. A recording may be,
 * or hold, a FIFO, a device, a socket or a directory where a file belongs,
 * and a file may be huge or sparse: every file is opened without blocking,
 * refused by kind before anything reads it, and refused when it is larger
 * than its kind of file may be, so that no input hangs darc or fills its
 * memory.
 */
#ifndef DARC_FILE_H
#define DARC_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "err-msg.h"

/*
 * Open @path for reading. A regular file of at most @max bytes gives its
 * descriptor (blocking reads, close-on-exec) and *@size; anything else -1
 * with @err set: "'PATH': a FIFO, not a regular file", "'PATH': 3221225472
 * bytes, more than the 1048576 a WHAT may have". @what names the kind of
 * file in that message ("uftrace info file"). errno is open()'s when open()
 * failed (ENOENT: no such file), else 0.
 */
int fmt_file_open_regular(const char *path, const char *what, uint64_t max, uint64_t *size,
		     struct err_msg *err);

/*
 * The whole of regular file @path (fmt_file_open_regular()'s checks), NUL
 * added, its length in *@len; NULL with @err set. The caller frees it.
 */
char *fmt_file_read(const char *path, const char *what, uint64_t max, size_t *len,
		    struct err_msg *err);

/*
 * What tells one recording from another without reading it all: its size,
 * its modification time, and a hash of its first MiB (for a uftrace.data
 * directory: of its files' names and sizes, and the first 64 KiB of info
 * and task.txt). A database keeps it of the recording it was made from.
 */
struct fmt_file_identity {
	uint64_t size;	    /* bytes (a directory: of its files) */
	int64_t mtime_ns;   /* modification time (a directory: its newest file's) */
	char hash[17];	    /* 64-bit FNV-1a, in hex */
};

/* The identity of the recording at @path. 0, or -1 with @err set. */
int fmt_file_identity(const char *path, struct fmt_file_identity *id, struct err_msg *err);

/* What the file type of mode @mode is, for messages: "a FIFO", "a directory", ... */
const char *fmt_file_kind(unsigned mode);

#endif
