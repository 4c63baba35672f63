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
	bool plot;                 /* a text plot of the footprint (tty) */
	bool utf8;                 /* braille dots rather than ASCII */
	int width;                 /* terminal columns for the plot */
	size_t top;                /* --top: the worst N targets in the
				      overview and the sections; 0 = all */
};

/* Targets in rank order, worst first (rank.h). With more than one, an
 * overview opens the report: the count per verdict, then one row per
 * target shown (rank, verdict, slope and interval, last footprint,
 * exhaustion when growing, name). o->top limits the overview's rows and
 * the sections alike, and says how many are left out. */
int render_text(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_options *o);
/* Write a JSON document (jansson's json_t; the caller keeps its
 * reference) indented, with C1 controls escaped as \u00XX, and a final
 * newline. Returns 0 or -1 on a write error. */
struct json_t;
int render_json_dump(struct json_t *root, FILE *out);
/* Every target, in rank order (rank.h), each with its "rank" (1 = the
 * worst), and the count per verdict ("verdict_counts"). */
int render_json(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n);

/* ---- findings in words (render_reason.c) -------------------------------- */

/* The one place where findings become words. The formatters write a
 * NUL-terminated result of at most n-1 bytes into buf and return buf;
 * a value that is not finite is "n/a". Sizes (and rates, per request)
 * in decimal units when decimal (the findings' decimal_units). */
char *render_size(char *buf, size_t n, double bytes, bool decimal);
/* Binary units with one decimal ("230.7 GiB", "824 B"; signed_: "+"
 * before a positive figure; "-" for NAN): books and probe tables. */
char *render_size1(char *buf, size_t n, double bytes, bool signed_);
char *render_rate(char *buf, size_t n, double bph, bool decimal);
char *render_per_request(char *buf, size_t n, double bytes, bool decimal);
char *render_duration(char *buf, size_t n, double s);
/* A minimum observation (the division, docs/statistics.md): "under 1 s"
 * below a second, where "0.0084 s" would read as advice (fine readings,
 * e.g. whole bytes: the resolution is no limit, the noise is); else
 * render_duration(). */
char *render_min_watch(char *buf, size_t n, double s);
/* A p-value as "%.*g" with that many significant digits. */
char *render_p_value(char *buf, size_t n, double p, int digits);
/* A reason of f (reason.h) as an English sentence, and what would settle
 * f's verdict (nothing for SETTLE_NONE). Unescaped: a sentence may hold
 * a gauge name from a CSV header, so the caller escapes it for its
 * medium. Return 0, or -1 when out could not be written. */
int render_reason(FILE *out, const struct target_findings *f,
		  const struct reason *r);
/* How incarnation inc of s is called in a sentence: "pid N" when the pid
 * is known, else its command (a Prometheus series merged by --by: the
 * labels that tell its member apart, e.g. pod="app-7f9c"), else
 * "incarnation K" (1-based). Into buf (cut to n - 1 bytes), returned;
 * not escaped: the caller escapes it for its medium. */
const char *render_incarnation_name(char *buf, size_t n,
				    const struct series *s, size_t inc);
/* "pid A -> B" when both pids are known, else "NAME_A -> NAME_B"
 * (render_incarnation_name()); the same contract. */
const char *render_incarnation_pair(char *buf, size_t n,
				    const struct series *s, size_t from,
				    size_t to);
int render_settle(FILE *out, const struct target_findings *f);
/* The same as strings (malloc'd, the caller frees; never cut short).
 * render_settle_string() returns NULL for SETTLE_NONE. */
char *render_reason_string(const struct target_findings *f,
			   const struct reason *r);
char *render_settle_string(const struct target_findings *f);

/* Live one-line status for `record` on a terminal (to stderr): elapsed,
 * samples, current footprint, slope so far. Overwrites itself with \r;
 * render_status_end() finishes the line. */
void render_status_line(FILE *out, double elapsed_s, uint64_t samples,
			size_t targets, double footprint, double slope_bph);
/* The same for `record --all`, whose first target (the lowest pid) says
 * nothing of a host: elapsed, samples, the processes sampled at the last
 * tick, the sum of their footprints and the largest by name (escaped
 * here), each labelled: "recording 0:12  3400 samples  22 processes
 * (sum 1.2 GiB, largest postgres 310 MiB)". NAN and NULL show "-". */
void render_status_line_all(FILE *out, double elapsed_s, uint64_t samples,
			    size_t processes, double total,
			    const char *largest_name, double largest);
void render_status_end(FILE *out);

/* Escaping (render_escape.c). Both write a NUL-terminated result of at
 * most n-1 bytes into buf and return buf; a truncated result ends in
 * "...". */
/* Terminal: control bytes (C0, DEL, C1) as \xNN, invalid UTF-8 bytes as
 * \xNN, valid UTF-8 kept. */
char *render_escape_terminal(char *buf, size_t n, const char *s);
/* Valid UTF-8 for JSON: invalid bytes replaced by U+FFFD (the JSON encoder
 * escapes control characters itself). */
char *render_escape_utf8(char *buf, size_t n, const char *s);

/* HTML (render_html.c): one self-contained page (inline SVG plots, inline
 * CSS, a small inline script for hover readouts; a Content-Security-Policy
 * that allows no fetch at all). Plots per target: footprint over time with
 * idle windows, restarts, the slope and its 95 % band, plateau, caps and
 * limit; requests and connections on the same time axis; footprint
 * against cumulative requests; components stacked; gauges. Then the
 * verdict, reasons and findings as tables. Series of any length are drawn
 * from per-pixel-column extremes (svg.h): the page stays small. */
struct render_html_options {
	const struct analysis_cap *caps;  /* --cap: labelled lines */
	size_t n_caps;
	size_t top;                /* --top: the worst N targets' sections
				      (the overview says how many more);
				      0 = all */
};
int render_html(FILE *out, const struct dataset *d,
		const struct target_findings *f, size_t n,
		const struct render_html_options *o);
/* HTML text and attribute values (either quote): & < > " ' as entities,
 * control bytes as visible \xNN text (tab and newline kept), invalid
 * UTF-8 and noncharacters as U+FFFD. Writes at most n-1 bytes like the
 * others; 6 x strlen(s) + 4 bytes always hold the whole result. */
char *render_escape_html(char *buf, size_t n, const char *s);

/* ---- region breakdowns and the books (render_books.c) ----------------- */

#include <sys/types.h>

#include "machine.h"
#include "regions.h"

/* A region breakdown (regions.h) as a table by family plus its one-line
 * conclusion, or as JSON (docs/books.md). title names what was read (it
 * may hold a process name: escaped here); delta, when not NULL, adds the
 * growth per family since an earlier snapshot. Returns 0, or -1 when out
 * could not be written. */
int render_regions(FILE *out, const char *title,
		   const struct region_breakdown *b,
		   const struct region_breakdown *delta, bool json);
/* The conclusion alone: "footprint 230.7 GiB: 229.5 GiB (99 %) in GPU
 * memory (IOAccelerator (graphics)); host heap 13.4 MiB". Region names
 * are escaped for the terminal (terminal true) or made valid UTF-8.
 * Returns buf. */
char *render_regions_conclusion(char *buf, size_t n,
				const struct region_breakdown *b,
				bool terminal);

/* `memtrend books`: what each process may claim, summed against the
 * machine. Filled by cmd_books.c; rendered, never computed, here. */
enum books_cap_source {
	BOOKS_CAP_FOOTPRINT,   /* no cap known: the current footprint */
	BOOKS_CAP_PID,         /* --cap PID=SIZE */
	BOOKS_CAP_NAME,        /* --cap NAME=SIZE (comm) */
	BOOKS_CAP_ALL,         /* --cap SIZE (every selected process) */
	BOOKS_CAP_PLATEAU,     /* a plateau level from --from FILE */
};
extern const char *const books_cap_source_names[]; /* "footprint", "pid",
						      "name", "all",
						      "plateau" */

struct books_process {
	pid_t pid;
	char comm[64];             /* raw: escape before printing */
	const char *cmdline;       /* raw, borrowed; may be NULL */
	double footprint;          /* anon + swap + shmem (status) */
	double swap, rss;          /* NAN when absent */
	double cap;                /* bytes; NAN when none is known */
	enum books_cap_source cap_source;
	const char *cap_from;      /* borrowed: the NAME or the recording's
				      file; NULL otherwise */
	double books;              /* what it may claim: max(cap, footprint) */
	bool over_cap;             /* footprint above its cap */
};

struct books_report {
	const struct books_process *procs; /* by footprint, largest first */
	size_t n;                  /* every process counted in the sums */
	size_t listed;             /* how many of them to list (top N) */
	double footprint_sum, swap_sum, books_sum;
	struct sys_mem sys;        /* MemTotal, MemAvailable, swap */
	size_t skipped_denied;     /* status unreadable */
	size_t skipped_kernel;     /* kernel threads (no memory of their
				      own) and zombies */
	bool all_processes;        /* no PID or --name given */
};
int render_books_text(FILE *out, const struct books_report *r);
int render_books_json(FILE *out, const struct books_report *r);

/* ---- text plots (render_plot.c) ---------------------------------------- */

/* The footprint of s over time as a text plot filling width x height
 * character cells in all: y labels in human units, the plot, the time
 * axis and a line of UTC start/end labels. Braille dots (2 x 4 per cell)
 * when utf8, else ASCII marks (".", "'", ":"). Samples are placed by
 * time; each dot column keeps its minimum and maximum (a single spike
 * survives any number of samples) and consecutive samples of one
 * incarnation are joined; a restart is an "R" under the axis. f, when
 * not NULL, must be s's findings: it gives the range and the units
 * (decimal_units). One O(n) pass, O(width) memory. Draws nothing when s
 * has no finite footprint or the size leaves no room (height < 4, fewer
 * than 8 plot columns). Returns 0, or -1 when out could not be written. */
int render_plot_footprint(FILE *out, const struct series *s,
			  const struct target_findings *f, int width,
			  int height, bool utf8);
/* A sparkline of v[0..count) into buf (NUL-terminated, at most n-1
 * bytes): one bar per value, U+2581..U+2588 when utf8 (3 bytes each),
 * else "_.-:=+*#"; scaled between the smallest and largest finite value
 * drawn; a flat run is the middle bar, a missing (NAN) value a space.
 * When buf cannot hold them all, the last values that fit are drawn.
 * Returns buf. */
char *render_sparkline(char *buf, size_t n, const double *v, size_t count,
		       bool utf8);

/* ---- the live view of `memtrend watch` (render_watch.c) ----------------- */

/* What one frame shows. The view formats only: cmd_watch.c reads the
 * recording, analyses it and fills this in. */
struct watch_view {
	const char *output;        /* the recording's file name */
	double interval_s;         /* sampling interval */
	double elapsed_s;          /* since watch started */
	const struct series *s;    /* the target shown; NULL before the
				      first read */
	const struct target_findings *f; /* its findings (NULL likewise) */
	size_t n_targets;          /* targets in the recording */
	uint64_t samples;          /* the target's samples so far; the
				      findings may be of a thinned copy
				      (s): 0 shows f->samples */
	uint64_t stride;           /* s keeps one sample in stride (0 or
				      1: every sample) */
	const double *recent;      /* the newest footprints, unthinned,
				      oldest first; NULL: s's last points */
	size_t n_recent;
	bool components_read;      /* s carries anon/swap/shmem/file */
	bool stopping;             /* a stop was asked for */
	bool ended;                /* the recorder has finished */
	double refresh_s;          /* time between refreshes now */
	double refresh_cost_s;     /* last read + analysis; NAN before */
	bool slowed;               /* refresh_s raised because of that cost */
	const char *last_log;      /* the recorder's last line on stderr
				      (raw: escaped here), or NULL */
	int cols, rows;            /* terminal size (0: 80 x 24) */
	bool utf8;                 /* the terminal shows UTF-8 */
};
/* Enter the full-screen view (alternate screen, hidden cursor) and leave
 * it (cursor shown, normal screen back). */
void render_watch_begin(FILE *out);
void render_watch_end(FILE *out);
/* One frame, drawn row by row from the top-left corner with absolute
 * cursor positions (nothing scrolls), every row cleared and cut to
 * v->cols display columns. Returns 0, or -1 when out could not be
 * written. */
int render_watch_screen(FILE *out, const struct watch_view *v);
/* One plain line (when stdout is not a terminal): elapsed, target,
 * samples, footprint, slope, work, verdict and progress. */
int render_watch_line(FILE *out, const struct watch_view *v);


/* ---- the live table of `memtrend watch --all` (render_watch_table.c) ---- */

#include "live_table.h"

/* What one frame of the table shows; cmd/watch_all.c fills it in. */
struct watch_table_view {
	const char *output;        /* the recording's file name */
	double interval_s;         /* sampling interval */
	double elapsed_s;          /* since watch started */
	size_t n_targets;          /* targets followed now */
	uint64_t samples;          /* samples of every target so far */
	const struct live_table_row *rows; /* the worst first */
	size_t n_rows;             /* rows given (at most --top) */
	bool stopping;             /* a stop was asked for */
	bool ended;                /* the recorder has finished */
	double refresh_s;          /* time between refreshes now */
	double refresh_cost_s;     /* last drain + analyses; NAN before */
	size_t analysed;           /* targets analysed at the last refresh */
	const char *last_log;      /* the recorder's last line on stderr
				      (raw: escaped here), or NULL */
	int cols, rows_term;       /* terminal size (0: 80 x 24) */
	bool utf8;                 /* the terminal shows UTF-8 */
};
/* The column heads of a row, and one row (rank from 1): "  #      PID
 * VERDICT SO FAR        SLOPE   FOOTPRINT  SAMPLES  TARGET", the target's
 * name escaped and last (its width varies). A target not analysed yet
 * says "new", one analysed without a slope "collecting". */
void render_watch_table_head(char *buf, size_t n);
void render_watch_table_row(char *buf, size_t n, size_t rank,
			    const struct live_table_row *r);
/* One frame: a title, the column heads, as many rows as the terminal
 * holds above the log and refresh lines (the rest counted in one line),
 * drawn as render_watch_screen() draws. Returns 0, or -1 when out could
 * not be written. */
int render_watch_table_screen(FILE *out, const struct watch_table_view *v);
/* When stdout is not a terminal: a heading line ("0:00:03  22 targets
 * 412 samples") and the rows given, under the column heads; when ended,
 * where the evidence is. */
int render_watch_table_lines(FILE *out, const struct watch_table_view *v);

/* ---- `memtrend check` (render_gate.c) ------------------------------------ */

#include "gate.h"

/* One target's outcome: its display name (process-controlled, escaped
 * here), what was measured and what was judged. */
struct series;
struct sites_finding;
struct gate_row {
	const char *name;
	const struct gate_evidence *e;
	const struct gate_result *r;
	/* With record --sites (check --sites): the target's series and its
	 * sites as report analyses them; NULL without. A row that does not
	 * pass names its growing sites (GATE_SITES_NAMED at most). */
	const struct series *series;
	const struct sites_finding *sites;
};
#define GATE_SITES_NAMED 3
/* The one sentence for a target: "+3.9 KiB/req [+3.7 KiB/req, +4.1
 * KiB/req] over 20,000 requests, budget 1 KiB/req", with what would
 * decide when inconclusive. Unescaped; at most n-1 bytes. */
char *render_gate_sentence(char *buf, size_t n, const struct gate_evidence *e,
			   const struct gate_result *r);
/* "FAIL         NAME: sentence", one line per target. */
int render_gate_text(FILE *out, const struct gate_row *rows, size_t n);
/* {"outcome": overall, "targets": [...]} (docs/check.md). */
int render_gate_json(FILE *out, const struct gate_row *rows, size_t n,
		     const char *overall);
/* JUnit XML: one testsuite, one testcase per target; fail is a <failure
 * type="leak">, inconclusive a <failure type="inconclusive"> or, with
 * allow_inconclusive, <skipped>; the sentence is the message. */
int render_gate_junit(FILE *out, const struct gate_row *rows, size_t n,
		      double time_s, bool allow_inconclusive);
/* When the run itself failed (exit 3: the load failed, the service
 * died) there is no judgement, but a CI job still wants its report:
 * {"outcome": "error", "message": ..., "targets": []}, and a JUnit file
 * with one testcase named name holding an <error type="run">. message
 * is the reason, unescaped. */
int render_gate_json_error(FILE *out, const char *message);
int render_gate_junit_error(FILE *out, const char *name, const char *message,
			    double time_s);

#endif
