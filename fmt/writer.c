// SPDX-License-Identifier: MIT
/*
 * The trace.dat version 7 writer, laid out as trace-cmd 3.1 writes it:
 *
 *   file header (magic, "7", endianness, long size, page size, compression
 *                name and version, offset of the first options section)
 *   metadata sections: header info, ftrace formats, event formats,
 *                kallsyms, printk formats, saved cmdlines (compressed)
 *   options section: where the metadata sections are, and the options
 *                given before the data; DONE points to the next one
 *   per buffer: one data section, each CPU's chunk list page-aligned in it
 *   last options section: the BUFFER options and the later options
 *   strings section: the section descriptions the headers' string ids index
 *
 * Sections have a 16-byte header (id:2 flags:2 string_id:4 size:8); a
 * compressed one holds csize:4 usize:4 and the compressed bytes. A CPU's
 * data is a chunk count:4 then chunks (csize:4 usize:4 bytes); the size in
 * the BUFFER option leaves out the count, as trace-cmd's does.
 */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "grow.h"
#include "tracedat-ids.h"
#include "wfile.h"

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#define WFAIL(...) err_setf(err, w->path, __VA_ARGS__)

static const uint8_t MAGIC[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

/* A growable byte buffer; @bad is set (and sticks) when an allocation fails. */
struct dbuf {
	uint8_t *p;
	size_t len, cap;
	bool bad;
};

struct wformat {
	char *sys;
	char *text;
	size_t len;
};

struct fmt_writer {
	char *path; /* destination */
	struct wfile *wf; /* the file being written (renamed to path at the end) */
	int fd;
	uint64_t off; /* end of what is written */
	int page_size, long_size, level, chunk_pages;
	bool compress;
#ifdef HAVE_ZSTD
	ZSTD_CCtx *cctx;
#endif
	uint8_t *in, *out; /* chunk buffers */
	size_t out_cap;
	/* metadata, held until the first buffer or the finish */
	struct dbuf headers;
	bool have_headers;
	struct wformat *formats;
	int nformats, formats_cap;
	struct dbuf kallsyms, printk, cmdlines;
	bool meta_written;
	uint64_t sec_off[FMT_SEC_MAX];
	/* options not written yet, and where the last DONE's next offset is */
	struct dbuf opts;
	uint64_t done_patch;   /* 0: the next one is linked from the file header */
	uint64_t header_patch; /* where the file header points to the first options */
	int nbuffers;
	struct dbuf strings; /* section descriptions, NUL-separated */
	bool finished;
};

/* ---- byte buffers -------------------------------------------------------- */

static void db_put(struct dbuf *b, const void *p, size_t n)
{
	if (b->bad || !n) /* nothing (an empty kallsyms): p may be NULL */
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		void *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->bad = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void db_u16(struct dbuf *b, uint16_t v)
{
	db_put(b, &v, 2);
}

static void db_u32(struct dbuf *b, uint32_t v)
{
	db_put(b, &v, 4);
}

static void db_u64(struct dbuf *b, uint64_t v)
{
	db_put(b, &v, 8);
}

static void db_str(struct dbuf *b, const char *s)
{
	db_put(b, s, strlen(s) + 1);
}

static void db_free(struct dbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- file output --------------------------------------------------------- */

static int pwrite_all(struct fmt_writer *w, const void *p, size_t n, uint64_t off,
		      struct err_msg *err)
{
	const uint8_t *c = p;

	while (n) {
		ssize_t k = pwrite(w->fd, c, n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return WFAIL("cannot write: %s", strerror(errno));
		c += k;
		n -= k;
		off += k;
	}
	return 0;
}

/* Append @n bytes at the end of the file. */
static int put(struct fmt_writer *w, const void *p, size_t n, struct err_msg *err)
{
	if (pwrite_all(w, p, n, w->off, err))
		return -1;
	w->off += n;
	return 0;
}

static int patch64(struct fmt_writer *w, uint64_t at, uint64_t v, struct err_msg *err)
{
	return pwrite_all(w, &v, 8, at, err);
}

/* The id of description @s in the strings section. */
static uint32_t string_id(struct fmt_writer *w, const char *s)
{
	uint32_t id = w->strings.len;

	db_str(&w->strings, s);
	return id;
}

/*
 * Compress @n bytes at @src into w->out as csize:4 usize:4 data; returns the
 * total size, or 0 with @err filled.
 */
static size_t compress_block(struct fmt_writer *w, const void *src, size_t n, struct err_msg *err)
{
#ifdef HAVE_ZSTD
	size_t bound = ZSTD_compressBound(n) + 8, c;
	uint32_t csize, usize = n;

	if (n > UINT32_MAX) {
		WFAIL("a %zu-byte block is too large to compress", n);
		return 0;
	}
	if (bound > w->out_cap) {
		void *p = realloc(w->out, bound);
		if (!p) {
			WFAIL("out of memory");
			return 0;
		}
		w->out = p;
		w->out_cap = bound;
	}
	c = ZSTD_compressCCtx(w->cctx, w->out + 8, bound - 8, src, n, w->level);
	if (ZSTD_isError(c)) {
		WFAIL("zstd: %s", ZSTD_getErrorName(c));
		return 0;
	}
	csize = c;
	memcpy(w->out, &csize, 4);
	memcpy(w->out + 4, &usize, 4);
	return c + 8;
#else
	WFAIL("this build has no zstd");
	return 0;
#endif
}

/*
 * Write a section with id @id, description string id @sid and content @data
 * (@n bytes), compressed if @compress. Returns its offset, or 0 on failure.
 */
static uint64_t put_section(struct fmt_writer *w, uint16_t id, uint32_t sid, bool compress,
			    const void *data, size_t n, struct err_msg *err)
{
	struct dbuf h = {0};
	uint64_t at = w->off;
	size_t size = n;

	if (compress) {
		size = compress_block(w, data, n, err);
		if (!size)
			return 0;
		data = w->out;
	}
	db_u16(&h, id);
	db_u16(&h, compress ? FMT_SEC_FL_COMPRESS : 0);
	db_u32(&h, sid);
	db_u64(&h, size);
	if (h.bad || w->strings.bad) {
		db_free(&h);
		WFAIL("out of memory");
		return 0;
	}
	if (put(w, h.p, h.len, err) || put(w, data, size, err)) {
		db_free(&h);
		return 0;
	}
	db_free(&h);
	return at;
}

/* ---- create / free ------------------------------------------------------- */

/* A bundle is never written over an existing file without --force. */
const struct wfile_kind fmt_writer_kind = {"a trace.dat file", NULL};

static int open_tmp(struct fmt_writer *w, bool force, struct err_msg *err)
{
	w->wf = wfile_create(w->path, &fmt_writer_kind, force, err);
	if (!w->wf)
		return -1;
	w->fd = wfile_fd(w->wf);
	return 0;
}

struct fmt_writer *fmt_writer_create(const char *path, const struct fmt_writer_params *params,
				     struct err_msg *err)
{
	struct fmt_writer_params p = params ? *params : (struct fmt_writer_params){0};
	struct fmt_writer *w = calloc(1, sizeof(*w));
	struct dbuf h = {0};
	const char *cname = "none", *cver = "";

	if (!w) {
		err_setf(err, path, "out of memory");
		return NULL;
	}
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path) {
		err_setf(err, path, "out of memory");
		goto fail;
	}
	w->page_size = p.page_size ? p.page_size : getpagesize();
	w->long_size = p.long_size ? p.long_size : (int)sizeof(long);
	w->level = p.level ? p.level : 3;
	w->chunk_pages = p.chunk_pages > 0 ? p.chunk_pages : 10;
	if (w->page_size < 64 || (w->page_size & (w->page_size - 1))) {
		WFAIL("bad page size %d", w->page_size);
		goto fail;
	}
	if (w->long_size != 4 && w->long_size != 8) {
		WFAIL("bad long size %d", w->long_size);
		goto fail;
	}
#ifdef HAVE_ZSTD
	w->compress = !p.compression || !strcmp(p.compression, "zstd");
	if (w->compress) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx) {
			WFAIL("out of memory");
			goto fail;
		}
		cname = "zstd";
		cver = ZSTD_versionString();
	}
#endif
	if (!w->compress && p.compression && strcmp(p.compression, "none")) {
		WFAIL("compression '%s' is not supported by this build", p.compression);
		goto fail;
	}
	w->in = malloc((size_t)w->page_size * w->chunk_pages);
	if (!w->in) {
		WFAIL("out of memory");
		goto fail;
	}
	if (open_tmp(w, p.force, err))
		goto fail;
	db_put(&h, MAGIC, sizeof(MAGIC));
	db_str(&h, "7");
	db_put(&h, &(uint8_t){__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__}, 1);
	db_put(&h, &(uint8_t){w->long_size}, 1);
	db_u32(&h, w->page_size);
	db_str(&h, cname);
	db_str(&h, cver);
	w->header_patch = h.len;
	db_u64(&h, 0); /* first options section: patched when it is written */
	if (h.bad) {
		WFAIL("out of memory");
		goto fail;
	}
	if (put(w, h.p, h.len, err))
		goto fail;
	db_free(&h);
	return w;
fail:
	db_free(&h);
	fmt_writer_free(w);
	return NULL;
}

void fmt_writer_free(struct fmt_writer *w)
{
	if (!w)
		return;
	wfile_abort(w->wf); /* NULL once finished; closes the descriptor */
#ifdef HAVE_ZSTD
	ZSTD_freeCCtx(w->cctx);
#endif
	for (int i = 0; i < w->nformats; i++) {
		free(w->formats[i].sys);
		free(w->formats[i].text);
	}
	free(w->formats);
	db_free(&w->headers);
	db_free(&w->kallsyms);
	db_free(&w->printk);
	db_free(&w->cmdlines);
	db_free(&w->opts);
	db_free(&w->strings);
	free(w->in);
	free(w->out);
	free(w->path);
	free(w);
}

uint64_t fmt_writer_size(const struct fmt_writer *w)
{
	return w->off;
}

/* ---- metadata ------------------------------------------------------------ */

static int check_open(struct fmt_writer *w, bool meta, struct err_msg *err)
{
	if (w->finished)
		return WFAIL("the file is already finished");
	if (meta && w->meta_written)
		return WFAIL("metadata given after the first trace buffer");
	return 0;
}

int fmt_writer_set_headers(struct fmt_writer *w, const char *header_page, size_t page_len,
			   const char *header_event, size_t event_len, struct err_msg *err)
{
	if (check_open(w, true, err))
		return -1;
	w->headers.len = 0;
	db_put(&w->headers, "header_page", 12);
	db_u64(&w->headers, page_len);
	db_put(&w->headers, header_page, page_len);
	db_put(&w->headers, "header_event", 13);
	db_u64(&w->headers, event_len);
	db_put(&w->headers, header_event, event_len);
	if (w->headers.bad)
		return WFAIL("out of memory");
	w->have_headers = true;
	return 0;
}

int fmt_writer_add_format(struct fmt_writer *w, const char *system, const char *text, size_t len,
			  struct err_msg *err)
{
	struct wformat *f;

	if (check_open(w, true, err))
		return -1;
	if (GROW(w->formats, w->nformats, w->formats_cap, 64))
		return WFAIL("out of memory");
	f = &w->formats[w->nformats];
	f->sys = strdup(system);
	f->text = malloc(len ? len : 1);
	if (!f->sys || !f->text) {
		free(f->sys);
		free(f->text);
		return WFAIL("out of memory");
	}
	memcpy(f->text, text, len);
	f->len = len;
	w->nformats++;
	return 0;
}

/* Replace the text blob @b (@what, at most @max bytes) with a copy of @text. */
static int set_blob(struct fmt_writer *w, struct dbuf *b, const char *what, uint64_t max,
		    const char *text, size_t len, struct err_msg *err)
{
	if (check_open(w, true, err))
		return -1;
	if (len > max)
		return WFAIL("%s of %zu bytes do not fit the size field", what, len);
	b->len = 0;
	b->bad = false;
	db_put(b, text, len);
	return b->bad ? WFAIL("out of memory") : 0;
}

int fmt_writer_set_kallsyms(struct fmt_writer *w, const char *text, size_t len, struct err_msg *err)
{
	return set_blob(w, &w->kallsyms, "kallsyms", UINT32_MAX, text, len, err);
}

int fmt_writer_set_printk(struct fmt_writer *w, const char *text, size_t len, struct err_msg *err)
{
	return set_blob(w, &w->printk, "printk formats", UINT32_MAX, text, len, err);
}

int fmt_writer_set_cmdlines(struct fmt_writer *w, const char *text, size_t len, struct err_msg *err)
{
	return set_blob(w, &w->cmdlines, "saved cmdlines", UINT64_MAX, text, len, err);
}

int fmt_writer_add_option(struct fmt_writer *w, uint16_t id, const void *data, size_t len,
			  struct err_msg *err)
{
	if (check_open(w, false, err))
		return -1;
	if (id == FMT_OPT_DONE || id == FMT_OPT_BUFFER || id == FMT_OPT_BUFFER_TEXT ||
	    id == FMT_OPT_STRINGS || fmt_opt_is_section(id))
		return WFAIL("option %u is written by the writer itself", id);
	if (len > UINT32_MAX)
		return WFAIL("option %u of %zu bytes is too large", id, len);
	db_u16(&w->opts, id);
	db_u32(&w->opts, len);
	db_put(&w->opts, data, len);
	return w->opts.bad ? WFAIL("out of memory") : 0;
}

int fmt_writer_add_option_str(struct fmt_writer *w, uint16_t id, const char *s, struct err_msg *err)
{
	return fmt_writer_add_option(w, id, s, strlen(s) + 1, err);
}

/* The content of the ftrace formats section (@ftrace) or of the event formats section. */
static int build_formats(struct fmt_writer *w, struct dbuf *b, bool ftrace)
{
	if (ftrace) {
		uint32_t n = 0;

		for (int i = 0; i < w->nformats; i++)
			n += !strcmp(w->formats[i].sys, "ftrace");
		db_u32(b, n);
		for (int i = 0; i < w->nformats; i++)
			if (!strcmp(w->formats[i].sys, "ftrace")) {
				db_u64(b, w->formats[i].len);
				db_put(b, w->formats[i].text, w->formats[i].len);
			}
		return b->bad ? -1 : 0;
	}
	/* systems in order of first appearance, each with all its formats */
	{
		uint32_t nsys = 0;
		char *done = calloc(w->nformats ? w->nformats : 1, 1);

		if (!done)
			return -1;
		for (int i = 0; i < w->nformats; i++) {
			bool first = strcmp(w->formats[i].sys, "ftrace");
			for (int k = 0; k < i && first; k++)
				if (!strcmp(w->formats[k].sys, w->formats[i].sys))
					first = false;
			nsys += first;
		}
		db_u32(b, nsys);
		for (int i = 0; i < w->nformats; i++) {
			const char *sys = w->formats[i].sys;
			uint32_t n = 0;

			if (done[i] || !strcmp(sys, "ftrace"))
				continue;
			for (int k = i; k < w->nformats; k++)
				n += !strcmp(w->formats[k].sys, sys);
			db_str(b, sys);
			db_u32(b, n);
			for (int k = i; k < w->nformats; k++)
				if (!strcmp(w->formats[k].sys, sys)) {
					db_u64(b, w->formats[k].len);
					db_put(b, w->formats[k].text, w->formats[k].len);
					done[k] = 1;
				}
		}
		free(done);
	}
	return b->bad ? -1 : 0;
}

/* Write one metadata section from @b and note its offset. */
static int meta_section(struct fmt_writer *w, uint16_t id, const char *desc, struct dbuf *b,
			struct err_msg *err)
{
	uint64_t at;

	if (b->bad)
		return WFAIL("out of memory");
	at = put_section(w, id, string_id(w, desc), w->compress, b->p ? b->p : (uint8_t *)"",
			 b->len, err);
	if (!at)
		return -1;
	w->sec_off[id] = at;
	return 0;
}

/* A text blob with a 4- or 8-byte size in front. */
static void sized_blob(struct dbuf *dst, const struct dbuf *src, int size_bytes)
{
	if (size_bytes == 4)
		db_u32(dst, src->len);
	else
		db_u64(dst, src->len);
	if (src->len)
		db_put(dst, src->p, src->len);
}

/*
 * Write the pending options as an options section whose DONE points to
 * nothing yet, and link it from the previous one (or the file header).
 */
static int put_options(struct fmt_writer *w, struct err_msg *err)
{
	uint64_t at;

	db_u16(&w->opts, FMT_OPT_DONE);
	db_u32(&w->opts, 8);
	db_u64(&w->opts, 0);
	if (w->opts.bad)
		return WFAIL("out of memory");
	at = put_section(w, FMT_SEC_OPTIONS, string_id(w, "options"), false, w->opts.p, w->opts.len,
			 err);
	if (!at)
		return -1;
	if (patch64(w, w->done_patch ? w->done_patch : w->header_patch, at, err))
		return -1;
	w->done_patch = w->off - 8;
	w->opts.len = 0;
	return 0;
}

/* The metadata sections and the first options section. */
static int put_meta(struct fmt_writer *w, struct err_msg *err)
{
	struct dbuf b = {0};
	struct dbuf first = {0};
	int rc = -1;

	if (!w->have_headers)
		return WFAIL("no header_page/header_event given");
	if (meta_section(w, FMT_SEC_HEADER_INFO, "headers", &w->headers, err))
		goto out;
	if (build_formats(w, &b, true) < 0) {
		WFAIL("out of memory");
		goto out;
	}
	if (meta_section(w, FMT_SEC_FTRACE_EVENTS, "ftrace events", &b, err))
		goto out;
	b.len = 0;
	if (build_formats(w, &b, false) < 0) {
		WFAIL("out of memory");
		goto out;
	}
	if (meta_section(w, FMT_SEC_EVENT_FORMATS, "events format", &b, err))
		goto out;
	b.len = 0;
	sized_blob(&b, &w->kallsyms, 4);
	if (meta_section(w, FMT_SEC_KALLSYMS, "kallsyms", &b, err))
		goto out;
	b.len = 0;
	sized_blob(&b, &w->printk, 4);
	if (meta_section(w, FMT_SEC_PRINTK, "printk", &b, err))
		goto out;
	b.len = 0;
	sized_blob(&b, &w->cmdlines, 8);
	if (meta_section(w, FMT_SEC_CMDLINES, "command lines", &b, err))
		goto out;
	/* the section pointers first, then the options given so far */
	for (int id = FMT_SEC_HEADER_INFO; id <= FMT_SEC_CMDLINES; id++) {
		db_u16(&first, id);
		db_u32(&first, 8);
		db_u64(&first, w->sec_off[id]);
	}
	db_put(&first, w->opts.p ? w->opts.p : (uint8_t *)"", w->opts.len);
	if (first.bad) {
		WFAIL("out of memory");
		goto out;
	}
	db_free(&w->opts);
	w->opts = first;
	memset(&first, 0, sizeof(first));
	if (put_options(w, err))
		goto out;
	w->meta_written = true;
	rc = 0;
out:
	db_free(&b);
	db_free(&first);
	return rc;
}

/* ---- trace data ---------------------------------------------------------- */

/* Read up to @n bytes from @fd; returns the count (short only at EOF) or -1. */
static ssize_t read_full(int fd, uint8_t *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += k;
	}
	return got;
}

/* Stream one CPU's pages to the end of the file; fills @st. */
static int put_cpu(struct fmt_writer *w, const struct fmt_writer_cpu *c,
		   struct fmt_writer_cpu_stats *st, struct err_msg *err)
{
	const size_t chunk = (size_t)w->page_size * w->chunk_pages;
	uint64_t start = w->off;
	uint32_t nchunks = 0;

	memset(st, 0, sizeof(*st));
	if (w->compress) {
		uint32_t zero = 0;
		if (put(w, &zero, 4, err))
			return -1;
	}
	for (;;) {
		ssize_t n = read_full(c->fd, w->in, chunk);
		size_t whole;

		if (n < 0)
			return WFAIL("cannot read the data of cpu %d: %s", c->cpu, strerror(errno));
		whole = n - n % w->page_size;
		st->tail_bytes += n - whole;
		if (whole) {
			if (w->compress) {
				size_t z = compress_block(w, w->in, whole, err);
				if (!z || put(w, w->out, z, err))
					return -1;
				nchunks++;
			} else if (put(w, w->in, whole, err)) {
				return -1;
			}
			st->pages += whole / w->page_size;
			st->bytes += whole;
		}
		if ((size_t)n < chunk)
			break;
	}
	if (w->compress && pwrite_all(w, &nchunks, 4, start, err))
		return -1;
	st->stored = w->off - start - (w->compress ? 4 : 0);
	/* while the next CPU's data is compressed, this one's goes to the disk */
	wfile_sync_ahead(w->wf);
	return 0;
}

int fmt_writer_add_buffer(struct fmt_writer *w, const char *name, const char *clock, int ncpus,
			  const struct fmt_writer_cpu *cpus, struct fmt_writer_cpu_stats *stats,
			  struct err_msg *err)
{
	struct fmt_writer_cpu_stats *st = calloc(ncpus > 0 ? ncpus : 1, sizeof(*st));
	uint64_t *offs = calloc(ncpus > 0 ? ncpus : 1, sizeof(*offs));
	struct dbuf h = {0}, o = {0};
	char *desc = NULL;
	uint64_t at;
	int rc = -1;

	if (!st || !offs || asprintf(&desc, "buffer flyrecord %s", name) < 0) {
		desc = NULL;
		WFAIL("out of memory");
		goto out;
	}
	if (check_open(w, false, err))
		goto out;
	if (ncpus < 0) {
		WFAIL("buffer '%s': negative CPU count", name);
		goto out;
	}
	if (!w->meta_written && put_meta(w, err))
		goto out;
	/* the section header, its size patched once the data is written */
	at = w->off;
	db_u16(&h, FMT_OPT_BUFFER);
	db_u16(&h, w->compress ? FMT_SEC_FL_COMPRESS : 0);
	db_u32(&h, string_id(w, desc));
	db_u64(&h, 0);
	if (h.bad || w->strings.bad) {
		WFAIL("out of memory");
		goto out;
	}
	if (put(w, h.p, h.len, err))
		goto out;
	for (int i = 0; i < ncpus; i++) {
		/* each CPU's data starts on a page boundary, as trace-cmd writes it */
		w->off = (w->off + w->page_size - 1) / w->page_size * w->page_size;
		offs[i] = w->off;
		if (put_cpu(w, &cpus[i], &st[i], err))
			goto out;
	}
	if (patch64(w, at + 8, w->off - at - 16, err))
		goto out;
	/* the BUFFER option, for the last options section */
	db_u64(&o, at);
	db_str(&o, name);
	db_str(&o, clock);
	db_u32(&o, w->page_size);
	db_u32(&o, ncpus);
	for (int i = 0; i < ncpus; i++) {
		db_u32(&o, cpus[i].cpu);
		db_u64(&o, offs[i]);
		db_u64(&o, st[i].stored);
	}
	db_u16(&w->opts, FMT_OPT_BUFFER);
	db_u32(&w->opts, o.len);
	db_put(&w->opts, o.p, o.len);
	if (o.bad || w->opts.bad) {
		WFAIL("out of memory");
		goto out;
	}
	w->nbuffers++;
	if (stats)
		memcpy(stats, st, ncpus * sizeof(*st));
	rc = 0;
out:
	db_free(&h);
	db_free(&o);
	free(desc);
	free(offs);
	free(st);
	return rc;
}

int fmt_writer_finish(struct fmt_writer *w, struct err_msg *err)
{
	uint64_t at;
	uint32_t sid;
	int rc;

	if (check_open(w, false, err))
		return -1;
	if (!w->meta_written && put_meta(w, err))
		return -1;
	if (w->opts.len && put_options(w, err))
		return -1;
	/* trace-cmd looks for the strings right after the last options section */
	sid = string_id(w, "strings");
	if (w->strings.bad)
		return WFAIL("out of memory");
	at = put_section(w, FMT_OPT_STRINGS, sid, w->compress, w->strings.p, w->strings.len, err);
	if (!at)
		return -1;
	w->fd = -1;
	rc = wfile_commit(w->wf, err); /* fsync, rename; removes the file on failure */
	w->wf = NULL;
	if (rc)
		return -1;
	w->finished = true;
	return 0;
}
