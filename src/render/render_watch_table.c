/*
 * render_watch_table.c - the live table of `memtrend watch --all`
 * (render.h): top-like, one row per target, worst first (the order
 * live_table_ranked() gives, a report's), with the verdict so far, the
 * slope, the latest footprint and the samples so far; on a terminal a
 * full screen redrawn from its top-left corner, else a heading and the
 * rows, one block per refresh.
 *
 * What it does not do: rank, analyse or choose how many rows (the caller
 * passes the rows, at most --top), decide when to draw or touch the
 * terminal's modes (cmd_watch.c). Every process-controlled string (a
 * target's name, the log line) is escaped (render_escape_terminal());
 * every screen line is cut to the terminal's width in display columns.
 *
 * Bounds on work per frame: O(rows shown x cols).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "render_watch_internal.h"
#include "units.h"

#define TITLE_ROWS 2              /* the title, the column heads */
#define BOTTOM_ROWS 2             /* last warning, refresh */
#define LABEL_W 11

void render_watch_table_head(char *buf, size_t n)
{
	snprintf(buf, n, "%4s %8s  %-14s %14s %11s %8s  %s", "#", "PID",
		 "VERDICT SO FAR", "SLOPE", "FOOTPRINT", "SAMPLES", "TARGET");
}

void render_watch_table_row(char *buf, size_t n, size_t rank,
			    const struct live_table_row *r)
{
	char name[256], pid[24], slope[48], fp[48];
	render_escape_terminal(name, sizeof(name), r->name ? r->name : "");
	if (r->pid >= 0)
		snprintf(pid, sizeof(pid), "%lld", (long long)r->pid);
	else
		snprintf(pid, sizeof(pid), "-");
	const char *verdict = !r->analysed ? "new" :
			      !r->has_trend ? "collecting" :
			      verdict_name(r->verdict);
	if (r->has_trend && isfinite(r->slope_bph))
		render_rate(slope, sizeof(slope), r->slope_bph, false);
	else
		snprintf(slope, sizeof(slope), "-");
	if (isfinite(r->footprint))
		render_size(fp, sizeof(fp), r->footprint, false);
	else
		snprintf(fp, sizeof(fp), "-");
	snprintf(buf, n, "%4zu %8s  %-14s %14s %11s %8llu  %s", rank, pid,
		 verdict, slope, fp, (unsigned long long)r->samples, name);
}

static const char *state_of(const struct watch_table_view *v)
{
	return v->ended ? "ended" : v->stopping ? "stopping" : "recording";
}

static void title(char *b, size_t n, const struct watch_table_view *v)
{
	char file[256], iv[32], el[32];
	render_escape_terminal(file, sizeof(file), v->output ? v->output : "");
	snprintf(b, n, "memtrend watch  %s  %s every %s  %s  %zu "
		 "target%s, %llu sample%s", file, state_of(v),
		 render_watch_duration(iv, sizeof(iv), v->interval_s),
		 render_watch_clock(el, sizeof(el), v->elapsed_s), v->n_targets,
		 v->n_targets == 1 ? "" : "s",
		 (unsigned long long)v->samples, v->samples == 1 ? "" : "s");
}

/* Row r of the screen (1-based): cleared, then s cut to cols. */
static void put_row(FILE *out, int r, const char *s, int cols, bool utf8)
{
	fprintf(out, "\033[%d;1H\033[2K", r);
	if (s)
		render_put_fitted(out, s, cols, utf8);
}

int render_watch_table_screen(FILE *out, const struct watch_table_view *v)
{
	int cols = v->cols > 0 ? v->cols : 80;
	int rows = v->rows_term > 0 ? v->rows_term : 24;
	char line[1024], a[32], b[32];
	int r = 1;

	title(line, sizeof(line), v);
	const char *hint = v->ended ? "" : "q or Ctrl-C stops";
	int pad = cols - render_display_width(line) - (int)strlen(hint);
	if (*hint && pad >= 2) {
		size_t at = strlen(line);
		snprintf(line + at, sizeof(line) - at, "%*s%s", pad, "", hint);
	}
	put_row(out, r++, line, cols, v->utf8);
	render_watch_table_head(line, sizeof(line));
	put_row(out, r++, line, cols, v->utf8);

	/* The rows that fit above the bottom lines; the last of them says
	 * how many more there are when some are left out. */
	int room = rows - TITLE_ROWS - BOTTOM_ROWS;
	size_t shown = v->n_rows;
	bool more = v->n_targets > v->n_rows;
	if (room < 1) {
		shown = 0;
	} else if (shown > (size_t)room || (more && shown == (size_t)room)) {
		shown = (size_t)room - 1;
		more = true;
	}
	for (size_t i = 0; i < shown; i++) {
		render_watch_table_row(line, sizeof(line), i + 1, &v->rows[i]);
		put_row(out, r++, line, cols, v->utf8);
	}
	if (room >= 1 && v->n_targets == 0) {
		put_row(out, r++, "   (no process sampled yet)", cols,
			v->utf8);
	} else if (room >= 1 && more && v->n_targets > shown) {
		char file[256];
		render_escape_terminal(file, sizeof(file),
				       v->output ? v->output : "");
		snprintf(line, sizeof(line), "   ... %zu more (memtrend "
			 "report %s ranks them all)", v->n_targets - shown,
			 file);
		put_row(out, r++, line, cols, v->utf8);
	}
	while (r <= rows - BOTTOM_ROWS)
		put_row(out, r++, NULL, cols, v->utf8);

	if (rows - BOTTOM_ROWS >= TITLE_ROWS) {
		char log[600];
		if (v->last_log && *v->last_log) {
			render_escape_terminal(log, sizeof(log), v->last_log);
			snprintf(line, sizeof(line), "%-*s%s", LABEL_W, "log",
				 log);
			put_row(out, r++, line, cols, v->utf8);
		} else {
			put_row(out, r++, NULL, cols, v->utf8);
		}
		if (isfinite(v->refresh_cost_s))
			snprintf(line, sizeof(line), "%-*severy %s; targets "
				 "analysed in turn (%zu at the last refresh, "
				 "%s)", LABEL_W, "refresh",
				 render_watch_duration(a, sizeof(a), v->refresh_s),
				 v->analysed,
				 render_watch_duration(b, sizeof(b),
						v->refresh_cost_s));
		else
			snprintf(line, sizeof(line), "%-*severy %s", LABEL_W,
				 "refresh",
				 render_watch_duration(a, sizeof(a), v->refresh_s));
		put_row(out, r++, line, cols, v->utf8);
	}
	fprintf(out, "\033[%d;1H", rows);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

int render_watch_table_lines(FILE *out, const struct watch_table_view *v)
{
	char el[32], line[1024];
	fprintf(out, "%s  %s  %zu target%s  %llu sample%s",
		render_watch_clock(el, sizeof(el), v->elapsed_s), state_of(v),
		v->n_targets, v->n_targets == 1 ? "" : "s",
		(unsigned long long)v->samples, v->samples == 1 ? "" : "s");
	if (v->n_rows < v->n_targets)
		fprintf(out, "  (the worst %zu)", v->n_rows);
	if (v->ended) {
		char file[256];
		fprintf(out, "  (evidence: memtrend report %s)",
			render_escape_terminal(file, sizeof(file),
					       v->output ? v->output : ""));
	}
	fputc('\n', out);
	if (v->n_rows) {
		render_watch_table_head(line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	for (size_t i = 0; i < v->n_rows; i++) {
		render_watch_table_row(line, sizeof(line), i + 1, &v->rows[i]);
		fprintf(out, "%s\n", line);
	}
	fflush(out);
	return ferror(out) ? -1 : 0;
}
