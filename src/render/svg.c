/*
 * svg.c - scales, ticks and per-pixel-column lines for the HTML report
 * (svg.h). Formatting only: no I/O but the caller's stream, no process-
 * controlled text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "svg.h"
#include "units.h"

void svg_scale_set(struct svg_scale *s, double d0, double d1, double p0,
		   double p1)
{
	s->d0 = d0;
	s->d1 = d1;
	s->p0 = p0;
	s->p1 = p1;
}

double svg_map(const struct svg_scale *s, double v)
{
	if (!(s->d1 != s->d0))
		return (s->p0 + s->p1) / 2;
	return s->p0 + (v - s->d0) / (s->d1 - s->d0) * (s->p1 - s->p0);
}

double svg_nice_step(double raw)
{
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double e = floor(log10(raw));
	double p = pow(10, e), f = raw / p;
	/* A little slack: 2.0000001 is a 2. */
	double nice = f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 :
		      f <= 5 + 1e-9 ? 5 : 10;
	return nice * p;
}

/* The 1-2-5 step nearest to raw (on a log scale, roughly): about as many
 * ticks as asked for, rather than at most that many. */
static double nearest_step(double raw)
{
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double e = floor(log10(raw));
	double p = pow(10, e), f = raw / p;
	double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	return nice * p;
}

/* Decimals needed to print multiples of step exactly enough (step a 1-2-5
 * multiple of a power of ten). */
static int decimals_for(double step)
{
	if (!(step > 0))
		return 0;
	int d = (int)-floor(log10(step) + 1e-9);
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static const char *const binary_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
static const char *const decimal_units[] = {"B", "kB", "MB", "GB", "TB"};

static void ticks_bytes(struct svg_ticks *t, double lo, double hi,
			int target, bool decimal)
{
	const char *const *names = decimal ? decimal_units : binary_units;
	double base = decimal ? 1000 : 1024;
	double mag = fmax(fabs(lo), fabs(hi)), raw = (hi - lo) / target;
	int u = 0;
	while (u < 4 && mag >= pow(base, u + 1))
		u++;
	double unit, step;
	for (;;) {
		unit = pow(base, u);
		step = nearest_step(raw / unit) * unit;
		/* More than two decimals of the large unit: use the next
		 * smaller one ("1201 MiB" rather than "1.173 GiB"). */
		if (step / unit < 0.01 - 1e-12 && u > 0) {
			u--;
			continue;
		}
		break;
	}
	if (step < 1)
		step = 1;  /* no fractions of a byte */
	t->step = step;
	int dec = decimals_for(step / unit);
	for (double v = ceil(lo / step - 1e-9) * step;
	     v <= hi + step * 1e-9 && t->n < SVG_MAX_TICKS; v += step) {
		double shown = v / unit;
		if (fabs(shown) < 1e-12)
			shown = 0;
		t->v[t->n] = v;
		if (shown == 0)  /* "0", not "0.0 GiB" */
			snprintf(t->label[t->n], sizeof(t->label[0]), "0");
		else
			snprintf(t->label[t->n], sizeof(t->label[0]), "%.*f %s",
				 dec, shown, names[u]);
		t->n++;
	}
}

/* Counts: "12,345" below a million, else one suffix for the whole axis
 * (the largest value's: "0.5M", "1.0M", "1.5M"). */
static void ticks_count(struct svg_ticks *t, double lo, double hi,
			int target, bool integer)
{
	static const struct {
		double unit;
		const char *suffix;
	} big[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}};
	double step = nearest_step((hi - lo) / target);
	if (integer && step < 1)
		step = 1;
	t->step = step;
	double mag = fmax(fabs(lo), fabs(hi)), unit = 1;
	const char *suffix = "";
	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		if (mag >= big[i].unit) {
			unit = big[i].unit;
			suffix = big[i].suffix;
			break;
		}
	int dec = decimals_for(step / unit);
	for (double v = ceil(lo / step - 1e-9) * step;
	     v <= hi + step * 1e-9 && t->n < SVG_MAX_TICKS; v += step) {
		double shown = fabs(v) < step * 1e-9 ? 0 : v;
		char *l = t->label[t->n];
		t->v[t->n] = shown;
		if (unit == 1 && step >= 1)
			units_format_count(l, sizeof(t->label[0]), shown);
		else
			snprintf(l, sizeof(t->label[0]), "%.*f%s", dec,
				 shown / unit, suffix);
		t->n++;
	}
}

/* Steps that fall on UTC boundaries. */
static const double time_steps[] = {
	0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30,
	60, 120, 300, 600, 900, 1800,
	3600, 7200, 10800, 21600, 43200,
	86400, 172800, 604800, 1209600,
};

static void ticks_time(struct svg_ticks *t, double lo, double hi, int target)
{
	double raw = (hi - lo) / target, step = 0;
	for (size_t i = 0; i < ARRAY_SIZE(time_steps); i++)
		if (time_steps[i] >= raw) {
			step = time_steps[i];
			break;
		}
	if (step == 0)  /* spans of years: multiples of 30 days */
		step = svg_nice_step(raw / (30 * 86400.0)) * 30 * 86400.0;
	t->step = step;
	int prev_day = -1, prev_year = -1;
	for (double v = ceil(lo / step - 1e-9) * step;
	     v <= hi + step * 1e-9 && t->n < SVG_MAX_TICKS; v += step) {
		double whole = floor(v + 1e-6);
		time_t tt = (time_t)whole;
		struct tm tm;
		if (!gmtime_r(&tt, &tm))
			continue;
		char *l = t->label[t->n], *l2 = t->label2[t->n];
		size_t ln = sizeof(t->label[0]), l2n = sizeof(t->label2[0]);
		int day = tm.tm_year * 400 + tm.tm_yday;
		l2[0] = '\0';
		if (step >= 86400) {
			snprintf(l, ln, "%02d-%02d", tm.tm_mon + 1, tm.tm_mday);
			if (tm.tm_year != prev_year)
				snprintf(l2, l2n, "%04d", tm.tm_year + 1900);
		} else {
			if (step < 1)
				snprintf(l, ln, "%02d:%02d:%04.1f", tm.tm_hour,
					 tm.tm_min,
					 tm.tm_sec + (v - whole > 0 ?
						      v - whole : 0));
			else if (step < 60)
				snprintf(l, ln, "%02d:%02d:%02d", tm.tm_hour,
					 tm.tm_min, tm.tm_sec);
			else
				snprintf(l, ln, "%02d:%02d", tm.tm_hour,
					 tm.tm_min);
			if (day != prev_day)
				snprintf(l2, l2n, "%04d-%02d-%02d",
					 tm.tm_year + 1900, tm.tm_mon + 1,
					 tm.tm_mday);
		}
		prev_day = day;
		prev_year = tm.tm_year;
		t->v[t->n++] = v;
	}
}

void svg_ticks_make(struct svg_ticks *t, enum svg_axis_kind kind, double lo,
		    double hi, int target)
{
	memset(t, 0, sizeof(*t));
	if (!isfinite(lo) || !isfinite(hi))
		return;
	if (hi < lo) {
		double x = lo;
		lo = hi;
		hi = x;
	}
	if (target < 1)
		target = 1;
	if (hi == lo) {
		t->n = 1;
		t->v[0] = lo;
		t->step = 1;
		svg_format_value(t->label[0], sizeof(t->label[0]), kind, lo);
		return;
	}
	switch (kind) {
	case SVG_AXIS_BYTES:
		ticks_bytes(t, lo, hi, target, false);
		break;
	case SVG_AXIS_BYTES_DECIMAL:
		ticks_bytes(t, lo, hi, target, true);
		break;
	case SVG_AXIS_COUNT:
		ticks_count(t, lo, hi, target, true);
		break;
	case SVG_AXIS_NUMBER:
		ticks_count(t, lo, hi, target, false);
		break;
	case SVG_AXIS_TIME:
		ticks_time(t, lo, hi, target);
		break;
	}
}

char *svg_format_value(char *buf, size_t n, enum svg_axis_kind kind,
		       double v)
{
	switch (kind) {
	case SVG_AXIS_BYTES:
		return units_format_size_in(buf, n, v, false);
	case SVG_AXIS_BYTES_DECIMAL:
		return units_format_size_in(buf, n, v, true);
	case SVG_AXIS_TIME:
		return units_format_time(buf, n, v);
	case SVG_AXIS_COUNT:
		return units_format_count(buf, n, v);
	case SVG_AXIS_NUMBER:
		break;
	}
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		snprintf(buf, n, "%.3g", v);
	else
		snprintf(buf, n, "%.6g", v);
	return buf;
}

/* ---- lines from per-column extremes ------------------------------------ */

void svg_line_begin(struct svg_line *l, FILE *out,
		    const struct svg_scale *sx, const struct svg_scale *sy,
		    const char *attrs)
{
	memset(l, 0, sizeof(*l));
	l->out = out;
	l->sx = sx;
	l->sy = sy;
	l->attrs = attrs ? attrs : "";
	l->last_col = -2;
}

static void keep_point(struct svg_line *l, double x, double y)
{
	double px = svg_map(l->sx, x), py = svg_map(l->sy, y);
	/* Rounded as written: a point equal to the previous one adds
	 * nothing. */
	px = round(px * 10) / 10;
	py = round(py * 10) / 10;
	if (l->np && l->px[l->np - 1] == px && l->py[l->np - 1] == py)
		return;
	if (l->np == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->px = xrealloc(l->px, l->cap * sizeof(double));
		l->py = xrealloc(l->py, l->cap * sizeof(double));
	}
	l->px[l->np] = px;
	l->py[l->np] = py;
	l->np++;
}

static void flush_column(struct svg_line *l)
{
	if (!l->have_col)
		return;
	keep_point(l, l->fx, l->fy);
	/* The extremes in the order they came, then the last point. */
	bool mn_first = l->mn_at <= l->mx_at;
	size_t a_at = mn_first ? l->mn_at : l->mx_at;
	size_t b_at = mn_first ? l->mx_at : l->mn_at;
	double ax = mn_first ? l->mnx : l->mxx, ay = mn_first ? l->mny : l->mxy;
	double bx = mn_first ? l->mxx : l->mnx, by = mn_first ? l->mxy : l->mny;
	if (a_at > 0 && a_at + 1 < l->count)
		keep_point(l, ax, ay);
	if (b_at > 0 && b_at + 1 < l->count && b_at != a_at)
		keep_point(l, bx, by);
	if (l->count > 1)
		keep_point(l, l->lx, l->ly);
	l->last_col = l->col;
	l->have_col = false;
}

static void close_polyline(struct svg_line *l)
{
	if (!l->np)
		return;
	fprintf(l->out, "<polyline %s points=\"", l->attrs);
	if (l->np == 1) {
		/* One point: a short dash, so it shows. */
		fprintf(l->out, "%.1f,%.1f %.1f,%.1f", l->px[0] - 0.5,
			l->py[0], l->px[0] + 0.5, l->py[0]);
		l->points_written += 2;
	} else {
		for (size_t i = 0; i < l->np; i++)
			fprintf(l->out, "%s%.1f,%.1f", i ? " " : "", l->px[i],
				l->py[i]);
		l->points_written += l->np;
	}
	fputs("\"/>\n", l->out);
	l->polylines_written++;
	l->np = 0;
}

void svg_line_add(struct svg_line *l, double x, double y)
{
	if (!isfinite(x))
		return;
	if (!isfinite(y)) {
		l->pending_break = true;
		return;
	}
	long col = (long)floor(svg_map(l->sx, x));
	if (l->have_col && col == l->col) {
		size_t i = l->count++;
		if (y < l->mny) {
			l->mnx = x;
			l->mny = y;
			l->mn_at = i;
		}
		if (y > l->mxy) {
			l->mxx = x;
			l->mxy = y;
			l->mx_at = i;
		}
		l->lx = x;
		l->ly = y;
		l->pending_break = false;  /* bridged inside one column */
		return;
	}
	flush_column(l);
	if (l->pending_break && col > l->last_col + 1)
		close_polyline(l);
	l->pending_break = false;
	l->have_col = true;
	l->col = col;
	l->count = 1;
	l->fx = l->lx = l->mnx = l->mxx = x;
	l->fy = l->ly = l->mny = l->mxy = y;
	l->mn_at = l->mx_at = 0;
}

void svg_line_break(struct svg_line *l)
{
	l->pending_break = true;
}

void svg_line_end(struct svg_line *l)
{
	flush_column(l);
	close_polyline(l);
	free(l->px);
	free(l->py);
	l->px = l->py = NULL;
	l->cap = 0;
}
