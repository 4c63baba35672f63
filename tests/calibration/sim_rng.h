/*
 * sim_rng.h - the seeded random numbers of the simulations in
 * tests/calibration (calibrate.c, gate_advice.c): xoshiro256** seeded by
 * splitmix64 from (family, seed), uniform and normal draws, stationary AR(1) paths. Deterministic
 * on any machine with IEEE doubles; header-only (static functions), no I/O.
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

#endif
