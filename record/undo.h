/* SPDX-License-Identifier: MIT */
/*
 * undo.c: the undo log: a saved top-level file written back, killed recorders' logs found and replayed.
 */
#ifndef DARC_REC_UNDO_H
#define DARC_REC_UNDO_H

#include <glob.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rec.h"

/* Write top-level file @file's saved value @value back (best effort; @value is cut up). */
void undo_restore(const char *file, char *value);

/* N of a buffer_size_kb of "7 (expanded: N)" (not allocated yet), else 0. */
long undo_expanded_kb(const char *v);

/*
 * Replay the undo log @path of a dead darc-record: restore its top-level
 * files, remove its page files, remove the log. Returns what could not be
 * undone (0: all).
 */
int undo_replay(const char *path, struct rec_notes *notes);

/* Does undo log @path hold top-level files (not only page files)? */
bool undo_has_top(const char *path);

/* The undo logs in @g, with their owners' pids in *@pids (caller frees both); 0 if none. */
size_t undo_logs(glob_t *g, pid_t **pids);

/*
 * Warn in @notes of the top-level changes that killed darc-records left
 * (their undo logs), which a recording in the top-level buffer starts from.
 */
void undo_leftovers(struct rec_notes *notes);

/* Is @pid a running darc-record (not this one)? */
bool undo_alive(pid_t pid);

/* The pid in a name "darc-PID[-all]" or "darc-record.PID.undo" (0 if none). */
pid_t undo_owner(const char *name);

#endif
