/*
 * cli_fleet.c - the options of `memtrend report --prometheus URL --query
 * PROMQL` (docs/fleet.md) and the command's run: the options checked, the
 * fleet read (remote/fleet.h: the series a Prometheus holds, analysed,
 * as a dataset of targets) and rendered as any report's.
 *
 * What it does not do: the pipeline itself (listing, batches, workers,
 * any HTTP: src/remote/), any statistics (analysis/), any output format
 * (render/, through cli_report_findings()).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "fleet.h"
#include "http.h"
#include "units.h"

#define FLEET_HTML_DEFAULT 100       /* targets the page draws */

/* ---- options ------------------------------------------------------------- */

void cli_fleet_init(struct fleet_options *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->range_s = fo->start = fo->end = fo->step_s = NAN;
	fo->timeout_s = fo->max_response = NAN;
}

void cli_fleet_release(struct fleet_options *fo)
{
	for (size_t i = 0; i < fo->n_by; i++)
		free(fo->by[i]);
	free(fo->by);
	fo->by = NULL;
	fo->n_by = 0;
}

static int parse_dur(const char *opt, const char *arg, double *out)
{
	if (units_parse_duration(arg, out) || !(*out > 0))
		return error("%s: cannot read '%s' as a duration (e.g. 7d, "
			     "60s)", opt, arg);
	return 0;
}

static int parse_time(const char *opt, const char *arg, double *out)
{
	if (units_parse_time(arg, out))
		return error("%s: cannot read '%s' as a time (RFC 3339 with a "
			     "zone, e.g. 2026-05-01T00:00:00Z, or Unix "
			     "seconds)", opt, arg);
	return 0;
}

int cli_fleet_option(struct fleet_options *fo, int id, const char *arg)
{
	switch (id) {
	case FLEET_OPT_PROMETHEUS:
		fo->url = arg;
		return 1;
	case FLEET_OPT_QUERY:
		fo->query = arg;
		return 1;
	case FLEET_OPT_WORK_QUERY:
		fo->work_query = arg;
		return 1;
	case FLEET_OPT_RANGE:
		return parse_dur("--range", arg, &fo->range_s) ? -1 : 1;
	case FLEET_OPT_STEP:
		return parse_dur("--step", arg, &fo->step_s) ? -1 : 1;
	case FLEET_OPT_QUERY_TIMEOUT:
		return parse_dur("--query-timeout", arg, &fo->timeout_s) ? -1
									 : 1;
	case FLEET_OPT_START:
		return parse_time("--start", arg, &fo->start) ? -1 : 1;
	case FLEET_OPT_END:
		return parse_time("--end", arg, &fo->end) ? -1 : 1;
	case FLEET_OPT_BY: {
		char *copy = xstrdup(arg), *save = NULL;
		for (char *tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			size_t n = strlen(tok);
			while (n && tok[n - 1] == ' ')
				tok[--n] = '\0';
			if (!n)
				continue;
			fo->by = xrealloc(fo->by, (fo->n_by + 1) *
					  sizeof(*fo->by));
			fo->by[fo->n_by++] = xstrdup(tok);
		}
		free(copy);
		if (!fo->n_by)
			return error("--by: which labels? (e.g. --by "
				     "namespace,container)");
		return 1;
	}
	case FLEET_OPT_AUTH_FILE:
		fo->auth_file = arg;
		return 1;
	case FLEET_OPT_MAX_RESPONSE: {
		double q;
		if (units_parse_size(arg, &fo->max_response, &q) ||
		    fo->max_response < 1048576)
			return error("--max-response: '%s' is not a size of "
				     "at least 1MiB", arg);
		return 1;
	}
	case FLEET_OPT_MAX_SERIES: {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(arg, &end, 10);
		if (*end || end == arg || errno || v < 1 || *arg == '-' ||
		    v > 100000000ull)
			return error("--max-series: '%s' is not a count from 1 "
				     "to 100000000", arg);
		fo->max_series = (size_t)v;
		return 1;
	}
	case FLEET_OPT_PARALLEL: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || errno || v < 1 ||
		    v > FLEET_PARALLEL_MAX)
			return error("--parallel: '%s' is not a count from 1 "
				     "to %d", arg, FLEET_PARALLEL_MAX);
		fo->parallel = v;
		return 1;
	}
	default:
		return 0;
	}
}

/* ---- the run ------------------------------------------------------------- */

int cli_fleet_report(const struct fleet_options *fo, const char *file,
		     const struct report_options *o, struct report_html *h)
{
	if (!fo->url)
		return error("--query needs --prometheus URL"), EXIT_USAGE;
	if (!fo->query || !*fo->query)
		return error("--prometheus: which series? (--query PROMQL, "
			     "e.g. 'container_memory_working_set_bytes"
			     "{namespace=\"llm\"}')"), EXIT_USAGE;
	if (file)
		return error("report: a FILE or --prometheus, not both"),
		       EXIT_USAGE;
	char url_shown[512];
	bool url_password;
	http_url_redacted(url_shown, sizeof(url_shown), fo->url, &url_password);
	if (url_password)
		warning("--prometheus: the URL's password is never printed "
			"(shown as ***), but every user of this machine can "
			"read it in the process list: give the credentials "
			"with --auth-file FILE instead");
	if (isfinite(fo->range_s) && isfinite(fo->start) &&
	    isfinite(fo->end))
		return error("--range with both --start and --end: give two "
			     "of the three"), EXIT_USAGE;
	size_t keep = h ? (o->top ? o->top : FLEET_HTML_DEFAULT) : 0;
	struct dataset d;
	struct target_findings *f;
	enum fleet_status st = fleet_read(fo, &o->analysis, keep, &d, &f);
	if (st != FLEET_OK)
		return st == FLEET_BAD_INPUT ? EXIT_USAGE : EXIT_RUNTIME;
	size_t n = d.n_targets;
	struct report_html hh;
	if (h) {
		hh = *h;
		if (!hh.opt.top && n > keep) {
			note("--html: the page draws the worst %zu of %zu "
			     "targets (--top N for another count)", keep, n);
			hh.opt.top = keep;
		}
	}
	int rc = cli_report_findings(&d, f, o, h ? &hh : NULL);
	for (size_t i = 0; i < n; i++)
		analysis_release(&f[i]);
	free(f);
	dataset_release(&d);
	return rc;
}
