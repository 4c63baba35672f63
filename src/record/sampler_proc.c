/*
 * sampler_proc.c - Linux's /proc as the recorder's process sampler
 * (sampler.h): which processes there are, each incarnation's identity,
 * memory cgroup and figures, the machine's and the cgroups' figures,
 * a tree's connections -- all read through the probe (probe.h, whose
 * proc and sys roots the tests point at fixture trees).
 *
 * What it does not do: decide what is a target, when to sample, or what
 * an incarnation's end means (the recorder does), nor keep anything of
 * an ended process: close() frees its handle at once. The figures are
 * read into the recorder's storage (struct sampler_figures), not copied.
 *
 * Cost per sample: what probe_proc_read() costs (one pread of
 * /proc/PID/status through a kept fd) and one indirect call; smaps_rollup
 * only every smaps_interval_s (it grows with resident memory). A scan
 * (list) is O(processes) and reads the identity only of processes not
 * skipped (not followed yet). Per machine tick: /proc/meminfo and PSI
 * (kept fds) and each distinct memory cgroup's files, once a second at
 * most. Memory: one handle per followed process (probe.h), one entry per
 * distinct cgroup for the run.
 *
 * A process the recorder follows is found gone by its status read
 * (PROBE_GONE: the kept fd reads nothing once that incarnation exits,
 * even when the pid is reused): read() says SAMPLER_GONE, and the
 * recorder ends the incarnation.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common.h"
#include "probe.h"
#include "regions.h"
#include "sampler.h"
#include "sink_set.h"
#include "smaps.h"
#include "target.h"

struct proc_cgroup {
	struct probe_cgroup *cg;   /* owned */
	int64_t id;                /* the recorder's */
};

struct proc_sampler {
	struct probe *probe;       /* the caller's */
	bool smaps, regions;
	double smaps_interval_s;
	/* every distinct memory cgroup seen in the run, kept open */
	struct proc_cgroup *cgroups;
	size_t n_cgroups, cap_cgroups;
	struct sys_mem sys;        /* the latest machine figures (the
				      frame points at them) */
	bool smaps_denied_noted, regions_denied_noted;
	bool nofile_noted;         /* the open-file limit was said */
	size_t n_open;             /* processes open now (ps_open/close) */
};

/* Files a followed process keeps open (stat, status, statm; smaps_rollup
 * comes on top with --smaps), and the files kept for the rest of the run
 * -- the store and its journal, the machine's files, the cgroups' (three
 * each), the sources', a listener's -- which the processes must leave
 * room for: an open that fails there loses more than one process. */
#define PROC_FILES 3
#define FD_HEADROOM 64

/* One followed incarnation. */
struct proc_one {
	struct probe_proc *pp;     /* owned */
	int64_t cgroup;            /* the recorder's id; 0: none; -1: not
				      looked up yet */
	double last_smaps;         /* monotonic; -inf before the first */
};

void sampler_list_release(struct sampler_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		proc_identity_release(&l->found[i].id);
		free(l->found[i].cgroup_path);
	}
	free(l->found);
	*l = (struct sampler_list){0};
}

/* ---- list ---------------------------------------------------------------- */

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static bool skipped(const struct sampler_query *q, pid_t pid)
{
	return q->n_skip && bsearch(&pid, q->skip, q->n_skip, sizeof(pid_t),
				    pid_cmp);
}

/* The list takes id over (its command line). */
static struct sampler_found *found_add(struct sampler_list *l,
				       struct proc_identity *id)
{
	xgrow((void **)&l->found, &l->cap, l->n + 1, sizeof(*l->found));
	struct sampler_found *f = &l->found[l->n++];
	*f = (struct sampler_found){.id = *id};
	id->cmdline = NULL;
	return f;
}

/* A kernel thread has no memory of its own: no command line, and
 * kthreadd (pid 2) or kthreadd's child. Nor has a zombie (its parent has
 * not reaped it yet): left out too, or each rescan would add it again.
 * Nor has a process caught exiting: the kernel reads an empty command
 * line once its memory is gone, before its state turns Z (seen on a
 * loaded machine: a curl of another test recorded with no command
 * line). A process that blanks its own argv is left out with them,
 * until a rescan reads it otherwise. */
static bool has_no_memory(const struct proc_identity *id)
{
	return !*id->cmdline || id->state == 'Z' || id->state == 'X';
}

/* --all: every process with memory of its own but skip's and, with
 * have_user, another user's; its cgroup path when asked (a process gone
 * meanwhile is left out). */
static int list_all(struct proc_sampler *ps, const struct sampler_query *q,
		    struct sampler_list *out)
{
	pid_t *pids;
	size_t n;
	if (probe_list_pids(ps->probe, &pids, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pid_t pid = pids[i];
		if (skipped(q, pid))
			continue;
		uid_t uid;
		if (q->have_user &&
		    (probe_proc_uid(ps->probe, pid, &uid) || uid != q->user))
			continue;
		struct proc_identity id;
		int rc = probe_identity_read(ps->probe, pid, &id);
		if (rc == PROBE_DENIED && !out->denied)
			out->denied = pid;
		if (rc != PROBE_OK)
			continue;
		char *path = NULL;
		if (has_no_memory(&id) ||
		    (q->cgroup_paths &&
		     probe_cgroup_path(ps->probe, pid, &path) != PROBE_OK)) {
			proc_identity_release(&id);
			continue;
		}
		found_add(out, &id)->cgroup_path = path;
	}
	free(pids);
	return 0;
}

static int list_descendants(struct proc_sampler *ps,
			    const struct sampler_query *q,
			    struct sampler_list *out)
{
	pid_t *pids;
	size_t n;
	if (target_descendants(ps->probe, q->pid, &pids, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct proc_identity id;
		if (skipped(q, pids[i]) ||
		    probe_identity_read(ps->probe, pids[i], &id) != PROBE_OK)
			continue;
		found_add(out, &id);
	}
	free(pids);
	return 0;
}

/* pid and its parents; a process whose identity cannot be read ends the
 * chain, itself listed with its pid alone. Bounded: pid namespaces nest
 * a few levels deep, and a chain cannot be longer than the processes. */
static int list_ancestors(struct proc_sampler *ps, pid_t pid,
			  struct sampler_list *out)
{
	for (int depth = 0; pid > 0 && depth < 4096; depth++) {
		struct proc_identity id;
		if (probe_identity_read(ps->probe, pid, &id) != PROBE_OK) {
			id = (struct proc_identity){.pid = pid};
			found_add(out, &id);
			break;
		}
		pid = id.ppid;
		found_add(out, &id);
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct proc_identity *x = &((const struct sampler_found *)a)->id,
				   *y = &((const struct sampler_found *)b)->id;
	if (x->start_ticks != y->start_ticks)
		return x->start_ticks < y->start_ticks ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int list_name(struct proc_sampler *ps, const struct sampler_query *q,
		     struct sampler_list *out)
{
	assert(q->re);
	pid_t *pids;
	size_t n;
	if (probe_list_pids(ps->probe, &pids, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct proc_identity id;
		if (target_excluded(pids[i], q->exclude, q->n_exclude) ||
		    probe_identity_read(ps->probe, pids[i], &id) != PROBE_OK)
			continue;
		if (target_name_eligible(q->re, &id, q->exclude,
					 q->n_exclude))
			found_add(out, &id);
		else
			proc_identity_release(&id);
	}
	free(pids);
	qsort(out->found, out->n, sizeof(*out->found), by_start);
	return 0;
}

static int ps_list(void *ctx, const struct sampler_query *q,
		   struct sampler_list *out)
{
	struct proc_sampler *ps = ctx;
	assert(q && out && !out->n);
	switch (q->scope) {
	case SAMPLER_ONE: {
		struct proc_identity id;
		int rc = probe_identity_read(ps->probe, q->pid, &id);
		if (rc == PROBE_OK)
			found_add(out, &id);
		else if (rc == PROBE_DENIED)
			out->denied = q->pid;
		return 0;
	}
	case SAMPLER_ALL:
		return list_all(ps, q, out);
	case SAMPLER_DESCENDANTS:
		return list_descendants(ps, q, out);
	case SAMPLER_ANCESTORS:
		return list_ancestors(ps, q->pid, out);
	case SAMPLER_NAME:
		return list_name(ps, q, out);
	}
	return -1;
}

/* ---- per incarnation ----------------------------------------------------- */

/* The recorder's id of pid's memory cgroup, opened and declared when
 * first seen; 0: none readable. A cgroup already held is found by its
 * key, read from /proc/PID/cgroup alone: its files are opened once per
 * run, not once per process (at `record --all`'s first scan, three opens
 * and closes per process). */
static int64_t cgroup_for(struct proc_sampler *ps, struct recorder *rec,
			  pid_t pid)
{
	char *known;
	if (probe_cgroup_key_of(ps->probe, pid, &known) == PROBE_OK &&
	    known) {
		for (size_t i = 0; i < ps->n_cgroups; i++)
			if (strcmp(probe_cgroup_key(ps->cgroups[i].cg),
				   known) == 0) {
				free(known);
				return ps->cgroups[i].id;
			}
	}
	free(known);
	struct probe_cgroup *cg;
	if (probe_cgroup_open(ps->probe, pid, &cg) || !cg)
		return 0;
	const char *key = probe_cgroup_key(cg);
	for (size_t i = 0; i < ps->n_cgroups; i++)
		if (strcmp(probe_cgroup_key(ps->cgroups[i].cg), key) == 0) {
			probe_cgroup_close(cg);
			return ps->cgroups[i].id;
		}
	int64_t id = sampler_cgroup_declare(rec, key);
	assert(id > 0);
	xgrow((void **)&ps->cgroups, &ps->cap_cgroups, ps->n_cgroups + 1,
	      sizeof(*ps->cgroups));
	ps->cgroups[ps->n_cgroups++] = (struct proc_cgroup){cg, id};
	return id;
}

/* Files are kept open per process (ps_open), and a login's soft limit is
 * often 1,024 under a hard one of 500,000 or more: when the soft one is
 * reached, take what is allowed, as any process may, so that --all on a
 * host of thousands needs no ulimit -n first. Only when needed: a command
 * started by record (spawned before any list) keeps the limit it had.
 * true when the soft limit was raised. */
static bool open_file_limit_raise(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return false;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Is there room for one more process's files, FD_HEADROOM left over? */
static bool fd_room(const struct proc_sampler *ps)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return true;
	return (ps->n_open + 1) * PROC_FILES + FD_HEADROOM <= rl.rlim_cur;
}

/* The probe's handle, when the open-file limit leaves room for it
 * (raised once first when it does not): PROBE_NOFILE otherwise. */
static int proc_open_within_limit(struct proc_sampler *ps, pid_t pid,
				  const struct proc_identity *seen,
				  struct probe_proc **pp)
{
	if (!fd_room(ps) && !(open_file_limit_raise() && fd_room(ps)))
		return PROBE_NOFILE;
	return seen ? probe_proc_open_seen(ps->probe, seen, pp) :
		      probe_proc_open(ps->probe, pid, pp);
}

static void *ps_open(void *ctx, pid_t pid, const struct proc_identity *seen)
{
	struct proc_sampler *ps = ctx;
	assert(!seen || seen->pid == pid);
	struct probe_proc *pp = NULL;
	int rc = proc_open_within_limit(ps, pid, seen, &pp);
	/* room by the count, yet the kernel said EMFILE (files of others):
	 * raise if not raised yet, and try once more */
	if (rc == PROBE_NOFILE && open_file_limit_raise())
		rc = proc_open_within_limit(ps, pid, seen, &pp);
	if (rc == PROBE_NOFILE && !ps->nofile_noted) {
		/* Once, not once per process: --all on a host of thousands
		 * under a soft limit of 1,024 would print a line for each. */
		struct rlimit rl;
		char lim[32] = "?";
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
			snprintf(lim, sizeof(lim), "%llu",
				 (unsigned long long)rl.rlim_cur);
		warning("the open-file limit (%s) is reached: processes "
			"beyond it are not followed (%d files are kept "
			"open per process, %d for the rest; raise the limit "
			"with ulimit -n)", lim, PROC_FILES, FD_HEADROOM);
		ps->nofile_noted = true;
	}
	if (rc != PROBE_OK)
		return NULL;
	ps->n_open++;
	struct proc_one *p = xcalloc(1, sizeof(*p));
	p->pp = pp;
	p->last_smaps = -INFINITY;
	p->cgroup = -1;  /* not looked up yet */
	return p;
}

static void ps_close(void *ctx, void *proc)
{
	struct proc_sampler *ps = ctx;
	assert(ps->n_open > 0);
	ps->n_open--;
	struct proc_one *p = proc;
	probe_proc_close(p->pp);
	free(p);
}

static const struct proc_identity *ps_identity(void *ctx, void *proc)
{
	(void)ctx;
	return probe_proc_identity(((struct proc_one *)proc)->pp);
}

static int64_t ps_cgroup(void *ctx, struct recorder *rec, void *proc)
{
	struct proc_one *p = proc;
	if (p->cgroup < 0)
		p->cgroup = cgroup_for(ctx, rec,
				       probe_proc_identity(p->pp)->pid);
	return p->cgroup;
}

/* The status figures, then smaps_rollup when due. Without ptrace access
 * smaps_rollup is closed to us: a note once, the status figures still
 * recorded, and that process's smaps_rollup not tried again. */
static enum sampler_status ps_read(void *ctx, void *proc,
				   const struct sink_set *out, int64_t inc,
				   double t, double mono,
				   struct sampler_figures *f)
{
	struct proc_sampler *ps = ctx;
	struct proc_one *p = proc;
	int rc = probe_proc_read(p->pp, &f->mem);
	if (rc != PROBE_OK)
		return rc == PROBE_GONE ? SAMPLER_GONE : SAMPLER_UNREADABLE;
	f->smaps_read = false;
	if (!ps->smaps || mono - p->last_smaps < ps->smaps_interval_s)
		return SAMPLER_OK;
	p->last_smaps = mono;
	rc = probe_proc_read_smaps(p->pp, &f->smaps);
	if (rc == PROBE_OK) {
		f->smaps_read = true;
	} else if (rc == PROBE_DENIED) {
		p->last_smaps = INFINITY;
		if (!ps->smaps_denied_noted) {
			char msg[160];
			snprintf(msg, sizeof(msg), "smaps_rollup of pid %d is "
				 "not readable (needs ptrace access): pss "
				 "figures not recorded",
				 (int)probe_proc_identity(p->pp)->pid);
			note("%s", msg);
			sink_set_note(out, t, inc, msg);
			ps->smaps_denied_noted = true;
		}
	}
	return SAMPLER_OK;
}

/* --regions: one snapshot of where a process's memory sits (smaps by
 * family), told to the sinks under its incarnation (SAMPLE_REGION).
 * smaps costs milliseconds on a large process: the recorder asks at a
 * root's first sample and at the end, never per tick. Without ptrace
 * access, a note once. Device-local GPU memory is in no mapping's
 * figures, but it is in the footprint: it is added to the GPU family,
 * so the families still add up to the footprint. */
static void ps_snapshot(void *ctx, void *proc, const struct sink_set *out,
			int64_t inc, double t, const struct proc_mem *m)
{
	struct proc_sampler *ps = ctx;
	struct proc_one *p = proc;
	if (!ps->regions)
		return;
	pid_t pid = probe_proc_identity(p->pp)->pid;
	struct region_breakdown b;
	int rc = smaps_read(probe_proc_root(ps->probe), pid, &b);
	if (rc == PROBE_OK) {
		if (!isnan(m->gpu))
			b.f[REGION_GPU].footprint =
				(isnan(b.f[REGION_GPU].footprint) ? 0 :
				 b.f[REGION_GPU].footprint) + m->gpu;
		for (int k = 0; k < REGION_FAMILY_COUNT; k++) {
			const struct region_figures *r = &b.f[k];
			struct series_region_row row = {
				region_family_names[k], r->size, r->rss,
				r->pss, r->private_dirty, r->swap,
				r->footprint, r->mappings, b.top[k],
			};
			struct sample_event e = {.kind = SAMPLE_REGION,
						 .t = t, .inc = inc,
						 .u.region = &row};
			sink_set_event(out, &e);
		}
	} else if (rc == PROBE_DENIED && !ps->regions_denied_noted) {
		char msg[160];
		snprintf(msg, sizeof(msg), "smaps of pid %d is not readable "
			 "(needs ptrace access): no region snapshots",
			 (int)pid);
		note("%s", msg);
		sink_set_note(out, t, inc, msg);
		ps->regions_denied_noted = true;
	}
	regions_release(&b);
}

static int ps_connections(void *ctx, const pid_t *pids, size_t n_pids,
			  const uint16_t *ports, size_t n_ports,
			  double *count, bool *restricted)
{
	struct proc_sampler *ps = ctx;
	*restricted = true;
	if (probe_tcp_established(ps->probe, pids, n_pids, ports, n_ports,
				  count, restricted) != PROBE_OK)
		*count = NAN;
	return 0;
}

/* ---- per machine --------------------------------------------------------- */

/* The machine's figures and each distinct memory cgroup's. */
static void ps_tick(void *ctx, struct recorder *rec, double t)
{
	(void)t;
	struct proc_sampler *ps = ctx;
	if (probe_sys_read(ps->probe, &ps->sys) == 0)
		sampler_frame_sys(rec, &ps->sys);
	for (size_t i = 0; i < ps->n_cgroups; i++) {
		struct cgroup_mem cm;
		if (probe_cgroup_read(ps->cgroups[i].cg, &cm) == 0)
			sampler_frame_cgroup(rec, ps->cgroups[i].id, &cm);
	}
}

static void ps_free(void *ctx)
{
	struct proc_sampler *ps = ctx;
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n_cgroups; i++)
		probe_cgroup_close(ps->cgroups[i].cg);
	free(ps->cgroups);
	free(ps);
}

static const struct sampler_ops proc_sampler_ops = {
	.name = "proc",
	.open = ps_open,
	.read = ps_read,
	.snapshot = ps_snapshot,
	.close = ps_close,
	.list = ps_list,
	.identity = ps_identity,
	.cgroup = ps_cgroup,
	.connections = ps_connections,
	.tick = ps_tick,
	.free = ps_free,
};

struct sampler proc_sampler(struct probe *probe, bool smaps,
			    double smaps_interval_s, bool regions)
{
	assert(probe);
	struct proc_sampler *ps = xcalloc(1, sizeof(*ps));
	ps->probe = probe;
	ps->smaps = smaps;
	ps->smaps_interval_s = smaps_interval_s;
	ps->regions = regions;
	return (struct sampler){&proc_sampler_ops, ps};
}
