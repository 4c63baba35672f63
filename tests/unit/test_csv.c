/*
 * test_csv.c - csv.c on the fixtures in $FIXTURES/csv (good files: every
 * parsed value checked; bad files: the message names the file, line and
 * column, and the dataset comes back released) and on inline texts read
 * through fmemopen() for the smaller edge cases.
 *
 * Expected Unix times were computed with GNU date, e.g.
 * `date -u -d 2026-03-02T09:00:00Z +%s` -> 1772442000. Figures are from
 * the field reports in context.md.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "csv.h"
#include "fixture.h"
#include "series.h"

#define MiB (1024.0 * 1024)
#define GiB (1024.0 * MiB)

static void assert_close(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= fabs(want) * 1e-12)) {
		print_error("%s: got %.17g, want %.17g\n", what, got, want);
		fail();
	}
}

/* stderr into a temporary file while the code under test runs. */
static FILE *capture_file;
static int saved_stderr = -1;
static char captured[16384];

static void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	assert_non_null(capture_file);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_true(dup2(fileno(capture_file), 2) >= 0);
}

static const char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	rewind(capture_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	capture_file = NULL;
	return captured;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void assert_contains(const char *text, const char *part)
{
	if (!text || !strstr(text, part)) {
		print_error("expected '%s' in:\n%s\n", part,
			    text ? text : "(nothing)");
		fail();
	}
}

static void assert_released(const struct dataset *d)
{
	assert_null(d->source);
	assert_null(d->targets);
	assert_int_equal(d->n_targets, 0);
	assert_null(d->notes);
}

/* Read a fixture that must parse, with no message at all. */
static struct series *read_ok(const char *name, struct dataset *d)
{
	capture_begin();
	int rc = csv_read_file(fixture(name), d);
	const char *err = capture_end();
	if (rc != 0) {
		print_error("%s failed:\n%s\n", name, err);
		fail();
	}
	assert_int_equal(d->n_targets, 1);
	assert_string_equal(d->source, fixture(name));
	assert_true(isnan(d->interval_s));
	return &d->targets[0];
}

static void assert_no_optional(const struct series *s)
{
	for (int c = 0; c < COMP_COUNT; c++)
		assert_null(s->comp[c]);
	assert_null(s->requests);
	assert_null(s->connections);
	assert_null(s->pressure);
	assert_int_equal(s->n_gauges, 0);
}

/* context.md report 2: three identical whole-GB readings over 5 min 20 s. */
static void test_three_flat(void **state)
{
	(void)state;
	struct dataset d;
	struct series *s = read_ok("three_flat.csv", &d);
	assert_string_equal(s->name, "three_flat");
	assert_int_equal(s->n, 3);
	static const double t[] = {1772442000, 1772442160, 1772442320};
	for (size_t i = 0; i < 3; i++) {
		assert_true(s->t[i] == t[i]);
		assert_true(s->footprint[i] == 21e9);
		assert_int_equal(s->inc[i], 0);
	}
	assert_true(s->t[2] - s->t[0] == 320);  /* 5 min 20 s */
	assert_true(s->quantum == 1e9);          /* whole GB */
	assert_int_equal(s->n_incs, 1);
	assert_int_equal(s->incs[0].pid, -1);
	assert_true(isnan(s->incs[0].start_time));
	assert_int_equal(s->incs[0].start_ticks, 0);
	assert_no_optional(s);
	dataset_release(&d);
	assert_released(&d);
}

/* Tab-separated, Unix seconds, blank cells are missing values. */
static void test_epoch_blanks(void **state)
{
	(void)state;
	struct dataset d;
	struct series *s = read_ok("epoch_blanks.tsv", &d);
	assert_string_equal(s->name, "epoch_blanks");
	assert_int_equal(s->n, 4);
	static const double t[] = {1777601040, 1777601055, 1777601070,
				   1777601085};
	static const double fp[] = {216949534720.0, NAN, 216960270336.0,
				    216971010048.0};
	static const double req[] = {100, 100, 101, NAN};
	static const double conn[] = {2, NAN, 0, 0};
	for (size_t i = 0; i < 4; i++) {
		assert_true(s->t[i] == t[i]);
		if (isnan(fp[i]))
			assert_true(isnan(s->footprint[i]));
		else
			assert_true(s->footprint[i] == fp[i]);
		if (isnan(req[i]))
			assert_true(isnan(s->requests[i]));
		else
			assert_true(s->requests[i] == req[i]);
		if (isnan(conn[i]))
			assert_true(isnan(s->connections[i]));
		else
			assert_true(s->connections[i] == conn[i]);
	}
	assert_true(s->quantum == 1);  /* bytes */
	assert_null(s->pressure);
	assert_int_equal(s->n_gauges, 0);
	dataset_release(&d);
}

/* context.md report 1: old build's last sample 244.51 GiB, new process
 * at 202.22 GiB: a pid change is a restart. */
static void test_restart(void **state)
{
	(void)state;
	struct dataset d;
	struct series *s = read_ok("restart.csv", &d);
	assert_int_equal(s->n, 5);
	assert_int_equal(s->n_incs, 2);
	assert_int_equal(s->incs[0].pid, 4242);
	assert_int_equal(s->incs[1].pid, 5151);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(s->incs[k].start_ticks, 0);
		assert_true(isnan(s->incs[k].start_time));
		assert_null(s->incs[k].comm);
		assert_null(s->incs[k].cmdline);
	}
	/* the blank pid on line 5 stays with the current incarnation */
	static const uint32_t inc[] = {0, 0, 1, 1, 1};
	static const double t[] = {1777622400, 1777622415, 1777622460,
				   1777622475, 1777622490};
	static const double fp[] = {244.20 * GiB, 244.51 * GiB, 202.10 * GiB,
				    202.22 * GiB, 202.22 * GiB};
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(s->inc[i], inc[i]);
		assert_true(s->t[i] == t[i]);
		assert_close(s->footprint[i], fp[i], "footprint");
	}
	assert_close(s->quantum, 0.01 * GiB, "quantum");
	/* 42.29 GiB back, as in the report (≈ 42.3 GiB) */
	assert_close(s->footprint[1] - s->footprint[3],
		     (244.51 - 202.22) * GiB, "recovered");
	dataset_release(&d);
}

/* Components, counters and gauges with units; a text column is skipped
 * with a note. */
static void test_gauges(void **state)
{
	(void)state;
	struct dataset d;
	capture_begin();
	int rc = csv_read_file(fixture("gauges.csv"), &d);
	const char *err = capture_end();
	assert_int_equal(rc, 0);
	assert_contains(err, "note: ");
	assert_contains(err, "gauges.csv:2: column 'host' holds text "
			     "('studio'); ignoring it");

	struct series *s = &d.targets[0];
	assert_int_equal(s->n, 3);
	static const double t[] = {1777601040, 1777624860, 1777626000};
	static const double fp[] = {202.05 * GiB, 230.63 * GiB, 237.3 * GiB};
	static const double req[] = {0, 512, 530};
	static const double conn[] = {0, 4, 0};
	static const double pres[] = {0, 0.5, 0};
	static const double cache[] = {564 * MiB, 5.64 * GiB, 5.64 * GiB};
	static const double rss[] = {3797e6, 3801e6, NAN};
	assert_int_equal(s->n_gauges, 1);
	assert_string_equal(s->gauges[0].name, "prompt_cache");
	assert_non_null(s->comp[COMP_RSS]);
	for (size_t i = 0; i < 3; i++) {
		assert_true(s->t[i] == t[i]);
		assert_close(s->footprint[i], fp[i], "footprint");
		assert_true(s->requests[i] == req[i]);
		assert_true(s->connections[i] == conn[i]);
		assert_true(s->pressure[i] == pres[i]);
		assert_close(s->gauges[0].v[i], cache[i], "prompt_cache");
		if (isnan(rss[i]))
			assert_true(isnan(s->comp[COMP_RSS][i]));
		else
			assert_true(s->comp[COMP_RSS][i] == rss[i]);
	}
	for (int c = 0; c < COMP_COUNT; c++)
		if (c != COMP_RSS)
			assert_null(s->comp[c]);
	/* the coarsest reading: "237.3 GiB" */
	assert_close(s->quantum, 0.1 * GiB, "quantum");
	/* report 1: the prompt cache explains ≈ 5.1 GiB of the growth */
	assert_close(s->gauges[0].v[2] - s->gauges[0].v[0],
		     5.64 * GiB - 564 * MiB, "cache growth");
	dataset_release(&d);
}

/* BOM, CRLF, comment and blank lines, quoted cells with "" and commas,
 * names in any case with blanks around. */
static void test_quoting(void **state)
{
	(void)state;
	struct dataset d;
	struct series *s = read_ok("quoting.csv", &d);
	assert_string_equal(s->name, "quoting");
	assert_int_equal(s->n, 2);
	assert_true(s->t[0] == 1777601040);
	assert_true(s->t[1] == 1777601055);
	assert_true(s->footprint[0] == 21e9);
	assert_true(s->footprint[1] == 21e9);
	assert_int_equal(s->n_gauges, 1);
	assert_string_equal(s->gauges[0].name, "cache \"hot\", MiB");
	assert_true(s->gauges[0].v[0] == 564 * MiB);
	assert_true(isnan(s->gauges[0].v[1]));
	dataset_release(&d);
}

static void test_bad_files(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		const char *message;
	} cases[] = {
		{"bad_footprint.csv", "bad_footprint.csv:4: column 'footprint': "
				      "cannot read 'n/a' as a size"},
		{"bad_backwards.csv", "bad_backwards.csv:4: column 'time': time "
				      "goes backwards (2026-03-02T09:01:00Z, "
				      "after 2026-03-02T09:02:40Z on line 3)"},
		{"bad_cells.csv", "bad_cells.csv:3: 3 cells, but the header "
				  "(line 1) has 2"},
		{"bad_no_footprint.csv", "bad_no_footprint.csv:1: the header "
					 "has no 'footprint' column"},
		{"bad_no_zone.csv", "bad_no_zone.csv:2: column 'time': cannot "
				    "read '2026-03-02 09:00:00' as a time: an "
				    "ISO 8601 time needs a zone"},
		{"no_such_file.csv", "cannot open '"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dataset d;
		memset(&d, 0xa5, sizeof(d));  /* garbage in: zeroed out */
		capture_begin();
		int rc = csv_read_file(fixture(cases[i].file), &d);
		const char *err = capture_end();
		assert_int_equal(rc, -1);
		assert_contains(err, "memtrend: error: ");
		assert_contains(err, cases[i].message);
		/* one message, one line */
		assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
		assert_released(&d);
	}
}

/* Read text through a stream named "mem.csv"; returns csv's result and
 * leaves stderr's text in captured. */
static int read_text(const char *text, size_t len, struct dataset *d)
{
	FILE *f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	capture_begin();
	int rc = csv_read_stream(f, "dir/mem.csv", d);
	capture_end();
	fclose(f);
	return rc;
}

static void test_bad_inline(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
		{"", "dir/mem.csv: no header row (the file is empty)"},
		{"\n\n# only comments\n", "no header row"},
		{"time,footprint\n", "dir/mem.csv: no data rows after the "
				     "header (line 1)"},
		{"time,footprint\n\n\n", "no data rows"},
		{"time,footprint\n1,2\n3\n", "mem.csv:3: 1 cells, but the "
					     "header (line 1) has 2"},
		{"time,footprint\n,5 GB\n", "mem.csv:2: column 'time': blank"},
		{"time,footprint\nyesterday,5 GB\n",
		 "mem.csv:2: column 'time': cannot read 'yesterday' as a time "
		 "(ISO 8601 with a zone, or Unix seconds)"},
		{"time,footprint\n-5,5 GB\n", "cannot read '-5' as a time"},
		{"time,footprint\n1,12XB\n",
		 "mem.csv:2: column 'footprint': cannot read '12XB' as a size"},
		{"time,footprint\n1,-5MB\n", "cannot read '-5MB' as a size"},
		{"time,footprint\n1,5 q\n", "cannot read '5 q' as a size (a "
		 "number, optionally with a unit: B, kB"},
		/* hostile values: sizes past 1 EiB (2^63 printed as a negative
		 * JSON integer), times no reading has (printed as "n/a") */
		{"time,footprint\n1,1e308\n", "mem.csv:2: column 'footprint': "
		 "size '1e308' is over 1 EiB"},
		{"time,footprint\n1,99999999999999999999G\n", "is over 1 EiB"},
		{"time,footprint,rss\n1,5,2e19\n", "column 'rss': size '2e19' "
		 "is over 1 EiB"},
		{"time,footprint\n1e300,5\n", "mem.csv:2: column 'time': time "
		 "'1e300' is outside 1970-9999"},
		{"time,footprint\n0000-01-01T00:00:00Z,5\n", "is outside "
		 "1970-9999"},
		{"time,footprint\n1,1.2.3\n", "cannot read '1.2.3' as a size"},
		{"time,footprint,rss\n1,5 GB,lots\n",
		 "mem.csv:2: column 'rss': cannot read 'lots' as a size"},
		{"time,footprint,pid\n1,5 GB,12a\n",
		 "mem.csv:2: column 'pid': cannot read '12a' as a pid"},
		{"time,footprint,pid\n1,5 GB,-1\n", "as a pid"},
		{"time,footprint,requests\n1,5 GB,5 MB\n",
		 "column 'requests': cannot read '5 MB' as a number"},
		{"time,footprint,connections\n1,5 GB,-1\n",
		 "column 'connections': cannot read '-1' as a number"},
		{"time,footprint,cache\n1,5 GB,5 MB\n2,5 GB,oops\n",
		 "mem.csv:3: column 'cache': cannot read 'oops' as a size"},
		{"time,footprint\n1,\"5 GB\n", "mem.csv:2: cell 2: a quoted "
					       "cell has no closing quote"},
		{"time,footprint\n1,\"5\" GB\n", "mem.csv:2: cell 2: text after "
						 "the closing quote"},
		{"time,footprint\n1,5\"GB\"\n", "mem.csv:2: cell 2: a quote "
						"inside an unquoted cell"},
		{"time;footprint\n1;5\n", "mem.csv:1: the header has no "
					  "'footprint' column (cells must be "
					  "separated by commas or tabs)"},
		{"footprint\n5\n", "mem.csv:1: the header has no 'time' column"},
		{"time,footprint,Time\n1,2,3\n", "mem.csv:1: columns 1 ('time') "
						 "and 3 ('Time') hold the "
						 "same figure"},
		{"timestamp,footprint,t\n1,2,3\n", "columns 1 ('timestamp') and "
						   "3 ('t')"},
		{"time,footprint,x,X\n1,2,3,4\n", "columns 3 ('x') and 4 ('X')"},
		{"time,footprint\n2,1\n1,1\n", "mem.csv:3: column 'time': time "
					       "goes backwards"},
		{"time,footprint\n2026-05-01T02:04:00+02:00,1\n"
		 "2026-05-01T00:03:00Z,1\n", "time goes backwards"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dataset d;
		int rc = read_text(cases[i].text, strlen(cases[i].text), &d);
		if (rc != -1) {
			print_error("accepted: %s\n", cases[i].text);
			fail();
		}
		assert_contains(captured, cases[i].message);
		assert_released(&d);
	}

	/* A NUL byte cannot hide in a cell. */
	static const char nul[] = "time,footprint\n1,5\0 GB\n";
	struct dataset d;
	assert_int_equal(read_text(nul, sizeof(nul) - 1, &d), -1);
	assert_contains(captured, "mem.csv:2: contains a NUL byte");
	assert_released(&d);
}

/* Inline texts that parse, with the values they must give. */
static void test_good_inline(void **state)
{
	(void)state;
	struct dataset d;
	struct series *s;

	/* no line end at the end; CR line ends; equal times allowed */
	static const char a[] = "time,footprint\r\n5,1 KiB\r\n5,2 KiB";
	assert_int_equal(read_text(a, strlen(a), &d), 0);
	s = &d.targets[0];
	assert_string_equal(s->name, "mem");
	assert_string_equal(d.source, "dir/mem.csv");
	assert_int_equal(s->n, 2);
	assert_true(s->t[1] == 5 && s->footprint[1] == 2048);
	assert_true(s->quantum == 1024);
	dataset_release(&d);

	/* the quantum is the coarsest footprint cell, wherever it is */
	static const char q[] = "time,footprint\n1,1.5 GB\n2,2 GB\n3,2.25 GB\n";
	assert_int_equal(read_text(q, strlen(q), &d), 0);
	assert_true(d.targets[0].quantum == 1e9);
	dataset_release(&d);

	/* a quoted line break in a header name; line numbers still count
	 * physical lines (the bad cell is on line 4) */
	static const char b[] = "time,footprint,\"cache\nbytes\"\n1,1,1\n"
				"2,x,1\n";
	assert_int_equal(read_text(b, strlen(b), &d), -1);
	assert_contains(captured, "mem.csv:4: column 'footprint'");
	static const char b2[] = "time,footprint,\"cache\nbytes\"\n1,1,7\n";
	assert_int_equal(read_text(b2, strlen(b2), &d), 0);
	assert_string_equal(d.targets[0].gauges[0].name, "cache\nbytes");
	assert_true(d.targets[0].gauges[0].v[0] == 7);
	dataset_release(&d);

	/* pandas' unnamed index column is ignored, with a note */
	static const char c[] = ",time,footprint\n0,1,10\n1,2,20\n";
	assert_int_equal(read_text(c, strlen(c), &d), 0);
	assert_contains(captured, "mem.csv:1: column 1 has no name");
	s = &d.targets[0];
	assert_int_equal(s->n, 2);
	assert_true(s->t[1] == 2 && s->footprint[1] == 20);
	assert_int_equal(s->n_gauges, 0);
	dataset_release(&d);

	/* aliases and case; all blank footprints keep the rows, quantum 0;
	 * a column blank throughout is never created; pss is a component */
	static const char e[] = " Timestamp ,FOOTPRINT,Pressure,PSS,extra\n"
				"1,,,4 kB,\n2,,0.25,,\n";
	assert_int_equal(read_text(e, strlen(e), &d), 0);
	s = &d.targets[0];
	assert_int_equal(s->n, 2);
	assert_true(isnan(s->footprint[0]) && isnan(s->footprint[1]));
	assert_true(s->quantum == 0);
	assert_true(isnan(s->pressure[0]) && s->pressure[1] == 0.25);
	assert_true(s->comp[COMP_PSS][0] == 4000);
	assert_int_equal(s->n_gauges, 0);
	dataset_release(&d);

	/* pids: first pid names the incarnation begun without one; A, B, A
	 * is three lifetimes */
	static const char f[] = "time,pid,footprint\n1,,1\n2,7,1\n3,8,1\n"
				"4,7,1\n";
	assert_int_equal(read_text(f, strlen(f), &d), 0);
	s = &d.targets[0];
	assert_int_equal(s->n_incs, 3);
	assert_int_equal(s->incs[0].pid, 7);
	assert_int_equal(s->incs[1].pid, 8);
	assert_int_equal(s->incs[2].pid, 7);
	assert_int_equal(s->inc[0], 0);
	assert_int_equal(s->inc[1], 0);
	assert_int_equal(s->inc[2], 1);
	assert_int_equal(s->inc[3], 2);
	dataset_release(&d);

	/* a tab file whose cells hold spaces and a comma in a gauge name */
	static const char g[] = "time\tfootprint\t\"a,b\"\n1\t 21 GB \t1 MB\n";
	assert_int_equal(read_text(g, strlen(g), &d), 0);
	s = &d.targets[0];
	assert_true(s->footprint[0] == 21e9);
	assert_string_equal(s->gauges[0].name, "a,b");
	assert_true(s->gauges[0].v[0] == 1e6);
	dataset_release(&d);
}

/* "-" reads standard input, named "stdin". */
static void test_stdin(void **state)
{
	(void)state;
	struct dataset d;
	assert_non_null(freopen(fixture("three_flat.csv"), "r", stdin));
	capture_begin();
	int rc = csv_read_file("-", &d);
	capture_end();
	assert_int_equal(rc, 0);
	assert_string_equal(d.source, "stdin");
	assert_string_equal(d.targets[0].name, "stdin");
	assert_int_equal(d.targets[0].n, 3);
	dataset_release(&d);
}

/* More text than one read: records cross the buffer's refills, and a
 * header line longer than the buffer makes it grow. */
/* A file of NUL bytes with no line break (or /dev/zero): the reader must
 * stop at its bound on a row and name the line, not buffer without end
 * (it aborted, out of memory). 40 MiB of zeros, more than the 16 MiB
 * bound. */
static void test_no_line_break(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	assert_non_null(f);
	static char zeros[1 << 20];
	for (int i = 0; i < 40; i++)
		assert_int_equal(fwrite(zeros, 1, sizeof(zeros), f), sizeof(zeros));
	rewind(f);
	struct dataset d;
	capture_begin();
	int rc = csv_read_stream(f, "zero.csv", &d);
	const char *msg = capture_end();
	fclose(f);
	assert_int_equal(rc, -1);
	assert_contains(msg, "zero.csv:1: a row longer than 16 MiB");
}

/* 100,000 columns took minutes (a quadratic duplicate check and gauge
 * lookup); more than 1,024 is now an error, at once, and 1,024 distinct
 * gauges read in well under a second. */
static void test_many_columns(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	assert_non_null(f);
	fputs("time,footprint", f);
	for (int i = 0; i < 100000; i++)
		fprintf(f, ",g%d", i);
	fputs("\n1,5", f);
	for (int i = 0; i < 100000; i++)
		fputs(",1", f);
	fputc('\n', f);
	rewind(f);
	struct dataset d;
	capture_begin();
	double t0 = now_s();
	int rc = csv_read_stream(f, "wide.csv", &d);
	double dt = now_s() - t0;
	const char *msg = capture_end();
	fclose(f);
	assert_int_equal(rc, -1);
	assert_contains(msg, "wide.csv:1: 100002 columns in the header; at "
			"most 1024 are read");
	assert_true(dt < 1.0);

	f = tmpfile();
	assert_non_null(f);
	fputs("time,footprint", f);
	for (int i = 0; i < 1022; i++)
		fprintf(f, ",g%d", i);
	for (int r = 0; r < 50; r++) {
		fprintf(f, "\n%d,%dMiB", 1700000000 + 60 * r, 100 + r);
		for (int i = 0; i < 1022; i++)
			fprintf(f, ",%dKiB", i + r);
	}
	fputc('\n', f);
	rewind(f);
	t0 = now_s();
	assert_int_equal(csv_read_stream(f, "ok.csv", &d), 0);
	dt = now_s() - t0;
	fclose(f);
	assert_int_equal(d.targets[0].n_gauges, 1022);
	assert_true(d.targets[0].gauges[1021].v[49] == (1021 + 49) * 1024.0);
	assert_true(dt < 1.0);
	dataset_release(&d);
}

static void test_large(void **state)
{
	(void)state;
	FILE *f = tmpfile();
	assert_non_null(f);
	const size_t long_name = 9u << 20;  /* > the 4 MiB read size */
	fputs("time,footprint,\"", f);
	for (size_t i = 0; i < long_name; i++)
		fputc('g', f);
	fputs("\"\n", f);
	const size_t rows = 400000;  /* ~10 MB of rows */
	for (size_t i = 0; i < rows; i++)
		fprintf(f, "%zu,%zu KiB,%zu\n", 1700000000 + i, 1000 + i % 7,
			i);
	rewind(f);
	struct dataset d;
	capture_begin();
	int rc = csv_read_stream(f, "big.csv", &d);
	capture_end();
	fclose(f);
	assert_int_equal(rc, 0);
	struct series *s = &d.targets[0];
	assert_int_equal(s->n, rows);
	assert_int_equal(strlen(s->gauges[0].name), long_name);
	for (size_t i = 0; i < rows; i++) {
		if (s->t[i] != 1700000000.0 + i ||
		    s->footprint[i] != (1000.0 + i % 7) * 1024 ||
		    s->gauges[0].v[i] != (double)i) {
			print_error("row %zu wrong\n", i);
			fail();
		}
	}
	assert_true(s->quantum == 1024);
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_flat),
		cmocka_unit_test(test_epoch_blanks),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_gauges),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_inline),
		cmocka_unit_test(test_good_inline),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_no_line_break),
		cmocka_unit_test(test_many_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
