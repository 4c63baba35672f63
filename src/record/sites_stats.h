/*
 * sites_stats.h - the counts of an allocation-site table (the shim's,
 * sampler_sites.c; the eBPF program's, sampler_sites_bpf.c), as both
 * samplers hand them to the recording: a SAMPLE_SITE_STATS event when
 * they change, and, the first time a table is found full, a warning of
 * what it cost. What it does not do: read a table (each sampler reads its
 * own).
 */
#ifndef MEMTREND_SITES_STATS_H
#define MEMTREND_SITES_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"
#include "sink_set.h"

struct recorder;

/* What was last sent, per sampler; {0}: nothing yet. */
struct sites_stats_state {
	struct sample_site_stats last;
	bool sent, full_said;
};

/* st (the table's counts now) to out when they changed since the last
 * call; the first time something was dropped, a warning: "OPTION: a
 * table of TABLE is full: N sampled allocations not kept (SITES: n;
 * live set: n); ..." (option "--sites", table "the shim", sites "site
 * table of 4096", say). */
void sites_stats_send(struct sites_stats_state *x, struct recorder *rec,
		      const struct sink_set *out, int64_t inc, double t,
		      const struct sample_site_stats *st, const char *option,
		      const char *table, const char *sites);

#endif
