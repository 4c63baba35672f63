/*
 * reason.h - the reasons behind a verdict and the advice that would settle
 * an inconclusive one, as data: a code and the figures it cites (sizes in
 * bytes, rates in bytes per hour or per request, durations in seconds,
 * Unix times, counts).
 *
 * verdict.c fills them in; no text is built here or there. The one place
 * that turns a reason into English is the render layer (render_reason.c,
 * render.h), and the one place that builds a target's rows of {code,
 * figures, sentence} for every format is render/findings_view.c, so that
 * text, JSON and HTML say the same thing. Each reason and each piece of
 * advice also has a stable name (reason_code_name(), settle_code_name():
 * reason.c), the "code" of `report --json` that a script keys on; every
 * name is listed in docs/json.md, and test_findings fails when a value
 * is added here without a name or without its line there. A reason
 * owns no memory: its strings point to static text or to what the
 * findings already hold (cap names from the options), and the few lists a
 * reason cites (the gauges of an attribution) are read from the findings
 * it belongs to.
 */
#ifndef MEMTREND_REASON_H
#define MEMTREND_REASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plateau.h"
#include "slope.h"

enum reason_code {
	/* rule 1: too few points, or readings that say nothing */
	REASON_TOO_FEW,            /* too_few */
	REASON_RESOLUTION_UNKNOWN, /* samples */
	REASON_RESOLUTION_SHARED,  /* size (the resolution) */
	/* rule 2: no work */
	REASON_NO_WORK,            /* duration (the analysed span) */
	/* rule 3: cycles */
	REASON_CYCLES_TOO_FEW,     /* cycles */
	REASON_CYCLES,             /* cycles: the floors the trend is on */
	/* rule 4: plateau */
	REASON_PLATEAU_GREW,       /* plateau */
	REASON_PLATEAU_LATE,       /* late */
	REASON_PLATEAU_AT_CAP,     /* cap */
	REASON_PLATEAU_NO_CAP,     /* nothing */
	/* rule 5: growing */
	REASON_RISES,              /* trend */
	REASON_GROWS_PER_REQUEST,  /* slope (per request) */
	REASON_APPROACH,           /* approach */
	REASON_NO_PLATEAU,         /* nothing */
	REASON_SLOWER_THAN_CONCERN, /* rate (the slope of concern; its
				       source is the findings') */
	REASON_EXHAUSTION,         /* exhaustion */
	REASON_REQUESTS_LEFT,      /* requests_left */
	/* rule 6: the window could not see the slope of concern */
	REASON_UNSEEN,             /* unseen */
	REASON_CONCERN,            /* rate (the slope of concern) */
	REASON_DIVISION,           /* division */
	REASON_UNSEEN_PER_REQUEST, /* unseen_per_request */
	/* rule 7: stable */
	REASON_DECLINES,           /* trend (estimate and p) */
	REASON_DETECTABLE,         /* detectable */
	REASON_WINDOW_SHORT,       /* detectable: no growth in a window too
				      short to call stable (rule 7) */
	/* evidence added whatever the verdict */
	REASON_TREND,              /* trend, with the wander */
	REASON_INCARNATIONS,       /* incarnations */
	REASON_LEVEL_REJECTED,     /* rejected */
	REASON_PER_REQUEST_NO_READINGS, /* nothing */
	REASON_PER_REQUEST,        /* per_request */
	REASON_IDLE_NONE,          /* idle_none */
	REASON_IDLE_RELEASED,      /* idle */
	REASON_IDLE_KEPT,          /* idle */
	REASON_IDLE_ROSE,          /* idle_rose */
	REASON_GROWTH_SPLIT,       /* growth */
	REASON_RESTARTS_TOTAL,     /* restarts */
	REASON_RESTART,            /* restart */
	REASON_STEPS,              /* steps */
	REASON_ATTRIBUTION,        /* attribution (gauges: the findings') */
	REASON_GPU,                /* gpu */
	REASON_WORK_NOT_COUNTER,   /* work */
	/* issue 27: warm-ups found, incarnations pooled */
	REASON_WARMUP,             /* warmup */
	REASON_POOLED,             /* pooled: the incarnations together */
	/* issue 28: growth seen, below anything that matters */
	REASON_IMMATERIAL,         /* immaterial */
	REASON_CODE_COUNT          /* keep last: not a reason, the count */
};

/* The steps a reason lists by name; the rest are counted. */
#define REASON_STEPS_SHOWN 4

struct reason {
	enum reason_code code;
	union {
		size_t samples;
		double size;           /* bytes */
		double duration;       /* seconds */
		double rate;           /* bytes per hour */
		struct slope slope;    /* per request */
		struct { size_t samples; double span_s; } too_few;
		struct {
			double period_s, swing;
			double watched;    /* cycles watched (fraction) */
			size_t whole;      /* whole cycles (REASON_CYCLES) */
			int needed;        /* REASON_CYCLES_TOO_FEW */
		} cycles;
		struct { double early_bph, level, since; } plateau;
		struct {
			struct slope late;  /* per hour */
			double concern_bph;
			int held_by;        /* enum plateau_held */
			size_t flat_readings; /* HELD_FLAT */
			double flat_span_s;
			struct slope per_req; /* HELD_REQUESTS */
			double requests, concern_per_req;
		} late;
		struct {
			double level, cap_bytes;
			const char *name; /* the cap's (options) */
		} cap;
		struct {
			bool on_floors;    /* the cycles' floors */
			bool between_steps; /* the steps taken out */
			struct slope slope; /* per hour */
			double corr_time_s; /* how long readings wander
					       together; NAN, 0: not */
			double inflation;  /* of the interval's variance */
		} trend;
		struct { double early_bph, late_bph, level; } approach;
		struct {
			const char *limit_source; /* static text */
			double limit, eta_s;
			int pool;          /* index into the findings'
					      pools; -1 none */
		} exhaustion;
		struct { double per_request, requests; } requests_left;
		struct { double resolution, span_s, detectable_bph; } unseen;
		struct { double resolution, concern_bph, min_s; } division;
		struct { double seen, concern; } unseen_per_request;
		struct {
			double detectable_bph, concern_bph;
			double span_s;     /* the window it covers */
			size_t samples;
			double requests;   /* NAN: work not recorded */
		} detectable;              /* also REASON_WINDOW_SHORT */
		struct {
			size_t count, analysed; /* analysed: 1-based */
			size_t samples;
		} incarnations;
		struct {
			double level, since;
			enum plateau_reject why;
		} rejected;
		struct {
			struct slope slope; /* per request */
			double requests, detectable; /* in the slope's
							window */
			bool after_warmup;
		} per_request;
		struct { double min_s; bool connections; } idle_none;
		struct {
			size_t windows;
			double longest_s, decline;
		} idle;
		struct { double most; size_t windows; } idle_rose;
		struct { double net, active, idle, warmup; } growth;
		struct { size_t count; double recovered; } restarts;
		struct {
			double time, recovered, before, after;
			uint32_t old_inc, new_inc; /* incarnation indices:
						      the renderer names them */
			const char *floor_rule; /* static text */
		} restart;
		struct {
			size_t count;      /* in all */
			size_t shown;      /* <= REASON_STEPS_SHOWN */
			double change[REASON_STEPS_SHOWN];
			double time[REASON_STEPS_SHOWN];
		} steps;
		struct {
			double explained, growth, unattributed;
		} attribution;
		struct {
			bool changed;      /* by the resolution or more */
			double last, share, growth, footprint_growth;
		} gpu;
		struct {
			size_t decreases, readings;
			double share;      /* decreases / readings */
			bool used;         /* --work-is-counter */
		} work;
		struct {
			bool given;        /* --warmup rather than found */
			size_t inc;        /* 1-based: the analysed one */
			double duration_s, low_s, high_s; /* from its start */
			double level;      /* bytes at its end; NAN: given */
			size_t found, of;  /* incarnations with one found */
		} warmup;
		struct {
			struct slope slope; /* per hour, pooled */
			size_t incarnations;
			double spread_bph;  /* between incarnations (tau) */
			double life_s;      /* median life */
			double given_back_bph; /* restarts' evidence; NAN */
		} pooled;
		struct reason_immaterial {
			int what;           /* enum materiality_of */
			int how;            /* enum materiality */
			double amount;      /* bytes it grew; NAN: pooled */
			double resolution;
			struct slope slope; /* per hour, or per request;
					       a plateau's late part */
			double concern;     /* in the slope's unit */
			double span_s;      /* the slope's window */
		} immaterial;
	} u;
};

/* What would settle an inconclusive verdict. */
enum settle_code {
	SETTLE_NONE,
	SETTLE_NO_CONCERN,   /* record longer; give --limit or --suspect */
	SETTLE_WINDOW,       /* watch need_s in all at resolution, concern */
	SETTLE_RESOLUTION,   /* give --resolution */
	SETTLE_CYCLES,       /* watch cycles (need_s in all, more_s more) */
	SETTLE_WORK,         /* take requests: requests at resolution */
	SETTLE_WORK_UNSIZED, /* take requests (--suspect SIZE/req) */
	SETTLE_SHORT_WINDOW, /* watch need_s in all with the usual work */
	SETTLE_RESTARTS,     /* incarnations live life_s, shorter than
				need_s: about restarts more would decide */
	SETTLE_STEP,         /* report --prometheus: the step (step_s)
				starved it; --step data_step_s (the data's
				own interval; NAN: unknown, a finer one) */
	SETTLE_CODE_COUNT    /* keep last: not advice, the count */
};

struct settle {
	enum settle_code code;
	double need_s, more_s;     /* WINDOW, CYCLES, SHORT_WINDOW */
	double resolution;         /* WINDOW, WORK */
	double concern_bph;        /* WINDOW */
	int cycles;                /* CYCLES */
	double requests;           /* WORK: requests needed in all */
	double requests_more;      /* NO_CONCERN, WINDOW: or this many
				      requests more; NAN when not known */
	double concern_per_request; /* WORK, and with requests_more */
	double life_s;             /* RESTARTS: median incarnation life */
	double restarts;           /* RESTARTS: more incarnations needed;
				      NAN when none could be pooled */
	double step_s;             /* STEP: the step of the readings */
	double data_step_s;        /* STEP: the data's interval; NAN */
};

/* A growable list of reasons (no cap: every reason is kept). */
struct reason_list {
	struct reason *r;
	size_t n, cap;
};

/* Append a reason with that code, its figures zero; returns it to fill
 * in (valid until the next append). */
struct reason *reason_list_add(struct reason_list *l, enum reason_code c);
void reason_list_release(struct reason_list *l);

/* The stable name of a reason or of a piece of advice: lower case,
 * digits and '_' ("plateau_below_concern"), unique within its enum,
 * static text. Never renamed once released (docs/json.md lists them); a
 * new value gets a new name. NULL for a value out of range and for
 * SETTLE_NONE (nothing to settle). */
const char *reason_code_name(enum reason_code c);
const char *settle_code_name(enum settle_code c);

#endif
