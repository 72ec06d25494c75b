// SPDX-License-Identifier: MIT
/*
 * kprobe and kretprobe events as ftrace prints them, "(ADDR) a=0x1 b=2
 * c=\"str\"" and "(FUNC <- RET) ret=0x0": their fields, a format in the
 * kernel's layout for them, and their record (see text-probe.h).
 */
#include "text-probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "name=value"; *@p moves past it. */
static int one_arg(const char **p, const char *end, struct tprobe *a)
{
	const char *s = *p, *eq, *v, *ve;
	int i = a->nargs;

	eq = memchr(s, '=', end - s);
	if (!eq || eq == s || i >= TPROBE_MAX_ARGS || eq - s > 63)
		return -1;
	for (const char *q = s; q < eq; q++)
		if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9')))
			return -1;
	a->name[i] = (struct text_span){s, (int)(eq - s)};
	v = eq + 1;
	if (v < end && *v == '"') {
		ve = memchr(v + 1, '"', end - v - 1);
		if (!ve)
			return -1;
		a->kind[i] = TPROBE_STR;
		a->str[i] = (struct text_span){v + 1, (int)(ve - v - 1)};
		ve++;
	} else {
		if (v >= end) /* "name=": no value */
			return -1;
		ve = memchr(v, ' ', end - v);
		ve = ve ? ve : end;
		if (ve - v > 2 && v[0] == '0' && v[1] == 'x') {
			a->kind[i] = TPROBE_HEX;
			if (!tline_hex(v + 2, ve, &a->num[i]))
				return -1;
		} else {
			int64_t d;
			a->kind[i] = TPROBE_DEC;
			if (!tline_dec(v, ve, &d))
				return -1;
			a->num[i] = (uint64_t)d;
		}
	}
	a->nargs++;
	while (ve < end && *ve == ' ')
		ve++;
	*p = ve;
	return 0;
}

/*
 * A raw address field "KEY=ffffffff8a0d53c0" (bare hex: trace-cmd report
 * -R) at *@p; moves past it and the spaces after.
 */
static bool raw_addr(const char **p, const char *end, const char *key, uint64_t *v)
{
	size_t n = strlen(key);
	const char *e;

	if ((size_t)(end - *p) <= n || memcmp(*p, key, n))
		return false;
	e = memchr(*p + n, ' ', end - *p - n);
	e = e ? e : end;
	if (!tline_hex(*p + n, e, v))
		return false;
	while (e < end && *e == ' ')
		e++;
	*p = e;
	return true;
}

/* -R's "__probe_ip=ADDR a=0x1" and "__probe_func=ADDR __probe_ret_ip=ADDR ret=0x0". */
static int raw_probe(const char *p, const char *end, struct tprobe *a)
{
	if (raw_addr(&p, end, "__probe_func=", &a->ip)) {
		a->ret = true;
		if (!raw_addr(&p, end, "__probe_ret_ip=", &a->ret_ip))
			return -1;
	} else if (!raw_addr(&p, end, "__probe_ip=", &a->ip)) {
		return -1;
	}
	while (p < end)
		if (one_arg(&p, end, a))
			return -1;
	return 0;
}

/* An address in hex (trace-cmd), or the kernel's "vfs_read+0x0/0x2a0" (@sym, at offset @v). */
static bool probe_site(const char *s, const char *e, uint64_t *v, struct text_span *sym)
{
	if (tline_hex(s, e, v))
		return true;
	return tline_sym_off(s, e, sym, v);
}

/* An eprobe's "syscalls.sys_enter_openat": the event it is attached to. */
static bool attached_event(const char *s, const char *e)
{
	const char *dot = memchr(s, '.', e - s);

	if (!dot || dot == s || dot + 1 == e)
		return false;
	for (const char *q = s; q < e; q++)
		if (q != dot && !(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
				  (*q >= '0' && *q <= '9')))
			return false;
	return true;
}

int tprobe_parse(struct text_span f, struct tprobe *a)
{
	const char *p = f.p, *end = f.p + f.n, *close, *arrow;

	memset(a, 0, sizeof(*a));
	if (f.n > 12 && !memcmp(p, "__probe_", 8))
		return raw_probe(p, end, a);
	if (f.n < 3 || *p != '(')
		return -1;
	close = memchr(p, ')', end - p);
	if (!close)
		return -1;
	arrow = memmem(p, close - p, " <- ", 4);
	if (arrow) {
		a->ret = true;
		if (!probe_site(p + 1, arrow, &a->ip, &a->ip_sym) ||
		    !probe_site(arrow + 4, close, &a->ret_ip, &a->ret_sym))
			return -1;
		if (a->ip_sym.n && a->ret_sym.n) { /* the kernel's: "(RET_SITE <- FUNC)" */
			struct text_span sym = a->ip_sym;
			uint64_t ip = a->ip;
			a->ip_sym = a->ret_sym;
			a->ip = a->ret_ip;
			a->ret_sym = sym;
			a->ret_ip = ip;
		}
	} else if (attached_event(p + 1, close)) {
		a->eprobe = true;
	} else if (!probe_site(p + 1, close, &a->ip, &a->ip_sym)) {
		return -1;
	}
	p = close + 1;
	while (p < end && *p == ' ')
		p++;
	while (p < end)
		if (one_arg(&p, end, a))
			return -1;
	return 0;
}

/* Where the fields go: the probe's addresses, then 8 bytes per number, 4 per string. */
static int arg_off(const struct tprobe *a, int i)
{
	int off = a->eprobe ? 8 : a->ret ? 24 : 16;

	for (int k = 0; k < i; k++)
		off += a->kind[k] == TPROBE_STR ? 4 : 8;
	return off;
}

char *tprobe_format(const char *name, int id, const struct tprobe *a, int *len)
{
	char *fields = NULL, *fmt = NULL, *args = NULL, *out = NULL;
	size_t nf = 0, nfmt = 0, nargs = 0;
	FILE *ff = open_memstream(&fields, &nf), *fp = open_memstream(&fmt, &nfmt),
	     *fa = open_memstream(&args, &nargs);

	if (!ff || !fp || !fa)
		goto out;
	if (a->eprobe) {
		/* no address: the attached event's fields the probe fetched */
	} else if (a->ret) {
		fputs("\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
		      "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n", ff);
		fputs("(%lx <- %lx)", fp);
		fputs(", REC->__probe_func, REC->__probe_ret_ip", fa);
	} else {
		fputs("\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n", ff);
		fputs("(%lx)", fp);
		fputs(", REC->__probe_ip", fa);
	}
	for (int i = 0; i < a->nargs; i++) {
		int n = a->name[i].n;
		const char *s = a->name[i].p;

		if (a->kind[i] == TPROBE_STR) {
			fprintf(ff, "\tfield:__data_loc char[] %.*s;\toffset:%d;\tsize:4;\tsigned:1;\n",
				n, s, arg_off(a, i));
			fprintf(fp, " %.*s=\\\"%%s\\\"", n, s);
			fprintf(fa, ", __get_str(%.*s)", n, s);
		} else {
			fprintf(ff, "\tfield:%s %.*s;\toffset:%d;\tsize:8;\tsigned:%d;\n",
				a->kind[i] == TPROBE_HEX ? "u64" : "s64", n, s, arg_off(a, i),
				a->kind[i] == TPROBE_DEC);
			fprintf(fp, " %.*s=%s", n, s, a->kind[i] == TPROBE_HEX ? "0x%Lx" : "%Ld");
			fprintf(fa, ", REC->%.*s", n, s);
		}
	}
out:
	if (ff)
		fclose(ff);
	if (fp)
		fclose(fp);
	if (fa)
		fclose(fa);
	if (fields && fmt && args &&
	    (*len = asprintf(&out, "name: %s\nID: %d\n" TF_COMMON_TEXT "%s\nprint fmt: \"%s\"%s\n",
			     name, id, fields, fmt, args)) < 0)
		out = NULL;
	free(fields);
	free(fmt);
	free(args);
	return out;
}

/* The arg of @layout named as arg @i of @a, or -1. */
static int arg_of(const struct tprobe *layout, const struct tprobe *a, int i)
{
	for (int k = 0; k < layout->nargs; k++)
		if (layout->name[k].n == a->name[i].n &&
		    !memcmp(layout->name[k].p, a->name[i].p, a->name[i].n))
			return k;
	return -1;
}

int tprobe_size(const struct tprobe *layout, const struct tprobe *a)
{
	int size = arg_off(layout, layout->nargs);

	for (int i = 0; i < a->nargs; i++) {
		int k = arg_of(layout, a, i);
		if (k < 0 || (layout->kind[k] == TPROBE_STR) != (a->kind[i] == TPROBE_STR))
			return -1;
		if (a->kind[i] == TPROBE_STR)
			size += (a->str[i].n > 1000 ? 1000 : a->str[i].n) + 1;
	}
	return size;
}

void tprobe_fill(uint8_t *rec, const struct tprobe *layout, const struct tprobe *a,
		 uint64_t ip, uint64_t ret_ip)
{
	int data = arg_off(layout, layout->nargs);

	if (!layout->eprobe)
		memcpy(rec + 8, &ip, 8);
	if (layout->ret)
		memcpy(rec + 16, &ret_ip, 8);
	for (int i = 0; i < a->nargs; i++) {
		int k = arg_of(layout, a, i), off = arg_off(layout, k);
		if (a->kind[i] == TPROBE_STR) {
			int n = a->str[i].n > 1000 ? 1000 : a->str[i].n;
			uint32_t dl = (uint32_t)(n + 1) << 16 | (uint32_t)data;
			memcpy(rec + off, &dl, 4);
			memcpy(rec + data, a->str[i].p, n);
			rec[data + n] = 0;
			data += n + 1;
		} else {
			memcpy(rec + off, &a->num[i], 8);
		}
	}
}

/* ---- system call events ------------------------------------------------- */

/*
 * The open flags as 7.3's sys_enter_openat prints them ("O_WRONLY|O_CREAT",
 * "O_RDONLY|O_DIRECT"; its print format's table, x86's values), bits it
 * has no name for in hex.
 */
static bool open_flags(const char *s, const char *e, uint64_t *v)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} of[] = {
		{"O_RDONLY", 0},	 {"O_WRONLY", 0x1},	   {"O_RDWR", 0x2},
		{"O_CREAT", 0x40},	 {"O_EXCL", 0x80},	   {"O_NOCTTY", 0x100},
		{"O_TRUNC", 0x200},	 {"O_APPEND", 0x400},	   {"O_NONBLOCK", 0x800},
		{"O_DSYNC", 0x1000},	 {"O_DIRECT", 0x4000},	   {"O_LARGEFILE", 0x8000},
		{"O_DIRECTORY", 0x10000}, {"O_NOFOLLOW", 0x20000}, {"O_NOATIME", 0x40000},
		{"O_CLOEXEC", 0x80000},
	};

	*v = 0;
	while (s < e) {
		const char *b = memchr(s, '|', e - s);
		size_t i, n;
		uint64_t x;

		b = b ? b : e;
		n = (size_t)(b - s);
		for (i = 0; i < sizeof(of) / sizeof(of[0]); i++)
			if (strlen(of[i].name) == n && !memcmp(s, of[i].name, n))
				break;
		if (i < sizeof(of) / sizeof(of[0]))
			*v |= of[i].bit;
		else if (n > 2 && s[0] == '0' && s[1] == 'x' && tline_hex(s + 2, b, &x))
			*v |= x;
		else
			return false;
		s = b < e ? b + 1 : e;
	}
	return true;
}

/*
 * A value: 0x hex, an octal with its leading 0 (7.3's "mode: 0666"), open
 * flags by name, or bare digits: hex where @bare_hex (6.1 prints every
 * argument "%lx": "fd: b, count: 1000"), else decimal (later kernels print
 * "%lu" below 10, 7.3's openat its pointers too); then maybe the user
 * memory the kernel read (6.19 on), a string " \"/etc/x\"" or bytes " (2f:65:74,
 * ...)", which is not kept: the value is the pointer.
 */
static bool sys_value(const char *s, const char *e, bool bare_hex, uint64_t *v)
{
	const char *q = s;
	int64_t d;

	while (q < e && *q != ' ')
		q++;
	if (q < e && !(q + 2 < e && ((q[1] == '"' && e[-1] == '"') || (q[1] == '(' && e[-1] == ')'))))
		return false;
	if (q - s > 2 && s[0] == '0' && s[1] == 'x')
		return tline_hex(s + 2, q, v);
	if (q - s > 1 && s[0] == '0') {
		for (*v = 0, s++; s < q; s++) {
			if (*s < '0' || *s > '7' || *v >> 60)
				return false;
			*v = *v << 3 | (uint64_t)(*s - '0');
		}
		return true;
	}
	if (q - s > 2 && s[0] == 'O' && s[1] == '_')
		return open_flags(s, q, v);
	if (bare_hex)
		return tline_hex(s, q, v);
	if (!tline_dec(s, q, &d))
		return false;
	*v = (uint64_t)d;
	return true;
}

/* Is @p at ", NAME: ", where the next argument starts? */
static bool next_item(const char *p, const char *end)
{
	const char *q = p + 2;

	if (end - p < 5 || p[0] != ',' || p[1] != ' ')
		return false;
	while (q < end && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			   (*q >= '0' && *q <= '9')))
		q++;
	return q > p + 2 && end - q >= 2 && q[0] == ':' && q[1] == ' ';
}

static bool is_ident(const char *s, const char *e)
{
	if (s >= e || e - s > 63)
		return false;
	for (; s < e; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/*
 * -R's "__filename_val=/etc/x": the user memory a system call's pointer
 * argument points to (6.19 on), the last field of its format, printed as
 * it is (spaces and all). Not kept: the pointer is.
 */
static bool raw_user_data(char sep, const char *k, const char *e)
{
	return sep == '=' && e - k > 6 && k[0] == '_' && k[1] == '_' && !memcmp(e - 4, "_val", 4);
}

/*
 * -R's "mode=666" of 7.3's openat, whose format prints it "0%03o" (octal,
 * the 0 a literal that libtraceevent leaves out); *@v moves past it.
 */
static bool raw_mode(const char **v, const char *end, uint64_t *out)
{
	const char *s = *v, *e = memchr(s, ' ', end - s);

	e = e ? e : end;
	if (e == s || e - s > 21)
		return false;
	for (*out = 0; s < e; s++) {
		if (*s < '0' || *s > '7')
			return false;
		*out = *out << 3 | (uint64_t)(*s - '0');
	}
	*v = e < end ? e + 1 : end;
	return true;
}

/*
 * The items of [p, end): "name: value" separated by ", " (@sep ':'), or
 * raw "name=value" separated by " " (@sep '=').
 */
static int sys_items(const char *p, const char *end, char sep, struct tsys *a)
{
	/* 7.3's own form of openat, with symbolic flags and strings: decimals */
	bool bare_hex = sep == ':' && !memchr(p, '"', end - p) && !memmem(p, end - p, ": O_", 4);

	while (p < end) {
		const char *k = p, *c, *v, *ve;

		while (p < end && *p != sep)
			p++;
		if (p >= end || !is_ident(k, p))
			return -1;
		v = p + 1 + (sep == ':');
		if (raw_user_data(sep, k, p))
			break; /* the format's last field, a string: the rest of the line */
		if (p - k == 4 && !memcmp(k, "mode", 4) && sep == '=' && !(end - v > 1 && v[1] == 'x')) {
			if (a->nargs == TSYS_MAX_ARGS || !raw_mode(&v, end, &a->v[a->nargs]))
				return -1;
			a->name[a->nargs++] = (struct text_span){k, 4};
			p = v;
			continue;
		}
		if (a->nargs == TSYS_MAX_ARGS && !(p - k == 12 && !memcmp(k, "__syscall_nr", 12)))
			return -1;
		if (sep == ':') {
			for (ve = v; ve < end && !next_item(ve, end); ve++)
				;
		} else {
			ve = memchr(v, ' ', end - v);
			ve = ve ? ve : end;
		}
		c = ve < end ? ve + 1 + (sep == ':') : end;
		if (p - k == 12 && !memcmp(k, "__syscall_nr", 12)) {
			int64_t d;
			if (!tline_dec(v, ve, &d) || d < -1 || d > 65535)
				return -1;
			a->has_nr = true;
			a->nr = (int)d;
		} else {
			a->name[a->nargs] = (struct text_span){k, (int)(p - k)};
			if (!sys_value(v, ve, bare_hex, &a->v[a->nargs]))
				return -1;
			a->nargs++;
		}
		p = c;
	}
	return 0;
}

int tprobe_sys_parse(struct text_span f, bool exit, struct tsys *a)
{
	const char *p = f.p, *end = f.p + f.n;
	bool raw;

	memset(a, 0, sizeof(*a));
	a->exit = exit;
	a->nr = -1;
	raw = f.n > 13 && !memcmp(p, "__syscall_nr=", 13);
	if (exit && !raw) { /* "0x3" */
		a->nargs = 1;
		a->name[0] = (struct text_span){"ret", 3};
		return p < end && sys_value(p, end, false, &a->v[0]) ? 0 : -1;
	}
	if (sys_items(p, end, raw ? '=' : ':', a))
		return -1;
	if (exit)
		return a->nargs == 1 && a->name[0].n == 3 && !memcmp(a->name[0].p, "ret", 3) ? 0 : -1;
	return 0;
}

char *tprobe_sys_format(struct text_span call, int id, const struct tsys *a, int *len)
{
	char fields[TSYS_MAX_ARGS * 128] = "", fmt[TSYS_MAX_ARGS * 96] = "", args[TSYS_MAX_ARGS * 96] = "";
	char *text = NULL;
	int nf = 0, nm = 0, na = 0;

	if (a->exit) {
		*len = asprintf(&text, "name: sys_exit_%.*s\nID: %d\n" TF_COMMON_TEXT
			"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
			"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
			"print fmt: \"0x%%lx\", REC->ret\n", call.n, call.p, id);
		return *len < 0 ? NULL : text;
	}
	for (int i = 0; i < a->nargs; i++) {
		const struct text_span *n = &a->name[i];
		nf += snprintf(fields + nf, sizeof(fields) - nf,
			       "\tfield:unsigned long %.*s;\toffset:%d;\tsize:8;\tsigned:0;\n", n->n,
			       n->p, 16 + 8 * i);
		nm += snprintf(fmt + nm, sizeof(fmt) - nm, "%s%.*s: 0x%%08lx", i ? ", " : "", n->n,
			       n->p);
		na += snprintf(args + na, sizeof(args) - na, ", ((unsigned long)(REC->%.*s))", n->n,
			       n->p);
	}
	*len = asprintf(&text, "name: sys_enter_%.*s\nID: %d\n" TF_COMMON_TEXT
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n%s\n"
		"print fmt: \"%s\"%s\n", call.n, call.p, id, fields, fmt, args);
	return *len < 0 ? NULL : text;
}

int tprobe_sys_size(const struct tsys *a)
{
	return 16 + 8 * a->nargs;
}

void tprobe_sys_fill(uint8_t *rec, const struct tsys *a)
{
	int32_t nr = a->nr;

	memcpy(rec + 8, &nr, 4);
	for (int i = 0; i < a->nargs; i++)
		memcpy(rec + 16 + 8 * i, &a->v[i], 8);
}
