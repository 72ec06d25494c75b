// SPDX-License-Identifier: MIT
/*
 * btree: rowid tables written in SQLite's file format (see btree.h). What
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
#define BATCH 16	  /* leaves written to the page file at a time */
#define MAX_CELL 1024	  /* a record of up to 126 integers, with its varints */
#define SLACK 64	  /* a leaf's 64th left free as the rows come: late rows go in there */

/* A leaf page being filled: cells from the end, their offsets after the header. */
struct leaf {
	uint8_t *p;
	int ncells, content; /* cells, and the start of the content area */
	int64_t last;	     /* the largest rowid in it */
};

/* What a page of the page file above SQLite's holds: a leaf of a tree, or nothing. */
struct owner {
	struct btree *t; /* NULL: no page of a tree */
	uint32_t leaf;	 /* the leaf's index in t */
};

struct pagefile {
	int fd, page_size;
	const char *path;    /* for messages */
	uint32_t reserve;    /* pages 1 .. reserve are SQLite's (btree_pagefile_head()) */
	uint32_t pending_pg; /* the lock-byte page */
	uint32_t next;	     /* the first page not written */
	struct owner *owner; /* by page number - 1, up to next */
	uint32_t owner_cap;
	uint8_t *buf;	     /* a page, for moves */
};

struct btree {
	struct pagefile *pf;
	char *table;
	int ncols;
	struct leaf cur;     /* the leaf being filled */
	int64_t rows;	     /* rows added */
	int64_t *maxkey;     /* of every leaf done, its largest rowid, */
	uint32_t *pgno;	     /* and its page */
	uint32_t nleaves, cap;
	uint8_t *batch;	     /* done leaves not yet written */
	int nbatch;
	int64_t *late;	     /* rows that came after a larger rowid: ncols values each */
	size_t nlate, late_cap;
	struct child *kids;  /* btree_place(): every leaf's page and largest rowid, in order */
	uint32_t nkids, kids_cap;
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

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
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
		      const char *what, struct err_msg *err)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(fd, (const char *)p + done, n - done, off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_setf(err, path, "cannot write %s: %s", what,
					w < 0 ? strerror(errno) : "no space");
		done += (size_t)w;
	}
	return 0;
}

/* @len bytes from @in at @off_in to @out at @off_out: in the kernel where it can, else by hand. */
static int copy_range(int in, off_t off_in, int out, off_t off_out, size_t len, const char *path,
		      struct err_msg *err)
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
			return err_setf(err, path, "cannot write the calls: %s",
					n < 0 ? strerror(errno) : "short copy");
		n = pread(in, buf, len < sizeof(buf) ? len : sizeof(buf), off_in); /* by hand */
		if (n <= 0 || pwrite_all(out, buf, (size_t)n, off_out, path, "the calls", err))
			return n <= 0 ? err_setf(err, path, "cannot read back the calls") : -1;
		off_in += n;
		off_out += n;
		len -= (size_t)n;
	}
	return 0;
}


struct pagefile *btree_pagefile_new(int fd, const char *path, int page_size, uint32_t reserve,
			      int64_t pending)
{
	struct pagefile *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->fd = fd;
	pf->path = path;
	pf->page_size = page_size;
	pf->reserve = reserve;
	pf->pending_pg = (uint32_t)(pending / page_size) + 1;
	pf->next = reserve + 1;
	pf->buf = malloc(page_size);
	if (!pf->buf) {
		free(pf);
		return NULL;
	}
	return pf;
}

void btree_pagefile_free(struct pagefile *pf)
{
	if (pf) {
		free(pf->owner);
		free(pf->buf);
		free(pf);
	}
}

/* A new page at the end, for leaf @leaf of @t (NULL: an interior page). 0 when out of memory. */
static uint32_t page_new(struct pagefile *pf, struct btree *t, uint32_t leaf)
{
	uint32_t pg;

	if (pf->next == pf->pending_pg)
		pf->next++;
	pg = pf->next;
	if (pg > pf->owner_cap) {
		uint32_t cap = pf->owner_cap ? 2 * pf->owner_cap : 1024;
		struct owner *o;

		while (cap < pg)
			cap *= 2;
		if (!(o = realloc(pf->owner, cap * sizeof(*o))))
			return 0;
		memset(o + pf->owner_cap, 0, (cap - pf->owner_cap) * sizeof(*o));
		pf->owner = o;
		pf->owner_cap = cap;
	}
	pf->owner[pg - 1] = (struct owner){t, leaf};
	pf->next++;
	return pg;
}

/* Page @pg's bytes, from @p. 0 or -1. */
static int page_write(struct pagefile *pf, uint32_t pg, const void *p, struct err_msg *err)
{
	return pwrite_all(pf->fd, p, pf->page_size, (off_t)(pg - 1) * pf->page_size, pf->path,
			  "the calls", err);
}

/* The leaf at page @from to page @to (and what owns it). 0 or -1. */
static int page_move(struct pagefile *pf, uint32_t from, uint32_t to, struct err_msg *err)
{
	struct owner o = pf->owner[from - 1];

	if (pread(pf->fd, pf->buf, pf->page_size, (off_t)(from - 1) * pf->page_size) !=
		    pf->page_size ||
	    page_write(pf, to, pf->buf, err))
		return err_setf(err, pf->path, "cannot move a page of the calls");
	pf->owner[to - 1] = o;
	pf->owner[from - 1] = (struct owner){NULL, 0};
	o.t->pgno[o.leaf] = to;
	return 0;
}

/* Does page @pg hold a leaf (of those written before btree_pagefile_head())? */
static bool owned(const struct pagefile *pf, uint32_t pg)
{
	return pg >= 1 && pg <= pf->owner_cap && pf->owner[pg - 1].t;
}

/* The last page of a leaf, 0 if none is above @above. */
static uint32_t last_leaf(const struct pagefile *pf, uint32_t above)
{
	for (uint32_t pg = pf->next - 1; pg > above; pg--)
		if (owned(pf, pg))
			return pg;
	return 0;
}

/* Fill the pages after @from with the last leaves, and end the file after the last. 0 or -1. */
static int close_gap(struct pagefile *pf, uint32_t from, struct err_msg *err)
{
	uint32_t g = from + 1, q;

	for (; (q = last_leaf(pf, g)); g++) {
		if (g == pf->pending_pg || owned(pf, g))
			continue;
		if (page_move(pf, q, g, err))
			return -1;
	}
	q = last_leaf(pf, 0);
	pf->next = (q > from ? q : from) + 1;
	return 0;
}

int btree_pagefile_head(struct pagefile *pf, int sql_fd, uint32_t npages, struct err_msg *err)
{
	const int ps = pf->page_size;
	uint32_t end = pf->next;

	/* SQLite needs more than the head: the leaves in its pages go after them */
	if (pf->next <= npages)
		pf->next = npages + 1;
	for (uint32_t pg = pf->reserve + 1; pg <= npages && pg < end; pg++) {
		uint32_t to;

		if (!owned(pf, pg))
			continue;
		if (!(to = page_new(pf, NULL, 0)))
			return err_setf(err, pf->path, "out of memory");
		if (page_move(pf, pg, to, err))
			return -1;
	}
	if (copy_range(sql_fd, 0, pf->fd, 0, (size_t)npages * ps, pf->path, err))
		return -1;
	return close_gap(pf, npages, err);
}

int btree_pagefile_finish(struct pagefile *pf, struct err_msg *err)
{
	uint8_t h[100];
	uint32_t change, npages = pf->next - 1;

	if (pread(pf->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return err_setf(err, pf->path, "cannot read its header back");
	change = btree_get32(h + 24) + 1;
	put32(h + 24, change);
	put32(h + 28, npages);
	put32(h + 92, change);
	if (pwrite_all(pf->fd, h, sizeof(h), 0, pf->path, "its header", err))
		return -1;
	if (ftruncate(pf->fd, (off_t)npages * pf->page_size) < 0)
		return err_setf(err, pf->path, "cannot write it: %s", strerror(errno));
	return 0;
}

struct btree *btree_new(struct pagefile *pf, const char *table, int ncols)
{
	struct btree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pf = pf;
	t->ncols = ncols;
	t->table = strdup(table);
	t->cur.p = calloc(1, pf->page_size);
	t->batch = malloc((size_t)BATCH * pf->page_size);
	t->cur.content = pf->page_size;
	if (!t->table || !t->cur.p || !t->batch) {
		btree_free(t);
		return NULL;
	}
	return t;
}

void btree_free(struct btree *t)
{
	if (!t)
		return;
	free(t->table);
	free(t->cur.p);
	free(t->batch);
	free(t->maxkey);
	free(t->pgno);
	free(t->late);
	free(t->kids);
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

/* The done leaves of the batch into the page file, each at a page of its own. 0 or -1. */
static int batch_flush(struct btree *t, struct err_msg *err)
{
	struct pagefile *pf = t->pf;
	uint32_t first = t->nleaves - t->nbatch;

	for (int i = 0; i < t->nbatch;) {
		int n = 1;

		if (!(t->pgno[first + i] = page_new(pf, t, first + i)))
			return err_setf(err, pf->path, "out of memory");
		/* the pages that follow it, in one write */
		while (i + n < t->nbatch && pf->next != pf->pending_pg) {
			t->pgno[first + i + n] = page_new(pf, t, first + i + n);
			if (!t->pgno[first + i + n])
				return err_setf(err, pf->path, "out of memory");
			n++;
		}
		if (pwrite_all(pf->fd, t->batch + (size_t)i * pf->page_size,
			       (size_t)n * pf->page_size,
			       (off_t)(t->pgno[first + i] - 1) * pf->page_size, pf->path, "the calls",
			       err))
			return -1;
		i += n;
	}
	t->nbatch = 0;
	return 0;
}

/* The current leaf is full: it joins the done leaves, and a new one starts. */
static int leaf_done(struct btree *t, struct err_msg *err)
{
	const int ps = t->pf->page_size;

	if (t->nleaves == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 256;
		int64_t *k = realloc(t->maxkey, cap * sizeof(*k));
		uint32_t *g = k ? realloc(t->pgno, cap * sizeof(*g)) : NULL;

		if (k)
			t->maxkey = k;
		if (!g)
			return err_setf(err, t->pf->path, "out of memory");
		t->pgno = g;
		t->cap = cap;
	}
	leaf_seal(&t->cur);
	memcpy(t->batch + (size_t)t->nbatch * ps, t->cur.p, ps);
	t->maxkey[t->nleaves++] = t->cur.last;
	t->nbatch++;
	leaf_reset(&t->cur, ps);
	return t->nbatch == BATCH ? batch_flush(t, err) : 0;
}

/* Keep row @v of @rowid, which comes after a larger one, for btree_place(). 0 or -1. */
static int keep_late(struct btree *t, int64_t rowid, const int64_t *v, struct err_msg *err)
{
	int64_t *row;

	if (t->nlate == t->late_cap) {
		size_t cap = t->late_cap ? 2 * t->late_cap : 64;
		int64_t *l = realloc(t->late, cap * t->ncols * sizeof(*l));

		if (!l)
			return err_setf(err, t->pf->path, "out of memory");
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
static int twice(const struct btree *t, struct err_msg *err)
{
	return err_setf(err, t->pf->path, "cannot write to table %s: UNIQUE constraint failed:"
			" %s.id", t->table, t->table);
}

int btree_append(struct btree *t, int64_t rowid, const int64_t *v, struct err_msg *err)
{
	int64_t last = !t->rows ? 0 : t->cur.ncells ? t->cur.last : t->maxkey[t->nleaves - 1];
	uint8_t cell[MAX_CELL];
	int n;

	if (t->rows && rowid == last) /* the same again: at once (any other, btree_place()) */
		return twice(t, err);
	if (t->rows && rowid < last)
		return keep_late(t, rowid, v, err);
	n = encode_cell(cell, t->ncols, rowid, v);
	if (!leaf_fits(&t->cur, n + t->pf->page_size / SLACK) && leaf_done(t, err))
		return -1;
	leaf_add(&t->cur, cell, n, rowid);
	t->rows++;
	return 0;
}

/* @t's leaf at @pg (0: a new page at the end), largest rowid @key, into its children. */
static uint32_t kid(struct btree *t, uint32_t pg, int64_t key)
{
	if (t->nkids == t->kids_cap) {
		uint32_t cap = t->kids_cap ? 2 * t->kids_cap : 256;
		struct child *k = realloc(t->kids, cap * sizeof(*k));

		if (!k)
			return 0;
		t->kids = k;
		t->kids_cap = cap;
	}
	if (!pg && !(pg = page_new(t->pf, NULL, 0)))
		return 0;
	t->kids[t->nkids++] = (struct child){pg, key};
	return pg;
}

/* The leaf @l, made anew, at page @pg (0: at the end). 0 or -1. */
static int put_leaf(struct btree *t, uint32_t pg, struct leaf *l, struct err_msg *err)
{
	if (!(pg = kid(t, pg, l->last)))
		return err_setf(err, t->pf->path, "out of memory");
	leaf_seal(l);
	return page_write(t->pf, pg, l->p, err);
}

/*
 * The merge of the late rows (btree_place()): the cells in order of rowid,
 * each leaf's own and the late rows between, filled into leaves made anew,
 * each written over the leaf it replaces; what does not fit in one goes
 * over (@carry, in order) to the next. The slack left in every leaf
 * (btree_append()) takes a few late rows, so that the carry ends soon.
 */
struct merge {
	struct btree *t;
	struct leaf b;	    /* the leaf being made */
	uint8_t *carry;	    /* cells for the next leaf, one after another */
	size_t ncarry, carry_cap;
	uint8_t *next;	    /* the next carry, filled as b is */
	size_t nnext, next_cap;
	int64_t prev;	    /* the last rowid in order, for rowids twice */
	size_t li;	    /* the next late row */
	struct err_msg *err;
};

/* Append @n bytes of @cell to the byte list *@p (*@len used, *@cap allocated). 0 or -1. */
static int bytes_add(uint8_t **p, size_t *len, size_t *cap, const uint8_t *cell, int n)
{
	if (*len + n > *cap) {
		size_t c = *cap ? 2 * *cap : 4096;
		uint8_t *q;

		while (c < *len + n)
			c *= 2;
		if (!(q = realloc(*p, c)))
			return -1;
		*p = q;
		*cap = c;
	}
	memcpy(*p + *len, cell, n);
	*len += n;
	return 0;
}

/* The next cell in order into the leaf being made, or the next carry once it is full. */
static int merge_cell(struct merge *m, const uint8_t *cell, int n, int64_t rowid)
{
	if (rowid <= m->prev)
		return twice(m->t, m->err);
	m->prev = rowid;
	if (!m->nnext && leaf_fits(&m->b, n)) {
		leaf_add(&m->b, cell, n, rowid);
		return 0;
	}
	return bytes_add(&m->next, &m->nnext, &m->next_cap, cell, n)
		       ? err_setf(m->err, m->t->pf->path, "out of memory")
		       : 0;
}

/* The carry, then the cells of leaf @in and the late rows up to @max, in order. 0 or -1. */
static int merge_cells(struct merge *m, const uint8_t *in, int64_t max)
{
	struct btree *t = m->t;
	uint8_t cell[MAX_CELL];
	unsigned i = 0, ncells = in ? get16(in + 3) : 0;
	int rc = 0;

	for (size_t at = 0; at < m->ncarry && !rc;) {
		int64_t id;
		int n = cell_at(m->carry, (unsigned)at, &id);

		m->prev = INT64_MIN; /* the carry is in order, and below the rest */
		rc = merge_cell(m, m->carry + at, n, id);
		at += n;
	}
	while (!rc && (i < ncells || (m->li < t->nlate && t->late[m->li * t->ncols] <= max))) {
		int64_t id = INT64_MAX, *row = t->late + m->li * t->ncols;
		unsigned off = i < ncells ? get16(in + LEAF_HDR + 2 * i) : 0;
		int n = i < ncells ? cell_at(in, off, &id) : 0;

		if (m->li < t->nlate && row[0] <= max && row[0] <= id) {
			n = encode_cell(cell, t->ncols, row[0], row);
			id = row[0];
			m->li++;
			rc = merge_cell(m, cell, n, id);
		} else {
			rc = merge_cell(m, in + off, n, id);
			i++;
		}
	}
	return rc;
}

/* The leaf made into page @pg (0: a new one at the end); the next carry becomes the carry. */
static int merge_put(struct merge *m, uint32_t pg)
{
	uint8_t *c = m->carry;
	size_t cap = m->carry_cap;

	if (m->b.ncells && put_leaf(m->t, pg, &m->b, m->err))
		return -1;
	leaf_reset(&m->b, m->t->pf->page_size);
	m->carry = m->next;
	m->ncarry = m->nnext;
	m->carry_cap = m->next_cap;
	m->next = c;
	m->nnext = 0;
	m->next_cap = cap;
	return 0;
}

static int by_rowid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Every leaf into @t's children, in order, the late rows merged in. 0 or -1. */
static int place_leaves(struct btree *t, struct err_msg *err)
{
	const int ps = t->pf->page_size;
	uint8_t *in = malloc(ps);
	struct merge m = {t, {calloc(1, ps), 0, ps, 0}};
	int rc = in && m.b.p ? 0 : err_setf(err, t->pf->path, "out of memory");

	m.err = err;
	m.prev = INT64_MIN;
	for (uint32_t k = 0; k < t->nleaves && !rc; k++) {
		if (!m.ncarry && (m.li >= t->nlate || t->late[m.li * t->ncols] > t->maxkey[k])) {
			if (!kid(t, t->pgno[k], t->maxkey[k])) /* as it is */
				rc = err_setf(err, t->pf->path, "out of memory");
			m.prev = t->maxkey[k];
			continue;
		}
		if (pread(t->pf->fd, in, ps, (off_t)(t->pgno[k] - 1) * ps) != ps)
			rc = err_setf(err, t->pf->path, "cannot read back the calls");
		else if (!(rc = merge_cells(&m, in, t->maxkey[k])))
			rc = merge_put(&m, t->pgno[k]);
	}
	while (!rc && m.ncarry) /* what the last leaf could not take: leaves at the end */
		if (!(rc = merge_cells(&m, NULL, INT64_MIN)))
			rc = merge_put(&m, 0);
	free(in);
	free(m.b.p);
	free(m.carry);
	free(m.next);
	return rc;
}

/* Do the current leaf's cells and the late rows fit in one page? */
static bool one_leaf(const struct btree *t)
{
	uint8_t cell[MAX_CELL];
	int used = t->pf->page_size - t->cur.content + 2 * t->cur.ncells;

	for (size_t i = 0; i < t->nlate; i++)
		used += encode_cell(cell, t->ncols, t->late[i * t->ncols], t->late + i * t->ncols) + 2;
	return LEAF_HDR + used <= t->pf->page_size;
}

int btree_place(struct btree *t, uint32_t root, struct err_msg *err)
{
	if (!t->rows)
		return 0;
	leaf_seal(&t->cur);
	if (t->nlate) /* qsort() of NULL is undefined even for no rows (UBSan) */
		qsort(t->late, t->nlate, t->ncols * sizeof(*t->late), by_rowid);
	if (!t->nleaves && one_leaf(t)) { /* one leaf (after any leaf_done() another follows) */
		struct merge m = {t, {calloc(1, t->pf->page_size), 0, t->pf->page_size, 0}};
		int rc;

		m.err = err;
		m.prev = INT64_MIN;
		rc = m.b.p ? merge_cells(&m, t->cur.p, INT64_MAX) || merge_put(&m, root)
			   : err_setf(err, t->pf->path, "out of memory");
		free(m.b.p);
		free(m.carry);
		free(m.next);
		return rc ? -1 : 0;
	}
	if ((t->cur.ncells && leaf_done(t, err)) || batch_flush(t, err))
		return -1;
	return place_leaves(t, err);
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


int btree_build(struct btree *t, uint32_t root, struct err_msg *err)
{
	/* a cell is at most 4 + 9 bytes and its 2-byte offset */
	const int ps = t->pf->page_size;
	const uint32_t cap = (uint32_t)(ps - INTERIOR_HDR) / 15;
	struct child *kids = t->kids;
	uint32_t n = t->nkids;

	while (n > 1) {
		uint32_t pages = (n + cap - 1) / cap, at = 0;

		for (uint32_t p = 0; p < pages; p++) {
			uint32_t m = n / pages + (p < n % pages), pgno;

			interior_page(t->pf->buf, ps, kids + at, (int)m);
			pgno = pages == 1 ? root : page_new(t->pf, NULL, 0);
			if (!pgno)
				return err_setf(err, t->pf->path, "out of memory");
			if (page_write(t->pf, pgno, t->pf->buf, err))
				return -1;
			kids[p] = (struct child){pgno, kids[at + m - 1].key};
			at += m;
		}
		n = pages;
	}
	return 0;
}
