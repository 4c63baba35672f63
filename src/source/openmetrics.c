/*
 * openmetrics.c - one counter out of a Prometheus text (0.0.4) or
 * OpenMetrics 1.0 exposition, picked by a PromQL-like selector
 * (openmetrics.h has the contract, the syntax accepted and the name rule).
 *
 * What it does: openmetrics_selector_parse() reads METRIC{matchers} once
 * (strings decoded, regexes compiled, a C numeric locale made for number
 * conversion, so a program that calls setlocale() still reads "1.5").
 * openmetrics_sum() walks the body line by line, checks each line fully
 * (a bad line anywhere fails the scrape, as in Prometheus), and for the
 * samples whose name the selector names evaluates the matchers and adds
 * the value to one of two tallies: samples named METRIC and samples named
 * METRIC_total. At the end the name rule picks the tally; NaN among the
 * summed series is an error, not a number.
 *
 * What it does not do: keep anything between calls, fetch, allocate in
 * proportion to the body, recurse, or look at a family's other samples
 * (_bucket, _sum, _count, _created) beyond checking their syntax.
 *
 * Bounds: every loop advances through the body once; label names and
 * values are kept as (pointer, length) spans into the body, at most
 * OPENMETRICS_MAX_LABELS per sample in a fixed array (the duplicate check
 * compares hashes, so a line costs at most MAX_LABELS^2/2 integer compares
 * beyond its length). Values are compared with the selector's strings by
 * decoding escapes on the fly; only regex matchers need a decoded copy
 * (into one fixed scratch buffer, made on first need, NUL-terminated, so
 * that regexec never touches the body). Regexes therefore see at most
 * OPENMETRICS_MAX_DECODED bytes, which also bounds what glibc's matcher
 * allocates per call.
 */
#include "openmetrics.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

/* Longest number token converted (Go would read longer ones: a thousand
 * leading zeros; no exporter writes them). */
enum { NUMBER_MAX = 255 };
/* Longest piece of body text quoted back in a message. */
enum { SHOW_MAX = 40 };

enum matcher_op { MATCH_EQ, MATCH_NE, MATCH_RE, MATCH_NRE };

struct label_matcher {
	char *name;
	size_t name_len;
	uint32_t name_hash;
	char *value;            /* decoded */
	size_t value_len;
	enum matcher_op op;
	bool compiled;          /* regex holds a compiled pattern */
	regex_t regex;
};

struct openmetrics_selector {
	char *text;             /* as given, for messages */
	const char *labels_text;/* the "{...}" part of text */
	size_t labels_len;      /* its length (0: no label set) */
	char *metric;           /* METRIC */
	size_t metric_len;
	char *metric_total;     /* METRIC "_total" */
	size_t metric_total_len;
	struct label_matcher *matchers;
	size_t n_matchers;
	locale_t c_locale;      /* for strtod_l */
};

/* ---- characters and small helpers ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha_(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_metric_start(char c)
{
	return is_alpha_(c) || c == ':';
}

static bool is_metric_char(char c)
{
	return is_alpha_(c) || c == ':' || is_digit(c);
}

static bool is_label_start(char c)
{
	return is_alpha_(c);
}

static bool is_label_char(char c)
{
	return is_alpha_(c) || is_digit(c);
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static const char *skip_nonblanks(const char *p, const char *e)
{
	while (p < e && !is_blank(*p))
		p++;
	return p;
}

/* FNV-1a: label names are compared by hash and length first. */
static uint32_t hash_bytes(const char *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 16777619u;
	}
	return h;
}

static bool span_equals(const char *p, size_t n, const char *s, size_t sn)
{
	return n == sn && memcmp(p, s, n) == 0;
}

/* "'x'" for a printable byte, "byte 0x07" otherwise, "the end" at e. */
static const char *describe_char(char buf[24], const char *p, const char *e)
{
	if (p >= e)
		return "the end";
	unsigned char c = (unsigned char)*p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, 24, "'%c'", c);
	else
		snprintf(buf, 24, "byte 0x%02x", c);
	return buf;
}

/* Body text for a message: at most SHOW_MAX bytes, unprintable ones as
 * \xNN, "..." when cut. dst has room for 4 * SHOW_MAX + 4. */
enum { SHOW_BUF = 4 * SHOW_MAX + 4 };
static const char *show_text(char dst[SHOW_BUF], const char *p, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; i < n && i < SHOW_MAX; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[j++] = (char)c;
		} else {
			snprintf(dst + j, 5, "\\x%02x", c);
			j += 4;
		}
	}
	if (n > SHOW_MAX) {
		memcpy(dst + j, "...", 3);
		j += 3;
	}
	dst[j] = '\0';
	return dst;
}

static void set_message(char *err, size_t errlen, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static void set_message(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Go's strconv.ParseFloat as Prometheus restricts it: an optional sign,
 * digits with an optional fraction (either side of the point may be
 * empty, not both), an optional exponent; "inf" or "infinity" in any case
 * with an optional sign; "nan" in any case without one (specials only
 * when allowed). Returns 0, or -1 (not a number), -2 (out of double
 * range), -3 (longer than NUMBER_MAX).
 */
static int read_number(const struct openmetrics_selector *sel, const char *p,
		       size_t n, bool specials, double *out)
{
	size_t i = 0;
	bool neg = false;
	bool signed_ = n > 0 && (p[0] == '+' || p[0] == '-');
	if (signed_) {
		neg = p[0] == '-';
		i = 1;
	}
	if (specials) {
		size_t rest = n - i;
		if ((rest == 3 && strncasecmp(p + i, "inf", 3) == 0) ||
		    (rest == 8 && strncasecmp(p + i, "infinity", 8) == 0)) {
			*out = neg ? -INFINITY : INFINITY;
			return 0;
		}
		if (!signed_ && n == 3 && strncasecmp(p, "nan", 3) == 0) {
			*out = NAN;
			return 0;
		}
	}
	size_t digits = 0;
	for (; i < n && is_digit(p[i]); i++)
		digits++;
	if (i < n && p[i] == '.')
		for (i++; i < n && is_digit(p[i]); i++)
			digits++;
	if (digits == 0)
		return -1;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		size_t exp_digits = 0;
		for (; i < n && is_digit(p[i]); i++)
			exp_digits++;
		if (exp_digits == 0)
			return -1;
	}
	if (i != n)
		return -1;
	if (n > NUMBER_MAX)
		return -3;
	char buf[NUMBER_MAX + 1];
	memcpy(buf, p, n);
	buf[n] = '\0';
	char *stop;
	errno = 0;
	double v = strtod_l(buf, &stop, sel->c_locale);
	if (stop != buf + n)
		return -1;
	if (errno == ERANGE && isinf(v))
		return -2;
	*out = v;
	return 0;
}

/* ---- selectors ---- */

struct selector_cursor {
	const char *text;
	const char *p;
	char *err;
	size_t errlen;
};

static int selector_fail(struct selector_cursor *c, const char *at,
			 const char *fmt, ...) PRINTF_LIKE(3, 4);
static int selector_fail(struct selector_cursor *c, const char *at,
			 const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_message(c->err, c->errlen, "%s at column %zu", msg,
		    (size_t)(at - c->text) + 1);
	return -1;
}

static const char *skip_text_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* Decode the quoted string at c->p (which is on the quote) into a new
 * string; c->p ends past the closing quote. */
static int selector_read_string(struct selector_cursor *c, const char *label,
				size_t label_len, char **out, size_t *out_len)
{
	const char *open = c->p;
	char quote = *open;
	const char *p = open + 1;
	char *s = xmalloc(strlen(p) + 1);
	size_t n = 0;
	for (;;) {
		char ch = *p;
		if (ch == '\0') {
			free(s);
			return selector_fail(c, open,
					     "unterminated value of label '%.*s' (no closing %c)",
					     (int)label_len, label, quote);
		}
		if (ch == quote)
			break;
		if (ch == '\\') {
			char d = p[1];
			switch (d) {
			case '\\': case '"': case '\'':
				ch = d;
				break;
			case 'n':
				ch = '\n';
				break;
			case 't':
				ch = '\t';
				break;
			case 'r':
				ch = '\r';
				break;
			default: {
				char buf[24];
				free(s);
				return selector_fail(c, p,
						     "unknown escape '\\' followed by %s in the value of label '%.*s' (write \\\\ for a backslash)",
						     describe_char(buf, p + 1, p + 1 + (d != '\0')),
						     (int)label_len, label);
			}
			}
			p++;
		}
		s[n++] = ch;
		p++;
	}
	s[n] = '\0';
	c->p = p + 1;
	*out = s;
	*out_len = n;
	return 0;
}

/*
 * What glibc's regcomp would turn into an exponential program, refused the
 * way RE2 (Prometheus' engine) refuses it: back-references (RE2 has none;
 * they make matching exponential), a repetition operator right after
 * another ("a**", "a+{2}"), a product of nested repetition counts over
 * REGEX_MAX_REPEAT (glibc copies the operand of x{n,m} m times and of x+
 * twice, so "((a{9}){9}){9}" is 729 copies), and groups nested deeper
 * than REGEX_MAX_DEPTH (regcomp recurses per group). Everything else
 * (syntax errors included) is left to regcomp. Returns NULL or why not.
 */
enum { REGEX_MAX_REPEAT = 1000, REGEX_MAX_DEPTH = 64 };

/* Position past a bracket expression starting at p ('['), or NULL when it
 * does not end (regcomp then says so). */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p; p++) {
		if (*p == ']')
			return p + 1;
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char kind = p[1];
			const char *q = p + 2;
			while (*q && !(q[0] == kind && q[1] == ']'))
				q++;
			if (!*q)
				return NULL;
			p = q + 1;
		}
	}
	return NULL;
}

/* "{n}", "{n,}", "{n,m}" at p: its copy count, and *end past it; 0 when
 * p does not start an interval. */
static unsigned long read_interval(const char *p, const char **end)
{
	unsigned long n = 0, m = 0;
	bool has_n = false, has_comma = false, has_m = false;
	for (p++; is_digit(*p); p++, has_n = true)
		n = n < 1000000 ? n * 10 + (unsigned long)(*p - '0') : n;
	if (*p == ',') {
		has_comma = true;
		for (p++; is_digit(*p); p++, has_m = true)
			m = m < 1000000 ? m * 10 + (unsigned long)(*p - '0') : m;
	}
	if (*p != '}' || (!has_n && !has_m))
		return 0;
	*end = p + 1;
	if (!has_comma)
		return n ? n : 1;
	if (!has_m)
		return n + 1;  /* n copies and a star */
	return m > n ? (m ? m : 1) : (n ? n : 1);
}

static const char *regex_shape_problem(const char *re)
{
	unsigned long inner[REGEX_MAX_DEPTH + 1];  /* largest product per
						      open group */
	int depth = 0;
	enum { NOTHING, ATOM, REPEAT } last = NOTHING;
	unsigned long atom = 1;  /* the copies inside the last atom */
	inner[0] = 1;
	for (const char *p = re; *p;) {
		unsigned long copies = 0;
		const char *next = p + 1;
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				return "back-references are not supported";
			if (p[1] == '\0')
				return NULL;
			next = p + 2;
			last = ATOM, atom = 1;
			break;
		case '[':
			next = skip_bracket(p);
			if (!next)
				return NULL;
			last = ATOM, atom = 1;
			break;
		case '(':
			if (depth == REGEX_MAX_DEPTH)
				return "groups are nested too deeply";
			inner[++depth] = 1;
			last = NOTHING;
			break;
		case ')':
			if (depth == 0) {  /* an ordinary character in ERE */
				last = ATOM, atom = 1;
				break;
			}
			atom = inner[depth--];
			last = ATOM;
			break;
		case '|':
		case '^':
		case '$':
			last = NOTHING;
			break;
		case '*':
		case '?':
			copies = 1;
			break;
		case '+':
			copies = 2;
			break;
		case '{':
			copies = read_interval(p, &next);
			if (!copies)
				last = ATOM, atom = 1;
			break;
		default:
			last = ATOM, atom = 1;
			break;
		}
		if (copies) {
			if (last == REPEAT)
				return "a repetition operator follows another";
			if (last == ATOM) {
				if (copies > REGEX_MAX_REPEAT ||
				    atom * copies > REGEX_MAX_REPEAT)
					return "nested repetitions make more than 1000 copies";
				atom *= copies;
			}
			last = REPEAT;
		}
		if (last != NOTHING && atom > inner[depth])
			inner[depth] = atom;
		p = next;
	}
	return NULL;
}

static int selector_compile(struct selector_cursor *c, const char *at,
			    struct label_matcher *m)
{
	const char *problem = regex_shape_problem(m->value);
	if (problem)
		return selector_fail(c, at, "%s in the regex of label '%s'",
				     problem, m->name);
	int rc = regcomp(&m->regex, m->value, REG_EXTENDED);
	if (rc != 0) {
		char why[256];
		regerror(rc, &m->regex, why, sizeof(why));
		return selector_fail(c, at, "invalid regex for label '%s': %s",
				     m->name, why);
	}
	m->compiled = true;
	return 0;
}

static int selector_read_matcher(struct selector_cursor *c,
				 struct label_matcher *m)
{
	const char *name = c->p;
	const char *p = name;
	while (is_label_char(*p))
		p++;
	size_t name_len = (size_t)(p - name);
	if (span_equals(name, name_len, "__name__", 8))
		return selector_fail(c, name,
				     "name the metric before '{' instead of matching __name__");
	p = skip_text_blanks(p);
	const char *op_at = p;
	if (p[0] == '=' && p[1] == '~') {
		m->op = MATCH_RE;
		p += 2;
	} else if (p[0] == '=') {
		m->op = MATCH_EQ;
		p += 1;
	} else if (p[0] == '!' && p[1] == '=') {
		m->op = MATCH_NE;
		p += 2;
	} else if (p[0] == '!' && p[1] == '~') {
		m->op = MATCH_NRE;
		p += 2;
	} else {
		return selector_fail(c, op_at,
				     "expected '=', '!=', '=~' or '!~' after label name '%.*s'",
				     (int)name_len, name);
	}
	p = skip_text_blanks(p);
	if (*p != '"' && *p != '\'')
		return selector_fail(c, p,
				     "expected a quoted value after '%.*s%.*s'",
				     (int)name_len, name, (int)(p - op_at), op_at);
	c->p = p;
	char *value = NULL;
	size_t value_len = 0;
	if (selector_read_string(c, name, name_len, &value, &value_len) != 0)
		return -1;
	m->name = xmalloc(name_len + 1);
	memcpy(m->name, name, name_len);
	m->name[name_len] = '\0';
	m->name_len = name_len;
	m->name_hash = hash_bytes(name, name_len);
	m->value = value;
	m->value_len = value_len;
	if (m->op == MATCH_RE || m->op == MATCH_NRE)
		return selector_compile(c, p, m);
	return 0;
}

void openmetrics_selector_free(struct openmetrics_selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->n_matchers; i++) {
		struct label_matcher *m = &sel->matchers[i];
		if (m->compiled)
			regfree(&m->regex);
		free(m->name);
		free(m->value);
	}
	free(sel->matchers);
	if (sel->c_locale != (locale_t)0)
		freelocale(sel->c_locale);
	free(sel->text);
	free(sel->metric);
	free(sel->metric_total);
	free(sel);
}

int openmetrics_selector_parse(const char *text,
			       struct openmetrics_selector **out, char *err,
			       size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text) {
		set_message(err, errlen, "no selector");
		return -1;
	}
	struct openmetrics_selector *sel = xcalloc(1, sizeof(*sel));
	sel->text = xstrdup(text);
	struct selector_cursor c = { sel->text, sel->text, err, errlen };

	const char *p = skip_text_blanks(c.p);
	if (!is_metric_start(*p)) {
		char buf[24];
		selector_fail(&c, p, "expected a metric name, found %s",
			      describe_char(buf, p, p + (*p != '\0')));
		goto fail;
	}
	const char *name = p;
	while (is_metric_char(*p))
		p++;
	sel->metric_len = (size_t)(p - name);
	sel->metric = xmalloc(sel->metric_len + 1);
	memcpy(sel->metric, name, sel->metric_len);
	sel->metric[sel->metric_len] = '\0';
	sel->metric_total_len = sel->metric_len + 6;
	sel->metric_total = xmalloc(sel->metric_total_len + 1);
	memcpy(sel->metric_total, name, sel->metric_len);
	memcpy(sel->metric_total + sel->metric_len, "_total", 7);

	p = skip_text_blanks(p);
	sel->labels_text = p;
	if (*p == '{') {
		const char *open = p;
		size_t cap = 0;
		p++;
		for (;;) {
			p = skip_text_blanks(p);
			if (*p == '}') {
				p++;
				break;
			}
			if (*p == '\0') {
				selector_fail(&c, open, "'{' without a closing '}'");
				goto fail;
			}
			if (!is_label_start(*p)) {
				char buf[24];
				selector_fail(&c, p,
					      "expected a label name, found %s",
					      describe_char(buf, p, p + 1));
				goto fail;
			}
			xgrow((void **)&sel->matchers, &cap,
			      sel->n_matchers + 1, sizeof(*sel->matchers));
			struct label_matcher *m =
				&sel->matchers[sel->n_matchers];
			memset(m, 0, sizeof(*m));
			c.p = p;
			int rc = selector_read_matcher(&c, m);
			if (m->name)  /* owned from here, even on error */
				sel->n_matchers++;
			if (rc != 0)
				goto fail;
			p = skip_text_blanks(c.p);
			if (*p == ',') {
				p++;
			} else if (*p == '}') {
				p++;
				break;
			} else if (*p == '\0') {
				selector_fail(&c, open, "'{' without a closing '}'");
				goto fail;
			} else {
				char buf[24];
				selector_fail(&c, p,
					      "expected ',' or '}' after the value of label '%s', found %s",
					      m->name,
					      describe_char(buf, p, p + (*p != '\0')));
				goto fail;
			}
		}
		sel->labels_len = (size_t)(p - open);
		p = skip_text_blanks(p);
	}
	if (*p != '\0') {
		char buf[24];
		selector_fail(&c, p, "unexpected %s after the selector",
			      describe_char(buf, p, p + 1));
		goto fail;
	}
	sel->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (sel->c_locale == (locale_t)0) {
		set_message(err, errlen, "cannot make the C locale: %s",
			    strerror(errno));
		goto fail;
	}
	*out = sel;
	return 0;
fail:
	openmetrics_selector_free(sel);
	return -1;
}

const char *openmetrics_selector_metric(const struct openmetrics_selector *sel)
{
	return sel->metric;
}

/* ---- the body ---- */

struct label_ref {
	const char *name;
	size_t name_len;
	const char *value;      /* raw, between the quotes */
	size_t value_len;
	uint32_t name_hash;
	bool escaped;           /* value holds a backslash */
};

/* One of the two candidate sets: samples named METRIC, or METRIC_total. */
struct tally {
	double sum;
	size_t matched;         /* selected series */
	size_t series;          /* series with this name */
	size_t bad_line;        /* first line that made the sum NaN, or 0 */
	bool bad_is_nan;        /* that line's value was NaN (else +-Inf
				   cancelled) */
};

enum name_kind { NAME_OTHER, NAME_EXACT, NAME_TOTAL };

struct scan {
	const struct openmetrics_selector *sel;
	const char *line;       /* start of the current line */
	size_t line_no;
	char *err;
	size_t errlen;
	char *scratch;          /* OPENMETRICS_MAX_DECODED bytes, on need */
	struct tally exact, total;
	bool counter_declared;  /* # TYPE METRIC[_total] counter seen */
	bool eof;               /* # EOF seen */
	size_t n_labels;
	/* Last: not cleared per call (n_labels says what is valid). */
	struct label_ref labels[OPENMETRICS_MAX_LABELS];
};

static int scan_fail(struct scan *s, const char *at, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static int scan_fail(struct scan *s, const char *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at)
		set_message(s->err, s->errlen, "line %zu: %s at column %zu",
			    s->line_no, msg, (size_t)(at - s->line) + 1);
	else
		set_message(s->err, s->errlen, "line %zu: %s", s->line_no,
			    msg);
	return OPENMETRICS_PARSE_ERROR;
}

/* Label names in messages: they are [a-zA-Z0-9_], only long. */
#define NAME_FMT "'%.*s%s'"
#define NAME_ARG(p, n) (int)((n) > 64 ? 64 : (n)), (p), ((n) > 64 ? "..." : "")

/* The character of a raw (escaped) label value at raw[*i], decoded:
 * \\, \" and \n are one character each (*i moves past the escape); any
 * other backslash stays, as in Prometheus. */
static char value_char(const char *raw, size_t n, size_t *i)
{
	char c = raw[*i];
	if (c == '\\' && *i + 1 < n) {
		char d = raw[*i + 1];
		if (d == '\\' || d == '"') {
			c = d;
			++*i;
		} else if (d == 'n') {
			c = '\n';
			++*i;
		}
	}
	return c;
}

/* Compare a raw (escaped) label value with a decoded string. */
static bool raw_value_equals(const char *raw, size_t n, bool escaped,
			     const char *want, size_t want_len)
{
	if (!escaped)
		return n == want_len && memcmp(raw, want, n) == 0;
	size_t j = 0;
	for (size_t i = 0; i < n; i++, j++) {
		char c = value_char(raw, n, &i);
		if (j >= want_len || want[j] != c)
			return false;
	}
	return j == want_len;
}

/* Decode a raw label value into dst (cap bytes); returns the length or
 * (size_t)-1 when it does not fit. */
static size_t decode_value(const char *raw, size_t n, char *dst, size_t cap)
{
	size_t j = 0;
	if (n <= cap && !memchr(raw, '\\', n)) {
		memcpy(dst, raw, n);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		char c = value_char(raw, n, &i);
		if (j == cap)
			return (size_t)-1;
		dst[j++] = c;
	}
	return j;
}

/* 1 when the regex matches all of the value, 0 when not, or a parse
 * error (value too long to match). The value is decoded (or copied) into
 * the scratch buffer and NUL-terminated there: regexec then never sees the
 * body, whose bytes after the value belong to the caller. */
static int regex_matches_value(struct scan *s, const struct label_matcher *m,
			       const struct label_ref *l)
{
	if (!s->scratch)
		s->scratch = xmalloc(OPENMETRICS_MAX_DECODED + 1);
	size_t n = 0;
	if (l) {
		n = decode_value(l->value, l->value_len, s->scratch,
				 OPENMETRICS_MAX_DECODED);
		if (n == (size_t)-1)
			return scan_fail(s, l->value,
					 "value of label " NAME_FMT " is longer than %d bytes: too long to match a regex against",
					 NAME_ARG(l->name, l->name_len),
					 OPENMETRICS_MAX_DECODED);
	}
	s->scratch[n] = '\0';
	regmatch_t pm[1];
	pm[0].rm_so = 0;
	pm[0].rm_eo = (regoff_t)n;
	/* POSIX returns the leftmost-longest match: the regex matches the
	 * whole value exactly when that match is [0, n). REG_STARTEND lets
	 * a NUL inside the value count as a byte like any other. */
#ifdef REG_STARTEND
	int rc = regexec(&m->regex, s->scratch, 1, pm, REG_STARTEND);
#else
	int rc = regexec(&m->regex, s->scratch, 1, pm, 0);
#endif
	if (rc != 0)
		return 0;
	return pm[0].rm_so == 0 && (size_t)pm[0].rm_eo == n;
}

/* 1 when the labels parsed into s->labels satisfy every matcher, 0 when
 * not, PARSE_ERROR on a value a regex cannot take. */
static int labels_selected(struct scan *s)
{
	const struct openmetrics_selector *sel = s->sel;
	for (size_t i = 0; i < sel->n_matchers; i++) {
		const struct label_matcher *m = &sel->matchers[i];
		const struct label_ref *l = NULL;
		for (size_t k = 0; k < s->n_labels; k++) {
			const struct label_ref *c = &s->labels[k];
			if (c->name_hash == m->name_hash &&
			    span_equals(c->name, c->name_len, m->name,
					m->name_len)) {
				l = c;
				break;
			}
		}
		int hit;
		switch (m->op) {
		case MATCH_EQ:
		case MATCH_NE:
			hit = l ? raw_value_equals(l->value, l->value_len,
						   l->escaped, m->value,
						   m->value_len)
				: m->value_len == 0;
			if (m->op == MATCH_NE)
				hit = !hit;
			break;
		default:
			hit = regex_matches_value(s, m, l);
			if (hit < 0)
				return hit;
			if (m->op == MATCH_NRE)
				hit = !hit;
			break;
		}
		if (!hit)
			return 0;
	}
	return 1;
}

/* The label set at p ('{'); fills s->labels and returns the position
 * past '}', or NULL after an error. */
static const char *scan_label_set(struct scan *s, const char *p,
				  const char *e)
{
	const char *open = p++;
	s->n_labels = 0;
	for (;;) {
		p = skip_blanks(p, e);
		if (p == e) {
			scan_fail(s, open, "label set not closed with '}'");
			return NULL;
		}
		if (*p == '}')
			return p + 1;
		if (!is_label_start(*p)) {
			char buf[24];
			scan_fail(s, p, "expected a label name, found %s",
				  describe_char(buf, p, e));
			return NULL;
		}
		const char *name = p;
		while (p < e && is_label_char(*p))
			p++;
		size_t name_len = (size_t)(p - name);
		p = skip_blanks(p, e);
		if (p == e || *p != '=') {
			char buf[24];
			scan_fail(s, p,
				  "expected '=' after label name " NAME_FMT ", found %s",
				  NAME_ARG(name, name_len),
				  describe_char(buf, p, e));
			return NULL;
		}
		p = skip_blanks(p + 1, e);
		if (p == e || *p != '"') {
			char buf[24];
			scan_fail(s, p,
				  "expected '\"' to open the value of label " NAME_FMT ", found %s",
				  NAME_ARG(name, name_len),
				  describe_char(buf, p, e));
			return NULL;
		}
		const char *quote = p++;
		const char *value = p;
		bool escaped = false;
		while (p < e && *p != '"') {
			if (*p == '\\') {
				escaped = true;
				if (++p == e)
					break;
			}
			p++;
		}
		if (p >= e) {
			scan_fail(s, quote,
				  "unterminated value of label " NAME_FMT,
				  NAME_ARG(name, name_len));
			return NULL;
		}
		size_t value_len = (size_t)(p - value);
		p++;  /* the closing quote */

		uint32_t h = hash_bytes(name, name_len);
		for (size_t k = 0; k < s->n_labels; k++) {
			const struct label_ref *o = &s->labels[k];
			if (o->name_hash == h &&
			    span_equals(o->name, o->name_len, name, name_len)) {
				scan_fail(s, name, "duplicate label " NAME_FMT,
					  NAME_ARG(name, name_len));
				return NULL;
			}
		}
		if (s->n_labels == OPENMETRICS_MAX_LABELS) {
			scan_fail(s, name, "more than %d labels",
				  OPENMETRICS_MAX_LABELS);
			return NULL;
		}
		s->labels[s->n_labels++] = (struct label_ref){
			name, name_len, value, value_len, h, escaped };

		p = skip_blanks(p, e);
		if (p == e) {
			scan_fail(s, open, "label set not closed with '}'");
			return NULL;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '}')
			return p + 1;
		char buf[24];
		scan_fail(s, p,
			  "expected ',' or '}' after the value of label " NAME_FMT ", found %s",
			  NAME_ARG(name, name_len), describe_char(buf, p, e));
		return NULL;
	}
}

/* A value, timestamp or exemplar value token [p, q). */
static int scan_number(struct scan *s, const char *p, const char *q,
		       bool specials, const char *what, double *out)
{
	double v;
	int rc = read_number(s->sel, p, (size_t)(q - p), specials, &v);
	if (rc == 0) {
		if (!specials && !isfinite(v))
			rc = -1;
		else {
			*out = v;
			return 0;
		}
	}
	char buf[SHOW_BUF];
	show_text(buf, p, (size_t)(q - p));
	if (rc == -2)
		return scan_fail(s, p, "the %s '%s' is out of range", what, buf);
	if (rc == -3)
		return scan_fail(s, p, "the %s '%s' is longer than %d characters",
				 what, buf, NUMBER_MAX);
	return scan_fail(s, p, "cannot read '%s' as the %s", buf, what);
}

/* After the value: [timestamp] [# {labels} value [timestamp]] to e. */
static int scan_sample_tail(struct scan *s, const char *p, const char *e)
{
	double ignored;
	p = skip_blanks(p, e);
	if (p < e && *p != '#') {
		const char *q = skip_nonblanks(p, e);
		if (scan_number(s, p, q, false, "timestamp", &ignored) != 0)
			return OPENMETRICS_PARSE_ERROR;
		p = skip_blanks(q, e);
	}
	if (p == e)
		return 0;
	if (*p != '#') {
		char buf[SHOW_BUF];
		return scan_fail(s, p, "unexpected '%s' after the timestamp",
				 show_text(buf, p, (size_t)(e - p)));
	}
	/* An OpenMetrics exemplar. */
	p = skip_blanks(p + 1, e);
	if (p == e || *p != '{') {
		char buf[24];
		return scan_fail(s, p,
				 "expected '{' to open an exemplar's labels after '#', found %s",
				 describe_char(buf, p, e));
	}
	p = scan_label_set(s, p, e);
	if (!p)
		return OPENMETRICS_PARSE_ERROR;
	p = skip_blanks(p, e);
	if (p == e)
		return scan_fail(s, p, "missing the exemplar's value");
	const char *q = skip_nonblanks(p, e);
	if (scan_number(s, p, q, true, "exemplar's value", &ignored) != 0)
		return OPENMETRICS_PARSE_ERROR;
	p = skip_blanks(q, e);
	if (p == e)
		return 0;
	q = skip_nonblanks(p, e);
	if (scan_number(s, p, q, false, "exemplar's timestamp", &ignored) != 0)
		return OPENMETRICS_PARSE_ERROR;
	p = skip_blanks(q, e);
	if (p != e) {
		char buf[SHOW_BUF];
		return scan_fail(s, p,
				 "unexpected '%s' after the exemplar",
				 show_text(buf, p, (size_t)(e - p)));
	}
	return 0;
}

static void tally_add(struct tally *t, double v, size_t line_no)
{
	if (t->bad_line)
		return;
	double sum = t->sum + v;
	if (isnan(sum)) {
		t->bad_line = line_no;
		t->bad_is_nan = isnan(v);
		return;
	}
	t->sum = sum;
	t->matched++;
}

/* A sample line from its first non-blank byte p to e. */
static int scan_sample(struct scan *s, const char *p, const char *e)
{
	const struct openmetrics_selector *sel = s->sel;
	if (!is_metric_start(*p)) {
		char buf[24];
		return scan_fail(s, p, "expected a metric name, found %s",
				 describe_char(buf, p, e));
	}
	const char *name = p;
	while (p < e && is_metric_char(*p))
		p++;
	size_t name_len = (size_t)(p - name);
	enum name_kind kind = NAME_OTHER;
	if (span_equals(name, name_len, sel->metric, sel->metric_len))
		kind = NAME_EXACT;
	else if (span_equals(name, name_len, sel->metric_total,
			     sel->metric_total_len))
		kind = NAME_TOTAL;

	const char *q = skip_blanks(p, e);
	s->n_labels = 0;
	if (q < e && *q == '{') {
		p = scan_label_set(s, q, e);
		if (!p)
			return OPENMETRICS_PARSE_ERROR;
		p = skip_blanks(p, e);
	} else if (q == p && q < e) {
		char buf[24];
		return scan_fail(s, p, "unexpected %s in metric name",
				 describe_char(buf, p, e));
	} else {
		p = q;
	}
	if (p == e)
		return scan_fail(s, p, "missing the value");

	int selected = 0;
	if (kind != NAME_OTHER) {
		selected = labels_selected(s);
		if (selected < 0)
			return selected;
	}
	q = skip_nonblanks(p, e);
	double v;
	if (scan_number(s, p, q, true, "value", &v) != 0)
		return OPENMETRICS_PARSE_ERROR;
	if (scan_sample_tail(s, q, e) != 0)
		return OPENMETRICS_PARSE_ERROR;
	if (kind != NAME_OTHER) {
		struct tally *t = kind == NAME_EXACT ? &s->exact : &s->total;
		t->series++;
		if (selected)
			tally_add(t, v, s->line_no);
	}
	return 0;
}

static bool is_known_type(const char *p, size_t n)
{
	static const char *const types[] = {
		"counter", "gauge", "histogram", "summary", "untyped",
		"unknown", "gaugehistogram", "stateset", "info",
	};
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (span_equals(p, n, types[i], strlen(types[i])))
			return true;
	return false;
}

/* A line starting (after blanks) with '#' at p. */
static int scan_comment(struct scan *s, const char *p, const char *e)
{
	const struct openmetrics_selector *sel = s->sel;
	p++;
	if (p == e || !is_blank(*p))
		return 0;  /* "#text": a comment */
	p = skip_blanks(p, e);
	const char *word = p;
	p = skip_nonblanks(p, e);
	size_t word_len = (size_t)(p - word);
	if (span_equals(word, word_len, "EOF", 3)) {
		if (skip_blanks(p, e) == e)
			s->eof = true;
		return 0;
	}
	bool help = span_equals(word, word_len, "HELP", 4);
	bool type = span_equals(word, word_len, "TYPE", 4);
	bool unit = span_equals(word, word_len, "UNIT", 4);
	if (!(help || type || unit) || p == e)
		return 0;  /* another comment, or a bare "# HELP" */
	p = skip_blanks(p, e);
	const char *name = p;
	while (p < e && is_metric_char(*p))
		p++;
	size_t name_len = (size_t)(p - name);
	if (name_len == 0 || !is_metric_start(*name) ||
	    (p < e && !is_blank(*p))) {
		char buf[24];
		const char *bad = name_len && is_metric_start(*name) ? p : name;
		return scan_fail(s, bad, "bad metric name in '# %.4s': found %s",
				 word, describe_char(buf, bad, e));
	}
	if (!type)
		return 0;  /* help and unit text: anything */
	p = skip_blanks(p, e);
	const char *t = p;
	p = skip_nonblanks(p, e);
	if (t == p)
		return scan_fail(s, t, "missing the type after '# TYPE' " NAME_FMT,
				 NAME_ARG(name, name_len));
	if (!is_known_type(t, (size_t)(p - t))) {
		char buf[SHOW_BUF];
		return scan_fail(s, t, "unknown metric type '%s'",
				 show_text(buf, t, (size_t)(p - t)));
	}
	const char *rest = skip_blanks(p, e);
	if (rest != e) {
		char buf[SHOW_BUF];
		return scan_fail(s, rest, "unexpected '%s' after the type",
				 show_text(buf, rest, (size_t)(e - rest)));
	}
	if (span_equals(t, (size_t)(p - t), "counter", 7) &&
	    (span_equals(name, name_len, sel->metric, sel->metric_len) ||
	     span_equals(name, name_len, sel->metric_total,
			 sel->metric_total_len)))
		s->counter_declared = true;
	return 0;
}

static int scan_line(struct scan *s, const char *p, const char *e)
{
	p = skip_blanks(p, e);
	if (p == e)
		return 0;
	if (s->eof)
		return scan_fail(s, p, "text after '# EOF'");
	if (*p == '#')
		return scan_comment(s, p, e);
	return scan_sample(s, p, e);
}

/* The verdict once every line has been read. */
static int scan_result(struct scan *s, double *sum, size_t *matched)
{
	const struct openmetrics_selector *sel = s->sel;
	const struct tally *t = NULL;
	const char *name = NULL;
	if (s->exact.series) {
		t = &s->exact;
		name = sel->metric;
	} else if (s->total.series && s->counter_declared) {
		t = &s->total;
		name = sel->metric_total;
	}
	if (!t) {
		if (s->total.series)
			set_message(s->err, s->errlen,
				    "no sample named '%s'; there are %zu series of '%s', but no '# TYPE %s counter' says it is a counter: select '%s'",
				    sel->metric, s->total.series,
				    sel->metric_total, sel->metric,
				    sel->metric_total);
		else if (s->counter_declared)
			set_message(s->err, s->errlen,
				    "no sample named '%s' or '%s'", sel->metric,
				    sel->metric_total);
		else
			set_message(s->err, s->errlen,
				    "no sample named '%s'", sel->metric);
		return OPENMETRICS_NOT_FOUND;
	}
	if (t->bad_line) {
		s->line_no = t->bad_line;
		if (t->bad_is_nan)
			return scan_fail(s, NULL,
					 "value of a selected series of '%s' is NaN",
					 name);
		return scan_fail(s, NULL,
				 "value of a selected series of '%s' is infinite with the opposite sign of the sum so far (the sum is NaN)",
				 name);
	}
	if (t->matched == 0) {
		set_message(s->err, s->errlen,
			    "%zu series of '%s', none with labels matching %.*s",
			    t->series, name, (int)sel->labels_len,
			    sel->labels_text);
		return OPENMETRICS_NOT_FOUND;
	}
	*sum = t->sum;
	*matched = t->matched;
	if (s->err && s->errlen)
		s->err[0] = '\0';
	return OPENMETRICS_OK;
}

int openmetrics_sum(const struct openmetrics_selector *sel, const char *body,
		    size_t len, double *sum, size_t *matched, char *err,
		    size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!body)
		body = "", len = 0;
	struct scan s;
	memset(&s, 0, offsetof(struct scan, labels));
	s.sel = sel;
	s.err = err;
	s.errlen = errlen;

	int rc = OPENMETRICS_OK;
	const char *p = body, *end = body + len;
	while (p < end) {
		s.line_no++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (e > p && e[-1] == '\r')
			e--;
		s.line = p;
		rc = scan_line(&s, p, e);
		if (rc != OPENMETRICS_OK)
			break;
		p = nl ? nl + 1 : end;
	}
	if (rc == OPENMETRICS_OK)
		rc = scan_result(&s, sum, matched);
	free(s.scratch);
	return rc;
}
