/*
 * prom_labels.c - label sets and their text form (prom_labels.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_labels.h"
#include "strmap.h"

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct prom_label *)a)->name,
		      ((const struct prom_label *)b)->name);
}

void prom_lset_copy(struct prom_lset *s, const struct prom_label *l, size_t n)
{
	s->n = n;
	s->l = xmalloc((n ? n : 1) * sizeof(*s->l));
	for (size_t i = 0; i < n; i++) {
		s->l[i].name = xstrdup(l[i].name);
		s->l[i].value = xstrdup(l[i].value);
	}
	qsort(s->l, n, sizeof(*s->l), cmp_label);
}

void prom_lset_release(struct prom_lset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free((char *)s->l[i].name);
		free((char *)s->l[i].value);
	}
	free(s->l);
	s->l = NULL;
	s->n = 0;
}

const char *prom_lset_get(const struct prom_lset *s, const char *name)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->l[mid].name, name);
		if (!c)
			return s->l[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

bool prom_lset_holds(const struct prom_lset *s, const struct prom_lset *want)
{
	for (size_t k = 0; k < want->n; k++)
		if (strcmp(want->l[k].name, "__name__") &&
		    strcmp(prom_lset_get(s, want->l[k].name),
			   want->l[k].value))
			return false;
	return true;
}

char *prom_labels_format(const struct prom_label *l, size_t n,
			 bool (*keep)(const char *name, const void *arg),
			 const void *arg)
{
	struct strbuf b = {0};
	strbuf_str(&b, "{");
	for (size_t i = 0; i < n; i++) {
		if (keep && !keep(l[i].name, arg))
			continue;
		char *q = prom_quote(l[i].value);
		if (b.len > 1)
			strbuf_str(&b, ",");
		strbuf_str(&b, l[i].name);
		strbuf_str(&b, "=\"");
		strbuf_str(&b, q);
		strbuf_str(&b, "\"");
		free(q);
	}
	strbuf_str(&b, "}");
	return b.s;
}
