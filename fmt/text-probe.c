// SPDX-License-Identifier: MIT
/*
 * kprobe and kretprobe events as ftrace prints them, "(ADDR) a=0x1 b=2
 * c=\"str\"" and "(FUNC <- RET) ret=0x0": their fields, a format in the
 * kernel's layout for them, and their record (see text.h).
 */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool thex(const char *s, const char *e, uint64_t *v)
{
	*v = 0;
	if (s >= e || e - s > 16)
		return false;
	for (; s < e; s++) {
		int d = *s >= '0' && *s <= '9'	 ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : -1;
		if (d < 0)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	return true;
}

bool tdec(const char *s, const char *e, int64_t *v)
{
	bool neg = s < e && *s == '-';
	uint64_t u = 0;

	s += neg;
	if (s >= e || e - s > 19)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		u = u * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

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
	a->name[i] = (struct tspan){s, (int)(eq - s)};
	v = eq + 1;
	if (v < end && *v == '"') {
		ve = memchr(v + 1, '"', end - v - 1);
		if (!ve)
			return -1;
		a->kind[i] = TPROBE_STR;
		a->str[i] = (struct tspan){v + 1, (int)(ve - v - 1)};
		ve++;
	} else {
		if (v >= end) /* "name=": no value */
			return -1;
		ve = memchr(v, ' ', end - v);
		ve = ve ? ve : end;
		if (ve - v > 2 && v[0] == '0' && v[1] == 'x') {
			a->kind[i] = TPROBE_HEX;
			if (!thex(v + 2, ve, &a->num[i]))
				return -1;
		} else {
			int64_t d;
			a->kind[i] = TPROBE_DEC;
			if (!tdec(v, ve, &d))
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

int tprobe_parse(struct tspan f, struct tprobe *a)
{
	const char *p = f.p, *end = f.p + f.n, *close, *arrow;

	memset(a, 0, sizeof(*a));
	if (f.n < 3 || *p != '(')
		return -1;
	close = memchr(p, ')', end - p);
	if (!close)
		return -1;
	arrow = memmem(p, close - p, " <- ", 4);
	if (arrow) {
		a->ret = true;
		if (!thex(p + 1, arrow, &a->ip) || !thex(arrow + 4, close, &a->ret_ip))
			return -1;
	} else if (!thex(p + 1, close, &a->ip)) {
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
	int off = a->ret ? 24 : 16;

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
	if (a->ret) {
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

/* A value: 0x hex or a decimal; "0x41 \"/etc/x\"" (a string after it) is its number. */
static bool sys_value(const char *s, const char *e, uint64_t *v)
{
	const char *q = s;
	int64_t d;

	while (q < e && *q != ' ')
		q++;
	if (q < e && !(q + 2 < e && q[1] == '"' && e[-1] == '"'))
		return false;
	if (q - s > 2 && s[0] == '0' && s[1] == 'x')
		return thex(s + 2, q, v);
	if (!tdec(s, q, &d))
		return false;
	*v = (uint64_t)d;
	return true;
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
 * The items of [p, end): "name: value" separated by ", " (@sep ':'), or
 * raw "name=value" separated by " " (@sep '=').
 */
static int sys_items(const char *p, const char *end, char sep, struct tsys *a)
{
	while (p < end) {
		const char *k = p, *c, *v, *ve;

		while (p < end && *p != sep)
			p++;
		if (p >= end || a->nargs == TSYS_MAX_ARGS || !is_ident(k, p))
			return -1;
		v = p + 1 + (sep == ':');
		if (sep == ':') {
			for (ve = v; ve < end && !(ve + 1 < end && ve[0] == ',' && ve[1] == ' '); ve++)
				;
		} else {
			ve = memchr(v, ' ', end - v);
			ve = ve ? ve : end;
		}
		c = ve < end ? ve + 1 + (sep == ':') : end;
		if (p - k == 12 && !memcmp(k, "__syscall_nr", 12)) {
			int64_t d;
			if (!tdec(v, ve, &d) || d < -1 || d > 65535)
				return -1;
			a->has_nr = true;
			a->nr = (int)d;
		} else {
			a->name[a->nargs] = (struct tspan){k, (int)(p - k)};
			if (!sys_value(v, ve, &a->v[a->nargs]))
				return -1;
			a->nargs++;
		}
		p = c;
	}
	return 0;
}

int tsys_parse(struct tspan f, bool exit, struct tsys *a)
{
	const char *p = f.p, *end = f.p + f.n;
	bool raw;

	memset(a, 0, sizeof(*a));
	a->exit = exit;
	a->nr = -1;
	raw = f.n > 13 && !memcmp(p, "__syscall_nr=", 13);
	if (exit && !raw) { /* "0x3" */
		a->nargs = 1;
		a->name[0] = (struct tspan){"ret", 3};
		return p < end && sys_value(p, end, &a->v[0]) ? 0 : -1;
	}
	if (sys_items(p, end, raw ? '=' : ':', a))
		return -1;
	if (exit)
		return a->nargs == 1 && a->name[0].n == 3 && !memcmp(a->name[0].p, "ret", 3) ? 0 : -1;
	return 0;
}

char *tsys_format(struct tspan call, int id, const struct tsys *a, int *len)
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
		const struct tspan *n = &a->name[i];
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

int tsys_size(const struct tsys *a)
{
	return 16 + 8 * a->nargs;
}

void tsys_fill(uint8_t *rec, const struct tsys *a)
{
	int32_t nr = a->nr;

	memcpy(rec + 8, &nr, 4);
	for (int i = 0; i < a->nargs; i++)
		memcpy(rec + 16 + 8 * i, &a->v[i], 8);
}
