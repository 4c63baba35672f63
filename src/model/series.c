/*
 * series.c - construction and release of series and datasets (series.h).
 * Pure bookkeeping: no I/O, no statistics.
 */
#include "series.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "regions.h"

const char *const series_component_names[COMP_COUNT] = {
	[COMP_RSS] = "rss",
	[COMP_ANON] = "anon",
	[COMP_FILE] = "file",
	[COMP_SHMEM] = "shmem",
	[COMP_SWAP] = "swap",
	[COMP_PAGETABLES] = "pagetables",
	[COMP_PSS] = "pss",
	[COMP_PSS_ANON] = "pss_anon",
	[COMP_PRIVATE_DIRTY] = "private_dirty",
	[COMP_SWAP_PSS] = "swap_pss",
	[COMP_GPU] = "gpu",
	[COMP_GPU0] = "gpu0", [COMP_GPU0 + 1] = "gpu1",
	[COMP_GPU0 + 2] = "gpu2", [COMP_GPU0 + 3] = "gpu3",
	[COMP_GPU0 + 4] = "gpu4", [COMP_GPU0 + 5] = "gpu5",
	[COMP_GPU0 + 6] = "gpu6", [COMP_GPU0 + 7] = "gpu7",
};
_Static_assert(SERIES_GPU_DEVICES == 8, "name each gpu component above");

void series_init(struct series *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->cgroup_limit = NAN;
	s->mem_total = NAN;
	s->swap_total = NAN;
	s->swap_free_last = NAN;
	s->mem_available_last = NAN;
	s->resident = (struct series_resident){NAN, NAN, NAN, NAN, NAN, NAN};
}

void series_set_gpu_limit(struct series *s, unsigned d, double total,
			  double used, const char *name)
{
	if (d >= SERIES_GPU_DEVICES)
		return;
	if (!s->gpu_limits) {
		s->gpu_limits = xcalloc(SERIES_GPU_DEVICES,
					sizeof(*s->gpu_limits));
		for (size_t k = 0; k < SERIES_GPU_DEVICES; k++)
			s->gpu_limits[k].total = s->gpu_limits[k].used = NAN;
	}
	struct series_gpu_limit *g = &s->gpu_limits[d];
	g->total = total;
	g->used = used;
	if (name)
		snprintf(g->name, sizeof(g->name), "%s", name);
}

void series_drop_points(struct series *s)
{
	free(s->t);
	free(s->footprint);
	free(s->inc);
	for (int c = 0; c < COMP_COUNT; c++) {
		free(s->comp[c]);
		s->comp[c] = NULL;
	}
	free(s->requests);
	free(s->connections);
	free(s->pressure);
	free(s->walk_var);
	for (size_t g = 0; g < s->n_gauges; g++) {
		free(s->gauges[g].name);
		free(s->gauges[g].v);
	}
	free(s->gauges);
	s->t = s->footprint = s->requests = s->connections = s->pressure =
		s->walk_var = NULL;
	s->inc = NULL;
	s->gauges = NULL;
	s->n_gauges = 0;
	s->n = s->cap = 0;
}

void series_add_label(struct series *s, const char *name, const char *value)
{
	s->labels = xrealloc(s->labels, (s->n_labels + 1) *
			     sizeof(*s->labels));
	size_t i = s->n_labels;
	while (i > 0 && strcmp(s->labels[i - 1].name, name) > 0) {
		s->labels[i] = s->labels[i - 1];
		i--;
	}
	s->labels[i].name = xstrdup(name);
	s->labels[i].value = xstrdup(value);
	s->n_labels++;
}

void series_release(struct series *s)
{
	free(s->name);
	for (size_t i = 0; i < s->n_labels; i++) {
		free(s->labels[i].name);
		free(s->labels[i].value);
	}
	free(s->labels);
	series_drop_points(s);
	if (s->regions_first) {
		regions_release(s->regions_first);
		free(s->regions_first);
	}
	if (s->regions_last) {
		regions_release(s->regions_last);
		free(s->regions_last);
	}
	free(s->gpu_regions);
	free(s->gpu_limits);
	for (size_t i = 0; i < s->n_incs; i++) {
		free(s->incs[i].comm);
		free(s->incs[i].cmdline);
	}
	free(s->incs);
	for (size_t i = 0; i < s->n_sites; i++) {
		struct series_site *x = &s->sites[i];
		for (size_t k = 0; k < x->n_frames; k++) {
			free(x->frames[k].module);
			free(x->frames[k].build_id);
			free(x->frames[k].function);
			free(x->frames[k].file);
		}
		free(x->frames);
		free(x->t);
		free(x->live);
		free(x->var);
	}
	free(s->sites);
	memset(s, 0, sizeof(*s));
}

static char *dup_or_null(const char *v)
{
	return v ? xstrdup(v) : NULL;
}

size_t series_add_site(struct series *s, int64_t id, uint32_t inc,
		       const struct series_site_frame *frames, size_t n)
{
	s->sites = xrealloc(s->sites, (s->n_sites + 1) * sizeof(*s->sites));
	struct series_site *x = &s->sites[s->n_sites];
	memset(x, 0, sizeof(*x));
	x->id = id;
	x->inc = inc;
	x->frames = xcalloc(n ? n : 1, sizeof(*x->frames));
	x->n_frames = n;
	for (size_t k = 0; k < n; k++) {
		x->frames[k] = frames[k];
		x->frames[k].module = dup_or_null(frames[k].module);
		x->frames[k].build_id = dup_or_null(frames[k].build_id);
		x->frames[k].function = dup_or_null(frames[k].function);
		x->frames[k].file = dup_or_null(frames[k].file);
	}
	return s->n_sites++;
}

void series_site_add_row(struct series_site *x, double t, double live,
			 double var)
{
	assert(!x->n || t >= x->t[x->n - 1]);
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->t = xrealloc(x->t, x->cap * sizeof(*x->t));
		x->live = xrealloc(x->live, x->cap * sizeof(*x->live));
		x->var = xrealloc(x->var, x->cap * sizeof(*x->var));
	}
	x->t[x->n] = t;
	x->var[x->n] = var;
	x->live[x->n++] = live;
}

double series_site_live_at(const struct series_site *x, double t)
{
	/* the last row at or before t: binary search */
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? x->live[lo - 1] : 0;
}

/* Optional arrays have the series' capacity; grow them with it. */
static void grow_optional(double **a, size_t old_cap, size_t cap)
{
	if (!*a)
		return;
	*a = xrealloc(*a, cap * sizeof(double));
	for (size_t i = old_cap; i < cap; i++)
		(*a)[i] = NAN;
}

void series_reserve(struct series *s, size_t cap)
{
	if (cap <= s->cap)
		return;
	size_t old = s->cap;
	s->t = xrealloc(s->t, cap * sizeof(double));
	s->footprint = xrealloc(s->footprint, cap * sizeof(double));
	s->inc = xrealloc(s->inc, cap * sizeof(uint32_t));
	for (int c = 0; c < COMP_COUNT; c++)
		grow_optional(&s->comp[c], old, cap);
	grow_optional(&s->requests, old, cap);
	grow_optional(&s->connections, old, cap);
	grow_optional(&s->pressure, old, cap);
	grow_optional(&s->walk_var, old, cap);
	for (size_t g = 0; g < s->n_gauges; g++)
		grow_optional(&s->gauges[g].v, old, cap);
	s->cap = cap;
}

size_t series_append(struct series *s, double t, double footprint,
		     uint32_t inc)
{
	assert(inc < s->n_incs || s->n_incs == 0);
	assert(s->n == 0 || t >= s->t[s->n - 1]);
	if (s->n == s->cap)
		series_reserve(s, s->cap ? s->cap * 2 : 256);
	s->t[s->n] = t;
	s->footprint[s->n] = footprint;
	s->inc[s->n] = inc;
	return s->n++;
}

static void set_optional(struct series *s, double **a, size_t i, double v)
{
	assert(i < s->n);
	if (!*a) {
		*a = xmalloc((s->cap ? s->cap : 1) * sizeof(double));
		for (size_t k = 0; k < s->cap; k++)
			(*a)[k] = NAN;
	}
	(*a)[i] = v;
}

void series_set_component(struct series *s, enum series_component c,
			  size_t i, double v)
{
	assert(c < COMP_COUNT);
	set_optional(s, &s->comp[c], i, v);
}

void series_set_requests(struct series *s, size_t i, double v)
{
	set_optional(s, &s->requests, i, v);
}

void series_set_connections(struct series *s, size_t i, double v)
{
	set_optional(s, &s->connections, i, v);
}

void series_set_pressure(struct series *s, size_t i, double v)
{
	set_optional(s, &s->pressure, i, v);
}

void series_set_walk_var(struct series *s, size_t i, double v)
{
	set_optional(s, &s->walk_var, i, v);
}

size_t series_add_gauge(struct series *s, const char *name)
{
	size_t g = s->n_gauges;
	s->gauges = xrealloc(s->gauges, (g + 1) * sizeof(*s->gauges));
	s->gauges[g].name = xstrdup(name);
	s->gauges[g].v = NULL;
	s->n_gauges++;
	return g;
}

void series_set_gauge_at(struct series *s, size_t g, size_t i, double v)
{
	assert(g < s->n_gauges);
	set_optional(s, &s->gauges[g].v, i, v);
}

void series_set_gauge(struct series *s, const char *name, size_t i, double v)
{
	size_t g;
	for (g = 0; g < s->n_gauges; g++)
		if (strcmp(s->gauges[g].name, name) == 0)
			break;
	if (g == s->n_gauges)
		series_add_gauge(s, name);
	series_set_gauge_at(s, g, i, v);
}

uint32_t series_add_incarnation(struct series *s, int64_t pid,
				unsigned long long start_ticks,
				double start_time, const char *comm,
				const char *cmdline)
{
	s->incs = xrealloc(s->incs, (s->n_incs + 1) * sizeof(*s->incs));
	struct incarnation *in = &s->incs[s->n_incs];
	in->pid = pid;
	in->start_ticks = start_ticks;
	in->start_time = start_time;
	in->comm = comm ? xstrdup(comm) : NULL;
	in->cmdline = cmdline ? xstrdup(cmdline) : NULL;
	return (uint32_t)s->n_incs++;
}

void dataset_init(struct dataset *d, const char *source)
{
	memset(d, 0, sizeof(*d));
	d->source = xstrdup(source);
	d->interval_s = NAN;
}

struct series *dataset_add_target(struct dataset *d, const char *name)
{
	d->targets = xrealloc(d->targets,
			      (d->n_targets + 1) * sizeof(*d->targets));
	struct series *s = &d->targets[d->n_targets++];
	series_init(s, name);
	return s;
}

void dataset_add_note(struct dataset *d, const char *text)
{
	d->notes = xrealloc(d->notes, (d->n_notes + 1) * sizeof(char *));
	d->notes[d->n_notes++] = xstrdup(text);
}

void dataset_release(struct dataset *d)
{
	for (size_t i = 0; i < d->n_targets; i++)
		series_release(&d->targets[i]);
	free(d->targets);
	for (size_t i = 0; i < d->n_notes; i++)
		free(d->notes[i]);
	free(d->notes);
	free(d->gpu_devices);
	free(d->gpu_sources);
	free(d->footprint_what);
	free(d->source);
	memset(d, 0, sizeof(*d));
}

/* Is group g one incarnation of the non-group target p, point for
 * point? */
static bool group_is_target(const struct series *g, const struct series *p)
{
	if (p->group || g->n_incs != 1 || p->n_incs != 1 || g->n != p->n ||
	    !g->n || g->incs[0].pid != p->incs[0].pid ||
	    g->incs[0].start_ticks != p->incs[0].start_ticks)
		return false;
	for (size_t i = 0; i < g->n; i++) {
		double a = g->footprint[i], b = p->footprint[i];
		if (fabs(g->t[i] - p->t[i]) > 1e-3 ||
		    !(a == b || (isnan(a) && isnan(b))))
			return false;
	}
	return true;
}

size_t dataset_fold_lone_groups(struct dataset *d)
{
	size_t kept = 0, folded = 0;
	for (size_t i = 0; i < d->n_targets; i++) {
		struct series *g = &d->targets[i];
		bool lone = false;
		for (size_t j = 0; g->group && !lone && j < d->n_targets; j++)
			lone = j != i && group_is_target(g, &d->targets[j]);
		if (lone) {
			series_release(g);
			folded++;
			continue;
		}
		if (kept != i)
			d->targets[kept] = *g;
		kept++;
	}
	d->n_targets = kept;
	return folded;
}

static void region_row_set(struct region_breakdown *b,
			   const struct series_region_row *r)
{
	for (int k = 0; k < REGION_FAMILY_COUNT; k++) {
		if (strcmp(region_family_names[k], r->family) != 0)
			continue;
		struct region_figures *f = &b->f[k];
		f->size = r->size;
		f->rss = r->rss;
		f->pss = r->pss;
		f->private_dirty = r->private_dirty;
		f->swap = r->swap;
		f->footprint = r->footprint;
		f->mappings = r->mappings;
		snprintf(b->top[k], sizeof(b->top[k]), "%s",
			 r->top ? r->top : "");
		return;
	}
	/* A family from a newer memtrend: left out. */
}

static struct region_breakdown *region_new(void)
{
	struct region_breakdown *b = xmalloc(sizeof(*b));
	regions_init(b);
	return b;
}

void series_add_region_row(struct series *s, uint32_t inc, double t,
			   const struct series_region_row *r)
{
	if (s->regions_first && inc != s->regions_inc) {
		if (inc < s->regions_inc)
			return;  /* an older incarnation: keep the latest */
		regions_release(s->regions_first);
		free(s->regions_first);
		regions_release(s->regions_last);
		free(s->regions_last);
		s->regions_first = s->regions_last = NULL;
	}
	if (!s->regions_first) {
		s->regions_first = region_new();
		s->regions_last = region_new();
		s->regions_first_t = s->regions_last_t = t;
		s->regions_inc = inc;
	}
	if (t == s->regions_first_t)
		region_row_set(s->regions_first, r);
	if (t != s->regions_last_t) {
		regions_release(s->regions_last);
		regions_init(s->regions_last);
		s->regions_last_t = t;
	}
	region_row_set(s->regions_last, r);
}

void series_add_gpu_row(struct series *s, uint32_t inc, double t,
			const char *source, const char *region,
			const char *kind, double resident)
{
	if (s->n_gpu_regions && inc != s->gpu_regions_inc) {
		if (inc < s->gpu_regions_inc)
			return;  /* an older incarnation: keep the latest */
		s->n_gpu_regions = 0;
	}
	s->gpu_regions_inc = inc;
	size_t k = 0;
	while (k < s->n_gpu_regions &&
	       !(strcmp(s->gpu_regions[k].source, source) == 0 &&
		 strcmp(s->gpu_regions[k].name, region) == 0))
		k++;
	if (k == s->n_gpu_regions) {
		/* Bounded by the regions a driver has (probe_gpu.h keeps at
		 * most GPU_REGION_MAX per process) plus NVML's one. */
		s->gpu_regions = xrealloc(s->gpu_regions,
					  (k + 1) * sizeof(*s->gpu_regions));
		struct series_gpu_region *g = &s->gpu_regions[k];
		memset(g, 0, sizeof(*g));
		snprintf(g->source, sizeof(g->source), "%s", source);
		snprintf(g->name, sizeof(g->name), "%s", region);
		snprintf(g->kind, sizeof(g->kind), "%s", kind);
		g->first_t = t;
		g->first = resident;
		s->n_gpu_regions++;
	}
	struct series_gpu_region *g = &s->gpu_regions[k];
	if (isnan(g->first) && !isnan(resident)) {
		g->first_t = t;
		g->first = resident;
	}
	g->last_t = t;
	g->last = resident;
}
