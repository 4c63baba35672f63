/*
 * sink_store.c - the recording file as a sink (sink_store.h).
 *
 * The id maps: the recorder's ids only grow, so each map is an array of
 * (recorder id, store id) pairs kept in order by appending; a lookup is a
 * binary search (O(log live), about ten steps at 1,000 processes), an end
 * a memmove of what follows. No allocation per sample: a sample costs a
 * lookup and the store's prepared INSERT, as it did when the recorder
 * wrote the store itself.
 */
#include "sink_store.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "units.h"

/* --retain: per commit at most RETAIN_MIN_ROWS, or twice the rows the
 * batch added, per table: bounded work that outpaces the inserts, so the
 * window catches up after a stall and never lags. */
#define RETAIN_MIN_ROWS 4096

struct id_pair {
	int64_t ours, store;
};

/* Recorder id -> store id, ordered by the recorder's id. */
struct id_map {
	struct id_pair *p;
	size_t n, cap;
};

struct sink_store {
	struct store *store;
	char *path;
	bool append;
	bool closed;
	double commit_interval_s;
	double retain_s;
	bool committed;            /* the set-up's commit is done */
	double last_commit;        /* monotonic */
	double last_stamp;         /* the newest frame's stamp; NAN before */
	bool write_failed;
	uint64_t lost_batches;
	bool declare_failed;       /* a target, incarnation or source row
				      could not be added */
	struct id_map targets, incs, cgroups, sources;
	/* record --sites: recorder site id -> store id, and the value last
	 * written of each, by the map's index (a site's row is written
	 * when its value changes: it holds until the next) */
	struct id_map sites;
	double *site_last;
	size_t cap_site_last;
};

static void map_put(struct id_map *m, int64_t ours, int64_t store)
{
	/* ids come in increasing order (sample.h) */
	assert(ours > 0 && (!m->n || m->p[m->n - 1].ours < ours));
	xgrow((void **)&m->p, &m->cap, m->n + 1, sizeof(*m->p));
	m->p[m->n++] = (struct id_pair){ours, store};
}

/* The index of ours, or m->n when absent. */
static size_t map_find(const struct id_map *m, int64_t ours)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->p[mid].ours < ours)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->p[lo].ours == ours ? lo : m->n;
}

/* The store's id of ours; 0 for 0 ("none"), -1 when unknown (its row
 * could not be added: nothing is written under it). */
static int64_t map_get(const struct id_map *m, int64_t ours)
{
	if (!ours)
		return 0;
	size_t i = map_find(m, ours);
	return i < m->n ? m->p[i].store : -1;
}

static void map_drop(struct id_map *m, int64_t ours)
{
	size_t i = map_find(m, ours);
	if (i == m->n)
		return;
	memmove(m->p + i, m->p + i + 1, (m->n - i - 1) * sizeof(*m->p));
	m->n--;
}

static int ss_begin(void *ctx, const struct sink_run *run)
{
	struct sink_store *s = ctx;
	struct store *st = s->store;
	char buf[256];
	snprintf(buf, sizeof(buf), "%.17g", run->interval_s);
	store_meta_set(st, "interval_s", buf);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	store_meta_set(st, "page_size", buf);
	units_format_time(buf, sizeof(buf), now_wall());
	store_meta_set(st, "created", buf);
	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		store_meta_set(st, "hostname", buf);
	}
	if (run->invocation)
		store_meta_set(st, "invocation", run->invocation);
	store_meta_set(st, "footprint_definition",
		       "anon + swap + shmem + device-local GPU memory (RssAnon "
		       "+ VmSwap + RssShmem + DRM vram/local/lmem/stolen "
		       "resident + NVML used)");
	if (run->gpu_sources)
		store_meta_set(st, "gpu_sources", run->gpu_sources);
	if (s->retain_s > 0 && isfinite(s->retain_s)) {
		snprintf(buf, sizeof(buf), "%.17g", s->retain_s);
		store_meta_set(st, "retain_s", buf);
	}
	return 0;
}

static void declared(struct sink_store *s, struct id_map *m, int64_t ours,
		     int64_t id)
{
	if (id < 0)
		s->declare_failed = true;
	map_put(m, ours, id);
}

static void ss_event(void *ctx, const struct sample_event *e)
{
	struct sink_store *s = ctx;
	struct store *st = s->store;
	int64_t inc = map_get(&s->incs, e->inc);
	switch (e->kind) {
	case SAMPLE_TARGET: {
		const struct sample_target *x = e->u.target;
		int64_t parent = map_get(&s->targets, x->parent);
		declared(s, &s->targets, x->id,
			 store_target_add(st, x->kind, x->spec, x->name,
					  parent < 0 ? 0 : parent));
		break;
	}
	case SAMPLE_INCARNATION: {
		const struct sample_incarnation *x = e->u.incarnation;
		int64_t target = map_get(&s->targets, x->target);
		int64_t cg = map_get(&s->cgroups, x->cgroup);
		declared(s, &s->incs, x->id, target < 0 ? -1 :
			 store_incarnation_add(st, target, x->ident,
					       cg < 0 ? 0 : cg,
					       x->first_seen));
		break;
	}
	case SAMPLE_INCARNATION_END:
		if (inc > 0)
			store_incarnation_end(st, inc, e->t, e->u.text);
		map_drop(&s->incs, e->inc);
		break;
	case SAMPLE_CGROUP:
		declared(s, &s->cgroups, e->u.cgroup->id,
			 store_cgroup_add(st, e->u.cgroup->key));
		break;
	case SAMPLE_SOURCE: {
		const struct sample_source *x = e->u.source;
		int64_t target = map_get(&s->targets, x->target);
		declared(s, &s->sources, x->id, target < 0 ? -1 :
			 store_source_add(st, x->role, x->name, x->method,
					  x->spec, target));
		break;
	}
	case SAMPLE_NOTE:
		store_note_add(st, e->t, inc < 0 ? 0 : inc, e->u.text);
		break;
	case SAMPLE_GPU_REGION: {
		const struct sample_gpu_region *g = e->u.gpu;
		struct store_gpu_row row = {g->source, g->region, g->kind,
					    g->total, g->resident, g->shared,
					    g->purgeable};
		if (inc > 0)
			store_gpu_add(st, inc, e->t, &row);
		break;
	}
	case SAMPLE_GPU_DEVICE: {
		const struct sample_gpu_device *d = e->u.gpu_device;
		store_gpu_device_add(st, e->t, d->source, d->device, d->total,
				     d->used);
		break;
	}
	case SAMPLE_REGION:
		if (inc > 0)
			store_region_add(st, inc, e->t, e->u.region);
		break;
	case SAMPLE_META:
		store_meta_set(st, e->u.meta.key, e->u.meta.value);
		break;
	case SAMPLE_SITE: {
		const struct sample_site *x = e->u.site;
		int64_t id = inc > 0 ? store_site_add(st, inc, e->t, x) : -1;
		declared(s, &s->sites, x->id, id);
		xgrow((void **)&s->site_last, &s->cap_site_last, s->sites.n,
		      sizeof(*s->site_last));
		s->site_last[s->sites.n - 1] = NAN;
		break;
	}
	case SAMPLE_SITE_STATS:
		if (inc > 0)
			store_site_stats_add(st, inc, e->t, e->u.site_stats);
		break;
	}
}

static void ss_target_end(void *ctx, int64_t target, double t, bool final)
{
	(void)t;
	struct sink_store *s = ctx;
	if (final)
		map_drop(&s->targets, target);
}

/* Commit, and say so once when saving fails (disk full: the file keeps
 * every earlier batch) and once when it works again. With --retain, the
 * rows older than the window go first, in the same transaction. */
static void commit_batch(struct sink_store *s)
{
	if (s->retain_s > 0 && isfinite(s->retain_s) &&
	    !isnan(s->last_stamp)) {
		uint64_t budget = 2 * store_pending(s->store);
		if (budget < RETAIN_MIN_ROWS)
			budget = RETAIN_MIN_ROWS;
		/* Against the newest stamp, not the wall clock: stamps do
		 * not follow a step of the wall clock (stamp_clock.h), and
		 * a cut taken from it emptied the window after a step
		 * forward. A failure (a full disk) leaves the rows for a
		 * later commit; the commit itself reports what fails. */
		store_retain(s->store, s->last_stamp - s->retain_s, budget);
	}
	if (store_commit(s->store)) {
		if (!s->write_failed)
			warning("cannot save samples to '%s': %s; the file "
				"keeps every sample saved so far, recording "
				"goes on and retries", s->path,
				store_last_error(s->store));
		s->write_failed = true;
		s->lost_batches++;
	} else if (s->write_failed) {
		warning("saving to '%s' works again (%llu batches lost)",
			s->path, (unsigned long long)s->lost_batches);
		s->write_failed = false;
	}
}

static void ss_frame(void *ctx, const struct sample_frame *f)
{
	struct sink_store *s = ctx;
	struct store *st = s->store;
	if (!s->committed) {
		/* the set-up (targets, incarnations, sources): readers see
		 * the targets at once */
		store_commit(st);
		s->committed = true;
		s->last_commit = f->mono;
	}
	for (size_t i = 0; i < f->n_procs; i++) {
		const struct sample_proc *p = &f->procs[i];
		int64_t inc = map_get(&s->incs, p->inc);
		if (inc <= 0)
			continue;
		struct store_sample x = {inc, f->t, *p->mem, p->smaps};
		store_sample_add(st, &x);
	}
	if (f->sys)
		store_system_add(st, f->t, f->sys);
	for (size_t i = 0; i < f->n_cgroups; i++) {
		int64_t cg = map_get(&s->cgroups, f->cgroups[i].id);
		if (cg > 0)
			store_cgroup_sample_add(st, cg, f->t,
						&f->cgroups[i].mem);
	}
	for (size_t i = 0; i < f->n_readings; i++) {
		const struct sample_reading *r = &f->readings[i];
		int64_t src = map_get(&s->sources, r->source);
		if (src > 0)
			store_source_sample_add(st, src, r->t, r->value);
	}
	for (size_t i = 0; i < f->n_sites; i++) {
		const struct sample_site_value *v = &f->sites[i];
		size_t k = map_find(&s->sites, v->site);
		if (k == s->sites.n || s->sites.p[k].store <= 0 ||
		    s->site_last[k] == v->live)
			continue;
		s->site_last[k] = v->live;
		store_site_sample_add(st, s->sites.p[k].store, f->t, v->live,
				      v->var, v->allocs);
	}
	if (!f->last)
		s->last_stamp = f->t;
	if (f->mono - s->last_commit >= s->commit_interval_s) {
		commit_batch(s);
		s->last_commit = f->mono;
	}
}

static int ss_end(void *ctx, double t, bool recorded)
{
	(void)t;
	struct sink_store *s = ctx;
	assert(!s->closed);
	s->closed = true;
	int rc = store_close(s->store);
	s->store = NULL;
	if (!recorded) {
		/* Nothing was recorded: a new file goes again, so that the
		 * retry (the right PID, command) is not refused. */
		if (!s->append)
			store_remove(s->path);
		return 0;
	}
	return rc || s->lost_batches || s->declare_failed ? -1 : 0;
}

static const struct sink_ops store_sink_ops = {
	.begin = ss_begin,
	.event = ss_event,
	.frame = ss_frame,
	.target_end = ss_target_end,
	.end = ss_end,
};

struct sink_store *sink_store_new(const char *path, bool append,
				  double commit_interval_s, double retain_s)
{
	assert(path && commit_interval_s > 0);
	struct store *st = store_create(path, append);
	if (!st)
		return NULL;
	struct sink_store *s = xcalloc(1, sizeof(*s));
	s->store = st;
	s->path = xstrdup(path);
	s->append = append;
	s->commit_interval_s = commit_interval_s;
	s->retain_s = retain_s;
	s->last_stamp = NAN;
	return s;
}

struct sink sink_store_sink(struct sink_store *s)
{
	return (struct sink){&store_sink_ops, s};
}

void sink_store_free(struct sink_store *s)
{
	if (!s)
		return;
	if (!s->closed)
		store_close(s->store);
	free(s->targets.p);
	free(s->incs.p);
	free(s->cgroups.p);
	free(s->sources.p);
	free(s->sites.p);
	free(s->site_last);
	free(s->path);
	free(s);
}
