/*
 * store_internal.h - what the files of the recording store share
 * (store_schema.c: creating and migrating the file; store_write.c: the
 * writer; store_read.c: the readers). Private to them: it includes
 * sqlite3.h, which nothing outside src/store/store*.c may see.
 *
 * Contracts: a struct store is made by store_create() (store_schema.c),
 * which prepares the writer's statements (store_write_prepare()) and
 * gives it to store_write.c's functions; store_close() ends it. One
 * thread uses it. The helpers print their error (error(), common.h).
 */
#ifndef MEMTREND_STORE_INTERNAL_H
#define MEMTREND_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* The writer's prepared statements (their SQL: store_write.c). */
enum stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_META, ST_TARGET, ST_CGROUP_FIND,
	ST_CGROUP, ST_INC, ST_INC_END, ST_SAMPLE, ST_SYSTEM, ST_CGROUP_SAMPLE,
	ST_NOTE, ST_SOURCE, ST_SOURCE_SAMPLE, ST_REGION, ST_GPU, ST_GPU_DEVICE,
	ST_SITE, ST_SITE_FRAME, ST_SITE_SAMPLE, ST_SITE_STATS,
	ST_COUNT
};

struct sample_run;             /* store_write.c */

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
	/* store_retain.c: its statements (prepared at its first call), the
	 * gpu_sample cursor, and whether the file can give pages back
	 * (auto_vacuum=INCREMENTAL). */
	sqlite3_stmt *retain_stmt[5];
	/* store_retain(): per table of rows in force (gpu_sample,
	 * site_sample, site_stats), the rowid up to which it has looked */
	int64_t retain_cursor[3];
	bool incremental_vacuum;
};

/* ---- store_schema.c ------------------------------------------------------ */

/* Prints "what 'path': SQLite's message (the system's reason)"; -1. */
int store_db_error(sqlite3 *db, const char *what, const char *path);
/* 0 when db is a memtrend recording of a schema this memtrend reads,
 * else -1 after printing why. */
int store_check_schema_version(sqlite3 *db, const char *path);
/* True when the file's sample table has the column gpu: schema 3, or a
 * file upgraded to it. */
bool store_has_gpu_column(sqlite3 *db);

/* ---- store_write.c ------------------------------------------------------- */

/* Prepare (persistent) every statement of st->stmt; 0, or -1 after
 * printing an error. */
int store_write_prepare(struct store *st);
/* Finalize those prepared (NULL ones are skipped). */
void store_write_finalize(struct store *st);
/* Open the batch transaction unless it is open; 0, or -1 (last_error). */
int store_batch_begin(struct store *st);

/* ---- store_retain.c ------------------------------------------------------ */

/* Finalize store_retain()'s statements (store_write_finalize() calls it). */
void store_retain_finalize(struct store *st);

#endif /* MEMTREND_STORE_INTERNAL_H */
