/*
 * render_watch_internal.h - what the two live views of `memtrend watch`
 * share inside render/: the single target's screen (render_watch.c) and
 * the table of `watch --all` (render_watch_table.c). Text is measured and
 * cut in display columns, never in bytes: escape sequences never reach
 * here (everything is escaped first), wide characters count two.
 */
#ifndef MEMTREND_RENDER_WATCH_INTERNAL_H
#define MEMTREND_RENDER_WATCH_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

/* The display columns of s (UTF-8, escaped). */
int render_display_width(const char *s);
/* Write s cut to cols display columns; a cut line ends in an ellipsis
 * ("..." when not utf8). */
void render_put_fitted(FILE *out, const char *s, int cols, bool utf8);

/* Elapsed time as h:mm:ss (0 for what is not a time). */
char *render_watch_clock(char *b, size_t n, double s);
/* A duration, in milliseconds under a second ("250 ms", "1.6 ms"). */
char *render_watch_duration(char *b, size_t n, double s);

#endif
