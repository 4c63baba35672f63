/*
 * render_status.c - the live status line `record` shows on a terminal
 * (render.h). One line, rewritten in place with \r and cleared to the end
 * of the line; nothing here decides when to draw (the recorder only calls
 * it when stderr is a terminal).
 */
#include <math.h>
#include <stdio.h>

#include "render.h"
#include "units.h"

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

void render_status_end(FILE *out)
{
	fprintf(out, "\r\033[K");
	fflush(out);
}
