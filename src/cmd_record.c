/*
 * cmd_record.c - `memtrend record`: options, then the recorder loop.
 * With -- COMMAND, the command's exit status is passed on as memtrend's.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "recorder.h"
#include "units.h"

static void record_usage(FILE *out)
{
	fprintf(out,
"usage: memtrend record -o FILE [options] (-p PID... | --name REGEX | -- COMMAND ARGS...)\n"
"\n"
"Sample a service's memory into FILE (SQLite) until Ctrl-C, --duration, or\n"
"until every target is gone. 'memtrend report FILE' reads it, also while\n"
"recording goes on.\n"
"\n"
"targets:\n"
"  -p, --pid PID          a process; repeatable\n"
"  --name REGEX           the oldest process whose name or command line\n"
"                         matches (POSIX extended regex); waits for it and\n"
"                         follows it across restarts\n"
"  -- COMMAND ARGS...     start COMMAND, record it until it exits, and exit\n"
"                         with its status\n"
"  --children             also record every descendant and their sum\n"
"\n"
"options:\n"
"  -o, --output FILE      the recording (required; must not exist unless\n"
"                         --append)\n"
"  --append               add to an existing recording\n"
"  -i, --interval DUR     time between samples (default 15s; e.g. 500ms)\n"
"  -d, --duration DUR     stop after DUR\n"
"  --smaps                also read smaps_rollup (pss, swap_pss, ...): costs\n"
"                         up to milliseconds on large processes\n"
"  --smaps-interval DUR   how often with --smaps (default: 4 x interval,\n"
"                         at least 60s)\n"
"  -q, --quiet            no live status line, no notes\n"
"  --proc-root DIR        read DIR instead of /proc (for tests)\n"
"  --sys-root DIR         read DIR instead of /sys (for tests)\n"
"  -h, --help             this help\n"
"\n"
"DUR: 15s, 5m, 2h, 1d, 250ms or bare seconds.\n"
"Exit codes: 0 ok (or COMMAND's status), 2 usage or no such process,\n"
"3 run-time failure.\n");
}

static int parse_dur(const char *opt, const char *arg, double *out)
{
	if (units_parse_duration(arg, out) || !(*out > 0))
		return error("%s: cannot read '%s' as a duration (e.g. 15s, "
			     "500ms, 2h)", opt, arg);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_NAME = 256, OPT_CHILDREN, OPT_SMAPS, OPT_SMAPS_INTERVAL,
	       OPT_APPEND, OPT_PROC_ROOT, OPT_SYS_ROOT, OPT_COMMIT };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"pid", required_argument, NULL, 'p'},
		{"interval", required_argument, NULL, 'i'},
		{"duration", required_argument, NULL, 'd'},
		{"name", required_argument, NULL, OPT_NAME},
		{"children", no_argument, NULL, OPT_CHILDREN},
		{"smaps", no_argument, NULL, OPT_SMAPS},
		{"smaps-interval", required_argument, NULL, OPT_SMAPS_INTERVAL},
		{"append", no_argument, NULL, OPT_APPEND},
		{"quiet", no_argument, NULL, 'q'},
		{"proc-root", required_argument, NULL, OPT_PROC_ROOT},
		{"sys-root", required_argument, NULL, OPT_SYS_ROOT},
		{"commit-interval", required_argument, NULL, OPT_COMMIT},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	struct recorder_options o = {
		.interval_s = 15,
		.duration_s = NAN,
		.smaps_interval_s = NAN,
		.commit_interval_s = 1.0,
	};
	pid_t *pids = NULL;
	size_t n_pids = 0, cap = 0;
	bool quiet = false;
	int rc = EXIT_USAGE, c;
	optind = 1;
	/* '+': stop at the first non-option, so "-- COMMAND -x" keeps -x. */
	while ((c = getopt_long(argc, argv, "+o:p:i:d:qh", longopts,
				NULL)) != -1) {
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
		case 'h':
			record_usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			record_usage(stderr);
			goto out;
		}
	}
	if (optind < argc) {
		/* getopt stops at "--" or the first operand: the command. */
		o.command = argv + optind;
	}
	if (!o.output) {
		error("record: -o FILE is required");
		goto out;
	}
	if (!n_pids && !o.name_regex && !o.command) {
		error("record: what to record? give -p PID, --name REGEX or "
		      "-- COMMAND");
		goto out;
	}
	if (!o.append && access(o.output, F_OK) == 0) {
		error("'%s' already exists (use --append to add to it, or "
		      "choose another file)", o.output);
		goto out;
	}
	if (o.interval_s < 0.001) {
		error("--interval: at least 1ms");
		goto out;
	}
	if (isnan(o.smaps_interval_s))
		o.smaps_interval_s = fmax(60, 4 * o.interval_s);
	o.pids = pids;
	o.n_pids = n_pids;
	o.status_line = !quiet && isatty(STDERR_FILENO);
	diag_set_quiet(quiet);
	char *inv = cmd_join_argv(argc, argv);
	o.invocation = inv;

	struct recorder_result res;
	rc = recorder_run(&o, &res);
	free(inv);
	if (rc == EXIT_OK && o.command && res.command_status >= 0)
		rc = res.command_status;
out:
	free(pids);
	return rc;
}
