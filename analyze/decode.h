/* SPDX-License-Identifier: MIT */
/*
 * decode: turns the raw events of a recording (fmt/) into analysis events
 * (event.h). Each event type is looked at once, the first time it occurs: its
 * kind and the fields the analysis reads are resolved then, so decoding an
 * event is a table look-up and a few loads.
 */
#ifndef DARC_DECODE_H
#define DARC_DECODE_H

#include <stdbool.h>

#include <jansson.h>

#include "err-msg.h"
#include "event.h"
#include "fmt.h"
#include "funcs.h"

struct decoder;

/* Which table names the system calls (their numbers differ by architecture). */
enum syscall_abi {
	ABI_UNKNOWN, /* no names: syscall_N */
	ABI_X86_64,
	ABI_GENERIC, /* asm-generic numbers: arm64, riscv64, loongarch64 */
	ABI_I386,
};

/*
 * The ABI of a recording from its uname, whose last word is the machine
 * ("Linux host 6.1.0 ... aarch64"). Without one, x86_64 if the recording's
 * user-space long is 8 bytes, little-endian; else unknown.
 */
enum syscall_abi decode_syscall_abi(const char *uname, int long_size, bool big_endian);

/* The name of system call @nr of @abi ("read"), or NULL if not known. */
const char *decode_syscall_name(enum syscall_abi abi, int64_t nr);

/*
 * A decoder for the events of @r, naming functions in @fs, system calls by
 * @abi, or, when @r records syscalls:* events besides raw_syscalls, as those
 * say (after decode_prescan()). NULL when out of memory.
 */
struct decoder *decode_new(struct fmt_reader *r, struct funcs *fs, enum syscall_abi abi);

/*
 * A probe entry is a call's entry only when a return probe reports the same
 * function; otherwise it is a point event. A darc bundle's manifest says
 * which pairs were recorded; for return probes it does not list, the
 * functions they report must be read from the whole recording first. So
 * must the system calls' numbers that syscalls:* events name, when
 * raw_syscalls events are named by them. decode_needs_prescan() says so,
 * and decode_prescan() reads @r (a second reader of the same recording)
 * until nothing more can be learnt: to its end, unless every return probe
 * is a kretprobe (one function per event type) and no names are wanted.
 * Returns 0, or -1 with @err filled.
 *
 * When only the names are wanted, and @in_pass, no prescan is needed: the
 * names are learnt as decode() meets the syscalls:* events, and a raw
 * system call met before its name is named by its architecture's table.
 * That is what the prescan would have given unless the name, learnt
 * later, differs: decode_names_late() then says the pass must be made
 * again, with the prescan (trace-cmd keeps every format, so the prescan
 * would read every raw_syscalls recording twice, mostly to learn nothing).
 */
bool decode_needs_prescan(struct decoder *d, bool in_pass);
int decode_prescan(struct decoder *d, struct fmt_reader *r, struct err_msg *err);
bool decode_names_late(const struct decoder *d);

/* The recording's darc manifest, parsed once (the decoder's), or NULL. */
const json_t *decode_manifest(const struct decoder *d);

/*
 * Decode @ev into @out. Returns 0 (out->kind is EVENT_OTHER for events the
 * analysis does not use), or -1 (out of memory, or the recording's kallsyms,
 * parsed at the first kernel address, are damaged: see decode_error()).
 */
int decode(struct decoder *d, const struct fmt_event *ev, struct analysis_event *out);

/*
 * What the analysis takes from the events named @event ("sched:sched_switch"),
 * in words ("off-CPU time"), or NULL where it takes nothing from them: what it
 * lacks when their format is refused.
 */
const char *decode_event_gives(const char *event);

/* Why decode() failed: a one-line message. */
const char *decode_error(const struct decoder *d);

/* Release the decoder. Accepts NULL. */
void decode_free(struct decoder *d);

#endif
