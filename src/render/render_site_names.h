/*
 * render_site_names.h - the names of allocation sites and their frames
 * (record --sites, docs/sites.md), as every output writes them: the
 * text and HTML reports, the JSON, the folded stacks, check's named
 * sites and the exporter's site label (serve/exporter.c). Plain strings,
 * not escaped (each output escapes for itself); implemented in
 * render_sites.c. Apart from render_sites.h so that a layer without
 * the JSON library (serve/) can name a site.
 */
#ifndef MEMTREND_RENDER_SITE_NAMES_H
#define MEMTREND_RENDER_SITE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"

/* One frame as the reports print it, not escaped: "function
 * (file:line) in module", "function in module", "module+0xOFF" or
 * "0xADDR". */
void render_site_frame(char *buf, size_t n,
		       const struct series_site_frame *f);
/* A frame as the folded stacks and the icicle graph name it: the
 * function where known (two call sites of one caller merge, as in a
 * profiler's flame graph), the innermost frame with its file and line
 * (what tells two allocations of one function apart); unnamed frames as
 * render_site_frame_label(). Not escaped. */
void render_site_frame_folded(char *buf, size_t n,
			      const struct series_site_frame *f, bool innermost);
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

#endif
