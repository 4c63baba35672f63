/*
 * fleet_step.c - the step of report --prometheus's readings
 * (docs/fleet.md, "The step"): the data's own interval read from the
 * data, the default step chosen from it, and the advice when the step
 * starved a target's analysis.
 *
 * Why from the data's sample times and not from the scrape
 * configuration (/api/v1/targets' scrapeInterval): the series asked for
 * need not come from a scrape this server did (a recording rule,
 * federation, remote-write into Thanos, Mimir or VictoriaMetrics, which
 * have no targets page), and the times are what the analysis will see.
 * One small query reads them: timestamp() of the first listed series at
 * 1-second steps over FLEET_STEP_PROBE_S of the range (its end, else its
 * start), whose distinct values are the series' own sample times; the
 * interval is the median gap between them (a missed scrape doubles one
 * gap, not the median).
 *
 * What it does not do: list or fetch the series (fleet.c,
 * fleet_run.c), or any statistics beyond a median.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fleet_internal.h"

#define FLEET_STEP_PROBE_S 600.0  /* seconds of sample times read */

struct times {
	double *v;
	size_t n, cap;
};

static int on_times(void *arg, const struct prom_label *l, size_t nl,
		    const double *t, const double *v, size_t n)
{
	(void)l, (void)nl, (void)t;
	struct times *ts = arg;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || (ts->n && v[i] <= ts->v[ts->n - 1]))
			continue;  /* the same sample, seen again */
		xgrow((void **)&ts->v, &ts->cap, ts->n + 1, sizeof(double));
		ts->v[ts->n++] = v[i];
	}
	return 1;  /* one series is enough */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median gap of ts (>= 3 times), else NAN. */
static double median_gap(const struct times *ts)
{
	if (ts->n < 3)
		return NAN;
	size_t n = ts->n - 1;
	double *g = xmalloc(n * sizeof(*g));
	for (size_t i = 0; i < n; i++)
		g[i] = ts->v[i + 1] - ts->v[i];
	qsort(g, n, sizeof(*g), cmp_double);
	double m = n % 2 ? g[n / 2] : (g[n / 2 - 1] + g[n / 2]) / 2;
	free(g);
	/* timestamps come in milliseconds */
	return m > 0 ? round(m * 1000) / 1000 : NAN;
}

double fleet_data_step(struct prom_client *pc, const struct prom_lset *ls,
		       double start, double end)
{
	if (!ls || !ls->n)
		return NAN;
	char *sel = prom_labels_format(ls->l, ls->n, NULL, NULL);
	size_t len = strlen(sel) + 16;
	char *q = xmalloc(len);
	snprintf(q, len, "timestamp(%s)", sel);
	free(sel);
	double w = fmin(FLEET_STEP_PROBE_S, end - start);
	double from[2] = {floor(end - w), floor(start)};
	double out = NAN;
	for (int k = 0; k < 2 && isnan(out); k++) {
		struct times ts = {0};
		int rc = prom_query_range(pc, q, from[k], from[k] + w, 1.0,
					  on_times, &ts);
		if (rc == PROM_OK || rc == PROM_STOPPED)
			out = median_gap(&ts);
		free(ts.v);
		if (rc != PROM_OK && rc != PROM_STOPPED)
			break;  /* said; the default step then */
	}
	free(q);
	return out;
}

double fleet_default_step(double data_step, double start, double end)
{
	if (!(data_step > 0))
		return FLEET_STEP_DEFAULT;
	/* Not finer than one query chunk per series over the range: the
	 * default range (7 d) at a 15 s scrape would be 40,321 points a
	 * series, four times the requests and the memory of the old 60 s
	 * default; a short range (recent data) gets every scrape. */
	double floor_s = ceil((end - start) / (FLEET_MAX_POINTS - 1));
	return fmax(data_step, floor_s);
}

bool fleet_starved(const struct target_findings *f)
{
	if (f->verdict != VERDICT_INCONCLUSIVE ||
	    f->analysed_samples >= FLEET_STARVED_SAMPLES)
		return false;
	switch (f->settle.code) {
	case SETTLE_NONE:
	case SETTLE_NO_CONCERN:
	case SETTLE_WINDOW:
	case SETTLE_SHORT_WINDOW:
		return true;
	default:
		return false;
	}
}

void fleet_step_advice(struct target_findings *f, double step,
		       double data_step)
{
	if (!fleet_starved(f))
		return;
	/* At the data's own interval already: only a longer window helps,
	 * which the advice says as it is. */
	if (isfinite(data_step) && step <= 1.5 * data_step)
		return;
	f->settle.code = SETTLE_STEP;
	f->settle.step_s = step;
	f->settle.data_step_s = data_step;
}
