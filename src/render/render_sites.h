/*
 * render_sites.h - a target's allocation sites, "Where it grows"
 * (analysis/sites.h), in the text report and in JSON (docs/json.md,
 * "sites"). Nothing when the target was recorded without --sites.
 */
#ifndef MEMTREND_RENDER_SITES_H
#define MEMTREND_RENDER_SITES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "render_site_names.h"

/* The section, after the target's other lines; decimal: sizes in
 * decimal units, as the target's readings. */
void render_sites_text(FILE *out, const struct target_findings *f,
		       bool decimal);
/* A slope and its interval, "+3.95 KiB/req [+3.88 KiB/req, +4.07
 * KiB/req]" (per hour unless per_req; "no slope" for NAN), unescaped. */
void render_site_slope_text(char *buf, size_t n, struct slope s,
			    bool per_req, bool decimal);
/* What a folded stack's value is (report --folded). */
enum folded_value {
	FOLDED_PER_HOUR,           /* growth, bytes per hour (significant) */
	FOLDED_PER_REQUEST,        /* growth, bytes per request (significant) */
	FOLDED_LIVE,               /* live bytes at the window's end */
};
/* What site sf stands for in unit v, the one rule the folded stacks, the
 * HTML's icicle graph and check's named sites share: its growth when
 * significant and positive (per hour, per request), its live bytes at
 * the window's end (live); else 0. */
double render_site_value(const struct site_finding *sf, enum folded_value v);
/* One of check's named sites (docs/check.md): {label, function, file,
 * line (the innermost frame's), estimate, ci95_low, ci95_high} in the
 * unit per_req says; escaped. */
json_t *render_site_brief_json(const struct series *s,
			       const struct site_finding *y, bool per_req);
/* What the split says (NULL for SITES_SPLIT_NONE). */
const char *render_sites_split_text(enum sites_split s);
/* A pool outside the heap (site_outside.pool: "shmem", "gpu", "file")
 * in words: "shared memory", "GPU memory", "file-backed pages". */
const char *render_outside_pool_text(const char *pool);
/* {sampling_rate_bytes, ..., ranked: [...]}, or JSON null. Owned by the
 * caller. */
json_t *render_sites_json(const struct target_findings *f);

/* The analysed sites of every target of d as folded stacks
 * (render_folded.c): "target;outer;...;inner VALUE" per line. *lines (may
 * be NULL) gets the lines written. Returns 0, or -1 on a write error. */
int render_folded(FILE *out, const struct dataset *d,
		  const struct target_findings *f, size_t n,
		  enum folded_value v, size_t *lines);

#endif
