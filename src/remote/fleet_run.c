/*
 * fleet_run.c - the workers of report --prometheus (docs/fleet.md): each
 * takes a batch, fetches it in time chunks (prom_fetch.h), turns
 * its series into targets (one per series, or per --by group with an
 * incarnation per series, prom_group.h), attaches the --work-query
 * series that match, analyses each target and drops its points, keeping
 * the findings (and, for --html, the points of the worst --top targets).
 * Also --work-query's fetch, and the sizing of an expression fetched
 * whole.
 *
 * What it does not do: list or cut the series into batches (fleet.c,
 * prom_plan.h), any HTTP (prometheus.c), any statistics
 * (analysis/), any output.
 *
 * Threads: workers share struct fleet; everything after its mutex in
 * fleet_internal.h is taken under it. A target's series, its points and its
 * analysis belong to one worker until it is added to fl->targets.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "counter.h"
#include "fleet_internal.h"
#include "prom_group.h"
#include "rank.h"
#include "units.h"

static struct prom_grid grid_of(const struct fleet *fl)
{
	return (struct prom_grid){fl->start, fl->step, fl->points};
}

struct count_arg {
	size_t count;
	const char *const *by;     /* --by's labels, or NULL */
	size_t n_by;
	bool *seen;                /* [n_by]: some series carries it */
};

static int on_count(void *arg, const struct prom_label *l, size_t nl,
		    const double *t, const double *v, size_t n)
{
	(void)t, (void)v, (void)n;
	struct count_arg *a = arg;
	a->count++;
	for (size_t b = 0; b < a->n_by; b++)
		for (size_t j = 0; j < nl && !a->seen[b]; j++)
			a->seen[b] = !strcmp(l[j].name, a->by[b]) &&
				     *l[j].value;
	return 0;
}

int fleet_size_whole(struct fleet *fl, struct prom_client *pc,
		     const char *opt, const char *query, bool check_by,
		     size_t *chunk)
{
	double span = fl->end - fl->start;
	double coarse = fmax(fl->step, ceil(span / 8 / fl->step) * fl->step);
	struct count_arg a = {0};
	if (check_by && fl->fo->n_by) {
		a.by = (const char *const *)fl->fo->by;
		a.n_by = fl->fo->n_by;
		a.seen = xcalloc(a.n_by, sizeof(*a.seen));
	}
	int rc = prom_query_range(pc, query, fl->start, fl->end, coarse,
				  on_count, &a);
	/* A --by label no series carries would merge every series into
	 * one target: a typo, or a label the expression aggregated away
	 * (exit 2, as for a selector). */
	for (size_t b = 0; !rc && a.count && b < a.n_by; b++)
		if (!a.seen[b]) {
			error("--by: no series of '%s' has the label '%s' (an "
			      "expression keeps only the labels it names, "
			      "e.g. max by (%s) (...))", query, a.by[b],
			      a.by[b]);
			rc = PROM_BAD_QUERY;
		}
	free(a.seen);
	size_t count = a.count;
	if (rc)
		return rc;
	if (count > fl->max_series) {
		fleet_too_many_series(fl, opt, "the expression gives", count);
		return PROM_BAD_QUERY;
	}
	size_t n = count ? count : 1;
	double whole = (double)n * (double)fl->points * FLEET_POINT_BYTES;
	if (whole > FLEET_WHOLE_MAX) {
		char b[32];
		error("%s: the expression gives %zu series of %zu points (%s "
		      "to hold): more than memtrend holds at once for an "
		      "expression that is not a selector; use a selector "
		      "(fetched in batches), a recording rule, a larger "
		      "--step or a shorter --range", opt, count, fl->points,
		      units_format_size(b, sizeof(b), whole));
		return PROM_BAD_QUERY;
	}
	double per = fl->pc.body_max / 2.0 / FLEET_BYTES_PER_POINT /
		     (double)n;
	*chunk = per < 1 ? 1 : per > FLEET_MAX_POINTS ? FLEET_MAX_POINTS :
		 (size_t)per;
	return 0;
}

int fleet_fetch_work(struct fleet *fl, struct prom_client *pc)
{
	size_t chunk;
	int rc = fleet_size_whole(fl, pc, "--work-query", fl->fo->work_query,
				  false, &chunk);
	if (rc)
		return rc;
	struct prom_fetch fx = {.stop = &fl->stop,
				.max_series = fl->max_series,
				.max_points = (size_t)(FLEET_WHOLE_MAX /
						       FLEET_POINT_BYTES)};
	struct prom_grid g = grid_of(fl);
	rc = prom_fetch_range(pc, fl->fo->work_query, &g, chunk, &fx);
	fleet_count(fl, &fx, NULL);
	if (rc) {
		prom_fetch_release(&fx);
		return rc;
	}
	fl->work = xcalloc(fx.n_raw ? fx.n_raw : 1, sizeof(*fl->work));
	for (size_t i = 0; i < fx.n_raw; i++) {
		struct prom_raw *r = &fx.raw[i];
		struct work_series *w = &fl->work[fl->n_work++];
		w->ls = r->ls;
		r->ls.l = NULL;
		r->ls.n = 0;
		w->v = xmalloc(fl->points * sizeof(double));
		for (size_t k = 0; k < fl->points; k++)
			w->v[k] = NAN;
		for (size_t k = 0; k < r->n; k++) {
			double gi = round((r->t[k] - fl->start) / fl->step);
			if (gi >= 0 && gi < (double)fl->points)
				w->v[(size_t)gi] = r->v[k];
		}
	}
	prom_fetch_release(&fx);
	if (!fl->n_work) {
		/* A typo most likely: asked for work, it gets none. */
		char a[40], b[40];
		error("--work-query: no series match '%s' from %s to %s",
		      fl->fo->work_query,
		      units_format_time(a, sizeof(a), fl->start),
		      units_format_time(b, sizeof(b), fl->end));
		return PROM_BAD_QUERY;
	}
	return 0;
}

/* The work series whose labels all hold in ls (first of them). */
static const struct work_series *work_of(struct fleet *fl,
					 const struct prom_lset *ls,
					 bool *ambiguous)
{
	const struct work_series *found = NULL;
	*ambiguous = false;
	for (size_t w = 0; w < fl->n_work; w++) {
		if (!prom_lset_holds(ls, &fl->work[w].ls))
			continue;
		if (found) {
			*ambiguous = true;
			break;
		}
		found = &fl->work[w];
	}
	return found;
}

static int cmp_raw_first(const void *a, const void *b, void *arg)
{
	const struct prom_raw *raw = arg;
	const struct prom_raw *x = &raw[*(const size_t *)a];
	const struct prom_raw *y = &raw[*(const size_t *)b];
	double tx = x->n ? x->t[0] : INFINITY, ty = y->n ? y->t[0] : INFINITY;
	return (tx > ty) - (tx < ty);
}

/* A warning when a series' metric is not named as bytes. */
static void check_metric(struct fleet *fl, const struct prom_lset *ls)
{
	const char *metric = prom_lset_get(ls, "__name__");
	size_t ml = strlen(metric);
	if (ml && (ml < 6 || strcmp(metric + ml - 6, "_bytes"))) {
		char msg[400];
		snprintf(msg, sizeof(msg), "--query: the metric '%.200s' does "
			 "not end in _bytes: is it memory in bytes?", metric);
		fleet_say_once(fl, msg, msg);
	}
}

/* The series' `pid` label (memtrend's own exporter, process exporters
 * that carry one) as a process id; -1 when it has none or it is not one
 * (the report then says the series' name, "(no pid)" no more). */
static int64_t pid_of(const struct prom_lset *ls)
{
	const char *v = prom_lset_get(ls, "pid");
	char *end;
	errno = 0;
	long long p = strtoll(v, &end, 10);
	if (!*v || *end || errno || p <= 0 || p > 0x7fffffff)
		return -1;
	return p;
}

/* A target from the raw series members[0..n) (one, or a --by group),
 * sets[i] the label set of raw[i]. */
static struct series *build_target(struct fleet *fl, struct prom_fetch *fx,
				   const struct prom_lset *const *sets,
				   size_t *members, size_t n)
{
	qsort_r(members, n, sizeof(*members), cmp_raw_first, fx->raw);
	struct prom_group g = {sets, members, n};
	char *name = prom_group_name(&g, fl->names_differ);
	struct series *s = xcalloc(1, sizeof(*s));
	series_init(s, name);
	free(name);
	const struct prom_lset *l0 = sets[members[0]];
	for (size_t k = 0; k < l0->n; k++)
		if (prom_group_common(&g, l0->l[k].name))
			series_add_label(s, l0->l[k].name, l0->l[k].value);
	size_t total = 0;
	bool fractional = false;
	for (size_t i = 0; i < n; i++) {
		total += fx->raw[members[i]].n;
		fractional |= fx->raw[members[i]].fractional;
	}
	series_reserve(s, total ? total : 1);
	size_t dropped = 0;
	for (size_t i = 0; i < n; i++) {
		const struct prom_raw *r = &fx->raw[members[i]];
		if (!r->n)
			continue;
		double cut = INFINITY;
		for (size_t j = i + 1; j < n && !isfinite(cut); j++)
			if (fx->raw[members[j]].n)
				cut = fx->raw[members[j]].t[0];
		char *comm = n > 1 ? prom_group_member_name(&g, i) : NULL;
		uint32_t inc = series_add_incarnation(s, pid_of(&r->ls), 0,
						      r->t[0], comm, NULL);
		free(comm);
		bool amb = false;
		const struct work_series *w = fl->n_work ?
			work_of(fl, &r->ls, &amb) : NULL;
		if (amb) {
			pthread_mutex_lock(&fl->mu);
			fl->work_ambiguous++;
			pthread_mutex_unlock(&fl->mu);
		}
		for (size_t k = 0; k < r->n; k++) {
			if (r->t[k] >= cut) {
				dropped += r->n - k;
				break;
			}
			if (s->n && r->t[k] <= s->t[s->n - 1]) {
				dropped++;
				continue;
			}
			size_t at = series_append(s, r->t[k], r->v[k], inc);
			if (w) {
				double gi = round((r->t[k] - fl->start) /
						  fl->step);
				if (gi >= 0 && gi < (double)fl->points &&
				    isfinite(w->v[(size_t)gi]))
					series_set_requests(s, at,
							    w->v[(size_t)gi]);
			}
		}
		if (r->ls.n)
			check_metric(fl, &r->ls);
	}
	if (dropped && n > 1 && dropped * 10 > total) {
		pthread_mutex_lock(&fl->mu);
		fl->overlap_targets++;
		pthread_mutex_unlock(&fl->mu);
	}
	/* Integer readings count bytes: the precision as stored is one
	 * (a CSV of the same readings says the same). */
	s->quantum = fractional ? 0 : 1;
	/* a container restarted inside one series: the work counter's reset
	 * with the footprint's drop splits it (counter.h) */
	counter_split_restarts(s);
	return s;
}

/* Keep the points of the worst `keep` targets (for the page's plots);
 * drop the others'. Called with fl->mu held. */
static void keep_or_drop(struct fleet *fl, size_t idx)
{
	if (!fl->keep) {
		series_drop_points(fl->targets[idx]);
		return;
	}
	if (fl->n_kept < fl->keep) {
		fl->kept[fl->n_kept++] = idx;
		return;
	}
	struct rank_key k, w, x;
	rank_key_of(fl->findings[idx], idx, &k);
	size_t pos = 0;
	rank_key_of(fl->findings[fl->kept[0]], fl->kept[0], &w);
	for (size_t j = 1; j < fl->n_kept; j++) {
		rank_key_of(fl->findings[fl->kept[j]], fl->kept[j], &x);
		if (rank_compare(&x, &w) > 0) {
			w = x;
			pos = j;
		}
	}
	if (rank_compare(&k, &w) < 0) {
		series_drop_points(fl->targets[fl->kept[pos]]);
		fl->kept[pos] = idx;
	} else {
		series_drop_points(fl->targets[idx]);
	}
}

/* The fetched series of a batch into targets, analysed. */
static void targets_of(struct fleet *fl, struct prom_fetch *fx)
{
	size_t cap = fx->n_raw ? fx->n_raw : 1;
	size_t *idx = xmalloc(cap * sizeof(*idx));
	const struct prom_lset **sets = xmalloc(cap * sizeof(*sets));
	const char *const *by = (const char *const *)fl->fo->by;
	size_t m = 0;
	for (size_t i = 0; i < fx->n_raw; i++) {
		sets[i] = &fx->raw[i].ls;
		if (fx->raw[i].n)
			idx[m++] = i;
	}
	prom_group_sort(idx, m, sets, by, fl->fo->n_by);
	for (size_t i = 0; i < m;) {
		size_t j = i + prom_group_len(idx + i, m - i, sets, by,
					      fl->fo->n_by);
		struct series *s = build_target(fl, fx, sets, idx + i, j - i);
		/* The raw points are copied: free them before the
		 * analysis so that the batch's peak is not twice. */
		for (size_t k = i; k < j; k++)
			prom_raw_drop_points(&fx->raw[idx[k]]);
		struct target_findings *f = xcalloc(1, sizeof(*f));
		analysis_run(s, fl->ao, f);
		pthread_mutex_lock(&fl->mu);
		if (fl->n_targets == fl->cap_targets) {
			fl->cap_targets = fl->cap_targets ? 2 * fl->cap_targets
							  : 256;
			fl->targets = xrealloc(fl->targets, fl->cap_targets *
					       sizeof(*fl->targets));
			fl->findings = xrealloc(fl->findings, fl->cap_targets *
						sizeof(*fl->findings));
		}
		size_t at = fl->n_targets++;
		fl->targets[at] = s;
		fl->findings[at] = f;
		keep_or_drop(fl, at);
		pthread_mutex_unlock(&fl->mu);
		i = j;
	}
	free(sets);
	free(idx);
}

void *fleet_worker(void *arg)
{
	struct fleet *fl = arg;
	struct prom_client *pc = prom_client_new(&fl->pc);
	if (!pc) {
		pthread_mutex_lock(&fl->mu);
		if (!fl->fail)
			fl->fail = PROM_FAILED;
		pthread_mutex_unlock(&fl->mu);
		atomic_store(&fl->stop, true);
		return NULL;
	}
	struct prom_grid g = grid_of(fl);
	for (;;) {
		pthread_mutex_lock(&fl->mu);
		size_t b = fl->next_batch < fl->n_batches &&
			   !atomic_load(&fl->stop) ? fl->next_batch++ :
			   SIZE_MAX;
		pthread_mutex_unlock(&fl->mu);
		if (b == SIZE_MAX)
			break;
		const struct batch *bt = &fl->batches[b];
		struct strmap allowed = {0};
		struct prom_fetch fx = {.stop = &fl->stop};
		if (bt->members) {
			/* A selector's batch: its listed series, no other. */
			for (size_t i = 0; i < bt->n_members; i++) {
				const struct prom_lset *ls =
					&fl->listed[bt->members[i]];
				char *key = prom_fetch_key(ls->l, ls->n);
				if (strmap_get(&allowed, key) == SIZE_MAX)
					strmap_put(&allowed, key, i);
				free(key);
			}
			fx.allowed = &allowed;
		} else {
			/* An expression, fetched whole: bounded in all. */
			fx.max_series = fl->max_series;
			fx.max_points = (size_t)(FLEET_WHOLE_MAX /
						 FLEET_POINT_BYTES);
		}
		int rc = prom_fetch_range(pc, bt->query, &g, bt->chunk_points,
					  &fx);
		fleet_count(fl, &fx, NULL);
		strmap_release(&allowed);
		if (rc) {
			pthread_mutex_lock(&fl->mu);
			if (!fl->fail && rc != PROM_STOPPED)
				fl->fail = rc;
			pthread_mutex_unlock(&fl->mu);
			atomic_store(&fl->stop, true);
			prom_fetch_release(&fx);
			break;
		}
		targets_of(fl, &fx);
		prom_fetch_release(&fx);
	}
	fleet_count(fl, NULL, pc);
	prom_client_free(pc);
	return NULL;
}
