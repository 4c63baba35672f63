/*
 * render_reason.c - findings in words, in one place (render.h): the
 * reasons behind a verdict and the advice that would settle it (codes
 * and figures from verdict.c, reason.h) as English sentences, and the
 * small formatters every renderer shares (a size, a rate, a duration or a
 * p-value, "n/a" when unknown).
 *
 * Formats only: decides nothing, computes no figure a verdict rests on.
 * Escapes nothing either: a sentence can hold a gauge's name from a CSV
 * header, so each renderer escapes it for its medium. Sentences are built
 * on a stream (open_memstream for a string), never cut to a size.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "units.h"

#define NA "n/a"

/* ---- shared formatters --------------------------------------------- */

char *render_size(char *buf, size_t n, double bytes, bool decimal)
{
	if (!isfinite(bytes)) {
		snprintf(buf, n, NA);
		return buf;
	}
	return units_format_size_in(buf, n, bytes, decimal);
}

/* Binary units with one decimal ("230.7 GiB", "13.4 MiB", "824 B"): the
 * precision the field reports quote, finer than units_format_size's three
 * digits ("231 GiB"). signed_: "+" before a positive figure. "-" for
 * NAN. */
char *render_size1(char *buf, size_t n, double bytes, bool signed_)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB",
					"PiB"};
	if (!isfinite(bytes)) {
		snprintf(buf, n, "-");
		return buf;
	}
	double a = fabs(bytes);
	size_t i = 0;
	while (i + 1 < ARRAY_SIZE(u) && a >= 1023.95) {
		a /= 1024;
		i++;
	}
	const char *sign = bytes < 0 ? "-" : signed_ && bytes > 0 ? "+" : "";
	if (i == 0)
		snprintf(buf, n, "%s%.0f B", sign, a);
	else
		snprintf(buf, n, "%s%.1f %s", sign, a, u[i]);
	if (!strcmp(buf, "-0 B") || !strcmp(buf, "+0 B"))
		snprintf(buf, n, "0 B");
	return buf;
}

char *render_rate(char *buf, size_t n, double bph, bool decimal)
{
	if (!isfinite(bph)) {
		snprintf(buf, n, NA);
		return buf;
	}
	return units_format_slope(buf, n, bph, decimal);
}

char *render_per_request(char *buf, size_t n, double bytes, bool decimal)
{
	if (!isfinite(bytes)) {
		snprintf(buf, n, NA);
		return buf;
	}
	return units_format_per_request(buf, n, bytes, decimal);
}

char *render_duration(char *buf, size_t n, double s)
{
	if (!isfinite(s)) {
		snprintf(buf, n, NA);
		return buf;
	}
	return units_format_duration(buf, n, s);
}

char *render_min_watch(char *buf, size_t n, double s)
{
	if (s >= 0 && s < 1) {
		snprintf(buf, n, "under 1 s");
		return buf;
	}
	return render_duration(buf, n, s);
}

char *render_p_value(char *buf, size_t n, double p, int digits)
{
	if (!isfinite(p))
		snprintf(buf, n, NA);
	else
		snprintf(buf, n, "%.*g", digits, p);
	return buf;
}

/* ---- the sentences ------------------------------------------------- */

/* The figures inside a sentence, as verdicts have always said them: the
 * units' own format (no "n/a" substitute), sizes in the source's units. */
struct words {
	const struct target_findings *f;
	bool dec;
	char b[8][64];             /* one per figure of a sentence */
};

static const char *size_w(struct words *w, int i, double bytes)
{
	return units_format_size_in(w->b[i], sizeof(w->b[i]), bytes, w->dec);
}

static const char *rate_w(struct words *w, int i, double bph)
{
	return units_format_slope(w->b[i], sizeof(w->b[i]), bph, w->dec);
}

static const char *per_req_w(struct words *w, int i, double bytes)
{
	return units_format_per_request(w->b[i], sizeof(w->b[i]), bytes,
					w->dec);
}

static const char *count_w(struct words *w, int i, double count)
{
	return units_format_count(w->b[i], sizeof(w->b[i]), count);
}

static const char *dur_w(struct words *w, int i, double s)
{
	return units_format_duration(w->b[i], sizeof(w->b[i]), s);
}

/* A step as --step takes it back: "15s", "0.5s". */
static const char *step_w(struct words *w, int i, double s)
{
	snprintf(w->b[i], sizeof(w->b[i]), "%gs", s);
	return w->b[i];
}

static const char *time_w(struct words *w, int i, double t)
{
	return units_format_time(w->b[i], sizeof(w->b[i]), t);
}

/* A span: seconds under an hour, else the duration. */
static const char *span_w(struct words *w, int i, double s)
{
	if (s < 3600) {
		snprintf(w->b[i], sizeof(w->b[i]), "%.0f s", s);
		return w->b[i];
	}
	return dur_w(w, i, s);
}

static const char *p_w(struct words *w, int i, double p)
{
	if (p < 1e-6)
		snprintf(w->b[i], sizeof(w->b[i]), "p < 1e-6");
	else
		snprintf(w->b[i], sizeof(w->b[i]), "p = %.2g", p);
	return w->b[i];
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The noise clause: nothing when the analysis marked the figures absent
 * (readings that never change or lie on the line: no noise to wander). */
/* "incarnation 3 warmed up for 16 min (95 % 15 min to 17 min) to 202.7
 * GiB; the slope is taken after it (a warm-up found in 31 of 32
 * incarnations)". */
static void say_warmup(FILE *out, struct words *w, const struct reason *r)
{
	if (r->u.warmup.given) {
		fprintf(out, "--warmup: the slope is taken after the first %s "
			"of incarnation %zu", dur_w(w, 0, r->u.warmup.duration_s),
			r->u.warmup.inc);
		return;
	}
	fprintf(out, "incarnation %zu warmed up for %s", r->u.warmup.inc,
		dur_w(w, 0, r->u.warmup.duration_s));
	dur_w(w, 1, r->u.warmup.low_s);
	dur_w(w, 2, r->u.warmup.high_s);
	if (strcmp(w->b[1], w->b[2]))   /* an interval wider than shown */
		fprintf(out, " (95 %% interval %s to %s)", w->b[1], w->b[2]);
	fprintf(out, " to %s; the slope is taken after it",
		size_w(w, 3, r->u.warmup.level));
	if (r->u.warmup.of > 1)
		fprintf(out, " (a warm-up found in %zu of %zu incarnations)",
			r->u.warmup.found, r->u.warmup.of);
}

/* "each incarnation grows +60 MiB/h (95 % interval +52 to +68 MiB/h,
 * p < 1e-6) over 32 incarnations after their warm-ups; ..." */
static void say_pooled(FILE *out, struct words *w, const struct reason *r)
{
	const struct slope *sl = &r->u.pooled.slope;
	bool grows = sl->low > 0;
	fprintf(out, "each incarnation %s %s (95 %% interval %s to %s, %s) "
		"over %zu incarnations after their warm-ups, pooled (random "
		"effects); they live about %s", grows ? "grows" : "changes by",
		rate_w(w, 0, sl->estimate), rate_w(w, 1, sl->low),
		rate_w(w, 2, sl->high), p_w(w, 3, sl->p),
		r->u.pooled.incarnations, dur_w(w, 4, r->u.pooled.life_s));
	if (r->u.pooled.spread_bph > 0)
		fprintf(out, ", their slopes spread by %s",
			rate_w(w, 5, r->u.pooled.spread_bph));
	if (isfinite(r->u.pooled.given_back_bph))
		fprintf(out, "; the restarts gave back %s of settled life",
			rate_w(w, 6, r->u.pooled.given_back_bph));
}

static void say_trend(FILE *out, struct words *w, const struct reason *r)
{
	double ct = r->u.trend.corr_time_s, vi = r->u.trend.inflation;
	fprintf(out, "%sTheil-Sen slope %s (95 %% interval %s to %s), trend "
		"test %s", r->u.trend.on_floors ? "cycle floors: " :
		r->u.trend.between_steps ? "between the steps: " : "",
		rate_w(w, 0, r->u.trend.slope.estimate),
		rate_w(w, 1, r->u.trend.slope.low),
		rate_w(w, 2, r->u.trend.slope.high),
		p_w(w, 3, r->u.trend.slope.p));
	if (!(ct >= 0))
		return;
	if (ct == 0) {
		fputs("; the readings vary independently", out);
		return;
	}
	if (isinf(ct))
		fputs("; the readings wander together over longer than the "
		      "window", out);
	else
		fprintf(out, "; the readings wander together over about %s",
			span_w(w, 4, ct));
	if (vi >= 1)
		fprintf(out, ", which widens the interval x%.3g", sqrt(vi));
}

static void say_steps(FILE *out, struct words *w, const struct reason *r)
{
	size_t n = r->u.steps.count;
	fprintf(out, "%zu step%s in the footprint: ", n, plural(n));
	for (size_t i = 0; i < r->u.steps.shown; i++) {
		double c = r->u.steps.change[i];
		fprintf(out, "%s%s%s at %s", i ? ", " : "", c > 0 ? "+" : "",
			size_w(w, 0, c), time_w(w, 1, r->u.steps.time[i]));
	}
	if (n > REASON_STEPS_SHOWN)
		fputs(", ...", out);
}

/* The gauges counted, from the findings (names raw, at most 48 bytes). */
static void say_attribution(FILE *out, struct words *w,
			    const struct reason *r)
{
	const struct attribution_finding *at = &w->f->attribution;
	fprintf(out, "the gauges explain %s of %s growth (",
		size_w(w, 0, r->u.attribution.explained),
		size_w(w, 1, r->u.attribution.growth));
	bool first = true;
	for (size_t i = 0; i < at->n; i++) {
		const struct attribution_item *it = &at->items[i];
		if (!it->counted)
			continue;
		fprintf(out, "%s%.48s %s", first ? "" : ", ", it->name,
			size_w(w, 0, it->explained));
		first = false;
	}
	fprintf(out, "); %s unattributed",
		size_w(w, 0, r->u.attribution.unattributed));
}

const char *render_incarnation_name(char *buf, size_t n,
				    const struct series *s, size_t inc)
{
	assert(n > 0);
	const struct incarnation *in = inc < s->n_incs ? &s->incs[inc] : NULL;
	if (in && in->pid >= 0)
		snprintf(buf, n, "pid %lld", (long long)in->pid);
	else if (in && in->comm && *in->comm)
		snprintf(buf, n, "%s", in->comm);
	else
		snprintf(buf, n, "incarnation %zu", inc + 1);
	return buf;
}

const char *render_incarnation_pair(char *buf, size_t n,
				    const struct series *s, size_t from,
				    size_t to)
{
	if (from < s->n_incs && to < s->n_incs && s->incs[from].pid >= 0 &&
	    s->incs[to].pid >= 0) {
		snprintf(buf, n, "pid %lld -> %lld",
			 (long long)s->incs[from].pid,
			 (long long)s->incs[to].pid);
	} else {
		char a[128], b[128];
		snprintf(buf, n, "%s -> %s",
			 render_incarnation_name(a, sizeof(a), s, from),
			 render_incarnation_name(b, sizeof(b), s, to));
	}
	return buf;
}

static void say_restart(FILE *out, struct words *w, const struct reason *r)
{
	double rec = r->u.restart.recovered;
	fprintf(out, "the restart at %s ", time_w(w, 0, r->u.restart.time));
	if (rec >= 0)
		fprintf(out, "released %s", size_w(w, 1, rec));
	else
		fprintf(out, "ended %s higher", size_w(w, 1, -rec));
	char pair[288];
	fprintf(out, " (%s: %s before, %s after warm-up, by the %s)",
		render_incarnation_pair(pair, sizeof(pair), w->f->series,
					r->u.restart.old_inc,
					r->u.restart.new_inc),
		size_w(w, 2, r->u.restart.before),
		size_w(w, 3, r->u.restart.after), r->u.restart.floor_rule);
}

static void say_cap(FILE *out, struct words *w, const struct reason *r)
{
	double pct = 100 * (1 - r->u.cap.level / r->u.cap.cap_bytes);
	fputs("the level sits ", out);
	if (pct > 0.05)
		fprintf(out, "%.1f %% below", pct);
	else
		fputs("at", out);
	fprintf(out, " the %s (%s): retention at the cap, not a leak; it "
		"stays unless the cap is lowered", r->u.cap.name,
		size_w(w, 0, r->u.cap.cap_bytes));
}

/* Issue 28: "grew 8 KiB, then held -- below anything that matters
 * (2 steps of 4 KiB: ...)" or "grows +0.9 MiB/h (...) -- below anything
 * that matters: ...". */
static void say_immaterial(FILE *out, struct words *w,
			   const struct reason *r)
{
	const struct reason_immaterial *m = &r->u.immaterial;
	bool per_req = m->what == MATERIALITY_PER_REQUEST;
	const char *(*rt)(struct words *, int, double) =
		per_req ? per_req_w : rate_w;
	if (m->what == MATERIALITY_PLATEAU) {
		fprintf(out, "grew %s, then held -- below anything that "
			"matters: a few resolution steps (%.0f of %s; up "
			"to %.0f are)", size_w(w, 0, m->amount),
			round(m->amount / m->resolution),
			size_w(w, 1, m->resolution), MATERIAL_STEPS);
		return;
	}
	fprintf(out, "%s %s (95 %% interval %s to %s) -- below anything "
		"that matters: ", per_req ? "grows per request" :
		m->what == MATERIALITY_POOLED ? "each incarnation grows" :
		"grows", rt(w, 0, m->slope.estimate),
		rt(w, 1, m->slope.low), rt(w, 2, m->slope.high));
	if (m->how == IMMATERIAL_STEPS)
		fprintf(out, "%s in all, a few resolution steps (%.0f of "
			"%s; up to %.0f are), and the interval's upper end "
			"is below the slope of concern (%s)",
			size_w(w, 3, m->amount),
			fmax(0, round(m->amount / m->resolution)),
			size_w(w, 4, m->resolution), MATERIAL_STEPS,
			rt(w, 5, m->concern));
	else
		fprintf(out, "even the interval's upper end is under 1/%.0f "
			"of the slope of concern (%s): at it, a year to use "
			"what the concern uses in 30 days",
			1 / MATERIAL_FAR_BELOW, rt(w, 3, m->concern));
}

static void say_gpu(FILE *out, struct words *w, const struct reason *r)
{
	fprintf(out, "GPU memory (device-local) is %s",
		size_w(w, 0, r->u.gpu.last));
	if (isfinite(r->u.gpu.share))
		fprintf(out, ", %.0f %% of the footprint",
			100 * r->u.gpu.share);
	if (r->u.gpu.changed)
		fprintf(out, "; it changed by %s of the footprint's %s",
			size_w(w, 1, r->u.gpu.growth),
			size_w(w, 2, r->u.gpu.footprint_growth));
	else
		fputs("; it did not change by the resolution or more", out);
}

int render_reason(FILE *out, const struct target_findings *f,
		  const struct reason *r)
{
	struct words w = {.f = f, .dec = f->decimal_units};
	switch (r->code) {
	case REASON_TOO_FEW:
		fprintf(out, "only %zu sample%s over %s: too few for a slope",
			r->u.too_few.samples, plural(r->u.too_few.samples),
			span_w(&w, 0, r->u.too_few.span_s));
		break;
	case REASON_RESOLUTION_UNKNOWN:
		fprintf(out, "the %zu readings never changed and share no "
			"unit (no trailing zeros, not whole pages): what "
			"slope they could have shown cannot be told",
			r->u.samples);
		break;
	case REASON_RESOLUTION_SHARED:
		fprintf(out, "the readings never changed; the unit they share "
			"puts the resolution at %s (inferred: give "
			"--resolution if the source could show finer)",
			size_w(&w, 0, r->u.size));
		break;
	case REASON_NO_WORK:
		fprintf(out, "no work was done in the window: the requests "
			"counter did not increase over %s, so memory that "
			"grows per request cannot show, whatever the time "
			"slope says", span_w(&w, 0, r->u.duration));
		break;
	case REASON_CYCLES_TOO_FEW:
		fprintf(out, "memory cycles about every %s (a collector, or a "
			"load that comes and goes), swinging by %s; %.1f "
			"cycles watched, and fewer than %d cannot tell a "
			"trend from the cycle",
			span_w(&w, 0, r->u.cycles.period_s),
			size_w(&w, 1, r->u.cycles.swing),
			r->u.cycles.watched, r->u.cycles.needed);
		break;
	case REASON_CYCLES:
		fprintf(out, "memory cycles about every %s, swinging by %s: "
			"the trend is taken from the lowest reading of each "
			"of the %zu whole cycles, what persists across them",
			span_w(&w, 0, r->u.cycles.period_s),
			size_w(&w, 1, r->u.cycles.swing), r->u.cycles.whole);
		break;
	case REASON_PLATEAU_GREW:
		fprintf(out, "grew at %s, then held %s since %s: rising then "
			"holding fits better than a straight line",
			rate_w(&w, 0, r->u.plateau.early_bph),
			size_w(&w, 1, r->u.plateau.level),
			time_w(&w, 2, r->u.plateau.since));
		break;
	case REASON_PLATEAU_LATE:
		if (r->u.late.held_by == PLATEAU_HELD_FLAT) {
			fprintf(out, "since then %zu readings over %s stayed "
				"within one resolution: any slope above %s "
				"would have moved them, below the slope of "
				"concern (%s)", r->u.late.flat_readings,
				span_w(&w, 0, r->u.late.flat_span_s),
				rate_w(&w, 1, r->u.late.late.high),
				rate_w(&w, 2, r->u.late.concern_bph));
		} else if (r->u.late.held_by == PLATEAU_HELD_REQUESTS) {
			fprintf(out, "since then, over %s requests, %s per "
				"request (95 %% interval %s to %s): below the "
				"per-request concern (%s), although too short "
				"to rule out the slope of concern per hour (%s)",
				count_w(&w, 0, r->u.late.requests),
				per_req_w(&w, 1, r->u.late.per_req.estimate),
				per_req_w(&w, 2, r->u.late.per_req.low),
				per_req_w(&w, 3, r->u.late.per_req.high),
				per_req_w(&w, 4, r->u.late.concern_per_req),
				rate_w(&w, 5, r->u.late.concern_bph));
		} else {
			fprintf(out, "since then the slope is %s (95 %% "
				"interval %s to %s): below the slope of "
				"concern (%s)",
				rate_w(&w, 0, r->u.late.late.estimate),
				rate_w(&w, 1, r->u.late.late.low),
				rate_w(&w, 2, r->u.late.late.high),
				rate_w(&w, 3, r->u.late.concern_bph));
		}
		break;
	case REASON_PLATEAU_AT_CAP:
		say_cap(out, &w, r);
		break;
	case REASON_PLATEAU_NO_CAP:
		fputs("no known cap near this level: memory that stopped "
		      "growing but is not given back; give --cap if the "
		      "service has one", out);
		break;
	case REASON_RISES:
		fprintf(out, "%s rises %s (95 %% interval %s to %s), %s",
			r->u.trend.on_floors ? "the floor of each cycle" :
			r->u.trend.between_steps ?
			"footprint between the steps" : "footprint", rate_w(&w, 0, r->u.trend.slope.estimate),
			rate_w(&w, 1, r->u.trend.slope.low),
			rate_w(&w, 2, r->u.trend.slope.high),
			p_w(&w, 3, r->u.trend.slope.p));
		break;
	case REASON_GROWS_PER_REQUEST:
		fprintf(out, "footprint grows per request: %s (95 %% interval "
			"%s to %s), %s, though over time the slope cannot be "
			"told from zero", per_req_w(&w, 0, r->u.slope.estimate),
			per_req_w(&w, 1, r->u.slope.low),
			per_req_w(&w, 2, r->u.slope.high),
			p_w(&w, 3, r->u.slope.p));
		break;
	case REASON_APPROACH:
		fprintf(out, "the growth slows (%s in the first third of the "
			"window, %s in the last): if it keeps slowing this way "
			"it levels off near %s -- an extrapolation, not a cap",
			rate_w(&w, 0, r->u.approach.early_bph),
			rate_w(&w, 1, r->u.approach.late_bph),
			size_w(&w, 2, r->u.approach.level));
		break;
	case REASON_NO_PLATEAU:
		fputs("no plateau: rising then holding fits no better than a "
		      "straight line", out);
		break;
	case REASON_SLOWER_THAN_CONCERN:
		fprintf(out, "slower than the slope of concern (%s: %s)",
			rate_w(&w, 0, r->u.rate), f->concern_source);
		break;
	case REASON_EXHAUSTION:
		/* Issue 28: a GPU fills before host memory runs out. */
		if (r->u.exhaustion.pool >= 0 &&
		    (size_t)r->u.exhaustion.pool < f->n_pools &&
		    f->pools[r->u.exhaustion.pool].kind == POOL_GPU) {
			fprintf(out, "at this rate %s fills in %s (%s left "
				"to it)",
				f->pools[r->u.exhaustion.pool].name,
				dur_w(&w, 1, r->u.exhaustion.eta_s),
				size_w(&w, 0, r->u.exhaustion.limit -
				       f->pools[r->u.exhaustion.pool].last));
			break;
		}
		fprintf(out, "at this rate it reaches the %s (%s) in %s",
			r->u.exhaustion.limit_source,
			size_w(&w, 0, r->u.exhaustion.limit),
			dur_w(&w, 1, r->u.exhaustion.eta_s));
		break;
	case REASON_REQUESTS_LEFT:
		fprintf(out, "at %s, about %s more requests reach it",
			per_req_w(&w, 0, r->u.requests_left.per_request),
			count_w(&w, 1, r->u.requests_left.requests));
		break;
	case REASON_UNSEEN: {
		/* One step of the resolution over the window is the floor;
		 * when the readings' wander makes the detectable slope
		 * larger, say that, not "a step per span" beside a rate
		 * it does not equal. */
		double step_bph = r->u.unseen.resolution /
				  r->u.unseen.span_s * 3600;
		if (!(r->u.unseen.detectable_bph > 1.05 * step_bph))
			fprintf(out, "this window could not have seen a slope "
				"below about %s per %s (%s)",
				size_w(&w, 0, r->u.unseen.resolution),
				span_w(&w, 1, r->u.unseen.span_s),
				rate_w(&w, 2, r->u.unseen.detectable_bph));
		else
			fprintf(out, "this window could not have seen a slope "
				"below about %s: the readings wander more than "
				"one step of %s in %s (%s) would show",
				rate_w(&w, 0, r->u.unseen.detectable_bph),
				size_w(&w, 1, r->u.unseen.resolution),
				span_w(&w, 2, r->u.unseen.span_s),
				rate_w(&w, 3, step_bph));
		break;
	}
	case REASON_CONCERN:
		fprintf(out, "the slope of concern is %s (%s)",
			rate_w(&w, 0, r->u.rate), f->concern_source);
		break;
	case REASON_DIVISION:
		fprintf(out, "the division: resolution %s / %s = %s of "
			"observation at least%s",
			size_w(&w, 0, r->u.division.resolution),
			rate_w(&w, 1, r->u.division.concern_bph),
			r->u.division.min_s < 1 ? "under 1 s" :
			dur_w(&w, 2, r->u.division.min_s),
			r->u.division.min_s < 1 ? " (the resolution is no "
			"limit here: the noise is)" : "");
		break;
	case REASON_UNSEEN_PER_REQUEST:
		fprintf(out, "per request it could not have seen less than %s, "
			"and the slope of concern per request is %s",
			per_req_w(&w, 0, r->u.unseen_per_request.seen),
			per_req_w(&w, 1, r->u.unseen_per_request.concern));
		break;
	case REASON_DECLINES:
		fprintf(out, "footprint declines %s, %s",
			rate_w(&w, 0, r->u.trend.slope.estimate),
			p_w(&w, 1, r->u.trend.slope.p));
		break;
	case REASON_DETECTABLE:
		fprintf(out, "over %s (%s samples",
			span_w(&w, 2, r->u.detectable.span_s),
			count_w(&w, 3, (double)r->u.detectable.samples));
		if (isfinite(r->u.detectable.requests))
			fprintf(out, ", %s requests",
				count_w(&w, 4, r->u.detectable.requests));
		else
			fputs(", work not recorded", out);
		fprintf(out, ") the window could have seen a slope of %s or "
			"more; the slope of concern is %s (%s)",
			rate_w(&w, 0, r->u.detectable.detectable_bph),
			rate_w(&w, 1, r->u.detectable.concern_bph),
			f->concern_source);
		break;
	case REASON_WINDOW_SHORT:
		fprintf(out, "no growth%s in this window (%s, %s samples; its "
			"work was not recorded): too short to call stable "
			"-- growth that comes with the service's usual work "
			"or its slower cycles (caches filling, collections, "
			"load that comes and goes) need not show in it; it "
			"could have seen a slope of %s or more",
			f->immaterial ? " that matters" : "",
			span_w(&w, 0, r->u.detectable.span_s),
			count_w(&w, 1, (double)r->u.detectable.samples),
			rate_w(&w, 2, r->u.detectable.detectable_bph));
		break;
	case REASON_TREND:
		say_trend(out, &w, r);
		break;
	case REASON_INCARNATIONS: {
		char who[160];
		fprintf(out, "%zu incarnations (restarts); the slope is taken "
			"from incarnation %zu (%s, %zu samples), never "
			"across a restart", r->u.incarnations.count,
			r->u.incarnations.analysed,
			render_incarnation_name(who, sizeof(who), f->series,
						r->u.incarnations.analysed - 1),
			r->u.incarnations.samples);
		break;
	}
	case REASON_LEVEL_REJECTED:
		fprintf(out, "it levelled off at %s since %s, but %s: not a "
			"plateau", size_w(&w, 0, r->u.rejected.level),
			time_w(&w, 1, r->u.rejected.since),
			plateau_reject_text(r->u.rejected.why));
		break;
	case REASON_PER_REQUEST_NO_READINGS:
		fputs("the work counter gave no readings in the window (see "
		      "the notes): no per-request slope", out);
		break;
	case REASON_PER_REQUEST:
		fprintf(out, "per request: %s (95 %% interval %s to %s) over "
			"%s requests%s, %s; detectable %s",
			per_req_w(&w, 0, r->u.per_request.slope.estimate),
			per_req_w(&w, 1, r->u.per_request.slope.low),
			per_req_w(&w, 2, r->u.per_request.slope.high),
			count_w(&w, 3, r->u.per_request.requests),
			r->u.per_request.after_warmup ?
				" after the warm-up" : "",
			p_w(&w, 4, r->u.per_request.slope.p),
			per_req_w(&w, 5, r->u.per_request.detectable));
		break;
	case REASON_IDLE_NONE:
		fprintf(out, "no idle window (>= %s without requests%s) in the "
			"recording", span_w(&w, 0, r->u.idle_none.min_s),
			r->u.idle_none.connections ? " and connections" : "");
		break;
	case REASON_IDLE_RELEASED:
		fprintf(out, "%zu idle window%s (longest %s): memory was "
			"released while idle (up to %s)", r->u.idle.windows,
			plural(r->u.idle.windows),
			dur_w(&w, 0, r->u.idle.longest_s),
			size_w(&w, 1, r->u.idle.decline));
		break;
	case REASON_IDLE_KEPT:
		fprintf(out, "%zu idle window%s (longest %s): nothing was "
			"released while idle (largest decline %s)",
			r->u.idle.windows, plural(r->u.idle.windows),
			dur_w(&w, 0, r->u.idle.longest_s),
			size_w(&w, 1, r->u.idle.decline));
		break;
	case REASON_IDLE_ROSE:
		fprintf(out, "memory rose by up to %s in %zu idle window%s, "
			"without requests: a start-up or background work, not "
			"memory kept from requests",
			size_w(&w, 0, r->u.idle_rose.most),
			r->u.idle_rose.windows, plural(r->u.idle_rose.windows));
		break;
	case REASON_GROWTH_SPLIT:
		fprintf(out, "net growth %s: %s while requests ran, %s in idle "
			"windows, %s during start-up",
			size_w(&w, 0, r->u.growth.net),
			size_w(&w, 1, r->u.growth.active),
			size_w(&w, 2, r->u.growth.idle),
			size_w(&w, 3, r->u.growth.warmup));
		break;
	case REASON_RESTARTS_TOTAL:
		fprintf(out, "%zu restarts gave back %s in all",
			r->u.restarts.count,
			size_w(&w, 0, r->u.restarts.recovered));
		break;
	case REASON_RESTART:
		say_restart(out, &w, r);
		break;
	case REASON_STEPS:
		say_steps(out, &w, r);
		break;
	case REASON_ATTRIBUTION:
		say_attribution(out, &w, r);
		break;
	case REASON_GPU:
		say_gpu(out, &w, r);
		break;
	case REASON_WORK_NOT_COUNTER:
		fprintf(out, "the work series is not a counter: it went down "
			"in %s of %s readings (%.1f %%) outside restarts",
			count_w(&w, 0, (double)r->u.work.decreases),
			count_w(&w, 1, (double)r->u.work.readings),
			100 * r->u.work.share);
		fputs(r->u.work.used ? "; read as one all the same "
		      "(--work-is-counter)" : "; no per-request slope, idle "
		      "windows or request count are drawn from it "
		      "(--work-is-counter to read it as a counter anyway)",
		      out);
		break;
	case REASON_WARMUP:
		say_warmup(out, &w, r);
		break;
	case REASON_IMMATERIAL:
		say_immaterial(out, &w, r);
		break;
	case REASON_POOLED:
		say_pooled(out, &w, r);
		break;
	case REASON_CODE_COUNT:    /* the count, never a reason */
		assert(!"REASON_CODE_COUNT is no reason");
		break;
	}
	return ferror(out) ? -1 : 0;
}

int render_settle(FILE *out, const struct target_findings *f)
{
	const struct settle *st = &f->settle;
	struct words w = {.f = f, .dec = f->decimal_units};
	switch (st->code) {
	case SETTLE_NONE:
	case SETTLE_CODE_COUNT:    /* the count, never advice */
		return 0;
	case SETTLE_NO_CONCERN:
		fputs("record longer; give --limit or --suspect so the slope "
		      "of concern is known", out);
		break;
	case SETTLE_WINDOW:
		fprintf(out, "watch >= %s in all (about %s more) at resolution "
			"%s to see a slope of %s", dur_w(&w, 0, st->need_s),
			dur_w(&w, 1, st->more_s),
			size_w(&w, 2, st->resolution),
			rate_w(&w, 3, st->concern_bph));
		break;
	case SETTLE_RESOLUTION:
		fputs("give --resolution (the smallest step the source could "
		      "show, e.g. 1GB for a tool that prints whole GB), or "
		      "record longer until the readings change", out);
		break;
	case SETTLE_CYCLES:
		fprintf(out, "watch >= %d cycles (%s in all, about %s more)",
			st->cycles, dur_w(&w, 0, st->need_s),
			dur_w(&w, 1, st->more_s));
		break;
	case SETTLE_WORK:
		fprintf(out, "record while the service takes requests: >= %s "
			"requests at resolution %s to see %s",
			count_w(&w, 0, st->requests),
			size_w(&w, 1, st->resolution),
			per_req_w(&w, 2, st->concern_per_request));
		break;
	case SETTLE_WORK_UNSIZED:
		fputs("record while the service takes requests (give "
		      "--suspect SIZE/req for how many)", out);
		break;
	case SETTLE_SHORT_WINDOW:
		fprintf(out, "watch >= %s in all (about %s more) while the "
			"service takes its usual work; or record its work "
			"counter with it (--work, --work-log or --work-cmd)", dur_w(&w, 0, st->need_s),
			dur_w(&w, 1, st->more_s));
		break;
	case SETTLE_STEP:
		/* Prometheus' readings at a step coarser than the data:
		 * watching longer is not the cure, a finer step is. */
		if (isfinite(st->data_step_s))
			fprintf(out, "use --step %s, the data's own interval "
				"(at --step %s: %zu sample%s over %s)",
				step_w(&w, 0, st->data_step_s),
				step_w(&w, 1, st->step_s),
				f->analysed_samples,
				f->analysed_samples == 1 ? "" : "s",
				dur_w(&w, 2, f->an_span_s));
		else
			fprintf(out, "use a finer --step, down to the data's "
				"scrape interval (at --step %s: %zu sample%s "
				"over %s), or a longer --range",
				step_w(&w, 0, st->step_s),
				f->analysed_samples,
				f->analysed_samples == 1 ? "" : "s",
				dur_w(&w, 1, f->an_span_s));
		break;
	case SETTLE_RESTARTS:
		fprintf(out, "incarnations live about %s, shorter than the %s "
			"one would need to see a slope of %s: ",
			dur_w(&w, 0, st->life_s), dur_w(&w, 1, st->need_s),
			rate_w(&w, 2, st->concern_bph));
		if (isfinite(st->restarts))
			fprintf(out, "about %s more restart%s, pooled, would "
				"decide", count_w(&w, 3, st->restarts),
				st->restarts == 1 ? "" : "s");
		else
			fputs("more restarts, each with readings after its "
			      "warm-up, pooled, would decide", out);
		break;
	}
	if ((st->code == SETTLE_NO_CONCERN || st->code == SETTLE_WINDOW ||
	     st->code == SETTLE_RESTARTS) &&
	    st->requests_more > 0)
		fprintf(out, "; or >= %s requests more (to see %s)",
			count_w(&w, 0, st->requests_more),
			per_req_w(&w, 1, st->concern_per_request));
	return ferror(out) ? -1 : 0;
}

/* Like the allocators of common.c: no memory for a sentence is fatal. */
static _Noreturn void oom(void)
{
	error("out of memory formatting a reason");
	abort();
}

/* What a writer into a FILE says, as a string of its own. */
static char *to_string(int (*say)(FILE *, const struct target_findings *,
				  const void *),
		       const struct target_findings *f, const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		oom();
	int rc = say(m, f, arg);
	if (fclose(m) != 0 || rc != 0 || !text)
		oom();
	return text;
}

static int say_reason(FILE *out, const struct target_findings *f,
		      const void *r)
{
	return render_reason(out, f, r);
}

static int say_settle(FILE *out, const struct target_findings *f,
		      const void *unused)
{
	(void)unused;
	return render_settle(out, f);
}

char *render_reason_string(const struct target_findings *f,
			   const struct reason *r)
{
	return to_string(say_reason, f, r);
}

char *render_settle_string(const struct target_findings *f)
{
	if (f->settle.code == SETTLE_NONE)
		return NULL;
	return to_string(say_settle, f, NULL);
}
