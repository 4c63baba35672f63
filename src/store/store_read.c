/*
 * store_read.c - the readers of the recording file (store.h):
 * store_read_dataset() turns a file -- also one a recorder is still
 * writing -- into a dataset (series.h), in one read transaction;
 * store_check_integrity() runs SQLite's check.
 *
 * Samples are read by one of two readers: the serial one (any file; the
 * components and GPU figures) and the parallel scan of a one-target
 * recording (the footprint alone, READ_THREADS connections). Both expand
 * a row that stands for a run of equal samples (repeats, t_last; the
 * writer's folding, store_write.c) the same way, with folded_run_of() and
 * folded_run_time(). Samples out of time order are dropped, and a note
 * says how many.
 *
 * It never writes a row (a read-write open only lets SQLite recover the
 * WAL of a killed recorder) and does not analyse anything. Reading is
 * O(rows) plus O(log incarnations) per row, and O(r log r) for the r
 * readings of a source that had a reading collected late (a sort).
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common.h"
#include "readings.h"
#include "store_internal.h"
#include "units.h"

struct inc_map {
	int64_t id;
	size_t target;     /* index into the dataset's targets */
	uint32_t inc;      /* index into that series' incarnations */
	int64_t cgroup_id;
};

static double col_bytes(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return NAN;
	return (double)sqlite3_column_int64(s, i);
}

static double col_real(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(s, i);
}

static int open_read(const char *path, sqlite3 **db)
{
	/* Read-write open is not needed, but a read-only connection cannot
	 * recover a WAL left by a killed recorder when the -shm file is
	 * gone; open read-write when we may, read-only otherwise. */
	/* One thread uses the connection: no per-call mutex. */
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE |
				 SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_close(*db);
		*db = NULL;
		rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY |
				     SQLITE_OPEN_NOMUTEX, NULL);
	}
	if (rc != SQLITE_OK) {
		store_db_error(*db, "cannot open", path);
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, 5000);
	/* Pages are read with pread, not mapped: mapping is a little faster
	 * on 10^7 samples but puts the whole file in memtrend's own RSS
	 * (1.2 GB there), which a memory tool should not show. */
	sqlite3_exec(*db, "PRAGMA mmap_size=0", NULL, NULL, NULL);
	return 0;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s,
		   const char *path)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
		return error("'%s' is not a readable memtrend recording: %s",
			     path, sqlite3_errmsg(db));
	return 0;
}

static int read_targets(sqlite3 *db, const char *path, struct dataset *out,
			int64_t **target_ids)
{
	sqlite3_stmt *s;
	if (prepare(db, "SELECT id, kind, name FROM target ORDER BY id", &s,
		    path))
		return -1;
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(s, 1);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		char buf[512];
		if (kind && strcmp(kind, "child") == 0)
			snprintf(buf, sizeof(buf), "%s (child)", name);
		else if (kind && strcmp(kind, "tree") == 0)
			snprintf(buf, sizeof(buf), "%s (with children)", name);
		else if (kind && strcmp(kind, "group") == 0)
			snprintf(buf, sizeof(buf), "%s (group)", name);
		else
			snprintf(buf, sizeof(buf), "%s", name ? name : "?");
		xgrow((void **)target_ids, &cap, out->n_targets + 1,
		      sizeof(int64_t));
		(*target_ids)[out->n_targets] = sqlite3_column_int64(s, 0);
		dataset_add_target(out, buf)->group =
			kind && strcmp(kind, "group") == 0;
	}
	sqlite3_finalize(s);
	return 0;
}

static int read_incarnations(sqlite3 *db, const char *path,
			     struct dataset *out, const int64_t *target_ids,
			     struct inc_map **map, size_t *n_map)
{
	sqlite3_stmt *s;
	if (prepare(db, "SELECT id, target_id, pid, start_ticks, start_time, "
		    "comm, cmdline, cgroup_id FROM incarnation ORDER BY id",
		    &s, path))
		return -1;
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(s, 1);
		size_t ti;
		/* target_ids is NULL only when there is no target */
		for (ti = 0; target_ids && ti < out->n_targets; ti++)
			if (target_ids[ti] == tid)
				break;
		if (ti == out->n_targets)
			continue;
		struct series *se = &out->targets[ti];
		double start = sqlite3_column_type(s, 4) == SQLITE_NULL ? NAN :
			       sqlite3_column_double(s, 4);
		uint32_t inc = series_add_incarnation(se,
			sqlite3_column_int64(s, 2),
			(unsigned long long)sqlite3_column_int64(s, 3), start,
			(const char *)sqlite3_column_text(s, 5),
			(const char *)sqlite3_column_text(s, 6));
		xgrow((void **)map, &cap, *n_map + 1, sizeof(**map));
		(*map)[*n_map] = (struct inc_map){
			.id = sqlite3_column_int64(s, 0), .target = ti,
			.inc = inc, .cgroup_id = sqlite3_column_int64(s, 7)};
		(*n_map)++;
	}
	sqlite3_finalize(s);
	return 0;
}

/* Incarnation ids are dense and ascending in practice; look up by binary
 * search so a 10^7-row scan costs O(log k) per row. */
static const struct inc_map *inc_lookup(const struct inc_map *map, size_t n,
					int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (map[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && map[lo].id == id ? &map[lo] : NULL;
}

/* The sample table's rowid range, O(log n). False when it is empty or
 * implausibly large (more than 2^34 rows): then nothing is reserved. */
static bool sample_rowid_range(sqlite3 *db, sqlite3_int64 *lo,
			       sqlite3_int64 *hi)
{
	sqlite3_stmt *s;
	bool ok = false;
	if (sqlite3_prepare_v2(db, "SELECT min(rowid), max(rowid) FROM sample",
			       -1, &s, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*lo = sqlite3_column_int64(s, 0);
		*hi = sqlite3_column_int64(s, 1);
		ok = *hi >= *lo && *hi - *lo < ((sqlite3_int64)1 << 34);
	}
	sqlite3_finalize(s);
	return ok;
}

/* True when the file holds GPU figures (schema 3 and a GPU seen): only
 * then is sample.gpu read. One indexed probe, not a scan of sample. */
static bool has_gpu_data(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	bool yes = store_has_gpu_column(db) &&
		   sqlite3_prepare_v2(db, "SELECT 1 FROM gpu_sample LIMIT 1",
				      -1, &s, NULL) == SQLITE_OK &&
		   sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* True when the recording has allocation sites (record --sites). */
static bool has_sites(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	bool yes = sqlite3_prepare_v2(db, "SELECT 1 FROM site LIMIT 1", -1,
				      &s, NULL) == SQLITE_OK &&
		   sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* True when the recorder folded runs of equal samples into single rows
 * (meta.sample_runs): then every row must be expanded. */
static bool has_runs(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	bool yes = sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key = "
				      "'sample_runs'", -1, &s,
				      NULL) == SQLITE_OK &&
		   sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* ---- folded runs -------------------------------------------------------
 *
 * A row with repeats = k > 1 stands for k samples with its figures, at k
 * stamps evenly spaced from t to t_last (the recorder folds only samples
 * a constant step apart, so these are their stamps to a microsecond);
 * docs/schema.md. A row of one sample, or one whose t_last is missing or
 * not after t (never written), is one sample at t. Both readers expand
 * runs with these two, so their samples are the same to the bit.
 */
struct folded_run {
	double t, t_last, step;
	int64_t n;                 /* samples: 1 or repeats */
};

static struct folded_run folded_run_of(double t, double t_last,
				       int64_t repeats)
{
	struct folded_run r = {t, t_last, 0, 1};
	if (repeats > 1 && t_last > t) {
		r.n = repeats;
		r.step = (t_last - t) / (double)(repeats - 1);
	}
	return r;
}

/* The stamp of sample j, 0 <= j < r->n: the first and last exact. */
static double folded_run_time(const struct folded_run *r, int64_t j)
{
	return j == 0 ? r->t : j == r->n - 1 ? r->t_last :
	       r->t + r->step * (double)j;
}

/* Append row's sample to se, or the samples of the run it stands for.
 * Returns the index of the first point appended. */
static size_t append_run(struct series *se, double t, double fp,
			 uint32_t inc, int64_t repeats, double t_last)
{
	struct folded_run r = folded_run_of(t, t_last, repeats);
	size_t first = series_append(se, t, fp, inc);
	for (int64_t j = 1; j < r.n; j++)
		series_append(se, folded_run_time(&r, j), fp, inc);
	return first;
}

/* Every sample into its series; last_rowid[k] (n_targets entries, 0
 * before): the rowid of target k's latest row read. */
static int read_samples(sqlite3 *db, const char *path, struct dataset *out,
			const struct inc_map *map, size_t n_map,
			bool components, bool gpu, bool runs,
			sqlite3_int64 *last_rowid)
{
	sqlite3_stmt *s;
	char sql[384];
	/* Columns 3.. are the components in enum order up to swap_pss, then
	 * gpu; without components, gpu alone is column 3; the run's repeats
	 * and t_last, then the rowid. */
	snprintf(sql, sizeof(sql), "SELECT incarnation_id, t, footprint%s%s%s, "
		 "rowid FROM sample ORDER BY rowid", components ?
		 ", rss, anon, file, shmem, swap, pagetables, pss, pss_anon, "
		 "private_dirty, swap_pss" : "", gpu ? ", gpu" : "",
		 runs ? ", repeats, t_last" : "");
	const int gpu_col = components ? 3 + COMP_GPU : 3;
	const int run_col = gpu_col + (gpu ? 1 : 0);
	const int rowid_col = run_col + (runs ? 2 : 0);
	/* One target (the common case): its size is known up front from the
	 * rowid range, so the arrays are allocated once. */
	sqlite3_int64 lo, hi;
	if (out->n_targets == 1 && sample_rowid_range(db, &lo, &hi))
		series_reserve(&out->targets[0], (size_t)(hi - lo + 1));
	if (prepare(db, sql, &s, path))
		return -1;
	const struct inc_map *last = NULL;
	int rc;
	size_t skipped = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (!last || last->id != id)
			last = inc_lookup(map, n_map, id);
		if (!last)
			continue;
		struct series *se = &out->targets[last->target];
		double t = sqlite3_column_double(s, 1);
		int64_t repeats = runs ? sqlite3_column_int64(s, run_col) : 1;
		double t_last = runs && sqlite3_column_type(s, run_col + 1) !=
			SQLITE_NULL ? sqlite3_column_double(s, run_col + 1) : t;
		/* A recording is input too: a time the recorder never writes
		 * (inf, NaN: an edited or damaged file) is refused with its
		 * row, not carried into the analyses' invariants. */
		if (!isfinite(t) || !isfinite(t_last)) {
			long long rowid = (long long)sqlite3_column_int64(
				s, rowid_col);
			sqlite3_finalize(s);
			return error("'%s': sample row %lld has the time %g: "
				     "not a time memtrend writes (the "
				     "recording was edited or damaged)", path,
				     rowid, isfinite(t) ? t_last : t);
		}
		if (se->n && t < se->t[se->n - 1]) {
			skipped++;  /* clock stepped back: keep order */
			continue;
		}
		size_t i0 = append_run(se, t, col_bytes(s, 2), last->inc,
				       repeats, t_last);
		/* rows come in rowid order: the later wins */
		last_rowid[last->target] = sqlite3_column_int64(s, rowid_col);
		for (size_t i = i0; i < se->n; i++) {
			if (components)
				for (int c = 0; c < COMP_GPU; c++) {
					double v = col_bytes(s, 3 + c);
					if (!isnan(v))
						series_set_component(se, c, i,
								     v);
				}
			if (gpu) {
				double v = col_bytes(s, gpu_col);
				if (!isnan(v))
					series_set_component(se, COMP_GPU, i,
							     v);
			}
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return error("cannot read samples from '%s': %s", path,
			     sqlite3_errmsg(db));
	if (skipped) {
		char buf[128];
		snprintf(buf, sizeof(buf), "%zu samples out of time order "
			 "were skipped", skipped);
		dataset_add_note(out, buf);
	}
	return 0;
}

/* ---- parallel scan of a one-target recording -------------------------
 *
 * A report of 10^7 samples spends most of its time stepping SQLite through
 * the sample table and faulting in the arrays it fills. With one target
 * (the common case) every row belongs to it and rowids are dense (rows are
 * only ever appended), so row r goes to slot r - min_rowid: the rowid
 * range is cut in READ_THREADS parts, each read by its own connection
 * into its own part of the series' arrays. Slots no row filled (a gap in
 * rowids) and rows out of time order are dropped in one pass afterwards.
 * A row that stands for a run of equal samples (repeats > 1) takes one
 * slot like any other; the runs, listed through the partial index
 * sample_run (no scan), are expanded afterwards in one backward pass over
 * the arrays (a recording of a changing process has few runs, one of a
 * still one few rows).
 */
#define READ_THREADS 2
#define PARALLEL_MIN_ROWS 200000

/* A row of the scan that stands for `repeats` samples up to t_last. */
struct scan_run {
	sqlite3_int64 rowid;
	int64_t repeats;
	double t_last;
};

struct scan_part {
	const char *path;
	sqlite3_int64 first, last;   /* rowid range, inclusive */
	sqlite3_int64 base;          /* rowid of slot 0 */
	const struct inc_map *map;
	size_t n_map;
	struct series *se;
	/* Runs among its rows (rowid order), and the extra samples of the
	 * runs before its first row: row r's first sample goes to slot
	 * r - base + the extra samples of the runs before r. */
	const struct scan_run *run;
	size_t n_run;
	size_t extra_before;
	size_t slot_first, slot_end; /* its slots: [first, end) */
	bool clean;                  /* every slot filled, in time order */
	int rc;
	char err[256];
	bool bad_input;            /* err says what is wrong with a row */
};

static void *scan_part_run(void *arg)
{
	struct scan_part *p = arg;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	p->rc = -1;
	if (open_read(p->path, &db)) {
		snprintf(p->err, sizeof(p->err), "cannot open it again");
		return NULL;
	}
	if (sqlite3_prepare_v2(db, "SELECT rowid, incarnation_id, t, footprint "
			       "FROM sample WHERE rowid BETWEEN ?1 AND ?2",
			       -1, &s, NULL) != SQLITE_OK) {
		snprintf(p->err, sizeof(p->err), "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(s, 1, p->first);
	sqlite3_bind_int64(s, 2, p->last);
	/* Slots start as "no row here"; each thread faults in its own part
	 * of the arrays, so that work is split too. */
	struct series *se = p->se;
	for (size_t k = p->slot_first; k < p->slot_end; k++)
		se->t[k] = NAN;
	const struct inc_map *last = NULL;
	size_t ri = 0, extra = p->extra_before;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 rowid = sqlite3_column_int64(s, 0);
		/* runs whose rows are missing (none should be) still count */
		while (ri < p->n_run && p->run[ri].rowid < rowid)
			extra += (size_t)(p->run[ri++].repeats - 1);
		size_t slot = (size_t)(rowid - p->base) + extra;
		const struct scan_run *r = ri < p->n_run &&
			p->run[ri].rowid == rowid ? &p->run[ri] : NULL;
		int64_t id = sqlite3_column_int64(s, 1);
		if (!last || last->id != id)
			last = inc_lookup(p->map, p->n_map, id);
		if (last) {
			double t = sqlite3_column_double(s, 2);
			double t_end = r ? r->t_last : t;
			if (!isfinite(t) || !isfinite(t_end)) {
				snprintf(p->err, sizeof(p->err), "sample row "
					 "%lld has the time %g: not a time "
					 "memtrend writes (the recording was "
					 "edited or damaged)", (long long)rowid,
					 isfinite(t) ? t_end : t);
				p->bad_input = true;
				goto out;
			}
			double fp = col_bytes(s, 3);
			struct folded_run fr = folded_run_of(t,
				r ? r->t_last : t, r ? r->repeats : 1);
			/* a run's samples (slots the run leaves unfilled
			 * stay NAN, dropped later) */
			for (int64_t j = 0; j < fr.n; j++) {
				se->t[slot + j] = folded_run_time(&fr, j);
				se->footprint[slot + j] = fp;
				se->inc[slot + j] = last->inc;
			}
		}  /* else: its slots stay NAN, dropped later */
		if (r)
			extra += (size_t)(p->run[ri++].repeats - 1);
	}
	if (rc != SQLITE_DONE) {
		snprintf(p->err, sizeof(p->err), "%s", sqlite3_errmsg(db));
		goto out;
	}
	p->clean = true;
	const double *t = se->t;
	for (size_t k = p->slot_first; k < p->slot_end; k++)
		if (isnan(t[k]) || (k > p->slot_first && t[k] < t[k - 1])) {
			p->clean = false;
			break;
		}
	p->rc = 0;
out:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return NULL;
}

/* Returns 1 when it did the read, 0 when the caller should read serially,
 * -1 on error. */
static int scan_run_cmp(const void *a, const void *b)
{
	sqlite3_int64 x = ((const struct scan_run *)a)->rowid,
		      y = ((const struct scan_run *)b)->rowid;
	return (x > y) - (x < y);
}

/* The rows standing for runs in [base, hi], in rowid order; -1 on
 * error. Through the partial index (left to itself, SQLite
 * prefers a scan of the whole table in rowid order), sorted here. */
static ssize_t runs_list(sqlite3 *db, sqlite3_int64 base, sqlite3_int64 hi,
			 struct scan_run **out)
{
	sqlite3_stmt *s;
	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT rowid, repeats, t_last FROM sample "
			       "INDEXED BY sample_run WHERE repeats > 1", -1,
			       &s, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT rowid, repeats, t_last FROM sample "
			       "WHERE repeats > 1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	size_t n = 0, cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		sqlite3_int64 rowid = sqlite3_column_int64(s, 0);
		if (rowid < base || rowid > hi ||
		    sqlite3_column_type(s, 2) == SQLITE_NULL)
			continue;  /* appended since the range was taken */
		xgrow((void **)out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct scan_run){rowid,
			sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2)};
	}
	sqlite3_finalize(s);
	if (n > 1)
		qsort(*out, n, sizeof(**out), scan_run_cmp);
	return (ssize_t)n;
}

static int read_samples_parallel(sqlite3 *db, const char *path,
				 struct dataset *out,
				 const struct inc_map *map, size_t n_map,
				 bool runs)
{
	sqlite3_int64 lo, hi;
	if (out->n_targets != 1 || !sample_rowid_range(db, &lo, &hi))
		return 0;
	sqlite3_int64 rows = hi - lo + 1;
	if (rows < PARALLEL_MIN_ROWS)
		return 0;
	/* The runs first (few rows, through their index): every row's slot
	 * is then known, and the arrays are sized once for every sample. */
	struct scan_run *run = NULL;
	ssize_t n_run = runs ? runs_list(db, lo, hi, &run) : 0;
	if (n_run < 0)
		return error("cannot read samples from '%s': %s", path,
			     sqlite3_errmsg(db));
	size_t extra = 0;
	for (ssize_t k = 0; k < n_run; k++)
		extra += (size_t)(run[k].repeats - 1);
	size_t total = (size_t)rows + extra;
	struct series *se = &out->targets[0];
	assert(se->n == 0);
	series_reserve(se, total);
	struct scan_part parts[READ_THREADS];
	pthread_t th[READ_THREADS] = {0};
	bool started[READ_THREADS] = {false};
	sqlite3_int64 per = rows / READ_THREADS + 1;
	size_t ri = 0, extra_before = 0;
	for (int i = 0; i < READ_THREADS; i++) {
		sqlite3_int64 first = lo + i * per;
		sqlite3_int64 last = first + per - 1 < hi ? first + per - 1 : hi;
		size_t r0 = ri, e0 = extra_before;
		while (run && ri < (size_t)n_run && run[ri].rowid <= last)
			extra_before += (size_t)(run[ri++].repeats - 1);
		parts[i] = (struct scan_part){
			.path = path, .first = first, .last = last, .base = lo,
			.map = map, .n_map = n_map, .se = se,
			.run = run ? run + r0 : NULL, .n_run = ri - r0,
			.extra_before = e0,
			.slot_first = first <= last ?
				(size_t)(first - lo) + e0 : 0,
			.slot_end = first <= last ?
				(size_t)(last - lo) + 1 + extra_before : 0,
			.rc = -1};
		started[i] = first <= last &&
			     pthread_create(&th[i], NULL, scan_part_run,
					    &parts[i]) == 0;
		if (first <= last && !started[i])
			scan_part_run(&parts[i]);  /* no thread: do it here */
	}
	int rc = 1;
	for (int i = 0; i < READ_THREADS; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (parts[i].first <= parts[i].last && parts[i].rc) {
			if (parts[i].bad_input)
				error("'%s': %s", path, parts[i].err);
			else
				error("cannot read samples from '%s': %s", path,
				      parts[i].err);
			rc = -1;
		}
	}
	free(run);
	if (rc < 0)
		return -1;
	bool clean = true;
	for (int i = 0; i < READ_THREADS; i++) {
		struct scan_part *p = &parts[i];
		if (p->first > p->last)
			continue;
		if (!p->clean || (i > 0 && p->slot_first > 0 &&
				  se->t[p->slot_first] <
				  se->t[p->slot_first - 1]))
			clean = false;
	}
	if (clean) {
		se->n = total;
		return 1;
	}
	/* Compact: drop empty slots and rows that go back in time. */
	size_t n = 0, skipped = 0;
	for (size_t k = 0; k < total; k++) {
		if (isnan(se->t[k]))
			continue;
		if (n && se->t[k] < se->t[n - 1]) {
			skipped++;
			continue;
		}
		se->t[n] = se->t[k];
		se->footprint[n] = se->footprint[k];
		se->inc[n] = se->inc[k];
		n++;
	}
	se->n = n;
	if (skipped) {
		char buf[128];
		snprintf(buf, sizeof(buf), "%zu samples out of time order "
			 "were skipped", skipped);
		dataset_add_note(out, buf);
	}
	return 1;
}

/*
 * Each target's latest resident figures (series.h: series_resident): the
 * row of rowid last_rowid[k] for target k (0: none), one lookup by rowid
 * each; after the parallel scan (one target, its rows the whole table),
 * the last row of the table. Rows are only ever appended, so a target's
 * highest rowid is its latest sample. The scans themselves read no more
 * columns for it (five more per row cost a host recording's report ~40 %
 * of its read time). A failure leaves the figures NAN (no error: they are
 * shown beside the footprint, nothing depends on them).
 */
static void read_last_resident(sqlite3 *db, struct dataset *out,
			       const sqlite3_int64 *last_rowid, bool runs)
{
	sqlite3_stmt *s;
	/* t_last exists only where the recorder folds runs (older files
	 * have no such column: their last row's own time) */
	if (sqlite3_prepare_v2(db, runs ?
			       "SELECT t, t_last, rss, anon, file, shmem, "
			       "swap FROM sample WHERE rowid = coalesce(?1, "
			       "(SELECT max(rowid) FROM sample))" :
			       "SELECT t, NULL, rss, anon, file, shmem, "
			       "swap FROM sample WHERE rowid = coalesce(?1, "
			       "(SELECT max(rowid) FROM sample))", -1, &s,
			       NULL) != SQLITE_OK)
		return;
	for (size_t k = 0; k < out->n_targets; k++) {
		struct series *se = &out->targets[k];
		if (!se->n || (last_rowid && !last_rowid[k]))
			continue;
		sqlite3_reset(s);
		if (last_rowid)
			sqlite3_bind_int64(s, 1, last_rowid[k]);
		else
			sqlite3_bind_null(s, 1);
		if (sqlite3_step(s) != SQLITE_ROW)
			continue;
		double t = sqlite3_column_type(s, 1) != SQLITE_NULL ?
			   sqlite3_column_double(s, 1) :
			   sqlite3_column_double(s, 0);
		se->resident = (struct series_resident){
			.t = isfinite(t) ? t : se->t[se->n - 1],
			.rss = col_bytes(s, 2), .anon = col_bytes(s, 3),
			.file = col_bytes(s, 4), .shmem = col_bytes(s, 5),
			.swap = col_bytes(s, 6)};
	}
	sqlite3_finalize(s);
}

/* Limits and system figures: the latest known values. */
static void read_limits(sqlite3 *db, struct dataset *out,
			const struct inc_map *map, size_t n_map)
{
	sqlite3_stmt *s;
	double mem_total = NAN, swap_total = NAN, swap_free = NAN,
	       avail = NAN;
	if (sqlite3_prepare_v2(db, "SELECT mem_total, swap_total, swap_free, "
			       "mem_available FROM system_sample "
			       "ORDER BY rowid DESC LIMIT 1", -1, &s,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		mem_total = col_bytes(s, 0);
		swap_total = col_bytes(s, 1);
		swap_free = col_bytes(s, 2);
		avail = col_bytes(s, 3);
	}
	sqlite3_finalize(s);
	for (size_t i = 0; i < out->n_targets; i++) {
		out->targets[i].mem_total = mem_total;
		out->targets[i].swap_total = swap_total;
		out->targets[i].swap_free_last = swap_free;
		out->targets[i].mem_available_last = avail;
	}
	if (sqlite3_prepare_v2(db, "SELECT max FROM cgroup_sample WHERE "
			       "cgroup_id = ?1 ORDER BY rowid DESC LIMIT 1",
			       -1, &s, NULL) != SQLITE_OK)
		return;
	/* A target's cgroup limit: that of its latest incarnation. */
	for (size_t k = 0; k < n_map; k++) {
		if (map[k].cgroup_id <= 0)
			continue;
		sqlite3_bind_int64(s, 1, map[k].cgroup_id);
		if (sqlite3_step(s) == SQLITE_ROW)
			out->targets[map[k].target].cgroup_limit =
				col_bytes(s, 0);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
}

/* ---- figures from outside /proc (schema 2) ---------------------------
 *
 * Source readings are kept and attached by model/readings.h's rules (the
 * same as a recording kept in memory: record/sink_dataset.c).
 */
struct source_rows {
	int64_t id, target_id;     /* target_id 0: every target */
	struct readings r;
};

static int read_sources(sqlite3 *db, const char *path, struct dataset *out,
			const int64_t *target_ids)
{
	sqlite3_stmt *s;
	/* A schema 1 file has no source table: nothing to attach. */
	if (sqlite3_prepare_v2(db, "SELECT id, role, name, target_id FROM "
			       "source ORDER BY id", -1, &s, NULL) != SQLITE_OK)
		return 0;
	struct source_rows *src = NULL;
	size_t n_src = 0, cap_src = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		xgrow((void **)&src, &cap_src, n_src + 1, sizeof(*src));
		struct source_rows *r = &src[n_src++];
		r->id = sqlite3_column_int64(s, 0);
		readings_init(&r->r, (const char *)sqlite3_column_text(s, 1),
			      (const char *)sqlite3_column_text(s, 2));
		r->target_id = sqlite3_column_int64(s, 3);
	}
	sqlite3_finalize(s);
	int rc = 0;
	if (n_src && prepare(db, "SELECT source_id, t, value FROM "
			     "source_sample ORDER BY rowid", &s, path) == 0) {
		struct source_rows *last = NULL;
		int step;
		while ((step = sqlite3_step(s)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(s, 0);
			if (!last || last->id != id) {
				last = NULL;
				for (size_t k = 0; k < n_src; k++)
					if (src[k].id == id)
						last = &src[k];
				if (!last)
					continue;
			}
			double t = sqlite3_column_double(s, 1);
			if (!isfinite(t)) {
				rc = error("'%s': a work or gauge reading has "
					   "the time %g: not a time memtrend "
					   "writes (the recording was edited "
					   "or damaged)", path, t);
				step = SQLITE_DONE;
				break;
			}
			readings_add(&last->r, t,
					sqlite3_column_type(s, 2) ==
					SQLITE_NULL ? NAN :
					sqlite3_column_double(s, 2));
		}
		sqlite3_finalize(s);
		if (step != SQLITE_DONE)
			rc = error("cannot read work and gauge figures from "
				   "'%s': %s", path, sqlite3_errmsg(db));
	} else if (n_src) {
		rc = -1;
	}
	/* A source of target T applies to T and to the targets under it
	 * (its children and their sum). */
	int64_t *parents = xcalloc(out->n_targets ? out->n_targets : 1,
				   sizeof(*parents));
	if (!rc && sqlite3_prepare_v2(db, "SELECT id, parent_id FROM target",
				      -1, &s, NULL) == SQLITE_OK) {
		while (sqlite3_step(s) == SQLITE_ROW)
			for (size_t ti = 0; ti < out->n_targets; ti++)
				if (target_ids[ti] ==
				    sqlite3_column_int64(s, 0))
					parents[ti] =
						sqlite3_column_int64(s, 1);
		sqlite3_finalize(s);
	}
	for (size_t k = 0; !rc && k < n_src; k++)
		for (size_t ti = 0; ti < out->n_targets; ti++)
			if (!src[k].target_id ||
			    src[k].target_id == target_ids[ti] ||
			    src[k].target_id == parents[ti])
				readings_attach(&src[k].r, &out->targets[ti]);
	free(parents);
	for (size_t k = 0; k < n_src; k++)
		readings_release(&src[k].r);
	free(src);
	return rc;
}

/* Region snapshots (record --regions): per target, the first and the
 * last snapshot of the latest incarnation that has any. A schema 1 file,
 * or one recorded without --regions, has none. */
static void read_regions(sqlite3 *db, struct dataset *out,
			 const struct inc_map *map, size_t n_map)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "SELECT incarnation_id, t, family, size, "
			       "rss, pss, private_dirty, swap, footprint, "
			       "mappings, top FROM region_snapshot ORDER BY "
			       "rowid", -1, &s, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const struct inc_map *m = inc_lookup(map, n_map,
						     sqlite3_column_int64(s, 0));
		const char *fam = (const char *)sqlite3_column_text(s, 2);
		if (!m || !fam)
			continue;
		struct series_region_row r = {
			.family = fam,
			.size = col_bytes(s, 3), .rss = col_bytes(s, 4),
			.pss = col_bytes(s, 5), .private_dirty = col_bytes(s, 6),
			.swap = col_bytes(s, 7), .footprint = col_bytes(s, 8),
			.mappings = sqlite3_column_int64(s, 9),
			.top = (const char *)sqlite3_column_text(s, 10),
		};
		series_add_region_row(&out->targets[m->target], m->inc,
				      sqlite3_column_double(s, 1), &r);
	}
	sqlite3_finalize(s);
}

/* Allocation sites (record --sites, docs/sites.md): each site with its
 * frames, then its rows (written when the value changed), then the
 * shim's latest figures per target. A file recorded without --sites (or
 * before it existed) has no site table: nothing to read. */
static char *col_dup(sqlite3_stmt *s, int i)
{
	const char *v = (const char *)sqlite3_column_text(s, i);
	return v ? xstrdup(v) : NULL;
}

static void read_sites(sqlite3 *db, struct dataset *out,
		       const struct inc_map *map, size_t n_map)
{
	sqlite3_stmt *s, *f;
	if (sqlite3_prepare_v2(db, "SELECT id, incarnation_id FROM site "
			       "ORDER BY id", -1, &s, NULL) != SQLITE_OK)
		return;
	if (sqlite3_prepare_v2(db, "SELECT address, module, build_id, "
			       "offset, function, file, line FROM site_frame "
			       "WHERE site_id = ?1 ORDER BY depth", -1, &f,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return;
	}
	/* site id -> (target, index): ids ascend, so a sorted array */
	struct site_ref { int64_t id; size_t target, index; } *refs = NULL;
	size_t n_refs = 0, cap_refs = 0;
	struct series_site_frame frames[64];
	while (sqlite3_step(s) == SQLITE_ROW) {
		const struct inc_map *m = inc_lookup(map, n_map,
						     sqlite3_column_int64(s, 1));
		if (!m)
			continue;
		int64_t id = sqlite3_column_int64(s, 0);
		sqlite3_bind_int64(f, 1, id);
		size_t n = 0;
		while (n < ARRAY_SIZE(frames) && sqlite3_step(f) == SQLITE_ROW) {
			/* a row's texts are SQLite's until the next step */
			frames[n] = (struct series_site_frame){
				.address = (uint64_t)sqlite3_column_int64(f, 0),
				.module = col_dup(f, 1),
				.build_id = col_dup(f, 2),
				.offset = (uint64_t)sqlite3_column_int64(f, 3),
				.function = col_dup(f, 4),
				.file = col_dup(f, 5),
				.line = sqlite3_column_int(f, 6),
			};
			n++;
		}
		sqlite3_reset(f);
		struct series *se = &out->targets[m->target];
		size_t idx = series_add_site(se, id, m->inc, frames, n);
		for (size_t k = 0; k < n; k++) {
			free(frames[k].module);
			free(frames[k].build_id);
			free(frames[k].function);
			free(frames[k].file);
		}
		xgrow((void **)&refs, &cap_refs, n_refs + 1, sizeof(*refs));
		refs[n_refs++] = (struct site_ref){id, m->target, idx};
	}
	sqlite3_finalize(f);
	sqlite3_finalize(s);
	/* var: a file from before it has none (NULL: not recorded) */
	if (n_refs && (sqlite3_prepare_v2(db, "SELECT site_id, t, live, var "
					  "FROM site_sample ORDER BY rowid",
					  -1, &s, NULL) == SQLITE_OK ||
		       sqlite3_prepare_v2(db, "SELECT site_id, t, live, NULL "
					  "FROM site_sample ORDER BY rowid",
					  -1, &s, NULL) == SQLITE_OK)) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(s, 0);
			size_t lo = 0, hi = n_refs;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (refs[mid].id < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			double t = sqlite3_column_double(s, 1);
			if (lo == n_refs || refs[lo].id != id || !isfinite(t))
				continue;
			struct series_site *x =
				&out->targets[refs[lo].target]
					 .sites[refs[lo].index];
			if (x->n && t < x->t[x->n - 1])
				continue; /* out of order: an edited file */
			series_site_add_row(x, t, col_bytes(s, 2),
					    col_real(s, 3));
		}
		sqlite3_finalize(s);
	}
	free(refs);
	if (sqlite3_prepare_v2(db, "SELECT incarnation_id, rate, depth, "
			       "sampled, dropped_sites, dropped_live, "
			       "backtrace_s FROM site_stats ORDER BY rowid",
			       -1, &s, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const struct inc_map *m = inc_lookup(map, n_map,
						     sqlite3_column_int64(s, 0));
		if (!m)
			continue;
		out->targets[m->target].site_stats = (struct series_site_stats){
			.recorded = true, .inc = m->inc,
			.rate = sqlite3_column_double(s, 1),
			.depth = sqlite3_column_double(s, 2),
			.sampled = col_bytes(s, 3),
			.dropped_sites = col_bytes(s, 4),
			.dropped_live = col_bytes(s, 5),
			.backtrace_s = sqlite3_column_double(s, 6),
		};
	}
	sqlite3_finalize(s);
}

/* One NVML row of a process's memory on one device (issue 28). */
struct gpu_dev_row {
	size_t target;
	uint32_t inc;
	unsigned dev;
	size_t order;      /* rowid order: rows of one device stay in it */
	double t, v;
};

static int gpu_dev_row_cmp(const void *a, const void *b)
{
	const struct gpu_dev_row *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* NVML region "device<N>" -> N; the region "device" of files written
 * before issue 28 (the sum over devices) is device 0 when the machine had
 * only one. -1: not a device kept apart. */
static int gpu_dev_of(const char *src, const char *reg, size_t n_nvml)
{
	if (strcmp(src, "nvml") != 0 || strncmp(reg, "device", 6) != 0)
		return -1;
	if (!reg[6])
		return n_nvml == 1 ? 0 : -1;
	char *end;
	unsigned long d = strtoul(reg + 6, &end, 10);
	return *end || d >= SERIES_GPU_DEVICES ? -1 : (int)d;
}

/* Each (target, device)'s rows onto the target's points as component
 * COMP_GPU0 + device: a row's figure holds from its stamp until the
 * next row of the device, within its incarnation. One merge pass per
 * (target, device) after one sort: O(points + rows log rows), whatever
 * the number of rows (a process that grows writes one at every sample). */
static void gpu_dev_fill(struct dataset *out, struct gpu_dev_row *rows,
			 size_t n)
{
	qsort(rows, n, sizeof(*rows), gpu_dev_row_cmp);
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b < n && rows[b].target == rows[a].target &&
		       rows[b].dev == rows[a].dev)
			b++;
		struct series *s = &out->targets[rows[a].target];
		enum series_component c = (enum series_component)(COMP_GPU0 +
								  rows[a].dev);
		size_t r = a;
		bool have = false;
		for (size_t i = 0; i < s->n; i++) {
			while (r < b && rows[r].t <= s->t[i]) {
				r++;
				have = true;
			}
			const struct gpu_dev_row *w = have ? &rows[r - 1] : NULL;
			if (w && !isnan(w->v) &&
			    (!s->n_incs || s->inc[i] == w->inc))
				series_set_component(s, c, i, w->v);
		}
		a = b;
	}
}

/* GPU memory (schema 3): per target, the first and last reading of each
 * region of the latest incarnation that has any, and (issue 28) NVML's
 * per-device rows as components; per device, the latest reading and its
 * name (meta gpu_name_N), which every target gets as its limits.
 * Rows are few (one per region per sample of a GPU process). */
static void read_gpu(sqlite3 *db, struct dataset *out,
		     const struct inc_map *map, size_t n_map)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "SELECT source, device, t, total, used "
			       "FROM gpu_device WHERE rowid IN (SELECT "
			       "max(rowid) FROM gpu_device GROUP BY source, "
			       "device) ORDER BY source, device", -1, &s,
			       NULL) == SQLITE_OK) {
		size_t cap = 0;
		while (sqlite3_step(s) == SQLITE_ROW) {
			xgrow((void **)&out->gpu_devices, &cap,
			      out->n_gpu_devices + 1,
			      sizeof(*out->gpu_devices));
			struct dataset_gpu_device *g =
				&out->gpu_devices[out->n_gpu_devices++];
			memset(g, 0, sizeof(*g));
			const char *src = (const char *)sqlite3_column_text(s, 0);
			snprintf(g->source, sizeof(g->source), "%s",
				 src ? src : "?");
			g->index = (unsigned)sqlite3_column_int64(s, 1);
			g->t = sqlite3_column_double(s, 2);
			g->total = col_bytes(s, 3);
			g->used = col_bytes(s, 4);
		}
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta WHERE key "
			       "LIKE 'gpu_name_%'", -1, &s, NULL) == SQLITE_OK)
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(s, 0);
			const char *v = (const char *)sqlite3_column_text(s, 1);
			char *end;
			unsigned long d = k ? strtoul(k + 9, &end, 10) : 0;
			for (size_t i = 0; k && v && !*end &&
			     i < out->n_gpu_devices; i++)
				if (strcmp(out->gpu_devices[i].source,
					   "nvml") == 0 &&
				    out->gpu_devices[i].index == d)
					snprintf(out->gpu_devices[i].name,
						 sizeof(out->gpu_devices[i].name),
						 "%s", v);
		}
	sqlite3_finalize(s);
	size_t n_nvml = 0;
	for (size_t i = 0; i < out->n_gpu_devices; i++)
		n_nvml += strcmp(out->gpu_devices[i].source, "nvml") == 0;

	struct gpu_dev_row *rows = NULL;
	size_t n_rows = 0, cap = 0;
	if (sqlite3_prepare_v2(db, "SELECT incarnation_id, t, source, region, "
			       "kind, resident FROM gpu_sample ORDER BY rowid",
			       -1, &s, NULL) == SQLITE_OK) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			const struct inc_map *m = inc_lookup(map, n_map,
				sqlite3_column_int64(s, 0));
			const char *src = (const char *)sqlite3_column_text(s, 2);
			const char *reg = (const char *)sqlite3_column_text(s, 3);
			const char *kind = (const char *)sqlite3_column_text(s, 4);
			if (!m || !src || !reg || !kind)
				continue;
			double t = sqlite3_column_double(s, 1);
			double v = col_bytes(s, 5);
			series_add_gpu_row(&out->targets[m->target], m->inc,
					   t, src, reg, kind, v);
			int d = gpu_dev_of(src, reg, n_nvml);
			if (d < 0)
				continue;
			xgrow((void **)&rows, &cap, n_rows + 1, sizeof(*rows));
			rows[n_rows] = (struct gpu_dev_row){m->target, m->inc,
				(unsigned)d, n_rows, t, v};
			n_rows++;
		}
	}
	sqlite3_finalize(s);
	gpu_dev_fill(out, rows, n_rows);
	free(rows);
	/* Each device's figures are the limits of the targets on it. */
	for (size_t i = 0; i < out->n_gpu_devices; i++) {
		const struct dataset_gpu_device *g = &out->gpu_devices[i];
		if (strcmp(g->source, "nvml") != 0 ||
		    g->index >= SERIES_GPU_DEVICES)
			continue;
		for (size_t k = 0; k < out->n_targets; k++)
			if (out->targets[k].comp[COMP_GPU0 + g->index])
				series_set_gpu_limit(&out->targets[k], g->index,
						     g->total, g->used, g->name);
	}
}

static void read_meta_and_notes(sqlite3 *db, struct dataset *out)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
			       "'interval_s'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		out->interval_s = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
			       "'page_size'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		double q = sqlite3_column_double(s, 0);
		for (size_t i = 0; i < out->n_targets; i++) {
			out->targets[i].quantum = q;
			out->targets[i].quantum_exact = q > 0;
		}
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
			       "'gpu_sources'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		out->gpu_sources = xstrdup(
			(const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	/* record --retain: say that the window starts at the cut, not at
	 * the recording's start */
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
			       "'retain_s'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		double keep = sqlite3_column_double(s, 0);
		if (keep > 0) {
			char d[32], buf[160];
			units_format_duration(d, sizeof(d), keep);
			snprintf(buf, sizeof(buf), "recorded with --retain %s: "
				 "older samples were deleted as recording went "
				 "on; the window starts at that cut", d);
			dataset_add_note(out, buf);
		}
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT text FROM note ORDER BY "
			       "rowid LIMIT 100", -1, &s, NULL) == SQLITE_OK)
		while (sqlite3_step(s) == SQLITE_ROW)
			dataset_add_note(out,
				(const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

int store_read_dataset(const char *path, const struct store_read_options *o,
		       struct dataset *out)
{
	dataset_init(out, path);
	sqlite3 *db;
	if (open_read(path, &db))
		goto fail_nodb;
	if (store_check_schema_version(db, path))
		goto fail;
	/* One read transaction: a consistent snapshot even while a recorder
	 * appends to the file. */
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	int64_t *target_ids = NULL;
	struct inc_map *map = NULL;
	size_t n_map = 0;
	int rc = read_targets(db, path, out, &target_ids);
	if (!rc)
		rc = read_incarnations(db, path, out, target_ids, &map, &n_map);
	/* The parallel scan reads the footprint alone (runs expanded);
	 * components and GPU figures take the serial one. */
	bool gpu = has_gpu_data(db), runs = has_runs(db);
	bool components = o && (o->components || (o->components_with_sites &&
						   has_sites(db)));
	if (!rc)
		rc = components || gpu ? 0 :
		     read_samples_parallel(db, path, out, map, n_map, runs);
	sqlite3_int64 *last_rowid = xcalloc(out->n_targets + 1,
					    sizeof(*last_rowid));
	if (rc == 1) {
		rc = 0;
		assert(out->n_targets == 1);  /* its rows: the whole table */
		read_last_resident(db, out, NULL, runs);
	} else if (rc == 0) {
		rc = read_samples(db, path, out, map, n_map, components, gpu,
				  runs, last_rowid);
		if (!rc)
			read_last_resident(db, out, last_rowid, runs);
	}
	free(last_rowid);
	if (!rc)
		rc = read_sources(db, path, out, target_ids);
	if (!rc) {
		read_regions(db, out, map, n_map);
		read_sites(db, out, map, n_map);
		if (gpu)
			read_gpu(db, out, map, n_map);
		read_limits(db, out, map, n_map);
		read_meta_and_notes(db, out);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	free(target_ids);
	free(map);
	sqlite3_close(db);
	if (rc)
		goto fail_nodb;
	return 0;
fail:
	sqlite3_close(db);
fail_nodb:
	dataset_release(out);
	return -1;
}

int store_check_integrity(const char *path)
{
	sqlite3 *db;
	if (open_read(path, &db))
		return -1;
	sqlite3_stmt *s;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW) {
			const char *r = (const char *)sqlite3_column_text(s, 0);
			rc = r && strcmp(r, "ok") == 0 ? 0 : -1;
			if (rc)
				error("'%s': integrity check: %s", path,
				      r ? r : "?");
		}
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return rc;
}
