// SPDX-License-Identifier: MIT
/*
 * The reader's front end (fmt.h): map the file, give it to the first format
 * of fmt_backends[] that knows its content, and pass every call on to it.
 */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "events.h"
#include "file.h"
#include "fmt.h"
#include "tracing-data.h"
#include "uftrace.h"
#include "wfile.h"

#define MAP_SLACK (1U << 17) /* readable zeros after the file: see map_file() */

/*
 * Map the file read-only, followed by MAP_SLACK readable zero bytes, so that
 * libtraceevent following a corrupt dynamic-array offset (at most 64 KiB past
 * an event) reads zeros instead of faulting.
 */
static int map_file(struct fmt_reader *r, struct err_msg *err)
{
	void *base;

	/* a FIFO, a device, a directory: refused at once, never waited on */
	r->fd = fmt_file_open_regular(r->path, "recording", UINT64_MAX / 2, &r->file_len, err);
	if (r->fd < 0)
		return -1;
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

const char *fmt_reader_func_module(const struct fmt_reader *r, uint64_t addr)
{
	return kmod_find(&r->kmods, addr);
}

const char *fmt_reader_function_at(struct fmt_reader *r, uint64_t addr)
{
	return ksyms_function_at(&r->ksyms_tab, addr);
}

bool fmt_reader_func_params(const struct fmt_reader *r, uint64_t addr,
			    const struct fmt_param **p, int *n)
{
	*p = NULL;
	*n = 0;
	return r->be && r->be->func_params && r->be->func_params(r, addr, p, n);
}

uint64_t fmt_reader_clock_ts(const struct fmt_reader *r, uint64_t raw, int cpu)
{
	return r->be && r->be->clock_ts ? r->be->clock_ts(r, raw, cpu) : raw;
}

int fmt_reader_load_kallsyms(struct fmt_reader *r, struct err_msg *err)
{
	if (r->ksyms_done)
		return 0;
	r->ksyms_done = true;
	if (r->ksyms)
		return tracing_data_load_kallsyms_text(r, r->ksyms, r->ksyms_len, false,
						       err); /* mapped */
	return r->be->load_kallsyms ? r->be->load_kallsyms(r, err) : 0;
}

/* A directory that is no uftrace.data (fmt_uftrace_dir() said so): -1 with @err set. */
static int dir_not_uftrace(const char *path, struct err_msg *err)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	return err_setf(err, path, "a directory, not a recording (a uftrace.data directory"
				   " holds a file 'info')");
}

/* The first format that knows the content reads it. */
static int open_backend(struct fmt_reader *r, struct err_msg *err)
{
	for (int i = 0; fmt_backends[i]; i++) {
		if (!fmt_backends[i]->probe(r->map, r->file_len))
			continue;
		r->be = fmt_backends[i];
		r->info.format = r->be->name;
		return r->be->open(r, err);
	}
	if (r->file_len < 10) /* trace.dat's magic, the longest */
		return FAIL("too short for a recording (%" PRIu64 " bytes)", r->file_len);
	return FAIL("not a trace.dat, perf.data or ftrace text file (wrong magic)");
}

struct fmt_reader *fmt_reader_open(const char *path, unsigned flags, struct err_msg *err)
{
	struct fmt_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		err_setf(err, path, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->flags = flags;
	r->path = strdup(path);
	if (!r->path) {
		err_setf(err, path, "out of memory");
		goto fail;
	}
	r->info.path = r->path;
	wfile_note_input(path); /* never overwritten by this process (wfile.h) */
	r->info.format = "trace.dat";
	r->info.compression = "none";
	r->info.compression_ver = "";
	r->info.ts_report_secs = true; /* every format but a raw-clock trace.dat */
	if (fmt_uftrace_dir(path)) { /* a directory: uftrace.c */
		r->be = &fmt_uftrace_backend;
		r->info.format = r->be->name;
		if (r->be->open(r, err))
			goto fail;
		return r;
	}
	if (dir_not_uftrace(path, err) || map_file(r, err) || open_backend(r, err))
		goto fail;
	return r;
fail:
	fmt_reader_close(r);
	return NULL;
}

int fmt_reader_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	int n = r->be->next(r, ev, err);

	if (n > 0 && !ev->event) /* no format: maybe a refused one, whose events are counted */
		fmt_events_count_refused(r, ev->type);
	return n;
}

void fmt_reader_close(struct fmt_reader *r)
{
	if (!r)
		return;
	if (r->be && r->be->close)
		r->be->close(r);
	kmod_free(&r->kmods);
	free(r->streams);
	fmt_events_free(r); /* libtraceevent, which resolves through ksyms_tab */
	ksyms_free(&r->ksyms_tab);
	for (int i = 0; i < r->info.nbuffers; i++) {
		struct fmt_buffer *b = &r->info.buffers[i];
		free(b->name);
		free(b->clock);
		free(b->cpu_ids);
		free(b->bytes);
		free(b->cpustats);
	}
	free(r->info.buffers);
	free(r->info.options);
	if (r->map)
		munmap(r->map, r->map_total);
	if (r->fd >= 0)
		close(r->fd);
	free(r->uname);
	free(r->tracer_version);
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
