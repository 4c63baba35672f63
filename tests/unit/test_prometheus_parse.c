/*
 * test_prometheus_parse.c - the streaming reader of the Prometheus API's
 * JSON (remote/prometheus.c, on yajl): a table of responses -> result,
 * the series handed on (labels, points), the warnings and part of the
 * message; each response also cut into two chunks at every byte offset
 * and fed one byte at a time (a result must not depend on where libcurl
 * cuts the body); the numbers against strtod() bit for bit (the fast
 * path must give the same doubles); a callback that stops; deep nesting
 * in a skipped value.
 *
 * Every chunk is handed over in a heap buffer of exactly its length, so
 * the sanitizer build catches a read past it. Messages (error(),
 * warning()) are caught by pointing stderr at a temporary file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "prometheus.h"

/* What a parse gave, as text: one line per series, `{n="v",...} t:v ...`
 * (%.17g), then the warnings as `W:text` lines. */
struct seen {
	char *text;
	size_t len, cap;
	int stop_after;            /* > 0: stop at this series */
	int series;
};

static void put(struct seen *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (s->len + (size_t)n + 1 > s->cap) {
		s->cap = (s->len + (size_t)n + 1) * 2;
		s->text = realloc(s->text, s->cap);
		assert_non_null(s->text);
	}
	va_start(ap, fmt);
	vsnprintf(s->text + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

static int on_series(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct seen *s = arg;
	put(s, "{");
	for (size_t i = 0; i < nl; i++)
		put(s, "%s%s=\"%s\"", i ? "," : "", l[i].name, l[i].value);
	put(s, "}");
	for (size_t i = 0; i < n; i++)
		put(s, " %.17g:%.17g", t[i], v[i]);
	put(s, "\n");
	s->series++;
	return s->stop_after && s->series >= s->stop_after;
}

static void on_warning(void *arg, const char *text)
{
	put(arg, "W:%s\n", text);
}

/* stderr into a file for the duration of a parse. */
static int saved_fd = -1;
static FILE *caught;

static void catch_begin(void)
{
	fflush(stderr);
	caught = tmpfile();
	assert_non_null(caught);
	saved_fd = dup(2);
	dup2(fileno(caught), 2);
}

static char *catch_end(void)
{
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	long n = ftell(caught);
	char *out = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	rewind(caught);
	if (n > 0 && fread(out, 1, (size_t)n, caught) != (size_t)n)
		fail();
	fclose(caught);
	return out;
}

/* Parse body fed in the chunks that start at cuts[0..n_cuts) (0 first,
 * ascending); each chunk a heap copy of exactly its bytes. */
static int parse_cut(const char *body, size_t len, const size_t *cuts,
		     size_t n_cuts, struct seen *s, char **msg)
{
	struct prom_parser *p = prom_parser_new("test", on_series, s,
						on_warning, s);
	catch_begin();
	int rc = 0;
	for (size_t i = 0; i < n_cuts && !rc; i++) {
		size_t a = cuts[i], b = i + 1 < n_cuts ? cuts[i + 1] : len;
		char *chunk = malloc(b - a ? b - a : 1);
		memcpy(chunk, body + a, b - a);
		rc = prom_parser_feed(p, chunk, b - a);
		free(chunk);
	}
	if (!rc)
		rc = prom_parser_finish(p);
	prom_parser_free(p);
	*msg = catch_end();
	return rc;
}

static int parse_whole(const char *body, struct seen *s, char **msg)
{
	size_t zero = 0;
	return parse_cut(body, strlen(body), &zero, 1, s, msg);
}

#define OK_HEAD "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\"," \
		"\"result\":["
#define OK_TAIL "]}}"

static const struct row {
	const char *name;
	const char *body;
	int rc;
	const char *seen;          /* series and warnings, as struct seen */
	const char *message;       /* part of stderr; NULL: nothing */
} rows[] = {
	{"one series, values as strings, a fractional time",
	 OK_HEAD "{\"metric\":{\"__name__\":\"m_bytes\",\"pod\":\"a\"},"
	 "\"values\":[[1700000000.123,\"1071452160\"],[1700000060,\"1071456256\"]]}"
	 OK_TAIL, PROM_OK,
	 "{__name__=\"m_bytes\",pod=\"a\"} 1700000000.1229999:1071452160 "
	 "1700000060:1071456256\n", NULL},
	{"two series, whitespace everywhere",
	 " {\n \"status\" : \"success\" ,\"data\": { \"resultType\" :\"matrix\",\r\n"
	 "\"result\" : [ {\"metric\" : { } , \"values\" : [ [ 1 , \"2\" ] ] } ,\t"
	 "{\"values\":[],\"metric\":{\"a\":\"b\"}} ] } } \n", PROM_OK,
	 "{} 1:2\n{a=\"b\"}\n", NULL},
	{"NaN, +Inf, -Inf (and stale markers, NaN) are gaps",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,\"NaN\"],[2,\"5\"],[3,\"+Inf\"],"
	 "[4,\"-Inf\"],[5,\"Inf\"],[6,\"7.5\"]]}" OK_TAIL, PROM_OK,
	 "{} 2:5 6:7.5\n", NULL},
	{"exponents, signs and fractions in values",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,\"1.5e+09\"],[2,\"-42.5\"],"
	 "[3,\"0.1\"],[4,\"1e3\"],[5,\"123456789012345678\"]]}" OK_TAIL,
	 PROM_OK, "{} 1:1500000000 2:-42.5 3:0.10000000000000001 4:1000 "
	 "5:1.2345678901234568e+17\n", NULL},
	{"escapes and UTF-8 in label values",
	 OK_HEAD "{\"metric\":{\"q\":\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00"
	 "\xc3\xa9\xe2\x82\xac\"},\"values\":[]}" OK_TAIL, PROM_OK,
	 "{q=\"a\"b\\c/d\n\t\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9\xe2\x82\xac\"}\n",
	 NULL},
	{"unknown keys and values skipped, at any depth",
	 "{\"status\":\"success\",\"infos\":[\"x\"],\"stats\":{\"a\":[1,{\"b\":null}],"
	 "\"c\":true},\"data\":{\"x\":[[[]]],\"resultType\":\"matrix\",\"result\":"
	 "[{\"histograms\":[[1,{\"count\":\"2\"}]],\"metric\":{\"a\":\"1\"},"
	 "\"extra\":false,\"values\":[[1,\"2\"]]}]}}", PROM_OK,
	 "{a=\"1\"} 1:2\n", NULL},
	{"the series API: label sets",
	 "{\"status\":\"success\",\"data\":[{\"__name__\":\"m\",\"a\":\"b\"},"
	 "{\"__name__\":\"m\",\"a\":\"c\"}]}", PROM_OK,
	 "{__name__=\"m\",a=\"b\"}\n{__name__=\"m\",a=\"c\"}\n", NULL},
	{"warnings",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]},"
	 "\"warnings\":[\"some data is partial\",\"\\u00e9\"]}", PROM_OK,
	 "W:some data is partial\nW:\xc3\xa9\n", NULL},
	{"an error response",
	 "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:9: parse "
	 "error: unexpected end of input\"}", PROM_BAD_QUERY, "",
	 "Prometheus says: 1:9: parse error: unexpected end of input (bad_data)"},
	{"an error without a message",
	 "{\"status\":\"error\"}", PROM_BAD_QUERY, "", "(no message)"},
	{"a vector, not a matrix",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
	 PROM_FAILED, "", "the result is a vector, not a range of series"},
	{"empty", "", PROM_FAILED, "", "not the Prometheus API's JSON (empty)"},
	{"whitespace only", " \n", PROM_FAILED, "", "not the Prometheus API's JSON"},
	{"an empty object", "{}", PROM_FAILED, "", "no status"},
	{"an array", "[]", PROM_FAILED, "", "not the Prometheus API's JSON"},
	{"a string", "\"success\"", PROM_FAILED, "", "not the Prometheus API's JSON"},
	{"not JSON", "<html>502 Bad Gateway</html>", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"truncated in a series",
	 OK_HEAD "{\"metric\":{\"a\":\"b\"},\"values\":[[1,\"2\"]", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"truncated in a string",
	 OK_HEAD "{\"metric\":{\"a\":\"b", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"a series handed on before the response breaks",
	 OK_HEAD "{\"metric\":{\"a\":\"b\"},\"values\":[[1,\"2\"]]},{\"metric\":",
	 PROM_FAILED, "{a=\"b\"} 1:2\n", "not the Prometheus API's JSON"},
	{"trailing garbage",
	 "{\"status\":\"success\",\"data\":[]} x", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"two documents",
	 "{\"status\":\"success\",\"data\":[]}{}", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"invalid UTF-8 in a label value",
	 "{\"status\":\"success\",\"data\":[{\"a\":\"\xff\xfe\"}]}", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"a bad escape",
	 "{\"status\":\"success\",\"data\":[{\"a\":\"\\x\"}]}", PROM_FAILED, "",
	 "not the Prometheus API's JSON"},
	{"a value not quoted",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,2]]}" OK_TAIL, PROM_FAILED, "",
	 "a point is not [time, \"value\"]"},
	{"a value not a number",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,\"12abc\"]]}" OK_TAIL, PROM_FAILED,
	 "", "a point's value is not a number"},
	{"an empty value",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,\"\"]]}" OK_TAIL, PROM_FAILED,
	 "", "a point's value is not a number"},
	{"a time quoted",
	 OK_HEAD "{\"metric\":{},\"values\":[[\"1\",\"2\"]]}" OK_TAIL, PROM_FAILED,
	 "", "a point is not [time, \"value\"]"},
	{"a point of three",
	 OK_HEAD "{\"metric\":{},\"values\":[[1,\"2\",3]]}" OK_TAIL, PROM_FAILED,
	 "", "a point is not [time, \"value\"]"},
	{"a point of one",
	 OK_HEAD "{\"metric\":{},\"values\":[[1]]}" OK_TAIL, PROM_FAILED,
	 "", "a point is not [time, \"value\"]"},
	{"a label value not a string",
	 "{\"status\":\"success\",\"data\":[{\"a\":1}]}", PROM_FAILED, "",
	 "an unexpected value"},
	{"a status not a string",
	 "{\"status\":1,\"data\":[]}", PROM_FAILED, "", "an unexpected value"},
	{"data null",
	 "{\"status\":\"success\",\"data\":null}", PROM_FAILED, "",
	 "an unexpected value"},
	{"a result element not an object",
	 OK_HEAD "1" OK_TAIL, PROM_FAILED, "", "an unexpected value"},
};

static void check(const struct row *r, int rc, const struct seen *s,
		  const char *msg, const char *how)
{
	const char *got = s->text ? s->text : "";
	if (rc != r->rc || strcmp(got, r->seen) ||
	    (r->message ? !strstr(msg, r->message) : msg[0] != '\0')) {
		print_error("%s (%s): rc %d (expected %d)\nseen:\n%s\nexpected:"
			    "\n%s\nmessage: %s\nexpected: %s\n", r->name, how,
			    rc, r->rc, got, r->seen, msg,
			    r->message ? r->message : "(none)");
		fail();
	}
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct seen s = {0};
		char *msg;
		int rc = parse_whole(rows[i].body, &s, &msg);
		check(&rows[i], rc, &s, msg, "whole");
		free(msg);
		free(s.text);
		/* prom_parse_response(): the same. */
		struct seen s2 = {0};
		size_t len = strlen(rows[i].body);
		char *copy = malloc(len + 1);
		memcpy(copy, rows[i].body, len + 1);
		catch_begin();
		rc = prom_parse_response(copy, len, "test", on_series, &s2,
					 on_warning, &s2);
		msg = catch_end();
		check(&rows[i], rc, &s2, msg, "prom_parse_response");
		free(copy);
		free(msg);
		free(s2.text);
	}
}

/* Every response cut in two at every offset, and fed byte by byte. */
static void test_chunks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *body = rows[i].body;
		size_t len = strlen(body);
		for (size_t k = 0; k <= len; k++) {
			size_t cuts[2] = {0, k};
			struct seen s = {0};
			char *msg;
			int rc = parse_cut(body, len, cuts, 2, &s, &msg);
			char how[32];
			snprintf(how, sizeof(how), "cut at %zu", k);
			check(&rows[i], rc, &s, msg, how);
			free(msg);
			free(s.text);
		}
		size_t *cuts = malloc((len + 1) * sizeof(*cuts));
		cuts[0] = 0;
		for (size_t k = 0; k < len; k++)
			cuts[k] = k;
		struct seen s = {0};
		char *msg;
		int rc = parse_cut(body, len, cuts, len ? len : 1, &s, &msg);
		check(&rows[i], rc, &s, msg, "byte by byte");
		free(msg);
		free(s.text);
		free(cuts);
	}
}

/* The value of one point, parsed. */
static double value_of(const char *text, int *rc)
{
	char body[256];
	snprintf(body, sizeof(body), OK_HEAD "{\"metric\":{},\"values\":"
		 "[[1,\"%s\"]]}" OK_TAIL, text);
	struct seen s = {0};
	char *msg;
	*rc = parse_whole(body, &s, &msg);
	free(msg);
	double v = NAN;
	const char *colon = s.text ? strchr(s.text, ':') : NULL;
	if (colon)
		v = strtod(colon + 1, NULL);  /* %.17g round-trips */
	free(s.text);
	return v;
}

/* The fast path gives strtod()'s doubles, bit for bit: fixed cases at
 * its edges (15 and 16 digits, fractions, signs) and seeded random
 * decimals of up to 19 digits. */
static void test_numbers_as_strtod(void **state)
{
	(void)state;
	static const char *const fixed[] = {
		"0", "-0", "+5", "1", "1071452160", "123456789012345",
		"999999999999999", "1234567890123456", "9007199254740993",
		"0.1", "0.3", "3.14159", "5.", ".5", "-.5", "123.456789012345",
		"1.23456789012345678", "0.000000000000001", "1e3", "1E-3",
		"1.5e+09", "4503599627370497.5", "18446744073709551616",
		"1e308", "2.2250738585072014e-308",
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		int rc;
		double got = value_of(fixed[i], &rc);
		double want = strtod(fixed[i], NULL);
		if (rc != PROM_OK || memcmp(&got, &want, sizeof(got))) {
			print_error("'%s': %.17g (rc %d), strtod %.17g\n",
				    fixed[i], got, rc, want);
			fail();
		}
	}
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 3000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int digits = 1 + (int)(x % 19), point = (int)((x >> 8) % 21);
		char b[40], *p = b;
		if ((x >> 20) & 1)
			*p++ = '-';
		uint64_t y = x;
		for (int d = 0; d < digits; d++) {
			if (d == point)
				*p++ = '.';
			y = y * 6364136223846793005ull + 1442695040888963407ull;
			*p++ = (char)('0' + (y >> 60) % 10);
		}
		*p = '\0';
		int rc;
		double got = value_of(b, &rc);
		double want = strtod(b, NULL);
		if (rc != PROM_OK || memcmp(&got, &want, sizeof(got))) {
			print_error("'%s': %.17g (rc %d), strtod %.17g\n", b,
				    got, rc, want);
			fail();
		}
	}
}

/* A callback that stops: PROM_STOPPED, and no series after it, however
 * the body is cut. */
static void test_stop(void **state)
{
	(void)state;
	const char *body = OK_HEAD
		"{\"metric\":{\"a\":\"1\"},\"values\":[[1,\"1\"]]},"
		"{\"metric\":{\"a\":\"2\"},\"values\":[[1,\"2\"]]},"
		"{\"metric\":{\"a\":\"3\"},\"values\":[[1,\"3\"]]}" OK_TAIL;
	size_t len = strlen(body);
	for (size_t k = 0; k <= len; k++) {
		size_t cuts[2] = {0, k};
		struct seen s = {.stop_after = 2};
		char *msg;
		int rc = parse_cut(body, len, cuts, 2, &s, &msg);
		assert_int_equal(rc, PROM_STOPPED);
		assert_string_equal(s.text, "{a=\"1\"} 1:1\n{a=\"2\"} 1:2\n");
		assert_string_equal(msg, "");
		free(msg);
		free(s.text);
	}
}

/* A value skipped may nest deep (yajl does not recurse); a long series
 * and long label values cross any chunk size. */
static void test_deep_and_long(void **state)
{
	(void)state;
	size_t depth = 100000;
	size_t cap = 2 * depth + 256;
	char *b = malloc(cap);
	size_t n = (size_t)snprintf(b, cap, "{\"status\":\"success\",\"x\":");
	for (size_t i = 0; i < depth; i++)
		b[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		b[n++] = ']';
	n += (size_t)snprintf(b + n, cap - n, ",\"data\":[]}");
	struct seen s = {0};
	char *msg;
	size_t zero = 0;
	assert_int_equal(parse_cut(b, n, &zero, 1, &s, &msg), PROM_OK);
	free(msg);
	free(s.text);
	free(b);

	size_t points = 20000, vlen = PROM_TOKEN_MAX;
	cap = points * 40 + vlen + 256;
	b = malloc(cap);
	n = (size_t)snprintf(b, cap, OK_HEAD "{\"metric\":{\"long\":\"");
	for (size_t i = 0; i < vlen; i++)
		b[n++] = (char)('a' + i % 26);
	n += (size_t)snprintf(b + n, cap - n, "\"},\"values\":[");
	for (size_t i = 0; i < points; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s[%zu,\"%zu\"]",
				      i ? "," : "", 1700000000 + 60 * i,
				      4096 * i);
	n += (size_t)snprintf(b + n, cap - n, "]}" OK_TAIL);
	size_t cuts[64];
	for (size_t i = 0; i < 64; i++)
		cuts[i] = i * (n / 64);  /* about 22 KB a chunk */
	struct seen s2 = {0};
	assert_int_equal(parse_cut(b, n, cuts, 64, &s2, &msg), PROM_OK);
	assert_string_equal(msg, "");
	assert_int_equal(s2.series, 1);
	/* The last point, and the label's length. */
	char last[64];
	snprintf(last, sizeof(last), " %zu:%zu\n", 1700000000 + 60 * (points - 1),
		 4096 * (points - 1));
	assert_true(s2.len > strlen(last));
	assert_string_equal(s2.text + s2.len - strlen(last), last);
	assert_true(strchr(s2.text, '"') && strchr(s2.text + 8, '"') &&
		    (size_t)(strchr(s2.text + 8, '"') - s2.text - 7) == vlen);
	free(msg);
	free(s2.text);
	free(b);
}

/* A body with a label value of len bytes of fill (fill_len bytes
 * repeated), under a label named name: owned. */
static char *long_label(const char *fill, size_t len, size_t *n)
{
	size_t fl = strlen(fill);
	char *b = malloc(len + fl + 128);
	size_t k = (size_t)sprintf(b, "{\"status\":\"success\",\"data\":"
				   "[{\"a\":\"");
	for (size_t i = 0; i < len; i += fl)
		k += (size_t)sprintf(b + k, "%s", fill);
	k += (size_t)sprintf(b + k, "\"}]}");
	*n = k;
	return b;
}

/* body, in chunks of `chunk` bytes. */
static int parse_chunked(const char *body, size_t len, size_t chunk,
			 struct seen *s, char **msg)
{
	size_t nc = (len + chunk - 1) / chunk;
	size_t *cuts = malloc((nc ? nc : 1) * sizeof(*cuts));
	for (size_t i = 0; i < nc; i++)
		cuts[i] = i * chunk;
	if (!nc)
		cuts[nc++] = 0;
	int rc = parse_cut(body, len, cuts, nc, s, msg);
	free(cuts);
	return rc;
}

/* The bounds on what one series may cost (prometheus.h): a string or
 * number of PROM_TOKEN_MAX bytes passes, one byte more is refused, also
 * when its escapes hide quotes and however it is cut; a series' labels
 * over PROM_LABELS_MAX are refused. Before: any length was taken (an 8
 * MB label value, in libcurl's 16 KiB chunks, cost a second). */
static void test_bounds(void **state)
{
	(void)state;
	static const struct {
		const char *fill;
		size_t len;
		int rc;
	} cases[] = {
		{"x", PROM_TOKEN_MAX, PROM_OK},
		{"x", PROM_TOKEN_MAX + 1, PROM_FAILED},
		{"\\\"", PROM_TOKEN_MAX, PROM_OK},      /* \" escapes */
		{"\\\"", PROM_TOKEN_MAX + 2, PROM_FAILED},
		{"x", 8u << 20, PROM_FAILED},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;
		char *b = long_label(cases[i].fill, cases[i].len, &n);
		size_t chunks[] = {n, 16384, 1000, 7};
		for (size_t c = 0; c < 4; c++) {
			if (chunks[c] == 7 && cases[i].len > 100000)
				continue;
			struct seen s = {0};
			char *msg;
			int rc = parse_chunked(b, n, chunks[c], &s, &msg);
			if (rc != cases[i].rc ||
			    (rc == PROM_OK) != (s.series == 1) ||
			    (rc != PROM_OK &&
			     !strstr(msg, "longer than 16 KiB"))) {
				print_error("case %zu, chunks of %zu: rc %d, "
					    "%d series, %s\n", i, chunks[c],
					    rc, s.series, msg);
				fail();
			}
			free(msg);
			free(s.text);
		}
		free(b);
	}
	/* A number as long. */
	char *b = malloc(3 * 12288 + 256);  /* the larger of the two below */
	size_t k = (size_t)sprintf(b, OK_HEAD "{\"metric\":{},\"values\":[[1");
	memset(b + k, '0', PROM_TOKEN_MAX);
	k += PROM_TOKEN_MAX;
	k += (size_t)sprintf(b + k, ",\"1\"]]}" OK_TAIL);
	struct seen s = {0};
	char *msg;
	assert_int_equal(parse_chunked(b, k, 4096, &s, &msg), PROM_FAILED);
	assert_non_null(strstr(msg, "a string or number longer than 16 KiB"));
	free(msg);
	free(s.text);
	/* Three labels of 12 KiB: 36 KiB, over PROM_LABELS_MAX. */
	k = (size_t)sprintf(b, "{\"status\":\"success\",\"data\":[{");
	for (int l = 0; l < 3; l++) {
		k += (size_t)sprintf(b + k, "%s\"l%d\":\"", l ? "," : "", l);
		memset(b + k, 'v', 12288);
		k += 12288;
		b[k++] = '"';
	}
	k += (size_t)sprintf(b + k, "}]}");
	struct seen s2 = {0};
	assert_int_equal(parse_chunked(b, k, 5000, &s2, &msg), PROM_FAILED);
	assert_non_null(strstr(msg, "labels are longer than 32 KiB"));
	assert_int_equal(s2.series, 0);
	free(msg);
	free(s2.text);
	free(b);
}

/* body parsed with prom_parser_expect(start, end, step), whole and byte
 * by byte (the same result); the tally. */
static int parse_expect(const char *body, double start, double end,
			double step, struct seen *s, char **msg,
			struct prom_tally *tally)
{
	int rc0 = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct seen one = {0};
		struct prom_parser *p = prom_parser_new("test", on_series,
							&one, on_warning,
							&one);
		prom_parser_expect(p, start, end, step);
		catch_begin();
		size_t len = strlen(body);
		int rc = 0;
		for (size_t i = 0; i < len && !rc;) {
			size_t n = pass ? 1 : len;
			char *chunk = malloc(n);
			memcpy(chunk, body + i, n);
			rc = prom_parser_feed(p, chunk, n);
			free(chunk);
			i += n;
		}
		if (!rc)
			rc = prom_parser_finish(p);
		char *m = catch_end();
		if (pass == 0) {
			*s = one;
			*msg = m;
			*tally = *prom_parser_tally(p);
			rc0 = rc;
		} else {
			assert_int_equal(rc, rc0);
			assert_string_equal(one.text ? one.text : "",
					    s->text ? s->text : "");
			assert_memory_equal(prom_parser_tally(p), tally,
					    sizeof(*tally));
			free(one.text);
			free(m);
		}
		prom_parser_free(p);
	}
	return rc0;
}

/* A range query's points: those outside the asked range left out,
 * the rest sorted, a time seen twice kept once (the first read), each
 * counted; more distinct times than steps refused. Before: handed on
 * as sent (the fleet report then kept 1 point of a reversed series,
 * silently, and points years outside the range). */
static void test_expect(void **state)
{
	(void)state;
	struct seen s;
	char *msg;
	struct prom_tally ty;
	/* steps 100, 110, ..., 200 */
	int rc = parse_expect(OK_HEAD "{\"metric\":{\"a\":\"1\"},\"values\":"
			      "[[150,\"5\"],[120,\"2\"],[90,\"0\"],[120,\"3\"],"
			      "[300,\"9\"],[100,\"1\"],[200.0005,\"6\"]]},"
			      "{\"metric\":{\"a\":\"2\"},\"values\":"
			      "[[100,\"1\"],[110,\"2\"]]}" OK_TAIL,
			      100, 200, 10, &s, &msg, &ty);
	assert_int_equal(rc, PROM_OK);
	assert_string_equal(s.text, "{a=\"1\"} 100:1 120:2 150:5 "
			    "200.00049999999999:6\n{a=\"2\"} 100:1 110:2\n");
	assert_string_equal(msg, "");
	assert_int_equal(ty.out_of_range, 2);
	assert_int_equal(ty.disordered, 3);
	assert_int_equal(ty.duplicates, 1);
	free(s.text);
	free(msg);

	/* A time repeated many times: past twice the steps the repeats go,
	 * and the series fits. */
	rc = parse_expect(OK_HEAD "{\"metric\":{},\"values\":[[0,\"1\"],"
			  "[0,\"2\"],[0,\"3\"],[0,\"4\"],[0,\"5\"],[0,\"6\"],"
			  "[0,\"7\"],[10,\"8\"],[20,\"9\"]]}" OK_TAIL,
			  0, 20, 10, &s, &msg, &ty);
	assert_int_equal(rc, PROM_OK);
	assert_string_equal(s.text, "{} 0:1 10:8 20:9\n");
	assert_int_equal(ty.duplicates, 6);
	assert_int_equal(ty.disordered, 0);
	free(s.text);
	free(msg);

	/* Four distinct times in three steps: refused. */
	rc = parse_expect(OK_HEAD "{\"metric\":{},\"values\":[[0,\"1\"],"
			  "[5,\"2\"],[10,\"3\"],[15,\"4\"]]}" OK_TAIL,
			  0, 20, 10, &s, &msg, &ty);
	assert_int_equal(rc, PROM_FAILED);
	assert_non_null(strstr(msg, "more than 3 points in the 3 steps"));
	assert_null(s.text);
	free(msg);

	/* Without a grid (prom_parser_new alone) points are still handed on
	 * in time order, each time once. */
	struct seen s2 = {0};
	assert_int_equal(parse_whole(OK_HEAD "{\"metric\":{},\"values\":"
				     "[[3,\"3\"],[1,\"1\"],[2,\"2\"],[1,\"9\"]]}"
				     OK_TAIL, &s2, &msg), PROM_OK);
	assert_string_equal(s2.text, "{} 1:1 2:2 3:3\n");
	free(s2.text);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_numbers_as_strtod),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_deep_and_long),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_expect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
