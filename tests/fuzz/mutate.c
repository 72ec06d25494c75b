// SPDX-License-Identifier: MIT
/*
 * mutate: feeds damaged copies of real recordings to the reader, built with
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 *   mutate [-c CUTS] [-f FLIPS] [-s SEED] FILE...
 *
 * For each FILE: the intact file must read; a copy cut at each of CUTS
 * offsets must be rejected with a one-line error naming the file; FLIPS
 * copies with 1-4 random bytes changed must either read or be rejected the
 * same way, and every event they yield is decoded with libtraceevent. A
 * crash, a sanitizer report or a wrong answer fails the run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "fmt.h"
#include "reader.h"

static char tmp[] = "/tmp/darc-mutate-XXXXXX";
static uint64_t rng;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int write_tmp(const uint8_t *b, size_t n)
{
	FILE *f = fopen(tmp, "wb");

	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "mutate: cannot write '%s': %s\n", tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Read the whole file at tmp; decode up to @decode events. Returns the event
 * count, or -1 with @err filled.
 */
static long walk(unsigned flags, long decode, struct err_msg *err)
{
	struct fmt_reader *r = fmt_reader_open(tmp, flags, err);
	struct fmt_event ev;
	struct trace_seq s;
	long n = 0;
	int rc;

	if (!r)
		return -1;
	trace_seq_init(&s);
	while ((rc = fmt_reader_next(r, &ev, err)) > 0) {
		if (n++ < decode && ev.event) {
			struct tep_record rec = {.ts = ev.ts, .cpu = ev.cpu, .size = ev.size,
						 .data = (void *)ev.data};
			trace_seq_reset(&s);
			tep_print_event(fmt_reader_tep(r), &s, &rec, "%s %s", TEP_PRINT_INFO,
					TEP_PRINT_INFO_RAW);
		}
	}
	trace_seq_destroy(&s);
	fmt_reader_close(r);
	return rc < 0 ? -1 : n;
}

static int check_msg(const struct err_msg *err, const char *what)
{
	if (!strstr(err->msg, tmp) || strchr(err->msg, '\n') || strlen(err->msg) < strlen(tmp) + 8) {
		fprintf(stderr, "FAIL: %s: bad error message: '%s'\n", what, err->msg);
		return -1;
	}
	return 0;
}

static int one_file(const char *path, int cuts, int flips)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf, *copy;
	long size, n0, ok = 0, rejected = 0;
	struct err_msg err;
	char what[128];

	if (!f) {
		fprintf(stderr, "mutate: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc(size);
	copy = malloc(size);
	if (!buf || !copy || fread(buf, 1, size, f) != (size_t)size) {
		fprintf(stderr, "mutate: cannot read '%s'\n", path);
		return -1;
	}
	fclose(f);

	if (write_tmp(buf, size))
		return -1;
	n0 = walk(0, 100000, &err);
	if (n0 < 0) {
		fprintf(stderr, "FAIL: %s: the intact file does not read: %s\n", path, err.msg);
		return -1;
	}
	for (int i = 0; i < cuts; i++) {
		/* evenly spread, plus the first and last bytes, where headers end */
		long cut = i < cuts / 2 ? (long)((double)i / (cuts / 2) * size)
			   : i < cuts / 2 + 8 ? size - 1 - (i - cuts / 2) * 7
					      : (long)(next_rand() % size);
		if (cut < 0)
			cut = 0;
		if (write_tmp(buf, cut))
			return -1;
		snprintf(what, sizeof(what), "%s cut at %ld of %ld", path, cut, size);
		if (walk(FMT_OPEN_NO_KALLSYMS, 0, &err) >= 0) {
			fprintf(stderr, "FAIL: %s: read without an error\n", what);
			return -1;
		}
		if (check_msg(&err, what))
			return -1;
	}
	for (int i = 0; i < flips; i++) {
		int nb = 1 + next_rand() % 4;

		memcpy(copy, buf, size);
		for (int k = 0; k < nb; k++) {
			/* half the flips hit the first 64 KiB, where most headers are */
			long at = (next_rand() & 1) ? next_rand() % (size < 65536 ? size : 65536)
						    : next_rand() % size;
			copy[at] ^= 1 + next_rand() % 255;
		}
		if (write_tmp(copy, size))
			return -1;
		snprintf(what, sizeof(what), "%s flip %d", path, i);
		if (walk((i % 8) ? FMT_OPEN_NO_KALLSYMS : 0, 5000, &err) >= 0)
			ok++;
		else if (check_msg(&err, what))
			return -1;
		else
			rejected++;
	}
	printf("ok: %s: %ld events; %d cuts all rejected; %d flips: %ld read, %ld rejected\n", path,
	       n0, cuts, flips, ok, rejected);
	free(buf);
	free(copy);
	return 0;
}

int main(int argc, char **argv)
{
	int cuts = 64, flips = 64, c, fd, rc = 0;
	uint64_t seed = 0x5eed;

	while ((c = getopt(argc, argv, "c:f:s:")) != -1) {
		switch (c) {
		case 'c':
			cuts = atoi(optarg);
			break;
		case 'f':
			flips = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: mutate [-c CUTS] [-f FLIPS] [-s SEED] FILE...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: mutate [-c CUTS] [-f FLIPS] [-s SEED] FILE...\n");
		return 2;
	}
	rng = seed ? seed : 1;
	printf("seed %#llx\n", (unsigned long long)seed);
	fd = mkstemp(tmp);
	if (fd < 0) {
		perror("mutate: mkstemp");
		return 2;
	}
	close(fd);
	for (int i = optind; i < argc && !rc; i++)
		rc = one_file(argv[i], cuts, flips);
	unlink(tmp);
	return rc ? 1 : 0;
}
