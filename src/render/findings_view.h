/*
 * findings_view.h - one view of a target's verdict for every format: the
 * reasons and the advice that would settle it as rows of {code, figures,
 * sentence}, built once by findings_view_init() and printed as they are
 * by the text report, the HTML page and `report --json` (issue 29: the
 * formats no longer phrase the findings each on their own).
 *
 * The code is the stable name of reason.h (reason_code_name(),
 * settle_code_name()); the figures are the numbers the reason cites, each
 * with the name and kind docs/json.md gives it ("bytes_per_hour", a
 * rate); the sentence is render_reason()'s. Does not: escape anything (a
 * sentence or a figure's text may hold a gauge's or a cap's name: each
 * format escapes for its medium), write to a stream, or decide anything.
 *
 * Beside them, the target's figures as lines of text (enum
 * findings_line) that the text report and the HTML page print alike.
 *
 * Ownership: a view owns its rows, lines and their sentences; a figure's name
 * is static text, its text (FIGURE_TEXT) static or borrowed from the
 * findings, valid while they are. Bounds: one row per reason of the
 * findings plus one for the advice; at most FINDING_FIGURES_MAX figures
 * a row.
 */
#ifndef MEMTREND_FINDINGS_VIEW_H
#define MEMTREND_FINDINGS_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"

/* How a figure is written in JSON (docs/json.md's units). */
enum figure_kind {
	FIGURE_BYTES,       /* an integer number of bytes */
	FIGURE_COUNT,       /* a whole count, or an index (0-based): a
			       JSON integer */
	FIGURE_NUMBER,      /* a rate, a duration in s, a share, a p-value,
			       requests (an increase may be fractional) */
	FIGURE_TIME,        /* Unix seconds, written as ISO 8601 UTC */
	FIGURE_BOOL,        /* value 0 or 1 */
	FIGURE_TEXT,        /* text (unescaped) */
};

struct finding_figure {
	const char *name;   /* static: the JSON key, "bytes_per_hour" */
	enum figure_kind kind;
	double value;       /* NAN: unknown (JSON null); not FIGURE_TEXT */
	const char *text;   /* FIGURE_TEXT; NULL: unknown (JSON null) */
};

#define FINDING_FIGURES_MAX 10

struct finding_row {
	const char *code;   /* static; NULL only for a view's settle when
			       there is nothing to settle */
	size_t n_figures;
	struct finding_figure figures[FINDING_FIGURES_MAX];
	char *text;         /* owned: the sentence, unescaped; NULL with
			       code NULL */
};

/* The target's figures as lines, one sentence each, the same in the
 * text report ("  LABEL       TEXT") and on the HTML page (a key-value
 * row, or a paragraph for the idle windows); JSON has them as fields.
 * In the text report's order. */
enum findings_line {
	FLINE_WINDOW,       /* "T to T (D), N samples, K incarnations" */
	FLINE_FOOTPRINT,    /* first, last, min, max */
	FLINE_RESOLUTION,   /* the resolution and how it was found */
	FLINE_SLOPE,        /* with a trend: the slope, its interval and
			       window */
	FLINE_TREND_TEST,   /* with a trend: p, the autocorrelation */
	FLINE_CYCLES,       /* with a trend and cycles */
	FLINE_DETECTABLE,   /* with a trend */
	FLINE_CONCERN,      /* the slope of concern and its source */
	FLINE_MIN_WATCH,    /* with a trend: the division */
	FLINE_PLATEAU,      /* a plateau found */
	FLINE_APPROACH,     /* growth slowing toward a level */
	FLINE_WORK,         /* a work series that is no counter */
	FLINE_REQUESTS,     /* with a work counter */
	FLINE_IDLE,         /* with work known: the idle windows */
	FLINE_COUNT
};
/* The text report's label of each line (at most 11 columns) and the
 * HTML row's header. */
extern const char *const findings_line_label[FLINE_COUNT];
extern const char *const findings_line_title[FLINE_COUNT];

struct findings_view {
	struct finding_row *reasons; /* owned, f->reasons' order */
	size_t n_reasons;
	struct finding_row settle;   /* code NULL: SETTLE_NONE */
	char *lines[FLINE_COUNT];    /* owned, unescaped; NULL: the target
					has no such figure */
};

/* Build the rows of f (its reasons and settle, as verdict.c left them)
 * and its lines. Never fails (no memory is fatal, as everywhere). */
void findings_view_init(struct findings_view *v,
			const struct target_findings *f);
void findings_view_release(struct findings_view *v);

/* One row alone: a reason of f, or f's settle (a row with code NULL for
 * SETTLE_NONE). The row owns its text: findings_row_release(). */
void findings_row_of_reason(struct finding_row *row,
			    const struct target_findings *f,
			    const struct reason *r);
void findings_row_of_settle(struct finding_row *row,
			    const struct target_findings *f);
void findings_row_release(struct finding_row *row);

#endif
