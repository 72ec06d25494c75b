// SPDX-License-Identifier: MIT
#include "funcs.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct funcs {
	struct func_rec *f; /* f[id - 1] */
	int64_t n;
	int cap;
	int64_t *map; /* hash of (kind, name) -> id */
	int64_t slots;
};

static uint64_t hash(int kind, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)kind;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

struct funcs *funcs_new(void)
{
	return calloc(1, sizeof(struct funcs));
}

static int rehash(struct funcs *fs)
{
	int64_t n = fs->slots ? fs->slots * 2 : 1024;
	int64_t *m = calloc(n, sizeof(*m));

	if (!m)
		return -1;
	for (int64_t id = 1; id <= fs->n; id++) {
		const struct func_rec *r = &fs->f[id - 1];
		uint64_t i = hash(r->kind, r->name) & (n - 1);
		while (m[i])
			i = (i + 1) & (n - 1);
		m[i] = id;
	}
	free(fs->map);
	fs->map = m;
	fs->slots = n;
	return 0;
}

int64_t funcs_id(struct funcs *fs, int kind, const char *name, int64_t addr, const char *module)
{
	uint64_t i;
	struct func_rec *r;

	if (fs->n * 2 >= fs->slots && rehash(fs))
		return -1;
	for (i = hash(kind, name) & (fs->slots - 1); fs->map[i]; i = (i + 1) & (fs->slots - 1)) {
		r = &fs->f[fs->map[i] - 1];
		if (r->kind == kind && !strcmp(r->name, name))
			return fs->map[i];
	}
	if (GROW(fs->f, fs->n, fs->cap, 256))
		return -1;
	r = &fs->f[fs->n];
	r->id = fs->n + 1;
	r->name = strdup(name);
	r->module = module ? strdup(module) : NULL;
	if (!r->name || (module && !r->module)) {
		free((char *)r->name);
		free((char *)r->module);
		return -1;
	}
	r->kind = kind;
	r->addr = addr;
	r->overhead = kind == FUNC_KERNEL && funcs_tracer_overhead(name);
	fs->map[i] = ++fs->n;
	return fs->n;
}

int funcs_tracer_overhead(const char *name)
{
	static const char *const prefixes[] = {
	    "kprobe_", "kretprobe_", "aggr_pre_handler", "aggr_post_handler", "pre_handler_kretprobe",
	    "opt_pre_handler", "uprobe_", "uretprobe_", "handle_swbp", "rethook_", "ftrace_",
	    "fprobe_", "function_graph_", "prepare_ftrace_return", "trace_graph_", "__trace_graph_",
	    "trace_buffer_", "trace_event_buffer_", "trace_event_raw_event_", "perf_trace_",
	    "__traceiter_", "ring_buffer_", "rb_", "tracing_gen_ctx", "tracing_generic_entry_update",
	    "__trace_bputs", "trace_function", "__trace_stack",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

int64_t funcs_count(const struct funcs *fs)
{
	return fs->n;
}

const struct func_rec *funcs_get(const struct funcs *fs, int64_t id)
{
	return id >= 1 && id <= fs->n ? &fs->f[id - 1] : NULL;
}

void funcs_free(struct funcs *fs)
{
	if (!fs)
		return;
	for (int64_t i = 0; i < fs->n; i++) {
		free((char *)fs->f[i].name);
		free((char *)fs->f[i].module);
	}
	free(fs->f);
	free(fs->map);
	free(fs);
}
