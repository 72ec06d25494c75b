// SPDX-License-Identifier: MIT
/*
 * The line grammar of ftrace's function_graph text and of `trace-cmd report`
 * (see text-line.h). Strict: a line that fits none of the known shapes is an
 * error, so that a file that is not a trace is not taken for one.
 */
#include "text-line.h"

#include <string.h>

#include "fmt.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_spaces(struct text_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static int count_spaces(struct text_cursor *c)
{
	const char *s = c->p;

	skip_spaces(c);
	return (int)(c->p - s);
}

/* Digits into @v (at most 18, so no overflow); false if none. */
static bool digits(struct text_cursor *c, uint64_t *v, int *ndig)
{
	int n = 0;

	*v = 0;
	while (c->p < c->end && is_digit(*c->p) && n < 18) {
		*v = *v * 10 + (uint64_t)(*c->p++ - '0');
		n++;
	}
	if (ndig)
		*ndig = n;
	return n > 0 && !(c->p < c->end && is_digit(*c->p));
}

static uint64_t pow10u(int n)
{
	uint64_t v = 1;

	while (n-- > 0)
		v *= 10;
	return v;
}

/*
 * "SEC.FRAC" scaled to units of 10^-@scale ("1.5" with scale 3 is 1500), with
 * the precision of the digits printed in @prec; FRAC may be absent when
 * @need_frac is false.
 */
static bool decimal(struct text_cursor *c, int scale, bool need_frac, uint64_t *v, int *prec)
{
	uint64_t ip, fp = 0;
	int nd = 0, ni;

	if (!digits(c, &ip, &ni) || ni > 12)
		return false;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!digits(c, &fp, &nd) || nd > scale)
			return false;
	} else if (need_frac) {
		return false;
	}
	*v = ip * pow10u(scale) + fp * pow10u(scale - nd);
	*prec = (int)pow10u(scale - nd);
	return true;
}

bool tline_hex(const char *s, const char *e, uint64_t *v)
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

bool tline_dec(const char *s, const char *e, int64_t *v)
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

bool tline_span_int(struct text_span s, long long *v)
{
	struct text_cursor c;
	bool neg;
	uint64_t u;

	if (!s.p || s.n <= 0)
		return false;
	c = (struct text_cursor){s.p, s.p + s.n};
	neg = tline_eat(&c, "-");
	if (!digits(&c, &u, NULL) || c.p != c.end || u > 0x7fffffffULL)
		return false;
	*v = neg ? -(long long)u : (long long)u;
	return true;
}

struct text_span tline_field(struct text_span f, const char *key)
{
	size_t n = strlen(key);
	const char *p = f.p, *end = f.p + f.n;

	while (p + n < end) {
		if ((p == f.p || p[-1] == ' ') && !memcmp(p, key, n) && p[n] == '=') {
			const char *v = p + n + 1, *e = v;
			while (e < end && *e != ' ')
				e++;
			return (struct text_span){v, (int)(e - v)};
		}
		p++;
	}
	return (struct text_span){NULL, 0};
}

/* "comm-pid" (the last '-' starts the pid) within [s, e), trimmed. */
static bool comm_pid(const char *s, const char *e, struct text_span *comm, int *pid)
{
	const char *dash;
	long long v;

	while (s < e && *s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		e--;
	for (dash = e - 1; dash > s && *dash != '-'; dash--)
		;
	if (dash <= s || !tline_span_int((struct text_span){dash + 1, (int)(e - dash - 1)}, &v) ||
	    v < 0)
		return false;
	*comm = (struct text_span){s, (int)(dash - s)};
	*pid = (int)v;
	return true;
}

/*
 * The latency flags "dNhs" + preempt count (+ migrate-disable), e.g. "d.h1."
 * or "0...1." glued to the CPU in `trace-cmd report -l`.
 */
static bool lat_flags(const char *s, int n, struct tline *t)
{
	uint8_t f = 0;

	if (n < 4 || n > 6)
		return false;
	switch (s[0]) { /* irqs off 'd', bottom halves off 'b', both 'D' (5.17 on) */
	case 'd': f |= FMT_FLAG_IRQS_OFF; break;
	case 'D': f |= FMT_FLAG_IRQS_OFF | FMT_FLAG_BH_OFF; break;
	case 'b': f |= FMT_FLAG_BH_OFF; break;
	case 'X': case '.': break;
	default: return false;
	}
	switch (s[1]) {
	case 'N': case 'n': case 'p': case 'B': case 'L': case 'b': f |= FMT_FLAG_NEED_RESCHED; break;
	case '.': break;
	default: return false;
	}
	switch (s[2]) {
	case 'h': f |= FMT_FLAG_HARDIRQ; break;
	case 's': f |= FMT_FLAG_SOFTIRQ; break;
	case 'H': f |= FMT_FLAG_HARDIRQ | FMT_FLAG_SOFTIRQ; break;
	case 'z': f |= FMT_FLAG_NMI; break;
	case 'Z': f |= FMT_FLAG_NMI | FMT_FLAG_HARDIRQ; break;
	case '.': break;
	default: return false;
	}
	for (int i = 3; i < n; i++)
		if (!(s[i] == '.' || is_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	t->has_lat = true;
	t->flags = f;
	t->preempt = s[3] == '.' ? 0 : is_digit(s[3]) ? s[3] - '0' : s[3] - 'a' + 10;
	return true;
}

/* "name" or "name [mod]" up to @e. */
static bool func_name(const char *s, const char *e, struct tline *t)
{
	const char *b = memchr(s, '[', e - s);

	if (b && b > s + 1 && b[-1] == ' ' && e[-1] == ']' && e - b > 2) {
		t->mod = (struct text_span){b + 1, (int)(e - b - 2)};
		e = b - 1;
	}
	if (e <= s)
		return false;
	for (const char *q = s; q < e; q++)
		if (*q == ' ' || *q == '(' || *q == ')' || *q == '{' || *q == '}' || *q == ';' ||
		    (unsigned char)*q < 0x20)
			return false;
	t->name = (struct text_span){s, (int)(e - s)};
	return true;
}

/* "0x1f" (or bare hex digits without @prefix) exactly filling [s, e). */
static bool hex_span(const char *s, const char *e, bool prefix, uint64_t *v)
{
	if (prefix) {
		if (e - s < 3 || s[0] != '0' || s[1] != 'x')
			return false;
		s += 2;
	}
	return tline_hex(s, e, v);
}

/*
 * A return value: "0x1f", or a decimal ("-22") as its 64-bit register;
 * where the kernel knows from BTF that the function returns a bool,
 * "true" or "false" (the register's 1 or 0).
 */
static bool ret_value(const char *s, const char *e, uint64_t *v)
{
	int64_t d;

	if ((e - s == 4 && !memcmp(s, "true", 4)) || (e - s == 5 && !memcmp(s, "false", 5)))
		return *v = e - s == 4, true;
	if (hex_span(s, e, true, v))
		return true;
	if (!tline_dec(s, e, &d))
		return false;
	*v = (uint64_t)d;
	return true;
}

bool tline_sym_off(const char *s, const char *e, struct text_span *name, uint64_t *off)
{
	const char *plus, *slash;
	uint64_t size;

	plus = memchr(s, '+', e - s);
	*off = 0;
	if (plus) {
		slash = memchr(plus, '/', e - plus);
		if (!hex_span(plus + 1, slash ? slash : e, true, off) ||
		    (slash && !hex_span(slash + 1, e, true, &size)))
			return false;
		e = plus;
	}
	if (e == s)
		return false;
	for (const char *q = s; q < e; q++)
		if (*q == '(' || *q == ')' || *q == '[' || *q == ']' || (unsigned char)*q <= ' ')
			return false;
	*name = (struct text_span){s, (int)(e - s)};
	return true;
}

/* "caller+0x1c/0x80" or "caller": the function a call returns to, and where in it. */
static bool caller(const char *s, const char *e, struct tline *t)
{
	return tline_sym_off(s, e, &t->ret_to, &t->ret_off);
}

/*
 * "<-caller+0x1c/0x80" (the kernel's %pS) or "<-caller" (trace-cmd): where
 * a call returns to.
 */
static bool ret_to(const char *s, const char *e, struct tline *t)
{
	return e - s >= 3 && !memcmp(s, "<-", 2) && caller(s + 2, e, t);
}

static const char *token_end(const char *s, const char *e)
{
	while (s < e && *s != ' ')
		s++;
	return s;
}

/*
 * The items of a comment after a call: "<-caller+0x1c/0x80" (maybe with
 * its "[mod]") and "ret=VALUE"; after "}" the function's name comes first
 * ("} /+ func ret=-22 +/", funcgraph-tail or funcgraph-retval).
 */
static bool comment_items(const char *s, const char *e, struct tline *t, bool exit)
{
	const char *name = NULL, *name_end = NULL, *q;
	bool after_ret_to = false, items = false;

	for (; s < e; s = q) {
		while (s < e && *s == ' ')
			s++;
		if (s == e)
			break;
		q = token_end(s, e);
		if (!exit && !t->ret_to.n && ret_to(s, q, t)) {
			after_ret_to = items = true;
			continue;
		}
		/* the caller's module, its address (the sym-addr option) */
		if (after_ret_to && ((*s == '[' && q[-1] == ']') || (*s == '<' && q[-1] == '>'))) {
			uint64_t a;
			if (*s == '[' || hex_span(s + 1, q - 1, false, &a))
				continue;
		}
		after_ret_to = false;
		if (q - s > 4 && !memcmp(s, "ret=", 4) && !t->has_ret && ret_value(s + 4, q, &t->ret)) {
			t->has_ret = items = true;
			continue;
		}
		if (!exit || items) /* the name comes first */
			return false;
		if (!name)
			name = s;
		name_end = q;
	}
	return !name || func_name(name, name_end, t);
}

/*
 * Take off the end of @c what may follow a call's "{", ";" or "}": the
 * kernel's comments, and trace-cmd's " (N)" (fgraph:depth) and " (ret=X)".
 * The comments' texts go to @com (at most @max); their number is returned,
 * or -1 with @why set.
 */
static int strip_tail(struct text_cursor *c, struct tline *t, struct text_span *com, int max,
		      const char **why)
{
	int n = 0;

	for (;;) {
		const char *e, *o;
		long long v;

		while (c->end > c->p && c->end[-1] == ' ')
			c->end--;
		e = c->end;
		if (e - c->p >= 4 && !memcmp(e - 2, "*/", 2)) {
			for (o = e - 3; o >= c->p && memcmp(o, "/*", 2); o--)
				;
			if (o < c->p || o + 2 > e - 2)
				return *why = "comment without its start", -1;
			if (n == max)
				return *why = "too many comments after the call", -1;
			com[n++] = (struct text_span){o + 2, (int)(e - 2 - (o + 2))};
			c->end = o;
			continue;
		}
		if (e - c->p < 4 || e[-1] != ')')
			return n;
		for (o = e - 2; o > c->p && *o != '('; o--)
			;
		if (o <= c->p || o[-1] != ' ')
			return n;
		if (e - o > 5 && !memcmp(o + 1, "ret=", 4) && !t->has_ret &&
		    ret_value(o + 5, e - 1, &t->ret)) {
			t->has_ret = true;
		} else if (tline_span_int((struct text_span){o + 1, (int)(e - o - 2)}, &v) &&
			   v >= 0 && v < 100000) {
			t->depth = (int)v;
		} else {
			return n;
		}
		c->end = o - 1;
	}
}

/* "NAME(ARGS)" in [s, e): the name, and the arguments' span (balanced parentheses). */
static bool call_name_args(const char *s, const char *e, struct tline *t)
{
	const char *o = memchr(s, '(', e - s);
	int open = 0;

	if (!o || e[-1] != ')' || !func_name(s, o, t))
		return false;
	for (const char *q = o; q < e; q++) {
		open += *q == '(' ? 1 : *q == ')' ? -1 : 0;
		if (open < 0 || (open == 0 && q < e - 1) || (unsigned char)*q < 0x20)
			return false;
	}
	t->args = (struct text_span){o + 1, (int)(e - 1 - (o + 1))};
	return true;
}

/*
 * After "|": the indent, then "}", "func(ARGS) {", "func(ARGS);" or a
 * comment, each with what the options print after it (see text-line.h).
 */
static int graph_body(struct text_cursor *c, struct tline *t, const char **why)
{
	int sp = count_spaces(c), n, m;
	struct text_span com[2];
	const char *e;

	t->depth = sp >= 2 ? (sp - 2) / 2 : 0;
	if (tline_eat(c, "/*")) {
		while (c->end > c->p && c->end[-1] == ' ')
			c->end--;
		if (c->end - c->p < 2 || memcmp(c->end - 2, "*/", 2))
			return *why = "comment without its end", -1;
		t->kind = TL_COMMENT;
		t->text = (struct text_span){c->p, (int)(c->end - 2 - c->p)};
		while (t->text.n && t->text.p[0] == ' ')
			t->text.p++, t->text.n--;
		while (t->text.n && t->text.p[t->text.n - 1] == ' ')
			t->text.n--;
		return 0;
	}
	n = strip_tail(c, t, com, 2, why);
	if (n < 0)
		return -1;
	if (tline_eat(c, "}")) {
		t->kind = TL_EXIT;
		skip_spaces(c);
		if (c->p != c->end || n > 1)
			return *why = "unexpected text after '}'", -1;
		return n == 0 || comment_items(com[0].p, com[0].p + com[0].n, t, true)
			       ? 0 : (*why = "bad function name after '}'", -1);
	}
	e = c->end;
	if (e - c->p > 2 && !memcmp(e - 2, " {", 2)) {
		t->kind = TL_ENTRY;
		c->end -= 2;
		/* trace-cmd: "func() /+ <-caller +/ {" */
		m = strip_tail(c, t, com + n, 2 - n, why);
		if (m < 0)
			return -1;
		n += m;
		e = c->end;
	} else if (e - c->p > 1 && e[-1] == ';') {
		t->kind = TL_LEAF;
		e--;
	} else {
		return *why = "neither a call, a return nor a comment after '|'", -1;
	}
	if (!call_name_args(c->p, e, t))
		return *why = "bad function name", -1;
	for (int i = 0; i < n; i++)
		if (!comment_items(com[i].p, com[i].p + com[i].n, t, false))
			return *why = "unexpected comment after the call", -1;
	return 0;
}

/*
 * "[+!#*@$ ]DUR us  |" or just "|"; then the body. With funcgraph-duration
 * off the kernel prints neither (nor the overhead mark): where a column
 * before (the time, task or flags) ended in '|' at @bar, the body follows it.
 */
static int graph_columns(struct text_cursor *c, struct tline *t, const struct text_cursor *bar,
			 const char **why)
{
	skip_spaces(c);
	if (tline_eat(c, "==========>") || tline_eat(c, "<==========")) {
		t->kind = TL_IRQ_MARK;
		t->irq_in = c->p[-1] == '>';
		skip_spaces(c);
		if (!tline_eat(c, "|"))
			return *why = "'|' expected after the irq marker", -1;
		skip_spaces(c);
		return c->p == c->end ? 0 : (*why = "text after the irq marker", -1);
	}
	if (c->p < c->end && strchr("+!#*@$", *c->p)) {
		c->p++;
		skip_spaces(c);
	}
	if (c->p < c->end && is_digit(*c->p)) {
		if (!decimal(c, 3, false, &t->dur, &t->dur_prec) || !tline_eat(c, " us"))
			return *why = "bad duration (\"123.456 us\" expected)", -1;
		t->has_dur = true;
		skip_spaces(c);
	}
	if (!tline_eat(c, "|")) {
		if (bar && !t->has_dur) {
			struct text_cursor body = *bar;
			return graph_body(&body, t, why);
		}
		return *why = "'|' expected before the function column", -1;
	}
	return graph_body(c, t, why);
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && e[-1] == ' ')
		e--;
	return e;
}

/* A field ending in " |" (proc or latency flags) starting at @c; end at '|'. */
static const char *bar_field(struct text_cursor *c)
{
	const char *q = c->p;

	while (q + 1 < c->end && !(q[0] == ' ' && q[1] == '|'))
		q++;
	return q + 1 < c->end ? q : NULL;
}

/*
 * The optional task and latency columns of the graph form, each "... |";
 * anything else (a duration, an irq marker, the bar itself) is left alone.
 */
static void proc_lat(struct text_cursor *c, struct tline *t)
{
	for (int i = 0; i < 2; i++) {
		const char *s, *e;

		skip_spaces(c);
		s = c->p;
		if (s >= c->end || *s == '|')
			return;
		e = bar_field(c);
		if (!e)
			return;
		if (t->pid < 0 && !t->has_lat && comm_pid(s, e, &t->comm, &t->pid)) {
		} else if (!t->has_lat && lat_flags(s, (int)(trim_end(s, e) - s), t)) {
		} else {
			return;
		}
		c->p = e + 2;
	}
}

/* " 1)  comm-1  =>  comm-2" */
static bool switch_line(struct text_cursor *c, struct tline *t)
{
	const char *arrow = NULL;

	for (const char *q = c->p; q + 4 <= c->end; q++)
		if (!memcmp(q, " => ", 4))
			arrow = q;
	return arrow && comm_pid(c->p, arrow, &t->prev_comm, &t->prev_pid) &&
	       comm_pid(arrow + 4, c->end, &t->next_comm, &t->next_pid) &&
	       (t->kind = TL_SWITCH, true);
}

/* The graph form: [TIME |] [CPU)] [task |] [flags |] [DUR us] | body */
static int graph_line(struct text_cursor *c, struct tline *t, const char **why)
{
	struct text_cursor save, bar;
	bool any_bar = false;
	uint64_t v;
	int prec;

	skip_spaces(c);
	save = *c;
	if (decimal(c, 9, true, &v, &prec) && (skip_spaces(c), tline_eat(c, "|"))) {
		t->has_ts = true;
		t->ts = v;
		t->ts_prec = prec;
		bar = *c;
		any_bar = true;
	} else {
		*c = save;
	}
	skip_spaces(c);
	save = *c;
	if (digits(c, &v, NULL) && tline_eat(c, ")") && v < 65536) {
		t->cpu = (int)v;
		any_bar = false;
		if (!t->has_ts && switch_line(c, t))
			return 0;
	} else {
		*c = save;
	}
	save = *c;
	proc_lat(c, t);
	if (c->p != save.p) {
		bar = *c;
		any_bar = true;
	}
	return graph_columns(c, t, any_bar ? &bar : NULL, why);
}

/* "[N]" ending at @e (the ']' is e[-1]); its start in @o. */
static bool bracket_cpu(const char *s, const char *e, const char **o, struct tline *t)
{
	const char *b = e - 1;
	long long v;

	while (b > s && b[-1] != '[')
		b--;
	if (b <= s || !tline_span_int((struct text_span){b, (int)(e - 1 - b)}, &v) || v < 0 ||
	    v > 65535)
		return false;
	t->cpu = (int)v;
	*o = b - 1;
	return true;
}

/*
 * "-0x2d" after the CPU (trace-cmd report -R, 3.3 on): the event's flags
 * byte, common_flags, in hex; the preempt count is not printed.
 */
static bool raw_flags(const char *s, const char *e, struct tline *t)
{
	uint64_t v;

	if (e - s < 4 || memcmp(s, "-0x", 3) || !tline_hex(s + 3, e, &v) || v > 0xff)
		return false;
	t->has_lat = true;
	t->flags = (uint8_t)v;
	t->preempt = 0;
	return true;
}

/*
 * The CPU (and latency flags) before a report line's time, which starts at
 * *@q: "[001]", "[001] d..1." or "1d..1." (trace-cmd report -l). Moves *@q
 * to the start of the CPU field. 0 or -1.
 */
static int cpu_field(const char *s, const char **q, struct tline *t)
{
	const char *tok = *q, *e = *q;
	long long v;

	while (tok > s && tok[-1] != ' ' && tok[-1] != ']')
		tok--;
	if (tok > s && tok[-1] == ']') {
		if (tok < e && !raw_flags(tok, e, t) && !lat_flags(tok, (int)(e - tok), t))
			return -1;
		return bracket_cpu(s, tok, q, t) ? 0 : -1;
	}
	if (tok < e && is_digit(*tok)) {
		const char *d = tok;
		while (d < e && is_digit(*d))
			d++;
		if (!tline_span_int((struct text_span){tok, (int)(d - tok)}, &v) || v > 65535 ||
		    !lat_flags(d, (int)(e - d), t))
			return -1;
		t->cpu = (int)v;
		*q = tok;
		return 0;
	}
	if (!lat_flags(tok, (int)(e - tok), t))
		return -1;
	while (tok > s && tok[-1] == ' ')
		tok--;
	return tok > s && tok[-1] == ']' && bracket_cpu(s, tok, q, t) ? 0 : -1;
}

/*
 * fgraph_retaddr_entry in its print format, "--> func (2) <- caller" (what
 * trace-cmd prints where it has no handler for it): an entry.
 */
static bool retaddr_fields(struct text_cursor *c, struct tline *t)
{
	const char *o, *arrow;
	long long v;

	skip_spaces(c);
	o = c->p + 1 < c->end ? memchr(c->p + 1, '(', c->end - c->p - 1) : NULL;
	arrow = o ? memmem(o, c->end - o, ") <- ", 5) : NULL;
	if (!arrow || o[-1] != ' ' || !func_name(c->p, o - 1, t) ||
	    !tline_span_int((struct text_span){o + 1, (int)(arrow - o - 1)}, &v) || v < 0 ||
	    v >= 100000)
		return false;
	t->kind = TL_ENTRY;
	t->depth = (int)v;
	return caller(arrow + 5, c->end, t);
}

/* "func+0x0/0x80 [mod]" or "func" in [s, e): t->name, t->off, t->mod. */
static bool sym_mod(const char *s, const char *e, struct tline *t)
{
	const char *b;

	if (e - s > 3 && e[-1] == ']' && (b = memchr(s, ' ', e - s)) && b[1] == '[') {
		t->mod = (struct text_span){b + 2, (int)(e - b - 3)};
		e = b;
	}
	return tline_sym_off(s, e, &t->name, &t->off);
}

/*
 * The arguments func-args (6.15 on) prints after the function tracer's
 * function, "func(a=0x1, b=2)" or "func+0x4/0x80 [mod](a=0x1)", in [s, e):
 * t->args, and where the function's name ends.
 */
static const char *func_args(const char *s, const char *e, struct tline *t)
{
	const char *o = memchr(s, '(', e - s);

	if (!o || e[-1] != ')')
		return e;
	t->args = (struct text_span){o + 1, (int)(e - o - 2)};
	return o;
}

/*
 * The function tracer's "func+0x0/0x80 <-parent+0x1c/0x40" (the kernel;
 * sym-offset gives the offsets) or trace-cmd's "func", "func <-- parent",
 * "ip=func parent_ip=parent" (-R), in [s, e).
 */
static bool func_fields(const char *s, const char *e, struct tline *t)
{
	const char *a;

	while (s < e && *s == ' ')
		s++;
	if (e - s > 3 && !memcmp(s, "ip=", 3)) {
		const char *g;
		a = memmem(s, e - s, " parent_ip=", 11);
		/* 6.15 on: " args=ARRAY[]", an array libtraceevent cannot size */
		g = a ? memmem(a, e - a, " args=ARRAY[", 12) : NULL;
		if (g && e[-1] == ']')
			e = g;
		return a && tline_sym_off(s + 3, a, &t->name, &t->off) && caller(a + 11, e, t);
	}
	a = memmem(s, e - s, " <-", 3);
	if (!sym_mod(s, func_args(s, a ? a : e, t), t))
		return false;
	if (!a)
		return true;
	a += 3;
	if (a < e && *a == '-') /* trace-cmd's "<-- parent" */
		a++;
	while (a < e && *a == ' ')
		a++;
	if (e - a > 3 && e[-1] == ']' && (s = memchr(a, ' ', e - a)) && s[1] == '[')
		e = s; /* the caller's module: the function is known by its name */
	return caller(a, e, t);
}

/*
 * What the kernel prints after the time where no "EVENT:" is: a stack
 * trace's first line, a system call's entry "sys_X(ARGS)" or exit
 * "sys_X -> 0x3", a function tracer line. 1 if it is one of them, 0 if
 * not (an "EVENT:" line then), -1 on a bad one.
 */
static int kernel_shapes(struct text_cursor *c, struct tline *t, const char **why)
{
	const char *q = c->p, *e = c->end;

	if (tline_eat(c, "<stack trace>") || tline_eat(c, "<user stack trace>")) {
		t->name = c->p - q > 13 ? (struct text_span){"user_stack", 10}
					: (struct text_span){"kernel_stack", 12};
		t->kind = TL_EVENT;
		return c->p == e ? 1 : (*why = "text after the stack trace's start", -1);
	}
	while (q < e && *q != ':' && *q != ' ' && *q != '(')
		q++;
	if (q < e && *q == ':')
		return 0;
	t->kind = TL_EVENT;
	if (q - c->p > 4 && !memcmp(c->p, "sys_", 4) && q < e && *q == '(') {
		if (e[-1] != ')')
			return *why = "a system call's arguments without their ')'", -1;
		t->sys = 1;
		t->name = (struct text_span){c->p + 4, (int)(q - c->p - 4)};
		t->text = (struct text_span){q + 1, (int)(e - q - 2)};
		return 1;
	}
	if (q - c->p > 4 && !memcmp(c->p, "sys_", 4) && e - q > 4 && !memcmp(q, " -> ", 4)) {
		t->sys = 2;
		t->name = (struct text_span){c->p + 4, (int)(q - c->p - 4)};
		t->text = (struct text_span){q + 4, (int)(e - q - 4)};
		return 1;
	}
	t->kind = TL_FUNC;
	return func_fields(c->p, e, t) && t->ret_to.n ? 1
		: (*why = "\"EVENT:\" or a function tracer's \"func <-parent\" expected after the time", -1);
}

/* trace-cmd's "NAME: " before the task of an event of instance NAME. */
static const char *instance_prefix(const char *s, const char *e)
{
	const char *q = s;

	while (q < e && *q != ' ' && *q != ':')
		q++;
	return q > s && q + 1 < e && q[0] == ':' && q[1] == ' ' ? q + 2 : s;
}

/* The value of raw field "@key=" at @c (bare hex with @hex, else decimal); moves past it. */
static bool raw_num(struct text_cursor *c, const char *key, bool hex, uint64_t *v)
{
	const char *e;
	int64_t d;

	skip_spaces(c);
	if (!tline_eat(c, key))
		return false;
	e = token_end(c->p, c->end);
	if (hex && e - c->p > 2 && c->p[0] == '0' && c->p[1] == 'x')
		c->p += 2; /* darc dump's */
	if (hex ? !tline_hex(c->p, e, v) : !tline_dec(c->p, e, &d) || d < 0)
		return false;
	if (!hex)
		*v = (uint64_t)d;
	c->p = e;
	return true;
}

/*
 * funcgraph_entry and funcgraph_exit as trace-cmd report -R prints them,
 * field by field: "func=NAME depth=N" and "func=NAME depth=N overrun=0
 * calltime=HEX rettime=HEX" (3.3 on: "func=NAME (0xADDR)"; an address
 * kallsyms does not name: "func=0xADDR"). An entry recorded with
 * funcgraph-args ends in " args=ARRAY[]" (libtraceevent cannot size the
 * array: the values are not printed); an exit recorded with funcgraph-retval
 * has " retval=HEX" after the function. 0 or -1.
 */
static int raw_graph(struct text_cursor *c, struct tline *t, bool exit, const char **why)
{
	const char *s = c->p + 5, *d = memmem(c->p, c->end - c->p, " depth=", 7), *e, *r;
	uint64_t depth, overrun;

	if (!d)
		return *why = "\"depth=\" expected after the function", -1;
	e = d;
	r = exit ? memmem(s, e - s, " retval=", 8) : NULL;
	if (r) {
		struct text_cursor rc = {r + 8, d};
		tline_eat(&rc, "0x");
		if (!tline_hex(rc.p, d, &t->ret))
			return *why = "bad retval (hex expected)", -1;
		t->has_ret = true;
		e = r;
	}
	/* "NAME (0xADDR)" (3.3 on): the function is known by its name */
	if (e[-1] == ')' && (r = memmem(s, e - s, " (0x", 4)) && tline_hex(r + 4, e - 1, &depth))
		e = r;
	if (!func_name(s, e, t))
		return *why = "bad function name", -1;
	c->p = d;
	if (!raw_num(c, "depth=", false, &depth) || depth > 100000)
		return *why = "bad depth", -1;
	t->depth = (int)depth;
	if (!exit) {
		t->kind = TL_ENTRY;
		skip_spaces(c);
		if (c->p == c->end || (tline_eat(c, "args=ARRAY[]") && c->p == c->end))
			return 0;
		return *why = "funcgraph_entry: fields after depth other than \"args=ARRAY[]\"", -1;
	}
	if (!raw_num(c, "overrun=", false, &overrun) ||
	    !raw_num(c, "calltime=", true, &t->calltime) ||
	    !raw_num(c, "rettime=", true, &t->rettime) || c->p != c->end ||
	    t->rettime < t->calltime)
		return *why = "funcgraph_exit: \"overrun=N calltime=HEX rettime=HEX\" expected", -1;
	t->kind = TL_EXIT;
	t->has_calltime = t->has_dur = true;
	t->dur = t->rettime - t->calltime;
	t->dur_prec = 1;
	return 0;
}

/*
 * The thread group's id between the task and the CPU, "comm-12 (   10)
 * [000]" (the option record-tgid, print-tgid before 4.14; "(-------)" where
 * the kernel did not record the task's group), ending at *@q: moves *@q to
 * its start. The group is not kept: a trace.dat's is not read either. True
 * also where there is none.
 */
static bool tgid_column(const char *s, const char **q)
{
	const char *e = *q, *o;

	while (e > s && e[-1] == ' ')
		e--;
	if (e == s || e[-1] != ')')
		return true;
	for (o = e - 1; o > s && o[-1] != '('; o--)
		if (!(is_digit(o[-1]) || o[-1] == ' ' || o[-1] == '-'))
			return false;
	if (o == s || o == e - 1)
		return false;
	for (const char *d = o; d < e - 1 && *d == ' '; d++)
		if (d + 1 == e - 1)
			return false; /* spaces alone */
	*q = o - 1;
	return true;
}

/* "COMM-PID [CPU] [flags] TIME: EVENT: FIELDS" (trace-cmd report). */
static int report_line(struct text_cursor *c, const char *colon, struct tline *t, const char **why)
{
	const char *ts = colon, *q, *s = instance_prefix(c->p, colon);
	struct text_cursor tc;
	int prec;
	int k;

	while (ts > s && (is_digit(ts[-1]) || ts[-1] == '.'))
		ts--;
	q = ts;
	while (q > s && q[-1] == ' ')
		q--;
	/* the CPU: "[001]", maybe then flags, or "1dNh2." glued */
	if (cpu_field(s, &q, t))
		return *why = "\"[CPU]\" expected before the time", -1;
	if (!tgid_column(s, &q))
		return *why = "bad TGID column (\"(  123)\" or \"(-------)\" expected)", -1;
	if (!comm_pid(s, q, &t->comm, &t->pid))
		return *why = "\"COMM-PID\" expected at the start", -1;
	tc = (struct text_cursor){ts, colon};
	if (!decimal(&tc, 9, true, &t->ts, &prec) || tc.p != colon)
		return *why = "bad time", -1;
	t->has_ts = true;
	t->ts_prec = prec;
	c->p = colon + 1;
	skip_spaces(c);
	k = kernel_shapes(c, t, why);
	if (k)
		return k > 0 ? 0 : -1;
	q = c->p;
	while (q < c->end && *q != ':' && *q != ' ')
		q++;
	if (q == c->p || q >= c->end || *q != ':')
		return *why = "\"EVENT:\" expected after the time", -1;
	t->name = (struct text_span){c->p, (int)(q - c->p)};
	c->p = q + 1;
	if ((t->name.n == 15 && !memcmp(t->name.p, "funcgraph_entry", 15)) ||
	    (t->name.n == 14 && !memcmp(t->name.p, "funcgraph_exit", 14))) {
		struct text_cursor f = *c;
		skip_spaces(&f);
		if (f.end - f.p > 5 && !memcmp(f.p, "func=", 5)) { /* -R */
			bool exit = t->name.n == 14;
			t->name = (struct text_span){NULL, 0};
			return raw_graph(&f, t, exit, why);
		}
	}
	if (t->name.n == 15 && !memcmp(t->name.p, "funcgraph_entry", 15)) {
		t->name = (struct text_span){NULL, 0};
		if (graph_columns(c, t, NULL, why))
			return -1;
		return t->kind == TL_ENTRY || t->kind == TL_LEAF ? 0
			: (*why = "funcgraph_entry without a call", -1);
	}
	if (t->name.n == 20 && !memcmp(t->name.p, "fgraph_retaddr_entry", 20)) {
		t->name = (struct text_span){NULL, 0};
		skip_spaces(c);
		if (tline_eat(c, "-->")) /* no handler in trace-cmd: its print format */
			return retaddr_fields(c, t) ? 0 : (*why = "bad fgraph_retaddr_entry fields", -1);
		if (c->end - c->p > 5 && !memcmp(c->p, "func=", 5))
			return *why = "fgraph_retaddr_entry's raw fields (-R): not supported", -1;
		if (graph_columns(c, t, NULL, why))
			return -1;
		return t->kind == TL_ENTRY || t->kind == TL_LEAF ? 0
			: (*why = "fgraph_retaddr_entry without a call", -1);
	}
	if (t->name.n == 14 && !memcmp(t->name.p, "funcgraph_exit", 14)) {
		t->name = (struct text_span){NULL, 0};
		if (graph_columns(c, t, NULL, why))
			return -1;
		return t->kind == TL_EXIT ? 0 : (*why = "funcgraph_exit without '}'", -1);
	}
	skip_spaces(c);
	if (t->name.n == 8 && !memcmp(t->name.p, "function", 8)) {
		t->kind = TL_FUNC;
		return func_fields(c->p, c->end, t) ? 0 : (*why = "bad function event fields", -1);
	}
	t->kind = TL_EVENT;
	t->text = (struct text_span){c->p, (int)(c->end - c->p)};
	return 0;
}

/* The first "DIGITS.DIGITS:" that follows a space: a report line's time. */
static const char *report_colon(const char *p, const char *end)
{
	for (const char *q = p; q < end; q++) {
		const char *d = q;
		bool dot = false;
		if (*q != ' ' || q + 1 >= end || !is_digit(q[1]))
			continue;
		for (d = q + 1; d < end && (is_digit(*d) || (*d == '.' && !dot)); d++)
			dot |= *d == '.';
		if (dot && d < end && *d == ':' && d[-1] != '.')
			return d;
	}
	return NULL;
}

/*
 * A stack trace's frame after "=> ": "func+0x5/0xc0 [mod]" or "func"
 * (the kernel), "func (ffffffff81af64f3)" (trace-cmd), an address alone
 * ("0xffffffffc0305083", "<00007f12aa2b3c4d>" of a user stack).
 */
static bool frame_line(struct text_cursor *c, struct tline *t)
{
	const char *e = c->end, *o;

	t->kind = TL_FRAME;
	skip_spaces(c);
	if (tline_eat(c, "[FTRACE TRAMPOLINE]")) /* 6.x on: where kallsyms names it */
		return t->name = (struct text_span){"ftrace_trampoline", 17}, c->p == e;
	if (c->p < e && *c->p == '<' && e[-1] == '>')
		return t->has_addr = true, tline_hex(c->p + 1, e - 1, &t->addr);
	if (hex_span(c->p, e, true, &t->addr))
		return t->has_addr = true;
	if (e - c->p > 3 && e[-1] == ')' && (o = memchr(c->p, '(', e - c->p)) && o > c->p &&
	    o[-1] == ' ' && tline_hex(o + 1, e - 1, &t->addr)) {
		t->has_addr = true;
		e = o - 1;
	}
	return sym_mod(c->p, e, t);
}

/*
 * The kernel's header "# entries-in-buffer/entries-written: 540/7500   #P:2":
 * of 7500 events written, 540 are in the buffer, the others were
 * overwritten by later ones (the buffer overran): t->lost.
 */
static void entries_written(struct text_cursor s, struct tline *t)
{
	uint64_t in, all;

	if (tline_eat(&s, "# entries-in-buffer/entries-written: ") && digits(&s, &in, NULL) &&
	    tline_eat(&s, "/") && digits(&s, &all, NULL) && all > in)
		t->lost = all - in;
}

/* Lines that are not events: headers, separators, lost events, annotations. */
static bool special_line(struct text_cursor *c, struct tline *t)
{
	struct text_cursor s = *c;
	uint64_t v;

	skip_spaces(&s);
	if (s.p == s.end)
		return t->kind = TL_BLANK, true;
	if (*s.p == '#' && !(s.end - s.p >= 5 && !memcmp(s.p, "#####", 5)))
		return t->kind = TL_HEADER, entries_written(s, t), true;
	if (s.end - s.p >= 10 && !memcmp(s.p, "----------", 10)) {
		while (s.p < s.end && *s.p == '-')
			s.p++;
		skip_spaces(&s);
		return s.p == s.end && (t->kind = TL_SEP, true);
	}
	if (tline_eat(&s, "##### CPU ") && digits(&s, &v, NULL) && v < 65536)
		return t->cpu = (int)v, t->kind = TL_ANNOT, true;
	if (tline_eat(&s, "cpus=") && digits(&s, &v, NULL) && s.p == s.end)
		return t->kind = TL_HEADER, true;
	if (tline_eat(&s, "version = ") && digits(&s, &v, NULL) && s.p == s.end)
		return t->kind = TL_HEADER, true;
	s = *c;
	skip_spaces(&s);
	if (tline_eat(&s, "=> "))
		return frame_line(&s, t);
	if (tline_eat(&s, "CPU ") && digits(&s, &v, NULL) && v < 65536 &&
	    tline_eat(&s, " is empty") && s.p == s.end)
		return t->cpu = (int)v, t->kind = TL_ANNOT, true;
	s = *c;
	skip_spaces(&s);
	if (tline_eat(&s, "CPU:") && digits(&s, &v, NULL) && v < 65536 && tline_eat(&s, " [")) {
		t->cpu = (int)v;
		t->kind = TL_LOST;
		if (tline_eat(&s, "LOST ")) /* the kernel's */
			return digits(&s, &t->lost, NULL) && tline_eat(&s, " EVENTS]") &&
			       s.p == s.end;
		if (tline_eat(&s, "EVENTS DROPPED]")) /* trace-cmd's, where the page has no count */
			return t->lost_unknown = true, s.p == s.end;
		return digits(&s, &t->lost, NULL) && tline_eat(&s, " EVENTS DROPPED]") &&
		       s.p == s.end;
	}
	return false;
}

/*
 * The latency format's event line, "comm-123   0d..1.   12us+: func <-parent"
 * (the latency tracers irqsoff, preemptoff, wakeup..., and latency-format
 * with a tracer other than function_graph): times in us since the buffer
 * was reset, which the reader does not take.
 */
static bool lat_event_line(const char *p, const char *e)
{
	const char *q = e - p > 2 ? memmem(p, (size_t)(e - p), ": ", 2) : NULL, *d;

	if (!q || memchr(p, '|', q - p))
		return false;
	d = q;
	if (d > p && strchr(" !#$%@*+", d[-1]))
		d--;
	if (d - p > 2 && d[-1] == 's' && d[-2] == 'u')
		d -= 2;
	if (d == p || !is_digit(d[-1]))
		return false;
	while (d > p && is_digit(d[-1]))
		d--;
	return d > p && d[-1] == ' ' && memchr(p, '-', d - p);
}

int tline_parse(const char *p, int n, struct tline *t, const char **why)
{
	struct text_cursor c = {p, p + n};
	const char *colon;

	memset(t, 0, sizeof(*t));
	t->cpu = t->pid = -1;
	*why = NULL;
	while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' '))
		c.end--;
	for (const char *q = c.p; q < c.end; q++)
		if (*q == 0)
			return *why = "NUL byte in the line", -1;
	if (special_line(&c, t))
		return 0;
	if (t->kind == TL_FRAME)
		return *why = "bad stack frame (\" => func+0x1c/0x80\" expected)", -1;
	colon = report_colon(c.p, c.end);
	if (colon && !memchr(c.p, '|', colon - c.p))
		return report_line(&c, colon, t, why);
	if (lat_event_line(c.p, c.end))
		return *why = "a latency-format event line (a latency tracer's, or latency-format "
			      "on a tracer other than function_graph): not supported",
		       -1;
	return graph_line(&c, t, why);
}

/* One value of funcgraph-args at *@p: 0x1f, ?0x1f, -3, (STRUCT)[0x1:0x2], or bare hex. */
static bool targ_value(const char **p, const char *end, bool named, struct targs *a)
{
	const char *s = *p, *e = s;
	int i = a->n;
	int64_t d;

	while (e < end && !(e + 1 < end && e[0] == ',' && e[1] == ' '))
		e++;
	*p = e;
	if (*s == '(') { /* a type the kernel prints as its registers */
		const char *q = memchr(s, ')', e - s);
		if (!q || q + 1 >= e || q[1] != '[' || e[-1] != ']')
			return false;
		a->a[i].kind = 'w';
		for (s = q + 2; s < e - 1; s++) {
			const char *v = s;
			while (s < e - 1 && *s != ':')
				s++;
			if (s - v == 3 && !memcmp(v, "...", 3) && s == e - 1)
				break;
			if (a->nslots == TARGS_MAX || !hex_span(v, s, true, &a->v[a->nslots]))
				return false;
			a->nslots++;
			a->a[i].slots++;
		}
		return a->a[i].slots > 0;
	}
	if (a->nslots == TARGS_MAX)
		return false;
	a->a[i].slots = 1;
	a->a[i].kind = 'x';
	if (*s == '?') /* a type BTF does not tell */
		s++;
	if (hex_span(s, e, true, &a->v[a->nslots]) ||
	    (!named && hex_span(s, e, false, &a->v[a->nslots])))
		return a->nslots++, true;
	if (!named || !tline_dec(s, e, &d))
		return false;
	a->a[i].kind = 'd';
	a->v[a->nslots++] = (uint64_t)d;
	return true;
}

int tline_args_parse(struct text_span sp, struct targs *a)
{
	const char *p = sp.p, *end = sp.p + sp.n;

	memset(a, 0, sizeof(*a));
	while (p < end) {
		const char *q = p;

		if (a->n && !(end - p > 2 && p[0] == ',' && p[1] == ' '))
			return -1;
		p += a->n ? 2 : 0;
		if (end - p == 3 && !memcmp(p, "...", 3)) /* beyond the saved registers */
			return 0;
		if (a->n == TARGS_MAX)
			return -1;
		for (q = p; q < end && (*q == '_' || is_digit(*q) || (*q >= 'a' && *q <= 'z') ||
					(*q >= 'A' && *q <= 'Z'));
		     q++)
			;
		a->a[a->n].name = (struct text_span){p, 0};
		if (q < end && *q == '=') {
			a->a[a->n].name.n = (int)(q - p);
			p = q + 1;
		}
		if (p == end || !targ_value(&p, end, q < end && *q == '=', a))
			return -1;
		a->n++;
	}
	return 0;
}
