/*
 * cmd_demo.c - `memtrend demo`: a self-contained showcase. Forks the three
 * built-in workloads (workload.h), records them for a short while at a
 * short interval into a temporary recording (or -o FILE), then prints the
 * report: one leak (growing), one cache at its cap (plateau), one steady
 * service (stable).
 *
 * Nothing depends on how fast the machine runs the workloads: each says
 * when it is ready (the steady one once steady), the cache says when it
 * is full, and the recording lasts --duration and, past that, until the
 * cache has held its cap for as long as it would at full speed (a busy
 * machine fills it late; the flat part the plateau rests on is never
 * cut short). At most DEMO_MAX_FACTOR times --duration in all.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "recorder.h"
#include "render.h"
#include "source.h"
#include "store.h"
#include "units.h"
#include "workload.h"

#define DEMO_WORKLOADS 3
/* The recording's hard bound, in --durations: a cache that never fills
 * (a machine far too busy) still ends the demo. */
#define DEMO_MAX_FACTOR 4

/* What demo's options are parsed into (defaults in cmd_demo()). */
struct demo_args {
	const char *output;
	double duration, interval;
	bool json;
};
#define DEMO_DUR(s, l, f, h) CLI_DURATION(s, l, struct demo_args, f, "DUR", \
	h, 0, true, INFINITY, "a duration (e.g. 40s, 250ms)", NULL)

/* demo's options: getopt_long, the parser, --help and the man page check
 * all read this table (cli_options.h). */
const struct cli_option demo_options[] = {
	CLI_SECTION("options"),
	CLI_STRING('o', "output", struct demo_args, output, "FILE", "keep the "
		"recording in FILE (default: a temporary file, removed "
		"afterwards)", NULL),
	DEMO_DUR('d', "duration", duration, "how long to record at least "
		"(default 40s; longer while the cache fills late)"),
	DEMO_DUR('i', "interval", interval, "sampling interval (default "
		"250ms)"),
	CLI_FLAG(0, "json", struct demo_args, json, "print the report as "
		"JSON"),
	CLI_HELP_ROW,
	CLI_END_ROW,
};

static const struct cli_command demo_command = {
	.name = "demo",
	.usage =
"usage: memtrend demo [options]\n"
"\n"
"Start three small built-in services -- one that leaks per request, one\n"
"whose cache fills up to a cap, one that is steady -- record them, and\n"
"print the report. Needs nothing but memtrend itself.\n",
	.options = demo_options,
};

/* Start workload k, its requests logged to log_path (one line each: its
 * work counter); *full_fd (when not NULL) gets the read end of its
 * "cache full" pipe, non-blocking. Waits until it says it is ready. */
static int start_workload(enum workload_kind k, const char *log_path,
			  pid_t *pid, int *full_fd)
{
	int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0600);
	if (log_fd < 0)
		return error("cannot create '%s': %m", log_path);
	int fds[2], full[2] = {-1, -1};
	if (pipe(fds)) {
		close(log_fd);
		return error("cannot create a pipe: %m");
	}
	if (full_fd && pipe2(full, O_CLOEXEC | O_NONBLOCK)) {
		close(log_fd);
		close(fds[0]);
		close(fds[1]);
		return error("cannot create a pipe: %m");
	}
	pid_t child = fork();
	if (child < 0) {
		close(log_fd);
		close(fds[0]);
		close(fds[1]);
		if (full_fd) {
			close(full[0]);
			close(full[1]);
		}
		return error("cannot fork: %m");
	}
	if (child == 0) {
		close(fds[0]);
		if (full[0] >= 0)
			close(full[0]);
		workload_run(k, fds[1], full[1], log_fd);
		_exit(1);
	}
	close(log_fd);
	close(fds[1]);
	if (full_fd) {
		close(full[1]);
		*full_fd = full[0];
	}
	char ready;
	ssize_t n;
	do
		n = read(fds[0], &ready, 1);
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n != 1) {
		waitpid(child, NULL, 0);
		return error("the %s workload failed to start",
			     workload_name(k));
	}
	*pid = child;
	return 0;
}

/* ---- the recording's end ------------------------------------------- */

struct demo_run {
	double duration_s;     /* --duration: the least the demo records */
	double flat_s;         /* the cache held at its cap at least this */
	int full_fd;           /* the cache's "full" pipe; -1 once read */
	double t_full;         /* elapsed_s when it said so; NAN: not yet */
	double elapsed_s;      /* at the last tick */
	double interval_s;
	unsigned long ticks_full; /* ticks since the cache said full */
	bool status_line;
	bool told;
};

static volatile sig_atomic_t demo_signal;

static void on_demo_signal(int sig) { demo_signal = sig; }

static void demo_on_tick(void *ctx, const struct recorder_tick *k)
{
	struct demo_run *d = ctx;
	d->elapsed_s = k->elapsed_s;
	if (!isnan(d->t_full))
		d->ticks_full++;
	if (d->full_fd >= 0) {
		char b;
		ssize_t n = read(d->full_fd, &b, 1);
		if (n == 1 || n == 0 || (n < 0 && errno != EAGAIN &&
					 errno != EINTR)) {
			/* full (or the workload is gone: wait no more) */
			d->t_full = n == 1 ? k->elapsed_s : -INFINITY;
			close(d->full_fd);
			d->full_fd = -1;
		}
	}
	if (d->status_line)
		render_status_line(stderr, k->elapsed_s, k->samples,
				   k->targets, k->footprint, k->slope_bph);
}

static int demo_should_stop(void *ctx)
{
	struct demo_run *d = ctx;
	if (demo_signal)
		return demo_signal;
	if (d->elapsed_s < d->duration_s || isnan(d->t_full))
		return 0;
	/* held for flat_s, in time and in samples: a busy machine ticks
	 * late, and the flat part's evidence is its samples */
	if (d->elapsed_s - d->t_full < d->flat_s ||
	    (isfinite(d->t_full) &&
	     (double)d->ticks_full < d->flat_s / d->interval_s)) {
		/* said when it costs more than a second's wait */
		if (!d->told && isfinite(d->t_full) && !d->status_line &&
		    d->t_full + d->flat_s > d->duration_s + 1) {
			note("demo: the cache filled late (after %.0f s, a "
			     "busy machine): recording on until it has held "
			     "its cap for %.0f s", d->t_full, d->flat_s);
			d->told = true;
		}
		return 0;
	}
	return SIGTERM;
}

/* Record until demo_should_stop() says (or a signal, or the bound). */
static int demo_record(const struct recorder_options *o, struct demo_run *d,
		       struct recorder_result *res)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old[ARRAY_SIZE(sigs)];
	/* No SA_RESTART: a stop must cut the recorder's sleep short. */
	struct sigaction sa = {.sa_handler = on_demo_signal};
	sigemptyset(&sa.sa_mask);
	demo_signal = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, &old[i]);
	struct recorder_hooks hooks = {
		.ctx = d,
		.should_stop = demo_should_stop,
		.on_tick = demo_on_tick,
		.wake_fd = -1,
	};
	int rc = recorder_run(o, &hooks, res);
	if (d->status_line)
		render_status_end(stderr);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &old[i], NULL);
	if (rc == EXIT_OK && isnan(d->t_full))
		warning("demo: the cache never said it was full in %.0f s: "
			"the machine is too busy for the demo's workloads",
			d->elapsed_s);
	return rc;
}

static void stop_workloads(const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	for (size_t i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

int cmd_demo(int argc, char **argv)
{
	struct demo_args a = {.duration = 40, .interval = 0.25};
	int first = cli_parse(&demo_command, "", argc, argv, &a);
	if (first == CLI_PARSE_HELP)
		return EXIT_OK;
	if (first < 0)
		return EXIT_USAGE;
	const char *output = a.output;
	double duration = a.duration, interval = a.interval;
	bool json = a.json;
	if (first != argc) {
		error("demo takes no arguments");
		return EXIT_USAGE;
	}
	/* Before the workloads start: the recording never overwrites. */
	struct stat out_st;
	if (output && lstat(output, &out_st) == 0) {
		error("'%s' already exists: name a new file for the demo's "
		      "recording", output);
		return EXIT_USAGE;
	}

	/* The temporary directory holds the workloads' request logs, and
	 * the recording unless -o names one. */
	char tmpdir[] = "/tmp/memtrend-demo-XXXXXX";
	char tmpfile[sizeof(tmpdir) + 16];
	if (!mkdtemp(tmpdir)) {
		error("cannot create a temporary directory: %m");
		return EXIT_RUNTIME;
	}
	if (!output) {
		snprintf(tmpfile, sizeof(tmpfile), "%s/demo.db", tmpdir);
		output = tmpfile;
	}

	pid_t pids[DEMO_WORKLOADS] = {0};
	static const enum workload_kind kinds[DEMO_WORKLOADS] = {
		WORKLOAD_LEAK, WORKLOAD_CACHE, WORKLOAD_STEADY};
	char logs[DEMO_WORKLOADS][sizeof(tmpdir) + 32] = {{0}};
	struct source *sources[DEMO_WORKLOADS] = {0};
	static const size_t source_roots[DEMO_WORKLOADS] = {0, 1, 2};
	int rc = EXIT_RUNTIME;
	struct demo_run run = {
		.duration_s = duration,
		/* the flat part a full-speed run of --duration has */
		.flat_s = fmax(duration - WORKLOAD_CACHE_FILL_S, 0),
		.full_fd = -1,
		.t_full = NAN,
		.interval_s = interval,
		.status_line = isatty(STDERR_FILENO),
	};
	for (int i = 0; i < DEMO_WORKLOADS; i++) {
		snprintf(logs[i], sizeof(logs[i]), "%s/%s.log", tmpdir,
			 workload_name(kinds[i]));
		if (start_workload(kinds[i], logs[i], &pids[i],
				   kinds[i] == WORKLOAD_CACHE ? &run.full_fd :
				   NULL))
			goto out;
	}
	/* Each workload's requests, counted as --work-log counts a
	 * service's access log: the per-request slope, the idle windows,
	 * and a "stable" that knows the work it covers. */
	for (int i = 0; i < DEMO_WORKLOADS; i++) {
		sources[i] = source_new_log(SOURCE_WORK, "requests", logs[i],
					    ".");
		if (!sources[i])
			goto out;
	}

	char dur[32], iv[32];
	fprintf(stderr,
		"memtrend demo: recording three workloads for %s (longer if "
		"the cache fills late), a sample every %s:\n"
		"  %-12s pid %-7d keeps %d KiB per simulated request (a leak)\n"
		"  %-12s pid %-7d fills a cache up to its %.0f MiB cap\n"
		"  %-12s pid %-7d allocates and frees the same sizes (steady)\n",
		units_format_duration(dur, sizeof(dur), duration),
		units_format_duration(iv, sizeof(iv), interval),
		workload_name(kinds[0]), (int)pids[0],
		WORKLOAD_LEAK_PER_REQUEST / 1024, workload_name(kinds[1]),
		(int)pids[1], WORKLOAD_CACHE_CAP / (1024 * 1024),
		workload_name(kinds[2]), (int)pids[2]);

	struct recorder_options ro = {
		.output = output,
		.interval_s = interval,
		.duration_s = duration * DEMO_MAX_FACTOR,
		.pids = pids,
		.n_pids = DEMO_WORKLOADS,
		.smaps_interval_s = 60,
		.commit_interval_s = 1,
		.invocation = "memtrend demo",
		.sources = sources,
		.n_sources = DEMO_WORKLOADS,
		.source_roots = source_roots,
		.source_timeout_s = 1,
	};
	struct recorder_result res;
	rc = demo_record(&ro, &run, &res);
	memset(sources, 0, sizeof(sources));   /* the recorder's now */
	stop_workloads(pids, DEMO_WORKLOADS);
	memset(pids, 0, sizeof(pids));
	if (rc != EXIT_OK)
		goto out;
	fprintf(stderr, "memtrend demo: %llu samples in %s\n\n",
		(unsigned long long)res.samples, output);

	struct dataset d;
	if (store_read_dataset(output, NULL, &d)) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* The cache workload's cap, as the process sees it: its footprint
	 * before the cache filled plus the cache's own cap (the runtime's
	 * baseline differs between builds, e.g. under a sanitizer). */
	double baseline = 0;
	for (size_t i = 0; i < d.n_targets; i++)
		if (!strcmp(d.targets[i].name, workload_name(WORKLOAD_CACHE)) &&
		    d.targets[i].n)
			baseline = d.targets[i].footprint[0];
	struct analysis_cap cap = {"demo-cache cap",
				   baseline + WORKLOAD_CACHE_CAP};
	struct report_options o = {
		.format = json ? REPORT_JSON : REPORT_TEXT,
		.color = !json && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
		.plot = !json && isatty(STDOUT_FILENO),
	};
	analysis_options_init(&o.analysis);
	o.analysis.caps = &cap;
	o.analysis.n_caps = 1;
	rc = cli_report_dataset(&d, &o, NULL);
	dataset_release(&d);
	if (!json && output == tmpfile)
		fprintf(stderr, "(the recording was temporary; keep one with "
			"'memtrend demo -o demo.db', then 'memtrend report "
			"demo.db')\n");
out:
	if (run.full_fd >= 0)
		close(run.full_fd);
	stop_workloads(pids, DEMO_WORKLOADS);
	for (int i = 0; i < DEMO_WORKLOADS; i++) {
		source_free(sources[i]);
		if (logs[i][0])
			unlink(logs[i]);
	}
	if (output == tmpfile)
		store_remove(tmpfile);
	rmdir(tmpdir);
	return rc;
}
