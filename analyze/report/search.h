/* SPDX-License-Identifier: MIT */
/*
 * search: DARC's root-cause path search (analyze/METHODS.md section 7), on the
 * calls of one peak of a function f0 held in memory in a compact form
 * (struct search_tree: a call's value, fnode and subtree's end, its sums taken
 * as it is added). No database here: the caller streams the f0 calls of the
 * peak with their subtrees into it (search-db.c), and stores what comes out;
 * so every rule has unit tests on built trees.
 *
 * At each node of a path, for every f0 call in the peak, the candidates are:
 * the node's own time (self), each child fnode, each interrupt source and
 * softirq vector counted over the node's whole subtree (exogenous: they hit
 * wherever the task was), preemption over the subtree (exogenous too), and
 * the node's own blocked time (endogenous: the code chose to wait). A
 * child's value is its latency minus the interrupts and preemption inside
 * it; in the vote, with mode max it counts its largest call within the f0
 * call (a child called in a loop is weighed as called once), with mode sum
 * all its calls. Self = the node's value minus all its children's calls
 * minus its blocked time, in either mode: the node's own code. The time a
 * candidate is credited with (total_ns, the shares) is every call's, in
 * either mode: the rest of a loop is the callee's time, never the caller's
 * (a lock that calls schedule() several times a call sleeps in all of
 * them). The largest candidate
 * and every candidate in the same log2 bucket get a vote (maxcount); the
 * candidates with at least maxcount_pct % of the highest maxcount win, and
 * each winning child is searched in turn (several winners: the path
 * branches). A path stops at self, an interrupt, preemption or blocking
 * (root cause found), at a node without children, at max_depth, or when the
 * winner's mean value is below 2^min_bucket ns.
 *
 * Causes by time (branch_pct, darc explain's): a callee that lost the vote
 * at its level but holds branch_pct % of f0's latency in the peak is
 * searched as well (by_time), so that a second cause of a third of the time
 * (an fsync's own page writeback beside its journal commit) is a path of
 * its own, not a runner-up.
 *
 * A chain of wrappers costs no depth: a winning child that holds nearly all
 * of its parent's time (SEARCH_WRAP of it) is searched at its parent's level of
 * max_depth, so do_get_write_access > out_of_line_wait_on_bit >
 * __wait_on_bit > bit_wait_io > io_schedule is one level, not five. Where a
 * path does stop at max_depth, the time below its last node is reported as
 * what it is (its parts below the depth limit: the sleeps anywhere in its
 * subtree as blocked, its CPU time as self, the preemption and interrupts
 * inside it), each with the fnode that holds most of it, never all of it
 * as the last node's own time.
 *
 * f0 is one node even where it is several fnodes (a function reached by
 * several paths): its level is voted once over all its calls, so it has one
 * self, one preemption, one blocked, and the maxcount_pct threshold is taken
 * over the whole level. (Searching each fnode apart gave a level two self
 * nodes, each with the votes of its own fnode's calls only, and let a
 * winner of a few calls through on a threshold of its own fnode's.) With one
 * fnode, as in the dissertation's examples, the votes are the same.
 *
 * Votes are counted once per f0 call at each level: a call votes at a node
 * once however many instances of the node it has (mode max: its largest
 * stands for them), and gives each candidate at most one vote. A node's
 * votes are those of the level above it (the calls in which it was the
 * largest there, or in that bucket); its children's are counted over every
 * f0 call that reaches it, as the method counts them, including the calls
 * in which a sibling or an interrupt beat it one level up. So a child can
 * have more votes than its parent (vm-cpuhog's slow reads: preemption and
 * ext4_file_read_iter 13 of 21 each, then generic_file_read_iter 21 of 21):
 * that is no double count, and the shares say what each costs.
 *
 * The tracer's own code (a kprobe handler that function_graph saw, marked
 * search_call.overhead) is not the code's cost: its time is taken out of the
 * value of every call above it like an interrupt's, it is never a
 * candidate (no path ends in it), and each node reports it (overhead_ns).
 */
#ifndef DARC_SEARCH_H
#define DARC_SEARCH_H

#include <stdint.h>

/* One call of an f0 call's subtree (f0 calls themselves have parent -1). */
struct search_call {
	int parent;	 /* index in the input, -1 for an f0 call */
	int64_t fnode;	 /* fnode id */
	int64_t incl, irq, softirq, preempt, blocked; /* as stored (innermost parts) */
	int overhead;	 /* the tracer's own code (func.overhead): its whole time is */
			 /* taken out of its caller, never a candidate */
};

/* Interrupt time charged to one call, by source. */
struct search_irq {
	int call;   /* index of the call it interrupted */
	int source; /* index into search_input.sources */
	int64_t ns;
};

struct search_input {
	const struct search_call *calls;
	int ncalls;
	const struct search_irq *irqs;
	int nirqs;
	int nsources;
	const int *source_soft; /* [nsources] 1 for a softirq vector */
};

enum search_mode { SEARCH_MAX = 0, SEARCH_SUM = 1 };

struct search_params {
	int max_depth;	     /* levels below f0 (default 10) */
	double maxcount_pct; /* default 97 */
	int min_bucket;	     /* default 6: 64 ns */
	int mode;	     /* enum search_mode */
	double branch_pct;   /* > 0: a callee that lost the vote but holds this % of f0's */
			     /* latency is searched too (by time); 0, DARC's rule: not */
};
#define SEARCH_PARAMS_DEFAULT                                                                      \
	{                                                                                          \
		10, 97.0, 6, SEARCH_MAX, 0                                                         \
	}

/* A runner-up of this share of f0's latency is listed whatever its votes. */
#define SEARCH_RUNNER_UP_SHARE 0.05

/* What a candidate is. */
enum search_kind {
	SEARCH_FNODE = 0,   /* a child fnode (id) */
	SEARCH_SELF = 1,    /* the node's own time */
	SEARCH_IRQ = 2,	    /* a hard interrupt source (id: source index) */
	SEARCH_SOFTIRQ = 3, /* a softirq vector (id: source index) */
	SEARCH_PREEMPT = 4,
	SEARCH_BLOCKED = 5,
};

/* How a path ends. */
enum search_status {
	SEARCH_GOING = 0,	/* a node with winners below it */
	SEARCH_FOUND = 1,	/* root cause found */
	SEARCH_MAX_DEPTH = 2,	/* maximum depth reached */
	SEARCH_MIN_BUCKET = 3,	/* below min_bucket */
	SEARCH_NO_CHILDREN = 4, /* a leaf: the function itself (root cause found) */
	SEARCH_BELOW = 5,	/* a part of a node at max_depth, from below it */
};

/* A winner with this share of its parent's time is a wrapper: it costs no depth. */
#define SEARCH_WRAP 0.9

/* A candidate considered at a node. */
struct search_cand {
	int node;	   /* index of the search_node it was considered at */
	int kind;	   /* enum search_kind */
	int64_t id;	   /* fnode id or source index; 0 otherwise */
	int maxcount;	   /* votes */
	double total_ns;   /* its value summed over the peak's calls */
	int winner;	   /* it won (it is a node of the tree) */
};

/* A node of the result: f0 (the root, index 0) or a winner. */
struct search_node {
	int parent;	   /* -1 for f0 */
	int depth;	   /* 0 for f0 */
	int kind;	   /* enum search_kind (SEARCH_FNODE for f0) */
	int64_t id;	   /* fnode id or source index */
	int maxcount;	   /* its votes (f0: the calls) */
	int ncalls;	   /* the peak's calls */
	double total_ns;   /* its value summed over them */
	double share;	   /* of f0's latency in the peak, 0..1 */
	int status;	   /* enum search_status */
	int level;	   /* depth counted against max_depth (wrappers cost none) */
	int by_time;	   /* a callee that lost the vote, searched for its time */
	int pad;	   /* (explicit: nodes are compared whole) */
	double overhead_ns; /* tracer overhead in its instances' subtrees, summed */
	int64_t at;	    /* SEARCH_BELOW blocked or self: the fnode holding most of it */
};

struct search_result {
	struct search_node *nodes;
	int nnodes;
	struct search_cand *cands;
	int ncands;
};

/*
 * The form the search works on, which a caller can build a call at a time
 * (search-db.c streams the database into it, never holding a subtree's raw
 * rows): the calls in preorder (a call's subtree is the calls after it up to
 * its last), each with its value already net of the exogenous time in its
 * subtree, the rarer parts (preemption, blocking, tracer overhead, the f0
 * calls' latency) apart. About 28 bytes a call.
 */
struct search_tcall {
	int64_t value;	/* incl minus interrupts, preemption, overhead in its subtree */
	int64_t fnode;
	int last;	/* index of the last call of its subtree */
	int extra;	/* index into search_tree.extras, -1 if all of them are 0 */
};

struct search_textra {
	int64_t incl;	 /* kept for the f0 calls and the tracer's own */
	int64_t pre;	 /* preemption over the subtree */
	int64_t blocked; /* its own */
	int64_t ovh;	 /* tracer overhead over the subtree */
	int overhead;
};

struct search_tree {
	struct search_tcall *calls;
	int ncalls, cap;
	struct search_textra *extras;
	int nextras, xcap;
	int *roots; /* the f0 calls, in order */
	int nroots, rcap;
	struct search_irq *irqs; /* .call: index in calls; sorted by it */
	int nirqs, icap;
	int nsources;
	const int *source_soft;
	const int *order; /* NULL, or a call's rank among instances (tie-break) */
	/* building: the open calls (the path from an f0 call down) */
	struct search_open *open;
	int nopen, ocap;
};

/*
 * Add a call at stack level @level (0: an f0 call; n: a child of the open
 * call at level n - 1, which closes the calls below it); @key names it for
 * search_tree_find(). Its index, or -1 when out of memory or @level is wrong.
 * search_tree_end() closes the open calls once all are added.
 */
int search_tree_add(struct search_tree *t, int level, int64_t key, int64_t fnode, int64_t incl,
		    int64_t exo, int64_t preempt, int64_t blocked, int overhead);
/* The level a child of the open call @key takes, or -1 if it is not open. */
int search_tree_find(const struct search_tree *t, int64_t key);
int search_tree_end(struct search_tree *t);
/*
 * Append tree @b (ended) to @t (ended): as if @b's calls had been added to
 * @t after its own; irqs' sources are @t's (the caller maps them). 0, or -1
 * when out of memory.
 */
int search_tree_append(struct search_tree *t, const struct search_tree *b);
void search_tree_release(struct search_tree *t);

/* Search the f0 calls of @t; as search_run(). */
int search_run_tree(const struct search_tree *t, const struct search_params *p,
		    struct search_result *out);

/*
 * Search from the f0 calls of @in (those with parent -1, all of one fnode or
 * function). Fills @out (release with search_release()). 0, or -1 when out of
 * memory or @p is out of range.
 */
int search_run(const struct search_input *in, const struct search_params *p,
	       struct search_result *out);

void search_release(struct search_result *r);

/* "self", "irq", ...; "root cause found", ... */
const char *search_kind_name(int kind);
const char *search_status_name(int status);

#endif
