/*
 * verdict.c - the decision rules: from findings to one of inconclusive,
 * stable, growing, plateau, each with the reasons that support it and, for
 * inconclusive, what would settle it.
 *
 * Rules, in order (README "Reading a verdict" documents them for users):
 *  1. too few points or no time span          -> inconclusive
 *  2. a work counter that did not increase    -> inconclusive (a leak per
 *                                                 request cannot show)
 *  3. early growth then a flat late part      -> plateau (at a cap if the
 *                                                 level is just under one)
 *  4. significant rise (p < 0.05, CI > 0)     -> growing
 *  5. the window cannot see the slope of concern (detectable > concern,
 *     or the interval reaches above it; per request too when work is
 *     known)                                  -> inconclusive
 *  6. otherwise                               -> stable
 * Idle windows and growth accounting add reasons to every verdict.
 * Never more confident than the data: rule 4 comes before "stable", and
 * the interval and p-value it uses are autocorrelation-corrected.
 * No I/O: the text goes into the findings for renderers to print.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "common.h"

static void reason(struct target_findings *f, const char *fmt, ...)
	PRINTF_LIKE(2, 3);

static void reason(struct target_findings *f, const char *fmt, ...)
{
	if (f->n_reasons >= ANALYSIS_MAX_REASONS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->reasons[f->n_reasons++], sizeof(f->reasons[0]), fmt, ap);
	va_end(ap);
}

/* Sizes in the units the source used: decimal for readings that came in
 * whole decimal units ("21 GB"), binary otherwise. */
static char *fsize(const struct target_findings *f, char *buf, size_t n,
		   double bytes)
{
	return units_format_size_in(buf, n, bytes, f->decimal_units);
}

static char *span_text(char *buf, size_t n, double s)
{
	if (s < 3600)
		snprintf(buf, n, "%.0f s", s);
	else
		units_format_duration(buf, n, s);
	return buf;
}

static char *rate_text(const struct target_findings *f, char *buf,
		       size_t n, double bph)
{
	return units_format_slope(buf, n, bph, f->decimal_units);
}

static const char *p_text(char *buf, size_t n, double p)
{
	if (p < 1e-6)
		snprintf(buf, n, "p < 1e-6");
	else
		snprintf(buf, n, "p = %.2g", p);
	return buf;
}

static void trend_reason(struct target_findings *f)
{
	char a[48], b[48], c[48], p[32], ct[48];
	const struct trend_result *tr = &f->trend;
	char wander[160];
	if (!isfinite(tr->corr_time) || tr->corr_time <= 0)
		snprintf(wander, sizeof(wander), "the readings vary "
			 "independently");
	else if (isinf(tr->corr_time))
		snprintf(wander, sizeof(wander), "the readings wander "
			 "together over longer than the window, which widens "
			 "the interval x%.2g", sqrt(tr->variance_inflation));
	else
		snprintf(wander, sizeof(wander), "the readings wander "
			 "together over about %s, which widens the interval "
			 "x%.2g", span_text(ct, sizeof(ct), tr->corr_time),
			 sqrt(tr->variance_inflation));
	reason(f, "%sTheil-Sen slope %s (95 %% interval %s to %s), trend "
	       "test %s; %s",
	       f->trend_on_floors ? "cycle floors: " : "",
	       rate_text(f, a, sizeof(a), f->slope.estimate),
	       rate_text(f, b, sizeof(b), f->slope.low),
	       rate_text(f, c, sizeof(c), f->slope.high),
	       p_text(p, sizeof(p), f->slope.p), wander);
}

/* "memory cycles every 10 min (1 GiB up and down): the trend is the one
 * of the 17 cycles' floors". */
static void periodic_reason(struct target_findings *f)
{
	const struct periodic_finding *pf = &f->periodic;
	char a[48], b[48];
	if (!pf->found || pf->n_floors < PERIODIC_MIN_CYCLES)
		return;
	reason(f, "memory cycles about every %s, swinging by %s: the trend "
	       "is taken from the lowest reading of each of the %zu whole "
	       "cycles, what persists across them",
	       span_text(a, sizeof(a), pf->period_s),
	       fsize(f, b, sizeof(b), pf->amplitude), pf->n_floors);
}

static void incarnation_reason(struct target_findings *f)
{
	const struct series *s = f->series;
	if (f->n_incarnations < 2 || !s->n_incs)
		return;
	reason(f, "%zu incarnations (restarts); the slope is taken from "
	       "incarnation %zu (pid %lld, %zu samples), never across a "
	       "restart", f->n_incarnations, f->analysed_inc + 1,
	       (long long)s->incs[f->analysed_inc].pid, f->analysed_samples);
}

static char *per_req_text(const struct target_findings *f, char *buf,
			  size_t n, double bytes)
{
	return units_format_per_request(buf, n, bytes, f->decimal_units);
}

/* " or >= 2,000 requests more", when the per-request division is known. */
static void append_requests_needed(struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	if (!isfinite(pr->needed_requests))
		return;
	/* advice is always more than what was done: the same again
	 * settles nothing */
	double more = pr->needed_requests - pr->requests;
	if (!(more > 0))
		more = 0.25 * pr->requests;
	if (!(more > 0))
		return;
	char a[48], b[48];
	size_t len = strlen(f->settle);
	snprintf(f->settle + len, sizeof(f->settle) - len,
		 "%sor >= %s requests more (to see %s)", len ? "; " : "",
		 units_format_count(a, sizeof(a), more),
		 per_req_text(f, b, sizeof(b), pr->concern));
}

static void settle_window(struct target_findings *f)
{
	char a[48], b[48], c[48], d[48];
	if (!isfinite(f->concern_bph) || !(f->concern_bph > 0)) {
		snprintf(f->settle, sizeof(f->settle),
			 "record longer; give --limit or --suspect so the "
			 "slope of concern is known");
		append_requests_needed(f);
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
	double more = need - f->an_span_s;
	units_format_duration(a, sizeof(a), need);
	units_format_duration(b, sizeof(b), more);
	snprintf(f->settle, sizeof(f->settle),
		 "watch >= %s in all (about %s more) at resolution %s to see "
		 "a slope of %s", a, b,
		 fsize(f, c, sizeof(c), f->resolution),
		 rate_text(f, d, sizeof(d), f->concern_bph));
	append_requests_needed(f);
}

static void per_request_reason(struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	char a[48], b[48], c[48], d[48], e[48], p[32];
	if (!pr->recorded)
		return;
	if (!pr->known) {
		reason(f, "the work counter gave no readings in the window "
		       "(see the notes): no per-request slope");
		return;
	}
	if (!pr->found)
		return;
	reason(f, "per request: %s (95 %% interval %s to %s) over %s "
	       "requests, %s; detectable %s",
	       per_req_text(f, a, sizeof(a), pr->slope.estimate),
	       per_req_text(f, b, sizeof(b), pr->slope.low),
	       per_req_text(f, c, sizeof(c), pr->slope.high),
	       units_format_count(d, sizeof(d), pr->requests),
	       p_text(p, sizeof(p), pr->slope.p),
	       per_req_text(f, e, sizeof(e), pr->detectable));
}

/* Idle windows and where the growth happened: context.md's decisive
 * evidence ("nothing released in 23 idle windows, all growth while
 * requests ran"). */
static void idle_reasons(struct target_findings *f)
{
	const struct idle_findings *id = &f->idle;
	char a[48], b[48], c[48], d[48];
	if (!id->work_known)
		return;
	if (id->n == 0) {
		reason(f, "no idle window (>= %s without requests%s) in the "
		       "recording", span_text(a, sizeof(a), f->idle_min_s),
		       f->series->connections ? " and connections" : "");
	} else if (id->released) {
		reason(f, "%zu idle window%s (longest %s): memory was released "
		       "while idle (up to %s)", id->n, id->n == 1 ? "" : "s",
		       units_format_duration(a, sizeof(a), id->longest_s),
		       fsize(f, b, sizeof(b), id->largest_decline));
	} else {
		reason(f, "%zu idle window%s (longest %s): nothing was "
		       "released while idle (largest decline %s)", id->n,
		       id->n == 1 ? "" : "s",
		       units_format_duration(a, sizeof(a), id->longest_s),
		       fsize(f, b, sizeof(b), isfinite(id->largest_decline) ?
			     fmax(id->largest_decline, 0) : 0));
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
	if (rising)
		reason(f, "memory rose by up to %s in %zu idle window%s, "
		       "without requests: a start-up or background work, not "
		       "memory kept from requests", fsize(f, a, sizeof(a), most),
		       rising, rising == 1 ? "" : "s");
	if (id->n && fabs(id->growth_net) >= 2 * f->resolution)
		reason(f, "net growth %s: %s while requests ran, %s in idle "
		       "windows, %s during start-up",
		       fsize(f, a, sizeof(a), id->growth_net),
		       fsize(f, b, sizeof(b), id->growth_active),
		       fsize(f, c, sizeof(c), id->growth_idle),
		       fsize(f, d, sizeof(d), id->growth_warmup));
}

/* "the restart at 09:00 released 42.3 GiB (pid 4242 -> 5151: 244.5 GiB
 * before, 202.2 GiB after warm-up, first idle window)". */
static void restart_reasons(struct target_findings *f)
{
	const struct restart_findings *rf = &f->restarts;
	char a[48], b[48], c[48], d[48];
	if (!rf->n)
		return;
	if (rf->n > 1)
		reason(f, "%zu restarts gave back %s in all", rf->n,
		       fsize(f, a, sizeof(a), rf->recovered_total));
	for (size_t i = 0; i < rf->n && i < 3; i++) {
		const struct restart *r = &rf->r[i];
		if (!isfinite(r->recovered))
			continue;
		reason(f, "the restart at %s %s %s (pid %lld -> %lld: %s "
		       "before, %s after warm-up, by the %s)",
		       units_format_time(a, sizeof(a), r->time),
		       r->recovered >= 0 ? "released" : "ended",
		       r->recovered >= 0 ?
		       fsize(f, b, sizeof(b), r->recovered) :
		       (snprintf(b, sizeof(b), "%s higher",
				 fsize(f, d, sizeof(d), -r->recovered)), b),
		       (long long)r->old_pid, (long long)r->new_pid,
		       fsize(f, c, sizeof(c), r->before),
		       fsize(f, d, sizeof(d), r->after), r->floor_rule);
	}
}

/* "steps: +6 GiB at 03:10, +9 GiB at 05:40 (2 in all)". */
static void step_reasons(struct target_findings *f)
{
	const struct step_findings *sf = &f->steps;
	if (!sf->n)
		return;
	char text[300], a[48], b[48];
	size_t len = 0;
	for (size_t i = 0; i < sf->n && i < 4 && len < sizeof(text); i++) {
		const struct step *st = &sf->steps[i];
		fsize(f, a, sizeof(a), st->change);
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%s%s%s at %s", i ? ", " : "",
					st->change > 0 ? "+" : "", a,
					units_format_time(b, sizeof(b),
							  st->time));
	}
	reason(f, "%zu step%s in the footprint: %s%s", sf->n,
	       sf->n == 1 ? "" : "s", text, sf->n > 4 ? ", ..." : "");
}

/* "the gauges explain 5.1 GiB of +28.6 GiB growth (prompt_cache 5.1
 * GiB); 23.5 GiB unattributed". */
static void attribution_reason(struct target_findings *f)
{
	const struct attribution_finding *at = &f->attribution;
	if (!at->found)
		return;
	char items[200], a[48], b[48], c[48];
	size_t len = 0;
	items[0] = '\0';
	for (size_t i = 0; i < at->n && len < sizeof(items); i++) {
		const struct attribution_item *it = &at->items[i];
		if (!it->counted)
			continue;
		/* Gauge names may come from a CSV header: the renderers
		 * escape every reason for their medium. */
		len += (size_t)snprintf(items + len, sizeof(items) - len,
					"%s%.48s %s", len ? ", " : "", it->name,
					fsize(f, a, sizeof(a), it->explained));
	}
	reason(f, "the gauges explain %s of %s growth (%s); %s "
	       "unattributed",
	       fsize(f, a, sizeof(a), at->explained_total),
	       fsize(f, b, sizeof(b), at->growth), items,
	       fsize(f, c, sizeof(c), at->unattributed));
}

/* "GPU memory (device-local) is 229.5 GiB, 99 % of the footprint; it
 * grew +28.0 GiB of the footprint's +28.6 GiB". */
static void gpu_reason(struct target_findings *f)
{
	const struct gpu_finding *g = &f->gpu;
	if (!g->recorded || !g->samples)
		return;
	char a[48], b[48], c[48], share[32] = "";
	if (isfinite(g->share_last))
		snprintf(share, sizeof(share), ", %.0f %% of the footprint",
			 100 * g->share_last);
	if (isfinite(g->footprint_growth) &&
	    fabs(g->footprint_growth) >= f->resolution &&
	    fabs(g->growth) >= f->resolution)
		reason(f, "GPU memory (device-local) is %s%s; it changed by "
		       "%s of the footprint's %s", fsize(f, a, sizeof(a),
		       g->last), share, fsize(f, b, sizeof(b), g->growth),
		       fsize(f, c, sizeof(c), g->footprint_growth));
	else
		reason(f, "GPU memory (device-local) is %s%s; it did not "
		       "change by the resolution or more", fsize(f, a,
		       sizeof(a), g->last), share);
}

/* The cycle the trend was taken across, or a level that was not a
 * plateau and why. */
static void shape_reasons(struct target_findings *f)
{
	char a[48], b[48];
	if (f->trend_on_floors)
		periodic_reason(f);
	if (f->plateau.candidate && !f->plateau.found)
		reason(f, "it levelled off at %s since %s, but %s: not a "
		       "plateau", fsize(f, a, sizeof(a), f->plateau.level),
		       units_format_time(b, sizeof(b), f->plateau.since),
		       plateau_reject_text(f->plateau.rejected));
}

static void diagnosis_reasons(struct target_findings *f)
{
	gpu_reason(f);
	restart_reasons(f);
	step_reasons(f);
	attribution_reason(f);
}

static void no_work(struct target_findings *f)
{
	char a[48], b[48], c[48];
	const struct per_request_finding *pr = &f->per_request;
	f->verdict = VERDICT_INCONCLUSIVE;
	reason(f, "no work was done in the window: the requests counter did "
	       "not increase over %s, so memory that grows per request "
	       "cannot show, whatever the time slope says",
	       span_text(a, sizeof(a), f->an_span_s));
	trend_reason(f);
	if (isfinite(pr->needed_requests))
		snprintf(f->settle, sizeof(f->settle),
			 "record while the service takes requests: >= %s "
			 "requests at resolution %s to see %s",
			 units_format_count(a, sizeof(a), pr->needed_requests),
			 fsize(f, b, sizeof(b), f->resolution),
			 per_req_text(f, c, sizeof(c), pr->concern));
	else
		snprintf(f->settle, sizeof(f->settle),
			 "record while the service takes requests (give "
			 "--suspect SIZE/req for how many)");
}

void verdict_decide(struct target_findings *f)
{
	char a[48], b[48], c[48], d[48];
	f->n_reasons = 0;
	f->settle[0] = '\0';

	if (!f->has_trend) {
		f->verdict = VERDICT_INCONCLUSIVE;
		reason(f, "only %zu sample%s over %s: too few for a slope",
		       f->analysed_samples,
		       f->analysed_samples == 1 ? "" : "s",
		       span_text(a, sizeof(a), f->an_span_s));
		settle_window(f);
		return;
	}
	incarnation_reason(f);

	if (f->resolution_basis == RESOLUTION_UNKNOWN) {
		f->verdict = VERDICT_INCONCLUSIVE;
		reason(f, "the %zu readings never changed and share no unit "
		       "(no trailing zeros, not whole pages): what slope they "
		       "could have shown cannot be told", f->analysed_samples);
		snprintf(f->settle, sizeof(f->settle),
			 "give --resolution (the smallest step the source "
			 "could show, e.g. 1GB for a tool that prints whole "
			 "GB), or record longer until the readings change");
		return;
	}
	if (f->resolution_basis == RESOLUTION_SHARED)
		reason(f, "the readings never changed; the unit they share "
		       "puts the resolution at %s (inferred: give "
		       "--resolution if the source could show finer)",
		       fsize(f, a, sizeof(a), f->resolution));

	const struct per_request_finding *pr = &f->per_request;
	if (pr->recorded && pr->known && !(pr->requests > 0)) {
		no_work(f);
		idle_reasons(f);
		diagnosis_reasons(f);
		return;
	}

	const struct periodic_finding *pf = &f->periodic;
	if (pf->found && pf->n_floors < PERIODIC_MIN_CYCLES) {
		f->verdict = VERDICT_INCONCLUSIVE;
		reason(f, "memory cycles about every %s (a collector, or a "
		       "load that comes and goes), swinging by %s; %.1f "
		       "cycles watched, and fewer than %d cannot tell a trend "
		       "from the cycle", span_text(a, sizeof(a), pf->period_s),
		       fsize(f, b, sizeof(b), pf->amplitude), pf->cycles,
		       PERIODIC_MIN_CYCLES);
		trend_reason(f);
		per_request_reason(f);
		idle_reasons(f);
		diagnosis_reasons(f);
		double need = (PERIODIC_MIN_CYCLES + 0.5) * pf->period_s;
		units_format_duration(a, sizeof(a), need);
		units_format_duration(b, sizeof(b), need - f->an_span_s);
		snprintf(f->settle, sizeof(f->settle),
			 "watch >= %d cycles (%s in all, about %s more)",
			 PERIODIC_MIN_CYCLES, a, b);
		return;
	}

	if (f->plateau.found) {
		f->verdict = VERDICT_PLATEAU;
		reason(f, "grew at %s, then held %s since %s: rising then "
		       "holding fits better than a straight line",
		       rate_text(f, a, sizeof(a), f->plateau.early_slope_bph),
		       fsize(f, b, sizeof(b), f->plateau.level),
		       units_format_time(c, sizeof(c), f->plateau.since));
		reason(f, "since then the slope is %s (95 %% interval %s to "
		       "%s): below the slope of concern (%s)",
		       rate_text(f, a, sizeof(a), f->plateau.late.estimate),
		       rate_text(f, b, sizeof(b), f->plateau.late.low),
		       rate_text(f, c, sizeof(c), f->plateau.late.high),
		       rate_text(f, d, sizeof(d), f->concern_bph));
		if (f->plateau.cap_name) {
			double pct = 100 * (1 - f->plateau.level /
					    f->plateau.cap_bytes);
			char where[64];
			if (pct > 0.05)
				snprintf(where, sizeof(where), "%.1f %% below",
					 pct);
			else
				snprintf(where, sizeof(where), "at");
			reason(f, "the level sits %s the %s (%s): retention at "
			       "the cap, not a leak; it stays unless the cap "
			       "is lowered", where, f->plateau.cap_name,
			       fsize(f, a, sizeof(a),
						 f->plateau.cap_bytes));
		} else {
			reason(f, "no known cap near this level: memory that "
			       "stopped growing but is not given back; give "
			       "--cap if the service has one");
		}
		per_request_reason(f);
		idle_reasons(f);
		diagnosis_reasons(f);
		return;
	}

	bool time_grows = f->significant && f->slope.estimate > 0;
	bool per_request_grows = pr->found && pr->significant &&
		pr->slope.estimate > 0 && !(f->significant && f->slope.estimate < 0);
	if (time_grows || per_request_grows) {
		f->verdict = VERDICT_GROWING;
		if (time_grows)
			reason(f, "%s rises %s (95 %% interval %s to %s), %s",
			       f->trend_on_floors ? "the floor of each cycle" :
			       "footprint",
			       rate_text(f, a, sizeof(a), f->slope.estimate),
			       rate_text(f, b, sizeof(b), f->slope.low),
			       rate_text(f, c, sizeof(c), f->slope.high),
			       p_text(d, sizeof(d), f->slope.p));
		else
			reason(f, "footprint grows per request: %s (95 %% "
			       "interval %s to %s), %s, though over time the "
			       "slope cannot be told from zero",
			       per_req_text(f, a, sizeof(a), pr->slope.estimate),
			       per_req_text(f, b, sizeof(b), pr->slope.low),
			       per_req_text(f, c, sizeof(c), pr->slope.high),
			       p_text(d, sizeof(d), pr->slope.p));
		shape_reasons(f);
		if (f->plateau.approaching)
			reason(f, "the growth slows (%s in the first third of "
			       "the window, %s in the last): if it keeps "
			       "slowing this way it levels off near %s -- an "
			       "extrapolation, not a cap",
			       rate_text(f, a, sizeof(a),
					 f->plateau.approach_early_bph),
			       rate_text(f, b, sizeof(b),
					 f->plateau.approach_late_bph),
			       fsize(f, c, sizeof(c),
				     f->plateau.approach_level));
		else if (!f->plateau.candidate)
			reason(f, "no plateau: rising then holding fits no "
			       "better than a straight line");
		if (isfinite(f->concern_bph) && f->slope.estimate < f->concern_bph)
			reason(f, "slower than the slope of concern (%s: %s)",
			       rate_text(f, a, sizeof(a), f->concern_bph),
			       f->concern_source);
		if (f->exhaustion.found && isfinite(f->exhaustion.eta_s))
			reason(f, "at this rate it reaches the %s (%s) in %s",
			       f->exhaustion.limit_source,
			       fsize(f, a, sizeof(a),
						 f->exhaustion.limit_bytes),
			       units_format_duration(b, sizeof(b),
						     f->exhaustion.eta_s));
		if (isfinite(f->exhaustion.requests_left))
			reason(f, "at %s, about %s more requests reach it",
			       per_req_text(f, a, sizeof(a),
					    f->per_request.slope.estimate),
			       units_format_count(b, sizeof(b),
						  f->exhaustion.requests_left));
		per_request_reason(f);
		idle_reasons(f);
		diagnosis_reasons(f);
		return;
	}

	/* Stable needs both: the window could resolve the slope of concern,
	 * and the interval's upper end stays below it -- per request too,
	 * when the work is known. */
	bool per_request_unseen = pr->found && isfinite(pr->concern) &&
		(pr->detectable > pr->concern || pr->slope.high > pr->concern);
	if (!isfinite(f->concern_bph) || f->detectable_bph > f->concern_bph ||
	    f->slope.high > f->concern_bph || per_request_unseen) {
		f->verdict = VERDICT_INCONCLUSIVE;
		reason(f, "this window could not have seen a slope below "
		       "about %s per %s (%s)",
		       fsize(f, a, sizeof(a), f->resolution),
		       span_text(b, sizeof(b), f->an_span_s),
		       rate_text(f, c, sizeof(c), f->detectable_bph));
		if (isfinite(f->concern_bph)) {
			reason(f, "the slope of concern is %s (%s)",
			       rate_text(f, a, sizeof(a), f->concern_bph),
			       f->concern_source);
			reason(f, "the division: resolution %s / %s = %s of "
			       "observation at least",
			       fsize(f, a, sizeof(a), f->resolution),
			       rate_text(f, b, sizeof(b), f->concern_bph),
			       units_format_duration(c, sizeof(c),
				       f->resolution / f->concern_bph * 3600));
		}
		if (per_request_unseen)
			reason(f, "per request it could not have seen less "
			       "than %s, and the slope of concern per request "
			       "is %s",
			       per_req_text(f, a, sizeof(a),
					    fmax(pr->detectable, pr->slope.high)),
			       per_req_text(f, b, sizeof(b), pr->concern));
		trend_reason(f);
		shape_reasons(f);
		per_request_reason(f);
		idle_reasons(f);
		diagnosis_reasons(f);
		settle_window(f);
		return;
	}

	f->verdict = VERDICT_STABLE;
	if (f->significant && f->slope.estimate < 0)
		reason(f, "footprint declines %s, %s",
		       rate_text(f, a, sizeof(a), f->slope.estimate),
		       p_text(b, sizeof(b), f->slope.p));
	else
		trend_reason(f);
	reason(f, "the window could have seen a slope of %s or more; the "
	       "slope of concern is %s (%s)",
	       rate_text(f, a, sizeof(a), f->detectable_bph),
	       rate_text(f, b, sizeof(b), f->concern_bph), f->concern_source);
	shape_reasons(f);
	per_request_reason(f);
	idle_reasons(f);
	diagnosis_reasons(f);
}
