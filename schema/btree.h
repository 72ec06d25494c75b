/* SPDX-License-Identifier: MIT */
/*
 * btree: the rows of one rowid table written as SQLite's own b-tree pages
 * (https://www.sqlite.org/fileformat2.html) instead of through SQLite's
 * INSERT: the calls are nearly every row of a database, and SQLite spent
 * 0.7 us on each (its VDBE, a column at a time); encoding a record here
 * takes a fifth of that. Rows come in increasing order of rowid, nearly all:
 * the leaves are filled and kept in a file of their own (anonymous, in the
 * database's directory) as they come, and the few rows that come after a
 * larger rowid wait in memory. btree_finish() then puts the leaves after the
 * pages SQLite wrote, those rows merged into theirs, adds the interior
 * pages over them, makes the table's root page (which SQLite made empty)
 * the tree's root, and fixes the database header's page count. Integer (or
 * NULL) columns only, and the table's first column is its INTEGER PRIMARY
 * KEY (stored as NULL in the record, as SQLite does).
 */
#ifndef DARC_BTREE_H
#define DARC_BTREE_H

#include <stdint.h>

#include "fmt.h"

#define BTREE_PENDING_BYTE 0x40000000 /* SQLite's lock-byte page holds this offset: never used */

struct btree;

/*
 * A tree for table @table (named in messages, with the database @path) of
 * rows of @ncols columns (2..126), for pages of @page_size bytes (a power of
 * 2, 512..65536), its spill file to be made in directory @dir. NULL when out
 * of memory.
 */
struct btree *btree_new(const char *table, int page_size, int ncols, const char *dir,
			const char *path);

/*
 * Add the row @rowid, whose other columns are @v[1 .. ncols-1] (DARC_NULL:
 * NULL; @v[0] is not read). 0, or -1 with @err set (memory, or the spill
 * file cannot be written).
 */
int btree_append(struct btree *t, int64_t rowid, const int64_t *v, struct fmt_err *err);

/* Rows added; of them, those that came after a larger rowid (merged by btree_finish()). */
int64_t btree_rows(const struct btree *t);
int64_t btree_late(const struct btree *t);

/*
 * Put the tree into the database file @fd, which holds *@npages pages of
 * SQLite's and no open connection: the leaves after them (skipping the
 * lock-byte page at @pending, BTREE_PENDING_BYTE but in tests), the interior
 * pages after those, the root at page @root (the table's empty root leaf),
 * and the header's page count (*@npages, updated) and change counter. A tree
 * without rows leaves the file as it is. 0, or -1 with @err set (a rowid
 * added twice fails as SQLite would: "UNIQUE constraint failed").
 */
int btree_finish(struct btree *t, int fd, uint32_t root, uint32_t *npages, int64_t pending,
		 struct fmt_err *err);

/* Free @t and its spill file. NULL is fine. */
void btree_free(struct btree *t);

#endif
