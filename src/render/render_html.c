/*
 * render_html.c - `report --html`: one self-contained HTML5 page (render.h)
 * that a person reads on a laptop or prints. This file writes the page:
 * head (CSP, style, the first script), the header and, with several
 * targets, the overview (a row and a sparkline per target, worst first,
 * each linking to its section), one section per target in that order,
 * the notes, the last script.
 *
 * Per target: the verdict with its reasons and settle text and the
 * figures as a table, then the plots, then the findings as tables. The
 * plots are render_html_figures.c's, the tables render_html_tables.c's;
 * the style and the scripts are src/render/assets/ (report.css,
 * report_head.js, report.js), embedded at build time with their SHA-256
 * hashes by scripts/embed_assets.py (render_html_assets.h).
 *
 * What it does not do: compute anything a verdict depends on. It reads
 * findings (analysis.h) and the series; what it derives is for drawing
 * only (the time axis, the reset-free request count from idle.h's
 * idle_work_increase()).
 *
 * Safety: every string a process or a file controls (target name, comm,
 * command line, gauge names, notes, source file name, cap names) goes
 * through render_escape_html(); none is ever placed in a script, a style or an
 * id. The page loads nothing: a Content-Security-Policy meta allows no
 * fetch (default-src 'none'), and scripts only by the SHA-256 of the two
 * inline scripts written here, so an injected tag or event handler could
 * neither run nor load anything. The inline scripts record errors and CSP
 * violations on <html> (data-js-errors, data-csp-violations) and set
 * data-js-ready when done; the end-to-end test reads them.
 *
 * Bounds: see the figures' and the tables' files; a report of 10^6
 * samples stays well under 1 MB.
 */
#include "render_html_assets.h"
#include "render_html_internal.h"
#include "rank.h"

/* ---- page ---------------------------------------------------------------- */

static void target_section(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	FILE *out = c->out;
	const char *vn = verdict_name(f->verdict);
	fprintf(out, "<section class=\"target\" id=\"t%zu\" "
		"data-verdict=\"%s\">\n<h2>", c->ti, vn);
	put_esc(out, s->name);
	fprintf(out, " <span class=\"verdict v-%s\">%s", vn, vn);
	if (f->plateau.found && f->plateau.cap_name) {
		fputs(" at the ", out);
		put_esc(out, f->plateau.cap_name);
	}
	fputs("</span></h2>\n", out);
	/* the reasons and figures in the words every format shares */
	struct findings_view view;
	findings_view_init(&view, f);
	c->view = &view;
	render_html_summary(c);
	if (s->n)
		render_html_figures(c);
	fputs("<div class=\"findings\">\n", out);
	render_html_findings(c);
	fputs("</div>\n</section>\n", out);
	c->view = NULL;
	findings_view_release(&view);
}

static void setup_ctx(struct ctx *c, const struct target_findings *f)
{
	const struct series *s = f->series;
	c->f = f;
	c->s = s;
	c->decimal = f->decimal_units;
	c->bytes_kind = c->decimal ? SVG_AXIS_BYTES_DECIMAL : SVG_AXIS_BYTES;
	c->work = NULL;
	c->work_total = 0;
	c->work_gauge = f->work_set_aside;
	if (c->work_gauge && s->n) {
		/* a gauge is drawn as read: its "increase" counts nothing */
		c->work = xmalloc(s->n * sizeof(double));
		for (size_t i = 0; i < s->n; i++) {
			c->work[i] = s->requests[i];
			if (isfinite(s->requests[i]))
				c->work_total = fmax(c->work_total,
						     s->requests[i]);
		}
	} else if (s->requests && s->n) {
		c->work = xmalloc(s->n * sizeof(double));
		c->work_total = idle_work_increase(s->requests, s->n,
						      c->work);
	}
	c->gap_s = render_html_gap_threshold(s);
	c->t_lo = INFINITY;
	c->t_hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->t[i])) {
			c->t_lo = fmin(c->t_lo, s->t[i]);
			c->t_hi = fmax(c->t_hi, s->t[i]);
		}
	if (!(c->t_hi > c->t_lo)) {
		double t = isfinite(c->t_lo) ? c->t_lo : 0;
		c->t_lo = t - 30;
		c->t_hi = t + 30;
	}
}

/* With several targets: the count per verdict, then a table, worst
 * first (rank.h), one row per target shown: rank, name linking to its
 * section (#tI, I its position in the dataset), verdict, a sparkline of
 * its footprint and the last value, the slope and its interval, the
 * exhaustion time when growing. Existing classes only (the style is the
 * same for every page). */
static void overview(FILE *out, const struct dataset *d,
		     const struct target_findings *f, size_t n,
		     const size_t *order, size_t shown,
		     const struct render_html_options *o)
{
	static const enum verdict classes[] = {
		VERDICT_GROWING, VERDICT_PLATEAU, VERDICT_INCONCLUSIVE,
		VERDICT_STABLE};
	size_t count[4] = {0};
	for (size_t i = 0; i < n; i++)
		count[rank_verdict_class(f[i].verdict)]++;
	fputs("<section class=\"overview\" id=\"overview\">\n"
	      "<h2>Targets, worst first</h2>\n<p class=\"verdicts\">", out);
	for (size_t k = 0; k < 4; k++) {
		const char *vn = verdict_name(classes[k]);
		fprintf(out, "%s%zu <span class=\"verdict v-%s\">%s</span>",
			k ? ", " : "", count[k], vn, vn);
	}
	fputs(".", out);
	if (shown < n)
		fprintf(out, " The worst %zu of %zu targets are shown "
			"(<code>--top %zu</code>); <code>--json</code> lists "
			"every target.", shown, n, shown);
	fputs("</p>\n<table class=\"overview\">\n<thead><tr><th class=\"n\">"
	      "rank</th><th>target</th><th>verdict</th><th>footprint</th>"
	      "<th class=\"n\">last</th><th class=\"n\">slope</th>"
	      "<th>95 % interval</th><th>exhaustion</th></tr></thead>\n"
	      "<tbody>\n", out);
	struct ctx c = {.out = out, .d = d, .o = o};
	bool *shared = rank_shared_names(f, n);
	for (size_t r = 0; r < shown; r++) {
		const struct target_findings *t = &f[order[r]];
		const char *vn = verdict_name(t->verdict);
		char b1[48], b2[48];
		c.ti = order[r];
		setup_ctx(&c, t);
		free(c.work);
		c.work = NULL;
		fprintf(out, "<tr data-verdict=\"%s\"><td class=\"n\">%zu</td>"
			"<td><a href=\"#t%zu\">", vn, r + 1, order[r]);
		put_esc(out, t->series->name);
		if (shared[order[r]] && rank_target_pid(t) >= 0)
			fprintf(out, " [pid %ld]", rank_target_pid(t));
		fprintf(out, "</a></td><td><span class=\"verdict v-%s\">%s"
			"</span></td><td>", vn, vn);
		render_html_sparkline(&c, 120, 24);
		fprintf(out, "</td><td class=\"n\">%s</td>",
			size_s(&c, b1, sizeof(b1), t->fp_last));
		if (t->has_trend && isfinite(t->slope.estimate))
			fprintf(out, "<td class=\"n\">%s</td>",
				slope_s(&c, b1, sizeof(b1),
					t->slope.estimate));
		else
			fputs("<td class=\"n\">n/a</td>", out);
		if (t->has_trend && isfinite(t->slope.estimate))
			fprintf(out, "<td>%s to %s</td>",
				slope_s(&c, b1, sizeof(b1), t->slope.low),
				slope_s(&c, b2, sizeof(b2), t->slope.high));
		else
			fputs("<td></td>", out);
		if (t->verdict == VERDICT_GROWING && t->exhaustion.found)
			fprintf(out, "<td>in %s</td>", dur_s(b1, sizeof(b1),
			       t->exhaustion.eta_s));
		else if (t->verdict == VERDICT_GROWING)
			fputs("<td>no limit</td>", out);
		else
			fputs("<td></td>", out);
		fputs("</tr>\n", out);
	}
	free(shared);
	fputs("</tbody>\n</table>\n", out);
	if (shown < n)
		fprintf(out, "<p class=\"muted\">&hellip; %zu more</p>\n",
			n - shown);
	fputs("</section>\n", out);
}

int render_html(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_html_options *o)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n", out);
	/* 'unsafe-inline' only for browsers without CSP hashes: where the
	 * hashes are understood, inline code other than these two scripts
	 * (an injected tag, an event handler attribute) never runs. */
	fprintf(out, "<meta http-equiv=\"Content-Security-Policy\" "
		"content=\"default-src 'none'; script-src 'unsafe-inline' "
		"%s %s; style-src 'unsafe-inline'; img-src data:; "
		"base-uri 'none'; form-action 'none'\">\n",
		render_html_asset_report_head_js_csp,
		render_html_asset_report_js_csp);
	fprintf(out, "<script>%s</script>\n",
		render_html_asset_report_head_js);
	fputs("<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<meta name=\"generator\" content=\"memtrend "
	      MEMTREND_VERSION "\">\n<title>memtrend report: ", out);
	put_esc(out, d->source);
	/* The asset is the style less its final newline. */
	fprintf(out, "</title>\n<style>\n%s\n</style>\n</head>\n<body>\n"
		"<header>\n<h1>memtrend report</h1>\n<p class=\"muted\">"
		"Source <code class=\"source\">", render_html_asset_report_css);
	put_esc(out, d->source);
	fprintf(out, "</code>: %zu target%s. Times are UTC. Generated by "
		"memtrend " MEMTREND_VERSION ".</p>\n", n, n == 1 ? "" : "s");
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	rank_targets(f, n, order);
	size_t shown = o && o->top && o->top < n ? o->top : n;
	if (n > 1)
		overview(out, d, f, n, order, shown, o);
	fputs("</header>\n<main>\n", out);
	struct ctx c = {.out = out, .d = d, .o = o};
	for (size_t r = 0; r < shown; r++) {
		c.ti = order[r];
		setup_ctx(&c, &f[order[r]]);
		target_section(&c);
		free(c.work);
		c.work = NULL;
	}
	free(order);
	fputs("</main>\n<footer>\n", out);
	if (d->n_notes) {
		fputs("<h3>Notes recorded with the data</h3>\n<ul class=\""
		      "notes\">\n", out);
		for (size_t i = 0; i < d->n_notes; i++) {
			fputs("<li>", out);
			put_esc(out, d->notes[i]);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fprintf(out, "</footer>\n<script>%s</script>\n</body>\n</html>\n",
		render_html_asset_report_js);
	return ferror(out) ? -1 : 0;
}
