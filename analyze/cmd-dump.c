// SPDX-License-Identifier: MIT
/*
 * darc dump: every event on one line, in time order, with the raw field
 * values libtraceevent decodes (the same values 'trace-cmd report -R'
 * prints), or with the events' own print formats (--pretty).
 */
#include <getopt.h>
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

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"pretty", no_argument, NULL, 'p'},
		{"usec", no_argument, NULL, 'u'},
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	bool pretty = false, usec = false;
	long long limit = -1;
	char *end;
	int c, rc = EXIT_INPUT;
	struct fmt_err err;
	struct fmt_reader *r;
	struct fmt_event ev;
	struct tep_handle *tep;
	const struct fmt_info *info;
	struct trace_seq seq;
	static char obuf[1 << 20];

	while ((c = getopt_long(argc, argv, "pun:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pretty = true;
			break;
		case 'u':
			usec = true;
			break;
		case 'n':
			limit = strtoll(optarg, &end, 10);
			if (*end || limit < 0) {
				darc_error("bad --limit '%s': a count of events expected", optarg);
				return EXIT_INPUT;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return EXIT_INPUT;
	}
	r = fmt_reader_open(argv[optind], 0, &err);
	if (!r) {
		darc_error("%s", err.msg);
		return EXIT_INPUT;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	tep = fmt_reader_tep(r);
	info = fmt_reader_info(r);
	trace_seq_init(&seq);
	printf("cpus=%d\n", info->cpus);
	for (long long count = 0; limit < 0 || count < limit; count++) {
		int n = fmt_reader_next(r, &ev, &err);
		const char *bname;
		struct tep_record rec;

		if (n < 0) {
			darc_error("%s", err.msg);
			goto out;
		}
		if (!n)
			break;
		if (ev.missed == FMT_MISSED_UNKNOWN)
			printf("CPU:%d [EVENTS DROPPED]\n", ev.cpu);
		else if (ev.missed)
			printf("CPU:%d [%" PRIu64 " EVENTS DROPPED]\n", ev.cpu, ev.missed);
		bname = info->buffers[ev.buffer].name;
		printf("%s%s%16s-%-5d [%03d] ", vis(bname), *bname ? ": " : "",
		       vis(tep_data_comm_from_pid(tep, ev.pid)), ev.pid, ev.cpu);
		if (usec)
			printf("%5" PRIu64 ".%06" PRIu64 ": ", ev.ts / 1000000000,
			       (ev.ts % 1000000000) / 1000);
		else
			printf("%5" PRIu64 ".%09" PRIu64 ": ", ev.ts / 1000000000,
			       ev.ts % 1000000000);
		if (!ev.event) {
			printf("[UNKNOWN EVENT %u]\n", ev.type);
			continue;
		}
		memset(&rec, 0, sizeof(rec));
		rec.ts = ev.ts;
		rec.cpu = ev.cpu;
		rec.data = (void *)ev.data;
		rec.size = ev.size;
		trace_seq_reset(&seq);
		trace_seq_printf(&seq, pretty ? "%s: " : "%s:", ev.event->name);
		tep_print_event(tep, &seq, &rec, "%s", pretty ? TEP_PRINT_INFO : TEP_PRINT_INFO_RAW);
		trace_seq_terminate(&seq);
		/* a marker's text ends in the newline the kernel adds to it (print:
		   buf): the end of the line, as trace-cmd has it */
		if (seq.len > 0 && seq.buffer[seq.len - 1] == '\n')
			seq.buffer[--seq.len] = 0;
		/* names and string fields come from the recording: one line per
		   event, a newline inside one is \n */
		vis_put(stdout, seq.buffer, 0);
		putchar('\n');
	}
	rc = EXIT_OK;
out:
	trace_seq_destroy(&seq);
	fmt_reader_close(r);
	return rc;
}
