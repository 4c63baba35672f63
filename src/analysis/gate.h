/*
 * gate.h - the judgement of `memtrend check` (a CI gate): one target's
 * slope after the warm-up, per request (with a work counter) or per hour,
 * with its 95 % interval, held against a budget: pass when the interval
 * lies wholly below it, fail when wholly above, inconclusive otherwise --
 * with how much more work (or time) would decide at this noise. Never a
 * pass on too little evidence. The rule and the advice model are in
 * docs/check.md.
 *
 * What it does not do: record, read files or write a word. gate_measure()
 * turns a series into evidence (the statistics of stats.h, the same
 * estimator and interval as report's); gate_judge() is pure logic over
 * that evidence, tested as a table (tests/unit/test_gate.c); the sentences
 * are render_gate.c's.
 */
#ifndef MEMTREND_GATE_H
#define MEMTREND_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"
#include "slope.h"

/* What the budget is per. */
enum gate_basis {
	GATE_PER_REQUEST,          /* bytes per request (--max-per-request) */
	GATE_PER_HOUR,             /* bytes per hour (--max-growth) */
};

/* The warm-up left out: the first warmup_requests of work, or the first
 * warmup_s of the analysed incarnation (both 0: none). */
struct gate_window {
	double warmup_s;
	double warmup_requests;
};

/* What a series shows after the warm-up. Amount: requests (per request)
 * or seconds (per hour) it rests on. */
struct gate_evidence {
	enum gate_basis basis;
	size_t points;             /* readings used */
	size_t points_before;      /* readings the warm-up left out */
	bool work_recorded;        /* the series has a work counter */
	bool work_not_counter;     /* ... that is a gauge (counter.h): it
				      went down work_decreases times in
				      work_compared readings */
	size_t work_decreases, work_compared;
	double requests;           /* work done after the warm-up; NAN when
				      the counter has no readings there */
	size_t work_readings;      /* readings of the counter among them
				      (a failed reading is none) */
	double span_s;             /* time after the warm-up */
	double from;               /* where the warm-up ended (Unix s) */
	double resolution;         /* of the readings used */
	bool found;                /* a slope could be computed */
	struct slope slope;        /* per request or per hour, the interval
				      widened by resolution / amount */
	double amount;             /* requests or seconds the slope rests on */
	double rate_per_s;         /* requests per second (NAN per hour) */
};

/* Fill *e from the latest incarnation of s (no slope spans a restart)
 * after the warm-up. work: idle_work_increase() of s->requests, or NULL
 * when there is none (then the per-request basis finds no slope). Per
 * request the work series is checked first (counter_check_run): a gauge
 * gives no per-request evidence (work_not_counter). */
void gate_measure(const struct series *s, const double *work,
		  enum gate_basis basis, const struct gate_window *w,
		  struct gate_evidence *e);

enum gate_outcome {
	GATE_PASS,                 /* the interval's upper end < budget */
	GATE_FAIL,                 /* its lower end > budget */
	GATE_INCONCLUSIVE,         /* the budget lies in the interval, or
				      no evidence */
};
const char *gate_outcome_name(enum gate_outcome o);

/* Why an inconclusive outcome could not decide. */
enum gate_why {
	GATE_WHY_NONE,             /* decided */
	GATE_WHY_TOO_FEW,          /* fewer than 3 readings after the
				      warm-up, fewer than 2 of the counter
				      (per request), or no slope */
	GATE_WHY_NO_WORK,          /* per request: the counter, read at
				      least twice after the warm-up, never
				      moved */
	GATE_WHY_NOT_COUNTER,      /* per request: the work series is a
				      gauge (counter.h), not a count */
	GATE_WHY_INTERVAL,         /* the budget lies inside the interval */
	GATE_WHY_AT_BUDGET,        /* ... and the interval has no width on
				      the budget's side: no advice */
};

/* The advice model (docs/check.md, "The advice"): a rerun's interval
 * shrinks as amount^-GATE_SHRINK (readings at a steady rate, noise
 * stationary over the run), and the advice is the amount at which a rerun
 * decides with chance GATE_ASSURANCE when the truth is as this run's
 * interval says. Both chosen by the simulation tests/calibration/
 * gate_advice.c, whose table docs/check.md keeps. */
#define GATE_SHRINK 1.5
#define GATE_ASSURANCE 0.7

/* The factor by which the amount seen must grow for a rerun to decide
 * with chance GATE_ASSURANCE: >= 1. d: |estimate - budget| (>= 0); side:
 * the interval's half-width on the budget's side (> 0); q: the widening
 * by the resolution over the amount seen (>= 0), which shrinks as 1/k. */
double gate_rerun_factor(double d, double side, double q);

struct gate_result {
	enum gate_outcome outcome;
	enum gate_why why;
	double budget;             /* as given, per request or per hour */
	/* Inconclusive on the interval: the amount (requests or seconds)
	 * that would decide in all, and how much more than was seen; more
	 * as time too at the observed request rate (NAN when unknown).
	 * INFINITY when it cannot be said (GATE_WHY_AT_BUDGET). NAN
	 * otherwise. */
	double needed, more, more_s;
};

/* The judgement: a pure function of the evidence and the budget (> 0). */
void gate_judge(const struct gate_evidence *e, double budget,
		struct gate_result *r);

#endif
