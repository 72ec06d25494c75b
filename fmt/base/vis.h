/* SPDX-License-Identifier: MIT */
/*
 * vis: names read from a recording or a database (task comms, function,
 * event, probe and buffer names, file names, error messages quoting them)
 * made visible and harmless in text output. A traced process names itself:
 * its comm can hold an ESC sequence that retitles or redraws the terminal,
 * or a CR or LF that forges a line of darc's output. Here control bytes
 * become C escapes (\e \a \b \t \n \v \f \r, else \xHH), DEL and every byte
 * that is not part of valid UTF-8 become \xHH, as do the C1 controls encoded
 * as UTF-8, and the backslash doubles, so the text reads back unambiguously.
 * Valid UTF-8 stays as it is. JSON output never comes here: jansson escapes
 * its strings exactly.
 */
#ifndef DARC_VIS_H
#define DARC_VIS_H

#include <stdio.h>

/*
 * Folded stacks (flame graphs): ';' separates frames and the count follows
 * the last space, and flamegraph.pl takes a second "space digits" tail for a
 * differential count. So ';' becomes \x3b, and a space followed by nothing
 * but digits and dots to the end of the name becomes \x20.
 */
#define VIS_FOLDED 1u

/* Write @s (NUL-terminated; NULL writes "(null)") to @out, escaped as above. */
void vis_put(FILE *out, const char *s, unsigned flags);

/*
 * @s escaped for a printf "%s": @s itself when nothing needs escaping, else
 * a copy in a ring of 8 buffers that the next 8 calls reuse ("?" out of
 * memory). Not thread-safe: for the thread that prints.
 */
const char *vis(const char *s);

/* Is @s valid UTF-8 throughout (what a JSON string may hold as it is)? */
int vis_utf8_valid(const char *s);

#endif
