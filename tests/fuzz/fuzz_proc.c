/*
 * fuzz_proc.c - libFuzzer harness: the /proc and /sys readers on a file
 * tree written from the input. The probe reads under a proc root (as the
 * tests' fixture trees), so the input becomes, by its first byte, one of
 * /proc/1/status, /proc/1/stat, /proc/1/smaps_rollup, /proc/1/smaps,
 * /proc/1/fdinfo/3 (a DRM client), /proc/meminfo, /proc/pressure/memory,
 * or a cgroup's memory.current/max/peak, and the matching reader runs.
 * Slower than an in-memory harness (a file write per input), but it
 * fuzzes the very code that reads the kernel's files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "probe.h"
#include "probe_gpu.h"
#include "regions.h"
#include "smaps.h"

static char root[64];
static char proc[96], sys_dir[96];

static void put(const char *rel, const uint8_t *data, size_t size)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data, 1, size, f);
	fclose(f);
}

static void setup(void)
{
	if (root[0])
		return;
	snprintf(root, sizeof(root), "/tmp/memtrend-fuzz-proc.%d", (int)getpid());
	const char *dirs[] = {"", "/proc", "/proc/1", "/proc/1/fd",
			      "/proc/1/fdinfo", "/proc/pressure", "/sys",
			      "/sys/fs", "/sys/fs/cgroup", "/sys/fs/cgroup/a"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char p[128];
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys_dir, sizeof(sys_dir), "%s/sys", root);
	/* a fixed, valid backdrop the fuzzed file replaces one at a time */
	static const char status[] = "Name:\tx\nVmRSS:\t100 kB\nRssAnon:\t60 kB\n"
		"RssFile:\t40 kB\nRssShmem:\t0 kB\nVmSwap:\t0 kB\nVmPTE:\t4 kB\n";
	static const char stat[] = "1 (x) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 "
		"1 0 100 0 0\n";
	static const char cgroup[] = "0::/a\n";
	put("proc/1/status", (const uint8_t *)status, sizeof(status) - 1);
	put("proc/1/stat", (const uint8_t *)stat, sizeof(stat) - 1);
	put("proc/1/cgroup", (const uint8_t *)cgroup, sizeof(cgroup) - 1);
	char link[256], target[256];
	snprintf(link, sizeof(link), "%s/proc/1/fd/3", root);
	snprintf(target, sizeof(target), "/dev/dri/renderD128");
	symlink(target, link);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	setup();
	if (size < 1)
		return 0;
	unsigned which = data[0] % 9;
	data++;
	size--;
	static const char *const files[] = {
		"proc/1/status", "proc/1/stat", "proc/1/smaps_rollup",
		"proc/1/smaps", "proc/1/fdinfo/3", "proc/meminfo",
		"proc/pressure/memory", "sys/fs/cgroup/a/memory.current",
		"sys/fs/cgroup/a/memory.max",
	};
	put(files[which], data, size);
	struct probe *p = probe_new(proc, sys_dir);
	if (!p)
		return 0;
	struct probe_proc *pp = NULL;
	if (probe_proc_open(p, 1, &pp) == PROBE_OK) {
		struct proc_mem m;
		probe_proc_read(pp, &m);
		struct proc_smaps sm;
		probe_proc_read_smaps(pp, &sm);
		probe_proc_close(pp);
	}
	struct proc_identity id;
	if (probe_identity_read(p, 1, &id) == PROBE_OK)
		proc_identity_release(&id);
	struct sys_mem sys;
	probe_sys_read(p, &sys);
	struct probe_cgroup *cg = NULL;
	if (probe_cgroup_open(p, 1, &cg) == PROBE_OK && cg) {
		struct cgroup_mem cm;
		probe_cgroup_read(cg, &cm);
		probe_cgroup_close(cg);
	}
	probe_free(p);
	struct gpu_usage gu;
	probe_gpu_drm_read(proc, 1, &gu);
	struct region_breakdown rb;
	smaps_read(proc, 1, &rb);
	regions_release(&rb);
	return 0;
}
