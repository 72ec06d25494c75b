/* SPDX-License-Identifier: MIT */
/*
 * intern: a name kept once in a small table of names (kernel modules, in the
 * order kallsyms gives them).
 */
#ifndef DARC_INTERN_H
#define DARC_INTERN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The index of @name (@len bytes) in the @n names at *@names, added (a copy)
 * if new. -1 when out of memory.
 */
static inline long intern_name(char ***names, uint32_t *n, const char *name, size_t len)
{
	char **p;

	/* a module's symbols come together: look from the newest back */
	for (uint32_t i = *n; i-- > 0;)
		if (!strncmp((*names)[i], name, len) && !(*names)[i][len])
			return i;
	p = realloc(*names, (*n + 1) * sizeof(*p));
	if (!p)
		return -1;
	*names = p;
	if (!(p[*n] = strndup(name, len)))
		return -1;
	return (*n)++;
}

#endif
