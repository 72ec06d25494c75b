/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/: the ftrace text reader's probe and system call events
 * (text-probe.c): their printed fields, formats and records.
 */
#ifndef DARC_TEXT_PROBE_H
#define DARC_TEXT_PROBE_H

#include "text-line.h"

/* A kprobe's or kretprobe's printed fields (text-probe.c); spans point into the line. */
#define TPROBE_MAX_ARGS 16
enum { TPROBE_HEX, TPROBE_DEC, TPROBE_STR };
struct tprobe {
	bool ret;		/* "(FUNC <- RET)": a return probe */
	bool eprobe;		/* "(SYSTEM.EVENT)": an event probe, no address */
	uint64_t ip, ret_ip;	/* the probed address (or function), its caller */
	struct text_span ip_sym, ret_sym; /* the kernel's "(vfs_read+0x0/0x2a0 <- f+0x55/0xa0)": the
				   functions, at offsets ip and ret_ip; empty where printed
				   as addresses */
	int nargs;
	struct text_span name[TPROBE_MAX_ARGS];
	char kind[TPROBE_MAX_ARGS]; /* TPROBE_*: "0x1f", "-3", "\"str\"" */
	uint64_t num[TPROBE_MAX_ARGS];
	struct text_span str[TPROBE_MAX_ARGS];
};

/*
 * Parse "(ADDR) a=0x1 b=2" or "(FUNC <- RET) ret=0x0" (trace-cmd), the kernel's
 * "(vfs_read+0x0/0x2a0) a=0x1" and "(vfs_read <- ksys_read+0x6c/0xf0) ret=0x0"
 * (kprobes, fprobes), an eprobe's "(syscalls.sys_enter_openat) dfd=0x1", or -R's
 * "__probe_ip=ADDR a=0x1" and "__probe_func=ADDR __probe_ret_ip=ADDR ret=0x0".
 * 0, or -1 if it is not one.
 */
int tprobe_parse(struct text_span fields, struct tprobe *a);

/*
 * The format text (malloc'd, @len bytes) of probe event @name with id @id,
 * its fields as in @a (the kernel's layout: __probe_ip, or __probe_func and
 * __probe_ret_ip, then the args). NULL when out of memory.
 */
char *tprobe_format(const char *name, int id, const struct tprobe *a, int *len);

/* Bytes of the record of @a in the format made from @layout; -1 if @a does not fit it. */
int tprobe_size(const struct tprobe *layout, const struct tprobe *a);

/* Write @a's fields (after the common ones) into @rec, zeroed and tprobe_size() long. */
void tprobe_fill(uint8_t *rec, const struct tprobe *layout, const struct tprobe *a,
		 uint64_t ip, uint64_t ret_ip);

/*
 * A system call event of the syscalls system (text-probe.c): the kernel's
 * "sys_X(a: 0x1, b: 0x2)" and "sys_X -> 0x3", trace-cmd's "a: 0x1, b: 0x2"
 * and "0x3", and -R's "__syscall_nr=257 a=0x1 b=0x2" and "__syscall_nr=257
 * ret=0x3". Spans point into the line.
 */
#define TSYS_MAX_ARGS 6
struct tsys {
	bool exit;
	bool has_nr;
	int nr;
	int nargs;
	struct text_span name[TSYS_MAX_ARGS];
	uint64_t v[TSYS_MAX_ARGS]; /* an exit's return value is v[0] */
};

/* Parse @f (an entry's or, with @exit, an exit's fields) into @a. 0, or -1. */
int tprobe_sys_parse(struct text_span f, bool exit, struct tsys *a);

/*
 * The format text (malloc'd, @len bytes) of sys_enter_@call or
 * sys_exit_@call, id @id, the arguments named as in @a, as the kernel has
 * it: __syscall_nr, then each argument (or ret) as an unsigned long (long).
 */
char *tprobe_sys_format(struct text_span call, int id, const struct tsys *a, int *len);

/* The record of @a, and its size: 16 + 8 per argument. */
int tprobe_sys_size(const struct tsys *a);
void tprobe_sys_fill(uint8_t *rec, const struct tsys *a);

#endif
