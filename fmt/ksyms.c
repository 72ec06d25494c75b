// SPDX-License-Identifier: MIT
#include "ksyms.h"
#include "grow.h"
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#define ARENA_CHUNK 16384

int ksyms_start(struct ksyms *k, const char *text, size_t size, bool owned)
{
	if (k->text || size > UINT32_MAX) {
		if (owned)
			free((char *)text);
		return -1;
	}
	k->text = text;
	k->owned = owned ? (char *)text : NULL;
	return 0;
}

int ksyms_add(struct ksyms *k, uint64_t addr, const char *name, size_t len, const char *mod,
	      size_t mod_len)
{
	long m = -1;

	if (len > UINT16_MAX)
		return 0; /* no kernel's: leave it out */
	if (mod && ((m = intern_name(&k->mods, &k->nmods, mod, mod_len)) < 0 || m >= UINT16_MAX))
		return -1;
	if (GROW(k->v, k->n, k->cap, 4096))
		return -1;
	k->v[k->n++] = (struct ksym){addr, (uint32_t)(name - k->text), (uint16_t)len, (uint16_t)(m + 1)};
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
	struct ksyms *k = priv;
	const struct ksym *s = ksyms_find(k, *addrp);

	if (!s)
		return NULL;
	*addrp = s->addr;
	*modp = s->mod ? k->mods[s->mod - 1] : NULL;
	return (char *)ksyms_name(k, s);
}

int ksyms_publish(struct ksyms *k, struct tep_handle *tep)
{
	struct ksym *tmp;

	if (k->published)
		return 0;
	/* one more entry: libtraceevent's table ends in one of address 0 */
	if (GROW(k->v, k->n, k->cap, 1))
		return -1;
	tmp = malloc((k->n ? k->n : 1) * sizeof(*tmp));
	k->cnames = calloc(k->n ? k->n : 1, sizeof(*k->cnames)); /* zero pages until used */
	if (!tmp || !k->cnames) {
		free(tmp);
		return -1;
	}
	sort_stable(k->v, tmp, k->n);
	free(tmp);
	/* libtraceevent's table is its list of registrations, newest first,
	   sorted stably: at one address, the last registered comes first */
	for (size_t i = 0, j; i < k->n; i = j) {
		for (j = i + 1; j < k->n && k->v[j].addr == k->v[i].addr; j++)
			;
		for (size_t a = i, b = j - 1; a < b; a++, b--) {
			struct ksym t = k->v[a];
			k->v[a] = k->v[b];
			k->v[b] = t;
		}
	}
	k->v[k->n] = (struct ksym){0, 0, 0, 0};
	k->published = true;
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
	struct ksym key = {addr, 0, 0, 0};

	if (!k->published || !k->n)
		return NULL;
	return bsearch(&key, k->v, k->n, sizeof(*k->v), find_cmp);
}

/* Is @name (@len bytes) a section marker, not a function: __sched_text_start, _etext, ...? */
static bool marker(const char *name, size_t len)
{
	static const char *const ends[] = {"_text_start", "_text_end"};
	static const char *const whole[] = {"_text", "_stext", "_etext", "_sinittext",
					    "_einittext"};

	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++)
		if (len > strlen(ends[i]) &&
		    !memcmp(name + len - strlen(ends[i]), ends[i], strlen(ends[i])))
			return true;
	for (size_t i = 0; i < sizeof(whole) / sizeof(*whole); i++)
		if (len == strlen(whole[i]) && !memcmp(name, whole[i], len))
			return true;
	return false;
}

const char *ksyms_function_at(struct ksyms *k, uint64_t addr)
{
	const struct ksym *s = ksyms_find(k, addr), *end = k->v + k->n;

	if (!s || s->addr != addr)
		return NULL;
	while (s > k->v && s[-1].addr == addr)
		s--;
	for (; s < end && s->addr == addr; s++)
		if (!marker(k->text + s->name, s->len))
			return ksyms_name(k, s);
	return NULL;
}

/* @n bytes of string space that live as long as @k, or NULL. */
static char *arena_take(struct ksyms *k, size_t n)
{
	char *p;

	if (!k->arena || k->arena_used + n > k->arena_size) {
		size_t size = n + sizeof(char *) > ARENA_CHUNK ? n + sizeof(char *) : ARENA_CHUNK;
		char *c = malloc(size);

		if (!c)
			return NULL;
		memcpy(c, &k->arena, sizeof(char *)); /* the chain, for ksyms_free() */
		k->arena = c;
		k->arena_used = sizeof(char *);
		k->arena_size = size;
	}
	p = k->arena + k->arena_used;
	k->arena_used += n;
	return p;
}

const char *ksyms_name(struct ksyms *k, const struct ksym *s)
{
	size_t i = (size_t)(s - k->v);
	char *c = k->cnames[i];

	if (!c && (c = arena_take(k, s->len + 1u))) {
		memcpy(c, k->text + s->name, s->len);
		c[s->len] = 0;
		k->cnames[i] = c;
	}
	return c;
}

void ksyms_free(struct ksyms *k)
{
	for (char *c = k->arena, *next; c; c = next) {
		memcpy(&next, c, sizeof(char *));
		free(c);
	}
	for (uint32_t i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->mods);
	free(k->cnames);
	free(k->v);
	free(k->owned);
	memset(k, 0, sizeof(*k));
}
