/* SPDX-License-Identifier: MIT */
/*
 * ksyms: the functions of a kallsyms text by address, for libtraceevent's
 * lookups (tep_find_function() and the prints of %ps and the like): handed
 * to it as its function resolver (tep_set_function_resolver()).
 *
 * libtraceevent's own table (tep_register_function()) costs a malloc and two
 * strdup()s a symbol, a sort at the first lookup and as many free()s at the
 * end: a kernel has some 100 K symbols, and that was a fifth of a small
 * recording's analysis. This table points into the text itself, 16 bytes a
 * symbol, puts in order in linear time what already is (the kernel's own
 * symbols; only the modules' come unordered), and makes a name a C string
 * only when it is looked up.
 *
 * It answers as libtraceevent's table does, name for name: the same
 * symbols, in the order its sort leaves them (by address; symbols at one
 * address in the reverse of their order of registration), searched with the
 * same comparison by bsearch(), so that of two names at one address the
 * same one is found.
 */
#ifndef DARC_KSYMS_H
#define DARC_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

struct ksym {
	uint64_t addr;
	uint32_t name;	   /* offset of the name in the text */
	uint16_t len;	   /* of the name */
	uint16_t mod;	   /* 1 + index into mods; 0: the kernel proper */
};

struct ksyms {
	const char *text;  /* the kallsyms text the names lie in (see ksyms_start()) */
	char *owned;	   /* the text, when it is ours to free */
	struct ksym *v;	   /* in order of registration, by address once published */
	int n, cap;
	char **cnames;	   /* [n]: each name as a C string, made when first looked up */
	char **mods;	   /* module names (intern.h) */
	uint32_t nmods;
	char *arena;	   /* the C strings: chunks, each starting with the next one's address */
	size_t arena_used, arena_size;
	bool published;
};

/*
 * Take @text (@size bytes) for the symbols that follow: it must live as long
 * as @k, and is freed with it when @owned. 0, or -1 when @k has a text
 * already (a second kallsyms is ignored: @text is freed if @owned).
 */
int ksyms_start(struct ksyms *k, const char *text, size_t size, bool owned);

/* Add the symbol named by @len bytes at @name (in the text), of module @mod (@mod_len bytes, or NULL). 0, or -1 (memory). */
int ksyms_add(struct ksyms *k, uint64_t addr, const char *name, size_t len, const char *mod,
	      size_t mod_len);

/*
 * Put the symbols in order, and make @tep resolve functions through @k
 * (which must outlive @tep's use of it). 0, or -1 (memory).
 */
int ksyms_publish(struct ksyms *k, struct tep_handle *tep);

/* The function containing @addr, as libtraceevent's table finds it; NULL if none. */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr);

/*
 * The function at exactly @addr, named: of the symbols there, the first
 * that is no section marker (__sched_text_start shares io_schedule_timeout's
 * address, and libtraceevent's lookup gives the marker). NULL when nothing
 * but markers (or nothing) is there.
 */
const char *ksyms_function_at(struct ksyms *k, uint64_t addr);

/* The name of @s (an entry of @k) as a C string, or NULL when out of memory. */
const char *ksyms_name(struct ksyms *k, const struct ksym *s);

void ksyms_free(struct ksyms *k);

#endif
