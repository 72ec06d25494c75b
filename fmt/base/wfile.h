/* SPDX-License-Identifier: MIT */
/*
 * wfile: the one way darc and darc-record write a file (a database, an
 * export, a plot, a bundle). A file is written whole or not at all:
 *
 *   - never over a file this process reads (wfile_note_input(); the same
 *     inode, whatever the name or link leads to it),
 *   - never over what is not a regular file (a device, a FIFO, a
 *     directory), and never over a regular file of another kind unless the
 *     command was given --force (an empty file is of every kind),
 *   - into a temporary file "PATH.tmp-PID" beside the target, created with
 *     O_EXCL|O_NOFOLLOW (a planted link is refused, never followed),
 *     fsynced and renamed to PATH at the end,
 *   - removed when the process dies of SIGINT, SIGTERM, SIGHUP or SIGPIPE
 *     (wfile_catch_signals()); a temporary file of a process that no longer
 *     runs (SIGKILL, a crash) is removed, and said, by the next write of
 *     the same target.
 *
 * "-" is standard output for wfile_write() (a stream, not a file: none of
 * the above applies).
 */
#ifndef DARC_WFILE_H
#define DARC_WFILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "err-msg.h"

/* What a writer makes: its name for messages, and a test of an existing file. */
struct wfile_kind {
	const char *name; /* "a darc database", "an SVG plot", ... */
	/* 1 if @path holds a file of this kind (replaced without --force); NULL: none is */
	int (*is)(const char *path);
};

extern const struct wfile_kind wfile_svg, wfile_json, wfile_folded, wfile_perfetto, wfile_html;

/* A file the process reads: no wfile may replace it. Silently ignores errors. */
void wfile_note_input(const char *path);
/* @path is no longer read (it was only looked at): a wfile may replace it again. */
void wfile_forget_input(const char *path);

/*
 * May @path be written as @kind?  0: yes (it does not exist, or may be
 * replaced); -1: never (an input, not a regular file, ...); -2: only with
 * --force (a file of another kind). @err names @path and why.
 */
int wfile_check(const char *path, const struct wfile_kind *kind, bool force, struct err_msg *err);

struct wfile;

/* wfile_check(), then the temporary file, open read-write. NULL with @err set. */
struct wfile *wfile_create(const char *path, const struct wfile_kind *kind, bool force,
			   struct err_msg *err);
int wfile_fd(const struct wfile *w);
const char *wfile_tmp(const struct wfile *w);
/* Close the descriptor early (the caller reopens the temporary file by name). */
int wfile_close_fd(struct wfile *w, struct err_msg *err);
/*
 * Start making what the temporary file holds so far reach the disk, in a
 * thread of its own, and return at once: wfile_commit()'s fsync then finds
 * little left to write (a large file written over seconds: a database, a
 * bundle). A request while the last one runs is merged with it. Best effort:
 * wfile_commit() syncs again and reports. One thread may call it, and
 * wfile_commit()/wfile_abort() come after its last call. The thread holds
 * a descriptor of the file until then, so a library that has the file open
 * under POSIX locks (SQLite) must have closed it before either.
 */
void wfile_sync_ahead(struct wfile *w);
/* fsync, close, rename to the target, fsync its directory; frees @w. 0 or -1 + @err. */
int wfile_commit(struct wfile *w, struct err_msg *err);
/* Remove the temporary file; frees @w. NULL is fine. */
void wfile_abort(struct wfile *w);

/*
 * Reserve @path for this process until wfile_release(): a lock file
 * "PATH.lock" beside it, held with flock() (so a crash releases it) and
 * holding the holder's pid. A second process that reserves the same path
 * fails at once: "'PATH': another process (pid N) is writing it". For a
 * writer that runs long before it writes (darc-record: the recording comes
 * first), so that of two on one path exactly one goes on. -1 with @err set,
 * else a handle for wfile_release().
 */
int wfile_reserve(const char *path, struct err_msg *err);
/* End a reservation (the lock file is removed); -1 is fine. */
void wfile_release(const char *path, int handle);

/*
 * Write @path whole through @fn (which returns nonzero on failure, having
 * said why in its own context); "-" writes to stdout. 0; -1 with @err when
 * the file could not be written (a full disk: @err says so); -2 when @fn
 * failed on a sound file (@err only says "cannot write it": @fn knows why).
 */
int wfile_write(const char *path, const struct wfile_kind *kind, bool force,
		int (*fn)(void *ctx, FILE *f), void *ctx, struct err_msg *err);

/*
 * Remove the temporary files on SIGINT, SIGTERM, SIGHUP and SIGPIPE, then
 * die of the signal (the caller's exit status stays the conventional one).
 * Signals with a handler of their own are left alone.
 */
void wfile_catch_signals(void);
/* The removal itself, async-signal-safe (for a program's own handler). */
void wfile_signal_cleanup(void);

/*
 * pthread_create() of a thread that never runs the signal handler of
 * wfile_catch_signals(): it starts with those signals blocked, so a signal
 * sent to the process runs on the main thread, which blocks them while it
 * makes a temporary file and records it. Else a handler on another thread
 * could run its cleanup between the two and the process die with the file
 * left (golden-write-file failed so, once in a clean run). 0 or an errno.
 *
 * The thread is a helper of the main one (a reader, the database's writer,
 * a sync): it runs SCHED_BATCH, so its wake-ups do not preempt the main
 * thread, which bounds an analysis on a machine of few cores (4-8% of the
 * wall time on two cores, measured on the bench's recordings).
 */
int wfile_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
