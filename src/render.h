/*
 * render.h - output formats. Renderers only format findings; they compute
 * nothing that a verdict depends on. They are the only modules that write
 * to stdout (the caller passes the stream). Everything a process controls
 * (its name, command line) is escaped for the medium: control characters
 * and invalid UTF-8 never reach a terminal or a JSON document raw.
 */
#ifndef MEMTREND_RENDER_H
#define MEMTREND_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "series.h"

struct render_options {
	bool color;                /* ANSI colour for the verdict (tty) */
};

int render_text(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_options *o);
int render_json(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n);

/* Live one-line status for `record` on a terminal (to stderr): elapsed,
 * samples, current footprint, slope so far. Overwrites itself with \r;
 * render_status_end() finishes the line. */
void render_status_line(FILE *out, double elapsed_s, uint64_t samples,
			size_t targets, double footprint, double slope_bph);
void render_status_end(FILE *out);

/* Escaping (render_escape.c). Both write a NUL-terminated result of at
 * most n-1 bytes into buf and return buf; a truncated result ends in
 * "...". */
/* Terminal: control bytes (C0, DEL, C1) as \xNN, invalid UTF-8 bytes as
 * \xNN, valid UTF-8 kept. */
char *escape_terminal(char *buf, size_t n, const char *s);
/* Valid UTF-8 for JSON: invalid bytes replaced by U+FFFD (the JSON encoder
 * escapes control characters itself). */
char *escape_utf8(char *buf, size_t n, const char *s);

#endif
