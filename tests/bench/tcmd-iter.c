// SPDX-License-Identifier: GPL-2.0
/*
 * tcmd-iter: the peer reader for darc's parse benchmark.
 *
 * Opens a trace.dat (v6 or v7) with libtracecmd and walks every event of the
 * top buffer with tracecmd_iterate_events(), counting them, and prints
 *
 *	tcmd-iter: events=N missed=M missed_marks=K open_s=X iterate_s=Y total_s=Z
 *
 * With -s it also counts events per type (an array indexed by type id, so
 * the walk stays cheap) and prints one "count system:name" line per type,
 * followed by the summary line.  Without -s the callback only increments a
 * counter: that is the figure to compare against.
 *
 * Build: cc -O2 -o tcmd-iter tcmd-iter.c $(pkg-config --cflags --libs libtracecmd)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <event-parse.h>

struct walk {
	unsigned long long events;	/* records seen */
	unsigned long long missed;	/* sum of record->missed_events > 0 */
	unsigned long long missed_marks; /* records flagged with missed events of unknown count */
	struct tep_handle *tep;		/* only set with -s */
	unsigned long long *per_type;	/* count per type id, only with -s */
	int nr_types;			/* size of per_type */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int count_cb(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	struct walk *w = data;

	(void)handle;
	(void)cpu;
	w->events++;
	if (rec->missed_events > 0)
		w->missed += rec->missed_events;
	else if (rec->missed_events < 0)
		w->missed_marks++;
	return 0;
}

static int type_cb(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	struct walk *w = data;
	int id = tep_data_type(w->tep, rec);

	if (id >= w->nr_types) {
		int n = id + 1024;
		unsigned long long *p = realloc(w->per_type, n * sizeof(*p));

		if (!p)
			return -1;
		memset(p + w->nr_types, 0, (n - w->nr_types) * sizeof(*p));
		w->per_type = p;
		w->nr_types = n;
	}
	if (id >= 0)
		w->per_type[id]++;
	return count_cb(handle, rec, cpu, data);
}

static void print_types(struct walk *w)
{
	for (int id = 0; id < w->nr_types; id++) {
		struct tep_event *ev;

		if (!w->per_type[id])
			continue;
		ev = tep_find_event(w->tep, id);
		if (ev)
			printf("%llu %s:%s\n", w->per_type[id], ev->system, ev->name);
		else
			printf("%llu unknown:%d\n", w->per_type[id], id);
	}
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	struct walk w = { 0 };
	int per_type = 0;
	double t0, t1, t2;
	int opt, ret;

	while ((opt = getopt(argc, argv, "+s")) != -1) {
		switch (opt) {
		case 's':
			per_type = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;

	tracecmd_set_loglevel(TEP_LOG_ERROR);
	t0 = now();
	handle = tracecmd_open(argv[optind], 0);
	if (!handle) {
		fprintf(stderr, "tcmd-iter: cannot open '%s'\n", argv[optind]);
		return 1;
	}
	t1 = now();
	if (per_type)
		w.tep = tracecmd_get_tep(handle);
	ret = tracecmd_iterate_events(handle, NULL, 0, per_type ? type_cb : count_cb, &w);
	t2 = now();
	if (ret < 0) {
		fprintf(stderr, "tcmd-iter: cannot iterate '%s'\n", argv[optind]);
		tracecmd_close(handle);
		return 1;
	}
	if (per_type)
		print_types(&w);
	printf("tcmd-iter: events=%llu missed=%llu missed_marks=%llu open_s=%.3f iterate_s=%.3f total_s=%.3f\n",
	       w.events, w.missed, w.missed_marks, t1 - t0, t2 - t1, t2 - t0);
	free(w.per_type);
	tracecmd_close(handle);
	if (fflush(stdout) != 0) {
		perror("tcmd-iter: cannot write output");
		return 1;
	}
	return 0;

usage:
	fprintf(stderr, "usage: tcmd-iter [-s] FILE.dat\n");
	return 2;
}
