/*
 * cmd_demo.c - `memtrend demo`: a self-contained showcase. Forks the three
 * built-in workloads (workload.h), records them for a short while at a
 * short interval into a temporary recording (or -o FILE), then prints the
 * report: one leak (growing), one cache at its cap (plateau), one steady
 * service (stable).
 */
#include <errno.h>
#include <getopt.h>
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
#include "store.h"
#include "units.h"
#include "workload.h"

#define DEMO_WORKLOADS 3

/* demo's options: getopt_long, --help and the man page check all read
 * this table (cli_options.h). */
const struct cli_option demo_options[] = {
	CLI_SECTION("options"),
	CLI_OPT('o', "output", 'o', "FILE", "keep the recording in FILE "
		"(default: a temporary file, removed afterwards)"),
	CLI_OPT('d', "duration", 'd', "DUR", "how long to record (default "
		"40s)"),
	CLI_OPT('i', "interval", 'i', "DUR", "sampling interval (default "
		"250ms)"),
	CLI_OPT(0, "json", 'j', NULL, "print the report as JSON"),
	CLI_OPT('h', "help", 'h', NULL, "this help"),
	CLI_END_ROW,
};

static void demo_usage(FILE *out)
{
	fprintf(out,
"usage: memtrend demo [options]\n"
"\n"
"Start three small built-in services -- one that leaks per request, one\n"
"whose cache fills up to a cap, one that is steady -- record them, and\n"
"print the report. Needs nothing but memtrend itself.\n");
	cli_options_help(out, demo_options);
}

static int start_workload(enum workload_kind k, pid_t *pid)
{
	int fds[2];
	if (pipe(fds))
		return error("cannot create a pipe: %m");
	pid_t child = fork();
	if (child < 0)
		return error("cannot fork: %m");
	if (child == 0) {
		close(fds[0]);
		workload_run(k, fds[1]);
		_exit(1);
	}
	close(fds[1]);
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
	/* Built once, kept for the process's life. */
	static struct option *longopts;
	static char *shortopts;
	if (!longopts)
		cli_options_getopt(demo_options, "", &longopts, &shortopts);
	const char *output = NULL;
	double duration = 40, interval = 0.25;
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;  /* our own message, naming the command */
	while ((c = cli_getopt(argc, argv, shortopts, longopts)) !=
	       -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'd':
		case 'i': {
			double *v = c == 'd' ? &duration : &interval;
			if (units_parse_duration(optarg, v) || !(*v > 0)) {
				error("%s: cannot read '%s' as a duration "
				      "(e.g. 40s, 250ms)", c == 'd' ?
				      "--duration" : "--interval", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'j':
			json = true;
			break;
		case 'h':
			demo_usage(stdout);
			return EXIT_OK;
		default:
			error("demo: unknown option or missing value: '%s' "
			      "(see 'memtrend demo --help')",
			      argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
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

	char tmpdir[] = "/tmp/memtrend-demo-XXXXXX";
	char tmpfile[sizeof(tmpdir) + 16];
	if (!output) {
		if (!mkdtemp(tmpdir)) {
			error("cannot create a temporary directory: %m");
			return EXIT_RUNTIME;
		}
		snprintf(tmpfile, sizeof(tmpfile), "%s/demo.db", tmpdir);
		output = tmpfile;
	}

	pid_t pids[DEMO_WORKLOADS] = {0};
	static const enum workload_kind kinds[DEMO_WORKLOADS] = {
		WORKLOAD_LEAK, WORKLOAD_CACHE, WORKLOAD_STEADY};
	int rc = EXIT_RUNTIME;
	for (int i = 0; i < DEMO_WORKLOADS; i++)
		if (start_workload(kinds[i], &pids[i]))
			goto out;

	char dur[32], iv[32];
	fprintf(stderr,
		"memtrend demo: recording three workloads for %s, a sample "
		"every %s:\n"
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
		.duration_s = duration,
		.pids = pids,
		.n_pids = DEMO_WORKLOADS,
		.smaps_interval_s = 60,
		.commit_interval_s = 1,
		.invocation = "memtrend demo",
	};
	struct recorder_result res;
	rc = cli_record_foreground(&ro, isatty(STDERR_FILENO), NULL, false,
				   &res);
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
	stop_workloads(pids, DEMO_WORKLOADS);
	if (output == tmpfile) {
		store_remove(tmpfile);
		rmdir(tmpdir);
	}
	return rc;
}
