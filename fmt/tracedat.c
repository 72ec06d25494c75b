// SPDX-License-Identifier: MIT
/*
 * The trace.dat reader (trace-cmd file format versions 6 and 7).
 *
 * The file, mapped by reader.c, holds the tracing data (tracing-data.c:
 * the event formats, kallsyms, ...), parsed into a libtraceevent handle,
 * and each CPU's ring-buffer pages, found here (v6: a table after the
 * tracing data; v7: options pointing at sections), read ahead by
 * prefetch.c's threads (decompressed if need be, walked page by page with
 * kbuffer) and merged by tdstream.c.
 *
 * Everything read from the file is checked against the file's size before
 * use, and every size that leads to an allocation is bounded, so a corrupt
 * or hostile file yields an error message, never a crash.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "bytes.h"
#include "decomp.h"
#include "events.h"
#include "fmt.h"
#include "grow.h"
#include "prefetch.h"
#include "tracedat.h"
#include "tracing-data.h"

/* Bounds on what the file may make us allocate. */
#define MAX_META_BYTES (1ULL << 30)  /* one metadata section, decompressed */
#define MAX_CPUS 8192
#define MAX_BUFFERS 256
#define MAX_PAGE_SIZE (1U << 24)
#define MAX_OPTION_SECTIONS 4096

static const uint8_t MAGIC[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

static struct tracedat *td(const struct fmt_reader *r)
{
	return r->be_priv;
}

/* A range of the file as a reader. */
static struct rd file_rd(struct fmt_reader *r)
{
	return rd_init(r->map, r->file_len, r->swap);
}

static struct fmt_buffer *add_buffer(struct fmt_reader *r, const char *name, const char *clock,
				     int ncpus, struct err_msg *err)
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
	if (GROW(r->info.buffers, r->info.nbuffers, td(r)->buffers_cap, 4)) {
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
		      bool compressed, struct err_msg *err)
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

static int grow_streams(struct fmt_reader *r, int more, struct err_msg *err)
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

/* ---- options common to both versions ------------------------------------ */

/* trace-cmd's names of the option ids (its enum tracecmd_file_options). */
static const char *const option_names[] = {
    [FMT_OPT_DONE] = "DONE",
    [FMT_OPT_DATE] = "DATE",
    [FMT_OPT_CPUSTAT] = "CPUSTAT",
    [FMT_OPT_BUFFER] = "BUFFER",
    [FMT_OPT_TRACECLOCK] = "TRACECLOCK",
    [FMT_OPT_UNAME] = "UNAME",
    [FMT_OPT_HOOK] = "HOOK",
    [FMT_OPT_OFFSET] = "OFFSET",
    [FMT_OPT_CPUCOUNT] = "CPUCOUNT",
    [FMT_OPT_VERSION] = "VERSION",
    [FMT_OPT_PROCMAPS] = "PROCMAPS",
    [FMT_OPT_TRACEID] = "TRACEID",
    [FMT_OPT_TIME_SHIFT] = "TIME_SHIFT",
    [FMT_OPT_GUEST] = "GUEST",
    [FMT_OPT_TSC2NSEC] = "TSC2NSEC",
    [FMT_OPT_STRINGS] = "STRINGS",
    [FMT_OPT_HEADER_INFO] = "HEADER_INFO",
    [FMT_OPT_FTRACE_EVENTS] = "FTRACE_EVENTS",
    [FMT_OPT_EVENT_FORMATS] = "EVENT_FORMATS",
    [FMT_OPT_KALLSYMS] = "KALLSYMS",
    [FMT_OPT_PRINTK] = "PRINTK",
    [FMT_OPT_CMDLINES] = "CMDLINES",
    [FMT_OPT_BUFFER_TEXT] = "BUFFER_TEXT",
};

/* Note option @id in the file's list (fmt_info.options): applied unless told. */
static struct fmt_option *note_option(struct fmt_reader *r, uint16_t id, struct err_msg *err)
{
	struct fmt_option *o;

	if (GROW(r->info.options, r->info.noptions, td(r)->options_cap, 16)) {
		FAIL("out of memory");
		return NULL;
	}
	o = &r->info.options[r->info.noptions++];
	memset(o, 0, sizeof(*o));
	o->id = id;
	o->name = id < sizeof(option_names) / sizeof(option_names[0]) && option_names[id]
			  ? option_names[id]
		  : id == FMT_OPT_DARC_MANIFEST ? "DARC_MANIFEST"
						: "unknown";
	o->use = FMT_OPTION_APPLIED;
	return o;
}

/* Options darc reads no further, and why: info lists them as not applied. */
static void ignored_option(struct fmt_option *o, uint16_t id)
{
	o->use = FMT_OPTION_IGNORED;
	if (id == FMT_OPT_HOOK)
		snprintf(o->note, sizeof(o->note), "a hook of trace-cmd's record -H: darc "
			 "matches no events by it");
	else if (id == FMT_OPT_PROCMAPS)
		snprintf(o->note, sizeof(o->note), "user-space memory maps: darc names no user "
			 "addresses by them");
	else
		snprintf(o->note, sizeof(o->note), "unknown to darc (and to trace-cmd 3.4): "
			 "passed over");
}

/* Metadata options: uname, version, CPU count, stats, the trace id, darc's manifest. */
static int meta_option(struct fmt_reader *r, uint16_t id, const uint8_t *p, uint32_t n,
		       struct fmt_option *op, struct err_msg *err)
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
	case FMT_OPT_CPUSTAT:
		if (append_cpustats(&td(r)->cpustats_top, (const char *)p, strnlen((const char *)p, n)))
			return FAIL("out of memory");
		break;
	case FMT_OPT_TRACEID:
		op->use = FMT_OPTION_SHOWN;
		if (n >= 8)
			snprintf(op->note, sizeof(op->note), "0x%" PRIx64, rd_u64(&o));
		break;
	case FMT_OPT_DARC_MANIFEST:
		free(td(r)->manifest);
		td(r)->manifest = opt_string(p, n);
		r->info.manifest_json = td(r)->manifest;
		break;
	}
	return 0;
}

/* Take an option both versions share (uname, version, cpustat, clocks, ...). */
static int handle_option(struct fmt_reader *r, uint16_t id, const uint8_t *p, uint32_t n,
			 struct fmt_option *o, struct err_msg *err)
{
	switch (id) {
	case FMT_OPT_UNAME:
	case FMT_OPT_VERSION:
	case FMT_OPT_CPUCOUNT:
	case FMT_OPT_CPUSTAT:
	case FMT_OPT_TRACEID:
	case FMT_OPT_DARC_MANIFEST:
		return meta_option(r, id, p, n, o, err);
	case FMT_OPT_DATE:
	case FMT_OPT_OFFSET:
	case FMT_OPT_TRACECLOCK:
	case FMT_OPT_TIME_SHIFT:
	case FMT_OPT_GUEST:
	case FMT_OPT_TSC2NSEC:
		return tdclock_option(r, &td(r)->clk, id, p, n, o, err);
	case FMT_OPT_HOOK:
	case FMT_OPT_PROCMAPS:
		ignored_option(o, id);
		return 0;
	case FMT_OPT_HEADER_INFO:
		return 0; /* v6 files of old trace-cmd: the header is in the tracing data */
	default:
		ignored_option(o, id);
		r->info.unknown_options++; /* skipped, as trace-cmd does */
		return 0;
	}
}

/* ---- version 6 --------------------------------------------------------- */

/*
 * v6 flyrecord CPU table: @ncpus pairs of (offset, size) at the reader's
 * position, for buffer @b.
 */
static int read_cpu_table(struct fmt_reader *r, struct rd *d, int b, int ncpus,
			  struct err_msg *err)
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

/* What v6's options say that its data needs: the instances and the clock. */
struct v6_opts {
	struct {
		uint64_t off; /* of the instance's "flyrecord" data */
		char *name;
	} buf[MAX_BUFFERS];
	int nbuf;
	const char *clock; /* "local", or in clockbuf */
	char *clockbuf;
};

/* One option of v6's options: those about the data here, the others shared. */
static int v6_option(struct fmt_reader *r, struct v6_opts *o, uint16_t id, const uint8_t *p,
		     uint32_t n, struct err_msg *err)
{
	struct fmt_option *op = note_option(r, id, err);

	if (!op)
		return -1;
	switch (id) {
	case FMT_OPT_BUFFER: {
		struct rd b = rd_init(p, n, r->swap);
		const char *name;

		if (n < 9 || o->nbuf >= MAX_BUFFERS)
			return FAIL("malformed BUFFER option");
		o->buf[o->nbuf].off = rd_u64(&b);
		name = rd_str(&b);
		if (b.bad)
			return FAIL("malformed BUFFER option");
		o->buf[o->nbuf].name = strdup(name);
		if (!o->buf[o->nbuf].name)
			return FAIL("out of memory");
		o->nbuf++;
		return 0;
	}
	case FMT_OPT_TRACECLOCK: {
		char *lb, *rb;

		free(o->clockbuf);
		o->clock = "local"; /* not into the text freed: this one may name none */
		o->clockbuf = opt_string(p, n);
		if (!o->clockbuf)
			return FAIL("out of memory");
		/* "[local] global ...": the bracketed one is in use */
		lb = strchr(o->clockbuf, '[');
		if (lb && (rb = strchr(lb, ']'))) {
			*rb = 0;
			o->clock = lb + 1;
		}
		return handle_option(r, id, p, n, op, err);
	}
	default:
		return handle_option(r, id, p, n, op, err);
	}
}

/* The options after the tracing data, up to the option 0 that ends them. */
static int v6_options(struct fmt_reader *r, struct rd *d, struct v6_opts *o, struct err_msg *err)
{
	for (;;) {
		uint16_t id = rd_u16(d);
		uint32_t n;
		const uint8_t *p;

		if (d->bad)
			return FAIL("truncated in the options");
		if (id == 0)
			return 0;
		n = rd_u32(d);
		p = rd_bytes(d, n);
		if (!p)
			return FAIL("truncated in the options");
		if (v6_option(r, o, id, p, n, err))
			return -1;
	}
}

/* The top buffer's CPU table at @d, then each instance's at its BUFFER option's offset. */
static int v6_buffers(struct fmt_reader *r, struct rd *d, const struct v6_opts *o, uint32_t cpus,
		      struct err_msg *err)
{
	if (!add_buffer(r, "", o->clock, cpus, err) || read_cpu_table(r, d, 0, cpus, err))
		return -1;
	{
		/* then "[clock]", which trace-cmd takes for the clock after a TRACECLOCK
		   option (or "[local]" if it cannot be read) */
		struct rd c = *d;
		uint64_t n = rd_u64(&c);
		const uint8_t *p = n < 4096 ? rd_bytes(&c, n) : NULL;

		if (p)
			tdclock_v6_name(&td(r)->clk, (const char *)p, n);
		else
			tdclock_v6_name(&td(r)->clk, "[local]", 7);
	}
	for (int i = 0; i < o->nbuf; i++) {
		struct rd bd = file_rd(r);
		int b = r->info.nbuffers;
		const uint8_t *tag;

		rd_seek(&bd, o->buf[i].off);
		if (!add_buffer(r, o->buf[i].name, o->clock, cpus, err))
			return -1;
		/* an instance's data starts with its own "flyrecord\0" tag */
		tag = rd_bytes(&bd, 10);
		if (!tag || memcmp(tag, "flyrecord", 10))
			return FAIL("buffer '%.64s': no 'flyrecord' data at offset %" PRIu64,
				    o->buf[i].name, o->buf[i].off);
		if (read_cpu_table(r, &bd, b, cpus, err))
			return -1;
	}
	return 0;
}

/* After the tracing data: the CPU count, options, then latency text or flyrecord data. */
static int v6_data(struct fmt_reader *r, struct rd *d, struct v6_opts *o, struct err_msg *err)
{
	uint32_t cpus = rd_u32(d);
	const uint8_t *tag;

	if (d->bad)
		return FAIL("truncated before the CPU count");
	if (cpus > MAX_CPUS)
		return FAIL("absurd CPU count %u", cpus);
	r->info.cpus = cpus;
	tag = rd_bytes(d, 10);
	if (!tag)
		return FAIL("truncated before the trace data");
	if (!memcmp(tag, "options  ", 10)) {
		if (v6_options(r, d, o, err))
			return -1;
		tag = rd_bytes(d, 10);
		if (!tag)
			return FAIL("truncated before the trace data");
	}
	if (!memcmp(tag, "latency  ", 10)) {
		r->info.latency_text = true;
		return add_buffer(r, "", o->clock, 0, err) ? 0 : -1;
	}
	if (memcmp(tag, "flyrecord", 10))
		return FAIL("neither 'flyrecord' nor 'latency' data at offset %" PRIu64,
			    rd_pos(d) - 10);
	return v6_buffers(r, d, o, cpus, err);
}

static int parse_v6(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	struct v6_opts o = {.clock = "local"};
	int rc;

	if (tracing_data_parse(r, d, err))
		return -1;
	rc = v6_data(r, d, &o, err);
	for (int i = 0; i < o.nbuf; i++)
		free(o.buf[i].name);
	free(o.clockbuf);
	return rc;
}

/* ---- version 7 --------------------------------------------------------- */

/*
 * Read the section at file offset @off: check its id, decompress it if
 * needed. On success *@out is a reader over the section's content and
 * *@owned the buffer to free (NULL if the content is in the mapping).
 */
static int read_section(struct fmt_reader *r, uint64_t off, uint16_t want, const char *what,
			struct rd *out, uint8_t **owned, struct err_msg *err)
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
		if (!td(r)->dc)
			return FAIL("%s section is compressed but the file names no compression",
				    what);
		if (usize > MAX_META_BYTES)
			return FAIL("%s section: absurd uncompressed size %u", what, usize);
		buf = malloc(usize ? usize : 1);
		if (!buf)
			return FAIL("out of memory for the %s section (%u bytes)", what, usize);
		if (decomp_run(td(r)->dc, cdata, csize, buf, usize)) {
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
static int read_strings(struct fmt_reader *r, uint64_t off, struct err_msg *err)
{
	struct rd d;
	uint8_t *owned;

	if (read_section(r, off, FMT_OPT_STRINGS, "strings", &d, &owned, err))
		return -1;
	free(owned);
	return 0;
}

static int parse_buffer_option_v7(struct fmt_reader *r, const uint8_t *p, uint32_t n,
				  struct err_msg *err)
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
	if ((flags & FMT_SEC_FL_COMPRESS) && !td(r)->dc)
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

/* One option of v7's but DONE: those about this file's layout, the others shared. */
static int v7_option(struct fmt_reader *r, uint16_t id, const uint8_t *p, uint32_t n,
		     struct err_msg *err)
{
	struct rd d = rd_init(p, n, r->swap);
	struct fmt_option *o = note_option(r, id, err);

	if (!o)
		return -1;
	switch (id) {
	case FMT_OPT_BUFFER:
		return parse_buffer_option_v7(r, p, n, err);
	case FMT_OPT_BUFFER_TEXT:
		r->info.latency_text = true;
		return 0;
	case FMT_OPT_STRINGS: {
		uint64_t soff = rd_u64(&d);
		return d.bad ? FAIL("option STRINGS: short offset") : read_strings(r, soff, err);
	}
	default:
		if (!fmt_opt_is_section(id))
			return handle_option(r, id, p, n, o, err);
		if (n < 8)
			return FAIL("option %u: short offset", id);
		td(r)->sec_off[id] = rd_u64(&d);
		return 0;
	}
}

/* The options section at @off, up to its DONE, which gives the next one's offset. */
static int v7_option_section(struct fmt_reader *r, uint64_t off, uint64_t *next,
			     struct err_msg *err)
{
	struct rd d;
	uint8_t *owned;
	int rc = 0;

	if (read_section(r, off, FMT_SEC_OPTIONS, "options", &d, &owned, err))
		return -1;
	while (!rc) {
		uint16_t id = rd_u16(&d);
		uint32_t n = rd_u32(&d);
		const uint8_t *p = rd_bytes(&d, n);

		if (!p) {
			rc = FAIL("options section at offset %" PRIu64 ": truncated", off);
		} else if (id == FMT_OPT_DONE) {
			struct rd o = rd_init(p, n, r->swap);

			if (n < 8)
				rc = FAIL("options section at offset %" PRIu64 ": short DONE option",
					  off);
			else
				*next = rd_u64(&o);
			break;
		} else {
			rc = v7_option(r, id, p, n, err);
		}
	}
	free(owned);
	return rc;
}

/* trace-cmd writes its STRINGS section right after the last options section, at @off. */
static int v7_strings_after(struct fmt_reader *r, uint64_t off, struct err_msg *err)
{
	struct rd t = file_rd(r);
	uint64_t end;

	rd_seek(&t, off + 8);
	end = off + 16 + rd_u64(&t);
	if (t.bad || end >= r->file_len)
		return 0;
	rd_seek(&t, end);
	if (rd_left(&t) < 16)
		return FAIL("truncated after the last options section");
	if (rd_u16(&t) == FMT_OPT_STRINGS && read_strings(r, end, err))
		return -1;
	return 0;
}

/*
 * The chain of options sections from @off. trace-cmd's own files chain them
 * forward, but a section may point back to one written before it (trace-cmd
 * reads that too): only a section met twice, a loop, is refused.
 */
static int parse_options_v7(struct fmt_reader *r, uint64_t off, struct err_msg *err)
{
	uint64_t seen[64];
	int nsec;

	for (nsec = 0; off; nsec++) {
		uint64_t next = 0;

		if (nsec >= MAX_OPTION_SECTIONS)
			return FAIL("more than %d option sections", MAX_OPTION_SECTIONS);
		for (int i = 0; i < nsec && i < 64; i++)
			if (seen[i] == off)
				return FAIL("options sections loop back to offset %" PRIu64, off);
		if (nsec < 64)
			seen[nsec] = off;
		if (v7_option_section(r, off, &next, err))
			return -1;
		if (!next && v7_strings_after(r, off, err))
			return -1;
		off = next;
	}
	return 0;
}

typedef int (*section_parser)(struct fmt_reader *, struct rd *, struct err_msg *);

/* Keep a decompressed section alive until the reader closes. */
static int keep_section(struct fmt_reader *r, uint8_t *buf, struct err_msg *err)
{
	struct tracedat *t = td(r);
	void *k = realloc(t->kept, (t->nkept + 1) * sizeof(*t->kept));

	if (!k)
		return FAIL("out of memory");
	t->kept = k;
	t->kept[t->nkept++] = buf;
	return 0;
}

/*
 * Parse section @id with @fn. Sections whose content the reader keeps
 * pointing into (@keep: the event formats) stay allocated until close.
 */
static int parse_v7_section(struct fmt_reader *r, uint16_t id, const char *what,
			    section_parser fn, bool required, bool keep, struct err_msg *err)
{
	struct rd d;
	uint8_t *owned;
	int rc;

	if (!td(r)->sec_off[id]) {
		if (required)
			return FAIL("no %s section", what);
		return 0;
	}
	if (read_section(r, td(r)->sec_off[id], id, what, &d, &owned, err))
		return -1;
	rc = fn(r, &d, err);
	if (keep && owned && !rc)
		return keep_section(r, owned, err) ? (free(owned), -1) : 0;
	free(owned);
	return rc;
}

/*
 * Kallsyms left for later (FMT_OPEN_NO_KALLSYMS): their size, from the
 * section's header, without decompressing a few MB that the first kernel
 * address decompresses again (tracedat_load_kallsyms). 0 or -1.
 */
static int kallsyms_size_v7(struct fmt_reader *r, struct err_msg *err)
{
	uint64_t off = td(r)->sec_off[FMT_SEC_KALLSYMS];
	struct rd d = file_rd(r);
	uint16_t flags;
	uint64_t size;

	if (!off)
		return 0;
	rd_seek(&d, off);
	if (rd_u16(&d) != FMT_SEC_KALLSYMS && !d.bad)
		return FAIL("kallsyms section at offset %" PRIu64 ": not a kallsyms section", off);
	flags = rd_u16(&d);
	(void)rd_u32(&d); /* description string id */
	size = rd_u64(&d);
	if (flags & FMT_SEC_FL_COMPRESS) {
		(void)rd_u32(&d); /* compressed size */
		size = rd_u32(&d);   /* its text's, and the text's size before it */
	}
	if (d.bad)
		return FAIL("kallsyms section at offset %" PRIu64 ": truncated header", off);
	r->info.kallsyms_bytes = size >= 4 ? size - 4 : 0;
	return 0;
}

static int parse_v7(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	const char *cname = rd_str(d);
	const char *cver = rd_str(d);
	uint64_t opt_off = rd_u64(d);

	if (d->bad)
		return FAIL("truncated in the file header");
	if (strcmp(cname, "none")) {
		td(r)->dc = decomp_new(cname);
		if (!td(r)->dc)
			return FAIL("compression '%.32s' is not supported by this build", cname);
	}
	r->info.compression = !strcmp(cname, "zstd") ? "zstd" : !strcmp(cname, "zlib") ? "zlib" : "none";
	td(r)->compression_ver = strdup(cver);
	r->info.compression_ver = td(r)->compression_ver;
	if (parse_options_v7(r, opt_off, err))
		return -1;
	/* header info first: the event formats depend on it */
	if (parse_v7_section(r, FMT_SEC_HEADER_INFO, "header info", tracing_data_parse_header_info,
			     true, false, err) ||
	    parse_v7_section(r, FMT_SEC_FTRACE_EVENTS, "ftrace formats",
			     tracing_data_parse_ftrace_formats, false, true, err) ||
	    parse_v7_section(r, FMT_SEC_EVENT_FORMATS, "event formats",
			     tracing_data_parse_event_formats, false, true, err) ||
	    (r->flags & FMT_OPEN_NO_KALLSYMS
		 ? kallsyms_size_v7(r, err)
		 : parse_v7_section(r, FMT_SEC_KALLSYMS, "kallsyms", tracing_data_parse_kallsyms,
				    false, false, err)) ||
	    parse_v7_section(r, FMT_SEC_PRINTK, "printk formats", tracing_data_parse_printk, false,
			     false, err) ||
	    parse_v7_section(r, FMT_SEC_CMDLINES, "cmdlines", tracing_data_parse_cmdlines, false,
			     false, err))
		return -1;
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

/* Assign each buffer's cpustats text from the CPUSTAT options (v6 and v7 alike). */
static void split_cpustats(struct fmt_reader *r)
{
	/* trace-cmd writes the top buffer's stats, then "Buffer: NAME" and its stats */
	char *s = td(r)->cpustats_top;

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

static bool tracedat_probe(const uint8_t *p, uint64_t len)
{
	return len >= sizeof(MAGIC) && !memcmp(p, MAGIC, sizeof(MAGIC));
}

/* The file header: magic, version, byte order, long size and page size. */
static int read_file_header(struct fmt_reader *r, struct rd *d, struct err_msg *err)
{
	const uint8_t *magic;
	const char *ver;
	uint8_t endian, lsize;
	uint32_t psize;

	magic = rd_bytes(d, sizeof(MAGIC));
	if (!magic)
		return FAIL("too short for a trace.dat file (%" PRIu64 " bytes)", r->file_len);
	if (memcmp(magic, MAGIC, sizeof(MAGIC)))
		return FAIL("not a trace.dat file (wrong magic)");
	ver = rd_str(d);
	if (!ver)
		return FAIL("truncated in the file header");
	r->info.version = atoi(ver);
	if (strnlen(ver, 8) > 4 || (r->info.version != 6 && r->info.version != 7))
		return FAIL("unsupported trace.dat version '%.8s' (6 and 7 are supported)", ver);
	endian = *(const uint8_t *)(rd_bytes(d, 1) ?: (const uint8_t *)"\xff");
	lsize = *(const uint8_t *)(rd_bytes(d, 1) ?: (const uint8_t *)"\0");
	if (d->bad)
		return FAIL("truncated in the file header");
	if (endian > 1)
		return FAIL("bad endianness byte %u", endian);
	if (lsize != 4 && lsize != 8)
		return FAIL("bad long size %u", lsize);
	r->info.big_endian = endian;
	r->swap = endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	d->swap = r->swap;
	r->info.long_size = lsize;
	psize = rd_u32(d);
	if (d->bad || psize < 64 || psize > MAX_PAGE_SIZE || (psize & (psize - 1)))
		return FAIL("bad page size %u", psize);
	r->info.page_size = psize;
	return 0;
}

/* tdstream_next() takes be_priv for its merge: it must come first */
_Static_assert(offsetof(struct tracedat, merge) == 0, "struct tracedat begins with its merge");

static int tracedat_open(struct fmt_reader *r, struct err_msg *err)
{
	struct rd d = file_rd(r);
	struct tracedat *t = calloc(1, sizeof(*t));

	if (!t)
		return FAIL("out of memory");
	t->clk.in_usecs = true; /* trace-cmd's default: seconds */
	r->be_priv = t;
	if (read_file_header(r, &d, err) || fmt_events_init_tep(r, err))
		return -1;
	if ((r->info.version == 6 ? parse_v6(r, &d, err) : parse_v7(r, &d, err)))
		return -1;
	if (r->info.cpus == 0)
		for (int i = 0; i < r->info.nbuffers; i++)
			if (r->info.buffers[i].ncpus > r->info.cpus)
				r->info.cpus = r->info.buffers[i].ncpus;
	tep_set_cpus(r->tep, r->info.cpus);
	if (tdclock_finish(r, &t->clk, r->info.nbuffers ? r->info.buffers[0].clock : NULL, err))
		return -1;
	r->info.clock = r->info.trace_clock;
	split_cpustats(r);
	return tdstream_init(&t->merge, r, &t->clk, err);
}

static void tracedat_close(struct fmt_reader *r)
{
	struct tracedat *t = td(r);

	if (!t)
		return;
	tdstream_stop(&t->merge);
	for (int i = 0; i < t->nkept; i++)
		free(t->kept[i]);
	free(t->kept);
	decomp_free(t->dc);
	free(t->manifest);
	free(t->compression_ver);
	free(t->cpustats_top);
	tdclock_free(&t->clk);
	free(t);
	r->be_priv = NULL;
}

/* v7 kallsyms, left in their section by FMT_OPEN_NO_KALLSYMS (v6's are r->ksyms). */
static int tracedat_load_kallsyms(struct fmt_reader *r, struct err_msg *err)
{
	struct rd d;
	uint8_t *owned;
	int rc;

	if (!td(r)->sec_off[FMT_SEC_KALLSYMS])
		return 0; /* the file has none */
	if (read_section(r, td(r)->sec_off[FMT_SEC_KALLSYMS], FMT_SEC_KALLSYMS, "kallsyms", &d,
			 &owned, err))
		return -1;
	{
		uint64_t n = rd_u32(&d);
		const uint8_t *p = rd_bytes(&d, n);
		if (!p) {
			free(owned);
			return FAIL("truncated in kallsyms (size %" PRIu64 ")", n);
		}
		if (owned) /* the text alone, in a buffer the table owns */
			p = memmove(owned, p, n);
		rc = tracing_data_load_kallsyms_text(r, p, n, owned != NULL, err);
	}
	return rc;
}

static uint64_t tracedat_clock_ts(const struct fmt_reader *r, uint64_t raw, int cpu)
{
	return tdclock_ts(&td(r)->clk, raw, cpu);
}

const struct fmt_backend fmt_tracedat_backend = {
	.name = "trace.dat",
	.probe = tracedat_probe,
	.open = tracedat_open,
	.next = tdstream_next,
	.close = tracedat_close,
	.load_kallsyms = tracedat_load_kallsyms,
	.clock_ts = tracedat_clock_ts,
};
