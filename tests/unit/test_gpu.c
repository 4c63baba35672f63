/*
 * test_gpu.c - unit tests for the GPU probe (probe_drm.c, probe_nvml.c).
 *
 *   - DRM fdinfo: fixture trees under $FIXTURES/proc-gpu (see its README),
 *     one per kind of driver, written as expected figures. Every expected
 *     sum is worked out by hand in the comment beside it from the fixture
 *     files, not produced by the code under test. A scratch tree under /tmp
 *     checks the permission cases (as root, in a child that drops to
 *     nobody, since root reads everything);
 *   - the DRM watch (gpu_drm_watch_*): the same fixtures, compared with
 *     probe_gpu_drm_read, and scratch trees under /tmp that each test
 *     changes between reads at now_mono values it chooses, to show which
 *     files a read looked at: a client added on an fd that was not DRM at
 *     the last full scan is seen only by the next full scan;
 *   - NVML: the fake library tests/helpers/fake_nvml.c ($FAKE_NVML_LIB),
 *     driven by a script file ($FAKE_NVML_SCRIPT) that each test rewrites,
 *     loaded through gpu_nvml_open's override path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "probe_gpu.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

static const char *fixtures;
static const char *fake_lib;
static char proc_gpu[1024];
static char script_path[256];

/* Both absent, or equal (every figure here is exact in a double). */
static void check_figure(const char *what, double want, double got)
{
	if (isnan(want) && isnan(got))
		return;
	if (isnan(want) != isnan(got) || fabs(want - got) > 1e-6) {
		print_error("%s: want %.17g, got %.17g\n", what, want, got);
		fail();
	}
}

static const struct gpu_region *region(const struct gpu_usage *u,
				       const char *name)
{
	for (size_t i = 0; i < u->n_regions; i++)
		if (strcmp(u->regions[i].name, name) == 0)
			return &u->regions[i];
	print_error("no region '%s'\n", name);
	fail();
	return NULL;
}

static void check_region(const struct gpu_usage *u, const char *name,
			 enum gpu_region_kind kind, double total,
			 double resident, double shared, double purgeable)
{
	const struct gpu_region *r = region(u, name);
	char what[64];
	assert_int_equal(r->kind, kind);
	snprintf(what, sizeof(what), "%s total", name);
	check_figure(what, total, r->total);
	snprintf(what, sizeof(what), "%s resident", name);
	check_figure(what, resident, r->resident);
	snprintf(what, sizeof(what), "%s shared", name);
	check_figure(what, shared, r->shared);
	snprintf(what, sizeof(what), "%s purgeable", name);
	check_figure(what, purgeable, r->purgeable);
}

static int read_fx(pid_t pid, struct gpu_usage *u)
{
	return probe_gpu_drm_read(proc_gpu, pid, u);
}

/* ---- classification ------------------------------------------------- */

static void test_region_kind(void **state)
{
	(void)state;
	const char *device[] = {"vram", "vram0", "vram1", "local0", "lmem",
				"stolen", "stolen-system0", "stolen-local0"};
	const char *host[] = {"system", "system0", "gtt", "cpu", "memory"};
	const char *other[] = {"", "vramx", "foo", "0", "gart", "sys"};
	for (size_t i = 0; i < ARRAY_SIZE(device); i++)
		assert_int_equal(gpu_region_kind_of(device[i]),
				 GPU_REGION_DEVICE);
	for (size_t i = 0; i < ARRAY_SIZE(host); i++)
		assert_int_equal(gpu_region_kind_of(host[i]), GPU_REGION_HOST);
	for (size_t i = 0; i < ARRAY_SIZE(other); i++)
		assert_int_equal(gpu_region_kind_of(other[i]),
				 GPU_REGION_OTHER);
}

/* ---- DRM fixtures --------------------------------------------------- */

static void test_drm_amdgpu(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1001, &u), PROBE_OK);
	assert_false(u.denied);
	/* client 7 @03:00.0 (fds 3+4, once), client 9, client 7 @04:00.0 */
	assert_int_equal(u.n_clients, 3);
	assert_int_equal(u.n_regions, 3);
	assert_false(u.regions_dropped);
	/* vram total: 1048576 KiB (c7) + 16 MiB (c7') = 1073741824 + 16777216
	 *   = 1090519040; client 9 reports no total.
	 * vram resident: 786432 KiB (c7 drm-resident; its drm-memory-vram is
	 *   not added) + 131072 KiB (c9 legacy drm-memory) + 16 MiB (c7')
	 *   = 805306368 + 134217728 + 16777216 = 956301312.
	 * shared and purgeable: only c7, both 0. */
	check_region(&u, "vram", GPU_REGION_DEVICE, 1090519040.0, 956301312.0,
		     0, 0);
	/* gtt total 64 MiB = 67108864 (c7); resident 64 MiB (c7) + 2048 KiB
	 * (c9 legacy) = 67108864 + 2097152 = 69206016. */
	check_region(&u, "gtt", GPU_REGION_HOST, 67108864.0, 69206016.0, NAN,
		     NAN);
	check_region(&u, "cpu", GPU_REGION_HOST, 0, 0, NAN, NAN);
	/* Only vram is device-local. */
	check_figure("device_local", 956301312.0, u.device_local);
}

static void test_drm_intel(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1002, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 3);
	assert_int_equal(u.n_regions, 7);
	/* system0: i915 @00:02.0 8 MiB + i915 @05:00.0 1 MiB = 9437184 */
	check_region(&u, "system0", GPU_REGION_HOST, 9437184.0, 9437184.0, 0,
		     0);
	check_region(&u, "stolen-system0", GPU_REGION_DEVICE, 0, 0, 0, 0);
	/* (xe's drm-total-cycles-rcs is an engine counter, not a region.)
	 * xe: system 4096 KiB = 4194304; gtt 0; vram0 total 512 MiB =
	 * 536870912, resident 500 MiB = 524288000, shared 2 MiB = 2097152 */
	check_region(&u, "system", GPU_REGION_HOST, 4194304.0, 4194304.0, 0,
		     0);
	check_region(&u, "gtt", GPU_REGION_HOST, 0, 0, 0, NAN);
	check_region(&u, "vram0", GPU_REGION_DEVICE, 536870912.0, 524288000.0,
		     2097152.0, 0);
	check_region(&u, "stolen", GPU_REGION_DEVICE, 0, 0, 0, NAN);
	/* i915 discrete: local0 256 MiB = 268435456, resident 200 MiB =
	 * 209715200 */
	check_region(&u, "local0", GPU_REGION_DEVICE, 268435456.0, 209715200.0,
		     NAN, NAN);
	/* 524288000 (vram0) + 209715200 (local0) + 0 + 0 (stolen) */
	check_figure("device_local", 734003200.0, u.device_local);
}

static void test_drm_unified(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1003, &u), PROBE_OK);
	/* panfrost, msm, and the id-less v3d client once per fd (5 and 6) */
	assert_int_equal(u.n_clients, 4);
	assert_int_equal(u.n_regions, 1);
	/* total: 290 MiB + 10240 KiB + 1 MiB + 1 MiB
	 *   = 304087040 + 10485760 + 1048576 + 1048576 = 316669952
	 * resident: 36496 KiB + 8 MiB + 1 MiB + 1 MiB
	 *   = 37371904 + 8388608 + 2097152 = 47857664
	 * shared: "0 MiB" + 0 = 0; purgeable: 128 KiB + 0 = 131072 */
	check_region(&u, "memory", GPU_REGION_HOST, 316669952.0, 47857664.0, 0,
		     131072.0);
	/* Clients, but all in host memory: 0, not absent. */
	check_figure("device_local", 0, u.device_local);
}

static void test_drm_malformed(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1004, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 1);
	/* Skipped: "12 GiB" (unknown unit), "lots", no colon, "-5", a 23-digit
	 * overflow, "1 MiB extra", an empty region name, a 38-character one,
	 * ": nothing", "drm-", "garbage" and the 5000-byte line. */
	assert_int_equal(u.n_regions, 2);
	/* vram: total 4 MiB = 4194304, shared 4096 (no unit: bytes), resident
	 * 3072 KiB = 3145728 (the last line, no newline), purgeable absent */
	check_region(&u, "vram", GPU_REGION_DEVICE, 4194304.0, 3145728.0,
		     4096.0, NAN);
	/* gtt: total "2 KiB" = 2048, shared "   512   " = 512, resident never
	 * parsed: absent */
	check_region(&u, "gtt", GPU_REGION_HOST, 2048.0, NAN, 512.0, NAN);
	check_figure("device_local", 3145728.0, u.device_local);
}

static void test_drm_no_client(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1005, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 0);
	assert_int_equal(u.n_regions, 0);
	assert_false(u.denied);
	assert_true(isnan(u.device_local));
}

static void test_drm_resident_missing(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1006, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 1);
	check_region(&u, "vram0", GPU_REGION_DEVICE, 64 * MIB, NAN, NAN, NAN);
	check_region(&u, "system", GPU_REGION_HOST, MIB, MIB, NAN, NAN);
	/* vram0 has no resident figure: the device-local sum is unknown */
	assert_true(isnan(u.device_local));
}

static void test_drm_gone_and_env_root(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(9999, &u), PROBE_GONE);
	assert_true(isnan(u.device_local));
	/* NULL proc_root: $MEMTREND_PROC_ROOT */
	setenv("MEMTREND_PROC_ROOT", proc_gpu, 1);
	assert_int_equal(probe_gpu_drm_read(NULL, 1003, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 4);
	unsetenv("MEMTREND_PROC_ROOT");
}

static void test_drm_real_self(void **state)
{
	(void)state;
	struct gpu_usage u;
	/* This process: readable; whatever DRM fds it has (normally none). */
	assert_int_equal(probe_gpu_drm_read("/proc", getpid(), &u), PROBE_OK);
	assert_false(u.denied);
}

/* ---- permissions (scratch tree) ------------------------------------ */

static const char drm_fdinfo[] =
	"pos:\t0\ndrm-driver:\tamdgpu\ndrm-client-id:\t1\n"
	"drm-resident-vram:\t1 MiB\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* 0 when both denial cases read as PROBE_DENIED, else a code. Run as
 * whoever cannot bypass permissions. */
static int denial_checks(const char *root, const char *dir, const char *file)
{
	struct gpu_usage u;
	/* fdinfo directory unreadable */
	if (chmod(dir, 0) != 0)
		return 10;
	if (probe_gpu_drm_read(root, 77, &u) != PROBE_DENIED || !u.denied ||
	    !isnan(u.device_local))
		return 11;
	/* directory readable, one file not */
	if (chmod(dir, 0755) != 0 || chmod(file, 0) != 0)
		return 12;
	if (probe_gpu_drm_read(root, 77, &u) != PROBE_DENIED || !u.denied ||
	    u.n_clients != 0)
		return 13;
	if (chmod(file, 0644) != 0)
		return 14;
	if (probe_gpu_drm_read(root, 77, &u) != PROBE_OK || u.denied ||
	    u.n_clients != 1)
		return 15;
	return 0;
}

typedef int denial_fn(const char *root, const char *dir, const char *file);

/* Build ROOT/77/fdinfo/3 (drm_fdinfo) and run checks on it as a user
 * that permissions apply to; they return 0 or a code. */
static void run_denial(denial_fn *checks)
{
	char root[] = "/tmp/memtrend-gpu-XXXXXX";
	assert_non_null(mkdtemp(root));
	assert_int_equal(chmod(root, 0755), 0);
	char pid_dir[64], dir[96], file[128];
	snprintf(pid_dir, sizeof(pid_dir), "%s/77", root);
	snprintf(dir, sizeof(dir), "%s/fdinfo", pid_dir);
	snprintf(file, sizeof(file), "%s/3", dir);
	assert_int_equal(mkdir(pid_dir, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(file, drm_fdinfo);

	int rc;
	if (geteuid() != 0) {
		rc = checks(root, dir, file);
	} else {
		/* root reads everything: check as nobody, in a child that
		 * owns the tree so it may chmod it. */
		assert_int_equal(chown(pid_dir, 65534, 65534), 0);
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(chown(file, 65534, 65534), 0);
		pid_t child = fork();
		assert_true(child >= 0);
		if (child == 0) {
			if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
			    setuid(65534) != 0)
				_exit(2);
			_exit(checks(root, dir, file));
		}
		int st;
		assert_int_equal(waitpid(child, &st, 0), child);
		assert_true(WIFEXITED(st));
		rc = WEXITSTATUS(st);
		chmod(dir, 0755);
		chmod(file, 0644);
	}
	unlink(file);
	rmdir(dir);
	rmdir(pid_dir);
	rmdir(root);
	if (rc != 0)
		print_error("denial check failed with code %d\n", rc);
	assert_int_equal(rc, 0);
}

static void test_drm_denied(void **state)
{
	(void)state;
	run_denial(denial_checks);
}

/* ---- NVIDIA's DRM driver -------------------------------------------- */

static void check_nvidia_fixture(const struct gpu_usage *u)
{
	/* nvidia-drm client 21 (fds 3 and 5, counted once) and amdgpu client
	 * 2 (fd 4); fd 0 is a regular file. */
	assert_int_equal(u->n_clients, 2);
	assert_int_equal(u->n_regions, 4);
	/* nvidia: vram0 3145728 KiB = 3221225472 total, 2097152 KiB =
	 * 2147483648 resident; system 4 MiB = 4194304 */
	check_region(u, "vram0", GPU_REGION_DEVICE, 3221225472.0,
		     2147483648.0, NAN, NAN);
	check_region(u, "system", GPU_REGION_HOST, 4194304.0, 4194304.0, NAN,
		     NAN);
	/* amdgpu: vram 1048576 KiB = 1073741824 total, 524288 KiB =
	 * 536870912 resident; gtt 2 MiB = 2097152 resident */
	check_region(u, "vram", GPU_REGION_DEVICE, 1073741824.0, 536870912.0,
		     NAN, NAN);
	check_region(u, "gtt", GPU_REGION_HOST, NAN, 2097152.0, NAN, NAN);
	/* 2147483648 (vram0) + 536870912 (vram) = 2684354560, of which the
	 * nvidia-drm client's vram0, 2147483648 */
	check_figure("device_local", 2684354560.0, u->device_local);
	check_figure("device_local_nvidia", 2147483648.0,
		     u->device_local_nvidia);
}

static void test_drm_nvidia(void **state)
{
	(void)state;
	struct gpu_usage u;
	assert_int_equal(read_fx(1007, &u), PROBE_OK);
	check_nvidia_fixture(&u);
	/* Clients, none nvidia*: 0 (1001: 956301312 device-local, all
	 * amdgpu). No client (1005), or device_local unknown (1006): NAN. */
	assert_int_equal(read_fx(1001, &u), PROBE_OK);
	check_figure("1001 nvidia", 0, u.device_local_nvidia);
	assert_int_equal(read_fx(1005, &u), PROBE_OK);
	check_figure("1005 nvidia", NAN, u.device_local_nvidia);
	assert_int_equal(read_fx(1006, &u), PROBE_OK);
	check_figure("1006 nvidia", NAN, u.device_local_nvidia);
	/* And through a watch, on a full scan and between. */
	struct gpu_drm_watch *w = gpu_drm_watch_new(proc_gpu, 1007, 10.0);
	assert_non_null(w);
	assert_int_equal(gpu_drm_watch_read(w, 0.0, &u), PROBE_OK);
	check_nvidia_fixture(&u);
	assert_int_equal(gpu_drm_watch_read(w, 1.0, &u), PROBE_OK);
	check_nvidia_fixture(&u);
	gpu_drm_watch_free(w);
}

/* ---- the DRM watch -------------------------------------------------- */

/* Every field of a and b alike (regions in the same order). */
static void check_same(const struct gpu_usage *a, const struct gpu_usage *b)
{
	assert_int_equal(a->n_clients, b->n_clients);
	assert_int_equal(a->n_regions, b->n_regions);
	assert_int_equal(a->regions_dropped, b->regions_dropped);
	assert_int_equal(a->denied, b->denied);
	for (size_t i = 0; i < a->n_regions; i++) {
		const struct gpu_region *r = &a->regions[i];
		assert_string_equal(r->name, b->regions[i].name);
		check_region(b, r->name, r->kind, r->total, r->resident,
			     r->shared, r->purgeable);
	}
	check_figure("device_local", a->device_local, b->device_local);
	check_figure("device_local_nvidia", a->device_local_nvidia,
		     b->device_local_nvidia);
}

static void test_watch_fixtures(void **state)
{
	(void)state;
	for (pid_t pid = 1001; pid <= 1007; pid++) {
		struct gpu_usage want, got;
		assert_int_equal(read_fx(pid, &want), PROBE_OK);
		struct gpu_drm_watch *w =
			gpu_drm_watch_new(proc_gpu, pid, 10.0);
		assert_non_null(w);
		/* 0: first read, full scan; 1 and 9.5: the DRM fds only;
		 * 10: full scan again; 10.5: DRM fds only. */
		const double at[] = {0.0, 1.0, 9.5, 10.0, 10.5};
		for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
			memset(&got, 0xa5, sizeof(got));
			assert_int_equal(gpu_drm_watch_read(w, at[i], &got),
					 PROBE_OK);
			check_same(&want, &got);
		}
		if (pid == 1001) {
			/* Figures from test_drm_amdgpu, read between scans
			 * (fds 3, 4, 5, 6 only; 8 looks like DRM but has no
			 * drm-driver and is not remembered). */
			assert_int_equal(got.n_clients, 3);
			check_figure("1001 device_local", 956301312.0,
				     got.device_local);
			check_figure("1001 nvidia", 0, got.device_local_nvidia);
		}
		if (pid == 1005) { /* no client: nothing to read between */
			assert_int_equal(got.n_clients, 0);
			assert_true(isnan(got.device_local));
			assert_true(isnan(got.device_local_nvidia));
		}
		gpu_drm_watch_free(w);
	}
	/* No such process: gone on the first read, and on the next. */
	struct gpu_drm_watch *w = gpu_drm_watch_new(proc_gpu, 9999, 10.0);
	struct gpu_usage u;
	assert_int_equal(gpu_drm_watch_read(w, 0.0, &u), PROBE_GONE);
	assert_false(u.denied);
	assert_true(isnan(u.device_local));
	assert_int_equal(gpu_drm_watch_read(w, 1.0, &u), PROBE_GONE);
	gpu_drm_watch_free(w);
	/* NULL proc_root: $MEMTREND_PROC_ROOT, taken at gpu_drm_watch_new */
	setenv("MEMTREND_PROC_ROOT", proc_gpu, 1);
	w = gpu_drm_watch_new(NULL, 1003, 10.0);
	unsetenv("MEMTREND_PROC_ROOT");
	assert_int_equal(gpu_drm_watch_read(w, 0.0, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 4);
	gpu_drm_watch_free(w);
	gpu_drm_watch_free(NULL);
	/* A root longer than any path the system opens (ENAMETOOLONG): an
	 * error at the read, as probe_gpu_drm_read's, not at new. */
	char *long_root = xmalloc(5001);
	memset(long_root, 'a', 5000);
	long_root[0] = '/';
	long_root[5000] = '\0';
	assert_int_equal(probe_gpu_drm_read(long_root, 1, &u), PROBE_ERROR);
	w = gpu_drm_watch_new(long_root, 1, 10.0);
	assert_non_null(w);
	assert_int_equal(gpu_drm_watch_read(w, 0.0, &u), PROBE_ERROR);
	assert_true(isnan(u.device_local));
	gpu_drm_watch_free(w);
	free(long_root);
}

/* A scratch proc root ROOT/77/fdinfo whose files the tests rewrite. */
struct tree {
	char root[64];
	char dir[128];
};

#define TREE_FD_MAX 16 /* fd numbers the tests use: 0..15 */

static const char not_drm[] = "pos:\t0\nflags:\t0100002\nmnt_id:\t25\n";

static void tree_make(struct tree *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/memtrend-gpuw-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	char pid_dir[96];
	snprintf(pid_dir, sizeof(pid_dir), "%s/77", t->root);
	snprintf(t->dir, sizeof(t->dir), "%s/fdinfo", pid_dir);
	assert_int_equal(mkdir(pid_dir, 0755), 0);
	assert_int_equal(mkdir(t->dir, 0755), 0);
}

/* fdinfo/fd: text, or none when text is NULL. */
static void tree_fd(const struct tree *t, int fd, const char *text)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d", t->dir, fd);
	if (text)
		write_file(path, text);
	else
		assert_int_equal(unlink(path), 0);
}

/* fdinfo/fd: an amdgpu client `id` with `mib` MiB resident in vram. */
static void tree_client(const struct tree *t, int fd, int id, int mib)
{
	char text[256];
	snprintf(text, sizeof(text),
		 "pos:\t0\ndrm-driver:\tamdgpu\ndrm-client-id:\t%d\n"
		 "drm-pdev:\t0000:03:00.0\ndrm-resident-vram:\t%d MiB\n",
		 id, mib);
	tree_fd(t, fd, text);
}

static void tree_remove(const struct tree *t)
{
	char path[160];
	for (int fd = 0; fd < TREE_FD_MAX; fd++) {
		snprintf(path, sizeof(path), "%s/%d", t->dir, fd);
		unlink(path);
	}
	rmdir(t->dir);
	snprintf(path, sizeof(path), "%s/77", t->root);
	rmdir(path);
	rmdir(t->root);
}

/* Read w at now: PROBE_OK, n clients, device_local mib MiB. */
static void watch_expect(struct gpu_drm_watch *w, double now, size_t n,
			 double mib)
{
	struct gpu_usage u;
	assert_int_equal(gpu_drm_watch_read(w, now, &u), PROBE_OK);
	assert_false(u.denied);
	if (u.n_clients != n)
		print_error("at %g: %zu clients, want %zu\n", now,
			    u.n_clients, n);
	assert_int_equal(u.n_clients, n);
	check_figure("device_local", mib * MIB, u.device_local);
}

static void watch_between_rescans(void)
{
	struct tree t;
	tree_make(&t);
	tree_fd(&t, 0, not_drm);
	tree_client(&t, 3, 1, 1);
	tree_fd(&t, 4, not_drm);
	struct gpu_drm_watch *w = gpu_drm_watch_new(t.root, 77, 5.0);
	assert_non_null(w);
	watch_expect(w, 100.0, 1, 1); /* full scan: fd 3, 1 MiB */

	/* fd 3 grows to 2 MiB: re-read between scans. fd 0 becomes a client
	 * of 4 MiB, fd 4 is removed and fd 5 appears with 16 MiB: none of
	 * them was a DRM fd at the scan, so none is read before it is due. */
	tree_client(&t, 3, 1, 2);
	tree_client(&t, 0, 2, 4);
	tree_fd(&t, 4, NULL);
	tree_client(&t, 5, 3, 16);
	watch_expect(w, 101.0, 1, 2);
	watch_expect(w, 104.9, 1, 2);
	/* 5 s after the scan: a full scan sees them, 2 + 4 + 16 = 22 MiB */
	watch_expect(w, 105.0, 3, 22);
	/* fd 0 goes back to a plain file: a remembered fd no longer DRM, a
	 * full scan at once: 2 + 16 = 18 MiB */
	tree_fd(&t, 0, not_drm);
	watch_expect(w, 105.1, 2, 18);
	/* A clock before the last scan, or NAN, scans in full (fd 6 new:
	 * 18 + 32 = 50 MiB, then fd 7: 50 + 64 = 114 MiB). */
	tree_client(&t, 6, 4, 32);
	watch_expect(w, 50.0, 3, 50);
	tree_client(&t, 7, 5, 64);
	watch_expect(w, NAN, 4, 114);
	gpu_drm_watch_free(w);
	tree_remove(&t);
}

static void test_watch_between_rescans(void **state)
{
	(void)state;
	watch_between_rescans();
}

/* The same with the DRM fds' files kept open between full scans, as on
 * /proc (forced here: the tree is a plain directory whose files are
 * rewritten in place, which a kept fd sees as /proc's would). */
static void test_watch_between_rescans_kept(void **state)
{
	(void)state;
	assert_int_equal(setenv("MEMTREND_GPU_KEEP_FDS", "1", 1), 0);
	watch_between_rescans();
	unsetenv("MEMTREND_GPU_KEEP_FDS");
}

/* Which file a read between scans takes: with kept fds the one opened at
 * the scan (a file renamed over it is a new inode, which /proc never
 * makes of an fdinfo entry: here it only shows which file is read), else
 * whatever the path names now. */
static void test_watch_kept_fd_is_read(void **state)
{
	(void)state;
	for (int keep = 0; keep <= 1; keep++) {
		struct tree t;
		tree_make(&t);
		tree_client(&t, 3, 1, 1);
		if (keep)
			assert_int_equal(setenv("MEMTREND_GPU_KEEP_FDS", "1",
						1), 0);
		struct gpu_drm_watch *w = gpu_drm_watch_new(t.root, 77, 5.0);
		watch_expect(w, 0.0, 1, 1);
		char tmp[160], path[160];
		snprintf(tmp, sizeof(tmp), "%s/new", t.root);
		snprintf(path, sizeof(path), "%s/3", t.dir);
		write_file(tmp, "pos:\t0\ndrm-driver:\tamdgpu\n"
			   "drm-client-id:\t1\ndrm-pdev:\t0000:03:00.0\n"
			   "drm-resident-vram:\t8 MiB\n");
		assert_int_equal(rename(tmp, path), 0);
		watch_expect(w, 1.0, 1, keep ? 1 : 8);
		watch_expect(w, 5.0, 1, 8); /* a full scan opens anew */
		gpu_drm_watch_free(w);
		unsetenv("MEMTREND_GPU_KEEP_FDS");
		tree_remove(&t);
	}
}

static void test_watch_stale_fd_rescans(void **state)
{
	(void)state;
	struct tree t;
	tree_make(&t);
	/* client 1 dup'ed onto fds 3 and 4 (1 MiB, counted once), client 2
	 * on fd 5 (2 MiB). rescan_s 0: GPU_DRM_RESCAN_S (10). */
	tree_client(&t, 3, 1, 1);
	tree_client(&t, 4, 1, 1);
	tree_client(&t, 5, 2, 2);
	struct gpu_drm_watch *w = gpu_drm_watch_new(t.root, 77, 0.0);
	watch_expect(w, 0.0, 2, 3);
	/* In each step below a new client on a new fd is the witness: it
	 * shows up only when the read did a full scan. */
	/* the dup on fd 4 closed (ENOENT): full scan; + fd 6, 4 MiB:
	 * 1 (fd 3) + 2 (fd 5) + 4 = 7 MiB */
	tree_fd(&t, 4, NULL);
	tree_client(&t, 6, 3, 4);
	watch_expect(w, 1.0, 3, 7);
	/* fd 5 turned into a plain file: full scan; + fd 7, 8 MiB:
	 * 1 + 4 + 8 = 13 MiB */
	tree_fd(&t, 5, not_drm);
	tree_client(&t, 7, 4, 8);
	watch_expect(w, 2.0, 3, 13);
	/* fd 3 now names another client (id 1 -> 9, same size); + fd 8,
	 * 16 MiB: 1 + 4 + 8 + 16 = 29 MiB */
	tree_client(&t, 3, 9, 1);
	tree_client(&t, 8, 5, 16);
	watch_expect(w, 3.0, 4, 29);
	/* another driver on fd 6 (same id 3): likewise; + fd 9, 32 MiB */
	tree_fd(&t, 6, "drm-driver:\txe\ndrm-client-id:\t3\n"
		       "drm-pdev:\t0000:03:00.0\ndrm-resident-vram0:\t4 MiB\n");
	tree_client(&t, 9, 6, 32);
	watch_expect(w, 4.0, 5, 61);
	/* That last full scan was at 4: fd 10 (64 MiB) waits until 14. */
	tree_client(&t, 10, 7, 64);
	watch_expect(w, 13.9, 5, 61);
	watch_expect(w, 14.0, 6, 125);
	gpu_drm_watch_free(w);
	tree_remove(&t);
}

static void test_watch_gone(void **state)
{
	(void)state;
	struct tree t;
	struct gpu_usage u;
	/* With a DRM fd: its fdinfo gone sends the read to a full scan,
	 * which finds the directory removed. */
	tree_make(&t);
	tree_client(&t, 3, 1, 1);
	struct gpu_drm_watch *w = gpu_drm_watch_new(t.root, 77, 10.0);
	watch_expect(w, 0.0, 1, 1);
	tree_remove(&t);
	assert_int_equal(gpu_drm_watch_read(w, 1.0, &u), PROBE_GONE);
	assert_false(u.denied);
	assert_int_equal(u.n_clients, 0);
	assert_true(isnan(u.device_local));
	assert_int_equal(gpu_drm_watch_read(w, 2.0, &u), PROBE_GONE);
	gpu_drm_watch_free(w);

	/* Without one: nothing is read before the next full scan (as
	 * documented), which says gone. */
	tree_make(&t);
	tree_fd(&t, 0, not_drm);
	w = gpu_drm_watch_new(t.root, 77, 10.0);
	watch_expect(w, 0.0, 0, NAN);
	tree_remove(&t);
	watch_expect(w, 9.0, 0, NAN);
	assert_int_equal(gpu_drm_watch_read(w, 10.0, &u), PROBE_GONE);
	gpu_drm_watch_free(w);

	/* A real process that exits: its kept /proc/PID/fdinfo says so. */
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	w = gpu_drm_watch_new("/proc", child, 10.0);
	assert_int_equal(gpu_drm_watch_read(w, 0.0, &u), PROBE_OK);
	assert_int_equal(u.n_clients, 0);
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(gpu_drm_watch_read(w, 10.0, &u), PROBE_GONE);
	gpu_drm_watch_free(w);
}

/* As denial_checks, through a watch (rescan_s 10): 0 or a code. */
static int watch_denial_checks(const char *root, const char *dir,
			       const char *file)
{
	(void)dir;
	struct gpu_usage u;
	struct gpu_drm_watch *w = gpu_drm_watch_new(root, 77, 10.0);
	int rc = 0;
	/* first read, the DRM file unreadable */
	if (chmod(file, 0) != 0)
		rc = 20;
	else if (gpu_drm_watch_read(w, 0.0, &u) != PROBE_DENIED ||
		 !u.denied || !isnan(u.device_local))
		rc = 21;
	/* readable again, but not tried before the next full scan at 10 */
	else if (chmod(file, 0644) != 0)
		rc = 22;
	else if (gpu_drm_watch_read(w, 9.5, &u) != PROBE_DENIED || !u.denied)
		rc = 23;
	/* drm_fdinfo: 1 client, 1 MiB of vram */
	else if (gpu_drm_watch_read(w, 10.0, &u) != PROBE_OK || u.denied ||
		 u.n_clients != 1 || u.device_local != MIB)
		rc = 24;
	/* between scans, the remembered fd turns unreadable */
	else if (chmod(file, 0) != 0)
		rc = 25;
	else if (gpu_drm_watch_read(w, 11.0, &u) != PROBE_DENIED ||
		 !u.denied || u.n_clients != 0)
		rc = 26;
	else if (chmod(file, 0644) != 0)
		rc = 27;
	else if (gpu_drm_watch_read(w, 19.9, &u) != PROBE_DENIED)
		rc = 28;
	else if (gpu_drm_watch_read(w, 20.0, &u) != PROBE_OK ||
		 u.n_clients != 1)
		rc = 29;
	gpu_drm_watch_free(w);
	return rc;
}

static void test_watch_denied(void **state)
{
	(void)state;
	run_denial(watch_denial_checks);
}

/* ---- NVML through the fake library ---------------------------------- */

static void script(const char *text)
{
	write_file(script_path, text);
}

static struct gpu_nvml *open_fake(void)
{
	char why[GPU_NVML_WHY_MAX];
	struct gpu_nvml *nv = gpu_nvml_open(fake_lib, why, sizeof(why));
	if (!nv)
		print_error("gpu_nvml_open: %s\n", why);
	assert_non_null(nv);
	assert_string_equal(why, "");
	return nv;
}

static double used(struct gpu_nvml *nv, pid_t pid)
{
	double b = -1;
	assert_int_equal(gpu_nvml_process_used(nv, pid, &b), PROBE_OK);
	return b;
}

static void test_nvml_missing_library(void **state)
{
	(void)state;
	char why[GPU_NVML_WHY_MAX];
	struct gpu_nvml *nv =
		gpu_nvml_open("/nonexistent/libnvidia-ml.so.1", why,
			      sizeof(why));
	assert_null(nv);
	assert_non_null(strstr(why, "cannot load /nonexistent/"));
	/* A library that is not NVML: first missing symbol named. */
	nv = gpu_nvml_open("libm.so.6", why, sizeof(why));
	assert_null(nv);
	assert_non_null(strstr(why, "lacks nvmlInit_v2"));
	/* No room for a reason is fine too. */
	assert_null(gpu_nvml_open("/nonexistent/x.so", NULL, 0));
	gpu_nvml_close(NULL);
}

static void test_nvml_init_failure(void **state)
{
	(void)state;
	script("devices 1\nfail init\n");
	char why[GPU_NVML_WHY_MAX];
	assert_null(gpu_nvml_open(fake_lib, why, sizeof(why)));
	assert_non_null(strstr(why, "nvmlInit_v2 failed"));
	assert_non_null(strstr(why, "Driver Not Loaded"));
}

static void test_nvml_env_override(void **state)
{
	(void)state;
	script("devices 1\nproc 0 compute 4242 4096\n");
	setenv("MEMTREND_NVML_LIB", fake_lib, 1);
	char why[GPU_NVML_WHY_MAX];
	struct gpu_nvml *nv = gpu_nvml_open(NULL, why, sizeof(why));
	unsetenv("MEMTREND_NVML_LIB");
	assert_non_null(nv);
	check_figure("4242", 4096, used(nv, 4242));
	gpu_nvml_close(nv);
}

static void test_nvml_two_devices(void **state)
{
	(void)state;
	script("devices 2\n"
	       "mem 0 85899345920 2147483648\n"
	       "mem 1 85899345920 536870912\n"
	       "proc 0 compute 4242 1073741824\n"
	       "proc 1 compute 4242 536870912\n"
	       "proc 1 compute 5000 1\n");
	struct gpu_nvml *nv = open_fake();
	assert_int_equal(gpu_nvml_device_count(nv), 2);
	/* 1 GiB on device 0 + 512 MiB on device 1 */
	check_figure("4242", 1610612736.0, used(nv, 4242));
	check_figure("5000", 1, used(nv, 5000));
	check_figure("absent", NAN, used(nv, 6000));
	/* on no list: not an error, no reason */
	assert_string_equal(gpu_nvml_last_error(nv), "");

	struct gpu_nvml_device d[4];
	assert_int_equal(gpu_nvml_devices(nv, d, 4), 2);
	assert_int_equal(d[1].index, 1);
	check_figure("total 0", 80 * GIB, d[0].total);
	check_figure("used 0", 2 * GIB, d[0].used);
	check_figure("used 1", 512 * MIB, d[1].used);
	assert_int_equal(gpu_nvml_devices(nv, d, 1), 1);

	script("devices 2\nfail memory\n");
	assert_int_equal(gpu_nvml_devices(nv, d, 4), 2);
	assert_true(isnan(d[0].total) && isnan(d[1].used));
	gpu_nvml_close(nv);
}

/* Issue 28: each device's part, and each device's name. */
static void test_nvml_per_device(void **state)
{
	(void)state;
	script("devices 3\n"
	       "name 0 NVIDIA H200\n"
	       "proc 0 compute 4242 1073741824\n"
	       "proc 2 compute 4242 536870912\n"
	       "proc 2 graphics 4242 268435456\n");
	struct gpu_nvml *nv = open_fake();
	double per[2], b;
	assert_int_equal(gpu_nvml_process_used_by_device(nv, 4242, &b, per, 2),
			 PROBE_OK);
	/* the sum covers every device; per[] only those below max */
	check_figure("sum", 1610612736.0, b);
	check_figure("device 0", 1073741824.0, per[0]);
	check_figure("device 1 (not listed)", NAN, per[1]);
	double per3[3];
	gpu_nvml_process_used_by_device(nv, 4242, &b, per3, 3);
	/* compute and graphics describe the same memory: the larger */
	check_figure("device 2", 536870912.0, per3[2]);
	gpu_nvml_process_used_by_device(nv, 6000, &b, per3, 3);
	check_figure("absent sum", NAN, b);
	check_figure("absent 0", NAN, per3[0]);
	struct gpu_nvml_device d[3];
	assert_int_equal(gpu_nvml_devices(nv, d, 3), 3);
	assert_string_equal(d[0].name, "NVIDIA H200");
	assert_string_equal(d[1].name, "Fake GPU");
	/* a failing list: no device's part either */
	script("devices 3\nfail processes\n");
	per3[0] = 1;
	gpu_nvml_process_used_by_device(nv, 4242, &b, per3, 3);
	check_figure("failed sum", NAN, b);
	check_figure("failed 0", NAN, per3[0]);
	gpu_nvml_close(nv);
}

static void test_nvml_compute_and_graphics(void **state)
{
	(void)state;
	/* Device 0 lists 4242 as compute (1 GiB) and graphics (256 MiB): the
	 * same memory, counted once as the larger, 1 GiB. Device 1 lists it
	 * as graphics only: 512 MiB. On device 1 pid 7 has two compute entries
	 * (two MIG instances): 100 + 200. */
	script("devices 2\n"
	       "proc 0 compute 4242 1073741824\n"
	       "proc 0 graphics 4242 268435456\n"
	       "proc 1 graphics 4242 536870912\n"
	       "proc 1 compute 7 100\n"
	       "proc 1 compute 7 200\n"
	       "proc 0 graphics 8 300\n"
	       "proc 0 compute 8 na\n");
	struct gpu_nvml *nv = open_fake();
	check_figure("4242", 1073741824.0 + 536870912.0, used(nv, 4242));
	check_figure("7", 300, used(nv, 7));
	/* listed, but its compute figure NVML_VALUE_NOT_AVAILABLE: unknown */
	check_figure("8", NAN, used(nv, 8));

	/* Graphics lists NOT_SUPPORTED (compute-only boards): empty. */
	script("devices 2\nnotsupported graphics\nproc 1 compute 4242 42\n");
	check_figure("4242 compute only", 42, used(nv, 4242));
	gpu_nvml_close(nv);
}

static void test_nvml_appear_leave_fail(void **state)
{
	(void)state;
	script("devices 1\n");
	struct gpu_nvml *nv = open_fake();
	check_figure("before", NAN, used(nv, 4242));
	script("devices 1\nproc 0 compute 4242 1048576\n");
	check_figure("appeared", MIB, used(nv, 4242));
	assert_string_equal(gpu_nvml_last_error(nv), "");
	script("devices 1\nproc 0 compute 4242 3145728\n");
	check_figure("grew", 3 * MIB, used(nv, 4242));
	script("devices 1\n");
	check_figure("left", NAN, used(nv, 4242));
	/* A failing query: NAN and a reason, not a failure. */
	script("devices 1\nproc 0 compute 4242 1048576\nfail processes\n");
	check_figure("failing", NAN, used(nv, 4242));
	assert_non_null(strstr(gpu_nvml_last_error(nv),
			       "compute processes of device 0"));
	/* And it recovers. */
	script("devices 1\nproc 0 compute 4242 1048576\n");
	check_figure("recovered", MIB, used(nv, 4242));
	gpu_nvml_close(nv);
}

static void test_nvml_buffer_growth(void **state)
{
	(void)state;
	/* 300 compute entries on device 0 (more than the first buffer of 64):
	 * pids 1000..1299 with pid bytes each; the list answers
	 * INSUFFICIENT_SIZE until the buffer is grown. */
	char *text = xmalloc(300 * 40 + 64);
	size_t n = (size_t)sprintf(text, "devices 1\n");
	for (int i = 0; i < 300; i++)
		n += (size_t)sprintf(text + n, "proc 0 compute %d %d\n",
				     1000 + i, 1000 + i);
	script(text);
	free(text);
	struct gpu_nvml *nv = open_fake();
	check_figure("1299", 1299, used(nv, 1299));
	check_figure("1000", 1000, used(nv, 1000));
	gpu_nvml_close(nv);
}

int main(void)
{
	fixtures = getenv("FIXTURES");
	fake_lib = getenv("FAKE_NVML_LIB");
	if (!fixtures || !fake_lib) {
		fprintf(stderr, "FIXTURES and FAKE_NVML_LIB must be set\n");
		return 1;
	}
	snprintf(proc_gpu, sizeof(proc_gpu), "%s/proc-gpu", fixtures);
	snprintf(script_path, sizeof(script_path),
		 "/tmp/memtrend-fake-nvml-%d.script", (int)getpid());
	setenv("FAKE_NVML_SCRIPT", script_path, 1);
	unsetenv("MEMTREND_PROC_ROOT");
	unsetenv("MEMTREND_NVML_LIB");
	diag_set_quiet(true);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_region_kind),
		cmocka_unit_test(test_drm_amdgpu),
		cmocka_unit_test(test_drm_intel),
		cmocka_unit_test(test_drm_unified),
		cmocka_unit_test(test_drm_malformed),
		cmocka_unit_test(test_drm_no_client),
		cmocka_unit_test(test_drm_resident_missing),
		cmocka_unit_test(test_drm_gone_and_env_root),
		cmocka_unit_test(test_drm_real_self),
		cmocka_unit_test(test_drm_denied),
		cmocka_unit_test(test_drm_nvidia),
		cmocka_unit_test(test_watch_fixtures),
		cmocka_unit_test(test_watch_between_rescans),
		cmocka_unit_test(test_watch_between_rescans_kept),
		cmocka_unit_test(test_watch_kept_fd_is_read),
		cmocka_unit_test(test_watch_stale_fd_rescans),
		cmocka_unit_test(test_watch_gone),
		cmocka_unit_test(test_watch_denied),
		cmocka_unit_test(test_nvml_missing_library),
		cmocka_unit_test(test_nvml_init_failure),
		cmocka_unit_test(test_nvml_env_override),
		cmocka_unit_test(test_nvml_two_devices),
		cmocka_unit_test(test_nvml_per_device),
		cmocka_unit_test(test_nvml_compute_and_graphics),
		cmocka_unit_test(test_nvml_appear_leave_fail),
		cmocka_unit_test(test_nvml_buffer_growth),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(script_path);
	return rc;
}
