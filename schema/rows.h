/* SPDX-License-Identifier: MIT */
/*
 * rows: the records the analysis produces, one struct per table row.
 * The state machines (ftree.c) fill them; db.c writes them to SQLite.
 * DARC_NULL in an int64 field means SQL NULL (a value the recording does
 * not tell, never a guess).
 */
#ifndef DARC_ROWS_H
#define DARC_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#define DARC_NULL INT64_MIN

/* call.flags */
enum {
	CALL_NO_ENTRY = 1 << 0, /* entry not recorded (before the recording, or lost) */
	CALL_NO_EXIT = 1 << 1,	/* exit not recorded (after the recording, or lost) */
	CALL_GAP = 1 << 2,	/* events were lost while the call was open */
	CALL_HARDIRQ = 1 << 3,	/* ran in hard-interrupt context */
	CALL_SOFTIRQ = 1 << 4,	/* ran in softirq context */
	CALL_NMI = 1 << 5,	/* ran in NMI context */
	CALL_CLAMPED = 1 << 6,	/* a timestamp went backwards across CPUs and was clamped */
	CALL_BAD_TIME = 1 << 7, /* function_graph's calltime/rettime was implausible: not used */
};

/* func.kind */
enum func_kind {
	FUNC_KERNEL = 0,  /* a kernel function (function_graph, or a probe on its start) */
	FUNC_SYSCALL = 1, /* a system call (sys_enter/sys_exit) */
	FUNC_KPROBE = 2,  /* a kprobe off a function's start, named after its event */
	FUNC_UPROBE = 3,  /* a uprobe/uretprobe pair: a user function */
};

/* One call: a row of view call (tables call_base and call_extra; func_id and depth are its fnode's). */
struct call_rec {
	int64_t id;		/* 1, 2, ... in order of entry (of exit if no entry) */
	int64_t task_id;	/* tid of the task (for irq calls: the interrupted task, or 0) */
	int64_t func_id;
	int64_t parent_id;	/* enclosing call, or DARC_NULL for a root */
	int64_t last_id;	/* the largest id in its subtree (its own if a leaf):
				   the descendants are among ids id + 1 .. last_id */
	int64_t fnode_id;
	int64_t interrupted_id; /* irq calls: the task call they interrupted, or DARC_NULL */
	int32_t depth;		/* 0 for a root */
	int32_t cpu;		/* CPU of the entry (of the exit if no entry) */
	int64_t t_entry;	/* ns; DARC_NULL if not recorded */
	int64_t t_exit;
	int64_t incl_ns;	/* t_exit - t_entry, DARC_NULL if either is unknown */
	int64_t excl_ns;	/* incl - children - irq - softirq - preempt - blocked */
	int64_t children_ns;	/* sum of the children's incl_ns */
	int64_t irq_ns;		/* hard irqs while this was the task's innermost call */
	int64_t softirq_ns;
	int64_t preempt_ns;	/* off CPU, runnable (switched out in state R/R+) */
	int64_t blocked_ns;	/* off CPU, sleeping */
	uint32_t flags;		/* CALL_* */
	/* what the recording says the call gave back (call_base.retval) and was given (table
	   call_value) */
	bool has_retval;	/* the return value is recorded: */
	int64_t retval;		/* funcgraph-retval (an error code as the kernel prints it,
				   -4095..-1), or a system call's return */
	const char *args;	/* its arguments, a JSON object (funcgraph-args), or NULL */
	const char *retaddr;	/* where it returned to, "caller+0x1c" (funcgraph-retaddr),
				   or NULL */
};

struct task_rec {
	int64_t tid;
	int64_t pid;	  /* thread group id, or DARC_NULL if unknown */
	const char *comm; /* last known command name */
};

struct func_rec {
	int64_t id;
	const char *name;
	int kind;	  /* enum func_kind */
	int64_t addr;	  /* address (kernel or user), or DARC_NULL */
	const char *module; /* kernel module or user binary, or NULL */
	int overhead;	  /* the tracer's own code (funcs_tracer_overhead()) */
	/* exact quantiles of its complete calls' incl_ns (hist.h's hist_quant_exact()),
	   DARC_NULL without one */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns;
};

/* One node of the ftree: a function in the context of its call path. */
struct fnode_rec {
	int64_t id;
	int64_t parent_id; /* DARC_NULL for a root */
	int64_t func_id;
	int32_t depth;
	int64_t calls;	   /* complete calls (incl known) */
	int64_t incl_ns;   /* sums over those calls */
	int64_t excl_ns;
	int64_t children_ns, irq_ns, softirq_ns, preempt_ns, blocked_ns;
	int64_t max_ns;	   /* slowest call */
	int64_t max_excl_ns; /* largest excl_ns */
	/* exact quantiles of incl_ns (hist.h's hist_quant_exact()), DARC_NULL without a complete
	 * call */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns;
	int64_t incomplete; /* calls flagged NO_ENTRY or NO_EXIT */
};

/* hist.owner_kind */
enum { OWNER_FUNC = 0, OWNER_FNODE = 1 };
/* hist.metric */
enum { METRIC_INCL = 0, METRIC_EXCL = 1 };

/* One non-empty bucket of an OSprof histogram. */
struct hist_rec {
	int owner_kind; /* OWNER_* */
	int64_t owner_id;
	int metric;	/* METRIC_* */
	int resolution; /* 1..4 buckets per octave */
	int bucket;	/* floor(resolution * log2(ns)); ns < 1 counts as 1 */
	int64_t count;
};

/* irq_interval.kind */
enum { IRQ_HARD = 0, IRQ_SOFT = 1, IRQ_NMI = 2 };

/* One interval a CPU spent in interrupt context (outermost level only). */
struct irq_rec {
	int64_t id;
	int32_t cpu;
	int kind;		/* IRQ_* */
	int64_t irq;		/* IRQ number, softirq vector, or DARC_NULL (vector handlers) */
	const char *name;	/* handler or vector name, e.g. "virtio0-requests", "TIMER",
				   "local_timer", or the outermost irq function */
	int64_t t_start, t_end;
	int64_t task_id;	/* interrupted task, 0 for idle */
	int64_t call_id;	/* interrupted call, or DARC_NULL */
};

/* sched_interval.kind */
enum { SCHED_PREEMPTED = 0, SCHED_BLOCKED = 1 };

/* One interval a task spent off CPU. */
struct sched_rec {
	int64_t id;
	int64_t task_id;
	int kind;	    /* SCHED_* */
	int64_t state;	    /* prev_state of the sched_switch */
	int32_t cpu_out;    /* CPU it left */
	int32_t cpu_in;	    /* CPU it came back on, -1 if it did not */
	int64_t t_out, t_in; /* t_in DARC_NULL if it did not come back */
	int64_t call_id;    /* the call charged: innermost open at switch-in (at switch-out if none yet), or DARC_NULL */
	int64_t wakeup_id;  /* the wake-up that ended a blocked interval, or DARC_NULL */
};

/*
 * A time a task was off its CPU in a way the recording does not show: its
 * switches are not all in it (a pid filter on sched events, lost events).
 */
struct gap_rec {
	int64_t id;
	int64_t task_id;
	int32_t cpu;	    /* the CPU it was last seen on, -1 if not known */
	int64_t t_from;	    /* its last event there (or its recorded switch out) */
	int64_t t_to;	    /* its next event anywhere, DARC_NULL if none */
};

/* wakeup.ctx */
enum { CTX_TASK = 0, CTX_HARDIRQ = 1, CTX_SOFTIRQ = 2, CTX_NMI = 3 };

/* One wake-up of a task (sched_waking, else sched_wakeup). */
struct wakeup_rec {
	int64_t id;
	int64_t task_id;    /* the task woken */
	int64_t t;
	int64_t waker_tid;  /* common_pid of the event: the waker (0 = idle/irq on idle) */
	int32_t waker_cpu;
	int ctx;	    /* CTX_*: the waker's context */
	int64_t waker_call_id; /* innermost open call of the waker (or irq call), or DARC_NULL */
	char handler[32];   /* the irq handler or softirq vector running then, or "" */
};

/* probe_hit.role */
enum {
	PROBE_POINT = 0,  /* a probe hit that is not a call's edge: a point in time */
	PROBE_ENTRY = 1,  /* the entry of a probe pair: it opened call_id */
	PROBE_RETURN = 2, /* the return of a probe pair: it closed call_id (if open) */
};

/* One kprobe/kretprobe/uprobe/uretprobe event. */
struct probe_rec {
	int64_t id;
	int64_t t;
	int32_t cpu;
	int64_t task_id;     /* common_pid (for a hit in irq context, the interrupted task) */
	int64_t func_id;     /* the probed function */
	const char *event;   /* "kprobes:submit_bio" */
	int role;	     /* PROBE_* */
	int ctx;	     /* CTX_*: the context it fired in */
	int64_t call_id;     /* the call it opened or closed, else the innermost open call
				(the CPU's irq call in irq context), or DARC_NULL */
	const char *args;    /* its fetch args as a JSON object, e.g. {"bio":"0xffff8880..."} */
};

/* bio.flags */
enum {
	BIO_MERGED = 1 << 0,	  /* it joined another bio's request (back or front merge) */
	BIO_REQUEUED = 1 << 1,	  /* its request went back to the queue once at least */
	BIO_NO_QUEUE = 1 << 2,	  /* its completion came with no submission seen */
	BIO_NO_COMPLETE = 1 << 3, /* not completed when the recording ended */
	BIO_LOST = 1 << 4,	  /* submitted again before it completed: its end was lost */
};

/* One bio, from its submission to its completion (block tracepoints). */
struct bio_rec {
	int64_t id;
	int64_t dev;	     /* (major << 20) | minor, as the kernel's dev_t */
	int64_t sector;
	int32_t nr_sector;
	char op[12];	     /* rwbs: "R", "WS", "FWS", ... */
	int64_t t_queue, t_getrq, t_insert, t_issue, t_complete; /* DARC_NULL if not seen */
	int64_t task_id;     /* the task that submitted it */
	int64_t call_id;     /* its innermost open call then (the submitting call), or DARC_NULL */
	int32_t queue_cpu, complete_cpu; /* -1 if not seen */
	int complete_ctx;    /* CTX_* of the completion */
	int32_t error;
	uint32_t flags;	     /* BIO_* */
	char ptr[24];	     /* the bio's address from a submit_bio probe ("0x..."), or "" */
};

/* The one row of table recording. */
struct recording_rec {
	const char *source;   /* path as given */
	const char *format;   /* "trace.dat v7 (zstd)" */
	const char *kernel;   /* uname */
	const char *clock;
	int cpus;
	int64_t t_first, t_last;
	int64_t events;
	int64_t lost_events;  /* counted lost events, all CPUs */
	int64_t lost_marks;   /* pages that reported lost events */
	const char *manifest; /* JSON, or NULL */
	const char *darc_version;
	const char *options;  /* JSON of the analysis options */
	const char *lacks;    /* what the format cannot tell, or NULL */
	int64_t source_size;  /* the recording's identity (fmt/file.h's fmt_file_identity) */
	int64_t source_mtime_ns;
	const char *source_hash;
	const char *tracer_cost; /* JSON by mechanism (analyze/tracer-cost.h), or NULL */
};

#endif
