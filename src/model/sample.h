/*
 * sample.h - the vocabulary of a sample: what is read of a process (its
 * identity, its memory from /proc/PID/status, smaps_rollup) and of its
 * memory cgroup, as every layer above the model passes it around.
 *
 * The probe fills these (probe.h), the store writes and reads them
 * (store.h), the live consumers keep them: none of them needs to see the
 * others to agree on what a sample is. Plain data only: nothing here
 * reads, allocates or frees, but proc_identity_release() (probe.h) for
 * the command line a probe allocated. Every byte figure is in bytes; a
 * figure that is absent is NAN.
 */
#ifndef MEMTREND_SAMPLE_H
#define MEMTREND_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "machine.h"
#include "series.h" /* SERIES_GPU_DEVICES */

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

/* ---- what the recorder hands its sinks (sink.h) ------------------------
 *
 * Ids: a target, an incarnation, a memory cgroup and a source each get an
 * id from the recorder, 1 up in the order they appear, never reused
 * within a run; 0 is "none". They are the recorder's, not a file's: a
 * store maps them to its rows (its own ids differ when it appends to a
 * file), a live view keys its series by them.
 *
 * Lifetimes: every pointer in these structs is valid during the sink call
 * that carries it, no longer; a sink copies what it keeps. Nothing here
 * is a copy of a sample: a frame points at the recorder's own readings.
 */

/* A target is declared (SAMPLE_TARGET) before its first incarnation. */
struct sample_target {
	int64_t id;
	int64_t parent;            /* a --children child's root, a tree's
				      root; 0: none */
	const char *kind;          /* "pid", "name", "command", "process"
				      (--all), "child", "tree", "group" */
	const char *spec;          /* the argument as given, "name=KEY"... */
	const char *name;          /* its display name */
};

/* A process lifetime of a target begins (SAMPLE_INCARNATION). A tree's
 * is its root's identity, a group's the member it started with. */
struct sample_incarnation {
	int64_t id;
	int64_t target;
	const struct proc_identity *ident;
	int64_t cgroup;            /* its memory cgroup (SAMPLE_CGROUP); 0:
				      none known */
	double first_seen;         /* Unix seconds UTC */
};

/* A memory cgroup first seen (SAMPLE_CGROUP): its key, "v1:/path" or
 * "v2:/path". */
struct sample_cgroup_decl {
	int64_t id;
	const char *key;
};

/* A figure from outside /proc (SAMPLE_SOURCE): the work counter, a
 * gauge, a connection count. role "work", "gauge" or "connections";
 * method "command", "metric", "log" or "tcp"; target 0: it applies to
 * every target. */
struct sample_source {
	int64_t id;
	const char *role, *name, *method, *spec;
	int64_t target;
};

/* GPU memory of one process, one region (SAMPLE_GPU_REGION), given when
 * it changes: source "drm" or "nvml", kind "device", "host" or "other"
 * (probe_gpu.h). Bytes, NAN absent. */
struct sample_gpu_region {
	const char *source, *region, *kind;
	double total, resident, shared, purgeable;
};

/* One GPU device's memory, all processes (SAMPLE_GPU_DEVICE). */
struct sample_gpu_device {
	const char *source;        /* "nvml" */
	unsigned device;
	double total, used;
};

/* An allocation site (SAMPLE_SITE, record --sites, docs/sites.md): a
 * stack prefix of the incarnation's allocations, innermost first, each
 * frame named as well as the recorder could (module and offset always
 * when the address is in a mapped file; the rest NULL or 0 when not
 * known). Declared once, before its first value in a frame. */
struct sample_site_frame {
	uint64_t address;          /* the return address in the target */
	const char *module;        /* the mapped file; NULL: none */
	const char *build_id;      /* hex; NULL: not known */
	uint64_t offset;           /* address - the module's load bias */
	const char *function;      /* demangled; NULL: not known */
	const char *file;          /* source file; NULL: not known */
	int line;                  /* 0: not known */
};

struct sample_site {
	int64_t id;                /* the recorder's, 1 up, never reused */
	int64_t inc;               /* the incarnation it belongs to */
	const struct sample_site_frame *frames;
	size_t n_frames;
};

/* The sites' figures of one incarnation at a tick (SAMPLE_SITE_STATS,
 * only when they change): the sampler's counts, and what was dropped
 * because a table was full (never silently: the report says it). */
struct sample_site_stats {
	double rate;               /* mean bytes between samples */
	unsigned depth;
	double sampled, dropped_sites, dropped_live;
	double live_blocks;        /* sampled blocks live now */
	double backtrace_s;        /* time the target spent on stacks */
};

enum sample_event_kind {
	SAMPLE_TARGET,             /* u.target */
	SAMPLE_INCARNATION,        /* u.incarnation */
	SAMPLE_INCARNATION_END,    /* inc, u.text: why ("exited",
				      "recording ended", "unreadable") */
	SAMPLE_CGROUP,             /* u.cgroup */
	SAMPLE_SOURCE,             /* u.source */
	SAMPLE_NOTE,               /* inc (0: the recording's), u.text */
	SAMPLE_GPU_REGION,         /* inc, u.gpu */
	SAMPLE_GPU_DEVICE,         /* u.gpu_device */
	SAMPLE_REGION,             /* inc, u.region: --regions' snapshot,
				      one family */
	SAMPLE_META,               /* u.meta: a fact about the recording
				      learnt while it runs (a GPU's name) */
	SAMPLE_SITE,               /* inc, u.site */
	SAMPLE_SITE_STATS,         /* inc, u.site_stats */
};

/* What happens between frames, in the order it happens. */
struct sample_event {
	enum sample_event_kind kind;
	double t;                  /* Unix seconds UTC */
	int64_t inc;               /* the incarnation concerned, or 0 */
	union {
		const struct sample_target *target;
		const struct sample_incarnation *incarnation;
		const struct sample_cgroup_decl *cgroup;
		const struct sample_source *source;
		const char *text;
		const struct sample_gpu_region *gpu;
		const struct sample_gpu_device *gpu_device;
		const struct series_region_row *region;
		struct { const char *key, *value; } meta;
		const struct sample_site *site;
		const struct sample_site_stats *site_stats;
	} u;
};

/* One target's sample at a tick: a process, a --children tree's sum or
 * a --group-by group's sum (a sum's figures are its members' sums). */
struct sample_proc {
	int64_t target, inc;
	const char *name;          /* the target's display name */
	const char *kind;          /* as sample_target.kind */
	bool child;                /* a --children descendant: the store
				      keeps it; live views follow the tree */
	const struct proc_identity *ident; /* a tree's: its root's; a
					      group's: the member its
					      incarnation started with */
	const struct proc_mem *mem;
	const struct proc_smaps *smaps; /* NULL unless read at this tick */
};

/* A memory cgroup's figures at this tick. */
struct sample_cgroup {
	int64_t id;
	struct cgroup_mem mem;
};

/* A source's reading: its own stamp, which is that of an earlier tick (or
 * this one): it belongs to the sample of that stamp. NAN: a gap. */
struct sample_reading {
	int64_t source;
	double t;
	double value;
};

/* A site's estimate at this tick (record --sites): the bytes its live
 * sampled blocks stand for (sites_region.h's weights) and its sampled
 * allocations so far. */
struct sample_site_value {
	int64_t site;
	double live;               /* bytes */
	double var;                /* bytes^2: the sampling variance of live
				      (sites_sample_variance summed); NAN:
				      not known */
	double allocs;
};

/*
 * One tick (sink.h: frame), in the order the recorder took it: each root
 * target's processes and sums, then each group's sum. Readings finished
 * since the last frame; the machine's figures, the cgroups' and the GPU
 * devices' when they were read at this tick (at most once a second).
 * The recorder delivers one frame per tick, and after its loop one last
 * frame with no processes (last true) for what it collected while
 * stopping.
 */
struct sample_frame {
	double t;                  /* the tick's stamp, Unix seconds UTC */
	double mono;               /* CLOCK_MONOTONIC at the tick */
	double elapsed_s;          /* since the recording started */
	bool last;                 /* the closing frame: readings only */
	size_t n_roots;            /* root targets followed (-p, --name, a
				      command, --all's processes), sampled
				      at this tick or not */
	const struct sample_proc *procs;
	size_t n_procs;
	const struct sys_mem *sys; /* NULL: not read at this tick */
	const struct sample_cgroup *cgroups;
	size_t n_cgroups;
	const struct sample_reading *readings;
	size_t n_readings;
	/* record --sites: every site of the processes sampled at this
	 * tick, each with its latest estimate */
	const struct sample_site_value *sites;
	size_t n_sites;
};

#endif
