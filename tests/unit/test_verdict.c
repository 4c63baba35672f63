/*
 * test_verdict.c - the decision rules of docs/verdicts.md as a table:
 * each row a set of facts (struct verdict_facts) and the rule, hence the
 * verdict, that must decide it, the rule it follows cited in a comment.
 * Then the reasons as data: kept whatever their number, and said in
 * English by render_reason.c, with the shared "n/a" formatters.
 *
 * Does not compute findings from series (test_analysis.c does): the facts
 * here are set by hand so that each row isolates one rule or one order
 * between two rules.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "render.h"

#define MiB (1024.0 * 1024.0)

/* A window that can see the slope of concern and saw none: stable. The
 * rows below change what their rule needs. Rates in bytes per hour; the
 * per-request ones in bytes per request. */
static struct verdict_facts base(void)
{
	return (struct verdict_facts){
		.has_trend = true,
		.requests = NAN,
		.slope = {.estimate = 0, .low = -1 * MiB, .high = 1 * MiB,
			  .p = 0.6},
		.detectable_bph = 1 * MiB,
		.concern_bph = 10 * MiB,
		.pr_slope = {NAN, NAN, NAN, NAN},
		.pr_detectable = NAN,
		.pr_concern = NAN,
		.span_s = 3600,
		.samples = 241,
	};
}

/* Which facts a row changes from base(). */
enum change {
	C_NONE = 0,
	C_NO_TREND = 1 << 0,       /* fewer than 3 points or no span */
	C_RES_UNKNOWN = 1 << 1,    /* never changed, no unit shared */
	C_WORK_FLAT = 1 << 2,      /* counter with readings, no increase */
	C_WORK_NO_READINGS = 1 << 3, /* counter, no readings in the window */
	C_WORK_NAN = 1 << 4,       /* counter with readings, work unknown */
	C_CYCLES_2 = 1 << 5,       /* memory cycles, 2 whole cycles */
	C_CYCLES_3 = 1 << 6,       /* memory cycles, 3 whole cycles */
	C_PLATEAU = 1 << 7,        /* grow-then-hold won, the level held */
	C_RISES = 1 << 8,          /* time slope significantly > 0 */
	C_DECLINES = 1 << 9,       /* time slope significantly < 0 */
	C_RISES_NS = 1 << 10,      /* > 0 but not significant */
	C_NO_CONCERN = 1 << 11,    /* slope of concern unknown */
	C_DETECTABLE_HIGH = 1 << 12, /* detectable > concern */
	C_CI_HIGH = 1 << 13,       /* interval's upper end > concern */
	C_PR_RISES = 1 << 14,      /* per request significantly > 0 */
	C_PR_SEEN = 1 << 15,       /* per request: flat, concern seen */
	C_PR_DETECTABLE_HIGH = 1 << 16, /* per request detectable > concern */
	C_PR_CI_HIGH = 1 << 17,    /* per request interval above concern */
	C_PR_NO_CONCERN = 1 << 18, /* per request: no concern known */
	C_SHORT = 1 << 19,         /* 80 s, 81 samples */
	C_FEW_SAMPLES = 1 << 20,   /* 1 h, 3 samples */
	/* materiality (issue 28): readings in 4 KiB pages */
	C_PLATEAU_PAGES = 1 << 21, /* a plateau that rose 9.6 KiB (2.4
				      pages: the bash of issue 28) */
	C_PLATEAU_5_PAGES = 1 << 22, /* ... that rose 5 pages */
	C_RISES_TINY = 1 << 23,    /* significant, far below the concern:
				      the VM's 10.8 MiB of issue 28, +847
				      KiB/h (598 KiB/h to 1 MiB/h) against
				      34.1 MiB/h */
	C_RISES_3_PAGES = 1 << 24, /* significant, under the concern, not
				      far below: 3 pages in all */
	C_RISES_5_PAGES = 1 << 25, /* ... 5 pages in all */
	C_PR_RISES_TINY = 1 << 26, /* per request: +10 B/req (8 to 12)
				      against 1 KiB/req */
};

static struct verdict_facts facts(unsigned c)
{
	struct verdict_facts v = base();
	if (c & C_NO_TREND) {
		v.has_trend = false;
		v.slope = (struct slope){NAN, NAN, NAN, NAN};
		v.detectable_bph = NAN;
	}
	if (c & C_RES_UNKNOWN)
		v.resolution_unknown = true;
	if (c & (C_WORK_FLAT | C_WORK_NO_READINGS | C_WORK_NAN))
		v.work_recorded = true;
	if (c & (C_WORK_FLAT | C_WORK_NAN))
		v.work_known = true;
	if (c & C_WORK_FLAT)
		v.requests = 0;
	if (c & (C_CYCLES_2 | C_CYCLES_3)) {
		v.cycles = true;
		v.whole_cycles = c & C_CYCLES_2 ? 2 : 3;
	}
	if (c & C_PLATEAU)
		v.plateau = true;
	if (c & C_RISES) {
		v.significant = true;
		v.slope = (struct slope){5 * MiB, 4 * MiB, 6 * MiB, 1e-4};
		v.amount = 5 * MiB;    /* over the hour */
	}
	if (c & C_DECLINES) {
		v.significant = true;
		v.slope = (struct slope){-5 * MiB, -6 * MiB, -4 * MiB, 1e-4};
	}
	if (c & C_RISES_NS)
		v.slope = (struct slope){0.5 * MiB, -0.5 * MiB, 1.5 * MiB,
					 0.2};
	if (c & C_NO_CONCERN)
		v.concern_bph = NAN;
	if (c & C_DETECTABLE_HIGH)
		v.detectable_bph = 40 * MiB;
	if (c & C_CI_HIGH)
		v.slope.high = 12 * MiB;
	if (c & (C_PR_RISES | C_PR_SEEN | C_PR_DETECTABLE_HIGH | C_PR_CI_HIGH |
		 C_PR_NO_CONCERN)) {
		v.work_recorded = v.work_known = true;
		v.requests = 10000;
		v.pr_found = true;
		v.pr_slope = (struct slope){0, -10, 10, 0.7};
		v.pr_detectable = 10;
		v.pr_concern = 1024;
	}
	if (c & C_PR_RISES) {
		v.pr_significant = true;
		v.pr_slope = (struct slope){2048, 2000, 2100, 1e-5};
	}
	if (c & C_PR_DETECTABLE_HIGH)
		v.pr_detectable = 4096;
	if (c & C_PR_CI_HIGH)
		v.pr_slope.high = 2048;
	if (c & C_PR_NO_CONCERN)
		v.pr_concern = NAN;
	if (c & C_SHORT) {
		v.span_s = 80;
		v.samples = 81;
	}
	if (c & C_FEW_SAMPLES)
		v.samples = 3;
	if (c & (C_PLATEAU_PAGES | C_PLATEAU_5_PAGES | C_RISES_TINY |
		 C_RISES_3_PAGES | C_RISES_5_PAGES | C_PR_RISES_TINY))
		v.resolution = 4096;
	if (c & (C_PLATEAU_PAGES | C_PLATEAU_5_PAGES)) {
		v.plateau = true;
		v.plateau_rise = c & C_PLATEAU_PAGES ? 9831 : 5 * 4096;
	}
	if (c & C_RISES_TINY) {
		v.significant = true;
		v.slope = (struct slope){847 * 1024.0, 598 * 1024.0, 1 * MiB,
					 7e-4};
		v.concern_bph = 34.1 * MiB;
		v.amount = 847 * 1024.0 * 80 / 3600;
	}
	if (c & (C_RISES_3_PAGES | C_RISES_5_PAGES)) {
		/* 1.6 to 8 MiB/h against 10: not far below */
		v.significant = true;
		v.slope = (struct slope){4 * MiB, 1.6 * MiB, 8 * MiB, 1e-3};
		v.amount = (c & C_RISES_3_PAGES ? 3 : 5) * 4096.0;
	}
	if (c & C_PR_RISES_TINY) {
		v.work_recorded = v.work_known = true;
		v.requests = 10000;
		v.pr_found = v.pr_significant = true;
		v.pr_slope = (struct slope){10, 8, 12, 1e-4};
		v.pr_detectable = 2;
		v.pr_concern = 1024;
		v.pr_amount = 10 * 10000.0;
	}
	if (c & C_CI_HIGH)
		v.slope.high = 12 * MiB;
	if (c & C_NO_CONCERN)
		v.concern_bph = NAN;
	return v;
}

struct row {
	unsigned change;
	enum verdict_rule rule;
	const char *why;
};

/* Rule numbers are docs/verdicts.md's decision table. */
static const struct row rows[] = {
	/* rule 8: nothing else applies */
	{C_NONE, RULE_STABLE, "8: seen, nothing found"},
	/* rule 1 */
	{C_NO_TREND, RULE_TOO_FEW, "1: < 3 samples or no span"},
	{C_NO_TREND | C_WORK_FLAT | C_PLATEAU | C_RISES, RULE_TOO_FEW,
	 "1 comes before everything"},
	{C_RES_UNKNOWN, RULE_RESOLUTION_UNKNOWN,
	 "1: readings that never changed and share no unit cannot show a "
	 "slope"},
	{C_RES_UNKNOWN | C_WORK_FLAT, RULE_RESOLUTION_UNKNOWN,
	 "1 before 2"},
	/* rule 2 */
	{C_WORK_FLAT, RULE_NO_WORK, "2: a counter that did not increase"},
	{C_WORK_FLAT | C_RISES, RULE_NO_WORK,
	 "2: whatever the time slope says"},
	{C_WORK_FLAT | C_PLATEAU | C_CYCLES_2, RULE_NO_WORK,
	 "2 before 3 and 4"},
	{C_WORK_NAN, RULE_NO_WORK, "2: work not known to have increased"},
	{C_WORK_NO_READINGS, RULE_STABLE,
	 "2 does not apply to a counter with no readings (8)"},
	/* rule 3 */
	{C_CYCLES_2, RULE_FEW_CYCLES, "3: fewer than 3 whole cycles"},
	{C_CYCLES_2 | C_PLATEAU | C_RISES, RULE_FEW_CYCLES, "3 before 4, 5"},
	{C_CYCLES_3, RULE_STABLE, "3 does not apply with 3 cycles (8)"},
	{C_CYCLES_3 | C_RISES, RULE_GROWING, "5 on the cycles' floors"},
	/* rule 4 */
	{C_PLATEAU, RULE_PLATEAU, "4: rising then holding, level held"},
	{C_PLATEAU | C_RISES, RULE_PLATEAU,
	 "4 before 5: the whole window's model choice decides"},
	{C_PLATEAU | C_NO_CONCERN, RULE_PLATEAU, "4 before 6"},
	/* rule 5 */
	{C_RISES, RULE_GROWING, "5: interval above zero, p < 0.05"},
	{C_RISES | C_DETECTABLE_HIGH | C_NO_CONCERN, RULE_GROWING,
	 "5 before 6: a significant rise needs no concern"},
	{C_PR_RISES, RULE_GROWING,
	 "5: per request, time slope not significant"},
	{C_PR_RISES | C_RISES_NS, RULE_GROWING,
	 "5: per request, time slope positive but not significant"},
	{C_PR_RISES | C_DECLINES | C_PR_NO_CONCERN, RULE_STABLE,
	 "5 does not apply per request while time declines (8)"},
	{C_RISES_NS, RULE_STABLE, "5 needs significance; 8"},
	/* rule 6 */
	{C_NO_CONCERN, RULE_UNSEEN, "6: no slope of concern"},
	{C_DETECTABLE_HIGH, RULE_UNSEEN, "6: detectable > concern"},
	{C_CI_HIGH, RULE_UNSEEN, "6: interval reaches above the concern"},
	{C_DECLINES | C_NO_CONCERN, RULE_UNSEEN,
	 "6: a decline with no concern known"},
	{C_PR_DETECTABLE_HIGH, RULE_UNSEEN,
	 "6 per request: detectable > concern"},
	{C_PR_CI_HIGH, RULE_UNSEEN,
	 "6 per request: interval reaches above the concern"},
	{C_PR_RISES | C_DECLINES, RULE_UNSEEN,
	 "6 per request when 5 does not apply: its interval is above the "
	 "per-request concern"},
	/* rule 7 */
	{C_SHORT, RULE_SHORT_WINDOW,
	 "7: 80 s without the work recorded is no stable"},
	{C_FEW_SAMPLES, RULE_SHORT_WINDOW,
	 "7: 3 samples without the work recorded is no stable"},
	{C_SHORT | C_RISES, RULE_GROWING, "5 before 7"},
	{C_SHORT | C_DETECTABLE_HIGH, RULE_UNSEEN, "6 before 7"},
	{C_SHORT | C_WORK_FLAT, RULE_NO_WORK, "2 before 7"},
	{C_SHORT | C_PR_SEEN, RULE_STABLE,
	 "7 does not apply when the work is recorded and done (8)"},
	{C_SHORT | C_WORK_NO_READINGS, RULE_SHORT_WINDOW,
	 "7: a counter with no readings in the window says no more than "
	 "none"},
	/* rule 8 */
	{C_DECLINES, RULE_STABLE, "8: a significant decline is stable"},
	{C_PR_SEEN, RULE_STABLE, "8: per request seen too"},
	{C_PR_NO_CONCERN | C_PR_DETECTABLE_HIGH, RULE_STABLE,
	 "8: no per-request concern, only time decides"},
	/* materiality (issue 28): growth below anything that matters is no
	 * growth for rules 4 and 5; the rules after them decide */
	{C_PLATEAU_PAGES, RULE_STABLE,
	 "4 set aside: a rise of 2.4 pages (320 -> 328 KiB), then held"},
	{C_PLATEAU_PAGES | C_SHORT, RULE_SHORT_WINDOW,
	 "4 set aside, then 7 in a short window"},
	{C_PLATEAU_5_PAGES, RULE_PLATEAU, "4: 5 pages are more than a few"},
	{C_RISES_TINY | C_SHORT, RULE_SHORT_WINDOW,
	 "5 set aside: the VM's 80 s, upper end 1/34 of the concern; 7"},
	{C_RISES_TINY, RULE_STABLE, "5 set aside, a long window: 8"},
	{C_RISES_TINY | C_DETECTABLE_HIGH, RULE_UNSEEN,
	 "5 set aside, then 6: the window could not see the concern"},
	{C_RISES_3_PAGES, RULE_STABLE,
	 "5 set aside: 3 pages in all, upper end below the concern"},
	{C_RISES_3_PAGES | C_CI_HIGH, RULE_GROWING,
	 "5: a few pages, but the upper end above the concern: never "
	 "hidden"},
	{C_RISES_5_PAGES, RULE_GROWING,
	 "5: 5 pages, not far below the concern"},
	{C_RISES_TINY | C_NO_CONCERN, RULE_GROWING,
	 "5: no concern known, nothing to call it immaterial by"},
	{C_PR_RISES_TINY, RULE_STABLE,
	 "5 set aside per request: 12 B/req against 1 KiB/req"},
	{C_PR_RISES_TINY | C_RISES_3_PAGES | C_CI_HIGH, RULE_GROWING,
	 "5 by time when the per-request growth is immaterial"},
	{C_PLATEAU_PAGES | C_RISES, RULE_GROWING,
	 "4 set aside, 5 applies: the slope that matters decides"},
};

static const char *const rule_names[] = {
	"too few", "resolution unknown", "no work", "few cycles", "plateau",
	"growing", "unseen", "short window", "stable", "pooled growing",
	"pooled stable",
};
_Static_assert(sizeof(rule_names) / sizeof(rule_names[0]) ==
	       RULE_POOLED_STABLE + 1, "a name for every rule");

static void test_decision_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct verdict_facts v = facts(rows[i].change);
		enum verdict_rule got = verdict_rule_of(&v);
		if (got != rows[i].rule)
			fail_msg("row %zu (%s): rule %s, expected %s", i,
				 rows[i].why, rule_names[got],
				 rule_names[rows[i].rule]);
	}
}

static void test_rule_verdicts(void **state)
{
	(void)state;
	assert_int_equal(verdict_of_rule(RULE_TOO_FEW), VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_RESOLUTION_UNKNOWN),
			 VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_NO_WORK), VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_FEW_CYCLES),
			 VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_PLATEAU), VERDICT_PLATEAU);
	assert_int_equal(verdict_of_rule(RULE_GROWING), VERDICT_GROWING);
	assert_int_equal(verdict_of_rule(RULE_UNSEEN), VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_SHORT_WINDOW),
			 VERDICT_INCONCLUSIVE);
	assert_int_equal(verdict_of_rule(RULE_STABLE), VERDICT_STABLE);
}

/* Findings with too few points: verdict_decide() agrees with
 * verdict_of(), and the reason and the advice read as they always did. */
static void test_decide_too_few(void **state)
{
	(void)state;
	struct series s;
	memset(&s, 0, sizeof(s));
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.series = &s;
	f.analysed_samples = 2;
	f.an_span_s = 30;
	f.concern_bph = NAN;
	f.resolution = 4096;
	verdict_decide(&f);
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	assert_int_equal(f.verdict, verdict_of(&f));
	assert_int_equal(f.reasons.n, 1);
	assert_int_equal(f.reasons.r[0].code, REASON_TOO_FEW);
	char *r = render_reason_string(&f, &f.reasons.r[0]);
	assert_string_equal(r, "only 2 samples over 30 s: too few for a slope");
	free(r);
	char *st = render_settle_string(&f);
	assert_string_equal(st, "record longer; give --limit or --suspect so "
			    "the slope of concern is known");
	free(st);
	/* decided again: the list is reused, not appended to */
	verdict_decide(&f);
	assert_int_equal(f.reasons.n, 1);
	reason_list_release(&f.reasons);
}

/* A series of pid 4242 at 1 s, readings in bytes. */
static void series_of(struct series *s, const double *fp, size_t n)
{
	series_init(s, "bash");
	series_add_incarnation(s, 4242, 1, 1764900000, "bash", "bash");
	for (size_t i = 0; i < n; i++)
		series_append(s, 1764900000 + (double)i, fp[i], 0);
}

/* Issue 28's examples, from their readings to their verdicts, with
 * MemTotal (126 GiB; the VM's 24 GiB) as --limit. Before materiality:
 * plateau ("memory that stopped growing but is not given back") and
 * growing ("at this rate it reaches the --limit (24 GiB) in 1237 d"). */
static void test_issue28_examples(void **state)
{
	(void)state;
	static double fp[900];
	struct analysis_options o;
	struct series s;
	struct target_findings f;

	/* bash: 320 KiB for 100 s, 324 KiB for 40 s, then 328 KiB for 760 s */
	for (size_t i = 0; i < 900; i++)
		fp[i] = (i < 100 ? 320 : i < 140 ? 324 : 328) * 1024.0;
	analysis_options_init(&o);
	o.limit = 126 * 1024 * MiB;
	series_of(&s, fp, 900);
	analysis_run(&s, &o, &f);
	assert_true(f.plateau.found);          /* the plateau is found ... */
	assert_int_equal(f.verdict, VERDICT_STABLE); /* ... and set aside */
	assert_true(f.immaterial);
	assert_int_equal(f.reasons.r[0].code, REASON_IMMATERIAL);
	assert_int_equal(f.reasons.r[0].u.immaterial.what,
			 MATERIALITY_PLATEAU);
	/* the rise as the plateau measured it: 9.6 KiB, 2.4 pages */
	assert_true(fabs(f.reasons.r[0].u.immaterial.amount - 9831) < 50);
	char *r = render_reason_string(&f, &f.reasons.r[0]);
	assert_string_equal(r, "grew 9.6 KiB, then held -- below anything "
			    "that matters: a few resolution steps (2 of 4 "
			    "KiB; up to 4 are)");
	free(r);
	analysis_release(&f);
	series_release(&s);

	/* The VM: 10.8 MiB first and last, 80 s at 1 s, 5 pages of rise
	 * between, the first and last readings back at 10.8 MiB. */
	double base = floor(10.8 * MiB / 4096) * 4096;
	for (size_t i = 0; i <= 80; i++)
		fp[i] = base + 4096 * ((i == 0 || i == 80) ? 0 :
				       round(5.0 * (double)i / 80 - 2.5));
	analysis_options_init(&o);
	o.limit = 24 * 1024 * MiB;
	series_of(&s, fp, 81);
	analysis_run(&s, &o, &f);
	assert_true(f.significant);            /* it does rise ... */
	assert_true(f.slope.estimate > 800 * 1024.0 &&
		    f.slope.estimate < 900 * 1024.0);
	assert_true(f.fp_first == f.fp_last);
	/* ... far below +34.1 MiB/h: no growth that matters, in a window
	 * too short to call stable (rule 7) */
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	assert_true(f.immaterial);
	assert_int_equal(f.reasons.r[0].code, REASON_IMMATERIAL);
	assert_int_equal(f.reasons.r[0].u.immaterial.how,
			 IMMATERIAL_FAR_BELOW);
	r = render_reason_string(&f, &f.reasons.r[0]);
	assert_non_null(strstr(r, "-- below anything that matters: even the "
			       "interval's upper end is under 1/12 of the "
			       "slope of concern (+34.1 MiB/h)"));
	free(r);
	r = render_reason_string(&f, &f.reasons.r[1]);
	assert_non_null(strstr(r, "no growth that matters in this window "
			       "(80 s, 81 samples;"));
	free(r);
	/* growth that does not matter is no growth to run out by: no
	 * exhaustion, in no pool (the review found one "in 8336 d") */
	assert_false(f.exhaustion.found);
	for (size_t k = 0; k < f.n_pools; k++)
		assert_false(f.pools[k].exhausts);
	analysis_release(&f);
	series_release(&s);

	/* The same rise over 10 min in pages, 12 pages in all: more than a
	 * few and (against a 1 GiB limit: +1.4 MiB/h of concern) not far
	 * below -- still growing. */
	for (size_t i = 0; i < 600; i++)
		fp[i] = base + 4096 * floor(12.0 * (double)i / 600);
	analysis_options_init(&o);
	o.limit = base + 1024 * MiB;
	series_of(&s, fp, 600);
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_false(f.immaterial);
	analysis_release(&f);
	series_release(&s);
}

/* No cap on the number of reasons: every one is kept. */
static void test_reasons_grow(void **state)
{
	(void)state;
	struct reason_list l = {0};
	for (size_t i = 0; i < 100; i++)
		reason_list_add(&l, REASON_RESTARTS_TOTAL)->u.restarts.count =
			i;
	assert_int_equal(l.n, 100);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(l.r[i].u.restarts.count, i);
	reason_list_release(&l);
	assert_null(l.r);
	assert_int_equal(l.n, 0);
}

/* A sentence longer than the old 319 bytes comes out whole: the gauges of
 * an attribution, each named. */
static void test_long_reason_whole(void **state)
{
	(void)state;
	struct attribution_item items[12];
	char names[12][32];
	memset(items, 0, sizeof(items));
	for (int i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "cache_number_%02d_bytes",
			 i);
		items[i].name = names[i];
		items[i].counted = true;
		items[i].explained = MiB;
	}
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.attribution.found = true;
	f.attribution.items = items;
	f.attribution.n = 12;
	struct reason *r = reason_list_add(&f.reasons, REASON_ATTRIBUTION);
	r->u.attribution.explained = 12 * MiB;
	r->u.attribution.growth = 20 * MiB;
	r->u.attribution.unattributed = 8 * MiB;
	char *text = render_reason_string(&f, r);
	assert_true(strlen(text) > 320);
	assert_non_null(strstr(text, "the gauges explain 12 MiB of 20 MiB "
			       "growth (cache_number_00_bytes 1 MiB, "));
	assert_non_null(strstr(text, "cache_number_11_bytes 1 MiB); 8 MiB "
			       "unattributed"));
	free(text);
	reason_list_release(&f.reasons);
}

/* Settle advice with the requests still needed appended. */
static void test_settle_window_requests(void **state)
{
	(void)state;
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.settle = (struct settle){
		.code = SETTLE_WINDOW, .need_s = 4 * 3600, .more_s = 3 * 3600,
		.resolution = 4096, .concern_bph = 50 * MiB,
		.requests_more = 4000, .concern_per_request = 4096,
	};
	char *st = render_settle_string(&f);
	assert_string_equal(st, "watch >= 4 h in all (about 3 h more) at "
			    "resolution 4 KiB to see a slope of +50 MiB/h; "
			    "or >= 4,000 requests more (to see +4 KiB/req)");
	free(st);
	f.settle.code = SETTLE_NONE;
	assert_null(render_settle_string(&f));
}

/* The shared formatters: "n/a" for what is not known. */
static void test_formatters(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(render_size(b, sizeof(b), NAN, false), "n/a");
	assert_string_equal(render_size(b, sizeof(b), 2 * MiB, false),
			    "2 MiB");
	assert_string_equal(render_rate(b, sizeof(b), INFINITY, false),
			    "n/a");
	assert_string_equal(render_rate(b, sizeof(b), MiB, false),
			    "+1 MiB/h");
	assert_string_equal(render_per_request(b, sizeof(b), NAN, true),
			    "n/a");
	assert_string_equal(render_per_request(b, sizeof(b), 2048, false),
			    "+2 KiB/req");
	assert_string_equal(render_duration(b, sizeof(b), NAN), "n/a");
	assert_string_equal(render_p_value(b, sizeof(b), NAN, 3), "n/a");
	assert_string_equal(render_p_value(b, sizeof(b), 0.012345, 3),
			    "0.0123");
	assert_string_equal(render_p_value(b, sizeof(b), 0.012345, 2),
			    "0.012");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision_table),
		cmocka_unit_test(test_rule_verdicts),
		cmocka_unit_test(test_decide_too_few),
		cmocka_unit_test(test_issue28_examples),
		cmocka_unit_test(test_reasons_grow),
		cmocka_unit_test(test_long_reason_whole),
		cmocka_unit_test(test_settle_window_requests),
		cmocka_unit_test(test_formatters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
