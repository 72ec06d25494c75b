// SPDX-License-Identifier: MIT
/*
 * The program of the uftrace matrix (tests/matrix/uftrace-matrix.sh): small,
 * fixed counts, one mode per cell, so that every uftrace version records the
 * same calls.
 *   mx threads		two threads: work() 20 and 10 times (every fifth
 *			sleeping 1 ms in nap()), the main thread joins them
 *   mx fork		a child that forks and never execs (task.txt: a FORK
 *			line, no TASK line): work() 30 times there, 10 here
 *   mx exec		a child that forks, calls work() 5 times, then runs
 *			"mx leaf" (task.txt: FORK, then SESS and TASK)
 *   mx leaf		work() 5 times
 *   mx args		add(i, 2 * i) 8 times (for -A/-R and --auto-args),
 *			and a few libc calls auto-args knows (strlen, usleep)
 *   mx sdt		tick(): an SDT probe "mx:tick" 6 times (for -E)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

/* A USDT probe: a nop and its .note.stapsdt entry (provider, name, no
   arguments), written out here so that no systemtap header is needed. */
#define MX_PROBE(prov, name)                                                   \
	__asm__ volatile("990: nop\n"                                          \
			 ".pushsection .note.stapsdt,\"?\",\"note\"\n"         \
			 ".balign 4\n"                                         \
			 ".4byte 992f-991f, 994f-993f, 3\n"                    \
			 "991: .asciz \"stapsdt\"\n"                           \
			 "992: .balign 4\n"                                    \
			 "993: .8byte 990b, _.stapsdt.base, 0\n"               \
			 ".asciz \"" #prov "\"\n"                              \
			 ".asciz \"" #name "\"\n"                              \
			 ".asciz \"\"\n"                                       \
			 "994: .balign 4\n"                                    \
			 ".popsection\n"                                       \
			 ".ifndef _.stapsdt.base\n"                            \
			 ".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
			 ".weak _.stapsdt.base\n"                              \
			 ".hidden _.stapsdt.base\n"                            \
			 "_.stapsdt.base: .space 1\n"                          \
			 ".size _.stapsdt.base, 1\n"                           \
			 ".popsection\n"                                       \
			 ".endif\n")

__attribute__((noinline)) void nap(void)
{
	usleep(1000);
}

__attribute__((noinline)) void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void work(int i)
{
	if (i % 5 == 4)
		nap();
	else
		spin(200 + 10 * i);
}

__attribute__((noinline)) void works(int n)
{
	for (int i = 0; i < n; i++)
		work(i);
}

__attribute__((noinline)) void *worker(void *arg)
{
	works((int)(long)arg);
	return NULL;
}

__attribute__((noinline)) long add(long a, long b)
{
	return a + b;
}

__attribute__((noinline)) void tick(int i)
{
	MX_PROBE(mx, tick);
	spin(50 * i);
}

static int threads(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, (void *)20L);
	pthread_create(&b, NULL, worker, (void *)10L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

static int forked(const char *self, int exec)
{
	pid_t p = fork();

	if (p < 0)
		return 1;
	if (p == 0) {
		works(exec ? 5 : 30);
		if (exec)
			execl(self, self, "leaf", (char *)NULL);
		exit(0);
	}
	works(10);
	waitpid(p, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long sum = 0;

	switch (argc > 1 ? argv[1][0] : 't') {
	case 't': /* threads */
		return threads();
	case 'f': /* fork */
		return forked(argv[0], 0);
	case 'e': /* exec */
		return forked(argv[0], 1);
	case 'l': /* leaf */
		works(5);
		return 0;
	case 'a': /* args */
		for (int i = 0; i < 8; i++)
			sum += add(i, 2 * i) + (long)strlen(argv[1]);
		usleep(100);
		return sum == 84 + 32 ? 0 : 1;
	case 's': /* sdt */
		for (int i = 0; i < 6; i++)
			tick(i);
		return 0;
	}
	fprintf(stderr, "usage: mx threads|fork|exec|leaf|args|sdt\n");
	return 2;
}
