/*
 * attribution.c - footprint growth against the growth of named gauges
 * (rules and contract in attribution.h).
 *
 * What it does: robust start and end levels (medians of the edge readings)
 * of the footprint and of every gauge over one span, the explained and
 * unattributed growth, and the bytes-or-not rule for gauge names. What it
 * does not do: pick the span (the caller passes the analysed incarnation),
 * judge whether a gauge overlaps another or is part of the footprint at
 * all (their sum is reported as is), or any I/O.
 */
#include "attribution.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "stats.h"

/* Last words of a gauge name that say it is not a size in bytes. */
static const char *const not_bytes_words[] = {
	"count", "total", "states", "entries", "items", "requests", "tokens",
	"seconds", "ratio", "percent", "pct",
};

bool attribution_gauge_is_bytes(const char *name)
{
	if (!name)
		return false;
	const char *word = strrchr(name, '_');
	word = word ? word + 1 : name;
	for (size_t i = 0; i < ARRAY_SIZE(not_bytes_words); i++)
		if (strcasecmp(word, not_bytes_words[i]) == 0)
			return false;
	return true;
}

/* Levels of v over [lo, hi) as attribution.h defines them. Returns the
 * number of known readings k; with k >= 2 sets *start_level, *end_level,
 * else leaves them NAN. *start, *end: times of the first and last known
 * reading (NAN with none). scratch holds hi - lo doubles. */
static size_t levels(const double *t, const double *v, size_t lo, size_t hi,
		     double *scratch, double *start_level, double *end_level,
		     double *start, double *end)
{
	*start_level = *end_level = *start = *end = NAN;
	size_t k = 0;
	for (size_t i = lo; i < hi; i++)
		if (isfinite(v[i])) {
			if (k == 0)
				*start = t[i];
			*end = t[i];
			scratch[k++] = v[i];
		}
	if (k < 2)
		return k;
	size_t e = (size_t)ceil(ATTRIBUTION_EDGE_FRACTION * (double)k);
	if (e < ATTRIBUTION_EDGE_MIN)
		e = ATTRIBUTION_EDGE_MIN;
	if (e > k / 2)
		e = k / 2;
	/* The last e first: the first median reorders its own part only. */
	*end_level = stats_median_inplace(scratch + k - e, e);
	*start_level = stats_median_inplace(scratch, e);
	return k;
}

void attribution_find_selected(const struct series *s, size_t lo, size_t hi,
			       const bool *use,
			       struct attribution_finding *out)
{
	memset(out, 0, sizeof(*out));
	out->growth = out->start_level = out->end_level = NAN;
	out->start = out->end = out->unattributed = NAN;
	if (hi > s->n)
		hi = s->n;
	if (lo >= hi || !s->footprint)
		return;
	double *scratch = xmalloc((hi - lo) * sizeof(*scratch));
	out->points = levels(s->t, s->footprint, lo, hi, scratch,
			     &out->start_level, &out->end_level, &out->start,
			     &out->end);
	out->growth = out->end_level - out->start_level;
	if (s->n_gauges)
		out->items = xcalloc(s->n_gauges, sizeof(*out->items));
	out->n = s->n_gauges;
	for (size_t g = 0; g < s->n_gauges; g++) {
		struct attribution_item *it = &out->items[g];
		it->name = s->gauges[g].name;
		it->gauge = g;
		it->start_level = it->end_level = it->explained = NAN;
		it->start = it->end = NAN;
		if (s->gauges[g].v)
			it->points = levels(s->t, s->gauges[g].v, lo, hi,
					    scratch, &it->start_level,
					    &it->end_level, &it->start,
					    &it->end);
		it->explained = it->end_level - it->start_level;
		bool chosen = use ? use[g] :
				    attribution_gauge_is_bytes(it->name);
		if (!chosen)
			it->why_not = use ? "not selected" :
					    "not bytes by its name";
		else if (it->points < 2)
			it->why_not = "fewer than 2 readings in the span";
		else {
			it->counted = true;
			out->n_counted++;
			out->explained_total += it->explained;
		}
	}
	free(scratch);
	out->found = !isnan(out->growth) && out->n_counted > 0;
	if (out->found)
		out->unattributed = out->growth - out->explained_total;
}

void attribution_find(const struct series *s, size_t lo, size_t hi,
		      struct attribution_finding *out)
{
	attribution_find_selected(s, lo, hi, NULL, out);
}

void attribution_finding_release(struct attribution_finding *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}
