/*
 * render_gate.c - `memtrend check`'s outcome in words (render.h): one
 * line per target in the text, the same figures as JSON, and a JUnit XML
 * report (one testcase per target, the sentence in the message) for CI
 * systems. The judgement itself is gate.c's; nothing here decides.
 *
 * Target names are process-controlled: escaped for the terminal in the
 * text, made valid UTF-8 for JSON, and as XML entities in JUnit
 * (render_escape_html()'s escaping is valid XML text and attributes).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "render_sites.h"
#include "units.h"

static char *fmt_slope(char *buf, size_t n, double v, enum gate_basis b)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else if (b == GATE_PER_REQUEST)
		units_format_per_request(buf, n, v, false);
	else
		units_format_slope(buf, n, v, false);
	return buf;
}

static char *fmt_budget(char *buf, size_t n, double v, enum gate_basis b)
{
	char s[40];
	units_format_size(s, sizeof(s), v);
	snprintf(buf, n, "%s/%s", s, b == GATE_PER_REQUEST ? "req" : "h");
	return buf;
}

/* "N more requests (about T at the observed rate)" or "about T more". */
static void fmt_more(char *buf, size_t n, const struct gate_evidence *e,
		     const struct gate_result *r)
{
	char a[40], d[40];
	if (e->basis == GATE_PER_REQUEST) {
		units_format_count(a, sizeof(a), ceil(r->more));
		if (isfinite(r->more_s))
			snprintf(buf, n, "about %s more requests (about %s "
				 "more at the observed rate)", a,
				 units_format_duration(d, sizeof(d),
						       ceil(r->more_s)));
		else
			snprintf(buf, n, "about %s more requests", a);
	} else {
		snprintf(buf, n, "about %s more",
			 units_format_duration(d, sizeof(d), ceil(r->more_s)));
	}
}

char *render_gate_sentence(char *buf, size_t n, const struct gate_evidence *e,
			   const struct gate_result *r)
{
	char est[48], lo[48], hi[48], bud[48], amount[48], more[160];
	fmt_budget(bud, sizeof(bud), r->budget, e->basis);
	if (e->basis == GATE_PER_REQUEST)
		snprintf(amount, sizeof(amount), "%s requests",
			 units_format_count(est, sizeof(est),
					    isfinite(e->amount) ? e->amount :
					    fmax(e->requests, 0)));
	else
		render_duration(amount, sizeof(amount), e->span_s);
	if (r->why == GATE_WHY_NOT_COUNTER) {
		snprintf(buf, n, "the work series is not a counter: it went "
			 "down in %zu of %zu readings (%.1f %%), as a gauge "
			 "(requests in flight, a queue) does, so growth per "
			 "request cannot be judged from it: give a counter "
			 "of the requests served (a *_total metric, an access "
			 "log), or judge per hour (--max-growth); budget %s",
			 e->work_decreases, e->work_compared,
			 e->work_compared ? 100.0 * (double)e->work_decreases /
					    (double)e->work_compared : 0.0,
			 bud);
		return buf;
	}
	if (r->why == GATE_WHY_NO_WORK) {
		char span[40];
		snprintf(buf, n, "no work: the work counter did not move "
			 "after the warm-up (%zu readings over %s), so growth "
			 "per request cannot show: run a load the counter "
			 "counts; budget %s", e->points,
			 render_duration(span, sizeof(span), e->span_s), bud);
		return buf;
	}
	/* The run had readings, but the warm-up took them: --warmup is
	 * what to change, not the interval. */
	if ((r->why == GATE_WHY_TOO_FEW || !e->found) && e->points < 3 &&
	    e->points + e->points_before >= 3) {
		snprintf(buf, n, "too few readings after the warm-up: it "
			 "left out %zu of the run's %zu readings of memory, "
			 "%zu remain (a slope needs 3): shorten the warm-up "
			 "(--warmup) or run the load longer past it; budget "
			 "%s", e->points_before, e->points + e->points_before,
			 e->points, bud);
		return buf;
	}
	if (r->why == GATE_WHY_TOO_FEW || !e->found) {
		if (e->basis == GATE_PER_REQUEST && e->work_recorded)
			snprintf(buf, n, "too few readings after the warm-up: "
				 "%zu of memory, %zu of the work counter (a "
				 "slope per request needs 3, the counter moving "
				 "between them): sample more often "
				 "(--interval) or run the load longer; budget "
				 "%s", e->points, e->work_readings, bud);
		else
			snprintf(buf, n, "too few readings after the warm-up "
				 "(%zu; a slope needs 3 over a time span): "
				 "sample more often (--interval) or record "
				 "longer; budget %s", e->points, bud);
		return buf;
	}
	fmt_slope(est, sizeof(est), e->slope.estimate, e->basis);
	fmt_slope(lo, sizeof(lo), e->slope.low, e->basis);
	fmt_slope(hi, sizeof(hi), e->slope.high, e->basis);
	int k = snprintf(buf, n, "%s [%s, %s] over %s, budget %s", est, lo,
			 hi, amount, bud);
	if (k < 0 || (size_t)k >= n || r->outcome != GATE_INCONCLUSIVE)
		return buf;
	if (r->why == GATE_WHY_AT_BUDGET) {
		snprintf(buf + k, n - (size_t)k, "; the interval ends on "
			 "the budget: how much more would decide cannot be "
			 "said");
		return buf;
	}
	fmt_more(more, sizeof(more), e, r);
	snprintf(buf + k, n - (size_t)k, "; the budget lies in the 95 %% "
		 "interval: %s would decide at this noise", more);
	return buf;
}

static const char *outcome_word(enum gate_outcome o)
{
	switch (o) {
	case GATE_PASS: return "PASS";
	case GATE_FAIL: return "FAIL";
	case GATE_INCONCLUSIVE: return "INCONCLUSIVE";
	}
	return "?";
}

/* The sites a row that does not pass names: its growing sites in the
 * gate's unit (render_site_value()), in the sites' rank order. */
static size_t gate_sites_named(const struct gate_row *row,
			       const struct site_finding **out)
{
	const struct sites_finding *x = row->sites;
	if (!x || !row->series || row->r->outcome == GATE_PASS)
		return 0;
	enum folded_value unit = row->e->basis == GATE_PER_REQUEST ?
				 FOLDED_PER_REQUEST : FOLDED_PER_HOUR;
	size_t k = 0;
	for (size_t i = 0; i < x->n_ranked && k < GATE_SITES_NAMED; i++)
		if (render_site_value(&x->ranked[i], unit) > 0)
			out[k++] = &x->ranked[i];
	return k;
}

/* "LABEL: +3.95 KiB/req [+3.88 KiB/req, +4.07 KiB/req]", unescaped. */
static void gate_site_text(char *buf, size_t n, const struct gate_row *row,
			   const struct site_finding *y)
{
	char label[300], slope[160];
	bool per_req = row->e->basis == GATE_PER_REQUEST;
	render_site_label(label, sizeof(label), row->series->sites,
			  row->series->n_sites, y->site);
	render_site_slope_text(slope, sizeof(slope), per_req ?
			       y->per_request : y->slope, per_req, false);
	snprintf(buf, n, "%s: %s", label, slope);
}

int render_gate_text(FILE *out, const struct gate_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char name[512], line[1024];
		render_escape_terminal(name, sizeof(name), rows[i].name);
		render_gate_sentence(line, sizeof(line), rows[i].e, rows[i].r);
		if (fprintf(out, "%-12s %s: %s\n",
			    outcome_word(rows[i].r->outcome), name, line) < 0)
			return -1;
		const struct site_finding *named[GATE_SITES_NAMED];
		size_t k = gate_sites_named(&rows[i], named);
		for (size_t j = 0; j < k; j++) {
			char text[600], esc[4 * 600];
			gate_site_text(text, sizeof(text), &rows[i], named[j]);
			render_escape_terminal(esc, sizeof(esc), text);
			if (fprintf(out, "%-12s   %s at %s\n", "",
				    j ? "and" : "growing", esc) < 0)
				return -1;
		}
		if (!k && rows[i].sites && rows[i].r->outcome == GATE_FAIL &&
		    fprintf(out, "%-12s   no allocation site grows: the "
			    "allocator or memory outside malloc (memtrend "
			    "report FILE says which)\n", "") < 0)
			return -1;
	}
	return 0;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *why_name(enum gate_why w)
{
	switch (w) {
	case GATE_WHY_NONE: return NULL;
	case GATE_WHY_TOO_FEW: return "too_few";
	case GATE_WHY_NO_WORK: return "no_work";
	case GATE_WHY_NOT_COUNTER: return "not_counter";
	case GATE_WHY_INTERVAL: return "interval";
	case GATE_WHY_AT_BUDGET: return "at_budget";
	}
	return NULL;
}

/* The named sites (gate_sites_named) as JSON; null without --sites. */
static json_t *gate_sites_json(const struct gate_row *row)
{
	if (!row->sites || !row->series)
		return json_null();
	json_t *arr = json_array();
	const struct site_finding *named[GATE_SITES_NAMED];
	size_t k = gate_sites_named(row, named);
	for (size_t j = 0; j < k; j++)
		json_array_append_new(arr, render_site_brief_json(
			row->series, named[j],
			row->e->basis == GATE_PER_REQUEST));
	return arr;
}

int render_gate_json(FILE *out, const struct gate_row *rows, size_t n,
		     const char *overall)
{
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "outcome", json_string(overall));
	for (size_t i = 0; i < n; i++) {
		const struct gate_evidence *e = rows[i].e;
		const struct gate_result *r = rows[i].r;
		char name[1024], line[1024], t[40];
		render_escape_utf8(name, sizeof(name), rows[i].name);
		render_gate_sentence(line, sizeof(line), e, r);
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(name));
		json_object_set_new(o, "outcome",
				    json_string(gate_outcome_name(r->outcome)));
		const char *why = why_name(r->why);
		json_object_set_new(o, "why", why ? json_string(why) :
					       json_null());
		json_object_set_new(o, "basis", json_string(
			e->basis == GATE_PER_REQUEST ? "per_request" :
						       "per_hour"));
		json_object_set_new(o, "budget", num_or_null(r->budget));
		json_object_set_new(o, "estimate",
				    num_or_null(e->slope.estimate));
		json_object_set_new(o, "ci95_low", num_or_null(e->slope.low));
		json_object_set_new(o, "ci95_high",
				    num_or_null(e->slope.high));
		json_object_set_new(o, "p_value", num_or_null(e->slope.p));
		json_object_set_new(o, "points", json_integer(
			(json_int_t)e->points));
		json_object_set_new(o, "requests", num_or_null(e->requests));
		json_object_set_new(o, "span_s", num_or_null(e->span_s));
		json_object_set_new(o, "warmup_end", isfinite(e->from) ?
			json_string(units_format_time(t, sizeof(t), e->from)) :
			json_null());
		json_object_set_new(o, "needed", num_or_null(r->needed));
		json_object_set_new(o, "more", num_or_null(r->more));
		json_object_set_new(o, "more_s", num_or_null(r->more_s));
		json_object_set_new(o, "message", json_string(line));
		json_object_set_new(o, "sites", gate_sites_json(&rows[i]));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "targets", arr);
	int rc = render_json_dump(root, out);
	json_decref(root);
	return rc;
}

/* The XML declaration and the two opening elements, with their counts
 * (the same on both: one suite). */
static int junit_open(FILE *out, size_t tests, size_t failures,
		      size_t errors, size_t skipped, double time_s)
{
	for (int level = 0; level < 2; level++)
		if (fprintf(out, "%s%s<%s name=\"memtrend check\" "
			    "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			    "skipped=\"%zu\" time=\"%.3f\">\n",
			    level ? "" : "<?xml version=\"1.0\" "
			    "encoding=\"UTF-8\"?>\n", level ? "  " : "",
			    level ? "testsuite" : "testsuites", tests,
			    failures, errors, skipped, time_s) < 0)
			return -1;
	return 0;
}

static int junit_close(FILE *out)
{
	return fprintf(out, "  </testsuite>\n</testsuites>\n") < 0 ? -1 : 0;
}

int render_gate_junit(FILE *out, const struct gate_row *rows, size_t n,
		      double time_s, bool allow_inconclusive)
{
	size_t failures = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].r->outcome == GATE_FAIL)
			failures++;
		else if (rows[i].r->outcome == GATE_INCONCLUSIVE) {
			if (allow_inconclusive)
				skipped++;
			else
				failures++;
		}
	}
	if (!isfinite(time_s) || time_s < 0)
		time_s = 0;
	if (junit_open(out, n, failures, 0, skipped, time_s))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct gate_result *r = rows[i].r;
		char line[1024], name[6 * 256 + 4], msg[6 * 1024 + 4];
		char trimmed[256];
		snprintf(trimmed, sizeof(trimmed), "%s", rows[i].name);
		render_escape_html(name, sizeof(name), trimmed);
		render_gate_sentence(line, sizeof(line), rows[i].e, r);
		const struct site_finding *named[GATE_SITES_NAMED];
		size_t n_named = gate_sites_named(&rows[i], named);
		for (size_t j = 0; j < n_named; j++) {
			char text[600];
			size_t len = strlen(line);
			gate_site_text(text, sizeof(text), &rows[i], named[j]);
			snprintf(line + len, sizeof(line) - len, "; %s at %s",
				 j ? "and" : "growing", text);
		}
		render_escape_html(msg, sizeof(msg), line);
		if (fprintf(out, "    <testcase classname=\"memtrend.check\" "
			    "name=\"%s\" time=\"%.3f\"", name, time_s) < 0)
			return -1;
		int k;
		if (r->outcome == GATE_PASS)
			k = fprintf(out, "/>\n");
		else if (r->outcome == GATE_FAIL)
			k = fprintf(out, ">\n      <failure type=\"leak\" "
				    "message=\"%s\">%s</failure>\n"
				    "    </testcase>\n", msg, msg);
		else if (allow_inconclusive)
			k = fprintf(out, ">\n      <skipped message=\"%s\"/>\n"
				    "    </testcase>\n", msg);
		else
			k = fprintf(out, ">\n      <failure type=\"inconclusive"
				    "\" message=\"%s\">%s</failure>\n"
				    "    </testcase>\n", msg, msg);
		if (k < 0)
			return -1;
	}
	return junit_close(out);
}

int render_gate_json_error(FILE *out, const char *message)
{
	char msg[2048];
	render_escape_utf8(msg, sizeof(msg), message);
	json_t *root = json_object();
	json_object_set_new(root, "outcome", json_string("error"));
	json_object_set_new(root, "message", json_string(msg));
	json_object_set_new(root, "targets", json_array());
	int rc = render_json_dump(root, out);
	json_decref(root);
	return rc;
}

int render_gate_junit_error(FILE *out, const char *name, const char *message,
			    double time_s)
{
	char trimmed[256], esc_name[6 * 256 + 4], msg[6 * 1024 + 4];
	char line[1024];
	snprintf(trimmed, sizeof(trimmed), "%s", name);
	snprintf(line, sizeof(line), "%s", message);
	render_escape_html(esc_name, sizeof(esc_name), trimmed);
	render_escape_html(msg, sizeof(msg), line);
	if (!isfinite(time_s) || time_s < 0)
		time_s = 0;
	if (junit_open(out, 1, 0, 1, 0, time_s) ||
	    fprintf(out, "    <testcase classname=\"memtrend.check\" "
		    "name=\"%s\" time=\"%.3f\">\n      <error type=\"run\" "
		    "message=\"%s\">%s</error>\n    </testcase>\n", esc_name,
		    time_s, msg, msg) < 0)
		return -1;
	return junit_close(out);
}
