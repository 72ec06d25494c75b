/* SPDX-License-Identifier: MIT */
/*
 * explain-wake: who ended the sleeps of a cause of darc explain, followed
 * across tasks (explain-chain.c's walk on the database's off-CPU
 * intervals). A remote wake-up (an IPI, or the idle task acting for
 * another CPU) is traced to the task whose waking call began on another
 * CPU just before it; where the recording cannot tell who or what ended a
 * sleep, the answer says so, and what to record (waits_unnamed_advice()).
 */
#ifndef DARC_EXPLAIN_WAKE_H
#define DARC_EXPLAIN_WAKE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdb.h"

/* The last waker's parts beside its largest that the chain names too: this share of it. */
#define WAKE_ALSO 0.1

/* A waker's call found at most this long before the wake-up it queued (ns). */
#define WAKE_REMOTE_SLACK 1000000

/*
 * The sleeps of fnode @sleeper (-1: the f0 calls' own) in the calls of the
 * search just made (table sr_sub), followed to what ended them: {"chain":
 * [{kind, who, what, n, share, lag_ns, also}, ...]: the ender that holds the
 * most of their time, then, while that is a task, what holds the most of
 * its time over them, and beside that the last task's other parts of
 * WAKE_ALSO or more ("also": true); a disk's "what" is the interrupt that
 * carried its wake-up, where an event names it; "steps": the whole split; "unknown": {wakeups, idle,
 * pending_bios, advice} when interrupts the recording does not name ended
 * some}. NULL when there is none (or out of memory).
 */
json_t *wake_chain(struct rdb *db, int64_t sleeper);

/*
 * What a recording holds that tells who or what ended its sleeps, tallied
 * event by event (darc info): wake-ups from hard interrupts, and the
 * interrupt events that would name them.
 */
struct wake_evidence {
	uint64_t hard;	     /* wake-up events in hard-interrupt context */
	uint64_t hard_idle;  /* of them, on an idle CPU (common_pid 0) */
	uint64_t irqs;	     /* interrupt entries: irq_handler_entry, irq_vectors' *_entry */
	uint64_t irqs_idle;  /* of them, in the idle task */
	uint8_t kind[65536]; /* by event type: 0 not seen yet, then enum in explain-wake.c */
};

/* Count one event (@system:@name, NULL if unknown) of @pid with common_flags @flags. */
void wake_evidence_add(struct wake_evidence *e, uint16_t type, const char *system,
		       const char *name, int32_t pid, uint8_t flags);

/*
 * What the recording lacks to name what ended its sleeps, and what to
 * record, as a sentence into @buf; NULL when it lacks nothing of that.
 */
const char *wake_evidence_warning(const struct wake_evidence *e, char *buf, size_t size);

#endif
