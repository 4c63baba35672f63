/*
 * sim_rng.h - the seeded random numbers of the simulations in
 * tests/calibration (calibrate.c, gate_advice.c): xoshiro256** seeded by
 * splitmix64 from (family, seed), uniform and normal draws, stationary AR(1) paths, and the
 * draws of the newer families (exponential, gamma, Student t, Poisson, a continuous-time
 * Ornstein-Uhlenbeck step). Deterministic on any machine with IEEE doubles (and the same libm:
 * log, exp, pow); header-only (static functions), no I/O. Adding a function here changes no
 * existing stream: each draws only when called.
 */
#ifndef MEMTREND_SIM_RNG_H
#define MEMTREND_SIM_RNG_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
	bool has_spare;
	double spare;
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t family, uint64_t seed)
{
	uint64_t x = family * 0x100000001b3ULL ^ (seed + 1) * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	r->has_spare = false;
	r->spare = 0;
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* uniform in [0, 1) */
static inline double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static inline double rng_normal(struct rng *r)
{
	if (r->has_spare) {
		r->has_spare = false;
		return r->spare;
	}
	double u, v, q;
	do {
		u = 2 * rng_uniform(r) - 1;
		v = 2 * rng_uniform(r) - 1;
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	double f = sqrt(-2 * log(q) / q);
	r->spare = v * f;
	r->has_spare = true;
	return u * f;
}

/* A stationary AR(1) path of n steps with marginal sd `sd`. */
struct ar1 {
	double phi, sd, u;
	bool started;
};

static inline double ar1_next(struct ar1 *a, struct rng *r)
{
	if (!a->started) {
		a->u = a->sd * rng_normal(r);
		a->started = true;
	} else {
		a->u = a->phi * a->u +
		       a->sd * sqrt(1 - a->phi * a->phi) * rng_normal(r);
	}
	return a->u;
}

/* Exponential with mean 1 (inversion; 1 - u is never 0). */
static inline double rng_exp(struct rng *r)
{
	return -log(1 - rng_uniform(r));
}

/* Gamma(shape a, scale 1): Marsaglia & Tsang (2000) for a >= 1, and
 * Gamma(a + 1) * U^(1/a) below 1. */
static inline double rng_gamma(struct rng *r, double a)
{
	if (a < 1)
		return rng_gamma(r, a + 1) * pow(rng_uniform(r), 1 / a);
	double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			x = rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = rng_uniform(r);
		if (u < 1 - 0.0331 * x * x * x * x)
			return d * v;
		if (u > 0 && log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

/* Student t with df degrees of freedom, scaled to unit variance (df > 2):
 * Z / sqrt(chi2_df / df) * sqrt((df - 2) / df). */
static inline double rng_student_unit(struct rng *r, double df)
{
	double z = rng_normal(r), chi2 = 2 * rng_gamma(r, df / 2);
	return z / sqrt(chi2 / df) * sqrt((df - 2) / df);
}

/* Poisson(lambda), exact: Knuth's product of uniforms on pieces of at
 * most 30 (a sum of independent Poissons is Poisson), so exp(-piece)
 * never underflows. */
static inline double rng_poisson(struct rng *r, double lambda)
{
	double k = 0;
	while (lambda > 0) {
		double piece = fmin(lambda, 30), lim = exp(-piece), p = 1;
		lambda -= piece;
		for (;;) {
			p *= rng_uniform(r);
			if (p <= lim)
				break;
			k++;
		}
	}
	return k;
}

/* A stationary Ornstein-Uhlenbeck process (correlation time tau, marginal
 * sd `sd`) read at arbitrary steps: the exact transition over dt, so
 * irregular and bursty sampling see the same process. */
struct ou {
	double tau, sd, x;
	bool started;
};

static inline double ou_next(struct ou *o, struct rng *r, double dt)
{
	if (!o->started) {
		o->x = o->sd * rng_normal(r);
		o->started = true;
	} else {
		double phi = exp(-dt / o->tau);
		o->x = phi * o->x + o->sd * sqrt(1 - phi * phi) * rng_normal(r);
	}
	return o->x;
}

#endif
