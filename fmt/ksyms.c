// SPDX-License-Identifier: MIT
#include "ksyms.h"

#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

int ksyms_add(struct ksyms *k, uint64_t addr, const char *name, const char *mod)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 4096;
		struct ksym *v = realloc(k->reg, cap * sizeof(*v));

		if (!v)
			return -1;
		k->reg = v;
		k->cap = cap;
	}
	k->reg[k->n++] = (struct ksym){addr, name, mod};
	return 0;
}

int ksyms_keep(struct ksyms *k, char *text)
{
	char **t = realloc(k->texts, (k->ntexts + 1) * sizeof(*t));

	if (!t) {
		free(text);
		return -1;
	}
	k->texts = t;
	t[k->ntexts++] = text;
	return 0;
}

/*
 * Sort @a (@n) by address, stably, through @tmp (as large): a merge sort
 * that merges only halves out of order, so a run already in order costs a
 * comparison per half, not a copy.
 */
static void sort_stable(struct ksym *a, struct ksym *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, o = 0;

	if (n < 2)
		return;
	sort_stable(a, tmp, h);
	sort_stable(a + h, tmp, n - h);
	if (a[h - 1].addr <= a[h].addr)
		return;
	while (i < h && j < n)
		tmp[o++] = a[j].addr < a[i].addr ? a[j++] : a[i++];
	while (i < h)
		tmp[o++] = a[i++];
	/* what is left of the second half is in place */
	memcpy(a, tmp, o * sizeof(*a));
}

/* The resolver libtraceevent calls: the function at or before *@addrp. */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	const struct ksym *s = ksyms_find(priv, *addrp);

	if (!s)
		return NULL;
	*addrp = s->addr;
	*modp = (char *)s->mod;
	return (char *)s->name;
}

int ksyms_publish(struct ksyms *k, struct tep_handle *tep)
{
	struct ksym *map = realloc(k->map, (k->n + 1) * sizeof(*map));
	struct ksym *tmp = malloc((k->n ? k->n : 1) * sizeof(*tmp));

	if (map)
		k->map = map;
	if (!map || !tmp) {
		free(tmp);
		return -1;
	}
	if (k->n) /* none: a kallsyms of absolute symbols only */
		memcpy(map, k->reg, k->n * sizeof(*map));
	sort_stable(map, tmp, k->n);
	free(tmp);
	/* libtraceevent's table is its list of registrations, newest first,
	   sorted stably: at one address, the last registered comes first */
	for (size_t i = 0, j; i < k->n; i = j) {
		for (j = i + 1; j < k->n && map[j].addr == map[i].addr; j++)
			;
		for (size_t a = i, b = j - 1; a < b; a++, b--) {
			struct ksym t = map[a];
			map[a] = map[b];
			map[b] = t;
		}
	}
	map[k->n] = (struct ksym){0, NULL, NULL};
	return tep_set_function_resolver(tep, resolve, k) ? -1 : 0;
}

/* libtraceevent's comparison: @key is at @elem's address, or between it and the next one's. */
static int find_cmp(const void *key, const void *elem)
{
	const struct ksym *a = key, *b = elem;

	if (a->addr == b->addr || (a->addr > b->addr && a->addr < b[1].addr))
		return 0;
	return a->addr < b->addr ? -1 : 1;
}

const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	struct ksym key = {addr, NULL, NULL};

	if (!k->map || !k->n)
		return NULL;
	return bsearch(&key, k->map, k->n, sizeof(*k->map), find_cmp);
}

void ksyms_free(struct ksyms *k)
{
	for (int i = 0; i < k->ntexts; i++)
		free(k->texts[i]);
	free(k->texts);
	free(k->reg);
	free(k->map);
	memset(k, 0, sizeof(*k));
}
