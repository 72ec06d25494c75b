/*
 * vm-workload: small, deterministic workloads for the darc VM lab.
 *
 * Built statically on the host by tests/vm/vm.sh (gcc -static -O2) and
 * copied into the guest as /usr/local/bin/vm-workload.  Each mode is meant
 * to run for well under a second of guest time, even under qemu TCG, so that
 * function_graph recordings of it stay small.
 *
 *   vm-workload prepare FILE MIB [cold|warm]
 *       Create FILE of MIB MiB (pseudo-random contents), fsync it, then
 *       either drop it from the page cache (cold, the default) or read it
 *       once so that it is fully cached (warm).
 *   vm-workload odirect COLD WARM N
 *       N iterations of: one O_DIRECT 4 KiB pread at a random aligned offset
 *       of COLD, and one buffered 4 KiB pread at a random offset of WARM (a
 *       page cache hit).  Every 16th iteration also does a buffered 4 KiB
 *       pread of COLD (usually a page cache miss, so readahead I/O).
 *   vm-workload fsyncread COLD WARM OUT N
 *       First 8 buffered 16 KiB writes to OUT (created), each followed by
 *       fsync (so bios are submitted by write and fsync, outside any read),
 *       then what odirect COLD WARM N does.
 *   vm-workload preads COLD WARM N
 *       N iterations of: one O_DIRECT 4 KiB pread at a random aligned offset
 *       of COLD (a disk read), and one buffered 4 KiB pread at a random
 *       offset of WARM (a page cache hit); odirect without its buffered
 *       reads of COLD, so pread64's latencies make exactly two groups.
 *   vm-workload append FILE NPROC N SIZE
 *       Create (truncate) FILE, fork NPROC writers, writer i pinned to CPU
 *       i modulo the CPUs this process may use; each opens FILE with
 *       O_APPEND and, once all are ready, does N writes of SIZE bytes.  With
 *       more than one writer they contend for the inode lock (i_rwsem) that
 *       every buffered write to the file takes.  The parent waits for all.
 *   vm-workload zeroread FILE N
 *       N times read(fd, buf, 0) on FILE.
 *   vm-workload getrandom N SIZE hog|alone
 *       N getrandom(2) calls of SIZE bytes (CPU-bound in the kernel), with
 *       the CPU hog of cpuhog beside it on CPU 0 ("hog") or not ("alone").
 *   vm-workload stat DIR DEPTH N
 *       Make DIR/d0/d1/.../d(DEPTH-1)/ and a file at the end, then N times
 *       stat() the file: a deep path walk each time.
 *   vm-workload chain N SLEEP_US
 *       A chain of three processes over two pipes, N rounds: the third
 *       sleeps SLEEP_US (nanosleep, ended by a timer) and writes a byte to
 *       the second, which was blocked reading it and writes a byte to the
 *       first (this process), blocked reading that.  The first's waits are
 *       ended by the second, whose waits are ended by the third, whose
 *       waits time out: a wake-up chain two levels deep.
 *   vm-workload drop FILE
 *       Drop FILE's clean pages from the page cache (POSIX_FADV_DONTNEED).
 *   vm-workload jsync BIG SMALL N
 *       A writer process appends 256 KiB buffered writes to BIG and starts
 *       their writeback at once (sync_file_range SYNC_FILE_RANGE_WRITE),
 *       wrapping at 48 MiB, until it is killed; meanwhile this process N
 *       times appends 4 KiB to SMALL and calls fdatasync on it, 1 ms apart.
 *       Each fdatasync needs a journal commit (SMALL's size changed), and
 *       the commit's writes queue behind the writer's on the disk.
 *   vm-workload mmapfault COLD WARM N
 *       Map COLD (which should be cold) and WARM (cached) read-only, COLD
 *       with MADV_RANDOM (no readahead: one page from the disk per fault),
 *       then N times read a byte of a random page of COLD and one of WARM:
 *       major faults that wait for the disk beside minor ones.
 *   vm-workload flock FILE NPROC N SPIN
 *       NPROC processes (started together, not pinned), each with its own
 *       open of FILE, N rounds each of flock(LOCK_EX), SPIN rounds of
 *       arithmetic in user space holding the lock, flock(LOCK_UN) and
 *       SPIN/4 rounds outside it: the waiters sleep in flock until the
 *       holder lets go, and with more processes than CPUs a holder may be
 *       preempted while the others wait.
 *   vm-workload dirty FILE MIB CHUNK_KIB
 *       Write MIB MiB to FILE (created, truncated) in buffered writes of
 *       CHUNK_KIB KiB, no fsync: with vm.dirty_bytes lowered (the guest
 *       script sets it) the writes are throttled in balance_dirty_pages.
 *   vm-workload chain3 FILE N
 *       Three threads, N rounds: the main thread reads an eventfd, which a
 *       second thread writes after its futex wait ends (and some arithmetic),
 *       which a third thread wakes after a 4 KiB pwrite to FILE (which
 *       should exist, 4 MiB or more) and fdatasync.  The reader waits on
 *       the second thread, which waits on the third, which waits for the
 *       disk: a chain of three waiting tasks ending at the device.
 *   vm-workload cpuhog FILE N CHUNK_KIB
 *       Pin itself to CPU 0, fork a child that also pins itself to CPU 0 and
 *       spins in user space, then N times read FILE (which should be warm)
 *       from offset 0 in reads of CHUNK_KIB KiB each until EOF: system
 *       calls that copy from the page cache while competing with the hog,
 *       so they are preempted inside the kernel (boot with preempt=full).
 *       The hog is killed and reaped before exit.
 *
 * Exit status 0 on success, 1 on any error (with a message on stderr),
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so runs are comparable */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "vm-workload: %s%s%s: %s\n", what, arg ? " " : "",
		arg ? arg : "", strerror(errno));
	exit(1);
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "vm-workload: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static void *aligned_buf(size_t size)
{
	void *p;
	int err = posix_memalign(&p, BLK, size);

	if (err) {
		errno = err;
		die("posix_memalign", NULL);
	}
	memset(p, 0, size);
	return p;
}

static off_t file_size(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("fstat", path);
	if (st.st_size < BLK) {
		fprintf(stderr, "vm-workload: %s is too small\n", path);
		exit(1);
	}
	return st.st_size;
}

static void read_all(int fd, const char *path, char *buf, size_t chunk)
{
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, chunk, off)) > 0)
		off += n;
	if (n < 0)
		die("read", path);
}

static int cmd_prepare(int argc, char **argv)
{
	const char *path;
	long mib, i;
	int warm = 0, fd;
	size_t chunk = 1 << 20;
	uint64_t *buf;

	if (argc < 4 || argc > 5)
		return -1;
	path = argv[2];
	mib = parse_long(argv[3], "size");
	if (argc == 5) {
		if (!strcmp(argv[4], "warm"))
			warm = 1;
		else if (strcmp(argv[4], "cold"))
			return -1;
	}
	buf = aligned_buf(chunk);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", path);
	for (i = 0; i < mib; i++) {
		for (size_t j = 0; j < chunk / sizeof(*buf); j++)
			buf[j] = rng();
		if (write(fd, buf, chunk) != (ssize_t)chunk)
			die("write", path);
	}
	if (fsync(fd) < 0)
		die("fsync", path);
	if (warm) {
		read_all(fd, path, (char *)buf, chunk);
	} else {
		int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

		if (err) {
			errno = err;
			die("posix_fadvise", path);
		}
	}
	close(fd);
	free(buf);
	return 0;
}

static void odirect(const char *cold_path, const char *warm_path, long n,
		    int cold_buffered)
{
	int dfd, bfd, wfd;
	off_t cold_blocks, warm_size;
	long i;
	char *buf = aligned_buf(BLK);

	dfd = open(cold_path, O_RDONLY | O_DIRECT);
	if (dfd < 0)
		die("open O_DIRECT", cold_path);
	bfd = open(cold_path, O_RDONLY);
	if (bfd < 0)
		die("open", cold_path);
	wfd = open(warm_path, O_RDONLY);
	if (wfd < 0)
		die("open", warm_path);
	cold_blocks = file_size(dfd, cold_path) / BLK;
	warm_size = file_size(wfd, warm_path);

	for (i = 0; i < n; i++) {
		off_t off = (off_t)(rng() % (uint64_t)cold_blocks) * BLK;

		if (pread(dfd, buf, BLK, off) != BLK)
			die("O_DIRECT pread", cold_path);
		off = (off_t)(rng() % (uint64_t)(warm_size - BLK + 1));
		if (pread(wfd, buf, BLK, off) != BLK)
			die("pread", warm_path);
		if (cold_buffered && i % 16 == 15) {
			off = (off_t)(rng() % (uint64_t)cold_blocks) * BLK;
			if (pread(bfd, buf, BLK, off) != BLK)
				die("buffered pread", cold_path);
		}
	}
	close(dfd);
	close(bfd);
	close(wfd);
	free(buf);
}

static int cmd_odirect(int argc, char **argv)
{
	if (argc != 5)
		return -1;
	odirect(argv[2], argv[3], parse_long(argv[4], "count"), 1);
	return 0;
}

static int cmd_preads(int argc, char **argv)
{
	if (argc != 5)
		return -1;
	odirect(argv[2], argv[3], parse_long(argv[4], "count"), 0);
	return 0;
}

static int cmd_fsyncread(int argc, char **argv)
{
	char buf[16384];
	int fd, i;

	if (argc != 6)
		return -1;
	fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", argv[4]);
	for (i = 0; i < 8; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write", argv[4]);
		if (fsync(fd) < 0)
			die("fsync", argv[4]);
	}
	close(fd);
	odirect(argv[2], argv[3], parse_long(argv[5], "count"), 1);
	return 0;
}

static int cmd_zeroread(int argc, char **argv)
{
	const char *path;
	long n, i;
	char buf[1];
	int fd;

	if (argc != 4)
		return -1;
	path = argv[2];
	n = parse_long(argv[3], "count");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	for (i = 0; i < n; i++)
		if (read(fd, buf, 0) != 0)
			die("zero-byte read", path);
	close(fd);
	return 0;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity", NULL);
}

static void pin_cpu0(void)
{
	pin_cpu(0);
}

/* @n rounds of arithmetic in user space, no system call (a generator of its
 * own: the threads of chain3 must not share rng()'s state) */
static void spin(long n)
{
	volatile uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* Reap @n children; exit 1 when one of them failed (a @what). */
static void reap(long n, const char *what)
{
	int status, fail = 0;

	for (long i = 0; i < n; i++) {
		if (wait(&status) < 0)
			die("wait", NULL);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail = 1;
	}
	if (fail) {
		fprintf(stderr, "vm-workload: a %s failed\n", what);
		exit(1);
	}
}

static int cmd_append(int argc, char **argv)
{
	const char *path;
	long nproc, n, size, i, j;
	int fd, ready[2], go[2], ncpu, cpus[CPU_SETSIZE];
	cpu_set_t allowed;
	char *buf, c = 0;

	if (argc != 6)
		return -1;
	path = argv[2];
	nproc = parse_long(argv[3], "number of writers");
	n = parse_long(argv[4], "count");
	size = parse_long(argv[5], "write size");
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		die("sched_getaffinity", NULL);
	for (ncpu = 0, i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &allowed))
			cpus[ncpu++] = (int)i;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", path);
	close(fd);
	if (pipe(ready) < 0 || pipe(go) < 0)
		die("pipe", NULL);
	for (i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", NULL);
		if (pid > 0)
			continue;
		/* writer i (a long benchmark run takes minutes under TCG) */
		alarm(n > 1000 ? 1800 : 60);
		close(ready[0]);
		close(go[1]);
		pin_cpu(cpus[i % ncpu]);
		buf = aligned_buf(size);
		memset(buf, 'a' + (int)(i % 26), size);
		fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0)
			die("open O_APPEND", path);
		/* ready: close our end (no write, so the recording's only
		 * write calls are the appends); start: EOF on go */
		close(ready[1]);
		if (read(go[0], &c, 1) != 0)
			_exit(1);
		for (j = 0; j < n; j++)
			if (write(fd, buf, size) != size)
				die("append write", path);
		close(fd);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	/* EOF once every writer has closed its end of ready */
	if (read(ready[0], &c, 1) != 0)
		die("read from ready pipe", NULL);
	close(go[1]);
	reap(nproc, "writer");
	return 0;
}

/* Pin to CPU 0 and fork a child that spins there too; returns once it runs. */
static pid_t start_hog(void)
{
	int pipefd[2];
	pid_t hog;
	char c = 0;

	pin_cpu0();
	if (pipe(pipefd) < 0)
		die("pipe", NULL);
	hog = fork();
	if (hog < 0)
		die("fork", NULL);
	if (hog == 0) {
		volatile uint64_t x = 0;

		/* never outlive the parent by much, whatever happens */
		alarm(60);
		pin_cpu0();
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			x += rng();
	}
	close(pipefd[1]);
	/* wait until the hog is running (and pinned) */
	if (read(pipefd[0], &c, 1) != 1)
		die("read from hog pipe", NULL);
	close(pipefd[0]);
	return hog;
}

static void stop_hog(pid_t hog)
{
	int status;

	kill(hog, SIGKILL);
	if (waitpid(hog, &status, 0) < 0)
		die("waitpid", NULL);
}

static int cmd_cpuhog(int argc, char **argv)
{
	const char *path;
	long n, i, chunk;
	int fd;
	pid_t hog;
	char *buf;

	if (argc != 5)
		return -1;
	path = argv[2];
	n = parse_long(argv[3], "count");
	chunk = parse_long(argv[4], "chunk size") * 1024;
	buf = aligned_buf(chunk);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	file_size(fd, path);
	hog = start_hog();
	for (i = 0; i < n; i++)
		read_all(fd, path, buf, chunk);
	stop_hog(hog);
	close(fd);
	free(buf);
	return 0;
}

static int cmd_getrandom(int argc, char **argv)
{
	long n, size;
	char *buf;
	pid_t hog = 0;

	if (argc != 5)
		return -1;
	n = parse_long(argv[2], "count");
	size = parse_long(argv[3], "size");
	buf = aligned_buf(size);
	if (!strcmp(argv[4], "hog"))
		hog = start_hog();
	else if (strcmp(argv[4], "alone"))
		return -1;
	for (long i = 0; i < n; i++)
		if (syscall(SYS_getrandom, buf, size, 0) != size)
			die("getrandom", NULL);
	if (hog)
		stop_hog(hog);
	free(buf);
	return 0;
}

static int cmd_stat(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	long depth, n;
	size_t at;

	if (argc != 5)
		return -1;
	depth = parse_long(argv[3], "depth");
	n = parse_long(argv[4], "count");
	at = snprintf(path, sizeof(path), "%s", argv[2]);
	for (long d = 0; d < depth && at + 16 < sizeof(path); d++) {
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("mkdir", path);
		at += snprintf(path + at, sizeof(path) - at, "/d%ld", d);
	}
	if (close(open(path, O_WRONLY | O_CREAT, 0644)) < 0)
		die("create", path);
	for (long i = 0; i < n; i++)
		if (stat(path, &st) < 0)
			die("stat", path);
	return 0;
}

/* Read one byte from @in, then write it to @out, @n times; exit. */
static void relay(int in, int out, long n, long sleep_us)
{
	struct timespec ts = {sleep_us / 1000000, sleep_us % 1000000 * 1000};
	char b = 'x';

	for (long i = 0; i < n; i++) {
		if (in >= 0 && read(in, &b, 1) != 1)
			die("read", "pipe");
		if (in < 0 && nanosleep(&ts, NULL) < 0)
			die("nanosleep", NULL);
		if (write(out, &b, 1) != 1)
			die("write", "pipe");
	}
	_exit(0);
}

static int cmd_chain(int argc, char **argv)
{
	int p1[2], p2[2], status;
	long n, sleep_us;
	pid_t b, c;
	char x;

	if (argc != 4)
		return -1;
	n = parse_long(argv[2], "count");
	sleep_us = parse_long(argv[3], "sleep");
	if (pipe(p1) < 0 || pipe(p2) < 0)
		die("pipe", NULL);
	if ((b = fork()) == 0)
		relay(p2[0], p1[1], n, 0);
	if ((c = fork()) == 0)
		relay(-1, p2[1], n, sleep_us);
	if (b < 0 || c < 0)
		die("fork", NULL);
	for (long i = 0; i < n; i++)
		if (read(p1[0], &x, 1) != 1)
			die("read", "pipe");
	if (waitpid(b, &status, 0) < 0 || waitpid(c, &status, 0) < 0)
		die("waitpid", NULL);
	return 0;
}

/*
 * mixread COLD WARM N: N rounds of an O_DIRECT 4 KiB pread at a random
 * block of COLD, a cached 4 KiB pread at a random offset of WARM, and a
 * buffered 16 KiB pread continuing a sequential pass over COLD (readahead
 * reads ahead of it from the disk); every 64 rounds the pass's pages are
 * dropped again, so the readahead keeps going to the disk.
 */
static int cmd_mixread(int argc, char **argv)
{
	int dfd, bfd, wfd;
	off_t cold_size, warm_size, seq = 0;
	long i, n;
	char *buf = aligned_buf(4 * BLK);

	if (argc != 5)
		return -1;
	n = parse_long(argv[4], "count");
	dfd = open(argv[2], O_RDONLY | O_DIRECT);
	bfd = open(argv[2], O_RDONLY);
	wfd = open(argv[3], O_RDONLY);
	if (dfd < 0 || bfd < 0 || wfd < 0)
		die("open", dfd < 0 || bfd < 0 ? argv[2] : argv[3]);
	cold_size = file_size(dfd, argv[2]);
	warm_size = file_size(wfd, argv[3]);
	for (i = 0; i < n; i++) {
		off_t off = (off_t)(rng() % (uint64_t)(cold_size / BLK)) * BLK;

		if (pread(dfd, buf, BLK, off) != BLK)
			die("O_DIRECT pread", argv[2]);
		off = (off_t)(rng() % (uint64_t)(warm_size - BLK + 1));
		if (pread(wfd, buf, BLK, off) != BLK)
			die("pread", argv[3]);
		if (seq + 4 * BLK > cold_size)
			seq = 0;
		if (pread(bfd, buf, 4 * BLK, seq) != 4 * BLK)
			die("sequential pread", argv[2]);
		seq += 4 * BLK;
		if (i % 64 == 63)
			posix_fadvise(bfd, 0, 0, POSIX_FADV_DONTNEED);
	}
	close(dfd);
	close(bfd);
	close(wfd);
	free(buf);
	return 0;
}

static int cmd_drop(int argc, char **argv)
{
	int fd, err;

	if (argc != 3)
		return -1;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		die("open", argv[2]);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err) {
		errno = err;
		die("posix_fadvise", argv[2]);
	}
	close(fd);
	return 0;
}

/* jsync's writer: 256 KiB appends to @path, each one's writeback started at
 * once, until killed; closes @ready once the file is open. */
static void jsync_writer(const char *path, int ready)
{
	const size_t chunk = 256 << 10;
	const off_t wrap = 48 << 20;
	char *buf = aligned_buf(chunk);
	off_t off = 0;
	int fd;

	alarm(120);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", path);
	memset(buf, 'w', chunk);
	close(ready);
	for (;;) {
		if (pwrite(fd, buf, chunk, off) != (ssize_t)chunk)
			die("write", path);
		if (sync_file_range(fd, off, chunk, SYNC_FILE_RANGE_WRITE) < 0)
			die("sync_file_range", path);
		off = (off + chunk) % wrap;
	}
}

static int cmd_jsync(int argc, char **argv)
{
	struct timespec ms = {0, 1000000}, start = {0, 50000000};
	char buf[BLK];
	int ready[2], fd;
	long n;
	pid_t w;

	if (argc != 5)
		return -1;
	n = parse_long(argv[4], "count");
	if (pipe(ready) < 0)
		die("pipe", NULL);
	w = fork();
	if (w < 0)
		die("fork", NULL);
	if (w == 0) {
		close(ready[0]);
		jsync_writer(argv[2], ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], buf, 1) != 0)
		die("read from ready pipe", NULL);
	close(ready[0]);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", argv[3]);
	memset(buf, 's', sizeof(buf));
	/* let the writer's writeback get going first */
	nanosleep(&start, NULL);
	for (long i = 0; i < n; i++) {
		if (write(fd, buf, BLK) != BLK)
			die("write", argv[3]);
		if (fdatasync(fd) < 0)
			die("fdatasync", argv[3]);
		nanosleep(&ms, NULL);
	}
	close(fd);
	stop_hog(w);
	return 0;
}

/* @path mapped read-only and shared, madvise()d with @advice. */
static const volatile char *map_file(const char *path, size_t *size, int advice)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		die("open", path);
	*size = file_size(fd, path);
	p = mmap(NULL, *size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", path);
	if (madvise(p, *size, advice) < 0)
		die("madvise", path);
	close(fd);
	return p;
}

static int cmd_mmapfault(int argc, char **argv)
{
	const volatile char *cold, *warm;
	size_t cold_size, warm_size;
	volatile char sum = 0;
	long n;

	if (argc != 5)
		return -1;
	n = parse_long(argv[4], "count");
	cold = map_file(argv[2], &cold_size, MADV_RANDOM);
	warm = map_file(argv[3], &warm_size, MADV_NORMAL);
	for (long i = 0; i < n; i++) {
		sum += cold[rng() % (cold_size / BLK) * BLK];
		sum += warm[rng() % (warm_size / BLK) * BLK];
	}
	return 0;
}

/* One process of flock: waits for EOF on @go, then its rounds; exits. */
static void flock_rounds(const char *path, long n, long spin_n, int go)
{
	int fd = open(path, O_RDWR);
	char c;

	alarm(120);
	if (fd < 0)
		die("open", path);
	if (read(go, &c, 1) != 0)
		_exit(1);
	for (long i = 0; i < n; i++) {
		if (flock(fd, LOCK_EX) < 0)
			die("flock", path);
		spin(spin_n);
		if (flock(fd, LOCK_UN) < 0)
			die("flock", path);
		spin(spin_n / 4);
	}
	_exit(0);
}

static int cmd_flock(int argc, char **argv)
{
	long nproc, n, spin_n;
	int go[2], fd;

	if (argc != 6)
		return -1;
	nproc = parse_long(argv[3], "number of processes");
	n = parse_long(argv[4], "count");
	spin_n = parse_long(argv[5], "spin rounds");
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", argv[2]);
	close(fd);
	if (pipe(go) < 0)
		die("pipe", NULL);
	for (long i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", NULL);
		if (pid == 0) {
			close(go[1]);
			flock_rounds(argv[2], n, spin_n, go[0]);
		}
	}
	/* the start: EOF on go for every process at once */
	close(go[1]);
	close(go[0]);
	reap(nproc, "flock process");
	return 0;
}

static int cmd_dirty(int argc, char **argv)
{
	long total, chunk;
	char *buf;
	int fd;

	if (argc != 5)
		return -1;
	total = parse_long(argv[3], "size") << 20;
	chunk = parse_long(argv[4], "chunk size") * 1024;
	buf = aligned_buf(chunk);
	memset(buf, 'd', chunk);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", argv[2]);
	for (long done = 0; done < total; done += chunk)
		if (write(fd, buf, chunk) != chunk)
			die("write", argv[2]);
	close(fd);
	free(buf);
	return 0;
}

/* What chain3's three threads share. */
struct chain3 {
	atomic_int done;	/* rounds the disk thread finished: the futex word */
	int efd;		/* the eventfd (semaphore mode) the main thread reads */
	int fd;			/* FILE, written and synced by the disk thread */
	off_t blocks;		/* FILE's size in 4 KiB blocks */
	long n;			/* rounds */
};

/* The third thread: a 4 KiB pwrite and fdatasync, then wake the second. */
static void *chain3_disk(void *arg)
{
	struct chain3 *c = arg;
	char *buf = aligned_buf(BLK);

	for (long i = 0; i < c->n; i++) {
		off_t off = (off_t)(rng() % (uint64_t)c->blocks) * BLK;

		memset(buf, 'a' + (int)(i % 26), BLK);
		if (pwrite(c->fd, buf, BLK, off) != BLK || fdatasync(c->fd) < 0)
			die("pwrite and fdatasync", "chain3's file");
		atomic_store(&c->done, (int)i + 1);
		syscall(SYS_futex, &c->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	free(buf);
	return NULL;
}

/* The second thread: wait on the futex for round i, work a little, write
 * the eventfd. */
static void *chain3_relay(void *arg)
{
	struct chain3 *c = arg;
	uint64_t one = 1;

	for (long i = 0; i < c->n; i++) {
		int v;

		while ((v = atomic_load(&c->done)) <= i)
			syscall(SYS_futex, &c->done, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
		spin(20000);
		if (write(c->efd, &one, sizeof(one)) != sizeof(one))
			die("write", "eventfd");
	}
	return NULL;
}

static int cmd_chain3(int argc, char **argv)
{
	struct chain3 c = {.n = 0};
	pthread_t relay, disk;
	uint64_t v;

	if (argc != 4)
		return -1;
	c.n = parse_long(argv[3], "count");
	c.fd = open(argv[2], O_WRONLY);
	if (c.fd < 0)
		die("open", argv[2]);
	c.blocks = file_size(c.fd, argv[2]) / BLK;
	c.efd = eventfd(0, EFD_SEMAPHORE);
	if (c.efd < 0)
		die("eventfd", NULL);
	if (pthread_create(&relay, NULL, chain3_relay, &c) ||
	    pthread_create(&disk, NULL, chain3_disk, &c))
		die("pthread_create", NULL);
	for (long i = 0; i < c.n; i++)
		if (read(c.efd, &v, sizeof(v)) != sizeof(v))
			die("read", "eventfd");
	pthread_join(relay, NULL);
	pthread_join(disk, NULL);
	close(c.efd);
	close(c.fd);
	return 0;
}

int main(int argc, char **argv)
{
	int r = -1;

	if (argc >= 2) {
		if (!strcmp(argv[1], "prepare"))
			r = cmd_prepare(argc, argv);
		else if (!strcmp(argv[1], "odirect"))
			r = cmd_odirect(argc, argv);
		else if (!strcmp(argv[1], "fsyncread"))
			r = cmd_fsyncread(argc, argv);
		else if (!strcmp(argv[1], "preads"))
			r = cmd_preads(argc, argv);
		else if (!strcmp(argv[1], "append"))
			r = cmd_append(argc, argv);
		else if (!strcmp(argv[1], "zeroread"))
			r = cmd_zeroread(argc, argv);
		else if (!strcmp(argv[1], "cpuhog"))
			r = cmd_cpuhog(argc, argv);
		else if (!strcmp(argv[1], "getrandom"))
			r = cmd_getrandom(argc, argv);
		else if (!strcmp(argv[1], "stat"))
			r = cmd_stat(argc, argv);
		else if (!strcmp(argv[1], "chain"))
			r = cmd_chain(argc, argv);
		else if (!strcmp(argv[1], "mixread"))
			r = cmd_mixread(argc, argv);
		else if (!strcmp(argv[1], "drop"))
			r = cmd_drop(argc, argv);
		else if (!strcmp(argv[1], "jsync"))
			r = cmd_jsync(argc, argv);
		else if (!strcmp(argv[1], "mmapfault"))
			r = cmd_mmapfault(argc, argv);
		else if (!strcmp(argv[1], "flock"))
			r = cmd_flock(argc, argv);
		else if (!strcmp(argv[1], "dirty"))
			r = cmd_dirty(argc, argv);
		else if (!strcmp(argv[1], "chain3"))
			r = cmd_chain3(argc, argv);
	}
	if (r < 0) {
		fprintf(stderr,
			"usage: vm-workload prepare FILE MIB [cold|warm]\n"
			"       vm-workload odirect COLD WARM N\n"
			"       vm-workload fsyncread COLD WARM OUT N\n"
			"       vm-workload preads COLD WARM N\n"
			"       vm-workload append FILE NPROC N SIZE\n"
			"       vm-workload zeroread FILE N\n"
			"       vm-workload cpuhog FILE N CHUNK_KIB\n"
			"       vm-workload getrandom N SIZE hog|alone\n"
			"       vm-workload stat DIR DEPTH N\n"
			"       vm-workload chain N SLEEP_US\n"
			"       vm-workload mixread COLD WARM N\n"
			"       vm-workload drop FILE\n"
			"       vm-workload jsync BIG SMALL N\n"
			"       vm-workload mmapfault COLD WARM N\n"
			"       vm-workload flock FILE NPROC N SPIN\n"
			"       vm-workload dirty FILE MIB CHUNK_KIB\n"
			"       vm-workload chain3 FILE N\n");
		return 2;
	}
	return 0;
}
