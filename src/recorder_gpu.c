/*
 * recorder_gpu.c - GPU readings for the recorder (recorder_gpu.h).
 *
 * Per sample of a process: one gpu_drm_watch_read (cheap between its full
 * fd scans) and, when NVML is loaded, one gpu_nvml_process_used; one
 * gpu_sample row per region found. Nothing is allocated per sample.
 * Notes (fdinfo not readable, an NVML query failing) are given once per
 * recording: a recorder that runs for days must not repeat them.
 */
#include "recorder_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "probe_gpu.h"
#include "store.h"

struct gpu_recorder {
	bool enabled;
	char *proc_root;           /* owned; NULL: default */
	struct gpu_nvml *nvml;     /* NULL when not loaded */
	char sources[GPU_NVML_WHY_MAX + 64];
	bool denied_noted, nvml_error_noted;
};

struct gpu_proc {
	struct gpu_drm_watch *drm;
	pid_t pid;
};

struct gpu_recorder *gpu_recorder_new(const char *proc_root, bool enabled)
{
	struct gpu_recorder *g = xcalloc(1, sizeof(*g));
	g->enabled = enabled;
	if (!enabled) {
		snprintf(g->sources, sizeof(g->sources), "off (--no-gpu)");
		return g;
	}
	g->proc_root = proc_root ? xstrdup(proc_root) : NULL;
	char why[GPU_NVML_WHY_MAX] = "";
	g->nvml = gpu_nvml_open(NULL, why, sizeof(why));
	if (g->nvml)
		snprintf(g->sources, sizeof(g->sources),
			 "DRM fdinfo; NVML: %zu device%s",
			 gpu_nvml_device_count(g->nvml),
			 gpu_nvml_device_count(g->nvml) == 1 ? "" : "s");
	else
		snprintf(g->sources, sizeof(g->sources),
			 "DRM fdinfo; NVML: not loaded (%s)", why);
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
	if (!g || !g->enabled)
		return NULL;
	struct gpu_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->drm = gpu_drm_watch_new(g->proc_root, pid, GPU_DRM_RESCAN_S);
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

static void note_once(bool *done, struct store *st, double t, int64_t inc_id,
		      const char *msg)
{
	if (*done)
		return;
	*done = true;
	note("%s", msg);
	store_note_add(st, t, inc_id, msg);
}

/* DRM: store the regions; the device-local bytes to add, NAN when the
 * process has no DRM client (or they cannot be read). */
static double drm_sample(struct gpu_recorder *g, struct gpu_proc *p,
			 struct store *st, int64_t inc_id, double t,
			 double mono)
{
	struct gpu_usage u;
	int rc = gpu_drm_watch_read(p->drm, mono, &u);
	if (rc == PROBE_DENIED) {
		char msg[200];
		snprintf(msg, sizeof(msg), "fdinfo of pid %d is not readable "
			 "(needs ptrace access): its DRM GPU memory is not "
			 "recorded", (int)p->pid);
		note_once(&g->denied_noted, st, t, inc_id, msg);
		return NAN;
	}
	if (rc != PROBE_OK || u.n_clients == 0)
		return NAN;
	for (size_t r = 0; r < u.n_regions; r++) {
		const struct gpu_region *gr = &u.regions[r];
		struct store_gpu_row row = {
			"drm", gr->name, kind_name(gr->kind), gr->total,
			gr->resident, gr->shared, gr->purgeable,
		};
		store_gpu_add(st, inc_id, t, &row);
	}
	double dev = u.device_local;
	/* NVIDIA's DRM driver and NVML would report the same memory. */
	if (g->nvml && isfinite(dev) && isfinite(u.device_local_nvidia))
		dev -= u.device_local_nvidia;
	return dev;
}

static double nvml_sample(struct gpu_recorder *g, struct gpu_proc *p,
			  struct store *st, int64_t inc_id, double t)
{
	if (!g->nvml)
		return NAN;
	double used = NAN;
	gpu_nvml_process_used(g->nvml, p->pid, &used);
	const char *why = gpu_nvml_last_error(g->nvml);
	if (isnan(used) && why && *why) {
		char msg[GPU_NVML_WHY_MAX + 64];
		snprintf(msg, sizeof(msg), "NVML: %s (GPU memory of pid %d "
			 "not recorded while it fails)", why, (int)p->pid);
		note_once(&g->nvml_error_noted, st, t, inc_id, msg);
	}
	if (isnan(used))
		return NAN;
	struct store_gpu_row row = {"nvml", "device", "device", NAN, used,
				    NAN, NAN};
	store_gpu_add(st, inc_id, t, &row);
	return used;
}

void gpu_proc_sample(struct gpu_recorder *g, struct gpu_proc *p,
		     struct store *st, int64_t inc_id, double t, double mono,
		     struct proc_mem *m)
{
	m->gpu = NAN;
	if (!g || !p)
		return;
	double drm = drm_sample(g, p, st, inc_id, t, mono);
	double nv = nvml_sample(g, p, st, inc_id, t);
	if (isnan(drm) && isnan(nv))
		return;
	m->gpu = (isnan(drm) ? 0 : drm) + (isnan(nv) ? 0 : nv);
	if (!isnan(m->footprint))
		m->footprint += m->gpu;
}

void gpu_recorder_devices(struct gpu_recorder *g, struct store *st,
			  double t)
{
	if (!g || !g->nvml)
		return;
	struct gpu_nvml_device d[GPU_NVML_MAX_DEVICES];
	size_t n = gpu_nvml_devices(g->nvml, d, GPU_NVML_MAX_DEVICES);
	for (size_t i = 0; i < n; i++)
		store_gpu_device_add(st, t, "nvml", d[i].index, d[i].total,
				     d[i].used);
}
