/*
 * status_sink.c - the status line as a sink (status_sink.h).
 *
 * Which target is "the first": the recorder's ids are given in the order
 * targets appear, and the targets named on the command line (-p, --name,
 * a command) are declared before any other, so the first is id 1; its
 * --children tree is the "tree" declared with parent 1. --all has no
 * first target worth a line (the lowest pid): its line sums the host.
 */
#include "status_sink.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "live.h"
#include "render.h"
#include "stats.h"

#define SLOPE_EVERY_S 2.0

struct status_sink {
	FILE *out;
	bool all;
	bool drawn;
	uint64_t samples;          /* process samples so far */
	int64_t first;             /* the target the line follows */
	struct live_series *live;  /* of that target's footprint */
	int64_t inc;               /* its incarnation in the live series */
	double footprint;          /* the latest, NAN before one */
	double slope_bph;          /* NAN before 3 points */
	double next_slope;         /* monotonic */
	/* scratch for the slope, STATUS_POINTS + 1 each */
	double *x, *y;
};

static int st_begin(void *ctx, const struct sink_run *run)
{
	struct status_sink *s = ctx;
	s->all = run->all;
	return 0;
}

static void st_event(void *ctx, const struct sample_event *e)
{
	struct status_sink *s = ctx;
	if (e->kind != SAMPLE_TARGET)
		return;
	const struct sample_target *x = e->u.target;
	if (x->id == 1)
		s->first = 1;
	else if (x->parent == 1 && strcmp(x->kind, "tree") == 0)
		s->first = x->id;  /* the tree's sum, as the report shows */
}

/* Theil-Sen over the live series' points (a snapshot: the kept points
 * and the newest sample), in bytes per hour. */
static void slope_update(struct status_sink *s)
{
	struct series sr;
	live_snapshot(s->live, &sr);
	size_t n = 0;
	for (size_t i = 0; i < sr.n && n < STATUS_POINTS + 1; i++) {
		if (!isfinite(sr.footprint[i]))
			continue;
		s->x[n] = sr.t[i] - sr.t[0];
		s->y[n] = sr.footprint[i];
		n++;
	}
	series_release(&sr);
	struct trend_result tr;
	if (n >= 3 && stats_trend_compute(s->x, s->y, n, &tr) == 0)
		s->slope_bph = tr.slope * 3600;
}

static void st_frame(void *ctx, const struct sample_frame *f)
{
	struct status_sink *s = ctx;
	if (f->last)
		return;
	size_t processes = 0;
	double total = 0, top = NAN;
	const char *top_name = NULL;
	for (size_t i = 0; i < f->n_procs; i++) {
		const struct sample_proc *p = &f->procs[i];
		bool sum = !strcmp(p->kind, "tree") ||
			   !strcmp(p->kind, "group");
		if (!sum)
			s->samples++;
		double fp = p->mem->footprint;
		if (s->all && !strcmp(p->kind, "process") && isfinite(fp)) {
			processes++;
			total += fp;
			if (!(fp <= top)) {
				top = fp;
				top_name = p->name;
			}
		}
		if (p->target != s->first || !s->first)
			continue;
		s->footprint = fp;
		if (!isfinite(fp))
			continue;
		if (p->inc != s->inc) {
			const struct proc_identity *id = p->ident;
			live_incarnation(s->live, id->pid, id->start_ticks,
					 id->start_time, id->comm,
					 id->cmdline);
			s->inc = p->inc;
		}
		struct live_sample x = {.t = f->t, .footprint = fp};
		for (int c = 0; c < COMP_COUNT; c++)
			x.comp[c] = NAN;
		live_append(s->live, &x);
	}
	if (s->all) {
		render_status_line_all(s->out, f->elapsed_s, s->samples,
				       processes, processes ? total : NAN,
				       top_name, top);
	} else {
		if (f->mono >= s->next_slope && live_count(s->live) >= 3) {
			s->next_slope = f->mono + SLOPE_EVERY_S;
			slope_update(s);
		}
		render_status_line(s->out, f->elapsed_s, s->samples,
				   f->n_roots, s->footprint, s->slope_bph);
	}
	s->drawn = true;
}

static const struct sink_ops status_ops = {
	.begin = st_begin,
	.event = st_event,
	.frame = st_frame,
};

struct status_sink *status_sink_new(FILE *out)
{
	assert(out);
	struct status_sink *s = xcalloc(1, sizeof(*s));
	s->out = out;
	s->live = live_new_sized("status", STATUS_POINTS, 0);
	s->footprint = NAN;
	s->slope_bph = NAN;
	s->next_slope = -INFINITY;
	s->x = xcalloc(STATUS_POINTS + 1, sizeof(*s->x));
	s->y = xcalloc(STATUS_POINTS + 1, sizeof(*s->y));
	return s;
}

struct sink status_sink_sink(struct status_sink *s)
{
	return (struct sink){&status_ops, s};
}

void status_sink_free(struct status_sink *s)
{
	if (!s)
		return;
	if (s->drawn)
		render_status_end(s->out);
	live_free(s->live);
	free(s->x);
	free(s->y);
	free(s);
}
