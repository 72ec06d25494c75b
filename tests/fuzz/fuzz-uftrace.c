// SPDX-License-Identifier: MIT
/*
 * libFuzzer target of the uftrace.data reader (fmt/uftrace.c behind
 * reader.c). A uftrace recording is a directory, so the input is an archive
 * of its files, each
 *
 *	NAME '\0'  LEN (u32, little-endian)  LEN bytes
 *
 * NAME reduced to the characters a uftrace file name has ([A-Za-z0-9._-],
 * at most 64, never "." or ".."); a file that the input cuts short keeps
 * what there is. The files are written into a fresh directory (under
 * $FUZZ_UFTRACE_DIR, else /dev/shm where there is one), which is opened with fmt_reader_open(), read
 * to the end with fmt_reader_next() and closed, then removed. Seeds:
 * uftrace-seeds.py. Built and run by uftrace.sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "reader.h"

#define MAX_FILES 64

static char top[256];

static void remove_dir(const char *dir);

static void remove_top(void)
{
	rmdir(top);
}

/*
 * The directory all runs make their recordings in, made once: under
 * $FUZZ_UFTRACE_DIR (uftrace.sh's work directory), else /dev/shm or /tmp.
 */
static const char *top_dir(void)
{
	if (!top[0]) {
		const char *base = getenv("FUZZ_UFTRACE_DIR");

		if (!base || !*base)
			base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
		snprintf(top, sizeof(top), "%s/runs", base);
		if (mkdir(top, 0700) && errno != EEXIST)
			abort();
		atexit(remove_top);
	}
	return top;
}

/* @n bytes of @name made a safe file name into @out (64 bytes). */
static void safe_name(const uint8_t *name, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < 63; i++) {
		char c = (char)name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-')
			out[k++] = c;
	}
	out[k] = 0;
	if (!k || !strcmp(out, ".") || !strcmp(out, ".."))
		strcpy(out, "x");
}

/* Write the archive @data into directory @dir; the number of files. */
static int unpack(const uint8_t *data, size_t size, const char *dir)
{
	size_t pos = 0;
	int n = 0;

	while (pos < size && n < MAX_FILES) {
		const uint8_t *nul = memchr(data + pos, 0, size - pos);
		char name[64], path[400];
		uint32_t len = 0;
		int fd;

		if (!nul)
			break;
		safe_name(data + pos, (size_t)(nul - (data + pos)), name);
		pos = (size_t)(nul - data) + 1;
		if (size - pos >= 4)
			memcpy(&len, data + pos, 4);
		pos += size - pos >= 4 ? 4 : size - pos;
		if (len > size - pos)
			len = (uint32_t)(size - pos);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			abort();
		if (len && write(fd, data + pos, len) != (ssize_t)len)
			abort();
		close(fd);
		pos += len;
		n++;
	}
	return n;
}

/* Remove directory @dir and the files in it. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[400];

	if (!d)
		abort();
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long run;
	struct err_msg err;
	struct fmt_event ev;
	struct fmt_reader *r;
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/%lu.data", top_dir(), run++);
	if (mkdir(dir, 0700))
		abort();
	unpack(data, size, dir);
	r = fmt_reader_open(dir, 0, &err);
	if (r) {
		while (fmt_reader_next(r, &ev, &err) == 1)
			;
		fmt_reader_info(r);
		fmt_reader_close(r);
	}
	remove_dir(dir);
	return 0;
}
