/* SPDX-License-Identifier: MIT */
/*
 * number: an option's argument read as a number, the whole of it, one way
 * for every command (darc's and darc-record's): the caller says what it
 * expected when it is not one.
 */
#ifndef DARC_NUMBER_H
#define DARC_NUMBER_H

#include <errno.h>
#include <stdlib.h>

/* @s whole as a base-10 integer (strtoll): 0 with *@v, or -1 (no digits, or more after them). */
static inline int number_int(const char *s, long long *v)
{
	char *end;

	*v = strtoll(s, &end, 10);
	return end == s || *end ? -1 : 0;
}

/* @s whole as a real number within @lo..@hi (strtod; out of a double's range is not one): 0 or -1.
 */
static inline int number_real(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && *v >= lo && *v <= hi ? 0 : -1;
}

#endif
