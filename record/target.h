/* SPDX-License-Identifier: MIT */
/*
 * target.c: the traced command or pids, their maps and names.
 */
#ifndef DARC_REC_TARGET_H
#define DARC_REC_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "err-msg.h"

struct target;

/* SIGPIPE's disposition as darc-record was started (it ignores it): the command's. */
extern void (*target_sigpipe)(int);

/*
 * The processes to follow: a command to run (@argv, started by
 * target_release()) or existing pids (all their threads). Returns NULL with
 * @err on a bad pid or when the command cannot be started.
 */
struct target *target_create(char **argv, const pid_t *pids, int npids, struct err_msg *err);

/* The pids to filter on (the command's child, or the given pids' threads). */
int target_pids(const struct target *t, const pid_t **pids);

/* Let the command exec (after tracing is on). */
int target_release(struct target *t, struct err_msg *err);

/* Reap a finished child; true when nothing to follow is left alive. */
bool target_done(struct target *t);

/* Snapshot /proc/PID/maps and comm of the live targets (kept for the manifest). */
void target_snapshot(struct target *t);

/* The command's exit status (waitpid form), or -1 if it has not ended. */
int target_status(const struct target *t);

/* Signal the command (its process group) with @sig, if it is running. */
void target_kill(struct target *t, int sig);

/* The "PID COMM\n" lines of every task seen, for the saved cmdlines. */
char *target_cmdlines(const struct target *t);

/* JSON-ready views: maps text per pid, and the distinct mapped files. */
int target_nmaps(const struct target *t);
void target_map(const struct target *t, int i, pid_t *pid, const char **comm, const char **maps);

/* Release @t (killing nothing: an unreleased child is killed). Accepts NULL. */
void target_free(struct target *t);

#endif
