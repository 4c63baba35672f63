/*
 * recorder.c - the sampling loop (recorder.h).
 *
 * Shape of one tick: each root target (its process, its descendants and
 * their sum: the process sampler's read, which says whether the process
 * still lives, then each other sampler's, sampler.h) -> each --group-by
 * group's sum -> the readings the samplers finished between ticks (the
 * work counter's and gauges') and the connection counts -> the samplers
 * asked for the next -> the samplers' machine tick (the machine's and
 * each distinct memory cgroup's figures, a GPU's totals: at most once a
 * second) -> the frame to every sink (sink.h) -> the on_tick hook.
 *
 * It reads nothing itself: every figure, every list of processes and
 * every process's identity comes from a sampler (the process sampler,
 * sampler_proc.c, over the caller's probe). What it owns is the
 * bookkeeping above them: targets, incarnations, sums, the -- COMMAND.
 *
 * Between frames, what appears (a target, an incarnation, a cgroup, a
 * note, a GPU row) goes to the sinks as an event, in order. Ticks are
 * scheduled on CLOCK_MONOTONIC absolute deadlines (no drift, no burst
 * after a stall: a missed deadline is skipped); samples are stamped with
 * the wall clock at the start plus the time elapsed (stamp_clock.h: a
 * step of the wall clock is noted, never followed).
 *
 * Ids: every target, incarnation, cgroup and source gets the next id of
 * its kind here (sample.h); sinks key on them, the store maps them.
 *
 * Own footprint: nothing grows with the number of samples. Per-tick work
 * allocates nothing on the common path (the frame's arrays are reused and
 * grow only with the number of targets; an entry points at the figures
 * where they were read, no copy); watched processes and cgroups are
 * bounded by what exists on the machine, --group-by's groups by
 * --max-targets.
 *
 * Cost: a process sample is one pread of /proc/PID/status through a kept
 * fd (the process sampler's read, one indirect call) plus one frame
 * entry (the store sink: one prepared INSERT inside its open
 * transaction). Name and descendant scans (O(processes)) run at
 * RESCAN_INTERVAL_S at most.
 * Around that work the loop adds four clock reads (vDSO), two
 * should_stop() calls, a few stores into the tick summary (the on_tick
 * hook's) and one sleep: clock_nanosleep() to the absolute
 * deadline when there is nothing else to wait for (as bench_floor
 * sleeps), ppoll() on the wake descriptor or the command's reaper
 * socket otherwise. No getenv(), no allocation. Measured with bench section a
 * (status, idle target, 10 ms, shared 2-core VM, so noisy): recorder
 * 1.05-1.4x the sleeping floor over eight runs, median 1.18 (before this
 * loop: median 1.33), within noise of what bench_tick's sleeping loop of
 * the same library calls costs.
 */
#include "recorder_internal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "probe.h" /* probe_proc_root: the samplers' roots */
#include "reaper.h"
#include "sink_set.h"
#include "stamp_clock.h"
#include "target.h"
#include "units.h"


/* A new target: its id, told to the sinks (counted in
 * recorder_tick.target_rows). */
int64_t recorder_target_add(struct recorder *rec, const char *kind,
			    const char *spec, const char *name, int64_t parent)
{
	assert(parent >= 0 && parent <= rec->last_target);
	struct sample_target x = {++rec->last_target, parent, kind, spec,
				  name};
	struct sample_event e = {.kind = SAMPLE_TARGET, .t = now_wall(),
				 .u.target = &x};
	sink_set_event(&rec->out, &e);
	rec->target_rows++;
	return x.id;
}

/* A new incarnation of target: its id, told to the sinks. */
int64_t recorder_inc_begin(struct recorder *rec, int64_t target,
			   const struct proc_identity *id, int64_t cgroup,
			   double t)
{
	assert(target > 0 && target <= rec->last_target);
	assert(cgroup >= 0 && cgroup <= rec->last_cgroup);
	struct sample_incarnation x = {++rec->last_inc, target, id, cgroup, t};
	struct sample_event e = {.kind = SAMPLE_INCARNATION, .t = t,
				 .inc = x.id, .u.incarnation = &x};
	sink_set_event(&rec->out, &e);
	return x.id;
}

void recorder_inc_end(struct recorder *rec, int64_t inc, double t,
		      const char *reason)
{
	assert(inc > 0 && inc <= rec->last_inc);
	struct sample_event e = {.kind = SAMPLE_INCARNATION_END, .t = t,
				 .inc = inc, .u.text = reason};
	sink_set_event(&rec->out, &e);
}

/* One entry of this tick's frame (pointers, no copy of the figures:
 * they stay where they were read until the frame is delivered). */
void recorder_frame_add(struct recorder *rec, int64_t target, int64_t inc,
			const char *name, const char *kind, bool child,
			const struct proc_identity *id,
			const struct proc_mem *mem,
			const struct proc_smaps *smaps)
{
	assert(target > 0 && inc > 0 && mem);
	xgrow((void **)&rec->procs, &rec->cap_procs, rec->n_procs + 1,
	      sizeof(*rec->procs));
	rec->procs[rec->n_procs++] = (struct sample_proc){
		target, inc, name, kind, child, id, mem, smaps};
}

static void reading_add(struct recorder *rec, int64_t source, double t,
			double value)
{
	assert(source > 0 && source <= rec->last_source);
	xgrow((void **)&rec->readings, &rec->cap_readings,
	      rec->n_readings + 1, sizeof(*rec->readings));
	rec->readings[rec->n_readings++] = (struct sample_reading){
		source, t, value};
}

/* ---- what a sampler may ask (sampler.h) ---- */

void sampler_reading(struct recorder *rec, int64_t source, double t,
		     double value)
{
	reading_add(rec, source, t, value);
}

int64_t sampler_root_target(const struct recorder *rec, size_t i)
{
	assert(i < rec->n_roots);
	return rec->roots[i].target_id;
}

bool sampler_command_running(const struct recorder *rec)
{
	return rec->command_running;
}

int64_t sampler_site_new(struct recorder *rec)
{
	return ++rec->last_site;
}

void sampler_site_value(struct recorder *rec, int64_t site, double live,
			double var, double allocs)
{
	assert(site > 0 && site <= rec->last_site);
	xgrow((void **)&rec->site_values, &rec->cap_site_values,
	      rec->n_site_values + 1, sizeof(*rec->site_values));
	rec->site_values[rec->n_site_values++] = (struct sample_site_value){
		site, live, var, allocs};
}

void sampler_say(struct recorder *rec, double t, bool warn,
		 const char *text)
{
	if (warn)
		warning("%s", text);
	else
		note("%s", text);
	sink_set_note(&rec->out, t, 0, text);
}

const struct sink_set *sampler_sinks(const struct recorder *rec)
{
	return &rec->out;
}

/* A memory cgroup first seen: its id, told to the sinks. */
int64_t sampler_cgroup_declare(struct recorder *rec, const char *key)
{
	struct sample_cgroup_decl x = {++rec->last_cgroup, key};
	struct sample_event e = {.kind = SAMPLE_CGROUP, .t = now_wall(),
				 .u.cgroup = &x};
	sink_set_event(&rec->out, &e);
	return x.id;
}

void sampler_frame_sys(struct recorder *rec, const struct sys_mem *sys)
{
	rec->frame_sys = sys;
}

void sampler_frame_cgroup(struct recorder *rec, int64_t id,
			  const struct cgroup_mem *m)
{
	assert(id > 0 && id <= rec->last_cgroup);
	xgrow((void **)&rec->frame_cgroups, &rec->cap_frame_cgroups,
	      rec->n_frame_cgroups + 1, sizeof(*rec->frame_cgroups));
	rec->frame_cgroups[rec->n_frame_cgroups++] =
		(struct sample_cgroup){id, *m};
}

/* memtrend itself and its ancestors (a shell, a service manager), whose
 * command lines hold a --name pattern: never its match. */
static void recorder_exclude_self(struct recorder *rec)
{
	struct sampler_query q = {.scope = SAMPLER_ANCESTORS,
				  .pid = getpid()};
	struct sampler_list l = {0};
	if (rec->processes.ops->list(rec->processes.ctx, &q, &l) == 0 && l.n) {
		rec->exclude = xmalloc(l.n * sizeof(*rec->exclude));
		for (size_t i = 0; i < l.n; i++)
			rec->exclude[i] = l.found[i].id.pid;
		rec->n_exclude = l.n;
	}
	sampler_list_release(&l);
}

/* Is a sampler's reading in flight (sampler.h: busy)? */
static bool samplers_busy(const struct recorder *rec)
{
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers[i].ops->busy &&
		    rec->samplers[i].ops->busy(rec->samplers[i].ctx))
			return true;
	return false;
}

/* Every sampler's readings finished since the last tick (wait: the one in
 * flight too, bounded), into this tick's frame. */
static void samplers_collect(struct recorder *rec, bool wait)
{
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers_started && rec->samplers[i].ops->collect)
			rec->samplers[i].ops->collect(rec->samplers[i].ctx,
						      rec, wait);
}

static void samplers_cancel(struct recorder *rec)
{
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers_started && rec->samplers[i].ops->cancel)
			rec->samplers[i].ops->cancel(rec->samplers[i].ctx);
}

/* Hand this tick's frame to the sinks and start the next one. */
static void frame_deliver(struct recorder *rec, double t, double mono,
			  bool last)
{
	struct sample_frame f = {
		.t = t, .mono = mono, .elapsed_s = mono - rec->t0_mono,
		.last = last, .n_roots = rec->n_roots,
		.procs = rec->procs, .n_procs = rec->n_procs,
		.sys = rec->frame_sys,
		.cgroups = rec->frame_cgroups,
		.n_cgroups = rec->n_frame_cgroups,
		.readings = rec->readings, .n_readings = rec->n_readings,
		.sites = rec->site_values, .n_sites = rec->n_site_values,
	};
	assert(!last || !rec->n_procs);
	assert(rec->n_procs <= rec->cap_procs &&
	       rec->n_readings <= rec->cap_readings &&
	       rec->n_frame_cgroups <= (size_t)rec->last_cgroup);
	sink_set_frame(&rec->out, &f);
	rec->n_procs = rec->n_frame_cgroups = rec->n_readings = 0;
	rec->n_site_values = 0;
	rec->frame_sys = NULL;
}

/* Follow a process and register its incarnation under target_id: the
 * process sampler first (NULL: it cannot be followed, and no other
 * sampler opens it), then the others. seen: NULL, or its identity as a
 * list() of this run found it (its command line is not read again).
 * 0, or -1 when the process cannot be followed. */
static int watch_open(struct recorder *rec, struct proc_watch *w, pid_t pid,
		      const struct proc_identity *seen, int64_t target_id,
		      double t)
{
	assert(target_id > 0 && target_id <= rec->last_target);
	assert(!seen || seen->pid == pid);
	memset(w, 0, sizeof(*w));
	const struct sampler *ps = &rec->processes;
	w->proc = ps->ops->open(ps->ctx, pid, seen);
	if (!w->proc)
		return -1;
	w->ident = ps->ops->identity(ps->ctx, w->proc);
	assert(w->ident && w->ident->pid == pid);
	w->cgroup = ps->ops->cgroup ? ps->ops->cgroup(ps->ctx, rec, w->proc) :
		    0;
	w->target_id = target_id;
	w->alive = true;
	for (size_t i = 0; i < rec->n_samplers; i++) {
		const struct sampler *sp = &rec->samplers[i];
		w->sampled[i] = sp->ops->open ?
				sp->ops->open(sp->ctx, pid, seen) : NULL;
	}
	w->inc_id = recorder_inc_begin(rec, target_id, w->ident, w->cgroup,
				       t);
	return 0;
}

static void watch_close(struct recorder *rec, struct proc_watch *w, double t,
			const char *reason)
{
	if (!w->proc)
		return;
	/* the samplers first: one may have a last word under the
	 * incarnation (the sites its process added since the last read) */
	for (size_t i = 0; i < rec->n_samplers; i++) {
		const struct sampler *sp = &rec->samplers[i];
		if (w->sampled[i] && sp->ops->close)
			sp->ops->close(sp->ctx, w->sampled[i]);
		w->sampled[i] = NULL;
	}
	recorder_inc_end(rec, w->inc_id, t, reason);
	rec->processes.ops->close(rec->processes.ctx, w->proc);
	w->proc = NULL;
	w->ident = NULL;
	w->alive = false;
	if (w->child)
		sink_set_target_end(&rec->out, w->target_id, t, true);
}

/* --regions: where a process's memory sits, after every read of its
 * sample (the footprint whole), at a root's first sample and when the
 * recording ends (sampler.h: snapshot). */
static void regions_snapshot(struct recorder *rec, struct proc_watch *w,
			     double t)
{
	if (!rec->o->regions || !w->proc)
		return;
	const struct sampler *ps = &rec->processes;
	if (ps->ops->snapshot)
		ps->ops->snapshot(ps->ctx, w->proc, &rec->out, w->inc_id, t,
				  &w->fig.mem);
	for (size_t i = 0; i < rec->n_samplers; i++) {
		const struct sampler *sp = &rec->samplers[i];
		if (w->sampled[i] && sp->ops->snapshot)
			sp->ops->snapshot(sp->ctx, w->sampled[i], &rec->out,
					  w->inc_id, t, &w->fig.mem);
	}
}

/* Sample one process; false when it is gone (then closed). Its figures
 * stay in w for this tick's frame; the caller adds its entry. */
static bool watch_sample(struct recorder *rec, struct proc_watch *w,
			 double t, double mono)
{
	const struct sampler *ps = &rec->processes;
	enum sampler_status st = ps->ops->read(ps->ctx, w->proc, &rec->out,
					       w->inc_id, t, mono, &w->fig);
	if (st != SAMPLER_OK) {
		watch_close(rec, w, t, st == SAMPLER_GONE ? "exited" :
			    "unreadable");
		return false;
	}
	/* the other memory sources, after the process sampler's figures
	 * (the GPU's device memory is added to the footprint) */
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (w->sampled[i])
			rec->samplers[i].ops->read(rec->samplers[i].ctx,
						   w->sampled[i], &rec->out,
						   w->inc_id, t, mono, &w->fig);
	if (w->regions_due) {
		w->regions_due = false;
		regions_snapshot(rec, w, t);
	}
	rec->samples++;
	return true;
}

void recorder_mem_add(struct proc_mem *sum, const struct proc_mem *m)
{
	sum->rss = nan0(sum->rss) + nan0(m->rss);
	sum->anon = nan0(sum->anon) + nan0(m->anon);
	sum->file = nan0(sum->file) + nan0(m->file);
	sum->shmem = nan0(sum->shmem) + nan0(m->shmem);
	sum->swap = nan0(sum->swap) + nan0(m->swap);
	sum->pagetables = nan0(sum->pagetables) + nan0(m->pagetables);
	sum->footprint = nan0(sum->footprint) + nan0(m->footprint);
	if (!isnan(m->gpu))
		sum->gpu = nan0(sum->gpu) + m->gpu;
	/* Each device's part; its total and used memory are the device's,
	 * whichever member read them (the room left to the members together
	 * is then total - used + their sum, analysis_pools.c). */
	for (size_t d = 0; d < SERIES_GPU_DEVICES; d++) {
		if (isnan(m->gpu_dev[d]))
			continue;
		sum->gpu_dev[d] = nan0(sum->gpu_dev[d]) + m->gpu_dev[d];
		sum->gpu_total[d] = m->gpu_total[d];
		sum->gpu_used[d] = m->gpu_used[d];
	}
}

/* A sum with nothing in it yet: every figure absent. */
void recorder_mem_clear(struct proc_mem *m)
{
	*m = (struct proc_mem){.rss = NAN, .anon = NAN, .file = NAN,
			       .shmem = NAN, .swap = NAN, .pagetables = NAN,
			       .footprint = NAN, .gpu = NAN};
	for (size_t d = 0; d < SERIES_GPU_DEVICES; d++)
		m->gpu_dev[d] = m->gpu_total[d] = m->gpu_used[d] = NAN;
}

/* pid_cmp for the skip lists of list(). */
static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* --children: the root's descendants not followed yet become targets of
 * their own (kind "child", ended with their process). */
static void children_rescan(struct recorder *rec, struct root *r, double t)
{
	pid_t rid = r->main.ident->pid;
	pid_t *skip = xmalloc((r->n_kids + 1) * sizeof(*skip));
	size_t n_skip = 0;
	for (size_t k = 0; k < r->n_kids; k++)
		if (r->kids[k].proc)
			skip[n_skip++] = r->kids[k].ident->pid;
	qsort(skip, n_skip, sizeof(*skip), pid_cmp);
	struct sampler_query q = {.scope = SAMPLER_DESCENDANTS, .pid = rid,
				  .skip = skip, .n_skip = n_skip};
	struct sampler_list l = {0};
	int rc = rec->processes.ops->list(rec->processes.ctx, &q, &l);
	free(skip);
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		const struct proc_identity *id = &l.found[i].id;
		char spec[64];
		snprintf(spec, sizeof(spec), "child %d of %d", (int)id->pid,
			 (int)rid);
		char name[128];
		snprintf(name, sizeof(name), "%s[%d]", id->comm, (int)id->pid);
		int64_t tid = recorder_target_add(rec, "child", spec, name,
						  r->target_id);
		/* Reuse a closed slot before growing the array. */
		size_t k;
		for (k = 0; k < r->n_kids; k++)
			if (!r->kids[k].proc)
				break;
		if (k == r->n_kids) {
			xgrow((void **)&r->kids, &r->cap_kids, r->n_kids + 1,
			      sizeof(*r->kids));
			r->n_kids++;
		}
		if (watch_open(rec, &r->kids[k], id->pid, id, tid, t))
			sink_set_target_end(&rec->out, tid, t, true);
		else
			r->kids[k].child = true;
	}
	sampler_list_release(&l);
}

void recorder_root_open(struct recorder *rec, struct root *r, pid_t pid,
			const struct proc_identity *seen, double t)
{
	if (watch_open(rec, &r->main, pid, seen, r->target_id, t))
		return;
	r->main.regions_due = rec->o->regions;
	if (rec->o->children) {
		r->tree_inc_id = recorder_inc_begin(rec, r->tree_target_id,
						    r->main.ident, 0, t);
		r->next_child_scan = -INFINITY;
	}
}

static void root_close_all(struct recorder *rec, struct root *r, double t,
			   const char *reason)
{
	if (r->main.proc && rec->o->children && r->tree_inc_id > 0)
		recorder_inc_end(rec, r->tree_inc_id, t, reason);
	watch_close(rec, &r->main, t, reason);
	for (size_t k = 0; k < r->n_kids; k++)
		watch_close(rec, &r->kids[k], t, reason);
	r->n_kids = 0;
}

static void name_scan(struct recorder *rec, struct root *r, double t,
		      double mono)
{
	if (mono < r->next_scan)
		return;
	/* While nothing matches, look at every tick (but not more often than
	 * NAME_SCAN_MIN_S): a short-lived first incarnation must not be
	 * missed, and a scan is O(processes). */
	r->next_scan = mono + fmax(rec->o->interval_s, NAME_SCAN_MIN_S) -
		       1e-3;
	struct sampler_query q = {.scope = SAMPLER_NAME, .re = &rec->name_re,
				  .exclude = rec->exclude,
				  .n_exclude = rec->n_exclude};
	struct sampler_list l = {0};
	if (rec->processes.ops->list(rec->processes.ctx, &q, &l) || !l.n) {
		sampler_list_release(&l);
		return;
	}
	/* oldest first */
	const struct proc_identity *found = &l.found[0].id;
	if (l.n > 1 && l.n != r->last_matches)
		note("%zu processes match '%s'; following the oldest, pid %d "
		     "(use -p or a tighter pattern for another)", l.n,
		     rec->o->name_regex, (int)found->pid);
	r->last_matches = l.n;
	recorder_root_open(rec, r, found->pid, found, t);
	sampler_list_release(&l);
	if (r->main.proc)
		r->matched = true;
}

static void sample_root(struct recorder *rec, struct root *r, double t,
			double mono)
{
	if (r->finished)
		return;
	if (!r->main.proc && r->kind == ROOT_NAME)
		name_scan(rec, r, t, mono);
	if (!r->main.proc)
		return;
	assert(r->target_id > 0 && r->main.inc_id > 0 && r->main.alive);
	assert(!rec->o->children || r->tree_inc_id > 0);
	if (!watch_sample(rec, &r->main, t, mono)) {
		root_close_all(rec, r, t, "exited");
		if (r->kind == ROOT_NAME)
			r->next_scan = -INFINITY;  /* look for a restart */
		else
			r->finished = true;
		return;
	}
	if (rec->o->children) {
		if (mono >= r->next_child_scan) {
			r->next_child_scan = mono + fmin(RESCAN_INTERVAL_S,
				fmax(rec->o->interval_s, 0.5));
			children_rescan(rec, r, t);
		}
		struct proc_mem *sum = &r->tree_sum;
		*sum = r->main.fig.mem;
		for (size_t k = 0; k < r->n_kids; k++) {
			struct proc_watch *w = &r->kids[k];
			if (!w->proc || !watch_sample(rec, w, t, mono))
				continue;
			recorder_mem_add(sum, &w->fig.mem);
			recorder_frame_add(rec, w->target_id, w->inc_id, NULL,
					   "child", true, w->ident,
					   &w->fig.mem,
					   w->fig.smaps_read ? &w->fig.smaps :
					   NULL);
		}
		recorder_frame_add(rec, r->tree_target_id, r->tree_inc_id,
				   r->name, "tree", false, r->main.ident, sum,
				   NULL);
	}
	recorder_frame_add(rec, r->target_id, r->main.inc_id, r->name,
			   r->target_kind, false, r->main.ident,
			   &r->main.fig.mem,
			   r->main.fig.smaps_read ? &r->main.fig.smaps : NULL);
}


/* The machine's and the cgroups' figures: with every sample, but at most
 * once per SYSTEM_INTERVAL_S. They change on the scale of seconds (PSI's
 * shortest average is 10 s), and at sub-second intervals reading and
 * storing them at every tick would cost more than the process sample. */
static void system_tick(struct recorder *rec, double t, double mono)
{
	if (mono < rec->next_system)
		return;
	rec->next_system = mono + SYSTEM_INTERVAL_S - 1e-3;
	if (rec->processes.ops->tick)
		rec->processes.ops->tick(rec->processes.ctx, rec, t);
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers[i].ops->tick)
			rec->samplers[i].ops->tick(rec->samplers[i].ctx, rec,
						   t);
}

/* ESTABLISHED connections to the --conn-port ports, counted on the
 * sockets of the root's processes (main and children) when their fds are
 * readable. A root that is not running gets no reading (not a zero: its
 * memory has no sample at this tick either). At most once a second, like
 * the machine's figures: reading /proc/PID/net/tcp walks the kernel's
 * whole connection hash table (about 1 ms even for a handful of sockets),
 * and idle windows are a minute long, not a second. */
static void connections_tick(struct recorder *rec, struct root *r, double t,
			     double mono)
{
	if (!rec->o->n_conn_ports || !r->main.proc || r->conn_source_id <= 0 ||
	    mono < r->next_conn)
		return;
	/* Never count memtrend's own probe: while a work command or a scrape
	 * is in flight it may hold a connection to this very port; count at
	 * a later tick instead. */
	if (samplers_busy(rec))
		return;
	r->next_conn = mono + SYSTEM_INTERVAL_S - 1e-3;
	size_t n = 0;
	xgrow((void **)&r->conn_pids, &r->conn_pids_cap, r->n_kids + 1,
	      sizeof(pid_t));
	r->conn_pids[n++] = r->main.ident->pid;
	for (size_t k = 0; k < r->n_kids; k++)
		if (r->kids[k].proc)
			r->conn_pids[n++] = r->kids[k].ident->pid;
	double count = NAN;
	bool restricted = true;
	if (!rec->processes.ops->connections ||
	    rec->processes.ops->connections(rec->processes.ctx, r->conn_pids, n,
					rec->o->conn_ports,
					rec->o->n_conn_ports, &count,
					&restricted))
		count = NAN;
	else if (!isnan(count) && !restricted &&
		 !rec->conn_unrestricted_noted) {
		const char *msg = "the target's file descriptors are not "
				  "readable: connections count every socket "
				  "on the port in its network namespace";
		note("%s", msg);
		sink_set_note(&rec->out, t, r->main.inc_id, msg);
		rec->conn_unrestricted_noted = true;
	}
	reading_add(rec, r->conn_source_id, t, count);
}

/*
 * A tick's stamp (wall-clock UTC seconds, stamp_clock.h: the wall clock at
 * the first tick plus the time elapsed since; a step of the wall clock is
 * noted, never followed). An on-time tick is stamped with its deadline, so
 * regular ticks carry an exact arithmetic sequence of stamps: the store
 * folds runs of equal samples into one row on that condition, and the
 * reader gives each its time back. A late (or early: a signal) tick is
 * stamped when it runs.
 */
static double tick_stamp(struct recorder *rec, double deadline, double mono)
{
	/* mono was read just before; the other two follow it at once */
	double boot = now_boottime(), wall = now_wall();
	double slack = fmin(0.25 * rec->o->interval_s, 0.05);
	double at = fabs(mono - deadline) <= slack ? deadline : mono;
	char msg[200];
	bool noted;
	double t = stamp_clock_stamp(&rec->clock, at, mono, boot, wall, msg,
				     sizeof(msg), &noted);
	if (noted) {
		note("%s", msg);
		sink_set_note(&rec->out, t, 0, msg);
	}
	rec->last_stamp = t;
	return t;
}


static void tick(struct recorder *rec, double t, double mono)
{
	assert(rec->n_roots <= rec->cap_roots && !rec->n_procs);
	recorder_host_scan(rec, t, mono);
	for (size_t i = 0; i < rec->n_roots; i++)
		sample_root(rec, &rec->roots[i], t, mono);
	recorder_groups_tick(rec, t);
	/* The samplers' readings apart from processes (the work counter),
	 * read in threads of their own between ticks; connections are
	 * counted while none is in flight (busy). */
	samplers_collect(rec, false);
	for (size_t i = 0; i < rec->n_roots; i++)
		connections_tick(rec, &rec->roots[i], t, mono);
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers_started && rec->samplers[i].ops->request)
			rec->samplers[i].ops->request(rec->samplers[i].ctx,
						      rec, t);
	/* After sampling (the first sample of a command that exited at
	 * once is of its zombie, as its reaper holds it until this): an end
	 * heard here asks for one more tick at once, which finds it gone. */
	recorder_command_reap(rec);
	/* After the processes, so a cgroup first seen this tick is read. */
	system_tick(rec, t, mono);
	frame_deliver(rec, t, mono, false);
	/* After the frame, which points into the roots it moves. */
	recorder_host_compact(rec, t);
}

static bool all_finished(const struct recorder *rec)
{
	if (rec->o->all)
		return false;  /* a host has processes until it stops */
	for (size_t i = 0; i < rec->n_roots; i++)
		if (!rec->roots[i].finished)
			return false;
	return true;
}

/* Tell the caller where things stand (recorder_tick). */
static void tick_report(struct recorder *rec, double t, double mono)
{
	if (!rec->hooks->on_tick)
		return;
	struct recorder_tick tick = {
		.t = t,
		.elapsed_s = mono - rec->t0_mono,
		.samples = rec->samples,
		.targets = rec->n_roots,
		.target_rows = rec->target_rows,
		.all = rec->o->all,
	};
	rec->hooks->on_tick(rec->hooks->ctx, &tick);
}

static int stop_requested(const struct recorder *rec)
{
	return rec->hooks->should_stop ?
	       rec->hooks->should_stop(rec->hooks->ctx) : 0;
}

/* Drain the caller's wake descriptor (read only what poll says is
 * there, so a blocking one is fine too). */
static void wake_drain(int fd)
{
	char buf[64];
	struct pollfd p = {fd, POLLIN, 0};
	while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN) &&
	       read(fd, buf, sizeof(buf)) > 0)
		;
}

/*
 * Sleep to the deadline. Cut short by a stop (should_stop(), looked at
 * whenever a signal or the wake descriptor interrupts the sleep) unless
 * stopping is under way already -- then only the command's exit does, so
 * that waiting for it does not turn the loop into a busy one -- and by
 * the -- COMMAND's exit. Any other signal (a work command's SIGCHLD under
 * a caller's handler) only resumes the sleep.
 */
static void sleep_until(struct recorder *rec, double deadline_mono,
			bool stopping)
{
	int wake_fd = rec->hooks->wake_fd;
	for (;;) {
		if (!stopping && stop_requested(rec))
			return;
		double left = deadline_mono - now_monotonic();
		if (left <= 0)
			return;
		struct pollfd p[2];
		nfds_t n = 0;
		if (rec->command_running)
			p[n++] = (struct pollfd){rec->command.fd, POLLIN, 0};
		if (wake_fd >= 0)
			p[n++] = (struct pollfd){wake_fd, POLLIN, 0};
		if (!n) {
			/* Nothing to watch but the clock (record -p, --name):
			 * sleep to the absolute deadline, as bench_floor
			 * does; a signal (EINTR) goes round the loop. */
			struct timespec at = {.tv_sec = (time_t)deadline_mono};
			at.tv_nsec = (long)((deadline_mono -
					     (double)at.tv_sec) * 1e9);
			if (at.tv_nsec > 999999999L)
				at.tv_nsec = 999999999L;
			int e = clock_nanosleep(CLOCK_MONOTONIC,
						TIMER_ABSTIME, &at, NULL);
			if (e != EINTR)
				return;  /* the deadline, or cannot wait */
			continue;
		}
		struct timespec ts = {.tv_sec = (time_t)left};
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		int r = ppoll(p, n, &ts, NULL);
		if (r < 0 && errno != EINTR)
			return;  /* cannot wait: tick early rather than spin */
		for (nfds_t i = 0; r > 0 && i < n; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (p[i].fd == wake_fd)
				wake_drain(wake_fd);
			else
				return;  /* the command exited */
		}
	}
}

/* Create roots for every target given; EXIT_OK or EXIT_USAGE. */
static int setup_roots(struct recorder *rec, double t)
{
	const struct recorder_options *o = rec->o;
	size_t n = o->n_pids + (o->name_regex ? 1 : 0) + (o->command ? 1 : 0);
	rec->roots = xcalloc(n ? n : 1, sizeof(*rec->roots));
	rec->cap_roots = n ? n : 1;
	rec->self = getpid();
	rec->next_host_scan = -INFINITY;
	for (size_t i = 0; i < o->n_pids; i++) {
		struct sampler_query q = {.scope = SAMPLER_ONE,
					  .pid = o->pids[i]};
		struct sampler_list l = {0};
		if (rec->processes.ops->list(rec->processes.ctx, &q, &l) || !l.n) {
			sampler_list_release(&l);
			error("no process with PID %d", (int)o->pids[i]);
			return EXIT_USAGE;
		}
		const struct proc_identity id = l.found[0].id;
		struct root *r = &rec->roots[rec->n_roots++];
		r->kind = ROOT_PID;
		r->pid = o->pids[i];
		char spec[32];
		snprintf(spec, sizeof(spec), "%d", (int)r->pid);
		snprintf(r->name, sizeof(r->name), "%s",
			 o->pid_names && o->pid_names[i] ? o->pid_names[i] :
			 id.comm);
		r->target_kind = "pid";
		r->target_id = recorder_target_add(rec, "pid", spec, r->name,
						   0);
		sampler_list_release(&l);
	}
	if (o->name_regex) {
		int rc = regcomp(&rec->name_re, o->name_regex,
				 REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[256];
			regerror(rc, &rec->name_re, msg, sizeof(msg));
			error("bad --name pattern '%s': %s", o->name_regex,
			      msg);
			return EXIT_USAGE;
		}
		rec->have_re = true;
		struct root *r = &rec->roots[rec->n_roots++];
		r->kind = ROOT_NAME;
		r->next_scan = -INFINITY;
		snprintf(r->name, sizeof(r->name), "%s", o->name_regex);
		r->target_kind = "name";
		r->target_id = recorder_target_add(rec, "name", o->name_regex,
						   r->name, 0);
	}
	if (o->command) {
		int rc = recorder_command_spawn(rec);
		if (rc != EXIT_OK)
			return rc;
		struct root *r = &rec->roots[rec->n_roots++];
		r->kind = ROOT_COMMAND;
		r->pid = rec->command.child;
		target_command_name(o->command, r->name, sizeof(r->name));
		r->target_kind = "command";
		r->target_id = recorder_target_add(rec, "command",
						   o->command[0], r->name, 0);
	}
	for (size_t i = 0; i < rec->n_roots; i++) {
		struct root *r = &rec->roots[i];
		assert(r->target_id > 0);
		if (o->children) {
			char spec[32];
			snprintf(spec, sizeof(spec), "tree of %lld",
				 (long long)r->target_id);
			r->tree_target_id = recorder_target_add(rec, "tree",
								spec, r->name,
								r->target_id);
		}
		if (r->kind != ROOT_NAME) {
			recorder_root_open(rec, r, r->pid, NULL, t);
			if (!r->main.proc) {
				error("cannot read process %d", (int)r->pid);
				return EXIT_USAGE;
			}
		}
	}
	return EXIT_OK;
}

/* A source declared to the sinks: its id (sampler.h). */
int64_t sampler_source_declare(struct recorder *rec, const char *role,
			       const char *name, const char *method,
			       const char *spec, int64_t target)
{
	struct sample_source x = {++rec->last_source, role, name, method,
				  spec, target};
	struct sample_event e = {.kind = SAMPLE_SOURCE, .t = now_wall(),
				 .u.source = &x};
	sink_set_event(&rec->out, &e);
	return x.id;
}

/* Declare the connection counts to the sinks and start the samplers
 * (the work counter's and gauges' thread). EXIT_OK or EXIT_RUNTIME. */
static int setup_sources(struct recorder *rec)
{
	const struct recorder_options *o = rec->o;
	if (o->n_conn_ports) {
		char spec[256];
		size_t len = 0;
		spec[0] = '\0';
		for (size_t k = 0; k < o->n_conn_ports && len < 200; k++)
			len += (size_t)snprintf(spec + len, sizeof(spec) - len,
						"%s%u", k ? "," : "port ",
						(unsigned)o->conn_ports[k]);
		for (size_t i = 0; i < rec->n_roots; i++) {
			struct root *r = &rec->roots[i];
			r->conn_source_id = sampler_source_declare(rec,
				"connections",
				"connections", "tcp", spec, r->target_id);
		}
	}
	/* the samplers' sources (the work counter and gauges: their
	 * thread starts) */
	rec->samplers_started = true;
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers[i].ops->start &&
		    rec->samplers[i].ops->start(rec->samplers[i].ctx, rec))
			return EXIT_RUNTIME;
	return EXIT_OK;
}

/* The end of the run: the sources' last readings (in a last frame when
 * the run started), every open incarnation closed. The probe and the
 * sinks are the caller's: their end() is recorder_run()'s. */
static void recorder_release(struct recorder *rec, double t, bool started)
{
	/* the samplers' last readings (stopping: never waiting out a hung
	 * scrape or a slow command; the one in flight is a gap) */
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers_started && rec->samplers[i].ops->finish)
			rec->samplers[i].ops->finish(rec->samplers[i].ctx, rec,
						     t);
	if (started)
		frame_deliver(rec, t, now_monotonic(), true);
	for (size_t i = 0; i < rec->n_roots; i++) {
		regions_snapshot(rec, &rec->roots[i].main, t);
		root_close_all(rec, &rec->roots[i], t, "recording ended");
		free(rec->roots[i].kids);
		free(rec->roots[i].conn_pids);
	}
	recorder_groups_release(rec, t);
	free(rec->roots);
	if (rec->have_re)
		regfree(&rec->name_re);
	free(rec->exclude);
	free(rec->procs);
	free(rec->frame_cgroups);
	free(rec->readings);
	free(rec->site_values);
	for (size_t i = 0; i < rec->n_samplers; i++)
		if (rec->samplers[i].ops->free)
			rec->samplers[i].ops->free(rec->samplers[i].ctx);
	rec->processes.ops->free(rec->processes.ctx);
}

int recorder_run(const struct recorder_options *o, struct probe *probe,
		 const struct sink *sinks, size_t n_sinks,
		 const struct recorder_hooks *hooks, struct recorder_result *res)
{
	static const struct recorder_hooks no_hooks = {.wake_fd = -1};
	assert(o && probe && (sinks || !n_sinks) && res);
	assert(o->interval_s > 0);
	struct recorder rec = {0};
	rec.o = o;
	rec.out = (struct sink_set){sinks, n_sinks};
	rec.hooks = hooks ? hooks : &no_hooks;
	rec.command.fd = -1;
	rec.command_status = -1;
	stamp_clock_init(&rec.clock);
	rec.last_stamp = NAN;
	res->samples = 0;
	res->command_status = -1;
	res->duration_ended = false;

	/* The samplers, one line each: the process sampler (Linux's /proc
	 * through the caller's probe: another platform's is another file,
	 * sampler.h), then the memory sources read per process after it,
	 * then the readers apart from processes. */
	rec.processes = proc_sampler(probe, o->smaps, o->smaps_interval_s,
				 o->regions);
	/* what a process sampler must fill (sampler.h) */
	assert(rec.processes.ops->list && rec.processes.ops->open &&
	       rec.processes.ops->identity && rec.processes.ops->read &&
	       rec.processes.ops->close && rec.processes.ops->free);
	rec.samplers[rec.n_samplers++] = gpu_sampler(probe_proc_root(probe),
						     !o->no_gpu);
	if (o->n_sources)
		rec.samplers[rec.n_samplers++] = sources_sampler(o->sources,
			o->n_sources, o->source_roots, o->n_pids,
			o->source_timeout_s);
	if (o->sites && o->command)
		rec.samplers[rec.n_samplers++] = sites_sampler(o,
			&rec.command_env, &rec.command_pass_fd);
	else if (o->sites)
		rec.samplers[rec.n_samplers++] = bpf_sites_sampler(o);
	assert(rec.n_samplers <= RECORDER_MAX_SAMPLERS);
	struct sink_run run = {
		.interval_s = o->interval_s, .all = o->all,
		.invocation = o->invocation,
		/* the GPU's (samplers[0]): what it can read */
		.gpu_sources = rec.samplers[0].ops->describe(
			rec.samplers[0].ctx),
	};
	if (sink_set_begin(&rec.out, &run)) {
		double t = now_wall();
		recorder_release(&rec, t, false);
		sink_set_end(&rec.out, t, false);
		return EXIT_RUNTIME;
	}
	recorder_exclude_self(&rec);
	double t = now_wall();
	/* --sites whose region could not be made (said): nothing starts */
	bool sites_failed = false;
	for (size_t i = 0; i < rec.n_samplers; i++)
		sites_failed |= rec.samplers[i].ops == &sites_sampler_ops &&
				!rec.samplers[i].ctx;
	int rc = sites_failed ? EXIT_RUNTIME : setup_roots(&rec, t);
	if (rc == EXIT_OK)
		rc = setup_sources(&rec);
	if (rc != EXIT_OK) {
		recorder_command_finish(&rec, true);
		recorder_release(&rec, t, false);
		/* Nothing was recorded: a sink may undo what it made (a new
		 * file goes again, so that the retry is not refused). */
		sink_set_end(&rec.out, t, false);
		return rc;
	}

	rec.t0_mono = now_monotonic();
	double next = rec.t0_mono;
	double stop_at = INFINITY;
	bool stopping = false;
	for (;;) {
		double mono = now_monotonic();
		t = tick_stamp(&rec, next, mono);
		tick(&rec, t, mono);
		tick_report(&rec, t, mono);

		if (all_finished(&rec))
			break;
		bool timed_out = isfinite(o->duration_s) &&
				 mono - rec.t0_mono >= o->duration_s;
		if (timed_out && !rec.command_running)
			break;
		int stop = stopping ? 0 : stop_requested(&rec);
		if (timed_out && !stopping && !stop) {
			/* --duration with a -- COMMAND memtrend started: the
			 * command is ours to end (SIGTERM, as systemd would),
			 * recorded to its exit; its status is not passed on
			 * (the recording ended by plan: exit 0). */
			stop = SIGTERM;
			res->duration_ended = true;
		}
		if (stop) {
			stopping = true;
			if (!rec.command_running)
				break;
			/* A command: let it end first, so its exit status
			 * can be passed on. A signal it had already (a
			 * terminal's Ctrl-C) is not sent again; others are
			 * forwarded -- after this tick's readings of the
			 * sources, taken while the command still serves them
			 * (a work counter's last value; bounded by the source
			 * timeout). From then on a failing source is the
			 * command going away, by our hand: a gap, not news. */
			if (!(stop & RECORDER_STOP_SEEN)) {
				samplers_collect(&rec, true);
				reaper_signal(&rec.command,
					      stop & ~RECORDER_STOP_SEEN);
			}
			samplers_cancel(&rec);
			stop_at = mono + STOP_GRACE_S;
		}
		if (stopping && mono >= stop_at) {
			warning("the command (pid %d) did not end within %g s "
				"of the stop: ending it and all it started "
				"(SIGTERM, then SIGKILL after %g s)",
				(int)rec.command.child, STOP_GRACE_S,
				(double)RECORDER_KILL_GRACE_S);
			break;
		}
		if (rec.command_end_tick) {
			/* the command ended: one more tick at once (above
			 * it finds the process gone) */
			rec.command_end_tick = false;
			next = now_monotonic();
			continue;
		}
		next += o->interval_s;
		if (next < mono)
			next = mono + o->interval_s;  /* skip, don't burst */
		if (isfinite(o->duration_s) && !stopping)
			next = fmin(next, rec.t0_mono + o->duration_s);
		sleep_until(&rec, next, stopping);
	}
	t = now_wall();
	recorder_command_reap(&rec);
	/* Ended at once only when the command still runs (its stop grace
	 * is over): one whose process is gone has only its leftovers to be
	 * ended, with their grace, even if its reaper has not said so yet. */
	bool command_alive = false;
	for (size_t i = 0; i < rec.n_roots; i++)
		if (rec.roots[i].kind == ROOT_COMMAND && !rec.roots[i].finished)
			command_alive = rec.command_running;
	recorder_command_finish(&rec, command_alive);
	for (size_t i = 0; i < rec.n_roots; i++)
		if (rec.roots[i].kind == ROOT_NAME && !rec.roots[i].matched)
			warning("no process matched '%s' while recording: "
				"nothing was recorded for it", o->name_regex);
	res->samples = rec.samples;
	res->command_status = rec.command_status;
	recorder_release(&rec, t, true);
	if (sink_set_end(&rec.out, t, true))
		return EXIT_RUNTIME;
	return EXIT_OK;
}
