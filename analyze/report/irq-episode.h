// SPDX-License-Identifier: MIT
#ifndef DARC_IRQ_EPISODE_H
#define DARC_IRQ_EPISODE_H
/*
 * The interrupt episode on a CPU at a time, as the SQL function
 *
 *	irq_episode(cpu, t)
 *
 * on a report's connection: the id of the irq_interval of kind 0 (hard
 * interrupt) with a name on CPU cpu that holds time t (t_start <= t, and
 * t_end >= t or not seen), the latest begun if several do (the innermost;
 * of two begun together the greater id), or NULL. It is what
 *
 *	SELECT id FROM irq_interval i WHERE i.cpu = ?1 AND i.kind = 0
 *	AND i.name != '' AND i.t_start <= ?2 AND (i.t_end IS NULL OR
 *	i.t_end >= ?2) ORDER BY i.t_start DESC, i.id DESC LIMIT 1
 *
 * returns, without that query's walk back over every interrupt of the CPU
 * before t when none holds it (most wake-ups are not in one: 0.3 s of a
 * 0.34 s query on 752 sleeps of one task among 5 K interrupts). The
 * intervals are read once per connection, sorted by CPU and start, each
 * with the latest end of those begun before it, so a walk back stops at
 * the first interval before which none reaches t.
 */
#include <sqlite3.h>

/* Register irq_episode() on @sql (direct use only, not from a schema). SQLITE_OK or an error. */
int irq_episode_register(sqlite3 *sql);

#endif
