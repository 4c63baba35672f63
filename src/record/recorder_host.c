/*
 * recorder_host.c - `record --all`: every process of the proc root as a
 * target of its own, found by a scan every --rescan, dropped when it ends;
 * --cgroup's selection and --group-by's groups (the sum of their live
 * members, a target each).
 *
 * What it does not do: read the machine (the process sampler lists the
 * processes, sampler.h), sample (recorder.c samples the roots this file
 * adds) or keep anything of an ended process: a dropped root's memory is
 * freed at once, and glibc asked to give it back after many.
 */
#include <assert.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "recorder_internal.h"

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* ---- --all --cgroup, --group-by ------------------------------------- */

/* Is the cgroup path within want (recorder_options.cgroup): a path that
 * is path itself or one of its ancestors, or a name that is one of its
 * components? */
static bool cgroup_within(const char *path, const char *want)
{
	size_t wlen = strlen(want);
	if (want[0] == '/') {
		while (wlen > 1 && want[wlen - 1] == '/')
			wlen--;  /* "/system.slice/" is "/system.slice" */
		if (wlen == 1)
			return true;  /* "/": every cgroup */
		return strncmp(path, want, wlen) == 0 &&
		       (path[wlen] == '\0' || path[wlen] == '/');
	}
	for (const char *c = path; *c;) {
		while (*c == '/')
			c++;
		size_t len = strcspn(c, "/");
		if (len == wlen && memcmp(c, want, wlen) == 0)
			return true;
		c += len;
	}
	return false;
}

/* The systemd unit of a cgroup path: its last component that ends in a
 * unit type that has a cgroup (a process of a service's sub-cgroup
 * belongs to the service); NULL when none (the root cgroup, a container
 * runtime's own names). Allocated. */
static char *cgroup_unit(const char *path)
{
	static const char *const types[] = {
		".service", ".scope", ".slice", ".socket", ".mount", ".swap",
	};
	const char *unit = NULL;
	size_t unit_len = 0;
	for (const char *c = path; *c;) {
		while (*c == '/')
			c++;
		size_t len = strcspn(c, "/");
		for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
			size_t tl = strlen(types[k]);
			if (len > tl && memcmp(c + len - tl, types[k], tl) == 0) {
				unit = c;
				unit_len = len;
			}
		}
		c += len;
	}
	if (!unit)
		return NULL;
	char *u = xmalloc(unit_len + 1);
	memcpy(u, unit, unit_len);
	u[unit_len] = '\0';
	return u;
}

/* One candidate of host_scan, found by the process sampler with its
 * cgroup path (when asked): false when --cgroup leaves it out; otherwise
 * *key is the key of its --group-by group (allocated), or NULL: no
 * --group-by, or nothing to group it by (no cgroup line, no unit in its
 * path). */
static bool host_select(struct recorder *rec, const struct sampler_found *f,
			char **key)
{
	const struct recorder_options *o = rec->o;
	const char *path = f->cgroup_path;
	*key = NULL;
	if (o->cgroup && (!path || !cgroup_within(path, o->cgroup)))
		return false;
	switch (o->group_by) {
	case RECORDER_GROUP_NAME:
		*key = xstrdup(f->id.comm);
		break;
	case RECORDER_GROUP_CGROUP:
		*key = path ? xstrdup(path) : NULL;
		break;
	case RECORDER_GROUP_UNIT:
		*key = path ? cgroup_unit(path) : NULL;
		break;
	case RECORDER_GROUP_NONE:
		break;
	}
	return true;
}

/* The group of key (owned: kept or freed), created on first sight: its
 * target, spec "name=KEY", "cgroup=KEY" or "unit=KEY". Returns 1 + its
 * index, or 0 (no key, or more groups than
 * --max-targets: said once). A group's incarnations are opened and
 * closed by recorder_groups_tick(). */
static size_t group_join(struct recorder *rec, char *key, double t)
{
	if (!key)
		return 0;
	for (size_t i = 0; i < rec->n_groups; i++)
		if (strcmp(rec->groups[i].key, key) == 0) {
			free(key);
			return i + 1;
		}
	if (rec->n_groups >= rec->o->max_targets) {
		if (!rec->group_cap_noted) {
			char msg[200];
			snprintf(msg, sizeof(msg), "more than %zu groups: "
				 "processes of the others are recorded, not "
				 "their groups (--max-targets)",
				 rec->o->max_targets);
			note("%s", msg);
			sink_set_note(&rec->out, t, 0, msg);
			rec->group_cap_noted = true;
		}
		free(key);
		return 0;
	}
	static const char *const by[] = {
		[RECORDER_GROUP_NAME] = "name", [RECORDER_GROUP_CGROUP] = "cgroup",
		[RECORDER_GROUP_UNIT] = "unit",
	};
	size_t len = strlen(key) + 8;
	char *spec = xmalloc(len);
	snprintf(spec, len, "%s=%s", by[rec->o->group_by], key);
	int64_t tid = recorder_target_add(rec, "group", spec, spec, 0);
	xgrow((void **)&rec->groups, &rec->cap_groups, rec->n_groups + 1,
	      sizeof(*rec->groups));
	rec->groups[rec->n_groups] = (struct group){.key = key,
						    .spec = spec,
						    .target_id = tid};
	return ++rec->n_groups;
}

/*
 * --group-by, after every root was sampled: each group's sample is the sum
 * of its members alive at this tick (as a tree's is). A group's
 * incarnation starts at the first tick it has a member alive, with that
 * member's identity (and, grouped by cgroup, its cgroup); it ends
 * ("exited") at the tick its last member is found gone, and a member
 * appearing later starts a new one: a service whose every worker ended is
 * a restart. Work: O(roots + groups) per tick, no allocation.
 */
void recorder_groups_tick(struct recorder *rec, double t)
{
	if (!rec->n_groups)
		return;
	for (size_t i = 0; i < rec->n_groups; i++) {
		struct group *g = &rec->groups[i];
		g->members = 0;
		recorder_mem_clear(&g->sum);
	}
	for (size_t i = 0; i < rec->n_roots; i++) {
		const struct root *r = &rec->roots[i];
		if (!r->group || r->finished || !r->main.proc)
			continue;
		assert(r->group <= rec->n_groups);
		struct group *g = &rec->groups[r->group - 1];
		recorder_mem_add(&g->sum, &r->main.fig.mem);
		if (!g->members++)
			g->first = i;
	}
	for (size_t i = 0; i < rec->n_groups; i++) {
		struct group *g = &rec->groups[i];
		if (!g->members) {
			if (g->inc_id > 0) {
				recorder_inc_end(rec, g->inc_id, t, "exited");
				sink_set_target_end(&rec->out, g->target_id, t,
						    false);
			}
			g->inc_id = 0;
			continue;
		}
		if (!g->inc_id) {
			const struct proc_watch *w =
				&rec->roots[g->first].main;
			int64_t cg = rec->o->group_by == RECORDER_GROUP_CGROUP ?
				     w->cgroup : 0;
			const struct proc_identity *id = w->ident;
			g->inc_id = recorder_inc_begin(rec, g->target_id, id,
						       cg, t);
			g->inc_first = (struct proc_identity){
				.pid = id->pid, .ppid = id->ppid,
				.state = id->state,
				.start_ticks = id->start_ticks,
				.start_time = id->start_time};
			snprintf(g->inc_first.comm, sizeof(g->inc_first.comm),
				 "%s", g->key);
		}
		recorder_frame_add(rec, g->target_id, g->inc_id, g->spec,
				   "group", false, &g->inc_first, &g->sum,
				   NULL);
	}
}

/* The end of the recording: open group incarnations close with it. */
void recorder_groups_release(struct recorder *rec, double t)
{
	for (size_t i = 0; i < rec->n_groups; i++) {
		if (rec->groups[i].inc_id > 0)
			recorder_inc_end(rec, rec->groups[i].inc_id, t,
					 "recording ended");
		free(rec->groups[i].key);
		free(rec->groups[i].spec);
	}
	free(rec->groups);
	rec->groups = NULL;
	rec->n_groups = 0;
}

/*
 * --all: every process the process sampler lists (SAMPLER_ALL: with
 * memory of its own, not a kernel thread; --user's) and not followed yet
 * becomes a root of its own (target kind "process"), unless it is
 * memtrend itself (its ancestors, a shell or a service manager, are
 * recorded), outside --cgroup (host_select), or beyond --max-targets
 * (said once); with --group-by it joins its group. Work: O(processes log
 * processes) per scan (and one read of /proc/PID/cgroup per process not
 * followed yet, with --cgroup or --group-by cgroup|unit), one scan per
 * rescan_s; a process that starts and ends between two scans is not
 * seen (documented with --rescan), one that ends between the list and
 * its open is declared and ended at once (final).
 */
void recorder_host_scan(struct recorder *rec, double t, double mono)
{
	const struct recorder_options *o = rec->o;
	if (!o->all || mono < rec->next_host_scan)
		return;
	rec->next_host_scan = mono + o->rescan_s - 1e-3;
	/* the processes followed already, and memtrend: not read again */
	pid_t *known = xmalloc((rec->n_roots + 1) * sizeof(*known));
	size_t n_known = 0;
	for (size_t i = 0; i < rec->n_roots; i++)
		if (!rec->roots[i].finished && rec->roots[i].main.proc)
			known[n_known++] = rec->roots[i].pid;
	size_t active = n_known;
	known[n_known++] = rec->self;
	qsort(known, n_known, sizeof(*known), pid_cmp);
	struct sampler_query q = {
		.scope = SAMPLER_ALL, .skip = known, .n_skip = n_known,
		.have_user = o->have_user, .user = o->user,
		.cgroup_paths = o->cgroup ||
				o->group_by == RECORDER_GROUP_CGROUP ||
				o->group_by == RECORDER_GROUP_UNIT,
	};
	struct sampler_list l = {0};
	int rc = rec->processes.ops->list(rec->processes.ctx, &q, &l);
	free(known);
	if (l.denied && !rec->host_denied_noted) {
		/* hidepid, another namespace's process, a LSM */
		char msg[160];
		snprintf(msg, sizeof(msg), "some processes cannot be read "
			 "(pid %d and maybe others: no access): they are not "
			 "recorded", (int)l.denied);
		note("%s", msg);
		sink_set_note(&rec->out, t, 0, msg);
		rec->host_denied_noted = true;
	}
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		const struct sampler_found *f = &l.found[i];
		pid_t pid = f->id.pid;
		char *gkey;
		if (!host_select(rec, f, &gkey))
			continue;
		if (active >= o->max_targets) {
			if (!rec->host_cap_noted) {
				char msg[200];
				snprintf(msg, sizeof(msg), "more than %zu "
					 "processes: the others are not "
					 "recorded (--max-targets)",
					 o->max_targets);
				note("%s", msg);
				sink_set_note(&rec->out, t, 0, msg);
				rec->host_cap_noted = true;
			}
			free(gkey);
			continue;
		}
		xgrow((void **)&rec->roots, &rec->cap_roots, rec->n_roots + 1,
		      sizeof(*rec->roots));
		struct root *r = &rec->roots[rec->n_roots];
		memset(r, 0, sizeof(*r));
		r->kind = ROOT_PID;
		r->pid = pid;
		snprintf(r->name, sizeof(r->name), "%s", f->id.comm);
		char spec[32];
		snprintf(spec, sizeof(spec), "%d", (int)pid);
		r->target_kind = "process";
		r->target_id = recorder_target_add(rec, "process", spec,
						   r->name, 0);
		/* the identity just listed: its command line is not read
		 * again */
		recorder_root_open(rec, r, pid, &f->id, t);
		if (!r->main.proc) {
			/* gone meanwhile, or unreadable */
			sink_set_target_end(&rec->out, r->target_id, t, true);
			free(gkey);
			continue;
		}
		r->group = group_join(rec, gkey, t);
		rec->n_roots++;
		active++;
	}
	sampler_list_release(&l);
}

/* --all: drop the roots whose process ended (their incarnation is closed
 * already), so that memory follows the processes alive, not all that
 * ever were. */
void recorder_host_compact(struct recorder *rec, double t)
{
	if (!rec->o->all)
		return;
	size_t k = 0, dropped = 0;
	for (size_t i = 0; i < rec->n_roots; i++) {
		struct root *r = &rec->roots[i];
		if (r->finished) {
			sink_set_target_end(&rec->out, r->target_id, t, true);
			free(r->kids);
			free(r->conn_pids);
			dropped++;
			continue;
		}
		if (k != i)
			rec->roots[k] = *r;
		k++;
	}
	assert(k <= rec->n_roots && rec->n_roots <= rec->cap_roots);
	rec->n_roots = k;
	rec->dropped_since_trim += dropped;
#ifdef __GLIBC__
	/* A flood of short-lived processes leaves freed memory in glibc's
	 * arenas (this thread's and the exporter's); give it back once many
	 * have ended, so the footprint follows the processes alive. */
	if (rec->dropped_since_trim >= 256) {
		malloc_trim(0);
		rec->dropped_since_trim = 0;
	}
#endif
}
