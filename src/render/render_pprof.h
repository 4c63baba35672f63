/*
 * render_pprof.h - the allocation sites' growth as a pprof profile
 * (render_pprof.c: what it holds, how it is named).
 */
#ifndef MEMTREND_RENDER_PPROF_H
#define MEMTREND_RENDER_PPROF_H

#include <stddef.h>
#include <stdio.h>

#include "analysis.h"

/* Every target of d with sites, its analysed sites (f[0..n), n ==
 * d->n_targets) as one profile, packed, to out; comment (may be NULL)
 * becomes the profile's comment. *samples (may be NULL) gets the
 * samples written. Returns 0, or -1 on a write error. */
int render_pprof(FILE *out, const struct dataset *d,
		 const struct target_findings *f, size_t n, const char *comment,
		 size_t *samples);

#endif
