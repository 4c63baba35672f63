/*
 * sites_stats.c - an allocation-site table's counts to the recording
 * (sites_stats.h).
 */
#include "sites_stats.h"

#include <stdio.h>

#include "sampler.h"

void sites_stats_send(struct sites_stats_state *x, struct recorder *rec,
		      const struct sink_set *out, int64_t inc, double t,
		      const struct sample_site_stats *st, const char *option,
		      const char *table, const char *sites)
{
	if (x->sent && st->sampled == x->last.sampled &&
	    st->dropped_sites == x->last.dropped_sites &&
	    st->dropped_live == x->last.dropped_live &&
	    st->live_blocks == x->last.live_blocks)
		return;
	x->sent = true;
	x->last = *st;
	struct sample_event e = {.kind = SAMPLE_SITE_STATS, .t = t,
				 .inc = inc, .u.site_stats = st};
	sink_set_event(out, &e);
	if (x->full_said || !(st->dropped_sites || st->dropped_live))
		return;
	x->full_said = true;
	char msg[320];
	snprintf(msg, sizeof(msg), "%s: a table of %s is full: %.0f sampled "
		 "allocations not kept (%s: %.0f; live set: %.0f); the sites' "
		 "figures are low from here on", option, table,
		 st->dropped_sites + st->dropped_live, sites,
		 st->dropped_sites, st->dropped_live);
	sampler_say(rec, t, true, msg);
}
