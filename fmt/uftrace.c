// SPDX-License-Identifier: MIT
/*
 * uftrace.data: what `uftrace record` writes, a directory of
 *   info		a 40-byte binary header ("Ftrace!", version, byte order,
 *			word size, feature bits) then "key:value" text lines;
 *   task.txt		SESS (a process image: pid, session id, exe), TASK (a
 *			thread: tid, pid), FORK and DLOP (a dlopen'd library) lines;
 *   sid-ID.map		the session's memory map (/proc/PID/maps lines);
 *   NAME.sym		each module's symbols: "ADDR [SIZE] TYPE NAME", ADDR
 *			relative to the module's load address;
 *   TID.dat		each thread's calls, 16-byte records: a timestamp, then
 *			one word of type (entry, exit, lost, event), "more" bit,
 *			magic (5), depth and address, in that bit order;
 *   perf-cpuN.dat	perf ring-buffer records (PERF_RECORD_SWITCH, COMM,
 *			FORK, EXIT) the traced tasks made on CPU N.
 * Times of both are the same clock (CLOCK_MONOTONIC unless --clock).
 *
 * The analysis already knows calls from function_graph and scheduling from
 * sched_switch, so the reader writes those records: funcgraph_entry/exit
 * per user call, its function given a made-up address registered with
 * libtraceevent under the symbol's name (fmt_info.user_funcs tells the
 * decoder they are user functions), and a sched_switch per switch out (the
 * task as prev, blocked unless preempted) and per switch in (as next).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "backend.h"
#include "events.h"
#include "file.h"
#include "fmt.h"
#include "grow.h"
#include "text-formats.h"
#include "uftrace.h"

#define UFT_MAGIC "Ftrace!" /* 8 bytes with its NUL */
#define UFT_HDR_BYTES 40
#define REC_MAGIC 5
/* made-up function addresses: in the kernel's half, where no user address is */
#define FUNC_BASE 0xffffffe000000000ULL
#define ARGS_MAX 4096 /* bytes of argument data one record may carry */
#define EVENT_ID_MAX 4000000 /* uftrace's event ids: SDT from 0, builtin, perf, user, extern data */
#define CACHE_SLOTS 4096

enum { U_ENTRY, U_EXIT, U_LOST, U_EVENT };
/* info's feature bits (uftrace.h's enum uftrace_feat_bits) */
enum {
	FEAT_KERNEL = 1 << 2,	    /* uftrace -k traced the kernel too */
	FEAT_SYM_REL = 1 << 5,	    /* NAME.sym addresses relative to the module's load address */
	FEAT_EST_RETURN = 1 << 11,  /* -e: entries only, uftrace makes the returns up */
};
enum { PERF_COMM = 3, PERF_SWITCH = 14 };
enum { MISC_SWITCH_OUT = 0x2000, MISC_SWITCH_PREEMPT = 0x4000 };
enum { ID_EXIT = TF_ID_FG_EXIT, ID_ENTRY = TF_ID_FG_ENTRY, ID_SWITCH = TF_ID_SWITCH };

/*
 * The exit without calltime and rettime (the 6.1 layout has them): the
 * exit's own time is the return, as the entry's is the call.
 */
static const char f_exit[] = "name: funcgraph_exit\nID: 10\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"<-- %ps (%d)\", (void *)REC->func, REC->depth\n";

struct uftrace_symbol {
	uint64_t addr, size; /* relative to the module's load address */
	char *name;
};

struct uftrace_module {
	char *name; /* basename of its path: NAME.sym */
	struct uftrace_symbol *syms;
	int nsyms, cap;
	uint64_t base; /* made-up address of syms[0]; syms[i] at base + 16 i */
};

struct uftrace_map {
	uint64_t start, end;
	int mod;
};

struct uftrace_session {
	char sid[40];
	int32_t pid;
	uint64_t ts;
	char *exename;
	struct uftrace_map *maps;
	int nmaps, cap;
};

struct utask {
	int32_t tid, pid;
	uint64_t ts;
	int sess; /* its first program's session: its name */
	int cpu;  /* where it last came on a CPU */
	char comm[16];
};

/* One file of events, with its next record decoded. */
struct ustream {
	char *path;
	const uint8_t *p;
	uint64_t len, off;
	int task; /* index into tasks, -1 for perf-cpuN.dat */
	int cpu;  /* perf-cpuN.dat: N */
	/* the next record to yield */
	uint64_t ts;
	uint16_t id;
	int32_t pid, prev, next, depth;
	int64_t state;
	uint64_t addr;
	uint64_t missed; /* LOST records before it */
	uint64_t prev_ts;
};

struct uft {
	char *dir;
	struct uftrace_module *mods;
	int nmods, mods_cap;
	struct uftrace_session *sess;
	int nsess, sess_cap;
	struct utask *tasks; /* by tid */
	int ntasks, tasks_cap;
	struct { int32_t pid, ppid; } *forks;
	int nforks, forks_cap;
	struct ustream *st;
	int nst, st_cap;
	int *heap, nheap;
	struct { uint64_t key; int sess; uint64_t func; } cache[CACHE_SLOTS];
	uint8_t rec[64];
	uint64_t events, arg_blocks, lost;
	uint64_t feat; /* info's feature bits */
	char *info_text, version[160], uname[128], lacks[256], skipped[160];
};

#define UFAIL(path, ...) err_setf(err, (path), __VA_ARGS__)

/* DIR/NAME, malloc'd, or NULL. */
static char *join(const char *dir, const char *name)
{
	char *s;

	return asprintf(&s, "%s/%s", dir, name) < 0 ? NULL : s;
}

/*
 * The most a metadata file of a recording may hold: uftrace writes a few
 * KiB of info, a line a task or session in task.txt, a process's maps in
 * sid-*.map and a line a symbol in NAME.sym; a file past these is no
 * uftrace's (a sparse file, a link to a huge one), and is refused rather
 * than read whole.
 */
#define MAX_INFO (1ULL << 20)
#define MAX_TASKS (256ULL << 20)
#define MAX_MAP (64ULL << 20)
#define MAX_SYMS (1ULL << 30)

/*
 * The whole text file DIR/NAME (@what, at most @max bytes: fmt_file_read()),
 * NUL-terminated; NULL with @err set (and errno ENOENT when there is none).
 */
static char *slurp(const char *dir, const char *name, const char *what, uint64_t max,
		   size_t *len, struct err_msg *err)
{
	char *path = join(dir, name), *buf;
	int e;

	if (!path) {
		UFAIL(dir, "out of memory");
		return NULL;
	}
	buf = fmt_file_read(path, what, max, len, err);
	e = errno;
	free(path);
	errno = e;
	return buf;
}

/*
 * A directory with a file "info": uftrace's, or refused by uft_open() for
 * what its info is (a FIFO, another program's file, uftrace's of another
 * version). Nothing is opened here, so a FIFO cannot hang the test.
 */
bool fmt_uftrace_dir(const char *path)
{
	char *info = join(path, "info");
	struct stat st;
	bool yes = info && !stat(path, &st) && S_ISDIR(st.st_mode) && !lstat(info, &st);

	free(info);
	return yes;
}

/* ---- info and task.txt ----------------------------------------------------- */

/* The value of "KEY:" (or "KEY=" inside it) in the info text, up to the line's end, in @buf. */
static const char *info_value(const char *text, const char *key, char *buf, size_t n)
{
	size_t k = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, k)) {
			const char *e = strchr(l + k, '\n');
			snprintf(buf, n, "%.*s", (int)(e ? e - l - k : (long)strlen(l + k)), l + k);
			return buf;
		}
	return NULL;
}

static int read_info(struct fmt_reader *r, struct uft *u, struct err_msg *err)
{
	char *path = join(u->dir, "info"), buf[128];
	size_t len = 0;
	char *t = slurp(u->dir, "info", "uftrace info file", MAX_INFO, &len, err);
	uint32_t version;
	uint8_t endian, cls;
	int rc = -1;

	if (!t || !path)
		goto out;
	if (len >= 8 && memcmp(t, UFT_MAGIC, 8)) {
		UFAIL(path, "not a uftrace info file (no magic \"%s\")", UFT_MAGIC);
		goto out;
	}
	if (len < UFT_HDR_BYTES) {
		UFAIL(path, "truncated header (%zu bytes, a uftrace header has %d)", len,
		      UFT_HDR_BYTES);
		goto out;
	}
	memcpy(&version, t + 8, 4);
	endian = t[14];
	cls = t[15];
	if (endian != 1) {
		UFAIL(path, "byte order %u: only little-endian recordings are read", endian);
		goto out;
	}
	if (version < 3 || version > 4 || (cls != 1 && cls != 2)) {
		UFAIL(path, "unsupported uftrace file version %u (class %u)", version, cls);
		goto out;
	}
	memcpy(&u->feat, t + 16, 8);
	if (u->feat & FEAT_EST_RETURN) {
		UFAIL(path, "recorded with uftrace --estimate-return (-e): entries only, the "
		      "return times are uftrace's guesses: not supported");
		goto out;
	}
	if (!(u->feat & FEAT_SYM_REL)) {
		UFAIL(path, "symbol addresses not relative to their module (feature bits %#" PRIx64
		      ", no SYM_REL_ADDR): not supported", u->feat);
		goto out;
	}
	r->info.version = (int)version;
	r->info.long_size = cls == 2 ? 8 : 4;
	u->info_text = strdup(t + UFT_HDR_BYTES);
	if (!u->info_text) {
		UFAIL(path, "out of memory");
		goto out;
	}
	if (info_value(u->info_text, "uftrace_version:", buf, sizeof(buf)))
		snprintf(u->version, sizeof(u->version), "uftrace %s", buf);
	if (info_value(u->info_text, "osinfo:kernel=", buf, sizeof(buf)))
		snprintf(u->uname, sizeof(u->uname), "%s", buf);
	if (info_value(u->info_text, "cpuinfo:nr_cpus=", buf, sizeof(buf)))
		r->info.cpus = atoi(buf);
	rc = 0;
out:
	free(t);
	free(path);
	return rc;
}

/* The quoted string after "KEY=\"" in line @l, malloc'd; NULL if absent. */
static char *line_str(const char *l, const char *key)
{
	const char *p = strstr(l, key), *e;

	if (!p)
		return NULL;
	p += strlen(key);
	e = strchr(p, '"');
	return e ? strndup(p, e - p) : NULL;
}

static int find_mod(struct uft *u, const char *path);

static int add_map(struct uft *u, struct uftrace_session *s, uint64_t start, uint64_t end,
		   const char *path)
{
	int m = find_mod(u, path);

	if (m < 0 || GROW(s->maps, s->nmaps, s->cap, 16))
		return -1;
	s->maps[s->nmaps++] = (struct uftrace_map){start, end, m};
	return 0;
}

/* sid-ID.map: the mapped files of a session (anonymous and [stack] lines skipped). */
static int read_map(struct uft *u, struct uftrace_session *s, struct err_msg *err)
{
	char name[64], *t, *l, *nl;
	size_t len;

	snprintf(name, sizeof(name), "sid-%s.map", s->sid);
	t = slurp(u->dir, name, "uftrace map file", MAX_MAP, &len, err);
	if (!t)
		return -1;
	for (l = t; *l; l = nl ? nl + 1 : l + strlen(l)) {
		unsigned long long a, b;
		char path[4096];

		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (sscanf(l, "%llx-%llx %*s %*x %*s %*d %4095s", &a, &b, path) == 3 &&
		    path[0] == '/' && add_map(u, s, a, b, path)) {
			free(t);
			return UFAIL(u->dir, "out of memory");
		}
	}
	free(t);
	return 0;
}

static int add_task(struct uft *u, int32_t tid, int32_t pid, uint64_t ts)
{
	if (GROW(u->tasks, u->ntasks, u->tasks_cap, 16))
		return -1;
	u->tasks[u->ntasks++] = (struct utask){tid, pid, ts, 0, 0, ""};
	return 0;
}

/*
 * One SESS, TASK, FORK or DLOP line of task.txt (@l, line @n of @path).
 * uftrace refuses a file with a line of these kinds that lacks a field of
 * its own, and passes over lines of other kinds; so does this. 0, -1 when
 * out of memory, -2 with @err set.
 */
static int task_line(struct uft *u, const char *l, int n, const char *path,
		     struct err_msg *err)
{
	unsigned long long sec, ns, base;
	int tid, pid;
	char sid[40];

	if (!strncmp(l, "SESS ", 5)) {
		struct uftrace_session *s;

		if (sscanf(l + 5, "timestamp=%llu.%llu %*[^i]id=%d sid=%39[0-9a-fA-F]", &sec, &ns, &pid,
			   sid) != 4 || !strstr(l, "exename=\""))
			return UFAIL(path, "line %d: a SESS line without its timestamp, pid, sid"
					   " or exename", n), -2;
		if (GROW(u->sess, u->nsess, u->sess_cap, 4))
			return -1;
		s = memset(&u->sess[u->nsess++], 0, sizeof(*s));
		memcpy(s->sid, sid, sizeof(sid));
		s->pid = pid;
		s->ts = sec * 1000000000ULL + ns;
		s->exename = line_str(l, "exename=\"");
		return read_map(u, s, err) ? -2 : 0;
	}
	if (!strncmp(l, "TASK ", 5)) {
		if (sscanf(l + 5, "timestamp=%llu.%llu tid=%d pid=%d", &sec, &ns, &tid, &pid) != 4)
			return UFAIL(path, "line %d: a TASK line without its timestamp, tid or pid",
				     n), -2;
		return add_task(u, tid, pid, sec * 1000000000ULL + ns);
	}
	if (!strncmp(l, "FORK ", 5)) {
		/* a new process: "pid" is the child (its own thread group), "ppid"
		   its parent; it is a task even if it never writes a TASK line
		   (one that does not exec), as uftrace's create_task() makes it */
		int ppid;

		if (sscanf(l + 5, "timestamp=%llu.%llu pid=%d ppid=%d", &sec, &ns, &pid, &ppid) != 4)
			return UFAIL(path, "line %d: a FORK line without its timestamp, pid or ppid",
				     n), -2;
		if (GROW(u->forks, u->nforks, u->forks_cap, 4))
			return -1;
		u->forks[u->nforks].pid = pid;
		u->forks[u->nforks++].ppid = ppid;
		return add_task(u, pid, pid, sec * 1000000000ULL + ns);
	}
	if (!strncmp(l, "DLOP ", 5)) {
		char *lib;
		int rc = 0;

		if (sscanf(l + 5, "timestamp=%llu.%llu tid=%d sid=%39[0-9a-fA-F] base=%llx", &sec, &ns,
			   &tid, sid, &base) != 5 || !(lib = line_str(l, "libname=\"")))
			return UFAIL(path, "line %d: a DLOP line without its timestamp, tid, sid,"
					   " base or libname", n), -2;
		for (int i = 0; i < u->nsess; i++)
			if (!strcmp(sid, u->sess[i].sid))
				/* its end is known once its symbols are: see lib_ends() */
				rc = add_map(u, &u->sess[i], (uint64_t)base, 0, lib);
		free(lib);
		return rc;
	}
	return 0;
}

/* by tid alone: task_of() looks a thread up by its tid (tid_cmp() would need its time too) */
static int tid_only_cmp(const void *a, const void *b)
{
	const struct utask *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int tid_cmp(const void *a, const void *b)
{
	const struct utask *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static struct utask *task_of(struct uft *u, int32_t tid)
{
	struct utask key = {.tid = tid};

	return bsearch(&key, u->tasks, u->ntasks, sizeof(key), tid_only_cmp);
}

/*
 * uftrace reads the threads info's "taskinfo:tids=" lists (made from
 * task.txt's TASK and FORK lines when the recording ended): each must be a
 * task here, and as many, or darc would read other threads than uftrace.
 */
static int check_tids(struct uft *u, struct err_msg *err)
{
	const char *p = strstr(u->info_text, "\ntaskinfo:tids=");
	char *path = join(u->dir, "info"), *e;
	int n = 0, rc = 0;

	if (!p) /* an info without TASKINFO: task.txt alone says */
		goto out;
	for (p += 15; !rc && *p && *p != '\n'; p = *e == ',' ? e + 1 : e, n++) {
		long tid = strtol(p, &e, 10);
		if (e == p || (*e != ',' && *e != '\n' && *e))
			rc = UFAIL(path, "bad taskinfo:tids line");
		else if (!task_of(u, (int32_t)tid))
			rc = UFAIL(path, "thread %ld of taskinfo:tids has no TASK or FORK line in "
				   "task.txt", tid);
	}
	if (!rc && n != u->ntasks)
		rc = UFAIL(path, "taskinfo:tids lists %d threads, task.txt's TASK and FORK lines "
			   "%d", n, u->ntasks);
out:
	free(path);
	return rc;
}

static int read_tasks(struct uft *u, struct err_msg *err)
{
	char *path = join(u->dir, "task.txt"), *l, *nl;
	size_t len;
	char *t = slurp(u->dir, "task.txt", "uftrace task file", MAX_TASKS, &len, err);
	int rc = 0, n;

	if (!t || !path) {
		free(t);
		free(path);
		return -1;
	}
	for (l = t, n = 1; *l && !rc; l = nl ? nl + 1 : l + strlen(l), n++) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		rc = task_line(u, l, n, path, err);
	}
	if (rc == -1)
		UFAIL(path, "out of memory");
	else if (!rc && (!u->nsess || !u->ntasks))
		rc = UFAIL(path, "no %s line: not a finished uftrace recording",
			   u->nsess ? "TASK or FORK" : "SESS");
	free(t);
	free(path);
	if (rc)
		return -1;
	/* a thread that ran exec has a TASK line per program, a forked process
	   its FORK line too: one file, its first line says its process */
	qsort(u->tasks, u->ntasks, sizeof(*u->tasks), tid_cmp);
	for (int i = 1, k = 0; i <= u->ntasks; i++)
		if (i == u->ntasks)
			u->ntasks = k + 1;
		else if (u->tasks[i].tid != u->tasks[k].tid)
			u->tasks[++k] = u->tasks[i];
	return check_tids(u, err);
}


/*
 * The session of process @pid at @ts: its own last before @ts, else (a
 * forked child before it runs exec) its parent's then; else its first.
 */
static int sess_of(struct uft *u, int32_t pid, uint64_t ts)
{
	int any = -1;

	for (int hop = 0; hop < 16; hop++) {
		int best = -1, i;

		for (i = 0; i < u->nsess; i++) {
			if (u->sess[i].pid != pid)
				continue;
			if (any < 0)
				any = i;
			if (u->sess[i].ts <= ts && (best < 0 || u->sess[i].ts >= u->sess[best].ts))
				best = i;
		}
		if (best >= 0)
			return best;
		for (i = 0; i < u->nforks && u->forks[i].pid != pid; i++)
			;
		if (i == u->nforks)
			break;
		pid = u->forks[i].ppid;
	}
	return any >= 0 ? any : 0;
}

/* ---- symbols ------------------------------------------------------------------ */

static int find_mod(struct uft *u, const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	for (int i = 0; i < u->nmods; i++)
		if (!strcmp(u->mods[i].name, b))
			return i;
	if (GROW(u->mods, u->nmods, u->mods_cap, 8))
		return -1;
	memset(&u->mods[u->nmods], 0, sizeof(*u->mods));
	u->mods[u->nmods].name = strdup(b);
	return u->mods[u->nmods].name ? u->nmods++ : -1;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct uftrace_symbol *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * One line "ADDR [SIZE] TYPE NAME" of NAME.sym. Functions (T, t, W, w, P
 * for a PLT entry) are kept; '?' lines and __sym_end/__dynsym_end end the
 * symbol before them, which is how a symbol without size gets one.
 */
static int sym_line(struct uftrace_module *m, char *l)
{
	unsigned long long a, size = 0;
	char type, *p, *name;

	a = strtoull(l, &p, 16);
	if (p == l || *p++ != ' ')
		return 0;
	if (p[0] && p[1] != ' ') { /* a size column */
		size = strtoull(p, &p, 16);
		if (*p++ != ' ')
			return 0;
	}
	if (!*p) /* "ADDR " and the line's end: no type, nothing past the NUL to read */
		return 0;
	type = *p++;
	if (*p++ != ' ')
		return 0;
	name = p;
	p = strchr(name, '\t');
	if (p)
		*p = 0;
	if (m->nsyms && !m->syms[m->nsyms - 1].size && a > m->syms[m->nsyms - 1].addr)
		m->syms[m->nsyms - 1].size = a - m->syms[m->nsyms - 1].addr;
	if (type == '?' || !strcmp(name, "__sym_end") || !strcmp(name, "__dynsym_end") ||
	    !strchr("TtWwP", type))
		return 0;
	if (GROW(m->syms, m->nsyms, m->cap, 256))
		return -1;
	m->syms[m->nsyms].addr = a;
	m->syms[m->nsyms].size = size;
	m->syms[m->nsyms].name = strdup(name);
	return m->syms[m->nsyms++].name ? 0 : -1;
}

/* NAME.sym of module @m, if uftrace saved one (else its calls are named by address). */
static int read_syms(struct uft *u, struct uftrace_module *m, struct err_msg *err)
{
	char *file, *t, *l, *nl;
	size_t len;

	if (asprintf(&file, "%s.sym", m->name) < 0)
		return UFAIL(u->dir, "out of memory");
	t = slurp(u->dir, file, "uftrace symbol file", MAX_SYMS, &len, err);
	free(file);
	if (!t) /* none saved: its calls are named by address; any other failure is said */
		return errno == ENOENT ? 0 : -1;
	for (l = t; *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (*l != '#' && sym_line(m, l)) {
			free(t);
			return UFAIL(u->dir, "out of memory");
		}
	}
	free(t);
	if (m->nsyms)
		qsort(m->syms, m->nsyms, sizeof(*m->syms), sym_cmp);
	return 0;
}

/* Give every symbol its made-up address, and tell libtraceevent and the module map. */
static int register_syms(struct fmt_reader *r, struct uft *u, struct err_msg *err)
{
	uint64_t next = FUNC_BASE;

	for (int i = 0; i < u->nmods; i++) {
		struct uftrace_module *m = &u->mods[i];

		if (read_syms(u, m, err))
			return -1;
		m->base = next;
		for (int k = 0; k < m->nsyms; k++) {
			char line[600];

			snprintf(line, sizeof(line), "%" PRIx64 " t %.256s\t[%.256s]\n",
				 (uint64_t)(next + 16 * k), m->syms[k].name, m->name);
			if (tep_register_function(r->tep, m->syms[k].name, next + 16ULL * k, m->name) ||
			    kmod_parse(&r->kmods, line))
				return UFAIL(u->dir, "out of memory");
		}
		next += 16ULL * m->nsyms + 16;
	}
	/* libtraceevent finds a function only below the next one */
	if (tep_register_function(r->tep, "_etext", next, NULL))
		return UFAIL(u->dir, "out of memory");
	r->ksyms_done = true; /* nothing else to load */
	return 0;
}

/* A dlopen'd library's map ends where its last symbol does. */
static void lib_ends(struct uft *u)
{
	for (int i = 0; i < u->nsess; i++)
		for (int k = 0; k < u->sess[i].nmaps; k++) {
			struct uftrace_map *mp = &u->sess[i].maps[k];
			struct uftrace_module *m = &u->mods[mp->mod];

			if (!mp->end && m->nsyms)
				mp->end = mp->start + m->syms[m->nsyms - 1].addr +
					  m->syms[m->nsyms - 1].size + 1;
		}
}

/*
 * The address the analysis sees for user address @addr of session @s: the
 * made-up one of its symbol, or @addr itself where no symbol covers it
 * (named by its address then).
 */
static uint64_t func_of(struct uft *u, int s, uint64_t addr)
{
	uint64_t key = addr | (uint64_t)s << 48; /* user addresses have 48 bits */
	unsigned slot = (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> 52) & (CACHE_SLOTS - 1);
	struct uftrace_session *ss = &u->sess[s];
	uint64_t f = addr;

	if (u->cache[slot].key == key + 1)
		return u->cache[slot].func;
	for (int i = 0; i < ss->nmaps; i++) {
		const struct uftrace_map *mp = &ss->maps[i];
		const struct uftrace_module *m = &u->mods[mp->mod];
		int lo = 0, hi = m->nsyms - 1;
		uint64_t rel = addr - mp->start;

		if (addr < mp->start || addr >= mp->end)
			continue;
		while (lo <= hi) { /* the last symbol at or below rel */
			int mid = (lo + hi) / 2;
			if (m->syms[mid].addr <= rel)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		if (hi >= 0 && rel < m->syms[hi].addr + (m->syms[hi].size ? m->syms[hi].size : 1))
			f = m->base + 16ULL * hi;
		break;
	}
	u->cache[slot].key = key + 1;
	u->cache[slot].func = f;
	return f;
}

/* ---- the event files -------------------------------------------------------- */

static int add_stream(struct uft *u, const char *name, int task, int cpu, struct err_msg *err)
{
	struct ustream *s;
	uint64_t size;
	int fd;

	if (GROW(u->st, u->nst, u->st_cap, 16))
		return UFAIL(u->dir, "out of memory");
	s = memset(&u->st[u->nst], 0, sizeof(*s));
	s->task = task;
	s->cpu = cpu;
	s->path = join(u->dir, name);
	if (!s->path)
		return UFAIL(u->dir, "out of memory");
	u->nst++;
	/* a regular file only: a FIFO or a device is refused, never read */
	fd = fmt_file_open_regular(s->path, "uftrace data file", UINT64_MAX / 2, &size, err);
	if (fd < 0) /* a thread that called nothing traced has no file */
		return errno == ENOENT && task >= 0 ? 0 : -1;
	s->len = size;
	if (s->len) {
		void *p = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			close(fd);
			return UFAIL(s->path, "cannot map: %s", strerror(errno));
		}
		s->p = p;
	}
	close(fd);
	return 0;
}

/* Is @addr inside a module some session mapped (a dlopen'd one without symbols: past its start)? */
static bool mapped(const struct uft *u, uint64_t addr)
{
	for (int i = 0; i < u->nsess; i++)
		for (int k = 0; k < u->sess[i].nmaps; k++) {
			const struct uftrace_map *mp = &u->sess[i].maps[k];
			if (addr >= mp->start && (!mp->end || addr < mp->end))
				return true;
		}
	return false;
}

/*
 * Could a record start at offset @o of @s, after one at time @t? Its magic;
 * a LOST record has time 0 and no data (libmcount writes it so), the others
 * a time not before @t; an entry's or exit's address in a mapped module, an
 * event's id below EVENT_ID_MAX; and, @hops more times, the record after
 * it as well (unless this one has data after it, or the file ends there).
 */
static bool rec_plausible(const struct uft *u, const struct ustream *s, uint64_t o, uint64_t t,
			  int hops)
{
	uint64_t tt, w, addr;
	int type, more;

	if (o == s->len)
		return true;
	if (o + 16 > s->len)
		return false;
	memcpy(&tt, s->p + o, 8);
	memcpy(&w, s->p + o + 8, 8);
	type = (int)(w & 3);
	more = (int)((w >> 2) & 1);
	addr = w >> 16;
	if (((w >> 3) & 7) != REC_MAGIC)
		return false;
	if (type == U_LOST ? tt || more : tt < t)
		return false;
	if (type == U_EVENT ? addr >= EVENT_ID_MAX : type != U_LOST && !mapped(u, addr))
		return false;
	if (more || !hops)
		return true;
	return rec_plausible(u, s, o + 16, type == U_LOST ? t : tt, hops - 1);
}

/*
 * Pass over the argument or return-value data after a record with the
 * "more" bit. An event's data says its length; arguments do not, their
 * layout is in the recording's argument specs (patterns over function
 * names, auto-args lists, formats), so the reader looks for where the next
 * record starts: the first 8-byte step where rec_plausible() holds for it
 * and the two after it. Argument data is a few words (strings are cut
 * short by libmcount), so a record found far away, or none, is an error.
 */
static int skip_more(struct uft *u, struct ustream *s, int type, uint64_t t, struct err_msg *err)
{
	uint64_t o = s->off;

	u->arg_blocks++;
	if (type == U_EVENT) {
		uint16_t n;
		if (s->len - o < 2)
			return UFAIL(s->path, "truncated event data at offset %" PRIu64, o);
		memcpy(&n, s->p + o, 2);
		o += (n + 2 + 7) & ~7ULL;
		if (o > s->len)
			return UFAIL(s->path, "truncated event data at offset %" PRIu64, s->off);
		s->off = o;
		return 0;
	}
	for (o += 8; o <= s->len && o - s->off <= ARGS_MAX; o += 8)
		if (rec_plausible(u, s, o, t, 2)) {
			s->off = o;
			return 0;
		}
	return UFAIL(s->path, "no record within %d bytes after the argument data at offset %" PRIu64,
		     ARGS_MAX, s->off);
}

/* The next call record of a thread's file into @s. 1, 0 at the end, or -1. */
static int task_step(struct uft *u, struct ustream *s, struct err_msg *err)
{
	for (;;) {
		uint64_t t, w, o = s->off;
		int type;

		if (o == s->len)
			return 0;
		if (s->len - o < 16)
			return UFAIL(s->path, "truncated record at offset %" PRIu64 " (%" PRIu64
				     " bytes left, a record has 16)", o, s->len - o);
		memcpy(&t, s->p + o, 8);
		memcpy(&w, s->p + o + 8, 8);
		if (((w >> 3) & 7) != REC_MAGIC)
			return UFAIL(s->path, "bad record at offset %" PRIu64 " (magic %u, not %u)",
				     o, (unsigned)((w >> 3) & 7), REC_MAGIC);
		type = (int)(w & 3);
		if (type != U_LOST && t < s->prev_ts)
			return UFAIL(s->path, "record at offset %" PRIu64 " goes back in time", o);
		s->off = o + 16;
		if (((w >> 2) & 1) && skip_more(u, s, type, t, err))
			return -1;
		if (type == U_LOST) {
			s->missed += w >> 16 ? w >> 16 : 1;
			u->lost += w >> 16;
			continue;
		}
		s->prev_ts = t;
		if (type == U_EVENT) {
			u->events++;
			continue;
		}
		s->ts = t;
		s->id = type == U_ENTRY ? ID_ENTRY : ID_EXIT;
		s->depth = (int32_t)((w >> 6) & 0x3ff);
		s->addr = w >> 16;
		return 1;
	}
}

/* The next context switch of a perf-cpuN.dat into @s. 1, 0 at the end, or -1. */
static int perf_step(struct uft *u, struct ustream *s, struct err_msg *err)
{
	(void)u;
	for (;;) {
		uint64_t o = s->off;
		uint32_t type, tid;
		uint16_t misc, size;

		if (o == s->len)
			return 0;
		if (s->len - o < 8)
			return UFAIL(s->path, "truncated perf record at offset %" PRIu64, o);
		memcpy(&type, s->p + o, 4);
		memcpy(&misc, s->p + o + 4, 2);
		memcpy(&size, s->p + o + 6, 2);
		if (size < 8 || size > s->len - o)
			return UFAIL(s->path, "truncated perf record at offset %" PRIu64
				     " (size %u, %" PRIu64 " bytes left)", o, size, s->len - o);
		s->off = o + size;
		if (type != PERF_SWITCH)
			continue;
		if (size < 24) /* header, then sample_id: pid, tid, time */
			return UFAIL(s->path, "short switch record at offset %" PRIu64, o);
		memcpy(&tid, s->p + o + 12, 4);
		memcpy(&s->ts, s->p + o + 16, 8);
		s->id = ID_SWITCH;
		/* the other side of the switch is unknown (perf follows the traced
		   tasks only): the idle task stands for it, but the event is the
		   traced task's, so that no task 0 appears */
		s->pid = (int32_t)tid;
		if (misc & MISC_SWITCH_OUT) {
			s->prev = (int32_t)tid;
			s->next = 0;
			/* the kernel says preempted only when the task was runnable */
			s->state = misc & MISC_SWITCH_PREEMPT ? 0 : 1;
		} else {
			s->prev = 0;
			s->next = (int32_t)tid;
			s->state = 0;
		}
		return 1;
	}
}

static int step(struct uft *u, struct ustream *s, struct err_msg *err)
{
	return s->task >= 0 ? task_step(u, s, err) : perf_step(u, s, err);
}

/* The names perf's COMM records gave the threads (the last one each). */
static int read_comms(struct uft *u, struct ustream *s, struct err_msg *err)
{
	for (uint64_t o = 0; o + 8 <= s->len;) {
		uint32_t type, tid;
		uint16_t size;
		struct utask *tk;

		memcpy(&type, s->p + o, 4);
		memcpy(&size, s->p + o + 6, 2);
		if (size < 8 || size > s->len - o)
			return UFAIL(s->path, "truncated perf record at offset %" PRIu64, o);
		if (type == PERF_COMM && size >= 16 + 16) { /* pid, tid, comm, sample_id */
			memcpy(&tid, s->p + o + 12, 4);
			tk = task_of(u, (int32_t)tid);
			if (tk)
				snprintf(tk->comm, sizeof(tk->comm), "%.*s", size - 16 - 16,
					 (const char *)s->p + o + 16);
		}
		o += size;
	}
	return 0;
}

static bool heap_less(const struct uft *u, int a, int b)
{
	const struct ustream *x = &u->st[a], *y = &u->st[b];

	return x->ts < y->ts || (x->ts == y->ts && a < b);
}

static void heap_down(struct uft *u, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < u->nheap && heap_less(u, u->heap[l], u->heap[m]))
			m = l;
		if (l + 1 < u->nheap && heap_less(u, u->heap[l + 1], u->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = u->heap[i];
		u->heap[i] = u->heap[m];
		u->heap[m] = t;
		i = m;
	}
}

/* Every thread's file and every perf-cpuN.dat, each at its first record. */
static int open_streams(struct uft *u, struct err_msg *err)
{
	DIR *d = opendir(u->dir);
	struct dirent *de;
	char name[64];
	int cpu, n, rc = 0;

	if (!d)
		return UFAIL(u->dir, "cannot open the directory: %s", strerror(errno));
	for (int i = 0; i < u->ntasks && !rc; i++) {
		snprintf(name, sizeof(name), "%d.dat", (int)u->tasks[i].tid);
		rc = add_stream(u, name, i, -1, err);
	}
	/* n stays 0 unless ".dat" followed the number ("perf-cpu5" alone sets none) */
	while (!rc && (de = readdir(d)))
		if ((n = 0, sscanf(de->d_name, "perf-cpu%d.dat%n", &cpu, &n)) == 1 && n &&
		    !de->d_name[n] &&
		    cpu >= 0 && cpu < 65536 && !(rc = add_stream(u, de->d_name, -1, cpu, err)))
			rc = read_comms(u, &u->st[u->nst - 1], err);
	closedir(d);
	if (rc)
		return -1;
	u->heap = calloc(u->nst ? u->nst : 1, sizeof(*u->heap));
	if (!u->heap)
		return UFAIL(u->dir, "out of memory");
	for (int i = 0; i < u->nst; i++) {
		int k = step(u, &u->st[i], err);
		if (k < 0)
			return -1;
		if (k)
			u->heap[u->nheap++] = i;
	}
	for (int i = u->nheap / 2 - 1; i >= 0; i--)
		heap_down(u, i);
	return 0;
}

/* The stream of CPU @cpu in r->streams (one per perf-cpuN.dat, else CPU 0). */
static struct stream *cpu_stream(struct fmt_reader *r, int cpu)
{
	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].cpu == cpu)
			return &r->streams[i];
	return NULL;
}

static int make_info(struct fmt_reader *r, struct uft *u, struct err_msg *err)
{
	struct fmt_buffer *b;
	int n = 0;

	for (int i = 0; i < u->nst; i++)
		n += u->st[i].task < 0;
	r->info.buffers = calloc(1, sizeof(*r->info.buffers));
	r->streams = calloc(n ? n : 1, sizeof(*r->streams));
	if (!r->info.buffers || !r->streams)
		return UFAIL(u->dir, "out of memory");
	r->info.nbuffers = 1;
	b = &r->info.buffers[0];
	b->name = strdup("");
	b->clock = strdup("mono");
	b->cpu_ids = calloc(n ? n : 1, sizeof(*b->cpu_ids));
	b->bytes = calloc(n ? n : 1, sizeof(*b->bytes));
	if (!b->name || !b->clock || !b->cpu_ids || !b->bytes)
		return UFAIL(u->dir, "out of memory");
	for (int i = 0; i < u->nst || (!n && !b->ncpus); i++) {
		const struct ustream *s = i < u->nst ? &u->st[i] : NULL;
		if (s && s->task >= 0)
			continue;
		b->cpu_ids[b->ncpus] = s ? s->cpu : 0;
		b->bytes[b->ncpus] = s ? s->len : 0;
		r->streams[b->ncpus] = (struct stream){.cpu = b->cpu_ids[b->ncpus], .index = b->ncpus};
		b->ncpus++;
	}
	r->nstreams = b->ncpus;
	r->info.clock = "mono";
	r->info.compression = "none";
	r->info.page_size = 4096;
	r->info.uname = u->uname[0] ? u->uname : NULL;
	r->info.tracer_version = u->version[0] ? u->version : NULL;
	r->info.user_funcs = true;
	snprintf(u->lacks, sizeof(u->lacks),
		 "%s, interrupts, system calls, wake-ups (who ended a block), "
		 "untraced tasks' context switches (who preempted a call)%s",
		 u->feat & FEAT_KERNEL ? "kernel functions (kernel-cpu*.dat of uftrace -k is not read)"
				       : "kernel functions",
		 n ? "" : ", context switches (no perf-cpu*.dat: recorded without them)");
	r->info.lacks = u->lacks;
	return 0;
}

/* Each thread's name: perf's COMM, else its program's. */
static void register_comms(struct fmt_reader *r, struct uft *u)
{
	for (int i = 0; i < u->ntasks; i++) {
		struct utask *t = &u->tasks[i];
		const char *exe = u->sess[t->sess].exename, *b;

		if (!t->comm[0] && exe) {
			b = strrchr(exe, '/');
			snprintf(t->comm, sizeof(t->comm), "%s", b ? b + 1 : exe);
		}
		if (t->comm[0])
			tep_register_comm(r->tep, t->comm, t->tid);
	}
}

static int uft_open(struct fmt_reader *r, struct err_msg *err)
{
	struct uft *u = calloc(1, sizeof(*u));

	if (!u)
		return FAIL("out of memory");
	r->be_priv = u;
	u->dir = r->path;
	r->info.page_size = 4096;
	if (read_info(r, u, err) || fmt_events_init_tep(r, err) || read_tasks(u, err))
		return -1;
	for (int i = 0; i < u->ntasks; i++)
		u->tasks[i].sess = sess_of(u, u->tasks[i].pid, u->tasks[i].ts);
	if (register_syms(r, u, err))
		return -1;
	lib_ends(u);
	if (fmt_events_add_format(r, "ftrace", tf_fg_entry, sizeof(tf_fg_entry) - 1, err) ||
	    fmt_events_add_format(r, "ftrace", f_exit, sizeof(f_exit) - 1, err) ||
	    fmt_events_add_format(r, "sched", tf_switch, sizeof(tf_switch) - 1, err) ||
	    open_streams(u, err) || make_info(r, u, err))
		return -1;
	register_comms(r, u);
	return 0;
}

/* @s's record as the kernel would have written it, into u->rec. */
static uint32_t build(struct uft *u, struct ustream *s, struct utask *tk)
{
	uint8_t *p = memset(u->rec, 0, sizeof(u->rec));

	memcpy(p, &s->id, 2);
	if (s->id == ID_SWITCH) {
		memcpy(p + 4, &s->pid, 4);
		memcpy(p + 24, &s->prev, 4);
		memcpy(p + 32, &s->state, 8);
		memcpy(p + 56, &s->next, 4);
		return 64;
	}
	/* the program the thread ran then (exec starts a new session) */
	uint64_t f = func_of(u, sess_of(u, tk->pid, s->ts), s->addr);
	memcpy(p + 4, &tk->tid, 4);
	memcpy(p + 8, &f, 8);
	memcpy(p + 16, &s->depth, 4);
	return 24;
}

static int uft_next(struct fmt_reader *r, struct fmt_event *ev, struct err_msg *err)
{
	struct uft *u = r->be_priv;
	struct ustream *s;
	struct utask *tk = NULL;
	struct stream *cs;
	int k;

	if (!u->nheap) {
		snprintf(u->skipped, sizeof(u->skipped),
			 "%" PRIu64 " event records (uftrace --event), %" PRIu64
			 " blocks of argument or event data", u->events, u->arg_blocks);
		r->info.skipped = u->events || u->arg_blocks ? u->skipped : NULL;
		return 0;
	}
	s = &u->st[u->heap[0]];
	memset(ev, 0, sizeof(*ev));
	ev->ts = s->ts;
	if (s->task >= 0) {
		tk = &u->tasks[s->task];
		ev->cpu = (uint16_t)tk->cpu;
	} else {
		ev->cpu = (uint16_t)s->cpu;
		if (s->next && (tk = task_of(u, s->next)))
			tk->cpu = s->cpu;
		tk = NULL;
	}
	ev->size = build(u, s, tk);
	ev->data = u->rec;
	ev->type = s->id;
	memcpy(&ev->pid, u->rec + 4, 4);
	ev->missed = s->missed;
	s->missed = 0;
	ev->event = fmt_events_format(r, ev->type);
	if (!ev->event)
		return FAIL("event %d: its format does not parse", ev->type);
	cs = cpu_stream(r, ev->cpu);
	if (cs) {
		cs->st.events++;
		cs->st.lost += ev->missed;
		cs->st.lost_marks += ev->missed != 0;
	}
	k = step(u, s, err);
	if (k < 0)
		return -1;
	if (!k)
		u->heap[0] = u->heap[--u->nheap];
	heap_down(u, 0);
	return 1;
}

static void uft_close(struct fmt_reader *r)
{
	struct uft *u = r->be_priv;

	if (!u)
		return;
	for (int i = 0; i < u->nst; i++) {
		if (u->st[i].p)
			munmap((void *)u->st[i].p, u->st[i].len);
		free(u->st[i].path);
	}
	for (int i = 0; i < u->nmods; i++) {
		for (int k = 0; k < u->mods[i].nsyms; k++)
			free(u->mods[i].syms[k].name);
		free(u->mods[i].syms);
		free(u->mods[i].name);
	}
	for (int i = 0; i < u->nsess; i++) {
		free(u->sess[i].exename);
		free(u->sess[i].maps);
	}
	free(u->st);
	free(u->heap);
	free(u->mods);
	free(u->sess);
	free(u->tasks);
	free(u->forks);
	free(u->info_text);
	free(u);
	r->be_priv = NULL;
}

static bool uft_probe(const uint8_t *p, uint64_t len)
{
	(void)p;
	(void)len;
	return false; /* a directory: fmt_reader_open() asks fmt_uftrace_dir() */
}

const struct fmt_backend fmt_uftrace_backend = {
	.name = "uftrace",
	.probe = uft_probe,
	.open = uft_open,
	.next = uft_next,
	.close = uft_close,
};
