/*
 * render_html_tables.c - the text of `report --html` per target
 * (render_html.c writes the page around it): the verdict's reasons and
 * settle text, the target's figures as a key-value table, then the
 * findings as tables (per request, idle windows and growth accounting,
 * exhaustion, restarts with what each gave back, steps, attribution to
 * gauges, GPU memory, incarnations).
 *
 * What it does not do: compute or decide anything, or word a finding
 * its own way: the reasons, the advice and the figures' lines (window,
 * slope, plateau, requests, idle windows, ...) are the findings view's
 * (findings_view.h, built once per target by render_html.c), in the
 * words of the text report; the tables' cells come from the findings
 * (analysis.h) or the series, formatted by the helpers in
 * render_html_internal.h. Every string a process or a file controls
 * (comm, command line, gauge names, reasons, floor rules, GPU sources)
 * goes through put_esc().
 *
 * Bounds: tables list at most TABLE_ROWS_MAX rows and say how many more
 * --json has.
 */
#include <assert.h>
#include <ctype.h>

#include "render_html_internal.h"
#include "render_sites.h"

#define TABLE_ROWS_MAX 200

/* <tr><th>key</th><td>escaped value</td></tr> */
static void kv_row(FILE *out, const char *key, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", key);
	put_esc(out, value);
	fputs("</td></tr>\n", out);
}

/* ---- tables -------------------------------------------------------------- */

static void verdict_block(struct ctx *c, const struct findings_view *v)
{
	FILE *out = c->out;
	/* the reasons and the advice as every format says them */
	fputs("<ul class=\"reasons\">\n", out);
	for (size_t i = 0; i < v->n_reasons; i++) {
		fputs("<li>", out);
		put_esc(out, v->reasons[i].text);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	if (v->settle.code) {
		fputs("<p class=\"settle\">To settle it: ", out);
		put_esc(out, v->settle.text);
		fputs("</p>\n", out);
	}
}

static void figures_table(struct ctx *c, const struct findings_view *fv)
{
	FILE *out = c->out;
	char v[400], b1[64];
	fputs("<table class=\"kv\">\n", out);
	/* the figures in the words of the text report (findings_view.h) */
	for (int k = FLINE_WINDOW; k <= FLINE_APPROACH; k++)
		if (fv->lines[k])
			kv_row(out, findings_line_title[k], fv->lines[k]);
	/* Components at the last sample. */
	v[0] = '\0';
	for (int k = 0; k < COMP_COUNT; k++) {
		const double *a = c->s->comp[k];
		if (!a)
			continue;
		for (size_t i = c->s->n; i-- > 0;) {
			if (isnan(a[i]))
				continue;
			size_t len = strlen(v);
			snprintf(v + len, sizeof(v) - len, "%s%s %s",
				 len ? ", " : "", series_component_names[k],
				 size_s(c, b1, sizeof(b1), a[i]));
			break;
		}
	}
	if (v[0])
		kv_row(out, "components (last)", v);
	fputs("</table>\n", out);
}

static void per_request_table(struct ctx *c, const struct findings_view *fv)
{
	const struct per_request_finding *pr = &c->f->per_request;
	FILE *out = c->out;
	char v[400], b1[64], b2[64], b3[64], b4[64];
	if (fv->lines[FLINE_WORK]) {
		fprintf(out, "<h3>%s</h3>\n<table class=\"kv\">\n",
			pr->recorded ? "Per request" : "Work");
		kv_row(out, findings_line_title[FLINE_WORK],
		       fv->lines[FLINE_WORK]);
		if (!pr->recorded) {
			fputs("</table>\n", out);
			return;
		}
	} else if (pr->recorded) {
		fputs("<h3>Per request</h3>\n<table class=\"kv\">\n", out);
	}
	if (!pr->recorded)
		return;
	kv_row(out, findings_line_title[FLINE_REQUESTS],
	       fv->lines[FLINE_REQUESTS]);
	if (!pr->known) {
		fputs("</table>\n", out);
		return;
	}
	if (pr->found) {
		snprintf(v, sizeof(v), "%s (95 %% interval %s to %s), p = %s",
			 per_req_s(c, b1, sizeof(b1), pr->slope.estimate),
			 per_req_s(c, b2, sizeof(b2), pr->slope.low),
			 per_req_s(c, b3, sizeof(b3), pr->slope.high),
			 p_s(b4, sizeof(b4), pr->slope.p));
		kv_row(out, "per-request slope", v);
		kv_row(out, "detectable",
		       per_req_s(c, b1, sizeof(b1), pr->detectable));
	}
	if (isfinite(pr->concern)) {
		snprintf(v, sizeof(v), "%s%s", per_req_s(c, b1, sizeof(b1),
							 pr->concern),
			 pr->concern_is_suspect ? " (--suspect)" :
			 " (time slope of concern at the observed rate)");
		kv_row(out, "slope of concern", v);
	}
	if (isfinite(pr->needed_requests)) {
		snprintf(v, sizeof(v), "%s requests in all",
			 units_format_count(b1, sizeof(b1),
					    pr->needed_requests));
		kv_row(out, "needed to see it", v);
	}
	fputs("</table>\n", out);
}

/* A line of the findings view as a paragraph: its first letter upper
 * case, a full stop after it. */
static void line_paragraph(FILE *out, const char *text)
{
	char first[2] = {(char)toupper((unsigned char)text[0]), '\0'};
	fputs("<p>", out);
	put_esc(out, first);
	put_esc(out, text + 1);
	fputs(".</p>\n", out);
}

static void idle_tables(struct ctx *c, const struct findings_view *fv)
{
	const struct target_findings *f = c->f;
	const struct idle_findings *id = &f->idle;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64], b6[64];
	if (!id->work_known)
		return;
	fputs("<h3>Idle windows</h3>\n", out);
	line_paragraph(out, fv->lines[FLINE_IDLE]);
	if (id->n) {
		fputs("<table class=\"idle-windows\">\n<thead><tr><th>start"
		      "</th><th>end</th><th class=\"n\">duration</th>"
		      "<th class=\"n\">footprint at start</th><th class=\"n\">"
		      "at end</th><th class=\"n\">decline</th></tr></thead>"
		      "\n<tbody>\n", out);
		for (size_t i = 0; i < id->n && i < TABLE_ROWS_MAX; i++) {
			const struct idle_window *w = &id->windows[i];
			fprintf(out, "<tr><td>%s</td><td>%s</td>"
				"<td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"<td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"</tr>\n",
				time_s(b1, sizeof(b1), w->start),
				time_s(b2, sizeof(b2), w->end),
				dur_s(b3, sizeof(b3), w->end - w->start),
				size_s(c, b4, sizeof(b4), w->fp_start),
				size_s(c, b5, sizeof(b5), w->fp_end),
				size_s(c, b6, sizeof(b6), w->decline));
		}
		fputs("</tbody></table>\n", out);
		if (id->n > TABLE_ROWS_MAX)
			fprintf(out, "<p class=\"muted\">... %zu more (--json "
				"lists them all).</p>\n",
				id->n - TABLE_ROWS_MAX);
	}
	fputs("<h3>Where the growth happened</h3>\n<table class=\"growth\">\n"
	      "<thead><tr><th></th><th class=\"n\">footprint change</th>"
	      "<th class=\"n\">time</th></tr></thead>\n<tbody>\n", out);
	fprintf(out, "<tr><th>while requests ran</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_active),
		dur_s(b2, sizeof(b2), id->active_s));
	fprintf(out, "<tr><th>in idle windows</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_idle),
		dur_s(b2, sizeof(b2), id->idle_s));
	fprintf(out, "<tr><th>start-up</th><td class=\"n\">%s</td>"
		"<td class=\"n\">%s</td></tr>\n",
		size_s(c, b1, sizeof(b1), id->growth_warmup),
		dur_s(b2, sizeof(b2), id->warmup_s));
	fprintf(out, "<tr><th>net</th><td class=\"n\">%s</td><td></td></tr>\n"
		"</tbody></table>\n", size_s(c, b1, sizeof(b1),
					     id->growth_net));
}

static void exhaustion_table(struct ctx *c)
{
	const struct exhaustion_finding *e = &c->f->exhaustion;
	FILE *out = c->out;
	char v[300], b1[64], b2[64], b3[64];
	if (!e->found)
		return;
	fputs("<h3>Exhaustion</h3>\n<table class=\"kv\">\n", out);
	if (pools_exhaustion_gpu(c->f)) {
		render_escape_html(v, sizeof(v),
				   pools_exhaustion_gpu(c->f)->name);
		kv_row(out, "fills first", v);
	}
	snprintf(v, sizeof(v), "%s (%s)", size_s(c, b1, sizeof(b1),
						 e->limit_bytes),
		 e->limit_source ? e->limit_source : "?");
	kv_row(out, "limit", v);
	snprintf(v, sizeof(v), "%s at the measured slope (range %s to %s)",
		 dur_s(b1, sizeof(b1), e->eta_s),
		 dur_s(b2, sizeof(b2), e->eta_low_s),
		 dur_s(b3, sizeof(b3), e->eta_high_s));
	kv_row(out, "reached in", v);
	if (isfinite(e->requests_left)) {
		snprintf(v, sizeof(v), "%s (range %s to %s)",
			 units_format_count(b1, sizeof(b1), e->requests_left),
			 units_format_count(b2, sizeof(b2),
					    e->requests_left_low),
			 isinf(e->requests_left_high) ? "never" :
			 units_format_count(b3, sizeof(b3),
					    e->requests_left_high));
		kv_row(out, "requests left", v);
	}
	fputs("</table>\n", out);
}

/* Issue 28: with memory on a GPU, each pool and its limit (a target
 * whose footprint is one pool has its figures in the tables above). */
static void pools_table(struct ctx *c)
{
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	if (f->n_pools < 2)
		return;
	fputs("<h3>Pools</h3>\n<table>\n<thead><tr><th>pool</th>"
	      "<th>holds</th><th>limit</th><th>slope</th><th>full in</th>"
	      "</tr></thead>\n<tbody>\n", out);
	for (size_t k = 0; k < f->n_pools; k++) {
		const struct pool_finding *p = &f->pools[k];
		char nm[200], b1[64], b2[64], b3[64], b4[64];
		render_escape_html(nm, sizeof(nm), p->name);
		fprintf(out, "<tr><td>%s</td><td>%s</td><td>%s%s%s%s</td>"
			"<td>%s%s</td><td>%s%s</td></tr>\n", nm,
			size_s(c, b1, sizeof(b1), p->last),
			size_s(c, b2, sizeof(b2), p->limit_bytes),
			p->limit_source ? " (" : "",
			p->limit_source ? p->limit_source : "",
			p->limit_source ? ")" : "",
			p->has_trend ? slope_s(c, b3, sizeof(b3),
					      p->slope.estimate) : "-",
			p->has_trend && !p->significant ?
			" (not significant)" : "",
			p->exhausts ? dur_s(b4, sizeof(b4), p->eta_s) : "-",
			(int)k == f->exhaustion.pool && f->exhaustion.found ?
			" (first)" : "");
	}
	fputs("</tbody>\n</table>\n", out);
}

static void incarnations_table(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	if (!s->n_incs)
		return;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	fputs("<h3>Incarnations</h3>\n<table class=\"incarnations\">\n"
	      "<thead><tr><th class=\"n\">#</th><th class=\"n\">pid</th>"
	      "<th>first sample</th><th class=\"n\">lived</th>"
	      "<th class=\"n\">samples</th><th class=\"n\">footprint first"
	      "</th><th class=\"n\">last</th><th class=\"n\">slope</th>"
	      "<th>process</th></tr></thead>\n<tbody>\n", out);
	for (size_t k = 0; k < s->n_incs && k < TABLE_ROWS_MAX; k++) {
		const struct incarnation *in = &s->incs[k];
		const struct incarnation_summary *is =
			f->per_inc && k < f->n_incarnations ? &f->per_inc[k] :
			NULL;
		bool seen = is && is->samples;
		fprintf(out, "<tr><td class=\"n\">%zu%s</td><td class=\"n\">",
			k + 1, k == f->analysed_inc ? " (slope)" : "");
		if (in->pid >= 0)
			fprintf(out, "%lld", (long long)in->pid);
		fprintf(out, "</td><td>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%zu</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			seen ? time_s(b1, sizeof(b1), is->start) : "",
			seen ? dur_s(b2, sizeof(b2), is->end - is->start) : "",
			is ? is->samples : 0,
			seen ? size_s(c, b3, sizeof(b3), is->fp_first) : "",
			seen ? size_s(c, b4, sizeof(b4), is->fp_last) : "",
			seen && is->has_slope ?
			slope_s(c, b5, sizeof(b5), is->slope.estimate) : "");
		if (in->comm) {
			fputs("<code class=\"comm\">", out);
			put_esc(out, in->comm);
			fputs("</code> ", out);
		}
		if (in->cmdline && *in->cmdline) {
			fputs("<code class=\"cmdline\">", out);
			put_esc(out, in->cmdline);
			fputs("</code>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (s->n_incs > TABLE_ROWS_MAX)
		fprintf(out, "<p class=\"muted\">... %zu more incarnations "
			"(--json lists them all).</p>\n",
			s->n_incs - TABLE_ROWS_MAX);
}

/* What each restart gave back (restarts.h). */
static void restarts_table(struct ctx *c)
{
	const struct restart_findings *rf = &c->f->restarts;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	if (!rf->n)
		return;
	fprintf(out, "<h3>Restarts</h3>\n<p>%zu restart%s; recovered in all: "
		"%s.</p>\n<table class=\"restarts\">\n<thead><tr><th>time</th>"
		"<th class=\"n\">pid</th><th class=\"n\">down</th>"
		"<th class=\"n\">before</th>"
		"<th class=\"n\">after (settled)</th>"
		"<th>after: read at</th><th class=\"n\">recovered</th></tr>"
		"</thead>\n<tbody>\n", rf->n, rf->n == 1 ? "" : "s",
		size_s(c, b1, sizeof(b1), rf->recovered_total));
	for (size_t i = 0; i < rf->n && i < TABLE_ROWS_MAX; i++) {
		const struct restart *r = &rf->r[i];
		fprintf(out, "<tr><td>%s</td><td class=\"n\">", time_s(b1,
			sizeof(b1), r->time));
		char who[160];
		if (r->old_pid >= 0 && r->new_pid >= 0) {
			fprintf(out, "%lld \u2192 %lld", (long long)r->old_pid,
				(long long)r->new_pid);
		} else {
			/* no pids (a series from Prometheus): the names */
			put_esc(out, render_incarnation_name(
				who, sizeof(who), c->f->series, r->old_inc));
			fputs(" \u2192 ", out);
			put_esc(out, render_incarnation_name(
				who, sizeof(who), c->f->series, r->new_inc));
		}
		fprintf(out, "</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			dur_s(b2, sizeof(b2), r->gap_s),
			size_s(c, b3, sizeof(b3), r->before),
			size_s(c, b4, sizeof(b4), r->after));
		put_esc(out, r->floor_rule);
		if (isfinite(r->after_time))
			fprintf(out, ", %s", time_s(b1, sizeof(b1),
						    r->after_time));
		fprintf(out, "</td><td class=\"n\">%s</td></tr>\n",
			size_s(c, b5, sizeof(b5), r->recovered));
	}
	fputs("</tbody></table>\n", out);
	if (rf->n > TABLE_ROWS_MAX)
		fprintf(out, "<p class=\"muted\">... %zu more (--json lists "
			"them all).</p>\n", rf->n - TABLE_ROWS_MAX);
}

/* Step changes of the analysed incarnation (steps.h). */
static void steps_table(struct ctx *c)
{
	const struct step_findings *sf = &c->f->steps;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64];
	if (!sf->n)
		return;
	fprintf(out, "<h3>Steps</h3>\n<p>%zu step change%s in the analysed "
		"incarnation%s.</p>\n<table class=\"steps\">\n<thead><tr>"
		"<th>time</th><th class=\"n\">before</th><th class=\"n\">after"
		"</th><th class=\"n\">change</th></tr></thead>\n<tbody>\n",
		sf->n_found, sf->n_found == 1 ? "" : "s",
		sf->n_found > sf->n ? " (the largest are listed)" : "");
	for (size_t i = 0; i < sf->n && i < TABLE_ROWS_MAX; i++) {
		const struct step *st = &sf->steps[i];
		fprintf(out, "<tr><td>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s%s</td>"
			"</tr>\n",
			time_s(b1, sizeof(b1), st->time),
			size_s(c, b2, sizeof(b2), st->before),
			size_s(c, b3, sizeof(b3), st->after),
			st->change > 0 ? "+" : "",
			size_s(c, b4, sizeof(b4), st->change));
	}
	fputs("</tbody></table>\n", out);
}

/* Footprint growth against the gauges' growth (attribution.h). */
static void attribution_table(struct ctx *c)
{
	const struct attribution_finding *at = &c->f->attribution;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	if (!at->found)
		return;
	fprintf(out, "<h3>Attribution</h3>\n<p>Footprint growth %s, from %s "
		"to %s (%s to %s).</p>\n<table class=\"attribution\">\n"
		"<thead><tr><th>gauge</th><th class=\"n\">growth</th>"
		"<th>counted</th></tr></thead>\n<tbody>\n",
		size_s(c, b1, sizeof(b1), at->growth),
		size_s(c, b2, sizeof(b2), at->start_level),
		size_s(c, b3, sizeof(b3), at->end_level),
		time_s(b4, sizeof(b4), at->start),
		time_s(b5, sizeof(b5), at->end));
	for (size_t i = 0; i < at->n && i < TABLE_ROWS_MAX; i++) {
		const struct attribution_item *it = &at->items[i];
		fputs("<tr><td><code class=\"gauge\">", out);
		put_esc(out, it->name);
		fprintf(out, "</code></td><td class=\"n\">%s</td><td>",
			size_s(c, b1, sizeof(b1), it->explained));
		put_esc(out, it->counted ? "yes" : it->why_not ? it->why_not :
			"no");
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "<tr><th>explained</th><td class=\"n\">%s</td><td></td>"
		"</tr>\n<tr><th>unattributed</th><td class=\"n\">%s</td>"
		"<td></td></tr>\n</tbody></table>\n",
		size_s(c, b1, sizeof(b1), at->explained_total),
		size_s(c, b2, sizeof(b2), at->unattributed));
}

/* Device-local GPU memory: the component's figures, each region the
 * drivers reported, each device's totals. */
static void gpu_table(struct ctx *c)
{
	const struct gpu_finding *g = &c->f->gpu;
	const struct series *s = c->s;
	FILE *out = c->out;
	char b1[64], b2[64], b3[64], b4[64];
	if (!g->recorded)
		return;
	fputs("<h3>GPU memory</h3>\n<p>Device-local memory (VRAM) is part of "
	      "the footprint. Host regions (GTT, system) are already counted "
	      "in anon and shmem and are not added again.</p>\n", out);
	if (g->samples) {
		fprintf(out, "<table class=\"kv\">\n");
		char v[300];
		snprintf(v, sizeof(v), "first %s, last %s, max %s",
			 size_s(c, b1, sizeof(b1), g->first),
			 size_s(c, b2, sizeof(b2), g->last),
			 size_s(c, b3, sizeof(b3), g->max));
		kv_row(out, "device-local", v);
		if (isfinite(g->share_last)) {
			snprintf(v, sizeof(v), "%.0f %%", 100 * g->share_last);
			kv_row(out, "share of the footprint", v);
		}
		snprintf(v, sizeof(v), "%s of the footprint's %s",
			 size_s(c, b1, sizeof(b1), g->growth),
			 size_s(c, b2, sizeof(b2), g->footprint_growth));
		kv_row(out, "change", v);
		if (g->has_trend) {
			snprintf(v, sizeof(v), "%s (95 %% interval %s to %s), "
				 "p = %s", slope_s(c, b1, sizeof(b1),
						   g->slope.estimate),
				 slope_s(c, b2, sizeof(b2), g->slope.low),
				 slope_s(c, b3, sizeof(b3), g->slope.high),
				 p_s(b4, sizeof(b4), g->slope.p));
			kv_row(out, "GPU slope", v);
		}
		fputs("</table>\n", out);
	}
	if (s->n_gpu_regions) {
		fputs("<table class=\"gpu\">\n<thead><tr><th>source</th>"
		      "<th>region</th><th>kind</th><th class=\"n\">first</th>"
		      "<th class=\"n\">last</th></tr></thead>\n<tbody>\n",
		      out);
		for (size_t i = 0; i < s->n_gpu_regions; i++) {
			const struct series_gpu_region *r = &s->gpu_regions[i];
			fputs("<tr><td>", out);
			put_esc(out, r->source);
			fputs("</td><td><code>", out);
			put_esc(out, r->name);
			fputs("</code></td><td>", out);
			put_esc(out, r->kind);
			fprintf(out, "</td><td class=\"n\">%s</td><td "
				"class=\"n\">%s</td></tr>\n",
				size_s(c, b1, sizeof(b1), r->first),
				size_s(c, b2, sizeof(b2), r->last));
		}
		fputs("</tbody></table>\n", out);
	}
	for (size_t i = 0; i < c->d->n_gpu_devices; i++) {
		const struct dataset_gpu_device *dv = &c->d->gpu_devices[i];
		fprintf(out, "<p>GPU %u (", dv->index);
		put_esc(out, dv->source);
		fprintf(out, "): %s used of %s, all processes.</p>\n",
			size_s(c, b1, sizeof(b1), dv->used),
			size_s(c, b2, sizeof(b2), dv->total));
	}
}

/* record --sites: where it grows (analysis/sites.h), as the text
 * report's section: the live heap, the split, the sites analysed with
 * their top frames. */
static void sites_table(struct ctx *c)
{
	const struct sites_finding *x = &c->f->sites;
	FILE *out = c->out;
	if (!x->recorded)
		return;
	char b1[64], b2[64], b3[64], fr[600];
	fprintf(out, "<h3>Where it grows</h3>\n<p>Allocation sites, sampled "
		"every %s on average: %zu sites, %.0f samples, ",
		size_s(c, b1, sizeof(b1), x->rate), x->n_sites, x->sampled);
	if (x->dropped > 0)
		fprintf(out, "<strong>%.0f dropped</strong> (a table was "
			"full: the figures are low).", x->dropped);
	else
		fputs("none dropped.", out);
	fprintf(out, " Live heap %s, %s", size_s(c, b1, sizeof(b1),
						  x->heap_last),
		isnan(x->heap_slope.estimate) ? "no slope" :
		slope_s(c, b2, sizeof(b2), x->heap_slope.estimate));
	if (isfinite(x->heap_share))
		fprintf(out, ", %.0f %% of the footprint's slope",
			100 * x->heap_share);
	fputs(".", out);
	for (size_t k = 0; k < x->n_outside; k++) {
		const struct site_outside *y = &x->outside[k];
		if (!site_outside_grows(y))
			continue;
		fprintf(out, " Outside the heap: %s %s, %s%s.",
			render_outside_pool_text(y->pool),
			size_s(c, b1, sizeof(b1), y->last),
			slope_s(c, b2, sizeof(b2), y->slope.estimate),
			y->in_footprint ? "" : " (not in the footprint)");
	}
	if (!x->sampling_counted)
		fputs(" (Recorded by an earlier memtrend: the intervals leave "
		      "the sampling's own error out.)", out);
	if (render_sites_split_text(x->split)) {
		fputs(" <strong>", out);
		put_esc(out, render_sites_split_text(x->split));
		fputs("</strong>.", out);
	}
	fputs("</p>\n", out);
	render_html_sites_figures(c);
	fputs("<table>\n<thead><tr><th>site</th><th>trend</th>"
	      "<th>slope</th><th>per request</th><th>share of the "
	      "footprint's slope</th><th>live</th><th>stack</th></tr>"
	      "</thead>\n<tbody>\n", out);
	for (size_t r = 0; r < x->n_ranked; r++) {
		const struct site_finding *y = &x->ranked[r];
		const struct series_site *site = &c->s->sites[y->site];
		fprintf(out, "<tr><td>%zu</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>", r + 1, site_trend_name(y->trend),
			isnan(y->slope.estimate) ? "-" :
			slope_s(c, b1, sizeof(b1), y->slope.estimate),
			isnan(y->per_request.estimate) ? "-" :
			per_req_s(c, b2, sizeof(b2), y->per_request.estimate));
		if (isfinite(y->share) && fabs(y->share_high) < 0.01)
			fputs("under 1 %", out);
		else if (isfinite(y->share))
			fprintf(out, "%.0f %% [%.0f, %.0f]", 100 * y->share,
				100 * y->share_low, 100 * y->share_high);
		else
			fputs("-", out);
		fprintf(out, "</td><td>%s</td><td>",
			size_s(c, b3, sizeof(b3), y->last));
		for (size_t k = 0; k < site->n_frames && k < 4; k++) {
			render_site_frame(fr, sizeof(fr), &site->frames[k]);
			if (k)
				fputs("<br>", out);
			put_esc(out, fr);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

void render_html_summary(struct ctx *c)
{
	assert(c->view);
	verdict_block(c, c->view);
	figures_table(c, c->view);
}

void render_html_findings(struct ctx *c)
{
	assert(c->view);
	per_request_table(c, c->view);
	idle_tables(c, c->view);
	exhaustion_table(c);
	pools_table(c);
	restarts_table(c);
	steps_table(c);
	attribution_table(c);
	gpu_table(c);
	sites_table(c);
	incarnations_table(c);
}
