// SPDX-License-Identifier: MIT
/*
 * fgopt-dat DIR: writes trace.dat files of one traced openat() under
 * function_graph with the options of current kernels, in the layouts
 * kernel/trace/trace_entries.h gives their events, and beside each the
 * values darc analyze must store (NAME.want, for golden/fgopt.sh):
 *
 *   fgopt-retval.dat   6.5-6.12: funcgraph_exit with retval (funcgraph-retval),
 *                      and the system call from raw_syscalls
 *   fgopt-retaddr.dat  6.13-6.14: fgraph_retaddr_entry, packed (funcgraph-retaddr)
 *   fgopt-args.dat     6.15 on: funcgraph_entry with the argument registers
 *                      (funcgraph-args), funcgraph_exit with retval
 *   fgopt-all.dat      the three options at once, in the latest layout
 *
 * golden/text/fgopt-kernel.txt is what the kernel prints (`cat trace`) of
 * fgopt-all.dat's events.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "text-formats.h"

#define T0 1000000000ULL /* the first event, ns */
#define PID 42		 /* tdat's cmdlines name it "worker" */

/* A 6.13 kernel's fgraph_retaddr_entry: packed, an int depth, no args. */
static const char retaddr_6_13[] = "name: fgraph_retaddr_entry\nID: 12\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long retaddr;\toffset:20;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%d) <- %ps\", (void *)REC->func, REC->depth, "
	"(void *)REC->retaddr\n";

/* raw_syscalls of x86-64 */
static const char sys_enter_fmt[] = "name: sys_enter\nID: 21\n" TF_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	"REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";
static const char sys_exit_fmt[] = "name: sys_exit\nID: 20\n" TF_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 T do_syscall_64\n"
			       "ffffffff81002000 T __x64_sys_openat\n"
			       "ffffffff81003000 T do_sys_openat2\n"
			       "ffffffff81004000 T getname_flags\n"
			       "ffffffff81004200 T getname\n"
			       "ffffffff81005000 T kmem_cache_alloc_noprof\n"
			       "ffffffff81006000 T get_unused_fd_flags\n"
			       "ffffffff81007000 T do_filp_open\n"
			       "ffffffff81008000 T path_openat\n"
			       "ffffffff81009000 T may_open\n"
			       "ffffffff8100a000 T _etext\n";

/* One function_graph event: an entry ('E') or an exit ('X'), at T0 + t. */
struct fev {
	char kind;
	uint64_t t;
	uint64_t func;
	int depth;
	uint64_t ret_to; /* entries: the return address */
	uint64_t args[TARGS_X86];
	uint64_t retval; /* exits */
};

#define F(off) (0xffffffff81000000ULL + (off))
/* the openat() of golden/text/fgopt-kernel.txt: it fails with -EACCES */
static const struct fev evs[] = {
    {'E', 1000, F(0x2000), 0, F(0x1082), {0xffffc90000637f58}, 0},
    {'E', 1500, F(0x3000), 1, F(0x2055), {0xffffffffffffff9c, 0x7ffd5c3e1f20, 0xffffc90000637e98}, 0},
    {'E', 2000, F(0x4200), 2, F(0x305d), {0x7ffd5c3e1f20}, 0},
    {'E', 2300, F(0x5000), 3, F(0x4034), {0xffff888100051e00, 0xcc0}, 0},
    {'X', 2712, F(0x5000), 3, 0, {0}, 0xffff888104a2c000},
    {'X', 3350, F(0x4200), 2, 0, {0}, 0xffff888104a2c000},
    {'E', 3400, F(0x6000), 2, F(0x309c), {0x80000}, 0},
    {'X', 3633, F(0x6000), 2, 0, {0}, 3},
    {'E', 3700, F(0x7000), 2, F(0x30b9), {0xffffffffffffff9c, 0xffff888104a2c000, 0xffffc90000637e30}, 0},
    {'E', 3800, F(0x8000), 3, F(0x70a8), {0xffffc90000637d00, 0xffffc90000637e30, 0x41}, 0},
    {'E', 3900, F(0x9000), 4, F(0x85e2), {0xffffffff82a5b6e0, 0xffffc90000637d00, 36, 32768}, 0},
    {'X', 4150, F(0x9000), 4, 0, {0}, 0xfffffff3}, /* an int -13: the upper half zero */
    {'X', 5000, F(0x8000), 3, 0, {0}, 0xfffffffffffffff3},
    {'X', 5800, F(0x7000), 2, 0, {0}, 0xfffffffffffffff3},
    {'X', 6500, F(0x3000), 1, 0, {0}, 0xfffffffffffffff3},
    {'X', 7000, F(0x2000), 0, 0, {0}, 0xfffffffffffffff3},
};
#define NEVS (sizeof(evs) / sizeof(evs[0]))

enum { RETVAL = 1, ARGS = 2, RETADDR = 4, PACKED = 8, SYSCALLS = 16 };

static void common(uint8_t *rec, int type)
{
	uint16_t t16 = (uint16_t)type;
	int32_t pid = PID;

	memcpy(rec, &t16, 2);
	memcpy(rec + 4, &pid, 4);
}

static void put64(uint8_t *rec, int off, uint64_t v)
{
	memcpy(rec + off, &v, 8);
}

/* The entry record of @e under options @o; its size. */
static size_t entry_rec(const struct fev *e, int o, uint8_t *rec)
{
	int32_t depth = e->depth;
	size_t n;

	if (o & RETADDR && o & PACKED) { /* 6.13: func, int depth, retaddr */
		common(rec, TF_ID_FG_RETADDR);
		put64(rec, 8, e->func);
		memcpy(rec + 16, &depth, 4);
		put64(rec, 20, e->ret_to);
		return 28;
	}
	if (!(o & (ARGS | RETADDR))) { /* up to 6.14: func, int depth */
		common(rec, TF_ID_FG_ENTRY);
		put64(rec, 8, e->func);
		memcpy(rec + 16, &depth, 4);
		return 20;
	}
	/* the latest: func, unsigned long depth, [retaddr,] args[] */
	common(rec, o & RETADDR ? TF_ID_FG_RETADDR : TF_ID_FG_ENTRY);
	put64(rec, 8, e->func);
	put64(rec, 16, (uint64_t)e->depth);
	n = 24;
	if (o & RETADDR)
		put64(rec, n, e->ret_to), n += 8;
	for (int i = 0; o & ARGS && i < TARGS_X86; i++)
		put64(rec, (int)n, e->args[i]), n += 8;
	return n;
}

/* The exit record of @e (entered at @calltime); its size. */
static size_t exit_rec(const struct fev *e, int o, uint64_t calltime, uint8_t *rec)
{
	int at = o & RETVAL ? 8 : 0;
	int32_t depth = e->depth;

	common(rec, TF_ID_FG_EXIT);
	put64(rec, 8, e->func);
	if (o & RETVAL)
		put64(rec, 16, e->retval);
	memcpy(rec + 16 + at, &depth, 4);
	put64(rec, 24 + at, T0 + calltime);
	put64(rec, 32 + at, T0 + e->t);
	return 40 + at;
}

static void sys_rec(struct tdat *t, uint64_t ts, bool enter, int64_t v)
{
	uint8_t rec[64] = {0};
	int64_t nr = 257; /* openat */

	common(rec, enter ? 21 : 20);
	memcpy(rec + 8, &nr, 8);
	if (!enter)
		memcpy(rec + 16, &v, 8);
	tdat_event(t, 0, ts, rec, enter ? 64 : 24);
}

/* The kallsyms line of the symbol @addr is in (its name after 19 bytes), and the offset. */
static const char *sym_at(uint64_t addr, uint64_t *off)
{
	const char *c = kallsyms;
	uint64_t best = 0;

	for (const char *l = kallsyms; *l; l = strchr(l, '\n') + 1) {
		uint64_t a = strtoull(l, NULL, 16);
		if (a <= addr && a >= best)
			best = a, c = l;
	}
	*off = addr - best;
	return c + 19;
}

/* What darc must store of the calls, in order of entry: func|retval|args|retaddr. */
static int write_want(const char *path, int o)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (o & SYSCALLS)
		fprintf(f, "openat|-13||\n");
	for (size_t i = 0; i < NEVS; i++) {
		const struct fev *e = &evs[i], *x = NULL;
		const char *name;
		uint64_t off;

		if (e->kind != 'E')
			continue;
		for (size_t k = i + 1; k < NEVS && !x; k++)
			if (evs[k].kind == 'X' && evs[k].func == e->func && evs[k].depth == e->depth)
				x = &evs[k];
		name = sym_at(e->func, &off);
		fprintf(f, "%.*s|", (int)strcspn(name, "\n"), name);
		if (o & RETVAL) /* an error code as the kernel prints it, else the register */
			fprintf(f, "%" PRId64, x->retval == 0xfffffff3 ? -13 : (int64_t)x->retval);
		fputc('|', f);
		for (int a = 0; o & ARGS && a < TARGS_X86; a++)
			fprintf(f, "%s\"arg%d\":\"0x%" PRIx64 "\"%s", a ? "," : "{", a + 1, e->args[a],
				a == TARGS_X86 - 1 ? "}" : "");
		fputc('|', f);
		if (o & RETADDR) {
			name = sym_at(e->ret_to, &off);
			fprintf(f, "%.*s+0x%" PRIx64, (int)strcspn(name, "\n"), name, off);
		}
		fputc('\n', f);
	}
	return fclose(f);
}

static int write_one(const char *dir, const char *name, int o)
{
	static const char *ftrace[4];
	static const char *const sys[] = {sys_enter_fmt, sys_exit_fmt};
	static struct tdat t;
	uint64_t calltime[8];
	char path[512];
	int n = 0;

	tdat_init(&t, 1);
	t.kallsyms = kallsyms;
	ftrace[n++] = o & RETVAL ? tf_fg_exit_retval : tf_fg_exit;
	ftrace[n++] = o & ARGS ? tf_fg_entry_args : tf_fg_entry;
	if (o & RETADDR)
		ftrace[n++] = o & PACKED ? retaddr_6_13 : tf_fg_retaddr;
	ftrace[n] = NULL;
	t.ftrace_formats = ftrace;
	for (int i = 0; o & SYSCALLS && i < 2; i++)
		t.formats[t.nformats++] = (typeof(t.formats[0])){"raw_syscalls", sys[i]};
	tdat_page(&t, 0, T0, 0);
	if (o & SYSCALLS)
		sys_rec(&t, T0, true, 0);
	for (size_t i = 0; i < NEVS; i++) {
		uint8_t rec[112] = {0};
		const struct fev *e = &evs[i];
		size_t len;

		if (e->kind == 'E') {
			calltime[e->depth] = e->t;
			len = entry_rec(e, o, rec);
		} else {
			len = exit_rec(e, o, calltime[e->depth], rec);
		}
		tdat_event(&t, 0, T0 + e->t, rec, len);
	}
	if (o & SYSCALLS)
		sys_rec(&t, T0 + 7200, false, -13);
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	if (tdat_write(&t, path) < 0) {
		fprintf(stderr, "fgopt-dat: cannot write '%s'\n", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.want", dir, name);
	return write_want(path, o);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fgopt-dat DIR\n");
		return 2;
	}
	if (write_one(argv[1], "fgopt-retval", RETVAL | SYSCALLS) ||
	    write_one(argv[1], "fgopt-retaddr", RETADDR | PACKED) ||
	    write_one(argv[1], "fgopt-args", ARGS | RETVAL) ||
	    write_one(argv[1], "fgopt-all", ARGS | RETVAL | RETADDR))
		return 1;
	return 0;
}
