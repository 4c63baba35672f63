/*
 * store_schema.c - the recording file itself (store.h): creating it
 * (store_create(): the rules for an existing path, the connection, WAL),
 * its schema (tables, the sample_expanded view, the run index) and the
 * migration of older schemas (schema 1 and 2 files get schema 3's
 * columns when appended to), the version check, and the file-level
 * helpers store_remove() and store_is_recording().
 *
 * It does not write samples (store_write.c, whose statements it has
 * prepared) or read them (store_read.c). Contracts: a file is created
 * with O_EXCL and never opened through a link; a file of a newer schema
 * than STORE_SCHEMA_VERSION is refused; a start that fails removes the
 * file it created. Schema: docs/schema.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "store_internal.h"

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
	"  total INTEGER, used INTEGER);\n"
	/* Allocation sites (record --sites, docs/sites.md): tables of
	 * their own, made when missing, so a file of schema 3 gains them
	 * when appended to and an older memtrend reads the rest as before.
	 * A site's value is written when it changes: it holds until the
	 * next row (store_read.c). */
	"CREATE TABLE IF NOT EXISTS site(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  incarnation_id INTEGER NOT NULL REFERENCES incarnation(id),\n"
	"  first_seen REAL NOT NULL);\n"
	"CREATE TABLE IF NOT EXISTS site_frame(\n"
	"  site_id INTEGER NOT NULL REFERENCES site(id),\n"
	"  depth INTEGER NOT NULL, address INTEGER NOT NULL, module TEXT,\n"
	"  build_id TEXT, offset INTEGER, function TEXT, file TEXT,\n"
	"  line INTEGER);\n"
	/* a site's frames are read by site (store_read.c): without it each
	 * site's query scanned every frame (4,096 sites: 2.9 s, 36 ms with) */
	"CREATE INDEX IF NOT EXISTS site_frame_by_site ON "
	"site_frame(site_id, depth);\n"
	"CREATE TABLE IF NOT EXISTS site_sample(\n"
	"  site_id INTEGER NOT NULL, t REAL NOT NULL, live INTEGER,\n"
	"  allocs INTEGER, var REAL);\n"
	"CREATE TABLE IF NOT EXISTS site_stats(\n"
	"  incarnation_id INTEGER NOT NULL, t REAL NOT NULL, rate REAL,\n"
	"  depth INTEGER, sampled INTEGER, dropped_sites INTEGER,\n"
	"  dropped_live INTEGER, live_blocks INTEGER, backtrace_s REAL);\n";

int store_db_error(sqlite3 *db, const char *what, const char *path)
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
int store_check_schema_version(sqlite3 *db, const char *path)
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

/* True when the table has the column (fixed names of ours). */
static bool has_column(sqlite3 *db, const char *table, const char *column)
{
	char sql[96];
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s LIMIT 0", column,
		 table);
	sqlite3_stmt *s = NULL;
	bool ok = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK;
	sqlite3_finalize(s);
	return ok;
}

/* schema 3, or upgraded to it */
bool store_has_gpu_column(sqlite3 *db)
{
	return has_column(db, "sample", "gpu");
}

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

/* Appending to a schema 1 or 2 file: add sample.gpu (NULL in the rows
 * already there: "not recorded", which is what they are), .repeats and
 * .t_last (NULL: one sample). */
static int schema3_columns_add(struct store *st)
{
	static const char *const add[][2] = {
		{"gpu", "ALTER TABLE sample ADD COLUMN gpu INTEGER"},
		{"repeats", "ALTER TABLE sample ADD COLUMN repeats INTEGER"},
		{"t_last", "ALTER TABLE sample ADD COLUMN t_last REAL"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(add); i++)
		if (!has_column(st->db, "sample", add[i][0]) &&
		    exec(st, add[i][1]))
			return -1;
	/* a file of --sites from before the sites' variance: NULL in its
	 * rows (not recorded) */
	if (!has_column(st->db, "site_sample", "var") &&
	    exec(st, "ALTER TABLE site_sample ADD COLUMN var REAL"))
		return -1;
	/* Rows that stand for runs, found without a scan of the table (the
	 * parallel reader asks for them; rows of one sample are not in it). */
	return exec(st, sample_view_sql) ||
	       exec(st, "CREATE INDEX IF NOT EXISTS sample_run ON "
		    "sample(repeats) WHERE repeats > 1");
}

/* PRAGMA auto_vacuum: 0 none, 1 full, 2 incremental; -1 unknown. */
static int auto_vacuum_mode(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	int mode = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA auto_vacuum", -1, &s, NULL) ==
	    SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		mode = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return mode;
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
		store_db_error(st->db, "cannot open", path);
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 5000);
	/* Larger lookaside slots: a sample row's record fits one, so the
	 * per-row INSERT does not call malloc. */
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 512, 256);
	if (exists && store_check_schema_version(st->db, path))
		goto fail;
	st->appending = exists;
	/* A new file can give free pages back (record --retain deletes old
	 * rows; store_retain.c): auto_vacuum must be set before the first
	 * table. An older file keeps its mode and reuses its free pages. */
	if (!exists && exec(st, "PRAGMA auto_vacuum=INCREMENTAL;"))
		goto fail;
	/* WAL: readers (a report) never block the recorder, and a crash
	 * leaves committed transactions intact. NORMAL sync is safe against
	 * process crashes in WAL mode; it only risks the latest commits on
	 * power loss, a fair trade for a sampler that commits every second. */
	if (exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"))
		goto fail;
	/* The schema in one transaction: all of it or none, and a few WAL
	 * frames instead of one commit per table (auto_vacuum moves pages
	 * at each CREATE; on a nearly full disk those frames are samples). */
	if (exec(st, "BEGIN") || exec(st, schema_sql) ||
	    schema3_columns_add(st) || exec(st, "COMMIT")) {
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		goto fail;
	}
	st->incremental_vacuum = auto_vacuum_mode(st->db) == 2;
	if (store_write_prepare(st))
		goto fail;
	char v[16];
	snprintf(v, sizeof(v), "%d", STORE_SCHEMA_VERSION);
	if (store_meta_set(st, "schema_version", v) ||
	    store_meta_set(st, "memtrend_version", MEMTREND_VERSION) ||
	    store_commit(st))
		goto fail;
	return st;
fail:
	store_write_finalize(st);
	sqlite3_close(st->db);
	/* no half-made file may block the retry */
	if (created)
		store_remove(path);
	free(st->path);
	free(st);
	return NULL;
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

