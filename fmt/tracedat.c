// SPDX-License-Identifier: MIT
/*
 * The trace.dat reader (trace-cmd file format versions 6 and 7).
 *
 * The file is mapped read-only. Metadata is parsed into a libtraceevent
 * handle; event data is read ahead by prefetch.c's threads (decompressed if
 * need be, walked page by page with kbuffer) and merged by stream.c.
 *
 * Everything read from the file is checked against the file's size before
 * use, and every size that leads to an allocation is bounded, so a corrupt
 * or hostile file yields an error message, never a crash.
 */

#include "fmt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "decomp.h"
#include "grow.h"
#include "prefetch.h"
#include "rd.h"
#include "tracedat.h"
#include "uftrace.h"
#include "wfile.h"

/* Bounds on what the file may make us allocate. */
#define MAX_META_BYTES (1ULL << 30)  /* one metadata section, decompressed */
#define MAX_CPUS 8192
#define MAX_BUFFERS 256
#define MAX_PAGE_SIZE (1U << 24)
#define MAX_OPTION_SECTIONS 4096
#define MAP_SLACK (1U << 17) /* readable zeros after the file: see map_file() */


static const uint8_t MAGIC[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

int fmt_errf(struct fmt_err *err, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!err)
		return -1;
	if (path)
		n = snprintf(err->msg, sizeof(err->msg), "'%s': ", path);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
	/* one line: fold anything a file smuggled into the message */
	for (char *c = err->msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return -1;
}

/*
 * Map the file read-only, followed by MAP_SLACK readable zero bytes, so that
 * libtraceevent following a corrupt dynamic-array offset (at most 64 KiB past
 * an event) reads zeros instead of faulting.
 */
static int map_file(struct fmt_reader *r, struct fmt_err *err)
{
	struct stat st;
	void *base;

	r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return FAIL("cannot open: %s", strerror(errno));
	if (fstat(r->fd, &st) < 0)
		return FAIL("cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return FAIL("not a regular file");
	r->file_len = st.st_size;
	if (r->file_len == 0)
		return FAIL("empty file");
	r->map_total = ((r->file_len + 4095) & ~4095ULL) + MAP_SLACK;
	base = mmap(NULL, r->map_total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return FAIL("cannot map %" PRIu64 " bytes: %s", r->file_len, strerror(errno));
	r->map = base;
	if (mmap(base, r->file_len, PROT_READ, MAP_PRIVATE | MAP_FIXED, r->fd, 0) ==
	    MAP_FAILED)
		return FAIL("cannot map: %s", strerror(errno));
	madvise(base, r->file_len, MADV_SEQUENTIAL);
	return 0;
}

/* A range of the file as a reader. */
static struct rd file_rd(struct fmt_reader *r)
{
	return rd_init(r->map, r->file_len, r->swap);
}

/* ---- metadata ---------------------------------------------------------- */

/*
 * The parts of the file that describe the events, wherever they come from
 * (inline in v6, sections in v7). @buf points at data inside the file or a
 * decompressed copy.
 */
static int parse_header_info(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	const char *tag;
	uint64_t n;
	const uint8_t *p;

	tag = (const char *)rd_bytes(d, 12);
	if (!tag || memcmp(tag, "header_page", 12))
		return FAIL("bad header: 'header_page' expected at offset %" PRIu64, rd_pos(d));
	n = rd_u64(d);
	p = rd_bytes(d, n);
	if (!p)
		return FAIL("truncated in header_page (size %" PRIu64 ")", n);
	{
		char *copy = strndup((const char *)p, n);
		if (!copy)
			return FAIL("out of memory");
		int rc = tep_parse_header_page(r->tep, copy, n, r->info.long_size);
		free(copy);
		if (rc)
			return FAIL("cannot parse header_page");
	}
	tag = (const char *)rd_bytes(d, 13);
	if (!tag || memcmp(tag, "header_event", 13))
		return FAIL("bad header: 'header_event' expected");
	n = rd_u64(d);
	if (!rd_bytes(d, n))
		return FAIL("truncated in header_event (size %" PRIu64 ")", n);
	r->kernel_long = tep_get_header_page_size(r->tep);
	if (r->kernel_long != 4 && r->kernel_long != 8)
		return FAIL("header_page gives a commit size of %d, not 4 or 8", r->kernel_long);
	r->page_hdr = 8 + r->kernel_long;
	return 0;
}

/* Index one format: find its name and id; libtraceevent parses it on first use. */
static int parse_one_format(struct fmt_reader *r, struct rd *d, const char *sys,
			    struct fmt_err *err)
{
	uint64_t n = rd_u64(d);
	const char *p = (const char *)rd_bytes(d, n);

	if (!p)
		return FAIL("truncated in the %s event formats (format of %" PRIu64 " bytes)", sys,
			    n);
	return fmt_add_format(r, sys, p, n, err);
}

int fmt_add_format(struct fmt_reader *r, const char *sys, const char *p, uint64_t n,
		   struct fmt_err *err)
{
	struct fmt_format *f;
	const char *name, *id, *end;
	long v;

	end = p + (n < 1024 ? n : 1024);
	name = memmem(p, end - p, "name: ", 6);
	id = memmem(p, end - p, "\nID: ", 5);
	if (!name || !id)
		return 0; /* not a format libtraceevent could use either */
	name += 6;
	v = strtol(id + 5, NULL, 10);
	if (v < 0 || v > 65535)
		return 0; /* common_type is 16 bits: no event can carry this id */
	if (GROW(r->formats, r->nformats, r->formats_cap, 256))
		return FAIL("out of memory");
	f = &r->formats[r->nformats];
	f->sys = sys;
	f->text = p;
	f->len = n;
	f->name = name;
	f->name_len = strcspn(name, "\n");
	if (name + f->name_len > end)
		return 0;
	f->id = v;
	if (!r->format_of_id[v])
		r->format_of_id[v] = r->nformats + 1;
	r->nformats++;
	r->info.nevent_formats++;
	return 0;
}

/*
 * Screens for what crashes libtraceevent 1.7 in a print fmt's arguments
 * (outside its strings) and no kernel format has (found by fuzzing the
 * perf.data reader): a character its tokenizer makes no token of ('$', '@',
 * '#', '`', '\\'), a member of an indexed element ("]->", "] .x"), an
 * index followed by '[' or ']' (a second dimension, a stray ']'),
 * a lone '=' (an assignment: NULL dereference), and a '/' or '%'
 * whose divisor is not a nonzero number or a sizeof(): the parser folds
 * constant operands and divides by zero (SIGFPE), and tep_print_event
 * divides by a field's value, or by "(1-1)", as the record has it (SIGFPE;
 * the kernel divides by neither), and two names in a row that do not end a cast or sizeof
 * ("? x : long REC->y", a type where a value goes: SIGSEGV), and a ';'
 * (after a ?: it is read past the end: "1 ? 2 : 4;"), and a "->" on
 * anything but REC ("1 ? 2 : n->x", SIGSEGV; the kernel's are "REC->x" and
 * "(REC)->x"). These are
 * screens, not a grammar: libtraceevent's parser still trusts the print fmt.
 */
static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * At @p in a print fmt's arguments: false where a name starts that another
 * name follows, and the names (and '*'s) then do not end at a ')', as a
 * cast's type or sizeof's do ("(unsigned long)", "sizeof(struct x *)").
 */
static bool two_names_ok(const char *p, const char *end)
{
	const char *q = p;

	if (!(isalpha((unsigned char)*p) || *p == '_') || name_char(p[-1]))
		return true;
	while (q < end && name_char(*q))
		q++;
	if (q == end || !isspace((unsigned char)*q))
		return true;
	while (q < end && isspace((unsigned char)*q))
		q++;
	if (q == end || !(isalpha((unsigned char)*q) || *q == '_'))
		return true;
	while (q < end && (name_char(*q) || isspace((unsigned char)*q) || *q == '*'))
		q++;
	return q < end && *q == ')';
}

/* Whether sizeof's name ends at @p and its '(' follows ("sizeofpid" is a name). */
static bool sizeof_call(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p < end && *p == '(';
}

/* Whether the "->" at @p follows REC or (REC), after @text's start. */
static bool on_rec(const char *text, const char *p)
{
	if (p - text >= 4 && !memcmp(p - 4, "REC)", 4))
		p--;
	return p - text >= 3 && !memcmp(p - 3, "REC", 3) && !(p - text > 3 && name_char(p[-4]));
}

static bool print_args_ok(const char *text, size_t len)
{
	const char *p = memmem(text, len, "print fmt:", 10), *end = text + len;
	bool str = false, indexed = false; /* after an outermost index's ']' */
	int depth = 0;			   /* of [ ] outside strings */

	for (p = p ? p + 10 : NULL; p && p < end; p++) {
		const char *q = p + 1;
		if (str) {
			if (*p == '\\' && p + 1 < end)
				p++; /* an escaped character */
			else
				str = *p != '"';
			continue;
		}
		str = *p == '"';
		if (*p == '[' || *p == ']') {
			if (indexed || (*p == ']' && !depth))
				return false;
			depth += *p == '[' ? 1 : -1;
			indexed = *p == ']' && !depth;
		} else if (!isspace((unsigned char)*p)) {
			/* a member of an indexed element: '.', "->" */
			if (indexed && (*p == '.' || (*p == '-' && q < end && *q == '>')))
				return false;
			indexed = false;
		}
		if (!two_names_ok(p, end) || (*p == '-' && q < end && *q == '>' && !on_rec(text, p)))
			return false;
		if ((*p && strchr("$@#`\\;", *p)) ||
		    (*p == ']' && end - p >= 3 && !memcmp(p, "]->", 3)))
			return false;
		/* an assignment: only ==, !=, <= and >= are the kernel's */
		if (*p == '=' && !strchr("=!<>", p[-1]) && !(q < end && *q == '='))
			return false;
		if (*p != '/' && *p != '%')
			continue;
		while (q < end && *q == ' ')
			q++;
		if (!((end - q >= 6 && !memcmp(q, "sizeof", 6) && sizeof_call(q + 6, end)) ||
		      (q < end && *q >= '1' && *q <= '9')))
			return false;
	}
	return true;
}

/*
 * The name a "field:TYPE NAME[N];" line of a format declares, at @p (after
 * "field:"), up to @end; its length in *@n, or NULL if there is none.
 */
static const char *field_name(const char *p, const char *end, size_t *n)
{
	const char *semi = memchr(p, ';', end - p), *q;

	if (!semi)
		return NULL;
	q = semi;
	if (q > p && q[-1] == ']')
		while (q > p && *q != '[')
			q--;
	*n = 0;
	while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) {
		q--;
		(*n)++;
	}
	return *n ? q : NULL;
}

/*
 * Screens for what crashes libtraceevent 1.7's format parser (found by
 * fuzzing) and the kernel never writes: a control character or a byte
 * past ASCII (its tokenizer returns no token, then compares it), no print
 * fmt (a text cut short: a '[' as its last token is compared the same way),
 * and a REC->NAME in the print fmt that is no field of the format.
 */
static bool format_ok(const char *text, size_t len)
{
	const char *end = text + len, *pf = memmem(text, len, "print fmt:", 10), *p;
	const char *names[256];
	size_t lens[256];
	int n = 0;

	for (p = text; p < end && *p; p++)
		if (((unsigned char)*p < ' ' && *p != '\t' && *p != '\n') ||
		    (unsigned char)*p >= 0x7f)
			return false;
	if (!pf)
		return false;
	for (p = text; (p = memmem(p, pf - p, "field:", 6)); p += 6) {
		if (n == 256)
			return false;
		names[n] = field_name(p + 6, pf, &lens[n]);
		if (!names[n])
			return false;
		n++;
	}
	for (p = pf; (p = memmem(p, end - p, "REC->", 5)); ) {
		const char *q = p += 5;
		int i;
		while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		for (i = 0; i < n && (lens[i] != (size_t)(q - p) || memcmp(names[i], p, lens[i]));
		     i++)
			;
		if (i == n)
			return false;
	}
	return true;
}

/*
 * The bytes @ev's fixed fields take, past the last of them (a dynamic one's
 * 4-byte locator), into *@full; returns those a record needs: as many, or
 * where the last field starts when it is an array, which the kernel may cut
 * (kernel_stack's caller[8] holds as many frames as it has).
 */
static uint16_t fixed_size(const struct tep_event *ev, uint16_t *full)
{
	const struct tep_format_field *last = NULL;
	unsigned end = 0;

	for (int common = 0; common < 2; common++)
		for (const struct tep_format_field *f = common ? ev->format.common_fields
							   : ev->format.fields;
		     f; f = f->next)
			if ((unsigned)f->offset + (unsigned)f->size > end) {
				end = (unsigned)f->offset + (unsigned)f->size;
				last = f;
			}
	*full = end > 65535 ? 65535 : (uint16_t)end;
	if (last && (last->flags & TEP_FIELD_IS_ARRAY) && !(last->flags & TEP_FIELD_IS_DYNAMIC))
		end = (unsigned)last->offset;
	return end > 65535 ? 65535 : (uint16_t)end;
}

struct tep_event *fmt_event_format(struct fmt_reader *r, int id)
{
	struct tep_event *ev = NULL;
	struct tep_format_field *type, *pid;
	const struct fmt_format *f;
	size_t len;
	int i;

	if (r->ev_done[id])
		return r->ev_of_id[id];
	r->ev_done[id] = 1;
	i = r->format_of_id[id] - 1;
	if (i < 0)
		return NULL;
	f = &r->formats[i];
	/* the text ends at a NUL: libtraceevent's tokenizer makes no token of one */
	len = strnlen(f->text, f->len);
	if (!print_args_ok(f->text, len) || !format_ok(f->text, len) ||
	    tep_parse_event(r->tep, f->text, len, f->sys))
		return NULL;
	ev = tep_find_event(r->tep, id);
	if (!ev)
		return NULL;
	type = tep_find_common_field(ev, "common_type");
	pid = tep_find_common_field(ev, "common_pid");
	if (!type || type->offset != 0 || type->size != 2 || !pid || pid->offset != 4 ||
	    pid->size != 4) {
		r->bad_layout = true;
		return NULL;
	}
	r->ev_min_size[id] = fixed_size(ev, &r->ev_full_size[id]);
	r->ev_of_id[id] = ev;
	return ev;
}

int fmt_event_pad(struct fmt_reader *r, struct fmt_event *ev, struct fmt_err *err)
{
	size_t full = r->ev_full_size[ev->type];

	if (r->bad_layout)
		return FAIL("unsupported event layout: common_type/common_pid not at offsets 0/4");
	if (ev->size < r->ev_min_size[ev->type])
		return FAIL("cpu %d: a %s record of %u bytes, where its format's fields take %u",
			    ev->cpu, ev->event->name, ev->size, r->ev_min_size[ev->type]);
	if (full > r->pad_cap) {
		uint8_t *p = realloc(r->pad, full);
		if (!p)
			return FAIL("out of memory");
		r->pad = p;
		r->pad_cap = full;
	}
	memcpy(r->pad, ev->data, ev->size);
	memset(r->pad + ev->size, 0, full - ev->size);
	ev->data = r->pad;
	return 0;
}

struct tep_event *fmt_reader_find_event(struct fmt_reader *r, const char *sys, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < r->nformats; i++) {
		const struct fmt_format *f = &r->formats[i];
		if (f->name_len == n && !memcmp(f->name, name, n) && (!sys || !strcmp(f->sys, sys)))
			return fmt_event_format(r, f->id);
	}
	return NULL;
}

int fmt_reader_each_format(struct fmt_reader *r, const char *needle,
			   int (*fn)(void *ctx, struct tep_event *ev), void *ctx)
{
	size_t n = strlen(needle);

	for (int i = 0; i < r->nformats; i++) {
		const struct fmt_format *f = &r->formats[i];
		struct tep_event *ev;
		int rc;

		if (!memmem(f->text, f->len, needle, n) || r->format_of_id[f->id] != i + 1)
			continue;
		ev = fmt_event_format(r, f->id);
		if (ev && (rc = fn(ctx, ev)))
			return rc;
	}
	return 0;
}

static int parse_ftrace_formats(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	uint32_t count = rd_u32(d);

	if (d->bad)
		return FAIL("truncated before the ftrace formats");
	if (count > rd_left(d) / 8)
		return FAIL("truncated or corrupt: %u ftrace formats claimed, %" PRIu64
			    " bytes left", count, rd_left(d));
	for (uint32_t i = 0; i < count; i++)
		if (parse_one_format(r, d, "ftrace", err))
			return -1;
	return 0;
}

static int parse_event_formats(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	uint32_t nsys = rd_u32(d);

	if (d->bad)
		return FAIL("truncated before the event formats");
	if (nsys > rd_left(d) / 5)
		return FAIL("truncated or corrupt: %u event systems claimed, %" PRIu64
			    " bytes left", nsys, rd_left(d));
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = rd_str(d);
		uint32_t count = rd_u32(d);

		if (d->bad)
			return FAIL("truncated in the event formats (system %u of %u)", s + 1, nsys);
		if (count > rd_left(d) / 8)
			return FAIL("truncated or corrupt: system '%.64s' claims %u events, %" PRIu64
				    " bytes left", sys, count, rd_left(d));
		for (uint32_t i = 0; i < count; i++)
			if (parse_one_format(r, d, sys, err))
				return -1;
	}
	return 0;
}

/* A text blob with a 4- or 8-byte size in front, NUL-terminated for the parser. */
static char *read_blob(struct fmt_reader *r, struct rd *d, int size_bytes, const char *what,
		       uint64_t *len, struct fmt_err *err)
{
	uint64_t n = size_bytes == 4 ? rd_u32(d) : rd_u64(d);
	const uint8_t *p = rd_bytes(d, n);
	char *s;

	if (!p) {
		FAIL("truncated in %s (size %" PRIu64 ")", what, n);
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		FAIL("out of memory for %s", what);
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	*len = n;
	return s;
}

/*
 * The text tables are parsed by libtraceevent, which trusts them: keep only
 * the lines of the expected shape (in place), so a damaged file cannot walk
 * it off its buffers. Returns the number of lines dropped.
 */
static int keep_lines(char *s, int (*ok)(const char *line, size_t len))
{
	char *in = s, *out = s;
	int dropped = 0;

	while (*in) {
		size_t len = strcspn(in, "\n");
		if (ok(in, len)) {
			memmove(out, in, len);
			out += len;
			if (in[len] == '\n') /* a last line without one: no room */
				*out++ = '\n';
		} else if (len) {
			dropped++;
		}
		in += len + (in[len] == '\n');
	}
	*out = 0;
	return dropped;
}

static size_t span(const char *p, size_t len, const char *set)
{
	size_t i = 0;

	while (i < len && p[i] && strchr(set, p[i]))
		i++;
	return i;
}

#define HEX "0123456789abcdefABCDEF"

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static int kallsyms_line(const char *p, size_t len)
{
	size_t i = span(p, len, HEX);

	return i > 0 && i + 4 <= len && p[i] == ' ' && p[i + 1] > ' ' && p[i + 1] < 0x7f &&
	       p[i + 2] == ' ' && p[i + 3] > ' ';
}

/* 0xffffffff82000000 : "format text" */
static int printk_line(const char *p, size_t len)
{
	size_t i;

	if (len < 2 || p[0] != '0' || p[1] != 'x')
		return 0;
	i = 2 + span(p + 2, len - 2, HEX);
	return i > 2 && i + 7 <= len && !memcmp(p + i, " : \"", 4) && p[len - 1] == '"';
}

/* "1234 comm" */
static int cmdline_line(const char *p, size_t len)
{
	size_t i = span(p, len, "0123456789");

	return i > 0 && i < 11 && i + 1 < len && p[i] == ' ';
}

static int read_section(struct fmt_reader *r, uint64_t off, uint16_t want, const char *what,
			struct rd *out, uint8_t **owned, struct fmt_err *err);

/* Parse the kallsyms text @p (@n bytes) into libtraceevent. */
static int load_kallsyms_text(struct fmt_reader *r, const uint8_t *p, uint64_t n,
			      struct fmt_err *err)
{
	char *s = malloc(n + 1);

	if (!s)
		return FAIL("out of memory for kallsyms (%" PRIu64 " bytes)", n);
	memcpy(s, p, n);
	s[n] = 0;
	r->info.bad_lines += keep_lines(s, kallsyms_line);
	if (kmod_parse(&r->kmods, s)) { /* before libtraceevent cuts s up */
		free(s);
		return FAIL("out of memory for kallsyms' modules");
	}
	tep_parse_kallsyms(r->tep, s);
	free(s);
	return 0;
}

/*
 * Kallsyms are big (a few MB of text) and only needed to name functions:
 * remember where they are and parse them on first use (fmt_reader_load_kallsyms).
 */
static int parse_kallsyms(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	uint64_t n = rd_u32(d);
	const uint8_t *p = rd_bytes(d, n);

	if (!p)
		return FAIL("truncated in kallsyms (size %" PRIu64 ")", n);
	r->info.kallsyms_bytes = n;
	if (r->info.version == 6) {
		r->ksyms = p; /* in the mapping: stays valid */
		r->ksyms_len = n;
	}
	if (r->flags & FMT_OPEN_NO_KALLSYMS)
		return 0;
	r->ksyms_done = true;
	return load_kallsyms_text(r, p, n, err);
}

const char *fmt_reader_func_module(const struct fmt_reader *r, uint64_t addr)
{
	return kmod_find(&r->kmods, addr);
}

bool fmt_reader_func_params(const struct fmt_reader *r, uint64_t addr,
			    const struct fmt_param **p, int *n)
{
	*p = NULL;
	*n = 0;
	return r->be && r->be->func_params && r->be->func_params(r, addr, p, n);
}

int fmt_reader_load_kallsyms(struct fmt_reader *r, struct fmt_err *err)
{
	struct rd d;
	uint8_t *owned;
	int rc;

	if (r->ksyms_done)
		return 0;
	r->ksyms_done = true;
	if (r->ksyms)
		return load_kallsyms_text(r, r->ksyms, r->ksyms_len, err);
	if (!r->sec_off[FMT_SEC_KALLSYMS])
		return 0; /* the file has none */
	if (read_section(r, r->sec_off[FMT_SEC_KALLSYMS], FMT_SEC_KALLSYMS, "kallsyms", &d,
			 &owned, err))
		return -1;
	{
		uint64_t n = rd_u32(&d);
		const uint8_t *p = rd_bytes(&d, n);
		rc = p ? load_kallsyms_text(r, p, n, err)
		       : FAIL("truncated in kallsyms (size %" PRIu64 ")", n);
	}
	free(owned);
	return rc;
}

static int parse_printk(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	char *s = read_blob(r, d, 4, "printk formats", &r->info.printk_bytes, err);

	if (!s)
		return -1;
	r->info.bad_lines += keep_lines(s, printk_line);
	tep_parse_printk_formats(r->tep, s);
	free(s);
	return 0;
}

static int parse_cmdlines(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	char *s = read_blob(r, d, 8, "saved cmdlines", &r->info.cmdlines_bytes, err);

	if (!s)
		return -1;
	r->info.bad_lines += keep_lines(s, cmdline_line);
	tep_parse_saved_cmdlines(r->tep, s);
	free(s);
	return 0;
}

int fmt_parse_tracing_data(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	return parse_header_info(r, d, err) || parse_ftrace_formats(r, d, err) ||
			       parse_event_formats(r, d, err) || parse_kallsyms(r, d, err) ||
			       parse_printk(r, d, err) || parse_cmdlines(r, d, err)
		       ? -1
		       : 0;
}

static struct fmt_buffer *add_buffer(struct fmt_reader *r, const char *name, const char *clock,
				     int ncpus, struct fmt_err *err)
{
	struct fmt_buffer *b;

	if (r->info.nbuffers >= MAX_BUFFERS) {
		FAIL("more than %d trace buffers", MAX_BUFFERS);
		return NULL;
	}
	if (ncpus < 0 || ncpus > MAX_CPUS) {
		FAIL("absurd CPU count %d in buffer '%.64s'", ncpus, name);
		return NULL;
	}
	if (GROW(r->info.buffers, r->info.nbuffers, r->buffers_cap, 4)) {
		FAIL("out of memory");
		return NULL;
	}
	b = &r->info.buffers[r->info.nbuffers++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->clock = strdup(clock ? clock : "");
	b->ncpus = ncpus;
	b->cpu_ids = calloc(ncpus ? ncpus : 1, sizeof(int));
	b->bytes = calloc(ncpus ? ncpus : 1, sizeof(uint64_t));
	if (!b->name || !b->clock || !b->cpu_ids || !b->bytes) {
		FAIL("out of memory");
		return NULL;
	}
	return b;
}

/*
 * Register the data of one CPU of buffer @b as a stream. @off/@len locate
 * the data in the file; compressed data is a chunk list.
 */
static int add_stream(struct fmt_reader *r, int b, int index, int cpu, uint64_t off, uint64_t len,
		      bool compressed, struct fmt_err *err)
{
	struct stream *s;
	struct fmt_buffer *buf = &r->info.buffers[b];

	if (cpu < 0 || cpu >= MAX_CPUS)
		return FAIL("absurd CPU number %d in buffer '%.64s'", cpu, buf->name);
	buf->bytes[index] = len;
	/* trace-cmd's size of compressed data leaves out the 4-byte chunk count */
	if (compressed)
		len += 4;
	if (off > r->file_len || len > r->file_len - off)
		return FAIL("data of cpu %d in buffer '%.64s' (offset %" PRIu64 ", %" PRIu64
			    " bytes) lies past the end of the file (%" PRIu64 " bytes): truncated",
			    cpu, buf->name, off, len, r->file_len);
	buf->cpu_ids[index] = cpu;
	s = &r->streams[r->nstreams++];
	memset(s, 0, sizeof(*s));
	s->buffer = b;
	s->cpu = cpu;
	s->index = index;
	s->src = r->map + off;
	s->src_len = len;
	s->compressed = compressed;
	return 0;
}

static int grow_streams(struct fmt_reader *r, int more, struct fmt_err *err)
{
	void *n = realloc(r->streams, (r->nstreams + more + 1) * sizeof(*r->streams));

	if (!n)
		return FAIL("out of memory");
	r->streams = n;
	return 0;
}

/* Parse "CPU: N ... overrun: M" blocks; kept as text in the buffer. */
static int append_cpustats(char **dst, const char *s, size_t n)
{
	size_t old = *dst ? strlen(*dst) : 0;
	char *p = realloc(*dst, old + n + 2);

	if (!p)
		return -1;
	memcpy(p + old, s, n);
	p[old + n] = 0;
	/* the text ends with a NUL inside n; make sure it ends in a newline */
	old = strlen(p);
	if (old && p[old - 1] != '\n') {
		p[old] = '\n';
		p[old + 1] = 0;
	}
	*dst = p;
	return 0;
}

static char *opt_string(const uint8_t *p, uint32_t n)
{
	return strndup((const char *)p, n);
}

/* ---- version 6 --------------------------------------------------------- */

/*
 * v6 flyrecord CPU table: @ncpus pairs of (offset, size) at the reader's
 * position, for buffer @b.
 */
static int read_cpu_table(struct fmt_reader *r, struct rd *d, int b, int ncpus,
			  struct fmt_err *err)
{
	if (grow_streams(r, ncpus, err))
		return -1;
	for (int i = 0; i < ncpus; i++) {
		uint64_t off = rd_u64(d), len = rd_u64(d);
		if (d->bad)
			return FAIL("truncated in the CPU data table of buffer '%.64s'",
				    r->info.buffers[b].name);
		if (add_stream(r, b, i, i, off, len, false, err))
			return -1;
	}
	return 0;
}

static int parse_v6(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	uint32_t cpus;
	const uint8_t *tag;
	struct {
		uint64_t off;
		char *name;
	} bufopts[MAX_BUFFERS];
	int nbufopts = 0;
	int rc = -1;
	const char *clock = "local";
	char *clockbuf = NULL;

	if (fmt_parse_tracing_data(r, d, err))
		return -1;
	cpus = rd_u32(d);
	if (d->bad)
		return FAIL("truncated before the CPU count");
	if (cpus > MAX_CPUS)
		return FAIL("absurd CPU count %u", cpus);
	r->info.cpus = cpus;
	tag = rd_bytes(d, 10);
	if (!tag)
		return FAIL("truncated before the trace data");
	if (!memcmp(tag, "options  ", 10)) {
		for (;;) {
			uint16_t id = rd_u16(d);
			uint32_t n;
			const uint8_t *p;

			if (d->bad)
				goto trunc_opt;
			if (id == 0)
				break;
			n = rd_u32(d);
			p = rd_bytes(d, n);
			if (!p)
				goto trunc_opt;
			switch (id) {
			case FMT_OPT_BUFFER:
				if (n < 9 || nbufopts >= MAX_BUFFERS)
					goto bad_opt;
				{
					struct rd o = rd_init(p, n, r->swap);
					bufopts[nbufopts].off = rd_u64(&o);
					const char *name = rd_str(&o);
					if (o.bad)
						goto bad_opt;
					bufopts[nbufopts].name = strdup(name);
					if (!bufopts[nbufopts].name)
						goto oom;
					nbufopts++;
				}
				break;
			case FMT_OPT_TRACECLOCK:
				free(clockbuf);
				clock = "local"; /* not into the text freed: this one may name none */
				clockbuf = opt_string(p, n);
				if (!clockbuf)
					goto oom;
				/* "[local] global ...": the bracketed one is in use */
				{
					char *lb = strchr(clockbuf, '['), *rb;
					if (lb && (rb = strchr(lb, ']'))) {
						*rb = 0;
						clock = lb + 1;
					}
				}
				break;
			default:
				if (fmt_handle_option(r, id, p, n, err))
					goto out;
			}
		}
		tag = rd_bytes(d, 10);
		if (!tag) {
			FAIL("truncated before the trace data");
			goto out; /* the options' strings are freed there */
		}
	}
	if (!memcmp(tag, "latency  ", 10)) {
		r->info.latency_text = true;
		if (!add_buffer(r, "", clock, 0, err))
			goto out;
		rc = 0;
		goto out;
	}
	if (memcmp(tag, "flyrecord", 10)) {
		FAIL("neither 'flyrecord' nor 'latency' data at offset %" PRIu64, rd_pos(d) - 10);
		goto out;
	}
	if (!add_buffer(r, "", clock, cpus, err))
		goto out;
	if (read_cpu_table(r, d, 0, cpus, err))
		goto out;
	for (int i = 0; i < nbufopts; i++) {
		struct rd bd = file_rd(r);
		int b = r->info.nbuffers;

		rd_seek(&bd, bufopts[i].off);
		if (!add_buffer(r, bufopts[i].name, clock, cpus, err))
			goto out;
		/* an instance's data starts with its own "flyrecord\0" tag */
		tag = rd_bytes(&bd, 10);
		if (!tag || memcmp(tag, "flyrecord", 10)) {
			FAIL("buffer '%.64s': no 'flyrecord' data at offset %" PRIu64,
			     bufopts[i].name, bufopts[i].off);
			goto out;
		}
		if (read_cpu_table(r, &bd, b, cpus, err))
			goto out;
	}
	rc = 0;
	goto out;
trunc_opt:
	FAIL("truncated in the options");
	goto out;
bad_opt:
	FAIL("malformed BUFFER option");
	goto out;
oom:
	FAIL("out of memory");
out:
	for (int i = 0; i < nbufopts; i++)
		free(bufopts[i].name);
	free(clockbuf);
	return rc;
}

/* ---- version 7 --------------------------------------------------------- */

/*
 * Read the section at file offset @off: check its id, decompress it if
 * needed. On success *@out is a reader over the section's content and
 * *@owned the buffer to free (NULL if the content is in the mapping).
 */
static int read_section(struct fmt_reader *r, uint64_t off, uint16_t want, const char *what,
			struct rd *out, uint8_t **owned, struct fmt_err *err)
{
	struct rd d = file_rd(r);
	uint16_t id, flags;
	uint64_t size;
	const uint8_t *p;

	*owned = NULL;
	rd_seek(&d, off);
	id = rd_u16(&d);
	flags = rd_u16(&d);
	(void)rd_u32(&d); /* description string id */
	size = rd_u64(&d);
	if (d.bad)
		return FAIL("%s section at offset %" PRIu64 ": truncated header", what, off);
	if (id != want)
		return FAIL("%s section at offset %" PRIu64 ": id %u, expected %u", what, off, id,
			    want);
	p = rd_bytes(&d, size);
	if (!p)
		return FAIL("%s section at offset %" PRIu64 ": %" PRIu64
			    " bytes, past the end of the file: truncated",
			    what, off, size);
	if (!(flags & FMT_SEC_FL_COMPRESS)) {
		*out = rd_init(p, size, r->swap);
		return 0;
	}
	{
		struct rd c = rd_init(p, size, r->swap);
		uint32_t csize = rd_u32(&c), usize = rd_u32(&c);
		const uint8_t *cdata = rd_bytes(&c, csize);
		uint8_t *buf;

		if (!cdata)
			return FAIL("%s section at offset %" PRIu64
				    ": compressed size %u exceeds the section",
				    what, off, csize);
		if (!r->dc)
			return FAIL("%s section is compressed but the file names no compression",
				    what);
		if (usize > MAX_META_BYTES)
			return FAIL("%s section: absurd uncompressed size %u", what, usize);
		buf = malloc(usize ? usize : 1);
		if (!buf)
			return FAIL("out of memory for the %s section (%u bytes)", what, usize);
		if (decomp_run(r->dc, cdata, csize, buf, usize)) {
			free(buf);
			return FAIL("%s section at offset %" PRIu64 " does not decompress", what,
				    off);
		}
		*owned = buf;
		*out = rd_init(buf, usize, r->swap);
	}
	return 0;
}

/*
 * A STRINGS option points at a section of NUL-separated section descriptions.
 * darc does not need them, but reads them so a damaged one is noticed.
 */
static int read_strings(struct fmt_reader *r, uint64_t off, struct fmt_err *err)
{
	struct rd d;
	uint8_t *owned;

	if (read_section(r, off, FMT_OPT_STRINGS, "strings", &d, &owned, err))
		return -1;
	free(owned);
	return 0;
}

static int parse_buffer_option_v7(struct fmt_reader *r, const uint8_t *p, uint32_t n,
				  struct fmt_err *err)
{
	struct rd o = rd_init(p, n, r->swap);
	uint64_t off = rd_u64(&o);
	const char *name = rd_str(&o);
	const char *clock = rd_str(&o);
	uint32_t psize = rd_u32(&o);
	uint32_t ncpus = rd_u32(&o);
	int b;
	struct rd d;
	uint16_t id, flags;

	if (o.bad)
		return FAIL("malformed BUFFER option");
	if (ncpus > MAX_CPUS || ncpus > rd_left(&o) / 20)
		return FAIL("BUFFER option '%.64s': absurd CPU count %u", name, ncpus);
	if (psize && (int)psize != r->info.page_size)
		return FAIL("buffer '%.64s' has page size %u, the file %d: unsupported", name,
			    psize, r->info.page_size);
	b = r->info.nbuffers;
	if (!add_buffer(r, name, clock, ncpus, err))
		return -1;
	/* the data section header says whether the CPU data is compressed */
	d = file_rd(r);
	rd_seek(&d, off);
	id = rd_u16(&d);
	flags = rd_u16(&d);
	if (d.bad)
		return FAIL("buffer '%.64s': data section at offset %" PRIu64 " is truncated", name,
			    off);
	if (id != FMT_OPT_BUFFER)
		return FAIL("buffer '%.64s': section at offset %" PRIu64
			    " has id %u, not a buffer",
			    name, off, id);
	if ((flags & FMT_SEC_FL_COMPRESS) && !r->dc)
		return FAIL("buffer '%.64s' is compressed but the file names no compression",
			    name);
	if (grow_streams(r, ncpus, err))
		return -1;
	for (uint32_t i = 0; i < ncpus; i++) {
		uint32_t cpu = rd_u32(&o);
		uint64_t coff = rd_u64(&o), clen = rd_u64(&o);
		if (o.bad)
			return FAIL("malformed BUFFER option '%.64s'", name);
		if (add_stream(r, b, i, cpu, coff, clen, flags & FMT_SEC_FL_COMPRESS, err))
			return -1;
	}
	return 0;
}

static int parse_options_v7(struct fmt_reader *r, uint64_t off, struct fmt_err *err)
{
	for (int nsec = 0; off; nsec++) {
		struct rd d;
		uint8_t *owned;
		uint64_t next = 0;
		bool done = false;

		if (nsec >= MAX_OPTION_SECTIONS)
			return FAIL("more than %d option sections (a loop?)", MAX_OPTION_SECTIONS);
		if (read_section(r, off, FMT_SEC_OPTIONS, "options", &d, &owned, err))
			return -1;
		while (!done) {
			uint16_t id = rd_u16(&d);
			uint32_t n = rd_u32(&d);
			const uint8_t *p = rd_bytes(&d, n);
			int rc = 0;

			if (!p) {
				free(owned);
				return FAIL("options section at offset %" PRIu64 ": truncated",
					    off);
			}
			switch (id) {
			case FMT_OPT_DONE:
				if (n < 8) {
					free(owned);
					return FAIL("options section at offset %" PRIu64
						    ": short DONE option",
						    off);
				}
				{
					struct rd o = rd_init(p, n, r->swap);
					next = rd_u64(&o);
				}
				done = true;
				break;
			case FMT_OPT_BUFFER:
				rc = parse_buffer_option_v7(r, p, n, err);
				break;
			case FMT_OPT_BUFFER_TEXT:
				r->info.latency_text = true;
				break;
			case FMT_OPT_STRINGS: {
				struct rd o = rd_init(p, n, r->swap);
				uint64_t soff = rd_u64(&o);
				rc = o.bad ? FAIL("option STRINGS: short offset")
					   : read_strings(r, soff, err);
				break;
			}
			case FMT_OPT_HEADER_INFO:
			case FMT_OPT_FTRACE_EVENTS:
			case FMT_OPT_EVENT_FORMATS:
			case FMT_OPT_KALLSYMS:
			case FMT_OPT_PRINTK:
			case FMT_OPT_CMDLINES:
				if (n < 8) {
					rc = FAIL("option %u: short offset", id);
					break;
				}
				{
					struct rd o = rd_init(p, n, r->swap);
					r->sec_off[id] = rd_u64(&o);
				}
				break;
			default:
				rc = fmt_handle_option(r, id, p, n, err);
			}
			if (rc) {
				free(owned);
				return -1;
			}
		}
		free(owned);
		if (!next) {
			/* trace-cmd writes its STRINGS section right after the last options */
			struct rd t = file_rd(r);
			rd_seek(&t, off + 8);
			uint64_t end = off + 16 + rd_u64(&t);
			if (!t.bad && end < r->file_len) {
				rd_seek(&t, end);
				if (rd_left(&t) < 16)
					return FAIL("truncated after the last options section");
				if (rd_u16(&t) == FMT_OPT_STRINGS && read_strings(r, end, err))
					return -1;
			}
		}
		if (next && next <= off)
			return FAIL("options section at offset %" PRIu64
				    " points back to offset %" PRIu64,
				    off, next);
		off = next;
	}
	return 0;
}

typedef int (*section_parser)(struct fmt_reader *, struct rd *, struct fmt_err *);

/* Keep a decompressed section alive until the reader closes. */
static int keep_section(struct fmt_reader *r, uint8_t *buf, struct fmt_err *err)
{
	void *k = realloc(r->kept, (r->nkept + 1) * sizeof(*r->kept));

	if (!k)
		return FAIL("out of memory");
	r->kept = k;
	r->kept[r->nkept++] = buf;
	return 0;
}

/*
 * Parse section @id with @fn. Sections whose content the reader keeps
 * pointing into (@keep: the event formats) stay allocated until close.
 */
static int parse_v7_section(struct fmt_reader *r, uint16_t id, const char *what,
			    section_parser fn, bool required, bool keep, struct fmt_err *err)
{
	struct rd d;
	uint8_t *owned;
	int rc;

	if (!r->sec_off[id]) {
		if (required)
			return FAIL("no %s section", what);
		return 0;
	}
	if (read_section(r, r->sec_off[id], id, what, &d, &owned, err))
		return -1;
	rc = fn(r, &d, err);
	if (keep && owned && !rc)
		return keep_section(r, owned, err) ? (free(owned), -1) : 0;
	free(owned);
	return rc;
}

static int parse_v7(struct fmt_reader *r, struct rd *d, struct fmt_err *err)
{
	const char *cname = rd_str(d);
	const char *cver = rd_str(d);
	uint64_t opt_off = rd_u64(d);

	if (d->bad)
		return FAIL("truncated in the file header");
	if (strcmp(cname, "none")) {
		r->dc = decomp_new(cname);
		if (!r->dc)
			return FAIL("compression '%.32s' is not supported by this build", cname);
	}
	r->info.compression = !strcmp(cname, "zstd") ? "zstd" : !strcmp(cname, "zlib") ? "zlib" : "none";
	r->compression_ver = strdup(cver);
	r->info.compression_ver = r->compression_ver;
	if (parse_options_v7(r, opt_off, err))
		return -1;
	/* header info first: the event formats depend on it */
	if (parse_v7_section(r, FMT_SEC_HEADER_INFO, "header info", parse_header_info, true, false,
			     err) ||
	    parse_v7_section(r, FMT_SEC_FTRACE_EVENTS, "ftrace formats", parse_ftrace_formats,
			     false, true, err) ||
	    parse_v7_section(r, FMT_SEC_EVENT_FORMATS, "event formats", parse_event_formats, false,
			     true, err) ||
	    parse_v7_section(r, FMT_SEC_KALLSYMS, "kallsyms", parse_kallsyms, false, false, err) ||
	    parse_v7_section(r, FMT_SEC_PRINTK, "printk formats", parse_printk, false, false, err) ||
	    parse_v7_section(r, FMT_SEC_CMDLINES, "cmdlines", parse_cmdlines, false, false, err))
		return -1;
	return 0;
}

/* ---- options common to both versions ------------------------------------ */

int fmt_handle_option(struct fmt_reader *r, uint16_t id, const uint8_t *p, uint32_t n,
		      struct fmt_err *err)
{
	struct rd o = rd_init(p, n, r->swap);

	switch (id) {
	case FMT_OPT_UNAME:
		free(r->uname);
		r->uname = opt_string(p, n);
		r->info.uname = r->uname;
		break;
	case FMT_OPT_VERSION:
		free(r->tracer_version);
		r->tracer_version = opt_string(p, n);
		r->info.tracer_version = r->tracer_version;
		break;
	case FMT_OPT_CPUCOUNT:
		if (n >= 4) {
			uint32_t c = rd_u32(&o);
			if (c > MAX_CPUS)
				return FAIL("absurd CPUCOUNT %u", c);
			r->info.cpus = c;
		}
		break;
	case FMT_OPT_OFFSET: {
		char *s = opt_string(p, n);
		if (!s)
			return FAIL("out of memory");
		r->info.ts_offset = strtoll(s, NULL, 0);
		free(s);
		break;
	}
	case FMT_OPT_CPUSTAT:
		if (append_cpustats(&r->cpustats_top, (const char *)p, strnlen((const char *)p, n)))
			return FAIL("out of memory");
		break;
	case FMT_OPT_DARC_MANIFEST:
		free(r->manifest);
		r->manifest = opt_string(p, n);
		r->info.manifest_json = r->manifest;
		break;
	case FMT_OPT_DATE:
	case FMT_OPT_TRACECLOCK:
	case FMT_OPT_HOOK:
	case FMT_OPT_PROCMAPS:
	case FMT_OPT_TRACEID:
	case FMT_OPT_TIME_SHIFT:
	case FMT_OPT_GUEST:
	case FMT_OPT_TSC2NSEC:
	case FMT_OPT_HEADER_INFO:
		break; /* known, not needed to read events */
	default:
		r->info.unknown_options++; /* skipped, as trace-cmd does */
	}
	(void)err;
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

/* Assign each buffer's cpustats text from the CPUSTAT options (v6 and v7 alike). */
static void split_cpustats(struct fmt_reader *r)
{
	/* trace-cmd writes the top buffer's stats, then "Buffer: NAME" and its stats */
	char *s = r->cpustats_top;

	if (!s || !r->info.nbuffers)
		return;
	while (s && *s) {
		char *next = strstr(s, "\nBuffer: ");
		char *end = next ? next + 1 : s + strlen(s);
		struct fmt_buffer *buf = &r->info.buffers[0];

		if (end > s) {
			size_t n = end - s;
			if (!strncmp(s, "Buffer: ", 8)) {
				/* find the buffer by name */
				char *nl = strchr(s, '\n');
				size_t nn = nl ? (size_t)(nl - s - 8) : strlen(s + 8);
				for (int i = 0; i < r->info.nbuffers; i++)
					if (strlen(r->info.buffers[i].name) == nn &&
					    !strncmp(r->info.buffers[i].name, s + 8, nn))
						buf = &r->info.buffers[i];
				if (nl) {
					n -= nl + 1 - s;
					s = nl + 1;
				}
			}
			free(buf->cpustats);
			buf->cpustats = strndup(s, n);
		}
		s = next ? next + 1 : NULL;
	}
}

int fmt_init_tep(struct fmt_reader *r, struct fmt_err *err)
{
	/* calloc: pages of zeros are only touched (faulted in) where an id is set */
	r->format_of_id = calloc(65536, sizeof(*r->format_of_id));
	r->ev_of_id = calloc(65536, sizeof(*r->ev_of_id));
	r->ev_done = calloc(65536, 1);
	r->ev_min_size = calloc(65536, sizeof(*r->ev_min_size));
	r->ev_full_size = calloc(65536, sizeof(*r->ev_full_size));
	r->tep = tep_alloc();
	if (!r->format_of_id || !r->ev_of_id || !r->ev_done || !r->ev_min_size || !r->ev_full_size || !r->tep)
		return FAIL("out of memory");
	tep_set_file_bigendian(r->tep, r->info.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									       : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, r->info.long_size);
	tep_set_page_size(r->tep, r->info.page_size);
	return 0;
}

/* Not a trace.dat: the first backend that knows the content reads it. */
static int open_backend(struct fmt_reader *r, struct fmt_err *err)
{
	for (int i = 0; fmt_backends[i]; i++) {
		if (!fmt_backends[i]->probe(r->map, r->file_len))
			continue;
		r->be = fmt_backends[i];
		r->info.format = r->be->name;
		return r->be->open(r, err);
	}
	if (r->file_len < sizeof(MAGIC))
		return FAIL("too short for a recording (%" PRIu64 " bytes)", r->file_len);
	return FAIL("not a trace.dat, perf.data or ftrace text file (wrong magic)");
}

struct fmt_reader *fmt_reader_open(const char *path, unsigned flags, struct fmt_err *err)
{
	struct fmt_reader *r = calloc(1, sizeof(*r));
	struct rd d;
	const uint8_t *magic;
	const char *ver;
	uint8_t endian, lsize;
	uint32_t psize;

	if (!r) {
		fmt_errf(err, path, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->cur = -1;
	r->flags = flags;
	r->path = strdup(path);
	if (!r->path) {
		fmt_errf(err, path, "out of memory");
		goto fail;
	}
	r->info.path = r->path;
	wfile_note_input(path); /* never overwritten by this process (wfile.h) */
	r->info.format = "trace.dat";
	r->info.compression = "none";
	r->info.compression_ver = "";
	if (fmt_uftrace_dir(path)) { /* a directory: uftrace.c */
		r->be = &fmt_uftrace_backend;
		r->info.format = r->be->name;
		if (r->be->open(r, err))
			goto fail;
		return r;
	}
	if (map_file(r, err))
		goto fail;
	if (r->file_len < sizeof(MAGIC) || memcmp(r->map, MAGIC, sizeof(MAGIC))) {
		if (open_backend(r, err))
			goto fail;
		return r;
	}

	d = file_rd(r);
	magic = rd_bytes(&d, sizeof(MAGIC));
	if (!magic) {
		FAIL("too short for a trace.dat file (%" PRIu64 " bytes)", r->file_len);
		goto fail;
	}
	if (memcmp(magic, MAGIC, sizeof(MAGIC))) {
		FAIL("not a trace.dat file (wrong magic)");
		goto fail;
	}
	ver = rd_str(&d);
	if (!ver) {
		FAIL("truncated in the file header");
		goto fail;
	}
	r->info.version = atoi(ver);
	if (strnlen(ver, 8) > 4 || (r->info.version != 6 && r->info.version != 7)) {
		FAIL("unsupported trace.dat version '%.8s' (6 and 7 are supported)", ver);
		goto fail;
	}
	endian = *(const uint8_t *)(rd_bytes(&d, 1) ?: (const uint8_t *)"\xff");
	lsize = *(const uint8_t *)(rd_bytes(&d, 1) ?: (const uint8_t *)"\0");
	if (d.bad) {
		FAIL("truncated in the file header");
		goto fail;
	}
	if (endian > 1) {
		FAIL("bad endianness byte %u", endian);
		goto fail;
	}
	if (lsize != 4 && lsize != 8) {
		FAIL("bad long size %u", lsize);
		goto fail;
	}
	r->info.big_endian = endian;
	r->swap = endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	d.swap = r->swap;
	r->info.long_size = lsize;
	psize = rd_u32(&d);
	if (d.bad || psize < 64 || psize > MAX_PAGE_SIZE || (psize & (psize - 1))) {
		FAIL("bad page size %u", psize);
		goto fail;
	}
	r->info.page_size = psize;

	if (fmt_init_tep(r, err))
		goto fail;

	if ((r->info.version == 6 ? parse_v6(r, &d, err) : parse_v7(r, &d, err)))
		goto fail;
	if (r->info.cpus == 0)
		for (int i = 0; i < r->info.nbuffers; i++)
			if (r->info.buffers[i].ncpus > r->info.cpus)
				r->info.cpus = r->info.buffers[i].ncpus;
	tep_set_cpus(r->tep, r->info.cpus);
	for (int i = 0; i < r->info.nbuffers; i++)
		if (r->info.buffers[i].ncpus) {
			r->info.clock = r->info.buffers[i].clock;
			break;
		}
	if (!r->info.clock)
		r->info.clock = r->info.nbuffers ? r->info.buffers[0].clock : "local";
	split_cpustats(r);
	if (fmt_streams_init(r, err))
		goto fail;
	return r;
fail:
	fmt_reader_close(r);
	return NULL;
}

void fmt_reader_close(struct fmt_reader *r)
{
	if (!r)
		return;
	if (r->be && r->be->close)
		r->be->close(r);
	prefetch_stop(r->prefetch);
	kmod_free(&r->kmods);
	free(r->streams);
	free(r->heap);
	free(r->formats);
	free(r->format_of_id);
	free(r->ev_of_id);
	free(r->ev_min_size);
	free(r->ev_full_size);
	free(r->pad);
	free(r->ev_done);
	for (int i = 0; i < r->nkept; i++)
		free(r->kept[i]);
	free(r->kept);
	for (int i = 0; i < r->info.nbuffers; i++) {
		struct fmt_buffer *b = &r->info.buffers[i];
		free(b->name);
		free(b->clock);
		free(b->cpu_ids);
		free(b->bytes);
		free(b->cpustats);
	}
	free(r->info.buffers);
	if (r->tep)
		tep_free(r->tep);
	decomp_free(r->dc);
	if (r->map)
		munmap(r->map, r->map_total);
	if (r->fd >= 0)
		close(r->fd);
	free(r->uname);
	free(r->tracer_version);
	free(r->manifest);
	free(r->compression_ver);
	free(r->cpustats_top);
	free(r->path);
	free(r);
}

const struct fmt_info *fmt_reader_info(const struct fmt_reader *r)
{
	return &r->info;
}

struct tep_handle *fmt_reader_tep(const struct fmt_reader *r)
{
	return r->tep;
}

const struct fmt_cpu_stats *fmt_reader_cpu_stats(const struct fmt_reader *r, int b, int i)
{
	/*
	 * Every backend adds the streams in order of buffer, then CPU index:
	 * bisect to buffer @b's first, not a scan (asked once a CPU, of
	 * thousands of CPUs, it was quadratic).
	 */
	int lo = 0, hi = r->nstreams, k;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (r->streams[mid].buffer < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = lo + i;
	if (i < 0 || k >= r->nstreams || r->streams[k].buffer != b || r->streams[k].index != i)
		return NULL;
	return &r->streams[k].st;
}

