/*
 * test_probe_alloc.c - `memtrend probe`'s view of a process's allocator
 * (probe_alloc.h) on fixture trees, and the check of --allocator PATH.
 * tests/fixtures/proc-alloc: 4242 is `cat` started with
 * LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 (its maps as the
 * kernel wrote them, Threads set to 12), 4243 the same without (glibc, 1
 * thread), 4244 4242's maps with the library renamed to a path holding a
 * space ("/opt/my app/lib/libmimalloc.so.2.0") and no Threads line.
 */
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
#include "probe_alloc.h"

static char root[4096];

static int setup(void **state)
{
	(void)state;
	const char *f = getenv("FIXTURES");
	snprintf(root, sizeof(root), "%s/proc-alloc", f ? f : "tests/fixtures");
	return 0;
}

static void test_names(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		enum probe_allocator a;
	} rows[] = {
		{"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
		 PROBE_ALLOC_JEMALLOC},
		{"libjemalloc.so", PROBE_ALLOC_JEMALLOC},
		{"/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0",
		 PROBE_ALLOC_MIMALLOC},
		{"/usr/lib/libtcmalloc_minimal.so.4", PROBE_ALLOC_TCMALLOC},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", PROBE_ALLOC_GLIBC},
		/* The folder does not count, only the file's name. */
		{"/opt/libjemalloc/lib/libfoo.so", PROBE_ALLOC_GLIBC},
		{"", PROBE_ALLOC_GLIBC},
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		assert_int_equal(probe_allocator_of_path(rows[i].path),
				 rows[i].a);
	assert_string_equal(probe_allocator_name(PROBE_ALLOC_MIMALLOC),
			    "mimalloc");
}

static void test_detect(void **state)
{
	(void)state;
	struct probe_alloc_info info;
	assert_int_equal(probe_alloc_detect(root, 4242, &info), 0);
	assert_int_equal(info.allocator, PROBE_ALLOC_JEMALLOC);
	assert_string_equal(info.path,
			    "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	assert_int_equal(info.threads, 12);

	assert_int_equal(probe_alloc_detect(root, 4243, &info), 0);
	assert_int_equal(info.allocator, PROBE_ALLOC_GLIBC);
	assert_string_equal(info.path, "");
	assert_int_equal(info.threads, 1);

	assert_int_equal(probe_alloc_detect(root, 4244, &info), 0);
	assert_int_equal(info.allocator, PROBE_ALLOC_MIMALLOC);
	assert_string_equal(info.path, "/opt/my app/lib/libmimalloc.so.2.0");
	assert_int_equal(info.threads, -1);

	/* No such process. */
	assert_int_equal(probe_alloc_detect(root, 9, &info), -1);
}

static void test_check_library(void **state)
{
	(void)state;
	char path[4200];
	/* An ELF shared object: the C library this test runs with. */
	assert_int_equal(probe_alloc_check_library(
				 "/lib/x86_64-linux-gnu/libc.so.6") == 0 ||
			 probe_alloc_check_library("/lib64/libc.so.6") == 0 ||
			 probe_alloc_check_library("/usr/lib/libc.so.6") == 0,
			 1);
	/* Not ELF, a folder, missing. */
	snprintf(path, sizeof(path), "%s/4242/maps", root);
	assert_int_equal(probe_alloc_check_library(path), -1);
	assert_int_equal(probe_alloc_check_library(root), -1);
	assert_int_equal(probe_alloc_check_library("/nonexistent/libx.so"), -1);
	/* ELF but not ET_DYN: an object file's header (ET_REL). */
	char tmp[] = "/tmp/test_probe_alloc.XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	h[16] = 1;  /* e_type = ET_REL, little-endian */
	assert_int_equal(write(fd, h, sizeof(h)), (int)sizeof(h));
	close(fd);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
	unlink(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_check_library),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
