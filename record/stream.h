/* SPDX-License-Identifier: MIT */
/*
 * stream.c: per-CPU reader threads: trace_pipe_raw -> page files.
 */
#ifndef DARC_REC_STREAM_H
#define DARC_REC_STREAM_H

#include <stdint.h>

#include "err-msg.h"

struct stream;
struct tracefs_instance;

/*
 * Start one reader thread per CPU of @inst (NULL: top level) that moves
 * trace_pipe_raw into page files DIR/TAG.cpuN. @cpus lists the CPUs.
 */
struct stream *stream_start(struct tracefs_instance *inst, const char *dir, const char *tag,
			    const int *cpus, int ncpus, struct err_msg *err);

/* Stop the readers, read what is left, and report the first reader error. */
int stream_stop(struct stream *s, struct err_msg *err);

/* Bytes moved to the page files so far (all CPUs), readable while running. */
uint64_t stream_bytes(const struct stream *s);

/* The page file of CPU index @i, rewound; owned by the stream. */
int stream_fd(struct stream *s, int i);

/* The page size read from trace_pipe_raw. */
int stream_page_size(const struct stream *s);

/* Close and remove the page files. Accepts NULL. */
void stream_free(struct stream *s);

#endif
