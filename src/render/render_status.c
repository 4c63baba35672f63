/*
 * render_status.c - the live status line `record` shows on a terminal
 * (render.h). One line, rewritten in place with \r and cleared to the end
 * of the line; nothing here decides when to draw (the recorder only calls
 * it when stderr is a terminal). With --all the line is about the host
 * (render_status_line_all()), not the first process.
 */
#include <math.h>
#include <stdio.h>

#include "render.h"
#include "units.h"

static char *size_or_dash(char *b, size_t n, double x)
{
	if (isfinite(x))
		return units_format_size(b, n, x);
	snprintf(b, n, "-");
	return b;
}

void render_status_line(FILE *out, double elapsed_s, uint64_t samples,
			size_t targets, double footprint, double slope_bph)
{
	char el[32], fp[32], sl[48];
	units_format_duration(el, sizeof(el), elapsed_s);
	if (isfinite(footprint))
		units_format_size(fp, sizeof(fp), footprint);
	else
		snprintf(fp, sizeof(fp), "-");
	if (isfinite(slope_bph)) {
		units_format_slope(sl, sizeof(sl), slope_bph, false);
	} else {
		snprintf(sl, sizeof(sl), "(too early)");
	}
	fprintf(out, "\r\033[Krecording %s  %llu samples  %zu target%s  "
		"footprint %s  slope %s", el, (unsigned long long)samples,
		targets, targets == 1 ? "" : "s", fp, sl);
	fflush(out);
}

void render_status_line_all(FILE *out, double elapsed_s, uint64_t samples,
			    size_t processes, double total,
			    const char *largest_name, double largest)
{
	char el[32], sum[32], top[32], name[256];
	units_format_duration(el, sizeof(el), elapsed_s);
	size_or_dash(sum, sizeof(sum), total);
	size_or_dash(top, sizeof(top), largest);
	render_escape_terminal(name, sizeof(name),
			       largest_name ? largest_name : "-");
	fprintf(out, "\r\033[Krecording %s  %llu samples  %zu process%s "
		"(sum %s, largest %s %s)", el, (unsigned long long)samples,
		processes, processes == 1 ? "" : "es", sum, name, top);
	fflush(out);
}

void render_status_end(FILE *out)
{
	fprintf(out, "\r\033[K");
	fflush(out);
}
