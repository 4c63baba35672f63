/*
 * gate_advice.c - is `memtrend check`'s advice right? When a run is too
 * short to decide, check says how many requests in all would decide
 * (gate_judge()'s `needed`). This simulation measures that advice against
 * what a longer run of the same service then needs.
 *
 * Per family and seed: a service leaking LEAK bytes per request at
 * RATE requests a second, read every second with the family's noise, in
 * whole pages; the budget is LEAK / 2. The short run is the first SHORT
 * readings; only seeds where it is inconclusive on the interval count
 * (the others need no advice). The longer run is the same series read
 * further: the readings are judged at lengths growing by 5 % from the
 * short run's, and the first length that decides is what it needed
 * (N*). The advice is within a factor of 2 when it lies between half
 * and twice N*.
 * A length that passes the leaking service is counted as a wrong pass.
 *
 * Families (the noise; marginal sd chosen per --ratio below):
 *   iid        independent normal readings
 *   uniform    4 buffers of random size replaced between readings (the
 *              noise of tests/helpers/leak_server.py)
 *   ar0.8      AR(1), phi 0.8 per reading (correlated over ~5 s)
 *   ar0.95     AR(1), phi 0.95 (wanders over ~20 s)
 *   sawtooth   garbage piling up at a random rate, collected at random
 *              times (a GC), plus iid noise
 *
 * --ratio R sets the noise so that, for iid noise, the short run's 95 %
 * half-width is R times the distance from the leak to the budget: R = 2
 * is a short run at half of what decides, R = 8 one far from it.
 *
 * Usage: gate_advice [--seeds N] [--short READINGS] [--ratio R]...
 *                    [--family SUBSTRING] [--verbose]
 * Prints one row per family and ratio: seeds that needed advice, the
 * share within a factor of 2 / too short / too long, the median of
 * needed / N*, the share never decided within 40x (counted short unless
 * the advice said more than twice that), and first decisions that were
 * a pass of the leaking service (pass1st: the scan looks at many
 * lengths, so this is not one check's error rate); then the same shares
 * over all families by the short run's own half-width over the true
 * distance to the budget. Deterministic (sim_rng.h); about a minute at
 * 200 seeds. No bounds are checked here: docs/check.md keeps the table.
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gate.h"
#include "series.h"
#include "sim_rng.h"

#define PAGE 4096.0
#define LEAK 1024.0            /* bytes per request */
#define BUDGET (LEAK / 2)
#define RATE 20.0              /* requests a second */
#define LONGEST 40             /* the longer run: at most 40x the short */

enum family { F_IID, F_UNIFORM, F_AR08, F_AR095, F_SAWTOOTH, F_COUNT };
static const char *const family_names[F_COUNT] = {
	"iid", "uniform", "ar0.8", "ar0.95", "sawtooth",
};

/* n readings of family f with marginal noise sd `sd` into fp[], the
 * cumulative requests into req[]. */
static void generate(enum family f, double sd, struct rng *r, size_t n,
		     double *fp, double *req)
{
	struct ar1 a = {.phi = f == F_AR08 ? 0.8 : 0.95, .sd = sd};
	/* uniform: 4 buffers of U(0, top) have sd top * sqrt(4 / 12) */
	double top = sd / sqrt(4.0 / 12.0);
	/* sawtooth: garbage grows by U(0, 2g) a reading, collected with
	 * probability 1/20 a reading; g such that the pile's sd is about
	 * sd / 2 (a triangle of height h has sd h / sqrt(12); mean height
	 * ~20 g), the other half iid */
	double g = sd / 2 * sqrt(12.0) / 20;
	double pile = 0, requests = 0;
	for (size_t i = 0; i < n; i++) {
		requests += RATE;
		double noise = 0;
		switch (f) {
		case F_IID:
			noise = sd * rng_normal(r);
			break;
		case F_UNIFORM:
			for (int k = 0; k < 4; k++)
				noise += top * rng_uniform(r);
			break;
		case F_AR08:
		case F_AR095:
			noise = ar1_next(&a, r);
			break;
		case F_SAWTOOTH:
			pile += 2 * g * rng_uniform(r);
			if (rng_uniform(r) < 1.0 / 20)
				pile = 0;
			noise = pile + sd / sqrt(2.0) * rng_normal(r);
			break;
		case F_COUNT:
			break;
		}
		fp[i] = PAGE * round((500e6 + LEAK * requests + noise) / PAGE);
		req[i] = requests;
	}
}

/* The gate on the first n readings. */
static void judge(const double *fp, const double *req, size_t n,
		  struct gate_evidence *e, struct gate_result *res)
{
	struct series s;
	series_init(&s, "sim");
	uint32_t inc = series_add_incarnation(&s, 1, 1, 1e9, "sim", NULL);
	series_reserve(&s, n);
	for (size_t i = 0; i < n; i++) {
		size_t k = series_append(&s, 1e9 + (double)i, fp[i], inc);
		series_set_requests(&s, k, req[i]);
	}
	s.quantum = PAGE;
	struct gate_window none = {0};
	gate_measure(&s, s.requests, GATE_PER_REQUEST, &none, e);
	gate_judge(e, BUDGET, res);
	series_release(&s);
}

/* Tallies by how far the short run was from deciding: its interval's
 * half-width over the true distance to the budget, in buckets. */
#define BUCKETS 5
static const char *const bucket_names[BUCKETS] = {
	"<= 2", "2-4", "4-8", "8-16", "> 16",
};
static size_t tally[F_COUNT][BUCKETS][3]; /* short, within, long */

static int bucket_of(const struct gate_evidence *e)
{
	double r = (e->slope.high - e->slope.low) / 2 / (LEAK - BUDGET);
	return r <= 2 ? 0 : r <= 4 ? 1 : r <= 8 ? 2 : r <= 16 ? 3 : 4;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t seeds = 200, short_n = 40;
	double ratios[8];
	size_t nratios = 0;
	const char *only = NULL;
	bool verbose = false;
	static const struct option opts[] = {
		{"seeds", required_argument, NULL, 's'},
		{"short", required_argument, NULL, 'n'},
		{"ratio", required_argument, NULL, 'r'},
		{"family", required_argument, NULL, 'f'},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seeds = strtoul(optarg, NULL, 10); break;
		case 'n': short_n = strtoul(optarg, NULL, 10); break;
		case 'r':
			if (nratios < 8)
				ratios[nratios++] = strtod(optarg, NULL);
			break;
		case 'f': only = optarg; break;
		case 'v': verbose = true; break;
		default:
			fprintf(stderr, "usage: gate_advice [--seeds N] "
				"[--short READINGS] [--ratio R]... "
				"[--family SUBSTRING] [--verbose]\n");
			return 2;
		}
	}
	if (!nratios) {
		ratios[nratios++] = 2;
		ratios[nratios++] = 4;
		ratios[nratios++] = 8;
	}
	if (seeds < 1 || short_n < 5) {
		fprintf(stderr, "gate_advice: --seeds >= 1, --short >= 5\n");
		return 2;
	}
	size_t long_n = short_n * LONGEST;
	double *fp = xmalloc(long_n * sizeof(double));
	double *req = xmalloc(long_n * sizeof(double));
	double *ratio_of = xmalloc(seeds * sizeof(double));
	printf("%-10s %5s %6s %7s %7s %7s %7s %7s %7s\n", "family", "ratio",
	       "advice", "in2x%", "short%", "long%", "median", "never%",
	       "pass1st");
	for (int f = 0; f < F_COUNT; f++) {
		if (only && !strstr(family_names[f], only))
			continue;
		for (size_t ri = 0; ri < nratios; ri++) {
			/* iid: the per-request slope's se over m readings of
			 * RATE requests each is sd sqrt(12) / (RATE m^1.5) */
			double d = LEAK - BUDGET;
			double se = ratios[ri] * d / 1.96;
			double sd = se * RATE * pow((double)short_n, 1.5) /
				    sqrt(12.0);
			size_t advised = 0, in2 = 0, shorter = 0, longer = 0,
			       never = 0, passes = 0;
			for (size_t seed = 0; seed < seeds; seed++) {
				struct rng r;
				rng_seed(&r, 1000 + (uint64_t)f * 16 + ri, seed);
				generate((enum family)f, sd, &r, long_n, fp, req);
				struct gate_evidence e;
				struct gate_result res;
				judge(fp, req, short_n, &e, &res);
				if (res.outcome != GATE_INCONCLUSIVE ||
				    (res.why != GATE_WHY_INTERVAL &&
				     res.why != GATE_WHY_AT_BUDGET))
					continue;
				double needed = res.needed;
				double star = NAN;
				for (double m = short_n * 1.05; m <= long_n;
				     m *= 1.05) {
					struct gate_evidence e2;
					struct gate_result r2;
					judge(fp, req, (size_t)m, &e2, &r2);
					if (r2.outcome == GATE_INCONCLUSIVE)
						continue;
					if (r2.outcome == GATE_PASS)
						passes++;
					star = e2.amount;
					break;
				}
				if (verbose)
					fprintf(stderr, "%s r=%g seed %zu: est "
						"%.0f [%.0f, %.0f] over %.0f, "
						"needed %.0f, decided at %.0f\n",
						family_names[f], ratios[ri],
						seed, e.slope.estimate,
						e.slope.low, e.slope.high,
						e.amount, needed, star);
				/* undecided within 40x: short unless it
				 * said more than twice that */
				if (isnan(star))
					never++;
				double q = needed / (isnan(star) ?
					2 * req[long_n - 1] : star);
				ratio_of[advised++] = q;
				int o = q < 0.5 ? 0 : q > 2 ? 2 : 1;
				tally[f][bucket_of(&e)][o]++;
				if (o == 0)
					shorter++;
				else if (o == 2)
					longer++;
				else
					in2++;
			}
			double med = NAN;
			if (advised) {
				qsort(ratio_of, advised, sizeof(double),
				      cmp_double);
				med = ratio_of[advised / 2];
			}
			double a = advised ? 100.0 / advised : NAN;
			printf("%-10s %5g %6zu %7.1f %7.1f %7.1f %7.2f %7.1f "
			       "%7zu\n", family_names[f], ratios[ri], advised,
			       in2 * a, shorter * a, longer * a, med,
			       never * a, passes);
			fflush(stdout);
		}
	}
	/* By how far the short run was from deciding, all families. */
	printf("\nby the short run's half-width / true distance to the "
	       "budget:\n%-8s %6s %7s %7s %7s\n", "ratio", "advice", "in2x%",
	       "short%", "long%");
	for (int b = 0; b < BUCKETS; b++) {
		size_t t[3] = {0};
		for (int f = 0; f < F_COUNT; f++)
			for (int o = 0; o < 3; o++)
				t[o] += tally[f][b][o];
		size_t n = t[0] + t[1] + t[2];
		if (n)
			printf("%-8s %6zu %7.1f %7.1f %7.1f\n",
			       bucket_names[b], n, 100.0 * t[1] / n,
			       100.0 * t[0] / n, 100.0 * t[2] / n);
	}
	free(fp);
	free(req);
	free(ratio_of);
	return 0;
}
