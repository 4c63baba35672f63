/*
 * prom_group.h - series into targets for report --prometheus
 * (docs/fleet.md, "Targets"): without --by each series is a target; with
 * --by LABEL,... the series with the same values of those labels are one
 * target, each series an incarnation. A target is named by the labels
 * its series share (with one value), `__name__` left out unless the
 * series have several metric names; an incarnation by the labels it does
 * not share (a restart's pod name).
 *
 * What it does not do: order a target's series in time, or touch points
 * (the caller builds the series, model/series.h).
 *
 * Sets are passed as an array of pointers, sets[i] the label set of
 * series i, so that they may live inside the caller's own records.
 */
#ifndef MEMTREND_PROM_GROUP_H
#define MEMTREND_PROM_GROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "prom_labels.h"

/* Order idx[0..n) (indexes into sets) so that the series of one group
 * are adjacent: by the values of by[0], by[1], ... (a label a set lacks
 * is ""). With n_by 0 the order is left as it is. */
void prom_group_sort(size_t *idx, size_t n,
		     const struct prom_lset *const *sets,
		     const char *const *by, size_t n_by);

/* How many of idx[0..n) (n >= 1, sorted as above) belong to the group
 * of idx[0]: 1 with n_by 0. */
size_t prom_group_len(const size_t *idx, size_t n,
		      const struct prom_lset *const *sets,
		      const char *const *by, size_t n_by);

/* One group: the series members[0..n) (n >= 1). */
struct prom_group {
	const struct prom_lset *const *sets;
	const size_t *members;
	size_t n;
};

/* Whether label name is in every member's set with one value. */
bool prom_group_common(const struct prom_group *g, const char *name);

/* The target's name: `{...}` of the labels in common, in members[0]'s
 * order, __name__ only when keep_name. Owned. */
char *prom_group_name(const struct prom_group *g, bool keep_name);

/* Member i's incarnation name: `{...}` of its labels not in common, but
 * __name__. Owned. */
char *prom_group_member_name(const struct prom_group *g, size_t i);

/* Names without what every target shares (docs/fleet.md, "Targets"):
 * a fleet read with `{namespace="llm",job="kubelet"}` would repeat both
 * in every row. When n >= 2 and labels other than __name__ have one
 * value in all of t[0..n)'s label sets (series.labels), each target is
 * renamed `{...}` of its other labels (__name__ among them only when
 * keep_name) and the shared labels are returned as `{...}` (owned).
 * NULL, names untouched, when nothing is shared or when a name would
 * be left empty (a target whose labels are all shared). */
struct series;
char *prom_targets_unshare(struct series *const *t, size_t n, bool keep_name);

#endif
