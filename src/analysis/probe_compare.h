/*
 * probe_compare.h - what `memtrend probe`'s arms show (docs/probe.md): per
 * arm, the footprint after the first round, after all rounds and after
 * the idle period, the growth per round, and a verdict; across arms, the
 * advice: whether the allocator keeps freed memory of varying sizes on
 * this machine, and which setting or allocator keeps least.
 *
 * Pure functions of the readings the arms' parents took at exact moments
 * (after a round's last free, after the idle period); no I/O. The words
 * are the renderer's (render_probe.h).
 */
#ifndef MEMTREND_PROBE_COMPARE_H
#define MEMTREND_PROBE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

/* What an arm changes (the others: varying sizes under glibc). */
enum probe_role {
	PROBE_ROLE_VARYING,        /* varying sizes, glibc's defaults */
	PROBE_ROLE_FIXED,          /* one size */
	PROBE_ROLE_CAPPED,         /* a pool capped at cap */
	PROBE_ROLE_TRIM,           /* malloc_trim(0) after each round */
	PROBE_ROLE_ARENA_MAX,      /* MALLOC_ARENA_MAX=2 */
	PROBE_ROLE_ALLOCATOR,      /* another allocator, LD_PRELOADed */
};

struct probe_arm_readings {
	const char *name;          /* "glibc varying"; not owned; may hold
				      a library's name: escape to print */
	enum probe_role role;
	const char *preload;       /* ALLOCATOR: the library's path */
	bool ran;                  /* false: skipped or failed (no
				      readings) */
	const char *skipped;       /* why it was not run (its library is
				      not installed...), in words; else NULL */
	const char *failed;        /* why it ran but failed (its library
				      not in use, timed out, its process
				      ended early), in words; else NULL */
	double baseline;           /* footprint before round 1, bytes */
	const double *rounds;      /* after each round; n_rounds >= 1 */
	size_t n_rounds;
	double idle;               /* after the idle period */
	double cap;                /* CAPPED: the pool's cap; else NAN */
	double elapsed_s;          /* how long it took, from its start to its
				      end (or failure); NAN when skipped */
	double work;               /* the arm's working set: the bytes its
				      threads hold live at once on average
				      (threads x live buffers x mean size) */
};

enum probe_verdict {
	PROBE_VERDICT_NONE,        /* skipped */
	PROBE_VERDICT_GIVES_BACK,  /* kept at idle <= 25 % of the working
				      set (+ 2 MiB of small blocks) */
	PROBE_VERDICT_AT_CAP,      /* CAPPED: kept within [50 %, 115 %] of
				      the cap (+ 2 MiB of small blocks) */
	PROBE_VERDICT_GROWS,       /* grew over the rounds and kept it */
	PROBE_VERDICT_FLAT,        /* kept about what round 1 left */
	PROBE_VERDICT_FAILED,      /* ran but failed (readings->failed) */
};

/* Thresholds of the verdicts (docs/probe.md says why). */
#define PROBE_GIVE_BACK_SHARE 0.25
#define PROBE_CAP_LOW 0.5
#define PROBE_CAP_HIGH 1.15
#define PROBE_SLACK (2.0 * 1024 * 1024)   /* small blocks, libc's own */
#define PROBE_GROW_SHARE 0.2              /* of what round 1 left */

struct probe_arm_finding {
	double first, all, idle;   /* footprint after round 1, after the
				      last round, after idle; NAN skipped
				      or failed */
	double peak;               /* the most after any round */
	double kept;               /* idle - baseline: what the allocator
				      kept of freed memory (and the small
				      blocks) */
	double slope_per_round;    /* Theil-Sen over rounds 2..n (all
				      rounds when fewer than 3), bytes per
				      round; 0 with one round */
	enum probe_verdict verdict;
};

enum probe_advice_kind {
	PROBE_ADVICE_NONE,         /* no glibc varying arm ran */
	PROBE_ADVICE_NOT_ALLOCATOR,/* varying sizes gave back, or kept no
				      more than one size (<= 1.5x fixed +
				      slack) without growing: the allocator
				      does not explain growth */
	PROBE_ADVICE_ALLOCATOR,    /* glibc kept freed varying-size memory:
				      it grew over the rounds while one size
				      stayed flat, or kept > 1.5x what one
				      size keeps (+ slack) */
};

struct probe_advice {
	enum probe_advice_kind kind;
	size_t varying;            /* index of glibc's varying arm */
	size_t fixed;              /* index of the fixed arm; n when none */
	size_t best;               /* ALLOCATOR: the arm (trim, arena max,
				      another allocator) that kept least;
				      n when none ran */
	size_t best_setting;       /* ALLOCATOR: the same among the arms
				      that need no code change (arena max,
				      another allocator), when it kept
				      < PROBE_SETTING_GAIN x what varying
				      kept; n otherwise */
	double kept_ratio;         /* varying kept / best kept (NAN) */
};

#define PROBE_FIXED_FACTOR 1.5
#define PROBE_SETTING_GAIN 0.8     /* a setting worth naming keeps 20 %
				      less than glibc's defaults */

const char *probe_verdict_name(enum probe_verdict v);
const char *probe_role_name(enum probe_role r);
/* One arm's finding. */
void probe_arm_compare(const struct probe_arm_readings *a,
		       struct probe_arm_finding *out);
/* Every arm (out: n findings) and the advice. */
void probe_compare(const struct probe_arm_readings *arms, size_t n,
		   struct probe_arm_finding *out, struct probe_advice *advice);

#endif
