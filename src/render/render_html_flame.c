/*
 * render_html_flame.c - the HTML report's picture of where a target's
 * memory grows (record --sites): an icicle graph (a flame graph drawn
 * top down) of the analysed allocation sites' growth by stack, and the
 * top sites' live bytes plotted over the footprint
 * (render_html_sites_figures(), docs/html.md).
 *
 * The icicle: the target at the top, then each frame outermost first,
 * a box as wide as the growth per hour of the sites under it (the
 * sites whose growth is significant: those report --folded hour prints,
 * with the same frame names, render_folded.c). Where no site grows, the
 * sites' live bytes instead, and the caption says so. Self-contained SVG:
 * boxes, clipped labels and a <title> per box (the browser's tooltip),
 * no script.
 *
 * Bounds: at most SITES_ANALYSED sites of at most FLAME_ROWS_MAX - 1
 * frames, so a few hundred boxes; the plot (render_html_figures.c) looks
 * each shown site up at each of the target's times (series_site_live_at(),
 * a search of the site's rows).
 *
 * Every frame name came from the target's files: escaped (put_esc).
 */
#include <assert.h>
#include <stdint.h>

#include "render_html_internal.h"
#include "render_sites.h"

#define FLAME_W 960.0
#define FLAME_ROW 18.0
#define FLAME_PAD 1.0
/* A box narrower than this is drawn without a label (its title holds
 * it): about three glyphs at the label's size, FLAME_GLYPH_PX each. */
#define FLAME_MIN_LABEL_PX 24.0
#define FLAME_GLYPH_PX 6.6
/* The frames of the deepest stack plus the root. */
#define FLAME_ROWS_MAX 40
/* Sites plotted over the footprint: the first ranked ones. */
#define SITES_PLOTTED 4

struct flame_node {
	char *name;                /* owned */
	double value;
	size_t child, sibling;     /* indexes; 0: none (0 is the root) */
};

struct flame {
	struct flame_node *n;
	size_t len, cap;
	size_t depth;              /* rows below the root */
};

static size_t flame_add(struct flame *fl, const char *name)
{
	if (fl->len == fl->cap) {
		fl->cap = fl->cap ? 2 * fl->cap : 64;
		fl->n = xrealloc(fl->n, fl->cap * sizeof(*fl->n));
	}
	fl->n[fl->len] = (struct flame_node){xstrdup(name), 0, 0, 0};
	return fl->len++;
}

/* The child of parent named name, made when absent. */
static size_t flame_child(struct flame *fl, size_t parent, const char *name)
{
	size_t last = 0;
	for (size_t k = fl->n[parent].child; k; k = fl->n[k].sibling) {
		if (!strcmp(fl->n[k].name, name))
			return k;
		last = k;
	}
	size_t k = flame_add(fl, name);   /* fl->n may move: indexes only */
	if (last)
		fl->n[last].sibling = k;
	else
		fl->n[parent].child = k;
	return k;
}

static void flame_free(struct flame *fl)
{
	for (size_t i = 0; i < fl->len; i++)
		free(fl->n[i].name);
	free(fl->n);
}

/* Built from the analysed sites; returns whether any value is there.
 * live: the sites' live bytes rather than their growth. */
static bool flame_build(struct ctx *c, struct flame *fl, bool live)
{
	const struct sites_finding *x = &c->f->sites;
	flame_add(fl, c->s->name ? c->s->name : "?");
	for (size_t r = 0; r < x->n_ranked; r++) {
		const struct site_finding *y = &x->ranked[r];
		double v = render_site_value(y, live ? FOLDED_LIVE :
					     FOLDED_PER_HOUR);
		if (!(v > 0))
			continue;
		const struct series_site *site = &c->s->sites[y->site];
		fl->n[0].value += v;
		size_t at = 0, depth = 0;
		for (size_t k = site->n_frames; k-- > 0 &&
		     depth + 1 < FLAME_ROWS_MAX;) {
			char name[512];
			render_site_frame_folded(name, sizeof(name),
						 &site->frames[k], k == 0);
			at = flame_child(fl, at, name);
			fl->n[at].value += v;
			depth++;
		}
		if (depth > fl->depth)
			fl->depth = depth;
	}
	return fl->n[0].value > 0;
}

/* A warm colour from the name (flame graphs' convention: the same
 * function keeps its colour across the picture). */
static void flame_colour(char *buf, size_t n, const char *name)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	int r = 205 + (int)(h % 50), g = 90 + (int)((h >> 8) % 110),
	    b = 40 + (int)((h >> 16) % 50);
	snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

static void flame_draw(struct ctx *c, const struct flame *fl, size_t node,
		       double x, double w, size_t row, bool live)
{
	FILE *out = c->out;
	const struct flame_node *nd = &fl->n[node];
	double y = (double)row * FLAME_ROW;
	char colour[16], v[64];
	flame_colour(colour, sizeof(colour), nd->name);
	if (live)
		size_s(c, v, sizeof(v), nd->value);
	else
		slope_s(c, v, sizeof(v), nd->value);
	fputs("<g><title>", out);
	put_esc(out, nd->name);
	fprintf(out, ": %s (%.1f %%)</title><rect x=\"%.2f\" y=\"%.1f\" "
		"width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>", v,
		100 * nd->value / fl->n[0].value, x, y,
		fmax(w - FLAME_PAD, 0.5), FLAME_ROW - FLAME_PAD,
		node ? colour : "#bbbbbb");
	if (w >= FLAME_MIN_LABEL_PX) {
		/* the label cut to what the box holds */
		size_t fit = (size_t)((w - 6) / FLAME_GLYPH_PX);
		size_t len = strlen(nd->name);
		char *lab = xstrdup(nd->name);
		if (len > fit) {
			size_t keep = fit > 2 ? fit - 2 : 0;
			/* never cut inside a UTF-8 sequence */
			while (keep > 0 && ((unsigned char)lab[keep] & 0xc0) ==
			       0x80)
				keep--;
			lab[keep] = '\0';
			if (keep)
				strcat(lab, "..");
		}
		if (*lab) {
			fprintf(out, "<text class=\"fl\" x=\"%.2f\" "
				"y=\"%.1f\">", x + 3, y + FLAME_ROW - 5);
			put_esc(out, lab);
			fputs("</text>", out);
		}
		free(lab);
	}
	fputs("</g>\n", out);
	double cx = x;
	for (size_t k = nd->child; k; k = fl->n[k].sibling) {
		double cw = w * fl->n[k].value / nd->value;
		flame_draw(c, fl, k, cx, cw, row + 1, live);
		cx += cw;
	}
}

static void figure_flame(struct ctx *c)
{
	struct flame fl = {0};
	bool live = false;
	if (!flame_build(c, &fl, false)) {
		flame_free(&fl);
		fl = (struct flame){0};
		live = true;
		if (!flame_build(c, &fl, true)) {
			flame_free(&fl);
			return;
		}
	}
	FILE *out = c->out;
	double height = (double)(fl.depth + 1) * FLAME_ROW;
	fprintf(out, "<figure class=\"fig-flame\">\n<figcaption>%s by stack "
		"(an icicle graph: the target at the top, callers above "
		"callees, each box as wide as %s of the sites under it; hover "
		"for figures)</figcaption>\n",
		live ? "Live heap" : "Growth", live ? "the live bytes" :
		"the significant growth per hour");
	fprintf(out, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s by "
		"stack\">\n", FLAME_W, height, live ? "live heap" : "growth");
	flame_draw(c, &fl, 0, 0, FLAME_W, 0, live);
	fputs("</svg>\n", out);
	if (live)
		fputs("<p class=\"muted\">No site grows significantly: the "
		      "picture shows where the sampled heap sits.</p>\n", out);
	fputs("</figure>\n", out);
	flame_free(&fl);
}

void render_html_sites_figures(struct ctx *c)
{
	if (!c->f->sites.recorded || !c->f->sites.n_ranked)
		return;
	figure_flame(c);
	size_t n = c->f->sites.n_ranked < SITES_PLOTTED ?
		   c->f->sites.n_ranked : SITES_PLOTTED;
	render_html_sites_plot(c, n);
}
