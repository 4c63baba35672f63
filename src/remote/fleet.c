/*
 * fleet.c - the run of the fleet pipeline (fleet.h, docs/fleet.md): the
 * memory series a Prometheus already holds, each a target, fetched,
 * analysed and handed back as a dataset with its findings.
 *
 * How, with memory bounded whatever the number of series:
 * 1. The series are listed (/api/v1/series, the query being a selector)
 *    and cut into batches, each selected by adding a matcher on the label
 *    that tells most series apart (`pod=~"a|b|c"`); a value's series are
 *    all in one batch, so no series is fetched twice and --by's groups
 *    stay whole. A batch is as many series as keep one response under
 *    half of --max-response and the batch's points under 64 MiB.
 * 2. Workers (--parallel, default 2) fetch a batch at a time, in time
 *    chunks of at most 11,000 points per series (Prometheus' limit), turn
 *    its series into targets (one per series, or per --by group with an
 *    incarnation per series), analyse them and drop their points, keeping
 *    the findings. With keep (the page's --top, default 100) the points
 *    of the worst targets are kept for the page's plots, the set updated
 *    as targets come.
 * 3. The targets and their findings are handed back as one dataset,
 *    sorted by name; the caller renders them as any report's.
 * An expression that is not a selector cannot be narrowed by a matcher:
 * it is fetched whole in time chunks, refused when its points would
 * exceed FLEET_WHOLE_MAX; so is --work-query, matched to the memory series
 * on the labels the work series carry.
 *
 * This file holds the run's orchestration: the grid, the listing, the
 * batches' queries, the workers started and joined, the findings
 * assembled into one dataset. Where the rest is: the batching plan (1)
 * prom_plan.c; a worker (2) fleet_run.c, with the gathering of time
 * chunks in prom_fetch.c and the --by groups and target names in
 * prom_group.c; label sets prom_labels.c; --auth-file prom_auth.c; the
 * step fleet_step.c.
 *
 * What it does not do: parse options (cmd/cli_fleet.c), any statistics
 * (analysis/), any HTTP (prometheus.c over http/), any output format
 * (render/, called by the command).
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fleet_internal.h"
#include "http.h"
#include "prom_auth.h"
#include "prom_group.h"
#include "prom_plan.h"
#include "prometheus.h"
#include "units.h"

#define FLEET_BODY_MAX_DEFAULT (64.0 * 1048576)
#define FLEET_MATCHER_MAX 16384      /* bytes of one batch's matcher */
#define FLEET_RANGE_DEFAULT (7 * 86400.0)
#define FLEET_TIMEOUT_DEFAULT 120.0
#define FLEET_RETRIES 3

/* ---- the run ------------------------------------------------------------- */

/* A warning from the API or ours, said once. */
void fleet_say_once(struct fleet *fl, const char *key, const char *text)
{
	pthread_mutex_lock(&fl->mu);
	bool seen = strmap_get(&fl->warned, key) != SIZE_MAX;
	if (!seen)
		strmap_put(&fl->warned, key, 0);
	pthread_mutex_unlock(&fl->mu);
	if (!seen)
		warning("%s", text);
}

/* An API warning, said once; after FLEET_API_WARNINGS_MAX distinct
 * ones only counted (a server could send a million, each kept to be
 * said once). */
static void on_api_warning(void *arg, const char *text)
{
	struct fleet *fl = arg;
	char *msg = xmalloc(strlen(text) + 32);
	sprintf(msg, "Prometheus: %s", text);
	pthread_mutex_lock(&fl->mu);
	bool seen = strmap_get(&fl->warned, msg) != SIZE_MAX;
	bool say = !seen && fl->api_warnings < FLEET_API_WARNINGS_MAX;
	if (say) {
		strmap_put(&fl->warned, msg, 0);
		fl->api_warnings++;
	} else if (!seen) {
		fl->api_warnings_more++;
	}
	pthread_mutex_unlock(&fl->mu);
	if (say)
		warning("%s", msg);
	free(msg);
}

void fleet_count(struct fleet *fl, const struct prom_fetch *fx,
		 const struct prom_client *pc)
{
	pthread_mutex_lock(&fl->mu);
	if (fx) {
		fl->foreign += fx->foreign;
		prom_tally_add(&fl->tally, &fx->tally);
	}
	if (pc)
		prom_tally_add(&fl->tally, prom_client_tally(pc));
	pthread_mutex_unlock(&fl->mu);
}

/* What the server sent that was not asked for: one warning each. */
static void say_unasked(const struct fleet *fl)
{
	if (fl->foreign)
		warning("Prometheus answered %zu series not asked for (not "
			"among the listed series that a batch's matchers "
			"select: a server or proxy that ignores them?): "
			"left out", fl->foreign);
	if (fl->tally.disordered)
		warning("Prometheus sent %zu points out of time order: "
			"sorted by time", fl->tally.disordered);
	if (fl->tally.duplicates)
		warning("Prometheus sent %zu points at a time already read: "
			"the first read kept", fl->tally.duplicates);
	if (fl->tally.out_of_range)
		warning("Prometheus sent %zu points outside the asked range: "
			"left out", fl->tally.out_of_range);
	if (fl->api_warnings_more)
		warning("Prometheus: %zu more warnings, not shown",
			fl->api_warnings_more);
}

void fleet_too_many_series(const struct fleet *fl, const char *opt,
			   const char *what, size_t n)
{
	error("%s: %s %zu series, more than --max-series %zu: narrow "
	      "the selector (a matcher such as {namespace=\"x\"}), "
	      "aggregate it (e.g. max by (pod) (...)), or raise --max-series "
	      "(memory grows with the series: the listing's labels and "
	      "each target's findings)", opt, what, n, fl->max_series);
}

static enum fleet_status status_of(int prom_rc)
{
	return prom_rc == PROM_BAD_QUERY ? FLEET_BAD_INPUT : FLEET_FAILED;
}

/* ---- the listing and its batches ---------------------------------------- */

/* The listed series: the first max of them kept, the others counted
 * (a listing over --max-series is refused, and memory must not grow
 * with it first). */
struct listing {
	struct prom_lset *s;
	size_t n, cap;
	size_t max;
	size_t listed;             /* all of them */
};

static int on_listed(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	(void)t, (void)v, (void)n;
	struct listing *ls = arg;
	if (ls->listed++ >= ls->max)
		return 0;
	xgrow((void **)&ls->s, &ls->cap, ls->n + 1, sizeof(*ls->s));
	prom_lset_copy(&ls->s[ls->n++], l, nl);
	return 0;
}

/* The listed series cut into batches (prom_plan.h), each a query. */
/* The label names the series s[0..n) carry, for a message: "a, b, c",
 * sorted, at most 16 distinct and ~200 bytes (then "..."); a name's bytes
 * outside Prometheus' [A-Za-z0-9_:] as '?', since a server sends them.
 * Not reentrant: a static buffer. O(n x labels x 16). */
static const char *label_names_of(const struct prom_lset *s, size_t n)
{
	static char buf[256];
	const char *seen[16];
	size_t ns = 0;
	bool more = false;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			const char *name = s[i].l[j].name;
			size_t k = 0;
			while (k < ns && strcmp(seen[k], name))
				k++;
			if (k < ns || !strcmp(name, "__name__"))
				continue;
			if (ns == 16) {
				more = true;
				continue;
			}
			/* insertion, sorted */
			for (k = ns++; k > 0 && strcmp(seen[k - 1], name) > 0; k--)
				seen[k] = seen[k - 1];
			seen[k] = name;
		}
	size_t k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ns && k + 40 < sizeof(buf); i++) {
		if (k)
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", ");
		for (const char *c = seen[i]; *c && k + 8 < sizeof(buf); c++)
			buf[k++] = isalnum((unsigned char)*c) || *c == '_' ||
				   *c == ':' ? *c : '?';
		buf[k] = '\0';
	}
	if (more && k + 5 < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, ", ...");
	return ns ? buf : "none";
}

static void plan_batches(struct fleet *fl, const struct listing *ls,
			 size_t max_series, size_t chunk_points)
{
	struct prom_plan plan = {0};
	prom_plan_make(&plan, ls->s, ls->n, max_series,
		       (const char *const *)fl->fo->by, fl->fo->n_by,
		       FLEET_MATCHER_MAX);
	fl->batches = xcalloc(plan.n, sizeof(*fl->batches));
	for (size_t i = 0; i < plan.n; i++) {
		const char *m = plan.b[i].matchers;
		fl->batches[i].query = *m ? prom_selector_add(fl->fo->query, m)
					  : xstrdup(fl->fo->query);
		fl->batches[i].chunk_points = chunk_points;
		/* The series it asks for: any other in its answers is
		 * left out (prom_fetch.h). */
		fl->batches[i].members = plan.b[i].members;
		fl->batches[i].n_members = plan.b[i].n;
		plan.b[i].members = NULL;
	}
	fl->n_batches = plan.n;
	prom_plan_release(&plan);
}

/* ---- the dataset --------------------------------------------------------- */

static int cmp_target_name(const void *a, const void *b, void *arg)
{
	struct series **t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(t[x]->name, t[y]->name);
	return c ? c : (x > y) - (x < y);
}

static void fleet_release(struct fleet *fl)
{
	for (size_t i = 0; i < fl->n_batches; i++) {
		free(fl->batches[i].query);
		free(fl->batches[i].members);
	}
	free(fl->batches);
	for (size_t i = 0; i < fl->n_work; i++) {
		prom_lset_release(&fl->work[i].ls);
		free(fl->work[i].v);
	}
	free(fl->work);
	for (size_t i = 0; i < fl->n_targets; i++) {
		if (fl->targets[i]) {
			series_release(fl->targets[i]);
			free(fl->targets[i]);
		}
		if (fl->findings[i]) {
			analysis_release(fl->findings[i]);
			free(fl->findings[i]);
		}
	}
	free(fl->targets);
	free(fl->findings);
	free(fl->kept);
	strmap_release(&fl->warned);
	pthread_mutex_destroy(&fl->mu);
}

/* Where the step came from, and what it is against the data's own
 * interval: a recording of the same process at its interval has more
 * readings, so verdicts can differ (docs/fleet.md, "The step"). */
static void step_why(char *b, size_t n, const struct fleet *fl, bool given)
{
	double d = fl->data_step;
	if (!isfinite(d))
		snprintf(b, n, given ? "(--step)" : "(the default: the data's "
			 "own interval could not be read)");
	else if (fl->step <= 1.5 * d)
		snprintf(b, n, "(%sthe data's own interval, %gs, read from "
			 "its sample times)", given ? "--step, at " : "", d);
	else
		snprintf(b, n, "(%s; the data's own interval is %gs: about 1 "
			 "reading in %.0f of it; --step %gs reads every one)",
			 given ? "--step" : "the range in 11,000 points", d,
			 fl->step / d, d);
}

/* A grid of whole steps over [start, end]: the same query twice gives
 * the same points (and a grid aligned as a recording's readings are).
 * Refused (a message) when it has fewer than 3 points, or more than one
 * series may hold. */
static int grid_set(struct fleet *fl, double step, double start, double end)
{
	fl->step = step;
	fl->start = ceil(start / step) * step;
	fl->points = (size_t)floor((end - fl->start) / step + 1e-9) + 1;
	fl->end = fl->start + (double)(fl->points - 1) * step;
	if (fl->points < 3)
		return error("--range/--step: %zu points per series; a slope "
			     "needs at least 3", fl->points);
	/* One series is fetched whole before its analysis: more points
	 * than a batch holds would be one series past every bound (a
	 * selector's batch, an expression's whole). */
	if (fl->points > FLEET_SERIES_POINTS_MAX)
		return error("--range/--step: %zu points per series, more "
			     "than the %zu memtrend holds for one series "
			     "(%.0f MiB at %d bytes a point): a larger --step "
			     "or a shorter --range", fl->points,
			     FLEET_SERIES_POINTS_MAX,
			     FLEET_BATCH_MEMORY / 1048576, FLEET_POINT_BYTES);
	return 0;
}

enum fleet_status fleet_read(const struct fleet_options *fo,
			     const struct analysis_options *ao, size_t keep,
			     struct dataset *d, struct target_findings **f)
{
	assert(fo->url && fo->query);
	memset(d, 0, sizeof(*d));
	*f = NULL;
	struct fleet fl = {.fo = fo, .ao = ao};
	pthread_mutex_init(&fl.mu, NULL);
	fl.data_step = NAN;
	double range = isfinite(fo->range_s) ? fo->range_s :
		       FLEET_RANGE_DEFAULT;
	double end = isfinite(fo->end) ? fo->end :
		     isfinite(fo->start) && isfinite(fo->range_s) ?
		     fo->start + range : now_wall();
	double start = isfinite(fo->start) ? fo->start : end - range;
	enum fleet_status rc = FLEET_BAD_INPUT;
	char *auth = NULL;
	struct prom_client *pc = NULL;
	struct listing ls = {0};
	if (!(end > start)) {
		error("--start/--end: the end must come after the start");
		goto out;
	}
	/* Given, the step is checked before any request; a default one
	 * once the data's interval is read (fleet_step.c). */
	if (isfinite(fo->step_s) && grid_set(&fl, fo->step_s, start, end))
		goto out;
	fl.max_series = fo->max_series ? fo->max_series :
			FLEET_MAX_SERIES_DEFAULT;
	if (fo->auth_file && !(auth = prom_auth_read(fo->auth_file)))
		goto out;
	if (http_global_init()) {
		rc = FLEET_FAILED;
		goto out;
	}
	fl.pc = (struct prom_config){
		.url = fo->url, .authorization = auth,
		.timeout_s = isfinite(fo->timeout_s) ? fo->timeout_s :
			     FLEET_TIMEOUT_DEFAULT,
		.body_max = (size_t)(isfinite(fo->max_response) ?
				     fo->max_response :
				     FLEET_BODY_MAX_DEFAULT),
		.retries = FLEET_RETRIES,
		.on_warning = on_api_warning, .warning_arg = &fl,
	};
	if (!(pc = prom_client_new(&fl.pc)))
		goto out;
	int prc;
	bool selector = prom_is_selector(fo->query);
	if (selector) {
		ls.max = fl.max_series;
		prc = prom_series(pc, fo->query, start, end, on_listed, &ls);
		if (prc) {
			rc = status_of(prc);
			goto out;
		}
		if (ls.listed > fl.max_series) {
			fleet_too_many_series(&fl, "--query", "the selector "
					      "matches", ls.listed);
			goto out;
		}
		fl.listed = ls.s;
		if (!ls.n) {
			char a[40], b[40];
			error("--query: no series match '%s' from %s to %s",
			      fo->query,
			      units_format_time(a, sizeof(a), start),
			      units_format_time(b, sizeof(b), end));
			goto out;
		}
	}
	/* No --step: the data's own interval (a selector's first series;
	 * an expression's values are computed at each step, their times
	 * say nothing of the data's), coarser on a long range. */
	if (!isfinite(fo->step_s)) {
		if (selector)
			fl.data_step = fleet_data_step(pc, &ls.s[0], start,
						       end);
		if (grid_set(&fl, fleet_default_step(fl.data_step, start,
						     end), start, end))
			goto out;
	}
	if (fo->work_query && (prc = fleet_fetch_work(&fl, pc))) {
		rc = status_of(prc);
		goto out;
	}
	size_t chunk_points = fl.points < FLEET_MAX_POINTS ? fl.points :
			      FLEET_MAX_POINTS;
	if (selector) {
		for (size_t i = 1; i < ls.n && !fl.names_differ; i++)
			fl.names_differ = strcmp(
				prom_lset_get(&ls.s[i], "__name__"),
				prom_lset_get(&ls.s[0], "__name__"));
		/* A --by label no series carries would merge every series
		 * into one target: a typo, not a fleet (exit 2). */
		for (size_t b = 0; b < fo->n_by; b++) {
			size_t has = 0;
			for (size_t i = 0; i < ls.n && !has; i++)
				has = *prom_lset_get(&ls.s[i], fo->by[b]) != 0;
			if (!has) {
				error("--by: no series of '%s' has the label "
				      "'%s' (its labels: %s)", fo->query,
				      fo->by[b], label_names_of(ls.s, ls.n));
				rc = FLEET_BAD_INPUT;
				goto out;
			}
		}
		double by_resp = fl.pc.body_max / 2.0 / FLEET_BYTES_PER_POINT /
				 (double)chunk_points;
		double by_mem = FLEET_BATCH_MEMORY / FLEET_POINT_BYTES /
				(double)fl.points;
		double per = fmin(by_resp, by_mem);
		plan_batches(&fl, &ls, per < 1 ? 1 : (size_t)per,
			     chunk_points);
	} else {
		/* An expression: fetched whole (bounded by
		 * fleet_size_whole()). */
		size_t chunk;
		if ((prc = fleet_size_whole(&fl, pc, "--query", fo->query,
					    true, &chunk))) {
			rc = status_of(prc);
			goto out;
		}
		fl.batches = xcalloc(1, sizeof(*fl.batches));
		fl.batches[0].query = xstrdup(fo->query);
		fl.batches[0].chunk_points = chunk;
		fl.n_batches = 1;
	}
	fleet_count(&fl, NULL, pc);
	prom_client_free(pc);
	pc = NULL;

	fl.keep = keep;
	fl.kept = xcalloc(fl.keep ? fl.keep : 1, sizeof(*fl.kept));
	size_t nw = fo->parallel ? (size_t)fo->parallel :
		    FLEET_PARALLEL_DEFAULT;
	if (nw > fl.n_batches)
		nw = fl.n_batches;
	pthread_t th[FLEET_PARALLEL_MAX];
	size_t started = 0;
	for (; started < nw; started++)
		if (pthread_create(&th[started], NULL, fleet_worker, &fl))
			break;
	if (!started) {
		error("cannot start a thread");
		rc = FLEET_FAILED;
		goto out;
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	say_unasked(&fl);
	if (fl.fail) {
		rc = status_of(fl.fail);
		goto out;
	}
	if (!fl.n_targets) {
		error("--query: no series with points from the query '%s'",
		      fo->query);
		goto out;
	}
	if (fl.work_ambiguous)
		warning("--work-query: %zu memory series match several work "
			"series; each takes the first (match the work "
			"query's labels to the memory series')",
			fl.work_ambiguous);
	if (fl.overlap_targets)
		warning("--by: in %zu targets, series run at the same time "
			"(replicas, not restarts?); the earlier series' "
			"points after the next one starts are left out",
			fl.overlap_targets);
	/* A step that starved targets: their advice names --step, not a
	 * longer watch. With --step given, the data's interval is read
	 * only now that it matters (one small query). */
	size_t starved = 0;
	for (size_t i = 0; i < fl.n_targets; i++)
		starved += fleet_starved(fl.findings[i]);
	if (starved && selector && ls.n && isnan(fl.data_step)) {
		struct prom_client *probe = prom_client_new(&fl.pc);
		if (probe)
			fl.data_step = fleet_data_step(probe, &ls.s[0],
						       fl.start, fl.end);
		prom_client_free(probe);
	}
	for (size_t i = 0; i < fl.n_targets; i++)
		fleet_step_advice(fl.findings[i], fl.step, fl.data_step);

	/* Labels every target has say nothing about any one of them. */
	char *shared = prom_targets_unshare(fl.targets, fl.n_targets,
					    fl.names_differ);

	/* The dataset, by name (the same order on every run). */
	/* The source as printed (text heading, JSON, the page's title):
	 * never the URL's password. */
	char src[512], shown[512];
	snprintf(src, sizeof(src), "%s %s",
		 http_url_redacted(shown, sizeof(shown), fo->url, NULL),
		 fo->query);
	dataset_init(d, src);
	d->interval_s = fl.step;
	d->footprint_what = xstrdup("the query's value");
	char a[40], b[40], why[160], note_s[1024];
	step_why(why, sizeof(why), &fl, isfinite(fo->step_s));
	snprintf(note_s, sizeof(note_s), "Prometheus range %s to %s, step "
		 "%gs %s, %zu target%s",
		 units_format_time(a, sizeof(a), fl.start),
		 units_format_time(b, sizeof(b), fl.end), fl.step, why,
		 fl.n_targets, fl.n_targets == 1 ? "" : "s");
	dataset_add_note(d, note_s);
	if (shared) {
		snprintf(note_s, sizeof(note_s), "every target has the labels "
			 "%.900s: left out of the names", shared);
		dataset_add_note(d, note_s);
		free(shared);
	}
	size_t n = fl.n_targets;
	size_t *order = xmalloc(n * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_target_name, fl.targets);
	d->targets = xcalloc(n, sizeof(*d->targets));
	struct target_findings *tf = xcalloc(n, sizeof(*tf));
	for (size_t i = 0; i < n; i++) {
		d->targets[i] = *fl.targets[order[i]];
		free(fl.targets[order[i]]);
		fl.targets[order[i]] = NULL;
		tf[i] = *fl.findings[order[i]];
		tf[i].series = &d->targets[i];
		free(fl.findings[order[i]]);
		fl.findings[order[i]] = NULL;
	}
	d->n_targets = n;
	free(order);
	*f = tf;
	rc = FLEET_OK;
out:
	for (size_t i = 0; i < ls.n; i++)
		prom_lset_release(&ls.s[i]);
	free(ls.s);
	prom_client_free(pc);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	fleet_release(&fl);
	return rc;
}
