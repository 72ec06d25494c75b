// SPDX-License-Identifier: MIT
/*
 * wfile: every file darc and darc-record write goes through here (see
 * wfile.h for the rules). The checks are made on the target's inode, so a
 * second name or a link to an input is refused as the input itself.
 */
#include "wfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- inputs ------------------------------------------------------------ */

#define MAX_INPUTS 32

/*
 * The files this process reads, by device and inode. Each is held open
 * (O_PATH) while noted: an input deleted meanwhile keeps its inode, which a
 * file made later (a temporary, an output) could otherwise be given and be
 * taken for the input. A unit test that opens and deletes databases one
 * after another was refused its next output now and then that way.
 */
static struct {
	dev_t dev;
	ino_t ino;
	int fd; /* O_PATH, pinning the inode; -1 where it could not be opened */
} inputs[MAX_INPUTS];
static int ninputs;

/* The index in inputs[] of the file @st describes, or -1. */
static int input_index(const struct stat *st)
{
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return i;
	return -1;
}

void wfile_note_input(const char *path)
{
	struct stat st;
	int fd;

	if (ninputs == MAX_INPUTS)
		return;
	fd = open(path, O_PATH | O_CLOEXEC);
	if ((fd < 0 ? stat(path, &st) < 0 : fstat(fd, &st) < 0) || input_index(&st) >= 0) {
		if (fd >= 0)
			close(fd);
		return; /* not to be found, or noted already */
	}
	inputs[ninputs].dev = st.st_dev;
	inputs[ninputs].ino = st.st_ino;
	inputs[ninputs++].fd = fd;
}

void wfile_forget_input(const char *path)
{
	struct stat st;
	int i;

	if (stat(path, &st) < 0 || (i = input_index(&st)) < 0)
		return;
	if (inputs[i].fd >= 0)
		close(inputs[i].fd);
	inputs[i] = inputs[--ninputs];
}

static bool is_input(const struct stat *st)
{
	return input_index(st) >= 0;
}

/* ---- kinds --------------------------------------------------------------- */

/* The first bytes of @path (NUL-terminated in @buf); their count, or -1. */
static ssize_t head(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int is_svg(const char *path)
{
	char b[1024];
	const char *p;

	if (head(path, b, sizeof(b)) < 0)
		return 0;
	p = skip_space(b);
	return (!strncmp(p, "<?xml", 5) || !strncmp(p, "<svg", 4)) && strstr(p, "<svg");
}

static int is_json(const char *path)
{
	char b[64];
	const char *p;

	if (head(path, b, sizeof(b)) < 0)
		return 0;
	p = skip_space(b);
	return *p == '{' || *p == '[';
}

/* Folded stacks: every whole line "frame;frame;... COUNT". */
static int is_folded(const char *path)
{
	char b[4096];
	char *line, *nl;
	ssize_t n = head(path, b, sizeof(b));
	int lines = 0;

	if (n <= 0 || memchr(b, 0, (size_t)n))
		return 0;
	for (line = b; (nl = strchr(line, '\n')); line = nl + 1) {
		char *sp;
		*nl = 0;
		sp = strrchr(line, ' ');
		if (line[0] == '#' || line[0] == ' ' || !sp || sp == line || !sp[1] ||
		    strspn(sp + 1, "0123456789") != strlen(sp + 1))
			return 0;
		lines++;
	}
	return lines > 0;
}

/* A Perfetto trace: a Trace message, whose first field is a packet (field 1, length-delimited). */
static int is_perfetto(const char *path)
{
	char b[4];

	return head(path, b, sizeof(b)) >= 2 && b[0] == 0x0a;
}

/* An HTML page: its doctype or its html element first. */
static int is_html(const char *path)
{
	char b[64];
	const char *p;

	if (head(path, b, sizeof(b)) < 0)
		return 0;
	p = skip_space(b);
	return !strncasecmp(p, "<!doctype html", 14) || !strncasecmp(p, "<html", 5);
}

const struct wfile_kind wfile_svg = {"an SVG plot", is_svg};
const struct wfile_kind wfile_perfetto = {"a Perfetto trace", is_perfetto};
const struct wfile_kind wfile_html = {"an HTML page", is_html};
const struct wfile_kind wfile_json = {"a JSON file", is_json};
const struct wfile_kind wfile_folded = {"a folded-stacks file", is_folded};

/* ---- the check ----------------------------------------------------------- */

int wfile_check(const char *path, const struct wfile_kind *kind, bool force, struct err_msg *err)
{
	struct stat st;

	if (!*path)
		return err_setf(err, path, "an empty file name");
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0; /* a dangling link is replaced by the rename, not followed */
		return err_setf(err, path, "cannot write it: %s", strerror(errno));
	}
	if (is_input(&st))
		return err_setf(err, path, "is a file this command reads: not overwritten");
	if (S_ISDIR(st.st_mode))
		return err_setf(err, path, "is a directory: not replaced");
	if (!S_ISREG(st.st_mode))
		return err_setf(err, path, "exists and is not a regular file: not replaced");
	if (force || st.st_size == 0 || (kind->is && kind->is(path) == 1))
		return 0;
	if (kind->is)
		err_setf(err, path, "exists and is not %s: not replaced (--force replaces it)",
			 kind->name);
	else
		err_setf(err, path, "exists: not replaced (--force replaces it)");
	return -2;
}

/* ---- temporary files and signals ----------------------------------------- */

#define SLOTS 8

/* the temporary files a signal removes */
static struct {
	atomic_int set;	     /* path holds a file of ours (lock-free: safe in a handler) */
	char path[PATH_MAX]; /* written before set */
} slots[SLOTS];

static int slot_take(const char *tmp)
{
	if (strlen(tmp) >= PATH_MAX)
		return -1;
	for (int i = 0; i < SLOTS; i++)
		if (!slots[i].set) {
			memcpy(slots[i].path, tmp, strlen(tmp) + 1);
			atomic_store(&slots[i].set, 1);
			return i;
		}
	return -1;
}

void wfile_signal_cleanup(void)
{
	for (int i = 0; i < SLOTS; i++)
		if (slots[i].set)
			unlink(slots[i].path);
}

/* The signals whose default action would leave a temporary file behind. */
static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void caught_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(caught) / sizeof(*caught); i++)
		sigaddset(set, caught[i]);
}

/*
 * Runs on the main thread only (every other thread starts with these signals
 * blocked: wfile_thread_create()), and never between a temporary file's
 * making and its slot (open_tmp() blocks them there).
 */
static void on_signal(int sig)
{
	wfile_signal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void wfile_catch_signals(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		struct sigaction old, sa = {.sa_handler = on_signal};
		if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_DFL)
			continue;
		sigemptyset(&sa.sa_mask);
		sigaction(caught[i], &sa, NULL);
	}
}

struct helper {
	void *(*fn)(void *);
	void *arg;
};

static void *helper_main(void *p)
{
	struct helper h = *(struct helper *)p;
	struct sched_param none = {0};

	free(p);
	/* where it fails, the thread runs as it is: a matter of speed only */
	sched_setscheduler(0, SCHED_BATCH, &none);
	return h.fn(h.arg);
}

int wfile_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	struct helper *h = malloc(sizeof(*h));
	sigset_t set, old;
	int rc;

	if (!h)
		return ENOMEM;
	*h = (struct helper){fn, arg};
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* the new thread inherits the mask */
	rc = pthread_create(thread, NULL, helper_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		free(h);
	return rc;
}

/* wfile_sync_ahead()'s thread */
struct wsync {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t due;
	bool pending, stop; /* under lock */
	int fd;		    /* the temporary file, read-only */
};

struct wfile {
	char *path, *tmp;
	int fd, slot;
	struct wsync *sync; /* NULL until wfile_sync_ahead() */
};

/* The target's directory ("." for a bare name) and base name, split in @buf. */
static void split(const char *path, char *buf, size_t size, const char **dir, const char **base)
{
	char *slash;

	snprintf(buf, size, "%s", path);
	slash = strrchr(buf, '/');
	if (!slash) {
		*dir = ".";
		*base = buf;
	} else {
		*slash = 0;
		*dir = slash == buf ? "/" : buf;
		*base = slash + 1;
	}
}

/* "BASE.tmp-PID[-...]" -> PID, or 0 if @name is not a temporary of @base. */
static pid_t tmp_owner(const char *name, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long pid;

	if (strncmp(name, base, n) || strncmp(name + n, ".tmp-", 5))
		return 0;
	errno = 0;
	pid = strtol(name + n + 5, &end, 10);
	if (errno || end == name + n + 5 || pid <= 0 || pid > INT_MAX || (*end && *end != '-'))
		return 0;
	return (pid_t)pid;
}

/*
 * Remove the temporary files of @path that a process which no longer runs
 * left (killed by SIGKILL, or crashed), and say so: ours only, regular files.
 */
static void sweep_stale(const char *path)
{
	char buf[PATH_MAX], prefix[PATH_MAX];
	const char *dir, *base;
	struct dirent *e;
	DIR *d;

	split(path, buf, sizeof(buf), &dir, &base);
	if (!*base || !(d = opendir(dir)))
		return;
	/* as the user named it: "x.db.tmp-1", "out/x.db.tmp-1", "/x.db.tmp-1" */
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(path) - strlen(base)), path);
	while ((e = readdir(d))) {
		pid_t pid = tmp_owner(e->d_name, base);
		struct stat st;
		if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			fprintf(stderr, "%s: removed '%s%s', left by process %d that no longer runs\n",
				program_invocation_short_name, prefix, e->d_name, (int)pid);
	}
	closedir(d);
}

/* Create "PATH.tmp-PID" (or "-N" after it) exclusively, never through a link. */
static int open_tmp(struct wfile *w, struct err_msg *err)
{
	size_t size = strlen(w->path) + 40;
	sigset_t set, old;

	w->tmp = malloc(size);
	if (!w->tmp)
		return err_setf(err, w->path, "out of memory");
	/* no signal's cleanup between the file's making and its slot */
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (int i = 0; w->fd < 0 && i < 100; i++) {
		if (i == 0)
			snprintf(w->tmp, size, "%s.tmp-%d", w->path, (int)getpid());
		else
			snprintf(w->tmp, size, "%s.tmp-%d-%d", w->path, (int)getpid(), i);
		w->fd = open(w->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (w->fd < 0 && errno != EEXIST)
			break;
	}
	if (w->fd < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		err_setf(err, w->path, "cannot create '%s': %s", w->tmp, strerror(e));
		free(w->tmp); /* not ours: never unlink it */
		w->tmp = NULL;
		return -1;
	}
	w->slot = slot_take(w->tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL); /* a signal pending runs here, slot set */
	return 0;
}

struct wfile *wfile_create(const char *path, const struct wfile_kind *kind, bool force,
			   struct err_msg *err)
{
	struct wfile *w;

	if (wfile_check(path, kind, force, err))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		err_setf(err, path, "out of memory");
		return NULL;
	}
	w->fd = -1;
	w->slot = -1;
	sweep_stale(path);
	if (open_tmp(w, err)) {
		free(w->path);
		free(w);
		return NULL;
	}
	/* for tests/golden/write-file.sh: stop while the file is being written */
	if (getenv("DARC_TEST_WFILE_STOP"))
		raise(SIGSTOP);
	return w;
}

int wfile_fd(const struct wfile *w)
{
	return w->fd;
}

const char *wfile_tmp(const struct wfile *w)
{
	return w->tmp;
}

int wfile_close_fd(struct wfile *w, struct err_msg *err)
{
	int rc = w->fd >= 0 ? close(w->fd) : 0;

	w->fd = -1;
	return rc < 0 ? err_setf(err, w->path, "cannot write it: %s", strerror(errno)) : 0;
}

/* ---- reservations --------------------------------------------------------- */

/* "PATH.lock", malloc'd; NULL when out of memory. */
static char *lock_path(const char *path)
{
	char *l = malloc(strlen(path) + 6);

	if (l)
		sprintf(l, "%s.lock", path);
	return l;
}

/* The pid a lock file holds, 0 if none can be read. */
static long lock_holder(int fd)
{
	char b[24] = "";

	return pread(fd, b, sizeof(b) - 1, 0) > 0 ? strtol(b, NULL, 10) : 0;
}

int wfile_reserve(const char *path, struct err_msg *err)
{
	char *l = lock_path(path), pid[24];
	struct stat a, b;
	int fd = -1;

	if (!l)
		return err_setf(err, path, "out of memory");
	/* the file locked must still be the one at the name (a releaser may
	   have removed it between our open and our lock): else again */
	for (int tries = 0; tries < 100; tries++) {
		fd = open(l, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			err_setf(err, path, "cannot reserve it (%s): %s", l, strerror(errno));
			break;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			long holder = lock_holder(fd);

			if (holder)
				err_setf(err, path, "another process (pid %ld) is writing it",
					 holder);
			else
				err_setf(err, path, "another process is writing it (%s is locked)",
					 l);
			break;
		}
		if (!fstat(fd, &a) && !stat(l, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			/* the pid is for messages only: failing to write it is no failure */
			if (!ftruncate(fd, 0))
				(void)!pwrite(fd, pid, strlen(pid), 0);
			free(l);
			return fd;
		}
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	free(l);
	return -1;
}

void wfile_release(const char *path, int handle)
{
	char *l;

	if (handle < 0)
		return;
	l = lock_path(path);
	if (l)
		unlink(l); /* while it is locked: a waiter finds it gone, and makes its own */
	free(l);
	close(handle);
}

/* ---- syncing ahead -------------------------------------------------------- */

static void *sync_main(void *arg)
{
	struct wsync *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->pending && !s->stop)
			pthread_cond_wait(&s->due, &s->lock);
		if (!s->pending)
			break;
		s->pending = false;
		pthread_mutex_unlock(&s->lock);
		fdatasync(s->fd); /* best effort: wfile_commit() reports */
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static struct wsync *sync_start(const struct wfile *w)
{
	struct wsync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = open(w->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd >= 0 && !pthread_mutex_init(&s->lock, NULL)) {
		if (!pthread_cond_init(&s->due, NULL)) {
			if (!wfile_thread_create(&s->thread, sync_main, s))
				return s;
			pthread_cond_destroy(&s->due);
		}
		pthread_mutex_destroy(&s->lock);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return NULL;
}

void wfile_sync_ahead(struct wfile *w)
{
	struct wsync *s;

	if (!w->sync && !(w->sync = sync_start(w)))
		return; /* then wfile_commit() does it all */
	s = w->sync;
	pthread_mutex_lock(&s->lock);
	s->pending = true;
	pthread_cond_signal(&s->due);
	pthread_mutex_unlock(&s->lock);
}

/* Let a sync under way end, end the thread and close its descriptor. */
static void sync_stop(struct wfile *w)
{
	struct wsync *s = w->sync;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->pending = false; /* wfile_commit() syncs what is left */
	s->stop = true;
	pthread_cond_signal(&s->due);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->due);
	pthread_mutex_destroy(&s->lock);
	close(s->fd);
	free(s);
	w->sync = NULL;
}

static void wfile_free(struct wfile *w)
{
	sync_stop(w);
	if (w->fd >= 0)
		close(w->fd);
	if (w->slot >= 0)
		slots[w->slot].set = 0;
	free(w->tmp);
	free(w->path);
	free(w);
}

void wfile_abort(struct wfile *w)
{
	if (!w)
		return;
	sync_stop(w);
	if (w->tmp)
		unlink(w->tmp);
	wfile_free(w);
}

/* fsync @path (a directory's entries with @dir); best effort for directories. */
static int sync_path(const char *path, bool dir)
{
	int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int wfile_commit(struct wfile *w, struct err_msg *err)
{
	char buf[PATH_MAX];
	const char *dir, *base;
	int rc = -1;

	sync_stop(w);
	if (w->fd >= 0 ? fsync(w->fd) < 0 : sync_path(w->tmp, false) < 0)
		err_setf(err, w->path, "cannot write it: %s", strerror(errno));
	else if (wfile_close_fd(w, err) == 0) {
		if (rename(w->tmp, w->path) < 0)
			err_setf(err, w->path, "cannot rename '%s' to it: %s", w->tmp,
				 strerror(errno));
		else
			rc = 0;
	}
	if (rc) {
		wfile_abort(w);
		return -1;
	}
	/* the file is whole and named: the name's durability is best effort */
	split(w->path, buf, sizeof(buf), &dir, &base);
	sync_path(dir, true);
	free(w->tmp);
	w->tmp = NULL;
	wfile_free(w);
	return 0;
}

int wfile_write(const char *path, const struct wfile_kind *kind, bool force,
		int (*fn)(void *ctx, FILE *f), void *ctx, struct err_msg *err)
{
	struct wfile *w;
	FILE *f;
	int rc, e;

	if (!strcmp(path, "-")) { /* @fn's failure, as for a file: -2, @err set */
		if (!fn(ctx, stdout))
			return 0;
		err_setf(err, "-", "cannot write it");
		return -2;
	}
	w = wfile_create(path, kind, force, err);
	if (!w)
		return -1;
	f = fdopen(dup(w->fd), "w");
	if (!f) {
		err_setf(err, path, "cannot write it: %s", strerror(errno));
		wfile_abort(w);
		return -1;
	}
	rc = fn(ctx, f) ? -2 : 0;
	if (fflush(f) || ferror(f) || fclose(f)) {
		e = errno ? errno : EIO;
		rc = -1;
	} else
		f = NULL;
	if (f)
		fclose(f);
	if (rc) {
		if (rc == -1)
			err_setf(err, path, "cannot write it: %s", strerror(e));
		else
			err_setf(err, path, "cannot write it");
		wfile_abort(w);
		return rc;
	}
	return wfile_commit(w, err);
}
