/*
 * probe_gpu.h - a process's GPU memory, from two sources:
 *
 *   - DRM fdinfo (any open-source kernel driver: amdgpu, i915, xe, msm,
 *     panfrost, ...; kernel Documentation/gpu/drm-usage-stats.rst), read
 *     under a proc root so tests use fixture trees (probe_drm.c);
 *   - NVIDIA's NVML, loaded with dlopen at run time: memtrend has no build
 *     or run dependency on it, and a machine without it just has no NVML
 *     (probe_nvml.c).
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
	/* The part of device_local from clients whose drm-driver starts with
	 * "nvidia" (NVIDIA's own DRM driver, nvidia-drm: the memory NVML
	 * also counts, which a caller with NVML leaves out). 0 when no such
	 * client; NAN when device_local is NAN. */
	double device_local_nvidia;
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

/* ---- DRM, cheaply, for a sampling loop ---------------------------------- */

#define GPU_DRM_RESCAN_S 10.0 /* default seconds between full scans */

struct gpu_drm_watch; /* one process's DRM fds, followed between reads */

/*
 * Follow pid's DRM clients under proc_root (as in probe_gpu_drm_read).
 * rescan_s > 0: seconds between full scans (not > 0, or NAN:
 * GPU_DRM_RESCAN_S). Touches no file: the fdinfo directory is opened at
 * the first read (a path the system will not open: PROBE_ERROR there).
 * Never NULL. The caller owns the watch: gpu_drm_watch_free.
 */
struct gpu_drm_watch *gpu_drm_watch_new(const char *proc_root, pid_t pid,
					double rescan_s);

/*
 * Read pid's DRM memory into out at now_mono (CLOCK_MONOTONIC seconds,
 * chosen by the caller; only its differences matter).
 *
 * A FULL SCAN (the first read; any read rescan_s or more after the last
 * full scan, or at a now_mono before it or NAN) reads every fd like
 * probe_gpu_drm_read, with the same figures, and remembers the fd numbers
 * that were DRM clients (every one, duplicates of one client included)
 * and the client each named. Any other read reads only those files
 * again: on procfs through their files kept open, with pread at offset 0
 * (/proc looks the fd number up at each read, so a closed or reused fd
 * shows as such); elsewhere (a fixture tree, whose files may be replaced)
 * opened anew each time, relative to the PROC_ROOT/PID/fdinfo directory fd kept
 * open since the first read (bound to that process incarnation: once it
 * exits, reads say PROBE_GONE even if the PID is reused). When one of
 * them is gone, no longer a DRM client or names another client
 * (drm-driver, drm-pdev or drm-client-id changed), a full scan is done
 * at once, in the same call.
 *
 * So a client opened after a full scan is seen within rescan_s, not
 * before (a closed one at once), and between full scans a process with no
 * DRM client costs no system call at all; nor is its exit noticed before
 * the next full scan.
 *
 * Returns as probe_gpu_drm_read: PROBE_OK, PROBE_GONE, PROBE_DENIED (out
 * ->denied set, figures absent) or PROBE_ERROR (message printed). After
 * PROBE_DENIED, reads before the next full scan is due return
 * PROBE_DENIED at once without a system call; after PROBE_GONE or
 * PROBE_ERROR the next read scans in full again.
 *
 * Work between full scans: one pread per remembered fd on procfs (one
 * open file each, kept until the next full scan or gpu_drm_watch_free;
 * open+read+close elsewhere) through
 * a 4 KiB stack buffer, no allocation (the remembered fds and the client
 * identities are arrays kept in the watch, reused; they grow only in a
 * full scan). A full scan costs what probe_gpu_drm_read does plus one
 * open and one fstat. Not thread-safe.
 */
int gpu_drm_watch_read(struct gpu_drm_watch *w, double now_mono,
		       struct gpu_usage *out);

/* Close the kept directory and files and free w; NULL is fine. */
void gpu_drm_watch_free(struct gpu_drm_watch *w);

/* ---- NVIDIA NVML -------------------------------------------------------- */

#define GPU_NVML_MAX_DEVICES 64
#define GPU_NVML_WHY_MAX 256

struct gpu_nvml; /* a loaded, initialised NVML and its devices */

#define GPU_NAME_MAX 64 /* a device's name incl. NUL; longer: cut */

/* Device memory from nvmlDeviceGetMemoryInfo; NAN when not readable.
 * name: nvmlDeviceGetName's ("NVIDIA H200"), "" when the library lacks
 * it or it fails (read once, at open). */
struct gpu_nvml_device {
	unsigned index;
	double total, used;
	char name[GPU_NAME_MAX];
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
 * read (reason: gpu_nvml_last_error; a pid on no list is not an error
 * and leaves it ""). A list that is NOT_SUPPORTED counts
 * as empty. Returns PROBE_OK. Work: two list queries per device through
 * one kept buffer, grown on NVML_ERROR_INSUFFICIENT_SIZE (at most 4 tries
 * per query, at most 65536 entries).
 */
int gpu_nvml_process_used(struct gpu_nvml *nv, pid_t pid, double *bytes);
/*
 * The same, and each device's part: per_device[i] for the device of NVML
 * index i (i < max; a device of a higher index is in *bytes only) is pid's
 * memory on that device, NAN when pid is on none of its lists (or an
 * entry is not available). per_device may be NULL when max is 0. Issue
 * 28: a process's memory on one GPU is bounded by that GPU, not by the
 * sum over all of them. Same work as gpu_nvml_process_used.
 */
int gpu_nvml_process_used_by_device(struct gpu_nvml *nv, pid_t pid,
				    double *bytes, double *per_device,
				    size_t max);

/* Fill out[0..max-1] with each device's memory; returns how many. */
size_t gpu_nvml_devices(struct gpu_nvml *nv, struct gpu_nvml_device *out,
			size_t max);

/* Why the last query failed ("" when nothing failed). */
const char *gpu_nvml_last_error(const struct gpu_nvml *nv);

#endif
