// SPDX-License-Identifier: MIT
/*
 * darc-record --reset: remove what a darc-record killed with SIGKILL (or a
 * crash) left behind: its instances (darc-PID, darc-PID-all), its probes
 * (groups darc_kprobes, darc_uprobes), and, from its undo log, the
 * top-level settings it changed and its page files. What belongs to a
 * darc-record that is still running is kept unless forced; so are a killed
 * one's top-level settings while another darc-record holds the top level
 * (lock.c), since that one found them there and writes them back at its end.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "caps.h"
#include "lock.h"
#include "probes.h"
#include "rec.h"
#include "reset.h"
#include "undo.h"



/* Is @name darc-record's: "darc-PID" or "darc-PID-all"? */
static bool own_instance(const char *name)
{
	size_t n = strlen(REC_INSTANCE_PREFIX);
	const char *p = name + n;

	if (strncmp(name, REC_INSTANCE_PREFIX, n) || *p < '0' || *p > '9')
		return false;
	p += strspn(p, "0123456789");
	return !*p || !strcmp(p, "-all");
}

static int remove_instance(const char *name, bool force, struct rec_notes *notes)
{
	struct tracefs_instance *inst;
	int rc = 0;

	if (!force && undo_alive(undo_owner(name))) {
		caps_note(notes,
			 "kept instance '%s': darc-record %d is running (--force removes it)", name,
			 (int)undo_owner(name));
		return 0;
	}
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst) {
		caps_note(notes, "cannot open instance '%s': %s", name, strerror(errno));
		return 1;
	}
	tracefs_instance_file_write(inst, "tracing_on", "0");
	tracefs_instance_file_write(inst, "events/enable", "0");
	if (tracefs_file_exists(inst, "current_tracer"))
		tracefs_instance_file_write(inst, "current_tracer", "nop");
	if (tracefs_instance_destroy(inst)) {
		caps_note(notes, "cannot remove instance '%s': %s", name, strerror(errno));
		rc = 1;
	} else {
		caps_note(notes, "removed instance '%s'", name);
	}
	tracefs_instance_free(inst);
	return rc;
}

/* Any darc-record running (other than this one)? */
static pid_t any_recorder(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d)))
		if (undo_alive(atoi(e->d_name)))
			found = atoi(e->d_name);
	if (d)
		closedir(d);
	return found;
}

static int remove_probes(bool force, struct rec_notes *notes)
{
	struct tracefs_dynevent **all;
	struct rec_notes seen = {0}; /* "sys:event" handled (the lists may name one twice) */
	pid_t live = force ? 0 : any_recorder();
	int left = 0;

	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE |
					   TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE,
				       NULL);
	for (int i = 0; all && all[i]; i++) {
		char *sys = NULL, *ev = NULL;
		bool dup = false;

		tracefs_dynevent_info(all[i], &sys, &ev, NULL, NULL, NULL);
		if (!sys || !ev || (strcmp(sys, REC_KPROBE_GROUP) && strcmp(sys, REC_UPROBE_GROUP)))
			goto next;
		for (int k = 0; k < seen.n && !dup; k++)
			dup = !strncmp(seen.v[k], sys, strlen(sys)) &&
			      seen.v[k][strlen(sys)] == ':' &&
			      !strcmp(seen.v[k] + strlen(sys) + 1, ev);
		if (dup)
			goto next;
		caps_note(&seen, "%s:%s", sys, ev);
		if (live)
			caps_note(notes,
				 "kept probe %s:%s: darc-record %d is running (--force removes it)",
				 sys, ev, (int)live);
		else if (probe_destroy(all[i]) && errno != ENOENT)
			left += (caps_note(notes, "cannot remove probe %s:%s: %s", sys, ev,
					  strerror(errno)),
				 1);
		else
			caps_note(notes, "removed probe %s:%s", sys, ev);
	next:
		free(sys);
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	caps_notes_free(&seen);
	return left;
}



/*
 * Replay the undo logs of dead darc-records: their top-level settings and
 * page files. The top-level lock is held meanwhile, so no recording starts
 * in the top level halfway.
 */
static int replay_logs(bool force, struct rec_notes *notes)
{
	char who[256];
	struct err_msg err = {""};
	int lock = -1, left = 0;
	int busy = lock_top("running --reset", &lock, who, sizeof(who), &err);
	glob_t g;
	pid_t *pids;
	size_t n = undo_logs(&g, &pids);

	if (busy < 0) { /* nobody can say who uses the top level: leave it */
		caps_note(notes, "%s", err.msg);
		snprintf(who, sizeof(who), "whoever holds %s", REC_LOCK_PATH);
		left++;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path = g.gl_pathv[i];

		if (!force && undo_alive(pids[i]))
			caps_note(notes, "kept '%s': darc-record %d is running", path,
				  (int)pids[i]);
		else if (!force && busy && undo_has_top(path))
			caps_note(
			    notes,
			    "kept the top-level changes of darc-record %d (killed; '%s'): %s "
			    "holds the top level, and puts back what it found there at its end; "
			    "'darc-record --reset' after that undoes them",
			    (int)pids[i], path, who);
		else
			left += undo_replay(path, notes);
	}
	if (n)
		globfree(&g);
	free(pids);
	if (lock >= 0)
		close(lock);
	return left;
}

int reset_run(bool force, struct rec_notes *notes)
{
	/* all of them, matched here: libtracefs 1.6 never frees the regex it is given */
	char **names = tracefs_instances(NULL);
	/* the top level and the page files first: the logs say what was changed */
	int left = replay_logs(force, notes);

	for (int i = 0; names && names[i]; i++)
		if (own_instance(names[i]))
			left += remove_instance(names[i], force, notes);
	tracefs_list_free(names);
	left += remove_probes(force, notes);
	if (!notes->n)
		caps_note(notes, "nothing to reset: no darc-record instance, probe or undo log");
	return left;
}
