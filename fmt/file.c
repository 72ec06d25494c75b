// SPDX-License-Identifier: MIT
#include "file.h"

#include <errno.h>
#include <fcntl.h>
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

int fmt_open_regular(const char *path, const char *what, uint64_t max, uint64_t *size,
		     struct fmt_err *err)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO or a terminal answers at once, to be refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		int e = errno;

		fmt_errf(err, path, "cannot open: %s", strerror(e));
		errno = e; /* for a caller to whom a missing file is no error */
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		fmt_errf(err, path, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		fmt_errf(err, path, "%s, not a regular file", fmt_file_kind(st.st_mode));
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		fmt_errf(err, path, "%" PRIu64 " bytes, more than the %" PRIu64 " a %s may have",
			 (uint64_t)st.st_size, max, what);
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) { /* blocking reads from here on */
		fmt_errf(err, path, "cannot read: %s", strerror(errno));
		goto fail;
	}
	*size = (uint64_t)st.st_size;
	return fd;
fail:
	close(fd);
	errno = 0; /* it opened: not a missing file */
	return -1;
}

char *fmt_read_file(const char *path, const char *what, uint64_t max, size_t *len,
		    struct fmt_err *err)
{
	uint64_t size, n = 0;
	char *buf;
	int fd = fmt_open_regular(path, what, max, &size, err);

	if (fd < 0)
		return NULL;
	buf = malloc(size + 1);
	if (!buf) {
		fmt_errf(err, path, "out of memory for %" PRIu64 " bytes", size + 1);
		close(fd);
		return NULL;
	}
	/* no more than fstat said, even if the file grows while it is read */
	while (n < size) {
		ssize_t got = read(fd, buf + n, size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fmt_errf(err, path, "cannot read: %s", strerror(errno));
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
