// SPDX-License-Identifier: MIT
#include "tdat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n";

static const char tick_format[] =
	"name: tick\n"
	"ID: 100\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"value=%d\", REC->value\n";

void tdat_init(struct tdat *t, int ncpus)
{
	memset(t, 0, sizeof(*t));
	t->ncpus = ncpus;
}

void tdat_page(struct tdat *t, int cpu, uint64_t ts, long missed)
{
	struct tdat_page *p;

	if (t->npages[cpu] >= TDAT_MAXPAGES)
		abort();
	p = &t->pages[cpu][t->npages[cpu]++];
	uint64_t commit = 0;

	memset(p, 0, sizeof(*p));
	memcpy(p->data, &ts, 8);
	p->last = ts;
	if (missed) {
		commit |= 1ULL << 31;
		if (missed > 0)
			commit |= 1ULL << 30;
	}
	memcpy(p->data + 8, &commit, 8);
	/* the missed count (if any) is written at commit time, see tdat_write */
	p->used = 0;
	p->data[TDAT_PAGE - 1] = 0;
	if (missed > 0)
		memcpy(p->data + TDAT_PAGE - 8, &missed, 8); /* moved in tdat_write */
}

void tdat_append(struct tdat_page *p, uint64_t ts, const void *rec, size_t len)
{
	uint8_t *e = p->data + 16 + p->used;
	uint64_t delta = ts - p->last;
	uint32_t words = (uint32_t)(len + 3) / 4, hdr;

	if (words > 255) /* a page holds them all; the tests need no larger */
		abort();
	if (delta >> 27) { /* type_len 30: a time extend, the high bits in array[0] */
		uint32_t hi = (uint32_t)(delta >> 27);
		hdr = 30 | (uint32_t)(delta & ((1 << 27) - 1)) << 5;
		memcpy(e, &hdr, 4);
		memcpy(e + 4, &hi, 4);
		e += 8;
		p->used += 8;
		delta = 0;
	}
	if (words > 28) {
		/* type_len 0: a longer record, its length (with the length's own
		   4 bytes) in array[0] */
		uint32_t n = 4 + 4 * words;
		hdr = (uint32_t)delta << 5;
		memcpy(e, &hdr, 4);
		memcpy(e + 4, &n, 4);
		e += 4;
		p->used += 4;
	} else {
		hdr = words | (uint32_t)delta << 5; /* type_len: the data's 4-byte words */
		memcpy(e, &hdr, 4);
	}
	memset(e + 4, 0, 4 * words);
	memcpy(e + 4, rec, len);
	p->used += 4 + 4 * words;
	p->last = ts;
	if (p->used > TDAT_PAGE - 16 - 8) /* room for a lost-events count */
		abort();
}

void tdat_event(struct tdat *t, int cpu, uint64_t ts, const void *rec, size_t len)
{
	tdat_append(&t->pages[cpu][t->npages[cpu] - 1], ts, rec, len);
}

void tdat_tick(struct tdat *t, int cpu, uint64_t ts, int pid, uint8_t flags, int value)
{
	uint8_t b[12];
	uint16_t type = TDAT_TICK_ID;

	memcpy(b, &type, 2);
	b[2] = flags;
	b[3] = 0;
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &value, 4);
	tdat_event(t, cpu, ts, b, sizeof(b));
}

static void put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static void put64(FILE *f, uint64_t v)
{
	put(f, &v, 8);
}

static void put32(FILE *f, uint32_t v)
{
	put(f, &v, 4);
}

/* A count, then each format of the NULL-terminated list @v with its size. */
static void put_formats(FILE *f, const char *const *v)
{
	uint32_t n = 0;

	while (v && v[n])
		n++;
	put32(f, n);
	for (uint32_t i = 0; i < n; i++) {
		put64(f, strlen(v[i]));
		put(f, v[i], strlen(v[i]));
	}
}

long tdat_write(const struct tdat *t, const char *path)
{
	FILE *f = fopen(path, "wb");
	uint32_t page = TDAT_PAGE;
	long table, data;

	if (!f)
		return -1;
	put(f, "\027\010\104tracing6", 11);
	put(f, "\0\0\x08", 3); /* NUL of "6", little endian, 8-byte long */
	put32(f, page);
	put(f, "header_page", 12);
	put64(f, sizeof(header_page) - 1);
	put(f, header_page, sizeof(header_page) - 1);
	put(f, "header_event", 13);
	put64(f, sizeof(header_event) - 1);
	put(f, header_event, sizeof(header_event) - 1);
	put_formats(f, t->ftrace_formats); /* ftrace formats */
	put32(f, 1 + t->nformats); /* systems: one format each */
	put(f, "test", 5);
	put32(f, 1);
	put64(f, sizeof(tick_format) - 1);
	put(f, tick_format, sizeof(tick_format) - 1);
	for (int i = 0; i < t->nformats; i++) {
		put(f, t->formats[i].system, strlen(t->formats[i].system) + 1);
		put32(f, 1);
		put64(f, strlen(t->formats[i].text));
		put(f, t->formats[i].text, strlen(t->formats[i].text));
	}
	put32(f, t->kallsyms ? (uint32_t)strlen(t->kallsyms) : 0); /* kallsyms */
	if (t->kallsyms)
		put(f, t->kallsyms, strlen(t->kallsyms));
	put32(f, 0); /* printk */
	const char *cmdlines = t->cmdlines ? t->cmdlines : "42 worker\n1 init\n";
	put64(f, strlen(cmdlines));
	put(f, cmdlines, strlen(cmdlines)); /* saved cmdlines */
	put32(f, t->ncpus);
	put(f, "options  ", 10);
	if (t->clock) { /* TRACECLOCK (4): trace_clock's text, the one in use bracketed */
		char text[64];
		int n = snprintf(text, sizeof(text), "local [%s]", t->clock) + 1;

		put(f, "\4\0", 2);
		put32(f, (uint32_t)n);
		put(f, text, (size_t)n);
	}
	put(f, "\0\0", 2); /* the end of the options */
	put(f, "flyrecord", 10);
	table = ftell(f);
	data = (table + 16 * t->ncpus + page - 1) / page * page;
	for (int c = 0, off = 0; c < t->ncpus; c++) {
		put64(f, data + off);
		put64(f, (uint64_t)t->npages[c] * page);
		off += t->npages[c] * page;
	}
	fseek(f, data, SEEK_SET);
	for (int c = 0; c < t->ncpus; c++)
		for (int i = 0; i < t->npages[c]; i++) {
			uint8_t buf[TDAT_PAGE];
			const struct tdat_page *p = &t->pages[c][i];
			uint64_t commit;

			memcpy(buf, p->data, TDAT_PAGE);
			memcpy(&commit, buf + 8, 8);
			if (commit & (1ULL << 30)) {
				/* the lost count sits right after the events */
				memcpy(buf + 16 + p->used, p->data + TDAT_PAGE - 8, 8);
				memset(buf + TDAT_PAGE - 8, 0, 8);
			}
			commit |= p->used;
			memcpy(buf + 8, &commit, 8);
			put(f, buf, TDAT_PAGE);
		}
	if (fclose(f))
		return -1;
	return data;
}
