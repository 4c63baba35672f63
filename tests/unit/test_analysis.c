/*
 * test_analysis.c - findings and verdict rules on synthetic series with a
 * known ground truth, as a table of cases (input shape -> expected verdict
 * and figures). Expected numbers are hand computations, noted per case.
 * Also the escaping of process-controlled strings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "common.h"
#include "render.h"
#include "series.h"
#include "said.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024)
#define GiB (1024.0 * 1024 * 1024)

enum shape { FLAT, LINEAR, PLATEAU, ALTERNATE, STEP_RESTART };

struct verdict_case {
	const char *name;
	enum shape shape;
	size_t n;            /* points */
	double dt;           /* seconds between points */
	double base;         /* starting footprint, bytes */
	double rate;         /* bytes per second (LINEAR, PLATEAU early) */
	double quantum;      /* series quantum (text precision) */
	double mem_total;    /* NAN: unknown (CSV) */
	double suspect_bph;  /* 0: none */
	double cap;          /* 0: none */
	enum verdict expect;
	double expect_slope_bph;     /* NAN: not checked */
	double expect_detectable_bph;
};

static const struct verdict_case cases[] = {
	/* The field report's three flat whole-GB readings over 320 s:
	 * detectable = 1e9 / 320 s * 3600 = 1.125e10 B/h (by hand). */
	{"three flat GB readings", FLAT, 3, 160, 21e9, 0, 1e9, NAN, 0, 0,
	 VERDICT_INCONCLUSIVE, 0, 1.125e10},
	/* 1 MiB per minute for an hour at 4 KiB pages: exactly 60 MiB/h;
	 * every pairwise slope is equal so Theil-Sen is exact. */
	{"linear leak", LINEAR, 61, 60, 100 * MiB, MiB / 60, 4096, 16 * GiB,
	 0, 0, VERDICT_GROWING, 60 * MiB, NAN},
	/* Constant footprint, 4 min at 1 s: detectable = 4096 / 240 s * 3600
	 * = 61,440 B/h (interval [0, 0]), far below 16 GiB's concern -- but
	 * 4 min without the work recorded is no "stable" (rule 7). */
	{"steady", FLAT, 241, 1, 512 * MiB, 0, 4096, 16 * GiB, 0, 0,
	 VERDICT_INCONCLUSIVE, 0, 61440},
	/* The same over 20 min (241 points 5 s apart): long enough to call
	 * stable without the work recorded (rule 7: >= 10 min, >= 20
	 * samples); detectable 4096 B / 1200 s = 12,288 B/h. */
	{"steady 20 min", FLAT, 241, 5, 512 * MiB, 0, 4096, 16 * GiB, 0, 0,
	 VERDICT_STABLE, 0, 12288},
	/* Same, but the user suspects 1 KiB/h: 61,440 B/h > 1,024 B/h. */
	{"steady, tiny suspect", FLAT, 241, 1, 512 * MiB, 0, 4096, 16 * GiB,
	 1024, 0, VERDICT_INCONCLUSIVE, 0, 61440},
	/* Alternating +-4 KiB noise around a level: no trend. */
	{"noisy steady", ALTERNATE, 240, 15, 2 * GiB, 0, 4096, 16 * GiB, 0,
	 0, VERDICT_STABLE, NAN, NAN},
	/* Growth for the first third, then flat: a plateau. */
	{"cache plateau", PLATEAU, 180, 10, 50 * MiB, 64 * KiB, 4096,
	 16 * GiB, 0, 0, VERDICT_PLATEAU, NAN, NAN},
	/* Two points are too few for any slope. */
	{"two points", LINEAR, 2, 60, 1 * GiB, MiB, 4096, 16 * GiB, 0, 0,
	 VERDICT_INCONCLUSIVE, NAN, NAN},
};

/* Build the series of a case. */
static void build(const struct verdict_case *c, struct series *s)
{
	series_init(s, c->name);
	s->quantum = c->quantum;
	/* 4 KiB: pages, as a recording's readings are (its unit is known) */
	s->quantum_exact = c->quantum == 4096;
	s->mem_total = c->mem_total;
	uint32_t inc = series_add_incarnation(s, 42, 1, 1.7e9, "svc", "svc");
	double t0 = 1.7e9;
	size_t grow_until = c->n / 3;
	for (size_t i = 0; i < c->n; i++) {
		double t = t0 + c->dt * (double)i, y = c->base;
		switch (c->shape) {
		case FLAT: break;
		case LINEAR: y += c->rate * c->dt * (double)i; break;
		case PLATEAU:
			y += c->rate * c->dt *
			     (double)(i < grow_until ? i : grow_until);
			break;
		case ALTERNATE: y += (i % 2 ? 4096 : -4096) * (i % 3 ? 1 : 0);
			break;
		case STEP_RESTART: break;
		}
		/* Readings come in whole pages (or whole quanta). */
		y = round(y / c->quantum) * c->quantum;
		series_append(s, t, y, inc);
	}
}

static void test_verdict_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		const struct verdict_case *c = &cases[k];
		struct series s;
		build(c, &s);
		struct analysis_cap cap = {"cap", c->cap};
		struct analysis_options o = {
			.resolution = NAN, .limit = NAN,
			.has_suspect = c->suspect_bph > 0,
			.suspect = {c->suspect_bph, RATE_PER_HOUR},
			.caps = c->cap > 0 ? &cap : NULL,
			.n_caps = c->cap > 0,
		};
		struct target_findings f;
		analysis_run(&s, &o, &f);
		print_message("case '%s': %s (slope %g B/h, detectable %g)\n",
			      c->name, verdict_name(f.verdict),
			      f.slope.estimate,
			      f.detectable_bph);
		assert_string_equal(verdict_name(f.verdict),
				    verdict_name(c->expect));
		assert_true(f.reasons.n >= 1);
		if (!isnan(c->expect_slope_bph))
			assert_float_equal(f.slope.estimate,
					   c->expect_slope_bph,
					   1e-6 * fmax(1, c->expect_slope_bph));
		if (!isnan(c->expect_detectable_bph))
			assert_float_equal(f.detectable_bph,
					   c->expect_detectable_bph,
					   1e-6 * c->expect_detectable_bph);
		if (c->expect == VERDICT_INCONCLUSIVE)
			assert_true(f.settle.code != SETTLE_NONE);
		analysis_release(&f);
		series_release(&s);
	}
}

/* The flat GB case says what it could not see, in the source's units. */
static void test_flat_gb_reason_text(void **state)
{
	(void)state;
	struct series s;
	build(&cases[0], &s);
	struct analysis_options o = {.resolution = NAN, .limit = NAN};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	assert_true(reason_says(&f, 0, "about 1 GB per 320 s"));
	/* No limit known from a CSV: concern = largest reading doubled in
	 * 30 days = 21e9 / 720 h = 29,166,666.67 B/h (by hand). */
	assert_float_equal(f.concern_bph, 21e9 / 720, 1);
	/* Watch >= resolution / concern = 1e9 / (21e9/720) h = 34.29 h. */
	assert_float_equal(f.needed_span_s, 1e9 / (21e9 / 720) * 3600, 1);
	analysis_release(&f);
	series_release(&s);
}

/* Issue 26: readings that never change have no noise that could wander
 * together: nothing said about it, no inflation stated. And 1 GiB exactly,
 * repeated, is one value's zero bits: its resolution is the page. */
static void flat_series(struct series *s, double y, double quantum)
{
	series_init(s, "flat");
	s->quantum = quantum;
	s->quantum_exact = false;  /* a CSV: the unit is not known */
	uint32_t inc = series_add_incarnation(s, 42, 1, 1.7e9, "svc", "svc");
	for (size_t i = 0; i < 300; i++)
		series_append(s, 1.7e9 + 15.0 * (double)i, y, inc);
}

static void test_flat_no_wander(void **state)
{
	(void)state;
	/* "1.3 GiB" text: 1395864371.2 bytes, quantum 0.1 GiB; the fit on
	 * its rounding said "wander together over about 9.7 h, which widens
	 * the interval x1.8e-09" */
	const double ys[] = {1.3 * GiB, GiB, 21e9};
	const double qs[] = {0.1 * GiB, 0, 0};
	for (size_t k = 0; k < ARRAY_SIZE(ys); k++) {
		struct series s;
		flat_series(&s, ys[k], qs[k]);
		struct analysis_options o = {.resolution = NAN, .limit = NAN};
		struct target_findings f;
		analysis_run(&s, &o, &f);
		print_reasons(&f);
		assert_true(f.has_trend);
		assert_true(isnan(f.trend.variance_inflation));
		assert_true(isnan(f.trend.corr_time));
		assert_true(isnan(f.trend.ar_phi));
		assert_true(said(&f, "Theil-Sen slope 0 B/h"));
		assert_false(said(&f, "wander"));
		assert_false(said(&f, "widens"));
		assert_false(said(&f, "independently"));
		analysis_release(&f);
		series_release(&s);
	}
	/* 1 GiB in bytes, 300 times: 4 KiB pages, not a 1 GiB unit */
	struct series s;
	flat_series(&s, GiB, 0);
	struct analysis_options o = {.resolution = NAN, .limit = NAN};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.resolution_basis, RESOLUTION_SHARED);
	assert_float_equal(f.resolution, 4096, 0);
	assert_true(said(&f, "puts the resolution at 4 KiB"));
	analysis_release(&f);
	series_release(&s);
	/* "21000000000" in bytes: still whole GB */
	flat_series(&s, 21e9, 0);
	analysis_run(&s, &o, &f);
	assert_int_equal(f.resolution_basis, RESOLUTION_SHARED);
	assert_float_equal(f.resolution, 1e9, 0);
	analysis_release(&f);
	series_release(&s);
}

static void test_plateau_at_cap(void **state)
{
	(void)state;
	/* 50 MiB + 60 steps x 640 KiB = 50 MiB + 37.5 MiB = 87.5 MiB level;
	 * a 90 MiB cap is 2.8 % above it: "at cap". */
	struct verdict_case c = cases[0];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(cases[i].name, "cache plateau") == 0)
			c = cases[i];
	assert_string_equal(c.name, "cache plateau");
	struct series s;
	build(&c, &s);
	struct analysis_cap cap = {"pool", 90 * MiB};
	struct analysis_options o = {.resolution = NAN, .limit = NAN,
				     .caps = &cap, .n_caps = 1};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_PLATEAU);
	assert_true(f.plateau.found);
	assert_float_equal(f.plateau.level, 87.5 * MiB, 4096);
	assert_string_equal(f.plateau.cap_name, "pool");
	/* Reached at point 60 (t0 + 600 s). */
	assert_float_equal(f.plateau.since, 1.7e9 + 600, 10.01);
	/* A cap 20 % above the level is not "at cap". */
	cap.bytes = 110 * MiB;
	analysis_release(&f);
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_PLATEAU);
	assert_null(f.plateau.cap_name);
	analysis_release(&f);
	series_release(&s);
}

static void test_exhaustion(void **state)
{
	(void)state;
	/* 1 GiB/h from 4 GiB with a 16 GiB --limit: the last reading is
	 * 4 GiB + 1 GiB (1 h), headroom 11 GiB -> 11 h = 39,600 s. */
	struct verdict_case c = {"exhaust", LINEAR, 61, 60, 4 * GiB,
				 GiB / 3600, 4096, NAN, 0, 0,
				 VERDICT_GROWING, GiB, NAN};
	struct series s;
	build(&c, &s);
	struct analysis_options o = {.resolution = NAN, .limit = 16 * GiB};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_true(f.exhaustion.found);
	assert_string_equal(f.exhaustion.limit_source, "--limit");
	assert_float_equal(f.exhaustion.eta_s, 39600, 5);
	/* The slope of concern from the limit: 11 GiB / 720 h. */
	assert_float_equal(f.concern_bph, 11 * GiB / 720, 1e3);
	analysis_release(&f);
	series_release(&s);
}

static void test_restart_slope_from_latest(void **state)
{
	(void)state;
	/* Incarnation 1 grows fast, then a restart drops memory; the slope
	 * must come from incarnation 2 alone (flat), not span the drop. */
	struct series s;
	series_init(&s, "svc");
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	s.mem_total = 16 * GiB;
	uint32_t a = series_add_incarnation(&s, 10, 1, NAN, "svc", NULL);
	uint32_t b = series_add_incarnation(&s, 11, 2, NAN, "svc", NULL);
	for (int i = 0; i < 60; i++)
		series_append(&s, 1000 + i * 10, GiB + i * 10 * MiB, a);
	for (int i = 0; i < 120; i++)
		series_append(&s, 2000 + i * 10, 200 * MiB, b);
	struct analysis_options o = {.resolution = NAN, .limit = NAN};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.analysed_inc, 1);
	assert_float_equal(f.slope.estimate, 0, 1e-9);
	assert_int_equal(f.verdict, VERDICT_STABLE);
	assert_int_equal(f.n_incarnations, 2);
	analysis_release(&f);
	series_release(&s);
}

static void test_concern_sources(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "x");
	char src[96];
	double lim;
	struct analysis_options o = {.resolution = NAN, .limit = NAN};
	/* Nothing known: the largest reading doubled in 30 days. */
	assert_float_equal(analysis_concern_bph(&s, &o, 1e9, 2e9, false, src,
						sizeof(src), &lim),
			   2e9 / 720, 1e-6);
	assert_true(isnan(lim));
	/* MemTotal: (8 GiB - 1 GiB) / 720 h. */
	s.mem_total = 8 * GiB;
	assert_float_equal(analysis_concern_bph(&s, &o, GiB, GiB, false, src,
						sizeof(src), &lim),
			   7 * GiB / 720, 1e-3);
	assert_non_null(strstr(src, "MemTotal"));
	/* A cgroup limit beats MemTotal, --limit beats both. */
	s.cgroup_limit = 2 * GiB;
	analysis_concern_bph(&s, &o, GiB, GiB, false, src, sizeof(src), &lim);
	assert_float_equal(lim, 2 * GiB, 0);
	o.limit = 4 * GiB;
	analysis_concern_bph(&s, &o, GiB, GiB, false, src, sizeof(src), &lim);
	assert_float_equal(lim, 4 * GiB, 0);
	/* --suspect beats everything. */
	o.has_suspect = true;
	o.suspect = (struct rate){5 * MiB, RATE_PER_HOUR};
	assert_float_equal(analysis_concern_bph(&s, &o, GiB, GiB, false, src,
						sizeof(src), &lim),
			   5 * MiB, 0);
	/* Over the limit already: 1 % of it per 30 days, not negative. */
	o.has_suspect = false;
	assert_float_equal(analysis_concern_bph(&s, &o, 5 * GiB, 5 * GiB, false, src,
						sizeof(src), &lim),
			   0.01 * 4 * GiB / 720, 1e-3);
	series_release(&s);
}

struct escape_case {
	const char *in, *terminal, *utf8;
};

static const struct escape_case escapes[] = {
	{"plain", "plain", "plain"},
	{"a\033[2Jb", "a\\x1b[2Jb", "a\033[2Jb"},
	{"tab\there", "tab\\x09here", "tab\there"},
	{"caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9"},
	{"bad\xff", "bad\\xff", "bad\xef\xbf\xbd"},
	{"c1\xc2\x9b", "c1\\xc2\\x9b", "c1\xc2\x9b"},
	{"<script>alert(1)</script>", "<script>alert(1)</script>",
	 "<script>alert(1)</script>"},
};

static void test_escaping(void **state)
{
	(void)state;
	char buf[128];
	for (size_t i = 0; i < ARRAY_SIZE(escapes); i++) {
		assert_string_equal(render_escape_terminal(buf, sizeof(buf),
						    escapes[i].in),
				    escapes[i].terminal);
		assert_string_equal(render_escape_utf8(buf, sizeof(buf),
						escapes[i].in),
				    escapes[i].utf8);
	}
	/* HTML: the five special characters as entities (attribute-safe
	 * with either quote), control bytes as visible \xNN text, invalid
	 * UTF-8 as U+FFFD; valid UTF-8 kept. Expected strings written by
	 * hand from render_escape_html()'s contract in render.h. */
	static const struct {
		const char *in, *html;
	} html[] = {
		{"plain", "plain"},
		{"<script>alert(1)</script>",
		 "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"\"><img src=x onerror='a()'>",
		 "&quot;&gt;&lt;img src=x onerror=&#39;a()&#39;&gt;"},
		{"a&b", "a&amp;b"},
		{"esc\033[2J", "esc\\x1b[2J"},
		{"tab\tkept", "tab\tkept"},
		{"bad\xff", "bad\xef\xbf\xbd"},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
		{"c1\xc2\x9b", "c1\\x9b"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(html); i++)
		assert_string_equal(render_escape_html(buf, sizeof(buf), html[i].in),
				    html[i].html);
	/* JSON: C1 controls (U+0080-U+009F) in a process name come out as
	 * \u00XX, not raw (jansson writes them raw); C0 as jansson escapes
	 * them; other UTF-8 kept. */
	struct dataset d;
	dataset_init(&d, "x");
	struct series *t = dataset_add_target(&d, "c1\xc2\x85\xc2\x9b-\x1b-caf\xc3\xa9");
	t->quantum = 4096;
	series_add_incarnation(t, 1, 1, 1.7e9, "c1", NULL);
	for (int i = 0; i < 5; i++)
		series_append(t, 1.7e9 + i, 4096.0 * (100 + i), 0);
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	struct analysis_options ao;
	analysis_options_init(&ao);
	struct target_findings tf;
	analysis_run(t, &ao, &tf);
	assert_int_equal(render_json(mem, &d, &tf, 1), 0);
	fclose(mem);
	assert_non_null(strstr(json, "c1\\u0085\\u009b-\\u001B-caf\xc3\xa9"));
	assert_null(strstr(json, "\xc2\x85"));
	free(json);
	analysis_release(&tf);
	dataset_release(&d);
	/* Truncation ends in "..." and stays within the buffer. */
	char small[8];
	render_escape_terminal(small, sizeof(small), "abcdefghijkl");
	assert_string_equal(small, "abcd...");  /* 7 bytes + NUL */
}


/* ---- work: per-request slope, no-work rule, requests needed ---------- */

/* A service that keeps exactly half a page per request: 1 s samples, 10
 * requests per active sample, footprint = 100 MiB + 4096 * floor(work/2)
 * = +20,480 B per active sample, i.e. 2,048 B per request exactly. It
 * alternates 120 s of traffic with 120 s idle (footprint flat), 5 times.
 * Hand computation: work = 10 * (active samples) = 10 * 5 * 120 = 6,000
 * requests; the per-request slope is 2,048 B with a zero-width interval
 * (every pair of distinct work levels has exactly that slope). */
static void build_work(struct series *s, double per_sample, bool idle_drop)
{
	series_init(s, "worker");
	series_add_incarnation(s, 42, 1, 1.7e9, "worker", "worker");
	double work = 0;
	for (int i = 0; i < 1200; i++) {
		bool active = (i / 120) % 2 == 0;
		if (active && i % 120 != 0)
			work += per_sample;
		double fp = 100 * MiB + 4096 * floor(work / 2);
		if (idle_drop && !active)
			fp -= 65536 * (i % 120);  /* 64 KiB back a second */
		size_t k = series_append(s, 1.7e9 + i, fp, 0);
		series_set_requests(s, k, 1000 + work);
	}
	s->mem_total = 64 * GiB;
	s->quantum = 4096;
	s->quantum_exact = true; /* a recording: pages */
}

static void test_per_request_slope(void **state)
{
	(void)state;
	struct series s;
	build_work(&s, 10, false);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	const struct per_request_finding *pr = &f.per_request;
	assert_true(pr->recorded && pr->known && pr->found);
	/* 5 active stretches of 119 increments of 10. */
	assert_float_equal(pr->requests, 5 * 119 * 10, 1e-9);
	assert_float_equal(pr->slope.estimate, 2048, 1e-9);
	/* A perfect line, yet the interval keeps what the resolution leaves
	 * open: 20,480 B over 5,950 requests either side (by hand). */
	assert_float_equal(pr->slope.low, 2048 - 20480.0 / 5950, 1e-9);
	assert_float_equal(pr->slope.high, 2048 + 20480.0 / 5950, 1e-9);
	/* Every step of the footprint is 5 pages, so the inferred resolution
	 * is 20,480 B; detectable = max(20480 / 5950, half-width 0). */
	assert_float_equal(f.resolution, 20480, 1e-9);
	assert_float_equal(pr->detectable, 20480.0 / 5950, 1e-9);
	assert_true(pr->significant);
	/* Idle: the 4 flat stretches between the active ones (the last one
	 * too: 120 s), each from the last active sample of a stretch. */
	assert_true(f.idle.work_known);
	assert_int_equal(f.idle.n, 5);
	assert_false(f.idle.released);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_true(said(&f, "per request: +2 KiB/req"));
	bool idle_said = said(&f, "nothing was released");
	assert_true(idle_said);
	analysis_release(&f);
	series_release(&s);
}

/* Exhaustion per request: with --limit 2,048,000 B above the last
 * footprint and exactly 2,048 B per request, 1,000 more requests reach
 * it; the range comes from the interval, which is the slope plus and
 * minus what the resolution leaves open (20,480 B / 5,950 requests):
 * 2,048,000 / (2048 +- 3.442) = 998.32 to 1,001.68. */
static void test_exhaustion_per_request(void **state)
{
	(void)state;
	struct series s;
	build_work(&s, 10, false);
	struct analysis_options o;
	analysis_options_init(&o);
	o.limit = s.footprint[s.n - 1] + 2048 * 1000.0;
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_true(f.exhaustion.found);
	assert_float_equal(f.exhaustion.requests_left, 1000, 1e-9);
	double q = 20480.0 / 5950;
	assert_float_equal(f.exhaustion.requests_left_low,
			   2048000 / (2048 + q), 1e-6);
	assert_float_equal(f.exhaustion.requests_left_high,
			   2048000 / (2048 - q), 1e-6);
	assert_true(said(&f, "about 1,000 more requests"));
	analysis_release(&f);
	series_release(&s);
}

/* Growth slowing toward a level it has not reached: y = L - (L - y0) *
 * exp(-t / tau), L = 1 GiB, y0 = 512 MiB, tau = 2 h, 3 h at 60 s. The
 * medians of the thirds sit at t = 0.5, 1.5 and 2.5 h (monotone series),
 * equally spaced, where Aitken's extrapolation of an exponential is
 * exact: the estimate must be L up to the 4 KiB rounding (0.5 %). */
static void test_approach_level(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "slowing");
	series_add_incarnation(&s, 5, 1, 1.7e9, "slowing", "slowing");
	for (int i = 0; i <= 180; i++) {
		double t = 60.0 * i;
		double y = GiB - (GiB - 512 * MiB) * exp(-t / 7200);
		series_append(&s, 1.7e9 + t, 4096 * round(y / 4096), 0);
	}
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_false(f.plateau.found);
	assert_true(f.plateau.approaching);
	assert_float_equal(f.plateau.approach_level, GiB, 0.005 * GiB);
	assert_true(said(&f, "levels off near"));
	analysis_release(&f);
	series_release(&s);
}

/* Growth that slows without a level: y = 1 GiB + 512 MiB sqrt(t / 48 h),
 * 48 h at 60 s (still +5.3 MiB/h at the end). The thirds' medians pass
 * every test of approach_find() and Aitken's level from them is finite,
 * but sqrt never levels off: the quarters' two estimates differ by 0.63
 * of the rise (hand computation at the quarters' midpoints), so no level
 * is promised (issue 26's audit). */
static void test_sqrt_no_level(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "sqrt");
	series_add_incarnation(&s, 5, 1, 1.7e9, "sqrt", "sqrt");
	for (int i = 0; i <= 48 * 60; i++) {
		double t = 60.0 * i;
		double y = GiB + 512 * MiB * sqrt(t / (48 * 3600.0));
		series_append(&s, 1.7e9 + t, 4096 * round(y / 4096), 0);
	}
	s.quantum = 4096;
	s.quantum_exact = true;
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_false(f.plateau.approaching);
	assert_false(said(&f, "levels off near"));
	analysis_release(&f);
	series_release(&s);
}

/* A plateau just under MemTotal is "at MemTotal": 1 GiB/h for 6 h from
 * 58 GiB, then flat at 63.5 GiB for 6 h, with MemTotal 64 GiB (0.8 %
 * below it; no --cap, no cgroup limit). */
static void test_plateau_at_memtotal(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "full");
	series_add_incarnation(&s, 6, 1, 1.7e9, "full", "full");
	for (int i = 0; i <= 144; i++) {
		double h = i / 12.0;
		double y = fmin(58 * GiB + h * GiB, 63.5 * GiB);
		/* readings in whole pages, as /proc gives them: a resolution
		 * of 4 KiB (unrounded, each reading would be its own
		 * 89 MB step and the flat part could rule out nothing) */
		series_append(&s, 1.7e9 + h * 3600, 4096 * round(y / 4096), 0);
	}
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	s.mem_total = 64 * GiB;
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_PLATEAU);
	assert_non_null(f.plateau.cap_name);
	assert_string_equal(f.plateau.cap_name, "MemTotal");
	assert_float_equal(f.plateau.level, 63.5 * GiB, 1);
	analysis_release(&f);
	series_release(&s);
}

/* GPU memory in the footprint (analysis_gpu.c and the host limits).
 * Host part flat at 1 GiB; device-local memory 2 GiB growing 256 MiB/h
 * for 4 h at one sample a minute (every pairwise slope equal: Theil-Sen
 * exact). By hand: first 2 GiB, last 3 GiB, growth 1 GiB of the
 * footprint's 1 GiB, share 3/4 at the end. MemTotal 8 GiB bounds the
 * host part only: headroom 8 - 1 = 7 GiB, not 8 - 4 = 4 GiB, so the
 * slope of concern is 7 GiB / 720 h. */
/* Issue 28: each GPU a pool with its own limit. Host memory 1 GiB, flat,
 * under MemTotal 512 GiB; GPU 0 (24 GiB) holds 2 GiB growing 256 MiB/h
 * for 4 h (3 GiB at the end) beside 2 GiB of others'; GPU 1 (24 GiB)
 * holds 1 GiB beside 0.5 GiB of others'. Expected, by hand:
 *   GPU 0's limit 24 - 2 = 22 GiB, room 22 - 3 = 19 GiB, full in
 *   19 GiB / (256 MiB/h) = 76 h = 273,600 s: the exhaustion;
 *   GPU 1's limit 23.5 GiB, flat: none; host flat: none;
 *   the concern follows GPU 0: 19 GiB / 720 h.
 * Before: MemTotal with the footprint's slope, (512 - 1) GiB / (256
 * MiB/h) = 2,044 h, and a concern of 511 GiB / 720 h. */
static void test_gpu_pools(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "llm");
	s.quantum = 4096;
	s.quantum_exact = true;
	s.mem_total = 512 * GiB;
	series_add_incarnation(&s, 7, 1, 1.7e9, "llm", "llm");
	for (int i = 0; i <= 240; i++) {
		double g0 = 2 * GiB + i * (256 * MiB / 60), g1 = GiB;
		size_t k = series_append(&s, 1.7e9 + 60.0 * i,
					 GiB + g0 + g1, 0);
		series_set_component(&s, COMP_GPU, k, g0 + g1);
		series_set_component(&s, COMP_GPU0, k, g0);
		series_set_component(&s, COMP_GPU0 + 1, k, g1);
	}
	series_set_gpu_limit(&s, 0, 24 * GiB, 5 * GiB, "Tesla T4");
	series_set_gpu_limit(&s, 1, 24 * GiB, 1.5 * GiB, NULL);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_true(f.exhaustion.found);
	assert_float_equal(f.exhaustion.eta_s, 273600, 1);
	assert_float_equal(f.exhaustion.limit_bytes, 22 * GiB, 0);
	assert_string_equal(f.exhaustion.limit_source,
			    "GPU memory less what others hold");
	assert_float_equal(f.concern_bph, 19 * GiB / 720, 1e-3);
	assert_true(said(&f, "at this rate GPU 0 (Tesla T4, 24 GiB) fills in "
			 "3.2 d"));
	assert_int_equal(f.n_pools, 3);
	assert_string_equal(f.pools[0].id, "host");
	assert_string_equal(f.pools[1].id, "gpu0");
	assert_string_equal(f.pools[1].name, "GPU 0 (Tesla T4, 24 GiB)");
	assert_string_equal(f.pools[2].name, "GPU 1 (24 GiB)");
	assert_int_equal(f.exhaustion.pool, 1);
	assert_int_equal(f.concern_pool, 1);
	assert_float_equal(f.pools[0].last, GiB, 0);
	assert_float_equal(f.pools[0].limit_bytes, 512 * GiB, 0);
	assert_false(f.pools[0].exhausts);
	assert_float_equal(f.pools[1].last, 3 * GiB, 0);
	assert_float_equal(f.pools[1].slope.estimate, 256 * MiB, 1);
	assert_float_equal(f.pools[2].limit_bytes, 23.5 * GiB, 0);
	assert_false(f.pools[2].exhausts);
	analysis_release(&f);

	/* --limit 8 GiB bounds the footprint as a whole (5 GiB at the
	 * end, growing 256 MiB/h): 3 GiB / (256 MiB/h) = 12 h, before GPU
	 * 0's 76 h; the concern stays with it (GPU 0 grew no more). */
	o.limit = 8 * GiB;
	analysis_run(&s, &o, &f);
	assert_string_equal(f.pools[0].id, "limit");
	assert_int_equal(f.exhaustion.pool, 0);
	assert_float_equal(f.exhaustion.eta_s, 43200, 1);
	assert_string_equal(f.exhaustion.limit_source, "--limit");
	assert_float_equal(f.pools[1].eta_s, 273600, 1);
	assert_int_equal(f.concern_pool, -1);
	assert_float_equal(f.concern_bph, 3 * GiB / 720, 1e-3);
	analysis_release(&f);
	series_release(&s);
}

static void test_gpu_component(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "llm");
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	s.mem_total = 8 * GiB;
	series_add_incarnation(&s, 7, 1, 1.7e9, "llm", "llm");
	for (int i = 0; i <= 240; i++) {
		double gpu = 2 * GiB + i * (256 * MiB / 60);
		size_t k = series_append(&s, 1.7e9 + 60.0 * i, GiB + gpu, 0);
		series_set_component(&s, COMP_GPU, k, gpu);
	}
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_true(f.gpu.recorded);
	assert_int_equal(f.gpu.samples, 241);
	assert_float_equal(f.gpu.first, 2 * GiB, 0);
	assert_float_equal(f.gpu.last, 3 * GiB, 0);
	assert_float_equal(f.gpu.growth, GiB, 0);
	assert_float_equal(f.gpu.footprint_growth, GiB, 0);
	assert_float_equal(f.gpu.share_last, 0.75, 1e-12);
	assert_true(f.gpu.has_trend && f.gpu.significant);
	assert_float_equal(f.gpu.slope.estimate, 256 * MiB, 1);
	assert_float_equal(f.concern_bph, 7 * GiB / 720, 1e-3);
	assert_true(said(&f, "GPU memory (device-local) is 3 GiB, 75 % of the "
			 "footprint"));
	analysis_release(&f);

	/* A plateau at 7.8 GiB of footprint holding 2 GiB of GPU memory is
	 * 5.8 GiB of host memory: not "at MemTotal" (8 GiB); the same level
	 * without GPU memory would be (7.8 >= 0.95 * 8). */
	struct series p;
	series_init(&p, "cap");
	p.quantum = 4096;
	p.quantum_exact = true; /* a recording: pages */
	p.mem_total = 8 * GiB;
	series_add_incarnation(&p, 8, 1, 1.7e9, "cap", "cap");
	for (int i = 0; i <= 144; i++) {
		double h = i / 12.0;
		double y = fmin(6 * GiB + h * GiB, 7.8 * GiB);
		size_t k = series_append(&p, 1.7e9 + h * 3600,
					 4096 * round(y / 4096), 0);
		series_set_component(&p, COMP_GPU, k, 2 * GiB);
	}
	analysis_run(&p, &o, &f);
	assert_int_equal(f.verdict, VERDICT_PLATEAU);
	assert_null(f.plateau.cap_name);
	analysis_release(&f);
	free(p.comp[COMP_GPU]);
	p.comp[COMP_GPU] = NULL;
	analysis_run(&p, &o, &f);
	assert_non_null(f.plateau.cap_name);
	assert_string_equal(f.plateau.cap_name, "MemTotal");
	analysis_release(&f);
	series_release(&p);
	series_release(&s);
}

/* The same service giving memory back while idle: released = true, and
 * the per-request slope is still taken where the work was done. */
static void test_per_request_release_at_idle(void **state)
{
	(void)state;
	struct series s;
	build_work(&s, 10, true);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_true(f.idle.released);
	/* 119 seconds of 64 KiB a second in an idle stretch: 7.4 MiB, above
	 * 1 % of the ~100 MiB footprint. */
	assert_float_equal(f.idle.largest_decline, 65536 * 119, 1e-9);
	assert_true(f.per_request.found);
	assert_true(f.per_request.slope.estimate > 0);
	analysis_release(&f);
	series_release(&s);
}

/* No work: the counter stays at 1,000 while the footprint rises a page a
 * second (resolution 4 KiB).
 * Whatever the time slope, the verdict is inconclusive for want of work,
 * and with --suspect 1KiB/req the settle text asks for resolution /
 * suspect = 4096 / 1024 = 4 requests. */
static void test_no_work_inconclusive(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "idle");
	series_add_incarnation(&s, 7, 1, 1.7e9, "idle", "idle");
	for (int i = 0; i < 300; i++) {
		size_t k = series_append(&s, 1.7e9 + i, 10 * MiB + i * 4096.0,
					 0);
		series_set_requests(&s, k, 1000);
	}
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	struct analysis_options o;
	analysis_options_init(&o);
	o.has_suspect = true;
	o.suspect = (struct rate){1024, RATE_PER_REQUEST};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	assert_true(f.significant);           /* the time slope is there */
	assert_true(reason_says(&f, 0, "no work was done"));
	assert_float_equal(f.per_request.needed_requests, 4, 1e-9);
	assert_true(settle_says(&f, ">= 4 requests"));
	analysis_release(&f);
	series_release(&s);
}

/* A counter that resets mid-series (a wrap, or a server-side reset)
 * counts as Prometheus' increase(): 0..500 by 5 (i = 0..100), then
 * 0..490 by 5 (i = 101..199) -> 500 + 490 = 990 requests. Flat memory with MemTotal known: stable, and
 * the per-request figures are zero with a finite detectable slope. */
static void test_counter_reset_and_stable(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "steady");
	series_add_incarnation(&s, 9, 1, 1.7e9, "steady", "steady");
	for (int i = 0; i < 200; i++) {
		size_t k = series_append(&s, 1.7e9 + 10.0 * i, 64 * MiB, 0);
		series_set_requests(&s, k, 5.0 * (i % 101));
	}
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	s.mem_total = 64 * GiB;
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_float_equal(f.per_request.requests, 990, 1e-9);
	assert_float_equal(f.per_request.slope.estimate, 0, 1e-12);
	assert_float_equal(f.per_request.detectable, 4096.0 / 990, 1e-9);
	assert_int_equal(f.verdict, VERDICT_STABLE);
	analysis_release(&f);
	series_release(&s);
}

/* Too short a window with work known: the settle text gives both the time
 * and the requests still needed. 60 s at 1 s, 2 requests a second, flat
 * footprint, --suspect 100KiB/h with no limit. Per-request concern =
 * 102,400 B/h / 7,200 req/h (118 requests over 59 s) = 14.22 B/req; the
 * division needs 4096 / 14.22 = 288 requests in all, 170 more. */
static void test_requests_needed(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "short");
	series_add_incarnation(&s, 11, 1, 1.7e9, "short", "short");
	for (int i = 0; i < 60; i++) {
		size_t k = series_append(&s, 1.7e9 + i, 64 * MiB, 0);
		series_set_requests(&s, k, 2.0 * i);
	}
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	struct analysis_options o;
	analysis_options_init(&o);
	o.has_suspect = true;
	o.suspect = (struct rate){100 * 1024, RATE_PER_HOUR};
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	double rate_h = 118.0 / 59 * 3600;
	assert_float_equal(f.per_request.rate_per_h, rate_h, 1e-9);
	assert_float_equal(f.per_request.concern, 100 * 1024 / rate_h, 1e-9);
	assert_float_equal(f.per_request.needed_requests, 288, 1e-9);
	assert_true(settle_says(&f, "watch >="));
	assert_true(settle_says(&f, "or >= 170 requests more"));
	analysis_release(&f);
	series_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_table),
		cmocka_unit_test(test_flat_gb_reason_text),
		cmocka_unit_test(test_plateau_at_cap),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_restart_slope_from_latest),
		cmocka_unit_test(test_concern_sources),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_per_request_slope),
		cmocka_unit_test(test_per_request_release_at_idle),
		cmocka_unit_test(test_exhaustion_per_request),
		cmocka_unit_test(test_approach_level),
		cmocka_unit_test(test_sqrt_no_level),
		cmocka_unit_test(test_plateau_at_memtotal),
		cmocka_unit_test(test_no_work_inconclusive),
		cmocka_unit_test(test_counter_reset_and_stable),
		cmocka_unit_test(test_requests_needed),
		cmocka_unit_test(test_gpu_component),
		cmocka_unit_test(test_gpu_pools),
		cmocka_unit_test(test_flat_no_wander),
	};
	diag_set_quiet(true);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
