/*
 * counter.c - whether a work series is a counter, and the split of a
 * pid-less series at the counter's resets (counter.h has the rule).
 *
 * What it does not do: decide what to make of a gauge (analysis.c leaves
 * the per-request slope and the idle windows out) or say it (the render
 * layer). No I/O.
 */
#include "counter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static uint32_t inc_at(const struct series *s, size_t i)
{
	return s->n_incs ? s->inc[i] : 0;
}

/* Back to near zero as the footprint fell: a restart. */
static bool looks_like_reset(const struct series *s, size_t j, size_t i)
{
	double a = s->requests[j], b = s->requests[i];
	double fa = s->footprint[j], fb = s->footprint[i];
	return b < a && b <= COUNTER_RESET_NEAR_ZERO * a && isfinite(fa) &&
	       isfinite(fb) && fa > 0 && fb <= (1 - COUNTER_RESET_FP_DROP) * fa;
}

void counter_check_run(const struct series *s, struct counter_check *out,
		       bool *reset_at)
{
	memset(out, 0, sizeof(*out));
	out->decreasing_share = NAN;
	out->is_counter = true;
	if (reset_at)
		memset(reset_at, 0, s->n * sizeof(*reset_at));
	if (!s->requests)
		return;
	out->recorded = true;
	size_t all = 0, resets = 0, j = SIZE_MAX;
	for (size_t i = 0; i < s->n; i++) {
		if (!isfinite(s->requests[i]))
			continue;
		if (j != SIZE_MAX && inc_at(s, j) == inc_at(s, i)) {
			out->readings++;
			if (s->requests[i] < s->requests[j]) {
				all++;
				if (looks_like_reset(s, j, i)) {
					resets++;
					if (reset_at)
						reset_at[i] = true;
				}
			}
		}
		j = i;
	}
	/* resets are rare: one every few readings is no restart */
	if (resets * COUNTER_RESET_MIN_READINGS > out->readings)
		resets = 0;
	size_t others = all - resets;
	out->is_counter = !(others >= COUNTER_GAUGE_MIN &&
			    (double)others >
			    COUNTER_GAUGE_SHARE * (double)out->readings);
	if (!out->is_counter)
		resets = 0;  /* a gauge's drops are what a gauge does */
	out->resets = resets;
	out->decreases = all - resets;
	if (out->readings)
		out->decreasing_share =
			(double)out->decreases / (double)out->readings;
	if (reset_at && !resets)
		memset(reset_at, 0, s->n * sizeof(*reset_at));
}

size_t counter_split_restarts(struct series *s)
{
	if (!s->requests || !s->n || !s->n_incs)
		return 0;
	bool *reset_at = xmalloc(s->n * sizeof(*reset_at));
	struct counter_check c;
	counter_check_run(s, &c, reset_at);
	size_t splits = 0;
	for (size_t i = 0; c.resets && i < s->n; i++)
		if (reset_at[i] && s->incs[s->inc[i]].pid < 0)
			splits++;
	if (!splits) {
		free(reset_at);
		return 0;
	}
	/* Rebuild the incarnations in time order: each old one followed by
	 * the pieces split off it. */
	size_t old_n = s->n_incs;
	struct incarnation *old = s->incs;
	s->incs = NULL;
	s->n_incs = 0;
	uint32_t *map = xmalloc(old_n * sizeof(*map)); /* old -> new first */
	for (size_t k = 0; k < old_n; k++)
		map[k] = UINT32_MAX;
	uint32_t cur = 0, prev_old = UINT32_MAX;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t o = s->inc[i];
		const struct incarnation *in = &old[o];
		if (o != prev_old) {
			if (map[o] == UINT32_MAX)
				map[o] = series_add_incarnation(
					s, in->pid, in->start_ticks,
					in->start_time, in->comm,
					in->cmdline);
			cur = map[o];
			prev_old = o;
		} else if (reset_at[i] && in->pid < 0) {
			cur = series_add_incarnation(s, -1, 0, s->t[i],
						     in->comm, in->cmdline);
		}
		s->inc[i] = cur;
	}
	/* incarnations without points keep their place at the end */
	for (size_t k = 0; k < old_n; k++) {
		if (map[k] == UINT32_MAX)
			series_add_incarnation(s, old[k].pid,
					       old[k].start_ticks,
					       old[k].start_time, old[k].comm,
					       old[k].cmdline);
		free(old[k].comm);
		free(old[k].cmdline);
	}
	free(old);
	free(map);
	free(reset_at);
	return splits;
}
