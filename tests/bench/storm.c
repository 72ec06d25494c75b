// SPDX-License-Identifier: GPL-2.0
/*
 * storm: a pread storm, the workload of darc's benchmark recordings.
 *
 *	storm FILE [THREADS [PREADS_PER_THREAD [BYTES]]]
 *
 * Starts THREADS threads (default 2), thread i pinned to CPU i modulo the
 * number of CPUs, each doing PREADS_PER_THREAD (default 1000000) pread()s of
 * BYTES (default 4096) bytes of FILE at offsets that walk the file. When the
 * file is in the page cache each pread is a short syscall, so with
 * raw_syscalls enabled the recording is dominated by sys_enter/sys_exit
 * pairs. Prints the number of preads done and the elapsed time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct worker {
	pthread_t thread;
	int fd;			/* shared, read-only */
	int cpu;		/* CPU to pin to, -1 for none */
	long preads;		/* preads to do */
	size_t bytes;		/* size of each pread */
	off_t span;		/* offsets stay below this */
	long done;		/* preads that returned >= 0 */
	int err;		/* errno of the first failure, 0 if none */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char *buf = malloc(w->bytes);
	off_t off = 0;

	if (!buf) {
		w->err = ENOMEM;
		return NULL;
	}
	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (long i = 0; i < w->preads; i++) {
		if (pread(w->fd, buf, w->bytes, off) < 0) {
			w->err = errno;
			break;
		}
		w->done++;
		off += w->bytes;
		if (off + (off_t)w->bytes > w->span)
			off = 0;
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 2;
	long preads = 1000000;
	long bytes = 4096;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct worker *w;
	struct timespec t0, t1;
	struct stat st;
	long total = 0;
	int fd, ret = 0;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: storm FILE [THREADS [PREADS_PER_THREAD [BYTES]]]\n");
		return 2;
	}
	if (argc > 2)
		threads = atoi(argv[2]);
	if (argc > 3)
		preads = atol(argv[3]);
	if (argc > 4)
		bytes = atol(argv[4]);
	if (threads < 1 || preads < 0 || bytes < 1) {
		fprintf(stderr, "storm: bad arguments\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "storm: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (st.st_size < bytes) {
		fprintf(stderr, "storm: '%s' is smaller than %ld bytes\n", argv[1], bytes);
		return 1;
	}
	w = calloc(threads, sizeof(*w));
	if (!w) {
		fprintf(stderr, "storm: out of memory\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < threads; i++) {
		w[i].fd = fd;
		w[i].cpu = ncpu > 0 ? (int)(i % ncpu) : -1;
		w[i].preads = preads;
		w[i].bytes = bytes;
		w[i].span = st.st_size;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
			fprintf(stderr, "storm: cannot start thread %d\n", i);
			return 1;
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].done;
		if (w[i].err) {
			fprintf(stderr, "storm: pread failed in thread %d: %s\n", i, strerror(w[i].err));
			ret = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("storm: %ld preads of %ld bytes on %d threads in %.3f s\n", total, bytes, threads,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(w);
	close(fd);
	return ret;
}
