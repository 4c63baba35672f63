/*
 * calibrate.c - are memtrend's verdicts and intervals as sure as they say?
 *
 * Seeded simulations of the shapes memory takes, each with its truth known
 * by construction, run through the same analysis `memtrend report` runs
 * (analysis_run), counted over many seeds per family, and printed as one
 * table with PASS/MISS against the targets of docs/statistics.md
 * ("Calibration"):
 *
 *   coverage  the 95 % slope interval holds the true slope: 92-98 %
 *             (>= 92 % where the trend rests on fewer than 100 points,
 *             e.g. the floors of a few cycles: see docs/statistics.md)
 *   prcov     the per-request interval holds the true mean kept per
 *             request (families with a work counter): 92-98 %
 *   growing   where nothing grows (no drift):          <= 5 %
 *   plateau   where nothing plateaus:                  <= 5 %
 *             where there is one:                      >= 90 %
 *   stable    on a leak above the slope of concern:    0
 *   prsig     a significant per-request slope where the requests
 *             column is a gauge (counter.h): 0; and the gauge found
 *             (set aside) in every seed
 *   growing   on a leak above it that restarts:        >= 90 %
 *             (leak_found; issue 27)
 *   steps     false steps where there are none:        <= 5 %
 *   stable    where growth cannot matter (a flat or barely creeping
 *             host process watched 15 min; issue 28):  >= 90 %
 *
 * each judged by the Wilson interval of the rate over the seeds (see
 * "Targets" below), in two groups of families: TUNED and HELDOUT.
 *
 * Usage: calibrate [--seeds N] [--family SUBSTRING] [--group G] [--quick]
 *                  [--csv] [--list] [--verbose] [--dump SEED]
 *   --group    tuned (the families the method may be tuned on), heldout
 *              (fixed 2026-12-04, never tuned on: see enum group) or all
 *   --list     every family with its group, "(quick)" where --quick runs it
 *   --csv      the table as CSV, with the group, the per-request coverage
 *              and how many seeds each coverage is over
 *   --dump S   the series of seed S of the selected families as CSV
 *              (family,t,footprint,requests): to look at a shape
 *   --verbose  one line per seed on stderr (verdict, interval, cycles,
 *              plateau, steps): where a rate comes from
 *   --quick  the fast subset `make test` runs (a few families, 50 seeds,
 *            bounds that allow for 50 seeds' binomial spread); exits 1 when
 *            a bound fails
 *   default  every family of both groups, 500 seeds (DEFAULT_SEEDS: why
 *            there), exit 1 on any MISS
 *
 * Everything is deterministic: a family's seed s draws from xoshiro256**
 * seeded by splitmix64(family index, s), so a run is reproducible on any
 * machine with IEEE doubles. Families are only ever appended: an index
 * never changes, so an older row keeps drawing the same series and stays
 * comparable across versions. No I/O besides the table.
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "series.h"
#include "sim_rng.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define PAGE 4096.0
#define T0 1.7e9
#define MEM_TOTAL (64 * GiB)

/* ------------------------------------------------------------------ */
/* Families                                                            */
/* ------------------------------------------------------------------ */

enum shape {
	SHAPE_AR,          /* level + drift * t + AR(1) */
	SHAPE_SAWTOOTH,    /* GC: ramps from a floor, collected each period */
	SHAPE_DIURNAL,     /* memory follows a daily load; requests column */
	SHAPE_GROW_FLAT_GROW,
	SHAPE_CAP,         /* grows to a cap, then holds it */
	SHAPE_LOG,         /* logarithmic growth */
	SHAPE_STAIRCASE,   /* abrupt steps, flat between */
	SHAPE_RESTART,     /* a restart, then a warm-up longer than 10 min */
	/* Added with issue 26 (family_generate_new). Tuned classes: */
	SHAPE_TWO_SCALE,   /* OU wander + per-sample jitter (+ drift) */
	SHAPE_ARFIMA,      /* long memory: ARFIMA(0,d,0) (+ drift) */
	SHAPE_AR_T,        /* AR(1) with Student t innovations */
	SHAPE_HETERO,      /* AR(1) whose sd follows a daily load */
	SHAPE_INFLIGHT,    /* memory follows a requests-in-flight gauge */
	SHAPE_SPIKES,      /* held batch spikes on a leak */
	SHAPE_RELEASE,     /* one ~1 GiB release in a steady leak */
	SHAPE_SMOOTH_CAP,  /* exponential (LRU) fill toward a cap */
	SHAPE_PER_REQ,     /* a random amount kept per request */
	SHAPE_IRREGULAR,   /* random sample times with gaps; OU noise */
	SHAPE_QUANT,       /* AR(1) + drift read in coarse units */
	/* Held-out classes (never tuned on): */
	SHAPE_ARMA11,      /* ARMA(1,1), negative lag-1 correlation */
	SHAPE_RANDOM_WALK, /* integrated noise (+ drift) */
	SHAPE_REGIME,      /* Markov-switching noise variance */
	SHAPE_PERIODIC,    /* a load of a non-daily period */
	SHAPE_PARETO,      /* Pareto-tailed single-sample spikes */
	SHAPE_WEEKLY,      /* daily x weekly load; requests column */
	SHAPE_LOGISTIC_CAP,/* a cap reached by a logistic curve */
	SHAPE_LOAD_CAP,    /* a cap reached per request, under load */
	SHAPE_BURSTY,      /* bursts of samples; two-scale noise */
	SHAPE_SKEW,        /* AR(1), skewed (exponential) innovations */
	SHAPE_CHUNKED,     /* a leak that shows in 64 MiB chunks */
	SHAPE_STEPS_CAP,   /* a few steps early, then flat */
	/* Added with issue 27 (family_generate_new): */
	SHAPE_RESTARTS,    /* restarts, each incarnation warms up, then
			      leaks (or not) from its own start */
	/* Added with issue 31's session (2026-12-05), held out: */
	SHAPE_SHOT,        /* shot noise: Poisson jumps that decay */
	SHAPE_AR2,         /* AR(2) with complex roots: quasi-cycles */
	SHAPE_TELEGRAPH,   /* a level switching on and off at random */
};

/* Which families the method may be tuned on (TUNED), and which only ever
 * measure it (HELDOUT). The held-out group was fixed on 2026-12-04, before
 * the method change of issue 26, from shapes unlike every tuned class (not
 * new parameters of one); it is run for the published table only. Adding
 * to it after a method change, or tuning on its rows, defeats its purpose:
 * new shapes found later go to the tuned group. */
enum group { GROUP_TUNED, GROUP_HELDOUT };

struct family {
	const char *name;
	enum shape shape;
	double hours;      /* window */
	double dt;         /* seconds between samples */
	double phi;        /* AR(1) noise, per sample */
	double noise_sd;   /* its marginal sd, bytes */
	double drift_bph;  /* linear drift (AR), floor slope (sawtooth),
			      per-request leak as bytes/h at mean load
			      (diurnal), growth rate (cap, gfg) */
	double param;      /* shape-specific: period s (sawtooth, diurnal),
			      cap height (cap), step count (staircase) */
	double jitter;     /* sawtooth: relative period jitter */
	bool quick;        /* part of `--quick` */
	/* the truth, by construction */
	bool truth_slope;  /* coverage is measured against true_bph */
	bool no_drift;     /* nothing grows */
	bool has_plateau;
	bool leak_above_concern;
	bool has_steps;
	bool steps_either; /* a rise that is a step at a coarse scale */
	/* Added with issue 26; zero in the older families. */
	enum group group;
	double p2, p3;     /* shape-specific (family_generate_new) */
	double round_to;   /* readings in this unit (0: a page) */
	bool truth_per_req; /* coverage of the per-request slope (bytes per
			      request) against the true mean per request */
	bool never_stable; /* a window too short to call stable without
			      the work known (docs/verdicts.md rule 7) */
	/* Added with issue 27. */
	bool work_gauge;   /* the requests column is a gauge: a significant
			      per-request slope is false (target: none) */
	bool leak_found;   /* growing is the truth: found in >= 90 % */
	bool plateau_either; /* a flat service that warms up after each
				restart: the last incarnation's rise and
				level may be called a plateau (as "restart +
				long warm-up"); not counted either way */
	bool truth_pooled; /* coverage of the incarnations' pooled slope
			      when there is one (else the analysed
			      incarnation's), against drift_bph */
	/* SHAPE_RESTARTS: incarnation lives uniform in [life_min, life_max]
	 * s, or exponential with mean life_min (poisson); each warms up from
	 * warm_from to warm_to over warm_s by warm_shape (0 a line, 1 the
	 * saturating 1 - exp(-5 t / warm_s), 2 a logistic centred at
	 * warm_s / 2 of width warm_s / 12), then drift_bph from its start */
	double life_min, life_max;
	bool poisson;
	double warm_s, warm_from, warm_to;
	int warm_shape;
	/* Added with issue 28 (materiality). */
	bool stable_found; /* a flat process watched long enough: "stable"
			      in >= 90 % (materiality must not keep page
			      jitter from it) */
};

/* Slope of concern at a 2 GiB footprint with MemTotal 64 GiB: 62 GiB in
 * 30 days = 88.2 MiB/h. Leaks of 20 MiB/h are below it, 200 MiB/h above. */
/* The older rows (positional) end in OLD: tuned, no newer field. */
#define OLD , GROUP_TUNED, 0, 0, 0, false, false, false, false, false, false, 0, 0, false, 0, 0, 0, 0, false
static const struct family families[] = {
	/* AR(1) noise, 8 h at 15 s, sd 16 MiB; without and with drift */
#define AR_FAM(nm, ph, dr, q) \
	{nm, SHAPE_AR, 8, 15, ph, 16 * MiB, dr, 0, 0, q, true, (dr) == 0, \
	 false, (dr) > 88.2 * MiB, false, false OLD}
	AR_FAM("ar phi=0", 0, 0, false),
	AR_FAM("ar phi=0.5", 0.5, 0, false),
	AR_FAM("ar phi=0.9", 0.9, 0, false),
	AR_FAM("ar phi=0.95", 0.95, 0, true),
	AR_FAM("ar phi=0.99", 0.99, 0, false),
	AR_FAM("ar phi=0.995", 0.995, 0, true),
	AR_FAM("ar phi=0 leak 20MiB/h", 0, 20 * MiB, false),
	AR_FAM("ar phi=0.5 leak 20MiB/h", 0.5, 20 * MiB, false),
	AR_FAM("ar phi=0.9 leak 20MiB/h", 0.9, 20 * MiB, true),
	AR_FAM("ar phi=0.95 leak 20MiB/h", 0.95, 20 * MiB, false),
	AR_FAM("ar phi=0.99 leak 20MiB/h", 0.99, 20 * MiB, false),
	AR_FAM("ar phi=0.995 leak 20MiB/h", 0.995, 20 * MiB, true),
	AR_FAM("ar phi=0.9 leak 200MiB/h", 0.9, 200 * MiB, true),
	AR_FAM("ar phi=0.995 leak 200MiB/h", 0.995, 200 * MiB, false),
#undef AR_FAM
	/* GC sawtooth 2 -> 3 GiB every 10 min, flat or rising floor */
#define SAW(nm, h, dr, jit, q) \
	{nm, SHAPE_SAWTOOTH, h, 15, 0.5, 2 * MiB, dr, 600, jit, q, true, \
	 (dr) == 0, false, false, false, false OLD}
	SAW("sawtooth flat 1h", 1, 0, 0, false),
	SAW("sawtooth flat 2h", 2, 0, 0, true),
	SAW("sawtooth flat 3h", 3, 0, 0, false),
	SAW("sawtooth flat 6h", 6, 0, 0, false),
	SAW("sawtooth flat 12h", 12, 0, 0, false),
	SAW("sawtooth flat jitter 3h", 3, 0, 0.3, false),
	SAW("sawtooth flat jitter 12h", 12, 0, 0.3, false),
	SAW("sawtooth rising 50MiB/h 6h", 6, 50 * MiB, 0, false),
	SAW("sawtooth rising jitter 50MiB/h 12h", 12, 50 * MiB, 0.3, false),
#undef SAW
	/* memory that follows a diurnal load, 72 h at 1 min, requests */
	{"diurnal load", SHAPE_DIURNAL, 72, 60, 0.9, 8 * MiB, 0, 86400, 0,
	 true, true, true, false, false, false, false OLD},
	{"diurnal load + leak 20MiB/h", SHAPE_DIURNAL, 72, 60, 0.9, 8 * MiB,
	 20 * MiB, 86400, 0, false, true, false, false, false, false, false OLD},
	/* grows 40 MiB/h 3 h, flat 2 h, grows again 3 h */
	{"grow-flat-grow", SHAPE_GROW_FLAT_GROW, 8, 15, 0.9, 4 * MiB,
	 40 * MiB, 0, 0, true, false, false, false, false, false, false OLD},
	/* grows 400 MiB/h to a cap 1 GiB up, holds it for the rest of 8 h */
	{"cap", SHAPE_CAP, 8, 15, 0.9, 4 * MiB, 400 * MiB, 1 * GiB, 0, true,
	 false, false, true, false, false, false OLD},
	/* 300 MiB * ln(1 + t / 10 min): 8 h, still rising ~37 MiB/h */
	{"logarithmic", SHAPE_LOG, 8, 15, 0.9, 4 * MiB, 300 * MiB, 600, 0,
	 false, false, false, false, false, false, false OLD},
	/* four steps of 200-600 MiB at random times, AR noise */
	{"staircase", SHAPE_STAIRCASE, 8, 15, 0.9, 4 * MiB, 0, 4, 0, true,
	 false, false, false, false, true, false OLD},
	/* 4 h steady, restart, 30 min warm-up 1 -> 3 GiB (longer than the
	 * default 10 min start-up), 4 h steady. The analysed incarnation
	 * rises and then holds its level: a plateau of that incarnation by
	 * definition (reported with the restart beside it), never a leak. Its
	 * 2 GiB rise in 30 min of a 4.5 h window may also be listed as a step
	 * at a coarse scale (steps.h: "a rise that takes a while counts as a
	 * step at the scale where it looks abrupt"): not counted either way. */
	{"restart + long warm-up", SHAPE_RESTART, 8.5, 15, 0.9, 8 * MiB, 0,
	 1800, 0, false, false, true, true, false, false, true OLD},
	/* ---- Tuned, added with issue 26. Appended after the older rows:
	 * a family's seeds draw from its index, so the older families
	 * generate the same series as before. Slope of concern as above
	 * (88.2 MiB/h) unless said. ---- */

	/* Two-scale noise: an OU wander (correlation time 30 min, sd 30 MiB)
	 * under independent per-sample jitter of sd ratio x 30 MiB, 24 h at
	 * 15 s (the case is ratio 4/3): the jitter owns the short
	 * lags, the wander sets the slope's uncertainty. */
#define TS(nm, ratio, dr, q) \
	{.name = nm, .shape = SHAPE_TWO_SCALE, .hours = 24, .dt = 15, \
	 .noise_sd = 30 * MiB, .param = ratio, .p2 = 1800, .drift_bph = dr, \
	 .quick = q, .truth_slope = true, .no_drift = (dr) == 0, \
	 .leak_above_concern = (dr) > 88.2 * MiB}
	TS("two-scale jitter=0 24h", 0, 0, false),
	TS("two-scale jitter=0.5 24h", 0.5, 0, false),
	TS("two-scale jitter=1 24h", 1, 0, true),
	TS("two-scale jitter=2 24h", 2, 0, false),
	TS("two-scale jitter=0 leak 10MiB/h 24h", 0, 10 * MiB, false),
	TS("two-scale jitter=0.5 leak 10MiB/h 24h", 0.5, 10 * MiB, false),
	TS("two-scale jitter=1 leak 10MiB/h 24h", 1, 10 * MiB, false),
	TS("two-scale jitter=2 leak 10MiB/h 24h", 2, 10 * MiB, false),
	TS("two-scale jitter=1 leak 200MiB/h 24h", 1, 200 * MiB, false),
#undef TS
	/* Long memory: ARFIMA(0,d,0), marginal sd 16 MiB, 8 h at 15 s,
	 * generated exactly (Hosking's Durbin-Levinson recursion). */
#define FI(nm, d, dr, q) \
	{.name = nm, .shape = SHAPE_ARFIMA, .hours = 8, .dt = 15, \
	 .noise_sd = 16 * MiB, .param = d, .drift_bph = dr, .quick = q, \
	 .truth_slope = true, .no_drift = (dr) == 0}
	FI("arfima d=0.1 8h", 0.1, 0, false),
	FI("arfima d=0.25 8h", 0.25, 0, false),
	FI("arfima d=0.45 8h", 0.45, 0, false),
	FI("arfima d=0.1 leak 20MiB/h 8h", 0.1, 20 * MiB, false),
	FI("arfima d=0.25 leak 20MiB/h 8h", 0.25, 20 * MiB, false),
	FI("arfima d=0.45 leak 20MiB/h 8h", 0.45, 20 * MiB, true),
#undef FI
	/* Heavy tails: AR(1) phi 0.9, Student t innovations (df 2.5-3, finite
	 * variance, infinite kurtosis), marginal sd 16 MiB, 8 h at 15 s. */
#define HT(nm, df, dr) \
	{.name = nm, .shape = SHAPE_AR_T, .hours = 8, .dt = 15, .phi = 0.9, \
	 .noise_sd = 16 * MiB, .param = df, .drift_bph = dr, \
	 .truth_slope = true, .no_drift = (dr) == 0}
	HT("ar t df=2.5 8h", 2.5, 0),
	HT("ar t df=3 8h", 3, 0),
	HT("ar t df=3 leak 20MiB/h 8h", 3, 20 * MiB),
#undef HT
	/* Heteroskedastic: AR(1) phi 0.9 whose sd follows a daily load (2 to
	 * 20 req/s; sd 16 MiB at the mean load), 48 h at 1 min. */
	{.name = "hetero load-sd 48h", .shape = SHAPE_HETERO, .hours = 48,
	 .dt = 60, .phi = 0.9, .noise_sd = 16 * MiB, .truth_slope = true,
	 .no_drift = true},
	{.name = "hetero load-sd leak 20MiB/h 48h", .shape = SHAPE_HETERO,
	 .hours = 48, .dt = 60, .phi = 0.9, .noise_sd = 16 * MiB,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* Memory that follows a requests-in-flight gauge (4 MiB each): the
	 * mean concurrency wanders (20 x exp(OU), correlation time 1 h, sd
	 * 0.4), the count at each sample is Poisson around it. No leak. */
	{.name = "inflight gauge 24h", .shape = SHAPE_INFLIGHT, .hours = 24,
	 .dt = 15, .phi = 0.9, .noise_sd = 2 * MiB, .param = 3600,
	 .truth_slope = true, .no_drift = true},
	{.name = "inflight gauge 8h", .shape = SHAPE_INFLIGHT, .hours = 8,
	 .dt = 15, .phi = 0.9, .noise_sd = 2 * MiB, .param = 3600,
	 .truth_slope = true, .no_drift = true},
	/* Rare batch spikes of 0.5-3 GiB held 3-15 min, one every ~3 h
	 * (Poisson), AR(1) 0.9 / 8 MiB. A spike's rise and fall may be
	 * listed as steps: not counted either way. */
#define SP(nm, h, dr) \
	{.name = nm, .shape = SHAPE_SPIKES, .hours = h, .dt = 15, .phi = 0.9, \
	 .noise_sd = 8 * MiB, .param = 3 * 3600, .drift_bph = dr, \
	 .truth_slope = true, .no_drift = (dr) == 0, .steps_either = true}
	SP("spikes 0.5-3GiB leak 20MiB/h 24h", 24, 20 * MiB),
	SP("spikes 0.5-3GiB leak 20MiB/h 12h", 12, 20 * MiB),
	SP("spikes 0.5-3GiB 24h", 24, 0),
#undef SP
	/* One release of 0.8-1.2 GiB at 30-70 % of the window, leaking
	 * 15 MiB/h before and after: the truth is the leak rate, and the
	 * drop is a step. */
	{.name = "release 1GiB leak 15MiB/h 12h", .shape = SHAPE_RELEASE,
	 .hours = 12, .dt = 15, .phi = 0.9, .noise_sd = 8 * MiB,
	 .drift_bph = 15 * MiB, .truth_slope = true, .has_steps = true},
	{.name = "release 1GiB leak 15MiB/h 24h 1min", .shape = SHAPE_RELEASE,
	 .hours = 24, .dt = 60, .phi = 0.9, .noise_sd = 8 * MiB,
	 .drift_bph = 15 * MiB, .truth_slope = true, .has_steps = true},
	/* Smooth caps: an LRU cache filling as 1 GiB x (1 - exp(-t/tau)),
	 * held for the rest of 12 h: a plateau. */
#define SC(nm, tau, q) \
	{.name = nm, .shape = SHAPE_SMOOTH_CAP, .hours = 12, .dt = 15, \
	 .phi = 0.9, .noise_sd = 4 * MiB, .param = tau, .p2 = 1 * GiB, \
	 .quick = q, .has_plateau = true}
	SC("smooth cap tau=10min 12h", 600, true),
	SC("smooth cap tau=40min 12h", 2400, true),
	SC("smooth cap tau=80min 12h", 4800, false),
#undef SC
	/* Per-request leaks that vary: ~5 req/s (Poisson), 12 h at 15 s,
	 * AR(1) 0.9 / 4 MiB. param: the mean kept per request (the truth of
	 * the per-request slope); p2: one request in p2 keeps anything; p3:
	 * 0 a fixed amount (param x p2), 1 an exponential amount (p2 = 1). */
#define PR(nm, mean, one_in, kind, q) \
	{.name = nm, .shape = SHAPE_PER_REQ, .hours = 12, .dt = 15, \
	 .phi = 0.9, .noise_sd = 4 * MiB, .param = mean, .p2 = one_in, \
	 .p3 = kind, .quick = q, .truth_per_req = true}
	PR("per-request 1/16 x 64KiB 12h", 4 * KiB, 16, 0, true),
	PR("per-request 1/256 x 1MiB 12h", 4 * KiB, 256, 0, false),
	PR("per-request exp mean 4KiB 12h", 4 * KiB, 1, 1, false),
#undef PR
	/* Irregular sampling: gaps between samples exponential (mean 15 s,
	 * at least 1 s), two or three gaps of 1-3 h; OU noise (correlation
	 * time 150 s, sd 16 MiB). */
	{.name = "irregular gaps 24h", .shape = SHAPE_IRREGULAR, .hours = 24,
	 .dt = 15, .noise_sd = 16 * MiB, .p2 = 150, .truth_slope = true,
	 .no_drift = true},
	{.name = "irregular gaps leak 20MiB/h 24h", .shape = SHAPE_IRREGULAR,
	 .hours = 24, .dt = 15, .noise_sd = 16 * MiB, .p2 = 150,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* Quantised readings: AR(1) 0.9 / 16 MiB read in whole MiB, or in
	 * 0.1 GiB (most readings equal their neighbours). */
#define QU(nm, h, dt_, unit, dr) \
	{.name = nm, .shape = SHAPE_QUANT, .hours = h, .dt = dt_, .phi = 0.9, \
	 .noise_sd = 16 * MiB, .drift_bph = dr, .round_to = unit, \
	 .truth_slope = true, .no_drift = (dr) == 0}
	QU("quantised 1MiB 8h", 8, 15, MiB, 0),
	QU("quantised 1MiB leak 20MiB/h 8h", 8, 15, MiB, 20 * MiB),
	QU("quantised 0.1GiB 24h", 24, 60, 0.1 * GiB, 0),
	QU("quantised 0.1GiB leak 20MiB/h 24h", 24, 60, 0.1 * GiB, 20 * MiB),
#undef QU
	/* The field report's speech service: hourly, whole 0.1 GiB, 4.8 GiB
	 * filling toward 58 GiB (tau 7 h), held the last ~25 h of 60 h. */
	{.name = "smooth cap 0.1GiB hourly 60h", .shape = SHAPE_SMOOTH_CAP,
	 .hours = 60, .dt = 3600, .phi = 0.5, .noise_sd = 50 * MiB,
	 .param = 7 * 3600, .p2 = 53.2 * GiB, .p3 = 4.8 * GiB,
	 .round_to = 0.1 * GiB, .has_plateau = true},
	/* Long series: 1 s over a day (86,401 points; OU 100 s / 16 MiB
	 * with jitter 4 MiB) and 1 min over a week (OU 1 h / 64 MiB, jitter
	 * 16 MiB). */
#define LS(nm, h, dt_, tau, sd, dr) \
	{.name = nm, .shape = SHAPE_TWO_SCALE, .hours = h, .dt = dt_, \
	 .noise_sd = sd, .param = 0.25, .p2 = tau, .drift_bph = dr, \
	 .truth_slope = true, .no_drift = (dr) == 0}
	LS("1s data 24h", 24, 1, 100, 16 * MiB, 0),
	LS("1s data leak 20MiB/h 24h", 24, 1, 100, 16 * MiB, 20 * MiB),
	LS("1min data 1week", 168, 60, 3600, 64 * MiB, 0),
	LS("1min data leak 5MiB/h 1week", 168, 60, 3600, 64 * MiB, 5 * MiB),
#undef LS

	/* ---- HELD-OUT: fixed on 2026-12-04 before the method change of
	 * issue 26; shapes unlike every tuned class; only run for the table,
	 * never tuned on (see enum group). ---- */
#define HO .group = GROUP_HELDOUT
	/* ARMA(1,1) phi 0.7, theta -0.95: lag-1 correlation -0.15 and a
	 * long-run variance far below the marginal one (sd 16 MiB). */
	{.name = "arma(1,1) theta=-0.95 8h", HO, .shape = SHAPE_ARMA11,
	 .hours = 8, .dt = 15, .phi = 0.7, .noise_sd = 16 * MiB,
	 .param = -0.95, .truth_slope = true, .no_drift = true},
	{.name = "arma(1,1) theta=-0.95 leak 20MiB/h 8h", HO,
	 .shape = SHAPE_ARMA11, .hours = 8, .dt = 15, .phi = 0.7,
	 .noise_sd = 16 * MiB, .param = -0.95, .drift_bph = 20 * MiB,
	 .truth_slope = true},
	/* A random walk (30 MiB per sqrt(h)) under 2 MiB of white noise:
	 * no stationary level; the truth is the drift (0 or 20 MiB/h). */
	{.name = "random walk 8h", HO, .shape = SHAPE_RANDOM_WALK, .hours = 8,
	 .dt = 15, .noise_sd = 2 * MiB, .param = 30 * MiB, .truth_slope = true,
	 .no_drift = true},
	{.name = "random walk leak 20MiB/h 8h", HO, .shape = SHAPE_RANDOM_WALK,
	 .hours = 8, .dt = 15, .noise_sd = 2 * MiB, .param = 30 * MiB,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* AR(1) 0.9 whose sd switches between 4 and 40 MiB (Markov, mean
	 * sojourn 1 h), 24 h at 15 s. */
	{.name = "regime-switching sd 24h", HO, .shape = SHAPE_REGIME,
	 .hours = 24, .dt = 15, .phi = 0.9, .noise_sd = 4 * MiB,
	 .param = 40 * MiB, .p2 = 3600, .truth_slope = true, .no_drift = true},
	{.name = "regime-switching sd leak 20MiB/h 24h", HO,
	 .shape = SHAPE_REGIME, .hours = 24, .dt = 15, .phi = 0.9,
	 .noise_sd = 4 * MiB, .param = 40 * MiB, .p2 = 3600,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* A load of period 7 h (3.4 cycles in the window) or 100 min moving
	 * memory by +-150 MiB, AR(1) 0.9 / 8 MiB, 24 h at 30 s. */
	{.name = "periodic 7h load 24h", HO, .shape = SHAPE_PERIODIC,
	 .hours = 24, .dt = 30, .phi = 0.9, .noise_sd = 8 * MiB,
	 .param = 7 * 3600, .p2 = 150 * MiB, .truth_slope = true,
	 .no_drift = true},
	{.name = "periodic 100min load leak 20MiB/h 24h", HO,
	 .shape = SHAPE_PERIODIC, .hours = 24, .dt = 30, .phi = 0.9,
	 .noise_sd = 8 * MiB, .param = 6000, .p2 = 150 * MiB,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* Single-sample spikes, one sample in 200, Pareto alpha 1.5 from
	 * 50 MiB (capped at 8 GiB), on AR(1) 0.9 / 8 MiB. */
	{.name = "pareto spikes 8h", HO, .shape = SHAPE_PARETO, .hours = 8,
	 .dt = 15, .phi = 0.9, .noise_sd = 8 * MiB, .param = 1.5,
	 .p2 = 1.0 / 200, .truth_slope = true, .no_drift = true,
	 .steps_either = true},
	{.name = "pareto spikes leak 20MiB/h 8h", HO, .shape = SHAPE_PARETO,
	 .hours = 8, .dt = 15, .phi = 0.9, .noise_sd = 8 * MiB, .param = 1.5,
	 .p2 = 1.0 / 200, .drift_bph = 20 * MiB, .truth_slope = true,
	 .steps_either = true},
	/* Compound-Poisson per-request leaks of another law: one request in
	 * 64 keeps a lognormal amount (sigma 1.5, mean 256 KiB): 4 KiB/req. */
	{.name = "per-request lognormal 1/64 12h", HO, .shape = SHAPE_PER_REQ,
	 .hours = 12, .dt = 15, .phi = 0.9, .noise_sd = 4 * MiB,
	 .param = 4 * KiB, .p2 = 64, .p3 = 2, .truth_per_req = true},
	/* A daily x weekly load (2-20 req/s, weekly swing +-30 %), 14 days
	 * at 5 min, memory 24 MiB per req/s; per-request truth 0 or 256 B. */
	{.name = "weekly+daily load 14d", HO, .shape = SHAPE_WEEKLY,
	 .hours = 336, .dt = 300, .phi = 0.9, .noise_sd = 8 * MiB,
	 .param = 0, .truth_slope = true, .no_drift = true,
	 .truth_per_req = true},
	{.name = "weekly+daily load leak 256B/req 14d", HO,
	 .shape = SHAPE_WEEKLY, .hours = 336, .dt = 300, .phi = 0.9,
	 .noise_sd = 8 * MiB, .param = 256, .truth_per_req = true},
	/* A cap reached by a logistic curve: 1 GiB, midpoint 2 h, width
	 * 15 min, held to 12 h. */
	{.name = "logistic cap 12h", HO, .shape = SHAPE_LOGISTIC_CAP,
	 .hours = 12, .dt = 15, .phi = 0.9, .noise_sd = 4 * MiB,
	 .param = 1 * GiB, .p2 = 2 * 3600, .p3 = 900, .has_plateau = true},
	/* A cap reached per request: 10 req/s, 512 MiB logistic in the
	 * requests (midpoint 30,000, width 5,000), 6 h at 15 s. */
	{.name = "load cap per request 6h", HO, .shape = SHAPE_LOAD_CAP,
	 .hours = 6, .dt = 15, .phi = 0.9, .noise_sd = 2 * MiB,
	 .param = 512 * MiB, .p2 = 30000, .p3 = 5000, .has_plateau = true},
	/* Bursty sampling: 20 samples 1 s apart at a random moment of every
	 * 10 min; OU 20 min / 20 MiB with 8 MiB jitter, 24 h. */
	{.name = "bursty sampling 24h", HO, .shape = SHAPE_BURSTY, .hours = 24,
	 .dt = 1, .noise_sd = 20 * MiB, .param = 600, .p2 = 1200, .p3 = 0.4,
	 .truth_slope = true, .no_drift = true},
	{.name = "bursty sampling leak 20MiB/h 24h", HO, .shape = SHAPE_BURSTY,
	 .hours = 24, .dt = 1, .noise_sd = 20 * MiB, .param = 600, .p2 = 1200,
	 .p3 = 0.4, .drift_bph = 20 * MiB, .truth_slope = true},
	/* AR(1) 0.95 with skewed (centred exponential) innovations, 16 MiB. */
	{.name = "skewed ar phi=0.95 leak 20MiB/h 8h", HO, .shape = SHAPE_SKEW,
	 .hours = 8, .dt = 15, .phi = 0.95, .noise_sd = 16 * MiB,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* A 20 MiB/h leak the allocator shows in 64 MiB chunks (arenas):
	 * a staircase whose mean slope is the leak. */
	{.name = "chunked leak 64MiB 20MiB/h 24h", HO, .shape = SHAPE_CHUNKED,
	 .hours = 24, .dt = 15, .phi = 0.9, .noise_sd = 4 * MiB,
	 .param = 64 * MiB, .drift_bph = 20 * MiB, .truth_slope = true,
	 .steps_either = true},
	/* Four steps of 200-300 MiB in the first 3 h, flat for 9 h: a
	 * plateau reached by steps. */
	{.name = "steps to a cap 12h", HO, .shape = SHAPE_STEPS_CAP,
	 .hours = 12, .dt = 15, .phi = 0.9, .noise_sd = 4 * MiB, .param = 4,
	 .has_plateau = true, .has_steps = true},
	/* A random walk under a 200 MiB/h leak: never "stable". */
	{.name = "random walk leak 200MiB/h 8h", HO, .shape = SHAPE_RANDOM_WALK,
	 .hours = 8, .dt = 15, .noise_sd = 2 * MiB, .param = 30 * MiB,
	 .drift_bph = 200 * MiB, .truth_slope = true,
	 .leak_above_concern = true},
#undef HO

	/* ---- Tuned, added after the held-out table of issue 26 showed
	 * false steps where the noise switches its scale: busy/idle noise,
	 * AR(1) 0.8 whose sd switches between 6 and 36 MiB (Markov, mean
	 * sojourn 30 min), 12 h at 30 s. The held-out regime rows are the
	 * same class at other parameters, so they no longer measure this
	 * class out of sample (docs/statistics.md says so). ---- */
	{.name = "busy/idle sd 12h", .shape = SHAPE_REGIME, .hours = 12,
	 .dt = 30, .phi = 0.8, .noise_sd = 6 * MiB, .param = 36 * MiB,
	 .p2 = 1800, .truth_slope = true, .no_drift = true},
	{.name = "busy/idle sd leak 20MiB/h 12h", .shape = SHAPE_REGIME,
	 .hours = 12, .dt = 30, .phi = 0.8, .noise_sd = 6 * MiB,
	 .param = 36 * MiB, .p2 = 1800, .drift_bph = 20 * MiB,
	 .truth_slope = true},
	/* ---- Tuned, issue 27 ("stable says what it covers"): an idle
	 * service watched for seconds, its work not recorded, read in 4 KiB
	 * pages (AR(1) 0.5 / 8 KiB): no growth, and never "stable" (rule 7);
	 * the 12-minute window beside it may be. ---- */
	{.name = "idle 5s at 1s, no counter", .shape = SHAPE_AR,
	 .hours = 5.0 / 3600, .dt = 1, .phi = 0.5, .noise_sd = 8 * KiB,
	 .round_to = 4096, .truth_slope = true, .no_drift = true,
	 .never_stable = true},
	{.name = "idle 80s at 1s, no counter", .shape = SHAPE_AR,
	 .hours = 80.0 / 3600, .dt = 1, .phi = 0.5, .noise_sd = 8 * KiB,
	 .round_to = 4096, .truth_slope = true, .no_drift = true,
	 .never_stable = true},
	{.name = "idle 12min at 15s, no counter", .shape = SHAPE_AR,
	 .hours = 0.2, .dt = 15, .phi = 0.5, .noise_sd = 8 * KiB,
	 .round_to = 4096, .truth_slope = true, .no_drift = true},

	/* ---- Tuned, added with issue 27 ("A gauge taken for a counter"):
	 * memory that follows requests in flight (4 MiB each, Poisson around
	 * a mean of 6 that wanders as exp(OU), correlation time 1 h, sd 0.4:
	 * readings 0-15), no leak, 24 h at 15 s, and the gauge recorded as
	 * the requests column. The issue's own series (built elsewhere) had
	 * its "per-request" slope significant in 71 % of seeds; this one,
	 * read as a counter (--work-is-counter), in 0 of 200 (its memory
	 * follows the gauge without drifting with the work done). Either
	 * way the counter check must find the gauge in every seed and leave
	 * no per-request slope. ---- */
	{.name = "requests is an in-flight gauge 24h", .shape = SHAPE_INFLIGHT,
	 .hours = 24, .dt = 15, .phi = 0.9, .noise_sd = 2 * MiB,
	 .param = 3600, .p2 = 6, .p3 = 1, .truth_slope = true,
	 .no_drift = true, .work_gauge = true},

	/* ---- Added with issue 27: services that restart. The slope of
	 * concern at the incarnations' ~1.6 GiB with MemTotal 64 GiB is
	 * (64 - 1.6) GiB / 720 h = 88.7 MiB/h; 120 MiB/h is above it. The
	 * tuned rows first, then one held-out shape fixed before the method
	 * of issue 27 was written (Poisson restart times, logistic warm-up):
	 * run for the table only, never tuned on. ---- */
#define RS(nm, dr, lo, hi, ws, w0, w1, shp, grp) \
	{.name = nm, .shape = SHAPE_RESTARTS, .hours = 24, .dt = 15, \
	 .phi = 0.9, .noise_sd = 8 * MiB, .drift_bph = dr, .life_min = lo, \
	 .life_max = hi, .warm_s = ws, .warm_from = w0, .warm_to = w1, \
	 .warm_shape = shp, .truth_slope = true, .truth_pooled = true, \
	 .no_drift = (dr) == 0, .plateau_either = (dr) == 0, \
	 .leak_above_concern = (dr) > 88.7 * MiB, \
	 .leak_found = (dr) > 88.7 * MiB, .steps_either = true, .group = grp}
	/* the service: 30-60 min lives, 60 s warm-up 1.2 -> 1.6 GiB
	 * (a line), then a leak or none; 24 h at 15 s */
	RS("restarts 30-60min leak 120MiB/h 24h", 120 * MiB, 1800, 3600, 60,
	   1.2 * GiB, 1.6 * GiB, 0, GROUP_TUNED),
	RS("restarts 30-60min flat 24h", 0, 1800, 3600, 60, 1.2 * GiB,
	   1.6 * GiB, 0, GROUP_TUNED),
	RS("restarts 30-60min leak 60MiB/h 24h", 60 * MiB, 1800, 3600, 60,
	   1.2 * GiB, 1.6 * GiB, 0, GROUP_TUNED),
	/* a long warm-up: 16 min saturating 1 -> 2 GiB, lives of 3-5 h */
	RS("restarts 3-5h warm-up 16min flat 24h", 0, 3 * 3600, 5 * 3600,
	   960, 1 * GiB, 2 * GiB, 1, GROUP_TUNED),
	RS("restarts 3-5h warm-up 16min leak 120MiB/h 24h", 120 * MiB,
	   3 * 3600, 5 * 3600, 960, 1 * GiB, 2 * GiB, 1, GROUP_TUNED),
#undef RS
	/* HELD-OUT (fixed before the method change of issue 27): restarts
	 * at Poisson times (mean life 40 min), a logistic warm-up 0.8 -> 1.5
	 * GiB centred at 2 min of each life. */
	{.name = "poisson restarts logistic warm-up leak 120MiB/h 24h",
	 .group = GROUP_HELDOUT, .shape = SHAPE_RESTARTS, .hours = 24,
	 .dt = 15, .phi = 0.9, .noise_sd = 8 * MiB, .drift_bph = 120 * MiB,
	 .life_min = 2400, .poisson = true, .warm_s = 240,
	 .warm_from = 0.8 * GiB, .warm_to = 1.5 * GiB, .warm_shape = 2,
	 .truth_slope = true, .truth_pooled = true,
	 .leak_above_concern = true, .leak_found = true,
	 .steps_either = true},
	{.name = "poisson restarts logistic warm-up flat 24h",
	 .group = GROUP_HELDOUT, .shape = SHAPE_RESTARTS, .hours = 24,
	 .dt = 15, .phi = 0.9, .noise_sd = 8 * MiB, .life_min = 2400,
	 .poisson = true, .warm_s = 240, .warm_from = 0.8 * GiB,
	 .warm_to = 1.5 * GiB, .warm_shape = 2, .truth_slope = true,
	 .truth_pooled = true, .no_drift = true, .plateau_either = true,
	 .steps_either = true},
	/* ---- HELD-OUT, added 2026-12-05 after issue 27's counter check
	 * and short-window rule were written, before any later change:
	 * shapes those rules were not written around, run for the table
	 * only, never tuned on. A queue-length gauge (mean 40, correlation
	 * time 10 min) recorded as the requests column, memory following
	 * it, 12 h at 30 s; and idle services watched 3 min at 5 s (64 KiB
	 * of noise) and 9 min at 30 s (18 samples), their work not
	 * recorded: never "stable". ---- */
	{.name = "queue-length gauge as requests 12h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_INFLIGHT, .hours = 12, .dt = 30, .phi = 0.9,
	 .noise_sd = 2 * MiB, .param = 600, .p2 = 40, .p3 = 1,
	 .truth_slope = true, .no_drift = true, .work_gauge = true},
	{.name = "idle 3min at 5s, no counter", .group = GROUP_HELDOUT,
	 .shape = SHAPE_AR, .hours = 3.0 / 60, .dt = 5, .phi = 0.8,
	 .noise_sd = 64 * KiB, .round_to = 4096, .truth_slope = true,
	 .no_drift = true, .never_stable = true},
	{.name = "idle 9min at 30s, no counter", .group = GROUP_HELDOUT,
	 .shape = SHAPE_AR, .hours = 9.0 / 60, .dt = 30, .phi = 0.5,
	 .noise_sd = 8 * KiB, .round_to = 4096, .truth_slope = true,
	 .no_drift = true, .never_stable = true},
	/* ---- TUNED, added 2026-12-05: a random walk (10 MiB per sqrt(h))
	 * under 1 MiB of white noise, 24 h at 1 min. The held-out random
	 * walk rows showed the low-frequency interval too narrow on a walk
	 * (86-88 %); the change that followed (docs/statistics.md: every
	 * plausible model's interval held) is tuned on these, and the
	 * held-out walk rows are since then no longer out-of-sample. ---- */
	{.name = "random walk 24h 1min", .group = GROUP_TUNED,
	 .shape = SHAPE_RANDOM_WALK, .hours = 24, .dt = 60,
	 .noise_sd = 1 * MiB, .param = 10 * MiB, .truth_slope = true,
	 .no_drift = true},
	{.name = "random walk leak 20MiB/h 24h 1min", .group = GROUP_TUNED,
	 .shape = SHAPE_RANDOM_WALK, .hours = 24, .dt = 60,
	 .noise_sd = 1 * MiB, .param = 10 * MiB, .drift_bph = 20 * MiB,
	 .truth_slope = true},
	/* ---- HELD-OUT, added 2026-12-05 before that change, never tuned
	 * on: shot noise (jumps at Poisson times, one per 40 min on
	 * average, exponential sizes of mean 60 MiB, each decaying with a
	 * 90 min time constant: batches whose memory drains slowly) over
	 * AR(1) 0.9 / 4 MiB, 24 h at 15 s; and quasi-cycles, AR(2) with
	 * complex roots (a damping time of 2 h, a period of 3 h, marginal
	 * sd 40 MiB), 12 h at 30 s. Each flat and under a 20 MiB/h leak. */
	{.name = "shot noise 24h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_SHOT, .hours = 24, .dt = 15, .phi = 0.9,
	 .noise_sd = 4 * MiB, .param = 60 * MiB, .p2 = 2400, .p3 = 5400,
	 .truth_slope = true, .no_drift = true, .steps_either = true},
	{.name = "shot noise leak 20MiB/h 24h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_SHOT, .hours = 24, .dt = 15, .phi = 0.9,
	 .noise_sd = 4 * MiB, .param = 60 * MiB, .p2 = 2400, .p3 = 5400,
	 .drift_bph = 20 * MiB, .truth_slope = true, .steps_either = true},
	{.name = "quasi-cycles ar(2) 12h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_AR2, .hours = 12, .dt = 30, .noise_sd = 40 * MiB,
	 .param = 7200, .p2 = 10800, .truth_slope = true, .no_drift = true},
	{.name = "quasi-cycles ar(2) leak 20MiB/h 12h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_AR2, .hours = 12, .dt = 30, .noise_sd = 40 * MiB,
	 .param = 7200, .p2 = 10800, .drift_bph = 20 * MiB,
	 .truth_slope = true},
	/* ---- TUNED, added 2026-12-05: quasi-cycles at other scales (a
	 * damping time of 1 h, a period of 90 min, sd 24 MiB, 8 h at 15 s).
	 * The held-out quasi-cycles above showed a false plateau: a late
	 * part shorter than a cycle judged by a noise model fitted to that
	 * part alone. The change that followed (docs/statistics.md,
	 * "Plateaus": the late slope's interval from the whole window's
	 * noise) is tuned on these; the held-out quasi-cycle rows are since
	 * then no longer out-of-sample. ---- */
	{.name = "quasi-cycles ar(2) 90min 8h", .group = GROUP_TUNED,
	 .shape = SHAPE_AR2, .hours = 8, .dt = 15, .noise_sd = 24 * MiB,
	 .param = 3600, .p2 = 5400, .truth_slope = true, .no_drift = true},
	{.name = "quasi-cycles ar(2) 90min leak 20MiB/h 8h",
	 .group = GROUP_TUNED, .shape = SHAPE_AR2, .hours = 8, .dt = 15,
	 .noise_sd = 24 * MiB, .param = 3600, .p2 = 5400,
	 .drift_bph = 20 * MiB, .truth_slope = true},
	/* ---- HELD-OUT, added 2026-12-05 before that change, never tuned
	 * on: a random telegraph (a batch's memory, 80 MiB, held or not,
	 * each state lasting an exponential time of mean 2 h) over AR(1)
	 * 0.9 / 6 MiB, 16 h at 20 s; flat and under a 20 MiB/h leak. Its
	 * switches are steps (not scored). ---- */
	{.name = "telegraph 80MiB 2h 16h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_TELEGRAPH, .hours = 16, .dt = 20, .phi = 0.9,
	 .noise_sd = 6 * MiB, .param = 80 * MiB, .p2 = 7200,
	 .truth_slope = true, .no_drift = true, .steps_either = true},
	{.name = "telegraph 80MiB 2h leak 20MiB/h 16h", .group = GROUP_HELDOUT,
	 .shape = SHAPE_TELEGRAPH, .hours = 16, .dt = 20, .phi = 0.9,
	 .noise_sd = 6 * MiB, .param = 80 * MiB, .p2 = 7200,
	 .drift_bph = 20 * MiB, .truth_slope = true, .steps_either = true},
	/* ---- TUNED, added 2026-12-05 with issue 28 (materiality): a
	 * host's processes as `record --all` sees them, at 1 s, for 80 s
	 * (issue 28's VM) and 15 min -- run with --seeds 1000 for "1,000
	 * processes" of each kind. Readings in 4 KiB pages, jittering by a
	 * page (AR(1) 0.5 / 2 KiB, rounded). Most are flat; some creep by
	 * a few pages (+900 KiB/h: the VM's 10.8 MiB ones, 5 pages in 80
	 * s) or 2 MiB/h, far below the slope of concern (88 MiB/h; the
	 * bound of materiality 88 x 30/365 = 7.2 MiB/h) -- stable when
	 * watched 15 min, never "growing"; a quiet one (an idle shell: 256
	 * B of noise, readings that never cross a page) at 320 KiB went up
	 * two pages around 150 s in (a logistic rise: SHAPE_RESTARTS' warm-up,
	 * one incarnation) and held (the bash: 320 -> 328 KiB) -- no
	 * plateau, though the plateau is found in most seeds; a
	 * few leak between the bound and the concern (20 MiB/h) or above
	 * it (200 MiB/h) -- materiality must never hide them: growing
	 * found, never stable. ---- */
#define HOST_SD(nm, shp, hrs, dr, prm, sd) \
	.name = nm, .group = GROUP_TUNED, .shape = shp, .hours = hrs, \
	.dt = 1, .phi = 0.5, .noise_sd = sd, .drift_bph = dr, \
	.param = prm, .round_to = 4096
#define HOST(nm, shp, hrs, dr, prm) HOST_SD(nm, shp, hrs, dr, prm, 2 * KiB)
	{HOST("host flat page jitter 15min", SHAPE_AR, 0.25, 0, 0),
	 .no_drift = true, .stable_found = true},
	{HOST("host flat page jitter 80s", SHAPE_AR, 80.0 / 3600, 0, 0),
	 .no_drift = true, .never_stable = true},
	{HOST("host creep 900KiB/h 80s", SHAPE_AR, 80.0 / 3600, 900 * KiB,
	      0), .never_stable = true},
	{HOST("host creep 900KiB/h 15min", SHAPE_AR, 0.25, 900 * KiB, 0),
	 .stable_found = true},
	{HOST("host creep 2MiB/h 15min", SHAPE_AR, 0.25, 2 * MiB, 0),
	 .stable_found = true},
	{HOST_SD("host quiet bash 320->328KiB 15min", SHAPE_RESTARTS, 0.25,
		 0, 0, 256), .life_min = 7200, .life_max = 7200,
	 .warm_s = 300, .warm_from = 320 * KiB, .warm_to = 328 * KiB,
	 .warm_shape = 2, .stable_found = true},
	{HOST("host leak 20MiB/h 15min", SHAPE_AR, 0.25, 20 * MiB, 0),
	 .leak_found = true},
	{HOST("host leak 20MiB/h 80s", SHAPE_AR, 80.0 / 3600, 20 * MiB, 0),
	 .never_stable = true},
	{HOST("host leak 200MiB/h 80s", SHAPE_AR, 80.0 / 3600, 200 * MiB, 0),
	 .leak_above_concern = true, .leak_found = true},
	{HOST("host leak 200MiB/h 15min", SHAPE_AR, 0.25, 200 * MiB, 0),
	 .leak_above_concern = true, .leak_found = true},
#undef HOST
#undef HOST_SD
	/* ---- TUNED, added 2026-12-05: the speech service as the field
	 * report has it (docs/statistics.md, Calibration): 4.9 -> 57.9 GiB
	 * in two days, then 57.9-58 GiB for a day, in whole 0.1 GiB. The
	 * "smooth cap 0.1GiB hourly 60h" family above fills with a time
	 * constant of 7 h and still rises 0.30 GiB over its last day, on
	 * average 25 MiB/h over the 30 h analysed after its warm-up: three
	 * times the slope of concern at 58 of 64 GiB (8.5 MiB/h), which no
	 * honest method may call held. A time constant of 5 h leaves 0.04
	 * GiB for the last day, as reported. ---- */
	{.name = "speech service tau=5h 0.1GiB hourly 60h", .group = GROUP_TUNED,
	 .shape = SHAPE_SMOOTH_CAP, .hours = 60, .dt = 3600, .phi = 0.5,
	 .noise_sd = 50 * MiB, .param = 5 * 3600, .p2 = 53.2 * GiB,
	 .p3 = 4.8 * GiB, .round_to = 0.1 * GiB, .has_plateau = true},
#undef OLD
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

/* ------------------------------------------------------------------ */
/* The shapes added with issue 26                                      */
/* ------------------------------------------------------------------ */

/* ARFIMA(0,d,0) with unit marginal variance, n points, exactly: Hosking's
 * (1981) Durbin-Levinson recursion on the autocovariance, whose partial
 * autocorrelations are known in closed form, phi_kk = d / (k - d). Each
 * point is drawn from its exact conditional law given all earlier points
 * (no truncation, no burn-in). O(n^2): 1,921 points in a few ms. */
static void arfima_path(struct rng *r, double d, size_t n, double *x)
{
	double *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));
	if (!a || !b)
		abort();
	double v = 1;
	x[0] = rng_normal(r);
	for (size_t t = 1; t < n; t++) {
		double k = d / ((double)t - d);
		for (size_t j = 1; j < t; j++)
			b[j] = a[j] - k * a[t - j];
		b[t] = k;
		v *= 1 - k * k;
		double m = 0;
		for (size_t j = 1; j <= t; j++)
			m += b[j] * x[t - j];
		x[t] = m + sqrt(v) * rng_normal(r);
		double *tmp = a;
		a = b;
		b = tmp;
	}
	free(a);
	free(b);
}

/* Sample times (seconds from the start) of a new family: every dt, or the
 * irregular schedule with gaps, or bursts. Grows *t as needed. */
static size_t sample_times(const struct family *fam, struct rng *r,
			   double **tp)
{
	double span = fam->hours * 3600;
	size_t cap = (size_t)(span / fam->dt) + 16, n = 0;
	double *t = malloc(cap * sizeof(*t));
	if (!t)
		abort();
#define PUSH(v) do { \
		if (n == cap && !(t = realloc(t, (cap *= 2) * sizeof(*t)))) \
			abort(); \
		t[n++] = (v); \
	} while (0)
	if (fam->shape == SHAPE_IRREGULAR) {
		/* two or three gaps of 1-3 h, anywhere but the first and
		 * last tenth (they may overlap) */
		size_t n_gaps = 2 + (rng_uniform(r) < 0.5);
		double g0[3], g1[3];
		for (size_t k = 0; k < n_gaps; k++) {
			g0[k] = span * (0.1 + 0.6 * rng_uniform(r));
			g1[k] = g0[k] + 3600 * (1 + 2 * rng_uniform(r));
		}
		for (double x = 0; x <= span;
		     x += fmax(1, fam->dt * rng_exp(r))) {
			bool in_gap = false;
			for (size_t k = 0; k < n_gaps; k++)
				in_gap |= x >= g0[k] && x < g1[k];
			if (!in_gap)
				PUSH(x);
		}
	} else if (fam->shape == SHAPE_BURSTY) {
		/* 20 samples 1 s apart at a random moment of each period */
		for (double p0 = 0; p0 + fam->param <= span; p0 += fam->param) {
			double b0 = p0 + (fam->param - 20) * rng_uniform(r);
			for (int k = 0; k < 20; k++)
				PUSH(b0 + k);
		}
	} else {
		size_t m = (size_t)llround(span / fam->dt) + 1;
		for (size_t i = 0; i < m; i++)
			PUSH((double)i * fam->dt);
	}
#undef PUSH
	*tp = t;
	return n;
}

/* An AR(1) innovation step of marginal sd `sd` driven by a unit-variance
 * draw z (normal, t, skewed), started from its first draw. */
static double ar_step(struct ar1 *a, double sd, double z)
{
	if (!a->started) {
		a->u = sd * z;
		a->started = true;
	} else {
		a->u = a->phi * a->u + sd * sqrt(1 - a->phi * a->phi) * z;
	}
	return a->u;
}

/* The amount one request keeps (SHAPE_PER_REQ; see the family table). */
static double request_leak(const struct family *fam, struct rng *r)
{
	double one_in = fam->p2, mean = fam->param;
	switch ((int)fam->p3) {
	case 0:
		return rng_uniform(r) * one_in < 1 ? mean * one_in : 0;
	case 1:
		return mean * rng_exp(r);
	default: {
		/* lognormal, sigma 1.5, mean mean * one_in */
		if (rng_uniform(r) * one_in >= 1)
			return 0;
		double sg = 1.5, mu = log(mean * one_in) - sg * sg / 2;
		return exp(mu + sg * rng_normal(r));
	}
	}
}

/* One seed of a family of the newer shapes. Returns the true time slope
 * (bytes/h, NAN if none to cover); *pr_truth: the true mean kept per
 * request (bytes), NAN where not measured. */
static double family_generate_new(const struct family *fam, struct rng *r,
				  struct series *s, double *pr_truth)
{
	series_init(s, fam->name);
	double q = fam->round_to > 0 ? fam->round_to : PAGE;
	s->quantum = q;
	s->mem_total = MEM_TOTAL;
	double t0 = T0 + 86400 * rng_uniform(r);
	uint32_t inc = series_add_incarnation(s, 100, 1, t0, "svc", "svc");
	double *tt;
	size_t n = sample_times(fam, r, &tt);
	series_reserve(s, n);
	double base = fam->p3 > 0 && fam->shape == SHAPE_SMOOTH_CAP ?
		      fam->p3 : 2 * GiB;
	double span = fam->hours * 3600, phase = rng_uniform(r);
	struct ar1 ar = {fam->phi, fam->noise_sd, 0, false};
	struct ou wander = {fam->p2, fam->noise_sd, 0, false};
	double *fi = NULL;
	double ev_t[64], ev_h[64], ev_d[64];
	size_t n_ev = 0;
	double requests = 0, aux = 0, a_prev = 0;
	bool hi_regime = rng_uniform(r) < 0.5;
	size_t gauge = 0, next_restart = 0;
	*pr_truth = fam->truth_per_req ? fam->param : NAN;
	switch (fam->shape) {
	case SHAPE_ARFIMA:
		if (!(fi = malloc(n * sizeof(*fi))))
			abort();
		arfima_path(r, fam->param, n, fi);
		break;
	case SHAPE_INFLIGHT:
		if (fam->p3 != 1)
			gauge = series_add_gauge(s, "requests_in_flight");
		wander = (struct ou){fam->param, 0.4, 0, false};
		break;
	case SHAPE_SPIKES:
		/* a Poisson process of spikes, mean gap param */
		for (double x = fam->param * rng_exp(r); x < span && n_ev < 64;
		     x += fam->param * rng_exp(r)) {
			ev_t[n_ev] = x;
			ev_h[n_ev] = (0.5 + 2.5 * rng_uniform(r)) * GiB;
			ev_d[n_ev++] = 180 + 720 * rng_uniform(r);
		}
		break;
	case SHAPE_RELEASE:
		ev_t[0] = span * (0.3 + 0.4 * rng_uniform(r));
		ev_h[0] = (0.8 + 0.4 * rng_uniform(r)) * GiB;
		base = 3 * GiB;
		break;
	case SHAPE_STEPS_CAP:
		n_ev = (size_t)fam->param;
		for (size_t k = 0; k < n_ev; k++) {
			ev_t[k] = 900 + (3 * 3600 - 900) * rng_uniform(r);
			ev_h[k] = (200 + 100 * rng_uniform(r)) * MiB;
		}
		break;
	case SHAPE_ARMA11:
	case SHAPE_AR_T:
	case SHAPE_SKEW:
		aux = 200; /* burn-in steps: non-Gaussian or MA start */
		break;
	case SHAPE_CHUNKED:
		aux = fam->param * rng_uniform(r); /* where in a chunk */
		break;
	case SHAPE_SHOT:
		/* the jumps of the 8 decay times before the start, summed
		 * and decayed to t = 0: the process starts stationary */
		for (double x = -8 * fam->p3 + fam->p2 * rng_exp(r); x < 0;
		     x += fam->p2 * rng_exp(r))
			aux += fam->param * rng_exp(r) * exp(x / fam->p3);
		break;
	case SHAPE_RESTARTS:
		/* the restart times, drawn first: ev_t[k] is the start of
		 * incarnation k + 1 (at most 63 restarts) */
		for (double x = 0; n_ev < 63;) {
			double life = fam->poisson ?
				fam->life_min * rng_exp(r) :
				fam->life_min + (fam->life_max - fam->life_min) *
				rng_uniform(r);
			x += life;
			if (x >= span)
				break;
			ev_t[n_ev++] = x;
		}
		aux = 0;   /* the current incarnation's start */
		break;
	default:
		break;
	}
	/* ARMA(1,1): innovation sd for a marginal sd of noise_sd */
	double th = fam->param, ph = fam->phi;
	double arma_sa = fam->noise_sd /
			 sqrt((1 + 2 * ph * th + th * th) / (1 - ph * ph));
	double arma_e = 0;
	for (int k = 0; fam->shape == SHAPE_ARMA11 && k < (int)aux; k++) {
		double a_ = arma_sa * rng_normal(r);
		arma_e = ph * arma_e + a_ + th * a_prev;
		a_prev = a_;
	}
	if (fam->shape == SHAPE_AR_T || fam->shape == SHAPE_SKEW) {
		ar.u = 0;
		ar.started = true;
		for (int k = 0; k < (int)aux; k++)
			ar_step(&ar, fam->noise_sd, fam->shape == SHAPE_AR_T ?
				rng_student_unit(r, fam->param) :
				rng_exp(r) - 1);
	}
	/* AR(2) with roots rho e^(+-i w): damping time param, period p2 (s),
	 * per sample; innovations scaled to the marginal sd, started from
	 * 2,000 steps of burn-in */
	double ar2_a1 = 0, ar2_a2 = 0, ar2_sd = 0, ar2_y1 = 0, ar2_y2 = 0;
	if (fam->shape == SHAPE_AR2) {
		double rho = exp(-fam->dt / fam->param);
		double w = 2 * M_PI * fam->dt / fam->p2;
		ar2_a1 = 2 * rho * cos(w);
		ar2_a2 = -rho * rho;
		/* marginal variance of AR(2) per unit innovation variance */
		double v = (1 - ar2_a2) / ((1 + ar2_a2) * ((1 - ar2_a2) *
			    (1 - ar2_a2) - ar2_a1 * ar2_a1));
		ar2_sd = fam->noise_sd / sqrt(v);
		for (int k = 0; k < 2000; k++) {
			double y_ = ar2_a1 * ar2_y1 + ar2_a2 * ar2_y2 +
				    ar2_sd * rng_normal(r);
			ar2_y2 = ar2_y1;
			ar2_y1 = y_;
		}
	}
	double truth = fam->truth_slope ? fam->drift_bph : NAN;
	for (size_t i = 0; i < n; i++) {
		double t = tt[i], h = t / 3600, y = base;
		double dt = i ? t - tt[i - 1] : fam->dt;
		switch (fam->shape) {
		case SHAPE_TWO_SCALE:
		case SHAPE_IRREGULAR:
			y += fam->drift_bph * h + ou_next(&wander, r, dt) +
			     fam->param * fam->noise_sd * rng_normal(r) *
			     (fam->shape == SHAPE_TWO_SCALE);
			break;
		case SHAPE_BURSTY:
			y += fam->drift_bph * h + ou_next(&wander, r, dt) +
			     fam->p3 * fam->noise_sd * rng_normal(r);
			break;
		case SHAPE_ARFIMA:
			y += fam->drift_bph * h + fam->noise_sd * fi[i];
			break;
		case SHAPE_AR_T:
			y += fam->drift_bph * h +
			     ar_step(&ar, fam->noise_sd,
				     rng_student_unit(r, fam->param));
			break;
		case SHAPE_SKEW:
			y += fam->drift_bph * h +
			     ar_step(&ar, fam->noise_sd, rng_exp(r) - 1);
			break;
		case SHAPE_HETERO: {
			double load = 11 - 9 * cos(2 * M_PI * (t / 86400 + phase));
			y += fam->drift_bph * h +
			     ar_step(&ar, fam->noise_sd * load / 11, rng_normal(r));
			break;
		}
		case SHAPE_INFLIGHT: {
			/* p2: the mean in flight (0: 20); p3 = 1: the gauge
			 * recorded as the requests column (issue 27) */
			double lambda = (fam->p2 > 0 ? fam->p2 : 20) *
					exp(ou_next(&wander, r, dt));
			double inflight = rng_poisson(r, lambda);
			series_append(s, t0 + t, 0, inc);
			if (fam->p3 == 1)
				series_set_requests(s, i, inflight);
			else
				series_set_gauge_at(s, gauge, i, inflight);
			y += 4 * MiB * inflight + ar1_next(&ar, r);
			goto store;
		}
		case SHAPE_SPIKES:
			y += fam->drift_bph * h + ar1_next(&ar, r);
			for (size_t k = 0; k < n_ev; k++)
				if (t >= ev_t[k] && t < ev_t[k] + ev_d[k])
					y += ev_h[k];
			break;
		case SHAPE_RELEASE:
			y += fam->drift_bph * h + ar1_next(&ar, r) -
			     (t >= ev_t[0] ? ev_h[0] : 0);
			break;
		case SHAPE_SMOOTH_CAP:
			y += fam->p2 * -expm1(-t / fam->param) + ar1_next(&ar, r);
			break;
		case SHAPE_PER_REQ:
		case SHAPE_LOAD_CAP: {
			double rate = fam->shape == SHAPE_PER_REQ ? 5 : 10;
			double k = rng_poisson(r, rate * dt);
			requests += k;
			if (fam->shape == SHAPE_PER_REQ)
				for (double j = 0; j < k; j++)
					aux += request_leak(fam, r);
			else
				aux = fam->param /
				      (1 + exp(-(requests - fam->p2) / fam->p3)) -
				      fam->param / (1 + exp(fam->p2 / fam->p3));
			series_append(s, t0 + t, 0, inc);
			series_set_requests(s, i, requests);
			y += aux + ar1_next(&ar, r);
			goto store;
		}
		case SHAPE_WEEKLY: {
			double rate = (11 - 9 * cos(2 * M_PI * (t / 86400 + phase))) *
				      (1 - 0.3 * cos(2 * M_PI * t / (7 * 86400)));
			requests += rate * dt;
			series_append(s, t0 + t, 0, inc);
			series_set_requests(s, i, requests);
			y += 24 * MiB * rate + fam->param * requests +
			     ar1_next(&ar, r);
			goto store;
		}
		case SHAPE_QUANT:
			y += fam->drift_bph * h + ar1_next(&ar, r);
			break;
		case SHAPE_ARMA11: {
			double a_ = arma_sa * rng_normal(r);
			arma_e = ph * arma_e + a_ + th * a_prev;
			a_prev = a_;
			y += fam->drift_bph * h + arma_e;
			break;
		}
		case SHAPE_RANDOM_WALK:
			if (i)
				aux += fam->param * sqrt(dt / 3600) * rng_normal(r);
			y += fam->drift_bph * h + aux + ar1_next(&ar, r);
			break;
		case SHAPE_SHOT:
			/* decay since the last sample, then this interval's
			 * jumps (at most one or two at 15 s) */
			if (i) {
				aux *= exp(-dt / fam->p3);
				for (double k = rng_poisson(r, dt / fam->p2);
				     k > 0; k--)
					aux += fam->param * rng_exp(r);
			}
			y += fam->drift_bph * h + aux + ar1_next(&ar, r);
			break;
		case SHAPE_AR2: {
			double y_ = ar2_a1 * ar2_y1 + ar2_a2 * ar2_y2 +
				    ar2_sd * rng_normal(r);
			ar2_y2 = ar2_y1;
			ar2_y1 = y_;
			y += fam->drift_bph * h + y_;
			break;
		}
		case SHAPE_TELEGRAPH:
			/* hi_regime: the batch's memory is held */
			if (i && rng_uniform(r) < dt / fam->p2)
				hi_regime = !hi_regime;
			y += fam->drift_bph * h + ar1_next(&ar, r) +
			     (hi_regime ? fam->param : 0);
			break;
		case SHAPE_REGIME:
			if (i && rng_uniform(r) < dt / fam->p2)
				hi_regime = !hi_regime;
			y += fam->drift_bph * h +
			     ar_step(&ar, hi_regime ? fam->param : fam->noise_sd,
				     rng_normal(r));
			break;
		case SHAPE_PERIODIC:
			y += fam->drift_bph * h + ar1_next(&ar, r) +
			     fam->p2 * sin(2 * M_PI * (t / fam->param + phase));
			break;
		case SHAPE_PARETO:
			y += fam->drift_bph * h + ar1_next(&ar, r);
			if (rng_uniform(r) < fam->p2)
				y += fmin(50 * MiB * pow(1 - rng_uniform(r),
							 -1 / fam->param),
					  8 * GiB);
			break;
		case SHAPE_LOGISTIC_CAP:
			y += fam->param / (1 + exp(-(t - fam->p2) / fam->p3)) -
			     fam->param / (1 + exp(fam->p2 / fam->p3)) +
			     ar1_next(&ar, r);
			break;
		case SHAPE_RESTARTS: {
			/* a sample at or after the next restart time starts
			 * the next incarnation: fresh noise, its own warm-up */
			while (next_restart < n_ev && t >= ev_t[next_restart]) {
				aux = ev_t[next_restart++];
				inc = series_add_incarnation(
					s, 100 + (int64_t)next_restart, 1,
					t0 + t, "svc", "svc");
				ar.started = false;
			}
			double a = t - aux, w = fam->warm_s, shape;
			switch (fam->warm_shape) {
			case 0: shape = fmin(a / w, 1); break;
			case 1: shape = -expm1(-5 * a / w); break;
			default:
				shape = 1 / (1 + exp(-(a - w / 2) / (w / 12)));
				break;
			}
			y = fam->warm_from + (fam->warm_to - fam->warm_from) *
			    shape + fam->drift_bph * a / 3600 +
			    ar1_next(&ar, r);
			break;
		}
		case SHAPE_CHUNKED:
			y += fam->param * floor((aux + fam->drift_bph * h) /
						fam->param) + ar1_next(&ar, r);
			break;
		case SHAPE_STEPS_CAP:
			for (size_t k = 0; k < n_ev; k++)
				if (t >= ev_t[k])
					y += ev_h[k];
			y += ar1_next(&ar, r);
			break;
		default:
			abort();
		}
		series_append(s, t0 + t, 0, inc);
store:
		s->t[i] = t0 + t;
		s->footprint[i] = round(y / q) * q;
	}
	free(fi);
	free(tt);
	return truth;
}

/* The series of one seed of a family, and its true slope (bytes/h; NAN
 * where the shape has no one slope to cover); *pr_truth: the true mean
 * kept per request, NAN where not measured. The older shapes are
 * generated exactly as before issue 26 (same draws, same series). */
static double family_generate(const struct family *fam, struct rng *r,
			      struct series *s, double *pr_truth)
{
	*pr_truth = NAN;
	if (fam->shape >= SHAPE_TWO_SCALE)
		return family_generate_new(fam, r, s, pr_truth);
	series_init(s, fam->name);
	s->quantum = PAGE;
	s->mem_total = MEM_TOTAL;
	size_t n = (size_t)llround(fam->hours * 3600 / fam->dt) + 1;
	double t0 = T0 + 86400 * rng_uniform(r); /* random start time */
	uint32_t inc = series_add_incarnation(s, 100, 1, t0, "svc", "svc");
	struct ar1 noise = {fam->phi, fam->noise_sd, 0, false};
	double base = 2 * GiB, truth = NAN;
	double phase = rng_uniform(r);
	double period = fam->param;
	/* sawtooth: the current cycle's start and length */
	double cyc_start = -phase * period, cyc_len = period;
	double requests = 0;
	double step_t[16], step_h[16];
	size_t n_steps = 0;
	if (fam->shape == SHAPE_STAIRCASE) {
		n_steps = (size_t)fam->param;
		for (size_t k = 0; k < n_steps; k++) {
			/* one step in each of n_steps equal parts, away
			 * from their edges */
			double part = fam->hours * 3600 / (double)(n_steps + 1);
			step_t[k] = part * ((double)k + 0.6 + 0.6 * rng_uniform(r));
			step_h[k] = (200 + 400 * rng_uniform(r)) * MiB;
		}
	}
	for (size_t i = 0; i < n; i++) {
		double t = (double)i * fam->dt, h = t / 3600, y = base;
		double e = ar1_next(&noise, r);
		switch (fam->shape) {
		case SHAPE_AR:
			y += fam->drift_bph * h + e;
			truth = fam->drift_bph;
			break;
		case SHAPE_SAWTOOTH:
			while (t >= cyc_start + cyc_len) {
				cyc_start += cyc_len;
				cyc_len = period * (1 + fam->jitter *
						    (2 * rng_uniform(r) - 1));
			}
			/* the heap grows 1 GiB over each cycle, then a
			 * collection drops it back to the floor */
			y += fam->drift_bph * h +
			     GiB * (t - cyc_start) / cyc_len + e;
			truth = fam->drift_bph;
			break;
		case SHAPE_DIURNAL: {
			/* requests per second: 2 at night, 20 at noon */
			double day = 2 * M_PI * (t / period + phase);
			double rate = 11 - 9 * cos(day);
			requests += rate * fam->dt;
			/* in-flight buffers: 24 MiB per request/s */
			double leak_per_req = fam->drift_bph / (11 * 3600);
			y += 24 * MiB * rate + leak_per_req * requests + e;
			series_append(s, t0 + t, 0, inc);
			series_set_requests(s, i, requests);
			truth = fam->drift_bph;
			goto store;
		}
		case SHAPE_GROW_FLAT_GROW:
			y += fam->drift_bph * (fmin(h, 3) + fmax(h - 5, 0)) + e;
			break;
		case SHAPE_CAP:
			y += fmin(fam->drift_bph * h, fam->param) + e;
			break;
		case SHAPE_LOG:
			y += fam->drift_bph * log1p(t / fam->param) + e;
			break;
		case SHAPE_STAIRCASE:
			for (size_t k = 0; k < n_steps; k++)
				if (t >= step_t[k])
					y += step_h[k];
			y += e;
			break;
		case SHAPE_RESTART: {
			double restart = 4 * 3600;
			if (t >= restart && inc == 0)
				inc = series_add_incarnation(s, 200, 2,
							     t0 + t, "svc",
							     "svc");
			if (t < restart)
				y = 3 * GiB + e;
			else
				y = 1 * GiB + 2 * GiB * fmin((t - restart) /
							 fam->param, 1) + e;
			truth = 0;
			break;
		}
		default: /* the newer shapes: family_generate_new() */
			abort();
		}
		series_append(s, t0 + t, 0, inc);
store:
		s->t[i] = t0 + t;
		s->footprint[i] = round(y / PAGE) * PAGE;
	}
	if (fam->shape == SHAPE_RESTART)
		truth = 0; /* after the warm-up */
	return fam->truth_slope ? truth : NAN;
}

/* ------------------------------------------------------------------ */
/* Counting                                                            */
/* ------------------------------------------------------------------ */

#define FEW_POINTS 100

struct tally {
	size_t seeds;
	size_t covered, covered_of;
	size_t pr_covered, pr_of; /* per-request slope (truth_per_req) */
	size_t growing, plateau, stable, inconclusive, with_steps;
	size_t pr_significant; /* a significant per-request slope */
	size_t work_aside;    /* the work series set aside as no counter */
	size_t few_points;    /* seeds whose trend rested on < FEW_POINTS */
	size_t pr_few;        /* ... the per-request trend */
	double seconds;
};

static bool verbose;

static void family_run(size_t idx, size_t seeds, struct tally *t)
{
	const struct family *fam = &families[idx];
	memset(t, 0, sizeof(*t));
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (size_t k = 0; k < seeds; k++) {
		struct rng r;
		rng_seed(&r, idx, k);
		struct series s;
		double pr_truth;
		double truth = family_generate(fam, &r, &s, &pr_truth);
		struct analysis_options o;
		analysis_options_init(&o);
		struct target_findings f;
		analysis_run(&s, &o, &f);
		t->seeds++;
		if (isfinite(truth) && fam->truth_pooled && f.pooled.found) {
			/* the incarnations pooled: k slopes, never "few" */
			t->covered_of++;
			if (f.pooled.slope.low <= truth &&
			    truth <= f.pooled.slope.high)
				t->covered++;
		} else if (isfinite(truth) && f.has_trend) {
			t->covered_of++;
			t->few_points += f.trend.n < FEW_POINTS;
			if (f.slope.low <= truth && truth <= f.slope.high)
				t->covered++;
		}
		/* The counter is there by construction: a seed without a
		 * per-request interval counts as not covered. */
		if (isfinite(pr_truth)) {
			const struct per_request_finding *p = &f.per_request;
			t->pr_of++;
			t->pr_few += p->found && p->trend.n < FEW_POINTS;
			if (p->found && p->slope.low <= pr_truth &&
			    pr_truth <= p->slope.high)
				t->pr_covered++;
		}
		t->pr_significant += f.per_request.significant;
		t->work_aside += f.work_set_aside;
		switch (f.verdict) {
		case VERDICT_GROWING: t->growing++; break;
		case VERDICT_PLATEAU: t->plateau++; break;
		case VERDICT_STABLE: t->stable++; break;
		case VERDICT_INCONCLUSIVE: t->inconclusive++; break;
		}
		if (f.steps.n)
			t->with_steps++;
		if (verbose)
			fprintf(stderr, "  seed %zu: %s slope %.4g [%.4g, %.4g] "
				"B/h, points %zu, cycles %s (%.2f, %zu floors), "
				"plateau %s%s, steps %zu, per request %s "
				"%.4g [%.4g, %.4g] B\n", k,
				verdict_name(f.verdict), f.slope.estimate,
				f.slope.low, f.slope.high, f.trend.n,
				f.periodic.found ? "yes" : "no",
				f.periodic.cycles, f.periodic.n_floors,
				f.plateau.found ? "found" : f.plateau.candidate ?
				"rejected: " : "none",
				f.plateau.candidate && !f.plateau.found ?
				plateau_reject_text(f.plateau.rejected) : "",
				f.steps.n, f.per_request.found ? "yes" : "no",
				f.per_request.slope.estimate,
				f.per_request.slope.low, f.per_request.slope.high);
		if (verbose && f.n_incarnations > 1) {
			size_t warm = 0;
			for (size_t i = 0; i < f.n_incarnations; i++)
				warm += f.warmups[i].source != WARMUP_NONE;
			fprintf(stderr, "    %zu incarnations, %zu warm-ups "
				"found (last ends %.0f s in); pooled %s k=%zu "
				"%.4g [%.4g, %.4g] p %.3g, tau %.3g\n",
				f.n_incarnations, warm,
				f.warmups[f.analysed_inc].end_high -
				f.warmups[f.analysed_inc].start,
				f.pooled.found ? "yes" : "no",
				f.pooled.incarnations, f.pooled.slope.estimate,
				f.pooled.slope.low, f.pooled.slope.high,
				f.pooled.slope.p, f.pooled.tau_bph);
		}
		analysis_release(&f);
		series_release(&s);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	t->seconds = (double)(b.tv_sec - a.tv_sec) +
		     (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

/* ------------------------------------------------------------------ */
/* Targets                                                             */
/* ------------------------------------------------------------------ */

/*
 * A rate measured on N seeds is itself uncertain, so a target is judged
 * by the Wilson 95 % score interval of the rate, not by the rate alone
 * (issue 26): coverage PASSES when that interval overlaps 92-98 % and its
 * centre is >= 90 % (with the "(few)" rule only the lower side); a false
 * rate (growing, plateau, steps where there are none) when its interval
 * reaches down to 5 %; a found rate (plateau, steps) when it reaches up to
 * 90 %; "stable" on a leak above the slope of concern never.
 *
 * DEFAULT_SEEDS = 500, so that a method exactly at the targets' spirit
 * essentially never fails by chance. Exact binomial sums over the
 * judgement above (z = 1.96):
 *
 *   true coverage 95 %:  P(MISS) = 7.7e-6 at 500 seeds (6.8e-5 at 400,
 *                        5.9e-3 at 200 - the 91.0 % "miss" of issue 26)
 *   true false rate 3 %: P(MISS) = 4.8e-6 at 500 (2 %: 3.2e-10)
 *   true found rate 95 %: P(MISS) = 1.0e-11 at 500
 *
 * The whole table (both groups, 95 families) judges 84 coverages and
 * 223 rates: the chance that a method at 95 % coverage and 3 % false
 * rates misses anywhere is below 0.2 % (Bonferroni: 84 x 7.7e-6 + 223 x
 * 4.8e-6 = 1.7e-3). At 400 seeds it would be about 1 %, at 200 seeds
 * about 40 %. Each P(MISS) is the exact sum of the Binomial(N, p)
 * probabilities of the counts x that coverage_ok(), false_rate_ok() or
 * found_rate_ok() below judge MISS.
 *
 * --quick runs 50 seeds, where a Wilson interval is too wide for the
 * centre rule (a 95 % method fails it a quarter of the time); it keeps
 * its fixed bounds, about 2.5 binomial standard errors wider than the
 * targets, so the fast subset fails on a real regression only.
 */
#define DEFAULT_SEEDS 500
#define QUICK_SEEDS 50
#define WILSON_Z 1.959964

struct wilson {
	double lo, hi, centre;
};

static struct wilson wilson(size_t x, size_t n)
{
	double z = WILSON_Z, p = (double)x / (double)n, z2n = z * z / (double)n;
	double d = 1 + z2n, c = (p + z2n / 2) / d;
	double hw = z / d * sqrt(p * (1 - p) / (double)n +
				 z2n / (4 * (double)n));
	return (struct wilson){fmax(0, c - hw), fmin(1, c + hw), c};
}

/* quick: fixed bounds for 50 seeds (see above) */
static const double QUICK_COV_LO = 0.88, QUICK_FALSE = 0.10,
		    QUICK_FOUND = 0.80;

static bool coverage_ok(size_t x, size_t n, bool few, bool quick)
{
	if (quick)
		return (double)x / (double)n >= QUICK_COV_LO;
	struct wilson w = wilson(x, n);
	return w.hi >= 0.92 && (few || w.lo <= 0.98) && w.centre >= 0.90;
}

static bool false_rate_ok(size_t x, size_t n, bool quick)
{
	if (quick)
		return (double)x / (double)n <= QUICK_FALSE;
	return wilson(x, n).lo <= 0.05;
}

static bool found_rate_ok(size_t x, size_t n, bool quick)
{
	if (quick)
		return (double)x / (double)n >= QUICK_FOUND;
	return wilson(x, n).hi >= 0.90;
}

static const char *check(bool ok, bool *all)
{
	if (!ok)
		*all = false;
	return ok ? "PASS" : "MISS";
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : NAN;
}

static const char *group_name(enum group g)
{
	return g == GROUP_HELDOUT ? "heldout" : "tuned";
}

int main(int argc, char **argv)
{
	size_t seeds = 0;
	const char *only = NULL;
	bool quick = false, csv = false, list = false;
	int want_group = -1; /* all */
	long dump = -1;
	static const struct option opts[] = {
		{"seeds", required_argument, NULL, 's'},
		{"family", required_argument, NULL, 'f'},
		{"group", required_argument, NULL, 'g'},
		{"quick", no_argument, NULL, 'q'},
		{"csv", no_argument, NULL, 'c'},
		{"list", no_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"dump", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "s:f:g:qclvd:h", opts, NULL)) != -1) {
		switch (ch) {
		case 's': seeds = (size_t)strtoul(optarg, NULL, 10); break;
		case 'f': only = optarg; break;
		case 'g':
			if (!strcmp(optarg, "tuned"))
				want_group = GROUP_TUNED;
			else if (!strcmp(optarg, "heldout"))
				want_group = GROUP_HELDOUT;
			else if (!strcmp(optarg, "all"))
				want_group = -1;
			else {
				fprintf(stderr, "calibrate: --group is tuned, "
					"heldout or all\n");
				return 2;
			}
			break;
		case 'q': quick = true; break;
		case 'c': csv = true; break;
		case 'l': list = true; break;
		case 'v': verbose = true; break;
		case 'd': dump = strtol(optarg, NULL, 10); break;
		case 'h':
			printf("usage: calibrate [--seeds N] [--family TEXT] "
			       "[--group tuned|heldout|all] [--quick] [--csv] "
			       "[--list] [--verbose] [--dump SEED]\n"
			       "  default: every family of both groups, %d seeds, "
			       "exit 1 on any MISS\n"
			       "  --quick: the subset `make test` runs, %d seeds\n",
			       DEFAULT_SEEDS, QUICK_SEEDS);
			return 0;
		default: return 2;
		}
	}
	if (list) {
		for (size_t i = 0; i < N_FAMILIES; i++) {
			const struct family *fam = &families[i];
			if (want_group >= 0 && (int)fam->group != want_group)
				continue;
			printf("%-8s %s%s\n", group_name(fam->group), fam->name,
			       fam->quick ? "  (quick)" : "");
		}
		return 0;
	}
	if (dump >= 0) {
		printf("family,t,footprint,requests\n");
		for (size_t i = 0; i < N_FAMILIES; i++) {
			const struct family *fam = &families[i];
			if ((only && !strstr(fam->name, only)) ||
			    (want_group >= 0 && (int)fam->group != want_group))
				continue;
			struct rng r;
			rng_seed(&r, i, (uint64_t)dump);
			struct series s;
			double pr_truth;
			family_generate(fam, &r, &s, &pr_truth);
			for (size_t k = 0; k < s.n; k++)
				printf("\"%s\",%.3f,%.0f,%.0f\n", fam->name,
				       s.t[k], s.footprint[k],
				       s.requests ? s.requests[k] : NAN);
			series_release(&s);
		}
		return 0;
	}
	if (!seeds)
		seeds = quick ? QUICK_SEEDS : DEFAULT_SEEDS;
	bool all = true;
	if (csv)
		printf("group,family,seeds,coverage_pct,coverage_n,"
		       "per_request_coverage_pct,per_request_n,growing_pct,"
		       "plateau_pct,stable,inconclusive_pct,steps_pct,seconds,"
		       "verdict\n");
	else
		printf("%-7s %-40s %5s %7s %7s %6s %6s %6s %6s %6s  %s\n",
		       "group", "family", "seeds", "cover%", "prcov%", "grow%",
		       "plat%", "stable", "inconc", "steps%", "targets");
	double total_s = 0;
	for (size_t i = 0; i < N_FAMILIES; i++) {
		const struct family *fam = &families[i];
		if (quick && !fam->quick)
			continue;
		if (only && !strstr(fam->name, only))
			continue;
		if (want_group >= 0 && (int)fam->group != want_group)
			continue;
		struct tally t;
		family_run(i, seeds, &t);
		total_s += t.seconds;
		char verdicts[256] = "";
		size_t len = 0;
		bool fam_ok = true;
#define ADD(...) len += (size_t)snprintf(verdicts + len, sizeof(verdicts) - len, __VA_ARGS__)
		double cov = pct(t.covered, t.covered_of);
		double prcov = pct(t.pr_covered, t.pr_of);
		/* With fewer than FEW_POINTS points (cycle floors) the
		 * correlation cannot be read from the data and the interval
		 * is conservative by design: only the lower bound holds. */
		bool few = 2 * t.few_points >= t.covered_of && t.covered_of;
		bool pr_few = 2 * t.pr_few >= t.pr_of && t.pr_of;
		if (fam->truth_slope && t.covered_of)
			ADD("cover%s %s ", few ? "(few)" : "",
			    check(coverage_ok(t.covered, t.covered_of, few,
					      quick), &fam_ok));
		if (fam->truth_per_req && t.pr_of)
			ADD("prcov%s %s ", pr_few ? "(few)" : "",
			    check(coverage_ok(t.pr_covered, t.pr_of, pr_few,
					      quick), &fam_ok));
		if (fam->no_drift)
			ADD("grow %s ", check(false_rate_ok(t.growing, t.seeds,
							    quick), &fam_ok));
		if (fam->plateau_either)
			;
		else if (!fam->has_plateau)
			ADD("plat %s ", check(false_rate_ok(t.plateau, t.seeds,
							    quick), &fam_ok));
		else
			ADD("plat-found %s ", check(found_rate_ok(t.plateau,
					t.seeds, quick), &fam_ok));
		if (fam->leak_above_concern || fam->never_stable)
			ADD("stable %s ", check(t.stable == 0, &fam_ok));
		if (fam->work_gauge) {
			ADD("prsig %s ", check(t.pr_significant == 0, &fam_ok));
			ADD("gauge-found %s ", check(t.work_aside == t.seeds,
						     &fam_ok));
		}
		if (fam->leak_found)
			ADD("grow-found %s ", check(found_rate_ok(t.growing,
					t.seeds, quick), &fam_ok));
		if (fam->stable_found)
			ADD("stable-found %s ", check(found_rate_ok(t.stable,
					t.seeds, quick), &fam_ok));
		if (fam->steps_either)
			;
		else if (!fam->has_steps)
			ADD("steps %s ", check(false_rate_ok(t.with_steps,
					t.seeds, quick), &fam_ok));
		else
			ADD("steps-found %s ", check(found_rate_ok(t.with_steps,
					t.seeds, quick), &fam_ok));
#undef ADD
		if (!fam_ok)
			all = false;
		if (csv)
			printf("%s,\"%s\",%zu,%.1f,%zu,%.1f,%zu,%.1f,%.1f,%zu,"
			       "%.1f,%.1f,%.2f,%s\n", group_name(fam->group),
			       fam->name, t.seeds, cov, t.covered_of, prcov,
			       t.pr_of, pct(t.growing, t.seeds),
			       pct(t.plateau, t.seeds), t.stable,
			       pct(t.inconclusive, t.seeds),
			       pct(t.with_steps, t.seeds), t.seconds,
			       fam_ok ? "PASS" : "MISS");
		else
			printf("%-7s %-40s %5zu %7.1f %7.1f %6.1f %6.1f %6zu "
			       "%6.1f %6.1f  %s\n", group_name(fam->group),
			       fam->name, t.seeds, cov, prcov,
			       pct(t.growing, t.seeds),
			       pct(t.plateau, t.seeds), t.stable,
			       pct(t.inconclusive, t.seeds),
			       pct(t.with_steps, t.seeds), verdicts);
		fflush(stdout);
	}
	fprintf(stderr, "calibrate: %.1f s of analysis; %s\n", total_s,
		all ? "every target met" : "some targets MISSED");
	return all ? 0 : 1;
}
