/*
 * store_retain.c - the rolling window of `record --retain DUR`
 * (store_retain(), store.h): rows older than a cut are deleted a bounded
 * batch at a time, inside the writer's open batch (so they go with the
 * next commit), and free pages are handed back to the file system a few
 * at a time when the file has many.
 *
 * How rows are found without an index on t: rows of a table are appended
 * in time order (a folded run's row is written when the run ends, at the
 * latest at the next commit, so its t trails its neighbours' by at most a
 * commit interval), so the oldest rows are the lowest rowids. Each call
 * looks at the first max_rows rows by rowid -- a range of the table's
 * B-tree, no scan -- and deletes those that are older than the cut. Work
 * per call is thus O(max_rows) row visits per table, whatever the file's
 * size.
 *
 * Which rows go (docs/schema.md, "Retention"):
 *  - sample: a row whose last sample (t_last of a run, else t) is older
 *    than the cut. A run that straddles the cut is kept whole: trimming
 *    it would rewrite its t, and a run spans at most one commit interval
 *    (runs are written at every commit), so the file holds at most that
 *    much more than the window.
 *  - system_sample, cgroup_sample, source_sample, gpu_device: t older
 *    than the cut.
 *  - gpu_sample, site_sample, site_stats: a row holds until the next row
 *    of its series (a GPU region: incarnation, source, region; an
 *    allocation site; a site table's counts: incarnation), so a row
 *    older than the cut goes only once a later row of the same series is
 *    itself older than the cut: the row in force at the cut stays,
 *    however old. Each of these tables keeps a cursor (the rows in force
 *    stay behind it) and an index on its series.
 *  - target, incarnation, cgroup, source, region_snapshot, meta: kept
 *    (a few rows per process); note: kept, because many notes are said
 *    once for the whole recording (smaps not readable, --max-targets,
 *    a clock stepped back) and there are few of them.
 *
 * It does not decide when to run or what the cut is (the recorder), and
 * does not write samples (store_write.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "store_internal.h"

/* Time-stamped tables whose rows simply go when older than the cut. The
 * names and expressions are ours (never user input); the cut and the
 * batch size are bound. */
static const char *const plain_sql[] = {
	"DELETE FROM sample WHERE rowid IN (SELECT rowid FROM sample "
	"ORDER BY rowid LIMIT ?2) AND coalesce(t_last, t) < ?1",
	"DELETE FROM system_sample WHERE rowid IN (SELECT rowid FROM "
	"system_sample ORDER BY rowid LIMIT ?2) AND t < ?1",
	"DELETE FROM cgroup_sample WHERE rowid IN (SELECT rowid FROM "
	"cgroup_sample ORDER BY rowid LIMIT ?2) AND t < ?1",
	"DELETE FROM source_sample WHERE rowid IN (SELECT rowid FROM "
	"source_sample ORDER BY rowid LIMIT ?2) AND t < ?1",
	"DELETE FROM gpu_device WHERE rowid IN (SELECT rowid FROM "
	"gpu_device ORDER BY rowid LIMIT ?2) AND t < ?1",
};

_Static_assert(ARRAY_SIZE(plain_sql) ==
	       ARRAY_SIZE(((struct store *)0)->retain_stmt),
	       "one kept statement per plain table");

/* Tables whose row holds until the next row of its series: the table,
 * the columns that make a series, and the index on them (names ours,
 * never user input: written into the SQL; the cursor, the cut and the
 * batch size are bound). */
static const struct in_force_table {
	const char *table, *series, *index;
} in_force[] = {
	{"gpu_sample", "incarnation_id, source, region", "gpu_sample_region"},
	{"site_sample", "site_id", "site_sample_site"},
	{"site_stats", "incarnation_id", "site_stats_inc"},
};

_Static_assert(ARRAY_SIZE(in_force) ==
	       ARRAY_SIZE(((struct store *)0)->retain_cursor),
	       "one cursor per table of rows in force");

/* Free pages handed back per call, and when: the file keeps up to
 * max(RETAIN_FREE_KEEP, page_count / 8) free pages for the inserts to
 * reuse (the steady state of a rolling window: each commit frees about
 * as many pages as the next one needs), and gives back the rest. */
#define RETAIN_VACUUM_PAGES "256"   /* a literal: PRAGMA takes no parameter */
#define RETAIN_FREE_KEEP 1024

static int prepare(struct store *st, const char *sql, sqlite3_stmt **s)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) == SQLITE_OK)
		return 0;
	snprintf(st->last_error, sizeof(st->last_error), "%s",
		 sqlite3_errmsg(st->db));
	sqlite3_finalize(*s);
	*s = NULL;
	return -1;
}

/* Run s to its end; the number of rows it changed, or -1. */
static int64_t run(struct store *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		snprintf(st->last_error, sizeof(st->last_error), "%s",
			 sqlite3_errmsg(st->db));
		return -1;
	}
	return sqlite3_changes(st->db);
}

static int64_t int_pragma(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v = -1;
	if (prepare(st, sql, &s) == 0 && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Table k of in_force: walk its cursor over rows older than the cut (at
 * most max_rows), deleting the rows they supersede. */
static int64_t in_force_retain(struct store *st, size_t k, double before_t,
			       int64_t max_rows)
{
	const struct in_force_table *x = &in_force[k];
	char window_sql[160], delete_sql[512];
	/* the window of rows after the cursor (rowid, t) */
	snprintf(window_sql, sizeof(window_sql), "SELECT rowid, t FROM %s "
		 "WHERE rowid > ?1 ORDER BY rowid LIMIT ?2", x->table);
	/* for each row of (?1, ?2] older than the cut ?3, the earlier rows
	 * of its series: superseded before the cut */
	char on[200] = "";
	size_t len = 0;
	char cols[64];
	snprintf(cols, sizeof(cols), "%s", x->series);
	for (char *c = strtok(cols, ", "); c; c = strtok(NULL, ", "))
		len += (size_t)snprintf(on + len, sizeof(on) - len,
					"%sh.%s = w.%s", len ? " AND " : "",
					c, c);
	snprintf(delete_sql, sizeof(delete_sql), "DELETE FROM %s WHERE rowid "
		 "IN (SELECT h.rowid FROM %s w JOIN %s h ON %s AND h.rowid < "
		 "w.rowid WHERE w.rowid > ?1 AND w.rowid <= ?2 AND w.t < ?3)",
		 x->table, x->table, x->table, on);
	sqlite3_stmt *w = NULL, *d = NULL;
	int64_t cursor = st->retain_cursor[k], end = cursor, n = -1;
	if (prepare(st, window_sql, &w) || prepare(st, delete_sql, &d))
		goto out;
	sqlite3_bind_int64(w, 1, cursor);
	sqlite3_bind_int64(w, 2, max_rows);
	/* The cursor stops before the first row at or after the cut: rows
	 * are in time order, the later ones wait for a later cut. */
	while (sqlite3_step(w) == SQLITE_ROW) {
		if (!(sqlite3_column_double(w, 1) < before_t))
			break;
		end = sqlite3_column_int64(w, 0);
	}
	sqlite3_finalize(w);
	w = NULL;
	n = 0;
	if (end == cursor)
		goto out;
	sqlite3_bind_int64(d, 1, cursor);
	sqlite3_bind_int64(d, 2, end);
	sqlite3_bind_double(d, 3, before_t);
	n = run(st, d);
	if (n >= 0)
		st->retain_cursor[k] = end;
out:
	sqlite3_finalize(w);
	sqlite3_finalize(d);
	return n;
}

int64_t store_retain(struct store *st, double before_t, uint64_t max_rows)
{
	if (!isfinite(before_t) || max_rows == 0)
		return 0;
	if (max_rows > INT64_MAX)
		max_rows = INT64_MAX;
	/* The first call prepares the statements (kept for the store's
	 * life) and the series' indexes (once per file). */
	if (!st->retain_stmt[0]) {
		for (size_t k = 0; k < ARRAY_SIZE(in_force); k++) {
			char sql[200], *msg = NULL;
			snprintf(sql, sizeof(sql), "CREATE INDEX IF NOT EXISTS "
				 "%s ON %s(%s)", in_force[k].index,
				 in_force[k].table, in_force[k].series);
			if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) !=
			    SQLITE_OK) {
				snprintf(st->last_error,
					 sizeof(st->last_error), "%s",
					 msg ? msg : "SQLite error");
				sqlite3_free(msg);
				return -1;
			}
		}
		for (size_t i = 0; i < ARRAY_SIZE(plain_sql); i++)
			if (prepare(st, plain_sql[i], &st->retain_stmt[i])) {
				store_retain_finalize(st);  /* all or none */
				return -1;
			}
	}
	if (store_batch_begin(st))
		return -1;
	int64_t total = 0;
	for (size_t i = 0; i < ARRAY_SIZE(plain_sql); i++) {
		sqlite3_stmt *s = st->retain_stmt[i];
		sqlite3_bind_double(s, 1, before_t);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)max_rows);
		int64_t n = run(st, s);
		if (n < 0)
			return -1;
		total += n;
	}
	for (size_t k = 0; k < ARRAY_SIZE(in_force); k++) {
		int64_t n = in_force_retain(st, k, before_t,
					    (int64_t)max_rows);
		if (n < 0)
			return -1;
		total += n;
	}
	/* Give back free pages beyond what the next commits will reuse
	 * (only a file in auto_vacuum=INCREMENTAL can: new files are; an
	 * older file appended to reuses its free pages, which bounds it
	 * too). */
	if (total > 0 && st->incremental_vacuum) {
		int64_t free_pages = int_pragma(st, "PRAGMA freelist_count");
		int64_t pages = int_pragma(st, "PRAGMA page_count");
		int64_t keep = pages / 8 > RETAIN_FREE_KEEP ? pages / 8 :
			       RETAIN_FREE_KEEP;
		if (free_pages > keep) {
			sqlite3_stmt *s = NULL;
			if (prepare(st, "PRAGMA incremental_vacuum("
				    RETAIN_VACUUM_PAGES ")", &s) == 0) {
				while (sqlite3_step(s) == SQLITE_ROW)
					;
				sqlite3_finalize(s);
			}
		}
	}
	return total;
}

void store_retain_finalize(struct store *st)
{
	for (size_t i = 0; i < ARRAY_SIZE(st->retain_stmt); i++) {
		sqlite3_finalize(st->retain_stmt[i]);
		st->retain_stmt[i] = NULL;
	}
}
