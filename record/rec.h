/* SPDX-License-Identifier: MIT */
/*
 * darc-record's parts; each file but main.c declares what it exports in
 * its own header (NAME.h beside NAME.c), and this one holds what they all
 * share: the names given in tracefs, the exit statuses, the options.
 *
 *   main.c      options, then record or reset
 *   record.c    one recording, start to finish: the signal loop, status line
 *   caps.c      what the kernel allows, checked before anything is touched
 *   session.c   the tracefs instances and settings, set up and restored
 *   probes.c    kprobes, kretprobes, uprobes, uretprobes (libtracefs dynevent)
 *   uprobe.c    ELF symbol -> file offset, build-ids (libelf)
 *   stream.c    per-CPU reader threads: trace_pipe_raw -> page files
 *   target.c    the traced command or pids, their maps and names
 *   manifest.c  the bundle's JSON manifest, --check's and the summary's JSON (jansson)
 *   bundle.c    metadata from tracefs + page files -> trace.dat v7 (fmt/writer)
 *   reset.c     --reset: remove what a killed darc-record left
 *   undo.c      the undo log: a saved top-level file written back, killed
 *               recorders' logs found and replayed
 *   lock.c      the top-level lock: one user of the top-level buffer at a time
 *   calib.c     the cost of one traced call per mechanism, measured before recording
 *   along.c     --along DB: the functions on the paths a darc analysis found
 *
 * Nothing but main.c and record.c prints or exits: the rest returns -1 with a
 * one-line message in a struct err_msg (err-msg.h), or adds notes to a list.
 */
#ifndef DARC_REC_H
#define DARC_REC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Names darc-record gives what it creates in tracefs, so --reset finds them. */
#define REC_INSTANCE_PREFIX "darc-"	   /* instances: darc-PID, darc-PID-all */
#define REC_KPROBE_GROUP "darc_kprobes"	   /* kprobes and kretprobes */
#define REC_UPROBE_GROUP "darc_uprobes"	   /* uprobes and uretprobes */
#define REC_RETURN_SUFFIX "__return"	   /* event name of a return probe */
#define REC_UNFILTERED_BUFFER "unfiltered" /* the bundle's name of the unfiltered buffer */

/* Where the undo logs are, and the key of a page file directory in one. */
#define REC_UNDO_DIR "/run"
#define REC_UNDO_DIR_KEY "#page-files"

/* The top-level lock (lock.c). */
#define REC_LOCK_PATH REC_UNDO_DIR "/darc-record.lock"

/* Exit statuses. */
enum { REC_OK = 0, REC_FAILED = 1, REC_USAGE = 2 };

/* A list of notes (warnings, dropped options) for the caller to print. */
struct rec_notes {
	char **v;
	int n;
};

/* One tracepoint (or a whole system when name is NULL) to enable. */
struct rec_event {
	char *sys;
	char *name;	 /* NULL: every event of sys */
	char *filter;	 /* event filter expression, or NULL */
	bool unfiltered; /* not pid-filtered (irq, block: completions run elsewhere) */
	bool is_default; /* from the default set: dropped quietly if missing */
};

enum rec_probe_type { PROBE_KPROBE, PROBE_KRETPROBE, PROBE_UPROBE, PROBE_URETPROBE };

/* A dynamic probe asked for on the command line. */
struct rec_probe {
	enum rec_probe_type type;
	char *spec;	 /* as given: "submit_bio bio=%di", "/bin/x:func" */
	char *where;	 /* kprobes: symbol[+offs]; uprobes: BIN:FUNC */
	char *args;	 /* fetch args in kprobe_events syntax, or NULL */
	char *event;	 /* event name it gets */
	char *file;	 /* uprobes: the binary's absolute path */
	uint64_t offset; /* uprobes: file offset of the function */
	void *dev;	 /* struct tracefs_dynevent, once created */
	bool created;	 /* darc-record created it (and removes it) */
};

/* Everything the command line asks for. */
struct rec_opts {
	int argc;
	char **argv;	    /* darc-record's own command line, for the manifest */
	const char *output; /* bundle path */
	bool force;	    /* overwrite output */
	struct rec_event *events;
	int nevents;
	bool no_defaults;
	char **graph_roots; /* -g: set_graph_function entries (globs) */
	int ngraph;
	char **notrace; /* -n: set_graph_notrace entries */
	int nnotrace;
	char **ftrace_filter; /* -l and --along: set_ftrace_filter (only these are traced) */
	int nftrace_filter;
	char **ftrace_notrace; /* --ftrace-notrace: set_ftrace_notrace */
	int nftrace_notrace;
	const char *along;	  /* --along DB: the database whose paths are followed */
	struct rec_along *along_info; /* what --along took from it, for the manifest */
	bool no_calibrate;	  /* --no-calibrate: the tracer's cost is not measured */
	int max_depth;	/* 0: unlimited */
	int sleep_time; /* -1: kernel default, 0/1: options/sleep-time */
	int graph_irqs; /* -1: kernel default, 0/1: options/funcgraph-irqs */
	struct rec_probe *probes;
	int nprobes;
	pid_t *pids; /* -p */
	int npids;
	char **command;	 /* after --, NULL-terminated */
	double duration; /* seconds, 0: until the target ends or a signal */
	int buffer_kb;	 /* per CPU, 0: darc-record's default */
	const char *clock;
	bool best_effort;
	bool no_instance; /* record in the top-level buffer */
	bool quiet;
	bool json; /* --json: --check's facts, or the final summary, as JSON on stdout */
	struct rec_notes dropped; /* what --best-effort left out, for the manifest */
};

/* Default buffer per CPU (KiB) and wake-up watermark. */
#define REC_DEFAULT_BUFFER_KB 4096
#define REC_BUFFER_PERCENT 25

#endif
