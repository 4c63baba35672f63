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
 *   growing   where nothing grows (no drift):          <= 5 %
 *   plateau   where nothing plateaus:                  <= 5 %
 *             where there is one:                      >= 90 %
 *   stable    on a leak above the slope of concern:    0
 *   steps     false steps where there are none:        <= 5 %
 *
 * Usage: calibrate [--seeds N] [--family SUBSTRING] [--quick] [--csv]
 *                  [--list] [--verbose]
 *   --verbose  one line per seed on stderr (verdict, interval, cycles,
 *              plateau, steps): where a rate comes from
 *   --quick  the fast subset `make test` runs (a few families, 50 seeds,
 *            bounds that allow for 50 seeds' binomial spread); exits 1 when
 *            a bound fails
 *   default  every family, 200 seeds, exit 1 on any MISS
 *
 * Everything is deterministic: a family's seed s draws from xoshiro256**
 * seeded by splitmix64(family index, s), so a run is reproducible on any
 * machine with IEEE doubles. No I/O besides the table.
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
};

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
};

/* Slope of concern at a 2 GiB footprint with MemTotal 64 GiB: 62 GiB in
 * 30 days = 88.2 MiB/h. Leaks of 20 MiB/h are below it, 200 MiB/h above. */
static const struct family families[] = {
	/* AR(1) noise, 8 h at 15 s, sd 16 MiB; without and with drift */
#define AR_FAM(nm, ph, dr, q) \
	{nm, SHAPE_AR, 8, 15, ph, 16 * MiB, dr, 0, 0, q, true, (dr) == 0, \
	 false, (dr) > 88.2 * MiB, false, false}
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
	 (dr) == 0, false, false, false, false}
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
	 true, true, true, false, false, false, false},
	{"diurnal load + leak 20MiB/h", SHAPE_DIURNAL, 72, 60, 0.9, 8 * MiB,
	 20 * MiB, 86400, 0, false, true, false, false, false, false, false},
	/* grows 40 MiB/h 3 h, flat 2 h, grows again 3 h */
	{"grow-flat-grow", SHAPE_GROW_FLAT_GROW, 8, 15, 0.9, 4 * MiB,
	 40 * MiB, 0, 0, true, false, false, false, false, false, false},
	/* grows 400 MiB/h to a cap 1 GiB up, holds it for the rest of 8 h */
	{"cap", SHAPE_CAP, 8, 15, 0.9, 4 * MiB, 400 * MiB, 1 * GiB, 0, true,
	 false, false, true, false, false, false},
	/* 300 MiB * ln(1 + t / 10 min): 8 h, still rising ~37 MiB/h */
	{"logarithmic", SHAPE_LOG, 8, 15, 0.9, 4 * MiB, 300 * MiB, 600, 0,
	 false, false, false, false, false, false, false},
	/* four steps of 200-600 MiB at random times, AR noise */
	{"staircase", SHAPE_STAIRCASE, 8, 15, 0.9, 4 * MiB, 0, 4, 0, true,
	 false, false, false, false, true, false},
	/* 4 h steady, restart, 30 min warm-up 1 -> 3 GiB (longer than the
	 * default 10 min start-up), 4 h steady. The analysed incarnation
	 * rises and then holds its level: a plateau of that incarnation by
	 * definition (reported with the restart beside it), never a leak. Its
	 * 2 GiB rise in 30 min of a 4.5 h window may also be listed as a step
	 * at a coarse scale (steps.h: "a rise that takes a while counts as a
	 * step at the scale where it looks abrupt"): not counted either way. */
	{"restart + long warm-up", SHAPE_RESTART, 8.5, 15, 0.9, 8 * MiB, 0,
	 1800, 0, false, false, true, true, false, false, true},
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

/* The series of one seed of a family, and its true slope (bytes/h; NAN
 * where the shape has no one slope to cover). */
static double family_generate(const struct family *fam, struct rng *r,
			      struct series *s)
{
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
	size_t growing, plateau, stable, inconclusive, with_steps;
	size_t few_points;    /* seeds whose trend rested on < FEW_POINTS */
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
		double truth = family_generate(fam, &r, &s);
		struct analysis_options o;
		analysis_options_init(&o);
		struct target_findings f;
		analysis_run(&s, &o, &f);
		t->seeds++;
		if (isfinite(truth) && f.has_trend) {
			t->covered_of++;
			t->few_points += f.trend.n < FEW_POINTS;
			if (f.slope.low <= truth && truth <= f.slope.high)
				t->covered++;
		}
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
				"plateau %s%s, steps %zu\n", k,
				verdict_name(f.verdict), f.slope.estimate,
				f.slope.low, f.slope.high, f.trend.n,
				f.periodic.found ? "yes" : "no",
				f.periodic.cycles, f.periodic.n_floors,
				f.plateau.found ? "found" : f.plateau.candidate ?
				"rejected: " : "none",
				f.plateau.candidate && !f.plateau.found ?
				plateau_reject_text(f.plateau.rejected) : "",
				f.steps.n);
		analysis_release(&f);
		series_release(&s);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	t->seconds = (double)(b.tv_sec - a.tv_sec) +
		     (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

/* Targets. quick: bounds for 50 seeds (about 2.5 binomial standard
 * errors wider), so the fast subset fails only on a real regression. */
struct bounds {
	double cov_lo, cov_hi, false_rate, found_rate;
};


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

int main(int argc, char **argv)
{
	size_t seeds = 0;
	const char *only = NULL;
	bool quick = false, csv = false, list = false;
	static const struct option opts[] = {
		{"seeds", required_argument, NULL, 's'},
		{"family", required_argument, NULL, 'f'},
		{"quick", no_argument, NULL, 'q'},
		{"csv", no_argument, NULL, 'c'},
		{"list", no_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "s:f:qclvh", opts, NULL)) != -1) {
		switch (ch) {
		case 's': seeds = (size_t)strtoul(optarg, NULL, 10); break;
		case 'f': only = optarg; break;
		case 'q': quick = true; break;
		case 'c': csv = true; break;
		case 'l': list = true; break;
		case 'v': verbose = true; break;
		case 'h':
			printf("usage: calibrate [--seeds N] [--family TEXT] "
			       "[--quick] [--csv] [--list] [--verbose]\n");
			return 0;
		default: return 2;
		}
	}
	if (list) {
		for (size_t i = 0; i < N_FAMILIES; i++)
			printf("%s\n", families[i].name);
		return 0;
	}
	if (!seeds)
		seeds = quick ? 50 : 200;
	struct bounds bd = quick ? (struct bounds){88, 100, 10, 80}
				 : (struct bounds){92, 98, 5, 90};
	bool all = true;
	if (csv)
		printf("family,seeds,coverage_pct,growing_pct,plateau_pct,"
		       "stable,inconclusive_pct,steps_pct,verdict\n");
	else
		printf("%-36s %5s %8s %8s %8s %6s %8s %7s  %s\n", "family",
		       "seeds", "cover%", "grow%", "plat%", "stable",
		       "inconc%", "steps%", "targets");
	double total_s = 0;
	for (size_t i = 0; i < N_FAMILIES; i++) {
		const struct family *fam = &families[i];
		if (quick && !fam->quick)
			continue;
		if (only && !strstr(fam->name, only))
			continue;
		struct tally t;
		family_run(i, seeds, &t);
		total_s += t.seconds;
		char verdicts[256] = "";
		size_t len = 0;
		bool fam_ok = true;
#define ADD(...) len += (size_t)snprintf(verdicts + len, sizeof(verdicts) - len, __VA_ARGS__)
		double cov = pct(t.covered, t.covered_of);
		/* With fewer than FEW_POINTS points (cycle floors) the
		 * correlation cannot be read from the data and the interval
		 * is conservative by design: only the lower bound holds. */
		bool few = 2 * t.few_points >= t.covered_of && t.covered_of;
		if (fam->truth_slope && t.covered_of)
			ADD("cover%s %s ", few ? "(few)" : "",
			    check(cov >= bd.cov_lo && (few || cov <= bd.cov_hi), &fam_ok));
		if (fam->no_drift)
			ADD("grow %s ", check(pct(t.growing, t.seeds) <= bd.false_rate, &fam_ok));
		if (!fam->has_plateau)
			ADD("plat %s ", check(pct(t.plateau, t.seeds) <= bd.false_rate, &fam_ok));
		else
			ADD("plat-found %s ", check(pct(t.plateau, t.seeds) >= bd.found_rate, &fam_ok));
		if (fam->leak_above_concern)
			ADD("stable %s ", check(t.stable == 0, &fam_ok));
		if (fam->steps_either)
			;
		else if (!fam->has_steps)
			ADD("steps %s ", check(pct(t.with_steps, t.seeds) <= bd.false_rate, &fam_ok));
		else
			ADD("steps-found %s ", check(pct(t.with_steps, t.seeds) >= bd.found_rate, &fam_ok));
#undef ADD
		if (!fam_ok)
			all = false;
		if (csv)
			printf("\"%s\",%zu,%.1f,%.1f,%.1f,%zu,%.1f,%.1f,%s\n",
			       fam->name, t.seeds, cov, pct(t.growing, t.seeds),
			       pct(t.plateau, t.seeds), t.stable,
			       pct(t.inconclusive, t.seeds),
			       pct(t.with_steps, t.seeds),
			       fam_ok ? "PASS" : "MISS");
		else
			printf("%-36s %5zu %8.1f %8.1f %8.1f %6zu %8.1f %7.1f  %s\n",
			       fam->name, t.seeds, cov, pct(t.growing, t.seeds),
			       pct(t.plateau, t.seeds), t.stable,
			       pct(t.inconclusive, t.seeds),
			       pct(t.with_steps, t.seeds), verdicts);
		fflush(stdout);
	}
	fprintf(stderr, "calibrate: %.1f s of analysis; %s\n", total_s,
		all ? "every target met" : "some targets MISSED");
	return all ? 0 : 1;
}
