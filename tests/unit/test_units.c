/*
 * test_units.c - units.c as tables: input text -> expected value (and
 * precision), bad inputs -> rejected, value -> expected human text.
 *
 * Expected Unix times were computed with GNU date, e.g.
 * `date -u -d 2026-05-01T02:04:00Z +%s` -> 1777601040; the figures come
 * from the field reports in context.md (21 GB, 230.63GiB, 5408 MB, ...).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define TiB (1024.0 * GiB)

/* Equal within a relative 1e-12 (decimal fractions are not exact). */
static void assert_close(double got, double want, const char *what)
{
	double tol = fabs(want) * 1e-12;
	if (!(fabs(got - want) <= tol)) {
		print_error("%s: got %.17g, want %.17g\n", what, got, want);
		fail();
	}
}

static void test_parse_size_good(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		double bytes, quantum;
	} cases[] = {
		/* field report figures */
		{"21 GB", 21e9, 1e9},
		{"230.63GiB", 230.63 * GiB, 0.01 * GiB},
		{"5408 MB", 5408e6, 1e6},
		{"6259 MB", 6259e6, 1e6},
		{"564 MiB", 564 * MiB, MiB},
		{"5.36 GiB", 5.36 * GiB, 0.01 * GiB},
		{"246.02 GiB", 246.02 * GiB, 0.01 * GiB},
		/* bare = bytes */
		{"5408", 5408, 1},
		{"0", 0, 1},
		{"21474836480", 21474836480.0, 1},
		/* every unit */
		{"7 B", 7, 1},
		{"1 kB", 1e3, 1e3},
		{"1 KB", 1e3, 1e3},
		{"1kb", 1e3, 1e3},
		{"2 MB", 2e6, 1e6},
		{"3 TB", 3e12, 1e12},
		{"16 KiB", 16 * KiB, KiB},
		{"2 MiB", 2 * MiB, MiB},
		{"2 TiB", 2 * TiB, TiB},
		/* precision follows the written digits */
		{"1.50 MB", 1.5e6, 1e4},
		{"1.5e3", 1500, 100},
		{"2e3", 2000, 1000},
		{"1.5E3 MB", 1.5e9, 1e8},
		{"25e-1", 2.5, 0.1},
		{".5 KiB", 512, 0.1 * KiB},
		{"5.", 5, 1},
		{"0.1 GB", 1e8, 1e8},
		/* blanks around and between */
		{"  7 B  ", 7, 1},
		{"\t21\tGB\t", 21e9, 1e9},
		{"21   GB", 21e9, 1e9},
		/* more digits than a uint64 holds: read by strtod */
		{"1.23456789012345678901234", 1.2345678901234568, 1e-23},
		/* one letter, powers of 1024, as vmmap/top/ps print */
		{"214.20G", 214.20 * GiB, 0.01 * GiB},
		{"1.2g", 1.2 * GiB, 0.1 * GiB},
		{"512K", 512 * KiB, KiB},
		{"3 M", 3 * MiB, MiB},
		{"2T", 2 * TiB, TiB},
		/* the largest accepted: 1 EiB */
		{"1048576 TiB", 1048576 * TiB, TiB},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double b = -1, q = -1;
		if (units_parse_size(cases[i].in, &b, &q) != 0) {
			print_error("rejected '%s'\n", cases[i].in);
			fail();
		}
		assert_close(b, cases[i].bytes, cases[i].in);
		assert_close(q, cases[i].quantum, cases[i].in);
		/* quantum is optional */
		assert_int_equal(units_parse_size(cases[i].in, &b, NULL), 0);
	}
}

static void test_parse_size_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", " ", "12XB", "-5MB", "-0", "+5", "1.2.3", "5 mb",
		"5 Mib", "5 GG", "5 Kk", "GB", "21 GB x", "1e", "1e+",
		".", "..5", "5..", "1,5 GB", "5 MB/h", "inf", "nan", "NaN",
		"INF", "0x10", "0x1p3", "1e400", "1e400 B", "5 EB", "5 PiB",
		"5 b", "5 Kb", "5B B", "5\n", "21 GB\r",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double b = 42, q = 42;
		if (units_parse_size(bad[i], &b, &q) != -1) {
			print_error("accepted '%s' as %g\n", bad[i], b);
			fail();
		}
		/* outputs untouched on failure */
		assert_true(b == 42 && q == 42);
	}
	/* Over 1 EiB: -2, a value no memory reading has (2^63 came out of
	 * JSON as -9223372036854775808) */
	static const char *const huge[] = {
		"2e18", "123456789012345678901234567890", "99999999999G",
		"1048577 TiB", "1e308",
	};
	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		double b = 42;
		if (units_parse_size(huge[i], &b, NULL) != -2) {
			print_error("'%s' not refused as too large\n", huge[i]);
			fail();
		}
		assert_true(b == 42);
	}
}

static void test_parse_duration(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		double seconds;
	} good[] = {
		{"15s", 15},   {"5m", 300},     {"2h", 7200},   {"1d", 86400},
		{"250ms", 0.25}, {"90", 90},    {"1.5h", 5400}, {"5 min", 300},
		{"0", 0},      {" 30 s ", 30},  {"0.5d", 43200}, {"1e3", 1000},
		{"4.3h", 4.3 * 3600},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		double s = -1;
		if (units_parse_duration(good[i].in, &s) != 0) {
			print_error("rejected '%s'\n", good[i].in);
			fail();
		}
		assert_close(s, good[i].seconds, good[i].in);
	}
	static const char *const bad[] = {
		"", "s", "-5s", "5x", "5 mins", "5 sec", "1.2.3s", "inf",
		"5 M", "5 H", "5h30m", "5 GB", "nan s",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double s = 42;
		if (units_parse_duration(bad[i], &s) != -1) {
			print_error("accepted '%s'\n", bad[i]);
			fail();
		}
		assert_true(s == 42);
	}
}

static void test_parse_rate(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		double bytes;
		enum rate_basis basis;
	} good[] = {
		{"10MiB/h", 10 * MiB, RATE_PER_HOUR},
		{"2 MB/min", 120e6, RATE_PER_HOUR},
		{"48KiB/req", 48 * KiB, RATE_PER_REQUEST},
		{"1 KiB/s", 3600 * KiB, RATE_PER_HOUR},
		{"24 GB/d", 1e9, RATE_PER_HOUR},
		{"0.235 GB/h", 0.235e9, RATE_PER_HOUR},   /* context.md */
		{"4.3 GiB / h", 4.3 * GiB, RATE_PER_HOUR},
		{"2.5 GB/req", 2.5e9, RATE_PER_REQUEST},
		{"1000/h", 1000, RATE_PER_HOUR},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rate r = {-1, RATE_PER_REQUEST};
		if (units_parse_rate(good[i].in, &r) != 0) {
			print_error("rejected '%s'\n", good[i].in);
			fail();
		}
		assert_close(r.bytes, good[i].bytes, good[i].in);
		assert_int_equal(r.basis, good[i].basis);
	}
	static const char *const bad[] = {
		"", "10MiB", "10MiB/", "/h", "10MiB/week", "10MiB/hour",
		"-1MB/h", "10MiB/h/h", "10 q/h", "10MiB/H", "10MiB/m",
		"abc/h", "10MiB//h",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rate r = {42, RATE_PER_HOUR};
		if (units_parse_rate(bad[i], &r) != -1) {
			print_error("accepted '%s'\n", bad[i]);
			fail();
		}
		assert_true(r.bytes == 42);
	}
}

static void test_parse_time(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		double unix_seconds;
	} good[] = {
		{"2026-05-01T02:04:00Z", 1777601040},
		{"2026-05-01 02:04:00Z", 1777601040},
		{"2026-05-01t02:04:00z", 1777601040},
		{"2026-05-01T02:04:00+02:00", 1777593840},
		{"2026-05-01T02:04:00+0200", 1777593840},
		{"2026-05-01T02:04:00+02", 1777593840},
		{"2026-05-01 02:04:00-05:30", 1777620840},
		{"2026-05-01T02:04:00.5Z", 1777601040.5},
		{"2026-05-01T02:04:00.250+00:00", 1777601040.25},
		{"2024-02-29T12:00:00Z", 1709208000},       /* leap day */
		{"1999-12-31T23:59:59Z", 946684799},
		{"2016-12-31T23:59:60Z", 1483228800},        /* leap second */
		{"1970-01-01T00:00:00Z", 0},
		{"  2026-05-01T02:04:00Z ", 1777601040},
		/* Unix seconds */
		{"1777601040", 1777601040},
		{"1746065040.5", 1746065040.5},
		{"0", 0},
		{"1.7776e9", 1.7776e9},
		{"9999-12-31T23:59:59Z", 253402300799},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		double t = -1;
		if (units_parse_time(good[i].in, &t) != 0) {
			print_error("rejected '%s'\n", good[i].in);
			fail();
		}
		assert_close(t, good[i].unix_seconds, good[i].in);
	}
	static const char *const bad[] = {
		"", "abc", "-5", "2026-05-01T02:04:00",      /* no zone */
		"2026-05-01 02:04:00", "2026-05-01T02:04:00.5",
		"2026-05-01", "2026-05-01T02:04Z", "2026-13-01T00:00:00Z",
		"2026-00-01T00:00:00Z", "2026-02-30T00:00:00Z",
		"2023-02-29T00:00:00Z", "2026-05-00T00:00:00Z",
		"2026-05-01T24:00:00Z", "2026-05-01T02:60:00Z",
		"2026-05-01T02:04:61Z", "2026-5-01T02:04:00Z",
		"2026-05-01T02:04:00+2:00", "2026-05-01T02:04:00+02:0",
		"2026-05-01T02:04:00+24:00", "2026-05-01T02:04:00+02:60",
		"2026-05-01T02:04:00Z junk", "2026-05-01T02:04:00.Z",
		"2026-05-01X02:04:00Z", "1777601040 s", "0x10", "inf", "nan",
		"1e400",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double t = 42;
		if (units_parse_time(bad[i], &t) != -1) {
			print_error("accepted '%s' as %.17g\n", bad[i], t);
			fail();
		}
		assert_true(t == 42);
	}
	/* well-formed, but no reading's time: -2 (1e300 and year 0000 were
	 * accepted and printed as "n/a") */
	static const char *const far[] = {
		"1e300", "253402300800", "1e12", "0000-01-01T00:00:00Z",
		"1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
	};
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		double t = 42;
		int rc = units_parse_time(far[i], &t);
		if (rc != -2) {
			print_error("'%s': %d, not refused as out of range\n",
				    far[i], rc);
			fail();
		}
	}
}

static void test_format_size(void **state)
{
	(void)state;
	static const struct {
		double in;
		const char *out;
	} cases[] = {
		{0, "0 B"},
		{-0.0, "0 B"},
		{7, "7 B"},
		{512, "512 B"},
		{999, "999 B"},
		{1000, "0.977 KiB"},   /* at most three digits */
		{1023, "0.999 KiB"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{1.23 * GiB, "1.23 GiB"},
		{-40 * MiB, "-40 MiB"},
		{246.02 * GiB, "246 GiB"},
		{44.51 * GiB, "44.5 GiB"},
		{5.36 * GiB, "5.36 GiB"},
		{564 * MiB, "564 MiB"},
		{21e9, "19.6 GiB"},
		{999.4 * MiB, "999 MiB"},
		{999.6 * MiB, "0.976 GiB"},
		{60.8 * GiB, "60.8 GiB"},
		{2000 * TiB, "2000 TiB"},  /* no unit above TiB */
		{0.5, "0.5 B"},
		{-1.5 * KiB, "-1.5 KiB"},
		{NAN, "n/a"},
		{INFINITY, "n/a"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(units_format_size(buf, sizeof(buf),
						   cases[i].in), buf);
		assert_string_equal(buf, cases[i].out);
	}
}

static void test_format_rate(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(units_format_rate(buf, sizeof(buf), 4.29 * GiB),
			    "4.29 GiB/h");
	/* context.md: 4.6 GB/h is 4.3 GiB/h */
	assert_string_equal(units_format_rate(buf, sizeof(buf), 4.6e9),
			    "4.28 GiB/h");
	assert_string_equal(units_format_rate(buf, sizeof(buf), -2 * MiB),
			    "-2 MiB/h");
	assert_string_equal(units_format_rate(buf, sizeof(buf), 0), "0 B/h");
}

static void test_format_duration(void **state)
{
	(void)state;
	static const struct {
		double in;
		const char *out;
	} cases[] = {
		{0, "0 s"},
		{0.25, "0.25 s"},
		{1.5, "1.5 s"},
		{5, "5 s"},
		{45, "45 s"},
		{59.4, "59 s"},
		{59.7, "1 min"},
		{60, "1 min"},
		{320, "5.3 min"},                 /* 5 min 20 s */
		{3599, "1 h"},
		{7200, "2 h"},
		{1e9 / 0.235e9 * 3600, "4.3 h"},  /* 1 GB / 0.235 GB/h */
		{12 * 3600, "12 h"},
		{23.4 * 3600, "23 h"},
		{23.6 * 3600, "1 d"},
		{3.5 * 86400, "3.5 d"},
		{35 * 86400, "35 d"},
		{400 * 86400, "400 d"},
		{-300, "-5 min"},
		{NAN, "n/a"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_format_duration(buf, sizeof(buf), cases[i].in);
		if (strcmp(buf, cases[i].out) != 0) {
			print_error("%g s: got '%s', want '%s'\n", cases[i].in,
				    buf, cases[i].out);
			fail();
		}
	}
}

static void test_format_time(void **state)
{
	(void)state;
	static const struct {
		double in;
		const char *out;
	} cases[] = {
		{0, "1970-01-01T00:00:00Z"},
		{1777601040, "2026-05-01T02:04:00Z"},
		{1777601040.9, "2026-05-01T02:04:00Z"},  /* floor */
		{1709208000, "2024-02-29T12:00:00Z"},
		{-1, "1969-12-31T23:59:59Z"},
		{253402300799, "9999-12-31T23:59:59Z"},
		{253402300800, "n/a"},
		{NAN, "n/a"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(units_format_time(buf, sizeof(buf),
						      cases[i].in),
				    cases[i].out);
}

/* What is formatted reads back (to the shown precision). */
static void test_round_trip(void **state)
{
	(void)state;
	static const char *const times[] = {
		"2026-05-01T02:04:00Z", "2024-02-29T12:00:00Z",
		"1999-12-31T23:59:59Z",
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		double t;
		assert_int_equal(units_parse_time(times[i], &t), 0);
		assert_string_equal(units_format_time(buf, sizeof(buf), t),
				    times[i]);
	}
	static const double sizes[] = {7, 1536, 1.23 * GiB, 564 * MiB,
				       246.02 * GiB};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double b, q;
		units_format_size(buf, sizeof(buf), sizes[i]);
		assert_int_equal(units_parse_size(buf, &b, &q), 0);
		/* within half the last shown digit */
		assert_true(fabs(b - sizes[i]) <= q / 2 * (1 + 1e-9));
	}
	double d;
	units_format_duration(buf, sizeof(buf), 320);
	assert_int_equal(units_parse_duration(buf, &d), 0);
	assert_close(d, 5.3 * 60, buf);
}

/* Output always fits and is NUL-terminated. */
static void test_format_truncates(void **state)
{
	(void)state;
	char buf[5];
	memset(buf, 'x', sizeof(buf));
	units_format_size(buf, sizeof(buf), 1.23 * GiB);
	assert_string_equal(buf, "1.23");
	units_format_time(buf, sizeof(buf), 0);
	assert_string_equal(buf, "1970");
	units_format_duration(buf, 1, 45);
	assert_string_equal(buf, "");
	units_format_rate(buf, 3, 1);
	assert_string_equal(buf, "1 ");
}

/* Slopes carry their sign; decimal units on request (by hand). */
static void test_format_slope(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(units_format_slope(b, sizeof(b), 1.5 * 1024 * 1024,
					       false), "+1.5 MiB/h");
	assert_string_equal(units_format_slope(b, sizeof(b), -40.0 * 1048576,
					       false), "-40 MiB/h");
	assert_string_equal(units_format_slope(b, sizeof(b), 0, false),
			    "0 B/h");
	assert_string_equal(units_format_slope(b, sizeof(b), 29166666.67,
					       true), "+29.2 MB/h");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size_good),
		cmocka_unit_test(test_parse_size_bad),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_format_slope),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_format_time),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_format_truncates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
