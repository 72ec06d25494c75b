/* SPDX-License-Identifier: MIT */
/*
 * tracing-data.c: trace-cmd's metadata (header pages, event formats,
 * kallsyms, printk formats, cmdlines), as trace.dat v6 and perf.data's
 * HEADER_TRACING_DATA hold them together and trace.dat v7 in sections.
 */
#ifndef DARC_TRACING_DATA_H
#define DARC_TRACING_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "err-msg.h"

struct fmt_reader;

/*
 * Parse the metadata trace.dat v6 and perf.data's HEADER_TRACING_DATA share:
 * header_page/header_event, ftrace and event formats, kallsyms, printk
 * formats and cmdlines. 0 or -1.
 */
int tracing_data_parse(struct fmt_reader *r, struct rd *d, struct err_msg *err);

/* Its parts, which trace.dat v7 keeps in sections of their own. 0 or -1. */
int tracing_data_parse_header_info(struct fmt_reader *r, struct rd *d, struct err_msg *err);
int tracing_data_parse_ftrace_formats(struct fmt_reader *r, struct rd *d, struct err_msg *err);
int tracing_data_parse_event_formats(struct fmt_reader *r, struct rd *d, struct err_msg *err);
int tracing_data_parse_kallsyms(struct fmt_reader *r, struct rd *d, struct err_msg *err);
int tracing_data_parse_printk(struct fmt_reader *r, struct rd *d, struct err_msg *err);
int tracing_data_parse_cmdlines(struct fmt_reader *r, struct rd *d, struct err_msg *err);

/*
 * Parse the kallsyms text @p (@n bytes) into r->ksyms_tab (libtraceevent's
 * resolver) and r->kmods. @p must live as long as @r; it is freed with it
 * when @owned. 0 or -1.
 */
int tracing_data_load_kallsyms_text(struct fmt_reader *r, const uint8_t *p, uint64_t n, bool owned,
			   struct err_msg *err);

#endif
