// SPDX-License-Identifier: MIT
/*
 * The block events darc follows bios through, as ftrace prints them, read
 * back into records in their 6.1 layout (see text-block.h). Four shapes:
 *
 *   bio       "MAJ,MIN RWBS SECTOR + NR [COMM]"            (queue, merges, getrq)
 *   rq        "MAJ,MIN RWBS BYTES (CMD) SECTOR + NR [COMM]" (rq_issue, insert, merge)
 *   rq_done   "MAJ,MIN RWBS (CMD) SECTOR + NR [ERROR]"     (rq_complete, rq_error)
 *   bio_done  "MAJ,MIN RWBS SECTOR + NR [ERROR]"           (bio_complete)
 *
 * Kernels since 6.10 print a request's I/O priority before its last field,
 * "SECTOR + NR be,0,4 [COMM]" (class, hint, level), and have it in the
 * record (ioprio), with a longer rwbs: a text that prints it gets their
 * layout (6.18's and 7.3's), one that does not 6.1's.
 */
#include "text-block.h"

#include <stdlib.h>
#include <string.h>

enum shape { SH_BIO, SH_RQ, SH_RQ_DONE, SH_BIO_DONE };

#define DEVFMT                                                                             \
	"((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1)))"
#define F_DEV "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"                       \
	      "\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"                   \
	      "\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"

#define FMT_BIO(NAME, ID)                                                                  \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:char rwbs[8];\toffset:28;\tsize:8;\tsigned:1;\n"                           \
	"\tfield:char comm[16];\toffset:36;\tsize:16;\tsigned:1;\n\n"                       \
	"print fmt: \"%d,%d %s %llu + %u [%s]\", " DEVFMT ", REC->rwbs, "                  \
	"(unsigned long long)REC->sector, REC->nr_sector, REC->comm\n"

#define FMT_RQ(NAME, ID)                                                                   \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"                     \
	"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:1;\n"                           \
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"                         \
	"\tfield:__data_loc char[] cmd;\toffset:56;\tsize:4;\tsigned:1;\n\n"                \
	"print fmt: \"%d,%d %s %u (%s) %llu + %u [%s]\", " DEVFMT ", REC->rwbs, "          \
	"REC->bytes, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, "     \
	"REC->comm\n"

#define FMT_RQ_DONE(NAME, ID)                                                              \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:1;\n"                           \
	"\tfield:__data_loc char[] cmd;\toffset:40;\tsize:4;\tsigned:1;\n\n"                \
	"print fmt: \"%d,%d %s (%s) %llu + %u [%d]\", " DEVFMT ", REC->rwbs, "             \
	"__get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->error\n"

#define FMT_BIO_DONE(NAME, ID)                                                             \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:1;\n\n"                         \
	"print fmt: \"%d,%d %s %llu + %u [%d]\", " DEVFMT ", REC->rwbs, "                  \
	"(unsigned long long)REC->sector, REC->nr_sector, REC->error\n"

static bool num(struct text_cursor *c, uint64_t *v, char stop);

/* The layouts with the I/O priority (6.10 on; these are 6.18's and 7.3's). */
#define IOPRIO_PRINT                                                                       \
	"__print_symbolic((((REC->ioprio) >> 13) & (8 - 1)), { IOPRIO_CLASS_NONE, \"none\" }, " \
	"{ IOPRIO_CLASS_RT, \"rt\" }, { IOPRIO_CLASS_BE, \"be\" }, { IOPRIO_CLASS_IDLE, "     \
	"\"idle\" }, { IOPRIO_CLASS_INVALID, \"invalid\"}), (((REC->ioprio) >> 3) & "        \
	"((1 << 10) - 1)), ((REC->ioprio) & ((1 << 3) - 1))"

#define FMT_BIO_P(NAME, ID)                                                                \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;\n"                          \
	"\tfield:char comm[16];\toffset:38;\tsize:16;\tsigned:0;\n\n"                        \
	"print fmt: \"%d,%d %s %llu + %u [%s]\", " DEVFMT ", REC->rwbs, "                  \
	"(unsigned long long)REC->sector, REC->nr_sector, REC->comm\n"

#define FMT_RQ_P(NAME, ID)                                                                 \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"                     \
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"                  \
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"                          \
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"                          \
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"                 \
	"print fmt: \"%d,%d %s %u (%s) %llu + %u %s,%u,%u [%s]\", " DEVFMT ", REC->rwbs, "  \
	"REC->bytes, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, "     \
	IOPRIO_PRINT ", REC->comm\n"

#define FMT_RQ_DONE_P(NAME, ID)                                                            \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"                  \
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"                          \
	"\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n\n"                 \
	"print fmt: \"%d,%d %s (%s) %llu + %u %s,%u,%u [%d]\", " DEVFMT ", REC->rwbs, "     \
	"__get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, " IOPRIO_PRINT    \
	", REC->error\n"

#define FMT_BIO_DONE_P(NAME, ID)                                                           \
	"name: " NAME "\nID: " ID "\n" TF_COMMON_TEXT F_DEV                                \
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:char rwbs[10];\toffset:32;\tsize:10;\tsigned:0;\n\n"                        \
	"print fmt: \"%d,%d %s %llu + %u [%d]\", " DEVFMT ", REC->rwbs, "                  \
	"(unsigned long long)REC->sector, REC->nr_sector, REC->error\n"

#define EV(NAME, ID, SHAPE, FMT, P)                                                         \
	{NAME, ID, SHAPE, FMT(NAME, #ID), sizeof(FMT(NAME, #ID)) - 1, P}

/* 6.1's, and the same events with the I/O priority (their ids: 6.1's, unique here). */
static const struct tblock_event events[2][13] = {{
	EV("block_bio_queue", 1055, SH_BIO, FMT_BIO, false),
	EV("block_bio_backmerge", 1057, SH_BIO, FMT_BIO, false),
	EV("block_bio_frontmerge", 1056, SH_BIO, FMT_BIO, false),
	EV("block_bio_bounce", 1058, SH_BIO, FMT_BIO, false),
	EV("block_getrq", 1054, SH_BIO, FMT_BIO, false),
	EV("block_rq_issue", 1061, SH_RQ, FMT_RQ, false),
	EV("block_rq_insert", 1062, SH_RQ, FMT_RQ, false),
	EV("block_rq_merge", 1060, SH_RQ, FMT_RQ, false),
	EV("block_rq_complete", 1064, SH_RQ_DONE, FMT_RQ_DONE, false),
	EV("block_rq_error", 1063, SH_RQ_DONE, FMT_RQ_DONE, false),
	EV("block_bio_complete", 1059, SH_BIO_DONE, FMT_BIO_DONE, false),
	EV("block_io_start", 1065, SH_RQ, FMT_RQ, false),
	EV("block_io_done", 1066, SH_RQ, FMT_RQ, false),
}, {
	EV("block_bio_queue", 1055, SH_BIO, FMT_BIO_P, true),
	EV("block_bio_backmerge", 1057, SH_BIO, FMT_BIO_P, true),
	EV("block_bio_frontmerge", 1056, SH_BIO, FMT_BIO_P, true),
	EV("block_bio_bounce", 1058, SH_BIO, FMT_BIO_P, true),
	EV("block_getrq", 1054, SH_BIO, FMT_BIO_P, true),
	EV("block_rq_issue", 1061, SH_RQ, FMT_RQ_P, true),
	EV("block_rq_insert", 1062, SH_RQ, FMT_RQ_P, true),
	EV("block_rq_merge", 1060, SH_RQ, FMT_RQ_P, true),
	EV("block_rq_complete", 1064, SH_RQ_DONE, FMT_RQ_DONE_P, true),
	EV("block_rq_error", 1063, SH_RQ_DONE, FMT_RQ_DONE_P, true),
	EV("block_bio_complete", 1059, SH_BIO_DONE, FMT_BIO_DONE_P, true),
	EV("block_io_start", 1065, SH_RQ, FMT_RQ_P, true),
	EV("block_io_done", 1066, SH_RQ, FMT_RQ_P, true),
}};

const struct tblock_event *tblock_events(int *n, bool ioprio)
{
	*n = (int)(sizeof(events[0]) / sizeof(events[0][0]));
	return events[ioprio];
}

const struct tblock_event *tblock_find(struct text_span name, bool ioprio)
{
	for (size_t i = 0; i < sizeof(events[0]) / sizeof(events[0][0]); i++)
		if ((int)strlen(events[ioprio][i].name) == name.n &&
		    !memcmp(events[ioprio][i].name, name.p, name.n))
			return &events[ioprio][i];
	return NULL;
}

/* "be,0,4 " (class, hint, level) into the kernel's ioprio; false if it is not one. */
static bool ioprio(struct text_cursor *c, uint16_t *v)
{
	static const char *const cls[] = {"none", "rt", "be", "idle", NULL, NULL, NULL, "invalid"};
	const char *comma = memchr(c->p, ',', c->end - c->p);
	uint64_t hint, level, n;
	int k = -1;

	for (int i = 0; comma && i < 8; i++)
		if (cls[i] && (int)strlen(cls[i]) == comma - c->p && !memcmp(cls[i], c->p, comma - c->p))
			k = i;
	/* trace-cmd, without the IOPRIO_CLASS_* values, prints the class's number */
	if (k < 0 && comma && comma - c->p > 2 && c->p[1] == 'x' &&
	    tline_hex(c->p + 2, comma, &n) && n < 8)
		k = (int)n;
	if (k < 0)
		return false;
	c->p = comma + 1;
	if (!num(c, &hint, ',') || !num(c, &level, ' ') || hint > 1023 || level > 7)
		return false;
	*v = (uint16_t)(k << 13 | hint << 3 | level);
	return true;
}

/* An unsigned number (up to 20 digits, the whole u64 range) followed by @stop. */
static bool num(struct text_cursor *c, uint64_t *v, char stop)
{
	const char *s = c->p;
	uint64_t u = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - s < 20) {
		uint64_t d = (uint64_t)(*c->p - '0');
		if (u > (UINT64_MAX - d) / 10)
			return false;
		u = u * 10 + d;
		c->p++;
	}
	if (c->p == s || c->p >= c->end || *c->p != stop)
		return false;
	c->p++;
	*v = u;
	return true;
}

/* A word up to the next @stop (not included in it), then past @stop. */
static bool word(struct text_cursor *c, struct text_span *w, char stop)
{
	const char *e = memchr(c->p, stop, c->end - c->p);

	if (!e)
		return false;
	*w = (struct text_span){c->p, (int)(e - c->p)};
	c->p = e + 1;
	return true;
}

/* "[" TEXT "]" ending the fields: a comm, or an error number. */
static bool tail(struct text_cursor *c, struct text_span *w)
{
	if (!tline_eat(c, "[") || c->end - c->p < 1 || c->end[-1] != ']')
		return false;
	*w = (struct text_span){c->p, (int)(c->end - 1 - c->p)};
	c->p = c->end;
	return true;
}

int tblock_parse(const struct tblock_event *e, struct text_span f, struct tblock *b)
{
	struct text_cursor c = {f.p, f.p + f.n};
	uint64_t maj, min, v;
	long long err;

	memset(b, 0, sizeof(*b));
	if (!f.p || !num(&c, &maj, ',') || !num(&c, &min, ' ') || maj > 4095 || min > 0xfffff ||
	    !word(&c, &b->rwbs, ' '))
		return -1;
	b->dev = (uint32_t)(maj << 20 | min);
	if (e->shape == SH_RQ) {
		if (!num(&c, &v, ' ') || v > UINT32_MAX)
			return -1;
		b->bytes = (uint32_t)v;
	}
	if ((e->shape == SH_RQ || e->shape == SH_RQ_DONE) &&
	    (!tline_eat(&c, "(") || !word(&c, &b->cmd, ')') || !tline_eat(&c, " ")))
		return -1;
	if (!num(&c, &b->sector, ' ') || !tline_eat(&c, "+ ") || !num(&c, &v, ' ') ||
	    v > UINT32_MAX)
		return -1;
	if (e->ioprio && (e->shape == SH_RQ || e->shape == SH_RQ_DONE) && !ioprio(&c, &b->ioprio))
		return -1;
	if (!tail(&c, &b->tail))
		return -1;
	b->nr_sector = (uint32_t)v;
	if (e->shape == SH_RQ_DONE || e->shape == SH_BIO_DONE) {
		if (!tline_span_int(b->tail, &err))
			return -1;
		b->error = (int32_t)err;
	}
	return 0;
}

/*
 * Where each field of a shape is (0: not in it), 6.1's and with the I/O
 * priority; "data" is where a __data_loc string's bytes start.
 */
struct layout {
	int val, ioprio, rwbs, rwbs_len, comm, loc, data;
};

static const struct layout layouts[2][4] = {
	/* SH_BIO, SH_RQ (val: bytes), SH_RQ_DONE (val: error), SH_BIO_DONE (val: error) */
	{{0, 0, 28, 8, 36, 0, 52}, {28, 0, 32, 8, 40, 56, 60}, {28, 0, 32, 8, 0, 40, 44},
	 {28, 0, 32, 8, 0, 0, 40}},
	{{0, 0, 28, 10, 38, 0, 54}, {28, 32, 34, 10, 44, 60, 64}, {28, 32, 34, 10, 0, 44, 48},
	 {28, 0, 32, 10, 0, 0, 42}},
};

int tblock_size(const struct tblock_event *e, const struct tblock *b)
{
	const struct layout *l = &layouts[e->ioprio][e->shape];

	return l->data + (l->loc ? (b->cmd.n > 64 ? 64 : b->cmd.n) + 1 : 0);
}

static void put(uint8_t *rec, int off, const void *v, size_t n)
{
	memcpy(rec + off, v, n);
}

/* A string field of @max bytes (NUL-terminated, cut if need be). */
static void put_str(uint8_t *rec, int off, struct text_span s, int max)
{
	if (s.n > 0)
		memcpy(rec + off, s.p, s.n < max - 1 ? s.n : max - 1);
}

/* The __data_loc string at @loc, its bytes at @data. */
static void put_loc(uint8_t *rec, int loc, int data, struct text_span s)
{
	int n = s.n > 64 ? 64 : s.n;
	uint32_t dl = (uint32_t)(n + 1) << 16 | (uint32_t)data;

	put(rec, loc, &dl, 4);
	if (n > 0)
		memcpy(rec + data, s.p, n);
}

void tblock_fill(uint8_t *rec, const struct tblock_event *e, const struct tblock *b)
{
	const struct layout *l = &layouts[e->ioprio][e->shape];

	put(rec, 8, &b->dev, 4);
	put(rec, 16, &b->sector, 8);
	put(rec, 24, &b->nr_sector, 4);
	if (l->val)
		put(rec, l->val, e->shape == SH_RQ ? (const void *)&b->bytes : &b->error, 4);
	if (l->ioprio)
		put(rec, l->ioprio, &b->ioprio, 2);
	put_str(rec, l->rwbs, b->rwbs, l->rwbs_len);
	if (l->comm)
		put_str(rec, l->comm, b->tail, 16);
	if (l->loc)
		put_loc(rec, l->loc, l->data, b->cmd);
}
