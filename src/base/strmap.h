/*
 * strmap.h - two small string tools: a growing string (strbuf) and a map
 * from strings to indexes (strmap, open addressing, FNV-1a).
 *
 * What they are for: building PromQL matchers and label-set names, and
 * finding a series by its label set while a response streams in
 * (report --prometheus, docs/fleet.md). What they do not do: delete a
 * key, or iterate in any order but the slots' (strmap's keys and cap are
 * public for that: a slot is used when keys[i] is not NULL; the order
 * depends on the hash and the capacity, not on the order of insertion).
 *
 * Ownership: a strbuf owns s (NULL until something is added; the caller
 * frees it, or takes it); a strmap owns copies of its keys.
 */
#ifndef MEMTREND_STRMAP_H
#define MEMTREND_STRMAP_H

#include <stddef.h>

/* A growing string; {0} is empty. s is NUL-terminated once non-NULL. */
struct strbuf {
	char *s;
	size_t len, cap;
};

void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_str(struct strbuf *b, const char *s);

/* A map of strings to size_t; {0} is empty. */
struct strmap {
	char **keys;               /* owned; NULL = an empty slot */
	size_t *vals;
	size_t cap, n;             /* cap: 0 or a power of two */
};

/* The value of key, or SIZE_MAX when absent. */
size_t strmap_get(const struct strmap *m, const char *key);
/* Insert key (copied) with val; key must be absent. */
void strmap_put(struct strmap *m, const char *key, size_t val);
void strmap_release(struct strmap *m);

#endif
