/*
 * render_text.c - the report a person reads in a minute (render.h).
 * One block per target: what was watched, the figures, the verdict and
 * its reasons. With several targets, they come worst first (rank.h)
 * after an overview, a row each. Formats findings only; escapes every
 * process-controlled string for the terminal. The reasons, the advice
 * and the figures' lines are the findings view's (findings_view.h): the
 * same words as the HTML page and the JSON document.
 */
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

#define NA "n/a"

static const char *verdict_colour(enum verdict v)
{
	switch (v) {
	case VERDICT_GROWING: return "\033[1;31m";
	case VERDICT_PLATEAU: return "\033[1;33m";
	case VERDICT_STABLE: return "\033[1;32m";
	default: return "\033[1;36m";
	}
}

/* Units follow the source: decimal for readings in whole decimal units
 * (findings' decimal_units), binary otherwise. The formatting itself is
 * render_reason.c's. */
static bool decimal;

static char *size_or_na(char *buf, size_t n, double v)
{
	return render_size(buf, n, v, decimal);
}

static char *rate(char *buf, size_t n, double bph)
{
	return render_rate(buf, n, bph, decimal);
}

static char *dur_or_na(char *buf, size_t n, double s)
{
	return render_duration(buf, n, s);
}

static void print_components(FILE *out, const struct series *s)
{
	/* Last known value of each component recorded. */
	bool any = false;
	for (int c = 0; c < COMP_COUNT; c++) {
		if (!s->comp[c])
			continue;
		for (size_t i = s->n; i-- > 0;) {
			if (isnan(s->comp[c][i]))
				continue;
			char b[32];
			fprintf(out, "%s%s %s", any ? ", " : "  components  ",
				series_component_names[c],
				size_or_na(b, sizeof(b), s->comp[c][i]));
			any = true;
			break;
		}
	}
	if (any)
		fprintf(out, " (last sample)\n");
}

/* Issue 28: with memory on a GPU, each pool on a line of its own (one
 * pool, the footprint, needs none: the lines above are its figures). */
static void print_pools(FILE *out, const struct target_findings *f)
{
	if (f->n_pools < 2)
		return;
	for (size_t k = 0; k < f->n_pools; k++) {
		const struct pool_finding *p = &f->pools[k];
		char b1[32], b2[32], b3[96], b4[32], b5[32];
		/* a GPU's name comes from the driver or the recording */
		char name[160], src[160];
		render_escape_terminal(name, sizeof(name), p->name);
		render_escape_terminal(src, sizeof(src),
				       p->limit_source ? p->limit_source : "");
		if (p->has_trend)
			snprintf(b3, sizeof(b3), "%s%s",
				 rate(b4, sizeof(b4), p->slope.estimate),
				 p->significant ? "" : " (not significant)");
		else
			snprintf(b3, sizeof(b3), "no slope");
		fprintf(out, "  %s %s: %s of %s%s%s%s, %s",
			k ? "          " : "pools     ", name,
			size_or_na(b1, sizeof(b1), p->last),
			size_or_na(b2, sizeof(b2), p->limit_bytes),
			p->limit_source ? " (" : "", src,
			p->limit_source ? ")" : "", b3);
		if (p->exhausts)
			fprintf(out, ", full in %s%s",
				dur_or_na(b5, sizeof(b5), p->eta_s),
				(int)k == f->exhaustion.pool ? " (first)" : "");
		fputc('\n', out);
	}
}

/* The latest sample's RSS and its parts (series_resident), so that the
 * report reconciles with ps and top: RSS = anon + file + shmem, and the
 * file pages (binaries, libraries, mapped files: the kernel can drop
 * them) are in the RSS but not in the footprint. Nothing when not
 * recorded. */
static void print_resident(FILE *out, const struct series *s)
{
	const struct series_resident *r = &s->resident;
	if (isnan(r->rss))
		return;
	char b1[32], b2[32], b3[32], b4[32];
	fprintf(out, "  rss         %s = anon %s + file %s + shmem %s (last "
		"sample, as ps/top show it)\n",
		size_or_na(b1, sizeof(b1), r->rss),
		size_or_na(b2, sizeof(b2), r->anon),
		size_or_na(b3, sizeof(b3), r->file),
		size_or_na(b4, sizeof(b4), r->shmem));
}

static char *per_req(char *buf, size_t n, double v)
{
	return render_per_request(buf, n, v, decimal);
}

#define IDLE_ROWS_SHOWN 10

/* A line of the findings view (findings_view.h), "  LABEL       TEXT",
 * escaped for the terminal; nothing when the target has no such
 * figure. */
static void print_line(FILE *out, const struct findings_view *v,
		       enum findings_line k)
{
	const char *text = v->lines[k];
	if (!text)
		return;
	size_t cap = 4 * strlen(text) + 4; /* \xNN per byte at most */
	char *esc = xmalloc(cap);
	fprintf(out, "  %-12s%s\n", findings_line_label[k],
		render_escape_terminal(esc, cap, text));
	free(esc);
}

/* Work (and whether it is a counter), per-request slope, idle windows
 * (the largest declines first when there are many) and where the growth
 * happened. */
static void print_work(FILE *out, const struct target_findings *f,
		       const struct findings_view *v)
{
	const struct per_request_finding *pr = &f->per_request;
	const struct idle_findings *id = &f->idle;
	char b1[64], b2[64], b3[64], b4[64], b5[64], p[32];
	print_line(out, v, FLINE_WORK);
	if (!pr->recorded)
		return;
	print_line(out, v, FLINE_REQUESTS);
	if (!pr->known)
		return;
	if (pr->found)
		fprintf(out, "  per request %s (95 %% interval %s to %s), "
			"p = %s; detectable %s%s\n",
			per_req(b1, sizeof(b1), pr->slope.estimate),
			per_req(b2, sizeof(b2), pr->slope.low),
			per_req(b3, sizeof(b3), pr->slope.high),
			render_p_value(p, sizeof(p), pr->slope.p, 3),
			per_req(b4, sizeof(b4), pr->detectable),
			pr->after_warmup ? " (after the warm-up)" : "");
	if (isfinite(pr->needed_requests))
		fprintf(out, "  min. work   %s requests to see %s\n",
			units_format_count(b1, sizeof(b1), pr->needed_requests),
			per_req(b2, sizeof(b2), pr->concern));
	if (!id->work_known)
		return;
	print_line(out, v, FLINE_IDLE);
	if (id->n) {
		for (size_t i = 0; i < id->n && i < IDLE_ROWS_SHOWN; i++) {
			const struct idle_window *w = &id->windows[i];
			fprintf(out, "              %s  %-8s %s -> %s "
				"(decline %s)\n",
				units_format_time(b1, sizeof(b1), w->start),
				dur_or_na(b2, sizeof(b2), w->end - w->start),
				size_or_na(b3, sizeof(b3), w->fp_start),
				size_or_na(b4, sizeof(b4), w->fp_end),
				size_or_na(b5, sizeof(b5), w->decline));
		}
		if (id->n > IDLE_ROWS_SHOWN)
			fprintf(out, "              ... %zu more (--json lists "
				"them all)\n", id->n - IDLE_ROWS_SHOWN);
	}
	fprintf(out, "  growth      net %s: %s while requests ran, %s idle, "
		"%s start-up\n",
		size_or_na(b1, sizeof(b1), id->growth_net),
		size_or_na(b2, sizeof(b2), id->growth_active),
		size_or_na(b3, sizeof(b3), id->growth_idle),
		size_or_na(b4, sizeof(b4), id->growth_warmup));
}

/* record --regions: the last snapshot by family, growth since the first
 * (of the same incarnation). */
/* "  GPU  device-local 229.5 GiB (99 % of the footprint), first ..." and
 * one line per region the drivers reported. */
static void print_gpu(FILE *out, const struct target_findings *f)
{
	const struct gpu_finding *g = &f->gpu;
	const struct series *s = f->series;
	char b1[48], b2[48], b3[48];
	if (!g->recorded)
		return;
	if (g->samples) {
		fprintf(out, "  GPU         device-local last %s",
			size_or_na(b1, sizeof(b1), g->last));
		if (isfinite(g->share_last))
			fprintf(out, " (%.0f %% of the footprint)",
				100 * g->share_last);
		fprintf(out, ", first %s, max %s\n",
			size_or_na(b1, sizeof(b1), g->first),
			size_or_na(b2, sizeof(b2), g->max));
		if (g->has_trend)
			fprintf(out, "              slope %s (95 %% interval %s "
				"to %s)\n",
				rate(b1, sizeof(b1), g->slope.estimate),
				rate(b2, sizeof(b2), g->slope.low),
				rate(b3, sizeof(b3), g->slope.high));
	}
	for (size_t i = 0; i < s->n_gpu_regions; i++) {
		const struct series_gpu_region *r = &s->gpu_regions[i];
		char name[64];
		render_escape_terminal(name, sizeof(name), r->name);
		fprintf(out, "              %s %s: %s [%s%s]\n", r->source, name,
			size_or_na(b1, sizeof(b1), r->last), r->kind,
			strcmp(r->kind, "host") == 0 ?
			": host RAM, already in anon/shmem" :
			strcmp(r->kind, "other") == 0 ?
			": not in the footprint" : "");
	}
}

static void print_regions(FILE *out, const struct series *s)
{
	const struct region_breakdown *b = s->regions_last,
				      *a = s->regions_first;
	if (!b)
		return;
	char b1[64], b2[64], b3[64], top[96];
	bool two = a && s->regions_last_t > s->regions_first_t;
	fprintf(out, "  regions     footprint by family at %s", 
		units_format_time(b1, sizeof(b1), s->regions_last_t));
	if (two)
		fprintf(out, ", growth since %s",
			units_format_time(b2, sizeof(b2), s->regions_first_t));
	fprintf(out, ":\n");
	for (int k = 0; k < REGION_FAMILY_COUNT; k++) {
		const struct region_figures *f = &b->f[k];
		if (!(f->footprint > 0) && !(f->rss > 0) &&
		    !(two && a->f[k].footprint > 0))
			continue;
		render_escape_terminal(top, sizeof(top), b->top[k]);
		char growth[80] = "";
		if (two) {
			double d = f->footprint - a->f[k].footprint;
			snprintf(growth, sizeof(growth), " (%s%s)",
				 d > 0 ? "+" : "",
				 size_or_na(b3, sizeof(b3), d));
		}
		fprintf(out, "                %-10s %9s%s, rss %s%s%s\n",
			region_family_names[k],
			size_or_na(b1, sizeof(b1), f->footprint), growth,
			size_or_na(b2, sizeof(b2), f->rss), *top ? "; largest " :
			"", top);
	}
}

#define INCARNATION_ROWS_SHOWN 8

/* With restarts, each incarnation on its own (the most recent ones). */
static void print_incarnations(FILE *out, const struct target_findings *f)
{
	const struct series *s = f->series;
	if (s->n_incs < 2 || !f->per_inc)
		return;
	char b1[64], b2[64], b3[64], b4[64], b5[64];
	size_t first = s->n_incs > INCARNATION_ROWS_SHOWN ?
		       s->n_incs - INCARNATION_ROWS_SHOWN : 0;
	if (first)
		fprintf(out, "  lifetimes   ... %zu earlier (--json lists "
			"them all)\n", first);
	for (size_t i = first; i < s->n_incs; i++) {
		const struct incarnation_summary *is = &f->per_inc[i];
		if (!is->samples)
			continue;
		char who[160], esc[4 * 160 + 4];
		render_incarnation_name(who, sizeof(who), s, i);
		fprintf(out, "  %-12s%s from %s, %s, %zu samples: %s -> "
			"%s, slope %s\n", i == first ? "lifetimes" : "",
			render_escape_terminal(esc, sizeof(esc), who),
			units_format_time(b1, sizeof(b1), is->start),
			dur_or_na(b2, sizeof(b2), is->end - is->start),
			is->samples, size_or_na(b3, sizeof(b3), is->fp_first),
			size_or_na(b4, sizeof(b4), is->fp_last),
			is->has_slope ?
			rate(b5, sizeof(b5), is->slope.estimate) : NA);
	}
}

/* Restarts, steps and attribution, a line each (the first few). */
static void print_diagnosis(FILE *out, const struct target_findings *f)
{
	char b1[64], b2[64], b3[64], b4[64];
	for (size_t i = 0; i < f->restarts.n && i < 5; i++) {
		const struct restart *r = &f->restarts.r[i];
		char pair[288], esc[4 * 288 + 4];
		render_incarnation_pair(pair, sizeof(pair), f->series,
					r->old_inc, r->new_inc);
		fprintf(out, "  %-12s%s %s: %s -> %s (%s), "
			"recovered %s\n", i ? "" : "restart",
			units_format_time(b1, sizeof(b1), r->time),
			render_escape_terminal(esc, sizeof(esc), pair),
			size_or_na(b2, sizeof(b2), r->before),
			size_or_na(b3, sizeof(b3), r->after), r->floor_rule,
			size_or_na(b4, sizeof(b4), r->recovered));
	}
	if (f->restarts.n > 5)
		fprintf(out, "              ... %zu more restarts\n",
			f->restarts.n - 5);
	for (size_t i = 0; i < f->steps.n && i < 5; i++) {
		const struct step *st = &f->steps.steps[i];
		fprintf(out, "  %-12s%s %s -> %s (%s%s)\n",
			i ? "" : "step",
			units_format_time(b1, sizeof(b1), st->time),
			size_or_na(b2, sizeof(b2), st->before),
			size_or_na(b3, sizeof(b3), st->after),
			st->change > 0 ? "+" : "",
			size_or_na(b4, sizeof(b4), st->change));
	}
	if (f->steps.n > 5)
		fprintf(out, "              ... %zu more steps\n",
			f->steps.n - 5);
	const struct attribution_finding *at = &f->attribution;
	if (!at->found)
		return;
	fprintf(out, "  attributed  growth %s: ",
		size_or_na(b1, sizeof(b1), at->growth));
	for (size_t i = 0; i < at->n; i++) {
		const struct attribution_item *it = &at->items[i];
		char name[128];
		render_escape_terminal(name, sizeof(name), it->name);
		fprintf(out, "%s %s%s, ", name,
			size_or_na(b2, sizeof(b2), it->explained),
			it->counted ? "" : " (not counted: not bytes)");
	}
	fprintf(out, "unattributed %s\n",
		size_or_na(b3, sizeof(b3), at->unattributed));
}

/* One row of the findings view (findings_view.h): its sentence after
 * lead, escaped for the terminal. */
static void print_finding(FILE *out, const char *lead, const char *text)
{
	size_t cap = 4 * strlen(text) + 4; /* \xNN per byte at most */
	char *esc = xmalloc(cap);
	fprintf(out, "%s%s\n", lead, render_escape_terminal(esc, cap, text));
	free(esc);
}

static void print_target(FILE *out, const struct target_findings *f,
			 const struct render_options *o)
{
	const struct series *s = f->series;
	char name[512], b1[64], b2[64], b3[64], b4[64];
	decimal = f->decimal_units;
	render_escape_terminal(name, sizeof(name), s->name);
	const char *vn = verdict_name(f->verdict);
	fprintf(out, "%s\n", name);
	if (o && o->color)
		fprintf(out, "  verdict     %s%s\033[0m\n",
			verdict_colour(f->verdict), vn);
	else
		fprintf(out, "  verdict     %s\n", vn);
	/* the reasons and the advice as every format says them */
	struct findings_view v;
	findings_view_init(&v, f);
	for (size_t i = 0; i < v.n_reasons; i++)
		print_finding(out, "    - ", v.reasons[i].text);
	if (v.settle.code)
		print_finding(out, "    => to settle it: ", v.settle.text);

	fprintf(out, "\n");
	if (s->n_incs) {
		fprintf(out, "  process     ");
		for (size_t i = 0; i < s->n_incs && i < 8; i++) {
			char cmd[160];
			const struct incarnation *in = &s->incs[i];
			render_escape_terminal(cmd, sizeof(cmd),
					in->cmdline && *in->cmdline ?
					in->cmdline : in->comm);
			if (in->pid >= 0)
				fprintf(out, "%spid %lld%s%s", i ? "; " : "",
					(long long)in->pid, *cmd ? ": " : "",
					cmd);
			else
				fprintf(out, "%s%s", i ? "; " : "",
					*cmd ? cmd : "(no pid)");
		}
		if (s->n_incs > 8)
			fprintf(out, "; ... %zu more", s->n_incs - 8);
		fprintf(out, "\n");
	}
	print_line(out, &v, FLINE_WINDOW);
	print_line(out, &v, FLINE_FOOTPRINT);
	print_resident(out, s);
	print_components(out, s);
	if (o && o->plot && s->n)
		render_plot_footprint(out, s, f, o->width > 20 ? o->width : 80,
				      12, o->utf8);
	for (int k = FLINE_RESOLUTION; k <= FLINE_APPROACH; k++)
		print_line(out, &v, (enum findings_line)k);
	print_work(out, f, &v);
	print_incarnations(out, f);
	print_diagnosis(out, f);
	print_gpu(out, f);
	print_regions(out, s);
	print_pools(out, f);
	render_sites_text(out, f, decimal);
	if (f->exhaustion.found) {
		const struct pool_finding *gp = pools_exhaustion_gpu(f);
		char gname[160], lsrc[160];
		render_escape_terminal(gname, sizeof(gname),
				       gp ? gp->name : "");
		render_escape_terminal(lsrc, sizeof(lsrc),
				       f->exhaustion.limit_source ?
				       f->exhaustion.limit_source : "");
		fprintf(out, "  exhaustion  %s%s%s (%s) in %s (range %s to "
			"%s)\n", gname, gp ? ": " : "", lsrc,
			size_or_na(b1, sizeof(b1), f->exhaustion.limit_bytes),
			dur_or_na(b2, sizeof(b2), f->exhaustion.eta_s),
			dur_or_na(b3, sizeof(b3), f->exhaustion.eta_low_s),
			isinf(f->exhaustion.eta_high_s) ? "never" :
			dur_or_na(b4, sizeof(b4), f->exhaustion.eta_high_s));
	}
	if (f->exhaustion.found && isfinite(f->exhaustion.requests_left))
		fprintf(out, "              or after %s more requests (range "
			"%s to %s)\n",
			units_format_count(b1, sizeof(b1),
					   f->exhaustion.requests_left),
			units_format_count(b2, sizeof(b2),
					   f->exhaustion.requests_left_low),
			isinf(f->exhaustion.requests_left_high) ? "never" :
			units_format_count(b3, sizeof(b3),
					   f->exhaustion.requests_left_high));
	findings_view_release(&v);
}

/* One row of the overview, its cells formatted before the columns are
 * sized. */
struct overview_row {
	char slope[160], footprint[32], exhaustion[48];
};

/* "verdicts    1 growing, 0 plateau, 2 inconclusive, 5 stable", then a
 * row per target shown, worst first: rank, verdict, slope and its
 * interval, the last footprint, the exhaustion time when growing, the
 * name (last: it has any length). */
static void print_overview(FILE *out, const struct target_findings *f,
			   size_t n, const size_t *order, size_t shown,
			   const struct render_options *o)
{
	static const enum verdict classes[] = {
		VERDICT_GROWING, VERDICT_PLATEAU, VERDICT_INCONCLUSIVE,
		VERDICT_STABLE};
	size_t count[4] = {0};
	for (size_t i = 0; i < n; i++)
		count[rank_verdict_class(f[i].verdict)]++;
	fprintf(out, "verdicts    ");
	for (size_t k = 0; k < 4; k++)
		fprintf(out, "%s%zu %s", k ? ", " : "", count[k],
			verdict_name(classes[k]));
	fprintf(out, "\n");
	if (shown < n)
		fprintf(out, "shown       %zu of %zu targets, the worst (--top "
			"%zu; --json lists every target)\n", shown, n, shown);
	fprintf(out, "\n");

	struct overview_row *rows = xcalloc(shown ? shown : 1, sizeof(*rows));
	int w_slope = (int)strlen("slope (95 % interval)"),
	    w_fp = (int)strlen("footprint"), w_ex = (int)strlen("exhaustion");
	for (size_t r = 0; r < shown; r++) {
		const struct target_findings *t = &f[order[r]];
		struct overview_row *row = &rows[r];
		char b1[48], b2[48], b3[48];
		decimal = t->decimal_units;
		if (t->has_trend && isfinite(t->slope.estimate))
			snprintf(row->slope, sizeof(row->slope),
				 "%s (%s to %s)",
				 rate(b1, sizeof(b1), t->slope.estimate),
				 rate(b2, sizeof(b2), t->slope.low),
				 rate(b3, sizeof(b3), t->slope.high));
		else
			snprintf(row->slope, sizeof(row->slope), NA);
		size_or_na(row->footprint, sizeof(row->footprint),
			   t->fp_last);
		if (t->verdict != VERDICT_GROWING)
			snprintf(row->exhaustion, sizeof(row->exhaustion),
				 "-");
		else if (t->exhaustion.found)
			snprintf(row->exhaustion, sizeof(row->exhaustion),
				 "in %s", dur_or_na(b1, sizeof(b1),
						    t->exhaustion.eta_s));
		else
			snprintf(row->exhaustion, sizeof(row->exhaustion),
				 "no limit");
		int l;
		if ((l = (int)strlen(row->slope)) > w_slope)
			w_slope = l;
		if ((l = (int)strlen(row->footprint)) > w_fp)
			w_fp = l;
		if ((l = (int)strlen(row->exhaustion)) > w_ex)
			w_ex = l;
	}
	fprintf(out, "rank  %-12s  %-*s  %*s  %-*s  target\n", "verdict",
		w_slope, "slope (95 % interval)", w_fp, "footprint", w_ex,
		"exhaustion");
	bool *shared = rank_shared_names(f, n);
	for (size_t r = 0; r < shown; r++) {
		const struct target_findings *t = &f[order[r]];
		const char *vn = verdict_name(t->verdict);
		char name[512];
		render_escape_terminal(name, sizeof(name), t->series->name);
		long pid = rank_target_pid(t);
		if (shared[order[r]] && pid >= 0) {
			size_t len = strlen(name);
			snprintf(name + len, sizeof(name) - len, " [pid %ld]",
				 pid);
		}
		fprintf(out, "%4zu  ", r + 1);
		if (o && o->color)
			fprintf(out, "%s%-12s\033[0m", verdict_colour(t->verdict),
				vn);
		else
			fprintf(out, "%-12s", vn);
		fprintf(out, "  %-*s  %*s  %-*s  %s\n", w_slope, rows[r].slope,
			w_fp, rows[r].footprint, w_ex, rows[r].exhaustion,
			name);
	}
	if (shown < n)
		fprintf(out, "  ... %zu more\n", n - shown);
	fprintf(out, "\n");
	free(shared);
	free(rows);
}

int render_text(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_options *o)
{
	char src[512];
	render_escape_terminal(src, sizeof(src), d->source);
	fprintf(out, "memtrend report: %s (%zu target%s)\n\n", src, n,
		n == 1 ? "" : "s");
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	rank_targets(f, n, order);
	size_t shown = o && o->top && o->top < n ? o->top : n;
	if (n > 1)
		print_overview(out, f, n, order, shown, o);
	for (size_t r = 0; r < shown; r++) {
		print_target(out, &f[order[r]], o);
		fprintf(out, "\n");
	}
	free(order);
	for (size_t i = 0; i < d->n_gpu_devices; i++) {
		const struct dataset_gpu_device *g = &d->gpu_devices[i];
		char b1[48], b2[48], src[16];
		fprintf(out, "GPU %u (%s): %s used of %s, all processes\n",
			g->index, render_escape_terminal(src, sizeof(src), g->source),
			size_or_na(b1, sizeof(b1), g->used),
			size_or_na(b2, sizeof(b2), g->total));
	}
	for (size_t i = 0; i < d->n_notes; i++) {
		char b[512];
		fprintf(out, "note: %s\n", render_escape_terminal(b, sizeof(b),
							   d->notes[i]));
	}
	return ferror(out) ? -1 : 0;
}
