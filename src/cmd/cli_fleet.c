/*
 * cli_fleet.c - the options of `memtrend report --prometheus URL --query
 * PROMQL` (docs/fleet.md): their defaults and --by's reading (the options
 * themselves are rows of report's table, cmd_report.c, typed and parsed
 * by cli_options.h); and the command's run: the options checked, the
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

int cli_fleet_by(const struct cli_option *row, const char *arg, void *field)
{
	(void)row;
	struct fleet_options *fo = field;
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
		fo->by = xrealloc(fo->by, (fo->n_by + 1) * sizeof(*fo->by));
		fo->by[fo->n_by++] = xstrdup(tok);
	}
	free(copy);
	if (!fo->n_by)
		return error("--by: which labels? (e.g. --by "
			     "namespace,container)");
	return 0;
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
