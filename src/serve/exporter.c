/*
 * exporter.c - the exporter's state, its analysis thread and the answer
 * to a scrape (exporter.h).
 *
 * Locking: one mutex over the target table. The recorder's thread holds
 * it for one append; the analysis thread for a snapshot of one target
 * and again for storing the result (never while analysing); a scrape for
 * copying the figures into om_target rows (the formatting happens after).
 * Targets are kept sorted by target id (ids grow as targets are added,
 * so an addition is an append in practice).
 *
 * record --sites: the sites are kept apart from the targets (a site is
 * declared before its target's first frame reaches here), their frames
 * copied, their target found through their incarnation, their latest
 * live bytes from each frame; a scrape serves each target's largest
 * (OM_SITES_MAX), named as the reports name them. Bounded by the
 * sampler's tables (4,096 sites a process).
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "exporter.h"
#include "listener.h"
#include "live.h"
#include "render_site_names.h"

struct entry {
	int64_t target_id;
	char *name;                /* owned */
	const char *kind;
	enum exporter_role role;
	long pid;
	unsigned long long start_ticks;
	double start_time;         /* of the process; NAN unknown */
	double first_t, last_t;    /* its first and latest sample */
	double footprint, anon, swap, shmem, gpu, rss, file;
	uint64_t samples;
	struct live_series *live;  /* owned */
	uint64_t analysed_count;   /* live_count() at the last analysis */
	double next_analysis;      /* monotonic */
	bool analysed;
	enum verdict verdict;
	struct slope slope;
	double detectable_bph, exhaustion_s;
	size_t n_pools;            /* issue 28: each pool's time to its limit */
	struct om_pool pools[ANALYSIS_POOLS_MAX];
};

struct exporter {
	struct exporter_options o;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool stopping;
	struct entry **t;          /* sorted by target_id */
	size_t n, cap;
	size_t cursor;             /* the analysis thread's next target */
	pthread_t thread;
	bool have_thread;
	struct listener *listener;
	/* record --sites (under mu): the sites (only their frames used),
	 * each one's incarnation, its target (0: not seen in a frame yet)
	 * and live bytes; site id -> index + 1 (0: none). Nothing here is
	 * kept for a run without sites: --all's incarnations come and go
	 * by the million over days. */
	struct series sites;
	int64_t *site_inc, *site_target;
	double *site_live;
	size_t cap_site_inc, cap_site_target, cap_site_live;
	size_t *site_index;
	size_t cap_site_index;
};

static size_t find(const struct exporter *e, int64_t id, bool *found)
{
	size_t lo = 0, hi = e->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->t[mid]->target_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < e->n && e->t[lo]->target_id == id;
	return lo;
}

static void entry_free(struct entry *x)
{
	if (!x)
		return;
	live_free(x->live);
	free(x->name);
	free(x);
}

/* Is x served (exporter.h)? A process whose start time is unknown is
 * aged from its first sample. Under mu. */
static bool served(const struct exporter *e, const struct entry *x)
{
	if (x->role != EXPORTER_PROCESS)
		return true;
	switch (e->o.processes) {
	case EXPORTER_PROCESSES_ALL:
		return true;
	case EXPORTER_PROCESSES_NONE:
		return false;
	case EXPORTER_PROCESSES_LONG:
		break;
	}
	double born = isfinite(x->start_time) ? x->start_time : x->first_t;
	return x->last_t - born >= e->o.long_s;
}

void exporter_sample(struct exporter *e, const struct exporter_sample *s)
{
	/* Never served: not kept (nor analysed) at all. */
	if (s->role == EXPORTER_PROCESS &&
	    e->o.processes == EXPORTER_PROCESSES_NONE)
		return;
	pthread_mutex_lock(&e->mu);
	bool found;
	size_t i = find(e, s->target_id, &found);
	struct entry *x;
	if (found) {
		x = e->t[i];
	} else {
		x = xcalloc(1, sizeof(*x));
		x->target_id = s->target_id;
		x->name = xstrdup(s->name ? s->name : "");
		x->kind = s->kind;
		x->role = s->role;
		x->pid = -1;
		x->first_t = s->t;
		x->live = live_new_sized(x->name, EXPORTER_POINTS, 0);
		live_set_limits(x->live, NAN, e->o.mem_total, NAN, NAN, NAN);
		/* /proc's readings are in pages: the resolution is known */
		live_set_quantum(x->live, (double)sysconf(_SC_PAGESIZE),
				 true);
		x->slope = SLOPE_NONE;
		x->detectable_bph = x->exhaustion_s = NAN;
		xgrow((void **)&e->t, &e->cap, e->n + 1, sizeof(*e->t));
		memmove(e->t + i + 1, e->t + i, (e->n - i) * sizeof(*e->t));
		e->t[i] = x;
		e->n++;
	}
	if (x->pid != s->pid || x->start_ticks != s->start_ticks ||
	    !live_count(x->live)) {
		if (!live_last_incarnation_is(x->live, s->pid, s->start_ticks))
			live_incarnation(x->live, s->pid, s->start_ticks,
					 s->start_time, s->comm, s->cmdline);
		x->pid = s->pid;
		x->start_ticks = s->start_ticks;
		x->start_time = s->start_time;
	}
	struct live_sample ls = {.t = s->t, .footprint = s->footprint};
	for (int c = 0; c < COMP_COUNT; c++)
		ls.comp[c] = NAN;
	/* Issue 28: GPU memory by device and each device's figures, so the
	 * analysis sees each GPU as a pool with its own limit. */
	ls.comp[COMP_GPU] = s->gpu;
	for (unsigned d = 0; s->gpu_dev && d < SERIES_GPU_DEVICES; d++) {
		ls.comp[COMP_GPU0 + d] = s->gpu_dev[d];
		if (!isnan(s->gpu_dev[d]))
			live_set_gpu_limit(x->live, d, s->gpu_total[d],
					   s->gpu_used[d]);
	}
	live_append(x->live, &ls);
	x->footprint = s->footprint;
	x->anon = s->anon;
	x->swap = s->swap;
	x->shmem = s->shmem;
	x->gpu = s->gpu;
	x->rss = s->rss;
	x->file = s->file;
	x->last_t = s->t;
	x->samples++;
	pthread_mutex_unlock(&e->mu);
}

void exporter_target_end(struct exporter *e, int64_t target_id)
{
	pthread_mutex_lock(&e->mu);
	bool found;
	size_t i = find(e, target_id, &found);
	if (found) {
		entry_free(e->t[i]);
		memmove(e->t + i, e->t + i + 1, (e->n - i - 1) * sizeof(*e->t));
		e->n--;
		if (e->cursor > i)
			e->cursor--;
	}
	pthread_mutex_unlock(&e->mu);
}

/* The next target due for an analysis (served, new samples since the
 * last, and its time come), from the cursor on; SIZE_MAX when none.
 * Under mu. */
static size_t next_due(struct exporter *e, double now)
{
	for (size_t k = 0; k < e->n; k++) {
		size_t i = (e->cursor + k) % e->n;
		struct entry *x = e->t[i];
		if (live_count(x->live) != x->analysed_count &&
		    now >= x->next_analysis && served(e, x)) {
			e->cursor = (i + 1) % e->n;
			return i;
		}
	}
	return SIZE_MAX;
}

/* Wait up to s seconds, or until a stop. Under mu. */
static void wait_for(struct exporter *e, double s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double end = (double)ts.tv_sec + ts.tv_nsec * 1e-9 + s;
	ts.tv_sec = (time_t)end;
	ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	if (!e->stopping)
		pthread_cond_timedwait(&e->cond, &e->mu, &ts);
}

static void *analysis_main(void *arg)
{
	struct exporter *e = arg;
	pthread_mutex_lock(&e->mu);
	while (!e->stopping) {
		size_t i = e->n ? next_due(e, now_monotonic()) : SIZE_MAX;
		if (i == SIZE_MAX) {
			wait_for(e, 0.2);  /* nothing due: look again */
			continue;
		}
		double t0 = now_monotonic();
		struct entry *x = e->t[i];
		int64_t id = x->target_id;
		uint64_t count = live_count(x->live);
		struct series s;
		live_snapshot(x->live, &s);
		pthread_mutex_unlock(&e->mu);

		struct target_findings f;
		analysis_run(&s, &e->o.analysis, &f);

		pthread_mutex_lock(&e->mu);
		bool found;
		size_t j = find(e, id, &found);
		if (found) {
			x = e->t[j];
			x->analysed = true;
			x->analysed_count = count;
			x->next_analysis = now_monotonic() +
					   e->o.analyse_every_s;
			x->verdict = f.verdict;
			x->slope = f.has_trend ? f.slope : SLOPE_NONE;
			x->detectable_bph = f.detectable_bph;
			x->exhaustion_s = f.exhaustion.found ?
					  f.exhaustion.eta_s : NAN;
			x->n_pools = f.n_pools;
			for (size_t k = 0; k < f.n_pools; k++) {
				snprintf(x->pools[k].id, sizeof(x->pools[k].id),
					 "%s", f.pools[k].id);
				x->pools[k].eta_s = f.pools[k].exhausts ?
						    f.pools[k].eta_s : NAN;
			}
		}
		analysis_release(&f);
		series_release(&s);
		/* The thread's share of a core stays at EXPORTER_CPU_SHARE:
		 * with many targets a round takes longer, the recorder and
		 * the machine do not pay for it. */
		double took = now_monotonic() - t0;
		wait_for(e, took * (1 / EXPORTER_CPU_SHARE - 1));
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/* Target's largest sites (live bytes > 0) into row, named: at most
 * OM_SITES_MAX, largest first; the labels and the array are the row's
 * (rows_free). Under mu: O(sites) a target, and naming each served site
 * compares it with the others (render_site_label). */
static void site_rows(struct exporter *e, int64_t target,
		      struct om_target *row)
{
	size_t top[OM_SITES_MAX], n = 0;
	for (size_t i = 0; i < e->sites.n_sites; i++) {
		if (e->site_target[i] != target || !(e->site_live[i] > 0))
			continue;
		/* insert i by its live bytes, the smallest falls off */
		size_t k = n < OM_SITES_MAX ? n++ : OM_SITES_MAX;
		while (k > 0 && e->site_live[top[k - 1]] < e->site_live[i]) {
			if (k < OM_SITES_MAX)
				top[k] = top[k - 1];
			k--;
		}
		if (k < OM_SITES_MAX)
			top[k] = i;
	}
	if (!n)
		return;
	struct om_site *out = xcalloc(n, sizeof(*out));
	for (size_t k = 0; k < n; k++) {
		char label[300];
		render_site_label(label, sizeof(label), e->sites.sites,
				  e->sites.n_sites, top[k]);
		out[k] = (struct om_site){xstrdup(label),
					  e->site_live[top[k]]};
	}
	row->sites = out;
	row->n_sites = n;
}

/* Every served target's figures, copied under the lock into rows (and
 * their names into *names, owned by the caller like rows): the formatting
 * then runs without it. */
static struct om_target *exporter_rows(struct exporter *e, char ***names,
				       size_t *count)
{
	pthread_mutex_lock(&e->mu);
	size_t n = 0;
	struct om_target *rows = xcalloc(e->n ? e->n : 1, sizeof(*rows));
	*names = xcalloc(e->n ? e->n : 1, sizeof(**names));
	for (size_t i = 0; i < e->n; i++) {
		const struct entry *x = e->t[i];
		if (!served(e, x))
			continue;
		char *name = (*names)[n] = xstrdup(x->name);
		struct om_target *row = &rows[n++];
		*row = (struct om_target){
			.target = name,
			.kind = x->kind,
			/* a sum's series outlives its members' pids */
			.pid = x->role == EXPORTER_SUM ? -1 : x->pid,
			.footprint = x->footprint,
			.anon = x->anon,
			.swap = x->swap,
			.shmem = x->shmem,
			.gpu = x->gpu,
			.rss = x->rss,
			.file = x->file,
			.requests = NAN,
			.connections = NAN,
			.samples = x->samples,
			.analysed = x->analysed,
			.verdict = x->verdict,
			.slope = x->slope,
			.detectable_bph = x->detectable_bph,
			.exhaustion_s = x->exhaustion_s,
			.n_pools = x->n_pools,
		};
		/* row n - 1, not entry i: unserved entries are skipped */
		memcpy(row->pools, x->pools, sizeof(x->pools));
		site_rows(e, x->target_id, row);
	}
	pthread_mutex_unlock(&e->mu);
	*count = n;
	return rows;
}

static void rows_free(struct om_target *rows, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		for (size_t k = 0; k < rows[i].n_sites; k++)
			free((char *)rows[i].sites[k].label);
		free((void *)rows[i].sites);
	}
	free(names);
	free(rows);
}

static int on_get(void *ctx, const char *path, const char *accept,
		  char **body, size_t *len, const char **type)
{
	struct exporter *e = ctx;
	if (!strcmp(path, "/metrics")) {
		/* The exposition's buffer becomes the answer's: no copy of
		 * the ~1 MB a scrape of 1,000 targets writes. */
		enum om_format fmt = render_openmetrics_negotiate(accept);
		*type = render_openmetrics_content_type(fmt);
		char **names;
		size_t n;
		struct om_target *rows = exporter_rows(e, &names, &n);
		*body = render_openmetrics_buffer(fmt, rows, n, len);
		rows_free(rows, names, n);
		return 200;
	}
	bool root = !strcmp(path, "/");
	*body = xstrdup(root ? "memtrend exporter: the figures are at /metrics\n"
			     : "not found: the figures are at /metrics\n");
	*len = strlen(*body);
	return root ? 200 : 404;
}

struct exporter *exporter_start(const struct exporter_options *o,
				int *exit_code, char *bound, size_t bound_len)
{
	assert(o && o->listen && o->analyse_every_s > 0);
	assert(o->processes != EXPORTER_PROCESSES_LONG || o->long_s > 0);
	struct exporter *e = xcalloc(1, sizeof(*e));
	e->o = *o;
	series_init(&e->sites, "sites");
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cond, NULL);
	int rc = pthread_create(&e->thread, NULL, analysis_main, e);
	if (rc) {
		error("cannot start the exporter's analysis thread: %s",
		      strerror(rc));
		*exit_code = EXIT_RUNTIME;
		exporter_stop(e);
		return NULL;
	}
	e->have_thread = true;
	e->listener = listener_start(o->listen, on_get, e, exit_code, bound,
				     bound_len);
	if (!e->listener) {
		exporter_stop(e);
		return NULL;
	}
	return e;
}

void exporter_stop(struct exporter *e)
{
	if (!e)
		return;
	listener_stop(e->listener);  /* no scrape runs after this */
	if (e->have_thread) {
		pthread_mutex_lock(&e->mu);
		e->stopping = true;
		pthread_cond_signal(&e->cond);
		pthread_mutex_unlock(&e->mu);
		pthread_join(e->thread, NULL);
	}
	for (size_t i = 0; i < e->n; i++)
		entry_free(e->t[i]);
	free(e->t);
	series_release(&e->sites);
	free(e->site_inc);
	free(e->site_target);
	free(e->site_live);
	free(e->site_index);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

/* ---- the recorder's sink ------------------------------------------------ */

/* A site's frames (record --sites). */
static void sink_event(void *ctx, const struct sample_event *ev)
{
	struct exporter *e = ctx;
	if (ev->kind != SAMPLE_SITE || ev->u.site->id <= 0)
		return;
	const struct sample_site *x = ev->u.site;
	/* --sites-depth is at most 32 (cli_record.c) */
	struct series_site_frame fr[32];
	size_t nf = x->n_frames < 32 ? x->n_frames : 32;
	for (size_t k = 0; k < nf; k++) {
		const struct sample_site_frame *f = &x->frames[k];
		/* series_add_site() copies the strings */
		fr[k] = (struct series_site_frame){
			f->address, f->offset, (char *)f->module,
			(char *)f->build_id, (char *)f->function,
			(char *)f->file, f->line};
	}
	pthread_mutex_lock(&e->mu);
	size_t i = series_add_site(&e->sites, x->id, 0, fr, nf);
	xgrow((void **)&e->site_inc, &e->cap_site_inc, i + 1,
	      sizeof(*e->site_inc));
	xgrow((void **)&e->site_target, &e->cap_site_target, i + 1,
	      sizeof(*e->site_target));
	xgrow((void **)&e->site_live, &e->cap_site_live, i + 1,
	      sizeof(*e->site_live));
	e->site_inc[i] = ev->inc;
	e->site_target[i] = 0; /* the frame's processes say (sites_frame) */
	e->site_live[i] = NAN;
	size_t old = e->cap_site_index;
	xgrow((void **)&e->site_index, &e->cap_site_index, (size_t)x->id + 1,
	      sizeof(*e->site_index));
	memset(e->site_index + old, 0,
	       (e->cap_site_index - old) * sizeof(*e->site_index));
	e->site_index[x->id] = i + 1;
	pthread_mutex_unlock(&e->mu);
}

/* Each site's live bytes at this frame; the target of a site not seen
 * before, from the frame's process of its incarnation. */
static void sites_frame(struct exporter *e, const struct sample_frame *f)
{
	if (!f->n_sites)
		return;
	pthread_mutex_lock(&e->mu);
	for (size_t i = 0; i < e->sites.n_sites; i++)
		for (size_t k = 0; !e->site_target[i] && k < f->n_procs; k++)
			if (f->procs[k].inc == e->site_inc[i])
				e->site_target[i] = f->procs[k].target;
	for (size_t k = 0; k < f->n_sites; k++) {
		const struct sample_site_value *v = &f->sites[k];
		if (v->site > 0 && (size_t)v->site < e->cap_site_index &&
		    e->site_index[v->site])
			e->site_live[e->site_index[v->site] - 1] = v->live;
	}
	pthread_mutex_unlock(&e->mu);
}

/* A target's role: --all's processes are served as --listen-processes
 * says, groups without a pid, what the user named and their trees always,
 * with the root's pid (two roots of one name may each have a tree: the
 * pid keeps their series apart). */
static void sink_frame(void *ctx, const struct sample_frame *f)
{
	struct exporter *e = ctx;
	for (size_t i = 0; i < f->n_procs; i++) {
		const struct sample_proc *p = &f->procs[i];
		if (p->child)
			continue;
		const struct proc_mem *m = p->mem;
		const struct proc_identity *id = p->ident;
		bool sum = !strcmp(p->kind, "group");
		struct exporter_sample s = {
			.target_id = p->target,
			.name = p->name,
			.kind = p->kind,
			.role = !strcmp(p->kind, "process") ?
				EXPORTER_PROCESS :
				sum ? EXPORTER_SUM : EXPORTER_NAMED,
			.pid = id ? (long)id->pid : -1,
			.start_ticks = id ? id->start_ticks : 0,
			.start_time = id ? id->start_time : NAN,
			.comm = id ? id->comm : NULL,
			.cmdline = id ? id->cmdline : NULL,
			.t = f->t,
			.footprint = m->footprint,
			.anon = m->anon,
			.swap = m->swap,
			.shmem = m->shmem,
			.gpu = m->gpu,
			.gpu_dev = m->gpu_dev,
			.gpu_total = m->gpu_total,
			.gpu_used = m->gpu_used,
			.rss = m->rss,
			.file = m->file,
		};
		exporter_sample(e, &s);
	}
	sites_frame(e, f);
}

static void sink_target_end(void *ctx, int64_t target, double t, bool final)
{
	(void)t;
	(void)final;
	exporter_target_end(ctx, target);
}

static const struct sink_ops exporter_sink_ops = {
	.event = sink_event,
	.frame = sink_frame,
	.target_end = sink_target_end,
};

struct sink exporter_sink(struct exporter *e)
{
	assert(e);
	return (struct sink){&exporter_sink_ops, e};
}
