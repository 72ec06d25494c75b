/* SPDX-License-Identifier: MIT */
/*
 * reader.c: a recording opened (its format chosen by its content, or a
 * directory's by its path), its metadata, and its events in time order.
 * The types are fmt.h's.
 */
#ifndef DARC_READER_H
#define DARC_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "err-msg.h"

struct fmt_cpu_stats;
struct fmt_event;
struct fmt_info;
struct fmt_param;
struct fmt_reader;
struct tep_handle;

/*
 * Open the recording at @path and read its metadata (headers, event formats,
 * kallsyms, printk formats, cmdlines, options). Events are then read with
 * fmt_reader_next(). Returns NULL and fills @err on failure. The caller owns
 * the reader and releases it with fmt_reader_close().
 */
struct fmt_reader *fmt_reader_open(const char *path, unsigned flags, struct err_msg *err);

/*
 * Parse the recording's kallsyms into the libtraceevent handle, if
 * fmt_reader_open() was told FMT_OPEN_NO_KALLSYMS and it has not been done
 * yet. Returns 0, or -1 with @err filled.
 */
int fmt_reader_load_kallsyms(struct fmt_reader *r, struct err_msg *err);

/*
 * The kernel module ("ext4") of the function that starts at @addr, from the
 * kallsyms parsed so far; NULL for the kernel proper or an unknown address.
 */
const char *fmt_reader_func_module(const struct fmt_reader *r, uint64_t addr);

/*
 * The function that starts at kernel address @addr, named as darc names it:
 * never a section marker that shares its address (io_schedule_timeout, not
 * __sched_text_start); NULL when no such symbol is known.
 */
const char *fmt_reader_function_at(struct fmt_reader *r, uint64_t addr);

/*
 * Does the recording name the parameters of the function at @addr? Then
 * true, with the @n of them in *@p (owned by the reader; *@n may be 0).
 */
bool fmt_reader_func_params(const struct fmt_reader *r, uint64_t addr,
			    const struct fmt_param **p, int *n);

/*
 * A time @raw of the recording's trace clock taken on CPU @cpu (such as
 * function_graph's calltime and rettime, where that clock is local) made
 * what the events' timestamps are made (TIME_SHIFT, TSC2NSEC, DATE,
 * OFFSET: fmt_info.ts_conv), so that it compares with them again.
 */
uint64_t fmt_reader_clock_ts(const struct fmt_reader *r, uint64_t raw, int cpu);

/* Release everything the reader holds. Accepts NULL. */
void fmt_reader_close(struct fmt_reader *r);

/* The recording's metadata; valid while the reader is open. */
const struct fmt_info *fmt_reader_info(const struct fmt_reader *r);

/* The libtraceevent handle with the recording's formats; owned by the reader. */
struct tep_handle *fmt_reader_tep(const struct fmt_reader *r);

/*
 * Advance to the next event in time order (ties: lower buffer, then lower CPU).
 * Returns 1 and fills @ev, 0 at the end, -1 on a corrupt recording (with @err
 * filled; the stream cannot continue).
 */
int fmt_reader_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err);

/* Statistics of stream (buffer @b, cpu index @i), or NULL if out of range. */
const struct fmt_cpu_stats *fmt_reader_cpu_stats(const struct fmt_reader *r, int b, int i);

#endif
