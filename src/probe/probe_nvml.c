/*
 * probe_nvml.c - a process's GPU memory from NVIDIA's NVML (probe_gpu.h),
 * loaded with dlopen at run time: memtrend neither builds nor runs
 * against it, and a machine without it gets NULL from gpu_nvml_open and a
 * reason.
 *
 * What it does: resolves the handful of functions it needs with dlsym,
 * lists the devices once at open, and on each query asks every device
 * for its compute and graphics process lists through one kept buffer;
 * each device's memory on request, its name once (at open).
 *
 * What it does not do: read DRM fdinfo (probe_drm.c, which also covers
 * nvidia-drm clients), decide what a footprint includes, print, or keep
 * anything but the device handles and the buffer between calls. Not
 * thread-safe: an NVML handle owns one buffer.
 *
 * Bounds: 2 list queries per device per call (retried at most 4 times
 * when the list grows), at most NVML_PROCS_MAX entries.
 */
#include "probe_gpu.h"
#include "common.h"

#include <assert.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- NVML --------------------------------------------------------------- */

/* From NVIDIA's nvml.h (the ABI we depend on, restated here so that no
 * header is needed to build). */
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
#define NVML_PROCS_INITIAL 64u
#define NVML_PROCS_MAX 65536u
#define NVML_LIB_DEFAULT "libnvidia-ml.so.1"

typedef void *nvml_device_t; /* nvmlDevice_t: an opaque pointer */

struct nvml_memory { /* nvmlMemory_t (v1) */
	unsigned long long total, free, used;
};

/* nvmlProcessInfo_t, which the _v3 process queries fill (nvml.h defines
 * it as nvmlProcessInfo_v2_t: the v3 in the function name is the API's). */
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, nvml_device_t *);
typedef int (*nvml_memory_fn)(nvml_device_t, struct nvml_memory *);
typedef int (*nvml_procs_fn)(nvml_device_t, unsigned int *,
			     struct nvml_process_info *);
typedef const char *(*nvml_errstr_fn)(int);
typedef int (*nvml_name_fn)(nvml_device_t, char *, unsigned int);

struct gpu_nvml {
	void *lib;
	nvml_void_fn init, shutdown;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_memory_fn memory;
	nvml_procs_fn compute, graphics;
	nvml_errstr_fn errstr; /* optional */
	nvml_name_fn name;     /* optional */
	nvml_device_t devices[GPU_NVML_MAX_DEVICES];
	char names[GPU_NVML_MAX_DEVICES][GPU_NAME_MAX]; /* "" unknown */
	unsigned indices[GPU_NVML_MAX_DEVICES]; /* NVML index of each */
	unsigned n_devices;
	struct nvml_process_info *procs;
	unsigned cap;
	char last_error[GPU_NVML_WHY_MAX];
};

static void set_why(char *why, size_t size, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static void set_why(char *why, size_t size, const char *fmt, ...)
{
	if (!why || size == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static const char *nvml_errname(const struct gpu_nvml *nv, int rc)
{
	const char *s = nv->errstr ? nv->errstr(rc) : NULL;
	return s ? s : "unknown error";
}

/* dlsym into a function pointer without a pedantic object->function cast. */
static bool resolve(void *lib, const char *sym, void *fnp, size_t fn_size)
{
	void *p = dlsym(lib, sym);
	if (!p)
		return false;
	assert(fn_size == sizeof(p));
	memcpy(fnp, &p, fn_size);
	return true;
}

#define RESOLVE(nv, field, sym) \
	resolve((nv)->lib, sym, &(nv)->field, sizeof((nv)->field))

struct gpu_nvml *gpu_nvml_open(const char *lib_override, char *why,
			       size_t why_size)
{
	set_why(why, why_size, "%s", "");
	const char *lib = lib_override;
	if (!lib) {
		lib = getenv("MEMTREND_NVML_LIB");
		if (!lib || !*lib)
			lib = NVML_LIB_DEFAULT;
	}
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *d = dlerror();
		set_why(why, why_size, "cannot load %s: %s", lib,
			d ? d : "unknown error");
		return NULL;
	}
	struct gpu_nvml *nv = xcalloc(1, sizeof(*nv));
	nv->lib = h;
	static const char *const syms[] = {
		"nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetCount_v2",
		"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetMemoryInfo",
		"nvmlDeviceGetComputeRunningProcesses_v3",
		"nvmlDeviceGetGraphicsRunningProcesses_v3",
	};
	bool ok[ARRAY_SIZE(syms)] = {
		RESOLVE(nv, init, syms[0]),
		RESOLVE(nv, shutdown, syms[1]),
		RESOLVE(nv, count, syms[2]),
		RESOLVE(nv, handle, syms[3]),
		RESOLVE(nv, memory, syms[4]),
		RESOLVE(nv, compute, syms[5]),
		RESOLVE(nv, graphics, syms[6]),
	};
	RESOLVE(nv, errstr, "nvmlErrorString");
	RESOLVE(nv, name, "nvmlDeviceGetName");
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		if (!ok[i]) {
			set_why(why, why_size, "%s lacks %s (driver too old?)",
				lib, syms[i]);
			dlclose(h);
			free(nv);
			return NULL;
		}
	}
	int rc = nv->init();
	if (rc != NVML_SUCCESS) {
		set_why(why, why_size, "nvmlInit_v2 failed: %s (%d)",
			nvml_errname(nv, rc), rc);
		dlclose(h);
		free(nv);
		return NULL;
	}
	unsigned count = 0;
	rc = nv->count(&count);
	if (rc != NVML_SUCCESS) {
		set_why(why, why_size, "nvmlDeviceGetCount_v2 failed: %s (%d)",
			nvml_errname(nv, rc), rc);
		nv->shutdown();
		dlclose(h);
		free(nv);
		return NULL;
	}
	if (count > GPU_NVML_MAX_DEVICES)
		count = GPU_NVML_MAX_DEVICES;
	for (unsigned i = 0; i < count; i++) {
		nvml_device_t d = NULL;
		/* A device that cannot be opened (lost, no permission) is left
		 * out rather than failing the rest. */
		if (nv->handle(i, &d) == NVML_SUCCESS && d) {
			char *nm = nv->names[nv->n_devices];
			/* The name is for people ("GPU 0 (NVIDIA H200, 141
			 * GiB)"): one that cannot be read is left out. */
			if (!nv->name ||
			    nv->name(d, nm, GPU_NAME_MAX) != NVML_SUCCESS)
				nm[0] = '\0';
			nm[GPU_NAME_MAX - 1] = '\0';
			nv->indices[nv->n_devices] = i;
			nv->devices[nv->n_devices++] = d;
		}
	}
	nv->cap = NVML_PROCS_INITIAL;
	nv->procs = xcalloc(nv->cap, sizeof(*nv->procs));
	return nv;
}

void gpu_nvml_close(struct gpu_nvml *nv)
{
	if (!nv)
		return;
	nv->shutdown();
	dlclose(nv->lib);
	free(nv->procs);
	free(nv);
}

size_t gpu_nvml_device_count(const struct gpu_nvml *nv)
{
	return nv ? nv->n_devices : 0;
}

const char *gpu_nvml_last_error(const struct gpu_nvml *nv)
{
	return nv ? nv->last_error : "";
}

/* One process list of dev into nv->procs; *n entries. false (reason in
 * last_error) when it cannot be read. */
static bool query_list(struct gpu_nvml *nv, nvml_procs_fn fn,
		       const char *what, unsigned dev_index, unsigned *n)
{
	for (int tries = 0; tries < 4; tries++) {
		unsigned count = nv->cap;
		int rc = fn(nv->devices[dev_index], &count, nv->procs);
		if (rc == NVML_SUCCESS) {
			*n = count < nv->cap ? count : nv->cap;
			return true;
		}
		if (rc == NVML_ERROR_NOT_SUPPORTED) {
			*n = 0;
			return true;
		}
		if (rc != NVML_ERROR_INSUFFICIENT_SIZE) {
			set_why(nv->last_error, sizeof(nv->last_error),
				"%s processes of device %u: %s (%d)", what,
				nv->indices[dev_index], nvml_errname(nv, rc), rc);
			return false;
		}
		if (nv->cap >= NVML_PROCS_MAX)
			break;
		/* Room for what it asked plus some: the list may grow again
		 * before the next call. */
		unsigned want = count > nv->cap ? count + count / 4 + 8
						: nv->cap * 2;
		if (want > NVML_PROCS_MAX)
			want = NVML_PROCS_MAX;
		free(nv->procs);
		nv->cap = want;
		nv->procs = xcalloc(nv->cap, sizeof(*nv->procs));
	}
	set_why(nv->last_error, sizeof(nv->last_error),
		"%s processes of device %u: list keeps outgrowing %u entries",
		what, nv->indices[dev_index], nv->cap);
	return false;
}

/* Sum of pid's entries in one list: NAN when one is not available; *found
 * says whether pid is listed at all. false when the list is unreadable. */
static bool list_sum(struct gpu_nvml *nv, nvml_procs_fn fn, const char *what,
		     unsigned dev, pid_t pid, double *sum, bool *found)
{
	unsigned n;
	*sum = 0.0;
	*found = false;
	if (!query_list(nv, fn, what, dev, &n))
		return false;
	for (unsigned i = 0; i < n; i++) {
		if ((pid_t)nv->procs[i].pid != pid)
			continue;
		*found = true;
		unsigned long long u = nv->procs[i].used_gpu_memory;
		*sum += u == NVML_VALUE_NOT_AVAILABLE ? NAN : (double)u;
	}
	return true;
}

int gpu_nvml_process_used(struct gpu_nvml *nv, pid_t pid, double *bytes)
{
	return gpu_nvml_process_used_by_device(nv, pid, bytes, NULL, 0);
}

int gpu_nvml_process_used_by_device(struct gpu_nvml *nv, pid_t pid,
				    double *bytes, double *per_device,
				    size_t max)
{
	assert(nv && bytes && (per_device || max == 0));
	nv->last_error[0] = '\0';
	*bytes = NAN;
	for (size_t i = 0; i < max; i++)
		per_device[i] = NAN;
	double total = 0.0;
	bool any = false;
	for (unsigned d = 0; d < nv->n_devices; d++) {
		double c, g;
		bool in_c, in_g;
		if (!list_sum(nv, nv->compute, "compute", d, pid, &c, &in_c) ||
		    !list_sum(nv, nv->graphics, "graphics", d, pid, &g, &in_g)) {
			/* NAN, reason in last_error; no device's part either:
			 * a partial split would show memory moving */
			for (size_t i = 0; i < max; i++)
				per_device[i] = NAN;
			return PROBE_OK;
		}
		if (!in_c && !in_g)
			continue;
		any = true;
		double v;
		if (in_c && in_g)
			v = (isnan(c) || isnan(g)) ? NAN : (c > g ? c : g);
		else
			v = in_c ? c : g;
		total += v;
		if (nv->indices[d] < max)
			per_device[nv->indices[d]] = v;
	}
	/* On no list: the process uses no NVIDIA GPU, which is no error
	 * (last_error stays ""). */
	if (any)
		*bytes = total;
	return PROBE_OK;
}

size_t gpu_nvml_devices(struct gpu_nvml *nv, struct gpu_nvml_device *out,
			size_t max)
{
	assert(nv && (out || max == 0));
	size_t n = 0;
	for (unsigned d = 0; d < nv->n_devices && n < max; d++, n++) {
		struct nvml_memory m;
		out[n].index = nv->indices[d];
		out[n].total = out[n].used = NAN;
		snprintf(out[n].name, sizeof(out[n].name), "%s", nv->names[d]);
		int rc = nv->memory(nv->devices[d], &m);
		if (rc == NVML_SUCCESS) {
			out[n].total = (double)m.total;
			out[n].used = (double)m.used;
		} else {
			set_why(nv->last_error, sizeof(nv->last_error),
				"memory of device %u: %s (%d)", nv->indices[d],
				nvml_errname(nv, rc), rc);
		}
	}
	return n;
}
