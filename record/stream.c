// SPDX-License-Identifier: MIT
/*
 * The per-CPU readers: one thread per CPU moves the raw ring-buffer pages of
 * trace_pipe_raw into a page file with libtracefs' tracefs_cpu_write()
 * (splice through a pipe, no copy to user space). A thread blocks until the
 * buffer is buffer_percent full or it is told to stop; on stop it reads the
 * partly filled pages that are left with tracefs_cpu_flush_write().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "stream.h"

struct reader {
	struct stream *s;
	struct tracefs_cpu *tcpu;
	pthread_t thread;
	bool started;
	int cpu;
	int fd; /* the page file */
	char *path;
	uint64_t bytes; /* written so far (atomic: read by the status line) */
	int err;	/* errno of a failed read or write, 0 if none */
};

struct stream {
	int n;
	int stop; /* set (atomically) to end the loops */
	int page_size;
	struct reader *r;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	int n;

	while (!__atomic_load_n(&rd->s->stop, __ATOMIC_ACQUIRE)) {
		n = tracefs_cpu_write(rd->tcpu, rd->fd, false);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			rd->err = errno;
			return NULL;
		}
		__atomic_add_fetch(&rd->bytes, (uint64_t)n, __ATOMIC_RELAXED);
	}
	/* what is left, partly filled pages included */
	while ((n = tracefs_cpu_flush_write(rd->tcpu, rd->fd)) > 0)
		__atomic_add_fetch(&rd->bytes, (uint64_t)n, __ATOMIC_RELAXED);
	if (n < 0)
		rd->err = errno;
	return NULL;
}

struct stream *stream_start(struct tracefs_instance *inst, const char *dir, const char *tag,
			    const int *cpus, int ncpus, struct err_msg *err)
{
	struct stream *s = calloc(1, sizeof(*s));
	sigset_t all, old;

	if (!s || !(s->r = calloc(ncpus ? ncpus : 1, sizeof(*s->r)))) {
		free(s);
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	s->n = ncpus;
	for (int i = 0; i < ncpus; i++) {
		struct reader *rd = &s->r[i];

		rd->s = s;
		rd->cpu = cpus[i];
		rd->fd = -1;
		if (asprintf(&rd->path, "%s/%s.cpu%d", dir, tag, cpus[i]) < 0) {
			rd->path = NULL;
			err_setf(err, NULL, "out of memory");
			goto fail;
		}
		rd->fd = open(rd->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (rd->fd < 0) {
			err_setf(err, rd->path, "cannot create: %s", strerror(errno));
			goto fail;
		}
		rd->tcpu = tracefs_cpu_open(inst, cpus[i], false);
		if (!rd->tcpu) {
			err_setf(err, NULL, "cannot open trace_pipe_raw of cpu %d in %s: %s",
				 cpus[i], inst ? tracefs_instance_get_name(inst) : "the top level",
				 strerror(errno));
			goto fail;
		}
		s->page_size = tracefs_cpu_read_size(rd->tcpu);
	}
	/* the readers take no signals: the main thread handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < ncpus; i++) {
		if (pthread_create(&s->r[i].thread, NULL, reader_main, &s->r[i])) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			err_setf(err, NULL, "cannot start the reader thread of cpu %d", cpus[i]);
			goto fail;
		}
		s->r[i].started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return s;
fail:
	stream_stop(s, NULL);
	stream_free(s);
	return NULL;
}

int stream_stop(struct stream *s, struct err_msg *err)
{
	int rc = 0;

	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < s->n; i++)
		if (s->r[i].started)
			tracefs_cpu_stop(s->r[i].tcpu);
	for (int i = 0; i < s->n; i++) {
		struct reader *rd = &s->r[i];
		if (rd->started) {
			pthread_join(rd->thread, NULL);
			rd->started = false;
		}
		tracefs_cpu_close(rd->tcpu);
		rd->tcpu = NULL;
		if (rd->err && !rc) {
			rc = err_setf(err, rd->path, "cannot move the trace data of cpu %d: %s",
				      rd->cpu, strerror(rd->err));
		}
	}
	return rc;
}

uint64_t stream_bytes(const struct stream *s)
{
	uint64_t n = 0;

	for (int i = 0; i < s->n; i++)
		n += __atomic_load_n(&s->r[i].bytes, __ATOMIC_RELAXED);
	return n;
}

int stream_fd(struct stream *s, int i)
{
	lseek(s->r[i].fd, 0, SEEK_SET);
	return s->r[i].fd;
}

int stream_page_size(const struct stream *s)
{
	return s->page_size;
}

void stream_free(struct stream *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		struct reader *rd = &s->r[i];
		tracefs_cpu_close(rd->tcpu);
		if (rd->fd >= 0)
			close(rd->fd);
		if (rd->path)
			unlink(rd->path);
		free(rd->path);
	}
	free(s->r);
	free(s);
}
