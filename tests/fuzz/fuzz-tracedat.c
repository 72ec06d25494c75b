// SPDX-License-Identifier: MIT
/*
 * libFuzzer target of the trace.dat reader (fmt/tracedat.c, tracing-data.c,
 * events.c, prefetch.c, tdstream.c, decomp.c, kmod.c, behind reader.c): the
 * input is written to a memfd, opened with
 * fmt_reader_open() and read to the end, each event printed with its format
 * as darc dump does (with the module of a function_graph event's function),
 * and every format of the file parsed as the analysis asks for them. Inputs
 * of an odd size are opened with FMT_OPEN_NO_KALLSYMS and load kallsyms
 * afterwards (the other path to them). Inputs without the trace.dat magic
 * are left to fuzz-perf.c and fuzz-text.c. Built and run by
 * tests/fuzz/tracedat.sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "events.h"
#include "fmt.h"
#include "reader.h"

static const char *path_of_input;

/* A failure must say why on one line that names the file. */
static void check_msg(const struct err_msg *err)
{
	if (!err->msg[0] || strchr(err->msg, '\n') || !strstr(err->msg, path_of_input))
		__builtin_trap();
}

static int count_format(void *ctx, struct tep_event *ev)
{
	(*(int *)ctx)++;
	return ev ? 0 : 1;
}

/* Read @r to the end as darc dump --pretty would. */
static void read_all(struct fmt_reader *r, struct err_msg *err)
{
	const struct fmt_info *info = fmt_reader_info(r);
	struct tep_handle *tep = fmt_reader_tep(r);
	struct fmt_event ev;
	struct trace_seq s;
	int rc, nformats = 0;

	trace_seq_init(&s);
	while ((rc = fmt_reader_next(r, &ev, err)) > 0) {
		if (ev.event) {
			struct tep_record rec = {.ts = ev.ts, .cpu = ev.cpu, .size = (int)ev.size,
						 .data = (void *)ev.data};
			trace_seq_reset(&s);
			tep_print_event(tep, &s, &rec, "%s-%d %s", TEP_PRINT_COMM, TEP_PRINT_PID,
					TEP_PRINT_INFO);
		}
		if (ev.buffer >= info->nbuffers)
			__builtin_trap(); /* an event of a buffer the file has not */
		if (ev.size >= 16) {
			/* a function's address where function_graph keeps it */
			uint64_t func;
			memcpy(&func, (const uint8_t *)ev.data + 8, sizeof(func));
			fmt_reader_func_module(r, func);
		}
	}
	trace_seq_destroy(&s);
	if (rc < 0)
		check_msg(err);
	for (int b = 0; b < info->nbuffers; b++)
		for (int i = 0; i < info->buffers[b].ncpus; i++)
			if (!fmt_reader_cpu_stats(r, b, i))
				__builtin_trap(); /* every CPU of every buffer has its stats */
	fmt_events_find(r, "sched", "sched_switch");
	fmt_events_each_format(r, "common_pid", count_format, &nformats);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	/* no reading threads: a run's coverage must not depend on their timing */
	unsigned flags = FMT_OPEN_SERIAL | ((size & 1) ? FMT_OPEN_NO_KALLSYMS : 0);
	struct err_msg err = {{0}};
	struct fmt_reader *r;
	char path[64];
	int fd;

	if (size < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
		return 0;
	fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		__builtin_trap(); /* the machine, not the reader */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	path_of_input = path;
	r = fmt_reader_open(path, flags, &err);
	if (r) {
		if ((flags & FMT_OPEN_NO_KALLSYMS) && fmt_reader_load_kallsyms(r, &err))
			check_msg(&err);
		read_all(r, &err);
		fmt_reader_close(r);
	} else {
		check_msg(&err);
	}
	close(fd);
	return 0;
}
