/*
 * test_findings.c - the one findings view every format prints
 * (render/findings_view.h) and the stable codes it carries
 * (analysis/reason.h): every reason and every piece of advice has a
 * code, unique, of the documented shape, listed in docs/json.md's tables
 * (and the tables list no code that does not exist); a row holds the
 * code, the figures by their JSON names with the reason's own values,
 * and the very sentence render_reason() says.
 *
 * Then the formats agree: every line and every sentence of the view is
 * in the text report and on the HTML page, word for word, and every code
 * in the JSON document, for the golden CSV fixtures.
 *
 * A value added to enum reason_code or enum settle_code without a name
 * in reason.c, or without its line in docs/json.md, fails here. The
 * docs are read from $DOCS (meson sets it; "docs" when run by hand from
 * the project root).
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "csv.h"
#include "findings_view.h"
#include "fixture.h"
#include "render.h"

#define MiB (1024.0 * 1024.0)

/* Lower case letters, digits and '_', starting with a letter. */
static bool code_shape(const char *s)
{
	if (!s || !islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_')
			return false;
	return true;
}

static void test_codes_unique(void **state)
{
	(void)state;
	for (int c = 0; c < REASON_CODE_COUNT; c++) {
		const char *n = reason_code_name((enum reason_code)c);
		if (!code_shape(n))
			fail_msg("reason %d has no code of the shape "
				 "[a-z][a-z0-9_]* (reason.c): %s", c,
				 n ? n : "(null)");
		for (int d = 0; d < c; d++)
			if (!strcmp(n, reason_code_name((enum reason_code)d)))
				fail_msg("reasons %d and %d share the code %s",
					 d, c, n);
	}
	assert_null(reason_code_name(REASON_CODE_COUNT));
	assert_null(reason_code_name((enum reason_code)-1));
	assert_null(settle_code_name(SETTLE_NONE));
	for (int c = SETTLE_NONE + 1; c < SETTLE_CODE_COUNT; c++) {
		const char *n = settle_code_name((enum settle_code)c);
		if (!code_shape(n))
			fail_msg("settle %d has no code of the shape "
				 "[a-z][a-z0-9_]* (reason.c): %s", c,
				 n ? n : "(null)");
		for (int d = SETTLE_NONE + 1; d < c; d++)
			if (!strcmp(n, settle_code_name((enum settle_code)d)))
				fail_msg("settles %d and %d share the code %s",
					 d, c, n);
	}
	assert_null(settle_code_name(SETTLE_CODE_COUNT));
	/* the example, and a few a script already keys on */
	assert_string_equal(reason_code_name(REASON_PLATEAU_LATE),
			    "plateau_below_concern");
	assert_string_equal(reason_code_name(REASON_RISES), "slope_rises");
	assert_string_equal(reason_code_name(REASON_IMMATERIAL),
			    "immaterial");
	assert_string_equal(settle_code_name(SETTLE_WINDOW), "watch_longer");
}

/* The codes of the table under the heading "## <title>" of docs/json.md:
 * the first cell of each row, "| `code` |". */
#define DOC_CODES_MAX 128
struct doc_codes {
	char code[DOC_CODES_MAX][64];
	size_t n;
};

static void read_doc_codes(const char *title, struct doc_codes *out)
{
	const char *dir = getenv("DOCS");
	char path[4096], line[8192], head[256];
	snprintf(path, sizeof(path), "%s/json.md", dir ? dir : "docs");
	snprintf(head, sizeof(head), "## %s", title);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (set DOCS)", path);
	out->n = 0;
	bool in = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "## ", 3)) {
			in = !strcmp(line, head);
			continue;
		}
		if (!in || strncmp(line, "| `", 3))
			continue;
		const char *s = line + 3, *e = strchr(s, '`');
		assert_non_null(e);
		assert_true(out->n < DOC_CODES_MAX);
		assert_true((size_t)(e - s) < sizeof(out->code[0]));
		memcpy(out->code[out->n], s, (size_t)(e - s));
		out->code[out->n][e - s] = '\0';
		out->n++;
	}
	fclose(f);
	if (!out->n)
		fail_msg("no table of codes under \"%s\" in %s", head, path);
}

static bool listed(const struct doc_codes *d, const char *code)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->code[i], code))
			return true;
	return false;
}

static void test_codes_documented(void **state)
{
	(void)state;
	static struct doc_codes reasons, settles;
	read_doc_codes("Reason codes", &reasons);
	read_doc_codes("Settle codes", &settles);
	for (int c = 0; c < REASON_CODE_COUNT; c++) {
		const char *n = reason_code_name((enum reason_code)c);
		assert_non_null(n);
		if (!listed(&reasons, n))
			fail_msg("reason code %s (%d) is not in docs/json.md's "
				 "\"Reason codes\"", n, c);
	}
	for (int c = SETTLE_NONE + 1; c < SETTLE_CODE_COUNT; c++) {
		const char *n = settle_code_name((enum settle_code)c);
		assert_non_null(n);
		if (!listed(&settles, n))
			fail_msg("settle code %s (%d) is not in docs/json.md's "
				 "\"Settle codes\"", n, c);
	}
	/* and no line for a code that is not there (a rename, a typo) */
	for (size_t i = 0; i < reasons.n; i++) {
		bool found = false;
		for (int c = 0; c < REASON_CODE_COUNT && !found; c++)
			found = !strcmp(reasons.code[i], reason_code_name(
				(enum reason_code)c));
		if (!found)
			fail_msg("docs/json.md lists reason code %s, which "
				 "reason.c does not have", reasons.code[i]);
	}
	for (size_t i = 0; i < settles.n; i++) {
		bool found = false;
		for (int c = SETTLE_NONE + 1; c < SETTLE_CODE_COUNT && !found;
		     c++)
			found = !strcmp(settles.code[i], settle_code_name(
				(enum settle_code)c));
		if (!found)
			fail_msg("docs/json.md lists settle code %s, which "
				 "reason.c does not have", settles.code[i]);
	}
	assert_int_equal(reasons.n, REASON_CODE_COUNT);
	assert_int_equal(settles.n, SETTLE_CODE_COUNT - 1);
}

static const struct finding_figure *figure(const struct finding_row *row,
					   const char *name)
{
	for (size_t i = 0; i < row->n_figures; i++)
		if (!strcmp(row->figures[i].name, name))
			return &row->figures[i];
	fail_msg("row %s has no figure %s", row->code, name);
	return NULL;
}

/* A plateau held by time, one held by flat readings, and the advice with
 * requests more: the rows' codes, figures and sentences. */
static void test_view_rows(void **state)
{
	(void)state;
	struct series s;
	memset(&s, 0, sizeof(s));
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.series = &s;
	struct reason *r = reason_list_add(&f.reasons, REASON_PLATEAU_LATE);
	r->u.late.held_by = PLATEAU_HELD_TIME;
	r->u.late.late = (struct slope){0, -16 * MiB, 16 * MiB, NAN};
	r->u.late.concern_bph = 91 * MiB;
	r = reason_list_add(&f.reasons, REASON_PLATEAU_LATE);
	r->u.late.held_by = PLATEAU_HELD_FLAT;
	r->u.late.late = (struct slope){NAN, NAN, 2 * MiB, NAN};
	r->u.late.flat_readings = 120;
	r->u.late.flat_span_s = 600;
	r->u.late.concern_bph = 91 * MiB;
	f.settle = (struct settle){
		.code = SETTLE_WINDOW, .need_s = 4 * 3600, .more_s = 3 * 3600,
		.resolution = 4096, .concern_bph = 50 * MiB,
		.requests_more = 4000, .concern_per_request = 4096,
	};

	struct findings_view v;
	findings_view_init(&v, &f);
	assert_int_equal(v.n_reasons, 2);
	const struct finding_row *a = &v.reasons[0], *b = &v.reasons[1];
	assert_string_equal(a->code, "plateau_below_concern");
	assert_string_equal(a->text, "since then the slope is 0 B/h (95 % "
			    "interval -16 MiB/h to +16 MiB/h): below the "
			    "slope of concern (+91 MiB/h)");
	assert_int_equal(figure(a, "held_by")->kind, FIGURE_TEXT);
	assert_string_equal(figure(a, "held_by")->text, "time");
	assert_true(figure(a, "bytes_per_hour")->value == 0);
	assert_true(figure(a, "ci95_low")->value == -16 * MiB);
	assert_true(figure(a, "ci95_high")->value == 16 * MiB);
	assert_true(figure(a, "concern_bytes_per_hour")->value == 91 * MiB);
	assert_int_equal(a->n_figures, 5);
	assert_string_equal(b->code, "plateau_below_concern");
	assert_string_equal(figure(b, "held_by")->text, "flat_readings");
	assert_int_equal(figure(b, "flat_readings")->kind, FIGURE_COUNT);
	assert_true(figure(b, "flat_readings")->value == 120);
	assert_true(figure(b, "flat_span_s")->value == 600);
	assert_true(figure(b, "ci95_high")->value == 2 * MiB);
	assert_non_null(strstr(b->text, "since then 120 readings over 600 s "
			       "stayed within one resolution"));

	assert_string_equal(v.settle.code, "watch_longer");
	assert_string_equal(v.settle.text, "watch >= 4 h in all (about 3 h "
			    "more) at resolution 4 KiB to see a slope of "
			    "+50 MiB/h; or >= 4,000 requests more (to see "
			    "+4 KiB/req)");
	assert_int_equal(figure(&v.settle, "resolution_bytes")->kind,
			 FIGURE_BYTES);
	assert_true(figure(&v.settle, "needed_s")->value == 4 * 3600);
	assert_true(figure(&v.settle, "more_s")->value == 3 * 3600);
	assert_true(figure(&v.settle, "requests_more")->value == 4000);
	assert_true(figure(&v.settle, "concern_bytes_per_request")->value ==
		    4096);
	findings_view_release(&v);
	assert_null(v.reasons);

	/* nothing to settle: no row */
	f.settle.code = SETTLE_NONE;
	findings_view_init(&v, &f);
	assert_null(v.settle.code);
	assert_null(v.settle.text);
	findings_view_release(&v);
	reason_list_release(&f.reasons);
}

/* Every reason and every piece of advice, whatever its figures, makes a
 * row: its code, the sentence render_reason() says, figures with names
 * unique within the row. */
static void test_every_code_has_a_row(void **state)
{
	(void)state;
	struct series s;
	memset(&s, 0, sizeof(s));
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.series = &s;
	f.exhaustion.pool = -1;
	for (int c = 0; c < REASON_CODE_COUNT; c++) {
		struct reason r;
		memset(&r, 0, sizeof(r));
		r.code = (enum reason_code)c;
		r.u.exhaustion.pool = -1;
		struct finding_row row;
		findings_row_of_reason(&row, &f, &r);
		assert_string_equal(row.code,
				    reason_code_name((enum reason_code)c));
		char *said = render_reason_string(&f, &r);
		assert_string_equal(row.text, said);
		free(said);
		assert_true(row.n_figures <= FINDING_FIGURES_MAX);
		for (size_t i = 0; i < row.n_figures; i++) {
			assert_true(code_shape(row.figures[i].name));
			for (size_t j = 0; j < i; j++)
				if (!strcmp(row.figures[i].name,
					    row.figures[j].name))
					fail_msg("%s: figure %s twice",
						 row.code, row.figures[i].name);
		}
		findings_row_release(&row);
		assert_null(row.text);
	}
	for (int c = SETTLE_NONE + 1; c < SETTLE_CODE_COUNT; c++) {
		f.settle = (struct settle){.code = (enum settle_code)c,
					   .data_step_s = NAN,
					   .restarts = NAN,
					   .requests_more = 10};
		struct finding_row row;
		findings_row_of_settle(&row, &f);
		assert_string_equal(row.code,
				    settle_code_name((enum settle_code)c));
		char *said = render_settle_string(&f);
		assert_string_equal(row.text, said);
		free(said);
		for (size_t i = 0; i < row.n_figures; i++)
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(row.figures[i].name,
							row.figures[j].name);
		findings_row_release(&row);
	}
}


/* A plateau at a cap: the same line, with the cap's size, for both
 * formats (the text report once left the size out). */
static void test_line_plateau_at_cap(void **state)
{
	(void)state;
	struct series s;
	memset(&s, 0, sizeof(s));
	struct target_findings f;
	memset(&f, 0, sizeof(f));
	f.series = &s;
	f.concern_bph = NAN;
	snprintf(f.concern_source, sizeof(f.concern_source), "none known");
	f.resolution = 4096;
	f.plateau.found = true;
	f.plateau.level = 60 * 1024 * MiB;
	f.plateau.since = 1777622400;  /* 2026-05-01T08:00:00Z */
	f.plateau.cap_name = "pool";
	f.plateau.cap_bytes = 60.8 * 1024 * MiB;
	struct findings_view v;
	findings_view_init(&v, &f);
	assert_string_equal(v.lines[FLINE_PLATEAU], "60 GiB since "
			    "2026-05-01T08:00:00Z, at the pool (60.8 GiB)");
	assert_string_equal(v.lines[FLINE_WINDOW], "no samples");
	assert_string_equal(v.lines[FLINE_CONCERN], "n/a (none known)");
	assert_null(v.lines[FLINE_SLOPE]);     /* no trend */
	assert_null(v.lines[FLINE_APPROACH]);
	assert_null(v.lines[FLINE_REQUESTS]);  /* no work */
	findings_view_release(&v);
	for (int k = 0; k < FLINE_COUNT; k++) {
		assert_non_null(findings_line_label[k]);
		assert_true(strlen(findings_line_label[k]) <= 11);
		assert_non_null(findings_line_title[k]);
	}
}

/* What a renderer wrote, as a string (the caller frees). */
static char *rendered(int (*fn)(FILE *, const struct dataset *,
				const struct target_findings *, size_t,
				const void *),
		      const struct dataset *d, const struct target_findings *f,
		      size_t n, const void *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(fn(m, d, f, n, o), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

static int text_of(FILE *out, const struct dataset *d,
		   const struct target_findings *f, size_t n, const void *o)
{
	return render_text(out, d, f, n, o);
}

static int html_of(FILE *out, const struct dataset *d,
		   const struct target_findings *f, size_t n, const void *o)
{
	return render_html(out, d, f, n, o);
}

static int json_of(FILE *out, const struct dataset *d,
		   const struct target_findings *f, size_t n, const void *o)
{
	(void)o;
	return render_json(out, d, f, n);
}

static void must_hold(const char *doc, const char *what, const char *want)
{
	if (!strstr(doc, want))
		fail_msg("the %s does not say: %s", what, want);
}

/* Each golden CSV fixture: every line and sentence of the view in the
 * text report ("  LABEL       TEXT", "    - TEXT") and on the page (the
 * text escaped; the idle line opens a paragraph, its first letter upper
 * case), every code in the JSON document. */
static void test_formats_agree(void **state)
{
	(void)state;
	static const char *const inputs[] = {
		"diag-restart.csv", "field-restart.csv", "gauges.csv",
		"idle-windows.csv", "restart.csv", "three_flat.csv",
	};
	for (size_t in = 0; in < sizeof(inputs) / sizeof(inputs[0]); in++) {
		struct dataset d;
		assert_int_equal(csv_read_file(fixture(inputs[in]), &d), 0);
		struct analysis_options o;
		analysis_options_init(&o);
		o.limit = 64 * 1024 * MiB;
		struct target_findings *f = calloc(d.n_targets, sizeof(*f));
		assert_non_null(f);
		for (size_t i = 0; i < d.n_targets; i++)
			analysis_run(&d.targets[i], &o, &f[i]);
		struct render_options ro = {0};
		struct render_html_options ho = {0};
		char *text = rendered(text_of, &d, f, d.n_targets, &ro);
		char *html = rendered(html_of, &d, f, d.n_targets, &ho);
		char *json = rendered(json_of, &d, f, d.n_targets, NULL);
		size_t lines = 0;
		for (size_t i = 0; i < d.n_targets; i++) {
			struct findings_view v;
			findings_view_init(&v, &f[i]);
			char want[6 * 2048 + 16], esc[6 * 2048 + 4];
			for (int k = 0; k < FLINE_COUNT; k++) {
				const char *l = v.lines[k];
				if (!l)
					continue;
				lines++;
				snprintf(want, sizeof(want), "\n  %-12s%s\n",
					 findings_line_label[k], l);
				must_hold(text, "text report", want);
				render_escape_html(esc, sizeof(esc),
						   k == FLINE_IDLE ? l + 1 : l);
				must_hold(html, "HTML page", esc);
			}
			for (size_t r = 0; r < v.n_reasons; r++) {
				snprintf(want, sizeof(want), "\n    - %s\n",
					 v.reasons[r].text);
				must_hold(text, "text report", want);
				render_escape_html(esc, sizeof(esc),
						   v.reasons[r].text);
				snprintf(want, sizeof(want), "<li>%s</li>",
					 esc);
				must_hold(html, "HTML page", want);
				snprintf(want, sizeof(want), "\"code\": \"%s\"",
					 v.reasons[r].code);
				must_hold(json, "JSON document", want);
			}
			if (v.settle.code) {
				snprintf(want, sizeof(want), "\"code\": \"%s\"",
					 v.settle.code);
				must_hold(json, "JSON document", want);
			}
			findings_view_release(&v);
		}
		assert_true(lines >= 5 * d.n_targets);
		free(text);
		free(html);
		free(json);
		for (size_t i = 0; i < d.n_targets; i++)
			analysis_release(&f[i]);
		free(f);
		dataset_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_unique),
		cmocka_unit_test(test_codes_documented),
		cmocka_unit_test(test_view_rows),
		cmocka_unit_test(test_every_code_has_a_row),
		cmocka_unit_test(test_line_plateau_at_cap),
		cmocka_unit_test(test_formats_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
