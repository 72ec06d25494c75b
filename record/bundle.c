// SPDX-License-Identifier: MIT
/*
 * The bundle: one trace.dat v7 file (fmt/writer.c) holding what tracefs
 * says about the recording (event formats, kallsyms, printk formats, saved
 * cmdlines, per-CPU stats) and the per-CPU page files, plus darc's manifest.
 * The metadata is read while tracefs still holds it (probe events vanish
 * with their probes), the page files are stored after tracefs is restored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>
#include <traceevent/kbuffer.h>

#include "bundle.h"
#include "config.h"
#include "manifest.h"
#include "rec.h"
#include "session.h"
#include "stream.h"
#include "tracedat-ids.h"
#include "writer.h"

struct bundle {
	struct fmt_writer *w;
	char *path;
	int nbuf;
	const char *names[2];
	char *clock;
};

/* A whole file (procfs files report no size), or NULL with errno. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *s = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 65536 > cap) {
			char *p = realloc(s, cap = cap ? 2 * cap : 1 << 20);
			if (!p) {
				free(s);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			s = p;
		}
		n = fread(s + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return s;
}

static int add_format(struct fmt_writer *w, const char *sys, const char *name, struct err_msg *err)
{
	int len = 0;
	char *text = tracefs_event_file_read(NULL, sys, name, "format", &len);
	int rc;

	if (!text)
		return err_setf(err, NULL, "cannot read the format of event %s:%s: %s", sys, name,
				strerror(errno));
	rc = fmt_writer_add_format(w, sys, text, len, err);
	free(text);
	return rc;
}

static int add_formats(struct bundle *b, struct sess_buffer *bufs, int nbuf, struct err_msg *err)
{
	char **ftrace = tracefs_system_events(NULL, "ftrace");
	int rc = 0;

	for (int i = 0; ftrace && ftrace[i] && !rc; i++)
		rc = add_format(b->w, "ftrace", ftrace[i], err);
	tracefs_list_free(ftrace);
	for (int k = 0; k < nbuf && !rc; k++)
		for (int i = 0; i < bufs[k].nevents && !rc; i++) {
			bool dup = false;
			/* an event in both buffers is described once */
			for (int j = 0; j < k && !dup; j++)
				for (int m = 0; m < bufs[j].nevents && !dup; m++)
					dup = !strcmp(bufs[j].event_sys[m], bufs[k].event_sys[i]) &&
					      !strcmp(bufs[j].event_name[m], bufs[k].event_name[i]);
			if (!dup)
				rc = add_format(b->w, bufs[k].event_sys[i], bufs[k].event_name[i],
						err);
		}
	return rc;
}

static long stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

char *bundle_cpu_stats(struct tracefs_instance *inst, int cpu, struct rec_cpu_result *c)
{
	char file[64];
	char *text, *out;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(inst, file, NULL);
	if (!text)
		return NULL;
	/* "commit overrun:" first: "overrun:" alone would match inside it */
	c->commit_overrun = stat_field(text, "commit overrun:");
	c->overrun = stat_field(text, "\noverrun:");
	if (!strncmp(text, "overrun:", 8))
		c->overrun = stat_field(text, "overrun:");
	c->dropped = stat_field(text, "dropped events:");
	c->pending = stat_field(text, "\nbytes:");
	c->entries = stat_field(text, "entries:");
	if (asprintf(&out, "CPU: %d\n%s", cpu, text) < 0)
		out = NULL;
	free(text);
	return out;
}

/* Read a tracefs file and give it to @set. */
static int add_text(struct bundle *b, const char *file, const char *extra,
		    int (*set)(struct fmt_writer *, const char *, size_t, struct err_msg *),
		    struct err_msg *err)
{
	int len = 0;
	char *text = tracefs_instance_file_read(NULL, file, &len);
	char *all = NULL;
	int rc;

	if (!text)
		return err_setf(err, NULL, "cannot read tracefs '%s': %s", file, strerror(errno));
	if (extra && asprintf(&all, "%s%s", text, extra) < 0) {
		free(text);
		return err_setf(err, NULL, "out of memory");
	}
	rc = set(b->w, all ? all : text, all ? strlen(all) : (size_t)len, err);
	free(all);
	free(text);
	return rc;
}

static int add_options(struct bundle *b, struct sess_buffer *bufs, int nbuf, struct rec_result *r,
		       struct err_msg *err)
{
	struct utsname u;
	char *s;
	uint32_t ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int rc;

	uname(&u);
	if (asprintf(&s, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine) < 0)
		return err_setf(err, NULL, "out of memory");
	rc = fmt_writer_add_option_str(b->w, FMT_OPT_UNAME, s, err);
	free(s);
	if (rc ||
	    fmt_writer_add_option_str(b->w, FMT_OPT_VERSION, "darc-record " DARC_VERSION, err))
		return -1;
	b->clock = tracefs_instance_file_read(bufs[0].inst, "trace_clock", NULL);
	if (b->clock && fmt_writer_add_option_str(b->w, FMT_OPT_TRACECLOCK, b->clock, err))
		return -1;
	if (fmt_writer_add_option(b->w, FMT_OPT_CPUCOUNT, &ncpus, 4, err))
		return -1;
	for (int k = 0; k < nbuf; k++)
		for (int i = 0; i < r->buffers[k].ncpus; i++) {
			struct rec_cpu_result *c = &r->buffers[k].cpus[i];
			char *st = bundle_cpu_stats(bufs[k].inst, c->cpu, c);
			char *text = st;

			if (!st)
				continue;
			/* trace-cmd's form: a named buffer's stats follow "Buffer: NAME" */
			if (k && !i && asprintf(&text, "Buffer: %s\n%s", bufs[k].name, st) < 0)
				text = NULL;
			rc = text ? fmt_writer_add_option_str(b->w, FMT_OPT_CPUSTAT, text, err)
				  : err_setf(err, NULL, "out of memory");
			if (text != st)
				free(text);
			free(st);
			if (rc)
				return -1;
		}
	return 0;
}

struct bundle *bundle_begin(const char *path, bool force, struct sess_buffer *bufs, int nbuf,
			    const char *extra_cmdlines, struct rec_result *r, int page_size,
			    struct err_msg *err)
{
	struct bundle *b = calloc(1, sizeof(*b));
	struct fmt_writer_params prm = {.page_size = page_size, .force = force};
	int hp = 0, he = 0;
	char *page = NULL, *event = NULL, *kallsyms = NULL;
	size_t klen;

	if (!b) {
		err_setf(err, NULL, "out of memory");
		return NULL;
	}
	b->nbuf = nbuf;
	for (int i = 0; i < nbuf; i++)
		b->names[i] = bufs[i].name;
	b->w = fmt_writer_create(path, &prm, err);
	if (!b->w)
		goto fail;
	page = tracefs_instance_file_read(NULL, "events/header_page", &hp);
	event = tracefs_instance_file_read(NULL, "events/header_event", &he);
	if (!page || !event) {
		err_setf(err, NULL, "cannot read tracefs events/header_page or header_event: %s",
			 strerror(errno));
		goto fail;
	}
	if (fmt_writer_set_headers(b->w, page, hp, event, he, err) ||
	    add_formats(b, bufs, nbuf, err))
		goto fail;
	kallsyms = slurp("/proc/kallsyms", &klen);
	if (kallsyms && fmt_writer_set_kallsyms(b->w, kallsyms, klen, err))
		goto fail;
	free(r->tgids);
	r->tgids = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
	if (add_text(b, "printk_formats", NULL, fmt_writer_set_printk, err) ||
	    add_text(b, "saved_cmdlines", extra_cmdlines, fmt_writer_set_cmdlines, err) ||
	    add_options(b, bufs, nbuf, r, err))
		goto fail;
	free(page);
	free(event);
	free(kallsyms);
	return b;
fail:
	free(page);
	free(event);
	free(kallsyms);
	bundle_free(b);
	return NULL;
}

/*
 * The events and lost-event marks in the first @c->pages pages of page file
 * @fd, counted as a reader of the bundle counts them (kbuffer), so that the
 * summary says what `darc info` will find.
 */
static void count_events(int fd, int page_size, struct rec_cpu_result *c)
{
	const union { uint16_t v; uint8_t b; } one = {1};
	struct kbuffer *kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   one.b ? KBUFFER_ENDIAN_LITTLE : KBUFFER_ENDIAN_BIG);
	char *page = malloc(page_size);

	for (uint64_t p = 0; kb && page && p < c->pages; p++) {
		long long missed;

		if (pread(fd, page, page_size, p * page_size) != page_size ||
		    kbuffer_load_subbuffer(kb, page) < 0)
			break;
		missed = kbuffer_missed_events(kb);
		c->lost_marks += missed != 0;
		c->lost_uncounted += missed < 0;
		c->lost_marked += missed > 0 ? missed : 0;
		for (void *d = kbuffer_read_event(kb, NULL); d; d = kbuffer_next_event(kb, NULL))
			c->events++;
	}
	free(page);
	if (kb)
		kbuffer_free(kb);
}

int bundle_finish(struct bundle *b, struct stream **streams, struct rec_result *r,
		  const struct rec_opts *o, const struct target *t, struct err_msg *err)
{
	char *m;
	int rc;

	for (int k = 0; k < b->nbuf; k++) {
		struct rec_buffer_result *br = &r->buffers[k];
		struct fmt_writer_cpu cpus[br->ncpus ? br->ncpus : 1];
		struct fmt_writer_cpu_stats st[br->ncpus ? br->ncpus : 1];

		for (int i = 0; i < br->ncpus; i++)
			cpus[i] =
			    (struct fmt_writer_cpu){br->cpus[i].cpu, stream_fd(streams[k], i)};
		if (fmt_writer_add_buffer(b->w, b->names[k], r->clock, br->ncpus, cpus, st, err))
			return -1;
		for (int i = 0; i < br->ncpus; i++) {
			br->cpus[i].bytes = st[i].bytes;
			br->cpus[i].pages = st[i].pages;
			count_events(stream_fd(streams[k], i), r->page_size, &br->cpus[i]);
		}
	}
	m = manifest_json(o, t, r);
	if (!m)
		return err_setf(err, NULL, "out of memory for the manifest");
	rc = fmt_writer_add_option_str(b->w, FMT_OPT_DARC_MANIFEST, m, err);
	free(m);
	if (rc)
		return -1;
	return fmt_writer_finish(b->w, err);
}

void bundle_free(struct bundle *b)
{
	if (!b)
		return;
	fmt_writer_free(b->w);
	free(b->clock);
	free(b);
}
