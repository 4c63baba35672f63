/*
 * test_probe_alloc.c - `memtrend probe`'s view of a process's allocator
 * (probe_alloc.h) on fixture trees, and the check of --allocator PATH.
 * tests/fixtures/proc-alloc: 4242 is `cat` started with
 * LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 (its maps as the
 * kernel wrote them, Threads set to 12), 4243 the same without (glibc, 1
 * thread), 4244 4242's maps with the library renamed to a path holding a
 * space ("/opt/my app/lib/libmimalloc.so.2.0") and no Threads line.
 * The ELF files the library check refuses are written here, field by
 * field (elf.h); the check of what is loaded runs in this process, where
 * nothing is preloaded and FAKE_NVML_LIB (tests/meson.build) is a library
 * that defines no malloc.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Write an ELF file of this machine's class to path: its header, one
 * PT_DYNAMIC program header (PT_LOAD instead when !dynamic) and two
 * dynamic entries (DT_FLAGS_1 = flags1, DT_NULL). ident_class, machine:
 * the header's fields (0: this machine's). */
static void write_elf(const char *path, bool dynamic, uint64_t flags1,
		      unsigned ident_class, unsigned machine)
{
	struct {
		ElfW(Ehdr) eh;
		ElfW(Phdr) ph;
		ElfW(Dyn) dyn[2];
	} f;
	memset(&f, 0, sizeof(f));
	memcpy(f.eh.e_ident, ELFMAG, SELFMAG);
	f.eh.e_ident[EI_CLASS] = ident_class ? ident_class :
				 (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
	f.eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				ELFDATA2MSB : ELFDATA2LSB;
	f.eh.e_ident[EI_VERSION] = EV_CURRENT;
	f.eh.e_type = ET_DYN;
#if defined(__x86_64__)
	f.eh.e_machine = machine ? machine : EM_X86_64;
#elif defined(__aarch64__)
	f.eh.e_machine = machine ? machine : EM_AARCH64;
#else
	(void)machine;
#endif
	f.eh.e_version = EV_CURRENT;
	f.eh.e_phoff = offsetof(__typeof__(f), ph);
	f.eh.e_ehsize = sizeof(f.eh);
	f.eh.e_phentsize = sizeof(f.ph);
	f.eh.e_phnum = 1;
	f.ph.p_type = dynamic ? PT_DYNAMIC : PT_LOAD;
	f.ph.p_offset = offsetof(__typeof__(f), dyn);
	f.ph.p_filesz = sizeof(f.dyn);
	f.dyn[0].d_tag = DT_FLAGS_1;
	f.dyn[0].d_un.d_val = flags1;
	f.dyn[1].d_tag = DT_NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &f, sizeof(f)), (int)sizeof(f));
	close(fd);
}

/* What the loader refuses to preload, refused before anything runs
 * (before: each passed as ET_DYN, and the arm ran on glibc's malloc). */
static void test_check_library_loader_rules(void **state)
{
	(void)state;
	char tmp[] = "/tmp/test_probe_alloc.XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	/* A shared object by every rule checked: accepted. */
	write_elf(tmp, true, DF_1_NOW, 0, 0);
	assert_int_equal(probe_alloc_check_library(tmp), 0);
	/* A program: ET_DYN too, but DF_1_PIE. */
	write_elf(tmp, true, DF_1_NOW | DF_1_PIE, 0, 0);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
	/* No dynamic section. */
	write_elf(tmp, false, 0, 0, 0);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
	/* The other class (a 32-bit library on a 64-bit machine). */
	write_elf(tmp, true, 0, sizeof(void *) == 8 ? ELFCLASS32 : ELFCLASS64,
		  0);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
	/* Another machine. */
#if defined(__x86_64__)
	write_elf(tmp, true, 0, 0, EM_AARCH64);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
#elif defined(__aarch64__)
	write_elf(tmp, true, 0, 0, EM_X86_64);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
#endif
	/* A FIFO with no writer: refused at once, never waited on. */
	unlink(tmp);
	assert_int_equal(mkfifo(tmp, 0600), 0);
	assert_int_equal(probe_alloc_check_library(tmp), -1);
	unlink(tmp);
}

/* The name of the loaded object whose name contains part (this
 * process's libc), or "" */
struct find_name {
	const char *part;
	char name[4096];
};

static int find_name_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct find_name *f = ctx;
	if (info->dlpi_name && strstr(info->dlpi_name, f->part)) {
		snprintf(f->name, sizeof(f->name), "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Inside the arm's process: is the preloaded library the one in use? */
static void test_check_loaded(void **state)
{
	(void)state;
	char why[4200];
	/* Not loaded at all: what the loader ignored. */
	assert_int_equal(probe_alloc_check_loaded("/nonexistent/libx.so", why,
						  sizeof(why)), -1);
	assert_string_equal(why, "the loader did not load it (its message, "
			    "if any, is above)");
	/* This process's libc: loaded, and malloc is its (in a sanitized
	 * build it is the sanitizer's instead). */
	struct find_name libc = {.part = "libc.so"};
	dl_iterate_phdr(find_name_cb, &libc);
	assert_true(libc.name[0] != '\0');
#if defined(__SANITIZE_ADDRESS__)
	assert_int_equal(probe_alloc_check_loaded(libc.name, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "it was loaded, but malloc is still "));
#else
	assert_int_equal(probe_alloc_check_loaded(libc.name, why, sizeof(why)),
			 0);
	assert_string_equal(why, "");
#endif
	/* A library that is loaded but is no allocator. */
	const char *lib = getenv("FAKE_NVML_LIB");
	if (!lib) {
		skip();
		return;
	}
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	assert_int_equal(probe_alloc_check_loaded(lib, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "it was loaded, but malloc is still "));
	assert_non_null(strstr(why, "'s: not an allocator"));
#if !defined(__SANITIZE_ADDRESS__)
	char want[4400];
	snprintf(want, sizeof(want), "it was loaded, but malloc is still "
		 "%s's: not an allocator", libc.name);
	assert_string_equal(why, want);
#endif
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_check_library),
		cmocka_unit_test(test_check_library_loader_rules),
		cmocka_unit_test(test_check_loaded),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
