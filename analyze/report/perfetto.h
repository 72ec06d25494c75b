/* SPDX-License-Identifier: MIT */
/*
 * perfetto: darc export --perfetto (perfetto.c).
 */
#ifndef DARC_PERFETTO_H
#define DARC_PERFETTO_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

/* Does @db hold findings of darc explain (for export --perfetto's tracks)? */
bool perfetto_has_findings(struct rdb *db);

/*
 * darc export --perfetto (perfetto.c): Perfetto's protobuf trace of the
 * calls @o selects (a track per process and thread, a slice per complete
 * call, interrupts, off-CPU intervals with their wake-ups as flows, the
 * task states, and darc explain's slow parts and causes). 0, or -1 with
 * @err set.
 */
int perfetto_export(FILE *out, struct rdb *db, const struct report_options *o, bool owner,
		    struct err_msg *err);

#endif
