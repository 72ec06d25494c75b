/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: the ftrace text reader's line grammar (text-line.c),
 * and the spans and numbers every part of the reader (text.c, text-probe.c,
 * text-block.c, text-raw.c) reads its fields with.
 *
 * Three families of lines are understood:
 *
 *  - the function_graph tracer's own output (`cat trace`, `trace_pipe`), with
 *    any of its optional columns: absolute time (funcgraph-abstime), CPU,
 *    task (funcgraph-proc), the latency flags (latency-format), overhead mark
 *    and duration, then "|" and the indented call, "}" or a comment;
 *  - `trace-cmd report` lines: "COMM-PID [CPU] TIME: EVENT: FIELDS", with -l
 *    ("COMM-PID CPUflags TIME: ...") and -t (ns times), maybe after the
 *    name of the instance ("NAME: "); the FIELDS of funcgraph_entry and
 *    funcgraph_exit are the graph columns above; the kernel's own (`cat
 *    trace` of any tracer but function_graph) are alike, with the latency
 *    flags after the CPU;
 *  - what follows the time in the kernel's lines where no "EVENT:" is: the
 *    function tracer's "func+0x0/0x80 <-parent+0x1c/0x40", a stack trace's
 *    "<stack trace>" (its frames on the lines after it: " => func+0x5/0x10"),
 *    a system call's "sys_X(a: 0x1, b: 2)" (6.1: "a: 1f", bare hex) or
 *    "sys_X -> 0x3".
 *
 * trace-cmd report -R prints an event's raw fields ("prev_pid=12"), and
 * function_graph's "func=f depth=1" and "func=f depth=1 overrun=0
 * calltime=HEX rettime=HEX" (3.3 on: "func=f (0xADDR)" and the flags byte
 * after the CPU, "[001]-0x2d"). The task may be followed by its thread
 * group, "sh-131 (    131) [000]" (record-tgid). The header's
 * "entries-in-buffer/entries-written: N/M" says M - N events were lost.
 *
 * The options of current kernels add to a call's line, in either family:
 * its arguments between the parentheses (funcgraph-args), where it returns
 * to ("<-caller+0x1c/0x80", funcgraph-retaddr) and its return value
 * ("ret=-22", "ret=0x0"; funcgraph-retval), in comments after "{", ";" or
 * "}" (the kernel) or in trace-cmd's " /+ <-caller +/" and " (ret=...)".
 */
#ifndef DARC_TEXT_LINE_H
#define DARC_TEXT_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum tline_kind {
	TL_BLANK,	/* empty line */
	TL_HEADER,	/* "# ..." and trace-cmd's "cpus=N", "version = N" */
	TL_SEP,		/* " -----...": around a context-switch marker */
	TL_SWITCH,	/* " 1)  comm-1 => comm-2": the task on a CPU changed */
	TL_LOST,	/* "CPU:1 [LOST 12 EVENTS]", trace-cmd's "CPU:1 [12 EVENTS DROPPED]" */
	TL_ANNOT,	/* "##### CPU 1 buffer started ####", "CPU 1 is empty" */
	TL_IRQ_MARK,	/* "==========>" or "<==========" (irq entered / left) */
	TL_ENTRY,	/* "func() {" */
	TL_LEAF,	/* "func();" with its duration */
	TL_EXIT,	/* "}" with the duration, maybe "} /+ func +/" */
	TL_COMMENT,	/* "/+ text +/": trace_printk, or "/+ event: fields +/" */
	TL_EVENT,	/* trace-cmd report: any other event line */
	TL_FUNC,	/* the function tracer: "func+0x0/0x80 <-parent+0x1c/0x40" */
	TL_FRAME,	/* " => frame" of a stack trace, after its event's line */
};

/* A span of the line (not NUL-terminated). */
struct text_span {
	const char *p;
	int n;
};

/* A cursor over part of a line. */
struct text_cursor {
	const char *p, *end;
};

/* Consume @s if the text at @c starts with it. */
static inline bool tline_eat(struct text_cursor *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

/* One parsed line; the spans point into the line. */
struct tline {
	enum tline_kind kind;
	int cpu;	    /* -1 when the line does not say */
	int pid;	    /* -1 when the line does not say */
	struct text_span comm;  /* of pid, maybe truncated (funcgraph-proc: 7 chars) */
	bool has_ts;
	uint64_t ts;	    /* ns */
	int ts_prec;	    /* ns the printed time is precise to */
	bool has_lat;	    /* latency flags printed */
	uint8_t flags;	    /* FMT_FLAG_* from the latency flags */
	uint8_t preempt;    /* preempt count from the latency flags */
	bool has_dur;
	uint64_t dur;	    /* ns */
	int dur_prec;	    /* ns the printed duration is precise to */
	int depth;	    /* graph lines: the call depth (from the indent) */
	struct text_span name;  /* function (entry, leaf, tail of exit) or event name */
	struct text_span mod;   /* "[ext4]" after a function name, without brackets */
	struct text_span text;  /* comment text, or an event's fields */
	bool irq_in;	    /* TL_IRQ_MARK: "==========>" (else "<==========") */
	struct text_span args;  /* entry or leaf: between its parentheses (funcgraph-args) */
	struct text_span ret_to; /* entry or leaf: the function it returns to, or empty */
	uint64_t ret_off;   /* and the offset in it, 0 where not printed */
	bool has_ret;	    /* leaf or exit: the return value is printed */
	uint64_t ret;	    /* it, as the 64-bit register ("-22" is 2^64 - 22) */
	int prev_pid, next_pid; /* TL_SWITCH */
	struct text_span prev_comm, next_comm;
	uint64_t lost;	    /* TL_LOST; TL_HEADER "# entries-in-buffer/entries-written:
			       N/M": the M - N entries overwritten */
	bool lost_unknown;  /* TL_LOST "CPU:1 [EVENTS DROPPED]": how many is not known */
	uint64_t off;	    /* TL_FUNC: the offset in name, 0 where not printed */
	bool has_addr;	    /* TL_FRAME: an address is printed ("0xffff..." alone, or
			       "name (ffff...)" of trace-cmd) */
	uint64_t addr;
	int sys;	    /* TL_EVENT: 1 "sys_X(args)", 2 "sys_X -> ret" (name is X) */
	bool has_calltime;  /* TL_EXIT of trace-cmd report -R: the exit's own times */
	uint64_t calltime, rettime; /* (ns, the trace clock's) */
};

/*
 * Parse line @p (@n bytes, no newline) into @t. Returns 0, or -1 with @why
 * set to a static description of what is wrong.
 */
int tline_parse(const char *p, int n, struct tline *t, const char **why);

/* The common fields of every format the reader registers. */
#define TF_COMMON_TEXT                                                                     \
	"format:\n"                                                                        \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"             \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"             \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"     \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/*
 * A call's arguments as funcgraph-args prints them: "fd=3, buf=0x7ffd1000,
 * n=0x10", with "?0x.." for a type the kernel does not know, "(STRUCT)[0x1:
 * 0x2]" for one passed in several registers and "..." past the last
 * register; trace-cmd without BTF prints bare hex values without names.
 */
#define TARGS_MAX 8  /* the registers a kernel saves at most (FTRACE_REGS_MAX_ARGS: arm64's) */
#define TARGS_X86 6  /* x86's: what an entry has room for at least */
struct targs {
	int n;			/* arguments */
	int nslots;		/* registers they fill, in order */
	uint64_t v[TARGS_MAX];	/* the registers' values */
	struct {
		struct text_span name; /* empty where not printed */
		char kind;	   /* 'd' signed decimal, 'x' hex, 'w' several registers */
		int slots;
	} a[TARGS_MAX];
};

/* Parse @s (what is between the parentheses) into @a. 0, or -1 if it is not that. */
int tline_args_parse(struct text_span s, struct targs *a);

/* Hex digits (at most 16, no "0x") or a decimal (maybe negative) exactly filling [s, e). */
bool tline_hex(const char *s, const char *e, uint64_t *v);
bool tline_dec(const char *s, const char *e, int64_t *v);

/* "sym+0x1c/0x80" or "sym" (the kernel's %pS, %ps) in [s, e): the symbol, the offset in it. */
bool tline_sym_off(const char *s, const char *e, struct text_span *name, uint64_t *off);

/* A number ("123", "-4"); false when @s is not exactly one. */
bool tline_span_int(struct text_span s, long long *v);

/* The value of "key=value" in @fields (up to the next space), or an empty span. */
struct text_span tline_field(struct text_span fields, const char *key);

#endif
