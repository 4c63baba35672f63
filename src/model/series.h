/*
 * series.h - the in-memory form every analysis works on: one target's
 * figures over time, whatever source they came from (a recording read by
 * store_read.c, a CSV read by csv.c).
 *
 * Struct of arrays, all of length n, in ascending time. A figure that was
 * not recorded at a point is NAN there; a figure never recorded at all has
 * a NULL array. Each point belongs to one incarnation (index into incs);
 * incarnations appear in time order and never interleave. A series owns all
 * its memory: series_release() frees it.
 */
#ifndef MEMTREND_SERIES_H
#define MEMTREND_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct incarnation {
	int64_t pid;               /* -1 when unknown (CSV without pid) */
	unsigned long long start_ticks;
	double start_time;         /* Unix seconds; NAN if unknown */
	char *comm;                /* owned; may be NULL */
	char *cmdline;             /* owned; may be NULL */
};

/* GPUs whose memory is kept device by device (issue 28): NVML indices
 * 0..7, as many as one machine of the common kinds has. A process's memory
 * on a device of a higher index is in COMP_GPU only (no pool of its own). */
#define SERIES_GPU_DEVICES 8

/* Indices of the optional component arrays. */
enum series_component {
	COMP_RSS, COMP_ANON, COMP_FILE, COMP_SHMEM, COMP_SWAP, COMP_PAGETABLES,
	COMP_PSS, COMP_PSS_ANON, COMP_PRIVATE_DIRTY, COMP_SWAP_PSS,
	COMP_GPU,   /* device-local GPU memory: part of the footprint */
	/* The part of COMP_GPU on NVML device d (COMP_GPU0 + d): not added
	 * to anything again (COMP_GPU holds it), kept so that each device
	 * is a pool with its own limit (analysis_pools.c) */
	COMP_GPU0,
	COMP_GPU_LAST = COMP_GPU0 + SERIES_GPU_DEVICES - 1,
	COMP_COUNT
};
extern const char *const series_component_names[COMP_COUNT];

/* One family of a region snapshot, as stored (store_write.c) and read
 * back (store_read.c). */
struct series_region_row {
	const char *family;        /* regions.h's region_family_names */
	double size, rss, pss, private_dirty, swap, footprint;
	long long mappings;
	const char *top;           /* largest mapping; may be NULL */
};

struct region_breakdown;

/* One GPU memory region of a process (schema 3): its first and last
 * resident reading in the latest incarnation that has any. */
struct series_gpu_region {
	char source[8];            /* "drm" (fdinfo) or "nvml" */
	char name[24];             /* vram0, system, device, ... */
	char kind[8];              /* "device", "host" or "other" */
	double first_t, first, last_t, last; /* resident bytes; NAN absent */
};

/* One GPU's memory as its driver reports it (all processes). */
struct dataset_gpu_device {
	char source[8];
	unsigned index;
	double t, total, used;     /* the latest reading */
	char name[64];             /* "NVIDIA H200"; "" when not recorded */
};

/* What bounds the process's memory on one GPU (issue 28): the device's
 * memory as its driver reports it for all processes, at the latest
 * reading. NAN when unknown (no reading: a CSV, DRM, an older file). */
struct series_gpu_limit {
	double total, used;        /* bytes */
	char name[64];             /* "NVIDIA H200"; "" when unknown */
};

/* A target's latest memory figures as /proc/PID/status gives them: what
 * ps and top show (RSS) beside the footprint. rss = anon + file + shmem
 * (VmRSS = RssAnon + RssFile + RssShmem); file pages (the page cache a
 * process maps: its binaries, libraries, mapped files) are in the RSS,
 * not in the footprint. A group's or a tree's are its members' sums. All
 * NAN when not recorded (a CSV, Prometheus, a target without samples). */
struct series_resident {
	double t;                  /* the sample's stamp */
	double rss, anon, file, shmem, swap;  /* bytes */
};

/* An allocation site (record --sites, docs/sites.md): its frames,
 * innermost first, and its estimate of live bytes as recorded: a row
 * when it changed, holding until the next (before the first: 0, nothing
 * sampled there yet). Strings owned; NULL when unknown. */
struct series_site_frame {
	uint64_t address, offset;
	char *module, *build_id, *function, *file;
	int line;                  /* 0: unknown */
};

struct series_site {
	int64_t id;                /* the recording's */
	uint32_t inc;              /* its incarnation (index into incs) */
	struct series_site_frame *frames; /* owned; n_frames */
	size_t n_frames;
	double *t, *live;          /* owned; n rows, t ascending */
	double *var;               /* owned; n rows: the sampling variance
				      of live, bytes^2 (NAN: not recorded,
				      a file of an earlier memtrend) */
	size_t n, cap;
};

/* What the shim said of an incarnation's sampling, at its latest
 * figures (all NAN, recorded false, without --sites). */
struct series_site_stats {
	bool recorded;
	uint32_t inc;
	double rate, depth, sampled, dropped_sites, dropped_live, backtrace_s;
};

struct series_gauge {
	char *name;                /* owned */
	double *v;                 /* length n, owned */
};

/* A label of a series read from Prometheus (name="value"). */
struct series_label {
	char *name, *value;        /* owned */
};

struct series {
	char *name;                /* display name; owned; process-controlled */
	struct series_label *labels; /* owned; n_labels; what identifies a
					target read from Prometheus (sorted
					by name); none for other sources */
	size_t n_labels;
	size_t n, cap;
	double *t;                 /* Unix seconds UTC, non-decreasing */
	double *footprint;         /* bytes */
	uint32_t *inc;             /* incarnation index per point */
	double *comp[COMP_COUNT];  /* optional components (NULL = never) */
	double *requests;          /* cumulative work; NULL = not recorded */
	double *connections;       /* NULL = not recorded */
	double *pressure;          /* NULL = not recorded */
	double *walk_var;          /* NULL = none: the variance (bytes^2) at
				      each point of an error the readings
				      carry that persists into later ones
				      (a sampled estimate's: the sites'
				      series, analysis/sites.c); the slopes'
				      intervals count it
				      (stats_walk_slope_variance) */
	struct series_gauge *gauges;
	size_t n_gauges;
	struct incarnation *incs;
	size_t n_incs;
	/* record --regions: the first and last snapshot of the latest
	 * incarnation that has any (owned; NULL when none). */
	struct region_breakdown *regions_first, *regions_last;
	double regions_first_t, regions_last_t;
	uint32_t regions_inc;
	struct series_gpu_region *gpu_regions; /* owned; n_gpu_regions */
	size_t n_gpu_regions;
	uint32_t gpu_regions_inc;
	double quantum;            /* precision of the readings as stored
				      (bytes); 0 when unknown */
	bool quantum_exact;        /* the source's own unit (a recording's
				      page size), not the last digit a
				      text happened to have */
	bool group;                /* a --group-by group (the recording's
				      kind "group": the sum of its
				      members) */
	/* Limits known from the source (NAN when unknown). */
	double cgroup_limit;
	double mem_total;
	double swap_total, swap_free_last, mem_available_last;
	/* Per NVML device d, for COMP_GPU0 + d: SERIES_GPU_DEVICES of
	 * them, owned, made by the first series_set_gpu_limit (NULL: none
	 * known; a figure never set is NAN). */
	struct series_gpu_limit *gpu_limits;
	/* The latest sample's resident figures (a recording's reader sets
	 * them whatever it loads of the arrays; NAN otherwise). */
	struct series_resident resident;
	/* record --sites: the allocation sites (owned; n_sites) and the
	 * shim's figures. */
	struct series_site *sites;
	size_t n_sites;
	struct series_site_stats site_stats;
};

/* A recording or a CSV: several targets plus what applies to all. */
struct dataset {
	char *source;              /* file name; owned */
	struct series *targets;
	size_t n_targets;
	double interval_s;         /* configured interval; NAN if unknown */
	char **notes;              /* notes recorded with the data; owned */
	size_t n_notes;
	struct dataset_gpu_device *gpu_devices; /* owned */
	size_t n_gpu_devices;
	char *gpu_sources;         /* what the recorder could read, e.g.
				      "DRM fdinfo; NVML: not loaded (...)";
				      owned; NULL when not recorded */
	char *footprint_what;      /* what the footprint is, when not what
				      the recorder reads (anon + swap +
				      shmem): "the query's value" for
				      Prometheus; owned; NULL otherwise */
};

void series_init(struct series *s, const char *name);
void series_release(struct series *s);
/* Append a point; components/requests/... arrays are created on demand by
 * series_set_*(). Returns the index of the new point. */
size_t series_append(struct series *s, double t, double footprint,
		     uint32_t inc);
/* Make room for cap points (a reader that knows the count avoids the
 * doubling copies of a large series). */
void series_reserve(struct series *s, size_t cap);
/* Set an optional figure at point i (allocating its array, NAN-filled, on
 * first use). */
void series_set_component(struct series *s, enum series_component c,
			  size_t i, double v);
void series_set_requests(struct series *s, size_t i, double v);
void series_set_connections(struct series *s, size_t i, double v);
void series_set_pressure(struct series *s, size_t i, double v);
void series_set_walk_var(struct series *s, size_t i, double v);
void series_set_gauge(struct series *s, const char *name, size_t i, double v);
/* The same without the search by name: add a gauge (the caller knows the
 * name is new) and set by its index. */
size_t series_add_gauge(struct series *s, const char *name);
void series_set_gauge_at(struct series *s, size_t g, size_t i, double v);
/* Add an incarnation; returns its index. Strings are copied. */
uint32_t series_add_incarnation(struct series *s, int64_t pid,
				unsigned long long start_ticks,
				double start_time, const char *comm,
				const char *cmdline);

/* Add one family row of a region snapshot taken at t of incarnation inc
 * (rows of one snapshot share t). Keeps the first and the latest
 * snapshot of the latest incarnation seen. */
void series_add_region_row(struct series *s, uint32_t inc, double t,
			   const struct series_region_row *r);

/* Add one GPU region reading of incarnation inc at t (rows in time
 * order). Keeps first and last per (source, region) of the latest
 * incarnation seen. */
void series_add_gpu_row(struct series *s, uint32_t inc, double t,
			const char *source, const char *region,
			const char *kind, double resident);

/* Set the limit of device d (< SERIES_GPU_DEVICES; others ignored) from
 * the driver's figures; name may be NULL. */
void series_set_gpu_limit(struct series *s, unsigned d, double total,
			  double used, const char *name);

/* Add an allocation site of incarnation inc (frames copied); its index.
 * Then its rows, in time order. */
size_t series_add_site(struct series *s, int64_t id, uint32_t inc,
		       const struct series_site_frame *frames, size_t n);
void series_site_add_row(struct series_site *site, double t, double live,
			 double var);
/* The estimate of site at time t: its latest row at or before t, 0
 * before its first. */
double series_site_live_at(const struct series_site *site, double t);
/* Add a label (copied); labels stay sorted by name. */
void series_add_label(struct series *s, const char *name, const char *value);
/* Free the points (times, footprints, components, work, gauges) and keep
 * the rest (name, labels, incarnations): a report of many targets keeps
 * the findings of each but the points only of those it draws. n becomes
 * 0; findings made before keep their figures. */
void series_drop_points(struct series *s);

void dataset_init(struct dataset *d, const char *source);
struct series *dataset_add_target(struct dataset *d, const char *name);
void dataset_add_note(struct dataset *d, const char *text);
void dataset_release(struct dataset *d);
/* Issue 28: a --group-by group that had one member all its life is that
 * member: the same incarnation (pid, start ticks) and the same points
 * (times within a millisecond, equal footprints). Each such group is
 * removed (released), so that a report lists and ranks it once, as its
 * process; a group with two members, or whose member was replaced (a
 * second incarnation), stays. The order of the rest is kept. Returns
 * how many were removed. O(groups x targets + their points). */
size_t dataset_fold_lone_groups(struct dataset *d);

#endif
