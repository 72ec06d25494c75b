/* SPDX-License-Identifier: MIT */
/*
 * explain-chain: a wait followed to what ended it, across tasks (RSP's
 * recursive wakers; analyze/METHODS.md section 10). A sleep that another
 * task ended continues into that task's own time over the sleep: what it
 * ran, how long it sat runnable, and what it waited for itself, followed
 * the same way, up to a cause that is CPU, a device, a timer or an
 * interrupt. The time of the sleeps is split exactly among those causes,
 * as a tree of steps: the sleeps' own enders at the top, each waker's time
 * under it. No database here: the caller hands in the sleeps, and each
 * task's off-CPU intervals when asked (explain-wake.c reads them), so the
 * walk has unit tests on made-up timelines.
 */
#ifndef DARC_EXPLAIN_CHAIN_H
#define DARC_EXPLAIN_CHAIN_H

#include <stdint.h>

/* How an off-CPU interval ended, or what a step of the chain is. */
enum chain_kind {
	CH_WAKER = 0,	/* another task woke it: that task's time is below */
	CH_RUN = 1,	/* a waker running (on CPU) */
	CH_PREEMPT = 2, /* a waker preempted (runnable, off CPU) */
	CH_DELAY = 3,	/* a waker woken, waiting for a CPU (its run delay) */
	CH_DISK = 4,	/* a bio of the task completed during it: the disk */
	CH_TIMER = 5,	/* a timer ended it (the event names a timer) */
	CH_IRQ = 6,	/* a named hard interrupt ended it */
	CH_SOFTIRQ = 7, /* a softirq ended it */
	CH_UNKNOWN = 8, /* an interrupt the recording does not name (or an IPI from nobody seen) */
	CH_NOWAKE = 9,	/* no wake-up in the recording */
	CH_UNSEEN = 10, /* a waker whose time the recording does not show: no off-CPU */
			/* interval of it recorded, or a switch of it missing then */
	CH_DEEPER = 11, /* past CH_DEPTH wakers: not followed */
};

/* Wakers followed at most, as darc waits' chains. */
#define CH_DEPTH 8

/* An off-CPU interval of a task: when, and what ended it. */
struct chain_off {
	int64_t t_out, t_in;  /* t_in INT64_MAX when it did not come back */
	int preempted;	      /* switched out runnable (else asleep) */
	int64_t t_wake;	      /* the wake-up that ended a sleep (t_in when none) */
	int end;	      /* enum chain_kind: CH_WAKER, CH_DISK, ... CH_NOWAKE */
	int64_t waker;	      /* CH_WAKER: the task */
	int64_t bios;	      /* CH_DISK: bios of the task completed in it */
	const char *what;     /* the waker's function, or the interrupt (may be NULL) */
	int64_t lag;	      /* a remote wake-up found through its waker's call: how long
				 before the wake-up the call began; else 0 */
	int64_t call;	      /* CH_WAKER: the waker's call that @what names, or 0 */
};

/* One step of the chain: a part of the sleeps' time and what it was. */
struct chain_step {
	int parent;	 /* the CH_WAKER step whose time it is, -1: the sleeps' own */
	int kind;	 /* enum chain_kind */
	int64_t tid;	 /* CH_WAKER: the task */
	const char *what; /* the waker's function at a wake-up, the interrupt; may be NULL */
	double ns;	 /* time of the sleeps it stands for */
	int64_t n;	 /* wake-ups (CH_WAKER and the other enders), bios (CH_DISK) */
	int64_t lag;	 /* CH_WAKER found through a call before the wake-up: the latest lag */
	int64_t call;	 /* CH_WAKER: the waker's call that @what names (of one wake-up), or 0 */
	double what_ns;	 /* CH_DISK: the time the wake-ups in interrupt @what ended */
};

/* The time of a disk step's sleeps that wake-ups in one interrupt ended. */
struct chain_what {
	int step;
	const char *what;
	double ns;
};

struct chain_result {
	struct chain_step *v;
	int n, cap;
	struct chain_what *w; /* a disk step is named by the interrupt that ended most of it */
	int nw, wcap;
};

/* Where the walk gets a task's off-CPU intervals (sorted by t_out). */
struct chain_source {
	/* Task @tid's intervals into *@out (owned by the source): their number, or -1. */
	int (*offs)(void *ctx, int64_t tid, const struct chain_off **out);
	void *ctx;
	/*
	 * 1 when switches of task @tid between @lo and @hi are not in the
	 * recording (its time there is not known), 0 when they are, -1 on
	 * failure. NULL: they always are.
	 */
	int (*unseen)(void *ctx, int64_t tid, int64_t lo, int64_t hi);
};

/*
 * Add sleep @s (an interval of a task, ended as it says) to @r: its time
 * from t_out to its wake-up (the run delay after it is the sleeper's own,
 * not followed), split among the steps. 0, or -1 when out of memory or the
 * source fails.
 */
int chain_add_sleep(struct chain_result *r, const struct chain_source *src,
		    const struct chain_off *s);

/* The largest child step of @parent (-1: the top), or -1 when it has none. */
int chain_top(const struct chain_result *r, int parent);

void chain_release(struct chain_result *r);

#endif
