/* SPDX-License-Identifier: MIT */
/*
 * darc-record's parts, shared by its files:
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
 * one-line message in a struct err_msg (fmt.h), or adds notes to a list.
 */
#ifndef DARC_REC_H
#define DARC_REC_H

#include <stdbool.h>
#include <glob.h>
#include <stdint.h>
#include <sys/types.h>

#include "err-msg.h"

/* Names darc-record gives what it creates in tracefs, so --reset finds them. */
#define REC_INSTANCE_PREFIX "darc-"	   /* instances: darc-PID, darc-PID-all */
#define REC_KPROBE_GROUP "darc_kprobes"	   /* kprobes and kretprobes */
#define REC_UPROBE_GROUP "darc_uprobes"	   /* uprobes and uretprobes */
#define REC_RETURN_SUFFIX "__return"	   /* event name of a return probe */
#define REC_UNFILTERED_BUFFER "unfiltered" /* the bundle's name of the unfiltered buffer */

/* Exit statuses. */
enum { REC_OK = 0, REC_FAILED = 1, REC_USAGE = 2 };

/* A list of notes (warnings, dropped options) for the caller to print. */
struct rec_notes {
	char **v;
	int n;
};

/* Add a printf-style note; out of memory drops it. */
void caps_note(struct rec_notes *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void caps_notes_free(struct rec_notes *l);

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

/* ---- caps.c ---- */

/* What this kernel and tracefs allow. */
struct rec_caps {
	const char *dir;     /* tracefs mount point */
	bool mounted_by_us;  /* darc-record mounted tracefs (and unmounts it) */
	bool instances;	     /* instances/ exists */
	bool function_graph; /* listed in available_tracers */
	bool kprobes;	     /* kprobe_events exists */
	bool uprobes;	     /* uprobe_events exists */
	bool set_event_pid;  /* set_event_pid exists */
	bool set_ftrace_pid; /* set_ftrace_pid exists */
	char *clocks;	     /* trace_clock contents */
	char **tracers;	     /* available_tracers */
	/* what only --check reads (caps_more) */
	char **systems;	      /* the event systems (events/SYS) */
	char **instances_now; /* the instances that exist now */
	char *options;	      /* trace_options: "name" or "noname" lines */
	char *current_tracer;
	pid_t lock_pid;	    /* the top-level lock's holder, 0 if in another pid namespace */
	bool lock_held;
	char lock_who[192]; /* who holds it, in words */
};

/*
 * Find tracefs (mounting it if it is not mounted, noted in @c) and look at
 * what it offers. Returns -1 with @err when there is no tracefs to be had.
 */
int caps_probe(struct rec_caps *c, struct err_msg *err);

/* The rest of what --check tells: event systems, instances, options, the
   current tracer, the top-level lock's holder. */
void caps_more(struct rec_caps *c);

/* Unmount tracefs if caps_probe() mounted it; release @c. */
void caps_release(struct rec_caps *c);

/*
 * Check @o against @c. Each thing missing becomes one line in @missing,
 * naming it and the options that need it; @works gets one line saying what
 * still works. With o->best_effort, the options that cannot work are taken
 * out of @o (and listed in o->dropped) instead. Returns the number of
 * problems left (0: the recording can go ahead).
 */
int caps_check(const struct rec_caps *c, struct rec_opts *o, struct rec_notes *missing,
	       struct rec_notes *works);

/* Whether clock @name is offered in trace_clock. */
bool caps_has_clock(const struct rec_caps *c, const char *name);

/*
 * What the events of @o on this kernel (@c) will leave out of the wake-ups
 * evidence, in the analysis's words (wake-words.h), as a sentence into
 * @buf: no irq events at all; irq events pid-filtered (a kernel without
 * instances) or filtered by --filter, so that the interrupts of idle CPUs
 * (or others) are not in the recording. NULL when nothing is left out (or
 * no wake-up is recorded).
 */
const char *caps_wake_warning(const struct rec_caps *c, const struct rec_opts *o, char *buf,
			      size_t size);

/* ---- session.c ---- */

struct sess;
struct tracefs_instance;

/* One trace buffer of the session. */
struct sess_buffer {
	const char *name;	       /* its name in the bundle: "" or "unfiltered" */
	struct tracefs_instance *inst; /* NULL: the top level */
	bool pid_filtered;
	int nevents; /* events enabled in it */
	char **event_sys, **event_name;
};

/*
 * Create the instances the options need (darc-PID for pid-filtered events,
 * darc-PID-all for unfiltered ones), or use the top level where instances
 * cannot do what is asked (noted in @notes). Nothing is enabled yet.
 */
struct sess *sess_create(const struct rec_opts *o, const struct rec_caps *c,
			 struct rec_notes *notes, struct err_msg *err);

/* Does @o ask for function_graph (-g, -n, -l, --max-depth, its options)? */
bool sess_graph(const struct rec_opts *o);

/* The buffers' own settings: tracing off, clock, size, watermark, fork options. */
int sess_setup_buffers(struct sess *s, const struct rec_opts *o, struct err_msg *err);

/* Configure events, filters, probes' events, function_graph (after sess_setup_buffers). */
int sess_setup(struct sess *s, const struct rec_opts *o, struct err_msg *err);

/*
 * Write @val to @file of buffer @k (0: the pid-filtered one, 1: the
 * unfiltered one), a top-level file saved first for restoring (appended
 * to with @append). 0, or -1 with @err (which may be NULL).
 */
int sess_put(struct sess *s, int k, const char *file, const char *val, bool append,
	     struct err_msg *err);

/* The tracefs instance of buffer @k (NULL: the top level). */
struct tracefs_instance *sess_instance(struct sess *s, int k);


/* Filter the pid-filtered buffer on @pids (follow forks). */
int sess_set_pids(struct sess *s, const pid_t *pids, int n, struct err_msg *err);

/* tracing_on in every buffer of the session (1 or 0). */
int sess_tracing(struct sess *s, int on, struct err_msg *err);

/* Disable all events and the tracer (before the last reads). */
void sess_quiesce(struct sess *s);

/* The buffers (1 or 2), valid until sess_free(). */
int sess_buffers(struct sess *s, struct sess_buffer **b);

/*
 * Undo everything in tracefs: restore the top level's files, remove the
 * instances. The buffers stay readable (names, events) until sess_free().
 */
void sess_restore(struct sess *s);

/*
 * The top-level buffer_size_kb before darc-record touched anything and now
 * (both owned by @s; after sess_restore(), "now" is the final state), and
 * whether it went from unallocated ("7 (expanded: 1408)") to allocated: the
 * kernel does that on the first use of tracing (on 6.1 any event enabled,
 * even in an instance), and it cannot be undone.
 */
bool sess_top_buffer(struct sess *s, const char **before, const char **now);

/* sess_restore() if not done, remove the undo log, and release @s. Accepts NULL. */
void sess_free(struct sess *s);

/* Where the undo logs are, and the key of a page file directory in one. */
#define REC_UNDO_DIR "/run"
#define REC_UNDO_DIR_KEY "#page-files"

/* Log page file directory @dir in the undo log (for --reset after a kill). */
void sess_note_dir(struct sess *s, const char *dir);

/* ---- undo.c ---- */

/* Write top-level file @file's saved value @value back (best effort; @value is cut up). */
void undo_restore(const char *file, char *value);

/* N of a buffer_size_kb of "7 (expanded: N)" (not allocated yet), else 0. */
long undo_expanded_kb(const char *v);

/*
 * Replay the undo log @path of a dead darc-record: restore its top-level
 * files, remove its page files, remove the log. Returns what could not be
 * undone (0: all).
 */
int undo_replay(const char *path, struct rec_notes *notes);

/* Does undo log @path hold top-level files (not only page files)? */
bool undo_has_top(const char *path);

/* The undo logs in @g, with their owners' pids in *@pids (caller frees both); 0 if none. */
size_t undo_logs(glob_t *g, pid_t **pids);

/*
 * Warn in @notes of the top-level changes that killed darc-records left
 * (their undo logs), which a recording in the top-level buffer starts from.
 */
void undo_leftovers(struct rec_notes *notes);

/* Is @pid a running darc-record (not this one)? */
bool undo_alive(pid_t pid);

/* The pid in a name "darc-PID[-all]" or "darc-record.PID.undo" (0 if none). */
pid_t undo_owner(const char *name);

/* ---- lock.c ---- */

#define REC_LOCK_PATH REC_UNDO_DIR "/darc-record.lock"
/* Make REC_UNDO_DIR if the system has none (errors are left to the open after it). */
void lock_run_dir(void);

/*
 * Take the top-level lock for this process, as @role ("recording in the
 * top-level buffer"). 0: taken, *fd holds it until closed or the process
 * ends (however it ends); 1: another process holds it, @who says which
 * ("darc-record session PID (started TIME, ROLE)"); -1: @err.
 */
int lock_top(const char *role, int *fd, char *who, size_t n, struct err_msg *err);

/* Is the top-level lock held? Then *pid (0: in another pid namespace) and @who say by whom. */
bool lock_holder(pid_t *pid, char *who, size_t n);

/* ---- probes.c ---- */

/*
 * Parse "SYMBOL[+OFFS] [ARGS...]" (kprobes) or "BIN:FUNC [ARGS...]" (uprobes)
 * into @p. Returns -1 with @err on bad syntax or an unknown binary/function.
 */
int probe_parse(struct rec_probe *p, enum rec_probe_type type, const char *spec,
		struct err_msg *err);

/* Create every probe of @o in tracefs. On failure the ones created are removed. */
int probes_create(struct rec_opts *o, struct err_msg *err);

/* Remove the probes darc-record created (and free their handles). */
void probes_destroy(struct rec_opts *o);

/*
 * Remove one probe event: not forced first (a forced removal writes the
 * top-level enable file, which allocates an unallocated top-level buffer),
 * forced if that fails. 0, or -1 with errno set.
 */
struct tracefs_dynevent;
int probe_destroy(struct tracefs_dynevent *dev);

/* The tracefs group of probe type @t. */
const char *probe_group(enum rec_probe_type t);

/* ---- uprobe.c ---- */

/*
 * The file offset of function @func in ELF file @path (symtab, then dynsym),
 * for uprobe_events. Returns -1 with @err if the file or symbol is missing.
 */
int uprobe_offset(const char *path, const char *func, uint64_t *offset, struct err_msg *err);

/* The GNU build-id of ELF file @path as hex into @hex; -1 if it has none. */
int uprobe_build_id(const char *path, char *hex, size_t n);

/* ---- stream.c ---- */

struct stream;

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

/* ---- target.c ---- */

/* SIGPIPE's disposition as darc-record was started (it ignores it): the command's. */
extern void (*target_sigpipe)(int);

struct target;

/*
 * The processes to follow: a command to run (@argv, started by
 * target_release()) or existing pids (all their threads). Returns NULL with
 * @err on a bad pid or when the command cannot be started.
 */
struct target *target_create(char **argv, const pid_t *pids, int npids, struct err_msg *err);

/* The pids to filter on (the command's child, or the given pids' threads). */
int target_pids(const struct target *t, const pid_t **pids);

/* Let the command exec (after tracing is on). */
int target_release(struct target *t, struct err_msg *err);

/* Reap a finished child; true when nothing to follow is left alive. */
bool target_done(struct target *t);

/* Snapshot /proc/PID/maps and comm of the live targets (kept for the manifest). */
void target_snapshot(struct target *t);

/* The command's exit status (waitpid form), or -1 if it has not ended. */
int target_status(const struct target *t);

/* Signal the command (its process group) with @sig, if it is running. */
void target_kill(struct target *t, int sig);

/* The "PID COMM\n" lines of every task seen, for the saved cmdlines. */
char *target_cmdlines(const struct target *t);

/* JSON-ready views: maps text per pid, and the distinct mapped files. */
int target_nmaps(const struct target *t);
void target_map(const struct target *t, int i, pid_t *pid, const char **comm, const char **maps);

/* Release @t (killing nothing: an unreleased child is killed). Accepts NULL. */
void target_free(struct target *t);

/* ---- calib.c ---- */

/* The tracing mechanisms whose cost is measured. */
enum rec_mech { MECH_FGRAPH, MECH_KPROBE, MECH_KRETPROBE, MECH_UPROBE, MECH_URETPROBE,
		MECH_TRACEPOINT, MECH_N };
extern const char *const calib_mech_names[MECH_N]; /* "function_graph", "kprobe", ... */

/* The cost of one mechanism. */
struct rec_cost {
	bool asked;	 /* the recording uses it */
	bool measured;	 /* and it was measured: */
	double ns;	 /* one traced call (function_graph: entry and exit; a probe: a hit) */
	double calls;	 /* traced calls (events) per loop iteration */
	double loop_ns;	 /* one loop iteration, traced */
	const char *why; /* not measured: why */
};

/* What the calibration found. */
struct rec_calib {
	bool done;
	int cpu;	     /* the CPU it ran on */
	double base_ns;	     /* one getppid() untraced */
	double user_base_ns; /* one call of the empty user function untraced */
	double seconds;	     /* the calibration's own time */
	struct rec_cost m[MECH_N];
};

/*
 * Measure the cost of each mechanism @o uses, in @s's pid-filtered buffer,
 * after sess_setup_buffers() and before sess_setup(); function_graph is left
 * on. What cannot be measured is said in @c (why) and @notes.
 */
void calib_run(struct sess *s, const struct rec_opts *o, struct rec_calib *c,
	       struct rec_notes *notes);

/* ---- along.c ---- */

/* What --along took from the database. */
struct rec_along {
	char *db;	    /* its path */
	char *source;	    /* the recording it analyzed */
	char **roots;	    /* graph roots: the entry points' kernel functions */
	int nroots;
	char **funcs;	    /* every function traced: roots, path nodes, their callees */
	int nfuncs;
	int npath;	    /* of them on the paths */
	int nskipped;	    /* functions of the paths this kernel cannot trace */
	int elsewhere;	    /* callees left out: they run mostly elsewhere */
	char *profile_json; /* the entry points' latency profiles in the database (JSON) */
};

/*
 * Read database @path: the entry points and paths its searches and
 * explanations found, their functions and direct callees into @a. Functions
 * this kernel cannot trace (not in available_filter_functions) are left out
 * and counted. 0, or -1 with @err.
 */
int along_read(const char *path, struct rec_along *a, struct err_msg *err);

/* Put @a's functions into @o (graph roots, function filter). */
int along_apply(struct rec_opts *o, const struct rec_along *a);

void along_free(struct rec_along *a);

/* ---- manifest.c ---- */

/* What the recording did, for the manifest. */
struct rec_cpu_result {
	int cpu;
	uint64_t bytes, pages;
	uint64_t overrun, dropped, commit_overrun; /* from per_cpu/cpuN/stats */
	uint64_t entries;			   /* events in the ring buffer now (stats) */
	uint64_t pending;			   /* bytes still in the ring buffer */
	/* in the pages stored, as a reader of the bundle counts them */
	uint64_t events, lost_marked, lost_marks, lost_uncounted;
};

struct rec_buffer_result {
	const char *name;
	const char *instance; /* tracefs instance, or NULL for the top level */
	bool pid_filtered;
	int nevents;
	char **event_sys, **event_name;
	int ncpus;
	struct rec_cpu_result *cpus;
};

struct rec_result {
	struct timespec start_real, start_mono, stop_real, stop_mono;
	const char *stop_reason; /* "target exited", "SIGINT", "duration", ... */
	int target_status;	 /* waitpid status of the command, -1 if none */
	int nbuffers;
	struct rec_buffer_result *buffers;
	const char *clock;
	int page_size;
	double cpu_user, cpu_sys; /* darc-record's own CPU time (s) until the stop */
	char *tgids;		  /* saved_tgids ("TID TGID" lines), or NULL */
	/* the top-level ring buffer's size before and after (buffer_size_kb) */
	char *top_before, *top_after;
	bool top_expanded; /* it was unallocated, and is allocated now */
	struct rec_calib cost; /* the tracer's cost, measured before the recording */
};

/* The manifest as a JSON text (caller frees), or NULL when out of memory. */
char *manifest_json(const struct rec_opts *o, const struct target *t, const struct rec_result *r);

/* --check's facts as an indented JSON text (caller frees), or NULL; "wake_warning":
   @wake_warning, or null (caps_wake_warning()). */
char *manifest_caps_json(const struct rec_caps *c, const char *wake_warning);

/* The recording's summary as a one-line JSON text (caller frees), or NULL. */
char *manifest_summary_json(const struct rec_opts *o, const struct target *t,
			    const struct rec_result *r);

/* ---- bundle.c ---- */

struct bundle;

/*
 * Start the bundle @path and read, while tracefs still holds them, its
 * metadata: header_page/header_event, the ftrace formats, the formats of
 * the events recorded in @bufs, kallsyms, printk formats, saved cmdlines
 * plus @extra_cmdlines, and each CPU's stats (into @r, which must have its
 * buffers and CPUs laid out). Nothing is in place under @path until
 * bundle_finish().
 */
struct bundle *bundle_begin(const char *path, bool force, struct sess_buffer *bufs, int nbuf,
			    const char *extra_cmdlines, struct rec_result *r, int page_size,
			    struct err_msg *err);

/*
 * Store each buffer's page files from @streams (counts into @r), then the
 * manifest made from @o, @t and @r, and put the file in place.
 */
int bundle_finish(struct bundle *b, struct stream **streams, struct rec_result *r,
		  const struct rec_opts *o, const struct target *t, struct err_msg *err);

/* Release @b; an unfinished bundle leaves no file. Accepts NULL. */
void bundle_free(struct bundle *b);

/*
 * Read per_cpu/cpuN/stats of @inst (NULL: top level) into @c's overrun,
 * dropped and commit overrun counts. Returns the text as trace-cmd stores it
 * ("CPU: N\n" + stats; caller frees), or NULL if it cannot be read.
 */
char *bundle_cpu_stats(struct tracefs_instance *inst, int cpu, struct rec_cpu_result *c);

/* ---- reset.c ---- */

/*
 * Remove darc-record's instances and probes that no running darc-record owns
 * (all of them with @force). Notes say what was removed. Returns the number
 * of things that could not be removed.
 */
int reset_run(bool force, struct rec_notes *notes);

/* ---- record.c ---- */

/* Record as @o says; returns an exit status (REC_*), having printed errors. */
int record_run(struct rec_opts *o);

#endif
