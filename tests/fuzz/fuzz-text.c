// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ftrace text reader: the input bytes become a
 * file (a memfd, opened by its /proc/self/fd path, as darc opens a
 * recording), which is opened with fmt_reader_open(), read to the end with
 * fmt_reader_next() (every record printed with its format, so that what
 * the reader wrote must agree with the format it registered) and closed.
 * Built and run by text.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "fmt.h"
#include "reader.h"

/* Print one event as darc dump --pretty would, into @s. */
static void print_event(struct tep_handle *tep, const struct fmt_event *ev, struct trace_seq *s)
{
	struct tep_record rec = {
		.ts = ev->ts,
		.cpu = ev->cpu,
		.size = (int)ev->size,
		.data = (void *)ev->data,
	};

	trace_seq_reset(s);
	tep_print_event(tep, s, &rec, "%s-%d %s", TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_INFO);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err_msg err;
	struct fmt_event ev;
	struct fmt_reader *r;
	struct trace_seq s;
	char path[64];
	int fd = memfd_create("fuzz-text", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = fmt_reader_open(path, 0, &err);
	if (r) {
		trace_seq_init(&s);
		while (fmt_reader_next(r, &ev, &err) == 1)
			if (ev.event)
				print_event(fmt_reader_tep(r), &ev, &s);
		trace_seq_destroy(&s);
		fmt_reader_info(r);
		fmt_reader_close(r);
	}
	close(fd);
	return 0;
}
