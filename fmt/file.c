// SPDX-License-Identifier: MIT
#include "file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *fmt_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

int fmt_file_open_regular(const char *path, const char *what, uint64_t max, uint64_t *size,
		     struct err_msg *err)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO or a terminal answers at once, to be refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		int e = errno;

		err_setf(err, path, "cannot open: %s", strerror(e));
		errno = e; /* for a caller to whom a missing file is no error */
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		err_setf(err, path, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err_setf(err, path, "%s, not a regular file", fmt_file_kind(st.st_mode));
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		err_setf(err, path, "%" PRIu64 " bytes, more than the %" PRIu64 " a %s may have",
			 (uint64_t)st.st_size, max, what);
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) { /* blocking reads from here on */
		err_setf(err, path, "cannot read: %s", strerror(errno));
		goto fail;
	}
	*size = (uint64_t)st.st_size;
	return fd;
fail:
	close(fd);
	errno = 0; /* it opened: not a missing file */
	return -1;
}

char *fmt_file_read(const char *path, const char *what, uint64_t max, size_t *len,
		    struct err_msg *err)
{
	uint64_t size, n = 0;
	char *buf;
	int fd = fmt_file_open_regular(path, what, max, &size, err);

	if (fd < 0)
		return NULL;
	buf = malloc(size + 1);
	if (!buf) {
		err_setf(err, path, "out of memory for %" PRIu64 " bytes", size + 1);
		close(fd);
		return NULL;
	}
	/* no more than fstat said, even if the file grows while it is read */
	while (n < size) {
		ssize_t got = read(fd, buf + n, size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err_setf(err, path, "cannot read: %s", strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (got == 0)
			break; /* it shrank */
		n += (uint64_t)got;
	}
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Hash up to @max bytes of regular file @path into *@h (nothing when it is not one). */
static void hash_head(const char *path, uint64_t max, uint64_t *h)
{
	static char buf[65536];
	struct err_msg ignore;
	uint64_t size, left;
	int fd = fmt_file_open_regular(path, "file", UINT64_MAX / 2, &size, &ignore);
	ssize_t got;

	if (fd < 0)
		return;
	for (left = max; left; left -= (uint64_t)got) {
		got = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (got <= 0)
			break;
		*h = fnv(*h, buf, (size_t)got);
	}
	close(fd);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A uftrace.data directory's identity: its files' names and sizes, info's and task.txt's start. */
static int dir_identity(const char *path, struct fmt_file_identity *id, struct err_msg *err)
{
	struct dirent **de;
	uint64_t h = FNV_OFFSET;
	char f[4096];
	int n = scandir(path, &de, NULL, by_name);

	if (n < 0)
		return err_setf(err, path, "cannot list the directory: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		struct stat st;

		snprintf(f, sizeof(f), "%s/%s", path, de[i]->d_name);
		if (!lstat(f, &st) && S_ISREG(st.st_mode)) {
			h = fnv(h, de[i]->d_name, strlen(de[i]->d_name) + 1);
			h = fnv(h, &st.st_size, sizeof(st.st_size));
			id->size += (uint64_t)st.st_size;
			if (mtime_ns(&st) > id->mtime_ns)
				id->mtime_ns = mtime_ns(&st);
		}
		free(de[i]);
	}
	free(de);
	snprintf(f, sizeof(f), "%s/info", path);
	hash_head(f, 65536, &h);
	snprintf(f, sizeof(f), "%s/task.txt", path);
	hash_head(f, 65536, &h);
	snprintf(id->hash, sizeof(id->hash), "%016llx", (unsigned long long)h);
	return 0;
}

int fmt_file_identity(const char *path, struct fmt_file_identity *id, struct err_msg *err)
{
	struct stat st;
	uint64_t h = FNV_OFFSET;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st))
		return err_setf(err, path, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return dir_identity(path, id, err);
	if (!S_ISREG(st.st_mode))
		return err_setf(err, path, "%s, not a regular file", fmt_file_kind(st.st_mode));
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = mtime_ns(&st);
	h = fnv(h, &id->size, sizeof(id->size));
	hash_head(path, 1 << 20, &h);
	snprintf(id->hash, sizeof(id->hash), "%016llx", (unsigned long long)h);
	return 0;
}
