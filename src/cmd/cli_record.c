/*
 * cli_record.c - record's options (cmd.h: struct cli_record), shared by
 * `memtrend record` and `memtrend watch`: the usage text, the option rows
 * (cli_options.h: each option's type and field of struct record_args),
 * the checks of how they go together (record_combine()) and the sources
 * they name (record_sources()); and the recorder run in the foreground.
 * It starts nothing while parsing: recorder_run() does.
 */
#include <assert.h>
#include <errno.h>
#include <float.h>
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

#define RECORD_MAX_TARGETS 10000  /* --all's default bound (its help says so) */
#define RECORD_MAX_TOP 1000000

/* What record's options are parsed into, before the checks of how they go
 * together turn them into struct cli_record. Its defaults are set in
 * cli_record_parse(). */
struct record_args {
	struct recorder_options o;
	pid_t *pids;               /* -p, owned */
	size_t n_pids, cap_pids;
	uint16_t *ports;           /* --conn-port, owned */
	size_t n_ports, cap_ports;
	const char *work_cmd, *work_url, *work_log, *match;
	struct cli_strings gauges; /* --gauge NAME=..., in order */
	double work_timeout;       /* NAN: the interval */
	bool quiet, work_is_counter;
	const char *listen;
	const char *listen_processes; /* as given; NULL: not given */
	enum exporter_processes lp;
	double listen_long_s;
	size_t top;
};

static int parse_pid(const struct cli_option *row, const char *arg,
		     void *dest);
static int parse_port(const struct cli_option *row, const char *arg,
		      void *dest);
static int parse_user(const struct cli_option *row, const char *arg,
		      void *dest);
static int parse_retain(const struct cli_option *row, const char *arg,
			void *dest);
static int parse_listen_processes(const struct cli_option *row,
				  const char *arg, void *dest);

/* record's durations: above 0; one that reads but is not above 0 says so. */
#define DUR_EG "(e.g. 15s, 500ms, 2h)"
#define RECORD_DUR(s, l, f, h) CLI_DURATION(s, l, struct record_args, f, \
	"DUR", h, 0, true, INFINITY, "a duration " DUR_EG, \
	"is not a time span: it must be above 0 " DUR_EG)
#define RA struct record_args

static const struct cli_choice group_by_choices[] = {
	{"name", RECORDER_GROUP_NAME},
	{"cgroup", RECORDER_GROUP_CGROUP},
	{"unit", RECORDER_GROUP_UNIT},
	{NULL, 0},
};

/* record's (and watch's) options: getopt_long, the parser, --help and the
 * man page check all read this table (cli_options.h). */
const struct cli_option record_options[] = {
	CLI_SECTION("targets"),
	CLI_CALLBACK('p', "pid", "PID", "a process; repeatable", parse_pid, 0),
	CLI_STRING(0, "name", RA, o.name_regex, "REGEX", "the oldest "
		"process whose name or command line matches (POSIX extended "
		"regex); waits for it and follows it across restarts", NULL),
	CLI_TEXT("  -- COMMAND ARGS...     start COMMAND, record it until it "
		 "exits, and exit\n                         with its status. "
		 "What it started ends with it, also\n                         "
		 "what left its group (setsid): on its exit, -d, a stop,\n"
		 "                         and a kill -9 of memtrend "
		 "(SIGTERM, SIGKILL after 2 s).\n                         "
		 "-p and --name targets are never stopped."),
	CLI_FLAG(0, "children", RA, o.children, "also record every "
		"descendant and their sum"),
	CLI_FLAG(0, "all", RA, o.all, "every process you can read, each "
		"its own target (kernel threads left out); new ones are "
		"found by a rescan, ended ones closed"),
	CLI_CALLBACK(0, "user", "USER", "with --all: only processes of USER "
		"(a name or a uid)", parse_user, offsetof(RA, o)),
	CLI_STRING(0, "cgroup", RA, o.cgroup, "PATH", "with --all: only "
		"processes whose memory cgroup is PATH or below it "
		"(/system.slice/nginx.service), or has a component named PATH "
		"(a unit: nginx.service)", "give a cgroup path or a unit"),
	CLI_ENUM(0, "group-by", RA, o.group_by, "BY", "with --all: also "
		"record each group's sum as one target; BY is name (one comm), "
		"cgroup (one memory cgroup) or unit (one systemd unit)",
		group_by_choices),
	CLI_COUNT(0, "max-targets", RA, o.max_targets, "N", "with --all: at "
		"most N processes followed at once (default 10000); more are "
		"left out, with one note", 1, CLI_COUNT_MAX, "a positive count"),
	RECORD_DUR(0, "rescan", o.rescan_s, "with --all: time between scans "
		"for new processes (default 10s); one that starts and ends "
		"between two scans is not seen"),
	CLI_SECTION("work and other figures (read each sample, alongside "
		    "memory)"),
	CLI_STRING(0, "work-cmd", RA, work_cmd, "CMD", "a shell command "
		"printing a cumulative counter (requests, tokens), e.g. "
		"redis-cli info stats | sed -n "
		"'s/^total_commands_processed://p'", "an empty command"),
	CLI_STRING(0, "work", RA, work_url, "URL#METRIC", "a counter scraped "
		"from a Prometheus/OpenMetrics endpoint; METRIC{label=\"v\",...} "
		"sums the series that match (=, !=, =~, !~)", NULL),
	CLI_STRING(0, "work-log", RA, work_log, "FILE", "count lines appended "
		"to FILE that match", NULL),
	CLI_STRING(0, "match", RA, match, "REGEX", "... this extended regex "
		"(follows rotation)", NULL),
	CLI_FLAG(0, "work-is-counter", RA, work_is_counter, "analyse the "
		"work series as a counter even when it goes down too often to "
		"be one (watch, --listen; by default a gauge is set aside: "
		"docs/verdicts.md)"),
	RECORD_DUR(0, "work-timeout", work_timeout, "limit per reading of a "
		"command or endpoint (default: the interval)"),
	CLI_CALLBACK(0, "conn-port", "PORT", "count ESTABLISHED TCP "
		"connections to this local port (IPv4 and IPv6); repeatable",
		parse_port, 0),
	CLI_STRINGS(0, "gauge", RA, gauges, "NAME=CMD|NAME=URL#METRIC",
		"another figure to record (e.g. the server's own cache size), "
		"used to attribute growth; repeatable", 0),
	CLI_TEXT("  A failing source records a gap and a warning; memory "
		 "sampling goes on."),
	CLI_SECTION("options"),
	CLI_STRING('o', "output", RA, o.output, "FILE", "the recording "
		"(required, but 'record --listen' may leave it out: the figures are "
		"served and no file is kept; must not exist unless --append)",
		NULL),
	CLI_FLAG(0, "append", RA, o.append, "add to an existing recording"),
	RECORD_DUR('i', "interval", o.interval_s, "time between samples "
		"(default 15s; e.g. 500ms)"),
	RECORD_DUR('d', "duration", o.duration_s, "stop after DUR (a -- "
		"COMMAND memtrend started is then sent SIGTERM, recorded to its "
		"end; exit 0)"),
	CLI_CALLBACK(0, "retain", "DUR", "keep a rolling window: samples "
		"older than DUR are deleted as recording goes on, so the file "
		"stops growing (e.g. 7d; default: keep all)", parse_retain,
		offsetof(RA, o.retain_s)),
	CLI_FLAG(0, "smaps", RA, o.smaps, "also read smaps_rollup (pss, "
		"swap_pss, ...): costs up to milliseconds on large processes"),
	RECORD_DUR(0, "smaps-interval", o.smaps_interval_s, "how often with "
		"--smaps (default: 4 x interval, at least 60s)"),
	CLI_FLAG(0, "regions", RA, o.regions, "where the memory sits: a "
		"snapshot of smaps by region family (heap, anonymous, stack, "
		"file, shmem, GPU) at start and end; the report shows growth "
		"per family"),
	CLI_FLAG(0, "sites", RA, o.sites, "the allocation sites that keep "
		"memory, sampled in -- COMMAND by a preloaded shim, or in -p "
		"PID or --name's process by eBPF uprobes (root or CAP_BPF); "
		"the report says where it grows (docs/sites.md)"),
	CLI_SIZE(0, "sites-rate", RA, o.sites_rate, "SIZE", "with --sites: "
		"sample once every SIZE allocated bytes on average (default "
		"512KiB; smaller: more precise, dearer)", 1, false, 1ULL << 40,
		"a size", "is not a sampling rate: it must be from 1B to 1TiB"),
	CLI_COUNT(0, "sites-depth", RA, o.sites_depth, "N", "with --sites: "
		"the frames that make a site (default 8)", 1, 32,
		"a count from 1 to 32"),
	CLI_FLAG(0, "no-gpu", RA, o.no_gpu, "do not read GPU memory (DRM "
		"fdinfo, NVIDIA NVML; read by default: device memory is part "
		"of the footprint; NVML from $MEMTREND_NVML_LIB if set)"),
	CLI_STRING(0, "listen", RA, listen, "[ADDR:]PORT", "serve the live "
		"figures and the analysis so far of every target for "
		"Prometheus at http://ADDR:PORT/metrics (OpenMetrics; ADDR "
		"127.0.0.1 unless named; docs/openmetrics.md)", NULL),
	CLI_COUNT(0, "top", RA, top, "N", "watch --all only: at most the N "
		"worst targets in the live table (default: as many as the "
		"terminal holds; 20 when not a terminal)", 1, RECORD_MAX_TOP,
		"a count from 1 to 1000000"),
	CLI_CALLBACK(0, "listen-processes", "WHICH", "with --all --listen: "
		"which processes get series of their own: all, none (groups "
		"only), or long[=DUR] (default: those alive for 5m, by their "
		"start time, so that short-lived ones leave no series "
		"behind); groups, trees and named targets are always served",
		parse_listen_processes, 0),
	CLI_FLAG('q', "quiet", RA, quiet, "no live status line, no notes"),
	CLI_STRING(0, "proc-root", RA, o.proc_root, "DIR", "read DIR instead "
		"of /proc (for tests)", NULL),
	CLI_STRING(0, "sys-root", RA, o.sys_root, "DIR", "read DIR instead of "
		"/sys (for tests)", NULL),
	RECORD_DUR(0, "commit-interval", o.commit_interval_s, "how often the "
		"open batch is committed (default 1s): a crash loses at most "
		"this much"),
	CLI_HELP_ROW,
	CLI_END_ROW,
};

/* record's and watch's --help (and record's rows under check's name, for
 * the messages of what check hands on). */
#define RECORD_SYNOPSIS(verb) "usage: memtrend " verb " -o FILE [options] " \
	"(-p PID... | --name REGEX | --all | -- COMMAND ARGS...)\n\n"
#define RECORD_NOTES "\n" \
"DUR: 15s, 5m, 2h, 1d, 250ms or bare seconds.\n" \
"Exit codes: 0 ok (or COMMAND's status), 2 usage or no such process,\n" \
"3 run-time failure.\n"
static const struct cli_command record_command = {
	.name = "record",
	.usage = "usage: memtrend record -o FILE [options] (-p PID... | --name REGEX | "
"--all | -- COMMAND ARGS...)\n"
"       memtrend record --listen ADDR [-o FILE] [options] (-p PID... | ...)\n\n"
"Sample a service's memory into FILE (SQLite) until Ctrl-C, --duration, or\n"
"until every target is gone. 'memtrend report FILE' reads it, also while\n"
"recording goes on.\n",
	.options = record_options,
	.notes = RECORD_NOTES,
};
static const struct cli_command watch_command = {
	.name = "watch",
	.usage = RECORD_SYNOPSIS("watch")
"Record like 'memtrend record' and show a live full-terminal view: the\n"
"footprint and its components, recent samples, the slope so far, requests\n"
"and connections, the verdict so far, and how much longer to watch. With\n"
"--all, a live table of every process, ranked worst first as 'report' ranks.\n",
	.options = record_options,
	.notes = RECORD_NOTES,
};
static const struct cli_command check_record_command = {
	.name = "check",
	.usage = RECORD_SYNOPSIS("check"),
	.options = record_options,
	.notes = RECORD_NOTES,
};

/* -p PID, repeatable (dest: the struct record_args). */
static int parse_pid(const struct cli_option *row, const char *arg,
		     void *dest)
{
	(void)row;
	struct record_args *a = dest;
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || v <= 0 || v > 0x7fffffff)
		return error("-p: '%s' is not a process id", arg);
	xgrow((void **)&a->pids, &a->cap_pids, a->n_pids + 1, sizeof(pid_t));
	a->pids[a->n_pids++] = (pid_t)v;
	return 0;
}

/* --conn-port PORT, repeatable (dest: the struct record_args). */
static int parse_port(const struct cli_option *row, const char *arg,
		      void *dest)
{
	(void)row;
	struct record_args *a = dest;
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || v <= 0 || v > 65535)
		return error("--conn-port: '%s' is not a TCP port", arg);
	xgrow((void **)&a->ports, &a->cap_ports, a->n_ports + 1,
	      sizeof(*a->ports));
	a->ports[a->n_ports++] = (uint16_t)v;
	return 0;
}

/* --user USER: a name (getpwnam_r) or a numeric uid, into
 * recorder_options' user and have_user. */
static int parse_user(const struct cli_option *row, const char *arg,
		      void *dest)
{
	(void)row;
	struct recorder_options *o = dest;
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (*arg && *arg != '-' && !*end && !errno && v <= (uid_t)-2) {
		o->user = (uid_t)v;
		o->have_user = true;
		return 0;
	}
	struct passwd pw, *found = NULL;
	char buf[4096];
	if (getpwnam_r(arg, &pw, buf, sizeof(buf), &found) || !found)
		return error("--user: no user '%s'", arg);
	o->user = pw.pw_uid;
	o->have_user = true;
	return 0;
}

/* --retain DUR into a double: its own messages, for a window
 * (tests/e2e/bad_input.sh). */
static int parse_retain(const struct cli_option *row, const char *arg,
			void *dest)
{
	static const struct cli_option window = CLI_DURATION(0, "retain",
		struct record_args, o.retain_s, "DUR", NULL, 0, false,
		DBL_MAX, "a duration (e.g. 6h, 7d)", NULL);
	(void)row;
	double *retain_s = dest;
	if (arg[0] == '-')
		return error("--retain: '%s': the window must be a positive "
			     "duration (e.g. 6h, 7d)", arg);
	if (cli_value(&window, arg, retain_s))
		return -1;
	if (!(*retain_s > 0))
		return error("--retain: '%s': the window must be longer than 0 "
			     "(leave --retain out to keep every sample)", arg);
	return 0;
}

/* --listen-processes all|none|long[=DUR] (dest: the struct
 * record_args). */
static int parse_listen_processes(const struct cli_option *row,
				  const char *arg, void *dest)
{
	static const struct cli_option long_dur = CLI_DURATION(0,
		"listen-processes long=", struct record_args, listen_long_s,
		"DUR", NULL, 0, true, INFINITY, "a duration " DUR_EG,
		"is not a time span: it must be above 0 " DUR_EG);
	(void)row;
	struct record_args *a = dest;
	a->listen_processes = arg;
	if (strcmp(arg, "all") == 0) {
		a->lp = EXPORTER_PROCESSES_ALL;
		return 0;
	}
	if (strcmp(arg, "none") == 0) {
		a->lp = EXPORTER_PROCESSES_NONE;
		return 0;
	}
	if (strncmp(arg, "long", 4) == 0 && (!arg[4] || arg[4] == '=')) {
		a->lp = EXPORTER_PROCESSES_LONG;
		if (arg[4] && cli_value(&long_dur, arg + 5, &a->listen_long_s))
			return -1;
		return 0;
	}
	return error("--listen-processes: '%s' is not all, none or "
		     "long[=DUR] (e.g. long=10m)", arg);
}

/* How record's options go together, and the defaults that depend on
 * others (--all's bounds, --smaps-interval's). 0, or -1 after one
 * message. Nothing is started. */
static int record_combine(struct record_args *a, const char *verb)
{
	struct recorder_options *o = &a->o;
	if (!isnan(o->smaps_interval_s))
		o->smaps = true;  /* --smaps-interval asks for smaps */
	/* record --listen alone serves the figures and keeps no file: the
	 * store is one of the recorder's sinks, and it has others (check
	 * judges from one: -o is its option to keep a file) */
	if (!o->output && !(a->listen && strcmp(verb, "record") == 0) &&
	    strcmp(verb, "check") != 0)
		return error("%s: -o FILE is required%s", verb,
			     strcmp(verb, "record") == 0 ?
			     " (or --listen PORT alone, to serve without a "
			     "file)" : "");
	if (!o->output && o->append)
		return error("%s: --append needs -o FILE", verb);
	/* what only the file keeps: without one it would be read (smaps,
	 * regions) or asked (a rolling window) for nothing */
	if (!o->output && o->retain_s > 0)
		return error("%s: --retain needs -o FILE (it keeps the file's "
			     "window)", verb);
	if (!o->output && !strcmp(verb, "record") && (o->smaps || o->regions))
		return error("%s: --smaps and --regions need -o FILE (the "
			     "exporter serves neither)", verb);
	if (o->all && (a->n_pids || o->name_regex || o->command))
		return error("%s: --all records every process; it does not go "
			     "with -p, --name or a command", verb);
	if (o->all && (o->children || a->n_ports))
		return error("%s: --all records every process on its own; "
			     "--children and --conn-port need a single target",
			     verb);
	if (!o->all && (o->have_user || o->max_targets ||
			!isnan(o->rescan_s) || o->cgroup || o->group_by))
		return error("%s: --user, --cgroup, --group-by, --max-targets "
			     "and --rescan go with --all", verb);
	bool watch = strcmp(verb, "watch") == 0;
	if (a->top && (!watch || !o->all))
		return error("%s: --top N is for 'watch --all' (the rows of its "
			     "live table)%s", verb, watch ? "" : "; 'memtrend "
			     "report --top N' ranks a recording");
	if (a->listen_processes && (!o->all || !a->listen))
		return error("%s: --listen-processes goes with --all and --listen "
			     "(the targets you name, their trees and groups are "
			     "always served)", verb);
	if (a->lp == EXPORTER_PROCESSES_NONE && !o->group_by)
		return error("%s: --listen-processes none without --group-by "
			     "would serve nothing: group the processes "
			     "(--group-by unit), or serve the long-lived ones "
			     "(long)", verb);
	if ((!isnan(o->sites_rate) || o->sites_depth) && !o->sites)
		return error("%s: --sites-rate and --sites-depth go with "
			     "--sites", verb);
	if (o->sites && strcmp(verb, "record") != 0 &&
	    strcmp(verb, "check") != 0)
		return error("%s: --sites is record's and check's (memtrend "
			     "record -o FILE --sites -- COMMAND)", verb);
	if (o->sites && !o->command &&
	    (a->n_pids + (o->name_regex != NULL) != 1 || o->all))
		return error("%s: --sites samples one process: a command "
			     "memtrend starts (-- COMMAND: a preloaded shim), "
			     "or one running process (-p PID or --name REGEX: "
			     "eBPF uprobes, root or CAP_BPF and CAP_PERFMON), "
			     "not several nor --all (docs/sites.md)", verb);
	if (o->sites && !o->output)
		return error("%s: --sites needs -o FILE (the sites are kept "
			     "in the recording)", verb);
	if (o->sites && isnan(o->sites_rate))
		o->sites_rate = 512 * 1024;
	if (!a->n_pids && !o->name_regex && !o->command && !o->all) {
		if (strcmp(verb, "check") == 0) /* one service: no --all */
			return error("check: which service? give -p PID, "
				     "--name REGEX or -- SERVICE ARGS...");
		return error("%s: what to record? give -p PID, --name REGEX, "
			     "--all or -- COMMAND", verb);
	}
	if (o->all) {
		if (!o->max_targets)
			o->max_targets = RECORD_MAX_TARGETS;
		if (isnan(o->rescan_s))
			o->rescan_s = 10;
	}
	/* The same rule as store_create(): any existing name, a link too
	 * (lstat: a dangling link is a name that exists), is refused
	 * without --append -- checked here too, before a command is
	 * started. */
	struct stat out_st;
	if (o->output && o->append && lstat(o->output, &out_st) == 0 &&
	    S_ISREG(out_st.st_mode) && out_st.st_size > 0 &&
	    !store_is_recording(o->output))
		return error("--append: '%s' is not a memtrend recording",
			     o->output);
	if (o->output && !o->append && lstat(o->output, &out_st) == 0) {
		/* check keeps one run's recording: it has no --append */
		if (strcmp(verb, "check") == 0)
			return error("'%s' already exists (choose another file, "
				     "or remove it first)", o->output);
		return error("'%s' already exists (use --append to add to it, "
			     "or choose another file)", o->output);
	}
	if (o->interval_s < 0.001)
		return error("--interval: at least 1ms");
	if (o->retain_s > 0 && o->retain_s < o->interval_s) {
		char r[32], i[32];
		units_format_duration(r, sizeof(r), o->retain_s);
		units_format_duration(i, sizeof(i), o->interval_s);
		return error("--retain %s is shorter than the interval (%s): "
			     "each sample would be deleted before the next one "
			     "is taken; give a window of at least the interval",
			     r, i);
	}
	if (isnan(o->smaps_interval_s))
		o->smaps_interval_s = fmax(60, 4 * o->interval_s);
	if (!!a->work_cmd + !!a->work_url + !!a->work_log > 1)
		return error("%s: one work counter at a time: --work-cmd, --work "
			     "or --work-log", verb);
	if (!!a->work_log != !!a->match)
		return error("%s: --work-log FILE and --match REGEX go together",
			     verb);
	return 0;
}

/* The work counter and the gauges as sources, into a->o (owned there
 * from here: cli_record_release() frees them). EXIT_OK, or EXIT_USAGE /
 * EXIT_RUNTIME after a message with none left behind. */
static int record_sources(struct record_args *a)
{
	const char **gauges = a->gauges.v;
	size_t n_gauges = a->gauges.n, n = 0;
	if (a->work_url || n_gauges) {
		/* Before any thread starts (libcurl's contract). */
		if (http_global_init())
			return EXIT_RUNTIME;
	}
	struct source **sources = xcalloc(n_gauges + 1, sizeof(*sources));
	if (a->work_cmd)
		sources[n++] = source_new_command(SOURCE_WORK, NULL,
						  a->work_cmd);
	else if (a->work_url && !(sources[n++] = source_new_metric(
					  SOURCE_WORK, NULL, a->work_url)))
		goto bad_source;
	else if (a->work_log && !(sources[n++] = source_new_log(
					  SOURCE_WORK, NULL, a->work_log,
					  a->match)))
		goto bad_source;
	for (size_t g = 0; g < n_gauges; g++) {
		size_t len = strcspn(gauges[g], "=");
		for (size_t k = 0; k < g; k++)
			if (strcspn(gauges[k], "=") == len &&
			    strncmp(gauges[k], gauges[g], len) == 0) {
				error("--gauge: '%.*s' given twice", (int)len,
				      gauges[g]);
				goto bad;
			}
		if (!(sources[n++] = source_new_gauge(gauges[g])))
			goto bad_source;
	}
	if (a->n_ports)
		for (size_t i = 0; i < n; i++)
			source_set_fresh_connections(sources[i]);
	a->o.sources = sources;
	a->o.n_sources = n;
	return EXIT_OK;
bad_source:
	n--;  /* the slot that failed holds NULL */
bad:
	for (size_t i = 0; i < n; i++)
		source_free(sources[i]);
	free(sources);
	return EXIT_USAGE;
}

int cli_record_parse(int argc, char **argv, const char *verb,
		     struct cli_record *cli)
{
	memset(cli, 0, sizeof(*cli));
	struct record_args a = {
		.o = {
			.rescan_s = NAN,
			.interval_s = 15,
			.duration_s = NAN,
			.smaps_interval_s = NAN,
			.commit_interval_s = 1.0,
			.sites_rate = NAN,
		},
		.work_timeout = NAN,
		.lp = EXPORTER_PROCESSES_LONG,
		.listen_long_s = EXPORTER_LONG_S,
	};
	int rc = EXIT_USAGE;
	const struct cli_command *cmd = !strcmp(verb, "watch") ?
		&watch_command : !strcmp(verb, "check") ?
		&check_record_command : &record_command;
	assert(!strcmp(verb, cmd->name));
	int first = cli_parse(cmd, "+", argc, argv, &a);
	if (first == CLI_PARSE_HELP) {
		rc = CLI_RECORD_HELP;
		goto out;
	}
	if (first < 0)
		goto out;
	/* getopt stops at "--" or the first operand: the command. */
	if (first < argc)
		a.o.command = argv + first;
	if (record_combine(&a, verb))
		goto out;
	if ((rc = record_sources(&a)) != EXIT_OK)
		goto out;
	struct recorder_options *o = &a.o;
	o->source_timeout_s = isnan(a.work_timeout) ? o->interval_s :
			      a.work_timeout;
	o->conn_ports = a.ports;
	o->n_conn_ports = a.n_ports;
	o->pids = a.pids;
	o->n_pids = a.n_pids;
	cli->status_line = !a.quiet && isatty(STDERR_FILENO);
	diag_set_quiet(a.quiet);
	cli->invocation = cli_join_argv(argc, argv);
	o->invocation = cli->invocation;
	cli->o = *o;
	cli->pids = a.pids;
	cli->ports = a.ports;
	cli->sources = o->sources;
	cli->n_sources = o->n_sources;
	cli->quiet = a.quiet;
	cli->listen = a.listen;
	cli->listen_processes = a.lp;
	cli->listen_long_s = a.listen_long_s;
	cli->work_is_counter = a.work_is_counter;
	cli->top = a.top;
	cli_strings_release(&a.gauges);
	return EXIT_OK;
out:
	cli_strings_release(&a.gauges);
	free(a.ports);
	free(a.pids);
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
