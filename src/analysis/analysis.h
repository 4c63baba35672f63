/*
 * analysis.h - turns one target's series into findings: the figures a
 * verdict rests on (span, resolution, slope and its interval, trend test,
 * detectable slope, slope of concern, minimum observation, plateau,
 * exhaustion).
 *
 * Analyses do no I/O and know nothing of SQLite, CSV or output formats;
 * they read a series (series.h) and fill a struct target_findings. The
 * verdict itself is decided by verdict.c from these findings.
 */
#ifndef MEMTREND_ANALYSIS_H
#define MEMTREND_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "attribution.h"
#include "counter.h"
#include "idle.h"
#include "periodic.h"
#include "plateau.h"
#include "pooled.h"
#include "reason.h"
#include "restarts.h"
#include "series.h"
#include "slope.h"
#include "steps.h"
#include "stats.h"
#include "units.h"
#include "warmup.h"
#include "sites.h"

#define ANALYSIS_CONCERN_HORIZON_S (30.0 * 86400.0) /* 30 days */
#define ANALYSIS_ALPHA TREND_ALPHA

struct analysis_options {
	double resolution;         /* --resolution; NAN = infer */
	double limit;              /* --limit; NAN = unknown */
	bool has_suspect;          /* --suspect given */
	struct rate suspect;
	const struct analysis_cap *caps;
	size_t n_caps;
	double idle_min_s;         /* --idle-min; NAN = IDLE_DEFAULT_MIN_S */
	double warmup_s;           /* --warmup; NAN = the default rule */
	bool work_is_counter;      /* --work-is-counter: use a work series
				      that is no counter (counter.h) all
				      the same */
};

/* Defaults: everything unknown or inferred. */
void analysis_options_init(struct analysis_options *o);

enum verdict {
	VERDICT_INCONCLUSIVE, VERDICT_STABLE, VERDICT_GROWING, VERDICT_PLATEAU
};
const char *verdict_name(enum verdict v);

struct exhaustion_finding {
	bool found;
	double limit_bytes;
	const char *limit_source;  /* "--limit", "cgroup limit", "MemTotal",
				      "GPU memory less what others hold"
				      (a device's pool) */
	int pool;                  /* index into target_findings.pools of the
				      pool that runs out first; -1 none */
	double eta_s;              /* at the measured slope */
	double eta_low_s, eta_high_s; /* from the slope's interval (high may
					 be INFINITY when ci_low <= 0) */
	/* With a significant per-request slope: requests until the limit,
	 * at the slope and at its interval's ends (NAN when unknown; high
	 * INFINITY when the interval reaches zero). */
	double requests_left, requests_left_low, requests_left_high;
};

/* One incarnation (process lifetime) on its own: the report gives each
 * incarnation and the whole; no slope spans two. */
struct incarnation_summary {
	size_t samples;            /* points with a footprint */
	double start, end;         /* first and last sample */
	double fp_first, fp_last, fp_min, fp_max;
	bool has_slope;
	struct slope slope;        /* per hour */
	/* Issue 27: its slope after its warm-up (target_findings.warmups),
	 * the one pooled.h pools. */
	bool has_settled_slope;
	struct slope settled_slope; /* per hour, after warmup.end_high */
	size_t settled_points;
	double settled_start;      /* Unix s of its first settled point */
};

/* Footprint against the work counter (analysis_work.c). */
struct per_request_finding {
	bool recorded;             /* the series has a work counter */
	bool known;                /* ... with readings in the window */
	bool found;                /* a slope could be computed */
	double requests;           /* work done in the analysed window */
	double rate_per_h;         /* requests per hour over the window */
	double slope_requests;     /* ... of it, in the slope's window (after
				      the warm-up when one was cut); the
				      slope, its resolution floor and the
				      requests needed count these */
	bool after_warmup;         /* the slope's window starts after it */
	struct trend_result trend; /* bytes per request */
	struct slope slope;        /* bytes per request */
	bool significant;
	double detectable;         /* max(resolution / requests, CI half) */
	double concern;            /* per-request slope of concern; NAN */
	bool concern_is_suspect;   /* --suspect SIZE/req */
	double needed_requests;    /* in all, to see the slope of concern */
};

/* Device-local GPU memory inside the footprint (analysis_gpu.c), over
 * the analysed incarnation's points that have a GPU figure. */
struct gpu_finding {
	bool recorded;             /* the series has GPU figures at all */
	size_t samples;            /* analysed points with one */
	double first, last, max;   /* bytes; NAN when none */
	double share_last;         /* last / footprint at that point */
	double growth;             /* last - first */
	double footprint_growth;   /* the footprint's, same two points */
	bool has_trend;
	struct slope slope;        /* the GPU component's, per hour */
	bool significant;          /* p < alpha and CI excludes 0 */
};

/* A pool (issue 28): memory with a limit of its own. The footprint sits in
 * several: host memory (anon + swap + shmem) under the cgroup limit or
 * MemTotal, and each GPU's memory under that device's total less what the
 * other processes hold. A process that fills a GPU runs out when that GPU
 * is full, whatever the host has left (analysis_pools.c). */
enum pool_kind {
	POOL_HOST,                 /* footprint less GPU memory */
	POOL_FOOTPRINT,            /* --limit: the whole footprint */
	POOL_GPU,                  /* one NVML device */
};
#define ANALYSIS_POOLS_MAX (1 + SERIES_GPU_DEVICES)

struct pool_finding {
	enum pool_kind kind;
	char id[8];                /* "host", "limit", "gpu0".."gpu7": JSON's
				      and /metrics' pool label */
	unsigned device;           /* POOL_GPU: the NVML index */
	char name[96];             /* for people: "host memory", "the
				      footprint", "GPU 0 (NVIDIA H200,
				      141 GiB)" */
	double limit_bytes;        /* what the target can reach in it; NAN
				      unknown */
	const char *limit_source;  /* static: "MemTotal", "cgroup limit",
				      "--limit", "GPU memory less what
				      others hold"; NULL unknown */
	double device_total;       /* POOL_GPU: the device's memory; NAN */
	double first, last;        /* the target's bytes in the pool at the
				      analysed incarnation's first and last
				      point that has them */
	bool has_trend;            /* a slope over the slope's window */
	struct slope slope;        /* per hour */
	bool significant;          /* p < alpha and CI excludes 0 */
	bool exhausts;             /* eta below is set */
	double eta_s, eta_low_s, eta_high_s; /* as exhaustion_finding's */
};

struct target_findings {
	const struct series *series;
	size_t samples;            /* points with a footprint */
	size_t n_incarnations;
	size_t analysed_inc;       /* incarnation the slope is taken from */
	size_t analysed_samples;
	double start, end, span_s; /* of the whole target */
	double an_start, an_end, an_span_s; /* of the analysed incarnation */
	double slope_start;        /* Unix s: the slope's window starts after
				      the analysed incarnation's warm-up */
	double slope_span_s;       /* an_end - slope_start */
	double fp_first, fp_last, fp_min, fp_max;
	double resolution;
	bool resolution_given;     /* --resolution rather than inferred */
	enum resolution_basis {
		RESOLUTION_GIVEN,  /* --resolution */
		RESOLUTION_STEPS,  /* the steps between readings */
		RESOLUTION_SOURCE, /* the source's unit (a page), no steps */
		RESOLUTION_SHARED, /* no steps: what the readings share */
		RESOLUTION_UNKNOWN /* no steps, nothing shared */
	} resolution_basis;
	bool decimal_units;        /* the readings count in decimal units
				      ("21 GB"): show sizes that way */

	bool has_trend;            /* enough points for a slope */
	struct trend_result trend; /* slope in bytes per second */
	struct slope slope;        /* the same per hour, the interval
				      widened by the resolution */
	bool significant;          /* p < alpha and CI excludes 0 */
	double detectable_bph;     /* max(resolution/span, CI half-width) */

	double concern_bph;        /* slope of concern */
	char concern_source[96];   /* how it was chosen, human text */
	bool concern_is_suspect;   /* from --suspect */
	double concern_limit;      /* the limit it was derived from, or NAN */

	double min_observation_s;  /* resolution / --suspect, else resolution
				      / |measured slope|; NAN if neither */
	double needed_span_s;      /* window needed to see the slope of
				      concern at this resolution and noise */

	struct periodic_finding periodic; /* owned; when found with enough
					     cycles the trend above is the
					     floors' (trend_on_floors) */
	bool trend_on_floors;
	bool trend_between_steps;  /* the trend is the slope between the
				      steps (analysis.c: steps that give
				      back what they take are no growth) */
	struct plateau_finding plateau;
	struct exhaustion_finding exhaustion;
	struct per_request_finding per_request;
	struct counter_check work; /* is the work series a counter? */
	bool work_set_aside;       /* it is not, and no --work-is-counter:
				      no per-request slope, no idle windows,
				      no requests (per_request.recorded and
				      idle.work_known are false) */
	struct idle_findings idle;  /* owned: analysis_release() */
	struct restart_findings restarts;       /* owned */
	struct step_findings steps;             /* owned; analysed incarnation */
	struct attribution_finding attribution; /* owned; analysed incarnation */
	struct gpu_finding gpu;                 /* analysed incarnation */
	/* Issue 28: the pools the footprint sits in, host first (one
	 * always, once analysis_run has run); exhaustion is the earliest
	 * of theirs, concern_pool the one whose growth the slope of concern
	 * follows (-1: none). */
	struct pool_finding *pools; /* owned: analysis_release() */
	size_t n_pools;            /* at most ANALYSIS_POOLS_MAX */
	int concern_pool;
	struct incarnation_summary *per_inc;    /* owned; n_incarnations */
	struct warmup_finding *warmups; /* owned; n_incarnations: where each
					   incarnation's start-up growth
					   ended (warmup.h; --warmup when
					   given) */
	double *warmup_ends;       /* owned; per incarnation, Unix s: the
				      end of its warm-up for the idle
				      windows (NAN: idle.h's default) */
	struct pooled_finding pooled; /* the incarnations pooled */
	double idle_min_s;         /* shortest idle window looked for */

	enum verdict verdict;
	bool immaterial;           /* growth was seen (a plateau, a rise
				      beyond doubt) but below anything that
				      matters (verdict_materiality()): the
				      verdict is what the rules say without
				      it, and the report ranks the target
				      below every one whose growth could
				      matter */
	struct reason_list reasons; /* owned; as data: render_reason()
				       says them */
	struct settle settle;      /* what would settle an inconclusive one
				      (SETTLE_NONE otherwise) */
	/* record --sites: where it grows (sites.h; owned) */
	struct sites_finding sites;
};

/* Analyse s. Always fills *out (a series with too few points gets an
 * inconclusive verdict with that reason). The findings point into s and
 * own a little memory: analysis_release() frees it. */
void analysis_run(const struct series *s, const struct analysis_options *o,
		  struct target_findings *out);
void analysis_release(struct target_findings *f);
/* The window (or the work) needed in all to settle whether a slope lies
 * below `concern`, after a window of `span` gave an interval of half-width
 * `half` around `slope`: the interval must shrink to the distance from the
 * slope to the nearer side of the decision (below the concern, or clear
 * of zero when the slope is above it), and its half-width shrinks about as
 * span^-1.5 at a steady sampling rate; never less than the division
 * (resolution / concern). */
double analysis_needed(double span, double half, double slope,
		       double concern, double division);
/* How the resolution was found, for people ("--resolution", "inferred
 * from the readings' steps", ...). */
const char *analysis_resolution_basis_text(const struct target_findings *f);

/* Pieces exposed for tests. */
double analysis_concern_bph(const struct series *s,
			    const struct analysis_options *o, double fp_last,
			    double fp_max, bool decimal, char *source,
			    size_t source_len, double *limit_out);
/* analysis_work.c: the per-request slope over points [lo, hi) of s,
 * given work (the counter's cumulative increase, idle_work_increase()),
 * and the idle windows with growth accounting. Fills f->per_request and
 * f->idle; needs f->resolution, f->concern_bph and the analysed window. */
void analysis_work_run(const struct series *s, const double *work,
		       size_t lo, size_t hi, const struct analysis_options *o,
		       struct target_findings *f);
/* The per-request slope over points [lo, hi) whose time is >= from (one
 * point per step of the counter); -1 when too few. *requests: the work
 * done there. */
int analysis_work_trend(const struct series *s, const double *work,
			size_t lo, size_t hi, double from,
			struct trend_result *tr, double *requests);
/* Requests left until the exhaustion limit (needs f->exhaustion and
 * f->per_request). */
void analysis_work_exhaustion(struct target_findings *f);

/* analysis_pools.c (issue 28). pools_find: f->pools over the analysed
 * incarnation's points [lo, hi) of s, their limits and first and last
 * figures, and f->concern_pool: the pool that grew most, when that is a
 * GPU; before the slope of concern, which then follows it
 * (pools_concern_bph). pools_exhaustion: each pool's slope over the
 * slope's window and the time until its limit, the earliest into
 * f->exhaustion; needs f->slope and f->slope_start. No I/O; work: one
 * pass and one trend per pool that has figures. */
void pools_find(const struct series *s, const struct analysis_options *o,
		size_t lo, size_t hi, struct target_findings *f);
/* The slope of concern of f->concern_pool (a GPU): the one that uses the
 * room left on it within 30 days; NAN when there is no such pool. */
double pools_concern_bph(const struct target_findings *f, char *source,
			 size_t source_len, double *limit_out);
void pools_exhaustion(const struct series *s, size_t lo, size_t hi,
		      struct target_findings *f);
/* The pool f's exhaustion is in when it is a GPU's, else NULL (the host's
 * or the footprint's are said as before the pools: "the MemTotal"). */
const struct pool_finding *pools_exhaustion_gpu(
	const struct target_findings *f);

/* analysis_gpu.c: the GPU component over points [lo, hi) of s. */
void analysis_gpu_compute(const struct series *s, size_t lo, size_t hi,
			  struct gpu_finding *out);
/* verdict.c: the decision alone, over the few facts it rests on (the
 * rules of docs/verdicts.md, in order). */
struct verdict_facts {
	bool has_trend;            /* >= 3 points with a time span */
	bool resolution_unknown;   /* readings never changed, no unit */
	bool work_recorded, work_known; /* a counter; readings in the window */
	double requests;           /* work done in the window */
	bool cycles;               /* memory cycles */
	size_t whole_cycles;       /* ... whole cycles watched */
	bool plateau;              /* plateau_find() found one */
	bool significant;          /* the time slope: p < alpha, CI clear */
	struct slope slope;        /* per hour */
	double detectable_bph, concern_bph;
	bool pr_found, pr_significant; /* the per-request slope */
	struct slope pr_slope;     /* per request */
	double pr_detectable, pr_concern;
	double span_s;             /* of the analysed incarnation */
	size_t samples;            /* ... with a footprint */
	/* the incarnations pooled (pooled.h), after their warm-ups */
	bool pooled, pooled_significant;
	struct slope pooled_slope; /* per hour */
	bool plateau_is_warmup;    /* the plateau's rise is the analysed
				      incarnation's warm-up found */
	/* materiality (issue 28) */
	double resolution;         /* bytes: one step of the readings */
	double plateau_rise;       /* bytes the plateau rose before it held */
	double amount;             /* bytes the time slope adds over the
				      window it was taken on */
	double pr_amount;          /* bytes the per-request slope adds over
				      the window's requests */
};
/* "Stable" without the work done known (no counter, or no readings of
 * it in the window) needs a window at least this long
 * and this many samples (rule 7, docs/verdicts.md): whether the service
 * took its usual work is unknown, and a few flat readings of an idle
 * service are the field report's "three flat readings" mistake. Ten
 * minutes is memtrend's own default start-up allowance; 20 samples
 * let the trend test see a wander. */
#define STABLE_MIN_WINDOW_S 600.0
#define STABLE_MIN_SAMPLES 20
/*
 * Materiality (issue 28; docs/verdicts.md, "Materiality", derives both
 * numbers). Growth that is real -- a plateau, a slope beyond doubt -- is
 * still not news when
 *  - its whole amount is at most MATERIAL_STEPS resolution steps (and,
 *    for a slope, its interval's upper end is below the slope of
 *    concern): a flat process read in pages whose readings jitter by one
 *    page shows up to two steps between any two parts of a window
 *    without growing at all; or
 *  - its interval's upper end is far below the slope of concern: at it,
 *    the headroom would last MATERIAL_HORIZON_S or more (the slope of
 *    concern fills it in ANALYSIS_CONCERN_HORIZON_S, so the upper end is
 *    at most 30/365 of that slope).
 * Such growth is no growth for the rules that follow (6, 7, 8): the
 * verdict is stable, or inconclusive when the window cannot say so.
 * Never hides growth above the slope of concern: both ways need the
 * interval's upper end below it.
 */
#define MATERIAL_STEPS 4.0
#define MATERIAL_HORIZON_S (365.0 * 86400.0)
#define MATERIAL_FAR_BELOW (ANALYSIS_CONCERN_HORIZON_S / MATERIAL_HORIZON_S)

/* Which way growth is immaterial, or MATERIAL. */
enum materiality {
	MATERIAL,
	IMMATERIAL_STEPS,          /* a few resolution steps in all */
	IMMATERIAL_FAR_BELOW,      /* the upper end far below the concern */
};
/* Is a slope (per hour or per request, with the amount it adds over the
 * window, against the concern in the same unit) material? NAN concern:
 * material (nothing to judge it by). Pure. */
enum materiality verdict_slope_materiality(const struct slope *sl,
					   double amount, double resolution,
					   double concern);
/* The rule that decides, first that applies (docs/verdicts.md). */
enum verdict_rule {
	RULE_TOO_FEW,              /* 1: too few samples or no span */
	RULE_RESOLUTION_UNKNOWN,   /* 1: readings that cannot show a slope */
	RULE_NO_WORK,              /* 2 */
	RULE_FEW_CYCLES,           /* 3 */
	RULE_PLATEAU,              /* 4 */
	RULE_GROWING,              /* 5 */
	RULE_UNSEEN,               /* 6 */
	RULE_SHORT_WINDOW,         /* 7 */
	RULE_STABLE,               /* 8 */
	/* 6 would apply, but the incarnations pooled decide (issue 27): */
	RULE_POOLED_GROWING,       /* 6a: each incarnation grows */
	RULE_POOLED_STABLE,        /* 6b: none grows by the concern */
};
void verdict_facts_of(const struct target_findings *f,
		      struct verdict_facts *out);
/* Which growth was seen but found immaterial, when that is why the rule
 * that decided is not 4 or 5 (NONE: nothing grew, or growth that matters
 * decided). */
enum materiality_of {
	MATERIALITY_NONE,
	MATERIALITY_PLATEAU,       /* a plateau's rise */
	MATERIALITY_TIME,          /* the slope over time */
	MATERIALITY_PER_REQUEST,   /* the slope per request */
	MATERIALITY_POOLED,        /* the incarnations pooled */
};
enum materiality_of verdict_materiality(const struct verdict_facts *v,
					enum verdict_rule rule);
enum verdict_rule verdict_rule_of(const struct verdict_facts *v);
enum verdict verdict_of_rule(enum verdict_rule r);
/* verdict_of_rule(verdict_rule_of(facts of f)). */
enum verdict verdict_of(const struct target_findings *f);
/* Decide f->verdict and fill f->reasons and f->settle (as data) from the
 * findings already filled in. f->reasons is reused: f must come from
 * analysis_run() or be zeroed. */
void verdict_decide(struct target_findings *f);

#endif
