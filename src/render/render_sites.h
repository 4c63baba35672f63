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
/* One frame as the reports print it, not escaped: "function
 * (file:line) in module", "function in module", "module+0xOFF" or
 * "0xADDR". */
void render_site_frame(char *buf, size_t n,
		       const struct series_site_frame *f);
/* One frame as a label shows it: render_site_frame() less " in module"
 * ("function (file:line)", "function", "module+0xOFF", "0xADDR"). */
void render_site_frame_label(char *buf, size_t n,
			     const struct series_site_frame *f);
/* A site in a few words, not escaped: its innermost frame without the
 * module ("function (file:line)", "function", "module+0xOFF"), and
 * where other sites of sites[0..n) share that frame, the first of its
 * callers that tells them apart ("_PyObject_Malloc (obmalloc.c:1966)
 * via list_append (listobject.c:340)"). Into buf; returns buf. */
char *render_site_label(char *buf, size_t n, const struct series_site *sites,
			size_t n_sites, size_t site);
/* What the split says (NULL for SITES_SPLIT_NONE). */
const char *render_sites_split_text(enum sites_split s);
/* {sampling_rate_bytes, ..., ranked: [...]}, or JSON null. Owned by the
 * caller. */
json_t *render_sites_json(const struct target_findings *f);

/* What a folded stack's value is (report --folded). */
enum folded_value {
	FOLDED_PER_HOUR,           /* growth, bytes per hour (significant) */
	FOLDED_PER_REQUEST,        /* growth, bytes per request (significant) */
	FOLDED_LIVE,               /* live bytes at the window's end */
};
/* The analysed sites of every target of d as folded stacks
 * (render_folded.c): "target;outer;...;inner VALUE" per line. *lines (may
 * be NULL) gets the lines written. Returns 0, or -1 on a write error. */
int render_folded(FILE *out, const struct dataset *d,
		  const struct target_findings *f, size_t n,
		  enum folded_value v, size_t *lines);

#endif
