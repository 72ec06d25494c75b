// SPDX-License-Identifier: MIT
/*
 * The ftrace text reader: what `cat trace`, `trace_pipe` and `trace-cmd
 * report` (with or without -R, -l, -t) print for the function_graph,
 * function and nop tracers (line grammar: text-line.c).
 *
 * The whole text is read at open. Each line becomes the binary records the
 * kernel would have written, in the layout of the 6.1 formats registered
 * here (text-formats.h, text-block.c, text-probe.c): funcgraph_entry and
 * funcgraph_exit (a leaf line "func();" gives both), and from their printed
 * fields sched_switch, sched_wakeup(_new), sched_waking, irq_handler_entry
 * and _exit, softirq_entry and _exit, irq_vectors' X_entry and X_exit,
 * raw_syscalls' sys_enter and sys_exit, the block events bios are followed
 * through, and kprobes and kretprobes; any
 * other event is kept by name with its printed fields as one string
 * ("text" system); trace_printk comments become ftrace print events.
 * The function tracer's "func <-parent" lines become ftrace function
 * events, a stack trace ("<stack trace>" and its " => frame" lines) one
 * kernel_stack (or user_stack) event holding its frames, and the syscalls
 * events' "sys_openat(dfd: ...)" and "sys_openat -> 0x3" their
 * sys_enter_openat and sys_exit_openat, numbered TEXT_SYSCALL_NR on where
 * the text does not print the number. `trace-cmd report -R` prints raw
 * fields ("prev_state=2", no "==>"): an event whose fields its own reader
 * does not take is read raw into its format (text-raw.c) before it is an
 * error. Block requests printed with their I/O priority (6.10 on) get the
 * layout that has it (text-block.c).
 * Function names get made-up addresses, registered with libtraceevent, so
 * they resolve as kallsyms would; a kprobe named after its function takes
 * that function's address.
 *
 * Options of current kernels. A text that prints return values
 * (funcgraph-retval) gets the exit format with retval, one that prints
 * arguments (funcgraph-args) the entry format with the saved registers,
 * with the values printed (the names and how they were printed are kept per
 * function, for fmt_reader_func_params()), and an entry that says where it
 * returns to (funcgraph-retaddr) becomes an fgraph_retaddr_entry, its
 * return address the caller's second made-up address (TEXT_CALLER_BASE,
 * with room for any offset) plus the printed offset.
 *
 * Times. Where the text prints a time (funcgraph-abstime, trace-cmd report)
 * it is used, made monotonic per CPU (a printed time is rounded to the us
 * unless trace-cmd report -t). A call's calltime is its entry's time (or
 * earlier, see graph_exit()) and its rettime calltime plus its printed
 * duration, so every call's inclusive time is its printed duration (to the
 * ns below 10 ms). Where no time is printed (the default `cat trace`), each
 * CPU gets a clock of its own that starts at the same origin and advances by
 * the durations of leaf calls, an exit being at its entry time plus its
 * duration: the inclusive times are still the printed durations, but gaps
 * between calls, and so blocked, preempted and irq times, and the order of
 * events across CPUs are unknown (info.lacks says "absolute times").
 *
 * Tasks. Without the task column (funcgraph-proc) a CPU's task is known
 * from the context-switch markers " 1)  a-12 => b-34 ": the lines before a
 * CPU's first marker belong to the task it switches away from. A CPU that
 * never switches gets the made-up pid TEXT_PID_UNKNOWN + cpu.
 *
 * Irq context. Without the latency flags (latency-format, trace-cmd report
 * -l) the hardirq flag is inferred from the irq entry functions and the
 * "==========>" markers (infer_irq()), as the analysis needs it to put an
 * interrupt's calls on the CPU rather than in the interrupted task.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "events.h"
#include "fmt.h"
#include "grow.h"
#include "text-block.h"
#include "text-formats.h"
#include "text-line.h"
#include "text-probe.h"
#include "text-raw.h"

#define TEXT_FUNC_BASE 0xfffff00000000000ULL /* made-up address of function 0: no
						     kernel code lives there */
#define TEXT_CALLER_BASE 0xfffff80000000000ULL /* made-up address of function i as a
						       caller: + (i << TEXT_CALLER_SHIFT) */
#define TEXT_CALLER_SHIFT 24			     /* 16 MiB: more than any function */
#define TEXT_PID_UNKNOWN 0x40000000	     /* above any pid_max */
#define TEXT_MAX_CPUS 4096
#define TEXT_SYSCALL_NR 3072 /* made-up system call numbers: above any real one, below
				the 4096 the analysis learns names for */
#define PROBE_BYTES 65536
#define PROBE_LINES 8
#define PROBE_LINE_MAX 4096 /* bytes the probe looks at for trace-cmd's first event */

/* One synthesised event. */
struct tev {
	uint64_t ts;
	uint64_t off;	 /* of its record in the arena */
	uint64_t missed; /* lost events before it on its CPU */
	uint32_t seq;	 /* order in the text */
	uint16_t size;
	uint16_t cpu;
};

/* An open call of a task, for its exit to find. */
struct tframe {
	int depth;
	uint32_t func;
	uint64_t t;
};

/* A task: its open calls, and the best name the text gives it. */
struct tstack {
	int32_t pid;
	int n, cap;
	struct tframe *f;
	char comm[16];
	int comm_rank; /* 0 none, 1 a task column (maybe cut), 2 an event's field */
};

struct tcpu {
	bool seen;
	int32_t pid;	    /* the task on it now, -1 unknown */
	int32_t first_prev; /* the task its first switch marker leaves, -1 none */
	uint64_t now;	    /* its clock */
	uint64_t pending;   /* lost events not yet given to an event */
	int irq_depth;	    /* without printed flags: depth of the irq entry
			       function being run (hardirq context), -1 none */
	bool irq_mark;	    /* a "==========>" came: the next call is an irq's */
	long leaf;	    /* with printed times: the exit event of its last leaf
			       call, until the next time shows where it returned
			       (leaf_return()), -1 none */
	long first_ev;	    /* its first event, -1 none yet */
};

/* A function: name (and module) and its made-up address TEXT_FUNC_BASE + 16 * index. */
struct tfunc {
	char *name;
	char *mod;
	bool caller;		   /* a call returns into it: give it a caller address */
	bool params_set;	   /* its arguments were printed (maybe as "()") */
	int nparams;
	struct fmt_param *params; /* their names and kinds */
};

enum dyn_kind { DYN_NAMED, DYN_VECTOR, DYN_PROBE, DYN_SYSCALL };

/* A dynamically numbered event (irq_vectors, a probe, or kept by name). */
struct tdyn {
	char *name;
	char *text;	       /* its format */
	int id;
	enum dyn_kind kind;
	struct tprobe *layout; /* DYN_PROBE: the fields of its first line */
	int nargs;	       /* DYN_SYSCALL: the arguments of its first line */
	int sys_nr;	       /* and its number where the text does not print it */
};

/* A probed address and the function it is taken for. */
struct tsite {
	uint64_t addr;
	uint32_t func;
};

struct text {
	/* records */
	uint8_t *arena;
	uint64_t arena_len, arena_cap;
	struct tev *ev;
	int nev, ev_cap, next;
	/* state while reading */
	struct tcpu *cpus;
	int ncpus_alloc;
	struct tstack *stacks;
	int nstacks, stacks_cap;
	uint32_t *stack_slots; /* hash of stacks by pid: index + 1, 0 empty */
	uint32_t nstack_slots;
	struct tfunc *funcs;
	int nfuncs, funcs_cap;
	uint32_t *func_slots; /* hash of funcs: index + 1, 0 empty */
	uint32_t nslots;
	struct tdyn *dyn;
	int ndyn, dyn_cap;
	struct tsite *sites;
	int nsites, sites_cap;
	bool abs_times;	      /* the text prints times */
	bool any_ret, any_args, any_retaddr; /* it prints return values, arguments,
						return addresses */
	bool fn_args;	      /* function tracer lines print arguments (func-args) */
	bool any_proc, any_lat, any_switch;
	bool block_ioprio;    /* block requests print their I/O priority (6.10 on) */
	bool any_caller;      /* functions are given caller addresses */
	long stack_ev;	      /* the stack trace event frames go to, -1 none */
	uint64_t stack_frames; /* frames read */
	int nsyscalls;	      /* system calls given made-up numbers */
	bool syscall_nrs;     /* some were */
	uint64_t base;	      /* where the CPU clocks start without printed times */
	uint64_t unknown_exits; /* exits whose function the text does not say */
	uint64_t irq_marks, annotations, early_frames;
	uint64_t overwritten; /* events the header says the buffer overwrote */
	int overwritten_cpu;  /* the CPU they are counted on, -1 none */
	int line;
	char lacks[1024];
	char skipped[300];
};

/* ---- the arena and events ----------------------------------------------- */

static int arena_room(struct text *x, uint64_t n)
{
	uint64_t cap = x->arena_cap ? x->arena_cap : 1 << 16;
	uint8_t *p;

	if (x->arena_len + n <= x->arena_cap)
		return 0;
	while (cap < x->arena_len + n)
		cap *= 2;
	p = realloc(x->arena, cap);
	if (!p)
		return -1;
	x->arena = p;
	x->arena_cap = cap;
	return 0;
}

/*
 * Start a record of @size bytes (zeroed) with its common fields; returns it,
 * or NULL when out of memory. The event is added at time @ts on @cpu.
 */
static uint8_t *new_record(struct text *x, int type, int cpu, int32_t pid, const struct tline *l,
			   uint64_t ts, uint32_t size)
{
	struct tcpu *c = &x->cpus[cpu];
	struct tev *e;
	uint8_t *rec;
	uint16_t t16 = (uint16_t)type;

	size = (size + 7) & ~7U;
	if (arena_room(x, size) || GROW(x->ev, x->nev, x->ev_cap, 1024))
		return NULL;
	rec = x->arena + x->arena_len;
	memset(rec, 0, size);
	memcpy(rec, &t16, 2);
	rec[2] = l->has_lat ? l->flags : 0;
	rec[3] = l->has_lat ? l->preempt : 0;
	memcpy(rec + 4, &pid, 4);
	e = &x->ev[x->nev];
	*e = (struct tev){ts, x->arena_len, c->pending, (uint32_t)x->nev, (uint16_t)size,
			  (uint16_t)cpu};
	c->pending = 0;
	if (c->first_ev < 0)
		c->first_ev = x->nev;
	x->nev++;
	x->arena_len += size;
	if (ts > c->now)
		c->now = ts;
	return rec;
}

static void put32(uint8_t *rec, int off, int32_t v)
{
	memcpy(rec + off, &v, 4);
}

static void put64(uint8_t *rec, int off, uint64_t v)
{
	memcpy(rec + off, &v, 8);
}

static void put_str(uint8_t *rec, int off, struct text_span s, int max)
{
	int n = s.n < max - 1 ? s.n : max - 1;

	if (n > 0)
		memcpy(rec + off, s.p, n);
}

/* A record whose last field is the __data_loc string @s at @loc, data at @data_off. */
static uint8_t *new_record_str(struct text *x, int type, int cpu, int32_t pid,
			       const struct tline *l, uint64_t ts, int loc, int data_off,
			       struct text_span s)
{
	int n = s.n > 4000 ? 4000 : s.n;
	uint8_t *rec = new_record(x, type, cpu, pid, l, ts, data_off + n + 1);
	uint32_t dl = (uint32_t)(n + 1) << 16 | (uint32_t)data_off;

	if (!rec)
		return NULL;
	memcpy(rec + loc, &dl, 4);
	if (n > 0)
		memcpy(rec + data_off, s.p, n);
	return rec;
}

/* ---- functions ------------------------------------------------------------ */

static uint32_t hash_name(struct text_span a, struct text_span b)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < a.n; i++)
		h = (h ^ (uint8_t)a.p[i]) * 16777619u;
	h = (h ^ '[') * 16777619u;
	for (int i = 0; i < b.n; i++)
		h = (h ^ (uint8_t)b.p[i]) * 16777619u;
	return h;
}

static bool same(const char *s, struct text_span t)
{
	if (!s || !*s)
		return t.n == 0;
	return (int)strlen(s) == t.n && !memcmp(s, t.p, t.n);
}

/*
 * An open-addressing index of @count items (value index + 1, 0 empty) in
 * @n slots, item i at hash(ctx, i); NULL when out of memory.
 */
static uint32_t *index_items(uint32_t n, int count, uint32_t (*hash)(const void *ctx, int i),
			     const void *ctx)
{
	uint32_t *t = calloc(n, sizeof(*t));

	for (int i = 0; t && i < count; i++) {
		uint32_t k = hash(ctx, i) & (n - 1);
		while (t[k])
			k = (k + 1) & (n - 1);
		t[k] = (uint32_t)i + 1;
	}
	return t;
}

static uint32_t func_hash(const void *ctx, int i)
{
	const struct tfunc *f = &((const struct text *)ctx)->funcs[i];

	return hash_name((struct text_span){f->name, (int)strlen(f->name)},
			 (struct text_span){f->mod, f->mod ? (int)strlen(f->mod) : 0});
}

static int rehash(struct text *x)
{
	uint32_t n = x->nslots ? x->nslots * 2 : 1024;
	uint32_t *s = index_items(n, x->nfuncs, func_hash, x);

	if (!s)
		return -1;
	free(x->func_slots);
	x->func_slots = s;
	x->nslots = n;
	return 0;
}

/* The index of function @name in module @mod (empty for the kernel), added if new; -1 on memory. */
static long func_index(struct text *x, struct text_span name, struct text_span mod)
{
	uint32_t k;
	struct tfunc *f;

	if (2 * (x->nfuncs + 1) > (int)x->nslots && rehash(x))
		return -1;
	for (k = hash_name(name, mod) & (x->nslots - 1); x->func_slots[k];
	     k = (k + 1) & (x->nslots - 1)) {
		f = &x->funcs[x->func_slots[k] - 1];
		if (same(f->name, name) && same(f->mod, mod))
			return x->func_slots[k] - 1;
	}
	if (GROW(x->funcs, x->nfuncs, x->funcs_cap, 256))
		return -1;
	f = &x->funcs[x->nfuncs];
	*f = (struct tfunc){.name = strndup(name.p, name.n)};
	f->mod = mod.n ? strndup(mod.p, mod.n) : NULL;
	if (!f->name || (mod.n && !f->mod)) {
		free(f->name);
		free(f->mod);
		return -1;
	}
	x->func_slots[k] = ++x->nfuncs;
	return x->nfuncs - 1;
}

static uint64_t func_addr(uint32_t i)
{
	return TEXT_FUNC_BASE + 16ULL * i;
}

/* Function @i as a caller: return addresses are this plus their offset. */
static uint64_t caller_addr(uint32_t i)
{
	return TEXT_CALLER_BASE + ((uint64_t)i << TEXT_CALLER_SHIFT);
}

/* Tell libtraceevent (and the module map) the functions, once all are known. */
static int register_funcs(struct fmt_reader *r, struct text *x, struct err_msg *err)
{
	/* libtraceevent finds an address inside a function only below the next
	   one: the last caller address needs an end after it */
	if ((x->any_retaddr || x->any_caller) &&
	    tep_register_function(r->tep, "_etext", caller_addr(x->nfuncs), NULL))
		return FAIL("out of memory");
	for (int i = 0; i < x->nfuncs; i++) {
		struct tfunc *f = &x->funcs[i];
		char line[600];

		if (tep_register_function(r->tep, f->name, func_addr(i), f->mod) ||
		    (f->caller && tep_register_function(r->tep, f->name, caller_addr(i), f->mod)))
			return FAIL("out of memory");
		if (!f->mod)
			continue;
		snprintf(line, sizeof(line), "%" PRIx64 " t %.256s\t[%.256s]\n", func_addr(i),
			 f->name, f->mod);
		if (kmod_parse(&r->kmods, line))
			return FAIL("out of memory");
	}
	return 0;
}

/* ---- tasks' open calls -------------------------------------------------- */

static uint32_t pid_hash(int32_t pid)
{
	return (uint32_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL) >> 32);
}

static uint32_t stack_hash(const void *ctx, int i)
{
	return pid_hash(((const struct text *)ctx)->stacks[i].pid);
}

/* Index the stacks by pid again, in a table twice as large. */
static int stacks_rehash(struct text *x)
{
	uint32_t n = x->nstack_slots ? 2 * x->nstack_slots : 256;
	uint32_t *t = index_items(n, x->nstacks, stack_hash, x);

	if (!t)
		return -1;
	free(x->stack_slots);
	x->stack_slots = t;
	x->nstack_slots = n;
	return 0;
}

/* Task @pid's stack (and name), made if new; NULL when out of memory. */
static struct tstack *stack_of(struct text *x, int32_t pid)
{
	uint32_t k;

	if (2 * (x->nstacks + 1) > (int)x->nstack_slots && stacks_rehash(x))
		return NULL;
	for (k = pid_hash(pid) & (x->nstack_slots - 1); x->stack_slots[k];
	     k = (k + 1) & (x->nstack_slots - 1))
		if (x->stacks[x->stack_slots[k] - 1].pid == pid)
			return &x->stacks[x->stack_slots[k] - 1];
	if (GROW(x->stacks, x->nstacks, x->stacks_cap, 64))
		return NULL;
	x->stacks[x->nstacks] = (struct tstack){.pid = pid};
	x->stack_slots[k] = ++x->nstacks;
	return &x->stacks[x->nstacks - 1];
}

/* ---- dynamic formats ------------------------------------------------------ */

/*
 * The format text of a new dynamic event; its length in @len. @how: a
 * probe's fields (struct tprobe), a system call's (struct tsys).
 */
static char *dyn_format(const char *name, int id, enum dyn_kind kind, const void *how, int *len)
{
	char *text = NULL;

	if (kind == DYN_PROBE)
		return tprobe_format(name, id, how, len);
	if (kind == DYN_SYSCALL) { /* sys_enter_X, sys_exit_X */
		const char *call = strchr(name + 4, '_') + 1;
		return tprobe_sys_format((struct text_span){call, (int)strlen(call)}, id, how, len);
	}
	*len = kind == DYN_VECTOR ? asprintf(&text, TF_VECTOR_FMT, name, id)
				  : asprintf(&text, TF_NAMED_FMT, name, id);
	return *len < 0 ? NULL : text;
}

/*
 * The event @name (of @kind; a probe's or system call's fields as in
 * @how), registering a format for it if it is new; NULL with @err filled
 * on failure.
 */
static struct tdyn *dyn_event(struct fmt_reader *r, struct text *x, struct text_span name,
			      enum dyn_kind kind, const void *how, struct err_msg *err)
{
	static const char *const sys[] = {"text", "irq_vectors", "kprobes", "syscalls"};
	const struct tprobe *layout = how;
	struct tdyn *d;
	int len;

	for (int i = 0; i < x->ndyn; i++)
		if (same(x->dyn[i].name, name))
			return &x->dyn[i];
	if (x->ndyn >= 60000 || name.n > 63)
		return FAIL("line %d: too many different events, or a name too long", x->line),
		       NULL;
	if (GROW(x->dyn, x->ndyn, x->dyn_cap, 32))
		return FAIL("out of memory"), NULL;
	d = &x->dyn[x->ndyn];
	*d = (struct tdyn){.id = TF_ID_DYNAMIC + x->ndyn, .kind = kind};
	d->name = strndup(name.p, name.n);
	if (kind == DYN_PROBE && (d->layout = malloc(sizeof(*layout))))
		*d->layout = *layout;
	if (kind == DYN_SYSCALL)
		d->nargs = ((const struct tsys *)how)->nargs;
	d->text = d->name ? dyn_format(d->name, d->id, kind, how, &len) : NULL;
	if (!d->text || (kind == DYN_PROBE && !d->layout)) {
		free(d->name);
		free(d->text);
		free(d->layout);
		return FAIL("out of memory"), NULL;
	}
	x->ndyn++;
	if (fmt_events_add_format(r, kind == DYN_PROBE && layout->eprobe ? "eprobes" : sys[kind],
				  d->text, len, err))
		return NULL;
	return d;
}

/*
 * The address a probe at @addr (event @name) is given: a kprobe named after
 * its function ("p:vfs_read vfs_read") takes that function's made-up
 * address, so that it and the graph's calls are one function, and a return
 * probe of the same address follows it; other kernel addresses name a
 * function after the event. A uprobe's address, in the bottom half, is
 * kept: no kernel symbol names it, and the analysis knows it by it.
 */
static int probe_addr(struct text *x, uint64_t addr, struct text_span name, uint64_t *out)
{
	long f;

	if (!(addr >> 63))
		return *out = addr, 0;

	for (int i = 0; i < x->nsites; i++)
		if (x->sites[i].addr == addr)
			return *out = func_addr(x->sites[i].func), 0;
	f = func_index(x, name, (struct text_span){NULL, 0});
	if (f < 0 || GROW(x->sites, x->nsites, x->sites_cap, 16))
		return -1;
	x->sites[x->nsites++] = (struct tsite){addr, (uint32_t)f};
	*out = func_addr((uint32_t)f);
	return 0;
}

static int sym_addr(struct text *x, struct text_span name, struct text_span mod, uint64_t off,
		    bool inside, uint64_t *addr);

/*
 * The address a probe the kernel printed at "sym+off" (event @name) is given,
 * as the analysis of a trace.dat names it (decode.c's kfunc()): the function
 * itself where the probe is at its start, or just past its entry padding
 * (8 bytes at most) with the event named after it; else a function named
 * after the event. The choice made at the first probe on @sym holds for the
 * others (a return probe prints the function without its offset).
 */
static int probe_sym(struct text *x, const struct tprobe *a, struct text_span name, uint64_t *out)
{
	long f = func_index(x, a->ip_sym, (struct text_span){NULL, 0});
	uint64_t key;

	if (f < 0)
		return -1;
	key = func_addr((uint32_t)f); /* made up: no real address is one */
	for (int i = 0; i < x->nsites; i++)
		if (x->sites[i].addr == key)
			return *out = func_addr(x->sites[i].func), 0;
	if (a->ip && !(a->ip <= 8 && memmem(name.p, name.n, a->ip_sym.p, a->ip_sym.n)))
		f = func_index(x, name, (struct text_span){NULL, 0});
	if (f < 0 || GROW(x->sites, x->nsites, x->sites_cap, 16))
		return -1;
	x->sites[x->nsites++] = (struct tsite){key, (uint32_t)f};
	*out = func_addr((uint32_t)f);
	return 0;
}

/* A kprobe, kretprobe, fprobe or eprobe line "(ADDR) args": its record. */
static int add_probe(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		     int32_t pid, uint64_t t, struct text_span name, const struct tprobe *a,
		     struct err_msg *err)
{
	struct tdyn *d = dyn_event(r, x, name, DYN_PROBE, a, err);
	uint64_t ip = 0, ret_ip = a->ret_ip;
	uint8_t *rec;
	int size;

	if (!d)
		return -1;
	size = d->kind == DYN_PROBE && d->layout->ret == a->ret && d->layout->eprobe == a->eprobe
		       ? tprobe_size(d->layout, a)
		       : -1;
	if (size < 0)
		return FAIL("line %d: probe %.*s's fields differ from its first line's", x->line,
			    name.n, name.p);
	if (a->ip_sym.n ? probe_sym(x, a, name, &ip) : probe_addr(x, a->ip, name, &ip))
		return FAIL("out of memory");
	if (a->ret_sym.n &&
	    sym_addr(x, a->ret_sym, (struct text_span){NULL, 0}, a->ret_ip, true, &ret_ip))
		return FAIL("line %d: too many callers, or an offset too large", x->line);
	if (!(rec = new_record(x, d->id, cpu, pid, l, t, size)))
		return FAIL("out of memory");
	tprobe_fill(rec, d->layout, a, ip, ret_ip);
	return 0;
}

/* ---- events from printed fields ------------------------------------------ */

/* The text between @a and @b in @f ("prev_comm=" ... " prev_pid="), or an empty span. */
static struct text_span between(struct text_span f, const char *a, const char *b)
{
	const char *end = f.p + f.n, *s, *e;
	size_t na = strlen(a);

	s = f.n ? memmem(f.p, f.n, a, na) : NULL;
	if (!s)
		return (struct text_span){NULL, 0};
	s += na;
	e = memmem(s, end - s, b, strlen(b));
	return e ? (struct text_span){s, (int)(e - s)} : (struct text_span){NULL, 0};
}

static bool field_int(struct text_span f, const char *key, long long *v)
{
	return tline_span_int(tline_field(f, key), v);
}

/*
 * "S", "D|W", "R+": prev_state's letters to the kernel's bits. The kernel
 * prints bit i as "SDTtXZPI"[i] (and "+" for a preempted task); trace-cmd's
 * sched plugin (libtraceevent 1.7) as "SDTtZXxW"[i], newer ones as the kernel.
 */
static bool task_state(struct text_span s, const char *letters, long long *v)
{
	*v = 0;
	if (s.n && s.p[s.n - 1] == '+') {
		*v |= 0x100;
		s.n--;
	}
	if (s.n == 1 && s.p[0] == 'R')
		return true;
	for (int i = 0; i < s.n; i++) {
		const char *l = strchr(letters, s.p[i]);
		if (s.p[i] == '|')
			continue;
		if (!s.p[i] || !l)
			return false;
		*v |= 1LL << (l - letters);
	}
	return s.n > 0;
}

/* "comm:pid [prio]" (trace-cmd's sched plugin); @rest gets what follows. */
static bool cost_task(struct text_span s, struct text_span *comm, long long *pid, long long *prio,
		    struct text_span *rest)
{
	const char *br = s.n ? memmem(s.p, s.n, " [", 2) : NULL, *colon, *close;

	if (!br)
		return false;
	for (colon = br - 1; colon > s.p && *colon != ':'; colon--)
		;
	close = memchr(br, ']', s.p + s.n - br);
	if (colon <= s.p || !close ||
	    !tline_span_int((struct text_span){colon + 1, (int)(br - colon - 1)}, pid) ||
	    !tline_span_int((struct text_span){br + 2, (int)(close - br - 2)}, prio))
		return false;
	*comm = (struct text_span){s.p, (int)(colon - s.p)};
	*rest = (struct text_span){close + 1, (int)(s.p + s.n - close - 1)};
	while (rest->n && rest->p[0] == ' ')
		rest->p++, rest->n--;
	return true;
}

struct sw {
	struct text_span pc, nc;
	long long pp, pprio, pstate, np, nprio;
};

/* sched_switch's fields, as the kernel or trace-cmd print them. */
static bool parse_switch(struct text_span f, struct sw *s)
{
	const char *arrow = f.n ? memmem(f.p, f.n, " ==> ", 5) : NULL;
	struct text_span l, r, st, rest;

	if (!arrow)
		return false;
	l = (struct text_span){f.p, (int)(arrow - f.p)};
	r = (struct text_span){arrow + 5, (int)(f.p + f.n - arrow - 5)};
	if (l.n > 10 && !memcmp(l.p, "prev_comm=", 10)) {
		s->pc = between(l, "prev_comm=", " prev_pid=");
		s->nc = between(r, "next_comm=", " next_pid=");
		return s->pc.p && s->nc.p && field_int(l, "prev_pid", &s->pp) &&
		       field_int(l, "prev_prio", &s->pprio) &&
		       task_state(tline_field(l, "prev_state"), "SDTtXZPI", &s->pstate) &&
		       field_int(r, "next_pid", &s->np) && field_int(r, "next_prio", &s->nprio);
	}
	return cost_task(l, &s->pc, &s->pp, &s->pprio, &st) &&
	       (task_state(st, "SDTtZXxW", &s->pstate) ||
		task_state(st, "SDTtXZPI", &s->pstate)) &&
	       cost_task(r, &s->nc, &s->np, &s->nprio, &rest);
}

/* sched_wakeup/waking's fields: "comm=X pid=N prio=N target_cpu=N" or "X:N [N] CPU:N". */
static bool parse_wake(struct text_span f, struct text_span *comm, long long *pid, long long *prio,
		       long long *cpu)
{
	struct text_span rest;

	if (f.n > 5 && !memcmp(f.p, "comm=", 5)) {
		*comm = between(f, "comm=", " pid=");
		return comm->p && field_int(f, "pid", pid) && field_int(f, "prio", prio) &&
		       field_int(f, "target_cpu", cpu);
	}
	if (!cost_task(f, comm, pid, prio, &rest))
		return false;
	if (rest.n > 4 && !memcmp(rest.p, "CPU:", 4)) {
		struct text_span c = {rest.p + 4, 0};
		while (c.n < rest.n - 4 && c.p[c.n] != ' ')
			c.n++;
		return tline_span_int(c, cpu);
	}
	*cpu = -1;
	return true;
}

/* Remember name @c of task @pid unless a better kind of name is known (@rank). */
static void note_comm(struct text *x, struct text_span c, long long pid, int rank)
{
	struct tstack *s;

	if (pid <= 0 || pid >= TEXT_PID_UNKNOWN || c.n <= 0 || c.n > 15)
		return;
	s = stack_of(x, (int32_t)pid);
	if (!s || s->comm_rank > rank)
		return; /* else the newer name: exec changes it */
	memcpy(s->comm, c.p, c.n);
	s->comm[c.n] = 0;
	s->comm_rank = rank;
}

/* Tell libtraceevent the tasks' names. */
static void register_comms(struct fmt_reader *r, struct text *x)
{
	for (int i = 0; i < x->nstacks; i++)
		if (x->stacks[i].comm_rank)
			tep_register_comm(r->tep, x->stacks[i].comm, x->stacks[i].pid);
}

/* Ends in @suffix? */
static bool ends(struct text_span s, const char *suffix)
{
	int n = (int)strlen(suffix);

	return s.n > n && !memcmp(s.p + s.n - n, suffix, n);
}

/* Where an event's record goes: the line, its CPU, task and time, its name and fields. */
struct at {
	struct fmt_reader *r;
	struct text *x;
	const struct tline *l;
	int cpu;
	int32_t pid;
	uint64_t t;
	struct text_span name, f;
	struct err_msg *err;
};

#define AT_FAIL(a, ...) err_setf((a)->err, (a)->r->path, __VA_ARGS__)

/* A zeroed record of @size bytes for event @type, or NULL (memory). */
static uint8_t *at_record(struct at *a, int type, uint32_t size)
{
	return new_record(a->x, type, a->cpu, a->pid, a->l, a->t, size);
}

static int no_memory(struct at *a)
{
	return AT_FAIL(a, "out of memory");
}

/* A function's made-up address: "name" is the function, "name+off" inside it. */
static int sym_addr(struct text *x, struct text_span name, struct text_span mod, uint64_t off,
		    bool inside, uint64_t *addr)
{
	long f = func_index(x, name, mod);

	if (f < 0)
		return -1;
	if (!inside && !off)
		return *addr = func_addr((uint32_t)f), 0;
	x->funcs[f].caller = x->any_caller = true;
	*addr = caller_addr((uint32_t)f) + (off & ((1ULL << TEXT_CALLER_SHIFT) - 1));
	return 0;
}

/* A symbol of -R's fields ("ip=vfs_read"): its function's address. */
static bool raw_sym(void *ctx, struct text_span name, uint64_t *addr)
{
	for (int i = 0; i < name.n; i++)
		if ((unsigned char)name.p[i] <= ' ' || name.p[i] == '=')
			return false;
	return !sym_addr(ctx, name, (struct text_span){NULL, 0}, 0, false, addr);
}

/*
 * The event's fields as -R prints them ("prev_state=64", no "==>"), into
 * the format registered for it. 0, or 1 if they are not that.
 */
static int ev_raw(struct at *a)
{
	static uint8_t buf[8192];
	struct tep_event *ev;
	char name[64];
	uint8_t *rec;
	int n;

	if (a->name.n >= (int)sizeof(name) || !a->f.n)
		return 1;
	memcpy(name, a->name.p, a->name.n);
	name[a->name.n] = 0;
	ev = fmt_events_find(a->r, NULL, name);
	if (!ev || !strcmp(ev->system, "text"))
		return 1;
	n = traw_record(ev, a->f, buf, sizeof(buf), raw_sym, a->x);
	if (n < 8)
		return 1;
	if (!(rec = at_record(a, ev->id, (uint32_t)n)))
		return no_memory(a);
	memcpy(rec + 8, buf + 8, n - 8);
	return 0;
}

/* Fields the event's own reader does not take: raw ones (-R), else an error. */
static int bad_fields(struct at *a)
{
	int rc = ev_raw(a);

	if (rc <= 0)
		return rc;
	return AT_FAIL(a, "line %d: cannot read %.*s's fields", a->x->line, a->name.n, a->name.p);
}

static int ev_switch(struct at *a)
{
	struct sw w;
	uint8_t *rec;

	if (!parse_switch(a->f, &w))
		return bad_fields(a);
	if (!(rec = at_record(a, TF_ID_SWITCH, 64)))
		return no_memory(a);
	put_str(rec, 8, w.pc, 16);
	put32(rec, 24, (int32_t)w.pp);
	put32(rec, 28, (int32_t)w.pprio);
	put64(rec, 32, (uint64_t)w.pstate);
	put_str(rec, 40, w.nc, 16);
	put32(rec, 56, (int32_t)w.np);
	put32(rec, 60, (int32_t)w.nprio);
	note_comm(a->x, w.pc, w.pp, 2);
	note_comm(a->x, w.nc, w.np, 2);
	return 0;
}

static int ev_wake(struct at *a)
{
	int id = same("sched_wakeup", a->name)	 ? TF_ID_WAKEUP
		 : same("sched_waking", a->name) ? TF_ID_WAKING
						 : TF_ID_WAKEUP_NEW;
	long long pid, prio, cpu;
	struct text_span comm;
	uint8_t *rec;

	if (!parse_wake(a->f, &comm, &pid, &prio, &cpu))
		return bad_fields(a);
	if (!(rec = at_record(a, id, 36)))
		return no_memory(a);
	put_str(rec, 8, comm, 16);
	put32(rec, 24, (int32_t)pid);
	put32(rec, 28, (int32_t)prio);
	put32(rec, 32, (int32_t)cpu);
	note_comm(a->x, comm, pid, 2);
	return 0;
}

static int ev_irq_entry(struct at *a)
{
	long long irq;
	uint8_t *rec;

	if (!field_int(a->f, "irq", &irq))
		return bad_fields(a);
	rec = new_record_str(a->x, TF_ID_IRQ_ENTRY, a->cpu, a->pid, a->l, a->t, 12, 16,
			     tline_field(a->f, "name"));
	if (!rec)
		return no_memory(a);
	put32(rec, 8, (int32_t)irq);
	return 0;
}

static int ev_irq_exit(struct at *a)
{
	struct text_span ret = tline_field(a->f, "ret");
	long long irq, handled;
	uint8_t *rec;

	/* "ret=handled" or "unhandled"; -R prints the number ("ret=1") */
	if (same("handled", ret) || same("unhandled", ret))
		handled = same("handled", ret);
	else if (!tline_span_int(ret, &handled))
		return bad_fields(a);
	if (!field_int(a->f, "irq", &irq))
		return bad_fields(a);
	if (!(rec = at_record(a, TF_ID_IRQ_EXIT, 16)))
		return no_memory(a);
	put32(rec, 8, (int32_t)irq);
	put32(rec, 12, (int32_t)handled);
	return 0;
}

static int ev_softirq(struct at *a)
{
	long long vec;
	uint8_t *rec;

	if (!tline_span_int(tline_field(a->f, "vec"), &vec))
		return bad_fields(a);
	rec = at_record(a, same("softirq_entry", a->name) ? TF_ID_SOFTIRQ_ENTRY : TF_ID_SOFTIRQ_EXIT,
			12);
	if (!rec)
		return no_memory(a);
	put32(rec, 8, (int32_t)vec);
	return 0;
}

static int ev_block(struct at *a, const struct tblock_event *be)
{
	struct tblock b;
	uint8_t *rec;

	if (tblock_parse(be, a->f, &b))
		return bad_fields(a);
	if (!(rec = at_record(a, be->id, (uint32_t)tblock_size(be, &b))))
		return no_memory(a);
	tblock_fill(rec, be, &b);
	return 0;
}

/* A dynamic event of @kind for this line's name, or NULL with the error set. */
static struct tdyn *at_dyn(struct at *a, enum dyn_kind kind)
{
	struct tdyn *d = dyn_event(a->r, a->x, a->name, kind, NULL, a->err);

	if (d && d->kind != kind) {
		AT_FAIL(a, "line %d: %.*s is another kind of event here", a->x->line, a->name.n,
			a->name.p);
		return NULL;
	}
	return d;
}

/* A number of @s (up to 24 characters), in @base. */
static bool span_num(struct text_span s, int base, long long *v)
{
	char buf[25], *end;

	if (s.n <= 0 || s.n >= (int)sizeof(buf) || s.p[0] == ' ')
		return false;
	memcpy(buf, s.p, s.n);
	buf[s.n] = 0;
	errno = 0;
	*v = base == 16 ? (long long)strtoull(buf, &end, 16) : strtoll(buf, &end, 10);
	return !errno && !*end;
}

/* The next word of @c, up to @stop (or its end); @c moves past the stop character. */
static struct text_span next_word(struct text_cursor *c, char stop)
{
	const char *p = c->p;
	struct text_span w;

	while (c->p < c->end && *c->p != stop)
		c->p++;
	w = (struct text_span){p, (int)(c->p - p)};
	if (c->p < c->end)
		c->p++;
	return w;
}

/* raw_syscalls: "NR 335 (3, 7ffe811721cf, 1, 0, 0, 0)" and "NR -1 = 0". */
static int ev_sys(struct at *a)
{
	bool enter = same("sys_enter", a->name);
	struct text_cursor c = {a->f.p, a->f.p + a->f.n};
	long long nr, v[6] = {0};
	int n = 0;
	uint8_t *rec;

	while (c.p < c.end && *c.p == ' ')
		c.p++;
	if (!tline_eat(&c, "NR ") || !span_num(next_word(&c, ' '), 10, &nr))
		return bad_fields(a);
	if (enter ? !tline_eat(&c, "(") : !tline_eat(&c, "= "))
		return bad_fields(a);
	if (!enter && !span_num(next_word(&c, ' '), 10, &v[0]))
		return bad_fields(a);
	for (; enter && n < 6; n++) {
		if (!span_num(next_word(&c, n < 5 ? ',' : ')'), 16, &v[n]))
			return bad_fields(a);
		tline_eat(&c, " ");
	}
	if (c.p != c.end || (enter && c.p[-1] != ')'))
		return bad_fields(a); /* more, or less, than the kernel prints */
	if (!(rec = at_record(a, enter ? TF_ID_SYS_ENTER : TF_ID_SYS_EXIT, enter ? 64 : 24)))
		return no_memory(a);
	put64(rec, 8, (uint64_t)nr);
	for (int i = 0; i < (enter ? 6 : 1); i++)
		put64(rec, 16 + 8 * i, (uint64_t)v[i]);
	return 0;
}

/* An irq_vectors event ("local_timer_entry: vector=236"). */
static int ev_vector(struct at *a, long long vector)
{
	struct tdyn *d = at_dyn(a, DYN_VECTOR);
	uint8_t *rec;

	if (!d)
		return -1;
	if (!(rec = at_record(a, d->id, 12)))
		return no_memory(a);
	put32(rec, 8, (int32_t)vector);
	return 0;
}

/* Any other event: kept by name, its fields as one string. */
static int ev_named(struct at *a)
{
	struct tdyn *d = at_dyn(a, DYN_NAMED);

	if (!d)
		return -1;
	if (!new_record_str(a->x, d->id, a->cpu, a->pid, a->l, a->t, 8, 12, a->f))
		return no_memory(a);
	return 0;
}

/*
 * The number of system call @call where the text does not print it (all
 * but -R): its entry's and exit's made-up one, for the analysis to pair
 * them by. 0 when there are too many.
 */
static int syscall_nr(struct text *x, struct tdyn *d, struct text_span call)
{
	char other[96];
	int n = snprintf(other, sizeof(other), "sys_%s_%.*s",
			 memcmp(d->name, "sys_enter_", 10) ? "enter" : "exit", call.n, call.p);

	for (int i = 0; i < x->ndyn; i++)
		if (x->dyn[i].kind == DYN_SYSCALL && x->dyn[i].sys_nr &&
		    same(x->dyn[i].name, (struct text_span){other, n}))
			return d->sys_nr = x->dyn[i].sys_nr;
	if (x->nsyscalls >= 4096 - TEXT_SYSCALL_NR)
		return 0;
	x->syscall_nrs = true;
	return d->sys_nr = TEXT_SYSCALL_NR + x->nsyscalls++;
}

/*
 * 7.3 prints the mode of openat and open only where the call creates a
 * file ("flags: O_RDONLY)" ends the line): the record's mode is then taken
 * as 0, which is what such calls pass.
 */
static void default_mode(struct text_span call, struct tsys *sy)
{
	int n = sy->nargs;

	if ((same("openat", call) || same("open", call)) && n > 0 && n < TSYS_MAX_ARGS &&
	    same("flags", sy->name[n - 1])) {
		sy->name[n] = (struct text_span){"mode", 4};
		sy->v[n] = 0;
		sy->nargs++;
	}
}

/* A system call's entry or exit (syscalls:sys_enter_X, sys_exit_X), X being @call. */
static int ev_syscall(struct at *a, bool exit, struct text_span call)
{
	struct tsys sy;
	struct tdyn *d;
	uint8_t *rec;
	char name[96];
	int n;

	if (tprobe_sys_parse(a->f, exit, &sy))
		return bad_fields(a);
	if (!exit)
		default_mode(call, &sy);
	n = snprintf(name, sizeof(name), "sys_%s_%.*s", exit ? "exit" : "enter",
		     call.n > 64 ? 64 : call.n, call.p);
	d = dyn_event(a->r, a->x, (struct text_span){name, n}, DYN_SYSCALL, &sy, a->err);
	if (!d)
		return -1;
	if (d->kind != DYN_SYSCALL || d->nargs != sy.nargs)
		return AT_FAIL(a, "line %d: %s's fields differ from its first line's", a->x->line,
			       name);
	if (!sy.has_nr && !(sy.nr = d->sys_nr ? d->sys_nr : syscall_nr(a->x, d, call)))
		return AT_FAIL(a, "line %d: more than %d different system calls", a->x->line,
			       4096 - TEXT_SYSCALL_NR);
	if (!(rec = at_record(a, d->id, (uint32_t)tprobe_sys_size(&sy))))
		return no_memory(a);
	tprobe_sys_fill(rec, &sy);
	return 0;
}

/* A stack trace's first line: its event, which the frames that follow fill. */
static int ev_stack(struct at *a)
{
	bool user = same("user_stack", a->name);
	struct text_span f = a->f;
	uint8_t *rec;

	if (f.n && !same(user ? "<user stack trace >" : "<stack trace >", f))
		return bad_fields(a);
	if (!(rec = at_record(a, user ? TF_ID_USER_STACK : TF_ID_KERNEL_STACK, 80)))
		return no_memory(a);
	if (user)
		put32(rec, 8, a->pid); /* tgid: the text says the task only */
	a->x->stack_ev = a->x->nev - 1;
	return 0;
}

/* "=> frame": one more return address in the stack trace just read. */
static int add_frame(struct fmt_reader *r, struct text *x, const struct tline *l,
		     struct err_msg *err)
{
	struct tev *e;
	uint64_t addr = l->addr;
	uint8_t *rec;
	int n;

	if (x->stack_ev < 0 && !x->nev) { /* a trace_pipe read from within a stack trace */
		x->early_frames++;
		return 0;
	}
	if (x->stack_ev < 0 || x->stack_ev != x->nev - 1)
		return FAIL("line %d: a stack frame without its stack trace", x->line);
	e = &x->ev[x->stack_ev];
	rec = x->arena + e->off;
	n = (int)x->stack_frames;
	if (16 + 8 * n + 8 > e->size) { /* the last record: it grows in place */
		if (e->size > 60000 || arena_room(x, 8))
			return FAIL("line %d: too many stack frames", x->line);
		rec = x->arena + e->off;
		memset(rec + e->size, 0, 8);
		e->size += 8;
		x->arena_len += 8;
	}
	if (l->name.n && sym_addr(x, l->name, l->mod, l->off, true, &addr))
		return FAIL("out of memory");
	put64(rec, 16 + 8 * n, addr);
	x->stack_frames++;
	if (e->size >= 80 && rec[0] == TF_ID_KERNEL_STACK)
		put32(rec, 8, (int32_t)x->stack_frames);
	return 0;
}

/*
 * The function tracer's line: an ftrace:function event, with the argument
 * registers func-args printed (the kernel saves six on x86: those not
 * printed are zero).
 */
static int add_function(struct text *x, const struct tline *l, int cpu, int32_t pid, uint64_t t,
			struct err_msg *err, struct fmt_reader *r)
{
	struct targs ta = {0};
	uint64_t ip, parent = 0;
	uint8_t *rec;

	if (x->fn_args && l->args.n && tline_args_parse(l->args, &ta))
		return FAIL("line %d: cannot read the function's arguments", x->line);
	if (sym_addr(x, l->name, l->mod, l->off, false, &ip) ||
	    (l->ret_to.n &&
	     sym_addr(x, l->ret_to, (struct text_span){NULL, 0}, l->ret_off, true, &parent)) ||
	    !(rec = new_record(x, TF_ID_FUNCTION, cpu, pid, l, t,
			       24 + (x->fn_args ? 8 * (ta.nslots > TARGS_X86 ? ta.nslots
									 : TARGS_X86)
						: 0))))
		return FAIL("out of memory");
	put64(rec, 8, ip);
	put64(rec, 16, parent);
	for (int i = 0; i < ta.nslots; i++)
		put64(rec, 24 + 8 * i, ta.v[i]);
	return 0;
}

/* An event line (report) or comment "name: fields"; @name and @f are its parts. */
static int add_event(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		     int32_t pid, uint64_t t, struct text_span name, struct text_span f,
		     struct err_msg *err)
{
	static const struct {
		const char *name;
		int (*fn)(struct at *a);
	} known[] = {
		{"sched_switch", ev_switch},	     {"sched_wakeup", ev_wake},
		{"sched_waking", ev_wake},	     {"sched_wakeup_new", ev_wake},
		{"irq_handler_entry", ev_irq_entry}, {"irq_handler_exit", ev_irq_exit},
		{"softirq_entry", ev_softirq},	     {"softirq_exit", ev_softirq},
		{"sys_enter", ev_sys},		     {"sys_exit", ev_sys},
	};
	struct at a = {r, x, l, cpu, pid, t, name, f, err};
	const struct tblock_event *be;
	struct tprobe probe;
	long long v;

	if (l->sys)
		return ev_syscall(&a, l->sys == 2, name);
	if (name.n > 10 && !memcmp(name.p, "sys_enter_", 10))
		return ev_syscall(&a, false, (struct text_span){name.p + 10, name.n - 10});
	if (name.n > 9 && !memcmp(name.p, "sys_exit_", 9))
		return ev_syscall(&a, true, (struct text_span){name.p + 9, name.n - 9});
	if (same("kernel_stack", name) || same("user_stack", name))
		return ev_stack(&a);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (same(known[i].name, name))
			return known[i].fn(&a);
	if ((be = tblock_find(name, x->block_ioprio)))
		return ev_block(&a, be);
	if ((ends(name, "_entry") || ends(name, "_exit")) && f.n > 7 &&
	    !memcmp(f.p, "vector=", 7) && field_int(f, "vector", &v))
		return ev_vector(&a, v);
	if (f.n && (f.p[0] == '(' || f.p[0] == '_') && !tprobe_parse(f, &probe))
		return add_probe(r, x, l, cpu, pid, t, name, &probe, err);
	return ev_named(&a);
}

/* A comment "event: fields": its name and fields; false for any other comment. */
static bool comment_event(struct text_span c, struct text_span *name, struct text_span *f)
{
	int i = 0;

	while (i < c.n && (c.p[i] == '_' || (c.p[i] >= 'a' && c.p[i] <= 'z') ||
			   (c.p[i] >= 'A' && c.p[i] <= 'Z') || (c.p[i] >= '0' && c.p[i] <= '9')))
		i++;
	if (!(i > 0 && i + 1 < c.n && c.p[i] == ':' && c.p[i + 1] == ' '))
		return false;
	*name = (struct text_span){c.p, i};
	*f = (struct text_span){c.p + i + 2, c.n - i - 2};
	return true;
}

/* A comment: "event: fields" is an event, anything else a trace_printk. */
static int add_comment(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		       int32_t pid, uint64_t t, struct err_msg *err)
{
	struct text_span c = l->text, name, f;
	uint8_t *rec;

	if (comment_event(c, &name, &f))
		return add_event(r, x, l, cpu, pid, t, name, f, err);
	rec = new_record(x, TF_ID_PRINT, cpu, pid, l, t, 16 + (c.n > 4000 ? 4000 : c.n) + 1);
	if (!rec)
		return FAIL("out of memory");
	memcpy(rec + 16, c.p, c.n > 4000 ? 4000 : c.n);
	return 0;
}

/* ---- graph lines ------------------------------------------------------------ */

/* The kernel's struct ftrace_graph_ent_entry and its kin: where args[] starts. */
enum { FG_ARGS_OFF = 24, FG_RETADDR_ARGS_OFF = 32, FG_EXIT_SIZE = 40, FG_EXIT_RET_SIZE = 48 };

/*
 * Keep how function @f's arguments were printed (the first time: the kernel
 * prints a function's alike every time). 0, or -1 when out of memory.
 */
static int note_params(struct tfunc *f, const struct targs *ta)
{
	if (f->params_set)
		return 0;
	f->params_set = true;
	if (!ta->n)
		return 0;
	f->params = calloc(ta->n, sizeof(*f->params));
	if (!f->params)
		return -1;
	for (int i = 0; i < ta->n; i++) {
		char *name = strndup(ta->a[i].name.p, ta->a[i].name.n);
		if (!name)
			return -1;
		f->params[i] = (struct fmt_param){name, ta->a[i].slots, ta->a[i].kind};
		f->nparams++;
	}
	return 0;
}

/*
 * The entry record of line @l (function @func): funcgraph_entry (with the
 * argument registers where the text prints arguments), or
 * fgraph_retaddr_entry where the line says where the call returns to.
 */
static int fg_entry(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		    int32_t pid, uint64_t t, uint32_t func, struct err_msg *err)
{
	struct targs ta = {0};
	int off = l->ret_to.n ? FG_RETADDR_ARGS_OFF : x->any_args ? FG_ARGS_OFF : 20;
	uint8_t *rec;

	if (x->any_args && l->args.n && tline_args_parse(l->args, &ta))
		return FAIL("line %d: cannot read the call's arguments", x->line);
	if (x->any_args && note_params(&x->funcs[func], &ta))
		return FAIL("out of memory");
	rec = new_record(x, l->ret_to.n ? TF_ID_FG_RETADDR : TF_ID_FG_ENTRY, cpu, pid, l, t,
			 off + (x->any_args ? 8 * (ta.nslots > TARGS_X86 ? ta.nslots : TARGS_X86)
					    : 0));
	if (!rec)
		return FAIL("out of memory");
	put64(rec, 8, func_addr(func));
	if (off == 20) { /* the 6.1 layout: an int depth */
		put32(rec, 16, l->depth);
		return 0;
	}
	put64(rec, 16, (uint64_t)l->depth);
	if (l->ret_to.n) {
		long c = func_index(x, l->ret_to, (struct text_span){NULL, 0});
		if (c < 0)
			return FAIL("out of memory");
		if ((uint64_t)c >= (0 - TEXT_CALLER_BASE) >> TEXT_CALLER_SHIFT ||
		    l->ret_off >> TEXT_CALLER_SHIFT)
			return FAIL("line %d: too many callers, or an offset too large", x->line);
		x->funcs[c].caller = true;
		put64(rec, 24, caller_addr((uint32_t)c) + l->ret_off);
	}
	for (int i = 0; i < ta.nslots; i++)
		put64(rec, off + 8 * i, ta.v[i]);
	return 0;
}

/* An exit event at @t of a call that returned at @ret after @dur ns (its value in @l). */
static int fg_exit(struct text *x, const struct tline *l, int cpu, int32_t pid, uint64_t t,
		   uint64_t ret, uint64_t dur, uint32_t func)
{
	uint8_t *rec = new_record(x, TF_ID_FG_EXIT, cpu, pid, l, t,
				  x->any_ret ? FG_EXIT_RET_SIZE : FG_EXIT_SIZE);
	int at = x->any_ret ? 8 : 0; /* the fields after retval move by it */

	if (!rec)
		return -1;
	put64(rec, 8, func_addr(func));
	if (x->any_ret)
		put64(rec, 16, l->ret);
	put32(rec, 16 + at, l->depth);
	put64(rec, 24 + at, ret > dur ? ret - dur : 0);
	put64(rec, 32 + at, ret);
	return 0;
}

/*
 * "}": the task's open call at this depth is the one that returns. The
 * kernel takes calltime before it writes the entry event and rettime before
 * the exit event, and the text gives their difference: so calltime is the
 * entry's time, or earlier where the exit's time minus the duration says
 * so (the entry event was delayed), and rettime is calltime + duration.
 * Taking the exit's time alone fails where the task was preempted or
 * interrupted between the return and the exit event: in vm-odirect-v7.dat
 * a mutex_unlock of 421 us has its exit event 4.8 ms after its return.
 * Without printed times only the entry's time is known. An exit without its
 * entry returns at its own time.
 */
static int graph_exit(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		      int32_t pid, uint64_t t, struct err_msg *err)
{
	struct tstack *s = stack_of(x, pid);
	long func = -1;
	uint64_t ret = t;

	if (!s)
		return FAIL("out of memory");
	for (int i = s->n - 1; i >= 0; i--)
		if (s->f[i].depth == l->depth) {
			func = s->f[i].func;
			ret = s->f[i].t + l->dur;
			if (x->abs_times && ret > t)
				ret = t; /* the return came before its exit event */
			if (l->has_calltime) /* -R: the exit says */
				ret = l->rettime;
			s->n = i;
			break;
		}
	if (l->has_calltime && func < 0)
		ret = l->rettime;
	if (l->name.n) /* "} /+ func +/", or -R's "func=" */
		func = func_index(x, l->name, l->mod);
	else if (func < 0) {
		func =
		    func_index(x, (struct text_span){"[unknown]", 9}, (struct text_span){NULL, 0});
		x->unknown_exits++;
	}
	if (func < 0 || fg_exit(x, l, cpu, pid, ret > t ? ret : t, ret, l->dur, (uint32_t)func))
		return FAIL("out of memory");
	return 0;
}

static int graph_call(struct fmt_reader *r, struct text *x, const struct tline *l, int cpu,
		      int32_t pid, uint64_t t, struct err_msg *err)
{
	long func = func_index(x, l->name, l->mod);
	struct tstack *s;

	if (func < 0)
		return FAIL("out of memory");
	if (fg_entry(r, x, l, cpu, pid, t, (uint32_t)func, err))
		return -1;
	if (l->kind == TL_LEAF) {
		if (fg_exit(x, l, cpu, pid, t + l->dur, t + l->dur, l->dur, (uint32_t)func))
			return FAIL("out of memory");
		if (x->abs_times) { /* where it returned: leaf_return() */
			x->cpus[cpu].leaf = (long)x->nev - 1;
			x->cpus[cpu].now = t;
		}
		return 0;
	}
	s = stack_of(x, pid);
	if (!s || GROW(s->f, s->n, s->cap, 16))
		return FAIL("out of memory");
	s->f[s->n++] = (struct tframe){l->depth, (uint32_t)func, t};
	return 0;
}

/* ---- lines ------------------------------------------------------------------ */

/*
 * A leaf line "f();" is one entry event followed at once by f's exit event,
 * and prints the entry's time and f's duration. The kernel takes calltime
 * before it writes the entry event: where an interrupt came in between,
 * its calls (one deeper) are printed before the leaf line and the entry's
 * time is late by them (in vm-preads, an up_read of 275 us printed after
 * its 229 us timer interrupt). Its exit event, and so its return, comes
 * before the CPU's next event at @t: where entry time plus duration is
 * later than that (by more than the printed time's precision @prec), the
 * call returned at @t and began at @t minus its duration, as the exit's
 * calltime and rettime in a trace.dat say. Returns the time of the line.
 */
static uint64_t leaf_return(struct text *x, struct tcpu *c, uint64_t t, int prec)
{
	struct tev *e;
	uint8_t *rec;
	uint64_t dur, call;
	int at = x->any_ret ? 8 : 0;

	if (c->leaf < 0)
		return t;
	e = &x->ev[c->leaf];
	c->leaf = -1;
	if (e->ts <= t + (uint64_t)prec) { /* within the precision: as printed */
		if (e->ts > t)
			t = e->ts;
		if (t > c->now)
			c->now = t;
		return t;
	}
	rec = x->arena + e->off;
	memcpy(&call, rec + 24 + at, 8);
	dur = e->ts - call;
	call = t > dur ? t - dur : 0;
	put64(rec, 24 + at, call);
	put64(rec, 32 + at, t);
	e->ts = t;
	return t;
}

static int cpu_index(struct fmt_reader *r, struct text *x, int cpu, struct err_msg *err)
{
	if (cpu < 0)
		cpu = 0; /* no CPU column: one CPU */
	if (cpu >= TEXT_MAX_CPUS)
		return FAIL("line %d: CPU %d out of range", x->line, cpu);
	if (cpu >= x->ncpus_alloc) {
		int n = cpu + 8;
		struct tcpu *p = realloc(x->cpus, n * sizeof(*p));
		if (!p)
			return FAIL("out of memory");
		for (int i = x->ncpus_alloc; i < n; i++)
			p[i] = (struct tcpu){false, -1, -1, x->base, 0, -1, false, -1, -1};
		x->cpus = p;
		x->ncpus_alloc = n;
	}
	x->cpus[cpu].seen = true;
	return cpu;
}

/* The task of a line on @cpu. */
static int32_t line_pid(struct text *x, const struct tline *l, int cpu)
{
	struct tcpu *c = &x->cpus[cpu];

	if (l->pid >= 0)
		return l->pid;
	if (c->pid >= 0)
		return c->pid;
	if (c->first_prev >= 0)
		return c->first_prev;
	return TEXT_PID_UNKNOWN + cpu;
}

static bool is_event_line(enum tline_kind k)
{
	return k == TL_ENTRY || k == TL_LEAF || k == TL_EXIT || k == TL_COMMENT || k == TL_EVENT ||
	       k == TL_FUNC;
}

/* Functions that start an interrupt's handling (entered in hardirq context). */
static bool irq_entry_func(struct text_span n)
{
	static const char *const pre[] = {"__sysvec_", "sysvec_", "__common_interrupt",
					  "common_interrupt", "__do_IRQ", "do_IRQ", "irq_exit_rcu",
					  "irq_exit"};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (n.n >= (int)strlen(pre[i]) && !memcmp(n.p, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/*
 * Without printed flags, guess the hardirq context the kernel's flags would
 * show: from the entry of an irq entry function (or the call after a
 * "==========>" marker) to its return. Returns @l, or @copy with the flag.
 */
static const struct tline *infer_irq(struct text *x, const struct tline *l, int cpu,
				     struct tline *copy)
{
	struct tcpu *c = &x->cpus[cpu];
	bool in;

	bool leaf = false;

	if (c->irq_depth < 0 && (l->kind == TL_ENTRY || l->kind == TL_LEAF) &&
	    (c->irq_mark || irq_entry_func(l->name))) {
		if (l->kind == TL_ENTRY)
			c->irq_depth = l->depth;
		else
			leaf = true;
	}
	if (l->kind == TL_ENTRY || l->kind == TL_LEAF)
		c->irq_mark = false;
	in = c->irq_depth >= 0 || leaf;
	if (in && l->kind == TL_EXIT && l->depth <= c->irq_depth)
		c->irq_depth = -1;
	if (!in)
		return l;
	*copy = *l;
	copy->has_lat = true;
	copy->flags = FMT_FLAG_IRQS_OFF | FMT_FLAG_HARDIRQ;
	copy->preempt = 1;
	return copy;
}

/* Make the events of one parsed line. */
static int take_line(struct fmt_reader *r, struct text *x, const struct tline *l,
		     struct err_msg *err)
{
	struct tline copy;
	int cpu;
	int32_t pid;
	uint64_t t;

	if (l->kind == TL_FRAME)
		return add_frame(r, x, l, err);
	if (l->kind != TL_BLANK)
		x->stack_ev = -1; /* frames follow their stack trace's line */
	switch (l->kind) {
	case TL_BLANK: case TL_HEADER: case TL_SEP:
		return 0;
	case TL_ANNOT:
		x->annotations++;
		return 0;
	default:
		break;
	}
	cpu = cpu_index(r, x, l->cpu, err);
	if (cpu < 0)
		return -1;
	if (l->kind == TL_IRQ_MARK) {
		x->irq_marks++;
		x->cpus[cpu].irq_mark = l->irq_in;
		return 0;
	}
	if (l->kind == TL_LOST) {
		uint64_t *p = &x->cpus[cpu].pending;
		*p = l->lost_unknown || *p == FMT_MISSED_UNKNOWN ? FMT_MISSED_UNKNOWN : *p + l->lost;
		return 0;
	}
	if (l->kind == TL_SWITCH) {
		x->cpus[cpu].pid = l->next_pid;
		note_comm(x, l->prev_comm, l->prev_pid, 1);
		note_comm(x, l->next_comm, l->next_pid, 1);
		return 0;
	}
	pid = line_pid(x, l, cpu);
	if (l->pid >= 0)
		note_comm(x, l->comm, l->pid, 1);
	t = x->cpus[cpu].now;
	if (l->has_ts && l->ts > t)
		t = l->ts;
	if (l->has_ts)
		t = leaf_return(x, &x->cpus[cpu], t, l->ts_prec);
	if (x->any_ret && (l->kind == TL_LEAF || l->kind == TL_EXIT) && !l->has_ret)
		return FAIL("line %d: a return without its value, where other returns have one",
			    x->line);
	if (!x->any_lat)
		l = infer_irq(x, l, cpu, &copy);
	switch (l->kind) {
	case TL_ENTRY:
	case TL_LEAF:
		return graph_call(r, x, l, cpu, pid, t, err);
	case TL_EXIT:
		return graph_exit(r, x, l, cpu, pid, t, err);
	case TL_COMMENT:
		return add_comment(r, x, l, cpu, pid, t, err);
	case TL_EVENT:
		x->stack_frames = 0;
		return add_event(r, x, l, cpu, pid, t, l->name, l->text, err);
	case TL_FUNC:
		return add_function(x, l, cpu, pid, t, err, r);
	default:
		return 0;
	}
}

/* Check what a parsed line means in its context. */
static int check_line(struct text *x, const struct tline *l, struct err_msg *err,
		      struct fmt_reader *r)
{
	if ((l->kind == TL_LEAF || l->kind == TL_EXIT) && !l->has_dur)
		return FAIL("line %d: a %s without its duration (funcgraph-duration off: not "
			    "supported)", x->line,
			    l->kind == TL_LEAF ? "call" : "return");
	if (is_event_line(l->kind) && x->abs_times && !l->has_ts && l->kind != TL_EVENT)
		return FAIL("line %d: no time, where other lines have one", x->line);
	return 0;
}

/* Call @fn on every line of the text, parsed; stops at an error. */
static int each_line(struct fmt_reader *r, struct text *x, struct err_msg *err,
		     int (*fn)(struct fmt_reader *r, struct text *x, const struct tline *l,
			       struct err_msg *err))
{
	const char *p = (const char *)r->map, *end = p + r->file_len;
	struct tline l;
	const char *why;

	x->line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *e = nl ? nl : end;

		x->line++;
		if (e - p > 1 << 20)
			return FAIL("line %d: longer than 1 MiB", x->line);
		if (tline_parse(p, (int)(e - p), &l, &why))
			return FAIL("line %d: %s", x->line, why);
		if (check_line(x, &l, err, r) || fn(r, x, &l, err))
			return -1;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * A block request event whose fields hold the I/O priority (6.10 on): not
 * of 6.1's shape, of the later one's, or raw with "ioprio=".
 */
static bool prints_ioprio(const struct tline *l)
{
	struct text_span name = l->name, f = l->text;
	const struct tblock_event *e;
	struct tblock b;

	if (l->kind == TL_COMMENT && !comment_event(l->text, &name, &f))
		return false;
	if ((l->kind != TL_EVENT && l->kind != TL_COMMENT) || !(e = tblock_find(name, true)))
		return false;
	if (f.n > 4 && !memcmp(f.p, "dev=", 4))
		return memmem(f.p, f.n, " ioprio=", 8) != NULL;
	return tblock_parse(tblock_find(name, false), f, &b) && !tblock_parse(e, f, &b);
}

/* First pass: what the text prints, each CPU's first task, the longest duration. */
static int survey_line(struct fmt_reader *r, struct text *x, const struct tline *l,
		       struct err_msg *err)
{
	int cpu;

	if (l->kind == TL_HEADER)
		x->overwritten += l->lost;
	if (is_event_line(l->kind) && l->has_ts)
		x->abs_times = true;
	if (l->has_dur && l->dur > x->base)
		x->base = l->dur;
	x->any_proc |= l->pid >= 0 && l->kind != TL_SWITCH;
	x->any_lat |= l->has_lat;
	x->any_ret |= l->has_ret;
	x->any_args |= (l->kind == TL_ENTRY || l->kind == TL_LEAF) && l->args.n;
	x->fn_args |= l->kind == TL_FUNC && l->args.n;
	x->any_retaddr |= l->ret_to.n > 0 && l->kind != TL_FUNC;
	if (!x->block_ioprio)
		x->block_ioprio = prints_ioprio(l);
	if (l->kind != TL_SWITCH)
		return 0;
	x->any_switch = true;
	cpu = cpu_index(r, x, l->cpu, err);
	if (cpu < 0)
		return -1;
	if (x->cpus[cpu].first_prev < 0)
		x->cpus[cpu].first_prev = l->prev_pid;
	return 0;
}

/* ---- the backend ------------------------------------------------------------- */

static int cmp_ev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The formats of the events made, function_graph's as the text's options need. */
static int add_formats(struct fmt_reader *r, const struct text *x, struct err_msg *err)
{
#define F(sys, v) {sys, v, sizeof(v) - 1}
	static const struct {
		const char *sys, *text;
		size_t len;
	} f[] = {
		F("ftrace", tf_print),	    F("sched", tf_switch),     F("sched", tf_wakeup),
		F("sched", tf_wakeup_new),  F("sched", tf_waking),     F("irq", tf_softirq_exit),
		F("irq", tf_softirq_entry), F("irq", tf_irq_exit),     F("irq", tf_irq_entry),
		F("raw_syscalls", tf_sys_exit), F("raw_syscalls", tf_sys_enter),
		F("ftrace", tf_kernel_stack), F("ftrace", tf_user_stack),
	}, functions[] = {F("ftrace", tf_function), F("ftrace", tf_function_args)},
	   exits[] = {F("ftrace", tf_fg_exit), F("ftrace", tf_fg_exit_retval)},
	   entries[] = {F("ftrace", tf_fg_entry), F("ftrace", tf_fg_entry_args)},
	   retaddr = F("ftrace", tf_fg_retaddr);
#undef F
	const struct tblock_event *b;
	int nb;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (fmt_events_add_format(r, f[i].sys, f[i].text, f[i].len, err))
			return -1;
	if (fmt_events_add_format(r, "ftrace", functions[x->fn_args].text,
				  functions[x->fn_args].len, err) ||
	    fmt_events_add_format(r, "ftrace", exits[x->any_ret].text, exits[x->any_ret].len,
				  err) ||
	    fmt_events_add_format(r, "ftrace", entries[x->any_args].text, entries[x->any_args].len,
				  err) ||
	    (x->any_retaddr && fmt_events_add_format(r, "ftrace", retaddr.text, retaddr.len, err)))
		return -1;
	b = tblock_events(&nb, x->block_ioprio);
	for (int i = 0; i < nb; i++)
		if (fmt_events_add_format(r, "block", b[i].format, b[i].format_len, err))
			return -1;
	return 0;
}

/* One buffer, one stream per CPU that has lines. */
static int make_info(struct fmt_reader *r, struct text *x, struct err_msg *err)
{
	struct fmt_buffer *b;
	int n = 0;

	for (int i = 0; i < x->ncpus_alloc; i++)
		n += x->cpus[i].seen;
	r->info.buffers = calloc(1, sizeof(*r->info.buffers));
	r->streams = calloc(n ? n : 1, sizeof(*r->streams));
	if (!r->info.buffers || !r->streams)
		return FAIL("out of memory");
	r->info.nbuffers = 1;
	b = &r->info.buffers[0];
	b->name = strdup("");
	b->clock = strdup("local");
	b->cpu_ids = calloc(n ? n : 1, sizeof(*b->cpu_ids));
	b->bytes = calloc(n ? n : 1, sizeof(*b->bytes));
	if (!b->name || !b->clock || !b->cpu_ids || !b->bytes)
		return FAIL("out of memory");
	for (int i = 0; i < x->ncpus_alloc; i++) {
		if (!x->cpus[i].seen)
			continue;
		b->cpu_ids[b->ncpus] = i;
		r->streams[b->ncpus] = (struct stream){.buffer = 0, .cpu = i, .index = b->ncpus};
		b->ncpus++;
		r->info.cpus = i + 1;
	}
	r->nstreams = n;
	/*
	 * The text does not say which clock; calltime and rettime are made on
	 * the printed times, so they share the events' clock, which is what
	 * "local" tells the analysis (lacks says the clock is assumed).
	 */
	r->info.clock = "local";
	return 0;
}

/* What was passed over on purpose, each kind with its count, for darc info. */
static void make_skipped(struct text *x, struct fmt_reader *r)
{
	const struct {
		uint64_t n;
		const char *what;
	} k[] = {
		{x->annotations, "annotation lines ('##### CPU N buffer started', 'CPU N is empty')"},
		{x->irq_marks, "irq marks ('==========>', '<==========': taken for irq context only)"},
		{x->early_frames, "stack frames before the first event (of a stack trace not in the "
				  "text)"},
	};
	size_t at = 0;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (k[i].n && at < sizeof(x->skipped))
			at += (size_t)snprintf(x->skipped + at, sizeof(x->skipped) - at,
					       "%s%" PRIu64 " %s", at ? ", " : "", k[i].n,
					       k[i].what);
	if (at)
		r->info.skipped = x->skipped;
}

static void make_lacks(struct text *x, struct fmt_reader *r)
{
	char unknown[96] = "", over[160] = "";

	if (x->unknown_exits)
		snprintf(unknown, sizeof(unknown),
			 ", the function of %" PRIu64 " returns without their call ([unknown])",
			 x->unknown_exits);
	if (x->overwritten_cpu >= 0)
		snprintf(over, sizeof(over),
			 ", the CPUs of the %" PRIu64 " events the buffer overwrote (all counted "
			 "on CPU %d, whose kept events start last)",
			 x->overwritten, x->overwritten_cpu);
	snprintf(x->lacks, sizeof(x->lacks),
		 "kallsyms (function addresses are made up), trace clock (taken as local)%s%s%s%s%s%s%s",
		 x->abs_times ? "" : ", absolute times (built from durations)",
		 x->any_proc || x->any_switch ? "" : ", task ids",
		 x->any_lat ? ""
			    : ", irq context flags (hardirq inferred from irq entry functions; softirq "
			      "taken to end at each softirq_exit, so the softirq code after the last "
			      "one, waking ksoftirqd say, counts as the interrupted call's own time)",
		 ", lost events unless printed, fields of events other than sched, irq, raw_syscalls, "
		 "syscalls, block, kprobes, function and stack traces",
		 x->syscall_nrs ? ", system call numbers (syscalls events are given made-up ones)"
				: "",
		 unknown, over);
	r->info.lacks = x->lacks;
	make_skipped(x, r);
}

/*
 * The events the header says were overwritten, lost where the analysis
 * of a trace.dat has them: before the first kept event of the CPU that
 * overran (the ring buffer drops a CPU's oldest events). The text does not
 * say which CPU that was, nor how many each lost where several did: they
 * are all counted on the CPU whose kept events start last (the others'
 * first events are not preceded by a gap that long), which lacks says.
 */
static void count_overwritten(struct text *x)
{
	long best = -1;

	x->overwritten_cpu = -1;
	if (!x->overwritten)
		return;
	for (int i = 0; i < x->ncpus_alloc; i++) {
		long f = x->cpus[i].first_ev;
		if (f >= 0 && (best < 0 || x->ev[f].ts >= x->ev[best].ts)) {
			best = f;
			x->overwritten_cpu = i;
		}
	}
	if (best >= 0 && x->ev[best].missed != FMT_MISSED_UNKNOWN)
		x->ev[best].missed += x->overwritten;
}

static struct stream *stream_of(struct fmt_reader *r, int cpu)
{
	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].cpu == cpu)
			return &r->streams[i];
	return NULL;
}

static int text_open(struct fmt_reader *r, struct err_msg *err)
{
	struct text *x = calloc(1, sizeof(*x));

	if (!x)
		return FAIL("out of memory");
	r->be_priv = x;
	x->stack_ev = -1;
	r->info.long_size = 8;
	r->info.page_size = 4096;
	if (fmt_events_init_tep(r, err) || each_line(r, x, err, survey_line) ||
	    add_formats(r, x, err))
		return -1;
	/* without printed times, clocks start where the longest call fits before */
	x->base = x->abs_times ? 0 : x->base + 1000000;
	for (int i = 0; i < x->ncpus_alloc; i++)
		x->cpus[i].now = x->base;
	if (each_line(r, x, err, take_line))
		return -1;
	if (register_funcs(r, x, err) || make_info(r, x, err))
		return -1;
	count_overwritten(x);
	if (x->nev)
		qsort(x->ev, x->nev, sizeof(*x->ev), cmp_ev);
	register_comms(r, x);
	make_lacks(x, r);
	return 0;
}

static int text_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	struct text *x = r->be_priv;
	const struct tev *e;
	const uint8_t *d;
	struct stream *s;

	if (x->next >= x->nev)
		return 0;
	e = &x->ev[x->next++];
	d = x->arena + e->off;
	memset(ev, 0, sizeof(*ev));
	ev->ts = e->ts;
	ev->data = d;
	ev->size = e->size;
	ev->cpu = e->cpu;
	memcpy(&ev->type, d, 2);
	memcpy(&ev->pid, d + 4, 4);
	ev->flags = d[2];
	ev->preempt = d[3];
	ev->event = fmt_events_format(r, ev->type);
	if (!ev->event)
		return FAIL("event %d: its format does not parse", ev->type);
	ev->missed = e->missed;
	s = stream_of(r, e->cpu);
	if (s) {
		s->st.events++;
		if (e->missed == FMT_MISSED_UNKNOWN)
			s->st.lost_uncounted++;
		else
			s->st.lost += e->missed;
		s->st.lost_marks += e->missed != 0;
	}
	return 1;
}

static void text_close(struct fmt_reader *r)
{
	struct text *x = r->be_priv;

	if (!x)
		return;
	free(x->arena);
	free(x->ev);
	free(x->cpus);
	for (int i = 0; i < x->nstacks; i++)
		free(x->stacks[i].f);
	free(x->stacks);
	free(x->stack_slots);
	for (int i = 0; i < x->nfuncs; i++) {
		free(x->funcs[i].name);
		free(x->funcs[i].mod);
		for (int k = 0; k < x->funcs[i].nparams; k++)
			free((char *)x->funcs[i].params[k].name);
		free(x->funcs[i].params);
	}
	free(x->funcs);
	free(x->func_slots);
	for (int i = 0; i < x->ndyn; i++) {
		free(x->dyn[i].name);
		free(x->dyn[i].text);
		free(x->dyn[i].layout);
	}
	free(x->dyn);
	free(x->sites);
	free(x);
	r->be_priv = NULL;
}

/*
 * A first line that names the format: "# tracer: function_graph", "function"
 * or "nop" (@mine set to 1); trace-cmd report's "cpus=N" is taken (1) when
 * a report line follows. False when the line says nothing either way.
 */
static bool header_says(const char *p, const char *e, const char *end, int *mine)
{
	const char *nl;
	struct tline l;
	const char *why;

	if (e - p >= 10 && !memcmp(p, "# tracer: ", 10)) {
		/* and the latency tracers, to say their lines are not read */
		static const char *const mine_[] = {"function_graph", "function", "nop",
						    "irqsoff", "preemptoff", "preemptirqsoff",
						    "wakeup", "wakeup_rt", "wakeup_dl"};
		const char *w = p + 10, *we = w;
		while (we < e && *we != ' ' && *we != '\r')
			we++;
		for (size_t i = 0; i < sizeof(mine_) / sizeof(mine_[0]); i++)
			if ((size_t)(we - w) == strlen(mine_[i]) && !memcmp(w, mine_[i], we - w))
				return *mine = 1, true;
		/* another tracer (blk, a latency tracer): its lines decide */
		return false;
	}
	if (e - p < 6 || memcmp(p, "cpus=", 5) || tline_parse(p, (int)(e - p), &l, &why) ||
	    l.kind != TL_HEADER)
		return false;
	/* the next line: trace-cmd report's first event */
	if (e >= end)
		return false;
	nl = e + 1;
	e = memchr(nl, '\n', end - nl < PROBE_LINE_MAX ? end - nl : PROBE_LINE_MAX);
	*mine = e && !tline_parse(nl, (int)(e - nl), &l, &why) && l.kind != TL_HEADER &&
		l.kind != TL_BLANK;
	return *mine;
}

/*
 * Is this ftrace text? A first line "# tracer: function_graph", "function" or
 * "nop" says so (another tracer's lines must be of the grammar); so does
 * "cpus=N" before a trace-cmd report
 * line. Without them (trace_pipe, a pasted excerpt), the first lines that
 * are not blank or headers must all be lines of the grammar, and one of
 * them a call, return, comment or event.
 */
static bool text_probe(const uint8_t *p8, uint64_t len)
{
	const char *p = (const char *)p8, *end = p + (len < PROBE_BYTES ? len : PROBE_BYTES);
	int good = 0, events = 0;
	struct tline l;
	const char *why;

	while (p < end && good < PROBE_LINES) {
		const char *nl = memchr(p, '\n', end - p);
		const char *e = nl ? nl : end;

		if (!nl && end < (const char *)p8 + len)
			break; /* a line cut by the probe's window */
		if (!good && header_says(p, e, end, &events))
			return events > 0;
		if (tline_parse(p, (int)(e - p), &l, &why))
			return false;
		if (l.kind != TL_BLANK && l.kind != TL_HEADER)
			good++;
		events += is_event_line(l.kind) || l.kind == TL_SWITCH;
		p = nl ? nl + 1 : end;
	}
	return events > 0;
}

/* The parameters of the function at made-up address @addr, as its calls printed them. */
static bool text_func_params(const struct fmt_reader *r, uint64_t addr,
			     const struct fmt_param **p, int *n)
{
	const struct text *x = r->be_priv;
	uint64_t i = (addr - TEXT_FUNC_BASE) / 16;

	if (!x || addr < TEXT_FUNC_BASE || addr % 16 || i >= (uint64_t)x->nfuncs ||
	    !x->funcs[i].params_set)
		return false;
	*p = x->funcs[i].params;
	*n = x->funcs[i].nparams;
	return true;
}

const struct fmt_backend fmt_text_backend = {
	.name = "ftrace text",
	.probe = text_probe,
	.open = text_open,
	.next = text_next,
	.close = text_close,
	.func_params = text_func_params,
};
