/*
 * test_regions.c - unit tests for the region breakdown (regions.c), the
 * vmmap --summary reader (vmmap.c) and their renderer (render_books.c).
 *
 *   - smaps fixtures under $FIXTURES/proc-smaps/PID/smaps: every expected
 *     sum below was added up by hand from the fixture file (kB figures,
 *     times 1024), not produced by the code under test;
 *   - the vmmap fixture $FIXTURES/vmmap/vmmap-summary.txt (a real macOS
 *     output from the field report): its figures as bytes (vmmap's G is
 *     1024^3) and the conclusion the report must reach;
 *   - malformed inputs: the error names the line;
 *   - real reads of /proc/self/smaps (a 64 MiB allocation shows up) and a
 *     100,000-mapping smaps written to /tmp (sums exact, time bounded).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "probe.h"
#include "regions.h"
#include "smaps.h"
#include "render.h"
#include "vmmap.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *fixtures;

static char *fx(const char *rel)
{
	static char buf[4][1024];
	static int slot;
	char *s = buf[slot++ % 4];
	snprintf(s, sizeof(buf[0]), "%s/%s", fixtures, rel);
	return s;
}

static void near(const char *what, double want, double got, double tol)
{
	if (isnan(want) && isnan(got))
		return;
	if (isnan(want) != isnan(got) || fabs(want - got) > tol) {
		print_error("%s: want %.17g, got %.17g\n", what, want, got);
		fail();
	}
}

/* Exact (fixture figures are whole kB, exact in a double). */
static void exact(const char *what, double want, double got)
{
	near(what, want, got, 1e-6);
}

/* stderr into a file while f runs: the error messages name lines. */
static char captured[4096];
static int saved_fd = -1;
static FILE *cap_file;

static void capture_begin(void)
{
	fflush(stderr);
	cap_file = tmpfile();
	assert_non_null(cap_file);
	saved_fd = dup(fileno(stderr));
	dup2(fileno(cap_file), fileno(stderr));
}

static const char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_fd, fileno(stderr));
	close(saved_fd);
	rewind(cap_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, cap_file);
	captured[n] = '\0';
	fclose(cap_file);
	return captured;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

/* render_regions() into a string (owned). */
static char *render_to_string(const char *title,
			      const struct region_breakdown *b,
			      const struct region_breakdown *d, bool json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	assert_non_null(m);
	assert_int_equal(render_regions(m, title, b, d, json), 0);
	fclose(m);
	return s;
}

/* ---- family rules --------------------------------------------------- */

static void test_family_rules(void **state)
{
	(void)state;
	static const struct {
		const char *path, *perms;
		enum region_family want;
	} cases[] = {
		{ "", "rw-p", REGION_ANON },
		{ "[heap]", "rw-p", REGION_HEAP },
		{ "[stack]", "rw-p", REGION_STACK },
		{ "[stack:1234]", "rw-p", REGION_STACK },
		{ "[anon:glibc malloc arena]", "rw-p", REGION_ANON },
		{ "[anon_shmem:pool]", "rw-s", REGION_SHMEM },
		{ "[vdso]", "r-xp", REGION_OTHER },
		{ "[vvar]", "r--p", REGION_OTHER },
		{ "[vsyscall]", "--xp", REGION_OTHER },
		{ "[uprobes]", "r-xp", REGION_OTHER },
		{ "/dev/dri/renderD128", "rw-s", REGION_GPU },
		{ "/dev/dri/card0", "rw-s", REGION_GPU },
		{ "/dev/nvidia0", "rw-s", REGION_GPU },
		{ "/dev/nvidiactl", "rw-s", REGION_GPU },
		{ "/dev/nvidia-uvm", "rw-s", REGION_GPU },
		{ "/dev/kfd", "rw-s", REGION_GPU },
		{ "/dev/accel/accel0", "rw-s", REGION_GPU },
		{ "/dmabuf:", "rw-s", REGION_GPU },
		{ "/dev/shm/pool", "rw-s", REGION_SHMEM },
		{ "/memfd:kv (deleted)", "rw-s", REGION_SHMEM },
		{ "/memfd:wayland-cursor (deleted)", "rw-p", REGION_SHMEM },
		{ "/SYSV00000000 (deleted)", "rw-s", REGION_SHMEM },
		{ "/dev/zero (deleted)", "rw-s", REGION_SHMEM },
		{ "/tmp/x (deleted)", "rw-s", REGION_SHMEM },
		{ "/usr/lib/libc.so.6 (deleted)", "r-xp", REGION_FILE },
		{ "/usr/lib/libc.so.6", "r-xp", REGION_FILE },
		{ "/opt/my models/w.bin", "r--s", REGION_FILE },
		{ "/dev/fb0", "rw-s", REGION_OTHER },
		{ "anon_inode:[perf_event]", "r--s", REGION_OTHER },
		{ "anon_inode:dmabuf", "rw-s", REGION_GPU },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum region_family got = regions_family_of_path(
			cases[i].path, strlen(cases[i].path), cases[i].perms);
		if (got != cases[i].want) {
			print_error("'%s' %s: want %s, got %s\n",
				    cases[i].path, cases[i].perms,
				    region_family_names[cases[i].want],
				    region_family_names[got]);
			fail();
		}
	}
}

/* ---- smaps fixtures ---------------------------------------------------- */

struct fam_want {
	double size, rss, pss, dirty, swap, footprint; /* kB */
	long long mappings;
	const char *top;
};

static void check_family(const struct region_breakdown *b,
			 enum region_family f, const struct fam_want *w)
{
	char what[64];
	const struct region_figures *g = &b->f[f];
#define CHECK(field, val)                                                  \
	do {                                                               \
		snprintf(what, sizeof(what), "%s " #field,                  \
			 region_family_names[f]);                           \
		exact(what, (val) * KIB, g->field);                         \
	} while (0)
	CHECK(size, w->size);
	CHECK(rss, w->rss);
	CHECK(pss, w->pss);
	CHECK(private_dirty, w->dirty);
	CHECK(swap, w->swap);
	CHECK(footprint, w->footprint);
#undef CHECK
	if (g->mappings != w->mappings) {
		print_error("%s mappings: want %lld, got %lld\n",
			    region_family_names[f], w->mappings, g->mappings);
		fail();
	}
	if (w->top)
		assert_string_equal(b->top[f], w->top);
}

/*
 * proc-smaps/3001/smaps, mapping by mapping (kB: Size Rss Pss Private_Dirty
 * Anonymous Swap -> family):
 *   /usr/bin/llama-server r--p       4       4      4      0      0     0 file
 *   /usr/bin/llama-server rw-p    1024     512    512    256    256    16 file
 *   [heap]                      131072  100000 100000 100000 100000  2000 heap
 *   (no path)                  1048576  800000 800000 800000 800000 48000 anon
 *   [anon:glibc malloc arena]     1024    1024   1024   1024   1024     0 anon
 *   /dev/nvidia0              4194304       0      0      0      0     0 gpu
 *   /dev/nvidiactl                 64      64     64      0      0     0 gpu
 *   /dev/dri/renderD128        262144  262144 131072      0      0     0 gpu
 *   /dev/kfd                     1024       0      0      0      0     0 gpu
 *   /dev/accel/accel0            1024     512    512      0      0     0 gpu
 *   /memfd:kv-cache (deleted)  524288  400000 400000 400000      0 24288 shmem
 *   /dev/shm/llama-shared        4096    4096   2048      0      0     0 shmem
 *   /SYSV00000000 (deleted)      1024    1024   1024   1024      0     0 shmem
 *   /tmp/scratch.bin (deleted) rw-s 1024  256    256    256      0     0 shmem
 *   libc.so.6 (deleted) r-xp     2048    1500    300      0      0     0 file
 *   libc.so.6 rw-p                 32      32     32     32     32     0 file
 *   /dev/zero (deleted) rw-s     1024    1024   1024   1024      0     0 shmem
 *   anon_inode:[perf_event]         4       4      4      0      0     0 other
 *   /opt/my models/weights.bin 4194304 2097152 2097152  0      0     0 file
 *   [stack]                       132     100    100    100    100     8 stack
 *   [stack:3002]                 8192      64     64     64     64     0 stack
 *   [vvar]                         16       0      0      0      0     0 other
 *   [vdso]                          8       8      0      0      0     0 other
 *   [vsyscall]                      4       0      0      0      0     0 other
 * footprint = Anonymous + Swap, but Rss + Swap for shmem and gpu.
 */
static const struct fam_want want_3001[REGION_FAMILY_COUNT] = {
	/* heap: the one [heap]; 100000 + 2000 */
	[REGION_HEAP] = { 131072, 100000, 100000, 100000, 2000, 102000, 1,
			  "[heap]" },
	/* anon: 1048576+1024, 800000+1024 (x3), 48000; fp 801024 + 48000;
	 * the largest has no name */
	[REGION_ANON] = { 1049600, 801024, 801024, 801024, 48000, 849024, 2,
			  "" },
	/* stack: 132+8192, 100+64 (x3), 8; fp 108 + 64 */
	[REGION_STACK] = { 8324, 164, 164, 164, 8, 172, 2, "[stack]" },
	/* file: 4+1024+2048+32+4194304; rss 4+512+1500+32+2097152;
	 * pss 4+512+300+32+2097152; dirty 256+32; swap 16; fp 272+32 */
	[REGION_FILE] = { 4197412, 2099200, 2098000, 288, 16, 304, 5,
			  "/usr/bin/llama-server" },
	/* shmem: 524288+4096+1024+1024+1024; rss 400000+4096+1024+256+1024;
	 * pss 400000+2048+1024+256+1024; dirty 400000+1024+256+1024;
	 * swap 24288; fp rss + swap = 406400 + 24288 */
	[REGION_SHMEM] = { 531456, 406400, 404352, 402304, 24288, 430688, 5,
			   "/memfd:kv-cache (deleted)" },
	/* gpu: 4194304+64+262144+1024+1024; rss 64+262144+512;
	 * pss 64+131072+512; fp = rss */
	[REGION_GPU] = { 4458560, 262720, 131648, 0, 0, 262720, 5,
			 "/dev/dri/renderD128" },
	/* other: perf_event 4, vvar 16, vdso 8, vsyscall 4; rss 4+8;
	 * pss 4; all fp 0: the first one stays the largest */
	[REGION_OTHER] = { 32, 12, 4, 0, 0, 0, 4, "anon_inode:[perf_event]" },
};

static void test_smaps_fixture(void **state)
{
	(void)state;
	struct region_breakdown b;
	assert_int_equal(smaps_read(fx("proc-smaps"), 3001, &b),
			 PROBE_OK);
	for (int f = 0; f < REGION_FAMILY_COUNT; f++)
		check_family(&b, (enum region_family)f, &want_3001[f]);
	assert_true(isnan(b.footprint));
	assert_non_null(b.source_note);
	assert_non_null(strstr(b.source_note, "24 mappings"));
	/* total: 102000+849024+172+304+430688+262720+0 = 1644908 kB */
	exact("total", 1644908 * KIB, regions_total_footprint(&b));
	/* 849024 kB = 829.1 MiB of 1644908 kB = 1.6 GiB: 51.6 %;
	 * heap 102000 kB = 99.6 MiB */
	char c[512];
	assert_string_equal(render_regions_conclusion(c, sizeof(c), &b, true),
			    "footprint 1.6 GiB: 829.1 MiB (52 %) in anonymous "
			    "memory; host heap 99.6 MiB");
	regions_release(&b);
}

/* proc-smaps/3005: a kernel without "Anonymous:" -- Private_Dirty stands
 * in. Anonymous mapping: dirty 100, swap 10 -> fp 110; [heap]: dirty 50
 * -> fp 50. proc-smaps/3006: an unnamed rw-s mapping with ShmemPmdMapped
 * 2048 kB is shared memory: rss 4096 -> fp 4096. */
static void test_smaps_old_kernel_and_thp_shmem(void **state)
{
	(void)state;
	struct region_breakdown b;
	assert_int_equal(smaps_read(fx("proc-smaps"), 3005, &b),
			 PROBE_OK);
	exact("anon fp", 110 * KIB, b.f[REGION_ANON].footprint);
	exact("heap fp", 50 * KIB, b.f[REGION_HEAP].footprint);
	exact("heap rss", 60 * KIB, b.f[REGION_HEAP].rss);
	regions_release(&b);

	assert_int_equal(smaps_read(fx("proc-smaps"), 3006, &b),
			 PROBE_OK);
	exact("shmem fp", 4096 * KIB, b.f[REGION_SHMEM].footprint);
	assert_int_equal(b.f[REGION_SHMEM].mappings, 1);
	assert_int_equal(b.f[REGION_ANON].mappings, 0);
	regions_release(&b);

	/* 3009: empty smaps (kernel thread): all zero, no failure */
	assert_int_equal(smaps_read(fx("proc-smaps"), 3009, &b),
			 PROBE_OK);
	exact("total", 0, regions_total_footprint(&b));
	regions_release(&b);
}

static void test_smaps_malformed(void **state)
{
	(void)state;
	static const struct {
		pid_t pid;
		const char *where;   /* "smaps:LINE:" in the message */
		const char *what;
	} cases[] = {
		{ 3002, "3002/smaps:5:", "Rss:" },
		{ 3003, "3003/smaps:1:", "before the first mapping" },
		{ 3004, "3004/smaps:3:", "neither a mapping header" },
		{ 3008, "3008/smaps:1:", "mapping header" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct region_breakdown b;
		capture_begin();
		int rc = smaps_read(fx("proc-smaps"), cases[i].pid, &b);
		const char *err = capture_end();
		assert_int_equal(rc, PROBE_ERROR);
		if (!strstr(err, cases[i].where) || !strstr(err, cases[i].what)) {
			print_error("pid %d: message '%s'\n", (int)cases[i].pid,
				    err);
			fail();
		}
		/* nothing half-read */
		exact("after error", 0, regions_total_footprint(&b));
		regions_release(&b);
	}
	struct region_breakdown b;
	assert_int_equal(smaps_read(fx("proc-smaps"), 99999, &b),
			 PROBE_GONE);
	regions_release(&b);
}

/* A path with a terminal escape and an invalid byte (proc-smaps/3007):
 * neither reaches the terminal nor the JSON raw. */
static void test_smaps_escaped(void **state)
{
	(void)state;
	struct region_breakdown b;
	assert_int_equal(smaps_read(fx("proc-smaps"), 3007, &b),
			 PROBE_OK);
	assert_non_null(strchr(b.top[REGION_FILE], '\x1b'));
	char *text = render_to_string("evil", &b, NULL, false);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\x07'));
	assert_null(strchr(text, '\xff'));
	assert_non_null(strstr(text, "\\x1b[2J"));
	free(text);
	char *js = render_to_string("evil", &b, NULL, true);
	assert_null(strchr(js, '\x1b'));
	assert_null(strchr(js, '\xff'));
	json_error_t je;
	json_t *root = json_loads(js, 0, &je);
	assert_non_null(root);
	const char *largest = json_string_value(json_object_get(
		json_object_get(json_object_get(root, "families"), "file"),
		"largest"));
	assert_non_null(largest);
	assert_non_null(strstr(largest, "\x1b[2J"));  /* as JSON \u001b */
	assert_non_null(strstr(largest, "\xEF\xBF\xBD")); /* U+FFFD */
	json_decref(root);
	free(js);
	regions_release(&b);
}

static void test_diff(void **state)
{
	(void)state;
	struct region_breakdown a, b, d;
	assert_int_equal(smaps_read(fx("proc-smaps"), 3005, &a),
			 PROBE_OK);
	assert_int_equal(smaps_read(fx("proc-smaps"), 3001, &b),
			 PROBE_OK);
	regions_diff(&a, &b, &d);
	/* anon: 849024 - 110 kB; heap: 102000 - 50; mappings 2 - 1 */
	exact("anon delta", (849024 - 110) * KIB, d.f[REGION_ANON].footprint);
	exact("heap delta", (102000 - 50) * KIB, d.f[REGION_HEAP].footprint);
	assert_int_equal(d.f[REGION_ANON].mappings, 1);
	assert_true(isnan(d.footprint));
	assert_null(d.source_note);
	/* shrinking: b -> a */
	struct region_breakdown back;
	regions_diff(&b, &a, &back);
	assert_int_equal(back.f[REGION_GPU].mappings, -5);
	exact("gpu back", -262720 * KIB, back.f[REGION_GPU].footprint);
	char *text = render_to_string("3005 -> 3001", &b, &d, false);
	assert_non_null(strstr(text, "growth"));
	assert_non_null(strstr(text, "footprint grew +1.6 GiB"));
	free(text);
	char *js = render_to_string("x", &b, &d, true);
	json_error_t je;
	json_t *root = json_loads(js, 0, &je);
	assert_non_null(root);
	json_t *g = json_object_get(root, "growth");
	assert_true(json_is_object(g));
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(g, "conclusion"), "family")), "anon");
	json_decref(root);
	free(js);
	regions_release(&a);
	regions_release(&b);
	regions_release(&d);
	regions_release(&back);
}

/* ---- real /proc ------------------------------------------------------ */

static void test_real_self(void **state)
{
	(void)state;
	unsetenv("MEMTREND_PROC_ROOT");
	struct region_breakdown before, after, d;
	assert_int_equal(smaps_read(NULL, getpid(), &before),
			 PROBE_OK);
	double rss = 0;
	for (int f = 0; f < REGION_FAMILY_COUNT; f++)
		rss += before.f[f].rss;
	assert_true(rss > 0);
	assert_true(before.f[REGION_FILE].mappings > 0); /* this binary */
	assert_int_equal(before.f[REGION_STACK].mappings, 1);

	size_t big = 64u << 20;
	volatile char *p = malloc(big);
	assert_non_null((void *)p);
	memset((void *)p, 0x5a, big);
	assert_int_equal(smaps_read(NULL, getpid(), &after),
			 PROBE_OK);
	regions_diff(&before, &after, &d);
	double grown = d.f[REGION_HEAP].footprint + d.f[REGION_ANON].footprint;
	if (!(grown >= 0.95 * (double)big && grown < 1.5 * (double)big)) {
		print_error("heap+anon grew %.0f bytes for a %zu-byte "
			    "allocation\n", grown, big);
		fail();
	}
	free((void *)p);
	regions_release(&before);
	regions_release(&after);
	regions_release(&d);
}

/* PID 1 belongs to another user, or needs CAP_SYS_PTRACE in a
 * container: either readable, or denied with a note -- never an error. */
static void test_real_denied_is_a_note(void **state)
{
	(void)state;
	struct region_breakdown b;
	int rc = smaps_read("/proc", 1, &b);
	assert_true(rc == PROBE_OK || rc == PROBE_DENIED);
	if (rc == PROBE_DENIED) {
		assert_non_null(b.source_note);
		assert_non_null(strstr(b.source_note, "ptrace"));
		exact("denied total", 0, regions_total_footprint(&b));
	}
	regions_release(&b);
}

/* 100,000 mappings: O(lines), one buffer. Each mapping: Size 8, Rss 4,
 * Pss 4, Private_Dirty 4, Anonymous 4, Swap 0 (every third one a file,
 * mapped from a path): anon 66,667 mappings, file 33,333. */
static void test_large_smaps(void **state)
{
	(void)state;
	char dir[] = "/tmp/memtrend-regions-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char pdir[512], path[600];
	snprintf(pdir, sizeof(pdir), "%s/4242", dir);
	assert_int_equal(mkdir(pdir, 0755), 0);
	snprintf(path, sizeof(path), "%s/smaps", pdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	const size_t n = 100000;
	for (size_t i = 0; i < n; i++) {
		unsigned long long a = 0x7f0000000000ULL + i * 0x2000ULL;
		fprintf(f, "%llx-%llx rw-p 00000000 %s %zu %s\n"
			"Size:                  8 kB\nRss:                   "
			"4 kB\nPss:                   4 kB\nPrivate_Dirty:     "
			"    4 kB\nAnonymous:             4 kB\nSwap:        "
			"          0 kB\nVmFlags: rd wr mr mw me ac sd\n", a,
			a + 0x2000, i % 3 == 0 ? "fe:00" : "00:00",
			i % 3 == 0 ? i : 0,
			i % 3 == 0 ? "/var/lib/data.bin" : "");
	}
	assert_int_equal(fclose(f), 0);
	struct region_breakdown b;
	clock_t t0 = clock();
	assert_int_equal(smaps_read(dir, 4242, &b), PROBE_OK);
	double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_int_equal(b.f[REGION_FILE].mappings, 33334);
	assert_int_equal(b.f[REGION_ANON].mappings, 66666);
	exact("anon fp", 66666 * 4 * KIB, b.f[REGION_ANON].footprint);
	exact("file size", 33334 * 8 * KIB, b.f[REGION_FILE].size);
	exact("total rss", 100000 * 4 * KIB,
	      b.f[REGION_ANON].rss + b.f[REGION_FILE].rss);
	/* ~2 ms per 10,000 mappings unsanitised; generous for ASan */
	if (cpu > 5.0) {
		print_error("100k mappings took %.2f s of CPU\n", cpu);
		fail();
	}
	regions_release(&b);
	unlink(path);
	rmdir(pdir);
	rmdir(dir);
}

/* ---- vmmap --summary ------------------------------------------------- */

static void test_vmmap_family_rules(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum region_family want;
	} cases[] = {
		{ "IOAccelerator", REGION_GPU },
		{ "IOAccelerator (graphics)", REGION_GPU },
		{ "Malloc Small", REGION_HEAP },
		{ "Malloc Small (empty)", REGION_HEAP },
		{ "Malloc Metadata metadata", REGION_HEAP },
		{ "MALLOC_LARGE", REGION_HEAP },
		{ "WebKit Malloc", REGION_HEAP },
		{ "Malloc Guard Page", REGION_OTHER },
		{ "Guard", REGION_OTHER },
		{ "Stack Guard", REGION_OTHER },
		{ "Stack (reserved)", REGION_OTHER },
		{ "Stack", REGION_STACK },
		{ "__TEXT", REGION_FILE },
		{ "__DATA_CONST", REGION_FILE },
		{ "__LINKEDIT", REGION_FILE },
		{ "__OBJC_RO", REGION_FILE },
		{ "__AUTH_CONST", REGION_FILE },
		{ "mapped file", REGION_FILE },
		{ "unused but dirty shlib __DATA", REGION_FILE },
		{ "shared memory", REGION_SHMEM },
		{ "IOSurface", REGION_SHMEM },
		{ "Untagged", REGION_ANON },
		{ "VM_ALLOCATE", REGION_ANON },
		{ "CoreAnimation", REGION_ANON },
		{ "Memory Tag 255", REGION_ANON },
		{ "page table in kernel", REGION_OTHER },
		{ "owned unmapped (network)", REGION_OTHER },
		{ "IOKit", REGION_OTHER },
		{ "__PAGEZERO", REGION_OTHER },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum region_family got = vmmap_family_of(cases[i].name);
		if (got != cases[i].want) {
			print_error("'%s': want %s, got %s\n", cases[i].name,
				    region_family_names[cases[i].want],
				    region_family_names[got]);
			fail();
		}
	}
}

static const struct vmmap_row *row_named(const struct vmmap_summary *s,
					 const char *name)
{
	for (size_t i = 0; i < s->n_rows; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	print_error("no row '%s'\n", name);
	fail();
	return NULL;
}

/* Sizes with one decimal are not whole bytes: compare within a byte. */
static void bytes(const char *what, double want, double got)
{
	near(what, want, got, 1.0);
}

static void test_vmmap_fixture(void **state)
{
	(void)state;
	size_t len;
	char *buf = read_all(fx("vmmap/vmmap-summary.txt"), &len);
	assert_true(vmmap_detect(buf, len));
	struct vmmap_summary s;
	assert_int_equal(vmmap_parse(buf, len, &s), 0);
	assert_string_equal(s.error, "");
	/* header */
	assert_string_equal(s.process, "tensorfold-native");
	assert_int_equal(s.pid, 25834);
	assert_string_equal(s.date, "2026-10-31 09:41:15.375 +0100");
	bytes("footprint", 230.7 * GIB, s.footprint);
	bytes("peak", 231.4 * GIB, s.footprint_peak);
	/* the table: 36 rows between the "=" lines */
	assert_int_equal(s.n_rows, 36);
	const struct vmmap_row *g = row_named(&s, "IOAccelerator (graphics)");
	bytes("graphics virtual", 232.5 * GIB, g->virtual_size);
	bytes("graphics resident", 232.5 * GIB, g->resident);
	bytes("graphics dirty", 229.5 * GIB, g->dirty);
	bytes("graphics swapped", 0, g->swapped);
	assert_int_equal(g->count, 326);
	assert_int_equal(g->family, REGION_GPU);
	const struct vmmap_row *ctf = row_named(&s, "__CTF");
	bytes("__CTF bare bytes", 824, ctf->virtual_size);
	bytes("__CTF resident", 824, ctf->resident);
	const struct vmmap_row *mg = row_named(&s, "Malloc Guard Page");
	bytes("guard virtual", 3600 * KIB, mg->virtual_size);
	assert_int_equal(mg->count, 4); /* "see MALLOC ZONE table below" */
	assert_int_equal(row_named(&s, "Stack (reserved)")->count, 1);
	assert_int_equal(row_named(&s, "unused but dirty shlib __DATA")->count,
			 81);
	/* TOTAL 785.7G 398.4G 230.5G ... 4820 */
	assert_true(s.has_total);
	assert_string_equal(s.total.name, "TOTAL");
	bytes("total virtual", 785.7 * GIB, s.total.virtual_size);
	bytes("total dirty", 230.5 * GIB, s.total.dirty);
	assert_int_equal(s.total.count, 4820);
	/* MALLOC ZONE TOTAL: 13.0M dirty, 9.9M allocated */
	bytes("zone dirty", 13.0 * MIB, s.malloc_zone_dirty);
	bytes("zone allocated", 9.9 * MIB, s.malloc_zone_allocated);

	const struct region_breakdown *b = &s.breakdown;
	/* GPU: IOAccelerator 164.7G/164.7G/112K + (graphics)
	 * 232.5G/232.5G/229.5G; 90 + 326 regions */
	bytes("gpu resident", (164.7 + 232.5) * GIB, b->f[REGION_GPU].rss);
	bytes("gpu dirty", 229.5 * GIB + 112 * KIB,
	      b->f[REGION_GPU].private_dirty);
	bytes("gpu footprint", 229.5 * GIB + 112 * KIB,
	      b->f[REGION_GPU].footprint);
	assert_int_equal(b->f[REGION_GPU].mappings, 416);
	assert_string_equal(b->top[REGION_GPU], "IOAccelerator (graphics)");
	/* host heap: the Malloc rows' DIRTY: Metadata 400K, Metadata
	 * metadata 768K, Nano metadata 32K, Small 11.8M, Small (empty) 160K,
	 * Tiny 240K (Malloc Guard Page is "other") = 1600K + 11.8M */
	bytes("heap dirty", 1600 * KIB + 11.8 * MIB,
	      b->f[REGION_HEAP].private_dirty);
	bytes("heap footprint", 1600 * KIB + 11.8 * MIB,
	      b->f[REGION_HEAP].footprint);
	assert_int_equal(b->f[REGION_HEAP].mappings, 3 + 2 + 1 + 16 + 6 + 1);
	/* stack: "Stack" only (Guard and reserved are other): 912K */
	bytes("stack dirty", 912 * KIB, b->f[REGION_STACK].private_dirty);
	/* shmem: shared memory 192K + IOSurface 0K */
	bytes("shmem dirty", 192 * KIB, b->f[REGION_SHMEM].private_dirty);
	assert_int_equal(b->f[REGION_SHMEM].mappings, 12 + 1);
	/* anon: Untagged 820.3M + Activity Tracing 32K + Deferred Reclaim
	 * 16K + OS Alloc Once 16K */
	bytes("anon dirty", 820.3 * MIB + 64 * KIB,
	      b->f[REGION_ANON].private_dirty);
	/* other: page table in kernel 127.2M + IOKit 64K (+ zeros) */
	bytes("other dirty", 127.2 * MIB + 64 * KIB,
	      b->f[REGION_OTHER].private_dirty);
	/* file: __AUTH 70K, __DATA 658K, __DATA_CONST 40K, __DATA_DIRTY
	 * 468K, __OBJC_RW 47K, __TPRO_CONST 48K, mapped file 24K, unused but
	 * dirty shlib __DATA 169K */
	bytes("file dirty", (70 + 658 + 40 + 468 + 47 + 48 + 24 + 169) * KIB,
	      b->f[REGION_FILE].private_dirty);
	assert_true(isnan(b->f[REGION_FILE].pss));
	/* the families' dirty adds up to vmmap's TOTAL (230.5G) to within
	 * the rounding of one-decimal figures */
	double sum = 0;
	for (int f = 0; f < REGION_FAMILY_COUNT; f++)
		sum += b->f[f].private_dirty;
	near("dirty sum", 230.5 * GIB, sum, 0.06 * GIB);
	bytes("breakdown footprint", 230.7 * GIB, b->footprint);
	assert_non_null(strstr(b->source_note, "tensorfold-native [25834]"));

	char c[512];
	assert_string_equal(render_regions_conclusion(c, sizeof(c), b, true),
			    "footprint 230.7 GiB: 229.5 GiB (99 %) in GPU "
			    "memory (IOAccelerator (graphics)); host heap "
			    "13.4 MiB");
	char *text = render_to_string("tensorfold-native [25834]", b, NULL,
				      false);
	assert_non_null(strstr(text, "regions of tensorfold-native [25834]"));
	assert_non_null(strstr(text, "(peak 231.4 GiB)"));
	assert_non_null(strstr(text, c));
	free(text);

	char *js = render_to_string("tensorfold-native [25834]", b, NULL,
				    true);
	json_error_t je;
	json_t *root = json_loads(js, 0, &je);
	assert_non_null(root);
	json_t *gpu = json_object_get(json_object_get(root, "families"),
				      "gpu");
	assert_int_equal(json_integer_value(json_object_get(gpu,
			 "dirty_bytes")),
			 llround(229.5 * GIB + 112 * KIB));
	assert_true(json_is_null(json_object_get(gpu, "pss_bytes")));
	json_t *con = json_object_get(root, "conclusion");
	assert_string_equal(json_string_value(json_object_get(con, "family")),
			    "gpu");
	assert_string_equal(json_string_value(json_object_get(con, "text")),
			    c);
	near("share", (229.5 * GIB + 112 * KIB) / (230.7 * GIB),
	     json_real_value(json_object_get(con, "share")), 1e-9);
	assert_int_equal(json_integer_value(json_object_get(root,
			 "footprint_bytes")), llround(230.7 * GIB));
	assert_string_equal(json_string_value(json_object_get(root,
			    "footprint_from")), "source");
	assert_true(json_is_null(json_object_get(root, "growth")));
	json_decref(root);
	free(js);
	vmmap_release(&s);
	free(buf);
}

/* A summary whose spaces were collapsed (pasted through a chat) and a
 * region name holding a number still parse. */
static void test_vmmap_variants(void **state)
{
	(void)state;
	static const char text[] =
		"Process: my app [77]\n"
		"Physical footprint: 2.0G\n"
		"\n"
		"                                VIRTUAL RESIDENT    DIRTY  "
		"SWAPPED   REGION\n"
		"REGION TYPE                        SIZE     SIZE     SIZE     "
		"SIZE    COUNT\n"
		"===========                     ======= ========    =====  "
		"=======  =======\n"
		"Memory Tag 255 10M 8M 8M 1M 3\n"
		"IOAccelerator 2G 2G 1.5G 0K 9\n"
		"Malloc Small 64M 40M 40M 8M 4 see MALLOC ZONE table below\n"
		"===========                     ======= ========    =====  "
		"=======  =======\n"
		"TOTAL 2.1G 2.0G 1.6G 9M 16\n";
	struct vmmap_summary s;
	assert_true(vmmap_detect(text, sizeof(text) - 1));
	assert_int_equal(vmmap_parse(text, sizeof(text) - 1, &s), 0);
	assert_string_equal(s.process, "my app");
	assert_int_equal(s.pid, 77);
	assert_int_equal(s.n_rows, 3);
	const struct vmmap_row *t = row_named(&s, "Memory Tag 255");
	bytes("tag virtual", 10 * MIB, t->virtual_size);
	bytes("tag swapped", 1 * MIB, t->swapped);
	assert_int_equal(t->count, 3);
	/* heap footprint: dirty 40M + swapped 8M */
	bytes("heap fp", 48 * MIB, s.breakdown.f[REGION_HEAP].footprint);
	assert_true(isnan(s.malloc_zone_dirty));
	char c[512];
	assert_string_equal(render_regions_conclusion(c, sizeof(c),
			    &s.breakdown, true),
			    "footprint 2.0 GiB: 1.5 GiB (75 %) in GPU memory "
			    "(IOAccelerator); host heap 48.0 MiB");
	vmmap_release(&s);
}

/* A full vmmap (not --summary): the region list comes first, under its
 * own "REGION TYPE" title without a "=" line; the summary table after it
 * is the one read. */
static void test_vmmap_full_output(void **state)
{
	(void)state;
	static const char list[] =
		"==== Non-writable regions for process 25834\n"
		"REGION TYPE                    START - END         [ VSIZE  "
		"RSDNT  DIRTY   SWAP] PRT/MAX SHRMOD PURGE    REGION DETAIL\n"
		"__TEXT                      100e44000-100e48000    [   16K    "
		"16K     0K     0K] r-x/r-x SM=COW          /bin/x\n"
		"\n";
	size_t len;
	char *summary = read_all(fx("vmmap/vmmap-summary.txt"), &len);
	char *buf = malloc(sizeof(list) + len);
	memcpy(buf, list, sizeof(list) - 1);
	memcpy(buf + sizeof(list) - 1, summary, len);
	struct vmmap_summary s;
	assert_true(vmmap_detect(buf, sizeof(list) - 1 + len));
	assert_int_equal(vmmap_parse(buf, sizeof(list) - 1 + len, &s), 0);
	assert_int_equal(s.n_rows, 36);
	assert_int_equal(s.pid, 25834);
	bytes("gpu dirty", 229.5 * GIB + 112 * KIB,
	      s.breakdown.f[REGION_GPU].private_dirty);
	vmmap_release(&s);
	free(buf);
	free(summary);
}

static void test_vmmap_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		unsigned long line;
		const char *what;
	} cases[] = {
		/* a figure that is no size (line 4) */
		{ "REGION TYPE   VIRTUAL RESIDENT\n"
		  "===========   ======= ========\n"
		  "Stack         100K    8K\n"
		  "Untagged      12Q     8K\n"
		  "===========   ======= ========\n", 4, "figures" },
		/* no closing "=" line: ends at the blank line 4 */
		{ "REGION TYPE   VIRTUAL RESIDENT\n"
		  "===========   ======= ========\n"
		  "Stack         100K    8K\n"
		  "\n"
		  "TOTAL 100K 8K\n", 4, "closing" },
		/* a bad footprint (line 2) */
		{ "Process: x [1]\n"
		  "Physical footprint:   lots\n"
		  "REGION TYPE   VIRTUAL\n"
		  "===========   =======\n"
		  "Stack         100K\n"
		  "===========   =======\n", 2, "Physical footprint" },
		/* no table at all */
		{ "time,footprint\n1000,10MB\n", 0, "no REGION TYPE table" },
		/* no usable column */
		{ "REGION TYPE   FOO\n"
		  "===========   ===\n"
		  "Stack         100K\n"
		  "===========   ===\n", 1, "no VIRTUAL" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct vmmap_summary s;
		int rc = vmmap_parse(cases[i].text, strlen(cases[i].text), &s);
		if (rc != -1 || s.error_line != cases[i].line ||
		    !strstr(s.error, cases[i].what)) {
			print_error("case %zu: rc %d line %lu '%s'\n", i, rc,
				    s.error_line, s.error);
			fail();
		}
		assert_int_equal(s.n_rows, 0);
		vmmap_release(&s);
	}
}

static void test_vmmap_detect(void **state)
{
	(void)state;
	static const char *const no[] = {
		"",
		"time,footprint\n2026-05-01T02:04:00Z,230.63GiB\n",
		"55d0a0000000-55d0a0001000 r--p 00000000 fe:00 1 /bin/x\n"
		"Size:                  4 kB\n",
		/* a full vmmap's region list: no "=" line under the title */
		"REGION TYPE                    START - END         [ VSIZE "
		"RSDNT  DIRTY   SWAP] PRT/MAX SHRMOD PURGE    REGION DETAIL\n"
		"__TEXT                      100e44000-100e48000    [   16K "
		"16K     0K     0K] r-x/r-x SM=COW          /bin/x\n",
		"SQLite format 3\0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_false(vmmap_detect(no[i], strlen(no[i])));
	assert_false(vmmap_detect(NULL, 0));
	/* a full vmmap's header names the tool */
	static const char full[] = "Process:         x [1]\n"
				   "Analysis Tool:   /usr/bin/vmmap\n";
	assert_true(vmmap_detect(full, sizeof(full) - 1));
	/* files: the fixture yes; a CSV fixture, a smaps and a missing
	 * file no */
	assert_true(vmmap_is_summary_file(fx("vmmap/vmmap-summary.txt")));
	assert_false(vmmap_is_summary_file(fx("csv/three_flat.csv")));
	assert_false(vmmap_is_summary_file(fx("proc-smaps/3001/smaps")));
	assert_false(vmmap_is_summary_file("/nonexistent/vmmap.txt"));
}

static void test_report_file(void **state)
{
	(void)state;
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	struct vmmap_summary vs;
	assert_int_equal(vmmap_read_file(fx("vmmap/vmmap-summary.txt"), &vs),
			 0);
	assert_int_equal(render_regions(m, "x", &vs.breakdown, NULL, false),
			 0);
	vmmap_release(&vs);
	fclose(m);
	assert_non_null(strstr(s, "footprint 230.7 GiB: 229.5 GiB (99 %) in "
			       "GPU memory (IOAccelerator (graphics)); host "
			       "heap 13.4 MiB"));
	free(s);

	/* malformed: an error naming the file and line, nothing to release */
	char path[] = "/tmp/memtrend-vmmap-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char bad[] = "Process: x [1]\n"
				  "REGION TYPE   VIRTUAL\n"
				  "===========   =======\n"
				  "Stack         lots\n"
				  "===========   =======\n";
	assert_int_equal(write(fd, bad, sizeof(bad) - 1),
			 (ssize_t)(sizeof(bad) - 1));
	close(fd);
	capture_begin();
	int rc = vmmap_read_file(path, &vs);
	const char *err = capture_end();
	assert_int_equal(rc, -1);
	char want[128];
	snprintf(want, sizeof(want), "%s:4:", path);
	assert_non_null(strstr(err, want));
	unlink(path);

	capture_begin();
	rc = vmmap_read_file("/nonexistent/vmmap.txt", &vs);
	err = capture_end();
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "cannot read '/nonexistent/vmmap.txt'"));
}

int main(void)
{
	fixtures = getenv("FIXTURES");
	if (!fixtures || !*fixtures)
		fixtures = "tests/fixtures";
	diag_set_quiet(true);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_rules),
		cmocka_unit_test(test_smaps_fixture),
		cmocka_unit_test(test_smaps_old_kernel_and_thp_shmem),
		cmocka_unit_test(test_smaps_malformed),
		cmocka_unit_test(test_smaps_escaped),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_real_self),
		cmocka_unit_test(test_real_denied_is_a_note),
		cmocka_unit_test(test_large_smaps),
		cmocka_unit_test(test_vmmap_family_rules),
		cmocka_unit_test(test_vmmap_fixture),
		cmocka_unit_test(test_vmmap_variants),
		cmocka_unit_test(test_vmmap_full_output),
		cmocka_unit_test(test_vmmap_malformed),
		cmocka_unit_test(test_vmmap_detect),
		cmocka_unit_test(test_report_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
