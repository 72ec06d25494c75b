/* SPDX-License-Identifier: MIT */
/*
 * event: an event as the analysis sees it (struct analysis_event), decoded from whatever format the
 * recording used (decode.c), so the state machines (ftree.c) know nothing
 * of libtraceevent and their tests can feed hand-written sequences.
 */
#ifndef DARC_EVENT_H
#define DARC_EVENT_H

#include <stdint.h>

enum analysis_event_kind {
	EVENT_OTHER = 0,	  /* any event: only its time, cpu, pid and flags matter */
	EVENT_FG_ENTRY,	  /* function_graph entry: fg */
	EVENT_FG_EXIT,	  /* function_graph exit: fg (calltime, rettime) */
	EVENT_PROBE_ENTRY,  /* kprobe / uprobe hit: probe (a call's entry if probe.paired) */
	EVENT_PROBE_RETURN, /* kretprobe / uretprobe hit: probe */
	EVENT_SYS_ENTER,	  /* system call entry: sys */
	EVENT_SYS_EXIT,	  /* system call exit: sys */
	EVENT_SWITCH,	  /* sched_switch: sw */
	EVENT_WAKING,	  /* sched_waking (in the waker's context): wake */
	EVENT_WAKEUP,	  /* sched_wakeup / sched_wakeup_new: wake */
	EVENT_IRQ_ENTRY,	  /* irq_handler_entry: irq */
	EVENT_IRQ_EXIT,	  /* irq_handler_exit: irq */
	EVENT_SOFTIRQ_ENTRY, /* softirq_entry: irq (vec) */
	EVENT_SOFTIRQ_EXIT,
	EVENT_VECTOR_ENTRY, /* irq_vectors:*_entry (local timer, IPIs): irq (name) */
	EVENT_VECTOR_EXIT,
	EVENT_COMM,	  /* a task's name became known: comm */
	EVENT_BLK_QUEUE,	  /* block_bio_queue: a bio submitted: blk */
	EVENT_BLK_MERGE,	  /* block_bio_backmerge/frontmerge: it joined a request */
	EVENT_BLK_GETRQ,	  /* block_getrq: a request made for it */
	EVENT_BLK_INSERT,	  /* block_rq_insert: the request queued (range) */
	EVENT_BLK_ISSUE,	  /* block_rq_issue: to the device (range) */
	EVENT_BLK_REQUEUE,  /* block_rq_requeue (range) */
	EVENT_BLK_COMPLETE, /* block_rq_complete / block_bio_complete (range) */
	EVENT_MARK,	  /* softirq_raise, a stack trace: flags that are another's (the
			     event it follows, the work it defers), so no context */
	EVENT_KINDS
};

/* The context bits of common_flags the analysis uses. */
enum {
	EVENT_F_HARDIRQ = 0x08,
	EVENT_F_SOFTIRQ = 0x10,
	EVENT_F_NMI = 0x40,
};

/*
 * How far function_graph's calltime and rettime may be from the events around
 * them before they are taken for damage (decode.c, ftree.c): the exit event is
 * written at most FG_LATE after the return (an interrupt may come between);
 * the entry event at most FG_LATE after calltime, and calltime is at most
 * FG_SLACK after the entry event (the clock correction's own error); an entry
 * known only from calltime is at most FG_EARLY before the first event.
 */
#define FG_SLACK 1000000LL	/* 1 ms */
#define FG_LATE 100000000LL	/* 100 ms */
#define FG_EARLY 1000000000LL	/* 1 s */

struct analysis_event {
	int kind;	 /* enum analysis_event_kind */
	int64_t t;	 /* ns */
	int32_t cpu;
	int32_t pid;	 /* common_pid: the task on the CPU (the interrupted one in irq) */
	uint8_t flags;	 /* common_flags */
	uint64_t missed; /* events lost on this CPU just before this one (UINT64_MAX: unknown) */
	union {
		struct {
			int64_t func_id; /* the function, resolved by the decoder */
			const char *name; /* its name */
			uint64_t addr;
			int depth;		   /* function_graph's own depth */
			int64_t calltime, rettime; /* exit only; DARC_NULL if absent or implausible */
			int irq_entry;		   /* the function is an interrupt entry point */
			int bad_time;		   /* exit: its calltime/rettime were implausible */
			int64_t dur;		   /* exit: rettime - calltime as recorded (its
						      own duration, kept when bad_time), else
						      DARC_NULL */
			int new_off;		   /* exit: the clock offset that placed its times
						      rests on this exit alone (the first on its
						      CPU, or the first after a jump) */
			int64_t retval;		   /* exit: the return value (funcgraph-retval),
						      DARC_NULL if not recorded */
			const char *args;	   /* entry: its arguments as a JSON object
						      (funcgraph-args), or NULL */
			const char *retaddr;	   /* entry: where it returns to, "caller+0x1c"
						      (funcgraph-retaddr), or NULL */
		} fg;
		struct {
			int64_t func_id;
			uint64_t addr;	   /* probed function: pairs entry and return */
			const char *event; /* "system:name" */
			const char *args;  /* fetch args, a JSON object */
			int paired;	   /* entries: a return probe reports this function */
		} probe;
		struct {
			int64_t func_id;
			int64_t nr; /* syscall number: pairs enter and exit */
			int raw;    /* 1 from raw_syscalls, 0 from syscalls:sys_*_NAME */
			int trap;   /* the uretprobe or uprobe call: the probes' own */
			int64_t ret; /* exit: its return value, DARC_NULL if not recorded */
		} sys;
		struct {
			int32_t prev_pid, next_pid;
			int64_t prev_state;
			const char *prev_comm, *next_comm;
		} sw;
		struct {
			int32_t pid;
			int32_t target_cpu;
		} wake;
		struct {
			int64_t irq;	  /* number or vector, DARC_NULL if none */
			const char *name; /* handler or vector name */
		} irq;
		struct {
			int32_t pid;
			const char *comm;
		} comm;
		struct {
			int64_t dev, sector;
			int32_t nr_sector;
			int32_t error;	 /* completions */
			int bio_level;	 /* block_bio_complete, not a request's */
			const char *rwbs; /* "R", "WS", ... */
		} blk;
	};
};

#endif
