/*
 * live_table.c - many targets' live series, analysed in turn and ranked
 * as a report ranks them (live_table.h). The targets are kept in an
 * array sorted by id (binary search for each sample); each keeps its
 * live series, its latest figures and what its last analysis found: the
 * few figures the table shows and the rank key (rank_key_of()) the order
 * rests on, so a frame needs no analysis and no findings kept alive.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "live_table.h"
#include "rank.h"

struct entry {
	int64_t id;
	char *name;                /* owned */
	struct live_series *live;
	int64_t pid;
	unsigned long long start_ticks;
	double footprint;
	/* The last analysis (analysed) and when it may run again. */
	bool analysed;
	uint64_t analysed_count;   /* live_count() it saw */
	double next_analysis;      /* monotonic */
	struct rank_key key;       /* its name points at name above */
	bool group;                /* live_table_mark_group() */
	bool has_trend;
	enum verdict verdict;
	double slope, slope_low, slope_high, eta_s;
};

struct live_table {
	struct entry **e;          /* sorted by id */
	size_t n, cap;
	size_t cursor;             /* where the next analysis round starts */
	size_t max_points;
	double quantum;
	double mem_total, swap_total, swap_free, mem_available;
	uint64_t samples;
};

struct live_table *live_table_new(size_t max_points, double quantum)
{
	struct live_table *t = xcalloc(1, sizeof(*t));
	t->max_points = max_points;
	t->quantum = quantum;
	t->mem_total = t->swap_total = t->swap_free = t->mem_available = NAN;
	return t;
}

static void entry_free(struct entry *x)
{
	if (!x)
		return;
	live_free(x->live);
	free(x->name);
	free(x);
}

void live_table_free(struct live_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		entry_free(t->e[i]);
	free(t->e);
	free(t);
}

/* The position of id, or where it would go (*found false). */
static size_t find(const struct live_table *t, int64_t id, bool *found)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->e[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && t->e[lo]->id == id;
	return lo;
}

void live_table_sample(struct live_table *t, int64_t id, const char *name,
		       int64_t pid, unsigned long long start_ticks,
		       double start_time, const char *comm,
		       const struct live_sample *x)
{
	bool found;
	size_t i = find(t, id, &found);
	struct entry *e;
	if (found) {
		e = t->e[i];
	} else {
		e = xcalloc(1, sizeof(*e));
		e->id = id;
		e->name = xstrdup(name ? name : "");
		e->live = live_new_sized(e->name, t->max_points, 0);
		live_set_quantum(e->live, t->quantum, true);
		live_set_machine(e->live, t->mem_total, t->swap_total,
				 t->swap_free, t->mem_available);
		e->pid = -1;
		e->footprint = NAN;
		xgrow((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e));
		memmove(t->e + i + 1, t->e + i, (t->n - i) * sizeof(*t->e));
		t->e[i] = e;
		t->n++;
		if (t->cursor > i)
			t->cursor++;
	}
	if (e->pid != pid || e->start_ticks != start_ticks ||
	    !live_count(e->live)) {
		if (!live_last_incarnation_is(e->live, pid, start_ticks))
			live_incarnation(e->live, pid, start_ticks, start_time,
					 comm, NULL);
		e->pid = pid;
		e->start_ticks = start_ticks;
	}
	live_append(e->live, x);
	e->footprint = x->footprint;
	t->samples++;
}

void live_table_mark_group(struct live_table *t, int64_t id)
{
	bool found;
	size_t i = find(t, id, &found);
	if (found)
		t->e[i]->group = true;
}

void live_table_gpu_limit(struct live_table *t, int64_t id, unsigned d,
			  double total, double used)
{
	bool found;
	size_t i = find(t, id, &found);
	if (found)
		live_set_gpu_limit(t->e[i]->live, d, total, used);
}

/* A group that is one process: a process of the table with the group's
 * pid (the member its incarnation started with) and the same last
 * footprint. O(n) per group: the table is ranked once a refresh. */
static bool lone_group(const struct live_table *t, const struct entry *g)
{
	if (!g->group || isnan(g->footprint))
		return false;
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *p = t->e[i];
		if (p != g && !p->group && p->pid == g->pid &&
		    p->footprint == g->footprint)
			return true;
	}
	return false;
}

void live_table_end(struct live_table *t, int64_t id)
{
	bool found;
	size_t i = find(t, id, &found);
	if (!found)
		return;
	entry_free(t->e[i]);
	memmove(t->e + i, t->e + i + 1, (t->n - i - 1) * sizeof(*t->e));
	t->n--;
	if (t->cursor > i)
		t->cursor--;
	if (t->cursor >= t->n)
		t->cursor = 0;
}

void live_table_set_machine(struct live_table *t, double mem_total,
			    double swap_total, double swap_free,
			    double mem_available)
{
	t->mem_total = mem_total;
	t->swap_total = swap_total;
	t->swap_free = swap_free;
	t->mem_available = mem_available;
	for (size_t i = 0; i < t->n; i++)
		live_set_machine(t->e[i]->live, mem_total, swap_total,
				 swap_free, mem_available);
}

static void analyse_one(struct entry *e, const struct analysis_options *o,
			double min_gap_s)
{
	struct series s;
	live_snapshot(e->live, &s);
	struct target_findings f;
	analysis_run(&s, o, &f);
	e->analysed = true;
	e->analysed_count = live_count(e->live);
	e->next_analysis = now_monotonic() + min_gap_s;
	e->verdict = f.verdict;
	e->has_trend = f.has_trend;
	e->slope = f.has_trend ? f.slope.estimate : NAN;
	e->slope_low = f.has_trend ? f.slope.low : NAN;
	e->slope_high = f.has_trend ? f.slope.high : NAN;
	e->eta_s = f.exhaustion.found ? f.exhaustion.eta_s : NAN;
	/* The order of a report (rank.h), kept by value: its name pointed
	 * into the snapshot, which goes now. */
	rank_key_of(&f, 0, &e->key);
	e->key.name = e->name;
	analysis_release(&f);
	series_release(&s);
}

size_t live_table_analyse(struct live_table *t,
			  const struct analysis_options *o, double min_gap_s,
			  double budget_s)
{
	double t0 = now_monotonic();
	size_t done = 0;
	/* One pass over the targets at most, from the cursor on (the
	 * cursor moves past each one analysed: the next call goes on from
	 * there, however the budget cut this one). */
	size_t from = t->cursor;
	for (size_t k = 0, n = t->n; k < n; k++) {
		size_t i = (from + k) % n;
		struct entry *e = t->e[i];
		if (live_count(e->live) == e->analysed_count ||
		    now_monotonic() < e->next_analysis)
			continue;
		analyse_one(e, o, min_gap_s);
		done++;
		t->cursor = (i + 1) % t->n;
		if (now_monotonic() - t0 >= budget_s)
			break;
	}
	return done;
}

size_t live_table_count(const struct live_table *t)
{
	return t->n;
}

uint64_t live_table_samples(const struct live_table *t)
{
	return t->samples;
}

static void row_of(const struct entry *e, struct live_table_row *r)
{
	*r = (struct live_table_row){
		.target_id = e->id,
		.name = e->name,
		.pid = e->group ? -1 : e->pid,
		.samples = live_count(e->live),
		.footprint = e->footprint,
		.analysed = e->analysed,
		.verdict = e->verdict,
		.has_trend = e->analysed && e->has_trend,
		.slope_bph = e->analysed ? e->slope : NAN,
		.slope_low_bph = e->analysed ? e->slope_low : NAN,
		.slope_high_bph = e->analysed ? e->slope_high : NAN,
		.eta_s = e->analysed ? e->eta_s : NAN,
		.analysed_at = e->analysed_count,
	};
}

/* Not analysed yet: the largest footprint first, then the id. */
static int cmp_new(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa,
			   *b = *(struct entry *const *)pb;
	bool na = isnan(a->footprint), nb = isnan(b->footprint);
	if (na != nb)
		return na ? 1 : -1;
	if (!na && a->footprint != b->footprint)
		return a->footprint > b->footprint ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

size_t live_table_ranked(const struct live_table *t,
			 struct live_table_row *rows, size_t max)
{
	size_t n_an = 0, n_new = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i]->analysed)
			n_an++;
	struct rank_key *keys = xmalloc((n_an ? n_an : 1) * sizeof(*keys));
	struct entry **an = xmalloc((n_an ? n_an : 1) * sizeof(*an));
	struct entry **fresh = xmalloc((t->n - n_an ? t->n - n_an : 1) *
				       sizeof(*fresh));
	size_t *order = xmalloc((n_an ? n_an : 1) * sizeof(*order));
	size_t k = 0;
	size_t n_lone = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = t->e[i];
		if (lone_group(t, e)) {
			n_lone++;
			if (e->analysed)
				n_an--;
		} else if (e->analysed) {
			keys[k] = e->key;
			an[k++] = e;
		} else {
			fresh[n_new++] = e;
		}
	}
	assert(k == n_an && n_an + n_new + n_lone == t->n);
	rank_keys(keys, n_an, order);
	qsort(fresh, n_new, sizeof(*fresh), cmp_new);
	size_t out = 0;
	for (size_t i = 0; i < n_an && out < max; i++)
		row_of(an[order[i]], &rows[out++]);
	for (size_t i = 0; i < n_new && out < max; i++)
		row_of(fresh[i], &rows[out++]);
	free(keys);
	free(an);
	free(fresh);
	free(order);
	return out;
}
