/*
 * recorder_gpu.c - GPU readings for the recorder (recorder_gpu.h).
 *
 * Per sample of a process: one gpu_drm_watch_read (cheap between its full
 * fd scans) and, when NVML is loaded, one gpu_nvml_process_used. A region's
 * gpu_sample row is written when its figures differ from the last row
 * written for it (and a row of NULLs when it is gone): a GPU process that
 * holds its memory steady costs no INSERT per sample, and the store can
 * fold its samples into runs. Nothing is allocated per sample.
 * Notes (fdinfo not readable, an NVML query failing) are given once per
 * recording: a recorder that runs for days must not repeat them.
 *
 * NVML's memory is kept device by device (issue 28: region "device<N>",
 * N the NVML index), so that each GPU is a pool with its own limit; the
 * process's part on a device and the room that device leaves it (its
 * total less what the other processes hold, at the latest device
 * reading) go to the caller in struct proc_mem.
 */
#include "recorder_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "probe_gpu.h"
#include "sampler.h"
#include "sink_set.h"

struct gpu_recorder {
	bool enabled;
	bool drm;                  /* DRM fdinfo is read (a device exists) */
	char *proc_root;           /* owned; NULL: default */
	struct gpu_nvml *nvml;     /* NULL when not loaded */
	char sources[GPU_NVML_WHY_MAX + 64];
	bool denied_noted, nvml_error_noted;
	/* The latest device reading (gpu_recorder_devices), by NVML index
	 * below SERIES_GPU_DEVICES: total and used NAN until the first. */
	double dev_total[SERIES_GPU_DEVICES], dev_used[SERIES_GPU_DEVICES];
	bool names_stored;          /* meta gpu_name_N written */
};

/* The last row written for one region of a process. */
struct gpu_written {
	char source[8];
	char region[GPU_REGION_NAME_MAX];
	char kind[8];
	double total, resident, shared, purgeable;
	bool seen;                 /* reported at this sample */
};

struct gpu_proc {
	struct gpu_drm_watch *drm;
	pid_t pid;
	/* DRM's regions and NVML's devices */
	struct gpu_written last[GPU_REGION_MAX + GPU_NVML_MAX_DEVICES];
	size_t n_last;
};

struct gpu_recorder *gpu_recorder_new(const char *proc_root, bool enabled)
{
	struct gpu_recorder *g = xcalloc(1, sizeof(*g));
	g->enabled = enabled;
	for (size_t d = 0; d < SERIES_GPU_DEVICES; d++)
		g->dev_total[d] = g->dev_used[d] = NAN;
	if (!enabled) {
		snprintf(g->sources, sizeof(g->sources), "off (--no-gpu)");
		return g;
	}
	g->proc_root = proc_root ? xstrdup(proc_root) : NULL;
	/* A process can hold a DRM client only where the machine has a DRM
	 * device: on this machine's own /proc without one (no /dev/dri, no
	 * /sys/class/drm: a server, a VM, a container without the device),
	 * each process's fd directory is not rescanned every
	 * GPU_DRM_RESCAN_S for clients that cannot exist -- at 1,000
	 * processes that was about 1.5 ms a second (bench section h). A
	 * fixture's proc root is always scanned. */
	g->drm = !(proc_root && strcmp(proc_root, "/proc") == 0 &&
		   access("/dev/dri", F_OK) != 0 &&
		   access("/sys/class/drm", F_OK) != 0);
	const char *drm = g->drm ? "DRM fdinfo" : "DRM: no device";
	char why[GPU_NVML_WHY_MAX] = "";
	g->nvml = gpu_nvml_open(NULL, why, sizeof(why));
	if (g->nvml)
		snprintf(g->sources, sizeof(g->sources),
			 "%s; NVML: %zu device%s", drm,
			 gpu_nvml_device_count(g->nvml),
			 gpu_nvml_device_count(g->nvml) == 1 ? "" : "s");
	else
		snprintf(g->sources, sizeof(g->sources),
			 "%s; NVML: not loaded (%s)", drm, why);
	/* Said on stderr only where it matters: NVIDIA's driver is there
	 * but its library is not, so GPU memory goes unseen. Elsewhere the
	 * recording's meta says it. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/driver/nvidia/version",
		 proc_root ? proc_root : "/proc");
	if (!g->nvml && access(path, F_OK) == 0)
		note("NVIDIA's driver is loaded but NVML is not (%s): GPU "
		     "memory on NVIDIA devices is not recorded", why);
	return g;
}

void gpu_recorder_free(struct gpu_recorder *g)
{
	if (!g)
		return;
	gpu_nvml_close(g->nvml);
	free(g->proc_root);
	free(g);
}

const char *gpu_recorder_sources(const struct gpu_recorder *g)
{
	return g->sources;
}

struct gpu_proc *gpu_proc_new(struct gpu_recorder *g, pid_t pid)
{
	/* nothing to read: no per-process state, no work per sample */
	if (!g || !g->enabled || (!g->drm && !g->nvml))
		return NULL;
	struct gpu_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->drm = g->drm ? gpu_drm_watch_new(g->proc_root, pid,
					    GPU_DRM_RESCAN_S) : NULL;
	return p;
}

void gpu_proc_free(struct gpu_proc *p)
{
	if (!p)
		return;
	gpu_drm_watch_free(p->drm);
	free(p);
}

static const char *kind_name(enum gpu_region_kind k)
{
	return k == GPU_REGION_DEVICE ? "device" :
	       k == GPU_REGION_HOST ? "host" : "other";
}

static bool same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* Write r unless it repeats the last row of its region. */
static void region_put(struct gpu_proc *p, const struct sink_set *out,
		       int64_t inc_id, double t,
		       const struct sample_gpu_region *r)
{
	size_t k = 0;
	while (k < p->n_last && !(strcmp(p->last[k].source, r->source) == 0 &&
				  strcmp(p->last[k].region, r->region) == 0))
		k++;
	struct gpu_written *w = &p->last[k];
	if (k < p->n_last) {
		w->seen = true;
		if (same(w->total, r->total) &&
		    same(w->resident, r->resident) &&
		    same(w->shared, r->shared) &&
		    same(w->purgeable, r->purgeable))
			return;
	} else if (k < ARRAY_SIZE(p->last)) {
		p->n_last++;
		snprintf(w->source, sizeof(w->source), "%s", r->source);
		snprintf(w->region, sizeof(w->region), "%s", r->region);
		snprintf(w->kind, sizeof(w->kind), "%s", r->kind);
		w->seen = true;
	} else {
		w = NULL; /* more regions than kept: written every time */
	}
	if (w) {
		w->total = r->total;
		w->resident = r->resident;
		w->shared = r->shared;
		w->purgeable = r->purgeable;
	}
	struct sample_event e = {.kind = SAMPLE_GPU_REGION, .t = t,
				 .inc = inc_id, .u.gpu = r};
	sink_set_event(out, &e);
}

/* Regions of source not reported at this sample: one row of NULLs
 * each, then forgotten. */
static void regions_gone(struct gpu_proc *p, const struct sink_set *out,
			 int64_t inc_id, double t, const char *source)
{
	for (size_t k = 0; k < p->n_last;) {
		struct gpu_written *w = &p->last[k];
		if (strcmp(w->source, source) != 0 || w->seen) {
			w->seen = strcmp(w->source, source) == 0 ? false :
				  w->seen;
			k++;
			continue;
		}
		struct sample_gpu_region row = {w->source, w->region, w->kind,
					    NAN, NAN, NAN, NAN};
		struct sample_event e = {.kind = SAMPLE_GPU_REGION, .t = t,
					 .inc = inc_id, .u.gpu = &row};
		sink_set_event(out, &e);
		*w = p->last[--p->n_last];
	}
}

static void note_once(bool *done, const struct sink_set *out, double t,
		      int64_t inc_id, const char *msg)
{
	if (*done)
		return;
	*done = true;
	note("%s", msg);
	sink_set_note(out, t, inc_id, msg);
}

/* DRM: store the regions; the device-local bytes to add, NAN when the
 * process has no DRM client (or they cannot be read). */
static double drm_sample(struct gpu_recorder *g, struct gpu_proc *p,
			 const struct sink_set *out, int64_t inc_id,
			 double t, double mono)
{
	if (!p->drm)
		return NAN;  /* no DRM device on the machine */
	struct gpu_usage u;
	int rc = gpu_drm_watch_read(p->drm, mono, &u);
	if (rc == PROBE_DENIED) {
		char msg[200];
		snprintf(msg, sizeof(msg), "fdinfo of pid %d is not readable "
			 "(needs ptrace access): its DRM GPU memory is not "
			 "recorded", (int)p->pid);
		note_once(&g->denied_noted, out, t, inc_id, msg);
		return NAN;
	}
	if (rc != PROBE_OK || u.n_clients == 0) {
		regions_gone(p, out, inc_id, t, "drm");
		return NAN;
	}
	for (size_t r = 0; r < u.n_regions; r++) {
		const struct gpu_region *gr = &u.regions[r];
		struct sample_gpu_region row = {
			"drm", gr->name, kind_name(gr->kind), gr->total,
			gr->resident, gr->shared, gr->purgeable,
		};
		region_put(p, out, inc_id, t, &row);
	}
	regions_gone(p, out, inc_id, t, "drm");
	double dev = u.device_local;
	/* NVIDIA's DRM driver and NVML would report the same memory. */
	if (g->nvml && isfinite(dev) && isfinite(u.device_local_nvidia))
		dev -= u.device_local_nvidia;
	return dev;
}

/* NVML: one row per device the process is on; its part of each device
 * and the room each leaves it into m. Returns the sum over devices. */
static double nvml_sample(struct gpu_recorder *g, struct gpu_proc *p,
			  const struct sink_set *out, int64_t inc_id,
			  double t, struct proc_mem *m)
{
	if (!g->nvml)
		return NAN;
	double used = NAN, per[GPU_NVML_MAX_DEVICES];
	gpu_nvml_process_used_by_device(g->nvml, p->pid, &used, per,
					GPU_NVML_MAX_DEVICES);
	const char *why = gpu_nvml_last_error(g->nvml);
	if (isnan(used) && why && *why) {
		char msg[GPU_NVML_WHY_MAX + 64];
		snprintf(msg, sizeof(msg), "NVML: %s (GPU memory of pid %d "
			 "not recorded while it fails)", why, (int)p->pid);
		note_once(&g->nvml_error_noted, out, t, inc_id, msg);
	}
	for (unsigned d = 0; !isnan(used) && d < GPU_NVML_MAX_DEVICES; d++) {
		if (isnan(per[d]))
			continue;
		char region[GPU_REGION_NAME_MAX];
		snprintf(region, sizeof(region), "device%u", d);
		struct sample_gpu_region row = {"nvml", region, "device", NAN,
					    per[d], NAN, NAN};
		region_put(p, out, inc_id, t, &row);
		if (d < SERIES_GPU_DEVICES) {
			m->gpu_dev[d] = per[d];
			m->gpu_total[d] = g->dev_total[d];
			m->gpu_used[d] = g->dev_used[d];
		}
	}
	regions_gone(p, out, inc_id, t, "nvml");
	return used;
}

void gpu_proc_sample(struct gpu_recorder *g, struct gpu_proc *p,
		     const struct sink_set *out, int64_t inc_id, double t,
		     double mono, struct proc_mem *m)
{
	m->gpu = NAN;
	for (size_t d = 0; d < SERIES_GPU_DEVICES; d++)
		m->gpu_dev[d] = m->gpu_total[d] = m->gpu_used[d] = NAN;
	if (!g || !p)
		return;
	double drm = drm_sample(g, p, out, inc_id, t, mono);
	double nv = nvml_sample(g, p, out, inc_id, t, m);
	if (isnan(drm) && isnan(nv))
		return;
	m->gpu = (isnan(drm) ? 0 : drm) + (isnan(nv) ? 0 : nv);
	if (!isnan(m->footprint))
		m->footprint += m->gpu;
}

void gpu_recorder_devices(struct gpu_recorder *g, const struct sink_set *out,
			  double t)
{
	if (!g || !g->nvml)
		return;
	struct gpu_nvml_device d[GPU_NVML_MAX_DEVICES];
	size_t n = gpu_nvml_devices(g->nvml, d, GPU_NVML_MAX_DEVICES);
	for (size_t i = 0; i < n; i++) {
		struct sample_gpu_device dev = {"nvml", d[i].index,
						d[i].total, d[i].used};
		struct sample_event e = {.kind = SAMPLE_GPU_DEVICE, .t = t,
					 .u.gpu_device = &dev};
		sink_set_event(out, &e);
		if (d[i].index < SERIES_GPU_DEVICES) {
			g->dev_total[d[i].index] = d[i].total;
			g->dev_used[d[i].index] = d[i].used;
		}
		/* The name, once, for the reports' "GPU 0 (NVIDIA H200,
		 * 141 GiB)": it does not change while the device is there. */
		char key[32];
		snprintf(key, sizeof(key), "gpu_name_%u", d[i].index);
		if (!g->names_stored && d[i].name[0]) {
			struct sample_event m = {.kind = SAMPLE_META, .t = t,
						 .u.meta = {key, d[i].name}};
			sink_set_event(out, &m);
		}
	}
	g->names_stored = true;
}

/* ---- as a sampler (sampler.h) ------------------------------------------ */

static const char *gs_describe(void *ctx)
{
	return gpu_recorder_sources(ctx);
}

static void *gs_open(void *ctx, pid_t pid, const struct proc_identity *seen)
{
	(void)seen;
	return gpu_proc_new(ctx, pid);
}

static enum sampler_status gs_read(void *ctx, void *proc,
				   const struct sink_set *out, int64_t inc,
				   double t, double mono,
				   struct sampler_figures *f)
{
	gpu_proc_sample(ctx, proc, out, inc, t, mono, &f->mem);
	return SAMPLER_OK;
}

static void gs_close(void *ctx, void *proc)
{
	(void)ctx;
	gpu_proc_free(proc);
}

static void gs_tick(void *ctx, struct recorder *rec, double t)
{
	gpu_recorder_devices(ctx, sampler_sinks(rec), t);
}

static void gs_free(void *ctx)
{
	gpu_recorder_free(ctx);
}

static const struct sampler_ops gpu_sampler_ops = {
	.name = "gpu",
	.describe = gs_describe,
	.open = gs_open,
	.read = gs_read,
	.close = gs_close,
	.tick = gs_tick,
	.free = gs_free,
};

struct sampler gpu_sampler(const char *proc_root, bool enabled)
{
	return (struct sampler){&gpu_sampler_ops,
				gpu_recorder_new(proc_root, enabled)};
}
