// SPDX-License-Identifier: MIT
/*
 * explain-workload: the workloads of darc explain's wake-up checks in the VM
 * lab (tests/vm/explain-guest.sh builds nothing: tests/vm/explain-record.sh
 * compiles this statically on the host and adds it to the guest).
 *
 *   explain-workload pipe COLD N
 *       A producer and a forked consumer over a pipe, N rounds: the producer
 *       reads 64 KiB of the cold file COLD with O_DIRECT (the disk) and
 *       writes one byte into the pipe; the consumer reads the pipe. The
 *       consumer's reads wait for the producer, which waits for the disk.
 *   explain-workload futex THREADS N
 *       THREADS threads take one pthread mutex N times each, holding it for
 *       about 200 us of CPU work: the waiters sleep in the futex until the
 *       holder's unlock (futex_wake) wakes them, from another CPU.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int cmd_pipe(const char *cold, int n)
{
	int p[2], fd = open(cold, O_RDONLY | O_DIRECT);
	void *buf;
	off_t size;
	pid_t pid;
	char c = 'x';

	if (fd < 0 || pipe(p) < 0 || posix_memalign(&buf, 4096, 65536))
		die("pipe setup");
	size = lseek(fd, 0, SEEK_END) / 65536;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) { /* the consumer */
		close(p[1]);
		for (int i = 0; i < n; i++)
			if (read(p[0], &c, 1) != 1)
				die("read pipe");
		_exit(0);
	}
	close(p[0]);
	for (int i = 0; i < n; i++) {
		/* a fixed walk over the file: no randomness, every block cold once */
		if (pread(fd, buf, 65536, (off_t)((i * 7919) % (size ? size : 1)) * 65536) < 0)
			die("pread");
		if (write(p[1], &c, 1) != 1)
			die("write pipe");
	}
	close(p[1]);
	waitpid(pid, NULL, 0);
	return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;
static volatile unsigned long sink;

/* About @us microseconds of CPU work. */
static void spin(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 200; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *contend(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		spin(200);
		pthread_mutex_unlock(&lock);
		spin(20);
	}
	return NULL;
}

static int cmd_futex(int threads, int n)
{
	pthread_t t[16];

	rounds = n;
	if (threads < 1 || threads > 16)
		die("threads: 1 to 16");
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, contend, NULL))
			die("pthread_create");
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "pipe"))
		return cmd_pipe(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "futex"))
		return cmd_futex(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: explain-workload pipe COLD N | futex THREADS N\n");
	return 2;
}
