/* SPDX-License-Identifier: MIT */
/*
 * Indexes a darc database may have or lack: one that an older darc made,
 * and two that darc analyze makes (indexes.sql) and darc paths makes in a
 * database of an older darc that lacks them. Included by trust.c, and by
 * template.c, which lists darc's schema with them at build time.
 */
#ifndef DARC_LAZY_INDEXES_H
#define DARC_LAZY_INDEXES_H

static const char *const lazy_indexes[] = {
    "CREATE INDEX IF NOT EXISTS call_fnode_incl ON call_base(fnode_id, incl_ns)", /* none makes it */
    "CREATE INDEX IF NOT EXISTS bio_task_complete ON bio(task_id, t_complete)",
    "CREATE INDEX IF NOT EXISTS sched_interval_in ON sched_interval(cpu_in, t_in)",
};

#define NLAZY (int)(sizeof(lazy_indexes) / sizeof(lazy_indexes[0]))

#endif
