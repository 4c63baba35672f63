/*
 * recorder_gpu.h - the recorder's GPU readings: for each watched process,
 * its GPU memory from DRM fdinfo and from NVIDIA's NVML (probe_gpu.h),
 * stored region by region, with the device-local part added to the
 * process's footprint; and each NVML device's totals with the machine's
 * figures.
 *
 * The footprint rule (README, docs/schema.md): only memory on the device
 * (DRM regions of kind "device": vram, local, lmem, stolen; NVML's used
 * memory) is added. GTT/system/cpu regions are host RAM that
 * /proc/PID/status already counts as anon or shmem; adding them would
 * count them twice. DRM clients of NVIDIA's own DRM driver are left out
 * when NVML is loaded, since NVML counts the same memory.
 *
 * It does not decide when to sample (recorder.c does), and it never fails
 * a recording: what cannot be read is a note, once, and no figure.
 */
#ifndef MEMTREND_RECORDER_GPU_H
#define MEMTREND_RECORDER_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probe.h"

struct sink_set;
struct gpu_recorder;  /* per recording: NVML, notes already given */
struct gpu_proc;      /* per watched process incarnation */

/* enabled false (--no-gpu): every call below does nothing. proc_root as
 * probe_new's (NULL: default). Never fails: NVML may simply be absent. */
struct gpu_recorder *gpu_recorder_new(const char *proc_root, bool enabled);
void gpu_recorder_free(struct gpu_recorder *g);
/* What the recorder can read, for meta.gpu_sources: e.g. "DRM fdinfo;
 * NVML: 2 devices" or "DRM fdinfo; NVML: not loaded (why)". */
const char *gpu_recorder_sources(const struct gpu_recorder *g);

/* Start or stop following one process; NULL when disabled. */
struct gpu_proc *gpu_proc_new(struct gpu_recorder *g, pid_t pid);
void gpu_proc_free(struct gpu_proc *p);

/*
 * Read p's GPU memory at t (mono: CLOCK_MONOTONIC, for the DRM rescan
 * rate), emit one SAMPLE_GPU_REGION event per region that changed
 * (sample.h) under the recorder's incarnation inc_id, and set
 * m->gpu to its device-local memory (NAN when none seen), adding that to
 * m->footprint. A process without GPU memory costs nothing but a DRM fd
 * rescan every GPU_DRM_RESCAN_S (and NVML's list queries when loaded).
 */
void gpu_proc_sample(struct gpu_recorder *g, struct gpu_proc *p,
		     const struct sink_set *out, int64_t inc_id, double t,
		     double mono, struct proc_mem *m);

/* With the machine's figures: each NVML device's total and used
 * (SAMPLE_GPU_DEVICE), its name once (SAMPLE_META). */
void gpu_recorder_devices(struct gpu_recorder *g, const struct sink_set *out,
			  double t);

#endif
