// SPDX-License-Identifier: MIT
/*
 * Unit tests of fmt/: the trace.dat reader on hand-built files, the ftree
 * text grammar of function_graph's options, vis (names escaped) and wfile's
 * syncing ahead.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <traceevent/event-parse.h>

#include "bytes.h"
#include "fmt.h"
#include "reader.h"
#include "tdat.h"
#include "text-block.h"
#include "text-formats.h"
#include "text-line.h"
#include "text-probe.h"
#include "text-raw.h"
#include "unit-run.h"
#include "vis.h"
#include "wfile.h"

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
/* fmt_reader_open()'s flags of read_all() */
static unsigned open_flags;

static int read_all(const char *p, struct fmt_event *evs, int *vals, int max, struct err_msg *err)
{
	struct fmt_reader *r = fmt_reader_open(p, open_flags, err);
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
	struct err_msg err;

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

/*
 * Saved cmdlines are read into libtraceevent as its own parser reads them:
 * every pid's comm the same as tep_parse_saved_cmdlines() gives from the
 * same text (a pid twice, white space, ten digits, and a line with nothing
 * after its pid's white space, where both stop). An equivalence guard of
 * register_cmdlines(), which replaced that parser for speed.
 */
START_TEST(test_cmdlines_as_libtraceevent)
{
	static struct tdat t;
	static const char text[] = "42 worker\n1 init\n7 a b  c\n8 \t tabbed\n42 again\n"
				   "4294967297 wide\n99 \t \n100 after the stop\n";
	static const int pids[] = {42, 1, 7, 8, 1, 99, 100, 5, 0};
	struct tep_handle *tep = tep_alloc();
	struct err_msg err;
	struct fmt_reader *r;

	tdat_init(&t, 1);
	t.cmdlines = text;
	tdat_page(&t, 0, 10, 0);
	tdat_tick(&t, 0, 10, 42, 0, 1);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	ck_assert_ptr_nonnull(tep);
	tep_parse_saved_cmdlines(tep, text);
	for (size_t i = 0; i < sizeof(pids) / sizeof(*pids); i++)
		ck_assert_str_eq(tep_data_comm_from_pid(fmt_reader_tep(r), pids[i]),
				 tep_data_comm_from_pid(tep, pids[i]));
	ck_assert_str_eq(tep_data_comm_from_pid(fmt_reader_tep(r), 7), "a b  c");
	ck_assert_str_eq(tep_data_comm_from_pid(fmt_reader_tep(r), 100), "<...>");
	tep_free(tep);
	fmt_reader_close(r);
}
END_TEST

START_TEST(test_info_and_comm)
{
	static struct tdat t;
	struct err_msg err;
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

/*
 * A kallsyms text like a kernel's: its own symbols in order of address,
 * with aliases (two to four names at one address), absolute symbols and
 * '$' names (not functions), then modules' symbols out of order, with
 * aliases too. Deterministic (a fixed seed). Written into @buf.
 */
static void make_kallsyms(char *buf, size_t size)
{
	uint64_t rng = 0x243f6a8885a308d3ULL, a = 0xffffffff81000000ULL;
	size_t o = 0;

	for (int i = 0; i < 3000; i++) {
		int names = (rng % 7 == 0) ? 2 + (int)(rng % 3) : 1;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		for (int k = 0; k < names; k++)
			o += snprintf(buf + o, size - o, "%016llx %c %s_%d_%d\n", (unsigned long long)a,
				      "TtDdrA"[(rng >> 33) % 6], k == 1 && i % 5 == 0 ? "$x" : "f", i, k);
		a += 16 + (rng >> 40) % 4096;
	}
	for (int i = 0; i < 800; i++) { /* modules: addresses in no order */
		uint64_t m = 0xffffffffc0000000ULL + ((rng >> 20) % 0x100000) * 16;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		o += snprintf(buf + o, size - o, "%016llx t m_%d\t[mod%d]\n", (unsigned long long)m, i,
			      i % 3);
		if (i % 9 == 0)
			o += snprintf(buf + o, size - o, "%016llx t m_%d_alias\t[mod%d]\n",
				      (unsigned long long)m, i, i % 3);
	}
	ck_assert_uint_lt(o, size - 1);
}

/* The answers of @tep and @lib (libtraceevent's own table) at @addr are the same. */
static void same_function(struct tep_handle *tep, struct tep_handle *lib, uint64_t addr)
{
	const char *a = tep_find_function(tep, addr), *b = tep_find_function(lib, addr);

	ck_assert_msg((!a && !b) || (a && b && !strcmp(a, b)), "at 0x%llx: %s, libtraceevent %s",
		      (unsigned long long)addr, a ? a : "(none)", b ? b : "(none)");
	ck_assert_uint_eq(tep_find_function_address(tep, addr), tep_find_function_address(lib, addr));
}

/*
 * The reader's kallsyms table (fmt/ksyms.c, libtraceevent's resolver) finds
 * every address as libtraceevent's own table does (tep_parse_kallsyms() into
 * a handle of its own): the same name, aliases included, and the same start.
 */
START_TEST(test_ksyms_like_libtraceevent)
{
	static struct tdat t;
	static char text[1 << 20];
	struct err_msg err;
	struct fmt_reader *r;
	struct tep_handle *lib = tep_alloc();
	int n = 0;

	make_kallsyms(text, sizeof(text));
	text[strlen(text) - 1] = 0; /* a last line without its newline, in place before other data */
	ck_assert_int_eq(tep_parse_kallsyms(lib, text), 0);
	tdat_init(&t, 1);
	tdat_page(&t, 0, 10, 0);
	tdat_tick(&t, 0, 10, 42, 0, 1);
	t.kallsyms = text;
	ck_assert_int_gt(tdat_write(&t, path), 0);
	t.kallsyms = NULL;
	/* parsed at open (a copy), and on first use (in place, in the file's mapping) */
	for (int lazy = 0; lazy <= 1; lazy++) {
		r = fmt_reader_open(path, lazy ? FMT_OPEN_NO_KALLSYMS : 0, &err);
		ck_assert_msg(r, "%s", err.msg);
		ck_assert_int_eq(fmt_reader_load_kallsyms(r, &err), 0);
		n = 0;
		for (const char *line = text; line; line = strchr(line, '\n')) {
			uint64_t a = strtoull(line += *line == '\n', NULL, 16);

			for (int d = -1; d <= 5; d++)
				same_function(fmt_reader_tep(r), lib, a + d);
			n++;
		}
		same_function(fmt_reader_tep(r), lib, 0);
		same_function(fmt_reader_tep(r), lib, UINT64_MAX);
		ck_assert_int_gt(n, 4000);
		fmt_reader_close(r);
	}
	tep_free(lib);

	/* no function at all (absolute symbols only): nothing is found */
	t.kallsyms = "0000000000000000 A fixed_percpu_data\n0000000000001000 A __per_cpu_end\n";
	ck_assert_int_gt(tdat_write(&t, path), 0);
	t.kallsyms = NULL;
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	ck_assert_ptr_null(tep_find_function(fmt_reader_tep(r), 0x1000));
	ck_assert_uint_eq(tep_find_function_address(fmt_reader_tep(r), 0x1000), 0);
	fmt_reader_close(r);
}
END_TEST

/* Kallsyms: names through libtraceevent, modules through the reader. */
START_TEST(test_kallsyms_modules)
{
	static struct tdat t;
	struct err_msg err;
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
	struct err_msg err;
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

/*
 * A loss reported by a page with no event is carried by the stream's next
 * event, also when that event is in the next run of pages, which the reader
 * may walk on another thread (fmt/prefetch.c: 64 pages a run): a later loss
 * report before that event replaces the carried one, as one reader walking
 * page by page does.
 */
START_TEST(test_missed_carried)
{
	static struct tdat t;
	static struct fmt_event ev[160];
	static int val[160];
	struct err_msg err;
	int i, n;

	tdat_init(&t, 2);
	for (i = 0; i < 63; i++) {
		tdat_page(&t, 0, 100 + i, 0);
		tdat_tick(&t, 0, 100 + i, 7, 0, i);
		tdat_page(&t, 1, 100 + i, 0);
		tdat_tick(&t, 1, 100 + i, 8, 0, 1000 + i);
	}
	tdat_page(&t, 0, 200, 11); /* page 63, the first run's last: no event */
	tdat_page(&t, 0, 300, 0);  /* page 64, the second run's first */
	tdat_tick(&t, 0, 300, 7, 0, 64);
	tdat_page(&t, 1, 200, 5); /* page 63: no event */
	tdat_page(&t, 1, 300, 9); /* page 64: its loss replaces the 5 */
	tdat_tick(&t, 1, 300, 8, 0, 1064);
	ck_assert_int_gt(tdat_write(&t, path), 0);
	/* the reading threads, then the reader's own thread alone (FMT_OPEN_SERIAL):
	   the same events in the same order */
	for (int serial = 0; serial < 2; serial++) {
		static int first[160];

		open_flags = serial ? FMT_OPEN_SERIAL : 0;
		n = read_all(path, ev, val, 160, &err);
		ck_assert_int_eq(n, 128);
		for (i = 0; i < n; i++) {
			uint64_t want = val[i] == 64 ? 11 : val[i] == 1064 ? 9 : 0;
			ck_assert_uint_eq(ev[i].missed, want);
			if (serial)
				ck_assert_int_eq(val[i], first[i]);
			first[i] = val[i];
		}
	}
	open_flags = 0;
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
	struct err_msg err;
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
	char where[64];

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	data = tdat_write(&t, path);
	poke(data + 8, &commit, 8);
	expect_error("corrupt page header");
	snprintf(where, sizeof(where), "at file offset %ld ", data);
	expect_error(where);
}
END_TEST

START_TEST(test_corrupt_event_length)
{
	static struct tdat t;
	long data;
	uint32_t hdr = 0; /* type_len 0: length in the next word */
	char where[64];
	uint32_t len = 4000;

	tdat_init(&t, 1);
	tdat_page(&t, 0, 100, 0);
	tdat_tick(&t, 0, 100, 7, 0, 1);
	tdat_tick(&t, 0, 200, 7, 0, 2);
	data = tdat_write(&t, path);
	poke(data + 16 + 16, &hdr, 4);
	poke(data + 16 + 20, &len, 4);
	expect_error("corrupt event");
	snprintf(where, sizeof(where), "page at file offset %ld", data); /* where to look */
	expect_error(where);
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
	struct err_msg err;
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

/* Parse @line, which must be fine; @t gets it. */
static void parse_ok(const char *line, struct tline *t)
{
	const char *why;

	ck_assert_msg(!tline_parse(line, (int)strlen(line), t, &why), "%s: %s", line, why);
}

static bool span_is(struct text_span s, const char *want)
{
	return s.n == (int)strlen(want) && (s.n == 0 || !memcmp(s.p, want, s.n));
}

/*
 * funcgraph-retval, -args and -retaddr as the kernel prints them
 * (print_graph_entry_nested(), print_graph_retval() in
 * kernel/trace/trace_functions_graph.c) and as trace-cmd report does: the
 * call, its depth and duration stay what they are without the options.
 */
START_TEST(test_text_fgraph_options)
{
	static const struct {
		const char *line;
		int kind, depth;
		const char *name, *args, *ret_to;
		uint64_t ret_off, ret;
		bool has_ret;
	} ok[] = {
	    /* the kernel: entry with its return address, leaf, exit with funcgraph-tail/-retval */
	    {" 0)               |  do_sys_openat2(dfd=-100, filename=0x7ffd5c3e1f20) { "
	     "/* <-__x64_sys_openat+0x55/0xa0 */",
	     TL_ENTRY, 0, "do_sys_openat2", "dfd=-100, filename=0x7ffd5c3e1f20",
	     "__x64_sys_openat", 0x55, 0, false},
	    {" 1)   0.412 us    |    kmalloc(s=0xffff888100051e00, x=(STRUCT)[0x1:0x2], ...); "
	     "/* <-getname_flags+0x34/0x1d0 [foo] ret=0xffff888104a2c000 */",
	     TL_LEAF, 1, "kmalloc", "s=0xffff888100051e00, x=(STRUCT)[0x1:0x2], ...",
	     "getname_flags", 0x34, 0xffff888104a2c000ULL, true},
	    {" 0)   0.250 us    |      may_open(); /* ret=-13 */", TL_LEAF, 2, "may_open", "", "",
	     0, (uint64_t)-13, true},
	    /* with the sym-addr option: the return address's own */
	    {" 0)               |  f() { /* <-g+0x1c/0x80 [m] <ffffffffc0400a1c> */", TL_ENTRY, 0,
	     "f", "", "g", 0x1c, 0, false},
	    {" 0)   1.200 us    |    } /* path_openat [ext4] ret=0xfffffffffffffff3 */", TL_EXIT, 1,
	     "path_openat", "", "", 0, 0xfffffffffffffff3ULL, true},
	    {" 0)   1.200 us    |    } /* path_openat */", TL_EXIT, 1, "path_openat", "", "", 0, 0,
	     false},
	    /* trace-cmd report (3.4): "/+ <-caller +/" before "{", " (ret=...)" last */
	    {"  w-42 [000] 1.000001: fgraph_retaddr_entry:     |  f(a=1) /* <-g */ {", TL_ENTRY, 0,
	     "f", "a=1", "g", 0, 0, false},
	    {"  w-42 [000] 1.000001: funcgraph_entry:  0.4 us |    f(ffff, 3); (3) /* <-g */ "
	     "(ret=-22)",
	     TL_LEAF, 3, "f", "ffff, 3", "g", 0, (uint64_t)-22, true},
	    {"  w-42 [000] 1.000001: funcgraph_exit:  0.4 us |  } /* f */ (0) (ret=0x10)", TL_EXIT, 0,
	     "f", "", "", 0, 0x10, true},
	    /* trace-cmd 3.1 knows no fgraph_retaddr_entry: its print format */
	    {"  w-42 [000] 1.000001: fgraph_retaddr_entry: --> f (2) <- g", TL_ENTRY, 2, "f", "",
	     "g", 0, 0, false},
	};
	static const char *const bad[] = {
	    " 0)   0.412 us    |  f(a=1; /* ret=0x0 */",	 /* the parentheses unbalanced */
	    " 0)   0.412 us    |  f(); /* ret=0x0 ret=0x1 */",	 /* two values */
	    " 0)   0.412 us    |  f(); /* ret=zero */",		 /* not a number */
	    " 0)   0.412 us    |  f(); /* <-g+0xq/0x1 */",	 /* a bad offset */
	    " 0)   0.412 us    |  f() x;",			 /* text between ) and ; */
	    " 0)   1.200 us    |  } /* f ret=0x0 g */",		 /* a name after the value */
	    " 0)               |  f() { /* a */ /* b */ /* c */", /* comments enough */
	    "  w-42 [000] 1.000001: fgraph_retaddr_entry: --> f <- g",
	};
	struct tline t;
	const char *why;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		parse_ok(ok[i].line, &t);
		ck_assert_msg(t.kind == ok[i].kind && t.depth == ok[i].depth, "%s", ok[i].line);
		ck_assert_msg(span_is(t.name, ok[i].name), "name of %s", ok[i].line);
		ck_assert_msg(span_is(t.args, ok[i].args), "args of %s", ok[i].line);
		ck_assert_msg(span_is(t.ret_to, ok[i].ret_to) && t.ret_off == ok[i].ret_off,
			      "return address of %s", ok[i].line);
		ck_assert_msg(t.has_ret == ok[i].has_ret && t.ret == ok[i].ret, "ret of %s",
			      ok[i].line);
	}
	/* the duration is the call's, not the options' */
	parse_ok(" 1)   0.412 us    |    f(a=1); /* ret=0x5 */", &t);
	ck_assert(t.has_dur && t.dur == 412);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(tline_parse(bad[i], (int)strlen(bad[i]), &t, &why), "taken: %s",
			      bad[i]);
}
END_TEST

/* funcgraph-args' values: names, kinds and the registers they fill. */
START_TEST(test_text_fgraph_args)
{
	struct targs a;
	struct text_span s;

	s = (struct text_span){"dfd=-100, how=0xffffc90000637e98, x=?0x5, k=(STRUCT)[0x1:0x2], ...",
			       0};
	s.n = (int)strlen(s.p);
	ck_assert_int_eq(tline_args_parse(s, &a), 0);
	ck_assert_int_eq(a.n, 4);
	ck_assert_int_eq(a.nslots, 5);
	ck_assert(span_is(a.a[0].name, "dfd") && a.a[0].kind == 'd' && a.v[0] == (uint64_t)-100);
	ck_assert(span_is(a.a[1].name, "how") && a.a[1].kind == 'x' &&
		  a.v[1] == 0xffffc90000637e98ULL);
	ck_assert(a.a[2].kind == 'x' && a.v[2] == 5);
	ck_assert(a.a[3].kind == 'w' && a.a[3].slots == 2 && a.v[3] == 1 && a.v[4] == 2);
	/* trace-cmd without BTF: bare hex, no names */
	s = (struct text_span){"ffff888104a2c000, 10", 20};
	ck_assert_int_eq(tline_args_parse(s, &a), 0);
	ck_assert(a.n == 2 && a.a[0].name.n == 0 && a.v[0] == 0xffff888104a2c000ULL &&
		  a.v[1] == 0x10);
	/* a name with a bare number is signed decimal; more than 8 registers is wrong */
	s = (struct text_span){"a=10, b=zz", 10};
	ck_assert_int_eq(tline_args_parse(s, &a), -1);
	s = (struct text_span){"a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=(STRUCT)[0x1:0x2]", 0};
	s.n = (int)strlen(s.p);
	ck_assert_int_eq(tline_args_parse(s, &a), -1);
	s.n -= 21; /* arm64 saves 8 registers: "a=1, ..., g=7" */
	ck_assert_int_eq(tline_args_parse(s, &a), 0);
	ck_assert(a.n == 7 && a.v[6] == 7);
	s = (struct text_span){"a=1,b=2", 7};
	ck_assert_int_eq(tline_args_parse(s, &a), -1);
}
END_TEST

/* A text with the options: the event formats they need, and the functions' parameters. */
/* The reader of a file holding @text. */
static struct fmt_reader *open_text(const char *text)
{
	FILE *f = fopen(path, "w");
	struct err_msg err;
	struct fmt_reader *r;

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	return r;
}

START_TEST(test_text_fgraph_records)
{
	static const char text[] =
	    "# tracer: function_graph\n"
	    " 0)               |  f(fd=3, buf=0x7ffd1000) { /* <-g+0x1c/0x80 */\n"
	    " 0)   0.100 us    |    h(); /* <-f+0x10/0x40 ret=0x0 */\n"
	    " 0)   1.000 us    |  } /* f ret=-11 */\n";
	struct fmt_reader *r;
	struct fmt_event ev;
	struct err_msg err;
	const struct fmt_param *p;
	unsigned long long v;
	int n = 0, np;

	r = open_text(text);
	while (fmt_reader_next(r, &ev, &err) > 0) {
		const char *name = ev.event->name;
		n++;
		if (!strcmp(name, "fgraph_retaddr_entry") && ev.size >= 32 + 48) {
			/* f's: its arguments in the registers the kernel saves */
			tep_read_number_field(tep_find_field(ev.event, "func"), ev.data, &v);
			ck_assert(fmt_reader_func_params(r, v, &p, &np));
			tep_read_number_field(tep_find_field(ev.event, "retaddr"), ev.data, &v);
			if (np == 2) {
				ck_assert_str_eq(p[0].name, "fd");
				ck_assert(p[0].kind == 'd' && p[1].kind == 'x' && p[1].slots == 1);
				ck_assert_str_eq(tep_find_function(fmt_reader_tep(r), v), "g");
				ck_assert_uint_eq(v - tep_find_function_address(fmt_reader_tep(r), v),
						  0x1c);
			} else {
				ck_assert_int_eq(np, 0); /* h() */
			}
		} else if (!strcmp(name, "funcgraph_exit")) {
			tep_read_number_field(tep_find_field(ev.event, "retval"), ev.data, &v);
			ck_assert(v == 0 || v == (unsigned long long)-11);
		} else {
			ck_abort_msg("unexpected event %s of %u bytes", name, ev.size);
		}
	}
	ck_assert_int_eq(n, 4);
	fmt_reader_close(r);
}
END_TEST

/*
 * A leaf whose entry event is late by an interrupt (trace-cmd report of a
 * 6.1 recording in the VM lab): the interrupt's calls come first, one
 * deeper, then "up_read();" with the entry's time and the whole duration.
 * The call returned before the CPU's next event and began its duration
 * earlier, around the interrupt, as the trace.dat's calltime says; and the
 * next line keeps its own time.
 */
START_TEST(test_text_late_leaf)
{
	static const char text[] =
	    "w-133  0.....  6.278044069: funcgraph_exit:       ! 377.369 us |        }\n"
	    "w-133  0d.h3.  6.278086321: funcgraph_entry:        2.634 us   |          irq_enter_rcu();\n"
	    "w-133  0d.h3.  6.278089856: funcgraph_entry:      ! 178.825 us |          __sysvec_apic_timer_interrupt();\n"
	    "w-133  0...1.  6.278318826: funcgraph_entry:      ! 274.847 us |        up_read();\n"
	    "w-133  0...1.  6.278321159: funcgraph_entry:        1.723 us   |        current_time();\n";
	static const unsigned long long want[][3] = {
		/* event time, calltime, rettime of each exit */
		{6278044069, 6277666700, 6278044069},
		{6278088955, 6278086321, 6278088955},
		{6278268681, 6278089856, 6278268681},
		{6278321159, 6278046312, 6278321159}, /* up_read's: returned by 6.278321159 */
		{6278322882, 6278321159, 6278322882},
	};
	struct fmt_reader *r;
	struct fmt_event ev;
	struct err_msg err;
	unsigned long long v;
	int n = 0;

	r = open_text(text);
	while (fmt_reader_next(r, &ev, &err) > 0) {
		if (strcmp(ev.event->name, "funcgraph_exit"))
			continue;
		ck_assert_int_lt(n, 5);
		ck_assert_uint_eq(ev.ts, want[n][0]);
		tep_read_number_field(tep_find_field(ev.event, "calltime"), ev.data, &v);
		ck_assert_uint_eq(v, want[n][1]);
		tep_read_number_field(tep_find_field(ev.event, "rettime"), ev.data, &v);
		ck_assert_uint_eq(v, want[n][2]);
		n++;
	}
	ck_assert_int_eq(n, 5);
	fmt_reader_close(r);
}
END_TEST

/*
 * The lines of the function tracer, stack traces, system call events and
 * trace-cmd's instance prefix, as the kernel (6.1, 6.18) and trace-cmd
 * 3.1 print them (the samples in samples/text/ hold each).
 */
/*
 * The latency flags' first column: irqs off 'd', bottom halves off 'b', both
 * 'D'. The lines are 7.3's `cat trace` of net events under ping (loopback:
 * sent with bottom halves off) and trace-cmd report -l's sched_switch.
 */
START_TEST(test_text_bh_flags)
{
	static const struct {
		const char *line;
		uint8_t flags, preempt;
	} c[] = {
	    {"            ping-132     [000] b....    13.616251: net_dev_queue: dev=lo "
	     "skbaddr=(____ptrval____) len=98 net_cookie=7",
	     FMT_FLAG_BH_OFF, 0},
	    {"            ping-132     [000] b.s2.    13.629645: net_dev_queue: dev=lo "
	     "skbaddr=(____ptrval____) len=98 net_cookie=7",
	     FMT_FLAG_BH_OFF | FMT_FLAG_SOFTIRQ, 2},
	    {"            ping-132     [000] ..s1.    13.630045: consume_skb: "
	     "skbaddr=(____ptrval____) location=icmp_rcv+0x20a/0x3c0",
	     FMT_FLAG_SOFTIRQ, 1},
	    {"vm-workl-136     1D..2.    58.307955436: sched_switch:         vm-workload:136 [120] "
	     "D ==> swapper/1:0 [120]",
	     FMT_FLAG_IRQS_OFF | FMT_FLAG_BH_OFF, 2},
	};
	struct tline t;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		parse_ok(c[i].line, &t);
		ck_assert_msg(t.has_lat && t.flags == c[i].flags && t.preempt == c[i].preempt,
			      "%s: flags 0x%x preempt %d", c[i].line, t.flags, t.preempt);
	}
}
END_TEST

START_TEST(test_text_forms_lines)
{
	static const struct {
		const char *line;
		int kind, sys, cpu, pid;
		const char *name, *mod, *ret_to, *text;
		uint64_t off, ret_off, addr;
	} ok[] = {
	    {"     vm-workload-133     [000] .....     5.560244: __x64_sys_pread64 <-do_syscall_64",
	     TL_FUNC, 0, 0, 133, "__x64_sys_pread64", "", "do_syscall_64", "", 0, 0, 0},
	    {"  w-132 [000] .....  6.968914: blk_mq_start_request+0x0/0x140 "
	     "<-virtblk_prep_rq.isra.0+0xec/0x300 [virtio_blk]",
	     TL_FUNC, 0, 0, 132, "blk_mq_start_request", "", "virtblk_prep_rq.isra.0", "", 0, 0xec,
	     0},
	    {"  e-9 [001] ..... 1.5: ext4_file_read_iter+0x4/0x1e0 [ext4] <-vfs_read+0x5d/0x310",
	     TL_FUNC, 0, 1, 9, "ext4_file_read_iter", "ext4", "vfs_read", "", 4, 0x5d, 0},
	    {"  vm-workload-133   [000]     5.560244: function:             __x64_sys_pread64",
	     TL_FUNC, 0, 0, 133, "__x64_sys_pread64", "", "", "", 0, 0, 0},
	    {"  w-1 [000] 5.5: function:   ip=vfs_read parent_ip=ksys_read", TL_FUNC, 0, 0, 1,
	     "vfs_read", "", "ksys_read", "", 0, 0, 0},
	    {"     vm-workload-133     [000] .....     5.561069: <stack trace>", TL_EVENT, 0, 0,
	     133, "kernel_stack", "", "", "", 0, 0, 0},
	    {"  w-1 [000] 5.5: <user stack trace>", TL_EVENT, 0, 0, 1, "user_stack", "", "", "", 0,
	     0, 0},
	    {" => __x64_sys_pread64+0x5/0xc0", TL_FRAME, 0, -1, -1, "__x64_sys_pread64", "", "", "",
	     5, 0, 0},
	    {" => ext4_file_read_iter+0x5d/0x1e0 [ext4]", TL_FRAME, 0, -1, -1, "ext4_file_read_iter",
	     "ext4", "", "", 0x5d, 0, 0},
	    {" => 0xffffffffc0305083", TL_FRAME, 0, -1, -1, "", "", "", "", 0, 0,
	     0xffffffffc0305083ULL},
	    {"=> vfs_read (ffffffffb0f669e5)", TL_FRAME, 0, -1, -1, "vfs_read", "", "", "", 0, 0,
	     0xffffffffb0f669e5ULL},
	    {" cat-7 [001] ..... 26418.875275: sys_openat(dfd: 0xffffff9c, flags: 0x441)", TL_EVENT,
	     1, 1, 7, "openat", "", "", "dfd: 0xffffff9c, flags: 0x441", 0, 0, 0},
	    {" cat-7 [001] ..... 26418.875420: sys_openat -> 0xfffffffffffffffe", TL_EVENT, 2, 1, 7,
	     "openat", "", "", "0xfffffffffffffffe", 0, 0, 0},
	    {"inst-1524:    dd-1543  [001] 26418.892932: kernel_stack:         <stack trace >",
	     TL_EVENT, 0, 1, 1543, "kernel_stack", "", "", "<stack trace >", 0, 0, 0},
	    {"CPU 3 is empty", TL_ANNOT, 0, 3, -1, "", "", "", "", 0, 0, 0},
	    {"##### CPU 1 buffer started ####", TL_ANNOT, 0, 1, -1, "", "", "", "", 0, 0, 0},
	};
	static const char *const bad[] = {
	    "  w-1 [000] ..... 5.5: vfs_read",	/* a function without its parent: "EVENT:"? */
	    "  w-1 [000] ..... 5.5: sys_openat(dfd: 0x3", /* the parenthesis not closed */
	    "  w-1 [000] ..... 5.5: <stack trace> more",
	    " => f+0xz/0x10",
	    "CPU 3 is empty now",
	};
	struct tline t;
	const char *why;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		parse_ok(ok[i].line, &t);
		ck_assert_msg(t.kind == ok[i].kind && t.sys == ok[i].sys, "kind of %s", ok[i].line);
		ck_assert_msg(t.cpu == ok[i].cpu && t.pid == ok[i].pid, "cpu, pid of %s", ok[i].line);
		ck_assert_msg(span_is(t.name, ok[i].name) && span_is(t.mod, ok[i].mod) &&
				      t.off == ok[i].off,
			      "name of %s", ok[i].line);
		ck_assert_msg(span_is(t.ret_to, ok[i].ret_to) && t.ret_off == ok[i].ret_off,
			      "parent of %s", ok[i].line);
		ck_assert_msg(span_is(t.text, ok[i].text), "text of %s", ok[i].line);
		ck_assert_msg(t.addr == ok[i].addr && t.has_addr == (ok[i].addr != 0), "addr of %s",
			      ok[i].line);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(tline_parse(bad[i], (int)strlen(bad[i]), &t, &why), "taken: %s",
			      bad[i]);
}
END_TEST

/* Read @text; the fields of its events in order: @want[i] "name: field=value ...". */
static void text_fields(const char *text, const char *const *want, int n)
{
	struct fmt_reader *r = open_text(text);
	struct fmt_event ev;
	struct err_msg err;
	struct trace_seq s;
	int i = 0;

	trace_seq_init(&s);
	while (fmt_reader_next(r, &ev, &err) > 0) {
		struct tep_record rec = {.ts = ev.ts, .cpu = ev.cpu, .data = (void *)ev.data,
					 .size = (int)ev.size};
		trace_seq_reset(&s);
		trace_seq_printf(&s, "%s:", ev.event->name); /* the raw fields start with a space */
		tep_print_event(fmt_reader_tep(r), &s, &rec, "%s", TEP_PRINT_INFO_RAW);
		trace_seq_terminate(&s);
		ck_assert_int_lt(i, n);
		ck_assert_str_eq(s.buffer, want[i]);
		i++;
	}
	ck_assert_int_eq(i, n);
	trace_seq_destroy(&s);
	fmt_reader_close(r);
}

/*
 * What the records hold: the kernel's formats of 6.18 (block with the I/O
 * priority, syscalls), -R's raw fields, a stack trace's frames; values
 * written out by hand from the lines (ioprio "be,0,4": 2 << 13 | 4).
 */
START_TEST(test_text_forms_records)
{
	static const char nop[] =
	    "# tracer: nop\n"
	    " dd-1543 [001] ..... 26418.892900: block_rq_issue: 254,0 WS 32768 () 173348760 + 64 "
	    "be,0,4 [dd]\n"
	    " dd-1543 [001] ..... 26418.892932: <stack trace>\n"
	    " => blk_mq_start_request+0x5/0x40\n"
	    " => 0xffffffffc0305083\n"
	    " dd-1543 [001] ..... 26418.893000: sys_pread64(fd: 3, buf: 0x7f00, count: 0x1000, "
	    "pos: 0x0)\n"
	    " dd-1543 [001] ..... 26418.893100: sys_pread64 -> 0x1000\n";
	static const char *const nop_want[] = {
	    "block_rq_issue: dev=266338304 sector=173348760 nr_sector=64 bytes=32768 ioprio=16388 "
	    "rwbs=WS comm=dd cmd=",
	    NULL, /* kernel_stack: below */
	    "sys_enter_pread64: __syscall_nr=3072 fd=0x00000003 buf=0x00007f00 count=0x00001000 "
	    "pos=0x00000000",
	    "sys_exit_pread64: __syscall_nr=3072 ret=0x1000",
	};
	static const char raw[] =
	    "cpus=2\n"
	    "i:  a-15675 [000] 26418.873390: sched_switch:          prev_comm=a b prev_pid=15675 "
	    "prev_prio=130 prev_state=256 next_comm=c next_pid=27828 next_prio=120\n"
	    "i:  a-15675 [000] 26418.873400: block_rq_complete:     dev=266338304 "
	    "sector=18446744073709551615 nr_sector=8 error=-5 ioprio=16388 rwbs=WSM cmd=\n"
	    "i:  a-15675 [000] 26418.873500: sys_exit_openat:       __syscall_nr=257 ret=0x3\n";
	static const char *const raw_want[] = {
	    "sched_switch: prev_comm=a b prev_pid=15675 prev_prio=130 prev_state=256 next_comm=c "
	    "next_pid=27828 next_prio=120",
	    "block_rq_complete: dev=266338304 sector=18446744073709551615 nr_sector=8 error=-5 "
	    "ioprio=16388 rwbs=WSM cmd=",
	    "sys_exit_openat: __syscall_nr=257 ret=0x3",
	};
	struct fmt_reader *r;
	struct fmt_event ev;
	struct err_msg err;
	unsigned long long v;
	int n = 0;

	r = open_text(nop);
	while (fmt_reader_next(r, &ev, &err) > 0) {
		if (n++ != 1)
			continue;
		ck_assert_str_eq(ev.event->name, "kernel_stack");
		tep_read_number_field(tep_find_field(ev.event, "size"), ev.data, &v);
		ck_assert_uint_eq(v, 2);
		memcpy(&v, ev.data + 16, 8);
		ck_assert_str_eq(tep_find_function(fmt_reader_tep(r), v), "blk_mq_start_request");
		ck_assert_uint_eq(v - tep_find_function_address(fmt_reader_tep(r), v), 5);
		memcpy(&v, ev.data + 24, 8);
		ck_assert_uint_eq(v, 0xffffffffc0305083ULL);
	}
	fmt_reader_close(r);
	ck_assert_int_eq(n, 4);
	{ /* the others, field by field */
		const char *w[] = {nop_want[0], nop_want[2], nop_want[3]};
		char *text = strdup(nop), *p = strstr(text, " dd-1543 [001] ..... 26418.892932");
		char *q = strstr(text, " dd-1543 [001] ..... 26418.893000");
		memmove(p, q, strlen(q) + 1); /* without the stack trace */
		text_fields(text, w, 3);
		free(text);
	}
	text_fields(raw, raw_want, 3);
}
END_TEST

/* A trace.dat with the options' layouts: the reader hands their fields over as recorded. */
START_TEST(test_tracedat_fgraph_fields)
{
	static struct tdat t;
	static const char *const ftrace[] = {tf_fg_exit_retval, tf_fg_retaddr, NULL};
	uint8_t rec[80] = {0}, ex[48] = {0};
	uint16_t type = TF_ID_FG_RETADDR;
	uint64_t func = 0xffffffff81200000ULL, retaddr = 0xffffffff81000040ULL, retval = -22;
	struct fmt_event ev;
	struct err_msg err;
	struct fmt_reader *r;
	unsigned long long v;

	tdat_init(&t, 1);
	t.kallsyms = "ffffffff81000000 T caller\nffffffff81200000 T vfs_read\n";
	t.ftrace_formats = ftrace;
	tdat_page(&t, 0, 10, 0);
	memcpy(rec, &type, 2);
	memcpy(rec + 8, &func, 8);
	memcpy(rec + 24, &retaddr, 8);
	for (int i = 0; i < 6; i++)
		rec[32 + 8 * i] = (uint8_t)(i + 1);
	tdat_event(&t, 0, 10, rec, sizeof(rec));
	type = TF_ID_FG_EXIT;
	memcpy(ex, &type, 2);
	memcpy(ex + 8, &func, 8);
	memcpy(ex + 16, &retval, 8);
	tdat_event(&t, 0, 20, ex, sizeof(ex));
	ck_assert_int_gt(tdat_write(&t, path), 0);
	r = fmt_reader_open(path, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	ck_assert_int_eq(fmt_reader_next(r, &ev, &err), 1);
	ck_assert_str_eq(ev.event->name, "fgraph_retaddr_entry");
	ck_assert_uint_eq(ev.size, sizeof(rec));
	ck_assert_int_eq(tep_find_field(ev.event, "args")->offset, 32);
	tep_read_number_field(tep_find_field(ev.event, "retaddr"), ev.data, &v);
	ck_assert_uint_eq(v, retaddr);
	ck_assert_uint_eq(((const uint8_t *)ev.data)[32 + 8 * 5], 6);
	ck_assert(!fmt_reader_func_params(r, func, &(const struct fmt_param *){0}, &(int){0}));
	ck_assert_int_eq(fmt_reader_next(r, &ev, &err), 1);
	tep_read_number_field(tep_find_field(ev.event, "retval"), ev.data, &v);
	ck_assert_uint_eq(v, retval);
	fmt_reader_close(r);
}
END_TEST

/* The entries of /proc/self/@what (fd, task): open descriptors, threads. */
static int proc_count(const char *what)
{
	char dir[64];
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/self/%s", what);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* @n bytes of 'x' to @fd. */
static void write_x(int fd, size_t n)
{
	static char buf[65536];

	memset(buf, 'x', sizeof(buf));
	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);
		ck_assert_int_eq(write(fd, buf, k), (ssize_t)k);
		n -= k;
	}
}

/*
 * wfile_sync_ahead(): a thread syncs in the background while the file is
 * written; commit and abort end it and close its descriptor, and the file
 * is whole (commit) or gone (abort). Also with the descriptor closed early
 * and the file written by name, as the database writer does.
 */
static int failing_writer(void *ctx, FILE *f)
{
	(void)ctx;
	(void)f;
	return -1;
}

/*
 * A writer that fails on "-" (stdout) is reported as the writer's failure
 * (-2) with a message, as for a file: the caller then says its own reason.
 * It was -1, "the file failed", with the error left as it was: uninitialised
 * text printed as darc's message.
 */
START_TEST(test_wfile_write_stdout_fails)
{
	const struct wfile_kind any = {"a test file", NULL};
	struct err_msg err;

	memset(err.msg, 'X', sizeof(err.msg) - 1);
	err.msg[sizeof(err.msg) - 1] = 0;
	ck_assert_int_eq(wfile_write("-", &any, false, failing_writer, NULL, &err), -2);
	ck_assert_str_eq(err.msg, "'-': cannot write it");
	unlink(path);
	ck_assert_int_eq(wfile_write(path, &any, true, failing_writer, NULL, &err), -2);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot write it"));
	ck_assert_int_ne(access(path, F_OK), 0); /* nothing half-written left */
}
END_TEST

/* Of two reservations of one path, the second fails at once, naming the first's pid. */
START_TEST(test_wfile_reserve)
{
	struct err_msg err;
	char lock[256], want[160];
	int a, b;

	unlink(path);
	a = wfile_reserve(path, &err);
	ck_assert_msg(a >= 0, "%s", err.msg);
	b = wfile_reserve(path, &err); /* another open file description: flock refuses it */
	ck_assert_int_eq(b, -1);
	snprintf(want, sizeof(want), "another process (pid %ld) is writing it", (long)getpid());
	ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	ck_assert_int_eq(access(lock, F_OK), 0);
	wfile_release(path, a);
	ck_assert_int_ne(access(lock, F_OK), 0);
	b = wfile_reserve(path, &err);
	ck_assert_msg(b >= 0, "%s", err.msg);
	wfile_release(path, b);
}
END_TEST

static void *policy_of(void *arg)
{
	*(int *)arg = sched_getscheduler(0);
	return NULL;
}

/* A helper thread runs SCHED_BATCH (its wake-ups leave the main thread be); its creator does not. */
START_TEST(test_wfile_thread_batch)
{
	pthread_t t;
	int policy = -1, mine = sched_getscheduler(0);

	ck_assert_int_eq(wfile_thread_create(&t, policy_of, &policy), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(policy, SCHED_BATCH);
	ck_assert_int_eq(sched_getscheduler(0), mine);
}
END_TEST

START_TEST(test_wfile_sync_ahead)
{
	const struct wfile_kind any = {"a test file", NULL};
	int fds = proc_count("fd"), threads = proc_count("task");
	char tmp[128];
	struct stat st;
	struct err_msg err;

	for (int mode = 0; mode < 3; mode++) {
		struct wfile *w;
		int fd;

		unlink(path);
		w = wfile_create(path, &any, true, &err);
		ck_assert_msg(w, "%s", err.msg);
		snprintf(tmp, sizeof(tmp), "%s", wfile_tmp(w));
		fd = wfile_fd(w);
		if (mode == 2) { /* closed early, written by name */
			ck_assert_int_eq(wfile_close_fd(w, &err), 0);
			fd = open(tmp, O_WRONLY);
			ck_assert_int_ge(fd, 0);
		}
		write_x(fd, 1 << 20);
		wfile_sync_ahead(w);
		ck_assert_int_eq(proc_count("task"), threads + 1);
		write_x(fd, 1 << 20);
		wfile_sync_ahead(w);
		wfile_sync_ahead(w); /* merged, or one more: either is fine */
		write_x(fd, 12345);
		if (mode == 2)
			close(fd);
		if (mode == 1) {
			wfile_abort(w);
			ck_assert_int_ne(stat(tmp, &st), 0);
			ck_assert_int_ne(stat(path, &st), 0);
		} else {
			ck_assert_msg(wfile_commit(w, &err) == 0, "%s", err.msg);
			ck_assert_int_eq(stat(path, &st), 0);
			ck_assert_int_eq(st.st_size, (2 << 20) + 12345);
			ck_assert_int_ne(stat(tmp, &st), 0);
		}
		ck_assert_int_eq(proc_count("fd"), fds);
		ck_assert_int_eq(proc_count("task"), threads);
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
	tcase_add_test(tc, test_cmdlines_as_libtraceevent);
	tcase_add_test(tc, test_info_and_comm);
	tcase_add_test(tc, test_kallsyms_modules);
	tcase_add_test(tc, test_ksyms_like_libtraceevent);
	tcase_add_test(tc, test_missed_events);
	tcase_add_test(tc, test_missed_carried);
	tcase_add_test(tc, test_corrupt_page_header);
	tcase_add_test(tc, test_corrupt_event_length);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_tracedat_fgraph_fields);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text_fgraph_options);
	tcase_add_test(tc, test_text_fgraph_args);
	tcase_add_test(tc, test_text_fgraph_records);
	tcase_add_test(tc, test_text_late_leaf);
	tcase_add_test(tc, test_text_forms_lines);
	tcase_add_test(tc, test_text_bh_flags);
	tcase_add_test(tc, test_text_forms_records);
	suite_add_tcase(s, tc);
	tc = tcase_create("vis");
	tcase_add_test(tc, test_vis_escapes);
	tcase_add_test(tc, test_vis_folded);
	tcase_add_test(tc, test_vis_ring);
	suite_add_tcase(s, tc);
	tc = tcase_create("wfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_wfile_thread_batch);
	tcase_add_test(tc, test_wfile_sync_ahead);
	tcase_add_test(tc, test_wfile_write_stdout_fails);
	tcase_add_test(tc, test_wfile_reserve);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(fmt_suite());
}
