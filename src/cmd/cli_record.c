/*
 * cli_record.c - record's options (cmd.h: struct cli_record), shared by
 * `memtrend record` and `memtrend watch`: the usage text, getopt_long's
 * table and the checks that turn argv into recorder options and sources.
 * It starts nothing: recorder_run() does.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "http.h"
#include "recorder.h"
#include "exporter.h"
#include "recording.h"
#include "render.h"
#include "status_sink.h"
#include "source.h"
#include "store.h"
#include "units.h"

enum { OPT_NAME = 256, OPT_CHILDREN, OPT_SMAPS, OPT_SMAPS_INTERVAL,
       OPT_APPEND, OPT_PROC_ROOT, OPT_SYS_ROOT, OPT_COMMIT, OPT_WORK_CMD,
       OPT_WORK, OPT_WORK_LOG, OPT_MATCH, OPT_WORK_TIMEOUT, OPT_CONN_PORT,
       OPT_GAUGE, OPT_REGIONS, OPT_NO_GPU, OPT_ALL, OPT_USER,
       OPT_MAX_TARGETS, OPT_RESCAN, OPT_CGROUP, OPT_GROUP_BY,
       OPT_RETAIN, OPT_LISTEN, OPT_WORK_IS_COUNTER, OPT_TOP,
       OPT_LISTEN_PROCESSES };

#define RECORD_MAX_TARGETS 10000  /* --all's default bound (its help says so) */

/* record's (and watch's) options: getopt_long, --help and the man page
 * check all read this table (cli_options.h). */
const struct cli_option record_options[] = {
	CLI_SECTION("targets"),
	CLI_OPT('p', "pid", 'p', "PID", "a process; repeatable"),
	CLI_OPT(0, "name", OPT_NAME, "REGEX", "the oldest process whose "
		"name or command line matches (POSIX extended regex); waits "
		"for it and follows it across restarts"),
	CLI_TEXT("  -- COMMAND ARGS...     start COMMAND, record it until it "
		 "exits, and exit\n                         with its status. "
		 "What it started ends with it, also\n                         "
		 "what left its group (setsid): on its exit, -d, a stop,\n"
		 "                         and a kill -9 of memtrend "
		 "(SIGTERM, SIGKILL after 2 s).\n                         "
		 "-p and --name targets are never stopped."),
	CLI_OPT(0, "children", OPT_CHILDREN, NULL, "also record every "
		"descendant and their sum"),
	CLI_OPT(0, "all", OPT_ALL, NULL, "every process you can read, each "
		"its own target (kernel threads left out); new ones are "
		"found by a rescan, ended ones closed"),
	CLI_OPT(0, "user", OPT_USER, "USER", "with --all: only processes "
		"of USER (a name or a uid)"),
	CLI_OPT(0, "cgroup", OPT_CGROUP, "PATH", "with --all: only processes "
		"whose memory cgroup is PATH or below it "
		"(/system.slice/nginx.service), or has a component named PATH "
		"(a unit: nginx.service)"),
	CLI_OPT(0, "group-by", OPT_GROUP_BY, "BY", "with --all: also record "
		"each group's sum as one target; BY is name (one comm), "
		"cgroup (one memory cgroup) or unit (one systemd unit)"),
	CLI_OPT(0, "max-targets", OPT_MAX_TARGETS, "N", "with --all: at "
		"most N processes followed at once (default 10000); more are "
		"left out, with one note"),
	CLI_OPT(0, "rescan", OPT_RESCAN, "DUR", "with --all: time between "
		"scans for new processes (default 10s); one that starts and "
		"ends between two scans is not seen"),
	CLI_SECTION("work and other figures (read each sample, alongside "
		    "memory)"),
	CLI_OPT(0, "work-cmd", OPT_WORK_CMD, "CMD", "a shell command "
		"printing a cumulative counter (requests, tokens), e.g. "
		"redis-cli info stats | sed -n "
		"'s/^total_commands_processed://p'"),
	CLI_OPT(0, "work", OPT_WORK, "URL#METRIC", "a counter scraped from "
		"a Prometheus/OpenMetrics endpoint; METRIC{label=\"v\",...} "
		"sums the series that match (=, !=, =~, !~)"),
	CLI_OPT(0, "work-log", OPT_WORK_LOG, "FILE", "count lines appended "
		"to FILE that match"),
	CLI_OPT(0, "match", OPT_MATCH, "REGEX", "... this extended regex "
		"(follows rotation)"),
	CLI_OPT(0, "work-is-counter", OPT_WORK_IS_COUNTER, NULL, "analyse "
		"the work series as a counter even when it goes down too often "
		"to be one (watch, --listen; by default a gauge is set aside: "
		"docs/verdicts.md)"),
	CLI_OPT(0, "work-timeout", OPT_WORK_TIMEOUT, "DUR", "limit per "
		"reading of a command or endpoint (default: the interval)"),
	CLI_OPT(0, "conn-port", OPT_CONN_PORT, "PORT", "count ESTABLISHED "
		"TCP connections to this local port (IPv4 and IPv6); "
		"repeatable"),
	CLI_OPT(0, "gauge", OPT_GAUGE, "NAME=CMD|NAME=URL#METRIC", "another "
		"figure to record (e.g. the server's own cache size), used to "
		"attribute growth; repeatable"),
	CLI_TEXT("  A failing source records a gap and a warning; memory "
		 "sampling goes on."),
	CLI_SECTION("options"),
	CLI_OPT('o', "output", 'o', "FILE", "the recording (required but "
		"with --listen, which serves without a file when it is left "
		"out; must not exist unless --append)"),
	CLI_OPT(0, "append", OPT_APPEND, NULL, "add to an existing "
		"recording"),
	CLI_OPT('i', "interval", 'i', "DUR", "time between samples "
		"(default 15s; e.g. 500ms)"),
	CLI_OPT('d', "duration", 'd', "DUR", "stop after DUR (a -- COMMAND "
		"memtrend started is then sent SIGTERM, recorded to its end; "
		"exit 0)"),
	CLI_OPT(0, "retain", OPT_RETAIN, "DUR", "keep a rolling window: "
		"samples older than DUR are deleted as recording goes on, so "
		"the file stops growing (e.g. 7d; default: keep all)"),
	CLI_OPT(0, "smaps", OPT_SMAPS, NULL, "also read smaps_rollup (pss, "
		"swap_pss, ...): costs up to milliseconds on large processes"),
	CLI_OPT(0, "smaps-interval", OPT_SMAPS_INTERVAL, "DUR", "how often "
		"with --smaps (default: 4 x interval, at least 60s)"),
	CLI_OPT(0, "regions", OPT_REGIONS, NULL, "where the memory sits: a "
		"snapshot of smaps by region family (heap, anonymous, stack, "
		"file, shmem, GPU) at start and end; the report shows growth "
		"per family"),
	CLI_OPT(0, "no-gpu", OPT_NO_GPU, NULL, "do not read GPU memory (DRM "
		"fdinfo, NVIDIA NVML; read by default: device memory is part "
		"of the footprint; NVML from $MEMTREND_NVML_LIB if set)"),
	CLI_OPT(0, "listen", OPT_LISTEN, "[ADDR:]PORT", "serve the live "
		"figures and the analysis so far of every target for "
		"Prometheus at http://ADDR:PORT/metrics (OpenMetrics; ADDR "
		"127.0.0.1 unless named; docs/openmetrics.md)"),
	CLI_OPT(0, "top", OPT_TOP, "N", "watch --all only: at most the N "
		"worst targets in the live table (default: as many as the "
		"terminal holds; 20 when not a terminal)"),
	CLI_OPT(0, "listen-processes", OPT_LISTEN_PROCESSES, "WHICH", "with "
		"--all --listen: which processes get series of their own: all, "
		"none (groups only), or long[=DUR] (default: those alive for "
		"5m, by their start time, so that short-lived ones leave no "
		"series behind); groups, trees and named targets are always "
		"served"),
	CLI_OPT('q', "quiet", 'q', NULL, "no live status line, no notes"),
	CLI_OPT(0, "proc-root", OPT_PROC_ROOT, "DIR", "read DIR instead of "
		"/proc (for tests)"),
	CLI_OPT(0, "sys-root", OPT_SYS_ROOT, "DIR", "read DIR instead of "
		"/sys (for tests)"),
	CLI_OPT(0, "commit-interval", OPT_COMMIT, "DUR", "how often the "
		"open batch is committed (default 1s): a crash loses at most "
		"this much"),
	CLI_OPT('h', "help", 'h', NULL, "this help"),
	CLI_END_ROW,
};

static void record_usage(FILE *out, const char *verb)
{
	fprintf(out,
"usage: memtrend %s -o FILE [options] (-p PID... | --name REGEX | --all | -- COMMAND ARGS...)\n"
"\n", verb);
	if (strcmp(verb, "watch") == 0)
		fprintf(out,
"Record like 'memtrend record' and show a live full-terminal view: the\n"
"footprint and its components, recent samples, the slope so far, requests\n"
"and connections, the verdict so far, and how much longer to watch. With\n"
"--all, a live table of every process, ranked worst first as 'report' ranks.\n");
	else
		fprintf(out,
"Sample a service's memory into FILE (SQLite) until Ctrl-C, --duration, or\n"
"until every target is gone. 'memtrend report FILE' reads it, also while\n"
"recording goes on.\n");
	cli_options_help(out, record_options);
	fprintf(out,
"\n"
"DUR: 15s, 5m, 2h, 1d, 250ms or bare seconds.\n"
"Exit codes: 0 ok (or COMMAND's status), 2 usage or no such process,\n"
"3 run-time failure.\n");
}

/* USER: a name (getpwnam_r) or a numeric uid. */
static int parse_user(const char *arg, uid_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (*arg && *arg != '-' && !*end && !errno && v <= (uid_t)-2) {
		*out = (uid_t)v;
		return 0;
	}
	struct passwd pw, *found = NULL;
	char buf[4096];
	if (getpwnam_r(arg, &pw, buf, sizeof(buf), &found) || !found)
		return error("--user: no user '%s'", arg);
	*out = pw.pw_uid;
	return 0;
}

static int parse_dur(const char *opt, const char *arg, double *out)
{
	if (units_parse_duration(arg, out))
		return error("%s: cannot read '%s' as a duration (e.g. 15s, "
			     "500ms, 2h)", opt, arg);
	if (!(*out > 0))
		return error("%s: '%s' is not a time span: it must be above "
			     "0 (e.g. 15s, 500ms, 2h)", opt, arg);
	return 0;
}

/* --listen-processes all|none|long[=DUR] into cli. */
static int parse_listen_processes(const char *arg, struct cli_record *cli)
{
	if (strcmp(arg, "all") == 0) {
		cli->listen_processes = EXPORTER_PROCESSES_ALL;
		return 0;
	}
	if (strcmp(arg, "none") == 0) {
		cli->listen_processes = EXPORTER_PROCESSES_NONE;
		return 0;
	}
	if (strncmp(arg, "long", 4) == 0 && (!arg[4] || arg[4] == '=')) {
		cli->listen_processes = EXPORTER_PROCESSES_LONG;
		if (arg[4] && (parse_dur("--listen-processes long=", arg + 5,
					 &cli->listen_long_s) ||
			       !isfinite(cli->listen_long_s)))
			return -1;
		return 0;
	}
	return error("--listen-processes: '%s' is not all, none or "
		     "long[=DUR] (e.g. long=10m)", arg);
}

int cli_record_parse(int argc, char **argv, const char *verb,
		     struct cli_record *cli)
{
	/* Built once, kept for the process's life. */
	static struct option *longopts;
	static char *shortopts;
	/* '+': stop at the first non-option, so "-- COMMAND -x" keeps -x. */
	if (!longopts)
		cli_options_getopt(record_options, "+", &longopts, &shortopts);
	memset(cli, 0, sizeof(*cli));
	cli->listen_processes = EXPORTER_PROCESSES_LONG;
	cli->listen_long_s = EXPORTER_LONG_S;
	struct recorder_options o = {
		.rescan_s = NAN,
		.interval_s = 15,
		.duration_s = NAN,
		.smaps_interval_s = NAN,
		.commit_interval_s = 1.0,
	};
	pid_t *pids = NULL;
	size_t n_pids = 0, cap = 0;
	uint16_t *ports = NULL;
	size_t n_ports = 0, cap_ports = 0;
	const char *work_cmd = NULL, *work_url = NULL, *work_log = NULL,
		   *match = NULL;
	const char **gauges = NULL;
	size_t n_gauges = 0, cap_gauges = 0;
	struct source **sources = NULL;
	size_t n_sources = 0;
	double work_timeout = NAN;
	bool quiet = false;
	const char *listen = NULL, *listen_processes = NULL;
	bool work_is_counter = false;
	size_t top = 0;
	int rc = EXIT_USAGE, c;
	optind = 1;
	opterr = 0;  /* our own message, naming the command */
	while ((c = cli_getopt(argc, argv, shortopts, longopts)) !=
	       -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 0x7fffffff) {
				error("-p: '%s' is not a process id", optarg);
				goto out;
			}
			xgrow((void **)&pids, &cap, n_pids + 1, sizeof(pid_t));
			pids[n_pids++] = (pid_t)v;
			break;
		}
		case 'i':
			if (parse_dur("--interval", optarg, &o.interval_s))
				goto out;
			break;
		case 'd':
			if (parse_dur("--duration", optarg, &o.duration_s))
				goto out;
			break;
		case OPT_RETAIN:
			if (optarg[0] == '-') {
				error("--retain: '%s': the window must be a "
				      "positive duration (e.g. 6h, 7d)", optarg);
				goto out;
			}
			if (units_parse_duration(optarg, &o.retain_s) ||
			    !isfinite(o.retain_s)) {
				error("--retain: cannot read '%s' as a duration "
				      "(e.g. 6h, 7d)", optarg);
				goto out;
			}
			if (!(o.retain_s > 0)) {
				error("--retain: '%s': the window must be longer "
				      "than 0 (leave --retain out to keep "
				      "every sample)", optarg);
				goto out;
			}
			break;
		case OPT_NAME:
			o.name_regex = optarg;
			break;
		case OPT_CHILDREN:
			o.children = true;
			break;
		case OPT_SMAPS:
			o.smaps = true;
			break;
		case OPT_SMAPS_INTERVAL:
			if (parse_dur("--smaps-interval", optarg,
				      &o.smaps_interval_s))
				goto out;
			o.smaps = true;
			break;
		case OPT_APPEND:
			o.append = true;
			break;
		case OPT_REGIONS:
			o.regions = true;
			break;
		case OPT_NO_GPU:
			o.no_gpu = true;
			break;
		case OPT_ALL:
			o.all = true;
			break;
		case OPT_LISTEN:
			listen = optarg;
			break;
		case OPT_LISTEN_PROCESSES:
			listen_processes = optarg;
			if (parse_listen_processes(optarg, cli))
				goto out;
			break;
		case OPT_WORK_IS_COUNTER:
			work_is_counter = true;
			break;
		case OPT_USER:
			if (parse_user(optarg, &o.user))
				goto out;
			o.have_user = true;
			break;
		case OPT_CGROUP:
			if (!*optarg) {
				error("--cgroup: give a cgroup path or a unit");
				goto out;
			}
			o.cgroup = optarg;
			break;
		case OPT_GROUP_BY:
			if (strcmp(optarg, "name") == 0)
				o.group_by = RECORDER_GROUP_NAME;
			else if (strcmp(optarg, "cgroup") == 0)
				o.group_by = RECORDER_GROUP_CGROUP;
			else if (strcmp(optarg, "unit") == 0)
				o.group_by = RECORDER_GROUP_UNIT;
			else {
				error("--group-by: '%s' is not name, cgroup or "
				      "unit", optarg);
				goto out;
			}
			break;
		case OPT_MAX_TARGETS: {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || end == optarg || errno || v == 0 ||
			    *optarg == '-') {
				error("--max-targets: '%s' is not a positive "
				      "count", optarg);
				goto out;
			}
			o.max_targets = (size_t)v;
			break;
		}
		case OPT_RESCAN:
			if (parse_dur("--rescan", optarg, &o.rescan_s))
				goto out;
			break;
		case OPT_TOP: {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || end == optarg || errno || v == 0 ||
			    *optarg == '-' || v > 1000000) {
				error("--top: '%s' is not a count from 1 to "
				      "1000000", optarg);
				goto out;
			}
			top = (size_t)v;
			break;
		}
		case 'q':
			quiet = true;
			break;
		case OPT_PROC_ROOT:
			o.proc_root = optarg;
			break;
		case OPT_SYS_ROOT:
			o.sys_root = optarg;
			break;
		case OPT_COMMIT:
			if (parse_dur("--commit-interval", optarg,
				      &o.commit_interval_s))
				goto out;
			break;
		case OPT_WORK_CMD:
			work_cmd = optarg;
			break;
		case OPT_WORK:
			work_url = optarg;
			break;
		case OPT_WORK_LOG:
			work_log = optarg;
			break;
		case OPT_MATCH:
			match = optarg;
			break;
		case OPT_WORK_TIMEOUT:
			if (parse_dur("--work-timeout", optarg, &work_timeout))
				goto out;
			break;
		case OPT_CONN_PORT: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 65535) {
				error("--conn-port: '%s' is not a TCP port",
				      optarg);
				goto out;
			}
			xgrow((void **)&ports, &cap_ports, n_ports + 1,
			      sizeof(*ports));
			ports[n_ports++] = (uint16_t)v;
			break;
		}
		case OPT_GAUGE:
			xgrow((void **)&gauges, &cap_gauges, n_gauges + 1,
			      sizeof(*gauges));
			gauges[n_gauges++] = optarg;
			break;
		case 'h':
			record_usage(stdout, verb);
			rc = CLI_RECORD_HELP;
			goto out;
		default:
			error("%s: unknown option or missing value: '%s' (see "
			      "'memtrend %s --help')", verb, argv[optind - 1],
			      verb);
			goto out;
		}
	}
	if (optind < argc) {
		/* getopt stops at "--" or the first operand: the command. */
		o.command = argv + optind;
	}
	/* record --listen alone serves the figures and keeps no file: the
	 * store is one of the recorder's sinks, and it has others (check
	 * judges from one: -o is its option to keep a file) */
	if (!o.output && !(listen && strcmp(verb, "record") == 0) &&
	    strcmp(verb, "check") != 0) {
		error("%s: -o FILE is required%s", verb,
		      strcmp(verb, "record") == 0 ?
		      " (or --listen PORT alone, to serve without a file)" :
		      "");
		goto out;
	}
	if (!o.output && o.append) {
		error("%s: --append needs -o FILE", verb);
		goto out;
	}
	if (o.all && (n_pids || o.name_regex || o.command)) {
		error("%s: --all records every process; it does not go with "
		      "-p, --name or a command", verb);
		goto out;
	}
	if (o.all && (o.children || n_ports)) {
		error("%s: --all records every process on its own; "
		      "--children and --conn-port need a single target", verb);
		goto out;
	}
	if (!o.all && (o.have_user || o.max_targets || !isnan(o.rescan_s) ||
		       o.cgroup || o.group_by)) {
		error("%s: --user, --cgroup, --group-by, --max-targets and "
		      "--rescan go with --all", verb);
		goto out;
	}
	if (top && (strcmp(verb, "watch") != 0 || !o.all)) {
		error("%s: --top N is for 'watch --all' (the rows of its live "
		      "table)%s", verb, strcmp(verb, "watch") == 0 ? "" :
		      "; 'memtrend report --top N' ranks a recording");
		goto out;
	}
	if (listen_processes && (!o.all || !listen)) {
		error("%s: --listen-processes goes with --all and --listen (the "
		      "targets you name, their trees and groups are always "
		      "served)", verb);
		goto out;
	}
	if (cli->listen_processes == EXPORTER_PROCESSES_NONE &&
	    !o.group_by) {
		error("%s: --listen-processes none without --group-by would "
		      "serve nothing: group the processes (--group-by unit), or "
		      "serve the long-lived ones (long)", verb);
		goto out;
	}
	if (!n_pids && !o.name_regex && !o.command && !o.all) {
		if (strcmp(verb, "check") == 0) /* one service: no --all */
			error("check: which service? give -p PID, --name "
			      "REGEX or -- SERVICE ARGS...");
		else
			error("%s: what to record? give -p PID, --name REGEX, "
			      "--all or -- COMMAND", verb);
		goto out;
	}
	if (o.all) {
		if (!o.max_targets)
			o.max_targets = RECORD_MAX_TARGETS;
		if (isnan(o.rescan_s))
			o.rescan_s = 10;
	}
	/* The same rule as store_create(): any existing name, a link too
	 * (lstat: a dangling link is a name that exists), is refused
	 * without --append -- checked here too, before a command is
	 * started. */
	struct stat out_st;
	if (o.output && o.append && lstat(o.output, &out_st) == 0 &&
	    S_ISREG(out_st.st_mode) && out_st.st_size > 0 &&
	    !store_is_recording(o.output)) {
		error("--append: '%s' is not a memtrend recording",
		      o.output);
		goto out;
	}
	if (o.output && !o.append && lstat(o.output, &out_st) == 0) {
		/* check keeps one run's recording: it has no --append */
		if (strcmp(verb, "check") == 0)
			error("'%s' already exists (choose another file, or "
			      "remove it first)", o.output);
		else
			error("'%s' already exists (use --append to add to "
			      "it, or choose another file)", o.output);
		goto out;
	}
	if (o.interval_s < 0.001) {
		error("--interval: at least 1ms");
		goto out;
	}
	if (o.retain_s > 0 && o.retain_s < o.interval_s) {
		char r[32], i[32];
		units_format_duration(r, sizeof(r), o.retain_s);
		units_format_duration(i, sizeof(i), o.interval_s);
		error("--retain %s is shorter than the interval (%s): each "
		      "sample would be deleted before the next one is taken; "
		      "give a window of at least the interval", r, i);
		goto out;
	}
	if (isnan(o.smaps_interval_s))
		o.smaps_interval_s = fmax(60, 4 * o.interval_s);
	if (!!work_cmd + !!work_url + !!work_log > 1) {
		error("%s: one work counter at a time: --work-cmd, --work "
		      "or --work-log", verb);
		goto out;
	}
	if (!!work_log != !!match) {
		error("%s: --work-log FILE and --match REGEX go together",
		      verb);
		goto out;
	}
	if (work_url || n_gauges) {
		/* Before any thread starts (libcurl's contract). */
		if (http_global_init()) {
			rc = EXIT_RUNTIME;
			goto out;
		}
	}
	sources = xcalloc(n_gauges + 1, sizeof(*sources));
	if (work_cmd)
		sources[n_sources++] = source_new_command(SOURCE_WORK, NULL,
							  work_cmd);
	else if (work_url && !(sources[n_sources++] =
			       source_new_metric(SOURCE_WORK, NULL, work_url)))
		goto bad_source;
	else if (work_log && !(sources[n_sources++] =
			       source_new_log(SOURCE_WORK, NULL, work_log,
					      match)))
		goto bad_source;
	for (size_t g = 0; g < n_gauges; g++) {
		for (size_t k = 0; k < g; k++)
			if (strcspn(gauges[k], "=") == strcspn(gauges[g], "=") &&
			    strncmp(gauges[k], gauges[g],
				    strcspn(gauges[g], "=")) == 0) {
				error("--gauge: '%.*s' given twice",
				      (int)strcspn(gauges[g], "="), gauges[g]);
				goto bad_source_noslot;
			}
		if (!(sources[n_sources++] = source_new_gauge(gauges[g])))
			goto bad_source;
	}
	if (n_ports)
		for (size_t i = 0; i < n_sources; i++)
			source_set_fresh_connections(sources[i]);
	o.sources = sources;
	o.n_sources = n_sources;
	o.source_timeout_s = isnan(work_timeout) ? o.interval_s : work_timeout;
	o.conn_ports = ports;
	o.n_conn_ports = n_ports;
	o.pids = pids;
	o.n_pids = n_pids;
	cli->status_line = !quiet && isatty(STDERR_FILENO);
	diag_set_quiet(quiet);
	cli->invocation = cli_join_argv(argc, argv);
	o.invocation = cli->invocation;
	cli->o = o;
	cli->pids = pids;
	cli->ports = ports;
	cli->sources = sources;
	cli->n_sources = n_sources;
	cli->quiet = quiet;
	cli->listen = listen;
	cli->work_is_counter = work_is_counter;
	cli->top = top;
	free(gauges);
	return EXIT_OK;
bad_source:
	n_sources--;  /* the slot that failed holds NULL */
bad_source_noslot:
	rc = EXIT_USAGE;
out:
	for (size_t i = 0; i < n_sources; i++)
		source_free(sources[i]);
	free(sources);
	free(gauges);
	free(ports);
	free(pids);
	return rc;
}

void cli_record_handed_over(struct cli_record *cli)
{
	/* recorder_run() owns (and frees) the sources from its start. */
	cli->n_sources = 0;
	cli->o.n_sources = 0;
}

void cli_record_release(struct cli_record *cli)
{
	for (size_t i = 0; i < cli->n_sources; i++)
		source_free(cli->sources[i]);
	free(cli->sources);
	free(cli->ports);
	free(cli->pids);
	free(cli->invocation);
	memset(cli, 0, sizeof(*cli));
}

/* ---- a recording in the foreground ---------------------------------------- */

int cli_record_foreground(const struct cli_record *cli,
			  struct recorder_result *res)
{
	const struct recorder_options *o = &cli->o;
	bool status_line = cli->status_line;
	struct exporter *ex = NULL;
	if (cli->listen) {
		struct exporter_options eo = {
			.listen = cli->listen,
			.processes = cli->listen_processes,
			.long_s = cli->listen_long_s,
			.analyse_every_s = fmax(2.0, 2 * o->interval_s),
			.mem_total = (double)sysconf(_SC_PHYS_PAGES) *
				     (double)sysconf(_SC_PAGESIZE),
		};
		analysis_options_init(&eo.analysis);
		eo.analysis.work_is_counter = cli->work_is_counter;
		int rc;
		char bound[80];
		ex = exporter_start(&eo, &rc, bound, sizeof(bound));
		if (!ex) {
			/* the sources were handed to us: recorder_run()
			 * would have freed them */
			for (size_t i = 0; i < o->n_sources; i++)
				source_free(o->sources[i]);
			return rc;
		}
		note("serving the figures at http://%s/metrics", bound);
	}
	struct sink sinks[2];
	size_t n_sinks = 0;
	if (ex)
		sinks[n_sinks++] = exporter_sink(ex);
	struct status_sink *status = status_line ? status_sink_new(stderr) :
				     NULL;
	if (status)
		sinks[n_sinks++] = status_sink_sink(status);
	/* the stops and the run: recording.c, as for every command */
	struct recording run = {
		.o = o, .sinks = sinks, .n_sinks = n_sinks,
		.hooks = {.should_stop = recording_should_stop, .wake_fd = -1},
		.done_fd = -1,
	};
	int rc = recording_run(&run);
	*res = run.res;
	status_sink_free(status);
	if (status_line) {
		if (rc == EXIT_OK && o->output)
			note("%llu samples in '%s'",
			     (unsigned long long)res->samples, o->output);
		else if (rc == EXIT_OK)
			note("%llu samples served, none kept (no -o)",
			     (unsigned long long)res->samples);
	}
	exporter_stop(ex);
	return rc;
}
