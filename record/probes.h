/* SPDX-License-Identifier: MIT */
/*
 * probes.c: kprobes, kretprobes, uprobes, uretprobes (libtracefs dynevent).
 */
#ifndef DARC_REC_PROBES_H
#define DARC_REC_PROBES_H

#include "err-msg.h"
#include "rec.h"

struct tracefs_dynevent;

/*
 * Parse "SYMBOL[+OFFS] [ARGS...]" (kprobes) or "BIN:FUNC [ARGS...]" (uprobes)
 * into @p. Returns -1 with @err on bad syntax or an unknown binary/function.
 */
int probe_parse(struct rec_probe *p, enum rec_probe_type type, const char *spec,
		struct err_msg *err);

/* Create every probe of @o in tracefs. On failure the ones created are removed. */
int probes_create(struct rec_opts *o, struct err_msg *err);

/* Remove the probes darc-record created (and free their handles). */
void probes_destroy(struct rec_opts *o);

/*
 * Remove one probe event: not forced first (a forced removal writes the
 * top-level enable file, which allocates an unallocated top-level buffer),
 * forced if that fails. 0, or -1 with errno set.
 */
int probe_destroy(struct tracefs_dynevent *dev);

/* The tracefs group of probe type @t. */
const char *probe_group(enum rec_probe_type t);

#endif
