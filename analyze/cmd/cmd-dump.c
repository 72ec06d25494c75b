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
#include "dump-like.h"
#include "fmt.h"
#include "reader.h"
#include "vis.h"

static const char usage_text[] =
	"usage: darc dump [--pretty] [--usec] [--like VERSION] [-n COUNT] FILE\n\n"
	"Print every event of a recording on one line, merged across CPUs and\n"
	"trace buffers in time order:\n\n"
	"  [BUFFER:] COMM-PID [CPU] SECONDS: EVENT: FIELD=VALUE ...\n\n"
	"Lost events are shown where the ring buffer marked them, as\n"
	"'CPU:N [COUNT EVENTS DROPPED]'. Timestamps have nanoseconds, after the\n"
	"conversions the file's options ask for (TSC2NSEC, TIME_SHIFT, DATE,\n"
	"OFFSET: darc info names them); the counts of a clock trace-cmd takes for\n"
	"no time (x86-tsc without TSC2NSEC, counter, uptime, boot) are printed\n"
	"whole, as trace-cmd report prints them. An event's last newline (a\n"
	"trace_marker text's) ends its line; control characters inside are\n"
	"escaped (a newline as \\n), so each event is one line.\n\n"
	"By default the fields are those of trace-cmd 3.1's 'report -R' (with\n"
	"Debian 12's libtraceevent 1.7), one space between columns, whatever tool\n"
	"made the file: the same text for every file, for scripts. --like VERSION\n"
	"prints each line exactly as that trace-cmd's 'report -R -t' does, its\n"
	"column padding included (control characters escaped as above):\n"
	"  3.1   3.0 to 3.2 (Debian 12's 3.1.6): as the default, padded\n"
	"  3.3   3.3 and 3.4 (Debian 13's 3.3.1, sid's 3.4, with libtraceevent\n"
	"        1.8.4 on): the event's flags after the CPU, '[001]-0x2d', and a\n"
	"        function field's address after its name, 'func=vfs_read (0xff...)'\n"
	"  3.4   the same as 3.3\n\n"
	"  --pretty  render each event with its print format instead of raw fields\n"
	"  --usec    print timestamps with microseconds (as trace-cmd report does)\n"
	"  --like VERSION  print as trace-cmd VERSION's report -R -t (3.1, 3.3, 3.4)\n"
	"  -n, --limit COUNT  stop after COUNT events\n"
	"  -h, --help\n";

struct args {
	bool pretty, usec;
	int like;	 /* enum dump_form */
	long long limit; /* events, or -1: all */
};

static int take(struct cmd_ctx *ctx, void *args, int c, const char *arg, struct err_msg *err)
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
	case 'L':
		a->like = dump_like_parse(arg);
		if (a->like < 0)
			return err_setf(err, NULL, "no known form of that version's report "
					"(3.1, 3.3 and 3.4 are known)");
		break;
	case 'n':
		a->limit = strtoll(arg, &end, 10);
		if (*end || a->limit < 0)
			return err_setf(err, NULL, "a count of events expected");
		break;
	default:
		return -1;
	}
	return 0;
}

/* --like and --pretty: trace-cmd's lines are its raw fields'. */
static int check(struct cmd_ctx *ctx, void *args)
{
	const struct args *a = args;

	if (a->like != DUMP_DARC && (a->pretty || a->usec)) {
		err_setf(&ctx->err, NULL, "--like prints report -R -t's lines: not with --pretty "
			 "or --usec");
		return OPTION_BAD;
	}
	return OPTION_OK;
}

/*
 * The width trace-cmd report gives a buffer's name when the file has
 * instances: the longest name's, the top buffer's empty name included.
 */
static int buffer_name_width(const struct fmt_info *info)
{
	size_t w = 0;

	for (int i = 0; i < info->nbuffers; i++)
		if (strlen(info->buffers[i].name) > w)
			w = strlen(info->buffers[i].name);
	return (int)w;
}

/* The head of @ev's line: lost events before it, buffer, task, CPU and time. */
static void print_head(const struct fmt_info *info, struct tep_handle *tep,
		       const struct fmt_event *ev, const struct args *a)
{
	const char *bname = info->buffers[ev->buffer].name;
	char t[64];

	if (ev->missed == FMT_MISSED_UNKNOWN)
		printf("CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	else if (ev->missed)
		printf("CPU:%d [%" PRIu64 " EVENTS DROPPED]\n", ev->cpu, ev->missed);
	if (info->nbuffers > 1) /* trace-cmd pads every name to the longest */
		printf("%*s%s", buffer_name_width(info), vis(bname), *bname ? ": " : "  ");
	printf("%16s-%-5d [%03d]", vis(tep_data_comm_from_pid(tep, ev->pid)), ev->pid,
	       ev->cpu);
	if (a->like != DUMP_DARC) {
		if (a->like == DUMP_33)
			printf("-0x%x", ev->flags);
		dump_like_time(info, ev, t, sizeof(t));
		fputs(t, stdout);
	} else if (!info->ts_report_secs) { /* a count, whole, as trace-cmd prints it */
		printf(" %12" PRIu64 ": ", ev->ts);
	} else if (a->usec) { /* rounded, as trace-cmd's " %6.1000d" */
		uint64_t us = (ev->ts + 500) / 1000;
		printf(" %5" PRIu64 ".%06" PRIu64 ": ", us / 1000000, us % 1000000);
	} else {
		printf(" %5" PRIu64 ".%09" PRIu64 ": ", ev->ts / 1000000000, ev->ts % 1000000000);
	}
}

/* Print @seq and end the line. */
static void end_line(struct trace_seq *seq)
{
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

/* @ev's name and fields, as libtraceevent prints them, to the end of its line. */
static void print_fields(struct tep_handle *tep, const struct fmt_event *ev, const struct args *a,
			 struct trace_seq *seq)
{
	bool pretty = a->pretty;
	struct tep_record rec;

	trace_seq_reset(seq);
	if (a->like != DUMP_DARC) {
		dump_like_fields(tep, ev, a->like, seq);
		end_line(seq);
		return;
	}
	if (!ev->event) {
		printf("[UNKNOWN EVENT %u]\n", ev->type);
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = ev->ts;
	rec.cpu = ev->cpu;
	rec.data = (void *)ev->data;
	rec.size = ev->size;
	trace_seq_printf(seq, pretty ? "%s: " : "%s:", ev->event->name);
	tep_print_event(tep, seq, &rec, "%s", pretty ? TEP_PRINT_INFO : TEP_PRINT_INFO_RAW);
	end_line(seq);
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
		print_head(info, tep, &ev, a);
		print_fields(tep, &ev, a, &seq);
	}
	trace_seq_destroy(&seq);
	return n < 0 ? -1 : 0;
}

static const struct option opts[] = {
	{"pretty", no_argument, NULL, 'p'},
	{"usec", no_argument, NULL, 'u'},
	{"like", required_argument, NULL, 'L'},
	{"limit", required_argument, NULL, 'n'},
	{"help", no_argument, NULL, 'h'},
	{0},
};
static struct args args = {false, false, DUMP_DARC, -1};

const struct cmd cmd_dump = {
	.usage_head = usage_text, .opts = opts, .shortopts = "pun:h", .take = take, .check = check,
	.run = run,
	.args = &args, .nargs = 1,
};
