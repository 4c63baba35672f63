/*
 * watch.c - the cost of one refresh of `memtrend watch` at the size of a
 * given recording, the old way and the new:
 *
 *   old: what cmd_watch.c did at every refresh until the live series --
 *        store_read_dataset() of the whole file (the fast path, no
 *        component columns, as the view fell back to at this size) and
 *        analysis_run() on the first target;
 *   new: what it does now -- the recorder's samples are appended to a
 *        live series (src/analysis/live.h) as they come, and a refresh is
 *        live_snapshot() + analysis_run() on that bounded, thinned copy.
 *
 *   bench_watch [-r REPEATS] [-m MAX_POINTS] [-N] FILE.db
 *
 * -m: the live series' bound (default LIVE_POINTS, as watch). *
 * -N: the new path only (for profiling it; the old_ figures print as 0).
 *
 * The new path is fed from the file's first target (its points appended
 * one by one, with every component the file has; that feeding is timed
 * apart, per sample: it is what the view pays as samples arrive, spread
 * over the recording). Best of REPEATS (default 3) for each path. Also
 * prints both verdicts and slopes, so a reader can see the thinned
 * analysis says what the full one says.
 *
 * Output, one line:
 *   watch n=N kept=K old_read_s=A old_analysis_s=B old_s=A+B
 *   new_snapshot_s=C new_analysis_s=D new_s=C+D ratio=OLD/NEW
 *   feed_ns_per_sample=F old_verdict=V old_slope_bph=S new_verdict=V
 *   new_slope_bph=S
 *
 * What it does not do: run the recorder or the view (no terminal, no
 * thread): it times the library calls a refresh makes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "live.h"
#include "store.h"


static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_watch [-r REPEATS] [-m MAX_POINTS] "
		"[-N] FILE.db\n");
	exit(2);
}

/* Feed series s into a new live series, as the view would have. */
static struct live_series *feed(const struct series *s, size_t max_points)
{
	struct live_series *l = live_new(s->name, max_points);
	live_set_quantum(l, s->quantum, s->quantum_exact);
	live_set_limits(l, s->cgroup_limit, s->mem_total, s->swap_total,
			s->swap_free_last, s->mem_available_last);
	size_t inc = SIZE_MAX;
	for (size_t i = 0; i < s->n; i++) {
		while (inc == SIZE_MAX || inc < s->inc[i]) {
			inc = inc == SIZE_MAX ? 0 : inc + 1;
			const struct incarnation *in = &s->incs[inc];
			live_incarnation(l, in->pid, in->start_ticks,
					 in->start_time, in->comm,
					 in->cmdline);
		}
		struct live_sample x = {.t = s->t[i],
					.footprint = s->footprint[i]};
		for (int c = 0; c < COMP_COUNT; c++)
			x.comp[c] = s->comp[c] ? s->comp[c][i] : NAN;
		live_append(l, &x);
	}
	return l;
}

int main(int argc, char **argv)
{
	int repeats = 3;
	bool new_only = false;
	size_t max_points = LIVE_POINTS;  /* as watch */
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			repeats = atoi(argv[++i]);
		else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			max_points = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "-N") == 0)
			new_only = true;
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			usage();
	}
	if (!path || repeats < 1)
		usage();
	struct analysis_options ao;
	analysis_options_init(&ao);

	/* Old: read + analyse, best of repeats. */
	double best_read = INFINITY, best_an = INFINITY;
	enum verdict old_verdict = VERDICT_INCONCLUSIVE;
	double old_slope = NAN;
	struct dataset keep;
	bool have_keep = false;
	if (new_only)
		best_read = best_an = 0;
	for (int r = 0; r < repeats && !new_only; r++) {
		struct store_read_options ro = {.components = false};
		struct dataset d;
		double t0 = now_s();
		if (store_read_dataset(path, &ro, &d))
			return 1;
		double t1 = now_s();
		if (!d.n_targets) {
			fprintf(stderr, "bench_watch: no target in %s\n", path);
			return 1;
		}
		struct target_findings f;
		analysis_run(&d.targets[0], &ao, &f);
		double t2 = now_s();
		best_read = fmin(best_read, t1 - t0);
		best_an = fmin(best_an, t2 - t1);
		old_verdict = f.verdict;
		old_slope = f.slope.estimate;
		analysis_release(&f);
		if (have_keep)
			dataset_release(&d);
		else
			keep = d, have_keep = true;
	}

	/* The feed the view makes as samples arrive, with components. */
	struct store_read_options rc = {.components = true};
	struct dataset dc;
	if (store_read_dataset(path, &rc, &dc))
		return 1;
	const struct series *s = &dc.targets[0];
	double t0 = now_s();
	struct live_series *l = feed(s, max_points);
	double feed_s = now_s() - t0;

	/* New: snapshot + analyse, best of repeats. */
	double best_snap = INFINITY, best_new = INFINITY;
	enum verdict new_verdict = VERDICT_INCONCLUSIVE;
	double new_slope = NAN;
	for (int r = 0; r < repeats; r++) {
		struct series a;
		double t1 = now_s();
		live_snapshot(l, &a);
		double t2 = now_s();
		struct target_findings f;
		analysis_run(&a, &ao, &f);
		double t3 = now_s();
		best_snap = fmin(best_snap, t2 - t1);
		best_new = fmin(best_new, t3 - t2);
		new_verdict = f.verdict;
		new_slope = f.slope.estimate;
		analysis_release(&f);
		series_release(&a);
	}
	double old_s = best_read + best_an, new_s = best_snap + best_new;
	printf("watch n=%zu kept=%zu old_read_s=%.4f old_analysis_s=%.4f "
	       "old_s=%.4f new_snapshot_s=%.5f new_analysis_s=%.5f "
	       "new_s=%.5f ratio=%.1f feed_ns_per_sample=%.1f "
	       "old_verdict=%s old_slope_bph=%.6g new_verdict=%s "
	       "new_slope_bph=%.6g\n", s->n, live_kept(l), best_read, best_an,
	       old_s, best_snap, best_new, new_s, old_s / new_s,
	       s->n ? feed_s / (double)s->n * 1e9 : 0.0,
	       verdict_name(old_verdict), old_slope,
	       verdict_name(new_verdict), new_slope);
	live_free(l);
	dataset_release(&dc);
	if (have_keep)
		dataset_release(&keep);
	return 0;
}
