/*
 * prom_fetch.c - a range query's series gathered across time chunks
 * (prom_fetch.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_fetch.h"

static int on_points(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct prom_fetch *fx = arg;
	if (fx->stop && atomic_load(fx->stop))
		return 1;
	char *key = prom_labels_format(l, nl, NULL, NULL);
	size_t i = strmap_get(&fx->map, key);
	if (i == SIZE_MAX) {
		i = fx->n_raw;
		xgrow((void **)&fx->raw, &fx->cap_raw, fx->n_raw + 1,
		      sizeof(*fx->raw));
		struct prom_raw *r = &fx->raw[fx->n_raw++];
		memset(r, 0, sizeof(*r));
		prom_lset_copy(&r->ls, l, nl);
		strmap_put(&fx->map, key, i);
	}
	free(key);
	struct prom_raw *r = &fx->raw[i];
	if (r->n + n > r->cap) {
		size_t cap = r->cap ? r->cap : 256;
		while (cap < r->n + n)
			cap *= 2;
		r->t = xrealloc(r->t, cap * sizeof(double));
		r->v = xrealloc(r->v, cap * sizeof(double));
		r->cap = cap;
	}
	for (size_t k = 0; k < n; k++) {
		if (r->n && t[k] <= r->t[r->n - 1])
			continue;  /* a chunk's edge seen twice */
		r->t[r->n] = t[k];
		r->v[r->n] = v[k];
		if (v[k] != floor(v[k]))
			r->fractional = true;
		r->n++;
	}
	return 0;
}

int prom_fetch_range(struct prom_client *pc, const char *query,
		     const struct prom_grid *g, size_t chunk_points,
		     struct prom_fetch *fx)
{
	for (size_t first = 0; first < g->points; first += chunk_points) {
		size_t last = first + chunk_points - 1;
		if (last >= g->points)
			last = g->points - 1;
		int rc = prom_query_range(pc, query,
					  g->start + (double)first * g->step,
					  g->start + (double)last * g->step,
					  g->step, on_points, fx);
		if (rc)
			return rc;
	}
	return 0;
}

void prom_raw_drop_points(struct prom_raw *r)
{
	free(r->t);
	free(r->v);
	r->t = r->v = NULL;
	r->n = r->cap = 0;
}

void prom_fetch_release(struct prom_fetch *fx)
{
	for (size_t i = 0; i < fx->n_raw; i++) {
		prom_lset_release(&fx->raw[i].ls);
		free(fx->raw[i].t);
		free(fx->raw[i].v);
	}
	free(fx->raw);
	strmap_release(&fx->map);
	memset(fx, 0, sizeof(*fx));
}
