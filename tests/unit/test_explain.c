// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/report/explain.c: the slow part of a profile (on
 * the vectors and hand-made ones, their shares computed here by
 * hand from 1.5 x each bucket's lower edge), the causes a search tree names,
 * and the sentence that says one.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "unit-run.h"

/* The slow parts of @n counts from bucket @from (resolution 1, no latency kept). */
static int parts(const uint64_t *count, int n, int from, struct slow_part *sp, int max,
		 double *tail)
{
	uint64_t c[64] = {0};
	struct profile p = {.resolution = 1, .lo = 0, .n = 64, .count = c};

	for (int i = 0; i < n; i++)
		c[from + i] = count[i];
	return explain_slow_parts(&p, sp, max, tail);
}

/* Zero-byte reads: the timer hump at 16-19 is the slow part, the body 14-15. */
START_TEST(test_slow_zeroread)
{
	static const uint64_t c[] = {19448, 244, 65, 183, 61, 1};
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 6, 14, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].how, SLOW_PEAK);
	ck_assert_int_eq(sp[0].number, 2);
	ck_assert_int_eq(sp[0].slow.lo, 16);
	ck_assert_int_eq(sp[0].slow.hi, 19);
	ck_assert_int_eq(sp[0].slow.calls, 65 + 183 + 61 + 1);
	ck_assert_int_eq(sp[0].body.lo, 14);
	ck_assert_int_eq(sp[0].body.hi, 15);
}
END_TEST

/* getrandom beside a CPU hog: the one call of 1.3 s apart from the body. */
START_TEST(test_slow_outlier)
{
	static const uint64_t c[] = {1, 0, 0, 0, 0, 0, 125, 73, 40, 42, 18, 1, 0, 0, 0, 0, 0, 1};
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 18, 13, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].slow.lo, 30);
	ck_assert_int_eq(sp[0].slow.hi, 30);
	ck_assert_int_eq(sp[0].slow.calls, 1);
	ck_assert_int_eq(sp[0].body.lo, 13);
	ck_assert_int_eq(sp[0].body.hi, 24);
}
END_TEST

/* One hump: the tail above bucket 14, which holds the 90th percentile (575 of 596). */
START_TEST(test_slow_tail)
{
	static const uint64_t c[] = {5, 50, 200, 150, 170, 20, 0, 1};
	/* latency in units of 1.5 x 1024 ns: bucket 10 + i weighs 2^i */
	double all = 5 + 50 * 2 + 200 * 4 + 150 * 8 + 170 * 16 + 20 * 32 + 1 * 128;
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 8, 10, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].how, SLOW_TAIL);
	ck_assert_int_eq(sp[0].number, 0);
	ck_assert_int_eq(sp[0].slow.lo, 15);
	ck_assert_int_eq(sp[0].slow.hi, 17);
	ck_assert_int_eq(sp[0].slow.calls, 21);
	ck_assert_double_eq_tol(sp[0].slow.share_lat, (20 * 32 + 128) / all, 1e-9);
	ck_assert_int_eq(sp[0].body.lo, 10);
	ck_assert_int_eq(sp[0].body.hi, 14);
	ck_assert_int_eq(sp[0].body.calls, 575);
}
END_TEST

/*
 * A tail of 1.9% of the latency: nothing slow, so the body itself is the
 * answer (where a typical call spends its time), and the tail's share said.
 */
START_TEST(test_slow_negligible)
{
	static const uint64_t c[] = {100, 1000, 10};
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 3, 10, sp, 3, &tail), 1);
	ck_assert_double_eq_tol(tail, 10 * 4.0 / (100 + 1000 * 2 + 10 * 4), 1e-9);
	ck_assert_int_eq(sp[0].how, SLOW_BODY);
	ck_assert_int_eq(sp[0].slow.lo, 10);
	ck_assert_int_eq(sp[0].slow.hi, 12);
	ck_assert_int_eq(sp[0].slow.calls, 1110);
	ck_assert_int_eq(sp[0].body.calls, 0); /* contrasted with nothing */
}
END_TEST

/*
 * The pipe consumer: 200 reads of about 25 ms, one hump, the 90th
 * percentile in its last bucket (no tail at all): the body, all 200 calls;
 * and two peaks where the body is the slowest (the other below it, the
 * tail negligible): the body peak alone, numbered.
 */
START_TEST(test_slow_body)
{
	static const uint64_t hump[] = {3, 197};
	static const uint64_t below[] = {300, 0, 0, 0, 1000, 10};
	struct slow_part sp[3];
	double tail = 1;

	ck_assert_int_eq(parts(hump, 2, 23, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].how, SLOW_BODY);
	ck_assert_int_eq(sp[0].number, 0);
	ck_assert_int_eq(sp[0].slow.lo, 23);
	ck_assert_int_eq(sp[0].slow.hi, 24);
	ck_assert_int_eq(sp[0].slow.calls, 200);
	ck_assert_double_eq_tol(sp[0].slow.share_lat, 1, 1e-9);
	ck_assert_double_eq(tail, 0);
	ck_assert_int_eq(parts(below, 6, 10, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].how, SLOW_BODY);
	ck_assert_int_eq(sp[0].number, 2);
	ck_assert_int_eq(sp[0].slow.lo, 14);
	ck_assert_int_eq(sp[0].slow.hi, 15);
	ck_assert_double_eq_tol(tail, 10 * 32.0 / (300 + 1000 * 16 + 10 * 32), 1e-9);
}
END_TEST

/* Two slow peaks above the body: the costliest first; the other kept for its 29%. */
START_TEST(test_slow_two)
{
	static const uint64_t c[] = {1000, 0, 0, 0, 0, 0, 200, 0, 0, 0, 30};
	double all = 1000 + 200 * 64 + 30 * 1024; /* units of 1.5 x 1024 ns */
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 11, 10, sp, 3, &tail), 2);
	ck_assert_int_eq(sp[0].slow.lo, 20);
	ck_assert_double_eq_tol(sp[0].slow.share_lat, 30 * 1024 / all, 1e-9);
	ck_assert_int_eq(sp[1].slow.lo, 16);
	ck_assert_double_eq_tol(sp[1].slow.share_lat, 200 * 64 / all, 1e-9);
	ck_assert_int_eq(sp[0].body.lo, 10);
	/* room for one: only the costliest */
	ck_assert_int_eq(parts(c, 11, 10, sp, 1, &tail), 1);
	ck_assert_int_eq(sp[0].slow.lo, 20);
}
END_TEST

/*
 * Every slow peak that holds 5% of the latency is a part of its own (the
 * issue's seven writes throttled in balance_dirty_pages, a peak below the
 * 2-4 s writes): 5.4% here, besides the costliest.
 */
START_TEST(test_slow_second)
{
	static const uint64_t c[] = {1000, 0, 0, 0, 40, 0, 0, 0, 40};
	double all = 1000 + 40 * 16 + 40 * 256; /* units of 1.5 x 1024 ns */
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 9, 10, sp, 3, &tail), 2);
	ck_assert_int_eq(sp[0].slow.lo, 18);
	ck_assert_int_eq(sp[1].slow.lo, 14);
	ck_assert_double_eq_tol(sp[1].slow.share_lat, 40 * 16 / all, 1e-9);
}
END_TEST

/* The only other peak is below the body: the tail rule on the whole profile. */
START_TEST(test_slow_below_body)
{
	static const uint64_t c[] = {50, 0, 0, 1000, 100};
	struct slow_part sp[3];
	double tail;

	ck_assert_int_eq(parts(c, 5, 10, sp, 3, &tail), 1);
	ck_assert_int_eq(sp[0].how, SLOW_TAIL);
	ck_assert_int_eq(sp[0].slow.lo, 14);
	ck_assert_int_eq(sp[0].slow.hi, 14);
	ck_assert_int_eq(sp[0].body.lo, 10);
	ck_assert_int_eq(sp[0].body.hi, 13);
}
END_TEST

START_TEST(test_slow_empty)
{
	struct slow_part sp[3];
	double tail = 1;

	ck_assert_int_eq(parts(NULL, 0, 0, sp, 3, &tail), 0);
	ck_assert_double_eq(tail, 0);
}
END_TEST

/* ---- causes ---- */

static json_t *tree(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	ck_assert_msg(j != NULL, "%s", e.text);
	return j;
}

/*
 * f0 (1000 ns) > A (900) > blocked (700), and at f0 a runner-up B of 800 ns:
 * B costs more than the wait the winner leads to, so it is a cause too, and
 * the first; A's own interrupt runner-up (40, under 5%) is not.
 */
START_TEST(test_causes_runner_up)
{
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":10,\"total_ns\":1000,\"details\":[],"
	    "  \"runners_up\":[{\"kind\":\"fnode\",\"name\":\"B\",\"maxcount\":2,\"total_ns\":800}]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"fnode\",\"name\":\"A\",\"fnode\":8,"
	    "  \"maxcount\":8,\"total_ns\":900,\"details\":[],\"runners_up\":"
	    "  [{\"kind\":\"irq\",\"name\":\"irq 11 (x)\",\"maxcount\":1,\"total_ns\":40}]},"
	    " {\"node\":2,\"parent\":1,\"kind\":\"blocked\",\"name\":\"blocked\",\"maxcount\":7,"
	    "  \"total_ns\":700,\"details\":[{\"role\":\"woken by\",\"what\":\"writer [212]\"}],\"runners_up\":[]}]");
	json_t *c = explain_causes(nodes), *x;

	ck_assert_int_eq(json_array_size(c), 2);
	x = json_array_get(c, 0);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "self");
	ck_assert_double_eq_tol(json_number_value(json_object_get(x, "share")), 0.8, 1e-9);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(x, "path"), 0)), "B");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(x, "follow"), "fnode")),
			 7);
	x = json_array_get(c, 1);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "blocked");
	ck_assert_int_eq(json_array_size(json_object_get(x, "path")), 2);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(x, "path"), 1)),
			 "[blocked]");
	ck_assert_str_eq(json_string_value(json_object_get(x, "who")), "writer [212]");
	ck_assert_int_eq(json_integer_value(json_object_get(x, "votes")), 7);
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/*
 * An interrupt source weighed at f0 (300 ns) and again inside A (100): one
 * cause, the larger; a leaf of 1% is dropped, the 2% one too (under 5%).
 */
START_TEST(test_causes_once)
{
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":10,\"total_ns\":1000,\"details\":[],\"runners_up\":"
	    "  [{\"kind\":\"irq\",\"name\":\"interrupt t\",\"maxcount\":3,\"total_ns\":300}]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"fnode\",\"name\":\"A\",\"fnode\":8,"
	    "  \"maxcount\":8,\"total_ns\":400,\"details\":[],\"runners_up\":"
	    "  [{\"kind\":\"irq\",\"name\":\"interrupt t\",\"maxcount\":1,\"total_ns\":100}]},"
	    " {\"node\":2,\"parent\":1,\"kind\":\"self\",\"name\":\"self\",\"maxcount\":7,"
	    "  \"total_ns\":20,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":3,\"parent\":1,\"kind\":\"fnode\",\"name\":\"C\",\"fnode\":9,"
	    "  \"maxcount\":7,\"total_ns\":10,\"details\":[],\"runners_up\":[]}]");
	json_t *c = explain_causes(nodes), *x;

	ck_assert_int_eq(json_array_size(c), 1);
	x = json_array_get(c, 0);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "irq");
	ck_assert_double_eq_tol(json_number_value(json_object_get(x, "ns")), 300, 1e-9);
	ck_assert_str_eq(json_string_value(json_object_get(x, "who")), "interrupt t");
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/*
 * Two writers: down_write's own time wins (360 ns), its blocked time (280)
 * is a runner-up of one vote: the same function's other part, a cause too;
 * its 3% of interrupts is not.
 */
START_TEST(test_causes_parts)
{
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":10,\"total_ns\":1000,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"fnode\",\"name\":\"down_write\",\"fnode\":8,"
	    "  \"maxcount\":8,\"total_ns\":640,\"details\":[],\"runners_up\":"
	    "  [{\"kind\":\"blocked\",\"name\":\"blocked\",\"maxcount\":1,\"total_ns\":280},"
	    "   {\"kind\":\"irq\",\"name\":\"irq 11 (x)\",\"maxcount\":1,\"total_ns\":30}]},"
	    " {\"node\":2,\"parent\":1,\"kind\":\"self\",\"name\":\"self\",\"maxcount\":7,"
	    "  \"total_ns\":360,\"details\":[],\"runners_up\":[]}]");
	json_t *c = explain_causes(nodes), *x;

	ck_assert_int_eq(json_array_size(c), 2);
	x = json_array_get(c, 0);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "self");
	ck_assert_double_eq_tol(json_number_value(json_object_get(x, "share")), 0.36, 1e-9);
	x = json_array_get(c, 1);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "blocked");
	ck_assert_double_eq_tol(json_number_value(json_object_get(x, "share")), 0.28, 1e-9);
	/* whose sleeps: down_write's own (the caller looks up who ended them) */
	ck_assert_int_eq(json_integer_value(json_object_get(x, "sleeper")), 8);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(x, "path"), 0)),
			 "down_write");
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/* All causes small: the largest stays, alone. */
START_TEST(test_causes_small)
{
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"total_ns\":1000,"
	    "  \"maxcount\":1,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"fnode\",\"name\":\"A\",\"total_ns\":30,"
	    "  \"maxcount\":1,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":2,\"parent\":0,\"kind\":\"preemption\",\"name\":\"preemption\","
	    "  \"total_ns\":40,\"maxcount\":1,\"details\":[{\"what\":\"vfs_read\"}],"
	    "  \"runners_up\":[]}]");
	json_t *c = explain_causes(nodes), *x;

	ck_assert_int_eq(json_array_size(c), 1);
	x = json_array_get(c, 0);
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "preempt");
	/* a function it hit is not the task that ran instead */
	ck_assert(json_is_null(json_object_get(x, "who")));
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/*
 * The dirty-writeback write: the search stopped at its depth limit
 * in bit_wait_io, 89% of the slow part below it asleep in io_schedule: a
 * wait in io_schedule, for the journal (do_get_write_access), and the CPU
 * time below beside it, not "running in bit_wait_io".
 */
START_TEST(test_causes_below_limit)
{
	struct slow_part sp = {SLOW_TAIL, 0, {.lo = 31, .hi = 32, .calls = 7, .share_lat = 0.4}};
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":7,\"total_ns\":1000,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"fnode\",\"name\":\"do_get_write_access\","
	    "  \"fnode\":8,\"maxcount\":7,\"total_ns\":950,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":2,\"parent\":1,\"kind\":\"fnode\",\"name\":\"bit_wait_io\",\"fnode\":9,"
	    "  \"maxcount\":7,\"total_ns\":930,\"status\":\"maximum depth reached\","
	    "  \"details\":[],\"runners_up\":[]},"
	    " {\"node\":3,\"parent\":2,\"kind\":\"blocked\",\"name\":\"blocked\",\"at\":11,"
	    "  \"below\":[\"io_schedule\"],\"maxcount\":7,\"total_ns\":890,"
	    "  \"status\":\"below the depth limit\","
	    "  \"details\":[{\"role\":\"woken by\",\"what\":\"irq 25 (virtio0-req.0)\"}],"
	    "  \"runners_up\":[]},"
	    " {\"node\":4,\"parent\":2,\"kind\":\"self\",\"name\":\"self\",\"at\":9,"
	    "  \"below\":[],\"maxcount\":0,\"total_ns\":40,\"status\":\"below the depth limit\","
	    "  \"details\":[],\"runners_up\":[]}]");
	json_t *c = explain_causes(nodes), *x = json_array_get(c, 0), *path;
	char *s;

	ck_assert_int_eq(json_array_size(c), 1); /* the 4% of CPU is under the threshold */
	ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "blocked");
	path = json_object_get(x, "path");
	ck_assert_int_eq(json_array_size(path), 4);
	ck_assert_str_eq(json_string_value(json_array_get(path, 2)), "io_schedule");
	ck_assert_str_eq(json_string_value(json_array_get(path, 3)), "[blocked]");
	s = explain_sentence("write()", &sp, x);
	ck_assert_msg(strstr(s, ": waiting for the ext4 journal to release a buffer it is writing"
			       " (do_get_write_access > bit_wait_io > io_schedule), 89% of"), "%s", s);
	ck_assert_ptr_null(strstr(s, "running"));
	free(s);
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/* ---- sentences ---- */

START_TEST(test_sentence_blocked)
{
	struct slow_part sp = {SLOW_PEAK, 2, {.lo = 21, .hi = 24, .calls = 110, .share_lat = 0.38}};
	json_t *c = tree("{\"path\":[\"ext4_buffered_write_iter\",\"down_write\","
			 "\"rwsem_down_write_slowpath\",\"schedule\",\"[blocked]\"],"
			 "\"kind\":\"blocked\",\"share\":0.71,\"who\":\"writer [212]\"}");
	char *s = explain_sentence("write()", &sp, c);

	ck_assert_str_eq(s, "write(): slow peak (buckets 21-24, 110 calls, 38% of its latency):"
			    " waiting for a read-write semaphore, as a writer"
			    " (ext4_buffered_write_iter > down_write > rwsem_down_write_slowpath >"
			    " schedule), 71% of that time, woken by writer [212]");
	free(s);
	json_decref(c);
}
END_TEST

START_TEST(test_sentence_kinds)
{
	struct slow_part sp = {SLOW_TAIL, 0, {.lo = 17, .hi = 17, .calls = 1, .share_lat = 0.5}};
	json_t *irq = tree("{\"path\":[\"[interrupt __sysvec_apic_timer_interrupt]\"],"
			   "\"kind\":\"irq\",\"share\":0.25,"
			   "\"who\":\"interrupt __sysvec_apic_timer_interrupt\"}");
	json_t *self = tree("{\"path\":[\"a\",\"b\",\"c\",\"d\",\"[self]\"],\"kind\":\"self\","
			    "\"share\":0.5,\"who\":null}");
	json_t *own = tree("{\"path\":[\"[self]\"],\"kind\":\"self\",\"share\":0.1}");
	char *s = explain_sentence("read()", &sp, irq);

	ck_assert_str_eq(s, "read(): slow tail (bucket 17, 1 call, 50% of its latency):"
			    " interrupted by the local timer interrupt"
			    " (__sysvec_apic_timer_interrupt), 25% of that time");
	free(s);
	s = explain_sentence("read()", &sp, self);
	ck_assert_str_eq(s, "read(): slow tail (bucket 17, 1 call, 50% of its latency):"
			    " running in d (b > c > d), 50% of that time");
	free(s);
	s = explain_sentence("read()", &sp, own);
	ck_assert_ptr_nonnull(strstr(s, ": running in read() itself, 10% of that time"));
	free(s);
	json_decref(irq);
	json_decref(self);
	json_decref(own);
}
END_TEST

/*
 * A preemption names where the calls were hit and the task that ran
 * instead, from the details' roles (not the first detail, which is where).
 */
START_TEST(test_causes_preempt)
{
	struct slow_part sp = {SLOW_PEAK, 1, {.lo = 22, .hi = 23, .calls = 57, .share_lat = 0.53}};
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":57,\"total_ns\":1000,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"preempt\",\"name\":\"preemption\","
	    "  \"maxcount\":57,\"total_ns\":940,\"runners_up\":[],\"details\":["
	    "  {\"role\":\"hit\",\"what\":\"get_random_bytes_user\"},"
	    "  {\"role\":\"ran instead\",\"what\":\"hog [162]\"}]}]");
	json_t *c = explain_causes(nodes), *x = json_array_get(c, 0);
	char *s;

	ck_assert_int_eq(json_array_size(c), 1);
	ck_assert_str_eq(json_string_value(json_object_get(x, "who")), "hog [162]");
	ck_assert_str_eq(json_string_value(json_object_get(x, "where")), "get_random_bytes_user");
	s = explain_sentence("getrandom()", &sp, x);
	ck_assert_str_eq(s, "getrandom(): slow peak (buckets 22-23, 57 calls, 53% of its latency):"
			    " preempted in get_random_bytes_user, 94% of that time, by hog [162]");
	free(s);
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/* The sentence of cause @json (of part @sp) holds @want. */
static void says(const struct slow_part *sp, const char *json, const char *want)
{
	json_t *c = tree(json);
	char *s = explain_sentence("read()", sp, c);

	ck_assert_msg(s && strstr(s, want), "%s\ndoes not hold\n%s", s, want);
	free(s);
	json_decref(c);
}

/*
 * Who ended a wait, followed: the pipe consumer woken by the
 * producer, which waited for the disk; a remote wake-up through an IPI,
 * traced to the futex_wake that queued it; and an interrupt the recording
 * does not name, said as such with what to record, never "timer".
 */
START_TEST(test_sentence_chain)
{
	struct slow_part sp = {SLOW_BODY, 0, {.lo = 24, .hi = 24, .calls = 200, .share_lat = 1}};
	json_t *pipe = tree(
	    "{\"path\":[\"ksys_read\",\"vfs_read\",\"pipe_read\",\"[blocked]\"],\"kind\":\"blocked\","
	    " \"share\":0.965,\"who\":\"producer [138]\",\"wake\":{\"chain\":["
	    "  {\"kind\":\"waker\",\"who\":\"producer [138]\",\"what\":\"pipe_write\",\"share\":0.99},"
	    "  {\"kind\":\"disk\",\"n\":200,\"share\":0.875}]}}");
	json_t *ipi = tree(
	    "{\"path\":[\"futex_wait_queue\",\"[blocked]\"],\"kind\":\"blocked\",\"share\":0.84,"
	    " \"who\":\"mutex_contend [136]\",\"wake\":{\"chain\":["
	    "  {\"kind\":\"waker\",\"who\":\"mutex_contend [136]\",\"what\":\"futex_wake\","
	    "   \"lag_ns\":77000,\"share\":1}]}}");
	json_t *unknown = tree(
	    "{\"path\":[\"filemap_fault\",\"io_schedule\",\"[blocked]\"],\"kind\":\"blocked\","
	    " \"share\":0.91,\"who\":null,\"wake\":{\"chain\":[{\"kind\":\"unknown\",\"share\":1}],"
	    " \"unknown\":{\"wakeups\":150,\"idle\":150,\"pending_bios\":150,"
	    "  \"advice\":\"the interrupts of idle CPUs are not in the recording\"}}}");
	char *s = explain_sentence("read()", &sp, pipe);

	ck_assert_str_eq(s, "read(): typical calls (bucket 24, 200 calls, 100% of its latency):"
			    " waiting for data in a pipe (vfs_read > pipe_read), 96% of that time,"
			    " woken by producer [138] (pipe_write), which waited for the disk"
			    " (88% of its time): 200 bios");
	free(s);
	s = explain_sentence("futex()", &sp, ipi);
	ck_assert_ptr_nonnull(strstr(s, ", woken by mutex_contend [136] (futex_wake, 77.0us before"
					" the wake-up, which came through an IPI)"));
	free(s);
	s = explain_sentence("mmap_read()", &sp, unknown);
	ck_assert_ptr_nonnull(strstr(s, ", woken by an interrupt the recording does not name (the"
					" interrupts of idle CPUs are not in the recording); 150 of"
					" these sleeps follow a bio"));
	ck_assert_ptr_null(strstr(s, "timer"));
	free(s);
	json_decref(pipe);
	/* the producer's own wait ended by an interrupt not named: that, and what to record */
	pipe = tree(
	    "{\"path\":[\"pipe_read\",\"[blocked]\"],\"kind\":\"blocked\",\"share\":0.9,"
	    " \"who\":\"producer [138]\",\"wake\":{\"chain\":["
	    "  {\"kind\":\"waker\",\"who\":\"producer [138]\",\"share\":1},"
	    "  {\"kind\":\"unknown\",\"share\":0.95}],"
	    " \"unknown\":{\"advice\":\"record irq events\"}}}");
	s = explain_sentence("read()", &sp, pipe);
	ck_assert_ptr_nonnull(strstr(s, ", woken by producer [138], which an interrupt the recording"
					" does not name woke (record irq events)"));
	free(s);
	json_decref(pipe);
	/*
	 * the chain as far as the recording shows it: the last waker's other
	 * large parts beside its largest, the disk with the interrupt that
	 * woke it (the realistic chain3 case), and a waker the recording does
	 * not follow
	 */
	says(&sp, "{\"path\":[\"eventfd_read\",\"[blocked]\"],\"kind\":\"blocked\","
		  " \"share\":0.99, \"who\":\"a [433]\",\"wake\":{\"chain\":["
		  "  {\"kind\":\"waker\",\"who\":\"a [433]\",\"share\":0.76},"
		  "  {\"kind\":\"waker\",\"who\":\"b [434]\",\"share\":0.86},"
		  "  {\"kind\":\"preempted\",\"share\":0.41},"
		  "  {\"kind\":\"running\",\"share\":0.38,\"also\":true},"
		  "  {\"kind\":\"disk\",\"n\":3,\"share\":0.18,\"also\":true,"
		  "   \"what\":\"irq 26 (virtio0-req.1)\"}]}}",
	     ", woken by a [433], which waited for b [434] (86% of its time), which was"
	     " preempted (41% of its time), and was running (38% of its time), and waited for"
	     " the disk (18% of its time): 3 bios, woken by irq 26 (virtio0-req.1)");
	says(&sp, "{\"path\":[\"pipe_read\",\"[blocked]\"],\"kind\":\"blocked\",\"share\":0.9,"
		  " \"who\":\"producer [138]\",\"wake\":{\"chain\":["
		  "  {\"kind\":\"waker\",\"who\":\"producer [138]\",\"share\":1},"
		  "  {\"kind\":\"unseen\",\"share\":1}]}}",
	     ", woken by producer [138], whose time the recording does not show (not all its"
	     " switches are in it");
	json_decref(ipi);
	json_decref(unknown);
}
END_TEST

/* A preemption's sentence says where in the path it hit: the held-out case's __cond_resched. */
START_TEST(test_causes_preempt_where)
{
	struct slow_part sp = {SLOW_PEAK, 2, {.lo = 21, .hi = 23, .calls = 20, .share_lat = 0.72}};
	json_t *nodes = tree(
	    "[{\"node\":0,\"parent\":-1,\"kind\":\"fnode\",\"name\":\"f0\",\"fnode\":7,"
	    "  \"maxcount\":20,\"total_ns\":1000,\"details\":[],\"runners_up\":[]},"
	    " {\"node\":1,\"parent\":0,\"kind\":\"preemption\",\"name\":\"preemption\","
	    "  \"maxcount\":20,\"total_ns\":580,\"runners_up\":[],\"details\":["
	    "  {\"role\":\"hit\",\"what\":\"__cond_resched\",\"fnode\":12,\"path\":"
	    "   [\"ext4_file_read_iter\",\"generic_file_read_iter\",\"filemap_read\",\"__cond_resched\"]},"
	    "  {\"role\":\"ran instead\",\"what\":\"hog [193]\"}]}]");
	json_t *c = explain_causes(nodes);
	char *s = explain_sentence("read()", &sp, json_array_get(c, 0));

	ck_assert_ptr_nonnull(strstr(s, ": preempted in __cond_resched (generic_file_read_iter >"
					" filemap_read > __cond_resched), 58% of that time, by hog [193]"));
	free(s);
	/* a runner-up's preemption, counted over a node's subtree: inside that node */
	json_decref(c);
	c = tree("[{\"path\":[\"vfs_read\",\"pipe_read\",\"schedule\",\"[preempted]\"],"
		 "\"kind\":\"preempt\",\"share\":0.1,\"who\":null}]");
	s = explain_sentence("read()", &sp, json_array_get(c, 0));
	ck_assert_ptr_nonnull(strstr(s, ": preempted inside schedule (vfs_read > pipe_read >"
					" schedule), 10% of that time"));
	free(s);
	json_decref(c);
	json_decref(nodes);
}
END_TEST

/*
 * The kernel waits in plain words: an fsync's journal commit and
 * its own page writeback, a writer throttled in balance_dirty_pages, a
 * write's journal buffer, a futex, a cold mmap'ed page.
 */
START_TEST(test_sentence_waits)
{
	static const struct {
		const char *path, *want;
	} v[] = {
	    {"\"ext4_sync_file\",\"jbd2_complete_transaction\",\"jbd2_log_wait_commit\"",
	     "waiting for the ext4 journal to commit (ext4_sync_file > jbd2_complete_transaction"},
	    {"\"ext4_sync_file\",\"file_write_and_wait_range\",\"__filemap_fdatawait_range\","
	     "\"folio_wait_writeback\",\"folio_wait_bit_common\",\"io_schedule\"",
	     "waiting for its file's page writeback (ext4_sync_file > file_write_and_wait_range"},
	    {"\"generic_perform_write\",\"balance_dirty_pages_ratelimited_flags\","
	     "\"balance_dirty_pages\",\"io_schedule_timeout\"",
	     "waiting for dirty-page throttling (writeback to catch up with the writer)"
	     " (balance_dirty_pages_ratelimited_flags > balance_dirty_pages"},
	    {"\"ext4_dirty_inode\",\"do_get_write_access\",\"out_of_line_wait_on_bit\","
	     "\"__wait_on_bit\",\"bit_wait_io\",\"io_schedule\"",
	     "waiting for the ext4 journal to release a buffer it is writing"},
	    {"\"do_futex\",\"futex_wait\",\"futex_wait_queue\"", "waiting for a futex"},
	    {"\"handle_mm_fault\",\"__handle_mm_fault\",\"filemap_fault\",\"__folio_lock\"",
	     "waiting for a page of a mapped file to be read in (a page fault)"},
	};
	struct slow_part sp = {SLOW_TAIL, 0, {.lo = 30, .hi = 31, .calls = 7, .share_lat = 0.3}};

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		char text[512];
		json_t *c;
		char *s;
		snprintf(text, sizeof(text), "{\"path\":[%s,\"[blocked]\"],\"kind\":\"blocked\","
			 "\"share\":0.5,\"who\":null}", v[i].path);
		c = tree(text);
		s = explain_sentence("fsync()", &sp, c);
		ck_assert_msg(strstr(s, v[i].want), "%s", s);
		free(s);
		json_decref(c);
	}
}
END_TEST

START_TEST(test_title)
{
	char *t = explain_title("__x64_sys_write");

	ck_assert_str_eq(t, "write()");
	free(t);
	t = explain_title("ping");
	ck_assert_str_eq(t, "ping()");
	free(t);
	ck_assert_str_eq(explain_kind("__x64_sys_pread64", 0), "syscall");
	ck_assert_str_eq(explain_kind("vfs_read", 0), "root");
	ck_assert_str_eq(explain_kind("read", 1), "syscall");
	ck_assert_str_eq(explain_kind("ping", 3), "user");
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("explain");

	tcase_add_test(tc, test_slow_zeroread);
	tcase_add_test(tc, test_slow_outlier);
	tcase_add_test(tc, test_slow_tail);
	tcase_add_test(tc, test_slow_negligible);
	tcase_add_test(tc, test_slow_body);
	tcase_add_test(tc, test_slow_two);
	tcase_add_test(tc, test_slow_second);
	tcase_add_test(tc, test_slow_below_body);
	tcase_add_test(tc, test_slow_empty);
	tcase_add_test(tc, test_causes_runner_up);
	tcase_add_test(tc, test_causes_once);
	tcase_add_test(tc, test_causes_parts);
	tcase_add_test(tc, test_causes_small);
	tcase_add_test(tc, test_sentence_blocked);
	tcase_add_test(tc, test_sentence_kinds);
	tcase_add_test(tc, test_causes_preempt);
	tcase_add_test(tc, test_causes_below_limit);
	tcase_add_test(tc, test_sentence_chain);
	tcase_add_test(tc, test_causes_preempt_where);
	tcase_add_test(tc, test_sentence_waits);
	tcase_add_test(tc, test_title);
	return unit_run(unit_suite("explain", tc));
}
