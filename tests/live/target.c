// SPDX-License-Identifier: MIT
/*
 * The live tests' traced program: main() calls run() which calls ping()
 * N times; ping() writes a byte to a pipe and reads it back (write and read
 * system calls inside a user function), so a recording with uprobes on
 * run and ping plus syscalls has a known user->kernel call tree:
 *
 *   run (1)
 *     ping (N)
 *       write (1 each)
 *       read (1 each)
 *
 * Usage: live-target [N [SLEEP_MS [signal]]]: SLEEP_MS sleeps after each
 * ping (to make a recording last long enough to be interrupted); "signal"
 * makes each ping also send itself a signal, whose handler returns through
 * rt_sigreturn (a system call whose exit the kernel reports as number -1).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static int with_signal;
static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	(void)sig;
	caught++;
}

/* noinline and used: the uprobes need these symbols to stay functions */
__attribute__((noinline, used)) int ping(int i)
{
	char c = (char)i, back = 0;

	if (write(fds[1], &c, 1) != 1 || read(fds[0], &back, 1) != 1)
		return -1;
	if (with_signal && raise(SIGUSR1))
		return -1;
	return back == c ? 0 : -1;
}

__attribute__((noinline, used)) int run(int n, int sleep_ms)
{
	struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
	int bad = 0;

	for (int i = 0; i < n; i++) {
		bad += ping(i) != 0;
		if (sleep_ms)
			nanosleep(&ts, NULL);
	}
	return bad;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int sleep_ms = argc > 2 ? atoi(argv[2]) : 0;

	with_signal = argc > 3 && !strcmp(argv[3], "signal");
	if (with_signal && signal(SIGUSR1, on_signal) == SIG_ERR) {
		perror("live-target: signal");
		return 1;
	}
	if (pipe(fds)) {
		perror("live-target: pipe");
		return 1;
	}
	if (run(n, sleep_ms))
		return 1;
	return with_signal && caught != n ? 1 : 0;
}
