// SPDX-License-Identifier: MIT
/*
 * Unit tests of fmt/writer.c: trace.dat v7 files written from hand-made
 * ring-buffer pages, read back with fmt_reader_open() event by event, and
 * (when trace-cmd is installed) read by `trace-cmd report`.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "events.h"
#include "fmt.h"
#include "reader.h"
#include "tdat.h"
#include "tracedat-ids.h"
#include "unit-run.h"
#include "writer.h"

#define PAGE 4096

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

#define COMMON_FIELDS                                                                              \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* test:tick (id 300): an int; test:name (id 301): a comm-like string and a u64 */
static const char tick_format[] = "name: tick\nID: 300\nformat:\n" COMMON_FIELDS
				  "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
				  "print fmt: \"value=%d\", REC->value\n";
static const char name_format[] = "name: name\nID: 301\nformat:\n" COMMON_FIELDS
				  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
				  "\tfield:u64 addr;\toffset:24;\tsize:8;\tsigned:0;\n\n"
				  "print fmt: \"comm=%s addr=%llx\", REC->comm, REC->addr\n";
/* an ftrace-system format, as tracefs events/ftrace/ has */
static const char marker_format[] = "name: print\nID: 5\nformat:\n" COMMON_FIELDS
				    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
				    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
				    "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/* ---- hand-made ring-buffer pages ----------------------------------------- */

static void page_start(struct tdat_page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->data, &ts, 8);
	p->last = ts;
}

static void page_tick(struct tdat_page *p, uint64_t ts, int pid, int value)
{
	uint8_t b[12] = {0};
	uint16_t type = 300;

	memcpy(b, &type, 2);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &value, 4);
	tdat_append(p, ts, b, sizeof(b));
}

static void page_name(struct tdat_page *p, uint64_t ts, int pid, const char *comm, uint64_t addr)
{
	uint8_t b[32] = {0};
	uint16_t type = 301;

	memcpy(b, &type, 2);
	b[2] = FMT_FLAG_HARDIRQ;
	memcpy(b + 4, &pid, 4);
	strncpy((char *)b + 8, comm, 15);
	memcpy(b + 24, &addr, 8);
	tdat_append(p, ts, b, sizeof(b));
}

/* Set the commit word; @missed > 0 stores a lost-event count after the data. */
static void page_end(struct tdat_page *p, long missed)
{
	uint64_t commit = p->used;

	if (missed) {
		commit |= 1ULL << 31;
		commit |= 1ULL << 30;
		memcpy(p->data + 16 + p->used, &missed, 8);
	}
	memcpy(p->data + 8, &commit, 8);
}

/* ---- fixtures ------------------------------------------------------------ */

static char dir[64], out[96];

static void setup(void)
{
	strcpy(dir, "/tmp/darc-writer-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.dat", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A file of @n pages (and @tail stray bytes), open for reading at offset 0. */
static int page_file(const struct tdat_page *pages, int n, int tail)
{
	char p[128];
	static int seq;
	int fd;

	snprintf(p, sizeof(p), "%s/cpu.%d", dir, seq++);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(write(fd, pages[i].data, PAGE), PAGE);
	if (tail)
		ck_assert_int_eq(write(fd, pages[0].data, tail), tail);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void add_meta(struct fmt_writer *w)
{
	static const char kallsyms[] = "ffffffff81000000 T _stext\n"
				       "ffffffff81001000 T darc_test_func\n";
	static const char printk[] = "0xffffffff82000000 : \"hello %d\\n\"\n";
	static const char cmdlines[] = "42 worker\n7 init\n";
	static const char manifest[] = "{\"tool\":\"darc-record\",\"pids\":[42]}";
	uint32_t ncpus = 3;
	struct err_msg err;

	ck_assert_int_eq(fmt_writer_set_headers(w, header_page, sizeof(header_page) - 1,
						header_event, sizeof(header_event) - 1, &err),
			 0);
	ck_assert_int_eq(
	    fmt_writer_add_format(w, "ftrace", marker_format, sizeof(marker_format) - 1, &err), 0);
	ck_assert_int_eq(
	    fmt_writer_add_format(w, "test", tick_format, sizeof(tick_format) - 1, &err), 0);
	ck_assert_int_eq(
	    fmt_writer_add_format(w, "other", name_format, sizeof(name_format) - 1, &err), 0);
	ck_assert_int_eq(fmt_writer_set_kallsyms(w, kallsyms, sizeof(kallsyms) - 1, &err), 0);
	ck_assert_int_eq(fmt_writer_set_printk(w, printk, sizeof(printk) - 1, &err), 0);
	ck_assert_int_eq(fmt_writer_set_cmdlines(w, cmdlines, sizeof(cmdlines) - 1, &err), 0);
	ck_assert_int_eq(
	    fmt_writer_add_option_str(w, FMT_OPT_UNAME, "Linux box 6.1.0 x86_64", &err), 0);
	ck_assert_int_eq(fmt_writer_add_option_str(w, FMT_OPT_VERSION, "darc-record test", &err),
			 0);
	ck_assert_int_eq(
	    fmt_writer_add_option_str(w, FMT_OPT_TRACECLOCK, "local [global] counter\n", &err), 0);
	ck_assert_int_eq(fmt_writer_add_option(w, FMT_OPT_CPUCOUNT, &ncpus, 4, &err), 0);
	ck_assert_int_eq(fmt_writer_add_option_str(w, FMT_OPT_DARC_MANIFEST, manifest, &err), 0);
}

/* The events every test writes: cpu 0 two pages (the second after 5 lost), cpu 1 one. */
static struct tdat_page cpu0[2], cpu1[1];

static void make_pages(void)
{
	page_start(&cpu0[0], 1000);
	page_tick(&cpu0[0], 1000, 42, 1);
	page_tick(&cpu0[0], 3000, 42, 3);
	page_name(&cpu0[0], 3000 + (1ULL << 28), 7, "kworker/0:1", 0xffffffff81001000ULL);
	page_end(&cpu0[0], 0);
	page_start(&cpu0[1], 1ULL << 30);
	page_tick(&cpu0[1], (1ULL << 30) + 10, 42, 5);
	page_end(&cpu0[1], 5);
	page_start(&cpu1[0], 2000);
	page_tick(&cpu1[0], 2000, 43, 2);
	page_tick(&cpu1[0], 4000, 43, 4);
	page_end(&cpu1[0], 0);
}

struct want {
	uint64_t ts;
	int cpu, pid, value; /* value -1: a test:name event */
	uint64_t missed;
};

static const struct want want_top[] = {
    {1000, 0, 42, 1, 0},
    {2000, 1, 43, 2, 0},
    {3000, 0, 42, 3, 0},
    {4000, 1, 43, 4, 0},
    {3000 + (1ULL << 28), 0, 7, -1, 0},
    {(1ULL << 30) + 10, 0, 42, 5, 5},
};

/* Write the standard file to @out with @params; cpu 2 has no data. */
static void write_standard(const struct fmt_writer_params *params, int tail,
			   struct fmt_writer_cpu_stats *st)
{
	struct err_msg err;
	struct fmt_writer *w;
	struct fmt_writer_cpu cpus[3];
	static const char stats0[] = "CPU: 0\nentries: 0\noverrun: 0\n";

	make_pages();
	w = fmt_writer_create(out, params, &err);
	ck_assert_msg(w, "%s", err.msg);
	add_meta(w);
	cpus[0] = (struct fmt_writer_cpu){0, page_file(cpu0, 2, tail)};
	cpus[1] = (struct fmt_writer_cpu){1, page_file(cpu1, 1, 0)};
	cpus[2] = (struct fmt_writer_cpu){2, page_file(NULL, 0, 0)};
	ck_assert_msg(!fmt_writer_add_buffer(w, "", "global", 3, cpus, st, &err), "%s", err.msg);
	/* metadata after the data is refused; options still go to the last section */
	ck_assert_int_eq(fmt_writer_set_cmdlines(w, "x", 1, &err), -1);
	ck_assert_int_eq(fmt_writer_add_option_str(w, FMT_OPT_CPUSTAT, stats0, &err), 0);
	for (int i = 0; i < 3; i++)
		close(cpus[i].fd);
	/* not there until finished */
	ck_assert_int_eq(access(out, F_OK), -1);
	ck_assert_msg(!fmt_writer_finish(w, &err), "%s", err.msg);
	fmt_writer_free(w);
}

/* Read @path back and compare every event with @want (buffer 0). */
static void check_events(const char *path, const struct want *want, int nwant, int nbuf)
{
	struct err_msg err;
	struct fmt_reader *r = fmt_reader_open(path, 0, &err);
	struct fmt_event ev;
	int n = 0, rc;

	ck_assert_msg(r, "%s", err.msg);
	while ((rc = fmt_reader_next(r, &ev, &err)) > 0) {
		unsigned long long v = 0;
		const struct want *x;

		if (ev.buffer != 0)
			continue;
		ck_assert_int_lt(n, nwant);
		x = &want[n++];
		ck_assert_uint_eq(ev.ts, x->ts);
		ck_assert_int_eq(ev.cpu, x->cpu);
		ck_assert_int_eq(ev.pid, x->pid);
		ck_assert_uint_eq(ev.missed, x->missed);
		ck_assert_ptr_nonnull(ev.event);
		if (x->value >= 0) {
			ck_assert_str_eq(ev.event->name, "tick");
			ck_assert_str_eq(ev.event->system, "test");
			tep_read_number_field(tep_find_field(ev.event, "value"), ev.data, &v);
			ck_assert_int_eq((int)v, x->value);
		} else {
			struct tep_format_field *f = tep_find_field(ev.event, "comm");
			ck_assert_str_eq(ev.event->name, "name");
			ck_assert_str_eq(ev.event->system, "other");
			ck_assert_str_eq((const char *)ev.data + f->offset, "kworker/0:1");
			tep_read_number_field(tep_find_field(ev.event, "addr"), ev.data, &v);
			ck_assert_uint_eq(v, 0xffffffff81001000ULL);
			ck_assert_uint_eq(ev.flags, FMT_FLAG_HARDIRQ);
		}
	}
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_int_eq(n, nwant);
	ck_assert_int_eq(fmt_reader_info(r)->nbuffers, nbuf);
	fmt_reader_close(r);
}

START_TEST(test_roundtrip)
{
	struct fmt_writer_params prm = {.chunk_pages = _i == 0 ? 10 : 1,
					.compression = _i == 2 ? "none" : NULL};
	struct fmt_writer_cpu_stats st[3];
	struct err_msg err;
	struct fmt_reader *r;
	const struct fmt_info *info;
	struct tep_handle *tep;

	write_standard(&prm, 0, st);
	ck_assert_uint_eq(st[0].pages, 2);
	ck_assert_uint_eq(st[1].pages, 1);
	ck_assert_uint_eq(st[2].pages, 0);
	check_events(out, want_top, 6, 1);

	r = fmt_reader_open(out, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	info = fmt_reader_info(r);
	ck_assert_int_eq(info->version, 7);
	ck_assert_str_eq(info->compression, _i == 2 ? "none" : "zstd");
	ck_assert_int_eq(info->page_size, PAGE);
	ck_assert_int_eq(info->cpus, 3);
	ck_assert_str_eq(info->uname, "Linux box 6.1.0 x86_64");
	ck_assert_str_eq(info->tracer_version, "darc-record test");
	ck_assert_str_eq(info->manifest_json, "{\"tool\":\"darc-record\",\"pids\":[42]}");
	ck_assert_str_eq(info->clock, "global");
	ck_assert_int_eq(info->unknown_options, 0);
	ck_assert_int_eq(info->nevent_formats, 3);
	ck_assert_int_eq(info->buffers[0].ncpus, 3);
	ck_assert_str_eq(info->buffers[0].name, "");
	ck_assert_int_eq(info->buffers[0].cpu_ids[2], 2);
	ck_assert_uint_eq(info->buffers[0].bytes[2], 0);
	ck_assert_ptr_nonnull(info->buffers[0].cpustats);
	ck_assert_ptr_nonnull(strstr(info->buffers[0].cpustats, "overrun: 0"));
	ck_assert_uint_gt(info->kallsyms_bytes, 0);
	ck_assert_uint_gt(info->printk_bytes, 0);
	ck_assert_uint_eq(info->cmdlines_bytes, 17);
	tep = fmt_reader_tep(r);
	ck_assert_str_eq(tep_data_comm_from_pid(tep, 42), "worker");
	ck_assert_str_eq(tep_find_function(tep, 0xffffffff81001000ULL), "darc_test_func");
	ck_assert_ptr_nonnull(fmt_events_find(r, "ftrace", "print"));
	fmt_reader_close(r);
}
END_TEST

START_TEST(test_two_buffers_and_tail)
{
	struct err_msg err;
	struct fmt_writer *w;
	struct fmt_writer_cpu cpus[2];
	struct fmt_writer_cpu_stats st[2];
	struct fmt_reader *r;
	struct fmt_event ev;
	int inst = 0, rc;

	make_pages();
	w = fmt_writer_create(out, NULL, &err);
	ck_assert_msg(w, "%s", err.msg);
	add_meta(w);
	cpus[0] = (struct fmt_writer_cpu){0, page_file(cpu0, 2, 100)};
	cpus[1] = (struct fmt_writer_cpu){1, page_file(cpu1, 1, 0)};
	ck_assert_msg(!fmt_writer_add_buffer(w, "", "local", 2, cpus, st, &err), "%s", err.msg);
	ck_assert_uint_eq(st[0].tail_bytes, 100);
	ck_assert_uint_eq(st[0].pages, 2);
	close(cpus[0].fd);
	/* an instance with cpu 1's page stored as its cpu 3 */
	cpus[0] = (struct fmt_writer_cpu){3, page_file(cpu1, 1, 0)};
	ck_assert_msg(!fmt_writer_add_buffer(w, "darc-inst", "local", 1, cpus, NULL, &err), "%s",
		      err.msg);
	ck_assert_msg(!fmt_writer_finish(w, &err), "%s", err.msg);
	fmt_writer_free(w);
	close(cpus[0].fd);
	close(cpus[1].fd);

	check_events(out, want_top, 6, 2);
	r = fmt_reader_open(out, 0, &err);
	ck_assert_msg(r, "%s", err.msg);
	ck_assert_str_eq(fmt_reader_info(r)->buffers[1].name, "darc-inst");
	while ((rc = fmt_reader_next(r, &ev, &err)) > 0)
		if (ev.buffer == 1) {
			ck_assert_int_eq(ev.cpu, 3);
			inst++;
		}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(inst, 2);
	fmt_reader_close(r);
}
END_TEST

START_TEST(test_failures_leave_nothing)
{
	struct err_msg err;
	struct fmt_writer *w;
	char bad[160], cmd[200];
	FILE *ls;
	int n = 0;

	/* a writer freed before its finish leaves neither the file nor a temporary */
	w = fmt_writer_create(out, NULL, &err);
	ck_assert_msg(w, "%s", err.msg);
	add_meta(w);
	fmt_writer_free(w);
	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	ls = popen(cmd, "r");
	while (fgetc(ls) != EOF)
		n++;
	pclose(ls);
	ck_assert_int_eq(n, 0);

	/* no headers: the finish fails and names the file */
	w = fmt_writer_create(out, NULL, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(fmt_writer_finish(w, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, out));
	ck_assert_ptr_nonnull(strstr(err.msg, "header_page"));
	ck_assert_int_eq(fmt_writer_add_option(w, FMT_OPT_BUFFER, "x", 1, &err), -1);
	fmt_writer_free(w);
	ck_assert_int_eq(access(out, F_OK), -1);

	/* a directory that does not exist */
	snprintf(bad, sizeof(bad), "%s/no/such.dat", dir);
	ck_assert_ptr_null(fmt_writer_create(bad, NULL, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, bad));
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
	fmt_writer_free(NULL);
}
END_TEST

/* `trace-cmd report` reads what the writer wrote, every event with its values. */
START_TEST(test_trace_cmd_reads_it)
{
	char cmd[256], line[512];
	FILE *p;
	int ticks = 0, names = 0, saw5 = 0, warn_other = 0;

	if (system("command -v trace-cmd >/dev/null 2>&1")) {
		fprintf(stderr, "test_writer: trace-cmd is not installed: 'trace-cmd report' check "
				"skipped\n");
		return;
	}
	write_standard(NULL, 0, NULL);
	snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>&1; echo \"rc=$?\"", out);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "tick:"))
			ticks++;
		if (strstr(line, "tick:") && strstr(line, "value=5"))
			saw5++;
		if (strstr(line, "name:") && strstr(line, "comm=kworker/0:1"))
			names++;
		if (!strncmp(line, "rc=", 3))
			ck_assert_msg(!strcmp(line, "rc=0\n"), "trace-cmd report: %s", line);
		if (strcasestr(line, "error") || strcasestr(line, "fail"))
			warn_other++;
	}
	pclose(p);
	ck_assert_int_eq(ticks, 5);
	ck_assert_int_eq(saw5, 1);
	ck_assert_int_eq(names, 1);
	ck_assert_int_eq(warn_other, 0);
}
END_TEST

static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("writer");

	tcase_add_checked_fixture(tc, setup, teardown);
	/* 0: zstd, 10-page chunks; 1: zstd, one page a chunk; 2: uncompressed */
	tcase_add_loop_test(tc, test_roundtrip, 0, 3);
	tcase_add_test(tc, test_two_buffers_and_tail);
	tcase_add_test(tc, test_failures_leave_nothing);
	tcase_add_test(tc, test_trace_cmd_reads_it);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(writer_suite());
}
