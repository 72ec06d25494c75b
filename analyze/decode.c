// SPDX-License-Identifier: MIT
#include "decode.h"
#include "events.h"
#include "grow.h"
#include "reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <traceevent/event-parse.h>

#include "syscalls-generic.h"
#include "syscalls-i386.h"
#include "syscalls-x86_64.h"
#include "jtext.h"

#define NFIELD 6

struct etype {
	int resolved;
	int kind; /* enum analysis_event_kind */
	int raw;  /* raw_syscalls */
	int trap; /* syscalls:*: the uretprobe or uprobe call */
	int user; /* uprobes: by group name, or once an event's address is a user one */
	const char *file; /* uprobes: the binary, if a darc manifest says */
	int64_t func_id; /* syscalls:*: the system call; probes without symbols: the event */
	const char *name; /* vectors: the vector's name; syscalls:*: the call's */
	struct tep_format_field *f[NFIELD];
	/* probes */
	int paired;	  /* entries: 1 a call's entry, 0 a point, -1 as its address says */
	char *event;	  /* "system:name" */
	struct tep_format_field **args; /* the fetch args */
	int nargs;
	bool args_unique; /* no two args share a name: probe_args_json() may write them */
	size_t json_max;  /* the longest JSON object of args it may write */
	/* function_graph events of the usual layout (8-byte func, calltime and
	   rettime, 4-byte depth, the file's byte order): their fields read in
	   place when the record holds them all (fg_fixed_size bytes); 0 otherwise */
	uint16_t fg_fixed_size;
};

struct decoder {
	struct fmt_reader *r;
	struct tep_handle *tep;
	struct funcs *fs;
	json_t *manifest; /* a darc bundle's, or NULL */
	enum syscall_abi abi;
	int swap;
	struct etype *types; /* [65536], zero pages until an id is seen */
	uint16_t *resolved;  /* the ids resolved, so that decode_free() touches no other */
	int nresolved, resolved_cap;
	/* functions by address: open addressing, one cache line a look-up */
	struct kaddr {
		uint64_t key;
		int64_t id;	  /* its func id, 0 for an empty slot */
		const char *name; /* its name (the func's) */
		int irq;	  /* the function is an interrupt entry point */
	} *addrs;
	int64_t naddr, addr_slots;
	struct sys_nr {	  /* by raw syscall number, 0..4096 (4096: all others) */
		int64_t id;   /* its func id (0 = not yet) */
		char *name;   /* its name as the recording's syscalls:* events say */
		bool guessed; /* named before its name was learnt (names_in_pass) */
	} *sys;
	int nsys;
	int learn_names;  /* it has raw_syscalls and syscalls:* formats: prescan */
	bool names_in_pass; /* ... or learn them in the pass (decode_needs_prescan()) */
	bool names_late;    /* a name learnt in the pass differs from the guess */
	int ksyms;	  /* kallsyms loaded */
	struct fg_off {
		int known;
		int fixed;   /* off is 0 (function_graph's clock is the events'), unless
				disproved */
		int64_t off; /* event clock - function_graph's clock */
		int64_t cand; /* an implausible gap, waiting for a second like it */
		int ncand;
		int sure;     /* off rests on more than one gap */
	} *off;		  /* per CPU */
	int noff;
	int same_clock;	  /* the events use function_graph's clock (local) */
	int conv_clock;	  /* ... converted (fmt_reader_clock_ts): calltime, rettime too */
	int64_t t_first;  /* the first event's time, DARC_NULL before it */
	struct err_msg err;
	/* probe pairs: the functions that return probes report (see decode_prescan) */
	int returns;	      /* return-probe formats in the recording */
	int returns_unlisted; /* of them, not in a darc manifest */
	uint64_t *ret_keys;   /* open addressing, 0 = empty */
	int64_t nret, ret_slots;
	char *args_json;      /* the last probe's (or entry's) args, handed out by decode() */
	char *pjson;	      /* ... or written here (probe_args_json()) */
	size_t pjson_cap;
	char retaddr[160];    /* the last entry's return address */
	char buf[128];
};

static const char *const softirq_names[] = {"HI",	"TIMER",    "NET_TX", "NET_RX",
					    "BLOCK",	"IRQ_POLL", "TASKLET", "SCHED",
					    "HRTIMER", "RCU"};

enum syscall_abi decode_syscall_abi(const char *uname, int long_size, bool big_endian)
{
	static const struct {
		const char *machine;
		enum syscall_abi abi;
	} abis[] = {
	    {"x86_64", ABI_X86_64}, {"i386", ABI_I386},	      {"i486", ABI_I386},
	    {"i586", ABI_I386},	    {"i686", ABI_I386},	      {"aarch64", ABI_GENERIC},
	    {"arm64", ABI_GENERIC}, {"riscv64", ABI_GENERIC}, {"loongarch64", ABI_GENERIC},
	};
	size_t end, start;

	if (!uname) /* most likely x86-64, unless the word size or byte order deny it */
		return long_size == 8 && !big_endian ? ABI_X86_64 : ABI_UNKNOWN;
	/* the machine is uname's last word */
	for (end = strlen(uname); end && strchr(" \t\n", uname[end - 1]); end--)
		;
	for (start = end; start && !strchr(" \t\n", uname[start - 1]); start--)
		;
	for (size_t i = 0; i < sizeof(abis) / sizeof(abis[0]); i++)
		if (end - start == strlen(abis[i].machine) &&
		    !memcmp(uname + start, abis[i].machine, end - start))
			return abis[i].abi;
	return ABI_UNKNOWN;
}

#define TABLE(t) {t, sizeof(t) / sizeof(t[0])}
static const struct {
	const char *const *names;
	size_t n;
} syscall_tables[] = {
    [ABI_X86_64] = TABLE(syscall_names_x86_64),
    [ABI_I386] = TABLE(syscall_names_i386),
    [ABI_GENERIC] = TABLE(syscall_names_generic),
};

const char *decode_syscall_name(enum syscall_abi abi, int64_t nr)
{
	if (abi != ABI_X86_64 && abi != ABI_I386 && abi != ABI_GENERIC)
		return NULL; /* ABI_UNKNOWN: no names */
	return nr >= 0 && (uint64_t)nr < syscall_tables[abi].n ? syscall_tables[abi].names[nr]
							       : NULL;
}

static int count_return(void *ctx, struct tep_event *ev);
static int has_syscalls(void *ctx, struct tep_event *ev);

struct decoder *decode_new(struct fmt_reader *r, struct funcs *fs, enum syscall_abi abi)
{
	struct decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->r = r;
	d->tep = fmt_reader_tep(r);
	d->fs = fs;
	d->abi = abi;
	d->t_first = DARC_NULL;
	d->same_clock = !fmt_reader_info(r)->clock || !strcmp(fmt_reader_info(r)->clock, "local");
	/* a guest's times shifted to the host's, an offset added: function_graph's
	   local clock is the events' only once converted alike */
	d->conv_clock = d->same_clock && fmt_reader_info(r)->ts_conv;
	if (fmt_reader_info(r)->manifest_json) /* unreadable: the binaries stay unknown */
		d->manifest = json_loads(fmt_reader_info(r)->manifest_json, 0, NULL);
	d->swap = fmt_reader_info(r)->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	d->types = calloc(65536, sizeof(*d->types));
	if (!d->types) {
		free(d);
		return NULL;
	}
	fmt_events_each_format(r, "__probe_func", count_return, d);
	if (fmt_events_find(r, "raw_syscalls", "sys_enter") ||
	    fmt_events_find(r, "raw_syscalls", "sys_exit"))
		d->learn_names = fmt_events_each_format(r, "__syscall_nr", has_syscalls, d);
	return d;
}

const json_t *decode_manifest(const struct decoder *d)
{
	return d->manifest;
}

void decode_free(struct decoder *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nresolved; i++) {
		free(d->types[d->resolved[i]].event);
		free(d->types[d->resolved[i]].args);
	}
	free(d->types);
	free(d->resolved);
	free(d->ret_keys);
	free(d->args_json);
	free(d->pjson);
	free(d->addrs);
	for (int i = 0; i < d->nsys; i++)
		free(d->sys[i].name);
	free(d->sys);
	free(d->off);
	json_decref(d->manifest);
	free(d);
}

/* Probe @sys:@name in the manifest of a darc bundle, or NULL. */
static json_t *manifest_probe(const json_t *manifest, const char *sys, const char *name)
{
	json_t *probes = json_object_get(manifest, "probes"), *p;
	size_t i;

	json_array_foreach(probes, i, p) {
		const char *s = json_string_value(json_object_get(p, "system"));
		const char *e = json_string_value(json_object_get(p, "event"));

		if (s && e && !strcmp(s, sys) && !strcmp(e, name))
			return p;
	}
	return NULL;
}

/* The binary of uprobe @sys:@name from the manifest of a darc bundle, or NULL. */
static const char *probe_file(const struct decoder *d, const char *sys, const char *name)
{
	json_t *p = manifest_probe(d->manifest, sys, name);

	return p ? json_string_value(json_object_get(p, "file")) : NULL;
}

/* Do @a and @b have the same @key (or neither has it)? */
static bool json_same(const json_t *a, const json_t *b, const char *key)
{
	json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return (!x && !y) || json_equal(x, y);
}

/* Does the manifest list a return probe on the function entry probe @p probes? */
static bool manifest_pair(const json_t *manifest, const json_t *p)
{
	const char *type = json_string_value(json_object_get(p, "type"));
	const char *want = type && !strcmp(type, "kprobe")   ? "kretprobe"
			   : type && !strcmp(type, "uprobe") ? "uretprobe"
							     : NULL;
	json_t *probes = json_object_get(manifest, "probes"), *q;
	size_t i;

	json_array_foreach(probes, i, q) {
		const char *t = json_string_value(json_object_get(q, "type"));
		if (want && t && !strcmp(t, want) && json_same(p, q, "where") &&
		    json_same(p, q, "file") && json_same(p, q, "offset"))
			return true;
	}
	return false;
}

/* fmt_events_each_format() callback: one more return-probe format. */
static int count_return(void *ctx, struct tep_event *ev)
{
	struct decoder *d = ctx;

	if (!tep_find_field(ev, "__probe_func"))
		return 0;
	d->returns++;
	d->returns_unlisted += !manifest_probe(d->manifest, ev->system, ev->name);
	return 0;
}

/* fmt_events_each_format() callback: stops at a syscalls:* format. */
static int has_syscalls(void *ctx, struct tep_event *ev)
{
	(void)ctx;
	return !strcmp(ev->system, "syscalls");
}

/* How an entry probe of @sys:@name pairs (struct etype.paired). */
static int entry_pairing(const struct decoder *d, const char *sys, const char *name)
{
	json_t *p = manifest_probe(d->manifest, sys, name);

	if (!d->returns)
		return 0;
	if (p && manifest_pair(d->manifest, p))
		return 1;
	return d->returns_unlisted ? -1 : 0;
}

/* Is @addr in the set of functions that return probes report? */
static bool ret_has(const struct decoder *d, uint64_t addr)
{
	if (!d->ret_slots)
		return false;
	for (uint64_t i = (addr * 0x9e3779b97f4a7c15ULL >> 20) & (d->ret_slots - 1);
	     d->ret_keys[i]; i = (i + 1) & (d->ret_slots - 1))
		if (d->ret_keys[i] == addr)
			return true;
	return false;
}

static int ret_add(struct decoder *d, uint64_t addr)
{
	if (!addr || ret_has(d, addr))
		return 0;
	if (d->nret * 2 >= d->ret_slots) {
		int64_t n = d->ret_slots ? d->ret_slots * 2 : 64;
		uint64_t *k = calloc(n, sizeof(*k)), *old = d->ret_keys;
		int64_t m = d->ret_slots;
		if (!k)
			return -1;
		d->ret_keys = k;
		d->ret_slots = n;
		d->nret = 0;
		for (int64_t j = 0; j < m; j++)
			if (old[j])
				ret_add(d, old[j]);
		free(old);
	}
	for (uint64_t i = (addr * 0x9e3779b97f4a7c15ULL >> 20) & (d->ret_slots - 1);;
	     i = (i + 1) & (d->ret_slots - 1))
		if (!d->ret_keys[i]) {
			d->ret_keys[i] = addr;
			d->nret++;
			return 0;
		}
}

bool decode_needs_prescan(struct decoder *d, bool in_pass)
{
	if (d->returns_unlisted > 0)
		return true; /* it learns the names too */
	d->names_in_pass = d->learn_names && in_pass;
	return d->learn_names && !in_pass;
}

bool decode_names_late(const struct decoder *d)
{
	return d->names_late;
}

/* A number field of the record, sign-extended when the field is signed. */
static inline int64_t num(const struct decoder *d, const struct tep_format_field *f,
			  const struct fmt_event *ev)
{
	const uint8_t *p;
	int sgn;

	if (!f || f->offset + f->size > (int)ev->size)
		return 0;
	p = (const uint8_t *)ev->data + f->offset;
	sgn = f->flags & TEP_FIELD_IS_SIGNED;
	switch (f->size) {
	case 1:
		return sgn ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		if (d->swap)
			v = __builtin_bswap16(v);
		return sgn ? (int64_t)(int16_t)v : (int64_t)v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		if (d->swap)
			v = __builtin_bswap32(v);
		return sgn ? (int64_t)(int32_t)v : (int64_t)v;
	}
	case 8: {
		uint64_t v;
		memcpy(&v, p, 8);
		if (d->swap)
			v = __builtin_bswap64(v);
		return (int64_t)v;
	}
	default:
		return 0;
	}
}

/* A string field (fixed array or __data_loc) copied into @buf, bounded. */
static const char *str(const struct decoder *d, const struct tep_format_field *f,
		       const struct fmt_event *ev, char *buf, size_t n)
{
	int off, len;

	if (!f)
		return NULL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc = (uint32_t)num(d, f, ev);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else {
		off = f->offset;
		len = f->size;
	}
	if (off < 0 || len < 0 || off + len > (int)ev->size)
		return NULL;
	if ((size_t)len >= n)
		len = n - 1;
	memcpy(buf, (const char *)ev->data + off, len);
	buf[len] = 0;
	return buf;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Is system call @name a probe's trap? x86-64's uretprobe trampoline (Linux
 * 6.11 on) returns through the uretprobe call, and an optimized uprobe
 * enters through the uprobe call: the probe's own mechanics, no call of the
 * program, given no func (sys_event() in ftree.c).
 */
static bool trap_name(const char *name)
{
	return !strcmp(name, "uretprobe") || !strcmp(name, "uprobe");
}

/*
 * Is the kernel function @name where an interrupt enters? The idtentry
 * functions (sysvec_*, common_interrupt) are not traced on recent kernels, so
 * irq_enter_rcu, whose entry record still shows task context, is the first
 * sign of an interrupt there.
 */
static int irq_entry_name(const char *name)
{
	return starts_with(name, "sysvec_") || starts_with(name, "asm_sysvec_") ||
	       !strcmp(name, "common_interrupt") || !strcmp(name, "asm_common_interrupt") ||
	       !strcmp(name, "spurious_interrupt") || !strcmp(name, "do_IRQ") ||
	       !strcmp(name, "exc_nmi") || !strcmp(name, "asm_exc_nmi") ||
	       !strcmp(name, "irq_enter_rcu") || !strcmp(name, "irq_enter") ||
	       (starts_with(name, "smp_") && ends_with(name, "_interrupt"));
}

#define ARG_TEXT 256 /* a string arg's bytes at most, with the NUL */

/*
 * The event's name and its fetch args: every field but the common ones and
 * __probe_*; what probe_args_json() needs to know of them.
 */
static int probe_args(struct etype *t, struct tep_event *e)
{
	struct tep_format_field *f;
	int n = 0;

	if (asprintf(&t->event, "%s:%s", e->system, e->name) < 0) {
		t->event = NULL;
		return -1;
	}
	for (f = e->format.fields; f; f = f->next)
		n++;
	t->args = calloc(n + 1, sizeof(*t->args));
	if (!t->args)
		return -1;
	for (f = e->format.fields; f; f = f->next)
		if (strncmp(f->name, "__probe_", 8))
			t->args[t->nargs++] = f;
	/* braces, NUL; each arg's comma, name and colon, value: escaped, six bytes a byte */
	t->json_max = 3;
	t->args_unique = true;
	for (int i = 0; i < t->nargs; i++) {
		t->json_max += 1 + 2 + 6 * strlen(t->args[i]->name) + 1 + 2 + 6 * ARG_TEXT;
		for (int j = 0; j < i; j++)
			t->args_unique &= strcmp(t->args[i]->name, t->args[j]->name) != 0;
	}
	return 0;
}

/* The block events darc follows bios through (fields: dev, sector, nr_sector, rwbs, error). */
static void resolve_block(struct etype *t, struct tep_event *e, const char *name)
{
	static const struct {
		const char *name;
		int kind;
	} kinds[] = {
	    {"block_bio_queue", EVENT_BLK_QUEUE},	{"block_bio_backmerge", EVENT_BLK_MERGE},
	    {"block_bio_frontmerge", EVENT_BLK_MERGE},	{"block_getrq", EVENT_BLK_GETRQ},
	    {"block_rq_insert", EVENT_BLK_INSERT},	{"block_rq_issue", EVENT_BLK_ISSUE},
	    {"block_rq_requeue", EVENT_BLK_REQUEUE},	{"block_rq_complete", EVENT_BLK_COMPLETE},
	    {"block_bio_complete", EVENT_BLK_COMPLETE},
	};

	t->f[2] = tep_find_field(e, "nr_sector");
	t->f[3] = tep_find_field(e, "rwbs");
	t->f[4] = tep_find_field(e, "error");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, kinds[i].name) && t->f[2])
			t->kind = kinds[i].kind;
	t->raw = !strcmp(name, "block_bio_complete");
}

/* A field of @e as t->f[i]; its value: the field, or NULL where @e has none. */
#define FIELD(i, n) (t->f[i] = tep_find_field(e, n))

/* The scheduler's events: switches and wake-ups. */
static void resolve_sched(struct etype *t, struct tep_event *e, const char *name)
{
	if (!strcmp(name, "sched_switch") && FIELD(0, "prev_pid") && FIELD(1, "next_pid") &&
	    FIELD(2, "prev_state")) {
		FIELD(3, "prev_comm");
		FIELD(4, "next_comm");
		t->kind = EVENT_SWITCH;
	} else if (!strcmp(name, "sched_waking") && FIELD(0, "pid")) {
		FIELD(1, "target_cpu");
		t->kind = EVENT_WAKING;
	} else if ((!strcmp(name, "sched_wakeup") || !strcmp(name, "sched_wakeup_new")) &&
		   FIELD(0, "pid")) {
		FIELD(1, "target_cpu");
		t->kind = EVENT_WAKEUP;
	}
}

/* The interrupt handlers' and softirqs' events. */
static void resolve_irq(struct etype *t, struct tep_event *e, const char *name)
{
	if (!strcmp(name, "irq_handler_entry") && FIELD(0, "irq")) {
		FIELD(1, "name");
		t->kind = EVENT_IRQ_ENTRY;
	} else if (!strcmp(name, "irq_handler_exit") && FIELD(0, "irq"))
		t->kind = EVENT_IRQ_EXIT;
	else if (!strcmp(name, "softirq_entry") && FIELD(0, "vec"))
		t->kind = EVENT_SOFTIRQ_ENTRY;
	else if (!strcmp(name, "softirq_exit") && FIELD(0, "vec"))
		t->kind = EVENT_SOFTIRQ_EXIT;
	else if (!strcmp(name, "softirq_raise"))
		t->kind = EVENT_MARK;
}

/*
 * Whether function_graph type @t has the usual layout (see
 * etype.fg_fixed_size) in its first @n fields: note its size if so.
 */
static void fg_fixed_layout(const struct decoder *d, struct etype *t, int n)
{
	static const int size[4] = {8, 4, 8, 8}; /* func, depth, calltime, rettime */
	int end = 0;

	for (int i = 0; i < n; i++) {
		if (!t->f[i] || t->f[i]->size != size[i] || t->f[i]->offset < 0)
			return;
		if (t->f[i]->offset + size[i] > end)
			end = t->f[i]->offset + size[i];
	}
	if (!d->swap && end <= UINT16_MAX)
		t->fg_fixed_size = (uint16_t)end;
}

static void resolve(struct decoder *d, struct etype *t, struct tep_event *e)
{
	const char *sys = e->system, *name = e->name;

	t->resolved = 1;
	t->kind = EVENT_OTHER;
	if (!strcmp(sys, "ftrace")) {
		/* fgraph_retaddr_entry: an entry with its return address (funcgraph-retaddr) */
		if ((!strcmp(name, "funcgraph_entry") || !strcmp(name, "fgraph_retaddr_entry")) &&
		    FIELD(0, "func") && FIELD(1, "depth")) {
			FIELD(2, "args"); /* funcgraph-args: the argument registers */
			FIELD(3, "retaddr");
			t->kind = EVENT_FG_ENTRY;
			fg_fixed_layout(d, t, 2);
		} else if (!strcmp(name, "funcgraph_exit") && FIELD(0, "func") && FIELD(1, "depth")) {
			FIELD(2, "calltime");
			FIELD(3, "rettime");
			FIELD(4, "retval"); /* funcgraph-retval */
			t->kind = EVENT_FG_EXIT;
			fg_fixed_layout(d, t, 4);
		} else if (!strcmp(name, "kernel_stack") || !strcmp(name, "user_stack")) {
			t->kind = EVENT_MARK;
		}
	} else if (FIELD(0, "__probe_func") || FIELD(0, "__probe_ip")) {
		t->kind =
		    tep_find_field(e, "__probe_func") ? EVENT_PROBE_RETURN : EVENT_PROBE_ENTRY;
		t->user = strstr(sys, "uprobe") != NULL;
		t->file = t->user ? probe_file(d, sys, name) : NULL;
		t->paired = t->kind == EVENT_PROBE_ENTRY ? entry_pairing(d, sys, name) : 0;
		if (probe_args(t, e))
			t->func_id = -1; /* out of memory */
	} else if (!strcmp(sys, "raw_syscalls")) {
		if (!strcmp(name, "sys_enter") && FIELD(0, "id"))
			t->kind = EVENT_SYS_ENTER;
		else if (!strcmp(name, "sys_exit") && FIELD(0, "id") && (FIELD(1, "ret"), 1))
			t->kind = EVENT_SYS_EXIT;
		t->raw = 1;
	} else if (!strcmp(sys, "syscalls") && FIELD(0, "__syscall_nr")) {
		int enter = starts_with(name, "sys_enter_");
		if (enter || starts_with(name, "sys_exit_")) {
			if (!enter)
				FIELD(1, "ret");
			t->kind = enter ? EVENT_SYS_ENTER : EVENT_SYS_EXIT;
			t->name = name + (enter ? 10 : 9); /* learn_name()'s */
			t->trap = trap_name(t->name);
			t->func_id = t->trap ? 0 : funcs_id(d->fs, FUNC_SYSCALL, t->name, DARC_NULL, NULL);
		}
	} else if (!strcmp(sys, "sched")) {
		resolve_sched(t, e, name);
	} else if (!strcmp(sys, "irq")) {
		resolve_irq(t, e, name);
	} else if (!strcmp(sys, "block") && FIELD(0, "dev") && FIELD(1, "sector")) {
		resolve_block(t, e, name);
	} else if (!strcmp(sys, "irq_vectors") && FIELD(0, "vector")) {
		if (ends_with(name, "_entry")) {
			t->kind = EVENT_VECTOR_ENTRY;
			t->name = name;
		} else if (ends_with(name, "_exit")) {
			t->kind = EVENT_VECTOR_EXIT;
			t->name = name;
		}
	}
#undef FIELD
}

const char *decode_event_gives(const char *event)
{
	static const struct {
		const char *prefix; /* "system:name" or the start of it */
		const char *gives;
	} uses[] = {
	    {"ftrace:funcgraph_", "function calls"},
	    {"ftrace:fgraph_retaddr_entry", "function calls"},
	    {"sched:sched_switch", "off-CPU time"},
	    {"sched:sched_wak", "wake-ups"}, /* waking, wakeup, wakeup_new */
	    {"irq:irq_handler_", "hard-irq time"},
	    {"irq:softirq_e", "softirq time"}, /* entry, exit */
	    {"irq_vectors:", "hard-irq time"},
	    {"block:", "block I/O requests"},
	    {"raw_syscalls:sys_", "system calls"},
	    {"syscalls:sys_", "system calls"},
	};
	const char *colon = strchr(event, ':');

	for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++)
		if (starts_with(event, uses[i].prefix))
			return uses[i].gives;
	/* a probe's system is the user's to name: kprobes, uprobes, or another */
	if (colon && memmem(event, (size_t)(colon - event), "probe", 5))
		return "probe calls";
	return NULL;
}

/* Is @addr in user space? On 64-bit kernels the kernel has the top half of
   the address space (x86_64, arm64, riscv64, powerpc64); on 32-bit ones
   there is no such rule, and the uprobe group name has to say it. */
static bool user_addr(const struct decoder *d, uint64_t addr)
{
	return tep_get_long_size(d->tep) == 8 && !(addr >> 63);
}

/*
 * Is @addr, @off bytes past symbol @sym at @start, that function's entry as
 * the kernel reports it? function_graph records a function at its ftrace
 * call site: the symbol's start on most kernels, but past an endbr64 (x86
 * IBT, +4) or a bti and patchable NOPs (arm64, +4 or +8): the kernel itself
 * prints the symbol there (%ps), as trace-cmd does. So every function_graph
 * address names its symbol below. A probe (@event) is the function only
 * just past that preamble (a kprobe on "submit_bio" sits after endbr64), and
 * only when its event is named after the function; else it is its own place.
 */
static bool entry_of(const char *sym, uint64_t start, uint64_t addr, const char *event)
{
	const char *e;

	if (!event)
		return true;
	if (addr - start > 8)
		return false;
	e = strchr(event, ':');
	return strstr(e ? e + 1 : event, sym) != NULL;
}

/* The slot of @addr in @d's table of functions by address: its own, or the empty one for it. */
static struct kaddr *addr_slot(const struct decoder *d, uint64_t addr)
{
	uint64_t i = (addr * 0x9e3779b97f4a7c15ULL >> 20) & (d->addr_slots - 1);

	while (d->addrs[i].id && d->addrs[i].key != addr)
		i = (i + 1) & (d->addr_slots - 1);
	return &d->addrs[i];
}

/* Make room for one more address in @d's table. 0, or -1 when out of memory. */
static int addr_room(struct decoder *d)
{
	struct kaddr *old = d->addrs;
	int64_t nold = d->addr_slots;

	if (d->naddr * 2 < d->addr_slots)
		return 0;
	/* from 256 slots (8 KB, in L1 with room): a recording has a few
	   hundred addresses, and this table is looked up at every event */
	d->addr_slots = nold ? nold * 2 : 256;
	d->addrs = calloc(d->addr_slots, sizeof(*d->addrs));
	if (!d->addrs) {
		d->addrs = old;
		d->addr_slots = nold;
		return -1;
	}
	for (int64_t j = 0; j < nold; j++)
		if (old[j].id)
			*addr_slot(d, old[j].key) = old[j];
	free(old);
	return 0;
}

/* The function id of kernel address @addr (symbol from kallsyms, or the address). */
static int64_t kfunc(struct decoder *d, uint64_t addr, int user, const char *event,
		     const char *file, const char **name, int *irq)
{
	struct kaddr *k;

	if (addr_room(d))
		return -1;
	k = addr_slot(d, addr);
	if (k->id)
		goto found;
	if (!d->ksyms && !user) {
		/* the first kernel address: now the symbols are worth parsing */
		d->ksyms = 1;
		if (fmt_reader_load_kallsyms(d->r, &d->err))
			return -1;
	}
	{
		const char *sym = user ? NULL : tep_find_function(d->tep, addr);
		unsigned long long start = user ? 0 : tep_find_function_address(d->tep, addr);
		const char *fn = sym ? fmt_reader_function_at(d->r, start) : NULL;
		char buf[64];
		uint64_t addr_of = addr;
		/* a kernel function is one however it was seen (function_graph or a probe) */
		int kind = user || fmt_reader_info(d->r)->user_funcs ? FUNC_UPROBE : FUNC_KERNEL;
		int64_t id;

		if (fn) /* a function, not the section marker at its address */
			sym = fn;
		if (sym && start != addr && entry_of(sym, start, addr, event))
			addr_of = start; /* the function itself, seen past its entry preamble */
		else if (event && (!sym || start != addr)) {
			sym = event; /* a probe off a symbol's start: name it by its event */
			kind = user ? FUNC_UPROBE : FUNC_KPROBE;
		} else if (!sym || start != addr) {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
			sym = buf; /* no symbol at this exact address: name it by the address */
		}
		id = funcs_id(d->fs, kind, sym, (int64_t)addr_of,
			      user ? file : fmt_reader_func_module(d->r, start));
		if (id < 0)
			return -1;
		*k = (struct kaddr){addr, id, funcs_get(d->fs, id)->name,
				    kind == FUNC_KERNEL && irq_entry_name(sym)};
		d->naddr++;
	}
found:
	*name = k->name;
	*irq = k->irq;
	return k->id;
}

/* What is known of raw system call @nr (0..4096), or NULL when out of memory. */
static struct sys_nr *sys_nr(struct decoder *d, int64_t nr)
{
	if (nr >= d->nsys) {
		int n = nr + 64;
		struct sys_nr *p = realloc(d->sys, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + d->nsys, 0, (n - d->nsys) * sizeof(*p));
		d->sys = p;
		d->nsys = n;
	}
	return &d->sys[nr];
}

/* The name of raw system call @nr (0..4096) by its architecture's table, else made up in @buf. */
static const char *guess_name(const struct decoder *d, int64_t nr, char *buf, size_t size)
{
	const char *name = decode_syscall_name(d->abi, nr);

	if (!name && nr == 4096)
		name = "syscall_out_of_range";
	if (!name) {
		snprintf(buf, size, "syscall_%lld", (long long)nr);
		name = buf;
	}
	return name;
}

/*
 * The func id of raw system call @nr: named as the recording's syscalls:*
 * events say (the truth for its kernel), else by the table of its
 * architecture, else syscall_NR. 0 for a probe's trap.
 */
static int64_t sysfunc(struct decoder *d, int64_t nr)
{
	char buf[32];
	const char *name = NULL;
	struct sys_nr *sn;

	if (nr < 0 || nr > 4096)
		nr = 4096; /* one bucket for nonsense numbers */
	if (!(sn = sys_nr(d, nr)))
		return -1;
	if (sn->id)
		return sn->id;
	name = sn->name;
	if (!name) {
		name = guess_name(d, nr, buf, sizeof(buf));
		sn->guessed = true;
	}
	if (trap_name(name))
		return 0; /* not cached: 0 is "not yet" there */
	sn->id = funcs_id(d->fs, FUNC_SYSCALL, name, nr, NULL);
	return sn->id;
}

/* The clock state of CPU @cpu, or NULL when out of memory. */
static struct fg_off *fg_off_of(struct decoder *d, int cpu)
{
	if (cpu >= d->noff) {
		int n = cpu + 8;
		struct fg_off *p = realloc(d->off, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + d->noff, 0, (n - d->noff) * sizeof(*p));
		for (int i = d->noff; i < n; i++)
			p[i].fixed = d->same_clock;
		d->off = p;
		d->noff = n;
	}
	return &d->off[cpu];
}

/*
 * Is @gap (exit event time - rettime) what the offset allows? Returns 1; 2 when
 * the offset is this gap alone (the CPU's first exit); or 0 for an implausible
 * one, which moves the offset only when a second gap agrees with it (then it
 * was the offset that was wrong). A first exit written late (an interrupt
 * between the return and its event, or the virtual CPU stopped) makes the
 * offset too large: the second exit's smaller gap corrects it at once.
 */
static int fg_gap_ok(struct fg_off *o, int64_t gap)
{
	if (!o->known) {
		o->known = 1;
		o->off = o->fixed ? 0 : gap;
		o->sure = 0;
		return o->fixed ? 1 : 2;
	}
	if (gap >= o->off - (o->fixed ? 0 : FG_SLACK) && gap <= o->off + FG_LATE) {
		if (gap < o->off)
			o->off = gap;
		o->sure = 1;
		return 1;
	}
	if (!o->fixed && !o->sure && gap < o->off) {
		o->off = gap;
		o->sure = 1;
		return 1;
	}
	if (o->ncand && gap >= o->cand - FG_SLACK && gap <= o->cand + FG_SLACK) {
		o->off = gap < o->cand ? gap : o->cand;
		o->fixed = 0;
		o->ncand = 0;
		o->sure = 1;
		return 1;
	}
	o->cand = gap;
	o->ncand = 1;
	return 0;
}

/*
 * function_graph takes calltime and rettime with the kernel's local clock
 * (trace_clock_local on 6.1), whatever clock the buffer's timestamps use. In
 * a recording with another clock (mono, global, boot, ...) the two differ by
 * an offset: estimate it per CPU as the smallest gap between an exit event's
 * timestamp and its rettime (the exit is written just after the return), and
 * move calltime and rettime onto the events' clock. The duration,
 * rettime - calltime, is left exactly as recorded. Times that cannot be true
 * (a damaged recording: the exit long after the return or before it, the
 * call before the recording could start, or ending before it started) are
 * dropped and the exit marked bad_time: they never move the offset. Its
 * duration stays in fg.dur, and fg.new_off says when the offset came from
 * this exit alone (one that was written late sets it too large: ftree.c
 * places such calls at their entry events).
 */
static int fg_clock(struct decoder *d, struct analysis_event *out)
{
	struct fg_off *o;
	int64_t ct = out->fg.calltime;
	int ok;

	if (out->cpu < 0 || out->cpu > 65535)
		return 0;
	o = fg_off_of(d, out->cpu);
	if (!o)
		return -1;
	ok = fg_gap_ok(o, out->t - out->fg.rettime);
	if (!ok) {
		out->fg.rettime = out->fg.calltime = DARC_NULL;
		out->fg.bad_time = 1;
		return 0;
	}
	out->fg.new_off = ok == 2;
	out->fg.rettime += o->off;
	if (ct != DARC_NULL)
		ct += o->off;
	if (ct != DARC_NULL && (ct > out->fg.rettime || ct < d->t_first - FG_EARLY)) {
		ct = DARC_NULL;
		out->fg.bad_time = 1;
	}
	out->fg.calltime = ct;
	return 0;
}

enum arg_kind { ARG_STRING, ARG_NULL, ARG_HEX, ARG_INT };

/*
 * How a fetch arg is shown in JSON: a string; an 8-byte unsigned value (a
 * pointer, or kprobe's default x64 type) as a "0x..." string, the way
 * trace-cmd shows it; any other number as a number; an array, null.
 */
static enum arg_kind arg_kind(const struct tep_format_field *f)
{
	if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC))
		return ARG_STRING;
	if (f->flags & TEP_FIELD_IS_ARRAY || f->size > 8)
		return ARG_NULL;
	return f->size == 8 && !(f->flags & TEP_FIELD_IS_SIGNED) ? ARG_HEX : ARG_INT;
}

static json_t *arg_json(struct decoder *d, const struct tep_format_field *f,
			const struct fmt_event *ev)
{
	char buf[ARG_TEXT];
	const char *v;

	switch (arg_kind(f)) {
	case ARG_STRING:
		v = str(d, f, ev, buf, sizeof(buf));
		return v ? json_stringn_nocheck(v, strnlen(v, sizeof(buf))) : json_null();
	case ARG_NULL:
		return json_null();
	case ARG_HEX:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)num(d, f, ev));
		return jtext(buf);
	default:
		return json_integer(num(d, f, ev));
	}
}

/* The fetch args of probe event @ev as a JSON object (owned by @d), or NULL. */
static const char *probe_args_jansson(struct decoder *d, const struct etype *t,
				      const struct fmt_event *ev)
{
	json_t *o = json_object();

	free(d->args_json);
	d->args_json = NULL;
	if (!o)
		return NULL;
	for (int i = 0; i < t->nargs; i++)
		json_object_set_new(o, t->args[i]->name, arg_json(d, t->args[i], ev));
	d->args_json = json_dumps(jtext_clean(o), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(o);
	return d->args_json;
}

/*
 * @s (@n bytes) as a JSON string at @o, escaped as json_dumps() escapes it
 * with JSON_ENSURE_ASCII; the end, or NULL at a byte past ASCII (which
 * jansson, checking its UTF-8, must see).
 */
static char *ascii_json(char *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		const char *esc = c == '\b' ? "b" : c == '\f' ? "f" : c == '\n' ? "n"
				: c == '\r' ? "r" : c == '\t' ? "t" : NULL;

		if (c >= 0x80)
			return NULL;
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = c;
		} else if (c >= 0x20) {
			*o++ = c;
		} else if (esc) {
			*o++ = '\\';
			*o++ = *esc;
		} else {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		}
	}
	*o++ = '"';
	return o;
}

/* @v at @o in base @base (10 or 16, lower case), as printf's %llu or %llx; the end. */
static char *digits(char *o, uint64_t v, unsigned base)
{
	char t[24];
	int n = 0;

	do {
		t[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		*o++ = t[--n];
	return o;
}

/* Fetch arg @f of @ev as JSON at @o; the end, or NULL where jansson must write it. */
static char *arg_text(struct decoder *d, const struct tep_format_field *f,
		      const struct fmt_event *ev, char *o)
{
	char buf[ARG_TEXT];
	const char *v;
	int64_t x;

	switch (arg_kind(f)) {
	case ARG_STRING:
		if ((v = str(d, f, ev, buf, sizeof(buf))))
			return ascii_json(o, v, strnlen(v, sizeof(buf)));
		/* fall through */
	case ARG_NULL:
		memcpy(o, "null", 4);
		return o + 4;
	case ARG_HEX:
		memcpy(o, "\"0x", 3);
		o = digits(o + 3, (uint64_t)num(d, f, ev), 16);
		*o++ = '"';
		return o;
	default:
		x = num(d, f, ev);
		if (x < 0)
			*o++ = '-';
		return digits(o, x < 0 ? -(uint64_t)x : (uint64_t)x, 10);
	}
}

/*
 * The fetch args of probe event @ev as a JSON object (owned by @d), or NULL:
 * written here as json_dumps() writes them (a probe hit's args are most of
 * what a probe costs), or by jansson where a name repeats or a byte is past
 * ASCII.
 */
static const char *probe_args_json(struct decoder *d, const struct etype *t,
				   const struct fmt_event *ev)
{
	char *o;

	if (!t->args_unique)
		return probe_args_jansson(d, t, ev);
	if (t->json_max > d->pjson_cap) {
		char *p = realloc(d->pjson, t->json_max);
		if (!p)
			return NULL;
		d->pjson = p;
		d->pjson_cap = t->json_max;
	}
	o = d->pjson;
	*o++ = '{';
	for (int i = 0; o && i < t->nargs; i++) {
		if (i)
			*o++ = ',';
		o = ascii_json(o, t->args[i]->name, strlen(t->args[i]->name));
		if (o)
			*o++ = ':';
		o = o ? arg_text(d, t->args[i], ev, o) : NULL;
	}
	if (!o)
		return probe_args_jansson(d, t, ev);
	*o++ = '}';
	*o = 0;
	return d->pjson;
}

/*
 * A return value as the kernel prints it (funcgraph-retval): an error code
 * (-4095..-1) as that negative number, also where a function returned a
 * 32-bit int and the register's upper half is zero (print_graph_retval()
 * sign-extends it); anything else as the register's @size bytes.
 */
static int64_t fg_retval(uint64_t v, int size)
{
	int64_t low = (int32_t)(uint32_t)v;

	if ((size == 4 || !(v >> 32)) && low < 0 && low >= -4095)
		return low;
	return (int64_t)v;
}

/*
 * funcgraph-args: the argument registers the entry saved, as a JSON object,
 * named and printed as the recording says the function's parameters are
 * (a number where it printed one signed, else "0x..", several registers
 * of a struct as "0x1:0x2"), else "arg1".."argN", each "0x..". NULL with no
 * registers, or where the function has no parameters; -1 when out of memory.
 */
static int fg_args_json(struct decoder *d, const struct tep_format_field *f,
			const struct fmt_event *ev, uint64_t func, const char **out)
{
	int lsize = tep_get_long_size(d->tep) == 4 ? 4 : 8;
	int nslots = f->offset < (int)ev->size ? ((int)ev->size - f->offset) / lsize : 0;
	const struct fmt_param *p;
	int np, slot = 0;
	json_t *o;

	*out = NULL;
	if (nslots > 16)
		nslots = 16; /* the kernel saves 6 (x86) or 8 (arm64) */
	if (!nslots)
		return 0;
	if (!fmt_reader_func_params(d->r, func, &p, &np)) {
		p = NULL;
		np = nslots;
	}
	if (!np)
		return 0;
	o = json_object();
	for (int i = 0; o && i < np && slot < nslots; i++) {
		struct tep_format_field one = *f;
		char name[64], val[160];
		int len = 0, k = p ? p[i].slots : 1;
		json_t *v;

		one.size = lsize;
		if (p && p[i].name[0])
			snprintf(name, sizeof(name), "%s", p[i].name);
		else
			snprintf(name, sizeof(name), "arg%d", i + 1);
		for (; k > 0 && slot < nslots && len < (int)sizeof(val) - 24; k--, slot++) {
			one.offset = f->offset + slot * lsize;
			len += snprintf(val + len, sizeof(val) - len, "%s0x%" PRIx64, len ? ":" : "",
					(uint64_t)num(d, &one, ev));
		}
		one.offset = f->offset + (slot - 1) * lsize;
		one.flags |= TEP_FIELD_IS_SIGNED;
		v = p && p[i].kind == 'd' && p[i].slots == 1 ? json_integer(num(d, &one, ev))
							     : jtext(val);
		json_object_set_new(o, name, v);
	}
	free(d->args_json);
	d->args_json = o ? json_dumps(jtext_clean(o), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)
			 : NULL;
	json_decref(o);
	*out = d->args_json;
	return *out ? 0 : -1;
}

/* Where a call returns to (funcgraph-retaddr), "caller+0x1c", in @d's buffer. */
static const char *fg_retaddr(struct decoder *d, uint64_t addr)
{
	const char *sym = tep_find_function(d->tep, addr);
	unsigned long long start = sym ? tep_find_function_address(d->tep, addr) : addr;

	if (!sym)
		snprintf(d->retaddr, sizeof(d->retaddr), "0x%" PRIx64, addr);
	else if (start == addr)
		snprintf(d->retaddr, sizeof(d->retaddr), "%s", sym);
	else
		snprintf(d->retaddr, sizeof(d->retaddr), "%s+0x%llx", sym, addr - start);
	return d->retaddr;
}

/* An entry's arguments and return address, where it has them. 0, or -1 when out of memory. */
static int fg_entry_values(struct decoder *d, const struct etype *t, const struct fmt_event *ev,
			   struct analysis_event *out)
{
	if (t->f[3])
		out->fg.retaddr = fg_retaddr(d, (uint64_t)num(d, t->f[3], ev));
	return t->f[2] ? fg_args_json(d, t->f[2], ev, out->fg.addr, &out->fg.args) : 0;
}

/*
 * Learn that system call @nr is @name (a syscalls:sys_enter_NAME or
 * sys_exit_NAME event said so), unless known already. 0, or -1 when out of
 * memory.
 */
static int learn_name(struct decoder *d, int64_t nr, const char *name)
{
	struct sys_nr *sn;
	char buf[32];

	if (nr < 0 || nr >= 4096)
		return 0;
	if (!(sn = sys_nr(d, nr)))
		return -1;
	if (sn->name)
		return 0;
	if (sn->guessed && strcmp(guess_name(d, nr, buf, sizeof(buf)), name))
		d->names_late = true; /* its calls so far are named otherwise */
	if (!(sn->name = strdup(name)))
		return -1;
	return 0;
}

/* What the prescan reads from the events of one type. */
struct pre_type {
	bool seen;
	bool known;		       /* its function is known: a kernel one, constant */
	bool user;		       /* a uprobe by its group's name */
	struct tep_format_field *func; /* return probes: the function they report */
	struct tep_format_field *nr;   /* syscalls:*: the call's number ... */
	const char *name;	       /* ... and its name */
};

static void pre_resolve(const struct decoder *d, struct pre_type *p, struct tep_event *e)
{
	p->seen = true;
	if (!e)
		return;
	p->func = tep_find_field(e, "__probe_func");
	p->user = strstr(e->system, "uprobe") != NULL;
	if (d->learn_names && !strcmp(e->system, "syscalls")) {
		p->name = starts_with(e->name, "sys_enter_")  ? e->name + 10
			  : starts_with(e->name, "sys_exit_") ? e->name + 9
							      : NULL;
		p->nr = p->name ? tep_find_field(e, "__syscall_nr") : NULL;
	}
}

/*
 * Has the prescan learnt all it can, having seen return probe @p report
 * @addr? A kretprobe reports the probed kernel function, the same in every
 * event of its type: once each return-probe type has been seen with a
 * kernel address, the rest of the recording adds nothing. A uretprobe
 * reports the function at its address in each process, which may differ
 * from one to the next, and on a 32-bit kernel no address says which it
 * is: then, and for the system calls' names, the prescan reads to the end.
 */
static bool pre_done(const struct decoder *d, struct pre_type *p, uint64_t addr, int *nknown,
		     bool *to_end)
{
	if (p->known || *to_end)
		return false;
	if (p->user || user_addr(d, addr) || tep_get_long_size(d->tep) != 8) {
		*to_end = true;
		return false;
	}
	p->known = addr != 0;
	*nknown += p->known;
	return *nknown >= d->returns;
}

int decode_prescan(struct decoder *d, struct fmt_reader *r, struct err_msg *err)
{
	struct pre_type *types = calloc(65536, sizeof(*types)), *p;
	struct fmt_event ev;
	bool to_end = d->learn_names;
	int n, rc = -1, nknown = 0;

	if (!types) {
		err_setf(err, NULL, "out of memory");
		return -1;
	}
	while ((n = fmt_reader_next(r, &ev, err)) > 0) {
		uint64_t addr;

		p = &types[ev.type];
		if (!p->seen)
			pre_resolve(d, p, ev.event);
		addr = p->func ? (uint64_t)num(d, p->func, &ev) : 0;
		if (p->func && ret_add(d, addr)) {
			err_setf(err, NULL, "out of memory");
			goto out;
		}
		if (p->nr && learn_name(d, num(d, p->nr, &ev), p->name)) {
			err_setf(err, NULL, "out of memory");
			goto out;
		}
		if (p->func && pre_done(d, p, addr, &nknown, &to_end))
			break;
	}
	rc = n < 0 ? -1 : 0;
out:
	free(types);
	return rc;
}

const char *decode_error(const struct decoder *d)
{
	return d->err.msg[0] ? d->err.msg : "out of memory";
}

/* A system call's entry or exit: out->sys. 0, or -1 when out of memory. */
static int decode_sys(struct decoder *d, const struct etype *t, const struct fmt_event *ev,
		      struct analysis_event *out)
{
	int64_t v = num(d, t->f[0], ev);

	if (d->names_in_pass && !t->raw && learn_name(d, v, t->name))
		return -1;
	out->sys.nr = v;
	out->sys.raw = t->raw;
	out->sys.ret = t->kind == EVENT_SYS_EXIT && t->f[1] ? num(d, t->f[1], ev) : DARC_NULL;
	/* an exit numbered -1: the kernel cleared the number during the call
	   (rt_sigreturn, a probe's trap): it names nothing */
	if (t->kind == EVENT_SYS_EXIT && v < 0)
		out->sys.func_id = 0;
	else
		out->sys.func_id = t->raw ? sysfunc(d, v) : t->func_id;
	out->sys.trap = t->raw ? out->sys.func_id == 0 && v >= 0 : t->trap;
	return out->sys.func_id < 0 ? -1 : 0;
}

/* calltime or rettime @v on the events' clock, converted as they are (conv_clock). */
static int64_t fg_conv(const struct decoder *d, int64_t v, int cpu)
{
	if (v == DARC_NULL || !d->conv_clock)
		return v;
	return (int64_t)fmt_reader_clock_ts(d->r, (uint64_t)v, cpu);
}

/*
 * Field @i (0 func, 1 depth, 2 calltime, 3 rettime) of function_graph type @t:
 * read in place when @fixed (the record has the usual layout, whole: see
 * etype.fg_fixed_size), else by num(); the same value either way.
 */
static inline int64_t fg_field(const struct decoder *d, const struct etype *t,
			       const struct fmt_event *ev, int i, bool fixed)
{
	const uint8_t *p = (const uint8_t *)ev->data + (fixed ? t->f[i]->offset : 0);
	int64_t v;
	int32_t v32;

	if (!fixed)
		return num(d, t->f[i], ev);
	if (i == 1) {
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v, p, 8);
	return v;
}

/* A function_graph entry or exit: out->fg. 0, or -1 when out of memory. */
static int decode_fg(struct decoder *d, const struct etype *t, const struct fmt_event *ev,
		     struct analysis_event *out)
{
	bool fixed = t->fg_fixed_size && ev->size >= t->fg_fixed_size;

	out->fg.addr = (uint64_t)fg_field(d, t, ev, 0, fixed);
	out->fg.depth = (int)fg_field(d, t, ev, 1, fixed);
	out->fg.func_id = kfunc(d, out->fg.addr, 0, NULL, NULL, &out->fg.name, &out->fg.irq_entry);
	if (out->fg.func_id < 0)
		return -1;
	out->fg.bad_time = out->fg.new_off = 0;
	out->fg.calltime = out->fg.rettime = out->fg.retval = out->fg.dur = DARC_NULL;
	out->fg.args = out->fg.retaddr = NULL;
	if (t->kind == EVENT_FG_ENTRY)
		return fg_entry_values(d, t, ev, out) ? -1 : 0;
	out->fg.calltime = t->f[2] ? fg_field(d, t, ev, 2, fixed) : DARC_NULL;
	out->fg.rettime = t->f[3] ? fg_field(d, t, ev, 3, fixed) : DARC_NULL;
	out->fg.calltime = fg_conv(d, out->fg.calltime, ev->cpu);
	out->fg.rettime = fg_conv(d, out->fg.rettime, ev->cpu);
	if (t->f[4])
		out->fg.retval = fg_retval((uint64_t)num(d, t->f[4], ev), t->f[4]->size);
	if (out->fg.calltime != DARC_NULL && out->fg.rettime != DARC_NULL &&
	    out->fg.rettime >= out->fg.calltime)
		out->fg.dur = out->fg.rettime - out->fg.calltime;
	if (out->fg.rettime != DARC_NULL && fg_clock(d, out))
		return -1;
	return 0;
}

/* A kprobe's or uprobe's hit or return: out->probe. 0, or -1 when out of memory. */
static int decode_probe(struct decoder *d, struct etype *t, const struct fmt_event *ev,
			struct analysis_event *out)
{
	const char *name;
	int irq;

	out->probe.addr = (uint64_t)num(d, t->f[0], ev);
	if (!t->user && user_addr(d, out->probe.addr))
		t->user = 1; /* a uprobe in a group not named so (perf probe -x: probe_BINARY) */
	out->probe.func_id =
	    kfunc(d, out->probe.addr, t->user, ev->event->name, t->file, &name, &irq);
	if (out->probe.func_id < 0)
		return -1;
	out->probe.event = t->event;
	out->probe.paired = t->paired < 0 ? ret_has(d, out->probe.addr) : t->paired;
	out->probe.args = probe_args_json(d, t, ev);
	if (!out->probe.args)
		return -1;
	return 0;
}

/* A block layer tracepoint: out->blk. */
static void decode_blk(struct decoder *d, const struct etype *t, const struct fmt_event *ev,
		       struct analysis_event *out)
{
	out->blk.dev = num(d, t->f[0], ev);
	out->blk.sector = num(d, t->f[1], ev);
	out->blk.nr_sector = (int32_t)num(d, t->f[2], ev);
	out->blk.error = t->f[4] ? (int32_t)num(d, t->f[4], ev) : 0;
	out->blk.bio_level = t->raw; /* block_bio_complete */
	out->blk.rwbs = str(d, t->f[3], ev, d->buf, sizeof(d->buf));
}

/* An interrupt handler's, softirq's or vector's entry or exit: out->irq. */
static void decode_irq(struct decoder *d, const struct etype *t, const struct fmt_event *ev,
		       struct analysis_event *out)
{
	int64_t v = num(d, t->f[0], ev);

	out->irq.irq = v;
	if (t->kind == EVENT_IRQ_ENTRY)
		out->irq.name = str(d, t->f[1], ev, d->buf, sizeof(d->buf));
	else if (t->kind == EVENT_IRQ_EXIT)
		out->irq.name = NULL;
	else if (t->kind == EVENT_SOFTIRQ_ENTRY || t->kind == EVENT_SOFTIRQ_EXIT)
		out->irq.name = v >= 0 && v < 10 ? softirq_names[v] : "softirq";
	else
		out->irq.name = t->name;
}

/* Note that type @id is being resolved (for decode_free()). 0, or -1 when out of memory. */
static int note_resolved(struct decoder *d, uint16_t id)
{
	if (GROW(d->resolved, d->nresolved, d->resolved_cap, 16))
		return -1;
	d->resolved[d->nresolved++] = id;
	return 0;
}

int decode(struct decoder *d, const struct fmt_event *ev, struct analysis_event *out)
{
	struct etype *t = &d->types[ev->type];

	out->kind = EVENT_OTHER;
	out->t = (int64_t)ev->ts;
	out->cpu = ev->cpu;
	out->pid = ev->pid;
	out->flags = ev->flags;
	out->missed = ev->missed;
	if (d->t_first == DARC_NULL)
		d->t_first = out->t;
	if (!t->resolved) {
		if (!ev->event) {
			t->resolved = 1;
			return 0;
		}
		if (note_resolved(d, ev->type))
			return -1;
		resolve(d, t, ev->event);
		if (t->func_id < 0)
			return -1;
	}
	switch (t->kind) {
	case EVENT_OTHER:
		return 0;
	case EVENT_MARK:
		out->kind = EVENT_MARK;
		return 0;
	case EVENT_FG_ENTRY:
	case EVENT_FG_EXIT:
		if (decode_fg(d, t, ev, out))
			return -1;
		break;
	case EVENT_PROBE_ENTRY:
	case EVENT_PROBE_RETURN:
		if (decode_probe(d, t, ev, out))
			return -1;
		break;
	case EVENT_SYS_ENTER:
	case EVENT_SYS_EXIT:
		if (decode_sys(d, t, ev, out))
			return -1;
		break;
	case EVENT_SWITCH:
		out->sw.prev_pid = (int32_t)num(d, t->f[0], ev);
		out->sw.next_pid = (int32_t)num(d, t->f[1], ev);
		out->sw.prev_state = num(d, t->f[2], ev);
		out->sw.prev_comm = out->sw.next_comm = NULL;
		break;
	case EVENT_WAKING:
	case EVENT_WAKEUP:
		out->wake.pid = (int32_t)num(d, t->f[0], ev);
		out->wake.target_cpu = t->f[1] ? (int32_t)num(d, t->f[1], ev) : -1;
		break;
	case EVENT_IRQ_ENTRY:
	case EVENT_IRQ_EXIT:
	case EVENT_SOFTIRQ_ENTRY:
	case EVENT_SOFTIRQ_EXIT:
	case EVENT_VECTOR_ENTRY:
	case EVENT_VECTOR_EXIT:
		decode_irq(d, t, ev, out);
		break;
	default:
		if (t->kind >= EVENT_BLK_QUEUE && t->kind <= EVENT_BLK_COMPLETE)
			decode_blk(d, t, ev, out);
		break;
	}
	out->kind = t->kind;
	/* user code runs in task context; 6.18 stamps uprobe events with
	   common_flags 0xff, which would read as NMI */
	if (t->user)
		out->flags = 0;
	return 0;
}
