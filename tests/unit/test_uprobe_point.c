/*
 * test_uprobe_point.c - where the eBPF mode's free probe goes
 * (src/record/uprobe_point.c): a table of instruction sequences -> the
 * offset of the first relative jump or call of their straight-line start
 * (0 where a write of %rdi, a return or an indirect jump comes first),
 * and the same read from an ELF file (this program's own function of
 * known bytes). Expected offsets are the sequences' own, counted by
 * hand from objdump's listing (glibc 2.36's and jemalloc 5.3's free as
 * Debian 12 ships them are two of the rows).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "uprobe_point.h"

#if MEMTREND_HAVE_CAPSTONE && defined(__x86_64__)
#define DECODES 1
/* test %rdi,%rdi; je 1f; mov %rdi,%rax; 1: ret -- glibc free's shape */
__asm__(".text\n"
	".globl uprobe_point_shape\n"
	".type uprobe_point_shape, @function\n"
	"uprobe_point_shape:\n"
	"\ttest %rdi, %rdi\n"
	"\tje 1f\n"
	"\tmov %rdi, %rax\n"
	"1:\tret\n"
	".size uprobe_point_shape, .-uprobe_point_shape\n");
#else
#define DECODES 0
#endif

static void test_table(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		uint8_t code[64];
		size_t n;
		uint64_t want;
	} rows[] = {
		{"glibc free: test %rdi; je",
		 {0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0, 0, 0, 0x55}, 10, 3},
		{"jemalloc free: eleven moves, then jne",
		 {0x48, 0x89, 0xf8, 0x48, 0x8b, 0x15, 0x0e, 0x53, 0x0a, 0x00,
		  0x48, 0x89, 0xf9, 0x48, 0xc1, 0xe8, 0x1a, 0x48, 0x81, 0xe1,
		  0x00, 0x00, 0x00, 0xc0, 0x25, 0xf0, 0x00, 0x00, 0x00, 0x64,
		  0x48, 0x03, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00, 0x48, 0x01,
		  0xd0, 0x48, 0x3b, 0x88, 0xb0, 0x01, 0x00, 0x00, 0x0f, 0x85,
		  0x8a, 0x00, 0x00, 0x00}, 54, 0x30},
		{"push; mov %rsp,%rbp; test; je",
		 {0x55, 0x48, 0x89, 0xe5, 0x48, 0x85, 0xff, 0x74, 0x05}, 9, 7},
		{"mov %rdi,%rax; call rel32",
		 {0x48, 0x89, 0xf8, 0xe8, 0, 0, 0, 0}, 8, 3},
		{"mov %rax,%rdi (the argument overwritten); je",
		 {0x48, 0x89, 0xc7, 0x74, 0x00}, 5, 0},
		{"xor %edi,%edi (a part of it); je",
		 {0x31, 0xff, 0x74, 0x00}, 4, 0},
		{"ret first", {0xc3}, 1, 0},
		{"mov; jmp *%rax (where it goes unknown)",
		 {0x48, 0x89, 0xf8, 0xff, 0xe0}, 5, 0},
		{"a jump at the entry: emulated there already",
		 {0xeb, 0x00}, 2, 0},
		{"no jump within the bytes", {0x48, 0x89, 0xf8, 0x90}, 4, 0},
		{"bytes that do not decode", {0x0f, 0x0b, 0xff}, 3, 0},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		uint64_t got = uprobe_point_offset_in(rows[i].code, rows[i].n);
		uint64_t want = DECODES ? rows[i].want : 0;
		if (got != want)
			fail_msg("%s: offset %llu, expected %llu", rows[i].what,
				 (unsigned long long)got,
				 (unsigned long long)want);
	}
}

/* From an ELF file: this program's uprobe_point_shape (its symbol table),
 * a function that is not there, a file that is not ELF. */
static void test_file(void **state)
{
	(void)state;
	assert_int_equal(uprobe_point_offset("/proc/self/exe",
					      "uprobe_point_shape"),
			 DECODES ? 3 : 0);
	assert_int_equal(uprobe_point_offset("/proc/self/exe",
					      "no_such_function_here"), 0);
	assert_int_equal(uprobe_point_offset("/proc/self/status", "free"), 0);
	assert_int_equal(uprobe_point_offset("/nonexistent/lib.so", "free"),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
