/*
 * render_plot.c - small text plots for a terminal (render.h): the
 * footprint over time as a braille plot (U+2800 block, 2 x 4 dots per
 * character cell) or, without UTF-8, as ASCII marks (1 x 2 per cell:
 * "." lower half, "'" upper half, ":" both), and a one-line sparkline.
 *
 * What it does: places every finite footprint by its time on the x axis
 * (not by its index: gaps in the recording stay gaps), keeps each dot
 * column's minimum and maximum so a single spike among 10^7 flat samples
 * still shows, joins consecutive samples of one incarnation with a line,
 * marks restarts (a change of incarnation) with "R" under the axis, and
 * labels the y axis in human units (units.h) and the x axis with the UTC
 * start and end. What it does not do: compute anything a verdict depends
 * on (the range comes from the findings when given), choose colours, or
 * decide whether the terminal can show UTF-8 (the caller says so).
 *
 * Bounds on work: one O(n) pass over the series plus O(width x height)
 * for the grid; joining samples adds at most one step per dot column over
 * the whole pass (times never decrease). Memory is O(width), never O(n).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "units.h"

/* Dots per cell. */
#define BRAILLE_W 2
#define BRAILLE_H 4
#define ASCII_W 1
#define ASCII_H 2
/* Smallest plot area worth drawing (cells). */
#define PLOT_MIN_COLS 8
#define PLOT_MIN_ROWS 2
/* Widest plot (cells): bounds the per-column scratch arrays. */
#define PLOT_MAX_COLS 4096

/* Braille dot bits by (column in cell, row in cell from the top). */
static const unsigned char braille_bit[BRAILLE_W][BRAILLE_H] = {
	{0x01, 0x02, 0x04, 0x40},
	{0x08, 0x10, 0x20, 0x80},
};

/* Write U+2800 + bits as UTF-8. */
static void put_braille(FILE *out, unsigned bits)
{
	unsigned cp = 0x2800 + bits;
	fputc(0xE0 | (cp >> 12), out);
	fputc(0x80 | ((cp >> 6) & 0x3F), out);
	fputc(0x80 | (cp & 0x3F), out);
}

/* One dot column: the lowest and highest dot row used, -1 when empty. */
struct dot_col {
	int lo, hi;
};

static void dot_add(struct dot_col *c, int y)
{
	if (c->lo < 0 || y < c->lo)
		c->lo = y;
	if (c->hi < 0 || y > c->hi)
		c->hi = y;
}

/* The grid being filled: dimensions and the value -> dot mapping. */
struct plot_grid {
	struct dot_col *cols;      /* x_dots of them */
	bool *restart;             /* per cell column */
	int x_dots, y_dots, sub_w;
	double t0, t_span, lo, v_span;
};

static int grid_row(const struct plot_grid *g, double v)
{
	double y = (v - g->lo) / g->v_span * (g->y_dots - 1);
	long r = lround(y);
	if (r < 0)
		r = 0;
	if (r > g->y_dots - 1)
		r = g->y_dots - 1;
	return (int)r;
}

static int grid_col(const struct plot_grid *g, double t)
{
	if (!(g->t_span > 0))
		return 0;
	double x = (t - g->t0) / g->t_span * g->x_dots;
	if (!(x >= 0))
		return 0;
	if (x >= g->x_dots)
		return g->x_dots - 1;
	return (int)x;
}

/* Join (x0, y0) to (x1, y1), x0 < x1, in dot units (y not rounded): each
 * dot column k gets the stretch of the line from k - 1/2 to k + 1/2, so
 * gentle slopes stay one dot thick and steep ones stay unbroken. */
static void grid_join(struct plot_grid *g, int x0, double y0, int x1,
		      double y1)
{
	double dy = (y1 - y0) / (x1 - x0);
	for (int k = x0; k <= x1; k++) {
		double a = k == x0 ? y0 : y0 + dy * (k - 0.5 - x0);
		double b = k == x1 ? y1 : y0 + dy * (k + 0.5 - x0);
		long ra = lround(a), rb = lround(b);
		if (ra < 0) ra = 0;
		if (rb < 0) rb = 0;
		if (ra > g->y_dots - 1) ra = g->y_dots - 1;
		if (rb > g->y_dots - 1) rb = g->y_dots - 1;
		dot_add(&g->cols[k], (int)ra);
		dot_add(&g->cols[k], (int)rb);
	}
}

/* The O(n) pass: every finite footprint into its dot column. */
static void grid_fill(struct plot_grid *g, const struct series *s)
{
	bool have_prev = false;
	int px = 0;
	double py = 0;
	uint32_t pinc = 0;
	double scale = (g->y_dots - 1) / g->v_span;
	for (size_t i = 0; i < s->n; i++) {
		double v = s->footprint[i];
		if (!isfinite(v))
			continue;
		int x = grid_col(g, s->t[i]);
		double y = (v - g->lo) * scale;
		uint32_t inc = s->inc && s->n_incs ? s->inc[i] : 0;
		if (have_prev && inc != pinc) {
			g->restart[x / g->sub_w] = true;
			dot_add(&g->cols[x], grid_row(g, v));
		} else if (have_prev && x > px) {
			grid_join(g, px, py, x, y);
		} else {
			dot_add(&g->cols[x], grid_row(g, v));
		}
		have_prev = true;
		px = x;
		py = y;
		pinc = inc;
	}
}

/* The cell at cell row r (0 = top) and cell column c. */
static void put_cell(FILE *out, const struct plot_grid *g, int r, int c,
		     bool utf8)
{
	int sub_h = utf8 ? BRAILLE_H : ASCII_H;
	unsigned bits = 0;
	for (int dx = 0; dx < g->sub_w; dx++) {
		const struct dot_col *col = &g->cols[c * g->sub_w + dx];
		if (col->lo < 0)
			continue;
		for (int dy = 0; dy < sub_h; dy++) {
			int yd = g->y_dots - 1 - (r * sub_h + dy);
			if (yd >= col->lo && yd <= col->hi)
				bits |= utf8 ? braille_bit[dx][dy] :
					(1u << dy);
		}
	}
	if (!bits)
		fputc(' ', out);
	else if (utf8)
		put_braille(out, bits);
	else
		fputc(bits == 3 ? ':' : bits == 1 ? '\'' : '.', out);
}

/* Last column of row r (cell units) that is not blank, or -1. */
static int row_last_used(const struct plot_grid *g, int r, int n_cols,
			 bool utf8)
{
	int sub_h = utf8 ? BRAILLE_H : ASCII_H;
	int top = g->y_dots - 1 - r * sub_h, bottom = top - sub_h + 1;
	for (int c = n_cols - 1; c >= 0; c--)
		for (int dx = 0; dx < g->sub_w; dx++) {
			const struct dot_col *col =
				&g->cols[c * g->sub_w + dx];
			if (col->lo >= 0 && col->lo <= top &&
			    col->hi >= bottom)
				return c;
		}
	return -1;
}

static void put_repeat(FILE *out, const char *s, int n)
{
	for (int i = 0; i < n; i++)
		fputs(s, out);
}

/* The x axis' labels: start at the left, end at the right, the span in
 * between when there is room; times of day only when the full dates do
 * not fit. */
static void put_time_line(FILE *out, int gutter, int n_cols, double t0,
			  double t1, bool restarts)
{
	char a[40], b[40], span[48], legend[24];
	units_format_time(a, sizeof(a), t0);
	units_format_time(b, sizeof(b), t1);
	char dur[32];
	units_format_duration(dur, sizeof(dur), t1 - t0);
	snprintf(span, sizeof(span), "(%s)", dur);
	snprintf(legend, sizeof(legend), "%s", restarts ? "R restart" : "");
	int la = (int)strlen(a);
	if (2 * la + 1 > n_cols && la > 11) {
		/* "2026-05-01T02:04:00Z" -> "02:04:00Z" */
		memmove(a, a + 11, strlen(a + 11) + 1);
		memmove(b, b + 11, strlen(b + 11) + 1);
		la = (int)strlen(a);
	}
	int lb = (int)strlen(b);
	put_repeat(out, " ", gutter);
	if (la + 1 + lb > n_cols) {
		fputc('\n', out);
		return;
	}
	fputs(a, out);
	int gap = n_cols - la - lb;
	int ls = (int)strlen(span), ll = (int)strlen(legend);
	if (ll && ls + ll + 6 <= gap) {
		int left = (gap - ls - ll - 2) / 2;
		put_repeat(out, " ", left);
		fprintf(out, "%s  %s", span, legend);
		put_repeat(out, " ", gap - left - ls - ll - 2);
	} else if (ls + 4 <= gap) {
		int left = (gap - ls) / 2;
		put_repeat(out, " ", left);
		fputs(span, out);
		put_repeat(out, " ", gap - left - ls);
	} else {
		put_repeat(out, " ", gap);
	}
	fprintf(out, "%s\n", b);
}

int render_plot_footprint(FILE *out, const struct series *s,
			  const struct target_findings *f, int width,
			  int height, bool utf8)
{
	if (!s || !s->n || !s->footprint)
		return 0;
	/* The range: from the findings when given (same series), else one
	 * more pass. */
	double lo = NAN, hi = NAN, t0 = NAN, t1 = NAN;
	if (f && f->samples && f->series == s) {
		lo = f->fp_min;
		hi = f->fp_max;
		t0 = f->start;
		t1 = f->end;
	} else {
		for (size_t i = 0; i < s->n; i++) {
			double v = s->footprint[i];
			if (!isfinite(v))
				continue;
			if (isnan(lo)) {
				lo = hi = v;
				t0 = s->t[i];
			}
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			t1 = s->t[i];
		}
	}
	if (!isfinite(lo) || !isfinite(hi) || !isfinite(t0) || !isfinite(t1))
		return 0;
	bool decimal = f && f->decimal_units;
	if (!(hi > lo)) {
		/* Flat: centre the line in a band of a step either side. */
		double d = fmax(fmax(f && f->resolution > 0 ? f->resolution :
				     0, fabs(lo) * 0.01), 1);
		lo -= d;
		hi += d;
	}

	int rows = height - 2;     /* the axis and the time labels */
	char top[32], mid[32], bottom[32];
	units_format_size_in(top, sizeof(top), hi, decimal);
	units_format_size_in(bottom, sizeof(bottom), lo, decimal);
	int mid_row = rows >= 5 ? rows / 2 : -1;
	int sub_h = utf8 ? BRAILLE_H : ASCII_H;
	int sub_w = utf8 ? BRAILLE_W : ASCII_W;
	if (mid_row >= 0) {
		/* The value at the middle of that cell row. */
		int y_dots = rows * sub_h;
		double yd = y_dots - 1 - (mid_row * sub_h + (sub_h - 1) / 2.0);
		units_format_size_in(mid, sizeof(mid),
				     lo + yd / (y_dots - 1) * (hi - lo),
				     decimal);
	} else {
		mid[0] = '\0';
	}
	int label_w = (int)strlen(top);
	if ((int)strlen(bottom) > label_w)
		label_w = (int)strlen(bottom);
	if ((int)strlen(mid) > label_w)
		label_w = (int)strlen(mid);
	int gutter = label_w + 2;  /* label, space, axis */
	int n_cols = width - gutter;
	if (n_cols > PLOT_MAX_COLS)
		n_cols = PLOT_MAX_COLS;
	if (rows < PLOT_MIN_ROWS || n_cols < PLOT_MIN_COLS)
		return 0;

	struct plot_grid g = {
		.x_dots = n_cols * sub_w,
		.y_dots = rows * sub_h,
		.sub_w = sub_w,
		.t0 = t0,
		.t_span = t1 - t0,
		.lo = lo,
		.v_span = hi - lo,
	};
	g.cols = xmalloc((size_t)g.x_dots * sizeof(*g.cols));
	for (int i = 0; i < g.x_dots; i++)
		g.cols[i] = (struct dot_col){-1, -1};
	g.restart = xcalloc((size_t)n_cols, sizeof(*g.restart));
	grid_fill(&g, s);

	bool any_restart = false;
	for (int c = 0; c < n_cols; c++)
		any_restart |= g.restart[c];
	for (int r = 0; r < rows; r++) {
		const char *label = r == 0 ? top : r == rows - 1 ? bottom :
				    r == mid_row ? mid : "";
		fprintf(out, "%*s ", label_w, label);
		if (utf8)
			fputs(*label ? "\u2524" : "\u2502", out);  /* ┤ │ */
		else
			fputc(*label ? '+' : '|', out);
		int last = row_last_used(&g, r, n_cols, utf8);
		for (int c = 0; c <= last; c++)
			put_cell(out, &g, r, c, utf8);
		fputc('\n', out);
	}
	put_repeat(out, " ", label_w + 1);
	fputs(utf8 ? "\u2514" : "+", out);  /* └ */
	for (int c = 0; c < n_cols; c++)
		fputs(g.restart[c] ? "R" : utf8 ? "\u2500" : "-", out); /* ─ */
	fputc('\n', out);
	put_time_line(out, gutter, n_cols, t0, t1, any_restart);
	free(g.cols);
	free(g.restart);
	return ferror(out) ? -1 : 0;
}

char *render_sparkline(char *buf, size_t n, const double *v, size_t count,
		       bool utf8)
{
	static const char *const bars[8] = {
		"\u2581", "\u2582", "\u2583", "\u2584",
		"\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[8] = {'_', '.', '-', ':', '=', '+', '*', '#'};
	if (!buf || !n)
		return buf;
	buf[0] = '\0';
	size_t per = utf8 ? 3 : 1;
	size_t fit = (n - 1) / per;
	size_t k = count < fit ? count : fit;
	if (!v)
		k = 0;
	const double *w = v ? v + (count - k) : NULL;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < k; i++)
		if (isfinite(w[i])) {
			lo = fmin(lo, w[i]);
			hi = fmax(hi, w[i]);
		}
	size_t at = 0;
	for (size_t i = 0; i < k; i++) {
		int level;
		if (!isfinite(w[i]))
			level = -1;
		else if (!(hi > lo))
			level = 3;  /* flat: the middle bar */
		else {
			level = (int)floor((w[i] - lo) / (hi - lo) * 8);
			if (level > 7)
				level = 7;
			if (level < 0)
				level = 0;
		}
		if (level < 0) {
			buf[at++] = ' ';
		} else if (utf8) {
			memcpy(buf + at, bars[level], 3);
			at += 3;
		} else {
			buf[at++] = ascii[level];
		}
	}
	buf[at] = '\0';
	return buf;
}
