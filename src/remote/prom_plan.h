/*
 * prom_plan.h - the batches of report --prometheus (docs/fleet.md,
 * "Fetching, and the memory bound"): the listed series of a selector cut
 * into batches of at most max_series series, each batch selected by the
 * query plus matchers on one label at a time (`pod=~"a|b|c"`), so that
 * every series lies in exactly one batch and a label value's series lie
 * in one batch (with --by, one of --by's labels: a target's series stay
 * together).
 *
 * How: while a set of series exceeds max_series, take the allowed label
 * with the most distinct values among them (ties: the first in the
 * order of a strmap's slots), sort them by it, and pack whole values
 * into `label=~"v1|v2"` (each value RE2-escaped, then quoted) while the
 * series fit max_series and the alternation matcher_max bytes; a value
 * whose series alone exceed max_series gets `label="v"` and is cut again
 * by another label. Series that no allowed label tells apart (one --by
 * group larger than a batch) are one batch, larger than max_series.
 *
 * What it does not do: fetch anything, or look at points; the plan is a
 * pure function of the label sets, so the same listing gives the same
 * batches in the same order.
 */
#ifndef MEMTREND_PROM_PLAN_H
#define MEMTREND_PROM_PLAN_H

#include <stddef.h>

#include "prom_labels.h"

struct prom_batch {
	char *matchers;            /* owned: to add to the query's braces,
				      e.g. `app="a", pod=~"x|y"`; "" = the
				      query as it is */
	size_t *members;           /* owned: indexes of the listed sets in
				      this batch, ascending */
	size_t n;
};

struct prom_plan {
	struct prom_batch *b;      /* owned, in the order to fetch */
	size_t n, cap;
};

/* The plan of sets[0..n) (n >= 1, max_series >= 1) into p (zeroed by
 * the caller). by[0..n_by): the labels that may cut (none: any label). */
void prom_plan_make(struct prom_plan *p, const struct prom_lset *sets,
		    size_t n, size_t max_series, const char *const *by,
		    size_t n_by, size_t matcher_max);
void prom_plan_release(struct prom_plan *p);

#endif
