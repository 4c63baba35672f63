/*
 * idle.c - idle windows and the warm-up / idle / active split of growth
 * (idle.h has the rules).
 *
 * Contracts: no I/O; the series is read-only; only the findings' window
 * array outlives a call. Work: one pass over each incarnation for its
 * warm-up end, one for its runs of zero work, one per run for its pieces
 * and one per window for its footprints: O(n) in all. The pieces of a run
 * sit on a stack that merges its top two while they may be merged; every
 * merge removes one, so a run costs O(pieces) and at most that much
 * memory.
 *
 * Does not: judge the windows (the verdict does), look at a restart's drop
 * (the restart analysis does), or smooth the footprint.
 */
#include "idle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void idle_options_default(struct idle_options *o)
{
	o->min_s = IDLE_DEFAULT_MIN_S;
	o->warmup_s = NAN;
	o->resolution = 0;
	o->warmup_ends = NULL;
}

double idle_work_increase(const double *raw, size_t n, double *out)
{
	double total = 0, prev = 0;
	bool seen = false;
	for (size_t i = 0; i < n; i++) {
		double v = raw ? raw[i] : NAN;
		if (!isfinite(v)) {
			out[i] = NAN;
			continue;
		}
		if (seen)
			total += v >= prev ? v - prev : (v > 0 ? v : 0);
		seen = true;
		prev = v;
		out[i] = total;
	}
	return total;
}

/* A stretch of a zero-work run: [a, b] with known = points whose
 * connections are known, zero = of them, those with none. */
struct piece {
	size_t a, b;
	size_t known, zero;
};

struct scan {
	const struct series *s;
	const double *work;
	const double *conn;        /* NULL: not recorded */
	double min_s;
	struct idle_findings *out;
	size_t cap;                /* of out->windows */
	struct piece *stack;
	size_t sn, scap;
};

static bool busy(const struct scan *c, size_t i)
{
	return c->conn && c->conn[i] > 0;   /* NAN: unknown, not busy */
}

/* May the adjacent windows x and y (x before y; the points between them
 * all connected) become one? */
static bool can_merge(const struct scan *c, const struct piece *x,
		      const struct piece *y)
{
	size_t gap = y->a - x->b - 1;
	if (c->s->t[y->a - 1] - c->s->t[x->b + 1] >= IDLE_BRIDGE_MAX_S)
		return false;
	size_t known = x->known + gap + y->known;
	return (double)(x->zero + y->zero) / (double)known >=
	       IDLE_CONN_FRACTION;
}

static void emit(struct scan *c, size_t a, size_t b)
{
	const struct series *s = c->s;
	if (b <= a || !(s->t[b] - s->t[a] >= c->min_s))
		return;
	struct idle_findings *f = c->out;
	xgrow((void **)&f->windows, &c->cap, f->n + 1, sizeof(*f->windows));
	struct idle_window *w = &f->windows[f->n++];
	w->first = a;
	w->last = b;
	w->inc = s->inc ? s->inc[a] : 0;
	w->start = s->t[a];
	w->end = s->t[b];
	w->fp_start = w->fp_end = NAN;
	for (size_t i = a; i <= b; i++)
		if (!isnan(s->footprint[i])) {
			w->fp_start = s->footprint[i];
			break;
		}
	for (size_t i = b + 1; i-- > a;)
		if (!isnan(s->footprint[i])) {
			w->fp_end = s->footprint[i];
			break;
		}
	w->decline = w->fp_start - w->fp_end;
}

/* One run [r0, r1] of known, constant work: split at connected points,
 * merge back what the tolerance allows, emit what is long enough. */
static void scan_run(struct scan *c, size_t r0, size_t r1)
{
	c->sn = 0;
	size_t j = r0;
	while (j <= r1) {
		if (busy(c, j)) {
			j++;
			continue;
		}
		struct piece p = {j, j, 0, 0};
		for (; j <= r1 && !busy(c, j); j++)
			if (c->conn && !isnan(c->conn[j])) {
				p.known++;
				p.zero++;
			}
		p.b = j - 1;
		xgrow((void **)&c->stack, &c->scap, c->sn + 1,
		      sizeof(*c->stack));
		c->stack[c->sn++] = p;
		while (c->sn >= 2 &&
		       can_merge(c, &c->stack[c->sn - 2],
				 &c->stack[c->sn - 1])) {
			struct piece *x = &c->stack[c->sn - 2];
			const struct piece *y = &c->stack[c->sn - 1];
			x->known += (y->a - x->b - 1) + y->known;
			x->zero += y->zero;
			x->b = y->b;
			c->sn--;
		}
	}
	for (size_t k = 0; k < c->sn; k++)
		emit(c, c->stack[k].a, c->stack[k].b);
}

/* End of the warm-up of the incarnation [lo, hi]. */
static double warmup_end(const struct series *s, const double *work,
			 const struct idle_options *o, size_t lo, size_t hi)
{
	double t0 = s->t[lo];
	if (!isnan(o->warmup_s))
		return t0 + (o->warmup_s > 0 ? o->warmup_s : 0);
	uint32_t inc = s->inc ? s->inc[lo] : 0;
	if (o->warmup_ends && isfinite(o->warmup_ends[inc]))
		return o->warmup_ends[inc];
	double end = t0 + IDLE_DEFAULT_WARMUP_S;
	if (!work)
		return end;
	double prev = NAN;
	for (size_t i = lo; i <= hi && s->t[i] < end; i++) {
		if (isnan(work[i]))
			continue;
		if (work[i] > prev)   /* false while prev is NAN */
			return s->t[i];
		prev = work[i];
	}
	return end;
}

/* First point in [from, hi] where v is known; hi + 1 when none. */
static size_t first_known(const double *v, size_t from, size_t hi)
{
	while (from <= hi && isnan(v[from]))
		from++;
	return from;
}

/* Last point in [lo, hi] where v is known; SIZE_MAX when none. */
static size_t last_known(const double *v, size_t lo, size_t hi)
{
	for (size_t i = hi + 1; i-- > lo;)
		if (!isnan(v[i]))
			return i;
	return SIZE_MAX;
}

/* Windows and accounting of the incarnation [lo, hi]. */
static void scan_incarnation(struct scan *c, const struct idle_options *o,
			     size_t lo, size_t hi)
{
	const struct series *s = c->s;
	const double *work = c->work;
	struct idle_findings *f = c->out;
	double end = warmup_end(s, work, o, lo, hi);
	size_t w = lo;
	while (w <= hi && s->t[w] < end)
		w++;

	size_t n_before = f->n;
	if (work && f->work_known) {
		size_t i = w;
		while (i <= hi) {
			if (isnan(work[i])) {
				i++;
				continue;
			}
			size_t r0 = i;
			while (i < hi && !isnan(work[i + 1]) &&
			       work[i + 1] == work[i])
				i++;
			if (i > r0)
				scan_run(c, r0, i);
			i++;
		}
	}

	/* Time. */
	double idle_t = 0, idle_fp = 0;
	for (size_t k = n_before; k < f->n; k++) {
		const struct idle_window *iw = &f->windows[k];
		idle_t += iw->end - iw->start;
		if (!isnan(iw->decline))
			idle_fp += iw->fp_end - iw->fp_start;
	}
	if (w > hi) {
		f->warmup_s += s->t[hi] - s->t[lo];
	} else {
		f->warmup_s += s->t[w] - s->t[lo];
		f->idle_s += idle_t;
		f->active_s += s->t[hi] - s->t[w] - idle_t;
	}

	/* Footprint. */
	size_t f0 = first_known(s->footprint, lo, hi);
	if (f0 <= hi) {
		size_t fl = last_known(s->footprint, lo, hi);
		double net = s->footprint[fl] - s->footprint[f0];
		size_t fw = w <= hi ? first_known(s->footprint, w, hi) : hi + 1;
		double warm = fw <= hi ? s->footprint[fw] - s->footprint[f0] :
					 net;
		f->growth_net += net;
		f->growth_warmup += warm;
		f->growth_idle += idle_fp;
		f->growth_active += net - warm - idle_fp;
	}

	/* Work done in active time (none in idle windows, by their rule). */
	if (work && w <= hi) {
		size_t ww = first_known(work, w, hi);
		if (ww <= hi)
			f->work_active += work[last_known(work, ww, hi)] -
					  work[ww];
	}
}

/* A copy of work where a gap between two equal readings of one
 * incarnation is filled with that reading: the counter is cumulative, so
 * no work can have been done across such a gap (a slow or failed scrape
 * in an idle stretch must not break the window). Gaps at the ends, or
 * between different readings, stay NAN. O(n). Caller frees. */
static double *work_fill_idle_gaps(const struct series *s, const double *work)
{
	size_t n = s->n;
	double *w = xmalloc((n ? n : 1) * sizeof(double));
	memcpy(w, work, n * sizeof(double));
	size_t last = SIZE_MAX;    /* last known point */
	for (size_t i = 0; i < n; i++) {
		if (isnan(w[i]))
			continue;
		if (last != SIZE_MAX && i > last + 1 && w[i] == w[last] &&
		    (!s->inc || s->inc[i] == s->inc[last]))
			for (size_t k = last + 1; k < i; k++)
				w[k] = w[i];
		last = i;
	}
	return w;
}

void idle_findings_compute(const struct series *s, const double *work_in,
			   const struct idle_options *o,
			   struct idle_findings *out)
{
	double *filled = work_in && s->n ? work_fill_idle_gaps(s, work_in) :
			 NULL;
	const double *work = filled ? filled : work_in;
	memset(out, 0, sizeof(*out));
	out->largest_decline = NAN;
	out->largest_decline_index = SIZE_MAX;
	struct idle_options defaults;
	if (!o) {
		idle_options_default(&defaults);
		o = &defaults;
	}
	size_t n = s->n;
	if (work && n) {
		size_t a = first_known(work, 0, n - 1);
		if (a < n) {
			out->work_known = true;
			out->work_total = work[last_known(work, a, n - 1)] -
					  work[a];
		}
	}

	struct scan c = {
		.s = s, .work = work, .conn = s->connections,
		.min_s = o->min_s > 0 ? o->min_s : 0, .out = out,
	};
	for (size_t lo = 0; lo < n;) {
		size_t hi = lo;
		while (hi + 1 < n && s->inc && s->inc[hi + 1] == s->inc[lo])
			hi++;
		if (!s->inc)
			hi = n - 1;
		scan_incarnation(&c, o, lo, hi);
		lo = hi + 1;
	}
	free(c.stack);
	free(filled);

	double res = isfinite(o->resolution) && o->resolution > 0 ?
		     o->resolution : 0;
	for (size_t k = 0; k < out->n; k++) {
		const struct idle_window *iw = &out->windows[k];
		double len = iw->end - iw->start;
		if (len > out->longest_s)
			out->longest_s = len;
		if (isnan(iw->decline))
			continue;
		if (out->largest_decline_index == SIZE_MAX ||
		    iw->decline > out->largest_decline) {
			out->largest_decline = iw->decline;
			out->largest_decline_index = k;
		}
		if (iw->decline > fmax(2 * res, 0.01 * fabs(iw->fp_start)))
			out->released = true;
	}
}

void idle_findings_release(struct idle_findings *f)
{
	free(f->windows);
	memset(f, 0, sizeof(*f));
}
