/*
 * recorder_internal.h - what the recorder's files share (recorder.c: the
 * loop and each root target; recorder_host.c: --all's scans and
 * --group-by's groups; recorder_command.c: the -- COMMAND under its
 * reaper). Private to src/record/: nothing outside includes it.
 *
 * The state (struct recorder) belongs to one recorder_run() call, in its
 * thread; the invariants the files rely on are asserted where they are
 * used (ids handed out in order and never 0, roots within their array,
 * a frame emptied once delivered).
 */
#ifndef MEMTREND_RECORDER_INTERNAL_H
#define MEMTREND_RECORDER_INTERNAL_H

#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "reaper.h"
#include "recorder.h"
#include "sampler.h"
#include "sink_set.h"
#include "stamp_clock.h"

/* Samplers a recorder can hold (the GPU's, the work sources'). */
#define RECORDER_MAX_SAMPLERS 4
#define RESCAN_INTERVAL_S 5.0
#define NAME_SCAN_MIN_S 0.25
#define STOP_GRACE_S 10.0
#define SYSTEM_INTERVAL_S 1.0

/* A followed process incarnation: the process sampler's state and each
 * other sampler's, its ids, its figures at this tick (where the frame
 * points). */
struct proc_watch {
	void *proc;                /* the process sampler's; NULL: none */
	const struct proc_identity *ident; /* the process sampler's, valid
					      while proc is */
	int64_t inc_id;
	int64_t target_id;
	int64_t cgroup;            /* its memory cgroup's id; 0: none */
	struct sampler_figures fig; /* this tick's reading */
	/* each other sampler's state for this incarnation (sampler.h);
	 * NULL: nothing to read */
	void *sampled[RECORDER_MAX_SAMPLERS];
	bool regions_due;          /* --regions: snapshot at the next sample */
	bool alive;
	bool child;                /* a --children descendant: its target
				      ends with its process */
};

enum root_kind { ROOT_PID, ROOT_NAME, ROOT_COMMAND };

struct root {
	enum root_kind kind;
	const char *target_kind;   /* sample_target.kind: "pid", "process"... */
	int64_t target_id;
	char name[128];            /* display name of the target */
	pid_t pid;                 /* requested or spawned pid */
	struct proc_watch main;    /* main.pp NULL when absent */
	bool finished;             /* pid/command: its process has ended */
	double next_scan;          /* name: next rescan (monotonic) */
	bool matched;              /* name: some process matched once */
	size_t last_matches;
	/* --children */
	int64_t tree_target_id;
	int64_t tree_inc_id;
	struct proc_mem tree_sum;  /* this tick's (the frame points at it) */
	struct proc_watch *kids;
	size_t n_kids, cap_kids;
	double next_child_scan;
	/* --conn-port */
	int64_t conn_source_id;
	double next_conn;          /* monotonic time of the next count */
	pid_t *conn_pids;          /* scratch: main + children */
	size_t conn_pids_cap;
	/* --all --group-by: 1 + its index in rec->groups; 0: in none */
	size_t group;
};

/* --all --group-by: a group of processes, recorded as one target (kind
 * "group") whose samples are the sum of its live members, like a tree. */
struct group {
	char *key;                 /* comm, cgroup path or unit; owned */
	char *spec;                /* "name=KEY"...: its target's name; owned */
	int64_t target_id;
	int64_t inc_id;            /* 0 while no member is alive */
	struct proc_mem sum;       /* this tick's, over members alive */
	size_t members;            /* members alive at this tick */
	size_t first;              /* a root of one of them (this tick) */
	/* The member its open incarnation started with (its frame entries'
	 * identity; comm is the group's key, cut, no cmdline). */
	struct proc_identity inc_first;
};

struct recorder {
	const struct recorder_options *o;
	/* The process sampler (sampler.h): which processes there are,
	 * their lifetimes and figures, the machine's. */
	struct sampler processes;
	struct sink_set out;       /* the caller's sinks */
	/* The recorder's ids (sample.h): the last one given of each. */
	int64_t last_target, last_inc, last_cgroup, last_source;
	/* This tick's frame: what the sinks get, pointers into the roots,
	 * groups and the buffers below; reused, so a tick allocates only
	 * when the number of targets grows. */
	struct sample_proc *procs;
	size_t n_procs, cap_procs;
	struct sample_cgroup *frame_cgroups;
	size_t n_frame_cgroups, cap_frame_cgroups;
	/* Readings finished since the last frame (sources, connections). */
	struct sample_reading *readings;
	size_t n_readings, cap_readings;
	/* Allocation sites' values at this tick (record --sites). */
	struct sample_site_value *site_values;
	size_t n_site_values, cap_site_values;
	int64_t last_site;
	/* The -- COMMAND's environment when a sampler sets one (the
	 * preloaded shim, sites_sampler()): the sampler's; NULL:
	 * memtrend's own. */
	char *const *command_env;
	/* A descriptor the command alone inherits (the shim's region,
	 * sites_sampler()); 0: none. */
	int command_pass_fd;
	const struct sys_mem *frame_sys;
	struct root *roots;
	size_t n_roots;
	regex_t name_re;
	bool have_re;
	pid_t *exclude;            /* memtrend and its ancestors */
	size_t n_exclude;
	size_t cap_roots;          /* --all: roots grow and shrink */
	pid_t self;                /* --all: memtrend's own pid, left out */
	double next_host_scan;     /* --all: monotonic time of the next */
	bool host_cap_noted;       /* --all: --max-targets said once */
	bool host_denied_noted;    /* --all: unreadable processes said once */
	size_t dropped_since_trim; /* --all: roots dropped since malloc_trim */
	struct group *groups;      /* --all --group-by: every group seen */
	size_t n_groups, cap_groups;
	bool group_cap_noted;      /* more groups than --max-targets */
	uint64_t samples;
	double t0_mono;
	double next_system;        /* monotonic time of the next system read */
	const struct recorder_hooks *hooks;  /* never NULL (a default) */
	/* The -- COMMAND, started under a reaper (reaper.h) that ends all
	 * it started; its socket is readable once the command exits, so the
	 * exit cuts the sleep short without a SIGCHLD handler (work commands
	 * end many times a second and must not cause ticks). */
	struct reaper command;
	bool command_running;      /* started, its end not heard yet */
	bool command_go;           /* its reaper may reap it (after the
				      first tick's sample) */
	bool command_end_tick;     /* its end was heard after this tick's
				      sample: tick again at once */
	int command_status;
	bool conn_unrestricted_noted;
	/* the other samplers (sampler.h): the GPU's memory, the work
	 * counter and gauges */
	struct sampler samplers[RECORDER_MAX_SAMPLERS];
	size_t n_samplers;
	bool samplers_started;     /* their start() was called (from then
				      on collect, request, finish) */
	struct stamp_clock clock;  /* the samples' stamps (tick_stamp) */
	double last_stamp;         /* the newest tick's stamp; NAN before */
	size_t target_rows;        /* targets added to the file */
};

static inline double nan0(double v) { return isnan(v) ? 0 : v; }

/* recorder.c: a new target, incarnation, and its end, told to the sinks
 * (the ids are the next of their kind, sample.h); one entry of this
 * tick's frame (pointers to where the figures were read). */
int64_t recorder_target_add(struct recorder *rec, const char *kind,
			    const char *spec, const char *name,
			    int64_t parent);
int64_t recorder_inc_begin(struct recorder *rec, int64_t target,
			   const struct proc_identity *id, int64_t cgroup,
			   double t);
void recorder_inc_end(struct recorder *rec, int64_t inc, double t,
		      const char *reason);
void recorder_frame_add(struct recorder *rec, int64_t target, int64_t inc,
			const char *name, const char *kind, bool child,
			const struct proc_identity *id,
			const struct proc_mem *mem,
			const struct proc_smaps *smaps);
/* Open a root's process (and its tree's incarnation); r->main.pp NULL
 * when it cannot be read. seen: NULL, or pid's identity the caller has
 * just read (its command line is then not read again). */
void recorder_root_open(struct recorder *rec, struct root *r, pid_t pid,
			const struct proc_identity *seen, double t);
/* A sum's figures: add m (absent figures count 0), or start empty. */
void recorder_mem_add(struct proc_mem *sum, const struct proc_mem *m);
void recorder_mem_clear(struct proc_mem *m);

/* recorder_host.c: --all's scan (new processes become roots) at most every
 * rescan_s; the roots whose process ended dropped, after the frame;
 * --group-by's sums after every root was sampled; the groups' end. */
void recorder_host_scan(struct recorder *rec, double t, double mono);
void recorder_host_compact(struct recorder *rec, double t);
void recorder_groups_tick(struct recorder *rec, double t);
void recorder_groups_release(struct recorder *rec, double t);

/* recorder_command.c: start the -- COMMAND under its reaper (EXIT_OK,
 * EXIT_USAGE when it cannot be run, EXIT_RUNTIME); has it ended (its
 * status kept)?; its tree's end on every way out (now: the command still
 * runs), bounded. */
int recorder_command_spawn(struct recorder *rec);
void recorder_command_reap(struct recorder *rec);
void recorder_command_finish(struct recorder *rec, bool now);

#endif
