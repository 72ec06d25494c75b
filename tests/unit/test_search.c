// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/report/search.c, DARC's root-cause search, on
 * built trees: one test per rule of analyze/METHODS.md section 7.
 */
#include <check.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "rdb.h"
#include "search-db.h"
#include "search.h"
#include "db.h"
#include "unit-run.h"

#define MAXC 20000
static struct search_call calls[MAXC];
static struct search_irq irqs[64];
static int ncalls, nirqs;
static const int soft[4] = {0, 1, 0, 0}; /* source 1 is a softirq vector */
static struct search_result res;

/* Also called between a test's searches: the last result is freed, not dropped. */
static void setup(void)
{
	ncalls = nirqs = 0;
	search_release(&res);
}

static void teardown(void)
{
	search_release(&res);
}

/* A call of @fnode under @parent (-1: an f0 call) taking @incl ns, nothing else. */
static int add(int parent, int64_t fnode, int64_t incl)
{
	ck_assert_int_lt(ncalls, MAXC);
	calls[ncalls] = (struct search_call){parent, fnode, incl, 0, 0, 0, 0};
	return ncalls++;
}

static void irq(int call, int source, int64_t ns)
{
	irqs[nirqs++] = (struct search_irq){call, source, ns};
	if (soft[source])
		calls[call].softirq += ns;
	else
		calls[call].irq += ns;
}

static int search(double pct, int mode)
{
	struct search_input in = {calls, ncalls, irqs, nirqs, 4, soft};
	struct search_params p = SEARCH_PARAMS_DEFAULT;

	p.maxcount_pct = pct;
	p.mode = mode;
	search_release(&res);
	return search_run(&in, &p, &res);
}

/* The path as "fnode:3 fnode:7 self" following single winners from f0. */
static const char *path(void)
{
	static char buf[512];
	int at = 0;

	buf[0] = 0;
	for (int n = 1; n < res.nnodes; n++) {
		const struct search_node *x = &res.nodes[n];
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s", at ? " " : "",
			       search_kind_name(x->kind));
		if (x->kind == SEARCH_FNODE || x->kind == SEARCH_IRQ || x->kind == SEARCH_SOFTIRQ)
			at += snprintf(buf + at, sizeof(buf) - at, ":%lld", (long long)x->id);
	}
	return buf;
}

static int leaf_status(void)
{
	return res.nodes[res.nnodes - 1].status;
}

/* Depth 8, fan-out 2, 4, 8 by level, one slow leaf: exactly its path. */
START_TEST(test_synthetic_tree)
{
	static const int fan[] = {2, 4, 8, 2, 4, 8, 2, 4};
	char want[256] = "";
	int at = 0;

	for (int r = 0; r < 20; r++) {
		int level[9], fnode = 1;
		level[0] = add(-1, fnode, 0);
		/* a chain of the first child at each level; the slow leaf under child 1 of each */
		for (int d = 0; d < 8; d++) {
			int slow = -1;
			for (int k = 0; k < fan[d]; k++) {
				int c = add(level[d], 100 * (d + 1) + k, 1000);
				if (k == 1)
					slow = c;
			}
			level[d + 1] = slow;
		}
		/* make the chain down through child 1 slow: each level 2^20 more */
		for (int d = 8; d >= 1; d--)
			calls[level[d]].incl = (1 << 20) + 20000 * (8 - d) + 100000;
		calls[level[0]].incl = (1 << 21);
	}
	for (int d = 0; d < 8; d++)
		at += snprintf(want + at, sizeof(want) - at, "%sfnode:%d", d ? " " : "", 100 * (d + 1) + 1);
	/* the leaf has no children: its own time is the cause */
	snprintf(want + at, sizeof(want) - at, " self");
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), want);
	ck_assert_int_eq(leaf_status(), SEARCH_FOUND);
	ck_assert_int_eq(res.nodes[1].maxcount, 20);
}
END_TEST

/* max rule: a child called in a loop makes the caller the cause ... */
START_TEST(test_loop_max_rule)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1000000);
		for (int k = 0; k < 100; k++)
			add(a, 3, 9000); /* 100 x 9 us = 0.9 ms in the loop */
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self");
	/* ... by its vote; the time of the loop stays the callee's: self is 0.1 ms a call */
	ck_assert(res.nodes[2].total_ns == 10 * 100000.0);
	for (int k = 0; k < res.ncands; k++)
		if (res.cands[k].kind == SEARCH_FNODE && res.cands[k].id == 3)
			ck_assert(res.cands[k].total_ns == 10 * 900000.0);
	/* ... exact accounting (sum) sees the loop's total instead */
	ck_assert_int_eq(search(97, SEARCH_SUM), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 self");
}
END_TEST

/*
 * A function that sleeps in schedule() several times a call
 * (locks_lock_inode_wait): its own code is its time less all its children's,
 * not less the longest one's, so the path goes to the sleep, which holds
 * every one of the sleeps' time (mode max too).
 */
START_TEST(test_sleeps_in_loop)
{
	for (int mode = SEARCH_MAX; mode <= SEARCH_SUM; mode++) {
		setup();
		for (int r = 0; r < 10; r++) {
			int f0 = add(-1, 1, 1000000), a = add(f0, 2, 950000);
			for (int k = 0; k < 3; k++)
				calls[add(a, 3, 300000)].blocked = 300000;
		}
		ck_assert_int_eq(search(97, mode), 0);
		ck_assert_str_eq(path(), "fnode:2 fnode:3 blocked");
		ck_assert(res.nodes[3].total_ns == 10 * 900000.0);
		ck_assert(res.nodes[3].share > 0.899 && res.nodes[3].share < 0.901);
		for (int k = 0; k < res.ncands; k++)
			if (res.cands[k].kind == SEARCH_SELF && res.cands[k].node == 1)
				ck_assert(res.cands[k].total_ns == 10 * 50000.0);
	}
}
END_TEST

/* ... while one slow iteration makes the child the cause. */
START_TEST(test_loop_one_slow)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1000000);
		for (int k = 0; k < 10; k++)
			add(a, 3, k == 7 ? 900000 : 1000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 self");
}
END_TEST

/* Two children in the same bucket in every call: the path branches. */
START_TEST(test_tie_branches)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 2100000);
		add(f0, 2, 1000000);
		add(f0, 3, 1040000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self fnode:3 self");
	ck_assert_int_eq(res.nodes[1].parent, 0);
	ck_assert_int_eq(res.nodes[3].parent, 0);
}
END_TEST

/* The same callee under two parents is two fnodes: the slow one is followed. */
START_TEST(test_two_parents)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1300000), a = add(f0, 2, 100000), b = add(f0, 3, 1100000);
		add(a, 4, 90000); /* x under a: fnode 4 */
		add(b, 5, 1000000); /* x under b: fnode 5, slow */
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:3 fnode:5 self");
}
END_TEST

/* Recursion: each level its own fnode, the inner one is the cause. */
START_TEST(test_recursion)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), w1 = add(f0, 2, 1050000), w2 = add(w1, 3, 1000000);
		add(w2, 4, 1000); /* a quick call below */
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 self");
}
END_TEST

/* Case E: a cause in a minority of the calls shows at 50 %, not at 97 %. */
START_TEST(test_case_e)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000);
		add(f0, 2, r < 6 ? 1000000 : 1000);
		add(f0, 3, r < 6 ? 1000 : 1000000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self");
	ck_assert_int_eq(res.nodes[1].maxcount, 6);
	/* the dropped one is still a candidate, with its votes */
	{
		int seen = 0;
		for (int i = 0; i < res.ncands; i++)
			if (res.cands[i].node == 0 && res.cands[i].kind == SEARCH_FNODE &&
			    res.cands[i].id == 3) {
				ck_assert_int_eq(res.cands[i].maxcount, 4);
				ck_assert_int_eq(res.cands[i].winner, 0);
				seen = 1;
			}
		ck_assert(seen);
	}
	ck_assert_int_eq(search(50, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self fnode:3 self");
}
END_TEST

/* Exogenous winners, counted over the subtree: an interrupt, a softirq, preemption. */
START_TEST(test_exogenous)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1050000), b = add(a, 3, 1000000);
		irq(b, 2, 990000); /* deep inside: still f0's cause at the first level */
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "irq:2");
	ck_assert_int_eq(res.nodes[1].status, SEARCH_FOUND);

	setup();
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1050000);
		irq(a, 1, 1000000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "softirq:1");

	setup();
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1050000);
		calls[a].preempt = 1000000;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "preemption");
}
END_TEST

/* An exogenous cause tied with a callee is found once, at the first level. */
START_TEST(test_exogenous_once)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 2700000), a = add(f0, 2, 2650000), b = add(a, 3, 2600000);
		calls[b].preempt = 1200000; /* as much preempted as its own work: a tie */
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 self preemption");
	ck_assert_int_eq(res.nodes[4].parent, 0);
}
END_TEST

/* Blocking is endogenous: the path leads to the function that slept. */
START_TEST(test_blocked)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), a = add(f0, 2, 1050000), b = add(a, 3, 1000000);
		calls[b].blocked = 990000;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 blocked");
}
END_TEST

/* The stop rules: below min_bucket, and the maximum depth. */
START_TEST(test_stops)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 60), a = add(f0, 2, 50);
		add(a, 3, 40);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2");
	ck_assert_int_eq(leaf_status(), SEARCH_MIN_BUCKET);
}
END_TEST

/* The node of the result with status @status (the first), or -1. */
static int node_with(int status)
{
	for (int n = 0; n < res.nnodes; n++)
		if (res.nodes[n].status == status)
			return n;
	return -1;
}

/*
 * At max_depth the time below the last node is what it is: a chain of 12
 * callees, each 80% of its caller (no wrappers), the last asleep for 60 K
 * of its 72 K ns. The path stops at depth 10 (fnode 11), and under it its
 * parts below the limit: the sleep (in fnode 13, two levels down) and the
 * CPU time (most of it fnode 11's own), not 100% of fnode 11's own time.
 */
START_TEST(test_depth_limit)
{
	for (int r = 0; r < 10; r++) {
		int c = add(-1, 1, 1 << 20);
		double v = 1 << 20;
		for (int d = 0; d < 12; d++)
			c = add(c, 2 + d, (int64_t)(v *= 0.8));
		calls[c].blocked = 60000;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	int lim = node_with(SEARCH_MAX_DEPTH), b = -1, self = -1;
	ck_assert_int_ge(lim, 0);
	ck_assert_int_eq(res.nodes[lim].depth, 10);
	ck_assert_int_eq(res.nodes[lim].id, 11);
	for (int n = lim + 1; n < res.nnodes; n++) {
		ck_assert_int_eq(res.nodes[n].parent, lim);
		ck_assert_int_eq(res.nodes[n].status, SEARCH_BELOW);
		b = res.nodes[n].kind == SEARCH_BLOCKED ? n : b;
		self = res.nodes[n].kind == SEARCH_SELF ? n : self;
	}
	ck_assert_int_ge(b, 0);
	ck_assert_int_ge(self, 0);
	ck_assert_int_eq(res.nodes[b].at, 13);
	ck_assert_double_eq_tol(res.nodes[b].total_ns, 10 * 60000.0, 1);
	ck_assert_int_eq(res.nodes[self].at, 11);
	/* the two parts are the node's value, split */
	ck_assert_double_eq_tol(res.nodes[b].total_ns + res.nodes[self].total_ns,
				res.nodes[lim].total_ns, 1);
}
END_TEST

/*
 * Causes by time: an fsync whose slow calls spend 61% in the journal's
 * commit (fnode 2, asleep) and 33% waiting for their own page writeback
 * (fnode 3 > 4, asleep): the commit wins every vote, the writeback none.
 * DARC's rule ends at the commit; with branch_pct 5 (explain's) the
 * writeback is searched too, for its time, down to its sleep.
 */
START_TEST(test_by_time)
{
	struct search_input in;
	struct search_params p = SEARCH_PARAMS_DEFAULT;
	int wb = -1;

	for (int r = 0; r < 30; r++) {
		int f0 = add(-1, 1, 1000000), a = add(f0, 2, 610000), b = add(f0, 3, 330000);
		int w = add(b, 4, 320000);
		calls[a].blocked = 600000;
		calls[w].blocked = 300000;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 blocked");
	in = (struct search_input){calls, ncalls, irqs, nirqs, 4, soft};
	p.branch_pct = 5;
	search_release(&res);
	ck_assert_int_eq(search_run(&in, &p, &res), 0);
	for (int n = 1; n < res.nnodes; n++)
		if (res.nodes[n].kind == SEARCH_FNODE && res.nodes[n].id == 3)
			wb = n;
	ck_assert_int_ge(wb, 0);
	ck_assert_int_eq(res.nodes[wb].by_time, 1);
	ck_assert_int_eq(res.nodes[wb].maxcount, 0);
	ck_assert_double_eq_tol(res.nodes[wb].share, 0.33, 1e-9);
	ck_assert_int_eq(res.nodes[res.nnodes - 1].kind, SEARCH_BLOCKED);
	ck_assert_int_eq(res.nodes[res.nodes[res.nnodes - 1].parent].id, 4);
	ck_assert_int_eq(res.nodes[1].by_time, 0); /* the commit won its votes */
}
END_TEST

/*
 * A chain of wrappers costs no depth: 12 callees each holding nearly all of
 * its caller's time, the last asleep: the path goes down all of them to the
 * sleep (depth 13), where the depth limit had stopped it at 10.
 */
START_TEST(test_wrappers)
{
	for (int r = 0; r < 10; r++) {
		int c = add(-1, 1, 1 << 20);
		for (int d = 0; d < 12; d++)
			c = add(c, 2 + d, (1 << 20) - 1000 * d);
		calls[c].blocked = (1 << 20) - 20000;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_int_eq(node_with(SEARCH_MAX_DEPTH), -1);
	ck_assert_int_eq(res.nodes[res.nnodes - 1].kind, SEARCH_BLOCKED);
	ck_assert_int_eq(res.nodes[res.nnodes - 1].depth, 13);
	ck_assert_int_eq(res.nodes[res.nnodes - 1].parent, res.nnodes - 2);
	ck_assert_int_eq(res.nodes[res.nnodes - 2].id, 13);
	ck_assert_int_eq(leaf_status(), SEARCH_FOUND);
}
END_TEST

/*
 * f0 reached by two paths (fnodes 1 and 9) is one node: its level is voted
 * once over all its calls (one self, not one per fnode), and the threshold
 * is the whole level's, not each fnode's.
 */
START_TEST(test_f0_fnodes)
{
	for (int r = 0; r < 10; r++)
		add(-1, r < 6 ? 1 : 9, 1000000);
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "self");
	ck_assert_int_eq(res.nodes[1].maxcount, 10);

	setup();
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, r < 6 ? 1 : 9, 1100000);
		if (r < 6)
			add(f0, 2, 1000000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self");
	ck_assert_int_eq(res.nodes[1].maxcount, 6);
	for (int i = 0; i < res.ncands; i++) /* self of the other 4 calls: a runner-up */
		if (res.cands[i].node == 0 && res.cands[i].kind == SEARCH_SELF)
			ck_assert_int_eq(res.cands[i].maxcount, 4);
}
END_TEST

/*
 * The tracer's own handler (600 us of each call) is no candidate and not
 * the caller's self: the real callee (400 us) is the cause, and the
 * handler's time is reported as overhead. An interrupt inside the handler
 * is still an interrupt.
 */
START_TEST(test_overhead)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 1100000), h = add(f0, 3, 600000);
		add(f0, 2, 400000);
		add(h, 4, 100000); /* called inside the handler: overhead too */
		calls[h].overhead = 1;
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 self");
	ck_assert(res.nodes[0].overhead_ns == 10 * 600000.0);
	for (int i = 0; i < res.ncands; i++) {
		ck_assert(!(res.cands[i].kind == SEARCH_FNODE && res.cands[i].id == 3));
		if (res.cands[i].node == 0 && res.cands[i].kind == SEARCH_SELF)
			ck_assert(res.cands[i].total_ns == 10 * 100000.0);
	}

	setup();
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, 900000), h = add(f0, 3, 600000);
		add(f0, 2, 200000);
		calls[h].overhead = 1;
		irq(h, 2, 500000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "irq:2");
	ck_assert(res.nodes[0].overhead_ns == 10 * 100000.0);
}
END_TEST

/*
 * Votes once per f0 call at each level, counted over every call that
 * reaches the node: in 4 of 10 calls an interrupt of f0 beats fnode 2 at
 * the first level (6 votes), yet below it fnode 3 is the largest in all 10
 * (DARC's count: a child may have more votes than its parent).
 */
START_TEST(test_votes_per_level)
{
	for (int r = 0; r < 10; r++) {
		int f0 = add(-1, 1, r < 4 ? 2950000 : 1050000), a = add(f0, 2, 1000000);
		add(a, 3, 900000);
		if (r < 4)
			irq(f0, 2, 1900000);
	}
	ck_assert_int_eq(search(97, SEARCH_MAX), 0);
	ck_assert_str_eq(path(), "fnode:2 fnode:3 self");
	ck_assert_int_eq(res.nodes[1].maxcount, 6);
	ck_assert_int_eq(res.nodes[2].maxcount, 10);
	for (int i = 0; i < res.ncands; i++) {
		ck_assert_int_le(res.cands[i].maxcount, 10);
		if (res.cands[i].node == 0 && res.cands[i].kind == SEARCH_IRQ)
			ck_assert_int_eq(res.cands[i].maxcount, 4);
	}
}
END_TEST

START_TEST(test_bad_params)
{
	struct search_input in = {calls, 0, irqs, 0, 0, soft};
	struct search_params p = SEARCH_PARAMS_DEFAULT;

	p.maxcount_pct = 0;
	ck_assert_int_eq(search_run(&in, &p, &res), -1);
	p.maxcount_pct = 97;
	p.mode = 7;
	ck_assert_int_eq(search_run(&in, &p, &res), -1);
	p.mode = SEARCH_MAX;
	ck_assert_int_eq(search_run(&in, &p, &res), 0); /* no calls: only f0 */
	ck_assert_int_eq(res.nnodes, 1);
}
END_TEST

/* The exogenous time of call @i's subtree, straight from the definition. */
static int64_t exo_of(int i)
{
	int64_t v = calls[i].irq + calls[i].softirq + calls[i].preempt;

	for (int j = i + 1; j < ncalls; j++)
		if (calls[j].parent == i)
			v += calls[j].overhead ? calls[j].incl : exo_of(j);
	return v;
}

/* Nodes alike field by field (their padding is nobody's). */
static bool same_node(const struct search_node *a, const struct search_node *b)
{
	return a->parent == b->parent && a->depth == b->depth && a->kind == b->kind &&
	       a->id == b->id && a->maxcount == b->maxcount && a->ncalls == b->ncalls &&
	       a->total_ns == b->total_ns && a->share == b->share && a->status == b->status &&
	       a->level == b->level && a->by_time == b->by_time && a->overhead_ns == b->overhead_ns &&
	       a->at == b->at;
}

/* Candidates alike field by field (their padding is nobody's). */
static bool same_cand(const struct search_cand *a, const struct search_cand *b)
{
	return a->node == b->node && a->kind == b->kind && a->id == b->id &&
	       a->maxcount == b->maxcount && a->total_ns == b->total_ns && a->winner == b->winner;
}

/*
 * The tree a database is streamed into (search-db.c: calls in entry order,
 * each child of an open call) searches as the same calls given as input:
 * every node and candidate, on random trees with every kind of part.
 */
START_TEST(test_streamed_tree)
{
	struct search_params p = SEARCH_PARAMS_DEFAULT;
	unsigned seed = 24;

	for (int round = 0; round < 40; round++) {
		struct search_tree t = {0};
		struct search_result r2;
		int path[16], depth = 0, n = 200 + round * 10;
		setup();
		for (int i = 0; i < n; i++) {
			int d = i == 0 || rand_r(&seed) % 8 == 0 ? 0 : 1 + rand_r(&seed) % (depth < 15 ? depth : 15);
			int c = add(d ? path[d - 1] : -1, d ? 2 + rand_r(&seed) % 6 : 1,
				    1000 + rand_r(&seed) % 100000);
			calls[c].overhead = d && rand_r(&seed) % 17 == 0;
			calls[c].preempt = rand_r(&seed) % 9 == 0 ? rand_r(&seed) % 900 : 0;
			calls[c].blocked = rand_r(&seed) % 7 == 0 ? rand_r(&seed) % 900 : 0;
			if (rand_r(&seed) % 5 == 0 && nirqs < 64)
				irq(c, rand_r(&seed) % 3, 1 + rand_r(&seed) % 500);
			path[d] = c;
			depth = d + 1;
			ck_assert_int_eq(d ? search_tree_find(&t, path[d - 1]) : 0, d);
			ck_assert_int_eq(
			    search_tree_add(&t, d, c, calls[c].fnode, calls[c].incl,
					    calls[c].irq + calls[c].softirq + calls[c].preempt,
					    calls[c].preempt, calls[c].blocked, calls[c].overhead),
			    c);
		}
		ck_assert_int_eq(search_tree_end(&t), 0);
		for (int i = 0; i < n; i++)
			ck_assert(t.calls[i].value == calls[i].incl - exo_of(i));
		t.irqs = irqs;
		t.nirqs = nirqs;
		t.nsources = 4;
		t.source_soft = soft;
		p.mode = round % 2 ? SEARCH_SUM : SEARCH_MAX;
		p.maxcount_pct = round % 3 ? 97 : 50;
		ck_assert_int_eq(search(p.maxcount_pct, p.mode), 0);
		ck_assert_int_eq(search_run_tree(&t, &p, &r2), 0);
		ck_assert_int_eq(r2.nnodes, res.nnodes);
		ck_assert_int_eq(r2.ncands, res.ncands);
		for (int k = 0; k < res.nnodes; k++)
			ck_assert_msg(same_node(&r2.nodes[k], &res.nodes[k]), "node %d", k);
		for (int k = 0; k < res.ncands; k++)
			ck_assert_msg(same_cand(&r2.cands[k], &res.cands[k]), "candidate %d", k);
		search_release(&r2);
		t.irqs = NULL; /* the test's array */
		search_tree_release(&t);
	}
}
END_TEST

/* The ids in sr_root, "1,3,5", into @buf. */
static const char *roots(struct rdb *db, char *buf, size_t size)
{
	sqlite3_stmt *st;

	buf[0] = 0;
	ck_assert_int_eq(sqlite3_prepare_v2(rdb_sql(db), "SELECT group_concat(id) FROM"
				" (SELECT id FROM sr_root ORDER BY id)", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/*
 * rdb_preselect_calls(): the calls of two latency ranges of one selection
 * (explain's two slow parts of a subject) come from one scan of the calls,
 * and are those each range's own scan finds; a range outside it, another
 * selection, or after rdb_preselect_end(), are scanned for again.
 */
/* Profile @a and @ia as @b and @ib. */
static void same_profile(const struct profile *a, const struct rdb_profile_info *ia,
			 const struct profile *b, const struct rdb_profile_info *ib)
{
	ck_assert_str_eq(ia->what, ib->what);
	ck_assert_int_eq(ia->calls, ib->calls);
	ck_assert_int_eq(ia->skipped, ib->skipped);
	ck_assert_int_eq(ia->max_ns, ib->max_ns);
	ck_assert_int_eq(ia->total_ns, ib->total_ns);
	ck_assert_int_eq(ia->t0, ib->t0);
	ck_assert_mem_eq(&ia->quant, &ib->quant, sizeof(ia->quant));
	ck_assert_int_eq(a->resolution, b->resolution);
	ck_assert_int_eq(a->lo, b->lo);
	ck_assert_int_eq(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		ck_assert_int_eq(a->count[i], b->count[i]);
		ck_assert(a->lat_ns[i] == b->lat_ns[i]);
		ck_assert_int_eq(a->max_ns[i], b->max_ns[i]);
	}
}

/* A database at @path: function f's fast and slow calls, 20 in each of fnodes 1 and 2, by turns. */
static void two_fnodes_db(const char *path)
{
	struct err_msg err;
	struct db *w = db_create(path, true, &err);

	ck_assert_msg(w, "%s", err.msg);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){1, "f", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	for (int k = 1; k <= 2; k++)
		ck_assert_int_eq(db_put_fnode(w, &(struct fnode_rec){.id = k, .parent_id = DARC_NULL,
								     .func_id = 1, .calls = 20}), 0);
	for (int i = 1; i <= 40; i++) /* fast and slow calls of fnodes 1 and 2, by turns */
		ck_assert_int_eq(db_put_call(w, &(struct call_rec){.id = i, .task_id = 7, .func_id = 1,
			.parent_id = DARC_NULL, .last_id = i, .fnode_id = 1 + i % 4 / 2,
			.interrupted_id = DARC_NULL, .t_entry = 1000000 * i,
			.t_exit = 1000000 * i + (i % 2 ? 1000 : 100000) + i,
			.incl_ns = (i % 2 ? 1000 : 100000) + i, .excl_ns = (i % 2 ? 1000 : 100000) + i,
			.retval = DARC_NULL}), 0);
	ck_assert_msg(db_finish(w, &err) == 0, "%s", err.msg);
}

/* two_fnodes_db() made at the new file of template @path ("...XXXXXX"), opened. */
static struct rdb *open_two_fnodes(char *path)
{
	struct err_msg err;
	struct rdb *db;

	close(mkstemp(path));
	two_fnodes_db(path);
	db = rdb_open(path, &err);
	ck_assert_msg(db, "%s", err.msg);
	return db;
}

/*
 * What a search's details keep of its sleepers' wakers (paths_woken_by())
 * holds for that search only: search_db_load() makes sr_sub anew and says
 * so (rdb_search_gen()), and what was kept is then not answered.
 */
START_TEST(test_woken_by_search)
{
	char path[] = "/tmp/darc-unit-XXXXXX";
	struct err_msg err;
	struct rdb *db;
	struct call_selection sel = RSEL_INIT;
	struct rsearch rs;
	char *who = (char *)"x";
	int64_t gen;

	db = open_two_fnodes(path);
	sel.fnode = 1;
	ck_assert(!paths_woken_by(db, -1, &who) && !who);
	gen = rdb_search_gen(db);
	ck_assert_msg(search_db_load(db, &sel, 0, 61, &rs, &err) == 0, "%s", err.msg);
	search_db_release(&rs);
	ck_assert_int_eq(rdb_search_gen(db), gen + 1);
	paths_woken_keep(db, -1, "cat [7]");
	paths_woken_keep(db, 3, NULL);
	ck_assert(paths_woken_by(db, -1, &who));
	ck_assert_str_eq(who, "cat [7]");
	free(who);
	ck_assert(paths_woken_by(db, 3, &who) && !who); /* asked: no row */
	ck_assert(!paths_woken_by(db, 4, &who) && !who);
	/* another search (fnode 2's): nothing kept of fnode 1's answers */
	sel.fnode = 2;
	ck_assert_msg(search_db_load(db, &sel, 0, 61, &rs, &err) == 0, "%s", err.msg);
	search_db_release(&rs);
	ck_assert_int_eq(rdb_search_gen(db), gen + 2);
	ck_assert(!paths_woken_by(db, -1, &who) && !who);
	paths_woken_keep(db, -1, "dd [8]");
	ck_assert(paths_woken_by(db, -1, &who));
	ck_assert_str_eq(who, "dd [8]");
	free(who);
	rdb_close(db);
	unlink(path);
}
END_TEST

START_TEST(test_preselect)
{
	char path[] = "/tmp/darc-unit-XXXXXX", a[1024], b[1024], got[1024];
	struct err_msg err;
	struct rdb *db;
	struct call_selection sel = RSEL_INIT, other = RSEL_INIT;
	struct call_selection base = RSEL_INIT;
	struct profile p, p2, pp[2];
	struct rdb_profile_info info, info2, ii[2];
	const int64_t two[2] = {2, 1}, bad[2] = {1, 99};
	int64_t scans;

	db = open_two_fnodes(path);
	sel.fnode = 1;
	other.fnode = 2;
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	roots(db, a, sizeof(a));
	ck_assert_int_eq(rdb_select_calls(db, &sel, 50000, 500000, &err), 10);
	roots(db, b, sizeof(b));
	ck_assert_str_ne(a, b);
	scans = rdb_select_scans(db);
	ck_assert_int_eq(rdb_preselect_calls(db, &sel, 500, 500000, &err), 20);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), a);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 50000, 500000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), b);
	ck_assert_int_eq(rdb_select_scans(db), scans + 1); /* the preselection's, alone */
	ck_assert_int_eq(rdb_select_calls(db, &sel, 50000, 600000, &err), 10); /* outside */
	ck_assert_int_eq(rdb_select_calls(db, &other, 500, 5000, &err), 10); /* another */
	ck_assert_int_eq(rdb_select_scans(db), scans + 3);
	rdb_preselect_end(db);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), a);
	ck_assert_int_eq(rdb_select_scans(db), scans + 4);
	/* the profile's own read keeps the calls: its peaks' calls need no scan of their own */
	ck_assert_int_eq(rdb_profile_load_keep(db, &sel, &p, &info, &err), 0);
	ck_assert_int_eq(info.calls, 20);
	ck_assert_int_eq(rdb_preselect_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), a);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 50000, 600000, &err), 10); /* any range */
	ck_assert_str_eq(roots(db, got, sizeof(got)), b);
	ck_assert_int_eq(rdb_select_scans(db), scans + 4);
	ck_assert_int_eq(rdb_select_calls(db, &other, 500, 5000, &err), 10); /* another */
	ck_assert_int_eq(rdb_select_scans(db), scans + 5);
	rdb_preselect_end(db); /* kept still */
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_scans(db), scans + 5);
	/* two selections kept at once; forgotten */
	ck_assert_int_eq(rdb_profile_load_keep(db, &other, &p2, &info2, &err), 0);
	ck_assert_int_eq(rdb_select_calls(db, &other, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 50000, 600000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), b);
	ck_assert_int_eq(rdb_select_scans(db), scans + 5);
	rdb_kept_end(db);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_scans(db), scans + 6);
	/* both profiles from one read: each as its own read made it, and both kept */
	rdb_kept_end(db);
	ck_assert_int_eq(rdb_profiles_load_keep(db, &base, two, 2, pp, ii, &err), 0);
	same_profile(&pp[0], &ii[0], &p2, &info2);
	same_profile(&pp[1], &ii[1], &p, &info);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_str_eq(roots(db, got, sizeof(got)), a);
	ck_assert_int_eq(rdb_select_calls(db, &other, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_scans(db), scans + 6);
	for (int i = 0; i < 2; i++) {
		rdb_profile_release(&pp[i]);
		free(ii[i].what);
	}
	/* a fnode that is not there: none loaded, and said */
	rdb_kept_end(db);
	ck_assert_int_eq(rdb_profiles_load_keep(db, &base, bad, 2, pp, ii, &err), -1);
	ck_assert_msg(strstr(err.msg, ": no fnode 99"), "%s", err.msg);
	ck_assert_int_eq(rdb_select_calls(db, &sel, 500, 5000, &err), 10);
	ck_assert_int_eq(rdb_select_scans(db), scans + 7);
	rdb_profile_release(&p2);
	free(info2.what);
	rdb_profile_release(&p);
	free(info.what);
	rdb_close(db);
	unlink(path);
}
END_TEST

/* ---- a peak's calls read on two threads ---- */

#define SHARE_MAX 12000
static struct call_rec share_rows[SHARE_MAX]; /* by id - 1: written in order of id */
static struct irq_rec share_irqs[SHARE_MAX];
static struct sched_rec share_scheds[SHARE_MAX];
static int64_t share_id;
static int share_nirqs, share_nscheds;
static unsigned share_seed; /* rand_r()'s: set by the test, the same calls every run */

/* A call of fnode @fnode (1: f, 2: g, 3: h, 4: f under h) and, at random, its callees. */
static void share_call(int64_t parent, int64_t fnode, int depth, int64_t *t)
{
	int64_t id = ++share_id, t0 = *t;
	unsigned r = rand_r(&share_seed);
	struct call_rec *c;

	ck_assert_int_lt(share_id + 1, SHARE_MAX);
	*t += 100 + r % 1000;
	if (r % 3 == 0) { /* another task's call, or an interrupt's, inside the range */
		int64_t o = ++share_id;
		share_rows[o - 1] = (struct call_rec){.id = o, .task_id = 8 + r % 2, .func_id = 2,
			.parent_id = DARC_NULL, .last_id = o, .fnode_id = 5,
			.interrupted_id = DARC_NULL, .t_entry = *t, .t_exit = *t + 10,
			.incl_ns = 10, .excl_ns = 10, .retval = DARC_NULL};
	}
	for (int k = 0; depth < 4 && k < (int)(r / 7 % 4); k++)
		share_call(id, fnode == 3 ? 4 : fnode == 4 ? 2 : fnode + 1, depth + 1, t);
	c = &share_rows[id - 1];
	*c = (struct call_rec){.id = id, .task_id = 7, .func_id = fnode == 4 ? 1 : fnode,
			       .parent_id = parent, .last_id = share_id, .fnode_id = fnode,
			       .interrupted_id = DARC_NULL, .depth = depth, .t_entry = t0,
			       .t_exit = *t, .incl_ns = *t - t0, .retval = DARC_NULL};
	if (r % 5 == 0)
		c->preempt_ns = 1 + r % 50;
	if (r % 11 == 0)
		c->blocked_ns = 1 + r % 70;
	c->excl_ns = c->incl_ns - c->preempt_ns - c->blocked_ns;
	if (r % 4 == 0) { /* interrupts of four sources, first seen in either half */
		static const char *const names[] = {"TIMER", "virtio0", "RCU", "eth0"};
		int n = (int)(r / 13 % 4);
		share_irqs[share_nirqs] = (struct irq_rec){0, 0, n % 2 ? IRQ_HARD : IRQ_SOFT, n,
			names[n], t0 + 1, t0 + 3, 7, id};
		share_nirqs++;
	}
	if (r % 6 == 0)
		share_scheds[share_nscheds++] = (struct sched_rec){0, 7, SCHED_PREEMPTED, 0, 0, 0,
			t0 + 2, t0 + 4, id, DARC_NULL};
}

static int by_call(const void *a, const void *b)
{
	const struct irq_rec *x = a, *y = b;
	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

static int by_sched_call(const void *a, const void *b)
{
	const struct sched_rec *x = a, *y = b;
	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

/* The calls, interrupts and switches share_call() made, into @db in order. */
static void share_put(struct db *db)
{
	qsort(share_irqs, share_nirqs, sizeof(*share_irqs), by_call);
	qsort(share_scheds, share_nscheds, sizeof(*share_scheds), by_sched_call);
	for (int64_t i = 0; i < share_id; i++)
		ck_assert_int_eq(db_put_call(db, &share_rows[i]), 0);
	for (int i = 0; i < share_nirqs; i++) {
		share_irqs[i].id = i + 1;
		ck_assert_int_eq(db_put_irq(db, &share_irqs[i]), 0);
	}
	for (int i = 0; i < share_nscheds; i++) {
		share_scheds[i].id = i + 1;
		ck_assert_int_eq(db_put_sched(db, &share_scheds[i]), 0);
	}
}

/* The rows of sr_sub as text ("id:parent:fnode"); a row whose fnode is not its call's fails. */
static char *sub_rows(struct rdb *db)
{
	sqlite3_stmt *st;
	char *text = NULL;

	ck_assert_int_eq(sqlite3_prepare_v2(rdb_sql(db), "SELECT group_concat(s.id || ':' ||"
		" coalesce(s.parent, '-') || ':' || s.fnode || iif(c.fnode_id = s.fnode, '', '!'), ' ')"
		" FROM (SELECT * FROM sr_sub ORDER BY id) s LEFT JOIN call_base c ON c.id = s.id",
		-1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return text ? text : strdup("");
}

/*
 * search_db_load() with the later f0 calls on a second thread builds the
 * tree, the sources and sr_sub that one thread builds: f0 calls nested in
 * others (f under h), other tasks' and interrupts' calls inside the ranges,
 * every kind of part, interrupts whose sources come first in either half.
 */
/*
 * The profiles read on two connections, half the ids each (rdb_split_min
 * lowered), are those one read makes, field by field, and keep the same
 * calls: of an fnode, of a function (its fnodes), and of two fnodes at once.
 */
START_TEST(test_split_scan)
{
	char path[] = "/tmp/darc-unit-XXXXXX", a[1024], got[1024];
	struct err_msg err;
	struct rdb *db;
	struct call_selection one = RSEL_INIT, func = RSEL_INIT, base = RSEL_INIT;
	struct profile p[2][4];
	struct rdb_profile_info info[2][4];
	const int64_t two[2] = {2, 1};

	db = open_two_fnodes(path);
	one.fnode = 1;
	func.func = "f";
	for (int split = 0; split < 2; split++) {
		rdb_split_min = split ? 1 : 1 << 30;
		rdb_kept_end(db);
		ck_assert_int_eq(rdb_profile_load_keep(db, &one, &p[split][0], &info[split][0], &err),
				 0);
		ck_assert_int_eq(rdb_profile_load(db, &func, &p[split][1], &info[split][1], &err), 0);
		ck_assert_int_eq(rdb_profiles_load_keep(db, &base, two, 2, &p[split][2],
							&info[split][2], &err),
				 0);
		ck_assert_int_eq(rdb_split_scans(db), split ? 3 : 0);
		ck_assert_int_eq(info[split][1].calls, 40);
		ck_assert_int_eq(rdb_select_calls(db, &one, 500, 5000, &err), 10);
		ck_assert_str_eq(roots(db, got, sizeof(got)), split ? a : roots(db, a, sizeof(a)));
	}
	rdb_split_min = 1000000;
	for (int k = 0; k < 4; k++) {
		same_profile(&p[1][k], &info[1][k], &p[0][k], &info[0][k]);
		for (int split = 0; split < 2; split++) {
			rdb_profile_release(&p[split][k]);
			free(info[split][k].what);
		}
	}
	rdb_close(db);
	unlink(path);
}
END_TEST

START_TEST(test_load_shared)
{
	char path[] = "/tmp/darc-unit-XXXXXX";
	struct call_selection sel = RSEL_INIT;
	struct rsearch one, two;
	struct err_msg err;
	struct db *w;
	struct rdb *db;
	char *sub1, *sub2;
	int64_t t = 1000;

	close(mkstemp(path));
	w = db_create(path, true, &err);
	ck_assert_msg(w, "%s", err.msg);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){1, "f", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){2, "g", FUNC_KERNEL, DARC_NULL, NULL, 1}), 0);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){3, "h", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	for (int k = 1; k <= 5; k++) /* f, f>g, f>g>h, f>g>h>f, g */
		ck_assert_int_eq(db_put_fnode(w, &(struct fnode_rec){.id = k,
			.parent_id = k == 1 || k == 5 ? DARC_NULL : k - 1,
			.func_id = k == 4 ? 1 : k == 5 ? 2 : k, .depth = k == 5 ? 0 : k - 1}), 0);
	share_id = share_nirqs = share_nscheds = 0;
	share_seed = 7;
	for (int k = 0; k < 400; k++)
		share_call(DARC_NULL, 1, 0, &t);
	share_put(w);
	ck_assert_msg(db_finish(w, &err) == 0, "%s", err.msg);
	db = rdb_open(path, &err);
	ck_assert_msg(db, "%s", err.msg);
	sel.func = "f";
	search_db_share_min = 1 << 30;
	ck_assert_msg(search_db_load(db, &sel, 0, 61, &one, &err) == 0, "%s", err.msg);
	sub1 = sub_rows(db);
	search_db_share_min = 1;
	ck_assert_msg(search_db_load(db, &sel, 0, 61, &two, &err) == 0, "%s", err.msg);
	sub2 = sub_rows(db);
	search_db_share_min = 100000;
	ck_assert_int_gt(one.tree.nroots, 400); /* the nested ones too */
	ck_assert_int_eq(one.tree.nroots, two.tree.nroots);
	ck_assert_int_eq(one.tree.ncalls, two.tree.ncalls);
	ck_assert_int_eq(one.tree.nextras, two.tree.nextras);
	ck_assert_int_eq(one.tree.nirqs, two.tree.nirqs);
	ck_assert_int_gt(one.tree.nirqs, 20);
	ck_assert(!memcmp(one.tree.calls, two.tree.calls, one.tree.ncalls * sizeof(*one.tree.calls)));
	for (int i = 0; i < one.tree.nextras; i++) {
		const struct search_textra *a = &one.tree.extras[i], *b = &two.tree.extras[i];
		ck_assert_msg(a->incl == b->incl && a->pre == b->pre && a->blocked == b->blocked &&
			      a->ovh == b->ovh && a->overhead == b->overhead, "extra %d", i);
	}
	ck_assert(!memcmp(one.tree.roots, two.tree.roots, one.tree.nroots * sizeof(int)));
	ck_assert(!memcmp(one.tree.irqs, two.tree.irqs, one.tree.nirqs * sizeof(*one.tree.irqs)));
	ck_assert_int_eq(one.nsources, 4);
	ck_assert_int_eq(one.nsources, two.nsources);
	for (int i = 0; i < one.nsources; i++) {
		ck_assert_str_eq(one.sources[i], two.sources[i]);
		ck_assert_int_eq(one.soft[i], two.soft[i]);
	}
	ck_assert_int_gt(strlen(sub1), 100);
	ck_assert_msg(!strchr(sub1, '!'), "a row of sr_sub whose fnode is not its call's (marked '!')");
	ck_assert_str_eq(sub1, sub2);
	free(sub1);
	free(sub2);
	search_db_release(&one);
	search_db_release(&two);
	rdb_close(db);
	unlink(path);
}
END_TEST

/*
 * A profile leaves out the calls whose flags make their times unsure (no
 * entry, no exit) and no other: of incl_ns (read from call_base, the flags
 * asked of the flagged list) as of excl_ns (read through the view call),
 * on one connection or two, and in a time-lapse.
 */
START_TEST(test_flagged_left_out)
{
	static const uint32_t flags[] = {0, 1, 2, 3, 4, 64, 0, 2};
	char path[] = "/tmp/darc-unit-XXXXXX";
	struct err_msg err;
	struct db *w;
	struct rdb *db;
	struct call_selection sel = RSEL_INIT;
	struct profile p, *rows;
	struct rdb_profile_info info;
	int nrows;
	int64_t t0, n = 0, left = 0;

	close(mkstemp(path));
	w = db_create(path, true, &err);
	ck_assert_msg(w, "%s", err.msg);
	ck_assert_int_eq(db_put_func(w, &(struct func_rec){1, "f", FUNC_KERNEL, DARC_NULL, NULL, 0}), 0);
	ck_assert_int_eq(db_put_fnode(w, &(struct fnode_rec){.id = 1, .parent_id = DARC_NULL,
							     .func_id = 1, .calls = 40}), 0);
	for (int i = 1; i <= 40; i++) {
		uint32_t f = flags[i % 8];
		ck_assert_int_eq(db_put_call(w, &(struct call_rec){.id = i, .task_id = 7, .func_id = 1,
			.parent_id = DARC_NULL, .last_id = i, .fnode_id = 1,
			.interrupted_id = DARC_NULL, .t_entry = 1000000 * i,
			.t_exit = 1000000 * i + 1000 * i, .incl_ns = 1000 * i, .excl_ns = 1000 * i,
			.flags = f, .retval = DARC_NULL}), 0);
		left += (f & 3) != 0;
	}
	ck_assert_msg(db_finish(w, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(left, 20);
	db = rdb_open(path, &err);
	ck_assert_msg(db, "%s", err.msg);
	sel.fnode = 1;
	for (int k = 0; k < 4; k++) { /* incl, excl; one connection, two */
		sel.metric = k % 2 ? RM_EXCL : RM_INCL;
		rdb_split_min = k < 2 ? 1 << 30 : 1;
		ck_assert_msg(rdb_profile_load(db, &sel, &p, &info, &err) == 0, "%s", err.msg);
		ck_assert_msg(info.calls == 40 - left && (int64_t)info.skipped == left,
			      "metric %d split %d: %lld calls, %lld left out", sel.metric, k >= 2,
			      (long long)info.calls, (long long)info.skipped);
		rdb_profile_release(&p);
		free(info.what);
	}
	rdb_split_min = 1000000;
	sel.metric = RM_INCL;
	ck_assert_msg(rdb_profile_timelapse(db, &sel, 10000000, &rows, &nrows, &t0, &err) == 0, "%s",
		      err.msg);
	for (int r = 0; r < nrows; r++) {
		for (int b = 0; b < rows[r].n; b++)
			n += rows[r].count[b];
		rdb_profile_release(&rows[r]);
	}
	free(rows);
	ck_assert_int_eq(n, 40 - left);
	rdb_close(db);
	unlink(path);
}
END_TEST

/*
 * rdb_select_calls() asked again for the calls sr_root holds leaves it as
 * it is; asked for others (another fnode, range, task or comm, the same
 * names in other strings) it makes it anew, as a fresh connection does.
 */
START_TEST(test_select_again)
{
	char path[] = "/tmp/darc-unit-XXXXXX", want[1024], got[1024], name[] = "f";
	struct err_msg err;
	struct rdb *db, *fresh;
	struct call_selection sel[5];
	const int64_t lo[5] = {500, 500, 500, 2000, 500}, hi[5] = {5000000, 5000000, 5000000,
								   5000000, 5000000};

	db = open_two_fnodes(path);
	for (int k = 0; k < 5; k++)
		sel[k] = (struct call_selection)RSEL_INIT;
	sel[0].fnode = 1; /* each one after one that differs in one thing or two */
	sel[1].fnode = 1;
	sel[1].task = 8; /* no call of task 8 */
	sel[2].fnode = 2;
	sel[3].fnode = 1;
	sel[4].func = name;
	for (int round = 0; round < 2; round++)
		for (int k = 0; k < 5; k++) {
			ck_assert_int_ge(rdb_select_calls(db, &sel[k], lo[k], hi[k], &err), 0);
			fresh = rdb_open(path, &err);
			ck_assert_msg(fresh, "%s", err.msg);
			ck_assert_int_ge(rdb_select_calls(fresh, &sel[k], lo[k], hi[k], &err), 0);
			ck_assert_str_eq(roots(db, got, sizeof(got)), roots(fresh, want, sizeof(want)));
			rdb_close(fresh);
		}
	/* the same calls again, by other strings: sr_root as it was (a row put in stays) */
	ck_assert_int_eq(sqlite3_exec(rdb_sql(db), "INSERT INTO sr_root VALUES (99, 99, 7)", NULL,
				      NULL, NULL), SQLITE_OK);
	sel[4].func = "f";
	ck_assert_int_eq(rdb_select_calls(db, &sel[4], lo[4], hi[4], &err), 40);
	ck_assert_ptr_nonnull(strstr(roots(db, got, sizeof(got)), ",99"));
	/* others: made anew */
	ck_assert_int_eq(rdb_select_calls(db, &sel[4], lo[4], hi[4] - 1, &err), 40);
	ck_assert_ptr_null(strstr(roots(db, got, sizeof(got)), ",99"));
	rdb_close(db);
	unlink(path);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("darc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_synthetic_tree);
	tcase_add_test(tc, test_preselect);
	tcase_add_test(tc, test_woken_by_search);
	tcase_add_test(tc, test_split_scan);
	tcase_add_test(tc, test_loop_max_rule);
	tcase_add_test(tc, test_loop_one_slow);
	tcase_add_test(tc, test_sleeps_in_loop);
	tcase_add_test(tc, test_tie_branches);
	tcase_add_test(tc, test_two_parents);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_case_e);
	tcase_add_test(tc, test_exogenous);
	tcase_add_test(tc, test_exogenous_once);
	tcase_add_test(tc, test_blocked);
	tcase_add_test(tc, test_stops);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_wrappers);
	tcase_add_test(tc, test_by_time);
	tcase_add_test(tc, test_f0_fnodes);
	tcase_add_test(tc, test_overhead);
	tcase_add_test(tc, test_votes_per_level);
	tcase_add_test(tc, test_bad_params);
	tcase_add_test(tc, test_streamed_tree);
	tcase_add_test(tc, test_load_shared);
	tcase_add_test(tc, test_flagged_left_out);
	tcase_add_test(tc, test_select_again);
	return unit_run(unit_suite("search", tc));
}
