/* SPDX-License-Identifier: MIT */
/*
 * jtext: names in JSON. Names are bytes (a comm, a kallsyms or .sym name, a
 * path may hold any), and JSON holds only UTF-8: jansson's json_string()
 * gives NULL for other bytes, which would drop the name, or the whole
 * output, silently. So a name enters a JSON tree through jtext(), which
 * keeps it exactly (json_string_nocheck where it is not UTF-8: the text
 * reports that darc prints from such a tree escape it with vis(), as they
 * escape every name), and a tree leaves darc through jtext_clean(), which
 * gives each string that is not UTF-8 in the escaped form of text output
 * (vis.h: each byte that is not UTF-8 as \xHH, a backslash doubled), so that
 * the JSON is valid and the name reads back unambiguously. A name that is
 * UTF-8 is exact in the JSON (control characters too: JSON escapes them).
 * For darc and darc-record, which link jansson (fmt/'s readers do not).
 */
#ifndef DARC_JTEXT_H
#define DARC_JTEXT_H

#include <jansson.h>

#include "vis.h"

/* @s as a JSON string, exactly (NULL: JSON null). */
static inline json_t *jtext(const char *s)
{
	if (!s)
		return json_null();
	return vis_utf8_valid(s) ? json_string(s) : json_string_nocheck(s);
}

/* @j (NULL is fine) with every string that is not UTF-8 escaped, for output; returns @j. */
static inline json_t *jtext_clean(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		const char *s = json_string_value(j);

		if (!vis_utf8_valid(s))
			json_string_set(j, vis(s));
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			jtext_clean(v);
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, v)
			jtext_clean(v);
	}
	return j;
}

#endif
