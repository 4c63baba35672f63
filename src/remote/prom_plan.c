/*
 * prom_plan.c - listed series into batches by label matchers
 * (prom_plan.h says how and why).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_plan.h"
#include "strmap.h"

struct part {
	struct prom_plan *p;
	const struct prom_lset *sets;
	size_t max_series;
	const char *const *by;
	size_t n_by;
	size_t matcher_max;
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* A batch of the series members[0..n) (copied), selected by matchers. */
static void add_batch(struct part *pt, const char *matchers,
		      const size_t *members, size_t n)
{
	struct prom_plan *p = pt->p;
	xgrow((void **)&p->b, &p->cap, p->n + 1, sizeof(*p->b));
	struct prom_batch *b = &p->b[p->n++];
	b->matchers = xstrdup(matchers);
	b->members = xmalloc((n ? n : 1) * sizeof(*b->members));
	memcpy(b->members, members, n * sizeof(*members));
	qsort(b->members, n, sizeof(*b->members), cmp_size);
	b->n = n;
}

static bool label_allowed(const struct part *pt, const char *name)
{
	if (!pt->n_by)
		return true;
	for (size_t i = 0; i < pt->n_by; i++)
		if (!strcmp(pt->by[i], name))
			return true;
	return false;
}

struct by_label {
	const struct prom_lset *sets;
	const char *label;
};

static int cmp_by_label(const void *a, const void *b, void *arg)
{
	const struct by_label *k = arg;
	return strcmp(prom_lset_get(&k->sets[*(const size_t *)a], k->label),
		      prom_lset_get(&k->sets[*(const size_t *)b], k->label));
}

/* matchers, then `label OP "value"` (value as given: already quoted). */
static char *matchers_add(const char *matchers, const char *label,
			  const char *op, const char *value)
{
	struct strbuf m = {0};
	strbuf_str(&m, matchers);
	if (*matchers)
		strbuf_str(&m, ", ");
	strbuf_str(&m, label);
	strbuf_str(&m, op);
	strbuf_str(&m, "\"");
	strbuf_str(&m, value);
	strbuf_str(&m, "\"");
	return m.s;
}

/* A batch of the values alt (a regex alternation) of label. */
static void add_pack(struct part *pt, const char *matchers, const char *label,
		     const char *alt, const size_t *members, size_t n)
{
	char *m = matchers_add(matchers, label, "=~", alt);
	add_batch(pt, m, members, n);
	free(m);
}

/* The allowed label with the most distinct values among idx[0..n) (more
 * than one), or NULL; owned. Leaves idx in some order. */
static char *best_label(struct part *pt, size_t *idx, size_t n)
{
	const char *best = NULL;
	size_t best_values = 1;
	struct strmap names = {0};
	for (size_t i = 0; i < n; i++) {
		const struct prom_lset *s = &pt->sets[idx[i]];
		for (size_t k = 0; k < s->n; k++)
			if (strmap_get(&names, s->l[k].name) == SIZE_MAX &&
			    label_allowed(pt, s->l[k].name))
				strmap_put(&names, s->l[k].name, 0);
	}
	for (size_t j = 0; j < names.cap; j++) {
		if (!names.keys[j])
			continue;
		struct by_label k = {pt->sets, names.keys[j]};
		qsort_r(idx, n, sizeof(*idx), cmp_by_label, &k);
		size_t values = 1;
		for (size_t i = 1; i < n; i++)
			if (strcmp(prom_lset_get(&pt->sets[idx[i - 1]], k.label),
				   prom_lset_get(&pt->sets[idx[i]], k.label)))
				values++;
		if (values > best_values) {
			best_values = values;
			best = names.keys[j];
		}
	}
	char *out = best ? xstrdup(best) : NULL;
	strmap_release(&names);
	return out;
}

/* Cut the series idx[0..n) (already selected by `matchers`) into
 * batches (prom_plan.h). idx is reordered. */
static void partition(struct part *pt, size_t *idx, size_t n,
		      const char *matchers)
{
	if (n <= pt->max_series) {
		add_batch(pt, matchers, idx, n);
		return;
	}
	char *label = best_label(pt, idx, n);
	if (!label) {
		/* One --by group larger than a batch: it is one target's
		 * incarnations, fetched together. */
		add_batch(pt, matchers, idx, n);
		return;
	}
	struct by_label k = {pt->sets, label};
	qsort_r(idx, n, sizeof(*idx), cmp_by_label, &k);
	struct strbuf alt = {0};
	size_t *pack = xmalloc(n * sizeof(*pack));  /* the pack's series */
	size_t in_pack = 0, values = 0;
	for (size_t i = 0; i < n;) {
		const char *v = prom_lset_get(&pt->sets[idx[i]], label);
		size_t j = i + 1;
		while (j < n &&
		       !strcmp(prom_lset_get(&pt->sets[idx[j]], label), v))
			j++;
		size_t count = j - i;
		if (count > pt->max_series) {
			/* This value alone is too many: narrow it further
			 * (the pack so far goes on after it). */
			char *q = prom_quote(v);
			char *m = matchers_add(matchers, label, "=", q);
			partition(pt, idx + i, count, m);
			free(m);
			free(q);
		} else {
			char *re = prom_regex_escape(v);
			char *rq = prom_quote(re);
			if (values && (in_pack + count > pt->max_series ||
				       alt.len + strlen(rq) + 1 >
				       pt->matcher_max)) {
				add_pack(pt, matchers, label, alt.s, pack,
					 in_pack);
				alt.len = 0;
				in_pack = values = 0;
			}
			if (values++)
				strbuf_str(&alt, "|");
			strbuf_str(&alt, rq);
			memcpy(pack + in_pack, idx + i, count * sizeof(*idx));
			in_pack += count;
			free(re);
			free(rq);
		}
		i = j;
	}
	if (values)
		add_pack(pt, matchers, label, alt.s, pack, in_pack);
	free(pack);
	free(alt.s);
	free(label);
}

void prom_plan_make(struct prom_plan *p, const struct prom_lset *sets,
		    size_t n, size_t max_series, const char *const *by,
		    size_t n_by, size_t matcher_max)
{
	assert(n >= 1 && max_series >= 1);
	struct part pt = {p, sets, max_series, by, n_by, matcher_max};
	size_t *idx = xmalloc(n * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	partition(&pt, idx, n, "");
	free(idx);
}

void prom_plan_release(struct prom_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->b[i].matchers);
		free(p->b[i].members);
	}
	free(p->b);
	memset(p, 0, sizeof(*p));
}
