/*
 * prom_labels.h - a Prometheus series' label set, owned and sorted by
 * name, and its text form `{a="x",b="y"}` (report --prometheus,
 * docs/fleet.md): a target's name, the key that finds a series again
 * while a response streams in, and a label's value for batching and
 * --by grouping.
 *
 * What it does not do: parse label sets (prometheus.c hands them over
 * already split), or check names (Prometheus did).
 */
#ifndef MEMTREND_PROM_LABELS_H
#define MEMTREND_PROM_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include "prometheus.h"

struct prom_lset {
	struct prom_label *l;      /* owned strings; sorted by name */
	size_t n;
};

/* s = a copy of l[0..n), sorted by name (names are distinct). */
void prom_lset_copy(struct prom_lset *s, const struct prom_label *l,
		    size_t n);
void prom_lset_release(struct prom_lset *s);

/* A label's value; "" when the set lacks it (as in PromQL). Borrowed. */
const char *prom_lset_get(const struct prom_lset *s, const char *name);

/* Whether every label of want but __name__ has the same value in s (a
 * label want has and s lacks holds only for the value ""). */
bool prom_lset_holds(const struct prom_lset *s, const struct prom_lset *want);

/* `{a="x",b="y"}`: the labels l[0..n) for which keep(name, arg) holds
 * (all with keep NULL), in their order, values escaped as PromQL's
 * double-quoted strings (prom_quote: \\, \" and \n). Owned. */
char *prom_labels_format(const struct prom_label *l, size_t n,
			 bool (*keep)(const char *name, const void *arg),
			 const void *arg);

#endif
