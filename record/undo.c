// SPDX-License-Identifier: MIT
/*
 * The undo log of a darc-record: what it changed in the top level of tracefs
 * and where its page files are, one (key, value) pair a change, in
 * REC_UNDO_DIR/darc-record.PID.undo (session.c writes it as it goes). Here
 * a saved top-level file is written back (for the session's own restore and
 * for a killed one's), the logs of killed recorders are found, read and
 * replayed (--reset), and a recording that starts over a killed one's
 * changes is warned. session.c and reset.c both take from here.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "caps.h"
#include "rec.h"
#include "undo.h"

static char *trim(char *v)
{
	size_t n = strlen(v);

	while (n && strchr("\n *", v[n - 1]))
		v[--n] = 0;
	return v;
}

/* N of a buffer_size_kb of "7 (expanded: N)" (not allocated yet), else 0. */
long undo_expanded_kb(const char *v)
{
	const char *e = v ? strstr(v, "(expanded: ") : NULL;

	return e ? strtol(e + 11, NULL, 10) : 0;
}

/* Write a saved top-level file back; best effort, nothing to report to. */
void undo_restore(const char *f, char *v)
{
	if (!strcmp(f, "trace_clock")) {
		char *a = strchr(v, '['), *b = a ? strchr(a, ']') : NULL;
		if (a && b) {
			*b = 0;
			tracefs_instance_file_write(NULL, f, a + 1);
		}
	} else if (!strcmp(f, "set_ftrace_pid") || !strcmp(f, "set_event_pid") ||
		   !strcmp(f, "set_graph_function") || !strcmp(f, "set_graph_notrace") ||
		   !strcmp(f, "set_ftrace_filter") || !strcmp(f, "set_ftrace_notrace")) {
		tracefs_instance_file_clear(NULL, f);
		if (strncmp(v, "no pid", 6) && strncmp(v, "####", 4))
			for (char *l = strtok(v, "\n"); l; l = strtok(NULL, "\n"))
				tracefs_instance_file_append(NULL, f, l);
	} else if (strstr(f, "/filter")) {
		tracefs_instance_file_write(NULL, f, strncmp(v, "none", 4) ? trim(v) : "0");
	} else if (!strcmp(f, "buffer_size_kb")) {
		/* "7 (expanded: 1408)": never allocated; 7 is no size to set, 1408 is
		   what the buffer becomes on its first use */
		char num[32];
		long exp = undo_expanded_kb(v);
		snprintf(num, sizeof(num), "%ld", exp ? exp : strtol(v, NULL, 10));
		tracefs_instance_file_write(NULL, f, num);
	} else {
		tracefs_instance_file_write(NULL, f, trim(v));
	}
}

/* Remove the page files of a killed recording, and their directory. */
static int remove_page_dir(const char *dir, struct rec_notes *notes)
{
	DIR *d;
	struct dirent *e;

	if (dir[0] != '/') { /* an older darc-record's log: relative to what? */
		caps_note(notes, "cannot remove the page files in '%s': not an absolute path", dir);
		return 1;
	}
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "buffer", 6))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	if (!rmdir(dir)) {
		caps_note(notes, "removed the page files in '%s'", dir);
	} else if (errno == ENOENT) {
		caps_note(notes, "the page files in '%s' are gone already", dir);
	} else {
		caps_note(notes, "cannot remove '%s': %s", dir, strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * Read undo log @path: *buf holds it, (*kv)[2i] and (*kv)[2i+1] are the
 * key and value of pair i (both freed by the caller). Returns the number of
 * pairs, or -1 if it cannot be read.
 */
static long read_log(const char *path, char **buf, char ***kv)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 0, n = 0, got;

	*buf = NULL;
	*kv = NULL;
	if (!f)
		return -1;
	for (;;) {
		if (cap - len < 4096) {
			char *p = realloc(*buf, 2 * cap + 4096);
			if (!p)
				break;
			*buf = p;
			cap = 2 * cap + 4096;
		}
		got = fread(*buf + len, 1, cap - len, f);
		if (!got)
			break;
		len += got;
	}
	fclose(f);
	if (*buf)
		(*buf)[len] = 0; /* the loop left room */
	/* (key, value) pairs, NUL-terminated each */
	for (size_t i = 0; *buf && i < len; i += strlen(*buf + i) + 1) {
		void *p = realloc(*kv, (n + 1) * sizeof(**kv));
		if (!p)
			break;
		*kv = p;
		(*kv)[n++] = *buf + i;
	}
	return (long)(n / 2);
}

bool undo_has_top(const char *path)
{
	char *buf, **kv;
	long n = read_log(path, &buf, &kv);
	bool top = false;

	for (long i = 0; i < n; i++)
		top |= strcmp(kv[2 * i], REC_UNDO_DIR_KEY) != 0;
	free(kv);
	free(buf);
	return top;
}

int undo_replay(const char *path, struct rec_notes *notes)
{
	char *buf, **kv;
	long n = read_log(path, &buf, &kv);
	int left = 0;

	if (n < 0) {
		caps_note(notes, "cannot read '%s': %s", path, strerror(errno));
		return 1;
	}
	/* newest first, as sess_restore() does */
	for (long i = n - 1; i >= 0; i--) {
		const char *key = kv[2 * i];
		char *val = kv[2 * i + 1];

		if (!strcmp(key, REC_UNDO_DIR_KEY)) {
			left += remove_page_dir(val, notes);
		} else {
			undo_restore(key, val);
			caps_note(notes, "restored the top-level '%s'", key);
		}
	}
	free(kv);
	free(buf);
	if (unlink(path))
		left++;
	return left;
}

bool undo_alive(pid_t pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	if (pid <= 0 || pid == getpid())
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strncmp(comm, "darc-record", 11);
}

/* The pid in a name "darc-PID[-all]" or "darc-record.PID.undo" (0 if none). */
pid_t undo_owner(const char *name)
{
	const char *p = name + strcspn(name, "0123456789");

	return (pid_t)strtol(p, NULL, 10);
}

/* The undo logs in @g, with their owners' pids in *@pids (caller frees both); 0 if none. */
size_t undo_logs(glob_t *g, pid_t **pids)
{
	*pids = NULL;
	if (glob(REC_UNDO_DIR "/darc-record.*.undo", 0, NULL, g))
		return 0;
	*pids = calloc(g->gl_pathc, sizeof(**pids));
	for (size_t i = 0; *pids && i < g->gl_pathc; i++)
		(*pids)[i] = undo_owner(strrchr(g->gl_pathv[i], '/') + 1);
	if (!*pids)
		globfree(g);
	return *pids ? g->gl_pathc : 0;
}

void undo_leftovers(struct rec_notes *notes)
{
	glob_t g;
	pid_t *pids;
	size_t n = undo_logs(&g, &pids);

	for (size_t i = 0; i < n; i++)
		if (pids[i] != getpid() && !undo_alive(pids[i]) && undo_has_top(g.gl_pathv[i]))
			caps_note(notes,
				 "warning: the top-level tracefs settings of darc-record %d, which "
				 "was killed, are still there: this recording starts from them and "
				 "puts them back at its end; 'darc-record --reset' after it undoes "
				 "them",
				 (int)pids[i]);
	if (n)
		globfree(&g);
	free(pids);
}
