/*
 * sampler.h - everything the recorder reads, through one interface, as
 * htop's platforms or node_exporter's collectors: the recorder has no
 * code of its own that reads the machine. Three kinds fill it:
 *
 * - the process sampler, exactly one per recorder and first of all
 *   (sampler_proc.c: proc_sampler(), Linux's /proc over probe.h): it
 *   says which processes there are (list: --all's and --children's
 *   scans, --name's matches, -p's identity, memtrend's own ancestors),
 *   follows each incarnation (open: its identity and memory cgroup;
 *   read: its status figures, smaps_rollup when due, and whether it
 *   still lives; snapshot: --regions; close), reads the machine and
 *   the memory cgroups at tick(), and counts a tree's connections.
 *   Another platform is another such file, made in its place where
 *   recorder_run() lists its samplers;
 * - memory sources read per process after it (open, read, close, a
 *   tick for machine-wide readings): the GPU readers (DRM fdinfo and
 *   NVML, recorder_gpu.c: gpu_sampler()), the allocation sites of
 *   record --sites (sampler_sites.c: sites_sampler(), which starts
 *   too, and puts its sites' values in the frame);
 * - readers of figures apart from any process (start, collect, request,
 *   busy, cancel, finish): the work counter and gauges
 *   (sampler_sources.c: sources_sampler(), over the source thread).
 *
 * A new memory source (an eBPF map) is one new file that fills these
 * operations, and a line where the recorder lists its samplers
 * (recorder.c, recorder_run()); the operations of a kind it is not are
 * NULL.
 *
 * Who owns what. The process sampler owns what it opened for an
 * incarnation (kept-open fds, its identity, the cgroups it declared),
 * until close() (the cgroups until free()); the recorder holds its
 * state pointer, the identity pointer it hands out (valid until close)
 * and the figures (struct sampler_figures, one per followed process:
 * the recorder's storage, where every sampler reads into and the frame
 * points, no copy). What remains the recorder's is the lifetime
 * bookkeeping above the figures: which targets follow which
 * incarnation (ids, sample.h), when a process is found gone (read()
 * says SAMPLER_GONE: its incarnation ends), and the -- COMMAND it
 * starts under its reaper (reaper.h).
 *
 * The recorder calls a sampler in its own thread: list() at a scan;
 * open() when it starts following a process incarnation (the process
 * sampler's first: NULL means the process cannot be followed, and no
 * other sampler opens it), read() at every sample of it (the process
 * sampler's first, whose answer decides whether there is a sample; the
 * others add to its figures: the footprint counts device memory),
 * snapshot() after every read when --regions asks for one, close()
 * when the incarnation ends; tick() once the processes were read, at
 * most once a second, for what is read per machine (the machine's
 * memory, the cgroups', a device's totals). What a sampler learns
 * besides the figures (a cgroup, a region's row, a note) it pushes to
 * the sinks as events (sample.h), between frames.
 *
 * A reader apart from processes: start() once the targets are declared
 * (it declares its sources, sampler_source_declare(), and may start a
 * thread of its own, which reads between ticks); at every tick, after
 * the processes, collect() hands on the readings finished since the
 * last (sampler_reading(): into this tick's frame, each with its own
 * stamp), then request() asks for the next; cancel() when the run
 * stops (what is in flight becomes a gap, a failure from then on is no
 * news); finish() once at the end, when started (the last readings, in
 * the closing frame). busy(): a reading is in flight (it may hold a
 * connection of memtrend's own to the service: the recorder counts
 * connections later).
 *
 * Contract: never fail a recording once it runs (what cannot be read is
 * a note, once, and no figure: NAN; only start() may fail it, and a
 * process the process sampler cannot read is a process not followed);
 * must not block (it costs the tick; collect() with wait, at a stop, is
 * bounded by the source timeout); every operation may be NULL but the
 * process sampler's list, open, identity, read, close and free. Cost:
 * one indirect call per operation; a read adds no syscall and no copy
 * to what its reader costs (the process sampler's: one pread of
 * /proc/PID/status). What list() found is its caller's, until
 * sampler_list_release().
 */
#ifndef MEMTREND_SAMPLER_H
#define MEMTREND_SAMPLER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample.h"

struct probe;
struct sink_set;
struct source;
struct recorder_options;
/* The recorder, as its samplers see it: the calls below (recorder.c). */
struct recorder;

/* A service the recorder starts may take this long to answer its work
 * counter or gauges before a failure is warned about (source.h). */
#define SAMPLER_STARTUP_GRACE_S 30.0

/* What read() says of the process (the process sampler's decides; the
 * others say SAMPLER_OK). */
enum sampler_status {
	SAMPLER_OK = 0,
	SAMPLER_GONE = 1,        /* the incarnation has exited */
	SAMPLER_UNREADABLE = 2,  /* it cannot be read any more */
};

/* One followed process's figures at a tick: the recorder's storage,
 * which each sampler's read() fills in turn and the frame points at. */
struct sampler_figures {
	struct proc_mem mem;       /* status; the GPU's added (footprint) */
	struct proc_smaps smaps;   /* smaps_rollup, when smaps_read */
	bool smaps_read;           /* read at this tick */
};

/* What list() is asked for. */
enum sampler_scope {
	SAMPLER_ONE,         /* pid itself (-p): one found, or none */
	SAMPLER_ALL,         /* every process (--all) but skip's; with
				have_user, that user's only */
	SAMPLER_DESCENDANTS, /* pid's children, theirs... (--children),
				but skip's */
	SAMPLER_ANCESTORS,   /* pid and its parents up to the root */
	SAMPLER_NAME,        /* those whose name or command line matches
				re (--name), oldest first, never one of
				exclude nor a child of exclude[0] (its
				reapers: target.h, target_name_eligible) */
};

struct sampler_query {
	enum sampler_scope scope;
	pid_t pid;                 /* ONE, DESCENDANTS, ANCESTORS */
	const pid_t *skip;         /* ALL, DESCENDANTS: ascending, not
				      read (followed already) */
	size_t n_skip;
	const pid_t *exclude;      /* NAME */
	size_t n_exclude;
	const regex_t *re;         /* NAME */
	bool have_user;            /* ALL */
	uid_t user;
	bool cgroup_paths;         /* ALL: found.cgroup_path wanted */
};

/* A process list() found: its identity as read (cmdline owned by the
 * list) and, when asked, its memory cgroup's path as /proc/PID/cgroup
 * names it (owned; NULL: none). */
struct sampler_found {
	struct proc_identity id;
	char *cgroup_path;
};

struct sampler_list {
	struct sampler_found *found;
	size_t n, cap;
	pid_t denied;              /* a process that could not be read (no
				      access: hidepid, a LSM); 0: none */
};

/* Free what a list holds (found[], their command lines and paths). */
void sampler_list_release(struct sampler_list *l);

struct sampler_ops {
	const char *name;
	/* What it can read on this machine, for the recording
	 * (meta.gpu_sources for the GPU's). */
	const char *(*describe)(void *ctx);

	/* ---- per process ---- */
	/* Per incarnation state; NULL: nothing to read for it (read and
	 * close are then not called; the process sampler's: it cannot be
	 * followed, gone or unreadable). seen: NULL, or pid's identity as
	 * a list() of this run found it (its command line need not be
	 * read again). */
	void *(*open)(void *ctx, pid_t pid, const struct proc_identity *seen);
	/* At t (mono: CLOCK_MONOTONIC, for rescan rates), into f; events
	 * under the recorder's incarnation inc. */
	enum sampler_status (*read)(void *ctx, void *proc,
				    const struct sink_set *out, int64_t inc,
				    double t, double mono,
				    struct sampler_figures *f);
	/* --regions: where the process's memory sits, told to the sinks
	 * (SAMPLE_REGION) under inc; after every read of the tick, so m is
	 * its whole footprint (device memory included). */
	void (*snapshot)(void *ctx, void *proc, const struct sink_set *out,
			 int64_t inc, double t, const struct proc_mem *m);
	/* Before the incarnation ends: it may still send events under
	 * it (a last word: record --sites' sites added since the last
	 * read). */
	void (*close)(void *ctx, void *proc);

	/* ---- the process sampler only ---- */
	/* Into *out (empty, then the caller's to release): 0, or -1 when
	 * the processes cannot be listed at all (no message). */
	int (*list)(void *ctx, const struct sampler_query *q,
		    struct sampler_list *out);
	/* proc's identity (pid and start time: the incarnation), valid
	 * until close(). */
	const struct proc_identity *(*identity)(void *ctx, void *proc);
	/* The recorder's id of proc's memory cgroup, 0: none readable;
	 * asked once, after open (a cgroup first seen is declared then,
	 * sampler_cgroup_declare, before the incarnation that names it). */
	int64_t (*cgroup)(void *ctx, struct recorder *rec, void *proc);
	/* ESTABLISHED TCP connections to one of ports on the sockets of
	 * pids (pids[0] the root; probe.h, probe_tcp_established: its
	 * rules). 0 with *count (NAN: unreadable) and *restricted. */
	int (*connections)(void *ctx, const pid_t *pids, size_t n_pids,
			   const uint16_t *ports, size_t n_ports,
			   double *count, bool *restricted);

	/* ---- per machine: after the processes, at most once a second;
	 * the frame's figures through sampler_frame_sys/_cgroup ---- */
	void (*tick)(void *ctx, struct recorder *rec, double t);

	/* ---- apart from processes. start: 0, or -1 after a message (the
	 * run does not start). ---- */
	int (*start)(void *ctx, struct recorder *rec);
	void (*collect)(void *ctx, struct recorder *rec, bool wait);
	void (*request)(void *ctx, struct recorder *rec, double t);
	bool (*busy)(void *ctx);
	void (*cancel)(void *ctx);
	void (*finish)(void *ctx, struct recorder *rec, double t);
	/* Everything it holds, started or not. */
	void (*free)(void *ctx);
};

struct sampler {
	const struct sampler_ops *ops;
	void *ctx;
};

/* Linux's /proc as the process sampler (sampler_proc.c), over probe (the
 * caller's, not owned: it must outlive the sampler). smaps: read
 * smaps_rollup every smaps_interval_s of each process; regions:
 * snapshot() reads smaps by family. */
struct sampler proc_sampler(struct probe *probe, bool smaps,
			    double smaps_interval_s, bool regions);

/* The GPU readers as a sampler (recorder_gpu.c); enabled false
 * (--no-gpu): one that reads nothing and says "off (--no-gpu)". */
struct sampler gpu_sampler(const char *proc_root, bool enabled);

/* The work counter and gauges as a sampler (sampler_sources.c): owns
 * sources[0..n) from this call (the array stays the caller's), freed
 * even when it never starts; roots[i] (copied; NULL: none) indexes the
 * recorder's -p roots (0..n_pids): whose source i is, else every
 * target's. */
struct sampler sources_sampler(struct source **sources, size_t n,
			       const size_t *roots, size_t n_pids,
			       double timeout_s);

/* What a sampler may ask of the recorder (recorder.c), in its thread. */
/* A source declared to the sinks (SAMPLE_SOURCE): its id. */
int64_t sampler_source_declare(struct recorder *rec, const char *role,
			       const char *name, const char *method,
			       const char *spec, int64_t target);
/* A reading of source (stamped t, NAN a gap) in this tick's frame. */
void sampler_reading(struct recorder *rec, int64_t source, double t,
		     double value);
/* The target id of the recorder's root i (-p's come first, in order). */
int64_t sampler_root_target(const struct recorder *rec, size_t i);
/* A -- COMMAND the recorder started is running. */
bool sampler_command_running(const struct recorder *rec);
/* The sinks, for events (the machine tick's). */
const struct sink_set *sampler_sinks(const struct recorder *rec);
/* A memory cgroup first seen (SAMPLE_CGROUP, key "v2:/path"): its id. */
int64_t sampler_cgroup_declare(struct recorder *rec, const char *key);
/* The machine's figures in this tick's frame: sys stays the sampler's,
 * unchanged until the frame is delivered (the frame points at it). */
void sampler_frame_sys(struct recorder *rec, const struct sys_mem *sys);
/* A memory cgroup's figures (declared: id) in this tick's frame. */
void sampler_frame_cgroup(struct recorder *rec, int64_t id,
			  const struct cgroup_mem *m);
/* A note (or a warning) printed and kept in the recording, stamped t. */
void sampler_say(struct recorder *rec, double t, bool warn,
		 const char *text);
/* An allocation site's id, new (its SAMPLE_SITE is the caller's to
 * send); and its value in this tick's frame: the live bytes' estimate,
 * its sampling variance (bytes^2) and the sampled allocations. */
int64_t sampler_site_new(struct recorder *rec);
void sampler_site_value(struct recorder *rec, int64_t site, double live,
			double var, double allocs);

/* Allocation sites (sampler_sites.c, docs/sites.md): the region the
 * preloaded shim fills, made for the -- COMMAND, *env the command's
 * environment with the shim preloaded and *pass_fd the region's
 * descriptor that the command alone must inherit (both the sampler's,
 * until it is freed); read at every sample of the process that claimed
 * it. ctx NULL when it cannot be made (said why; the run does not
 * start). */
struct sampler sites_sampler(const struct recorder_options *o,
			     char *const **env, int *pass_fd);
/* Its operations: a sampler is the sites sampler when its ops are these. */
extern const struct sampler_ops sites_sampler_ops;
/* Allocation sites of a process memtrend did not start (record --sites
 * -p PID, sampler_sites_bpf.c): eBPF uprobes on its allocator, attached
 * when the first process is opened. Never fails the run: what stops it
 * (no permission, built without eBPF) is said, and no sites recorded. */
struct sampler bpf_sites_sampler(const struct recorder_options *o);

#endif
