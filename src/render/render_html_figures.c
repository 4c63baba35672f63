/*
 * render_html_figures.c - the plots of `report --html` (render_html.c
 * writes the page around them), as inline SVG: footprint over time (idle
 * windows shaded, restarts marked, the slope and its 95 % band over the
 * analysed incarnation, plateau, caps and limit as labelled lines),
 * requests and connections beneath on the same time axis, footprint
 * against cumulative requests with the per-request slope, components
 * stacked over time, gauges. Each figure has its legend and a readout
 * line that report.js fills on hover from the data-* scales written here.
 *
 * What it does not do: compute anything a verdict depends on. It reads
 * findings (analysis.h), the series and what render_html.c prepared in
 * struct ctx (the time axis, the reset-free request count); what it
 * derives is for drawing only (pixel columns, line breaks at gaps, which
 * gauges get a bytes axis by attribution.h's name rule). It writes no
 * text a process controls except through render_escape_html(), and none of it
 * into an attribute the scripts run (gauge names go into data-k
 * escaped).
 *
 * Bounds: O(n) per series; every plotted series holds at most about
 * 4 x PLOT_W points whatever n is (svg.h); shaded windows and restart
 * marks are merged per pixel column.
 */
#include <limits.h>
#include <stdint.h>

#include "render_html_internal.h"
#include "render_sites.h"

#define PLOT_W 960.0
#define M_LEFT 84.0
#define M_RIGHT 16.0
#define M_TOP 16.0
#define M_BOTTOM 40.0
#define RESTART_LABELS_MAX 12
#define GAUGES_MAX 8
/* A time step this many times the typical one breaks the line. */
#define GAP_FACTOR 5.0

/* ---- palette (Okabe-Ito: safe for the common colour-vision types) -------- */

#define C_BLACK "#000000"
#define C_ORANGE "#E69F00"
#define C_SKY "#56B4E9"
#define C_GREEN "#009E73"
#define C_YELLOW "#F0E442"
#define C_BLUE "#0072B2"
#define C_VERMILLION "#D55E00"
#define C_PURPLE "#CC79A7"

/* Components stacked over time, bottom to top. A new component (a GPU's
 * memory, say) is one entry here. */
static const struct stack_layer {
	enum series_component comp;
	const char *label;
	const char *colour;
} stack_layers[] = {
	{COMP_ANON, "anon", C_BLUE},
	{COMP_SWAP, "swap", C_VERMILLION},
	{COMP_SHMEM, "shmem", C_PURPLE},
	{COMP_GPU, "GPU memory (device-local)", C_GREEN},
	{COMP_FILE, "file (page cache; not in the footprint)", C_SKY},
};
#define N_LAYERS ARRAY_SIZE(stack_layers)

/* ---- plot frame ---------------------------------------------------------- */

struct panel {
	double top, bottom;        /* pixel rows of the plot area */
	struct svg_scale sx, sy;
	enum svg_axis_kind ykind;
};

static const char *axis_code(enum svg_axis_kind k)
{
	switch (k) {
	case SVG_AXIS_BYTES: return "b";
	case SVG_AXIS_BYTES_DECIMAL: return "d";
	case SVG_AXIS_COUNT: return "c";
	case SVG_AXIS_TIME: return "t";
	case SVG_AXIS_NUMBER: break;
	}
	return "n";
}

/* <svg> with the x scale for the readout script. */
static void svg_open(FILE *out, double height, const char *label,
		     const struct svg_scale *sx, enum svg_axis_kind xkind,
		     const char *xlabel)
{
	fprintf(out, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\" "
		"data-x0=\"%.17g\" data-x1=\"%.17g\" data-px0=\"%.1f\" "
		"data-px1=\"%.1f\" data-xk=\"%s\"%s%s%s>\n",
		PLOT_W, height, label, sx->d0, sx->d1, sx->p0, sx->p1,
		axis_code(xkind), xlabel ? " data-xl=\"" : "",
		xlabel ? xlabel : "", xlabel ? "\"" : "");
}

static void svg_close(FILE *out, double height)
{
	fprintf(out, "<line class=\"cursor\" x1=\"%.1f\" y1=\"%.1f\" "
		"x2=\"%.1f\" y2=\"%.1f\"/>\n</svg>\n", M_LEFT, M_TOP,
		M_LEFT, height - M_BOTTOM + 4);
}

/* Horizontal grid lines and labels of the y axis. */
static void y_axis(FILE *out, const struct panel *p, double lo, double hi,
		   int target)
{
	struct svg_ticks tk;
	svg_ticks_make(&tk, p->ykind, lo, hi, target);
	for (size_t i = 0; i < tk.n; i++) {
		double y = svg_map(&p->sy, tk.v[i]);
		if (y < p->top - 0.5 || y > p->bottom + 0.5)
			continue;
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tick\" "
			"x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			M_LEFT, y, PLOT_W - M_RIGHT, y, M_LEFT - 6, y + 4,
			tk.label[i]);
	}
}

/* Vertical grid lines; labels (and dates) under the panel when asked. */
static void x_axis(FILE *out, const struct panel *p, enum svg_axis_kind k,
		   int target, bool labels, const char *title)
{
	struct svg_ticks tk;
	svg_ticks_make(&tk, k, p->sx.d0, p->sx.d1, target);
	for (size_t i = 0; i < tk.n; i++) {
		double x = svg_map(&p->sx, tk.v[i]);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n", x, p->top, x,
			p->bottom);
		if (!labels)
			continue;
		/* A label at the right edge ends there (never cut off). */
		const char *anchor = x > PLOT_W - M_RIGHT - 30 ? "end" :
				     "middle";
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"%s\">%s</text>\n", x, p->bottom + 15,
			anchor, tk.label[i]);
		if (tk.label2[i][0])
			fprintf(out, "<text class=\"date\" x=\"%.1f\" "
				"y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
				x, p->bottom + 28, anchor, tk.label2[i]);
	}
	/* The axis' unit under the y labels, clear of the ticks. */
	if (labels && title)
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n", M_LEFT - 30,
			p->bottom + 15, title);
}

static void frame(FILE *out, const struct panel *p)
{
	fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/>\n", M_LEFT, p->top,
		PLOT_W - M_RIGHT - M_LEFT, p->bottom - p->top);
}

static void clip_def(FILE *out, const char *id, const struct panel *p)
{
	fprintf(out, "<defs><clipPath id=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n", id,
		M_LEFT, p->top, PLOT_W - M_RIGHT - M_LEFT, p->bottom - p->top);
}

/* Opens the group the readout reads a panel's y scale from. */
static void panel_group(FILE *out, const struct panel *p, const char *clip)
{
	fprintf(out, "<g data-yk=\"%s\" data-y0=\"%.17g\" data-y1=\"%.17g\" "
		"data-py0=\"%.1f\" data-py1=\"%.1f\" clip-path=\"url(#%s)\">\n",
		axis_code(p->ykind), p->sy.d0, p->sy.d1, p->sy.p0, p->sy.p1,
		clip);
}

/* y range [lo, hi] padded so lines do not sit on the frame. */
static void pad_range(double *lo, double *hi, bool from_zero)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double span = *hi - *lo;
	if (span <= 0)
		span = fmax(fabs(*hi) * 0.1, 1);
	if (from_zero && *lo >= 0) {
		*lo = 0;
	} else {
		*lo -= span * 0.06;
		if (from_zero && *lo < 0)
			*lo = 0;
	}
	*hi += span * 0.06;
}

/* ---- what the plots share ------------------------------------------------ */

static uint32_t inc_of(const struct series *s, size_t i)
{
	return s->n_incs ? s->inc[i] : 0;
}

/* The typical time step: the median of up to 2001 evenly spread steps.
 * A step over GAP_FACTOR times it breaks lines (recording paused). */
double render_html_gap_threshold(const struct series *s)
{
	if (s->n < 3)
		return INFINITY;
	size_t m = s->n - 1 < 2001 ? s->n - 1 : 2001;
	double *dt = xmalloc(m * sizeof(double));
	size_t k = 0;
	for (size_t j = 0; j < m; j++) {
		size_t i = (size_t)((double)j * (double)(s->n - 2) /
				    (double)(m > 1 ? m - 1 : 1));
		double v = s->t[i + 1] - s->t[i];
		if (isfinite(v))
			dt[k++] = v;
	}
	double med = k ? stats_median_inplace(dt, k) : 0;
	free(dt);
	return med > 0 ? med * GAP_FACTOR : INFINITY;
}

/* One series over time into a polyline (per-column extremes), breaking
 * at restarts and gaps. */
static void draw_over_time(struct ctx *c, const struct panel *p,
			   const double *y, const char *attrs)
{
	const struct series *s = c->s;
	struct svg_line l;
	svg_line_begin(&l, c->out, &p->sx, &p->sy, attrs);
	for (size_t i = 0; i < s->n; i++) {
		if (i && (inc_of(s, i) != inc_of(s, i - 1) ||
			  s->t[i] - s->t[i - 1] > c->gap_s))
			svg_line_break(&l);
		svg_line_add(&l, s->t[i], y[i]);
	}
	svg_line_end(&l);
}

void render_html_sparkline(struct ctx *c, int width, int height)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	fprintf(c->out, "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/"
		"svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"footprint over time\">", width,
		height, width, height);
	if (s->n && isfinite(f->fp_min) && isfinite(f->fp_max)) {
		struct svg_scale sx, sy;
		svg_scale_set(&sx, c->t_lo, c->t_hi, 1, width - 1);
		svg_scale_set(&sy, f->fp_min, f->fp_max, height - 2, 2);
		struct svg_line l;
		svg_line_begin(&l, c->out, &sx, &sy, "class=\"fp\"");
		for (size_t i = 0; i < s->n; i++) {
			if (i && (inc_of(s, i) != inc_of(s, i - 1) ||
				  s->t[i] - s->t[i - 1] > c->gap_s))
				svg_line_break(&l);
			svg_line_add(&l, s->t[i], s->footprint[i]);
		}
		svg_line_end(&l);
	}
	fputs("</svg>", c->out);
}

/* Idle windows as shaded columns, merged where they touch in pixels. */
static void draw_idle(struct ctx *c, const struct panel *p)
{
	const struct idle_findings *id = &c->f->idle;
	double x0 = NAN, x1 = NAN;
	for (size_t i = 0; i <= id->n; i++) {
		double a = NAN, b = NAN;
		if (i < id->n) {
			a = svg_map(&p->sx, id->windows[i].start);
			b = svg_map(&p->sx, id->windows[i].end);
			if (b - a < 1)
				b = a + 1;  /* at least a pixel */
			if (isfinite(x1) && a <= x1 + 0.5) {
				x1 = fmax(x1, b);
				continue;
			}
		}
		if (isfinite(x0))
			fprintf(c->out, "<rect class=\"idle\" x=\"%.1f\" "
				"y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
				"<title>idle</title></rect>\n", x0, p->top,
				x1 - x0, p->bottom - p->top);
		x0 = a;
		x1 = b;
	}
}

/* Restarts: a dashed line at the first point of each new incarnation
 * (one per pixel column), labelled with the new pid while they are few. */
static void draw_restarts(struct ctx *c, const struct panel *p, bool labels)
{
	const struct series *s = c->s;
	const struct restart_findings *rf = &c->f->restarts;
	size_t restarts = 0, j = 0, k = 0;
	for (size_t i = 1; i < s->n; i++)
		if (inc_of(s, i) != inc_of(s, i - 1))
			restarts++;
	labels = labels && restarts <= RESTART_LABELS_MAX;
	long last_col = LONG_MIN;
	for (size_t i = 1; i < s->n; i++) {
		if (inc_of(s, i) == inc_of(s, i - 1))
			continue;
		/* The restart finding of this point, if any (both in time
		 * order). */
		while (j < rf->n && rf->r[j].index < i)
			j++;
		const struct restart *r = j < rf->n && rf->r[j].index == i ?
					  &rf->r[j] : NULL;
		double x = svg_map(&p->sx, s->t[i]);
		long col = (long)floor(x);
		if (col == last_col)
			continue;
		last_col = col;
		fprintf(c->out, "<line class=\"restart\" x1=\"%.1f\" "
			"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, p->top, x,
			p->bottom);
		if (!labels)
			continue;
		const struct incarnation *in = &s->incs[inc_of(s, i)];
		/* Alternate rows, so close restarts do not overprint. */
		bool right = x > PLOT_W - M_RIGHT - 160;
		fprintf(c->out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\"%s>"
			"restart", right ? x - 3 : x + 3,
			p->top + 12 + 13 * (double)(k++ % 2),
			right ? " text-anchor=\"end\"" : "");
		if (in->pid >= 0) {
			fprintf(c->out, ": pid %lld", (long long)in->pid);
		} else if (in->comm && *in->comm) {
			fputs(": ", c->out);
			put_esc(c->out, in->comm);
		}
		if (r && isfinite(r->recovered)) {
			char b[64];
			fprintf(c->out, ", recovered %s",
				size_s(c, b, sizeof(b), r->recovered));
		}
		fputs("</text>\n", c->out);
	}
}

/* Steps of the analysed incarnation: a bar from the level before to the
 * level after, at the step's time. */
static void draw_steps(struct ctx *c, const struct panel *p)
{
	const struct step_findings *sf = &c->f->steps;
	for (size_t i = 0; i < sf->n; i++) {
		const struct step *st = &sf->steps[i];
		if (!isfinite(st->before) || !isfinite(st->after))
			continue;
		double x = svg_map(&p->sx, st->time);
		char b1[64], b2[64];
		fprintf(c->out, "<line class=\"step\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"><title>step %s \u2192 %s"
			"</title></line>\n", x, svg_map(&p->sy, st->before), x,
			svg_map(&p->sy, st->after),
			size_s(c, b1, sizeof(b1), st->before),
			size_s(c, b2, sizeof(b2), st->after));
	}
}

/* A labelled horizontal line from x0 to x1 (pixels). */
static void hline(FILE *out, const struct panel *p, const char *cls,
		  double v, double x0, double x1, const char *label_html)
{
	double y = svg_map(&p->sy, v);
	fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", cls, x0, y, x1, y);
	/* Above the line, or under it when that would leave the panel. */
	double ty = y - 4 < p->top + 12 ? y + 14 : y - 4;
	fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">%s</text>\n", x1 - 4, ty, label_html);
}

/* The legend under a plot: swatch classes and (trusted) labels. */
struct legend_item {
	const char *style;         /* inline style of the swatch */
	const char *cls;           /* extra swatch class */
	const char *label;         /* escaped on output */
};

static void legend(FILE *out, const struct legend_item *it, size_t n)
{
	fputs("<p class=\"legend\">", out);
	for (size_t i = 0; i < n; i++) {
		if (!it[i].label)
			continue;
		fprintf(out, "<span><span class=\"sw %s\" style=\"%s\"></span>",
			it[i].cls ? it[i].cls : "", it[i].style);
		put_esc(out, it[i].label);
		fputs("</span>", out);
	}
	fputs("</p>\n", out);
}

static void readout(FILE *out)
{
	fputs("<div class=\"readout\" aria-live=\"polite\"></div>\n", out);
}

/* A Theil-Sen fit y = intercept + slope * x over [x0, x1]: its line
 * (line true), or its 95 % band (line false): the fan of the lines with
 * the interval's slopes through the fit's value at the middle. */
static void slope_fan(FILE *out, const struct panel *p, double x0, double x1,
		      const struct trend_result *tr, bool line)
{
	double xm = (x0 + x1) / 2, ym = tr->intercept + tr->slope * xm;
	double a = svg_map(&p->sx, x0), b = svg_map(&p->sx, x1);
	double m = svg_map(&p->sx, xm);
	if (line) {
		fprintf(out, "<line class=\"slope\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>\n", a,
			svg_map(&p->sy, tr->intercept + tr->slope * x0), b,
			svg_map(&p->sy, tr->intercept + tr->slope * x1));
		return;
	}
	double lo = tr->ci_low, hi = tr->ci_high;
	if (!isfinite(lo) || !isfinite(hi))
		return;
	fprintf(out, "<polygon class=\"band\" points=\"%.1f,%.1f %.1f,%.1f "
		"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"><title>95 %% "
		"interval of the slope</title></polygon>\n",
		a, svg_map(&p->sy, ym + lo * (x0 - xm)), m, svg_map(&p->sy, ym),
		b, svg_map(&p->sy, ym + lo * (x1 - xm)),
		b, svg_map(&p->sy, ym + hi * (x1 - xm)), m, svg_map(&p->sy, ym),
		a, svg_map(&p->sy, ym + hi * (x0 - xm)));
}

/* ---- footprint over time ------------------------------------------------- */

struct level_line {
	const char *cls;
	double v;
	char label[256];           /* HTML, escaped */
};

/* Caps (--cap), the limit, the plateau: those near the data are drawn,
 * the others named above the plot. */
static size_t collect_levels(struct ctx *c, struct level_line *lv,
			     size_t max)
{
	const struct target_findings *f = c->f;
	size_t n = 0;
	char b[64], name[160];
	for (size_t i = 0; c->o && i < c->o->n_caps && n < max; i++) {
		const struct analysis_cap *cap = &c->o->caps[i];
		if (!(cap->bytes > 0))
			continue;
		lv[n].cls = "cap";
		lv[n].v = cap->bytes;
		render_escape_html(name, sizeof(name), cap->name ? cap->name : "cap");
		snprintf(lv[n].label, sizeof(lv[n].label), "%s%s%s %s",
			 strcmp(name, "cap") ? "cap " : "", name,
			 f->plateau.cap_name && cap->name &&
			 !strcmp(cap->name, f->plateau.cap_name) ?
			 " (plateau at it)" : "", size_s(c, b, sizeof(b),
							cap->bytes));
		n++;
	}
	double limit = f->exhaustion.found ? f->exhaustion.limit_bytes :
					     f->concern_limit;
	const struct pool_finding *gp = pools_exhaustion_gpu(f);
	if (gp && n < max) {
		/* A GPU's limit is not one of the footprint: the line is
		 * where the footprint stands when that GPU is full. */
		char nm[200];
		render_escape_html(nm, sizeof(nm), gp->name);
		lv[n].cls = "limit";
		lv[n].v = f->fp_last + (gp->limit_bytes - gp->last);
		snprintf(lv[n].label, sizeof(lv[n].label), "%s full at %s",
			 nm, size_s(c, b, sizeof(b), lv[n].v));
		n++;
		limit = NAN;
	}
	if (isfinite(limit) && limit > 0 && n < max) {
		lv[n].cls = "limit";
		lv[n].v = limit;
		snprintf(lv[n].label, sizeof(lv[n].label), "limit%s%s%s %s",
			 f->exhaustion.found ? " (" : "",
			 f->exhaustion.found ? f->exhaustion.limit_source : "",
			 f->exhaustion.found ? ")" : "",
			 size_s(c, b, sizeof(b), limit));
		n++;
	}
	return n;
}

static void figure_footprint(struct ctx *c)
{
	const struct target_findings *f = c->f;
	const struct series *s = c->s;
	FILE *out = c->out;
	const double h = 340;
	struct panel p = {.top = M_TOP + 14, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	double lo = f->fp_min, hi = f->fp_max;
	struct level_line lv[16];
	size_t nlv = collect_levels(c, lv, ARRAY_SIZE(lv));
	/* Lines within a quarter of the data's span (or 10 % of its level)
	 * widen the axis; farther ones would squash the data. */
	double span = fmax(hi - lo, fabs(hi) * 0.1);
	bool shown[16] = {false};
	for (size_t i = 0; i < nlv; i++) {
		if (lv[i].v >= lo - span * 0.25 &&
		    lv[i].v <= hi + span * 0.25) {
			shown[i] = true;
			lo = fmin(lo, lv[i].v);
			hi = fmax(hi, lv[i].v);
		}
	}
	pad_range(&lo, &hi, false);
	svg_scale_set(&p.sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);

	fputs("<figure class=\"fig-footprint\">\n<figcaption>Footprint over "
	      "time (", out);
	/* Issue 28: say what is plotted, GPU memory included. */
	put_esc(out, c->d->footprint_what ? c->d->footprint_what :
		c->s->comp[COMP_GPU] ? "anon + swap + shmem + device-local "
		"GPU memory" : "anon + swap + shmem");
	fputs(")</figcaption>\n", out);
	svg_open(out, h, "Footprint over time", &p.sx, SVG_AXIS_TIME, NULL);
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-fp", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_TIME, 8, true, "UTC");
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	draw_idle(c, &p);
	/* The slope over the analysed incarnation: the Theil-Sen line
	 * (trend.intercept + trend.slope * t, t in Unix seconds, as
	 * analysis.c fits it); its band under the data, the line over it. */
	bool slope = f->has_trend && isfinite(f->trend.slope);
	if (slope)
		slope_fan(out, &p, f->an_start, f->an_end, &f->trend, false);
	fputs("</g>\n", out);
	draw_restarts(c, &p, true);
	char b[64], lab[300];
	if (f->plateau.found && isfinite(f->plateau.level)) {
		snprintf(lab, sizeof(lab), "plateau %s",
			 size_s(c, b, sizeof(b), f->plateau.level));
		double x0 = svg_map(&p.sx, f->plateau.since);
		double x1 = svg_map(&p.sx, f->an_end);
		if (x1 - x0 < 60)
			x0 = x1 - 60;
		hline(out, &p, "plateau", f->plateau.level, x0, x1, lab);
	}
	double al = f->plateau.approach_level;
	if (f->plateau.approaching && isfinite(al) && al >= lo && al <= hi) {
		snprintf(lab, sizeof(lab), "levels off near %s",
			 size_s(c, b, sizeof(b), f->plateau.approach_level));
		hline(out, &p, "approach", f->plateau.approach_level,
		      svg_map(&p.sx, f->an_start), PLOT_W - M_RIGHT, lab);
	}
	size_t above = 0;
	for (size_t i = 0; i < nlv; i++) {
		if (shown[i])
			hline(out, &p, lv[i].cls, lv[i].v, M_LEFT,
			      PLOT_W - M_RIGHT, lv[i].label);
		else
			above++;
	}
	if (above) {
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">off the scale: ", PLOT_W - M_RIGHT,
			M_TOP + 6);
		size_t k = 0;
		for (size_t i = 0; i < nlv; i++)
			if (!shown[i])
				fprintf(out, "%s%s %s", k++ ? "; " : "",
					lv[i].label,
					lv[i].v > hi ? "\u2191" : "\u2193");
		fputs("</text>\n", out);
	}
	panel_group(out, &p, clip);
	draw_over_time(c, &p, s->footprint,
		       "class=\"fp\" data-k=\"footprint\"");
	fputs("</g>\n", out);
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	if (slope)
		slope_fan(out, &p, f->an_start, f->an_end, &f->trend, true);
	draw_steps(c, &p);
	fputs("</g>\n", out);
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_BLUE, "sw-line", "footprint (per pixel "
		 "column: first, min, max, last sample)"},
		{"background:#00000017", NULL, c->f->idle.n ? "idle window" :
		 NULL},
		{"border-color:" C_VERMILLION, "sw-dash", f->has_trend ?
		 "slope (Theil-Sen), analysed incarnation" : NULL},
		{"background:" C_VERMILLION "33", NULL, f->has_trend ?
		 "95 % interval of the slope" : NULL},
		{"border-color:#000", "sw-dash", s->n_incs > 1 ? "restart" :
		 NULL},
		{"border-color:" C_GREEN, "sw-dash", f->plateau.found ?
		 "plateau level" : NULL},
		{"border-color:" C_GREEN, "sw-dash", f->plateau.approaching ?
		 "level it heads for" : NULL},
		{"border-color:#000", "sw-line", f->steps.n ?
		 "step (level before to after)" : NULL},
		{"border-color:" C_PURPLE, "sw-dash", c->o && c->o->n_caps ?
		 "cap (--cap)" : NULL},
		{"border-color:#000", "sw-dash", nlv > (c->o ? c->o->n_caps :
		 0) ? "limit" : NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- requests and connections on the same time axis ---------------------- */

static void minmax(const double *v, size_t n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
	if (*lo > *hi)
		*lo = *hi = NAN;
}

static void figure_work(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	bool req = c->work != NULL, conn = s->connections != NULL;
	if (!req && !conn)
		return;
	const double ph_req = 130, ph_conn = 80, gap = 14;
	double h = M_TOP + (req ? ph_req : 0) + (conn ? ph_conn : 0) +
		   (req && conn ? gap : 0) + M_BOTTOM;
	struct panel pr = {0}, pc = {0};
	double top = M_TOP;
	struct svg_scale sx;
	svg_scale_set(&sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	fputs(c->work_gauge ? "<figure class=\"fig-work\">\n<figcaption>"
	      "Work: the requests column as read (not a counter, so not "
	      "summed) and connections</figcaption>\n" :
	      "<figure class=\"fig-work\">\n<figcaption>Work: requests "
	      "(cumulative, counter resets taken out) and connections"
	      "</figcaption>\n", out);
	svg_open(out, h, "Requests and connections over time", &sx,
		 SVG_AXIS_TIME, NULL);
	char clip[32];
	if (req) {
		pr.top = top;
		pr.bottom = top + ph_req;
		pr.sx = sx;
		pr.ykind = SVG_AXIS_COUNT;
		double lo = 0, hi = c->work_total > 0 ? c->work_total : 1;
		pad_range(&lo, &hi, true);
		svg_scale_set(&pr.sy, lo, hi, pr.bottom, pr.top);
		snprintf(clip, sizeof(clip), "c%zu-req", c->ti);
		clip_def(out, clip, &pr);
		y_axis(out, &pr, lo, hi, 4);
		x_axis(out, &pr, SVG_AXIS_TIME, 8, !conn, "UTC");
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		draw_idle(c, &pr);
		fputs("</g>\n", out);
		draw_restarts(c, &pr, false);
		panel_group(out, &pr, clip);
		draw_over_time(c, &pr, c->work,
			       "class=\"req\" data-k=\"requests\"");
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">"
			"requests</text>\n", M_LEFT + 6, pr.top + 14);
		frame(out, &pr);
		top = pr.bottom + gap;
	}
	if (conn) {
		pc.top = top;
		pc.bottom = top + ph_conn;
		pc.sx = sx;
		pc.ykind = SVG_AXIS_COUNT;
		double lo, hi;
		minmax(s->connections, s->n, &lo, &hi);
		lo = 0;
		if (!isfinite(hi) || hi < 1)
			hi = 1;
		pad_range(&lo, &hi, true);
		svg_scale_set(&pc.sy, lo, hi, pc.bottom, pc.top);
		snprintf(clip, sizeof(clip), "c%zu-conn", c->ti);
		clip_def(out, clip, &pc);
		y_axis(out, &pc, lo, hi, 3);
		x_axis(out, &pc, SVG_AXIS_TIME, 8, true, "UTC");
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		draw_idle(c, &pc);
		fputs("</g>\n", out);
		draw_restarts(c, &pc, false);
		panel_group(out, &pc, clip);
		draw_over_time(c, &pc, s->connections,
			       "class=\"conn\" data-k=\"connections\"");
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">"
			"connections</text>\n", M_LEFT + 6, pc.top + 14);
		frame(out, &pc);
	}
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_ORANGE, "sw-line", !req ? NULL :
		 c->work_gauge ? "requests column, as read" :
		 "requests, cumulative"},
		{"border-color:" C_SKY, "sw-line", conn ? "connections" :
		 NULL},
		{"background:#00000017", NULL, c->f->idle.n ? "idle window" :
		 NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- footprint against cumulative requests ------------------------------- */

static void figure_per_request(struct ctx *c)
{
	const struct series *s = c->s;
	const struct target_findings *f = c->f;
	const struct per_request_finding *pr = &f->per_request;
	FILE *out = c->out;
	if (!c->work || c->work_gauge)  /* no count of requests to plot */
		return;
	if (!(c->work_total > 0)) {
		fputs("<p class=\"muted\">Footprint against requests: the "
		      "work counter did not increase, so there is nothing to "
		      "plot.</p>\n", out);
		return;
	}
	const double h = 300;
	struct panel p = {.top = M_TOP, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	double lo = f->fp_min, hi = f->fp_max;
	pad_range(&lo, &hi, false);
	svg_scale_set(&p.sx, 0, c->work_total, M_LEFT, PLOT_W - M_RIGHT);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
	fputs("<figure class=\"fig-per-request\">\n<figcaption>Footprint "
	      "against cumulative requests</figcaption>\n", out);
	svg_open(out, h, "Footprint against cumulative requests", &p.sx,
		 SVG_AXIS_COUNT, "requests");
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-pr", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_COUNT, 8, true, "requests");
	/* The per-request line over the analysed incarnation's requests
	 * (x as analysis_work.c fits it: the reset-free cumulative count). */
	double w0 = INFINITY, w1 = -INFINITY;
	if (pr->found && isfinite(pr->trend.slope))
		for (size_t i = 0; i < s->n; i++)
			if (inc_of(s, i) == f->analysed_inc &&
			    isfinite(c->work[i]) && isfinite(s->footprint[i])) {
				w0 = fmin(w0, c->work[i]);
				w1 = fmax(w1, c->work[i]);
			}
	bool line = w0 < w1;
	if (line) {
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		slope_fan(out, &p, w0, w1, &pr->trend, false);
		fputs("</g>\n", out);
	}
	panel_group(out, &p, clip);
	struct svg_line l;
	svg_line_begin(&l, out, &p.sx, &p.sy,
		       "class=\"fp\" data-k=\"footprint\"");
	for (size_t i = 0; i < s->n; i++) {
		if (i && inc_of(s, i) != inc_of(s, i - 1))
			svg_line_break(&l);
		svg_line_add(&l, c->work[i], s->footprint[i]);
	}
	svg_line_end(&l);
	fputs("</g>\n", out);
	if (line) {
		fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
		slope_fan(out, &p, w0, w1, &pr->trend, true);
		fputs("</g>\n", out);
	}
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[] = {
		{"border-color:" C_BLUE, "sw-line", "footprint (in time order; "
		 "vertical runs: memory moved while no request completed)"},
		{"border-color:" C_VERMILLION, "sw-dash", pr->found ?
		 "per-request slope, analysed incarnation" : NULL},
		{"background:" C_VERMILLION "33", NULL, pr->found ?
		 "95 % interval" : NULL},
	};
	legend(out, it, ARRAY_SIZE(it));
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- components stacked over time ---------------------------------------- */

static double layer_value(const struct series *s, size_t k, size_t i)
{
	const double *v = s->comp[stack_layers[k].comp];
	return v && isfinite(v[i]) && v[i] > 0 ? v[i] : 0;
}

static bool layer_known(const struct series *s, size_t i)
{
	for (size_t k = 0; k < N_LAYERS; k++) {
		const double *v = s->comp[stack_layers[k].comp];
		if (v && isfinite(v[i]))
			return true;
	}
	return false;
}

/* Per pixel column the sample with the largest total is drawn (peaks
 * survive; each band is that sample's component). Bands break where a
 * line would. */
static void figure_components(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	bool any = false;
	for (size_t k = 0; k < N_LAYERS; k++)
		any = any || s->comp[stack_layers[k].comp];
	if (!any) {
		fputs("<p class=\"muted\">Components: not recorded in this "
		      "source.</p>\n", out);
		return;
	}
	const double h = 300;
	struct panel p = {.top = M_TOP, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	svg_scale_set(&p.sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	/* Chosen samples: at most one per column. */
	size_t cols = (size_t)(PLOT_W - M_RIGHT - M_LEFT) + 4;
	size_t *pick = xmalloc(cols * sizeof(size_t));
	bool *brk = xmalloc(cols * sizeof(bool));
	size_t np = 0;
	long col = LONG_MIN;
	double best = -1, hi = 0;
	bool pending = false;
	for (size_t i = 0; i < s->n; i++) {
		if (i && (inc_of(s, i) != inc_of(s, i - 1) ||
			  s->t[i] - s->t[i - 1] > c->gap_s))
			pending = true;
		if (!isfinite(s->t[i]) || !layer_known(s, i)) {
			pending = true;
			continue;
		}
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, i);
		long cc = (long)floor(svg_map(&p.sx, s->t[i]));
		if (np && cc == col) {
			if (tot > best) {
				best = tot;
				pick[np - 1] = i;
			}
			pending = false;
			continue;
		}
		if (np == cols)
			break;  /* cannot happen: columns are bounded */
		brk[np] = np && pending && cc > col + 1;
		pending = false;
		pick[np++] = i;
		col = cc;
		best = tot;
	}
	for (size_t j = 0; j < np; j++) {
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, pick[j]);
		hi = fmax(hi, tot);
	}
	double lo = 0;
	pad_range(&lo, &hi, true);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
	fputs("<figure class=\"fig-components\">\n<figcaption>Components "
	      "stacked over time</figcaption>\n", out);
	svg_open(out, h, "Memory components stacked over time", &p.sx,
		 SVG_AXIS_TIME, NULL);
	char clip[32];
	snprintf(clip, sizeof(clip), "c%zu-comp", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_TIME, 8, true, "UTC");
	fprintf(out, "<g clip-path=\"url(#%s)\">\n", clip);
	/* Each run of columns without a break: one polygon per layer,
	 * upper edge left to right, lower edge back. */
	for (size_t a = 0; a < np;) {
		size_t b = a + 1;
		while (b < np && !brk[b])
			b++;
		for (size_t k = 0; k < N_LAYERS; k++) {
			if (!s->comp[stack_layers[k].comp])
				continue;
			fprintf(out, "<polygon fill=\"%s\" "
				"fill-opacity=\"0.85\" points=\"",
				stack_layers[k].colour);
			for (int pass = 0; pass < 2; pass++) {
				for (size_t jj = 0; jj < b - a; jj++) {
					size_t j = pass ? b - 1 - jj : a + jj;
					size_t i = pick[j];
					double cum = 0;
					size_t top = pass ? k : k + 1;
					for (size_t q = 0; q < top; q++)
						cum += layer_value(s, q, i);
					double x = svg_map(&p.sx, s->t[i]);
					if (b - a == 1)
						x += pass ? -0.5 : 0.5;
					fprintf(out, "%s%.1f,%.1f",
						pass || jj ? " " : "", x,
						svg_map(&p.sy, cum));
				}
			}
			fputs("\"/>\n", out);
		}
		a = b;
	}
	fputs("</g>\n", out);
	draw_restarts(c, &p, false);
	/* The total as a line, for the readout. */
	panel_group(out, &p, clip);
	struct svg_line l;
	svg_line_begin(&l, out, &p.sx, &p.sy,
		       "class=\"total\" data-k=\"total\"");
	for (size_t j = 0; j < np; j++) {
		if (brk[j])
			svg_line_break(&l);
		double tot = 0;
		for (size_t k = 0; k < N_LAYERS; k++)
			tot += layer_value(s, k, pick[j]);
		svg_line_add(&l, s->t[pick[j]], tot);
	}
	svg_line_end(&l);
	fputs("</g>\n", out);
	frame(out, &p);
	svg_close(out, h);
	struct legend_item it[N_LAYERS];
	char styles[N_LAYERS][48];
	for (size_t k = 0; k < N_LAYERS; k++) {
		snprintf(styles[k], sizeof(styles[k]), "background:%s",
			 stack_layers[k].colour);
		it[k].style = styles[k];
		it[k].cls = NULL;
		it[k].label = s->comp[stack_layers[k].comp] ?
			      stack_layers[k].label : NULL;
	}
	legend(out, it, N_LAYERS);
	fputs("<p class=\"muted legend\">Per pixel column, the sample with "
	      "the largest total is drawn.</p>\n", out);
	readout(out);
	fputs("</figure>\n", out);
	free(pick);
	free(brk);
}

/* ---- gauges -------------------------------------------------------------- */

static void figure_gauges(struct ctx *c)
{
	const struct series *s = c->s;
	FILE *out = c->out;
	size_t ng = s->n_gauges < GAUGES_MAX ? s->n_gauges : GAUGES_MAX;
	if (!ng)
		return;
	const double ph = 90, gap = 12;
	double h = M_TOP + ng * ph + (ng - 1) * gap + M_BOTTOM;
	struct svg_scale sx;
	svg_scale_set(&sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	fputs("<figure class=\"fig-gauges\">\n<figcaption>Gauges (as "
	      "recorded; each on its own scale; bytes where the name says "
	      "so)</figcaption>\n", out);
	svg_open(out, h, "Gauges over time", &sx, SVG_AXIS_TIME, NULL);
	double top = M_TOP;
	for (size_t g = 0; g < ng; g++) {
		const struct series_gauge *sg = &s->gauges[g];
		/* Bytes by the attribution's name rule: a bytes axis. */
		bool bytes = attribution_gauge_is_bytes(sg->name);
		struct panel p = {.top = top, .bottom = top + ph, .sx = sx,
				  .ykind = bytes ? c->bytes_kind :
					   SVG_AXIS_NUMBER};
		double lo, hi;
		minmax(sg->v, s->n, &lo, &hi);
		pad_range(&lo, &hi, false);
		svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
		char clip[40];
		snprintf(clip, sizeof(clip), "c%zu-g%zu", c->ti, g);
		clip_def(out, clip, &p);
		y_axis(out, &p, lo, hi, 3);
		x_axis(out, &p, SVG_AXIS_TIME, 8, g + 1 == ng, "UTC");
		draw_restarts(c, &p, false);
		panel_group(out, &p, clip);
		/* data-k carries the (escaped) name for the readout. */
		char attrs[600], name[400];
		render_escape_html(name, sizeof(name), sg->name);
		snprintf(attrs, sizeof(attrs), "class=\"gauge\" data-k=\"%s\"",
			 name);
		draw_over_time(c, &p, sg->v, attrs);
		fputs("</g>\n", out);
		fprintf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">%s"
			"</text>\n", M_LEFT + 6, p.top + 14, name);
		frame(out, &p);
		top += ph + gap;
	}
	svg_close(out, h);
	if (s->n_gauges > ng)
		fprintf(out, "<p class=\"muted\">%zu more gauges are not "
			"plotted (--json has the findings).</p>\n",
			s->n_gauges - ng);
	readout(out);
	fputs("</figure>\n", out);
}

/* ---- allocation sites over the footprint (record --sites) --------------- */

void render_html_sites_plot(struct ctx *c, size_t n_sites)
{
	static const char *const colours[] = {C_VERMILLION, C_ORANGE,
					      C_PURPLE, C_GREEN};
	const struct series *s = c->s;
	const struct sites_finding *x = &c->f->sites;
	FILE *out = c->out;
	if (n_sites > ARRAY_SIZE(colours))
		n_sites = ARRAY_SIZE(colours);
	if (!n_sites || s->n < 2)
		return;
	/* each site's estimate at the target's own times; NAN (a break)
	 * in other incarnations: a site belongs to one image, and 0 there
	 * would read as a site emptied */
	double *v = xmalloc(n_sites * s->n * sizeof(double));
	double hi = c->f->fp_max;
	for (size_t r = 0; r < n_sites; r++) {
		const struct series_site *site = &s->sites[x->ranked[r].site];
		for (size_t i = 0; i < s->n; i++) {
			double e = inc_of(s, i) == site->inc ?
				   series_site_live_at(site, s->t[i]) : NAN;
			v[r * s->n + i] = e;
			if (isfinite(e))
				hi = fmax(hi, e);
		}
	}
	const double h = 300;
	struct panel p = {.top = M_TOP, .bottom = h - M_BOTTOM,
			  .ykind = c->bytes_kind};
	double lo = 0;
	pad_range(&lo, &hi, true);
	svg_scale_set(&p.sx, c->t_lo, c->t_hi, M_LEFT, PLOT_W - M_RIGHT);
	svg_scale_set(&p.sy, lo, hi, p.bottom, p.top);
	fputs("<figure class=\"fig-sites\">\n<figcaption>The top sites' "
	      "live bytes (estimated from the samples) over the "
	      "footprint</figcaption>\n", out);
	svg_open(out, h, "Allocation sites over time", &p.sx, SVG_AXIS_TIME,
		 NULL);
	char clip[40];
	snprintf(clip, sizeof(clip), "c%zu-sites", c->ti);
	clip_def(out, clip, &p);
	y_axis(out, &p, lo, hi, 6);
	x_axis(out, &p, SVG_AXIS_TIME, 8, true, "UTC");
	draw_restarts(c, &p, false);
	panel_group(out, &p, clip);
	draw_over_time(c, &p, s->footprint,
		       "class=\"fp\" data-k=\"footprint\"");
	struct legend_item items[1 + ARRAY_SIZE(colours)] = {
		{"border-color:" C_BLUE, "sw-line", "footprint"}};
	char labels[ARRAY_SIZE(colours)][300];
	char styles[ARRAY_SIZE(colours)][40];
	for (size_t r = 0; r < n_sites; r++) {
		char label[256], attrs[600], key[300];
		render_site_label(label, sizeof(label), s->sites, s->n_sites,
				  x->ranked[r].site);
		snprintf(labels[r], sizeof(labels[r]), "%zu. %s", r + 1, label);
		render_escape_html(key, sizeof(key), labels[r]);
		snprintf(attrs, sizeof(attrs), "class=\"site\" stroke=\"%s\" "
			 "data-k=\"%s\"", colours[r], key);
		draw_over_time(c, &p, v + r * s->n, attrs);
		snprintf(styles[r], sizeof(styles[r]), "border-color:%s",
			 colours[r]);
		items[1 + r] = (struct legend_item){styles[r], "sw-line",
						   labels[r]};
	}
	fputs("</g>\n", out);
	frame(out, &p);
	svg_close(out, h);
	legend(out, items, 1 + n_sites);
	readout(out);
	fputs("</figure>\n", out);
	free(v);
}

void render_html_figures(struct ctx *c)
{
	figure_footprint(c);
	figure_work(c);
	figure_per_request(c);
	figure_components(c);
	figure_gauges(c);
}
