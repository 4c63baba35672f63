/*
 * store.c - the SQLite recording file (store.h).
 *
 * Only this file includes sqlite3.h. All SQL goes through prepared
 * statements with bound parameters; statements are prepared once per store
 * and reused, so a sample costs one sqlite3_step() inside the open batch
 * transaction. Durability: WAL with synchronous=NORMAL; a committed batch
 * survives kill -9 of the recorder (it is in the WAL, which the next
 * opener recovers); only power loss may drop the last batches, never
 * corrupt the file.
 *
 * It does not decide when to commit (the recorder does) and knows nothing
 * of analyses.
 */
#include "store.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS meta(\n"
	"  key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS target(\n"
	"  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, spec TEXT NOT NULL,\n"
	"  name TEXT NOT NULL, parent_id INTEGER REFERENCES target(id));\n"
	"CREATE TABLE IF NOT EXISTS cgroup(\n"
	"  id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);\n"
	"CREATE TABLE IF NOT EXISTS incarnation(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  target_id INTEGER NOT NULL REFERENCES target(id),\n"
	"  pid INTEGER NOT NULL, start_ticks INTEGER NOT NULL,\n"
	"  start_time REAL, comm TEXT, cmdline TEXT,\n"
	"  cgroup_id INTEGER REFERENCES cgroup(id),\n"
	"  first_seen REAL NOT NULL, last_seen REAL, end_reason TEXT);\n"
	"CREATE TABLE IF NOT EXISTS sample(\n"
	"  incarnation_id INTEGER NOT NULL, t REAL NOT NULL,\n"
	"  footprint INTEGER, rss INTEGER, anon INTEGER, file INTEGER,\n"
	"  shmem INTEGER, swap INTEGER, pagetables INTEGER,\n"
	"  pss INTEGER, pss_anon INTEGER, private_dirty INTEGER,\n"
	"  swap_pss INTEGER, gpu INTEGER, repeats INTEGER, t_last REAL);\n"
	"CREATE TABLE IF NOT EXISTS system_sample(\n"
	"  t REAL NOT NULL, mem_total INTEGER, mem_available INTEGER,\n"
	"  swap_total INTEGER, swap_free INTEGER,\n"
	"  psi_some_avg10 REAL, psi_some_total INTEGER,\n"
	"  psi_full_avg10 REAL, psi_full_total INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS cgroup_sample(\n"
	"  cgroup_id INTEGER NOT NULL, t REAL NOT NULL,\n"
	"  current INTEGER, max INTEGER, peak INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS note(\n"
	"  t REAL NOT NULL, incarnation_id INTEGER, text TEXT NOT NULL);\n"
	/* Schema 2: figures from outside /proc (work, connections, gauges). */
	"CREATE TABLE IF NOT EXISTS source(\n"
	"  id INTEGER PRIMARY KEY, role TEXT NOT NULL, name TEXT NOT NULL,\n"
	"  method TEXT NOT NULL, spec TEXT NOT NULL,\n"
	"  target_id INTEGER REFERENCES target(id));\n"
	"CREATE TABLE IF NOT EXISTS source_sample(\n"
	"  source_id INTEGER NOT NULL, t REAL NOT NULL, value REAL);\n"
	/* Schema 2: where the memory sits (record --regions). */
	"CREATE TABLE IF NOT EXISTS region_snapshot(\n"
	"  incarnation_id INTEGER NOT NULL, t REAL NOT NULL,\n"
	"  family TEXT NOT NULL, size INTEGER, rss INTEGER, pss INTEGER,\n"
	"  private_dirty INTEGER, swap INTEGER, footprint INTEGER,\n"
	"  mappings INTEGER, top TEXT);\n"
	/* Schema 3: GPU memory and runs of equal samples (sample.gpu,
	 * .repeats and .t_last are added by schema3_columns_add() to older
	 * files). */
	"CREATE TABLE IF NOT EXISTS gpu_sample(\n"
	"  incarnation_id INTEGER NOT NULL, t REAL NOT NULL,\n"
	"  source TEXT NOT NULL, region TEXT NOT NULL, kind TEXT NOT NULL,\n"
	"  total INTEGER, resident INTEGER, shared INTEGER,\n"
	"  purgeable INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS gpu_device(\n"
	"  t REAL NOT NULL, source TEXT NOT NULL, device INTEGER NOT NULL,\n"
	"  total INTEGER, used INTEGER);\n";

enum stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_META, ST_TARGET, ST_CGROUP_FIND,
	ST_CGROUP, ST_INC, ST_INC_END, ST_SAMPLE, ST_SYSTEM, ST_CGROUP_SAMPLE,
	ST_NOTE, ST_SOURCE, ST_SOURCE_SAMPLE, ST_REGION, ST_GPU, ST_GPU_DEVICE,
	ST_COUNT
};

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

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[ST_COUNT];
	bool in_batch;
	uint64_t pending;
	char last_error[256];      /* why the last commit failed */
	/* Held runs: one per incarnation sampled and not yet ended, so
	 * bounded by the processes being watched. */
	struct sample_run *runs;
	size_t n_runs, cap_runs;
	size_t last_run;           /* index hint: the last one used */
	bool runs_flagged;         /* meta.sample_runs written */
	bool appending;            /* --append to a file with data: a target
				      or incarnation already in it goes on */
};

static int db_error(sqlite3 *db, const char *what, const char *path)
{
	/* SQLite says "unable to open database file" for any open failure;
	 * the system's reason (permission, missing directory, a link) is in
	 * its extended code's errno */
	int sys = db ? sqlite3_system_errno(db) : 0;
	if (sys)
		return error("%s '%s': %s (%s)", what, path,
			     db ? sqlite3_errmsg(db) : "out of memory",
			     strerror(sys));
	return error("%s '%s': %s", what, path, db ? sqlite3_errmsg(db) :
		     "out of memory");
}

/* The file and its WAL companions, removed after a start that failed:
 * no half-made file may block the retry. */
static void unlink_db(const char *path)
{
	size_t n = strlen(path) + 8;
	char *p = xmalloc(n);
	unlink(path);
	snprintf(p, n, "%s-wal", path);
	unlink(p);
	snprintf(p, n, "%s-shm", path);
	unlink(p);
	free(p);
}

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

static int exec(struct store *st, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("'%s': %s", st->path, msg ? msg : "SQLite error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Check that an existing file is a memtrend recording we can extend. */
static int check_schema_version(sqlite3 *db, const char *path)
{
	sqlite3_stmt *s = NULL;
	int version = -1;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
			       "'schema_version'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (version < 0)
		return error("'%s' is not a memtrend recording", path);
	if (version > STORE_SCHEMA_VERSION)
		return error("'%s' has schema version %d; this memtrend reads "
			     "up to %d", path, version, STORE_SCHEMA_VERSION);
	return 0;
}

/* True when the sample table has the column (a fixed name of ours). */
static bool has_sample_column(sqlite3 *db, const char *column)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "SELECT %s FROM sample LIMIT 0", column);
	sqlite3_stmt *s = NULL;
	bool ok = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK;
	sqlite3_finalize(s);
	return ok;
}

/* schema 3, or upgraded to it */
static bool has_gpu_column(sqlite3 *db)
{
	return has_sample_column(db, "gpu");
}

/* Appending to a schema 1 or 2 file: add sample.gpu (NULL in the rows
 * already there: "not recorded", which is what they are), .repeats and
 * .t_last (NULL: one sample). */
/* Every sample on its own row, runs expanded at their times (for any
 * SQLite client; memtrend's reader expands runs itself, faster). Costs
 * O(rows x the longest run): fine for a look, not for 10^7 rows. */
static const char sample_view_sql[] =
	"CREATE VIEW IF NOT EXISTS sample_expanded AS\n"
	"WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k\n"
	"  WHERE i + 1 < (SELECT max(coalesce(repeats, 1)) FROM sample))\n"
	"SELECT s.incarnation_id, CASE WHEN k.i = 0 THEN s.t\n"
	"  ELSE s.t + (s.t_last - s.t) * k.i / (s.repeats - 1) END AS t,\n"
	"  s.footprint, s.rss, s.anon, s.file, s.shmem, s.swap,\n"
	"  s.pagetables, s.pss, s.pss_anon, s.private_dirty, s.swap_pss,\n"
	"  s.gpu FROM sample s JOIN k ON k.i < coalesce(s.repeats, 1);";

static int schema3_columns_add(struct store *st)
{
	static const char *const add[][2] = {
		{"gpu", "ALTER TABLE sample ADD COLUMN gpu INTEGER"},
		{"repeats", "ALTER TABLE sample ADD COLUMN repeats INTEGER"},
		{"t_last", "ALTER TABLE sample ADD COLUMN t_last REAL"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(add); i++)
		if (!has_sample_column(st->db, add[i][0]) &&
		    exec(st, add[i][1]))
			return -1;
	/* Rows that stand for runs, found without a scan of the table (the
	 * parallel reader asks for them; rows of one sample are not in it). */
	return exec(st, sample_view_sql) ||
	       exec(st, "CREATE INDEX IF NOT EXISTS sample_run ON "
		    "sample(repeats) WHERE repeats > 1");
}

struct store *store_create(const char *path, bool append)
{
	/* One rule for an existing path, and never through a link: without
	 * --append the file is created here with O_CREAT | O_EXCL, which
	 * fails on any existing name -- a file (even empty), or a link,
	 * dangling or not, that someone planted to make memtrend write
	 * elsewhere (/etc/x.db, by a root recorder). With --append the path
	 * must be a regular file of ours to extend, not a link. */
	struct stat sb;
	bool created = false;
	if (append) {
		if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
			error("'%s' is a symbolic link: memtrend writes only to "
			      "a file of that name, not through a link", path);
			return NULL;
		}
	}
	bool exists = lstat(path, &sb) == 0;
	if (!exists || !append) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			      O_CLOEXEC, 0644);
		if (fd < 0) {
			if (errno == EEXIST)
				error("'%s' already exists (use --append to add "
				      "to it, or choose another file)", path);
			else
				error("cannot create '%s': %s", path,
				      strerror(errno));
			return NULL;
		}
		close(fd);
		created = true;
	}
	/* an empty file given to --append is a new recording */
	exists = !created && lstat(path, &sb) == 0 && sb.st_size > 0;
	struct store *st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	/* One thread writes through this connection: no per-call mutex
	 * (about a dozen lock/unlock pairs per row otherwise). NOFOLLOW:
	 * the link check above cannot race a link swapped in after it. */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW |
		    SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		db_error(st->db, "cannot open", path);
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 5000);
	/* Larger lookaside slots: a sample row's record fits one, so the
	 * per-row INSERT does not call malloc. */
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 512, 256);
	if (exists && check_schema_version(st->db, path))
		goto fail;
	st->appending = exists;
	/* WAL: readers (a report) never block the recorder, and a crash
	 * leaves committed transactions intact. NORMAL sync is safe against
	 * process crashes in WAL mode; it only risks the latest commits on
	 * power loss, a fair trade for a sampler that commits every second. */
	if (exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;") ||
	    exec(st, schema_sql) || schema3_columns_add(st))
		goto fail;
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1,
				       SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
				       NULL) != SQLITE_OK) {
			db_error(st->db, "cannot prepare statements for", path);
			goto fail;
		}
	}
	char v[16];
	snprintf(v, sizeof(v), "%d", STORE_SCHEMA_VERSION);
	if (store_meta_set(st, "schema_version", v) ||
	    store_meta_set(st, "memtrend_version", MEMTREND_VERSION) ||
	    store_commit(st))
		goto fail;
	return st;
fail:
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	if (created)
		unlink_db(path);
	free(st->path);
	free(st);
	return NULL;
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
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	free(st->runs);
	/* Fold the WAL back into the main file so the recording is one
	 * self-contained file once the recorder has ended. */
	if (rc == 0)
		sqlite3_wal_checkpoint_v2(st->db, NULL,
					  SQLITE_CHECKPOINT_TRUNCATE, NULL,
					  NULL);
	if (sqlite3_close(st->db) != SQLITE_OK)
		rc = db_error(st->db, "cannot close", st->path);
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

void store_remove(const char *path)
{
	static const char *const sides[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ARRAY_SIZE(sides); i++) {
		char p[4096];
		if ((size_t)snprintf(p, sizeof(p), "%s%s", path, sides[i]) <
		    sizeof(p))
			unlink(p);
	}
}

bool store_is_recording(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return n == sizeof(head) && memcmp(head, magic, sizeof(head)) == 0;
}

/* ---- reading ---------------------------------------------------------- */

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
		db_error(*db, "cannot open", path);
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
		else
			snprintf(buf, sizeof(buf), "%s", name ? name : "?");
		xgrow((void **)target_ids, &cap, out->n_targets + 1,
		      sizeof(int64_t));
		(*target_ids)[out->n_targets] = sqlite3_column_int64(s, 0);
		dataset_add_target(out, buf);
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
		for (ti = 0; ti < out->n_targets; ti++)
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
	bool yes = has_gpu_column(db) &&
		   sqlite3_prepare_v2(db, "SELECT 1 FROM gpu_sample LIMIT 1",
				      -1, &s, NULL) == SQLITE_OK &&
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

/* Append row's sample to se, or the `repeats` samples it stands for at
 * evenly spaced times from t to t_last (the recorder folds only samples
 * a constant step apart, so these are their stamps to a microsecond).
 * Returns the index of the first point appended. */
static size_t append_run(struct series *se, double t, double fp,
			 uint32_t inc, int64_t repeats, double t_last)
{
	size_t first = series_append(se, t, fp, inc);
	if (repeats <= 1 || !(t_last > t))
		return first;
	double step = (t_last - t) / (double)(repeats - 1);
	for (int64_t j = 1; j < repeats; j++)
		series_append(se, j == repeats - 1 ? t_last : t + step * j, fp,
			      inc);
	return first;
}

static int read_samples(sqlite3 *db, const char *path, struct dataset *out,
			const struct inc_map *map, size_t n_map,
			bool components, bool gpu, bool runs)
{
	sqlite3_stmt *s;
	char sql[256];
	/* Columns 3.. are the components in enum order up to swap_pss, then
	 * gpu; without components, gpu alone is column 3; the run's repeats
	 * and t_last last. */
	snprintf(sql, sizeof(sql), "SELECT incarnation_id, t, footprint%s%s%s "
		 "FROM sample ORDER BY rowid", components ?
		 ", rss, anon, file, shmem, swap, pagetables, pss, pss_anon, "
		 "private_dirty, swap_pss" : "", gpu ? ", gpu" : "",
		 runs ? ", repeats, t_last" : "");
	const int gpu_col = components ? 3 + COMP_GPU : 3;
	const int run_col = gpu_col + (gpu ? 1 : 0);
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
		if (se->n && t < se->t[se->n - 1]) {
			skipped++;  /* clock stepped back: keep order */
			continue;
		}
		int64_t repeats = runs ? sqlite3_column_int64(s, run_col) : 1;
		double t_last = runs && sqlite3_column_type(s, run_col + 1) !=
			SQLITE_NULL ? sqlite3_column_double(s, run_col + 1) : t;
		size_t i0 = append_run(se, t, col_bytes(s, 2), last->inc,
				       repeats, t_last);
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
			double fp = col_bytes(s, 3);
			int64_t n = r ? r->repeats : 1;
			double step = r ? (r->t_last - t) / (double)(n - 1) : 0;
			/* a run's samples, spaced as append_run() spaces
			 * them */
			for (int64_t j = 0; j < n; j++) {
				se->t[slot + j] = j == 0 ? t : j == n - 1 ?
					r->t_last : t + step * (double)j;
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
 * Source readings carry the stamp of the tick they were asked for, the
 * same stamp as that tick's memory samples. A reading is attached to the
 * first series point at or after it (within a microsecond) and only if no
 * later point came first, so a reading lands on its own tick and a gap in
 * the source stays a gap (NAN) in the series.
 */
struct source_rows {
	int64_t id, target_id;     /* target_id 0: every target */
	char role[16];
	char *name;
	double *t, *v;
	size_t n, cap;
};

static void source_attach(struct series *se, const struct source_rows *r)
{
	if (!se->n)
		return;
	void (*set)(struct series *, size_t, double) = NULL;
	if (strcmp(r->role, "work") == 0)
		set = series_set_requests;
	else if (strcmp(r->role, "connections") == 0)
		set = series_set_connections;
	else if (strcmp(r->role, "gauge") != 0)
		return;  /* a role from a newer memtrend */
	/* Allocate the figure even if every reading failed: "recorded, all
	 * gaps" is not "not recorded". */
	if (set)
		set(se, 0, NAN);
	else
		series_set_gauge(se, r->name, 0, NAN);
	size_t j = 0;
	double prev = -INFINITY;
	for (size_t i = 0; i < se->n; i++) {
		double ti = se->t[i];
		size_t last = SIZE_MAX;
		while (j < r->n && r->t[j] <= ti + 1e-6)
			last = j++;
		if (last != SIZE_MAX && r->t[last] > prev + 1e-6 &&
		    !isnan(r->v[last])) {
			if (set)
				set(se, i, r->v[last]);
			else
				series_set_gauge(se, r->name, i, r->v[last]);
		}
		prev = ti;
	}
}

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
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(s, 0);
		const char *role = (const char *)sqlite3_column_text(s, 1);
		snprintf(r->role, sizeof(r->role), "%s", role ? role : "");
		const char *name = (const char *)sqlite3_column_text(s, 2);
		r->name = xstrdup(name ? name : "?");
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
			if (last->n && t < last->t[last->n - 1])
				continue;  /* clock stepped back */
			size_t cap = last->cap;
			xgrow((void **)&last->t, &cap, last->n + 1,
			      sizeof(double));
			xgrow((void **)&last->v, &last->cap, last->n + 1,
			      sizeof(double));
			last->t[last->n] = t;
			last->v[last->n++] =
				sqlite3_column_type(s, 2) == SQLITE_NULL ?
				NAN : sqlite3_column_double(s, 2);
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
				source_attach(&out->targets[ti], &src[k]);
	free(parents);
	for (size_t k = 0; k < n_src; k++) {
		free(src[k].name);
		free(src[k].t);
		free(src[k].v);
	}
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

/* GPU memory (schema 3): per target, the first and last reading of each
 * region of the latest incarnation that has any; per device, the latest
 * reading. Rows are few (one per region per sample of a GPU process). */
static void read_gpu(sqlite3 *db, struct dataset *out,
		     const struct inc_map *map, size_t n_map)
{
	sqlite3_stmt *s;
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
			series_add_gpu_row(&out->targets[m->target], m->inc,
					   sqlite3_column_double(s, 1), src,
					   reg, kind, col_bytes(s, 5));
		}
	}
	sqlite3_finalize(s);
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
	if (check_schema_version(db, path))
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
	if (!rc)
		rc = (o && o->components) || gpu ? 0 :
		     read_samples_parallel(db, path, out, map, n_map, runs);
	if (rc == 1)
		rc = 0;
	else if (rc == 0)
		rc = read_samples(db, path, out, map, n_map,
				  o && o->components, gpu, runs);
	if (!rc)
		rc = read_sources(db, path, out, target_ids);
	if (!rc) {
		read_regions(db, out, map, n_map);
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
