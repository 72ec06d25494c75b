// SPDX-License-Identifier: MIT
/* Unit tests of fmt/: the trace.dat reader on hand-built files, and vis (names escaped). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "fmt.h"
#include "rd.h"
#include "tdat.h"
#include "vis.h"

static char path[64];

static void setup(void)
{
	strcpy(path, "/tmp/darc-unit-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

/* Read every event of @path into arrays; returns the count or -1. */
static int read_all(const char *p, struct fmt_event *evs, int *vals, int max, struct fmt_err *err)
{
	struct fmt_reader *r = fmt_reader_open(p, 0, err);
	int n = 0, rc;

	if (!r)
		return -1;
	while ((rc = fmt_reader_next(r, &evs[n], err)) > 0) {
		struct tep_format_field *f;
		unsigned long long v = 0;
		ck_assert_ptr_nonnull(evs[n].event);
		ck_assert_str_eq(evs[n].event->name, "tick");
		f = tep_find_field(evs[n].event, "value");
		ck_assert_ptr_nonnull(f);
		tep_read_number_field(f, evs[n].data, &v);
		vals[n] = (int)v;
		if (++n == max)
			break;
	}
	fmt_reader_close(r);
	return rc < 0 ? -1 : n;
}

START_TEST(test_rd_bounds)
{
	uint8_t b[6] = {1, 0, 2, 0, 0, 0};
	struct rd r = rd_init(b, sizeof(b), false);

	ck_assert_uint_eq(rd_u16(&r), 1);
	ck_assert_uint_eq(rd_u32(&r), 2);
	ck_assert(!r.bad);
	ck_assert_uint_eq(rd_u16(&r), 0); /* past the end: zero, and marked */
	ck_assert(r.bad);
	r = rd_init("ab", 2, false);
	ck_assert_ptr_null(rd_str(&r)); /* no NUL inside the range */
	ck_assert(r.bad);
	r = rd_init("\x01\x02", 2, true);
	ck_assert_uint_eq(rd_u16(&r), 0x0102);
}
END_TEST

START_TEST(test_merge_order)
{
	static struct tdat t;
	struct fmt_event ev[16];
	int val[16];
	struct fmt_err err;

	tdat_init(&t, 2);
	tdat_page(&t, 0, 1000, 0);
	tdat_tick(&t, 0, 1000, 42, 0, 1);
	tdat_tick(&t, 0, 3000, 42, 0, 3);
	tdat_tick(&t, 0, 5000, 42, 0x08, 5); /* hardirq flag */
	tdat_page(&t, 1, 2000, 0);
	tdat_tick(&t, 1, 2000, 1, 0, 2);
	tdat_tick(&t, 1, 3000, 1, 0, 4); /* tie with cpu 0: cpu 0 first */
	tdat_tick(&t, 1, 6000, 1, 0, 6);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	ck_assert_int_eq(read_all(path, ev, val, 16, &err), 6);
	int want_val[] = {1, 2, 3, 4, 5, 6};
	int want_cpu[] = {0, 1, 0, 1, 0, 1};
	uint64_t want_ts[] = {1000, 2000, 3000, 3000, 5000, 6000};
	for (int i = 0; i < 6; i++) {
		ck_assert_int_eq(val[i], want_val[i]);
		ck_assert_int_eq(ev[i].cpu, want_cpu[i]);
		ck_assert_uint_eq(ev[i].ts, want_ts[i]);
		ck_assert_uint_eq(ev[i].type, TDAT_TICK_ID);
		ck_assert_uint_eq(ev[i].missed, 0);
	}
	ck_assert_int_eq(ev[0].pid, 42);
	ck_assert_int_eq(ev[1].pid, 1);
	ck_assert_uint_eq(ev[4].flags, FMT_FLAG_HARDIRQ);
}
END_TEST

START_TEST(test_info_and_comm)
{
	static struct tdat t;
	struct fmt_err err;
	struct fmt_reader *r;
	const struct fmt_info *info;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 10, 0);
	tdat_tick(&t, 0, 10, 42, 0, 1);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	info = fmt_reader_info(r);
	ck_assert_int_eq(info->version, 6);
	ck_assert_int_eq(info->cpus, 1);
	ck_assert_int_eq(info->page_size, TDAT_PAGE);
	ck_assert_str_eq(info->compression, "none");
	ck_assert_int_eq(info->nbuffers, 1);
	ck_assert_str_eq(tep_data_comm_from_pid(fmt_reader_tep(r), 42), "worker");
	fmt_reader_close(r);
	fmt_reader_close(NULL); /* accepts NULL */
}
END_TEST

/* Kallsyms: names through libtraceevent, modules through the reader. */
START_TEST(test_kallsyms_modules)
{
	static struct tdat t;
	struct fmt_err err;
	struct fmt_reader *r;
	struct tep_handle *tep;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 10, 0);
	tdat_tick(&t, 0, 10, 42, 0, 1);
	t.kallsyms = "ffffffff81000000 T _stext\n"
		     "ffffffff81200000 T vfs_read\n"
		     "not a symbol line [x]\n"
		     "ffffffffc03e1bd0 t ext4_file_read_iter\t[ext4]\n"
		     "ffffffffc03e1bd0 t ext4_alias\t[ext4]\n"
		     "ffffffffc038be10 t virtblk_request_done\t[virtio_blk]\n"
		     "ffffffffc0390000 t ext4_map_blocks\t[ext4]\n";
	ck_assert_int_gt(tdat_write(&t, path), 0);
	t.kallsyms = NULL;
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	tep = fmt_reader_tep(r);
	ck_assert_str_eq(tep_find_function(tep, 0xffffffff81200010ULL), "vfs_read");
	ck_assert_ptr_null(fmt_reader_func_module(r, 0xffffffff81200000ULL));
	ck_assert_str_eq(fmt_reader_func_module(r, 0xffffffffc03e1bd0ULL), "ext4");
	ck_assert_str_eq(fmt_reader_func_module(r, 0xffffffffc038be10ULL), "virtio_blk");
	ck_assert_str_eq(fmt_reader_func_module(r, 0xffffffffc0390000ULL), "ext4");
	/* only a symbol's start address has a module */
	ck_assert_ptr_null(fmt_reader_func_module(r, 0xffffffffc0390004ULL));
	ck_assert_ptr_null(fmt_reader_func_module(r, 0));
	ck_assert_int_eq(fmt_reader_info(r)->bad_lines, 1);
	fmt_reader_close(r);
}
END_TEST

START_TEST(test_missed_events)
{
	static struct tdat t;
	struct fmt_event ev[16];
	int val[16];
	struct fmt_err err;
	struct fmt_reader *r;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	tdat_page(&t, 0, 900, 17); /* 17 events lost before this page */
	tdat_tick(&t, 0, 900, 7, 0, 2);
	tdat_page(&t, 0, 950, -1); /* lost, count unknown */
	tdat_tick(&t, 0, 950, 7, 0, 3);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	ck_assert_int_eq(read_all(path, ev, val, 16, &err), 3);
	ck_assert_uint_eq(ev[0].missed, 0);
	ck_assert_uint_eq(ev[1].missed, 17);
	ck_assert_uint_eq(ev[2].missed, FMT_MISSED_UNKNOWN);
	r = fmt_reader_open(path, 0, &err);
	while (fmt_reader_next(r, &ev[0], &err) > 0)
		;
	const struct fmt_cpu_stats *st = fmt_reader_cpu_stats(r, 0, 0);
	ck_assert_uint_eq(st->lost, 17);
	ck_assert_uint_eq(st->lost_marks, 2);
	ck_assert_uint_eq(st->lost_uncounted, 1);
	ck_assert_uint_eq(st->events, 3);
	fmt_reader_close(r);
}
END_TEST

/* Overwrite @n bytes at @off of the file at path. */
static void poke(long off, const void *b, size_t n)
{
	FILE *f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	fseek(f, off, SEEK_SET);
	fwrite(b, 1, n, f);
	fclose(f);
}

static void expect_error(const char *needle)
{
	struct fmt_err err;
	struct fmt_event ev[64];
	int val[64];

	ck_assert_int_eq(read_all(path, ev, val, 64, &err), -1);
	ck_assert_msg(strstr(err.msg, path), "message does not name the file: %s", err.msg);
	ck_assert_msg(strstr(err.msg, needle), "'%s' not in: %s", needle, err.msg);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
}

START_TEST(test_corrupt_page_header)
{
	static struct tdat t;
	long data;
	uint64_t commit = 5000; /* more than a page holds */

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	data = tdat_write(&t, path);
	poke(data + 8, &commit, 8);
	expect_error("corrupt page header");
}
END_TEST

START_TEST(test_corrupt_event_length)
{
	static struct tdat t;
	long data;
	uint32_t hdr = 0; /* type_len 0: length in the next word */
	uint32_t len = 4000;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	tdat_tick(&t, 0, 200, 7, 0, 2);
	data = tdat_write(&t, path);
	poke(data + 16 + 16, &hdr, 4);
	poke(data + 16 + 20, &len, 4);
	expect_error("corrupt event");
}
END_TEST

START_TEST(test_bad_headers)
{
	static struct tdat t;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	tdat_write(&t, path);
	poke(10, "9", 1);
	expect_error("unsupported trace.dat version '9'");
	tdat_write(&t, path);
	poke(0, "X", 1);
	expect_error("wrong magic");
	tdat_write(&t, path);
	poke(14, "\x00\x00\x01\x00", 4); /* page size 65536 is fine; 3 is not */
	poke(14, "\x03\x00\x00\x00", 4);
	expect_error("bad page size 3");
	ck_assert_int_eq(truncate(path, 0), 0);
	expect_error("empty file");
}
END_TEST

START_TEST(test_truncated_everywhere)
{
	static struct tdat t;
	struct fmt_err err;
	struct fmt_event ev[64];
	int val[64];
	long size;

	tdat_init(&t, 2);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	tdat_page(&t, 1, 100, 0);
	tdat_tick(&t, 1, 150, 7, 0, 1);
	tdat_write(&t, path);
	{
		FILE *f = fopen(path, "rb");
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
	}
	ck_assert_int_eq(read_all(path, ev, val, 64, &err), 2);
	/* every cut, at any byte, must be reported, never read as a shorter file */
	for (long cut = 0; cut < size; cut += (cut < 2048 ? 1 : 97)) {
		tdat_write(&t, path);
		ck_assert_int_eq(truncate(path, cut), 0);
		ck_assert_msg(read_all(path, ev, val, 64, &err) == -1, "cut at %ld read fine", cut);
		ck_assert_msg(strstr(err.msg, path), "cut at %ld: %s", cut, err.msg);
	}
}
END_TEST

/* vis_put(@s, @flags) as a string (caller frees). */
static char *put(const char *s, unsigned flags)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ck_assert_ptr_nonnull(f);
	vis_put(f, s, flags);
	fclose(f);
	return buf;
}

START_TEST(test_vis_escapes)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"vfs_read", "vfs_read"},
	    {"\x1b]0;title\a", "\\e]0;title\\a"},	/* OSC: retitles a terminal */
	    {"a\r\nb\t\b\v\f", "a\\r\\nb\\t\\b\\v\\f"}, /* CR LF forge lines */
	    {"\x01\x1f\x7f", "\\x01\\x1f\\x7f"},	/* other C0, DEL */
	    {"back\\slash", "back\\\\slash"},		/* unambiguous: the escape doubles */
	    {"\2332J", "\\x9b2J"},			/* C1 CSI as one byte */
	    {"\302\2332J", "\\xc2\\x9b2J"},		/* C1 CSI as UTF-8 */
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	    {"\xc3", "\\xc3"},				  /* cut sequence at the end */
	    {"\xc3(", "\\xc3("},			  /* bad continuation */
	    {"\xc0\xaf", "\\xc0\\xaf"},			  /* overlong '/' */
	    {"\xed\xa0\x80", "\\xed\\xa0\\x80"},	  /* surrogate */
	    {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"}, /* above U+10FFFF */
	    {"a;b 12", "a;b 12"},			  /* only folded stacks care */
	    {"", ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = put(cases[i].in, 0);
		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: '%s', want '%s'", i, got,
			      cases[i].out);
		ck_assert_str_eq(vis(cases[i].in), cases[i].out);
		free(got);
	}
}
END_TEST

START_TEST(test_vis_folded)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"a;b", "a\\x3bb"},		      /* ';' separates frames */
	    {"kworker 12", "kworker\\x2012"}, /* would read as a second count */
	    {"ver 1.5", "ver\\x201.5"},
	    {"a 12b", "a 12b"}, /* not a count: kept */
	    {"a 1 b", "a 1 b"},
	    {"trailing ", "trailing "},
	    {"\x1b[1m\n", "\\e[1m\\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = put(cases[i].in, VIS_FOLDED);
		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: '%s', want '%s'", i, got,
			      cases[i].out);
		free(got);
	}
}
END_TEST

/* vis() gives plain names back as they are, and 8 escaped ones live at once. */
START_TEST(test_vis_ring)
{
	const char *plain = "do_sys_open", *got[8];
	char in[8][16], want[16];

	ck_assert_ptr_eq(vis(plain), plain);
	ck_assert_str_eq(vis(NULL), "(null)");
	for (int i = 0; i < 8; i++) {
		snprintf(in[i], sizeof(in[i]), "n%d\a", i);
		got[i] = vis(in[i]);
	}
	for (int i = 0; i < 8; i++) {
		snprintf(want, sizeof(want), "n%d\\a", i);
		ck_assert_str_eq(got[i], want);
	}
	{ /* a long name grows its buffer */
		char *big = malloc(100001);
		memset(big, '\x1b', 100000);
		big[100000] = 0;
		ck_assert_uint_eq(strlen(vis(big)), 200000);
		free(big);
	}
}
END_TEST

static Suite *fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("reader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rd_bounds);
	tcase_add_test(tc, test_merge_order);
	tcase_add_test(tc, test_info_and_comm);
	tcase_add_test(tc, test_kallsyms_modules);
	tcase_add_test(tc, test_missed_events);
	tcase_add_test(tc, test_corrupt_page_header);
	tcase_add_test(tc, test_corrupt_event_length);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("vis");
	tcase_add_test(tc, test_vis_escapes);
	tcase_add_test(tc, test_vis_folded);
	tcase_add_test(tc, test_vis_ring);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fmt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
