// SPDX-License-Identifier: MIT
/*
 * perf.data: what `perf record` writes, as a file ("PERFILE2", a 104-byte
 * header, attrs, data, feature sections) or as a pipe (`perf record -o -`:
 * "PERFILE2", a 16-byte header, then records only, the metadata among them).
 * Layout: tools/perf/Documentation/perf.data-file-format.txt in Linux.
 *
 * Tracepoint samples carry the raw trace record (PERF_SAMPLE_RAW), decoded
 * with the formats of HEADER_TRACING_DATA, which has trace.dat v6's layout
 * (a feature section of a file; a record in pipe mode, and in the data
 * section of simpleperf's files).
 * perf record copies the CPUs' buffers in turns ("rounds"); a record of
 * round N+1 may be older than one of round N but not older than the newest
 * of round N-1. So, as perf's ordered_events does, records wait in a heap
 * and at each FINISHED_ROUND those up to the newest time of the previous
 * round are released: memory holds about two rounds of small entries.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h> /* sample_type (PERF_SAMPLE_*), read_format (PERF_FORMAT_*) */
#include <traceevent/event-parse.h>

#include "backend.h"
#include "bytes.h"
#include "events.h"
#include "fmt.h"
#include "grow.h"
#include "tracing-data.h"

#define PERF_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read little-endian */
#define PERF_MAGIC_BE 0x50455246494c4532ULL
#define PERF_MAGIC_V1 "PERFFILE" /* version 1, the legacy format: a string, no byte order */
#define PERF_MAX_CPUS 8192
#define PERF_TYPE_TRACEPOINT 2
#define ATTR_SAMPLE_ID_ALL (1ULL << 18) /* bit of the attr's flags word */
#define ATTR_MIN_BYTES 48		/* type .. flags: what is read of an attr */
#define TRACING_MAGIC "\027\010\104tracing"

enum { FILE_HDR_BYTES = 104, PIPE_HDR_BYTES = 16 };

/* Record types (PERF_RECORD_*) read or skipped with care. */
enum {
	REC_LOST = 2,
	REC_COMM = 3,
	REC_FORK = 7,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	/* simpleperf's own records: a 32-bit size (misc holds its high half) */
	REC_SIMPLEPERF = 32768,
	REC_SIMPLEPERF_TRACING_DATA = 32777,
	REC_COMPRESSED = 81,
};

/* Feature bits (HEADER_*). */
enum {
	F_TRACING_DATA = 1,
	F_HOSTNAME = 3,
	F_OSRELEASE = 4,
	F_VERSION = 5,
	F_ARCH = 6,
	F_NRCPUS = 7,
	F_CMDLINE = 11,
	F_CLOCKID = 23,
	F_MAX = 256,
};

/* The part of a perf_event_attr the reader needs. */
struct pattr {
	uint32_t type;
	uint64_t config; /* the tracepoint id for PERF_TYPE_TRACEPOINT */
	uint64_t sample_type;
	uint64_t read_format;
	bool id_all; /* non-sample records end with a sample_id trailer */
};

struct idmap {
	uint64_t id;
	int attr;
};

enum qkind { Q_EVENT, Q_COMM, Q_FORK, Q_LOST };

/* A record waiting in the heap for its round to end. */
struct qent {
	uint64_t ts;
	uint64_t seq; /* file order: ties keep it, as perf does */
	uint64_t off; /* Q_EVENT: the raw trace record; Q_COMM, Q_FORK: the body */
	uint64_t n;   /* Q_EVENT: its bytes; Q_LOST: events lost */
	int32_t cpu;  /* -1 if the record does not say */
	uint8_t kind;
};

/* One record in the map: header and body. */
struct rec {
	uint64_t off;
	uint32_t type;
	uint32_t size;
	struct rd body;
	const uint8_t *extra; /* data that follows the record (pipe tracing data) */
	uint64_t extra_len;
};

struct perf {
	bool pipe;
	uint64_t pos, end; /* next record, end of the records */
	struct pattr *attrs;
	int nattrs, attrs_cap;
	struct idmap *ids;
	int nids, ids_cap;
	int id_pos; /* u64 index of the id in a sample, -1 none */
	int is_pos; /* u64 index from the end of a trailer's id, -1 none */
	bool same_type; /* every attr has the same sample_type */
	struct qent *q;
	int nq, qcap;
	uint64_t seq, limit, next_flush, max_ts;
	bool eof;
	uint64_t missed_any; /* lost events of no known CPU, for the next event */
	bool lost_seen; /* a LOST record was read */
	bool have_tracing;
	int nraw; /* tracepoint attrs that sample RAW */
	char *host, *osrelease, *arch, *version, *cmdline;
	int64_t clockid; /* -1: perf's default clock (local_clock) */
	char lacks[64];
};

static uint64_t id_all_bytes(uint64_t st)
{
	return 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
		    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
		    !!(st & PERF_SAMPLE_IDENTIFIER));
}

/* ---- records ------------------------------------------------------------ */

/* The tracepoints' formats as a record: perf's (pipe mode) and simpleperf's
   (in the data section of a file, with its own type in newer versions). */
static bool is_tracing_data(uint32_t type)
{
	return type == REC_HEADER_TRACING_DATA || type == REC_SIMPLEPERF_TRACING_DATA;
}

/* Read the record at p->pos into @rc. 1, 0 at the end, -1 if corrupt. */
static int rec_next(struct fmt_reader *r, struct perf *p, struct rec *rc, struct err_msg *err)
{
	struct rd d;
	uint64_t left = p->end - p->pos, next;

	if (p->pos >= p->end)
		return 0;
	d = rd_init(r->map + p->pos, left, false);
	rc->off = p->pos;
	rc->type = rd_u32(&d);
	rc->size = rd_u16(&d); /* misc */
	rc->size = rc->type >= REC_SIMPLEPERF ? rc->size << 16 | rd_u16(&d) : rd_u16(&d);
	if (d.bad)
		return FAIL("truncated record header at offset %" PRIu64, p->pos);
	if (rc->size < 8)
		return FAIL("bad record size %u at offset %" PRIu64, rc->size, p->pos);
	if (rc->size > left)
		return FAIL("truncated: record of %u bytes at offset %" PRIu64 ", %" PRIu64
			    " bytes left",
			    rc->size, p->pos, left);
	rc->body = rd_init(r->map + p->pos + 8, rc->size - 8, false);
	rc->extra = NULL;
	rc->extra_len = 0;
	next = p->pos + rc->size;
	if (is_tracing_data(rc->type) && rc->size > 16) {
		/* simpleperf's: the data inside the record, after its size */
		struct rd b = rc->body;
		uint32_t n = rd_u32(&b);
		if (b.bad || n > rc->size - 12)
			return FAIL("tracing data record at offset %" PRIu64 " (type %u) says %u"
				    " bytes, %u in the record",
				    p->pos, rc->type, n, rc->size - 12);
		rc->extra = r->map + p->pos + 12;
		rc->extra_len = n;
	} else if (rc->type == REC_HEADER_TRACING_DATA || rc->type == REC_AUXTRACE) {
		/* perf's: the data follows the record */
		struct rd b = rc->body;
		uint64_t n = rc->type == REC_AUXTRACE ? rd_u64(&b) : rd_u32(&b);
		if (b.bad || n > p->end - next || ((n + 7) & ~7ULL) > p->end - next)
			return FAIL("record at offset %" PRIu64 " says %" PRIu64
				    " bytes follow, past the end: truncated",
				    p->pos, n);
		rc->extra = r->map + next;
		rc->extra_len = n;
		next += (n + 7) & ~7ULL;
	}
	p->pos = next;
	return 1;
}

/* ---- attrs and ids ------------------------------------------------------ */

static int add_id(struct fmt_reader *r, struct perf *p, uint64_t id, int attr,
		  struct err_msg *err)
{
	if (GROW(p->ids, p->nids, p->ids_cap, 64))
		return FAIL("out of memory");
	p->ids[p->nids++] = (struct idmap){id, attr};
	return 0;
}

/* Parse a perf_event_attr of @n bytes at @d's position; -1 if too short. */
static int add_attr(struct fmt_reader *r, struct perf *p, struct rd *d, uint64_t n,
		    struct err_msg *err)
{
	const uint8_t *b = rd_bytes(d, n);
	struct rd a;
	struct pattr *t;

	if (!b || n < ATTR_MIN_BYTES)
		return FAIL("bad event attr of %" PRIu64 " bytes", n);
	a = rd_init(b, n, false);
	if (p->nattrs >= 65536)
		return FAIL("more than 65536 event attrs");
	if (GROW(p->attrs, p->nattrs, p->attrs_cap, 16))
		return FAIL("out of memory");
	t = &p->attrs[p->nattrs++];
	t->type = rd_u32(&a);
	rd_u32(&a); /* size */
	t->config = rd_u64(&a);
	rd_u64(&a); /* sample_period */
	t->sample_type = rd_u64(&a);
	t->read_format = rd_u64(&a);
	t->id_all = rd_u64(&a) & ATTR_SAMPLE_ID_ALL;
	if (t->type == PERF_TYPE_TRACEPOINT && (t->sample_type & PERF_SAMPLE_RAW))
		p->nraw++;
	return 0;
}

/* File mode: the attrs section, perf_file_attr (attr, then its ids' section) each. */
static int read_attrs(struct fmt_reader *r, struct perf *p, uint64_t attr_size, uint64_t off,
		      uint64_t size, struct err_msg *err)
{
	struct rd d = rd_init(r->map, r->file_len, false);

	if (attr_size < ATTR_MIN_BYTES + 16 || attr_size > 4096)
		return FAIL("bad attr size %" PRIu64 " in the file header", attr_size);
	for (uint64_t i = 0; i < size / attr_size; i++) {
		uint64_t ioff, isize;

		rd_seek(&d, off + i * attr_size);
		if (add_attr(r, p, &d, attr_size - 16, err))
			return -1;
		ioff = rd_u64(&d);
		isize = rd_u64(&d);
		rd_seek(&d, ioff);
		if (d.bad || isize > rd_left(&d))
			return FAIL("attr %" PRIu64 ": its ids lie past the end of the file", i);
		for (uint64_t k = 0; k < isize / 8; k++)
			if (add_id(r, p, rd_u64(&d), p->nattrs - 1, err))
				return -1;
	}
	return 0;
}

/* Pipe mode: PERF_RECORD_HEADER_ATTR, an attr (its own size) then ids. */
static int header_attr(struct fmt_reader *r, struct perf *p, struct rec *rc, struct err_msg *err)
{
	struct rd d = rc->body;
	uint32_t n;

	rd_u32(&d);
	n = rd_u32(&d);
	d = rc->body;
	if (add_attr(r, p, &d, n, err))
		return err_setf(err, r->path, "attr record at offset %" PRIu64 ": %s", rc->off,
				strchr(err->msg, ':') ? strchr(err->msg, ':') + 2 : err->msg);
	while (rd_left(&d) >= 8)
		if (add_id(r, p, rd_u64(&d), p->nattrs - 1, err))
			return -1;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Where a sample's (from the start) and a trailer's (from the end) id is. */
static void id_positions(uint64_t st, int *id_pos, int *is_pos)
{
	*id_pos = *is_pos = -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		*id_pos = 0;
		*is_pos = 1;
	} else if (st & PERF_SAMPLE_ID) {
		*id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			  !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		*is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	}
}

/* Once all attrs are known: can every record be matched to its attr? */
static int check_attrs(struct fmt_reader *r, struct perf *p, struct err_msg *err)
{
	if (!p->nattrs)
		return FAIL("no event attrs: not a perf record file");
	p->same_type = true;
	id_positions(p->attrs[0].sample_type, &p->id_pos, &p->is_pos);
	for (int i = 1; i < p->nattrs; i++) {
		int a, b;
		id_positions(p->attrs[i].sample_type, &a, &b);
		if (p->attrs[i].sample_type != p->attrs[0].sample_type ||
		    p->attrs[i].id_all != p->attrs[0].id_all)
			p->same_type = false;
		if (a != p->id_pos || b != p->is_pos)
			p->id_pos = -2;
	}
	if (!p->same_type && p->id_pos < 0)
		return FAIL("events sample different fields without sample ids in one place: "
			    "their records cannot be told apart");
	if (p->nids)
		qsort(p->ids, p->nids, sizeof(*p->ids), id_cmp);
	return 0;
}

/* The attr of sample id @id (0: the first), or NULL (error filled). */
static const struct pattr *attr_of_id(struct fmt_reader *r, struct perf *p, uint64_t id,
				      uint64_t off, struct err_msg *err)
{
	struct idmap key = {id, 0}, *m;

	if (!id)
		return &p->attrs[0]; /* records perf record made itself, as perf reads them */
	m = p->nids ? bsearch(&key, p->ids, p->nids, sizeof(*p->ids), id_cmp) : NULL;
	if (!m) {
		FAIL("record at offset %" PRIu64 " has the unknown sample id %" PRIu64, off, id);
		return NULL;
	}
	return &p->attrs[m->attr];
}

/* ---- feature sections --------------------------------------------------- */

/* A perf_header_string: u32 length, then that many bytes (NUL-padded). */
static char *feat_str(struct rd *d)
{
	uint32_t n = rd_u32(d);
	const char *s = (const char *)rd_bytes(d, n);

	return s ? strndup(s, strnlen(s, n)) : NULL;
}

/*
 * HEADER_TRACING_DATA: trace.dat v6's metadata after its own small header,
 * from a feature section or a record (@off, of @type; 0: the section).
 */
static int tracing_data(struct fmt_reader *r, struct perf *p, struct rd d, uint64_t off,
			uint32_t type, struct err_msg *err)
{
	char where[96];
	size_t n;
	const uint8_t *magic = rd_bytes(&d, 10);
	const char *ver = rd_str(&d);
	const uint8_t *el = rd_bytes(&d, 2);
	uint32_t psize = rd_u32(&d);
	unsigned flags = r->flags;
	int rc;

	if (off)
		snprintf(where, sizeof(where), "record at offset %" PRIu64 " (type %u)", off, type);
	else
		snprintf(where, sizeof(where), "section (HEADER_TRACING_DATA)");
	if (p->have_tracing)
		return FAIL("tracing data %s: the formats came already", where);
	if (!magic || memcmp(magic, TRACING_MAGIC, 10) || !ver || !el)
		return FAIL("tracing data %s: bad header (the tracepoints' formats)", where);
	if (strcmp(ver, "0.6"))
		return FAIL("tracing data %s: version '%.8s' is not supported (0.6 is)", where, ver);
	if (el[0] != 0)
		return FAIL("tracing data %s: big-endian is not supported", where);
	if ((el[1] != 4 && el[1] != 8) || psize < 64 || psize > (1U << 24) ||
	    (psize & (psize - 1)))
		return FAIL("tracing data %s: bad header: long size %u, page size %u", where, el[1],
			    psize);
	r->info.long_size = el[1];
	r->info.page_size = psize;
	if (fmt_events_init_tep(r, err))
		return -1;
	/* kallsyms are parsed now: the lazy path only knows trace.dat's places */
	r->flags &= ~FMT_OPEN_NO_KALLSYMS;
	rc = tracing_data_parse(r, &d, err);
	r->flags = flags;
	n = strlen(err->msg);
	if (rc && n + 4 < sizeof(err->msg)) /* where, as the shared parser cannot say it */
		snprintf(err->msg + n, sizeof(err->msg) - n, " (in the tracing data %s)", where);
	p->have_tracing = true;
	return rc;
}

/* One feature section (file) or HEADER_FEATURE record (pipe). */
static int feature(struct fmt_reader *r, struct perf *p, int id, struct rd d, struct err_msg *err)
{
	char **s = NULL;

	switch (id) {
	case F_TRACING_DATA:
		return tracing_data(r, p, d, 0, 0, err);
	case F_HOSTNAME:
		s = &p->host;
		break;
	case F_OSRELEASE:
		s = &p->osrelease;
		break;
	case F_VERSION:
		s = &p->version;
		break;
	case F_ARCH:
		s = &p->arch;
		break;
	case F_NRCPUS: {
		uint32_t n = rd_u32(&d); /* available; then online */
		if (d.bad || n > PERF_MAX_CPUS)
			return FAIL("bad HEADER_NRCPUS (%u cpus)", n);
		r->info.cpus = (int)n;
		return 0;
	}
	case F_CMDLINE: {
		uint32_t n = rd_u32(&d);
		free(p->cmdline);
		p->cmdline = NULL;
		for (uint32_t i = 0; i < n && !d.bad; i++) {
			char *a = feat_str(&d), *j = NULL;
			if (a && asprintf(&j, "%s%s%s", p->cmdline ? p->cmdline : "",
					  p->cmdline ? " " : "", a) < 0)
				j = NULL;
			free(a);
			free(p->cmdline);
			p->cmdline = j;
		}
		return d.bad ? FAIL("truncated HEADER_CMDLINE") : 0;
	}
	case F_CLOCKID:
		p->clockid = (int64_t)rd_u64(&d);
		return d.bad ? FAIL("truncated HEADER_CLOCKID") : 0;
	default:
		return 0; /* EVENT_DESC and the rest: the raw records name their events */
	}
	free(*s);
	*s = feat_str(&d);
	return *s ? 0 : FAIL("truncated or bad string in feature section %d", id);
}

/* File mode: a perf_file_section per set bit of the bitmap, after the data. */
static int read_features(struct fmt_reader *r, struct perf *p, const uint64_t *bits,
			 uint64_t at, struct err_msg *err)
{
	struct rd d = rd_init(r->map, r->file_len, false);

	rd_seek(&d, at);
	for (int id = 0; id < F_MAX; id++) {
		uint64_t off, size;
		if (!(bits[id / 64] >> (id % 64) & 1))
			continue;
		off = rd_u64(&d);
		size = rd_u64(&d);
		if (d.bad)
			return FAIL("truncated in the feature section table");
		if (off > r->file_len || size > r->file_len - off)
			return FAIL("feature section %d lies past the end of the file", id);
		if (feature(r, p, id, rd_init(r->map + off, size, false), err))
			return -1;
	}
	return 0;
}

static int open_file(struct fmt_reader *r, struct perf *p, struct err_msg *err)
{
	struct rd d = rd_init(r->map, r->file_len, false);
	uint64_t attr_size, aoff, asize, doff, dsize, bits[4];

	rd_seek(&d, 16);
	attr_size = rd_u64(&d);
	aoff = rd_u64(&d);
	asize = rd_u64(&d);
	doff = rd_u64(&d);
	dsize = rd_u64(&d);
	rd_seek(&d, 72); /* past event_types, unused since perf 2.6.39 */
	for (int i = 0; i < 4; i++)
		bits[i] = rd_u64(&d);
	if (d.bad)
		return FAIL("truncated in the perf.data header (%" PRIu64 " bytes)", r->file_len);
	if (aoff > r->file_len || asize > r->file_len - aoff)
		return FAIL("attrs section lies past the end of the file: truncated");
	if (doff > r->file_len || dsize > r->file_len - doff)
		return FAIL("data section (offset %" PRIu64 ", %" PRIu64
			    " bytes) lies past the end of the file (%" PRIu64 " bytes): truncated",
			    doff, dsize, r->file_len);
	p->pos = doff;
	p->end = doff + dsize;
	return read_attrs(r, p, attr_size, aoff, asize, err) ||
			       read_features(r, p, bits, doff + dsize, err)
		       ? -1
		       : 0;
}

/*
 * Walk every record once for the metadata among them: all of it in pipe
 * mode; in a file, the tracing data simpleperf writes as a record of the
 * data section rather than as the HEADER_TRACING_DATA feature section.
 */
static int prescan(struct fmt_reader *r, struct perf *p, struct err_msg *err)
{
	uint64_t start = p->pos;
	struct rec rc = {0}; /* rec_next() fills it; -O3's flow analysis cannot tell */
	int n;

	while ((n = rec_next(r, p, &rc, err)) > 0) {
		if (rc.type == REC_HEADER_ATTR) {
			if (header_attr(r, p, &rc, err))
				return -1;
		} else if (is_tracing_data(rc.type)) {
			if (tracing_data(r, p, rd_init(rc.extra, rc.extra_len, false), rc.off,
					 rc.type, err))
				return -1;
		} else if (rc.type == REC_HEADER_FEATURE) {
			uint64_t id = rd_u64(&rc.body);
			if (id < F_MAX && id != F_TRACING_DATA &&
			    feature(r, p, (int)id, rc.body, err))
				return -1;
		}
	}
	p->pos = start;
	return n;
}

/* ---- the queue ---------------------------------------------------------- */

static inline bool q_less(const struct qent *a, const struct qent *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->seq < b->seq;
}

static int q_push(struct fmt_reader *r, struct perf *p, struct qent e, struct err_msg *err)
{
	int i;

	if (GROW(p->q, p->nq, p->qcap, 1024))
		return FAIL("out of memory for %d queued records", p->nq);
	e.seq = p->seq++;
	if (e.ts > p->max_ts)
		p->max_ts = e.ts;
	for (i = p->nq++; i > 0 && q_less(&e, &p->q[(i - 1) / 2]); i = (i - 1) / 2)
		p->q[i] = p->q[(i - 1) / 2];
	p->q[i] = e;
	return 0;
}

static struct qent q_pop(struct perf *p)
{
	struct qent top = p->q[0], e = p->q[--p->nq];
	int i = 0;

	for (;;) {
		int l = 2 * i + 1, m;
		if (l >= p->nq)
			break;
		m = (l + 1 < p->nq && q_less(&p->q[l + 1], &p->q[l])) ? l + 1 : l;
		if (!q_less(&p->q[m], &e))
			break;
		p->q[i] = p->q[m];
		i = m;
	}
	if (p->nq)
		p->q[i] = e;
	return top;
}

/* ---- samples and other kernel records ----------------------------------- */

/*
 * Skip a PERF_SAMPLE_READ value: { value, [enabled], [running], [id], [lost] },
 * or for a group { nr, [enabled], [running], nr * { value, [id], [lost] } }.
 */
static void skip_read(struct rd *d, uint64_t rf)
{
	uint64_t times =
	    !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST), nr;

	if (!(rf & PERF_FORMAT_GROUP)) {
		rd_bytes(d, 8 * (per + times));
		return;
	}
	nr = rd_u64(d);
	rd_bytes(d, 8 * times);
	rd_bytes(d, nr > rd_left(d) / (8 * per) ? rd_left(d) + 1 : nr * 8 * per);
}

/* The attr a sample belongs to, by its id (or the only layout there is). */
static const struct pattr *sample_attr(struct fmt_reader *r, struct perf *p, struct rec *rc,
				       struct err_msg *err)
{
	struct rd d = rc->body;

	if (p->same_type && (p->nattrs == 1 || p->id_pos < 0))
		return &p->attrs[0];
	rd_bytes(&d, 8 * (uint64_t)p->id_pos);
	uint64_t id = rd_u64(&d);
	if (d.bad) {
		FAIL("sample at offset %" PRIu64 " too short for its id", rc->off);
		return NULL;
	}
	return attr_of_id(r, p, id, rc->off, err);
}

/* The { u32 cpu, res } of a sample or trailer; (u32)-1 is no CPU. */
static int read_cpu(struct fmt_reader *r, struct rd *d, struct qent *e, uint64_t off,
		    struct err_msg *err)
{
	uint32_t cpu = rd_u32(d);

	rd_u32(d);
	if (cpu >= PERF_MAX_CPUS && cpu != UINT32_MAX)
		return FAIL("record at offset %" PRIu64 " on absurd cpu %u", off, cpu);
	e->cpu = cpu == UINT32_MAX ? -1 : (int32_t)cpu;
	return 0;
}

/* PERF_RECORD_SAMPLE: a tracepoint's raw record is queued as an event. */
static int sample(struct fmt_reader *r, struct perf *p, struct rec *rc, struct err_msg *err)
{
	const struct pattr *a = sample_attr(r, p, rc, err);
	struct rd d = rc->body;
	struct qent e = {.kind = Q_EVENT, .cpu = -1};
	uint64_t st;
	uint32_t n;

	if (!a)
		return -1;
	st = a->sample_type;
	if (a->type != PERF_TYPE_TRACEPOINT || !(st & PERF_SAMPLE_RAW)) {
		r->info.skipped_samples++; /* not a tracepoint: nothing the reader yields */
		return 0;
	}
	rd_bytes(&d, 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			  !!(st & PERF_SAMPLE_TID)));
	if (st & PERF_SAMPLE_TIME)
		e.ts = rd_u64(&d);
	rd_bytes(&d, 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
			  !!(st & PERF_SAMPLE_STREAM_ID)));
	if (st & PERF_SAMPLE_CPU && read_cpu(r, &d, &e, rc->off, err))
		return -1;
	if (st & PERF_SAMPLE_PERIOD)
		rd_u64(&d);
	if (st & PERF_SAMPLE_READ)
		skip_read(&d, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rd_u64(&d);
		rd_bytes(&d, nr > rd_left(&d) / 8 ? rd_left(&d) + 1 : nr * 8);
	}
	n = rd_u32(&d);
	e.off = rc->off + 8 + rd_pos(&d);
	if (!rd_bytes(&d, n) || n < 8)
		return FAIL("tracepoint sample at offset %" PRIu64 " is truncated or has a raw "
			    "record of %u bytes",
			    rc->off, n);
	e.n = n;
	return q_push(r, p, e, err);
}

/*
 * The sample_id trailer of a non-sample record: its time and cpu into @e.
 * Returns the trailer's bytes, or -1 (error filled).
 */
static int64_t trailer(struct fmt_reader *r, struct perf *p, struct rec *rc, struct qent *e,
		       struct err_msg *err)
{
	const struct pattr *a = &p->attrs[0];
	uint64_t len = rd_left(&rc->body), tb;
	struct rd d;

	if (!p->same_type) {
		d = rc->body;
		if (len < 8 * (uint64_t)p->is_pos)
			return FAIL("record at offset %" PRIu64 " too short for its sample id",
				    rc->off);
		rd_seek(&d, len - 8 * (uint64_t)p->is_pos);
		a = attr_of_id(r, p, rd_u64(&d), rc->off, err);
		if (!a)
			return -1;
	}
	if (!a->id_all)
		return 0;
	tb = id_all_bytes(a->sample_type);
	if (len < tb)
		return FAIL("record at offset %" PRIu64 " too short for its sample id", rc->off);
	d = rc->body;
	rd_seek(&d, len - tb);
	rd_bytes(&d, 8 * !!(a->sample_type & PERF_SAMPLE_TID));
	if (a->sample_type & PERF_SAMPLE_TIME)
		e->ts = rd_u64(&d);
	rd_bytes(&d, 8 * (!!(a->sample_type & PERF_SAMPLE_ID) +
			  !!(a->sample_type & PERF_SAMPLE_STREAM_ID)));
	if (a->sample_type & PERF_SAMPLE_CPU && read_cpu(r, &d, e, rc->off, err))
		return -1;
	return (int64_t)tb;
}

/*
 * Whether a lost record adds to the count. The kernel's LOST records say
 * where records were dropped. perf record ends with LOST_SAMPLES records of
 * time 0 holding each event's total of lost samples (PERF_FORMAT_LOST, with
 * a CPU that need not be where they were lost): the same losses again, so
 * they count only when no LOST record did.
 */
static bool lost_counts(struct perf *p, uint32_t type, struct qent *e)
{
	if (type == REC_LOST)
		p->lost_seen = true;
	if (type == REC_LOST || e->ts)
		return true;
	e->cpu = -1; /* perf's index of the counter, not where they were lost */
	return !p->lost_seen;
}

/* COMM, FORK, LOST and LOST_SAMPLES: queued to take effect in time order. */
static int task_or_lost(struct fmt_reader *r, struct perf *p, struct rec *rc, struct err_msg *err)
{
	struct qent e = {.cpu = -1, .off = rc->off + 8};
	struct rd d = rc->body;
	int64_t tb = trailer(r, p, rc, &e, err);

	if (tb < 0)
		return -1;
	switch (rc->type) {
	case REC_COMM:
		e.kind = Q_COMM;
		/* pid, tid, then the name up to the trailer: NUL-terminated */
		if (rd_left(&d) < 9 + (uint64_t)tb ||
		    !memchr(d.p + 8, 0, rd_left(&d) - 8 - (uint64_t)tb))
			return FAIL("bad COMM record at offset %" PRIu64, rc->off);
		break;
	case REC_FORK:
		e.kind = Q_FORK;
		if (rd_left(&d) < 16 + (uint64_t)tb)
			return FAIL("bad FORK record at offset %" PRIu64, rc->off);
		break;
	default:
		e.kind = Q_LOST;
		if (rc->type == REC_LOST)
			rd_u64(&d); /* id */
		e.n = rd_u64(&d);
		if (d.bad)
			return FAIL("bad LOST record at offset %" PRIu64, rc->off);
		if (!lost_counts(p, rc->type, &e))
			return 0;
	}
	return q_push(r, p, e, err);
}

/* Read one record of the data; sets p->eof at the end. */
static int read_record(struct fmt_reader *r, struct perf *p, struct err_msg *err)
{
	struct rec rc;
	int n = rec_next(r, p, &rc, err);

	if (n <= 0) {
		p->eof = true;
		return n;
	}
	switch (rc.type) {
	case REC_SAMPLE:
		return sample(r, p, &rc, err);
	case REC_COMM:
	case REC_FORK:
	case REC_LOST:
	case REC_LOST_SAMPLES:
		return task_or_lost(r, p, &rc, err);
	case REC_FINISHED_ROUND:
		p->limit = p->next_flush;
		p->next_flush = p->max_ts;
		return 0;
	case REC_COMPRESSED:
		return FAIL("compressed record at offset %" PRIu64 " (perf record -z) is not "
			    "supported: perf inject -i FILE -o OUT writes them uncompressed",
			    rc.off);
	default:
		/* MMAP, MMAP2, EXIT, THROTTLE, ..., simpleperf's symbols: not needed;
		   perf's own metadata (HEADER_ATTR...): read at open */
		if (rc.type < REC_HEADER_ATTR || rc.type >= REC_SIMPLEPERF)
			r->info.skipped_records += !is_tracing_data(rc.type);
		return 0;
	}
}

/* ---- events ------------------------------------------------------------- */

/* The stream of @cpu, made (with the buffer's CPU list) on first sight. */
static struct stream *cpu_stream(struct fmt_reader *r, int cpu, struct err_msg *err)
{
	struct fmt_buffer *b = &r->info.buffers[0];
	int n = r->nstreams;

	if (cpu < n)
		return &r->streams[cpu];
	void *s = realloc(r->streams, (cpu + 1) * sizeof(*r->streams));
	void *ids = s ? realloc(b->cpu_ids, (cpu + 1) * sizeof(int)) : NULL;
	if (ids)
		b->cpu_ids = ids;
	void *bytes = ids ? realloc(b->bytes, (cpu + 1) * sizeof(uint64_t)) : NULL;
	if (s)
		r->streams = s;
	if (!bytes) {
		FAIL("out of memory");
		return NULL;
	}
	b->bytes = bytes;
	for (int i = n; i <= cpu; i++) {
		memset(&r->streams[i], 0, sizeof(r->streams[i]));
		r->streams[i].cpu = r->streams[i].index = b->cpu_ids[i] = i;
		b->bytes[i] = 0;
	}
	r->nstreams = b->ncpus = cpu + 1;
	if (r->info.cpus < cpu + 1)
		r->info.cpus = cpu + 1;
	return &r->streams[cpu];
}

static uint64_t add_missed(uint64_t a, uint64_t b)
{
	if (a == FMT_MISSED_UNKNOWN || b == FMT_MISSED_UNKNOWN || a + b < a)
		return FMT_MISSED_UNKNOWN;
	return a + b;
}

static void task_record(struct fmt_reader *r, struct qent *e)
{
	struct rd d = rd_init(r->map + e->off, 16, false);
	uint32_t pid = rd_u32(&d), tid;
	const char *comm;

	(void)pid;
	if (e->kind == Q_COMM) {
		tid = rd_u32(&d);
		tep_override_comm(r->tep, (const char *)r->map + e->off + 8, (int)tid);
		return;
	}
	rd_u32(&d); /* ppid */
	tid = rd_u32(&d);
	comm = tep_data_comm_from_pid(r->tep, (int)rd_u32(&d)); /* ptid's */
	if (strcmp(comm, "<...>") && strcmp(comm, "<idle>"))
		tep_override_comm(r->tep, comm, (int)tid);
}

/*
 * Account lost events to their CPU's next event; with no CPU known (perf's
 * closing totals), to the next event of any CPU and to cpu 0's statistics.
 */
static int lost(struct fmt_reader *r, struct perf *p, struct qent *e, struct err_msg *err)
{
	struct stream *s = cpu_stream(r, e->cpu < 0 ? 0 : e->cpu, err);

	if (!s)
		return -1;
	if (e->cpu < 0)
		p->missed_any = add_missed(p->missed_any, e->n);
	else
		s->missed = add_missed(s->missed, e->n);
	s->st.lost += e->n;
	s->st.lost_marks++;
	return 0;
}

static int deliver(struct fmt_reader *r, struct perf *p, struct qent *e, struct fmt_event *ev,
		   struct err_msg *err)
{
	struct stream *s;
	const uint8_t *d = r->map + e->off;

	if (e->kind == Q_COMM || e->kind == Q_FORK) {
		task_record(r, e);
		return 0;
	}
	if (e->kind == Q_LOST)
		return lost(r, p, e, err);
	s = cpu_stream(r, e->cpu < 0 ? 0 : e->cpu, err);
	if (!s)
		return -1;
	ev->ts = e->ts;
	ev->data = d;
	ev->size = (uint32_t)e->n;
	ev->cpu = (uint16_t)s->cpu;
	ev->buffer = 0;
	memcpy(&ev->type, d, 2);
	memcpy(&ev->pid, d + 4, 4);
	ev->flags = d[2];
	ev->preempt = d[3];
	ev->event = fmt_events_format(r, ev->type);
	if (fmt_event_short(r, ev) && fmt_events_pad(r, ev, err))
		return -1;
	ev->missed = add_missed(s->missed, p->missed_any);
	if (!s->missed && !p->missed_any)
		ev->missed = 0;
	s->missed = p->missed_any = 0;
	s->st.events++;
	r->info.buffers[0].bytes[s->cpu] += e->n;
	return 1;
}

static int perf_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	struct perf *p = r->be_priv;

	for (;;) {
		if (p->nq && p->q[0].ts <= p->limit) {
			struct qent e = q_pop(p);
			int rc = deliver(r, p, &e, ev, err);
			if (rc)
				return rc;
			continue;
		}
		if (p->eof) {
			if (!p->nq)
				return 0;
			p->limit = UINT64_MAX;
			continue;
		}
		if (read_record(r, p, err))
			return -1;
	}
}

/* ---- open and close ----------------------------------------------------- */

static bool perf_probe(const uint8_t *b, uint64_t len)
{
	uint64_t magic;

	if (len < 8)
		return false;
	memcpy(&magic, b, 8);
	/* version 1 too, so that perf_open() names it rather than "wrong magic" */
	return magic == PERF_MAGIC || magic == PERF_MAGIC_BE || !memcmp(b, PERF_MAGIC_V1, 8);
}

static const char *clock_name(int64_t id)
{
	switch (id) {
	case -1:
		return "local"; /* perf_clock(): the kernel's local_clock() */
	case 0:
		return "realtime";
	case 1:
		return "mono";
	case 4:
		return "mono_raw";
	case 7:
		return "boot";
	case 11:
		return "tai";
	default:
		return "unknown";
	}
}

/* uname, recorder, clock, lacks and the one buffer, from what was read. */
static int fill_info(struct fmt_reader *r, struct perf *p, struct err_msg *err)
{
	struct fmt_buffer *b = calloc(1, sizeof(*b));
	int ncpus = r->info.cpus;

	r->info.buffers = b;
	if (!b)
		return FAIL("out of memory");
	r->info.nbuffers = 1;
	r->info.clock = clock_name(p->clockid);
	b->name = strdup("");
	b->clock = strdup(r->info.clock);
	if (!b->name || !b->clock)
		return FAIL("out of memory");
	if (p->osrelease &&
	    asprintf(&r->uname, "Linux %s %s %s", p->host ? p->host : "?", p->osrelease,
		     p->arch ? p->arch : "?") < 0)
		return FAIL("out of memory");
	r->info.uname = r->uname;
	if (asprintf(&r->tracer_version, "perf %s%s%s", p->version ? p->version : "(version ?)",
		     p->cmdline ? ": " : "", p->cmdline ? p->cmdline : "") < 0)
		return FAIL("out of memory");
	r->info.tracer_version = r->tracer_version;
	snprintf(p->lacks, sizeof(p->lacks), "%sper-cpu buffer stats",
		 r->info.kallsyms_bytes ? "" : "kallsyms, ");
	r->info.lacks = p->lacks;
	r->info.cpus = 0;
	if (ncpus && !cpu_stream(r, ncpus - 1, err))
		return -1;
	return 0;
}

static int perf_open(struct fmt_reader *r, struct err_msg *err)
{
	struct perf *p = calloc(1, sizeof(*p));
	struct rd d = rd_init(r->map, r->file_len, false);
	uint64_t magic = rd_u64(&d), hsize = rd_u64(&d);

	if (!p)
		return FAIL("out of memory");
	r->be_priv = p;
	p->clockid = -1;
	if (magic == PERF_MAGIC_BE)
		return FAIL("big-endian perf.data is not supported");
	if (!memcmp(r->map, PERF_MAGIC_V1, 8))
		return FAIL("perf.data version 1 (magic PERFFILE, the legacy format of old perf): "
			    "not supported, only version 2 (PERFILE2)");
	if (d.bad || (hsize != FILE_HDR_BYTES && hsize != PIPE_HDR_BYTES))
		return FAIL("bad perf.data header size %" PRIu64 " (104 or 16 for a pipe)", hsize);
	p->pipe = hsize == PIPE_HDR_BYTES;
	r->info.version = 2;
	if (p->pipe) {
		r->info.format = "perf.data (pipe)";
		p->pos = PIPE_HDR_BYTES;
		p->end = r->file_len;
		if (prescan(r, p, err))
			return -1;
	} else if (open_file(r, p, err) || (!p->have_tracing && prescan(r, p, err))) {
		return -1;
	}
	if (!p->have_tracing)
		return FAIL("no tracing data (HEADER_TRACING_DATA, as a section or a record): not a recording of "
			    "tracepoints (perf record -e SYSTEM:EVENT samples them with RAW data)");
	if (check_attrs(r, p, err))
		return -1;
	if (!p->nraw)
		return FAIL("no tracepoint event sampled with RAW data: nothing to read");
	tep_set_cpus(r->tep, r->info.cpus);
	return fill_info(r, p, err);
}

static void perf_close(struct fmt_reader *r)
{
	struct perf *p = r->be_priv;

	if (!p)
		return;
	free(p->attrs);
	free(p->ids);
	free(p->q);
	free(p->host);
	free(p->osrelease);
	free(p->arch);
	free(p->version);
	free(p->cmdline);
	free(p);
	r->be_priv = NULL;
}

const struct fmt_backend fmt_perf_backend = {
	.name = "perf.data",
	.probe = perf_probe,
	.open = perf_open,
	.next = perf_next,
	.close = perf_close,
};
