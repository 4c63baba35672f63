/*
 * cmd_report.c - `memtrend report FILE`: read a recording (SQLite) or a
 * CSV, analyse each target, print the verdict and its evidence as text or
 * JSON, and with --html FILE also write the HTML page (render_html.c).
 * The analysis and rendering of a dataset, shared with the demo, is
 * cli_report_dataset() in cli.c.
 */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "csv.h"
#include "render.h"
#include "store.h"
#include "units.h"
#include "vmmap.h"

enum { OPT_JSON = 256, OPT_HTML, OPT_CAP, OPT_LIMIT, OPT_RESOLUTION,
       OPT_SUSPECT, OPT_NO_COLOR, OPT_IDLE_MIN, OPT_WARMUP, OPT_NO_PLOT,
       OPT_TOP, OPT_FAIL_ON, OPT_WORK_IS_COUNTER };

/* report's options: getopt_long, --help and the man page check all read
 * this table (cli_options.h). */
const struct cli_option report_options[] = {
	CLI_SECTION("options"),
	CLI_OPT(0, "json", OPT_JSON, NULL, "print JSON (schema: "
		"docs/json.md) instead of text"),
	CLI_OPT(0, "html", OPT_HTML, "FILE", "also write an HTML report "
		"with plots to FILE (docs/html.md); - writes it to stdout "
		"instead of the text"),
	CLI_OPT(0, "top", OPT_TOP, "N", "show only the worst N targets "
		"(ranked: growing, plateau, inconclusive, stable) in the text "
		"and the HTML page; --json always has every target"),
	CLI_OPT(0, "fail-on", OPT_FAIL_ON, "VERDICTS", "exit 1 when a "
		"target's verdict is one of VERDICTS, a comma list of growing, "
		"plateau, inconclusive (a gate for recordings made elsewhere; "
		"e.g. growing,plateau)"),
	CLI_OPT(0, "cap", OPT_CAP, "[NAME=]SIZE", "a known cap (allocator "
		"or cache limit); repeatable"),
	CLI_OPT(0, "limit", OPT_LIMIT, "SIZE", "memory limit for exhaustion "
		"and the slope of concern (default: the cgroup limit, else "
		"MemTotal)"),
	CLI_OPT(0, "resolution", OPT_RESOLUTION, "SIZE", "smallest step the "
		"readings can show (default: inferred from the readings)"),
	CLI_OPT(0, "suspect", OPT_SUSPECT, "RATE", "the slope that matters, "
		"e.g. 50MiB/h or 4KiB/req (default: the slope that reaches "
		"the limit in 30 days)"),
	CLI_OPT(0, "idle-min", OPT_IDLE_MIN, "DUR", "shortest idle window "
		"(default 60s)"),
	CLI_OPT(0, "warmup", OPT_WARMUP, "DUR", "start-up ramp excluded from "
		"idle windows (default: until the first request, at most 10 "
		"minutes)"),
	CLI_OPT(0, "work-is-counter", OPT_WORK_IS_COUNTER, NULL, "analyse "
		"the requests column as a counter even when it goes down too "
		"often to be one (by default such a gauge is set aside: no "
		"per-request slope, no idle windows; docs/verdicts.md)"),
	CLI_OPT(0, "no-color", OPT_NO_COLOR, NULL, "no colour even on a "
		"terminal"),
	CLI_OPT(0, "no-plot", OPT_NO_PLOT, NULL, "no text plot of the "
		"footprint (drawn only on a terminal)"),
	CLI_OPT('h', "help", 'h', NULL, "this help"),
	CLI_SECTION("Prometheus (docs/fleet.md)"),
	CLI_OPT(0, "prometheus", FLEET_OPT_PROMETHEUS, "URL", "read the "
		"series from this Prometheus (or Thanos, Mimir, "
		"VictoriaMetrics) instead of a FILE"),
	CLI_OPT(0, "query", FLEET_OPT_QUERY, "PROMQL", "the memory series, "
		"in bytes: each series a target, named by its labels"),
	CLI_OPT(0, "work-query", FLEET_OPT_WORK_QUERY, "PROMQL", "a work "
		"counter per target (requests), matched on its labels"),
	CLI_OPT(0, "range", FLEET_OPT_RANGE, "DUR", "how far back (default "
		"7d, up to now or --end), or forward from --start"),
	CLI_OPT(0, "start", FLEET_OPT_START, "TIME", "the start (RFC 3339 or "
		"Unix seconds)"),
	CLI_OPT(0, "end", FLEET_OPT_END, "TIME", "the end (default now)"),
	CLI_OPT(0, "step", FLEET_OPT_STEP, "DUR", "seconds between points "
		"(default: the data's own interval, read from its sample "
		"times, no finer than the range in 11,000 points; 60s when "
		"it cannot be read)"),
	CLI_OPT(0, "by", FLEET_OPT_BY, "LABEL,...", "one target per value of "
		"these labels; the series of a target are its incarnations "
		"(e.g. --by namespace,container across pods)"),
	CLI_OPT(0, "auth-file", FLEET_OPT_AUTH_FILE, "FILE", "credentials: "
		"'bearer TOKEN', 'basic USER:PASSWORD' or a bare token"),
	CLI_OPT(0, "query-timeout", FLEET_OPT_QUERY_TIMEOUT, "DUR", "give up "
		"on a request after this (default 2m; retried up to 3 times)"),
	CLI_OPT(0, "max-response", FLEET_OPT_MAX_RESPONSE, "SIZE", "the "
		"largest response read (default 64MiB)"),
	CLI_OPT(0, "parallel", FLEET_OPT_PARALLEL, "N", "requests in flight "
		"(default 2)"),
	CLI_OPT(0, "max-series", FLEET_OPT_MAX_SERIES, "N", "refuse a query "
		"of more series than this (default 10000; memory grows with "
		"them)"),
	CLI_END_ROW,
};

static void report_usage(FILE *out)
{
	fprintf(out,
"usage: memtrend report FILE [options]\n"
"       memtrend report --prometheus URL --query PROMQL [options]\n"
"\n"
"Analyse a recording made by 'memtrend record' (it may still be recording)\n"
"or a CSV (columns time, footprint[, pid, requests, ...]; see memtrend(1)),\n"
"or a macOS 'vmmap --summary' output (where that process's memory sits).\n");
	cli_options_help(out, report_options);
	fprintf(out,
"\n"
"SIZE: 512MiB, 21GB, 4096 (bytes). RATE: SIZE/h, SIZE/min, SIZE/req.\n"
"Exit codes: 0 ok, 1 a verdict named by --fail-on, 2 usage or bad input,\n"
"3 run-time failure.\n");
}

/* A vmmap --summary file: where that process's memory sat, as text or
 * JSON on stdout. */
static int report_vmmap_file(const char *path, bool json)
{
	struct vmmap_summary s;
	if (vmmap_read_file(path, &s))
		return EXIT_USAGE;
	char title[400];
	if (s.pid >= 0)
		snprintf(title, sizeof(title), "%s [%ld]", s.process, s.pid);
	else
		snprintf(title, sizeof(title), "%s", *s.process ? s.process :
			 path);
	int rc = render_regions(stdout, title, &s.breakdown, NULL, json);
	vmmap_release(&s);
	if (rc || fflush(stdout)) {
		error("cannot write the report");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* --fail-on growing,plateau: a bit per verdict (1 << enum verdict). */
static int parse_fail_on(const char *arg, unsigned *mask)
{
	static const enum verdict allowed[] = {
		VERDICT_GROWING, VERDICT_PLATEAU, VERDICT_INCONCLUSIVE};
	const char *p = arg;
	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		bool found = false;
		for (size_t i = 0; i < ARRAY_SIZE(allowed); i++) {
			const char *name = verdict_name(allowed[i]);
			if (len == strlen(name) && !strncmp(p, name, len)) {
				*mask |= 1u << allowed[i];
				found = true;
			}
		}
		if (!found)
			return error("--fail-on: '%.*s' is not growing, plateau "
				     "or inconclusive", (int)len, p);
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*mask)
		return error("--fail-on: name a verdict (growing, plateau, "
			     "inconclusive)");
	return 0;
}

static int parse_cap(const char *arg, struct analysis_cap *cap)
{
	const char *eq = strchr(arg, '=');
	const char *size = eq ? eq + 1 : arg;
	double q;
	if (units_parse_size(size, &cap->bytes, &q) || cap->bytes <= 0)
		return error("--cap: cannot read '%s' as a size", size);
	cap->name = eq ? strndup(arg, (size_t)(eq - arg)) : strdup("cap");
	return 0;
}

/* report is short-lived and analyses target after target with the same
 * scratch sizes (slope selection: ~1 MB at 10^4 points). glibc would give
 * those back to the kernel after each target (mmapped chunks, a trimmed
 * heap top) and fault them in again for the next: 14,000 page faults an
 * analysis of 10^4 points, ~10 % of its time, measured with
 * bench_analysis. Keep up to 64 MiB of free heap and serve blocks below
 * 32 MiB from it. Not for `record`, whose footprint must stay flat. */
static void heap_keep_for_analysis(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int cmd_report(int argc, char **argv)
{
	/* Built once, kept for the process's life. */
	static struct option *longopts;
	static char *shortopts;
	if (!longopts)
		cli_options_getopt(report_options, "", &longopts, &shortopts);
	struct report_options o = {
		.format = REPORT_TEXT,
		.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
		.plot = isatty(STDOUT_FILENO),
	};
	heap_keep_for_analysis();
	analysis_options_init(&o.analysis);
	struct analysis_cap *caps = NULL;
	size_t n_caps = 0, cap_cap = 0;
	struct report_html html = {0};
	struct fleet_options fleet;
	cli_fleet_init(&fleet);
	int rc = EXIT_USAGE, c, fc;
	double q;
	optind = 1;
	opterr = 0;  /* our own message, naming the command */
	while ((c = cli_getopt(argc, argv, shortopts, longopts)) !=
	       -1) {
		switch (c) {
		case OPT_JSON:
			o.format = REPORT_JSON;
			break;
		case OPT_HTML:
			if (!*optarg) {
				error("--html: which file? (FILE, or - for "
				      "stdout)");
				goto out;
			}
			html.path = optarg;
			break;
		case OPT_TOP: {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || errno) {
				error("--top: '%s' is not a positive count",
				      optarg);
				goto out;
			}
			o.top = (size_t)v;
			html.opt.top = (size_t)v;
			break;
		}
		case OPT_FAIL_ON:
			if (parse_fail_on(optarg, &o.fail_on))
				goto out;
			break;
		case OPT_CAP:
			xgrow((void **)&caps, &cap_cap, n_caps + 1,
			      sizeof(*caps));
			if (parse_cap(optarg, &caps[n_caps]))
				goto out;
			n_caps++;
			break;
		case OPT_LIMIT:
			if (units_parse_size(optarg, &o.analysis.limit, &q) ||
			    o.analysis.limit <= 0) {
				error("--limit: cannot read '%s' as a size",
				      optarg);
				goto out;
			}
			break;
		case OPT_RESOLUTION:
			if (units_parse_size(optarg, &o.analysis.resolution,
					     &q) ||
			    o.analysis.resolution <= 0) {
				error("--resolution: cannot read '%s' as a "
				      "size", optarg);
				goto out;
			}
			break;
		case OPT_SUSPECT:
			if (units_parse_rate(optarg, &o.analysis.suspect) ||
			    o.analysis.suspect.bytes <= 0) {
				error("--suspect: cannot read '%s' as a rate "
				      "(e.g. 50MiB/h)", optarg);
				goto out;
			}
			o.analysis.has_suspect = true;
			break;
		case OPT_IDLE_MIN:
			if (units_parse_duration(optarg, &o.analysis.idle_min_s) ||
			    !(o.analysis.idle_min_s > 0)) {
				error("--idle-min: cannot read '%s' as a "
				      "duration (e.g. 60s, 5m)", optarg);
				goto out;
			}
			break;
		case OPT_WARMUP:
			if (units_parse_duration(optarg, &o.analysis.warmup_s) ||
			    !(o.analysis.warmup_s >= 0)) {
				error("--warmup: cannot read '%s' as a "
				      "duration (e.g. 10m, 0)", optarg);
				goto out;
			}
			break;
		case OPT_WORK_IS_COUNTER:
			o.analysis.work_is_counter = true;
			break;
		case OPT_NO_PLOT:
			o.plot = false;
			break;
		case OPT_NO_COLOR:
			o.color = false;
			break;
		case 'h':
			report_usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			if ((fc = cli_fleet_option(&fleet, c, optarg)) < 0)
				goto out;
			if (fc > 0)
				break;
			error("report: unknown option or missing value: '%s' "
			      "(see 'memtrend report --help')",
			      argv[optind - 1]);
			goto out;
		}
	}
	if (fleet.url || fleet.query) {
		o.analysis.caps = caps;
		o.analysis.n_caps = n_caps;
		html.opt.caps = caps;
		html.opt.n_caps = n_caps;
		rc = cli_fleet_report(&fleet, optind < argc ? argv[optind] :
				      NULL, &o, html.path ? &html : NULL);
		goto out;
	}
	if (optind != argc - 1) {
		error(optind >= argc ? "report: which file? (a recording or a "
		      "CSV)" : "report: one file at a time");
		goto out;
	}
	if (html.path && !strcmp(html.path, "-") && o.format == REPORT_JSON) {
		error("--html - and --json both want stdout: write the HTML "
		      "to a file");
		goto out;
	}
	/* The page replaces FILE: never the input, nor another recording
	 * (one slip of tab completion would lose hours of data). */
	struct stat in_st, html_st;
	if (html.path && strcmp(html.path, "-") &&
	    stat(html.path, &html_st) == 0) {
		if (strcmp(argv[optind], "-") &&
		    stat(argv[optind], &in_st) == 0 &&
		    in_st.st_dev == html_st.st_dev &&
		    in_st.st_ino == html_st.st_ino) {
			error("--html: '%s' is the file being reported; name "
			      "another file for the page", html.path);
			goto out;
		}
		if (store_is_recording(html.path)) {
			error("--html: '%s' is a memtrend recording; name "
			      "another file for the page", html.path);
			goto out;
		}
	}
	o.analysis.caps = caps;
	o.analysis.n_caps = n_caps;
	html.opt.caps = caps;
	html.opt.n_caps = n_caps;
	const char *path = argv[optind];
	struct dataset d;
	if (strcmp(path, "-") && access(path, R_OK)) {
		error("cannot read '%s': %m", path);
		goto out;
	}
	bool is_db = strcmp(path, "-") && store_is_recording(path);
	/* A macOS `vmmap --summary` output: where that process's memory sat
	 * (one snapshot, no series to analyse). */
	if (!is_db && strcmp(path, "-") && vmmap_is_summary_file(path)) {
		if (html.path) {
			error("--html: '%s' is a vmmap --summary output, one "
			      "snapshot of where memory sits, with no series "
			      "to plot; use the text or --json report", path);
			rc = EXIT_USAGE;
			goto out;
		}
		rc = report_vmmap_file(path, o.format == REPORT_JSON);
		goto out;
	}
	/* The HTML page stacks the components: read them only then (the
	 * parallel reader is for footprints alone). */
	struct store_read_options ro = {.components = html.path != NULL};
	int read_rc = is_db ? store_read_dataset(path, &ro, &d) :
			      csv_read_file(path, &d);
	if (read_rc) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* --group-by: a group of one process is that process, ranked once
	 * (issue 28) */
	dataset_fold_lone_groups(&d);
	if (d.n_targets == 0) {
		error("'%s' holds no targets", path);
		dataset_release(&d);
		goto out;
	}
	rc = cli_report_dataset(&d, &o, html.path ? &html : NULL);
	dataset_release(&d);
out:
	cli_fleet_release(&fleet);
	for (size_t i = 0; i < n_caps; i++)
		free((char *)caps[i].name);
	free(caps);
	return rc;
}
