// SPDX-License-Identifier: MIT
#include "explain.h"
#include "explain-chain.h"
#include "show.h"
#include "jtext.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the slow part of a profile ---- */

static int by_latency(const void *a, const void *b)
{
	const struct slow_part *x = a, *y = b;

	return (x->slow.lat_ns < y->slow.lat_ns) - (x->slow.lat_ns > y->slow.lat_ns);
}

/* The tail above the bucket holding the 90th percentile of the calls, against the rest. */
static int tail_part(const struct profile *p, struct slow_part *out, double *tail_share)
{
	uint64_t total = profile_calls(p), cum = 0;
	int b90 = -1, last = -1, first = -1;

	for (int i = 0; i < p->n; i++) {
		if (!p->count[i])
			continue;
		first = first < 0 ? i : first;
		last = i;
		cum += p->count[i];
		if (b90 < 0 && cum * 10 >= total * 9)
			b90 = i;
	}
	*tail_share = 0;
	if (b90 < 0 || b90 == last)
		return 0;
	memset(out, 0, sizeof(*out));
	out->how = SLOW_TAIL;
	out->slow.lo = p->lo + b90 + 1;
	while (!p->count[out->slow.lo - p->lo])
		out->slow.lo++;
	out->slow.hi = p->lo + last;
	out->body.lo = p->lo + first;
	out->body.hi = p->lo + b90;
	profile_peak_stats(p, &out->slow, 1);
	profile_peak_stats(p, &out->body, 1);
	*tail_share = out->slow.share_lat;
	return out->slow.share_lat >= EXPLAIN_TAIL_MIN;
}

/* Nothing slow: the body peak @pk itself (number @number), where a typical call spends its time. */
static int body_part(const struct peak *pk, int number, struct slow_part *out)
{
	memset(out, 0, sizeof(*out));
	out->how = SLOW_BODY;
	out->number = number;
	out->slow = *pk;
	return 1;
}

int explain_slow_parts(const struct profile *p, struct slow_part *out, int max,
		       double *tail_share)
{
	struct peak *pk = NULL;
	int npk = profile_peaks_seen(p, &pk), body = 0, n = 0;

	*tail_share = 0;
	if (npk < 0)
		return -1;
	if (!npk || max < 1)
		return 0;
	for (int k = 1; k < npk; k++)
		body = pk[k].calls > pk[body].calls ? k : body;
	for (int k = body - 1; k >= 0; k--) /* a near tie: the faster is the body */
		body = pk[k].calls * 2 >= pk[body].calls ? k : body;
	for (int k = body + 1; k < npk && max > 0; k++) {
		struct slow_part *s = &out[n < max ? n : max - 1];
		if (n == max && pk[k].lat_ns <= s->slow.lat_ns)
			continue; /* full: it only replaces the cheapest kept */
		*s = (struct slow_part){SLOW_PEAK, k + 1, pk[k], pk[body]};
		n += n < max;
		qsort(out, n, sizeof(*out), by_latency);
	}
	/* the costliest stays; the others only if they are large */
	for (int k = 1; k < n; k++)
		if (out[k].slow.share_lat < EXPLAIN_PEAK_LARGE)
			n = k;
	if (!n && !(n = tail_part(p, out, tail_share)))
		n = body_part(&pk[body], npk > 1 ? body + 1 : 0, out);
	free(pk);
	return n;
}

/* ---- the causes a search tree names ---- */

/* A node's step in a cause's path: a function's name, or "[blocked]", "[irq 0 (timer)]". */
static json_t *step(json_t *node)
{
	const char *kind = json_string_value(json_object_get(node, "kind"));
	const char *name = json_string_value(json_object_get(node, "name"));
	char buf[256];

	if (!kind || !strcmp(kind, "fnode"))
		return jtext(name ? name : "?");
	if (!strcmp(kind, "irq") || !strcmp(kind, "softirq"))
		snprintf(buf, sizeof(buf), "[%s]", name ? name : kind);
	else
		snprintf(buf, sizeof(buf), "[%s]", !strcmp(kind, "preemption") ? "preempted" : kind);
	return jtext(buf);
}

/* The cause's kind for a node (or runner-up) of search kind @kind, with its @io or not. */
static const char *cause_kind(const char *kind, bool io)
{
	if (!kind || !strcmp(kind, "fnode") || !strcmp(kind, "self"))
		return "self";
	if (!strcmp(kind, "preemption"))
		return "preempt";
	if (!strcmp(kind, "blocked"))
		return io ? "io" : "blocked";
	return kind; /* irq, softirq */
}

/*
 * The path from below f0 down to node @i (an array of steps); a part below
 * the depth limit goes down its "below" functions to where it is.
 */
static json_t *path_to(json_t *nodes, int i)
{
	json_t *path = json_array();

	while (i > 0) {
		json_t *n = json_array_get(nodes, i), *below = json_object_get(n, "below");
		json_array_insert_new(path, 0, step(n));
		for (size_t k = json_array_size(below); k-- > 0;)
			json_array_insert(path, 0, json_array_get(below, k));
		i = json_integer_value(json_object_get(n, "parent"));
	}
	return path;
}

/* An interrupt node's (or runner-up's) source, "irq 11 (virtio0-requests)", or null. */
static json_t *source(json_t *node)
{
	json_t *name = json_object_get(node, "name");

	return json_is_string(name) ? json_incref(name) : json_null();
}

/* The first of a winner's details in @role ("woken by", "hit", "ran instead"), or NULL. */
static json_t *detail_of(json_t *node, const char *role)
{
	json_t *d;
	size_t k;

	json_array_foreach(json_object_get(node, "details"), k, d) {
		const char *r = json_string_value(json_object_get(d, "role"));
		if (r && !strcmp(r, role))
			return d;
	}
	return NULL;
}

/* Its "what": a function, a task, an interrupt. */
static const char *detail(json_t *node, const char *role)
{
	return json_string_value(json_object_get(detail_of(node, role), "what"));
}

/* Who a winner's details name: the first waker, the task that ran instead, or the source. */
static json_t *who_of(json_t *node, const char *kind)
{
	const char *what = NULL;

	if (!strcmp(kind, "irq") || !strcmp(kind, "softirq"))
		return source(node);
	if (!strcmp(kind, "blocked") || !strcmp(kind, "io"))
		what = detail(node, "woken by");
	else if (!strcmp(kind, "preempt"))
		what = detail(node, "ran instead");
	return what ? jtext(what) : json_null();
}

static json_t *cause(json_t *path, const char *kind, double ns, double f0_ns, json_int_t votes,
		     json_t *who)
{
	return json_pack("{so ss sf sf sI so}", "path", path, "kind", kind, "ns", ns, "share",
			 f0_ns > 0 ? ns / f0_ns : 0.0, "votes", votes, "who", who);
}

/* Does node @i have a winner that is one of its own parts (self, blocked, ...)? */
static bool ends_in_part(json_t *nodes, size_t i)
{
	json_t *x;
	size_t k;

	json_array_foreach(nodes, k, x)
		if (json_integer_value(json_object_get(x, "parent")) == (json_int_t)i &&
		    strcmp(json_string_value(json_object_get(x, "kind")), "fnode"))
			return true;
	return false;
}

/* The fnode whose own sleeps node @i's are (-1: f0's, which may be several fnodes). */
static json_t *sleeper_at(json_t *nodes, size_t i)
{
	json_t *fn = json_object_get(json_array_get(nodes, i), "fnode");

	return i > 0 && json_is_integer(fn) ? json_incref(fn) : json_integer(-1);
}

/*
 * The sleeper of blocked node @i: below a node at the depth limit the fnode
 * that holds most of the sleep, else its parent.
 */
static json_t *sleeper_of(json_t *nodes, size_t i)
{
	json_t *node = json_array_get(nodes, i), *at = json_object_get(node, "at");

	if (json_is_integer(at))
		return json_incref(at);
	return sleeper_at(nodes, json_integer_value(json_object_get(node, "parent")));
}

/*
 * The runners-up at node @i that cost more than the cause its winners lead
 * to (@winners_ns: the largest leaf below them), as causes of their own;
 * where the path ended in one of the node's parts (its own time, blocked,
 * preempted, interrupted), its other parts too when they are not small: one
 * function's time split by what it did.
 */
static void costlier_runners_up(json_t *nodes, int i, double winners_ns, double f0_ns,
				json_t *out)
{
	json_t *node = json_array_get(nodes, i), *r;
	bool parts = ends_in_part(nodes, i);
	size_t k;

	json_array_foreach(json_object_get(node, "runners_up"), k, r) {
		const char *kind = json_string_value(json_object_get(r, "kind"));
		double ns = json_number_value(json_object_get(r, "total_ns"));
		bool fn = !strcmp(kind, "fnode");
		json_t *path, *c;
		if (ns <= winners_ns && (fn || !parts || ns < EXPLAIN_CAUSE_MIN * f0_ns))
			continue;
		path = path_to(nodes, i);
		json_array_append_new(path, step(r));
		c = cause(path, cause_kind(kind, false), ns, f0_ns,
			  json_integer_value(json_object_get(r, "maxcount")),
			  !strcmp(kind, "irq") || !strcmp(kind, "softirq") ? source(r) : json_null());
		if (fn) /* the caller looks up where it led */
			json_object_set_new(c, "follow",
					    json_pack("{sO sO}", "fnode", json_object_get(node, "fnode"),
						      "name", json_object_get(r, "name")));
		else if (!strcmp(kind, "blocked")) /* and who woke the node's own sleeps */
			json_object_set_new(c, "sleeper", sleeper_at(nodes, i));
		json_array_append_new(out, c);
	}
}

static int by_ns(const void *a, const void *b)
{
	double x = json_number_value(json_object_get(*(json_t *const *)a, "ns"));
	double y = json_number_value(json_object_get(*(json_t *const *)b, "ns"));

	return (x < y) - (x > y);
}

void explain_rank_causes(json_t *causes)
{
	size_t n = json_array_size(causes), keep = 0;
	json_t **v = malloc((n + 1) * sizeof(*v));

	if (!v)
		return;
	for (size_t k = 0; k < n; k++)
		v[k] = json_incref(json_array_get(causes, k));
	qsort(v, n, sizeof(*v), by_ns);
	json_array_clear(causes);
	for (size_t k = 0; k < n; k++) {
		if (!keep || json_number_value(json_object_get(v[k], "share")) >= EXPLAIN_CAUSE_MIN) {
			json_array_append(causes, v[k]);
			keep++;
		}
		json_decref(v[k]);
	}
	free(v);
}

/* Is node @i a leaf (no node has it for parent)? */
static bool leaf(json_t *nodes, size_t i)
{
	json_t *x;
	size_t k;

	json_array_foreach(nodes, k, x)
		if (json_integer_value(json_object_get(x, "parent")) == (json_int_t)i)
			return false;
	return true;
}

/*
 * An interrupt source or preemption is counted over a node's whole subtree:
 * the same one weighed again lower down is a part of it. Keep the largest.
 */
static void dedupe_exogenous(json_t *causes)
{
	json_t *c, *d;
	size_t i, k;

	for (i = 0; i < json_array_size(causes); i++) {
		c = json_array_get(causes, i);
		const char *kind = json_string_value(json_object_get(c, "kind"));
		if (strcmp(kind, "irq") && strcmp(kind, "softirq") && strcmp(kind, "preempt"))
			continue;
		json_t *last = json_array_get(json_object_get(c, "path"),
					      json_array_size(json_object_get(c, "path")) - 1);
		for (k = 0; k < json_array_size(causes);) {
			json_t *p = json_object_get(d = json_array_get(causes, k), "path");
			if (k != i && json_equal(json_array_get(p, json_array_size(p) - 1), last) &&
			    json_number_value(json_object_get(d, "ns")) <=
				json_number_value(json_object_get(c, "ns"))) {
				json_array_remove(causes, k);
				i -= k < i;
			} else {
				k++;
			}
		}
	}
}

json_t *explain_causes(json_t *nodes)
{
	json_t *out = explain_causes_unranked(nodes);

	explain_rank_causes(out);
	return out;
}

json_t *explain_causes_unranked(json_t *nodes)
{
	size_t n = json_array_size(nodes);
	double f0_ns = json_number_value(json_object_get(json_array_get(nodes, 0), "total_ns"));
	double *below = calloc(n + 1, sizeof(*below)); /* the largest leaf's ns under each node */
	json_t *out = json_array();

	/* nodes come depth first: every child after its parent */
	for (size_t i = n; below && i-- > 0;) {
		json_t *node = json_array_get(nodes, i);
		json_int_t parent = json_integer_value(json_object_get(node, "parent"));
		if (leaf(nodes, i))
			below[i] = json_number_value(json_object_get(node, "total_ns"));
		if (parent >= 0 && (size_t)parent < n && below[i] > below[parent])
			below[parent] = below[i];
	}
	for (size_t i = 0; below && i < n; i++) {
		json_t *node = json_array_get(nodes, i), *x;
		if (!leaf(nodes, i) || !i) {
			if (!leaf(nodes, i))
				costlier_runners_up(nodes, i, below[i], f0_ns, out);
			continue;
		}
		const char *kind = cause_kind(json_string_value(json_object_get(node, "kind")),
					      json_object_get(node, "io") != NULL);
		x = cause(path_to(nodes, i), kind,
			  json_number_value(json_object_get(node, "total_ns")), f0_ns,
			  json_integer_value(json_object_get(node, "maxcount")), who_of(node, kind));
		if (!strcmp(kind, "preempt") && detail(node, "hit")) { /* where it was preempted */
			json_t *path = json_object_get(detail_of(node, "hit"), "path");
			json_object_set_new(x, "where", jtext(detail(node, "hit")));
			if (json_array_size(path))
				json_object_set(x, "where_path", path);
		}
		if (!strcmp(kind, "io"))
			json_object_set(x, "io", json_object_get(node, "io"));
		if (!strcmp(kind, "io") || !strcmp(kind, "blocked"))
			json_object_set_new(x, "sleeper", sleeper_of(nodes, i));
		json_array_append_new(out, x);
	}
	free(below);
	dedupe_exogenous(out);
	return out;
}

/* ---- the sentence ---- */

const char *explain_how(int how)
{
	return how == SLOW_PEAK ? "peak" : how == SLOW_TAIL ? "tail" : "body";
}

const char *explain_part_name(int how)
{
	return how == SLOW_PEAK ? "slow peak" : how == SLOW_TAIL ? "slow tail" : "typical calls";
}

char *explain_title(const char *func)
{
	static const char *const prefix[] = {"__x64_sys_", "__ia32_sys_", "__arm64_sys_",
					     "__riscv_sys_", "__se_sys_", "__do_sys_"};
	char *t;

	for (size_t i = 0; i < sizeof(prefix) / sizeof(*prefix); i++)
		if (!strncmp(func, prefix[i], strlen(prefix[i])) && func[strlen(prefix[i])]) {
			func += strlen(prefix[i]);
			break;
		}
	t = malloc(strlen(func) + 3);
	if (t)
		sprintf(t, "%s()", func);
	return t;
}

const char *explain_kind(const char *func, int func_kind)
{
	char *t;
	bool sys;

	if (func_kind == 1 || func_kind == 3)
		return func_kind == 1 ? "syscall" : "user";
	t = explain_title(func); /* a system call's entry traced as a function: prefix gone */
	sys = t && strlen(t) != strlen(func) + 2;
	free(t);
	return sys ? "syscall" : "root";
}

/*
 * Well-known kernel functions that wait for one thing, and that thing in
 * plain words. Only what the function itself tells: down_write waits for a
 * read-write semaphore, whichever lock of the caller's that semaphore is.
 */
struct phrase {
	const char *func; /* the waiting function */
	const char *what; /* what it waits for, to follow "waits for" */
};

static const struct phrase waits_for[] = {
	{"down_write", "a read-write semaphore, as a writer"},
	{"down_write_killable", "a read-write semaphore, as a writer"},
	{"down_read", "a read-write semaphore, as a reader"},
	{"down_read_killable", "a read-write semaphore, as a reader"},
	{"mutex_lock", "a mutex"},
	{"mutex_lock_killable", "a mutex"},
	{"mutex_lock_interruptible", "a mutex"},
	{"__mutex_lock", "a mutex"},
	{"do_nanosleep", "a sleep to end"},
	{"hrtimer_nanosleep", "a sleep to end"},
	{"futex_wait", "a futex"},
	{"wait_for_completion", "a completion"},
	{"wait_for_completion_io", "a completion of I/O"},
	{"folio_wait_bit_common", "a page of the page cache (folio lock or writeback)"},
	{"io_schedule", "I/O"},
	{"blk_io_schedule", "block I/O"},
	{"jbd2_log_wait_commit", "the ext4 journal to commit"},
	{"jbd2_complete_transaction", "the ext4 journal to commit"},
	{"do_get_write_access", "the ext4 journal to release a buffer it is writing"},
	{"balance_dirty_pages", "dirty-page throttling (writeback to catch up with the writer)"},
	{"file_write_and_wait_range", "its file's page writeback"},
	{"filemap_write_and_wait_range", "its file's page writeback"},
	{"filemap_fdatawait_range", "its file's page writeback"},
	{"__filemap_fdatawait_range", "its file's page writeback"},
	{"filemap_fdatawait_keep_errors", "its file's page writeback"},
	{"folio_wait_writeback", "page writeback"},
	{"wait_on_page_writeback", "page writeback"},
	{"filemap_fault", "a page of a mapped file to be read in (a page fault)"},
	{"__folio_lock", "a page lock"},
	{"__folio_lock_killable", "a page lock"},
	{"__lock_page", "a page lock"},
	{"out_of_line_wait_on_bit", "a buffer's I/O"},
	{"__wait_on_buffer", "a buffer's I/O"},
	{"futex_wait_queue", "a futex"},
	{"futex_wait_queue_me", "a futex"},
	{"pipe_read", "data in a pipe"},
	{"pipe_write", "room in a pipe"},
	{"do_wait", "a child process"},
	{"sk_wait_data", "data on a socket"},
	{"ep_poll", "epoll events"},
	{"do_sys_poll", "poll events"},
	{"do_select", "select events"},
	/* system calls as raw_syscalls name them (a user program's recording) */
	{"clock_nanosleep", "a sleep to end"},
	{"nanosleep", "a sleep to end"},
	{"fsync", "its file to reach the disk"},
	{"fdatasync", "its file to reach the disk"},
	{"futex", "a futex"},
	{"epoll_wait", "epoll events"},
	{"poll", "poll events"},
	{"ppoll", "poll events"},
	{"select", "select events"},
	{"pselect6", "select events"},
	{NULL, NULL},
};

/* @func's phrase in table @t (ended by a NULL func), or NULL. */
static const char *phrase(const struct phrase *t, const char *func)
{
	for (; t->func; t++)
		if (!strcmp(func, t->func))
			return t->what;
	return NULL;
}

/* Interrupt handlers whose name says what interrupted, in plain words. */
static const struct phrase irqs_are[] = {
	{"__sysvec_apic_timer_interrupt", "the local timer interrupt"},
	{"__sysvec_call_function_single", "a function-call IPI"},
	{"__sysvec_call_function", "a function-call IPI"},
	{"__sysvec_reschedule_ipi", "a reschedule IPI"},
	{"__sysvec_irq_work", "an irq_work IPI"},
	{NULL, NULL},
};

/* "the local timer interrupt (__sysvec_apic_timer_interrupt)" for source @who. */
static void irq_phrase(const char *who, char *buf, size_t size)
{
	const char *name = !strncmp(who, "interrupt ", 10) ? who + 10 : who;
	const char *what = phrase(irqs_are, name);

	if (what)
		snprintf(buf, size, "%s (%s)", what, name);
	else
		snprintf(buf, size, "%s", name);
}

/*
 * The functions of @path to name (not the "[...]" steps): from the caller
 * of the first whose wait has a phrase (*@what gets it: who takes the lock,
 * who sleeps), else the last three.
 */
static void chain(json_t *path, char *buf, size_t size, const char **what)
{
	size_t n = 0, from, k;
	json_t *s;

	*what = NULL;
	json_array_foreach(path, k, s)
		n += json_string_value(s)[0] != '[';
	from = n > 3 ? n - 3 : 0;
	json_array_foreach(path, k, s)
		if (k < n && !*what && (*what = phrase(waits_for, json_string_value(s))))
			from = k ? k - 1 : 0;
	buf[0] = 0;
	for (k = from; k < n; k++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", k > from ? " > " : "",
			 json_string_value(json_array_get(path, k)));
}

/* "waiting for X (a > b)", "preempted (a > b)", ...: what @title's cause @c did. */
static void doing(const char *title, json_t *c, char *buf, size_t size)
{
	const char *kind = json_string_value(json_object_get(c, "kind"));
	const char *who = json_string_value(json_object_get(c, "who"));
	json_t *io = json_object_get(c, "io");
	char ch[512], in[520];
	const char *what;

	chain(json_object_get(c, "path"), ch, sizeof(ch), &what);
	snprintf(in, sizeof(in), *ch ? " (%s)" : "", ch);
	if (!strcmp(kind, "io"))
		snprintf(buf, size, "waiting for the disk: %lld bio%s, %s %.0f%%%s",
			 json_integer_value(json_object_get(io, "bios")),
			 json_integer_value(json_object_get(io, "bios")) == 1 ? "" : "s",
			 json_string_value(json_object_get(io, "dominant")),
			 100 * json_number_value(json_object_get(io, "dominant_share")), in);
	else if (!strcmp(kind, "blocked"))
		snprintf(buf, size, "waiting%s%s%s", what ? " for " : "", what ? what : "", in);
	else if (!strcmp(kind, "preempt") && json_array_size(json_object_get(c, "where_path")) > 1) {
		const char *unused;
		chain(json_object_get(c, "where_path"), ch, sizeof(ch), &unused);
		snprintf(buf, size, "preempted in %s (%s)",
			 json_string_value(json_object_get(c, "where")), ch);
	} else if (!strcmp(kind, "preempt") && json_is_string(json_object_get(c, "where")))
		snprintf(buf, size, "preempted%s in %s", in,
			 json_string_value(json_object_get(c, "where")));
	else if (!strcmp(kind, "preempt") && strrchr(ch, ' ')) /* in the subtree of the last */
		snprintf(buf, size, "preempted inside %s%s", strrchr(ch, ' ') + 1, in);
	else if (!strcmp(kind, "preempt"))
		snprintf(buf, size, "preempted%s", in);
	else if (!strcmp(kind, "irq") || !strcmp(kind, "softirq")) {
		char irq[256];
		irq_phrase(who ? who : kind, irq, sizeof(irq));
		snprintf(buf, size, "interrupted by %s%s%s", irq, *ch ? ", in " : "", ch);
	}
	else if (strrchr(ch, ' ')) /* a chain: the function it ends in, then the chain */
		snprintf(buf, size, "running in %s%s", strrchr(ch, ' ') + 1, in);
	else if (*ch)
		snprintf(buf, size, "running in %s", ch);
	else
		snprintf(buf, size, "running in %s itself", title);
}

/* Append to @buf (of @size) as printf. */
static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
}

/* " (62% of its time)" where step @st holds less than 90% of what it is part of. */
static void part_of(json_t *st, char *buf, size_t size)
{
	double share = json_number_value(json_object_get(st, "share"));

	if (share < 0.9)
		add(buf, size, " (%.0f%% of its time)", 100 * share);
}

/*
 * A waker and how it ended the sleep: "producer [138] (pipe_write)", or
 * "(futex_wake, 77.0us before the wake-up, through an IPI)" for a remote
 * wake-up traced to the call that queued it.
 */
static void waker_text(json_t *st, char *buf, size_t size)
{
	const char *what = json_string_value(json_object_get(st, "what"));
	json_int_t lag = json_integer_value(json_object_get(st, "lag_ns"));
	char amount[32];

	add(buf, size, "%s", json_string_value(json_object_get(st, "who")));
	if (lag > 0)
		add(buf, size, " (%s, %s before the wake-up, which came through an IPI)",
		    what ? what : "its call", show_amount((double)lag, "ns", amount, sizeof(amount)));
	else if (what)
		add(buf, size, " (%s)", what);
}

/*
 * ", which waited for the disk: 200 bios", ... : step @st, a part of a
 * waker's time ("also": another part of the last waker's, ", and waited
 * for ..."); @u: what the recording lacks, where an interrupt it does not
 * name ended the waker's own wait. Where the recording stops showing the
 * chain, that is said too.
 */
static void behind_text(json_t *st, json_t *u, char *buf, size_t size)
{
	const char *kind = json_string_value(json_object_get(st, "kind"));
	const char *what = json_string_value(json_object_get(st, "what"));
	const char *lead = json_is_true(json_object_get(st, "also")) ? "and" : "which";
	json_int_t n = json_integer_value(json_object_get(st, "n"));

	if (!strcmp(kind, "waker")) {
		add(buf, size, ", %s waited for ", lead);
		waker_text(st, buf, size);
	} else if (!strcmp(kind, "disk")) {
		add(buf, size, ", %s waited for the disk", lead);
		part_of(st, buf, size);
		add(buf, size, ": %lld bio%s", (long long)n, n == 1 ? "" : "s");
		if (what) /* the interrupt that carried the wake-up */
			add(buf, size, ", woken by %s", what);
		return;
	} else if (!strcmp(kind, "timer") || !strcmp(kind, "irq") || !strcmp(kind, "softirq")) {
		add(buf, size, ", %s waited for %s%s%s%s", lead,
		    !strcmp(kind, "timer") ? "a timer" : "", what && !strcmp(kind, "timer") ? " (" : "",
		    what ? what : "", what && !strcmp(kind, "timer") ? ")" : "");
	} else if (!strcmp(kind, "running") || !strcmp(kind, "preempted")) {
		add(buf, size, ", %s was %s", lead, !strcmp(kind, "running") ? "running" : "preempted");
	} else if (!strcmp(kind, "unknown")) {
		add(buf, size, !strcmp(lead, "and") ? ", and was woken by an interrupt the recording"
						      " does not name"
						    : ", which an interrupt the recording does not"
						      " name woke");
		if (json_is_string(json_object_get(u, "advice")))
			add(buf, size, " (%s)", json_string_value(json_object_get(u, "advice")));
	} else if (!strcmp(kind, "no wake-up")) {
		add(buf, size, ", %s own wake-up is not in the recording",
		    !strcmp(lead, "and") ? "and a wait whose" : "whose");
	} else if (!strcmp(kind, "unseen")) {
		add(buf, size, ", %s the recording does not show (not all its switches are in"
			       " it, as with a pid filter on sched events: record them for every"
			       " task)",
		    !strcmp(lead, "and") ? "and a time of it" : "whose time");
	} else if (!strcmp(kind, "deeper")) {
		add(buf, size, ", %s waited for a task after %d others (not followed)", lead,
		    CH_DEPTH);
	} else {
		return;
	}
	part_of(st, buf, size);
}

/*
 * ", woken by producer [138] (pipe_write), which waited for the disk: 200
 * bios": who ended cause @c's sleeps, and the chain behind a task that did;
 * where an interrupt the recording does not name ended them, that, and
 * what to record.
 */
static void woken_text(json_t *c, char *buf, size_t size)
{
	json_t *wake = json_object_get(c, "wake"), *chain = json_object_get(wake, "chain");
	json_t *first = json_array_get(chain, 0), *u = json_object_get(wake, "unknown"), *st;
	const char *who = json_string_value(json_object_get(c, "who"));
	const char *kind = json_string_value(json_object_get(first, "kind"));
	size_t k;

	buf[0] = 0;
	if (kind && !strcmp(kind, "unknown")) {
		add(buf, size, ", woken by an interrupt the recording does not name (%s)",
		    json_string_value(json_object_get(u, "advice")));
		if (json_integer_value(json_object_get(u, "pending_bios")))
			add(buf, size, "; %lld of these sleeps follow a bio of the task whose"
				       " completion is not in the recording either",
			    (long long)json_integer_value(json_object_get(u, "pending_bios")));
		return;
	}
	if (kind && !strcmp(kind, "waker")) {
		add(buf, size, ", woken by ");
		waker_text(first, buf, size);
	} else if (who) {
		add(buf, size, ", woken by %s", who);
	}
	json_array_foreach(chain, k, st)
		if (k)
			behind_text(st, u, buf, size);
}

char *explain_sentence(const char *title, const struct slow_part *sp, json_t *c)
{
	const char *kind = json_string_value(json_object_get(c, "kind"));
	const char *who = json_string_value(json_object_get(c, "who"));
	char range[32], what[1024], by[1024] = "", *s;

	if (sp->slow.lo == sp->slow.hi)
		snprintf(range, sizeof(range), "bucket %d", sp->slow.lo);
	else
		snprintf(range, sizeof(range), "buckets %d-%d", sp->slow.lo, sp->slow.hi);
	doing(title, c, what, sizeof(what));
	if (!strcmp(kind, "blocked") || !strcmp(kind, "io"))
		woken_text(c, by, sizeof(by));
	else if (who && !strcmp(kind, "preempt"))
		snprintf(by, sizeof(by), ", by %s", who);
	if (asprintf(&s, "%s: %s (%s, %llu call%s, %.0f%% of its latency): %s, %.0f%% of"
			 " that time%s",
		     title, explain_part_name(sp->how), range,
		     (unsigned long long)sp->slow.calls, sp->slow.calls == 1 ? "" : "s",
		     100 * sp->slow.share_lat, what,
		     100 * json_number_value(json_object_get(c, "share")), by) < 0)
		return NULL;
	return s;
}
