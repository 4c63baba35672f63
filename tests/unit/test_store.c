/*
 * test_store.c - the recording file: write then read back what was
 * written (absent figures stay absent), batching and commits, appending,
 * refusing files that are not recordings, integrity.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common.h"
#include "idle.h"
#include "store.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/memtrend-store-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *path_of(const char *name)
{
	static char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static struct proc_mem mem(double anon, double swap, double shmem)
{
	return (struct proc_mem){.rss = anon + 4096, .anon = anon,
				 .file = 4096, .shmem = shmem, .swap = swap,
				 .pagetables = 8192,
				 .footprint = anon + swap + shmem, .gpu = NAN};
}

static void test_round_trip(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("rt.db"));
	struct store *st = store_create(path, false);
	assert_non_null(st);
	assert_int_equal(store_meta_set(st, "interval_s", "0.5"), 0);
	assert_int_equal(store_meta_set(st, "page_size", "4096"), 0);
	int64_t tid = store_target_add(st, "pid", "77", "svc\033[2J", 0);
	assert_true(tid > 0);
	struct proc_identity id = {.pid = 77, .ppid = 1, .start_ticks = 123,
				   .start_time = 1.7e9, .comm = "svc",
				   .cmdline = "svc --port 1"};
	int64_t cg = store_cgroup_add(st, "v1:/a");
	assert_int_equal(store_cgroup_add(st, "v1:/a"), cg); /* deduped */
	int64_t inc = store_incarnation_add(st, tid, &id, cg, 1.7e9);
	assert_true(inc > 0);
	for (int i = 0; i < 10; i++) {
		struct proc_smaps sm = {1e6, 5e5, 4e5, NAN};
		struct store_sample s = {inc, 1.7e9 + i, mem(1e6 + i * 4096, 0,
							     NAN),
					 i == 3 ? &sm : NULL};
		assert_int_equal(store_sample_add(st, &s), 0);
	}
	assert_int_equal(store_pending(st) >= 10, 1);
	struct sys_mem sys = {16e9, 8e9, 0, 0, NAN, NAN, NAN, NAN};
	assert_int_equal(store_system_add(st, 1.7e9 + 9, &sys), 0);
	struct cgroup_mem cm = {2e9, 4e9, NAN};
	assert_int_equal(store_cgroup_sample_add(st, cg, 1.7e9 + 9, &cm), 0);
	assert_int_equal(store_note_add(st, 1.7e9, inc, "a note"), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_pending(st), 0);
	assert_int_equal(store_close(st), 0);

	assert_true(store_is_recording(path));
	assert_int_equal(store_check_integrity(path), 0);
	struct dataset d;
	struct store_read_options ro = {.components = true};
	assert_int_equal(store_read_dataset(path, &ro, &d), 0);
	assert_int_equal(d.n_targets, 1);
	struct series *s = &d.targets[0];
	assert_string_equal(s->name, "svc\033[2J"); /* raw; renderers escape */
	assert_int_equal(s->n, 10);
	assert_int_equal(s->n_incs, 1);
	assert_int_equal(s->incs[0].pid, 77);
	assert_string_equal(s->incs[0].cmdline, "svc --port 1");
	assert_float_equal(s->footprint[9], 1e6 + 9 * 4096, 0);
	assert_float_equal(s->comp[COMP_RSS][0], 1e6 + 4096, 0);
	/* shmem was absent (NAN) in every row -> NULL in the file -> a
	 * figure never recorded: no array at all. */
	assert_null(s->comp[COMP_SHMEM]);
	assert_float_equal(s->comp[COMP_PSS][3], 1e6, 0);
	assert_true(isnan(s->comp[COMP_PSS][4]));
	assert_float_equal(s->quantum, 4096, 0);
	assert_float_equal(d.interval_s, 0.5, 0);
	assert_float_equal(s->mem_total, 16e9, 0);
	assert_float_equal(s->cgroup_limit, 4e9, 0);
	assert_int_equal(d.n_notes, 1);
	assert_string_equal(d.notes[0], "a note");
	dataset_release(&d);
}

static void test_refuses_existing_and_appends(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("ap.db"));
	struct store *st = store_create(path, false);
	assert_non_null(st);
	struct proc_identity id = {.pid = 5, .start_ticks = 9, .comm = "a"};
	int64_t t = store_target_add(st, "pid", "5", "a", 0);
	int64_t inc = store_incarnation_add(st, t, &id, 0, 1);
	struct store_sample s = {inc, 1, mem(4096, 0, 0), NULL};
	store_sample_add(st, &s);
	assert_int_equal(store_close(st), 0);
	/* Existing file without append: refused. */
	assert_null(store_create(path, false));
	/* With append: a second target goes into the same file. */
	st = store_create(path, true);
	assert_non_null(st);
	t = store_target_add(st, "pid", "6", "b", 0);
	id.pid = 6;
	inc = store_incarnation_add(st, t, &id, 0, 2);
	s.incarnation_id = inc;
	s.t = 2;
	store_sample_add(st, &s);
	assert_int_equal(store_close(st), 0);
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.n_targets, 2);
	assert_int_equal(d.targets[1].n, 1);
	dataset_release(&d);
}

static void test_not_a_recording(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("plain.txt"));
	FILE *f = fopen(path, "w");
	fputs("time,footprint\n", f);
	fclose(f);
	assert_false(store_is_recording(path));
	assert_null(store_create(path, true));  /* not SQLite at all */
	/* An SQLite file that is not a memtrend recording. */
	snprintf(path, sizeof(path), "%s", path_of("other.db"));
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'CREATE TABLE x(a);'", path);
	if (system(cmd) != 0)
		skip();
	assert_true(store_is_recording(path));
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), -1);
	/* A newer schema than this build knows. */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"CREATE TABLE meta(key, "
		 "value); INSERT INTO meta VALUES('schema_version', '99');\"",
		 path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(store_read_dataset(path, NULL, &d), -1);
}

/* Schema 3: GPU figures round trip, and appending to a schema 2 file
 * (made here from a schema 3 one by dropping what 3 added) adds the gpu
 * column, leaving the old rows' figure absent. */
/* Rows in the sample table (not samples: a row may be a run). */
static long rows_in(const char *path)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'SELECT count(*) FROM "
		 "sample'", path);
	FILE *p = popen(cmd, "r");
	long n = -1;
	if (p) {
		if (fscanf(p, "%ld", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* The parallel scan expands runs of equal samples as the serial reader
 * does: 260,000 samples one second apart, the first 200 of every 1,000 in
 * runs of 5 equal ones (40 rows), the other 800 each different: 218,400
 * rows, plus one for each of the 6 commits (at i = 0, 50,000, ...,
 * 250,000, each right after the first sample of a run of 5, which it
 * cuts in two): 218,406, over the parallel reader's threshold. */
static void test_parallel_read_expands_runs(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("bigruns.db"));
	struct store *st = store_create(path, false);
	int64_t t = store_target_add(st, "pid", "5", "svc", 0);
	struct proc_identity a = {.pid = 5, .start_ticks = 9, .comm = "svc"};
	int64_t ia = store_incarnation_add(st, t, &a, 0, 0);
	const int n = 260000;
	for (int i = 0; i < n; i++) {
		int k = i % 1000 < 200 ? i / 5 : i;
		struct store_sample x = {ia, (double)i,
					 mem(4096.0 * (k % 977), 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
		if (i % 50000 == 0)
			store_commit(st);
	}
	assert_int_equal(store_close(st), 0);
	assert_int_equal(rows_in(path), 218406);
	struct dataset par, ser;
	struct store_read_options with_comp = {.components = true};
	assert_int_equal(store_read_dataset(path, NULL, &par), 0);
	assert_int_equal(store_read_dataset(path, &with_comp, &ser), 0);
	struct series *p = &par.targets[0], *q = &ser.targets[0];
	assert_int_equal(p->n, n);
	assert_int_equal(q->n, n);
	for (int i = 0; i < n; i++) {
		int k = i % 1000 < 200 ? i / 5 : i;
		assert_float_equal(p->t[i], (double)i, 1e-9);
		assert_float_equal(p->footprint[i], 4096.0 * (k % 977), 0);
	}
	assert_memory_equal(p->t, q->t, p->n * sizeof(double));
	assert_memory_equal(p->footprint, q->footprint, p->n * sizeof(double));
	assert_int_equal(par.n_notes, 0);
	dataset_release(&par);
	dataset_release(&ser);
}

static void test_gpu_round_trip_and_upgrade(void **state)
{
	(void)state;
	char path[128], cmd[640];
	snprintf(path, sizeof(path), "%s", path_of("gpu.db"));
	struct store *st = store_create(path, false);
	struct proc_identity id = {.pid = 6, .start_ticks = 3, .comm = "g"};
	int64_t t = store_target_add(st, "pid", "6", "g", 0);
	int64_t inc = store_incarnation_add(st, t, &id, 0, 1);
	struct store_sample s = {inc, 1, mem(4096, 0, 0), NULL};
	assert_int_equal(store_sample_add(st, &s), 0);
	assert_int_equal(store_close(st), 0);
	/* DROP COLUMN needs sqlite3 >= 3.35 (Debian 12 has 3.40). */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"DROP VIEW sample_expanded; DROP INDEX sample_run; "
		 "ALTER TABLE sample DROP COLUMN gpu; ALTER TABLE sample DROP "
		 "COLUMN repeats; ALTER TABLE sample DROP COLUMN t_last; DROP "
		 "TABLE gpu_sample; DROP TABLE gpu_device; UPDATE meta SET "
		 "value = '2' WHERE key = 'schema_version';\"", path);
	assert_int_equal(system(cmd), 0);

	st = store_create(path, true);
	assert_non_null(st);
	struct store_sample g = {inc, 2, mem(4096, 0, 0), NULL};
	g.mem.gpu = 2 * 1048576.0;
	g.mem.footprint += g.mem.gpu;
	assert_int_equal(store_sample_add(st, &g), 0);
	struct store_gpu_row vram = {"drm", "vram0", "device", 4194304.0,
				     2097152.0, 0, NAN};
	struct store_gpu_row gtt = {"drm", "gtt", "host", 65536.0, 65536.0,
				    NAN, NAN};
	assert_int_equal(store_gpu_add(st, inc, 2, &vram), 0);
	assert_int_equal(store_gpu_add(st, inc, 2, &gtt), 0);
	assert_int_equal(store_gpu_device_add(st, 2, "nvml", 0, 8e9, 1e9), 0);
	vram.resident = 3145728.0;
	g.t = 3;
	g.mem.gpu = vram.resident;
	g.mem.footprint = 4096 + vram.resident;
	assert_int_equal(store_sample_add(st, &g), 0);
	assert_int_equal(store_gpu_add(st, inc, 3, &vram), 0);
	assert_int_equal(store_close(st), 0);

	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	const struct series *se = &d.targets[0];
	assert_int_equal(se->n, 3);
	assert_non_null(se->comp[COMP_GPU]);
	assert_true(isnan(se->comp[COMP_GPU][0]));  /* the schema 2 row */
	assert_float_equal(se->comp[COMP_GPU][1], 2097152.0, 0);
	assert_float_equal(se->comp[COMP_GPU][2], 3145728.0, 0);
	assert_float_equal(se->footprint[2], 4096 + 3145728.0, 0);
	assert_int_equal(se->n_gpu_regions, 2);
	assert_string_equal(se->gpu_regions[0].name, "vram0");
	assert_string_equal(se->gpu_regions[0].kind, "device");
	assert_float_equal(se->gpu_regions[0].first, 2097152.0, 0);
	assert_float_equal(se->gpu_regions[0].last, 3145728.0, 0);
	assert_float_equal(se->gpu_regions[1].last, 65536.0, 0);
	assert_int_equal(d.n_gpu_devices, 1);
	assert_float_equal(d.gpu_devices[0].total, 8e9, 0);
	dataset_release(&d);
	/* Components too: gpu is read beside them. */
	struct store_read_options ro = {.components = true};
	assert_int_equal(store_read_dataset(path, &ro, &d), 0);
	assert_float_equal(d.targets[0].comp[COMP_GPU][2], 3145728.0, 0);
	assert_float_equal(d.targets[0].comp[COMP_ANON][2], 4096, 0);
	dataset_release(&d);
	snprintf(cmd, sizeof(cmd), "test \"$(sqlite3 '%s' \"SELECT value FROM "
		 "meta WHERE key = 'schema_version'\")\" = 3", path);
	assert_int_equal(system(cmd), 0);
}

/* A site's rows keep their sampling variance (NULL: NAN); a file from
 * before the column reads as not recorded, and --append adds it. */
static void test_sites_variance_round_trip_and_upgrade(void **state)
{
	(void)state;
	char path[128], cmd[512];
	snprintf(path, sizeof(path), "%s", path_of("sites.db"));
	struct store *st = store_create(path, false);
	struct proc_identity id = {.pid = 7, .start_ticks = 3, .comm = "s"};
	int64_t t = store_target_add(st, "command", "s", "s", 0);
	int64_t inc = store_incarnation_add(st, t, &id, 0, 1);
	struct sample_site_frame fr = {.address = 0x401000, .module = "/svc",
				       .function = "keep"};
	struct sample_site sa = {1, inc, &fr, 1};
	int64_t site = store_site_add(st, inc, 0, &sa);
	for (int i = 1; i <= 3; i++) {
		struct store_sample x = {inc, i, mem(4096.0 * i, 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
	}
	assert_int_equal(store_site_sample_add(st, site, 1, 4096, 1.5e10, 1),
			 0);
	assert_int_equal(store_site_sample_add(st, site, 2, 8192, NAN, 2), 0);
	assert_int_equal(store_close(st), 0);
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	const struct series_site *x = &d.targets[0].sites[0];
	assert_int_equal(x->n, 2);
	assert_float_equal(x->live[0], 4096, 0);
	assert_float_equal(x->var[0], 1.5e10, 0);
	assert_true(isnan(x->var[1]));
	dataset_release(&d);

	/* the table as an earlier memtrend made it */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"ALTER TABLE site_sample "
		 "DROP COLUMN var\"", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	x = &d.targets[0].sites[0];
	assert_int_equal(x->n, 2);
	assert_float_equal(x->live[1], 8192, 0);
	assert_true(isnan(x->var[0]) && isnan(x->var[1]));
	dataset_release(&d);
	st = store_create(path, true);
	assert_non_null(st);
	assert_int_equal(store_site_sample_add(st, site, 3, 12288, 4e10, 3),
			 0);
	assert_int_equal(store_close(st), 0);
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	x = &d.targets[0].sites[0];
	assert_int_equal(x->n, 3);
	assert_true(isnan(x->var[0]));
	assert_float_equal(x->var[2], 4e10, 0);
	dataset_release(&d);
}

/* Runs of equal samples (schema 3): folded into one row when the figures
 * repeat at a constant step, expanded again by the reader at their times;
 * a different figure, an irregular step, an smaps sample, the end of the
 * incarnation and a commit each end a run. Expected rows by hand below. */
static void test_runs_fold_and_expand(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("runs.db"));
	struct store *st = store_create(path, false);
	struct proc_identity id = {.pid = 8, .start_ticks = 4, .comm = "r"};
	int64_t tid = store_target_add(st, "pid", "8", "r", 0);
	int64_t inc = store_incarnation_add(st, tid, &id, 0, 1);
	const double t0 = 1.7e9, dt = 0.01;
	double t[40];
	size_t n = 0;
	/* 0-9: equal, regular (1 row); 10-14: another value (1 row);
	 * 15-16: the first value again (1 row); 17: the same value but 3 ms
	 * late, an irregular step (a new run); 18-19 regular after it
	 * (folded with 17: 1 row); commit; 20-24: same value (1 row after
	 * the commit); 25: with smaps (its own row); 26-29: equal (1 row,
	 * written at the incarnation's end). Rows: 7. */
	for (int i = 0; i < 30; i++) {
		double ti = t0 + dt * i + (i >= 17 ? 0.003 : 0);
		double anon = i >= 10 && i < 15 ? 8192 : 4096;
		struct proc_smaps sm = {4096, 4096, 4096, 0};
		struct store_sample x = {inc, ti, mem(anon, 0, 0),
					 i == 25 ? &sm : NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
		t[n++] = ti;
		if (i == 19)
			assert_int_equal(store_commit(st), 0);
	}
	assert_int_equal(store_incarnation_end(st, inc, t[29], "exited"), 0);
	assert_int_equal(store_close(st), 0);
	assert_int_equal(rows_in(path), 7);

	struct dataset d;
	struct store_read_options ro = {.components = true};
	assert_int_equal(store_read_dataset(path, &ro, &d), 0);
	const struct series *se = &d.targets[0];
	assert_int_equal(se->n, 30);
	for (size_t i = 0; i < 30; i++) {
		assert_float_equal(se->t[i], t[i], 1e-6);
		double anon = i >= 10 && i < 15 ? 8192 : 4096;
		assert_float_equal(se->footprint[i], anon, 0);
		assert_float_equal(se->comp[COMP_ANON][i], anon, 0);
	}
	assert_float_equal(se->comp[COMP_PSS][25], 4096, 0);
	assert_true(isnan(se->comp[COMP_PSS][24]));
	dataset_release(&d);
	/* The fast (footprint-only) read expands the same. */
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.targets[0].n, 30);
	assert_float_equal(d.targets[0].t[7], t[7], 1e-6);
	dataset_release(&d);
}

/* A work reading that finished after the next tick (a slow scrape, a
 * loaded machine) is stored when the recorder collects it: after the gap
 * row of the tick that found the source still busy, with its own earlier
 * stamp. The reader used to drop it as a clock stepped back; just before
 * a counter reset that lost the increase up to it (the e2e work_metrics
 * flake: 825 for 847). The rows below are in the order the recorder
 * writes them (recorder.c: sources_collect, then sources_request). */
static void test_late_reading_kept(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("late.db"));
	struct store *st = store_create(path, false);
	struct proc_identity id = {.pid = 9, .start_ticks = 4, .comm = "w"};
	int64_t tid = store_target_add(st, "pid", "9", "w", 0);
	int64_t inc = store_incarnation_add(st, tid, &id, 0, 1);
	int64_t src = store_source_add(st, "work", "requests", "metric",
				       "http://127.0.0.1:1/metrics#x", 0);
	assert_true(src > 0);
	/* 12 ticks 0.25 s apart, equal samples: one folded run, as an idle
	 * service's (the reader gives each sample its stamp back). */
	const double t0 = 1.7e9, dt = 0.25;
	for (int k = 0; k < 12; k++) {
		struct store_sample x = {inc, t0 + dt * k, mem(4096, 0, 0),
					 NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
	}
	/* Readings 22, 44, ..., 132 at ticks 0-5; tick 5's is still in
	 * flight at tick 6 (a gap, written at once) and collected at tick 7;
	 * then the service restarts: 11, 33, ... at ticks 7-11. */
	static const struct { int tick; double v; } rows[] = {
		{0, 22}, {1, 44}, {2, 66}, {3, 88}, {4, 110},
		{6, NAN}, {5, 132},
		{7, 11}, {8, 33}, {9, 55}, {10, 77}, {11, 99},
		/* A known reading behind a known one (a wall clock stepped
		 * back, in a file from before stamps ignored such steps)
		 * still goes: it would contradict what is placed. */
		{3, 999},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(store_source_sample_add(st, src,
				 t0 + dt * rows[i].tick, rows[i].v), 0);
	assert_int_equal(store_close(st), 0);

	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	const struct series *se = &d.targets[0];
	assert_int_equal(se->n, 12);
	assert_non_null(se->requests);
	static const double want[12] = {22, 44, 66, 88, 110, 132, NAN,
					11, 33, 55, 77, 99};
	/* == rather than assert_float_equal(), which lets a NAN pass */
	for (size_t i = 0; i < 12; i++)
		assert_true(isnan(want[i]) ? isnan(se->requests[i]) :
			    se->requests[i] == want[i]);
	/* Prometheus' increase() over the readings in stamp order, by hand:
	 * 22 -> 132 is 110, the reset counts 11, 11 -> 99 is 88: 209 (187
	 * when tick 5's reading is lost). */
	double work[12];
	assert_true(idle_work_increase(se->requests, se->n, work) == 209);
	dataset_release(&d);
}

static void test_uncommitted_batch_not_visible(void **state)
{
	(void)state;
	/* A reader sees committed batches only: what a kill -9 leaves. */
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("batch.db"));
	struct store *st = store_create(path, false);
	struct proc_identity id = {.pid = 5, .start_ticks = 9, .comm = "a"};
	int64_t t = store_target_add(st, "pid", "5", "a", 0);
	int64_t inc = store_incarnation_add(st, t, &id, 0, 1);
	for (int i = 0; i < 5; i++) {
		struct store_sample s = {inc, i, mem(4096, 0, 0), NULL};
		store_sample_add(st, &s);
	}
	assert_int_equal(store_commit(st), 0);
	for (int i = 5; i < 8; i++) {
		struct store_sample s = {inc, i, mem(4096, 0, 0), NULL};
		store_sample_add(st, &s);
	}
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.targets[0].n, 5);
	dataset_release(&d);
	assert_int_equal(store_close(st), 0);
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.targets[0].n, 8);
	dataset_release(&d);
}

/* A one-target recording of >= 200,000 rows is read by two threads; it
 * must give exactly what the one-thread read (taken with components,
 * which always reads serially) gives, including the restart and a row
 * that goes back in time. */
/* Each target's latest resident figures (series_resident, issue 28): A
 * ends at t = 4, B goes on to t = 9 with its last five samples equal (the
 * writer folds them into a row standing for a run, whose time is then its
 * last stamp, t_last = 9). Fails before: the figures were not read. */
static void test_resident_latest(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("res.db"));
	struct store *st = store_create(path, false);
	assert_non_null(st);
	int64_t ta = store_target_add(st, "pid", "1", "a", 0);
	int64_t tb = store_target_add(st, "pid", "2", "b", 0);
	struct proc_identity a = {.pid = 1, .start_ticks = 1, .comm = "a"};
	struct proc_identity b = {.pid = 2, .start_ticks = 2, .comm = "b"};
	int64_t ia = store_incarnation_add(st, ta, &a, 0, 0);
	int64_t ib = store_incarnation_add(st, tb, &b, 0, 0);
	for (int i = 0; i < 10; i++) {
		if (i < 5) {
			struct store_sample s = {ia, i, mem(1e6 + 4096 * i, 0,
							    8192), NULL};
			assert_int_equal(store_sample_add(st, &s), 0);
		}
		struct store_sample s = {ib, i, mem(2e6 + 4096 * (i < 5 ? i :
						    5), 4096, 0), NULL};
		assert_int_equal(store_sample_add(st, &s), 0);
	}
	assert_int_equal(store_close(st), 0);
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.n_targets, 2);
	const struct series_resident *ra = &d.targets[0].resident,
				     *rb = &d.targets[1].resident;
	assert_float_equal(ra->t, 4, 0);
	assert_float_equal(ra->anon, 1e6 + 4 * 4096, 0);
	assert_float_equal(ra->rss, 1e6 + 5 * 4096, 0);  /* mem(): + file */
	assert_float_equal(ra->file, 4096, 0);
	assert_float_equal(ra->shmem, 8192, 0);
	assert_float_equal(ra->swap, 0, 0);
	assert_float_equal(rb->t, 9, 0);
	assert_float_equal(rb->anon, 2e6 + 5 * 4096, 0);
	assert_float_equal(rb->swap, 4096, 0);
	dataset_release(&d);
}

static void test_parallel_read_equals_serial(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("big.db"));
	struct store *st = store_create(path, false);
	int64_t t = store_target_add(st, "name", "svc", "svc", 0);
	struct proc_identity a = {.pid = 5, .start_ticks = 9, .comm = "svc"};
	struct proc_identity b = {.pid = 6, .start_ticks = 99, .comm = "svc"};
	int64_t ia = store_incarnation_add(st, t, &a, 0, 0);
	int64_t ib = store_incarnation_add(st, t, &b, 0, 150000);
	const int rows = 250000;
	for (int i = 0; i < rows; i++) {
		double ti = i == 1000 ? 10.0 : (double)i;  /* back in time */
		double fp = (double)(4096 * (i % 977));
		struct store_sample s = {i < 150000 ? ia : ib, ti,
					 mem(fp, 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &s), 0);
		if (i % 50000 == 0)
			store_commit(st);
	}
	assert_int_equal(store_close(st), 0);
	struct dataset par, ser;
	struct store_read_options with_comp = {.components = true};
	assert_int_equal(store_read_dataset(path, NULL, &par), 0);
	assert_int_equal(store_read_dataset(path, &with_comp, &ser), 0);
	struct series *p = &par.targets[0], *q = &ser.targets[0];
	assert_int_equal(p->n, rows - 1);  /* the backwards row dropped */
	assert_int_equal(p->n, q->n);
	assert_memory_equal(p->t, q->t, p->n * sizeof(double));
	assert_memory_equal(p->footprint, q->footprint, p->n * sizeof(double));
	assert_memory_equal(p->inc, q->inc, p->n * sizeof(uint32_t));
	assert_int_equal(p->inc[0], 0);
	assert_int_equal(p->inc[p->n - 1], 1);
	assert_int_equal(par.n_notes, 1);  /* "1 samples out of time order" */
	/* The latest row's RSS and parts (issue 28): row 249,999, anon
	 * 4096 * (249999 % 977), file 4096 (mem()), by both readers. */
	double anon = 4096.0 * (249999 % 977);
	assert_float_equal(p->resident.t, 249999, 0);
	assert_float_equal(p->resident.anon, anon, 0);
	assert_float_equal(p->resident.rss, anon + 4096, 0);
	assert_float_equal(p->resident.file, 4096, 0);
	assert_memory_equal(&p->resident, &q->resident, sizeof(p->resident));
	dataset_release(&par);
	dataset_release(&ser);
}

/* A number from the file through the sqlite3 shell (query: ours). */
static long query_long(const char *path, const char *query)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"%s\"", path, query);
	FILE *p = popen(cmd, "r");
	long n = -1;
	if (p) {
		if (fscanf(p, "%ld", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* record --retain: store_retain(st, cut, max_rows). 1,000 samples at t =
 * 0..999, each different except t = 495..505, a run of 11 equal ones
 * (one row: the commits, at i = 49, 149, ..., do not cut it) that straddles the
 * cut at 500 and is kept whole; one system, cgroup, note, source and
 * gpu_device row per second; GPU region A written once at t = 10 (in
 * force at the cut: kept), region B at 100, 200 and 600 (100 is
 * superseded by 200 before the cut: deleted; 200 is in force at the cut:
 * kept); likewise an allocation site A's value (record --sites) at t =
 * 10, site B's at 100, 200 and 600, and the site table's counts at 100,
 * 200 and 600. Rows by hand: samples 0..494 are 495 rows, the run 1,
 * 506..999 494: 990 rows; after the cut 1 + 494 = 495. */
static void test_retain_window(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("retain.db"));
	struct store *st = store_create(path, false);
	assert_non_null(st);
	int64_t tid = store_target_add(st, "pid", "7", "svc", 0);
	struct proc_identity id = {.pid = 7, .start_ticks = 3, .comm = "svc"};
	int64_t inc = store_incarnation_add(st, tid, &id, 0, 0);
	int64_t cg = store_cgroup_add(st, "v2:/svc");
	int64_t src = store_source_add(st, "work", "requests", "command",
				       "echo 1", 0);
	struct sys_mem sys = {.mem_total = 1e9, .mem_available = 5e8,
			      .swap_total = 0, .swap_free = 0,
			      .psi_some_avg10 = NAN, .psi_full_avg10 = NAN,
			      .psi_some_total = NAN, .psi_full_total = NAN};
	struct cgroup_mem cm = {.current = 1e6, .max = NAN, .peak = NAN};
	struct sample_site_frame fr = {.address = 0x401000, .module = "/svc",
				       .function = "keep"};
	struct sample_site sa = {1, inc, &fr, 1}, sb = {2, inc, &fr, 1};
	int64_t site_a = store_site_add(st, inc, 0, &sa);
	int64_t site_b = store_site_add(st, inc, 0, &sb);
	assert_true(site_a > 0 && site_b > 0);
	for (int i = 0; i < 1000; i++) {
		double k = i >= 495 && i <= 505 ? 495 : i;
		struct store_sample x = {inc, (double)i,
					 mem(4096.0 * (k + 1), 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
		assert_int_equal(store_system_add(st, i, &sys), 0);
		assert_int_equal(store_cgroup_sample_add(st, cg, i, &cm), 0);
		assert_int_equal(store_note_add(st, i, inc, "n"), 0);
		assert_int_equal(store_source_sample_add(st, src, i, i), 0);
		assert_int_equal(store_gpu_device_add(st, i, "nvml", 0, 8e9,
						      1e9), 0);
		if (i == 10 || i == 100 || i == 200 || i == 600) {
			struct store_gpu_row g = {"drm", i == 10 ? "A" : "B",
						  "device", i, i, 0, 0};
			assert_int_equal(store_gpu_add(st, inc, i, &g), 0);
			assert_int_equal(store_site_sample_add(st, i == 10 ?
				site_a : site_b, i, 1000.0 * i, NAN, i), 0);
			struct sample_site_stats ss = {.rate = 512,
				.depth = 8, .sampled = i, .dropped_sites = 0,
				.dropped_live = 0, .live_blocks = i,
				.backtrace_s = 0};
			if (i != 10)
				assert_int_equal(store_site_stats_add(st, inc,
							i, &ss), 0);
		}
		if (i % 100 == 49)
			assert_int_equal(store_commit(st), 0);
	}
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(rows_in(path), 990);
	assert_int_equal(query_long(path, "PRAGMA auto_vacuum"), 2);

	/* Bounded: max_rows 10 deletes the 10 oldest rows of each table,
	 * no more. */
	int64_t n = store_retain(st, 500, 10);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(rows_in(path), 980);
	assert_int_equal(query_long(path, "SELECT min(t) FROM sample"), 10);
	/* notes are kept (said once for the whole recording) */
	assert_int_equal(query_long(path, "SELECT count(*) FROM note"), 1000);
	/* 10 rows of each of the 5 plain tables (the sample table's may
	 * keep 1), and each table of rows in force its superseded row */
	assert_true(n >= 52 && n <= 53);
	/* Until nothing older is left. */
	int calls = 0;
	while ((n = store_retain(st, 500, 100)) > 0)
		calls++;
	assert_int_equal(n, 0);
	assert_true(calls >= 5 && calls <= 6);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(rows_in(path), 495);
	assert_int_equal(query_long(path, "SELECT count(*) FROM sample "
				    "WHERE coalesce(t_last, t) < 500"), 0);
	assert_int_equal(query_long(path, "SELECT repeats FROM sample "
				    "WHERE t = 495"), 11);
	assert_int_equal(query_long(path, "SELECT count(*) FROM note"), 1000);
	static const char *const tables[] = {"system_sample",
		"cgroup_sample", "source_sample", "gpu_device"};
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		char q[128];
		snprintf(q, sizeof(q), "SELECT count(*) FROM %s WHERE t < 500",
			 tables[i]);
		assert_int_equal(query_long(path, q), 0);
		snprintf(q, sizeof(q), "SELECT count(*) FROM %s", tables[i]);
		assert_int_equal(query_long(path, q), 500);
	}
	assert_int_equal(query_long(path, "SELECT group_concat(CAST(t AS "
				    "INTEGER), '') FROM (SELECT t FROM "
				    "gpu_sample ORDER BY t)"),
			 10200600);
	/* the sites: each one's value in force at the cut stays */
	assert_int_equal(query_long(path, "SELECT group_concat(CAST(t AS "
				    "INTEGER), '') FROM (SELECT t FROM "
				    "site_sample ORDER BY t)"),
			 10200600);
	assert_int_equal(query_long(path, "SELECT group_concat(CAST(t AS "
				    "INTEGER), '') FROM (SELECT t FROM "
				    "site_stats ORDER BY t)"),
			 200600);
	assert_int_equal(query_long(path, "SELECT count(*) FROM "
				    "incarnation"), 1);
	assert_int_equal(store_close(st), 0);

	/* The reader sees the window: it starts at the run kept whole. */
	struct dataset d;
	assert_int_equal(store_read_dataset(path, NULL, &d), 0);
	assert_int_equal(d.targets[0].n, 505);
	assert_float_equal(d.targets[0].t[0], 495, 1e-6);
	assert_float_equal(d.targets[0].t[504], 999, 1e-6);
	assert_int_equal(d.targets[0].n_incs, 1);
	dataset_release(&d);
}

/* --append --retain to a file of an older memtrend (no auto_vacuum; made
 * here with a VACUUM): the window holds, and the pages freed by the
 * deletions are reused, so adding as many rows as were deleted does not
 * grow the file (but for a few pages: without reuse, by the dozen or
 * so pages that 1,000 rows take). 2,000 samples, each different, t = 0..1999; cut at
 * 1,000; then 1,000 more. */
static void test_retain_append_old_file(void **state)
{
	(void)state;
	char path[128], cmd[256];
	snprintf(path, sizeof(path), "%s", path_of("old.db"));
	struct store *st = store_create(path, false);
	int64_t tid = store_target_add(st, "pid", "9", "old", 0);
	struct proc_identity id = {.pid = 9, .start_ticks = 2, .comm = "old"};
	int64_t inc = store_incarnation_add(st, tid, &id, 0, 0);
	for (int i = 0; i < 2000; i++) {
		struct store_sample x = {inc, (double)i,
					 mem(4096.0 * (i + 1), 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
	}
	assert_int_equal(store_close(st), 0);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA auto_vacuum=NONE; "
		 "VACUUM' > /dev/null", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(query_long(path, "PRAGMA auto_vacuum"), 0);
	long pages = query_long(path, "PRAGMA page_count");

	st = store_create(path, true);
	assert_non_null(st);
	inc = store_incarnation_add(st, tid, &id, 0, 0);
	while (store_retain(st, 1000, 300) > 0)
		;
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(rows_in(path), 1000);
	assert_true(query_long(path, "PRAGMA freelist_count") > 0);
	for (int i = 2000; i < 3000; i++) {
		struct store_sample x = {inc, (double)i,
					 mem(4096.0 * (i + 1), 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
	}
	assert_int_equal(store_close(st), 0);
	assert_int_equal(rows_in(path), 2000);
	/* 1,000 rows take a dozen pages or more; the index that the first
	 * retention makes (gpu_sample_region) and a page split or two
	 * may add some (measured: 36 -> 38). */
	assert_true(query_long(path, "PRAGMA page_count") <= pages + 4);
	assert_int_equal(query_long(path, "SELECT min(t) FROM sample"), 1000);
}

/* A new file (auto_vacuum=INCREMENTAL) gives free pages back: 150,000
 * samples (about 1,550 pages), then a cut that leaves the last 1,000.
 * store_retain keeps max(1,024, pages / 8) free pages for reuse and
 * hands back 256 per call while it has more, so after the deletions (15
 * calls of 10,000 rows) the file is about 1,024 free pages (give or take
 * the last 256 handed back) plus the few pages of the rows left. */
static void test_retain_gives_pages_back(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s", path_of("shrink.db"));
	struct store *st = store_create(path, false);
	int64_t tid = store_target_add(st, "pid", "4", "big", 0);
	struct proc_identity id = {.pid = 4, .start_ticks = 1, .comm = "big"};
	int64_t inc = store_incarnation_add(st, tid, &id, 0, 0);
	const int n = 150000;
	for (int i = 0; i < n; i++) {
		struct store_sample x = {inc, (double)i,
					 mem(4096.0 * (i + 1), 0, 0), NULL};
		assert_int_equal(store_sample_add(st, &x), 0);
	}
	assert_int_equal(store_commit(st), 0);
	long before = query_long(path, "PRAGMA page_count");
	assert_true(before > 1500);
	int calls = 0;
	while (store_retain(st, n - 1000, 10000) > 0) {
		assert_int_equal(store_commit(st), 0);
		calls++;
	}
	assert_int_equal(calls, 15);
	assert_int_equal(store_close(st), 0);
	assert_int_equal(rows_in(path), 1000);
	long after = query_long(path, "PRAGMA page_count");
	long free_pages = query_long(path, "PRAGMA freelist_count");
	/* measured: 1,557 pages -> 1,046, of which 1,014 free */
	assert_true(after < before - 400);
	assert_true(after < 1024 + 256 + 64);
	assert_true(free_pages > 1024 - 256 && free_pages < 1024 + 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refuses_existing_and_appends),
		cmocka_unit_test(test_not_a_recording),
		cmocka_unit_test(test_uncommitted_batch_not_visible),
		cmocka_unit_test(test_parallel_read_equals_serial),
		cmocka_unit_test(test_resident_latest),
		cmocka_unit_test(test_gpu_round_trip_and_upgrade),
		cmocka_unit_test(test_sites_variance_round_trip_and_upgrade),
		cmocka_unit_test(test_runs_fold_and_expand),
		cmocka_unit_test(test_late_reading_kept),
		cmocka_unit_test(test_parallel_read_expands_runs),
		cmocka_unit_test(test_retain_window),
		cmocka_unit_test(test_retain_append_old_file),
		cmocka_unit_test(test_retain_gives_pages_back),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
