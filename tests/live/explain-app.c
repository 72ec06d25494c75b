// SPDX-License-Identifier: MIT
/*
 * The user program of darc explain's golden test (issue 21): a server loop
 * whose slow calls have two causes of known sizes. main() calls handle() N
 * times; each handle() calls compute() (CPU only, about 100 us); every 10th
 * also calls flush_log(), which writes a line to a file and fsyncs it (a wait
 * for the disk); every 25th also calls backoff(), which sleeps 3 ms in
 * nanosleep (a timer). So handle()'s latency has a body (compute alone) and a
 * slow tail made of the fsyncs and the sleeps:
 *
 *   main (1)
 *     handle (N)
 *       compute (N)
 *       flush_log (N/10)     write, fsync
 *       backoff (N/25)       nanosleep 3 ms
 *
 * Usage: explain-app N LOGFILE. Built with -O1 -fno-inline so each function
 * stays a function for the uprobes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int logfd;
static volatile unsigned long sink;

/* about 100 us of arithmetic on a 2020s CPU; the volatile keeps it */
__attribute__((noinline, used)) unsigned long compute(int i)
{
	unsigned long h = 1469598103934665603UL ^ (unsigned long)i;

	for (int k = 0; k < 60000; k++)
		h = (h ^ (unsigned long)k) * 1099511628211UL;
	sink = h;
	return h;
}

__attribute__((noinline, used)) int flush_log(int i, unsigned long h)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "request %d %lx\n", i, h);

	if (write(logfd, line, (size_t)n) != n)
		return -1;
	return fsync(logfd);
}

__attribute__((noinline, used)) int backoff(void)
{
	struct timespec ts = {0, 3000000L};

	return nanosleep(&ts, NULL);
}

__attribute__((noinline, used)) int handle(int i)
{
	unsigned long h = compute(i);
	int bad = 0;

	if (i % 10 == 9)
		bad |= flush_log(i, h) != 0;
	if (i % 25 == 24)
		bad |= backoff() != 0;
	return bad;
}

int main(int argc, char **argv)
{
	int n, bad = 0;

	if (argc != 3 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: explain-app N LOGFILE\n");
		return 2;
	}
	logfd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (logfd < 0) {
		fprintf(stderr, "explain-app: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++)
		bad += handle(i);
	close(logfd);
	return bad ? 1 : 0;
}
