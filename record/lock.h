/* SPDX-License-Identifier: MIT */
/*
 * lock.c: the top-level lock: one user of the top-level buffer at a time.
 */
#ifndef DARC_REC_LOCK_H
#define DARC_REC_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err-msg.h"

/* Make REC_UNDO_DIR if the system has none (errors are left to the open after it). */
void lock_run_dir(void);

/*
 * Take the top-level lock for this process, as @role ("recording in the
 * top-level buffer"). 0: taken, *fd holds it until closed or the process
 * ends (however it ends); 1: another process holds it, @who says which
 * ("darc-record session PID (started TIME, ROLE)"); -1: @err.
 */
int lock_top(const char *role, int *fd, char *who, size_t n, struct err_msg *err);

/* Is the top-level lock held? Then *pid (0: in another pid namespace) and @who say by whom. */
bool lock_holder(pid_t *pid, char *who, size_t n);

#endif
