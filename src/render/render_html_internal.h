/*
 * render_html_internal.h - what the three files of `report --html` share
 * (render_html.c: the page and its CSP; render_html_figures.c: the plots;
 * render_html_tables.c: the verdict and the findings as tables). Private
 * to them: nothing else includes it.
 *
 * Contracts: one struct ctx per target, filled by render_html.c
 * (setup_ctx) before any figure or table is written and valid while they
 * run; they only write to c->out. The text helpers here are the page's
 * one way to write a value: put_esc() escapes whatever a process or a
 * file controls (render_escape_html), the *_s() helpers format a value into the
 * caller's buffer (render.h's formatters, in the target's units) and
 * return it.
 */
#ifndef MEMTREND_RENDER_HTML_INTERNAL_H
#define MEMTREND_RENDER_HTML_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "findings_view.h"
#include "render.h"
#include "svg.h"
#include "units.h"

/* Per-target formatting state (units follow the readings). */
struct ctx {
	FILE *out;
	const struct dataset *d;
	const struct render_html_options *o;
	const struct target_findings *f;
	const struct findings_view *view; /* f's (findings_view.h), while
					     its section is written */
	const struct series *s;
	size_t ti;                 /* target index (ids) */
	bool decimal;
	enum svg_axis_kind bytes_kind;
	double *work;              /* cumulative requests, or NULL */
	double work_total;
	bool work_gauge;           /* the work series is no counter and was
				      set aside (findings' work_set_aside):
				      work holds it as read, work_total its
				      largest reading; nothing per request */
	double gap_s;              /* time step that breaks a line; INF */
	double t_lo, t_hi;         /* time axis */
};

/* ---- text helpers -------------------------------------------------------- */

/* Escaped text of any length (render_escape_html into a buffer that holds it). */
static inline void put_esc(FILE *out, const char *s)
{
	if (!s)
		return;
	size_t len = strlen(s);
	char small[512];
	char *buf = len * 6 + 4 <= sizeof(small) ? small :
		    xmalloc(len * 6 + 4);
	size_t cap = buf == small ? sizeof(small) : len * 6 + 4;
	fputs(render_escape_html(buf, cap, s), out);
	if (buf != small)
		free(buf);
}

/* The formatters are render_reason.c's, in the target's units. */
static inline char *size_s(const struct ctx *c, char *buf, size_t n,
			   double v)
{
	return render_size(buf, n, v, c->decimal);
}

static inline char *slope_s(const struct ctx *c, char *buf, size_t n,
			    double bph)
{
	return render_rate(buf, n, bph, c->decimal);
}

static inline char *per_req_s(const struct ctx *c, char *buf, size_t n,
			      double v)
{
	return render_per_request(buf, n, v, c->decimal);
}

static inline char *dur_s(char *buf, size_t n, double s)
{
	if (isinf(s)) {
		snprintf(buf, n, "never");
		return buf;
	}
	return render_duration(buf, n, s);
}

static inline char *time_s(char *buf, size_t n, double t)
{
	return units_format_time(buf, n, t);
}

static inline char *p_s(char *buf, size_t n, double p)
{
	return render_p_value(buf, n, p, 3);
}

/* ---- render_html_figures.c ----------------------------------------------- */

/* The time step that breaks a plotted line: GAP_FACTOR times the typical
 * one, INFINITY when there is none (c->gap_s). */
double render_html_gap_threshold(const struct series *s);
/* The target's plots, in order: footprint over time, requests and
 * connections, footprint against requests, components stacked, gauges.
 * Each is left out (or named in a line) when its data is absent. */
void render_html_figures(struct ctx *c);
/* The footprint over time as a sparkline for the overview: an inline
 * <svg class="spark"> of width x height pixels, the line only (no axes,
 * no readout: no data-xk, so the hover script leaves it alone), from
 * per-column extremes like the plots, broken at restarts and gaps. The
 * style is the plots' (class fp) and the size is in the element's
 * attributes, so the page's style is unchanged. */
void render_html_sparkline(struct ctx *c, int width, int height);

/* The first n_sites ranked allocation sites' live bytes (at most four)
 * over the footprint, one plot (record --sites). */
void render_html_sites_plot(struct ctx *c, size_t n_sites);

/* ---- render_html_flame.c ------------------------------------------------- */

/* Where it grows, drawn: the icicle graph of the sites' growth by stack
 * (their live bytes where none grows), then render_html_sites_plot().
 * Nothing without sites. */
void render_html_sites_figures(struct ctx *c);

/* ---- render_html_tables.c ------------------------------------------------ */

/* The verdict's reasons and settle text, then the target's figures (the
 * numbers: window, footprint, slope, ...) as a key-value table. */
void render_html_summary(struct ctx *c);
/* The findings as tables, each only when found: per request, idle
 * windows and growth accounting, exhaustion, restarts, steps,
 * attribution, GPU memory, incarnations. */
void render_html_findings(struct ctx *c);

#endif /* MEMTREND_RENDER_HTML_INTERNAL_H */
