/*
 * findings_view.c - a target's reasons and advice as rows of {code,
 * figures, sentence} (findings_view.h), built once for the text report,
 * the HTML page and `report --json`.
 *
 * The code comes from reason.c, the sentence from render_reason.c; what
 * this file adds is which figures each reason cites and the names they
 * carry in JSON (docs/json.md, "Reason codes", the same table), and the
 * target's figures as lines (window, slope, plateau, requests, ...) in
 * the one wording the text report and the HTML page share. Names
 * follow the target's own fields: bytes end in _bytes, rates per hour in
 * _bytes_per_hour, per request in _bytes_per_request, durations in _s;
 * times are times. Formats the sentences and lines with render_reason.c's
 * formatters ("n/a" when unknown) in the target's units; escapes nothing
 * (each format does, for its medium); decides nothing.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "findings_view.h"
#include "render.h"
#include "units.h"

static void fig(struct finding_row *row, const char *name,
		enum figure_kind kind, double value)
{
	assert(row->n_figures < FINDING_FIGURES_MAX);
	row->figures[row->n_figures++] = (struct finding_figure){
		.name = name, .kind = kind, .value = value};
}

static void fig_text(struct finding_row *row, const char *name,
		     const char *text)
{
	assert(row->n_figures < FINDING_FIGURES_MAX);
	row->figures[row->n_figures++] = (struct finding_figure){
		.name = name, .kind = FIGURE_TEXT, .value = NAN,
		.text = text};
}

static void fig_num(struct finding_row *row, const char *name, double v)
{
	fig(row, name, FIGURE_NUMBER, v);
}

static void fig_count(struct finding_row *row, const char *name, double v)
{
	fig(row, name, FIGURE_COUNT, v);
}

static void fig_bytes(struct finding_row *row, const char *name, double v)
{
	fig(row, name, FIGURE_BYTES, v);
}

static void fig_bool(struct finding_row *row, const char *name, bool v)
{
	fig(row, name, FIGURE_BOOL, v ? 1 : 0);
}

/* A slope and its interval: "bytes_per_hour" (or per request), then
 * ci95_low, ci95_high and, when with_p, p_value: the target's `slope`
 * keys. */
static void fig_slope(struct finding_row *row, const char *unit,
		      const struct slope *s, bool with_p)
{
	fig_num(row, unit, s->estimate);
	fig_num(row, "ci95_low", s->low);
	fig_num(row, "ci95_high", s->high);
	if (with_p)
		fig_num(row, "p_value", s->p);
}

static const char *held_name(int held_by)
{
	static const char *const names[] = {
		[PLATEAU_HELD_TIME] = "time",
		[PLATEAU_HELD_FLAT] = "flat_readings",
		[PLATEAU_HELD_REQUESTS] = "requests",
	};
	return held_by >= 0 && (size_t)held_by < ARRAY_SIZE(names) ?
	       names[held_by] : NULL;
}

static const char *materiality_of_name(int what)
{
	switch (what) {
	case MATERIALITY_PLATEAU: return "plateau";
	case MATERIALITY_TIME: return "time";
	case MATERIALITY_PER_REQUEST: return "per_request";
	case MATERIALITY_POOLED: return "pooled";
	default: return NULL;
	}
}

static void reason_figures(struct finding_row *row,
			   const struct target_findings *f,
			   const struct reason *r)
{
	const struct reason *x = r;   /* short: the figures are x->u.* */
	switch (r->code) {
	case REASON_TOO_FEW:
		fig_count(row, "samples", (double)x->u.too_few.samples);
		fig_num(row, "span_s", x->u.too_few.span_s);
		break;
	case REASON_RESOLUTION_UNKNOWN:
		fig_count(row, "samples", (double)x->u.samples);
		break;
	case REASON_RESOLUTION_SHARED:
		fig_bytes(row, "resolution_bytes", x->u.size);
		break;
	case REASON_NO_WORK:
		fig_num(row, "span_s", x->u.duration);
		break;
	case REASON_CYCLES_TOO_FEW:
	case REASON_CYCLES:
		fig_num(row, "period_s", x->u.cycles.period_s);
		fig_bytes(row, "swing_bytes", x->u.cycles.swing);
		fig_num(row, "cycles", x->u.cycles.watched);
		if (r->code == REASON_CYCLES)
			fig_count(row, "whole_cycles",
				(double)x->u.cycles.whole);
		else
			fig_count(row, "cycles_needed", x->u.cycles.needed);
		break;
	case REASON_PLATEAU_GREW:
		fig_num(row, "early_bytes_per_hour", x->u.plateau.early_bph);
		fig_bytes(row, "level_bytes", x->u.plateau.level);
		fig(row, "since", FIGURE_TIME, x->u.plateau.since);
		break;
	case REASON_PLATEAU_LATE:
		fig_text(row, "held_by", held_name(x->u.late.held_by));
		if (x->u.late.held_by == PLATEAU_HELD_REQUESTS) {
			fig_slope(row, "bytes_per_request",
				  &x->u.late.per_req, false);
			fig_num(row, "requests", x->u.late.requests);
			fig_num(row, "concern_bytes_per_request",
				x->u.late.concern_per_req);
		} else {
			fig_slope(row, "bytes_per_hour", &x->u.late.late,
				  false);
			if (x->u.late.held_by == PLATEAU_HELD_FLAT) {
				fig_count(row, "flat_readings",
					(double)x->u.late.flat_readings);
				fig_num(row, "flat_span_s",
					x->u.late.flat_span_s);
			}
		}
		fig_num(row, "concern_bytes_per_hour", x->u.late.concern_bph);
		break;
	case REASON_PLATEAU_AT_CAP:
		fig_bytes(row, "level_bytes", x->u.cap.level);
		fig_bytes(row, "cap_bytes", x->u.cap.cap_bytes);
		fig_text(row, "cap_name", x->u.cap.name);
		break;
	case REASON_PLATEAU_NO_CAP:
	case REASON_NO_PLATEAU:
	case REASON_PER_REQUEST_NO_READINGS:
		break;
	case REASON_RISES:
	case REASON_DECLINES:
	case REASON_TREND:
		fig_slope(row, "bytes_per_hour", &x->u.trend.slope, true);
		if (r->code == REASON_DECLINES)
			break;     /* verdict.c gives it the slope alone */
		fig_bool(row, "on_cycle_floors", x->u.trend.on_floors);
		fig_bool(row, "between_steps", x->u.trend.between_steps);
		if (r->code == REASON_TREND) {
			fig_num(row, "correlation_time_s",
				x->u.trend.corr_time_s);
			fig_num(row, "variance_inflation",
				x->u.trend.inflation);
		}
		break;
	case REASON_GROWS_PER_REQUEST:
		fig_slope(row, "bytes_per_request", &x->u.slope, true);
		break;
	case REASON_APPROACH:
		fig_num(row, "early_bytes_per_hour", x->u.approach.early_bph);
		fig_num(row, "late_bytes_per_hour", x->u.approach.late_bph);
		fig_bytes(row, "level_bytes", x->u.approach.level);
		break;
	case REASON_SLOWER_THAN_CONCERN:
	case REASON_CONCERN:
		fig_num(row, "concern_bytes_per_hour", x->u.rate);
		fig_text(row, "concern_source", f->concern_source);
		break;
	case REASON_EXHAUSTION: {
		int k = x->u.exhaustion.pool;
		bool pool = k >= 0 && (size_t)k < f->n_pools;
		fig_bytes(row, "limit_bytes", x->u.exhaustion.limit);
		fig_text(row, "limit_source", x->u.exhaustion.limit_source);
		fig_num(row, "eta_s", x->u.exhaustion.eta_s);
		fig_text(row, "pool", pool ? f->pools[k].id : NULL);
		break;
	}
	case REASON_REQUESTS_LEFT:
		fig_num(row, "bytes_per_request",
			x->u.requests_left.per_request);
		fig_num(row, "requests_left", x->u.requests_left.requests);
		break;
	case REASON_UNSEEN:
		fig_bytes(row, "resolution_bytes", x->u.unseen.resolution);
		fig_num(row, "span_s", x->u.unseen.span_s);
		fig_num(row, "detectable_bytes_per_hour",
			x->u.unseen.detectable_bph);
		break;
	case REASON_DIVISION:
		fig_bytes(row, "resolution_bytes", x->u.division.resolution);
		fig_num(row, "concern_bytes_per_hour",
			x->u.division.concern_bph);
		fig_num(row, "min_observation_s", x->u.division.min_s);
		break;
	case REASON_UNSEEN_PER_REQUEST:
		fig_num(row, "detectable_bytes_per_request",
			x->u.unseen_per_request.seen);
		fig_num(row, "concern_bytes_per_request",
			x->u.unseen_per_request.concern);
		break;
	case REASON_DETECTABLE:
	case REASON_WINDOW_SHORT:
		fig_num(row, "detectable_bytes_per_hour",
			x->u.detectable.detectable_bph);
		fig_num(row, "span_s", x->u.detectable.span_s);
		fig_count(row, "samples", (double)x->u.detectable.samples);
		if (r->code == REASON_DETECTABLE) {
			fig_num(row, "requests", x->u.detectable.requests);
			fig_num(row, "concern_bytes_per_hour",
				x->u.detectable.concern_bph);
			fig_text(row, "concern_source", f->concern_source);
		}
		break;
	case REASON_INCARNATIONS:
		fig_count(row, "incarnations",
			(double)x->u.incarnations.count);
		/* 0-based, as the target's `incarnations` are indexed */
		fig_count(row, "analysed_incarnation",
			(double)x->u.incarnations.analysed - 1);
		fig_count(row, "samples", (double)x->u.incarnations.samples);
		break;
	case REASON_LEVEL_REJECTED:
		fig_bytes(row, "level_bytes", x->u.rejected.level);
		fig(row, "since", FIGURE_TIME, x->u.rejected.since);
		fig_text(row, "why", plateau_reject_text(x->u.rejected.why));
		break;
	case REASON_PER_REQUEST:
		fig_slope(row, "bytes_per_request", &x->u.per_request.slope,
			  true);
		fig_num(row, "requests", x->u.per_request.requests);
		fig_num(row, "detectable_bytes_per_request",
			x->u.per_request.detectable);
		fig_bool(row, "after_warmup", x->u.per_request.after_warmup);
		break;
	case REASON_IDLE_NONE:
		fig_num(row, "min_s", x->u.idle_none.min_s);
		fig_bool(row, "connections", x->u.idle_none.connections);
		break;
	case REASON_IDLE_RELEASED:
	case REASON_IDLE_KEPT:
		fig_count(row, "windows", (double)x->u.idle.windows);
		fig_num(row, "longest_s", x->u.idle.longest_s);
		fig_bytes(row, "largest_decline_bytes", x->u.idle.decline);
		break;
	case REASON_IDLE_ROSE:
		fig_bytes(row, "largest_rise_bytes", x->u.idle_rose.most);
		fig_count(row, "windows", (double)x->u.idle_rose.windows);
		break;
	case REASON_GROWTH_SPLIT:
		fig_bytes(row, "net_bytes", x->u.growth.net);
		fig_bytes(row, "active_bytes", x->u.growth.active);
		fig_bytes(row, "idle_bytes", x->u.growth.idle);
		fig_bytes(row, "warmup_bytes", x->u.growth.warmup);
		break;
	case REASON_RESTARTS_TOTAL:
		fig_count(row, "restarts", (double)x->u.restarts.count);
		fig_bytes(row, "recovered_bytes", x->u.restarts.recovered);
		break;
	case REASON_RESTART:
		fig(row, "time", FIGURE_TIME, x->u.restart.time);
		fig_count(row, "old_incarnation", x->u.restart.old_inc);
		fig_count(row, "new_incarnation", x->u.restart.new_inc);
		fig_bytes(row, "before_bytes", x->u.restart.before);
		fig_bytes(row, "after_bytes", x->u.restart.after);
		fig_bytes(row, "recovered_bytes", x->u.restart.recovered);
		fig_text(row, "floor_rule", x->u.restart.floor_rule);
		break;
	case REASON_STEPS:
		/* the steps themselves are the target's `steps` */
		fig_count(row, "steps", (double)x->u.steps.count);
		break;
	case REASON_ATTRIBUTION:
		fig_bytes(row, "explained_bytes", x->u.attribution.explained);
		fig_bytes(row, "growth_bytes", x->u.attribution.growth);
		fig_bytes(row, "unattributed_bytes",
			  x->u.attribution.unattributed);
		break;
	case REASON_GPU:
		fig_bytes(row, "device_local_last_bytes", x->u.gpu.last);
		fig_num(row, "share_of_footprint", x->u.gpu.share);
		fig_bool(row, "changed", x->u.gpu.changed);
		fig_bytes(row, "growth_bytes", x->u.gpu.growth);
		fig_bytes(row, "footprint_growth_bytes",
			  x->u.gpu.footprint_growth);
		break;
	case REASON_WORK_NOT_COUNTER:
		fig_count(row, "decreases", (double)x->u.work.decreases);
		fig_count(row, "readings", (double)x->u.work.readings);
		fig_num(row, "decreasing_share", x->u.work.share);
		fig_bool(row, "used", x->u.work.used);
		break;
	case REASON_WARMUP:
		fig_text(row, "source", x->u.warmup.given ? "given" : "found");
		fig_count(row, "incarnation", (double)x->u.warmup.inc - 1);
		fig_num(row, "duration_s", x->u.warmup.duration_s);
		fig_num(row, "duration_low_s", x->u.warmup.given ? NAN :
			x->u.warmup.low_s);
		fig_num(row, "duration_high_s", x->u.warmup.given ? NAN :
			x->u.warmup.high_s);
		fig_bytes(row, "level_bytes", x->u.warmup.level);
		fig_count(row, "found_in", (double)x->u.warmup.found);
		fig_count(row, "incarnations", (double)x->u.warmup.of);
		break;
	case REASON_POOLED:
		fig_slope(row, "bytes_per_hour", &x->u.pooled.slope, true);
		fig_count(row, "incarnations", (double)x->u.pooled.incarnations);
		fig_num(row, "between_sd_bytes_per_hour",
			x->u.pooled.spread_bph);
		fig_num(row, "life_s", x->u.pooled.life_s);
		fig_num(row, "given_back_bytes_per_hour",
			x->u.pooled.given_back_bph);
		break;
	case REASON_IMMATERIAL: {
		const struct reason_immaterial *m = &x->u.immaterial;
		bool per_req = m->what == MATERIALITY_PER_REQUEST;
		fig_text(row, "of", materiality_of_name(m->what));
		fig_text(row, "how", m->what == MATERIALITY_PLATEAU ||
			 m->how == IMMATERIAL_STEPS ? "steps" : "far_below");
		fig_bytes(row, "amount_bytes", m->amount);
		fig_bytes(row, "resolution_bytes", m->resolution);
		if (m->what != MATERIALITY_PLATEAU) {
			fig_slope(row, per_req ? "bytes_per_request" :
				  "bytes_per_hour", &m->slope, false);
			fig_num(row, per_req ? "concern_bytes_per_request" :
				"concern_bytes_per_hour", m->concern);
		}
		break;
	}
	case REASON_CODE_COUNT:
		assert(!"REASON_CODE_COUNT is no reason");
		break;
	}
}

static void settle_figures(struct finding_row *row,
			   const struct target_findings *f)
{
	const struct settle *st = &f->settle;
	switch (st->code) {
	case SETTLE_NONE:
	case SETTLE_CODE_COUNT:
	case SETTLE_NO_CONCERN:
	case SETTLE_RESOLUTION:
	case SETTLE_WORK_UNSIZED:
		break;
	case SETTLE_WINDOW:
		fig_num(row, "needed_s", st->need_s);
		fig_num(row, "more_s", st->more_s);
		fig_bytes(row, "resolution_bytes", st->resolution);
		fig_num(row, "concern_bytes_per_hour", st->concern_bph);
		break;
	case SETTLE_CYCLES:
		fig_count(row, "cycles", st->cycles);
		fig_num(row, "needed_s", st->need_s);
		fig_num(row, "more_s", st->more_s);
		break;
	case SETTLE_WORK:
		fig_num(row, "requests", st->requests);
		fig_bytes(row, "resolution_bytes", st->resolution);
		fig_num(row, "concern_bytes_per_request",
			st->concern_per_request);
		break;
	case SETTLE_SHORT_WINDOW:
		fig_num(row, "needed_s", st->need_s);
		fig_num(row, "more_s", st->more_s);
		break;
	case SETTLE_RESTARTS:
		fig_num(row, "life_s", st->life_s);
		fig_num(row, "needed_s", st->need_s);
		fig_num(row, "concern_bytes_per_hour", st->concern_bph);
		fig_num(row, "more_restarts", st->restarts);
		break;
	case SETTLE_STEP:
		fig_num(row, "step_s", st->step_s);
		fig_num(row, "data_step_s", st->data_step_s);
		fig_count(row, "samples", (double)f->analysed_samples);
		fig_num(row, "span_s", f->an_span_s);
		break;
	}
	/* "; or >= N requests more" (render_settle()) */
	if ((st->code == SETTLE_NO_CONCERN || st->code == SETTLE_WINDOW ||
	     st->code == SETTLE_RESTARTS) && st->requests_more > 0) {
		fig_num(row, "requests_more", st->requests_more);
		fig_num(row, "concern_bytes_per_request",
			st->concern_per_request);
	}
}

void findings_row_of_reason(struct finding_row *row,
			    const struct target_findings *f,
			    const struct reason *r)
{
	*row = (struct finding_row){.code = reason_code_name(r->code)};
	assert(row->code);
	reason_figures(row, f, r);
	row->text = render_reason_string(f, r);
}

void findings_row_of_settle(struct finding_row *row,
			    const struct target_findings *f)
{
	*row = (struct finding_row){.code = settle_code_name(f->settle.code)};
	if (!row->code)
		return;
	settle_figures(row, f);
	row->text = render_settle_string(f);
	assert(row->text);
}

void findings_row_release(struct finding_row *row)
{
	free(row->text);
	row->text = NULL;
}

/* ---- the figures as lines ------------------------------------------------ */

const char *const findings_line_label[FLINE_COUNT] = {
	[FLINE_WINDOW] = "window", [FLINE_FOOTPRINT] = "footprint",
	[FLINE_RESOLUTION] = "resolution", [FLINE_SLOPE] = "slope",
	[FLINE_TREND_TEST] = "trend test", [FLINE_CYCLES] = "cycles",
	[FLINE_DETECTABLE] = "detectable", [FLINE_CONCERN] = "concern",
	[FLINE_MIN_WATCH] = "min. watch", [FLINE_PLATEAU] = "plateau",
	[FLINE_APPROACH] = "approach", [FLINE_WORK] = "work",
	[FLINE_REQUESTS] = "requests", [FLINE_IDLE] = "idle",
};

const char *const findings_line_title[FLINE_COUNT] = {
	[FLINE_WINDOW] = "window", [FLINE_FOOTPRINT] = "footprint",
	[FLINE_RESOLUTION] = "resolution", [FLINE_SLOPE] = "slope",
	[FLINE_TREND_TEST] = "trend test", [FLINE_CYCLES] = "cycles",
	[FLINE_DETECTABLE] = "detectable",
	[FLINE_CONCERN] = "slope of concern",
	[FLINE_MIN_WATCH] = "minimum observation",
	[FLINE_PLATEAU] = "plateau", [FLINE_APPROACH] = "approach",
	[FLINE_WORK] = "work series", [FLINE_REQUESTS] = "requests",
	[FLINE_IDLE] = "idle windows",
};

/* A line of any length (no memory is fatal). */
__attribute__((format(printf, 1, 2)))
static char *line_of(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		error("out of memory formatting a finding");
		abort();
	}
	return s;
}

/* The figures' formats, "n/a" when unknown: render_reason.c's, in the
 * target's units. */
struct fmt {
	bool dec;
	char b[6][64];
};

static const char *size_f(struct fmt *m, int i, double v)
{
	return render_size(m->b[i], sizeof(m->b[i]), v, m->dec);
}

static const char *rate_f(struct fmt *m, int i, double v)
{
	return render_rate(m->b[i], sizeof(m->b[i]), v, m->dec);
}

static const char *dur_f(struct fmt *m, int i, double s)
{
	return render_duration(m->b[i], sizeof(m->b[i]), s);
}

static const char *time_f(struct fmt *m, int i, double t)
{
	return units_format_time(m->b[i], sizeof(m->b[i]), t);
}

static const char *count_f(struct fmt *m, int i, double v)
{
	return units_format_count(m->b[i], sizeof(m->b[i]), v);
}

/* The window, the footprint, the resolution, the slope and what bounds
 * it: the figures every target has, or has with a trend. */
static void trend_lines(char **l, const struct target_findings *f)
{
	struct fmt m = {.dec = f->decimal_units};
	if (f->samples)
		l[FLINE_WINDOW] = line_of(
			"%s to %s (%s), %zu samples, %zu incarnation%s",
			time_f(&m, 0, f->start), time_f(&m, 1, f->end),
			dur_f(&m, 2, f->span_s), f->samples,
			f->n_incarnations, f->n_incarnations == 1 ? "" : "s");
	else
		l[FLINE_WINDOW] = line_of("no samples");
	l[FLINE_FOOTPRINT] = line_of("first %s, last %s, min %s, max %s",
				     size_f(&m, 0, f->fp_first),
				     size_f(&m, 1, f->fp_last),
				     size_f(&m, 2, f->fp_min),
				     size_f(&m, 3, f->fp_max));
	const char *basis = analysis_resolution_basis_text(f);
	l[FLINE_RESOLUTION] = line_of("%s (%s)", size_f(&m, 0, f->resolution),
				      basis ? basis :
				      "inferred from the readings");
	l[FLINE_CONCERN] = line_of("%s (%s)", rate_f(&m, 0, f->concern_bph),
				   f->concern_source);
	if (!f->has_trend)
		return;
	l[FLINE_SLOPE] = line_of("%s (95 %% interval %s to %s)%s, over %s "
				 "from %s", rate_f(&m, 0, f->slope.estimate),
				 rate_f(&m, 1, f->slope.low),
				 rate_f(&m, 2, f->slope.high),
				 f->trend.bucketed ? " [bucket medians]" : "",
				 dur_f(&m, 3, f->an_span_s),
				 time_f(&m, 4, f->an_start));
	/* no inflation to state when the readings leave no noise
	 * (stats_trend_noise_figures()) */
	double vi = f->trend.variance_inflation;
	char infl[96] = "";
	if (vi >= 1)
		snprintf(infl, sizeof(infl), " (autocorrelation-aware: "
			 "interval x%.2f wider than for independent "
			 "readings)", sqrt(vi));
	char p[32];
	l[FLINE_TREND_TEST] = line_of("p = %s%s%s",
		render_p_value(p, sizeof(p), f->slope.p, 3), infl,
		f->trend_on_floors ? "; on the cycles' floors" :
		f->trend_between_steps ? "; between the steps (their levels "
		"taken out: they give back what they take)" : "");
	if (f->periodic.found)
		l[FLINE_CYCLES] = line_of("every %s, swinging %s; %.1f watched",
					  dur_f(&m, 0, f->periodic.period_s),
					  size_f(&m, 1, f->periodic.amplitude),
					  f->periodic.cycles);
	l[FLINE_DETECTABLE] = line_of("%s in this window",
				      rate_f(&m, 0, f->detectable_bph));
	char w1[32], w2[32];
	l[FLINE_MIN_WATCH] = line_of("%s for the %s slope; %s for the slope "
		"of concern%s",
		render_min_watch(w1, sizeof(w1), f->min_observation_s),
		f->concern_is_suspect ? "suspected" : "measured",
		render_min_watch(w2, sizeof(w2), f->needed_span_s),
		f->min_observation_s < 1 && f->needed_span_s < 1 ?
		" (fine readings: the resolution is no limit)" : "");
}

/* The plateau, or the level growth slows toward. */
static void shape_lines(char **l, const struct target_findings *f)
{
	struct fmt m = {.dec = f->decimal_units};
	const struct plateau_finding *pl = &f->plateau;
	if (pl->found && pl->cap_name)
		l[FLINE_PLATEAU] = line_of("%s since %s, at the %s (%s)",
					   size_f(&m, 0, pl->level),
					   time_f(&m, 1, pl->since),
					   pl->cap_name,
					   size_f(&m, 2, pl->cap_bytes));
	else if (pl->found)
		l[FLINE_PLATEAU] = line_of("%s since %s",
					   size_f(&m, 0, pl->level),
					   time_f(&m, 1, pl->since));
	if (pl->approaching)
		l[FLINE_APPROACH] = line_of("slowing from %s to %s: levels off "
			"near %s if it keeps slowing (an estimate)",
			rate_f(&m, 0, pl->approach_early_bph),
			rate_f(&m, 1, pl->approach_late_bph),
			size_f(&m, 2, pl->approach_level));
}

/* The work series, the requests in the window, the idle windows. */
static void work_lines(char **l, const struct target_findings *f)
{
	struct fmt m = {.dec = f->decimal_units};
	const struct per_request_finding *pr = &f->per_request;
	const struct counter_check *w = &f->work;
	const struct idle_findings *id = &f->idle;
	if (w->recorded && !w->is_counter)
		l[FLINE_WORK] = line_of("went down in %s of %s readings "
			"(%.1f %%) outside restarts: not a counter; %s",
			count_f(&m, 0, (double)w->decreases),
			count_f(&m, 1, (double)w->readings),
			100 * w->decreasing_share, pr->recorded ?
			"read as one all the same (--work-is-counter)" :
			"set aside (--work-is-counter reads it as one)");
	if (pr->recorded && !pr->known)
		l[FLINE_REQUESTS] = line_of("no readings in the window");
	else if (pr->recorded)
		l[FLINE_REQUESTS] = line_of("%s in the analysed window (%s/h)",
					    count_f(&m, 0, pr->requests),
					    count_f(&m, 1, pr->rate_per_h));
	if (!id->work_known)
		return;
	if (!id->n)
		l[FLINE_IDLE] = line_of("no idle window of at least %s",
					dur_f(&m, 0, f->idle_min_s));
	else
		l[FLINE_IDLE] = line_of("%zu window%s, %s in all, longest %s; "
			"%s (largest decline %s)", id->n,
			id->n == 1 ? "" : "s", dur_f(&m, 0, id->idle_s),
			dur_f(&m, 1, id->longest_s), id->released ?
			"memory was released" : "nothing was released",
			size_f(&m, 2, id->largest_decline));
}

void findings_view_init(struct findings_view *v,
			const struct target_findings *f)
{
	*v = (struct findings_view){0};
	trend_lines(v->lines, f);
	shape_lines(v->lines, f);
	work_lines(v->lines, f);
	v->n_reasons = f->reasons.n;
	v->reasons = xcalloc(v->n_reasons ? v->n_reasons : 1,
			     sizeof(*v->reasons));
	for (size_t i = 0; i < f->reasons.n; i++)
		findings_row_of_reason(&v->reasons[i], f, &f->reasons.r[i]);
	findings_row_of_settle(&v->settle, f);
}

void findings_view_release(struct findings_view *v)
{
	for (size_t i = 0; i < v->n_reasons; i++)
		findings_row_release(&v->reasons[i]);
	free(v->reasons);
	findings_row_release(&v->settle);
	for (size_t k = 0; k < FLINE_COUNT; k++)
		free(v->lines[k]);
	*v = (struct findings_view){0};
}
