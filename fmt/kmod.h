/* SPDX-License-Identifier: MIT */
/*
 * kmod: which kernel module each symbol of a kallsyms text belongs to (the
 * "[ext4]" after a module symbol's name). libtraceevent keeps the module of
 * a function but has no call that gives it back; this keeps only the module
 * symbols, by address.
 */
#ifndef DARC_KMOD_H
#define DARC_KMOD_H

#include <stddef.h>
#include <stdint.h>

struct kmod_map {
	uint64_t *addr;	 /* open addressing; 0 = empty (no symbol lives at 0) */
	uint32_t *mod;	 /* index into names */
	size_t n, slots;
	char **names;
	uint32_t nnames;
};

/* Add the module symbols of the kallsyms text @s (lines "ADDR TYPE NAME\t[MOD]"). 0, or -1 (memory). */
int kmod_parse(struct kmod_map *m, const char *s);
/* The same for the one line @s .. @end (its newline, or its end). */
int kmod_line(struct kmod_map *m, const char *s, const char *end);

/* The module of the symbol at @addr, or NULL (the kernel proper, or not a symbol). */
const char *kmod_find(const struct kmod_map *m, uint64_t addr);

void kmod_free(struct kmod_map *m);

#endif
