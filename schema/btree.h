/* SPDX-License-Identifier: MIT */
/*
 * btree: the rows of rowid tables written as SQLite's own b-tree pages
 * (https://www.sqlite.org/fileformat2.html) instead of through SQLite's
 * INSERT: the calls are nearly every row of a database, and SQLite spent
 * 0.7 us on each (its VDBE, a column at a time); encoding a record here
 * takes a fifth of that.
 *
 * The pages go into a page file, the file the database becomes: its first
 * pages are left for the pages SQLite writes meanwhile into a file of its
 * own (the other tables), the leaves are written after them as they fill,
 * so they reach the disk during the analysis, not all at its end. At the
 * end (btree_pagefile_head()) SQLite's pages are copied into the head, a few
 * leaves moved to make the pages follow each other (into what SQLite left
 * of the head, or out of what it needs beyond it); then each table's rows
 * that came after a larger rowid (nearly all come in order) are merged into
 * their leaves, the interior pages added, and the table's root page (which
 * SQLite made empty) made the tree's root (btree_place(), btree_build());
 * btree_pagefile_finish() fixes the header's page count. Integer (or NULL)
 * columns only, and a table's first column is its INTEGER PRIMARY KEY
 * (stored as NULL in the record, as SQLite does).
 */
#ifndef DARC_BTREE_H
#define DARC_BTREE_H

#include <stdint.h>

#include "err-msg.h"

#define BTREE_PENDING_BYTE 0x40000000 /* SQLite's lock-byte page holds this offset: never used */

/* The big-endian 4-byte integer at @p, as SQLite's file format stores them. */
static inline uint32_t btree_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct pagefile;
struct btree;

/*
 * The page file open at @fd (empty; named in messages as @path), of pages of
 * @page_size bytes (a power of 2, 512..65536), its first @reserve pages left
 * for SQLite's, the page holding byte @pending (BTREE_PENDING_BYTE but in
 * tests) never used. NULL when out of memory. The caller closes @fd.
 */
struct pagefile *btree_pagefile_new(int fd, const char *path, int page_size, uint32_t reserve,
			      int64_t pending);
void btree_pagefile_free(struct pagefile *pf);

/* A tree in @pf for table @table (named in messages) of rows of @ncols columns (2..126). */
struct btree *btree_new(struct pagefile *pf, const char *table, int ncols);

/*
 * Add the row @rowid, whose other columns are @v[1 .. ncols-1] (DARC_NULL:
 * NULL; @v[0] is not read). 0, or -1 with @err set (memory, the page file
 * cannot be written, or the rowid is the last one again: "UNIQUE
 * constraint failed", as SQLite says).
 */
int btree_append(struct btree *t, int64_t rowid, const int64_t *v, struct err_msg *err);

/* Rows added; of them, those that came after a larger rowid (merged by btree_place()). */
int64_t btree_rows(const struct btree *t);
int64_t btree_late(const struct btree *t);

/*
 * SQLite's database, @npages pages of the file @sql_fd (closed by SQLite,
 * whose page size is the page file's), into the head of @pf; leaves moved
 * so that the pages follow each other. After the last btree_append(). 0, or
 * -1 with @err set.
 */
int btree_pagefile_head(struct pagefile *pf, int sql_fd, uint32_t npages, struct err_msg *err);

/*
 * After btree_pagefile_head(): @t's last leaf written, its late rows merged into
 * its leaves (a rowid twice fails as SQLite fails it), a single leaf moved
 * to @root (the table's page in SQLite's head). Every tree's btree_place()
 * before any btree_build(). 0, or -1 with @err set.
 */
int btree_place(struct btree *t, uint32_t root, struct err_msg *err);

/* @t's interior pages, its root at @root. 0, or -1 with @err set. */
int btree_build(struct btree *t, uint32_t root, struct err_msg *err);

/* The header's page count and change counter, the file cut to its pages. 0, or -1 with @err set. */
int btree_pagefile_finish(struct pagefile *pf, struct err_msg *err);

/* Free @t (its pages stay in the page file). NULL is fine. */
void btree_free(struct btree *t);

#endif
