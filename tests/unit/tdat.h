/* SPDX-License-Identifier: MIT */
/*
 * tdat: builds small trace.dat (v6) files byte by byte for the unit tests,
 * so they need no recording, no root and no tracefs.
 */
#ifndef DARC_TEST_TDAT_H
#define DARC_TEST_TDAT_H

#include <stddef.h>
#include <stdint.h>

#define TDAT_PAGE 4096
#define TDAT_MAXCPU 4
#define TDAT_MAXPAGES 72 /* past the reader's first run of 64 pages (fmt/prefetch.c) */

/* The one event format the builder declares: "test:tick", id 100, field "value" (s32). */
#define TDAT_TICK_ID 100

struct tdat_page {
	uint8_t data[TDAT_PAGE];
	size_t used;	 /* bytes of events written after the 16-byte header */
	uint64_t last;	 /* timestamp of the last event */
};

struct tdat {
	struct tdat_page pages[TDAT_MAXCPU][TDAT_MAXPAGES];
	int npages[TDAT_MAXCPU];
	int ncpus;
	const char *kallsyms; /* the kallsyms text, or NULL for none */
	const char *clock;    /* the trace clock in use ("mono"), or NULL: no option */
	const char *cmdlines; /* the saved cmdlines text, or NULL: "42 worker\n1 init\n" */
	/* more formats besides test:tick: the ftrace ones (funcgraph_entry, ...), a
	   NULL-terminated list (or NULL), and of other systems, one each */
	const char *const *ftrace_formats;
	struct {
		const char *system, *text;
	} formats[8];
	int nformats;
};

/* Start a recording of @ncpus CPUs (no pages yet). */
void tdat_init(struct tdat *t, int ncpus);

/* Start a new page on @cpu at time @ts; @missed > 0 stores a lost count. */
void tdat_page(struct tdat *t, int cpu, uint64_t ts, long missed);

/* Append a test:tick event (pid, flags, value) at absolute time @ts to @cpu's page. */
void tdat_tick(struct tdat *t, int cpu, uint64_t ts, int pid, uint8_t flags, int value);

/*
 * Append a record of @len bytes (common fields first, of any format) at
 * absolute time @ts to page @p, with a time extend where the gap needs one;
 * tdat_event() to @cpu's last page.
 */
void tdat_append(struct tdat_page *p, uint64_t ts, const void *rec, size_t len);
void tdat_event(struct tdat *t, int cpu, uint64_t ts, const void *rec, size_t len);

/* Write the file to @path; returns its size, or -1. */
long tdat_write(const struct tdat *t, const char *path);

#endif
