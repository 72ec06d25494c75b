/* SPDX-License-Identifier: MIT */
/*
 * grow: the one way darc grows an array. GROW(arr, n, cap, init) makes room
 * for element n of arr (which holds cap elements): when n == cap it doubles
 * cap (or sets it to init) and reallocates. 0, or -1 when out of memory (arr
 * and cap unchanged).
 */
#ifndef DARC_GROW_H
#define DARC_GROW_H

#include <limits.h>
#include <stdlib.h>

static inline int grow_array(void **arr, int *cap, long n, size_t elem, int init)
{
	int want;
	void *p;

	if (n < *cap)
		return 0;
	if (*cap > INT_MAX / 2)
		return -1;
	want = *cap ? 2 * *cap : init;
	while (want <= n) {
		if (want > INT_MAX / 2)
			return -1;
		want *= 2;
	}
	p = realloc(*arr, (size_t)want * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = want;
	return 0;
}

#define GROW(arr, n, cap, init) grow_array((void **)&(arr), &(cap), (n), sizeof(*(arr)), (init))

#endif
