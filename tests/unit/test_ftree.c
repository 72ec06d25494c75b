// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/ftree.c and analyze/hist.c: hand-written event
 * sequences in, calls and intervals out, every number checked.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "ftree.h"
#include "hist.h"
#include "pipeline.h"
#include "reader.h"
#include "tdat.h"
#include "unit-run.h"

#define MAXREC 64

static struct call_rec calls[MAXREC];
static struct irq_rec irqs[MAXREC];
static struct sched_rec scheds[MAXREC];
static struct wakeup_rec wakes[MAXREC];
static struct probe_rec probes[MAXREC];
static struct gap_rec gaps[MAXREC];
static int ncalls, nirqs, nscheds, nwakes, nprobes, ngaps;

/* the calls' strings: the sink's copies (ftree frees its own once written) */
static char *call_args[MAXREC], *call_retaddr[MAXREC];

static int on_call(void *ctx, const struct call_rec *c)
{
	ck_assert_int_lt(ncalls, MAXREC);
	call_args[ncalls] = c->args ? strdup(c->args) : NULL;
	call_retaddr[ncalls] = c->retaddr ? strdup(c->retaddr) : NULL;
	calls[ncalls] = *c;
	calls[ncalls].args = call_args[ncalls];
	calls[ncalls].retaddr = call_retaddr[ncalls];
	ncalls++;
	return 0;
}

static int on_irq(void *ctx, const struct irq_rec *r)
{
	static char names[MAXREC][64]; /* r->name is ftree's, reused */

	ck_assert_int_lt(nirqs, MAXREC);
	snprintf(names[nirqs], sizeof(names[0]), "%s", r->name ? r->name : "");
	irqs[nirqs] = *r;
	irqs[nirqs].name = names[nirqs];
	nirqs++;
	return 0;
}

static int on_sched(void *ctx, const struct sched_rec *r)
{
	ck_assert_int_lt(nscheds, MAXREC);
	scheds[nscheds++] = *r;
	return 0;
}

static int on_wakeup(void *ctx, const struct wakeup_rec *r)
{
	ck_assert_int_lt(nwakes, MAXREC);
	wakes[nwakes++] = *r;
	return 0;
}

static int on_probe(void *ctx, const struct probe_rec *r)
{
	ck_assert_int_lt(nprobes, MAXREC);
	probes[nprobes++] = *r;
	return 0;
}

static int on_gap(void *ctx, const struct gap_rec *r)
{
	ck_assert_int_lt(ngaps, MAXREC);
	gaps[ngaps++] = *r;
	return 0;
}

static struct ftree *ft;

static void setup(void)
{
	struct ftree_sink sink = {NULL, on_call, on_irq, on_sched, on_wakeup, on_probe, on_gap};

	ncalls = nirqs = nscheds = nwakes = nprobes = ngaps = 0;
	ft = ftree_new(&sink);
	ck_assert_ptr_nonnull(ft);
}

static void teardown(void)
{
	ftree_free(ft);
	for (int i = 0; i < ncalls; i++) {
		free(call_args[i]);
		free(call_retaddr[i]);
	}
}

/* ---- building events ---- */

static void feed(struct analysis_event e)
{
	ck_assert_int_eq(ftree_feed(ft, &e), 0);
}

static struct analysis_event ev(int kind, int64_t t, int cpu, int pid, uint8_t flags)
{
	struct analysis_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.t = t;
	e.cpu = cpu;
	e.pid = pid;
	e.flags = flags;
	return e;
}

static void sys(int enter, int64_t t, int cpu, int pid, int nr, int raw)
{
	struct analysis_event e = ev(enter ? EVENT_SYS_ENTER : EVENT_SYS_EXIT, t, cpu, pid, 0);
	e.sys.nr = nr;
	e.sys.func_id = 100 + nr;
	e.sys.raw = raw;
	e.sys.ret = DARC_NULL;
	feed(e);
}

static void fg(int entry, int64_t t, int cpu, int pid, uint8_t flags, int func, int depth,
	       int64_t calltime, int64_t rettime)
{
	struct analysis_event e = ev(entry ? EVENT_FG_ENTRY : EVENT_FG_EXIT, t, cpu, pid, flags);
	e.fg.func_id = func;
	e.fg.addr = 0x1000 + func;
	e.fg.name = "f";
	e.fg.depth = depth;
	e.fg.calltime = calltime;
	e.fg.rettime = rettime;
	e.fg.retval = DARC_NULL;
	feed(e);
}

static void irqev(int kind, int64_t t, int cpu, int pid, uint8_t flags, int irq)
{
	struct analysis_event e = ev(kind, t, cpu, pid, flags);
	e.irq.irq = irq;
	e.irq.name = "virtio0";
	feed(e);
}

static void sw(int64_t t, int cpu, int prev, int64_t state, int next)
{
	struct analysis_event e = ev(EVENT_SWITCH, t, cpu, prev, 0);
	e.sw.prev_pid = prev;
	e.sw.next_pid = next;
	e.sw.prev_state = state;
	feed(e);
}

static void wake(int kind, int64_t t, int cpu, int waker, uint8_t flags, int pid)
{
	struct analysis_event e = ev(kind, t, cpu, waker, flags);
	e.wake.pid = pid;
	feed(e);
}

static const struct call_rec *call_of(int func)
{
	for (int i = 0; i < ncalls; i++)
		if (calls[i].func_id == func)
			return &calls[i];
	ck_abort_msg("no call of func %d", func);
	return NULL;
}

/* Every call's parts add up to its whole, and none is negative. */
static void check_identity(void)
{
	for (int i = 0; i < ncalls; i++) {
		const struct call_rec *c = &calls[i];
		if (c->incl_ns == DARC_NULL)
			continue;
		ck_assert_int_eq(c->incl_ns, c->excl_ns + c->children_ns + c->irq_ns +
						     c->softirq_ns + c->preempt_ns + c->blocked_ns);
		ck_assert_int_ge(c->excl_ns, 0);
		ck_assert_int_ge(c->irq_ns, 0);
		ck_assert_int_ge(c->preempt_ns, 0);
		ck_assert_int_ge(c->blocked_ns, 0);
	}
}

#define HARD 0x08
#define SOFT 0x10

START_TEST(test_irq_in_call)
{
	sys(1, 1000, 0, 7, 0, 1);
	irqev(EVENT_IRQ_ENTRY, 1010, 0, 7, HARD, 26);
	irqev(EVENT_IRQ_EXIT, 1015, 0, 7, HARD, 26);
	sys(0, 1030, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].incl_ns, 30);
	ck_assert_int_eq(calls[0].irq_ns, 5);
	ck_assert_int_eq(calls[0].excl_ns, 25);
	ck_assert_int_eq(calls[0].flags, 0);
	ck_assert_int_eq(nirqs, 1);
	ck_assert_int_eq(irqs[0].t_start, 1010);
	ck_assert_int_eq(irqs[0].t_end, 1015);
	ck_assert_int_eq(irqs[0].irq, 26);
	ck_assert_str_eq(irqs[0].name, "virtio0");
	ck_assert_int_eq(irqs[0].call_id, calls[0].id);
	ck_assert_int_eq(irqs[0].task_id, 7);
	check_identity();
}
END_TEST

START_TEST(test_softirq_after_irq)
{
	sys(1, 0, 0, 7, 0, 1);
	irqev(EVENT_IRQ_ENTRY, 10, 0, 7, HARD, 26);
	irqev(EVENT_IRQ_EXIT, 15, 0, 7, HARD, 26);
	irqev(EVENT_SOFTIRQ_ENTRY, 15, 0, 7, SOFT, 4);
	irqev(EVENT_SOFTIRQ_EXIT, 25, 0, 7, SOFT, 4);
	sys(0, 40, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(calls[0].incl_ns, 40);
	ck_assert_int_eq(calls[0].irq_ns, 5);
	ck_assert_int_eq(calls[0].softirq_ns, 10);
	ck_assert_int_eq(calls[0].excl_ns, 25);
	/* back to back (on irq exit), still an irq and a softirq */
	ck_assert_int_eq(nirqs, 2);
	ck_assert_int_eq(irqs[0].kind, IRQ_HARD);
	ck_assert_int_eq(irqs[0].t_start, 10);
	ck_assert_int_eq(irqs[0].t_end, 15);
	ck_assert_int_eq(irqs[1].kind, IRQ_SOFT);
	ck_assert_int_eq(irqs[1].irq, 4);
	ck_assert_int_eq(irqs[1].t_start, 15);
	ck_assert_int_eq(irqs[1].t_end, 25);
	ck_assert_int_eq(irqs[1].task_id, 7);
	ck_assert_int_eq(irqs[1].call_id, calls[0].id);
	check_identity();
}
END_TEST

START_TEST(test_preempted_resume_other_cpu)
{
	sys(1, 0, 0, 7, 1, 1);
	sw(10, 0, 7, 0, 0); /* R: preempted */
	sw(40, 1, 0, 1, 7); /* back, on cpu 1 */
	sys(0, 50, 1, 7, 1, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(calls[0].incl_ns, 50);
	ck_assert_int_eq(calls[0].preempt_ns, 30);
	ck_assert_int_eq(calls[0].blocked_ns, 0);
	ck_assert_int_eq(calls[0].excl_ns, 20);
	ck_assert_int_eq(nscheds, 1);
	ck_assert_int_eq(scheds[0].kind, SCHED_PREEMPTED);
	ck_assert_int_eq(scheds[0].cpu_out, 0);
	ck_assert_int_eq(scheds[0].cpu_in, 1);
	ck_assert_int_eq(scheds[0].t_in - scheds[0].t_out, 30);
	ck_assert_int_eq(scheds[0].call_id, calls[0].id);
	check_identity();
}
END_TEST

START_TEST(test_blocked_irq_waker)
{
	sys(1, 0, 0, 7, 17, 1);
	sw(10, 0, 7, 2, 0); /* D: blocked */
	irqev(EVENT_IRQ_ENTRY, 20, 1, 0, HARD, 26);
	wake(EVENT_WAKING, 21, 1, 0, HARD, 7);
	wake(EVENT_WAKEUP, 22, 0, 0, 0, 7); /* on the target cpu: not the waker */
	irqev(EVENT_IRQ_EXIT, 23, 1, 0, HARD, 26);
	sw(30, 0, 0, 0, 7);
	sys(0, 35, 0, 7, 17, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(calls[0].blocked_ns, 20);
	ck_assert_int_eq(calls[0].irq_ns, 0); /* the irq hit another cpu */
	ck_assert_int_eq(calls[0].excl_ns, 15);
	ck_assert_int_eq(nwakes, 2);
	ck_assert_int_eq(wakes[0].ctx, CTX_HARDIRQ);
	ck_assert_int_eq(wakes[0].waker_cpu, 1);
	ck_assert_int_eq(nscheds, 1);
	ck_assert_int_eq(scheds[0].kind, SCHED_BLOCKED);
	ck_assert_int_eq(scheds[0].state, 2);
	ck_assert_int_eq(scheds[0].wakeup_id, wakes[0].id); /* sched_waking wins */
	ck_assert_int_eq(nirqs, 1);
	ck_assert_int_eq(irqs[0].task_id, 0); /* idle was interrupted */
	check_identity();
}
END_TEST

START_TEST(test_recursion_and_children)
{
	/* f -> f -> g, function_graph with calltime/rettime */
	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);
	fg(1, 110, 0, 7, 0, 1, 1, 0, 0);
	fg(1, 120, 0, 7, 0, 2, 2, 0, 0);
	fg(0, 131, 0, 7, 0, 2, 2, 119, 130);
	fg(0, 141, 0, 7, 0, 1, 1, 109, 140);
	fg(0, 151, 0, 7, 0, 1, 0, 99, 150);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 3);
	/* completion order: g, inner f, outer f */
	ck_assert_int_eq(calls[0].incl_ns, 11); /* rettime - calltime */
	ck_assert_int_eq(calls[1].incl_ns, 31);
	ck_assert_int_eq(calls[1].children_ns, 11);
	ck_assert_int_eq(calls[2].incl_ns, 51);
	ck_assert_int_eq(calls[2].children_ns, 31);
	ck_assert_int_eq(calls[2].excl_ns, 20);
	ck_assert_int_eq(calls[1].parent_id, calls[2].id);
	ck_assert_int_eq(calls[0].parent_id, calls[1].id);
	ck_assert_int_eq(calls[2].depth, 0);
	ck_assert_int_eq(calls[0].depth, 2);
	/* recursion: one fnode per level */
	ck_assert_int_ne(calls[1].fnode_id, calls[2].fnode_id);
	ck_assert_int_eq(ftree_nnodes(ft), 3);
	const struct ftree_node *inner = ftree_node(ft, calls[1].fnode_id - 1);
	ck_assert_int_eq(inner->rec.parent_id, calls[2].fnode_id);
	ck_assert_int_eq(inner->rec.calls, 1);
	ck_assert_int_eq(inner->rec.incl_ns, 31);
	ck_assert_uint_eq(inner->incl.total, 1);
	check_identity();
}
END_TEST

START_TEST(test_calltime_before_entry_event)
{
	/* an irq lands between the child's calltime and its entry event */
	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);
	irqev(EVENT_IRQ_ENTRY, 112, 0, 7, HARD, 9);
	irqev(EVENT_IRQ_EXIT, 116, 0, 7, HARD, 9);
	fg(1, 118, 0, 7, 0, 2, 1, 0, 0);
	fg(0, 131, 0, 7, 0, 2, 1, 110, 130); /* calltime 110: the irq is inside */
	fg(0, 151, 0, 7, 0, 1, 0, 99, 150);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(calls[0].incl_ns, 20);
	ck_assert_int_eq(calls[0].irq_ns, 4);
	ck_assert_int_eq(calls[1].irq_ns, 0); /* not counted twice */
	ck_assert_int_eq(calls[1].children_ns, 20);
	ck_assert_int_eq(calls[1].excl_ns, 51 - 20);
	check_identity();
}
END_TEST

/* A calltime that cannot be the call's is flagged and not used; nothing else moves. */
START_TEST(test_implausible_calltime)
{
	fg(1, 1000, 0, 7, 0, 1, 0, 0, 0);
	fg(1, 1100, 0, 7, 0, 2, 1, 0, 0);
	/* calltime 200 ms before its entry event (a flipped bit) */
	fg(0, 1300, 0, 7, 0, 2, 1, 1090 - 200000000, 1290);
	/* calltime after its entry event, beyond the correction's error */
	fg(1, 1400, 0, 7, 0, 3, 1, 0, 0);
	fg(0, 1500, 0, 7, 0, 3, 1, 1400 + 2000000, 1490);
	fg(0, 2000, 0, 7, 0, 1, 0, 990, 1990);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 3);
	const struct call_rec *a = call_of(1), *b = call_of(2), *c = call_of(3);
	ck_assert_uint_eq(b->flags, CALL_BAD_TIME);
	ck_assert_int_eq(b->t_entry, 1100); /* its entry event's time */
	ck_assert_int_eq(b->incl_ns, 190);
	ck_assert_uint_eq(c->flags, CALL_BAD_TIME);
	ck_assert_int_eq(c->t_entry, 1400);
	ck_assert_uint_eq(a->flags, 0);
	ck_assert_int_eq(a->t_entry, 990);
	ck_assert_int_eq(a->incl_ns, 1000);
	ck_assert_int_eq(a->children_ns, 190 + 90);
	check_identity();
}
END_TEST

/* Times decode found implausible come as bad_time: the events' times are used. */
START_TEST(test_bad_time_exit)
{
	struct analysis_event e = ev(EVENT_FG_EXIT, 180, 0, 7, 0);

	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);
	e.fg.func_id = 1;
	e.fg.addr = 0x1001;
	e.fg.name = "f";
	e.fg.calltime = e.fg.rettime = DARC_NULL;
	e.fg.bad_time = 1;
	feed(e);
	fg(0, 200, 0, 7, 0, 4, 0, 100 - 2000000000, 190); /* lone exit, calltime 2 s before */
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_uint_eq(calls[0].flags, CALL_BAD_TIME);
	ck_assert_int_eq(calls[0].t_entry, 100);
	ck_assert_int_eq(calls[0].incl_ns, 80);
	ck_assert_uint_eq(calls[1].flags, CALL_BAD_TIME | CALL_NO_ENTRY);
	ck_assert_int_eq(calls[1].incl_ns, DARC_NULL);
}
END_TEST

START_TEST(test_missing_entry_and_exit)
{
	fg(0, 50, 0, 7, 0, 3, 0, 10, 40); /* began before the recording */
	sys(0, 60, 0, 7, 5, 1);		  /* likewise, without times */
	sys(1, 70, 0, 7, 6, 1);		  /* still open at the end */
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 3);
	const struct call_rec *a = call_of(3), *b = call_of(105), *c = call_of(106);
	ck_assert_uint_eq(a->flags & CALL_NO_ENTRY, CALL_NO_ENTRY);
	ck_assert_int_eq(a->incl_ns, 30); /* function_graph tells both times */
	ck_assert_uint_eq(b->flags & CALL_NO_ENTRY, CALL_NO_ENTRY);
	ck_assert_int_eq(b->t_entry, DARC_NULL);
	ck_assert_int_eq(b->incl_ns, DARC_NULL); /* never invented */
	ck_assert_uint_eq(c->flags & CALL_NO_EXIT, CALL_NO_EXIT);
	ck_assert_int_eq(c->t_exit, DARC_NULL);
	ck_assert_int_eq(c->incl_ns, DARC_NULL);
	/* incomplete calls stay out of the distributions */
	ck_assert_int_eq(ftree_node(ft, a->fnode_id - 1)->rec.calls, 0);
	ck_assert_int_eq(ftree_node(ft, a->fnode_id - 1)->rec.incomplete, 1);
	check_identity();
}
END_TEST

START_TEST(test_lost_events_gap)
{
	struct analysis_event e;

	sys(1, 0, 0, 7, 0, 1);
	fg(1, 5, 0, 7, 0, 1, 0, 0, 0);
	e = ev(EVENT_OTHER, 20, 0, 7, 0);
	e.missed = 12; /* events lost on cpu 0 before this one */
	feed(e);
	fg(0, 30, 0, 7, 0, 1, 0, 4, 29);
	sys(0, 40, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	/* the calls open across the gap end unknown; the exits after it are not paired */
	int gapped = 0, no_entry = 0;
	for (int i = 0; i < ncalls; i++) {
		if (calls[i].flags & CALL_GAP) {
			gapped++;
			ck_assert_uint_eq(calls[i].flags & CALL_NO_EXIT, CALL_NO_EXIT);
			ck_assert_int_eq(calls[i].incl_ns, DARC_NULL);
		}
		if (calls[i].flags & CALL_NO_ENTRY)
			no_entry++;
	}
	ck_assert_int_eq(gapped, 2);
	ck_assert_int_eq(no_entry, 2);
	ck_assert_int_eq(ftree_stats(ft)->gaps, 1);
	check_identity();
}
END_TEST

/* An event of task @pid on @cpu at @t that says nothing but who is on the CPU. */
static void other(int64_t t, int cpu, int pid)
{
	feed(ev(EVENT_OTHER, t, cpu, pid, 0));
}

/*
 * Switches a pid filter left out (darc-record's sched events, trace-cmd -F):
 * task 5 switched in on cpu 0 at 100, then task 6's event there at 300 (an
 * interrupt's event, say) shows it gone: off from its last event there (200)
 * to its next anywhere (500, cpu 1). Task 7, switched out at 400 on cpu 1,
 * runs again at 800 on cpu 0 with no switch in: the end of its sleep is not
 * in the recording either. The previous task's own events after its switch
 * (110) and a recording whose switches are all there make no gap.
 */
START_TEST(test_sched_gaps)
{
	sw(100, 0, 1, 0, 5);
	other(110, 0, 1); /* task 1's own tail after its switch */
	other(200, 0, 5);
	other(300, 0, 6);
	sw(400, 1, 7, 1, 8);
	other(500, 1, 5);
	other(800, 0, 7);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ngaps, 4);
	ck_assert_int_eq(gaps[0].task_id, 5); /* off from 200 on cpu 0, seen at 500 */
	ck_assert_int_eq(gaps[0].cpu, 0);
	ck_assert_int_eq(gaps[0].t_from, 200);
	ck_assert_int_eq(gaps[0].t_to, 500);
	ck_assert_int_eq(gaps[1].task_id, 7); /* switched out at 400, back at 800 unseen */
	ck_assert_int_eq(gaps[1].cpu, 1);
	ck_assert_int_eq(gaps[1].t_from, 400);
	ck_assert_int_eq(gaps[1].t_to, 800);
	/* 8 left cpu 1 unseen (5 came at 500), 6 left cpu 0 (7 came): never seen again */
	ck_assert_int_eq(gaps[2].task_id + gaps[3].task_id, 14);
	ck_assert_int_eq(gaps[2].t_to, DARC_NULL);
	ck_assert_int_eq(gaps[3].t_to, DARC_NULL);
	ck_assert_int_eq(ftree_stats(ft)->sched_gaps, 4);
	teardown();
	setup();
	sw(100, 0, 1, 0, 5);
	other(110, 0, 1);
	other(200, 0, 5);
	sw(300, 0, 5, 1, 6);
	other(350, 0, 6);
	sw(400, 1, 2, 1, 5);
	other(450, 1, 5);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ngaps, 0);
}
END_TEST

START_TEST(test_timer_irq_from_function_graph)
{
	/* a tick inside a call, seen only as function_graph records (no irq events):
	   sysvec_* runs before irq_enter, so only the name marks it */
	struct analysis_event e;

	sys(1, 0, 0, 7, 0, 1);
	e = ev(EVENT_FG_ENTRY, 10, 0, 7, 0x01);
	e.fg.func_id = 50;
	e.fg.addr = 0x5000;
	e.fg.name = "sysvec_apic_timer_interrupt";
	e.fg.irq_entry = 1;
	feed(e);
	fg(1, 11, 0, 7, HARD, 51, 1, 0, 0);
	fg(0, 17, 0, 7, HARD, 51, 1, 11, 16);
	e.kind = EVENT_FG_EXIT;
	e.t = 19;
	e.fg.depth = 0;
	e.fg.calltime = 10;
	e.fg.rettime = 18;
	feed(e);
	sys(0, 30, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	const struct call_rec *s = call_of(100), *v = call_of(50), *in = call_of(51);
	ck_assert_int_eq(s->irq_ns, 8);
	ck_assert_int_eq(s->children_ns, 0); /* the interrupt is not its child */
	ck_assert_int_eq(s->excl_ns, 22);
	ck_assert_uint_eq(v->flags & CALL_HARDIRQ, CALL_HARDIRQ);
	ck_assert_int_eq(v->interrupted_id, s->id);
	ck_assert_int_eq(v->parent_id, DARC_NULL);
	ck_assert_int_eq(in->parent_id, v->id);
	ck_assert_int_eq(v->incl_ns, 8);
	ck_assert_int_eq(nirqs, 1);
	ck_assert_str_eq(irqs[0].name, "sysvec_apic_timer_interrupt");
	check_identity();
}
END_TEST

START_TEST(test_exit_written_late)
{
	/*
	 * f returns at 130 but an interrupt and a preemption come before its exit
	 * event is written: h, entered at f's depth, is g's child, not f's, and
	 * the preemption after f returned is g's
	 */
	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);   /* g */
	fg(1, 110, 0, 7, 0, 2, 1, 0, 0);   /* f */
	sw(140, 0, 7, 0, 0);		   /* preempted before f's exit is written */
	sw(170, 0, 0, 0, 7);
	fg(1, 180, 0, 7, 0, 3, 1, 0, 0);   /* h, at f's depth */
	fg(0, 190, 0, 7, 0, 3, 1, 179, 189);
	fg(0, 200, 0, 7, 0, 2, 1, 109, 130); /* f's exit, at last */
	fg(0, 260, 0, 7, 0, 1, 0, 99, 250);
	ck_assert_int_eq(ftree_finish(ft), 0);
	const struct call_rec *g = call_of(1), *f = call_of(2), *h = call_of(3);
	ck_assert_int_eq(h->parent_id, g->id);
	ck_assert_int_eq(f->parent_id, g->id);
	ck_assert_int_eq(f->incl_ns, 21);
	ck_assert_int_eq(f->preempt_ns, 0);
	ck_assert_int_eq(g->preempt_ns, 30);
	ck_assert_int_eq(g->children_ns, 21 + 10);
	ck_assert_int_eq(g->excl_ns, 151 - 31 - 30);
	ck_assert_int_eq(f->flags, 0);
	check_identity();
}
END_TEST

/* Each call's off-CPU time is the sum of the intervals that name it (check-analyze.sh's rule). */
static void check_sched_sums(void)
{
	for (int i = 0; i < ncalls; i++) {
		int64_t b = 0, p = 0;
		for (int k = 0; k < nscheds; k++)
			if (scheds[k].call_id == calls[i].id && scheds[k].t_in != DARC_NULL) {
				if (scheds[k].kind == SCHED_BLOCKED)
					b += scheds[k].t_in - scheds[k].t_out;
				else
					p += scheds[k].t_in - scheds[k].t_out;
			}
		ck_assert_int_eq(calls[i].blocked_ns, b);
		ck_assert_int_eq(calls[i].preempt_ns, p);
	}
}

START_TEST(test_exit_written_late_inside)
{
	/*
	 * As above, but f's return time falls inside the preemption (its exit
	 * written on another CPU, whose clock says 150): one interval, one
	 * call charged with all of it, the one it names
	 */
	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);   /* g */
	fg(1, 110, 0, 7, 0, 2, 1, 0, 0);   /* f */
	sw(140, 0, 7, 0, 0);		   /* preempted before f's exit is written */
	sw(170, 1, 0, 0, 7);
	fg(0, 200, 0, 7, 0, 2, 1, 109, 150); /* f's exit */
	fg(0, 260, 1, 7, 0, 1, 0, 99, 250);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(nscheds, 1);
	ck_assert_int_eq(call_of(1)->preempt_ns + call_of(2)->preempt_ns, 30);
	check_sched_sums();
	check_identity();
}
END_TEST

START_TEST(test_exit_never_written)
{
	/*
	 * As above, but f's exit never comes (lost, or a damaged file): g ends
	 * with f still detached. g's sums lack f's time, so g is flagged gap,
	 * and f is written without an exit at the end.
	 */
	fg(1, 100, 0, 7, 0, 1, 0, 0, 0);   /* g */
	fg(1, 110, 0, 7, 0, 2, 1, 0, 0);   /* f */
	fg(1, 180, 0, 7, 0, 3, 1, 0, 0);   /* h, at f's depth: f is detached */
	fg(0, 190, 0, 7, 0, 3, 1, 179, 189);
	fg(0, 260, 0, 7, 0, 1, 0, 99, 250);
	ck_assert_int_eq(ftree_finish(ft), 0);
	const struct call_rec *g = call_of(1), *f = call_of(2), *h = call_of(3);
	ck_assert_int_eq(h->parent_id, g->id);
	ck_assert_int_eq(f->parent_id, g->id);
	ck_assert_uint_eq(g->flags & CALL_GAP, CALL_GAP);
	ck_assert_int_eq(g->children_ns, 10);
	ck_assert_uint_eq(f->flags & CALL_NO_EXIT, CALL_NO_EXIT);
	ck_assert_int_eq(f->incl_ns, DARC_NULL);
	ck_assert_uint_eq(h->flags, 0);
	check_identity();
}
END_TEST

START_TEST(test_syscall_seen_twice)
{
	/* raw_syscalls and syscalls:* both enabled: one call */
	sys(1, 0, 0, 7, 0, 1);
	sys(1, 1, 0, 7, 0, 0);
	sys(0, 20, 0, 7, 0, 0);
	sys(0, 21, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].incl_ns, 20);
	ck_assert_int_eq(calls[0].flags, 0);
}
END_TEST

static void probe(int entry, int64_t t, int cpu, int pid, int func, int paired)
{
	struct analysis_event e =
	    ev(entry ? EVENT_PROBE_ENTRY : EVENT_PROBE_RETURN, t, cpu, pid, 0);
	e.probe.func_id = func;
	e.probe.addr = 0x2000 + func;
	e.probe.event = entry ? "kprobes:p" : "kprobes:r";
	e.probe.args = "{\"bio\":\"0xffff888001234500\"}";
	e.probe.paired = paired;
	feed(e);
}

/* A probe entry with no return probe is a point: it opens no call. */
START_TEST(test_probe_without_return)
{
	probe(1, 50, 0, 7, 9, 0); /* before the first system call */
	sys(1, 100, 0, 7, 17, 1);
	probe(1, 120, 0, 7, 9, 0); /* inside it */
	sys(0, 200, 0, 7, 17, 1);
	sys(1, 300, 0, 7, 17, 1);
	sys(0, 400, 0, 7, 17, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(calls[i].func_id, 117);
		ck_assert(calls[i].parent_id == DARC_NULL);
		ck_assert_int_eq(calls[i].depth, 0);
		ck_assert_int_eq(calls[i].flags, 0);
	}
	ck_assert_int_eq(nprobes, 2);
	ck_assert_int_eq(probes[0].role, PROBE_POINT);
	ck_assert(probes[0].call_id == DARC_NULL);
	ck_assert_int_eq(probes[0].t, 50);
	ck_assert_int_eq(probes[0].task_id, 7);
	ck_assert_int_eq(probes[0].func_id, 9);
	ck_assert_str_eq(probes[0].event, "kprobes:p");
	ck_assert_str_eq(probes[0].args, "{\"bio\":\"0xffff888001234500\"}");
	ck_assert_int_eq(probes[1].role, PROBE_POINT);
	ck_assert_int_eq(probes[1].call_id, calls[0].id);
}
END_TEST

/* A pair opens and closes a call, and its hits name that call. */
START_TEST(test_probe_pair)
{
	probe(1, 100, 0, 7, 9, 1);
	sys(1, 110, 0, 7, 17, 1);
	sys(0, 150, 0, 7, 17, 1);
	probe(0, 200, 0, 7, 9, 0);
	probe(0, 300, 0, 7, 9, 0); /* a return with no entry: a call without entry */
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 3);
	ck_assert_int_eq(calls[0].func_id, 117); /* the system call, inside the probe's call */
	ck_assert_int_eq(calls[0].parent_id, calls[1].id);
	ck_assert_int_eq(calls[1].func_id, 9);
	ck_assert_int_eq(calls[1].incl_ns, 100);
	ck_assert_int_eq(calls[1].children_ns, 40);
	ck_assert_int_eq(nprobes, 3);
	ck_assert_int_eq(probes[0].role, PROBE_ENTRY);
	ck_assert_int_eq(probes[0].call_id, calls[1].id);
	ck_assert_int_eq(probes[1].role, PROBE_RETURN);
	ck_assert_int_eq(probes[1].call_id, calls[1].id);
	ck_assert_int_eq(probes[2].role, PROBE_RETURN);
	ck_assert_int_eq(probes[2].call_id, calls[2].id);
	ck_assert_int_eq(calls[2].flags, CALL_NO_ENTRY);
	ck_assert_int_lt(probes[0].id, probes[1].id);
}
END_TEST

/* "r:bucket:count " for every bucket hist_each() visits at resolution @r, appended to @out. */
static void each_text(const struct hist *h, int r, char *out, size_t size)
{
	struct {
		char *out;
		size_t size;
		int r;
	} a = {out, size, r};
	int put(void *ctx, int bucket, uint64_t n)
	{
		typeof(a) *x = ctx;
		size_t len = strlen(x->out);
		snprintf(x->out + len, x->size - len, "%d:%d:%lu ", x->r, bucket, n);
		return 0;
	}
	hist_each(h, r, put, &a);
}

/* hist_each_all() visits what hist_each() does at resolutions 1 to 4, in that order. */
START_TEST(test_hist_each_all)
{
	static char want[1 << 17], got[1 << 17];
	int put(void *ctx, int r, int bucket, uint64_t n)
	{
		size_t len = strlen(got);
		snprintf(got + len, sizeof(got) - len, "%d:%d:%lu ", r, bucket, n);
		return 0;
	}
	/* a few dozen non-empty fine buckets, and thousands (the long way) */
	for (int spread = 0; spread < 2; spread++) {
		struct hist h = HIST_INIT;

		for (double x = 3; x < (spread ? 1e12 : 5e5); x *= spread ? 1.001 : 1.3)
			ck_assert_int_eq(hist_add(&h, (uint64_t)x), 0);
		want[0] = got[0] = 0;
		for (int r = 1; r <= 4; r++)
			each_text(&h, r, want, sizeof(want));
		ck_assert_int_eq(hist_each_all(&h, put, NULL), 0);
		ck_assert_uint_gt(strlen(want), 100);
		ck_assert_str_eq(got, want);
		hist_release(&h);
	}
}
END_TEST

/*
 * A coarse histogram (buckets of 48 or of 4 fine ones) gives the resolutions
 * it holds as the fine one does, merges into an empty one as such, and
 * refuses what it cannot tell: another resolution, a merge with another
 * size of bucket, a quantile.
 */
START_TEST(test_hist_coarse)
{
	static char want[1 << 15], got[1 << 15];
	struct hist fine = HIST_INIT, r1 = HIST_INIT, r4 = HIST_INIT, sum = HIST_INIT;

	hist_coarse(&r1, HIST_FINE);
	hist_coarse(&r4, HIST_FINE / 12);
	for (double x = 1; x < 1e11; x *= 1.07)
		ck_assert(!hist_add(&fine, (uint64_t)x) && !hist_add(&r1, (uint64_t)x) &&
			  !hist_add(&r4, (uint64_t)x));
	for (int r = 1; r <= 4; r++) {
		want[0] = got[0] = 0;
		each_text(&fine, r, want, sizeof(want));
		each_text(&r4, r, got, sizeof(got));
		ck_assert_str_eq(got, want);
		if (r == 1) {
			got[0] = 0;
			each_text(&r1, r, got, sizeof(got));
			ck_assert_str_eq(got, want);
		}
	}
	ck_assert_int_eq(hist_each(&r1, 3, NULL, NULL), -1);
	ck_assert_int_eq(hist_merge(&sum, &r1), 0);
	ck_assert_int_eq(sum.total, fine.total);
	ck_assert_int_eq(hist_merge(&sum, &r4), -1);
	ck_assert_uint_eq(hist_quantile(&r4, 0.5), 0);
	ck_assert_uint_gt(hist_quantile(&fine, 0.5), 0);
	/* a 48th of the memory */
	ck_assert_int_le(r1.n * HIST_FINE, fine.n + HIST_FINE);
	hist_release(&fine);
	hist_release(&r1);
	hist_release(&r4);
	hist_release(&sum);
}
END_TEST

START_TEST(test_hist_buckets)
{
	struct hist h = HIST_INIT;

	ck_assert_int_eq(hist_bucket(0, 1), 0);
	ck_assert_int_eq(hist_bucket(1, 1), 0);
	ck_assert_int_eq(hist_bucket(2, 1), 1);
	ck_assert_int_eq(hist_bucket(3, 1), 1);
	ck_assert_int_eq(hist_bucket(4, 1), 2);
	ck_assert_int_eq(hist_bucket(1023, 1), 9);
	ck_assert_int_eq(hist_bucket(1024, 1), 10);
	ck_assert_int_eq(hist_bucket(1024, 2), 20);
	ck_assert_int_eq(hist_bucket(1448, 2), 20); /* 2^10.5 = 1448.15 */
	ck_assert_int_eq(hist_bucket(1449, 2), 21);
	ck_assert_int_eq(hist_bucket(1625, 3), 31); /* 2^(32/3) = 1625.5 */
	ck_assert_int_eq(hist_bucket(1626, 3), 32);
	ck_assert_int_eq(hist_bucket(UINT64_MAX, 1), 63);
	for (uint64_t x = 1; x < 100000; x = x * 3 + 1)
		for (int r = 1; r <= 4; r++)
			ck_assert_int_eq(hist_bucket(x, r), (int)floor(r * log2((double)x) + 1e-12));
	/* the fine buckets (48 an octave) are exact at and next to every threshold */
	for (int e = 1; e <= 40; e++)
		for (int j = 0; j < HIST_FINE; j++) {
			uint64_t x = (uint64_t)ceill(exp2l(e + (long double)j / HIST_FINE));

			for (uint64_t y = x - 1; y <= x + 1; y++)
				ck_assert_msg(hist_fine(y) == (int)floorl(HIST_FINE * log2l((long double)y)),
					      "hist_fine(%lu) = %d", y, hist_fine(y));
		}
	/* the checksum: bucket counts add up to the values added */
	for (int i = 1; i <= 1000; i++)
		ck_assert_int_eq(hist_add(&h, i * 37), 0);
	for (int r = 1; r <= 4; r++) {
		struct {
			uint64_t sum;
			int last;
		} acc = {0, -1};
		int fn(void *ctx, int b, uint64_t n)
		{
			typeof(acc) *a = ctx;
			ck_assert_int_gt(b, a->last);
			a->last = b;
			a->sum += n;
			return 0;
		}
		hist_each(&h, r, fn, &acc);
		ck_assert_uint_eq(acc.sum, 1000);
	}
	uint64_t p50 = hist_quantile(&h, 0.5);
	ck_assert_msg(p50 > 500 * 37 * 0.985 && p50 < 500 * 37 * 1.015, "p50 %lu", p50);
	ck_assert_uint_eq(hist_quantile(&h, 1.0), 37000);
	hist_release(&h);
	ck_assert_uint_eq(hist_quantile(&h, 0.5), 0);
}
END_TEST

/* Two histograms of far apart ranges merge into what adding every value to one gives. */
START_TEST(test_hist_merge)
{
	struct hist a = HIST_INIT, b = HIST_INIT, all = HIST_INIT, m = HIST_INIT, m2 = HIST_INIT;
	char sa[2048] = "", sm[2048] = "", sm2[2048] = "";
	int put(void *ctx, int bucket, uint64_t n)
	{
		char *o = ctx;
		snprintf(o + strlen(o), 2048 - strlen(o), "%d:%lu ", bucket, n);
		return 0;
	}

	for (uint64_t x = 3; x < 5000000000ULL; x = x * 7 / 3 + 1) {
		ck_assert_int_eq(hist_add(x < 1000 ? &a : &b, x), 0);
		ck_assert_int_eq(hist_add(&all, x), 0);
	}
	ck_assert_int_eq(hist_merge(&m, &b), 0); /* into an empty one */
	ck_assert_int_eq(hist_merge(&m, &a), 0); /* then one lower down */
	ck_assert_int_eq(hist_merge(&m2, &a), 0);
	ck_assert_int_eq(hist_merge(&m2, &b), 0); /* one higher up */
	ck_assert_int_eq(hist_merge(&m2, &(struct hist)HIST_INIT), 0); /* an empty one */
	hist_each(&all, 4, put, sa);
	hist_each(&m, 4, put, sm);
	hist_each(&m2, 4, put, sm2);
	ck_assert_str_eq(sm, sa);
	ck_assert_str_eq(sm2, sa);
	ck_assert_uint_eq(m2.total, all.total);
	ck_assert_uint_eq(m.total, all.total);
	ck_assert_uint_eq(m.min, all.min);
	ck_assert_uint_eq(m.max, all.max);
	ck_assert_uint_eq(hist_quantile(&m, 0.9), hist_quantile(&all, 0.9));
	hist_release(&a);
	hist_release(&b);
	hist_release(&all);
	hist_release(&m);
	hist_release(&m2);
}
END_TEST

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * hist_quant_exact() against a sort, on each side of the count from which it
 * selects within buckets: values over many octaves with negatives and zeros,
 * one value alone, a narrow hump (every rank in a few adjacent buckets), two
 * values, and a hump whose ranks share one bucket.
 */
START_TEST(test_quant_exact)
{
	static const int64_t sizes[] = {1, 7, 1000, 16383, 16384, 20011, 250000};
	uint64_t x = 12345;

	for (int shape = 0; shape < 5; shape++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			int64_t n = sizes[si], *v = malloc(n * sizeof(*v)), *ref = malloc(n * sizeof(*v));
			struct quant q;

			for (int64_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* an LCG */
				uint64_t r = x >> 20;
				v[i] = shape == 0   ? (int64_t)(r % 5 ? r >> (r % 40) : 0) - (int64_t)(r % 3 == 0)
				       : shape == 1 ? 4242
				       : shape == 2 ? 3000 + (int64_t)(r % 400)
				       : shape == 3 ? (r & 1 ? 5 : 1LL << 40)
						    : 100000 + (int64_t)(r % 7);
			}
			memcpy(ref, v, n * sizeof(*v));
			qsort(ref, n, sizeof(*ref), cmp_i64);
			hist_quant_exact(v, n, &q);
			for (int i = 0; i < NQUANT; i++)
				ck_assert_msg(q.p[i] == ref[(n * hist_quant_permille[i] + 999) / 1000 - 1],
					      "shape %d, %ld values: %s %ld, not %ld", shape, (long)n,
					      hist_quant_name[i], (long)q.p[i],
					      (long)ref[(n * hist_quant_permille[i] + 999) / 1000 - 1]);
			ck_assert_int_eq(q.max, ref[n - 1]);
			free(v);
			free(ref);
		}
}
END_TEST

/* System call names by ABI: x86_64's and i386's tables, and asm-generic's (arm64, riscv64). */
START_TEST(test_syscall_names)
{
	ck_assert_int_eq(decode_syscall_abi("Linux box 6.1.0-56-amd64 #1 SMP x86_64", 8, false),
			 ABI_X86_64);
	ck_assert_int_eq(decode_syscall_abi("Linux pi 6.6.31 #1 SMP PREEMPT aarch64", 8, false),
			 ABI_GENERIC);
	ck_assert_int_eq(decode_syscall_abi("Linux v 6.8.0 riscv64\n", 8, false), ABI_GENERIC);
	ck_assert_int_eq(decode_syscall_abi("Linux old 5.10.0 armv7l", 4, false), ABI_UNKNOWN);
	ck_assert_int_eq(decode_syscall_abi("Linux old 5.10.0 i686", 4, false), ABI_I386);
	/* the machine is the last word: a host named after another does not count */
	ck_assert_int_eq(decode_syscall_abi("Linux x86_64 6.1.0 ppc64le", 8, false), ABI_UNKNOWN);
	ck_assert_int_eq(decode_syscall_abi(NULL, 8, false), ABI_X86_64);
	ck_assert_int_eq(decode_syscall_abi(NULL, 4, false), ABI_UNKNOWN);
	ck_assert_int_eq(decode_syscall_abi(NULL, 8, true), ABI_UNKNOWN);
	ck_assert_str_eq(decode_syscall_name(ABI_X86_64, 0), "read");
	ck_assert_str_eq(decode_syscall_name(ABI_X86_64, 257), "openat");
	ck_assert_str_eq(decode_syscall_name(ABI_I386, 3), "read");
	ck_assert_str_eq(decode_syscall_name(ABI_GENERIC, 63), "read");
	ck_assert_str_eq(decode_syscall_name(ABI_GENERIC, 56), "openat");
	ck_assert_str_eq(decode_syscall_name(ABI_GENERIC, 62), "lseek"); /* __NR3264_lseek */
	ck_assert_str_eq(decode_syscall_name(ABI_GENERIC, 84), "sync_file_range"); /* not ...2 */
	/* newer than a 6.1 uapi header: syscalls-newer.tbl */
	ck_assert_str_eq(decode_syscall_name(ABI_X86_64, 335), "uretprobe");
	ck_assert_str_eq(decode_syscall_name(ABI_X86_64, 336), "uprobe");
	ck_assert_str_eq(decode_syscall_name(ABI_X86_64, 462), "mseal");
	ck_assert_str_eq(decode_syscall_name(ABI_I386, 462), "mseal");
	ck_assert_str_eq(decode_syscall_name(ABI_GENERIC, 451),
			 "cachestat");					   /* not __NR_syscalls */
	ck_assert_str_ne(decode_syscall_name(ABI_I386, 335), "uretprobe"); /* x86-64's only */
	ck_assert_ptr_null(decode_syscall_name(ABI_UNKNOWN, 0));
	ck_assert_ptr_null(decode_syscall_name(ABI_X86_64, -1));
	ck_assert_ptr_null(decode_syscall_name(ABI_X86_64, 100000));
}
END_TEST

/* function_graph's funcgraph-args/-retaddr entry and funcgraph-retval exit */
static void fg_values(int entry, int64_t t, int func, int depth, const char *args,
		      const char *retaddr, int64_t retval)
{
	struct analysis_event e = ev(entry ? EVENT_FG_ENTRY : EVENT_FG_EXIT, t, 0, 10, 0);

	e.fg.func_id = func;
	e.fg.addr = 0x1000 + func;
	e.fg.name = "f";
	e.fg.depth = depth;
	e.fg.calltime = e.fg.rettime = DARC_NULL;
	if (!entry)
		e.fg.calltime = t - 10, e.fg.rettime = t;
	e.fg.args = args;
	e.fg.retaddr = retaddr;
	e.fg.retval = retval;
	feed(e);
}

/*
 * What a call was given and gave back reaches its row however it ends: at
 * its exit, after a late exit (detached), without an entry, never, and a
 * system call's return.
 */
START_TEST(test_call_values)
{
	struct analysis_event e = ev(EVENT_SYS_EXIT, 300, 0, 10, 0);
	const struct call_rec *c;
	char args[] = "{\"fd\":3}";

	sys(1, 100, 0, 10, 0, 1);
	fg_values(1, 110, 1, 0, args, "caller+0x1c", DARC_NULL);
	args[6] = '4'; /* the decoder's buffer is reused: the call kept its copy */
	fg_values(0, 200, 1, 0, NULL, NULL, -5);
	e.sys.nr = 0;
	e.sys.func_id = 100;
	e.sys.raw = 1;
	e.sys.ret = -11;
	feed(e);
	fg_values(1, 400, 2, 0, "{\"a\":\"0x1\"}", NULL, DARC_NULL);
	fg_values(1, 420, 3, 0, NULL, "x+0x2", DARC_NULL); /* 2 returned: its exit comes late */
	fg_values(0, 430, 3, 0, NULL, NULL, 0);
	fg_values(0, 440, 2, 0, NULL, NULL, 7);
	fg_values(0, 500, 4, 0, NULL, NULL, 9); /* no entry */
	fg_values(1, 600, 5, 0, "{}", "y+0x3", DARC_NULL); /* no exit */
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 6);

	c = call_of(1);
	ck_assert(c->has_retval);
	ck_assert_int_eq(c->retval, -5);
	ck_assert_str_eq(c->args, "{\"fd\":3}");
	ck_assert_str_eq(c->retaddr, "caller+0x1c");
	c = call_of(100);
	ck_assert(c->has_retval);
	ck_assert_int_eq(c->retval, -11);
	ck_assert_ptr_null(c->args);
	c = call_of(2);
	ck_assert(c->has_retval && c->retval == 7);
	ck_assert_str_eq(c->args, "{\"a\":\"0x1\"}");
	ck_assert_ptr_null(c->retaddr);
	c = call_of(3);
	ck_assert(c->has_retval && c->retval == 0);
	ck_assert_str_eq(c->retaddr, "x+0x2");
	c = call_of(4);
	ck_assert(c->has_retval && c->retval == 9 && (c->flags & CALL_NO_ENTRY));
	c = call_of(5);
	ck_assert(!c->has_retval && (c->flags & CALL_NO_EXIT));
	ck_assert_str_eq(c->args, "{}");
	ck_assert_str_eq(c->retaddr, "y+0x3");
}
END_TEST

/* The system call of a uretprobe's trampoline (x86-64, Linux 6.11 on), and its exit numbered -1. */
static void trap(int enter, int64_t t, int pid)
{
	struct analysis_event e = ev(enter ? EVENT_SYS_ENTER : EVENT_SYS_EXIT, t, 0, pid, 0);
	e.sys.nr = enter ? 335 : -1;
	e.sys.func_id = enter ? 435 : 0;
	e.sys.raw = 1;
	e.sys.trap = enter; /* the decoder knows the exit only by its number, -1 */
	feed(e);
}

/* A user function's return through the uretprobe system call: no call of it, nothing lost. */
START_TEST(test_uretprobe_trap)
{
	for (int k = 0; k < 2; k++) {
		probe(1, 1000 * k + 100, 0, 7, 9, 1);
		sys(1, 1000 * k + 110, 0, 7, 0, 1);
		sys(0, 1000 * k + 150, 0, 7, 0, 1);
		trap(1, 1000 * k + 160, 7);
		probe(0, 1000 * k + 170, 0, 7, 9, 0); /* fires inside the trap */
		trap(0, 1000 * k + 180, 7);
	}
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(calls[i].func_id, i % 2 ? 9 : 100);
		ck_assert_int_eq(calls[i].flags, 0);
		ck_assert_int_eq(calls[i].incl_ns, i % 2 ? 70 : 40);
	}
	ck_assert_int_eq(ftree_stats(ft)->complete, 4);
	ck_assert_int_eq(ftree_stats(ft)->gap, 0);
	check_identity();
}
END_TEST

/* rt_sigreturn's exit is numbered -1 (the kernel clears it): it ends the open call. */
START_TEST(test_exit_numbered_minus_one)
{
	sys(1, 100, 0, 7, 15, 1);
	sys(0, 130, 0, 7, -1, 1);
	sys(0, 200, 0, 7, -1, 1); /* nothing open: neither entry nor name, no call */
	sys(1, 300, 0, 7, 0, 1);
	sys(0, 320, 0, 7, 0, 1);
	ck_assert_int_eq(ftree_finish(ft), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].func_id, 115);
	ck_assert_int_eq(calls[0].incl_ns, 30);
	ck_assert_int_eq(calls[0].flags, 0);
	ck_assert_int_eq(calls[1].func_id, 100);
	ck_assert_int_eq(calls[1].flags, 0);
	ck_assert_int_eq(ftree_stats(ft)->no_entry + ftree_stats(ft)->no_exit, 0);
}
END_TEST

/* ---- the decoder's system call names, on small hand-made recordings ---- */

#define COMMON                                                                                     \
	"format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"            \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define SYSCALLS_FMT(NAME, ID)                                                                     \
	"name: " NAME "\nID: " ID "\n" COMMON                                                      \
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n"

/* Add syscalls:* format @text to @t. */
static void syscalls_format(struct tdat *t, const char *text)
{
	t->formats[t->nformats].system = "syscalls";
	t->formats[t->nformats++].text = text;
}

/* raw_syscalls:sys_enter (21) or sys_exit (22) of system call @nr, at @ts */
static void raw_sys(struct tdat *t, uint64_t ts, int enter, int64_t nr)
{
	uint8_t b[24] = {0};
	uint16_t type = enter ? 21 : 22;
	int32_t pid = 7;

	memcpy(b, &type, 2);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &nr, 8);
	tdat_event(t, 0, ts, b, sizeof(b));
}

/* syscalls:sys_enter_NAME (event @type) of system call @nr, at @ts */
static void named_sys(struct tdat *t, uint64_t ts, uint16_t type, int32_t nr)
{
	uint8_t b[12] = {0};
	int32_t pid = 7;

	memcpy(b, &type, 2);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &nr, 4);
	tdat_event(t, 0, ts, b, sizeof(b));
}

/* Decode the recording @t (written to a file) as darc analyze does, and
   call @fn with each event (@fs names its functions): the system calls'
   names learnt in the pass when @in_pass (then *@late says whether one came
   too late), else by the prescan. */
static void decode_each_mode(const struct tdat *t,
			     void (*fn)(const struct analysis_event *a, struct funcs *fs, void *ctx),
			     void *ctx, bool in_pass, bool *late)
{
	char path[] = "/tmp/darc-test-decode-XXXXXX";
	int fd = mkstemp(path);
	struct err_msg err;
	struct fmt_reader *r, *r2;
	struct funcs *fs = funcs_new();
	struct decoder *d;
	struct fmt_event ev;
	struct analysis_event a;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_gt(tdat_write(t, path), 0);
	r = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	d = decode_new(r, fs, decode_syscall_abi(fmt_reader_info(r)->uname, 8, false));
	ck_assert_ptr_nonnull(d);
	if (decode_needs_prescan(d, in_pass)) {
		r2 = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, &err);
		ck_assert_ptr_nonnull(r2);
		ck_assert_int_eq(decode_prescan(d, r2, &err), 0);
		fmt_reader_close(r2);
	}
	while (fmt_reader_next(r, &ev, &err) > 0) {
		ck_assert_int_eq(decode(d, &ev, &a), 0);
		fn(&a, fs, ctx);
	}
	if (late)
		*late = decode_names_late(d);
	else
		ck_assert(!decode_names_late(d)); /* with the prescan, never */
	decode_free(d);
	fmt_reader_close(r);
	funcs_free(fs);
	unlink(path);
}

static void decode_each(const struct tdat *t,
			void (*fn)(const struct analysis_event *a, struct funcs *fs, void *ctx),
			void *ctx)
{
	decode_each_mode(t, fn, ctx, false, NULL);
}

struct text {
	char *s;
	size_t n;
};

/* For each raw_syscalls event, "NAME" (its func), "trap", or "-" (no func). */
static void raw_name(const struct analysis_event *a, struct funcs *fs, void *ctx)
{
	struct text *o = ctx;
	size_t k = strlen(o->s);

	if ((a->kind != EVENT_SYS_ENTER && a->kind != EVENT_SYS_EXIT) || !a->sys.raw)
		return;
	snprintf(o->s + k, o->n - k, "%s%s", k ? " " : "",
		 a->sys.trap ? "trap" : a->sys.func_id ? funcs_get(fs, a->sys.func_id)->name : "-");
}

/* Write in @out the names of the raw_syscalls events of @t, space-separated. */
static void decode_raw(const struct tdat *t, char *out, size_t n)
{
	struct text o = {out, n};

	out[0] = 0;
	decode_each(t, raw_name, &o);
}

/* A recording of one CPU with the raw_syscalls formats, and a page at @ts. */
static void raw_syscalls_formats(struct tdat *t, uint64_t ts)
{
	static const char enter[] = "name: sys_enter\nID: 21\n" COMMON
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
		"print fmt: \"NR %ld\", REC->id\n";
	static const char exit_[] = "name: sys_exit\nID: 22\n" COMMON
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
		"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

	tdat_init(t, 1);
	t->formats[t->nformats].system = "raw_syscalls";
	t->formats[t->nformats++].text = enter;
	t->formats[t->nformats].system = "raw_syscalls";
	t->formats[t->nformats++].text = exit_;
	tdat_page(t, 0, ts, 0);
}

static void raw_syscalls_recording(struct tdat *t)
{
	raw_syscalls_formats(t, 1000);
	raw_sys(t, 1000, 1, 600); /* named by a syscalls:* event further on */
	raw_sys(t, 1010, 0, 600);
	raw_sys(t, 1020, 1, 0);	  /* the recording names it otherwise than the table */
	raw_sys(t, 1030, 0, 0);
	raw_sys(t, 1040, 1, 1);	  /* the table's name */
	raw_sys(t, 1050, 1, 335); /* the uretprobe trap (x86-64, by the table) */
	raw_sys(t, 1060, 0, -1);  /* its exit: no number */
}

/* Without syscalls:* events, raw numbers are named by the architecture's table. */
START_TEST(test_raw_names_by_table)
{
	static struct tdat t;
	char got[256];

	raw_syscalls_recording(&t);
	decode_raw(&t, got, sizeof(got));
	ck_assert_str_eq(got, "syscall_600 syscall_600 read read write trap -");
}
END_TEST

/* With them, the recording's own names win: they are its kernel's. */
START_TEST(test_raw_names_by_recording)
{
	static struct tdat t;
	char got[256];

	raw_syscalls_recording(&t);
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_frobnicate", "23"));
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_newread", "24"));
	named_sys(&t, 1070, 23, 600);
	named_sys(&t, 1080, 24, 0);
	decode_raw(&t, got, sizeof(got));
	ck_assert_str_eq(got, "frobnicate frobnicate newread newread write trap -");
}
END_TEST

/* The names of @t's raw_syscalls events, learnt in the pass; *@late as decode_names_late(). */
static void decode_raw_in_pass(const struct tdat *t, char *out, size_t n, bool *late)
{
	struct text o = {out, n};

	out[0] = 0;
	decode_each_mode(t, raw_name, &o, true, late);
}

/*
 * Learnt in the pass, the names are the prescan's where they come in time:
 * none at all (the table's), or each syscalls:* event before the raw ones
 * of its number, or after them with the table's own name.
 */
START_TEST(test_raw_names_in_pass)
{
	static struct tdat t;
	char got[256];
	bool late = true;

	raw_syscalls_recording(&t);
	decode_raw_in_pass(&t, got, sizeof(got), &late);
	ck_assert_str_eq(got, "syscall_600 syscall_600 read read write trap -");
	ck_assert(!late);

	/* named before the raw events: the recording's names, in time */
	raw_syscalls_formats(&t, 900);
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_frobnicate", "23"));
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_write", "24"));
	named_sys(&t, 900, 23, 600);
	named_sys(&t, 910, 24, 1); /* after write's guess would be the same name */
	raw_sys(&t, 1000, 1, 600);
	raw_sys(&t, 1010, 0, 600);
	raw_sys(&t, 1040, 1, 1);
	named_sys(&t, 1050, 24, 1);
	decode_raw_in_pass(&t, got, sizeof(got), &late);
	ck_assert_str_eq(got, "frobnicate frobnicate write");
	ck_assert(!late);
}
END_TEST

/*
 * The raw recording, then a syscalls:* event (format @text, type 24) that
 * names system call @nr: its raw events' names in @got; whether too late.
 */
static bool named_after(const char *text, int nr, char *got, size_t n)
{
	static struct tdat t;
	bool late = false;

	raw_syscalls_recording(&t);
	syscalls_format(&t, text);
	named_sys(&t, 1080, 24, nr);
	decode_raw_in_pass(&t, got, n, &late);
	return late;
}

/* A name that comes after the raw events it would have named: too late, said. */
START_TEST(test_raw_names_late)
{
	char got[256];

	ck_assert(named_after(SYSCALLS_FMT("sys_enter_newread", "24"), 0, got, sizeof(got)));
	/* the table's name, met first, agreeing later: not late */
	ck_assert(!named_after(SYSCALLS_FMT("sys_enter_read", "24"), 0, got, sizeof(got)));
	ck_assert_str_eq(got, "syscall_600 syscall_600 read read write trap -");
}
END_TEST

/*
 * darc analyze on a recording whose name came too late: the pass is made
 * again with the prescan, and the database has the recording's names (a
 * syscall_600 or a read left over would be the first pass's).
 */
START_TEST(test_raw_names_again)
{
	static struct tdat t;
	char path[] = "/tmp/darc-test-again-XXXXXX", db[64], *names = NULL;
	int fd = mkstemp(path);
	struct err_msg err;
	sqlite3 *sql;
	sqlite3_stmt *st;

	ck_assert_int_ge(fd, 0);
	close(fd);
	raw_syscalls_recording(&t);
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_frobnicate", "23"));
	syscalls_format(&t, SYSCALLS_FMT("sys_enter_newread", "24"));
	named_sys(&t, 1070, 23, 600);
	named_sys(&t, 1080, 24, 0);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	snprintf(db, sizeof(db), "%s.db", path);
	ck_assert_msg(pipeline_run(path, db, NULL, NULL, &err) == PIPELINE_OK, "%s", err.msg);
	ck_assert_int_eq(sqlite3_open_v2(db, &sql, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(sql,
					    "SELECT group_concat(name, ' ') FROM"
					    " (SELECT DISTINCT name FROM func ORDER BY name)",
					    -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	names = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(sql);
	ck_assert_str_eq(names, "frobnicate newread write");
	free(names);
	unlink(db);
	unlink(path);
}
END_TEST

/* ---- probe pairs: which entries a return probe answers ---- */

#define PROBE_FMT(NAME, ID, FIELD)                                                                 \
	"name: " NAME "\nID: " ID "\n" COMMON "\tfield:unsigned long " FIELD                       \
	";\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n"

enum { ID_P_B = 40, ID_P_C, ID_R_A, ID_R_B, ID_UP, ID_UR };

#define FN_A 0xffffffff81000100ULL
#define FN_B 0xffffffff81000200ULL
#define FN_C 0xffffffff81000300ULL

/* A probe event: its type, its task, and the function it reports. */
struct probe_ev {
	uint16_t type;
	int32_t pid;
	uint64_t addr;
};

/* For each probe entry, "NAME=1" (a call's entry) or "NAME=0" (a point). */
static void entry_paired(const struct analysis_event *a, struct funcs *fs, void *ctx)
{
	struct text *o = ctx;
	size_t k = strlen(o->s);

	if (a->kind != EVENT_PROBE_ENTRY)
		return;
	snprintf(o->s + k, o->n - k, "%s%s=%d", k ? " " : "", funcs_get(fs, a->probe.func_id)->name,
		 a->probe.paired);
}

/*
 * Decode a recording with kprobes on fb and fc, kretprobes on fa and fb,
 * and with @uprobes, a uprobe and a uretprobe on one function of a
 * program; its events @ev, 10 ns apart. In @out, how each entry pairs.
 */
static void decode_probes(bool uprobes, const struct probe_ev *ev, size_t n, char *out,
			  size_t nout)
{
	static const char *const fmt[][2] = {
	    {"kprobes", PROBE_FMT("p_fb", "40", "__probe_ip")},
	    {"kprobes", PROBE_FMT("p_fc", "41", "__probe_ip")},
	    {"kprobes", PROBE_FMT("r_fa", "42", "__probe_func")},
	    {"kprobes", PROBE_FMT("r_fb", "43", "__probe_func")},
	    {"uprobes", PROBE_FMT("p_work", "44", "__probe_ip")},
	    {"uprobes", PROBE_FMT("r_work", "45", "__probe_func")},
	};
	static struct tdat t;
	struct text o = {out, nout};

	tdat_init(&t, 1);
	t.kallsyms = "ffffffff81000000 T _stext\nffffffff81000100 T fa\n"
		     "ffffffff81000200 T fb\nffffffff81000300 T fc\n";
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]) - (uprobes ? 0 : 2); i++) {
		t.formats[t.nformats].system = fmt[i][0];
		t.formats[t.nformats++].text = fmt[i][1];
	}
	tdat_page(&t, 0, 1000, 0);
	for (size_t i = 0; i < n; i++) {
		uint8_t b[16] = {0};

		memcpy(b, &ev[i].type, 2);
		memcpy(b + 4, &ev[i].pid, 4);
		memcpy(b + 8, &ev[i].addr, 8);
		tdat_event(&t, 0, 1000 + 10 * i, b, sizeof(b));
	}
	out[0] = 0;
	decode_each(&t, entry_paired, &o);
}

/*
 * A uretprobe reports the function at its address in each process: two
 * processes that map the program at different addresses pair their own
 * entries, though every return-probe type was seen before the second.
 */
START_TEST(test_uretprobe_addresses)
{
	static const struct probe_ev ev[] = {
	    {ID_R_A, 7, FN_A},	       {ID_UR, 8, 0x401000},
	    {ID_R_B, 7, FN_B},	       {ID_UP, 9, 0x402000},
	    {ID_UP, 10, 0x403000}, /* a process whose return never comes */
	    {ID_UR, 9, 0x402000},
	};
	char got[256];

	decode_probes(true, ev, sizeof(ev) / sizeof(ev[0]), got, sizeof(got));
	ck_assert_str_eq(got, "p_work=1 p_work=0");
}
END_TEST

/* A kretprobe first seen after the entries it pairs with still pairs them. */
START_TEST(test_kretprobe_late)
{
	static const struct probe_ev ev[] = {
	    {ID_R_A, 7, FN_A}, {ID_P_B, 7, FN_B}, {ID_P_C, 7, FN_C},
	    {ID_R_A, 7, FN_A}, {ID_R_B, 7, FN_B}, {ID_P_B, 7, FN_B},
	};
	char got[256];

	decode_probes(false, ev, sizeof(ev) / sizeof(ev[0]), got, sizeof(got));
	ck_assert_str_eq(got, "fb=1 fc=0 fb=1");
}
END_TEST

/* The args of each probe entry, one per line. */
static void entry_args(const struct analysis_event *a, struct funcs *fs, void *ctx)
{
	struct text *o = ctx;
	size_t k = strlen(o->s);

	(void)fs;
	if (a->kind == EVENT_PROBE_ENTRY)
		snprintf(o->s + k, o->n - k, "%s\n", a->probe.args);
}

/*
 * A kprobe hit with @path (@len bytes), an int, a pointer, a long and an
 * array as its fetch args (the layout of PROBE_ARGS_FMT), at @ts.
 */
static void args_rec(struct tdat *t, uint64_t ts, const char *path, uint16_t len)
{
	uint8_t b[512] = {0};
	uint16_t type = 46;
	int32_t pid = 7, n = -5;
	uint32_t loc = (uint32_t)len << 16 | 44;
	uint64_t ip = FN_A, p = FN_C;
	int64_t neg = INT64_MIN;

	memcpy(b, &type, 2);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &ip, 8);
	memcpy(b + 16, &loc, 4);
	memcpy(b + 20, &n, 4);
	memcpy(b + 24, &p, 8);
	memcpy(b + 32, &neg, 8);
	memcpy(b + 40, "\1\2\3\4", 4);
	memcpy(b + 44, path, len);
	tdat_event(t, 0, ts, b, 44 + len);
}

#define PROBE_ARGS_FMT                                                                             \
	"name: p_args\nID: 46\n" COMMON                                                            \
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"                       \
	"\tfield:__data_loc char[] path;\toffset:16;\tsize:4;\tsigned:0;\n"                        \
	"\tfield:int n;\toffset:20;\tsize:4;\tsigned:1;\n"                                         \
	"\tfield:unsigned long p;\toffset:24;\tsize:8;\tsigned:0;\n"                               \
	"\tfield:long neg;\toffset:32;\tsize:8;\tsigned:1;\n"                                      \
	"\tfield:int arr[1];\toffset:40;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n"

/* What jansson writes for the args of args_rec(): the JSON darc's must equal. */
static void args_by_jansson(const char *path, char *out, size_t n)
{
	json_t *o = json_object();
	char *s;

	json_object_set_new(o, "path", json_string(path));
	json_object_set_new(o, "n", json_integer(-5));
	json_object_set_new(o, "p", json_string("0xffffffff81000300"));
	json_object_set_new(o, "neg", json_integer(INT64_MIN));
	json_object_set_new(o, "arr", json_null());
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	ck_assert_ptr_nonnull(s);
	snprintf(out + strlen(out), n - strlen(out), "%s\n", s);
	free(s);
	json_decref(o);
}

/*
 * A probe's args in JSON, as jansson writes them: every ASCII character
 * (escaped where JSON wants it), a string past ASCII, each kind of number.
 */
START_TEST(test_probe_args_json)
{
	static struct tdat t;
	char ascii[128], got[2048] = "", want[2048] = "";
	struct text o = {got, sizeof(got)};
	const char *utf8 = "caf\xc3\xa9 \xf0\x9f\x90\xa7";

	for (int c = 1; c < 128; c++)
		ascii[c - 1] = (char)c;
	ascii[127] = 0;
	tdat_init(&t, 1);
	t.kallsyms = "ffffffff81000000 T _stext\nffffffff81000100 T fa\n";
	t.formats[t.nformats].system = "kprobes";
	t.formats[t.nformats++].text = PROBE_ARGS_FMT;
	tdat_page(&t, 0, 1000, 0);
	args_rec(&t, 1000, ascii, sizeof(ascii));
	args_rec(&t, 1010, utf8, strlen(utf8) + 1);
	args_rec(&t, 1020, "", 0);
	decode_each(&t, entry_args, &o);
	args_by_jansson(ascii, want, sizeof(want));
	args_by_jansson(utf8, want, sizeof(want));
	args_by_jansson("", want, sizeof(want));
	ck_assert_str_eq(got, want);
}
END_TEST

/* ---- a 5.15 kernel's irq events, written as a trace.dat ---- */

#define IRQ_FMT(NAME, ID, FIELDS) "name: " NAME "\nID: " ID "\n" COMMON FIELDS "\nprint fmt: \"\"\n"
#define VEC_FIELD "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n"

enum { ID_STACK = 4, ID_IRQ_ENTRY = 30, ID_IRQ_EXIT, ID_RAISE, ID_SOFT_ENTRY, ID_SOFT_EXIT, ID_WAKING };

/* One record: the common fields, then @a and @b (the irq and the name's
   __data_loc, or ret; a vector), then @tail (the name, or stack frames). */
static void irq_rec(struct tdat *t, uint64_t ts, uint16_t type, uint8_t flags, int32_t a,
		    int32_t b, const void *tail, size_t ntail)
{
	uint8_t r[96] = {0};
	int32_t pid = 7;

	memcpy(r, &type, 2);
	r[2] = flags;
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &a, 4);
	memcpy(r + 12, &b, 4);
	memcpy(r + 16, tail, ntail);
	tdat_event(t, 0, ts, r, 16 + ntail);
}

/* The event, then the kernel_stack event the stacktrace option adds to each. */
static void with_stack(struct tdat *t, uint64_t ts, uint16_t type, uint8_t flags, int32_t a)
{
	static const char name[8] = "virtio0";
	uint64_t frames[2] = {0xffffffff81000010ULL, 0xffffffff81000020ULL};

	if (type == ID_IRQ_ENTRY)
		irq_rec(t, ts, type, flags, a, 16 | (int32_t)sizeof(name) << 16, name, sizeof(name));
	else
		irq_rec(t, ts, type, flags, a, 1, "", 0);
	irq_rec(t, ts + 1, ID_STACK, flags, 2, 0, frames, sizeof(frames));
}

/*
 * What a 5.15 kernel records with the stacktrace option: the handler raises
 * softirq 1 (TIMER) with the hardirq flag, and on irq exit the softirq runs,
 * its entry, exit and the wake-up in it still showing the hardirq flag.
 * Three such interrupts of task 7, 1000 ns apart.
 */
static void irq_exit_softirq_recording(struct tdat *t)
{
	static const char *const ftrace[] = {
		IRQ_FMT("kernel_stack", "4", "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
			"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"),
		NULL};

	tdat_init(t, 1);
	t->ftrace_formats = ftrace;
	t->formats[t->nformats].system = "irq";
	t->formats[t->nformats++].text = IRQ_FMT("irq_handler_entry", "30",
		"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n");
	t->formats[t->nformats].system = "irq";
	t->formats[t->nformats++].text = IRQ_FMT("irq_handler_exit", "31",
		"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n");
	t->formats[t->nformats].system = "irq";
	t->formats[t->nformats++].text = IRQ_FMT("softirq_raise", "32", VEC_FIELD);
	t->formats[t->nformats].system = "irq";
	t->formats[t->nformats++].text = IRQ_FMT("softirq_entry", "33", VEC_FIELD);
	t->formats[t->nformats].system = "irq";
	t->formats[t->nformats++].text = IRQ_FMT("softirq_exit", "34", VEC_FIELD);
	t->formats[t->nformats].system = "sched";
	t->formats[t->nformats++].text = IRQ_FMT("sched_waking", "35",
		"\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:int target_cpu;\toffset:12;\tsize:4;\tsigned:1;\n");
	tdat_page(t, 0, 1000, 0);
	for (uint64_t t0 = 1000; t0 < 4000; t0 += 1000) {
		with_stack(t, t0 + 100, ID_IRQ_ENTRY, HARD, 26);
		with_stack(t, t0 + 150, ID_RAISE, HARD, 1);
		with_stack(t, t0 + 400, ID_IRQ_EXIT, HARD, 26);
		with_stack(t, t0 + 420, ID_SOFT_ENTRY, HARD | SOFT, 1);
		with_stack(t, t0 + 500, ID_WAKING, HARD | SOFT, 15); /* the timer wakes task 15 */
		with_stack(t, t0 + 700, ID_SOFT_EXIT, HARD | SOFT, 1);
	}
	with_stack(t, 5000, ID_RAISE, HARD, 9); /* raised, never run: no interval */
}

static void feed_one(const struct analysis_event *a, struct funcs *fs, void *ctx)
{
	feed(*a);
}

/* Decode @t's events as darc analyze does and feed them to ft. */
static void feed_recording(const struct tdat *t)
{
	decode_each(t, feed_one, NULL);
	ck_assert_int_eq(ftree_finish(ft), 0);
}

/*
 * Each interrupt is one hardirq interval, handler entry to exit (300 ns),
 * and one softirq interval, softirq entry to exit (280 ns): the raise and
 * the stack traces open none, the hardirq flag does not make the softirq a
 * hardirq, and the handler does not take the softirq's time.
 */
START_TEST(test_softirq_on_irq_exit_5_15)
{
	static struct tdat t;

	irq_exit_softirq_recording(&t);
	feed_recording(&t);
	for (int i = 0; i < nirqs; i++) 	ck_assert_int_eq(nirqs, 6);
	for (int i = 0; i < 3; i++) {
		const struct irq_rec *h = &irqs[2 * i], *s = &irqs[2 * i + 1];
		int64_t t0 = 1000 + 1000 * i;

		ck_assert_int_eq(h->kind, IRQ_HARD);
		ck_assert_int_eq(h->irq, 26);
		ck_assert_str_eq(h->name, "virtio0");
		ck_assert_int_eq(h->t_start, t0 + 100);
		ck_assert_int_eq(h->t_end, t0 + 400);
		ck_assert_int_eq(s->kind, IRQ_SOFT);
		ck_assert_int_eq(s->irq, 1);
		ck_assert_str_eq(s->name, "TIMER");
		ck_assert_int_eq(s->t_start, t0 + 420);
		ck_assert_int_eq(s->t_end, t0 + 700);
		ck_assert_int_eq(s->task_id, 7);
		/* the hardirq flag in it does not make its wake-up a hardirq's */
		ck_assert_int_eq(wakes[i].t, t0 + 500);
		ck_assert_int_eq(wakes[i].ctx, CTX_SOFTIRQ);
		ck_assert_str_eq(wakes[i].handler, "TIMER");
	}
	ck_assert_int_eq(nwakes, 3);
}
END_TEST

#define FG_FMT(NAME, ID, FIELDS)                                                                   \
	"name: " NAME "\nID: " ID "\n" COMMON                                                      \
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"                            \
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n" FIELDS "\nprint fmt: \"\"\n"

/* A function_graph entry or @exit of func 0xffffffff81000100 + @f, depth 0, task 7. */
static void fg_rec(struct tdat *t, uint64_t ts, int f, int exit, int64_t ct, int64_t rt)
{
	uint8_t r[40] = {0};
	uint16_t type = exit ? 10 : 11;
	int32_t pid = 7;
	uint64_t func = 0xffffffff81000100ULL + (uint64_t)f;

	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &func, 8);
	if (exit) {
		memcpy(r + 24, &ct, 8);
		memcpy(r + 32, &rt, 8);
	}
	tdat_event(t, 0, ts, r, exit ? 40 : 24);
}

/*
 * With the mono clock, function_graph's own times (local) are moved onto the
 * events' by an offset estimated from the exits. The CPU's first exit here
 * was written 150 ms after its return (its virtual CPU stopped between): the
 * offset it gives is 150 ms too large, and the second exit's gap shows it.
 * Each call's duration is still rettime - calltime, as trace-cmd prints it:
 * 30010, 2010, 3010; the fourth exit's rettime is damaged (50 ms late), and
 * only that one call falls back to its events' times (and is flagged), the
 * fifth is whole.
 */
START_TEST(test_first_exit_written_late)
{
	static const char *const ftrace[] = {
	    FG_FMT("funcgraph_exit", "10", "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
		   "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n"),
	    FG_FMT("funcgraph_entry", "11", ""), NULL};
	static struct tdat t;
	const int64_t local = 3000000000LL; /* mono - local */
	const int64_t ms = 1000000;
	/* entry event, calltime, rettime, exit event (mono) */
	const int64_t c[5][4] = {{10000, 9990, 40000, 150 * ms + 40000},
				 {206 * ms, 206 * ms - 10, 206 * ms + 2000, 206 * ms + 2050},
				 {207 * ms, 207 * ms - 10, 207 * ms + 3000, 207 * ms + 3040},
				 {208 * ms, 208 * ms - 10, 258 * ms + 1000, 208 * ms + 1030},
				 {209 * ms, 209 * ms - 10, 209 * ms + 4000, 209 * ms + 4060}};
	const int64_t incl[5] = {30010, 2010, 3010, 1030, 4010};

	tdat_init(&t, 1);
	t.ftrace_formats = ftrace;
	t.clock = "mono";
	tdat_page(&t, 0, 10000, 0);
	for (int i = 0; i < 5; i++) {
		fg_rec(&t, (uint64_t)c[i][0], i, 0, 0, 0);
		fg_rec(&t, (uint64_t)c[i][3], i, 1, c[i][1] - local, c[i][2] - local);
	}
	feed_recording(&t);
	ck_assert_int_eq(ncalls, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(calls[i].incl_ns, incl[i]);
		ck_assert_uint_eq(calls[i].flags, i == 3 ? CALL_BAD_TIME : 0);
	}
	ck_assert_int_eq(calls[0].t_entry, c[0][0]);
	check_identity();
}
END_TEST

static Suite *ftree_suite(void)
{
	Suite *s = suite_create("ftree");
	TCase *tc = tcase_create("decomposition");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_irq_in_call);
	tcase_add_test(tc, test_syscall_names);
	tcase_add_test(tc, test_quant_exact);
	tcase_add_test(tc, test_uretprobe_trap);
	tcase_add_test(tc, test_exit_numbered_minus_one);
	tcase_add_test(tc, test_softirq_after_irq);
	tcase_add_test(tc, test_preempted_resume_other_cpu);
	tcase_add_test(tc, test_blocked_irq_waker);
	tcase_add_test(tc, test_recursion_and_children);
	tcase_add_test(tc, test_calltime_before_entry_event);
	tcase_add_test(tc, test_missing_entry_and_exit);
	tcase_add_test(tc, test_lost_events_gap);
	tcase_add_test(tc, test_sched_gaps);
	tcase_add_test(tc, test_timer_irq_from_function_graph);
	tcase_add_test(tc, test_syscall_seen_twice);
	tcase_add_test(tc, test_exit_written_late);
	tcase_add_test(tc, test_exit_written_late_inside);
	tcase_add_test(tc, test_exit_never_written);
	tcase_add_test(tc, test_hist_buckets);
	tcase_add_test(tc, test_hist_merge);
	tcase_add_test(tc, test_hist_each_all);
	tcase_add_test(tc, test_hist_coarse);
	tcase_add_test(tc, test_probe_without_return);
	tcase_add_test(tc, test_probe_pair);
	tcase_add_test(tc, test_implausible_calltime);
	tcase_add_test(tc, test_bad_time_exit);
	tcase_add_test(tc, test_first_exit_written_late);
	tcase_add_test(tc, test_call_values);
	suite_add_tcase(s, tc);
	tc = tcase_create("decode");
	tcase_add_test(tc, test_raw_names_by_table);
	tcase_add_test(tc, test_raw_names_by_recording);
	tcase_add_test(tc, test_raw_names_in_pass);
	tcase_add_test(tc, test_raw_names_late);
	tcase_add_test(tc, test_raw_names_again);
	tcase_add_test(tc, test_uretprobe_addresses);
	tcase_add_test(tc, test_kretprobe_late);
	tcase_add_test(tc, test_probe_args_json);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_softirq_on_irq_exit_5_15);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(ftree_suite());
}
