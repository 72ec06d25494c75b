// SPDX-License-Identifier: MIT
/*
 * The top-level lock. A recording in the top-level buffer (--no-instance, no
 * instances, function_graph where only the top level has it) saves every
 * top-level file before its first write and writes it back at its end; two
 * at once would each save the other's settings as "before", and the one
 * ending last would leave them behind. So one process at a time holds the
 * top level: a recording that uses it, or --reset while it undoes a killed
 * one's changes. Recordings in their own instances need no lock: nothing of
 * theirs is shared but the probe groups, where a name in use is refused.
 *
 * It is a POSIX (fcntl) write lock on REC_LOCK_PATH, because the kernel
 * drops such a lock when its holder exits, however it exits (kill -9
 * included), so a killed recorder cannot leave it stuck; fork does not pass
 * it on (a flock would stay with the traced command until it execs); and
 * F_GETLK gets the holder's pid from the kernel, never from a stale file.
 * The file, which stays, tells the last holder's pid, start and role for the
 * message. It is in /run beside the undo logs: tracefs takes no files of
 * ours (only directories, as instances), and /run, like tracefs, starts
 * empty at boot.
 *
 * A POSIX lock goes when its process closes any descriptor of the file:
 * the holder opens it once, here, and nothing else opens it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "rec.h"

/* Who holds the lock (pid @pid from the kernel, 0 if in another pid namespace), into @who. */
static void describe(int fd, pid_t pid, char *who, size_t n)
{
	char text[160];
	ssize_t len = pread(fd, text, sizeof(text) - 1, 0);
	char *tab = NULL;
	long fpid = 0;

	if (len > 0) {
		text[len] = 0;
		text[strcspn(text, "\n")] = 0;
		fpid = strtol(text, &tab, 10);
	}
	/* the file is the holder's if it names the same pid (it may not have written it yet) */
	if (tab && *tab == '\t' && (fpid == pid || (!pid && fpid > 0))) {
		char *role = strchr(tab + 1, '\t');
		if (role)
			*role++ = 0;
		snprintf(who, n, "darc-record session %ld (started %s%s%s)", fpid, tab + 1,
			 role ? ", " : "", role ? role : "");
	} else if (pid > 0) {
		snprintf(who, n, "darc-record session %d", (int)pid);
	} else {
		snprintf(who, n, "a darc-record session in another pid namespace");
	}
}

void lock_run_dir(void)
{
	/* every init system makes /run; a bare initramfs (the VM lab's) may not.
	 * EEXIST as a rule; another failure is said by the open that follows */
	mkdir(REC_UNDO_DIR, 0755);
}

int lock_top(const char *role, int *fd, char *who, size_t n, struct err_msg *err)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET}; /* the whole file */
	char text[160], when[32];
	time_t now = time(NULL);
	struct tm tm;
	int len;

	lock_run_dir();
	*fd = open(REC_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*fd < 0)
		return err_setf(err, REC_LOCK_PATH,
				"cannot open the lock of tracefs' top level: %s", strerror(errno));
	while (fcntl(*fd, F_SETLK, &fl)) {
		int e = errno;

		if (e == EACCES || e == EAGAIN) {
			/* held: by whom? (if it went meanwhile, try again) */
			if (!fcntl(*fd, F_GETLK, &fl) && fl.l_type == F_UNLCK) {
				fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
				continue;
			}
			describe(*fd, fl.l_type == F_WRLCK ? fl.l_pid : 0, who, n);
			close(*fd);
			*fd = -1;
			return 1;
		}
		close(*fd);
		*fd = -1;
		return err_setf(err, REC_LOCK_PATH, "cannot lock tracefs' top level: %s",
				strerror(e));
	}
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	len = snprintf(text, sizeof(text), "%d\t%s\t%s\n", (int)getpid(), when, role);
	if (ftruncate(*fd, 0) || pwrite(*fd, text, len, 0) != len) {
		/* the text only serves others' messages: without it they say less */
	}
	return 0;
}

bool lock_holder(pid_t *pid, char *who, size_t n)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	/* read-only: F_GETLK needs no write access, and a missing file is no lock */
	int fd = open(REC_LOCK_PATH, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool held;

	if (fd < 0)
		return false;
	held = !fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK;
	if (held) {
		*pid = fl.l_pid;
		describe(fd, fl.l_pid, who, n);
	}
	close(fd);
	return held;
}
