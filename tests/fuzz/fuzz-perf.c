// SPDX-License-Identifier: MIT
/*
 * libFuzzer target of the perf.data reader (fmt/perf.c): the input is
 * written to a memfd, opened with fmt_reader_open() and read to the end.
 * Inputs that do not start with perf's magic are left to the trace.dat fuzz
 * (tests/fuzz/run.sh). Built and run by tests/fuzz/perf.sh.
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

#include "fmt.h"
#include "reader.h"

static int fill(int fd, const uint8_t *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);
		if (n <= 0)
			return -1;
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char magic[8] = "PERFILE2";
	char path[64];
	struct err_msg err = {{0}};
	struct fmt_reader *r;
	struct fmt_event ev;
	int fd;

	if (size < 8 || memcmp(data, magic, 8))
		return 0;
	fd = memfd_create("fuzz-perf", MFD_CLOEXEC);
	if (fd < 0 || fill(fd, data, size)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = fmt_reader_open(path, 0, &err);
	if (r) {
		const struct fmt_info *info = fmt_reader_info(r);
		while (fmt_reader_next(r, &ev, &err) > 0) {
			/* what darc dump and the analysis touch of each event */
			tep_data_comm_from_pid(fmt_reader_tep(r), ev.pid);
			if (!fmt_reader_cpu_stats(r, 0, ev.cpu))
				__builtin_trap(); /* every yielded cpu has its stats */
		}
		for (int i = 0; i < info->buffers[0].ncpus; i++)
			if (!fmt_reader_cpu_stats(r, 0, i))
				__builtin_trap();
		fmt_reader_close(r);
	}
	if (!r && (strchr(err.msg, '\n') || !err.msg[0]))
		__builtin_trap(); /* a failed open says why, on one line */
	close(fd);
	return 0;
}
