/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: the reader of uftrace's recordings (uftrace.c), a
 * directory rather than a file, so fmt_reader_open() asks for it by path
 * before it maps anything.
 */
#ifndef DARC_UFTRACE_H
#define DARC_UFTRACE_H

#include <stdbool.h>

/* Is @path a uftrace.data directory (an 'info' file with uftrace's magic)? */
bool fmt_uftrace_dir(const char *path);

extern const struct fmt_backend fmt_uftrace_backend;

#endif
