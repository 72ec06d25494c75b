/* SPDX-License-Identifier: MIT */
/*
 * ksyms: the functions of a kallsyms text by address, for libtraceevent's
 * lookups (tep_find_function() and the prints of %ps and the like): handed
 * to it as its function resolver (tep_set_function_resolver()).
 *
 * libtraceevent's own table (tep_register_function()) costs a malloc and two
 * strdup()s a symbol, a sort at the first lookup and as many free()s at the
 * end: a kernel has some 100 K symbols, and that was a fifth of a small
 * recording's analysis. This table keeps the text and one array, and puts
 * in order in linear time what already is (the kernel's own symbols; only
 * the modules' come unordered).
 *
 * It answers as libtraceevent's table does, name for name: the same
 * symbols, in the order its sort leaves them (by address; symbols at one
 * address in the reverse of their order of registration), searched with the
 * same comparison by bsearch(), so that of two names at one address the
 * same one is found.
 */
#ifndef DARC_KSYMS_H
#define DARC_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;

struct ksym {
	uint64_t addr;
	const char *name;
	const char *mod; /* NULL: the kernel proper */
};

struct ksyms {
	struct ksym *reg; /* in order of registration */
	size_t n, cap;
	struct ksym *map; /* n + 1: by address, then a terminating entry (address 0) */
	char **texts;	  /* the texts the names point into */
	int ntexts;
};

/* Add a symbol (its strings must live as long as @k: see ksyms_keep()). 0, or -1 (memory). */
int ksyms_add(struct ksyms *k, uint64_t addr, const char *name, const char *mod);

/* Keep @text (malloc()ed) until ksyms_free(). 0, or -1 (memory: @text is freed). */
int ksyms_keep(struct ksyms *k, char *text);

/*
 * Put the symbols added so far in order, and make @tep resolve functions
 * through @k (which must outlive @tep's use of it). 0, or -1 (memory).
 */
int ksyms_publish(struct ksyms *k, struct tep_handle *tep);

/* The function containing @addr, as libtraceevent's table finds it; NULL if none. */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr);

void ksyms_free(struct ksyms *k);

#endif
