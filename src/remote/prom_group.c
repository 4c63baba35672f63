/*
 * prom_group.c - series grouped into targets by --by labels, and their
 * names (prom_group.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_group.h"
#include "series.h"

struct by_arg {
	const struct prom_lset *const *sets;
	const char *const *by;
	size_t n_by;
};

static int cmp_by(const struct by_arg *k, size_t x, size_t y)
{
	for (size_t i = 0; i < k->n_by; i++) {
		int c = strcmp(prom_lset_get(k->sets[x], k->by[i]),
			       prom_lset_get(k->sets[y], k->by[i]));
		if (c)
			return c;
	}
	return 0;
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	return cmp_by(arg, *(const size_t *)a, *(const size_t *)b);
}

void prom_group_sort(size_t *idx, size_t n,
		     const struct prom_lset *const *sets,
		     const char *const *by, size_t n_by)
{
	if (!n_by)
		return;
	struct by_arg k = {sets, by, n_by};
	qsort_r(idx, n, sizeof(*idx), cmp_group, &k);
}

size_t prom_group_len(const size_t *idx, size_t n,
		      const struct prom_lset *const *sets,
		      const char *const *by, size_t n_by)
{
	if (!n_by)
		return 1;
	struct by_arg k = {sets, by, n_by};
	size_t j = 1;
	while (j < n && !cmp_by(&k, idx[0], idx[j]))
		j++;
	return j;
}

bool prom_group_common(const struct prom_group *g, const char *name)
{
	const char *v = prom_lset_get(g->sets[g->members[0]], name);
	for (size_t i = 1; i < g->n; i++) {
		const struct prom_lset *s = g->sets[g->members[i]];
		bool has = false;
		for (size_t k = 0; k < s->n; k++)
			if (!strcmp(s->l[k].name, name)) {
				has = !strcmp(s->l[k].value, v);
				break;
			}
		if (!has)
			return false;
	}
	return true;
}

struct name_arg {
	const struct prom_group *g;
	bool keep_name;
};

static bool common_named(const char *name, const void *arg)
{
	const struct name_arg *a = arg;
	return (strcmp(name, "__name__") || a->keep_name) &&
	       prom_group_common(a->g, name);
}

static bool not_common(const char *name, const void *arg)
{
	return strcmp(name, "__name__") && !prom_group_common(arg, name);
}

char *prom_group_name(const struct prom_group *g, bool keep_name)
{
	const struct prom_lset *l0 = g->sets[g->members[0]];
	struct name_arg a = {g, keep_name};
	return prom_labels_format(l0->l, l0->n, common_named, &a);
}

char *prom_group_member_name(const struct prom_group *g, size_t i)
{
	const struct prom_lset *s = g->sets[g->members[i]];
	return prom_labels_format(s->l, s->n, not_common, g);
}

static const char *series_label_value(const struct series *s,
				      const char *name)
{
	for (size_t k = 0; k < s->n_labels; k++)
		if (!strcmp(s->labels[k].name, name))
			return s->labels[k].value;
	return NULL;
}

struct unshare_arg {
	const struct prom_label *shared;
	size_t n_shared;
	bool keep_name;
};

static bool not_shared(const char *name, const void *arg)
{
	const struct unshare_arg *a = arg;
	if (!strcmp(name, "__name__"))
		return a->keep_name;
	for (size_t i = 0; i < a->n_shared; i++)
		if (!strcmp(a->shared[i].name, name))
			return false;
	return true;
}

/* t's labels as prom_labels_format() takes them, borrowed, into l. */
static void series_labels_view(const struct series *t, struct prom_label *l)
{
	for (size_t k = 0; k < t->n_labels; k++)
		l[k] = (struct prom_label){t->labels[k].name,
					   t->labels[k].value};
}

char *prom_targets_unshare(struct series *const *t, size_t n, bool keep_name)
{
	if (n < 2 || !t[0]->n_labels)
		return NULL;
	const struct series *s0 = t[0];
	struct prom_label *shared = xcalloc(s0->n_labels, sizeof(*shared));
	struct unshare_arg a = {shared, 0, keep_name};
	for (size_t k = 0; k < s0->n_labels; k++) {
		const char *name = s0->labels[k].name;
		const char *v = s0->labels[k].value;
		if (!strcmp(name, "__name__"))
			continue;
		bool all = true;
		for (size_t i = 1; i < n && all; i++) {
			const char *w = series_label_value(t[i], name);
			all = w && !strcmp(w, v);
		}
		if (all)
			shared[a.n_shared++] = (struct prom_label){name, v};
	}
	/* Every name must keep a label: else the full names stay. */
	for (size_t i = 0; i < n && a.n_shared; i++) {
		bool kept = false;
		for (size_t k = 0; k < t[i]->n_labels && !kept; k++)
			kept = not_shared(t[i]->labels[k].name, &a);
		if (!kept)
			a.n_shared = 0;
	}
	char *out = NULL;
	if (a.n_shared) {
		out = prom_labels_format(shared, a.n_shared, NULL, NULL);
		size_t most = 1;
		for (size_t i = 0; i < n; i++)
			if (t[i]->n_labels > most)
				most = t[i]->n_labels;
		struct prom_label *view = xcalloc(most, sizeof(*view));
		for (size_t i = 0; i < n; i++) {
			series_labels_view(t[i], view);
			char *name = prom_labels_format(view, t[i]->n_labels,
							not_shared, &a);
			free(t[i]->name);
			t[i]->name = name;
		}
		free(view);
	}
	free(shared);
	return out;
}
