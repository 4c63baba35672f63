/*
 * cmd_report.c - `memtrend report FILE`: read a recording (SQLite) or a
 * CSV, analyse each target, print the verdict and its evidence as text or
 * JSON, and with --html FILE also write the HTML page (render_html.c).
 * The analysis and rendering of a dataset, shared with the demo, is
 * cli_report_dataset() in cli.c.
 */
#include <errno.h>
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
#include "render_sites.h"
#include "store.h"
#include "units.h"
#include "vmmap.h"

/* What report's options are parsed into (defaults in cmd_report()). */
struct report_args {
	struct report_options o;
	bool json;                 /* --json: o.format */
	int folded;                /* --folded: enum folded_value; -1 none */
	struct analysis_cap *caps; /* --cap, owned (and their names) */
	size_t n_caps, cap_caps;
	struct report_html html;   /* --html: html.path */
	struct fleet_options fleet;
};
#define RA struct report_args

static int parse_fail_on(const struct cli_option *row, const char *arg,
			 void *field);
static int parse_cap(const struct cli_option *row, const char *arg,
		     void *field);

/* Durations of the fleet report: above 0. */
#define FLEET_DUR(l, f, h) CLI_DURATION(0, l, RA, fleet.f, "DUR", h, 0, \
	true, INFINITY, "a duration (e.g. 7d, 60s)", NULL)
#define FLEET_TIME(l, f, h) CLI_TIME(0, l, RA, fleet.f, "TIME", h, \
	"a time (RFC 3339 with a zone, e.g. 2026-05-01T00:00:00Z, or Unix " \
	"seconds)")

static const struct cli_choice folded_choices[] = {
	{"hour", FOLDED_PER_HOUR},
	{"request", FOLDED_PER_REQUEST},
	{"live", FOLDED_LIVE},
	{NULL, 0},
};

/* report's options: getopt_long, the parser, --help and the man page
 * check all read this table (cli_options.h). */
const struct cli_option report_options[] = {
	CLI_SECTION("options"),
	CLI_FLAG(0, "json", RA, json, "print JSON (schema: docs/json.md) "
		"instead of text"),
	CLI_STRING(0, "html", RA, html.path, "FILE", "also write an HTML "
		"report with plots to FILE (docs/html.md); - writes it to "
		"stdout instead of the text", "which file? (FILE, or - for "
		"stdout)"),
	CLI_ENUM(0, "folded", RA, folded, "WHAT", "print the allocation "
		"sites (record --sites) as folded stacks for flamegraph.pl, "
		"inferno or speedscope instead of the text: WHAT is hour (each "
		"growing site's bytes per hour), request (bytes per request) "
		"or live (live bytes at the end); docs/sites.md",
		folded_choices),
	CLI_STRING(0, "pprof", RA, o.pprof, "FILE", "also write the "
		"allocation sites (record --sites) as a pprof profile to FILE, "
		"for go tool pprof or Pyroscope: each analysed site's growth per "
		"hour (the default), per request, and its live bytes; "
		"docs/sites.md", "which file?"),
	CLI_COUNT(0, "top", RA, o.top, "N", "show only the worst N targets "
		"(ranked: growing, plateau, inconclusive, stable) in the text "
		"and the HTML page; --json always has every target", 1,
		CLI_COUNT_MAX, "a positive count"),
	CLI_CALLBACK(0, "fail-on", "VERDICTS", "exit 1 when a target's "
		"verdict is one of VERDICTS, a comma list of growing, plateau, "
		"inconclusive (a gate for recordings made elsewhere; e.g. "
		"growing,plateau)", parse_fail_on, offsetof(RA, o.fail_on)),
	CLI_CALLBACK(0, "cap", "[NAME=]SIZE", "a known cap (allocator or "
		"cache limit); repeatable", parse_cap, 0),
	CLI_SIZE(0, "limit", RA, o.analysis.limit, "SIZE", "memory limit for "
		"exhaustion and the slope of concern (default: the cgroup "
		"limit, else MemTotal)", 0, true, INFINITY, "a size", NULL),
	CLI_SIZE(0, "resolution", RA, o.analysis.resolution, "SIZE",
		"smallest step the readings can show (default: inferred from "
		"the readings)", 0, true, INFINITY, "a size", NULL),
	CLI_RATE(0, "suspect", RA, o.analysis.suspect, "RATE", "the slope "
		"that matters, e.g. 50MiB/h or 4KiB/req (default: the slope "
		"that reaches the limit in 30 days)",
		"a rate (e.g. 50MiB/h)"),
	CLI_DURATION(0, "idle-min", RA, o.analysis.idle_min_s, "DUR",
		"shortest idle window (default 60s)", 0, true, INFINITY,
		"a duration (e.g. 60s, 5m)", NULL),
	CLI_DURATION(0, "warmup", RA, o.analysis.warmup_s, "DUR", "start-up "
		"ramp excluded from idle windows (default: until the first "
		"request, at most 10 minutes)", 0, false, INFINITY,
		"a duration (e.g. 10m, 0)", NULL),
	CLI_FLAG(0, "work-is-counter", RA, o.analysis.work_is_counter,
		"analyse the requests column as a counter even when it goes "
		"down too often to be one (by default such a gauge is set "
		"aside: no per-request slope, no idle windows; "
		"docs/verdicts.md)"),
	CLI_CLEAR(0, "no-color", RA, o.color, "no colour even on a terminal"),
	CLI_CLEAR(0, "no-plot", RA, o.plot, "no text plot of the footprint "
		"(drawn only on a terminal)"),
	CLI_HELP_ROW,
	CLI_SECTION("Prometheus (docs/fleet.md)"),
	CLI_STRING(0, "prometheus", RA, fleet.url, "URL", "read the series "
		"from this Prometheus (or Thanos, Mimir, VictoriaMetrics) "
		"instead of a FILE", NULL),
	CLI_STRING(0, "query", RA, fleet.query, "PROMQL", "the memory "
		"series, in bytes: each series a target, named by its labels",
		NULL),
	CLI_STRING(0, "work-query", RA, fleet.work_query, "PROMQL", "a work "
		"counter per target (requests), matched on its labels", NULL),
	FLEET_DUR("range", range_s, "how far back (default 7d, up to now or "
		"--end), or forward from --start"),
	FLEET_TIME("start", start, "the start (RFC 3339 or Unix seconds)"),
	FLEET_TIME("end", end, "the end (default now)"),
	FLEET_DUR("step", step_s, "seconds between points (default: the "
		"data's own interval, read from its sample times, no finer "
		"than the range in 11,000 points; 60s when it cannot be "
		"read)"),
	CLI_CALLBACK(0, "by", "LABEL,...", "one target per value of these "
		"labels; the series of a target are its incarnations (e.g. "
		"--by namespace,container across pods)", cli_fleet_by,
		offsetof(RA, fleet)),
	CLI_STRING(0, "auth-file", RA, fleet.auth_file, "FILE", "credentials: "
		"'bearer TOKEN', 'basic USER:PASSWORD' or a bare token", NULL),
	FLEET_DUR("query-timeout", timeout_s, "give up on a request after "
		"this (default 2m; retried up to 3 times)"),
	CLI_SIZE(0, "max-response", RA, fleet.max_response, "SIZE", "the "
		"largest response read (default 64MiB)", FLEET_BODY_MIN, false,
		INFINITY, "a size of at least 1MiB",
		"is not a size of at least 1MiB"),
	CLI_COUNT(0, "parallel", RA, fleet.parallel, "N", "requests in "
		"flight (default 2)", 1, FLEET_PARALLEL_MAX,
		"a count from 1 to 8"),
	CLI_COUNT(0, "max-series", RA, fleet.max_series, "N", "refuse a query "
		"of more series than this (default 10000; memory grows with "
		"them)", 1, FLEET_MAX_SERIES_MAX, "a count from 1 to 100000000"),
	CLI_END_ROW,
};

static const struct cli_command report_command = {
	.name = "report",
	.usage =
"usage: memtrend report FILE [options]\n"
"       memtrend report --prometheus URL --query PROMQL [options]\n"
"\n"
"Analyse a recording made by 'memtrend record' (it may still be recording)\n"
"or a CSV (columns time, footprint[, pid, requests, ...]; see memtrend(1)),\n"
"or a macOS 'vmmap --summary' output (where that process's memory sits).\n",
	.options = report_options,
	.notes =
"\n"
"SIZE: 512MiB, 21GB, 4096 (bytes). RATE: SIZE/h, SIZE/min, SIZE/req.\n"
"Exit codes: 0 ok, 1 a verdict named by --fail-on, 2 usage or bad input,\n"
"3 run-time failure.\n",
};

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

/* --fail-on growing,plateau into an unsigned: a bit per verdict (1 <<
 * enum verdict). */
static int parse_fail_on(const struct cli_option *row, const char *arg,
			 void *field)
{
	static const enum verdict allowed[] = {
		VERDICT_GROWING, VERDICT_PLATEAU, VERDICT_INCONCLUSIVE};
	(void)row;
	unsigned *mask = field;
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

/* --cap [NAME=]SIZE, repeatable (field: the struct report_args). */
static int parse_cap(const struct cli_option *row, const char *arg,
		     void *field)
{
	static const struct cli_option size_row = {.kind = CLI_OPTION,
		.name = "cap", .type = CLI_T_SIZE, .lo = 0, .lo_open = true,
		.hi = INFINITY, .what = "a size"};
	(void)row;
	struct report_args *a = field;
	struct analysis_cap cap;
	size_t len;
	if (cli_named_value(&size_row, "name", arg, &len, &cap.bytes))
		return -1;
	char *name = xstrdup(len ? arg : "cap");
	if (len)
		name[len] = '\0';  /* NAME of NAME=SIZE */
	cap.name = name;
	xgrow((void **)&a->caps, &a->cap_caps, a->n_caps + 1,
	      sizeof(*a->caps));
	a->caps[a->n_caps++] = cap;
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
	struct report_args a = {
		.folded = -1,
		.o = {
			.format = REPORT_TEXT,
			.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
			.plot = isatty(STDOUT_FILENO),
		},
	};
	heap_keep_for_analysis();
	analysis_options_init(&a.o.analysis);
	cli_fleet_init(&a.fleet);
	int rc = EXIT_USAGE;
	int first = cli_parse(&report_command, "", argc, argv, &a);
	/* The run below reads these; what they own is freed at out. */
	struct report_options o = a.o;
	struct analysis_cap *caps = a.caps;
	size_t n_caps = a.n_caps;
	struct report_html html = a.html;
	struct fleet_options fleet = a.fleet;
	if (first == CLI_PARSE_HELP) {
		rc = EXIT_OK;
		goto out;
	}
	if (first < 0)
		goto out;
	if (a.json)
		o.format = REPORT_JSON;
	if (a.folded >= 0) {
		if (a.json) {
			error("--folded and --json are two outputs for stdout: "
			      "choose one");
			goto out;
		}
		if (fleet.url || fleet.query) {
			error("--folded: a Prometheus series has no allocation "
			      "sites; report a recording made with --sites");
			goto out;
		}
		if (html.path && !strcmp(html.path, "-")) {
			error("--html - and --folded both want stdout: write "
			      "the HTML to a file");
			goto out;
		}
		o.format = REPORT_FOLDED;
		o.folded = a.folded;
	}
	html.opt.top = o.top;
	o.analysis.has_suspect = o.analysis.suspect.bytes > 0;
	if (o.pprof && (fleet.url || fleet.query)) {
		error("--pprof: a Prometheus series has no allocation sites; "
		      "report a recording made with --sites");
		goto out;
	}
	if (fleet.url || fleet.query) {
		o.analysis.caps = caps;
		o.analysis.n_caps = n_caps;
		html.opt.caps = caps;
		html.opt.n_caps = n_caps;
		rc = cli_fleet_report(&fleet, first < argc ? argv[first] :
				      NULL, &o, html.path ? &html : NULL);
		goto out;
	}
	if (first != argc - 1) {
		error(first >= argc ? "report: which file? (a recording or a "
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
		if (strcmp(argv[first], "-") &&
		    stat(argv[first], &in_st) == 0 &&
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
	const char *path = argv[first];
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
		if (o.format == REPORT_FOLDED || o.pprof) {
			error("%s: '%s' is a vmmap --summary output, with no "
			      "allocation sites", o.pprof ? "--pprof" :
			      "--folded", path);
			rc = EXIT_USAGE;
			goto out;
		}
		rc = report_vmmap_file(path, o.format == REPORT_JSON);
		goto out;
	}
	/* The HTML page stacks the components: read them only then (the
	 * parallel reader is for footprints alone), or for the sites'
	 * section (growth outside the heap). */
	struct store_read_options ro = {.components = html.path != NULL,
					.components_with_sites = true};
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
