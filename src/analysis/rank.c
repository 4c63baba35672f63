/*
 * rank.c - the order of a report's targets, worst first (rank.h). Pure:
 * no I/O, no allocation but the keys' array while sorting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rank.h"

int rank_verdict_class(enum verdict v)
{
	switch (v) {
	case VERDICT_GROWING: return 0;
	case VERDICT_PLATEAU: return 1;
	case VERDICT_INCONCLUSIVE: return 2;
	case VERDICT_STABLE: return 3;
	}
	return 2;
}

void rank_key_of(const struct target_findings *f, size_t index,
		 struct rank_key *out)
{
	*out = (struct rank_key){
		.verdict = f->verdict,
		.eta_s = f->exhaustion.found ? f->exhaustion.eta_s : NAN,
		.slope_bph = f->has_trend ? f->slope.estimate : NAN,
		.concern_bph = f->concern_bph,
		.immaterial = f->immaterial,
		.footprint = f->fp_last,
		.name = f->series ? f->series->name : NULL,
		.index = index,
	};
}

/* Ascending (smallest first) when asc, else descending; a value that is
 * not a number after every number. */
static int cmp_num(double a, double b, bool asc)
{
	bool na = isnan(a), nb = isnan(b);
	if (na || nb)
		return na - nb;
	if (a == b)
		return 0;
	return (a < b) == asc ? -1 : 1;
}

/* slope / concern; NAN when either is missing */
static double relative(const struct rank_key *k)
{
	return isfinite(k->concern_bph) && k->concern_bph > 0 ?
	       k->slope_bph / k->concern_bph : NAN;
}

int rank_compare(const struct rank_key *a, const struct rank_key *b)
{
	int c = rank_verdict_class(a->verdict) - rank_verdict_class(b->verdict);
	if (c)
		return c < 0 ? -1 : 1;
	if (a->immaterial != b->immaterial)
		return a->immaterial ? 1 : -1;
	if (a->verdict == VERDICT_GROWING &&
	    (c = cmp_num(a->eta_s, b->eta_s, true)))
		return c;
	if ((c = cmp_num(relative(a), relative(b), false)))
		return c;
	if ((c = cmp_num(a->slope_bph, b->slope_bph, false)))
		return c;
	if ((c = cmp_num(a->footprint, b->footprint, false)))
		return c;
	if ((c = strcmp(a->name ? a->name : "", b->name ? b->name : "")))
		return c < 0 ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

static int cmp_keys(const void *pa, const void *pb)
{
	return rank_compare(pa, pb);
}

void rank_keys(const struct rank_key *keys, size_t n, size_t *order)
{
	if (!n)
		return;
	struct rank_key *k = xmalloc(n * sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		k[i] = keys[i];
		k[i].index = i;  /* the position breaks the last tie */
	}
	qsort(k, n, sizeof(*k), cmp_keys);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	free(k);
}

void rank_targets(const struct target_findings *f, size_t n, size_t *order)
{
	if (!n)
		return;
	struct rank_key *k = xmalloc(n * sizeof(*k));
	for (size_t i = 0; i < n; i++)
		rank_key_of(&f[i], i, &k[i]);
	rank_keys(k, n, order);
	free(k);
}

static const char *name_of(const struct target_findings *f)
{
	return f->series && f->series->name ? f->series->name : "";
}

static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct target_findings *f = ctx;
	return strcmp(name_of(&f[*(const size_t *)a]),
		      name_of(&f[*(const size_t *)b]));
}

bool *rank_shared_names(const struct target_findings *f, size_t n)
{
	bool *shared = xcalloc(n ? n : 1, sizeof(*shared));
	size_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), name_cmp, (void *)f);
	for (size_t k = 0; k + 1 < n; k++)
		if (strcmp(name_of(&f[idx[k]]), name_of(&f[idx[k + 1]])) == 0)
			shared[idx[k]] = shared[idx[k + 1]] = true;
	free(idx);
	return shared;
}

long rank_target_pid(const struct target_findings *f)
{
	const struct series *s = f->series;
	if (!s || !s->n_incs)
		return -1;
	return (long)s->incs[s->n_incs - 1].pid;
}
