/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat format (trace-cmd's file, versions 6 and 7): the option and
 * section ids its reader (tracedat.c, tdclock.c) and writer (writer.c) share.
 */
#ifndef DARC_TRACEDAT_IDS_H
#define DARC_TRACEDAT_IDS_H

#include <stdbool.h>
#include <stdint.h>

/* Option ids (trace-cmd's enum tracecmd_file_options) and v7 section ids. */
enum {
	FMT_OPT_DONE = 0,
	FMT_OPT_DATE = 1,
	FMT_OPT_CPUSTAT = 2,
	FMT_OPT_BUFFER = 3,
	FMT_OPT_TRACECLOCK = 4,
	FMT_OPT_UNAME = 5,
	FMT_OPT_HOOK = 6,
	FMT_OPT_OFFSET = 7,
	FMT_OPT_CPUCOUNT = 8,
	FMT_OPT_VERSION = 9,
	FMT_OPT_PROCMAPS = 10,
	FMT_OPT_TRACEID = 11,
	FMT_OPT_TIME_SHIFT = 12,
	FMT_OPT_GUEST = 13,
	FMT_OPT_TSC2NSEC = 14,
	FMT_OPT_STRINGS = 15,
	FMT_OPT_HEADER_INFO = 16,
	FMT_OPT_FTRACE_EVENTS = 17,
	FMT_OPT_EVENT_FORMATS = 18,
	FMT_OPT_KALLSYMS = 19,
	FMT_OPT_PRINTK = 20,
	FMT_OPT_CMDLINES = 21,
	FMT_OPT_BUFFER_TEXT = 22,
	/* darc's own: the bundle manifest (JSON), unknown to trace-cmd */
	FMT_OPT_DARC_MANIFEST = 0x4441,
};

enum {
	FMT_SEC_OPTIONS = 0,
	FMT_SEC_HEADER_INFO = FMT_OPT_HEADER_INFO,
	FMT_SEC_FTRACE_EVENTS = FMT_OPT_FTRACE_EVENTS,
	FMT_SEC_EVENT_FORMATS = FMT_OPT_EVENT_FORMATS,
	FMT_SEC_KALLSYMS = FMT_OPT_KALLSYMS,
	FMT_SEC_PRINTK = FMT_OPT_PRINTK,
	FMT_SEC_CMDLINES = FMT_OPT_CMDLINES,
	FMT_SEC_MAX = 32,
};

#define FMT_SEC_FL_COMPRESS 1

/* Does option @id give the offset of a v7 section (whose id is the option's)? */
static inline bool fmt_opt_is_section(uint16_t id)
{
	switch (id) {
	case FMT_OPT_HEADER_INFO:
	case FMT_OPT_FTRACE_EVENTS:
	case FMT_OPT_EVENT_FORMATS:
	case FMT_OPT_KALLSYMS:
	case FMT_OPT_PRINTK:
	case FMT_OPT_CMDLINES:
		return true;
	}
	return false;
}

#endif
