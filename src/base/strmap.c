/*
 * strmap.c - a growing string and a string -> index map (strmap.h).
 * The map keeps at most half of its slots used (linear probing stays
 * short) and doubles when an insertion would pass that.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "strmap.h"

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_str(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

size_t strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return SIZE_MAX;
	for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) &
	     (m->cap - 1)) {
		if (!m->keys[i])
			return SIZE_MAX;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
	if (2 * (m->n + 1) > m->cap) {
		struct strmap g = {0};
		g.cap = m->cap ? 2 * m->cap : 64;
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = hash_str(m->keys[i]) & (g.cap - 1);
				while (g.keys[j])
					j = (j + 1) & (g.cap - 1);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = xstrdup(key);
	m->vals[i] = val;
	m->n++;
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
