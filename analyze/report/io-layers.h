/* SPDX-License-Identifier: MIT */
/*
 * io-layers: darc io, the slowest calls split into layers (io-layers.c).
 */
#ifndef DARC_IO_LAYERS_H
#define DARC_IO_LAYERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdb.h"

/* A layer map of the user's: function glob -> layer, the first match wins. */
struct io_rules {
	struct io_rule {
		char *glob;
		int layer;
	} *r;
	int n;
};

/*
 * Read @path's rules, a line "GLOB LAYER" each ('#' begins a comment; the
 * layer one of vfs, fs, page cache, copy, block, driver, scheduler, other).
 * 0, or -1 with @err naming the file and line. io_rules_free() them.
 */
int io_rules_load(const char *path, struct io_rules *rules, struct err_msg *err);
void io_rules_free(struct io_rules *rules);

/*
 * darc io: the @top slowest calls of @func (or call @call) split into
 * layers, @rules (or NULL) before the default map.
 */
int io_report(FILE *out, struct rdb *db, const struct io_rules *rules, const char *func,
	      int64_t call, int top, bool json, struct err_msg *err);

/*
 * darc io alone: the @top entry points (roots of the call trees) by latency,
 * each with the layers of its 20 slowest calls summed, and each device's bios.
 */
int io_overview_report(FILE *out, struct rdb *db, const struct io_rules *rules, int top,
		       bool json, struct err_msg *err);

/*
 * darc io's entry points: the @top roots of the call trees by latency, each
 * with the layers of its @per slowest calls summed (a JSON array), or NULL.
 */
json_t *io_entries_json(struct rdb *db, const struct io_rules *rules, int top, int per,
			struct err_msg *err);

#endif
