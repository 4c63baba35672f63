/*
 * prom_group.c - series grouped into targets by --by labels, and their
 * names (prom_group.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_group.h"

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
