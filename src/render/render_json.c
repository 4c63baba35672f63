/*
 * render_json.c - `report --json` (render.h): DESIGN.md's JSON contract,
 * documented field by field in docs/json.md. jansson builds and escapes the
 * document; process-controlled strings are first made valid UTF-8 (jansson
 * refuses invalid UTF-8). Fields that later analyses fill are null or [].
 * Targets come worst first (rank.h), each with its rank.
 * Stable: fields are added, never renamed.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "findings_view.h"
#include "rank.h"
#include "regions.h"
#include "render.h"
#include "render_sites.h"
#include "units.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Whole bytes as JSON integers (exact, as documented: "bytes in bytes"). */
static json_t *bytes_or_null(double v)
{
	return isfinite(v) ? json_integer((json_int_t)llround(v)) :
			     json_null();
}

static json_t *time_or_null(double t)
{
	char b[40];
	return isfinite(t) ? json_string(units_format_time(b, sizeof(b), t)) :
			     json_null();
}

static json_t *safe_string(const char *s)
{
	char b[4096];
	return json_string(render_escape_utf8(b, sizeof(b), s ? s : ""));
}

/* A string of any length made valid UTF-8 (U+FFFD, 3 bytes, for each
 * invalid byte at most); s stays the caller's. */
static json_t *text_json(const char *s)
{
	size_t cap = 3 * strlen(s) + 4;
	char *b = xmalloc(cap);
	json_t *j = json_string(render_escape_utf8(b, cap, s));
	free(b);
	return j;
}

/* A row of the findings view: {code, text, figures: {NAME: value}}, each
 * figure as its kind says (findings_view.h): bytes and counts as
 * integers, times as ISO 8601, unknown as null. */
static json_t *finding_row_json(const struct finding_row *row)
{
	json_t *o = json_object(), *figs = json_object();
	json_object_set_new(o, "code", json_string(row->code));
	json_object_set_new(o, "text", text_json(row->text));
	for (size_t i = 0; i < row->n_figures; i++) {
		const struct finding_figure *g = &row->figures[i];
		json_t *x;
		switch (g->kind) {
		case FIGURE_BYTES:
		case FIGURE_COUNT: x = bytes_or_null(g->value); break;
		case FIGURE_TIME: x = time_or_null(g->value); break;
		case FIGURE_BOOL: x = json_boolean(g->value != 0); break;
		case FIGURE_TEXT:
			x = g->text ? safe_string(g->text) : json_null();
			break;
		case FIGURE_NUMBER:
		default: x = num_or_null(g->value); break;
		}
		json_object_set_new(figs, g->name, x);
	}
	json_object_set_new(o, "figures", figs);
	return o;
}

/* DESIGN.md's {bytes_per_request, ci95_low, ci95_high, requests} plus the
 * test and the division; null without a per-request slope. */
static json_t *per_request_json(const struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	if (!pr->found)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "bytes_per_request",
			    num_or_null(pr->slope.estimate));
	json_object_set_new(o, "ci95_low", num_or_null(pr->slope.low));
	json_object_set_new(o, "ci95_high", num_or_null(pr->slope.high));
	json_object_set_new(o, "requests", num_or_null(pr->requests));
	json_object_set_new(o, "slope_requests",
			    num_or_null(pr->slope_requests));
	json_object_set_new(o, "after_warmup",
			    json_boolean(pr->after_warmup));
	json_object_set_new(o, "p_value", num_or_null(pr->slope.p));
	json_object_set_new(o, "detectable_bytes_per_request",
			    num_or_null(pr->detectable));
	json_object_set_new(o, "concern_bytes_per_request",
			    num_or_null(pr->concern));
	json_object_set_new(o, "needed_requests",
			    num_or_null(pr->needed_requests));
	json_object_set_new(o, "requests_per_hour",
			    num_or_null(pr->rate_per_h));
	return o;
}

/* The work series' counter check (counter.h); null without one. */
static json_t *work_json(const struct target_findings *f)
{
	const struct counter_check *w = &f->work;
	if (!w->recorded)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "is_counter", json_boolean(w->is_counter));
	json_object_set_new(o, "used", json_boolean(!f->work_set_aside));
	json_object_set_new(o, "readings",
			    json_integer((json_int_t)w->readings));
	json_object_set_new(o, "decreases",
			    json_integer((json_int_t)w->decreases));
	json_object_set_new(o, "resets", json_integer((json_int_t)w->resets));
	json_object_set_new(o, "decreasing_share",
			    num_or_null(w->decreasing_share));
	return o;
}

static json_t *idle_windows_json(const struct target_findings *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->idle.n; i++) {
		const struct idle_window *w = &f->idle.windows[i];
		json_t *o = json_object();
		json_object_set_new(o, "start", time_or_null(w->start));
		json_object_set_new(o, "end", time_or_null(w->end));
		json_object_set_new(o, "footprint_start_bytes",
				    bytes_or_null(w->fp_start));
		json_object_set_new(o, "footprint_end_bytes",
				    bytes_or_null(w->fp_end));
		json_object_set_new(o, "decline_bytes",
				    bytes_or_null(w->decline));
		json_array_append_new(a, o);
	}
	return a;
}

/* The summary and growth accounting; null without a work counter. */
static json_t *idle_summary_json(const struct target_findings *f)
{
	const struct idle_findings *id = &f->idle;
	if (!id->work_known)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "count", json_integer((json_int_t)id->n));
	json_object_set_new(o, "min_s", num_or_null(f->idle_min_s));
	json_object_set_new(o, "longest_s", id->n ?
			    num_or_null(id->longest_s) : json_null());
	json_object_set_new(o, "largest_decline_bytes", id->n ?
			    bytes_or_null(id->largest_decline) : json_null());
	json_object_set_new(o, "released", json_boolean(id->released));
	json_object_set_new(o, "idle_s", num_or_null(id->idle_s));
	json_object_set_new(o, "active_s", num_or_null(id->active_s));
	json_t *g = json_object();
	json_object_set_new(g, "net_bytes", bytes_or_null(id->growth_net));
	json_object_set_new(g, "active_bytes",
			    bytes_or_null(id->growth_active));
	json_object_set_new(g, "idle_bytes", bytes_or_null(id->growth_idle));
	json_object_set_new(g, "warmup_bytes",
			    bytes_or_null(id->growth_warmup));
	json_object_set_new(o, "growth", g);
	return o;
}

/* record --regions: the last snapshot by family with growth since the
 * first; null without snapshots. */
static json_t *regions_json(const struct series *s)
{
	const struct region_breakdown *b = s->regions_last,
				      *a = s->regions_first;
	if (!b)
		return json_null();
	json_t *o = json_object(), *fams = json_array();
	json_object_set_new(o, "first_time", time_or_null(s->regions_first_t));
	json_object_set_new(o, "last_time", time_or_null(s->regions_last_t));
	for (int k = 0; k < REGION_FAMILY_COUNT; k++) {
		const struct region_figures *f = &b->f[k];
		json_t *r = json_object();
		json_object_set_new(r, "family",
				    json_string(region_family_names[k]));
		json_object_set_new(r, "size_bytes", bytes_or_null(f->size));
		json_object_set_new(r, "rss_bytes", bytes_or_null(f->rss));
		json_object_set_new(r, "pss_bytes", bytes_or_null(f->pss));
		json_object_set_new(r, "private_dirty_bytes",
				    bytes_or_null(f->private_dirty));
		json_object_set_new(r, "swap_bytes", bytes_or_null(f->swap));
		json_object_set_new(r, "footprint_bytes",
				    bytes_or_null(f->footprint));
		json_object_set_new(r, "mappings", json_integer(f->mappings));
		json_object_set_new(r, "growth_footprint_bytes",
			a ? bytes_or_null(f->footprint - a->f[k].footprint) :
			json_null());
		json_object_set_new(r, "largest", b->top[k][0] ?
				    safe_string(b->top[k]) : json_null());
		json_array_append_new(fams, r);
	}
	json_object_set_new(o, "families", fams);
	return o;
}

/* {bytes_per_hour, ci95_low, ci95_high, p_value}: a slope as DESIGN.md
 * gives it (the target's slope adds its own fields to it). */
static json_t *slope_json(struct slope s)
{
	json_t *sl = json_object();
	json_object_set_new(sl, "bytes_per_hour", num_or_null(s.estimate));
	json_object_set_new(sl, "ci95_low", num_or_null(s.low));
	json_object_set_new(sl, "ci95_high", num_or_null(s.high));
	json_object_set_new(sl, "p_value", num_or_null(s.p));
	return sl;
}

/* The latest sample's figures as /proc/PID/status has them
 * (series_resident): what ps and top show; null when not recorded. */
static json_t *resident_json(const struct series *s)
{
	const struct series_resident *r = &s->resident;
	if (isnan(r->rss))
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "time", time_or_null(r->t));
	json_object_set_new(o, "rss_bytes", bytes_or_null(r->rss));
	json_object_set_new(o, "anon_bytes", bytes_or_null(r->anon));
	json_object_set_new(o, "file_bytes", bytes_or_null(r->file));
	json_object_set_new(o, "shmem_bytes", bytes_or_null(r->shmem));
	json_object_set_new(o, "swap_bytes", bytes_or_null(r->swap));
	return o;
}

/* Device-local GPU memory in the footprint; null when none recorded. */
static json_t *gpu_json(const struct target_findings *f)
{
	const struct gpu_finding *g = &f->gpu;
	const struct series *s = f->series;
	if (!g->recorded)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "device_local_first_bytes",
			    bytes_or_null(g->first));
	json_object_set_new(o, "device_local_last_bytes",
			    bytes_or_null(g->last));
	json_object_set_new(o, "device_local_max_bytes",
			    bytes_or_null(g->max));
	json_object_set_new(o, "share_of_footprint",
			    num_or_null(g->share_last));
	json_object_set_new(o, "growth_bytes", bytes_or_null(g->growth));
	json_object_set_new(o, "footprint_growth_bytes",
			    bytes_or_null(g->footprint_growth));
	json_object_set_new(o, "slope", g->has_trend ?
			    slope_json(g->slope) :
			    json_null());
	json_t *regs = json_array();
	for (size_t i = 0; i < s->n_gpu_regions; i++) {
		const struct series_gpu_region *r = &s->gpu_regions[i];
		json_t *x = json_object();
		json_object_set_new(x, "source", safe_string(r->source));
		json_object_set_new(x, "region", safe_string(r->name));
		json_object_set_new(x, "kind", safe_string(r->kind));
		json_object_set_new(x, "first_bytes", bytes_or_null(r->first));
		json_object_set_new(x, "last_bytes", bytes_or_null(r->last));
		json_object_set_new(x, "last_time", time_or_null(r->last_t));
		json_array_append_new(regs, x);
	}
	json_object_set_new(o, "regions", regs);
	return o;
}

/* Issue 28: each pool the footprint sits in, with its limit, slope and
 * time to the limit (docs/json.md, "pools"). */
static json_t *pools_json(const struct target_findings *f)
{
	static const char *const kinds[] = {
		[POOL_HOST] = "host", [POOL_FOOTPRINT] = "footprint",
		[POOL_GPU] = "gpu",
	};
	json_t *a = json_array();
	for (size_t k = 0; k < f->n_pools; k++) {
		const struct pool_finding *p = &f->pools[k];
		json_t *x = json_object();
		json_object_set_new(x, "id", json_string(p->id));
		json_object_set_new(x, "kind", json_string(kinds[p->kind]));
		json_object_set_new(x, "name", safe_string(p->name));
		json_object_set_new(x, "device", p->kind == POOL_GPU ?
				    json_integer(p->device) : json_null());
		json_object_set_new(x, "device_total_bytes",
				    bytes_or_null(p->device_total));
		json_object_set_new(x, "limit_bytes",
				    bytes_or_null(p->limit_bytes));
		json_object_set_new(x, "limit_source", p->limit_source ?
				    json_string(p->limit_source) :
				    json_null());
		json_object_set_new(x, "first_bytes", bytes_or_null(p->first));
		json_object_set_new(x, "last_bytes", bytes_or_null(p->last));
		json_object_set_new(x, "slope", p->has_trend ?
				    slope_json(p->slope) : json_null());
		json_object_set_new(x, "significant",
				    json_boolean(p->significant));
		json_object_set_new(x, "eta_s", p->exhausts ?
				    num_or_null(p->eta_s) : json_null());
		json_object_set_new(x, "eta_low_s", p->exhausts ?
				    num_or_null(p->eta_low_s) : json_null());
		json_object_set_new(x, "eta_high_s", p->exhausts ?
				    num_or_null(p->eta_high_s) : json_null());
		json_object_set_new(x, "earliest", json_boolean(
			f->exhaustion.found && (int)k == f->exhaustion.pool));
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *gpu_devices_json(const struct dataset *d)
{
	json_t *a = json_array();
	for (size_t i = 0; i < d->n_gpu_devices; i++) {
		const struct dataset_gpu_device *g = &d->gpu_devices[i];
		json_t *x = json_object();
		json_object_set_new(x, "source", safe_string(g->source));
		json_object_set_new(x, "index", json_integer(g->index));
		json_object_set_new(x, "total_bytes", bytes_or_null(g->total));
		json_object_set_new(x, "used_bytes", bytes_or_null(g->used));
		json_object_set_new(x, "time", time_or_null(g->t));
		json_object_set_new(x, "name", g->name[0] ?
				    safe_string(g->name) : json_null());
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *restarts_json(const struct target_findings *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->restarts.n; i++) {
		const struct restart *r = &f->restarts.r[i];
		json_t *o = json_object();
		json_object_set_new(o, "time", time_or_null(r->time));
		json_object_set_new(o, "old_pid", r->old_pid >= 0 ?
				    json_integer(r->old_pid) : json_null());
		json_object_set_new(o, "new_pid", r->new_pid >= 0 ?
				    json_integer(r->new_pid) : json_null());
		json_object_set_new(o, "old_incarnation",
				    json_integer((json_int_t)r->old_inc));
		json_object_set_new(o, "new_incarnation",
				    json_integer((json_int_t)r->new_inc));
		json_object_set_new(o, "before_bytes", bytes_or_null(r->before));
		json_object_set_new(o, "after_bytes", bytes_or_null(r->after));
		json_object_set_new(o, "recovered_bytes",
				    bytes_or_null(r->recovered));
		json_object_set_new(o, "floor_rule",
				    json_string(r->floor_rule));
		json_object_set_new(o, "gap_s", num_or_null(r->gap_s));
		json_array_append_new(a, o);
	}
	return a;
}

/* Issue 27: an incarnation's warm-up, found or given (warmup.h); null
 * when none. */
static json_t *warmup_json(const struct warmup_finding *wu)
{
	if (wu->source == WARMUP_NONE)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "source", json_string(
		wu->source == WARMUP_FOUND ? "found" : "given"));
	json_object_set_new(o, "shape", wu->source != WARMUP_FOUND ?
			    json_null() :
			    json_string(wu->curve ? "saturating" : "hinge"));
	json_object_set_new(o, "end", time_or_null(wu->end));
	json_object_set_new(o, "end_ci95_low", time_or_null(wu->end_low));
	json_object_set_new(o, "end_ci95_high", time_or_null(wu->end_high));
	json_object_set_new(o, "duration_s", num_or_null(wu->end - wu->start));
	json_object_set_new(o, "level_bytes", bytes_or_null(wu->level));
	json_object_set_new(o, "rise_bytes", bytes_or_null(wu->rise));
	json_object_set_new(o, "loglik_gain_over_line", num_or_null(wu->gain));
	return o;
}

/* Issue 27: the incarnations pooled (pooled.h); null when fewer than two
 * could be. */
static json_t *pooled_json(const struct target_findings *f)
{
	const struct pooled_finding *p = &f->pooled;
	if (!p->found)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "incarnations",
			    json_integer((json_int_t)p->incarnations));
	json_object_set_new(o, "slope", slope_json(p->slope));
	json_object_set_new(o, "significant", json_boolean(p->significant));
	json_object_set_new(o, "between_sd_bytes_per_hour",
			    num_or_null(p->tau_bph));
	json_object_set_new(o, "life_s", num_or_null(p->life_s));
	json_object_set_new(o, "more_incarnations",
			    num_or_null(p->more_incarnations));
	json_object_set_new(o, "given_back_bytes_per_hour",
			    num_or_null(p->given_back_bph));
	return o;
}

static json_t *steps_json(const struct target_findings *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->steps.n; i++) {
		const struct step *st = &f->steps.steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "time", time_or_null(st->time));
		json_object_set_new(o, "before_bytes", bytes_or_null(st->before));
		json_object_set_new(o, "after_bytes", bytes_or_null(st->after));
		json_object_set_new(o, "change_bytes",
				    bytes_or_null(st->change));
		json_array_append_new(a, o);
	}
	return a;
}

/* DESIGN.md's {growth_bytes, explained: {NAME: bytes},
 * unattributed_bytes}, plus the gauges not counted and why. */
static json_t *attribution_json(const struct target_findings *f)
{
	const struct attribution_finding *at = &f->attribution;
	if (!at->found)
		return json_null();
	json_t *o = json_object(), *ex = json_object(), *skip = json_object();
	json_object_set_new(o, "growth_bytes", bytes_or_null(at->growth));
	for (size_t i = 0; i < at->n; i++) {
		const struct attribution_item *it = &at->items[i];
		char name[256];
		render_escape_utf8(name, sizeof(name), it->name);
		if (it->counted)
			json_object_set_new(ex, name,
					    bytes_or_null(it->explained));
		else
			json_object_set_new(skip, name, json_string(
				it->why_not ? it->why_not : "not counted"));
	}
	json_object_set_new(o, "explained", ex);
	json_object_set_new(o, "explained_total_bytes",
			    bytes_or_null(at->explained_total));
	json_object_set_new(o, "unattributed_bytes",
			    bytes_or_null(at->unattributed));
	json_object_set_new(o, "not_counted", skip);
	json_object_set_new(o, "start", time_or_null(at->start));
	json_object_set_new(o, "end", time_or_null(at->end));
	return o;
}

static json_t *target_json(const struct target_findings *f, size_t rank)
{
	const struct series *s = f->series;
	json_t *t = json_object();
	json_object_set_new(t, "name", safe_string(s->name));
	json_object_set_new(t, "rank", json_integer((json_int_t)rank));
	if (s->n_labels) {
		/* report --prometheus: the target's label set */
		json_t *l = json_object();
		for (size_t i = 0; i < s->n_labels; i++) {
			char key[512];
			render_escape_utf8(key, sizeof(key),
					   s->labels[i].name);
			json_object_set_new(l, key,
					    safe_string(s->labels[i].value));
		}
		json_object_set_new(t, "labels", l);
	}

	json_t *pids = json_array(), *incs = json_array();
	for (size_t i = 0; i < s->n_incs; i++) {
		const struct incarnation *in = &s->incs[i];
		if (in->pid >= 0)
			json_array_append_new(pids, json_integer(in->pid));
		json_t *o = json_object();
		json_object_set_new(o, "pid", in->pid >= 0 ?
				    json_integer(in->pid) : json_null());
		json_object_set_new(o, "start_time",
				    time_or_null(in->start_time));
		json_object_set_new(o, "comm", in->comm ?
				    safe_string(in->comm) : json_null());
		json_object_set_new(o, "cmdline", in->cmdline ?
				    safe_string(in->cmdline) : json_null());
		if (f->per_inc) {
			const struct incarnation_summary *is = &f->per_inc[i];
			json_object_set_new(o, "samples",
					    json_integer((json_int_t)is->samples));
			json_object_set_new(o, "start", is->samples ?
					    time_or_null(is->start) :
					    json_null());
			json_object_set_new(o, "end", is->samples ?
					    time_or_null(is->end) :
					    json_null());
			json_object_set_new(o, "footprint_first_bytes",
				is->samples ? bytes_or_null(is->fp_first) :
				json_null());
			json_object_set_new(o, "footprint_last_bytes",
				is->samples ? bytes_or_null(is->fp_last) :
				json_null());
			json_object_set_new(o, "footprint_max_bytes",
				is->samples ? bytes_or_null(is->fp_max) :
				json_null());
			json_object_set_new(o, "slope_bytes_per_hour",
				is->has_slope ?
				num_or_null(is->slope.estimate) : json_null());
			json_object_set_new(o, "slope_ci95_low",
				is->has_slope ? num_or_null(is->slope.low) :
				json_null());
			json_object_set_new(o, "slope_ci95_high",
				is->has_slope ? num_or_null(is->slope.high) :
				json_null());
			json_object_set_new(o, "warmup", f->warmups ?
				warmup_json(&f->warmups[i]) : json_null());
			json_object_set_new(o, "settled_slope",
				is->has_settled_slope ?
				slope_json(is->settled_slope) : json_null());
		}
		json_array_append_new(incs, o);
	}
	json_object_set_new(t, "pids", pids);
	json_object_set_new(t, "samples", json_integer((json_int_t)f->samples));
	json_object_set_new(t, "start", time_or_null(f->start));
	json_object_set_new(t, "end", time_or_null(f->end));
	json_object_set_new(t, "span_s", json_real(f->span_s));
	json_object_set_new(t, "verdict", json_string(verdict_name(f->verdict)));
	/* growth was seen and set aside as below anything that matters
	 * (docs/verdicts.md, "Materiality"): a key scripts can test */
	json_object_set_new(t, "immaterial", json_boolean(f->immaterial));
	/* The reasons and the advice from the one findings view: the
	 * sentences as they always were, and beside them each row's stable
	 * code and figures (docs/json.md, "Reason codes"). */
	struct findings_view v;
	findings_view_init(&v, f);
	json_t *reasons = json_array(), *detail = json_array();
	for (size_t i = 0; i < v.n_reasons; i++) {
		json_array_append_new(reasons, text_json(v.reasons[i].text));
		json_array_append_new(detail, finding_row_json(&v.reasons[i]));
	}
	json_object_set_new(t, "reasons", reasons);
	json_object_set_new(t, "reasons_detail", detail);
	json_object_set_new(t, "settle", v.settle.code ?
			    text_json(v.settle.text) : json_null());
	json_object_set_new(t, "settle_detail", v.settle.code ?
			    finding_row_json(&v.settle) : json_null());
	findings_view_release(&v);
	json_object_set_new(t, "resolution_bytes", num_or_null(f->resolution));
	static const char *const basis[] = {"given", "steps", "source",
					    "shared", "unknown"};
	json_object_set_new(t, "resolution_basis",
			    json_string(basis[f->resolution_basis]));

	json_t *fp = json_object();
	json_object_set_new(fp, "first_bytes", bytes_or_null(f->fp_first));
	json_object_set_new(fp, "last_bytes", bytes_or_null(f->fp_last));
	json_object_set_new(fp, "min_bytes", bytes_or_null(f->fp_min));
	json_object_set_new(fp, "max_bytes", bytes_or_null(f->fp_max));
	json_object_set_new(t, "footprint", fp);
	json_object_set_new(t, "resident", resident_json(s));

	if (f->has_trend) {
		json_t *sl = slope_json(f->slope);
		json_object_set_new(sl, "variance_inflation",
				    num_or_null(f->trend.variance_inflation));
		json_object_set_new(sl, "points",
				    json_integer((json_int_t)f->trend.n));
		json_object_set_new(sl, "bucketed",
				    json_boolean(f->trend.bucketed));
		json_object_set_new(sl, "incarnation_pid",
			s->n_incs && s->incs[f->analysed_inc].pid >= 0 ?
			json_integer(s->incs[f->analysed_inc].pid) :
			json_null());
		json_object_set_new(sl, "correlation_time_s",
				    num_or_null(f->trend.corr_time));
		json_object_set_new(sl, "lag1_correlation",
				    num_or_null(f->trend.ar_phi));
		json_object_set_new(sl, "on_cycle_floors",
				    json_boolean(f->trend_on_floors));
		json_object_set_new(sl, "between_steps",
				    json_boolean(f->trend_between_steps));
		json_object_set_new(sl, "window_start",
				    time_or_null(f->slope_start));
		json_object_set_new(t, "slope", sl);
	} else {
		json_object_set_new(t, "slope", json_null());
	}
	json_object_set_new(t, "detectable_bytes_per_hour",
			    num_or_null(f->detectable_bph));
	json_object_set_new(t, "concern_bytes_per_hour",
			    num_or_null(f->concern_bph));
	json_object_set_new(t, "concern_source",
			    json_string(f->concern_source));
	json_object_set_new(t, "min_observation_s",
			    num_or_null(f->min_observation_s));
	json_object_set_new(t, "needed_observation_s",
			    num_or_null(f->needed_span_s));
	json_object_set_new(t, "work", work_json(f));
	json_object_set_new(t, "per_request", per_request_json(f));
	json_object_set_new(t, "idle_windows", idle_windows_json(f));
	json_object_set_new(t, "idle", idle_summary_json(f));
	json_object_set_new(t, "restarts", restarts_json(f));
	json_object_set_new(t, "pooled", pooled_json(f));
	json_object_set_new(t, "steps", steps_json(f));
	if (f->plateau.found) {
		json_t *p = json_object();
		json_object_set_new(p, "level_bytes",
				    bytes_or_null(f->plateau.level));
		json_object_set_new(p, "since", time_or_null(f->plateau.since));
		json_object_set_new(p, "cap_bytes",
				    bytes_or_null(f->plateau.cap_bytes));
		json_object_set_new(p, "cap_name", f->plateau.cap_name ?
				    safe_string(f->plateau.cap_name) :
				    json_null());
		json_object_set_new(p, "early_bytes_per_hour",
				    num_or_null(f->plateau.early_slope_bph));
		/* the late part's p is not part of the contract: null */
		struct slope late = f->plateau.late;
		late.p = NAN;
		json_object_set_new(p, "late", slope_json(late));
		json_object_set_new(p, "loglik_gain_over_line",
				    num_or_null(f->plateau.gain_line));
		static const char *const held[] = {"time", "flat_readings",
						   "requests"};
		json_object_set_new(p, "rise", json_string(
			f->plateau.saturating ? "saturating" : "hinge"));
		json_object_set_new(p, "held_by", json_string(
			held[f->plateau.held_by]));
		json_object_set_new(t, "plateau", p);
	} else {
		json_object_set_new(t, "plateau", json_null());
	}
	/* a level that was considered and why it is not a plateau */
	if (f->plateau.candidate && !f->plateau.found) {
		json_t *p = json_object();
		json_object_set_new(p, "level_bytes",
				    bytes_or_null(f->plateau.level));
		json_object_set_new(p, "since", time_or_null(f->plateau.since));
		json_object_set_new(p, "reason", json_string(
			plateau_reject_text(f->plateau.rejected)));
		json_object_set_new(t, "plateau_rejected", p);
	} else {
		json_object_set_new(t, "plateau_rejected", json_null());
	}
	const struct periodic_finding *pf = &f->periodic;
	if (pf->found) {
		json_t *c = json_object();
		json_object_set_new(c, "period_s", num_or_null(pf->period_s));
		json_object_set_new(c, "cycles", num_or_null(pf->cycles));
		json_object_set_new(c, "swing_bytes",
				    bytes_or_null(pf->amplitude));
		json_object_set_new(c, "whole_cycles",
				    json_integer((json_int_t)pf->n_floors));
		json_object_set_new(c, "trend_on_floors",
				    json_boolean(f->trend_on_floors));
		json_object_set_new(t, "cycles", c);
	} else {
		json_object_set_new(t, "cycles", json_null());
	}
	if (f->plateau.approaching) {
		json_t *a = json_object();
		json_object_set_new(a, "level_bytes",
				    bytes_or_null(f->plateau.approach_level));
		json_object_set_new(a, "early_bytes_per_hour",
			num_or_null(f->plateau.approach_early_bph));
		json_object_set_new(a, "late_bytes_per_hour",
			num_or_null(f->plateau.approach_late_bph));
		json_object_set_new(t, "approach", a);
	} else {
		json_object_set_new(t, "approach", json_null());
	}
	json_object_set_new(t, "attribution", attribution_json(f));
	if (f->exhaustion.found) {
		json_t *e = json_object();
		json_object_set_new(e, "limit_bytes",
				    bytes_or_null(f->exhaustion.limit_bytes));
		json_object_set_new(e, "limit_source",
				    json_string(f->exhaustion.limit_source));
		json_object_set_new(e, "pool", f->exhaustion.pool >= 0 &&
			(size_t)f->exhaustion.pool < f->n_pools ?
			json_string(f->pools[f->exhaustion.pool].id) :
			json_null());
		json_object_set_new(e, "eta_s", num_or_null(f->exhaustion.eta_s));
		json_object_set_new(e, "eta_low_s",
				    num_or_null(f->exhaustion.eta_low_s));
		json_object_set_new(e, "eta_high_s",
				    num_or_null(f->exhaustion.eta_high_s));
		json_object_set_new(e, "requests_left",
				    num_or_null(f->exhaustion.requests_left));
		json_object_set_new(e, "requests_left_low",
				    num_or_null(f->exhaustion.requests_left_low));
		json_object_set_new(e, "requests_left_high",
				    num_or_null(f->exhaustion.requests_left_high));
		json_object_set_new(t, "exhaustion", e);
	} else {
		json_object_set_new(t, "exhaustion", json_null());
	}
	json_object_set_new(t, "incarnations", incs);
	json_object_set_new(t, "regions", regions_json(s));
	json_object_set_new(t, "gpu", gpu_json(f));
	json_object_set_new(t, "sites", render_sites_json(f));
	json_object_set_new(t, "pools", pools_json(f));
	return t;
}

int render_json(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n)
{
	json_t *root = json_object();
	json_object_set_new(root, "memtrend_version",
			    json_string(MEMTREND_VERSION));
	json_object_set_new(root, "source", safe_string(d->source));
	/* Every target, worst first (rank.h); --top limits only the text
	 * and the page. */
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	rank_targets(f, n, order);
	json_t *targets = json_array();
	for (size_t r = 0; r < n; r++)
		json_array_append_new(targets, target_json(&f[order[r]],
							   r + 1));
	free(order);
	json_object_set_new(root, "targets", targets);
	static const enum verdict classes[] = {
		VERDICT_GROWING, VERDICT_PLATEAU, VERDICT_INCONCLUSIVE,
		VERDICT_STABLE};
	json_t *counts = json_object();
	for (size_t k = 0; k < 4; k++) {
		json_int_t c = 0;
		for (size_t i = 0; i < n; i++)
			c += f[i].verdict == classes[k];
		json_object_set_new(counts, verdict_name(classes[k]),
				    json_integer(c));
	}
	json_object_set_new(root, "verdict_counts", counts);
	json_object_set_new(root, "gpu_sources", d->gpu_sources ?
			    safe_string(d->gpu_sources) : json_null());
	json_object_set_new(root, "gpu_devices", gpu_devices_json(d));
	json_t *notes = json_array();
	for (size_t i = 0; i < d->n_notes; i++)
		json_array_append_new(notes, safe_string(d->notes[i]));
	json_object_set_new(root, "notes", notes);
	int rc = render_json_dump(root, out);
	json_decref(root);
	return rc;
}

int render_json_dump(json_t *root, FILE *out)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(10));
	if (!text)
		return -1;
	/* jansson escapes C0 controls but writes C1 controls (U+0080 to
	 * U+009F, UTF-8 C2 80..C2 9F) raw; a process name can hold them and
	 * some terminals act on them. Outside strings JSON has no non-ASCII
	 * bytes, so every such pair is inside a string: escape it there. */
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
			fprintf(out, "\\u%04x", p[1]);
			p++;
		} else {
			fputc(*p, out);
		}
	}
	free(text);
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
