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

/* The section, after the target's other lines; decimal: sizes in
 * decimal units, as the target's readings. */
void render_sites_text(FILE *out, const struct target_findings *f,
		       bool decimal);
/* {sampling_rate_bytes, ..., ranked: [...]}, or JSON null. Owned by the
 * caller. */
json_t *render_sites_json(const struct target_findings *f);

#endif
