/*
 * render_openmetrics.h - memtrend's live figures as a Prometheus exposition
 * (docs/openmetrics.md), for a scraper: the OpenMetrics 1.0 text format or
 * the Prometheus text format 0.0.4. A pure renderer: the caller (the HTTP
 * listener of `record --listen`) fills one om_target per target from what
 * it holds and passes the stream; nothing here reads the store or the
 * machine, and nothing is computed that a verdict depends on.
 *
 * Contract: the exposition is valid in the format asked for whatever the
 * strings hold. Label values are escaped (backslash, double quote,
 * newline) and invalid UTF-8 is replaced by U+FFFD. A figure that is NAN
 * (or not finite) is left out, never written as NaN; a family with no
 * sample at all is left out whole (no HELP or TYPE for it). Numbers are
 * written in the C locale: integers when integral, otherwise the shortest
 * decimal that reads back as the same double. Work: O(n) lines; memory:
 * the exposition and every target's escaped labels, built in memory. The caller gives each
 * target a distinct (target, kind, pid): two alike would be one series
 * twice, which a scraper rejects.
 */
#ifndef MEMTREND_RENDER_OPENMETRICS_H
#define MEMTREND_RENDER_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "slope.h"

struct om_target {
	const char *target;        /* target name (process-controlled:
				      escaped here); NULL reads as "" */
	const char *kind;          /* "process", "pid", "name", "command",
				      "group"... */
	long pid;                  /* -1: none (a group): no pid label */
	double footprint, anon, swap, shmem, gpu;   /* bytes; NAN: not read */
	double rss, file;          /* VmRSS and RssFile (what ps/top show,
				      and its file-backed part); NAN: not
				      read */
	double requests;           /* cumulative work counter; NAN: none
				      recorded (a negative one is left out:
				      a counter cannot be negative) */
	double connections;        /* NAN: none recorded */
	uint64_t samples;          /* samples recorded for the target */
	bool analysed;             /* the fields below are set */
	enum verdict verdict;
	struct slope slope;        /* bytes per hour */
	double detectable_bph;     /* NAN: unknown */
	double exhaustion_s;       /* seconds until the limit; NAN: none */
	/* Issue 28: each pool's time to its limit (eta_s NAN: it does not
	 * run out), written with a pool label; n_pools 0: exhaustion_s
	 * alone, without one. */
	size_t n_pools;
	struct om_pool {
		char id[8];        /* "host", "limit", "gpu0".. */
		double eta_s;
	} pools[ANALYSIS_POOLS_MAX];
	/* record --sites: its largest allocation sites (at most
	 * OM_SITES_MAX, the caller's choice and order), each with a label
	 * (not escaped: render_site_label's words) and the estimate of its
	 * live bytes; n_sites 0: none (the family is left out). */
	const struct om_site {
		const char *label;
		double live;
	} *sites;
	size_t n_sites;
};

/* The most sites a target serves (memtrend_site_live_bytes). */
#define OM_SITES_MAX 10

enum om_format { OM_OPENMETRICS, OM_PROMETHEUS_TEXT };

/* Write the exposition of targets t[0..n) to out (flushed); returns 0 or
 * -1 on a write error. The OpenMetrics one ends with "# EOF". */
int render_openmetrics(FILE *out, enum om_format fmt,
		       const struct om_target *t, size_t n);
/* The same exposition as one malloc'd, NUL-terminated buffer (the
 * caller frees it) of *len bytes: what an HTTP answer hands over without
 * a copy. */
char *render_openmetrics_buffer(enum om_format fmt, const struct om_target *t,
				size_t n, size_t *len);
/* The Content-Type header value for fmt (a static string). */
const char *render_openmetrics_content_type(enum om_format fmt);
/* The format to answer an HTTP Accept header with (NULL: Prometheus
 * text). OpenMetrics when application/openmetrics-text (no version, or a
 * 1.x one) has a q > 0 at least that of text/plain and of any
 * wildcard range (text/<any>, <any>/<any>); Prometheus text otherwise. */
enum om_format render_openmetrics_negotiate(const char *accept);

#endif
