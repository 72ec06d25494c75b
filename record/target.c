// SPDX-License-Identifier: MIT
/*
 * What is traced: a command darc-record starts (held at a gate until
 * tracing is on, so its first instruction is recorded) or existing
 * processes (-p, with all their threads). Their /proc/PID/maps and names
 * are snapshotted while they live, for the manifest and the saved cmdlines.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

struct snap {
	pid_t pid;
	char comm[32];
	char *maps; /* the last /proc/PID/maps read while it lived, or NULL */
};

struct target {
	pid_t child; /* the command, 0 if pids were given */
	int gate;    /* write end: closing it lets the child exec */
	int report;  /* read end: the child's errno if exec failed */
	int status;  /* its waitpid status, -1 while it runs */
	pid_t *pids; /* what the pid filter starts with */
	int npids;
	struct snap *snaps; /* every process seen */
	int nsnaps;
};

static int add_pid(struct target *t, pid_t pid)
{
	void *n = realloc(t->pids, (t->npids + 1) * sizeof(*t->pids));

	if (!n)
		return -1;
	t->pids = n;
	t->pids[t->npids++] = pid;
	return 0;
}

/* @pid and its threads. */
static int add_process(struct target *t, pid_t pid, struct err_msg *err)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return err_setf(err, NULL, "no process %d: %s", (int)pid, strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && add_pid(t, atoi(e->d_name))) {
			closedir(d);
			return err_setf(err, NULL, "out of memory");
		}
	closedir(d);
	return 0;
}

void (*target_sigpipe)(int) = SIG_DFL;

/* The child: wait at the gate, then become the command. */
static void __attribute__((noreturn))
child_main(char **argv, const int gate[2], const int report[2])
{
	sigset_t none;
	char c;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, target_sigpipe == SIG_ERR ? SIG_DFL : target_sigpipe);
	/* the parent's ends: the gate opens when the parent closes the last write end */
	close(gate[1]);
	close(report[0]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	execvp(argv[0], argv);
	e = errno;
	if (write(report[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

struct target *target_create(char **argv, const pid_t *pids, int npids, struct err_msg *err)
{
	struct target *t = calloc(1, sizeof(*t));
	int gate[2] = {-1, -1}, report[2] = {-1, -1};

	if (!t) {
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	t->gate = t->report = -1;
	t->status = -1;
	for (int i = 0; i < npids; i++)
		if (add_process(t, pids[i], err))
			goto fail;
	if (!argv)
		return t;
	if (pipe2(gate, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
		err_setf(err, NULL, "cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	t->child = fork();
	if (t->child < 0) {
		err_setf(err, NULL, "cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (t->child == 0)
		child_main(argv, gate, report);
	close(gate[0]);
	close(report[1]);
	t->gate = gate[1];
	t->report = report[0];
	if (add_pid(t, t->child)) {
		err_setf(err, NULL, "out of memory");
		target_free(t);
		return NULL;
	}
	return t;
fail:
	for (int i = 0; i < 2; i++) {
		if (gate[i] >= 0)
			close(gate[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	target_free(t);
	return NULL;
}

int target_pids(const struct target *t, const pid_t **pids)
{
	*pids = t->pids;
	return t->npids;
}

int target_release(struct target *t, struct err_msg *err)
{
	int e = 0;
	ssize_t n;

	if (t->gate < 0)
		return 0;
	close(t->gate);
	t->gate = -1;
	/* EOF: exec succeeded (the pipe is close-on-exec); an int: it failed */
	while ((n = read(t->report, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(t->report);
	t->report = -1;
	if (n == sizeof(e))
		return err_setf(err, NULL, "cannot run the command: %s", strerror(e));
	return 0;
}

bool target_done(struct target *t)
{
	int st;

	if (t->child) {
		pid_t w = t->status < 0 ? waitpid(t->child, &st, WNOHANG) : 0;
		if (w == t->child)
			t->status = st;
		else if (w < 0 && errno == ECHILD) /* reaped by someone else: gone anyway */
			t->status = 0;
		return t->status >= 0;
	}
	for (int i = 0; i < t->npids; i++)
		if (!kill(t->pids[i], 0) || errno == EPERM)
			return false;
	return true;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *s = NULL;
	size_t cap = 0, len = 0, n;
	char buf[8192];

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (len + n + 1 > cap) {
			char *p = realloc(s, cap = 2 * (len + n + 1));
			if (!p) {
				free(s);
				fclose(f);
				return NULL;
			}
			s = p;
		}
		memcpy(s + len, buf, n);
		len += n;
	}
	fclose(f);
	if (s)
		s[len] = 0;
	return s;
}

/* Snapshot one process (a thread group leader or a thread: its maps are its group's). */
static void snap_one(struct target *t, pid_t pid)
{
	char path[64];
	char *maps, *comm;
	struct snap *s = NULL;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = read_text(path);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	comm = read_text(path);
	if (!maps || !comm || !*maps) {
		free(maps);
		free(comm);
		return;
	}
	for (int i = 0; i < t->nsnaps; i++)
		if (t->snaps[i].pid == pid)
			s = &t->snaps[i];
	if (!s) {
		void *n = realloc(t->snaps, (t->nsnaps + 1) * sizeof(*t->snaps));
		if (!n) {
			free(maps);
			free(comm);
			return;
		}
		t->snaps = n;
		s = &t->snaps[t->nsnaps++];
		memset(s, 0, sizeof(*s));
		s->pid = pid;
	}
	free(s->maps);
	s->maps = maps;
	comm[strcspn(comm, "\n")] = 0;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	free(comm);
}

void target_snapshot(struct target *t)
{
	/* the pids followed and, for a command, the children it made since */
	for (int i = 0; i < t->npids; i++)
		snap_one(t, t->pids[i]);
	if (t->child && t->status < 0) {
		char path[64];
		char *kids;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)t->child,
			 (int)t->child);
		kids = read_text(path);
		for (char *k = kids ? strtok(kids, " \n") : NULL; k; k = strtok(NULL, " \n"))
			snap_one(t, atoi(k));
		free(kids);
	}
}

int target_status(const struct target *t)
{
	return t->child ? t->status : -1;
}

void target_kill(struct target *t, int sig)
{
	if (t->child && t->status < 0)
		kill(t->child, sig);
}

char *target_cmdlines(const struct target *t)
{
	size_t cap = 64 * (t->nsnaps + 1), len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = 0;
	for (int i = 0; i < t->nsnaps; i++)
		len +=
		    snprintf(s + len, cap - len, "%d %s\n", (int)t->snaps[i].pid, t->snaps[i].comm);
	return s;
}

int target_nmaps(const struct target *t)
{
	return t->nsnaps;
}

void target_map(const struct target *t, int i, pid_t *pid, const char **comm, const char **maps)
{
	*pid = t->snaps[i].pid;
	*comm = t->snaps[i].comm;
	*maps = t->snaps[i].maps;
}

void target_free(struct target *t)
{
	if (!t)
		return;
	if (t->gate >= 0) {
		/* never released: the command must not run untraced */
		kill(t->child, SIGKILL);
		close(t->gate);
	}
	if (t->report >= 0)
		close(t->report);
	if (t->child > 0 && t->status < 0)
		waitpid(t->child, &t->status, WNOHANG); /* a command still running is left be */
	for (int i = 0; i < t->nsnaps; i++)
		free(t->snaps[i].maps);
	free(t->snaps);
	free(t->pids);
	free(t);
}
