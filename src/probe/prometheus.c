/*
 * prometheus.c - the Prometheus HTTP API client (prometheus.h): requests
 * through http.c, retries, and a one-pass parser of the API's JSON.
 *
 * Why not jansson: a range query over thousands of series is hundreds of
 * MB of JSON in all; a tree costs about five times the text in memory
 * and parses at a fraction of the speed. The API's shape is fixed
 * ({"status", "data": {"resultType", "result": [{"metric": {...},
 * "values": [[t, "v"], ...]}]}, "warnings": [...]}), so a small
 * recursive-descent reader walks it once, skipping what it does not know
 * (any value, nested at most PARSE_DEPTH deep), and hands each series to
 * the caller as soon as its object closes.
 *
 * Retries: a transport failure (refused, reset, timed out) and a 5xx are
 * tried again after 0.5 s, 1 s, 2 s, ... (retries in all); a 4xx is the
 * request's fault and is not. A response over the bound is not retried
 * either: it would be as large again.
 */
#include "prometheus.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "http.h"

#define PARSE_DEPTH 64

struct prom_client {
	struct http_client *http;
	char *base;                /* without a trailing '/' */
	char *authorization;
	double timeout_s;
	size_t body_max;
	int retries;
	void (*on_warning)(void *arg, const char *text);
	void *warning_arg;
};

/* ---- the parser ---------------------------------------------------------- */

struct parser {
	const char *p, *end, *start;
	const char *what;
	prom_series_fn fn;
	void *arg;
	void (*on_warning)(void *arg, const char *text);
	void *warning_arg;
	char *sbuf;                /* the last string read, decoded */
	size_t scap;
	char *arena;               /* labels of the current series:
				      name\0value\0... */
	size_t arena_len, arena_cap;
	size_t *offs;              /* start of each name and value */
	size_t n_offs, offs_cap;
	struct prom_label *labels;
	size_t labels_cap;
	double *t, *v;             /* points of the current series */
	size_t n, cap;
	bool stopped;
	char status[16];
	char *error_msg, *error_type;
};

static int syntax(struct parser *ps)
{
	return error("%s: the response is not the Prometheus API's JSON "
		     "(at byte %zu of %zu)", ps->what,
		     (size_t)(ps->p - ps->start),
		     (size_t)(ps->end - ps->start));
}

static inline void ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' ||
				   *ps->p == '\r' || *ps->p == '\t'))
		ps->p++;
}

static inline bool eat(struct parser *ps, char c)
{
	ws(ps);
	if (ps->p < ps->end && *ps->p == c) {
		ps->p++;
		return true;
	}
	return false;
}

static void put_utf8(struct parser *ps, size_t *len, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	xgrow((void **)&ps->sbuf, &ps->scap, *len + n + 1, 1);
	memcpy(ps->sbuf + *len, b, n);
	*len += n;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* A JSON string into ps->sbuf (NUL-terminated, *len bytes; an embedded
 * \u0000 ends it early, which no label or message needs). */
static int string(struct parser *ps, size_t *len_out)
{
	ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return syntax(ps);
	ps->p++;
	size_t len = 0;
	for (;;) {
		const char *q = ps->p;
		while (q < ps->end && *q != '"' && *q != '\\')
			q++;
		if (q >= ps->end)
			return syntax(ps);
		size_t n = (size_t)(q - ps->p);
		xgrow((void **)&ps->sbuf, &ps->scap, len + n + 1, 1);
		memcpy(ps->sbuf + len, ps->p, n);
		len += n;
		ps->p = q + 1;
		if (*q == '"')
			break;
		if (ps->p >= ps->end)
			return syntax(ps);
		char e = *ps->p++;
		uint32_t cp;
		switch (e) {
		case '"': case '\\': case '/':
			cp = (uint32_t)e;
			break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (ps->end - ps->p < 4 || hex4(ps->p, &cp))
				return syntax(ps);
			ps->p += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u') {
				uint32_t lo;
				if (!hex4(ps->p + 2, &lo) && lo >= 0xDC00 &&
				    lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) +
					     (lo - 0xDC00);
					ps->p += 6;
				}
			}
			if (cp >= 0xD800 && cp < 0xE000)
				cp = 0xFFFD;  /* a lone surrogate */
			break;
		default:
			return syntax(ps);
		}
		put_utf8(ps, &len, cp);
	}
	xgrow((void **)&ps->sbuf, &ps->scap, len + 1, 1);
	ps->sbuf[len] = '\0';
	if (len_out)
		*len_out = len;
	return 0;
}

static int skip_value(struct parser *ps, int depth);

static int skip_container(struct parser *ps, char close, bool keyed,
			  int depth)
{
	if (eat(ps, close))
		return 0;
	for (;;) {
		if (keyed) {
			if (string(ps, NULL) || !eat(ps, ':'))
				return syntax(ps);
		}
		if (skip_value(ps, depth + 1))
			return -1;
		if (eat(ps, ','))
			continue;
		if (eat(ps, close))
			return 0;
		return syntax(ps);
	}
}

static int skip_value(struct parser *ps, int depth)
{
	if (depth > PARSE_DEPTH)
		return syntax(ps);
	ws(ps);
	if (ps->p >= ps->end)
		return syntax(ps);
	char c = *ps->p;
	if (c == '"')
		return string(ps, NULL);
	if (c == '{') {
		ps->p++;
		return skip_container(ps, '}', true, depth);
	}
	if (c == '[') {
		ps->p++;
		return skip_container(ps, ']', false, depth);
	}
	/* number, true, false, null */
	const char *q = ps->p;
	while (q < ps->end && ((*q && strchr("+-.eE", *q)) || (*q >= '0' && *q <= '9') ||
			       (*q >= 'a' && *q <= 'z')))
		q++;
	if (q == ps->p)
		return syntax(ps);
	ps->p = q;
	return 0;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A decimal number in [p, end): the fast path for digits with an
 * optional fraction (an integer mantissa below 2^53 divided by an exact
 * power of ten is correctly rounded), else strtod on a copy. Returns the
 * number of bytes read, 0 when none. */
static size_t number(const char *p, const char *end, double *out)
{
	const char *q = p;
	bool neg = false;
	if (q < end && (*q == '-' || *q == '+')) {
		neg = *q == '-';
		q++;
	}
	uint64_t m = 0;
	int digits = 0, frac = 0;
	while (q < end && *q >= '0' && *q <= '9') {
		m = m * 10 + (uint64_t)(*q++ - '0');
		digits++;
	}
	if (q < end && *q == '.') {
		q++;
		while (q < end && *q >= '0' && *q <= '9') {
			m = m * 10 + (uint64_t)(*q++ - '0');
			digits++;
			frac++;
		}
	}
	bool plain = digits > 0 && digits <= 15 &&
		     !(q < end && (*q == 'e' || *q == 'E' ||
				   (*q >= 'A' && *q <= 'Z') ||
				   (*q >= 'a' && *q <= 'z')));
	if (plain) {
		double v = (double)m / pow10_exact[frac];
		*out = neg ? -v : v;
		return (size_t)(q - p);
	}
	char b[64];
	size_t n = 0;
	while (p + n < end && n < sizeof(b) - 1 && p[n] &&
	       strchr("+-.0123456789eEInfNaxXinfa", p[n]))
		n++;
	memcpy(b, p, n);
	b[n] = '\0';
	char *e;
	*out = strtod(b, &e);
	return (size_t)(e - b);
}

/* One point [t, "v"] of "values". */
static int point(struct parser *ps)
{
	double t, v;
	if (!eat(ps, '['))
		return syntax(ps);
	ws(ps);
	size_t k = number(ps->p, ps->end, &t);
	if (!k)
		return syntax(ps);
	ps->p += k;
	if (!eat(ps, ','))
		return syntax(ps);
	ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return syntax(ps);
	ps->p++;
	const char *q = memchr(ps->p, '"', (size_t)(ps->end - ps->p));
	if (!q)
		return syntax(ps);
	k = number(ps->p, q, &v);
	if (k != (size_t)(q - ps->p))
		return syntax(ps);
	ps->p = q + 1;
	if (!eat(ps, ']'))
		return syntax(ps);
	if (!isfinite(v) || !isfinite(t))
		return 0;  /* NaN, +Inf: a gap */
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 1024;
		ps->t = xrealloc(ps->t, ps->cap * sizeof(double));
		ps->v = xrealloc(ps->v, ps->cap * sizeof(double));
	}
	ps->t[ps->n] = t;
	ps->v[ps->n] = v;
	ps->n++;
	return 0;
}

static void arena_put(struct parser *ps, size_t len)
{
	xgrow((void **)&ps->arena, &ps->arena_cap, ps->arena_len + len + 1, 1);
	memcpy(ps->arena + ps->arena_len, ps->sbuf, len + 1);
	xgrow((void **)&ps->offs, &ps->offs_cap, ps->n_offs + 1,
	      sizeof(*ps->offs));
	ps->offs[ps->n_offs++] = ps->arena_len;
	ps->arena_len += len + 1;
}

/* {"name": "value", ...} into the arena. */
static int label_object(struct parser *ps)
{
	if (!eat(ps, '{'))
		return syntax(ps);
	if (eat(ps, '}'))
		return 0;
	for (;;) {
		size_t len;
		if (string(ps, &len))
			return -1;
		arena_put(ps, len);
		if (!eat(ps, ':') || string(ps, &len))
			return syntax(ps);
		arena_put(ps, len);
		if (eat(ps, ','))
			continue;
		if (eat(ps, '}'))
			return 0;
		return syntax(ps);
	}
}

static int emit(struct parser *ps)
{
	size_t nl = ps->n_offs / 2;
	xgrow((void **)&ps->labels, &ps->labels_cap, nl + 1,
	      sizeof(*ps->labels));
	for (size_t i = 0; i < nl; i++) {
		ps->labels[i].name = ps->arena + ps->offs[2 * i];
		ps->labels[i].value = ps->arena + ps->offs[2 * i + 1];
	}
	if (ps->fn && ps->fn(ps->arg, ps->labels, nl, ps->t, ps->v, ps->n)) {
		ps->stopped = true;
		return PROM_STOPPED;
	}
	return 0;
}

static void reset_series(struct parser *ps)
{
	ps->arena_len = 0;
	ps->n_offs = 0;
	ps->n = 0;
}

/* One element of a matrix: {"metric": {...}, "values": [...]} */
static int matrix_series(struct parser *ps)
{
	reset_series(ps);
	if (!eat(ps, '{'))
		return syntax(ps);
	if (!eat(ps, '}')) {
		for (;;) {
			if (string(ps, NULL) || !eat(ps, ':'))
				return syntax(ps);
			int rc;
			if (!strcmp(ps->sbuf, "metric")) {
				rc = label_object(ps);
			} else if (!strcmp(ps->sbuf, "values")) {
				rc = 0;
				if (!eat(ps, '['))
					return syntax(ps);
				if (!eat(ps, ']')) {
					do {
						if ((rc = point(ps)))
							break;
					} while (eat(ps, ','));
					if (!rc && !eat(ps, ']'))
						return syntax(ps);
				}
			} else {
				rc = skip_value(ps, 2);  /* "histograms", ... */
			}
			if (rc)
				return rc;
			if (eat(ps, ','))
				continue;
			if (eat(ps, '}'))
				break;
			return syntax(ps);
		}
	}
	return emit(ps);
}

/* The array of "result" (a matrix) or of "data" (the series API). */
static int series_array(struct parser *ps, bool matrix)
{
	if (!eat(ps, '['))
		return syntax(ps);
	if (eat(ps, ']'))
		return 0;
	do {
		int rc;
		if (matrix) {
			rc = matrix_series(ps);
		} else {
			reset_series(ps);
			rc = label_object(ps);
			if (!rc)
				rc = emit(ps);
		}
		if (rc)
			return rc;
	} while (eat(ps, ','));
	if (!eat(ps, ']'))
		return syntax(ps);
	return 0;
}

static int data_object(struct parser *ps)
{
	if (!eat(ps, '{'))
		return syntax(ps);
	if (eat(ps, '}'))
		return 0;
	for (;;) {
		if (string(ps, NULL) || !eat(ps, ':'))
			return syntax(ps);
		int rc;
		if (!strcmp(ps->sbuf, "resultType")) {
			if (string(ps, NULL))
				return -1;
			if (strcmp(ps->sbuf, "matrix"))
				return error("%s: the result is a %s, not a "
					     "range of series", ps->what,
					     ps->sbuf);
			rc = 0;
		} else if (!strcmp(ps->sbuf, "result")) {
			rc = series_array(ps, true);
		} else {
			rc = skip_value(ps, 1);
		}
		if (rc)
			return rc;
		if (eat(ps, ','))
			continue;
		if (eat(ps, '}'))
			return 0;
		return syntax(ps);
	}
}

static int warnings(struct parser *ps)
{
	if (!eat(ps, '['))
		return syntax(ps);
	if (eat(ps, ']'))
		return 0;
	do {
		if (string(ps, NULL))
			return -1;
		if (ps->on_warning)
			ps->on_warning(ps->warning_arg, ps->sbuf);
		else
			warning("%s: %s", ps->what, ps->sbuf);
	} while (eat(ps, ','));
	if (!eat(ps, ']'))
		return syntax(ps);
	return 0;
}

static int parse_top(struct parser *ps)
{
	if (!eat(ps, '{'))
		return syntax(ps);
	if (eat(ps, '}'))
		return syntax(ps);
	for (;;) {
		if (string(ps, NULL) || !eat(ps, ':'))
			return syntax(ps);
		int rc = 0;
		if (!strcmp(ps->sbuf, "status")) {
			if (string(ps, NULL))
				return -1;
			snprintf(ps->status, sizeof(ps->status), "%s",
				 ps->sbuf);
		} else if (!strcmp(ps->sbuf, "data")) {
			ws(ps);
			if (ps->p < ps->end && *ps->p == '[')
				rc = series_array(ps, false);
			else
				rc = data_object(ps);
		} else if (!strcmp(ps->sbuf, "warnings")) {
			rc = warnings(ps);
		} else if (!strcmp(ps->sbuf, "error")) {
			if (string(ps, NULL))
				return -1;
			free(ps->error_msg);
			ps->error_msg = xstrdup(ps->sbuf);
		} else if (!strcmp(ps->sbuf, "errorType")) {
			if (string(ps, NULL))
				return -1;
			free(ps->error_type);
			ps->error_type = xstrdup(ps->sbuf);
		} else {
			rc = skip_value(ps, 1);  /* "infos", ... */
		}
		if (rc)
			return rc;
		if (eat(ps, ','))
			continue;
		if (eat(ps, '}'))
			break;
		return syntax(ps);
	}
	ws(ps);
	if (ps->p != ps->end)
		return syntax(ps);
	return 0;
}

static void parser_release(struct parser *ps)
{
	free(ps->sbuf);
	free(ps->arena);
	free(ps->offs);
	free(ps->labels);
	free(ps->t);
	free(ps->v);
	free(ps->error_msg);
	free(ps->error_type);
}

/* Parse; the status and error fields are left in ps. 0, -1 (syntax, a
 * message printed) or PROM_STOPPED. */
static int parse(struct parser *ps, const char *body, size_t len)
{
	ps->start = ps->p = body;
	ps->end = body + len;
	return parse_top(ps);
}

int prom_parse_response(const char *body, size_t len, const char *what,
			prom_series_fn fn, void *arg,
			void (*on_warning)(void *, const char *),
			void *warning_arg)
{
	struct parser ps = {.what = what, .fn = fn, .arg = arg,
			    .on_warning = on_warning,
			    .warning_arg = warning_arg};
	int rc = parse(&ps, body, len);
	if (rc == 0 && strcmp(ps.status, "success")) {
		error("%s: Prometheus says: %s%s%s%s", what,
		      ps.error_msg ? ps.error_msg : "(no message)",
		      ps.error_type ? " (" : "",
		      ps.error_type ? ps.error_type : "",
		      ps.error_type ? ")" : "");
		rc = PROM_BAD_QUERY;
	} else if (rc == -1) {
		rc = PROM_FAILED;
	}
	parser_release(&ps);
	return rc;
}

/* ---- the client ---------------------------------------------------------- */

struct prom_client *prom_client_new(const struct prom_config *cfg)
{
	assert(cfg && cfg->url && cfg->timeout_s > 0 && cfg->body_max > 0);
	if (strncmp(cfg->url, "http://", 7) && strncmp(cfg->url, "https://", 8)) {
		error("--prometheus: '%s' is not an http:// or https:// URL",
		      cfg->url);
		return NULL;
	}
	struct http_client *h = http_client_new(fmin(cfg->timeout_s, 10),
						cfg->timeout_s, true);
	if (!h)
		return NULL;
	struct prom_client *c = xcalloc(1, sizeof(*c));
	c->http = h;
	c->base = xstrdup(cfg->url);
	size_t n = strlen(c->base);
	while (n > 0 && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	c->authorization = cfg->authorization ?
			   xstrdup(cfg->authorization) : NULL;
	c->timeout_s = cfg->timeout_s;
	c->body_max = cfg->body_max;
	c->retries = cfg->retries;
	c->on_warning = cfg->on_warning;
	c->warning_arg = cfg->warning_arg;
	return c;
}

void prom_client_free(struct prom_client *c)
{
	if (!c)
		return;
	http_client_free(c->http);
	free(c->base);
	if (c->authorization) {
		memset(c->authorization, 0, strlen(c->authorization));
		free(c->authorization);
	}
	free(c);
}

/* Loopback: gzip would cost the server more than it saves. */
static bool is_loopback(const char *url)
{
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	return !strncmp(h, "127.", 4) || !strncmp(h, "localhost", 9) ||
	       !strncmp(h, "[::1]", 5);
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts))
		;
}

/* POST form to path; parse a 2xx response with fn. */
static int request(struct prom_client *c, const char *path, const char *form,
		   const char *what, prom_series_fn fn, void *arg)
{
	size_t ulen = strlen(c->base) + strlen(path) + 1;
	char *url = xmalloc(ulen);
	snprintf(url, ulen, "%s%s", c->base, path);
	struct http_request r = {
		.url = url, .form = form, .authorization = c->authorization,
		.body_max = c->body_max, .no_compression = is_loopback(url),
	};
	char err[256], last[320] = "";
	int rc = PROM_FAILED;
	int tries = c->retries + 1;
	for (int k = 0; k < tries; k++) {
		if (k)
			sleep_s(0.5 * (double)(1 << (k - 1 < 6 ? k - 1 : 6)));
		long status = 0;
		const char *body;
		size_t len;
		int h = http_request(c->http, &r, &status, &body, &len, err,
				     sizeof(err));
		if (h == -2) {
			error("%s: the response is larger than %zu MiB, the "
			      "bound on one response: %s", what,
			      c->body_max >> 20, err);
			rc = PROM_TOO_LARGE;
			goto out;
		}
		if (h) {
			snprintf(last, sizeof(last), "%s", err);
			continue;
		}
		if (status >= 200 && status < 300) {
			rc = prom_parse_response(body, len, what, fn, arg,
						 c->on_warning,
						 c->warning_arg);
			goto out;
		}
		/* An error: the API's message when the body is its JSON. */
		struct parser ps = {.what = what};
		char msg[200] = "";
		if (parse(&ps, body, len) == 0 && ps.error_msg)
			snprintf(msg, sizeof(msg), "%s%s%s", ps.error_msg,
				 ps.error_type ? " (" : "",
				 ps.error_type ? ps.error_type : "");
		else
			snprintf(msg, sizeof(msg), "%.120s", body);
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		if (ps.error_msg && ps.error_type)
			strncat(msg, ")", sizeof(msg) - strlen(msg) - 1);
		parser_release(&ps);
		if (status < 500) {
			error("%s: Prometheus says (HTTP %ld): %s", what,
			      status, msg);
			rc = PROM_BAD_QUERY;
			goto out;
		}
		snprintf(last, sizeof(last), "HTTP %ld: %s", status, msg);
	}
	error("%s: %s (%d tries)", what, last, tries);
	rc = PROM_FAILED;
out:
	free(url);
	return rc;
}

int prom_series(struct prom_client *c, const char *selector, double start,
		double end, prom_series_fn fn, void *arg)
{
	char *q = http_escape(selector);
	size_t n = strlen(q) + 128;
	char *form = xmalloc(n);
	snprintf(form, n, "match%%5B%%5D=%s&start=%.3f&end=%.3f", q, start,
		 end);
	free(q);
	int rc = request(c, "/api/v1/series", form, "/api/v1/series", fn,
			 arg);
	free(form);
	return rc;
}

int prom_query_range(struct prom_client *c, const char *query, double start,
		     double end, double step, prom_series_fn fn, void *arg)
{
	char *q = http_escape(query);
	size_t n = strlen(q) + 160;
	char *form = xmalloc(n);
	snprintf(form, n, "query=%s&start=%.3f&end=%.3f&step=%.3f"
		 "&timeout=%.0fs", q, start, end, step, ceil(c->timeout_s));
	free(q);
	int rc = request(c, "/api/v1/query_range", form,
			 "/api/v1/query_range", fn, arg);
	free(form);
	return rc;
}

/* ---- selectors ----------------------------------------------------------- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

/* The braces of a selector: [*open, *close] or both NULL; -1 when q is
 * not a selector. */
static int selector_braces(const char *q, const char **open,
			   const char **close)
{
	const char *p = q;
	*open = *close = NULL;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	bool named = false;
	if (name_char(*p, true)) {
		named = true;
		while (name_char(*p, false))
			p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '{') {
		*open = p++;
		char quote = 0;
		for (; *p; p++) {
			if (quote) {
				if (*p == '\\' && quote != '`' && p[1])
					p++;
				else if (*p == quote)
					quote = 0;
			} else if (*p == '"' || *p == '\'' || *p == '`') {
				quote = *p;
			} else if (*p == '}') {
				break;
			} else if (*p == '{') {
				return -1;
			}
		}
		if (*p != '}')
			return -1;
		*close = p++;
	} else if (!named) {
		return -1;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

int prom_is_selector(const char *query)
{
	const char *o, *c;
	return selector_braces(query, &o, &c) == 0;
}

char *prom_selector_add(const char *query, const char *extra)
{
	const char *o, *c;
	int rc = selector_braces(query, &o, &c);
	assert(rc == 0);
	(void)rc;
	size_t n = strlen(query) + strlen(extra) + 8;
	char *out = xmalloc(n);
	if (!o) {
		size_t len = strlen(query);
		while (len && strchr(" \t\n", query[len - 1]))
			len--;
		snprintf(out, n, "%.*s{%s}", (int)len, query, extra);
		return out;
	}
	bool empty = true;
	for (const char *p = o + 1; p < c; p++)
		if (!strchr(" \t\n,", *p))
			empty = false;
	/* A trailing comma inside the braces is allowed; do not double it. */
	const char *last = c;
	while (last > o + 1 && strchr(" \t\n", last[-1]))
		last--;
	bool comma = last > o + 1 && last[-1] == ',';
	snprintf(out, n, "%.*s%s%s%s", (int)(c - query), query,
		 empty || comma ? "" : ", ", extra, c);
	return out;
}

char *prom_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1), *p = out;
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			*p++ = '\\';
			*p++ = *s;
		} else if (*s == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else {
			*p++ = *s;
		}
	}
	*p = '\0';
	return out;
}

char *prom_regex_escape(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1), *p = out;
	for (; *s; s++) {
		if (strchr("\\.+*?()|[]{}^$", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}
