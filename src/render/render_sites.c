/*
 * render_sites.c - "Where it grows": a target's allocation sites
 * (analysis/sites.h, record --sites) as the text report prints them and
 * as JSON (docs/json.md, "sites"), from the same findings.
 *
 * What it does not do: analyse (sites.c did) or name frames (the
 * recorder did): a frame is printed as recorded, function (file:line)
 * in module, or module+offset, or its address. Every name came from the
 * target's files: escaped for the medium.
 */
#include "render_sites.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "units.h"

/* Frames printed per site in the text report (JSON has them all). */
#define SITES_TEXT_FRAMES 4
/* Sites printed in the text report: the growing ones, at most. */
#define SITES_TEXT_ROWS 8

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

void render_site_frame(char *buf, size_t n, const struct series_site_frame *f)
{
	const char *mod = f->module ? base_name(f->module) : "?";
	if (f->function && f->file && f->line > 0)
		snprintf(buf, n, "%s (%s:%d) in %s", f->function,
			 base_name(f->file), f->line, mod);
	else if (f->function)
		snprintf(buf, n, "%s in %s", f->function, mod);
	else if (f->module)
		snprintf(buf, n, "%s+0x%" PRIx64, mod, f->offset);
	else
		snprintf(buf, n, "0x%" PRIx64, f->address);
}

const char *render_outside_pool_text(const char *pool)
{
	return !strcmp(pool, "gpu") ? "GPU memory" :
	       !strcmp(pool, "shmem") ? "shared memory" : "file-backed pages";
}

const char *render_sites_split_text(enum sites_split s)
{
	switch (s) {
	case SITES_SPLIT_LEAK:
		return "the live heap grows with the footprint: a leak at the "
		       "sites below";
	case SITES_SPLIT_PARTLY:
		return "the live heap grows, but less than half as fast as "
		       "the footprint: the sites below keep part of it, the "
		       "allocator or memory outside the heap the rest (run "
		       "memtrend probe)";
	case SITES_SPLIT_RETENTION:
		return "the live heap does not grow while the footprint does: "
		       "the allocator keeps freed memory (retention, "
		       "fragmentation), or it grows outside malloc; run "
		       "memtrend probe";
	case SITES_SPLIT_OUTSIDE:
		return "the live heap does not grow while the footprint does: "
		       "the growth is outside the heap, where no allocation "
		       "site sees it (above)";
	case SITES_SPLIT_NONE:
		break;
	}
	return NULL;
}

void render_site_frame_label(char *buf, size_t n,
			     const struct series_site_frame *f)
{
	if (f->function && f->file && f->line > 0)
		snprintf(buf, n, "%s (%s:%d)", f->function, base_name(f->file),
			 f->line);
	else if (f->function)
		snprintf(buf, n, "%s", f->function);
	else
		render_site_frame(buf, n, f);
}

void render_site_frame_folded(char *buf, size_t n,
			      const struct series_site_frame *f, bool innermost)
{
	if (!innermost && f->function)
		snprintf(buf, n, "%s", f->function);
	else
		render_site_frame_label(buf, n, f);
}

double render_site_value(const struct site_finding *sf, enum folded_value v)
{
	switch (v) {
	case FOLDED_PER_HOUR:
		return sf->significant && sf->slope.estimate > 0 ?
		       sf->slope.estimate : 0;
	case FOLDED_PER_REQUEST:
		return sf->per_request_significant &&
		       sf->per_request.estimate > 0 ?
		       sf->per_request.estimate : 0;
	case FOLDED_LIVE:
		return sf->last > 0 ? sf->last : 0;
	}
	return 0;
}

static bool same_frame(const struct series_site_frame *a,
		       const struct series_site_frame *b)
{
	char x[256], y[256];
	render_site_frame_label(x, sizeof(x), a);
	render_site_frame_label(y, sizeof(y), b);
	return strcmp(x, y) == 0;
}

char *render_site_label(char *buf, size_t n, const struct series_site *sites,
			size_t n_sites, size_t site)
{
	assert(site < n_sites && n > 0);
	const struct series_site *me = &sites[site];
	if (!me->n_frames) {
		snprintf(buf, n, "? (site %" PRId64 ")", me->id);
		return buf;
	}
	/* the depth at which every site that reads as mine at the
	 * innermost frame has parted from me; none: the site's number */
	size_t apart = 0;
	bool alike = false;
	for (size_t j = 0; j < n_sites; j++) {
		const struct series_site *o = &sites[j];
		if (j == site || !o->n_frames ||
		    !same_frame(&o->frames[0], &me->frames[0]))
			continue;
		size_t k = 1;
		while (k < me->n_frames && k < o->n_frames &&
		       same_frame(&o->frames[k], &me->frames[k]))
			k++;
		if (k < me->n_frames) {
			if (k > apart)
				apart = k;
		} else {
			alike = true;
		}
	}
	char first[256], by[256];
	render_site_frame_label(first, sizeof(first), &me->frames[0]);
	if (apart) {
		render_site_frame_label(by, sizeof(by), &me->frames[apart]);
		snprintf(buf, n, "%s via %s", first, by);
	} else {
		snprintf(buf, n, "%s", first);
	}
	if (alike) { /* no frame tells them apart: their numbers do */
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, " (site %" PRId64 ")", me->id);
	}
	return buf;
}

void render_site_slope_text(char *buf, size_t n, struct slope s,
			    bool per_req, bool decimal)
{
	char e[48], lo[48], hi[48];
	if (isnan(s.estimate)) {
		snprintf(buf, n, "no slope");
		return;
	}
	if (per_req)
		snprintf(buf, n, "%s [%s, %s]",
			 render_per_request(e, sizeof(e), s.estimate, decimal),
			 render_per_request(lo, sizeof(lo), s.low, decimal),
			 render_per_request(hi, sizeof(hi), s.high, decimal));
	else
		snprintf(buf, n, "%s [%s, %s]",
			 render_rate(e, sizeof(e), s.estimate, decimal),
			 render_rate(lo, sizeof(lo), s.low, decimal),
			 render_rate(hi, sizeof(hi), s.high, decimal));
}

void render_sites_text(FILE *out, const struct target_findings *f,
		       bool decimal)
{
	const struct sites_finding *x = &f->sites;
	const struct series *s = f->series;
	if (!x->recorded)
		return;
	char b1[900], b2[600], b3[64];
	fprintf(out, "\n  where it grows (allocation sites, sampled every %s "
		"on average: %zu site%s, %s samples",
		render_size(b3, sizeof(b3), x->rate, false), x->n_sites,
		x->n_sites == 1 ? "" : "s",
		units_format_count(b1, sizeof(b1), x->sampled));
	if (x->dropped > 0)
		fprintf(out, ", %s DROPPED: a table was full, the sites' "
			"figures are low",
			units_format_count(b2, sizeof(b2), x->dropped));
	else
		fprintf(out, ", none dropped");
	fprintf(out, ")\n");
	if (!x->n_sites) {
		fprintf(out, "    no allocation was sampled: none crossed a "
			"sampling point (a lower --sites-rate samples more)\n");
		return;
	}
	render_site_slope_text(b1, sizeof(b1), x->heap_slope, false, decimal);
	fprintf(out, "    live heap   %s, %s", render_size(b3, sizeof(b3),
							x->heap_last, decimal),
		b1);
	if (!isnan(x->heap_per_request.estimate)) {
		render_site_slope_text(b2, sizeof(b2), x->heap_per_request, true, decimal);
		fprintf(out, ", %s", b2);
	}
	if (isfinite(x->heap_share))
		fprintf(out, "; %.0f %% of the footprint's slope",
			100 * x->heap_share);
	fprintf(out, "\n");
	for (size_t k = 0; k < x->n_outside; k++) {
		/* what grows outside the heap, only that */
		const struct site_outside *y = &x->outside[k];
		if (!site_outside_grows(y))
			continue;
		render_site_slope_text(b1, sizeof(b1), y->slope, false,
				       decimal);
		fprintf(out, "    outside the heap: %s %s, %s",
			render_outside_pool_text(y->pool),
			render_size(b3, sizeof(b3), y->last, decimal), b1);
		if (!y->in_footprint)
			fprintf(out, " (not in the footprint)");
		else if (isfinite(y->share))
			fprintf(out, "; %.0f %% of the footprint's slope",
				100 * y->share);
		fprintf(out, "\n");
	}
	if (!x->sampling_counted)
		fprintf(out, "    (recorded by an earlier memtrend: the intervals "
			"below leave the sampling's own error out)\n");
	if (render_sites_split_text(x->split))
		fprintf(out, "    => %s\n", render_sites_split_text(x->split));
	size_t shown = 0;
	for (size_t r = 0; r < x->n_ranked && shown < SITES_TEXT_ROWS; r++) {
		const struct site_finding *y = &x->ranked[r];
		if (y->trend != SITE_GROWING)
			continue;
		const struct series_site *site = &s->sites[y->site];
		render_site_slope_text(b1, sizeof(b1), y->slope, false, decimal);
		fprintf(out, "    %zu. growing  %s", ++shown, b1);
		if (!isnan(y->per_request.estimate)) {
			render_site_slope_text(b2, sizeof(b2), y->per_request, true,
				   decimal);
			fprintf(out, ", %s", b2);
		}
		if (isfinite(y->share) && fabs(y->share_high) < 0.01)
			fprintf(out, "; under 1 %% of the footprint's slope");
		else if (isfinite(y->share))
			fprintf(out, "; %.0f %% [%.0f, %.0f] of the "
				"footprint's slope", 100 * y->share,
				100 * y->share_low, 100 * y->share_high);
		fprintf(out, "; %s live\n", render_size(b3, sizeof(b3),
							y->last, decimal));
		for (size_t k = 0; k < site->n_frames &&
		     k < SITES_TEXT_FRAMES; k++) {
			render_site_frame(b2, sizeof(b2), &site->frames[k]);
			fprintf(out, "         %s\n", render_escape_terminal(
					b1, sizeof(b1), b2));
		}
	}
	if (!shown)
		fprintf(out, "    no site grows\n");
	/* the others, by name and trend, on one line */
	size_t others = 0;
	for (size_t r = 0; r < x->n_ranked; r++) {
		const struct site_finding *y = &x->ranked[r];
		if (y->trend == SITE_GROWING)
			continue;
		char label[600], name[1200];
		render_escape_terminal(name, sizeof(name),
				       render_site_label(label, sizeof(label),
							 s->sites, s->n_sites,
							 y->site));
		fprintf(out, "%s%s %s (%s)", others ? ", " :
			"    not growing: ",
			name, site_trend_name(y->trend),
			render_size(b3, sizeof(b3), y->last, decimal));
		others++;
	}
	if (x->n_sites > x->n_ranked)
		fprintf(out, "%s%zu more sites not analysed (they grew less)",
			others ? "; " : "    ", x->n_sites - x->n_ranked);
	if (others || x->n_sites > x->n_ranked)
		fprintf(out, "\n");
}

/* ---- JSON ---- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *bytes_or_null(double v)
{
	return isfinite(v) ? json_integer((json_int_t)llround(v)) :
			     json_null();
}

static json_t *str_or_null(const char *v)
{
	char b[4096];
	return v ? json_string(render_escape_utf8(b, sizeof(b), v)) :
		   json_null();
}

static json_t *slope_obj(struct slope s, const char *unit)
{
	if (isnan(s.estimate))
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, unit, num_or_null(s.estimate));
	json_object_set_new(o, "ci95_low", num_or_null(s.low));
	json_object_set_new(o, "ci95_high", num_or_null(s.high));
	json_object_set_new(o, "p_value", num_or_null(s.p));
	return o;
}

/* What a site and a pool outside the heap both say: their verdict, the
 * window's first and last bytes, the slope per hour. */
static void trend_fields(json_t *j, enum site_trend trend, double first,
			 double last, struct slope slope, bool significant)
{
	json_object_set_new(j, "trend", json_string(site_trend_name(trend)));
	json_object_set_new(j, "first_bytes", bytes_or_null(first));
	json_object_set_new(j, "last_bytes", bytes_or_null(last));
	json_object_set_new(j, "slope", slope_obj(slope, "bytes_per_hour"));
	json_object_set_new(j, "significant", json_boolean(significant));
}

static json_t *frames_json(const struct series_site *site)
{
	json_t *a = json_array();
	for (size_t k = 0; k < site->n_frames; k++) {
		const struct series_site_frame *f = &site->frames[k];
		json_t *o = json_object();
		char hex[32];
		snprintf(hex, sizeof(hex), "0x%" PRIx64, f->address);
		json_object_set_new(o, "address", json_string(hex));
		json_object_set_new(o, "module", str_or_null(f->module));
		json_object_set_new(o, "build_id", str_or_null(f->build_id));
		if (f->module) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, f->offset);
			json_object_set_new(o, "offset", json_string(hex));
		} else {
			json_object_set_new(o, "offset", json_null());
		}
		json_object_set_new(o, "function", str_or_null(f->function));
		json_object_set_new(o, "file", str_or_null(f->file));
		json_object_set_new(o, "line", f->line > 0 ?
				    json_integer(f->line) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

json_t *render_site_brief_json(const struct series *s,
			       const struct site_finding *y, bool per_req)
{
	assert(y->site < s->n_sites);
	const struct series_site *site = &s->sites[y->site];
	const struct series_site_frame *f = site->n_frames ? &site->frames[0] :
					    NULL;
	const struct slope *sl = per_req ? &y->per_request : &y->slope;
	char label[300];
	render_site_label(label, sizeof(label), s->sites, s->n_sites, y->site);
	json_t *o = json_object();
	json_object_set_new(o, "label", str_or_null(label));
	json_object_set_new(o, "function", str_or_null(f ? f->function : NULL));
	json_object_set_new(o, "file", str_or_null(f ? f->file : NULL));
	json_object_set_new(o, "line", f && f->line > 0 ?
			    json_integer(f->line) : json_null());
	json_object_set_new(o, "estimate", num_or_null(sl->estimate));
	json_object_set_new(o, "ci95_low", num_or_null(sl->low));
	json_object_set_new(o, "ci95_high", num_or_null(sl->high));
	return o;
}

json_t *render_sites_json(const struct target_findings *f)
{
	const struct sites_finding *x = &f->sites;
	if (!x->recorded)
		return json_null();
	const struct series *s = f->series;
	json_t *o = json_object();
	json_object_set_new(o, "sampling_rate_bytes", bytes_or_null(x->rate));
	json_object_set_new(o, "samples", bytes_or_null(x->sampled));
	json_object_set_new(o, "dropped", bytes_or_null(x->dropped));
	json_object_set_new(o, "sites", json_integer((json_int_t)x->n_sites));
	json_object_set_new(o, "split", json_string(sites_split_name(x->split)));
	json_object_set_new(o, "sampling_error_counted",
			    json_boolean(x->n_sites == 0 || x->sampling_counted));
	json_t *h = json_object();
	json_object_set_new(h, "first_bytes", bytes_or_null(x->heap_first));
	json_object_set_new(h, "last_bytes", bytes_or_null(x->heap_last));
	json_object_set_new(h, "slope", slope_obj(x->heap_slope,
						  "bytes_per_hour"));
	json_object_set_new(h, "significant",
			    json_boolean(x->heap_significant));
	json_object_set_new(h, "per_request", slope_obj(x->heap_per_request,
							"bytes_per_request"));
	json_object_set_new(h, "share_of_footprint_slope",
			    num_or_null(x->heap_share));
	json_object_set_new(o, "live_heap", h);
	json_t *out_heap = json_array();
	for (size_t k = 0; k < x->n_outside; k++) {
		const struct site_outside *y = &x->outside[k];
		json_t *j = json_object();
		json_object_set_new(j, "pool", json_string(y->pool));
		json_object_set_new(j, "in_footprint",
				    json_boolean(y->in_footprint));
		trend_fields(j, y->trend, y->first, y->last, y->slope,
			     y->significant);
		json_object_set_new(j, "share_of_footprint_slope",
				    num_or_null(y->share));
		json_array_append_new(out_heap, j);
	}
	json_object_set_new(o, "outside_heap", out_heap);
	json_t *a = json_array();
	for (size_t r = 0; r < x->n_ranked; r++) {
		const struct site_finding *y = &x->ranked[r];
		const struct series_site *site = &s->sites[y->site];
		json_t *j = json_object();
		json_object_set_new(j, "id", json_integer(site->id));
		trend_fields(j, y->trend, y->first, y->last, y->slope,
			     y->significant);
		json_object_set_new(j, "per_request",
				    slope_obj(y->per_request,
					      "bytes_per_request"));
		json_t *sh = json_object();
		json_object_set_new(sh, "estimate", num_or_null(y->share));
		json_object_set_new(sh, "ci95_low", num_or_null(y->share_low));
		json_object_set_new(sh, "ci95_high",
				    num_or_null(y->share_high));
		json_object_set_new(j, "share_of_footprint_slope", sh);
		json_object_set_new(j, "frames", frames_json(site));
		json_array_append_new(a, j);
	}
	json_object_set_new(o, "ranked", a);
	return o;
}
