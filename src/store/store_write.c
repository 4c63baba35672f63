/*
 * store_write.c - the writer of the recording file (store.h): rows into
 * one open batch transaction, store_commit() and store_close(), and the
 * folding of runs of equal samples into one row (repeats, t_last).
 *
 * All SQL goes through prepared statements with bound parameters;
 * statements are prepared once per store (store_write_prepare(), called
 * by store_create()) and reused, so a sample costs one sqlite3_step()
 * inside the open batch -- or, inside a run, a comparison. Durability:
 * WAL with synchronous=NORMAL; a committed batch survives kill -9 of the
 * recorder (it is in the WAL, which the next opener recovers); only power
 * loss may drop the last batches, never corrupt the file. A commit holds
 * every sample given before it, the held runs included; a commit that
 * fails (disk full) rolls the batch back and says why in last_error.
 *
 * It does not decide when to commit (the recorder does), create or
 * migrate the file (store_schema.c), read it (store_read.c), or know
 * anything of analyses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "store_internal.h"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_META] = "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
	[ST_TARGET] = "INSERT INTO target(kind, spec, name, parent_id) "
		      "VALUES (?1, ?2, ?3, ?4)",
	[ST_CGROUP_FIND] = "SELECT id FROM cgroup WHERE key = ?1",
	[ST_CGROUP] = "INSERT INTO cgroup(key) VALUES (?1)",
	[ST_INC] = "INSERT INTO incarnation(target_id, pid, start_ticks, "
		   "start_time, comm, cmdline, cgroup_id, first_seen) "
		   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_INC_END] = "UPDATE incarnation SET last_seen = ?2, end_reason = ?3 "
		       "WHERE id = ?1",
	/* Columns named: a file upgraded from schema 2 has gpu last. */
	[ST_SAMPLE] = "INSERT INTO sample(incarnation_id, t, footprint, rss, "
		      "anon, file, shmem, swap, pagetables, pss, pss_anon, "
		      "private_dirty, swap_pss, gpu, repeats, t_last) VALUES "
		      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		      "?14, ?15, ?16)",
	[ST_SYSTEM] = "INSERT INTO system_sample VALUES "
		      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_CGROUP_SAMPLE] = "INSERT INTO cgroup_sample VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_NOTE] = "INSERT INTO note(t, incarnation_id, text) VALUES (?1, ?2, ?3)",
	[ST_SOURCE] = "INSERT INTO source(role, name, method, spec, target_id) "
		      "VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_SOURCE_SAMPLE] = "INSERT INTO source_sample VALUES (?1, ?2, ?3)",
	[ST_REGION] = "INSERT INTO region_snapshot VALUES "
		      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[ST_GPU] = "INSERT INTO gpu_sample VALUES "
		   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_GPU_DEVICE] = "INSERT INTO gpu_device VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_SITE] = "INSERT INTO site(incarnation_id, first_seen) "
		    "VALUES (?1, ?2)",
	[ST_SITE_FRAME] = "INSERT INTO site_frame VALUES "
			  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_SITE_SAMPLE] = "INSERT INTO site_sample(site_id, t, live, allocs, "
			   "var) VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_SITE_STATS] = "INSERT INTO site_stats VALUES "
			  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
};

/*
 * A run of equal samples of one incarnation: samples whose figures are all
 * the same as the one before, at stamps a constant step apart (the
 * recorder stamps on-time ticks with their deadlines, an exact arithmetic
 * sequence). It is held here and written as one row (repeats, t_last)
 * when a different sample comes, when the incarnation ends, or when the
 * batch commits; the reader gives each sample back its time. An idle
 * service's samples thus cost a comparison each instead of an INSERT, and
 * its recording a row per second instead of one per sample.
 */
struct sample_run {
	int64_t inc;
	double t, t_last, step;    /* step: NAN while repeats is 1 */
	int64_t repeats;           /* 0: no sample held */
	struct proc_mem mem;
};

/* Stamps of one run may stray from its step by this much (floating-point
 * rounding of the deadlines); anything else starts a new run. */
#define RUN_STEP_TOLERANCE_S 1e-6

/* Run one prepared statement to completion and reset it. A failure is
 * kept in last_error; loud ones (rare, structural writes) are also
 * printed, quiet ones (per-sample rows: a full disk would otherwise print
 * at every sample) are left to the caller's commit handling. If SQLite
 * rolled the whole transaction back, the batch is over. */
static int step_reset_as(struct store *st, sqlite3_stmt *s, bool loud)
{
	/* No sqlite3_clear_bindings(): every statement binds all of its
	 * parameters on every use (absent figures as NULL), which saves a
	 * call per row on the recorder's hot path. */
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	snprintf(st->last_error, sizeof(st->last_error), "%s",
		 sqlite3_errmsg(st->db));
	if (st->in_batch && sqlite3_get_autocommit(st->db))
		st->in_batch = false;
	if (loud)
		error("cannot write to '%s': %s", st->path, st->last_error);
	return -1;
}

static int step_reset(struct store *st, sqlite3_stmt *s)
{
	return step_reset_as(st, s, true);
}

/* Open the batch transaction lazily so every write lands inside one. */
static int batch_begin(struct store *st)
{
	if (st->in_batch)
		return 0;
	if (step_reset(st, st->stmt[ST_BEGIN]))
		return -1;
	st->in_batch = true;
	return 0;
}

int store_batch_begin(struct store *st) { return batch_begin(st); }

/* Bind a byte figure: NAN (absent) becomes NULL. */
static void bind_bytes(sqlite3_stmt *s, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, (sqlite3_int64)llround(v));
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, v);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* A reference to another row: its id, or NULL for 0 ("none"). */
static void bind_ref(sqlite3_stmt *s, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(s, i, id);
	else
		sqlite3_bind_null(s, i);
}

/* Step an INSERT that counts in the batch; its new rowid, or -1. */
static int64_t insert_row(struct store *st, sqlite3_stmt *s)
{
	st->pending++;
	if (step_reset(st, s))
		return -1;
	return sqlite3_last_insert_rowid(st->db);
}

/* A per-sample row: its statement with ?1 (the row it belongs to) and ?2
 * (its time) bound, inside the batch; NULL when the batch cannot begin. */
static sqlite3_stmt *row_begin(struct store *st, enum stmt_id id,
			       int64_t ref, double t)
{
	if (batch_begin(st))
		return NULL;
	sqlite3_stmt *s = st->stmt[id];
	sqlite3_bind_int64(s, 1, ref);
	sqlite3_bind_double(s, 2, t);
	return s;
}

/* Step it quietly (a full disk is reported at commit, not per row). */
static int row_end(struct store *st, sqlite3_stmt *s)
{
	st->pending++;
	return step_reset_as(st, s, false);
}

int store_write_prepare(struct store *st)
{
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1,
				       SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
				       NULL) != SQLITE_OK)
			return store_db_error(st->db, "cannot prepare "
					      "statements for", st->path);
	}
	return 0;
}

void store_write_finalize(struct store *st)
{
	store_retain_finalize(st);
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(st->stmt[i]);
		st->stmt[i] = NULL;
	}
}

static int runs_flush(struct store *st);

int store_commit(struct store *st)
{
	if (!st->in_batch)
		return 0;
	/* The held runs go into this batch: a commit holds every sample
	 * given before it. */
	if (runs_flush(st)) {
		/* A run's row could not be written (disk full): the batch
		 * must not commit without it. Roll it all back; last_error
		 * says why. */
		if (!sqlite3_get_autocommit(st->db)) {
			sqlite3_step(st->stmt[ST_ROLLBACK]);
			sqlite3_reset(st->stmt[ST_ROLLBACK]);
		}
		st->in_batch = false;
		st->pending = 0;
		return -1;
	}
	int rc = sqlite3_step(st->stmt[ST_COMMIT]);
	sqlite3_reset(st->stmt[ST_COMMIT]);
	if (rc != SQLITE_DONE) {
		/* Disk full or I/O error: roll back so the file stays as it
		 * was after the last good commit. The caller reports it (a
		 * recorder retrying every second should not print every
		 * second). */
		snprintf(st->last_error, sizeof(st->last_error), "%s",
			 sqlite3_errmsg(st->db));
		if (!sqlite3_get_autocommit(st->db)) {
			sqlite3_step(st->stmt[ST_ROLLBACK]);
			sqlite3_reset(st->stmt[ST_ROLLBACK]);
		}
		st->in_batch = false;
		st->pending = 0;
		return -1;
	}
	st->in_batch = false;
	st->pending = 0;
	return 0;
}

uint64_t store_pending(const struct store *st) { return st->pending; }

const char *store_last_error(const struct store *st)
{
	return st->last_error;
}

int store_close(struct store *st)
{
	if (!st)
		return 0;
	int rc = store_commit(st);
	if (rc)
		error("cannot save the last samples to '%s': %s", st->path,
		      st->last_error);
	store_write_finalize(st);
	free(st->runs);
	/* Fold the WAL back into the main file so the recording is one
	 * self-contained file once the recorder has ended. */
	if (rc == 0)
		sqlite3_wal_checkpoint_v2(st->db, NULL,
					  SQLITE_CHECKPOINT_TRUNCATE, NULL,
					  NULL);
	if (sqlite3_close(st->db) != SQLITE_OK)
		rc = store_db_error(st->db, "cannot close", st->path);
	free(st->path);
	free(st);
	return rc;
}

int store_meta_set(struct store *st, const char *key, const char *value)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_META];
	bind_text(s, 1, key);
	bind_text(s, 2, value);
	st->pending++;
	return step_reset(st, s);
}

/* With --append, the id of a row the same query finds (the first), else
 * 0. The query's parameters are bound by bind(). Not on a hot path: a
 * target or an incarnation is added once. */
static int64_t find_existing(struct store *st, const char *sql,
			     void (*bind)(sqlite3_stmt *, const void *),
			     const void *arg)
{
	if (!st->appending)
		return 0;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	bind(s, arg);
	int64_t id = sqlite3_step(s) == SQLITE_ROW ?
		     sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	return id;
}

struct target_key {
	const char *kind, *spec, *name;
	int64_t parent_id;
};

static void bind_target_key(sqlite3_stmt *s, const void *arg)
{
	const struct target_key *k = arg;
	bind_text(s, 1, k->kind);
	bind_text(s, 2, k->spec);
	bind_text(s, 3, k->name);
	sqlite3_bind_int64(s, 4, k->parent_id);
}

struct inc_key {
	int64_t target_id;
	const struct proc_identity *id;
};

static void bind_inc_key(sqlite3_stmt *s, const void *arg)
{
	const struct inc_key *k = arg;
	sqlite3_bind_int64(s, 1, k->target_id);
	sqlite3_bind_int64(s, 2, k->id->pid);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)k->id->start_ticks);
}

int64_t store_target_add(struct store *st, const char *kind,
			 const char *spec, const char *name,
			 int64_t parent_id)
{
	if (batch_begin(st))
		return -1;
	/* --append after a stop (or a kill -9): the same target goes on,
	 * not a second one beside it */
	struct target_key key = {kind, spec, name, parent_id};
	int64_t old = find_existing(st,
		"SELECT id FROM target WHERE kind = ?1 AND spec = ?2 AND "
		"name = ?3 AND coalesce(parent_id, 0) = ?4 ORDER BY id LIMIT 1",
		bind_target_key, &key);
	if (old > 0)
		return old;
	sqlite3_stmt *s = st->stmt[ST_TARGET];
	bind_text(s, 1, kind);
	bind_text(s, 2, spec);
	bind_text(s, 3, name);
	bind_ref(s, 4, parent_id);
	return insert_row(st, s);
}

int64_t store_cgroup_add(struct store *st, const char *key)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_CGROUP_FIND];
	bind_text(s, 1, key);
	int64_t id = 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (id > 0)
		return id;
	s = st->stmt[ST_CGROUP];
	bind_text(s, 1, key);
	return insert_row(st, s);
}

int64_t store_incarnation_add(struct store *st, int64_t target_id,
			      const struct proc_identity *id,
			      int64_t cgroup_id, double first_seen)
{
	if (batch_begin(st))
		return -1;
	/* --append: the same process, (pid, start time), continues its
	 * incarnation (it was never restarted); it is open again */
	struct inc_key key = {target_id, id};
	int64_t old = find_existing(st,
		"SELECT id FROM incarnation WHERE target_id = ?1 AND pid = ?2 "
		"AND start_ticks = ?3 ORDER BY id DESC LIMIT 1",
		bind_inc_key, &key);
	if (old > 0) {
		sqlite3_stmt *u;
		if (sqlite3_prepare_v2(st->db, "UPDATE incarnation SET "
				       "end_reason = NULL WHERE id = ?1", -1,
				       &u, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(u, 1, old);
			sqlite3_step(u);
			sqlite3_finalize(u);
		}
		return old;
	}
	sqlite3_stmt *s = st->stmt[ST_INC];
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int64(s, 2, id->pid);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)id->start_ticks);
	bind_real(s, 4, id->start_time);
	bind_text(s, 5, id->comm);
	bind_text(s, 6, id->cmdline);
	bind_ref(s, 7, cgroup_id);
	sqlite3_bind_double(s, 8, first_seen);
	return insert_row(st, s);
}

static void run_end(struct store *st, int64_t inc_id);

int store_incarnation_end(struct store *st, int64_t inc_id, double last_seen,
			  const char *reason)
{
	run_end(st, inc_id);
	sqlite3_stmt *s = row_begin(st, ST_INC_END, inc_id, last_seen);
	if (!s)
		return -1;
	bind_text(s, 3, reason);
	st->pending++;
	return step_reset(st, s);
}

/* Write one sample row: x's figures, standing for `repeats` samples from
 * x->t to t_last when repeats > 1. */
static int sample_write(struct store *st, const struct store_sample *x,
			int64_t repeats, double t_last)
{
	sqlite3_stmt *s = st->stmt[ST_SAMPLE];
	sqlite3_bind_int64(s, 1, x->incarnation_id);
	sqlite3_bind_double(s, 2, x->t);
	bind_bytes(s, 3, x->mem.footprint);
	bind_bytes(s, 4, x->mem.rss);
	bind_bytes(s, 5, x->mem.anon);
	bind_bytes(s, 6, x->mem.file);
	bind_bytes(s, 7, x->mem.shmem);
	bind_bytes(s, 8, x->mem.swap);
	bind_bytes(s, 9, x->mem.pagetables);
	if (x->smaps) {
		bind_bytes(s, 10, x->smaps->pss);
		bind_bytes(s, 11, x->smaps->pss_anon);
		bind_bytes(s, 12, x->smaps->private_dirty);
		bind_bytes(s, 13, x->smaps->swap_pss);
	} else {
		for (int i = 10; i <= 13; i++)
			sqlite3_bind_null(s, i);
	}
	bind_bytes(s, 14, x->mem.gpu);
	if (repeats > 1) {
		sqlite3_bind_int64(s, 15, repeats);
		sqlite3_bind_double(s, 16, t_last);
	} else {
		sqlite3_bind_null(s, 15);
		sqlite3_bind_null(s, 16);
	}
	if (step_reset_as(st, s, false))
		return -1;
	/* Readers take the fast path (one row, one sample) unless told. */
	if (repeats > 1 && !st->runs_flagged) {
		st->runs_flagged = true;
		return store_meta_set(st, "sample_runs", "1");
	}
	return 0;
}

/* The held run of inc (a free slot when it has none yet); NULL only with
 * create false. */
static struct sample_run *run_of(struct store *st, int64_t inc, bool create)
{
	if (st->last_run < st->n_runs && st->runs[st->last_run].inc == inc)
		return &st->runs[st->last_run];
	for (size_t i = 0; i < st->n_runs; i++)
		if (st->runs[i].inc == inc) {
			st->last_run = i;
			return &st->runs[i];
		}
	if (!create)
		return NULL;
	xgrow((void **)&st->runs, &st->cap_runs, st->n_runs + 1,
	      sizeof(*st->runs));
	struct sample_run *r = &st->runs[st->n_runs];
	memset(r, 0, sizeof(*r));
	r->inc = inc;
	st->last_run = st->n_runs++;
	return r;
}

static int run_write(struct store *st, struct sample_run *r)
{
	if (!r->repeats)
		return 0;
	struct store_sample x = {r->inc, r->t, r->mem, NULL};
	int64_t n = r->repeats;
	r->repeats = 0;
	return sample_write(st, &x, n, r->t_last);
}

static int runs_flush(struct store *st)
{
	int rc = 0;
	for (size_t i = 0; i < st->n_runs; i++)
		if (run_write(st, &st->runs[i]))
			rc = -1;
	return rc;
}

/* The incarnation ended: write its run, forget its slot. */
static void run_end(struct store *st, int64_t inc_id)
{
	struct sample_run *r = run_of(st, inc_id, false);
	if (!r)
		return;
	if (r->repeats && batch_begin(st) == 0)
		run_write(st, r);
	*r = st->runs[--st->n_runs];
	st->last_run = 0;
}

/* Same figures, NAN matching NAN. */
static bool same_figure(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static bool same_mem(const struct proc_mem *a, const struct proc_mem *b)
{
	return same_figure(a->footprint, b->footprint) &&
	       same_figure(a->rss, b->rss) && same_figure(a->anon, b->anon) &&
	       same_figure(a->file, b->file) &&
	       same_figure(a->shmem, b->shmem) &&
	       same_figure(a->swap, b->swap) &&
	       same_figure(a->pagetables, b->pagetables) &&
	       same_figure(a->gpu, b->gpu);
}

/* Does x continue r: equal figures, one step later? */
static bool run_continues(const struct sample_run *r,
			  const struct store_sample *x)
{
	if (!r->repeats || x->smaps || !same_mem(&r->mem, &x->mem))
		return false;
	double d = x->t - r->t_last;
	if (r->repeats == 1)
		return d > 0;
	return fabs(d - r->step) <= RUN_STEP_TOLERANCE_S;
}

int store_sample_add(struct store *st, const struct store_sample *x)
{
	if (batch_begin(st))
		return -1;
	struct sample_run *r = run_of(st, x->incarnation_id, true);
	st->pending++;
	if (run_continues(r, x)) {
		if (r->repeats == 1)
			r->step = x->t - r->t_last;
		r->t_last = x->t;
		r->repeats++;
		return 0;
	}
	int rc = run_write(st, r);
	if (x->smaps)  /* smaps figures are never folded: written now */
		return sample_write(st, x, 1, NAN) || rc ? -1 : 0;
	r->t = r->t_last = x->t;
	r->step = NAN;
	r->repeats = 1;
	r->mem = x->mem;
	return rc;
}

int store_gpu_add(struct store *st, int64_t inc_id, double t,
		  const struct store_gpu_row *r)
{
	sqlite3_stmt *s = row_begin(st, ST_GPU, inc_id, t);
	if (!s)
		return -1;
	bind_text(s, 3, r->source);
	bind_text(s, 4, r->region);
	bind_text(s, 5, r->kind);
	bind_bytes(s, 6, r->total);
	bind_bytes(s, 7, r->resident);
	bind_bytes(s, 8, r->shared);
	bind_bytes(s, 9, r->purgeable);
	return row_end(st, s);
}

int store_gpu_device_add(struct store *st, double t, const char *source,
			 unsigned device, double total, double used)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_GPU_DEVICE];
	sqlite3_bind_double(s, 1, t);
	bind_text(s, 2, source);
	sqlite3_bind_int64(s, 3, device);
	bind_bytes(s, 4, total);
	bind_bytes(s, 5, used);
	return row_end(st, s);
}

int store_system_add(struct store *st, double t, const struct sys_mem *m)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_SYSTEM];
	sqlite3_bind_double(s, 1, t);
	bind_bytes(s, 2, m->mem_total);
	bind_bytes(s, 3, m->mem_available);
	bind_bytes(s, 4, m->swap_total);
	bind_bytes(s, 5, m->swap_free);
	bind_real(s, 6, m->psi_some_avg10);
	bind_bytes(s, 7, m->psi_some_total);
	bind_real(s, 8, m->psi_full_avg10);
	bind_bytes(s, 9, m->psi_full_total);
	return row_end(st, s);
}

int store_cgroup_sample_add(struct store *st, int64_t cgroup_id, double t,
			    const struct cgroup_mem *m)
{
	sqlite3_stmt *s = row_begin(st, ST_CGROUP_SAMPLE, cgroup_id, t);
	if (!s)
		return -1;
	bind_bytes(s, 3, m->current);
	bind_bytes(s, 4, m->max);
	bind_bytes(s, 5, m->peak);
	return row_end(st, s);
}

int store_note_add(struct store *st, double t, int64_t inc_id,
		   const char *text)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_NOTE];
	sqlite3_bind_double(s, 1, t);
	bind_ref(s, 2, inc_id);
	bind_text(s, 3, text);
	st->pending++;
	return step_reset(st, s);
}

int64_t store_source_add(struct store *st, const char *role,
			 const char *name, const char *method,
			 const char *spec, int64_t target_id)
{
	if (batch_begin(st))
		return -1;
	sqlite3_stmt *s = st->stmt[ST_SOURCE];
	bind_text(s, 1, role);
	bind_text(s, 2, name);
	bind_text(s, 3, method);
	bind_text(s, 4, spec);
	bind_ref(s, 5, target_id);
	return insert_row(st, s);
}

int store_source_sample_add(struct store *st, int64_t source_id, double t,
			    double value)
{
	sqlite3_stmt *s = row_begin(st, ST_SOURCE_SAMPLE, source_id, t);
	if (!s)
		return -1;
	bind_real(s, 3, value);
	return row_end(st, s);
}

int store_region_add(struct store *st, int64_t inc_id, double t,
		     const struct series_region_row *r)
{
	sqlite3_stmt *s = row_begin(st, ST_REGION, inc_id, t);
	if (!s)
		return -1;
	bind_text(s, 3, r->family);
	bind_bytes(s, 4, r->size);
	bind_bytes(s, 5, r->rss);
	bind_bytes(s, 6, r->pss);
	bind_bytes(s, 7, r->private_dirty);
	bind_bytes(s, 8, r->swap);
	bind_bytes(s, 9, r->footprint);
	sqlite3_bind_int64(s, 10, r->mappings);
	if (r->top && *r->top)
		bind_text(s, 11, r->top);
	else
		sqlite3_bind_null(s, 11);
	st->pending++;
	return step_reset(st, s);
}

/* ---- allocation sites (record --sites) ---- */

int64_t store_site_add(struct store *st, int64_t inc_id, double t,
		       const struct sample_site *x)
{
	sqlite3_stmt *s = row_begin(st, ST_SITE, inc_id, t);
	if (!s)
		return -1;
	int64_t id = insert_row(st, s);
	if (id < 0)
		return -1;
	for (size_t k = 0; k < x->n_frames; k++) {
		const struct sample_site_frame *f = &x->frames[k];
		/* row_begin binds ?1 (the site) and ?2, which is the depth
		 * here, not a time: bound again */
		s = row_begin(st, ST_SITE_FRAME, id, 0);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 2, (sqlite3_int64)k);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)f->address);
		bind_text(s, 4, f->module);
		bind_text(s, 5, f->build_id);
		if (f->module)
			sqlite3_bind_int64(s, 6, (sqlite3_int64)f->offset);
		else
			sqlite3_bind_null(s, 6);
		bind_text(s, 7, f->function);
		bind_text(s, 8, f->file);
		if (f->line > 0)
			sqlite3_bind_int64(s, 9, f->line);
		else
			sqlite3_bind_null(s, 9);
		if (row_end(st, s))
			return -1;
	}
	return id;
}

int store_site_sample_add(struct store *st, int64_t site_id, double t,
			  double live, double var, double allocs)
{
	sqlite3_stmt *s = row_begin(st, ST_SITE_SAMPLE, site_id, t);
	if (!s)
		return -1;
	bind_bytes(s, 3, live);
	bind_bytes(s, 4, allocs);
	bind_real(s, 5, var);
	return row_end(st, s);
}

int store_site_stats_add(struct store *st, int64_t inc_id, double t,
			 const struct sample_site_stats *x)
{
	sqlite3_stmt *s = row_begin(st, ST_SITE_STATS, inc_id, t);
	if (!s)
		return -1;
	bind_real(s, 3, x->rate);
	sqlite3_bind_int64(s, 4, x->depth);
	bind_bytes(s, 5, x->sampled);
	bind_bytes(s, 6, x->dropped_sites);
	bind_bytes(s, 7, x->dropped_live);
	bind_bytes(s, 8, x->live_blocks);
	bind_real(s, 9, x->backtrace_s);
	return row_end(st, s);
}
