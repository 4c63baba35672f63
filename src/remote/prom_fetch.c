/*
 * prom_fetch.c - a range query's series gathered across time chunks
 * (prom_fetch.h): each response's series found again by their label
 * set, what was not asked for left out and counted, points merged into
 * each series' record.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "prom_fetch.h"

char *prom_fetch_key(const struct prom_label *l, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = strcmp(l[i - 1].name, l[i].name) < 0;
	if (sorted)
		return prom_labels_format(l, n, NULL, NULL);
	struct prom_lset s;
	prom_lset_copy(&s, l, n);
	char *key = prom_labels_format(s.l, s.n, NULL, NULL);
	prom_lset_release(&s);
	return key;
}

/* t[0..n), v[0..n) (strictly increasing times) merged into r, whose
 * points are too: a time r has keeps r's point (the first read). */
static void merge(struct prom_fetch *fx, struct prom_raw *r,
		  const double *t, const double *v, size_t n)
{
	size_t m = r->n + n;
	double *mt = xmalloc(m * sizeof(*mt)), *mv = xmalloc(m * sizeof(*mv));
	size_t i = 0, j = 0, k = 0;
	double last = r->t[r->n - 1];
	while (i < r->n || j < n) {
		if (j == n || (i < r->n && r->t[i] < t[j])) {
			mt[k] = r->t[i];
			mv[k++] = r->v[i++];
		} else if (i < r->n && r->t[i] == t[j]) {
			fx->tally.duplicates++;
			j++;
		} else {
			if (t[j] < last)
				fx->tally.disordered++;
			mt[k] = t[j];
			mv[k++] = v[j++];
		}
	}
	free(r->t);
	free(r->v);
	r->t = mt;
	r->v = mv;
	r->n = k;
	r->cap = m;
}

struct fetch_arg {
	struct prom_fetch *fx;
	size_t grid_points;        /* a series' bound */
	const char *query;
};

static int on_points(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct fetch_arg *a = arg;
	struct prom_fetch *fx = a->fx;
	if (fx->stop && atomic_load(fx->stop))
		return 1;
	char *key = prom_fetch_key(l, nl);
	size_t i = strmap_get(&fx->map, key);
	if (i == SIZE_MAX) {
		if ((fx->allowed && strmap_get(fx->allowed, key) == SIZE_MAX) ||
		    (fx->max_series && fx->n_raw >= fx->max_series)) {
			fx->foreign++;
			free(key);
			return 0;
		}
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
	size_t before = r->n;
	if (r->n && n && t[0] <= r->t[r->n - 1]) {
		merge(fx, r, t, v, n);  /* the series came again */
	} else if (n) {
		if (r->n + n > r->cap) {
			size_t cap = r->cap ? r->cap : 256;
			while (cap < r->n + n)
				cap *= 2;
			r->t = xrealloc(r->t, cap * sizeof(double));
			r->v = xrealloc(r->v, cap * sizeof(double));
			r->cap = cap;
		}
		memcpy(r->t + r->n, t, n * sizeof(*t));
		memcpy(r->v + r->n, v, n * sizeof(*v));
		r->n += n;
	}
	for (size_t k = 0; k < n && !r->fractional; k++)
		r->fractional = v[k] != floor(v[k]);
	fx->points += r->n - before;
	if (r->n > a->grid_points) {
		error("%s: a series has more than the %zu points of the range "
		      "asked (its times are off the step)", a->query,
		      a->grid_points);
		fx->refused = true;
		return 1;
	}
	if (fx->max_points && fx->points > fx->max_points) {
		error("%s: the series answered hold more than %zu points in "
		      "all, the bound on this query (more series than were "
		      "counted before?)", a->query, fx->max_points);
		fx->refused = true;
		return 1;
	}
	return 0;
}

int prom_fetch_range(struct prom_client *pc, const char *query,
		     const struct prom_grid *g, size_t chunk_points,
		     struct prom_fetch *fx)
{
	struct fetch_arg a = {fx, g->points, query};
	for (size_t first = 0; first < g->points; first += chunk_points) {
		size_t last = first + chunk_points - 1;
		if (last >= g->points)
			last = g->points - 1;
		int rc = prom_query_range(pc, query,
					  g->start + (double)first * g->step,
					  g->start + (double)last * g->step,
					  g->step, on_points, &a);
		if (rc == PROM_STOPPED && fx->refused)
			return PROM_FAILED;
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
