// SPDX-License-Identifier: MIT
/*
 * darc dump: every event on one line, in time order, with the raw field
 * values libtraceevent decodes (the same values 'trace-cmd report -R'
 * prints), or with the events' own print formats (--pretty).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "cmd.h"
#include "fmt.h"
#include "vis.h"

static const char usage_text[] =
	"usage: darc dump [--pretty] [--usec] [-n COUNT] FILE\n\n"
	"Print every event of a recording on one line, merged across CPUs and\n"
	"trace buffers in time order:\n\n"
	"  [BUFFER:] COMM-PID [CPU] SECONDS: EVENT: FIELD=VALUE ...\n\n"
	"Lost events are shown where the ring buffer marked them, as\n"
	"'CPU:N [COUNT EVENTS DROPPED]'. Timestamps have nanoseconds. An event's\n"
	"last newline (a trace_marker text's) ends its line; control characters\n"
	"inside are escaped (a newline as \\n), so each event is one line.\n\n"
	"  --pretty  render each event with its print format instead of raw fields\n"
	"  --usec    print timestamps with microseconds (as trace-cmd report does)\n"
	"  -n, --limit COUNT  stop after COUNT events\n"
	"  -h, --help\n";

struct args {
	bool pretty, usec;
	long long limit; /* events, or -1: all */
};

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct fmt_err *err)
{
	struct args *a = args;
	char *end;

	switch (c) {
	case 'p':
		a->pretty = true;
		break;
	case 'u':
		a->usec = true;
		break;
	case 'n':
		a->limit = strtoll(arg, &end, 10);
		if (*end || a->limit < 0)
			return fmt_errf(err, NULL, "a count of events expected");
		break;
	default:
		return -1;
	}
	return 0;
}

/* The head of @ev's line: lost events before it, buffer, task, CPU and time. */
static void print_head(const struct fmt_info *info, struct tep_handle *tep,
		       const struct fmt_event *ev, bool usec)
{
	const char *bname = info->buffers[ev->buffer].name;

	if (ev->missed == FMT_MISSED_UNKNOWN)
		printf("CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	else if (ev->missed)
		printf("CPU:%d [%" PRIu64 " EVENTS DROPPED]\n", ev->cpu, ev->missed);
	printf("%s%s%16s-%-5d [%03d] ", vis(bname), *bname ? ": " : "",
	       vis(tep_data_comm_from_pid(tep, ev->pid)), ev->pid, ev->cpu);
	if (usec)
		printf("%5" PRIu64 ".%06" PRIu64 ": ", ev->ts / 1000000000,
		       (ev->ts % 1000000000) / 1000);
	else
		printf("%5" PRIu64 ".%09" PRIu64 ": ", ev->ts / 1000000000, ev->ts % 1000000000);
}

/* @ev's name and fields, as libtraceevent prints them, to the end of its line. */
static void print_fields(struct tep_handle *tep, const struct fmt_event *ev, bool pretty,
			 struct trace_seq *seq)
{
	struct tep_record rec;

	if (!ev->event) {
		printf("[UNKNOWN EVENT %u]\n", ev->type);
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = ev->ts;
	rec.cpu = ev->cpu;
	rec.data = (void *)ev->data;
	rec.size = ev->size;
	trace_seq_reset(seq);
	trace_seq_printf(seq, pretty ? "%s: " : "%s:", ev->event->name);
	tep_print_event(tep, seq, &rec, "%s", pretty ? TEP_PRINT_INFO : TEP_PRINT_INFO_RAW);
	trace_seq_terminate(seq);
	/* a marker's text ends in the newline the kernel adds to it (print:
	   buf): the end of the line, as trace-cmd has it */
	if (seq->len > 0 && seq->buffer[seq->len - 1] == '\n')
		seq->buffer[--seq->len] = 0;
	/* names and string fields come from the recording: one line per
	   event, a newline inside one is \n */
	vis_put(stdout, seq->buffer, 0);
	putchar('\n');
}

static int run(struct cmd_ctx *ctx, void *args)
{
	const struct args *a = args;
	const struct fmt_info *info = fmt_reader_info(ctx->reader);
	struct tep_handle *tep = fmt_reader_tep(ctx->reader);
	static char obuf[1 << 20];
	struct trace_seq seq;
	struct fmt_event ev;
	int n = 1;

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	trace_seq_init(&seq);
	printf("cpus=%d\n", info->cpus);
	for (long long count = 0; a->limit < 0 || count < a->limit; count++) {
		n = fmt_reader_next(ctx->reader, &ev, &ctx->err);
		if (n <= 0)
			break;
		print_head(info, tep, &ev, a->usec);
		print_fields(tep, &ev, a->pretty, &seq);
	}
	trace_seq_destroy(&seq);
	return n < 0 ? -1 : 0;
}

static const struct option opts[] = {
	{"pretty", no_argument, NULL, 'p'},
	{"usec", no_argument, NULL, 'u'},
	{"limit", required_argument, NULL, 'n'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {false, false, -1};

const struct cmd cmd_dump = {
	.usage_head = usage_text, .opts = opts, .shortopts = "pun:h", .take = take, .run = run,
	.args = &args, .nargs = 1,
};
