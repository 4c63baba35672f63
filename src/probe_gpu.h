/*
 * probe_gpu.h - a process's GPU memory, from two sources:
 *
 *   - DRM fdinfo (any open-source kernel driver: amdgpu, i915, xe, msm,
 *     panfrost, ...; kernel Documentation/gpu/drm-usage-stats.rst), read
 *     under a proc root so tests use fixture trees;
 *   - NVIDIA's NVML, loaded with dlopen at run time: memtrend has no build
 *     or run dependency on it, and a machine without it just has no NVML.
 *
 * Like probe.h, a figure that cannot be read is NAN ("absent"), never a
 * failure; fdinfo without ptrace access is PROBE_DENIED (the caller notes
 * it once and carries on). Every figure is in bytes.
 *
 * Region classification (gpu_region_kind_of): the name, less any trailing
 * digits ("vram0" -> "vram", "local0" -> "local"), is
 *   - DEVICE-local when it is vram, local, lmem or starts with "stolen"
 *     (stolen-system/stolen-local: carved out by firmware, never counted by
 *     /proc/PID/status either). Only these make up device_local, the figure
 *     a footprint may add;
 *   - HOST when it is system, gtt, cpu or memory (the single region of
 *     unified-memory drivers such as msm and panfrost): host RAM that
 *     /proc/PID/status already accounts for, never to be added again;
 *   - OTHER for any name not listed: reported, added to nothing.
 */
#ifndef MEMTREND_PROBE_GPU_H
#define MEMTREND_PROBE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probe.h" /* enum probe_status */

#define GPU_REGION_MAX 16      /* regions kept per call; more are dropped */
#define GPU_REGION_NAME_MAX 24 /* region name incl. NUL; longer: skipped */

enum gpu_region_kind {
	GPU_REGION_OTHER = 0,
	GPU_REGION_DEVICE, /* memory on the device: vram, local, lmem, stolen */
	GPU_REGION_HOST,   /* host RAM: system, gtt, cpu, memory */
};

/* Kind of a region name (see above). */
enum gpu_region_kind gpu_region_kind_of(const char *name);

/* One memory region summed over a process's DRM clients. A figure no
 * client reported is NAN; resident is also NAN when some client reported
 * the region without a resident figure (it would be an undercount).
 * resident is drm-resident-<r>, or the legacy drm-memory-<r> for a client
 * that reports no drm-resident-<r>. */
struct gpu_region {
	char name[GPU_REGION_NAME_MAX];
	enum gpu_region_kind kind;
	double total, resident, shared, purgeable;
};

struct gpu_usage {
	struct gpu_region regions[GPU_REGION_MAX]; /* in order first seen */
	size_t n_regions;
	bool regions_dropped;  /* more than GPU_REGION_MAX region names */
	size_t n_clients;      /* DRM clients, each counted once */
	/* Sum of resident over DEVICE regions: NAN when no DRM client (or a
	 * device region's resident is NAN), 0 when clients use host memory
	 * only. */
	double device_local;
	bool denied;           /* fdinfo not readable (no ptrace access) */
};

/*
 * Read the DRM memory of pid from PROC_ROOT/PID/fdinfo/N (proc_root NULL:
 * $MEMTREND_PROC_ROOT or "/proc"). An fd is a DRM client when its fdinfo
 * has a drm-driver: line; a client open on several fds (same drm-driver,
 * drm-pdev and drm-client-id) is counted once; one without drm-client-id
 * counts per fd. Values are bytes, or with a KiB/MiB suffix; a line that
 * does not parse is skipped.
 *
 * Returns PROBE_OK (no DRM client at all is fine: n_clients 0,
 * device_local NAN), PROBE_GONE when PROC_ROOT/PID/fdinfo does not exist,
 * PROBE_DENIED (out->denied set, figures absent) when the fdinfo directory
 * or any of its files cannot be read for lack of permission, PROBE_ERROR
 * (message printed) otherwise.
 *
 * Work: one directory scan, one open+read per fd the process has, through
 * one 4 KiB stack buffer (a longer line is skipped); no per-line
 * allocation; one small array of client identities per call.
 */
int probe_gpu_drm_read(const char *proc_root, pid_t pid,
		       struct gpu_usage *out);

/* ---- NVIDIA NVML -------------------------------------------------------- */

#define GPU_NVML_MAX_DEVICES 64
#define GPU_NVML_WHY_MAX 256

struct gpu_nvml; /* a loaded, initialised NVML and its devices */

/* Device memory from nvmlDeviceGetMemoryInfo; NAN when not readable. */
struct gpu_nvml_device {
	unsigned index;
	double total, used;
};

/*
 * Load NVML: lib_override, else $MEMTREND_NVML_LIB (when set and not
 * empty), else "libnvidia-ml.so.1"; resolve its symbols, nvmlInit_v2 and
 * list its devices (at most GPU_NVML_MAX_DEVICES, fixed from then on).
 * Returns NULL when the library is absent, lacks a symbol or fails to
 * initialise, with the reason in why (when why_size > 0): the caller
 * decides whether that is worth a note. Never prints, never crashes.
 */
struct gpu_nvml *gpu_nvml_open(const char *lib_override, char *why,
			       size_t why_size);
/* nvmlShutdown and unload; NULL is fine. */
void gpu_nvml_close(struct gpu_nvml *nv);
size_t gpu_nvml_device_count(const struct gpu_nvml *nv);

/*
 * GPU memory used by pid, summed over every device: on one device the
 * compute and graphics lists describe the same memory, so the larger of
 * the two counts (each list summed over its entries for pid, one per MIG
 * instance). *bytes is NAN when no device lists pid, when a listed entry's
 * memory is NVML_VALUE_NOT_AVAILABLE, or when a device's list cannot be
 * read (reason: gpu_nvml_last_error). A list that is NOT_SUPPORTED counts
 * as empty. Returns PROBE_OK. Work: two list queries per device through
 * one kept buffer, grown on NVML_ERROR_INSUFFICIENT_SIZE (at most 4 tries
 * per query, at most 65536 entries).
 */
int gpu_nvml_process_used(struct gpu_nvml *nv, pid_t pid, double *bytes);

/* Fill out[0..max-1] with each device's memory; returns how many. */
size_t gpu_nvml_devices(struct gpu_nvml *nv, struct gpu_nvml_device *out,
			size_t max);

/* Why the last query gave NAN ("" when it did not). */
const char *gpu_nvml_last_error(const struct gpu_nvml *nv);

#endif
