// SPDX-License-Identifier: MIT
/*
 * The call-tree state machines. Per task: a stack of open calls and the
 * scheduling state. Per CPU: the interrupt context (a stack of calls made in
 * irq context plus the nesting counters of irq/softirq/vector events) and
 * the task it interrupted.
 *
 * Time is charged to stacks as segments [a, b) of one category (irq,
 * softirq, preempt, blocked); a call's exclusive time is what remains of its
 * inclusive time, so the identity holds by construction. A call's own
 * window may start a little before its entry event (function_graph's
 * calltime) and end a little before its exit event (rettime); segments that
 * fall on the wrong side of those edges are moved between parent and child
 * using a short log of the last segments charged.
 */
#include "ftree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

enum cat { CAT_IRQ, CAT_SOFTIRQ, CAT_PREEMPT, CAT_BLOCKED, NCAT };

enum frame_kind { FR_FG, FR_PROBE, FR_SYS };

/* levels of a CPU's context */
enum { LV_TASK = 0, LV_SOFT = 1, LV_HARD = 2, LV_NMI = 3 };

struct frame {
	int64_t id, func_id;
	int64_t last_id;    /* the largest id of a call in its subtree so far */
	int fnode;	    /* index into nodes */
	int last_child;	    /* the fnode of its latest child, -1 before the first */
	int kind;	    /* enum frame_kind */
	uint64_t key;	    /* address or syscall number */
	int fg_depth;	    /* function_graph depth, -1 otherwise */
	int sys_raw;	    /* FR_SYS: opened by raw_syscalls */
	int level;	    /* irq stacks: the context level of the call */
	int32_t cpu;
	int64_t t_entry;    /* DARC_NULL if unknown */
	int64_t children;
	int64_t cat[NCAT];
	int64_t interrupted_id;
	uint32_t flags;
	int64_t retval;	    /* the return value, once its exit says, else DARC_NULL */
	char *args, *retaddr; /* owned: what its entry said (freed when it is written) */
	/* new_frame() sets each field above; push() what follows, detach() the
	   det_ and post fields */
	int npre;
	struct seg_copy {
		int64_t a, b;
		int cat;
	} pre[2]; /* the parent's last segments before the entry event */
	/* a returned frame whose exit event has not come yet (see detach()) */
	int det_parent;	      /* its parent's index in the stack */
	int64_t det_parent_id;
	int det_depth;
	int npost;
	struct seg_copy post[4]; /* its last segments, some may follow its return */
};

#define NLOG 8 /* a power of two: log_at() masks */
struct seg {
	int64_t a, b;
	int cat;
	int depth; /* index of the frame it was charged to */
};

struct stack {
	struct frame *f;
	int n, cap;
	int nfg; /* function_graph frames among them */
	struct frame *det; /* returned frames waiting for their exit event */
	int ndet, capdet;
	struct seg log[NLOG]; /* the last segments charged, a ring */
	int nlog, logpos;
	int64_t log_end; /* no segment of the log ends after it (move_after()) */
	/* the off-CPU interval just ended, held until the task's next event:
	   a late exit event may move its time from frame held_frame (pop()) */
	struct sched_rec *held;
	int held_frame;
};

enum tstate { TS_RUNNING, TS_OFF };

struct task {
	int32_t tid;
	struct stack st;
	int state;	    /* enum tstate */
	int off_kind;	    /* SCHED_PREEMPTED or SCHED_BLOCKED while off */
	struct sched_rec pend; /* the open off-CPU interval */
	int wake_from_waking; /* pend.wakeup_id came from sched_waking */
	int32_t last_cpu;
	int unseen;	    /* off its CPU where the recording does not show, since unseen_from */
	int64_t unseen_from;
	int32_t unseen_cpu;
	int unseen_back;    /* off after a recorded switch, seen running again (a sched_gap) */
	int64_t closed_sys_nr; /* the syscall just closed (dedupe raw/syscalls pairs) */
	int closed_sys_raw;
	int in_trap;	       /* in the uretprobe or uprobe system call */
};

struct cpu {
	struct stack irq; /* calls made in irq context */
	int hard, soft, nmi; /* nesting from tracepoints */
	int flag_level;	  /* the level the last event's flags showed */
	int level;	  /* current effective level */
	int64_t since;	  /* start of the current level's segment */
	int64_t last_irq_t; /* time of the last event in irq context */
	int episode;	  /* an irq episode is open */
	int held;	  /* its level only held after a closer, nothing open (step 3) */
	int end_last;	  /* the episode ends at last_irq_t, though its level later */
	int soft_hflag;	  /* the running softirq's entry showed the hardirq flag */
	struct irq_rec rec; /* the episode being built */
	char name[64];	  /* its name (rec.name points here) */
	char hard_name[32], soft_name[32]; /* the handler and vector running, or "" */
	/* the task on it, as its recorded switches say (unseen_switches()) */
	int on_known;	  /* a switch on it has been seen */
	int32_t on;	  /* the next task of its last switch, or of its last event since */
	int32_t left;	  /* the previous task of its last switch: its events may follow */
	int on_seen;	  /* an event of @on came since that switch */
	int64_t on_t;	  /* the last event of @on there */
};

struct ftree {
	struct ftree_sink sink;
	char err[256];
	/* tasks: open addressing on tid; the tasks themselves never move */
	struct task **tasks;
	int ntask_slots, ntasks;
	struct task *last_task; /* the last one looked up: most events are its */
	struct cpu *cpus;
	int ncpus;
	/* the ftree */
	struct ftree_node *nodes;
	int nnodes, nodes_cap;
	int *nmap; /* hash (parent, func) -> node index + 1 */
	int nmap_slots;
	int excl_div; /* the excl_ns histograms' buckets, in fine ones (ftree_excl_resolution()) */
	/* the fnode histograms' counts not put in yet (account(), flush_counts()) */
	struct pending_count {
		uint32_t node;	 /* the fnode's index */
		uint16_t incl;	 /* the fine buckets of its incl_ns and excl_ns */
		uint16_t excl;
	} *pend, *pend_sorted;
	int npend;
	uint32_t *pend_at; /* flush_counts()'s count of each node, then where it starts */
	int pend_at_cap;
	/* per function */
	struct hist (*fh)[2];
	int64_t nfh;
	struct quant *fq; /* fq[func_id]: made by ftree_finish(), nfh of them */
	bool *has_fq;	  /* fq[func_id] holds a function's (it had a complete call) */
	int64_t next_call, next_irq, next_sched, next_wakeup, next_probe, next_gap;
	struct ftree_stats stats;
	int64_t t_first; /* the first event's time, DARC_NULL before it */
};

static int fail(struct ftree *ft, const char *what)
{
	snprintf(ft->err, sizeof(ft->err), "%s", what);
	return -1;
}

const char *ftree_error(const struct ftree *ft)
{
	return ft->err;
}

/* ---- tables ----------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* The task @tid, made on first sight (task_get()'s look-up). NULL when out of memory. */
static struct task *task_find(struct ftree *ft, int32_t tid)
{
	struct task *t;
	uint64_t i;

	if (ft->ntasks * 2 >= ft->ntask_slots) {
		int n = ft->ntask_slots ? ft->ntask_slots * 2 : 1024;
		struct task **nt = calloc(n, sizeof(*nt));
		if (!nt)
			return NULL;
		for (int k = 0; k < ft->ntask_slots; k++) {
			struct task *o = ft->tasks[k];
			if (!o)
				continue;
			for (i = mix(o->tid) & (n - 1); nt[i]; i = (i + 1) & (n - 1))
				;
			nt[i] = o;
		}
		free(ft->tasks);
		ft->tasks = nt;
		ft->ntask_slots = n;
	}
	for (i = mix(tid) & (ft->ntask_slots - 1); ft->tasks[i];
	     i = (i + 1) & (ft->ntask_slots - 1))
		if (ft->tasks[i]->tid == tid)
			return ft->last_task = ft->tasks[i];
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->last_cpu = -1;
	t->closed_sys_nr = -1;
	ft->tasks[i] = t;
	ft->ntasks++;
	ft->stats.tasks++;
	return ft->last_task = t;
}

/* The task @tid, made on first sight. NULL when out of memory. */
static inline struct task *task_get(struct ftree *ft, int32_t tid)
{
	struct task *t = ft->last_task;

	return t && t->tid == tid ? t : task_find(ft, tid);
}

/* CPU @c, made on first sight (cpu_get()'s slow way). NULL if out of range or memory. */
static struct cpu *cpu_add(struct ftree *ft, int32_t c)
{
	if (c < 0 || c > 65535)
		return NULL;
	if (c >= ft->ncpus) {
		int n = c + 8;
		struct cpu *nc = realloc(ft->cpus, n * sizeof(*nc));
		if (!nc)
			return NULL;
		memset(nc + ft->ncpus, 0, (n - ft->ncpus) * sizeof(*nc));
		ft->cpus = nc;
		ft->ncpus = n;
	}
	return &ft->cpus[c];
}

static inline struct cpu *cpu_get(struct ftree *ft, int32_t c)
{
	return c >= 0 && c < ft->ncpus ? &ft->cpus[c] : cpu_add(ft, c);
}

/* The fnode of @func under @parent (-1 for a root), created on first use. */
static int node_get(struct ftree *ft, int parent, int64_t func, int depth)
{
	uint64_t h, i;

	if (ft->nnodes * 2 >= ft->nmap_slots) {
		int n = ft->nmap_slots ? ft->nmap_slots * 2 : 1024;
		int *m = calloc(n, sizeof(*m));
		if (!m)
			return -1;
		for (int k = 0; k < ft->nnodes; k++) {
			struct fnode_rec *r = &ft->nodes[k].rec;
			h = mix((uint64_t)(r->parent_id == DARC_NULL ? 0 : r->parent_id) << 32 ^
				(uint64_t)r->func_id);
			for (i = h & (n - 1); m[i]; i = (i + 1) & (n - 1))
				;
			m[i] = k + 1;
		}
		free(ft->nmap);
		ft->nmap = m;
		ft->nmap_slots = n;
	}
	h = mix((uint64_t)(parent + 1) << 32 ^ (uint64_t)func);
	for (i = h & (ft->nmap_slots - 1); ft->nmap[i]; i = (i + 1) & (ft->nmap_slots - 1)) {
		struct fnode_rec *r = &ft->nodes[ft->nmap[i] - 1].rec;
		if (r->func_id == func && r->parent_id == (parent < 0 ? DARC_NULL : parent + 1))
			return ft->nmap[i] - 1;
	}
	if (GROW(ft->nodes, ft->nnodes, ft->nodes_cap, 256))
		return -1;
	struct ftree_node *nd = &ft->nodes[ft->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->rec.id = ft->nnodes + 1;
	nd->rec.parent_id = parent < 0 ? DARC_NULL : parent + 1;
	nd->rec.func_id = func;
	nd->rec.depth = depth;
	if (ft->excl_div > 1)
		hist_coarse(&nd->excl, ft->excl_div);
	ft->nmap[i] = ++ft->nnodes;
	return ft->nnodes - 1;
}

static struct hist *func_hist(struct ftree *ft, int64_t func)
{
	if (func < 0)
		return NULL;
	if (func >= ft->nfh) {
		int64_t n = func + 64;
		void *p = realloc(ft->fh, n * sizeof(*ft->fh));
		if (!p)
			return NULL;
		ft->fh = p;
		memset(ft->fh + ft->nfh, 0, (n - ft->nfh) * sizeof(*ft->fh));
		ft->nfh = n;
	}
	return ft->fh[func];
}

/* ---- stacks and segments -------------------------------------------------- */

static struct frame *top(struct stack *s)
{
	return s->n ? &s->f[s->n - 1] : NULL;
}

static void log_seg(struct stack *s, int64_t a, int64_t b, int cat, int depth)
{
	s->log[s->logpos] = (struct seg){a, b, cat, depth};
	s->logpos = (s->logpos + 1) & (NLOG - 1);
	if (s->nlog < NLOG)
		s->nlog++;
	if (b > s->log_end)
		s->log_end = b;
}

/* The @i-th last segment of the log (0: the last one). */
static struct seg *log_at(struct stack *s, int i)
{
	return &s->log[(s->logpos - 1 - i) & (NLOG - 1)];
}

/* Charge [a, b) of @cat to the innermost call of @s (nothing if none). */
static void charge(struct stack *s, int cat, int64_t a, int64_t b)
{
	struct frame *f = top(s);

	if (!f || b <= a)
		return;
	if (f->t_entry != DARC_NULL && a < f->t_entry)
		a = f->t_entry;
	if (b <= a)
		return;
	f->cat[cat] += b - a;
	log_seg(s, a, b, cat, s->n - 1);
}

/*
 * Move the parts after @t of the logged segments charged to frame @from to
 * frame @to (-1: drop them), keeping the log consistent.
 */
static void move_after(struct stack *s, int from, int to, int64_t t)
{
	int k = s->nlog;

	/* most calls open and close between segments: nothing ends after @t */
	if (t >= s->log_end)
		return;
	for (int i = 0; i < k; i++) {
		struct seg *g = log_at(s, i);
		int64_t start, len;

		if (g->depth != from || g->b <= t)
			continue;
		start = g->a > t ? g->a : t;
		len = g->b - start;
		s->f[from].cat[g->cat] -= len;
		if (to >= 0)
			s->f[to].cat[g->cat] += len;
		if (g->a >= t) {
			g->depth = to;
		} else {
			int64_t b = g->b;
			g->b = t;
			if (to >= 0)
				log_seg(s, t, b, g->cat, to);
		}
	}
}

/* Open the frame new_frame() made above the top of @s. */
static struct frame *push(struct ftree *ft, struct stack *s)
{
	struct frame *f = &s->f[s->n++];

	f->id = f->last_id = ++ft->next_call;
	s->nfg += f->kind == FR_FG;
	/* remember the parent's last segments: function_graph's calltime, known
	   at the exit, may put them inside this call */
	f->npre = 0;
	for (int i = 0; i < s->nlog && f->npre < 2; i++) {
		struct seg *g = log_at(s, i);
		if (g->depth == s->n - 2)
			f->pre[f->npre++] = (struct seg_copy){g->a, g->b, g->cat};
	}
	/* segments charged to the parent after this call's entry are this call's */
	if (s->n > 1 && f->t_entry != DARC_NULL)
		move_after(s, s->n - 2, s->n - 1, f->t_entry);
	return f;
}

#define PENDING 65536 /* histogram counts put in at a time */

/*
 * Put the pending histogram counts in, grouped by fnode: one at a time, as
 * calls end, each was a cache miss in a histogram of its own (the fine ones
 * of 10 K fnodes are tens of MB); grouped, the calls of one fnode hit the
 * same few lines. A count sort by node, then the counts. 0, or -1 (memory).
 */
static int flush_counts(struct ftree *ft)
{
	uint32_t sum = 0;

	if (!ft->npend)
		return 0;
	if (ft->pend_at_cap < ft->nnodes + 1) {
		uint32_t *a = realloc(ft->pend_at, (ft->nnodes + 1) * sizeof(*a));
		if (!a)
			return fail(ft, "out of memory");
		ft->pend_at = a;
		ft->pend_at_cap = ft->nnodes + 1;
	}
	memset(ft->pend_at, 0, (ft->nnodes + 1) * sizeof(*ft->pend_at));
	for (int i = 0; i < ft->npend; i++)
		ft->pend_at[ft->pend[i].node]++;
	for (int k = 0; k <= ft->nnodes; k++) {
		uint32_t n = ft->pend_at[k];
		ft->pend_at[k] = sum;
		sum += n;
	}
	for (int i = 0; i < ft->npend; i++)
		ft->pend_sorted[ft->pend_at[ft->pend[i].node]++] = ft->pend[i];
	for (int i = 0; i < ft->npend; i++) {
		const struct pending_count *p = &ft->pend_sorted[i];
		struct ftree_node *nd = &ft->nodes[p->node];
		if (hist_count_at(&nd->incl, p->incl) || hist_count_at(&nd->excl, p->excl))
			return fail(ft, "out of memory");
	}
	ft->npend = 0;
	return 0;
}

/* Aggregate a finished call into its fnode and function. */
static int account(struct ftree *ft, const struct call_rec *c)
{
	struct ftree_node *nd = &ft->nodes[c->fnode_id - 1];
	struct fnode_rec *r = &nd->rec;
	int fine;

	if (c->incl_ns == DARC_NULL || (c->flags & (CALL_NO_ENTRY | CALL_NO_EXIT))) {
		r->incomplete++;
		return 0;
	}
	r->calls++;
	r->incl_ns += c->incl_ns;
	r->excl_ns += c->excl_ns;
	r->children_ns += c->children_ns;
	r->irq_ns += c->irq_ns;
	r->softirq_ns += c->softirq_ns;
	r->preempt_ns += c->preempt_ns;
	r->blocked_ns += c->blocked_ns;
	if (c->incl_ns > r->max_ns)
		r->max_ns = c->incl_ns;
	if (c->excl_ns > r->max_excl_ns)
		r->max_excl_ns = c->excl_ns;
	/* the function's histograms are the sums of its fnodes', at the end;
	   a leaf's exclusive time is mostly its inclusive time: one bucket.
	   The counts go in later, by fnode (flush_counts()). */
	fine = hist_fine(c->incl_ns);
	if (GROW(nd->incl_v, r->calls - 1, nd->incl_cap, 4))
		return fail(ft, "out of memory");
	nd->incl_v[r->calls - 1] = c->incl_ns;
	hist_note(&nd->incl, (uint64_t)c->incl_ns);
	hist_note(&nd->excl, (uint64_t)c->excl_ns);
	if (!ft->pend) {
		ft->pend = malloc(PENDING * sizeof(*ft->pend));
		ft->pend_sorted = malloc(PENDING * sizeof(*ft->pend_sorted));
		if (!ft->pend || !ft->pend_sorted)
			return fail(ft, "out of memory");
	}
	ft->pend[ft->npend++] = (struct pending_count){
	    (uint32_t)(c->fnode_id - 1), (uint16_t)fine,
	    (uint16_t)(c->excl_ns == c->incl_ns ? fine : hist_fine(c->excl_ns))};
	ft->stats.complete++;
	return ft->npend == PENDING ? flush_counts(ft) : 0;
}

/* Free what frame @f owns (it has been written, or is dropped). */
static void frame_release(struct frame *f)
{
	free(f->args);
	free(f->retaddr);
	f->args = f->retaddr = NULL;
}

/* Call @c's exclusive time: what its inclusive time leaves to its parts. */
static int64_t excl_of(const struct call_rec *c)
{
	return c->incl_ns - c->children_ns - c->irq_ns - c->softirq_ns - c->preempt_ns -
	       c->blocked_ns;
}

/* Make the parts of call @c fit its inclusive time, flagging it clamped. */
static void clamp_parts(struct call_rec *c)
{
	int64_t *part[] = {&c->blocked_ns, &c->preempt_ns, &c->softirq_ns, &c->irq_ns,
			   &c->children_ns};

	/* time that ran backwards (a damaged or stitched recording) can leave a
	   part below zero: no part is negative, ever */
	for (int i = 0; i < 5; i++)
		if (*part[i] < 0) {
			*part[i] = 0;
			c->flags |= CALL_CLAMPED;
		}
	c->excl_ns = excl_of(c);
	/* clock skew across CPUs can make the parts exceed the whole: trim them */
	for (int i = 0; c->excl_ns < 0 && i < 5; i++) {
		int64_t take = *part[i] < -c->excl_ns ? *part[i] : -c->excl_ns;
		*part[i] -= take;
		c->excl_ns += take;
		c->flags |= CALL_CLAMPED;
	}
}

/*
 * Write the call of frame @f, which ends at @t_exit (DARC_NULL: unknown),
 * whose parent is @parent (NULL for a root), at @depth.
 */
static int emit_frame(struct ftree *ft, struct frame *f, struct frame *parent, int64_t parent_id,
		      int depth, int64_t t_exit, uint32_t flags, int32_t tid)
{
	struct call_rec c = {
	    .id = f->id,
	    .task_id = tid,
	    .func_id = f->func_id,
	    .parent_id = parent_id,
	    .last_id = f->last_id,
	    .fnode_id = f->fnode + 1,
	    .interrupted_id = f->interrupted_id,
	    .depth = depth,
	    .cpu = f->cpu,
	    .t_entry = f->t_entry,
	    .t_exit = t_exit,
	    .incl_ns = DARC_NULL,
	    .excl_ns = DARC_NULL,
	    .children_ns = f->children,
	    .irq_ns = f->cat[CAT_IRQ],
	    .softirq_ns = f->cat[CAT_SOFTIRQ],
	    .preempt_ns = f->cat[CAT_PREEMPT],
	    .blocked_ns = f->cat[CAT_BLOCKED],
	    .flags = f->flags | flags | (t_exit == DARC_NULL ? CALL_NO_EXIT : 0),
	    .has_retval = f->retval != DARC_NULL,
	    .retval = f->retval,
	    .args = f->args,
	    .retaddr = f->retaddr,
	};
	int rc;

	if (c.t_entry != DARC_NULL && c.t_exit != DARC_NULL) {
		c.incl_ns = c.t_exit - c.t_entry;
		c.excl_ns = excl_of(&c);
		if (c.excl_ns < 0 ||
		    (c.blocked_ns | c.preempt_ns | c.softirq_ns | c.irq_ns | c.children_ns) < 0)
			clamp_parts(&c); /* rare: a part below zero, or the parts above the whole */
	}
	if (parent && f->last_id > parent->last_id)
		parent->last_id = f->last_id;
	if (parent) {
		if (c.incl_ns != DARC_NULL)
			parent->children += c.incl_ns;
		else
			parent->flags |= CALL_GAP; /* a child's time is not known */
	}
	ft->stats.calls++;
	if (c.flags & CALL_NO_EXIT)
		ft->stats.no_exit++;
	if (c.flags & CALL_GAP)
		ft->stats.gap++;
	if (c.flags & CALL_CLAMPED)
		ft->stats.clamped++;
	if (c.flags & (CALL_HARDIRQ | CALL_SOFTIRQ | CALL_NMI))
		ft->stats.irq_calls++;
	rc = account(ft, &c) ? -1
	     : ft->sink.call(ft->sink.ctx, &c) ? fail(ft, "cannot write a call") : 0;
	frame_release(f);
	return rc;
}

/*
 * Has call @id a detached child (returned, its exit not come)? Then that
 * child's time is not in @id's sums: @id is written flagged gap.
 */
static bool detached_child(const struct stack *s, int64_t id)
{
	for (int k = 0; k < s->ndet; k++)
		if (s->det[k].det_parent_id == id)
			return true;
	return false;
}

/*
 * Close the innermost call of @s at @t_exit (DARC_NULL: exit unknown), with
 * extra @flags, and write it.
 */
static int pop(struct ftree *ft, struct stack *s, int64_t t_exit, uint32_t flags, int32_t tid)
{
	struct frame *f = top(s);
	struct frame *parent = s->n > 1 ? &s->f[s->n - 2] : NULL;

	if (t_exit != DARC_NULL && f->t_entry != DARC_NULL && t_exit < f->t_entry) {
		t_exit = f->t_entry;
		flags |= CALL_CLAMPED;
	}
	/*
	 * Segments charged after the call returned belong to its parent. So
	 * does the whole of the off-CPU interval held on it when it returned
	 * before the switch back in, even inside the interval: its exit came
	 * after the switch in (written late, on another CPU), where had it come
	 * first the parent would have been charged all of it, and one interval
	 * names one call.
	 */
	if (t_exit != DARC_NULL) {
		bool held = s->held && s->held_frame == s->n - 1 && t_exit < s->held->t_in;

		move_after(s, s->n - 1, s->n - 2,
			   held && t_exit > s->held->t_out ? s->held->t_out : t_exit);
		if (held) {
			s->held->call_id = parent ? parent->id : DARC_NULL;
			s->held_frame = s->n - 2;
		}
	}
	if (detached_child(s, f->id))
		f->flags |= CALL_GAP;
	s->nfg -= f->kind == FR_FG;
	s->n--;
	/* *f stays put: writing the call pushes nothing */
	return emit_frame(ft, f, parent, parent ? parent->id : DARC_NULL, s->n, t_exit, flags, tid);
}

/*
 * A function_graph entry at the depth of the innermost open call (or above)
 * means that call has returned: its exit event comes later (an interrupt
 * struck between its return and the writing of its exit, and the task was
 * preempted there). Take it off the stack, so what follows is not its child,
 * and keep it until its exit brings the times.
 */
static int detach(struct ftree *ft, struct stack *s)
{
	struct frame *f = top(s);

	if (GROW(s->det, s->ndet, s->capdet, 4))
		return fail(ft, "out of memory");
	f->det_parent = s->n - 2;
	f->det_parent_id = s->n > 1 ? s->f[s->n - 2].id : DARC_NULL;
	if (s->n > 1 && f->last_id > s->f[s->n - 2].last_id)
		s->f[s->n - 2].last_id = f->last_id; /* its subtree is complete */
	f->det_depth = s->n - 1;
	f->npost = 0;
	for (int i = 0; i < s->nlog && f->npost < 4; i++) {
		struct seg *g = log_at(s, i);
		if (g->depth == s->n - 1) {
			f->post[f->npost++] = (struct seg_copy){g->a, g->b, g->cat};
			g->depth = -2; /* no longer on the stack */
		}
	}
	s->det[s->ndet++] = *f;
	s->nfg -= f->kind == FR_FG;
	s->n--;
	return 0;
}

/*
 * function_graph's calltime of the call whose entry event came at @t_entry
 * (DARC_NULL if unseen), or DARC_NULL, with CALL_BAD_TIME added to @flags,
 * when the exit's times were implausible or calltime cannot be this call's:
 * after its entry event, long before it, or long before the recording began.
 * But a calltime after the entry event when the clock offset rests on this
 * exit alone (decode.c: its CPU's first, written late) says the offset was
 * too large: the call is placed at its entry event, and *@t_exit there plus
 * function_graph's duration.
 */
static int64_t fg_calltime(const struct ftree *ft, const struct analysis_event *e, int64_t t_entry,
			   uint32_t *flags, int64_t *t_exit)
{
	int64_t ct = e->fg.calltime;

	if (e->fg.bad_time)
		*flags |= CALL_BAD_TIME;
	if (ct == DARC_NULL)
		return ct;
	if (t_entry != DARC_NULL && ct > t_entry + FG_SLACK && e->fg.new_off &&
	    e->fg.dur != DARC_NULL) {
		*t_exit = t_entry + e->fg.dur;
		return t_entry;
	}
	if (t_entry != DARC_NULL ? ct > t_entry + FG_SLACK || ct < t_entry - FG_LATE
				 : ct < ft->t_first - FG_EARLY) {
		*flags |= CALL_BAD_TIME;
		return DARC_NULL;
	}
	return ct;
}

/* The exit of a detached frame: write it with the times the exit gives. */
static int finish_detached(struct ftree *ft, struct stack *s, int k, const struct analysis_event *e,
			   int32_t tid)
{
	struct frame f = s->det[k];
	struct frame *parent = NULL;
	int64_t t_exit = e->fg.rettime != DARC_NULL ? e->fg.rettime : e->t;
	int64_t ct = fg_calltime(ft, e, f.t_entry, &f.flags, &t_exit);

	s->det[k] = s->det[--s->ndet];
	f.retval = e->fg.retval;
	if (detached_child(s, f.id))
		f.flags |= CALL_GAP;
	if (f.det_parent >= 0 && f.det_parent < s->n && s->f[f.det_parent].id == f.det_parent_id)
		parent = &s->f[f.det_parent];
	if (ct != DARC_NULL)
		f.t_entry = ct;
	if (t_exit < f.t_entry)
		t_exit = f.t_entry;
	/* what was charged to it after it returned is its parent's */
	for (int i = 0; i < f.npost; i++) {
		int64_t a = f.post[i].a > t_exit ? f.post[i].a : t_exit;
		if (f.post[i].b > a) {
			f.cat[f.post[i].cat] -= f.post[i].b - a;
			if (parent)
				parent->cat[f.post[i].cat] += f.post[i].b - a;
		}
	}
	return emit_frame(ft, &f, parent, f.det_parent_id, f.det_depth, t_exit, 0, tid);
}

/* The detached function_graph frame of @addr at @fg_depth, or -1. */
static int find_detached(const struct stack *s, uint64_t addr, int fg_depth)
{
	for (int k = 0; k < s->ndet; k++)
		if (s->det[k].key == addr && s->det[k].fg_depth == fg_depth)
			return k;
	return -1;
}

/* Write every detached frame as not exited (their exits will not come). */
static int drop_detached(struct ftree *ft, struct stack *s, uint32_t flags, int32_t tid)
{
	while (s->ndet) {
		struct frame f = s->det[--s->ndet];
		if (emit_frame(ft, &f, NULL, f.det_parent_id, f.det_depth, DARC_NULL, flags, tid))
			return -1;
	}
	return 0;
}

/* Write the call of the frame new_frame() made, whose entry was not recorded. */
static int lone_exit(struct ftree *ft, struct stack *s, int64_t t_exit, int32_t tid)
{
	struct frame *f = push(ft, s);

	f->flags |= CALL_NO_ENTRY;
	ft->stats.no_entry++;
	return pop(ft, s, t_exit, 0, tid);
}

/* Close every open call of @s as not exited, flagged @flags. */
static int unwind(struct ftree *ft, struct stack *s, uint32_t flags, int32_t tid)
{
	if (drop_detached(ft, s, flags, tid))
		return -1;
	while (s->n)
		if (pop(ft, s, DARC_NULL, flags, tid))
			return -1;
	s->nlog = 0;
	return 0;
}

/* ---- interrupt context --------------------------------------------------- */

static int irq_frames_level(struct cpu *c)
{
	struct frame *f = top(&c->irq);
	return f ? f->level : LV_TASK;
}

static int cpu_level(struct cpu *c)
{
	int l = c->nmi ? LV_NMI : c->hard ? LV_HARD : c->soft ? LV_SOFT : LV_TASK;
	int fl = irq_frames_level(c);

	if (fl > l)
		l = fl;
	if (c->flag_level > l)
		l = c->flag_level;
	return l;
}

static int level_of_flags(uint8_t flags)
{
	return (flags & EVENT_F_NMI) ? LV_NMI : (flags & EVENT_F_HARDIRQ) ? LV_HARD
			: (flags & EVENT_F_SOFTIRQ) ? LV_SOFT : LV_TASK;
}

/*
 * The context @e's flags show on @c. A softirq never runs in hardirq
 * context, whatever the flags say: on 5.15 a softirq run on irq exit shows
 * the hardirq flag on its entry and exit and on every event in it; when its
 * entry did, the flag means nothing until it exits (an interrupt hitting it
 * shows its own irq events).
 */
static int event_level(const struct cpu *c, const struct analysis_event *e)
{
	int fl = level_of_flags(e->flags);
	bool softirq_ev = e->kind == EVENT_SOFTIRQ_ENTRY || e->kind == EVENT_SOFTIRQ_EXIT;

	if (fl == LV_HARD && (softirq_ev || (c->soft && !c->hard && c->soft_hflag)))
		return LV_SOFT;
	return fl;
}

static int cat_of_level(int l)
{
	return l == LV_SOFT ? CAT_SOFTIRQ : CAT_IRQ;
}

/*
 * The CPU's context changes to @lv at @t: charge the segment that ends to
 * the interrupted task's innermost call and to the irq stack's innermost
 * call if it ran at a lower level; open or close the episode.
 */
static int set_level(struct ftree *ft, struct cpu *c, int32_t cpu, int lv, int64_t t,
		     int32_t tid, const char *name, int64_t irqno)
{
	if (lv == c->level)
		return 0;
	if (c->level > LV_TASK) {
		struct task *tk = c->rec.task_id ? task_get(ft, (int32_t)c->rec.task_id) : NULL;
		struct frame *f = top(&c->irq);
		int64_t a = c->since, b = t > a ? t : a;

		if (tk)
			charge(&tk->st, cat_of_level(c->level), a, b);
		if (f && f->level < c->level)
			charge(&c->irq, cat_of_level(c->level), a, b);
	}
	if (c->level == LV_TASK && lv > LV_TASK) {
		/* an episode starts: remember whom it interrupted */
		struct task *tk = tid ? task_get(ft, tid) : NULL;
		struct frame *f = tk ? top(&tk->st) : NULL;
		c->episode = 1;
		memset(&c->rec, 0, sizeof(c->rec));
		c->rec.cpu = cpu;
		c->rec.kind = lv == LV_NMI ? IRQ_NMI : lv == LV_HARD ? IRQ_HARD : IRQ_SOFT;
		c->rec.irq = irqno;
		snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
		c->rec.name = c->name;
		c->rec.t_start = t;
		c->rec.task_id = tk ? tid : 0;
		c->rec.call_id = f ? f->id : DARC_NULL;
	} else if (lv == LV_TASK && c->episode) {
		c->episode = 0;
		c->rec.id = ++ft->next_irq;
		if (c->end_last && c->last_irq_t < t)
			t = c->last_irq_t; /* its last event, before the level's end */
		c->end_last = 0;
		c->rec.t_end = t > c->rec.t_start ? t : c->rec.t_start;
		ft->stats.irq_intervals++;
		if (ft->sink.irq(ft->sink.ctx, &c->rec))
			return fail(ft, "cannot write an irq interval");
	} else if (c->episode && !c->name[0] && name) {
		snprintf(c->name, sizeof(c->name), "%s", name);
		if (c->rec.irq == DARC_NULL)
			c->rec.irq = irqno;
	}
	c->level = lv;
	c->since = t;
	return 0;
}

/* ---- scheduling ------------------------------------------------------------ */

static int emit_sched(struct ftree *ft, struct task *tk)
{
	tk->pend.id = ++ft->next_sched;
	ft->stats.sched_intervals++;
	return ft->sink.sched(ft->sink.ctx, &tk->pend) ? fail(ft, "cannot write a sched interval")
						       : 0;
}

/* Write @tk's held off-CPU interval, if any. */
static int release(struct ftree *ft, struct task *tk)
{
	if (!tk->st.held)
		return 0;
	tk->st.held = NULL;
	return emit_sched(ft, tk);
}

/* The task @pid of a switch in *@tk, NULL for the idle task (0): 0, or -1 out of memory. */
static int switch_task(struct ftree *ft, int32_t pid, struct task **tk)
{
	*tk = pid ? task_get(ft, pid) : NULL;
	return pid && !*tk ? fail(ft, "out of memory") : 0;
}

static int sched_out(struct ftree *ft, const struct analysis_event *e)
{
	struct task *tk;
	struct frame *f;

	if (switch_task(ft, e->sw.prev_pid, &tk))
		return -1;
	if (!tk)
		return 0;
	if (release(ft, tk))
		return -1;
	f = top(&tk->st);
	tk->state = TS_OFF;
	tk->off_kind = (e->sw.prev_state & 0xff) ? SCHED_BLOCKED : SCHED_PREEMPTED;
	memset(&tk->pend, 0, sizeof(tk->pend));
	tk->pend.task_id = tk->tid;
	tk->pend.kind = tk->off_kind;
	tk->pend.state = e->sw.prev_state;
	tk->pend.cpu_out = e->cpu;
	tk->pend.cpu_in = -1;
	tk->pend.t_out = e->t;
	tk->pend.t_in = DARC_NULL;
	tk->pend.call_id = f ? f->id : DARC_NULL;
	tk->pend.wakeup_id = DARC_NULL;
	tk->wake_from_waking = 0;
	tk->unseen_back = 0;
	return 0;
}

static int sched_in(struct ftree *ft, const struct analysis_event *e)
{
	struct task *tk;

	if (switch_task(ft, e->sw.next_pid, &tk))
		return -1;
	if (!tk)
		return 0;
	if (tk->state == TS_OFF) {
		struct frame *f = top(&tk->st);

		charge(&tk->st, tk->off_kind == SCHED_BLOCKED ? CAT_BLOCKED : CAT_PREEMPT,
		       tk->pend.t_out, e->t);
		/* the call charged: the sched_switch event fires inside the
		   tracepoint's own calls, which return before the switch */
		tk->pend.call_id = f ? f->id : DARC_NULL;
		tk->pend.cpu_in = e->cpu;
		tk->pend.t_in = e->t;
		if (release(ft, tk))
			return -1;
		tk->st.held = &tk->pend;
		tk->st.held_frame = tk->st.n - 1;
	}
	tk->state = TS_RUNNING;
	tk->last_cpu = e->cpu;
	return 0;
}

/* ---- switches the recording lacks ------------------------------------------ */

/* Write @tk's sched_gap on @cpu from @from to @to (DARC_NULL: not seen again). */
static int put_gap(struct ftree *ft, const struct task *tk, int32_t cpu, int64_t from, int64_t to)
{
	struct gap_rec g = {++ft->next_gap, tk->tid, cpu, from, to};

	ft->stats.sched_gaps++;
	if (!ft->sink.gap)
		return 0;
	return ft->sink.gap(ft->sink.ctx, &g) ? fail(ft, "cannot write a sched gap") : 0;
}

/* Task @tk (NULL: none) is seen on a CPU at @t: the gap it was in ends. */
static int seen(struct ftree *ft, struct task *tk, int64_t t)
{
	if (!tk || !tk->unseen)
		return 0;
	tk->unseen = 0;
	return put_gap(ft, tk, tk->unseen_cpu, tk->unseen_from, t);
}

/* The task on CPU @cpu (@c) left it unseen after its last event there. */
static int left_unseen(struct ftree *ft, struct cpu *c, int32_t cpu)
{
	struct task *x = c->on_known && c->on ? task_get(ft, c->on) : NULL;

	if (c->on_known && c->on && !x)
		return fail(ft, "out of memory");
	if (x && !x->unseen && x->state == TS_RUNNING) {
		x->unseen = 1;
		x->unseen_from = c->on_t;
		x->unseen_cpu = cpu;
	}
	return 0;
}

/*
 * Switches the recording lacks: a pid filter on sched events (darc-record's,
 * trace-cmd record -F's) records only the switches of the tasks it follows,
 * and lost events lose some. A CPU's recorded switches say which task is on
 * it (the previous task's own events may follow its switch, until the next
 * one's first); an event there of another task (an interrupt's events carry
 * the task they hit) means the task on it left unseen after its last event
 * there: it is off, where the recording does not show, until its next event
 * anywhere (a sched_gap). The other task came in unseen: if it was off
 * after a recorded switch, the end of that is not in the recording either
 * (a sched_gap from that switch). Before a CPU's first switch nothing is
 * known of it (a recording without sched_switch has no gaps).
 */
static int unseen_switches(struct ftree *ft, struct cpu *c, struct task *tk,
			   const struct analysis_event *e)
{
	int32_t p = e->pid;

	if (p < 0 || seen(ft, tk, e->t))
		return p < 0 ? 0 : -1;
	if (c->on_known && p != c->on && !(p == c->left && !c->on_seen)) {
		if (left_unseen(ft, c, e->cpu))
			return -1;
		if (tk && tk->state == TS_OFF && !tk->unseen_back) {
			tk->unseen_back = 1;
			if (put_gap(ft, tk, tk->pend.cpu_out, tk->pend.t_out, e->t))
				return -1;
		}
		c->on = p;
	}
	if (c->on_known && p == c->on) {
		c->on_seen = 1;
		c->on_t = e->t;
	}
	if (e->kind != EVENT_SWITCH)
		return 0;
	c->on_known = 1;
	c->left = e->sw.prev_pid;
	c->on = e->sw.next_pid;
	c->on_seen = 0;
	c->on_t = e->t;
	return e->sw.next_pid ? seen(ft, task_get(ft, e->sw.next_pid), e->t) : 0;
}

/* Events lost on CPU @cpu: the task on it may have left; nothing is known until a switch. */
static int lost_switches(struct ftree *ft, int32_t cpu)
{
	struct cpu *c = cpu_get(ft, cpu);

	if (!c)
		return fail(ft, "out of memory");
	if (left_unseen(ft, c, cpu))
		return -1;
	c->on_known = 0;
	return 0;
}

/* The wakeup.ctx / probe_hit.ctx code of context level @lv. */
static int ctx_of_level(int lv)
{
	return lv == LV_NMI ? CTX_NMI : lv == LV_HARD ? CTX_HARDIRQ : lv == LV_SOFT ? CTX_SOFTIRQ
										   : CTX_TASK;
}

static int wakeup(struct ftree *ft, const struct analysis_event *e)
{
	struct task *woken = task_get(ft, e->wake.pid);
	struct task *waker = e->pid ? task_get(ft, e->pid) : NULL;
	struct cpu *c = cpu_get(ft, e->cpu);
	struct wakeup_rec w;
	struct frame *f;
	int lv = c ? event_level(c, e) : LV_TASK;

	if (!woken || !c || (e->pid && !waker))
		return fail(ft, "out of memory");
	memset(&w, 0, sizeof(w));
	w.id = ++ft->next_wakeup;
	w.task_id = e->wake.pid;
	w.t = e->t;
	w.waker_tid = e->pid;
	w.waker_cpu = e->cpu;
	w.ctx = ctx_of_level(lv);
	f = lv > LV_TASK ? top(&c->irq) : waker ? top(&waker->st) : NULL;
	w.waker_call_id = f ? f->id : DARC_NULL;
	if (lv == LV_HARD || lv == LV_SOFT)
		snprintf(w.handler, sizeof(w.handler), "%s",
			 lv == LV_HARD ? c->hard_name : c->soft_name);
	/* the wake-up that ends a blocked interval: sched_waking if there is one */
	if (woken->state == TS_OFF && woken->off_kind == SCHED_BLOCKED &&
	    (woken->pend.wakeup_id == DARC_NULL ||
	     (e->kind == EVENT_WAKING && !woken->wake_from_waking))) {
		woken->pend.wakeup_id = w.id;
		woken->wake_from_waking = e->kind == EVENT_WAKING;
	}
	ft->stats.wakeups++;
	return ft->sink.wakeup(ft->sink.ctx, &w) ? fail(ft, "cannot write a wake-up") : 0;
}

/* ---- calls ------------------------------------------------------------------ */

/*
 * The fnode of a call of @func in @s: node_get()'s, but a call's children
 * mostly follow the order of its previous calls', so the node after its
 * latest child (or its node's first child) is tried first. -1 when out of
 * memory.
 */
static int child_node(struct ftree *ft, struct stack *s, int64_t func)
{
	struct frame *p = top(s);
	int guess, node;

	if (!p)
		return node_get(ft, -1, func, 0);
	guess = p->last_child >= 0 ? ft->nodes[p->last_child].next_sibling
				   : ft->nodes[p->fnode].first_child;
	if (guess && ft->nodes[guess - 1].rec.func_id == func)
		return p->last_child = guess - 1;
	node = node_get(ft, p->fnode, func, s->n);
	if (node < 0)
		return -1;
	if (p->last_child >= 0)
		ft->nodes[p->last_child].next_sibling = node + 1;
	else
		ft->nodes[p->fnode].first_child = node + 1;
	return p->last_child = node;
}

/*
 * A frame for a call of @func, made in place just above the top of @s,
 * where push() opens it (until then the stack is as it was). NULL when out
 * of memory.
 */
static struct frame *new_frame(struct ftree *ft, struct stack *s, int kind, int64_t func,
			       uint64_t key, int64_t t, int32_t cpu)
{
	struct frame *fr;
	int node = child_node(ft, s, func);

	if (node < 0 || GROW(s->f, s->n, s->cap, 16))
		return fail(ft, "out of memory"), NULL;
	/* every field up to npre, one by one (a memset of them costs more);
	   the rest is push()'s and detach()'s */
	fr = &s->f[s->n];
	fr->id = fr->last_id = 0;
	fr->func_id = func;
	fr->fnode = node;
	fr->last_child = -1;
	fr->kind = kind;
	fr->key = key;
	fr->fg_depth = -1;
	fr->sys_raw = 0;
	fr->level = 0;
	fr->cpu = cpu;
	fr->t_entry = t;
	fr->children = 0;
	for (int i = 0; i < NCAT; i++)
		fr->cat[i] = 0;
	fr->interrupted_id = DARC_NULL;
	fr->flags = 0;
	fr->retval = DARC_NULL;
	fr->args = fr->retaddr = NULL;
	return fr;
}

/*
 * The innermost open frame of @kind with @key (and function_graph @depth
 * unless -1), searching down at most the whole stack; -1 if none.
 */
static int find_frame(struct stack *s, int kind, uint64_t key, int fg_depth)
{
	for (int i = s->n - 1; i >= 0; i--)
		if (s->f[i].kind == kind && s->f[i].key == key &&
		    (fg_depth < 0 || s->f[i].fg_depth == fg_depth))
			return i;
	return -1;
}

/* Close the frames above @i as not exited, then @i itself at @t_exit. */
static int close_to(struct ftree *ft, struct stack *s, int i, int64_t t_exit, int32_t tid)
{
	while (s->n - 1 > i)
		if (pop(ft, s, DARC_NULL, 0, tid))
			return -1;
	return pop(ft, s, t_exit, 0, tid);
}

/*
 * A function_graph frame's depth and interrupt level from event @e, with the
 * level's hardirq or softirq flag (fg_entry() adds an NMI's; the frame a lone
 * exit makes has none, as before this was shared).
 */
static void graph_frame(struct frame *fr, const struct analysis_event *e, int level)
{
	fr->fg_depth = e->fg.depth;
	fr->level = level;
	if (level == LV_HARD)
		fr->flags |= CALL_HARDIRQ;
	else if (level == LV_SOFT)
		fr->flags |= CALL_SOFTIRQ;
}

static int fg_entry(struct ftree *ft, struct stack *s, const struct analysis_event *e, int level,
		    int64_t interrupted)
{
	struct frame *fr;

	while (s->n && top(s)->kind == FR_FG && top(s)->fg_depth >= e->fg.depth)
		if (detach(ft, s))
			return -1;

	fr = new_frame(ft, s, FR_FG, e->fg.func_id, e->fg.addr, e->t, e->cpu);
	if (!fr)
		return -1;
	graph_frame(fr, e, level);
	if (level == LV_NMI)
		fr->flags |= CALL_NMI;
	fr->interrupted_id = interrupted;
	fr->args = e->fg.args ? strdup(e->fg.args) : NULL;
	fr->retaddr = e->fg.retaddr ? strdup(e->fg.retaddr) : NULL;
	if ((e->fg.args && !fr->args) || (e->fg.retaddr && !fr->retaddr)) {
		frame_release(fr);
		return fail(ft, "out of memory");
	}
	push(ft, s);
	return 0;
}

static int fg_exit(struct ftree *ft, struct stack *s, const struct analysis_event *e, int32_t tid,
		   int level)
{
	int i = find_frame(s, FR_FG, e->fg.addr, e->fg.depth);
	int64_t t_exit = e->fg.rettime != DARC_NULL ? e->fg.rettime : e->t;
	uint32_t flags = 0;
	int64_t ct;
	struct frame *fr;

	if (i != s->n - 1 || i < 0) {
		int k = find_detached(s, e->fg.addr, e->fg.depth);
		if (k >= 0)
			return finish_detached(ft, s, k, e, tid);
	}

	if (i >= 0) {
		/* function_graph's own times: the duration trace-cmd prints */
		struct frame *f = &s->f[i];
		ct = fg_calltime(ft, e, f->t_entry, &f->flags, &t_exit);
		if (ct != DARC_NULL && i == s->n - 1 && f->t_entry != DARC_NULL && ct < f->t_entry) {
			for (int k = 0; k < f->npre && i > 0; k++) {
				int64_t a = f->pre[k].a > ct ? f->pre[k].a : ct;
				int64_t b = f->pre[k].b < f->t_entry ? f->pre[k].b : f->t_entry;
				if (b > a) {
					s->f[i - 1].cat[f->pre[k].cat] -= b - a;
					f->cat[f->pre[k].cat] += b - a;
				}
			}
			f->t_entry = ct;
		} else if (ct != DARC_NULL && i == s->n - 1) {
			f->t_entry = ct;
		}
		f->retval = e->fg.retval;
		return close_to(ft, s, i, t_exit, tid);
	}
	ct = fg_calltime(ft, e, DARC_NULL, &flags, &t_exit);
	fr = new_frame(ft, s, FR_FG, e->fg.func_id, e->fg.addr, ct, e->cpu);
	if (!fr)
		return -1;
	fr->flags |= flags;
	fr->retval = e->fg.retval;
	graph_frame(fr, e, level);
	return lone_exit(ft, s, t_exit, tid);
}

/*
 * A probe event in task context: the entry of a pair opens a call, its return
 * closes it; sets @h's role and call.
 */
static int probe_event(struct ftree *ft, struct task *tk, const struct analysis_event *e,
		       struct probe_rec *h)
{
	struct stack *s = &tk->st;
	int i = e->kind == EVENT_PROBE_RETURN ? find_frame(s, FR_PROBE, e->probe.addr, -1) : -1;

	/*
	 * An entry without a return probe is a point. Inside function_graph
	 * calls, function_graph tells more than a probe pair, and the probe's own
	 * handlers would break the nesting: the pair is then points too.
	 */
	if (e->kind == EVENT_PROBE_ENTRY && (!e->probe.paired || s->nfg))
		return 0;
	if (e->kind == EVENT_PROBE_RETURN && s->nfg && i < 0)
		return 0;
	if (e->kind == EVENT_PROBE_ENTRY) {
		if (!new_frame(ft, s, FR_PROBE, e->probe.func_id, e->probe.addr, e->t, e->cpu))
			return -1;
		*h = (struct probe_rec){.role = PROBE_ENTRY, .call_id = push(ft, s)->id};
		return 0;
	}
	h->role = PROBE_RETURN;
	if (i >= 0) {
		h->call_id = s->f[i].id;
		return close_to(ft, s, i, e->t, tk->tid);
	}
	if (!new_frame(ft, s, FR_PROBE, e->probe.func_id, e->probe.addr, DARC_NULL, e->cpu))
		return -1;
	h->call_id = ft->next_call + 1; /* the id lone_exit() gives it */
	return lone_exit(ft, s, e->t, tk->tid);
}

/* Every probe event becomes a probe_hit row; pairs also open and close calls. */
static int probe_hit(struct ftree *ft, struct cpu *c, struct task *tk, int lv,
		     const struct analysis_event *e)
{
	struct probe_rec h = {.role = PROBE_POINT};
	const struct frame *in = lv > LV_TASK ? top(&c->irq) : tk ? top(&tk->st) : NULL;

	h.call_id = in ? in->id : DARC_NULL;
	if (tk && lv == LV_TASK && probe_event(ft, tk, e, &h))
		return -1;
	h.id = ++ft->next_probe;
	h.t = e->t;
	h.cpu = e->cpu;
	h.task_id = e->pid;
	h.func_id = e->probe.func_id;
	h.event = e->probe.event;
	h.ctx = ctx_of_level(lv);
	h.args = e->probe.args;
	ft->stats.probe_hits++;
	return ft->sink.probe(ft->sink.ctx, &h) ? fail(ft, "cannot write a probe hit") : 0;
}

/*
 * A system call's exit numbered -1 (raw_syscalls: the number the task's
 * registers hold at the exit; syscalls:sys_exit_* is not written then). The
 * kernel clears it where the call must not be restarted: rt_sigreturn,
 * which restores a signal's interrupted state; the uretprobe and uprobe
 * calls of x86-64's probe trampolines (Linux 6.11 on), which return to the
 * probed code; a call a ptracer skipped (entered as -1 already). But for
 * the traps, the open system call of the task ends here. A trap's exit is
 * the probes' own; one with nothing open has neither entry nor name, and
 * is left out.
 */
static int cleared_exit(struct ftree *ft, struct task *tk, int i, const struct analysis_event *e)
{
	if (tk->in_trap || i < 0) {
		tk->in_trap = 0;
		return 0;
	}
	tk->closed_sys_nr = (int64_t)tk->st.f[i].key;
	tk->closed_sys_raw = e->sys.raw;
	return close_to(ft, &tk->st, i, e->t, tk->tid);
}

static int sys_event(struct ftree *ft, struct task *tk, const struct analysis_event *e)
{
	struct stack *s = &tk->st;
	struct frame *fr;
	int i = -1;

	/*
	 * A uretprobe (uprobe) trampoline makes its system call where the probed
	 * function returns (is entered): the return (entry) probe fires in it,
	 * and it returns to the program's code, not to a caller of it. It is
	 * the probes' mechanism, not a call of the program.
	 */
	if (e->sys.trap) {
		tk->in_trap = e->kind == EVENT_SYS_ENTER;
		return 0;
	}
	/* a task is in at most one system call: look for it */
	for (int k = s->n - 1; k >= 0; k--)
		if (s->f[k].kind == FR_SYS) {
			i = k;
			break;
		}
	if (e->kind == EVENT_SYS_EXIT && e->sys.nr < 0)
		return cleared_exit(ft, tk, i, e);
	tk->in_trap = 0;
	/* likewise a system call traced inside function_graph calls (-g do_syscall_64) */
	if (s->nfg && (e->kind == EVENT_SYS_ENTER || i < 0))
		return 0;
	if (e->kind == EVENT_SYS_ENTER) {
		if (i >= 0 && s->f[i].key == (uint64_t)e->sys.nr && s->f[i].sys_raw != e->sys.raw)
			return 0; /* the same entry seen by raw_syscalls and syscalls:* */
		if (i >= 0 && close_to(ft, s, i, DARC_NULL, tk->tid)) /* its exit was lost */
			return -1;
		if (!(fr = new_frame(ft, s, FR_SYS, e->sys.func_id, e->sys.nr, e->t, e->cpu)))
			return -1;
		fr->sys_raw = e->sys.raw;
		push(ft, s);
		tk->closed_sys_nr = -1;
		return 0;
	}
	if (i >= 0 && s->f[i].key == (uint64_t)e->sys.nr) {
		tk->closed_sys_nr = e->sys.nr;
		tk->closed_sys_raw = e->sys.raw;
		s->f[i].retval = e->sys.ret;
		return close_to(ft, s, i, e->t, tk->tid);
	}
	if (i < 0 && tk->closed_sys_nr == e->sys.nr && tk->closed_sys_raw != e->sys.raw) {
		tk->closed_sys_nr = -1;
		return 0; /* the second sighting of an exit already taken */
	}
	if (!(fr = new_frame(ft, s, FR_SYS, e->sys.func_id, e->sys.nr, DARC_NULL, e->cpu)))
		return -1;
	fr->sys_raw = e->sys.raw;
	fr->retval = e->sys.ret;
	return lone_exit(ft, s, e->t, tk->tid);
}

/* Events were lost on @cpu: nothing open there may be paired across the gap. */
static int gap(struct ftree *ft, int32_t cpu)
{
	struct cpu *c = cpu_get(ft, cpu);

	ft->stats.gaps++;
	if (!c)
		return fail(ft, "out of memory");
	for (int k = 0; k < ft->ntask_slots; k++) {
		struct task *tk = ft->tasks[k];
		if (!tk || tk->last_cpu != cpu)
			continue;
		if (unwind(ft, &tk->st, CALL_GAP, tk->tid))
			return -1;
		tk->closed_sys_nr = -1;
		tk->in_trap = 0;
	}
	if (unwind(ft, &c->irq, CALL_GAP, (int32_t)c->rec.task_id))
		return -1;
	/* an open episode's end is unknown: it is dropped, as its times are */
	c->episode = 0;
	c->hard = c->soft = c->nmi = 0;
	c->held = 0;
	c->hard_name[0] = c->soft_name[0] = 0;
	c->flag_level = LV_TASK;
	c->level = LV_TASK;
	return 0;
}

/*
 * Should an irq episode named @have (or not yet: "") be named after function
 * @fn, the next one traced in it? The generic entry and exit steps
 * (irq_enter_rcu, irq_exit_rcu) give way to the handler that follows
 * (__sysvec_apic_timer_interrupt): that names the interrupt.
 */
static bool name_by_fg(const char *have, const char *fn)
{
	bool generic_fn = !strncmp(fn, "irq_enter", 9) || !strncmp(fn, "irq_exit", 8);

	if (!have[0])
		return true;
	return !generic_fn && (!strncmp(have, "irq_enter", 9) || !strncmp(have, "irq_exit", 8));
}

/*
 * What the CPU was in has ended with its last event, before @e: its level
 * was only held after a closer (step 3 of ftree_feed) and @e is no irq
 * function continuing it, or it was shown by flags alone and @e is an
 * interrupt tracepoint opening a context while none it opened is open (a
 * softirq run on irq exit, __do_softirq from irq_exit; the next interrupt
 * on an idle CPU). Then that is an interval of its own, not one episode
 * with what follows. With irq functions open (function_graph) the episode
 * stays one: its calls are the parents; an irq that hits a softirq is part
 * of the softirq's.
 */
static int end_held(struct ftree *ft, struct cpu *c, const struct analysis_event *e)
{
	bool opener = e->kind == EVENT_IRQ_ENTRY || e->kind == EVENT_VECTOR_ENTRY ||
		      e->kind == EVENT_SOFTIRQ_ENTRY;
	bool fg = e->kind == EVENT_FG_ENTRY || e->kind == EVENT_FG_EXIT;
	bool held = c->held;

	c->held = 0;
	if (c->level == LV_TASK || c->hard || c->nmi || c->irq.n)
		return 0;
	if (c->soft && e->kind != EVENT_SOFTIRQ_ENTRY)
		return 0;
	if (!opener && !(held && !fg))
		return 0;
	c->soft = 0; /* softirqs do not nest: a lost exit */
	c->flag_level = LV_TASK;
	if (held && e->kind == EVENT_SOFTIRQ_ENTRY) {
		/* on irq exit: the way from the handler to the softirq is still
		   interrupt time, though the handler's interval ends with it */
		c->end_last = 1;
		return set_level(ft, c, e->cpu, LV_TASK, e->t, e->pid, NULL, DARC_NULL);
	}
	return set_level(ft, c, e->cpu, LV_TASK, c->last_irq_t, e->pid, NULL, DARC_NULL);
}

/* What the steps of ftree_feed learn of one event and pass on. */
struct feed_step {
	int fl;		/* the level its flags show */
	int opener;	/* LV_HARD or LV_SOFT: an interrupt tracepoint opening that */
	int closer;	/* it closes an interrupt context */
	int irq_fg;	/* a function_graph event in interrupt context */
	int64_t t_close; /* when what it closes ended */
};

/* Step 1 of ftree_feed: the counters of the contexts that @e opens. */
static void count_opener(struct cpu *c, const struct analysis_event *e, struct feed_step *s)
{
	switch (e->kind) {
	case EVENT_IRQ_ENTRY:
	case EVENT_VECTOR_ENTRY:
		c->hard++;
		s->opener = LV_HARD;
		snprintf(c->hard_name, sizeof(c->hard_name), "%s", e->irq.name ? e->irq.name : "");
		break;
	case EVENT_SOFTIRQ_ENTRY:
		c->soft++;
		c->soft_hflag = level_of_flags(e->flags) == LV_HARD;
		s->opener = LV_SOFT;
		snprintf(c->soft_name, sizeof(c->soft_name), "%s", e->irq.name ? e->irq.name : "");
		break;
	case EVENT_FG_ENTRY:
		/* inside an interrupt's calls, even where the flags show no irq
		   (handle_softirqs is entered before it raises the softirq count) */
		s->irq_fg = s->fl > LV_TASK || e->fg.irq_entry || c->irq.n > 0;
		break;
	case EVENT_FG_EXIT:
		s->irq_fg = find_frame(&c->irq, FR_FG, e->fg.addr, e->fg.depth) >= 0 ||
			    find_detached(&c->irq, e->fg.addr, e->fg.depth) >= 0;
		if (!s->irq_fg && (s->fl > LV_TASK || e->fg.irq_entry))
			s->irq_fg = 1;
		break;
	default:
		break;
	}
}

/* Step 1 of ftree_feed: an interrupt entry point (function_graph) raises
   the level before its call opens. */
static int irq_fg_entry(struct ftree *ft, struct cpu *c, struct task *tk,
			const struct analysis_event *e, int fl)
{
	int level = fl > LV_TASK ? fl : LV_HARD;
	struct task *it = c->level == LV_TASK ? tk : NULL;
	int64_t interrupted = DARC_NULL;
	int lv;

	if (c->level == LV_TASK && it && top(&it->st))
		interrupted = top(&it->st)->id;
	else if (c->level > LV_TASK && c->episode)
		interrupted = c->rec.call_id;
	lv = cpu_level(c);
	if (level > lv)
		lv = level;
	if (set_level(ft, c, e->cpu, lv, e->t, e->pid, NULL, DARC_NULL))
		return -1;
	if (fg_entry(ft, &c->irq, e, level, interrupted))
		return -1;
	if (c->episode && e->fg.name && name_by_fg(c->name, e->fg.name))
		snprintf(c->name, sizeof(c->name), "%s", e->fg.name);
	return 0;
}

/* Step 1 of ftree_feed: the CPU's level at @e, from its flags and openers. */
static int enter_level(struct ftree *ft, struct cpu *c, struct task *tk,
		       const struct analysis_event *e, const struct feed_step *s)
{
	int lv;

	if (s->fl < c->flag_level && c->level > LV_TASK) {
		/* the flags fell: the flag-only context ended with the last irq event */
		c->flag_level = s->fl;
		lv = cpu_level(c);
		if (lv < c->level &&
		    set_level(ft, c, e->cpu, lv, c->last_irq_t, e->pid, NULL, DARC_NULL))
			return -1;
	}
	c->flag_level = s->fl;
	if (e->kind == EVENT_FG_ENTRY && s->irq_fg) {
		if (irq_fg_entry(ft, c, tk, e, s->fl))
			return -1;
	} else {
		lv = cpu_level(c);
		if (lv != c->level && set_level(ft, c, e->cpu, lv, e->t, e->pid,
						s->opener ? e->irq.name : NULL,
						s->opener ? e->irq.irq : DARC_NULL))
			return -1;
		if (s->opener && c->episode && !c->name[0] && e->irq.name) {
			snprintf(c->name, sizeof(c->name), "%s", e->irq.name);
			c->rec.irq = e->irq.irq;
		}
	}
	if (s->fl > LV_TASK || s->irq_fg)
		c->last_irq_t = e->t;
	return 0;
}

/* Step 2 of ftree_feed: the event itself. */
static int take_event(struct ftree *ft, struct cpu *c, struct task *tk,
		      const struct analysis_event *e, struct feed_step *s)
{
	s->t_close = e->t;
	switch (e->kind) {
	case EVENT_FG_ENTRY:
		if (s->irq_fg)
			break;
		if (tk && fg_entry(ft, &tk->st, e, LV_TASK, DARC_NULL))
			return -1;
		break;
	case EVENT_FG_EXIT:
		if (e->fg.rettime != DARC_NULL)
			s->t_close = e->fg.rettime;
		if (s->irq_fg) {
			if (fg_exit(ft, &c->irq, e, (int32_t)c->rec.task_id,
				    s->fl > LV_TASK ? s->fl : LV_HARD))
				return -1;
			s->closer = 1;
		} else if (tk && fg_exit(ft, &tk->st, e, tk->tid, LV_TASK)) {
			return -1;
		}
		break;
	case EVENT_PROBE_ENTRY:
	case EVENT_PROBE_RETURN:
		if (probe_hit(ft, c, tk, s->fl, e))
			return -1;
		break;
	case EVENT_SYS_ENTER:
	case EVENT_SYS_EXIT:
		if (tk && sys_event(ft, tk, e))
			return -1;
		break;
	case EVENT_SWITCH:
		if (sched_out(ft, e) || sched_in(ft, e))
			return -1;
		break;
	case EVENT_WAKING:
	case EVENT_WAKEUP:
		if (wakeup(ft, e))
			return -1;
		break;
	case EVENT_IRQ_EXIT:
	case EVENT_VECTOR_EXIT:
		if (c->hard > 0)
			c->hard--;
		c->hard_name[0] = 0;
		s->closer = 1;
		break;
	case EVENT_SOFTIRQ_EXIT:
		if (c->soft > 0)
			c->soft--;
		c->soft_name[0] = 0;
		s->closer = 1;
		break;
	default:
		break;
	}
	return 0;
}

int ftree_feed(struct ftree *ft, const struct analysis_event *e)
{
	struct cpu *c = cpu_get(ft, e->cpu);
	struct task *tk = NULL;
	struct feed_step s = { 0 };

	if (!c)
		return fail(ft, "bad cpu number");
	if (ft->t_first == DARC_NULL)
		ft->t_first = e->t;
	if (e->missed && (gap(ft, e->cpu) || lost_switches(ft, e->cpu)))
		return -1;
	if (e->pid) {
		tk = task_get(ft, e->pid);
		if (!tk)
			return fail(ft, "out of memory");
	}
	if (unseen_switches(ft, c, tk, e))
		return -1;

	/* a mark changes no context: a softirq raised in a handler, or the
	   stack trace after an event, must not open or stretch an interval */
	if (e->kind == EVENT_MARK)
		return tk && release(ft, tk) ? -1 : 0;

	/* 1. context at the event: flags, and openers that start before it */
	s.fl = event_level(c, e);
	if (end_held(ft, c, e))
		return -1;
	count_opener(c, e, &s);
	if (enter_level(ft, c, tk, e, &s))
		return -1;

	/* 2. the event itself */
	if (take_event(ft, c, tk, e, &s))
		return -1;
	if (tk && s.fl == LV_TASK && !s.irq_fg && e->kind != EVENT_SWITCH)
		tk->last_cpu = e->cpu;

	/*
	 * 3. A closer ends its context at its own time, but the level is held
	 * until the next event on the CPU shows what follows: another interrupt
	 * function right away (irq_enter_rcu, then __sysvec_*) continues the
	 * same episode; anything else ends it at t_close (step 1 above).
	 */
	if (s.closer) {
		c->flag_level = c->level;
		c->last_irq_t = s.t_close;
		c->held = !c->hard && !c->soft && !c->nmi && !c->irq.n;
	}
	/* 4. the task's next event has come: its held off-CPU interval is final */
	if (tk && !(e->kind == EVENT_SWITCH && e->sw.next_pid == tk->tid) && release(ft, tk))
		return -1;
	return 0;
}

/* Node @nd's quantiles into its row: DARC_NULL without a complete call. */
static void node_quant(struct ftree_node *nd, struct quant *q)
{
	struct fnode_rec *r = &nd->rec;

	if (r->calls)
		hist_quant_exact(nd->incl_v, r->calls, q);
	r->p50_ns = r->calls ? q->p[QUANT_P50] : DARC_NULL;
	r->p90_ns = r->calls ? q->p[QUANT_P90] : DARC_NULL;
	r->p99_ns = r->calls ? q->p[QUANT_P99] : DARC_NULL;
	r->p999_ns = r->calls ? q->p[QUANT_P999] : DARC_NULL;
}

/*
 * Function @f's quantiles: those of its one fnode with complete calls, or
 * of the calls of all its fnodes (@first, then each node's next_same),
 * gathered in @buf. 0 or -1 (memory).
 */
static int func_quant(struct ftree *ft, int64_t f, const int *first, const int *next_same,
		      int64_t **buf, int64_t *cap)
{
	const struct fnode_rec *one = NULL;
	int64_t n = 0;
	int with = 0;

	for (int i = first[f]; i >= 0; i = next_same[i]) {
		n += ft->nodes[i].rec.calls;
		with += ft->nodes[i].rec.calls > 0;
		one = ft->nodes[i].rec.calls ? &ft->nodes[i].rec : one;
	}
	ft->has_fq[f] = n > 0;
	if (with == 1) /* most functions are called from one place */
		ft->fq[f] = (struct quant){{one->p50_ns, one->p90_ns, one->p99_ns, one->p999_ns},
					   one->max_ns};
	if (with <= 1)
		return 0;
	if (n > *cap) {
		int64_t *p = realloc(*buf, n * sizeof(**buf));
		if (!p)
			return -1;
		*buf = p;
		*cap = n;
	}
	n = 0;
	for (int i = first[f]; i >= 0; i = next_same[i]) {
		memcpy(*buf + n, ft->nodes[i].incl_v, ft->nodes[i].rec.calls * sizeof(**buf));
		n += ft->nodes[i].rec.calls;
	}
	hist_quant_exact(*buf, n, &ft->fq[f]);
	return 0;
}

/*
 * The exact quantiles of every fnode and function, from the calls' incl_ns
 * kept in the nodes, which are freed (a function's calls are its fnodes').
 */
static int quantiles(struct ftree *ft)
{
	int *first = malloc((ft->nfh + 1) * sizeof(*first)), *next_same = NULL, rc = -1;
	int64_t *buf = NULL, cap = 0;
	struct quant q;

	ft->fq = calloc(ft->nfh + 1, sizeof(*ft->fq));
	ft->has_fq = calloc(ft->nfh + 1, sizeof(*ft->has_fq));
	next_same = malloc((ft->nnodes + 1) * sizeof(*next_same));
	if (!first || !next_same || !ft->fq || !ft->has_fq)
		goto out;
	for (int64_t f = 0; f < ft->nfh; f++)
		first[f] = -1;
	for (int i = ft->nnodes - 1; i >= 0; i--) {
		int64_t f = ft->nodes[i].rec.func_id;
		next_same[i] = first[f];
		first[f] = i;
	}
	for (int i = 0; i < ft->nnodes; i++)
		node_quant(&ft->nodes[i], &q);
	for (int64_t f = 0; f < ft->nfh; f++)
		if (first[f] >= 0 && func_quant(ft, f, first, next_same, &buf, &cap))
			goto out;
	rc = 0;
out:
	for (int i = 0; i < ft->nnodes; i++) {
		free(ft->nodes[i].incl_v);
		ft->nodes[i].incl_v = NULL;
	}
	free(first);
	free(next_same);
	free(buf);
	return rc ? fail(ft, "out of memory") : 0;
}

int ftree_finish(struct ftree *ft)
{
	for (int k = 0; k < ft->ncpus; k++) {
		struct cpu *c = &ft->cpus[k];
		/* only held (step 3 of ftree_feed): it ended with its last event */
		bool held = !c->hard && !c->soft && !c->nmi && !c->irq.n;

		if (unwind(ft, &c->irq, 0, (int32_t)c->rec.task_id))
			return -1;
		if (c->episode) {
			c->episode = 0;
			c->rec.id = ++ft->next_irq;
			c->rec.t_end = held ? c->last_irq_t : DARC_NULL;
			ft->stats.irq_intervals++;
			if (ft->sink.irq(ft->sink.ctx, &c->rec))
				return fail(ft, "cannot write an irq interval");
		}
	}
	for (int k = 0; k < ft->ntask_slots; k++) {
		struct task *tk = ft->tasks[k];
		if (!tk)
			continue;
		if (release(ft, tk))
			return -1;
		if (tk->state == TS_OFF) {
			tk->state = TS_RUNNING;
			if (emit_sched(ft, tk))
				return -1;
		}
		if (tk->unseen && put_gap(ft, tk, tk->unseen_cpu, tk->unseen_from, DARC_NULL))
			return -1;
		if (unwind(ft, &tk->st, 0, tk->tid))
			return -1;
	}
	if (flush_counts(ft))
		return -1;
	for (int i = 0; i < ft->nnodes; i++) {
		struct ftree_node *nd = &ft->nodes[i];
		struct hist *fh = func_hist(ft, nd->rec.func_id);

		if (!fh || hist_merge(&fh[METRIC_INCL], &nd->incl) ||
		    hist_merge(&fh[METRIC_EXCL], &nd->excl))
			return fail(ft, "out of memory");
	}
	return quantiles(ft);
}

struct ftree *ftree_new(const struct ftree_sink *sink)
{
	struct ftree *ft = calloc(1, sizeof(*ft));

	if (ft) {
		ft->sink = *sink;
		ft->t_first = DARC_NULL;
	}
	return ft;
}

void ftree_excl_resolution(struct ftree *ft, int max)
{
	ft->excl_div = max == 1 ? HIST_FINE : max == 2 ? HIST_FINE / 2 : max <= 4 ? HIST_FINE / 12 : 1;
}

int ftree_nnodes(const struct ftree *ft)
{
	return ft->nnodes;
}

const struct ftree_node *ftree_node(const struct ftree *ft, int i)
{
	return i >= 0 && i < ft->nnodes ? &ft->nodes[i] : NULL;
}

const struct hist *ftree_func_hist(const struct ftree *ft, int64_t func_id, int metric)
{
	if (func_id < 0 || func_id >= ft->nfh || !ft->fh[func_id][metric].total)
		return NULL;
	return &ft->fh[func_id][metric];
}

const struct quant *ftree_func_quant(const struct ftree *ft, int64_t func_id)
{
	if (!ft->has_fq || func_id < 0 || func_id >= ft->nfh || !ft->has_fq[func_id])
		return NULL;
	return &ft->fq[func_id];
}

int64_t ftree_max_func(const struct ftree *ft)
{
	return ft->nfh;
}

int ftree_each_task(const struct ftree *ft, int (*fn)(void *ctx, int32_t tid), void *ctx)
{
	for (int k = 0; k < ft->ntask_slots; k++) {
		int rc = ft->tasks[k] ? fn(ctx, ft->tasks[k]->tid) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int64_t ftree_current_call(struct ftree *ft, int32_t cpu, int32_t pid, uint8_t flags)
{
	struct cpu *c = cpu_get(ft, cpu);
	struct task *tk = pid ? task_get(ft, pid) : NULL;
	const struct frame *f = NULL;

	if (c && level_of_flags(flags) > LV_TASK)
		f = top(&c->irq);
	else if (tk)
		f = top(&tk->st);
	return f ? f->id : DARC_NULL;
}

const struct ftree_stats *ftree_stats(const struct ftree *ft)
{
	return &ft->stats;
}

/* Free a stack's frames (and what the frames not yet written own). */
static void stack_free(struct stack *s)
{
	for (int i = 0; i < s->n; i++)
		frame_release(&s->f[i]);
	for (int i = 0; i < s->ndet; i++)
		frame_release(&s->det[i]);
	free(s->f);
	free(s->det);
}

void ftree_free(struct ftree *ft)
{
	if (!ft)
		return;
	for (int k = 0; k < ft->ntask_slots; k++)
		if (ft->tasks[k]) {
			stack_free(&ft->tasks[k]->st);
			free(ft->tasks[k]);
		}
	free(ft->tasks);
	for (int k = 0; k < ft->ncpus; k++)
		stack_free(&ft->cpus[k].irq);
	free(ft->cpus);
	for (int i = 0; i < ft->nnodes; i++) {
		hist_release(&ft->nodes[i].incl);
		hist_release(&ft->nodes[i].excl);
		free(ft->nodes[i].incl_v);
	}
	free(ft->fq);
	free(ft->has_fq);
	free(ft->nodes);
	free(ft->nmap);
	free(ft->pend);
	free(ft->pend_sorted);
	free(ft->pend_at);
	for (int64_t f = 0; f < ft->nfh; f++) {
		hist_release(&ft->fh[f][0]);
		hist_release(&ft->fh[f][1]);
	}
	free(ft->fh);
	free(ft);
}
