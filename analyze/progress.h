/* SPDX-License-Identifier: MIT */
/*
 * progress: one line on stderr that a long run rewrites in place ("darc:
 * analyze: 3.1 M events, 2.0 s"), shown only where stderr is a terminal and
 * only once the run has taken half a second (DARC_PROGRESS_DELAY: another
 * delay, for the tests), and erased at the end, so that short runs, pipes and
 * logs never see it.
 */
#ifndef DARC_PROGRESS_H
#define DARC_PROGRESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct progress {
	bool on;	  /* stderr is a terminal */
	bool shown;	  /* a line is on the screen */
	double t0, next;  /* the start, and when the line is due again */
	const char *what; /* "analyze", "export", ... */
};

static inline double progress_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @on: wanted (and stderr a terminal); DARC_PROGRESS_DELAY=S shows the first line after S s. */
static inline void progress_start(struct progress *p, const char *what, bool on)
{
	const char *delay = getenv("DARC_PROGRESS_DELAY");

	p->on = on && isatty(2);
	p->shown = false;
	p->t0 = progress_clock();
	p->next = p->t0 + (delay ? atof(delay) : 0.5);
	p->what = what;
}

/* Whether the line is due (cheap enough to ask every few thousand steps). */
static inline bool progress_due(struct progress *p)
{
	return p->on && progress_clock() >= p->next;
}

/* The line: "darc: WHAT: " the printf-style text ", N.N s". */
static inline void progress_show(struct progress *p, const char *fmt, ...)
{
	va_list ap;
	double t = progress_clock();

	fprintf(stderr, "\rdarc: %s: ", p->what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ", %.1f s\033[K", t - p->t0);
	p->next = t + 0.5;
	p->shown = true;
}

/* Erase the line, if one was shown. */
static inline void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

#endif
