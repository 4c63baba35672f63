/*
 * sample.h - what one reading of a process or a cgroup holds, as data: the
 * figures the probe reads (probe.h), the recorder completes (GPU) and the
 * store writes. Types only; no code. They sit in model/ so that the store
 * (and anything else that only carries samples) need not see the probe.
 *
 * proc_identity_release() (frees cmdline) stays with the probe that fills
 * it: probe.h.
 */
#ifndef MEMTREND_SAMPLE_H
#define MEMTREND_SAMPLE_H

#include "series.h" /* SERIES_GPU_DEVICES */
#include <sys/types.h>

/* From /proc/PID/status. NAN when absent. */
struct proc_mem {
	double rss;        /* VmRSS */
	double anon;       /* RssAnon */
	double file;       /* RssFile */
	double shmem;      /* RssShmem */
	double swap;       /* VmSwap */
	double pagetables; /* VmPTE */
	double footprint;  /* anon + swap + shmem; NAN if anon absent; absent
			      swap/shmem count as 0. The recorder adds gpu. */
	double gpu;        /* device-local GPU memory (probe_gpu.h): not in
			      /proc/PID/status, so probe_proc_read leaves it
			      NAN ("none seen"); the recorder fills it and
			      adds it to footprint */
	/* Issue 28, filled by the recorder like gpu (NAN from
	 * probe_proc_read): the part of gpu on NVML device d, and that
	 * device's total and used memory (all processes) at its latest
	 * reading: the pool's limit is total less what the others hold. */
	double gpu_dev[SERIES_GPU_DEVICES];
	double gpu_total[SERIES_GPU_DEVICES], gpu_used[SERIES_GPU_DEVICES];
};

/* From /proc/PID/smaps_rollup. NAN when absent. */
struct proc_smaps {
	double pss, pss_anon, private_dirty, swap_pss;
};

/* struct sys_mem (/proc/meminfo, PSI): src/model/machine.h. */

/* Memory cgroup figures. NAN when absent; max is NAN when unlimited
 * ("max" in v2, or v1's huge PAGE_COUNTER_MAX value). */
struct cgroup_mem {
	double current, max, peak;
};

struct proc_identity {
	pid_t pid;
	pid_t ppid;
	char state;                     /* /proc/PID/stat field 3: 'R',
					   'S', ..., 'Z' a zombie */
	unsigned long long start_ticks; /* /proc/PID/stat field 22 */
	double start_time;              /* Unix seconds: btime + ticks/HZ */
	char comm[64];                  /* raw comm (may hold any bytes) */
	char *cmdline;                  /* NUL separators turned to spaces;
					   owned; "" for kernel threads */
};

#endif
