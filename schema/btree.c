// SPDX-License-Identifier: MIT
/*
 * btree: a rowid table written in SQLite's file format (see btree.h). What
 * this follows of https://www.sqlite.org/fileformat2.html:
 *
 *   - a table leaf page (flag 13) holds cells in increasing order of rowid:
 *     varint payload size, varint rowid, the record; an 8-byte header
 *     (flag, first freeblock 0, cell count, start of the cell content area,
 *     fragmented bytes 0), then the cells' 2-byte offsets, the cells packed
 *     at the end of the page (a content area starting at 65536 is written 0);
 *   - a table interior page (flag 5) has a 12-byte header whose last 4 bytes
 *     are the right-most child's page number, and a cell per other child:
 *     its 4-byte page number and, as a varint, the largest rowid in it;
 *   - a record: a varint header size (counting itself), a serial type per
 *     column, then the values: 0 NULL, 8 and 9 the integers 0 and 1 (no
 *     bytes), 1-6 a big-endian integer of 1, 2, 3, 4, 6 or 8 bytes, the
 *     smallest that holds it; the INTEGER PRIMARY KEY column is NULL;
 *   - the page holding byte 2^30 of the file (the lock byte) is never used;
 *   - the header of page 1: the file change counter (offset 24), the number
 *     of pages (28, trusted only while it equals the "version valid for"
 *     number at 92).
 */
#include "btree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rows.h"

#define LEAF_HDR 8
#define INTERIOR_HDR 12
#define BATCH 16	  /* leaves written to the spill file at a time */
#define MAX_CELL 1024	  /* a record of up to 126 integers, with its varints */

/* A leaf page being filled: cells from the end, their offsets after the header. */
struct leaf {
	uint8_t *p;
	int ncells, content; /* cells, and the start of the content area */
	int64_t last;	     /* the largest rowid in it */
};

struct btree {
	char *table, *dir, *path; /* for messages; where the spill file goes; the database */
	int page_size, ncols;
	struct leaf cur;     /* the leaf being filled */
	int64_t rows;	     /* rows added */
	int64_t *maxkey;     /* of every leaf done, its largest rowid */
	uint32_t nleaves, cap;
	int fd;		     /* the spill file (the leaves done, in order), or -1 */
	uint8_t *batch;	     /* done leaves not yet in the spill file */
	int nbatch;
	int64_t *late;	     /* rows that came after a larger rowid: ncols values each */
	size_t nlate, late_cap;
};

/* A child of an interior page: its page and its largest rowid. */
struct child {
	uint32_t pgno;
	int64_t key;
};

static void leaf_reset(struct leaf *l, int size)
{
	memset(l->p, 0, size);
	l->ncells = 0;
	l->content = size;
}

/* Does a cell of @n bytes fit in @l? */
static bool leaf_fits(const struct leaf *l, int n)
{
	return LEAF_HDR + 2 * (l->ncells + 1) <= l->content - n;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Add the cell @cell (@n bytes, of @rowid) to @l, which has room (leaf_fits()). */
static void leaf_add(struct leaf *l, const uint8_t *cell, int n, int64_t rowid)
{
	l->content -= n;
	memcpy(l->p + l->content, cell, n);
	put16(l->p + LEAF_HDR + 2 * l->ncells++, (unsigned)l->content);
	l->last = rowid;
}

/* @l's header, as it stands. */
static void leaf_seal(struct leaf *l)
{
	l->p[0] = 13;
	put16(l->p + 3, (unsigned)l->ncells);
	put16(l->p + 5, l->content == 65536 ? 0 : (unsigned)l->content);
}

struct btree *btree_new(const char *table, int page_size, int ncols, const char *dir,
			const char *path)
{
	struct btree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->page_size = page_size;
	t->ncols = ncols;
	t->fd = -1;
	t->table = strdup(table);
	t->dir = strdup(dir);
	t->path = strdup(path);
	t->cur.p = calloc(1, page_size);
	t->batch = malloc((size_t)BATCH * page_size);
	t->cur.content = page_size;
	if (!t->table || !t->dir || !t->path || !t->cur.p || !t->batch) {
		btree_free(t);
		return NULL;
	}
	return t;
}

void btree_free(struct btree *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->table);
	free(t->dir);
	free(t->path);
	free(t->cur.p);
	free(t->batch);
	free(t->maxkey);
	free(t->late);
	free(t);
}

int64_t btree_rows(const struct btree *t)
{
	return t->rows;
}

int64_t btree_late(const struct btree *t)
{
	return (int64_t)t->nlate;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite's varint of @v at @p: 7 bits a byte, high bit first, the 9th byte whole. Its length. */
static int put_varint(uint8_t *p, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	if (v >> 56) { /* nine bytes: eight of 7 bits, the last of 8 */
		p[8] = (uint8_t)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--, v >>= 7)
			p[i] = (uint8_t)(v & 0x7f) | 0x80;
		return 9;
	}
	do {
		b[n++] = (uint8_t)(v & 0x7f) | 0x80;
		v >>= 7;
	} while (v);
	b[0] &= 0x7f;
	for (int i = 0; i < n; i++)
		p[i] = b[n - 1 - i];
	return n;
}

/* The varint at @p into *@v: its length. */
static int get_varint(const uint8_t *p, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < 8; i++) {
		*v = *v << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	*v = *v << 8 | p[8];
	return 9;
}

/* The serial type of integer @v (DARC_NULL: NULL), the smallest; its value's bytes in *@len. */
static int serial_type(int64_t v, int *len)
{
	static const struct {
		uint64_t max;
		int type, len;
	} sizes[] = {{0x7f, 1, 1},		   {0x7fff, 2, 2},	   {0x7fffff, 3, 3},
		     {0x7fffffff, 4, 4}, {0x7fffffffffffULL, 5, 6}, {UINT64_MAX, 6, 8}};
	uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;

	*len = 0;
	if (v == DARC_NULL)
		return 0;
	if (v == 0 || v == 1)
		return 8 + (int)v;
	for (int i = 0;; i++)
		if (u <= sizes[i].max) {
			*len = sizes[i].len;
			return sizes[i].type;
		}
}

/* The cell of row @rowid (columns @v[1..]) at @out: its length. */
static int encode_cell(uint8_t *out, int ncols, int64_t rowid, const int64_t *v)
{
	uint8_t rec[MAX_CELL];
	int hdr = 1 + ncols, at = hdr, len;

	rec[0] = (uint8_t)hdr; /* < 128: one byte, as each serial type here */
	rec[1] = 0;	       /* the INTEGER PRIMARY KEY: NULL, the rowid stands for it */
	for (int c = 1; c < ncols; c++) {
		rec[1 + c] = (uint8_t)serial_type(v[c], &len);
		for (int b = len - 1; b >= 0; b--) /* big-endian */
			rec[at++] = (uint8_t)((uint64_t)v[c] >> (8 * b));
	}
	len = put_varint(out, (uint64_t)at);
	len += put_varint(out + len, (uint64_t)rowid);
	memcpy(out + len, rec, at);
	return len + at;
}

/* The cell at offset @off of leaf @page: its rowid, and its length. */
static int cell_at(const uint8_t *page, unsigned off, int64_t *rowid)
{
	uint64_t size, id;
	int a = get_varint(page + off, &size), b = get_varint(page + off + a, &id);

	*rowid = (int64_t)id;
	return a + b + (int)size;
}

/* Write @n bytes at @off of @fd, or -1 with @err set ("cannot write @what"). */
static int pwrite_all(int fd, const void *p, size_t n, off_t off, const char *path,
		      const char *what, struct fmt_err *err)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(fd, (const char *)p + done, n - done, off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fmt_errf(err, path, "cannot write %s: %s", what,
					w < 0 ? strerror(errno) : "no space");
		done += (size_t)w;
	}
	return 0;
}

/* An anonymous file in @t's directory for the leaves (none is left behind, whatever happens). */
static int spill_open(struct btree *t, struct fmt_err *err)
{
	char *name;

	t->fd = open(t->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t->fd >= 0)
		return 0;
	/* a file system without O_TMPFILE: a named file, unlinked at once */
	name = malloc(strlen(t->dir) + 32);
	if (!name)
		return fmt_errf(err, t->path, "out of memory");
	sprintf(name, "%s/.darc-calls-XXXXXX", t->dir);
	t->fd = mkostemp(name, O_CLOEXEC);
	if (t->fd >= 0)
		unlink(name);
	free(name);
	return t->fd >= 0 ? 0
			  : fmt_errf(err, t->path, "cannot make a file for the calls in '%s': %s",
				     t->dir, strerror(errno));
}

/* The done leaves of the batch into the spill file. */
static int batch_flush(struct btree *t, struct fmt_err *err)
{
	off_t off = (off_t)(t->nleaves - t->nbatch) * t->page_size;

	if (!t->nbatch)
		return 0;
	if (t->fd < 0 && spill_open(t, err))
		return -1;
	if (pwrite_all(t->fd, t->batch, (size_t)t->nbatch * t->page_size, off, t->path,
		       "the calls", err))
		return -1;
	t->nbatch = 0;
	return 0;
}

/* The current leaf is full: it joins the done leaves, and a new one starts. */
static int leaf_done(struct btree *t, struct fmt_err *err)
{
	if (t->nleaves == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 256;
		int64_t *k = realloc(t->maxkey, cap * sizeof(*k));

		if (!k)
			return fmt_errf(err, t->path, "out of memory");
		t->maxkey = k;
		t->cap = cap;
	}
	leaf_seal(&t->cur);
	memcpy(t->batch + (size_t)t->nbatch * t->page_size, t->cur.p, t->page_size);
	t->maxkey[t->nleaves++] = t->cur.last;
	t->nbatch++;
	leaf_reset(&t->cur, t->page_size);
	return t->nbatch == BATCH ? batch_flush(t, err) : 0;
}

/* Keep row @v of @rowid, which comes after a larger one, for btree_finish(). 0 or -1. */
static int keep_late(struct btree *t, int64_t rowid, const int64_t *v, struct fmt_err *err)
{
	int64_t *row;

	if (t->nlate == t->late_cap) {
		size_t cap = t->late_cap ? 2 * t->late_cap : 64;
		int64_t *l = realloc(t->late, cap * t->ncols * sizeof(*l));

		if (!l)
			return fmt_errf(err, t->path, "out of memory");
		t->late = l;
		t->late_cap = cap;
	}
	row = t->late + t->nlate++ * t->ncols;
	memcpy(row, v, t->ncols * sizeof(*v));
	row[0] = rowid;
	t->rows++;
	return 0;
}

/* The error of a rowid added twice, as SQLite says it. -1. */
static int twice(const struct btree *t, struct fmt_err *err)
{
	return fmt_errf(err, t->path, "cannot write to table %s: UNIQUE constraint failed: %s.id",
			t->table, t->table);
}

int btree_append(struct btree *t, int64_t rowid, const int64_t *v, struct fmt_err *err)
{
	int64_t last = !t->rows ? 0 : t->cur.ncells ? t->cur.last : t->maxkey[t->nleaves - 1];
	uint8_t cell[MAX_CELL];
	int n;

	if (t->rows && rowid == last) /* the same again: at once (any other, btree_finish()) */
		return twice(t, err);
	if (t->rows && rowid < last)
		return keep_late(t, rowid, v, err);
	n = encode_cell(cell, t->ncols, rowid, v);
	if (!leaf_fits(&t->cur, n) && leaf_done(t, err))
		return -1;
	leaf_add(&t->cur, cell, n, rowid);
	t->rows++;
	return 0;
}

/* The next page number for a page of the tree: the lock-byte page is skipped. */
static uint32_t next_page(uint32_t *next, uint32_t pending_pg)
{
	if (*next == pending_pg)
		++*next;
	return (*next)++;
}

/* @len bytes from @in at @off_in to @out at @off_out: in the kernel where it can, else by hand. */
static int copy_range(int in, off_t off_in, int out, off_t off_out, size_t len, const char *path,
		      struct fmt_err *err)
{
	static char buf[1 << 20];

	while (len) {
		ssize_t n = copy_file_range(in, &off_in, out, &off_out, len, 0);

		if (n > 0) {
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || !(errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				errno == EOPNOTSUPP || errno == EBADF))
			return fmt_errf(err, path, "cannot write the calls: %s",
					n < 0 ? strerror(errno) : "short copy");
		n = pread(in, buf, len < sizeof(buf) ? len : sizeof(buf), off_in); /* by hand */
		if (n <= 0 || pwrite_all(out, buf, (size_t)n, off_out, path, "the calls", err))
			return n <= 0 ? fmt_errf(err, path, "cannot read back the calls") : -1;
		off_in += n;
		off_out += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Where btree_finish() puts the leaves: from page @next on (around the
 * lock-byte page), each leaf of the spill file copied as it is (a run of
 * them in one copy), or made anew where late rows go in; @kids gets each
 * leaf's page and largest rowid, in order.
 */
struct placer {
	struct btree *t;
	int fd;
	uint32_t next, pending_pg;
	struct child *kids;
	uint32_t nkids, cap;
	uint32_t run_first, run_n, run_pg; /* spill leaves [first, first + n) go to pages run_pg.. */
	struct fmt_err *err;
};

/* The run of leaves to copy, copied. 0 or -1. */
static int run_flush(struct placer *pl)
{
	const int ps = pl->t->page_size;
	int rc = !pl->run_n ? 0
			    : copy_range(pl->t->fd, (off_t)pl->run_first * ps, pl->fd,
					 (off_t)(pl->run_pg - 1) * ps, (size_t)pl->run_n * ps,
					 pl->t->path, pl->err);

	pl->run_n = 0;
	return rc;
}

/* A page number for the next leaf, whose largest rowid is @key, into the children. */
static uint32_t place(struct placer *pl, int64_t key)
{
	if (pl->nkids == pl->cap) {
		uint32_t cap = pl->cap ? 2 * pl->cap : 256;
		struct child *k = realloc(pl->kids, cap * sizeof(*k));

		if (!k)
			return fmt_errf(pl->err, pl->t->path, "out of memory"), 0;
		pl->kids = k;
		pl->cap = cap;
	}
	pl->kids[pl->nkids] = (struct child){next_page(&pl->next, pl->pending_pg), key};
	return pl->kids[pl->nkids++].pgno;
}

/* Spill leaf @k, as it is. 0 or -1. */
static int place_copy(struct placer *pl, uint32_t k)
{
	uint32_t pg = place(pl, pl->t->maxkey[k]);

	if (!pg)
		return -1;
	if (pl->run_n && k == pl->run_first + pl->run_n && pg == pl->run_pg + pl->run_n) {
		pl->run_n++;
		return 0;
	}
	if (run_flush(pl))
		return -1;
	pl->run_first = k;
	pl->run_pg = pg;
	pl->run_n = 1;
	return 0;
}

/* The leaf @l, made anew. 0 or -1. */
static int place_page(struct placer *pl, struct leaf *l)
{
	uint32_t pg;

	if (run_flush(pl) || !(pg = place(pl, l->last)))
		return -1;
	leaf_seal(l);
	return pwrite_all(pl->fd, l->p, pl->t->page_size, (off_t)(pg - 1) * pl->t->page_size,
			  pl->t->path, "the calls", pl->err);
}

/* Add cell @cell (@n bytes, of @rowid) to the leaf @b being made, placing it first if full. */
static int merge_add(struct placer *pl, struct leaf *b, const uint8_t *cell, int n, int64_t rowid)
{
	if (b->ncells && rowid <= b->last)
		return twice(pl->t, pl->err);
	if (!leaf_fits(b, n)) {
		if (place_page(pl, b))
			return -1;
		leaf_reset(b, pl->t->page_size);
	}
	leaf_add(b, cell, n, rowid);
	return 0;
}

/*
 * Spill leaf @k with the late rows from *@li whose rowids are not beyond its
 * largest, in order, as leaves made anew (@in and @b: a page each). 0 or -1.
 */
static int place_merged(struct placer *pl, uint32_t k, size_t *li, uint8_t *in, struct leaf *b)
{
	struct btree *t = pl->t;
	uint8_t cell[MAX_CELL];
	unsigned i = 0, ncells;

	if (pread(t->fd, in, t->page_size, (off_t)k * t->page_size) != t->page_size)
		return fmt_errf(pl->err, t->path, "cannot read back the calls");
	ncells = get16(in + 3);
	leaf_reset(b, t->page_size);
	while (i < ncells || (*li < t->nlate && t->late[*li * t->ncols] <= t->maxkey[k])) {
		int64_t id = INT64_MAX, *row = t->late + *li * t->ncols;
		unsigned off = i < ncells ? get16(in + LEAF_HDR + 2 * i) : 0;
		int n = i < ncells ? cell_at(in, off, &id) : 0;

		if (*li < t->nlate && row[0] <= t->maxkey[k] && row[0] <= id) {
			n = encode_cell(cell, t->ncols, row[0], row);
			id = row[0];
			++*li;
		} else {
			memcpy(cell, in + off, n);
			i++;
		}
		if (merge_add(pl, b, cell, n, id))
			return -1;
	}
	return b->ncells ? place_page(pl, b) : 0;
}

static int by_rowid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Every leaf into @pl->fd, the late rows merged in. 0 or -1. */
static int place_leaves(struct placer *pl)
{
	struct btree *t = pl->t;
	uint8_t *in = malloc(t->page_size), *out = calloc(1, t->page_size);
	struct leaf b = {out, 0, t->page_size, 0};
	size_t li = 0;
	int rc = in && out ? 0 : fmt_errf(pl->err, t->path, "out of memory");

	qsort(t->late, t->nlate, t->ncols * sizeof(*t->late), by_rowid);
	for (uint32_t k = 0; k < t->nleaves && !rc; k++)
		rc = li < t->nlate && t->late[li * t->ncols] <= t->maxkey[k]
			     ? place_merged(pl, k, &li, in, &b)
			     : place_copy(pl, k);
	if (!rc)
		rc = run_flush(pl);
	free(in);
	free(out);
	return rc;
}

/* An interior page over @kids[0 .. n-1] at @page: the last is the right-most child. */
static void interior_page(uint8_t *page, int size, const struct child *kids, int n)
{
	int content = size;

	memset(page, 0, size);
	page[0] = 5;
	put16(page + 3, (unsigned)(n - 1));
	put32(page + 8, kids[n - 1].pgno);
	for (int i = 0; i < n - 1; i++) {
		uint8_t cell[13];
		int len = 4;

		put32(cell, kids[i].pgno);
		len += put_varint(cell + 4, (uint64_t)kids[i].key);
		content -= len;
		memcpy(page + content, cell, len);
		put16(page + INTERIOR_HDR + 2 * i, (unsigned)content);
	}
	put16(page + 5, content == 65536 ? 0 : (unsigned)content);
}

/*
 * The interior levels over @pl's children (rewritten level by level): every
 * page but the root placed, the root at @root. Children are spread evenly,
 * so every interior page has two or more. A single leaf moves to @root, and
 * the file is cut back to the pages before it. 0 or -1.
 */
static int build_levels(struct placer *pl, uint32_t root, uint32_t npages, uint8_t *page)
{
	/* a cell is at most 4 + 9 bytes and its 2-byte offset */
	const int ps = pl->t->page_size;
	const uint32_t cap = (uint32_t)(ps - INTERIOR_HDR) / 15;
	struct child *kids = pl->kids;
	uint32_t n = pl->nkids;

	if (n == 1) {
		if (pread(pl->fd, page, ps, (off_t)(kids[0].pgno - 1) * ps) != ps ||
		    ftruncate(pl->fd, (off_t)npages * ps) < 0)
			return fmt_errf(pl->err, pl->t->path, "cannot move the calls' page");
		pl->next = npages + 1;
		return pwrite_all(pl->fd, page, ps, (off_t)(root - 1) * ps, pl->t->path,
				  "the calls", pl->err);
	}
	while (n > 1) {
		uint32_t pages = (n + cap - 1) / cap, at = 0;

		for (uint32_t p = 0; p < pages; p++) {
			uint32_t m = n / pages + (p < n % pages), pgno;

			interior_page(page, ps, kids + at, (int)m);
			pgno = pages == 1 ? root : next_page(&pl->next, pl->pending_pg);
			if (pwrite_all(pl->fd, page, ps, (off_t)(pgno - 1) * ps, pl->t->path,
				       "the calls", pl->err))
				return -1;
			kids[p] = (struct child){pgno, kids[at + m - 1].key};
			at += m;
		}
		n = pages;
	}
	return 0;
}

/* Page 1's header: @npages pages, and a new change counter (also what the count is valid for). */
static int fix_header(int fd, uint32_t npages, const char *path, struct fmt_err *err)
{
	uint8_t h[100];
	uint32_t change;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return fmt_errf(err, path, "cannot read its header back");
	change = get32(h + 24) + 1;
	put32(h + 24, change);
	put32(h + 28, npages);
	put32(h + 92, change);
	return pwrite_all(fd, h, sizeof(h), 0, path, "its header", err);
}

int btree_finish(struct btree *t, int fd, uint32_t root, uint32_t *npages, int64_t pending,
		 struct fmt_err *err)
{
	struct placer pl = {t, fd, *npages + 1, (uint32_t)(pending / t->page_size) + 1};
	int rc;

	pl.err = err;
	if (!t->rows)
		return 0;
	leaf_seal(&t->cur);
	if (!t->nleaves && !t->nlate) /* one leaf: it is the root */
		return pwrite_all(fd, t->cur.p, t->page_size, (off_t)(root - 1) * t->page_size,
				  t->path, "the calls", err);
	if ((t->cur.ncells && leaf_done(t, err)) || batch_flush(t, err))
		return -1;
	rc = place_leaves(&pl);
	if (!rc)
		rc = build_levels(&pl, root, *npages, t->cur.p);
	free(pl.kids);
	if (!rc && !(rc = fix_header(fd, pl.next - 1, t->path, err)))
		*npages = pl.next - 1;
	return rc;
}
