/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: the ftrace text reader's block events (text-block.c):
 * their printed fields, formats and records.
 */
#ifndef DARC_TEXT_BLOCK_H
#define DARC_TEXT_BLOCK_H

#include "text-line.h"

/*
 * A block event the reader knows the fields of (text-block.c), in its 6.1
 * format or, where the text prints the I/O priority, 6.18's.
 */
struct tblock_event {
	const char *name;
	int id;
	int shape;
	const char *format; /* the format text */
	size_t format_len;
	bool ioprio;	    /* the layout with the I/O priority */
};

/* A block event's printed fields; spans point into the line. */
struct tblock {
	uint32_t dev; /* (major << 20) | minor */
	uint64_t sector;
	uint32_t nr_sector, bytes;
	int32_t error;
	uint16_t ioprio;
	struct text_span rwbs, cmd, tail; /* tail: comm, or the error's digits */
};

/* All the block events known, @n of them, in the layout with or without @ioprio. */
const struct tblock_event *tblock_events(int *n, bool ioprio);

/* The block event named @name, or NULL. */
const struct tblock_event *tblock_find(struct text_span name, bool ioprio);

/* Parse @e's printed fields. 0, or -1 if they are not of its shape. */
int tblock_parse(const struct tblock_event *e, struct text_span fields, struct tblock *b);

/* Bytes of the record, and its fields written into @rec (zeroed, that long). */
int tblock_size(const struct tblock_event *e, const struct tblock *b);
void tblock_fill(uint8_t *rec, const struct tblock_event *e, const struct tblock *b);

#endif
