/*
 * recorder.h - the sampling loop behind `record` (and the demo): resolves
 * targets, samples them through the probe at a fixed interval, writes
 * samples to the store in batched transactions, follows restarts (by name)
 * and descendants, and stops on SIGINT/SIGTERM, --duration or when every
 * target is gone. It does not parse options (cmd_record.c does) and does
 * not exit the process.
 */
#ifndef MEMTREND_RECORDER_H
#define MEMTREND_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct recorder_options {
	const char *output;        /* recording file */
	bool append;               /* add to an existing recording */
	double interval_s;         /* > 0 */
	double duration_s;         /* NAN: until stopped or targets gone */
	const pid_t *pids;         /* -p, may be several */
	size_t n_pids;
	const char *name_regex;    /* --name, or NULL */
	char *const *command;      /* -- COMMAND ARGS..., or NULL */
	bool children;             /* --children */
	bool smaps;                /* --smaps */
	bool regions;              /* --regions: smaps region snapshots of
				      each root process at start and end */
	double smaps_interval_s;   /* rate of smaps_rollup reads */
	bool no_gpu;               /* --no-gpu: no DRM fdinfo, no NVML */
	double commit_interval_s;  /* how often a batch is committed */
	bool status_line;          /* live line on stderr */
	const char *proc_root;     /* NULL: default */
	const char *sys_root;      /* NULL: default */
	const char *invocation;    /* memtrend's command line, for meta */
	/* Work counter and gauges (source.h); the recorder takes ownership
	 * of the sources (freed even when it fails to start). */
	struct source **sources;
	size_t n_sources;
	double source_timeout_s;   /* > 0 when there are sources */
	/* --conn-port: ESTABLISHED connections to these local ports. */
	const uint16_t *conn_ports;
	size_t n_conn_ports;
};

struct source;

struct recorder_result {
	uint64_t samples;          /* process samples written */
	int command_status;        /* -- COMMAND's exit code (128+signal
				      when killed), -1 when none */
};

/* Run until done. Returns an exit code (common.h): EXIT_OK,
 * EXIT_USAGE (no such PID, bad regex, command not found) or EXIT_RUNTIME
 * (the store or probe failed). */
int recorder_run(const struct recorder_options *o, struct recorder_result *r);

#endif
