/*
 * live_table.h - many targets' live series at once, as `watch --all`
 * keeps them: each target (a process of --all, keyed by the store's
 * target id) a bounded, thinned series (live.h) fed sample by sample; the
 * targets analysed in turn (analysis_run() on a snapshot), a few per call
 * within a time budget; and the table of them ranked worst first by the
 * report's own order (rank.h), so the live table and `memtrend report`
 * put the same target on top once they have seen the same samples.
 *
 * What it does not do: read the recording, take samples, format anything
 * (render_watch_table.c does) or decide when to analyse (its caller
 * gives the budget). Not thread-safe: one thread feeds and reads.
 *
 * Bounds: memory O(targets x max_points); a sample O(log targets) to
 * find its target plus live_append()'s O(1) amortised; a new target
 * O(targets) (a sorted insert); live_table_analyse() runs analyses of at
 * most max_points + 1 points until its budget is spent (at least one);
 * live_table_ranked() O(targets log targets), and O(targets) per group
 * (lone_group()).
 */
#ifndef MEMTREND_LIVE_TABLE_H
#define MEMTREND_LIVE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "live.h"

struct live_table;

/* An empty table. max_points: each target's bound on kept points
 * (live_new_sized(), no recent footprints kept); quantum: the readings'
 * resolution (a page for /proc's), exact. */
struct live_table *live_table_new(size_t max_points, double quantum);
void live_table_free(struct live_table *t);

/* One sample of target id, named name (copied when the target is new),
 * of the process (pid, start_ticks, start_time, comm): a process other
 * than the target's last is a new incarnation. */
void live_table_sample(struct live_table *t, int64_t id, const char *name,
		       int64_t pid, unsigned long long start_ticks,
		       double start_time, const char *comm,
		       const struct live_sample *x);
/* Target id is a --group-by group: its row shows no pid (its members
 * have theirs), and a group that is one process -- its pid and its last
 * footprint those of a process in the table -- is left out of the
 * ranking, as the report lists such a group once (issue 28). An unknown id
 * is ignored. */
void live_table_mark_group(struct live_table *t, int64_t id);
/* GPU d's total and used memory (all processes) for target id: the limit
 * of its pool on that device (live_set_gpu_limit). An unknown id is
 * ignored. */
void live_table_gpu_limit(struct live_table *t, int64_t id, unsigned d,
			  double total, double used);
/* Target id is no longer followed (its process ended): left out of the
 * table from now on. An unknown id is ignored. */
void live_table_end(struct live_table *t, int64_t id);
/* The machine's figures (NAN: unknown), given to every target, now and
 * later: the exhaustion the ranking puts first needs MemTotal. */
void live_table_set_machine(struct live_table *t, double mem_total,
			    double swap_total, double swap_free,
			    double mem_available);

/* Analyse the targets due -- new samples since their last analysis, and
 * at least min_gap_s (monotonic) since it -- in turn from where the last
 * call stopped, until budget_s is spent (at least one is analysed when
 * any is due). Returns how many were analysed. */
size_t live_table_analyse(struct live_table *t,
			  const struct analysis_options *o, double min_gap_s,
			  double budget_s);

/* One row of the table: what the last analysis found (analysed false:
 * none yet) and the figures of the latest sample. Pointers are valid
 * until the table is next changed. */
struct live_table_row {
	int64_t target_id;
	const char *name;
	int64_t pid;               /* the latest incarnation's */
	uint64_t samples;          /* every sample so far */
	double footprint;          /* the latest sample's */
	bool analysed;
	enum verdict verdict;      /* so far (analysed) */
	bool has_trend;
	double slope_bph, slope_low_bph, slope_high_bph; /* NAN: no trend */
	double eta_s;              /* exhaustion at the slope; NAN: none */
	uint64_t analysed_at;      /* samples when it was analysed */
};

/* Targets in the table now. */
size_t live_table_count(const struct live_table *t);
/* Samples fed so far (every target, ended ones too). */
uint64_t live_table_samples(const struct live_table *t);
/* The worst max rows into rows[0..), worst first: the analysed targets
 * in rank.h's order (rank_key_of() of their last findings), then those
 * not analysed yet, the largest footprint first. Returns how many. */
size_t live_table_ranked(const struct live_table *t,
			 struct live_table_row *rows, size_t max);

#endif
