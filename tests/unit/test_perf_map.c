/*
 * test_perf_map.c - the perf map reader (src/record/perf_map.c): a JIT's
 * /tmp/perf-PID.map lines, as a table of text -> lookups. The expected
 * names come from the lines themselves (the format: "START SIZE NAME",
 * hex, the last line covering an address wins); the live file case
 * writes a map for this test's own pid and appends to it.
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

#include "perf_map.h"

struct lookup {
	uint64_t pc;
	const char *name;          /* NULL: none */
	uint64_t start;
};

static const char map_text[] =
	"7f0000001000 40 LazyCompile:~handle /srv/app.js:12\n"
	"0x7f0000002000 0x100 Function:_ZN3foo3barEv\n"
	"7f0000001020 10 reused:inner\n"       /* reuses part of the first */
	"not a line\n"
	"7f0000003000 0 empty size\n"           /* size 0: skipped */
	"7f0000004000 20\n"                     /* no name: skipped */
	"ffffffffffffff00 1000 overflow\n"      /* wraps: skipped */
	"7f0000005000 8 name with  spaces\n";

static const struct lookup lookups[] = {
	{0x7f0000001000, "LazyCompile:~handle /srv/app.js:12", 0x7f0000001000},
	{0x7f000000101f, "LazyCompile:~handle /srv/app.js:12", 0x7f0000001000},
	{0x7f0000001020, "reused:inner", 0x7f0000001020},
	{0x7f000000102f, "reused:inner", 0x7f0000001020},
	{0x7f0000001030, "LazyCompile:~handle /srv/app.js:12", 0x7f0000001000},
	{0x7f0000001040, NULL, 0},              /* one past the end */
	{0x7f00000020ff, "Function:_ZN3foo3barEv", 0x7f0000002000},
	{0x7f0000003000, NULL, 0},
	{0x7f0000004000, NULL, 0},
	{0xffffffffffffff10, NULL, 0},
	{0x7f0000005007, "name with  spaces", 0x7f0000005000},
	{0x1000, NULL, 0},
};

static void test_table(void **state)
{
	(void)state;
	struct perf_map *m = perf_map_from_text(map_text);
	for (size_t i = 0; i < sizeof(lookups) / sizeof(*lookups); i++) {
		uint64_t start = 0;
		const char *got = perf_map_lookup(m, lookups[i].pc, &start);
		if (!lookups[i].name) {
			assert_null(got);
			continue;
		}
		assert_non_null(got);
		assert_string_equal(got, lookups[i].name);
		assert_int_equal(start, lookups[i].start);
	}
	perf_map_free(m);
}

/* The file of a live JIT: read when first asked, again when it grew; a
 * last line the JIT has not finished is read once it is. */
static void test_file_grows(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("7f0000010000 100 first\n7f0000020000 10 sec", f);
	fclose(f);
	struct perf_map *m = perf_map_new(getpid());
	assert_string_equal(perf_map_lookup(m, 0x7f0000010010, NULL), "first");
	assert_null(perf_map_lookup(m, 0x7f0000020000, NULL));
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("ond\n7f0000030000 10 third\n", f);
	fclose(f);
	assert_string_equal(perf_map_lookup(m, 0x7f0000020000, NULL), "second");
	assert_string_equal(perf_map_lookup(m, 0x7f0000030000, NULL), "third");
	perf_map_free(m);
	unlink(path);
	/* no file: no name, no failure */
	m = perf_map_new(getpid());
	assert_null(perf_map_lookup(m, 0x7f0000010010, NULL));
	perf_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_file_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
