/*
 * render_folded.c - the allocation sites' growth as folded stacks
 * (`report --folded`, docs/sites.md): one line per analysed site, its
 * frames outermost first, separated by ';', after a root frame that is
 * the target's name, then a space and an integer value. flamegraph.pl,
 * inferno, speedscope and Grafana's flame graphs read this format as it
 * is.
 *
 * The value (enum folded_value, render_site_value()): the site's growth
 * per hour or per request (only the sites whose growth is significant: a
 * flame graph of what grows, not of estimates that cannot be told from
 * zero), or its live bytes at the analysed window's end.
 * Integers, as flamegraph.pl wants: bytes, rounded; a site whose value
 * rounds to 0 is left out.
 *
 * Frames are named by render_site_frame_folded() (functions, the
 * innermost with its file and line).
 *
 * What it does not do: analyse (sites.c did; at most SITES_ANALYSED sites
 * per target, so a site never analysed is never here) or name frames (the
 * recorder did). Every name came from the target's files or its command:
 * ';' (the format's separator) and control characters are replaced, so a
 * hostile name can neither add a frame nor a line.
 */
#include "render_sites.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "render.h"

/* One frame as the folded format needs it: the text report's label,
 * with ';' and controls replaced by '_' and '?'. */
static void folded_put(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == ';')
			c = '_';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		fputc(c, out);
	}
}

int render_folded(FILE *out, const struct dataset *d,
		  const struct target_findings *f, size_t n,
		  enum folded_value v, size_t *lines)
{
	assert(n == d->n_targets);
	size_t written = 0;
	for (size_t i = 0; i < n; i++) {
		const struct series *s = &d->targets[i];
		const struct sites_finding *x = &f[i].sites;
		if (!x->recorded)
			continue;
		for (size_t r = 0; r < x->n_ranked; r++) {
			const struct site_finding *sf = &x->ranked[r];
			double value = rint(render_site_value(sf, v));
			if (!(value >= 1))
				continue;
			assert(sf->site < s->n_sites);
			const struct series_site *site = &s->sites[sf->site];
			folded_put(out, s->name ? s->name : "?");
			for (size_t k = site->n_frames; k-- > 0;) {
				char buf[512];
				render_site_frame_folded(buf, sizeof(buf),
							 &site->frames[k],
							 k == 0);
				fputc(';', out);
				folded_put(out, buf);
			}
			if (!site->n_frames)
				fputs(";?", out);
			fprintf(out, " %.0f\n", value);
			written++;
		}
	}
	if (lines)
		*lines = written;
	return ferror(out) ? -1 : 0;
}
