/*
 * verdict.c - the decision rules: from findings to one of inconclusive,
 * stable, growing, plateau, with the reasons that support it and, for
 * inconclusive, what would settle it.
 *
 * Two parts. verdict_rule_of() is the decision alone, over a few facts
 * (struct verdict_facts), the rules of docs/verdicts.md in order:
 *  1. too few points or no time span, or readings that never changed and
 *     share no unit                          -> inconclusive
 *  2. a work counter that did not increase    -> inconclusive (a leak per
 *                                                 request cannot show)
 *  3. memory cycles, fewer than 3 whole ones  -> inconclusive
 *  4. rising then holding, the level held     -> plateau
 *  5. significant rise (p < 0.05, CI > 0), or per request while the time
 *     slope is not significantly negative     -> growing
 *  4a/5a. the growth 4 or 5 saw is immaterial (issue 28: its whole
 *     amount a few resolution steps, or its interval's upper end far
 *     below the slope of concern; verdict_slope_materiality(), analysis.h
 *     MATERIAL_*)                             -> no growth: 6, 7, 8 decide
 *  6. the window cannot see the slope of concern (detectable > concern,
 *     or the interval reaches above it; per request too when work is
 *     known)                                  -> inconclusive
 *  6a/6b. the service restarted and its incarnations pooled after their
 *     warm-ups (pooled.h) say more than the analysed one: their interval
 *     above zero -> growing; below the concern -> stable; else 6 (a
 *     per-request rise still says growing, rule 5)
 *  7. work done not known and a window under STABLE_MIN_WINDOW_S or
 *     STABLE_MIN_SAMPLES                      -> inconclusive ("no growth
 *                                                 in this window")
 *  8. otherwise                               -> stable
 * verdict_decide() then records the evidence for the rule that applied as
 * reason codes with their figures (reason.h): idle windows, restarts,
 * steps, attribution and GPU memory add reasons to every verdict from
 * rule 2 on. Never more confident than the data: rule 5 comes before
 * "stable", and the interval and p-value it uses are
 * autocorrelation-corrected.
 * No I/O and no text: render_reason.c says the reasons in English.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common.h"
#include "stats.h"

struct reason *reason_list_add(struct reason_list *l, enum reason_code c)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->r = xrealloc(l->r, l->cap * sizeof(*l->r));
	}
	struct reason *r = &l->r[l->n++];
	memset(r, 0, sizeof(*r));
	r->code = c;
	return r;
}

void reason_list_release(struct reason_list *l)
{
	free(l->r);
	l->r = NULL;
	l->n = l->cap = 0;
}

/* ---- the decision -------------------------------------------------------- */

void verdict_facts_of(const struct target_findings *f,
		      struct verdict_facts *out)
{
	const struct per_request_finding *pr = &f->per_request;
	*out = (struct verdict_facts){
		.has_trend = f->has_trend,
		.resolution_unknown =
			f->resolution_basis == RESOLUTION_UNKNOWN,
		.work_recorded = pr->recorded,
		.work_known = pr->known,
		.requests = pr->requests,
		.cycles = f->periodic.found,
		.whole_cycles = f->periodic.n_floors,
		.plateau = f->plateau.found,
		.significant = f->significant,
		.slope = f->slope,
		.detectable_bph = f->detectable_bph,
		.concern_bph = f->concern_bph,
		.pr_found = pr->found,
		.pr_significant = pr->significant,
		.pr_slope = pr->slope,
		.pr_detectable = pr->detectable,
		.pr_concern = pr->concern,
		.span_s = f->an_span_s,
		.samples = f->analysed_samples,
		.pooled = f->pooled.found,
		.pooled_significant = f->pooled.significant,
		.pooled_slope = f->pooled.slope,
	};
	/* the warm-up found is at least half the plateau's rise (the early
	 * slope over its time): its rise is the warm-up */
	const struct warmup_finding *wu =
		f->warmups ? &f->warmups[f->analysed_inc] : NULL;
	const struct plateau_finding *p = &f->plateau;
	double p_rise = p->early_slope_bph * (p->tau - f->an_start) / 3600;
	out->plateau_is_warmup = p->found && wu &&
		wu->source == WARMUP_FOUND && wu->rise >= 0.5 * p_rise;
	out->resolution = f->resolution;
	out->plateau_rise = p->found ? p_rise : NAN;
	out->amount = f->has_trend ?
		      f->slope.estimate * f->slope_span_s / 3600 : NAN;
	out->pr_amount = pr->found ?
			 pr->slope.estimate * pr->slope_requests : NAN;
}

/* ---- materiality (issue 28) ----------------------------------------------- */

enum materiality verdict_slope_materiality(const struct slope *sl,
					   double amount, double resolution,
					   double concern)
{
	/* Both ways need the upper end below the concern: materiality
	 * never hides growth the window could not rule out. */
	if (!isfinite(concern) || !(concern > 0) || !(sl->high < concern))
		return MATERIAL;
	if (sl->high <= MATERIAL_FAR_BELOW * concern)
		return IMMATERIAL_FAR_BELOW;
	if (resolution > 0 && amount <= MATERIAL_STEPS * resolution)
		return IMMATERIAL_STEPS;
	return MATERIAL;
}

/* A plateau's rise of a few steps: the late part held below the concern
 * already (rule 4), what it kept is what jitter can show. */
static bool plateau_immaterial(const struct verdict_facts *v)
{
	return v->plateau && v->resolution > 0 &&
	       v->plateau_rise <= MATERIAL_STEPS * v->resolution;
}

static enum materiality time_materiality(const struct verdict_facts *v)
{
	return verdict_slope_materiality(&v->slope, v->amount, v->resolution,
					 v->concern_bph);
}

static enum materiality pr_materiality(const struct verdict_facts *v)
{
	return verdict_slope_materiality(&v->pr_slope, v->pr_amount,
					 v->resolution, v->pr_concern);
}

/* Issue 27: the incarnations pooled (pooled.h) speak for the service when
 * they say more than the analysed incarnation alone -- their interval is
 * narrower (a service restarted every 30-60 min: each incarnation is
 * short, together they are long). Then the analysed incarnation's time
 * slope is not the evidence; the pooled one is. */
static bool pooled_decides(const struct verdict_facts *v)
{
	return v->pooled && isfinite(v->pooled_slope.high) &&
	       (!isfinite(v->slope.high) ||
		v->pooled_slope.high - v->pooled_slope.low <
		v->slope.high - v->slope.low);
}

/* Rule 5's two ways to grow, beyond doubt (whether it matters or not). */
static bool time_rises(const struct verdict_facts *v)
{
	return v->significant && v->slope.estimate > 0;
}

static bool per_request_rises(const struct verdict_facts *v)
{
	return v->pr_found && v->pr_significant && v->pr_slope.estimate > 0 &&
	       !(v->significant && v->slope.estimate < 0);
}

/* ... and growth that matters: what rule 5 calls growing. */
static bool time_grows(const struct verdict_facts *v)
{
	return time_rises(v) && time_materiality(v) == MATERIAL;
}

static bool per_request_grows(const struct verdict_facts *v)
{
	return per_request_rises(v) && pr_materiality(v) == MATERIAL;
}

static bool pooled_grows(const struct verdict_facts *v)
{
	return v->pooled_significant && v->pooled_slope.estimate > 0 &&
	       verdict_slope_materiality(&v->pooled_slope, NAN, v->resolution,
					 v->concern_bph) == MATERIAL;
}

/* Rule 6 per request: the window could not have seen the per-request
 * slope of concern. */
static bool per_request_unseen(const struct verdict_facts *v)
{
	return v->pr_found && isfinite(v->pr_concern) &&
	       (v->pr_detectable > v->pr_concern ||
		v->pr_slope.high > v->pr_concern);
}

enum verdict_rule verdict_rule_of(const struct verdict_facts *v)
{
	if (!v->has_trend)
		return RULE_TOO_FEW;
	if (v->resolution_unknown)
		return RULE_RESOLUTION_UNKNOWN;
	if (v->work_recorded && v->work_known && !(v->requests > 0))
		return RULE_NO_WORK;
	if (v->cycles && v->whole_cycles < PERIODIC_MIN_CYCLES)
		return RULE_FEW_CYCLES;
	/* A plateau whose rise is the warm-up says the warm-up ended, not
	 * that growth stopped: when the pooled incarnations grow, they
	 * decide (rule 6a). */
	if (v->plateau && !plateau_immaterial(v) &&
	    !(v->plateau_is_warmup && pooled_decides(v) && pooled_grows(v)))
		return RULE_PLATEAU;
	if (pooled_decides(v)) {
		if (pooled_grows(v))
			return RULE_POOLED_GROWING;
		if (per_request_grows(v))
			return RULE_GROWING;
		if (isfinite(v->concern_bph) &&
		    v->pooled_slope.high < v->concern_bph &&
		    !per_request_unseen(v))
			return RULE_POOLED_STABLE;
		return RULE_UNSEEN;
	}
	if (time_grows(v) || per_request_grows(v))
		return RULE_GROWING;
	/* Stable needs both: the window could resolve the slope of
	 * concern, and the interval's upper end stays below it -- per
	 * request too, when the work is known. */
	if (!isfinite(v->concern_bph) || v->detectable_bph > v->concern_bph ||
	    v->slope.high > v->concern_bph || per_request_unseen(v))
		return RULE_UNSEEN;
	/* What "stable" covers: without the work recorded, a window that
	 * is too short to have met the service's usual work and its slower
	 * cycles says no more than "no growth in this window". */
	if (!v->work_known && (!(v->span_s >= STABLE_MIN_WINDOW_S) ||
				  v->samples < STABLE_MIN_SAMPLES))
		return RULE_SHORT_WINDOW;
	return RULE_STABLE;
}

enum verdict verdict_of_rule(enum verdict_rule r)
{
	switch (r) {
	case RULE_PLATEAU: return VERDICT_PLATEAU;
	case RULE_GROWING: return VERDICT_GROWING;
	case RULE_POOLED_GROWING: return VERDICT_GROWING;
	case RULE_STABLE: return VERDICT_STABLE;
	case RULE_POOLED_STABLE: return VERDICT_STABLE;
	default: return VERDICT_INCONCLUSIVE;
	}
}

enum verdict verdict_of(const struct target_findings *f)
{
	struct verdict_facts v;
	verdict_facts_of(f, &v);
	return verdict_of_rule(verdict_rule_of(&v));
}

/* ---- the evidence -------------------------------------------------------- */

static struct reason *add(struct target_findings *f, enum reason_code c)
{
	return reason_list_add(&f->reasons, c);
}

static void trend_reason(struct target_findings *f)
{
	struct reason *r = add(f, REASON_TREND);
	r->u.trend.on_floors = f->trend_on_floors;
	r->u.trend.between_steps = f->trend_between_steps;
	r->u.trend.slope = f->slope;
	r->u.trend.corr_time_s = f->trend.corr_time;
	r->u.trend.inflation = f->trend.variance_inflation;
}

/* The cycles' floors the trend was taken from. */
static void periodic_reason(struct target_findings *f)
{
	const struct periodic_finding *pf = &f->periodic;
	if (!pf->found || pf->n_floors < PERIODIC_MIN_CYCLES)
		return;
	struct reason *r = add(f, REASON_CYCLES);
	r->u.cycles.period_s = pf->period_s;
	r->u.cycles.swing = pf->amplitude;
	r->u.cycles.watched = pf->cycles;
	r->u.cycles.whole = pf->n_floors;
}

/* The analysed incarnation's warm-up, found or given: the slope is read
 * after it. */
static void warmup_reason(struct target_findings *f)
{
	if (!f->warmups)
		return;
	const struct warmup_finding *wu = &f->warmups[f->analysed_inc];
	if (wu->source == WARMUP_NONE || !(wu->end > wu->start))
		return;   /* none, or --warmup 0 */
	struct reason *r = add(f, REASON_WARMUP);
	r->u.warmup.given = wu->source == WARMUP_GIVEN;
	r->u.warmup.inc = f->analysed_inc + 1;
	r->u.warmup.duration_s = wu->end - wu->start;
	r->u.warmup.low_s = wu->end_low - wu->start;
	r->u.warmup.high_s = wu->end_high - wu->start;
	r->u.warmup.level = wu->level;
	r->u.warmup.of = f->n_incarnations;
	for (size_t i = 0; i < f->n_incarnations; i++)
		r->u.warmup.found += f->warmups[i].source == WARMUP_FOUND;
}

/* The incarnations pooled (pooled.h). */
static void pooled_reason(struct target_findings *f)
{
	const struct pooled_finding *p = &f->pooled;
	if (!p->found)
		return;
	struct reason *r = add(f, REASON_POOLED);
	r->u.pooled.slope = p->slope;
	r->u.pooled.incarnations = p->incarnations;
	r->u.pooled.spread_bph = p->tau_bph;
	r->u.pooled.life_s = p->life_s;
	r->u.pooled.given_back_bph = p->given_back_bph;
}

static void incarnation_reason(struct target_findings *f)
{
	const struct series *s = f->series;
	if (f->n_incarnations < 2 || !s->n_incs)
		return;
	struct reason *r = add(f, REASON_INCARNATIONS);
	r->u.incarnations.count = f->n_incarnations;
	r->u.incarnations.analysed = f->analysed_inc + 1;
	r->u.incarnations.samples = f->analysed_samples;
}

/* A work series that went down too often to be a counter (counter.h):
 * said whatever the verdict, with what was made of it. */
static void work_reason(struct target_findings *f)
{
	const struct counter_check *w = &f->work;
	if (!w->recorded || w->is_counter)
		return;
	struct reason *r = add(f, REASON_WORK_NOT_COUNTER);
	r->u.work.decreases = w->decreases;
	r->u.work.readings = w->readings;
	r->u.work.share = w->decreasing_share;
	r->u.work.used = !f->work_set_aside;
}

/* "or >= 2,000 requests more", when the per-request division is known:
 * always more than what was done, the same again settles nothing. */
static void settle_requests_more(struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	f->settle.requests_more = NAN;
	if (!isfinite(pr->needed_requests))
		return;
	double more = pr->needed_requests - pr->slope_requests;
	if (!(more > 0))
		more = 0.25 * pr->slope_requests;
	if (!(more > 0))
		return;
	f->settle.requests_more = more;
	f->settle.concern_per_request = pr->concern;
}

/* The median life of the incarnations (first to last reading). */
static double median_life(const struct target_findings *f)
{
	double *l = xmalloc(f->n_incarnations * sizeof(double));
	size_t k = 0;
	for (size_t i = 0; i < f->n_incarnations; i++)
		if (f->per_inc[i].samples)
			l[k++] = f->per_inc[i].end - f->per_inc[i].start;
	double m = k ? stats_median_inplace(l, k) : NAN;
	free(l);
	return m;
}

/* Issue 27: never ask for a window longer than the incarnations live.
 * When the service restarted and the window asked for is longer than
 * its incarnations' median life, ask for restarts instead: as many more
 * as the pooled interval needs (pooled.h); without one (too few
 * incarnations with enough settled readings), no count. */
static bool settle_restarts(struct target_findings *f)
{
	if (f->n_incarnations < 2 || !f->per_inc ||
	    f->settle.code != SETTLE_WINDOW)
		return false;
	double life = f->pooled.found ? f->pooled.life_s : median_life(f);
	if (!(life > 0) || !(f->settle.need_s > life))
		return false;
	/* without a pooled interval there is no count to give */
	double more = f->pooled.found ? fmax(1, f->pooled.more_incarnations) :
		      NAN;
	f->settle.code = SETTLE_RESTARTS;
	f->settle.life_s = life;
	f->settle.restarts = more;
	return true;
}

static void settle_window(struct target_findings *f)
{
	if (!isfinite(f->concern_bph) || !(f->concern_bph > 0)) {
		f->settle.code = SETTLE_NO_CONCERN;
		settle_requests_more(f);
		return;
	}
	/* from the interval the verdict failed on (analysis_needed()), and
	 * always more than what was watched: the same again settles
	 * nothing */
	double need = f->needed_span_s;
	if (!isfinite(need))
		need = f->resolution / f->concern_bph * 3600;
	if (!(need > f->an_span_s))
		need = 1.25 * f->an_span_s;
	f->settle.code = SETTLE_WINDOW;
	f->settle.need_s = need;
	f->settle.more_s = need - f->an_span_s;
	f->settle.resolution = f->resolution;
	f->settle.concern_bph = f->concern_bph;
	settle_restarts(f);
	settle_requests_more(f);
}

static void per_request_reason(struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	if (!pr->recorded)
		return;
	if (!pr->known) {
		add(f, REASON_PER_REQUEST_NO_READINGS);
		return;
	}
	if (!pr->found)
		return;
	struct reason *r = add(f, REASON_PER_REQUEST);
	r->u.per_request.slope = pr->slope;
	r->u.per_request.requests = pr->slope_requests;
	r->u.per_request.after_warmup = pr->after_warmup;
	r->u.per_request.detectable = pr->detectable;
}

/* Idle windows and where the growth happened: context.md's decisive
 * evidence ("nothing released in 23 idle windows, all growth while
 * requests ran"). */
static void idle_reasons(struct target_findings *f)
{
	const struct idle_findings *id = &f->idle;
	struct reason *r;
	if (!id->work_known)
		return;
	if (id->n == 0) {
		r = add(f, REASON_IDLE_NONE);
		r->u.idle_none.min_s = f->idle_min_s;
		r->u.idle_none.connections = f->series->connections != NULL;
	} else {
		r = add(f, id->released ? REASON_IDLE_RELEASED :
			REASON_IDLE_KEPT);
		r->u.idle.windows = id->n;
		r->u.idle.longest_s = id->longest_s;
		r->u.idle.decline = id->released ? id->largest_decline :
			isfinite(id->largest_decline) ?
			fmax(id->largest_decline, 0) : 0;
	}
	/* windows in which memory rose: growth without work (a start-up
	 * longer than the default, or background activity), not a window
	 * that "released nothing" */
	size_t rising = 0;
	double most = 0;
	for (size_t i = 0; i < id->n; i++) {
		const struct idle_window *w = &id->windows[i];
		double rise = w->fp_end - w->fp_start;
		if (isfinite(rise) &&
		    rise > fmax(2 * f->resolution, 0.01 * fabs(w->fp_start))) {
			rising++;
			most = fmax(most, rise);
		}
	}
	if (rising) {
		r = add(f, REASON_IDLE_ROSE);
		r->u.idle_rose.most = most;
		r->u.idle_rose.windows = rising;
	}
	if (id->n && fabs(id->growth_net) >= 2 * f->resolution) {
		r = add(f, REASON_GROWTH_SPLIT);
		r->u.growth.net = id->growth_net;
		r->u.growth.active = id->growth_active;
		r->u.growth.idle = id->growth_idle;
		r->u.growth.warmup = id->growth_warmup;
	}
}

/* The restarts and what each released (the first 3). */
static void restart_reasons(struct target_findings *f)
{
	const struct restart_findings *rf = &f->restarts;
	if (!rf->n)
		return;
	if (rf->n > 1) {
		struct reason *r = add(f, REASON_RESTARTS_TOTAL);
		r->u.restarts.count = rf->n;
		r->u.restarts.recovered = rf->recovered_total;
	}
	for (size_t i = 0; i < rf->n && i < 3; i++) {
		const struct restart *rs = &rf->r[i];
		if (!isfinite(rs->recovered))
			continue;
		struct reason *r = add(f, REASON_RESTART);
		r->u.restart.time = rs->time;
		r->u.restart.recovered = rs->recovered;
		r->u.restart.before = rs->before;
		r->u.restart.after = rs->after;
		r->u.restart.old_inc = rs->old_inc;
		r->u.restart.new_inc = rs->new_inc;
		r->u.restart.floor_rule = rs->floor_rule;
	}
}

static void step_reasons(struct target_findings *f)
{
	const struct step_findings *sf = &f->steps;
	if (!sf->n)
		return;
	struct reason *r = add(f, REASON_STEPS);
	r->u.steps.count = sf->n;
	for (size_t i = 0; i < sf->n && i < REASON_STEPS_SHOWN; i++) {
		r->u.steps.change[i] = sf->steps[i].change;
		r->u.steps.time[i] = sf->steps[i].time;
		r->u.steps.shown = i + 1;
	}
}

static void attribution_reason(struct target_findings *f)
{
	const struct attribution_finding *at = &f->attribution;
	if (!at->found)
		return;
	struct reason *r = add(f, REASON_ATTRIBUTION);
	r->u.attribution.explained = at->explained_total;
	r->u.attribution.growth = at->growth;
	r->u.attribution.unattributed = at->unattributed;
}

static void gpu_reason(struct target_findings *f)
{
	const struct gpu_finding *g = &f->gpu;
	if (!g->recorded || !g->samples)
		return;
	struct reason *r = add(f, REASON_GPU);
	r->u.gpu.changed = isfinite(g->footprint_growth) &&
			   fabs(g->footprint_growth) >= f->resolution &&
			   fabs(g->growth) >= f->resolution;
	r->u.gpu.last = g->last;
	r->u.gpu.share = g->share_last;
	r->u.gpu.growth = g->growth;
	r->u.gpu.footprint_growth = g->footprint_growth;
}

/* The cycle the trend was taken across, or a level that was not a
 * plateau and why. */
static void shape_reasons(struct target_findings *f)
{
	if (f->trend_on_floors)
		periodic_reason(f);
	if (f->plateau.candidate && !f->plateau.found) {
		struct reason *r = add(f, REASON_LEVEL_REJECTED);
		r->u.rejected.level = f->plateau.level;
		r->u.rejected.since = f->plateau.since;
		r->u.rejected.why = f->plateau.rejected;
	}
}

/* What every verdict from rule 2 on ends with. */
static void context_reasons(struct target_findings *f, bool per_request)
{
	if (per_request)
		per_request_reason(f);
	idle_reasons(f);
	gpu_reason(f);
	restart_reasons(f);
	step_reasons(f);
	attribution_reason(f);
}

static void too_few(struct target_findings *f)
{
	struct reason *r = add(f, REASON_TOO_FEW);
	r->u.too_few.samples = f->analysed_samples;
	r->u.too_few.span_s = f->an_span_s;
	settle_window(f);
}

static void no_work(struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	add(f, REASON_NO_WORK)->u.duration = f->an_span_s;
	trend_reason(f);
	if (isfinite(pr->needed_requests)) {
		f->settle.code = SETTLE_WORK;
		f->settle.requests = pr->needed_requests;
		f->settle.resolution = f->resolution;
		f->settle.concern_per_request = pr->concern;
	} else {
		f->settle.code = SETTLE_WORK_UNSIZED;
	}
	context_reasons(f, false);
}

static void few_cycles(struct target_findings *f)
{
	const struct periodic_finding *pf = &f->periodic;
	struct reason *r = add(f, REASON_CYCLES_TOO_FEW);
	r->u.cycles.period_s = pf->period_s;
	r->u.cycles.swing = pf->amplitude;
	r->u.cycles.watched = pf->cycles;
	r->u.cycles.whole = pf->n_floors;
	r->u.cycles.needed = PERIODIC_MIN_CYCLES;
	trend_reason(f);
	context_reasons(f, true);
	double need = (PERIODIC_MIN_CYCLES + 0.5) * pf->period_s;
	f->settle.code = SETTLE_CYCLES;
	f->settle.cycles = PERIODIC_MIN_CYCLES;
	f->settle.need_s = need;
	f->settle.more_s = need - f->an_span_s;
}

static void plateau(struct target_findings *f)
{
	const struct plateau_finding *p = &f->plateau;
	struct reason *r = add(f, REASON_PLATEAU_GREW);
	r->u.plateau.early_bph = p->early_slope_bph;
	r->u.plateau.level = p->level;
	r->u.plateau.since = p->since;
	r = add(f, REASON_PLATEAU_LATE);
	r->u.late.late = p->late;
	r->u.late.concern_bph = f->concern_bph;
	r->u.late.held_by = (int)p->held_by;
	r->u.late.flat_readings = p->flat_readings;
	r->u.late.flat_span_s = p->flat_span_s;
	r->u.late.per_req = p->late_per_req;
	r->u.late.requests = p->late_requests;
	r->u.late.concern_per_req = p->concern_per_req;
	if (p->cap_name) {
		r = add(f, REASON_PLATEAU_AT_CAP);
		r->u.cap.level = p->level;
		r->u.cap.cap_bytes = p->cap_bytes;
		r->u.cap.name = p->cap_name;
	} else {
		add(f, REASON_PLATEAU_NO_CAP);
	}
	context_reasons(f, true);
}

static void growing(struct target_findings *f, const struct verdict_facts *v)
{
	struct reason *r;
	if (time_rises(v)) {
		r = add(f, REASON_RISES);
		r->u.trend.on_floors = f->trend_on_floors;
		r->u.trend.between_steps = f->trend_between_steps;
		r->u.trend.slope = f->slope;
	} else {
		add(f, REASON_GROWS_PER_REQUEST)->u.slope =
			f->per_request.slope;
	}
	shape_reasons(f);
	if (f->plateau.approaching) {
		r = add(f, REASON_APPROACH);
		r->u.approach.early_bph = f->plateau.approach_early_bph;
		r->u.approach.late_bph = f->plateau.approach_late_bph;
		r->u.approach.level = f->plateau.approach_level;
	} else if (!f->plateau.candidate) {
		add(f, REASON_NO_PLATEAU);
	}
	if (isfinite(f->concern_bph) && f->slope.estimate < f->concern_bph)
		add(f, REASON_SLOWER_THAN_CONCERN)->u.rate = f->concern_bph;
	if (f->exhaustion.found && isfinite(f->exhaustion.eta_s)) {
		r = add(f, REASON_EXHAUSTION);
		r->u.exhaustion.limit_source = f->exhaustion.limit_source;
		r->u.exhaustion.limit = f->exhaustion.limit_bytes;
		r->u.exhaustion.eta_s = f->exhaustion.eta_s;
		r->u.exhaustion.pool = f->exhaustion.pool;
	}
	if (isfinite(f->exhaustion.requests_left)) {
		r = add(f, REASON_REQUESTS_LEFT);
		r->u.requests_left.per_request = f->per_request.slope.estimate;
		r->u.requests_left.requests = f->exhaustion.requests_left;
	}
	context_reasons(f, true);
}

static void unseen(struct target_findings *f, const struct verdict_facts *v)
{
	const struct per_request_finding *pr = &f->per_request;
	struct reason *r = add(f, REASON_UNSEEN);
	r->u.unseen.resolution = f->resolution;
	r->u.unseen.span_s = f->an_span_s;
	r->u.unseen.detectable_bph = f->detectable_bph;
	if (isfinite(f->concern_bph)) {
		add(f, REASON_CONCERN)->u.rate = f->concern_bph;
		r = add(f, REASON_DIVISION);
		r->u.division.resolution = f->resolution;
		r->u.division.concern_bph = f->concern_bph;
		r->u.division.min_s = f->resolution / f->concern_bph * 3600;
	}
	if (per_request_unseen(v)) {
		r = add(f, REASON_UNSEEN_PER_REQUEST);
		r->u.unseen_per_request.seen = fmax(pr->detectable,
						    pr->slope.high);
		r->u.unseen_per_request.concern = pr->concern;
	}
	trend_reason(f);
	pooled_reason(f);
	shape_reasons(f);
	context_reasons(f, true);
	settle_window(f);
}

/* Issue 28: growth seen, but below anything that matters, said first
 * (verdict_materiality() chose it). */
static void immaterial_reason(struct target_findings *f,
			      const struct verdict_facts *v,
			      enum materiality_of what)
{
	struct reason *r = add(f, REASON_IMMATERIAL);
	r->u.immaterial.what = what;
	r->u.immaterial.resolution = f->resolution;
	r->u.immaterial.span_s = f->slope_span_s;
	switch (what) {
	case MATERIALITY_PLATEAU:
		r->u.immaterial.how = IMMATERIAL_STEPS;
		r->u.immaterial.amount = v->plateau_rise;
		r->u.immaterial.slope = f->plateau.late;
		r->u.immaterial.concern = v->concern_bph;
		break;
	case MATERIALITY_PER_REQUEST:
		r->u.immaterial.how = pr_materiality(v);
		r->u.immaterial.amount = v->pr_amount;
		r->u.immaterial.slope = v->pr_slope;
		r->u.immaterial.concern = v->pr_concern;
		break;
	case MATERIALITY_POOLED:
		r->u.immaterial.how = IMMATERIAL_FAR_BELOW;
		r->u.immaterial.amount = NAN;
		r->u.immaterial.slope = v->pooled_slope;
		r->u.immaterial.concern = v->concern_bph;
		break;
	default:
		r->u.immaterial.how = time_materiality(v);
		r->u.immaterial.amount = v->amount;
		r->u.immaterial.slope = v->slope;
		r->u.immaterial.concern = v->concern_bph;
		break;
	}
}

enum materiality_of verdict_materiality(const struct verdict_facts *v,
					enum verdict_rule rule)
{
	/* only the rules after 4 and 5 can follow growth set aside;
	 * growth that matters decided, or an earlier rule did */
	if (rule != RULE_UNSEEN && rule != RULE_SHORT_WINDOW &&
	    rule != RULE_STABLE && rule != RULE_POOLED_STABLE)
		return MATERIALITY_NONE;
	if (v->plateau && plateau_immaterial(v))
		return MATERIALITY_PLATEAU;
	if (pooled_decides(v) && v->pooled_significant &&
	    v->pooled_slope.estimate > 0)
		return MATERIALITY_POOLED;
	if (!pooled_decides(v) && time_rises(v))
		return MATERIALITY_TIME;
	if (per_request_rises(v))
		return MATERIALITY_PER_REQUEST;
	return MATERIALITY_NONE;
}

/* The window a "stable" covers, or falls short of: its span, samples
 * and the work done in it (NAN: not recorded). */
static void window_figures(const struct target_findings *f, struct reason *r)
{
	r->u.detectable.detectable_bph = f->detectable_bph;
	r->u.detectable.concern_bph = f->concern_bph;
	r->u.detectable.span_s = f->an_span_s;
	r->u.detectable.samples = f->analysed_samples;
	r->u.detectable.requests = f->per_request.known ?
				   f->per_request.requests : NAN;
}

static void stable(struct target_findings *f)
{
	if (f->significant && f->slope.estimate < 0)
		add(f, REASON_DECLINES)->u.trend.slope = f->slope;
	else
		trend_reason(f);
	window_figures(f, add(f, REASON_DETECTABLE));
	shape_reasons(f);
	context_reasons(f, true);
}

/* Rule 7: no growth seen, in a window too short to call stable. */
static void short_window(struct target_findings *f)
{
	window_figures(f, add(f, REASON_WINDOW_SHORT));
	trend_reason(f);
	shape_reasons(f);
	context_reasons(f, true);
	double need = fmax(STABLE_MIN_WINDOW_S, f->an_span_s);
	if (f->analysed_samples < STABLE_MIN_SAMPLES && f->an_span_s > 0 &&
	    f->analysed_samples > 1)
		need = fmax(need, f->an_span_s / (double)(f->analysed_samples - 1) *
				  (STABLE_MIN_SAMPLES - 1));
	f->settle.code = SETTLE_SHORT_WINDOW;
	f->settle.need_s = need;
	f->settle.more_s = need - f->an_span_s;
}

/* Rules 6a and 6b: the incarnations pooled decide. */
static void pooled_growing(struct target_findings *f)
{
	pooled_reason(f);
	trend_reason(f);
	shape_reasons(f);
	if (isfinite(f->concern_bph) &&
	    f->pooled.slope.estimate < f->concern_bph)
		add(f, REASON_SLOWER_THAN_CONCERN)->u.rate = f->concern_bph;
	context_reasons(f, true);
}

static void pooled_stable(struct target_findings *f)
{
	pooled_reason(f);
	trend_reason(f);
	struct reason *r = add(f, REASON_DETECTABLE);
	window_figures(f, r);
	r->u.detectable.detectable_bph =
		(f->pooled.slope.high - f->pooled.slope.low) / 2;
	shape_reasons(f);
	context_reasons(f, true);
}

void verdict_decide(struct target_findings *f)
{
	f->reasons.n = 0;
	memset(&f->settle, 0, sizeof(f->settle));
	f->settle.code = SETTLE_NONE;
	f->settle.requests_more = NAN;

	struct verdict_facts v;
	verdict_facts_of(f, &v);
	enum verdict_rule rule = verdict_rule_of(&v);
	f->verdict = verdict_of_rule(rule);
	enum materiality_of imm = verdict_materiality(&v, rule);
	f->immaterial = imm != MATERIALITY_NONE;

	if (rule == RULE_TOO_FEW) {
		too_few(f);
		return;
	}
	incarnation_reason(f);
	work_reason(f);
	warmup_reason(f);
	if (rule == RULE_RESOLUTION_UNKNOWN) {
		add(f, REASON_RESOLUTION_UNKNOWN)->u.samples =
			f->analysed_samples;
		f->settle.code = SETTLE_RESOLUTION;
		return;
	}
	if (f->resolution_basis == RESOLUTION_SHARED)
		add(f, REASON_RESOLUTION_SHARED)->u.size = f->resolution;
	if (imm != MATERIALITY_NONE)
		immaterial_reason(f, &v, imm);

	switch (rule) {
	case RULE_NO_WORK: no_work(f); break;
	case RULE_FEW_CYCLES: few_cycles(f); break;
	case RULE_PLATEAU: plateau(f); break;
	case RULE_GROWING: growing(f, &v); break;
	case RULE_POOLED_GROWING: pooled_growing(f); break;
	case RULE_UNSEEN: unseen(f, &v); break;
	case RULE_SHORT_WINDOW: short_window(f); break;
	case RULE_POOLED_STABLE: pooled_stable(f); break;
	default: stable(f); break;
	}
}
