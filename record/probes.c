// SPDX-License-Identifier: MIT
/*
 * Dynamic probes: kprobes and kretprobes on kernel symbols, uprobes and
 * uretprobes on user functions found by name in the ELF symbol table. They
 * are created with libtracefs' dynevent API in darc's own groups
 * (darc_kprobes, darc_uprobes) and removed on exit; 'darc-record --reset'
 * removes what a killed recorder left in those groups.
 *
 * Event names: the function's name, with "__return" for a return probe.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "probes.h"
#include "rec.h"
#include "uprobe.h"

const char *probe_group(enum rec_probe_type t)
{
	return t == PROBE_KPROBE || t == PROBE_KRETPROBE ? REC_KPROBE_GROUP : REC_UPROBE_GROUP;
}

static bool is_return(enum rec_probe_type t)
{
	return t == PROBE_KRETPROBE || t == PROBE_URETPROBE;
}

static const char *type_name(enum rec_probe_type t)
{
	static const char *const n[] = {"kprobe", "kretprobe", "uprobe", "uretprobe"};
	return n[t];
}

/* An event name from @s (up to @n bytes): letters, digits and '_' only. */
static char *event_name(const char *s, size_t n, bool ret)
{
	char *e = malloc(n + sizeof(REC_RETURN_SUFFIX) + 2);
	size_t k = 0;

	if (!e)
		return NULL;
	if (n && isdigit((unsigned char)s[0]))
		e[k++] = '_';
	for (size_t i = 0; i < n; i++)
		e[k++] = isalnum((unsigned char)s[i]) ? s[i] : '_';
	e[k] = 0;
	if (ret)
		strcat(e, REC_RETURN_SUFFIX);
	return e;
}

/* The absolute path of program @bin: as given if it has a '/', else from $PATH. */
static char *find_binary(const char *bin)
{
	char buf[PATH_MAX];
	const char *path = getenv("PATH");

	if (strchr(bin, '/'))
		return realpath(bin, NULL);
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, bin);
		if (!access(buf, X_OK))
			return realpath(buf, NULL);
		p += n + (p[n] == ':');
	}
	return NULL;
}

int probe_parse(struct rec_probe *p, enum rec_probe_type type, const char *spec,
		struct err_msg *err)
{
	const char *s = spec + strspn(spec, " \t");
	size_t n = strcspn(s, " \t");
	const char *rest = s + n + strspn(s + n, " \t");

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->spec = strdup(spec);
	p->where = strndup(s, n);
	p->args = *rest ? strdup(rest) : NULL;
	if (!p->spec || !p->where || (*rest && !p->args))
		return err_setf(err, NULL, "out of memory");
	if (!n)
		return err_setf(err, NULL, "empty %s: a %s is given as %s", type_name(type),
				type_name(type),
				type <= PROBE_KRETPROBE ? "'SYMBOL[+OFFSET] [ARGS]'"
							: "'BINARY:FUNCTION [ARGS]'");
	if (type == PROBE_KPROBE || type == PROBE_KRETPROBE) {
		p->event = event_name(s, strcspn(s, "+ \t"), is_return(type));
	} else {
		const char *colon = memrchr(s, ':', n);
		char *bin;
		int rc;

		if (!colon || colon == s || colon + 1 == s + n)
			return err_setf(
			    err, NULL, "%s '%s': give it as BINARY:FUNCTION (e.g. /usr/bin/x:main)",
			    type_name(type), spec);
		bin = strndup(s, colon - s);
		if (!bin)
			return err_setf(err, NULL, "out of memory");
		p->file = find_binary(bin);
		if (!p->file) {
			rc = err_setf(err, bin, "cannot find the binary of %s '%s': %s",
				      type_name(type), spec, strerror(errno ? errno : ENOENT));
			free(bin);
			return rc;
		}
		free(bin);
		{
			char *func = strndup(colon + 1, s + n - colon - 1);
			if (!func)
				return err_setf(err, NULL, "out of memory");
			rc = uprobe_offset(p->file, func, &p->offset, err);
			p->event = event_name(func, strlen(func), is_return(type));
			free(func);
			if (rc)
				return -1;
		}
	}
	if (!p->event)
		return err_setf(err, NULL, "out of memory");
	return 0;
}

static struct tracefs_dynevent *alloc_probe(const struct rec_probe *p)
{
	const char *g = probe_group(p->type);

	switch (p->type) {
	case PROBE_KPROBE:
		return tracefs_kprobe_alloc(g, p->event, p->where, p->args);
	case PROBE_KRETPROBE:
		return tracefs_kretprobe_alloc(g, p->event, p->where, p->args, 0);
	case PROBE_UPROBE:
		return tracefs_uprobe_alloc(g, p->event, p->file, p->offset, p->args);
	case PROBE_URETPROBE:
		return tracefs_uretprobe_alloc(g, p->event, p->file, p->offset, p->args);
	}
	return NULL;
}

int probes_create(struct rec_opts *o, struct err_msg *err)
{
	for (int i = 0; i < o->nprobes; i++) {
		struct rec_probe *p = &o->probes[i];
		const char *g = probe_group(p->type);

		for (int k = 0; k < i; k++)
			if (!strcmp(o->probes[k].event, p->event) &&
			    !strcmp(probe_group(o->probes[k].type), g)) {
				err_setf(err, NULL, "%s '%s' and '%s' would both be event %s:%s",
					 type_name(p->type), o->probes[k].spec, p->spec, g,
					 p->event);
				goto fail;
			}
		/*
		 * The event's directory, not tracefs_dynevent_get(): that
		 * crashes in libtracefs 1.6 once a probe of the group exists
		 * (parsing dynamic_events), as soon as a second -U function.
		 */
		if (tracefs_event_file_exists(NULL, g, p->event, "enable")) {
			err_setf(err, NULL,
				 "probe event %s:%s exists already: a darc-record running "
				 "has it (the probe groups are shared), or a killed one left "
				 "it ('darc-record --reset' removes it then)",
				 g, p->event);
			goto fail;
		}
		p->dev = alloc_probe(p);
		if (!p->dev) {
			err_setf(err, NULL, "cannot make %s '%s': %s", type_name(p->type), p->spec,
				 strerror(errno));
			goto fail;
		}
		if (tracefs_dynevent_create(p->dev)) {
			int e = errno;
			char *why = tracefs_error_last(NULL);
			err_setf(err, NULL, "cannot create %s '%s': %s%s%s", type_name(p->type),
				 p->spec, strerror(e), why ? ": " : "", why ? why : "");
			free(why);
			goto fail;
		}
		p->created = true;
	}
	return 0;
fail:
	probes_destroy(o);
	return -1;
}

int probe_destroy(struct tracefs_dynevent *dev)
{
	/*
	 * Not forced first: forcing makes libtracefs write 0 to the event's
	 * enable file at the top level, and that write alone allocates the
	 * top-level ring buffer on a box where nothing traced yet. Our instances
	 * are gone by now, so nothing else should have the event enabled.
	 */
	if (!tracefs_dynevent_destroy(dev, false))
		return 0;
	return tracefs_dynevent_destroy(dev, true);
}

void probes_destroy(struct rec_opts *o)
{
	for (int i = 0; i < o->nprobes; i++) {
		struct rec_probe *p = &o->probes[i];
		if (p->created)
			probe_destroy(p->dev);
		tracefs_dynevent_free(p->dev);
		p->dev = NULL;
		p->created = false;
	}
}
