/*
 * recorder.h - the sampling loop behind `record`, `watch`, `check` and
 * the demo, as a library: resolves targets, samples them through its
 * samplers (sampler.h: the process sampler over the caller's probe, the
 * GPU's, the work sources') at a fixed interval, hands each tick to the caller's
 * sinks as one frame (sink.h, sample.h), follows restarts (by name) and
 * descendants, and stops when its caller says so (hooks.should_stop), at
 * the duration, or when every target is gone.
 *
 * What it does not do: open the probe or any file (the store is a sink,
 * sink_store.h; recorder_file.h opens both for the usual run), parse
 * options (src/cmd/cli_record.c), install signal handlers, draw anything
 * or exit the process. The caller owns
 * signals: a handler that sets what should_stop() returns, installed
 * without SA_RESTART, cuts the recorder's sleep short (so does a byte on
 * hooks.wake_fd, for a caller in another thread). The -- COMMAND's exit
 * is seen through a pidfd, not SIGCHLD.
 */
#ifndef MEMTREND_RECORDER_H
#define MEMTREND_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probe.h"
#include "sink.h"

/* --all --group-by: what makes processes one group. */
enum recorder_group_by {
	RECORDER_GROUP_NONE,
	RECORDER_GROUP_NAME,       /* the same comm */
	RECORDER_GROUP_CGROUP,     /* the same memory cgroup path */
	RECORDER_GROUP_UNIT,       /* the same systemd unit: the last
				      component of the cgroup path that
				      ends in .service, .scope, .slice,
				      .socket, .mount or .swap */
};

struct recorder_options {
	/* The file, for recorder_run_file() (recorder_run() takes its
	 * sinks as they are): NULL records none (record --listen alone). */
	const char *output;        /* recording file */
	bool append;               /* add to an existing recording */
	double interval_s;         /* > 0 */
	double duration_s;         /* NAN: until stopped or targets gone */
	const pid_t *pids;         /* -p, may be several */
	size_t n_pids;
	/* NULL, or one display name per pid (NULL: its comm), for the
	 * targets of `memtrend probe`'s arms ("glibc arena_max=2"). */
	const char *const *pid_names;
	const char *name_regex;    /* --name, or NULL */
	char *const *command;      /* -- COMMAND ARGS..., or NULL */
	bool children;             /* --children */
	/* --all: every process that can be read (kernel threads left out),
	 * each its own target ("process"), found by a rescan every
	 * rescan_s; an ended one closes its incarnation and is dropped.
	 * Not with pids, name_regex, command, children or conn ports. */
	bool all;
	bool have_user;            /* --user: only processes of user */
	uid_t user;
	/* --cgroup: only processes whose memory cgroup (probe_cgroup_path)
	 * is this one or below it: a path ("/system.slice/x.service";
	 * "/" is every process) or a name without '/' ("x.service",
	 * "system.slice") that is one of the path's components. NULL:
	 * any. */
	const char *cgroup;
	/* --group-by: besides each process, one target per group (kind
	 * "group"), the sum of its live members at each tick. */
	enum recorder_group_by group_by;
	size_t max_targets;        /* --all: at most this many processes
				      followed at once, and at most this
				      many groups (more: skipped, one note
				      each) */
	double rescan_s;           /* --all: between scans (> 0) */
	bool smaps;                /* --smaps */
	bool regions;              /* --regions: smaps region snapshots of
				      each root process at start and end */
	double smaps_interval_s;   /* rate of smaps_rollup reads */
	bool no_gpu;               /* --no-gpu: no DRM fdinfo, no NVML */
	double commit_interval_s;  /* how often a batch is committed */
	double retain_s;           /* --retain: rows older than this are
				      deleted at each commit (store_retain);
				      0 or NAN: everything is kept */
	const char *proc_root;     /* NULL: default */
	const char *sys_root;      /* NULL: default */
	const char *invocation;    /* memtrend's command line, for meta */
	/* Work counter and gauges (source.h); the recorder takes ownership
	 * of the sources (freed even when it fails to start). */
	struct source **sources;
	size_t n_sources;
	/* Whose each source is: source_roots[i] indexes pids[] (that
	 * process's target); NULL, or an index past n_pids: every target
	 * (a service's one counter). */
	const size_t *source_roots;
	double source_timeout_s;   /* > 0 when there are sources */
	/* --conn-port: ESTABLISHED connections to these local ports. */
	const uint16_t *conn_ports;
	size_t n_conn_ports;
	/* --sites (docs/sites.md): the -- COMMAND started with the shim
	 * preloaded and its allocation sites read at every tick, sampled
	 * every sites_rate bytes on average, sites_depth frames each. */
	bool sites;
	double sites_rate;         /* bytes, >= 1 */
	int sites_depth;           /* 1..SITES_MAX_DEPTH; 0: the default */
};

struct source;
struct sys_mem;

/* What the caller hears after every tick (the view of `watch`, `check`'s
 * judgement): where the run stands. Every figure of every target goes to
 * the sinks (sink.h), before this: a caller that follows a target's
 * figures (watch's view, check's work counter) is a sink too. */
struct recorder_tick {
	double t;                  /* the tick's stamp (UTC seconds) */
	double elapsed_s;          /* since recording started */
	uint64_t samples;          /* process samples taken so far */
	size_t targets;            /* root targets (the first root's
				      footprint and slope for a status line:
				      status_sink.h, from the frames) */
	size_t target_rows;        /* targets this run added to the file
				      (roots, trees, children) */
	bool all;                  /* --all (its sums: the frames') */
};

struct recorder_hooks {
	void *ctx;                 /* passed back to every hook */
	/* Polled at every tick and whenever the sleep is cut short: 0 goes
	 * on; non-zero stops. A -- COMMAND is sent this number as a signal
	 * -- unless RECORDER_STOP_SEEN is or'ed in: a signal it had already
	 * -- and given 10 s to end; then it and all it started are ended
	 * (RECORDER_KILL_GRACE_S). NULL: never. */
	int (*should_stop)(void *ctx);
	/* After every tick (and after every sink had its frame), in the
	 * recorder's thread; must not block. Every sample of every target
	 * goes to the sinks, not here. */
	void (*on_tick)(void *ctx, const struct recorder_tick *tick);
	/* A readable descriptor cuts the sleep short (the caller writes a
	 * byte; the recorder drains it). -1: none. */
	int wake_fd;
};

/* should_stop()'s value for a signal the -- COMMAND had already: a
 * terminal's Ctrl-C or hang-up reaches every process of its foreground
 * process group, the command's included (it runs in memtrend's group),
 * and is not sent twice. A caller tells by the signal's si_code:
 * SI_KERNEL for the terminal's, SI_USER for a kill(1) of memtrend alone. */
#define RECORDER_STOP_SEEN 0x10000

/* The -- COMMAND and everything it started (also what left its process
 * group: a reaper, reaper.h, ends it) are ended when the recording ends,
 * whatever ends it: the command's exit (what it left behind), --duration
 * or a stop (SIGTERM to the command; the rest once it has exited), an
 * error, and memtrend's own death (kill -9). What is left after SIGTERM
 * gets SIGKILL after this many seconds. */
#define RECORDER_KILL_GRACE_S 2

struct recorder_result {
	uint64_t samples;          /* process samples taken */
	int command_status;        /* -- COMMAND's exit code (128+signal
				      when killed), -1 when none */
	bool duration_ended;       /* --duration ended the recording while
				      the -- COMMAND ran: it was sent
				      SIGTERM; its status is not memtrend's */
};

/* Run until done, reading through probe (the caller's: opened and freed
 * by it; the process sampler, sampler_proc.c, reads through it) and handing everything read to sinks[0..n_sinks) (the
 * caller's; each gets begin() first and end() last, whatever happens,
 * sink.h). hooks may be NULL (no stop but the duration or the targets'
 * end). The recorder owns the sources from its start (freed even when it
 * fails). Returns an exit code (common.h): EXIT_OK, EXIT_USAGE (no such
 * PID, bad regex, command not found) or EXIT_RUNTIME (a sink failed to
 * begin or lost what it was given). */
int recorder_run(const struct recorder_options *o, struct probe *probe,
		 const struct sink *sinks, size_t n_sinks,
		 const struct recorder_hooks *hooks, struct recorder_result *r);

/* The usual run (recorder_file.c): the machine's probe (o->proc_root,
 * o->sys_root), the recording file o->output as the first sink
 * (sink_store.h: o->append, o->commit_interval_s, o->retain_s; no file
 * when o->output is NULL), then extra[0..n_extra) (the caller's), into
 * recorder_run(). The sources are freed also when the probe or the file
 * cannot be opened (EXIT_RUNTIME). */
int recorder_run_file(const struct recorder_options *o,
		      const struct sink *extra, size_t n_extra,
		      const struct recorder_hooks *hooks,
		      struct recorder_result *r);

#endif
