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

/* The one event format the builder declares: "test:tick", id 100, field "value" (s32). */
#define TDAT_TICK_ID 100

struct tdat_page {
	uint8_t data[TDAT_PAGE];
	size_t used;	 /* bytes of events written after the 16-byte header */
	uint64_t last;	 /* timestamp of the last event */
};

struct tdat {
	struct tdat_page pages[TDAT_MAXCPU][8];
	int npages[TDAT_MAXCPU];
	int ncpus;
	const char *kallsyms; /* the kallsyms text, or NULL for none */
	struct {
		const char *system, *text; /* more formats, besides test:tick */
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
 * Append an event of any format at @ts to @cpu's page: @len bytes of
 * @payload, which starts with the common fields (common_type first).
 */
void tdat_event(struct tdat *t, int cpu, uint64_t ts, const void *payload, size_t len);

/* Write the file to @path; returns its size, or -1. */
long tdat_write(const struct tdat *t, const char *path);

#endif
