/*
 * fake_nvml.c - a stand-in for NVIDIA's libnvidia-ml.so.1, built as a shared
 * library for tests/unit/test_gpu.c (loaded through gpu_nvml_open's
 * override path). It implements only the symbols src/probe/probe_nvml.c
 * resolves, with the ABI of NVIDIA's nvml.h, and behaves as a script says.
 *
 * The script is the file named by $FAKE_NVML_SCRIPT, re-read on every call
 * (so a test can make processes appear and leave between calls); no
 * variable or no file means no devices. One directive a line, '#' comments:
 *   devices N                          N devices (handles 0..N-1)
 *   proc DEV compute|graphics PID MEM  a process entry; MEM in bytes or
 *                                      "na" (NVML_VALUE_NOT_AVAILABLE)
 *   mem DEV TOTAL USED                 device memory (default 0 0)
 *   grow DEV PID RATE                  PID's entries on DEV, and DEV's
 *                                      used memory, grow by RATE bytes a
 *                                      second since nvmlInit_v2 (a slope
 *                                      known exactly, with no writer)
 *   name DEV TEXT                      nvmlDeviceGetName's answer (the
 *                                      rest of the line; default
 *                                      "Fake GPU")
 *   fail init|count|processes|memory   that call returns an error
 *   notsupported graphics              graphics lists are NOT_SUPPORTED
 * Process queries honour the caller's *infoCount like the real library:
 * too small a buffer gets NVML_ERROR_INSUFFICIENT_SIZE and the needed count.
 *
 * It does not model MIG, handles' lifetimes beyond init, or threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_UNKNOWN 999

#define FAKE_MAX_DEVICES 8
#define FAKE_MAX_PROCS 4096

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

struct fake_device {
	int index;
};
typedef struct fake_device *nvmlDevice_t;

struct fake_proc {
	int dev;
	int graphics;
	unsigned pid;
	unsigned long long mem;
};

static struct {
	unsigned devices;
	int fail_init, fail_count, fail_processes, fail_memory;
	int graphics_not_supported;
	unsigned long long total[FAKE_MAX_DEVICES], used[FAKE_MAX_DEVICES];
	char name[FAKE_MAX_DEVICES][64];
	struct fake_proc procs[FAKE_MAX_PROCS];
	unsigned n_procs;
	struct { int dev; unsigned pid; double rate; } grow[FAKE_MAX_DEVICES];
	unsigned n_grow;
} sc;
static double t_init;  /* CLOCK_MONOTONIC at the first nvmlInit_v2 */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the grow directives added by now: to entries and devices. */
static void apply_growth(void)
{
	double dt = t_init > 0 ? mono() - t_init : 0;
	for (unsigned g = 0; g < sc.n_grow; g++) {
		unsigned long long add =
			(unsigned long long)(sc.grow[g].rate * dt);
		int dev = sc.grow[g].dev;
		sc.used[dev] += add;
		for (unsigned k = 0; k < sc.n_procs; k++)
			if (sc.procs[k].dev == dev &&
			    sc.procs[k].pid == sc.grow[g].pid &&
			    sc.procs[k].mem != ~0ULL)
				sc.procs[k].mem += add;
	}
}

static struct fake_device devs[FAKE_MAX_DEVICES];
static int init_count;

static void load_script(void)
{
	memset(&sc, 0, sizeof(sc));
	const char *path = getenv("FAKE_NVML_SCRIPT");
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	char line[256], a[32], b[32], c[32];
	unsigned long long x, y;
	int dev, pos;
	unsigned pid;
	while (fgets(line, sizeof(line), f)) {
		pos = 0;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "devices %u", &sc.devices) == 1) {
			if (sc.devices > FAKE_MAX_DEVICES)
				sc.devices = FAKE_MAX_DEVICES;
		} else if (sscanf(line, "proc %d %31s %u %31s", &dev, a, &pid,
				  b) == 4) {
			if (sc.n_procs == FAKE_MAX_PROCS || dev < 0 ||
			    dev >= FAKE_MAX_DEVICES)
				continue;
			struct fake_proc *p = &sc.procs[sc.n_procs++];
			p->dev = dev;
			p->graphics = strcmp(a, "graphics") == 0;
			p->pid = pid;
			p->mem = strcmp(b, "na") == 0 ? ~0ULL
						       : strtoull(b, NULL, 10);
		} else if (sscanf(line, "mem %d %llu %llu", &dev, &x, &y) == 3) {
			if (dev >= 0 && dev < FAKE_MAX_DEVICES) {
				sc.total[dev] = x;
				sc.used[dev] = y;
			}
		} else if (sscanf(line, "grow %d %u %31s", &dev, &pid, c) == 3) {
			if (dev >= 0 && dev < FAKE_MAX_DEVICES &&
			    sc.n_grow < FAKE_MAX_DEVICES) {
				sc.grow[sc.n_grow].dev = dev;
				sc.grow[sc.n_grow].pid = pid;
				sc.grow[sc.n_grow].rate = strtod(c, NULL);
				sc.n_grow++;
			}
		} else if (sscanf(line, "name %d %n", &dev, &pos) == 1 &&
			   pos > 0) {
			if (dev >= 0 && dev < FAKE_MAX_DEVICES) {
				snprintf(sc.name[dev], sizeof(sc.name[dev]),
					 "%s", line + pos);
				sc.name[dev][strcspn(sc.name[dev], "\n")] = 0;
			}
		} else if (sscanf(line, "fail %31s", c) == 1) {
			sc.fail_init |= strcmp(c, "init") == 0;
			sc.fail_count |= strcmp(c, "count") == 0;
			sc.fail_processes |= strcmp(c, "processes") == 0;
			sc.fail_memory |= strcmp(c, "memory") == 0;
		} else if (strncmp(line, "notsupported graphics", 21) == 0) {
			sc.graphics_not_supported = 1;
		}
	}
	fclose(f);
	apply_growth();
}

int nvmlInit_v2(void)
{
	load_script();
	if (sc.fail_init)
		return NVML_ERROR_DRIVER_NOT_LOADED;
	init_count++;
	if (t_init == 0)
		t_init = mono();
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	if (init_count == 0)
		return NVML_ERROR_UNINITIALIZED;
	init_count--;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(int rc)
{
	switch (rc) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	default: return "Unknown Error";
	}
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!init_count)
		return NVML_ERROR_UNINITIALIZED;
	load_script();
	if (sc.fail_count)
		return NVML_ERROR_UNKNOWN;
	*count = sc.devices;
	return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (!init_count)
		return NVML_ERROR_UNINITIALIZED;
	load_script();
	if (index >= sc.devices || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	devs[index].index = (int)index;
	*device = &devs[index];
	return NVML_SUCCESS;
}

static int dev_index(nvmlDevice_t d)
{
	if (!d || d < devs || d >= devs + FAKE_MAX_DEVICES)
		return -1;
	return (int)(d - devs);
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	if (!init_count)
		return NVML_ERROR_UNINITIALIZED;
	load_script();
	int i = dev_index(device);
	if (i < 0 || (unsigned)i >= sc.devices || !memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (sc.fail_memory)
		return NVML_ERROR_UNKNOWN;
	memory->total = sc.total[i];
	memory->used = sc.used[i];
	memory->free = sc.total[i] - sc.used[i];
	return NVML_SUCCESS;
}

int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	if (!init_count)
		return NVML_ERROR_UNINITIALIZED;
	load_script();
	int i = dev_index(device);
	if (i < 0 || (unsigned)i >= sc.devices || !name || length == 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(name, length, "%s", sc.name[i][0] ? sc.name[i] : "Fake GPU");
	return NVML_SUCCESS;
}

static int processes(nvmlDevice_t device, int graphics, unsigned int *count,
		     nvmlProcessInfo_t *infos)
{
	if (!init_count)
		return NVML_ERROR_UNINITIALIZED;
	load_script();
	int i = dev_index(device);
	if (i < 0 || (unsigned)i >= sc.devices || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (sc.fail_processes)
		return NVML_ERROR_UNKNOWN;
	if (graphics && sc.graphics_not_supported)
		return NVML_ERROR_NOT_SUPPORTED;
	unsigned have = 0;
	for (unsigned k = 0; k < sc.n_procs; k++)
		if (sc.procs[k].dev == i && sc.procs[k].graphics == graphics)
			have++;
	if (have > *count || (have > 0 && !infos)) {
		*count = have;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	unsigned n = 0;
	for (unsigned k = 0; k < sc.n_procs; k++) {
		const struct fake_proc *p = &sc.procs[k];
		if (p->dev != i || p->graphics != graphics)
			continue;
		memset(&infos[n], 0, sizeof(infos[n]));
		infos[n].pid = p->pid;
		infos[n].usedGpuMemory = p->mem;
		infos[n].gpuInstanceId = 0xFFFFFFFFu;
		infos[n].computeInstanceId = 0xFFFFFFFFu;
		n++;
	}
	*count = n;
	return NVML_SUCCESS;
}

int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
					    unsigned int *count,
					    nvmlProcessInfo_t *infos)
{
	return processes(device, 0, count, infos);
}

int nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device,
					     unsigned int *count,
					     nvmlProcessInfo_t *infos)
{
	return processes(device, 1, count, infos);
}
