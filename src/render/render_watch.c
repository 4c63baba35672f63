/*
 * render_watch.c - the live view of `memtrend watch` (render.h): a full
 * terminal screen redrawn from its top-left corner at each refresh, or
 * one plain line per refresh when stdout is not a terminal.
 *
 * What it shows, for one target: the footprint and its components, a
 * sparkline of recent samples, the slope so far with its interval, the
 * requests and connections (when recorded), the verdict so far with its
 * first reason, a progress bar towards a conclusive answer (the
 * findings' division: needed_span_s against an_span_s, needed_requests
 * against requests), a plot of the whole recording (render_plot.c), the
 * recorder's last warning and how often the view refreshes.
 *
 * What it does not do: read the recording, analyse, decide when to draw,
 * or touch the terminal's modes (cmd_watch.c does all that); it formats
 * what it is given. Every line is cut to the terminal's width in display
 * columns (escape sequences never counted, wide characters counted two),
 * every process-controlled string is escaped (render_escape_terminal()), and the
 * screen is drawn with absolute cursor positions so nothing scrolls.
 *
 * The series given may be a thinned copy (cmd_watch.c analyses one):
 * then the sample count comes from v->samples, the sparkline from the
 * unthinned v->recent, and the refresh line says how thinned it is.
 *
 * Bounds on work per frame: O(rows x cols) plus the plot's one pass over
 * the series; the components' last values are looked for among the last
 * LAST_SCAN points only.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "render_watch_internal.h"
#include "units.h"

#define LABEL_W 11                /* "footprint  " */
#define LAST_SCAN 4096            /* points searched for a last value */
#define PLOT_MIN_HEIGHT 5
#define BOTTOM_ROWS 2             /* last warning, refresh */

/* ---- lines and their display width ------------------------------------ */

struct frame {
	char **lines;
	size_t n, cap;
};

static void frame_add(struct frame *fr, const char *fmt, ...)
	PRINTF_LIKE(2, 3);
static void frame_add(struct frame *fr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup("");
	va_end(ap);
	xgrow((void **)&fr->lines, &fr->cap, fr->n + 1, sizeof(*fr->lines));
	fr->lines[fr->n++] = s;
}

static void frame_release(struct frame *fr)
{
	for (size_t i = 0; i < fr->n; i++)
		free(fr->lines[i]);
	free(fr->lines);
	memset(fr, 0, sizeof(*fr));
}

/* Decode one UTF-8 sequence at s (valid: everything here is escaped or
 * our own); returns its length, 1 for a stray byte. */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 :
		     1;
	unsigned v = len == 1 ? s[0] : s[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = s[0];
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = v;
	return len;
}

/* Columns a code point takes: 0 for combining marks, 2 for the East
 * Asian wide and fullwidth ranges and emoji, else 1. Locale-free (the
 * view must not depend on setlocale(), which the recorder does not
 * call either). */
static int cp_width(unsigned cp)
{
	if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
	    (cp >= 0xFE00 && cp <= 0xFE0F))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
	    (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
	    (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
	    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
	    (cp >= 0xFFE0 && cp <= 0xFFE6) ||
	    (cp >= 0x1F300 && cp <= 0x1F64F) ||
	    (cp >= 0x1F900 && cp <= 0x1F9FF) ||
	    (cp >= 0x20000 && cp <= 0x3FFFD))
		return 2;
	return 1;
}

int render_display_width(const char *s)
{
	int w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp;
		p += utf8_decode(p, &cp);
		w += cp_width(cp);
	}
	return w;
}

/* Write s cut to cols display columns; a cut line ends in an ellipsis. */
void render_put_fitted(FILE *out, const char *s, int cols, bool utf8)
{
	if (render_display_width(s) <= cols) {
		fputs(s, out);
		return;
	}
	int room = cols - (utf8 ? 1 : 3), w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp;
		size_t len = utf8_decode(p, &cp);
		int cw = cp_width(cp);
		if (w + cw > room)
			break;
		fwrite(p, 1, len, out);
		w += cw;
		p += len;
	}
	if (room >= 0)
		fputs(utf8 ? "\u2026" : "...", out);
}

/* ---- figures ------------------------------------------------------------ */

static bool dec(const struct watch_view *v)
{
	return v->f && v->f->decimal_units;
}

static char *fsize(const struct watch_view *v, char *b, size_t n, double x)
{
	return render_size(b, n, x, dec(v));
}

static char *fslope(const struct watch_view *v, char *b, size_t n, double x)
{
	return render_rate(b, n, x, dec(v));
}

char *render_watch_clock(char *b, size_t n, double s)
{
	if (!isfinite(s) || s < 0)
		s = 0;
	unsigned long t = (unsigned long)s;
	snprintf(b, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	return b;
}

char *render_watch_duration(char *b, size_t n, double s)
{
	if (isfinite(s) && s >= 0 && s < 0.9995) {
		double ms = s * 1000;
		snprintf(b, n, ms >= 9.95 ? "%.0f ms" : "%.2g ms", ms);
		return b;
	}
	return units_format_duration(b, n, s);
}

/* The last finite value of a (length n) among its last LAST_SCAN. */
static double last_finite(const double *a, size_t n)
{
	if (!a)
		return NAN;
	for (size_t i = n, k = 0; i-- > 0 && k < LAST_SCAN; k++)
		if (isfinite(a[i]))
			return a[i];
	return NAN;
}

/* The target's samples so far (not the thinned copy's). */
static unsigned long long sample_count(const struct watch_view *v)
{
	if (v->samples)
		return (unsigned long long)v->samples;
	return v->f ? (unsigned long long)v->f->samples : 0;
}

static bool has_samples(const struct watch_view *v)
{
	return v->s && v->f && v->f->samples > 0;
}

/* ---- progress towards a conclusive answer ------------------------------ */

static void bar(char *b, size_t n, double frac, int w, bool utf8)
{
	if (!(frac >= 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	int fill = (int)floor(frac * w + 0.5);
	size_t at = 0;
	at += (size_t)snprintf(b + at, n - at, "[");
	for (int i = 0; i < w && at + 4 < n; i++) {
		const char *c = i < fill ? (utf8 ? "\u2588" : "#") :
				(utf8 ? "\u2591" : ".");
		at += (size_t)snprintf(b + at, n - at, "%s", c);
	}
	snprintf(b + at, n - at, "]");
}

static int percent(double frac)
{
	double p = floor(frac * 100);
	return p < 0 ? 0 : p > 99 ? 99 : (int)p;
}

/* The time part: "27 % of 4.4 h: about 3.2 h more to see +50 MiB/h". */
static void progress_time(const struct watch_view *v, char *b, size_t n,
			  double *frac)
{
	const struct target_findings *f = v->f;
	char a[48], c[48], d[48];
	if (!isfinite(f->needed_span_s) || !(f->needed_span_s > 0)) {
		*frac = 0;
		char *settle = render_settle_string(f);
		snprintf(b, n, "slope of concern unknown: %s", settle ?
			 settle : "record longer");
		free(settle);
		return;
	}
	*frac = f->an_span_s / f->needed_span_s;
	units_format_duration(a, sizeof(a), f->needed_span_s);
	if (*frac >= 1) {
		snprintf(b, n, "%s watched, enough for the division; not "
			 "settled yet: the interval still reaches %s",
			 units_format_duration(c, sizeof(c), f->an_span_s),
			 fslope(v, d, sizeof(d), f->concern_bph));
		return;
	}
	snprintf(b, n, "%d %% of %s: about %s more to see %s",
		 percent(*frac), a,
		 units_format_duration(c, sizeof(c),
				       f->needed_span_s - f->an_span_s),
		 fslope(v, d, sizeof(d), f->concern_bph));
}

/* The work part, or false when the division per request is not known. */
static bool progress_requests(const struct watch_view *v, char *b, size_t n,
			      double *frac)
{
	const struct per_request_finding *pr = &v->f->per_request;
	char a[48], c[48], d[48];
	if (!pr->recorded || !isfinite(pr->needed_requests) ||
	    !(pr->needed_requests > 0))
		return false;
	double done = isfinite(pr->requests) ? pr->requests : 0;
	*frac = done / pr->needed_requests;
	units_format_count(a, sizeof(a), pr->needed_requests);
	if (*frac >= 1)
		snprintf(b, n, "%s requests done, enough for the division",
			 units_format_count(c, sizeof(c), done));
	else
		snprintf(b, n, "%d %% of %s requests: %s more for %s",
			 percent(*frac), a,
			 units_format_count(c, sizeof(c),
					    pr->needed_requests - done),
			 units_format_per_request(d, sizeof(d), pr->concern,
						  dec(v)));
	return true;
}

/* One or two progress lines for the screen (label on the first). */
static void add_progress(struct frame *fr, const struct watch_view *v,
			 int bar_w)
{
	const struct target_findings *f = v->f;
	char b[64 + 4 * 64], text[400];
	if (!has_samples(v)) {
		bar(b, sizeof(b), 0, bar_w, v->utf8);
		frame_add(fr, "%-*s%s waiting for samples", LABEL_W,
			  "progress", b);
		return;
	}
	if (!f->has_trend) {
		bar(b, sizeof(b), 0, bar_w, v->utf8);
		frame_add(fr, "%-*s%s collecting: %zu sample%s so far, a "
			  "slope needs 3 or more", LABEL_W, "progress", b,
			  f->analysed_samples,
			  f->analysed_samples == 1 ? "" : "s");
		return;
	}
	if (f->verdict != VERDICT_INCONCLUSIVE) {
		char a[48];
		bar(b, sizeof(b), 1, bar_w, v->utf8);
		frame_add(fr, "%-*s%s conclusive so far: %s after %s", LABEL_W,
			  "progress", b, verdict_name(f->verdict),
			  units_format_duration(a, sizeof(a), f->an_span_s));
		return;
	}
	double frac;
	const struct per_request_finding *pr = &f->per_request;
	if (pr->recorded && pr->known && !(pr->requests > 0)) {
		/* No work: time alone cannot settle it. */
		bar(b, sizeof(b), 0, bar_w, v->utf8);
		if (progress_requests(v, text, sizeof(text), &frac))
			frame_add(fr, "%-*s%s no requests yet: %s", LABEL_W,
				  "progress", b, text);
		else
			frame_add(fr, "%-*s%s no requests yet: a leak per "
				  "request cannot show without work", LABEL_W,
				  "progress", b);
		return;
	}
	progress_time(v, text, sizeof(text), &frac);
	bar(b, sizeof(b), frac, bar_w, v->utf8);
	frame_add(fr, "%-*s%s %s", LABEL_W, "progress", b, text);
	if (progress_requests(v, text, sizeof(text), &frac)) {
		bar(b, sizeof(b), frac, bar_w, v->utf8);
		frame_add(fr, "%*s %s %s", LABEL_W - 1, "or", b, text);
	}
}

/* ---- the lines ----------------------------------------------------------- */

static void add_title(struct frame *fr, const struct watch_view *v)
{
	char file[256], iv[32], el[32];
	render_escape_terminal(file, sizeof(file), v->output);
	render_watch_duration(iv, sizeof(iv), v->interval_s);
	render_watch_clock(el, sizeof(el), v->elapsed_s);
	const char *state = v->ended ? "ended" : v->stopping ? "stopping" :
			    "recording";
	unsigned long long samples = sample_count(v);
	char left[512];
	snprintf(left, sizeof(left), "memtrend watch  %s  %s every %s  %s  "
		 "%llu sample%s", file, state, iv, el, samples,
		 samples == 1 ? "" : "s");
	const char *hint = v->ended ? "" : "q or Ctrl-C stops";
	int pad = v->cols - render_display_width(left) -
		  (int)strlen(hint);
	if (*hint && pad >= 2)
		frame_add(fr, "%s%*s%s", left, pad, "", hint);
	else
		frame_add(fr, "%s", left);
}

static void add_target(struct frame *fr, const struct watch_view *v)
{
	char name[256], cmd[512];
	if (!v->s) {
		frame_add(fr, "%-*sstarting", LABEL_W, "target");
		return;
	}
	const struct series *s = v->s;
	render_escape_terminal(name, sizeof(name), s->name);
	char more[48] = "";
	if (v->n_targets > 1)
		snprintf(more, sizeof(more), " (1 of %zu targets)",
			 v->n_targets);
	if (!s->n_incs) {
		frame_add(fr, "%-*s%s%s: no process yet", LABEL_W, "target",
			  name, more);
		return;
	}
	const struct incarnation *in = &s->incs[s->n_incs - 1];
	render_escape_terminal(cmd, sizeof(cmd), in->cmdline && *in->cmdline ?
			in->cmdline : in->comm ? in->comm : "");
	char inc[48] = "";
	if (s->n_incs > 1)
		snprintf(inc, sizeof(inc), " (incarnation %zu)", s->n_incs);
	frame_add(fr, "%-*s%s%s: pid %lld%s  %s", LABEL_W, "target", name,
		  more, (long long)in->pid, inc, cmd);
}

static void add_footprint(struct frame *fr, const struct watch_view *v)
{
	char b[6][48];
	if (!has_samples(v)) {
		frame_add(fr, "%-*sn/a", LABEL_W, "footprint");
		return;
	}
	const struct series *s = v->s;
	fsize(v, b[0], sizeof(b[0]), v->f->fp_last);
	if (!v->components_read) {
		frame_add(fr, "%-*s%s  (components not read live: %zu "
			  "samples; 'memtrend report' shows them)", LABEL_W,
			  "footprint", b[0], s->n);
		return;
	}
	double anon = last_finite(s->comp[COMP_ANON], s->n),
	       swap = last_finite(s->comp[COMP_SWAP], s->n),
	       shmem = last_finite(s->comp[COMP_SHMEM], s->n),
	       file = last_finite(s->comp[COMP_FILE], s->n);
	double gpu = last_finite(s->comp[COMP_GPU], s->n);
	char with_gpu[64] = "";
	if (isfinite(gpu))
		snprintf(with_gpu, sizeof(with_gpu), " + GPU %s",
			 fsize(v, b[5], 48, gpu));
	frame_add(fr, "%-*s%s = anon %s + swap %s + shmem %s%s;  file %s",
		  LABEL_W, "footprint", b[0], fsize(v, b[1], 48, anon),
		  fsize(v, b[2], 48, swap), fsize(v, b[3], 48, shmem),
		  with_gpu, fsize(v, b[4], 48, file));
}

static void add_recent(struct frame *fr, const struct watch_view *v)
{
	if (!has_samples(v)) {
		frame_add(fr, "%-*s", LABEL_W, "recent");
		return;
	}
	const struct series *s = v->s;
	const double *all = v->recent ? v->recent : s->footprint;
	size_t n = v->recent ? v->n_recent : s->n;
	/* Room: the line minus the label and "  1.23 MiB .. 4.56 MiB". */
	int room = v->cols - LABEL_W - 26;
	if (room < 8)
		room = 8;
	size_t k = (size_t)room < n ? (size_t)room : n;
	char spark[3 * 1024 + 1];
	if (k > 1024)
		k = 1024;
	const double *tail = all + (n - k);
	render_sparkline(spark, sizeof(spark), tail, k, v->utf8);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < k; i++)
		if (isfinite(tail[i])) {
			lo = fmin(lo, tail[i]);
			hi = fmax(hi, tail[i]);
		}
	char a[48], b[48];
	frame_add(fr, "%-*s%s  %s .. %s", LABEL_W, "recent", spark,
		  fsize(v, a, sizeof(a), lo), fsize(v, b, sizeof(b), hi));
}

static void add_slope(struct frame *fr, const struct watch_view *v)
{
	const struct target_findings *f = v->f;
	char a[48], b[48], c[48], d[48], p[32];
	if (!has_samples(v) || !f->has_trend) {
		frame_add(fr, "%-*stoo early", LABEL_W, "slope");
		return;
	}
	char line[400];
	snprintf(line, sizeof(line), "%-*s%s  (95 %% interval %s to %s), "
		 "p = %s", LABEL_W, "slope",
		 fslope(v, a, sizeof(a), f->slope.estimate),
		 fslope(v, b, sizeof(b), f->slope.low),
		 fslope(v, c, sizeof(c), f->slope.high),
		 render_p_value(p, sizeof(p), f->slope.p, 2));
	char more[80];
	snprintf(more, sizeof(more), ", detectable %s",
		 units_format_slope(d, sizeof(d), f->detectable_bph, dec(v)));
	if (render_display_width(line) + render_display_width(more) <= v->cols)
		frame_add(fr, "%s%s", line, more);
	else
		frame_add(fr, "%s", line);
}

static void add_work(struct frame *fr, const struct watch_view *v)
{
	if (!has_samples(v))
		return;
	const struct series *s = v->s;
	const struct per_request_finding *pr = &v->f->per_request;
	char line[512] = "", a[48], b[48], c[48];
	size_t at = 0;
	if (pr->recorded && pr->known) {
		at += (size_t)snprintf(line + at, sizeof(line) - at,
			"%s (%s/h)", units_format_count(a, sizeof(a),
							pr->requests),
			units_format_count(b, sizeof(b), pr->rate_per_h));
		if (pr->found)
			at += (size_t)snprintf(line + at, sizeof(line) - at,
				", %s", units_format_per_request(c, sizeof(c),
					pr->slope.estimate, dec(v)));
	} else if (pr->recorded) {
		at += (size_t)snprintf(line + at, sizeof(line) - at,
				       "no readings yet");
} else if (v->f->work_set_aside) {
		/* a gauge: no request count (counter.h) */
		at += (size_t)snprintf(line + at, sizeof(line) - at,
			"not a counter (down in %.0f %% of readings)",
			100 * v->f->work.decreasing_share);
	}
	double conn = last_finite(s->connections, s->n);
	if (s->connections)
		snprintf(line + at, sizeof(line) - at, "%sconnections %s",
			 at ? "   " : "", isfinite(conn) ?
			 units_format_count(a, sizeof(a), conn) : "n/a");
	if (!pr->recorded && !s->connections && !v->f->work_set_aside)
		return;
	frame_add(fr, "%-*s%s", LABEL_W, pr->recorded ? "requests" : "work",
		  line);
}

/* The verdict so far and its first reason, over up to `lines` lines. */
static void add_verdict(struct frame *fr, const struct watch_view *v,
			int lines)
{
	const struct target_findings *f = v->f;
	if (!has_samples(v)) {
		frame_add(fr, "%-*sn/a until the first samples", LABEL_W,
			  "verdict");
		return;
	}
	char *first = f->reasons.n ?
		      render_reason_string(f, &f->reasons.r[0]) : xstrdup("");
	size_t cap = 4 * strlen(first) + 4; /* \xNN per byte at most */
	char *reason = render_escape_terminal(xmalloc(cap), cap, first);
	free(first);
	char *text = NULL;
	if (asprintf(&text, "%s%s%s", verdict_name(f->verdict),
		     *reason ? ": " : "", reason) < 0)
		text = NULL;
	free(reason);
	if (!text) {
		frame_add(fr, "%-*s%s", LABEL_W, "verdict",
			  verdict_name(f->verdict));
		return;
	}
	/* Wrap at the last space that fits, on display columns. */
	int room = v->cols - LABEL_W;
	const char *p = text;
	for (int l = 0; l < lines && *p; l++) {
		const char *label = l == 0 ? "verdict" : "";
		if (l == lines - 1 || render_display_width(p) <= room ||
		    room < 20) {
			frame_add(fr, "%-*s%s", LABEL_W, label, p);
			break;
		}
		/* Bytes that fit in room columns. */
		const unsigned char *q = (const unsigned char *)p;
		int w = 0;
		const char *cut = NULL, *end = p;
		while (*q) {
			unsigned cp;
			size_t len = utf8_decode(q, &cp);
			if (w + cp_width(cp) > room)
				break;
			w += cp_width(cp);
			if (*q == ' ')
				cut = (const char *)q;
			q += len;
			end = (const char *)q;
		}
		if (!cut || cut == p)
			cut = end;
		frame_add(fr, "%-*s%.*s", LABEL_W, label, (int)(cut - p), p);
		p = cut;
		while (*p == ' ')
			p++;
	}
	free(text);
}

static void add_refresh(struct frame *fr, const struct watch_view *v)
{
	char a[32], b[32];
	render_watch_duration(a, sizeof(a), v->refresh_s);
	char skipped[64] = "";
	if (!v->components_read && v->s)
		snprintf(skipped, sizeof(skipped), "; components skipped");
	else if (v->stride > 1)
		snprintf(skipped, sizeof(skipped), "; 1 sample in %llu "
			 "analysed", (unsigned long long)v->stride);
	if (!isfinite(v->refresh_cost_s))
		frame_add(fr, "%-*severy %s", LABEL_W, "refresh", a);
	else if (v->slowed)
		frame_add(fr, "%-*severy %s: slowed, read + analysis take "
			  "%s%s", LABEL_W, "refresh", a,
			  render_watch_duration(b, sizeof(b), v->refresh_cost_s),
			  skipped);
	else
		frame_add(fr, "%-*severy %s (read + analysis %s%s)", LABEL_W,
			  "refresh", a,
			  render_watch_duration(b, sizeof(b), v->refresh_cost_s),
			  skipped);
}

/* ---- the screen ---------------------------------------------------------- */

void render_watch_begin(FILE *out)
{
	/* Alternate screen, cursor hidden, cleared. */
	fputs("\033[?1049h\033[?25l\033[H\033[2J", out);
	fflush(out);
}

void render_watch_end(FILE *out)
{
	/* Attributes reset, cursor shown, back to the normal screen. */
	fputs("\033[0m\033[?25h\033[?1049l", out);
	fflush(out);
}

int render_watch_screen(FILE *out, const struct watch_view *v)
{
	int cols = v->cols > 0 ? v->cols : 80, rows = v->rows > 0 ? v->rows :
		   24;
	struct watch_view vv = *v;
	vv.cols = cols;
	vv.rows = rows;
	struct frame fr = {0};
	add_title(&fr, &vv);
	add_target(&fr, &vv);
	add_footprint(&fr, &vv);
	add_recent(&fr, &vv);
	add_slope(&fr, &vv);
	add_work(&fr, &vv);
	add_verdict(&fr, &vv, rows >= 24 ? 2 : 1);
	int bar_w = cols / 5 < 10 ? 10 : cols / 5 > 30 ? 30 : cols / 5;
	add_progress(&fr, &vv, bar_w);
	size_t header = fr.n;

	/* The plot takes what is left above the bottom rows. */
	int plot_h = rows - (int)header - 1 - BOTTOM_ROWS;
	char *plot = NULL;
	size_t plot_len = 0;
	if (plot_h >= PLOT_MIN_HEIGHT && has_samples(&vv)) {
		FILE *m = open_memstream(&plot, &plot_len);
		if (m) {
			render_plot_footprint(m, vv.s, vv.f, cols, plot_h,
					      vv.utf8);
			fclose(m);
		}
	}
	frame_add(&fr, "%s", "");
	if (plot) {
		char *save = NULL;
		for (char *l = strtok_r(plot, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			frame_add(&fr, "%s", l);
		free(plot);
	}
	/* Bottom rows: the recorder's last warning, the refresh. */
	size_t bottom_at = rows > BOTTOM_ROWS ? (size_t)(rows - BOTTOM_ROWS) :
			   0;
	while (fr.n < bottom_at)
		frame_add(&fr, "%s", "");
	if (v->last_log && *v->last_log) {
		char log[600];
		render_escape_terminal(log, sizeof(log), v->last_log);
		frame_add(&fr, "%-*s%s", LABEL_W, "log", log);
	} else {
		frame_add(&fr, "%s", "");
	}
	add_refresh(&fr, &vv);

	/* Draw every row from the top: position, clear, the fitted text. */
	for (int r = 0; r < rows; r++) {
		fprintf(out, "\033[%d;1H\033[2K", r + 1);
		if ((size_t)r < fr.n)
			render_put_fitted(out, fr.lines[r], cols, vv.utf8);
	}
	fprintf(out, "\033[%d;1H", rows);
	frame_release(&fr);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

/* ---- plain lines ----------------------------------------------------------- */

int render_watch_line(FILE *out, const struct watch_view *v)
{
	char el[32], a[48], b[48], c[48], d[400], name[256];
	render_watch_clock(el, sizeof(el), v->elapsed_s);
	render_escape_terminal(name, sizeof(name), v->s ? v->s->name : "");
	if (!has_samples(v)) {
		fprintf(out, "%s  %s  no samples yet\n", el, name);
		fflush(out);
		return ferror(out) ? -1 : 0;
	}
	const struct target_findings *f = v->f;
	fprintf(out, "%s  %s  samples %llu  footprint %s", el, name,
		sample_count(v), fsize(v, a, sizeof(a), f->fp_last));
	if (f->has_trend)
		fprintf(out, "  slope %s (%s to %s)",
			fslope(v, a, sizeof(a), f->slope.estimate),
			fslope(v, b, sizeof(b), f->slope.low),
			fslope(v, c, sizeof(c), f->slope.high));
	const struct per_request_finding *pr = &f->per_request;
	if (pr->recorded && pr->known)
		fprintf(out, "  requests %s",
			units_format_count(a, sizeof(a), pr->requests));
	double conn = last_finite(v->s->connections, v->s->n);
	if (v->s->connections && isfinite(conn))
		fprintf(out, "  connections %s",
			units_format_count(a, sizeof(a), conn));
	fprintf(out, "  verdict %s", verdict_name(f->verdict));
	bool no_work = pr->recorded && pr->known && !(pr->requests > 0);
	if (no_work) {
		fprintf(out, "  no requests yet");
	} else if (f->has_trend && f->verdict == VERDICT_INCONCLUSIVE) {
		double frac = 0;
		if (isfinite(f->needed_span_s) && f->needed_span_s > 0) {
			frac = f->an_span_s / f->needed_span_s;
			if (frac < 1)
				fprintf(out, "  progress %d %% (about %s "
					"more to see %s)", percent(frac),
					units_format_duration(d, sizeof(d),
						f->needed_span_s -
						f->an_span_s),
					fslope(v, c, sizeof(c),
					       f->concern_bph));
		}
		if (progress_requests(v, d, sizeof(d), &frac) && frac < 1)
			fprintf(out, "  requests progress %d %%",
				percent(frac));
	}
	if (v->ended) {
		char file[256];
		fprintf(out, "  (ended; evidence: memtrend report %s)",
			render_escape_terminal(file, sizeof(file), v->output));
	}
	fputc('\n', out);
	fflush(out);
	return ferror(out) ? -1 : 0;
}
