/* SPDX-License-Identifier: MIT */
/*
 * uprobe.c: ELF symbol -> file offset, build-ids (libelf).
 */
#ifndef DARC_REC_UPROBE_H
#define DARC_REC_UPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "err-msg.h"

/*
 * The file offset of function @func in ELF file @path (symtab, then dynsym),
 * for uprobe_events. Returns -1 with @err if the file or symbol is missing.
 */
int uprobe_offset(const char *path, const char *func, uint64_t *offset, struct err_msg *err);

/* The GNU build-id of ELF file @path as hex into @hex; -1 if it has none. */
int uprobe_build_id(const char *path, char *hex, size_t n);

#endif
