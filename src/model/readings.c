/*
 * readings.c - a source's readings onto a series (readings.h).
 */
#include "readings.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void readings_init(struct readings *r, const char *role, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->role, sizeof(r->role), "%s", role ? role : "");
	r->name = xstrdup(name ? name : "?");
	r->t_known = -INFINITY;
}

void readings_release(struct readings *r)
{
	free(r->name);
	free(r->t);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void readings_add(struct readings *r, double t, double v)
{
	if (r->n && t < r->t[r->n - 1]) {
		if (isnan(v) || t < r->t_known)
			return;
		r->unordered = true;
	}
	size_t cap = r->cap;
	xgrow((void **)&r->t, &cap, r->n + 1, sizeof(double));
	xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof(double));
	r->t[r->n] = t;
	r->v[r->n++] = v;
	if (!isnan(v))
		r->t_known = t;  /* never decreases: see readings_add()'s rules */
}

struct stamped {
	double t, v;
	size_t row;   /* order of the readings: ties keep it */
};

static int stamped_cmp(const void *a, const void *b)
{
	const struct stamped *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* Stamp order, stable. */
static void readings_sort(struct readings *r)
{
	if (!r->unordered)
		return;
	struct stamped *x = xcalloc(r->n, sizeof(*x));
	for (size_t i = 0; i < r->n; i++)
		x[i] = (struct stamped){r->t[i], r->v[i], i};
	qsort(x, r->n, sizeof(*x), stamped_cmp);
	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = x[i].t;
		r->v[i] = x[i].v;
	}
	free(x);
	r->unordered = false;
}

void readings_attach(struct readings *r, struct series *se)
{
	readings_sort(r);
	if (!se->n)
		return;
	void (*set)(struct series *, size_t, double) = NULL;
	if (strcmp(r->role, "work") == 0)
		set = series_set_requests;
	else if (strcmp(r->role, "connections") == 0)
		set = series_set_connections;
	else if (strcmp(r->role, "gauge") != 0)
		return;  /* a role from a newer memtrend */
	/* Allocate the figure even if every reading failed: "recorded, all
	 * gaps" is not "not recorded". */
	if (set)
		set(se, 0, NAN);
	else
		series_set_gauge(se, r->name, 0, NAN);
	size_t j = 0;
	double prev = -INFINITY;
	for (size_t i = 0; i < se->n; i++) {
		double ti = se->t[i];
		size_t last = SIZE_MAX;
		while (j < r->n && r->t[j] <= ti + 1e-6)
			last = j++;
		if (last != SIZE_MAX && r->t[last] > prev + 1e-6 &&
		    !isnan(r->v[last])) {
			if (set)
				set(se, i, r->v[last]);
			else
				series_set_gauge(se, r->name, i, r->v[last]);
		}
		prev = ti;
	}
}
