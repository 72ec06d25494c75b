// SPDX-License-Identifier: MIT
/*
 * The tracing data: the metadata trace-cmd writes (inline in a trace.dat v6,
 * one section each in v7) and perf.data embeds as HEADER_TRACING_DATA:
 * header_page/header_event, ftrace and event formats, kallsyms, printk
 * formats and saved cmdlines, parsed into the reader's libtraceevent handle.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "bytes.h"
#include "events.h"
#include "fmt.h"
#include "tracing-data.h"

/*
 * The parts of the file that describe the events, wherever they come from
 * (inline in v6, sections in v7). @buf points at data inside the file or a
 * decompressed copy.
 */
int tracing_data_parse_header_info(struct fmt_reader *r, struct rd *d, struct err_msg *err)
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
			    struct err_msg *err)
{
	uint64_t n = rd_u64(d);
	const char *p = (const char *)rd_bytes(d, n);

	if (!p)
		return FAIL("truncated in the %s event formats (format of %" PRIu64 " bytes)", sys,
			    n);
	return fmt_events_add_format(r, sys, p, n, err);
}

int tracing_data_parse_ftrace_formats(struct fmt_reader *r, struct rd *d, struct err_msg *err)
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

int tracing_data_parse_event_formats(struct fmt_reader *r, struct rd *d, struct err_msg *err)
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
		       uint64_t *len, struct err_msg *err)
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

/* Each hex digit's value plus one, 0 for any other byte: a table, for kallsyms' 100 K lines */
static const uint8_t hex_value1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
    ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hex_digit(char c)
{
	return hex_value1[(unsigned char)c] - 1;
}

/* The hex digits at @p (at most @len), span(p, len, HEX) without a strchr() a byte. */
static size_t hex_span(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && hex_digit(p[i]) >= 0)
		i++;
	return i;
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static int kallsyms_line(const char *p, size_t len)
{
	size_t i = hex_span(p, len);

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

/* The end of the word at @p, before @end: what sscanf's %s would take. */
static const char *word_end_in(const char *p, const char *end)
{
	while (p < end && *p != ' ' && (*p < '\t' || *p > '\r'))
		p++;
	return p;
}

/* A kallsyms line: its address, its name and its module (NULL, or @mod_len bytes). */
struct kline {
	unsigned long long addr;
	const char *name, *mod;
	size_t len, mod_len;
};

/* The line @line (@len bytes) through libtraceevent's sscanf(), on a copy of its own. */
static int kallsyms_sscanf(const char *line, size_t len, char *type, struct kline *out,
			   int *func_start, int *func_end, int *mod_start, int *mod_end)
{
	char buf[512], *c = len < sizeof(buf) ? buf : malloc(len + 1);
	int n;

	if (!c)
		return -1;
	memcpy(c, line, len);
	c[len] = 0;
	errno = 0;
	n = sscanf(c, "%16llx %c %n%*s%n%*1[\t][%n%*s%n", &out->addr, type, func_start, func_end,
		   mod_start, mod_end);
	if (c != buf)
		free(c);
	return errno || n != 2 || !*func_end ? -1 : 0;
}

/*
 * One kept line of kallsyms (@line, @len bytes, no newline), as
 * libtraceevent's tep_parse_kallsyms() reads it with sscanf("%16llx %c
 * %n%*s%n%*1[\t][%n%*s%n"), whose cost was most of a small recording's
 * analysis: the usual shape is read here, any other goes through that
 * sscanf. The line is only read (it may lie in the file's mapping).
 * 1: a function, in *@out; 0: a symbol libtraceevent would not keep; -1:
 * where libtraceevent would stop.
 */
static int kallsyms_entry(const char *line, size_t len, struct kline *out)
{
	const char *end = line + len;
	int func_start, func_end = 0, mod_start = 0, mod_end = 0;
	char type;
	size_t i = hex_span(line, len < 17 ? len : 17);

	out->addr = 0;
	if (i > 16) /* kallsyms_line() kept it: i > 0, a space, the type, a space, a name */
		goto slow;
	for (size_t k = 0; k < i; k++)
		out->addr = out->addr << 4 | (unsigned)hex_digit(line[k]);
	type = line[i + 1];
	func_start = (int)i + 3;
	func_end = (int)(word_end_in(line + func_start, end) - line);
	if (end - (line + func_end) >= 2 && line[func_end] == '\t' && line[func_end + 1] == '[') {
		mod_start = func_end + 2;
		mod_end = (int)(word_end_in(line + mod_start, end) - line);
		if (mod_end == mod_start)
			goto slow; /* %s would skip white space, or fail at the end */
	}
	goto found;
slow:
	func_end = mod_start = mod_end = 0;
	if (kallsyms_sscanf(line, len, &type, out, &func_start, &func_end, &mod_start, &mod_end))
		return -1;
found:
	if (line[func_start] == '$' || type == 'A' || type == 'a')
		return 0;
	out->name = line + func_start;
	out->len = (size_t)(func_end - func_start);
	/* the module's last byte (its ']') is cut off, as libtraceevent does */
	out->mod = mod_end ? line + mod_start : NULL;
	out->mod_len = mod_end ? (size_t)(mod_end - 1 - mod_start) : 0;
	return 1;
}

/*
 * Parse the kallsyms text @p (@n bytes, which live as long as @r; freed with
 * it when @owned): libtraceevent resolves functions through it, and r->kmods
 * knows the modules. One pass, reading the text in place: a line of another
 * shape is dropped and counted; the text ends at its first NUL, if any.
 */
int tracing_data_load_kallsyms_text(struct fmt_reader *r, const uint8_t *p, uint64_t n, bool owned,
			   struct err_msg *err)
{
	const char *s = (const char *)p, *nul = memchr(s, 0, n);
	const char *stop = nul ? nul : s + n;
	bool stopped = false;
	struct kline k;

	if (ksyms_start(&r->ksyms_tab, s, n, owned))
		return 0; /* a second kallsyms: the first names the functions */
	for (const char *line = s, *end; line < stop; line = end + 1) {
		int rc;

		end = memchr(line, '\n', (size_t)(stop - line));
		if (!end)
			end = stop;
		if (!kallsyms_line(line, (size_t)(end - line))) {
			r->info.bad_lines += end > line;
			continue;
		}
		if (kmod_line(&r->kmods, line, end))
			return FAIL("out of memory for kallsyms' modules");
		if (stopped)
			continue;
		/* libtraceevent's tep_parse_kallsyms() stops at a line it cannot read */
		rc = kallsyms_entry(line, (size_t)(end - line), &k);
		stopped = rc < 0;
		if (rc > 0 && ksyms_add(&r->ksyms_tab, k.addr, k.name, k.len, k.mod, k.mod_len))
			return FAIL("out of memory for kallsyms");
	}
	if (ksyms_publish(&r->ksyms_tab, r->tep))
		return FAIL("out of memory for kallsyms");
	return 0;
}

/*
 * Kallsyms are big (a few MB of text) and only needed to name functions:
 * remember where they are and parse them on first use (fmt_reader_load_kallsyms).
 */
int tracing_data_parse_kallsyms(struct fmt_reader *r, struct rd *d, struct err_msg *err)
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
	/* the buffer may not outlive this parse (a section, a record): a copy of its own */
	uint8_t *copy = malloc(n ? n : 1);
	if (!copy)
		return FAIL("out of memory for kallsyms (%" PRIu64 " bytes)", n);
	memcpy(copy, p, n);
	return tracing_data_load_kallsyms_text(r, copy, n, true, err);
}

/* A text table: its lines of the shape @ok, into libtraceevent with @parse. */
static int parse_table(struct fmt_reader *r, struct rd *d, int size_bytes, const char *what,
		       uint64_t *bytes, int (*ok)(const char *line, size_t len),
		       int (*parse)(struct tep_handle *tep, const char *buf), struct err_msg *err)
{
	char *s = read_blob(r, d, size_bytes, what, bytes, err);

	if (!s)
		return -1;
	r->info.bad_lines += keep_lines(s, ok);
	parse(r->tep, s);
	free(s);
	return 0;
}

int tracing_data_parse_printk(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	return parse_table(r, d, 4, "printk formats", &r->info.printk_bytes, printk_line,
			   tep_parse_printk_formats, err);
}

/*
 * The kept lines of saved cmdlines (@s, "1234 comm" each: cmdline_line())
 * into libtraceevent, as tep_parse_saved_cmdlines() puts them, the same
 * comms in the same order (duplicates and all), stopping where it stops (a
 * line with nothing after the pid's white space), but without its sscanf()
 * per line: the host's 6 K lines cost a third of a small recording's
 * analysis. @s is ours: each comm is cut in place.
 */
static int register_cmdlines(struct tep_handle *tep, char *s)
{
	for (char *line = s, *end; *line; line = end + (*end == '\n')) {
		long long pid = 0;
		char *p = line, cut;

		end = line + strcspn(line, "\n");
		while (*p >= '0' && *p <= '9') /* 1 to 10 digits: a long, then an int, as %d */
			pid = pid * 10 + (*p++ - '0');
		while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
			p++;
		if (p == end) /* %m[^\n] matches nothing: libtraceevent stops there */
			return -1;
		cut = *end;
		*end = 0;
		tep_register_comm(tep, p, (int)pid);
		*end = cut;
	}
	return 0;
}

int tracing_data_parse_cmdlines(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	char *s = read_blob(r, d, 8, "saved cmdlines", &r->info.cmdlines_bytes, err);

	if (!s)
		return -1;
	r->info.bad_lines += keep_lines(s, cmdline_line);
	register_cmdlines(r->tep, s);
	free(s);
	return 0;
}

int tracing_data_parse(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	return tracing_data_parse_header_info(r, d, err) ||
		       tracing_data_parse_ftrace_formats(r, d, err) ||
		       tracing_data_parse_event_formats(r, d, err) ||
		       tracing_data_parse_kallsyms(r, d, err) ||
		       tracing_data_parse_printk(r, d, err) ||
		       tracing_data_parse_cmdlines(r, d, err)
		   ? -1
		   : 0;
}
