// SPDX-License-Identifier: MIT
#include "kmod.h"
#include "intern.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct kmod_map *m, uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (m->slots - 1);
}

static int grow(struct kmod_map *m)
{
	size_t n = m->slots ? 2 * m->slots : 1024;
	uint64_t *a = calloc(n, sizeof(*a));
	uint32_t *d = calloc(n, sizeof(*d));
	struct kmod_map old = *m;

	if (!a || !d) {
		free(a);
		free(d);
		return -1;
	}
	m->addr = a;
	m->mod = d;
	m->slots = n;
	for (size_t i = 0; i < old.slots; i++)
		if (old.addr[i]) {
			size_t k = slot_of(m, old.addr[i]);
			while (m->addr[k])
				k = (k + 1) & (n - 1);
			m->addr[k] = old.addr[i];
			m->mod[k] = old.mod[i];
		}
	free(old.addr);
	free(old.mod);
	return 0;
}

static int add(struct kmod_map *m, uint64_t addr, uint32_t mod)
{
	size_t k;

	if (2 * (m->n + 1) > m->slots && grow(m))
		return -1;
	for (k = slot_of(m, addr); m->addr[k]; k = (k + 1) & (m->slots - 1))
		if (m->addr[k] == addr)
			return 0; /* an alias: the first one names it */
	m->addr[k] = addr;
	m->mod[k] = mod;
	m->n++;
	return 0;
}

int kmod_line(struct kmod_map *m, const char *s, const char *end)
{
	const char *open = s;
	char *after;
	uint64_t addr;

	/* the first "\t[", if any: most lines have no tab at all */
	while ((open = memchr(open, '\t', (size_t)(end - open))) && open + 1 < end && open[1] != '[')
		open++;
	if (!open || open + 1 >= end || end[-1] != ']')
		return 0;
	addr = strtoull(s, &after, 16);
	/* "ADDR TYPE NAME\t[MOD]": the module in brackets at the end */
	if (after > s && end > open + 3 && addr) {
		long mod = intern_name(&m->names, &m->nnames, open + 2, (size_t)(end - 1 - (open + 2)));

		if (mod < 0 || add(m, addr, (uint32_t)mod))
			return -1;
	}
	return 0;
}

int kmod_parse(struct kmod_map *m, const char *s)
{
	while (*s) {
		const char *end = strchrnul(s, '\n');

		if (kmod_line(m, s, end))
			return -1;
		s = *end ? end + 1 : end;
	}
	return 0;
}

const char *kmod_find(const struct kmod_map *m, uint64_t addr)
{
	if (!m->n || !addr)
		return NULL;
	for (size_t k = slot_of(m, addr); m->addr[k]; k = (k + 1) & (m->slots - 1))
		if (m->addr[k] == addr)
			return m->names[m->mod[k]];
	return NULL;
}

void kmod_free(struct kmod_map *m)
{
	for (uint32_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m->addr);
	free(m->mod);
	memset(m, 0, sizeof(*m));
}
