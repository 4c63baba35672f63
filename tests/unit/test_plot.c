/*
 * test_plot.c - render_plot.c as tables: small synthetic series -> the
 * exact text plot (ASCII and braille), values -> the exact sparkline; a
 * single spike among 10^5 flat samples must survive the per-column
 * min/max; no line is wider than asked; too small a size draws nothing.
 *
 * The expected ASCII plots were worked out by hand from the mapping in
 * render_plot.c (x = (t - start) / span x columns, floored; y = (v - min)
 * / (max - min) x (dot rows - 1), rounded; a join covers k - 1/2 .. k +
 * 1/2 in each dot column); the braille ones share that grid with 2 x 4
 * dots per cell (e.g. the first cell of the ramp: both dot columns on the
 * bottom dot row -> dots 7 and 8 -> U+28C0).
 *
 * Also the view of `memtrend watch` (render_watch.c), on hand-made
 * findings: the progress lines (the division for time and for requests,
 * "conclusive" once the verdict is), rows cut to the terminal's width, a
 * process name with an escape sequence shown escaped, the plain line.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analysis.h"
#include "common.h"
#include "render.h"
#include "series.h"

#define MiB (1024.0 * 1024.0)
#define T0 1777601040.0  /* 2026-05-01T02:04:00Z */

/* Build a series of n points (inc NULL: one incarnation). */
static void make_series(struct series *s, const double *t, const double *y,
			const unsigned *inc, size_t n)
{
	series_init(s, "test");
	series_add_incarnation(s, 100, 1, T0, "a", "a");
	series_add_incarnation(s, 200, 2, T0, "a", "a");
	for (size_t i = 0; i < n; i++)
		series_append(s, t[i], y[i], inc ? inc[i] : 0);
}

/* The plot as one string (caller frees). */
static char *plot_text(const struct series *s,
		       const struct target_findings *f, int w, int h,
		       bool utf8)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(render_plot_footprint(m, s, f, w, h, utf8), 0);
	fclose(m);
	return buf;
}

/* Code points in a line (every character drawn here is one column). */
static int columns(const char *s, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

static void assert_fits(const char *text, int width)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (columns(p, len) > width) {
			print_error("line wider than %d: '%.*s'\n", width,
				    (int)len, p);
			fail();
		}
		p += len + (nl ? 1 : 0);
	}
}

static const double ramp_t[] = {T0, T0 + 60, T0 + 120, T0 + 180, T0 + 240};
static const double ramp_y[] = {1 * MiB, 2 * MiB, 3 * MiB, 4 * MiB,
				5 * MiB};
static const double flat_y[] = {4 * MiB, 4 * MiB, 4 * MiB, 4 * MiB,
				4 * MiB};
static const double restart_y[] = {1 * MiB, 3 * MiB, 5 * MiB, 1 * MiB,
				   2 * MiB};
static const unsigned restart_inc[] = {0, 0, 0, 1, 1};

static void test_plot_table(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		const double *y;
		const unsigned *inc;
		int w, h;
		bool utf8;
		const char *want;
	} cases[] = {
		{"ramp, ASCII", ramp_y, NULL, 30, 5, false,
		 "5 MiB +                ....:''\n"
		 "      |      .....:'''''\n"
		 "1 MiB +..:''''\n"
		 "      +-----------------------\n"
		 "       02:04:00Z     02:08:00Z\n"},
		{"ramp, braille", ramp_y, NULL, 30, 5, true,
		 "5 MiB \u2524               \u2880\u28c0\u28e0\u2824\u2834"
		 "\u2812\u281a\u2809\n"
		 "      \u2502       \u28c0\u28c0\u28e0\u2824\u2834\u2812\u281a"
		 "\u2809\u2809\n"
		 "1 MiB \u2524\u28c0\u2864\u2824\u2816\u2812\u280b\u2809"
		 "\u2801\n"
		 "      \u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500\n"
		 "       02:04:00Z     02:08:00Z\n"},
		{"flat: a line in the middle of a band", flat_y, NULL, 30, 4,
		 false,
		 "4.04 MiB +....................\n"
		 "3.96 MiB +\n"
		 "         +--------------------\n"
		 "          02:04:00Z  02:08:00Z\n"},
		{"restart: no join across it, R under the axis", restart_y,
		 restart_inc, 30, 6, false,
		 "5 MiB +        ..:'\n"
		 "      |     ..:'\n"
		 "      |  ..:'               ..\n"
		 "1 MiB +.:'              .:'''\n"
		 "      +-----------------R-----\n"
		 "       02:04:00Z     02:08:00Z\n"},
		{"restart, braille, full dates", restart_y, restart_inc, 52, 6,
		 true,
		 "5 MiB \u2524                 \u28c0\u28e0\u2824\u2816\u281a"
		 "\u2809\n"
		 "      \u2502           \u28c0\u28e0\u2824\u2816\u281a\u2809"
		 "\u2801\n"
		 "      \u2502     \u28c0\u28e0\u2824\u2816\u281a\u2809\u2801"
		 "                                \u28c0\n"
		 "1 MiB \u2524\u28e0\u2824\u2816\u281a\u2809\u2801"
		 "                           \u2880\u28c0\u2864\u2824\u2824"
		 "\u2816\u2812\u2812\u280b\u2809\u2809\u2801\n"
		 "      \u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500R\u2500\u2500\u2500\u2500\u2500"
		 "\u2500\u2500\u2500\u2500\u2500\u2500\n"
		 "       2026-05-01T02:04:00Z     2026-05-01T02:08:00Z\n"},
		{"too narrow: nothing", ramp_y, NULL, 10, 5, false, ""},
		{"too low: nothing", ramp_y, NULL, 30, 3, false, ""},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct series s;
		make_series(&s, ramp_t, cases[i].y, cases[i].inc, 5);
		char *got = plot_text(&s, NULL, cases[i].w, cases[i].h,
				      cases[i].utf8);
		if (strcmp(got, cases[i].want) != 0) {
			print_error("%s:\n--- got\n%s--- want\n%s---\n",
				    cases[i].what, got, cases[i].want);
			fail();
		}
		assert_fits(got, cases[i].w);
		free(got);
		series_release(&s);
	}
}

/* With findings, the range and units come from them; same picture as
 * without when they describe the same series. */
static void test_plot_with_findings(void **state)
{
	(void)state;
	struct series s;
	make_series(&s, ramp_t, ramp_y, NULL, 5);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	char *with = plot_text(&s, &f, 30, 5, false);
	char *without = plot_text(&s, NULL, 30, 5, false);
	assert_string_equal(with, without);
	free(with);
	free(without);
	analysis_release(&f);
	series_release(&s);
}

static void test_plot_empty(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "empty");
	char *got = plot_text(&s, NULL, 80, 10, true);
	assert_string_equal(got, "");
	free(got);
	size_t i = series_append(&s, T0, NAN, 0);
	(void)i;
	got = plot_text(&s, NULL, 80, 10, true);
	assert_string_equal(got, "");
	free(got);
	series_release(&s);
}

/* One spike among 10^5 flat points, at the start, in the middle and at
 * the end: the top row shows it, in one place, in both modes; the bottom
 * row is the flat line across the whole width. */
static void test_plot_spike(void **state)
{
	(void)state;
	enum { N = 100000 };
	static const size_t where[] = {0, N / 2, N - 1};
	for (size_t w = 0; w < ARRAY_SIZE(where); w++) {
		for (int utf8 = 0; utf8 < 2; utf8++) {
			struct series s;
			series_init(&s, "spike");
			series_reserve(&s, N);
			for (size_t i = 0; i < N; i++)
				series_append(&s, T0 + i * 0.01,
					      i == where[w] ? 200 * MiB :
					      100 * MiB, 0);
			char *got = plot_text(&s, NULL, 80, 12, utf8);
			assert_fits(got, 80);
			/* Row 0: the label "200 MiB", the axis, then the
			 * spike's cell(s) only. */
			char *nl = strchr(got, '\n');
			assert_non_null(nl);
			*nl = '\0';
			const char *axis = utf8 ? "\u2524" : "+";
			char *cells = strstr(got, axis);
			assert_non_null(cells);
			cells += strlen(axis);
			int marks = 0;
			for (const char *p = cells; *p; p++)
				if (*p != ' ' && (((unsigned char)*p & 0xC0) !=
						  0x80))
					marks++;
			assert_true(strncmp(got, "200 MiB", 7) == 0);
			assert_true(marks >= 1 && marks <= 2);
			/* Where: start, middle or end of the 72 columns. */
			int col = columns(cells, strspn(cells, " "));
			if (where[w] == 0)
				assert_int_equal(col, 0);
			else if (where[w] == N - 1)
				assert_true(col >= 70);
			else
				assert_true(col >= 34 && col <= 37);
			/* The last plot row: the flat line, full width. */
			char *rows = nl + 1;
			for (int r = 1; r < 9; r++)
				rows = strchr(rows, '\n') + 1;
			nl = strchr(rows, '\n');
			*nl = '\0';
			assert_true(strncmp(rows, "100 MiB", 7) == 0);
			assert_int_equal(columns(rows, strlen(rows)), 80);
			free(got);
			series_release(&s);
		}
	}
}

/* O(n): 10^6 points in well under a second even unoptimised. */
static void test_plot_large(void **state)
{
	(void)state;
	enum { N = 1000000 };
	struct series s;
	series_init(&s, "large");
	series_reserve(&s, N);
	for (size_t i = 0; i < N; i++)
		series_append(&s, T0 + i, 100 * MiB + (double)(i % 1000) * 4096,
			      0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	char *got = plot_text(&s, NULL, 120, 20, true);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	assert_fits(got, 120);
	assert_true(secs < 5);
	free(got);
	series_release(&s);
}

static void test_sparkline_table(void **state)
{
	(void)state;
	static const double ramp[] = {0, 1, 2, 3, 4, 5, 6, 7};
	static const double flat[] = {5, 5, 5};
	static const double gap[] = {0, NAN, 7};
	static const double two[] = {0, 7};
	static const struct {
		const char *what;
		const double *v;
		size_t count, n;
		bool utf8;
		const char *want;
	} cases[] = {
		{"ramp", ramp, 8, 64, true,
		 "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"},
		{"ramp, ASCII", ramp, 8, 64, false, "_.-:=+*#"},
		{"flat: the middle bar", flat, 3, 64, true,
		 "\u2584\u2584\u2584"},
		{"flat, ASCII", flat, 3, 64, false, ":::"},
		{"a gap is a space", gap, 3, 64, true, "\u2581 \u2588"},
		{"a gap, ASCII", gap, 3, 64, false, "_ #"},
		{"room for one: the last value, alone so flat", two, 2, 4,
		 true, "\u2584"},
		{"room for 3 of 8: the last three, rescaled", ramp, 8, 4,
		 false, "_=#"},
		{"nothing", ramp, 0, 64, true, ""},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[64];
		memset(buf, 'x', sizeof(buf));
		char *r = render_sparkline(buf, cases[i].n, cases[i].v,
					   cases[i].count, cases[i].utf8);
		assert_ptr_equal(r, buf);
		if (strcmp(buf, cases[i].want) != 0) {
			print_error("%s: got '%s', want '%s'\n", cases[i].what,
				    buf, cases[i].want);
			fail();
		}
		assert_true(strlen(buf) < cases[i].n);
	}
}

/* ---- the watch view -------------------------------------------------- */

/* The rows of a frame (render_watch_screen() positions each row with
 * ESC [ r ; 1 H ESC [ 2 K, then writes its text). rows[] get malloc'd
 * copies; returns how many. */
static int screen_rows(const char *frame, char **rows, int max)
{
	int n = 0;
	const char *p = frame;
	while (n < max && (p = strstr(p, "\033[2K"))) {
		p += 4;
		size_t len = strcspn(p, "\033");
		rows[n] = strndup(p, len);
		n++;
		p += len;
	}
	return n;
}

static char *screen_text(const struct watch_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(render_watch_screen(m, v), 0);
	fclose(m);
	return buf;
}

static const char *row_starting(char **rows, int n, const char *prefix)
{
	for (int i = 0; i < n; i++)
		if (strncmp(rows[i], prefix, strlen(prefix)) == 0)
			return rows[i];
	return NULL;
}

static void test_watch_view(void **state)
{
	(void)state;
	static const double t[] = {T0, T0 + 1200, T0 + 2400, T0 + 3600};
	static const double y[] = {100 * MiB, 100 * MiB, 101 * MiB,
				   101 * MiB};
	struct series s;
	series_init(&s, "srv\033[2J");
	series_add_incarnation(&s, 4321, 1, T0, "srv", "srv --port 1");
	for (size_t i = 0; i < 4; i++)
		series_append(&s, t[i], y[i], 0);
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.series = &s;
	f.samples = f.analysed_samples = 4;
	f.start = f.an_start = T0;
	f.end = f.an_end = T0 + 3600;
	f.span_s = f.an_span_s = 3600;
	f.fp_first = f.fp_min = 100 * MiB;
	f.fp_last = f.fp_max = 101 * MiB;
	f.has_trend = true;
	f.slope.estimate = 1 * MiB;
	f.slope.low = -10 * MiB;
	f.slope.high = 12 * MiB;
	f.slope.p = 0.3;
	f.detectable_bph = 11 * MiB;
	f.concern_bph = 50 * MiB;
	f.needed_span_s = 4 * 3600;
	f.verdict = VERDICT_INCONCLUSIVE;
	struct reason *why = reason_list_add(&f.reasons, REASON_UNSEEN);
	why->u.unseen.resolution = 4096;
	why->u.unseen.span_s = 3600;
	why->u.unseen.detectable_bph = 11 * MiB;
	f.per_request.recorded = f.per_request.known = true;
	f.per_request.requests = 1000;
	f.per_request.needed_requests = 5000;
	f.per_request.concern = 4096;
	struct watch_view v = {
		.output = "run.db", .interval_s = 15, .elapsed_s = 3725,
		.s = &s, .f = &f, .n_targets = 1, .refresh_s = 2,
		.refresh_cost_s = 0.003, .cols = 80, .rows = 24,
	};
	char *frame = screen_text(&v);
	char *rows[64];
	int n = screen_rows(frame, rows, 64);
	assert_int_equal(n, 24);
	for (int i = 0; i < n; i++)
		assert_true(columns(rows[i], strlen(rows[i])) <= 80);
	const char *r = row_starting(rows, n, "progress");
	assert_non_null(r);
	assert_string_equal(r, "progress   [####............] 25 % of 4 h: "
			    "about 3 h more to see +50 MiB/h");
	r = row_starting(rows, n, "        or ");
	assert_non_null(r);
	assert_string_equal(r, "        or [###.............] 20 % of 5,000 "
			    "requests: 4,000 more for +4 KiB/req");
	r = row_starting(rows, n, "target");
	assert_non_null(r);
	assert_non_null(strstr(r, "srv\\x1b[2J: pid 4321  srv --port 1"));
	assert_null(strchr(r, '\033'));
	assert_non_null(row_starting(rows, n, "memtrend watch  run.db  "
				     "recording every 15 s  1:02:05  4 "
				     "samples"));
	assert_non_null(row_starting(rows, n, "verdict    inconclusive: "
				     "this window could not"));
	assert_non_null(row_starting(rows, n, "refresh    every 2 s (read "
				     "+ analysis 3 ms; components "
				     "skipped)"));
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(frame);

	/* Conclusive: a full bar; a narrow terminal cuts rows with "...". */
	f.verdict = VERDICT_GROWING;
	v.cols = 40;
	v.rows = 12;
	frame = screen_text(&v);
	n = screen_rows(frame, rows, 64);
	assert_int_equal(n, 12);
	for (int i = 0; i < n; i++)
		assert_true(columns(rows[i], strlen(rows[i])) <= 40);
	r = row_starting(rows, n, "progress");
	assert_non_null(r);
	assert_string_equal(r, "progress   [##########] conclusive so...");
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(frame);

	/* The plain line. */
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	f.verdict = VERDICT_INCONCLUSIVE;
	assert_int_equal(render_watch_line(m, &v), 0);
	fclose(m);
	assert_string_equal(line, "1:02:05  srv\\x1b[2J  samples 4  "
			    "footprint 101 MiB  slope +1 MiB/h (-10 MiB/h to "
			    "+12 MiB/h)  requests 1,000  verdict "
			    "inconclusive  progress 25 % (about 3 h more to "
			    "see +50 MiB/h)  requests progress 20 %\n");
	free(line);
	reason_list_release(&f.reasons);
	series_release(&s);
}

/* ---- the table of watch --all, record --all's status line ------------- */

static void test_watch_table(void **state)
{
	(void)state;
	/* Inputs -> the row each gives (the column heads above them). */
	static const struct {
		struct live_table_row r;
		const char *want;
	} cases[] = {
		{{.name = "srv\033[2J", .pid = 4321, .samples = 412,
		  .footprint = 101 * MiB, .analysed = true,
		  .verdict = VERDICT_GROWING, .has_trend = true,
		  .slope_bph = 1 * MiB},
		 "   1     4321  growing              +1 MiB/h     101 MiB"
		 "      412  srv\\x1b[2J"},
		{{.name = "bash", .pid = 17, .samples = 2,
		  .footprint = 1.5 * MiB, .analysed = true,
		  .verdict = VERDICT_INCONCLUSIVE, .slope_bph = NAN},
		 "   2       17  collecting                  -     1.5 M"
		 "iB        2  bash"},
		{{.name = "late", .pid = 9, .samples = 1,
		  .footprint = 300 * MiB, .slope_bph = NAN},
		 "   3        9  new                         -     300 M"
		 "iB        1  late"},
	};
	char line[512];
	render_watch_table_head(line, sizeof(line));
	assert_string_equal(line, "   #      PID  VERDICT SO FAR          "
			    "SLOPE   FOOTPRINT  SAMPLES  TARGET");
	struct live_table_row rows[3];
	for (size_t i = 0; i < 3; i++) {
		render_watch_table_row(line, sizeof(line), i + 1,
				       &cases[i].r);
		assert_string_equal(line, cases[i].want);
		rows[i] = cases[i].r;
	}

	/* The screen: 80 x 7 holds the title, the heads, 2 rows, one line
	 * for the rest, the log and refresh lines. */
	struct watch_table_view v = {
		.output = "host.db", .interval_s = 1, .elapsed_s = 65,
		.n_targets = 22, .samples = 1400, .rows = rows, .n_rows = 3,
		.refresh_s = 1, .refresh_cost_s = 0.012, .analysed = 4,
		.cols = 80, .rows_term = 7,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_int_equal(render_watch_table_screen(m, &v), 0);
	fclose(m);
	char *r[16];
	int n = screen_rows(buf, r, 16);
	assert_int_equal(n, 7);
	assert_string_equal(r[0], "memtrend watch  host.db  recording every "
			    "1 s  0:01:05  22 targets, 1400 samples");
	assert_string_equal(r[2], cases[0].want);
	assert_string_equal(r[3], cases[1].want);
	assert_string_equal(r[4], "   ... 20 more (memtrend report host.db "
			    "ranks them all)");
	assert_string_equal(r[5], "");
	assert_string_equal(r[6], "refresh    every 1 s; targets analysed in "
			    "turn (4 at the last refresh, 12 ms)");
	for (int i = 0; i < n; i++) {
		assert_true(columns(r[i], strlen(r[i])) <= 80);
		assert_null(strchr(r[i], '\033'));
		free(r[i]);
	}
	free(buf);

	/* Plain: a heading, the heads, every row given. */
	v.ended = true;
	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_int_equal(render_watch_table_lines(m, &v), 0);
	fclose(m);
	char want[2048];
	render_watch_table_head(line, sizeof(line));
	snprintf(want, sizeof(want), "0:01:05  ended  22 targets  1400 "
		 "samples  (the worst 3)  (evidence: memtrend report "
		 "host.db)\n%s\n%s\n%s\n%s\n", line, cases[0].want,
		 cases[1].want, cases[2].want);
	assert_string_equal(buf, want);
	free(buf);

	/* record --all's status line: labelled, the name escaped. */
	buf = NULL;
	m = open_memstream(&buf, &len);
	render_status_line_all(m, 12, 3400, 22, 1.5 * 1024 * MiB,
			       "post\033gres", 310 * MiB);
	fclose(m);
	assert_string_equal(buf, "\r\033[Krecording 12 s  3400 samples  22 "
			    "processes (sum 1.5 GiB, largest post\\x1bgres "
			    "310 MiB)");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot_table),
		cmocka_unit_test(test_plot_with_findings),
		cmocka_unit_test(test_plot_empty),
		cmocka_unit_test(test_plot_spike),
		cmocka_unit_test(test_plot_large),
		cmocka_unit_test(test_sparkline_table),
		cmocka_unit_test(test_watch_view),
		cmocka_unit_test(test_watch_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
