/*
 * live.c - a live view's bounded, thinned series (live.h).
 *
 * The kept points live in an ordinary struct series reserved once at
 * max_points (its arrays never grow past that); a halving compacts every
 * array in place. The newest sample is held apart (tail) and added on
 * top in a snapshot. Readings newer than every kept point wait in
 * `pending`, one per figure (the newest valid one).
 *
 * What it does not do: statistics (analysis.c does them on a snapshot),
 * I/O, locking.
 */
#include "live.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define STAMP_EPS 1e-6            /* as store.c: stamps within 1 us match */

struct pending {
	bool have;
	double t, v;
};

struct live_series {
	struct series kept;
	size_t max;
	uint64_t stride, seen;
	bool have_tail, tail_kept;
	struct live_sample tail;
	uint32_t tail_inc;
	bool rec_requests, rec_connections;
	struct pending req, conn;
	struct pending *gauge;     /* kept.n_gauges */
	double *ring, *lin;        /* recent footprints (NULL: none) */
	size_t recent;             /* their bound */
	size_t ring_head, ring_n;
};

struct live_series *live_new(const char *name, size_t max_points)
{
	return live_new_sized(name, max_points, LIVE_RECENT);
}

struct live_series *live_new_sized(const char *name, size_t max_points,
				   size_t recent)
{
	struct live_series *l = xcalloc(1, sizeof(*l));
	l->recent = recent;
	if (recent) {
		l->ring = xcalloc(recent, sizeof(*l->ring));
		l->lin = xcalloc(recent, sizeof(*l->lin));
	}
	if (max_points < 16)
		max_points = 16;
	max_points += max_points & 1;
	l->max = max_points;
	l->stride = 1;
	series_init(&l->kept, name);
	series_reserve(&l->kept, max_points);
	return l;
}

void live_free(struct live_series *l)
{
	if (!l)
		return;
	series_release(&l->kept);
	free(l->ring);
	free(l->lin);
	free(l->gauge);
	free(l);
}

void live_incarnation(struct live_series *l, int64_t pid,
		      unsigned long long start_ticks, double start_time,
		      const char *comm, const char *cmdline)
{
	series_add_incarnation(&l->kept, pid, start_ticks, start_time, comm,
			       cmdline);
}

/* The array of figure f in s (NULL when absent), and its pending slot. */
static double *fig_array(const struct series *s, int f)
{
	if (f == LIVE_REQUESTS)
		return s->requests;
	if (f == LIVE_CONNECTIONS)
		return s->connections;
	return s->gauges[f].v;
}

static struct pending *fig_pending(struct live_series *l, int f)
{
	if (f == LIVE_REQUESTS)
		return &l->req;
	if (f == LIVE_CONNECTIONS)
		return &l->conn;
	return &l->gauge[f];
}

static bool fig_valid(const struct live_series *l, int f)
{
	return f == LIVE_REQUESTS || f == LIVE_CONNECTIONS ||
	       (f >= 0 && (size_t)f < l->kept.n_gauges);
}

static void fig_set(struct series *s, int f, size_t i, double v)
{
	if (f == LIVE_REQUESTS)
		series_set_requests(s, i, v);
	else if (f == LIVE_CONNECTIONS)
		series_set_connections(s, i, v);
	else
		series_set_gauge_at(s, (size_t)f, i, v);
}

static bool fig_recorded(const struct live_series *l, int f)
{
	if (f == LIVE_REQUESTS)
		return l->rec_requests;
	if (f == LIVE_CONNECTIONS)
		return l->rec_connections;
	return true;               /* a gauge exists once added */
}

/* Every figure, as a loop bound: requests, connections, gauges. */
#define FIG_FIRST LIVE_CONNECTIONS
static int fig_end(const struct live_series *l)
{
	return (int)l->kept.n_gauges;
}

void live_record_figure(struct live_series *l, int f)
{
	if (f == LIVE_REQUESTS)
		l->rec_requests = true;
	else if (f == LIVE_CONNECTIONS)
		l->rec_connections = true;
}

int live_add_gauge(struct live_series *l, const char *name)
{
	size_t g = series_add_gauge(&l->kept, name);
	l->gauge = xrealloc(l->gauge, (g + 1) * sizeof(*l->gauge));
	l->gauge[g] = (struct pending){0};
	return (int)g;
}

/* Drop every other kept point (keep 0, 2, 4, ...) and double the
 * stride. A valid reading on a dropped point moves to the next kept
 * point when that has none (its window now covers the dropped one's),
 * or becomes pending when the dropped point was the newest. */
static void halve(struct live_series *l)
{
	struct series *s = &l->kept;
	size_t n = s->n, m = (n + 1) / 2;
	for (int f = FIG_FIRST; f < fig_end(l); f++) {
		double *a = fig_array(s, f);
		if (!a)
			continue;
		for (size_t j = 1; j < n; j += 2) {
			if (isnan(a[j]))
				continue;
			if (j + 1 < n) {
				if (isnan(a[j + 1]))
					a[j + 1] = a[j];
			} else {
				struct pending *p = fig_pending(l, f);
				if (!p->have)
					*p = (struct pending){true, s->t[j],
							      a[j]};
			}
		}
		for (size_t j = 0; j < m; j++)
			a[j] = a[2 * j];
		for (size_t j = m; j < n; j++)
			a[j] = NAN;
	}
	for (size_t j = 0; j < m; j++) {
		s->t[j] = s->t[2 * j];
		s->footprint[j] = s->footprint[2 * j];
		s->inc[j] = s->inc[2 * j];
	}
	for (int c = 0; c < COMP_COUNT; c++) {
		double *a = s->comp[c];
		if (!a)
			continue;
		for (size_t j = 0; j < m; j++)
			a[j] = a[2 * j];
		for (size_t j = m; j < n; j++)
			a[j] = NAN;
	}
	s->n = m;
	l->stride *= 2;
}

static void set_point(struct series *s, size_t i, const struct live_sample *x)
{
	for (int c = 0; c < COMP_COUNT; c++)
		if (!isnan(x->comp[c]))
			series_set_component(s, (enum series_component)c, i,
					     x->comp[c]);
}

void live_append(struct live_series *l, const struct live_sample *x)
{
	struct series *s = &l->kept;
	if (!s->n_incs)
		return;  /* contract: an incarnation first */
	if (l->have_tail && x->t < l->tail.t)
		return;  /* out of time order: skipped, as store.c does */
	uint32_t inc = (uint32_t)(s->n_incs - 1);
	uint64_t k = l->seen++;
	bool keep = k % l->stride == 0;
	if (keep && s->n == l->max) {
		halve(l);
		keep = k % l->stride == 0;
	}
	if (keep) {
		size_t i = series_append(s, x->t, x->footprint, inc);
		set_point(s, i, x);
		for (int f = FIG_FIRST; f < fig_end(l); f++) {
			struct pending *p = fig_pending(l, f);
			if (fig_recorded(l, f) && !fig_array(s, f))
				fig_set(s, f, i, NAN);
			if (p->have && p->t <= x->t + STAMP_EPS) {
				fig_set(s, f, i, p->v);
				p->have = false;
			}
		}
	}
	l->tail = *x;
	l->tail_inc = inc;
	l->tail_kept = keep;
	l->have_tail = true;
	if (!l->recent)
		return;
	l->ring[l->ring_head] = x->footprint;
	l->ring_head = (l->ring_head + 1) % l->recent;
	if (l->ring_n < l->recent)
		l->ring_n++;
}

void live_reading(struct live_series *l, int f, double t, double v)
{
	if (!fig_valid(l, f))
		return;
	live_record_figure(l, f);
	struct series *s = &l->kept;
	if (s->n && !fig_array(s, f))
		fig_set(s, f, 0, NAN);  /* recorded, maybe all gaps */
	if (isnan(v))
		return;  /* a gap: the point keeps any valid reading */
	if (s->n && s->t[s->n - 1] >= t - STAMP_EPS) {
		/* The first kept point at or after t. */
		size_t lo = 0, hi = s->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->t[mid] < t - STAMP_EPS)
				lo = mid + 1;
			else
				hi = mid;
		}
		fig_set(s, f, lo, v);
		return;
	}
	*fig_pending(l, f) = (struct pending){true, t, v};
}

void live_set_limits(struct live_series *l, double cgroup_limit,
		     double mem_total, double swap_total, double swap_free,
		     double mem_available)
{
	l->kept.cgroup_limit = cgroup_limit;
	l->kept.mem_total = mem_total;
	l->kept.swap_total = swap_total;
	l->kept.swap_free_last = swap_free;
	l->kept.mem_available_last = mem_available;
}

void live_set_machine(struct live_series *l, double mem_total,
		      double swap_total, double swap_free,
		      double mem_available)
{
	l->kept.mem_total = mem_total;
	l->kept.swap_total = swap_total;
	l->kept.swap_free_last = swap_free;
	l->kept.mem_available_last = mem_available;
}

bool live_last_incarnation_is(const struct live_series *l, int64_t pid,
			      unsigned long long start_ticks)
{
	const struct series *s = &l->kept;
	return s->n_incs && s->incs[s->n_incs - 1].pid == pid &&
	       s->incs[s->n_incs - 1].start_ticks == start_ticks;
}

void live_set_cgroup_limit(struct live_series *l, double cgroup_limit)
{
	l->kept.cgroup_limit = cgroup_limit;
}

void live_set_gpu_limit(struct live_series *l, unsigned d, double total,
			double used)
{
	series_set_gpu_limit(&l->kept, d, total, used, NULL);
}

void live_set_quantum(struct live_series *l, double quantum, bool exact)
{
	l->kept.quantum = quantum;
	l->kept.quantum_exact = exact;
}

uint64_t live_count(const struct live_series *l)
{
	return l->seen;
}

size_t live_kept(const struct live_series *l)
{
	return l->kept.n;
}

uint64_t live_stride(const struct live_series *l)
{
	return l->stride;
}

const double *live_recent(struct live_series *l, size_t *n)
{
	if (!l->recent) {
		*n = 0;
		return NULL;
	}
	size_t from = (l->ring_head + l->recent - l->ring_n) % l->recent;
	for (size_t i = 0; i < l->ring_n; i++)
		l->lin[i] = l->ring[(from + i) % l->recent];
	*n = l->ring_n;
	return l->lin;
}

/* A copy of optional array a (length n) into *dst of s (allocated). */
static void copy_optional(struct series *s, int f, const double *a, size_t n)
{
	if (!a)
		return;
	fig_set(s, f, 0, NAN);
	memcpy(fig_array(s, f), a, n * sizeof(double));
}

void live_snapshot(const struct live_series *l, struct series *out)
{
	const struct series *k = &l->kept;
	series_init(out, k->name);
	for (size_t i = 0; i < k->n_incs; i++) {
		const struct incarnation *in = &k->incs[i];
		series_add_incarnation(out, in->pid, in->start_ticks,
				       in->start_time, in->comm, in->cmdline);
	}
	for (size_t g = 0; g < k->n_gauges; g++)
		series_add_gauge(out, k->gauges[g].name);
	out->quantum = k->quantum;
	out->quantum_exact = k->quantum_exact;
	out->cgroup_limit = k->cgroup_limit;
	out->mem_total = k->mem_total;
	out->swap_total = k->swap_total;
	out->swap_free_last = k->swap_free_last;
	out->mem_available_last = k->mem_available_last;
	for (unsigned d = 0; k->gpu_limits && d < SERIES_GPU_DEVICES; d++)
		series_set_gpu_limit(out, d, k->gpu_limits[d].total,
				     k->gpu_limits[d].used,
				     k->gpu_limits[d].name);
	bool tail = l->have_tail && !l->tail_kept;
	size_t n = k->n;
	if (!n && !tail)
		return;
	series_reserve(out, n + 1);
	memcpy(out->t, k->t, n * sizeof(double));
	memcpy(out->footprint, k->footprint, n * sizeof(double));
	memcpy(out->inc, k->inc, n * sizeof(uint32_t));
	out->n = n ? n : 1;  /* the arrays below need a point to exist */
	for (int c = 0; c < COMP_COUNT; c++)
		if (k->comp[c]) {
			series_set_component(out, (enum series_component)c, 0,
					     NAN);
			memcpy(out->comp[c], k->comp[c], n * sizeof(double));
		}
	for (int f = FIG_FIRST; f < fig_end(l); f++) {
		if (fig_array(k, f))
			copy_optional(out, f, fig_array(k, f), n);
		else if (fig_recorded(l, f))
			fig_set(out, f, 0, NAN);
	}
	out->n = n;
	if (!tail)
		return;
	size_t i = series_append(out, l->tail.t, l->tail.footprint,
				 l->tail_inc);
	set_point(out, i, &l->tail);
	for (int f = FIG_FIRST; f < fig_end(l); f++) {
		const struct pending *p = f == LIVE_REQUESTS ? &l->req :
			f == LIVE_CONNECTIONS ? &l->conn : &l->gauge[f];
		if (p->have && p->t <= l->tail.t + STAMP_EPS)
			fig_set(out, f, i, p->v);
	}
}
