/*
 * reason.c - the stable names of the reasons behind a verdict and of the
 * advice that would settle one (reason.h): the "code" a script keys on in
 * `report --json` ("plateau_below_concern"), one per enum value.
 *
 * Data, not words: a name is never translated, reworded or reused, so it
 * lives beside the enum in analysis/, while the sentences are the render
 * layer's (render_reason.c). What each name means is docs/json.md's table
 * ("Reason codes"); test_findings checks that every value has a name,
 * that the names are unique, and that each is documented there.
 *
 * Does not: build any text, or decide which reasons a verdict has
 * (verdict.c).
 */
#include <stddef.h>

#include "reason.h"

/* Designated initializers: a value added to the enum without a line
 * here is NULL, which test_findings reports by its number. */
static const char *const reason_names[REASON_CODE_COUNT] = {
	[REASON_TOO_FEW] = "too_few_samples",
	[REASON_RESOLUTION_UNKNOWN] = "resolution_unknown",
	[REASON_RESOLUTION_SHARED] = "resolution_inferred",
	[REASON_NO_WORK] = "no_work",
	[REASON_CYCLES_TOO_FEW] = "cycles_too_few",
	[REASON_CYCLES] = "trend_on_cycle_floors",
	[REASON_PLATEAU_GREW] = "plateau_rise_then_hold",
	[REASON_PLATEAU_LATE] = "plateau_below_concern",
	[REASON_PLATEAU_AT_CAP] = "plateau_at_cap",
	[REASON_PLATEAU_NO_CAP] = "plateau_no_cap",
	[REASON_RISES] = "slope_rises",
	[REASON_GROWS_PER_REQUEST] = "grows_per_request",
	[REASON_APPROACH] = "growth_slowing",
	[REASON_NO_PLATEAU] = "no_plateau",
	[REASON_SLOWER_THAN_CONCERN] = "slower_than_concern",
	[REASON_EXHAUSTION] = "exhaustion",
	[REASON_REQUESTS_LEFT] = "requests_left",
	[REASON_UNSEEN] = "window_cannot_see",
	[REASON_CONCERN] = "slope_of_concern",
	[REASON_DIVISION] = "division",
	[REASON_UNSEEN_PER_REQUEST] = "per_request_cannot_see",
	[REASON_DECLINES] = "slope_declines",
	[REASON_DETECTABLE] = "window_could_see",
	[REASON_WINDOW_SHORT] = "window_too_short",
	[REASON_TREND] = "trend",
	[REASON_INCARNATIONS] = "incarnations",
	[REASON_LEVEL_REJECTED] = "level_not_plateau",
	[REASON_PER_REQUEST_NO_READINGS] = "per_request_no_readings",
	[REASON_PER_REQUEST] = "per_request",
	[REASON_IDLE_NONE] = "idle_none",
	[REASON_IDLE_RELEASED] = "idle_released",
	[REASON_IDLE_KEPT] = "idle_kept",
	[REASON_IDLE_ROSE] = "idle_rose",
	[REASON_GROWTH_SPLIT] = "growth_split",
	[REASON_RESTARTS_TOTAL] = "restarts_total",
	[REASON_RESTART] = "restart",
	[REASON_STEPS] = "steps",
	[REASON_ATTRIBUTION] = "attribution",
	[REASON_GPU] = "gpu",
	[REASON_WORK_NOT_COUNTER] = "work_not_counter",
	[REASON_WARMUP] = "warmup",
	[REASON_POOLED] = "pooled",
	[REASON_IMMATERIAL] = "immaterial",
};

static const char *const settle_names[SETTLE_CODE_COUNT] = {
	[SETTLE_NONE] = NULL,
	[SETTLE_NO_CONCERN] = "give_concern",
	[SETTLE_WINDOW] = "watch_longer",
	[SETTLE_RESOLUTION] = "give_resolution",
	[SETTLE_CYCLES] = "watch_cycles",
	[SETTLE_WORK] = "take_requests",
	[SETTLE_WORK_UNSIZED] = "take_requests_unsized",
	[SETTLE_SHORT_WINDOW] = "watch_usual_work",
	[SETTLE_RESTARTS] = "more_restarts",
	[SETTLE_STEP] = "finer_step",
};

const char *reason_code_name(enum reason_code c)
{
	return (unsigned)c < REASON_CODE_COUNT ? reason_names[c] : NULL;
}

const char *settle_code_name(enum settle_code c)
{
	return (unsigned)c < SETTLE_CODE_COUNT ? settle_names[c] : NULL;
}
