// SPDX-License-Identifier: MIT
/*
 * darc export --perfetto: Perfetto's own trace format, protobuf messages
 * (google/perfetto's protos/perfetto/trace/; the few darc writes are in
 * tests/perfetto/trace-subset.proto) encoded here by hand, one TracePacket
 * after another, as a Trace file is:
 *
 *   - a track per process and thread (TrackDescriptor), a slice per
 *     complete call on its thread's track (TrackEvent begin and end, the
 *     function's name interned once), its id, CPU, flags and the parts of
 *     its latency that are not 0 as debug annotations; the calls traced in
 *     interrupt context on a track per CPU;
 *   - each task's off-CPU intervals as thread states
 *     (GenericKernelTaskStateEvent: switched out S, D, ... or R when
 *     preempted, runnable at its wake-up, running again on a CPU), from which
 *     Perfetto makes its thread-state and CPU tracks;
 *   - each wake-up that ended a sleep as a flow, from an instant on the
 *     waker's track (a task's, or its CPU's interrupts) to one on the woken
 *     thread's where it runs again;
 *   - the interrupts, a track per CPU;
 *   - darc explain's findings as stored in the database (explain_subject,
 *     explain_cause): a track per slow part, one slice from its first slow
 *     call to its last with each cause's sentence, and every slow call
 *     marked (category darc.slow, annotation "darc").
 *
 * The calls come each task's in the order of entry (export-calls.h). A nested
 * message is written after room for its length, then moved up to the
 * bytes its length takes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export-calls.h"
#include "hist.h"
#include "perfetto.h"
#include "vis.h"

/* ---- protobuf -------------------------------------------------------------- */

/* A message being encoded. */
struct pb {
	uint8_t *b;
	size_t n, cap;
	bool oom; /* a write did not fit and memory ran out: the message is lost */
};

static bool pb_room(struct pb *p, size_t n)
{
	if (p->n + n <= p->cap)
		return true;
	size_t cap = 2 * (p->n + n) + 256;
	uint8_t *b = realloc(p->b, cap);
	if (!b) {
		p->oom = true;
		return false;
	}
	p->b = b;
	p->cap = cap;
	return true;
}

/* @v as a varint at @b (10 bytes of room): how many bytes it took. */
static inline size_t varint_at(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

static inline void pb_varint(struct pb *p, uint64_t v)
{
	if (p->n + 10 <= p->cap || pb_room(p, 10))
		p->n += varint_at(p->b + p->n, v);
}

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

static void pb_tag(struct pb *p, int field, int wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

/* A varint field (uint, int32 and int64 alike: a negative int is ten bytes). */
static void pb_uint(struct pb *p, int field, uint64_t v)
{
	pb_tag(p, field, WT_VARINT);
	pb_varint(p, v);
}

static void pb_fixed64(struct pb *p, int field, uint64_t v)
{
	pb_tag(p, field, WT_I64);
	if (!pb_room(p, 8))
		return;
	for (int i = 0; i < 8; i++)
		p->b[p->n++] = (uint8_t)(v >> 8 * i);
}

/* A string field: @s as text output shows it (vis.h), so always valid UTF-8. */
static void pb_str(struct pb *p, int field, const char *s)
{
	const char *v = vis(s ? s : "");
	size_t n = strlen(v);

	pb_tag(p, field, WT_LEN);
	pb_varint(p, n);
	if (pb_room(p, n)) {
		memcpy(p->b + p->n, v, n);
		p->n += n;
	}
}

/* Open a nested message: room for its length (up to 4 bytes, pb_close()) after the tag. */
static size_t pb_open(struct pb *p, int field)
{
	pb_tag(p, field, WT_LEN);
	if (pb_room(p, 4))
		p->n += 4;
	return p->n;
}

/* Close the message opened at @at: its length before it, the bytes it needs (the rest moved up). */
static void pb_close(struct pb *p, size_t at)
{
	size_t len = p->n - at, k = len < 1u << 7 ? 1 : len < 1u << 14 ? 2 : len < 1u << 21 ? 3 : 4;

	if (p->oom || len >= 1u << 28) {
		p->oom = true;
		return;
	}
	for (size_t i = 0; i < k; i++)
		p->b[at - 4 + i] = (uint8_t)((len >> 7 * i) & 0x7f) | (i + 1 < k ? 0x80 : 0);
	memmove(p->b + at - 4 + k, p->b + at, len);
	p->n -= 4 - k;
}

/* ---- the export ------------------------------------------------------------ */

/* TracePacket's fields (trace_packet.proto) and the messages' darc writes. */
enum {
	TP_TIMESTAMP = 8, TP_SEQUENCE = 10, TP_TRACK_EVENT = 11, TP_INTERNED = 12, TP_FLAGS = 13,
	TP_TRACK_DESCRIPTOR = 60, TP_TASK_STATE = 117,
	SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2,
	TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11,
	TE_NAME = 23, TE_FLOW = 47, TE_FLOW_END = 48,
	TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3,
};

/* The one sequence of packets (trusted_packet_sequence_id): its interned names are one set. */
#define SEQUENCE 1

/* Track uuids: a task, process or CPU number times 8 plus the kind (short varints). */
#define UUID(kind, n) ((uint64_t)(n) * 8 + (kind))
enum { U_PROCESS = 1, U_THREAD, U_IRQ, U_IRQ_CALLS, U_INTERRUPTS, U_DARC, U_FINDING };

/* Interned categories and annotation names, given in the first packet. */
enum { CAT_CALL = 1, CAT_SLOW, CAT_IRQ, CAT_WAKE, CAT_DARC };
static const char *const category[] = {NULL, "call", "darc.slow", "irq", "wakeup", "darc"};
enum { AN_CALL = 1, AN_CPU, AN_EXCL, AN_CHILDREN, AN_IRQ, AN_SOFTIRQ, AN_PREEMPT, AN_BLOCKED,
       AN_FLAGS, AN_DARC };
static const char *const annotation[] = {NULL,	     "call",	     "cpu",	   "excl_ns",
					 "children_ns", "irq_ns",	     "softirq_ns", "preempt_ns",
					 "blocked_ns",	"flags",	     "darc"};

/* A task: its track (and its process's), described the first time it is used. */
struct ptask {
	int64_t tid, pid; /* tid first: export_by_tid() */
	char *comm;	  /* as stored */
	bool described;
	struct xstack st; /* its open calls */
};

/* A CPU's tracks: its interrupts and its calls in interrupt context. */
struct pcpu {
	bool irq_described, calls_described;
	struct xstack st;
};

/* A slow part darc explain stored (explain_subject), and its causes. */
struct finding {
	int64_t fnode;
	int lo, hi;	     /* its buckets */
	char *label;	     /* "vfs_read(): slow peak, buckets 18-22 (5500 calls, 90% of ...)" */
	char **cause;	     /* the sentences, largest first */
	int ncause;
	int64_t first, last; /* its first slow call's entry, its last one's exit */
	int64_t calls;	     /* slow calls seen */
};

struct pf {
	struct obuf *ob;
	struct pb pkt;	 /* the packet being made */
	struct rdb *db;
	const struct report_options *o;
	bool owner;	 /* the calls of the fnodes in sel_fnode only */
	struct ptask *task; /* sorted by tid */
	int ntask;
	struct pcpu *cpu;
	int ncpu;
	char **func; /* by func.id: the name as stored */
	int64_t nfunc;
	uint8_t *interned; /* by func.id: its EventName was written */
	struct finding *find;
	int nfind;
	char *flag[8];	 /* call_flag names by bit */
	bool interrupts_described; /* the group track of the CPUs' */
	/* calls written; left out: no time, cannot nest; on a CPU out of reason (with
	   interrupts and wake-ups); off-CPU intervals without a state; wake-up flows */
	int64_t calls, incomplete, unnested, no_cpu, no_state, wakeups;
	struct progress pg;
};

static char *copy_name(const char *s)
{
	return strdup(s ? s : "?");
}

/* Begin a packet at @ts (< 0: none), needing the sequence's interned names or not. */
static void pkt_begin(struct pf *f, int64_t ts, bool interned)
{
	f->pkt.n = 0;
	if (ts >= 0)
		pb_uint(&f->pkt, TP_TIMESTAMP, (uint64_t)ts);
	pb_uint(&f->pkt, TP_SEQUENCE, SEQUENCE);
	if (interned)
		pb_uint(&f->pkt, TP_FLAGS, SEQ_NEEDS_STATE);
}

/* The packet, as Trace's field 1, to the output. 0, or -1 out of memory. */
static int pkt_end(struct pf *f)
{
	uint8_t head[11] = {1 << 3 | WT_LEN};

	if (f->pkt.oom)
		return -1;
	export_out_mem(f->ob, head, 1 + varint_at(head + 1, f->pkt.n));
	export_out_mem(f->ob, f->pkt.b, f->pkt.n);
	return 0;
}

/* The first packet: the incremental state begins, with the categories and annotation names. */
static int intern_defaults(struct pf *f)
{
	size_t data, e;

	f->pkt.n = 0;
	pb_uint(&f->pkt, TP_SEQUENCE, SEQUENCE);
	pb_uint(&f->pkt, TP_FLAGS, SEQ_CLEARED);
	data = pb_open(&f->pkt, TP_INTERNED);
	for (int i = 1; i <= CAT_DARC; i++) {
		e = pb_open(&f->pkt, 1); /* event_categories */
		pb_uint(&f->pkt, 1, i);
		pb_str(&f->pkt, 2, category[i]);
		pb_close(&f->pkt, e);
	}
	for (int i = 1; i <= AN_DARC; i++) {
		e = pb_open(&f->pkt, 3); /* debug_annotation_names */
		pb_uint(&f->pkt, 1, i);
		pb_str(&f->pkt, 2, annotation[i]);
		pb_close(&f->pkt, e);
	}
	pb_close(&f->pkt, data);
	return pkt_end(f);
}

/* A track with a name (@parent 0: at the top), its @description or NULL. */
static int describe(struct pf *f, uint64_t uuid, uint64_t parent, const char *name,
		    const char *description)
{
	size_t td;

	pkt_begin(f, -1, false);
	td = pb_open(&f->pkt, TP_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, 1, uuid);
	if (parent)
		pb_uint(&f->pkt, 5, parent);
	pb_str(&f->pkt, 2, name);
	if (description)
		pb_str(&f->pkt, 14, description);
	pb_close(&f->pkt, td);
	return pkt_end(f);
}

static struct ptask *find_task(struct pf *f, int64_t tid)
{
	return bsearch(&tid, f->task, f->ntask, sizeof(*f->task), export_by_tid);
}

/*
 * Task @t's track, described the first time (its process first, named after
 * its leader, the task whose tid is the pid, where the recording has it).
 */
static int task_track(struct pf *f, struct ptask *t)
{
	const struct ptask *leader = find_task(f, t->pid);
	size_t td, d;

	if (t->described)
		return 0;
	t->described = true;
	pkt_begin(f, -1, false);
	td = pb_open(&f->pkt, TP_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, 1, UUID(U_PROCESS, t->pid));
	d = pb_open(&f->pkt, 3);
	pb_uint(&f->pkt, 1, (uint64_t)t->pid);
	pb_str(&f->pkt, 6, (leader ? leader : t)->comm);
	pb_close(&f->pkt, d);
	pb_close(&f->pkt, td);
	if (pkt_end(f))
		return -1;
	pkt_begin(f, -1, false);
	td = pb_open(&f->pkt, TP_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, 1, UUID(U_THREAD, t->tid));
	d = pb_open(&f->pkt, 4);
	pb_uint(&f->pkt, 1, (uint64_t)t->pid);
	pb_uint(&f->pkt, 2, (uint64_t)t->tid);
	pb_str(&f->pkt, 5, t->comm);
	pb_close(&f->pkt, d);
	pb_close(&f->pkt, td);
	return pkt_end(f);
}

/* CPU @cpu's state (0..65535), the array grown to it. NULL out of memory. */
static struct pcpu *cpu_of(struct pf *f, int64_t cpu)
{
	if (cpu >= f->ncpu) {
		struct pcpu *a = realloc(f->cpu, (cpu + 1) * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + f->ncpu, 0, (cpu + 1 - f->ncpu) * sizeof(*a));
		f->cpu = a;
		f->ncpu = (int)cpu + 1;
	}
	return &f->cpu[cpu];
}

/*
 * CPU @cpu's interrupts track (@calls: its calls in interrupt context),
 * described once: 0; 1 for a CPU number out of reason (counted: what is
 * on it is left out); -1 out of memory.
 */
static int cpu_track(struct pf *f, int64_t cpu, bool calls, uint64_t *uuid)
{
	struct pcpu *c = cpu < 0 || cpu > 65535 ? NULL : cpu_of(f, cpu);
	bool *done;
	char name[48];

	if (!c)
		return cpu < 0 || cpu > 65535 ? (f->no_cpu++, 1) : -1;
	if (!f->interrupts_described) { /* the group of the CPUs' tracks */
		f->interrupts_described = true;
		if (describe(f, UUID(U_INTERRUPTS, 0), 0, "interrupts", NULL))
			return -1;
	}
	done = calls ? &c->calls_described : &c->irq_described;
	*uuid = UUID(calls ? U_IRQ_CALLS : U_IRQ, cpu);
	if (*done)
		return 0;
	*done = true;
	snprintf(name, sizeof(name), calls ? "cpu %d calls in interrupts" : "cpu %d interrupts",
		 (int)cpu);
	return describe(f, *uuid, UUID(U_INTERRUPTS, 0), name, NULL);
}

/* ---- the calls --------------------------------------------------------------- */

/* A debug annotation of an interned name: an integer, or a string (@s not NULL). */
static void annotate(struct pb *p, int name, int64_t v, const char *s)
{
	size_t a = pb_open(p, TE_ANNOTATIONS);

	pb_uint(p, 1, name);
	if (s)
		pb_str(p, 6, s);
	else
		pb_uint(p, 4, (uint64_t)v);
	pb_close(p, a);
}

/* The slow part darc explain found call @k in, or NULL. */
static struct finding *slow_part_of(struct pf *f, const struct xcall *k)
{
	for (int i = 0; i < f->nfind; i++) {
		struct finding *x = &f->find[i];
		int b;
		if (x->fnode != k->fnode)
			continue;
		b = hist_bucket(k->ns[0] > 0 ? (uint64_t)k->ns[0] : 0, 1);
		if (b >= x->lo && b <= x->hi)
			return x;
	}
	return NULL;
}

/* @k's flags as "hardirq|softirq" into @buf. */
static void flag_text(struct pf *f, int64_t flags, char *buf, size_t n)
{
	buf[0] = 0;
	for (int b = 0; b < 8; b++)
		if (flags & (1 << b))
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "|" : "",
				 f->flag[b] ? f->flag[b] : "?");
}

/* The function's EventName, in this packet if it was never written. */
static void intern_func(struct pf *f, int64_t func)
{
	size_t data, e;

	if (func < 0 || func >= f->nfunc || f->interned[func])
		return;
	f->interned[func] = 1;
	data = pb_open(&f->pkt, TP_INTERNED);
	e = pb_open(&f->pkt, 2); /* event_names */
	pb_uint(&f->pkt, 1, (uint64_t)func + 1);
	pb_str(&f->pkt, 2, f->func[func] ? f->func[func] : "?");
	pb_close(&f->pkt, e);
	pb_close(&f->pkt, data);
}

/* Call @k's slice begins on track @uuid. */
static int slice_begin(struct pf *f, uint64_t uuid, const struct xcall *k)
{
	struct finding *slow = slow_part_of(f, k);
	char flags[128];
	size_t te;

	pkt_begin(f, k->t_entry, true);
	intern_func(f, k->func);
	te = pb_open(&f->pkt, TP_TRACK_EVENT);
	pb_uint(&f->pkt, TE_TYPE, TYPE_BEGIN);
	pb_uint(&f->pkt, TE_TRACK, uuid);
	pb_uint(&f->pkt, TE_NAME_IID, (uint64_t)k->func + 1);
	pb_uint(&f->pkt, TE_CATEGORY_IIDS, slow ? CAT_SLOW : CAT_CALL);
	annotate(&f->pkt, AN_CALL, k->id, NULL);
	annotate(&f->pkt, AN_CPU, k->cpu, NULL);
	for (int i = 1; i < 7; i++)
		if (k->ns[i])
			annotate(&f->pkt, AN_EXCL + i - 1, k->ns[i], NULL);
	if (k->flags) {
		flag_text(f, k->flags, flags, sizeof(flags));
		annotate(&f->pkt, AN_FLAGS, 0, flags);
	}
	if (slow) {
		annotate(&f->pkt, AN_DARC, 0, slow->label);
		if (!slow->calls++ || k->t_entry < slow->first)
			slow->first = k->t_entry;
		slow->last = k->t_exit > slow->last ? k->t_exit : slow->last;
	}
	pb_close(&f->pkt, te);
	return pkt_end(f);
}

/* export_stack_end: call @k's slice ends on its track (@uuid points at the track's uuid). */
static int slice_end(void *x, void *uuid, const struct xcall *k)
{
	struct pf *f = x;
	size_t te;

	pkt_begin(f, k->t_exit, true);
	te = pb_open(&f->pkt, TP_TRACK_EVENT);
	pb_uint(&f->pkt, TE_TYPE, TYPE_END);
	pb_uint(&f->pkt, TE_TRACK, *(uint64_t *)uuid);
	pb_close(&f->pkt, te);
	return pkt_end(f);
}

/* Call @k on its thread's track, or its CPU's for a call in interrupt context. 0 or -1. */
static int put_call(struct pf *f, const struct xcall *k)
{
	struct ptask *t = k->irq ? NULL : find_task(f, k->task);
	struct xstack *st;
	uint64_t uuid;
	int rc;

	if (k->irq) {
		if ((rc = cpu_track(f, k->cpu, true, &uuid)))
			return rc < 0 ? -1 : 0;
		st = &f->cpu[k->cpu].st;
	} else {
		if (!t)
			return 0; /* a task the task table lacks (a damaged database) */
		if (task_track(f, t))
			return -1;
		st = &t->st;
		uuid = UUID(U_THREAD, t->tid);
	}
	rc = export_stack_push(st, k, slice_end, f, &uuid);
	if (rc <= 0) {
		f->unnested += !rc;
		return rc;
	}
	f->calls++;
	return slice_begin(f, uuid, k);
}

/* Every open slice ends, at the end. */
static int end_all(struct pf *f)
{
	uint64_t uuid;

	for (int i = 0; i < f->ntask; i++) {
		uuid = UUID(U_THREAD, f->task[i].tid);
		if (export_stack_pop(&f->task[i].st, INT64_MAX, 0, slice_end, f, &uuid))
			return -1;
	}
	for (int i = 0; i < f->ncpu; i++) {
		uuid = UUID(U_IRQ_CALLS, i);
		if (export_stack_pop(&f->cpu[i].st, INT64_MAX, 0, slice_end, f, &uuid))
			return -1;
	}
	return 0;
}

static int perfetto_calls(struct pf *f)
{
	struct xstream s;
	struct xcall k;
	int rc;

	if (export_stream_open(&s, f->db, f->o, f->owner, &f->pg))
		return -1;
	while ((rc = export_stream_next(&s, &k)) == 1) {
		if (!k.complete) {
			f->incomplete++; /* no time to show it at: left out */
			continue;
		}
		if (put_call(f, &k)) {
			rc = -1;
			break;
		}
		if (!(f->calls & 0xfff) && progress_due(&f->pg))
			progress_show(&f->pg, "%.1f M calls", f->calls / 1e6);
	}
	export_stream_close(&s);
	return rc || end_all(f) ? -1 : 0;
}

/* ---- thread states, wake-ups, interrupts --------------------------------- */

enum { TS_RUNNABLE = 2, TS_RUNNING = 3, TS_SLEEP = 4, TS_DISK_SLEEP = 5, TS_STOPPED = 6,
       TS_DEAD = 7 };

/*
 * The state a task was switched out in, from sched_switch's prev_state
 * (the kernel's report bits: S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I 128);
 * I (an idle kernel thread's sleep, uninterruptible but not counted in the
 * load) is D, P (a parked kernel thread) stopped. 0 when unknown.
 */
static int out_state(int kind, sqlite3_stmt *st, int col)
{
	int64_t s = sqlite3_column_int64(st, col);

	if (kind == 0)
		return TS_RUNNABLE; /* preempted */
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if (s & (2 | 128))
		return TS_DISK_SLEEP;
	if (s & 1)
		return TS_SLEEP;
	if (s & (4 | 8 | 64))
		return TS_STOPPED;
	if (s & (16 | 32))
		return TS_DEAD;
	return 0;
}

/* A GenericKernelTaskStateEvent: task @t in @state at @ts (on @cpu when running). */
static int task_state(struct pf *f, const struct ptask *t, int64_t ts, int64_t cpu, int state)
{
	size_t e;

	pkt_begin(f, ts, false);
	e = pb_open(&f->pkt, TP_TASK_STATE);
	pb_uint(&f->pkt, 1, (uint64_t)cpu);
	pb_str(&f->pkt, 2, t->comm);
	pb_uint(&f->pkt, 3, (uint64_t)t->tid);
	pb_uint(&f->pkt, 4, state);
	pb_close(&f->pkt, e);
	return pkt_end(f);
}

/* An instant on track @uuid at @ts named @name, starting (@end false) or ending flow @flow. */
static int flow_instant(struct pf *f, uint64_t uuid, int64_t ts, const char *name,
			uint64_t flow, bool end)
{
	size_t te;

	pkt_begin(f, ts, true);
	te = pb_open(&f->pkt, TP_TRACK_EVENT);
	pb_uint(&f->pkt, TE_TYPE, TYPE_INSTANT);
	pb_uint(&f->pkt, TE_TRACK, uuid);
	pb_uint(&f->pkt, TE_CATEGORY_IIDS, CAT_WAKE);
	pb_str(&f->pkt, TE_NAME, name);
	pb_fixed64(&f->pkt, end ? TE_FLOW_END : TE_FLOW, flow);
	pb_close(&f->pkt, te);
	return pkt_end(f);
}

/* Columns of states_sql. */
enum { S_TASK, S_KIND, S_STATE, S_CPU_OUT, S_CPU_IN, S_OUT, S_IN, S_WAKE, S_WAKE_T, S_WAKER,
       S_WAKER_CPU, S_CTX, S_HANDLER, S_CTX_NAME };

/*
 * Wake-up @st (a row of states_sql) of task @t, which ran again at t_in: a
 * flow from the waker (its task's track, or its CPU's interrupts) to @t.
 */
static int wake_flow(struct pf *f, sqlite3_stmt *st, struct ptask *t)
{
	struct ptask *w = find_task(f, sqlite3_column_int64(st, S_WAKER));
	int64_t ctx = sqlite3_column_int64(st, S_CTX), id = sqlite3_column_int64(st, S_WAKE);
	const char *handler = rdb_text(st, S_HANDLER);
	char name[160], by[128];
	uint64_t uuid;

	int rc;

	if (ctx) { /* an interrupt woke it */
		if ((rc = cpu_track(f, sqlite3_column_int64(st, S_WAKER_CPU), false, &uuid)))
			return rc < 0 ? -1 : 0;
		snprintf(by, sizeof(by), "%s%s%s on cpu %lld", vis(rdb_text(st, S_CTX_NAME)),
			 *handler ? " " : "", vis(handler), sqlite3_column_int64(st, S_WAKER_CPU));
	} else if (w) {
		if (task_track(f, w))
			return -1;
		uuid = UUID(U_THREAD, w->tid);
		snprintf(by, sizeof(by), "%s [%" PRId64 "]", vis(w->comm), w->tid);
	} else {
		return 0; /* no waker recorded */
	}
	snprintf(name, sizeof(name), "wakes %s [%" PRId64 "]", vis(t->comm), t->tid);
	if (flow_instant(f, uuid, sqlite3_column_int64(st, S_WAKE_T), name, (uint64_t)id, false))
		return -1;
	snprintf(name, sizeof(name), "woken by %s", by);
	f->wakeups++;
	return flow_instant(f, UUID(U_THREAD, t->tid), sqlite3_column_int64(st, S_IN), name,
			    (uint64_t)id, true);
}

/* One off-CPU interval (a row of states_sql): out, runnable at its wake-up, running again. */
static int off_cpu(struct pf *f, sqlite3_stmt *st)
{
	struct ptask *t = find_task(f, sqlite3_column_int64(st, S_TASK));
	int state = out_state(sqlite3_column_int(st, S_KIND), st, S_STATE);
	bool back = sqlite3_column_type(st, S_IN) != SQLITE_NULL;
	bool woken = sqlite3_column_type(st, S_WAKE_T) != SQLITE_NULL;

	if (!t)
		return 0;
	if (!state) {
		f->no_state++; /* no state to show: Perfetto would take the sleep for running */
		return 0;
	}
	if (task_track(f, t) ||
	    task_state(f, t, sqlite3_column_int64(st, S_OUT), sqlite3_column_int64(st, S_CPU_OUT),
		       state) ||
	    (woken && state != TS_RUNNABLE &&
	     task_state(f, t, sqlite3_column_int64(st, S_WAKE_T),
			sqlite3_column_int64(st, back ? S_CPU_IN : S_CPU_OUT), TS_RUNNABLE)) ||
	    (back && task_state(f, t, sqlite3_column_int64(st, S_IN),
				sqlite3_column_int64(st, S_CPU_IN), TS_RUNNING)))
		return -1;
	return woken && back ? wake_flow(f, st, t) : 0;
}

/*
 * Each row of @q (its %s the filters on @task_col and @time_col; with
 * --func and the like, the rows whose call_id is in the selection) through
 * @row. 0 or -1.
 */
static int each_row(struct pf *f, const char *q, const char *task_col, const char *time_col,
		    int (*row)(struct pf *f, sqlite3_stmt *st))
{
	char sql[1536];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "%s%s", q,
		 f->owner ? " AND call_id IN (SELECT id FROM call_base WHERE fnode_id IN sel_fnode)"
			  : "");
	if (!(st = export_prepare(f->db, f->o, sql, task_col, time_col)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (row(f, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int perfetto_states(struct pf *f)
{
	return each_row(f,
			"SELECT s.task_id, s.kind, s.state, s.cpu_out, s.cpu_in, s.t_out, s.t_in,"
			" w.id, w.t, w.waker_tid, w.waker_cpu, w.ctx, w.handler, x.name"
			" FROM sched_interval s LEFT JOIN wakeup w ON w.id = s.wakeup_id"
			" LEFT JOIN wakeup_ctx x ON x.ctx = w.ctx WHERE %s",
			"s.task_id", "s.t_out", off_cpu);
}

/* An interrupt: a slice on its CPU's track, begun and ended. */
static int interrupt(struct pf *f, sqlite3_stmt *st)
{
	uint64_t uuid;
	size_t te;
	int rc = cpu_track(f, sqlite3_column_int64(st, 0), false, &uuid);

	if (rc)
		return rc < 0 ? -1 : 0;
	for (int end = 0; end < 2; end++) {
		pkt_begin(f, sqlite3_column_int64(st, 2 + end), true);
		te = pb_open(&f->pkt, TP_TRACK_EVENT);
		pb_uint(&f->pkt, TE_TYPE, end ? TYPE_END : TYPE_BEGIN);
		pb_uint(&f->pkt, TE_TRACK, uuid);
		if (!end) {
			pb_uint(&f->pkt, TE_CATEGORY_IIDS, CAT_IRQ);
			pb_str(&f->pkt, TE_NAME, rdb_text(st, 1));
		}
		pb_close(&f->pkt, te);
		if (pkt_end(f))
			return -1;
	}
	return 0;
}

static int perfetto_irqs(struct pf *f)
{
	return each_row(f,
			"SELECT i.cpu, k.name || coalesce(' ' || i.irq, '') ||"
			" coalesce(' ' || i.name, ''), i.t_start, i.t_end FROM irq_interval i"
			" JOIN irq_kind k USING (kind) WHERE i.t_end IS NOT NULL AND %s",
			"i.task_id", "i.t_start", interrupt);
}

/* ---- darc explain's findings ------------------------------------------------ */

/* The latest explanation of each (entry point, part), in the order explain ranked them. */
static const char findings_sql[] =
    "SELECT s.search_id, s.fnode_id, s.lo, s.hi, s.title, s.how, s.slow_calls, s.share"
    " FROM explain_subject s WHERE s.search_id IN (SELECT max(search_id) FROM explain_subject"
    " GROUP BY fnode_id, part) ORDER BY s.rank, s.part";

/* The causes of search @search into @x. 0 or -1. */
static int load_causes(struct pf *f, int64_t search, struct finding *x)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(rdb_sql(f->db),
			       "SELECT sentence FROM explain_cause WHERE search_id = ?1 ORDER BY rank",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, search);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **a = realloc(x->cause, (x->ncause + 1) * sizeof(*a));
		if (!a || !(a[x->ncause] = copy_name(rdb_text(st, 0)))) {
			x->cause = a ? a : x->cause;
			rc = SQLITE_NOMEM;
			break;
		}
		x->cause = a;
		x->ncause++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_findings(struct pf *f)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(rdb_sql(f->db), findings_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct finding *a = realloc(f->find, (f->nfind + 1) * sizeof(*a)), *x;
		const char *how = rdb_text(st, 5);
		if (!a) {
			rc = SQLITE_NOMEM;
			break;
		}
		f->find = a;
		x = memset(&a[f->nfind++], 0, sizeof(*x));
		x->fnode = sqlite3_column_int64(st, 1);
		x->lo = sqlite3_column_int(st, 2);
		x->hi = sqlite3_column_int(st, 3);
		if (asprintf(&x->label, "%s: %s, buckets %d-%d (%lld calls, %.0f%% of its latency)",
			     rdb_text(st, 4),
			     !strcmp(how, "peak")   ? "slow peak"
			     : !strcmp(how, "tail") ? "slow tail"
						    : "typical calls",
			     x->lo, x->hi, sqlite3_column_int64(st, 6),
			     100 * sqlite3_column_double(st, 7)) < 0) {
			x->label = NULL;
			rc = SQLITE_NOMEM;
			break;
		}
		if (load_causes(f, sqlite3_column_int64(st, 0), x)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Each finding whose slow calls are in the export: a slice over them, its causes as annotations. */
static int put_findings(struct pf *f)
{
	for (int i = 0; i < f->nfind; i++) {
		struct finding *x = &f->find[i];
		char name[24];
		size_t te, a;
		if (!x->calls)
			continue;
		snprintf(name, sizeof(name), "finding %d", i + 1);
		if (describe(f, UUID(U_FINDING, i), UUID(U_DARC, 0), name, x->label))
			return -1;
		for (int end = 0; end < 2; end++) {
			pkt_begin(f, end ? x->last : x->first, true);
			te = pb_open(&f->pkt, TP_TRACK_EVENT);
			pb_uint(&f->pkt, TE_TYPE, end ? TYPE_END : TYPE_BEGIN);
			pb_uint(&f->pkt, TE_TRACK, UUID(U_FINDING, i));
			for (int c = 0; !end && c < x->ncause; c++) {
				char key[24];
				snprintf(key, sizeof(key), "cause %d", c + 1);
				a = pb_open(&f->pkt, TE_ANNOTATIONS);
				pb_str(&f->pkt, 10, key);
				pb_str(&f->pkt, 6, x->cause[c]);
				pb_close(&f->pkt, a);
			}
			if (!end) {
				pb_uint(&f->pkt, TE_CATEGORY_IIDS, CAT_DARC);
				pb_str(&f->pkt, TE_NAME, x->label);
			}
			pb_close(&f->pkt, te);
			if (pkt_end(f))
				return -1;
		}
	}
	return 0;
}

/* ---- loading and the whole --------------------------------------------------- */

static int load_tasks(struct pf *f)
{
	struct xtask *x;
	int rc = export_load_tasks(rdb_sql(f->db), copy_name, &x, &f->ntask);

	f->task = calloc(f->ntask + 1, sizeof(*f->task));
	for (int i = 0; i < f->ntask; i++) {
		if (f->task)
			f->task[i] = (struct ptask){.tid = x[i].tid, .pid = x[i].pid, .comm = x[i].name};
		else
			free(x[i].name);
	}
	free(x);
	if (!f->task)
		f->ntask = 0;
	return rc || !f->task ? -1 : 0;
}

static void pf_release(struct pf *f)
{
	progress_end(&f->pg);
	for (int i = 0; i < f->ntask; i++) {
		free(f->task[i].comm);
		free(f->task[i].st.open);
	}
	for (int i = 0; i < f->ncpu; i++)
		free(f->cpu[i].st.open);
	for (int i = 0; i < f->nfind; i++) {
		for (int c = 0; c < f->find[i].ncause; c++)
			free(f->find[i].cause[c]);
		free(f->find[i].cause);
		free(f->find[i].label);
	}
	for (int b = 0; b < 8; b++)
		free(f->flag[b]);
	export_names_free(f->func, f->nfunc);
	free(f->find);
	free(f->task);
	free(f->cpu);
	free(f->interned);
	free(f->pkt.b);
	free(f->ob);
}

/* darc's track, at the end: what the export holds and left out (its findings below it). */
static int darc_track(struct pf *f)
{
	char about[640];

	snprintf(about, sizeof(about),
		 "darc export of %s: %" PRId64 " calls, %" PRId64 " wake-ups as flows; left out: %"
		 PRId64 " calls without an entry or exit, %" PRId64 " that do not nest, %" PRId64
		 " calls, interrupts and wake-ups on a CPU numbered out of reason, %" PRId64
		 " off-CPU intervals without a state; %d findings of darc explain",
		 vis(rdb_source(f->db)), f->calls, f->wakeups, f->incomplete, f->unnested, f->no_cpu,
		 f->no_state, f->nfind);
	return describe(f, UUID(U_DARC, 0), 0, "darc", about);
}

int perfetto_export(FILE *out, struct rdb *db, const struct report_options *o, bool owner,
		    struct err_msg *err)
{
	struct pf f = {.ob = malloc(sizeof(*f.ob)), .db = db, .o = o, .owner = owner};
	const char *path = rdb_path(db);
	int rc = -1;

	progress_start(&f.pg, "export", true);
	if (!f.ob || export_load_names(rdb_sql(db), copy_name, &f.func, &f.nfunc) ||
	    !(f.interned = calloc(f.nfunc + 1, 1)) || load_tasks(&f) || export_load_flags(rdb_sql(db), f.flag) ||
	    load_findings(&f)) {
		err_setf(err, path, "cannot read the functions, tasks and findings: %s",
			 rdb_why(rdb_sql(db)));
		goto out;
	}
	f.ob->out = out;
	f.ob->n = 0;
	if (intern_defaults(&f) || perfetto_calls(&f) || perfetto_states(&f) || perfetto_irqs(&f) || darc_track(&f) ||
	    put_findings(&f)) {
		err_setf(err, path, "cannot read the calls: %s", rdb_why(rdb_sql(db)));
		goto out;
	}
	export_out_flush(f.ob);
	rc = 0;
out:
	pf_release(&f);
	return rc;
}

bool perfetto_has_findings(struct rdb *db)
{
	return export_one_int(rdb_sql(db), "SELECT count(*) FROM explain_subject") > 0;
}
